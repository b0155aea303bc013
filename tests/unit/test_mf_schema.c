/* Unit tests of mf_schema.c and the program features manifests need (fields.c, value_format.c):
 * lengths and counts constant or from another property, structs with counts, pointers and
 * size_t by record bitness, SID / WBEMSID, counted, reversed-counted and unterminated strings,
 * HEXDUMP, value maps and bit maps, unknown in-types as UNSUPPORTED, event display names and
 * message inserts, and the cache's manifest index with its negative cache. */
#include <stdlib.h>

#include "check.h"
#include "fields.h"
#include "manifest.h"
#include "message.h"
#include "mf_schema.h"
#include "schema_cache.h"
#include "tl_build.h"
#include "value_format.h"

static const char manifest[] =
    "<instrumentationManifest><instrumentation><events>\n"
    "<provider name='Etlshark-Test' guid='{11111111-2222-3333-4444-555555555555}'>\n"
    " <tasks><task name='Job' value='1' message='$(string.task.job)'>\n"
    "   <opcodes><opcode name='Poke' value='12' message='$(string.op.poke)'/></opcodes></task>\n"
    "  <task name='Bare' value='2'/></tasks>\n"
    " <keywords><keyword name='Alpha' mask='0x1' message='$(string.kw.alpha)'/><keyword name='Beta' mask='0x2'/></keywords>\n"
    " <maps>\n"
    "  <valueMap name='Color'><map value='2' message='$(string.c.green)'/><map value='1' message='Red'/>"
    "<map value='7' message=' Seven '/></valueMap>\n"
    "  <bitMap name='Flags'><map value='0x1' message='A'/><map value='0x4' message='C'/><map value='0x6' message='BC'/>"
    "</bitMap>\n"
    "  <bitMap name='Zero'><map value='0' message='None'/><map value='1' message='One'/></bitMap>\n"
    " </maps>\n"
    " <templates>\n"
    "  <template tid='T1'>\n"
    "   <data name='Len' inType='win:UInt16'/>\n"
    "   <data name='Name' inType='win:UnicodeString' length='Len'/>\n"
    "   <data name='Fixed' inType='win:AnsiString' length='4'/>\n"
    "   <data name='BinLen' inType='win:UInt32'/>\n"
    "   <data name='Blob' inType='win:Binary' length='BinLen'/>\n"
    "   <data name='Count' inType='win:UInt8'/>\n"
    "   <data name='Values' inType='win:UInt32' count='Count'/>\n"
    "   <data name='Three' inType='win:UInt16' count='3'/>\n"
    "   <data name='One' inType='win:UInt16' count='1'/>\n"
    "   <data name='Color' inType='win:UInt32' map='Color'/>\n"
    "   <data name='Other' inType='win:UInt8' map='Color'/>\n"
    "   <data name='Flags' inType='win:UInt32' map='Flags' outType='win:HexInt32'/>\n"
    "   <data name='NoBits' inType='win:UInt32' map='Flags'/>\n"
    "   <data name='Zero' inType='win:UInt8' map='Zero'/>\n"
    "   <data name='Ptr' inType='win:Pointer'/>\n"
    "   <data name='Size' inType='tdh:SIZET'/>\n"
    "   <data name='N' inType='win:UInt16'/>\n"
    "   <struct name='Items' count='N'>\n"
    "     <data name='Addr' inType='win:Pointer'/>\n"
    "     <data name='Tag' inType='win:AnsiString'/>\n"
    "   </struct>\n"
    "   <struct name='Pair'><data name='X' inType='win:Int8'/><data name='Y' inType='win:Int8'/></struct>\n"
    "   <data name='Sid' inType='win:SID'/>\n"
    "   <data name='WSid' inType='tdh:WBEMSID'/>\n"
    "   <data name='NoSid' inType='tdh:WBEMSID'/>\n"
    "   <data name='Counted' inType='win:CountedUnicodeString'/>\n"
    "   <data name='Reversed' inType='tdh:REVERSEDCOUNTEDANSISTRING'/>\n"
    "   <data name='Dump' inType='tdh:HEXDUMP'/>\n"
    "   <data name='Ch' inType='tdh:UNICODECHAR'/>\n"
    "   <data name='Rest' inType='tdh:NONNULLTERMINATEDSTRING'/>\n"
    "  </template>\n"
    "  <template tid='T2'>\n"
    "   <data name='Before' inType='win:UInt32'/>\n"
    "   <data name='Odd' inType='win:Frobnicate'/>\n"
    "   <data name='After' inType='win:UInt32'/>\n"
    "  </template>\n"
    "  <template tid='T3'><data name='Who' inType='win:UnicodeString'/><data name='N' inType='win:UInt32'/>"
    "<data name='C' inType='win:UInt8' map='Color'/><data name='A' inType='win:UInt8' count='2'/></template>\n"
    "  <template tid='T4'><data name='B' inType='win:Binary'/></template>\n"
    " </templates>\n"
    " <events>\n"
    "  <event value='1' version='0' task='Job' opcode='Poke' template='T1' keywords='Alpha Beta' level='win:Warning'/>\n"
    "  <event value='2' version='0' task='Job' opcode='win:Info' template='T2'/>\n"
    "  <event value='3' version='1' task='Job' opcode='win:Start' template='T3'"
    "   message='$(string.msg3)'/>\n"
    "  <event value='4' version='0' task='Bare' template='T4'/>\n"
    "  <event value='5' version='0' symbol='LonelySymbol'/>\n"
    "  <event value='6' version='0'/>\n"
    "  <event value='7' version='0' name='OwnName' task='Job' opcode='Poke'/>\n"
    " </events>\n"
    "</provider></events></instrumentation>\n"
    "<localization><resources culture='en-US'><stringTable>\n"
    " <string id='task.job' value='JobTask'/><string id='op.poke' value='Poked'/><string id='kw.alpha' value='AlphaKw'/>\n"
    " <string id='c.green' value='Green'/>\n"
    " <string id='msg3' value='%1 started %2 (%3) [%4] 100%% %5%nnext%!%0ignored'/>\n"
    "</stringTable></resources></localization></instrumentationManifest>\n";

