/* Unit tests of the manifest loader on the shared manifests and on hand-written XML. */
#include <glib.h>

#include "check.h"
#include "etl_format.h"
#include "manifest.h"

static const etl_mf_provider *by_name(const etl_manifest *m, const char *name)
{
    for (uint32_t i = 0; i < etl_manifest_provider_count(m); i++)
        if (strcmp(etl_manifest_provider(m, i)->name, name) == 0)
            return etl_manifest_provider(m, i);
    return NULL;
}

static void test_clr(const char *dir)
{
    char *path = g_build_filename(dir, "dotnet_ClrEtwAll.man", NULL);
    etl_manifest *m;
    etl_error e;
    CHECK(etl_manifest_load_file(path, &m, &e) == ETL_OK);
    g_free(path);
    if (!m)
        return;
    CHECK(etl_manifest_provider_count(m) >= 3);
    const etl_mf_provider *p = by_name(m, "Microsoft-Windows-DotNETRuntime");
    CHECK(p != NULL);
    if (!p)
        return;
    char g[ETL_GUID_STR_SIZE];
    etl_format_guid(&p->guid, g);
    CHECK_STR(g, "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
    /* GCStart_V2: task GarbageCollection shown as its message "GC", opcode win:Start */
    const etl_mf_event *ev = etl_mf_find_event(p, 1, 2);
    CHECK(ev != NULL);
    if (ev) {
        CHECK_STR(ev->symbol, "GCStart_V2");
        CHECK_EQ_U(ev->task, 1);
        CHECK_STR(ev->task_name, "GC");
        CHECK_EQ_U(ev->opcode, 1);
        CHECK_STR(ev->opcode_name, "Start");
        CHECK_EQ_U(ev->level, 4);
        CHECK(ev->keywords != 0);
        CHECK(ev->tmpl != NULL && strcmp(ev->tmpl->tid, "GCStart_V2") == 0);
        CHECK(ev->message != NULL && strstr(ev->message, "%1") != NULL);
    }
    /* GCCreateSegment_V1: an opcode declared inside the task, its display from the string table;
     * the template's third property maps through GCSegmentTypeMap */
    ev = etl_mf_find_event(p, 5, 1);
    CHECK(ev != NULL);
    if (ev && ev->tmpl) {
        CHECK_EQ_U(ev->opcode, 134);
        CHECK_STR(ev->opcode_name, "CreateSegment");
        CHECK_EQ_U(ev->tmpl->prop_count, 4);
        CHECK_STR(ev->tmpl->props[0].name, "Address");
        CHECK_EQ_U(ev->tmpl->props[0].in_type, 10);
        CHECK_EQ_U(ev->tmpl->props[0].out_type, 19);
        CHECK_STR(ev->tmpl->props[2].map_name, "GCSegmentTypeMap");
        const etl_mf_map *map = etl_mf_find_map(p, "GCSegmentTypeMap");
        CHECK(map && !map->is_bitmap && map->entry_count == 3);
        if (map)
            CHECK_STR(map->entries[0].text, "SmallObjectHeap");
    }
    /* every event of every provider found its template when it names one */
    uint32_t missing = 0, events = 0;
    for (uint32_t i = 0; i < etl_manifest_provider_count(m); i++) {
        const etl_mf_provider *q = etl_manifest_provider(m, i);
        for (uint32_t k = 0; k < q->event_count; k++, events++)
            if (q->events[k].template_tid && !q->events[k].tmpl)
                missing++;
    }
    CHECK(events > 300);
    CHECK_EQ_U(missing, 0);
    etl_manifest_free(m);
}

/* Every shared manifest loads; length= naming a property resolves to that property. */
static void test_all(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    int loaded = 0, files = 0, refs = 0;
    while (d && (name = g_dir_read_name(d))) {
        if (!g_str_has_suffix(name, ".xml") && !g_str_has_suffix(name, ".man"))
            continue;
        files++;
        char *path = g_build_filename(dir, name, NULL);
        etl_manifest *m;
        etl_error e;
        etl_status st = etl_manifest_load_file(path, &m, &e);
        if (st != ETL_OK)
            fprintf(stderr, "%s: %s\n", name, e.message);
        CHECK(st == ETL_OK);
        loaded += st == ETL_OK;
        for (uint32_t i = 0; m && i < etl_manifest_provider_count(m); i++) {
            const etl_mf_provider *p = etl_manifest_provider(m, i);
            for (uint32_t t = 0; t < p->template_count; t++)
                for (uint32_t k = 0; k < p->templates[t].prop_count; k++) {
                    const etl_mf_property *pr = &p->templates[t].props[k];
                    if (pr->length_ref != ETL_MF_NO_REF) {
                        refs++;
                        CHECK(pr->length_ref < k);
                    }
                }
        }
        etl_manifest_free(m);
        g_free(path);
    }
    if (d)
        g_dir_close(d);
    CHECK(files >= 18);
    CHECK_EQ_U(loaded, files);
    CHECK(refs > 10);
}

/* ---- the fast reader against GMarkup ---------------------------------------------------- */

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_named(const etl_mf_named *a, const etl_mf_named *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!same_str(a[i].name, b[i].name) || !same_str(a[i].display, b[i].display) || a[i].value != b[i].value ||
            a[i].task != b[i].task || a[i].task_scoped != b[i].task_scoped)
            return false;
    return true;
}

