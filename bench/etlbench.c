/* etlbench - speed of the decoder on real or generated captures, printed as a table.
 *
 *   etlbench [--repeat N] [--threads T] FILE...
 *
 * Each file is read into memory first, so the figures are the decoder's own cost, not the
 * disk's.  Rows:
 *   frame/file   records framed in file order (buffer reader + framer, no extended items used)
 *   frame/time   the same in timestamp order (pre-scan, per-buffer sort, k-way merge): the
 *                library's record loop, etl_reader_next, with the default options
 *   frame/time/T the same with T loader threads (etl_options.threads; wall time is what they
 *                can save, so this row's ratio is of wall times)
 *   frame+ext    file order, every extended item decoded (GUIDs, SIDs, stacks formatted)
 *   inflate      LZXpress alone over every compressed buffer (MB/s of output)
 * MB/s counts the uncompressed record bytes (the buffers' valid data) per second of CPU.
 * "x md5sum": the row's best time over `md5sum FILE`'s best, md5sum run once before every
 * round of the row (so the yardstick shares the moment on a shared machine): CPU over CPU (the
 * child's rusage), wall over wall for the threaded row. */
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
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

/* md5sum FILE (output discarded): its CPU time (user + system, from its rusage) and wall. */
static void md5sum_time(const char *path, double *cpu, double *wall)
{
    fflush(stdout); /* the child must not write our buffered lines again */
    double t0 = bench_wall_now();
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execlp("md5sum", "md5sum", path, (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "etlbench: md5sum %s failed\n", path);
        exit(2);
    }
    *wall = bench_wall_now() - t0;
    *cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static uint64_t pass(const struct mem *m, etl_order order, bool ext, uint32_t threads)
{
    etl_reader *r;
    etl_error err;
    etl_options opt = {.order = order, .threads = threads};
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
    uint32_t threads = 1;
    while (first + 1 < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "--repeat") == 0)
            repeat = atoi(argv[first + 1]);
        else if (strcmp(argv[first], "--threads") == 0)
            threads = (uint32_t)atoi(argv[first + 1]);
        else
            break;
        first += 2;
    }
    if (first >= argc || repeat < 1 || argv[first][0] == '-') {
        fputs("usage: etlbench [--repeat N] [--threads T] FILE...\n", stderr);
        return 2;
    }
    printf("%-44s %-12s %10s %12s %10s %9s %9s\n", "file", "pass", "records", "records/s", "MB/s", "ns/rec", "x md5sum");
    for (int a = first; a < argc; a++) {
        struct mem m = bench_read_file("etlbench", argv[a]);
        uint8_t *buf = (uint8_t *)m.p;
        uint64_t bytes = data_bytes(&m);
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        char tlabel[32];
        snprintf(tlabel, sizeof tlabel, "frame/time/%u", threads);
        struct {
            const char *label;
            etl_order order;
            bool ext;
            uint32_t threads;
        } passes[] = {{"frame/file", ETL_ORDER_FILE, false, 0}, {"frame/time", ETL_ORDER_TIME, false, 0},
                      {tlabel, ETL_ORDER_TIME, false, threads}, {"frame+ext", ETL_ORDER_FILE, true, 0}};
        double md5_cpu = 1e30, md5_wall = 1e30;
        for (size_t p = 0; p < sizeof passes / sizeof passes[0]; p++) {
            double best = 1e30, best_wall = 1e30;
            uint64_t n = 0;
            for (int i = 0; i < repeat; i++) {
                double mc, mw;
                md5sum_time(argv[a], &mc, &mw);
                md5_cpu = mc < md5_cpu ? mc : md5_cpu;
                md5_wall = mw < md5_wall ? mw : md5_wall;
                double t0 = bench_cpu_now(), w0 = bench_wall_now();
                n = pass(&m, passes[p].order, passes[p].ext, passes[p].threads);
                double t = bench_cpu_now() - t0, w = bench_wall_now() - w0;
                best = t < best ? t : best;
                best_wall = w < best_wall ? w : best_wall;
            }
            /* the threaded row: wall time, what the threads are for (the others: CPU time) */
            double shown = passes[p].threads ? best_wall : best;
            printf("%-44.44s %-12s %10llu %12.0f %10.0f %9.1f %8.2fx\n", name, passes[p].label, (unsigned long long)n,
                   (double)n / shown, (double)bytes / shown / 1e6, shown * 1e9 / (double)n,
                   passes[p].threads ? best_wall / md5_wall : best / md5_cpu);
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
            printf("%-44.44s %-12s %10s %12s %10.0f %9s %8.2fx\n", name, "inflate", "-", "-", (double)out / best / 1e6, "-",
                   best / md5_cpu);
        printf("%-44.44s %-12s %10s %12s %10s %9s   (best md5sum: %.1f ms CPU, %.1f ms wall)\n", name, "md5sum", "-", "-",
               "-", "-", md5_cpu * 1e3, md5_wall * 1e3);
        free(buf);
    }
    return 0;
}