static etl_manifest *mf;
static const etl_mf_provider *prov;
static etl_schema_builder b;
static tlbuf p;

static etl_schema *compile(uint16_t id, uint8_t version, uint8_t ptr, etl_status *st)
{
    const etl_mf_event *e = etl_mf_find_event(prov, id, version);
    CHECK(e != NULL);
    if (!e)
        return NULL;
    etl_error err;
    etl_status s = etl_mf_compile(&b, prov, e, ptr, "test manifest", &err);
    if (st)
        *st = s;
    return etl_schema_builder_finish(&b, NULL, 0);
}

/* Walk a payload: the kinds as letters (V value, { } struct, [ ] array, P placeholder) and the
 * text of every VALUE item joined by '|', maps applied. */
static void walk(const etl_schema *s, uint8_t ptr, char *kinds, char *texts, size_t tcap)
{
    etl_fields f;
    etl_item it;
    size_t k = 0, t = 0;
    static char v[4096];
    texts[0] = '\0';
    etl_fields_start(&f, s, p.b, p.n, ptr);
    while (etl_fields_next(&f, &it) != ETL_ITEM_END) {
        static const char letter[] = "EV{}[]P";
        kinds[k++] = letter[it.kind];
        if (it.kind == ETL_ITEM_VALUE) {
            size_t n = etl_value_format(&it, v, sizeof v);
            if (t + n + 2 < tcap) {
                if (t)
                    texts[t++] = '|';
                memcpy(texts + t, v, n);
                t += n;
                texts[t] = '\0';
            }
        }
        if (it.kind == ETL_ITEM_PLACEHOLDER && t + 3 < tcap) {
            memcpy(texts + t, "|P:", 3);
            t += 3;
            texts[t] = '\0';
        }
    }
    kinds[k] = '\0';
}

