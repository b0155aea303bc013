/* etl_packet.h - packets carried in ETW traces (pktmon, netsh trace / ndiscap), as frames.
 *
 * A pktmon (PktMon.etl) or netsh (NetTrace.etl) capture logs every packet as an ETW event whose
 * payload holds the frame.  This layer turns such records into frames a packet tool can use:
 * the link type, the frame bytes, the captured and original length, the direction, the
 * interface, and the capture's own context (pktmon's PktGroupId/PktNumber/AppearanceCount,
 * drop reasons; ndiscap's keywords, radio metadata, VLAN).  It decides everything: a consumer
 * (etldump --pcapng, the Wireshark dissector) only reads the result.
 *
 *   etl_packets *pk = etl_packets_new();
 *   etl_observer o = etl_packets_observer(pk);      // in the prescan: the rundowns
 *   etl_prescan_file(path, &o, 1, &err);
 *   while (etl_reader_next(r, &rec, &err) == ETL_OK) {
 *       etl_packet p;
 *       if (etl_packets_decode(pk, &rec, &p, &err) == ETL_OK && p.kind == ETL_PACKET_FRAME)
 *           use(p.frame, p.captured_len, p.original_len, p.link_type, ...);
 *       if (p.problem != ETL_OK) warn(err);         // counted in etl_packets_get_stats too
 *   }
 *   etl_packets_free(pk);
 *
 * Events are identified by provider GUID, event id and version only, never by names carried in
 * the trace (those are localised on some Windows builds).  Layouts: etw-formats.md section 14.
 *
 * Sequential state: ndiscap fragments are joined until PacketEnd, and a 1002 radio metadata
 * event describes the packet after it, so records must be decoded in stream order; the frame of
 * a joined packet is returned with its last fragment's record.  Both are kept per processor
 * (the record's cpu): one processor logs a packet's events one after another, and in time order
 * other processors' packets may come between them.  A consumer that reads records
 * again at random (Wireshark after its first pass) keeps the frames of its first pass.
 *
 * Bad input never stops anything: the problem is set on the result (status, message and file
 * offset in *err), counted, and whatever bytes exist are still returned.
 *
 * For a dissector (Wireshark): one etl_packets per capture file, fed by the file's prescan
 * (etl_packets_observer beside the registry's), then etl_packets_decode on each record in the
 * first, sequential pass.  A FRAME result hands p.frame to the dissector of p.link_type, whose
 * numbers are pcap LINKTYPE_ values (the wtap_encap table after wtap_pcap_encap_to_wtap_encap:
 * raw IP's own dissector reads the version nibble); a subset of the record's bytes when
 * p.frame_in_record (at p.frame_offset), else a copy kept with the frame (joined fragments,
 * cleared 802.11 bit), captured length p.captured_len of p.original_len (a snaplen cut when
 * truncated).  p.problem != ETL_OK is expert info with err's message; the ETW tree stays as
 * it is.  A HELD result (a fragment, radio metadata) is an ETW event with no frame of its own.
 * pktmon results depend on nothing but the record (decode again at any time); ndiscap frames
 * of joined fragments and radio metadata exist only in the sequential pass: keep them per
 * frame. */
#ifndef ETL_PACKET_H
#define ETL_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- providers and event ids -------------------------------------------------------------- */

/* Microsoft-Windows-PktMon {4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac} */
extern const etl_guid etl_pktmon_guid;
/* Microsoft-Windows-NDIS-PacketCapture {2ed6006e-4729-4609-b423-3ee7bcd678ef} */
extern const etl_guid etl_ndiscap_guid;

enum {
    ETL_PKTMON_EV_COMPONENT = 20,
    ETL_PKTMON_EV_PROP_U32 = 30,     /* IfIndex, MiniportIfIndex, LowerIfIndex, ... */
    ETL_PKTMON_EV_PROP_GUID = 40,
    ETL_PKTMON_EV_PROP_MEDIUM = 60,  /* u16 NdisMedium */
    ETL_PKTMON_EV_PROP_IPV4 = 65,
    ETL_PKTMON_EV_PROP_IPV6 = 66,
    ETL_PKTMON_EV_PROP_BYTES = 70,   /* sized bytes: PhysAddress */
    ETL_PKTMON_EV_PROP_STRING = 73,
    ETL_PKTMON_EV_PROP_ETHERTYPE = 75,
    ETL_PKTMON_EV_PACKET = 160,
    ETL_PKTMON_EV_DROP = 170
};
enum {
    ETL_NDISCAP_EV_FRAGMENT = 1001,
    ETL_NDISCAP_EV_METADATA = 1002,
    ETL_NDISCAP_EV_VMSWITCH = 1003,
    ETL_NDISCAP_EV_MEDIA = 1014,
    ETL_NDISCAP_EV_MEDIA_RUNDOWN = 1015
};

