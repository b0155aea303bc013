/* parallel.c - etldump's ordered batch pipeline (parallel.h, docs/parallel.md).
 *
 * A ring of 2 x (workers + 1) batches, each filled by the main thread, formatted by one worker
 * (or by the main thread, when every batch is in flight and one is still waiting for a worker)
 * and written in sequence order by whichever thread finds it next in line: `filled` batches
 * were handed over, `taken` of them by a formatting thread, `written` of them are out.  A
 * batch is free again once written.  The batch whose turn it is writes its text straight to
 * the output as it is formatted; the others keep it until their turn, as the formatter's own
 * full buffers (json.h's sink), handed over rather than copied. */
#include "parallel.h"

#include "prefault.h" /* the decoder's own helpers (read/): etl_prefault, etl_thread_start */
#include "thread.h"

#include <glib.h>
#include <pthread.h>
#include <stddef.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <stdlib.h>
#include <string.h>

/* Records per batch: enough that handing a batch over costs nothing next to formatting it
 * (some 0.3 ms of work), few enough that a batch's slots and bytes stay in the caches.  Since
 * the text is no longer copied and the view is read in place (session 9), 1024 beat 2048 by
 * 6-8% and 512 and 4096 fell between (--threads 2, large_kernel on /dev/shm, best of 11-15 in
 * alternation: 275-322 ms against 297-346; net452 with manifests 174 against 179). */
#define PAR_BATCH_RECORDS 1024u
/* The first batches are smaller (64, 128, 256, 512 records, then PAR_BATCH_RECORDS): the main
 * thread fills them slowly - schemas compiled on first use, the batch memory and the stack
 * links' ring touched for the first time, a page fault a page - and a worker had nothing to
 * format until the first 1024 were in: 7.3 ms of waiting at the start of the 1 M-record kernel
 * trace (3.7 ms for the first batch, 0.7-1.7 for the next three), nearly none after. */
#define PAR_RAMP_BATCHES 4u
/* Bytes of record copies per batch, their headers included (a larger record gets a batch of
 * its own). */
#define PAR_BATCH_BYTES (3u << 19)
/* An arena is allocated this much larger than its capacity: a record copy's header is cut
 * after the extended items in use, yet a whole etl_record at any place in the arena stays
 * inside the allocation. */
#define PAR_ARENA_SLACK sizeof(etl_record)

/* How far ahead of its writes the main thread asks for the cache lines of a batch's arena and
 * slots (own_lines).  Those lines were last read by a formatting thread: on a machine where a line takes ~225 ns to come from the other core (the 2-core VM
 * of bench/README.md, session 12: a ping-pong round trip of 450 ns), every store to one waits
 * that long to commit, and a load that needs such a store stalls the thread (etl_procs_ids'
 * first read of the view was 18% of the main thread's time at --threads 2).  Asked for 4 KiB
 * ahead, the lines come while the thread works on the records before: --threads 2 on the
 * 1 M-record kernel trace 0.290 -> 0.224 s (16 KiB the same, 64 KiB worse: the lines go
 * again before they are written). */
#define PAR_OWN_AHEAD 4096u
#define PAR_OWN_SPAN 512u /* more than a kernel record's header and bytes take */
#define PAR_OWN_SLOTS 8u  /* slots ahead */
#define PAR_LINE 64u

static bool par_prefetchw; /* the CPU has PREFETCHW (x86: CPUID 0x80000001 ECX bit 8) */

/* Ask for the cache line at q to write to it (its other copies invalidated now, not at the
 * store).  x86's PREFETCHW is used only where CPUID says the CPU has it; elsewhere the
 * compiler's write prefetch (PRFM PSTL1KEEP on Arm) is the same request. */
static inline void own_line(const void *q)
{
#if defined(__x86_64__) || defined(__i386__)
    if (par_prefetchw)
        __asm__ volatile("prefetchw %0" : : "m"(*(const char *)q));
#else
    __builtin_prefetch(q, 1, 3);
#endif
}

