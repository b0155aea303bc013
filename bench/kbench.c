/* kbench - speed of decoding whole traces with everything decoded: classic kernel events (the
 * bulk of big traces), manifest events and TraceLogging events, each found the way etldump and
 * the dissector find them (etl_registry_lookup for classic and manifest records, the TraceLogging
 * schema cache for self-describing ones) through the decoder's one resolve call
 * (etl_decoder_resolve, resolve.h); and etldump's JSON output rate on the same files.
 *
 *   kbench [--repeat N] [--manifest-path PATH] [--etldump PROGRAM] FILE...
 *
 * Each file is read into memory and framed once; its records are copied aside (the record's
 * header fields, extended items and bytes), so the timed rows are the decoder's cost alone:
 * framing and inflating are not in them (bench/etlbench measures those).  Before collecting, the
 * registry reads the trace once for the schemas it carries (etl_prescan with etl_registry_observer), as etldump does.
 * Rows, per class of event (classic, manifest, TraceLogging, all), each the best of N runs (CPU):
 *   copy         the record header copied into the etl_record a reader would hand out, alone
 *   lookup       copy + the resolve call (a schema hit, and the names)
 *   items        copy + lookup + every item of the event through the enumerator (etl_fields_next)
 *   items/warm   the enumerator alone, schemas already in hand (no copy)
 *   +text        items + the text of every VALUE (etl_value_format, map names included)
 * The copy stands for what the reader does anyway; subtract it for the library's own cost.  The
 * first (cold) pass, which compiles each distinct schema once, is not timed; the timed passes
 * check that every lookup returns the schema the cold pass found.
 * With --etldump, the program is run on each file N times, its stdout and stderr to /dev/null:
 * best CPU time (user + system, from wait4), wall time, records/s and the child's peak RSS; once
 * as it is and once with --no-payload.  --manifest-path is passed on to it.
 * Goals (issue): under 100 ns per event for lookup + items, and at least 1 M events/s to JSON. */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#include "bench_util.h"
#include "etl.h"
#include "fields.h"
#include "prescan.h"
#include "registry.h"
#include "resolve.h"
#include "value_format.h"

enum { CLASSIC, MANIFEST, TRACELOGGING, NCLASS };
static const char *const class_name[NCLASS] = {"classic", "manifest", "tracelogging"};

/* What of a record is kept: the header fields up to the extended items (every field a lookup
 * reads), then the items and bytes in pools, referred to by offset until the pools stop moving. */
#define HEAD_SIZE offsetof(etl_record, ext)

typedef struct kev {
    uint8_t cls;
    uint16_t ext_count;
    size_t head_off; /* into heads */
    size_t ext_off;  /* into exts */
    size_t bytes_off;
    uint32_t payload_offset, payload_size;
    uint8_t pointer_size;
    const etl_schema *schema; /* from the cold pass */
} kev;

typedef struct pool {
    uint8_t *p;
    size_t len, cap;
} pool;

typedef struct trace {
    kev *v;
    size_t n, cap;
    size_t *idx[NCLASS + 1]; /* the events of each class, and all (NCLASS), in file order */
    size_t nidx[NCLASS + 1];
    pool heads, exts, bytes;
    size_t records; /* every record the reader returned, decoded or not */
} trace;

static size_t pool_add(pool *q, const void *src, size_t n)
{
    q->p = bench_grow("kbench", q->p, &q->cap, q->len + n + 1, 1);
    if (n)
        memcpy(q->p + q->len, src, n);
    size_t off = q->len;
    q->len += n;
    return off;
}

static void drain_problems(etl_reader *r)
{
    etl_error p;
    while (etl_reader_next_problem(r, &p))
        ;
}

