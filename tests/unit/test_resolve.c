/* test_resolve.c - the decoder's one resolve call (resolve.h) on real captures: every record of
 * a trace resolved, the statuses, kinds, names and their sources asserted per capture.
 *
 *   test_resolve CAPTURES_DIR MANIFESTS_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "etl.h"
#include "etl_format.h"
#include "fields.h"
#include "prescan.h"
#include "procs.h"
#include "stack_links.h"
#include "resolve.h"
#include "value_format.h"

static const char *captures, *manifests;

/* What resolving a whole trace gave. */
typedef struct tally {
    unsigned status[ETL_RESOLVE_SCHEMA_ERROR + 1];
    unsigned kind[ETL_RESOLVE_WPP + 1];
    unsigned from[ETL_NAME_KNOWN + 1]; /* by etl_name_from, the last one included */
    unsigned wpp_named, wpp;  /* WPP records; those named Message(N) with the TMF they need */
    unsigned started;        /* a schema and a first item that is not END (or an END with bytes) */
    unsigned char_arrays;    /* character arrays handed out as one VALUE */
    unsigned char_array_begins; /* ... or as an ARRAY_BEGIN (never, from resolve) */
    unsigned repeats;        /* items with a repeated name, keyed "name_N" */
    unsigned names_in_record;/* event/provider names whose bytes lie inside the record */
    unsigned bad_bytes;      /* ... outside it */
    unsigned missing_hint;   /* SCHEMA_MISSING with the registry's hint and the key's GUID */
    unsigned older_below;    /* OLDER_VERSION with schema_version below the record's version */
    unsigned unknown_raw;    /* UNKNOWN_EVENT with an `unknown` schema */
    char first_unknown[128];
    char first_missing[256];
} tally;

static bool inside(const etl_record *r, const uint8_t *p, size_t n)
{
    return p >= r->bytes && p + n <= r->bytes + r->size;
}

