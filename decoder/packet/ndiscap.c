/* ndiscap.c - Microsoft-Windows-NDIS-PacketCapture events, as netsh trace writes them
 * (etw-formats.md 14.2): packet fragments (1001), VMSwitch fragments (1003), radio metadata
 * (1002) for the packet after it, and the interface media rundown (1014/1015).
 *
 * The keywords decide the link type (Native 802.11, else Wireless WAN = raw IP, else
 * Ethernet), the direction (SendPath / ReceivePath) and where a packet starts and ends:
 * Windows 7 and 8 split packets over several events, joined here until PacketEnd. */
#include "packet_internal.h"

#include <string.h>

#include "bytes.h"

/* 1001 and 1002: {u32 MiniportIfIndex, u32 LowerIfIndex, u32 Size, bytes[Size]} (1001 then has
 * u64 GftFlowEntryId, u64 GftOffloadInformation on Windows 10 and later: never assumed). */
enum {
    FRAG_OFF_MINIPORT = 0,
    FRAG_OFF_LOWER = 4,
    FRAG_OFF_SIZE = 8,
    FRAG_OFF_BYTES = 12
};
/* 1003: {u32 MiniportIfIndex, u32 LowerIfIndex, u32 SourcePortId, UTF-16Z SourcePortName,
 * UTF-16Z SourceNicName, UTF-16Z SourceNicType, u32 DestinationCount, 8-byte Destination[],
 * u32 FragmentSize, Fragment, u32 OOBDataSize, OOBData}. */
enum { VMS_OFF_SOURCE_PORT = 8, VMS_OFF_NAMES = 12, VMS_NAME_COUNT = 3, VMS_DESTINATION_SIZE = 8 };
/* OOBData: pointer-sized NDIS_NET_BUFFER_LIST_INFO slots; slot 4 is the 802.1Q information:
 * bits 0-2 priority, bit 3 CFI, bits 4-15 VLAN id. */
enum { OOB_SLOT_8021Q = 4 };
#define VLAN_PRIORITY_MASK 0x7u
#define VLAN_CFI_BIT 0x8u
#define VLAN_ID_SHIFT 4
#define VLAN_ID_MASK 0xFFFu
/* 1002 metadata of 48 bytes: DOT11_EXTSTA_RECV_CONTEXT, x64 layout. */
enum {
    RADIO_SIZE = 48,
    RADIO_OFF_FLAGS = 4,
    RADIO_OFF_PHY_ID = 8,
    RADIO_OFF_FREQUENCY = 12,
    RADIO_OFF_MPDUS = 16,
    RADIO_OFF_RSSI = 20,
    RADIO_OFF_RATE = 24,
    RADIO_OFF_TIMESTAMP = 40
};
/* 1014/1015: {u32 MiniportIfIndex, u32 LowerIfIndex, u32 MediaType, u32 ReferenceContext}. */
enum { MEDIA_OFF_MINIPORT = 0, MEDIA_OFF_LOWER = 4, MEDIA_OFF_TYPE = 8 };
/* 802.11 frame control, second byte: Protected Frame.  ndiscap logs frames decrypted, with
 * the bit still set; a dissector would try to decrypt them again, so it is cleared. */
enum { DOT11_FC_FLAGS_OFF = 1 };
#define DOT11_FC_PROTECTED 0x40u
/* Inferring a truncated packet's length: Ethernet header, 802.1Q tag, IP length fields. */
enum { ETH_HEADER = 14, ETH_TYPE_OFF = 12, VLAN_TAG = 4, IPV4_TOTAL_LEN_OFF = 2, IPV6_PAYLOAD_LEN_OFF = 4,
       IPV6_HEADER = 40 };
#define ETHERTYPE_IPV4 0x0800u
#define ETHERTYPE_IPV6 0x86DDu
#define ETHERTYPE_VLAN 0x8100u

