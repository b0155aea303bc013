/* Unit tests of the indexing loop's inline peek (record.h: etl_peek_record_quick): at every
 * place a record may start in the buffers of every capture of the shared corpus and of the
 * project's captures/ folder (compressed buffers inflated), and in copies of those buffers with
 * bytes changed at random, it gives exactly what etl_peek_record gives - the status, and for a
 * record that peeks the kind, raw kind, size and timestamp; for one that does not, the same
 * error code.  The loop relies on that: the index it builds is the only record of each peek. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "capture_list.h"
#include "check.h"
#include "etl.h"
#include "record.h"

static uint64_t compared, quick_ok, errors_compared;
static GRand *rng;

/* Both peeks at d[0..avail): the same answer. */
static void same_peek(const uint8_t *d, size_t avail)
{
    etl_record_peek a, b;
    etl_error ea, eb;
    memset(&a, 0x5A, sizeof a);
    memset(&b, 0x5A, sizeof b);
    ea.code = eb.code = ETL_OK;
    etl_status sa = etl_peek_record_quick(d, avail, &a, &ea);
    etl_status sb = etl_peek_record(d, avail, &b, &eb);
    compared++;
    if (sa != sb) {
        CHECK_EQ_U(sa, sb);
        return;
    }
    if (sa == ETL_OK) {
        quick_ok++;
        bool same = a.header_type == b.header_type && a.raw_header_type == b.raw_header_type && a.size == b.size &&
                    a.has_timestamp == b.has_timestamp && a.timestamp_raw == b.timestamp_raw;
        if (!same) {
            CHECK(same);
            fprintf(stderr, "  marker 0x%08x: quick %u/%u size %u ts %d %lld, full %u/%u size %u ts %d %lld\n",
                    d[0] | d[1] << 8 | d[2] << 16 | (unsigned)d[3] << 24, a.header_type, a.raw_header_type, a.size,
                    a.has_timestamp, (long long)a.timestamp_raw, b.header_type, b.raw_header_type, b.size,
                    b.has_timestamp, (long long)b.timestamp_raw);
        }
    } else if (sa != ETL_END) {
        errors_compared++;
        if (ea.code != eb.code || strcmp(ea.message, eb.message) != 0)
            CHECK(ea.code == eb.code && strcmp(ea.message, eb.message) == 0);
    }
}

/* Every 8-aligned place of a records region (where records start), every byte of its first
 * 512 bytes (where a damaged chain would put one), and the region's last bytes. */
static void walk(const uint8_t *d, size_t n)
{
    for (size_t p = 0; p < n; p += 8)
        same_peek(d + p, n - p);
    for (size_t p = 1; p < n && p < 512; p++)
        if (p % 8)
            same_peek(d + p, n - p);
    for (size_t k = 1; k < 16 && k <= n; k++)
        same_peek(d + n - k, k);
}

static void one_capture(const char *dir, const char *name)
{
    char *path = g_build_filename(dir, name, NULL);
    gchar *data;
    gsize len;
    if (!g_file_get_contents(path, &data, &len, NULL)) {
        CHECK(!"capture readable");
        g_free(path);
        return;
    }
    const uint8_t *f = (const uint8_t *)data;
    uint8_t *region = malloc(ETL_MAX_BUFFER_SIZE);
    CHECK(region != NULL);
    uint64_t off = 0, buffers = 0;
    while (region && off + ETL_BUFFER_HEADER_SIZE <= len) {
        etl_buffer_header h;
        if (etl_buffer_header_check(f + off, len - off, &h, NULL) != ETL_OK)
            break; /* damage is the reader's business; the buffers up to it are enough here */
        size_t n = 0;
        if (h.flags & ETL_BF_COMPRESSED) {
            size_t clen = h.buffer_size - ETL_BUFFER_HEADER_SIZE;
            if (off + h.buffer_size > len)
                break;
            etl_lzxpress_decompress(f + off + ETL_BUFFER_HEADER_SIZE, clen, region, h.valid_end - ETL_BUFFER_HEADER_SIZE, &n,
                                    NULL);
        } else {
            n = h.valid_end - ETL_BUFFER_HEADER_SIZE;
            if (off + h.valid_end > len)
                n = len - off - ETL_BUFFER_HEADER_SIZE;
            memcpy(region, f + off + ETL_BUFFER_HEADER_SIZE, n);
        }
        walk(region, n);
        /* a damaged copy: one byte in 64 changed, markers and size words included */
        for (size_t i = 0; i < n; i++)
            if (g_rand_int_range(rng, 0, 64) == 0)
                region[i] = (uint8_t)g_rand_int_range(rng, 0, 256);
        walk(region, n);
        buffers++;
        off += h.buffer_size;
    }
    CHECK(buffers > 0 || len < 4096);
    free(region);
    g_free(data);
    g_free(path);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_peek SHARED_CAPTURES PROJECT_CAPTURES\n");
        return 2;
    }
    rng = g_rand_new_with_seed(16);
    CHECK(capture_list_each(argv[1], one_capture) > 20);
    capture_list_each(argv[2], one_capture);
    printf("%llu places peeked both ways: %llu records, %llu errors compared\n", (unsigned long long)compared,
           (unsigned long long)quick_ok, (unsigned long long)errors_compared);
    /* the corpus has millions of records and the damaged copies thousands of refusals */
    CHECK(quick_ok > 1000000);
    CHECK(errors_compared > 100000);
    g_rand_free(rng);
    CHECK_MAIN_END();
}
