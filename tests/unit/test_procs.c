/* test_procs.c - process/thread context (procs.h), and stack-walk links (stack_links.h) in
 * real captures (the module on its own: test_stack_links.c).
 *
 *   test_procs CAPTURES_DIR GOLDENS_DIR
 *
 * 1. net452 against TraceEvent's golden: every kernel and KernelTraceControl EVENT line of
 *    net.4.5.2.x64.baseline.txt is found in perfview_net452_x64_merged_compressed.etl (same
 *    name, time in ms, processor and DataLen; among several candidates any one may agree), and
 *    our pid and process name (extension stripped, as TraceEvent's PName) equal the golden's
 *    PID and PName - the lines listed in `golden_differs` excepted, each with its reason, and
 *    those must really differ (so the list cannot go stale).  Lines with PID=-1 must get no
 *    pid from us either.
 * 2. Every Process/Thread event of every capture decodes (ProcessId, TThreadId, the name);
 *    counts per capture are printed.
 * 3. Stack walks: every StackWalk event (Stack, StackKeyKernel, StackKeyUser) of the captures
 *    that have them finds its event (same raw timestamp and thread) through etl_stack_links in
 *    time order; the fraction is printed and must be 100% on net452 (see the capacity comment
 *    in stack_links.h for why a smaller window misses two).
 * 4. Lifetimes on a constructed trace (tests/etlgen's writer, in memory, 64- and 32-bit):
 *    process and thread id reuse, rundown-only processes, End before Start, the thread map
 *    for headers without a pid, ids 0/4, 0xFFFFFFFF headers, streaming versus pre-scan, and
 *    observations fed in reverse order. */
#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>

#include "capture_list.h"
#include "check.h"
#include "decoder_context.h"
#include "golden_events.h"
#include "classic.h"
#include "etl.h"
#include "etlwriter.h"
#include "prescan.h"
#include "procs.h"
#include "schema_cache.h"
#include "registry.h"
#include "stack_links.h"

/* ---- helpers -------------------------------------------------------------------------------- */

/* "Provider/Task/Opcode" of a classic record, as the golden names it. */
static bool classic_name(decoder_context *c, const etl_record *r, char *out, size_t cap)
{
    const etl_schema *s;
    if (!etl_record_is_classic(r) || etl_registry_lookup(c->reg, r, &s, NULL) != ETL_OK)
        return false;
    g_snprintf(out, cap, "%s/%s", s->provider_name ? etl_schema_str(s, s->provider_name) : "",
               etl_schema_event_name(s));
    return true;
}

/* TraceEvent's PName: the image name without its extension. */
static void strip_ext(const char *name, char *out, size_t cap)
{
    g_strlcpy(out, name ? name : "", cap);
    char *dot = strrchr(out, '.');
    if (dot)
        *dot = 0;
}

/* ---- 1. the golden -------------------------------------------------------------------------- */

typedef struct gline {
    golden_event *e;    /* the golden's line */
    bool found, agrees;
    char ours[160];     /* what we said for the first candidate */
} gline;

/* Golden lines where we knowingly differ from TraceEvent, and why. */
static const struct {
    const char *name;
    long pid;
    const char *why;
} golden_differs[] = {
    /* TraceEvent shows "Process(616)": it names processes from Start/DCStart/DCEnd only, and
     * these exited before the trace's end rundown; the Defunct event itself carries the image
     * name, which we show. */
    {"Windows Kernel/Process/Defunct", 616, "named from the Defunct event itself"},
    {"Windows Kernel/Process/Defunct", 988, "named from the Defunct event itself"},
    /* TraceEvent shows PID=-1 with TID=786839 / 1097765: its FlushBuffers layout reads the
     * thread at another offset (the values are not thread ids of the trace); we read
     * IssuingThreadId (960 / 44, the threads of the matching FlushInit events) and give
     * their processes, svchost 944 and System 4. */
    {"Windows Kernel/DiskIO/FlushBuffers", -1, "IssuingThreadId read where TraceEvent reads another value"},
};

