/* Unit tests of the TMF reader (decoder/schema/tmf/tmf.c) and the WPP schema compiler
 * (tmf_schema.c): every shared TMF parses without a warning and every message compiles to a
 * complete program; damaged TMFs are refused with their file and line, the others still load. */
#include <glib.h>
#include <glib/gstdio.h>

#include "check.h"
#include "etl_format.h"
#include "schema.h"
#include "schema_cache.h"
#include "tmf.h"
#include "tmf_schema.h"

typedef struct reports {
    int errors, warnings;
    char last[512];
} reports;

static void on_report(void *ctx, bool warning, const char *message)
{
    reports *r = ctx;
    if (warning)
        r->warnings++;
    else
        r->errors++;
    g_strlcpy(r->last, message, sizeof r->last);
    fprintf(stderr, "  reported (%s): %s\n", warning ? "warning" : "error", message);
}

static etl_guid guid_of(const char *s)
{
    etl_guid g;
    memset(&g, 0, sizeof g);
    CHECK(etl_parse_guid(s, &g));
    return g;
}

typedef struct compile_all {
    etl_schema_cache *cache;
    etl_schema_builder *b;
    unsigned messages, incomplete, mismatched, items;
    unsigned kinds[64];
} compile_all;

static void compile_one(void *ctx, etl_tmf_message *m)
{
    compile_all *c = ctx;
    c->messages++;
    for (uint8_t ptr = 4; ptr <= 8; ptr += 4) {
        const etl_schema *s = NULL;
        etl_error err;
        CHECK(etl_tmf_schema(c->cache, c->b, m, ptr, &s, &err) == ETL_OK);
        if (!s)
            continue;
        if (!s->complete)
            c->incomplete++;
        if (s->field_count != m->item_count || s->step_count != m->item_count)
            c->mismatched++;
        for (uint32_t i = 0; i < s->step_count && i < m->item_count; i++)
            if (s->steps[i].tag != m->items[i].argno || strcmp(etl_schema_str(s, s->steps[i].name), m->items[i].expr))
                c->mismatched++;
        if (ptr == 8 && s->source != ETL_SCHEMA_WPP)
            c->mismatched++;
    }
    for (uint16_t i = 0; i < m->item_count; i++) {
        c->items++;
        c->kinds[m->items[i].kind & 63]++;
    }
}

