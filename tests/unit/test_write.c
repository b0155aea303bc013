/* test_write.c - the library writer (etl_write.h): header record checks, per-CPU buffers,
 * alignment and slack, the final logfile facts, refused records, a failing sink; every file
 * written is read back through the reader with no damage reported. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "etl.h"
#include "etl_write.h"
#include "layout.h"

#define BUFSZ 4096u

typedef struct mem {
    uint8_t data[1 << 20];
    size_t len;
    int fail_after; /* writes before the sink fails; -1 never */
} mem;

static int mem_write(void *ctx, uint64_t off, const void *p, size_t n)
{
    mem *m = ctx;
    if (m->fail_after == 0)
        return -1;
    if (m->fail_after > 0)
        m->fail_after--;
    if (off + n > sizeof m->data)
        return -1;
    memcpy(m->data + off, p, n);
    if (off + n > m->len)
        m->len = (size_t)(off + n);
    return 0;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }

/* SYSTEM64 logfile header record: QPC at 10 MHz, names "L" and "F". */
static size_t header_record(uint8_t *r, uint32_t buffer_size)
{
    size_t len = SYSTEM_TRACE_HEADER_SIZE + TRACE_LOGFILE_HEADER_SIZE + TRACE_LOGFILE_HEADER_POINTER_SHIFT + 8;
    memset(r, 0, len);
    put32(r, 0xC0020002u);
    put16(r + SYSTEM_TRACE_HEADER_OFF_SIZE, (uint16_t)len);
    put64(r + SYSTEM_TRACE_HEADER_OFF_SYSTEM_TIME, 1000);
    uint8_t *lf = r + SYSTEM_TRACE_HEADER_SIZE;
    const unsigned sh = TRACE_LOGFILE_HEADER_POINTER_SHIFT;
    put32(lf + TRACE_LOGFILE_HEADER_OFF_BUFFER_SIZE, buffer_size);
    put32(lf + TRACE_LOGFILE_HEADER_OFF_PROCESSORS, 2);
    put32(lf + TRACE_LOGFILE_HEADER_OFF_POINTER_SIZE, 8);
    put64(lf + TRACE_LOGFILE_HEADER_OFF_PERF_FREQ + sh, 10000000);
    put64(lf + TRACE_LOGFILE_HEADER_OFF_START_TIME + sh, 133486382450000000ull);
    put32(lf + TRACE_LOGFILE_HEADER_OFF_RESERVED_FLAGS + sh, ETL_CLOCK_QPC);
    uint8_t *names = lf + TRACE_LOGFILE_HEADER_SIZE + sh;
    names[0] = 'L';
    names[4] = 'F';
    return len;
}

/* A PERFINFO64 record of `len` bytes at time ts. */
static void perfinfo(uint8_t *r, size_t len, int64_t ts)
{
    memset(r, 0xAB, len);
    put32(r, 0xC0110002u);
    put16(r + SYSTEM_TRACE_HEADER_OFF_SIZE, (uint16_t)len);
    put16(r + SYSTEM_TRACE_HEADER_OFF_HOOK_ID, 0x0F2E); /* PerfInfo Sample */
    put64(r + PERFINFO_TRACE_HEADER_OFF_SYSTEM_TIME, (uint64_t)ts);
}

static void test_header_checks(void)
{
    static mem m;
    m.fail_after = -1;
    uint8_t h[1024];
    size_t len = header_record(h, BUFSZ);
    etl_write_config cfg = { .buffer_size = BUFSZ };
    etl_writer *w = NULL;
    etl_error err;
    etl_write_sink sink = { mem_write, &m };

    h[SYSTEM_TRACE_HEADER_OFF_HOOK_ID] = 1;
    CHECK_EQ_U(etl_writer_open(&cfg, sink, h, len, &w, &err), ETL_ERR_ARG);
    CHECK_EQ_U(err.offset, SYSTEM_TRACE_HEADER_OFF_HOOK_ID);
    h[SYSTEM_TRACE_HEADER_OFF_HOOK_ID] = 0;
    /* PMC counters or a PEBS index announced in the version word (fuzz.write's find: the reader
     * then reads the TRACE_LOGFILE_HEADER after them, truncated) */
    uint8_t ver_hi = h[SYSTEM_TRACE_HEADER_OFF_VERSION + 1];
    h[SYSTEM_TRACE_HEADER_OFF_VERSION + 1] = (uint8_t)(ver_hi | (TRACE_HEADER_PMC_COUNTERS_MASK >> 8));
    CHECK_EQ_U(etl_writer_open(&cfg, sink, h, len, &w, &err), ETL_ERR_ARG);
    CHECK_EQ_U(err.offset, SYSTEM_TRACE_HEADER_OFF_VERSION);
    h[SYSTEM_TRACE_HEADER_OFF_VERSION + 1] = (uint8_t)(ver_hi | (TRACE_HEADER_PEBS_INDEX_FLAG >> 8));
    CHECK_EQ_U(etl_writer_open(&cfg, sink, h, len, &w, &err), ETL_ERR_ARG);
    h[SYSTEM_TRACE_HEADER_OFF_VERSION + 1] = ver_hi;
    CHECK_EQ_U(etl_writer_open(&cfg, sink, h, len - 2, &w, &err), ETL_ERR_ARG); /* Size disagrees */
    etl_write_config other = { .buffer_size = BUFSZ * 2 };
    CHECK_EQ_U(etl_writer_open(&other, sink, h, len, &w, &err), ETL_ERR_ARG); /* BufferSize disagrees */
    etl_write_config odd = { .buffer_size = 1001 };
    CHECK_EQ_U(etl_writer_open(&odd, sink, h, len, &w, &err), ETL_ERR_ARG);
    CHECK(w == NULL);
}

