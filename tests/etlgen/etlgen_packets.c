/* etlgen_packets.c - packet captures carried in ETW traces, written from the layouts of
 * etw-formats.md section 14 (no schema in the trace: the decoder's built-in layouts apply).
 *
 * ndiscap (netsh trace), one case after another on ifindex 5 (802.3), 7 (802.11), 9 (WWAN),
 * 12 (VMSwitch), each frame built by frame_udp4/frame_udp6 below (tests/integration/
 * test_packets.py builds the same bytes to compare):
 *   0  1014/1015 media rundown for 5, 7, 9 and 12
 *   1  802.3 IPv4/UDP, received, one event with the Windows 10 Gft fields after the fragment
 *   2  1002 radio metadata, then an 802.11 data frame (Protected bit set: cleared on output)
 *   3  WWAN raw IPv4, sent          4  WWAN raw IPv6, received
 *   5  one 802.3 packet in three fragments (Windows 7/8: Start, middle, End; no Gft fields)
 *   6  VMSwitch 1003 with VLAN 100 priority 5 in the OOB data
 *   7  a truncated 802.3 packet (PacketTruncated; 64 of 1014 bytes)
 * bad input:
 *   8  FragmentSize past the payload     9  PacketEnd without PacketStart
 *   10 an empty fragment (FragmentSize 0)
 * pktmon: rundown (event 20 components, 60 NdisMedium) at the end as pktmon writes it; each
 * packet at component 1 (Ethernet, Rx) then component 2 (appearance 2); a drop (170), a 128-byte
 * snaplen packet, a Wi-Fi packet, a raw-IP packet, an unknown PacketType and a
 * LoggedPayloadSize past the event.  pktmon_large: --records packets (default 100k).
 * pktmon_tcp: a TCP conversation carrying an HTTP GET and its response, each packet logged
 * once at the NIC, and with --pcapng the same frames as a pcapng. */
#include "etlgen_packets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapng.h" /* etldump's pcapng block writer (cli/) */

#define NDISCAP_GUID "2ed6006e-4729-4609-b423-3ee7bcd678ef"
#define PKTMON_GUID "4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac"
#define PACKET_PID 4u
#define PACKET_TID 100u

/* ndiscap keywords (14.2) */
#define KW_ETHERNET 0x1ull
#define KW_WWAN 0x200ull
#define KW_80211 0x10000ull
#define KW_VMSWITCH 0x1000000ull
#define KW_TRUNCATED 0x2000000ull
#define KW_START 0x40000000ull
#define KW_END 0x80000000ull
#define KW_SEND 0x100000000ull
#define KW_RECEIVE 0x200000000ull
#define KW_ONE (KW_START | KW_END)

enum { EV_FRAGMENT = 1001, EV_METADATA = 1002, EV_VMSWITCH = 1003, EV_MEDIA = 1014, EV_MEDIA_RUNDOWN = 1015 };
enum { EV_COMPONENT = 20, EV_MEDIUM = 60, EV_PACKET = 160, EV_DROP = 170 };

#define MAX_FRAME 2048u
/* UDP destination port of every generated packet: one no dissector claims */
#define UDP_PORT 40001u

struct pgen {
    etlw_writer *w;
    int64_t now;
};

static int64_t step(struct pgen *g)
{
    g->now += 1234; /* 123.4 us at 10 MHz */
    return g->now;
}

static etlw_guid guid_of(const char *text)
{
    etlw_guid g;
    if (etlw_guid_parse(text, &g) != 0)
        abort();
    return g;
}

static int event(struct pgen *g, const char *prov, uint16_t id, uint8_t level, uint64_t kw, const etlw_bytes *p)
{
    etlw_event_rec r;
    memset(&r, 0, sizeof r);
    r.pid = PACKET_PID;
    r.tid = PACKET_TID;
    r.timestamp = step(g);
    r.provider = guid_of(prov);
    r.id = id;
    r.level = level;
    r.keyword = kw;
    if (p->overflow)
        return ETLW_E_TOO_BIG;
    return etlw_write_event(g->w, 0, &r, NULL, p->data, p->len);
}

