/* etl_packet_dissect.c - packet events as packets (etl_packet_dissect.h).
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "compat.h"

#include <string.h>

#include <epan/epan.h>
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/proto_data.h>
#include <wiretap/pcap-encap.h>
#include <wiretap/wtap.h>

#include "etl_packet.h"
#include "fields.h"
#include "prescan.h"
#include "registry.h"
#include "value_format.h"

#include "etl_event_data.h"
#include "etl_packet_dissect.h"
#include "etl_prescan.h"

/* p_add_proto_data key of a frame's etls_pkt_frame (etl_event_data.c uses 0, etl_process.c 1). */
#define ETLS_PDATA_PACKET 2u

static int etls_proto = -1;

static int hf_pkt = -1;
static int hf_pkt_source = -1;
static int hf_pkt_link_type = -1;
static int hf_pkt_captured_len = -1;
static int hf_pkt_original_len = -1;
static int hf_pkt_truncated = -1;
static int hf_pkt_direction = -1;
static int hf_pkt_interface_id = -1;
static int hf_pkt_interface_name = -1;
static int hf_pkt_interface_desc = -1;
static int hf_pkt_component_type = -1;
static int hf_pkt_medium = -1;
static int hf_pkt_group_id = -1;
static int hf_pkt_number = -1;
static int hf_pkt_appearance = -1;
static int hf_pkt_first_appearance = -1;
static int hf_pkt_dir_tag = -1;
static int hf_pkt_packet_type = -1;
static int hf_pkt_edge_id = -1;
static int hf_pkt_filter_id = -1;
static int hf_pkt_drop = -1;
static int hf_pkt_drop_reason = -1;
static int hf_pkt_drop_reason_name = -1;
static int hf_pkt_drop_location = -1;
static int hf_pkt_keywords = -1;
static int hf_pkt_miniport_if_index = -1;
static int hf_pkt_lower_if_index = -1;
static int hf_pkt_fragments = -1;
static int hf_pkt_radio = -1;
static int hf_pkt_radio_flags = -1;
static int hf_pkt_radio_phy_id = -1;
static int hf_pkt_radio_frequency = -1;
static int hf_pkt_radio_mpdus = -1;
static int hf_pkt_radio_rssi = -1;
static int hf_pkt_radio_rate = -1;
static int hf_pkt_radio_timestamp = -1;
static int hf_pkt_vlan_id = -1;
static int hf_pkt_vlan_priority = -1;
static int hf_pkt_vlan_cfi = -1;
static int hf_pkt_vmswitch = -1;
static int hf_pkt_source_port_id = -1;
static int hf_pkt_held = -1;

static gint ett_pkt = -1;
static gint ett_pkt_radio = -1;

static expert_field ei_pkt_drop = EI_INIT;
static expert_field ei_pkt_problem = EI_INIT;
static expert_field ei_pkt_truncated = EI_INIT;

static dissector_table_t etls_wtap_encap_table;

/* The open capture file's packet context (NULL before its first frame). */
static etl_packets *etls_pk;
/* The frame the first pass decoded last (0: none), so a frame is decoded once. */
static guint32 etls_pk_decoded;

/* What the first pass decided about a frame (file scope).  The etl_packet is kept whole but for
 * its frame pointer: the frame is the record's own bytes at pkt.frame_offset, or `copy`. */
typedef struct etls_pkt_frame {
    etl_packet pkt;
    const uint8_t *copy;       /* joined fragments, cleared 802.11 bit; NULL when in the record */
    const char *problem;       /* the packet layer's message when pkt.problem != ETL_OK */
} etls_pkt_frame;