static void resolve_file(const char *name, bool with_manifests, unsigned flags, tally *t)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", captures, name);
    memset(t, 0, sizeof *t);
    etl_decoder *d = etl_decoder_new(NULL, NULL);
    CHECK(d != NULL);
    if (!d)
        return;
    if (with_manifests)
        etl_registry_add_path(etl_decoder_registry(d), manifests);
    etl_error err;
    const etl_observer obs = etl_registry_observer(etl_decoder_registry(d));
    CHECK(etl_prescan_file(path, &obs, 1, &err) == ETL_OK);
    etl_reader *r;
    if (etl_reader_open_file(path, NULL, &r, &err) != ETL_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        CHECK(0);
        etl_decoder_free(d);
        return;
    }
    etl_record rec;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        etl_resolved res;
        etl_fields f;
        etl_resolve_status st = etl_decoder_resolve(d, &rec, flags, &res, &f);
        CHECK(st == res.status);
        t->status[st]++;
        t->kind[res.kind]++;
        if (res.provider_name)
            t->from[res.provider_name_from]++;
        if (rec.header_type == ETL_HT_MESSAGE) {
            t->wpp++;
            char want[80], g[ETL_GUID_STR_SIZE];
            etl_format_guid(&rec.provider, g);
            snprintf(want, sizeof want, "%s.tmf would decode", g);
            if (st == ETL_RESOLVE_SCHEMA_MISSING && res.kind == ETL_RESOLVE_WPP && !res.schema &&
                res.error.code == ETL_ERR_NOT_FOUND && strstr(res.error.message, want) && res.event_name &&
                strcmp(res.event_name, "Message(43)") == 0 && !res.provider_name)
                t->wpp_named++;
        }
        if (res.schema) {
            etl_item it;
            etl_item_kind k = etl_fields_next(&f, &it);
            if (k != ETL_ITEM_END || rec.payload_size == 0 || it.size)
                t->started++;
            for (; k != ETL_ITEM_END; k = etl_fields_next(&f, &it)) {
                if (k == ETL_ITEM_VALUE && it.char_array) {
                    t->char_arrays++;
                    etl_value v;
                    char text[4096];
                    etl_value_decode(&it, &v, text, sizeof text);
                    CHECK(v.kind == ETL_VALUE_STRING);
                    char again[4096];
                    size_t n = etl_value_format(&it, again, sizeof again);
                    CHECK(n == v.str_len && memcmp(again, v.str, n) == 0);
                }
                if (k == ETL_ITEM_ARRAY_BEGIN && etl_value_is_char_array(&it))
                    t->char_array_begins++;
                if (it.dup) {
                    char key[ETL_ITEM_KEY_MAX], want[ETL_ITEM_KEY_MAX];
                    snprintf(want, sizeof want, "%s_%u", it.name, (unsigned)it.dup);
                    CHECK_STR(etl_item_key(&it, key, sizeof key), want);
                    t->repeats++;
                } else if (k != ETL_ITEM_END) {
                    char key[8];
                    CHECK(etl_item_key(&it, key, sizeof key) == it.name);
                }
            }
            CHECK(res.event_name != NULL);
        } else {
            CHECK(st == ETL_RESOLVE_SCHEMA_MISSING || st == ETL_RESOLVE_NOT_APPLICABLE ||
                  st == ETL_RESOLVE_SCHEMA_ERROR);
        }
        if (res.event_name_bytes)
            t->names_in_record += inside(&rec, res.event_name_bytes, res.event_name_bytes_len);
        if (res.provider_name_bytes)
            t->names_in_record += inside(&rec, res.provider_name_bytes, res.provider_name_bytes_len);
        if ((res.event_name_bytes && !inside(&rec, res.event_name_bytes, res.event_name_bytes_len)) ||
            (res.provider_name_bytes && !inside(&rec, res.provider_name_bytes, res.provider_name_bytes_len)))
            t->bad_bytes++;
        if (st == ETL_RESOLVE_SCHEMA_MISSING) {
            char g[ETL_GUID_STR_SIZE];
            etl_format_guid(&rec.provider, g);
            if (res.error.code == ETL_ERR_NOT_FOUND && strstr(res.error.message, g) &&
                strstr(res.error.message, "add its manifest to the manifest path"))
                t->missing_hint++;
            if (!t->first_missing[0])
                snprintf(t->first_missing, sizeof t->first_missing, "%s", res.error.message);
        }
        if (st == ETL_RESOLVE_OLDER_VERSION && res.older_version && res.schema_version < rec.version)
            t->older_below++;
        if (st == ETL_RESOLVE_UNKNOWN_EVENT && res.schema && res.schema->unknown) {
            t->unknown_raw++;
            if (!t->first_unknown[0])
                snprintf(t->first_unknown, sizeof t->first_unknown, "%s", res.event_name);
        }
    }
    etl_error p;
    while (etl_reader_next_problem(r, &p))
        ;
    etl_reader_close(r);
    etl_decoder_free(d);
}

/* TraceLogging: decoded from the record's own metadata, the provider named by PROV_TRAITS,
 * names located in the record. */
static void test_tracelogging(void)
{
    tally t;
    resolve_file("perfview_primitive-types_tracelogging.etl", false, 0, &t);
    CHECK_EQ_U(t.kind[ETL_RESOLVE_TRACELOGGING], 5);
    CHECK_EQ_U(t.from[ETL_NAME_TRAITS], 5);
    CHECK_EQ_U(t.status[ETL_RESOLVE_SCHEMA_MISSING], 0);
    CHECK_EQ_U(t.status[ETL_RESOLVE_SCHEMA_ERROR], 0);
    CHECK_EQ_U(t.bad_bytes, 0);
    CHECK(t.names_in_record >= 10); /* an event name and a provider name per event */
    /* the two classic records of the trace (EventTrace header, ...) decode too */
    CHECK_EQ_U(t.kind[ETL_RESOLVE_CLASSIC], 2);
    CHECK_EQ_U(t.status[ETL_RESOLVE_DECODED], 7);
    CHECK_EQ_U(t.started, 7);
    CHECK_EQ_U(t.char_array_begins, 0);
}

/* PROV_TRAITS names are remembered for the provider's later events, unless asked not to; the name
 * is read from the record again as etl_decoder_traits_name. */
