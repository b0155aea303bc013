/* writer.c - the buffer and record layout of a written .etl file (etl_write.h): the HEADER
 * buffer, one open buffer per CPU (per logger id), alignment, 0xFF slack, optional compression and the final
 * logfile facts.  Record contents are the caller's: the generator (tests/etlgen) builds them,
 * the relogger (cli/write_out.c, the Wireshark writer) copies them from a trace. */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L /* fseeko, also when built without GNU extensions (etlgen alone) */

#include "etl_write.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "bytes.h"
#include "error.h"
#include "layout.h"

/* Values written (etw-formats.md 1.1). */
#define BUFFER_TYPE_GENERIC 0u
#define BUFFER_TYPE_HEADER 4u
#define BUFFER_STATE_FLUSH 3u
/* WMI_BUFFER_HEADER.CurrentOffset: the reader does not use it, Windows writes SavedOffset. */
#define WMI_BUFFER_HEADER_OFF_CURRENT_OFFSET 0x08u
/* Real compressed files round the shrunk HEADER buffer up to this. */
#define SHRUNK_BUFFER_ALIGN 0x200u
/* HookId of the logfile header record: group HEADER, type INFO. */
#define LOGFILE_HOOK_ID 0x0000u

typedef struct cpu_buffer {
    uint8_t *data; /* buffer_size bytes; [0, 0x48) filled at flush time */
    uint32_t used; /* bytes used, header included */
} cpu_buffer;

/* The open buffers of one logger id (a merge writes each input's records under its own). */
typedef struct lane {
    uint16_t logger_id;
    cpu_buffer *cpus; /* cfg.max_cpus entries, data allocated on first use */
} lane;

struct etl_writer {
    etl_write_config cfg;
    etl_write_sink sink;
    uint64_t file_off;   /* where the next buffer goes */
    uint8_t *header_buf; /* the HEADER buffer, rewritten on close */
    uint32_t header_buf_size;
    uint32_t logfile_off; /* TRACE_LOGFILE_HEADER inside header_buf */
    lane lanes[ETL_WRITE_MAX_LOGGERS]; /* lanes[0]: cfg.logger_id */
    uint32_t n_lanes;
    uint8_t *zbuf;        /* compressed buffer image */
    size_t zcap;
    int64_t sequence;     /* last SequenceNumber given */
    int64_t now;          /* largest timestamp seen */
    etl_status status;    /* first fatal error */
    etl_error status_err;
    bool closed;
    etl_write_stats stats;
};

/* ---- sinks ---------------------------------------------------------------------------------- */

static int file_write(void *ctx, uint64_t off, const void *data, size_t len)
{
    etl_write_file *st = ctx;
    FILE *f = st->f;
    if (off != st->pos) {
        if (off > (uint64_t)LLONG_MAX || fseeko(f, (off_t)off, SEEK_SET) != 0)
            return -1;
        st->pos = off;
    }
    if (len && fwrite(data, 1, len, f) != len)
        return -1;
    st->pos += len;
    return 0;
}

etl_write_sink etl_write_file_sink(etl_write_file *state, void *stdio_file)
{
    state->f = stdio_file;
    state->pos = 0;
    return (etl_write_sink){ file_write, state };
}

/* ---- output --------------------------------------------------------------------------------- */

/* A fatal error: remembered, and returned by every later call. */
static etl_status fatal(etl_writer *w, etl_error *err, etl_status code, uint64_t off, const char *what)
{
    w->status = code;
    etl_fail(&w->status_err, code, off, "%s", what);
    if (err)
        *err = w->status_err;
    return code;
}

static etl_status sink_write(etl_writer *w, uint64_t off, const void *data, size_t len, etl_error *err)
{
    if (w->sink.write_at(w->sink.ctx, off, data, len) != 0)
        return fatal(w, err, ETL_ERR_IO, off, "writing the output failed");
    if (off + len > w->stats.file_size)
        w->stats.file_size = off + len;
    return ETL_OK;
}

