/* Unit tests of fields.c: the pull enumerator over compiled TraceLogging schemas - scalars,
 * nested structs, arrays of structs, CCount/VCount, custom fields, skipping, short payloads
 * (placeholder with the rest, then END), damaged schemas, the per-event item bound, and the
 * record helpers; scalar runs (etl_fields_next_scalars) against the item-by-item walk on
 * constructed schemas and, given a captures folder (and a manifests folder), on every record
 * of the corpus. */
#include <inttypes.h>
#include <stdlib.h>

#include "capture_list.h"
#include "etl.h"
#include "prescan.h"
#include "registry.h"
#include "resolve.h"

#include "check.h"
#include "fields.h"
#include "tl_build.h"
#include "tl_schema.h"
#include "value_format.h"

static tlbuf m, p;
static etl_schema_builder b;

static etl_schema *compile(uint8_t ptr)
{
    etl_error err;
    etl_tl_compile(&b, m.b, m.n, ptr, &err);
    return etl_schema_builder_finish(&b, m.b, m.n);
}

/* The kinds of the items a walk yields, as a string of letters: V value, { } struct, [ ] array,
 * P placeholder (END not included). */
static const char *walk(const etl_schema *s, const uint8_t *payload, size_t n, etl_item *items, int max)
{
    static char out[512];
    etl_fields f;
    etl_item it;
    int k = 0;
    etl_fields_start(&f, s, payload, n, 0);
    while (etl_fields_next(&f, &it) != ETL_ITEM_END && k < (int)sizeof out - 1) {
        static const char letter[] = "EV{}[]P";
        if (items && k < max)
            items[k] = it;
        out[k++] = letter[it.kind];
    }
    out[k] = '\0';
    /* after END, END again */
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_END);
    return out;
}

static void test_scalars(void)
{
    tl_begin(&m, "Scalars", 0);
    tl_field(&m, "s", 2, -1, 0);
    tl_field(&m, "w", 1, -1, 0);
    tl_field(&m, "u8", 4, 3, 0);
    tl_field(&m, "i32", 7, -1, 0x77);
    tl_field(&m, "g", 15, -1, 0);
    tl_field(&m, "cs", 22, -1, 0);
    tl_field(&m, "sid", 19, -1, 0);
    tl_field(&m, "bin", 14, -1, 0);
    tl_end(&m);
    etl_schema *s = compile(8);
    p.n = 0;
    tl_str(&p, "abc");
    tl_wstr(&p, "xy");
    tl_u8(&p, 1);
    tl_u32(&p, (uint32_t)-5);
    tl_bytes(&p, "0123456789abcdef", 16);
    tl_u16(&p, 4);
    tl_bytes(&p, "h\0i\0", 4);
    tl_bytes(&p, "\x01\x02\0\0\0\0\0\x05\x15\0\0\0\x20\0\0\0", 16);
    tl_u16(&p, 0);
    etl_item it[16];
    CHECK_STR(walk(s, p.b, p.n, it, 16), "VVVVVVVV");
    CHECK_STR(it[0].name, "s");
    CHECK_EQ_U(it[0].offset, 0);
    CHECK_EQ_U(it[0].size, 4); /* NUL included */
    CHECK(memcmp(it[0].data, "abc", 4) == 0);
    CHECK_EQ_U(it[1].offset, 4);
    CHECK_EQ_U(it[1].size, 6);
    CHECK_EQ_U(it[2].out_type, ETL_OUT_BOOLEAN);
    CHECK_EQ_U(it[2].raw_out, 3);
    CHECK_EQ_U(it[3].tag, 0x77);
    CHECK_EQ_U(it[3].in_type, ETL_IN_INT32);
    CHECK_EQ_U(it[4].size, 16);
    CHECK_EQ_U(it[5].offset, 31);
    CHECK_EQ_U(it[5].wire_size, 6); /* u16 count + 4 bytes */
    CHECK_EQ_U(it[5].size, 4);
    CHECK(it[5].data == p.b + 33);
    CHECK_EQ_U(it[6].size, 16); /* 8 + 4 x 2 sub-authorities */
    CHECK_EQ_U(it[7].size, 0);
    CHECK_EQ_U(it[7].wire_size, 2);
    CHECK(!it[0].is_element);
    CHECK_EQ_U(it[0].depth, 0);
    CHECK_EQ_U(it[0].pointer_size, 8);
    CHECK_EQ_U(it[3].step, 3);

    /* END reports trailing bytes nobody claimed */
    tl_u8(&p, 0xAA);
    etl_fields f;
    etl_item x;
    etl_fields_start(&f, s, p.b, p.n, 8);
    while (etl_fields_next(&f, &x) != ETL_ITEM_END) {
    }
    CHECK_EQ_U(x.size, 1);
    CHECK(x.data && x.data[0] == 0xAA);
    CHECK_STR(x.name, "");
    free(s);
}