static bool same_prop(const etl_mf_property *a, const etl_mf_property *b)
{
    return same_str(a->name, b->name) && a->in_type == b->in_type && a->out_type == b->out_type &&
           a->is_struct == b->is_struct && a->member_count == b->member_count && a->length == b->length &&
           a->length_ref == b->length_ref && a->has_length == b->has_length && a->count == b->count &&
           a->count_ref == b->count_ref && a->has_count == b->has_count && same_str(a->map_name, b->map_name) &&
           a->optional == b->optional && a->rest == b->rest;
}

static bool same_event(const etl_mf_event *a, const etl_mf_event *b)
{
    return a->id == b->id && a->version == b->version && a->level == b->level && a->opcode == b->opcode &&
           a->channel == b->channel && a->task == b->task && a->keywords == b->keywords && same_str(a->name, b->name) &&
           same_str(a->symbol, b->symbol) && same_str(a->template_tid, b->template_tid) &&
           (!a->tmpl == !b->tmpl) && (!a->tmpl || same_str(a->tmpl->tid, b->tmpl->tid)) &&
           same_str(a->message, b->message) && same_str(a->task_name, b->task_name) &&
           same_str(a->opcode_name, b->opcode_name) && same_str(a->level_name, b->level_name) &&
           same_str(a->channel_name, b->channel_name) && same_str(a->keywords_name, b->keywords_name) &&
           a->source_line == b->source_line;
}

/* Every part of the model the same, source lines included. */
static bool same_manifest(const etl_manifest *x, const etl_manifest *y)
{
    if (etl_manifest_provider_count(x) != etl_manifest_provider_count(y))
        return false;
    for (uint32_t i = 0; i < etl_manifest_provider_count(x); i++) {
        const etl_mf_provider *a = etl_manifest_provider(x, i), *b = etl_manifest_provider(y, i);
        if (memcmp(&a->guid, &b->guid, sizeof a->guid) != 0 || !same_str(a->name, b->name) ||
            !same_str(a->source, b->source) || a->event_count != b->event_count ||
            a->template_count != b->template_count || a->map_count != b->map_count ||
            a->task_count != b->task_count || a->opcode_count != b->opcode_count ||
            a->level_count != b->level_count || a->keyword_count != b->keyword_count ||
            a->channel_count != b->channel_count)
            return false;
        for (uint32_t k = 0; k < a->event_count; k++)
            if (!same_event(&a->events[k], &b->events[k]))
                return false;
        for (uint32_t k = 0; k < a->template_count; k++) {
            if (!same_str(a->templates[k].tid, b->templates[k].tid) ||
                a->templates[k].prop_count != b->templates[k].prop_count)
                return false;
            for (uint32_t q = 0; q < a->templates[k].prop_count; q++)
                if (!same_prop(&a->templates[k].props[q], &b->templates[k].props[q]))
                    return false;
        }
        for (uint32_t k = 0; k < a->map_count; k++) {
            const etl_mf_map *ma = &a->maps[k], *mb = &b->maps[k];
            if (!same_str(ma->name, mb->name) || ma->is_bitmap != mb->is_bitmap || ma->entry_count != mb->entry_count)
                return false;
            for (uint32_t q = 0; q < ma->entry_count; q++)
                if (ma->entries[q].value != mb->entries[q].value || !same_str(ma->entries[q].text, mb->entries[q].text))
                    return false;
        }
        if (!same_named(a->tasks, b->tasks, a->task_count) || !same_named(a->opcodes, b->opcodes, a->opcode_count) ||
            !same_named(a->levels, b->levels, a->level_count) ||
            !same_named(a->keywords, b->keywords, a->keyword_count) ||
            !same_named(a->channels, b->channels, a->channel_count))
            return false;
    }
    return true;
}

