/* packets.c - the packet layer's context (etl_packet.h): interfaces named by the rundowns,
 * counters, problems, and the dispatch to the pktmon and ndiscap layouts. */
#include "packet_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "etl_format.h"
#include "prescan.h"
#include "fields.h"
#include "registry.h"
#include "value_format.h"

const etl_guid etl_pktmon_guid = { 0x4d4f80d9, 0xc8bd, 0x4d73, { 0xbb, 0x5b, 0x19, 0xc9, 0x04, 0x02, 0xc5, 0xac } };
const etl_guid etl_ndiscap_guid = { 0x2ed6006e, 0x4729, 0x4609, { 0xb4, 0x23, 0x3e, 0xe7, 0xbc, 0xd6, 0x78, 0xef } };

etl_packets *etl_packets_new(void)
{
    etl_packets *pk = g_new0(etl_packets, 1);
    pk->ifaces = g_array_new(FALSE, TRUE, sizeof(etl_packet_iface));
    pk->iface_index = g_hash_table_new(g_int64_hash, g_int64_equal);
    return pk;
}

static void free_key(gpointer key, gpointer value, gpointer user)
{
    (void)value;
    (void)user;
    g_free(key);
}

void etl_packets_free(etl_packets *pk)
{
    if (!pk)
        return;
    g_hash_table_foreach(pk->iface_index, free_key, NULL);
    g_hash_table_destroy(pk->iface_index);
    g_array_free(pk->ifaces, TRUE);
    for (unsigned i = 0; i < ETL_PACKET_STREAMS; i++)
        g_free(pk->streams[i].pending.bytes);
    g_free(pk);
}

const etl_packets_stats *etl_packets_get_stats(const etl_packets *pk)
{
    return &pk->stats;
}

void etl_packets_reset_stream(etl_packets *pk)
{
    for (unsigned i = 0; i < ETL_PACKET_STREAMS; i++) {
        etl_ndiscap_stream *st = &pk->streams[i];
        st->pending.active = false;
        st->pending.len = 0;
        st->pending.fragments = 0;
        st->pending.cut = false;
        st->has_radio = false;
    }
}

/* ---- interfaces ---------------------------------------------------------------------------- */

static gint64 iface_key(etl_packet_source src, uint32_t id)
{
    return (gint64)((uint64_t)src << 32 | id);
}

etl_packet_iface *etl_packets_iface_get(etl_packets *pk, etl_packet_source src, uint32_t id)
{
    gint64 key = iface_key(src, id);
    gpointer v = g_hash_table_lookup(pk->iface_index, &key);
    if (v)
        return &g_array_index(pk->ifaces, etl_packet_iface, GPOINTER_TO_UINT(v) - 1u);
    if (pk->ifaces->len >= ETL_PACKET_MAX_INTERFACES) {
        pk->stats.rundown_dropped++;
        return NULL;
    }
    etl_packet_iface e;
    memset(&e, 0, sizeof e);
    e.source = src;
    e.id = id;
    g_array_append_val(pk->ifaces, e);
    gint64 *k = g_new(gint64, 1);
    *k = key;
    g_hash_table_insert(pk->iface_index, k, GUINT_TO_POINTER(pk->ifaces->len));
    return &g_array_index(pk->ifaces, etl_packet_iface, pk->ifaces->len - 1u);
}

const etl_packet_iface *etl_packets_interface(const etl_packets *pk, etl_packet_source src, uint32_t id)
{
    if (!pk)
        return NULL;
    gint64 key = iface_key(src, id);
    gpointer v = g_hash_table_lookup(pk->iface_index, &key);
    return v ? &g_array_index(pk->ifaces, etl_packet_iface, GPOINTER_TO_UINT(v) - 1u) : NULL;
}

uint32_t etl_packets_interface_count(const etl_packets *pk)
{
    return pk ? pk->ifaces->len : 0;
}

const etl_packet_iface *etl_packets_interface_at(const etl_packets *pk, uint32_t i)
{
    return pk && i < pk->ifaces->len ? &g_array_index(pk->ifaces, etl_packet_iface, i) : NULL;
}

