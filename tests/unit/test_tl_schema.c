/* Unit tests of tl_schema.c and schema.c: TraceLogging metadata compiled into programs - tags,
 * out-type translation, structs nested three deep, arrays of structs, CCount/VCount, custom
 * fields, duplicate names, damaged metadata, limits - and provider traits. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "etl_format.h"
#include "schema.h"
#include "tl_build.h"
#include "tl_schema.h"

static tlbuf m;
static etl_schema_builder b;

static etl_schema *compile(etl_status *st, etl_error *err, uint8_t ptr)
{
    *st = etl_tl_compile(&b, m.b, m.n, ptr, err);
    return etl_schema_builder_finish(&b, m.b, m.n);
}

static const char *name_of(const etl_schema *s, uint32_t i)
{
    return etl_schema_str(s, s->steps[i].name);
}

static void hex_to(tlbuf *t, const char *hex)
{
    t->n = 0;
    for (; hex[0] && hex[1]; hex += 2) {
        unsigned v;
        sscanf(hex, "%2x", &v);
        t->b[t->n++] = (uint8_t)v;
    }
}

/* The metadata of perfview_primitive-types_tracelogging.etl's events, as stored. */
static const char primitive_meta[] =
    "b600005072696d697469766554797065735465737400737472696e675f747970650002626f6f6c65616e5f7479"
    "7065008403636861725f74797065008402696e7431365f747970650005696e7433325f74797065000775696e74"
    "31365f74797065000675696e7433325f747970650008696e7436345f74797065000a75696e7436345f74797065"
    "000a677569645f74797065000f66696c655f74696d655f74797065001173797374656d5f74696d655f74797065"
    "0012";

static void test_real_metadata(void)
{
    etl_status st;
    etl_error err;
    hex_to(&m, primitive_meta);
    etl_schema *s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_OK);
    CHECK(s->complete);
    CHECK(etl_schema_reason(s) == NULL);
    CHECK_STR(etl_schema_event_name(s), "PrimitiveTypesTest");
    CHECK_EQ_U(s->step_count, 12);
    CHECK_EQ_U(s->field_count, 12);
    CHECK_EQ_U(s->source, ETL_SCHEMA_TRACELOGGING);
    static const char *names[] = {"string_type", "boolean_type", "char_type", "int16_type", "int32_type", "uint16_type",
                                  "uint32_type", "int64_type", "uint64_type", "guid_type", "file_time_type",
                                  "system_time_type"};
    static const uint16_t in[] = {2, 4, 4, 5, 7, 6, 8, 10, 10, 15, 17, 18};
    for (unsigned i = 0; i < 12; i++) {
        CHECK_EQ_U(s->steps[i].op, ETL_OP_VALUE);
        CHECK_STR(name_of(s, i), names[i]);
        CHECK_EQ_U(s->steps[i].in_type, in[i]);
        CHECK_EQ_U(s->steps[i].depth, 0);
        CHECK_EQ_U(s->steps[i].dup, 0);
    }
    /* TlgOut BOOLEAN (3) and STRING (2) become TDH BOOLEAN (13) and STRING (1) */
    CHECK_EQ_U(s->steps[1].raw_out, 3);
    CHECK_EQ_U(s->steps[1].out_type, ETL_OUT_BOOLEAN);
    CHECK_EQ_U(s->steps[2].raw_out, 2);
    CHECK_EQ_U(s->steps[2].out_type, ETL_OUT_STRING);
    CHECK_EQ_U(s->steps[0].size_rule, ETL_SIZE_ANSIZ);
    CHECK_EQ_U(s->steps[9].size_rule, ETL_SIZE_FIXED);
    CHECK_EQ_U(s->steps[9].size, 16);
    CHECK_EQ_U(s->steps[11].size, 16);
    CHECK(s->key_len == m.n && memcmp(s->key, m.b, m.n) == 0);
    const char *nm;
    size_t nl;
    CHECK(etl_tl_event_name(m.b, m.n, &nm, &nl));
    CHECK(nl == 18 && memcmp(nm, "PrimitiveTypesTest", 18) == 0);
    free(s);
}