static void fill_buffer_header(uint8_t *h, uint32_t buffer_size, uint32_t used, int64_t ts, int64_t seq,
                               unsigned cpu, uint16_t logger_id, uint16_t flags, uint16_t type)
{
    memset(h, 0, ETL_BUFFER_HEADER_SIZE);
    etl_st32(h + WMI_BUFFER_HEADER_OFF_BUFFER_SIZE, buffer_size);
    etl_st32(h + WMI_BUFFER_HEADER_OFF_SAVED_OFFSET, used);
    etl_st32(h + WMI_BUFFER_HEADER_OFF_CURRENT_OFFSET, used);
    etl_st64(h + WMI_BUFFER_HEADER_OFF_TIMESTAMP, (uint64_t)ts);
    etl_st64(h + WMI_BUFFER_HEADER_OFF_SEQUENCE, (uint64_t)seq);
    etl_st16(h + WMI_BUFFER_HEADER_OFF_PROCESSOR, (uint16_t)cpu); /* ProcessorIndex (PROC_INDEX) */
    etl_st16(h + WMI_BUFFER_HEADER_OFF_LOGGER_ID, logger_id);
    etl_st32(h + WMI_BUFFER_HEADER_OFF_STATE, BUFFER_STATE_FLUSH);
    etl_st32(h + WMI_BUFFER_HEADER_OFF_FILLED, used);
    etl_st16(h + WMI_BUFFER_HEADER_OFF_FLAGS, flags);
    etl_st16(h + WMI_BUFFER_HEADER_OFF_TYPE, type);
}

static uint32_t shrunk_size(uint32_t used, uint32_t buffer_size)
{
    uint32_t s = (used + SHRUNK_BUFFER_ALIGN - 1) / SHRUNK_BUFFER_ALIGN * SHRUNK_BUFFER_ALIGN;
    return s < buffer_size ? s : buffer_size;
}

/* Write out one CPU buffer; `final` marks the buffers flushed when the session stops. */
static etl_status flush_buffer(etl_writer *w, const lane *ln, unsigned cpu, int64_t ts, bool final, etl_error *err)
{
    cpu_buffer *b = &ln->cpus[cpu];
    uint32_t bsize = w->cfg.buffer_size;
    if (b->data == NULL || b->used == ETL_BUFFER_HEADER_SIZE)
        return ETL_OK;
    uint16_t flags = ETL_BF_PROC_INDEX | (final ? ETL_BF_FLUSH_MARKER : 0);
    int64_t seq = ++w->sequence;
    const uint8_t *image = b->data;
    uint32_t size = bsize;

    if (w->cfg.compress) {
        uint32_t raw = b->used - ETL_BUFFER_HEADER_SIZE;
        size_t z = w->cfg.compress(w->cfg.compress_ctx, b->data + ETL_BUFFER_HEADER_SIZE, raw,
                                   w->zbuf + ETL_BUFFER_HEADER_SIZE, w->zcap - ETL_BUFFER_HEADER_SIZE);
        if (z != 0 && z < raw) {
            size = ETL_BUFFER_HEADER_SIZE + (uint32_t)z;
            fill_buffer_header(w->zbuf, size, b->used, ts, seq, cpu, ln->logger_id,
                               flags | ETL_BF_COMPRESSED, BUFFER_TYPE_GENERIC);
            image = w->zbuf;
            w->stats.compressed_buffers++;
        } else {
            /* Readers bound compressed data by min(BufferSize, Offset), so a stream longer than
             * its input could not be read back: such a buffer is stored plainly. */
            size = shrunk_size(b->used, bsize);
        }
    }
    if (image == b->data) {
        fill_buffer_header(b->data, size, b->used, ts, seq, cpu, ln->logger_id, flags, BUFFER_TYPE_GENERIC);
        memset(b->data + b->used, 0xFF, size - b->used);
    }
    etl_status st = sink_write(w, w->file_off, image, size, err);
    if (st != ETL_OK)
        return st;
    w->file_off += size;
    w->stats.buffers++;
    b->used = ETL_BUFFER_HEADER_SIZE;
    return ETL_OK;
}

static bool usable(const etl_writer *w, etl_error *err)
{
    if (w->status != ETL_OK) {
        if (err)
            *err = w->status_err;
        return false;
    }
    if (w->closed) {
        etl_fail(err, ETL_ERR_ARG, w->file_off, "the writer is closed");
        return false;
    }
    return true;
}

