/* Unit tests of the reader's header walk in parts (reader.c, walk_part): opened with loader
 * threads, a trace of enough buffers has its buffer headers walked by 2-4 threads at once.
 * What the reader then delivers must be what it delivers without threads - every record, in
 * the same order, the same damage reports at the same points, the same statistics - on:
 *   - a trace of 1,161 buffers (the shared diaghub kernel trace's event buffers repeated 20
 *     times after its first buffer), whole, in both orders;
 *   - copies of it damaged around each place a part starts, for 2, 3 and 4 parts: a buffer
 *     header zeroed or given a larger size (a header whose size is not the session's is read as
 *     the session's when a valid header follows there, and said so: else the walk would step
 *     over a whole buffer unseen), a byte of a header flipped, the file cut inside a part;
 * and the parts must really be walked by other threads (the input's reads of headers are
 * counted by thread), or the comparison would prove nothing. */
#include <glib.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "etl.h"

#define BUF 65536u    /* the diaghub kernel trace's buffer size */
#define REPEATS 20u   /* its 58 event buffers, this many times: 1,161 buffers with the first */
#define HEADER_READ 0x148u /* a header read by the walk: the header and the first bytes after it */

typedef struct trace {
    uint8_t *data;
    size_t len;
    pthread_t opener;             /* the thread that opens the reader */
    unsigned header_reads_other;  /* header reads made by another thread than the opener (atomic) */
} trace;

static int trace_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    trace *t = ctx;
    size_t n = off < t->len ? (t->len - off < len ? (size_t)(t->len - off) : len) : 0;
    memcpy(buf, t->data + off, n);
    *got = n;
    if (len <= HEADER_READ && off % BUF == 0 && !pthread_equal(pthread_self(), t->opener))
        __atomic_add_fetch(&t->header_reads_other, 1, __ATOMIC_RELAXED);
    return 0;
}

static const etl_io trace_io = {trace_read_at};

/* What one pass delivered: a digest of each record and each report, in stream order.  A
 * record is known by its position (its buffer's offset and its offset there), size, time and
 * framing: the bytes at a position are the file's, so the walk cannot change them, and hashing
 * 76 MB per pass made the test take minutes. */
typedef struct pass {
    uint64_t digest;
    uint64_t records, reports;
    etl_stats stats;
} pass;

static void mix(uint64_t *h, const void *data, size_t n) /* FNV-1a, 64-bit */
{
    const uint8_t *b = data;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ b[i]) * 0x100000001B3ull;
}

static void add_reports(etl_reader *rd, pass *p)
{
    etl_error e;
    while (etl_reader_next_problem(rd, &e)) {
        mix(&p->digest, &e.offset, sizeof e.offset);
        mix(&p->digest, &e.code, sizeof e.code);
        mix(&p->digest, e.message, strlen(e.message));
        p->reports++;
    }
}

static bool read_pass(trace *t, etl_order order, uint32_t threads, pass *p)
{
    etl_options opt = {.order = order, .threads = threads};
    etl_reader *rd;
    etl_error err;
    *p = (pass){.digest = 0xCBF29CE484222325ull};
    t->opener = pthread_self();
    if (etl_reader_open_io(&trace_io, t, t->len, &opt, &rd, &err) != ETL_OK)
        return false;
    etl_record rec;
    add_reports(rd, p);
    while (etl_reader_next(rd, &rec, &err) == ETL_OK) {
        add_reports(rd, p);
        int64_t f[] = {(int64_t)rec.position, rec.size, rec.timestamp, rec.has_timestamp, rec.header_type, rec.cpu,
                       etl_record_problem(&rec, NULL, NULL)};
        mix(&p->digest, f, sizeof f);
        p->records++;
    }
    add_reports(rd, p);
    p->stats = *etl_reader_stats(rd);
    etl_reader_close(rd);
    return true;
}

static unsigned compared;

/* `threads` loader threads (threads + 1 parts) against none, in `order`. */
static void compare(const char *what, trace *t, etl_order order, uint32_t threads, uint64_t *reports, uint64_t *records)
{
    pass base, th;
    CHECK(read_pass(t, order, 0, &base));
    CHECK(read_pass(t, order, threads, &th));
    bool same = th.records == base.records && th.reports == base.reports && th.digest == base.digest &&
                memcmp(&th.stats, &base.stats, sizeof th.stats) == 0;
    CHECK(same);
    if (!same)
        fprintf(stderr, "  %s: order %d threads %u: %llu records %llu reports, without threads %llu %llu\n", what, (int)order,
                threads, (unsigned long long)th.records, (unsigned long long)th.reports, (unsigned long long)base.records,
                (unsigned long long)base.reports);
    *reports += base.reports;
    *records += base.records;
    compared++;
}

/* 1, 2 and 3 loader threads (2, 3 and 4 parts) against none, in both orders. */
static void compare_all(const char *what, trace *t, uint64_t *reports, uint64_t *records)
{
    for (uint32_t threads = 1; threads <= 3; threads++) {
        compare(what, t, ETL_ORDER_TIME, threads, reports, records);
        compare(what, t, ETL_ORDER_FILE, threads, reports, records);
    }
}

/* A copy of t with one change made by `damage` at buffer k, compared. */
typedef void (*damage_fn)(uint8_t *buffer);

