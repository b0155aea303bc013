/* bench_util.h - what the benchmarks share: a capture read into memory, a reader over it, CPU and
 * wall time, a growing array, and a schema registry that reports nothing. */
#ifndef ETL_BENCH_UTIL_H
#define ETL_BENCH_UTIL_H

#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "etl.h"
#include "registry.h"

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

static inline double bench_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A reader over the capture in memory, in file order; exits with a message when it cannot. */
static inline etl_reader *bench_open_memory(const char *prog, const struct mem *m)
{
    etl_reader *r;
    etl_error err;
    etl_options opt = {.order = ETL_ORDER_FILE};
    if (etl_reader_open_memory(m->p, m->n, &opt, &r, &err) != ETL_OK) {
        fprintf(stderr, "%s: %s\n", prog, err.message);
        exit(2);
    }
    return r;
}

/* Grow the array `p` of `*cap` elements of `unit` bytes to hold `need` (doubling); exits when
 * memory runs out. */
static inline void *bench_grow(const char *prog, void *p, size_t *cap, size_t need, size_t unit)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    p = realloc(p, c * unit);
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", prog);
        exit(2);
    }
    *cap = c;
    return p;
}

/* Schema registry reports: a benchmark measures, the tests check the messages. */
static inline void bench_quiet(void *ctx, etl_registry_severity sev, const char *msg)
{
    (void)ctx;
    (void)sev;
    (void)msg;
}

#endif
