/* Unit tests of the WPP format-string renderer (decoder/decode/wpp_format.c) on MESSAGE records
 * framed from crafted bytes, against the strings tracefmt's rules give (docs/wpp.md): argument
 * inserts in every printf form the shared TMFs use, the typed %s texts, %!NAME! tags, prefix
 * items, %0 and %%, an argument the payload lacks, option flag names. */
#include <glib.h>

#include "bytes.h"
#include "check.h"
#include "etl_format.h"
#include "schema_cache.h"
#include "tmf.h"
#include "tmf_schema.h"
#include "wpp.h"
#include "wpp_format.h"

static const char *TMF =
    "// PDB:  test.pdb\n"
    "0a9ab260-f7e4-311e-a23e-f8ab6856dc72 Comp // SRC=Unit.c MJ= MN=\n"
    "#typev Unit_c42 10 \"%0 [%!FUNC!] status %10!s! ptr %11!p! addr %12!012I64X! n=%13!d! u=%14!u! b=%15!02X!\" //   LEVEL=TRACE_LEVEL_ERROR FLAGS=TRACE_UNIT FUNC=Unit_Fn\n"
    "{\n"
    "status, ItemNTSTATUS -- 10\n"
    "p, ItemPtr -- 11\n"
    "a, ItemLongLongXX -- 12\n"
    "n, ItemLong -- 13\n"
    "u, ItemLong -- 14\n"
    "b, ItemLong -- 15\n"
    "}\n"
    "#typev Unit_c50 11 \"%0[%!FUNC!] %10!s! / %11!s! / %12!s! / %13!s! / %14!I64d! / %15!s! / %16!x!\" // LEVEL=TRACE_LEVEL_VERBOSE FLAGS=TRACE_UNIT FUNC=Unit_Str\n"
    "{\n"
    "name, ItemString -- 10\n"
    "wname, ItemWString -- 11\n"
    "&us, ItemPWString -- 12\n"
    "KeGetCurrentIrql(), ItemListByte(Low,APC,DPC) -- 13\n"
    "big, ItemLongLong -- 14\n"
    "err, ItemWINERROR -- 15\n"
    "x, ItemLong -- 16\n"
    "}\n"
    "#typev Unit_c60 12 \"%0 %1!s! %2!s! t=%3!04X! p=%8!04X! cpu=%9!d! seq=%7!d! %!LEVEL! %!FLAGS! %!FILE!:%!LINE! %!COMPNAME! %!NOPE! 100%% %10!s! %11!d!\" // LEVEL=TRACE_LEVEL_INFORMATION FLAGS=TRACE_UNIT FUNC=Unit_Pre\n"
    "{\n"
    "d, ItemDouble -- 10\n"
    "missing, ItemLong -- 11\n"
    "}\n"
    "#typev Unit_c70 13 \"%10!d! %11!u! %12!d! %13!u! %14!u! %15!s! %16!s! %17!s! %18!s! %19!s! %20!s! %21!s! %22!s! %23!s! %24!s! %25!s! %26!s! %27!c!\" // FUNC=Unit_Types\n"
    "{\n"
    "c, ItemChar -- 10\n"
    "uc, ItemUChar -- 11\n"
    "sh, ItemShort -- 12\n"
    "us, ItemUShort -- 13\n"
    "ul, ItemULong -- 14\n"
    "ux, ItemULongX -- 15\n"
    "g, ItemGuid -- 16\n"
    "hr, ItemHRESULT -- 17\n"
    "ps, ItemPString -- 18\n"
    "sid, ItemSid -- 19\n"
    "hx, ItemHEXDump -- 20\n"
    "ip, ItemIPAddr -- 21\n"
    "ip6, ItemIPV6Addr -- 22\n"
    "port, ItemPort -- 23\n"
    "ts, ItemTimestamp -- 24\n"
    "set, ItemSetByte(R,W,X) -- 25\n"
    "en, ItemEnum(MyEnum) -- 26\n"
    "ch, ItemChar -- 27\n"
    "}\n"
    "#typev Unit_c80 14 \"a=%10!d! b=%11!s! c=%12!d!\" // FUNC=Unit_Unknown\n"
    "{\n"
    "a, ItemLong -- 10\n"
    "b, ItemMagic -- 11\n"
    "c, ItemLong -- 12\n"
    "}\n";