/* ndiscap keywords (section 14.2): they decide the link type, the direction and fragments. */
#define ETL_NDISCAP_KW_ETHERNET 0x1ull
#define ETL_NDISCAP_KW_WWAN 0x200ull          /* raw IP */
#define ETL_NDISCAP_KW_TUNNEL 0x8000ull
#define ETL_NDISCAP_KW_NATIVE_80211 0x10000ull
#define ETL_NDISCAP_KW_VMSWITCH 0x1000000ull
#define ETL_NDISCAP_KW_TRUNCATED 0x2000000ull
#define ETL_NDISCAP_KW_PACKET_START 0x40000000ull
#define ETL_NDISCAP_KW_PACKET_END 0x80000000ull
#define ETL_NDISCAP_KW_SEND 0x100000000ull
#define ETL_NDISCAP_KW_RECEIVE 0x200000000ull

/* pktmon PacketType values (map "PacketType") */
enum {
    ETL_PKTMON_TYPE_UNKNOWN = 0,
    ETL_PKTMON_TYPE_ETHERNET = 1,
    ETL_PKTMON_TYPE_WIFI = 2,
    ETL_PKTMON_TYPE_IP = 3,
    ETL_PKTMON_TYPE_HTTP = 4
};
/* pktmon DirTag values (map "PacketDirectionTag") */
enum { ETL_PKTMON_DIR_NONE = 0, ETL_PKTMON_DIR_IN, ETL_PKTMON_DIR_OUT, ETL_PKTMON_DIR_RX,
       ETL_PKTMON_DIR_TX, ETL_PKTMON_DIR_INGRESS, ETL_PKTMON_DIR_EGRESS };

/* Named limits. */
#define ETL_PACKET_MAX_FRAME (256u * 1024u)   /* a joined ndiscap packet; more is cut (LIMIT) */
#define ETL_PACKET_MAX_INTERFACES 4096u       /* rundown entries kept; more are counted */
#define ETL_PACKET_MAX_NAME 256u              /* bytes of a component name or description */

/* ---- one decoded record ------------------------------------------------------------------- */

typedef enum etl_packet_source { ETL_PACKET_SRC_NONE = 0, ETL_PACKET_SRC_PKTMON, ETL_PACKET_SRC_NDISCAP } etl_packet_source;

typedef enum etl_packet_kind {
    ETL_PACKET_NONE = 0,  /* not a packet event */
    ETL_PACKET_HELD,      /* part of a packet (fragment, radio metadata): its frame comes later */
    ETL_PACKET_FRAME      /* a frame: frame/captured_len/... are set */
} etl_packet_kind;

/* Link types, numbered as the pcap/pcapng LINKTYPE_ values they stand for. */
typedef enum etl_link_type {
    ETL_LINK_NONE = 0xFFFF,     /* no dissectable link layer (pktmon HTTP, unknown types) */
    ETL_LINK_ETHERNET = 1,
    ETL_LINK_RAW = 101,         /* raw IP: ip_version says 4 or 6 */
    ETL_LINK_IEEE802_11 = 105
} etl_link_type;

typedef enum etl_packet_dir { ETL_DIR_UNKNOWN = 0, ETL_DIR_INBOUND = 1, ETL_DIR_OUTBOUND = 2 } etl_packet_dir;

/* 1002 DOT11_EXTSTA_RECV_CONTEXT, attached to the packet after it. */
typedef struct etl_packet_radio {
    uint32_t receive_flags;
    uint32_t phy_id;
    uint32_t center_frequency; /* as logged (uChCenterFrequency: MHz in the DOT11 documentation) */
    uint16_t mpdus;
    int32_t rssi;              /* dBm */
    uint8_t data_rate;         /* 500 kb/s units */
    uint64_t timestamp;
} etl_packet_radio;

typedef struct etl_packet {
    etl_packet_kind kind;
    etl_packet_source source;
    uint16_t event_id;

    /* the frame (kind FRAME): valid until the next call on the context or the record's reader */
    etl_link_type link_type;
    uint8_t ip_version;         /* raw IP: 4 or 6 from the version nibble, 0 when neither */
    const uint8_t *frame;
    uint32_t captured_len;
    uint32_t original_len;      /* >= captured_len; larger = truncated (a snaplen cut) */
    bool truncated;
    bool modified;              /* bytes differ from the event's (802.11 Protected bit cleared) */
    bool frame_in_record;       /* frame points into the record: at rec->bytes + frame_offset (a
                                   dissector can take a subset of the record's bytes); false for
                                   joined fragments and modified frames (the context's copy) */
    uint32_t frame_offset;
    etl_packet_dir direction;
    uint32_t interface_id;      /* pktmon ComponentId, ndiscap LowerIfIndex */
    int64_t timestamp;          /* FILETIME of the record: the reader's conversion is pktmon's
                                   own (StartTime + (raw - header raw) x 10^7 / PerfFreq) */
    bool has_timestamp;
    uint32_t pid, tid;
    uint64_t record_position;   /* the record that completed the frame */

    /* pktmon (160 packet, 170 drop) */
    bool is_drop;
    uint64_t group_id;
    uint16_t pkt_number, appearance, dir_tag, packet_type, component_id, edge_id, filter_id;
    uint32_t drop_reason, drop_location;

    /* ndiscap (1001, 1003) */
    uint64_t keywords;
    uint32_t miniport_if_index, lower_if_index;
    uint32_t fragments;         /* events joined into this frame */
    bool has_radio;
    etl_packet_radio radio;
    bool has_vlan;
    uint16_t vlan_id;
    uint8_t vlan_priority;
    bool vlan_cfi;
    bool vmswitch;
    uint32_t source_port_id;

    /* a problem with this record (ETL_OK when none); *err of etl_packets_decode says more */
    etl_status problem;
} etl_packet;