/* The golden's kernel and merge event lines, each with room for what the scan finds. */
static GPtrArray *load_golden(const char *path, GPtrArray **events)
{
    *events = golden_events_read(path, golden_kernel_prefixes);
    if (!*events)
        return NULL;
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < (*events)->len; i++) {
        gline *g = g_new0(gline, 1);
        g->e = g_ptr_array_index(*events, i);
        g_ptr_array_add(out, g);
    }
    return out;
}

static bool expected_difference(const gline *g)
{
    for (size_t i = 0; i < G_N_ELEMENTS(golden_differs); i++)
        if (strcmp(golden_differs[i].name, g->e->name) == 0 && golden_differs[i].pid == g->e->pid)
            return true;
    return false;
}

static void test_golden(const char *captures, const char *goldens)
{
    char *path = g_build_filename(captures, "perfview_net452_x64_merged_compressed.etl", NULL);
    char *gpath = g_build_filename(goldens, "net.4.5.2.x64.baseline.txt", NULL);
    GPtrArray *golden_lines = NULL, *golden = load_golden(gpath, &golden_lines);
    CHECK(golden != NULL);
    if (!golden)
        return;
    decoder_context c;
    decoder_context_init(&c, NULL);
    etl_error err;
    const etl_observer obs = etl_procs_observer(c.procs);
    CHECK(etl_prescan_file(path, &obs, 1, &err) == ETL_OK);
    const etl_procs_stats *st = etl_procs_get_stats(c.procs);
    printf("net452: %" PRIu64 " process events, %" PRIu64 " thread events, %u processes, %u threads, "
           "%" PRIu64 " undecodable, %" PRIu64 " dropped\n",
           st->process_events, st->thread_events, st->processes, st->threads, st->undecodable, st->dropped);
    CHECK_EQ_U(st->undecodable, 0);
    CHECK_EQ_U(st->dropped, 0);
    CHECK(st->processes > 30 && st->threads > 600);

    etl_reader *r;
    CHECK(etl_reader_open_file(path, NULL, &r, &err) == ETL_OK);
    etl_record rec;
    int64_t first = 0;
    bool have_first = false;
    uint64_t records = 0, with_pid = 0, with_name = 0, from_thread = 0;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        if (!have_first && rec.has_timestamp) {
            first = rec.timestamp;
            have_first = true;
        }
        etl_proc_info pi;
        bool known = etl_procs_lookup(c.procs, &rec, &pi);
        records++;
        with_pid += known;
        with_name += pi.name != NULL;
        from_thread += pi.pid_from_thread;
        if (known && pi.pid_from_thread)
            CHECK(rec.pid == ETL_NO_ID || rec.pid == 0xFFFFFFFFu);
        char name[256];
        if (!classic_name(&c, &rec, name, sizeof name))
            continue;
        double ms = (double)(rec.timestamp - first) / 10000.0;
        for (guint i = 0; i < golden->len; i++) {
            gline *g = g_ptr_array_index(golden, i);
            if (g->agrees || g->e->datalen != (long)rec.payload_size || g->e->cpu != rec.cpu || g->e->ms < ms - 0.0011 ||
                g->e->ms > ms + 0.0011 || strcmp(g->e->name, name) != 0)
                continue;
            char ours[128];
            strip_ext(pi.name, ours, sizeof ours);
            bool agrees = g->e->pid == -1 ? !known : known && (long)pi.pid == g->e->pid && strcmp(ours, g->e->pname) == 0;
            if (!g->found)
                g_snprintf(g->ours, sizeof g->ours, "PID=%ld PName=%s", known ? (long)pi.pid : -1L, ours);
            g->found = true;
            g->agrees = agrees;
        }
    }
    etl_reader_close(r);
    printf("net452: %" PRIu64 " records, %" PRIu64 " with a process (%" PRIu64 " through their thread), %" PRIu64
           " named\n",
           records, with_pid, from_thread, with_name);
    /* every record but those without any process context (FileIo rundown, stack-key
     * definitions, trace bookkeeping: 6014 of them) */
    CHECK(with_pid * 100 >= records * 96);
    CHECK_EQ_U(with_name, with_pid);

    unsigned found = 0, agree = 0, differ_expected = 0, with_pid_lines = 0;
    for (guint i = 0; i < golden->len; i++) {
        gline *g = g_ptr_array_index(golden, i);
        found += g->found;
        with_pid_lines += g->e->pid != -1;
        bool expected = expected_difference(g);
        if (g->agrees) {
            agree++;
            if (expected) {
                printf("golden: listed as differing but agrees: %.3f ms %s PID=%ld\n", g->e->ms, g->e->name, g->e->pid);
                CHECK(!expected);
            }
        } else if (g->found && expected) {
            differ_expected++;
        } else {
            printf("golden: %s: %.3f ms %s PID=%ld PName=%s; ours %s\n", g->found ? "differs" : "not found", g->e->ms,
                   g->e->name, g->e->pid, g->e->pname, g->ours);
            CHECK(g->agrees);
        }
    }
    printf("golden: %u kernel/KernelTraceControl lines (%u with a PID), %u found, %u agree on PID and PName, %u "
           "differ as listed\n",
           golden->len, with_pid_lines, found, agree, differ_expected);
    CHECK_EQ_U(found, golden->len);
    CHECK_EQ_U(agree + differ_expected, golden->len);
    CHECK_EQ_U(differ_expected, G_N_ELEMENTS(golden_differs) + 1); /* FlushBuffers is listed twice */
    g_ptr_array_free(golden, TRUE);
    g_ptr_array_free(golden_lines, TRUE);
    decoder_context_free(&c);
    g_free(path);
    g_free(gpath);
}