static etl_status status_of(const etl_writer *w)
{
    return w->status != ETL_OK ? w->status : ETL_ERR_ARG;
}

/* The lane of a logger id; created on first use when `create`.  NULL when absent, or (creating)
 * past ETL_WRITE_MAX_LOGGERS or out of memory (fatal). */
static lane *lane_of(etl_writer *w, uint16_t logger_id, bool create, etl_error *err)
{
    for (uint32_t i = 0; i < w->n_lanes; i++)
        if (w->lanes[i].logger_id == logger_id)
            return &w->lanes[i];
    if (!create)
        return NULL;
    if (w->n_lanes == ETL_WRITE_MAX_LOGGERS) {
        etl_fail(err, ETL_ERR_ARG, w->file_off, "more than %u logger ids in one file", ETL_WRITE_MAX_LOGGERS);
        return NULL;
    }
    lane *ln = &w->lanes[w->n_lanes];
    ln->cpus = calloc(w->cfg.max_cpus, sizeof *ln->cpus);
    if (ln->cpus == NULL) {
        fatal(w, err, ETL_ERR_NOMEM, w->file_off, "out of memory for a logger's buffers");
        return NULL;
    }
    ln->logger_id = logger_id;
    w->n_lanes++;
    return ln;
}

/* The buffer of `cpu` in a lane, allocated on first use. */
static cpu_buffer *cpu_buffer_of(etl_writer *w, lane *ln, unsigned cpu, etl_error *err)
{
    if (cpu >= w->cfg.max_cpus) {
        etl_fail(err, ETL_ERR_ARG, w->file_off, "processor %u is not below the writer's %u", cpu,
                 (unsigned)w->cfg.max_cpus);
        return NULL;
    }
    cpu_buffer *b = &ln->cpus[cpu];
    if (b->data == NULL) {
        b->data = malloc(w->cfg.buffer_size);
        if (b->data == NULL) {
            fatal(w, err, ETL_ERR_NOMEM, w->file_off, "out of memory for a processor's buffer");
            return NULL;
        }
        b->used = ETL_BUFFER_HEADER_SIZE;
    }
    return b;
}

etl_status etl_writer_add(etl_writer *w, unsigned cpu, const uint8_t *record, size_t len, bool has_ts,
                          int64_t ts, etl_error *err)
{
    return etl_writer_add_in(w, w ? w->cfg.logger_id : 0, cpu, record, len, has_ts, ts, err);
}

etl_status etl_writer_add_in(etl_writer *w, uint16_t logger_id, unsigned cpu, const uint8_t *record, size_t len,
                             bool has_ts, int64_t ts, etl_error *err)
{
    if (w == NULL || record == NULL)
        return etl_fail(err, ETL_ERR_ARG, 0, "no writer or no record");
    if (!usable(w, err))
        return status_of(w);
    size_t aligned = (len + 7) & ~(size_t)7;
    if (len < ETL_MARKER_SIZE * 2 || len > ETL_WRITE_MAX_RECORD ||
        aligned > w->cfg.buffer_size - ETL_BUFFER_HEADER_SIZE) {
        /* Windows drops an event that cannot fit one buffer and counts it as lost. */
        w->stats.dropped++;
        return etl_fail(err, ETL_ERR_LIMIT, w->file_off,
                        "a record of %zu bytes does not fit a buffer of %u bytes", len,
                        (unsigned)w->cfg.buffer_size);
    }
    lane *ln = lane_of(w, logger_id, true, err);
    cpu_buffer *b = ln ? cpu_buffer_of(w, ln, cpu, err) : NULL;
    if (b == NULL)
        return w->status != ETL_OK ? w->status : ETL_ERR_ARG;
    if (has_ts && ts > w->now)
        w->now = ts;
    if (aligned > w->cfg.buffer_size - b->used) {
        etl_status st = flush_buffer(w, ln, cpu, w->now, false, err);
        if (st != ETL_OK)
            return st;
    }
    memcpy(b->data + b->used, record, len);
    memset(b->data + b->used + len, 0, aligned - len);
    b->used += (uint32_t)aligned;
    w->stats.records++;
    return ETL_OK;
}