/* Every cut of a payload: the fields before the cut are delivered whole, then a placeholder
 * carries exactly the remaining bytes, then END. */
static void test_short_payloads(void)
{
    tl_begin(&m, "Short", 0);
    tl_field(&m, "a", 8, -1, 0);
    tl_field(&m, "b", 1, -1, 0);
    tl_field(&m, "c", 23, -1, 0);
    tl_struct(&m, "d", 0x40, 2);
    tl_field(&m, "k", 6, -1, 0);
    tl_field(&m, "v", 2, -1, 0);
    tl_field(&m, "e", 9, -1, 0);
    tl_end(&m);
    etl_schema *s = compile(8);
    p.n = 0;
    tl_u32(&p, 7);
    tl_wstr(&p, "hi");
    tl_u16(&p, 3);
    tl_bytes(&p, "xyz", 3);
    tl_u16(&p, 2);
    tl_u16(&p, 1);
    tl_str(&p, "p");
    tl_u16(&p, 2);
    tl_str(&p, "q");
    tl_u64(&p, 99);
    size_t full = p.n;
    CHECK_STR(walk(s, p.b, full, NULL, 0), "VVV[{VV}{VV}]V");
    for (size_t cut = 0; cut < full; cut++) {
        etl_fields f;
        etl_item it, last = {0};
        etl_fields_start(&f, s, p.b, cut, 8);
        int n = 0, values = 0;
        uint32_t covered = 0;
        etl_item_kind k;
        while ((k = etl_fields_next(&f, &it)) != ETL_ITEM_END && n < 64) {
            n++;
            if (k == ETL_ITEM_VALUE) {
                values++;
                CHECK(it.offset + it.wire_size <= cut);
                covered = it.offset + it.wire_size;
            }
            if (k == ETL_ITEM_ARRAY_BEGIN)
                covered = it.offset + it.wire_size;
            last = it;
        }
        /* strings without a terminator take the rest of the payload (tdh.h tolerates an
         * unterminated final string): a cut inside "p" or "q" still yields a value */
        if (last.kind == ETL_ITEM_PLACEHOLDER) {
            CHECK_EQ_U(last.offset, covered);
            CHECK_EQ_U(last.size, cut - covered);
            CHECK(last.data == p.b + covered);
            CHECK(last.reason != NULL);
        } else {
            CHECK(last.kind == ETL_ITEM_VALUE || last.kind == ETL_ITEM_STRUCT_END || last.kind == ETL_ITEM_ARRAY_END);
        }
        CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_END);
        CHECK_EQ_U(it.size, 0);
    }
    /* one exact case: cut inside "e" */
    etl_item its[16];
    CHECK_STR(walk(s, p.b, full - 3, its, 16), "VVV[{VV}{VV}]P");
    CHECK_STR(its[13].name, "e");
    CHECK_EQ_U(its[13].size, 5);
    CHECK_EQ_U(its[13].offset, full - 8);
    /* empty payload */
    CHECK_STR(walk(s, p.b, 0, its, 16), "P");
    CHECK_EQ_U(its[0].size, 0);
    CHECK_STR(walk(s, NULL, 0, its, 16), "P");
    free(s);
}