static void payload_t1(uint8_t ptr)
{
    p.n = 0;
    tl_u16(&p, 3);
    tl_bytes(&p, "a\0b\0c\0", 6); /* Name: 3 characters, no NUL */
    tl_bytes(&p, "xyz\0", 4);
    tl_u32(&p, 2);
    tl_bytes(&p, "\xAB\xCD", 2);
    tl_u8(&p, 2);
    tl_u32(&p, 10);
    tl_u32(&p, 20);
    tl_u16(&p, 1);
    tl_u16(&p, 2);
    tl_u16(&p, 3);
    tl_u16(&p, 9); /* One: count="1" is a scalar */
    tl_u32(&p, 2); /* Color: Green */
    tl_u8(&p, 5);  /* Other: not in the map */
    tl_u32(&p, 0x8000000F); /* Flags: A, C, BC, leftover 0x80000008 */
    tl_u32(&p, 0x10);       /* NoBits: no named bit */
    tl_u8(&p, 0);           /* Zero: the 0 entry */
    if (ptr == 4) {
        tl_u32(&p, 0xDEADBEEF);
        tl_u32(&p, 0x1000);
    } else {
        tl_u64(&p, 0x00007FF712345678ull);
        tl_u64(&p, 0x1000);
    }
    tl_u16(&p, 2); /* N */
    for (int i = 0; i < 2; i++) {
        if (ptr == 4)
            tl_u32(&p, 0x100u + (uint32_t)i);
        else
            tl_u64(&p, 0x100u + (uint64_t)i);
        tl_str(&p, i ? "t1" : "t0");
    }
    tl_u8(&p, (uint8_t)-1);
    tl_u8(&p, 2);
    static const uint8_t sid[] = {1, 2, 0, 0, 0, 0, 0, 5, 32, 0, 0, 0, 0x20, 2, 0, 0}; /* S-1-5-32-544 */
    tl_bytes(&p, sid, sizeof sid);
    for (unsigned i = 0; i < 2u * ptr; i++) /* TOKEN_USER: two pointers */
        tl_u8(&p, 0xEE);
    tl_bytes(&p, sid, sizeof sid);
    tl_u32(&p, 0); /* NoSid */
    tl_u16(&p, 4);
    tl_bytes(&p, "h\0i\0", 4);
    tl_u8(&p, 0); /* big-endian count 3 */
    tl_u8(&p, 3);
    tl_bytes(&p, "abc", 3);
    tl_u32(&p, 3);
    tl_bytes(&p, "\x01\x02\x03", 3);
    tl_u16(&p, 0x263A); /* a smiley */
    tl_bytes(&p, "e\0n\0d\0", 6);
}

static void test_template(uint8_t ptr)
{
    etl_status st;
    etl_schema *s = compile(1, 0, ptr, &st);
    if (!s)
        return;
    CHECK_EQ_U(st, ETL_OK);
    CHECK(s->complete);
    CHECK_EQ_U(s->ref_slots, 4); /* Len, BinLen, Count, N */
    CHECK_EQ_U(s->field_count, 27);
    CHECK_STR(etl_schema_event_name(s), "JobTask/Poked");
    CHECK_STR(etl_schema_str(s, s->provider_name), "Etlshark-Test");
    CHECK_STR(etl_schema_str(s, s->task_name), "JobTask");
    CHECK_STR(etl_schema_str(s, s->opcode_name), "Poked");
    CHECK_STR(etl_schema_str(s, s->level_name), "Warning");
    CHECK_STR(etl_schema_str(s, s->keywords_name), "AlphaKw | Beta");
    CHECK_STR(etl_schema_str(s, s->origin), "test manifest");
    payload_t1(ptr);
    char kinds[128], texts[2048];
    walk(s, ptr, kinds, texts, sizeof texts);
    CHECK_STR(kinds, "VVVVVV[VV][VVV]VVVVVVVVV[{VV}{VV}]{VV}VVVVVVVV");
    const char *want = ptr == 4
        ? "3|abc|xyz|2|abcd|2|10|20|1|2|3|9|Green|5|A | C | BC | 0x80000008|16|None|0xDEADBEEF|0x1000|2|0x100|t0|"
          "0x101|t1|-1|2|S-1-5-32-544|S-1-5-32-544||hi|abc|010203|\xE2\x98\xBA|end"
        : "3|abc|xyz|2|abcd|2|10|20|1|2|3|9|Green|5|A | C | BC | 0x80000008|16|None|0x7FF712345678|0x1000|2|0x100|t0|"
          "0x101|t1|-1|2|S-1-5-32-544|S-1-5-32-544||hi|abc|010203|\xE2\x98\xBA|end";
    CHECK_STR(texts, want);

    /* the typed map API: names only when the value has one */
    etl_fields f;
    etl_item it;
    etl_fields_start(&f, s, p.b, p.n, ptr);
    unsigned seen = 0;
    while (etl_fields_next(&f, &it) != ETL_ITEM_END) {
        if (it.kind != ETL_ITEM_VALUE || !it.map)
            continue;
        etl_value v;
        char buf[64], out[128];
        size_t n;
        etl_value_decode(&it, &v, buf, sizeof buf);
        bool named = etl_value_map_text(&it, &v, out, sizeof out, &n);
        if (strcmp(it.name, "Color") == 0)
            CHECK(named && strcmp(out, "Green") == 0);
        if (strcmp(it.name, "Other") == 0 || strcmp(it.name, "NoBits") == 0)
            CHECK(!named && n == 0);
        seen++;
    }
    CHECK_EQ_U(seen, 5);

    /* a short payload: everything before the cut decodes, then one placeholder (20 bytes end
     * inside the first element of Values) */
    p.n = 20;
    walk(s, ptr, kinds, texts, sizeof texts);
    CHECK_STR(kinds, "VVVVVV[P");
    /* a length beyond the payload */
    p.n = 0;
    tl_u16(&p, 400);
    tl_bytes(&p, "a\0", 2);
    walk(s, ptr, kinds, texts, sizeof texts);
    CHECK_STR(kinds, "VP");
    free(s);
}

