/* Unit tests of decoder/schema/wevt (pe.c, msgtable.c, bxml.c, crim.c, wevt.c), the
 * well-known provider table, and provider binaries on the registry's search path:
 *   - libfwevt's manifest.1 (a bare CRIM blob) is the one provider its project's tests describe:
 *     06a2ea53-fc6c-42e5-9176-18749ab2ca13 with 1 event, 1 template (metric_name UnicodeString,
 *     metric_value Int32) and no channels, keywords, levels, maps, opcodes or tasks; the same blob
 *     in a synthetic PE32 and PE32+ with a MESSAGETABLE gets its event message from there;
 *   - clretwrc.dll: the four CLR providers, and every event it defines agrees with
 *     dotnet_ClrEtwAll.man in task, opcode and level names and in every template property
 *     (name, types, struct shape, counts and lengths, maps) - except the maps the 2016 binary
 *     has fewer entries in, listed;
 *   - damage: every truncation of a PE, a resource loop, data past the end, absurd counts, a
 *     broken and a too-deep binary XML: refused with the offset, never a crash;
 *   - the registry: a folder of binaries is indexed without reading templates, a binary is read
 *     when its provider is first looked up, a damaged binary is reported once by name and the
 *     rest load, path order decides, and a binary and a manifest that disagree are named both.
 * Usage: test_wevt WEVT_DIR MANIFEST_DIR */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>

#include "bxml.h"
#include "check.h"
#include "crim.h"
#include "etl_format.h"
#include "known_providers.h"
#include "manifest.h"
#include "mf_schema.h"
#include "msgtable.h"
#include "pe.h"
#include "pe_build.h"
#include "registry.h"
#include "wevt.h"

static const char *wevt_dir, *manifest_dir;
static GString *reports;

static void on_report(void *ctx, etl_registry_severity sev, const char *msg)
{
    (void)ctx;
    g_string_append_printf(reports, "%d:%s\n", (int)sev, msg);
}

static GBytes *read_shared(const char *dir, const char *name)
{
    char *path = g_build_filename(dir, name, NULL), *data = NULL;
    gsize len = 0;
    CHECK(g_file_get_contents(path, &data, &len, NULL));
    g_free(path);
    return g_bytes_new_take(data, len);
}

static void check_manifest1(const etl_manifest *m, const char *message)
{
    CHECK_EQ_U(etl_manifest_provider_count(m), 1);
    const etl_mf_provider *p = etl_manifest_provider(m, 0);
    if (!p)
        return;
    char g[ETL_GUID_STR_SIZE];
    etl_format_guid(&p->guid, g);
    CHECK_STR(g, "06a2ea53-fc6c-42e5-9176-18749ab2ca13");
    CHECK_EQ_U(p->event_count, 1);
    CHECK_EQ_U(p->template_count, 1);
    CHECK_EQ_U(p->channel_count + p->keyword_count + p->level_count + p->map_count + p->opcode_count + p->task_count, 0);
    CHECK(p->name == NULL); /* neither the blob nor the well-known table names it */
    if (p->event_count != 1 || p->template_count != 1)
        return;
    const etl_mf_event *e = &p->events[0];
    CHECK_EQ_U(e->id, 1);
    CHECK_EQ_U(e->version, 1);
    CHECK(e->tmpl == &p->templates[0]);
    const etl_mf_template *t = &p->templates[0];
    CHECK_EQ_U(t->prop_count, 2);
    if (t->prop_count == 2) {
        CHECK_STR(t->props[0].name, "metric_name");
        CHECK_EQ_U(t->props[0].in_type, 1); /* win:UnicodeString */
        CHECK_STR(t->props[1].name, "metric_value");
        CHECK_EQ_U(t->props[1].in_type, 7); /* win:Int32 */
    }
    if (message)
        CHECK(e->message && strcmp(e->message, message) == 0);
    else
        CHECK(e->message == NULL);
    /* and it compiles into a program like any manifest event */
    etl_schema_builder b;
    etl_schema_builder_init(&b, NULL);
    etl_error err;
    CHECK_EQ_U(etl_mf_compile(&b, p, e, 8, "manifest.1", &err), ETL_OK);
    etl_schema_builder_free(&b);
}