static void test_structs_and_arrays(void)
{
    /* a struct three deep, arrays of structs, CCount, VCount, an empty array */
    tl_begin(&m, "Tree", 0);
    tl_struct(&m, "S1", 0, 2);
    tl_field(&m, "a", 4, -1, 0);
    tl_struct(&m, "S2", 0, 1);
    tl_struct(&m, "S3", 0, 2);
    tl_field(&m, "b", 6, -1, 0);
    tl_field(&m, "c", 2, -1, 0);
    tl_struct(&m, "Pairs", 0x40, 2);
    tl_field(&m, "K", 8, -1, 0);
    tl_field(&m, "V", 1, -1, 0);
    tl_field(&m, "Fixed", 8 | 0x20, -1, 0);
    tl_u16(&m, 3);
    tl_field(&m, "None", 5 | 0x40, -1, 0);
    tl_struct(&m, "Grid", 0x20, 1);
    tl_u16(&m, 2);
    tl_field(&m, "Row", 3 | 0x40, -1, 0);
    tl_end(&m);
    etl_schema *s = compile(8);
    p.n = 0;
    tl_u8(&p, 1);       /* a */
    tl_u16(&p, 2);      /* b */
    tl_str(&p, "cc");   /* c */
    tl_u16(&p, 2);      /* Pairs count */
    tl_u32(&p, 10);
    tl_wstr(&p, "x");
    tl_u32(&p, 11);
    tl_wstr(&p, "yz");
    tl_u32(&p, 100);    /* Fixed */
    tl_u32(&p, 200);
    tl_u32(&p, 300);
    tl_u16(&p, 0);      /* None */
    tl_u16(&p, 1);      /* Grid[0].Row */
    tl_u8(&p, 0xF0);
    tl_u16(&p, 2);      /* Grid[1].Row */
    tl_u8(&p, 1);
    tl_u8(&p, 2);
    etl_item it[64];
    const char *w = walk(s, p.b, p.n, it, 64);
    CHECK_STR(w, "{V{{VV}}}[{VV}{VV}][VVV][][{[V]}{[VV]}]");
    /* S1..S3 */
    CHECK_STR(it[0].name, "S1");
    CHECK_EQ_U(it[0].array_count, 2);
    CHECK_STR(it[3].name, "S3");
    CHECK_EQ_U(it[3].depth, 2);
    CHECK_EQ_U(it[4].depth, 3);
    CHECK_STR(it[5].name, "c");
    CHECK_EQ_U(it[6].kind, ETL_ITEM_STRUCT_END);
    CHECK_STR(it[6].name, "S3");
    CHECK_EQ_U(it[6].offset, 1);     /* S3 starts at b */
    CHECK_EQ_U(it[6].wire_size, 5); /* b (2) + "cc\0" (3) */
    CHECK_EQ_U(it[8].offset, 0);
    CHECK_EQ_U(it[8].wire_size, 6);
    /* Pairs */
    CHECK_EQ_U(it[9].kind, ETL_ITEM_ARRAY_BEGIN);
    CHECK_EQ_U(it[9].array_count, 2);
    CHECK_EQ_U(it[9].in_type, ETL_IN_STRUCT);
    CHECK_EQ_U(it[9].elem_size, 0);
    CHECK(it[9].data == NULL);
    CHECK_EQ_U(it[9].wire_size, 2);
    CHECK(it[10].is_element);
    CHECK_EQ_U(it[10].array_index, 0);
    CHECK(!it[11].is_element);
    CHECK_EQ_U(it[11].array_index, 0);
    CHECK_EQ_U(it[14].array_index, 1);
    CHECK(it[14].is_element);
    CHECK(!it[15].is_element); /* a member of element 1, not an element itself */
    CHECK_STR(it[16].name, "V");
    CHECK_EQ_U(it[17].kind, ETL_ITEM_STRUCT_END);
    CHECK_EQ_U(it[17].array_index, 1);
    CHECK_EQ_U(it[18].kind, ETL_ITEM_ARRAY_END);
    CHECK_EQ_U(it[18].array_count, 2);
    CHECK_EQ_U(it[18].offset, 6);
    CHECK_EQ_U(it[18].wire_size, 2 + 4 + 4 + 4 + 6);
    /* Fixed: fixed-size elements are also handed over at once */
    CHECK_EQ_U(it[19].elem_size, 4);
    CHECK_EQ_U(it[19].size, 12);
    CHECK(it[19].data == p.b + 26);
    CHECK_EQ_U(it[19].wire_size, 12);
    CHECK_EQ_U(it[21].array_index, 1);
    CHECK(it[22].is_element);
    CHECK_EQ_U(it[22].array_index, 2);
    CHECK_EQ_U(it[23].elem_size, 4);
    /* None: count 0 */
    CHECK_EQ_U(it[24].array_count, 0);
    CHECK_EQ_U(it[24].wire_size, 2);
    CHECK_EQ_U(it[25].kind, ETL_ITEM_ARRAY_END);
    /* Grid */
    CHECK_EQ_U(it[26].array_count, 2);
    CHECK_EQ_U(it[28].array_count, 1);
    CHECK_EQ_U(it[29].depth, 3);
    CHECK_EQ_U(it[33].array_count, 2);
    CHECK_EQ_U(it[34].array_index, 0);
    CHECK_EQ_U(it[35].array_index, 1);
    CHECK_EQ_U(it[35].data[0], 2);
    free(s);
}

