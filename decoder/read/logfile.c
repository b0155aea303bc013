/* logfile.c - the TRACE_LOGFILE_HEADER that opens every trace, and clock names.
 *
 * Layout: etw-formats.md 1.2.  The 32- and 64-bit forms differ only by the two pointer slots
 * at 0x38 (LoggerName, LogFileName), which shift everything after them by 8 bytes. */
#include <string.h>

#include "bytes.h"
#include "error.h"
#include "text.h"

const char *etl_clock_name(uint32_t c)
{
    switch (c) {
    case ETL_CLOCK_QPC: return "QPC";
    case ETL_CLOCK_SYSTEM_TIME: return "SystemTime";
    case ETL_CLOCK_CPU_CYCLES: return "CPUCycle";
    case ETL_CLOCK_RAW: return "Raw";
    default: return "Unknown";
    }
}

etl_status etl_logfile_parse(const uint8_t *p, size_t size, bool is64, etl_logfile *lf, etl_error *err)
{
    size_t fixed = is64 ? 0x118 : 0x110;
    memset(lf, 0, sizeof *lf);
    if (size < fixed)
        return etl_fail(err, ETL_ERR_TRUNCATED, 0, "TRACE_LOGFILE_HEADER needs %zu bytes, the record has %zu", fixed, size);
    lf->present = true;
    lf->header_type = is64 ? ETL_HT_SYSTEM64 : ETL_HT_SYSTEM32;
    lf->buffer_size = etl_ld32(p);
    lf->os_major = p[4];
    lf->os_minor = p[5];
    lf->os_sub = p[6];
    lf->os_subminor = p[7];
    lf->os_build = etl_ld32(p + 0x08);
    lf->processors = etl_ld32(p + 0x0C);
    lf->end_time = (int64_t)etl_ld64(p + 0x10);
    lf->timer_resolution = etl_ld32(p + 0x18);
    lf->max_file_size_mb = etl_ld32(p + 0x1C);
    lf->log_file_mode = etl_ld32(p + 0x20);
    lf->buffers_written = etl_ld32(p + 0x24);
    lf->start_buffers = etl_ld32(p + 0x28);
    lf->pointer_size = etl_ld32(p + 0x2C);
    lf->events_lost = etl_ld32(p + 0x30);
    lf->cpu_speed_mhz = etl_ld32(p + 0x34);
    size_t tz = is64 ? 0x48 : 0x40; /* TIME_ZONE_INFORMATION, 0xAC bytes */
    lf->tz_bias_minutes = (int32_t)etl_ld32(p + tz);
    etl_utf16_to_utf8(p + tz + 4, 64, lf->tz_standard_name, sizeof lf->tz_standard_name, NULL);
    etl_utf16_to_utf8(p + tz + 0x58, 64, lf->tz_daylight_name, sizeof lf->tz_daylight_name, NULL);
    size_t tail = fixed - 0x20;
    lf->boot_time = (int64_t)etl_ld64(p + tail);
    lf->perf_freq = (int64_t)etl_ld64(p + tail + 8);
    lf->start_time = (int64_t)etl_ld64(p + tail + 16);
    lf->clock_type = etl_ld32(p + tail + 24);
    lf->buffers_lost = etl_ld32(p + tail + 28);
    /* Logger name and log file name follow as NUL-terminated UTF-16LE strings. */
    size_t used = 0;
    etl_utf16_to_utf8(p + fixed, size - fixed, lf->logger_name, sizeof lf->logger_name, &used);
    if (fixed + used < size)
        etl_utf16_to_utf8(p + fixed + used, size - fixed - used, lf->log_file_name, sizeof lf->log_file_name, NULL);
    return ETL_OK;
}