etl_status etl_writer_flush_cpu(etl_writer *w, unsigned cpu, int64_t ts, etl_error *err)
{
    return etl_writer_flush_cpu_in(w, w ? w->cfg.logger_id : 0, cpu, ts, err);
}

etl_status etl_writer_flush_cpu_in(etl_writer *w, uint16_t logger_id, unsigned cpu, int64_t ts, etl_error *err)
{
    if (w == NULL)
        return etl_fail(err, ETL_ERR_ARG, 0, "no writer");
    if (!usable(w, err))
        return status_of(w);
    if (cpu >= w->cfg.max_cpus)
        return etl_fail(err, ETL_ERR_ARG, w->file_off, "processor %u is not below the writer's %u", cpu,
                        (unsigned)w->cfg.max_cpus);
    if (ts > w->now)
        w->now = ts;
    const lane *ln = lane_of(w, logger_id, false, NULL);
    return ln ? flush_buffer(w, ln, cpu, ts, false, err) : ETL_OK;
}

bool etl_writer_fits(const etl_writer *w, unsigned cpu, size_t len)
{
    return etl_writer_fits_in(w, w ? w->cfg.logger_id : 0, cpu, len);
}

bool etl_writer_fits_in(const etl_writer *w, uint16_t logger_id, unsigned cpu, size_t len)
{
    if (w == NULL || cpu >= w->cfg.max_cpus)
        return false;
    const lane *ln = lane_of((etl_writer *)w, logger_id, false, NULL);
    const cpu_buffer *b = ln ? &ln->cpus[cpu] : NULL;
    uint32_t used = b && b->data ? b->used : ETL_BUFFER_HEADER_SIZE;
    return ((len + 7) & ~(size_t)7) <= w->cfg.buffer_size - used;
}

etl_status etl_writer_flush_all(etl_writer *w, int64_t ts, etl_error *err)
{
    if (w == NULL)
        return etl_fail(err, ETL_ERR_ARG, 0, "no writer");
    if (!usable(w, err))
        return status_of(w);
    if (ts > w->now)
        w->now = ts;
    for (uint32_t i = 0; i < w->n_lanes; i++)
        for (uint32_t cpu = 0; cpu < w->cfg.max_cpus; cpu++) {
            etl_status st = flush_buffer(w, &w->lanes[i], cpu, ts, false, err);
            if (st != ETL_OK)
                return st;
        }
    return ETL_OK;
}

/* ---- the HEADER buffer ---------------------------------------------------------------------- */

