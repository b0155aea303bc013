/* Unit tests of prefetch.c (the reader's loader threads, etl_options.threads): a reader with
 * 1, 2 or 3 loader threads (or 2 started after the open, etl_reader_start_loaders) delivers
 * exactly what a reader without them delivers - every record
 * (position, bytes, header fields, converted time), in the same order, the same damage reports
 * at the same points of the stream, the same statistics - on:
 *   - every capture of the shared corpus and of the project's captures/ folder, in timestamp
 *     and in file order, with the default window and a window of 2 buffers;
 *   - damaged copies of the compressed net452 trace and of an uncompressed one (compressed
 *     bytes flipped, buffer headers zeroed, the file cut inside a buffer), read from memory;
 * and random reads by position (etl_reader_read_at) made between sequential ones, with loader
 * threads running, return the records the sequential pass gave. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "capture_list.h"
#include "check.h"
#include "etl.h"

/* What one pass delivered: a digest of each record and each report, in stream order. */
typedef struct pass {
    GChecksum *sum;
    uint64_t records, reports;
    etl_stats stats;
} pass;

static void add_record(GChecksum *c, const etl_record *r)
{
    g_checksum_update(c, (const guchar *)&r->position, sizeof r->position);
    g_checksum_update(c, r->bytes, r->size);
    int64_t f[] = {r->timestamp, r->has_timestamp, r->header_type, r->pid, r->tid, r->event_id, r->payload_offset,
                   r->payload_size, r->ext_count, etl_record_problem(r, NULL, NULL), r->cpu, r->buffer_flags};
    g_checksum_update(c, (const guchar *)f, sizeof f);
}

static void add_reports(etl_reader *rd, pass *p)
{
    etl_error e;
    while (etl_reader_next_problem(rd, &e)) {
        g_checksum_update(p->sum, (const guchar *)"P", 1);
        g_checksum_update(p->sum, (const guchar *)&e.offset, sizeof e.offset);
        g_checksum_update(p->sum, (const guchar *)&e.code, sizeof e.code);
        g_checksum_update(p->sum, (const guchar *)e.message, strlen(e.message));
        p->reports++;
    }
}

/* One pass; with `probe`, every 97th record is also read again by position (and checked
 * against the sequential view) while the loaders run; with `late`, the reader is opened without
 * loaders and etl_reader_start_loaders starts them before the first record (the pre-scan's way). */
static bool read_pass(const uint8_t *data, size_t len, etl_order order, uint32_t window, uint32_t threads,
                      bool probe, bool late, pass *p)
{
    etl_options opt = {0};
    opt.order = order;
    opt.window_buffers = window;
    opt.threads = late ? 0 : threads;
    etl_reader *rd;
    etl_error err;
    p->sum = g_checksum_new(G_CHECKSUM_SHA256);
    p->records = p->reports = 0;
    if (etl_reader_open_memory(data, len, &opt, &rd, &err) != ETL_OK)
        return false;
    bool started = late && etl_reader_start_loaders(rd, threads);
    if (late)
        CHECK(!etl_reader_start_loaders(rd, threads)); /* started once, or not at all */
    etl_record rec, again;
    add_reports(rd, p);
    while (etl_reader_next(rd, &rec, &err) == ETL_OK) {
        add_reports(rd, p);
        add_record(p->sum, &rec);
        if (probe && p->records % 97 == 0) {
            uint64_t pos = rec.position;
            uint32_t size = rec.size;
            uint8_t copy[65536];
            size_t keep = size < sizeof copy ? size : sizeof copy;
            memcpy(copy, rec.bytes, keep);
            CHECK(etl_reader_read_at(rd, pos, &again, &err) == ETL_OK && again.size == size &&
                  memcmp(again.bytes, copy, keep) == 0);
        }
        p->records++;
    }
    add_reports(rd, p);
    p->stats = *etl_reader_stats(rd);
    if (late) {
        if (p->stats.buffers > 1)
            CHECK(started); /* loaders start for two buffers or more */
        CHECK(!etl_reader_start_loaders(rd, threads)); /* too late once records were read */
    }
    etl_reader_close(rd);
    return true;
}