static void test_tags(void)
{
    etl_status st;
    etl_error err;
    /* one, two, three and four tag bytes; a field tag in the chained out-meta */
    static const uint32_t tags[] = {0, 0x0A00000, 0x0FFFC000, 0x1234567, 0x0FFFFFFF};
    for (unsigned i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        tl_begin(&m, "Tagged", tags[i]);
        tl_field(&m, "a", 8, -1, tags[i]);
        tl_field(&m, "b", 8, 4, 0);
        tl_end(&m);
        etl_schema *s = compile(&st, &err, 8);
        CHECK_EQ_U(st, ETL_OK);
        CHECK_EQ_U(s->event_tags, tags[i]);
        CHECK_EQ_U(s->steps[0].tag, tags[i]);
        CHECK_EQ_U(s->steps[1].tag, 0);
        CHECK_EQ_U(s->steps[1].out_type, ETL_OUT_HEXINT32); /* TlgOut HEX on UINT32 */
        CHECK_STR(name_of(s, 1), "b");
        free(s);
    }
    /* five tag bytes: more than 28 bits */
    tl_begin(&m, "", 0);
    m.n = 2;
    tl_bytes(&m, "\x81\x81\x81\x81\x01", 5);
    tl_str(&m, "E");
    tl_end(&m);
    etl_schema *s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_ERR_CORRUPT);
    CHECK(!s->complete);
    CHECK(strstr(etl_schema_reason(s), "28 bits") != NULL);
    CHECK_EQ_U(err.offset, 6);
    free(s);
}

/* a { b, S2 { c, S3 { d, e } }, f } : three struct levels */
static void test_nested_structs(void)
{
    etl_status st;
    etl_error err;
    tl_begin(&m, "Nested", 0);
    tl_struct(&m, "S1", 0, 3);
    tl_field(&m, "b", 7, -1, 0);
    tl_struct(&m, "S2", 0, 2);
    tl_field(&m, "c", 1, -1, 0);
    tl_struct(&m, "S3", 0, 2);
    tl_field(&m, "d", 4, -1, 0);
    tl_field(&m, "e", 6, -1, 0x42);
    tl_field(&m, "f", 10, -1, 0); /* third member of S1 */
    tl_field(&m, "after", 8, -1, 0);
    tl_end(&m);
    etl_schema *s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_OK);
    CHECK_EQ_U(s->field_count, 2);
    static const struct {
        uint8_t op, depth;
        const char *name;
    } want[] = {
        {ETL_OP_STRUCT_BEGIN, 0, "S1"}, {ETL_OP_VALUE, 1, "b"},       {ETL_OP_STRUCT_BEGIN, 1, "S2"},
        {ETL_OP_VALUE, 2, "c"},         {ETL_OP_STRUCT_BEGIN, 2, "S3"}, {ETL_OP_VALUE, 3, "d"},
        {ETL_OP_VALUE, 3, "e"},         {ETL_OP_STRUCT_END, 2, "S3"},   {ETL_OP_STRUCT_END, 1, "S2"},
        {ETL_OP_VALUE, 1, "f"},         {ETL_OP_STRUCT_END, 0, "S1"},   {ETL_OP_VALUE, 0, "after"},
    };
    CHECK_EQ_U(s->step_count, sizeof want / sizeof want[0]);
    for (unsigned i = 0; i < s->step_count && i < sizeof want / sizeof want[0]; i++) {
        CHECK_EQ_U(s->steps[i].op, want[i].op);
        CHECK_EQ_U(s->steps[i].depth, want[i].depth);
        CHECK_STR(name_of(s, i), want[i].name);
    }
    CHECK_EQ_U(s->steps[0].match, 10);
    CHECK_EQ_U(s->steps[10].match, 0);
    CHECK_EQ_U(s->steps[4].match, 7);
    CHECK_EQ_U(s->steps[0].count, 3);
    CHECK_EQ_U(s->steps[4].count, 2);
    CHECK_EQ_U(s->steps[6].tag, 0x42);
    free(s);

    /* an empty struct is allowed (TraceLogging's builders accept 0 members) */
    tl_begin(&m, "Empty", 0);
    tl_struct(&m, "E", 0, 0);
    tl_field(&m, "x", 4, -1, 0);
    tl_end(&m);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_OK);
    CHECK_EQ_U(s->step_count, 3);
    CHECK_EQ_U(s->steps[1].op, ETL_OP_STRUCT_END);
    free(s);
}

