/* The reader's merge window (reader.c, "the merge window"): up to WINDOW_SMALL (8) buffers it
 * is a tournament, beyond that a heap, and it changes form as buffers come and go.  Traces
 * written in memory by the generator library with 3, 12 and 24 CPUs, small buffers and
 * records spread over the CPUs at random (some timestamps shared across CPUs) are read in
 * timestamp order with several windows, at 0 and 2 threads.  With a window that holds every
 * overlapping buffer, the records must come exactly in (timestamp, buffer file offset, record
 * offset) order - the order the same records read in file order sort to - with no fallback;
 * with any window every record comes exactly once and a record out of order is counted. */
#include <stdlib.h>

#include "check.h"
#include "etl.h"
#include "etlwriter.h"

typedef struct key {
    int64_t ts;
    uint64_t buf, off;
} key;

static int cmp_key(const void *a, const void *b)
{
    const key *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->buf != y->buf)
        return x->buf < y->buf ? -1 : 1;
    return x->off < y->off ? -1 : (x->off > y->off);
}

/* Every record of the trace in the reader's order; *fallbacks from its statistics. */
static key *read_all(const etlw_mem *m, etl_order order, uint32_t window, uint32_t threads, size_t *n,
                     uint64_t *fallbacks)
{
    etl_options opt = {.order = order, .window_buffers = window, .threads = threads};
    etl_reader *rd;
    etl_error e;
    *n = 0;
    if (etl_reader_open_memory(m->data, m->len, &opt, &rd, &e) != ETL_OK)
        return NULL;
    size_t cap = 1024;
    key *k = malloc(cap * sizeof *k);
    etl_record rec;
    while (k && etl_reader_next(rd, &rec, &e) == ETL_OK) {
        if (rec.is_logfile_header)
            continue;
        if (*n == cap) {
            key *g = realloc(k, 2 * cap * sizeof *k);
            if (!g) {
                free(k);
                k = NULL;
                break;
            }
            k = g;
            cap *= 2;
        }
        k[(*n)++] = (key){rec.timestamp_raw, rec.buffer_offset, rec.record_offset};
    }
    *fallbacks = etl_reader_stats(rd)->order_fallbacks;
    CHECK_EQ_U(etl_reader_stats(rd)->problems, 0);
    etl_reader_close(rd);
    return k;
}

static void one_trace(unsigned cpus, uint32_t records, uint64_t seed)
{
    etlw_config c;
    etlw_config_init(&c);
    c.num_cpus = cpus;
    c.buffer_size = 1024; /* ~25 records a buffer: many buffers overlap in time */
    etlw_mem mem = {0};
    etlw_writer *w;
    CHECK(etlw_open(&w, &c, etlw_mem_sink(&mem, 64u << 20)) == 0);
    int64_t ts = c.header_timestamp + 1000;
    for (uint32_t i = 0; i < records; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned cpu = (unsigned)(seed >> 33) % cpus;
        if (cpu == 1 && cpus > 2)
            cpu = (unsigned)(seed >> 40) % cpus; /* uneven: some CPUs' buffers span longer */
        etlw_system_rec r = {0};
        r.kind = (seed >> 20) % 3 == 0 ? ETLW_PERFINFO : (seed >> 20) % 3 == 1 ? ETLW_COMPACT : ETLW_SYSTEM;
        r.group = 0x0F;
        r.type = 46;
        r.timestamp = ts;
        r.tid = i;
        CHECK(etlw_write_system(w, cpu, &r, "12345678", 8) == 0);
        if ((seed >> 50) % 7 != 0) /* else the next record has the same timestamp */
            ts += 1 + (int64_t)((seed >> 44) % 5);
    }
    CHECK(etlw_close(w) == 0);
    etlw_destroy(w);

    size_t nfile;
    uint64_t fb;
    key *want = read_all(&mem, ETL_ORDER_FILE, 0, 0, &nfile, &fb);
    CHECK(want != NULL);
    if (!want) {
        etlw_mem_release(&mem);
        return;
    }
    CHECK_EQ_U(nfile, records);
    qsort(want, nfile, sizeof *want, cmp_key);

    static const uint32_t windows[] = {0, 64, 30, 12, 9, 8, 5, 3, 1};
    for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++)
        for (uint32_t threads = 0; threads <= 2; threads += 2) {
            size_t n;
            key *got = read_all(&mem, ETL_ORDER_TIME, windows[wi], threads, &n, &fb);
            CHECK(got != NULL);
            if (!got)
                continue;
            CHECK_EQ_U(n, nfile);
            bool exact = n == nfile;
            uint64_t back = 0;
            for (size_t i = 0; exact && i < n; i++) {
                exact = got[i].ts == want[i].ts && got[i].buf == want[i].buf && got[i].off == want[i].off;
                back += i && got[i].ts < got[i - 1].ts;
            }
            if (fb == 0) { /* no fallback: the exact order */
                if (!exact)
                    fprintf(stderr, "%u CPUs, window %u, %u threads: not in timestamp order\n", cpus, windows[wi],
                            threads);
                CHECK(exact);
            }
            if (windows[wi] == 0 || windows[wi] >= 30) /* holds every overlapping buffer */
                CHECK_EQ_U(fb, 0);
            CHECK(back <= fb); /* only counted fallbacks go back in time */
            /* every record once, in any order */
            qsort(got, n, sizeof *got, cmp_key);
            bool same = n == nfile;
            for (size_t i = 0; same && i < n; i++)
                same = got[i].buf == want[i].buf && got[i].off == want[i].off;
            CHECK(same);
            free(got);
        }
    free(want);
    etlw_mem_release(&mem);
}

int main(void)
{
    one_trace(3, 5000, 1);
    one_trace(12, 20000, 2);  /* about 12 buffers overlap: the window is a heap, then again a tournament */
    one_trace(24, 30000, 3);
    CHECK_MAIN_END();
}
