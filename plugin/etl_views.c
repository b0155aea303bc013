/* etl_views.c - Source/Destination, Conversations/Endpoints and Statistics > ETW (etl_views.h).
 *
 * etlshark - SPDX-License-Identifier: GPL-2.0-or-later
 *
 * One tap ("etl") carries, for every record, its process and provider labels and the header
 * values the statistics count; the conversation/endpoint tables and the stats trees are its
 * listeners.  The labels are the ones the packet list shows (Info's "[image.exe (pid)]", the
 * provider's name), so a count here is a count of what the user sees.
 */

#include "compat.h"

#include <string.h>

#include <epan/address_types.h>
#include <epan/conversation_table.h>
#include <epan/stats_tree.h>
#include <epan/tap.h>

#include "etl_format.h"
#include "etl_views.h"

/* What one record tells its listeners (pinfo->pool memory). */
typedef struct etls_view {
    const char *process;  /* "image.exe (pid)", "pid N" or ETLS_NO_PROCESS */
    const char *provider; /* the provider's name, else its GUID */
    const char *event;    /* the event's name, else "Event N" / "Opcode N" */
    uint32_t tid;         /* ETL_NO_ID when absent */
    uint8_t level, opcode;
    uint64_t keyword;
    uint32_t size;        /* the record's bytes */
    bool damaged;         /* damage notes on the frame, or a framing problem */
    bool lost;            /* first record of a buffer flagged EVENTS_LOST / BUFFER_LOST */
} etls_view;

static int etls_tap = -1;
static int etls_at = -1; /* the address type: a NUL-terminated UTF-8 label */
static int hf_etl_src = -1;
static int hf_etl_dst = -1;

/* ---- the address type ------------------------------------------------------------------- */

static int
etls_at_to_str(const address *addr, gchar *buf, int buf_len)
{
    const char *s = (const char *)addr->data;
    size_t n = addr->len > 0 ? strnlen(s, (size_t)addr->len) : 0;

    if (buf_len <= 0)
        return 0;
    if (n >= (size_t)buf_len)
        n = (size_t)buf_len - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return (int)n + 1;
}

static int
etls_at_str_len(const address *addr)
{
    return addr->len > 0 ? (int)strnlen((const char *)addr->data, (size_t)addr->len) + 1 : 1;
}

static const char *
etls_at_col_filter(const address *addr _U_, etls_bool src)
{
    return src ? "etl.src" : "etl.dst";
}

static void
etls_set_label(address *a, wmem_allocator_t *pool, const char *label)
{
    char *copy = wmem_strdup(pool, label);

    set_address(a, etls_at, (int)strlen(copy) + 1, copy);
}

/* ---- conversations and endpoints --------------------------------------------------------- */

static const char *
etls_conv_filter(struct _conversation_item_t *item _U_, conv_filter_type_e filter)
{
    if (filter == CONV_FT_SRC_ADDRESS)
        return "etl.src";
    if (filter == CONV_FT_DST_ADDRESS)
        return "etl.dst";
    return CONV_FILTER_INVALID;
}

static const char *
etls_endpoint_filter(struct _endpoint_item_t *item _U_, conv_filter_type_e filter)
{
    if (filter == CONV_FT_SRC_ADDRESS)
        return "etl.src";
    if (filter == CONV_FT_DST_ADDRESS)
        return "etl.dst";
    return CONV_FILTER_INVALID;
}

static ct_dissector_info_t etls_ct_info = { &etls_conv_filter };
static et_dissector_info_t etls_et_info = { &etls_endpoint_filter };

static tap_packet_status
etls_conv_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_, const void *data,
                 tap_flags_t flags _U_)
{
    conv_hash_t *hash = (conv_hash_t *)tapdata;
    const etls_view *v = (const etls_view *)data;
    address src, dst;

    etls_set_label(&src, pinfo->pool, v->process);
    etls_set_label(&dst, pinfo->pool, v->provider);
    add_conversation_table_data(hash, &src, &dst, 0, 0, 1, (int)v->size, &pinfo->rel_ts,
                                &pinfo->abs_ts, &etls_ct_info, CONVERSATION_NONE);
    return TAP_PACKET_REDRAW;
}

static tap_packet_status
etls_endpoint_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_,
                     const void *data, tap_flags_t flags _U_)
{
    conv_hash_t *hash = (conv_hash_t *)tapdata;
    const etls_view *v = (const etls_view *)data;
    address src, dst;

    etls_set_label(&src, pinfo->pool, v->process);
    etls_set_label(&dst, pinfo->pool, v->provider);
    add_endpoint_table_data(hash, &src, 0, TRUE, 1, (int)v->size, &etls_et_info, ENDPOINT_NONE);
    add_endpoint_table_data(hash, &dst, 0, FALSE, 1, (int)v->size, &etls_et_info, ENDPOINT_NONE);
    return TAP_PACKET_REDRAW;
}