static void test_skip(void)
{
    tl_begin(&m, "Skip", 0);
    tl_field(&m, "chars", 6 | 0x40, 2, 0); /* UINT16 char array */
    tl_struct(&m, "S", 0, 2);
    tl_field(&m, "x", 1, -1, 0);
    tl_field(&m, "y", 8, -1, 0);
    tl_field(&m, "strs", 2 | 0x40, -1, 0); /* variable-size elements */
    tl_field(&m, "after", 4, -1, 0);
    tl_end(&m);
    etl_schema *s = compile(8);
    p.n = 0;
    tl_u16(&p, 3);
    tl_bytes(&p, "a\0b\0c\0", 6);
    tl_wstr(&p, "xx");
    tl_u32(&p, 5);
    tl_u16(&p, 2);
    tl_str(&p, "one");
    tl_str(&p, "two");
    tl_u8(&p, 9);
    etl_fields f;
    etl_item it;
    etl_fields_start(&f, s, p.b, p.n, 8);
    CHECK(!etl_fields_skip(&f)); /* nothing begun yet */
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_ARRAY_BEGIN);
    CHECK_EQ_U(it.elem_size, 2);
    CHECK(etl_fields_skip(&f));
    CHECK(!etl_fields_skip(&f)); /* only right after a BEGIN */
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_ARRAY_END);
    CHECK_EQ_U(it.wire_size, 8);
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_STRUCT_BEGIN);
    CHECK(etl_fields_skip(&f));
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_STRUCT_END);
    CHECK_EQ_U(it.wire_size, 10);
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_ARRAY_BEGIN);
    CHECK(etl_fields_skip(&f)); /* walks the strings */
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_ARRAY_END);
    CHECK_EQ_U(it.array_count, 2);
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_VALUE);
    CHECK_STR(it.name, "after");
    CHECK_EQ_U(it.data[0], 9);
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_END);

    /* skipping damaged contents hands out their placeholder instead of the END */
    etl_fields_start(&f, s, p.b, 16, 8); /* cut inside S.y */
    etl_fields_next(&f, &it);
    etl_fields_skip(&f);
    etl_fields_next(&f, &it);
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_STRUCT_BEGIN);
    CHECK(etl_fields_skip(&f));
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_PLACEHOLDER);
    CHECK_STR(it.name, "y");
    CHECK_EQ_U(it.offset, 14);
    CHECK_EQ_U(it.size, 2);
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_END);
    /* a fixed-size array cut short: skip walks it and stops at the damage */
    etl_fields_start(&f, s, p.b, 5, 8);
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_ARRAY_BEGIN);
    CHECK(it.data == NULL && it.elem_size == 0);
    CHECK(etl_fields_skip(&f));
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_PLACEHOLDER);
    CHECK_EQ_U(it.offset, 4);
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_END);
    free(s);
}

static void test_custom_pointer_damage(void)
{
    tl_begin(&m, "Misc", 0);
    tl_field(&m, "c", 2 | 0x60, -1, 0);
    tl_u16(&m, 2);
    tl_bytes(&m, "SC", 2);
    tl_field(&m, "ptr", 16, -1, 0);
    tl_field(&m, "bad", 29, -1, 0);
    tl_field(&m, "never", 8, -1, 0);
    tl_end(&m);
    etl_schema *s64 = compile(8), *s32 = compile(4);
    p.n = 0;
    tl_u16(&p, 3);
    tl_bytes(&p, "\x01\x02\x03", 3);
    tl_u64(&p, 0x1122334455667788ULL);
    tl_u32(&p, 0xDEAD);
    etl_item it[8];
    CHECK_STR(walk(s64, p.b, p.n, it, 8), "VVP");
    CHECK(it[0].custom);
    CHECK_EQ_U(it[0].custom_protocol, 2);
    CHECK_EQ_U(it[0].in_type, ETL_IN_COUNTEDBINARY);
    CHECK_EQ_U(it[0].custom_schema_len, 2);
    CHECK(memcmp(it[0].custom_schema, "SC", 2) == 0);
    CHECK_EQ_U(it[0].size, 3);
    CHECK_EQ_U(it[1].size, 8);
    CHECK_EQ_U(it[1].in_type, ETL_IN_POINTER);
    CHECK(strstr(it[2].reason, "unknown in-type 29") != NULL);
    CHECK_EQ_U(it[2].offset, 13);
    CHECK_EQ_U(it[2].size, 4);
    CHECK_STR(walk(s32, p.b, p.n, it, 8), "VVP");
    CHECK_EQ_U(it[1].size, 4);
    CHECK_EQ_U(it[1].pointer_size, 4);
    CHECK_EQ_U(it[2].offset, 9);
    free(s64);
    free(s32);

    /* a damaged array-of-struct schema: the open array ends at the UNSUPPORTED step */
    tl_begin(&m, "Broken", 0);
    tl_field(&m, "first", 4, -1, 0);
    tl_struct(&m, "S", 0x40, 3);
    tl_field(&m, "a", 4, -1, 0);
    tl_end(&m);
    etl_schema *s = compile(8);
    p.n = 0;
    tl_u8(&p, 1);
    tl_u16(&p, 5);
    tl_u8(&p, 7);
    tl_u8(&p, 8);
    CHECK_STR(walk(s, p.b, p.n, it, 8), "V[{VP");
    CHECK(strstr(it[4].reason, "declares 3 members") != NULL);
    CHECK_EQ_U(it[4].offset, 4);
    p.n = 0;
    tl_u8(&p, 1);
    tl_u16(&p, 0);
    CHECK_STR(walk(s, p.b, p.n, it, 8), "V[P");
    free(s);
}

