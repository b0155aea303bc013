/* Unit tests of json.c, etldump's writer: its output against a plain byte-by-byte rendering of
 * the same values (RFC 8259 escapes, decimal and hex numbers), around the places where the
 * writer takes shortcuts - 8-byte words scanned at once, strings split in pieces, the buffer
 * flushed in the middle of a value. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json.h"

/* What a JSON string of s[0..n) must look like. */
static size_t reference_string(char *out, const unsigned char *s, size_t n)
{
    size_t k = 0;
    out[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned c = s[i];
        if (c == '"' || c == '\\') {
            out[k++] = '\\';
            out[k++] = (char)c;
        } else if (c == '\n') {
            k += (size_t)sprintf(out + k, "\\n");
        } else if (c == '\r') {
            k += (size_t)sprintf(out + k, "\\r");
        } else if (c == '\t') {
            k += (size_t)sprintf(out + k, "\\t");
        } else if (c < 0x20) {
            k += (size_t)sprintf(out + k, "\\u%04x", c);
        } else {
            out[k++] = (char)c;
        }
    }
    out[k++] = '"';
    return k;
}

static json_out j; /* 256 KiB of buffer: not on the stack */

/* Run `write` into a fresh writer and return what came out (malloc'd, NUL-terminated). */
static char *capture(void (*write)(json_out *, void *), void *ctx, size_t *len)
{
    char *mem = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&mem, &size);
    json_init(&j, f);
    write(&j, ctx);
    json_flush(&j);
    fclose(f);
    *len = size;
    return mem;
}

enum { AS_STRING_N, AS_STRING, AS_KEY };

struct str {
    const unsigned char *s;
    size_t n;
    size_t pad; /* bytes already in the buffer before the string */
    int as;     /* json_string_n, or NUL-terminated through json_string / json_key */
};

static void write_str(json_out *o, void *ctx)
{
    const struct str *x = ctx;
    for (size_t i = 0; i < x->pad; i++)
        json_raw(o, "1", 1); /* top level: no separators */
    if (x->as == AS_STRING_N)
        json_string_n(o, (const char *)x->s, x->n);
    else if (x->as == AS_STRING)
        json_string(o, (const char *)x->s);
    else
        json_key(o, (const char *)x->s);
}

static int same_string_as(const unsigned char *s, size_t n, size_t pad, int as)
{
    struct str x = {s, n, pad, as};
    size_t len;
    char *got = capture(write_str, &x, &len);
    char *want = malloc(pad + 6 * n + 4);
    memset(want, '1', pad);
    size_t wl = pad + reference_string(want + pad, s, n);
    if (as == AS_KEY)
        want[wl++] = ':';
    int ok = len == wl && memcmp(got, want, wl) == 0;
    free(got);
    free(want);
    return ok;
}

static int same_string(const unsigned char *s, size_t n, size_t pad)
{
    return same_string_as(s, n, pad, AS_STRING_N);
}

static void test_escapes(void)
{
    /* every byte value at every position of the first two 8-byte words, in strings of every
     * length up to 24 around it (and past the short-string limit); NUL-terminated ones (keys,
     * json_string) with every byte value but NUL */
    unsigned char s[100];
    int bad = 0, bad_key = 0;
    for (unsigned c = 0; c < 256; c++)
        for (size_t n = 1; n < sizeof s; n = n < 24 ? n + 1 : n + 19)
            for (size_t at = 0; at < n && at < 16; at++) {
                memset(s, 'a', n);
                s[at] = (unsigned char)c;
                s[n] = 0;
                bad += !same_string(s, n, 0);
                if (c != 0)
                    bad_key += !same_string_as(s, n, 0, AS_KEY) + !same_string_as(s, n, 0, AS_STRING);
            }
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(bad_key, 0);
    /* UTF-8 and DEL pass as they are */
    const unsigned char utf8[] = "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \x7f\xf0\x9f\x98\x80";
    CHECK(same_string(utf8, sizeof utf8 - 1, 0));
}

