/* test_packet.c - the packet layer (decoder/packet, etl_packet.h): pktmon packets and the
 * component rundown on the shared capture, and crafted pktmon and ndiscap records for every
 * layout case and every bad input (counted, reported with an offset, bytes still returned). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "etl.h"
#include "etl_packet.h"
#include "prescan.h"
#include "registry.h"
#include "schema_cache.h"

/* ---- crafted records ------------------------------------------------------------------------ */

#define REC_HEADER 0x50u /* an EVENT_HEADER's size: the payload follows */
static uint8_t rec_bytes[4096];

static etl_record make(const etl_guid *prov, uint16_t id, uint64_t kw, const uint8_t *payload, uint32_t n)
{
    etl_record r;
    memset(&r, 0, sizeof r);
    r.header_type = ETL_HT_EVENT_HEADER64;
    r.pointer_size = 8;
    r.has_provider = true;
    r.provider = *prov;
    r.event_id = id;
    r.keyword = kw;
    r.pid = 10;
    r.tid = 20;
    r.has_timestamp = true;
    r.timestamp = 133000000000000000LL;
    r.buffer_offset = 0x10000;
    r.record_offset = 0x48;
    memset(rec_bytes, 0xEE, sizeof rec_bytes);
    memcpy(rec_bytes + REC_HEADER, payload, n);
    r.bytes = rec_bytes;
    r.payload_offset = REC_HEADER;
    r.payload_size = n;
    r.size = REC_HEADER + n;
    return r;
}

static size_t put16(uint8_t *p, size_t o, uint16_t v) { p[o] = (uint8_t)v; p[o + 1] = (uint8_t)(v >> 8); return o + 2; }
static size_t put32(uint8_t *p, size_t o, uint32_t v) { put16(p, o, (uint16_t)v); put16(p, o + 2, (uint16_t)(v >> 16)); return o + 4; }
static size_t put64(uint8_t *p, size_t o, uint64_t v) { put32(p, o, (uint32_t)v); put32(p, o + 4, (uint32_t)(v >> 32)); return o + 8; }

/* pktmon 160/170 payload: the 34-byte fixed part, then `logged` of `n` frame bytes. */
static size_t pktmon_payload(uint8_t *p, uint16_t type, uint16_t dir, uint16_t orig, uint16_t logged,
                             const uint8_t *frame, size_t n)
{
    size_t o = put64(p, 0, 0x2000000000104ull);
    o = put16(p, o, 7);   /* PktNumber */
    o = put16(p, o, 2);   /* AppearanceCount */
    o = put16(p, o, dir);
    o = put16(p, o, type);
    o = put16(p, o, 59);  /* ComponentId */
    o = put16(p, o, 1);   /* EdgeId */
    o = put16(p, o, 3);   /* FilterId */
    o = put32(p, o, 909); /* DropReason */
    o = put32(p, o, 0xE0004A1); /* DropLocation */
    o = put16(p, o, orig);
    o = put16(p, o, logged);
    memcpy(p + o, frame, n);
    return o + n;
}

static const uint8_t eth[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x08, 0x00, 0x45, 0, 0, 40 };