/* ---- shared helpers ------------------------------------------------------------------------ */

void etl_packets_problem(etl_packets *pk, const etl_record *rec, etl_packet *out, uint64_t *counter,
                         etl_status code, uint32_t off, etl_error *err, const char *fmt, ...)
{
    (*counter)++;
    pk->stats.problems++;
    if (out->problem == ETL_OK)
        out->problem = code;
    if (!err)
        return;
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char g[ETL_GUID_STR_SIZE];
    etl_format_guid(&rec->provider, g);
    uint64_t in_record = (uint64_t)rec->record_offset + rec->payload_offset + off;
    if (rec->buffer_flags & ETL_BF_COMPRESSED)
        /* the error convention: the buffer's file offset, the place inside it in the text */
        etl_fail(err, code, rec->buffer_offset, "event %u: %s (at 0x%llx of the decompressed buffer)",
                 (unsigned)rec->event_id, msg, (unsigned long long)in_record);
    else
        etl_fail(err, code, rec->buffer_offset + in_record, "event %u: %s", (unsigned)rec->event_id, msg);
}

uint8_t etl_packet_ip_version(const uint8_t *frame, uint32_t len)
{
    if (!len)
        return 0;
    uint8_t v = frame[0] >> 4;
    return v == 4 || v == 6 ? v : 0;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

static bool is_event_header(const etl_record *rec)
{
    return etl_header_family(rec->header_type) == ETL_FAMILY_EVENT &&
           rec->has_provider;
}

static etl_packet_source source_of(const etl_record *rec)
{
    if (!is_event_header(rec))
        return ETL_PACKET_SRC_NONE;
    /* version 0 is the only layout known (every build seen); others are not guessed at */
    if (rec->version != 0)
        return ETL_PACKET_SRC_NONE;
    if (etl_guid_equal(&rec->provider, &etl_pktmon_guid))
        return ETL_PACKET_SRC_PKTMON;
    if (etl_guid_equal(&rec->provider, &etl_ndiscap_guid))
        return ETL_PACKET_SRC_NDISCAP;
    return ETL_PACKET_SRC_NONE;
}

bool etl_packet_is_packet_event(const etl_record *rec)
{
    switch (source_of(rec)) {
    case ETL_PACKET_SRC_PKTMON:
        return rec->event_id == ETL_PKTMON_EV_PACKET || rec->event_id == ETL_PKTMON_EV_DROP;
    case ETL_PACKET_SRC_NDISCAP:
        return rec->event_id == ETL_NDISCAP_EV_FRAGMENT || rec->event_id == ETL_NDISCAP_EV_METADATA ||
               rec->event_id == ETL_NDISCAP_EV_VMSWITCH;
    default:
        return false;
    }
}

void etl_packets_observe(etl_packets *pk, const etl_record *rec)
{
    if (!pk || !rec)
        return;
    switch (source_of(rec)) {
    case ETL_PACKET_SRC_PKTMON: etl_pktmon_observe(pk, rec); break;
    case ETL_PACKET_SRC_NDISCAP: etl_ndiscap_observe(pk, rec); break;
    default: break;
    }
}

static void observe_cb(void *ctx, const etl_record *rec)
{
    etl_packets_observe(ctx, rec);
}

etl_observer etl_packets_observer(etl_packets *pk)
{
    return (etl_observer){ observe_cb, pk };
}

etl_status etl_packets_decode(etl_packets *pk, const etl_record *rec, etl_packet *out, etl_error *err)
{
    if (!pk || !rec || !out)
        return etl_fail(err, ETL_ERR_ARG, 0, "packets: no context, record or result");
    memset(out, 0, sizeof *out);
    out->link_type = ETL_LINK_NONE;
    etl_packet_source src = source_of(rec);
    if (src == ETL_PACKET_SRC_NONE)
        return ETL_OK;
    if (!etl_packet_is_packet_event(rec)) {
        etl_packets_observe(pk, rec); /* rundown met on the way (a consumer without prescan) */
        return ETL_OK;
    }
    out->source = src;
    out->event_id = rec->event_id;
    out->pid = rec->pid;
    out->tid = rec->tid;
    out->timestamp = rec->timestamp;
    out->has_timestamp = rec->has_timestamp;
    out->record_position = rec->position;
    if (src == ETL_PACKET_SRC_PKTMON)
        etl_pktmon_decode(pk, rec, out, err);
    else
        etl_ndiscap_decode(pk, rec, out, err);
    if (out->kind == ETL_PACKET_FRAME) {
        if (out->frame >= rec->bytes && out->frame <= rec->bytes + rec->size &&
            (size_t)(rec->bytes + rec->size - out->frame) >= out->captured_len) {
            out->frame_in_record = true;
            out->frame_offset = (uint32_t)(out->frame - rec->bytes);
        }
        pk->stats.frames++;
        if (out->is_drop)
            pk->stats.drops++;
        if (out->original_len < out->captured_len)
            out->original_len = out->captured_len;
        out->truncated = out->original_len > out->captured_len;
        if (out->truncated)
            pk->stats.truncated++;
    }
    return ETL_OK;
}

/* ---- names --------------------------------------------------------------------------------- */

const char *etl_pktmon_dir_tag_name(uint16_t d)
{
    static const char *const names[] = { "None", "In", "Out", "Rx", "Tx", "Ingress", "Egress" };
    return d < G_N_ELEMENTS(names) ? names[d] : NULL;
}

const char *etl_pktmon_packet_type_name(uint16_t t)
{
    static const char *const names[] = { "Unknown", "Ethernet", "WiFi", "IP", "HTTP" };
    return t < G_N_ELEMENTS(names) ? names[t] : NULL;
}

const char *etl_link_type_name(etl_link_type t)
{
    switch (t) {
    case ETL_LINK_ETHERNET: return "Ethernet";
    case ETL_LINK_RAW: return "Raw IP";
    case ETL_LINK_IEEE802_11: return "IEEE 802.11";
    default: return NULL;
    }
}

const char *etl_packet_dir_name(etl_packet_dir d)
{
    switch (d) {
    case ETL_DIR_INBOUND: return "inbound";
    case ETL_DIR_OUTBOUND: return "outbound";
    default: return NULL;
    }
}

/* The DropReason's name is the schema's business (its map), not the consumer's: the field is
 * found by name in the record's schema, its value decoded and mapped as any field would be.
 * Only the first ETL_DROP_REASON_MAX_ITEMS items are looked at: DropReason is in the event's
 * fixed part. */
#define ETL_DROP_REASON_MAX_ITEMS 32

bool etl_packet_drop_reason_name(struct etl_registry *reg, const etl_record *rec, char *buf, size_t cap,
                                 size_t *len)
{
    const etl_schema *schema = NULL;
    etl_error err;
    etl_fields f;
    etl_item it;
    char scratch[64];

    *len = 0;
    if (reg == NULL || rec == NULL || cap == 0)
        return false;
    memset(&err, 0, sizeof err);
    if (etl_registry_lookup(reg, rec, &schema, &err) != ETL_OK || schema == NULL)
        return false;
    etl_fields_start(&f, schema, rec->bytes + rec->payload_offset, rec->payload_size, 0);
    for (int i = 0; i < ETL_DROP_REASON_MAX_ITEMS; i++) {
        etl_item_kind k = etl_fields_next(&f, &it);

        if (k == ETL_ITEM_END || k == ETL_ITEM_PLACEHOLDER)
            break;
        if (k == ETL_ITEM_VALUE && it.name != NULL && strcmp(it.name, "DropReason") == 0) {
            etl_value v;

            etl_item_nominal(&it, &v);
            etl_value_decode(&it, &v, scratch, sizeof scratch);
            return etl_value_map_text(&it, &v, buf, cap, len) && *len > 0;
        }
    }
    return false;
}
