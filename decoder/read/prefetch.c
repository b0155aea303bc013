/* prefetch.c - loader threads for the reader (prefetch.h). */
#include "prefetch.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "thread.h"

/* Reports one load may keep for replay: a damaged buffer makes one or two; past this they are
 * counted (as the reader's own queue does) and replayed as one line saying so. */
#define PREFETCH_MAX_REPORTS 16u

enum { SLOT_FREE = 0, SLOT_LOADING, SLOT_READY };

typedef struct kept_report {
    etl_status code;
    uint64_t offset, bytes_lost;
    char message[sizeof(((etl_error *)0)->message)];
} kept_report;

typedef struct slot {
    int state;
    uint32_t job;
    etl_buffer *b;
    etl_status st;
    etl_error err;
    kept_report reports[PREFETCH_MAX_REPORTS];
    uint32_t nreports, dropped;
    uint64_t dropped_bytes;
} slot;

struct etl_prefetch {
    struct etl_io_ref io;
    const etl_clock *clock;
    etl_prefetch_job_fn job;
    void *job_ctx;
    uint32_t n, next_job;
    uint32_t taken;          /* jobs the reader has taken: next_job - taken slots are in use */
    unsigned loaders_waiting; /* loaders asleep on `freed` */
    bool taker_waiting;       /* the reader asleep on `ready` */
    bool want_order, stop;
    bool spin; /* the reader spins a while on a slot being loaded before it sleeps (take_spin) */
    unsigned depth, nthreads;
    slot *slots;
    pthread_t *threads;
    pthread_mutex_t mu;
    pthread_cond_t ready, freed;
};

/* etl_buffer_load's report callback inside a loader: keep the report with the slot. */
static void keep_report(void *ctx, etl_status code, uint64_t offset, uint64_t bytes_lost, const char *fmt, ...)
    ETL_PRINTF(5, 6);
static void keep_report(void *ctx, etl_status code, uint64_t offset, uint64_t bytes_lost, const char *fmt, ...)
{
    slot *s = ctx;
    if (s->nreports >= PREFETCH_MAX_REPORTS) {
        s->dropped++;
        s->dropped_bytes += bytes_lost;
        return;
    }
    kept_report *k = &s->reports[s->nreports++];
    k->code = code;
    k->offset = offset;
    k->bytes_lost = bytes_lost;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->message, sizeof k->message, fmt, ap);
    va_end(ap);
}

/* A loader that finds every slot in use sleeps until the reader has taken half of them (not
 * just one): the reader, which does most of the work per record, then takes several buffers
 * without waking a loader for each - one wake-up (two context switches) per buffer made two
 * threads slower than one (3,400 switches for the 1,000 buffers of a 65 MB trace). */
static bool slots_low(const etl_prefetch *p)
{
    return p->next_job - p->taken <= p->depth / 2;
}

/* Claim the next job when its slot is free (mu held): that slot, with *j its job, or NULL. */
static slot *claim(etl_prefetch *p, uint32_t *j)
{
    *j = p->next_job;
    slot *s = &p->slots[*j % p->depth];
    if (p->stop || *j >= p->n || s->state != SLOT_FREE) /* not free: job j - depth not taken yet */
        return NULL;
    p->next_job++;
    __atomic_store_n(&s->state, SLOT_LOADING, __ATOMIC_RELAXED); /* take_spin reads it without the lock */
    __atomic_store_n(&s->job, *j, __ATOMIC_RELAXED);
    s->nreports = s->dropped = 0;
    s->dropped_bytes = 0;
    return s;
}

/* Load claimed job j into its slot s: called with mu held, let go while loading. */
static void load(etl_prefetch *p, slot *s, uint32_t j)
{
    pthread_mutex_unlock(&p->mu);
    uint64_t off;
    etl_buffer_header hdr;
    p->job(p->job_ctx, j, &off, &hdr);
    etl_status st = etl_buffer_load(s->b, &p->io, off, &hdr, p->clock, p->want_order, keep_report, s, &s->err);
    pthread_mutex_lock(&p->mu);
    s->st = st;
    __atomic_store_n(&s->state, SLOT_READY, __ATOMIC_RELEASE); /* the load's results before it */
    if (p->taker_waiting)
        pthread_cond_broadcast(&p->ready);
}

