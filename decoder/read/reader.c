/* reader.c - the trace reader: buffers in file order, merged into timestamp order through a
 * bounded window, damage reports, and random access by position.
 *
 * Order.  Each buffer is filled by one CPU, so the file interleaves per-CPU streams, and a
 * buffer flushed late (at session stop, say) can hold the oldest records of the file.  At open
 * the reader walks every buffer header once (a pre-scan: one small read per buffer, and the
 * first few bytes of each compressed buffer inflated) and notes where each buffer is and the
 * timestamp of its first record; that index costs 64 bytes per buffer and is the only memory
 * that grows with the file.  Records are then delivered by a k-way merge: buffers are brought
 * in by first timestamp, each buffer's records are sorted when they are not already in order,
 * and the earliest head record across the loaded buffers comes next (a tournament up to 8
 * buffers, a binary heap beyond; ties go to the buffer that comes first in the file).  At most `window_buffers` buffers (and about
 * `window_bytes` bytes, never fewer than one buffer) are held at once; only when more buffers
 * than that overlap in time can a record come out of order.  It is then still delivered, never
 * dropped, and counted in etl_stats.order_fallbacks.  ETL_ORDER_FILE delivers the records
 * exactly as stored, buffer by buffer.
 *
 * Damage.  The pre-scan checks every buffer header; an impossible one is reported and skipped,
 * and reading resumes at the next plausible buffer header (found where the session's buffer
 * size puts it, or by a bounded byte-by-byte scan, since compressed buffers are unaligned).
 * Damage inside a buffer is reported when the buffer is loaded.
 *
 * Positions.  A record's position is (buffer file offset << 21) | (record offset / 8): record
 * offsets are 8-aligned and below 16 MiB (ETL_MAX_BUFFER_SIZE), so files up to 4 TiB fit in a
 * non-negative 63-bit value, which is what Wireshark stores per frame. */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buffer.h"
#include "bytes.h"
#include "error.h"
#include "etl.h"
#include "layout.h"
#include "position.h"
#include "prefetch.h"
#include "record.h"
#include "thread.h"

#define MAX_FILE_OFFSET (1ULL << (63 - ETL_POSITION_OFFSET_BITS))
#define MAX_QUEUED_PROBLEMS 4096u
#define RANDOM_CACHE_SLOTS 4
#define RESYNC_CHUNK (256u * 1024u)
#define WINDOW_SMALL 8u /* see "the merge window" */

/* A buffer of the window with the key it is ordered by, kept beside the pointer so the heap
 * compares without reaching into the buffers (the merge runs once per record). */
struct heap_ent {
    int64_t ts;   /* timestamp of the buffer's next record */
    uint64_t seq; /* its place in the file: ties go to the earlier buffer */
    etl_buffer *b;
};

/* One buffer found by the pre-scan. */
struct buf_ref {
    uint64_t offset;
    int64_t first_ts;       /* raw timestamp of its first record (INT64_MIN when unreadable) */
    uint32_t file_seq;      /* its place in the file */
    etl_buffer_header hdr;
};

struct etl_reader {
    struct etl_io_ref io;  /* sequential reads */
    struct etl_io_ref rio; /* etl_reader_read_at */
    etl_options opt;
    etl_logfile lf;
    uint16_t first_logger_id;
    bool compressed_file;

    etl_clock clock;        /* time conversion */

    /* sequential state */
    struct buf_ref *bufs;   /* every valid buffer, in delivery order (see the top comment) */
    uint32_t nbufs, bufs_cap;
    uint32_t next_buf;      /* next entry of bufs to load */
    int64_t due_ts;         /* in time order, that buffer's first timestamp: fill_window has
                             * nothing to load while the heap's head is earlier (INT64_MAX: no
                             * buffer is due by time - none left, or file order) */
    struct heap_ent *heap;  /* the window: a min-heap on head timestamp, or while `small` a
                             * tournament over its first `leaves` entries (see WINDOW_SMALL) */
    uint32_t nheap;
    bool small;
    uint32_t leaves;
    struct match {          /* a node of the tournament: the key of the entry that won it */
        int64_t ts;
        uint64_t order;     /* file order << 32 | the entry's index in heap */
    } win[2 * WINDOW_SMALL]; /* win[1]: the earliest entry */
    uint64_t window_bytes;
    etl_buffer **pool;      /* spare buffers for reuse */
    uint32_t npool;
    etl_buffer *release;    /* delivered its last record; freed on the next call */
    /* The run: while the buffer at the top of the heap has a head record earlier than
     * run_limit (every other buffer's head and the next buffer to load), it is the one to
     * deliver from, without touching the heap or the window (see etl_reader_next). */
    bool run;
    int64_t run_limit;
    uint8_t session_ps;     /* etl_reader_session_pointer_size, asked per record */
    etl_prefetch *pf;       /* loader threads (etl_options.threads), or NULL */
    int64_t last_ts;        /* latest timestamp delivered (INT64_MIN before the first) */

    /* damage reports */
    bool prescanning;
    uint64_t defer_due;       /* while prescanning: the buffer a report waits for */
    struct deferred {
        uint64_t due;
        bool released;
        etl_error e;
    } *deferred;
    uint32_t ndeferred, deferred_cap;
    etl_error *probs;
    uint32_t prob_head, prob_count;
    uint64_t probs_dropped;

    /* random access */
    etl_buffer rcache[RANDOM_CACHE_SLOTS];
    bool rvalid[RANDOM_CACHE_SLOTS];
    uint64_t ruse[RANDOM_CACHE_SLOTS], rclock;

    etl_stats stats;

    /* etl_reader_open_file / _memory: what the reader owns besides itself */
    int fd;
    void *owned_ctx;
};

/* ---- damage reports ------------------------------------------------------------------------ */

/* etl_stats.reports_pending: the queued reports, and the line saying how many were dropped. */
static void sync_pending(etl_reader *r)
{
    r->stats.reports_pending = r->prob_count + (r->probs_dropped ? 1u : 0u);
}

static void enqueue(etl_reader *r, const etl_error *e)
{
    /* The queue (4096 reports, 832 KiB) is made on the first report, not at open: most traces
     * have none, and a reader is opened twice or three times per etldump run (each a block
     * malloc maps by itself, an munmap at close). */
    if (!r->probs && !(r->probs = calloc(MAX_QUEUED_PROBLEMS, sizeof *r->probs))) {
        r->probs_dropped++; /* no memory: counted, as past the limit */
        sync_pending(r);
        return;
    }
    if (r->prob_count >= MAX_QUEUED_PROBLEMS) {
        r->probs_dropped++;
        sync_pending(r);
        return;
    }
    r->probs[(r->prob_head + r->prob_count) % MAX_QUEUED_PROBLEMS] = *e;
    r->prob_count++;
    sync_pending(r);
}

/* Count a problem and queue its report.  During the pre-scan the report is held back until
 * the reader delivers records from the buffer that follows the damage (`defer_due`), so a
 * consumer shows it beside the records around it rather than before the first record. */
static void report(void *ctx, etl_status code, uint64_t offset, uint64_t bytes_lost, const char *fmt, ...)
    ETL_PRINTF(5, 6);
