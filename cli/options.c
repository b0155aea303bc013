/* options.c - etldump's command line: one option table for every mode, one parse, the values
 * checked once (numbers, ranges, times, GUIDs), the usage texts.
 *
 * The modes: reading (JSON Lines, --summary, --verify-positions, --pcapng) and writing
 * (--write OUT.etl with a selection, write_out.c).  --manifest-path, --tmf-path and --help go
 * with both; an option of one mode given in the other is an error naming it. */
#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl_format.h"
#include "registry.h"
#include "wpp.h"

/* ---- usage --------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fputs("usage: etldump [--summary] [--order=time|file] [--window=BUFFERS] [--no-payload]\n"
          "               [--manifest-path PATH]... [--tmf-path PATH]... [--verify-positions]\n"
          "               [--threads N] FILE\n"
          "       etldump --pcapng OUT [--first-appearance] FILE\n"
          "       etldump --write OUT.etl [SELECTION] FILE   (etldump --write --help: the selection)\n"
          "Print every record of a Windows ETW trace (.etl) as one JSON object per line, or\n"
          "with --summary one JSON object describing the file.\n"
          "Manifest-based events are decoded from instrumentation manifests: PATH (and then\n"
          "$" ETL_REGISTRY_ENV ") is a ':'-separated list of manifest files and folders\n"
          "(*.man, *.xml) and provider binaries (*.dll, *.exe, *.sys; a folder ending in /...\n"
          "is searched with its subfolders); EventSource manifests and schemas carried in the\n"
          "trace are used too.\n"
          "WPP messages are decoded from TMF files: PATH (and then $" ETL_TMF_ENV ") is a\n"
          "':'-separated list of TMF files and folders (*.tmf).\n"
          "Exit status: 0 read fully, 1 read with damage (reported on stderr), 2 unusable input.\n"
          "Manifests that do not load are reported on stderr and do not change the status.\n"
          "--pcapng writes the packets of a pktmon or netsh trace to OUT ('-' for stdout) as\n"
          "pcapng, every appearance of a pktmon packet, or with --first-appearance each once.\n"
          "--threads N uses N threads (default: the cores it may use); the output is the same.\n",
          f);
}

static void usage_write(FILE *f)
{
    fputs("usage: etldump --write OUT.etl [--records=A-B] [--every=N] [--positions=A-B]\n"
          "               [--from=TIME] [--to=TIME] [--provider=GUID]... [--event-id=N]...\n"
          "               [--pid=N]... [--manifest-path PATH]... FILE\n"
          "Write the selected records of FILE, and the records decoding them needs, to OUT.etl.\n",
          f);
}

/* Is --write among the options (before any "--")?  Decided first: it picks the usage text. */
static bool write_requested(int argc, char **argv)
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

/* "A-B" (A <= B), "A-" (to the end) or "A" (A alone). */
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

/* A number from 0 to max appended to a bounded list; false when it is not one or the list is full. */
static bool add_u32(const char *s, uint32_t max, uint32_t *list, size_t *n)
{
    uint64_t v;
    if (*n == ETLDUMP_MAX_VALUES || !parse_u64(s, &v) || v > max)
        return false;
    list[(*n)++] = (uint32_t)v;
    return true;
}

/* ---- the table ---------------------------------------------------------------------------- */

enum {
    OPT_SUMMARY = 's',
    OPT_HELP = 'h',
    /* reading */
    OPT_ORDER = 256, OPT_WINDOW, OPT_NO_PAYLOAD, OPT_VERIFY, OPT_PCAPNG, OPT_FIRST_APPEARANCE, OPT_THREADS,
    /* writing */
    OPT_WRITE = 300, OPT_RECORDS, OPT_EVERY, OPT_POSITIONS, OPT_FROM, OPT_TO, OPT_PROVIDER, OPT_EVENT_ID, OPT_PID,
    /* both */
    OPT_MANIFEST_PATH = 400, OPT_TMF_PATH,
};

static const struct option table[] = {
    {"summary", no_argument, NULL, OPT_SUMMARY},
    {"order", required_argument, NULL, OPT_ORDER},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"no-payload", no_argument, NULL, OPT_NO_PAYLOAD},
    {"verify-positions", no_argument, NULL, OPT_VERIFY},
    {"pcapng", required_argument, NULL, OPT_PCAPNG},
    {"first-appearance", no_argument, NULL, OPT_FIRST_APPEARANCE},
    {"threads", required_argument, NULL, OPT_THREADS},
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
    {"tmf-path", required_argument, NULL, OPT_TMF_PATH},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

/* The option's name as typed, for messages. */
static const char *option_name(int c)
{
    if (c == OPT_SUMMARY)
        return "--summary";
    for (const struct option *t = table; t->name; t++)
        if (t->val == c) {
            static char s[32];
            snprintf(s, sizeof s, "--%s", t->name);
            return s;
        }
    return "?";
}

