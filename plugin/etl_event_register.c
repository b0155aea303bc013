/* etl_event_register.c - the typed etl.data.<name> fields registered at start-up, so a filter
 * on them works in the first run (etl_event_internal.h).
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Every kernel event's fields (the class document built into the decoder), then every event
 * of the manifests on the search path; the types come from the decoder's walk of each compiled
 * schema (schema_walk.h) and each value's nominal type, mapped as dissection maps decoded
 * values. */

#include "compat.h"

#include <string.h>

#include <epan/packet.h>

#include "etl_packet.h"
#include "schema_cache.h"
#include "schema_walk.h"
#include "wpp.h"

#include "etl_event_internal.h"

/* The search path whose manifests' fields were registered (etls_register_manifest_fields),
 * and the TMF path whose messages' fields were (etls_register_wpp_fields). */
static char *etls_registered_path;
static char *etls_registered_tmf_path;

/* Called with the step and type of every value of a schema (etls_schema_field_types). */
typedef void (*etls_field_type_fn)(void *ctx, etls_step *st, etls_ftype t);

/* Is this array's element count read from the payload (a u16 before the elements, or another
 * field's value), so that an event may have no element at all? */
static bool
etls_counted_by_payload(const etl_schema *s, const etl_item *array_begin)
{
    const etl_schema_step *st = &s->steps[array_begin->step];

    return st->count_rule == ETL_COUNT_U16 || st->count_rule == ETL_COUNT_REF;
}

/* Typed fields of one schema's values: the decoder's walk of the schema (every field, the
 * elements of arrays counted by another field included) and each value's nominal type - the
 * type its well-formed values decode to - mapped as dissection maps decoded values
 * (etls_ftype_of).  `counted` false: the fields every event of the schema has; true: the
 * fields inside arrays whose count the payload gives (registered after all the others, so a
 * name such a field shares with a field of another type keeps the type it always had). */
static void
etls_schema_field_types(GPtrArray *by_index, const etl_schema *s, bool counted,
                        etls_field_type_fn fn, void *ctx)
{
    etls_step *stack[ETL_SCHEMA_MAX_DEPTH + 1];
    bool counted_at[ETL_SCHEMA_MAX_DEPTH + 1];
    unsigned depth = 0, unpushed = 0;
    etls_schema_steps *ss = etls_steps_in(by_index, s);
    etl_schema_walk w;
    etl_item it;

    etl_schema_walk_start(&w, s, s->pointer_size == 4 ? 4 : 8);
    stack[0] = NULL;
    counted_at[0] = false;
    for (;;) {
        etl_item_kind k = etl_schema_walk_next(&w, &it);

        if (k == ETL_ITEM_END || k == ETL_ITEM_PLACEHOLDER)
            break;
        switch (k) {
        case ETL_ITEM_VALUE: {  /* character arrays included: one string */
            etl_value v;

            etl_item_nominal(&it, &v);
            if (counted_at[depth] == counted)
                fn(ctx, etls_step_for(ss, &it, stack[depth]), etls_ftype_of(&v));
            break;
        }
        case ETL_ITEM_STRUCT_BEGIN:
        case ETL_ITEM_ARRAY_BEGIN: {
            etls_step *st = etls_step_for(ss, &it, stack[depth]);

            if (depth >= ETL_SCHEMA_MAX_DEPTH) {
                unpushed++;
                break;
            }
            stack[++depth] = st;
            counted_at[depth] = counted_at[depth - 1] ||
                                (k == ETL_ITEM_ARRAY_BEGIN && etls_counted_by_payload(s, &it));
            break;
        }
        case ETL_ITEM_STRUCT_END:
        case ETL_ITEM_ARRAY_END:
            if (unpushed > 0)
                unpushed--;
            else if (depth > 0)
                depth--;
            break;
        default:
            break;
        }
    }
}

/* etls_field_type_fn registering the field at once. */
static void
etls_register_field_type(void *ctx _U_, etls_step *st, etls_ftype t)
{
    etls_step_hf(st, t);
}

void
etls_steps_type(const etl_schema *s)
{
    GPtrArray *ix = etls_steps_open_index();
    etls_schema_steps *ss = ix != NULL ? etls_steps_in(ix, s) : NULL;

    if (ss == NULL || ss->typed)
        return;
    etls_schema_field_types(ix, s, false, etls_register_field_type, NULL);
    etls_schema_field_types(ix, s, true, etls_register_field_type, NULL);
    ss->typed = true;
}

typedef struct etls_startup_ctx {
    etl_registry *reg;
    GPtrArray *by_index;
    bool counted;   /* this round's fields: those inside arrays counted by the payload, or not */
    /* kernel events: per field path (its key), how many values have each type, and the paths
     * in the order first met */
    GHashTable *type_counts;
    GPtrArray *paths;
} etls_startup_ctx;

/* One event of a manifest on the path: the schema the registry would use for it (its
 * precedence rule), and that schema's fields registered. */
