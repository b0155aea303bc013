/* pktmon.c - Microsoft-Windows-PktMon events (etw-formats.md 14.1): packets (160), drops (170)
 * and the component rundown (20, and the property events 30..75) naming their components. */
#include "packet_internal.h"

#include <string.h>

#include "bytes.h"
#include "text.h"

/* Event 160/170: a fixed part, then LoggedPayloadSize bytes of the frame. */
enum {
    PKT_OFF_GROUP_ID = 0,        /* u64 */
    PKT_OFF_PKT_NUMBER = 8,      /* u16 */
    PKT_OFF_APPEARANCE = 10,     /* u16 */
    PKT_OFF_DIR_TAG = 12,        /* u16 */
    PKT_OFF_PACKET_TYPE = 14,    /* u16 */
    PKT_OFF_COMPONENT = 16,      /* u16 */
    PKT_OFF_EDGE = 18,           /* u16 */
    PKT_OFF_FILTER = 20,         /* u16 */
    PKT_OFF_DROP_REASON = 22,    /* u32 */
    PKT_OFF_DROP_LOCATION = 26,  /* u32 */
    PKT_OFF_ORIGINAL_SIZE = 30,  /* u16 */
    PKT_OFF_LOGGED_SIZE = 32,    /* u16 */
    PKT_FIXED_SIZE = 34          /* the payload bytes start here */
};

/* PacketType values above the link types that carry no link header (etl2pcapng knows 5 TCP ...
 * 11 L4 payload): known, not dissectable as a frame, not a problem. */
#define PKT_TYPE_LAST_KNOWN 11u

/* Rundown: event 20 {u16 Id, u16 Type, UTF-16Z Name, UTF-16Z Description}; property events
 * {u16 ComponentId, u16 PropertyType, value}. */
enum {
    COMP_OFF_ID = 0,
    COMP_OFF_TYPE = 2,
    COMP_OFF_NAME = 4,
    PROP_OFF_COMPONENT = 0,
    PROP_OFF_TYPE = 2,
    PROP_OFF_VALUE = 4,
    PROP_OFF_BYTES = 8           /* event 70: u32 Size at PROP_OFF_VALUE, then the bytes */
};
/* PropertyType values used here. */
enum { PROP_IF_INDEX = 1, PROP_MINIPORT_IF_INDEX = 2, PROP_NDIS_MEDIUM = 5, PROP_PHYS_ADDRESS = 6 };
#define MAC_SIZE 6u

static void component_rundown(etl_packets *pk, const uint8_t *d, size_t n)
{
    uint16_t id, type;
    if (!etl_u16_at(d, n, COMP_OFF_ID, &id) || !etl_u16_at(d, n, COMP_OFF_TYPE, &type))
        return;
    etl_packet_iface *e = etl_packets_iface_get(pk, ETL_PACKET_SRC_PKTMON, id);
    if (!e)
        return;
    e->component_type = type;
    size_t used = 0;
    if (n > COMP_OFF_NAME) {
        etl_utf16_to_utf8(d + COMP_OFF_NAME, n - COMP_OFF_NAME, e->name, sizeof e->name, &used);
        size_t desc = COMP_OFF_NAME + used;
        if (desc < n)
            etl_utf16_to_utf8(d + desc, n - desc, e->description, sizeof e->description, NULL);
    }
}

static void property_rundown(etl_packets *pk, uint16_t event_id, const uint8_t *d, size_t n)
{
    uint16_t comp, prop;
    if (!etl_u16_at(d, n, PROP_OFF_COMPONENT, &comp) || !etl_u16_at(d, n, PROP_OFF_TYPE, &prop))
        return;
    uint32_t v32;
    uint16_t v16;
    etl_packet_iface *e;
    switch (event_id) {
    case ETL_PKTMON_EV_PROP_U32:
        if ((prop == PROP_IF_INDEX || prop == PROP_MINIPORT_IF_INDEX) && etl_u32_at(d, n, PROP_OFF_VALUE, &v32) &&
            (e = etl_packets_iface_get(pk, ETL_PACKET_SRC_PKTMON, comp))) {
            if (prop == PROP_IF_INDEX) {
                e->has_if_index = true;
                e->if_index = v32;
            } else {
                e->miniport_if_index = v32;
            }
        }
        break;
    case ETL_PKTMON_EV_PROP_MEDIUM:
        if (prop == PROP_NDIS_MEDIUM && etl_u16_at(d, n, PROP_OFF_VALUE, &v16) &&
            (e = etl_packets_iface_get(pk, ETL_PACKET_SRC_PKTMON, comp))) {
            e->has_medium = true;
            e->medium = v16;
        }
        break;
    case ETL_PKTMON_EV_PROP_BYTES:
        if (prop == PROP_PHYS_ADDRESS && etl_u32_at(d, n, PROP_OFF_VALUE, &v32) && v32 == MAC_SIZE &&
            etl_span_ok(n, PROP_OFF_BYTES, MAC_SIZE) && (e = etl_packets_iface_get(pk, ETL_PACKET_SRC_PKTMON, comp))) {
            memcpy(e->mac, d + PROP_OFF_BYTES, MAC_SIZE);
            e->has_mac = true;
        }
        break;
    default:
        break;
    }
}

