/* Unit tests of format.c and text.c: GUIDs, SIDs, FILETIMEs, hex, UTF-16. */
#define _POSIX_C_SOURCE 200809L /* gmtime_r, the reference for the calendar */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "etl_format.h"
#include "text.h"

static void test_guid(void)
{
    /* {b8ddcea7-b520-4909-bceb-e0170c9f0e99} as stored (mixed-endian) */
    const uint8_t raw[16] = {0xa7, 0xce, 0xdd, 0xb8, 0x20, 0xb5, 0x09, 0x49, 0xbc, 0xeb, 0xe0, 0x17, 0x0c, 0x9f, 0x0e, 0x99};
    etl_guid g, p;
    char s[ETL_GUID_STR_SIZE];
    etl_read_guid(raw, &g);
    etl_format_guid(&g, s);
    CHECK_STR(s, "b8ddcea7-b520-4909-bceb-e0170c9f0e99");
    CHECK(etl_parse_guid("{B8DDCEA7-B520-4909-BCEB-E0170C9F0E99}", &p));
    CHECK(etl_guid_equal(&g, &p));
    CHECK(etl_parse_guid("b8ddcea7-b520-4909-bceb-e0170c9f0e99", &p));
    CHECK(etl_guid_equal(&g, &p));
    CHECK(!etl_parse_guid("b8ddcea7-b520-4909-bceb-e0170c9f0e9", &p));
    CHECK(!etl_parse_guid("{b8ddcea7-b520-4909-bceb-e0170c9f0e99", &p));
    CHECK(!etl_parse_guid("b8ddcea7xb520-4909-bceb-e0170c9f0e99", &p));
}

static void test_filetime(void)
{
    char s[ETL_TIME_STR_SIZE];
    CHECK(etl_format_filetime(116444736000000000LL, s));
    CHECK_STR(s, "1970-01-01T00:00:00.0000000Z");
    CHECK(etl_format_filetime(0, s));
    CHECK_STR(s, "1601-01-01T00:00:00.0000000Z");
    /* primitive-types StartTime; the golden shows StartTime=21/09/09 14:59:32.85 (UTC) */
    CHECK(etl_format_filetime(132756731728578510LL, s));
    CHECK_STR(s, "2021-09-09T14:59:32.8578510Z");
    CHECK(!etl_format_filetime(-1, s));
    CHECK_STR(s, "invalid");
    CHECK(etl_format_filetime(2650467743999999999LL, s));
    CHECK_STR(s, "9999-12-31T23:59:59.9999999Z");
    CHECK(!etl_format_filetime(2650467744000000000LL, s));
    /* the calendar against the C library's, 2 days, 7 hours and 13.1234567 seconds apart across
     * the whole range (every leap rule: 1700, 1900, 2100 are not leap years, 1600, 2000 are) */
    int bad = 0;
    for (int64_t ft = 0; ft <= 2650467743999999999LL; ft += (2 * 86400LL + 7 * 3600 + 13) * 10000000LL + 1234567) {
        time_t t = (time_t)(ft / 10000000 - 11644473600LL);
        struct tm tm;
        char want[64];
        if (!gmtime_r(&t, &tm))
            continue;
        snprintf(want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02d.%07dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ft % 10000000));
        bad += !etl_format_filetime(ft, s) || strcmp(s, want) != 0;
    }
    CHECK_EQ_U(bad, 0);
    int64_t secs;
    int32_t ns;
    etl_filetime_to_unix(116444736000000001LL, &secs, &ns);
    CHECK(secs == 0 && ns == 100);
    etl_filetime_to_unix(116444735999999999LL, &secs, &ns);
    CHECK(secs == -1 && ns == 999999900);
}

static void test_sid(void)
{
    char s[ETL_SID_STR_SIZE];
    /* S-1-5-21-1-2-3-1001 */
    const uint8_t sid[] = {1, 5, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0xe9, 3, 0, 0};
    CHECK_EQ_U(etl_format_sid(sid, sizeof sid, s), sizeof sid);
    CHECK_STR(s, "S-1-5-21-1-2-3-1001");
    CHECK_EQ_U(etl_format_sid(sid, sizeof sid - 1, s), 0); /* too short for its count */
    const uint8_t big[] = {1, 0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc};
    CHECK_EQ_U(etl_format_sid(big, sizeof big, s), 8);
    CHECK_STR(s, "S-1-0x123456789ABC");
    const uint8_t bad[] = {1, 16, 0, 0, 0, 0, 0, 5};
    CHECK_EQ_U(etl_format_sid(bad, sizeof bad, s), 0);
}