static void test_pktmon_crafted(void)
{
    etl_packets *pk = etl_packets_new();
    uint8_t p[256];
    etl_packet out;
    etl_error err;

    size_t n = pktmon_payload(p, ETL_PKTMON_TYPE_ETHERNET, ETL_PKTMON_DIR_TX, 60, sizeof eth, eth, sizeof eth);
    etl_record r = make(&etl_pktmon_guid, ETL_PKTMON_EV_DROP, 0x10, p, (uint32_t)n);
    CHECK(etl_packet_is_packet_event(&r));
    CHECK(etl_packets_decode(pk, &r, &out, &err) == ETL_OK);
    CHECK(out.kind == ETL_PACKET_FRAME && out.problem == ETL_OK);
    CHECK(out.link_type == ETL_LINK_ETHERNET && out.direction == ETL_DIR_OUTBOUND);
    CHECK(out.is_drop && out.drop_reason == 909 && out.drop_location == 0xE0004A1);
    CHECK(out.group_id == 0x2000000000104ull && out.pkt_number == 7 && out.appearance == 2);
    CHECK(out.component_id == 59 && out.interface_id == 59 && out.edge_id == 1 && out.filter_id == 3);
    CHECK_EQ_U(out.captured_len, sizeof eth);
    CHECK_EQ_U(out.original_len, 60);
    CHECK(out.truncated);
    CHECK(out.frame == rec_bytes + REC_HEADER + 34 && memcmp(out.frame, eth, sizeof eth) == 0);
    CHECK(out.frame_in_record && out.frame_offset == REC_HEADER + 34);
    CHECK(out.pid == 10 && out.tid == 20);

    /* the drop's reason named by the built-in layout's map (909 = "Inspection drop"); an event
     * whose schema has no DropReason (ndiscap 1001) and no registry name nothing */
    {
        etl_schema_cache *cache = etl_schema_cache_new(NULL);
        etl_registry *reg = etl_registry_new(cache, NULL, NULL);
        char name[64];
        size_t len = 0;
        CHECK(etl_packet_drop_reason_name(reg, &r, name, sizeof name, &len));
        CHECK(len == strlen("Inspection drop") && strcmp(name, "Inspection drop") == 0);
        CHECK(!etl_packet_drop_reason_name(NULL, &r, name, sizeof name, &len) && len == 0);
        etl_record pkt = make(&etl_ndiscap_guid, 1001, 0x10, p, (uint32_t)n);
        CHECK(!etl_packet_drop_reason_name(reg, &pkt, name, sizeof name, &len));
        etl_registry_free(reg);
        etl_schema_cache_free(cache);
    }

    /* LoggedPayloadSize past the event: counted, the bytes that exist returned */
    n = pktmon_payload(p, ETL_PKTMON_TYPE_ETHERNET, ETL_PKTMON_DIR_RX, 100, 100, eth, sizeof eth);
    r = make(&etl_pktmon_guid, ETL_PKTMON_EV_PACKET, 0x10, p, (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.kind == ETL_PACKET_FRAME && out.problem == ETL_ERR_TRUNCATED);
    CHECK_EQ_U(out.captured_len, sizeof eth);
    CHECK_EQ_U(err.offset, 0x10000 + 0x48 + REC_HEADER + 32);
    CHECK(strstr(err.message, "LoggedPayloadSize") != NULL);
    CHECK(out.direction == ETL_DIR_INBOUND);

    /* raw IP: the version nibble */
    static const uint8_t v6[] = { 0x60, 0, 0, 0, 0, 0, 17, 64 };
    n = pktmon_payload(p, ETL_PKTMON_TYPE_IP, ETL_PKTMON_DIR_IN, sizeof v6, sizeof v6, v6, sizeof v6);
    r = make(&etl_pktmon_guid, ETL_PKTMON_EV_PACKET, 0x10, p, (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.link_type == ETL_LINK_RAW && out.ip_version == 6 && out.problem == ETL_OK);

    /* unknown PacketType, empty payload, shorter than the fixed part */
    n = pktmon_payload(p, 99, 0, 4, 4, eth, 4);
    r = make(&etl_pktmon_guid, ETL_PKTMON_EV_PACKET, 0x10, p, (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.problem == ETL_ERR_CORRUPT && out.link_type == ETL_LINK_NONE && out.captured_len == 4);
    n = pktmon_payload(p, ETL_PKTMON_TYPE_ETHERNET, 0, 0, 0, eth, 0);
    r = make(&etl_pktmon_guid, ETL_PKTMON_EV_PACKET, 0x10, p, (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.problem != ETL_OK && out.captured_len == 0);
    r = make(&etl_pktmon_guid, ETL_PKTMON_EV_PACKET, 0x10, p, 20);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.kind == ETL_PACKET_FRAME && out.problem == ETL_ERR_TRUNCATED && out.captured_len == 0);

    const etl_packets_stats *s = etl_packets_get_stats(pk);
    CHECK_EQ_U(s->bad_logged_size, 1);
    CHECK_EQ_U(s->unknown_type, 1);
    CHECK_EQ_U(s->empty_payload, 1);
    CHECK_EQ_U(s->too_short, 1);
    CHECK_EQ_U(s->problems, 4);
    CHECK_EQ_U(s->drops, 1);

    /* another provider, another version: not a packet */
    r = make(&etl_ndiscap_guid, ETL_PKTMON_EV_PACKET, 0, p, (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.kind == ETL_PACKET_NONE);
    r = make(&etl_pktmon_guid, ETL_PKTMON_EV_PACKET, 0x10, p, (uint32_t)n);
    r.version = 1;
    CHECK(!etl_packet_is_packet_event(&r));

    /* rundown: event 20 and properties name the component */
    uint8_t c[128];
    size_t o = put16(c, 0, 59);
    o = put16(c, o, 2);
    const char *name = "netvsc.sys", *desc = "Adapter";
    for (const char *q = name; *q; q++)
        o = put16(c, o, (uint8_t)*q);
    o = put16(c, o, 0);
    for (const char *q = desc; *q; q++)
        o = put16(c, o, (uint8_t)*q);
    o = put16(c, o, 0);
    r = make(&etl_pktmon_guid, ETL_PKTMON_EV_COMPONENT, 0x2, c, (uint32_t)o);
    etl_packets_observe(pk, &r);
    o = put16(c, 0, 59);
    o = put16(c, o, 5); /* NdisMedium */
    o = put16(c, o, 16);
    r = make(&etl_pktmon_guid, ETL_PKTMON_EV_PROP_MEDIUM, 0x2, c, (uint32_t)o);
    etl_packets_observe(pk, &r);
    const etl_packet_iface *e = etl_packets_interface(pk, ETL_PACKET_SRC_PKTMON, 59);
    CHECK(e && strcmp(e->name, "netvsc.sys") == 0 && strcmp(e->description, "Adapter") == 0);
    CHECK(e && e->component_type == 2 && e->has_medium && e->medium == 16);
    etl_packets_free(pk);
}

/* ---- ndiscap ------------------------------------------------------------------------------- */

static size_t frag_payload(uint8_t *p, uint32_t lower, const uint8_t *f, uint32_t n, uint32_t size_field)
{
    size_t o = put32(p, 0, 3);
    o = put32(p, o, lower);
    o = put32(p, o, size_field);
    memcpy(p + o, f, n);
    o += n;
    return o;
}

#define KW_ONE (ETL_NDISCAP_KW_PACKET_START | ETL_NDISCAP_KW_PACKET_END)

static void test_ndiscap_crafted(void)
{
    etl_packets *pk = etl_packets_new();
    uint8_t p[512];
    etl_packet out;
    etl_error err;
    size_t n;
    etl_record r;

    /* 802.3, received, one event, with Gft fields after the fragment */
    n = frag_payload(p, 7, eth, sizeof eth, sizeof eth);
    n = put64(p, n, 1);
    n = put64(p, n, 2);
    r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_FRAGMENT, KW_ONE | ETL_NDISCAP_KW_ETHERNET | ETL_NDISCAP_KW_RECEIVE, p,
             (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.kind == ETL_PACKET_FRAME && out.problem == ETL_OK && out.link_type == ETL_LINK_ETHERNET);
    CHECK(out.captured_len == sizeof eth && memcmp(out.frame, eth, sizeof eth) == 0);
    CHECK(out.direction == ETL_DIR_INBOUND && out.interface_id == 7 && out.miniport_if_index == 3);

    /* three fragments, sent */
    uint64_t base = ETL_NDISCAP_KW_ETHERNET | ETL_NDISCAP_KW_SEND;
    const uint64_t kws[3] = { ETL_NDISCAP_KW_PACKET_START, 0, ETL_NDISCAP_KW_PACKET_END };
    for (int i = 0; i < 3; i++) {
        n = frag_payload(p, 7, eth + 6 * i, 6, 6);
        r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_FRAGMENT, base | kws[i], p, (uint32_t)n);
        etl_packets_decode(pk, &r, &out, &err);
        CHECK(out.kind == (i < 2 ? ETL_PACKET_HELD : ETL_PACKET_FRAME) && out.problem == ETL_OK);
    }
    CHECK(out.captured_len == 18 && memcmp(out.frame, eth, 18) == 0 && out.fragments == 3);
    CHECK(!out.frame_in_record);
    CHECK(out.direction == ETL_DIR_OUTBOUND);

    /* two processors' packets interleaved in time order: each joins its own fragments */
    for (int i = 0; i < 2; i++) {
        n = frag_payload(p, 7, eth + 9 * i, 9, 9);
        r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_FRAGMENT, base | (i ? ETL_NDISCAP_KW_PACKET_END : ETL_NDISCAP_KW_PACKET_START),
                 p, (uint32_t)n);
        etl_packets_decode(pk, &r, &out, &err);
        CHECK(out.kind == (i ? ETL_PACKET_FRAME : ETL_PACKET_HELD) && out.problem == ETL_OK);
        if (i)
            CHECK(out.captured_len == 18 && memcmp(out.frame, eth, 18) == 0 && out.fragments == 2);
        if (!i) { /* processor 1 logs a whole packet between processor 0's two fragments */
            n = frag_payload(p, 5, eth, 6, 6);
            r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_FRAGMENT, base | KW_ONE, p, (uint32_t)n);
            r.cpu = 1;
            etl_packets_decode(pk, &r, &out, &err);
            CHECK(out.kind == ETL_PACKET_FRAME && out.problem == ETL_OK && out.captured_len == 6 && out.interface_id == 5);
        }
    }

    /* 802.11 with radio metadata before it; the Protected bit cleared */
    uint8_t md[48] = {0};
    put32(md, 12, 2437);
    put32(md, 20, (uint32_t)-42);
    md[24] = 108;
    n = frag_payload(p, 9, md, sizeof md, sizeof md);
    r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_METADATA, 0, p, (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.kind == ETL_PACKET_HELD && out.problem == ETL_OK);
    static const uint8_t wifi[] = { 0x08, 0x41, 0, 0, 1, 2, 3, 4, 5, 6 };
    n = frag_payload(p, 9, wifi, sizeof wifi, sizeof wifi);
    r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_FRAGMENT, KW_ONE | ETL_NDISCAP_KW_NATIVE_80211 | ETL_NDISCAP_KW_RECEIVE, p,
             (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.link_type == ETL_LINK_IEEE802_11 && out.modified && out.frame[1] == 0x01 && out.frame[0] == 0x08);
    CHECK(!out.frame_in_record);
    CHECK(out.has_radio && out.radio.center_frequency == 2437 && out.radio.rssi == -42 && out.radio.data_rate == 108);
    /* the metadata describes one packet only */
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(!out.has_radio);
    /* an 802.11 frame in two fragments: the Protected bit is in the first one */
    n = frag_payload(p, 9, wifi, 4, 4);
    r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_FRAGMENT, ETL_NDISCAP_KW_PACKET_START | ETL_NDISCAP_KW_NATIVE_80211, p,
             (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.kind == ETL_PACKET_HELD);
    n = frag_payload(p, 9, wifi + 4, sizeof wifi - 4, sizeof wifi - 4);
    r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_FRAGMENT, ETL_NDISCAP_KW_PACKET_END | ETL_NDISCAP_KW_NATIVE_80211, p,
             (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.kind == ETL_PACKET_FRAME && out.captured_len == sizeof wifi && out.modified && out.frame[1] == 0x01);
    CHECK(memcmp(out.frame + 2, wifi + 2, sizeof wifi - 2) == 0 && out.has_radio == false);

    /* WWAN raw IPv4, truncated: the original length from the total length */
    static const uint8_t v4[] = { 0x45, 0, 0x05, 0xDC, 0, 0, 0, 0, 64, 6 };
    n = frag_payload(p, 11, v4, sizeof v4, sizeof v4);
    r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_FRAGMENT, KW_ONE | ETL_NDISCAP_KW_WWAN | ETL_NDISCAP_KW_TRUNCATED, p,
             (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.link_type == ETL_LINK_RAW && out.ip_version == 4 && out.captured_len == sizeof v4);
    CHECK_EQ_U(out.original_len, 1500);
    CHECK(out.truncated);

    /* FragmentSize past the payload */
    n = frag_payload(p, 7, eth, sizeof eth, 1000);
    r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_FRAGMENT, KW_ONE, p, (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.kind == ETL_PACKET_FRAME && out.problem == ETL_ERR_TRUNCATED && out.captured_len == sizeof eth);
    CHECK_EQ_U(err.offset, 0x10000 + 0x48 + REC_HEADER + 8);

    /* PacketEnd without a start: the bytes still a frame */
    n = frag_payload(p, 7, eth, sizeof eth, sizeof eth);
    r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_FRAGMENT, ETL_NDISCAP_KW_PACKET_END, p, (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.kind == ETL_PACKET_FRAME && out.problem == ETL_ERR_CORRUPT && out.captured_len == sizeof eth);
    /* a start, then another start: the first part dropped and counted */
    r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_FRAGMENT, ETL_NDISCAP_KW_PACKET_START, p, (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.kind == ETL_PACKET_HELD);
    r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_FRAGMENT, KW_ONE, p, (uint32_t)n);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.kind == ETL_PACKET_FRAME && out.problem == ETL_ERR_CORRUPT && out.captured_len == sizeof eth);

    /* VMSwitch 1003 with a VLAN in OOB slot 4 */
    size_t o = put32(p, 0, 3);
    o = put32(p, o, 12);
    o = put32(p, o, 77); /* SourcePortId */
    for (int s = 0; s < 3; s++) {
        o = put16(p, o, 'a' + s);
        o = put16(p, o, 0);
    }
    o = put32(p, o, 2); /* DestinationCount */
    o = put64(p, o, 5);
    o = put64(p, o, 6);
    o = put32(p, o, sizeof eth);
    memcpy(p + o, eth, sizeof eth);
    o += sizeof eth;
    o = put32(p, o, 8 * 8);
    memset(p + o, 0, 64);
    put32(p, o + 4 * 8, 100u << 4 | 5u); /* VLAN 100, priority 5 */
    o += 64;
    r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_VMSWITCH, KW_ONE | ETL_NDISCAP_KW_VMSWITCH | ETL_NDISCAP_KW_ETHERNET, p,
             (uint32_t)o);
    etl_packets_decode(pk, &r, &out, &err);
    CHECK(out.kind == ETL_PACKET_FRAME && out.problem == ETL_OK && out.vmswitch);
    CHECK(out.has_vlan && out.vlan_id == 100 && out.vlan_priority == 5 && out.source_port_id == 77);
    CHECK(out.captured_len == sizeof eth && memcmp(out.frame, eth, sizeof eth) == 0 && out.interface_id == 12);

    /* interface media rundown */
    o = put32(p, 0, 3);
    o = put32(p, o, 12);
    o = put32(p, o, 0);
    o = put32(p, o, 0);
    r = make(&etl_ndiscap_guid, ETL_NDISCAP_EV_MEDIA_RUNDOWN, 0, p, (uint32_t)o);
    etl_packets_observe(pk, &r);
    const etl_packet_iface *e = etl_packets_interface(pk, ETL_PACKET_SRC_NDISCAP, 12);
    CHECK(e && e->has_medium && e->medium == 0 && e->miniport_if_index == 3);

    const etl_packets_stats *s = etl_packets_get_stats(pk);
    CHECK_EQ_U(s->bad_fragment_size, 1);
    CHECK_EQ_U(s->end_without_start, 1);
    CHECK_EQ_U(s->start_without_end, 1);
    CHECK_EQ_U(s->fragments_joined, 7);
    CHECK_EQ_U(s->problems, 3);
    etl_packets_free(pk);
}

