/* write_out.c - etldump --write OUT.etl: cut a trace into a smaller .etl without Windows.
 *
 *   etldump --write OUT.etl [SELECTION] [--manifest-path PATH]... FILE
 *
 * SELECTION (every option given must match; repeated options of one kind match any value):
 *   --records=A-B      record numbers A to B (0-based, inclusive; "A-" to the end) in the order
 *                      etldump prints them (timestamp order; the logfile header is record 0)
 *   --every=N          every Nth record: numbers 0, N, 2N, ...
 *   --positions=A-B    records whose "position" (as etldump prints it) is in [A, B]
 *   --from=T --to=T    records with a timestamp in [from, to]: FILETIME numbers or UTC times
 *                      as etldump prints them (2021-09-09T14:59:35.7990000Z)
 *   --provider=GUID    records of this provider / class / kernel group GUID
 *   --event-id=N       records with this event id (EVENT_HEADER id; classic records: 0)
 *   --pid=N            records of this process (the header's pid, or the process etldump names
 *                      in "process_id")
 * Without a selection every record is written.
 *
 * What is written besides the selection - the records decoding it needs - is decided by keep.h:
 * the logfile header and the kernel HEADER group, every process, thread and image event, the
 * schemas the trace carries, the PROV_TRAITS record naming a selected event's provider, and
 * stack links.  The file is written in the input's file order with the input's buffer breaks
 * and processors (so it reads back in the same timestamp order), each record's bytes unchanged;
 * the logfile header is the input's with BuffersWritten counted again, the compressed-mode bit
 * cleared (buffers are written uncompressed) and EventsLost raised by records that could not be
 * written.  Damaged records of the input are not written (each reported).
 *
 * Warnings (stderr, "etldump: warning: ...") name what a selection needs and the trace does not
 * hold: processes no event names, TraceLogging providers whose name no earlier PROV_TRAITS
 * gives, stack walks whose event is not in the trace, manifest events whose schema came from a
 * --manifest-path file (the written file needs the same path to decode them).
 *
 * Exit status: 0 written (warnings or not); 1 written, but input damage or records too big for a
 * buffer were left out; 2 nothing written (bad
 * options, unusable input, the input has no logfile header, the output cannot be written). */
#include "write_out.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "bytes.h"
#include "etl_format.h"
#include "etl_write.h"
#include "keep.h"
#include "layout.h"
#include "prescan.h"
#include "procs.h"
#include "registry.h"
#include "resolve.h"

/* Values per repeatable selection option. */
#define MAX_VALUES 64
/* Distinct names listed per warning kind. */
#define MAX_WARNED 16

typedef struct selection {
    bool any;
    bool has_records, has_positions, has_from, has_to;
    uint64_t rec_lo, rec_hi, pos_lo, pos_hi, every;
    int64_t from, to;
    etl_guid providers[MAX_VALUES];
    size_t nproviders;
    uint32_t event_ids[MAX_VALUES];
    size_t nevent_ids;
    uint32_t pids[MAX_VALUES];
    size_t npids;
} selection;

bool etldump_write_requested(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--write") == 0 || strncmp(argv[i], "--write=", 8) == 0)
            return true;
    }
    return false;
}

/* ---- option values ------------------------------------------------------------------------ */

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (*s == '\0' || *s == '-')
        return false;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end)
        return false;
    *out = v;
    return true;
}

static bool parse_range(const char *s, uint64_t *lo, uint64_t *hi)
{
    const char *dash = strchr(s, '-');
    char a[32];
    if (dash == NULL)
        return parse_u64(s, lo) && (*hi = *lo, true);
    size_t n = (size_t)(dash - s);
    if (n == 0 || n >= sizeof a)
        return false;
    memcpy(a, s, n);
    a[n] = '\0';
    if (!parse_u64(a, lo))
        return false;
    if (dash[1] == '\0') {
        *hi = UINT64_MAX;
        return true;
    }
    return parse_u64(dash + 1, hi) && *lo <= *hi;
}

/* Days since 1601-01-01 of a proleptic Gregorian date. */
static int64_t days_since_1601(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days_1970 = era * 146097 + doe - 719468;
    return days_1970 + 134774; /* 1601-01-01 .. 1970-01-01 */
}

