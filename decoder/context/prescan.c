/* prescan.c - the one pass before decoding (prescan.h). */
#include "prescan.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "layout.h"
#include "position.h"
#include "prefault.h"
#include "thread.h"

#include "carried.h"
#include "eventsource.h"
#include "procs.h"
#include "registry.h"
#include "volumes.h"

/* Files smaller than this are read in one pass: a second thread would not pay for itself. */
#define SPLIT_MIN_BYTES (8u << 20)
/* Bytes of record copies the helper thread keeps at most (the records some observer wants: a
 * few thousand process and thread events in a busy trace); past it, one pass reads on. */
#define SPLIT_MAX_KEPT (16u << 20)
/* The copies are carved out of chunks this large, each a record view's header up to its last
 * extended item in use, then its bytes: no malloc per record, and a third of the memory a
 * whole etl_record each took (720 bytes, most of them the unused extended items).  New memory
 * costs most here (a page touched first is a fault, 10 us on the 2-core VM of bench/README.md
 * session 12: the 4.5 MB of whole copies on the 1 M-record kernel trace were 1,100 faults, and
 * the main thread waited for them). */
#define KEEP_CHUNK_BYTES (1u << 20)
/* Room after the last copy in a chunk: an observer may read its view as a whole etl_record. */
#define KEEP_CHUNK_SLACK sizeof(etl_record)

static void observe_all(const etl_observer *obs, size_t n, const etl_record *rec)
{
    for (size_t i = 0; i < n; i++)
        obs[i].observe(obs[i].ctx, rec);
}

/* The rest of `r` to its end, every record to every observer (but those whose hook or event
 * id is outside `ids`, when given: no observer wants them); then its problem reports
 * dropped (damage is the decoding pass's to report). */
static etl_status observe_rest(etl_reader *r, const etl_id_set *ids, const etl_observer *obs, size_t n,
                               etl_error *err)
{
    etl_record rec;
    etl_status st;
    while ((st = etl_reader_next_of(r, ids, &rec, err)) == ETL_OK)
        observe_all(obs, n, &rec);
    etl_error p;
    while (etl_reader_next_problem(r, &p))
        ;
    return st == ETL_END ? ETL_OK : st;
}

etl_status etl_prescan(etl_reader *r, const etl_observer *obs, size_t n, etl_error *err)
{
    if (!r || (n && !obs) || n > ETL_PRESCAN_MAX_OBSERVERS)
        return etl_fail(err, ETL_ERR_ARG, 0, "prescan: no reader, or more than %u observers",
                        ETL_PRESCAN_MAX_OBSERVERS);
    return observe_rest(r, NULL, obs, n, err);
}

/* ---- two threads at once (prescan.h) ----------------------------------------------------- */

/* The main thread reads the file from its front as one pass would, observing as it goes; a
 * helper thread takes pieces of it from the back, one at a time, and keeps copies of the
 * records some observer wants; they stop where they meet.  Neither waits for the other however
 * their speeds compare: the main thread observes every record it frames and the helper only
 * filters, and how much faster the helper is depends on the machine.  A fixed split (9/16 of
 * the file, tuned on one VM) left the other core idle for 5.7 ms of the 16 the pass took on
 * the 1 M-record kernel trace on another (bench/README.md, session 25). */

/* Pieces per file, about: how far apart the two threads can finish is at most one piece's
 * time; each piece costs the helper a reader's open (its first buffer, the logfile header's,
 * read again, and the piece's buffer headers walked). */
#define SPLIT_PIECES 64u
/* and no piece is smaller than this */
#define SPLIT_PIECE_MIN_BYTES (1u << 20)

/* A piece's view of the file: its first `head` bytes (the first buffer, which holds the logfile
 * header the reader opens with), then the bytes from `from` on. */
typedef struct piece_view {
    int fd;
    uint64_t head, from;
} piece_view;

static int view_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    const piece_view *v = ctx;
    size_t done = 0;
    while (done < len) {
        uint64_t at = off + done;
        size_t want = len - done;
        if (at < v->head && want > v->head - at)
            want = (size_t)(v->head - at); /* the first buffer's end: the rest comes from `from` */
        ssize_t k = pread(v->fd, (uint8_t *)buf + done, want, (off_t)(at < v->head ? at : at - v->head + v->from));
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        done += (size_t)k;
    }
    *got = done;
    return 0;
}

