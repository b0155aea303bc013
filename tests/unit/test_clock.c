/* Timestamps of every clock type, converted to UTC: traces written in memory by the project's
 * generator library (QPC at an odd frequency, system time, CPU cycles; 32- and 64-bit), read
 * back through the reader, and compared with the conversion done here by hand. */
#include "check.h"
#include "etl.h"
#include "etlwriter.h"

#define START 133486382450000000LL /* 2024-01-02T03:04:05Z */

/* Expected FILETIME: StartTime + (raw - anchor) * 10^7 / freq, floored. */
static int64_t expected(int64_t anchor, int64_t raw, int64_t freq)
{
    __int128 d = (__int128)(raw - anchor) * 10000000;
    __int128 q = d / freq;
    if (d % freq != 0 && d < 0)
        q -= 1;
    return START + (int64_t)q;
}

static void one_clock(unsigned clock, unsigned ptr, int64_t freq, uint32_t mhz, int64_t anchor)
{
    etlw_config c;
    etlw_config_init(&c);
    c.pointer_size = ptr;
    c.clock_type = clock;
    c.perf_freq = clock == ETLW_CLOCK_QPC ? (uint64_t)freq : 10000000;
    c.cpu_speed_mhz = mhz;
    c.start_time = START;
    c.header_timestamp = anchor;
    c.buffer_size = 4096;
    etlw_mem mem = {0};
    etlw_writer *w;
    CHECK(etlw_open(&w, &c, etlw_mem_sink(&mem, 1 << 20)) == 0);
    /* offsets from the anchor: 0, 1 tick, a second's worth, an hour's worth, and before it */
    int64_t f = clock == ETLW_CLOCK_SYSTEM ? 10000000 : clock == ETLW_CLOCK_CYCLES ? (int64_t)mhz * 1000000 : freq;
    const int64_t deltas[] = {1, f, 3600 * f + 12345, 7};
    for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++) {
        etlw_system_rec r = {0};
        r.kind = ETLW_SYSTEM;
        r.group = 3;
        r.type = 1;
        r.timestamp = anchor + deltas[i];
        r.tid = (uint32_t)i;
        CHECK(etlw_write_system(w, 0, &r, "x", 1) == 0);
    }
    CHECK(etlw_close(w) == 0);
    etlw_destroy(w);

    etl_reader *rd;
    etl_error e;
    CHECK(etl_reader_open_memory(mem.data, mem.len, NULL, &rd, &e) == ETL_OK);
    CHECK_EQ_U(etl_reader_logfile(rd)->clock_type, clock);
    etl_record rec;
    unsigned n = 0, right = 0;
    while (etl_reader_next(rd, &rec, &e) == ETL_OK) {
        n++;
        if (rec.has_timestamp && rec.timestamp == expected(anchor, rec.timestamp_raw, f))
            right++;
        else
            fprintf(stderr, "clock %u ptr %u: raw %lld -> %lld, expected %lld\n", clock, ptr,
                    (long long)rec.timestamp_raw, (long long)rec.timestamp,
                    (long long)expected(anchor, rec.timestamp_raw, f));
    }
    CHECK_EQ_U(n, 5);
    CHECK_EQ_U(right, n);
    int64_t ft;
    CHECK(etl_reader_convert_time(rd, anchor - f, &ft) && ft == START - 10000000); /* a second before */
    etl_reader_close(rd);
    etlw_mem_release(&mem);
}

int main(void)
{
    for (unsigned ptr = 4; ptr <= 8; ptr += 4) {
        one_clock(ETLW_CLOCK_QPC, ptr, 3579545, 0, 123456789012LL); /* the old ACPI PM timer rate */
        one_clock(ETLW_CLOCK_QPC, ptr, 10000000, 0, 36000000000LL);
        one_clock(ETLW_CLOCK_SYSTEM, ptr, 0, 0, START);
        one_clock(ETLW_CLOCK_CYCLES, ptr, 0, 2995, 987654321098765LL);
    }
    CHECK_MAIN_END();
}