static void test_learn(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", captures, "perfview_primitive-types_tracelogging.etl");
    for (int no_learn = 0; no_learn <= 1; no_learn++) {
        etl_decoder *d = etl_decoder_new(NULL, NULL);
        etl_reader *r;
        etl_error err;
        CHECK(etl_reader_open_file(path, NULL, &r, &err) == ETL_OK);
        etl_record rec;
        bool seen = false;
        etl_guid g = {0};
        while (etl_reader_next(r, &rec, &err) == ETL_OK) {
            etl_resolved res;
            if (etl_decoder_resolve(d, &rec, no_learn ? ETL_RESOLVE_NO_LEARN : 0, &res, NULL) == ETL_RESOLVE_DECODED &&
                res.kind == ETL_RESOLVE_TRACELOGGING) {
                seen = true;
                g = rec.provider;
                CHECK_STR(res.provider_name, "solar_system");
                CHECK(res.provider_name_from == ETL_NAME_TRAITS);
            }
            /* the same name read from the record again: the very bytes, or none without traits */
            const char *again = etl_decoder_traits_name(&rec);
            if (res.provider_name_from == ETL_NAME_TRAITS)
                CHECK(again == res.provider_name);
            else
                CHECK(again == NULL);
        }
        CHECK(etl_decoder_traits_name(NULL) == NULL);
        etl_reader_close(r);
        CHECK(seen);
        const char *known = etl_schema_cache_provider_name(etl_decoder_cache(d), &g);
        if (no_learn)
            CHECK(known == NULL);
        else
            CHECK(known && strcmp(known, "solar_system") == 0);
        etl_decoder_free(d);
    }
}

/* Manifest events: without their manifest the schema is missing, with the registry's hint;
 * with it they decode and their provider is named by the schema. */
static void test_manifest(void)
{
    tally t;
    resolve_file("tx_HTTP_Server_manifest.etl", false, 0, &t);
    CHECK(t.status[ETL_RESOLVE_SCHEMA_MISSING] > 0);
    CHECK_EQ_U(t.missing_hint, t.status[ETL_RESOLVE_SCHEMA_MISSING]);
    CHECK(strstr(t.first_missing, "no schema for ") == t.first_missing);
    CHECK(strstr(t.first_missing, "event id ") != NULL);
    CHECK_EQ_U(t.from[ETL_NAME_SCHEMA] + t.from[ETL_NAME_REGISTRY], t.kind[ETL_RESOLVE_CLASSIC]);
    unsigned missing = t.status[ETL_RESOLVE_SCHEMA_MISSING];

    resolve_file("tx_HTTP_Server_manifest.etl", true, 0, &t);
    CHECK_EQ_U(t.status[ETL_RESOLVE_SCHEMA_MISSING], 0);
    CHECK(t.status[ETL_RESOLVE_DECODED] >= missing);
    CHECK(t.from[ETL_NAME_SCHEMA] >= missing);
    CHECK_EQ_U(t.status[ETL_RESOLVE_SCHEMA_ERROR], 0);
    CHECK_EQ_U(t.started, t.status[ETL_RESOLVE_DECODED] + t.status[ETL_RESOLVE_OLDER_VERSION] +
                              t.status[ETL_RESOLVE_UNKNOWN_EVENT]);
}

/* A record version no source defines: the highest lower version decodes it, and says which. */
static void test_older_version(void)
{
    tally t;
    resolve_file("perfview_gcevents_clr.etl", true, 0, &t);
    CHECK_EQ_U(t.status[ETL_RESOLVE_OLDER_VERSION], 14);
    CHECK_EQ_U(t.older_below, 14);
}

/* Classic events: known ones decode with the kernel class document; one it lacks is an
 * unknown event named from its key, not an error. */
