/* etl_write.h - writing .etl files: the buffer and record layout, as Windows writes a
 * (relogged) trace.
 *
 *   etl_writer *w;  etl_error err;
 *   etl_writer_open(&cfg, sink, header_record, header_len, &w, &err);  // HEADER buffer
 *   etl_writer_add(w, cpu, record_bytes, size, true, raw_ts, &err);    // per record
 *   etl_writer_flush_cpu(w, cpu, raw_ts, &err);                        // optional breaks
 *   etl_writer_close(w, &final, &err);  etl_writer_free(w);
 *
 * What the file looks like (etw-formats.md sections 1.1, 1.2, 1.5):
 *   - the first buffer is a HEADER buffer (BufferType 4) that holds only the logfile header
 *     record given to open (SYSTEM_TRACE_HEADER hook 0x0000 + TRACE_LOGFILE_HEADER + the two
 *     names), SequenceNumber 0, TimeStamp 0;
 *   - then GENERIC buffers, one open buffer per CPU (and per logger id, etl_writer_add_in); a record goes into the buffer of the CPU
 *     it names, records are 8-byte aligned (zero pad), a buffer ends at its last record and
 *     the rest up to BufferSize is 0xFF; BufferSize = the session buffer size, SavedOffset =
 *     CurrentOffset = Offset = the used bytes; ProcessorIndex at 0x28 with BufferFlag
 *     PROC_INDEX, State 3 (flush); buffers flushed at close carry FLUSH_MARKER;
 *   - records are written as given: the writer never changes a record's header kind, bytes or
 *     timestamp, so the caller gives them in the file's clock (a relogger converting from
 *     another clock does that before);
 *   - on close the logfile header is rewritten with BuffersWritten (every buffer, the HEADER
 *     buffer included), and, when the caller gives them, EndTime and EventsLost.
 * With a compressor (cfg.compress) the file is what relogging with EVENT_TRACE_COMPRESSED_MODE
 * writes: the HEADER buffer stored plainly and shrunk to its used bytes rounded up to 0x200, every
 * other buffer 0x48 header bytes followed by the compressed record region (BufferFlag
 * COMPRESSED, BufferSize = 0x48 + compressed length, SavedOffset = Offset = 0x48 + plain length);
 * a buffer that does not shrink is stored plainly, shrunk the same way as the HEADER buffer.
 *
 * Limits: buffer sizes ETL_WRITE_MIN_BUFFER_SIZE..ETL_MAX_BUFFER_SIZE, multiples of 8; CPU
 * numbers below cfg.max_cpus (at most ETL_WRITE_MAX_CPUS: ProcessorIndex keeps 11 bits); a
 * record is 8..0xFFFF bytes (its Size is a u16) and must fit one buffer after the 0x48-byte
 * header, as Windows requires - a record that does not is refused (ETL_ERR_LIMIT) and counted
 * in `dropped`, and the writer goes on.  Only a failing sink or memory stops the writer: every
 * later call then returns that first error. */
#ifndef ETL_WRITE_H
#define ETL_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETL_WRITE_MIN_BUFFER_SIZE 512u
#define ETL_WRITE_MAX_CPUS 2048u
/* Distinct buffer logger ids in one written file (etl_writer_add_in). */
#define ETL_WRITE_MAX_LOGGERS 64u
/* A record's Size is a u16. */
#define ETL_WRITE_MAX_RECORD 0xFFFFu

/* Where the bytes go: write `len` bytes at `offset` (the HEADER buffer is rewritten at offset 0
 * on close; everything else is written in order).  0 on success, negative on failure. */
typedef struct etl_write_sink {
    int (*write_at)(void *ctx, uint64_t offset, const void *data, size_t len);
    void *ctx;
} etl_write_sink;

/* A sink appending to a stdio stream (seeks for the final HEADER rewrite). */
typedef struct etl_write_file {
    void *f; /* FILE * */
    uint64_t pos;
} etl_write_file;
etl_write_sink etl_write_file_sink(etl_write_file *state, void *stdio_file);

/* Compress `len` bytes of `in` into `out` (capacity `cap`); the compressed length, or 0 when
 * the data could not be compressed into `cap`. */
typedef size_t (*etl_write_compress_fn)(void *ctx, const uint8_t *in, size_t len, uint8_t *out,
                                        size_t cap);

