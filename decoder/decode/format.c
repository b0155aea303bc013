/* format.c - GUIDs, SIDs, times and hex as text: the formatter every output path shares. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bytes.h"
#include "etl_format.h"

void etl_read_guid(const uint8_t *p, etl_guid *g)
{
    g->data1 = etl_ld32(p);
    g->data2 = etl_ld16(p + 4);
    g->data3 = etl_ld16(p + 6);
    memcpy(g->data4, p + 8, 8);
}

bool etl_guid_equal(const etl_guid *a, const etl_guid *b)
{
    return a->data1 == b->data1 && a->data2 == b->data2 && a->data3 == b->data3 &&
           memcmp(a->data4, b->data4, 8) == 0;
}

const char etl_hex_pairs_lower[513] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                                      "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                                      "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
                                      "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
                                      "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
                                      "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
                                      "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
                                      "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
const char etl_hex_pairs_upper[513] = "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
                                      "202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F"
                                      "404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F"
                                      "606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F"
                                      "808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9F"
                                      "A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF"
                                      "C0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDF"
                                      "E0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF";
const char etl_dec_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";

void etl_format_guid(const etl_guid *g, char out[ETL_GUID_STR_SIZE])
{
#if defined(__SSE2__)
    /* the 16 bytes in text order, as hex in one step (etl_format_hex), then in 8-4-4-4-12 */
    uint8_t b[16];
    uint32_t d1 = g->data1;
    uint16_t d2 = g->data2, d3 = g->data3;
    b[0] = (uint8_t)(d1 >> 24), b[1] = (uint8_t)(d1 >> 16), b[2] = (uint8_t)(d1 >> 8), b[3] = (uint8_t)d1;
    b[4] = (uint8_t)(d2 >> 8), b[5] = (uint8_t)d2, b[6] = (uint8_t)(d3 >> 8), b[7] = (uint8_t)d3;
    memcpy(b + 8, g->data4, 8);
    char h[33];
    etl_format_hex(b, 16, h);
    memcpy(out, h, 8);
    memcpy(out + 9, h + 8, 4);
    memcpy(out + 14, h + 12, 4);
    memcpy(out + 19, h + 16, 4);
    memcpy(out + 24, h + 20, 12);
    out[8] = out[13] = out[18] = out[23] = '-';
    out[36] = '\0';
#else
    /* the GUID's bytes in text order (Data1..3 as numbers, most significant first), then each
     * byte's pair at its place in 8-4-4-4-12 */
    const uint8_t b[16] = {(uint8_t)(g->data1 >> 24), (uint8_t)(g->data1 >> 16), (uint8_t)(g->data1 >> 8),
                           (uint8_t)g->data1,         (uint8_t)(g->data2 >> 8),  (uint8_t)g->data2,
                           (uint8_t)(g->data3 >> 8),  (uint8_t)g->data3,         g->data4[0],
                           g->data4[1],               g->data4[2],               g->data4[3],
                           g->data4[4],               g->data4[5],               g->data4[6],
                           g->data4[7]};
    static const uint8_t at[16] = {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34};
    for (int i = 0; i < 16; i++)
        memcpy(out + at[i], etl_hex_pairs_lower + 2 * b[i], 2); /* 16 lookups, not 32 shifts */
    out[8] = out[13] = out[18] = out[23] = '-';
    out[36] = '\0';
#endif
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

bool etl_parse_guid(const char *s, etl_guid *g)
{
    uint8_t b[16];
    size_t n = 0;
    bool brace = *s == '{';
    if (brace)
        s++;
    /* 8-4-4-4-12 hex digits */
    static const int groups[] = {8, 4, 4, 4, 12};
    for (int gi = 0; gi < 5; gi++) {
        if (gi && *s++ != '-')
            return false;
        for (int k = 0; k < groups[gi]; k += 2) {
            int hi = hexval((unsigned char)s[0]), lo = hi < 0 ? -1 : hexval((unsigned char)s[1]);
            if (hi < 0 || lo < 0)
                return false;
            b[n++] = (uint8_t)(hi << 4 | lo);
            s += 2;
        }
    }
    if (brace && *s++ != '}')
        return false;
    if (*s)
        return false;
    g->data1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    g->data2 = (uint16_t)(b[4] << 8 | b[5]);
    g->data3 = (uint16_t)(b[6] << 8 | b[7]);
    memcpy(g->data4, b + 8, 8);
    return true;
}

#define FILETIME_UNIX_EPOCH 116444736000000000LL /* 100 ns ticks from 1601 to 1970 */