static etl_status check_header_record(const etl_write_config *cfg, const uint8_t *rec, size_t len,
                                      etl_error *err)
{
    if (rec == NULL || len < SYSTEM_TRACE_HEADER_SIZE)
        return etl_fail(err, ETL_ERR_ARG, 0, "the logfile header record is missing or shorter than its trace header");
    uint32_t marker = etl_ld32(rec);
    unsigned type = etl_marker_header_type(marker);
    if (!etl_marker_is_typed(marker) || (type != ETL_HT_SYSTEM32 && type != ETL_HT_SYSTEM64))
        return etl_fail(err, ETL_ERR_ARG, 0, "the logfile header record is not a SYSTEM trace header (marker 0x%08x)",
                        (unsigned)marker);
    if (etl_ld16(rec + SYSTEM_TRACE_HEADER_OFF_HOOK_ID) != LOGFILE_HOOK_ID)
        return etl_fail(err, ETL_ERR_ARG, SYSTEM_TRACE_HEADER_OFF_HOOK_ID, "the logfile header record's hook is not 0x0000");
    if (etl_ld16(rec + SYSTEM_TRACE_HEADER_OFF_SIZE) != len)
        return etl_fail(err, ETL_ERR_ARG, SYSTEM_TRACE_HEADER_OFF_SIZE,
                        "the logfile header record's Size %u is not its length %zu",
                        (unsigned)etl_ld16(rec + SYSTEM_TRACE_HEADER_OFF_SIZE), len);
    /* The reader puts a PEBS index and PMC counters the version word announces between the
     * trace header and the payload (record.c); the TRACE_LOGFILE_HEADER is then not where the
     * writer patches it.  A logfile header has none (fuzz.write found one that did). */
    uint16_t ver = etl_ld16(rec + SYSTEM_TRACE_HEADER_OFF_VERSION);
    if (ver & (TRACE_HEADER_PEBS_INDEX_FLAG | TRACE_HEADER_PMC_COUNTERS_MASK))
        return etl_fail(err, ETL_ERR_ARG, SYSTEM_TRACE_HEADER_OFF_VERSION,
                        "the logfile header record carries PEBS/PMC items (version word 0x%04x)", (unsigned)ver);
    size_t lf_size = TRACE_LOGFILE_HEADER_SIZE + (type == ETL_HT_SYSTEM64 ? TRACE_LOGFILE_HEADER_POINTER_SHIFT : 0);
    if (len - SYSTEM_TRACE_HEADER_SIZE < lf_size)
        return etl_fail(err, ETL_ERR_ARG, SYSTEM_TRACE_HEADER_SIZE,
                        "the logfile header record is too short for its TRACE_LOGFILE_HEADER (%zu bytes)", lf_size);
    uint32_t bs = etl_ld32(rec + SYSTEM_TRACE_HEADER_SIZE + TRACE_LOGFILE_HEADER_OFF_BUFFER_SIZE);
    if (bs != cfg->buffer_size)
        return etl_fail(err, ETL_ERR_ARG, SYSTEM_TRACE_HEADER_SIZE + TRACE_LOGFILE_HEADER_OFF_BUFFER_SIZE,
                        "the logfile header's BufferSize %u is not the writer's %u", (unsigned)bs,
                        (unsigned)cfg->buffer_size);
    if (ETL_BUFFER_HEADER_SIZE + etl_align8((uint32_t)len) > cfg->buffer_size)
        return etl_fail(err, ETL_ERR_ARG, 0, "the logfile header record does not fit a buffer");
    return ETL_OK;
}

static etl_status build_header_buffer(etl_writer *w, const uint8_t *rec, size_t len)
{
    uint32_t used = ETL_BUFFER_HEADER_SIZE + etl_align8((uint32_t)len);
    memcpy(w->header_buf + ETL_BUFFER_HEADER_SIZE, rec, len);
    memset(w->header_buf + ETL_BUFFER_HEADER_SIZE + len, 0, used - ETL_BUFFER_HEADER_SIZE - len);
    w->logfile_off = ETL_BUFFER_HEADER_SIZE + SYSTEM_TRACE_HEADER_SIZE;
    w->header_buf_size = w->cfg.compress ? shrunk_size(used, w->cfg.buffer_size) : w->cfg.buffer_size;
    memset(w->header_buf + used, 0xFF, w->header_buf_size - used);
    /* Real files give the HEADER buffer SequenceNumber 0 and TimeStamp 0; PROC_INDEX is absent
     * in relogged (compressed) files and present in live Windows 10 sessions. */
    fill_buffer_header(w->header_buf, w->header_buf_size, used, 0, 0, 0, w->cfg.logger_id,
                       ETL_BF_FLUSH_MARKER | (w->cfg.compress ? 0 : ETL_BF_PROC_INDEX), BUFFER_TYPE_HEADER);
    return ETL_OK;
}

/* ---- lifecycle ------------------------------------------------------------------------------ */