/* ---- 2 and 3. every capture ----------------------------------------------------------------- */

static void test_capture(const char *dir, const char *file)
{
    char *path = g_build_filename(dir, file, NULL);
    decoder_context c;
    decoder_context_init(&c, NULL);
    etl_error err;
    const etl_observer obs = etl_procs_observer(c.procs);
    etl_status st = etl_prescan_file(path, &obs, 1, &err);
    if (st != ETL_OK) {
        /* the empty capture is not an .etl at all */
        CHECK(st == ETL_ERR_NOT_ETL);
        decoder_context_free(&c);
        g_free(path);
        return;
    }
    const etl_procs_stats *ps = etl_procs_get_stats(c.procs);
    CHECK_EQ_U(ps->undecodable, 0);

    etl_stack_links *links = etl_stack_links_new(0);
    etl_reader *r;
    CHECK(etl_reader_open_file(path, NULL, &r, &err) == ETL_OK);
    etl_record rec;
    uint64_t records = 0, named = 0, stacks = 0, linked = 0, same_thread = 0;
    /* the linked events' thread must be the stack's: kept per position for the check */
    GHashTable *tid_of = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        records++;
        etl_proc_info pi;
        etl_procs_lookup(c.procs, &rec, &pi);
        named += pi.name != NULL;
        uint64_t ts, at;
        uint32_t tid;
        if (etl_stackwalk_target_key(&rec, &ts, &tid)) {
            stacks++;
            if (etl_stack_links_find(links, ts, tid, &at)) {
                linked++;
                gpointer t = g_hash_table_lookup(tid_of, &at);
                same_thread += t && GPOINTER_TO_UINT(t) - 1u == tid;
            }
        } else if (etl_procs_event_key(c.procs, &rec, &ts, &tid)) {
            etl_stack_links_add(links, ts, tid, rec.position);
            if (etl_record_is_classic(&rec)) {
                int64_t *k = g_new(int64_t, 1);
                *k = (int64_t)rec.position;
                g_hash_table_replace(tid_of, k, GUINT_TO_POINTER(tid + 1u));
            }
        }
    }
    etl_reader_close(r);
    printf("%s: %" PRIu64 " records, %" PRIu64 " named; process/thread events %" PRIu64 "/%" PRIu64
           " (%u processes, %u threads); stack walks %" PRIu64 ", linked %" PRIu64 ", same thread %" PRIu64 "\n",
           file, records, named, ps->process_events, ps->thread_events, ps->processes, ps->threads, stacks, linked,
           same_thread);
    CHECK_EQ_U(linked, stacks);
    CHECK_EQ_U(same_thread, linked);
    if (strcmp(file, "perfview_net452_x64_merged_compressed.etl") == 0) {
        CHECK(stacks > 9000);
    }
    if (strcmp(file, "etlparser_ShutdownPerfDiagLogger_kernel.etl") == 0 ||
        strcmp(file, "perfview_diaghub_kernel_relogged.etl") == 0) {
        /* kernel traces with rundowns: nearly every record is named */
        CHECK(named * 100 >= records * 99);
    }
    g_hash_table_destroy(tid_of);
    etl_stack_links_free(links);
    decoder_context_free(&c);
    g_free(path);
}