static unsigned compared;
static uint64_t base_reports; /* reports the passes without threads made */

/* Every thread count and window against no threads, in both orders. */
static void compare_all(const char *what, const uint8_t *data, size_t len)
{
    static const etl_order orders[] = {ETL_ORDER_TIME, ETL_ORDER_FILE};
    static const uint32_t windows[] = {0, 2};
    for (size_t o = 0; o < 2; o++)
        for (size_t w = 0; w < 2; w++) {
            if (orders[o] == ETL_ORDER_FILE && windows[w])
                continue; /* file order ignores the window */
            pass base;
            if (!read_pass(data, len, orders[o], windows[w], 0, false, false, &base)) {
                g_checksum_free(base.sum);
                return; /* not a trace (the empty capture): nothing to compare */
            }
            base_reports += base.reports;
            for (uint32_t t = 1; t <= 4; t++) { /* 4: two loaders started late */
                pass th;
                CHECK(read_pass(data, len, orders[o], windows[w], t == 4 ? 2 : t, t == 2, t == 4, &th));
                bool same = th.records == base.records && th.reports == base.reports &&
                            strcmp(g_checksum_get_string(th.sum), g_checksum_get_string(base.sum)) == 0 &&
                            memcmp(&th.stats, &base.stats, sizeof th.stats) == 0;
                CHECK(same);
                if (!same)
                    fprintf(stderr, "  %s: order %d window %u threads %u: %llu records %llu reports, without threads %llu %llu\n",
                            what, (int)orders[o], windows[w], t, (unsigned long long)th.records,
                            (unsigned long long)th.reports, (unsigned long long)base.records,
                            (unsigned long long)base.reports);
                g_checksum_free(th.sum);
                compared++;
            }
            g_checksum_free(base.sum);
        }
}

static void one_capture(const char *dir, const char *name)
{
    char *path = g_build_filename(dir, name, NULL);
    gchar *data;
    gsize len;
    if (g_file_get_contents(path, &data, &len, NULL)) {
        compare_all(name, (const uint8_t *)data, len);
        g_free(data);
    }
    g_free(path);
}

/* Damaged copies: bytes flipped inside several buffers (compressed data that no longer
 * inflates, records that no longer frame), a buffer header zeroed, and the file cut. */
static void damaged(const char *path, uint32_t buffer_size_guess)
{
    gchar *data;
    gsize len;
    if (!g_file_get_contents(path, &data, &len, NULL)) {
        CHECK(!"shared capture missing");
        return;
    }
    uint8_t *d = (uint8_t *)data;
    for (size_t at = 3 * 65536 + 300; at + 64 < len; at += 7 * 65536 + 4099)
        for (int k = 0; k < 40; k++)
            d[at + (size_t)k * 13] ^= 0x5A;
    if (len > 5u * buffer_size_guess + 72)
        memset(d + 5u * buffer_size_guess, 0, 72);
    compare_all("damaged", d, len);
    compare_all("damaged and cut", d, len - len / 3 - 123);
    g_free(data);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_prefetch SHARED_CAPTURES PROJECT_CAPTURES\n");
        return 2;
    }
    CHECK(capture_list_each(argv[1], one_capture) > 20);
    capture_list_each(argv[2], one_capture);
    char *net452 = g_build_filename(argv[1], "perfview_net452_x64_merged_compressed.etl", NULL);
    char *kernel = g_build_filename(argv[1], "perfview_diaghub_kernel_relogged.etl", NULL);
    uint64_t before = base_reports;
    damaged(net452, 65536);
    CHECK(base_reports > before + 10); /* the damage is reported, so the reports were compared */
    before = base_reports;
    damaged(kernel, 65536);
    CHECK(base_reports > before + 10);
    g_free(net452);
    g_free(kernel);
    printf("%u threaded passes identical to the pass without threads\n", compared);
    CHECK(compared > 100);
    CHECK_MAIN_END();
}