/* The 90 shared TMFs, as a folder: no error, no warning, every message compiled complete. */
static void test_shared(const char *dir)
{
    reports r = {0};
    etl_tmf_store *s = etl_tmf_store_new(on_report, &r);
    CHECK(etl_tmf_add_path(s, dir) == ETL_OK);
    const etl_tmf_stats *st = etl_tmf_get_stats(s);
    CHECK_EQ_U(st->files_loaded, 90);
    CHECK_EQ_U(st->files_failed, 0);
    CHECK_EQ_U(st->warnings, 0);
    CHECK_EQ_U(r.errors, 0);
    CHECK_EQ_U(r.warnings, 0);
    CHECK_EQ_U(st->guids, 90);
    CHECK(st->messages > 1000);

    /* one message in full: L2CAP.c line 130 of BthPS3 */
    etl_guid g = guid_of("01e9b841-7d67-315a-7b92-23b2033356de");
    const etl_tmf_guid *sec = etl_tmf_find_guid(s, &g);
    CHECK(sec != NULL);
    if (sec) {
        CHECK_STR(sec->component, "BthPS3");
        CHECK_STR(sec->src, "L2CAP.c");
        CHECK(g_str_has_suffix(sec->origin, "01e9b841-7d67-315a-7b92-23b2033356de.tmf"));
    }
    etl_tmf_message *m = etl_tmf_find(s, &g, 14);
    CHECK(m != NULL);
    if (m) {
        CHECK_STR(m->type_name, "L2CAP_c130");
        CHECK_EQ_U(m->source_line, 130);
        CHECK_STR(m->format, "%0 [%!FUNC!] ERROR:HID Control Channel connection failed with status %10!s!");
        CHECK_STR(m->level, "TRACE_LEVEL_ERROR");
        CHECK_STR(m->flags, "TRACE_L2CAP");
        CHECK_STR(m->func, "L2CAP_PS3_ControlConnectResponseCompleted");
        CHECK_EQ_U(m->item_count, 1);
        CHECK_STR(m->items[0].expr, "status");
        CHECK_STR(m->items[0].type, "ItemNTSTATUS");
        CHECK_EQ_U(m->items[0].kind, ETL_TMF_NTSTATUS);
        CHECK_EQ_U(m->items[0].argno, 10);
    }
    /* a message with no arguments: its block is empty */
    m = etl_tmf_find(s, &g, 15);
    CHECK(m && m->item_count == 0 && strcmp(m->format, "%0 [%!FUNC!] <--") == 0);
    CHECK(etl_tmf_find(s, &g, 9999) == NULL);

    /* ItemListByte(Low,APC,DPC): the list's names in order (BthPS3PSM Sideband.c) */
    g = guid_of("9fd9018f-c07b-3383-a12a-2352710d4d14");
    m = NULL;
    for (unsigned n = 0; n < 100 && !m; n++) {
        etl_tmf_message *c = etl_tmf_find(s, &g, (uint16_t)n);
        if (c && c->item_count == 1 && c->items[0].kind == ETL_TMF_LIST8)
            m = c;
    }
    if (!m) {
        /* the list lives in another file of the set: search them all */
        etl_guid gs[] = {guid_of("5609ed00-05f9-31b4-9398-195220f2a6db"), guid_of("ca66b9c0-97d7-3776-3daf-3296492866aa")};
        for (unsigned k = 0; k < 2 && !m; k++)
            for (unsigned n = 0; n < 100 && !m; n++) {
                etl_tmf_message *c = etl_tmf_find(s, &gs[k], (uint16_t)n);
                if (c && c->item_count == 1 && c->items[0].kind == ETL_TMF_LIST8)
                    m = c;
            }
    }
    compile_all c = {0};
    etl_schema_builder b;
    etl_schema_builder_init(&b, NULL);
    c.cache = etl_schema_cache_new(NULL);
    c.b = &b;
    etl_tmf_foreach(s, compile_one, &c);
    CHECK_EQ_U(c.messages, st->messages);
    CHECK_EQ_U(c.incomplete, 0);
    CHECK_EQ_U(c.mismatched, 0);
    /* the Item types the shared TMFs use (their INDEX.md): each is known */
    CHECK_EQ_U(c.kinds[ETL_TMF_UNKNOWN], 0);
    CHECK(c.kinds[ETL_TMF_NTSTATUS] > 0 && c.kinds[ETL_TMF_POINTER] > 0 && c.kinds[ETL_TMF_STRING] > 0);
    CHECK(c.kinds[ETL_TMF_INT32] > 0 && c.kinds[ETL_TMF_WINERROR] > 0 && c.kinds[ETL_TMF_HEX64] > 0);
    CHECK(c.kinds[ETL_TMF_PWSTRING] > 0 && c.kinds[ETL_TMF_INT64] > 0 && c.kinds[ETL_TMF_LIST8] > 0);
    CHECK(c.kinds[ETL_TMF_DOUBLE] > 0 && c.kinds[ETL_TMF_WSTRING] > 0 && c.kinds[ETL_TMF_UINT64] > 0);
    printf("shared TMFs: %u GUIDs, %u messages, %u arguments\n", st->guids, c.messages, c.items);
    etl_schema_cache_free(c.cache);
    etl_schema_builder_free(&b);
    etl_tmf_store_free(s);
}