static void
etls_register_event_fields(void *vctx, const etl_guid *provider, uint16_t id, uint8_t version)
{
    etls_startup_ctx *ctx = (etls_startup_ctx *)vctx;
    const etl_schema *s = NULL;
    etl_error err;

    memset(&err, 0, sizeof err);
    if (etl_registry_lookup_key(ctx->reg, provider, id, version, 8, &s, &err) == ETL_OK && s != NULL)
        etls_schema_field_types(ctx->by_index, s, ctx->counted, etls_register_field_type, NULL);
}

/* The events of the decoder's built-in layouts (pktmon and ndiscap, decoder/schema/packet/):
 * not in any file, so etl_registry_foreach_file_event does not list them. */
static const uint16_t etls_pktmon_events[] = { 20, 30, 40, 60, 65, 66, 70, 73, 75, 80, 90, 100, 160, 170 };
static const uint16_t etls_ndiscap_events[] = { 1001, 1002, 1003, 1011, 1012, 1013, 1014, 1015, 1016 };

/* The typed fields of the built-in events (version 0), so `-Y etl.data.DropReason` works in
 * the first run on a netsh trace (no schema in it) as on a pktmon one (whose own schema agrees
 * with the built-in layout: tests/unit/test_builtin.c). */
static void
etls_register_builtin_events(etls_startup_ctx *ctx)
{
    for (size_t i = 0; i < G_N_ELEMENTS(etls_pktmon_events); i++)
        etls_register_event_fields(ctx, &etl_pktmon_guid, etls_pktmon_events[i], 0);
    for (size_t i = 0; i < G_N_ELEMENTS(etls_ndiscap_events); i++)
        etls_register_event_fields(ctx, &etl_ndiscap_guid, etls_ndiscap_events[i], 0);
}

/* At start-up (protocol registration, and when the preference is applied - before tshark
 * compiles -Y/-R and checks -e): register the typed fields of every event template of the
 * manifests on the search path, so a filter on a manifest field works in the first run.  The
 * schema of each (provider, id, version) is the one the registry picks (its precedence rule),
 * so the field types are those dissection will use; 64-bit records are assumed (a pointer
 * field of a 32-bit record gets its own name on first sight, by etl_fields.h's rule). */
void
etls_register_manifest_fields(void)
{
    const char *env = etl_registry_env_path();
    char *key = g_strdup_printf("%s\n%s", etls_pref_manifest_path(), env != NULL ? env : "");
    etl_schema_cache *cache;
    etl_registry *reg;
    etls_startup_ctx ctx;

    if (g_strcmp0(key, etls_registered_path) == 0 || strcmp(key, "\n") == 0) {
        g_free(key);
        return;
    }
    g_free(etls_registered_path);
    etls_registered_path = key;

    cache = etl_schema_cache_new(NULL);
    reg = cache != NULL ? etl_registry_new(cache, etls_schemas_report, NULL) : NULL;
    if (reg == NULL) {
        etl_schema_cache_free(cache);
        return;
    }
    etls_add_manifest_paths(reg);
    memset(&ctx, 0, sizeof ctx);
    ctx.reg = reg;
    ctx.by_index = etls_steps_index_new();
    etl_registry_foreach_file_event(reg, etls_register_event_fields, &ctx);
    ctx.counted = true;
    etl_registry_foreach_file_event(reg, etls_register_event_fields, &ctx);
    g_ptr_array_free(ctx.by_index, TRUE);
    etl_registry_free(reg);
    etl_schema_cache_free(cache);
    etls_fields_save(true);
}

/* etls_field_type_fn counting the types of each path (etls_register_classic_fields). */
static void
etls_count_field_type(void *vctx, etls_step *st, etls_ftype t)
{
    etls_startup_ctx *ctx = (etls_startup_ctx *)vctx;
    unsigned *counts;

    if (st == NULL || st->key == NULL)
        return;
    counts = (unsigned *)g_hash_table_lookup(ctx->type_counts, st->key);
    if (counts == NULL) {
        char *key = g_strdup(st->key);

        counts = g_new0(unsigned, ETLS_FT_COUNT);
        g_hash_table_insert(ctx->type_counts, key, counts);
        g_ptr_array_add(ctx->paths, key);
    }
    counts[t]++;
}

/* One (class, type, version) of the kernel class document: the field types of its schema for
 * both record bitnesses, counted. */
static void
etls_register_classic_event(void *vctx, const etl_guid *cls, uint8_t type, uint8_t version)
{
    static const uint8_t pointer_sizes[] = { 8, 4 };
    etls_startup_ctx *ctx = (etls_startup_ctx *)vctx;

    for (unsigned i = 0; i < G_N_ELEMENTS(pointer_sizes); i++) {
        const etl_schema *s = NULL;
        etl_error err;

        memset(&err, 0, sizeof err);
        if (etl_registry_lookup_classic(ctx->reg, cls, type, version, pointer_sizes[i], &s,
                                       &err) == ETL_OK && s != NULL && !s->unknown)
            etls_schema_field_types(ctx->by_index, s, ctx->counted, etls_count_field_type, ctx);
    }
}