static void test_arrays(void)
{
    etl_status st;
    etl_error err;
    tl_begin(&m, "Arrays", 0);
    tl_field(&m, "Fixed", 8 | 0x20, -1, 0); /* CCount */
    tl_u16(&m, 4);
    tl_field(&m, "Var", 6 | 0x40, 4, 0); /* VCount UINT16 HEX */
    tl_struct(&m, "Pairs", 0x40, 2);        /* VCount array of structs */
    tl_field(&m, "Key", 8, -1, 0);
    tl_field(&m, "Value", 1, -1, 0);
    tl_struct(&m, "Grid", 0x20, 1); /* CCount array of structs holding an array */
    tl_u16(&m, 3);
    tl_field(&m, "Row", 7 | 0x40, -1, 0);
    tl_end(&m);
    etl_schema *s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_OK);
    CHECK_EQ_U(s->field_count, 4);
    /* Fixed: ARRAY_BEGIN, VALUE, ARRAY_END */
    CHECK_EQ_U(s->steps[0].op, ETL_OP_ARRAY_BEGIN);
    CHECK_EQ_U(s->steps[0].count_rule, ETL_COUNT_CONST);
    CHECK_EQ_U(s->steps[0].count, 4);
    CHECK_EQ_U(s->steps[0].in_type, ETL_IN_UINT32);
    CHECK_EQ_U(s->steps[0].match, 2);
    CHECK_EQ_U(s->steps[1].op, ETL_OP_VALUE);
    CHECK(s->steps[1].flags & ETL_STEP_ELEMENT);
    CHECK_EQ_U(s->steps[1].depth, 1);
    CHECK_EQ_U(s->steps[2].op, ETL_OP_ARRAY_END);
    CHECK_EQ_U(s->steps[2].match, 0);
    /* Var */
    CHECK_EQ_U(s->steps[3].count_rule, ETL_COUNT_U16);
    CHECK_EQ_U(s->steps[4].out_type, ETL_OUT_HEXINT16);
    /* Pairs: ARRAY_BEGIN, STRUCT_BEGIN(element), Key, Value, STRUCT_END(element), ARRAY_END */
    CHECK_EQ_U(s->steps[6].op, ETL_OP_ARRAY_BEGIN);
    CHECK_EQ_U(s->steps[6].in_type, ETL_IN_STRUCT);
    CHECK_EQ_U(s->steps[7].op, ETL_OP_STRUCT_BEGIN);
    CHECK(s->steps[7].flags & ETL_STEP_ELEMENT);
    CHECK_EQ_U(s->steps[7].depth, 1);
    CHECK_EQ_U(s->steps[8].depth, 2);
    CHECK(!(s->steps[8].flags & ETL_STEP_ELEMENT));
    CHECK_EQ_U(s->steps[10].op, ETL_OP_STRUCT_END);
    CHECK(s->steps[10].flags & ETL_STEP_ELEMENT);
    CHECK_EQ_U(s->steps[11].op, ETL_OP_ARRAY_END);
    CHECK_EQ_U(s->steps[6].match, 11);
    /* Grid: array(3) of struct { array Row } */
    CHECK_EQ_U(s->steps[12].op, ETL_OP_ARRAY_BEGIN);
    CHECK_EQ_U(s->steps[12].count, 3);
    CHECK_EQ_U(s->steps[13].op, ETL_OP_STRUCT_BEGIN);
    CHECK_EQ_U(s->steps[14].op, ETL_OP_ARRAY_BEGIN);
    CHECK_EQ_U(s->steps[14].depth, 2);
    CHECK_EQ_U(s->steps[15].depth, 3);
    CHECK_EQ_U(s->step_count, 19);
    free(s);
}