/* A FILETIME number, or a UTC time "YYYY-MM-DDTHH:MM:SS[.fffffff]Z". */
static bool parse_time(const char *s, int64_t *out)
{
    uint64_t v;
    if (parse_u64(s, &v) && v <= INT64_MAX) {
        *out = (int64_t)v;
        return true;
    }
    int y, mo, d, h, mi, sec, n = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 || y < 1601 || mo < 1 ||
        mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return false;
    const char *p = s + n;
    int64_t frac = 0;
    int digits = 0;
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++)
            if (digits < 7) {
                frac = frac * 10 + (*p - '0');
                digits++;
            }
        for (; digits < 7; digits++)
            frac *= 10;
    }
    if (strcmp(p, "Z") != 0 && *p != '\0')
        return false;
    *out = ((days_since_1601(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec) * 10000000) + frac;
    return true;
}

/* ---- selection ---------------------------------------------------------------------------- */

static bool selected(const selection *s, const etl_record *r, uint64_t number, etl_procs *procs)
{
    if (!s->any)
        return true;
    if (s->has_records && (number < s->rec_lo || number > s->rec_hi))
        return false;
    if (s->every && number % s->every != 0)
        return false;
    if (s->has_positions && (r->position < s->pos_lo || r->position > s->pos_hi))
        return false;
    if ((s->has_from || s->has_to) && !r->has_timestamp)
        return false;
    if (s->has_from && r->timestamp < s->from)
        return false;
    if (s->has_to && r->timestamp > s->to)
        return false;
    if (s->nproviders) {
        bool hit = false;
        for (size_t i = 0; i < s->nproviders && !hit; i++)
            hit = r->has_provider && etl_guid_equal(&r->provider, &s->providers[i]);
        if (!hit)
            return false;
    }
    if (s->nevent_ids) {
        bool hit = false;
        for (size_t i = 0; i < s->nevent_ids && !hit; i++)
            hit = r->event_id == s->event_ids[i];
        if (!hit)
            return false;
    }
    if (s->npids) {
        etl_proc_info pi;
        uint32_t pid = procs && etl_procs_lookup(procs, r, &pi) ? pi.pid : r->pid;
        bool hit = false;
        for (size_t i = 0; i < s->npids && !hit; i++)
            hit = pid == s->pids[i] || r->pid == s->pids[i];
        if (!hit)
            return false;
    }
    return true;
}

/* ---- warnings ----------------------------------------------------------------------------- */

typedef struct warned {
    char keys[MAX_WARNED][64];
    size_t n;
    uint64_t total;
} warned;

/* Count a missing thing; true the first time its key is seen (and it is listed). */
static bool warn_once(warned *w, const char *key)
{
    w->total++;
    for (size_t i = 0; i < w->n; i++)
        if (strcmp(w->keys[i], key) == 0)
            return false;
    if (w->n == MAX_WARNED)
        return false;
    snprintf(w->keys[w->n++], sizeof w->keys[0], "%s", key);
    return true;
}

static void report_schemas(void *ctx, etl_registry_severity sev, const char *message)
{
    (void)ctx;
    if (sev == ETL_REGISTRY_ERROR || sev == ETL_REGISTRY_WARNING)
        fprintf(stderr, "etldump: %s%s\n", sev == ETL_REGISTRY_ERROR ? "error: " : "warning: ", message);
}

static void usage(FILE *f)
{
    fputs("usage: etldump --write OUT.etl [--records=A-B] [--every=N] [--positions=A-B]\n"
          "               [--from=TIME] [--to=TIME] [--provider=GUID]... [--event-id=N]...\n"
          "               [--pid=N]... [--manifest-path PATH]... FILE\n"
          "Write the selected records of FILE, and the records decoding them needs, to OUT.etl.\n",
          f);
}

/* ---- main --------------------------------------------------------------------------------- */

typedef struct writing {
    const char *in, *out;
    selection sel;
    const char *manifest_paths[MAX_VALUES];
    size_t n_manifest_paths;
} writing;