static const value_string etls_pkt_source_vals[] = {
    { ETL_PACKET_SRC_PKTMON, "pktmon" },
    { ETL_PACKET_SRC_NDISCAP, "ndiscap (netsh trace)" },
    { 0, NULL }
};
static const value_string etls_pkt_link_vals[] = {
    { ETL_LINK_ETHERNET, "Ethernet" },
    { ETL_LINK_RAW, "Raw IP" },
    { ETL_LINK_IEEE802_11, "IEEE 802.11" },
    { ETL_LINK_NONE, "none" },
    { 0, NULL }
};
static const value_string etls_pkt_dir_vals[] = {
    { ETL_DIR_UNKNOWN, "unknown" },
    { ETL_DIR_INBOUND, "inbound" },
    { ETL_DIR_OUTBOUND, "outbound" },
    { 0, NULL }
};
static const value_string etls_pkt_dir_tag_vals[] = {
    { ETL_PKTMON_DIR_NONE, "None" }, { ETL_PKTMON_DIR_IN, "In" }, { ETL_PKTMON_DIR_OUT, "Out" },
    { ETL_PKTMON_DIR_RX, "Rx" }, { ETL_PKTMON_DIR_TX, "Tx" }, { ETL_PKTMON_DIR_INGRESS, "Ingress" },
    { ETL_PKTMON_DIR_EGRESS, "Egress" }, { 0, NULL }
};
static const value_string etls_pkt_type_vals[] = {
    { ETL_PKTMON_TYPE_UNKNOWN, "Unknown" }, { ETL_PKTMON_TYPE_ETHERNET, "Ethernet" },
    { ETL_PKTMON_TYPE_WIFI, "WiFi" }, { ETL_PKTMON_TYPE_IP, "IP" }, { ETL_PKTMON_TYPE_HTTP, "HTTP" },
    { 0, NULL }
};
/* pktmon component types (section 14.1, event 20) */
static const value_string etls_pkt_component_type_vals[] = {
    { 1, "NDIS" }, { 2, "Miniport" }, { 3, "Filter" }, { 4, "Protocol" }, { 5, "VmsVmNic" },
    { 6, "VmsMiniport" }, { 0, NULL }
};

/* ---- the file's context ------------------------------------------------------------------ */

static bool
etls_pk_observer(etl_observer *out)
{
    if (etls_pk == NULL)
        etls_pk = etl_packets_new();
    if (etls_pk == NULL)
        return false;
    *out = etl_packets_observer(etls_pk);
    return true;
}

/* No prescan: etl_packets_decode takes the rundowns as the first pass meets them. */
static void
etls_pk_stream(void)
{
}

static const etls_prescan_client etls_pk_client = { etls_pk_observer, etls_pk_stream };

static void
etls_pk_cleanup(void)
{
    etl_packets_free(etls_pk);
    etls_pk = NULL;
    etls_pk_decoded = 0;
}

/* ---- first pass ---------------------------------------------------------------------------- */

static etls_pkt_frame *
etls_pkt_first_pass(packet_info *pinfo, const etl_record *rec)
{
    etls_pkt_frame *pf;
    etl_packet p;
    etl_error err;

    if (etls_pk == NULL)
        etls_pk = etl_packets_new();
    if (etls_pk == NULL)
        return NULL;
    memset(&err, 0, sizeof err);
    if (etl_packets_decode(etls_pk, rec, &p, &err) != ETL_OK || p.kind == ETL_PACKET_NONE)
        return NULL;
    pf = wmem_new0(wmem_file_scope(), etls_pkt_frame);
    pf->pkt = p;
    pf->pkt.frame = NULL;
    if (p.kind == ETL_PACKET_FRAME && !p.frame_in_record && p.frame != NULL && p.captured_len > 0)
        pf->copy = (const uint8_t *)wmem_memdup(wmem_file_scope(), p.frame, p.captured_len);
    if (p.problem != ETL_OK)
        pf->problem = wmem_strdup(wmem_file_scope(), err.message);
    p_add_proto_data(wmem_file_scope(), pinfo, etls_proto, ETLS_PDATA_PACKET, pf);
    return pf;
}

/* ---- the ETW tree -------------------------------------------------------------------------- */

/* The DropReason's name as the decoder finds it in the event's schema: NULL when none. */
static const char *
etls_drop_reason_name(packet_info *pinfo, const etl_record *rec)
{
    char buf[256];
    size_t len = 0;

    if (!etl_packet_drop_reason_name(etls_event_data_schemas(), rec, buf, sizeof buf, &len))
        return NULL;
    return wmem_strndup(pinfo->pool, buf, len);
}