static void report(void *ctx, etl_status code, uint64_t offset, uint64_t bytes_lost, const char *fmt, ...)
{
    etl_reader *r = ctx;
    etl_error e;
    va_list ap;
    r->stats.problems++;
    r->stats.bytes_skipped += bytes_lost;
    e.code = code;
    e.offset = offset;
    va_start(ap, fmt);
    vsnprintf(e.message, sizeof e.message, fmt, ap);
    va_end(ap);
    if (!r->prescanning) {
        enqueue(r, &e);
        return;
    }
    if (r->ndeferred >= MAX_QUEUED_PROBLEMS) {
        r->probs_dropped++;
        sync_pending(r);
        return;
    }
    if (r->ndeferred == r->deferred_cap) {
        uint32_t n = r->deferred_cap ? r->deferred_cap * 2 : 16;
        struct deferred *d = realloc(r->deferred, (size_t)n * sizeof *d);
        if (!d) {
            r->probs_dropped++;
            sync_pending(r);
            return;
        }
        r->deferred = d;
        r->deferred_cap = n;
    }
    r->deferred[r->ndeferred].due = r->defer_due;
    r->deferred[r->ndeferred].released = false;
    r->deferred[r->ndeferred].e = e;
    r->ndeferred++;
}

/* Queue the held-back reports due with the buffer at `due` (UINT64_MAX: all that are left).
 * The pre-scan walks forward, so `deferred` is sorted by due. */
static void release_deferred(etl_reader *r, uint64_t due)
{
    uint32_t lo = 0, hi = r->ndeferred;
    if (due != UINT64_MAX) {
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (r->deferred[mid].due < due)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    for (uint32_t i = lo; i < r->ndeferred && (due == UINT64_MAX || r->deferred[i].due == due); i++)
        if (!r->deferred[i].released) {
            r->deferred[i].released = true;
            enqueue(r, &r->deferred[i].e);
        }
}

static void report_nothing(void *ctx, etl_status code, uint64_t offset, uint64_t bytes_lost, const char *fmt, ...)
{
    (void)ctx, (void)code, (void)offset, (void)bytes_lost, (void)fmt;
}

bool etl_reader_next_problem(etl_reader *r, etl_error *out)
{
    if (!r)
        return false;
    if (r->prob_count == 0) {
        if (r->probs_dropped) {
            out->code = ETL_ERR_LIMIT;
            out->offset = 0;
            snprintf(out->message, sizeof out->message,
                     "%llu further problems were counted but not listed (queue limit %u)",
                     (unsigned long long)r->probs_dropped, MAX_QUEUED_PROBLEMS);
            r->probs_dropped = 0;
            sync_pending(r);
            return true;
        }
        return false;
    }
    *out = r->probs[r->prob_head];
    r->prob_head = (r->prob_head + 1) % MAX_QUEUED_PROBLEMS;
    r->prob_count--;
    sync_pending(r);
    return true;
}

/* ---- time ------------------------------------------------------------------------------- */

bool etl_reader_convert_time(const etl_reader *r, int64_t raw, int64_t *filetime)
{
    return r && filetime && etl_clock_convert(&r->clock, raw, filetime);
}

static void setup_clock(etl_reader *r)
{
    const etl_logfile *lf = &r->lf;
    etl_clock *c = &r->clock;
    c->can_convert = false;
    if (!lf->present || lf->start_time <= 0)
        return;
    switch (lf->clock_type) {
    case ETL_CLOCK_SYSTEM_TIME: c->freq = 10000000; break;
    case ETL_CLOCK_CPU_CYCLES: c->freq = (int64_t)lf->cpu_speed_mhz * 1000000; break;
    default: c->freq = lf->perf_freq; break; /* QPC, and "raw" read as QPC when a frequency is given */
    }
    if (c->freq <= 0)
        return;
    c->anchor = lf->anchor_raw;
    c->start = lf->start_time;
    c->freq_is_ticks = c->freq == 10000000;
    c->can_convert = true;
}

/* ---- buffers ---------------------------------------------------------------------------- */

static etl_buffer *buffer_get(etl_reader *r)
{
    if (r->npool)
        return r->pool[--r->npool];
    return etl_buffer_new();
}

static void buffer_put(etl_reader *r, etl_buffer *b)
{
    if (!b)
        return;
    r->window_bytes -= b->data_len;
    /* The pool never holds more than the window can use; extra buffers are freed. */
    if (r->npool < r->opt.window_buffers + 1) {
        r->pool[r->npool++] = b;
    } else {
        etl_buffer_free(b);
        free(b);
    }
}


/* A buffer header good enough to resume at after damage: the basic checks, plus the session's
 * logger id and, for uncompressed buffers with records, a trace-header marker after the header. */
static bool plausible_at(const etl_reader *r, const uint8_t *p, size_t avail, uint64_t off)
{
    etl_buffer_header h;
    if (avail < ETL_BUFFER_HEADER_SIZE)
        return false;
    if (etl_buffer_header_check(p, r->io.size - off, &h, NULL) != ETL_OK)
        return false;
    if (h.logger_id != r->first_logger_id || h.state > WMI_BUFFER_STATE_MAX)
        return false;
    if (off + h.buffer_size > r->io.size && !(h.flags & ETL_BF_COMPRESSED) && off + h.valid_end > r->io.size)
        return false;
    if (!(h.flags & ETL_BF_COMPRESSED) && h.valid_end >= ETL_BUFFER_HEADER_SIZE + ETL_MARKER_SIZE) {
        if (avail < ETL_BUFFER_HEADER_SIZE + ETL_MARKER_SIZE)
            return false;
        uint32_t m = etl_ld32(p + ETL_BUFFER_HEADER_SIZE);
        if (!etl_marker_is_typed(m) && !etl_marker_is_message(m))
            return false;
    }
    return true;
}

/* After a buffer header at `bad` proved impossible, find the next plausible one: first where
 * the session's fixed buffer size puts it (uncompressed files), then by scanning byte by byte
 * (compressed buffers are unaligned), at most ETL_MAX_RESYNC_SCAN bytes.  Returns the offset,
 * or the file size when none is found; *all_zero says whether the skipped bytes were all zero
 * (a preallocated file's unused tail, not damage). */
static etl_status resync(etl_reader *r, uint64_t bad, uint64_t *found, bool *all_zero, etl_error *err)
{
    uint8_t *chunk = malloc(RESYNC_CHUNK + ETL_BUFFER_HEADER_SIZE + 4);
    size_t got;
    etl_status st;
    if (!chunk)
        return etl_fail(err, ETL_ERR_NOMEM, bad, "no memory to resynchronise");
    *all_zero = true;
    *found = r->io.size;
    uint32_t nominal = r->lf.present ? r->lf.buffer_size : 0;
    if (!r->compressed_file && nominal >= ETL_BUFFER_HEADER_SIZE && nominal <= ETL_MAX_BUFFER_SIZE) {
        for (uint64_t cand = (bad / nominal + 1) * nominal; cand + ETL_BUFFER_HEADER_SIZE <= r->io.size &&
                                                         cand - bad <= ETL_MAX_RESYNC_SCAN;
             cand += nominal) {
            st = etl_io_read(&r->io, cand, chunk, ETL_BUFFER_HEADER_SIZE + 4, &got, err);
            if (st != ETL_OK)
                goto out;
            if (plausible_at(r, chunk, got, cand)) {
                *found = cand;
                /* whether the skipped bytes were zero does not matter: a real buffer follows */
                *all_zero = false;
                goto out;
            }
        }
    }
    for (uint64_t base = bad + 1; base < r->io.size && base - bad <= ETL_MAX_RESYNC_SCAN; base += RESYNC_CHUNK) {
        st = etl_io_read(&r->io, base, chunk, RESYNC_CHUNK + ETL_BUFFER_HEADER_SIZE + 4, &got, err);
        if (st != ETL_OK)
            goto out;
        size_t lim = got < RESYNC_CHUNK ? got : RESYNC_CHUNK;
        for (size_t i = 0; i < lim; i++) {
            if (chunk[i])
                *all_zero = false;
            if (plausible_at(r, chunk + i, got - i, base + i)) {
                *found = base + i;
                st = ETL_OK;
                goto out;
            }
        }
    }
    *found = r->io.size;
    st = ETL_OK;
out:
    free(chunk);
    return st;
}

/* Bytes after a buffer's header read with it for first_timestamp: the compressed prefix it
 * inflates (an uncompressed buffer's peek takes the first FIRST_PEEK of them). */
#define FIRST_PREFIX 256u
#define FIRST_PEEK 96u

/* The raw timestamp of a buffer's first record, from the first bytes of its records region
 * (`after`, the `n_after` bytes that follow its header in the file, read with it; a
 * compressed buffer's prefix inflated); INT64_MIN when it cannot be read. */
static int64_t first_timestamp(const etl_buffer_header *h, const uint8_t *after, size_t n_after)
{
    uint8_t rec[FIRST_PEEK];
    size_t n = 0;
    etl_record_peek pk;
    etl_error e;
    if (h->valid_end <= ETL_BUFFER_HEADER_SIZE)
        return INT64_MIN;
    if (h->flags & ETL_BF_COMPRESSED) {
        size_t clen = h->buffer_size - ETL_BUFFER_HEADER_SIZE;
        /* Stopping at the output limit is expected here: the prefix is all we want. */
        etl_lzxpress_decompress(after, clen < n_after ? clen : n_after, rec, FIRST_PEEK, &n, &e);
    } else {
        n = n_after < FIRST_PEEK ? n_after : FIRST_PEEK;
        memcpy(rec, after, n);
    }
    if (n > h->valid_end - ETL_BUFFER_HEADER_SIZE)
        n = h->valid_end - ETL_BUFFER_HEADER_SIZE;
    /* A record longer than the peeked bytes still has its timestamp inside them. */
    if (n < ETL_MARKER_SIZE)
        return INT64_MIN;
    uint32_t m = etl_ld32(rec);
    if (m == TRACE_MARKER_END)
        return INT64_MIN;
    if (etl_peek_record(rec, n, &pk, &e) == ETL_OK && pk.has_timestamp)
        return pk.timestamp_raw;
    /* Too short a peek for the record's full size: take the timestamp where the kind keeps it. */
    unsigned t = etl_marker_header_type(m);
    if (etl_marker_is_typed(m) && n >= ETL_TRACE_HEADER_OFF_TIMESTAMP + 8u) {
        if (t == ETL_HT_PERFINFO32 || t == ETL_HT_PERFINFO64)
            return (int64_t)etl_ld64(rec + PERFINFO_TRACE_HEADER_OFF_SYSTEM_TIME);
        return (int64_t)etl_ld64(rec + ETL_TRACE_HEADER_OFF_TIMESTAMP);
    }
    return INT64_MIN;
}

/* The header walk in parts (etl_options.threads): one read per buffer is some 2.9 us (a system
 * call on the VM of bench/README.md, session 17), 2.9 ms of opening the 1 M-record kernel
 * trace and a tenth of `etldump --summary --threads 2` on it.  Each buffer's header says where
 * the next one is, so the walk is sequential; but a trace's buffers all have the session's
 * buffer size, so the parts after the first start where that size puts them, each on a thread
 * of its own, and walk until the next part's start.  A part counts only when the walk before it
 * lands exactly on its start and it met nothing to report on its way: every header valid, no
 * short read, and its own walk landing exactly on its end.  Otherwise its result is dropped and
 * the walk goes on from where it is, as it would have without parts, so the buffers found and
 * the reports made are the same either way. */
#define WALK_MAX_PARTS 4u
#define WALK_MIN_BUFFERS 128u /* per part: walked alone, 128 take ~0.37 ms, a thread's start 0.15-0.27 ms */

typedef struct walk_part {
    const etl_reader *r; /* read only: io (read_at is thread-safe with threads), opt.order */
    uint64_t from, to;
    struct buf_ref *bufs;
    uint32_t n, cap;
    bool clean;   /* every header valid, of the session's buffer size, and the walk landed on `to` */
    pthread_t t;
} walk_part;

/* The next entry of a growing buffer index (*n of *cap in use), or NULL when out of memory. */
static struct buf_ref *buf_ref_add(struct buf_ref **bufs, uint32_t *n, uint32_t *cap)
{
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 64;
        struct buf_ref *v = c > *cap ? realloc(*bufs, (size_t)c * sizeof *v) : NULL;
        if (!v)
            return NULL;
        *bufs = v;
        *cap = c;
    }
    return &(*bufs)[(*n)++];
}