static void test_unsupported(void)
{
    etl_status st;
    etl_schema *s = compile(2, 0, 8, &st);
    if (!s)
        return;
    CHECK_EQ_U(st, ETL_ERR_CORRUPT);
    CHECK(!s->complete);
    CHECK(strstr(etl_schema_reason(s), "'Odd'") != NULL);
    CHECK_STR(etl_schema_event_name(s), "JobTask"); /* win:Info is left out */
    p.n = 0;
    tl_u32(&p, 7);
    tl_u32(&p, 8);
    tl_u32(&p, 9);
    char kinds[16], texts[256];
    walk(s, 8, kinds, texts, sizeof texts);
    CHECK_STR(kinds, "VP"); /* the field before still decodes */
    CHECK_STR(texts, "7|P:");
    free(s);
    /* win:Binary without a length cannot be sized */
    s = compile(4, 0, 8, &st);
    CHECK_EQ_U(st, ETL_ERR_CORRUPT);
    CHECK(s && !s->complete && strstr(etl_schema_reason(s), "without a length"));
    CHECK(s && strcmp(etl_schema_event_name(s), "Bare") == 0);
    free(s);
}

static void test_names(void)
{
    char n[128];
    const etl_mf_event *e = etl_mf_find_event(prov, 3, 1);
    etl_mf_event_display_name(e, n, sizeof n);
    CHECK_STR(n, "JobTask/Start");
    etl_mf_event_display_name(etl_mf_find_event(prov, 5, 0), n, sizeof n);
    CHECK_STR(n, "LonelySymbol");
    etl_mf_event_display_name(etl_mf_find_event(prov, 6, 0), n, sizeof n);
    CHECK_STR(n, "EventID(6)");
    etl_mf_event_display_name(etl_mf_find_event(prov, 7, 0), n, sizeof n);
    CHECK_STR(n, "OwnName");
}

static void test_message(void)
{
    etl_schema *s = compile(3, 1, 8, NULL);
    if (!s)
        return;
    p.n = 0;
    tl_wstr(&p, "job");
    tl_u32(&p, 42);
    tl_u8(&p, 7);
    tl_u8(&p, 1);
    tl_u8(&p, 2);
    static etl_message_scratch scratch;
    char out[256];
    size_t n = etl_message_render(s, p.b, p.n, 8, &scratch, out, sizeof out);
    /* map names (trimmed), arrays joined, %% and %n and %! and %0; %5 is no field */
    CHECK_STR(out, "job started 42 (Seven) [1, 2] 100% %5\nnext!");
    CHECK_EQ_U(n, strlen(out));
    /* truncation stays inside the buffer */
    n = etl_message_render(s, p.b, p.n, 8, &scratch, out, 8);
    CHECK_STR(out, "job sta");
    free(s);
    CHECK_EQ_U(etl_message_format("50%% %1!d!", NULL, NULL, out, sizeof out), 9);
    CHECK_STR(out, "50% %1!d!");
}