/* ---- stats trees (Statistics > ETW, tshark -z etl_*,tree) --------------------------------- */

static const char *const etls_level_names[] = { "Log Always", "Critical", "Error", "Warning",
                                                "Informational", "Verbose" };

static int st_node_providers = -1;
static int st_node_processes = -1;
static int st_node_levels = -1, st_node_opcodes = -1, st_node_keywords = -1;
static int st_node_damage = -1;
static int st_node_sizes = -1;

static void
etls_st_providers_init(stats_tree *st)
{
    st_node_providers = stats_tree_create_node(st, "Events by provider and event", 0,
                                               STAT_DT_INT, TRUE);
}

static tap_packet_status
etls_st_providers_packet(stats_tree *st, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                         const void *data, tap_flags_t flags _U_)
{
    const etls_view *v = (const etls_view *)data;
    int prov;

    tick_stat_node(st, "Events by provider and event", 0, TRUE);
    prov = tick_stat_node(st, v->provider, st_node_providers, TRUE);
    tick_stat_node(st, v->event, prov, FALSE);
    return TAP_PACKET_REDRAW;
}

static void
etls_st_processes_init(stats_tree *st)
{
    st_node_processes = stats_tree_create_node(st, "Events by process and thread", 0,
                                               STAT_DT_INT, TRUE);
}

static tap_packet_status
etls_st_processes_packet(stats_tree *st, packet_info *pinfo, epan_dissect_t *edt _U_,
                         const void *data, tap_flags_t flags _U_)
{
    const etls_view *v = (const etls_view *)data;
    int proc;

    tick_stat_node(st, "Events by process and thread", 0, TRUE);
    proc = tick_stat_node(st, v->process, st_node_processes, TRUE);
    if (v->tid != ETL_NO_ID)
        tick_stat_node(st, wmem_strdup_printf(pinfo->pool, "Thread %u", v->tid), proc, FALSE);
    else
        tick_stat_node(st, "No thread", proc, FALSE);
    return TAP_PACKET_REDRAW;
}

static void
etls_st_kinds_init(stats_tree *st)
{
    st_node_levels = stats_tree_create_node(st, "Level", 0, STAT_DT_INT, TRUE);
    st_node_opcodes = stats_tree_create_node(st, "Opcode", 0, STAT_DT_INT, TRUE);
    st_node_keywords = stats_tree_create_node(st, "Keyword", 0, STAT_DT_INT, TRUE);
}

static tap_packet_status
etls_st_kinds_packet(stats_tree *st, packet_info *pinfo, epan_dissect_t *edt _U_,
                     const void *data, tap_flags_t flags _U_)
{
    const etls_view *v = (const etls_view *)data;
    wmem_allocator_t *pool = pinfo->pool;

    tick_stat_node(st, "Level", 0, TRUE);
    if (v->level < G_N_ELEMENTS(etls_level_names))
        tick_stat_node(st, wmem_strdup_printf(pool, "%u %s", v->level,
                                              etls_level_names[v->level]),
                       st_node_levels, FALSE);
    else
        tick_stat_node(st, wmem_strdup_printf(pool, "%u", v->level), st_node_levels, FALSE);
    tick_stat_node(st, "Opcode", 0, TRUE);
    tick_stat_node(st, wmem_strdup_printf(pool, "%u", v->opcode), st_node_opcodes, FALSE);
    tick_stat_node(st, "Keyword", 0, TRUE);
    tick_stat_node(st, wmem_strdup_printf(pool, "0x%" PRIx64, v->keyword), st_node_keywords,
                   FALSE);
    return TAP_PACKET_REDRAW;
}

static void
etls_st_damage_init(stats_tree *st)
{
    st_node_damage = stats_tree_create_node(st, "Records", 0, STAT_DT_INT, TRUE);
    stats_tree_create_node(st, "Records with damage", st_node_damage, STAT_DT_INT, FALSE);
    stats_tree_create_node(st, "Buffers that lost events", st_node_damage, STAT_DT_INT, FALSE);
}

static tap_packet_status
etls_st_damage_packet(stats_tree *st, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                      const void *data, tap_flags_t flags _U_)
{
    const etls_view *v = (const etls_view *)data;

    tick_stat_node(st, "Records", 0, TRUE);
    if (v->damaged)
        tick_stat_node(st, "Records with damage", st_node_damage, FALSE);
    if (v->lost)
        tick_stat_node(st, "Buffers that lost events", st_node_damage, FALSE);
    return TAP_PACKET_REDRAW;
}