static void test_corpus(const char *dir)
{
    CHECK(capture_list_each(dir, test_capture) >= 19);
}

/* ---- 4. a constructed trace ----------------------------------------------------------------- */

enum { GROUP_PROCESS = 0x03, GROUP_THREAD = 0x05, GROUP_PERFINFO = 0x0F, GROUP_STACKWALK = 0x18 };

typedef struct gen {
    etlw_writer *w;
    unsigned ptr;
} gen;

static void sys_rec(gen *g, enum etlw_system_kind kind, uint8_t group, uint8_t type, uint8_t version, int64_t ts,
                    uint32_t pid, uint32_t tid, const etlw_bytes *payload)
{
    etlw_system_rec r = {0};
    r.kind = kind;
    r.group = group;
    r.type = type;
    r.version = version;
    r.timestamp = ts;
    r.pid = pid;
    r.tid = tid;
    CHECK(etlw_write_system(g->w, 0, &r, payload->data, payload->len) == ETLW_OK);
}

/* Process event: version 4 on 64-bit traces, version 2 on 32-bit ones (both real layouts). */
static void process_ev(gen *g, uint8_t type, int64_t ts, uint32_t pid, const char *image)
{
    uint8_t buf[1024];
    etlw_bytes b;
    etlw_bytes_init(&b, buf, sizeof buf);
    etlw_put_ptr(&b, g->ptr, 0xFFFF800000001000ull);
    etlw_put_u32(&b, pid);
    etlw_put_u32(&b, 4);   /* ParentId */
    etlw_put_u32(&b, 1);   /* SessionId */
    etlw_put_u32(&b, 259); /* ExitStatus */
    if (g->ptr == 8) {
        etlw_put_ptr(&b, 8, 0x1AB000); /* DirectoryTableBase */
        etlw_put_u32(&b, 0);           /* Flags */
    }
    etlw_put_u32(&b, 0); /* UserSID: none */
    etlw_put_strz(&b, image);
    etlw_put_utf16z(&b, "cmd line");
    if (g->ptr == 8) {
        etlw_put_utf16z(&b, "");
        etlw_put_utf16z(&b, "");
    }
    /* Start/End in the logging thread's context (the parent's), rundowns in PERFINFO */
    if (type == 3 || type == 4)
        sys_rec(g, ETLW_PERFINFO, GROUP_PROCESS, type, g->ptr == 8 ? 4 : 2, ts, 0, 0, &b);
    else
        sys_rec(g, ETLW_SYSTEM, GROUP_PROCESS, type, g->ptr == 8 ? 4 : 2, ts, 8, 80, &b);
}

/* Thread event, version 2 (one layout for both pointer sizes). */
static void thread_ev(gen *g, uint8_t type, int64_t ts, uint32_t pid, uint32_t tid)
{
    uint8_t buf[256];
    etlw_bytes b;
    etlw_bytes_init(&b, buf, sizeof buf);
    etlw_put_u32(&b, pid);
    etlw_put_u32(&b, tid);
    for (int i = 0; i < 7; i++)
        etlw_put_ptr(&b, g->ptr, 0x1000u * (unsigned)i);
    etlw_put_u32(&b, 0); /* SubProcessTag */
    sys_rec(g, ETLW_SYSTEM, GROUP_THREAD, type, 2, ts, 8, 80, &b);
}