/* ---- interfaces from the rundown ---------------------------------------------------------- */

typedef struct etl_packet_iface {
    etl_packet_source source;
    uint32_t id;                /* pktmon ComponentId or ndiscap LowerIfIndex */
    uint16_t component_type;    /* pktmon: 1 NDIS, 2 Miniport, 3 Filter, 4 Protocol, ... */
    char name[ETL_PACKET_MAX_NAME];        /* UTF-8; empty when the rundown gave none */
    char description[ETL_PACKET_MAX_NAME];
    bool has_medium;
    uint32_t medium;            /* NdisMedium (pktmon) or MediaType (ndiscap 1014/1015) */
    bool has_if_index;
    uint32_t if_index;
    uint32_t miniport_if_index;
    uint8_t mac[6];
    bool has_mac;
} etl_packet_iface;

/* ---- counters ----------------------------------------------------------------------------- */

typedef struct etl_packets_stats {
    uint64_t frames;            /* ETL_PACKET_FRAME results */
    uint64_t drops;             /* of which pktmon drops */
    uint64_t truncated;
    uint64_t fragments_joined;  /* ndiscap events that were part of a multi-event packet */
    uint64_t problems;          /* every problem below, summed */
    uint64_t bad_fragment_size; /* FragmentSize / MetadataSize / OOBDataSize past the payload */
    uint64_t bad_logged_size;   /* pktmon LoggedPayloadSize past the event */
    uint64_t end_without_start; /* PacketEnd (or a middle fragment) with nothing started */
    uint64_t start_without_end; /* a packet started again before its end: the old part dropped */
    uint64_t unknown_type;      /* pktmon PacketType with no link type */
    uint64_t empty_payload;     /* a packet event without frame bytes */
    uint64_t too_short;         /* an event shorter than its fixed part */
    uint64_t too_large;         /* a joined packet over ETL_PACKET_MAX_FRAME */
    uint64_t rundown_dropped;   /* interfaces over ETL_PACKET_MAX_INTERFACES */
} etl_packets_stats;

/* ---- the context -------------------------------------------------------------------------- */

typedef struct etl_packets etl_packets;

etl_packets *etl_packets_new(void);
void etl_packets_free(etl_packets *pk);

/* Take the rundown a record carries (pktmon components and their properties, ndiscap
 * interface media); passes over anything else cheaply.  Safe to call on every record. */
void etl_packets_observe(etl_packets *pk, const etl_record *rec);
/* etl_packets_observe as a prescan observer (prescan.h). */
struct etl_observer;
struct etl_observer etl_packets_observer(etl_packets *pk);

/* True when the record is an event this layer turns into (part of) a frame. */
bool etl_packet_is_packet_event(const etl_record *rec);

/* Decode one record, in stream order.  ETL_OK with *out filled (out->kind NONE for any other
 * record, and also for rundown records, which are observed on the way); on bad input ETL_OK
 * still, out->problem set and *err describing it (offset = file offset of the buffer + the
 * record offset, the message names the field).  Errors only for caller mistakes (ETL_ERR_ARG). */
etl_status etl_packets_decode(etl_packets *pk, const etl_record *rec, etl_packet *out, etl_error *err);

/* Forget fragments and radio metadata held across records (a consumer that starts over). */
void etl_packets_reset_stream(etl_packets *pk);

/* The rundown entry of an interface, or NULL when the rundown named none. */
const etl_packet_iface *etl_packets_interface(const etl_packets *pk, etl_packet_source src, uint32_t id);
/* Every interface known, in the order first seen. */
uint32_t etl_packets_interface_count(const etl_packets *pk);
const etl_packet_iface *etl_packets_interface_at(const etl_packets *pk, uint32_t i);

const etl_packets_stats *etl_packets_get_stats(const etl_packets *pk);

/* Names for display: DirTag ("Rx"), PacketType ("Ethernet"), link type ("Ethernet",
 * "IEEE 802.11", "Raw IP"), direction ("inbound"); NULL when unknown. */
const char *etl_pktmon_dir_tag_name(uint16_t dir_tag);
const char *etl_pktmon_packet_type_name(uint16_t type);
const char *etl_link_type_name(etl_link_type t);
const char *etl_packet_dir_name(etl_packet_dir d);

/* A pktmon drop's DropReason as the event's schema names it (the trace's own map, in its own
 * language, or the built-in layout's): true with the name in buf (NUL-terminated, *len bytes),
 * false when the registry has no schema for the record or its map no name for the value. */
struct etl_registry;
bool etl_packet_drop_reason_name(struct etl_registry *reg, const etl_record *rec, char *buf, size_t cap,
                                 size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* ETL_PACKET_H */
