/* logfile.c - the TRACE_LOGFILE_HEADER that opens every trace, and clock names.
 *
 * Layout: layout.h (etw-formats.md 1.2).  The 32- and 64-bit forms differ only by the two
 * pointer slots (LoggerName, LogFileName), which shift everything after them by 8 bytes. */
#include <string.h>

#include "bytes.h"
#include "error.h"
#include "layout.h"
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
    /* offsets from TimeZone on are the 32-bit form's plus `shift` */
    size_t shift = is64 ? TRACE_LOGFILE_HEADER_POINTER_SHIFT : 0;
    size_t fixed = TRACE_LOGFILE_HEADER_SIZE + shift;
    memset(lf, 0, sizeof *lf);
    if (size < fixed)
        return etl_fail(err, ETL_ERR_TRUNCATED, 0, "TRACE_LOGFILE_HEADER needs %zu bytes, the record has %zu", fixed, size);
    lf->present = true;
    lf->header_type = is64 ? ETL_HT_SYSTEM64 : ETL_HT_SYSTEM32;
    lf->buffer_size = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_BUFFER_SIZE);
    const uint8_t *version = p + TRACE_LOGFILE_HEADER_OFF_VERSION;
    lf->os_major = version[0];
    lf->os_minor = version[1];
    lf->os_sub = version[2];
    lf->os_subminor = version[3];
    lf->os_build = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_PROVIDER_VERSION);
    lf->processors = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_PROCESSORS);
    lf->end_time = (int64_t)etl_ld64(p + TRACE_LOGFILE_HEADER_OFF_END_TIME);
    lf->timer_resolution = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_TIMER_RESOLUTION);
    lf->max_file_size_mb = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_MAX_FILE_SIZE);
    lf->log_file_mode = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_LOG_FILE_MODE);
    lf->buffers_written = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_BUFFERS_WRITTEN);
    lf->start_buffers = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_START_BUFFERS);
    lf->pointer_size = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_POINTER_SIZE);
    lf->events_lost = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_EVENTS_LOST);
    lf->cpu_speed_mhz = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_CPU_SPEED);
    const uint8_t *tz = p + TRACE_LOGFILE_HEADER_OFF_TIME_ZONE + shift;
    lf->tz_bias_minutes = (int32_t)etl_ld32(tz + TIME_ZONE_INFORMATION_OFF_BIAS);
    etl_utf16_to_utf8(tz + TIME_ZONE_INFORMATION_OFF_STANDARD_NAME, TIME_ZONE_INFORMATION_NAME_BYTES,
                      lf->tz_standard_name, sizeof lf->tz_standard_name, NULL);
    etl_utf16_to_utf8(tz + TIME_ZONE_INFORMATION_OFF_DAYLIGHT_NAME, TIME_ZONE_INFORMATION_NAME_BYTES,
                      lf->tz_daylight_name, sizeof lf->tz_daylight_name, NULL);
    lf->boot_time = (int64_t)etl_ld64(p + TRACE_LOGFILE_HEADER_OFF_BOOT_TIME + shift);
    lf->perf_freq = (int64_t)etl_ld64(p + TRACE_LOGFILE_HEADER_OFF_PERF_FREQ + shift);
    lf->start_time = (int64_t)etl_ld64(p + TRACE_LOGFILE_HEADER_OFF_START_TIME + shift);
    lf->clock_type = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_RESERVED_FLAGS + shift);
    lf->buffers_lost = etl_ld32(p + TRACE_LOGFILE_HEADER_OFF_BUFFERS_LOST + shift);
    /* Logger name and log file name follow as NUL-terminated UTF-16LE strings. */
    size_t used = 0;
    etl_utf16_to_utf8(p + fixed, size - fixed, lf->logger_name, sizeof lf->logger_name, &used);
    if (fixed + used < size)
        etl_utf16_to_utf8(p + fixed + used, size - fixed - used, lf->log_file_name, sizeof lf->log_file_name, NULL);
    return ETL_OK;
}