/* One buffer's header at off, in timestamp order with the bytes first_timestamp needs (in one
 * read: two reads a buffer were half of opening a 1,000-buffer trace, a system call costing
 * ~1.4 us on the VM of bench/README.md session 12; in file order nothing needs them); the
 * bytes read. */
static size_t read_head(const etl_reader *r, uint64_t off, uint8_t h[ETL_BUFFER_HEADER_SIZE + FIRST_PREFIX],
                        etl_error *err, etl_status *st)
{
    size_t got = 0;
    bool timed = r->opt.order == ETL_ORDER_TIME;
    *st = etl_io_read(&r->io, off, h, timed ? ETL_BUFFER_HEADER_SIZE + FIRST_PREFIX : ETL_BUFFER_HEADER_SIZE, &got, err);
    return got;
}

static void *walk_part_run(void *arg)
{
    walk_part *w = arg;
    const etl_reader *r = w->r;
    const bool timed = r->opt.order == ETL_ORDER_TIME;
    uint64_t off = w->from;
    while (off < w->to) {
        uint8_t h[ETL_BUFFER_HEADER_SIZE + FIRST_PREFIX];
        etl_error e;
        etl_status st;
        size_t got = read_head(r, off, h, &e, &st);
        etl_buffer_header bh;
        if (st != ETL_OK || got < ETL_BUFFER_HEADER_SIZE ||
            etl_buffer_header_check(h, r->io.size - off, &bh, &e) != ETL_OK || bh.buffer_size != r->lf.buffer_size)
            return NULL; /* the sequential walk will say what it was */
        struct buf_ref *ref = buf_ref_add(&w->bufs, &w->n, &w->cap);
        if (!ref)
            return NULL;
        ref->offset = off;
        ref->hdr = bh;
        size_t after = got - ETL_BUFFER_HEADER_SIZE;
        ref->first_ts = timed ? first_timestamp(&bh, h + ETL_BUFFER_HEADER_SIZE, after) : INT64_MIN;
        off += bh.buffer_size;
    }
    w->clean = off == w->to;
    return NULL;
}

static etl_status walk(etl_reader *r, walk_part *parts, unsigned nparts, unsigned *next_part, etl_error *err);

/* The parts after the first, started (none when threads were not asked for, the file is small,
 * or the session's buffer size is unknown); their number. */
static unsigned walk_parts_start(etl_reader *r, walk_part *parts)
{
    uint32_t bsize = r->lf.present ? r->lf.buffer_size : 0;
    /* a compressed trace's buffers are not where the size puts them */
    if (!r->opt.threads || r->compressed_file || bsize < ETL_BUFFER_HEADER_SIZE || r->io.size >= MAX_FILE_OFFSET)
        return 0;
    uint64_t nbuf = r->io.size / bsize;
    unsigned k = r->opt.threads + 1u < WALK_MAX_PARTS ? r->opt.threads + 1u : WALK_MAX_PARTS;
    while (k > 1 && nbuf / k < WALK_MIN_BUFFERS)
        k--;
    unsigned n = 0;
    for (unsigned i = 1; i < k; i++) {
        walk_part *w = &parts[n];
        *w = (walk_part){.r = r, .from = nbuf * i / k * bsize, .to = i + 1 < k ? nbuf * (i + 1) / k * bsize : r->io.size};
        if (etl_thread_start(&w->t, walk_part_run, w) != 0)
            break; /* the part before ends where this one would start: the walk goes on from there */
        n++;
    }
    return n;
}