static void
etls_pkt_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *etl_tree, proto_item **top_out,
              const etl_record *rec, const etls_pkt_frame *pf)
{
    const etl_packet *p = &pf->pkt;
    const etl_packet_iface *ifc = etl_packets_interface(etls_pk, p->source, p->interface_id);
    proto_item *top, *ti;
    proto_tree *t;
    int poff = (int)rec->payload_offset;
    int plen = (int)rec->payload_size;

    top = proto_tree_add_item(etl_tree, hf_pkt, tvb, poff, plen, ENC_NA);
    *top_out = top;
    t = proto_item_add_subtree(top, ett_pkt);
    proto_item_append_text(top, ": %s", val_to_str_const(p->source, etls_pkt_source_vals, "?"));

    proto_tree_add_uint(t, hf_pkt_source, tvb, poff, 0, p->source);
    if (p->kind == ETL_PACKET_HELD) {
        ti = proto_tree_add_boolean(t, hf_pkt_held, tvb, poff, 0, TRUE);
        proto_item_set_generated(ti);
        proto_item_append_text(top, p->event_id == ETL_NDISCAP_EV_METADATA
                                    ? ", radio metadata of the next packet"
                                    : ", fragment of a packet completed later");
    } else {
        proto_tree_add_uint(t, hf_pkt_link_type, tvb, poff, 0, p->link_type);
        proto_tree_add_uint(t, hf_pkt_captured_len, tvb, poff, 0, p->captured_len);
        proto_tree_add_uint(t, hf_pkt_original_len, tvb, poff, 0, p->original_len);
        ti = proto_tree_add_boolean(t, hf_pkt_truncated, tvb, poff, 0, p->truncated);
        proto_item_set_generated(ti);
        proto_tree_add_uint(t, hf_pkt_direction, tvb, poff, 0, p->direction);
        proto_item_append_text(top, ", %s, %u bytes", etl_link_type_name(p->link_type) != NULL
                                                      ? etl_link_type_name(p->link_type) : "no link type",
                               p->original_len);
    }
    proto_tree_add_uint(t, hf_pkt_interface_id, tvb, poff, 0, p->interface_id);
    if (ifc != NULL) {
        if (ifc->name[0] != '\0') {
            proto_tree_add_string(t, hf_pkt_interface_name, tvb, poff, 0, ifc->name);
            proto_item_append_text(top, ", %s", ifc->name);
        }
        if (ifc->description[0] != '\0')
            proto_tree_add_string(t, hf_pkt_interface_desc, tvb, poff, 0, ifc->description);
        if (ifc->source == ETL_PACKET_SRC_PKTMON)
            proto_tree_add_uint(t, hf_pkt_component_type, tvb, poff, 0, ifc->component_type);
        if (ifc->has_medium)
            proto_tree_add_uint(t, hf_pkt_medium, tvb, poff, 0, ifc->medium);
    }

    if (p->source == ETL_PACKET_SRC_PKTMON) {
        proto_tree_add_uint64(t, hf_pkt_group_id, tvb, poff, 8, p->group_id);
        proto_tree_add_uint(t, hf_pkt_number, tvb, poff + 8, 2, p->pkt_number);
        proto_tree_add_uint(t, hf_pkt_appearance, tvb, poff + 10, 2, p->appearance);
        ti = proto_tree_add_boolean(t, hf_pkt_first_appearance, tvb, poff + 10, 2, p->appearance <= 1);
        proto_item_set_generated(ti);
        proto_tree_add_uint(t, hf_pkt_dir_tag, tvb, poff + 12, 2, p->dir_tag);
        proto_tree_add_uint(t, hf_pkt_packet_type, tvb, poff + 14, 2, p->packet_type);
        proto_tree_add_uint(t, hf_pkt_edge_id, tvb, poff + 18, 2, p->edge_id);
        proto_tree_add_uint(t, hf_pkt_filter_id, tvb, poff + 20, 2, p->filter_id);
        ti = proto_tree_add_boolean(t, hf_pkt_drop, tvb, poff, 0, p->is_drop);
        proto_item_set_generated(ti);
        if (p->is_drop) {
            const char *name = etls_drop_reason_name(pinfo, rec);

            ti = proto_tree_add_uint(t, hf_pkt_drop_reason, tvb, poff + 22, 4, p->drop_reason);
            if (name != NULL)
                proto_tree_add_string(t, hf_pkt_drop_reason_name, tvb, poff + 22, 4, name);
            proto_tree_add_uint(t, hf_pkt_drop_location, tvb, poff + 26, 4, p->drop_location);
            expert_add_info_format(pinfo, ti, &ei_pkt_drop, "Packet dropped: %s (%u), location 0x%x",
                                   name != NULL ? name : "reason not named", p->drop_reason,
                                   p->drop_location);
            proto_item_append_text(top, ", DROPPED (%s)", name != NULL ? name : "reason not named");
        }
    } else if (p->source == ETL_PACKET_SRC_NDISCAP) {
        proto_tree_add_uint64(t, hf_pkt_keywords, tvb, poff, 0, p->keywords);
        proto_tree_add_uint(t, hf_pkt_miniport_if_index, tvb, poff, 4, p->miniport_if_index);
        proto_tree_add_uint(t, hf_pkt_lower_if_index, tvb, poff + 4, 4, p->lower_if_index);
        if (p->kind == ETL_PACKET_FRAME)
            proto_tree_add_uint(t, hf_pkt_fragments, tvb, poff, 0, p->fragments);
        if (p->has_radio) {
            proto_item *ri = proto_tree_add_item(t, hf_pkt_radio, tvb, poff, 0, ENC_NA);
            proto_tree *rt = proto_item_add_subtree(ri, ett_pkt_radio);

            proto_item_append_text(ri, ": %u MHz, %d dBm", p->radio.center_frequency, p->radio.rssi);
            proto_tree_add_uint(rt, hf_pkt_radio_flags, tvb, poff, 0, p->radio.receive_flags);
            proto_tree_add_uint(rt, hf_pkt_radio_phy_id, tvb, poff, 0, p->radio.phy_id);
            proto_tree_add_uint(rt, hf_pkt_radio_frequency, tvb, poff, 0, p->radio.center_frequency);
            proto_tree_add_uint(rt, hf_pkt_radio_mpdus, tvb, poff, 0, p->radio.mpdus);
            proto_tree_add_int(rt, hf_pkt_radio_rssi, tvb, poff, 0, p->radio.rssi);
            proto_tree_add_uint(rt, hf_pkt_radio_rate, tvb, poff, 0, p->radio.data_rate);
            proto_tree_add_uint64(rt, hf_pkt_radio_timestamp, tvb, poff, 0, p->radio.timestamp);
        }
        if (p->vmswitch) {
            ti = proto_tree_add_boolean(t, hf_pkt_vmswitch, tvb, poff, 0, TRUE);
            proto_item_set_generated(ti);
            proto_tree_add_uint(t, hf_pkt_source_port_id, tvb, poff + 8, 4, p->source_port_id);
        }
        if (p->has_vlan) {
            proto_tree_add_uint(t, hf_pkt_vlan_id, tvb, poff, 0, p->vlan_id);
            proto_tree_add_uint(t, hf_pkt_vlan_priority, tvb, poff, 0, p->vlan_priority);
            proto_tree_add_boolean(t, hf_pkt_vlan_cfi, tvb, poff, 0, p->vlan_cfi);
        }
    }
    if (p->problem != ETL_OK)
        expert_add_info_format(pinfo, top, &ei_pkt_problem, "Bad packet event (%s): %s",
                               etl_status_name(p->problem), pf->problem != NULL ? pf->problem : "");
}