static void test_item_limit(void)
{
    /* Up to 65535 x 65535 empty struct elements: the walk stops at the per-event bound. */
    tl_begin(&m, "Bomb", 0);
    tl_struct(&m, "outer", 0x20, 1);
    tl_u16(&m, 65535);
    tl_struct(&m, "inner", 0x20, 0);
    tl_u16(&m, 65535);
    tl_end(&m);
    etl_schema *s = compile(8);
    etl_fields f;
    etl_item it;
    etl_fields_start(&f, s, p.b, 0, 8);
    uint64_t n = 0;
    etl_item last = {0};
    while (etl_fields_next(&f, &it) != ETL_ITEM_END && n < 4 * (uint64_t)ETL_FIELDS_MAX_ITEMS) {
        n++;
        last = it;
    }
    CHECK_EQ_U(n, ETL_FIELDS_MAX_ITEMS + 1);
    CHECK_EQ_U(last.kind, ETL_ITEM_PLACEHOLDER);
    CHECK(last.reason && strstr(last.reason, "limit") != NULL);
    free(s);
}

static void test_records(void)
{
    etl_record rec;
    memset(&rec, 0, sizeof rec);
    CHECK(etl_record_tl_schema(&rec) == NULL);
    CHECK(etl_record_tl_traits(&rec) == NULL);
    tl_begin(&m, "Rec", 0);
    tl_field(&m, "v", 8, -1, 0);
    tl_end(&m);
    uint8_t bytes[8] = {0, 0, 0, 0, 42, 0, 0, 0};
    rec.ext_count = 2;
    rec.ext[0].type = ETL_EXT_PROV_TRAITS;
    rec.ext[1].type = ETL_EXT_EVENT_SCHEMA_TL;
    rec.ext[1].data = m.b;
    rec.ext[1].data_size = (uint16_t)m.n;
    rec.bytes = bytes;
    rec.payload_offset = 4;
    rec.payload_size = 4;
    rec.pointer_size = 8;
    CHECK(etl_record_tl_schema(&rec) == &rec.ext[1]);
    CHECK(etl_record_tl_traits(&rec) == &rec.ext[0]);
    etl_schema_cache *c = etl_schema_cache_new(NULL);
    etl_fields f;
    etl_item it;
    const etl_schema *s;
    etl_error err;
    CHECK_EQ_U(etl_fields_start_record(&f, c, &rec, &s, &err), ETL_OK);
    CHECK_STR(etl_schema_event_name(s), "Rec");
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_VALUE);
    CHECK_EQ_U(it.data[0], 42);
    rec.ext_count = 1;
    CHECK_EQ_U(etl_fields_start_record(&f, c, &rec, &s, &err), ETL_ERR_NOT_FOUND);
    etl_schema_cache_free(c);
    CHECK_STR(etl_item_kind_name(ETL_ITEM_ARRAY_BEGIN), "ARRAY_BEGIN");
    /* a walk with no schema is just END */
    etl_fields_start(&f, NULL, bytes, 8, 8);
    CHECK_EQ_U(etl_fields_next(&f, &it), ETL_ITEM_END);
}

/* ETL_FIELDS_CHAR_STRINGS: a char array is one VALUE (its elements and ARRAY_END not handed
 * out) that decodes and formats as the string; other arrays are unchanged.  And the "_N" key of
 * repeated names. */