/* Part w, done: its buffers appended to r's when it counts (true), else dropped. */
static bool walk_part_take(etl_reader *r, walk_part *w, bool use)
{
    pthread_join(w->t, NULL);
    bool ok = use && w->clean;
    if (ok && r->nbufs + (uint64_t)w->n > r->bufs_cap) {
        uint64_t want = (uint64_t)r->nbufs + w->n;
        struct buf_ref *v = want <= UINT32_MAX ? realloc(r->bufs, (size_t)want * sizeof *v) : NULL;
        ok = v != NULL; /* no memory: the walk goes on alone, and says so if it fails too */
        if (v) {
            r->bufs = v;
            r->bufs_cap = (uint32_t)want;
        }
    }
    for (uint32_t i = 0; ok && i < w->n; i++) {
        struct buf_ref *ref = &r->bufs[r->nbufs];
        *ref = w->bufs[i];
        ref->file_seq = r->nbufs++;
    }
    free(w->bufs);
    w->bufs = NULL;
    return ok;
}

/* Walk every buffer header from the start of the file, recording the valid ones and reporting
 * (and skipping) the impossible ones. */
static etl_status prescan(etl_reader *r, etl_error *err)
{
    walk_part parts[WALK_MAX_PARTS - 1];
    unsigned nparts = walk_parts_start(r, parts), next_part = 0;
    etl_status st = walk(r, parts, nparts, &next_part, err);
    while (next_part < nparts) /* every thread joined, whatever happened */
        walk_part_take(r, &parts[next_part++], false);
    return st;
}

/* An uncompressed trace's buffers all have the session's buffer size (the logfile header's).
 * A header that says more may be damaged in its size field alone: the walk would then step
 * over the buffers it claims to hold, whole and valid, and never say so.  Is there a buffer
 * header where the session's size puts the next one, plausible as resync would take it (one
 * more read, only for such a header)? */
static bool session_size_follows(etl_reader *r, uint64_t off)
{
    uint64_t next = off + r->lf.buffer_size;
    uint8_t h[ETL_BUFFER_HEADER_SIZE + 4]; /* the header and its first record's marker, as resync reads */
    size_t got;
    etl_error e;
    return next < r->io.size && etl_io_read(&r->io, next, h, sizeof h, &got, &e) == ETL_OK &&
           plausible_at(r, h, got, next);
}

/* The buffer at off read as the session's size, and said so (with the buffer's delivery). */
static void take_session_size(etl_reader *r, uint64_t off, etl_buffer_header *bh)
{
    uint32_t size = r->lf.buffer_size;
    r->defer_due = off;
    report(r, ETL_ERR_CORRUPT, off, 0,
           "buffer header at 0x%llx: its size 0x%x is not the session's 0x%x, and a valid buffer header follows at 0x%llx; "
           "read as 0x%x bytes",
           (unsigned long long)off, bh->buffer_size, size, (unsigned long long)(off + size), size);
    bh->buffer_size = size;
    if (bh->valid_end > size)
        bh->valid_end = size;
}

/* The walk itself, taking the parts (walk_part) it lands on. */
static etl_status walk(etl_reader *r, walk_part *parts, unsigned nparts, unsigned *next_part, etl_error *err)
{
    /* in timestamp order the merge needs each buffer's first timestamp (read_head) */
    const bool timed = r->opt.order == ETL_ORDER_TIME;
    uint64_t off = 0;
    while (off < r->io.size) {
        /* a part passed over is dropped; the one landed on is taken, and the walk goes on at its end */
        while (*next_part < nparts && parts[*next_part].from <= off) {
            walk_part *w = &parts[(*next_part)++];
            if (walk_part_take(r, w, w->from == off))
                off = w->to;
        }
        if (off >= r->io.size)
            break;
        uint8_t h[ETL_BUFFER_HEADER_SIZE + FIRST_PREFIX];
        size_t got;
        if (off >= MAX_FILE_OFFSET) {
            r->defer_due = UINT64_MAX;
            report(r, ETL_ERR_LIMIT, off, r->io.size - off, "file offset 0x%llx is past the 4 TiB the reader addresses; rest ignored",
                   (unsigned long long)off);
            break;
        }
        etl_status st;
        got = read_head(r, off, h, err, &st);
        if (st != ETL_OK)
            return st;
        size_t after = got > ETL_BUFFER_HEADER_SIZE ? got - ETL_BUFFER_HEADER_SIZE : 0;
        got -= after; /* the header's bytes */
        bool zero = true;
        for (size_t i = 0; i < got; i++)
            zero = zero && h[i] == 0;
        etl_buffer_header bh;
        etl_error herr;
        if (got < ETL_BUFFER_HEADER_SIZE) {
            r->defer_due = UINT64_MAX;
            if (!zero)
                report(r, ETL_ERR_TRUNCATED, off, got, "%zu bytes at the end of the file (offset 0x%llx) are too few for a buffer header; ignored",
                       got, (unsigned long long)off);
            break;
        }
        if (etl_buffer_header_check(h, r->io.size - off, &bh, &herr) != ETL_OK) {
            uint64_t next = r->io.size;
            bool all_zero = true;
            st = resync(r, off, &next, &all_zero, err);
            if (st != ETL_OK)
                return st;
            if (!(zero && all_zero)) {
                r->stats.buffers_skipped++;
                r->defer_due = next < r->io.size ? next : UINT64_MAX;
                if (next < r->io.size)
                    report(r, ETL_ERR_CORRUPT, off, next - off,
                           "buffer header at 0x%llx: %s; skipped %llu bytes to the next valid buffer at 0x%llx",
                           (unsigned long long)off, herr.message, (unsigned long long)(next - off), (unsigned long long)next);
                else
                    report(r, ETL_ERR_CORRUPT, off, next - off,
                           "buffer header at 0x%llx: %s; no valid buffer follows, last %llu bytes skipped",
                           (unsigned long long)off, herr.message, (unsigned long long)(next - off));
            }
            off = next;
            continue;
        }
        if (!r->compressed_file && !(bh.flags & ETL_BF_COMPRESSED) && r->lf.present && bh.buffer_size > r->lf.buffer_size &&
            r->lf.buffer_size >= ETL_BUFFER_HEADER_SIZE && session_size_follows(r, off))
            take_session_size(r, off, &bh);
        struct buf_ref *ref = buf_ref_add(&r->bufs, &r->nbufs, &r->bufs_cap);
        if (!ref)
            return etl_fail(err, ETL_ERR_NOMEM, off, "no memory for the buffer index");
        ref->offset = off;
        ref->hdr = bh;
        ref->file_seq = r->nbufs - 1;
        ref->first_ts = timed ? first_timestamp(&bh, h + ETL_BUFFER_HEADER_SIZE, after) : INT64_MIN;
        off += bh.buffer_size;
    }
    return ETL_OK;
}

static int cmp_ref(const void *a, const void *b)
{
    const struct buf_ref *x = a, *y = b;
    if (x->first_ts != y->first_ts)
        return x->first_ts < y->first_ts ? -1 : 1;
    return x->file_seq < y->file_seq ? -1 : (x->file_seq > y->file_seq);
}

/* Job i of the loader threads: the i-th buffer fill_window will load. */
static void prefetch_job(void *ctx, uint32_t i, uint64_t *offset, etl_buffer_header *hdr)
{
    const etl_reader *r = ctx;
    *offset = r->bufs[i].offset;
    *hdr = r->bufs[i].hdr;
}