static void collect(const struct mem *m, trace *t)
{
    etl_reader *r = bench_open_memory("kbench", m);
    etl_record rec;
    etl_error err;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        t->records++;
        t->v = bench_grow("kbench", t->v, &t->cap, t->n + 1, sizeof *t->v);
        kev *e = &t->v[t->n++];
        e->cls = NCLASS; /* the cold pass's resolve says */
        e->ext_count = rec.ext_count;
        e->schema = NULL;
        e->bytes_off = pool_add(&t->bytes, rec.bytes, rec.size);
        e->payload_offset = rec.payload_offset;
        e->payload_size = rec.payload_size;
        e->pointer_size = rec.pointer_size;
        /* extended item data and PMC counters point into the record's bytes: keep offsets */
        etl_ext_item ext[ETL_MAX_EXT_ITEMS];
        for (unsigned i = 0; i < rec.ext_count; i++) {
            ext[i] = rec.ext[i];
            ext[i].data = (const uint8_t *)(uintptr_t)(rec.ext[i].data - rec.bytes);
        }
        e->ext_off = pool_add(&t->exts, ext, rec.ext_count * sizeof ext[0]);
        rec.pmc = rec.pmc ? (const uint8_t *)(uintptr_t)(rec.pmc - rec.bytes) : NULL;
        rec.bytes = NULL;
        e->head_off = pool_add(&t->heads, &rec, HEAD_SIZE);
    }
    drain_problems(r);
    etl_reader_close(r);
}

/* The record a reader would hand out for event e (the pools have stopped moving by now). */
static inline void rebuild(const trace *t, const kev *e, etl_record *r)
{
    const uint8_t *b = t->bytes.p + e->bytes_off;
    memcpy(r, t->heads.p + e->head_off, HEAD_SIZE);
    r->bytes = b;
    if (r->pmc)
        r->pmc = b + (uintptr_t)r->pmc;
    if (e->ext_count) {
        memcpy(r->ext, t->exts.p + e->ext_off, e->ext_count * sizeof r->ext[0]);
        for (unsigned k = 0; k < e->ext_count; k++)
            r->ext[k].data = b + (uintptr_t)r->ext[k].data;
    }
}

/* The decoder's one resolve call, as etldump and the dissector make it; starts the enumerator
 * too when `f` is given. */
static inline const etl_schema *lookup(etl_decoder *d, const etl_record *r, etl_fields *f)
{
    etl_resolved res;
    etl_decoder_resolve(d, r, 0, &res, f);
    return res.schema;
}

/* The class of event a resolved record is, or NCLASS when it has no fields to decode. */
static uint8_t class_of(const etl_resolved *res)
{
    if (!res->schema)
        return NCLASS;
    switch (res->kind) {
    case ETL_RESOLVE_CLASSIC: return CLASSIC;
    case ETL_RESOLVE_MANIFEST: return MANIFEST;
    case ETL_RESOLVE_TRACELOGGING: return TRACELOGGING;
    default: return NCLASS;
    }
}

static volatile uint64_t sink;
static char text[ETL_VALUE_TEXT_CAP(65536)];

enum { ROW_COPY, ROW_LOOKUP, ROW_ITEMS, ROW_WARM, ROW_TEXT, NROW };
static const char *const row_name[NROW] = {"copy", "lookup", "items", "items/warm", "+text"};

typedef struct tally {
    uint64_t events, items, mismatches;
} tally;

/* One pass over the events of class `want` (NCLASS: all). */
static tally run(const trace *t, etl_decoder *d, int want, int row)
{
    tally y = {0};
    uint64_t acc = 0;
    etl_record r;
    etl_fields f;
    etl_item it;
    for (size_t i = 0; i < t->nidx[want]; i++) {
        const kev *e = &t->v[t->idx[want][i]];
        y.events++;
        if (row == ROW_WARM) {
            etl_fields_start(&f, e->schema, t->bytes.p + e->bytes_off + e->payload_offset, e->payload_size,
                             e->pointer_size);
        } else {
            rebuild(t, e, &r);
            if (row == ROW_COPY) {
                acc += r.payload_size;
                continue;
            }
            const etl_schema *sc = lookup(d, &r, row == ROW_LOOKUP ? NULL : &f);
            if (!sc || sc != e->schema) {
                y.mismatches++;
                continue;
            }
            if (row == ROW_LOOKUP) {
                acc += sc->step_count;
                continue;
            }
        }
        while (etl_fields_next(&f, &it) != ETL_ITEM_END) {
            y.items++;
            acc += it.size + it.offset;
            if (row == ROW_TEXT && it.kind == ETL_ITEM_VALUE)
                acc += etl_value_format(&it, text, sizeof text);
        }
    }
    sink += acc;
    return y;
}

