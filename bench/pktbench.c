/* pktbench - speed of the packet layer (etl_packet.h) on pktmon or ndiscap traces.
 *
 *   pktbench [--repeat N] FILE...        (e.g. etlgen --preset pktmon_large: 100k packets)
 *
 * Each file is read into memory first.  Rows, ns per packet frame (best of N runs, CPU time):
 *   read       the records framed in file order, nothing else: the floor
 *   +decode    the same plus etl_packets_decode on every record (frames, context, rundown)
 * and the frames per second of the second row.  The prescan for the rundown is not included
 * (it is one more read, the first row's cost). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "etl.h"
#include "etl_packet.h"

static double run(const struct mem *m, bool decode, uint64_t *frames)
{
    etl_reader *r = bench_open_memory("pktbench", m);
    etl_packets *pk = etl_packets_new();
    etl_record rec;
    etl_error err;
    uint64_t n = 0;
    volatile uint32_t sink = 0;
    double t0 = bench_cpu_now();
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        if (!decode) {
            sink += rec.payload_size;
            continue;
        }
        etl_packet p;
        etl_packets_decode(pk, &rec, &p, &err);
        if (p.kind == ETL_PACKET_FRAME) {
            n++;
            sink += p.captured_len;
        }
    }
    double t = bench_cpu_now() - t0;
    etl_packets_free(pk);
    etl_reader_close(r);
    if (decode)
        *frames = n;
    return t;
}

int main(int argc, char **argv)
{
    int repeat = 5, i = 1;
    if (argc > 2 && strcmp(argv[1], "--repeat") == 0) {
        repeat = atoi(argv[2]);
        i = 3;
    }
    if (i >= argc || repeat < 1) {
        fprintf(stderr, "usage: pktbench [--repeat N] FILE...\n");
        return 2;
    }
    printf("%-28s %10s %12s %12s %12s\n", "file", "frames", "read ns/pkt", "+decode", "frames/s");
    for (; i < argc; i++) {
        struct mem m = bench_read_file("pktbench", argv[i]);
        uint64_t frames = 0;
        double best_read = 1e30, best_dec = 1e30;
        for (int k = 0; k < repeat; k++) {
            double a = run(&m, false, NULL), b = run(&m, true, &frames);
            best_read = a < best_read ? a : best_read;
            best_dec = b < best_dec ? b : best_dec;
        }
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        if (!frames) {
            printf("%-28s %10s\n", name, "no packets");
        } else {
            printf("%-28s %10llu %12.1f %12.1f %12.0f\n", name, (unsigned long long)frames, best_read * 1e9 / (double)frames,
                   best_dec * 1e9 / (double)frames, (double)frames / best_dec);
        }
        free((void *)m.p);
    }
    return 0;
}