/* The loader threads of etl_options.threads, once bufs is final and before the first load. */
static void start_loaders(etl_reader *r)
{
    if (r->opt.threads && r->nbufs > 1) {
        unsigned t = r->opt.threads < ETL_MAX_READER_THREADS ? r->opt.threads : ETL_MAX_READER_THREADS;
        r->pf = etl_prefetch_start(&r->io, &r->clock, prefetch_job, r, r->nbufs, r->opt.order == ETL_ORDER_TIME, t,
                                   4 * t + 4);
    }
}

/* Load buffer `ref`; *out is NULL when it holds no record. */
static etl_status load_ref(etl_reader *r, const struct buf_ref *ref, bool want_order, etl_buffer **out, etl_error *err)
{
    *out = NULL;
    release_deferred(r, ref->offset);
    etl_buffer *b = buffer_get(r);
    if (!b)
        return etl_fail(err, ETL_ERR_NOMEM, ref->offset, "no memory for a buffer");
    etl_status st;
    if (r->pf) { /* loaded ahead by a loader thread; b takes its place in the slot */
        etl_buffer *spare = b;
        st = etl_prefetch_take(r->pf, (uint32_t)(ref - r->bufs), spare, &b, report, r, err);
    } else {
        st = etl_buffer_load(b, &r->io, ref->offset, &ref->hdr, &r->clock, want_order, report, r, err);
    }
    if (st != ETL_OK) {
        etl_buffer_free(b);
        free(b);
        return st;
    }
    r->stats.buffers++;
    if (ref->hdr.flags & ETL_BF_COMPRESSED)
        r->stats.buffers_compressed++;
    if (ref->hdr.flags & (ETL_BF_EVENTS_LOST | ETL_BF_BUFFER_LOST))
        r->stats.events_lost_flags++;
    b->load_seq = ref->file_seq;
    r->window_bytes += b->data_len;
    if (b->count == 0) {
        buffer_put(r, b);
        return ETL_OK;
    }
    *out = b;
    return ETL_OK;
}

/* ---- the merge window ------------------------------------------------------------------- */

static int64_t head_ts(const etl_buffer *b)
{
    uint32_t i = b->sorted || !b->order ? b->next : b->order[b->next];
    return b->index[i].timestamp;
}

static inline bool heap_less(const struct heap_ent *a, const struct heap_ent *b)
{
    return a->ts != b->ts ? a->ts < b->ts : a->seq < b->seq;
}