static long peak_rss_kb(int who)
{
    struct rusage ru;
    return getrusage(who, &ru) == 0 ? ru.ru_maxrss : -1;
}

/* Run `argv` with stdout and stderr to /dev/null; its CPU seconds (user + system), wall seconds
 * and peak RSS (KiB).  False when it could not run or did not exit 0/1 (1: read
 * with damage). */
static bool run_child(char *const argv[], double *cpu, double *wall, long *rss_kb)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    double w0 = bench_wall_now();
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return false;
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid)
        return false;
    *wall = bench_wall_now() - w0;
    *cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec * 1e-6;
    *rss_kb = ru.ru_maxrss;
    return WIFEXITED(status) && WEXITSTATUS(status) <= 1;
}

static void bench_etldump(const char *prog, const char *file, const char *mpath, int repeat)
{
    const char *name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    size_t records = 0;
    { /* from the file, not from memory: this process's peak RSS must stay small (see below) */
        etl_reader *r;
        etl_record rec;
        etl_error err;
        etl_options opt = {.order = ETL_ORDER_FILE};
        if (etl_reader_open_file(file, &opt, &r, &err) != ETL_OK) {
            fprintf(stderr, "kbench: %s\n", err.message);
            exit(2);
        }
        while (etl_reader_next(r, &rec, &err) == ETL_OK)
            records++;
        drain_problems(r);
        etl_reader_close(r);
    }
    for (int no_payload = 0; no_payload <= 1; no_payload++) {
        char *argv[8];
        int n = 0;
        argv[n++] = (char *)prog;
        if (no_payload)
            argv[n++] = "--no-payload";
        if (mpath) {
            argv[n++] = "--manifest-path";
            argv[n++] = (char *)mpath;
        }
        argv[n++] = (char *)file;
        argv[n] = NULL;
        double best_cpu = 1e30, best_wall = 1e30;
        long rss = 0;
        for (int k = 0; k < repeat; k++) {
            double cpu, wall;
            long kb;
            if (!run_child(argv, &cpu, &wall, &kb)) {
                fprintf(stderr, "kbench: %s failed on %s\n", prog, file);
                return;
            }
            if (cpu < best_cpu)
                best_cpu = cpu;
            if (wall < best_wall)
                best_wall = wall;
            if (kb > rss)
                rss = kb;
        }
        printf("%-40.40s etldump%-12s %9zu records  %6.3f s CPU  %6.3f s wall  %10.0f records/s  peak RSS %ld KiB\n",
               name, no_payload ? " --no-payload" : "", records, best_cpu, best_wall, (double)records / best_cpu,
               rss);
    }
}