/* Own the n bytes' lines from q on. */
static inline void own_lines(const uint8_t *q, size_t n)
{
    for (size_t k = 0; k < n; k += PAR_LINE)
        own_line(q + k);
}

static void detect_prefetchw(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    par_prefetchw = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 8));
#endif
}

/* Each batch on cache lines of its own (the ring: aligned_alloc): the main thread changes the
 * one it fills on every record (n, used), and the thread formatting the one before read that
 * one's fields on every record; side by side in one line, every record the main thread added
 * took that line away from the formatter.  Two lines: the adjacent-line prefetcher fetches
 * lines in pairs. */
#define PAR_BATCH_ALIGN 128u
typedef struct batch {
    par_slot *slots;
    unsigned n;
    uint8_t *arena; /* the records' copies: each its header (to its last extended item in use),
                     * then its bytes and what it points to outside them */
    size_t used, cap;
    uint64_t seq; /* its place in the order: the value of `filled` when it was filled */
    struct par *p;
    /* the formatted text kept until the batch's turn: the formatter's own full buffers
     * (JSON_BUFFER_SIZE bytes each, text_len[i] of them text), taken as they are, no copy */
    char **text;
    size_t *text_len;
    unsigned ntext, text_cap;
    bool failed;
    bool done; /* formatted: its text may be written */
} __attribute__((aligned(PAR_BATCH_ALIGN))) batch;

typedef struct worker_arg {
    struct par *p;
    unsigned index;
} worker_arg;

/* Bytes of each batch's arena mapped in before it is first filled (etl_prefault): what 1024
 * kernel records take, with room to spare.  The main thread took some 450 page faults (10 us
 * each on the 2-core VM of bench/README.md, session 12) filling the first four batches, while
 * the worker waited for it; mapped in at once they cost 0.6 ms, on the worker. */
#define PAR_PREFAULT_BYTES (512u << 10)

/* Where the batches after the first keep their slots and records, as par_new made them (a
 * later realloc of an arena only makes the request miss: mapping pages in never changes what
 * they hold). */
typedef struct prefault_range {
    void *at;
    size_t len;
} prefault_range;

#define PAR_MAX_WORKERS 64u

/* par_resolved_keep's front: the two answers kept last in each of 2^PAR_RESOLVED_SET_BITS sets,
 * the set chosen by the answer's schema, provider and event name, so that an answer met again
 * costs a compare or two; the set of every answer kept (GLib's hash table, by content) is asked
 * only when the front misses.  Two ways, not one: the set follows heap addresses, so it changes
 * from run to run, and with one answer per slot (256 slots, the low bits of the mix) 4 of 12 runs
 * on the 1 M-record kernel trace had two of its 15 answers in one slot.  Taking turns there, they
 * sent 21,000 to 226,000 of its records to the hash table (session 21, bench/README.md). */
#define PAR_RESOLVED_SET_BITS 8u

struct par {
    FILE *out;
    par_format_fn format;
    void *ctx;
    unsigned workers, nbatches;
    pthread_t *threads;
    worker_arg args[PAR_MAX_WORKERS];
    unsigned started;
    json_out **jo; /* one writer per worker, and the last one the main thread's (main_writer) */
    enum { MAIN_WRITER_NONE, MAIN_WRITER_MAKING, MAIN_WRITER_READY } main_writer;
    void **scratch; /* the same for the format function's scratch (calloc: pages never used are never touched) */
    void **scratch_block; /* what each was allocated as (own_writer: a cache line to spare at either end) */
    size_t scratch_size;
    char **spare;  /* text buffers written out, for the next ones kept (under mu) */
    unsigned nspare, spare_cap;
    unsigned nmade; /* buffers text_buffer allocated; with the writers' stores, all there are */
    batch *ring;
    prefault_range *prefault; /* 2 per batch but the first: its slots, its arena's start */
    unsigned nprefault;
    uint64_t filled, taken, written;
    bool writing; /* a thread is writing done batches out (drain) */
    batch *cur;   /* the batch the main thread fills, or NULL */
    const par_resolved *front[1u << PAR_RESOLVED_SET_BITS][2]; /* par_resolved_keep (main thread only):
                                                                 * per set, the newest first */
    GHashTable *resolved; /* every answer kept, each its own key (g_free'd with the table) */
    bool stop, failed;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
};