static void test_manifest_data(void)
{
    etl_error err;
    CHECK(etl_mf_compile_manifest_data(&b, "Some-Source", 8, &err) == ETL_OK);
    etl_schema *s = etl_schema_builder_finish(&b, NULL, 0);
    p.n = 0;
    tl_bytes(&p, "\x01\x01\x00\x5B\x01\x00\x00\x00", 8);
    tl_bytes(&p, "<instrumentationManifest/>", 26);
    char kinds[16], texts[256];
    walk(s, 8, kinds, texts, sizeof texts);
    CHECK_STR(kinds, "VVVVVVV");
    CHECK_STR(texts, "1|1|0|91|1|0|<instrumentationManifest/>");
    CHECK_STR(etl_schema_event_name(s), "ManifestData");
    free(s);
}

static void test_cache(void)
{
    etl_schema_cache *c = etl_schema_cache_new(NULL);
    const etl_guid g = prov->guid, other = {1, 2, 3, {4, 5, 6, 7, 8, 9, 10, 11}};
    bool absent;
    CHECK(etl_schema_cache_mf_find(c, &g, 1, 0, 8, &absent) == NULL && !absent);
    etl_error err;
    etl_mf_compile(&b, prov, etl_mf_find_event(prov, 1, 0), 8, NULL, &err);
    const etl_schema *s64, *s32;
    CHECK(etl_schema_cache_mf_add(c, &b, &g, 1, 0, 8, &s64, &err) == ETL_OK);
    etl_mf_compile(&b, prov, etl_mf_find_event(prov, 1, 0), 4, NULL, &err);
    CHECK(etl_schema_cache_mf_add(c, &b, &g, 1, 0, 4, &s32, &err) == ETL_OK);
    CHECK(s64 != s32 && s64->pointer_size == 8 && s32->pointer_size == 4);
    CHECK(etl_schema_cache_mf_find(c, &g, 1, 0, 8, NULL) == s64);
    CHECK(etl_schema_cache_mf_find(c, &g, 1, 0, 4, NULL) == s32);
    CHECK(etl_schema_cache_mf_find(c, &g, 1, 1, 8, NULL) == NULL);
    /* the negative cache: remembered per bitness, bounded, emptied by a new source */
    etl_schema_cache_mf_absent(c, &other, 9, 0, 8);
    CHECK(etl_schema_cache_mf_find(c, &other, 9, 0, 8, &absent) == NULL && absent);
    CHECK(etl_schema_cache_mf_find(c, &other, 9, 0, 4, &absent) == NULL && !absent);
    for (unsigned i = 0; i < ETL_SCHEMA_CACHE_MAX_ABSENT + 10; i++)
        etl_schema_cache_mf_absent(c, &other, (uint16_t)(i + 100), (uint8_t)(i >> 16), 8);
    CHECK(etl_schema_cache_mf_find(c, &other, (uint16_t)(ETL_SCHEMA_CACHE_MAX_ABSENT + 109), 0, 8, &absent) == NULL &&
          absent);
    etl_schema_cache_mf_forget(c, &other);
    CHECK(etl_schema_cache_mf_find(c, &other, (uint16_t)(ETL_SCHEMA_CACHE_MAX_ABSENT + 109), 0, 8, &absent) == NULL &&
          !absent);
    CHECK(etl_schema_cache_mf_find(c, &g, 1, 0, 8, NULL) == s64); /* another provider: kept */
    etl_schema_cache_mf_forget(c, &g);
    CHECK(etl_schema_cache_mf_find(c, &g, 1, 0, 8, NULL) == NULL);
    CHECK(etl_schema_cache_at(c, s64->index) == s64); /* the arena keeps it */
    CHECK_EQ_U(etl_schema_cache_get_stats(c)->mf_compiles, 2);
    etl_schema_cache_free(c);
}

int main(void)
{
    etl_error err;
    CHECK(etl_manifest_parse(manifest, strlen(manifest), "test manifest", &mf, &err) == ETL_OK);
    if (!mf) {
        fprintf(stderr, "%s\n", err.message);
        CHECK_MAIN_END();
    }
    prov = etl_manifest_provider(mf, 0);
    etl_schema_builder_init(&b, NULL);
    test_template(8);
    test_template(4);
    test_unsupported();
    test_names();
    test_message();
    test_manifest_data();
    test_cache();
    etl_schema_builder_free(&b);
    etl_manifest_free(mf);
    CHECK_MAIN_END();
}