#define TRY(x)                  \
    do {                        \
        int rc_ = (x);          \
        if (rc_ != ETLW_OK)     \
            return rc_;         \
    } while (0)

/* ---- frames (test_packets.py has the same recipe) ----------------------------------------- */

static void be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* An IPv4/UDP packet of `len` bytes (>= 28), UDP source port `seq`; payload bytes i & 0xFF. */
static size_t ip4_udp(uint8_t *f, uint16_t len, uint16_t seq)
{
    static const uint8_t head[] = { 0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2 };
    memcpy(f, head, sizeof head);
    be16(f + 2, len);
    be16(f + 4, seq);
    be16(f + 20, seq);
    be16(f + 22, UDP_PORT);
    be16(f + 24, (uint16_t)(len - 20));
    be16(f + 26, 0);
    for (size_t i = 28; i < len; i++)
        f[i] = (uint8_t)i;
    return len;
}

/* An IPv6/UDP packet of `len` bytes (>= 48). */
static size_t ip6_udp(uint8_t *f, uint16_t len, uint16_t seq)
{
    memset(f, 0, 48);
    f[0] = 0x60;
    be16(f + 4, (uint16_t)(len - 40));
    f[6] = 17;
    f[7] = 64;
    f[8] = 0xfd; f[23] = 1;  /* fd00::1 */
    f[24] = 0xfd; f[39] = 2; /* fd00::2 */
    be16(f + 40, seq);
    be16(f + 42, UDP_PORT);
    be16(f + 44, (uint16_t)(len - 40));
    for (size_t i = 48; i < len; i++)
        f[i] = (uint8_t)i;
    return len;
}

/* Ethernet II + IPv4/UDP of `ip_len` bytes. */
static size_t eth_udp4(uint8_t *f, uint16_t ip_len, uint16_t seq)
{
    static const uint8_t macs[] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb };
    memcpy(f, macs, sizeof macs);
    be16(f + 12, 0x0800);
    return 14 + ip4_udp(f + 14, ip_len, seq);
}

/* 802.11 data frame (to DS, Protected) + LLC/SNAP + IPv4/UDP. */
static size_t wifi_udp4(uint8_t *f, uint16_t ip_len, uint16_t seq)
{
    static const uint8_t head[] = { 0x08, 0x41, 0x00, 0x00,                   /* data, ToDS | Protected */
                                    0x00, 0x11, 0x22, 0x33, 0x44, 0x55,       /* BSSID */
                                    0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,       /* source */
                                    0x00, 0x11, 0x22, 0x33, 0x44, 0x56,       /* destination */
                                    0x10, 0x00,                               /* sequence */
                                    0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00 };
    memcpy(f, head, sizeof head);
    return sizeof head + ip4_udp(f + sizeof head, ip_len, seq);
}

/* ---- ndiscap -------------------------------------------------------------------------------- */

static void frag_head(etlw_bytes *p, uint32_t lower, uint32_t size)
{
    etlw_bytes_reset(p);
    etlw_put_u32(p, 1);     /* MiniportIfIndex */
    etlw_put_u32(p, lower); /* LowerIfIndex */
    etlw_put_u32(p, size);  /* FragmentSize */
}

static int fragment(struct pgen *g, etlw_bytes *p, uint32_t lower, uint64_t kw, const uint8_t *f, size_t n, int gft)
{
    frag_head(p, lower, (uint32_t)n);
    etlw_put(p, f, n);
    if (gft) {
        etlw_put_u64(p, 0x1111); /* GftFlowEntryId */
        etlw_put_u64(p, 0);      /* GftOffloadInformation */
    }
    return event(g, NDISCAP_GUID, EV_FRAGMENT, 4, kw, p);
}