/* One document both ways: the same status and message, and the same model. */
static void check_both(const char *xml, size_t len, const char *origin)
{
    etl_manifest *a = NULL, *b = NULL;
    etl_error ea = {0}, eb = {0};
    etl_status sa = etl_manifest_parse(xml, len, origin, &a, &ea);
    etl_status sb = etl_manifest_parse_gmarkup(xml, len, origin, &b, &eb);
    CHECK_EQ_U(sa, sb);
    if (sa != ETL_OK)
        CHECK_STR(ea.message, eb.message);
    CHECK(!a == !b);
    if (a && b && !same_manifest(a, b)) {
        fprintf(stderr, "%s: the fast reader's model differs from GMarkup's\n", origin);
        CHECK(false);
    }
    etl_manifest_free(a);
    etl_manifest_free(b);
}

static void test_fast_reader(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    int files = 0;
    while (d && (name = g_dir_read_name(d))) {
        if (!g_str_has_suffix(name, ".xml") && !g_str_has_suffix(name, ".man"))
            continue;
        char *path = g_build_filename(dir, name, NULL);
        gchar *data = NULL;
        gsize len = 0;
        if (g_file_get_contents(path, &data, &len, NULL)) {
            files++;
            check_both(data, len, path);
            /* cut short at a few places: GMarkup's errors, whichever reader goes first */
            for (gsize cut = 1; cut < len; cut += len / 7 + 1)
                check_both(data, cut, path);
        }
        g_free(data);
        g_free(path);
    }
    if (d)
        g_dir_close(d);
    CHECK(files >= 18);
    /* what the fast reader leaves to GMarkup, and what it reads itself */
    static const char *const docs[] = {
        "<instrumentationManifest><instrumentation><events>\n"
        "<provider name='P' guid='{11111111-2222-3333-4444-555555555555}'>\n"
        "<events><event value='1' version='0' message='$(string.m)'/>\n"
        "<event value=\"2\"\r\n  message=\"a&amp;b&lt;&gt;&quot;&apos;\tc\r\nd\re\"/></events>\n"
        "</provider></events></instrumentation>\n"
        "<localization><resources culture='en-US'><stringTable>\n"
        "<string id='m' value='x&#65;y'/></stringTable></resources></localization>\n"
        "</instrumentationManifest>\n",
        "<?xml version='1.0'?><!-- c --><!---->\n<a><provider guid='{11111111-2222-3333-4444-555555555555}'"
        " name='Q'><events><event value='3'/><!-- <event value='4'/> --></events></provider></a>",
        "<!DOCTYPE a><a><provider guid='{11111111-2222-3333-4444-555555555555}'/></a>",
        "<a><![CDATA[ x ]]><provider guid='{11111111-2222-3333-4444-555555555555}'/></a>",
        "<a>text &amp; more<provider guid='{11111111-2222-3333-4444-555555555555}'/></a>",
        "<a><provider guid='{11111111-2222-3333-4444-555555555555}'a='1'b='2'/></a>",
        "<a><provider guid='{11111111-2222-3333-4444-555555555555}'/></b>",
        "<a><provider guid='not a guid'/></a>",
        "<a><provider guid='{11111111-2222-3333-4444-555555555555}'><events><event value='x'/></events></provider></a>",
        "<a><provider guid='{11111111-2222-3333-4444-555555555555}' n='&bad;'/></a>",
        "<a><provider guid='{11111111-2222-3333-4444-555555555555}'/></a> trailing",
        "<a><provider guid='{11111111-2222-3333-4444-555555555555}'/></a><b/>",
        "<a><provider guid='{11111111-2222-3333-4444-555555555555}' / ></a>",
        "<a >< provider/></a>",
        "<?pi?>",
        "",
        "   ",
        "<a><provider guid='{11111111-2222-3333-4444-555555555555}'/>\xff</a>",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        check_both(docs[i], strlen(docs[i]), "doc.man");
}

static void test_handwritten(void)
{
    static const char xml[] =
        "<?xml version=\"1.0\"?>\n"
        "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n"
        " <instrumentation><events>\n"
        "  <provider name=\"T\" guid=\"{11111111-2222-3333-4444-555555555555}\">\n"
        "   <channels><channel chid=\"c1\" name=\"T/Operational\" type=\"Operational\"/>\n"
        "     <importChannel chid=\"sys\" name=\"System\"/></channels>\n"
        "   <tasks><task name=\"Work\" value=\"7\" message=\"$(string.w)\">\n"
        "     <opcodes><opcode name=\"Step\" value=\"11\"/></opcodes></task></tasks>\n"
        "   <maps><bitMap name=\"Bits\"><map value=\"0x1\" message=\"$(string.a)\"/>\n"
        "     <map value=\"0x4\" message=\"$(string.c)\"/></bitMap></maps>\n"
        "   <templates><template tid=\"t1\">\n"
        "     <data name=\"N\" inType=\"win:UInt16\"/>\n"
        "     <struct name=\"S\" count=\"N\"><data name=\"A\" inType=\"win:Pointer\"/>\n"
        "       <struct name=\"Inner\"><data name=\"B\" inType=\"win:UInt8\" map=\"Bits\"/></struct></struct>\n"
        "     <data name=\"L\" inType=\"win:UInt32\"/>\n"
        "     <data name=\"Blob\" inType=\"win:Binary\" length=\"L\"/>\n"
        "     <data name=\"Fixed\" inType=\"win:UnicodeString\" length=\"8\"/>\n"
        "     <data name=\"Odd\" inType=\"win:NoSuchType\"/>\n"
        "     <UserData><data name=\"ignored\"/></UserData>\n"
        "   </template></templates>\n"
        "   <events><event value=\"3\" version=\"1\" task=\"Work\" opcode=\"Step\" level=\"win:Warning\"\n"
        "     channel=\"c1\" template=\"t1\"/>\n"
        "     <event value=\"4\" channel=\"sys\" opcode=\"win:Receive\"/></events>\n"
        "  </provider></events></instrumentation>\n"
        " <localization><resources culture=\"en-US\"><stringTable>\n"
        "   <string id=\"w\" value=\"Working \"/><string id=\"a\" value=\"A\"/><string id=\"c\" value=\"C\"/>\n"
        " </stringTable></resources></localization>\n"
        "</instrumentationManifest>\n";
    etl_manifest *m;
    etl_error e;
    CHECK(etl_manifest_parse(xml, sizeof xml - 1, "hand.man", &m, &e) == ETL_OK);
    if (!m)
        return;
    const etl_mf_provider *p = etl_manifest_provider(m, 0);
    const etl_mf_event *ev = etl_mf_find_event(p, 3, 1);
    CHECK(ev && ev->tmpl);
    if (ev && ev->tmpl) {
        CHECK_EQ_U(ev->task, 7);
        CHECK_STR(ev->task_name, "Working"); /* trimmed */
        CHECK_EQ_U(ev->opcode, 11);
        CHECK_STR(ev->opcode_name, "Step");
        CHECK_EQ_U(ev->level, 3);
        CHECK_EQ_U(ev->channel, 16);
        const etl_mf_template *t = ev->tmpl;
        CHECK_EQ_U(t->prop_count, 9);
        CHECK(t->props[1].is_struct && t->props[1].member_count == 2 && t->props[1].count_ref == 0);
        CHECK(t->props[3].is_struct && t->props[3].member_count == 1);
        CHECK_STR(t->props[4].map_name, "Bits");
        CHECK_EQ_U(t->props[6].length_ref, 5);
        CHECK(t->props[7].has_length && t->props[7].length == 8 && t->props[7].length_ref == ETL_MF_NO_REF);
        CHECK_EQ_U(t->props[8].in_type, 0); /* unknown type kept, to become a placeholder */
    }
    ev = etl_mf_find_event(p, 4, 0);
    CHECK(ev && ev->channel == 8 && ev->opcode == 240 && strcmp(ev->opcode_name, "Receive") == 0);
    const etl_mf_map *bits = etl_mf_find_map(p, "Bits");
    CHECK(bits && bits->is_bitmap && bits->entry_count == 2);
    etl_manifest_free(m);

    /* errors name the origin and line */
    static const char bad[] = "<instrumentationManifest>\n<instrumentation><events>\n<provider name=\"x\" guid=\"{nope}\">\n";
    CHECK(etl_manifest_parse(bad, sizeof bad - 1, "bad.man", &m, &e) != ETL_OK);
    CHECK(m == NULL);
    CHECK(strstr(e.message, "bad.man:3:") != NULL && strstr(e.message, "not a GUID") != NULL);
    if (!strstr(e.message, "bad.man:3:"))
        fprintf(stderr, "got: %s\n", e.message);
    static const char broken[] = "<instrumentationManifest>\n<instrumentation>\n<events></instrumentation>";
    CHECK(etl_manifest_parse(broken, sizeof broken - 1, "broken.man", &m, &e) != ETL_OK);
    CHECK(strstr(e.message, "broken.man:3:") != NULL);
    static const char badref[] = "<instrumentationManifest><instrumentation><events>"
                                 "<provider name=\"x\" guid=\"{11111111-2222-3333-4444-555555555555}\"><templates>"
                                 "<template tid=\"t\"><data name=\"B\" inType=\"win:Binary\" length=\"Later\"/>"
                                 "</template></templates></provider></events></instrumentation></instrumentationManifest>";
    CHECK(etl_manifest_parse(badref, sizeof badref - 1, "ref.man", &m, &e) != ETL_OK);
    CHECK(strstr(e.message, "Later") != NULL);
    /* a template without tid= (found by fuzzing): loads, and the event naming it has no template */
    static const char notid[] = "<instrumentationManifest><instrumentation><events>"
                                "<provider name=\"x\" guid=\"{11111111-2222-3333-4444-555555555555}\"><templates>"
                                "<template><data name=\"A\" inType=\"win:UInt8\"/></template></templates>"
                                "<events><event value=\"1\" template=\"t\"/></events>"
                                "</provider></events></instrumentation></instrumentationManifest>";
    CHECK(etl_manifest_parse(notid, sizeof notid - 1, "notid.man", &m, &e) == ETL_OK);
    CHECK(m && etl_mf_find_event(etl_manifest_provider(m, 0), 1, 0) &&
          etl_mf_find_event(etl_manifest_provider(m, 0), 1, 0)->tmpl == NULL);
    etl_manifest_free(m);
    /* UTF-16 with a BOM */
    gsize n16 = 0;
    char *u16 = g_convert(xml, sizeof xml - 1, "UTF-16LE", "UTF-8", NULL, &n16, NULL);
    char *with_bom = g_malloc(n16 + 2);
    with_bom[0] = (char)0xFF;
    with_bom[1] = (char)0xFE;
    memcpy(with_bom + 2, u16, n16);
    CHECK(etl_manifest_parse(with_bom, n16 + 2, "utf16.man", &m, &e) == ETL_OK);
    CHECK(m && etl_mf_find_event(etl_manifest_provider(m, 0), 3, 1) != NULL);
    etl_manifest_free(m);
    g_free(u16);
    g_free(with_bom);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_manifest MANIFEST_DIR\n");
        return 2;
    }
    test_clr(argv[1]);
    test_all(argv[1]);
    test_handwritten();
    test_fast_reader(argv[1]);
    CHECK_MAIN_END();
}