static void test_char_strings(void)
{
    tl_begin(&m, "Chars", 0);
    tl_field(&m, "name", 4 | ETL_TL_IN_VCOUNT, ETL_TLOUT_STRING, 0); /* UINT8 CharArray */
    tl_field(&m, "wide", 6 | ETL_TL_IN_VCOUNT, ETL_TLOUT_STRING, 0); /* UINT16 CharArray */
    tl_field(&m, "nums", 4 | ETL_TL_IN_VCOUNT, -1, 0);               /* a plain array */
    tl_field(&m, "x", 4, -1, 0);
    tl_field(&m, "x", 4, -1, 0);
    tl_end(&m);
    etl_schema *s = compile(8);
    p.n = 0;
    tl_u16(&p, 3);
    tl_bytes(&p, "abc", 3);
    tl_u16(&p, 2);
    tl_u16(&p, 'h');
    tl_u16(&p, 'i');
    tl_u16(&p, 2);
    tl_u8(&p, 7);
    tl_u8(&p, 8);
    tl_u8(&p, 1);
    tl_u8(&p, 2);
    CHECK_STR(walk(s, p.b, p.n, NULL, 0), "[VVV][VV][VV]VV"); /* the default: arrays as arrays */

    etl_fields f;
    etl_item it[16];
    int k = 0;
    char kinds[32];
    etl_fields_start_opts(&f, s, p.b, p.n, 8, ETL_FIELDS_CHAR_STRINGS);
    while (k < 16 && etl_fields_next(&f, &it[k]) != ETL_ITEM_END) {
        kinds[k] = "EV{}[]P"[it[k].kind];
        k++;
    }
    kinds[k] = '\0';
    CHECK_STR(kinds, "VV[VV]VV");
    CHECK(it[0].char_array && it[1].char_array && !it[2].char_array && !it[3].char_array);
    CHECK_EQ_U(it[0].offset, 0);
    CHECK_EQ_U(it[0].wire_size, 5);
    CHECK_EQ_U(it[1].offset, 5);
    CHECK_EQ_U(it[1].wire_size, 6);
    etl_value v;
    char text[64];
    etl_value_decode(&it[0], &v, text, sizeof text);
    CHECK(v.kind == ETL_VALUE_STRING && v.str_len == 3 && memcmp(v.str, "abc", 3) == 0);
    CHECK_EQ_U(etl_value_format(&it[1], text, sizeof text), 2);
    CHECK_STR(text, "hi");
    char key[ETL_ITEM_KEY_MAX];
    CHECK(etl_item_key(&it[6], key, sizeof key) == it[6].name);
    CHECK_STR(etl_item_key(&it[7], key, sizeof key), "x_2");
    free(s);
}

/* A NUL-terminated UTF-16 field ends at its first NUL unit (the enumerator looks 8, then 4,
 * then 1 unit at a time): every length up to 40 units, the field after it read where it is. */
static void test_utf16_lengths(void)
{
    tl_begin(&m, "Lengths", 0);
    tl_field(&m, "w", 1, -1, 0);
    tl_field(&m, "n", 8, -1, 0);
    tl_end(&m);
    etl_schema *s = compile(8);
    for (unsigned len = 0; len <= 40; len++) {
        p.n = 0;
        for (unsigned i = 0; i < len; i++)
            tl_u16(&p, (uint16_t)(i % 3 == 2 ? 0x20AC : 'a' + i)); /* a non-zero high byte too */
        tl_u16(&p, 0);
        tl_u32(&p, 0x4E4E4E4Eu);
        etl_item it[2];
        CHECK_STR(walk(s, p.b, p.n, it, 2), "VV");
        CHECK_EQ_U(it[0].size, 2 * len + 2);
        CHECK_EQ_U(it[1].offset, 2 * len + 2);
        CHECK(it[1].size == 4 && it[1].data[0] == 0x4E);
    }
    free(s);
}

/* ---- scalar runs ---------------------------------------------------------------------- */

/* etl_value_format of a VALUE item against the generic path it shortens: the decoded value's
 * map names or its etl_value_text (character arrays aside: they have a path of their own). */
static void check_format(const etl_item *it)
{
    static char fast[ETL_VALUE_TEXT_CAP(65536)], slow[ETL_VALUE_TEXT_CAP(65536)], scratch[ETL_VALUE_TEXT_CAP(65536)];
    if (it->char_array || it->size > 65536)
        return;
    size_t nf = etl_value_format(it, fast, sizeof fast), ns;
    etl_value v;
    etl_value_decode(it, &v, scratch, sizeof scratch);
    if (!(it->map && etl_value_map_text(it, &v, slow, sizeof slow, &ns)))
        ns = etl_value_text(&v, slow, sizeof slow);
    CHECK_EQ_U(nf, ns);
    CHECK_STR(fast, slow);
}

