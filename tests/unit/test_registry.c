/* Unit tests of registry.c, the schema registry: precedence of manifest files over EventSource
 * manifests over schemas carried in the trace, the rule for two files defining one key (and the
 * warning naming both), the lower-version fallback, the negative cache emptied by a new source,
 * search paths (folder order, malformed files named with their line, the rest still loading),
 * and the pre-pass over real traces (net452: carried schemas; BondEtwSample: an EventSource
 * manifest). */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>

#include "check.h"
#include "etl_format.h"
#include "prescan.h"
#include "registry.h"

static GString *reports;

static void on_report(void *ctx, etl_registry_severity sev, const char *msg)
{
    (void)ctx;
    g_string_append_printf(reports, "%d:%s\n", (int)sev, msg);
}

#define PROV "{aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee}"

static char *manifest(const char *task, const char *field_type, const char *extra_event)
{
    return g_strdup_printf("<instrumentationManifest><instrumentation><events>"
                           "<provider name='Reg-Test' guid='" PROV "'>"
                           "<tasks><task name='%s' value='1'/></tasks>"
                           "<templates><template tid='t'><data name='F' inType='%s'/></template></templates>"
                           "<events><event value='1' version='1' task='%s' template='t'/>%s</events>"
                           "</provider></events></instrumentation></instrumentationManifest>",
                           task, field_type, task, extra_event);
}

static etl_guid prov(void)
{
    etl_guid g;
    etl_parse_guid(PROV, &g);
    return g;
}

static void test_precedence(void)
{
    etl_schema_cache *c = etl_schema_cache_new(NULL);
    etl_registry *s = etl_registry_new(c, on_report, NULL);
    etl_error err;
    etl_guid g = prov();
    const etl_schema *sc;
    g_string_truncate(reports, 0);

    /* nothing yet: not found, with provider, id and version in the message */
    CHECK_EQ_U(etl_registry_lookup_key(s, &g, 1, 1, 8, &sc, &err), ETL_ERR_NOT_FOUND);
    CHECK(strstr(err.message, "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee") && strstr(err.message, "id 1 version 1"));
    CHECK_EQ_U(etl_registry_lookup_key(s, &g, 1, 1, 8, &sc, &err), ETL_ERR_NOT_FOUND); /* negative cache */
    CHECK_EQ_U(etl_schema_cache_get_stats(c)->mf_absent_hits, 1);

    /* a first file: the key resolves now (the new source emptied the negative cache) */
    char *x1 = manifest("First", "win:UInt32", "");
    CHECK(etl_registry_add_manifest_text(s, x1, strlen(x1), "one.man", &err) == ETL_OK);
    CHECK_EQ_U(etl_registry_lookup_key(s, &g, 1, 1, 8, &sc, &err), ETL_OK);
    CHECK_STR(etl_schema_event_name(sc), "First");
    CHECK_STR(etl_schema_str(sc, sc->origin), "one.man");
    CHECK_STR(etl_registry_provider_name(s, &g), "Reg-Test");

    /* an identical second file: no warning; a different third: a warning naming both, the first
     * file still wins */
    CHECK(etl_registry_add_manifest_text(s, x1, strlen(x1), "same.man", &err) == ETL_OK);
    CHECK_EQ_U(reports->len, 0);
    char *x3 = manifest("Third", "win:UInt64", "<event value='2' version='0' task='Third'/>");
    CHECK(etl_registry_add_manifest_text(s, x3, strlen(x3), "three.man", &err) == ETL_OK);
    CHECK(strstr(reports->str, "one.man and three.man") && strstr(reports->str, "id 1 version 1") &&
          strstr(reports->str, "using one.man"));
    CHECK_EQ_U(etl_registry_get_stats(s)->disagreements, 1);
    CHECK_EQ_U(etl_registry_lookup_key(s, &g, 1, 1, 8, &sc, &err), ETL_OK);
    CHECK_STR(etl_schema_event_name(sc), "First");
    CHECK_EQ_U(sc->steps[0].size, 4);
    /* a key only the third file has comes from it */
    CHECK_EQ_U(etl_registry_lookup_key(s, &g, 2, 0, 8, &sc, &err), ETL_OK);
    CHECK_STR(etl_schema_str(sc, sc->origin), "three.man");

    /* a newer version than any defined: the highest lower one, and the schema says so */
    CHECK_EQ_U(etl_registry_lookup_key(s, &g, 1, 4, 8, &sc, &err), ETL_OK);
    CHECK_EQ_U(sc->schema_version, 1);
    CHECK_EQ_U(etl_registry_get_stats(s)->older_version, 1);
    /* an older version than any defined is not guessed */
    CHECK_EQ_U(etl_registry_lookup_key(s, &g, 1, 0, 8, &sc, &err), ETL_ERR_NOT_FOUND);

    /* malformed text: refused with the origin and line; nothing else changes */
    const char *bad = "<instrumentationManifest>\n<instrumentation>\n<events>\n<provider name='x' guid='nope'>";
    CHECK(etl_registry_add_manifest_text(s, bad, strlen(bad), "bad.man", &err) == ETL_ERR_CORRUPT);
    CHECK(strstr(err.message, "bad.man:4") != NULL);
    CHECK_EQ_U(etl_registry_get_stats(s)->files_failed, 1);
    CHECK_EQ_U(etl_registry_get_stats(s)->files_loaded, 3);
    g_free(x1);
    g_free(x3);
    etl_registry_free(s);
    etl_schema_cache_free(c);
}