/* ---- the hand-off --------------------------------------------------------------------------- */

static void
etls_pkt_handoff(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, proto_item *top,
                 const etls_pkt_frame *pf)
{
    const etl_packet *p = &pf->pkt;
    union wtap_pseudo_header ph;
    tvbuff_t *ftvb;
    int encap;

    encap = wtap_pcap_encap_to_wtap_encap((int)p->link_type);
    if (pf->copy != NULL) {
        /* the layer's own bytes (joined fragments, cleared Protected bit): shown as their own
         * data source */
        ftvb = tvb_new_child_real_data(tvb, pf->copy, p->captured_len, (gint)p->original_len);
        add_new_data_source(pinfo, ftvb, p->fragments > 1 ? "Joined packet" : "Packet");
    } else {
        if (!tvb_bytes_exist(tvb, (gint)p->frame_offset, (gint)p->captured_len))
            return;
        ftvb = tvb_new_subset_length_caplen(tvb, (gint)p->frame_offset, (gint)p->captured_len,
                                            (gint)p->original_len);
    }
    if (p->truncated)
        expert_add_info_format(pinfo, top, &ei_pkt_truncated,
                               "Packet truncated by the capture: %u of %u bytes logged",
                               p->captured_len, p->original_len);

    /* The pseudo-header a pcapng reader gives these link types, so the frame dissects as it
     * does there (FCS unknown; 802.11 frames come decrypted, their Protected bit cleared). */
    memset(&ph, 0, sizeof ph);
    if (encap == WTAP_ENCAP_ETHERNET) {
        ph.eth.fcs_len = -1;
    } else if (encap == WTAP_ENCAP_IEEE_802_11) {
        ph.ieee_802_11.fcs_len = -1;
        ph.ieee_802_11.phy = PHDR_802_11_PHY_UNKNOWN;
    }
    if (p->direction == ETL_DIR_INBOUND)
        pinfo->p2p_dir = P2P_DIR_RECV;
    else if (p->direction == ETL_DIR_OUTBOUND)
        pinfo->p2p_dir = P2P_DIR_SENT;

    /* The packet's dissectors write Protocol and Info from a clean Info, as for any packet. */
    col_clear(pinfo->cinfo, COL_INFO);
    etls_dissector_try_uint(etls_wtap_encap_table, (guint32)encap, ftvb, pinfo, tree, TRUE, &ph);
}

