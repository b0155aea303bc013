/* test_classic.c - classic events: keys (classic.h) and the classic path of the schema registry
 * (registry.h) with the built-in kernel class document, on constructed records and on the real
 * kernel captures.
 *
 *   test_classic CAPTURES_DIR
 *
 * What it holds the decoder to:
 *   - keys: kernel groups map to their class GUID, hook 0x030A to the Image class, FULL_HEADER
 *     records to their own GUID, an unknown group to a stand-in that is not a class;
 *   - naming: Windows tools' names, opcode 0 shown when named (FileIo/Name) and hidden when Info
 *     (EventTrace); an event the document does not describe is named from its key and marked
 *     unknown, its payload handed out raw with the reason; a version the document lacks decodes
 *     with the highest lower one;
 *   - the document's layout qualifiers through the compiler and the enumerator: k:optional
 *     (Thread version 3 with and without ThreadName) and k:rest (StackWalk frames: as many as
 *     the payload holds);
 *   - pointer sizes: 32- and 64-bit records of one key get their own programs;
 *   - the cache: a key compiles once, classic keys never answer manifest lookups;
 *   - on net452, ShutdownPerfDiag and the two syzygy captures: every classic record decodes to
 *     END with no placeholder and no trailing byte, but the known undescribed SysConfig type 37. */
#include <glib.h>
#include <inttypes.h>

#include "check.h"
#include "classic.h"
#include "etl_format.h"
#include "fields.h"
#include "schema_cache.h"
#include "registry.h"
#include "value_format.h"

static const char *captures;

static etl_guid guid_of(const char *s)
{
    etl_guid g;
    CHECK(etl_parse_guid(s, &g));
    return g;
}

/* ---- keys ---------------------------------------------------------------------------------- */

static void test_keys(void)
{
    etl_record r;
    etl_classic_key k;
    memset(&r, 0, sizeof r);
    r.header_type = ETL_HT_SYSTEM64;
    r.group = 0x03;
    r.hook_id = 0x0301;
    r.opcode = 1;
    r.version = 4;
    CHECK(etl_classic_key_of(&r, &k));
    etl_guid process = guid_of("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c");
    CHECK(k.known && etl_guid_equal(&k.cls, &process) && k.type == 1 && k.version == 4 && k.group == 3);
    /* the image load is logged in the PROCESS group but belongs to the Image class */
    r.hook_id = 0x030A;
    r.opcode = 10;
    CHECK(etl_classic_key_of(&r, &k));
    etl_guid image = guid_of("2cb15d1d-5fc1-11d2-abe1-00a0c911f518");
    CHECK(k.known && etl_guid_equal(&k.cls, &image));
    /* a group without a known class: a stand-in per group, never a known class */
    r.header_type = ETL_HT_PERFINFO32;
    r.group = 0x77;
    r.hook_id = 0x7705;
    r.opcode = 5;
    CHECK(etl_classic_key_of(&r, &k));
    CHECK(!k.known && k.group == 0x77 && k.cls.data4[7] == 0x77);
    /* FULL_HEADER: the record's own class GUID */
    memset(&r, 0, sizeof r);
    r.header_type = ETL_HT_FULL_HEADER32;
    r.provider = image;
    r.has_provider = true;
    r.opcode = 10;
    CHECK(etl_classic_key_of(&r, &k) && k.known && etl_guid_equal(&k.cls, &image) && k.group == 0);
    CHECK(etl_record_is_classic(&r) && !etl_record_is_kernel_group(&r));
    /* EVENT_HEADER and WPP records are not classic */
    r.header_type = ETL_HT_EVENT_HEADER64;
    CHECK(!etl_classic_key_of(&r, &k) && !etl_record_is_classic(&r));
    r.header_type = ETL_HT_MESSAGE;
    CHECK(!etl_classic_key_of(&r, &k));
}

/* ---- the registry's classic path ------------------------------------------------------------ */

/* Walk a schema over a payload; the number of values, whether it ended without a placeholder,
 * and the bytes left after the last field. */