etl_status etl_writer_open(const etl_write_config *cfg_in, etl_write_sink sink, const uint8_t *header_record,
                           size_t len, etl_writer **out, etl_error *err)
{
    if (out == NULL || cfg_in == NULL || sink.write_at == NULL)
        return etl_fail(err, ETL_ERR_ARG, 0, "no config, sink or result");
    *out = NULL;
    etl_write_config cfg = *cfg_in;
    if (cfg.max_cpus == 0)
        cfg.max_cpus = ETL_WRITE_MAX_CPUS;
    if (cfg.buffer_size % 8 || cfg.buffer_size < ETL_WRITE_MIN_BUFFER_SIZE || cfg.buffer_size > ETL_MAX_BUFFER_SIZE)
        return etl_fail(err, ETL_ERR_ARG, 0, "buffer size %u is not a multiple of 8 from %u to %u",
                        (unsigned)cfg.buffer_size, ETL_WRITE_MIN_BUFFER_SIZE, ETL_MAX_BUFFER_SIZE);
    if (cfg.max_cpus > ETL_WRITE_MAX_CPUS)
        return etl_fail(err, ETL_ERR_ARG, 0, "more than %u processors", ETL_WRITE_MAX_CPUS);
    if (cfg.compress && cfg.compress_bound == 0)
        return etl_fail(err, ETL_ERR_ARG, 0, "a compressor needs its output bound");
    etl_status st = check_header_record(&cfg, header_record, len, err);
    if (st != ETL_OK)
        return st;
    etl_writer *w = calloc(1, sizeof *w);
    if (w == NULL)
        return etl_fail(err, ETL_ERR_NOMEM, 0, "out of memory for the writer");
    w->cfg = cfg;
    w->sink = sink;
    w->now = (int64_t)etl_ld64(header_record + SYSTEM_TRACE_HEADER_OFF_SYSTEM_TIME);
    w->header_buf = malloc(cfg.buffer_size);
    if (cfg.compress) {
        w->zcap = ETL_BUFFER_HEADER_SIZE + cfg.compress_bound;
        w->zbuf = malloc(w->zcap);
    }
    if (!w->header_buf || (cfg.compress && !w->zbuf) || !lane_of(w, cfg.logger_id, true, NULL)) {
        etl_writer_free(w);
        return etl_fail(err, ETL_ERR_NOMEM, 0, "out of memory for the writer's buffers");
    }
    build_header_buffer(w, header_record, len);
    st = sink_write(w, 0, w->header_buf, w->header_buf_size, err);
    if (st != ETL_OK) {
        etl_writer_free(w);
        return st;
    }
    w->file_off = w->header_buf_size;
    w->stats.buffers = 1;
    w->stats.records = 1;
    *out = w;
    return ETL_OK;
}

etl_status etl_writer_close(etl_writer *w, const etl_write_final *final, etl_error *err)
{
    if (w == NULL)
        return etl_fail(err, ETL_ERR_ARG, 0, "no writer");
    if (w->closed && w->status == ETL_OK)
        return ETL_OK;
    if (!usable(w, err))
        return status_of(w);
    for (uint32_t i = 0; i < w->n_lanes; i++)
        for (uint32_t cpu = 0; cpu < w->cfg.max_cpus; cpu++) {
            etl_status st = flush_buffer(w, &w->lanes[i], cpu, w->now, true, err);
            if (st != ETL_OK)
                return st;
        }
    uint8_t *lf = w->header_buf + w->logfile_off;
    if (final && final->set_end_time)
        etl_st64(lf + TRACE_LOGFILE_HEADER_OFF_END_TIME, (uint64_t)final->end_time);
    etl_st32(lf + TRACE_LOGFILE_HEADER_OFF_BUFFERS_WRITTEN,
         w->stats.buffers > UINT32_MAX ? UINT32_MAX : (uint32_t)w->stats.buffers);
    if (final && final->set_events_lost)
        etl_st32(lf + TRACE_LOGFILE_HEADER_OFF_EVENTS_LOST, final->events_lost);
    etl_status st = sink_write(w, 0, w->header_buf, w->header_buf_size, err);
    w->closed = true;
    return st;
}

void etl_writer_free(etl_writer *w)
{
    if (w == NULL)
        return;
    for (uint32_t l = 0; l < w->n_lanes; l++) {
        for (uint32_t i = 0; i < w->cfg.max_cpus; i++)
            free(w->lanes[l].cpus[i].data);
        free(w->lanes[l].cpus);
    }
    free(w->header_buf);
    free(w->zbuf);
    free(w);
}

const etl_write_stats *etl_writer_stats(const etl_writer *w)
{
    return &w->stats;
}

int64_t etl_writer_now(const etl_writer *w)
{
    return w->now;
}