static void test_long_strings(void)
{
    /* longer than the writer's pieces and its buffer, plain and full of escapes, starting at
     * several fill levels of the buffer */
    size_t n = 3 * JSON_BUFFER_SIZE + 13;
    unsigned char *s = malloc(n);
    for (size_t i = 0; i < n; i++)
        s[i] = (unsigned char)('A' + i % 26);
    CHECK(same_string(s, n, 0));
    CHECK(same_string(s, n, JSON_BUFFER_SIZE - 3));
    for (size_t i = 0; i < n; i += 7)
        s[i] = (unsigned char)(i % 3 ? '"' : 1);
    CHECK(same_string(s, n, 0));
    CHECK(same_string(s, n, JSON_BUFFER_SIZE - 1));
    CHECK(same_string(s, n, 100000));
    free(s);
}

static const uint64_t numbers[] = {0, 1, 9, 10, 11, 99, 100, 12345, 4294967295u, 9007199254740992ULL,
                                   10000000000000000000ULL, UINT64_MAX};

static void write_numbers(json_out *o, void *ctx)
{
    (void)ctx;
    json_begin_array(o);
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        json_u64(o, numbers[i]);
        json_i64(o, (int64_t)numbers[i]);
        json_i64(o, -(int64_t)(numbers[i] >> 1));
        json_hex_u64(o, numbers[i]);
        json_hex_upper_u64(o, numbers[i]);
    }
    json_i64(o, INT64_MIN);
    json_end_array(o);
}

static void test_numbers(void)
{
    char want[4096];
    size_t k = 0;
    want[k++] = '[';
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        k += (size_t)sprintf(want + k, "%s%" PRIu64 ",%" PRId64 ",%" PRId64 ",\"0x%" PRIx64 "\",\"0x%" PRIX64 "\"",
                             i ? "," : "", numbers[i], (int64_t)numbers[i], -(int64_t)(numbers[i] >> 1), numbers[i],
                             numbers[i]);
    k += (size_t)sprintf(want + k, ",%" PRId64 "]", INT64_MIN);
    size_t len;
    char *got = capture(write_numbers, NULL, &len);
    CHECK(len == k && memcmp(got, want, k) == 0);
    if (len != k || memcmp(got, want, k) != 0)
        fprintf(stderr, "got  %.*s\nwant %s\n", (int)len, got, want);
    free(got);
}

static void write_record(json_out *o, void *ctx)
{
    size_t n = *(const size_t *)ctx;
    static uint8_t bytes[300000];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(i * 7);
    for (size_t r = 0; r < n; r++) {
        json_begin_object(o);
        json_key(o, "a\"b");
        json_hex_bytes(o, bytes, r % 2 ? sizeof bytes : 3);
        json_key(o, "n");
        json_null(o);
        json_key(o, "t");
        json_bool(o, true);
        json_key(o, "f");
        json_bool(o, false);
        json_key(o, "o");
        json_begin_object(o);
        json_end_object(o);
        json_end_object(o);
        json_newline(o);
    }
}

static void test_structure(void)
{
    size_t n = 5, len;
    char *got = capture(write_record, &n, &len);
    /* every line parses back to the same shape, wherever the buffer was flushed */
    size_t lines = 0, at = 0;
    int ok = 1;
    while (at < len) {
        char *nl = memchr(got + at, '\n', len - at);
        if (!nl)
            break;
        size_t hexlen = lines % 2 ? 600000 : 6;
        const char *head = "{\"a\\\"b\":\"";
        ok &= strncmp(got + at, head, strlen(head)) == 0;
        const char *h = got + at + strlen(head);
        ok &= h + hexlen < nl && h[hexlen] == '"';
        for (size_t i = 0; ok && i < hexlen / 2; i++) {
            char two[3];
            snprintf(two, sizeof two, "%02x", (uint8_t)(i * 7));
            ok &= h[2 * i] == two[0] && h[2 * i + 1] == two[1];
        }
        const char *tail = "\",\"n\":null,\"t\":true,\"f\":false,\"o\":{}}";
        ok &= (size_t)(nl - (h + hexlen)) == strlen(tail) && memcmp(h + hexlen, tail, strlen(tail)) == 0;
        lines++;
        at = (size_t)(nl - got) + 1;
    }
    CHECK(ok);
    CHECK_EQ_U(lines, n);
    CHECK_EQ_U(at, len);
    free(got);
}