static void test_classic(void)
{
    tally t;
    resolve_file("etlparser_ShutdownPerfDiagLogger_kernel.etl", false, 0, &t);
    CHECK(t.kind[ETL_RESOLVE_CLASSIC] > 17000);
    CHECK_EQ_U(t.status[ETL_RESOLVE_UNKNOWN_EVENT], 0);
    CHECK_EQ_U(t.status[ETL_RESOLVE_SCHEMA_ERROR], 0);
    CHECK_EQ_U(t.from[ETL_NAME_SCHEMA], t.kind[ETL_RESOLVE_CLASSIC]);

    resolve_file("perfview_SelfDescribingSingleEvent_tl_compressed.etl", false, 0, &t);
    CHECK_EQ_U(t.status[ETL_RESOLVE_UNKNOWN_EVENT], 1);
    CHECK_EQ_U(t.unknown_raw, 1);
    CHECK_STR(t.first_unknown, "SysConfig/Opcode(37)");
}

/* WPP trace messages: no format without the PDB, so no schema path at all. */
static void test_wpp(void)
{
    tally t;
    resolve_file("wpp_onedrive_cldflt0.etl", false, 0, &t);
    CHECK_EQ_U(t.wpp, 13);
    CHECK_EQ_U(t.wpp_named, 13);
    CHECK_EQ_U(t.status[ETL_RESOLVE_SCHEMA_MISSING], 13);
    CHECK_EQ_U(t.kind[ETL_RESOLVE_WPP], 13);
    CHECK_EQ_U(t.kind[ETL_RESOLVE_CLASSIC], 4);
}

/* Stack-walk bookkeeping in one call per record (stack_links.h): on the merged trace, as many
 * walks are linked as etldump's "stack_of" shows, each to an earlier classic record. */
static void test_stack_links(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", captures, "perfview_net452_x64_merged_compressed.etl");
    etl_decoder *d = etl_decoder_new(NULL, NULL);
    etl_procs *procs = etl_procs_new(etl_decoder_registry(d));
    etl_stack_links *links = etl_stack_links_new(0);
    etl_error err;
    const etl_observer obs[] = {etl_registry_observer(etl_decoder_registry(d)), etl_procs_observer(procs)};
    CHECK(etl_prescan_file(path, obs, 2, &err) == ETL_OK);
    etl_reader *r;
    CHECK(etl_reader_open_file(path, NULL, &r, &err) == ETL_OK);
    etl_record rec;
    unsigned walks = 0, linked = 0, backwards = 0;
    uint64_t n = 0;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        uint64_t target;
        n++;
        walks += etl_record_is_stackwalk(&rec);
        if (etl_stack_links_observe(links, procs, &rec, n, &target)) {
            linked++;
            CHECK(etl_record_is_stackwalk(&rec));
            backwards += target < n;
        }
    }
    etl_reader_close(r);
    CHECK(walks >= linked && walks > 9000);
    CHECK_EQ_U(linked, 9359);
    CHECK_EQ_U(backwards, linked);
    CHECK(!etl_stack_links_observe(NULL, procs, &rec, 0, NULL));
    etl_stack_links_free(links);
    etl_procs_free(procs);
    etl_decoder_free(d);
}

static void test_family(void)
{
    CHECK(etl_header_family(ETL_HT_EVENT_HEADER32) == ETL_FAMILY_EVENT);
    CHECK(etl_header_family(ETL_HT_EVENT_HEADER64) == ETL_FAMILY_EVENT);
    CHECK(etl_header_family(ETL_HT_PERFINFO64) == ETL_FAMILY_SYSTEM);
    CHECK(etl_header_family(ETL_HT_COMPACT32) == ETL_FAMILY_SYSTEM);
    CHECK(etl_header_family(ETL_HT_INSTANCE64) == ETL_FAMILY_FULL);
    CHECK(etl_header_family(ETL_HT_MESSAGE) == ETL_FAMILY_MESSAGE);
    CHECK(etl_header_family(ETL_HT_WNODE) == ETL_FAMILY_OTHER);
    CHECK(etl_header_family(ETL_HT_UNKNOWN) == ETL_FAMILY_OTHER);
    CHECK_STR(etl_resolve_status_name(ETL_RESOLVE_SCHEMA_MISSING), "schema missing");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_resolve CAPTURES_DIR MANIFESTS_DIR\n");
        return 2;
    }
    captures = argv[1];
    manifests = argv[2];
    test_family();
    test_tracelogging();
    test_learn();
    test_manifest();
    test_older_version();
    test_classic();
    test_wpp();
    test_stack_links();
    CHECK_MAIN_END();
}