int main(int argc, char **argv)
{
    int repeat = 5;
    const char *mpath = NULL, *dump = NULL;
    int a = 1;
    for (; a < argc; a++) {
        if (strcmp(argv[a], "--repeat") == 0 && a + 1 < argc)
            repeat = atoi(argv[++a]);
        else if (strcmp(argv[a], "--manifest-path") == 0 && a + 1 < argc)
            mpath = argv[++a];
        else if (strcmp(argv[a], "--etldump") == 0 && a + 1 < argc)
            dump = argv[++a];
        else
            break;
    }
    if (a >= argc || repeat < 1) {
        fputs("usage: kbench [--repeat N] [--manifest-path PATH] [--etldump PROGRAM] FILE...\n", stderr);
        return 2;
    }
    /* etldump first: a child's peak RSS counts this process's peak until it execs (Linux takes
     * the high-water mark of the memory it leaves), so the runs go before any trace is held */
    for (int k = a; dump && k < argc; k++)
        bench_etldump(dump, argv[k], mpath, repeat);
    for (; a < argc; a++) {
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        struct mem m = bench_read_file("kbench", argv[a]);
        etl_decoder *d = etl_decoder_new(bench_quiet, NULL);
        if (!d) {
            fputs("kbench: out of memory\n", stderr);
            return 2;
        }
        etl_registry *s = etl_decoder_registry(d);
        if (mpath)
            etl_registry_add_path(s, mpath);
        etl_error err;
        etl_reader *r = bench_open_memory("kbench", &m);
        const etl_observer obs = etl_registry_observer(s);
        etl_prescan(r, &obs, 1, &err);
        drain_problems(r);
        etl_reader_close(r);
        trace t = {0};
        collect(&m, &t);

        /* cold pass: every distinct schema compiled once; events without one are left out */
        size_t described[NCLASS] = {0}, present[NCLASS] = {0};
        double t0 = bench_cpu_now();
        for (size_t i = 0; i < t.n; i++) {
            kev *e = &t.v[i];
            etl_record rec;
            etl_resolved res;
            rebuild(&t, e, &rec);
            etl_decoder_resolve(d, &rec, 0, &res, NULL);
            e->schema = res.schema;
            e->cls = class_of(&res);
            if (res.status == ETL_RESOLVE_SCHEMA_MISSING)
                present[MANIFEST]++;
            if (e->cls == NCLASS)
                continue;
            present[e->cls]++;
            described[e->cls]++;
        }
        double cold = bench_cpu_now() - t0;
        for (int k = 0; k <= NCLASS; k++)
            t.idx[k] = malloc((t.n + 1) * sizeof *t.idx[k]);
        for (size_t i = 0; i < t.n; i++) {
            if (t.v[i].cls == NCLASS)
                continue;
            t.idx[t.v[i].cls][t.nidx[t.v[i].cls]++] = i;
            t.idx[NCLASS][t.nidx[NCLASS]++] = i;
        }
        printf("%s: %zu records; classic %zu/%zu, manifest %zu/%zu, TraceLogging %zu/%zu described; %u schemas; "
               "cold pass (compiling each once) %.1f ms\n",
               name, t.records, described[CLASSIC], present[CLASSIC], described[MANIFEST], present[MANIFEST],
               described[TRACELOGGING], present[TRACELOGGING], etl_schema_cache_count(etl_decoder_cache(d)),
               cold * 1e3);
        printf("%-40s %-13s %-11s %9s %8s %12s %9s\n", "file", "events", "pass", "events", "items/ev", "events/s",
               "ns/event");
        for (int want = 0; want <= NCLASS; want++) {
            size_t nev = t.nidx[want];
            if (!nev || (want == NCLASS && (nev == t.nidx[CLASSIC] || nev == t.nidx[MANIFEST] ||
                                            nev == t.nidx[TRACELOGGING])))
                continue; /* no events, or "all" would repeat the one class there is */
            int loops = (int)(200000 / nev) + 1; /* small sets: repeat so a run lasts long enough */
            for (int row = 0; row < NROW; row++) {
                double best = 1e30;
                tally y = {0};
                for (int k = 0; k < repeat; k++) {
                    tally sum = {0};
                    double c0 = bench_cpu_now();
                    for (int l = 0; l < loops; l++) {
                        tally one = run(&t, d, want, row);
                        sum.events += one.events;
                        sum.items += one.items;
                        sum.mismatches += one.mismatches;
                    }
                    double dt = (bench_cpu_now() - c0) / loops;
                    if (dt < best)
                        best = dt;
                    y = sum;
                }
                if (y.mismatches) {
                    fprintf(stderr, "kbench: %s: %llu lookups did not return the cold pass's schema\n", name,
                            (unsigned long long)y.mismatches);
                    return 1;
                }
                printf("%-40.40s %-13s %-11s %9zu %8.1f %12.0f %9.1f\n", name, want == NCLASS ? "all" : class_name[want],
                       row_name[row], nev, (double)y.items / (double)y.events, (double)nev / best,
                       best * 1e9 / (double)nev);
            }
        }
        etl_decoder_free(d);
        free(t.v);
        for (int k = 0; k <= NCLASS; k++)
            free(t.idx[k]);
        free(t.heads.p);
        free(t.exts.p);
        free(t.bytes.p);
        free((void *)m.p);
    }
    printf("kbench peak RSS %ld KiB\n", peak_rss_kb(RUSAGE_SELF));
    return 0;
}