void etl_ndiscap_observe(etl_packets *pk, const etl_record *rec)
{
    if (rec->event_id != ETL_NDISCAP_EV_MEDIA && rec->event_id != ETL_NDISCAP_EV_MEDIA_RUNDOWN)
        return;
    const uint8_t *d = rec->bytes + rec->payload_offset;
    size_t n = rec->payload_size;
    uint32_t miniport, lower, media;
    if (!etl_u32_at(d, n, MEDIA_OFF_MINIPORT, &miniport) || !etl_u32_at(d, n, MEDIA_OFF_LOWER, &lower) ||
        !etl_u32_at(d, n, MEDIA_OFF_TYPE, &media))
        return;
    etl_packet_iface *e = etl_packets_iface_get(pk, ETL_PACKET_SRC_NDISCAP, lower);
    if (!e)
        return;
    e->has_medium = true;
    e->medium = media;
    e->has_if_index = true;
    e->if_index = lower;
    e->miniport_if_index = miniport;
}

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* The length on the wire of a truncated frame, from its IP header (0 when it cannot say). */
static uint32_t inferred_length(etl_link_type link, const uint8_t *f, uint32_t len)
{
    uint32_t l2 = 0;
    if (link == ETL_LINK_ETHERNET) {
        if (len < ETH_HEADER)
            return 0;
        l2 = ETH_HEADER;
        uint16_t type = be16(f + ETH_TYPE_OFF);
        if (type == ETHERTYPE_VLAN && len >= ETH_HEADER + VLAN_TAG) {
            l2 += VLAN_TAG;
            type = be16(f + ETH_TYPE_OFF + VLAN_TAG);
        }
        if (type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6)
            return 0;
    } else if (link != ETL_LINK_RAW) {
        return 0;
    }
    uint8_t v = etl_packet_ip_version(f + l2, len - l2);
    if (v == 4 && etl_span_ok(len, l2 + IPV4_TOTAL_LEN_OFF, 2))
        return l2 + be16(f + l2 + IPV4_TOTAL_LEN_OFF);
    if (v == 6 && etl_span_ok(len, l2 + IPV6_PAYLOAD_LEN_OFF, 2))
        return l2 + IPV6_HEADER + be16(f + l2 + IPV6_PAYLOAD_LEN_OFF);
    return 0;
}

static etl_ndiscap_stream *stream_of(etl_packets *pk, const etl_record *rec)
{
    return &pk->streams[rec->cpu % ETL_PACKET_STREAMS];
}

static void take_radio(etl_packets *pk, const etl_record *rec, etl_packet *out, etl_error *err)
{
    etl_ndiscap_stream *st = stream_of(pk, rec);
    const uint8_t *d = rec->bytes + rec->payload_offset;
    size_t n = rec->payload_size;
    uint32_t size;
    out->kind = ETL_PACKET_HELD;
    if (!etl_u32_at(d, n, FRAG_OFF_SIZE, &size)) {
        etl_packets_problem(pk, rec, out, &pk->stats.too_short, ETL_ERR_TRUNCATED, 0, err,
                            "%zu bytes, shorter than a metadata event's fixed part", n);
        return;
    }
    if (!etl_span_ok(n, FRAG_OFF_BYTES, size)) {
        etl_packets_problem(pk, rec, out, &pk->stats.bad_fragment_size, ETL_ERR_TRUNCATED, FRAG_OFF_SIZE, err,
                            "MetadataSize %u past the payload (%zu bytes)", size, n);
        return;
    }
    if (size != RADIO_SIZE)
        return; /* another kind of metadata: nothing known to attach */
    const uint8_t *m = d + FRAG_OFF_BYTES;
    st->radio.receive_flags = etl_ld32(m + RADIO_OFF_FLAGS);
    st->radio.phy_id = etl_ld32(m + RADIO_OFF_PHY_ID);
    st->radio.center_frequency = etl_ld32(m + RADIO_OFF_FREQUENCY);
    st->radio.mpdus = etl_ld16(m + RADIO_OFF_MPDUS);
    st->radio.rssi = (int32_t)etl_ld32(m + RADIO_OFF_RSSI);
    st->radio.data_rate = m[RADIO_OFF_RATE];
    st->radio.timestamp = etl_ld64(m + RADIO_OFF_TIMESTAMP);
    st->has_radio = true;
}