/* A key answered twice (the second time from the registry's memo), then defined by a source of
 * higher precedence - a manifest file over the built-in packet-capture provider: the next
 * lookup gives the file's definition, not the remembered schema. */
static void test_memo_forgets(void)
{
    etl_schema_cache *c = etl_schema_cache_new(NULL);
    etl_registry *s = etl_registry_new(c, on_report, NULL);
    etl_error err;
    etl_guid g;
    CHECK(etl_parse_guid("2ed6006e-4729-4609-b423-3ee7bcd678ef", &g));
    const etl_schema *a, *b;
    CHECK_EQ_U(etl_registry_lookup_key(s, &g, 1001, 0, 8, &a, &err), ETL_OK);
    CHECK_EQ_U(etl_registry_lookup_key(s, &g, 1001, 0, 8, &b, &err), ETL_OK);
    CHECK(a == b && strcmp(etl_schema_event_name(a), "Mine") != 0);
    const char *x = "<instrumentationManifest><instrumentation><events>"
                    "<provider name='NDIS-Test' guid='{2ed6006e-4729-4609-b423-3ee7bcd678ef}'>"
                    "<tasks><task name='Mine' value='1'/></tasks>"
                    "<templates><template tid='t'><data name='F' inType='win:UInt32'/></template></templates>"
                    "<events><event value='1001' version='0' task='Mine' template='t'/></events>"
                    "</provider></events></instrumentation></instrumentationManifest>";
    CHECK(etl_registry_add_manifest_text(s, x, strlen(x), "mine.man", &err) == ETL_OK);
    CHECK_EQ_U(etl_registry_lookup_key(s, &g, 1001, 0, 8, &b, &err), ETL_OK);
    CHECK(b != a);
    CHECK_STR(etl_schema_event_name(b), "Mine");
    CHECK_STR(etl_schema_str(b, b->origin), "mine.man");
    etl_registry_free(s);
    etl_schema_cache_free(c);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char *path = g_build_filename(dir, name, NULL);
    CHECK(g_file_set_contents(path, text, -1, NULL));
    g_free(path);
}

/* A temporary folder of manifests: a.xml does not parse (line 4), b.man and c.XML define the
 * same event differently, notes.txt is no manifest.  NULL when it cannot be made. */
static const char *const folder_files[] = {"a.xml", "b.man", "c.XML", "notes.txt"};

static char *schema_folder(void)
{
    char *dir = g_dir_make_tmp("etlshark-schemas-XXXXXX", NULL);
    CHECK(dir != NULL);
    if (!dir)
        return NULL;
    char *b1 = manifest("FromB", "win:UInt8", ""), *c1 = manifest("FromC", "win:UInt16", "");
    write_file(dir, "b.man", b1);
    write_file(dir, "c.XML", c1);
    write_file(dir, "a.xml", "<instrumentationManifest>\n<instrumentation>\n<events>\n<provider name='x' guid='{bad}'/>\n");
    write_file(dir, "notes.txt", "not a manifest");
    g_free(b1);
    g_free(c1);
    return dir;
}

