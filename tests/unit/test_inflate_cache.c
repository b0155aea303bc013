/* Unit tests of inflate_cache.c (etl_options.inflate_cache): a first pass over a compressed
 * trace in file order (as etldump's pre-scan reads it) keeps what it inflates, and a second
 * pass in timestamp order with the same cache delivers exactly what a pass without it
 * delivers - every record, its bytes and fields, the damage reports at the same points, the
 * statistics - with 0, 1 and 2 loader threads, while taking its compressed buffers from the
 * cache instead of inflating them:
 *   - on the shared compressed captures (net452: every one of its 359 compressed buffers kept
 *     and taken);
 *   - with a limit of half what the trace inflates to: never more bytes kept than the limit, the rest
 *     refused and inflated again, records still identical;
 *   - on damaged copies of net452 (compressed bytes changed, the file cut): a buffer whose
 *     inflate made a report is not kept, so the second pass makes the same reports;
 * and a kept buffer is not handed out for a buffer header that says something else. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "buffer.h"
#include "check.h"
#include "etl.h"
#include "inflate_cache.h"

typedef struct pass {
    GChecksum *sum;
    uint64_t records, reports;
    etl_stats stats;
} pass;

static void add_reports(etl_reader *rd, pass *p)
{
    etl_error e;
    while (etl_reader_next_problem(rd, &e)) {
        g_checksum_update(p->sum, (const guchar *)&e.offset, sizeof e.offset);
        g_checksum_update(p->sum, (const guchar *)e.message, strlen(e.message));
        p->reports++;
    }
}

static void read_pass(const uint8_t *data, size_t len, etl_order order, uint32_t threads, etl_inflate_cache *cache,
                      pass *p)
{
    etl_options opt = {0};
    opt.order = order;
    opt.threads = threads;
    opt.inflate_cache = cache;
    etl_reader *rd;
    etl_error err;
    p->sum = g_checksum_new(G_CHECKSUM_SHA256);
    p->records = p->reports = 0;
    memset(&p->stats, 0, sizeof p->stats);
    if (etl_reader_open_memory(data, len, &opt, &rd, &err) != ETL_OK) {
        CHECK(!"the trace opens");
        return;
    }
    etl_record rec;
    add_reports(rd, p);
    while (etl_reader_next(rd, &rec, &err) == ETL_OK) {
        add_reports(rd, p);
        g_checksum_update(p->sum, (const guchar *)&rec.position, sizeof rec.position);
        g_checksum_update(p->sum, rec.bytes, rec.size);
        int64_t f[] = {rec.timestamp, rec.header_type, rec.pid, rec.tid, rec.payload_offset, rec.ext_count,
                       etl_record_problem(&rec, NULL, NULL)};
        g_checksum_update(p->sum, (const guchar *)f, sizeof f);
        p->records++;
    }
    add_reports(rd, p);
    p->stats = *etl_reader_stats(rd);
    etl_reader_close(rd);
}

static bool same_pass(const pass *a, const pass *b)
{
    return a->records == b->records && a->reports == b->reports &&
           strcmp(g_checksum_get_string(a->sum), g_checksum_get_string(b->sum)) == 0 &&
           memcmp(&a->stats, &b->stats, sizeof a->stats) == 0;
}

/* The first pass with the cache, then the second with it, against the second without it.
 * Returns the cache's statistics after the second pass. */
static etl_inflate_cache_stats two_passes(const char *what, const uint8_t *data, size_t len, uint64_t limit,
                                          uint32_t threads, pass *without)
{
    etl_inflate_cache *c = etl_inflate_cache_new(limit);
    CHECK(c != NULL);
    pass first, second;
    read_pass(data, len, ETL_ORDER_FILE, threads, c, &first);
    read_pass(data, len, ETL_ORDER_TIME, threads, c, &second);
    bool same = same_pass(&second, without);
    CHECK(same);
    if (!same)
        fprintf(stderr, "  %s, limit %llu, %u threads: %llu records %llu reports, without the cache %llu %llu\n", what,
                (unsigned long long)limit, threads, (unsigned long long)second.records,
                (unsigned long long)second.reports, (unsigned long long)without->records,
                (unsigned long long)without->reports);
    etl_inflate_cache_stats st = *etl_inflate_cache_stats_of(c);
    CHECK(st.bytes_kept <= limit);
    g_checksum_free(first.sum);
    g_checksum_free(second.sum);
    etl_inflate_cache_free(c);
    return st;
}

static void capture(const char *what, const uint8_t *data, size_t len, bool damaged)
{
    pass without;
    read_pass(data, len, ETL_ORDER_TIME, 0, NULL, &without);
    uint64_t compressed = without.stats.buffers_compressed;
    CHECK(compressed > 0);
    for (uint32_t t = 0; t <= 2; t++) {
        if (t == 0) { /* a limit past the arena's bound: each copy malloc'd */
            etl_inflate_cache_stats big = two_passes(what, data, len, 4ull << 30, t, &without);
            CHECK(damaged || big.taken == compressed);
        }
        etl_inflate_cache_stats st = two_passes(what, data, len, 64u << 20, t, &without);
        /* every compressed buffer kept once and taken once, unless its inflate was damaged */
        if (!damaged) {
            CHECK_EQ_U(st.kept, compressed);
            CHECK_EQ_U(st.taken, compressed);
        } else {
            CHECK(st.kept < compressed);
            CHECK(st.taken == st.kept);
            CHECK(st.kept > compressed / 2);
        }
        /* a limit of half the trace's inflated size: bounded, the rest inflated again */
        uint64_t half = st.bytes_kept / 2;
        st = two_passes(what, data, len, half, t, &without);
        CHECK(st.bytes_kept <= half);
        CHECK(st.refused > 0);
        CHECK(st.taken == st.kept);
        CHECK(st.taken > 0 || compressed < 4); /* a trace of one or two buffers may keep none */
    }
    g_checksum_free(without.sum);
}