/* 1003's variable head: find the fragment size field, read SourcePortId and the VLAN. */
static bool vmswitch_layout(const etl_record *rec, const uint8_t *d, size_t n, size_t *size_off, etl_packet *out)
{
    uint32_t port, count;
    if (!etl_u32_at(d, n, VMS_OFF_SOURCE_PORT, &port))
        return false;
    out->source_port_id = port;
    size_t off = VMS_OFF_NAMES;
    for (int i = 0; i < VMS_NAME_COUNT; i++) { /* UTF-16Z: up to and including a u16 NUL */
        for (;;) {
            uint16_t c;
            if (!etl_u16_at(d, n, off, &c))
                return false;
            off += 2;
            if (!c)
                break;
        }
    }
    if (!etl_u32_at(d, n, off, &count))
        return false;
    off += 4;
    if ((uint64_t)count * VMS_DESTINATION_SIZE > n - off)
        return false;
    off += (size_t)count * VMS_DESTINATION_SIZE;
    if (!etl_span_ok(n, off, 4))
        return false;
    *size_off = off;
    uint32_t frag = etl_ld32(d + off);
    size_t oob_off = off + 4;
    uint32_t oob;
    if (etl_span_ok(n - oob_off, 0, frag) && etl_u32_at(d, n, oob_off + frag, &oob) &&
        etl_span_ok(n, oob_off + frag + 4, oob)) {
        const uint8_t *o = d + oob_off + frag + 4;
        size_t ptr = rec->pointer_size == 4 ? 4 : 8;
        size_t slot = (size_t)OOB_SLOT_8021Q * ptr;
        uint32_t info;
        if (etl_u32_at(o, oob, slot, &info)) {
            uint16_t vlan = (uint16_t)(info >> VLAN_ID_SHIFT & VLAN_ID_MASK);
            out->vlan_priority = (uint8_t)(info & VLAN_PRIORITY_MASK);
            out->vlan_cfi = (info & VLAN_CFI_BIT) != 0;
            out->vlan_id = vlan;
            out->has_vlan = vlan != 0 || out->vlan_priority != 0;
        }
    }
    return true;
}

static void pending_clear(etl_pending_packet *p)
{
    p->active = false;
    p->len = 0;
    p->fragments = 0;
    p->cut = false;
}

static void pending_append(etl_pending_packet *p, const uint8_t *b, uint32_t len)
{
    if (!p->bytes && !(p->bytes = g_try_malloc(ETL_PACKET_MAX_FRAME)))
        return;
    uint32_t room = ETL_PACKET_MAX_FRAME - p->len;
    uint32_t take = len < room ? len : room;
    memcpy(p->bytes + p->len, b, take);
    p->len += take;
    p->fragments++;
    if (take < len)
        p->cut = true;
}