/* Pairs: a literal key and its number in one reservation, inside an object. */
static void write_pairs(json_out *o, void *ctx)
{
    (void)ctx;
    json_begin_object(o);
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        json_key_u64(o, "u", numbers[i]);
        json_key_hex_u64(o, "h", numbers[i]);
    }
    json_end_object(o);
}

/* json_put_dec and json_put_hex of v give a (decimal) and b (hex, lower case; upper case too);
 * they may store past their digits (whole words), never past 8 bytes from the start. */
static bool same_digits(uint64_t v, const char *a, const char *b)
{
    char t[32], h[32], H[32], B[32];
    memset(t, '#', sizeof t);
    unsigned n = json_dec_len(v), m = json_hex_len(v);
    json_put_dec(t + 4, v, n);
    bool ok = n == strlen(a) && memcmp(t + 4, a, n) == 0 && memcmp(t, "####", 4) == 0;
    for (unsigned i = 4 + (n > 8 ? n : 8); i < sizeof t; i++)
        ok &= t[i] == '#';
    json_put_hex(h, v, m, false);
    json_put_hex(H, v, m, true);
    snprintf(B, sizeof B, "%" PRIX64, v);
    return ok && m == strlen(b) && memcmp(h, b, m) == 0 && memcmp(H, B, m) == 0;
}

static void test_pairs(void)
{
    char want[4096];
    size_t k = 0;
    want[k++] = '{';
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        k += (size_t)sprintf(want + k, "%s\"u\":%" PRIu64 ",\"h\":\"0x%" PRIx64 "\"", i ? "," : "", numbers[i],
                             numbers[i]);
    want[k++] = '}';
    size_t len;
    char *got = capture(write_pairs, NULL, &len);
    CHECK(len == k && memcmp(got, want, k) == 0);
    free(got);
    /* every digit count, decimal and hex */
    int bad = 0;
    for (unsigned bit = 0; bit < 64; bit++)
        for (int d = -1; d <= 1; d++) {
            uint64_t v = (1ULL << bit) + (uint64_t)d;
            char a[32], b[32];
            snprintf(a, sizeof a, "%" PRIu64, v);
            snprintf(b, sizeof b, "%" PRIx64, v);
            bad += json_dec_len(v) != strlen(a) || json_hex_len(v) != strlen(b);
            bad += !same_digits(v, a, b);
        }
    /* every digit count again with other digits in every place (the SWAR lanes: json.h) */
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t v = x >> (i % 64);
        char a[32], b[32];
        snprintf(a, sizeof a, "%" PRIu64, v);
        snprintf(b, sizeof b, "%" PRIx64, v);
        bad += !same_digits(v, a, b);
    }
    for (uint64_t p = 1; p <= 1000000000000000000ULL; p *= 10)
        bad += json_dec_len(p) != json_dec_len(p - 1) + (p > 1);
    CHECK_EQ_U(bad, 0);
}

/* Remembered keys: written as json_key writes them, found only under their own identity; a
 * slot's newer identity replaces the older; long or escaped keys are written but not kept. */
struct memo_case {
    int step;
};

static void write_memo(json_out *o, void *ctx)
{
    const struct memo_case *c = ctx;
    json_begin_object(o);
    if (c->step == 0) {
        json_key_memoize(o, 3, 7, "Name_2", 6);
        json_u64(o, 1);
        const json_key_memo *m = json_key_memo_find(o, 3, 7, NULL);
        CHECK(m != NULL);
        if (m)
            json_key_memo_write(o, m);
        json_u64(o, 2);
        CHECK(json_key_memo_find(o, 3, 8, NULL) == NULL);
        CHECK(json_key_memo_find(o, 4, 7, NULL) == NULL);
        /* another identity on the same slot takes it */
        uint32_t a = 0;
        while (json_key_memo_slot(a, 1) != json_key_memo_slot(3, 7))
            a++;
        json_key_memoize(o, a, 1, "other", 5);
        json_u64(o, 3);
        CHECK(json_key_memo_find(o, 3, 7, NULL) == NULL);
        CHECK(json_key_memo_find(o, a, 1, NULL) != NULL);
        json_key_memoize(o, 5, 5, "a\"b", 3);
        json_u64(o, 4);
        CHECK(json_key_memo_find(o, 5, 5, NULL) == NULL);
        json_key_memoize(o, UINT32_MAX, 5, "none", 4);
        json_u64(o, 5);
        /* whole pairs, told apart by their tag too; too long for a slot: written, not kept */
        static const char name[] = "Process/Start";
        json_pair_memoize(o, 9, 1, name, "event_name", name);
        const json_key_memo *p = json_key_memo_find(o, 9, 1, name);
        CHECK(p != NULL);
        CHECK(json_key_memo_find(o, 9, 1, name + 1) == NULL);
        if (p)
            json_memo_write(o, p, false);
        static const char longer[] = "a name of sixty characters or more, too long for one slot..";
        json_pair_memoize(o, 9, 2, longer, "event_name", longer);
        CHECK(json_key_memo_find(o, 9, 2, longer) == NULL);
    }
    json_end_object(o);
}