static void sample_ev(gen *g, int64_t ts, uint32_t tid)
{
    uint8_t buf[64];
    etlw_bytes b;
    etlw_bytes_init(&b, buf, sizeof buf);
    etlw_put_ptr(&b, g->ptr, 0x7FF612340000ull & (g->ptr == 8 ? UINT64_MAX : UINT32_MAX));
    etlw_put_u32(&b, tid);
    etlw_put_u16(&b, 1);
    etlw_put_u16(&b, 0);
    sys_rec(g, ETLW_PERFINFO, GROUP_PERFINFO, 46, 2, ts, 0, 0, &b);
}

static void stack_ev(gen *g, int64_t ts, int64_t target_ts, uint32_t pid, uint32_t tid)
{
    uint8_t buf[64];
    etlw_bytes b;
    etlw_bytes_init(&b, buf, sizeof buf);
    etlw_put_u64(&b, (uint64_t)target_ts);
    etlw_put_u32(&b, pid);
    etlw_put_u32(&b, tid);
    etlw_put_ptr(&b, g->ptr, 0x401000);
    etlw_put_ptr(&b, g->ptr, 0x402000);
    sys_rec(g, ETLW_PERFINFO, GROUP_STACKWALK, 32, 2, ts, 0, 0, &b);
}

/* An event the document does not describe, with the given header ids (SYSTEM header). */
static void plain_ev(gen *g, int64_t ts, uint32_t pid, uint32_t tid)
{
    etlw_bytes b;
    uint8_t buf[8] = {0};
    etlw_bytes_init(&b, buf, sizeof buf);
    etlw_put_u32(&b, 0);
    sys_rec(g, ETLW_SYSTEM, GROUP_PERFINFO, 99, 2, ts, pid, tid, &b);
}

#define LONG_NAME_LEN 300

/* Timeline (raw QPC ticks after the anchor T0):
 *   10  DCStart pid 100 "old.exe"; Thread DCStart tid 200 -> 100; Thread DCStart tid 0 -> 0
 *   20  Sample on thread 200; 21 its stack walk
 *   30  Thread End 200; 40 Process End 100
 *   50  Process Start pid 100 "new.exe" (logged by pid 8); 60 Thread Start 200 -> 100
 *   70  Sample on thread 200; 71 its stack walk
 *   80  End of pid 300 "gone.exe" (its Start was before the trace)
 *   90  DCEnd pid 500 "late.exe" (only in the end rundown); DCEnd pid 100 "new.exe"
 *   95  DCEnd pid 600 with a 300-byte name
 * and plain events (header ids only) in between, one at 5 naming pid 500. */