/* The first pass's result for the record (decoded now when this is the first pass); NULL when
 * the record is no packet event. */
static etls_pkt_frame *
etls_pkt_frame_of(packet_info *pinfo, const etl_record *rec)
{
    if (!etl_packet_is_packet_event(rec) && PINFO_FD_VISITED(pinfo))
        return NULL;
    if (PINFO_FD_VISITED(pinfo) || pinfo->num == etls_pk_decoded)
        return (etls_pkt_frame *)p_get_proto_data(wmem_file_scope(), pinfo, etls_proto, ETLS_PDATA_PACKET);
    etls_pk_decoded = pinfo->num;
    etls_prescan_once(pinfo);
    return etls_pkt_first_pass(pinfo, rec);
}

static bool
etls_pkt_hands_off(const etls_pkt_frame *pf)
{
    return pf != NULL && pf->pkt.kind == ETL_PACKET_FRAME && pf->pkt.link_type != ETL_LINK_NONE &&
           pf->pkt.captured_len > 0 && etls_wtap_encap_table != NULL &&
           wtap_pcap_encap_to_wtap_encap((int)pf->pkt.link_type) != WTAP_ENCAP_UNKNOWN;
}

bool
etls_packet_takes_columns(packet_info *pinfo, const etl_record *rec)
{
    return etls_pkt_hands_off(etls_pkt_frame_of(pinfo, rec));
}

bool
etls_packet_takes_columns_clean(packet_info *pinfo, const etl_record *rec)
{
    const etls_pkt_frame *pf = etls_pkt_frame_of(pinfo, rec);

    return etls_pkt_hands_off(pf) && pf->pkt.problem == ETL_OK;
}

void
etls_packet_dissect(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, proto_tree *etl_tree,
                    const etl_record *rec)
{
    etls_pkt_frame *pf = etls_pkt_frame_of(pinfo, rec);
    proto_item *top = NULL;

    if (pf == NULL)
        return;
    etls_pkt_tree(tvb, pinfo, etl_tree, &top, rec, pf);
    if (etls_pkt_hands_off(pf))
        etls_pkt_handoff(tvb, pinfo, tree, top, pf);
}

/* ---- registration ------------------------------------------------------------------------- */