static void test_hex_and_text(void)
{
    char s[16];
    const uint8_t b[] = {0x00, 0xab, 0x7f};
    etl_format_hex(b, 3, s);
    CHECK_STR(s, "00ab7f");
    /* every length up to 70 (the 16-byte steps and the rest), from three alignments, against
     * printf, and nothing written past the NUL */
    uint8_t bytes[80];
    for (unsigned i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(i * 37 + 11);
    int bad = 0;
    for (size_t at = 0; at < 3; at++)
        for (size_t n = 0; n <= 70; n++) {
            char got[200], want[200];
            memset(got, '#', sizeof got);
            etl_format_hex(bytes + at, n, got);
            for (size_t i = 0; i < n; i++)
                snprintf(want + 2 * i, 3, "%02x", bytes[at + i]);
            want[2 * n] = '\0';
            bad += memcmp(got, want, 2 * n + 1) != 0 || got[2 * n + 1] != '#';
        }
    CHECK_EQ_U(bad, 0);
    /* "aé€😀" in UTF-16LE with a terminator and trailing junk */
    const uint8_t u[] = {'a', 0, 0xe9, 0, 0xac, 0x20, 0x3d, 0xd8, 0x00, 0xde, 0, 0, 'x', 0};
    char out[32];
    size_t used;
    etl_utf16_to_utf8(u, sizeof u, out, sizeof out, &used);
    CHECK_STR(out, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    CHECK_EQ_U(used, 12);
    /* unpaired surrogate, odd length, tiny output */
    const uint8_t v[] = {0x00, 0xd8, 'b', 0, 'c'};
    etl_utf16_to_utf8(v, sizeof v, out, sizeof out, &used);
    CHECK_STR(out, "\xef\xbf\xbd" "b");
    char tiny[3];
    etl_utf16_to_utf8(u, sizeof u, tiny, sizeof tiny, &used);
    CHECK_STR(tiny, "a"); /* "é" needs 2 bytes + NUL: cut at a character boundary */
    CHECK_EQ_U(used, 12);
}

/* The cached form gives etl_format_filetime's text for every value: runs inside one second,
 * steps across seconds, days and years, jumps back, and the invalid ends. */
static void test_filetime_cached(void)
{
    etl_time_cache c = {0};
    char a[ETL_TIME_STR_SIZE], b[ETL_TIME_STR_SIZE];
    int64_t ft = 132756731728578510LL;
    uint64_t x = 88172645463325252ULL;
    unsigned same = 0, n = 0;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        switch (x % 8) {
        case 0: ft += (int64_t)(x % 864000000000ULL); break;          /* up to a day on */
        case 1: ft -= (int64_t)(x % 20000000); break;                 /* back a little */
        case 2: ft = (int64_t)(x % 2650467744000000000ULL); break;   /* anywhere */
        default: ft += (int64_t)(x % 3000); break;                    /* the same second, mostly */
        }
        if (i % 50000 == 7)
            ft = -5;
        if (i % 50000 == 8)
            ft = 2650467743999999999LL + 1;
        if (i % 50000 == 9)
            ft = 2650467743999999999LL;
        bool ok1 = etl_format_filetime(ft, a), ok2 = etl_format_filetime_cached(ft, b, &c);
        bool eq = ok1 == ok2 && (!ok1 || strcmp(a, b) == 0);
        same += eq;
        n++;
        if (!eq)
            fprintf(stderr, "  %lld: %s vs %s\n", (long long)ft, a, b);
    }
    CHECK_EQ_U(same, n);
}

int main(void)
{
    test_guid();
    test_filetime();
    test_filetime_cached();
    test_sid();
    test_hex_and_text();
    CHECK_MAIN_END();
}