void etl_pktmon_observe(etl_packets *pk, const etl_record *rec)
{
    const uint8_t *d = rec->bytes + rec->payload_offset;
    size_t n = rec->payload_size;
    switch (rec->event_id) {
    case ETL_PKTMON_EV_COMPONENT:
        component_rundown(pk, d, n);
        break;
    case ETL_PKTMON_EV_PROP_U32:
    case ETL_PKTMON_EV_PROP_MEDIUM:
    case ETL_PKTMON_EV_PROP_BYTES:
        property_rundown(pk, rec->event_id, d, n);
        break;
    default:
        break;
    }
}

static etl_link_type link_of(uint16_t packet_type)
{
    switch (packet_type) {
    case ETL_PKTMON_TYPE_ETHERNET: return ETL_LINK_ETHERNET;
    case ETL_PKTMON_TYPE_WIFI: return ETL_LINK_IEEE802_11;
    case ETL_PKTMON_TYPE_IP: return ETL_LINK_RAW;
    default: return ETL_LINK_NONE;
    }
}

static etl_packet_dir direction_of(uint16_t dir_tag)
{
    switch (dir_tag) {
    case ETL_PKTMON_DIR_IN: case ETL_PKTMON_DIR_RX: case ETL_PKTMON_DIR_INGRESS: return ETL_DIR_INBOUND;
    case ETL_PKTMON_DIR_OUT: case ETL_PKTMON_DIR_TX: case ETL_PKTMON_DIR_EGRESS: return ETL_DIR_OUTBOUND;
    default: return ETL_DIR_UNKNOWN;
    }
}

void etl_pktmon_decode(etl_packets *pk, const etl_record *rec, etl_packet *out, etl_error *err)
{
    const uint8_t *d = rec->bytes + rec->payload_offset;
    size_t n = rec->payload_size;
    out->kind = ETL_PACKET_FRAME;
    out->is_drop = rec->event_id == ETL_PKTMON_EV_DROP;
    if (n < PKT_FIXED_SIZE) {
        etl_packets_problem(pk, rec, out, &pk->stats.too_short, ETL_ERR_TRUNCATED, 0, err,
                            "%zu bytes, shorter than the %u-byte fixed part of a packet event", n,
                            (unsigned)PKT_FIXED_SIZE);
        out->frame = d + n;
        return;
    }
    out->group_id = etl_ld64(d + PKT_OFF_GROUP_ID);
    out->pkt_number = etl_ld16(d + PKT_OFF_PKT_NUMBER);
    out->appearance = etl_ld16(d + PKT_OFF_APPEARANCE);
    out->dir_tag = etl_ld16(d + PKT_OFF_DIR_TAG);
    out->packet_type = etl_ld16(d + PKT_OFF_PACKET_TYPE);
    out->component_id = etl_ld16(d + PKT_OFF_COMPONENT);
    out->edge_id = etl_ld16(d + PKT_OFF_EDGE);
    out->filter_id = etl_ld16(d + PKT_OFF_FILTER);
    out->drop_reason = etl_ld32(d + PKT_OFF_DROP_REASON);
    out->drop_location = etl_ld32(d + PKT_OFF_DROP_LOCATION);
    uint16_t original = etl_ld16(d + PKT_OFF_ORIGINAL_SIZE);
    uint16_t logged = etl_ld16(d + PKT_OFF_LOGGED_SIZE);
    out->interface_id = out->component_id;
    out->direction = direction_of(out->dir_tag);
    out->link_type = link_of(out->packet_type);

    size_t avail = n - PKT_FIXED_SIZE;
    uint32_t take = logged;
    if (logged > avail) {
        etl_packets_problem(pk, rec, out, &pk->stats.bad_logged_size, ETL_ERR_TRUNCATED, PKT_OFF_LOGGED_SIZE, err,
                            "LoggedPayloadSize %u past the event (%zu payload bytes)", (unsigned)logged, avail);
        take = (uint32_t)avail;
    }
    out->frame = d + PKT_FIXED_SIZE;
    out->captured_len = take;
    out->original_len = original;
    if (take == 0)
        etl_packets_problem(pk, rec, out, &pk->stats.empty_payload, ETL_ERR_CORRUPT, PKT_OFF_LOGGED_SIZE, err,
                            "a packet event without payload bytes");
    if (out->packet_type == ETL_PKTMON_TYPE_UNKNOWN || out->packet_type > PKT_TYPE_LAST_KNOWN)
        etl_packets_problem(pk, rec, out, &pk->stats.unknown_type, ETL_ERR_CORRUPT, PKT_OFF_PACKET_TYPE, err,
                            "unknown PacketType %u: no link type", (unsigned)out->packet_type);
    if (out->link_type == ETL_LINK_RAW)
        out->ip_version = etl_packet_ip_version(out->frame, out->captured_len);
}
