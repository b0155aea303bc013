/* relog.c - a selection of a trace written as a new .etl with its context (etl_relog.h).
 * Built on GLib-family modules (the registry, the process table, keep.h): GLib allocation. */
#include "etl_relog.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "bytes.h"
#include "error.h"
#include "etl_format.h"
#include "keep.h"
#include "layout.h"
#include "prescan.h"
#include "procs.h"
#include "registry.h"
#include "resolve.h"

/* Distinct things named per warning kind; the rest are counted. */
#define MAX_WARNED 16

typedef struct warned {
    GHashTable *keys;
    uint64_t total;
} warned;

typedef struct relog {
    const char *in;           /* the input: a file, or */
    const uint8_t *in_data;   /* a trace in memory (in == NULL) */
    size_t in_size;
    const etl_relog_options *opt;
    etl_relog_stats *stats;
    etl_decoder *dec;        /* every source: what the input decodes with */
    etl_decoder *trace_only; /* the trace's own schemas: what the output decodes with */
    etl_procs *procs;
    etl_keep *keep;
    uint8_t header[ETL_WRITE_MAX_RECORD];
    size_t header_len;
    uint16_t header_logger; /* logger id of the buffer holding the logfile header */
    warned unnamed, external;
} relog;

static void report(relog *rl, bool warning, const char *fmt, ...) ETL_PRINTF(3, 4);
static void report(relog *rl, bool warning, const char *fmt, ...)
{
    if (warning)
        rl->stats->warnings++;
    if (rl->opt->report == NULL)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rl->opt->report(rl->opt->report_ctx, warning, msg);
}

/* Count a missing thing; true the first time its key is seen, while fewer than MAX_WARNED are
 * listed. */
static bool warn_once(warned *w, const char *key)
{
    w->total++;
    if (g_hash_table_contains(w->keys, key) || g_hash_table_size(w->keys) == MAX_WARNED)
        return false;
    g_hash_table_add(w->keys, g_strdup(key));
    return true;
}

static void registry_report(void *ctx, etl_registry_severity sev, const char *message)
{
    relog *rl = ctx;
    if (sev == ETL_REGISTRY_ERROR || sev == ETL_REGISTRY_WARNING)
        report(rl, false, "%s", message);
}

/* What the output will lack for one selected record. */
static void check_needs(relog *rl, const etl_record *rec, const etl_proc_info *pi)
{
    if (pi && pi->name == NULL && pi->pid != ETL_NO_ID) {
        char key[16];
        snprintf(key, sizeof key, "%" PRIu32, pi->pid);
        if (warn_once(&rl->unnamed, key))
            report(rl, true, "process %s: no process event in the trace names it", key);
    }
    if (rl->trace_only && etl_header_family(rec->header_type) == ETL_FAMILY_EVENT) {
        etl_resolved a, b;
        etl_decoder_resolve(rl->dec, rec, ETL_RESOLVE_NO_LEARN, &a, NULL);
        if (a.kind == ETL_RESOLVE_MANIFEST && a.schema &&
            etl_decoder_resolve(rl->trace_only, rec, ETL_RESOLVE_NO_LEARN, &b, NULL) == ETL_RESOLVE_SCHEMA_MISSING) {
            char g[ETL_GUID_STR_SIZE], key[64];
            etl_format_guid(&rec->provider, g);
            snprintf(key, sizeof key, "%s id %u", g, (unsigned)rec->event_id);
            if (warn_once(&rl->external, key))
                report(rl, true,
                       "provider %s event %u: its schema is from a manifest file, not the trace: "
                       "the written file decodes it only with the same manifest path",
                       g, (unsigned)rec->event_id);
        }
    }
}

/* The input, read again for each pass. */
static etl_status open_input(const relog *rl, etl_order order, etl_reader **r, etl_error *err)
{
    etl_options o = { .order = order };
    return rl->in ? etl_reader_open_file(rl->in, &o, r, err) : etl_reader_open_memory(rl->in_data, rl->in_size, &o, r, err);
}