/* What the helper found in one piece. */
typedef struct piece {
    size_t kept_from, kept_to; /* its copies: kept[kept_from .. kept_to) */
    bool any;                  /* it holds a record past the file's first buffer; the first is at: */
    uint64_t first_buffer;     /* (file offsets) */
    uint32_t first_record;
} piece;

typedef struct helper {
    const char *path;
    uint64_t head, size; /* the first buffer's size; the file's */
    uint64_t piece_bytes; /* a multiple of the buffer size */
    unsigned n_pieces;
    const etl_wants_fn *wants;
    const etl_id_set *ids; /* or NULL */
    size_t n;
    pthread_mutex_t mu; /* guards front, back and failed */
    unsigned front; /* pieces [0, front) are the main thread's (it has read into front - 1) */
    unsigned back;  /* pieces [back, n_pieces) are the helper's */
    bool failed;    /* the helper could not open the file, a piece of its met damage, or a
                     * wanted record could not be kept */
    piece *pieces;  /* n_pieces, by index */
    etl_record **kept; /* copies of the wanted records, each piece's in file order, pieces from the back */
    size_t n_kept, cap_kept, kept_bytes;
    uint8_t **chunks; /* where the copies are (KEEP_CHUNK_BYTES each, or one record's own) */
    size_t n_chunks, cap_chunks, chunk_used, chunk_cap;
} helper;

static size_t round8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* need bytes (a multiple of 8) for a copy: at the end of the last chunk, else in a new one. */
static uint8_t *carve(helper *h, size_t need)
{
    if (h->n_chunks && need <= h->chunk_cap - h->chunk_used) {
        uint8_t *at = h->chunks[h->n_chunks - 1] + h->chunk_used;
        h->chunk_used += need;
        return at;
    }
    if (h->n_chunks == h->cap_chunks) {
        size_t cap = h->cap_chunks ? h->cap_chunks * 2 : 16;
        uint8_t **c = realloc(h->chunks, cap * sizeof *c);
        if (!c)
            return NULL;
        h->chunks = c;
        h->cap_chunks = cap;
    }
    size_t cap = need > KEEP_CHUNK_BYTES ? need : KEEP_CHUNK_BYTES;
    uint8_t *chunk = malloc(cap + KEEP_CHUNK_SLACK);
    if (!chunk)
        return NULL;
    etl_prefault(chunk, cap); /* filled soon: mapped in at once, not a fault a page */
    h->chunks[h->n_chunks++] = chunk;
    h->chunk_cap = cap;
    h->chunk_used = need;
    return chunk;
}

/* A copy of rec (read through the view of the piece at file offset `from`) with its bytes, for
 * the observers later; false when it cannot be kept (the bound, no memory, data outside the
 * record's bytes). */
static bool keep(helper *h, uint64_t from, const etl_record *rec)
{
    unsigned ext = etl_record_ext_in_use(rec);
    if (rec->pmc && !etl_record_holds(rec, rec->pmc, (size_t)rec->pmc_count * 8))
        return false;
    for (unsigned i = 0; i < ext; i++)
        if (rec->ext[i].data && !etl_record_holds(rec, rec->ext[i].data, rec->ext[i].data_size))
            return false;
    size_t head = etl_record_head_size(rec);
    size_t need = head + round8(rec->size);
    if (need > SPLIT_MAX_KEPT - h->kept_bytes)
        return false;
    if (h->n_kept == h->cap_kept) {
        size_t cap = h->cap_kept ? h->cap_kept * 2 : 256;
        etl_record **k = realloc(h->kept, cap * sizeof *k);
        if (!k)
            return false;
        h->kept = k;
        h->cap_kept = cap;
    }
    uint8_t *at = carve(h, need);
    if (!at)
        return false;
    etl_record *c = (etl_record *)(void *)at;
    memcpy(c, rec, head); /* the view to its last extended item in use (etl_record_ext_in_use) */
    c->buffer_offset = rec->buffer_offset - h->head + from; /* the file's offset, not the view's */
    c->position = etl_position_make(c->buffer_offset, rec->record_offset); /* the file's position */
    uint8_t *bytes = at + head;
    if (rec->size)
        memcpy(bytes, rec->bytes, rec->size);
    c->bytes = bytes;
    if (rec->pmc)
        c->pmc = bytes + (rec->pmc - rec->bytes);
    for (unsigned i = 0; i < ext; i++)
        if (rec->ext[i].data)
            c->ext[i].data = bytes + (rec->ext[i].data - rec->bytes);
    h->kept[h->n_kept++] = c;
    h->kept_bytes += need;
    return true;
}