static void build_trace(unsigned ptr, etlw_mem *mem, int64_t T0)
{
    etlw_config c;
    etlw_config_init(&c);
    c.pointer_size = ptr;
    c.clock_type = ETLW_CLOCK_QPC;
    c.perf_freq = 10000000;
    c.header_timestamp = T0;
    c.buffer_size = 8192;
    c.num_cpus = 1;
    gen g = {NULL, ptr};
    CHECK(etlw_open(&g.w, &c, etlw_mem_sink(mem, 1 << 20)) == ETLW_OK);
    plain_ev(&g, T0 + 5, 500, 501); /* before everything: late.exe only after a pre-scan */
    process_ev(&g, 3, T0 + 10, 100, "old.exe");
    thread_ev(&g, 3, T0 + 10, 100, 200);
    thread_ev(&g, 3, T0 + 10, 0, 0);
    sample_ev(&g, T0 + 20, 200);
    stack_ev(&g, T0 + 21, T0 + 20, 100, 200);
    plain_ev(&g, T0 + 25, 100, 200);
    thread_ev(&g, 2, T0 + 30, 100, 200);
    process_ev(&g, 2, T0 + 40, 100, "old.exe");
    plain_ev(&g, T0 + 45, 100, 200); /* after old's End, before new's Start: old's */
    process_ev(&g, 1, T0 + 50, 100, "new.exe");
    thread_ev(&g, 1, T0 + 60, 100, 200);
    sample_ev(&g, T0 + 70, 200);
    stack_ev(&g, T0 + 71, T0 + 70, 100, 200);
    plain_ev(&g, T0 + 75, 300, 301);
    process_ev(&g, 2, T0 + 80, 300, "gone.exe");
    plain_ev(&g, T0 + 85, 300, 301); /* after gone's End, nothing later: still gone's */
    plain_ev(&g, T0 + 86, 0xFFFFFFFFu, 0xFFFFFFFFu);
    plain_ev(&g, T0 + 87, 4, 44);
    plain_ev(&g, T0 + 88, 777, 778);
    sample_ev(&g, T0 + 89, 999);
    sample_ev(&g, T0 + 89, 0);
    process_ev(&g, 4, T0 + 90, 500, "late.exe");
    process_ev(&g, 4, T0 + 90, 100, "new.exe");
    char longname[LONG_NAME_LEN + 1];
    memset(longname, 'x', LONG_NAME_LEN);
    longname[LONG_NAME_LEN] = 0;
    process_ev(&g, 4, T0 + 95, 600, longname);
    plain_ev(&g, T0 + 96, 600, 601);
    CHECK(etlw_close(g.w) == ETLW_OK);
    etlw_destroy(g.w);
}

typedef struct seen {
    int64_t t;        /* ticks after T0 */
    uint8_t group, type;
    etl_proc_info pi;
    char name[ETL_PROCS_MAX_NAME + 1];
    bool has_name;
    uint64_t position, stack_of;
    bool linked;
} seen;

/* Read the trace in time order; with `prescan` the lifetimes are known first, else they are
 * fed as the records come (streaming). `reverse`: observations fed last record first. */
static GArray *read_trace(const etlw_mem *mem, int64_t T0, bool prescan, bool reverse)
{
    decoder_context c;
    decoder_context_init(&c, NULL);
    etl_reader *r;
    etl_error err;
    etl_record rec;
    if (prescan) {
        CHECK(etl_reader_open_memory(mem->data, mem->len, NULL, &r, &err) == ETL_OK);
        GPtrArray *copies = g_ptr_array_new();
        while (etl_reader_next(r, &rec, &err) == ETL_OK) {
            /* keep copies: a record view lives until the next call */
            etl_record *k = g_memdup2(&rec, sizeof rec);
            k->bytes = g_memdup2(rec.bytes, rec.size);
            g_ptr_array_add(copies, k);
        }
        etl_reader_close(r);
        for (guint i = 0; i < copies->len; i++)
            etl_procs_observe(c.procs, g_ptr_array_index(copies, reverse ? copies->len - 1 - i : i));
        for (guint i = 0; i < copies->len; i++) {
            etl_record *k = g_ptr_array_index(copies, i);
            g_free((void *)k->bytes);
            g_free(k);
        }
        g_ptr_array_free(copies, TRUE);
    }
    GArray *out = g_array_new(FALSE, TRUE, sizeof(seen));
    etl_stack_links *links = etl_stack_links_new(16);
    CHECK(etl_reader_open_memory(mem->data, mem->len, NULL, &r, &err) == ETL_OK);
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        if (rec.is_logfile_header)
            continue;
        if (!prescan)
            etl_procs_observe(c.procs, &rec);
        seen s = {0};
        s.t = rec.timestamp_raw - T0;
        s.group = rec.group;
        s.type = rec.opcode;
        s.position = rec.position;
        etl_procs_lookup(c.procs, &rec, &s.pi);
        if (s.pi.name) {
            g_strlcpy(s.name, s.pi.name, sizeof s.name);
            s.has_name = true;
        }
        s.pi.name = NULL; /* owned by the procs freed below */
        uint64_t ts;
        uint32_t tid;
        if (etl_stackwalk_target_key(&rec, &ts, &tid))
            s.linked = etl_stack_links_find(links, ts, tid, &s.stack_of);
        else if (etl_procs_event_key(c.procs, &rec, &ts, &tid))
            etl_stack_links_add(links, ts, tid, rec.position);
        g_array_append_val(out, s);
    }
    etl_reader_close(r);
    etl_stack_links_free(links);
    decoder_context_free(&c);
    return out;
}

