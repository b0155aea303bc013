/* Unit tests of the LZXpress plain LZ77 decompressor on hand-built streams. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "etl.h"

/* Literals only: flag word 0, then bytes. */
static void test_literals(void)
{
    const uint8_t in[] = {0, 0, 0, 0, 'a', 'b', 'c'};
    uint8_t out[16];
    size_t n;
    CHECK(etl_lzxpress_decompress(in, sizeof in, out, sizeof out, &n, NULL) == ETL_OK);
    CHECK_EQ_U(n, 3);
    CHECK(memcmp(out, "abc", 3) == 0);
}

/* "abc" then a match of length 6 at offset 3 (token: ((3-1) << 3) | (6-3) = 0x13). */
static void test_short_match(void)
{
    /* flags MSB first: 3 literals (0) then a match (1): bit 28 set */
    const uint8_t in[] = {0x00, 0x00, 0x00, 0x10, 'a', 'b', 'c', 0x13, 0x00};
    uint8_t out[16];
    size_t n;
    CHECK(etl_lzxpress_decompress(in, sizeof in, out, sizeof out, &n, NULL) == ETL_OK);
    CHECK_EQ_U(n, 9);
    CHECK(memcmp(out, "abcabcabc", 9) == 0);
}

/* Overlapping run through the half-byte and byte length extensions: 'x' then a match at
 * offset 1 of length 3+7+15+200 = 225 (token length 7, nibble 15, byte 200). */
static void test_long_match(void)
{
    const uint8_t in[] = {0x00, 0x00, 0x00, 0x40, 'x', 0x07, 0x00, 0x0f, 200};
    uint8_t out[300];
    size_t n;
    CHECK(etl_lzxpress_decompress(in, sizeof in, out, sizeof out, &n, NULL) == ETL_OK);
    CHECK_EQ_U(n, 226);
    int all = 1;
    for (size_t i = 0; i < n; i++)
        all &= out[i] == 'x';
    CHECK(all);
}

/* u16 length extension: nibble 15, byte 255, then a u16 that holds the match length minus 3
 * (it already includes the 7 and 15 of the shorter forms): u16 997 gives a 1000-byte match. */
static void test_word_match(void)
{
    const uint8_t in[] = {0x00, 0x00, 0x00, 0x40, 'y', 0x07, 0x00, 0x0f, 0xff, 0xe5, 0x03};
    uint8_t out[1100];
    size_t n;
    CHECK(etl_lzxpress_decompress(in, sizeof in, out, sizeof out, &n, NULL) == ETL_OK);
    CHECK_EQ_U(n, 1001);
}

static void test_errors(void)
{
    uint8_t out[8];
    size_t n;
    etl_error e;
    /* a match before any output */
    const uint8_t early[] = {0x00, 0x00, 0x00, 0x80, 0x13, 0x00};
    CHECK(etl_lzxpress_decompress(early, sizeof early, out, sizeof out, &n, &e) == ETL_ERR_DECOMPRESS);
    CHECK_EQ_U(n, 0);
    /* output limit: literals beyond the capacity keep the prefix */
    const uint8_t many[] = {0, 0, 0, 0, '1', '2', '3', '4', '5', '6', '7', '8', '9'};
    CHECK(etl_lzxpress_decompress(many, sizeof many, out, sizeof out, &n, &e) == ETL_ERR_LIMIT);
    CHECK_EQ_U(n, 8);
    CHECK(memcmp(out, "12345678", 8) == 0);
    /* a match token cut in half */
    const uint8_t cut[] = {0x00, 0x00, 0x00, 0x40, 'x', 0x07};
    CHECK(etl_lzxpress_decompress(cut, sizeof cut, out, sizeof out, &n, &e) == ETL_ERR_DECOMPRESS);
    CHECK_EQ_U(n, 1);
    /* a set flag with no input left is the normal end of a stream */
    const uint8_t end[] = {0x00, 0x00, 0x00, 0x40, 'z'};
    CHECK(etl_lzxpress_decompress(end, sizeof end, out, sizeof out, &n, &e) == ETL_OK);
    CHECK_EQ_U(n, 1);
    /* u16 length below the minimum the encoding allows */
    const uint8_t small[] = {0x00, 0x00, 0x00, 0x40, 'y', 0x07, 0x00, 0x0f, 0xff, 0x05, 0x00};
    CHECK(etl_lzxpress_decompress(small, sizeof small, out, sizeof out, &n, &e) == ETL_ERR_DECOMPRESS);
}

/* ---- generated streams ---------------------------------------------------------------------
 * A small MS-XCA encoder of random token sequences (literals; matches of every length form,
 * near and far, overlapping ones with offsets 1..7 included) with the output a byte-wise copy
 * gives: the decoder's fast path (literal runs, 8-byte match moves) and its checked path must
 * agree with it whatever the mix, and near both ends of input and output. */