void etl_ndiscap_decode(etl_packets *pk, const etl_record *rec, etl_packet *out, etl_error *err)
{
    if (rec->event_id == ETL_NDISCAP_EV_METADATA) {
        take_radio(pk, rec, out, err);
        return;
    }
    const uint8_t *d = rec->bytes + rec->payload_offset;
    size_t n = rec->payload_size;
    uint64_t kw = rec->keyword;
    out->keywords = kw;
    out->vmswitch = rec->event_id == ETL_NDISCAP_EV_VMSWITCH;
    out->link_type = (kw & ETL_NDISCAP_KW_NATIVE_80211) ? ETL_LINK_IEEE802_11
                     : (kw & ETL_NDISCAP_KW_WWAN)       ? ETL_LINK_RAW
                                                        : ETL_LINK_ETHERNET;
    out->direction = (kw & ETL_NDISCAP_KW_SEND) ? ETL_DIR_OUTBOUND
                     : (kw & ETL_NDISCAP_KW_RECEIVE) ? ETL_DIR_INBOUND
                                                     : ETL_DIR_UNKNOWN;
    size_t size_off = FRAG_OFF_SIZE;
    bool fixed_ok = etl_u32_at(d, n, FRAG_OFF_MINIPORT, &out->miniport_if_index) &&
                    etl_u32_at(d, n, FRAG_OFF_LOWER, &out->lower_if_index);
    if (fixed_ok && out->vmswitch)
        fixed_ok = vmswitch_layout(rec, d, n, &size_off, out);
    uint32_t frag_size = 0;
    if (fixed_ok)
        fixed_ok = etl_u32_at(d, n, size_off, &frag_size);
    out->interface_id = out->lower_if_index;
    if (!fixed_ok) {
        out->kind = ETL_PACKET_FRAME;
        out->frame = d + n;
        etl_packets_problem(pk, rec, out, &pk->stats.too_short, ETL_ERR_TRUNCATED, 0, err,
                            "%zu bytes: the fields before the fragment do not fit", n);
        return;
    }
    size_t frag_off = size_off + 4;
    const uint8_t *frag = d + frag_off;
    uint32_t frag_len = frag_size;
    if (!etl_span_ok(n, frag_off, frag_size)) {
        frag_len = (uint32_t)(n - frag_off);
        etl_packets_problem(pk, rec, out, &pk->stats.bad_fragment_size, ETL_ERR_TRUNCATED, (uint32_t)size_off, err,
                            "FragmentSize %u past the payload (%u bytes left)", frag_size, frag_len);
    }

    bool start = (kw & ETL_NDISCAP_KW_PACKET_START) != 0, end = (kw & ETL_NDISCAP_KW_PACKET_END) != 0;
    etl_ndiscap_stream *st = stream_of(pk, rec);
    etl_pending_packet *p = &st->pending;
    if (start && p->active) {
        etl_packets_problem(pk, rec, out, &pk->stats.start_without_end, ETL_ERR_CORRUPT, 0, err,
                            "a packet starts before the previous one ended: %u bytes of it dropped", p->len);
        pending_clear(p);
    } else if (!start && !p->active) {
        etl_packets_problem(pk, rec, out, &pk->stats.end_without_start, ETL_ERR_CORRUPT, 0, err,
                            "%s without PacketStart", end ? "PacketEnd" : "a fragment");
    }

    /* the common case since Windows 8.1: one event is the whole packet, and its bytes are the
     * frame as logged (unless the 802.11 Protected bit needs clearing: then it is copied) */
    bool single = !p->active && end;
    bool protect = out->link_type == ETL_LINK_IEEE802_11 && frag_len > DOT11_FC_FLAGS_OFF &&
                   (frag[DOT11_FC_FLAGS_OFF] & DOT11_FC_PROTECTED);
    if (single && !protect) {
        out->frame = frag;
        out->captured_len = frag_len;
        out->fragments = 1;
    } else {
        p->active = true;
        pending_append(p, frag, frag_len); /* out of memory: this fragment goes, the packet goes on */
        if (!end) {
            out->kind = ETL_PACKET_HELD;
            return;
        }
        if (p->cut)
            etl_packets_problem(pk, rec, out, &pk->stats.too_large, ETL_ERR_LIMIT, (uint32_t)frag_off, err,
                                "a joined packet over %u bytes: cut there", (unsigned)ETL_PACKET_MAX_FRAME);
        /* the joined bytes are the frame: they stay until this processor's next fragment,
         * which is a later call, as the API promises */
        out->frame = p->bytes ? p->bytes : frag;
        out->captured_len = p->bytes ? p->len : 0;
        out->fragments = p->fragments;
        if (out->fragments > 1)
            pk->stats.fragments_joined += out->fragments;
        /* the Protected bit is in the first fragment's frame control: look at the joined bytes */
        if (out->link_type == ETL_LINK_IEEE802_11 && out->captured_len > DOT11_FC_FLAGS_OFF &&
            (p->bytes[DOT11_FC_FLAGS_OFF] & DOT11_FC_PROTECTED)) {
            p->bytes[DOT11_FC_FLAGS_OFF] &= (uint8_t)~DOT11_FC_PROTECTED;
            out->modified = true;
        }
        pending_clear(p);
    }
    out->kind = ETL_PACKET_FRAME;
    out->original_len = out->captured_len;
    if (kw & ETL_NDISCAP_KW_TRUNCATED) {
        uint32_t wire = inferred_length(out->link_type, out->frame, out->captured_len);
        if (wire > out->captured_len)
            out->original_len = wire;
    }
    if (out->captured_len == 0)
        etl_packets_problem(pk, rec, out, &pk->stats.empty_payload, ETL_ERR_CORRUPT, (uint32_t)size_off, err,
                            "a packet without bytes");
    if (out->link_type == ETL_LINK_RAW)
        out->ip_version = etl_packet_ip_version(out->frame, out->captured_len);
    if (st->has_radio) {
        out->has_radio = true;
        out->radio = st->radio;
        st->has_radio = false;
    }
}