static const seen *find(GArray *a, int64_t t, uint8_t group, uint8_t type, unsigned nth)
{
    for (guint i = 0; i < a->len; i++) {
        const seen *s = &g_array_index(a, seen, i);
        if (s->t == t && s->group == group && s->type == type && nth-- == 0)
            return s;
    }
    fprintf(stderr, "no record at %lld group %u type %u\n", (long long)t, group, type);
    return NULL;
}

#define EXPECT(a, t, grp, typ, nth, want_pid, want_name, want_from_thread)                                      \
    do {                                                                                                      \
        const seen *s_ = find(a, t, grp, typ, nth);                                                           \
        CHECK(s_ != NULL);                                                                                    \
        if (s_) {                                                                                             \
            CHECK_EQ_U(s_->pi.pid, want_pid);                                                                 \
            const char *w_ = (want_name);                                                                     \
            if (w_)                                                                                           \
                CHECK_STR(s_->has_name ? s_->name : "(none)", w_);                                            \
            else                                                                                              \
                CHECK(!s_->has_name);                                                                         \
            CHECK_EQ_U(s_->pi.pid_from_thread, want_from_thread);                                             \
        }                                                                                                     \
    } while (0)

static void test_constructed(unsigned ptr)
{
    const int64_t T0 = 1000000;
    etlw_mem mem = {0};
    build_trace(ptr, &mem, T0);
    printf("constructed %u-bit trace: %zu bytes\n", ptr * 8, mem.len);
    for (int mode = 0; mode < 3; mode++) {
        bool prescan = mode != 2, reverse = mode == 1;
        GArray *a = read_trace(&mem, T0, prescan, reverse);
        CHECK_EQ_U(a->len, 26);
        /* the process and thread events name their subject */
        EXPECT(a, 10, GROUP_PROCESS, 3, 0, 100, "old.exe", false);
        EXPECT(a, 10, GROUP_THREAD, 3, 0, 100, "old.exe", false);
        EXPECT(a, 50, GROUP_PROCESS, 1, 0, 100, "new.exe", false); /* not its parent, pid 8 */
        EXPECT(a, 40, GROUP_PROCESS, 2, 0, 100, "old.exe", false);
        EXPECT(a, 80, GROUP_PROCESS, 2, 0, 300, "gone.exe", false);
        /* samples through their thread, before and after both ids were reused */
        EXPECT(a, 20, GROUP_PERFINFO, 46, 0, 100, "old.exe", true);
        EXPECT(a, 70, GROUP_PERFINFO, 46, 0, 100, "new.exe", true);
        /* header pids at every point of pid 100's two lives */
        EXPECT(a, 25, GROUP_PERFINFO, 99, 0, 100, "old.exe", false);
        EXPECT(a, 45, GROUP_PERFINFO, 99, 0, 100, "old.exe", false);
        /* a process whose Start was before the trace: named after its End (and before it, once
         * the End is known: below) */
        EXPECT(a, 85, GROUP_PERFINFO, 99, 0, 300, "gone.exe", false);
        /* 0xFFFFFFFF is no id; 4 is System even unnamed; an unknown pid has no name */
        EXPECT(a, 86, GROUP_PERFINFO, 99, 0, ETL_NO_ID, NULL, false);
        EXPECT(a, 87, GROUP_PERFINFO, 99, 0, 4, "System", false);
        EXPECT(a, 88, GROUP_PERFINFO, 99, 0, 777, NULL, false);
        /* unknown thread: no process; thread 0 is the idle process's */
        EXPECT(a, 89, GROUP_PERFINFO, 46, 0, ETL_NO_ID, NULL, false);
        EXPECT(a, 89, GROUP_PERFINFO, 46, 1, 0, "Idle", true);
        /* the stack walks: their own process, and the sample they belong to */
        const seen *s21 = find(a, 21, GROUP_STACKWALK, 32, 0), *s20 = find(a, 20, GROUP_PERFINFO, 46, 0);
        const seen *s71 = find(a, 71, GROUP_STACKWALK, 32, 0), *s70 = find(a, 70, GROUP_PERFINFO, 46, 0);
        CHECK(s21 && s20 && s21->linked && s21->stack_of == s20->position);
        CHECK(s71 && s70 && s71->linked && s71->stack_of == s70->position);
        EXPECT(a, 21, GROUP_STACKWALK, 32, 0, 100, "old.exe", false);
        /* long names are cut to the limit */
        const seen *s96 = find(a, 96, GROUP_PERFINFO, 99, 0);
        CHECK(s96 && s96->has_name && strlen(s96->name) == ETL_PROCS_MAX_NAME);
        if (prescan) {
            /* a process known only from the end rundown is named from the start */
            EXPECT(a, 5, GROUP_PERFINFO, 99, 0, 500, "late.exe", false);
            EXPECT(a, 75, GROUP_PERFINFO, 99, 0, 300, "gone.exe", false);
        } else {
            /* streaming: not yet */
            EXPECT(a, 5, GROUP_PERFINFO, 99, 0, 500, NULL, false);
            EXPECT(a, 75, GROUP_PERFINFO, 99, 0, 300, NULL, false);
        }
        g_array_free(a, TRUE);
    }
    etlw_mem_release(&mem);
}