/* The text kept in batch b, written out in order (the buffers stay with b until spare_kept). */
static void write_kept(par *p, batch *b)
{
    for (unsigned i = 0; i < b->ntext; i++)
        fwrite(b->text[i], 1, b->text_len[i], p->out); /* as json_flush: not checked */
}

/* b's written buffers back to the spares, for the next batch's kept text.  With mu held; the
 * spares' array has room for every buffer ever made (text_buffer), so this cannot fail. */
static void spare_kept(par *p, batch *b)
{
    for (unsigned i = 0; i < b->ntext; i++)
        p->spare[p->nspare++] = b->text[i];
    b->ntext = 0;
}

/* Write out, in order, the batches formatted and not written yet, one thread at a time (the
 * others go on: a batch's text waits in the batch).  Called and returns with mu held. */
static void drain(par *p)
{
    while (!p->writing && p->written < p->filled && p->ring[p->written % p->nbatches].done) {
        batch *b = &p->ring[p->written % p->nbatches];
        p->writing = true;
        pthread_mutex_unlock(&p->mu);
        write_kept(p, b);
        bool failed = b->failed;
        b->n = 0;
        b->used = 0;
        b->failed = false;
        pthread_mutex_lock(&p->mu);
        spare_kept(p, b);
        b->done = false;
        if (failed)
            p->failed = true;
        p->writing = false;
        p->written++;
        pthread_cond_broadcast(&p->done); /* the main thread may wait for a free batch */
    }
}

/* Room in b for one more kept buffer. */
static bool grow_kept(batch *b)
{
    unsigned cap = b->text_cap ? 2 * b->text_cap : 8;
    char **t = realloc(b->text, cap * sizeof *t);
    if (!t)
        return false;
    b->text = t;
    size_t *l = realloc(b->text_len, cap * sizeof *l);
    if (!l)
        return false;
    b->text_len = l;
    b->text_cap = cap;
    return true;
}

/* A buffer for a formatter's next text: a spare one, else a new one (NULL when out of memory).
 * Every buffer made gets a place in the spares' array first, so that spare_kept never fails:
 * their number is bounded by the text the batches in flight hold, as before by the batches'
 * own copies. */
static char *text_buffer(par *p)
{
    pthread_mutex_lock(&p->mu);
    char *buf = NULL;
    if (p->nspare) {
        buf = p->spare[--p->nspare];
    } else {
        unsigned all = p->nmade + p->workers + 1; /* every buffer, the writers' stores included */
        bool room = all < p->spare_cap;
        if (!room) {
            unsigned cap = 2 * p->spare_cap;
            char **a = realloc(p->spare, cap * sizeof *a);
            if (a) {
                p->spare = a;
                p->spare_cap = cap;
                room = true;
            }
        }
        if (room && (buf = malloc(JSON_BUFFER_SIZE)))
            p->nmade++;
    }
    pthread_mutex_unlock(&p->mu);
    return buf;
}

/* json_flush's sink for the thread formatting batch b.  Once every batch before b is written,
 * b's turn has come and nobody else writes to the output until b is done: what b kept goes
 * out, then this buffer, and the formatter writes on in the same buffer.  Until then the full
 * buffer itself is kept in b (no copy: the text is 750 MB on the 1 M-record kernel trace) and
 * the formatter gets a spare one. */
static char *text_sink(void *ctx, char *buf, size_t len)
{
    batch *b = ctx;
    par *p = b->p;
    pthread_mutex_lock(&p->mu);
    drain(p);
    bool turn = p->written == b->seq;
    pthread_mutex_unlock(&p->mu);
    if (turn) {
        if (b->ntext) {
            write_kept(p, b);
            pthread_mutex_lock(&p->mu);
            spare_kept(p, b);
            pthread_mutex_unlock(&p->mu);
        }
        fwrite(buf, 1, len, p->out); /* as one thread's json_flush: a failed write is not checked */
        return buf;
    }
    char *next = NULL;
    if (b->ntext < b->text_cap || grow_kept(b))
        next = text_buffer(p);
    if (!next) { /* out of memory: this text is lost, and the batch says so */
        b->failed = true;
        return buf;
    }
    b->text[b->ntext] = buf;
    b->text_len[b->ntext++] = len;
    return next;
}