static bool wanted(const etl_wants_fn *wants, size_t n, const etl_record *rec)
{
    for (size_t i = 0; i < n; i++)
        if (wants[i](rec))
            return true;
    return false;
}

/* Piece j read through a view of its own, the wanted records kept; false when it met damage or
 * a compressed buffer, or a wanted record could not be kept. */
static bool read_piece(helper *h, int fd, unsigned j)
{
    uint64_t from = (uint64_t)j * h->piece_bytes;
    uint64_t to = from + h->piece_bytes < h->size ? from + h->piece_bytes : h->size;
    piece_view v = {fd, h->head, from};
    piece *pc = &h->pieces[j];
    pc->kept_from = pc->kept_to = h->n_kept;
    const etl_io io = {view_read_at};
    etl_options opt = {0};
    opt.order = ETL_ORDER_FILE;
    etl_reader *r;
    etl_error err;
    if (etl_reader_open_io(&io, &v, h->head + (to - from), &opt, &r, &err) != ETL_OK)
        return false;
    etl_record rec;
    etl_status st;
    bool fine = true;
    while ((st = etl_reader_next_of(r, h->ids, &rec, &err)) == ETL_OK) {
        if (rec.buffer_offset < h->head)
            continue; /* the file's first buffer: the main thread's */
        if (!pc->any) {
            pc->any = true;
            pc->first_buffer = rec.buffer_offset - h->head + from;
            pc->first_record = rec.record_offset;
        }
        if ((rec.buffer_flags & ETL_BF_COMPRESSED) || (wanted(h->wants, h->n, &rec) && !keep(h, from, &rec))) {
            fine = false;
            break;
        }
    }
    const etl_stats *s = etl_reader_stats(r);
    fine = fine && st == ETL_END && !s->problems && !s->records_damaged;
    etl_reader_close(r);
    pc->kept_to = h->n_kept;
    return fine;
}

/* The helper gives up: the pieces it took do not stand for the rest (read on the main thread
 * after the join, which orders it). */
static void give_up(helper *h)
{
    pthread_mutex_lock(&h->mu);
    h->failed = true;
    pthread_mutex_unlock(&h->mu);
}

/* The helper: the last piece not yet taken by either thread, while there is one.  Only the
 * helper sets `failed`, and it stops when it does. */
static void *read_back_pieces(void *arg)
{
    helper *h = arg;
    int fd = open(h->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        give_up(h);
        return NULL;
    }
    for (;;) {
        pthread_mutex_lock(&h->mu);
        bool take = h->back > h->front;
        unsigned j = take ? --h->back : 0;
        pthread_mutex_unlock(&h->mu);
        if (!take)
            break;
        if (!read_piece(h, fd, j)) {
            give_up(h);
            break;
        }
    }
    close(fd);
    return NULL;
}

/* Is `r` (just opened on path) worth reading by two threads?  Sets h's geometry: pieces of a
 * multiple of the session's buffer size (SPLIT_PIECES, SPLIT_PIECE_MIN_BYTES). */
static bool split_worth(const char *path, unsigned threads, etl_reader *r, const etl_wants_fn *wants, size_t n,
                        helper *h)
{
    if (!threads || !n || !wants)
        return false; /* no other core offered; nothing to observe; no filters */
    for (size_t i = 0; i < n; i++)
        if (!wants[i])
            return false;
    const etl_logfile *lf = etl_reader_logfile(r);
    struct stat st;
    if (!lf->present || lf->buffer_size < ETL_BUFFER_HEADER_SIZE || stat(path, &st) != 0 || st.st_size < SPLIT_MIN_BYTES ||
        (uint64_t)st.st_size % lf->buffer_size != 0)
        return false;
    /* A compressed trace's buffers are not where the size says: the helper would stop at its
     * first one, and the main thread read on alone, without the loaders that inflate ahead */
    if (lf->log_file_mode & EVENT_TRACE_COMPRESSED_MODE)
        return false;
    uint64_t size = (uint64_t)st.st_size, buffers = size / lf->buffer_size;
    uint64_t per_piece = buffers / SPLIT_PIECES;
    if (per_piece * lf->buffer_size < SPLIT_PIECE_MIN_BYTES)
        per_piece = (SPLIT_PIECE_MIN_BYTES + lf->buffer_size - 1) / lf->buffer_size;
    if (per_piece == 0 || buffers / per_piece < 2)
        return false;
    *h = (helper){.path = path, .head = lf->buffer_size, .size = size, .piece_bytes = per_piece * lf->buffer_size,
                  .wants = wants, .n = n};
    h->n_pieces = (unsigned)((buffers + per_piece - 1) / per_piece);
    h->front = 1; /* the first piece holds the logfile header's buffer: the main thread's */
    h->back = h->n_pieces;
    return true;
}