static void heap_down(etl_reader *r, uint32_t i)
{
    struct heap_ent *h = r->heap;
    uint32_t n = r->nheap;
    struct heap_ent e = h[i];
    for (;;) {
        uint32_t l = 2 * i + 1;
        if (l >= n)
            break;
        /* the smaller child without a branch: which one it is is a coin toss per record */
        uint32_t m = l + (uint32_t)(l + 1 < n && heap_less(&h[l + 1], &h[l]));
        if (!heap_less(&h[m], &e))
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = e;
}

/* The window holds few buffers in most traces (about one per CPU whose buffers overlap in
 * time).  Up to WINDOW_SMALL of them are kept in a tournament (`small`): win[] is a complete
 * binary tree over `leaves` entries of the window (a power of two; entries past nheap are
 * sentinels later than any record), each node the earlier of its two children, so the
 * earliest head is win[1] and a record's step replays only the matches on its buffer's path,
 * without branches.  Where records of several buffers interleave at random the heap's
 * compares and the run's test (below) went either way by chance, and their mispredictions
 * were most of the merge's time (callgrind --branch-sim: 1.6 mispredicted branches a record
 * on large_kernel before, 0.5 with a scan of the window, ~0 with the tournament; see
 * tree_play for its time).  Beyond WINDOW_SMALL buffers the window is a heap again.  Either way
 * the earliest (timestamp, file order) comes next: the order is the same. */

/* (timestamp, file order) as one signed 128-bit number: its compare is a compare and a
 * subtract-with-borrow that gcc turns into conditional moves, where a two-step compare like
 * heap_less's became a branch. */
static inline __int128 match_key(const struct match *m)
{
    return (__int128)((unsigned __int128)(uint64_t)m->ts << 64 | m->order);
}

/* Replay the matches from `node` up to the root. */
static inline void tree_up(etl_reader *r, uint32_t node)
{
    for (; node; node >>= 1) {
        const struct match *a = &r->win[2 * node]; /* and its rival a + 1 */
        r->win[node] = a[match_key(a + 1) < match_key(a)]; /* an index: ?: became a branch */
    }
}

/* Entry m's key changed to `cur`: play its path up to the root.  The winner so far is carried
 * in registers and only the other side of each match is loaded: replaying each node from its
 * two children, stored just before, made a chain of store-to-load forwards that perf showed as
 * the merge's slowest part (more instructions this way, 310 -> 332 a record on large_kernel,
 * but --threads 1 took 41 -> 38.5 ms).  Masks select, not ?: (a branch) nor an index (memory). */
static inline void tree_play(etl_reader *r, uint32_t m, struct match cur)
{
    uint32_t node = r->leaves + m;
    r->win[node] = cur;
    for (; node > 1; node >>= 1) {
        const struct match *other = &r->win[node ^ 1];
        uint64_t take = 0 - (uint64_t)(match_key(other) < match_key(&cur));
        cur.ts = (int64_t)(((uint64_t)other->ts & take) | ((uint64_t)cur.ts & ~take));
        cur.order = (other->order & take) | (cur.order & ~take);
        r->win[node >> 1] = cur;
    }
}

/* The tournament anew, after the window gained or lost a buffer.  Leaves past nheap are
 * sentinels: file orders are below 2^32 - 1 (buf_ref.file_seq), so theirs is later than any. */
static void tree_build(etl_reader *r)
{
    uint32_t n = 2;
    while (n < r->nheap)
        n *= 2;
    r->leaves = n;
    for (uint32_t i = 0; i < n; i++)
        r->win[n + i] = i < r->nheap ? (struct match){r->heap[i].ts, r->heap[i].seq << 32 | i}
                                     : (struct match){INT64_MAX, (uint64_t)UINT32_MAX << 32 | i};
    for (uint32_t node = n / 2; node < n; node++)
        tree_up(r, node);
}

/* The window's earliest head timestamp (it holds at least one buffer). */
static int64_t window_min_ts(const etl_reader *r)
{
    return r->small ? r->win[1].ts : r->heap[0].ts;
}

static void heap_push(etl_reader *r, etl_buffer *b)
{
    struct heap_ent *h = r->heap;
    struct heap_ent e = {head_ts(b), b->load_seq, b};
    if (r->small) {
        h[r->nheap++] = e;
        if (r->nheap > WINDOW_SMALL) { /* a heap from here on */
            r->small = false;
            for (uint32_t k = r->nheap / 2; k-- > 0;)
                heap_down(r, k);
        } else {
            tree_build(r);
        }
        return;
    }
    uint32_t i = r->nheap++;
    while (i && heap_less(&e, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

/* Bring in the buffers whose first record is due: every buffer whose first timestamp is not
 * later than the earliest record held, up to the window's bounds (always at least one). */
static etl_status fill_window(etl_reader *r, etl_error *err)
{
    bool timed = r->opt.order == ETL_ORDER_TIME;
    while (r->next_buf < r->nbufs) {
        const struct buf_ref *ref = &r->bufs[r->next_buf];
        if (r->nheap > 0) {
            if (!timed || r->nheap >= r->opt.window_buffers || r->window_bytes >= r->opt.window_bytes)
                break;
            if (ref->first_ts > window_min_ts(r))
                break;
        }
        etl_buffer *b;
        r->next_buf++;
        etl_status st = load_ref(r, ref, timed, &b, err);
        if (st != ETL_OK)
            return st;
        if (b)
            heap_push(r, b);
    }
    r->due_ts = timed && r->next_buf < r->nbufs ? r->bufs[r->next_buf].first_ts : INT64_MAX;
    return ETL_OK;
}

/* ---- records ---------------------------------------------------------------------------- */

static inline __attribute__((always_inline)) etl_status fill_record(etl_reader *r, const etl_buffer *b, uint32_t idx,
                                                                  etl_record *rec, etl_error *err)
{
    (void)err;
    const etl_index_entry *e = &b->index[idx];
    uint32_t off = e->offset;
    /* The view's head is cleared once and the buffer's fields written once (etl_frame_cleared
     * does the rest): no fields saved around the clear. */
    etl_record_clear_head(rec);
    rec->position = etl_position_make(b->file_offset, off);
    rec->buffer_offset = b->file_offset;
    rec->record_offset = off;
    rec->buffer_flags = b->hdr.flags;
    rec->buffer_type = (uint8_t)b->hdr.type;
    rec->cpu = b->hdr.cpu;
    rec->logger_id = b->hdr.logger_id;
    /* The index keeps what the record's peek found when the buffer was loaded (only records
     * that peeked fine are in it): frame from that rather than peek again. */
    const uint8_t *d = b->data + off;
    unsigned t = e->header_type;
    uint16_t ver = 0; /* the system family's version word (its header's first bytes) */
    if (etl_header_family(t) == ETL_FAMILY_SYSTEM &&
        !((ver = etl_ld16(d + SYSTEM_TRACE_HEADER_OFF_VERSION)) & (TRACE_HEADER_PEBS_INDEX_FLAG | TRACE_HEADER_PMC_COUNTERS_MASK))) {
        /* A kernel record without inserted items, most of a kernel trace: etl_frame_cleared's
         * result for it, framed here without the call (the peek checked size >= the header). */
        rec->bytes = d;
        rec->size = e->size;
        rec->header_type = (uint8_t)t;
        rec->raw_header_type = e->raw_header_type;
        rec->timestamp_raw = e->has_timestamp ? e->timestamp : 0;
        uint8_t ps = etl_header_pointer_size(t);
        rec->pointer_size = ps;
        uint32_t hdr = etl_frame_system_head(d, t, ver, rec); /* the ids too: ETL_NO_ID for PERFINFO */
        rec->header_size = hdr;
        rec->payload_offset = hdr <= e->size ? hdr : e->size;
        rec->payload_size = e->size - rec->payload_offset;
        rec->flags = (uint16_t)(ETL_EHF_CLASSIC_HEADER | (ps == 4 ? ETL_EHF_32_BIT_HEADER : ETL_EHF_64_BIT_HEADER));
    } else {
        etl_record_peek pk;
        pk.header_type = e->header_type;
        pk.raw_header_type = e->raw_header_type;
        pk.size = e->size;
        pk.has_timestamp = e->has_timestamp;
        pk.timestamp_raw = e->has_timestamp ? e->timestamp : 0;
        etl_frame_cleared(d, &pk, r->session_ps, rec);
    }
    if ((b->file_offset | (off ^ ETL_BUFFER_HEADER_SIZE)) == 0) /* else it stays false (the clear) */
        rec->is_logfile_header = (rec->header_type == ETL_HT_SYSTEM32 || rec->header_type == ETL_HT_SYSTEM64) &&
                                 rec->hook_id == 0;
    /* converted when the buffer was loaded (on a loader thread, when there are any) */
    rec->has_timestamp = e->has_filetime;
    rec->timestamp = e->filetime;
    return ETL_OK;
}

/* How long the buffer at the top of the heap may deliver on its own: until its head record
 * is no longer strictly earlier than every other candidate - the heads of the other buffers
 * (the root's two children are the smallest of them) and, in timestamp order, the first
 * record of the next buffer to load (fill_window loads it once the head reaches it).  Ties
 * leave the run, so the heap's tie rule decides them exactly as before. */
static int64_t run_limit(const etl_reader *r)
{
    int64_t lim = INT64_MAX;
    if (r->nheap > 1)
        lim = r->heap[1].ts;
    if (r->nheap > 2 && r->heap[2].ts < lim)
        lim = r->heap[2].ts;
    if (r->due_ts < lim)
        lim = r->due_ts;
    return lim;
}

etl_status etl_reader_next(etl_reader *r, etl_record *rec, etl_error *err)
{
    if (!r || !rec)
        return etl_fail(err, ETL_ERR_ARG, 0, "NULL argument");
    etl_status st;
    etl_buffer *b;
    uint32_t idx;
    int64_t ts;
    if (r->small || !r->run) { /* a tournament has no run: it plays every record (WINDOW_SMALL) */
        if (r->release) {
            buffer_put(r, r->release);
            r->release = NULL;
        }
        /* an empty tournament's root is a sentinel (INT64_MAX): fill_window runs */
        if (window_min_ts(r) >= r->due_ts) { /* else fill_window would load nothing */
            st = fill_window(r, err);
            if (st != ETL_OK)
                return st;
            if (r->nheap == 0) {
                release_deferred(r, UINT64_MAX);
                return ETL_END;
            }
        }
        if (!r->small) /* perhaps it grew past WINDOW_SMALL just now */
            r->run_limit = run_limit(r);
    }
    if (r->small) {
        uint32_t m = (uint32_t)r->win[1].order & 0xFF;
        b = r->heap[m].b;
        idx = b->sorted || !b->order ? b->next : b->order[b->next];
        ts = b->index[idx].timestamp;
        b->next++;
        if (b->next == b->count) {
            r->heap[m] = r->heap[--r->nheap];
            tree_build(r);
            r->release = b; /* the record view points into it until the next call */
        } else {
            int64_t next_ts = head_ts(b);
            r->heap[m].ts = next_ts;
            tree_play(r, m, (struct match){next_ts, r->win[r->leaves + m].order});
        }
        goto deliver;
    }
    /* The top buffer's head is the next record (a run: nothing else changed since the last
     * call, see run_limit). */
    b = r->heap[0].b;
    idx = b->sorted || !b->order ? b->next : b->order[b->next];
    ts = b->index[idx].timestamp;
    b->next++;
    if (b->next == b->count) {
        r->heap[0] = r->heap[--r->nheap];
        if (r->nheap)
            heap_down(r, 0);
        r->release = b; /* the record view points into it until the next call */
        r->run = false;
        if (r->nheap <= WINDOW_SMALL) { /* a tournament again */
            r->small = true;
            tree_build(r);
        }
    } else {
        int64_t next_ts = head_ts(b);
        r->heap[0].ts = next_ts;
        if (next_ts < r->run_limit) {
            r->run = true; /* still the earliest: it stays at the top, the heap stays valid */
        } else {
            heap_down(r, 0);
            r->run = false;
        }
    }
deliver:
    st = fill_record(r, b, idx, rec, err);
    if (st != ETL_OK)
        return st;
    if (ts < r->last_ts) /* last_ts starts at INT64_MIN: the latest timestamp delivered */
        r->stats.order_fallbacks += r->opt.order == ETL_ORDER_TIME;
    else
        r->last_ts = ts;
    r->stats.records++;
    if (rec->internal.problem != ETL_OK) /* etl_record_problem, without the call per record */
        r->stats.records_damaged++;
    return ETL_OK;
}

/* A buffer's records from `i` on that `ids` leaves out: the first it may want, or `last`.
 * A record too short for the id is not passed (the peek that indexed it checked its size). */
static uint32_t pass_unwanted(const etl_buffer *b, uint32_t i, uint32_t last, const etl_id_set *ids)
{
    for (; i < last; i++) {
        const etl_index_entry *e = &b->index[i];
        const uint8_t *d = b->data + e->offset;
        etl_family f = etl_header_family(e->header_type);
        if (f == ETL_FAMILY_SYSTEM) {
            if (e->size < SYSTEM_TRACE_HEADER_OFF_HOOK_ID + 2 ||
                etl_id_set_has_hook(ids, etl_ld16(d + SYSTEM_TRACE_HEADER_OFF_HOOK_ID)))
                break;
        } else if (f != ETL_FAMILY_EVENT || e->size < EVENT_HEADER_SIZE ||
                   etl_id_set_has_event_id(ids, etl_ld16(d + EVENT_HEADER_OFF_ID))) {
            break;
        }
    }
    return i;
}

etl_status etl_reader_next_of(etl_reader *r, const etl_id_set *ids, etl_record *rec, etl_error *err)
{
    /* in file order the window is one buffer (etl_reader_open_io), a tournament of one leaf:
     * move its head past what nobody wants, leaving its last record for etl_reader_next to
     * deliver, so that the buffer's end and the release of the buffer stay its business */
    if (r && ids && r->opt.order == ETL_ORDER_FILE && r->small && r->nheap == 1 && !r->release) {
        etl_buffer *b = r->heap[0].b;
        uint32_t i = b->sorted || !b->order ? b->next : UINT32_MAX;
        if (i < b->count) {
            uint32_t to = pass_unwanted(b, i, b->count - 1, ids);
            if (to != i) {
                b->next = to;
                r->heap[0].ts = head_ts(b);
                tree_play(r, 0, (struct match){r->heap[0].ts, r->win[r->leaves].order});
            }
        }
    }
    return etl_reader_next(r, rec, err);
}

etl_status etl_reader_read_at(etl_reader *r, uint64_t position, etl_record *rec, etl_error *err)
{
    if (!r || !rec)
        return etl_fail(err, ETL_ERR_ARG, 0, "NULL argument");
    uint64_t off = etl_position_buffer(position);
    uint32_t roff = etl_position_record(position);
    int slot = -1;
    for (int i = 0; i < RANDOM_CACHE_SLOTS; i++)
        if (r->rvalid[i] && r->rcache[i].file_offset == off)
            slot = i;
    if (slot < 0) {
        uint8_t h[ETL_BUFFER_HEADER_SIZE];
        size_t got;
        etl_buffer_header bh;
        etl_error herr;
        if (off >= r->rio.size || r->rio.size - off < ETL_BUFFER_HEADER_SIZE)
            return etl_fail(err, ETL_ERR_NOT_FOUND, off, "position 0x%llx: no buffer at file offset 0x%llx",
                            (unsigned long long)position, (unsigned long long)off);
        etl_status st = etl_io_read(&r->rio, off, h, sizeof h, &got, err);
        if (st != ETL_OK)
            return st;
        if (got < sizeof h || etl_buffer_header_check(h, r->rio.size - off, &bh, &herr) != ETL_OK)
            return etl_fail(err, ETL_ERR_NOT_FOUND, off, "position 0x%llx: no valid buffer at file offset 0x%llx",
                            (unsigned long long)position, (unsigned long long)off);
        slot = 0;
        for (int i = 1; i < RANDOM_CACHE_SLOTS; i++)
            if (!r->rvalid[i] || (r->rvalid[slot] && r->ruse[i] < r->ruse[slot]))
                slot = i;
        r->rvalid[slot] = false;
        st = etl_buffer_load(&r->rcache[slot], &r->rio, off, &bh, &r->clock, false, report_nothing, NULL, err);
        if (st != ETL_OK)
            return st;
        r->rvalid[slot] = true;
    }
    r->ruse[slot] = ++r->rclock;
    int64_t idx = etl_buffer_find(&r->rcache[slot], roff);
    if (idx < 0)
        return etl_fail(err, ETL_ERR_NOT_FOUND, off, "position 0x%llx: no record at offset 0x%x of the buffer at 0x%llx",
                        (unsigned long long)position, roff, (unsigned long long)off);
    return fill_record(r, &r->rcache[slot], (uint32_t)idx, rec, err);
}

/* ---- open / close ----------------------------------------------------------------------- */

bool etl_looks_like_etl(const uint8_t *d, size_t len)
{
    etl_buffer_header h;
    if (len < ETL_BUFFER_HEADER_SIZE + 8)
        return false;
    if (etl_buffer_header_check(d, UINT64_MAX, &h, NULL) != ETL_OK || h.state > WMI_BUFFER_STATE_MAX)
        return false;
    if (h.flags & ETL_BF_COMPRESSED)
        return false; /* the first buffer holds the logfile header and is never compressed */
    /* The first record is the logfile header: a SYSTEM32/64 header with HookId 0. */
    uint32_t m = etl_ld32(d + ETL_BUFFER_HEADER_SIZE);
    unsigned t = etl_marker_header_type(m);
    if (etl_marker_flags(m) != TRACE_HEADER_TYPED || (t != ETL_HT_SYSTEM32 && t != ETL_HT_SYSTEM64))
        return false;
    return etl_ld16(d + ETL_BUFFER_HEADER_SIZE + SYSTEM_TRACE_HEADER_OFF_HOOK_ID) == 0; /* WMI_LOG_TYPE_HEADER */
}

static void reader_free(etl_reader *r)
{
    if (!r)
        return;
    etl_prefetch_stop(r->pf);
    for (uint32_t i = 0; i < r->nheap; i++) {
        etl_buffer_free(r->heap[i].b);
        free(r->heap[i].b);
    }
    for (uint32_t i = 0; i < r->npool; i++) {
        etl_buffer_free(r->pool[i]);
        free(r->pool[i]);
    }
    if (r->release) {
        etl_buffer_free(r->release);
        free(r->release);
    }
    for (int i = 0; i < RANDOM_CACHE_SLOTS; i++)
        etl_buffer_free(&r->rcache[i]);
    free(r->heap);
    free(r->pool);
    free(r->bufs);
    free(r->deferred);
    free(r->probs);
    if (r->fd >= 0)
        close(r->fd);
    free(r->owned_ctx);
    free(r);
}

void etl_reader_close(etl_reader *r)
{
    reader_free(r);
}

etl_status etl_reader_open_io(const etl_io *io, void *ctx, uint64_t size, const etl_options *opt,
                              etl_reader **out, etl_error *err)
{
    if (!io || !io->read_at || !out)
        return etl_fail(err, ETL_ERR_ARG, 0, "NULL argument");
    *out = NULL;
    if (size == 0)
        return etl_fail(err, ETL_ERR_NOT_ETL, 0, "empty file (0 bytes): no ETW trace buffers");
    if (size < ETL_BUFFER_HEADER_SIZE)
        return etl_fail(err, ETL_ERR_NOT_ETL, 0, "file of %llu bytes is too short for an ETW trace buffer header (72 bytes)",
                        (unsigned long long)size);
    etl_reader *r = calloc(1, sizeof *r);
    if (!r)
        return etl_fail(err, ETL_ERR_NOMEM, 0, "no memory for the reader");
    r->fd = -1;
    r->last_ts = INT64_MIN;
    r->io = (struct etl_io_ref){io, ctx, size, opt ? opt->inflate_cache : NULL};
    r->rio = r->io;
    r->rio.cache = NULL; /* random reads would take what the sequential pass is to find */
    if (opt)
        r->opt = *opt;
    if (r->opt.order == ETL_ORDER_FILE)
        r->opt.window_buffers = 1;
    if (r->opt.window_buffers == 0)
        r->opt.window_buffers = ETL_DEFAULT_WINDOW_BUFFERS;
    if (r->opt.window_bytes == 0)
        r->opt.window_bytes = ETL_DEFAULT_WINDOW_BYTES;
    r->heap = calloc(r->opt.window_buffers, sizeof *r->heap);
    r->pool = calloc(r->opt.window_buffers + 1u, sizeof *r->pool);
    if (!r->heap || !r->pool) {
        reader_free(r);
        return etl_fail(err, ETL_ERR_NOMEM, 0, "no memory for the reader");
    }
    r->small = true;
    tree_build(r);

    /* The first buffer must be a trace buffer whose first record frames. */
    uint8_t h[ETL_BUFFER_HEADER_SIZE];
    size_t got;
    etl_buffer_header bh;
    etl_error herr;
    etl_status st = etl_io_read(&r->io, 0, h, sizeof h, &got, err);
    if (st != ETL_OK) {
        reader_free(r);
        return st;
    }
    if (etl_buffer_header_check(h, size, &bh, &herr) != ETL_OK) {
        reader_free(r);
        return etl_fail(err, ETL_ERR_NOT_ETL, 0, "not an ETW trace file: the first buffer header is invalid (%s)", herr.message);
    }
    r->first_logger_id = bh.logger_id;
    etl_buffer *first = buffer_get(r);
    if (!first) {
        reader_free(r);
        return etl_fail(err, ETL_ERR_NOMEM, 0, "no memory for a buffer");
    }
    /* Loaded once here for the logfile header; reports come when it is loaded for delivery. */
    /* (no clock yet: the logfile header in it sets it up) */
    st = etl_buffer_load(first, &r->io, 0, &bh, NULL, false, report_nothing, NULL, err);
    if (st != ETL_OK) {
        etl_buffer_free(first);
        free(first);
        reader_free(r);
        return st;
    }
    if (first->count == 0) {
        /* A valid buffer header with no readable record (a file cut inside its first record,
         * say): still a trace, with nothing to decode; the damage is reported on delivery. */
    } else {
        /* The logfile header: the first record of the first buffer (file order). */
        etl_record rec;
        memset(&rec, 0, offsetof(etl_record, ext));
        uint32_t stride;
        const uint8_t *d = first->data + first->index[0].offset;
        if (etl_frame_record(d, first->data_len - first->index[0].offset, 8, &rec, &stride, NULL) == ETL_OK &&
            (rec.header_type == ETL_HT_SYSTEM32 || rec.header_type == ETL_HT_SYSTEM64) && rec.hook_id == 0) {
            etl_error lerr;
            if (etl_logfile_parse(d + rec.payload_offset, rec.payload_size, rec.header_type == ETL_HT_SYSTEM64, &r->lf,
                                  &lerr) == ETL_OK)
                r->lf.anchor_raw = rec.timestamp_raw;
            else
                report(r, lerr.code, ETL_BUFFER_HEADER_SIZE + rec.payload_offset, 0, "logfile header record: %s", lerr.message);
        } else {
            report(r, ETL_ERR_CORRUPT, ETL_BUFFER_HEADER_SIZE, 0,
                   "the first record is not a logfile header; times cannot be converted unless they are FILETIMEs");
        }
    }
    r->compressed_file = r->lf.present && (r->lf.log_file_mode & EVENT_TRACE_COMPRESSED_MODE);
    r->session_ps = etl_reader_session_pointer_size(r);
    setup_clock(r);
    etl_buffer_free(first);
    free(first);
    r->prescanning = true;
    st = prescan(r, err);
    r->prescanning = false;
    if (st != ETL_OK) {
        reader_free(r);
        return st;
    }
    if (r->opt.order == ETL_ORDER_TIME)
        qsort(r->bufs, r->nbufs, sizeof *r->bufs, cmp_ref);
    /* Loader threads, when asked for: bufs is final from here on, and they load its entries
     * in the order fill_window takes them.  Four slots per thread and four more keep them busy
     * while the merge consumes, a loader resuming only once half of them are taken
     * (prefetch.c); without threads (or when they cannot start) this thread loads. */
    start_loaders(r);
    *out = r;
    return ETL_OK;
}

bool etl_reader_start_loaders(etl_reader *r, uint32_t threads)
{
    if (!r || r->pf || r->next_buf != 0 || !threads)
        return false; /* already started, or a buffer already loaded on this thread */
    r->opt.threads = threads;
    start_loaders(r);
    return r->pf != NULL;
}

static int fd_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    int fd = *(int *)ctx;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            *got = done;
            return -1;
        }
        if (n == 0)
            break;
        done += (size_t)n;
    }
    *got = done;
    return 0;
}

static const etl_io fd_io = {fd_read_at};

etl_status etl_reader_open_file(const char *path, const etl_options *opt, etl_reader **out, etl_error *err)
{
    if (!path || !out)
        return etl_fail(err, ETL_ERR_ARG, 0, "NULL argument");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return etl_fail(err, errno == ENOENT ? ETL_ERR_NOT_ETL : ETL_ERR_IO, 0, "%s: %s", path, strerror(errno));
    struct stat stt;
    if (fstat(fd, &stt) != 0 || !S_ISREG(stt.st_mode)) {
        close(fd);
        return etl_fail(err, ETL_ERR_NOT_ETL, 0, "%s: not a regular file", path);
    }
    /* The fd lives in a heap cell so the I/O context stays valid; the reader owns both. */
    int *cell = malloc(sizeof *cell);
    if (!cell) {
        close(fd);
        return etl_fail(err, ETL_ERR_NOMEM, 0, "no memory");
    }
    *cell = fd;
    etl_status st = etl_reader_open_io(&fd_io, cell, (uint64_t)stt.st_size, opt, out, err);
    if (st != ETL_OK) {
        close(fd);
        free(cell);
        return st;
    }
    (*out)->fd = fd;
    (*out)->owned_ctx = cell;
    return ETL_OK;
}

/* A trace already in memory (tests, fuzzing, benchmarks, embedders): the bytes must outlive
 * the reader. */
struct mem_input {
    const uint8_t *p;
    size_t n;
};

static int mem_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    const struct mem_input *m = ctx;
    *got = 0;
    if (off >= m->n)
        return 0;
    size_t k = m->n - (size_t)off < len ? m->n - (size_t)off : len;
    memcpy(buf, m->p + off, k);
    *got = k;
    return 0;
}