/* Each damaged text: refused, the error names the origin and the line, the store unchanged. */
static void test_damaged(void)
{
    static const struct {
        const char *text;
        unsigned line;
        const char *reason;
    } bad[] = {
        {"#typev a_c1 1 \"x\" // LEVEL=L\n{\n}\n", 1, "before any message GUID line"},
        {"// PDB\n01e9b841-7d67-315a-7b92-23b2033356de C // SRC=a.c\n#typev a_c1 \"x\"\n", 3, "no message number"},
        {"01e9b841-7d67-315a-7b92-23b2033356de C\n#typev a_c1 1 x\n", 2, "no quoted format string"},
        {"01e9b841-7d67-315a-7b92-23b2033356de C\n#typev a_c1 1 \"x\" //\nstatus, ItemLong -- 10\n", 3, "'{' expected"},
        {"01e9b841-7d67-315a-7b92-23b2033356de C\n#typev a_c1 1 \"x\" //\n{\nstatus ItemLong -- 10\n}\n", 4, "no ','"},
        {"01e9b841-7d67-315a-7b92-23b2033356de C\n#typev a_c1 1 \"x\" //\n{\nstatus, ItemLong\n}\n", 4, "'-- <number>'"},
        {"01e9b841-7d67-315a-7b92-23b2033356de C\n#typev a_c1 1 \"x\" //\n{\nstatus, ItemLong -- 10\n", 4, "ends inside"},
        {"01e9b841-7d67-315a-7b92-23b2033356de C\n#enumv E 1\n", 2, "unknown directive #enumv"},
        {"hello\n", 1, "neither a comment"},
        {"// only comments\n", 1, "no message GUID line"},
        {"01e9b841-7d67-315a-7b92-23b2033356de C\n#typev a_c1 70000 \"x\" //\n{\n}\n", 2, "no message number"},
        {"01e9b841-7d67-315a-7b92-23b2033356de C\n#typev a_c1 1 \"x\" //\n{\nx, (a,b) -- 10\n}\n", 4,
         "without an Item type"},
    };
    reports r = {0};
    etl_tmf_store *s = etl_tmf_store_new(on_report, &r);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        etl_error err;
        etl_status st = etl_tmf_add_text(s, bad[i].text, strlen(bad[i].text), "bad.tmf", &err);
        CHECK(st == ETL_ERR_CORRUPT);
        char prefix[32];
        snprintf(prefix, sizeof prefix, "bad.tmf:%u: ", bad[i].line);
        CHECK(g_str_has_prefix(err.message, prefix));
        CHECK(strstr(err.message, bad[i].reason) != NULL);
        if (!g_str_has_prefix(err.message, prefix) || !strstr(err.message, bad[i].reason))
            fprintf(stderr, "  case %zu: %s\n", i, err.message);
    }
    CHECK_EQ_U(etl_tmf_get_stats(s)->messages, 0);
    CHECK_EQ_U(etl_tmf_get_stats(s)->guids, 0);
    CHECK_EQ_U(etl_tmf_get_stats(s)->files_failed, sizeof bad / sizeof bad[0]);
    /* a NUL byte (a UTF-16 file, say) */
    etl_error err;
    CHECK(etl_tmf_add_text(s, "0\0\0\0", 4, "wide.tmf", &err) == ETL_ERR_CORRUPT && strstr(err.message, "wide.tmf:1: NUL"));
    etl_tmf_store_free(s);
}

/* A path of one good file, one damaged file and a missing entry: the good one loads, the two
 * others are reported with their names. */
static void test_path(void)
{
    char *dir = g_dir_make_tmp("test_tmf_XXXXXX", NULL);
    CHECK(dir != NULL);
    if (!dir)
        return;
    char *good = g_build_filename(dir, "a.tmf", NULL), *bad = g_build_filename(dir, "b.tmf", NULL);
    const char *gtext = "// PDB:  x.pdb\n"
                        "11111111-2222-3333-4444-555555555555 Comp // SRC=x.c MJ= MN=\n"
                        "#typev x_c10 10 \"%0 [%!FUNC!] v=%10!d!\" //   LEVEL=TRACE_LEVEL_INFORMATION FLAGS=F FUNC=Fn\n"
                        "{\n"
                        "v, ItemLong -- 10\n"
                        "}\n";
    CHECK(g_file_set_contents(good, gtext, -1, NULL));
    CHECK(g_file_set_contents(bad, "11111111-2222-3333-4444-555555555556 Comp\n#typev x 1\n", -1, NULL));
    reports r = {0};
    etl_tmf_store *s = etl_tmf_store_new(on_report, &r);
    char *path = g_strdup_printf("%s%c%s/missing.tmf", dir, G_SEARCHPATH_SEPARATOR, dir);
    CHECK(etl_tmf_add_path(s, path) != ETL_OK);
    CHECK_EQ_U(etl_tmf_get_stats(s)->files_loaded, 1);
    CHECK_EQ_U(etl_tmf_get_stats(s)->files_failed, 2);
    CHECK_EQ_U(r.errors, 2);
    CHECK(strstr(r.last, "missing.tmf") != NULL);
    etl_guid g = guid_of("11111111-2222-3333-4444-555555555555");
    etl_tmf_message *m = etl_tmf_find(s, &g, 10);
    CHECK(m && strcmp(m->func, "Fn") == 0 && m->item_count == 1 && m->items[0].kind == ETL_TMF_INT32);
    /* the same file again: its messages are the same, no warning */
    int w = r.warnings;
    CHECK(etl_tmf_add_file(s, good, NULL) == ETL_OK);
    CHECK_EQ_U(r.warnings, w);
    g_remove(good);
    g_remove(bad);
    g_rmdir(dir);
    g_free(path);
    g_free(good);
    g_free(bad);
    g_free(dir);
    etl_tmf_store_free(s);
}