/* The main thread's part of the pass: from the front until it meets the helper's pieces. */
static etl_status prescan_split(etl_reader *r, helper *h, const etl_observer *obs, size_t n, etl_error *err)
{
    etl_record rec;
    etl_status st = etl_reader_next(r, &rec, err);
    if (st != ETL_OK)
        return observe_rest(r, h->ids, obs, n, err); /* no record: the same end */
    observe_all(obs, n, &rec);
    h->pieces = calloc(h->n_pieces, sizeof *h->pieces);
    pthread_t t;
    if ((rec.buffer_flags & ETL_BF_COMPRESSED) || rec.buffer_offset >= h->piece_bytes || !h->pieces ||
        pthread_mutex_init(&h->mu, NULL) != 0) {
        free(h->pieces);
        return observe_rest(r, h->ids, obs, n, err); /* compressed: buffers are not where the size says */
    }
    if (etl_thread_start(&t, read_back_pieces, h) != 0) {
        pthread_mutex_destroy(&h->mu);
        free(h->pieces);
        return observe_rest(r, h->ids, obs, n, err);
    }
    bool past = false;
    uint64_t mine_to = h->piece_bytes; /* the end of the pieces this thread has taken */
    while ((st = etl_reader_next_of(r, h->ids, &rec, err)) == ETL_OK) {
        if (rec.buffer_offset >= mine_to) { /* a piece further on: this thread's, or the helper's */
            uint64_t k = rec.buffer_offset / h->piece_bytes;
            pthread_mutex_lock(&h->mu);
            past = k >= h->back;
            if (!past)
                h->front = (unsigned)k + 1;
            pthread_mutex_unlock(&h->mu);
            if (past)
                break;
            mine_to = (k + 1) * h->piece_bytes;
        }
        observe_all(obs, n, &rec);
    }
    pthread_mutex_lock(&h->mu);
    h->front = h->n_pieces; /* the helper takes no more */
    pthread_mutex_unlock(&h->mu);
    pthread_join(t, NULL);
    /* the helper's pieces stand for the rest when it read them all cleanly and the first
     * record it found is the one this thread's reader stopped at */
    const piece *first = NULL;
    for (unsigned j = h->back; j < h->n_pieces && !first; j++)
        if (h->pieces[j].any)
            first = &h->pieces[j];
    bool take = past && !h->failed && first && first->first_buffer == rec.buffer_offset &&
                first->first_record == rec.record_offset;
    if (take) {
        for (unsigned j = h->back; j < h->n_pieces; j++)
            for (size_t i = h->pieces[j].kept_from; i < h->pieces[j].kept_to; i++)
                observe_all(obs, n, h->kept[i]);
        etl_error p;
        while (etl_reader_next_problem(r, &p))
            ;
    } else if (past) { /* the helper's pieces do not stand for the rest: one pass reads on */
        observe_all(obs, n, &rec);
        st = observe_rest(r, h->ids, obs, n, err);
    } else {
        etl_error p;
        while (etl_reader_next_problem(r, &p))
            ;
        st = st == ETL_END ? ETL_OK : st; /* this thread's reader saw it all */
    }
    for (size_t i = 0; i < h->n_chunks; i++)
        free(h->chunks[i]);
    free(h->chunks);
    free(h->kept);
    free(h->pieces);
    pthread_mutex_destroy(&h->mu);
    return take ? ETL_OK : st;
}

etl_status etl_prescan_file(const char *path, const etl_observer *obs, size_t n, etl_error *err)
{
    return etl_prescan_file_threads(path, 0, obs, n, err);
}

etl_status etl_prescan_file_threads(const char *path, unsigned threads, const etl_observer *obs, size_t n,
                                    etl_error *err)
{
    return etl_prescan_file_cached(path, threads, NULL, obs, n, err);
}