static int media(struct pgen *g, etlw_bytes *p, uint16_t id, uint32_t lower, uint32_t type)
{
    etlw_bytes_reset(p);
    etlw_put_u32(p, 1);
    etlw_put_u32(p, lower);
    etlw_put_u32(p, type);
    etlw_put_u32(p, 0);
    return event(g, NDISCAP_GUID, id, 5, 0x8000000000ull, p);
}

/* Both kinds of capture: 64-bit, one CPU, 64 KiB buffers, QPC at 10 MHz. */
static void capture_config(etlw_config *c, const char *logger, const char *file)
{
    etlw_config_init(c);
    c->pointer_size = 8;
    c->num_cpus = 1;
    c->buffer_size = 65536;
    c->logger_name = logger;
    c->log_file_name = file;
}

void etlgen_config_ndiscap(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    capture_config(c, "NetTrace", "C:\\etlshark\\NetTrace.etl");
}

int etlgen_fill_ndiscap(etlw_writer *w, const etlgen_options *opt)
{
    (void)opt;
    struct pgen g = { w, etlw_now(w) + 10000 };
    static uint8_t pbuf[4096], f[MAX_FRAME];
    etlw_bytes p;
    etlw_bytes_init(&p, pbuf, sizeof pbuf);
    size_t n;

    /* 0: media rundown (NdisMedium802_3 0, NdisMediumNative802_11 16, NdisMediumWirelessWan 9) */
    TRY(media(&g, &p, EV_MEDIA, 5, 0));
    TRY(media(&g, &p, EV_MEDIA, 7, 16));
    TRY(media(&g, &p, EV_MEDIA_RUNDOWN, 9, 9));
    TRY(media(&g, &p, EV_MEDIA_RUNDOWN, 12, 0));
    /* 1: 802.3 */
    n = eth_udp4(f, 60, 1);
    TRY(fragment(&g, &p, 5, KW_ONE | KW_ETHERNET | KW_RECEIVE, f, n, 1));
    /* 2: radio metadata (DOT11_EXTSTA_RECV_CONTEXT, x64: 2437 MHz, -42 dBm, 54 Mb/s), 802.11 */
    uint8_t md[48] = {0};
    md[0] = 0x80; md[1] = 1; md[2] = 48; /* NDIS_OBJECT_HEADER: type, revision, size */
    md[12] = (uint8_t)(2437 & 0xFF); md[13] = (uint8_t)(2437 >> 8);
    md[16] = 1;
    md[20] = 0xD6; md[21] = 0xFF; md[22] = 0xFF; md[23] = 0xFF; /* -42 */
    md[24] = 108;
    frag_head(&p, 7, sizeof md);
    etlw_put(&p, md, sizeof md);
    TRY(event(&g, NDISCAP_GUID, EV_METADATA, 4, 0, &p));
    n = wifi_udp4(f, 80, 2);
    TRY(fragment(&g, &p, 7, KW_ONE | KW_80211 | KW_RECEIVE, f, n, 1));
    /* 3, 4: WWAN raw IP */
    n = ip4_udp(f, 70, 3);
    TRY(fragment(&g, &p, 9, KW_ONE | KW_WWAN | KW_SEND, f, n, 1));
    n = ip6_udp(f, 90, 4);
    TRY(fragment(&g, &p, 9, KW_ONE | KW_WWAN | KW_RECEIVE, f, n, 1));
    /* 5: three fragments, Windows 7 style (no Gft fields) */
    n = eth_udp4(f, 286, 5); /* 300 bytes: 100 + 100 + 100 */
    TRY(fragment(&g, &p, 5, KW_START | KW_ETHERNET | KW_SEND, f, 100, 0));
    TRY(fragment(&g, &p, 5, KW_ETHERNET | KW_SEND, f + 100, 100, 0));
    TRY(fragment(&g, &p, 5, KW_END | KW_ETHERNET | KW_SEND, f + 200, 100, 0));
    /* 6: VMSwitch with VLAN 100, priority 5 */
    n = eth_udp4(f, 50, 6);
    etlw_bytes_reset(&p);
    etlw_put_u32(&p, 1);
    etlw_put_u32(&p, 12);
    etlw_put_u32(&p, 77); /* SourcePortId */
    etlw_put_utf16z(&p, "port-77");
    etlw_put_utf16z(&p, "vm-nic");
    etlw_put_utf16z(&p, "Emulated");
    etlw_put_u32(&p, 1); /* DestinationCount */
    etlw_put_u64(&p, 0x0000004e00000001ull);
    etlw_put_u32(&p, (uint32_t)n);
    etlw_put(&p, f, n);
    etlw_put_u32(&p, 8 * 8); /* OOBDataSize: 8 pointer-sized slots */
    for (int s = 0; s < 8; s++)
        etlw_put_u64(&p, s == 4 ? (100u << 4 | 5u) : 0);
    TRY(event(&g, NDISCAP_GUID, EV_VMSWITCH, 4, KW_ONE | KW_ETHERNET | KW_VMSWITCH | KW_RECEIVE, &p));
    /* 7: truncated: 64 of 1014 bytes */
    n = eth_udp4(f, 1000, 7);
    TRY(fragment(&g, &p, 5, KW_ONE | KW_ETHERNET | KW_TRUNCATED | KW_RECEIVE, f, 64, 1));
    /* 8: FragmentSize 200, 60 bytes there */
    n = eth_udp4(f, 46, 8);
    frag_head(&p, 5, 200);
    etlw_put(&p, f, n);
    TRY(event(&g, NDISCAP_GUID, EV_FRAGMENT, 4, KW_ONE | KW_ETHERNET | KW_RECEIVE, &p));
    /* 9: PacketEnd without a start */
    n = eth_udp4(f, 46, 9);
    TRY(fragment(&g, &p, 5, KW_END | KW_ETHERNET | KW_RECEIVE, f, n, 1));
    /* 10: empty */
    TRY(fragment(&g, &p, 5, KW_ONE | KW_ETHERNET | KW_RECEIVE, f, 0, 1));
    return ETLW_OK;
}