static void test_custom_and_types(void)
{
    etl_status st;
    etl_error err;
    tl_begin(&m, "Custom", 0);
    tl_field(&m, "Before", 8, -1, 0);
    tl_field(&m, "Opaque", 1 | 0x60, -1, 0); /* protocol 1, custom */
    tl_u16(&m, 3);
    tl_bytes(&m, "\x0a\x0b\x0c", 3);
    tl_field(&m, "Ptr", 16, -1, 0); /* the unsupported pointer type: by bitness */
    tl_field(&m, "Sid", 19, -1, 0);
    tl_field(&m, "Bin", 14, 9, 0);  /* BINARY + TlgOut IPV6 */
    tl_field(&m, "Cnt", 22, 12, 0); /* COUNTEDSTRING + JSON */
    tl_field(&m, "S", 9, 17, 0);    /* INT64 + SIGNED */
    tl_field(&m, "U", 7, 18, 0);    /* INT32 + UNSIGNED */
    tl_field(&m, "FT", 17, 38, 0);  /* FILETIME + DATETIME_UTC */
    tl_field(&m, "Odd", 8, 99, 0);  /* unknown TlgOut: in-type default */
    tl_end(&m);
    etl_schema *s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_OK);
    CHECK_EQ_U(s->steps[1].op, ETL_OP_CUSTOM);
    CHECK_EQ_U(s->steps[1].data_len, 3);
    CHECK(memcmp(s->bytes + s->steps[1].data, "\x0a\x0b\x0c", 3) == 0);
    CHECK_EQ_U(s->steps[1].raw_out, 1);
    CHECK_EQ_U(s->steps[1].size_rule, ETL_SIZE_COUNTED16);
    CHECK_EQ_U(s->steps[2].size, 8);
    CHECK_EQ_U(s->steps[3].size_rule, ETL_SIZE_SID);
    CHECK_EQ_U(s->steps[4].size_rule, ETL_SIZE_COUNTED16);
    CHECK_EQ_U(s->steps[4].out_type, ETL_OUT_IPV6);
    CHECK_EQ_U(s->steps[5].out_type, ETL_OUT_JSON);
    CHECK_EQ_U(s->steps[6].out_type, ETL_OUT_LONG);
    CHECK_EQ_U(s->steps[7].out_type, ETL_OUT_UNSIGNEDINT);
    CHECK_EQ_U(s->steps[8].out_type, ETL_OUT_DATETIME_UTC);
    CHECK_EQ_U(s->steps[9].out_type, ETL_OUT_NULL);
    CHECK_EQ_U(s->steps[9].raw_out, 99);
    free(s);
    s = compile(&st, &err, 4);
    CHECK_EQ_U(s->steps[2].size, 4);
    CHECK_EQ_U(s->pointer_size, 4);
    free(s);

    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_UINT8, ETL_TLOUT_HEX), ETL_OUT_HEXINT8);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_HEXINT64, ETL_TLOUT_HEX), ETL_OUT_HEXINT64);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_BINARY, ETL_TLOUT_HEX), ETL_OUT_HEXBINARY);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_UINT32, ETL_TLOUT_PID), ETL_OUT_PID);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_UINT16, ETL_TLOUT_PORT), ETL_OUT_PORT);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_UINT32, ETL_TLOUT_IPV4), ETL_OUT_IPV4);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_UINT32, ETL_TLOUT_WIN32ERROR), ETL_OUT_WIN32ERROR);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_UINT32, ETL_TLOUT_NTSTATUS), ETL_OUT_NTSTATUS);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_INT32, ETL_TLOUT_HRESULT), ETL_OUT_HRESULT);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_ANSISTRING, ETL_TLOUT_UTF8), ETL_OUT_UTF8);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_UNICODESTRING, ETL_TLOUT_XML), ETL_OUT_XML);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_UINT8, ETL_TLOUT_NOPRINT), ETL_OUT_NOPRINT);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_UINT64, ETL_TLOUT_FILETIME), ETL_OUT_DATETIME);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_UINT64, ETL_TLOUT_CODE_POINTER), ETL_OUT_CODE_POINTER);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_SYSTEMTIME, ETL_TLOUT_DATETIME_CULTURE_INSENSITIVE),
               ETL_OUT_CULTURE_INSENSITIVE_DATETIME);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_BINARY, ETL_TLOUT_SOCKETADDRESS), ETL_OUT_SOCKETADDRESS);
    CHECK_EQ_U(etl_tl_out_to_tdh(ETL_IN_BINARY, ETL_TLOUT_PKCS7_WITH_TYPE_INFO), ETL_OUT_PKCS7_WITH_TYPE_INFO);
    CHECK_STR(etl_in_type_name(ETL_IN_COUNTEDANSISTRING), "COUNTEDANSISTRING");
    CHECK_STR(etl_out_type_name(ETL_OUT_DATETIME_UTC), "DATETIME_UTC");
    CHECK_STR(etl_out_type_name(ETL_OUT_NOPRINT), "NOPRINT");
    CHECK(etl_in_type_name(26) == NULL);
}