/* One reading option into `o`: NULL, or what is wrong with its value. */
static const char *read_option(int c, const char *arg, etldump_options *o)
{
    switch (c) {
    case OPT_SUMMARY: o->summary = true; return NULL;
    case OPT_ORDER:
        if (strcmp(arg, "time") == 0)
            o->reader.order = ETL_ORDER_TIME;
        else if (strcmp(arg, "file") == 0)
            o->reader.order = ETL_ORDER_FILE;
        else {
            static char msg[96];
            snprintf(msg, sizeof msg, "--order takes 'time' or 'file', not '%.40s'", arg);
            return msg;
        }
        return NULL;
    case OPT_WINDOW: {
        uint64_t v;
        char *end;
        v = strtoul(arg, &end, 10);
        if (*end || v == 0 || v > 100000)
            return "--window takes a number of buffers from 1 to 100000";
        o->reader.window_buffers = (uint32_t)v;
        return NULL;
    }
    case OPT_NO_PAYLOAD: o->payload = false; return NULL;
    case OPT_VERIFY: o->verify = true; return NULL;
    case OPT_PCAPNG: o->pcapng_path = arg; return NULL;
    case OPT_FIRST_APPEARANCE: o->pcapng.first_appearance = true; return NULL;
    case OPT_THREADS: {
        char *end;
        unsigned long v = strtoul(arg, &end, 10);
        if (*end || *arg == '-' || v == 0 || v > ETLDUMP_MAX_THREADS)
            return "--threads takes a number of threads from 1 to 64";
        o->threads = (unsigned)v;
        return NULL;
    }
    default: return NULL;
    }
}

/* One selection option into `s`: NULL, or what is wrong with its value. */
static const char *selection_option(int c, const char *arg, etldump_selection *s)
{
    s->any = true;
    switch (c) {
    case OPT_RECORDS:
        s->has_records = true;
        return parse_range(arg, &s->rec_lo, &s->rec_hi) ? NULL : "--records takes A-B (record numbers, A <= B) or A-";
    case OPT_EVERY:
        return parse_u64(arg, &s->every) && s->every ? NULL : "--every takes a number from 1";
    case OPT_POSITIONS:
        s->has_positions = true;
        return parse_range(arg, &s->pos_lo, &s->pos_hi) ? NULL : "--positions takes A-B (positions as etldump prints them)";
    case OPT_FROM:
        s->has_from = true;
        return parse_time(arg, &s->from) ? NULL : "--from takes a FILETIME or a UTC time like 2021-09-09T14:59:35.7990000Z";
    case OPT_TO:
        s->has_to = true;
        return parse_time(arg, &s->to) ? NULL : "--to takes a FILETIME or a UTC time like 2021-09-09T14:59:35.7990000Z";
    case OPT_PROVIDER:
        return s->nproviders < ETLDUMP_MAX_VALUES && etl_parse_guid(arg, &s->providers[s->nproviders++])
                   ? NULL
                   : "--provider takes a GUID (at most 64 of them)";
    case OPT_EVENT_ID:
        return add_u32(arg, 0xFFFF, s->event_ids, &s->nevent_ids)
                   ? NULL
                   : "--event-id takes a number from 0 to 65535 (at most 64 of them)";
    case OPT_PID:
        return add_u32(arg, UINT32_MAX, s->pids, &s->npids) ? NULL : "--pid takes a process id (at most 64 of them)";
    default: return NULL;
    }
}

int etldump_parse_options(int argc, char **argv, etldump_options *o)
{
    const bool writing = write_requested(argc, argv);
    void (*usage_of_mode)(FILE *) = writing ? usage_write : usage;
    memset(o, 0, sizeof *o);
    o->payload = true;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "sh", table, NULL)) != -1) {
        const char *bad = NULL;
        if (c == OPT_HELP) {
            usage_of_mode(stdout);
            return 0;
        } else if (c == OPT_MANIFEST_PATH) {
            if (o->n_manifest_paths == ETLDUMP_MAX_MANIFEST_PATHS)
                bad = "more than 64 --manifest-path options; join paths with ':'";
            else
                o->manifest_paths[o->n_manifest_paths++] = optarg;
        } else if (c == OPT_TMF_PATH) {
            if (o->n_tmf_paths == ETLDUMP_MAX_MANIFEST_PATHS)
                bad = "more than 64 --tmf-path options; join paths with ':'";
            else
                o->tmf_paths[o->n_tmf_paths++] = optarg;
        } else if (c == OPT_WRITE) {
            o->write_path = optarg;
        } else if (c == OPT_SUMMARY || (c >= OPT_ORDER && c < OPT_WRITE)) {
            if (writing) {
                fprintf(stderr, "etldump: %s does not go with --write\n", option_name(c));
                return 2;
            }
            bad = read_option(c, optarg, o);
        } else if (c > OPT_WRITE && c < OPT_MANIFEST_PATH) {
            if (!writing) {
                fprintf(stderr, "etldump: %s goes with --write OUT.etl\n", option_name(c));
                return 2;
            }
            bad = selection_option(c, optarg, &o->sel);
        } else {
            usage_of_mode(stderr);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "etldump: %s\n", bad);
            return 2;
        }
    }
    if (optind != argc - 1 || (writing && !o->write_path)) {
        usage_of_mode(stderr);
        return 2;
    }
    if (o->pcapng.first_appearance && !o->pcapng_path) {
        fprintf(stderr, "etldump: --first-appearance goes with --pcapng OUT\n");
        return 2;
    }
    o->path = argv[optind];
    if (!o->threads) { /* the cores this process may use (a taskset or cpuset counts) */
        unsigned n = etl_thread_cpus();
        o->threads = n > ETLDUMP_MAX_THREADS ? ETLDUMP_MAX_THREADS : n;
    }
    /* One thread merges, frames and writes; the others read, inflate and index buffers ahead
     * of it (etl_options.threads); when decoding, N - 1 workers format the records instead and
     * the decode pass keeps loaders only past two threads (read_trace, docs/parallel.md).
     * Output is the same whatever the count. */
    o->reader.threads = o->threads - 1;
    return -1;
}