/* ---- pktmon --------------------------------------------------------------------------------- */

static int pktmon_packet(struct pgen *g, etlw_bytes *p, uint16_t id, uint64_t group, uint16_t appearance,
                         uint16_t dir, uint16_t type, uint16_t component, uint32_t drop_reason, uint16_t original,
                         uint16_t logged, const uint8_t *f, size_t n)
{
    etlw_bytes_reset(p);
    etlw_put_u64(p, group);
    etlw_put_u16(p, 1);          /* PktNumber */
    etlw_put_u16(p, appearance);
    etlw_put_u16(p, dir);
    etlw_put_u16(p, type);
    etlw_put_u16(p, component);
    etlw_put_u16(p, 1);          /* EdgeId */
    etlw_put_u16(p, 0);          /* FilterId */
    etlw_put_u32(p, drop_reason);
    etlw_put_u32(p, drop_reason ? 0xE000040Au : 0);
    etlw_put_u16(p, original);
    etlw_put_u16(p, logged);
    etlw_put(p, f, n);
    return event(g, PKTMON_GUID, id, 4, 0x10, p);
}

static int pktmon_rundown(struct pgen *g, etlw_bytes *p)
{
    static const struct { uint16_t id, type, medium; const char *name, *desc; } comps[] = {
        { 1, 2, 0, "netvsc.sys", "Microsoft Hyper-V Network Adapter" },
        { 2, 4, 0, "tcpip.sys", "TCP/IP Protocol Driver" },
        { 3, 2, 16, "wifi.sys", "Wireless Adapter" },
    };
    for (size_t i = 0; i < sizeof comps / sizeof comps[0]; i++) {
        etlw_bytes_reset(p);
        etlw_put_u16(p, comps[i].id);
        etlw_put_u16(p, comps[i].type);
        etlw_put_utf16z(p, comps[i].name);
        etlw_put_utf16z(p, comps[i].desc);
        TRY(event(g, PKTMON_GUID, EV_COMPONENT, 4, 0x2, p));
        etlw_bytes_reset(p);
        etlw_put_u16(p, comps[i].id);
        etlw_put_u16(p, 5); /* NdisMedium */
        etlw_put_u16(p, comps[i].medium);
        TRY(event(g, PKTMON_GUID, EV_MEDIUM, 4, 0x2, p));
    }
    return ETLW_OK;
}