static void schema_folder_remove(char *dir)
{
    for (size_t i = 0; i < sizeof folder_files / sizeof folder_files[0]; i++) {
        char *path = g_build_filename(dir, folder_files[i], NULL);
        g_remove(path);
        g_free(path);
    }
    g_rmdir(dir);
    g_free(dir);
}

static void test_path(void)
{
    char *dir = schema_folder();
    if (!dir)
        return;
    etl_schema_cache *c = etl_schema_cache_new(NULL);
    etl_registry *s = etl_registry_new(c, on_report, NULL);
    g_string_truncate(reports, 0);
    char *missing = g_build_filename(dir, "missing.man", NULL);
    char *list = g_strdup_printf("%s::%s", dir, missing);
    CHECK(etl_registry_add_path(s, list) != ETL_OK);
    /* a.xml: an error naming the file and the line; b.man and c.XML loaded, in name order */
    CHECK(strstr(reports->str, "a.xml:4") != NULL);
    CHECK(strstr(reports->str, "missing.man: no such file or folder") != NULL);
    CHECK(strstr(reports->str, "b.man and ") && strstr(reports->str, "c.XML") && strstr(reports->str, "using "));
    CHECK_EQ_U(etl_registry_get_stats(s)->files_loaded, 2);
    CHECK_EQ_U(etl_registry_get_stats(s)->files_failed, 2);
    etl_guid g = prov();
    const etl_schema *sc;
    etl_error err;
    CHECK_EQ_U(etl_registry_lookup_key(s, &g, 1, 1, 4, &sc, &err), ETL_OK);
    CHECK_STR(etl_schema_event_name(sc), "FromB");
    etl_registry_free(s);
    etl_schema_cache_free(c);
    /* the environment variable is read as it is */
    g_setenv(ETL_REGISTRY_ENV, list, TRUE);
    CHECK_STR(etl_registry_env_path(), list);
    g_setenv(ETL_REGISTRY_ENV, "", TRUE);
    CHECK(etl_registry_env_path() == NULL);
    schema_folder_remove(dir);
    g_free(list);
    g_free(missing);
}

/* etl_registry_add_path_threads: the files read on several threads, the registry, its messages,
 * stats and status those of etl_registry_add_path - over the shared manifests, the shared
 * provider binaries, schema_folder's manifests and a missing entry. */
static void test_path_threads(const char *manifests, const char *wevt)
{
    char *dir = schema_folder();
    if (!dir)
        return;
    char *missing = g_build_filename(dir, "missing.man", NULL);
    char *list = g_strdup_printf("%s:%s:%s:%s", manifests, dir, missing, wevt);
    char *said = NULL;
    etl_registry_stats stats = {0};
    etl_status status = ETL_OK;
    char first_name[64] = "";
    etl_guid g = prov();
    static const unsigned threads[] = {1, 2, 3, 8};
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        etl_schema_cache *c = etl_schema_cache_new(NULL);
        etl_registry *s = etl_registry_new(c, on_report, NULL);
        g_string_truncate(reports, 0);
        etl_status st = threads[k] == 1 ? etl_registry_add_path(s, list) : etl_registry_add_path_threads(s, list, threads[k]);
        const etl_schema *sc;
        etl_error err;
        CHECK_EQ_U(etl_registry_lookup_key(s, &g, 1, 1, 4, &sc, &err), ETL_OK);
        if (k == 0) {
            said = g_strdup(reports->str);
            stats = *etl_registry_get_stats(s);
            status = st;
            snprintf(first_name, sizeof first_name, "%s", etl_schema_event_name(sc));
            CHECK(strstr(said, "a.xml:4") && strstr(said, "missing.man: no such file or folder") &&
                  strstr(said, "b.man and "));
            CHECK(stats.files_loaded > 10 && stats.files_failed == 2 && stats.binaries_indexed >= 1);
            CHECK_STR(first_name, "FromB");
        } else {
            CHECK_STR(reports->str, said);
            CHECK(memcmp(etl_registry_get_stats(s), &stats, sizeof stats) == 0);
            CHECK_EQ_U(st, status);
            CHECK_STR(etl_schema_event_name(sc), first_name);
        }
        etl_registry_free(s);
        etl_schema_cache_free(c);
    }
    schema_folder_remove(dir);
    g_free(said);
    g_free(list);
    g_free(missing);
}

