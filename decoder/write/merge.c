/* merge.c - several traces as one .etl on one UTC timeline (etl_relog.h etl_merge).
 * GLib family (keep.h, procs.h).
 *
 * Each input's records go into buffers of logger ids no other input has (assign_loggers): the
 * reader's process context keeps the processes of each logger id apart (procs.h), so two
 * machines' pid 4, or one pid in two traces, keep their own names in the merged file. */
#include "etl_relog.h"

#include <inttypes.h>
#include <string.h>

#include <glib.h>

#include "bytes.h"
#include "error.h"
#include "keep.h"
#include "layout.h"
#include "prescan.h"
#include "procs.h"
#include "registry.h"
#include "resolve.h"

/* Traces merged at once. */
#define ETL_MERGE_MAX_INPUTS 64u
/* FILETIME clock of the output (format doc 4). */
#define FILETIME_FREQ 10000000

typedef struct input {
    const etl_merge_input *in;
    etl_decoder *dec;
    etl_procs *procs;
    etl_keep *keep;
    uint8_t header[ETL_WRITE_MAX_RECORD];
    size_t header_len;
    etl_reader *r; /* the merge pass, timestamp order */
    etl_record rec;
    bool has_rec;
    int64_t key;   /* FILETIME of rec, or the last one seen for records without a time */
    /* the input's buffer logger ids (first seen first) and the output's id for each: every
     * input keeps ids apart from the others' (procs.h: a logger id is a trace's own processes) */
    uint16_t loggers[ETL_WRITE_MAX_LOGGERS], out_logger[ETL_WRITE_MAX_LOGGERS];
    uint32_t n_loggers;
    uint16_t header_logger;
} input;

/* Note a logger id of an input; false past ETL_WRITE_MAX_LOGGERS. */
static bool note_logger(input *x, uint16_t id)
{
    for (uint32_t i = 0; i < x->n_loggers; i++)
        if (x->loggers[i] == id)
            return true;
    if (x->n_loggers == ETL_WRITE_MAX_LOGGERS)
        return false;
    x->loggers[x->n_loggers++] = id;
    return true;
}

/* The output's logger id of an input's record. */
static uint16_t out_logger_of(const input *x, uint16_t id)
{
    for (uint32_t i = 0; i < x->n_loggers; i++)
        if (x->loggers[i] == id)
            return x->out_logger[i];
    return x->n_loggers ? x->out_logger[0] : id;
}

/* Output logger ids: an input's own where no earlier input took it, else the lowest free one
 * from 1, so no two inputs share one (two relogged traces both have 0) and a merge of merges
 * keeps its inputs apart. */
static etl_status assign_loggers(input *xs, size_t n, etl_error *err)
{
    uint32_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += xs[i].n_loggers;
    if (total > ETL_WRITE_MAX_LOGGERS)
        return etl_fail(err, ETL_ERR_LIMIT, 0, "the traces have more than %u logger ids together",
                        ETL_WRITE_MAX_LOGGERS);
    bool *taken = g_new0(bool, UINT16_MAX + 1);
    for (size_t i = 0; i < n; i++) {
        for (uint32_t j = 0; j < xs[i].n_loggers; j++) {
            uint32_t id = xs[i].loggers[j];
            if (taken[id])
                for (id = 1; taken[id]; id++)
                    ;
            taken[id] = true;
            xs[i].out_logger[j] = (uint16_t)id;
        }
    }
    g_free(taken);
    return ETL_OK;
}

/* Pass 1 of one input: prescan, select in time order, keep context, copy the logfile header. */
static etl_status select_input(input *x, etl_error *err)
{
    etl_observer obs[2] = { etl_registry_observer(etl_decoder_registry(x->dec)), etl_procs_observer(x->procs) };
    etl_status st = etl_prescan_file(x->in->path, obs, 2, err);
    if (st != ETL_OK)
        return st;
    etl_reader *r;
    if ((st = etl_reader_open_file(x->in->path, NULL, &r, err)) != ETL_OK)
        return st;
    uint64_t number = 0;
    etl_record rec;
    while ((st = etl_reader_next(r, &rec, err)) == ETL_OK) {
        etl_proc_info pi;
        bool have = etl_procs_lookup(x->procs, &rec, &pi);
        bool sel = x->in->select == NULL || x->in->select(x->in->select_ctx, &rec, number, have ? &pi : NULL);
        number++;
        if (rec.is_logfile_header && x->header_len == 0 && rec.size <= sizeof x->header) {
            memcpy(x->header, rec.bytes, rec.size);
            x->header_len = rec.size;
            x->header_logger = rec.logger_id;
        }
        etl_keep_observe(x->keep, &rec, sel);
        if (!note_logger(x, rec.logger_id)) {
            etl_reader_close(r);
            return etl_fail(err, ETL_ERR_LIMIT, rec.buffer_offset, "%s: more than %u logger ids", x->in->path,
                            ETL_WRITE_MAX_LOGGERS);
        }
    }
    etl_reader_close(r);
    if (st != ETL_END)
        return st;
    if (x->header_len < SYSTEM_TRACE_HEADER_SIZE + TRACE_LOGFILE_HEADER_SIZE + TRACE_LOGFILE_HEADER_POINTER_SHIFT)
        return etl_fail(err, ETL_ERR_NOT_FOUND, 0, "%s: no logfile header record", x->in->path);
    return ETL_OK;
}