void etlgen_config_pktmon(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    capture_config(c, "PktMon", "C:\\etlshark\\PktMon.etl");
}

int etlgen_fill_pktmon(etlw_writer *w, const etlgen_options *opt)
{
    (void)opt;
    struct pgen g = { w, etlw_now(w) + 10000 };
    static uint8_t pbuf[4096], f[MAX_FRAME];
    etlw_bytes p;
    etlw_bytes_init(&p, pbuf, sizeof pbuf);
    size_t n = eth_udp4(f, 60, 1);
    /* one packet at two components */
    TRY(pktmon_packet(&g, &p, EV_PACKET, 0x2000000000101ull, 1, 3, 1, 1, 0, (uint16_t)n, (uint16_t)n, f, n));
    TRY(pktmon_packet(&g, &p, EV_PACKET, 0x2000000000101ull, 2, 1, 1, 2, 0, (uint16_t)n, (uint16_t)n, f, n));
    /* a drop (reason 909: "Not locally destined"... any number: the map names it) */
    n = eth_udp4(f, 60, 2);
    TRY(pktmon_packet(&g, &p, EV_DROP, 0x2000000000102ull, 2, 1, 1, 2, 0x386, (uint16_t)n, (uint16_t)n, f, n));
    /* 128-byte snaplen on a 514-byte packet */
    n = eth_udp4(f, 500, 3);
    TRY(pktmon_packet(&g, &p, EV_PACKET, 0x2000000000103ull, 1, 4, 1, 1, 0, (uint16_t)n, 128, f, 128));
    /* Wi-Fi (pktmon logs it as it is: no Protected bit handling) and raw IP at the wifi miniport */
    n = wifi_udp4(f, 40, 4);
    f[1] = 0x01;
    TRY(pktmon_packet(&g, &p, EV_PACKET, 0x2000000000104ull, 1, 3, 2, 3, 0, (uint16_t)n, (uint16_t)n, f, n));
    n = ip4_udp(f, 40, 5);
    TRY(pktmon_packet(&g, &p, EV_DROP, 0x2000000000105ull, 1, 4, 3, 3, 0x38b, (uint16_t)n, (uint16_t)n, f, n));
    /* bad input: unknown PacketType 77; LoggedPayloadSize 200 with 40 bytes there */
    TRY(pktmon_packet(&g, &p, EV_PACKET, 0x2000000000106ull, 1, 3, 77, 1, 0, (uint16_t)n, (uint16_t)n, f, n));
    TRY(pktmon_packet(&g, &p, EV_PACKET, 0x2000000000107ull, 1, 3, 3, 1, 0, 200, 200, f, n));
    return pktmon_rundown(&g, &p);
}

int etlgen_fill_pktmon_large(etlw_writer *w, const etlgen_options *opt)
{
    uint64_t count = opt && opt->records ? opt->records : ETLGEN_PKTMON_LARGE_DEFAULT;
    struct pgen g = { w, etlw_now(w) + 10000 };
    static uint8_t pbuf[4096], f[MAX_FRAME];
    etlw_bytes p;
    etlw_bytes_init(&p, pbuf, sizeof pbuf);
    for (uint64_t i = 0; i < count; i++) {
        uint16_t len = (uint16_t)(46 + i % 200);
        size_t n = eth_udp4(f, len, (uint16_t)i);
        /* every packet twice: at the miniport (Rx), then at the protocol (In) */
        TRY(pktmon_packet(&g, &p, EV_PACKET, 0x2000000000000ull + i / 2, (uint16_t)(1 + i % 2),
                          (uint16_t)(i % 2 ? 1 : 3), 1, (uint16_t)(1 + i % 2), 0, (uint16_t)n, (uint16_t)n, f, n));
    }
    return pktmon_rundown(&g, &p);
}

