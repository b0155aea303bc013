/* bench_util.h - what both benchmarks need: a capture read into memory, and CPU time. */
#ifndef ETL_BENCH_UTIL_H
#define ETL_BENCH_UTIL_H

#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The capture, read into memory so the figures are the decoder's cost, not the disk's. */
struct mem {
    const uint8_t *p;
    size_t n;
};

/* Read `path` whole; exits with a message when it cannot. free((void *)m.p) when done. */
static inline struct mem bench_read_file(const char *prog, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = sz >= 0 ? malloc((size_t)sz + 1) : NULL;
    if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
        fprintf(stderr, "%s: cannot read %s\n", prog, path);
        exit(2);
    }
    fclose(f);
    return (struct mem){buf, (size_t)sz};
}

static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
