/* Unit tests of the LZXpress plain LZ77 decompressor on hand-built streams. */
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

int main(void)
{
    test_literals();
    test_short_match();
    test_long_match();
    test_word_match();
    test_errors();
    CHECK_MAIN_END();
}