/* Pass 1, timestamp order: select, decide the context, copy the logfile header record. */
static etl_status select_pass(relog *rl, etl_error *err)
{
    etl_reader *r;
    etl_status st = open_input(rl, ETL_ORDER_TIME, &r, err);
    if (st != ETL_OK)
        return st;
    etl_record rec;
    uint64_t number = 0;
    while ((st = etl_reader_next(r, &rec, err)) == ETL_OK) {
        etl_proc_info pi;
        bool have_pi = etl_procs_lookup(rl->procs, &rec, &pi);
        bool sel = rl->opt->select == NULL ||
                   rl->opt->select(rl->opt->select_ctx, &rec, number, have_pi ? &pi : NULL);
        number++;
        if (rec.is_logfile_header && rl->header_len == 0 && rec.size <= sizeof rl->header) {
            memcpy(rl->header, rec.bytes, rec.size);
            rl->header_len = rec.size;
            rl->header_logger = rec.logger_id;
        }
        etl_keep_observe(rl->keep, &rec, sel);
        if (sel)
            check_needs(rl, &rec, have_pi ? &pi : NULL);
    }
    etl_reader_close(r);
    if (st != ETL_END)
        return st;
    const etl_keep_stats *ks = etl_keep_get_stats(rl->keep);
    if (ks->traits_missing)
        report(rl, true, "%" PRIu64 " selected events of providers no earlier PROV_TRAITS record names",
               ks->traits_missing);
    if (ks->stack_target_missing)
        report(rl, true, "%" PRIu64 " selected stack walks whose event is not in the trace", ks->stack_target_missing);
    return ETL_OK;
}

/* Pass 2, file order: the kept records, with the input's buffer breaks. */
static etl_status write_pass(relog *rl, etl_writer *w, etl_error *err)
{
    etl_reader *r;
    etl_status st = open_input(rl, ETL_ORDER_FILE, &r, err);
    if (st != ETL_OK)
        return st;
    etl_record rec;
    etl_error p;
    uint64_t cur_buffer = UINT64_MAX;
    unsigned cur_cpu = 0;
    uint16_t cur_logger = 0;
    bool cur_used = false;
    int64_t last_ts = 0;
    while ((st = etl_reader_next(r, &rec, err)) == ETL_OK) {
        while (etl_reader_next_problem(r, &p)) {
            report(rl, false, "input offset 0x%" PRIx64 ": %s", p.offset, p.message);
            rl->stats->damaged++;
        }
        if (rec.buffer_offset != cur_buffer) {
            if (cur_used && (st = etl_writer_flush_cpu_in(w, cur_logger, cur_cpu, last_ts, err)) != ETL_OK)
                break;
            cur_buffer = rec.buffer_offset;
            cur_used = false;
        }
        if (rec.is_logfile_header || !etl_keep_has(rl->keep, rec.position))
            continue;
        etl_error problem;
        if (etl_record_problem(&rec, &problem, NULL)) {
            report(rl, false, "record at position %" PRIu64 " not written: %s", rec.position, problem.message);
            rl->stats->damaged++;
            continue;
        }
        /* each record under its buffer's logger id: a merged trace's inputs stay apart (procs.h) */
        st = etl_writer_add_in(w, rec.logger_id, rec.cpu, rec.bytes, rec.size, rec.has_timestamp, rec.timestamp_raw, err);
        if (st == ETL_ERR_LIMIT) {
            report(rl, false, "record at position %" PRIu64 " not written: %s", rec.position, err->message);
            rl->stats->skipped++;
            continue;
        }
        if (st != ETL_OK)
            break;
        cur_cpu = rec.cpu;
        cur_logger = rec.logger_id;
        cur_used = true;
        if (rec.has_timestamp)
            last_ts = rec.timestamp_raw;
    }
    while (etl_reader_next_problem(r, &p)) {
        report(rl, false, "input offset 0x%" PRIx64 ": %s", p.offset, p.message);
        rl->stats->damaged++;
    }
    etl_reader_close(r);
    return st == ETL_END ? ETL_OK : st;
}