void etl_filetime_to_unix(int64_t ft, int64_t *secs, int32_t *nsecs)
{
    int64_t t = ft - FILETIME_UNIX_EPOCH; /* no overflow: |ft| < 2^63 - epoch for real values */
    int64_t s = t / 10000000, r = t % 10000000;
    if (r < 0) {
        r += 10000000;
        s -= 1;
    }
    *secs = s;
    *nsecs = (int32_t)(r * 100);
}

/* The proleptic Gregorian date of a day counted from 1970-01-01 (negative before it).  Plain
 * arithmetic instead of gmtime_r, which takes glibc's time-zone lock on every call: this runs
 * for every record of every output.  The calendar repeats every 400 years (146097 days); days
 * are counted from 0000-03-01 so that the leap day is the last day of its year. */
static void civil_from_days(int64_t days, int *year, int *month, int *day)
{
    int64_t z = days + 719468; /* 1970-01-01 is day 719468 after 0000-03-01 */
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;                                   /* [0, 146096] */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);              /* [0, 365], from March 1 */
    int64_t mp = (5 * doy + 2) / 153;                                   /* [0, 11], March = 0 */
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = (int)(yoe + era * 400 + (*month <= 2));
}

bool etl_format_filetime(int64_t ft, char out[ETL_TIME_STR_SIZE])
{
    /* Year 9999 ends at FILETIME 2650467743999999999. */
    if (ft < 0 || ft > 2650467743999999999LL) {
        snprintf(out, ETL_TIME_STR_SIZE, "invalid");
        return false;
    }
    int64_t secs;
    int32_t ns;
    etl_filetime_to_unix(ft, &secs, &ns);
    int64_t days = secs / 86400, sod = secs % 86400;
    if (sod < 0) {
        sod += 86400;
        days--;
    }
    int year, month, day;
    civil_from_days(days, &year, &month, &day);
    /* Fixed-width digits by hand, two at a time: the year is 1601..9999 here, so the text is
     * always 28 bytes. */
    const char *pairs = etl_dec_pairs;
    static const char layout[] = "0000-00-00T00:00:00.0000000Z";
    int frac = ns / 100;
    const int two[][2] = {{year / 100, 0},          {year % 100, 2},        {month, 5},
                          {day, 8},                 {(int)(sod / 3600), 11}, {(int)(sod / 60 % 60), 14},
                          {(int)(sod % 60), 17},    {frac / 100000, 20},    {frac / 1000 % 100, 22},
                          {frac / 10 % 100, 24}};
    memcpy(out, layout, sizeof layout);
    for (size_t f = 0; f < sizeof two / sizeof two[0]; f++)
        memcpy(out + two[f][1], pairs + 2 * two[f][0], 2);
    out[26] = (char)('0' + frac % 10);
    return true;
}

bool etl_format_filetime_cached(int64_t ft, char out[ETL_TIME_STR_SIZE], etl_time_cache *c)
{
    if (ft < 0 || ft > 2650467743999999999LL || ft / 10000000 != c->second || !c->valid) {
        bool ok = etl_format_filetime(ft, out);
        if (ok) {
            memcpy(c->text, out, ETL_TIME_TEXT_LEN + 1);
            c->second = ft / 10000000;
            c->valid = true;
        }
        return ok;
    }
    /* same second: the cached text with this value's 7 fraction digits (bytes 20..26) */
    memcpy(out, c->text, ETL_TIME_TEXT_LEN + 1);
    int frac = (int)(ft % 10000000);
    memcpy(out + 25, etl_dec_pairs + 2 * (frac % 100), 2); /* two digits per step */
    frac /= 100;
    memcpy(out + 23, etl_dec_pairs + 2 * (frac % 100), 2);
    frac /= 100;
    memcpy(out + 21, etl_dec_pairs + 2 * (frac % 100), 2);
    out[20] = (char)('0' + frac / 100);
    return true;
}

size_t etl_format_sid(const uint8_t *p, size_t len, char out[ETL_SID_STR_SIZE])
{
    out[0] = '\0';
    if (len < 8)
        return 0;
    unsigned rev = p[0], n = p[1];
    if (n > 15)
        return 0;
    size_t need = 8u + 4u * n;
    if (need > len)
        return 0;
    uint64_t auth = 0;
    for (int i = 2; i < 8; i++)
        auth = auth << 8 | p[i];
    int o;
    if (auth < (1ULL << 32))
        o = snprintf(out, ETL_SID_STR_SIZE, "S-%u-%llu", rev, (unsigned long long)auth);
    else
        o = snprintf(out, ETL_SID_STR_SIZE, "S-%u-0x%012llX", rev, (unsigned long long)auth);
    for (unsigned i = 0; i < n && o > 0 && o < ETL_SID_STR_SIZE; i++)
        o += snprintf(out + o, (size_t)(ETL_SID_STR_SIZE - o), "-%u", etl_ld32(p + 8 + 4 * i));
    return need;
}