/* ---- pktmon_tcp: one TCP conversation (an HTTP GET) and its pcapng ------------------------- */

/* Client 10.0.0.1:49152 (this machine, at its NIC netvsc.sys), server 10.0.0.2:80. */
#define TCP_CLIENT_PORT 49152u
#define TCP_SERVER_PORT 80u
enum { TCP_FIN = 0x01, TCP_SYN = 0x02, TCP_PSH = 0x08, TCP_ACK = 0x10 };
/* pktmon DirTag (etw-formats.md section 14): Rx at a miniport, Tx at a miniport */
enum { DIR_RX = 3, DIR_TX = 4 };
/* FILETIME of 1970-01-01 */
#define FILETIME_UNIX_EPOCH 116444736000000000LL

static uint16_t csum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)p[i] << 8 | p[i + 1];
    if (n % 2)
        sum += (uint32_t)p[n - 1] << 8;
    return sum;
}

/* Ethernet II + IPv4 + TCP (20-byte header, checksums right), `data` as the payload. */
static size_t eth_tcp4(uint8_t *f, int to_server, uint32_t seq, uint32_t ack, uint8_t flags, const char *data,
                       size_t len, uint16_t ip_id)
{
    static const uint8_t client_mac[] = { 0x00, 0x15, 0x5d, 0x01, 0x02, 0x03 };
    static const uint8_t server_mac[] = { 0x00, 0x15, 0x5d, 0x0a, 0x0b, 0x0c };
    uint8_t *ip = f + 14, *tcp = ip + 20;
    uint16_t total = (uint16_t)(40 + len);
    uint32_t sum;

    memcpy(f, to_server ? server_mac : client_mac, 6);
    memcpy(f + 6, to_server ? client_mac : server_mac, 6);
    be16(f + 12, 0x0800);
    memset(ip, 0, 40);
    ip[0] = 0x45;
    be16(ip + 2, total);
    be16(ip + 4, ip_id);
    ip[6] = 0x40; /* don't fragment */
    ip[8] = to_server ? 128 : 64;
    ip[9] = 6;
    ip[12] = 10; ip[15] = to_server ? 1 : 2; /* source */
    ip[16] = 10; ip[19] = to_server ? 2 : 1; /* destination */
    be16(ip + 10, csum_fold(csum_add(0, ip, 20)));
    be16(tcp, (uint16_t)(to_server ? TCP_CLIENT_PORT : TCP_SERVER_PORT));
    be16(tcp + 2, (uint16_t)(to_server ? TCP_SERVER_PORT : TCP_CLIENT_PORT));
    be16(tcp + 4, (uint16_t)(seq >> 16)); be16(tcp + 6, (uint16_t)seq);
    be16(tcp + 8, (uint16_t)(ack >> 16)); be16(tcp + 10, (uint16_t)ack);
    tcp[12] = 5 << 4;
    tcp[13] = flags;
    be16(tcp + 14, 64240); /* window */
    memcpy(tcp + 20, data, len);
    /* pseudo header: addresses, protocol, TCP length */
    sum = csum_add(0, ip + 12, 8) + 6u + (uint32_t)(20 + len);
    be16(tcp + 16, csum_fold(csum_add(sum, tcp, 20 + len)));
    return 14 + (size_t)total;
}