static void test_duplicates(void)
{
    etl_status st;
    etl_error err;
    tl_begin(&m, "Dups", 0);
    tl_field(&m, "x", 8, -1, 0);
    tl_field(&m, "x", 8, -1, 0);
    tl_struct(&m, "s", 0, 2);
    tl_field(&m, "x", 8, -1, 0); /* a new object: not a repeat */
    tl_field(&m, "x", 8, -1, 0);
    tl_field(&m, "x", 8 | 0x40, -1, 0); /* array "x": the key is the array */
    tl_field(&m, "y", 8, -1, 0);
    tl_end(&m);
    etl_schema *s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_OK);
    CHECK_EQ_U(s->steps[0].dup, 0);
    CHECK_EQ_U(s->steps[1].dup, 2);
    CHECK_EQ_U(s->steps[3].dup, 0);
    CHECK_EQ_U(s->steps[4].dup, 2);
    CHECK_EQ_U(s->steps[6].op, ETL_OP_ARRAY_BEGIN);
    CHECK_EQ_U(s->steps[6].dup, 3);
    CHECK_EQ_U(s->steps[7].dup, 0); /* the element is not a key */
    CHECK_EQ_U(s->steps[9].dup, 0);
    free(s);
}

static void test_damage(void)
{
    etl_status st;
    etl_error err;
    etl_schema *s;

    /* metadata cut inside the third field's name: two fields kept */
    tl_begin(&m, "Cut", 0);
    tl_field(&m, "one", 8, -1, 0);
    tl_field(&m, "two", 1, -1, 0);
    tl_field(&m, "three", 8, -1, 0);
    tl_end(&m);
    size_t full = m.n;
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_OK);
    free(s);
    m.n = full - 4; /* the size field still says `full` */
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_ERR_TRUNCATED);
    CHECK(!s->complete);
    CHECK_EQ_U(s->step_count, 3);
    CHECK_EQ_U(s->unsupported_at, 2);
    CHECK_STR(name_of(s, 1), "two");
    CHECK(strstr(etl_schema_reason(s), "not terminated") != NULL);
    free(s);
    /* the declared size runs past the bytes, but every field fits: still reported */
    m.n = full;
    m.b[0] = (uint8_t)(full + 10);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_ERR_TRUNCATED);
    CHECK_EQ_U(s->step_count, 4);
    CHECK(strstr(etl_schema_reason(s), "exceeds") != NULL);
    free(s);
    /* bytes after the declared size are not metadata */
    m.b[0] = (uint8_t)full;
    m.b[m.n++] = 0xEE;
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_OK);
    CHECK_EQ_U(s->step_count, 3);
    free(s);

    /* an unknown in-type stops at that field */
    tl_begin(&m, "Unknown", 0);
    tl_field(&m, "ok", 8, -1, 0);
    tl_field(&m, "bad", 27, -1, 0);
    tl_field(&m, "later", 8, -1, 0);
    tl_end(&m);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_ERR_CORRUPT);
    CHECK_EQ_U(s->step_count, 2);
    CHECK(strstr(etl_schema_reason(s), "unknown in-type 27") != NULL);
    CHECK(strstr(err.message, "'bad'") != NULL);
    free(s);
    /* in-type 0 is invalid too */
    tl_begin(&m, "Null", 0);
    tl_field(&m, "z", 0, -1, 0);
    tl_end(&m);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_ERR_CORRUPT);
    CHECK_EQ_U(s->step_count, 1);
    free(s);

    /* a struct declaring more members than follow: the members there are kept, the open struct
     * ends at the UNSUPPORTED step */
    tl_begin(&m, "Short", 0);
    tl_struct(&m, "S", 0x40, 3);
    tl_field(&m, "a", 8, -1, 0);
    tl_end(&m);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_ERR_TRUNCATED);
    CHECK(strstr(etl_schema_reason(s), "declares 3 members, 1 present") != NULL);
    CHECK_EQ_U(s->steps[0].op, ETL_OP_ARRAY_BEGIN);
    CHECK_EQ_U(s->steps[3].op, ETL_OP_UNSUPPORTED);
    CHECK_EQ_U(s->steps[0].match, 3);
    CHECK_EQ_U(s->steps[1].match, 3);
    free(s);
    /* a struct without its out-meta (member count) */
    tl_begin(&m, "NoCount", 0);
    tl_field(&m, "S", 24, -1, 0);
    tl_end(&m);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_ERR_CORRUPT);
    free(s);
    /* custom schema longer than the metadata; CCount cut */
    tl_begin(&m, "BadCustom", 0);
    tl_field(&m, "c", 1 | 0x60, -1, 0);
    tl_u16(&m, 50);
    tl_end(&m);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_ERR_TRUNCATED);
    CHECK_EQ_U(s->step_count, 1);
    free(s);
    tl_begin(&m, "BadCount", 0);
    tl_field(&m, "c", 8 | 0x20, -1, 0);
    tl_u8(&m, 1);
    tl_end(&m);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_ERR_TRUNCATED);
    free(s);
    /* out-meta chain bit with no tag bytes */
    tl_begin(&m, "NoTag", 0);
    tl_str(&m, "t");
    tl_u8(&m, 0x88);
    tl_u8(&m, 0x80);
    tl_end(&m);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_ERR_TRUNCATED);
    free(s);

    /* too small, too big, absent */
    uint8_t tiny[3] = {3, 0, 0};
    CHECK_EQ_U(etl_tl_compile(&b, tiny, 3, 8, &err), ETL_ERR_CORRUPT);
    CHECK_EQ_U(b.step_count, 1);
    CHECK_EQ_U(b.steps[0].op, ETL_OP_UNSUPPORTED);
    uint8_t big[8] = {0xFF, 0xFF, 0, 'E', 0};
    CHECK_EQ_U(etl_tl_compile(&b, big, 8, 8, &err), ETL_ERR_LIMIT);
    CHECK_EQ_U(etl_tl_compile(&b, NULL, 0, 8, &err), ETL_ERR_TRUNCATED);
    CHECK_EQ_U(etl_tl_compile(&b, tiny, 1, 8, &err), ETL_ERR_TRUNCATED);
    const char *nm;
    size_t nl;
    CHECK(!etl_tl_event_name(tiny, 1, &nm, &nl));
    CHECK(!etl_tl_event_name(tiny, 3, &nm, &nl));
}

