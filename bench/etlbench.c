/* etlbench - speed of the decoder on real or generated captures, printed as a table.
 *
 *   etlbench [--repeat N] FILE...
 *
 * Each file is read into memory first, so the figures are the decoder's own cost, not the
 * disk's.  Rows:
 *   frame/file   records framed in file order (buffer reader + framer, no extended items used)
 *   frame/time   the same in timestamp order (pre-scan, per-buffer sort, k-way merge)
 *   frame+ext    file order, every extended item decoded (GUIDs, SIDs, stacks formatted)
 *   inflate      LZXpress alone over every compressed buffer (MB/s of output)
 * MB/s counts the uncompressed record bytes (the buffers' valid data) per second of CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "etl.h"
#include "etl_format.h"




/* Uncompressed bytes of the records region of every buffer: what "framing" has to walk. */
static uint64_t data_bytes(const struct mem *m)
{
    uint64_t total = 0, off = 0;
    while (off + ETL_BUFFER_HEADER_SIZE <= m->n) {
        const uint8_t *h = m->p + off;
        uint32_t bsize = (uint32_t)(h[0] | h[1] << 8 | h[2] << 16 | (uint32_t)h[3] << 24);
        uint32_t filled = (uint32_t)(h[0x30] | h[0x31] << 8 | h[0x32] << 16 | (uint32_t)h[0x33] << 24);
        if (bsize < ETL_BUFFER_HEADER_SIZE)
            break;
        if (filled >= ETL_BUFFER_HEADER_SIZE)
            total += filled - ETL_BUFFER_HEADER_SIZE;
        off += bsize;
    }
    return total;
}

static volatile uint64_t sink;

static uint64_t pass(const struct mem *m, etl_order order, bool ext)
{
    etl_reader *r;
    etl_error err;
    etl_options opt = {.order = order};
    if (etl_reader_open_memory(m->p, m->n, &opt, &r, &err) != ETL_OK) {
        fprintf(stderr, "etlbench: %s\n", err.message);
        exit(2);
    }
    etl_record rec;
    uint64_t n = 0;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        n++;
        sink += rec.timestamp + rec.payload_size;
        if (ext) {
            for (unsigned i = 0; i < rec.ext_count; i++) {
                const etl_ext_item *it = &rec.ext[i];
                char s[ETL_SID_STR_SIZE];
                etl_guid g;
                uint64_t match;
                uint32_t count;
                if (etl_ext_guid(it, &g) && (it->type == ETL_EXT_RELATED_ACTIVITYID)) {
                    etl_format_guid(&g, s);
                    sink += (uint8_t)s[0];
                } else if (it->type == ETL_EXT_SID) {
                    sink += etl_format_sid(it->data, it->data_size, s);
                } else if (etl_ext_stack(it, &match, &count)) {
                    for (uint32_t k = 0; k < count; k++)
                        sink += etl_ext_stack_address(it, k);
                }
            }
            char g[ETL_GUID_STR_SIZE];
            etl_format_guid(&rec.provider, g);
            sink += (uint8_t)g[0];
        }
    }
    etl_error p;
    while (etl_reader_next_problem(r, &p))
        ;
    etl_reader_close(r);
    return n;
}

/* LZXpress alone: inflate every compressed buffer. Returns output bytes. */
static uint64_t inflate_all(const struct mem *m)
{
    static uint8_t out[ETL_MAX_BUFFER_SIZE];
    uint64_t total = 0, off = 0;
    while (off + ETL_BUFFER_HEADER_SIZE <= m->n) {
        const uint8_t *h = m->p + off;
        uint32_t bsize = (uint32_t)(h[0] | h[1] << 8 | h[2] << 16 | (uint32_t)h[3] << 24);
        uint16_t flags = (uint16_t)(h[0x34] | h[0x35] << 8);
        if (bsize < ETL_BUFFER_HEADER_SIZE || off + bsize > m->n)
            break;
        if (flags & ETL_BF_COMPRESSED) {
            size_t n = 0;
            etl_lzxpress_decompress(h + ETL_BUFFER_HEADER_SIZE, bsize - ETL_BUFFER_HEADER_SIZE, out, sizeof out, &n, NULL);
            total += n;
        }
        off += bsize;
    }
    return total;
}

int main(int argc, char **argv)
{
    int repeat = 5, first = 1;
    if (argc > 2 && strcmp(argv[1], "--repeat") == 0) {
        repeat = atoi(argv[2]);
        first = 3;
    }
    if (first >= argc || repeat < 1) {
        fputs("usage: etlbench [--repeat N] FILE...\n", stderr);
        return 2;
    }
    printf("%-44s %-10s %10s %12s %10s %9s\n", "file", "pass", "records", "records/s", "MB/s", "ns/rec");
    for (int a = first; a < argc; a++) {
        struct mem m = bench_read_file("etlbench", argv[a]);
        uint8_t *buf = (uint8_t *)m.p;
        uint64_t bytes = data_bytes(&m);
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        struct {
            const char *label;
            etl_order order;
            bool ext;
        } passes[] = {{"frame/file", ETL_ORDER_FILE, false}, {"frame/time", ETL_ORDER_TIME, false}, {"frame+ext", ETL_ORDER_FILE, true}};
        for (size_t p = 0; p < sizeof passes / sizeof passes[0]; p++) {
            double best = 1e30;
            uint64_t n = 0;
            for (int i = 0; i < repeat; i++) {
                double t0 = bench_cpu_now();
                n = pass(&m, passes[p].order, passes[p].ext);
                double t = bench_cpu_now() - t0;
                if (t < best)
                    best = t;
            }
            printf("%-44.44s %-10s %10llu %12.0f %10.0f %9.1f\n", name, passes[p].label, (unsigned long long)n,
                   (double)n / best, (double)bytes / best / 1e6, best * 1e9 / (double)n);
        }
        double best = 1e30;
        uint64_t out = 0;
        for (int i = 0; i < repeat; i++) {
            double t0 = bench_cpu_now();
            out = inflate_all(&m);
            double t = bench_cpu_now() - t0;
            if (t < best)
                best = t;
        }
        if (out)
            printf("%-44.44s %-10s %10s %12s %10.0f %9s\n", name, "inflate", "-", "-", (double)out / best / 1e6, "-");
        free(buf);
    }
    return 0;
}