static void test_key_memo(void)
{
    struct memo_case c = {0};
    size_t len;
    char *got = capture(write_memo, &c, &len);
    const char *want = "{\"Name_2\":1,\"Name_2\":2,\"other\":3,\"a\\\"b\":4,\"none\":5,"
                       "\"event_name\":\"Process/Start\",\"event_name\":\"Process/Start\","
                       "\"event_name\":\"a name of sixty characters or more, too long for one slot..\"}";
    CHECK(len == strlen(want) && memcmp(got, want, len) == 0);
    if (len != strlen(want) || memcmp(got, want, len) != 0)
        fprintf(stderr, "got  %.*s\nwant %s\n", (int)len, got, want);
    free(got);
}

/* Runs (json_run_*): the same text as the one-pair-at-a-time writers, in an object after other
 * pairs, with a string that needs escaping and one too long for the run's short path (both go
 * out through json.c and the run resumes), and a pair written after the run. */
static void write_run(json_out *o, void *ctx)
{
    const char *long_name = ctx;
    json_begin_object(o);
    json_key_u64(o, "before", 7);
    char *p = json_run_begin(o, 512);
    p = JSON_RUN_LIT(p, "\"a\":");
    p = json_run_u64(p, 12345678901234ULL);
    p = JSON_RUN_LIT(p, ",\"b\":");
    p = json_run_i64(p, -42);
    p = JSON_RUN_LIT(p, ",\"c\":");
    p = json_run_hex(p, 0xABCDEF0123ULL);
    p = JSON_RUN_LIT(p, ",\"d\":");
    p = json_run_string(o, p, "plain", 5, 512);
    p = JSON_RUN_LIT(p, ",\"e\":");
    p = json_run_string(o, p, "q\"t", 3, 512);
    p = JSON_RUN_LIT(p, ",\"f\":");
    p = json_run_string(o, p, long_name, strlen(long_name), 512);
    p = JSON_RUN_LIT(p, ",\"g\":");
    p = json_run_u64(p, 0);
    json_run_end(o, p);
    json_key_u64(o, "after", 8);
    json_end_object(o);
}

static void write_run_reference(json_out *o, void *ctx)
{
    json_begin_object(o);
    json_key_u64(o, "before", 7);
    json_key_u64(o, "a", 12345678901234ULL);
    json_key_i64(o, "b", -42);
    json_key_hex_u64(o, "c", 0xABCDEF0123ULL);
    json_key_string(o, "d", "plain");
    json_key_string(o, "e", "q\"t");
    json_key_string(o, "f", ctx);
    json_key_u64(o, "g", 0);
    json_key_u64(o, "after", 8);
    json_end_object(o);
}

static void test_runs(void)
{
    char long_name[200];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    size_t len, want_len;
    char *got = capture(write_run, long_name, &len);
    char *want = capture(write_run_reference, long_name, &want_len);
    CHECK(len == want_len && memcmp(got, want, len) == 0);
    CHECK(len > 200 && strstr(got, "\"e\":\"q\\\"t\",\"f\":\"xx") != NULL);
    free(got);
    free(want);
}

int main(void)
{
    test_runs();
    test_pairs();
    test_key_memo();
    test_escapes();
    test_long_strings();
    test_numbers();
    test_structure();
    CHECK_MAIN_END();
}
