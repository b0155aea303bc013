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
 * What is written besides the selection (the records decoding it needs), how, and the warnings
 * naming what the trace does not hold: etl_relog.h, which this file calls.
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
#include "etl_format.h"
#include "etl_relog.h"
#include "etl_write.h"
#include "procs.h"
#include "registry.h"

/* Values per repeatable selection option. */
#define MAX_VALUES 64

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

static bool selected(void *ctx, const etl_record *r, uint64_t number, const etl_proc_info *proc)
{
    const selection *s = ctx;
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
        uint32_t pid = proc ? proc->pid : r->pid;
        bool hit = false;
        for (size_t i = 0; i < s->npids && !hit; i++)
            hit = pid == s->pids[i] || r->pid == s->pids[i];
        if (!hit)
            return false;
    }
    return true;
}

/* ---- main --------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fputs("usage: etldump --write OUT.etl [--records=A-B] [--every=N] [--positions=A-B]\n"
          "               [--from=TIME] [--to=TIME] [--provider=GUID]... [--event-id=N]...\n"
          "               [--pid=N]... [--manifest-path PATH]... FILE\n"
          "Write the selected records of FILE, and the records decoding them needs, to OUT.etl.\n",
          f);
}

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

static void report(void *ctx, bool warning, const char *message)
{
    const writing *wr = ctx;
    if (warning)
        fprintf(stderr, "etldump: warning: %s\n", message);
    else
        fprintf(stderr, "etldump: %s: %s\n", wr->in, message);
}

int etldump_write_main(int argc, char **argv)
{
    static writing wr;
    int rc = parse_options(argc, argv, &wr);
    if (rc >= 0)
        return rc;
    if (etl_registry_env_path() && wr.n_manifest_paths < MAX_VALUES)
        wr.manifest_paths[wr.n_manifest_paths++] = etl_registry_env_path();
    FILE *out = fopen(wr.out, "wb");
    if (out == NULL) {
        fprintf(stderr, "etldump: %s: cannot create the output\n", wr.out);
        return 2;
    }
    etl_write_file fs;
    etl_relog_options opt = {
        .manifest_paths = wr.manifest_paths,
        .n_manifest_paths = wr.n_manifest_paths,
        .select = wr.sel.any ? selected : NULL,
        .select_ctx = &wr.sel,
        .report = report,
        .report_ctx = &wr,
    };
    etl_relog_stats st;
    etl_error err;
    etl_status s = etl_relog(wr.in, etl_write_file_sink(&fs, out), &opt, &st, &err);
    bool closed = fclose(out) == 0;
    if (s != ETL_OK || !closed) {
        fprintf(stderr, "etldump: %s: %s\n", s == ETL_ERR_IO || !closed ? wr.out : wr.in,
                s != ETL_OK ? err.message : "writing the output failed");
        remove(wr.out);
        return 2;
    }
    fprintf(stderr,
            "etldump: wrote %s: %" PRIu64 " records (%" PRIu64 " selected, %" PRIu64 " kept as context), %" PRIu64
            " buffers, %" PRIu64 " bytes\n",
            wr.out, st.records, st.selected, st.context, st.buffers, st.bytes);
    /* Warnings name what the input itself lacks: they do not fail the run. */
    return st.damaged || st.skipped ? 1 : 0;
}