/* The first record of a provider (and id, when id >= 0) in a trace, copied out. */
static bool find_record(const char *path, const char *guid, int id, etl_record *out, uint8_t **bytes)
{
    etl_reader *r;
    etl_error e;
    etl_guid g;
    etl_parse_guid(guid, &g);
    if (etl_reader_open_file(path, NULL, &r, &e) != ETL_OK)
        return false;
    etl_record rec;
    bool found = false;
    while (!found && etl_reader_next(r, &rec, &e) == ETL_OK)
        if (rec.has_provider && etl_guid_equal(&rec.provider, &g) && (id < 0 || rec.event_id == id) &&
            (rec.header_type == ETL_HT_EVENT_HEADER64 || rec.header_type == ETL_HT_EVENT_HEADER32)) {
            *out = rec;
            *bytes = g_memdup2(rec.bytes, rec.size);
            out->bytes = *bytes;
            out->ext_count = 0; /* the items point into the reader's buffer */
            found = true;
        }
    etl_reader_close(r);
    return found;
}

static void test_net452(const char *captures, const char *manifests)
{
    char *path = g_build_filename(captures, "perfview_net452_x64_merged_compressed.etl", NULL);
    etl_record rec;
    uint8_t *bytes = NULL;
    /* GCStart (id 1) of the CLR */
    CHECK(find_record(path, "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", 1, &rec, &bytes));
    etl_schema_cache *c = etl_schema_cache_new(NULL);
    etl_registry *s = etl_registry_new(c, on_report, NULL);
    etl_error err;
    const etl_schema *sc;
    CHECK_EQ_U(etl_registry_lookup(s, &rec, &sc, &err), ETL_ERR_NOT_FOUND);
    const etl_observer obs = etl_registry_observer(s);
    CHECK(etl_prescan_file(path, &obs, 1, &err) == ETL_OK);
    CHECK_EQ_U(etl_registry_get_stats(s)->carried_events, 44 + 17);
    CHECK_EQ_U(etl_registry_get_stats(s)->stream_manifests, 3);
    /* carried: the manifest's internal names */
    CHECK_EQ_U(etl_registry_lookup(s, &rec, &sc, &err), ETL_OK);
    CHECK_STR(etl_schema_event_name(sc), "GarbageCollection/Start");
    CHECK_STR(etl_schema_str(sc, sc->origin), "schemas carried in the trace");
    /* the manifest file on the path wins: TDH's display names */
    char *man = g_build_filename(manifests, "dotnet_ClrEtwAll.man", NULL);
    CHECK(etl_registry_add_file(s, man, &err) == ETL_OK);
    CHECK_EQ_U(etl_registry_lookup(s, &rec, &sc, &err), ETL_OK);
    CHECK_STR(etl_schema_event_name(sc), "GC/Start");
    CHECK_STR(etl_schema_str(sc, sc->origin), man);
    /* a classic record with the same GUID and numbers takes the classic path, never the
     * manifest's keys: the class is not described, so it is an unknown classic event */
    etl_record classic = rec;
    classic.header_type = ETL_HT_FULL_HEADER64;
    CHECK_EQ_U(etl_registry_lookup(s, &classic, &sc, &err), ETL_OK);
    CHECK(sc->unknown && sc->source == ETL_SCHEMA_CLASSIC);
    CHECK(strstr(etl_schema_event_name(sc), "Opcode(") != NULL);
    /* a WPP record never gets a schema here */
    etl_record wpp = rec;
    wpp.header_type = ETL_HT_MESSAGE;
    CHECK_EQ_U(etl_registry_lookup(s, &wpp, &sc, &err), ETL_ERR_ARG);
    g_free(man);
    etl_registry_free(s);
    etl_schema_cache_free(c);

    /* streaming, as a reader that does not pre-scan: records are observed in file order; the GC
     * event misses while no schema record has come by, and once they have, it is found although
     * it missed before (the new sources emptied the negative cache) */
    c = etl_schema_cache_new(NULL);
    s = etl_registry_new(c, on_report, NULL);
    etl_reader *r;
    CHECK(etl_reader_open_file(path, NULL, &r, &err) == ETL_OK);
    etl_record x;
    unsigned missed_before = 0, observed = 0;
    while (etl_reader_next(r, &x, &err) == ETL_OK) {
        if (etl_registry_observe(s, &x, NULL) == ETL_OK)
            observed++;
        else if (observed == 0 && etl_registry_lookup(s, &rec, &sc, &err) == ETL_ERR_NOT_FOUND)
            missed_before++;
    }
    etl_reader_close(r);
    CHECK(missed_before > 0);
    CHECK(observed >= 44 + 17);
    CHECK_EQ_U(etl_registry_lookup(s, &rec, &sc, &err), ETL_OK);
    CHECK_STR(etl_schema_event_name(sc), "GarbageCollection/Start");
    g_free(bytes);
    etl_registry_free(s);
    etl_schema_cache_free(c);
    g_free(path);
}