static int parse_options(int argc, char **argv, writing *wr)
{
    enum { OPT_WRITE = 300, OPT_RECORDS, OPT_EVERY, OPT_POSITIONS, OPT_FROM, OPT_TO, OPT_PROVIDER, OPT_EVENT_ID,
           OPT_PID, OPT_MANIFEST_PATH };
    static const struct option opts[] = {
        {"write", required_argument, NULL, OPT_WRITE},
        {"records", required_argument, NULL, OPT_RECORDS},
        {"every", required_argument, NULL, OPT_EVERY},
        {"positions", required_argument, NULL, OPT_POSITIONS},
        {"from", required_argument, NULL, OPT_FROM},
        {"to", required_argument, NULL, OPT_TO},
        {"provider", required_argument, NULL, OPT_PROVIDER},
        {"event-id", required_argument, NULL, OPT_EVENT_ID},
        {"pid", required_argument, NULL, OPT_PID},
        {"manifest-path", required_argument, NULL, OPT_MANIFEST_PATH},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    selection *s = &wr->sel;
    int c;
    uint64_t v;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        const char *bad = NULL;
        switch (c) {
        case OPT_WRITE: wr->out = optarg; break;
        case OPT_RECORDS:
            if (!parse_range(optarg, &s->rec_lo, &s->rec_hi))
                bad = "--records takes A-B (record numbers, A <= B) or A-";
            s->has_records = s->any = true;
            break;
        case OPT_EVERY:
            if (!parse_u64(optarg, &s->every) || s->every == 0)
                bad = "--every takes a number from 1";
            s->any = true;
            break;
        case OPT_POSITIONS:
            if (!parse_range(optarg, &s->pos_lo, &s->pos_hi))
                bad = "--positions takes A-B (positions as etldump prints them)";
            s->has_positions = s->any = true;
            break;
        case OPT_FROM:
            if (!parse_time(optarg, &s->from))
                bad = "--from takes a FILETIME or a UTC time like 2021-09-09T14:59:35.7990000Z";
            s->has_from = s->any = true;
            break;
        case OPT_TO:
            if (!parse_time(optarg, &s->to))
                bad = "--to takes a FILETIME or a UTC time like 2021-09-09T14:59:35.7990000Z";
            s->has_to = s->any = true;
            break;
        case OPT_PROVIDER:
            if (s->nproviders == MAX_VALUES || !etl_parse_guid(optarg, &s->providers[s->nproviders++]))
                bad = "--provider takes a GUID (at most 64 of them)";
            s->any = true;
            break;
        case OPT_EVENT_ID:
            if (s->nevent_ids == MAX_VALUES || !parse_u64(optarg, &v) || v > 0xFFFF)
                bad = "--event-id takes a number from 0 to 65535 (at most 64 of them)";
            else
                s->event_ids[s->nevent_ids++] = (uint32_t)v;
            s->any = true;
            break;
        case OPT_PID:
            if (s->npids == MAX_VALUES || !parse_u64(optarg, &v) || v > UINT32_MAX)
                bad = "--pid takes a process id (at most 64 of them)";
            else
                s->pids[s->npids++] = (uint32_t)v;
            s->any = true;
            break;
        case OPT_MANIFEST_PATH:
            if (wr->n_manifest_paths == MAX_VALUES)
                bad = "more than 64 --manifest-path options; join paths with ':'";
            else
                wr->manifest_paths[wr->n_manifest_paths++] = optarg;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (bad) {
            fprintf(stderr, "etldump: %s\n", bad);
            return 2;
        }
    }
    if (optind != argc - 1 || wr->out == NULL) {
        usage(stderr);
        return 2;
    }
    wr->in = argv[optind];
    return -1;
}

/* The first pass: select, and decide what else is kept; the logfile header record is copied
 * out.  Returns the number of warnings. */
typedef struct first_pass {
    etl_decoder *dec, *trace_only;
    etl_procs *procs;
    etl_keep *keep;
    uint8_t header[ETL_WRITE_MAX_RECORD];
    size_t header_len;
    uint64_t damaged;
} first_pass;

static uint64_t select_pass(const writing *wr, etl_reader *r, first_pass *fp)
{
    warned unnamed = {0}, external = {0};
    etl_record rec;
    etl_error err;
    uint64_t number = 0;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        bool sel = selected(&wr->sel, &rec, number++, fp->procs);
        if (rec.is_logfile_header && fp->header_len == 0 && rec.size <= sizeof fp->header) {
            memcpy(fp->header, rec.bytes, rec.size);
            fp->header_len = rec.size;
        }
        etl_keep_observe(fp->keep, &rec, sel);
        if (!sel)
            continue;
        etl_proc_info pi;
        if (etl_procs_lookup(fp->procs, &rec, &pi) && pi.name == NULL && pi.pid != ETL_NO_ID) {
            char key[64];
            snprintf(key, sizeof key, "%" PRIu32, pi.pid);
            if (warn_once(&unnamed, key))
                fprintf(stderr, "etldump: warning: process %s: no process event in the trace names it\n", key);
        }
        if (fp->trace_only && etl_header_family(rec.header_type) == ETL_FAMILY_EVENT) {
            etl_resolved a, b;
            etl_decoder_resolve(fp->dec, &rec, ETL_RESOLVE_NO_LEARN, &a, NULL);
            if (a.kind == ETL_RESOLVE_MANIFEST && a.schema &&
                etl_decoder_resolve(fp->trace_only, &rec, ETL_RESOLVE_NO_LEARN, &b, NULL) == ETL_RESOLVE_SCHEMA_MISSING) {
                char g[ETL_GUID_STR_SIZE], key[64];
                etl_format_guid(&rec.provider, g);
                snprintf(key, sizeof key, "%s id %u", g, (unsigned)rec.event_id);
                if (warn_once(&external, key))
                    fprintf(stderr,
                            "etldump: warning: provider %s event %u: its schema is from a --manifest-path file, "
                            "not the trace: read the written file with the same path\n",
                            g, (unsigned)rec.event_id);
            }
        }
    }
    const etl_keep_stats *ks = etl_keep_get_stats(fp->keep);
    uint64_t warnings = unnamed.total + external.total;
    if (ks->traits_missing) {
        fprintf(stderr, "etldump: warning: %" PRIu64 " selected events of providers no earlier PROV_TRAITS names\n",
                ks->traits_missing);
        warnings += ks->traits_missing;
    }
    if (ks->stack_target_missing) {
        fprintf(stderr, "etldump: warning: %" PRIu64 " selected stack walks whose event is not in the trace\n",
                ks->stack_target_missing);
        warnings += ks->stack_target_missing;
    }
    return warnings;
}