static unsigned walk(const etl_schema *s, const uint8_t *p, size_t n, uint8_t ptr, bool *clean, uint32_t *trailing,
                     uint32_t *array_count)
{
    etl_fields f;
    etl_item it;
    unsigned values = 0;
    *clean = true;
    *trailing = 0;
    etl_fields_start(&f, s, p, n, ptr);
    while (etl_fields_next(&f, &it) != ETL_ITEM_END) {
        values += it.kind == ETL_ITEM_VALUE;
        if (it.kind == ETL_ITEM_PLACEHOLDER)
            *clean = false;
        if (it.kind == ETL_ITEM_ARRAY_BEGIN && array_count)
            *array_count = it.array_count;
    }
    *trailing = it.size;
    return values;
}

static void test_lookup(void)
{
    etl_schema_cache *c = etl_schema_cache_new(NULL);
    etl_registry *s = etl_registry_new(c, NULL, NULL);
    const etl_schema *a, *b;
    etl_error err;
    etl_guid process = guid_of("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c");
    etl_guid fileio = guid_of("90cbdc39-4a3e-11d1-84f4-0000f80464e3");
    etl_guid eventtrace = guid_of("68fdd900-4a3e-11d1-84f4-0000f80464e3");
    etl_guid stackwalk = guid_of("def2fe46-7bd6-4b80-bd94-f57fe20d0ce3");
    etl_guid image = guid_of("2cb15d1d-5fc1-11d2-abe1-00a0c911f518");

    /* names */
    CHECK_EQ_U(etl_registry_lookup_classic(s, &process, 1, 4, 8, &a, &err), ETL_OK);
    CHECK_STR(etl_schema_event_name(a), "Process/Start");
    CHECK_STR(etl_schema_str(a, a->provider_name), "Windows Kernel");
    CHECK(a->source == ETL_SCHEMA_CLASSIC && !a->unknown && a->complete && a->schema_version == 4);
    CHECK_STR(etl_schema_str(a, a->origin), ETL_KERNEL_CLASSES_ORIGIN);
    CHECK_EQ_U(etl_registry_lookup_classic(s, &fileio, 0, 2, 8, &b, &err), ETL_OK);
    CHECK_STR(etl_schema_event_name(b), "FileIo/Name"); /* opcode 0 shown: it is named */
    CHECK_EQ_U(etl_registry_lookup_classic(s, &eventtrace, 0, 2, 8, &b, &err), ETL_OK);
    CHECK_STR(etl_schema_event_name(b), "EventTrace"); /* type 0 is Info: left out */
    CHECK_EQ_U(etl_registry_lookup_classic(s, &image, 33, 2, 8, &b, &err), ETL_OK);
    CHECK_STR(etl_schema_str(b, b->provider_name), "MSNT_SystemTrace"); /* the class's second <provider> */
    CHECK_STR(etl_schema_event_name(b), "Image/KernelBase");

    /* a key compiles once; both bitnesses have their own program */
    CHECK_EQ_U(etl_registry_lookup_classic(s, &process, 1, 4, 8, &b, &err), ETL_OK);
    CHECK(a == b);
    CHECK_EQ_U(etl_registry_lookup_classic(s, &process, 1, 4, 4, &b, &err), ETL_OK);
    CHECK(a != b && b->pointer_size == 4 && a->pointer_size == 8);
    /* a classic key is not a manifest key: the same GUID and numbers find nothing there */
    CHECK_EQ_U(etl_registry_lookup_key(s, &process, 1, 4, 8, &b, &err), ETL_ERR_NOT_FOUND);

    /* a newer version than the document knows: the highest lower one, said in schema_version */
    CHECK_EQ_U(etl_registry_lookup_classic(s, &process, 1, 200, 8, &b, &err), ETL_OK);
    CHECK(!b->unknown && b->schema_version < 200 && strcmp(etl_schema_event_name(b), "Process/Start") == 0);

    /* an undescribed type: named from its key, unknown, the payload raw with the reason */
    CHECK_EQ_U(etl_registry_lookup_classic(s, &process, 99, 4, 8, &b, &err), ETL_OK);
    CHECK(b->unknown && !b->complete);
    CHECK_STR(etl_schema_event_name(b), "Process/Opcode(99)");
    CHECK_STR(etl_schema_str(b, b->provider_name), "Windows Kernel");
    static const uint8_t raw[5] = {1, 2, 3, 4, 5};
    etl_fields f;
    etl_item it;
    etl_fields_start(&f, b, raw, sizeof raw, 8);
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_PLACEHOLDER);
    CHECK(it.size == 5 && it.data == raw && strstr(it.reason, "type 99 version 4") != NULL);
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_END);
    /* an undescribed version of a named type below every described one keeps the type's name */
    CHECK_EQ_U(etl_registry_lookup_classic(s, &stackwalk, 32, 0, 8, &b, &err), ETL_OK);
    if (b->unknown)
        CHECK_STR(etl_schema_event_name(b), "StackWalk/Stack");
    /* an unknown class (FULL_HEADER MOF class of some provider): "Opcode(N)", no provider name */
    etl_guid other = guid_of("01234567-89ab-cdef-0123-456789abcdef");
    CHECK_EQ_U(etl_registry_lookup_classic(s, &other, 7, 0, 8, &b, &err), ETL_OK);
    CHECK(b->unknown && b->provider_name == 0);
    CHECK_STR(etl_schema_event_name(b), "Opcode(7)");
    /* an unknown kernel group, through a record */
    etl_record r;
    memset(&r, 0, sizeof r);
    r.header_type = ETL_HT_SYSTEM64;
    r.group = 0x77;
    r.hook_id = 0x7705;
    r.opcode = 5;
    r.pointer_size = 8;
    CHECK_EQ_U(etl_registry_lookup(s, &r, &b, &err), ETL_OK);
    CHECK(b->unknown);
    CHECK_STR(etl_schema_event_name(b), "Group(0x77)/Opcode(5)");
    CHECK_STR(etl_schema_str(b, b->provider_name), "Windows Kernel");

    /* k:rest: a StackWalk event holds as many frames as its payload (16 bytes + 8 per frame) */
    const etl_schema *sw;
    CHECK_EQ_U(etl_registry_lookup_classic(s, &stackwalk, 32, 2, 8, &sw, &err), ETL_OK);
    uint8_t stack[16 + 8 * 5] = {0};
    bool clean;
    uint32_t trailing, count = 0;
    walk(sw, stack, sizeof stack, 8, &clean, &trailing, &count);
    CHECK(clean && trailing == 0 && count == 5);
    walk(sw, stack, sizeof stack - 3, 8, &clean, &trailing, &count); /* a partial frame: shown as trailing */
    CHECK(clean && count == 4 && trailing == 5);
    count = 99;
    walk(sw, stack, 16, 8, &clean, &trailing, &count); /* no frames at all */
    CHECK(clean && count == 0 && trailing == 0);
    static uint8_t big[16 + 8 * 200];
    walk(sw, big, sizeof big, 8, &clean, &trailing, &count); /* more than the class's 192 */
    CHECK(clean && count == 192 && trailing == 8 * 8);
    CHECK_EQ_U(etl_registry_lookup_classic(s, &stackwalk, 32, 2, 4, &sw, &err), ETL_OK);
    walk(sw, stack, 16 + 4 * 3, 4, &clean, &trailing, &count); /* 32-bit frames */
    CHECK(clean && count == 3 && trailing == 0);

    etl_registry_free(s);
    etl_schema_cache_free(c);
}