static void test_limits(void)
{
    etl_status st;
    etl_error err;
    etl_schema *s;
    /* 33 nested structs: past ETL_SCHEMA_MAX_DEPTH */
    tl_begin(&m, "Deep", 0);
    for (int i = 0; i < 33; i++)
        tl_struct(&m, "s", 0, 1);
    tl_field(&m, "leaf", 8, -1, 0);
    tl_end(&m);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_ERR_LIMIT);
    CHECK(strstr(etl_schema_reason(s), "nests deeper") != NULL);
    CHECK_EQ_U(s->step_count, ETL_SCHEMA_MAX_DEPTH + 1);
    free(s);
    /* exactly the limit: 32 containers (31 structs + an array of the leaf) compile */
    tl_begin(&m, "Deep", 0);
    for (int i = 0; i < 31; i++)
        tl_struct(&m, "s", 0, 1);
    tl_field(&m, "leaf", 8 | 0x40, -1, 0);
    tl_end(&m);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_OK);
    free(s);
    /* more fields than ETL_SCHEMA_MAX_FIELDS */
    tl_begin(&m, "Wide", 0);
    for (unsigned i = 0; i < ETL_SCHEMA_MAX_FIELDS + 5; i++) {
        tl_u8(&m, 0);
        tl_u8(&m, 4);
    }
    tl_end(&m);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(st, ETL_ERR_LIMIT);
    CHECK_EQ_U(s->step_count, ETL_SCHEMA_MAX_FIELDS + 1);
    CHECK_EQ_U(s->field_count, ETL_SCHEMA_MAX_FIELDS);
    CHECK(strstr(etl_schema_reason(s), "fields") != NULL);
    free(s);
}

