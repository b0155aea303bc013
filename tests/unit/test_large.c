/* A virtual 5 GiB trace through the reader's I/O seam: offsets past 4 GiB, positions that read
 * back there, exact timestamp order across CPUs, and memory that does not grow with the file.
 * The bytes are synthesized on demand, so the test needs no disk space. */
#include <stdlib.h>
#include <sys/resource.h>

#include "check.h"
#include "etl.h"

#define BUF 65536u
#define NBUF (5ull * 1024 * 1024 * 1024 / BUF + 1) /* header buffer + 5 GiB of event buffers */
#define PER_BUF 16u
#define REC 0x60u

static uint8_t scratch[BUF];
static uint64_t scratch_index = UINT64_MAX;

static void put16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xFFFF); put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

/* Buffer k: k = 0 holds the logfile header; every other buffer PER_BUF EVENT_HEADER64 records.
 * Buffer k is filled by CPU k % 4 and its records are stamped so that consecutive buffers of
 * different CPUs interleave in time: record i of buffer k is at (k / 4) * 4000 + i * 250 + k % 4. */
static void make_buffer(uint64_t k)
{
    memset(scratch, 0xFF, BUF);
    memset(scratch, 0, ETL_BUFFER_HEADER_SIZE);
    put32(scratch, BUF);
    uint32_t filled;
    if (k == 0) {
        uint8_t *r = scratch + ETL_BUFFER_HEADER_SIZE;
        uint32_t size = 0x20 + 0x118 + 4;
        memset(r, 0, size);
        put16(r, 2);
        r[2] = 0x02;
        r[3] = 0xC0;
        put16(r + 4, size);
        put64(r + 0x10, 0);                 /* anchor raw timestamp */
        uint8_t *lf = r + 0x20;
        put32(lf, BUF);                     /* BufferSize */
        put32(lf + 0x2C, 8);                /* PointerSize */
        put64(lf + 0x100, 10000000);        /* PerfFreq */
        put64(lf + 0x108, 132756731728578510ULL); /* StartTime */
        put32(lf + 0x110, 1);               /* QPC */
        filled = ETL_BUFFER_HEADER_SIZE + ((size + 7) & ~7u);
        scratch[0x36] = 4;                  /* HEADER buffer */
    } else {
        scratch[0x28] = (uint8_t)(k % 4);
        for (uint32_t i = 0; i < PER_BUF; i++) {
            uint8_t *r = scratch + ETL_BUFFER_HEADER_SIZE + i * REC;
            memset(r, 0, REC);
            put16(r, REC);
            put16(r + 2, 0xC013);
            put32(r + 8, i);
            put32(r + 0x0C, (uint32_t)k);
            put64(r + 0x10, (k / 4) * 4000 + i * 250 + k % 4);
        }
        filled = ETL_BUFFER_HEADER_SIZE + PER_BUF * REC;
    }
    put32(scratch + 0x04, filled);
    put32(scratch + 0x2C, 3);
    put32(scratch + 0x30, filled);
    scratch_index = k;
}

static uint64_t bytes_read;

static int virtual_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    (void)ctx;
    size_t done = 0;
    while (done < len && off + done < NBUF * BUF) {
        uint64_t k = (off + done) / BUF;
        uint32_t in = (uint32_t)((off + done) % BUF);
        if (k != scratch_index)
            make_buffer(k);
        size_t n = BUF - in < len - done ? BUF - in : len - done;
        memcpy((uint8_t *)buf + done, scratch + in, n);
        done += n;
    }
    *got = done;
    bytes_read += done;
    return 0;
}

static const etl_io virtual_io = {virtual_read_at};

static long max_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(void)
{
    etl_reader *r;
    etl_error err;
    long rss0 = max_rss_kb();
    CHECK(etl_reader_open_io(&virtual_io, NULL, NBUF * BUF, NULL, &r, &err) == ETL_OK);
    etl_record rec;
    uint64_t n = 0, beyond4g = 0, last_pos = 0, wrong_pid = 0;
    int64_t last_ts = INT64_MIN;
    bool sorted = true;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        n++;
        if (rec.timestamp_raw < last_ts)
            sorted = false;
        last_ts = rec.timestamp_raw;
        if (rec.buffer_offset > (4ull << 30)) {
            beyond4g++;
            last_pos = rec.position;
            if (rec.pid != rec.buffer_offset / BUF)
                wrong_pid++;
        }
    }
    CHECK_EQ_U(n, 1 + (NBUF - 1) * PER_BUF);
    CHECK(sorted);
    CHECK(beyond4g > 0);
    CHECK_EQ_U(wrong_pid, 0);
    CHECK_EQ_U(etl_reader_stats(r)->problems, 0);
    CHECK_EQ_U(etl_reader_stats(r)->order_fallbacks, 0);
    /* a position past 4 GiB reads back */
    CHECK(etl_reader_read_at(r, last_pos, &rec, &err) == ETL_OK);
    CHECK(rec.buffer_offset > (4ull << 30));
    CHECK_EQ_U(rec.pid, rec.buffer_offset / BUF);
    /* the reader never read the 0xFF slack: only headers, peeks and valid data */
    CHECK(bytes_read < NBUF * 4096);
    /* memory: the per-buffer index (64 bytes x 81921) and a few buffers, not the 5 GiB */
    long grown = max_rss_kb() - rss0;
    printf("max RSS grew by %ld KiB over %llu buffers\n", grown, (unsigned long long)NBUF);
    CHECK(grown < 64 * 1024);
    etl_reader_close(r);
    CHECK_MAIN_END();
}