/* Two walks of one payload, one item by item, the other taking scalar runs (at most `max` per
 * call) wherever it can: every scalar must be the VALUE item the first walk gives at that point
 * (step, offset, the decoded number, its style, its key), every other item the same item, and
 * both walks end alike.  Returns the scalars taken. */
static uint64_t compare_runs(const etl_schema *s, const uint8_t *payload, size_t n, uint8_t ptr, unsigned opts,
                             unsigned max)
{
    etl_fields a, f;
    etl_item ia, ib;
    etl_scalar sc[64];
    uint64_t taken = 0;
    char ta[256], tb[256], ka[ETL_ITEM_KEY_MAX], kb[ETL_ITEM_KEY_MAX];
    etl_fields_start_opts(&a, s, payload, n, ptr, opts);
    etl_fields_start_opts(&f, s, payload, n, ptr, opts);
    for (;;) {
        unsigned got = etl_fields_next_scalars(&f, sc, max);
        CHECK(got <= max);
        for (unsigned i = 0; i < got; i++, taken++) {
            CHECK_EQ_U(etl_fields_next(&a, &ia), ETL_ITEM_VALUE);
            CHECK_EQ_U(ia.step, sc[i].step);
            CHECK_EQ_U(ia.offset, sc[i].offset);
            CHECK(!ia.map && !ia.custom && !ia.char_array);
            etl_value va, vb;
            etl_value_decode(&ia, &va, ta, sizeof ta);
            CHECK(va.kind == ETL_VALUE_INT || va.kind == ETL_VALUE_UINT);
            CHECK(va.v.u == sc[i].u);
            unsigned style = va.kind == ETL_VALUE_INT                             ? ETL_SCALAR_INT
                             : etl_value_int_style(&va) == ETL_INT_HEX            ? ETL_SCALAR_HEX
                             : etl_value_int_style(&va) == ETL_INT_DECIMAL ? ETL_SCALAR_UINT
                                                                                  : 0;
            CHECK_EQ_U(sc[i].style, style);
            etl_scalar_value(&f, &sc[i], &vb);
            CHECK(vb.kind == va.kind && vb.format == va.format && vb.bits == va.bits && vb.v.u == va.v.u &&
                  vb.bytes == va.bytes && vb.bytes_len == va.bytes_len);
            CHECK_EQ_U(etl_value_text(&va, ta, sizeof ta), etl_value_text(&vb, tb, sizeof tb));
            CHECK_STR(ta, tb);
            /* the scalar's own text, and its item's through etl_value_format's short path */
            char ts[ETL_SCALAR_TEXT_MAX];
            CHECK_EQ_U(etl_scalar_text(&sc[i], ts), strlen(ta));
            CHECK_STR(ts, ta);
            check_format(&ia);
            CHECK_STR(etl_item_key(&ia, ka, sizeof ka), etl_fields_step_key(&f, sc[i].step, kb, sizeof kb));
        }
        if (got)
            continue;
        etl_item_kind k = etl_fields_next(&f, &ib);
        CHECK_EQ_U(etl_fields_next(&a, &ia), k);
        CHECK(ia.step == ib.step && ia.offset == ib.offset && ia.size == ib.size && ia.data == ib.data &&
              ia.wire_size == ib.wire_size && ia.depth == ib.depth && ia.array_index == ib.array_index &&
              ia.array_count == ib.array_count && ia.is_element == ib.is_element && ia.char_array == ib.char_array);
        CHECK_STR(ia.name, ib.name);
        if (k == ETL_ITEM_VALUE)
            check_format(&ia);
        if (k == ETL_ITEM_END)
            break;
    }
    CHECK_EQ_U(etl_fields_next_scalars(&f, sc, max), 0); /* nothing after END */
    return taken;
}