/* Format batch b with j and scratch, then mark it done and write out what is ready. */
static void format_batch(par *p, json_out *j, void *scratch, batch *b)
{
    j->sink = text_sink;
    j->sink_ctx = b;
    j->len = 0;
    j->depth = 0;
    const unsigned n = b->n; /* the batch is the formatter's now: read once, not every record */
    for (unsigned i = 0; i < n; i++)
        p->format(p->ctx, j, &b->slots[i], scratch);
    json_flush(j);
    pthread_mutex_lock(&p->mu);
    b->done = true;
    drain(p);
    pthread_cond_broadcast(&p->done);
    pthread_mutex_unlock(&p->mu);
}

/* The pages of the batches after the first mapped in, by the first worker while the main
 * thread fills the first batch (par_new maps in the first's). */
static void prefault(const par *p)
{
    for (unsigned i = 0; i < p->nprefault; i++)
        etl_prefault(p->prefault[i].at, p->prefault[i].len);
}

/* Formatting thread i's writer and scratch (false when out of memory).  A worker makes its own
 * once started, while the main thread fills the first batches: zeroed, they were ~0.9 ms of
 * par_new per worker (page faults: 580 + 210 KiB), with the cores otherwise idle until the
 * first batch is handed over.
 *
 * Both change on every record, at both ends of the scratch (the value texts first, the time
 * cache last), so the scratch has a cache line to spare on either side, as the writer has
 * before its fields (JSON_MARGIN): two threads' side by side in one heap - worker 0 makes the
 * main thread's, then its own (main_writer) - shared a line between the main thread's scratch
 * and the worker's writer, and --threads 2 on the 1 M-record kernel trace took 226-231 ms
 * instead of 196-197 (session 18, bench/README.md). */
static bool own_writer(par *p, unsigned i)
{
    if (!p->jo[i])
        p->jo[i] = json_new(p->out);
    if (p->jo[i] && p->scratch_size && !p->scratch_block[i]) {
        p->scratch_block[i] = calloc(1, p->scratch_size + 2 * PAR_LINE);
        p->scratch[i] = p->scratch_block[i] ? (uint8_t *)p->scratch_block[i] + PAR_LINE : NULL;
    }
    return p->jo[i] && (!p->scratch_size || p->scratch[i]);
}

/* The main thread's writer and scratch, which it needs only once it helps (help): made by the
 * first worker as it starts, on the core that waits while the main thread sets up and
 * pre-scans (etldump makes the pool before both), else by whichever thread asks first.  In
 * par_new they were 0.8-1.5 ms of the main thread's own (page faults, on the 2-core VM of
 * bench/README.md session 18).  Called with mu held; false when out of memory. */
static bool main_writer(par *p)
{
    while (p->main_writer == MAIN_WRITER_MAKING) /* another thread makes it: wait for it */
        pthread_cond_wait(&p->done, &p->mu);
    if (p->main_writer == MAIN_WRITER_READY)
        return true;
    p->main_writer = MAIN_WRITER_MAKING;
    pthread_mutex_unlock(&p->mu);
    bool ok = own_writer(p, p->workers);
    pthread_mutex_lock(&p->mu);
    p->main_writer = ok ? MAIN_WRITER_READY : MAIN_WRITER_NONE;
    pthread_cond_broadcast(&p->done);
    return ok;
}