static void zero_header(uint8_t *b)
{
    memset(b, 0, 0x48);
}

static void other_size(uint8_t *b)
{
    b[2] = 0x02; /* BufferSize 0x10000 -> 0x20000: it would hide the next buffer */
}

static void flip_header_byte(uint8_t *b)
{
    b[0x36] ^= 0xFF; /* the buffer type */
}

/* Damage at buffer k of t, read with `threads` loader threads and without, then undone. */
static void damaged_at(trace *t, uint64_t k, damage_fn damage, const char *what, uint32_t threads, uint64_t *reports,
                       uint64_t *records)
{
    uint8_t keep[0x48];
    memcpy(keep, t->data + k * BUF, sizeof keep);
    damage(t->data + k * BUF);
    char name[96];
    snprintf(name, sizeof name, "%s at buffer %llu", what, (unsigned long long)k);
    compare(name, t, ETL_ORDER_TIME, threads, reports, records);
    memcpy(t->data + k * BUF, keep, sizeof keep);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_walk SHARED_CAPTURES\n");
        return 2;
    }
    char *path = g_build_filename(argv[1], "perfview_diaghub_kernel_relogged.etl", NULL);
    gchar *src;
    gsize src_len;
    if (!g_file_get_contents(path, &src, &src_len, NULL) || src_len % BUF != 0 || src_len < 2 * BUF) {
        CHECK(!"the shared diaghub kernel trace: missing, or not whole 64 KiB buffers");
        return 1;
    }
    g_free(path);
    /* the first buffer (the logfile header's) once, then the others REPEATS times */
    trace whole = {.len = BUF + (src_len - BUF) * REPEATS};
    whole.data = g_malloc(whole.len);
    memcpy(whole.data, src, BUF);
    for (unsigned i = 0; i < REPEATS; i++)
        memcpy(whole.data + BUF + (size_t)i * (src_len - BUF), src + BUF, src_len - BUF);
    /* the source's records, and those of its first buffer */
    uint64_t src_records = 0, first_records = 0;
    etl_reader *rd;
    etl_error err;
    etl_record rec;
    CHECK(etl_reader_open_memory((const uint8_t *)src, src_len, NULL, &rd, &err) == ETL_OK);
    while (etl_reader_next(rd, &rec, &err) == ETL_OK) {
        src_records++;
        first_records += rec.buffer_offset == 0;
    }
    etl_reader_close(rd);
    CHECK(src_records > first_records);
    g_free(src);
    uint64_t nbuf = whole.len / BUF;

    /* the parts are walked by other threads: with one loader thread, the second half's headers */
    pass p;
    whole.header_reads_other = 0;
    CHECK(read_pass(&whole, ETL_ORDER_TIME, 1, &p));
    printf("1 loader thread: %u of %llu buffer headers read by another thread\n", whole.header_reads_other,
           (unsigned long long)nbuf);
    CHECK(whole.header_reads_other >= nbuf / 2 - 1);
    CHECK_EQ_U(p.records, first_records + (uint64_t)REPEATS * (src_records - first_records)); /* every repeat */
    whole.header_reads_other = 0;
    CHECK(read_pass(&whole, ETL_ORDER_TIME, 0, &p));
    CHECK_EQ_U(whole.header_reads_other, 0); /* without threads, the opener reads them all */

    uint64_t reports = 0, records = 0;
    compare_all("whole", &whole, &reports, &records);
    CHECK_EQ_U(reports, 0);
    const uint64_t whole_records = records / 6;
    /* around every place a part starts (2, 3 or 4 parts: buffer nbuf * i / k), damage of each
     * kind, read with the parts of that place; each place's damage is reported, so the walk met it */
    static const struct {
        damage_fn fn;
        const char *what;
    } kinds[] = {{zero_header, "header zeroed"}, {other_size, "another buffer size"}, {flip_header_byte, "header byte flipped"}};
    for (size_t d = 0; d < sizeof kinds / sizeof kinds[0]; d++) {
        reports = records = 0;
        for (unsigned k = 2; k <= 4; k++)
            for (unsigned i = 1; i < k; i++)
                for (int64_t near = -1; near <= 1; near++)
                    damaged_at(&whole, (uint64_t)((int64_t)(nbuf * i / k) + near), kinds[d].fn, kinds[d].what, k - 1,
                               &reports, &records);
        printf("%s, in 18 places: %llu reports, %llu records fewer\n", kinds[d].what, (unsigned long long)reports,
               (unsigned long long)(18 * whole_records - records));
        CHECK(reports >= 18);
        if (kinds[d].fn == other_size) /* read as the session's size: the buffers after it are not lost */
            CHECK_EQ_U(records, 18 * whole_records);
    }
    /* the file cut inside the last part, and inside a buffer near the middle */
    trace cut = whole;
    reports = records = 0;
    cut.len = whole.len - 5 * BUF - 1000;
    compare_all("cut inside the last part", &cut, &reports, &records);
    cut.len = (nbuf / 2 - 1) * BUF + 100;
    compare_all("cut inside a buffer near the middle", &cut, &reports, &records);
    CHECK(reports >= 12);
    g_free(whole.data);
    printf("%u passes with the walk in parts identical to the pass without threads\n", compared);
    CHECK_EQ_U(compared, 6 + 3 * 18 + 12);
    CHECK_MAIN_END();
}