static void test_eventsource(const char *captures)
{
    char *path = g_build_filename(captures, "tx_BondEtwSample_eventsource.etl", NULL);
    const char *guid = "4f8f06bf-0000-0000-0000-000000000000";
    /* the provider of the capture: whatever the first EVENT_HEADER record names */
    etl_reader *r;
    etl_error err;
    CHECK(etl_reader_open_file(path, NULL, &r, &err) == ETL_OK);
    etl_record rec;
    char g[ETL_GUID_STR_SIZE] = "";
    while (etl_reader_next(r, &rec, &err) == ETL_OK)
        if (rec.header_type == ETL_HT_EVENT_HEADER64) {
            etl_format_guid(&rec.provider, g);
            break;
        }
    etl_reader_close(r);
    (void)guid;
    uint8_t *b1 = NULL, *b2 = NULL;
    etl_record ev, chunk;
    CHECK(find_record(path, g, 1, &ev, &b1));
    CHECK(find_record(path, g, 0xFFFE, &chunk, &b2));
    etl_schema_cache *c = etl_schema_cache_new(NULL);
    etl_registry *s = etl_registry_new(c, on_report, NULL);
    const etl_schema *sc;
    /* streaming: the event misses, the manifest arrives, the event is found (the miss is
     * forgotten) */
    CHECK_EQ_U(etl_registry_lookup(s, &ev, &sc, &err), ETL_ERR_NOT_FOUND);
    CHECK_EQ_U(etl_registry_observe(s, &chunk, &err), ETL_OK);
    CHECK_EQ_U(etl_registry_get_stats(s)->stream_manifests, 1);
    CHECK_EQ_U(etl_registry_lookup(s, &ev, &sc, &err), ETL_OK);
    CHECK(strncmp(etl_schema_str(sc, sc->origin), "EventSource manifest of", 23) == 0);
    CHECK(sc->field_count > 0);
    CHECK_EQ_U(etl_registry_lookup(s, &chunk, &sc, &err), ETL_OK);
    CHECK_STR(etl_schema_event_name(sc), "ManifestData");
    CHECK(sc->provider_name != 0);
    /* a record that carries no schema */
    CHECK_EQ_U(etl_registry_observe(s, &ev, &err), ETL_ERR_NOT_FOUND);
    g_free(b1);
    g_free(b2);
    etl_registry_free(s);
    etl_schema_cache_free(c);
    g_free(path);
}

/* Does the schema have a field named `name`? */
static bool has_field(const etl_schema *sc, const char *name)
{
    for (uint32_t i = 0; i < sc->step_count; i++)
        if (sc->steps[i].name && strcmp(sc->strings + sc->steps[i].name, name) == 0)
            return true;
    return false;
}

/* The schemas each input carries apply to its own events (registry.h): the EventSource trace's
 * manifest from logger id 0, a copy naming the field "source" "sourcX" from logger id 7, and
 * the same from trace 3 of a capture of several. */