etl_status etl_prescan_file_cached(const char *path, unsigned threads, etl_inflate_cache *cache, const etl_observer *obs,
                                   size_t n, etl_error *err)
{
    return etl_prescan_file_filtered(path, threads, cache, obs, NULL, NULL, n, err);
}

etl_status etl_prescan_file_filtered(const char *path, unsigned threads, etl_inflate_cache *cache,
                                     const etl_observer *obs, const etl_wants_fn *wants,
                                     const etl_wants_ids_fn *ids, size_t n, etl_error *err)
{
    etl_reader *r;
    etl_status st = etl_prescan_open(path, cache, &r, err);
    if (st != ETL_OK)
        return st;
    return etl_prescan_reader_filtered(r, path, threads, obs, wants, ids, n, err);
}

etl_status etl_prescan_open(const char *path, etl_inflate_cache *cache, etl_reader **out, etl_error *err)
{
    etl_options opt = {0};
    opt.order = ETL_ORDER_FILE; /* no merge: every record once, in the order stored */
    opt.inflate_cache = cache;
    /* Opened without loader threads: whether the trace is split is known only once the reader
     * has its logfile header, and a split keeps the cores busy with the two threads' readers - a
     * loader beside them took turns with them (on 2 cores, the 1 M-record kernel trace's
     * pre-scan: the main thread's part 50 ms of wall for 31 ms of its CPU).  A trace read in one
     * pass starts the loaders then (they inflate a compressed trace ahead); the inflate cache
     * keeps a buffer once, whichever reader inflates it. */
    return etl_reader_open_file(path, &opt, out, err);
}

etl_status etl_prescan_reader_filtered(etl_reader *r, const char *path, unsigned threads, const etl_observer *obs,
                                       const etl_wants_fn *wants, const etl_wants_ids_fn *ids, size_t n,
                                       etl_error *err)
{
    if (!r || !path) {
        etl_reader_close(r); /* the caller's reader is this pass's to close, whatever happens */
        return etl_fail(err, ETL_ERR_ARG, 0, "prescan: no reader or no path");
    }
    etl_status st;
    /* the hook and event ids some observer might take; the rest are passed unframed */
    etl_id_set *wanted = ids && wants ? calloc(1, sizeof *wanted) : NULL;
    for (size_t i = 0; wanted && i < n; i++) {
        if (!ids[i]) { /* that observer might take any: every record is framed */
            free(wanted);
            wanted = NULL;
        } else {
            ids[i](wanted);
        }
    }
    helper h;
    bool args_ok = !(n && !obs) && n <= ETL_PRESCAN_MAX_OBSERVERS;
    bool split = args_ok && split_worth(path, threads, r, wants, n, &h);
    if (!split && threads)
        etl_reader_start_loaders(r, threads);
    if (split)
        h.ids = wanted;
    if (!args_ok)
        st = etl_prescan(r, obs, n, err); /* the argument error */
    else
        st = split ? prescan_split(r, &h, obs, n, err) : observe_rest(r, wanted, obs, n, err);
    etl_reader_close(r);
    free(wanted);
    return st;
}

/* EventSource chunks are the only event-header records that carry schemas; MetaData records
 * have full headers, which are not passed by id. */
void etl_registry_observer_wants_ids(etl_id_set *set)
{
    etl_id_set_add_event_id(set, etl_es_manifest_event_id());
}

/* Only EVENT_HEADER records (EventSource chunks) and classic full headers (MetaData) can
 * carry schemas, and of those only the schema records: the registry's answer for any other
 * (an error with its message formatted) is not worth asking for per record. */
bool etl_registry_observer_wants(const etl_record *rec)
{
    switch (rec->header_type) {
    case ETL_HT_EVENT_HEADER32: case ETL_HT_EVENT_HEADER64:
    case ETL_HT_FULL_HEADER32: case ETL_HT_FULL_HEADER64:
        return etl_carried_is_metadata(rec) || etl_es_is_manifest_chunk(rec);
    default:
        return false; /* the rest passes without a call */
    }
}

static void observe_registry(void *ctx, const etl_record *rec)
{
    if (etl_registry_observer_wants(rec))
        etl_registry_observe(ctx, rec, NULL);
}

etl_observer etl_registry_observer(etl_registry *s)
{
    return (etl_observer){ observe_registry, s };
}

static void observe_procs(void *ctx, const etl_record *rec)
{
    etl_procs_observe(ctx, rec);
}

etl_observer etl_procs_observer(etl_procs *p)
{
    return (etl_observer){ observe_procs, p };
}