void
etls_packet_register(int proto, expert_module_t *expert)
{
    static hf_register_info hf[] = {
        { &hf_pkt, { "Packet", "etl.pkt", FT_NONE, BASE_NONE, NULL, 0x0,
            "A packet a pktmon or netsh (ndiscap) capture logged in this event", HFILL } },
        { &hf_pkt_source, { "Capture", "etl.pkt.source", FT_UINT8, BASE_DEC,
            VALS(etls_pkt_source_vals), 0x0, NULL, HFILL } },
        { &hf_pkt_link_type, { "Link type", "etl.pkt.link_type", FT_UINT16, BASE_DEC,
            VALS(etls_pkt_link_vals), 0x0, "The pcap LINKTYPE_ of the frame", HFILL } },
        { &hf_pkt_captured_len, { "Captured length", "etl.pkt.captured_len", FT_UINT32, BASE_DEC,
            NULL, 0x0, "Bytes of the packet logged", HFILL } },
        { &hf_pkt_original_len, { "Original length", "etl.pkt.original_len", FT_UINT32, BASE_DEC,
            NULL, 0x0, "The packet's length on the wire", HFILL } },
        { &hf_pkt_truncated, { "Truncated", "etl.pkt.truncated", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
            "Fewer bytes logged than the packet had", HFILL } },
        { &hf_pkt_direction, { "Direction", "etl.pkt.direction", FT_UINT8, BASE_DEC,
            VALS(etls_pkt_dir_vals), 0x0, NULL, HFILL } },
        { &hf_pkt_interface_id, { "Interface id", "etl.pkt.interface_id", FT_UINT32, BASE_DEC,
            NULL, 0x0, "pktmon ComponentId or ndiscap LowerIfIndex", HFILL } },
        { &hf_pkt_interface_name, { "Interface name", "etl.pkt.interface_name", FT_STRING,
            BASE_NONE, NULL, 0x0, "From the capture's rundown", HFILL } },
        { &hf_pkt_interface_desc, { "Interface description", "etl.pkt.interface_description",
            FT_STRING, BASE_NONE, NULL, 0x0, "From the capture's rundown", HFILL } },
        { &hf_pkt_component_type, { "Component type", "etl.pkt.component_type", FT_UINT16,
            BASE_DEC, VALS(etls_pkt_component_type_vals), 0x0, NULL, HFILL } },
        { &hf_pkt_medium, { "Medium", "etl.pkt.medium", FT_UINT32, BASE_DEC, NULL, 0x0,
            "NdisMedium (pktmon) or MediaType (ndiscap)", HFILL } },
        { &hf_pkt_group_id, { "Packet group id", "etl.pkt.group_id", FT_UINT64, BASE_HEX, NULL,
            0x0, "pktmon PktGroupId: the same at every component the packet passes", HFILL } },
        { &hf_pkt_number, { "Packet number", "etl.pkt.number", FT_UINT16, BASE_DEC, NULL, 0x0,
            "pktmon PktNumber", HFILL } },
        { &hf_pkt_appearance, { "Appearance", "etl.pkt.appearance", FT_UINT16, BASE_DEC, NULL,
            0x0, "pktmon AppearanceCount: 1 at the first component, 2 at the next, ...", HFILL } },
        { &hf_pkt_first_appearance, { "First appearance", "etl.pkt.first_appearance", FT_BOOLEAN,
            BASE_NONE, NULL, 0x0, "The packet's first appearance: filter on it to see each packet once",
            HFILL } },
        { &hf_pkt_dir_tag, { "Direction tag", "etl.pkt.dir_tag", FT_UINT16, BASE_DEC,
            VALS(etls_pkt_dir_tag_vals), 0x0, "pktmon DirTag", HFILL } },
        { &hf_pkt_packet_type, { "Packet type", "etl.pkt.packet_type", FT_UINT16, BASE_DEC,
            VALS(etls_pkt_type_vals), 0x0, "pktmon PacketType", HFILL } },
        { &hf_pkt_edge_id, { "Edge id", "etl.pkt.edge_id", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_pkt_filter_id, { "Filter id", "etl.pkt.filter_id", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_pkt_drop, { "Dropped", "etl.pkt.drop", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
            "A pktmon drop event (170)", HFILL } },
        { &hf_pkt_drop_reason, { "Drop reason", "etl.pkt.drop_reason", FT_UINT32, BASE_DEC, NULL,
            0x0, NULL, HFILL } },
        { &hf_pkt_drop_reason_name, { "Drop reason name", "etl.pkt.drop_reason_name", FT_STRING,
            BASE_NONE, NULL, 0x0, "As the event's schema names it", HFILL } },
        { &hf_pkt_drop_location, { "Drop location", "etl.pkt.drop_location", FT_UINT32, BASE_HEX,
            NULL, 0x0, NULL, HFILL } },
        { &hf_pkt_keywords, { "Keywords", "etl.pkt.keywords", FT_UINT64, BASE_HEX, NULL, 0x0,
            "ndiscap keywords: link type, direction, fragments", HFILL } },
        { &hf_pkt_miniport_if_index, { "Miniport ifindex", "etl.pkt.miniport_if_index", FT_UINT32,
            BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_pkt_lower_if_index, { "Lower ifindex", "etl.pkt.lower_if_index", FT_UINT32, BASE_DEC,
            NULL, 0x0, NULL, HFILL } },
        { &hf_pkt_fragments, { "Fragments", "etl.pkt.fragments", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Events joined into this packet", HFILL } },
        { &hf_pkt_radio, { "Radio metadata", "etl.pkt.radio", FT_NONE, BASE_NONE, NULL, 0x0,
            "From the 1002 event before the packet", HFILL } },
        { &hf_pkt_radio_flags, { "Receive flags", "etl.pkt.radio.receive_flags", FT_UINT32,
            BASE_HEX, NULL, 0x0, NULL, HFILL } },
        { &hf_pkt_radio_phy_id, { "PHY id", "etl.pkt.radio.phy_id", FT_UINT32, BASE_DEC, NULL,
            0x0, NULL, HFILL } },
        { &hf_pkt_radio_frequency, { "Center frequency", "etl.pkt.radio.frequency", FT_UINT32,
            BASE_DEC, NULL, 0x0, "As logged (MHz)", HFILL } },
        { &hf_pkt_radio_mpdus, { "MPDUs received", "etl.pkt.radio.mpdus", FT_UINT16, BASE_DEC,
            NULL, 0x0, NULL, HFILL } },
        { &hf_pkt_radio_rssi, { "RSSI (dBm)", "etl.pkt.radio.rssi", FT_INT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_pkt_radio_rate, { "Data rate (500 kb/s)", "etl.pkt.radio.data_rate", FT_UINT8,
            BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_pkt_radio_timestamp, { "Radio timestamp", "etl.pkt.radio.timestamp", FT_UINT64,
            BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_pkt_vlan_id, { "VLAN id", "etl.pkt.vlan.id", FT_UINT16, BASE_DEC, NULL, 0x0,
            "From the VMSwitch event's 802.1Q OOB data", HFILL } },
        { &hf_pkt_vlan_priority, { "VLAN priority", "etl.pkt.vlan.priority", FT_UINT8, BASE_DEC,
            NULL, 0x0, NULL, HFILL } },
        { &hf_pkt_vlan_cfi, { "VLAN CFI", "etl.pkt.vlan.cfi", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_pkt_vmswitch, { "VMSwitch", "etl.pkt.vmswitch", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
            "A VMSwitch packet (1003)", HFILL } },
        { &hf_pkt_source_port_id, { "Source port id", "etl.pkt.source_port_id", FT_UINT32,
            BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_pkt_held, { "Part of a packet", "etl.pkt.held", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
            "A fragment or radio metadata: the packet is shown with a later event", HFILL } },
    };
    static gint *ett[] = { &ett_pkt, &ett_pkt_radio };
    static ei_register_info ei[] = {
        { &ei_pkt_drop, { "etl.expert.packet_drop", PI_SEQUENCE, PI_WARN,
            "pktmon dropped the packet", EXPFILL } },
        { &ei_pkt_problem, { "etl.expert.packet_problem", PI_MALFORMED, PI_WARN,
            "Bad packet event", EXPFILL } },
        { &ei_pkt_truncated, { "etl.expert.packet_truncated", PI_SEQUENCE, PI_NOTE,
            "Packet truncated by the capture (snaplen)", EXPFILL } },
    };

    etls_proto = proto;
    proto_register_field_array(proto, hf, G_N_ELEMENTS(hf));
    proto_register_subtree_array(ett, G_N_ELEMENTS(ett));
    expert_register_field_array(expert, ei, G_N_ELEMENTS(ei));
    register_cleanup_routine(etls_pk_cleanup);
    etls_prescan_register(&etls_pk_client);
}

void
etls_packet_handoff(void)
{
    etls_wtap_encap_table = find_dissector_table("wtap_encap");
}