static void test_manifest1(void)
{
    GBytes *blob = read_shared(wevt_dir, "libfwevt_manifest.1");
    gsize n;
    const uint8_t *d = g_bytes_get_data(blob, &n);
    etl_guid guids[4];
    uint32_t count = 0;
    etl_error err;
    CHECK_EQ_U(etl_crim_provider_guids(d, n, 0, guids, 4, &count, &err), ETL_OK);
    CHECK_EQ_U(count, 1);
    etl_manifest *m = NULL;
    CHECK_EQ_U(etl_wevt_load_memory(d, n, "manifest.1", NULL, &m, &err), ETL_OK);
    check_manifest1(m, NULL);
    etl_manifest_free(m);

    /* in a PE (both widths), with the event's message (id 0xB0010001) in a MESSAGETABLE */
    static const uint32_t ids[] = {0xB0010001u};
    static const char *const texts[] = {"metric %1 is %2"};
    GByteArray *msgs = pe_build_messages(ids, texts, 1);
    for (int wide = 0; wide < 2; wide++) {
        GByteArray *img = pe_build_image(d, n, msgs, wide, NULL);
        etl_pe pe;
        CHECK_EQ_U(etl_pe_open(&pe, img->data, img->len, &err), ETL_OK);
        CHECK(pe.pe32plus == (wide == 1));
        CHECK_EQ_U(etl_wevt_load_memory(img->data, img->len, "built.dll", NULL, &m, &err), ETL_OK);
        check_manifest1(m, "metric %1 is %2");
        etl_manifest_free(m);
        g_byte_array_unref(img);
    }
    g_byte_array_unref(msgs);
    g_bytes_unref(blob);
}

/* ---- clretwrc.dll against the XML manifest it was compiled from -------------------------------- */

static uint16_t effective_out(const etl_mf_property *p)
{
    static const uint8_t def[] = {0, 1, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 14, 19, 2, 2, 1, 18, 19, 1, 1, 0, 15};
    return p->out_type ? p->out_type : p->in_type < sizeof def ? def[p->in_type] : 0;
}

static bool same_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static const etl_mf_provider *find_provider(const etl_manifest *m, const etl_guid *g)
{
    for (uint32_t i = 0; i < etl_manifest_provider_count(m); i++)
        if (etl_guid_equal(&etl_manifest_provider(m, i)->guid, g))
            return etl_manifest_provider(m, i);
    return NULL;
}

/* Maps of the 2016 binary with fewer entries than the newer XML (each checked to be a subset):
 * flags added to the runtime after 2016 (ReadyToRunModule, ...). */
static bool older_map(const char *name)
{
    static const char *const older[] = {"MethodFlagsMap", "ModuleFlagsMap", "ILStubGeneratedFlagsMap", "TypeFlagsMap"};
    for (size_t i = 0; name && i < G_N_ELEMENTS(older); i++)
        if (strcmp(name, older[i]) == 0)
            return true;
    return false;
}

static unsigned compare_maps(const etl_mf_provider *bp, const char *bn, const etl_mf_provider *xp, const char *xn)
{
    const etl_mf_map *b = etl_mf_find_map(bp, bn), *x = etl_mf_find_map(xp, xn);
    if (!b || !x)
        return !b != !x;
    if (b->is_bitmap != x->is_bitmap)
        return 1;
    unsigned bad = 0;
    /* every entry of the binary's map is the XML's; the XML may have more only for the listed maps */
    for (uint32_t i = 0; i < b->entry_count; i++) {
        bool found = false;
        for (uint32_t k = 0; k < x->entry_count && !found; k++)
            found = x->entries[k].value == b->entries[i].value && same_str(x->entries[k].text, b->entries[i].text);
        bad += !found;
    }
    if (b->entry_count != x->entry_count && !older_map(bn))
        bad++;
    if (bad)
        fprintf(stderr, "map %s: %u of %u entries not in the XML's %u\n", bn, bad, b->entry_count, x->entry_count);
    return bad;
}