static void test_round_trip(void)
{
    static mem m;
    m.fail_after = -1;
    m.len = 0;
    uint8_t h[1024], rec[ETL_WRITE_MAX_RECORD];
    size_t len = header_record(h, BUFSZ);
    etl_write_config cfg = { .buffer_size = BUFSZ, .max_cpus = 4, .logger_id = 7 };
    etl_writer *w = NULL;
    etl_error err;
    CHECK_EQ_U(etl_writer_open(&cfg, (etl_write_sink){ mem_write, &m }, h, len, &w, &err), ETL_OK);
    /* 300 records of 0x21 bytes (stride 0x28) alternating over CPUs 0 and 3: several buffers */
    for (int i = 0; i < 300; i++) {
        perfinfo(rec, 0x21, 2000 + i);
        CHECK_EQ_U(etl_writer_add(w, (unsigned)(i % 2) * 3, rec, 0x21, true, 2000 + i, &err), ETL_OK);
    }
    perfinfo(rec, BUFSZ, 5000); /* cannot fit after the buffer header */
    CHECK_EQ_U(etl_writer_add(w, 0, rec, BUFSZ, true, 5000, &err), ETL_ERR_LIMIT);
    CHECK_EQ_U(etl_writer_add(w, 4, rec, 0x21, true, 5000, &err), ETL_ERR_ARG); /* CPU out of range */
    CHECK_EQ_U(etl_writer_stats(w)->dropped, 1);
    etl_write_final fin = { .set_end_time = true, .end_time = 133486382460000000ll, .set_events_lost = true,
                            .events_lost = 1 };
    CHECK_EQ_U(etl_writer_close(w, &fin, &err), ETL_OK);
    const etl_write_stats *ws = etl_writer_stats(w);
    CHECK_EQ_U(ws->records, 301);
    CHECK_EQ_U(ws->file_size, ws->buffers * BUFSZ);
    CHECK_EQ_U(m.len, ws->file_size);
    CHECK(ws->buffers > 3);

    /* buffer layout */
    const uint8_t *b0 = m.data;
    CHECK_EQ_U(b0[WMI_BUFFER_HEADER_OFF_TYPE], 4); /* HEADER */
    CHECK_EQ_U(b0[WMI_BUFFER_HEADER_OFF_LOGGER_ID], 7);
    const uint8_t *b1 = m.data + BUFSZ;
    uint32_t used = (uint32_t)(b1[4] | b1[5] << 8);
    CHECK_EQ_U(used % 8, 0);
    CHECK(b1[used] == 0xFF && b1[BUFSZ - 1] == 0xFF);
    CHECK(b1[ETL_BUFFER_HEADER_SIZE + 0x21] == 0); /* alignment pad is zero */

    etl_reader *r;
    CHECK_EQ_U(etl_reader_open_memory(m.data, m.len, NULL, &r, &err), ETL_OK);
    const etl_logfile *lf = etl_reader_logfile(r);
    CHECK_EQ_U(lf->buffers_written, ws->buffers);
    CHECK_EQ_U(lf->events_lost, 1);
    CHECK_EQ_U(lf->end_time, 133486382460000000ll);
    etl_record rr;
    uint64_t n = 0, cpu3 = 0;
    int64_t last = 0;
    bool ordered = true;
    while (etl_reader_next(r, &rr, &err) == ETL_OK) {
        if (n++ == 0) {
            CHECK(rr.is_logfile_header);
            continue;
        }
        cpu3 += rr.cpu == 3;
        ordered &= rr.timestamp_raw >= last;
        last = rr.timestamp_raw;
        CHECK_EQ_U(rr.size, 0x21);
    }
    CHECK_EQ_U(n, 301);
    CHECK_EQ_U(cpu3, 150);
    CHECK(ordered);
    CHECK_EQ_U(etl_reader_stats(r)->problems, 0);
    etl_reader_close(r);
    etl_writer_free(w);
}

static void test_failing_sink(void)
{
    static mem m;
    uint8_t h[1024], rec[64];
    size_t len = header_record(h, BUFSZ);
    etl_write_config cfg = { .buffer_size = BUFSZ };
    etl_writer *w = NULL;
    etl_error err;
    m.fail_after = 0;
    CHECK_EQ_U(etl_writer_open(&cfg, (etl_write_sink){ mem_write, &m }, h, len, &w, &err), ETL_ERR_IO);
    m.fail_after = 1; /* the HEADER buffer, then nothing */
    CHECK_EQ_U(etl_writer_open(&cfg, (etl_write_sink){ mem_write, &m }, h, len, &w, &err), ETL_OK);
    perfinfo(rec, 0x20, 2000);
    CHECK_EQ_U(etl_writer_add(w, 0, rec, 0x20, true, 2000, &err), ETL_OK);
    CHECK_EQ_U(etl_writer_flush_cpu(w, 0, 2000, &err), ETL_ERR_IO);
    CHECK_EQ_U(etl_writer_add(w, 0, rec, 0x20, true, 2001, &err), ETL_ERR_IO); /* sticky */
    CHECK_EQ_U(etl_writer_close(w, NULL, &err), ETL_ERR_IO);
    etl_writer_free(w);
}

int main(void)
{
    test_header_checks();
    test_round_trip();
    test_failing_sink();
    CHECK_MAIN_END();
}