static void test_scalar_runs(void)
{
    /* the fields, and each field's bytes as (width, value) pairs */
    static const struct {
        const char *name;
        uint8_t in;
        int out;
    } fields[] = {
        {"i8", 3, -1}, {"i16", 5, -1}, {"i32", 7, -1}, {"i64", 9, -1},
        {"u64", 10, -1},                     /* beyond 2^53 below: a renderer's rare case */
        {"h32", 20, -1},                     /* HEXINT32 */
        {"hx", 8, ETL_TLOUT_HEX},
        {"ptr", 16, -1},                     /* POINTER: scalar only at the schema's pointer size */
        {"err", 8, ETL_TLOUT_WIN32ERROR},    /* a code with a name: not a scalar */
        {"port", 6, ETL_TLOUT_PORT},         /* big-endian: not a scalar */
        {"b", 4, ETL_TLOUT_BOOLEAN},         /* not an integer */
        {"u8", 4, -1}, {"u8", 4, -1},        /* a repeated name: "u8_2" */
        {"arr", 8 | ETL_TL_IN_VCOUNT, -1},   /* elements are scalars */
        {"s", 2, -1}, {"last", 8, -1},
    };
    static const struct {
        uint8_t width;
        uint64_t v;
    } bytes[] = {
        {1, 0x80}, {2, 0xFFFE}, {4, 0x80000000u}, {8, (uint64_t)-7}, {8, UINT64_MAX - 3}, {4, 0xDEADBEEF},
        {4, 0x1F}, {8, 0xFFFFF80310D7F2B7ULL}, {4, 5}, {2, 0x5000}, {1, 1}, {1, 7}, {1, 9},
        {2, 3}, {4, 10}, {4, 11}, {4, 12}, /* arr: count, elements */
        {2, 'x'}, /* s: "x" and its NUL (ANSI: 1 + 1 bytes) */
        {4, 42},
    };
    tl_begin(&m, "Runs", 0);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        tl_field(&m, fields[i].name, fields[i].in, fields[i].out, 0);
    tl_end(&m);
    etl_schema *s = compile(8);
    p.n = 0;
    for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++)
        for (unsigned k = 0; k < bytes[i].width; k++)
            tl_u8(&p, (uint8_t)(bytes[i].v >> (8 * k)));
    /* i8..ptr, u8 u8_2, the 3 elements, last */
    for (unsigned max = 1; max <= 20; max++) {
        CHECK_EQ_U(compare_runs(s, p.b, p.n, 8, 0, max), 14);
        CHECK_EQ_U(compare_runs(s, p.b, p.n, 8, ETL_FIELDS_CHAR_STRINGS, max), 14);
    }
    /* a 4-byte record on the 8-byte schema: the pointer goes item by item */
    CHECK_EQ_U(compare_runs(s, p.b, p.n, 4, 0, 64), 13);
    /* every cut: a run stops before a value the payload does not hold, the placeholder follows */
    for (size_t cut = 0; cut < p.n; cut++)
        compare_runs(s, p.b, cut, 8, 0, 64);
    free(s);
}

/* Every record of a capture with a schema: both walks as etldump starts them. */
static uint64_t corpus_scalars, corpus_records;
static const char *corpus_manifests;

static void runs_capture(const char *dir, const char *name)
{
    char *path = g_build_filename(dir, name, NULL);
    etl_decoder *d = etl_decoder_new(NULL, NULL);
    if (corpus_manifests)
        etl_registry_add_path(etl_decoder_registry(d), corpus_manifests);
    etl_error err;
    const etl_observer obs[] = {etl_registry_observer(etl_decoder_registry(d))};
    etl_prescan_file(path, obs, 1, &err);
    etl_reader *r = NULL;
    if (etl_reader_open_file(path, NULL, &r, &err) != ETL_OK)
        r = NULL; /* an unusable file (the corpus has one): nothing to walk */
    etl_record rec;
    uint64_t taken = 0, records = 0;
    while (r && etl_reader_next(r, &rec, &err) == ETL_OK) {
        etl_resolved res;
        etl_decoder_resolve(d, &rec, 0, &res, NULL);
        if (!res.schema)
            continue;
        records++;
        taken += compare_runs(res.schema, rec.bytes + rec.payload_offset, rec.payload_size, rec.pointer_size,
                              ETL_FIELDS_CHAR_STRINGS, 1u + (unsigned)(records % 40));
    }
    if (r)
        etl_reader_close(r);
    printf("%s: %" PRIu64 " records with a schema, %" PRIu64 " scalars in runs\n", name, records, taken);
    corpus_scalars += taken;
    corpus_records += records;
    etl_decoder_free(d);
    g_free(path);
}

int main(int argc, char **argv)
{
    etl_schema_builder_init(&b, NULL);
    test_scalars();
    test_short_payloads();
    test_structs_and_arrays();
    test_skip();
    test_custom_pointer_damage();
    test_item_limit();
    test_records();
    test_char_strings();
    test_utf16_lengths();
    test_scalar_runs();
    if (argc > 1) {
        corpus_manifests = argc > 2 ? argv[2] : NULL;
        CHECK(capture_list_each(argv[1], runs_capture) >= 19);
        CHECK(corpus_scalars > 100000); /* the kernel captures' fields are mostly scalars */
    }
    etl_schema_builder_free(&b);
    CHECK_MAIN_END();
}