typedef struct enc {
    uint8_t *in;
    size_t ip, flag_at, half_at;
    unsigned items;
    uint32_t flags;
} enc;

static uint32_t rng_state;
static uint32_t rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static void enc_item(enc *e, bool match)
{
    if (e->items % 32 == 0) {
        if (e->items) /* close the previous group's flag word */
            memcpy(e->in + e->flag_at, &e->flags, 4);
        e->flag_at = e->ip;
        e->ip += 4;
        e->flags = 0;
    }
    if (match)
        e->flags |= 1u << (31 - e->items % 32);
    e->items++;
}

static void enc_match(enc *e, size_t offset, size_t len)
{
    enc_item(e, true);
    size_t l = len - 3;
    uint16_t token = (uint16_t)(((offset - 1) << 3) | (l < 7 ? l : 7));
    e->in[e->ip++] = (uint8_t)token;
    e->in[e->ip++] = (uint8_t)(token >> 8);
    if (l < 7)
        return;
    size_t nib = l - 7 < 15 ? l - 7 : 15;
    if (e->half_at) {
        e->in[e->half_at] |= (uint8_t)(nib << 4);
        e->half_at = 0;
    } else {
        e->half_at = e->ip;
        e->in[e->ip++] = (uint8_t)nib;
    }
    if (l - 7 < 15)
        return;
    size_t m = l - 22;
    e->in[e->ip++] = (uint8_t)(m < 255 ? m : 255);
    if (m < 255)
        return;
    e->in[e->ip++] = (uint8_t)l;
    e->in[e->ip++] = (uint8_t)(l >> 8);
}

static void test_generated(void)
{
    enum { CAP = 80000 };
    static uint8_t in[CAP * 2], want[CAP + 64], got[CAP + 64];
    unsigned streams = 0, matches = 0;
    for (uint32_t seed = 1; seed <= 300; seed++) {
        rng_state = seed;
        enc e = {in, 0, 0, 0, 0, 0};
        memset(in, 0, sizeof in);
        size_t op = 0, target = seed % 7 == 0 ? rnd() % 200 : rnd() % (CAP - 1200);
        while (op < target) {
            uint32_t r = rnd();
            if (op == 0 || r % 3 == 0) {
                size_t run = 1 + rnd() % 40; /* literal runs of any length across flag words */
                for (size_t k = 0; k < run && op < target; k++) {
                    enc_item(&e, false);
                    want[op] = (uint8_t)rnd();
                    e.in[e.ip++] = want[op++];
                }
                continue;
            }
            size_t offset = 1 + (r % 4 == 0 ? rnd() % 7 : rnd() % (op < 8192 ? op : 8192));
            if (offset > op)
                offset = op;
            uint32_t kind = rnd() % 10;
            size_t len = kind < 6 ? 3 + rnd() % 7 : kind < 8 ? 10 + rnd() % 15 : kind < 9 ? 25 + rnd() % 255 : 280 + rnd() % 900;
            enc_match(&e, offset, len);
            for (size_t k = 0; k < len; k++, op++) /* byte-wise, overlapping as the format says */
                want[op] = want[op - offset];
            matches++;
        }
        if (e.items)
            memcpy(e.in + e.flag_at, &e.flags, 4);
        size_t n = 0;
        /* exact capacity, then slack */
        CHECK(etl_lzxpress_decompress(in, e.ip, got, op, &n, NULL) == ETL_OK);
        CHECK_EQ_U(n, op);
        CHECK(memcmp(got, want, op) == 0);
        CHECK(etl_lzxpress_decompress(in, e.ip, got, sizeof got, &n, NULL) == ETL_OK);
        CHECK(n == op && memcmp(got, want, op) == 0);
        /* a cut stream decodes to a prefix of the whole, or stops with an error, never more */
        size_t cut = e.ip ? rnd() % e.ip : 0;
        etl_error err;
        etl_lzxpress_decompress(in, cut, got, sizeof got, &n, &err);
        CHECK(n <= op && memcmp(got, want, n) == 0);
        /* a smaller output capacity stops at it with the prefix kept */
        if (op > 10) {
            size_t cap = op - 1 - rnd() % 10;
            CHECK(etl_lzxpress_decompress(in, e.ip, got, cap, &n, &err) == ETL_ERR_LIMIT);
            CHECK(n <= cap && memcmp(got, want, n) == 0);
        }
        streams++;
    }
    printf("%u generated streams (%u matches) decode to their byte-wise output\n", streams, matches);
}

int main(void)
{
    test_generated();
    test_literals();
    test_short_match();
    test_long_match();
    test_word_match();
    test_errors();
    CHECK_MAIN_END();
}