/* Offset of a TRACE_LOGFILE_HEADER field in a header record (32- or 64-bit form). */
static size_t lf_off(const uint8_t *header, size_t field)
{
    bool is64 = etl_marker_header_type(etl_ld32(header)) == ETL_HT_SYSTEM64;
    size_t shift = field >= TRACE_LOGFILE_HEADER_OFF_TIME_ZONE && is64 ? TRACE_LOGFILE_HEADER_POINTER_SHIFT : 0;
    return SYSTEM_TRACE_HEADER_SIZE + field + shift;
}

static void next_of(input *x)
{
    etl_error e;
    x->has_rec = x->r && etl_reader_next(x->r, &x->rec, &e) == ETL_OK;
    if (x->has_rec && x->rec.has_timestamp)
        x->key = x->rec.timestamp;
}

/* Rewrite a record's timestamps as FILETIMEs (the output's system-time clock). */
static bool convert_record(const input *x, const etl_record *rec, uint8_t *out)
{
    memcpy(out, rec->bytes, rec->size);
    if (rec->has_timestamp) {
        size_t at;
        switch (etl_header_family(rec->header_type)) {
        case ETL_FAMILY_SYSTEM:
            at = rec->header_type == ETL_HT_PERFINFO32 || rec->header_type == ETL_HT_PERFINFO64
                     ? PERFINFO_TRACE_HEADER_OFF_SYSTEM_TIME : SYSTEM_TRACE_HEADER_OFF_SYSTEM_TIME;
            break;
        case ETL_FAMILY_FULL: case ETL_FAMILY_EVENT:
            at = ETL_TRACE_HEADER_OFF_TIMESTAMP;
            break;
        case ETL_FAMILY_MESSAGE: {
            unsigned f = rec->message_flags;
            at = MESSAGE_TRACE_HEADER_SIZE + ((f & TRACE_MESSAGE_SEQUENCE) ? TRACE_MESSAGE_SEQUENCE_SIZE : 0);
            if (f & TRACE_MESSAGE_COMPONENTID)
                at += TRACE_MESSAGE_COMPONENTID_SIZE;
            else if (f & TRACE_MESSAGE_GUID)
                at += TRACE_MESSAGE_GUID_SIZE;
            break;
        }
        default:
            return false; /* a time the writer cannot place: not written */
        }
        if (!etl_span_ok(rec->size, at, 8))
            return false;
        etl_st64(out + at, (uint64_t)rec->timestamp);
    }
    /* A stack walk names its event by the event's raw timestamp: convert it the same way. */
    if (etl_record_is_stackwalk(rec) && rec->payload_size >= 8) {
        int64_t raw = (int64_t)etl_ld64(rec->bytes + rec->payload_offset), ft;
        if (etl_reader_convert_time(x->r, raw, &ft))
            etl_st64(out + rec->payload_offset, (uint64_t)ft);
    }
    return true;
}