static void *worker(void *arg)
{
    const worker_arg *w = arg;
    par *p = w->p;
    if (w->index == 0) {
        prefault(p);
        pthread_mutex_lock(&p->mu);
        main_writer(p); /* out of memory: the main thread tries again when it helps */
        pthread_mutex_unlock(&p->mu);
    }
    if (!own_writer(p, w->index))
        return NULL; /* out of memory: the main thread formats what this one would have */
    json_out *j = p->jo[w->index];
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->taken == p->filled)
            pthread_cond_wait(&p->work, &p->mu);
        if (p->taken == p->filled) /* stopping, nothing left */
            break;
        batch *b = &p->ring[p->taken++ % p->nbatches];
        pthread_mutex_unlock(&p->mu);
        format_batch(p, j, p->scratch[w->index], b);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* The main thread's share: a batch no worker took yet, formatted here instead of waiting.
 * Called with mu held; false when there is none. */
static bool help(par *p)
{
    if (p->taken == p->filled)
        return false;
    bool writer = main_writer(p);
    if (p->taken == p->filled) /* main_writer let go of mu: a worker took the batch meanwhile */
        return true;
    batch *b = &p->ring[p->taken++ % p->nbatches];
    if (!writer) { /* out of memory: the batch is lost, and said so (par_finish) */
        b->failed = true;
        b->done = true;
        drain(p);
        pthread_cond_broadcast(&p->done);
        return true;
    }
    pthread_mutex_unlock(&p->mu);
    format_batch(p, p->jo[p->workers], p->scratch[p->workers], b);
    pthread_mutex_lock(&p->mu);
    return true;
}

/* Hand the batch being filled to the workers. */
static void hand_over(par *p)
{
    pthread_mutex_lock(&p->mu);
    p->filled++;
    p->cur = NULL;
    pthread_cond_signal(&p->work);
    drain(p); /* what is ready goes out now: less in memory */
    pthread_mutex_unlock(&p->mu);
}

/* The batch to fill: a free one.  When every batch is in flight the main thread formats one
 * no worker took yet, or waits for a batch to be written.  Only the main thread changes
 * `filled`. */