static void test_inputs(const char *captures)
{
    char *path = g_build_filename(captures, "tx_BondEtwSample_eventsource.etl", NULL);
    etl_record ev, chunk;
    uint8_t *b1 = NULL, *b2 = NULL;
    CHECK(find_record(path, "4f8f06bf-8261-4099-ae5f-07c54bbcfab3", 3, &ev, &b1));
    CHECK(find_record(path, "4f8f06bf-8261-4099-ae5f-07c54bbcfab3", 0xFFFE, &chunk, &b2));
    etl_schema_cache *c = etl_schema_cache_new(NULL);
    etl_registry *s = etl_registry_new(c, on_report, NULL);
    const etl_schema *sc;
    etl_error err;
    ev.logger_id = chunk.logger_id = 0;
    CHECK_EQ_U(etl_registry_observe(s, &chunk, &err), ETL_OK);
    /* one input: a logger id without schema records of its own takes the trace's */
    ev.logger_id = 5;
    CHECK_EQ_U(etl_registry_lookup(s, &ev, &sc, &err), ETL_OK);
    CHECK(has_field(sc, "source") && !has_field(sc, "sourcX"));
    /* a second input defining the key otherwise */
    uint8_t *b3 = g_memdup2(chunk.bytes, chunk.size);
    uint32_t renamed = 0;
    for (uint32_t i = chunk.payload_offset; i + 13 <= chunk.size; i++)
        if (memcmp(b3 + i, "name=\"source\"", 13) == 0) {
            b3[i + 11] = 'X';
            renamed++;
        }
    CHECK(renamed > 0);
    etl_record twin = chunk;
    twin.bytes = b3;
    twin.logger_id = 7;
    CHECK_EQ_U(etl_registry_observe(s, &twin, &err), ETL_OK);
    CHECK_EQ_U(etl_registry_get_stats(s)->stream_manifests, 2);
    for (int round = 0; round < 2; round++) { /* compiled, then from the caches */
        ev.logger_id = 0;
        CHECK_EQ_U(etl_registry_lookup(s, &ev, &sc, &err), ETL_OK);
        CHECK(has_field(sc, "source") && !has_field(sc, "sourcX"));
        ev.logger_id = 7;
        CHECK_EQ_U(etl_registry_lookup(s, &ev, &sc, &err), ETL_OK);
        CHECK(has_field(sc, "sourcX") && !has_field(sc, "source"));
        CHECK_STR(etl_registry_record_provider_name(s, &ev), "MSOpenTech-Tx-BinaryEventSource");
        /* a logger id of no input when there are several: no other input's schemas */
        ev.logger_id = 5;
        CHECK_EQ_U(etl_registry_lookup(s, &ev, &sc, &err), ETL_ERR_NOT_FOUND);
    }
    /* trace 3 of a capture of several: its schema records through its prescan observer */
    ev.logger_id = 0;
    ev.trace = 3;
    CHECK_EQ_U(etl_registry_lookup(s, &ev, &sc, &err), ETL_ERR_NOT_FOUND);
    etl_observer o = etl_registry_observer_of(s, 3);
    o.observe(o.ctx, &twin);
    CHECK_EQ_U(etl_registry_lookup(s, &ev, &sc, &err), ETL_OK);
    CHECK(has_field(sc, "sourcX"));
    ev.trace = 0;
    CHECK_EQ_U(etl_registry_lookup(s, &ev, &sc, &err), ETL_OK);
    CHECK(has_field(sc, "source"));
    g_free(b1);
    g_free(b2);
    g_free(b3);
    etl_registry_free(s);
    etl_schema_cache_free(c);
    g_free(path);
}

int main(int argc, char **argv)
{
    reports = g_string_new(NULL);
    test_precedence();
    test_memo_forgets();
    test_path();
    if (argc >= 3) {
        char *wevt = g_build_filename(argv[1], "..", "wevt", NULL);
        test_path_threads(argv[2], wevt);
        g_free(wevt);
        test_net452(argv[1], argv[2]);
        test_eventsource(argv[1]);
        test_inputs(argv[1]);
    }
    g_string_free(reports, TRUE);
    CHECK_MAIN_END();
}