static const etl_io mem_io = {mem_read_at};

etl_status etl_reader_open_memory(const uint8_t *data, size_t size, const etl_options *opt, etl_reader **out,
                                  etl_error *err)
{
    if (!out || (!data && size))
        return etl_fail(err, ETL_ERR_ARG, 0, "NULL argument");
    struct mem_input *m = malloc(sizeof *m);
    if (!m)
        return etl_fail(err, ETL_ERR_NOMEM, 0, "no memory");
    m->p = data;
    m->n = size;
    etl_status st = etl_reader_open_io(&mem_io, m, size, opt, out, err);
    if (st != ETL_OK) {
        free(m);
        return st;
    }
    (*out)->owned_ctx = m;
    return ETL_OK;
}

const etl_logfile *etl_reader_logfile(const etl_reader *r)
{
    return &r->lf;
}

uint8_t etl_reader_session_pointer_size(const etl_reader *r)
{
    return r->lf.present && r->lf.pointer_size == 4 ? 4 : 8;
}

const etl_stats *etl_reader_stats(const etl_reader *r)
{
    return &r->stats;
}

void etl_reader_set_random_io(etl_reader *r, const etl_io *io, void *ctx)
{
    if (!r || !io)
        return;
    r->rio.io = io;
    r->rio.ctx = ctx;
    for (int i = 0; i < RANDOM_CACHE_SLOTS; i++)
        r->rvalid[i] = false;
}