static batch *filling(par *p)
{
    pthread_mutex_lock(&p->mu);
    for (;;) {
        drain(p);
        if (p->filled - p->written < p->nbatches)
            break;
        if (!help(p))
            pthread_cond_wait(&p->done, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    batch *b = &p->ring[p->filled % p->nbatches];
    b->seq = p->filled;
    return b;
}

static void stop_workers(par *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
}

/* A text buffer freed, unless it is a writer's own store (buffers move between writers). */
static void free_text(par *p, char *buf)
{
    for (unsigned i = 0; p->jo && i <= p->workers; i++)
        if (p->jo[i] && buf == p->jo[i]->store)
            return;
    free(buf);
}

static void par_free(par *p)
{
    if (!p)
        return;
    for (unsigned i = 0; p->ring && i < p->nbatches; i++) {
        batch *b = &p->ring[i];
        free(b->slots);
        free(b->arena);
        for (unsigned k = 0; k < b->ntext; k++) /* none after par_finish; some when it failed */
            free_text(p, b->text[k]);
        free(b->text);
        free(b->text_len);
    }
    for (unsigned i = 0; i < p->nspare; i++)
        free_text(p, p->spare[i]);
    free(p->spare);
    for (unsigned i = 0; p->jo && i <= p->workers; i++)
        if (p->jo[i])
            free_text(p, p->jo[i]->buf);
    for (unsigned i = 0; p->jo && i <= p->workers; i++)
        json_free(p->jo[i]);
    free(p->jo);
    for (unsigned i = 0; p->scratch_block && i <= p->workers; i++)
        free(p->scratch_block[i]);
    free(p->scratch_block);
    free(p->scratch);
    if (p->resolved)
        g_hash_table_destroy(p->resolved);
    free(p->ring);
    free(p->prefault);
    free(p->threads);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

par *par_new(unsigned workers, FILE *out, par_format_fn format, void *ctx, size_t scratch_size)
{
    if (workers < 1 || workers > PAR_MAX_WORKERS)
        return NULL;
    detect_prefetchw();
    par *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->out = out;
    p->format = format;
    p->ctx = ctx;
    p->workers = workers;
    p->nbatches = 2 * (workers + 1); /* the main thread formats too */
    p->threads = calloc(workers, sizeof *p->threads);
    p->jo = calloc(workers + 1, sizeof *p->jo);
    p->scratch = calloc(workers + 1, sizeof *p->scratch);
    p->scratch_block = calloc(workers + 1, sizeof *p->scratch_block);
    p->ring = aligned_alloc(PAR_BATCH_ALIGN, p->nbatches * sizeof *p->ring);
    if (p->ring)
        memset(p->ring, 0, p->nbatches * sizeof *p->ring);
    p->spare_cap = 2 * (workers + 1) + 16;
    p->spare = malloc(p->spare_cap * sizeof *p->spare);
    bool ok = p->threads && p->jo && p->scratch && p->scratch_block && p->ring && p->spare;
    p->scratch_size = scratch_size;
    for (unsigned i = 0; ok && i < p->nbatches; i++) {
        batch *b = &p->ring[i];
        b->slots = malloc(PAR_BATCH_RECORDS * sizeof *b->slots);
        b->arena = malloc(PAR_BATCH_BYTES + PAR_ARENA_SLACK);
        b->cap = PAR_BATCH_BYTES;
        b->p = p;
        ok = b->slots && b->arena;
    }
    p->prefault = ok ? calloc(2 * p->nbatches, sizeof *p->prefault) : NULL;
    for (unsigned i = 0; p->prefault && i < p->nbatches; i++) {
        p->prefault[p->nprefault++] = (prefault_range){p->ring[i].slots, PAR_BATCH_RECORDS * sizeof *p->ring[i].slots};
        p->prefault[p->nprefault++] = (prefault_range){p->ring[i].arena, PAR_PREFAULT_BYTES};
    }
    for (unsigned i = 0; ok && i < workers; i++) {
        p->args[i] = (worker_arg){p, i};
        if (etl_thread_start(&p->threads[i], worker, &p->args[i]) != 0)
            break;
        p->started++;
    }
    if (!ok || !p->started) {
        stop_workers(p);
        par_free(p);
        return NULL;
    }
    return p;
}

static size_t round8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static size_t arena_need(const etl_record *r)
{
    size_t need = etl_record_head_size(r) + round8(r->size);
    if (r->pmc && !etl_record_holds(r, r->pmc, (size_t)r->pmc_count * 8))
        need += round8((size_t)r->pmc_count * 8);
    for (unsigned i = 0; i < etl_record_ext_in_use(r); i++)
        if (r->ext[i].data && !etl_record_holds(r, r->ext[i].data, r->ext[i].data_size))
            need += round8(r->ext[i].data_size);
    return need;
}

/* q (n bytes) in the arena: moved with the record's bytes when inside them, else copied. */
static const uint8_t *place(batch *b, const etl_record *from, const uint8_t *base, const uint8_t *q, size_t n)
{
    if (!q)
        return q;
    if (etl_record_holds(from, q, n))
        return base + (q - from->bytes);
    uint8_t *d = b->arena + b->used;
    memcpy(d, q, n);
    b->used += round8(n);
    return d;
}

/* 16-byte moves the compiler keeps inline, the last one overlapping the one before: a record's
 * bytes into the arena (no overlap: the reader's buffer or a view's own bytes, never the
 * arena), and a view's header when it is not read in place.  Most records are a few dozen bytes
 * to a few hundred: memcpy's call (memmove's symbol) was 782 of 28K samples of --threads 2 on
 * the 1 M-record kernel trace, 113-123 with the moves inline (perf, session 18).  For the
 * header, a memcpy of a size known only at run time (the header and the items in use) became
 * `rep movsq`, whose start-up cost was two thirds of par_add's time (session 9). */
typedef unsigned char par_chunk16 __attribute__((vector_size(16), aligned(1), may_alias));
static inline void copy_bytes(void *to, const void *from, size_t n)
{
    unsigned char *d = to;
    const unsigned char *s = from;
    if (n < 16 || n > 512) {
        if (n)
            memcpy(d, s, n);
        return;
    }
    for (size_t i = 0; i + 16 < n; i += 16)
        *(par_chunk16 *)(d + i) = *(const par_chunk16 *)(s + i);
    *(par_chunk16 *)(d + n - 16) = *(const par_chunk16 *)(s + n - 16);
}

etl_record *par_view(par *p)
{
    batch *b = p->cur ? p->cur : (p->cur = filling(p));
    /* the lines of the records and slots to come, asked for ahead (PAR_OWN_AHEAD): for each
     * record the lines a record's header and bytes take at that distance (many asked for again
     * while still owned: that costs little; a window moving exactly did no better) */
    if (b->used + PAR_OWN_AHEAD + PAR_OWN_SPAN <= b->cap)
        own_lines(b->arena + b->used + PAR_OWN_AHEAD, PAR_OWN_SPAN);
    if (b->n + PAR_OWN_SLOTS < PAR_BATCH_RECORDS)
        own_lines((const uint8_t *)&b->slots[b->n + PAR_OWN_SLOTS], sizeof *b->slots);
    /* used <= cap and the slack is a whole etl_record: the view fits the allocation */
    return (etl_record *)(void *)(b->arena + b->used); /* 8-aligned: sizes are round8 */
}

par_slot *par_add(par *p, const etl_record *rec)
{
    size_t need = arena_need(rec);
    batch *b = p->cur ? p->cur : (p->cur = filling(p));
    etl_record *c = (etl_record *)(void *)(b->arena + b->used);
    bool in_place = rec == c; /* read there by par_view: its header is where it belongs */
    need += PAR_KEEP_MAX; /* par_keep's room after the record: not used unless asked for */
    unsigned limit = b->seq < PAR_RAMP_BATCHES ? PAR_BATCH_RECORDS >> (PAR_RAMP_BATCHES - b->seq) : PAR_BATCH_RECORDS;
    if (b->n == limit || need > b->cap - b->used) {
        /* the record goes to the next batch: a view read in place is copied from this arena's
         * free end, which the batch's formatter never reads and only this thread refills */
        if (b->n) {
            hand_over(p);
            b = p->cur = filling(p);
            in_place = false; /* rec is in the batch just handed over */
        }
        if (need > b->cap) { /* an empty batch: nothing points into its arena yet */
            uint8_t *a = realloc(b->arena, need + PAR_ARENA_SLACK);
            if (!a)
                return NULL;
            if (in_place && a != b->arena)
                rec = (const etl_record *)(void *)a; /* realloc moved the view with the arena */
            b->arena = a;
            b->cap = need;
        }
        c = (etl_record *)(void *)(b->arena + b->used);
        in_place = rec == c;
    }
    par_slot *s = &b->slots[b->n++];
    unsigned ext = etl_record_ext_in_use(rec);
    if (!in_place) {
        /* the header and the extended items in use: the unused ones are most of the struct */
        copy_bytes(c, rec, offsetof(etl_record, ext));
        for (unsigned i = 0; i < ext; i++)
            c->ext[i] = rec->ext[i];
    }
    b->used += etl_record_head_size(rec);
    uint8_t *base = b->arena + b->used;
    b->used += round8(rec->size);
    /* what points into the record's bytes moves with them; the rest is copied after them.
     * Read in place, the view is c itself: its bytes pointer changes last, and its bytes go
     * where its unused extended items were, after every pointer was read. */
    c->pmc = place(b, rec, base, rec->pmc, (size_t)rec->pmc_count * 8);
    for (unsigned i = 0; i < ext; i++)
        c->ext[i].data = place(b, rec, base, rec->ext[i].data, rec->ext[i].data_size);
    copy_bytes(base, rec->bytes, rec->size);
    c->bytes = base;
    s->r = c;
    return s;
}

const char *par_keep(par *p, const char *text)
{
    batch *b = p->cur; /* the record's batch: par_add reserved PAR_KEEP_MAX bytes after it */
    char *d = (char *)(b->arena + b->used);
    size_t n = strnlen(text, PAR_KEEP_MAX - 1);
    memcpy(d, text, n);
    d[n] = '\0';
    b->used += round8(n + 1);
    return d;
}

static guint resolved_hash(gconstpointer key)
{
    /* FNV-1a over the answer's bytes (its padding is zero: par_resolved_keep) */
    const unsigned char *b = key;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < sizeof(par_resolved); i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

static gboolean resolved_equal(gconstpointer a, gconstpointer b)
{
    return memcmp(a, b, sizeof(par_resolved)) == 0;
}

/* The provider name an answer is kept with: none when it is in the record (parallel.h). */
static inline const char *kept_provider_name(const etl_resolved *r)
{
    return r->provider_name_from == ETL_NAME_TRAITS ? NULL : r->provider_name;
}

void par_resolved_from(etl_resolve_status st, const etl_resolved *r, par_resolved *out)
{
    memset(out, 0, sizeof *out); /* the kept set compares bytes: the padding too */
    out->schema = r->schema;
    out->provider_name = kept_provider_name(r);
    out->event_name = r->event_name;
    out->task_name = r->task_name;
    out->opcode_name = r->opcode_name;
    out->level_name = r->level_name;
    out->channel_name = r->channel_name;
    out->keywords_name = r->keywords_name;
    out->status = (uint8_t)st;
    out->kind = (uint8_t)r->kind;
    out->provider_name_from = (uint8_t)r->provider_name_from;
    out->schema_version = r->schema_version;
    out->older_version = r->older_version;
    out->has_message = r->has_message;
}

/* A kept answer is the resolver's (the set compares bytes; this compares what they were made
 * from), field by field inline, straight from etl_resolved: building the kept form of every
 * record's answer first, to compare it, was most of the front's cost. */
static inline bool is_answer(const par_resolved *a, etl_resolve_status st, const etl_resolved *r)
{
    return ((a->schema == r->schema) & (a->provider_name == kept_provider_name(r)) & (a->event_name == r->event_name) &
            (a->task_name == r->task_name) & (a->opcode_name == r->opcode_name) & (a->level_name == r->level_name) &
            (a->channel_name == r->channel_name) & (a->keywords_name == r->keywords_name) &
            (a->status == (uint8_t)st) & (a->kind == (uint8_t)r->kind) &
            (a->provider_name_from == (uint8_t)r->provider_name_from) & (a->schema_version == r->schema_version) &
            (a->older_version == r->older_version) & (a->has_message == r->has_message)) != 0;
}

const par_resolved *par_resolved_keep(par *p, etl_resolve_status st, const etl_resolved *r)
{
    /* the high bits of the products: a pointer's low bits are mostly its alignment */
    uint64_t mix = (uint64_t)(uintptr_t)r->schema * 0x9E3779B97F4A7C15u ^
                   (uint64_t)(uintptr_t)kept_provider_name(r) * 0xC2B2AE3D27D4EB4Fu ^
                   (uint64_t)(uintptr_t)r->event_name * 0x165667B19E3779F9u;
    const par_resolved **set = p->front[mix >> (64u - PAR_RESOLVED_SET_BITS)];
    if (set[0] && is_answer(set[0], st, r))
        return set[0];
    const par_resolved *kept = set[1];
    if (!kept || !is_answer(kept, st, r)) {
        if (!p->resolved && !(p->resolved = g_hash_table_new_full(resolved_hash, resolved_equal, g_free, NULL)))
            return NULL;
        par_resolved v;
        par_resolved_from(st, r, &v);
        par_resolved *found = g_hash_table_lookup(p->resolved, &v);
        if (!found) {
            found = g_try_malloc(sizeof *found);
            if (!found)
                return NULL;
            memcpy(found, &v, sizeof *found);
            g_hash_table_add(p->resolved, found);
        }
        kept = found;
    }
    set[1] = set[0]; /* two answers taking turns in one set both stay */
    set[0] = kept;
    return kept;
}

bool par_finish(par *p)
{
    if (!p)
        return true;
    if (p->cur && p->cur->n)
        hand_over(p);
    pthread_mutex_lock(&p->mu);
    for (;;) { /* the rest: formatted here while no worker took it, written in order */
        drain(p);
        if (p->written == p->filled)
            break;
        if (!help(p))
            pthread_cond_wait(&p->done, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    stop_workers(p);
    bool ok = !p->failed;
    par_free(p);
    return ok;
}