typedef struct etl_write_config {
    uint32_t buffer_size; /* session buffer size, also the logfile header's BufferSize */
    uint32_t max_cpus;    /* CPU numbers accepted: 0 .. max_cpus-1; 0 = ETL_WRITE_MAX_CPUS */
    uint16_t logger_id;   /* ClientContext.LoggerId of the HEADER buffer and of etl_writer_add's */
    /* optional compression: the function, its context and the capacity its output needs for
     * one full buffer's record region */
    etl_write_compress_fn compress;
    void *compress_ctx;
    size_t compress_bound;
} etl_write_config;

/* The logfile facts the writer fills in on close (the rest of the header record is as given
 * to open). */
typedef struct etl_write_final {
    bool set_end_time;
    int64_t end_time;     /* FILETIME */
    bool set_events_lost;
    uint32_t events_lost; /* as given: add etl_writer_stats()->dropped to count refused records */
} etl_write_final;

typedef struct etl_write_stats {
    uint64_t records;            /* placed, the logfile header record included */
    uint64_t dropped;            /* refused: too big for a buffer */
    uint64_t buffers;            /* written, the HEADER buffer included */
    uint64_t compressed_buffers;
    uint64_t file_size;
} etl_write_stats;

typedef struct etl_writer etl_writer;

/* Check the header record (a SYSTEM32/64 trace header with hook 0x0000, Size matching `len`,
 * long enough for its TRACE_LOGFILE_HEADER form, BufferSize equal to cfg->buffer_size), write
 * the HEADER buffer.  ETL_ERR_ARG for a bad config or header record (err->offset is the byte
 * in the record), ETL_ERR_IO when the sink fails, ETL_ERR_NOMEM. */
etl_status etl_writer_open(const etl_write_config *cfg, etl_write_sink sink,
                           const uint8_t *header_record, size_t len, etl_writer **out,
                           etl_error *err);

/* Append one record (trace header + payload, no trailing pad; its own Size inside) to the
 * buffer of `cpu`, writing that buffer out first when the record does not fit.  `ts` (the
 * record's raw timestamp, when has_ts) only stamps buffers. */
etl_status etl_writer_add(etl_writer *w, unsigned cpu, const uint8_t *record, size_t len,
                          bool has_ts, int64_t ts, etl_error *err);

/* The same into the buffers of another logger id (ClientContext.LoggerId): each logger id has
 * its own open buffer per CPU.  A relogger keeps each record's logger id this way, and a merge
 * gives each input's records their own (etl_relog.h etl_merge: the id tells the traces apart).
 * At most ETL_WRITE_MAX_LOGGERS ids per file (ETL_ERR_ARG past it). */
etl_status etl_writer_add_in(etl_writer *w, uint16_t logger_id, unsigned cpu, const uint8_t *record,
                             size_t len, bool has_ts, int64_t ts, etl_error *err);

/* Write out the open buffer of `cpu` now (nothing when it is empty), stamped `ts`: a relogger
 * keeps the buffer breaks of its input this way, which keeps the file's time order readable
 * through a reader's bounded merge window. */
etl_status etl_writer_flush_cpu(etl_writer *w, unsigned cpu, int64_t ts, etl_error *err);

etl_status etl_writer_flush_cpu_in(etl_writer *w, uint16_t logger_id, unsigned cpu, int64_t ts,
                                   etl_error *err);

/* Would a record of `len` bytes go into the open buffer of `cpu` without writing it out first? */
bool etl_writer_fits(const etl_writer *w, unsigned cpu, size_t len);
bool etl_writer_fits_in(const etl_writer *w, uint16_t logger_id, unsigned cpu, size_t len);
/* Write out every open buffer now (logger ids in first-use order, CPUs in order), stamped `ts`: a writer merging several traces in
 * time order does this whenever one buffer fills, so no buffer holding old records lands late in
 * the file (beyond a reader's merge window). */
etl_status etl_writer_flush_all(etl_writer *w, int64_t ts, etl_error *err);

/* Flush every open buffer (CPU order) and rewrite the HEADER buffer with the final logfile
 * facts.  `final` may be NULL. */
etl_status etl_writer_close(etl_writer *w, const etl_write_final *final, etl_error *err);
void etl_writer_free(etl_writer *w);

const etl_write_stats *etl_writer_stats(const etl_writer *w);
/* Largest record timestamp given so far (the header record's before any). */
int64_t etl_writer_now(const etl_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* ETL_WRITE_H */