static etl_status merge_run(input *xs, size_t n, etl_write_sink sink, etl_relog_stats *stats, etl_error *err)
{
    for (size_t i = 0; i < n; i++) {
        etl_status st = select_input(&xs[i], err);
        if (st != ETL_OK)
            return st;
    }
    /* The output's logfile header: the first input's, on the system-time clock. */
    uint8_t *h = xs[0].header;
    uint32_t bsize = 0, ptr = 0, cpus = 0;
    int64_t start = INT64_MAX, end = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *hi = xs[i].header;
        bsize = MAX(bsize, etl_ld32(hi + lf_off(hi, TRACE_LOGFILE_HEADER_OFF_BUFFER_SIZE)));
        ptr = MAX(ptr, etl_ld32(hi + lf_off(hi, TRACE_LOGFILE_HEADER_OFF_POINTER_SIZE)));
        cpus = MAX(cpus, etl_ld32(hi + lf_off(hi, TRACE_LOGFILE_HEADER_OFF_PROCESSORS)));
        start = MIN(start, (int64_t)etl_ld64(hi + lf_off(hi, TRACE_LOGFILE_HEADER_OFF_START_TIME)));
        end = MAX(end, (int64_t)etl_ld64(hi + lf_off(hi, TRACE_LOGFILE_HEADER_OFF_END_TIME)));
    }
    etl_st32(h + lf_off(h, TRACE_LOGFILE_HEADER_OFF_BUFFER_SIZE), bsize);
    etl_st32(h + lf_off(h, TRACE_LOGFILE_HEADER_OFF_POINTER_SIZE), ptr);
    etl_st32(h + lf_off(h, TRACE_LOGFILE_HEADER_OFF_PROCESSORS), cpus);
    etl_st64(h + lf_off(h, TRACE_LOGFILE_HEADER_OFF_START_TIME), (uint64_t)start);
    etl_st64(h + lf_off(h, TRACE_LOGFILE_HEADER_OFF_END_TIME), (uint64_t)end);
    etl_st64(h + lf_off(h, TRACE_LOGFILE_HEADER_OFF_PERF_FREQ), FILETIME_FREQ);
    etl_st32(h + lf_off(h, TRACE_LOGFILE_HEADER_OFF_RESERVED_FLAGS), ETL_CLOCK_SYSTEM_TIME);
    uint32_t mode = etl_ld32(h + lf_off(h, TRACE_LOGFILE_HEADER_OFF_LOG_FILE_MODE)) & ~EVENT_TRACE_COMPRESSED_MODE;
    etl_st32(h + lf_off(h, TRACE_LOGFILE_HEADER_OFF_LOG_FILE_MODE), mode);
    /* the anchor: header time = StartTime, so FILETIME = raw */
    etl_st64(h + SYSTEM_TRACE_HEADER_OFF_SYSTEM_TIME, (uint64_t)start);

    etl_status st = assign_loggers(xs, n, err);
    if (st != ETL_OK)
        return st;
    etl_write_config cfg = { .buffer_size = bsize, .logger_id = out_logger_of(&xs[0], xs[0].header_logger) };
    etl_writer *w;
    st = etl_writer_open(&cfg, sink, h, xs[0].header_len, &w, err);
    if (st != ETL_OK)
        return st;
    for (size_t i = 0; i < n && st == ETL_OK; i++) {
        st = etl_reader_open_file(xs[i].in->path, NULL, &xs[i].r, err);
        xs[i].key = INT64_MIN;
        if (st == ETL_OK)
            next_of(&xs[i]);
    }
    static uint8_t buf[ETL_WRITE_MAX_RECORD];
    while (st == ETL_OK) {
        input *best = NULL;
        for (size_t i = 0; i < n; i++)
            if (xs[i].has_rec && (best == NULL || xs[i].key < best->key))
                best = &xs[i];
        if (best == NULL)
            break;
        const etl_record *rec = &best->rec;
        bool keep = etl_keep_has(best->keep, rec->position) && !etl_record_problem(rec, NULL, NULL) &&
                    !(best == &xs[0] && rec->is_logfile_header);
        uint16_t logger = out_logger_of(best, rec->logger_id);
        if (keep && convert_record(best, rec, buf)) {
            if (!etl_writer_fits_in(w, logger, rec->cpu, rec->size))
                st = etl_writer_flush_all(w, rec->has_timestamp ? rec->timestamp : best->key, err);
            if (st == ETL_OK) {
                st = etl_writer_add_in(w, logger, rec->cpu, buf, rec->size, rec->has_timestamp, rec->timestamp, err);
                if (st == ETL_ERR_LIMIT) {
                    stats->skipped++;
                    st = ETL_OK;
                }
            }
        } else if (keep) {
            stats->skipped++;
        }
        next_of(best);
    }
    if (st == ETL_OK)
        st = etl_writer_close(w, NULL, err);
    const etl_write_stats *ws = etl_writer_stats(w);
    stats->records = ws->records;
    stats->buffers = ws->buffers;
    stats->bytes = ws->file_size;
    for (size_t i = 0; i < n; i++) {
        stats->selected += etl_keep_get_stats(xs[i].keep)->selected;
        stats->damaged += xs[i].r ? etl_reader_stats(xs[i].r)->problems : 0;
    }
    etl_writer_free(w);
    return st;
}

etl_status etl_merge(const etl_merge_input *in, size_t n, etl_write_sink sink, etl_relog_report_fn report,
                     void *report_ctx, etl_relog_stats *stats, etl_error *err)
{
    etl_relog_stats ignored;
    (void)report;
    (void)report_ctx;
    if (in == NULL || n == 0 || n > ETL_MERGE_MAX_INPUTS || sink.write_at == NULL)
        return etl_fail(err, ETL_ERR_ARG, 0, "from 1 to %u inputs and a sink", ETL_MERGE_MAX_INPUTS);
    stats = stats ? stats : &ignored;
    memset(stats, 0, sizeof *stats);
    input *xs = g_new0(input, n);
    etl_status st = ETL_OK;
    for (size_t i = 0; i < n; i++) {
        xs[i].in = &in[i];
        xs[i].dec = etl_decoder_new(NULL, NULL);
        xs[i].procs = xs[i].dec ? etl_procs_new(etl_decoder_registry(xs[i].dec)) : NULL;
        xs[i].keep = etl_keep_new(xs[i].procs);
        if (!xs[i].dec || !xs[i].procs || !xs[i].keep)
            st = etl_fail(err, ETL_ERR_NOMEM, 0, "out of memory");
    }
    if (st == ETL_OK)
        st = merge_run(xs, n, sink, stats, err);
    for (size_t i = 0; i < n; i++) {
        etl_reader_close(xs[i].r);
        etl_keep_free(xs[i].keep);
        etl_procs_free(xs[i].procs);
        etl_decoder_free(xs[i].dec);
    }
    g_free(xs);
    return st;
}