/* The per-id limit: a pid started more often than ETL_PROCS_MAX_EVENTS_PER_ID times keeps its
 * first lifetimes, counts the rest as dropped, and lookups stay answered. */
static void test_limits(void)
{
    const int64_t T0 = 1000000;
    const unsigned n = ETL_PROCS_MAX_EVENTS_PER_ID + 76;
    etlw_config c;
    etlw_config_init(&c);
    c.pointer_size = 8;
    c.clock_type = ETLW_CLOCK_QPC;
    c.header_timestamp = T0;
    c.buffer_size = 65536;
    c.num_cpus = 1;
    etlw_mem mem = {0};
    gen g = {NULL, 8};
    CHECK(etlw_open(&g.w, &c, etlw_mem_sink(&mem, 8 << 20)) == ETLW_OK);
    for (unsigned i = 0; i < n; i++) {
        char name[32];
        g_snprintf(name, sizeof name, "p%u.exe", i);
        process_ev(&g, 1, T0 + 10 * (int64_t)i, 42, name);
    }
    CHECK(etlw_close(g.w) == ETLW_OK);
    etlw_destroy(g.w);
    decoder_context x;
    decoder_context_init(&x, NULL);
    etl_reader *r;
    etl_error err;
    etl_record rec;
    CHECK(etl_reader_open_memory(mem.data, mem.len, NULL, &r, &err) == ETL_OK);
    while (etl_reader_next(r, &rec, &err) == ETL_OK)
        etl_procs_observe(x.procs, &rec);
    etl_reader_close(r);
    const etl_procs_stats *st = etl_procs_get_stats(x.procs);
    CHECK_EQ_U(st->process_events, ETL_PROCS_MAX_EVENTS_PER_ID);
    CHECK_EQ_U(st->dropped, 76);
    CHECK_STR(etl_procs_name_at(x.procs, 42, T0 + 10 * 5 + 3), "p5.exe");
    CHECK_STR(etl_procs_name_at(x.procs, 42, T0 + 10 * (int64_t)n), "p1023.exe");
    CHECK(etl_procs_name_at(x.procs, 42, T0 - 1) == NULL);
    decoder_context_free(&x);
    etlw_mem_release(&mem);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_procs CAPTURES_DIR GOLDENS_DIR\n");
        return 2;
    }
    test_constructed(8);
    test_constructed(4);
    test_limits();
    test_golden(argv[1], argv[2]);
    test_corpus(argv[1]);
    CHECK_MAIN_END();
}