static void *loader(void *arg)
{
    etl_prefetch *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->next_job < p->n) {
        uint32_t j;
        slot *s = claim(p, &j);
        if (s) {
            load(p, s, j);
            continue;
        }
        p->loaders_waiting++;
        while (!p->stop && !slots_low(p))
            pthread_cond_wait(&p->freed, &p->mu);
        p->loaders_waiting--;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void free_slots(etl_prefetch *p)
{
    for (unsigned i = 0; i < p->depth; i++)
        if (p->slots[i].b) {
            etl_buffer_free(p->slots[i].b);
            free(p->slots[i].b);
        }
    free(p->slots);
}

etl_prefetch *etl_prefetch_start(const struct etl_io_ref *io, const etl_clock *clock, etl_prefetch_job_fn job,
                                 void *job_ctx, uint32_t n, bool want_order, unsigned threads, unsigned depth)
{
    if (!threads || !depth || !n)
        return NULL;
    etl_prefetch *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->io = *io;
    p->clock = clock;
    p->job = job;
    p->job_ctx = job_ctx;
    p->n = n;
    p->want_order = want_order;
    p->depth = depth;
    p->slots = calloc(depth, sizeof *p->slots);
    p->threads = calloc(threads, sizeof *p->threads);
    bool ok = p->slots && p->threads;
    for (unsigned i = 0; ok && i < depth; i++)
        ok = (p->slots[i].b = etl_buffer_new()) != NULL;
    if (!ok || pthread_mutex_init(&p->mu, NULL) != 0) {
        if (p->slots)
            free_slots(p);
        free(p->threads);
        free(p);
        return NULL;
    }
    pthread_cond_init(&p->ready, NULL);
    pthread_cond_init(&p->freed, NULL);
    for (unsigned i = 0; i < threads; i++) {
        if (etl_thread_start(&p->threads[i], loader, p) != 0)
            break;
        p->nthreads++;
    }
    if (!p->nthreads) {
        etl_prefetch_stop(p);
        return NULL;
    }
    p->spin = etl_thread_cpus() >= p->nthreads + 1u; /* a CPU for each loader and the reader */
    return p;
}

/* The reader's wait for a slot, spun before it sleeps.  A buffer takes a loader some tens of
 * microseconds; where the reader keeps pace with it, it found the slot still loading about
 * once a buffer, and slept on the condition variable: the loader's wake-up was a futex call
 * and the reader's a trip through the scheduler, each a few microseconds on a VM, both on the
 * path of every buffer (perf of --summary --threads 2, session 14: futex wake and
 * schedule were 5% of the samples).  Spinning costs a core only while it would sit idle, so
 * it is done only when each loader and the reader have a CPU of their own (p->spin), and for
 * at most TAKE_SPIN_NS: a loader that far behind (a compressed buffer inflating, a slow disk)
 * is waited for asleep. */
#define TAKE_SPIN_NS 100000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static bool slot_done(const slot *s, uint32_t i)
{
    return __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == SLOT_READY && __atomic_load_n(&s->job, __ATOMIC_RELAXED) == i;
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void take_spin(const slot *s, uint32_t i)
{
    if (slot_done(s, i))
        return;
    int64_t until = now_ns() + TAKE_SPIN_NS;
    for (unsigned k = 1; !slot_done(s, i); k++) {
        cpu_relax();
        if (k % 64 == 0 && now_ns() > until)
            return;
    }
}

etl_status etl_prefetch_take(etl_prefetch *p, uint32_t i, etl_buffer *spare, etl_buffer **out, etl_report_fn report,
                             void *report_ctx, etl_error *err)
{
    slot *s = &p->slots[i % p->depth];
    /* While job i is not done, the reader loads the next free job itself rather than wait:
     * where the loaders are what the reader waits for (the 1 M-record kernel trace at
     * --threads 2, session 14: the reader waited 13-16 ms of its 33 for the one loader, the
     * compressed net452 20-35 ms of 35-48, a loader's load being slower than the same load on
     * the reader's own core), the two share the loading.  Jobs are still taken in order, each
     * with its own reports: the stream is the same. */
    while (!slot_done(s, i)) {
        pthread_mutex_lock(&p->mu);
        uint32_t j;
        slot *h = claim(p, &j);
        if (h)
            load(p, h, j);
        pthread_mutex_unlock(&p->mu);
        if (!h)
            break;
    }
    if (p->spin)
        take_spin(s, i);
    pthread_mutex_lock(&p->mu);
    while (!(s->state == SLOT_READY && s->job == i)) {
        p->taker_waiting = true;
        pthread_cond_wait(&p->ready, &p->mu);
    }
    p->taker_waiting = false;
    pthread_mutex_unlock(&p->mu);
    /* the slot is the taker's until it is marked free again */
    for (uint32_t k = 0; k < s->nreports; k++)
        report(report_ctx, s->reports[k].code, s->reports[k].offset, s->reports[k].bytes_lost, "%s",
               s->reports[k].message);
    if (s->dropped)
        report(report_ctx, ETL_ERR_LIMIT, s->reports[0].offset, s->dropped_bytes,
               "%u further problems in this buffer were counted but not listed", s->dropped);
    etl_status st = s->st;
    if (st != ETL_OK && err)
        *err = s->err;
    *out = s->b;
    pthread_mutex_lock(&p->mu);
    s->b = spare;
    s->state = SLOT_FREE;
    p->taken++;
    if (p->loaders_waiting && slots_low(p))
        pthread_cond_broadcast(&p->freed);
    pthread_mutex_unlock(&p->mu);
    return st;
}

void etl_prefetch_stop(etl_prefetch *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->freed);
    pthread_cond_broadcast(&p->ready);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->ready);
    pthread_cond_destroy(&p->freed);
    pthread_mutex_destroy(&p->mu);
    free_slots(p);
    free(p->threads);
    free(p);
}