/* A MESSAGE record: SEQUENCE|GUID|TIMESTAMP|SYSTEMINFO|POINTER64, then `args`. */
static size_t build(uint8_t *buf, uint16_t number, const uint8_t *args, size_t n)
{
    const uint16_t flags = ETL_WPP_SEQUENCE | ETL_WPP_GUID | ETL_WPP_TIMESTAMP | ETL_WPP_SYSTEMINFO | ETL_WPP_POINTER64;
    size_t size = 8 + 4 + 16 + 8 + 8 + n;
    memset(buf, 0, 512);
    etl_st16(buf, (uint16_t)size);
    buf[3] = 0x90;
    etl_st16(buf + 4, number);
    etl_st16(buf + 6, flags);
    etl_st32(buf + 8, 77); /* sequence */
    etl_guid g;
    etl_parse_guid("0a9ab260-f7e4-311e-a23e-f8ab6856dc72", &g);
    etl_st32(buf + 12, g.data1);
    etl_st16(buf + 16, g.data2);
    etl_st16(buf + 18, g.data3);
    memcpy(buf + 20, g.data4, 8);
    etl_st64(buf + 28, 134105813174552620LL); /* 2025-12-19T01:28:37.4552620Z */
    etl_st32(buf + 36, 0x1A8);                /* thread */
    etl_st32(buf + 40, 4);                    /* process */
    memcpy(buf + 44, args, n);
    return size;
}

static etl_tmf_store *store;
static etl_schema_cache *cache;
static etl_schema_builder builder;

/* Frame `buf`, compile its message, render it. */
static void render(const uint8_t *buf, size_t len, char *out, size_t cap)
{
    etl_record rec;
    uint32_t stride;
    etl_error err;
    out[0] = '\0';
    CHECK(etl_frame_record(buf, len + 8, 8, &rec, &stride, &err) == ETL_OK);
    rec.timestamp = rec.timestamp_raw;
    rec.has_timestamp = true;
    rec.cpu = 1;
    CHECK(rec.has_provider && rec.payload_size == len - 44);
    etl_tmf_message *m = etl_tmf_find(store, &rec.provider, rec.message_number);
    CHECK(m != NULL);
    const etl_schema *s = NULL;
    if (!m || etl_tmf_schema(cache, &builder, m, rec.pointer_size, &s, &err) != ETL_OK)
        return;
    etl_wpp_format(m, s, &rec, out, cap);
}

static size_t put32(uint8_t *p, uint32_t v)
{
    etl_st32(p, v);
    return 4;
}

static size_t put64(uint8_t *p, uint64_t v)
{
    etl_st64(p, v);
    return 8;
}

static void test_numbers(void)
{
    uint8_t args[128], buf[512];
    size_t n = 0;
    char out[1024];
    n += put32(args + n, 0xC0000001);                 /* NTSTATUS */
    n += put64(args + n, 0xFFFF95820BE02120ULL);       /* pointer */
    n += put64(args + n, 0x0000001A7DDA7100ULL);       /* a Bluetooth address */
    n += put32(args + n, (uint32_t)-12);
    n += put32(args + n, 0xFFFFFFFFu);
    n += put32(args + n, 0x0B);
    render(buf, build(buf, 10, args, n), out, sizeof out);
    CHECK_STR(out, "[Unit_Fn] status 0xC0000001 (STATUS_UNSUCCESSFUL) ptr FFFF95820BE02120 addr 001A7DDA7100 "
                   "n=-12 u=4294967295 b=0B");
    /* cut short: the fields that fit render, the missing ones stay as written */
    render(buf, build(buf, 10, args, 13), out, sizeof out);
    CHECK_STR(out, "[Unit_Fn] status 0xC0000001 (STATUS_UNSUCCESSFUL) ptr FFFF95820BE02120 addr %12!012I64X! "
                   "n=%13!d! u=%14!u! b=%15!02X!");
    /* a small output buffer: cut, NUL-terminated */
    char small[16];
    render(buf, build(buf, 10, args, n), small, sizeof small);
    CHECK_STR(small, "[Unit_Fn] statu");
}

static void test_strings(void)
{
    uint8_t args[256], buf[512];
    size_t n = 0;
    char out[1024];
    memcpy(args + n, "hello", 6);
    n += 6;
    static const uint8_t w[] = {'W', 0, 0xE9, 0, 0, 0}; /* "Wé" */
    memcpy(args + n, w, sizeof w);
    n += sizeof w;
    etl_st16(args + n, 6); /* UNICODE_STRING: byte count, then the characters */
    memcpy(args + n + 2, "a\0b\0c\0", 6);
    n += 8;
    args[n++] = 2;                     /* DPC */
    n += put64(args + n, (uint64_t)-5000000000LL);
    n += put32(args + n, 5);           /* ERROR_ACCESS_DENIED */
    n += put32(args + n, 0xBEEF);
    render(buf, build(buf, 11, args, n), out, sizeof out);
    CHECK_STR(out, "[Unit_Str] hello / W\xC3\xA9 / abc / DPC / -5000000000 / 5 (ERROR_ACCESS_DENIED) / beef");
    /* a list value past its names: the number */
    args[6 + sizeof w + 8] = 7;
    render(buf, build(buf, 11, args, n), out, sizeof out);
    CHECK(strstr(out, " / 7 / ") != NULL);
}