static void test_traits(void)
{
    etl_tl_traits t;
    etl_error err;
    /* lxcore: a name and a group trait */
    tlbuf x;
    hex_to(&x, "38004d6963726f736f66742e57696e646f77732e53756273797374656d2e4c78436f7265001300011a73504fcf"
               "898247b3e0dce8c90476ba");
    CHECK_EQ_U(etl_tl_parse_traits(x.b, x.n, &t, &err), ETL_OK);
    CHECK(t.name_len == strlen("Microsoft.Windows.Subsystem.LxCore") &&
          memcmp(t.name, "Microsoft.Windows.Subsystem.LxCore", t.name_len) == 0);
    CHECK(t.has_group);
    CHECK_EQ_U(t.trait_count, 1);
    char g[ETL_GUID_STR_SIZE];
    etl_format_guid(&t.group, g);
    CHECK_STR(g, "4f50731a-89cf-4782-b3e0-dce8c90476ba");
    /* primitive-types: a name only */
    hex_to(&x, "0f00736f6c61725f73797374656d00");
    CHECK_EQ_U(etl_tl_parse_traits(x.b, x.n, &t, &err), ETL_OK);
    CHECK(t.name_len == 12 && memcmp(t.name, "solar_system", 12) == 0);
    CHECK(!t.has_group);
    CHECK_EQ_U(t.trait_count, 0);
    /* a damaged trait: the name is still there */
    hex_to(&x, "0a0061626300020001ff");
    CHECK_EQ_U(etl_tl_parse_traits(x.b, x.n, &t, &err), ETL_ERR_CORRUPT);
    CHECK(t.name && t.name_len == 3);
    /* no terminated name */
    hex_to(&x, "05006162");
    CHECK_EQ_U(etl_tl_parse_traits(x.b, x.n, &t, &err), ETL_ERR_TRUNCATED);
    CHECK(t.name == NULL);
    CHECK_EQ_U(etl_tl_parse_traits(x.b, 1, &t, &err), ETL_ERR_TRUNCATED);
}

static void test_builder(void)
{
    /* the builder is reusable: a big schema then a small one */
    etl_status st;
    etl_error err;
    tl_begin(&m, "Big", 0);
    for (int i = 0; i < 500; i++)
        tl_field(&m, "f", 8, -1, 0);
    tl_end(&m);
    etl_schema *s = compile(&st, &err, 8);
    CHECK_EQ_U(s->step_count, 500);
    CHECK_EQ_U(s->steps[499].dup, 500);
    free(s);
    tl_begin(&m, "Small", 0);
    tl_field(&m, "g", 8, -1, 0);
    tl_end(&m);
    s = compile(&st, &err, 8);
    CHECK_EQ_U(s->step_count, 1);
    CHECK_STR(etl_schema_event_name(s), "Small");
    CHECK_EQ_U(s->index, UINT32_MAX);
    etl_schema_free(NULL, s);
}

int main(void)
{
    etl_schema_builder_init(&b, NULL);
    test_real_metadata();
    test_tags();
    test_nested_structs();
    test_arrays();
    test_custom_and_types();
    test_duplicates();
    test_damage();
    test_limits();
    test_traits();
    test_builder();
    etl_schema_builder_free(&b);
    CHECK_MAIN_END();
}