static void wrong_header(void)
{
    etl_inflate_cache *c = etl_inflate_cache_new(1u << 20);
    etl_buffer_header h = {0};
    h.buffer_size = 4000;
    h.filled = 0x48 + 16;
    h.timestamp = 77;
    uint8_t in[0x48 + 16], out[0x48 + 16];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)i;
    etl_inflate_cache_put(c, 0x10000, &h, in, sizeof in);
    uint32_t n = 0;
    etl_buffer_header other = h;
    other.timestamp = 78;
    CHECK(!etl_inflate_cache_take(c, 0x10000, &other, out, sizeof out, &n)); /* another buffer */
    CHECK(!etl_inflate_cache_take(c, 0x20000, &h, out, sizeof out, &n));     /* another place */
    CHECK(!etl_inflate_cache_take(c, 0x10000, &h, out, 8, &n));              /* no room */
    CHECK(etl_inflate_cache_take(c, 0x10000, &h, out, sizeof out, &n));
    CHECK(n == sizeof in && memcmp(in, out, n) == 0);
    CHECK(!etl_inflate_cache_take(c, 0x10000, &h, out, sizeof out, &n)); /* taken once */
    etl_inflate_cache_put(c, 0x10000, &h, in, sizeof in);                /* not kept twice */
    CHECK(!etl_inflate_cache_take(c, 0x10000, &h, out, sizeof out, &n));
    /* many buffers: the table grows, each found again */
    for (uint64_t i = 1; i <= 1000; i++)
        etl_inflate_cache_put(c, i << 20, &h, in, sizeof in);
    unsigned found = 0;
    for (uint64_t i = 1000; i >= 1; i--)
        found += etl_inflate_cache_take(c, i << 20, &h, out, sizeof out, &n);
    CHECK_EQ_U(found, 1000);
    etl_inflate_cache_free(c);
}

/* Copies of many small buffers: the cache's arena (inflate_cache.c) fills with them, aligned,
 * before its limit is reached, and the rest are malloc'd one by one - every one taken back
 * intact, from either place, and the limit still holds. */
static void arena_and_malloc(void)
{
    const uint64_t limit = (2u << 20) - 32768; /* an arena of 2 MiB */
    etl_inflate_cache *c = etl_inflate_cache_new(limit);
    etl_buffer_header h = {0};
    h.buffer_size = 4000;
    h.filled = 100;
    uint8_t in[100], out[100];
    const uint64_t n = 22000; /* 2.2 MB of copies: past the arena's room (aligned), then the limit */
    for (uint64_t i = 0; i < n; i++) {
        memset(in, (int)(i * 7), sizeof in);
        in[0] = (uint8_t)(i >> 8);
        etl_inflate_cache_put(c, (i + 1) << 16, &h, in, sizeof in);
    }
    const etl_inflate_cache_stats *st = etl_inflate_cache_stats_of(c);
    CHECK(st->bytes_kept <= limit);
    CHECK(st->kept > (2u << 20) / 128); /* more than the arena holds at 128 bytes apart */
    CHECK(st->refused > 0);
    uint64_t bad = 0, taken = 0;
    uint32_t len = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (!etl_inflate_cache_take(c, (i + 1) << 16, &h, out, sizeof out, &len))
            continue;
        memset(in, (int)(i * 7), sizeof in);
        in[0] = (uint8_t)(i >> 8);
        bad += len != sizeof in || memcmp(in, out, sizeof in) != 0;
        taken++;
    }
    CHECK_EQ_U(taken, st->kept);
    CHECK_EQ_U(bad, 0);
    etl_inflate_cache_free(c);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_inflate_cache SHARED_CAPTURES\n");
        return 2;
    }
    wrong_header();
    arena_and_malloc();
    static const char *const names[] = {"perfview_net452_x64_merged_compressed.etl",
                                        "perfview_smallEtlFile_32bit_compressed.etl",
                                        "perfview_SelfDescribingSingleEvent_tl_compressed.etl"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *path = g_build_filename(argv[1], names[i], NULL);
        gchar *data;
        gsize len;
        CHECK(g_file_get_contents(path, &data, &len, NULL));
        if (data) {
            capture(names[i], (const uint8_t *)data, len, false);
            if (i == 0) {
                /* damaged: compressed bytes changed in several buffers, then also cut */
                uint8_t *d = (uint8_t *)data;
                for (size_t at = 3 * 65536 + 300; at + 64 < len; at += 7 * 65536 + 4099)
                    for (int k = 0; k < 40; k++)
                        d[at + (size_t)k * 13] ^= 0x5A;
                capture("net452 damaged", d, len, true);
                capture("net452 damaged and cut", d, len - len / 3 - 123, true);
            }
            g_free(data);
        }
        g_free(path);
    }
    CHECK_MAIN_END();
}