static void test_prefix_and_tags(void)
{
    uint8_t args[64], buf[512];
    size_t n = 0;
    char out[1024];
    double d = 2.5;
    uint64_t bits;
    memcpy(&bits, &d, 8);
    n += put64(args + n, bits);
    render(buf, build(buf, 12, args, n), out, sizeof out);
    CHECK_STR(out, "Comp Unit_c60 t=01A8 p=0004 cpu=1 seq=77 TRACE_LEVEL_INFORMATION TRACE_UNIT Unit.c:60 Comp "
                   "%!NOPE! 100% 2.5 %11!d!");
}

/* The Item types the shared TMFs do not use, each laid out as WPP logs it. */
static void test_other_types(void)
{
    uint8_t args[256], buf[512];
    size_t n = 0;
    char out[1024];
    args[n++] = (uint8_t)-3;                       /* ItemChar */
    args[n++] = 200;                                /* ItemUChar */
    etl_st16(args + n, (uint16_t)-300); n += 2;     /* ItemShort */
    etl_st16(args + n, 60000); n += 2;              /* ItemUShort */
    n += put32(args + n, 4000000000u);              /* ItemULong */
    n += put32(args + n, 0xBEEF);                   /* ItemULongX */
    static const uint8_t guid[16] = {0x41, 0xb8, 0xe9, 0x01, 0x67, 0x7d, 0x5a, 0x31,
                                     0x7b, 0x92, 0x23, 0xb2, 0x03, 0x33, 0x56, 0xde};
    memcpy(args + n, guid, 16); n += 16;            /* ItemGuid */
    n += put32(args + n, 0x80070005u);              /* ItemHRESULT */
    etl_st16(args + n, 3); memcpy(args + n + 2, "abc", 3); n += 5;          /* ItemPString */
    static const uint8_t sid[12] = {1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0};   /* S-1-5-18 */
    memcpy(args + n, sid, 12); n += 12;             /* ItemSid */
    etl_st16(args + n, 3); args[n + 2] = 0xDE; args[n + 3] = 0xAD; args[n + 4] = 0xBE; n += 5; /* ItemHEXDump */
    args[n++] = 192; args[n++] = 168; args[n++] = 1; args[n++] = 2;            /* ItemIPAddr */
    memset(args + n, 0, 16); args[n + 15] = 1; n += 16;                        /* ItemIPV6Addr ::1 */
    args[n++] = 0x01; args[n++] = 0xBB;             /* ItemPort 443, network order */
    n += put64(args + n, 134105813174552620ULL);    /* ItemTimestamp */
    args[n++] = 5;                                  /* ItemSetByte: R and X */
    n += put32(args + n, 7);                        /* ItemEnum */
    args[n++] = 'Z';                                /* ItemChar in %c */
    render(buf, build(buf, 13, args, n), out, sizeof out);
    CHECK_STR(out, "-3 200 -300 60000 4000000000 0xBEEF {01E9B841-7D67-315A-7B92-23B2033356DE} "
                   "0x80070005 (E_ACCESSDENIED) abc S-1-5-18 deadbe 192.168.1.2 ::1 443 "
                   "2025-12-19T01:28:37.4552620Z R | X 7 Z");
    /* an unknown Item type: the arguments before it, then nothing: its insert and the later
     * ones stay as written */
    n = 0;
    n += put32(args + n, 1);
    n += put32(args + n, 2);
    n += put32(args + n, 3);
    render(buf, build(buf, 14, args, n), out, sizeof out);
    CHECK_STR(out, "a=1 b=%11!s! c=%12!d!");
}

static void test_flag_names(void)
{
    char t[160];
    CHECK_EQ_U(etl_wpp_flags_text(0x00AA, t, sizeof t), strlen("GUID|TIMESTAMP|SYSTEMINFO|POINTER64"));
    CHECK_STR(t, "GUID|TIMESTAMP|SYSTEMINFO|POINTER64");
    etl_wpp_flags_text(0x0155, t, sizeof t);
    CHECK_STR(t, "SEQUENCE|COMPONENTID|PERFORMANCE_TIMESTAMP|POINTER32|0x0100");
    etl_wpp_flags_text(0, t, sizeof t);
    CHECK_STR(t, "");
    char tiny[6];
    etl_wpp_flags_text(0x00AA, tiny, sizeof tiny);
    CHECK_STR(tiny, "GUID");
}

int main(void)
{
    store = etl_tmf_store_new(NULL, NULL);
    etl_error err;
    CHECK(etl_tmf_add_text(store, TMF, strlen(TMF), "unit.tmf", &err) == ETL_OK);
    CHECK_EQ_U(etl_tmf_get_stats(store)->warnings, 1); /* ItemMagic */
    cache = etl_schema_cache_new(NULL);
    etl_schema_builder_init(&builder, NULL);
    test_numbers();
    test_strings();
    test_prefix_and_tags();
    test_other_types();
    test_flag_names();
    etl_schema_builder_free(&builder);
    etl_schema_cache_free(cache);
    etl_tmf_store_free(store);
    CHECK_MAIN_END();
}
