/* Unit tests of value_format.c: every TraceLogging in-type and the out-types Windows renders,
 * typed values and text, the fallback for unknown pairings, and the small error-name tables. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "etl_format.h"
#include "value_format.h"

static char text[4096];
static char scratch[4096];

/* text of (in, out, bytes) */
static const char *fmt(unsigned in, unsigned out, const void *p, size_t n)
{
    etl_value_format_raw(in, out, p, n, 8, text, sizeof text);
    return text;
}

static etl_value dec(unsigned in, unsigned out, const void *p, size_t n)
{
    etl_value v;
    etl_value_decode_raw(in, out, p, n, 8, &v, scratch, sizeof scratch);
    return v;
}

static void test_integers(void)
{
    uint8_t b;
    etl_value v;
    b = 0xFB;
    CHECK_STR(fmt(ETL_IN_INT8, 0, &b, 1), "-5");
    v = dec(ETL_IN_INT8, 0, &b, 1);
    CHECK(v.kind == ETL_VALUE_INT && v.v.i == -5 && v.bits == 8 && v.format == ETL_OUT_BYTE);
    CHECK_STR(fmt(ETL_IN_UINT8, 0, &b, 1), "251");
    CHECK_STR(fmt(ETL_IN_UINT8, ETL_OUT_HEXINT8, &b, 1), "0xFB");
    CHECK_STR(fmt(ETL_IN_INT8, ETL_OUT_UNSIGNEDBYTE, &b, 1), "251");
    CHECK_STR(fmt(ETL_IN_UINT8, ETL_OUT_BYTE, &b, 1), "-5");
    CHECK_STR(fmt(ETL_IN_UINT8, ETL_OUT_BOOLEAN, &b, 1), "true");
    b = 0;
    CHECK_STR(fmt(ETL_IN_UINT8, ETL_OUT_BOOLEAN, &b, 1), "false");
    v = dec(ETL_IN_UINT8, ETL_OUT_BOOLEAN, &b, 1);
    CHECK(v.kind == ETL_VALUE_BOOL && !v.v.b);
    /* chars: Windows-1252 for 8-bit, UCS-2 for 16-bit */
    b = 'M';
    CHECK_STR(fmt(ETL_IN_UINT8, ETL_OUT_STRING, &b, 1), "M");
    v = dec(ETL_IN_UINT8, ETL_OUT_STRING, &b, 1);
    CHECK(v.kind == ETL_VALUE_STRING && v.str_len == 1);
    b = 0x80;
    CHECK_STR(fmt(ETL_IN_INT8, ETL_OUT_STRING, &b, 1), "\xE2\x82\xAC"); /* euro sign */
    b = 0xE9;
    CHECK_STR(fmt(ETL_IN_UINT8, ETL_OUT_STRING, &b, 1), "\xC3\xA9"); /* e acute */
    b = 0;
    CHECK_STR(fmt(ETL_IN_UINT8, ETL_OUT_STRING, &b, 1), "");
    const uint8_t w[2] = {0xAC, 0x20};
    CHECK_STR(fmt(ETL_IN_UINT16, ETL_OUT_STRING, w, 2), "\xE2\x82\xAC");
    const uint8_t sur[2] = {0x00, 0xD8};
    CHECK_STR(fmt(ETL_IN_UINT16, ETL_OUT_STRING, sur, 2), "\xEF\xBF\xBD");

    const uint8_t i16[2] = {0x2E, 0xFB}; /* -1234 */
    CHECK_STR(fmt(ETL_IN_INT16, 0, i16, 2), "-1234");
    CHECK_STR(fmt(ETL_IN_UINT16, 0, i16, 2), "64302");
    CHECK_STR(fmt(ETL_IN_UINT16, ETL_OUT_HEXINT16, i16, 2), "0xFB2E");
    const uint8_t port[2] = {0x01, 0xBB}; /* 443, big-endian */
    CHECK_STR(fmt(ETL_IN_UINT16, ETL_OUT_PORT, port, 2), "443");
    v = dec(ETL_IN_UINT16, ETL_OUT_PORT, port, 2);
    CHECK(v.kind == ETL_VALUE_UINT && v.v.u == 443 && v.format == ETL_OUT_PORT);
    CHECK_STR(fmt(ETL_IN_INT16, ETL_OUT_PORT, port, 2), "-17663"); /* port only on UINT16 */

    const uint8_t i32[4] = {0x60, 0x79, 0xFE, 0xFF}; /* -100000 */
    CHECK_STR(fmt(ETL_IN_INT32, 0, i32, 4), "-100000");
    CHECK_STR(fmt(ETL_IN_UINT32, 0, i32, 4), "4294867296");
    CHECK_STR(fmt(ETL_IN_UINT32, ETL_OUT_INT, i32, 4), "-100000");
    CHECK_STR(fmt(ETL_IN_HEXINT32, 0, i32, 4), "0xFFFE7960");
    const uint8_t pid[4] = {0x92, 0x10, 0, 0};
    CHECK_STR(fmt(ETL_IN_UINT32, ETL_OUT_PID, pid, 4), "4242");
    CHECK_STR(fmt(ETL_IN_UINT32, ETL_OUT_TID, pid, 4), "4242");
    v = dec(ETL_IN_UINT32, ETL_OUT_TID, pid, 4);
    CHECK(v.kind == ETL_VALUE_UINT && v.format == ETL_OUT_TID && v.bits == 32);
    const uint8_t ip[4] = {192, 168, 1, 20};
    CHECK_STR(fmt(ETL_IN_UINT32, ETL_OUT_IPV4, ip, 4), "192.168.1.20");
    v = dec(ETL_IN_UINT32, ETL_OUT_IPV4, ip, 4);
    CHECK(v.kind == ETL_VALUE_BYTES && v.bytes == ip && v.bytes_len == 4);

    const uint8_t i64[8] = {0x00, 0xB0, 0xC6, 0xD8, 0x73, 0xFB, 0xFF, 0xFF}; /* -5000000000000 */
    CHECK_STR(fmt(ETL_IN_INT64, 0, i64, 8), "-5000000000000");
    CHECK_STR(fmt(ETL_IN_UINT64, 0, i64, 8), "18446739073709551616");
    CHECK_STR(fmt(ETL_IN_HEXINT64, 0, i64, 8), "0xFFFFFB73D8C6B000");
    CHECK_STR(fmt(ETL_IN_UINT64, ETL_OUT_HEXINT64, i64, 8), "0xFFFFFB73D8C6B000");
    const uint8_t max[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
    CHECK_STR(fmt(ETL_IN_INT64, 0, max, 8), "9223372036854775807");
    const uint8_t minv[8] = {0, 0, 0, 0, 0, 0, 0, 0x80};
    CHECK_STR(fmt(ETL_IN_INT64, 0, minv, 8), "-9223372036854775808");
    const uint8_t zero[8] = {0};
    CHECK_STR(fmt(ETL_IN_HEXINT64, 0, zero, 8), "0x0");

    /* the unsupported pointer type: by record bitness */
    const uint8_t ptr[8] = {0x34, 0x12, 0xCD, 0xAB, 0xF6, 0x7F, 0, 0};
    etl_value_format_raw(ETL_IN_POINTER, 0, ptr, 8, 8, text, sizeof text);
    CHECK_STR(text, "0x7FF6ABCD1234");
    etl_value_format_raw(ETL_IN_POINTER, 0, ptr, 4, 4, text, sizeof text);
    CHECK_STR(text, "0xABCD1234");
    etl_value_decode_raw(ETL_IN_POINTER, 0, ptr, 4, 4, &v, scratch, sizeof scratch);
    CHECK(v.kind == ETL_VALUE_UINT && v.bits == 32);
    CHECK_STR(fmt(ETL_IN_UINT64, ETL_OUT_CODE_POINTER, ptr, 8), "0x7FF6ABCD1234");
}

static void test_error_codes(void)
{
    const uint8_t e5[4] = {5, 0, 0, 0}, e1234[4] = {0xD2, 0x04, 0, 0};
    CHECK_STR(fmt(ETL_IN_UINT32, ETL_OUT_WIN32ERROR, e5, 4), "5 (ERROR_ACCESS_DENIED)");
    CHECK_STR(fmt(ETL_IN_UINT32, ETL_OUT_WIN32ERROR, e1234, 4), "1234");
    CHECK_STR(fmt(ETL_IN_HEXINT32, ETL_OUT_WIN32ERROR, e5, 4), "5 (ERROR_ACCESS_DENIED)");
    const uint8_t st[4] = {0x22, 0x00, 0x00, 0xC0};
    CHECK_STR(fmt(ETL_IN_UINT32, ETL_OUT_NTSTATUS, st, 4), "0xC0000022 (STATUS_ACCESS_DENIED)");
    CHECK_STR(fmt(ETL_IN_HEXINT32, ETL_OUT_NTSTATUS, st, 4), "0xC0000022 (STATUS_ACCESS_DENIED)");
    const uint8_t ok[4] = {0};
    CHECK_STR(fmt(ETL_IN_UINT32, ETL_OUT_NTSTATUS, ok, 4), "0x00000000 (STATUS_SUCCESS)");
    const uint8_t hr[4] = {0x05, 0x00, 0x07, 0x80};
    CHECK_STR(fmt(ETL_IN_INT32, ETL_OUT_HRESULT, hr, 4), "0x80070005 (E_ACCESSDENIED)");
    etl_value v = dec(ETL_IN_INT32, ETL_OUT_HRESULT, hr, 4);
    CHECK(v.kind == ETL_VALUE_UINT && v.v.u == 0x80070005u && v.format == ETL_OUT_HRESULT);
    const uint8_t hr32[4] = {0x20, 0x00, 0x07, 0x80}; /* HRESULT_FROM_WIN32(ERROR_SHARING_VIOLATION) */
    CHECK_STR(fmt(ETL_IN_INT32, ETL_OUT_HRESULT, hr32, 4), "0x80070020 (HRESULT_FROM_WIN32(ERROR_SHARING_VIOLATION))");
    const uint8_t hrx[4] = {0x34, 0x12, 0x00, 0x80};
    CHECK_STR(fmt(ETL_IN_INT32, ETL_OUT_HRESULT, hrx, 4), "0x80001234");
    CHECK_STR(etl_ntstatus_name(0xC0000005), "STATUS_ACCESS_VIOLATION");
    CHECK_STR(etl_win32_error_name(2), "ERROR_FILE_NOT_FOUND");
    CHECK_STR(etl_hresult_name(0x80004005), "E_FAIL");
    CHECK(etl_win32_error_name(99999) == NULL);
    /* the tables are sorted (binary search): every code finds its own name */
    static const uint32_t w[] = {0, 1, 87, 122, 258, 997, 1168, 1460, 10061};
    for (unsigned i = 0; i < sizeof w / sizeof w[0]; i++)
        CHECK(etl_win32_error_name(w[i]) != NULL);
    static const uint32_t n[] = {0, 0x103, 0x80000005, 0xC0000001, 0xC0000034, 0xC0000225, 0xC0000409};
    for (unsigned i = 0; i < sizeof n / sizeof n[0]; i++)
        CHECK(etl_ntstatus_name(n[i]) != NULL);
    static const uint32_t h[] = {0, 1, 0x8000000A, 0x80004002, 0x8000FFFF, 0x80070057, 0x80080005};
    for (unsigned i = 0; i < sizeof h / sizeof h[0]; i++)
        CHECK(etl_hresult_name(h[i]) != NULL);
}

static void test_floats_bools(void)
{
    float f = 1.5f, tenth = 0.1f;
    double d = -2.25, dt = 0.1, big = 1e300;
    CHECK_STR(fmt(ETL_IN_FLOAT, 0, &f, 4), "1.5");
    CHECK_STR(fmt(ETL_IN_FLOAT, 0, &tenth, 4), "0.1");
    CHECK_STR(fmt(ETL_IN_DOUBLE, 0, &d, 8), "-2.25");
    CHECK_STR(fmt(ETL_IN_DOUBLE, 0, &dt, 8), "0.1");
    CHECK_STR(fmt(ETL_IN_DOUBLE, 0, &big, 8), "1e+300");
    double third = 1.0 / 3;
    fmt(ETL_IN_DOUBLE, 0, &third, 8);
    CHECK(strtod(text, NULL) == third);
    double nan_ = NAN, inf = -INFINITY;
    CHECK_STR(fmt(ETL_IN_DOUBLE, 0, &nan_, 8), "NaN");
    CHECK_STR(fmt(ETL_IN_DOUBLE, 0, &inf, 8), "-Infinity");
    etl_value v = dec(ETL_IN_FLOAT, 0, &f, 4);
    CHECK(v.kind == ETL_VALUE_DOUBLE && v.v.d == 1.5 && v.bits == 32);
    const uint8_t b0[4] = {0}, b2[4] = {2, 0, 0, 0};
    CHECK_STR(fmt(ETL_IN_BOOLEAN, 0, b0, 4), "false");
    CHECK_STR(fmt(ETL_IN_BOOLEAN, 0, b2, 4), "true");
    v = dec(ETL_IN_BOOLEAN, 0, b2, 4);
    CHECK(v.kind == ETL_VALUE_BOOL && v.v.b && v.format == ETL_OUT_BOOLEAN);
}

static void test_strings(void)
{
    /* UTF-16 with a BMP letter, the euro sign and a surrogate pair (U+1F600), NUL-terminated */
    const uint8_t w[] = {'G', 0, 0xFC, 0, 0xAC, 0x20, 0x3D, 0xD8, 0x00, 0xDE, 0, 0};
    CHECK_STR(fmt(ETL_IN_UNICODESTRING, 0, w, sizeof w), "G\xC3\xBC\xE2\x82\xAC\xF0\x9F\x98\x80");
    CHECK_STR(fmt(ETL_IN_COUNTEDSTRING, 0, w, 6), "G\xC3\xBC\xE2\x82\xAC");
    CHECK_STR(fmt(ETL_IN_UNICODESTRING, ETL_OUT_XML, w, 2), "G");
    const uint8_t lone[] = {0x00, 0xDC, 'a', 0};
    CHECK_STR(fmt(ETL_IN_COUNTEDSTRING, 0, lone, 4), "\xEF\xBF\xBD" "a");
    etl_value v = dec(ETL_IN_UNICODESTRING, 0, w, sizeof w);
    CHECK(v.kind == ETL_VALUE_STRING && v.str_len == 10 && !v.truncated);
    /* 8-bit: UTF-8 as is (no copy), else Windows-1252 */
    const char *u8 = "caf\xC3\xA9";
    v = dec(ETL_IN_ANSISTRING, 0, u8, 6);
    CHECK(v.kind == ETL_VALUE_STRING && v.str == u8 && v.str_len == 5);
    CHECK_STR(fmt(ETL_IN_ANSISTRING, 0, u8, 6), "caf\xC3\xA9");
    const char *cp = "caf\xE9 \x93q\x94";
    CHECK_STR(fmt(ETL_IN_COUNTEDANSISTRING, 0, cp, 8), "caf\xC3\xA9 \xE2\x80\x9Cq\xE2\x80\x9D");
    CHECK_STR(fmt(ETL_IN_ANSISTRING, ETL_OUT_UTF8, "ok\0junk", 8), "ok");
    CHECK_STR(fmt(ETL_IN_ANSISTRING, ETL_OUT_JSON, "{\"k\":1}", 8), "{\"k\":1}");
    const char *overlong = "\xC0\xAF";
    CHECK_STR(fmt(ETL_IN_COUNTEDANSISTRING, 0, overlong, 2), "\xC3\x80\xC2\xAF");
    CHECK_STR(fmt(ETL_IN_COUNTEDANSISTRING, 0, "", 0), "");
    /* unterminated final string (tolerated): all of it */
    CHECK_STR(fmt(ETL_IN_ANSISTRING, 0, "abc", 3), "abc");
    /* SID */
    const uint8_t sid[] = {1, 5, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0xe9, 3, 0, 0};
    CHECK_STR(fmt(ETL_IN_SID, 0, sid, sizeof sid), "S-1-5-21-1-2-3-1001");
    v = dec(ETL_IN_SID, 0, sid, sizeof sid);
    CHECK(v.kind == ETL_VALUE_STRING);
    CHECK_STR(fmt(ETL_IN_SID, 0, sid, 9), "010500000000000515"); /* bad SID: bytes */

    /* small buffers: cut at a character boundary, flagged */
    char small[4];
    etl_value_format_raw(ETL_IN_ANSISTRING, 0, (const uint8_t *)"ab\xC3\xA9", 4, 8, small, sizeof small);
    CHECK_STR(small, "ab");
    char sb[8];
    etl_value_decode_raw(ETL_IN_COUNTEDANSISTRING, 0, (const uint8_t *)"\xE9\xE9\xE9\xE9\xE9", 5, 8, &v, sb, sizeof sb);
    CHECK(v.truncated && v.str_len == 6);
}

static void test_binary_addresses(void)
{
    const uint8_t bin[] = {0xDE, 0xAD, 0xBE, 0xEF};
    CHECK_STR(fmt(ETL_IN_BINARY, 0, bin, 4), "deadbeef");
    CHECK_STR(fmt(ETL_IN_COUNTEDBINARY, ETL_OUT_HEXBINARY, bin, 0), "");
    etl_value v = dec(ETL_IN_COUNTEDBINARY, 0, bin, 4);
    CHECK(v.kind == ETL_VALUE_BYTES && v.bytes == bin && v.bytes_len == 4 && v.format == ETL_OUT_HEXBINARY);
    CHECK_STR(fmt(ETL_IN_BINARY, ETL_OUT_PKCS7_WITH_TYPE_INFO, bin, 4), "deadbeef");

    /* IPv6, RFC 5952 */
    static const struct {
        uint8_t a[16];
        const char *s;
    } v6[] = {
        {{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, "2001:db8::1"},
        {{0}, "::"},
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, "::1"},
        {{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "1::"},
        {{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, "2001:db8:0:1:1:1:1:1"}, /* one zero group stays */
        {{0x20, 0x01, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}, "2001:0:0:1::1"},               /* longest run */
        {{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1}, "2001:db8::1:0:0:1"},     /* first of equal runs */
        {{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x1A, 0xFF, 0xFE, 0, 0, 0, 0x0A}, "fe80::21a:fffe:0:a"},
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 0, 2, 33}, "::ffff:192.0.2.33"},
    };
    for (unsigned i = 0; i < sizeof v6 / sizeof v6[0]; i++)
        CHECK_STR(fmt(ETL_IN_BINARY, ETL_OUT_IPV6, v6[i].a, 16), v6[i].s);
    CHECK_STR(fmt(ETL_IN_BINARY, ETL_OUT_IPV6, bin, 4), "deadbeef"); /* not 16 bytes */
    v = dec(ETL_IN_COUNTEDBINARY, ETL_OUT_IPV6, v6[0].a, 16);
    CHECK(v.kind == ETL_VALUE_BYTES && v.format == ETL_OUT_IPV6);

    /* socket addresses: AF_INET, AF_INET6 (23) with and without scope, unknown family */
    const uint8_t sa4[16] = {2, 0, 0x1F, 0x90, 10, 0, 0, 1};
    CHECK_STR(fmt(ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, sa4, 16), "10.0.0.1:8080");
    uint8_t sa6[28] = {23, 0, 0x01, 0xBB, 0, 0, 0, 0};
    sa6[8 + 15] = 1;
    CHECK_STR(fmt(ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, sa6, 28), "[::1]:443");
    sa6[8] = 0xfe;
    sa6[9] = 0x80;
    sa6[24] = 5;
    CHECK_STR(fmt(ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, sa6, 28), "[fe80::1%5]:443");
    const uint8_t sax[4] = {99, 0, 1, 2};
    CHECK_STR(fmt(ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, sax, 4), "63000102");
    CHECK_STR(fmt(ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, sa4, 6), "02001f900a00"); /* too short for AF_INET */
}

static void test_guid_times(void)
{
    const uint8_t g[16] = {0xc4, 0x14, 0xd6, 0x0a, 0xf4, 0x0e, 0x25, 0x42, 0x80, 0x13, 0xf4, 0x4f, 0x37, 0xcb, 0x03, 0x97};
    /* the one GUID form of every output: lower case, no braces (as etldump's JSON) */
    CHECK_STR(fmt(ETL_IN_GUID, 0, g, 16), "0ad614c4-0ef4-4225-8013-f44f37cb0397");
    etl_value v = dec(ETL_IN_GUID, 0, g, 16);
    CHECK(v.kind == ETL_VALUE_GUID && v.v.guid.data1 == 0x0ad614c4);
    /* primitive-types: file_time_type and system_time_type of the first event */
    const uint8_t ft[8] = {0x70, 0x10, 0xfa, 0x4d, 0x8b, 0xa5, 0xd7, 0x01};
    CHECK_STR(fmt(ETL_IN_FILETIME, 0, ft, 8), "2021-09-09T14:59:35.7990000Z");
    CHECK_STR(fmt(ETL_IN_FILETIME, ETL_OUT_DATETIME_UTC, ft, 8), "2021-09-09T14:59:35.7990000Z");
    v = dec(ETL_IN_FILETIME, 0, ft, 8);
    CHECK(v.kind == ETL_VALUE_FILETIME && v.v.filetime == 0x01d7a58b4dfa1070LL);
    const uint8_t st[16] = {0xe5, 0x07, 0x09, 0x00, 0x04, 0x00, 0x09, 0x00, 0x0e, 0x00, 0x3b, 0x00, 0x23, 0x00, 0x1f, 0x03};
    CHECK_STR(fmt(ETL_IN_SYSTEMTIME, 0, st, 16), "2021-09-09T14:59:35.7990000Z");
    v = dec(ETL_IN_SYSTEMTIME, ETL_OUT_CULTURE_INSENSITIVE_DATETIME, st, 16);
    CHECK(v.kind == ETL_VALUE_FILETIME && v.v.filetime == 0x01d7a58b4dfa1070LL);
    CHECK_EQ_U(v.format, ETL_OUT_CULTURE_INSENSITIVE_DATETIME);
    /* leap day, and an impossible date (Feb 29 2021): the raw bytes */
    uint8_t leap[16] = {0xe8, 0x07, 2, 0, 4, 0, 29, 0, 23, 0, 59, 0, 59, 0, 0xe7, 0x03};
    CHECK_STR(fmt(ETL_IN_SYSTEMTIME, 0, leap, 16), "2024-02-29T23:59:59.9990000Z");
    leap[0] = 0xe5;
    v = dec(ETL_IN_SYSTEMTIME, 0, leap, 16);
    CHECK(v.kind == ETL_VALUE_BYTES);
    CHECK_STR(fmt(ETL_IN_SYSTEMTIME, 0, leap, 16), "e507020004001d0017003b003b00e703");
    const uint8_t y1601[16] = {0x41, 0x06, 1, 0, 1, 0, 1, 0};
    CHECK_STR(fmt(ETL_IN_SYSTEMTIME, 0, y1601, 16), "1601-01-01T00:00:00.0000000Z");
    /* FILETIME beyond year 9999: the number */
    const uint8_t huge[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
    v = dec(ETL_IN_FILETIME, 0, huge, 8);
    CHECK(v.kind == ETL_VALUE_UINT);
    CHECK_STR(fmt(ETL_IN_FILETIME, 0, huge, 8), "9223372036854775807");
    int64_t out;
    CHECK(etl_systemtime_to_filetime(st, &out) && out == 0x01d7a58b4dfa1070LL);
    char gb[ETL_GUID_BRACED_STR_SIZE];
    etl_guid gg;
    etl_read_guid(g, &gg);
    etl_format_guid_braced(&gg, gb);
    CHECK_STR(gb, "{0AD614C4-0EF4-4225-8013-F44F37CB0397}");
}

static void test_fallbacks(void)
{
    const uint8_t u[4] = {7, 0, 0, 0};
    /* an unknown pairing renders as the in-type's default */
    CHECK_STR(fmt(ETL_IN_UINT32, ETL_OUT_GUID, u, 4), "7");
    CHECK_EQ_U(etl_value_effective_format(ETL_IN_UINT32, ETL_OUT_GUID), ETL_OUT_UNSIGNEDINT);
    CHECK_STR(fmt(ETL_IN_INT8, ETL_OUT_IPV6, u, 1), "7");
    CHECK_STR(fmt(ETL_IN_UINT32, ETL_OUT_NOPRINT, u, 4), "7");
    CHECK_STR(fmt(ETL_IN_UINT32, 999, u, 4), "7");
    CHECK_STR(fmt(ETL_IN_UNICODESTRING, ETL_OUT_UTF8, "a\0\0\0", 4), "a");
    CHECK_EQ_U(etl_value_effective_format(ETL_IN_ANSISTRING, ETL_OUT_UTF8), ETL_OUT_UTF8);
    CHECK_EQ_U(etl_value_effective_format(ETL_IN_FILETIME, ETL_OUT_HEXINT64), ETL_OUT_DATETIME);
    CHECK_EQ_U(etl_value_effective_format(ETL_IN_POINTER, 0), ETL_OUT_HEXINT64);
    CHECK_EQ_U(etl_value_effective_format(ETL_IN_SID, 0), ETL_OUT_STRING);
    /* too few bytes for the type: NONE, shown as hex */
    etl_value v = dec(ETL_IN_UINT32, 0, u, 3);
    CHECK(v.kind == ETL_VALUE_NONE);
    CHECK_STR(fmt(ETL_IN_UINT32, 0, u, 3), "070000");
    CHECK_STR(fmt(ETL_IN_GUID, 0, u, 4), "07000000");
    /* unknown in-types: bytes */
    CHECK_STR(fmt(26, 0, u, 2), "0700");
    CHECK_STR(fmt(ETL_IN_STRUCT, 0, u, 1), "07");
}

static void test_items_and_char_arrays(void)
{
    /* through an item: custom fields are binary whatever their out-type slot says */
    const uint8_t data[3] = {1, 2, 3};
    etl_item it = {0};
    it.kind = ETL_ITEM_VALUE;
    it.in_type = ETL_IN_COUNTEDBINARY;
    it.out_type = ETL_OUT_IPV6;
    it.custom = true;
    it.data = data;
    it.size = 3;
    it.pointer_size = 8;
    etl_value_format(&it, text, sizeof text);
    CHECK_STR(text, "010203");
    etl_value v;
    etl_value_decode(&it, &v, scratch, sizeof scratch);
    CHECK(v.kind == ETL_VALUE_BYTES && v.format == ETL_OUT_HEXBINARY);

    /* char arrays */
    const uint8_t w[] = {'h', 0, 'i', 0, 0xAC, 0x20};
    etl_item a = {0};
    a.kind = ETL_ITEM_ARRAY_BEGIN;
    a.in_type = ETL_IN_UINT16;
    a.out_type = ETL_OUT_STRING;
    a.elem_size = 2;
    a.array_count = 3;
    a.data = w;
    a.size = 6;
    CHECK(etl_value_is_char_array(&a));
    bool cut;
    size_t n = etl_value_char_array(&a, text, sizeof text, &cut);
    CHECK_STR(text, "hi\xE2\x82\xAC");
    CHECK(n == 5 && !cut);
    a.out_type = ETL_OUT_NULL;
    CHECK(!etl_value_is_char_array(&a));
    a.out_type = ETL_OUT_STRING;
    a.in_type = ETL_IN_UINT8;
    a.elem_size = 1;
    a.data = (const uint8_t *)"ab\xE9";
    a.size = 3;
    CHECK(etl_value_is_char_array(&a));
    etl_value_char_array(&a, text, sizeof text, &cut);
    CHECK_STR(text, "ab\xC3\xA9");
    a.data = (const uint8_t *)"xy\0z";
    a.size = 4;
    etl_value_char_array(&a, text, sizeof text, &cut);
    CHECK_STR(text, "xy");
    char small[3];
    a.data = (const uint8_t *)"abcdef";
    a.size = 6;
    etl_value_char_array(&a, small, sizeof small, &cut);
    CHECK(cut);
    CHECK_STR(small, "ab");
    a.in_type = ETL_IN_UINT32;
    a.elem_size = 4;
    CHECK(!etl_value_is_char_array(&a));
    a.in_type = ETL_IN_UINT8;
    a.data = NULL; /* elements not at hand */
    CHECK(!etl_value_is_char_array(&a));
}

/* Numbers against printf around every digit-count change (decimal, hex, 8-digit hex codes). */
static void test_number_widths(void)
{
    int bad = 0;
    for (int shift = 0; shift < 64; shift++)
        for (int d = -1; d <= 1; d++) {
            uint64_t v = ((uint64_t)1 << shift) + (uint64_t)(int64_t)d, p10 = 1;
            for (int k = 0; k < 20; k++, p10 *= 10) {
                uint64_t vals[2] = {v, p10 + (uint64_t)(int64_t)d};
                for (int i = 0; i < 2; i++) {
                    uint8_t b[8];
                    char want[32];
                    for (int k2 = 0; k2 < 8; k2++)
                        b[k2] = (uint8_t)(vals[i] >> (8 * k2));
                    snprintf(want, sizeof want, "%llu", (unsigned long long)vals[i]);
                    bad += strcmp(fmt(ETL_IN_UINT64, 0, b, 8), want) != 0;
                    snprintf(want, sizeof want, "0x%llX", (unsigned long long)vals[i]);
                    bad += strcmp(fmt(ETL_IN_UINT64, ETL_OUT_HEXINT64, b, 8), want) != 0;
                    snprintf(want, sizeof want, "0x%08X", (unsigned)vals[i]);
                    /* an NTSTATUS with no name: 8 hex digits */
                    if (!etl_ntstatus_name((uint32_t)vals[i]))
                        bad += strcmp(fmt(ETL_IN_UINT32, ETL_OUT_NTSTATUS, b, 4), want) != 0;
                }
            }
        }
    CHECK_EQ_U(bad, 0);
}

/* The one rule for how an integer's text is written (hex, decimal, with a code name). */
static void test_int_style(void)
{
    static const uint8_t four[4] = {5, 0, 0, 0};
    static const struct { unsigned in, out; etl_int_style style; } cases[] = {
        {ETL_IN_UINT32, ETL_OUT_NULL, ETL_INT_DECIMAL},
        {ETL_IN_UINT32, ETL_OUT_HEXINT32, ETL_INT_HEX},
        {ETL_IN_HEXINT32, ETL_OUT_NULL, ETL_INT_HEX},
        {ETL_IN_UINT32, ETL_OUT_WIN32ERROR, ETL_INT_CODE},
        {ETL_IN_UINT32, ETL_OUT_NTSTATUS, ETL_INT_CODE_HEX},
        {ETL_IN_UINT32, ETL_OUT_HRESULT, ETL_INT_CODE_HEX},
        {ETL_IN_INT32, ETL_OUT_NULL, ETL_INT_DECIMAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        etl_value v;
        char buf[64];
        etl_value_decode_raw(cases[i].in, cases[i].out, four, 4, 8, &v, buf, sizeof buf);
        CHECK(etl_value_int_style(&v) == cases[i].style);
        CHECK(etl_value_is_hex(&v) == (cases[i].style == ETL_INT_HEX || cases[i].style == ETL_INT_CODE_HEX));
        etl_value_text(&v, buf, sizeof buf);
        CHECK((strncmp(buf, "0x", 2) == 0) == etl_value_is_hex(&v));
    }
}

/* A plain reference for UTF-16LE units to UTF-8 (etl_value_decode's rules: a NUL unit ends the
 * string, an unpaired surrogate is U+FFFD), one character at a time. */
static size_t utf16_reference(const uint16_t *u, size_t n, char *out, size_t *ends, size_t *n_ends)
{
    size_t o = 0, k = 0;
    for (size_t i = 0; i < n && u[i]; i++) {
        uint32_t c = u[i];
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < n && u[i + 1] >= 0xDC00 && u[i + 1] < 0xE000)
            c = 0x10000 + ((c - 0xD800) << 10) + (u[++i] - 0xDC00);
        else if (c >= 0xD800 && c < 0xE000)
            c = 0xFFFD;
        if (c < 0x80) {
            out[o++] = (char)c;
        } else if (c < 0x800) {
            out[o++] = (char)(0xC0 | c >> 6);
            out[o++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out[o++] = (char)(0xE0 | c >> 12);
            out[o++] = (char)(0x80 | (c >> 6 & 0x3F));
            out[o++] = (char)(0x80 | (c & 0x3F));
        } else {
            out[o++] = (char)(0xF0 | c >> 18);
            out[o++] = (char)(0x80 | (c >> 12 & 0x3F));
            out[o++] = (char)(0x80 | (c >> 6 & 0x3F));
            out[o++] = (char)(0x80 | (c & 0x3F));
        }
        ends[k++] = o;
    }
    *n_ends = k;
    return o;
}

/* UTF-16 strings of every length up to 40 units (the converter takes 8 and 4 ASCII units at a
 * time, then one), each with one unit that stops those steps at each position - a NUL, 0x7F and
 * 0x80, a letter beyond Latin-1, a surrogate pair, a lone surrogate - against the reference, and
 * at every buffer size (the cut at the last whole character that fits, flagged). */
static void test_utf16_steps(void)
{
    static const uint16_t odd[][2] = {{0, 0}, {0x7F, 0}, {0x80, 0}, {0x20AC, 0}, {0xD83D, 0xDE00}, {0xDC00, 0}};
    unsigned bad = 0, cases = 0;
    for (size_t len = 0; len <= 40; len++)
        for (size_t at = 0; at <= len; at++)
            for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) {
                uint16_t u[48];
                size_t n = 0;
                for (size_t i = 0; i < len; i++) {
                    if (i == at) {
                        u[n++] = odd[k][0];
                        if (odd[k][1])
                            u[n++] = odd[k][1];
                    }
                    u[n++] = (uint16_t)('a' + i % 26);
                }
                uint8_t bytes[96];
                for (size_t i = 0; i < n; i++) {
                    bytes[2 * i] = (uint8_t)u[i];
                    bytes[2 * i + 1] = (uint8_t)(u[i] >> 8);
                }
                char want[256];
                size_t ends[64], n_ends;
                size_t nw = utf16_reference(u, n, want, ends, &n_ends);
                for (size_t cap = 1; cap <= nw + 2; cap++) {
                    char buf[256];
                    etl_value v;
                    etl_value_decode_raw(ETL_IN_UNICODESTRING, 0, bytes, 2 * n, 8, &v, buf, cap);
                    size_t fit = 0; /* the longest run of whole characters within cap - 1 bytes */
                    for (size_t e = 0; e < n_ends && ends[e] <= cap - 1; e++)
                        fit = ends[e];
                    bad += v.kind != ETL_VALUE_STRING || v.str_len != fit || memcmp(v.str, want, fit) != 0 ||
                           v.str[fit] != '\0' || v.truncated != (fit < nw);
                    /* the text of the value, converted straight into the output, cut the same */
                    char t[256];
                    bad += etl_value_format_raw(ETL_IN_UNICODESTRING, 0, bytes, 2 * n, 8, t, cap) != fit ||
                           memcmp(t, want, fit) != 0 || t[fit] != '\0';
                    cases++;
                }
            }
    CHECK(cases > 10000);
    CHECK_EQ_U(bad, 0);
}

/* etl_scalar_text (its own digit count, digits written in place) against etl_value_text of the
 * same number in each plain style, at every digit-count edge: 0, each power of 2 and of 10 and
 * the numbers beside them, the extremes, and their negations. */
static void test_scalar_text(void)
{
    uint64_t xs[400];
    size_t n = 0;
    xs[n++] = 0;
    xs[n++] = UINT64_MAX;
    for (unsigned k = 0; k < 64; k++) {
        uint64_t p2 = 1ULL << k;
        xs[n++] = p2;
        xs[n++] = p2 - 1;
        xs[n++] = p2 + 1;
    }
    for (uint64_t p10 = 1;; p10 *= 10) {
        xs[n++] = p10;
        xs[n++] = p10 - 1;
        xs[n++] = p10 + 1;
        if (p10 > UINT64_MAX / 10)
            break;
    }
    unsigned bad = 0;
    for (size_t i = 0; i < n; i++)
        for (int neg = 0; neg < 2; neg++) {
            uint64_t x = neg ? (uint64_t)0 - xs[i] : xs[i];
            static const etl_scalar_style styles[] = {ETL_SCALAR_UINT, ETL_SCALAR_INT, ETL_SCALAR_HEX};
            for (size_t k = 0; k < 3; k++) {
                etl_scalar sc = {.u = x, .style = (uint8_t)styles[k]};
                etl_value v = {.kind = styles[k] == ETL_SCALAR_INT ? ETL_VALUE_INT : ETL_VALUE_UINT,
                               .format = styles[k] == ETL_SCALAR_HEX ? ETL_OUT_HEXINT64 : ETL_OUT_NULL,
                               .bits = 64};
                v.v.u = x;
                char want[64], got[ETL_SCALAR_TEXT_MAX + 8];
                memset(got, '?', sizeof got);
                size_t nw = etl_value_text(&v, want, sizeof want);
                size_t ng = etl_scalar_text(&sc, got);
                bad += ng != nw || strcmp(got, want) != 0 || got[ETL_SCALAR_TEXT_MAX] != '?';
            }
        }
    CHECK_EQ_U(bad, 0);
    etl_scalar hex0 = {.u = 0, .style = ETL_SCALAR_HEX}, min = {.u = 1ULL << 63, .style = ETL_SCALAR_INT};
    char t[ETL_SCALAR_TEXT_MAX];
    etl_scalar_text(&hex0, t);
    CHECK_STR(t, "0x0");
    CHECK_EQ_U(etl_scalar_text(&min, t), 20);
    CHECK_STR(t, "-9223372036854775808");
}

int main(void)
{
    test_scalar_text();
    test_utf16_steps();
    test_int_style();
    test_number_widths();
    test_integers();
    test_error_codes();
    test_floats_bools();
    test_strings();
    test_binary_addresses();
    test_guid_times();
    test_fallbacks();
    test_items_and_char_arrays();
    CHECK_MAIN_END();
}