static etl_status relog_run(relog *rl, etl_write_sink sink, etl_error *err)
{
    const etl_relog_options *opt = rl->opt;
    etl_registry *reg = etl_decoder_registry(rl->dec);
    for (size_t i = 0; i < opt->n_manifest_paths; i++)
        etl_registry_add_path(reg, opt->manifest_paths[i]);
    etl_observer obs[3] = { etl_registry_observer(reg), etl_procs_observer(rl->procs) };
    size_t nobs = 2;
    if (rl->trace_only)
        obs[nobs++] = etl_registry_observer(etl_decoder_registry(rl->trace_only));
    etl_reader *pr;
    etl_status st = open_input(rl, ETL_ORDER_FILE, &pr, err);
    if (st != ETL_OK)
        return st;
    st = etl_prescan(pr, obs, nobs, err);
    etl_reader_close(pr);
    if (st == ETL_OK)
        st = select_pass(rl, err);
    if (st != ETL_OK)
        return st;
    if (rl->header_len < SYSTEM_TRACE_HEADER_SIZE + TRACE_LOGFILE_HEADER_SIZE)
        return etl_fail(err, ETL_ERR_NOT_FOUND, 0, "the trace has no logfile header record to write a trace from");

    /* The input's logfile header, written uncompressed. */
    uint8_t *lf = rl->header + SYSTEM_TRACE_HEADER_SIZE;
    uint32_t mode = etl_ld32(lf + TRACE_LOGFILE_HEADER_OFF_LOG_FILE_MODE) & ~EVENT_TRACE_COMPRESSED_MODE;
    etl_st32(lf + TRACE_LOGFILE_HEADER_OFF_LOG_FILE_MODE, mode);
    etl_write_config cfg = { .buffer_size = etl_ld32(lf + TRACE_LOGFILE_HEADER_OFF_BUFFER_SIZE),
                             .logger_id = rl->header_logger };
    etl_writer *w;
    st = etl_writer_open(&cfg, sink, rl->header, rl->header_len, &w, err);
    if (st != ETL_OK)
        return st;
    st = write_pass(rl, w, err);
    if (st == ETL_OK) {
        uint64_t lost = (uint64_t)etl_ld32(lf + TRACE_LOGFILE_HEADER_OFF_EVENTS_LOST) + etl_writer_stats(w)->dropped;
        etl_write_final fin = { .set_events_lost = true, .events_lost = lost > UINT32_MAX ? UINT32_MAX : (uint32_t)lost };
        st = etl_writer_close(w, &fin, err);
    }
    const etl_write_stats *ws = etl_writer_stats(w);
    const etl_keep_stats *ks = etl_keep_get_stats(rl->keep);
    rl->stats->records = ws->records;
    rl->stats->buffers = ws->buffers;
    rl->stats->bytes = ws->file_size;
    rl->stats->selected = ks->selected;
    rl->stats->context = ks->kept - ks->by_reason[0];
    etl_writer_free(w);
    return st;
}

static etl_status relog_input(relog *rl, etl_write_sink sink, const etl_relog_options *opt, etl_relog_stats *stats,
                              etl_error *err)
{
    static const etl_relog_options none;
    etl_relog_stats ignored;
    rl->opt = opt ? opt : &none;
    rl->stats = stats ? stats : &ignored;
    memset(rl->stats, 0, sizeof *rl->stats);
    rl->dec = etl_decoder_new(registry_report, rl);
    rl->trace_only = rl->opt->n_manifest_paths ? etl_decoder_new(NULL, NULL) : NULL;
    rl->procs = rl->dec ? etl_procs_new(etl_decoder_registry(rl->dec)) : NULL;
    rl->keep = etl_keep_new(rl->procs);
    rl->unnamed.keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    rl->external.keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    etl_status st;
    if (!rl->dec || !rl->procs || !rl->keep || (rl->opt->n_manifest_paths && !rl->trace_only))
        st = etl_fail(err, ETL_ERR_NOMEM, 0, "out of memory");
    else
        st = relog_run(rl, sink, err);
    g_hash_table_destroy(rl->unnamed.keys);
    g_hash_table_destroy(rl->external.keys);
    etl_keep_free(rl->keep);
    etl_procs_free(rl->procs);
    etl_decoder_free(rl->trace_only);
    etl_decoder_free(rl->dec);
    g_free(rl);
    return st;
}

etl_status etl_relog(const char *in_path, etl_write_sink sink, const etl_relog_options *opt, etl_relog_stats *stats,
                     etl_error *err)
{
    if (in_path == NULL || sink.write_at == NULL)
        return etl_fail(err, ETL_ERR_ARG, 0, "no input or no sink");
    relog *rl = g_new0(relog, 1);
    rl->in = in_path;
    return relog_input(rl, sink, opt, stats, err);
}

etl_status etl_relog_memory(const uint8_t *data, size_t size, etl_write_sink sink, const etl_relog_options *opt,
                            etl_relog_stats *stats, etl_error *err)
{
    if (data == NULL || sink.write_at == NULL)
        return etl_fail(err, ETL_ERR_ARG, 0, "no input or no sink");
    relog *rl = g_new0(relog, 1);
    rl->in_data = data;
    rl->in_size = size;
    return relog_input(rl, sink, opt, stats, err);
}