#if defined(__SSE2__)
/* The hex digits of the bytes of x: *hi the high nibbles', *lo the low nibbles', one byte each. */
static inline void hex_digits_sse2(__m128i x, __m128i *hi, __m128i *lo)
{
    const __m128i low4 = _mm_set1_epi8(0x0f), nine = _mm_set1_epi8(9), zero = _mm_set1_epi8('0'),
                  letters = _mm_set1_epi8('a' - '0' - 10);
    __m128i h = _mm_and_si128(_mm_srli_epi16(x, 4), low4), l = _mm_and_si128(x, low4);
    *hi = _mm_add_epi8(_mm_add_epi8(h, zero), _mm_and_si128(_mm_cmpgt_epi8(h, nine), letters));
    *lo = _mm_add_epi8(_mm_add_epi8(l, zero), _mm_and_si128(_mm_cmpgt_epi8(l, nine), letters));
}
#endif

/* 16 bytes at a time with SSE2 (baseline on x86-64): each nibble to '0'..'9' or 'a'..'f' by
 * one compare, high and low nibbles interleaved; then 8 the same way, byte pairs from the
 * table for the rest. */
void etl_format_hex(const uint8_t *p, size_t len, char *out)
{
    size_t i = 0;
#if defined(__SSE2__)
    __m128i hi, lo;
    for (; i + 16 <= len; i += 16) {
        hex_digits_sse2(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), &hi, &lo);
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i), _mm_unpacklo_epi8(hi, lo));
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i + 16), _mm_unpackhi_epi8(hi, lo));
    }
    if (i + 8 <= len) { /* 8 of the last 15 bytes */
        hex_digits_sse2(_mm_loadl_epi64((const __m128i *)(const void *)(p + i)), &hi, &lo);
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i), _mm_unpacklo_epi8(hi, lo));
        i += 8;
    }
#endif
    for (; i < len; i++)
        memcpy(out + 2 * i, etl_hex_pairs_lower + 2 * p[i], 2);
    out[2 * len] = '\0';
}

void etl_format_guid_braced(const etl_guid *g, char out[ETL_GUID_BRACED_STR_SIZE])
{
    char lower[ETL_GUID_STR_SIZE];
    etl_format_guid(g, lower);
    out[0] = '{';
    for (int i = 0; i < ETL_GUID_STR_SIZE - 1; i++)
        out[i + 1] = (char)toupper((unsigned char)lower[i]);
    out[ETL_GUID_BRACED_STR_SIZE - 2] = '}';
    out[ETL_GUID_BRACED_STR_SIZE - 1] = '\0';
}

/* Days from 1601-01-01 to y-m-d in the proleptic Gregorian calendar: count whole 400-, 100-
 * and 4-year cycles from the epoch (1601 starts a 400-year cycle), then the months. */
static int64_t days_since_1601(unsigned y, unsigned m, unsigned d)
{
    static const uint16_t before_month[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    int64_t years = (int64_t)y - 1601;
    int64_t days = years * 365 + years / 4 - years / 100 + years / 400;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    days += before_month[m - 1] + (m > 2 && leap ? 1 : 0);
    return days + (int64_t)d - 1;
}

bool etl_systemtime_to_filetime(const uint8_t p[16], int64_t *filetime)
{
    unsigned y = etl_ld16(p), mo = etl_ld16(p + 2), d = etl_ld16(p + 6), h = etl_ld16(p + 8), mi = etl_ld16(p + 10),
             s = etl_ld16(p + 12), ms = etl_ld16(p + 14);
    static const uint8_t month_days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1601 || y > 30827 || mo < 1 || mo > 12 || d < 1 || d > month_days[mo - 1] || h > 23 || mi > 59 ||
        s > 59 || ms > 999)
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo == 2 && d == 29 && !leap)
        return false;
    int64_t secs = days_since_1601(y, mo, d) * 86400 + (int64_t)h * 3600 + (int64_t)mi * 60 + s;
    *filetime = secs * 10000000 + (int64_t)ms * 10000;
    return true;
}