/* An unknown Item type: a warning naming it, the file used; its program decodes the arguments
 * before it and ends in UNSUPPORTED naming the type.  A message defined differently twice: a
 * warning, the first definition kept. */
static void test_unknown_and_duplicates(void)
{
    const char *text = "11111111-2222-3333-4444-555555555555 Comp // SRC=x.c\n"
                       "#typev x_c1 1 \"%10!d! %11!s! %12!d!\" // FUNC=F\n"
                       "{\n"
                       "a, ItemLong -- 10\n"
                       "b, ItemMagic -- 11\n"
                       "c, ItemLong -- 12\n"
                       "}\n"
                       "#typev x_c2 2 \"%10!s!\" // FUNC=G\n"
                       "{\n"
                       "irql, ItemListByte(Low, APC ,DPC) -- 10\n"
                       "}\n"
                       "#typev x_c3 2 \"%10!d!\" // FUNC=G\n"
                       "{\n"
                       "v, ItemLong -- 10\n"
                       "}\n"
                       "#typev x_c4 3 \"\" // FUNC=H\n"
                       "{\n"
                       "}\n";
    reports r = {0};
    etl_tmf_store *s = etl_tmf_store_new(on_report, &r);
    CHECK(etl_tmf_add_text(s, text, strlen(text), "u.tmf", NULL) == ETL_OK);
    CHECK_EQ_U(r.warnings, 2);
    CHECK_EQ_U(r.errors, 0);
    etl_guid g = guid_of("11111111-2222-3333-4444-555555555555");
    etl_tmf_message *m = etl_tmf_find(s, &g, 1);
    CHECK(m && m->items[1].kind == ETL_TMF_UNKNOWN && strcmp(m->items[1].type, "ItemMagic") == 0);
    etl_schema_builder b;
    etl_schema_builder_init(&b, NULL);
    etl_schema_cache *cache = etl_schema_cache_new(NULL);
    const etl_schema *sc = NULL;
    etl_error err;
    if (m) {
        CHECK(etl_tmf_schema(cache, &b, m, 8, &sc, &err) == ETL_OK);
        CHECK(sc && !sc->complete && sc->field_count == 1);
        CHECK(sc && etl_schema_reason(sc) && strstr(etl_schema_reason(sc), "ItemMagic") != NULL);
        CHECK(sc && strcmp(etl_schema_event_name(sc), "F") == 0 && sc->source == ETL_SCHEMA_WPP);
    }
    m = etl_tmf_find(s, &g, 2);
    CHECK(m && m->items[0].list_count == 3);
    if (m && m->items[0].list_count == 3) {
        CHECK_STR(m->items[0].list[0], "Low");
        CHECK_STR(m->items[0].list[1], "APC");
        CHECK_STR(m->items[0].list[2], "DPC");
        CHECK(etl_tmf_schema(cache, &b, m, 4, &sc, &err) == ETL_OK);
        CHECK(sc && sc->complete && (sc->steps[0].flags & ETL_STEP_MAP) && sc->steps[0].in_type == ETL_IN_UINT8);
        /* compiled once per pointer size: the second call is the same schema */
        const etl_schema *again = NULL;
        CHECK(etl_tmf_schema(cache, &b, m, 4, &again, &err) == ETL_OK && again == sc);
        CHECK_STR(m->type_name, "x_c2"); /* the first definition was kept */
    }
    m = etl_tmf_find(s, &g, 3);
    CHECK(m && m->format[0] == '\0' && m->source_line == 4); /* an empty format string */
    etl_schema_cache_free(cache);
    etl_schema_builder_free(&b);
    etl_tmf_store_free(s);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_tmf SHARED_TMF_DIR\n");
        return 2;
    }
    test_shared(argv[1]);
    test_damaged();
    test_path();
    test_unknown_and_duplicates();
    CHECK_MAIN_END();
}