/* ---- the shared pktmon capture ------------------------------------------------------------- */

static void test_capture(const char *path)
{
    etl_packets *pk = etl_packets_new();
    etl_observer o = etl_packets_observer(pk);
    etl_error err;
    CHECK(etl_prescan_file(path, &o, 1, &err) == ETL_OK);
    CHECK(etl_packets_interface_count(pk) > 0);
    etl_reader *r;
    if (etl_reader_open_file(path, NULL, &r, &err) != ETL_OK) {
        CHECK(!"open");
        return;
    }
    etl_record rec;
    uint64_t frames = 0, named = 0, first = 0;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        etl_packet p;
        etl_packets_decode(pk, &rec, &p, &err);
        if (p.kind != ETL_PACKET_FRAME)
            continue;
        frames++;
        first += p.appearance == 1;
        const etl_packet_iface *e = etl_packets_interface(pk, ETL_PACKET_SRC_PKTMON, p.interface_id);
        named += e && *e->name;
        CHECK(p.link_type == ETL_LINK_ETHERNET && p.captured_len == p.original_len && p.problem == ETL_OK);
    }
    etl_reader_close(r);
    CHECK_EQ_U(frames, 114);
    CHECK_EQ_U(named, 114);
    CHECK(first > 0 && first < frames);
    CHECK_EQ_U(etl_packets_get_stats(pk)->problems, 0);
    etl_packets_free(pk);
}

int main(int argc, char **argv)
{
    test_pktmon_crafted();
    test_ndiscap_crafted();
    if (argc > 1)
        test_capture(argv[1]);
    CHECK_MAIN_END();
}