int etlgen_fill_pktmon_tcp(etlw_writer *w, const etlgen_options *opt)
{
    static const char request[] = "GET /index.html HTTP/1.1\r\nHost: www.example.test\r\n"
                                  "User-Agent: etlgen\r\nAccept: */*\r\n\r\n";
    static const char body1[] = "<html><head><title>etlshark</title></head>\n<body>\n";
    static const char body2[] = "<p>A TCP conversation logged by pktmon, read as packets.</p>\n</body></html>\n";
    char response[256];
    /* the conversation: who sends, flags, the payload; sequence numbers follow from it */
    struct seg { int to_server; uint8_t flags; const char *data; size_t len; };
    struct seg convo[11];
    size_t nseg = 0;
    int rlen = snprintf(response, sizeof response,
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %u\r\n\r\n%s",
                        (unsigned)(sizeof body1 - 1 + sizeof body2 - 1), body1);
#define SEG(dir, fl, d, n) convo[nseg++] = (struct seg){ (dir), (fl), (d), (n) }
    SEG(1, TCP_SYN, "", 0);
    SEG(0, TCP_SYN | TCP_ACK, "", 0);
    SEG(1, TCP_ACK, "", 0);
    SEG(1, TCP_PSH | TCP_ACK, request, sizeof request - 1);
    SEG(0, TCP_ACK, "", 0);
    SEG(0, TCP_ACK, response, (size_t)rlen);          /* the response in two segments */
    SEG(0, TCP_PSH | TCP_ACK, body2, sizeof body2 - 1);
    SEG(1, TCP_ACK, "", 0);
    SEG(1, TCP_FIN | TCP_ACK, "", 0);
    SEG(0, TCP_FIN | TCP_ACK, "", 0);
    SEG(1, TCP_ACK, "", 0);
#undef SEG
    struct pgen g = { w, etlw_now(w) + 10000 };
    static uint8_t pbuf[4096], f[MAX_FRAME];
    etlw_bytes p;
    etlw_bytes_init(&p, pbuf, sizeof pbuf);
    uint32_t next[2] = { 5000, 1000 }; /* next sequence number: [0] server, [1] client */
    etlw_config cfg;
    FILE *out = NULL;
    pcapng_writer pw;

    /* the same frames as a pcapng, times to 100 ns (the record's UTC as the reader converts
     * its QPC time: the session's start plus the ticks since the logfile header, 10 MHz) */
    etlgen_config_pktmon(&cfg, opt);
    if (opt != NULL && opt->pcapng != NULL) {
        out = fopen(opt->pcapng, "wb");
        if (out == NULL)
            return ETLW_E_IO;
        pcapng_init(&pw, out);
        pcapng_section(&pw, "etlgen pktmon_tcp");
        pcapng_interface(&pw, 1, 0, "netvsc.sys", "Microsoft Hyper-V Network Adapter", 7);
    }
    for (size_t i = 0; i < nseg; i++) {
        const struct seg *s = &convo[i];
        int me = s->to_server;
        uint32_t seq = next[me];
        uint32_t ack = (s->flags & TCP_ACK) ? next[!me] : 0;
        size_t n = eth_tcp4(f, me, seq, ack, s->flags, s->data, s->len, (uint16_t)(0x100 + i));

        next[me] += (uint32_t)s->len + ((s->flags & (TCP_SYN | TCP_FIN)) ? 1u : 0u);
        TRY(pktmon_packet(&g, &p, EV_PACKET, 0x2000000000200ull + i, 1, me ? DIR_TX : DIR_RX, 1, 1, 0,
                          (uint16_t)n, (uint16_t)n, f, n));
        if (out != NULL) {
            pcapng_packet_opts o = { .direction = me ? PCAPNG_DIR_OUTBOUND : PCAPNG_DIR_INBOUND };
            int64_t t = cfg.start_time + (g.now - cfg.header_timestamp) - FILETIME_UNIX_EPOCH;

            pcapng_packet(&pw, 0, (uint64_t)t, f, (uint32_t)n, (uint32_t)n, &o);
        }
    }
    if (out != NULL) {
        bool ok = pcapng_ok(&pw);

        if (fclose(out) != 0 || !ok)
            return ETLW_E_IO;
    }
    return pktmon_rundown(&g, &p);
}