/* Register the paths of one round (etls_register_classic_fields), each name's most frequent type first (ties in
 * etls_ftype order), so that type gets the plain name. */
static void
etls_register_by_frequency(etls_startup_ctx *ctx)
{
    for (guint i = 0; i < ctx->paths->len; i++) {
        const char *key = (const char *)g_ptr_array_index(ctx->paths, i);
        const unsigned *counts = (const unsigned *)g_hash_table_lookup(ctx->type_counts, key);
        bool done[ETLS_FT_COUNT] = { false };

        for (;;) {
            int best = -1;

            for (int t = 0; t < (int)ETLS_FT_COUNT; t++)
                if (!done[t] && counts[t] > 0 && (best < 0 || counts[t] > counts[best]))
                    best = t;
            if (best < 0)
                break;
            done[best] = true;
            etls_fields_hf(key, (etls_ftype)best);
        }
    }
}

/* At start-up, once: the typed fields of every event of the kernel class document built into
 * the decoder (classic.h), so `-Y etl.data.daddr == 10.0.0.1` works in the first run.  They
 * are registered after the field store (whose names keep their types) and before any
 * manifest's.  When kernel events give one name values of different types, the type most of
 * them have gets the plain name (etl_fields.h's rule then suffixes the others): ProcessId is
 * the u32 PID of most classes, not Process V0's pointer (ProcessId_x64); daddr the IPv4
 * address of the TcpIp/UdpIp IPv4 events, daddr_ipv6 the IPv6 one. */
void
etls_register_classic_fields(void)
{
    etl_schema_cache *cache = etl_schema_cache_new(NULL);
    etl_registry *reg = cache != NULL ? etl_registry_new(cache, etls_schemas_report, NULL) : NULL;
    etls_startup_ctx ctx;

    if (reg == NULL) {
        etl_schema_cache_free(cache);
        ws_warning("etlshark: out of memory registering the kernel events' fields");
        return;
    }
    memset(&ctx, 0, sizeof ctx);
    ctx.reg = reg;
    ctx.by_index = etls_steps_index_new();
    /* Registered alike at every start: the store need not list them. */
    etls_fields_remember(false);
    for (int round = 0; round < 2; round++) {
        ctx.counted = round == 1;
        ctx.type_counts = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
        ctx.paths = g_ptr_array_new_with_free_func(g_free);
        etl_registry_foreach_classic_event(reg, etls_register_classic_event, &ctx);
        etls_register_by_frequency(&ctx);
        g_hash_table_destroy(ctx.type_counts);
        g_ptr_array_free(ctx.paths, TRUE);
    }
    /* then the built-in packet events' (after the kernel's, whose names keep their types) */
    for (int round = 0; round < 2; round++) {
        ctx.counted = round == 1;
        etls_register_builtin_events(&ctx);
    }
    etls_fields_remember(true);
    g_ptr_array_free(ctx.by_index, TRUE);
    etl_registry_free(reg);
    etl_schema_cache_free(cache);
}

/* One WPP message of the TMF path: its schema's fields (64-bit records assumed, as for
 * manifests: an ItemPtr of a 32-bit record gets its own name on first sight). */
static void
etls_register_wpp_message(void *vctx, const etl_guid *guid _U_, uint16_t number _U_, const etl_schema *s)
{
    etls_startup_ctx *ctx = (etls_startup_ctx *)vctx;

    if (s != NULL)
        etls_schema_field_types(ctx->by_index, s, false, etls_register_field_type, NULL);
}

/* At start-up and when the preference is applied: the typed fields of every WPP message of the
 * TMF path (etl.data.<expression> of each argument), so a filter on one works in the first run. */
void
etls_register_wpp_fields(void)
{
    const char *env = etl_tmf_env_path();
    char *key = g_strdup_printf("%s\n%s", etls_pref_tmf_path(), env != NULL ? env : "");
    etl_decoder *d;
    etls_startup_ctx ctx;

    if (g_strcmp0(key, etls_registered_tmf_path) == 0 || strcmp(key, "\n") == 0) {
        g_free(key);
        return;
    }
    g_free(etls_registered_tmf_path);
    etls_registered_tmf_path = key;
    d = etl_decoder_new(etls_schemas_report, NULL);
    if (d == NULL)
        return;
    etls_add_tmf_paths(d);
    memset(&ctx, 0, sizeof ctx);
    ctx.by_index = etls_steps_index_new();
    etl_decoder_foreach_wpp_message(d, 8, etls_register_wpp_message, &ctx);
    g_ptr_array_free(ctx.by_index, TRUE);
    etl_decoder_free(d);
    etls_fields_save(true);
}

void
etls_register_shutdown(void)
{
    g_free(etls_registered_path);
    etls_registered_path = NULL;
    g_free(etls_registered_tmf_path);
    etls_registered_tmf_path = NULL;
}