static void
etls_st_sizes_init(stats_tree *st)
{
    st_node_sizes = stats_tree_create_range_node(st, "Record size (bytes)", 0, "0-63", "64-127",
                                                  "128-255", "256-511", "512-1023",
                                                  "1024-4095", "4096-", NULL);
}

static tap_packet_status
etls_st_sizes_packet(stats_tree *st, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                     const void *data, tap_flags_t flags _U_)
{
    const etls_view *v = (const etls_view *)data;

    tick_stat_node(st, "Record size (bytes)", 0, TRUE);
    stats_tree_tick_range(st, "Record size (bytes)", 0, (int)v->size);
    return TAP_PACKET_REDRAW;
}

/* ---- the record's view ------------------------------------------------------------------- */

bool
etls_views_listened(void)
{
    return have_tap_listener(etls_tap);
}

void
etls_views_record(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etl_record *rec,
                  const etls_event_summary *sum, unsigned note_count, bool lost)
{
    wmem_allocator_t *pool = pinfo->pool;
    etls_view *v = wmem_new0(pool, etls_view);
    proto_item *ti;

    v->process = sum != NULL && sum->process != NULL ? sum->process : ETLS_NO_PROCESS;
    if (sum != NULL && sum->provider_name != NULL) {
        v->provider = sum->provider_name;
    } else if (rec->has_provider) {
        char guid[ETL_GUID_STR_SIZE];

        etl_format_guid(&rec->provider, guid);
        v->provider = wmem_strdup(pool, guid);
    } else {
        v->provider = wmem_strdup(pool, etl_header_type_name(rec->header_type));
    }
    if (sum != NULL && sum->event_name != NULL)
        v->event = sum->event_name;
    else if (etl_header_family(rec->header_type) == ETL_FAMILY_EVENT)
        v->event = wmem_strdup_printf(pool, "Event %u", rec->event_id);
    else
        v->event = wmem_strdup_printf(pool, "Opcode %u", rec->opcode);
    v->tid = rec->tid;
    v->level = rec->level;
    v->opcode = rec->opcode;
    v->keyword = rec->keyword;
    v->size = rec->size;
    v->damaged = note_count > 0 || etl_record_problem(rec, NULL, NULL);
    v->lost = lost;

    /* A packet handed to eth/wlan/ip afterwards gets the addresses its dissectors set. */
    if (pinfo->src.type == AT_NONE && pinfo->dst.type == AT_NONE) {
        etls_set_label(&pinfo->src, pool, v->process);
        etls_set_label(&pinfo->dst, pool, v->provider);
    }
    ti = proto_tree_add_string(tree, hf_etl_src, tvb, 0, 0, v->process);
    proto_item_set_generated(ti);
    ti = proto_tree_add_string(tree, hf_etl_dst, tvb, 0, 0, v->provider);
    proto_item_set_generated(ti);
    tap_queue_packet(etls_tap, pinfo, v);
}

/* ---- registration ------------------------------------------------------------------------ */

void
etls_views_register(int proto)
{
    static hf_register_info hf[] = {
        { &hf_etl_src, { "Source (process)", "etl.src", FT_STRING, BASE_NONE, NULL, 0x0,
            "The record's process as Source and Conversations show it: \"image.exe (pid)\", "
            "\"pid N\", or \"" ETLS_NO_PROCESS "\"", HFILL } },
        { &hf_etl_dst, { "Destination (provider)", "etl.dst", FT_STRING, BASE_NONE, NULL, 0x0,
            "The record's provider as Destination and Conversations show it: its name, else "
            "its GUID", HFILL } },
    };

    proto_register_field_array(proto, hf, G_N_ELEMENTS(hf));
    etls_at = address_type_dissector_register("AT_ETL", "ETW process or provider",
                                              etls_at_to_str, etls_at_str_len, NULL,
                                              etls_at_col_filter, NULL, NULL, NULL);
    etls_tap = register_tap("etl");
    register_conversation_table(proto, TRUE, etls_conv_packet, etls_endpoint_packet);

    stats_tree_register_plugin("etl", "etl_events", "ETW/Events by provider and event", 0,
                               etls_st_providers_packet, etls_st_providers_init, NULL);
    stats_tree_register_plugin("etl", "etl_processes", "ETW/Events by process and thread", 0,
                               etls_st_processes_packet, etls_st_processes_init, NULL);
    stats_tree_register_plugin("etl", "etl_kinds", "ETW/Events by level, opcode and keyword", 0,
                               etls_st_kinds_packet, etls_st_kinds_init, NULL);
    stats_tree_register_plugin("etl", "etl_damage", "ETW/Lost events and damage", 0,
                               etls_st_damage_packet, etls_st_damage_init, NULL);
    stats_tree_register_plugin("etl", "etl_sizes", "ETW/Record sizes", 0, etls_st_sizes_packet,
                               etls_st_sizes_init, NULL);
}