static void test_clr(void)
{
    char *path = g_build_filename(wevt_dir, "clretwrc.dll", NULL);
    etl_guid *guids = NULL;
    uint32_t count = 0;
    etl_error err;
    CHECK_EQ_U(etl_wevt_index_file(path, &guids, &count, &err), ETL_OK);
    CHECK_EQ_U(count, 4);
    char g[ETL_GUID_STR_SIZE];
    if (count == 4) {
        etl_format_guid(&guids[0], g);
        CHECK_STR(g, "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
        etl_format_guid(&guids[3], g);
        CHECK_STR(g, "763fd754-7086-4dfe-95eb-c01a46faf4ca");
    }
    g_free(guids);
    etl_manifest *bin = NULL, *xml = NULL;
    CHECK_EQ_U(etl_wevt_load_file(path, &bin, &err), ETL_OK);
    char *man = g_build_filename(manifest_dir, "dotnet_ClrEtwAll.man", NULL);
    CHECK_EQ_U(etl_manifest_load_file(man, &xml, &err), ETL_OK);
    if (!bin || !xml)
        goto out;
    CHECK_EQ_U(etl_manifest_provider_count(bin), 4);
    static const char *const names[] = {"Microsoft-Windows-DotNETRuntime", "Microsoft-Windows-DotNETRuntimeRundown",
                                        "Microsoft-Windows-DotNETRuntimeStress", "Microsoft-Windows-DotNETRuntimePrivate"};
    unsigned compared = 0, props = 0, bad = 0, maps_bad = 0;
    GString *by_symbol = g_string_new(NULL), *differ = g_string_new(NULL);
    for (uint32_t i = 0; i < etl_manifest_provider_count(bin) && i < 4; i++) {
        const etl_mf_provider *bp = etl_manifest_provider(bin, i), *xp = find_provider(xml, &bp->guid);
        CHECK_STR(bp->name ? bp->name : "", names[i]);
        CHECK(xp != NULL);
        if (!xp)
            continue;
        for (uint32_t k = 0; k < bp->event_count; k++) {
            const etl_mf_event *be = &bp->events[k], *xe = etl_mf_find_event(xp, be->id, be->version);
            if (!xe)
                continue; /* the 2016 binary has events the XML dropped? none expected */
            compared++;
            bool ok = same_str(be->task_name, xe->task_name) && same_str(be->opcode_name, xe->opcode_name) &&
                      same_str(be->level_name, xe->level_name) && be->task == xe->task && be->opcode == xe->opcode &&
                      be->level == xe->level && be->keywords == xe->keywords && !be->tmpl == !xe->tmpl;
            char bn[ETL_MF_MAX_EVENT_NAME], xn[ETL_MF_MAX_EVENT_NAME];
            etl_mf_event_display_name(be, bn, sizeof bn);
            etl_mf_event_display_name(xe, xn, sizeof xn);
            if (strcmp(bn, xn) != 0 && !xe->task_name && xe->symbol) {
                /* an event without a task is named by its symbol, which a binary does not keep */
                char want[32];
                snprintf(want, sizeof want, "EventID(%u)", be->id);
                CHECK_STR(bn, want);
                g_string_append_printf(by_symbol, "%s%u", by_symbol->len ? " " : "", be->id);
            } else {
                ok = ok && strcmp(bn, xn) == 0;
            }
            if (ok && be->tmpl) {
                ok = be->tmpl->prop_count == xe->tmpl->prop_count;
                for (uint32_t q = 0; ok && q < be->tmpl->prop_count; q++) {
                    const etl_mf_property *a = &be->tmpl->props[q], *x = &xe->tmpl->props[q];
                    props++;
                    ok = same_str(a->name, x->name) && a->in_type == x->in_type && effective_out(a) == effective_out(x) &&
                         a->is_struct == x->is_struct && a->member_count == x->member_count &&
                         a->has_count == x->has_count && a->count == x->count && a->count_ref == x->count_ref &&
                         a->has_length == x->has_length && a->length == x->length && a->length_ref == x->length_ref &&
                         same_str(a->map_name, x->map_name);
                    maps_bad += compare_maps(bp, a->map_name, xp, x->map_name);
                }
            }
            if (!ok) {
                bad++;
                g_string_append_printf(differ, "%s%u/%u", differ->len ? " " : "", be->id, be->version);
            }
        }
    }
    /* the one event the 2016 binary defines otherwise: 270 (EventSource) has opcode win:Start and
     * no keyword there, Info and EventSourceKeyword in the XML; having no task, the XML names it
     * by its symbol, which the binary does not keep */
    CHECK_EQ_U(bad, 1);
    CHECK_STR(differ->str, "270/0");
    CHECK_STR(by_symbol->str, "270");
    CHECK_EQ_U(maps_bad, 0);
    g_string_free(by_symbol, TRUE);
    g_string_free(differ, TRUE);
    CHECK_EQ_U(compared, 397); /* of 168 + 45 + 3 + 181 events in the binary, those the XML has */
    CHECK_EQ_U(props, 1471);
out:
    etl_manifest_free(bin);
    etl_manifest_free(xml);
    g_free(man);
    g_free(path);
}

/* ---- damage ----------------------------------------------------------------------------------- */

static etl_status load(const GByteArray *img, etl_error *err)
{
    etl_manifest *m = NULL;
    etl_status st = etl_wevt_load_memory(img->data, img->len, "damaged.dll", NULL, &m, err);
    etl_manifest_free(m);
    return st;
}

static void test_damage(void)
{
    GBytes *blob = read_shared(wevt_dir, "libfwevt_manifest.1");
    gsize n;
    const uint8_t *crim = g_bytes_get_data(blob, &n);
    pe_build_layout l;
    GByteArray *good = pe_build_image(crim, n, NULL, true, &l);
    etl_error err;
    CHECK_EQ_U(load(good, &err), ETL_OK);

    /* every truncation: refused (an error, never a crash), except the padding after the data */
    unsigned refused = 0;
    for (size_t len = 0; len < l.crim + n; len++) {
        GByteArray *cut = g_byte_array_sized_new((guint)len);
        g_byte_array_append(cut, good->data, (guint)len);
        refused += load(cut, &err) != ETL_OK;
        g_byte_array_unref(cut);
    }
    CHECK_EQ_U(refused, l.crim + n);
    GByteArray *cut = g_byte_array_sized_new(0x100);
    g_byte_array_append(cut, good->data, 0x100);
    CHECK_EQ_U(load(cut, &err), ETL_ERR_TRUNCATED);
    CHECK(err.offset == l.nt + 24 && strstr(err.message, "optional header"));
    g_byte_array_unref(cut);

#define DAMAGED(edit, want_status, want_text)                                           \
    do {                                                                                \
        GByteArray *b = g_byte_array_sized_new(good->len);                              \
        g_byte_array_append(b, good->data, good->len);                                  \
        edit;                                                                           \
        etl_status st_ = load(b, &err);                                                 \
        CHECK_EQ_U(st_, want_status);                                                   \
        if (!strstr(err.message, want_text))                                            \
            fprintf(stderr, "message: %s\n", err.message);                              \
        CHECK(strstr(err.message, want_text) != NULL);                                  \
        g_byte_array_unref(b);                                                          \
    } while (0)

    /* the name directory's entry points back at the type directory: a loop */
    DAMAGED(pe_put32(b, l.type_dir[0] + 20, 0x80000000u | (uint32_t)(l.type_dir[0] - l.rsrc)), ETL_ERR_CORRUPT, "loop");
    /* ... or at the root */
    DAMAGED(pe_put32(b, l.type_dir[0] + 20, 0x80000000u), ETL_ERR_CORRUPT, "loop");
    /* the data past the end of the file */
    DAMAGED(pe_put32(b, l.data_entry[0], 0x7FFF0000u), ETL_ERR_TRUNCATED, "not inside the file");
    DAMAGED(pe_put32(b, l.data_entry[0] + 4, 0x10000000u), ETL_ERR_TRUNCATED, "not inside the file");
    /* absurd counts: resource entries, sections, CRIM providers, template properties */
    DAMAGED(pe_put16(b, l.rsrc + 14, 0xFFFF), ETL_ERR_LIMIT, "entries");
    DAMAGED(pe_put16(b, l.nt + 6, 0xFFFF), ETL_ERR_LIMIT, "sections");
    DAMAGED(pe_put32(b, l.crim + 12, 0x7FFFFFFFu), ETL_ERR_LIMIT, "providers");
    DAMAGED(pe_put32(b, l.crim + 0x78 + 12, 0x00FFFFFFu), ETL_ERR_LIMIT, "properties");
    /* an element offset and a name offset past the end */
    DAMAGED(pe_put32(b, l.crim + 0x38, 0x00FFFFFFu), ETL_ERR_TRUNCATED, "past the end");
    DAMAGED(pe_put32(b, l.crim + 0x168, 0x00FFFFFFu), ETL_ERR_TRUNCATED, "name");
    /* a binary XML token no template uses */
    DAMAGED(b->data[l.crim + 0xA4] = 0x55, ETL_ERR_CORRUPT, "binary XML token 0x55");
    /* not a PE at all */
    DAMAGED(b->data[0] = 'X', ETL_ERR_NOT_ETL, "not a PE");
#undef DAMAGED
    /* every error names the offset in the file */
    GByteArray *b = g_byte_array_sized_new(good->len);
    g_byte_array_append(b, good->data, good->len);
    pe_put32(b, l.crim + 12, 0x7FFFFFFFu);
    CHECK(load(b, &err) != ETL_OK && err.offset == l.crim + 12);
    g_byte_array_unref(b);

    /* binary XML nested deeper than the limit */
    GByteArray *deep = g_byte_array_new();
    static const uint8_t header[] = {0x0F, 1, 1, 0};
    static const uint8_t open[] = {0x01, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 1, 0, 'a', 0, 0, 0, 0x02};
    g_byte_array_append(deep, header, sizeof header);
    for (unsigned i = 0; i <= ETL_BXML_MAX_DEPTH; i++)
        g_byte_array_append(deep, open, sizeof open);
    etl_bxml_info info;
    CHECK_EQ_U(etl_bxml_scan(deep->data, deep->len, 0x1000, &info, &err), ETL_ERR_LIMIT);
    CHECK(strstr(err.message, "nested deeper") != NULL && err.offset == 0x1000 + 4 + ETL_BXML_MAX_DEPTH * sizeof open);
    /* ... and one level less reads, once closed */
    g_byte_array_set_size(deep, 4 + ETL_BXML_MAX_DEPTH * sizeof open);
    for (unsigned i = 0; i < ETL_BXML_MAX_DEPTH; i++)
        g_byte_array_append(deep, (const uint8_t *)"\x04", 1);
    g_byte_array_append(deep, (const uint8_t *)"", 1);
    CHECK_EQ_U(etl_bxml_scan(deep->data, deep->len, 0, &info, &err), ETL_OK);
    CHECK_EQ_U(info.depth, ETL_BXML_MAX_DEPTH);
    CHECK_STR(info.root, "a");
    g_byte_array_unref(deep);

    /* a message table whose block runs past its end */
    static const uint32_t ids[] = {7};
    static const char *const texts[] = {"seven"};
    GByteArray *msgs = pe_build_messages(ids, texts, 1);
    etl_msgtable *t = etl_msgtable_new();
    CHECK_EQ_U(etl_msgtable_merge(t, msgs->data, msgs->len, 0, &err), ETL_OK);
    CHECK_STR(etl_msgtable_get(t, 7), "seven");
    CHECK_EQ_U(etl_msgtable_merge(t, msgs->data, msgs->len - 4, 0x500, &err), ETL_ERR_TRUNCATED);
    pe_put32(msgs, 8, 0xFFFFFFFFu); /* HighId: four billion messages */
    CHECK_EQ_U(etl_msgtable_merge(t, msgs->data, msgs->len, 0, &err), ETL_ERR_LIMIT);
    etl_msgtable_free(t);
    g_byte_array_unref(msgs);

    g_byte_array_unref(good);
    g_bytes_unref(blob);
}

/* ---- the registry ------------------------------------------------------------------------------ */

static void put_file(const char *dir, const char *name, const void *data, size_t len)
{
    char *path = g_build_filename(dir, name, NULL);
    CHECK(g_file_set_contents(path, data, (gssize)len, NULL));
    g_free(path);
}

static void test_registry(void)
{
    char *tmp = g_dir_make_tmp("test_wevt_XXXXXX", NULL);
    char *sub = g_build_filename(tmp, "System32", "drivers", NULL);
    g_mkdir_with_parents(sub, 0700);
    GBytes *clr = read_shared(wevt_dir, "clretwrc.dll"), *blob = read_shared(wevt_dir, "libfwevt_manifest.1");
    gsize n, bn;
    const uint8_t *d = g_bytes_get_data(clr, &n), *crim = g_bytes_get_data(blob, &bn);
    put_file(sub, "clretwrc.dll", d, n);
    /* a binary without a schema, a damaged one, a text file named .sys */
    GByteArray *plain = pe_build_image(NULL, 0, NULL, false, NULL);
    put_file(tmp, "plain.dll", plain->data, plain->len);
    pe_build_layout l;
    GByteArray *loop = pe_build_image(crim, bn, NULL, true, &l);
    pe_put32(loop, l.type_dir[0] + 20, 0x80000000u);
    put_file(tmp, "loop.exe", loop->data, loop->len);
    put_file(tmp, "notes.sys", "not a binary", 12);

    etl_schema_cache *c = etl_schema_cache_new(NULL);
    reports = g_string_new(NULL);
    etl_registry *s = etl_registry_new(c, on_report, NULL);
    char *path = g_strconcat(tmp, ETL_REGISTRY_RECURSIVE_SUFFIX, NULL);
    CHECK(etl_registry_add_path(s, path) != ETL_OK); /* two binaries refused ... */
    const etl_registry_stats *st = etl_registry_get_stats(s);
    CHECK_EQ_U(st->binaries_failed, 2);
    CHECK(strstr(reports->str, "loop.exe") && strstr(reports->str, "loop"));
    CHECK(strstr(reports->str, "notes.sys") && strstr(reports->str, "not a PE"));
    CHECK_EQ_U(st->binaries_without_schema, 1); /* ... one has no schema, quietly */
    CHECK_EQ_U(st->binaries_indexed, 1);        /* ... and the CLR's is indexed, not read */
    CHECK_EQ_U(st->binaries_read, 0);
    etl_guid rt;
    etl_parse_guid("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", &rt);
    const etl_schema *sc;
    etl_error err;
    CHECK_EQ_U(etl_registry_lookup_key(s, &rt, 1, 2, 8, &sc, &err), ETL_OK); /* GCStart_V2 */
    CHECK_EQ_U(st->binaries_read, 1);
    CHECK_STR(etl_schema_event_name(sc), "GC/Start");
    CHECK(strstr(etl_schema_str(sc, sc->origin), "clretwrc.dll") != NULL);
    CHECK_STR(etl_registry_provider_name(s, &rt), "Microsoft-Windows-DotNETRuntime");
    etl_registry_free(s);

    /* without the recursive form, the subfolder is not searched */
    s = etl_registry_new(c, on_report, NULL);
    etl_registry_add_path(s, tmp);
    CHECK_EQ_U(etl_registry_get_stats(s)->binaries_indexed, 0);
    etl_registry_free(s);

    /* the manifest first, then the binary: the manifest wins, and their differences (the 2016
     * binary's maps have fewer entries) are reported naming both */
    g_string_truncate(reports, 0);
    s = etl_registry_new(c, on_report, NULL);
    char *man = g_build_filename(manifest_dir, "dotnet_ClrEtwAll.man", NULL);
    char *bin = g_build_filename(sub, "clretwrc.dll", NULL);
    char *both = g_strjoin(G_SEARCHPATH_SEPARATOR_S, man, bin, NULL);
    CHECK_EQ_U(etl_registry_add_path(s, both), ETL_OK);
    CHECK(strstr(reports->str, "dotnet_ClrEtwAll.man and ") && strstr(reports->str, "clretwrc.dll define"));
    CHECK_EQ_U(etl_registry_lookup_key(s, &rt, 1, 2, 8, &sc, &err), ETL_OK);
    CHECK(strstr(etl_schema_str(sc, sc->origin), "dotnet_ClrEtwAll.man") != NULL);
    etl_registry_free(s);
    /* the other order: the binary wins where it defines the key; the manifest serves the rest */
    s = etl_registry_new(c, on_report, NULL);
    char *rev = g_strjoin(G_SEARCHPATH_SEPARATOR_S, bin, man, NULL);
    CHECK_EQ_U(etl_registry_add_path(s, rev), ETL_OK);
    CHECK_EQ_U(etl_registry_lookup_key(s, &rt, 1, 2, 8, &sc, &err), ETL_OK);
    CHECK(strstr(etl_schema_str(sc, sc->origin), "clretwrc.dll") != NULL);
    CHECK_EQ_U(etl_registry_lookup_key(s, &rt, 205, 3, 8, &sc, &err), ETL_OK); /* v3: newer than the binary */
    CHECK(strstr(etl_schema_str(sc, sc->origin), "dotnet_ClrEtwAll.man") != NULL);
    etl_registry_free(s);

    g_free(rev);
    g_free(both);
    g_free(bin);
    g_free(man);
    g_free(path);
    g_byte_array_unref(plain);
    g_byte_array_unref(loop);
    etl_schema_cache_free(c);
    g_bytes_unref(clr);
    g_bytes_unref(blob);
    /* clean up */
    const char *rm[] = {"plain.dll", "loop.exe", "notes.sys"};
    for (size_t i = 0; i < G_N_ELEMENTS(rm); i++) {
        char *f = g_build_filename(tmp, rm[i], NULL);
        g_remove(f);
        g_free(f);
    }
    char *f = g_build_filename(sub, "clretwrc.dll", NULL);
    g_remove(f);
    g_free(f);
    g_rmdir(sub);
    char *s32 = g_build_filename(tmp, "System32", NULL);
    g_rmdir(s32);
    g_free(s32);
    g_rmdir(tmp);
    g_free(sub);
    g_free(tmp);
    g_string_free(reports, TRUE);
}

/* The message strings from the language file beside the binary (`en-US/name.dll.mui`, any case),
 * and a damaged one named in the error. */
static void test_mui(void)
{
    GBytes *blob = read_shared(wevt_dir, "libfwevt_manifest.1");
    gsize n;
    const uint8_t *crim = g_bytes_get_data(blob, &n);
    char *tmp = g_dir_make_tmp("test_wevt_mui_XXXXXX", NULL), *lang = g_build_filename(tmp, "EN-us", NULL);
    g_mkdir(lang, 0700);
    GByteArray *img = pe_build_image(crim, n, NULL, true, NULL);
    put_file(tmp, "Metric.dll", img->data, img->len);
    static const uint32_t ids[] = {0xB0010001u};
    static const char *const texts[] = {"metric %1 is %2 (from the .mui)"};
    GByteArray *msgs = pe_build_messages(ids, texts, 1);
    GByteArray *mui = pe_build_image(NULL, 0, msgs, true, NULL);
    put_file(lang, "metric.DLL.mui", mui->data, mui->len);
    char *path = g_build_filename(tmp, "Metric.dll", NULL);
    etl_manifest *m = NULL;
    etl_error err;
    CHECK_EQ_U(etl_wevt_load_file(path, &m, &err), ETL_OK);
    check_manifest1(m, "metric %1 is %2 (from the .mui)");
    etl_manifest_free(m);
    /* a damaged .mui: the binary is refused, and the error names the .mui */
    pe_put16(mui, 0x40 + 6, 0xFFFF);
    put_file(lang, "metric.DLL.mui", mui->data, mui->len);
    CHECK(etl_wevt_load_file(path, &m, &err) != ETL_OK);
    CHECK(strstr(err.message, "metric.DLL.mui") && strstr(err.message, "sections"));
    char *f = g_build_filename(lang, "metric.DLL.mui", NULL);
    g_remove(f);
    g_free(f);
    g_remove(path);
    g_rmdir(lang);
    g_rmdir(tmp);
    g_free(path);
    g_free(lang);
    g_free(tmp);
    g_byte_array_unref(img);
    g_byte_array_unref(mui);
    g_byte_array_unref(msgs);
    g_bytes_unref(blob);
}

/* ---- the well-known providers -------------------------------------------------------------------- */

static void test_known(void)
{
    /* every entry parses, and agrees with every shared manifest that names the same GUID */
    unsigned n = etl_known_provider_count(), checked = 0;
    CHECK(n > 50);
    GDir *d = g_dir_open(manifest_dir, 0, NULL);
    const char *f;
    GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    while (d && (f = g_dir_read_name(d))) {
        char *path = g_build_filename(manifest_dir, f, NULL);
        etl_manifest *m = NULL;
        etl_error err;
        if (etl_manifest_load_file(path, &m, &err) == ETL_OK)
            for (uint32_t i = 0; i < etl_manifest_provider_count(m); i++) {
                char g[ETL_GUID_STR_SIZE];
                const etl_mf_provider *p = etl_manifest_provider(m, i);
                etl_format_guid(&p->guid, g);
                if (p->name)
                    g_hash_table_replace(names, g_strdup(g), g_strdup(p->name));
            }
        etl_manifest_free(m);
        g_free(path);
    }
    if (d)
        g_dir_close(d);
    for (unsigned i = 0; i < n; i++) {
        const char *gs, *name;
        etl_known_provider_at(i, &gs, &name);
        etl_guid g;
        CHECK(etl_parse_guid(gs, &g));
        CHECK_STR(etl_known_provider_name(&g), name);
        const char *in_manifest = g_hash_table_lookup(names, gs);
        if (in_manifest) {
            CHECK_STR(in_manifest, name);
            checked++;
        }
    }
    CHECK(checked >= 12);
    g_hash_table_destroy(names);
    etl_guid none;
    etl_parse_guid("00000000-0000-0000-0000-000000000001", &none);
    CHECK(etl_known_provider_name(&none) == NULL);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_wevt WEVT_DIR MANIFEST_DIR\n");
        return 2;
    }
    wevt_dir = argv[1];
    manifest_dir = argv[2];
    test_manifest1();
    test_clr();
    test_damage();
    test_registry();
    test_mui();
    test_known();
    CHECK_MAIN_END();
}