/* ---- real captures -------------------------------------------------------------------------- */

typedef struct scan {
    uint64_t classic, clean, unknown, thread_short, thread_long, stacks;
} scan;

static void scan_capture(const char *file, scan *out)
{
    char *path = g_build_filename(captures, file, NULL);
    etl_reader *rd;
    etl_error err;
    memset(out, 0, sizeof *out);
    CHECK(etl_reader_open_file(path, NULL, &rd, &err) == ETL_OK);
    etl_schema_cache *c = etl_schema_cache_new(NULL);
    etl_registry *s = etl_registry_new(c, NULL, NULL);
    etl_record r;
    etl_guid thread = guid_of("3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c");
    etl_guid stackwalk = guid_of("def2fe46-7bd6-4b80-bd94-f57fe20d0ce3");
    etl_guid sysconfig = guid_of("9b79ee91-b5fd-41c0-a243-4248e266e9d0");
    unsigned shown = 0;
    while (rd && etl_reader_next(rd, &r, &err) == ETL_OK) {
        if (!etl_record_is_classic(&r))
            continue;
        out->classic++;
        const etl_schema *sc;
        if (etl_registry_lookup(s, &r, &sc, &err) != ETL_OK) {
            CHECK(!"a classic record without a schema");
            continue;
        }
        bool clean;
        uint32_t trailing, count = 0;
        unsigned values = walk(sc, r.bytes + r.payload_offset, r.payload_size, r.pointer_size, &clean, &trailing, &count);
        if (sc->unknown) {
            out->unknown++;
            /* the one type no document describes (the golden shows it as Opcode(37) too) */
            CHECK(etl_guid_equal(&r.provider, &sysconfig) && r.opcode == 37);
            CHECK_STR(etl_schema_event_name(sc), "SysConfig/Opcode(37)");
            continue;
        }
        if (clean && trailing == 0)
            out->clean++;
        else if (shown++ < 5)
            fprintf(stderr, "%s @%" PRIu64 ": %s v%u: %s, %u trailing bytes\n", file, r.position,
                    etl_schema_event_name(sc), r.version, clean ? "complete" : "placeholder", trailing);
        if (etl_guid_equal(&r.provider, &thread) && r.version == 3) {
            /* k:optional: ThreadName present (Windows 10) or not (older builds) */
            const etl_schema_step *last = &sc->steps[sc->step_count - 1];
            bool has_name_step = last->op == ETL_OP_VALUE && strcmp(etl_schema_str(sc, last->name), "ThreadName") == 0;
            CHECK(has_name_step);
            if (values + 1 == sc->field_count)
                out->thread_short++;
            else if (values == sc->field_count)
                out->thread_long++;
        }
        if (etl_guid_equal(&r.provider, &stackwalk) && r.opcode == 32) {
            out->stacks++;
            CHECK_EQ_U(count, (r.payload_size - 16) / r.pointer_size);
        }
    }
    etl_registry_free(s);
    etl_schema_cache_free(c);
    etl_reader_close(rd);
    g_free(path);
    printf("%s: %" PRIu64 " classic records, %" PRIu64 " decode exactly, %" PRIu64 " unknown; Thread v3 without/with"
           " ThreadName %" PRIu64 "/%" PRIu64 "; StackWalk events %" PRIu64 "\n",
           file, out->classic, out->clean, out->unknown, out->thread_short, out->thread_long, out->stacks);
    CHECK_EQ_U(out->clean + out->unknown, out->classic);
}

static void test_captures(void)
{
    scan s;
    scan_capture("perfview_net452_x64_merged_compressed.etl", &s);
    CHECK(s.classic > 100000 && s.unknown == 1 && s.thread_short > 0 && s.stacks > 0);
    scan_capture("etlparser_ShutdownPerfDiagLogger_kernel.etl", &s);
    CHECK(s.classic > 1000 && s.unknown == 0 && s.thread_long > 0);
    scan_capture("perfview_diaghub_kernel_relogged.etl", &s);
    CHECK(s.classic > 1000 && s.unknown == 0);
    scan_capture("syzygy_sawbuck_test_data_32_v0_vistax86.etl", &s);
    CHECK(s.classic > 10 && s.unknown == 0);
    scan_capture("syzygy_sawbuck_image_data_32_v2_win7x86.etl", &s);
    CHECK(s.classic > 10 && s.unknown == 0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CAPTURES_DIR\n", argv[0]);
        return 2;
    }
    captures = argv[1];
    test_keys();
    test_lookup();
    test_captures();
    CHECK_MAIN_END();
}