int etldump_write_main(int argc, char **argv)
{
    static writing wr;
    int rc = parse_options(argc, argv, &wr);
    if (rc >= 0)
        return rc;
    static first_pass fp;
    fp.dec = etl_decoder_new(report_schemas, NULL);
    fp.trace_only = wr.n_manifest_paths || etl_registry_env_path() ? etl_decoder_new(NULL, NULL) : NULL;
    if (fp.dec == NULL) {
        fprintf(stderr, "etldump: out of memory\n");
        return 2;
    }
    etl_registry *reg = etl_decoder_registry(fp.dec);
    for (size_t i = 0; i < wr.n_manifest_paths; i++)
        etl_registry_add_path(reg, wr.manifest_paths[i]);
    if (etl_registry_env_path())
        etl_registry_add_path(reg, etl_registry_env_path());
    fp.procs = etl_procs_new(reg);
    fp.keep = etl_keep_new(fp.procs);
    etl_error err;
    etl_observer obs[3] = { etl_registry_observer(reg), etl_procs_observer(fp.procs) };
    size_t nobs = 2;
    if (fp.trace_only)
        obs[nobs++] = etl_registry_observer(etl_decoder_registry(fp.trace_only));
    if (etl_prescan_file(wr.in, obs, nobs, &err) != ETL_OK) {
        fprintf(stderr, "etldump: %s: %s\n", wr.in, err.message);
        rc = 2;
        goto done;
    }

    etl_reader *r = NULL;
    if (etl_reader_open_file(wr.in, NULL, &r, &err) != ETL_OK) {
        fprintf(stderr, "etldump: %s: %s\n", wr.in, err.message);
        rc = 2;
        goto done;
    }
    uint64_t warnings = select_pass(&wr, r, &fp);
    etl_reader_close(r);
    if (fp.header_len < SYSTEM_TRACE_HEADER_SIZE + TRACE_LOGFILE_HEADER_SIZE) {
        fprintf(stderr, "etldump: %s: the trace has no logfile header record: nothing to write a trace from\n", wr.in);
        rc = 2;
        goto done;
    }
    /* The input's logfile header, but written uncompressed. */
    uint8_t *lf = fp.header + SYSTEM_TRACE_HEADER_SIZE;
    uint32_t mode = etl_ld32(lf + TRACE_LOGFILE_HEADER_OFF_LOG_FILE_MODE) & ~EVENT_TRACE_COMPRESSED_MODE;
    for (int i = 0; i < 4; i++)
        lf[TRACE_LOGFILE_HEADER_OFF_LOG_FILE_MODE + i] = (uint8_t)(mode >> (8 * i));

    FILE *out = fopen(wr.out, "wb");
    if (out == NULL) {
        fprintf(stderr, "etldump: %s: cannot create the output\n", wr.out);
        rc = 2;
        goto done;
    }
    etl_write_file fs;
    etl_write_config cfg = { .buffer_size = etl_ld32(lf + TRACE_LOGFILE_HEADER_OFF_BUFFER_SIZE),
                             .logger_id = 0 };
    etl_writer *w = NULL;
    etl_options fo = { .order = ETL_ORDER_FILE };
    if (etl_writer_open(&cfg, etl_write_file_sink(&fs, out), fp.header, fp.header_len, &w, &err) != ETL_OK ||
        etl_reader_open_file(wr.in, &fo, &r, &err) != ETL_OK) {
        fprintf(stderr, "etldump: %s: %s (offset 0x%" PRIx64 ")\n", wr.out, err.message, err.offset);
        etl_writer_free(w);
        fclose(out);
        remove(wr.out);
        rc = 2;
        goto done;
    }
    /* Second pass, file order: the kept records with the input's buffer breaks. */
    etl_record rec;
    etl_status st;
    uint64_t cur_buffer = UINT64_MAX, skipped = 0;
    unsigned cur_cpu = 0;
    bool cur_used = false;
    int64_t last_ts = 0;
    while ((st = etl_reader_next(r, &rec, &err)) == ETL_OK) {
        etl_error p;
        while (etl_reader_next_problem(r, &p)) {
            fprintf(stderr, "etldump: %s: offset 0x%" PRIx64 ": %s\n", wr.in, p.offset, p.message);
            fp.damaged++;
        }
        if (rec.buffer_offset != cur_buffer) {
            if (cur_used && etl_writer_flush_cpu(w, cur_cpu, last_ts, &err) != ETL_OK)
                break;
            cur_buffer = rec.buffer_offset;
            cur_used = false;
        }
        if (rec.is_logfile_header || !etl_keep_has(fp.keep, rec.position))
            continue;
        if (rec.problem != ETL_OK) {
            fprintf(stderr, "etldump: %s: record at position %" PRIu64 " not written: %s\n", wr.in, rec.position,
                    rec.problem_text);
            fp.damaged++;
            continue;
        }
        etl_status ast = etl_writer_add(w, rec.cpu, rec.bytes, rec.size, rec.has_timestamp, rec.timestamp_raw, &err);
        if (ast == ETL_ERR_LIMIT) {
            fprintf(stderr, "etldump: %s: record at position %" PRIu64 " not written: %s\n", wr.in, rec.position,
                    err.message);
            skipped++;
            continue;
        }
        if (ast != ETL_OK)
            break;
        cur_cpu = rec.cpu;
        cur_used = true;
        if (rec.has_timestamp)
            last_ts = rec.timestamp_raw;
    }
    etl_error p;
    while (etl_reader_next_problem(r, &p)) {
        fprintf(stderr, "etldump: %s: offset 0x%" PRIx64 ": %s\n", wr.in, p.offset, p.message);
        fp.damaged++;
    }
    etl_reader_close(r);
    uint32_t lost = etl_ld32(lf + TRACE_LOGFILE_HEADER_OFF_EVENTS_LOST);
    etl_write_final fin = { .set_events_lost = true,
                            .events_lost = lost + (uint32_t)etl_writer_stats(w)->dropped };
    bool failed = (st != ETL_OK && st != ETL_END) || etl_writer_close(w, &fin, &err) != ETL_OK;
    failed |= fclose(out) != 0;
    if (failed) {
        fprintf(stderr, "etldump: %s: %s\n", wr.out, err.message);
        remove(wr.out);
        etl_writer_free(w);
        rc = 2;
        goto done;
    }
    const etl_write_stats *ws = etl_writer_stats(w);
    const etl_keep_stats *ks = etl_keep_get_stats(fp.keep);
    fprintf(stderr,
            "etldump: wrote %s: %" PRIu64 " records (%" PRIu64 " selected, %" PRIu64 " kept as context), %" PRIu64
            " buffers, %" PRIu64 " bytes\n",
            wr.out, ws->records, ks->selected, ks->kept - ks->by_reason[0], ws->buffers, ws->file_size);
    etl_writer_free(w);
    /* Warnings name what the input itself lacks: they do not fail the run. */
    (void)warnings;
    rc = fp.damaged || skipped ? 1 : 0;
done:
    etl_keep_free(fp.keep);
    etl_procs_free(fp.procs);
    etl_decoder_free(fp.trace_only);
    etl_decoder_free(fp.dec);
    return rc;
}
