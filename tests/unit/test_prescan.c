/* Unit tests of prescan.c, the one pass before decoding: on every capture, one pass feeding the
 * registry, the process table and a counting observer leaves the registry and the table as a
 * pass of their own each would (what the plugin did before: two reads of the trace), and the
 * counter saw every record once, in file order; the pass on two threads shows the observers what
 * one pass shows them; damage is tolerated; too many observers are refused.  Prints, for net452,
 * the time of the one pass beside two passes and an MD5 of the same file in the same run (the
 * ratio is the figure to compare across builds). */
#include <glib.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "capture_list.h"
#include "check.h"
#include "decoder_context.h"
#include "prescan.h"
#include "procs.h"
#include "volumes.h"

static void quiet(void *ctx, etl_registry_severity sev, const char *msg)
{
    (void)ctx, (void)sev, (void)msg;
}

typedef struct counter {
    uint64_t records;
    uint64_t last_position;
    bool out_of_order;
} counter;

static void count_record(void *ctx, const etl_record *rec)
{
    counter *c = ctx;
    if (c->records && rec->position <= c->last_position)
        c->out_of_order = true;
    c->last_position = rec->position;
    c->records++;
}

/* Records the reader delivers in file order, counted apart from the prescan. */
static uint64_t records_in(const char *path)
{
    etl_options opt = {0};
    opt.order = ETL_ORDER_FILE;
    etl_reader *r;
    etl_error err;
    if (etl_reader_open_file(path, &opt, &r, &err) != ETL_OK)
        return 0;
    etl_record rec;
    uint64_t n = 0;
    while (etl_reader_next(r, &rec, &err) == ETL_OK)
        n++;
    etl_reader_close(r);
    return n;
}

static void test_capture(const char *dir, const char *file)
{
    char *path = g_build_filename(dir, file, NULL);
    decoder_context one, apart;
    decoder_context_init(&one, quiet);
    decoder_context_init(&apart, quiet);
    counter cnt = {0};
    etl_error err;
    const etl_observer obs[] = { etl_registry_observer(one.reg), etl_procs_observer(one.procs),
                                 { count_record, &cnt } };
    etl_status st = etl_prescan_file(path, obs, 3, &err);
    if (st == ETL_ERR_NOT_ETL) { /* the empty capture is not an .etl at all */
        decoder_context_free(&one);
        decoder_context_free(&apart);
        g_free(path);
        return;
    }
    CHECK_EQ_U(st, ETL_OK);
    const etl_observer reg_only = etl_registry_observer(apart.reg), procs_only = etl_procs_observer(apart.procs);
    CHECK_EQ_U(etl_prescan_file(path, &reg_only, 1, &err), ETL_OK);
    CHECK_EQ_U(etl_prescan_file(path, &procs_only, 1, &err), ETL_OK);

    const etl_registry_stats *a = etl_registry_get_stats(one.reg), *b = etl_registry_get_stats(apart.reg);
    CHECK_EQ_U(a->stream_manifests, b->stream_manifests);
    CHECK_EQ_U(a->carried_events, b->carried_events);
    CHECK_EQ_U(a->carried_maps, b->carried_maps);
    const etl_procs_stats *p = etl_procs_get_stats(one.procs), *q = etl_procs_get_stats(apart.procs);
    CHECK_EQ_U(p->process_events, q->process_events);
    CHECK_EQ_U(p->thread_events, q->thread_events);
    CHECK_EQ_U(p->processes, q->processes);
    CHECK_EQ_U(p->threads, q->threads);
    CHECK_EQ_U(p->undecodable, q->undecodable);
    CHECK_EQ_U(cnt.records, records_in(path));
    CHECK(!cnt.out_of_order);
    printf("%-52s %8" PRIu64 " records, %u carried, %u stream manifests, %" PRIu64 " process + %" PRIu64
           " thread events\n", file, cnt.records, a->carried_events, a->stream_manifests, p->process_events,
           p->thread_events);
    decoder_context_free(&one);
    decoder_context_free(&apart);
    g_free(path);
}

/* ---- passing the kernel's compact records unframed (etl_reader_next_of) ------------------- */

/* etldump's observers' filters, in pairs: what each takes of a record, and which hook and
 * event ids. */
static const struct {
    const char *name;
    etl_wants_fn wants;
    etl_wants_ids_fn ids;
} FILTERS[] = {
    { "registry", etl_registry_observer_wants, etl_registry_observer_wants_ids },
    { "procs", etl_procs_wants, etl_procs_wants_ids },
    { "volumes", etl_volumes_is_mapping, etl_volumes_wants_ids },
};

static bool any_wants(const etl_record *rec)
{
    for (size_t i = 0; i < G_N_ELEMENTS(FILTERS); i++)
        if (FILTERS[i].wants(rec))
            return true;
    return false;
}

/* Every system-family header type and every hook id, and every event id of an event-header
 * record, framed from bytes as the reader frames them: each filter's id set holds every id its
 * record filter might take. */
static void test_ids_agree(void)
{
    static const uint8_t types[] = { ETL_HT_SYSTEM32, ETL_HT_SYSTEM64, ETL_HT_COMPACT32,
                                     ETL_HT_COMPACT64, ETL_HT_PERFINFO32, ETL_HT_PERFINFO64 };
    for (size_t f = 0; f < G_N_ELEMENTS(FILTERS); f++) {
        etl_id_set *set = g_new0(etl_id_set, 1);
        FILTERS[f].ids(set);
        unsigned taken = 0, in_set = 0, missed = 0;
        for (unsigned hook = 0; hook < 65536; hook++)
            in_set += etl_id_set_has_hook(set, (uint16_t)hook);
        for (size_t t = 0; t < G_N_ELEMENTS(types); t++) {
            for (unsigned hook = 0; hook < 65536; hook++) {
                uint8_t b[0x28] = {0};
                b[0] = 2; /* version 2, no PEBS or PMC */
                b[2] = types[t];
                b[3] = 0xC0;
                b[4] = sizeof b;
                b[6] = (uint8_t)hook;
                b[7] = (uint8_t)(hook >> 8);
                etl_record rec;
                uint32_t stride;
                etl_error err;
                memset(&rec, 0, sizeof rec);
                CHECK_EQ_U(etl_frame_record(b, sizeof b, 8, &rec, &stride, &err), ETL_OK);
                CHECK_EQ_U(rec.hook_id, hook);
                if (FILTERS[f].wants(&rec)) {
                    taken++;
                    missed += !etl_id_set_has_hook(set, (uint16_t)hook);
                }
            }
        }
        printf("filter %-8s takes %u of the system family's framings; its set holds %u hook ids\n",
               FILTERS[f].name, taken, in_set);
        CHECK_EQ_U(missed, 0);
        /* event-header records, every event id, as an EventSource manifest chunk would carry
         * it (opcode 0xFE, task 0xFFFE) and as any other event */
        taken = missed = in_set = 0;
        for (unsigned id = 0; id < 65536; id++)
            in_set += etl_id_set_has_event_id(set, (uint16_t)id);
        for (int chunk = 0; chunk < 2; chunk++) {
            for (unsigned id = 0; id < 65536; id++) {
                uint8_t b[0x58] = {0};
                b[0] = sizeof b;
                b[2] = ETL_HT_EVENT_HEADER64;
                b[3] = 0xC0;
                b[0x28] = (uint8_t)id;
                b[0x29] = (uint8_t)(id >> 8);
                if (chunk) {
                    b[0x2D] = 0xFE;
                    b[0x2E] = 0xFE; /* task 0xFFFE */
                    b[0x2F] = 0xFF;
                }
                etl_record rec;
                uint32_t stride;
                etl_error err;
                memset(&rec, 0, sizeof rec);
                CHECK_EQ_U(etl_frame_record(b, sizeof b, 8, &rec, &stride, &err), ETL_OK);
                CHECK_EQ_U(rec.event_id, id);
                if (FILTERS[f].wants(&rec)) {
                    taken++;
                    missed += !etl_id_set_has_event_id(set, (uint16_t)id);
                }
            }
        }
        printf("filter %-8s takes %u of the event-header framings; its set holds %u event ids\n",
               FILTERS[f].name, taken, in_set);
        CHECK_EQ_U(missed, 0);
        g_free(set);
    }
    /* the process table's: Process/Start and Thread/DCStart in, Thread/CSwitch out */
    etl_id_set *procs = g_new0(etl_id_set, 1);
    etl_procs_wants_ids(procs);
    CHECK(etl_id_set_has_hook(procs, 0x0301));
    CHECK(etl_id_set_has_hook(procs, 0x0503));
    CHECK(!etl_id_set_has_hook(procs, 0x0524));
    CHECK(!etl_id_set_has_hook(procs, 0x0F2E)); /* PerfInfo/SampleProf */
    g_free(procs);
    /* the registry's: the EventSource manifest chunks' event id, and it takes one */
    etl_id_set *reg = g_new0(etl_id_set, 1);
    etl_registry_observer_wants_ids(reg);
    CHECK(etl_id_set_has_event_id(reg, 0xFFFE));
    CHECK(!etl_id_set_has_event_id(reg, 1));
    g_free(reg);
}

/* The positions of the records some filter takes, read through etl_reader_next (ids NULL)
 * or etl_reader_next_of; *delivered counts what the reader handed out. */
static GArray *wanted_positions(const char *path, const etl_id_set *ids, uint64_t *delivered)
{
    GArray *a = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    *delivered = 0;
    etl_options opt = {0};
    opt.order = ETL_ORDER_FILE;
    etl_reader *r;
    etl_error err;
    if (etl_reader_open_file(path, &opt, &r, &err) != ETL_OK)
        return a;
    etl_record rec;
    while ((ids ? etl_reader_next_of(r, ids, &rec, &err) : etl_reader_next(r, &rec, &err)) == ETL_OK) {
        (*delivered)++;
        if (any_wants(&rec))
            g_array_append_val(a, rec.position);
    }
    etl_error p;
    unsigned problems = 0;
    while (etl_reader_next_problem(r, &p))
        problems++;
    etl_reader_close(r);
    uint64_t mark = UINT64_MAX - problems; /* the damage reports count too */
    g_array_append_val(a, mark);
    return a;
}

static uint64_t passed_total, framed_total;

/* One file: etl_reader_next_of hands the filters every record they take, at the same
 * positions, and the same damage reports. */
static void check_next_of(const char *path)
{
    etl_id_set *set = g_new0(etl_id_set, 1);
    for (size_t i = 0; i < G_N_ELEMENTS(FILTERS); i++)
        FILTERS[i].ids(set);
    uint64_t all, some;
    GArray *every = wanted_positions(path, NULL, &all), *skim = wanted_positions(path, set, &some);
    CHECK_EQ_U(skim->len, every->len);
    /* none for a file that does not open (the empty capture): no array memory to compare */
    if (skim->len && every->len)
        CHECK(memcmp(skim->data, every->data, MIN(skim->len, every->len) * sizeof(uint64_t)) == 0);
    CHECK(some <= all);
    passed_total += all - some;
    framed_total += all;
    g_array_free(every, TRUE);
    g_array_free(skim, TRUE);
    g_free(set);
}

/* ---- the pass in two steps (etl_prescan_open, etl_prescan_reader_filtered) -------------- */

typedef struct open_job {
    const char *path;
    etl_inflate_cache *cache;
    etl_reader *r;
    etl_status st;
    etl_error err;
} open_job;

static bool any_record(const etl_record *rec)
{
    (void)rec;
    return true;
}

/* The observers' filters (FILTERS), then one more observer's, which frames every record. */
static void filters_then(etl_wants_fn *wants, etl_wants_ids_fn *ids, etl_wants_fn last)
{
    for (size_t i = 0; i < G_N_ELEMENTS(FILTERS); i++) {
        wants[i] = FILTERS[i].wants;
        ids[i] = FILTERS[i].ids;
    }
    wants[G_N_ELEMENTS(FILTERS)] = last;
    ids[G_N_ELEMENTS(FILTERS)] = NULL;
}

static gpointer open_on_thread(gpointer arg)
{
    open_job *job = arg;
    job->st = etl_prescan_open(job->path, job->cache, &job->r, &job->err);
    return NULL;
}

/* The pass's reader opened on another thread while this one opens a decoding reader of the
 * same file through the same inflate cache (as etldump does with --threads): the observers see
 * what etl_prescan_file_filtered shows them, every record once, in file order; and so does the
 * decoding reader afterwards. */
static void test_two_steps(const char *dir, const char *file)
{
    char *path = g_build_filename(dir, file, NULL);
    etl_wants_fn wants[G_N_ELEMENTS(FILTERS) + 1];
    etl_wants_ids_fn ids[G_N_ELEMENTS(FILTERS) + 1];
    filters_then(wants, ids, any_record); /* the counter: every record */
    counter whole = {0}, steps = {0};
    decoder_context a, b;
    decoder_context_init(&a, quiet);
    decoder_context_init(&b, quiet);
    etl_volumes *va = etl_volumes_new(a.reg), *vb = etl_volumes_new(b.reg);
    const etl_observer obs_a[] = { etl_registry_observer(a.reg), etl_procs_observer(a.procs),
                                   etl_volumes_observer(va), { count_record, &whole } };
    const etl_observer obs_b[] = { etl_registry_observer(b.reg), etl_procs_observer(b.procs),
                                   etl_volumes_observer(vb), { count_record, &steps } };
    etl_error err;
    etl_status want = etl_prescan_file_filtered(path, 1, NULL, obs_a, wants, ids, G_N_ELEMENTS(obs_a), &err);

    etl_inflate_cache *cache = etl_inflate_cache_new(32u << 20);
    open_job job = { path, cache, NULL, ETL_OK, {0} };
    GThread *t = g_thread_new("prescan-open", open_on_thread, &job);
    etl_options opt = {0};
    opt.inflate_cache = cache;
    etl_reader *dec;
    etl_status dst = etl_reader_open_file(path, &opt, &dec, &err);
    g_thread_join(t);
    CHECK_EQ_U(job.st, dst); /* the same file: both open, or neither */
    if (job.st == ETL_OK) {
        CHECK_EQ_U(etl_prescan_reader_filtered(job.r, path, 1, obs_b, wants, ids, G_N_ELEMENTS(obs_b), &err), want);
        CHECK_EQ_U(steps.records, whole.records);
        CHECK(!steps.out_of_order);
        CHECK(!whole.out_of_order); /* the helper's copies keep the file's positions */
        const etl_registry_stats *ra = etl_registry_get_stats(a.reg), *rb = etl_registry_get_stats(b.reg);
        CHECK_EQ_U(rb->carried_events, ra->carried_events);
        CHECK_EQ_U(rb->stream_manifests, ra->stream_manifests);
        const etl_procs_stats *pa = etl_procs_get_stats(a.procs), *pb = etl_procs_get_stats(b.procs);
        CHECK_EQ_U(pb->processes, pa->processes);
        CHECK_EQ_U(pb->threads, pa->threads);
        etl_record rec;
        uint64_t n = 0;
        while (etl_reader_next(dec, &rec, &err) == ETL_OK)
            n++;
        CHECK_EQ_U(n, whole.records); /* what the cache held for it was the file's */
        etl_reader_close(dec);
    }
    etl_inflate_cache_free(cache);
    etl_volumes_free(va);
    etl_volumes_free(vb);
    decoder_context_free(&a);
    decoder_context_free(&b);
    g_free(path);
}

/* An observer that keeps the position of every record some filter wants, in the order seen. */
static void keep_wanted_position(void *ctx, const etl_record *rec)
{
    if (any_wants(rec))
        g_array_append_val((GArray *)ctx, rec->position);
}

/* The pass on two threads (a large uncompressed file: the helper takes pieces from the back)
 * shows the observers what one pass shows them: the wanted records at the same positions, in
 * the same order, and the same process table and carried schemas. */
static void test_split(const char *dir, const char *file)
{
    char *path = g_build_filename(dir, file, NULL);
    etl_wants_fn wants[G_N_ELEMENTS(FILTERS) + 1];
    etl_wants_ids_fn ids[G_N_ELEMENTS(FILTERS) + 1];
    filters_then(wants, ids, any_wants); /* the position keeper: what the others want */
    decoder_context one, two;
    decoder_context_init(&one, quiet);
    decoder_context_init(&two, quiet);
    GArray *seen_one = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    GArray *seen_two = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    etl_volumes *v1 = etl_volumes_new(one.reg), *v2 = etl_volumes_new(two.reg);
    const etl_observer obs1[] = { etl_registry_observer(one.reg), etl_procs_observer(one.procs),
                                  etl_volumes_observer(v1), { keep_wanted_position, seen_one } };
    const etl_observer obs2[] = { etl_registry_observer(two.reg), etl_procs_observer(two.procs),
                                  etl_volumes_observer(v2), { keep_wanted_position, seen_two } };
    etl_error err;
    etl_status st1 = etl_prescan_file_filtered(path, 0, NULL, obs1, wants, ids, G_N_ELEMENTS(obs1), &err);
    etl_status st2 = etl_prescan_file_filtered(path, 1, NULL, obs2, wants, ids, G_N_ELEMENTS(obs2), &err);
    CHECK_EQ_U(st2, st1);
    CHECK_EQ_U(seen_two->len, seen_one->len);
    if (seen_one->len && seen_two->len == seen_one->len)
        CHECK(memcmp(seen_one->data, seen_two->data, seen_one->len * sizeof(uint64_t)) == 0);
    const etl_procs_stats *p1 = etl_procs_get_stats(one.procs), *p2 = etl_procs_get_stats(two.procs);
    CHECK_EQ_U(p2->processes, p1->processes);
    CHECK_EQ_U(p2->threads, p1->threads);
    const etl_registry_stats *r1 = etl_registry_get_stats(one.reg), *r2 = etl_registry_get_stats(two.reg);
    CHECK_EQ_U(r2->carried_events, r1->carried_events);
    CHECK_EQ_U(r2->stream_manifests, r1->stream_manifests);
    g_array_free(seen_one, TRUE);
    g_array_free(seen_two, TRUE);
    etl_volumes_free(v1);
    etl_volumes_free(v2);
    decoder_context_free(&one);
    decoder_context_free(&two);
    g_free(path);
}

static void test_next_of(const char *dir, const char *file)
{
    char *path = g_build_filename(dir, file, NULL);
    check_next_of(path);
    g_free(path);
}

static void test_corpus(const char *dir)
{
    CHECK(capture_list_each(dir, test_capture) >= 10);
    CHECK(capture_list_each(dir, test_next_of) >= 10);
    CHECK(capture_list_each(dir, test_two_steps) >= 10);
    CHECK(capture_list_each(dir, test_split) >= 10);
    printf("etl_reader_next_of passed %" PRIu64 " of the corpus's %" PRIu64 " records unframed\n", passed_total,
           framed_total);
    CHECK(passed_total > framed_total / 4); /* the kernel traces are most of the corpus */
}

/* A truncated trace (a buffer cut short): the pass goes to the end it can read and succeeds. */
static void test_damage(const char *dir)
{
    char *path = g_build_filename(dir, "perfview_gcevents_clr.etl", NULL);
    gchar *bytes;
    gsize len;
    CHECK(g_file_get_contents(path, &bytes, &len, NULL));
    char *cut = g_build_filename(g_get_tmp_dir(), "test_prescan_cut.etl", NULL);
    CHECK(g_file_set_contents(cut, bytes, (gssize)(len / 2 + 1000), NULL));
    counter cnt = {0};
    const etl_observer obs = { count_record, &cnt };
    etl_error err;
    CHECK_EQ_U(etl_prescan_file(cut, &obs, 1, &err), ETL_OK);
    CHECK(cnt.records > 0 && cnt.records < records_in(path));
    check_next_of(cut);
    g_unlink(cut);
    g_free(cut);
    g_free(bytes);
    g_free(path);
}

static void test_arguments(const char *dir)
{
    char *path = g_build_filename(dir, "perfview_gcevents_clr.etl", NULL);
    etl_observer many[ETL_PRESCAN_MAX_OBSERVERS + 1];
    counter cnt = {0};
    for (size_t i = 0; i < G_N_ELEMENTS(many); i++)
        many[i] = (etl_observer){ count_record, &cnt };
    etl_error err;
    CHECK_EQ_U(etl_prescan_file(path, many, G_N_ELEMENTS(many), &err), ETL_ERR_ARG);
    CHECK_EQ_U(cnt.records, 0);
    CHECK(etl_prescan_file("/nonexistent/trace.etl", many, 1, &err) != ETL_OK);
    CHECK_EQ_U(etl_prescan_file(path, NULL, 0, &err), ETL_OK); /* no observer: a plain read */
    etl_reader *r = NULL;
    CHECK(etl_prescan_open("/nonexistent/trace.etl", NULL, &r, &err) != ETL_OK);
    CHECK(strstr(err.message, "/nonexistent/trace.etl") != NULL);
    CHECK_EQ_U(etl_prescan_open(path, NULL, &r, &err), ETL_OK);
    CHECK_EQ_U(etl_prescan_reader_filtered(r, NULL, 0, NULL, NULL, NULL, 0, &err), ETL_ERR_ARG); /* r closed */
    CHECK_EQ_U(etl_prescan_reader_filtered(NULL, path, 0, NULL, NULL, NULL, 0, &err), ETL_ERR_ARG);
    g_free(path);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Best of 5 of: MD5 of the file (read from disk), one pass feeding registry and process table,
 * and the two passes of one observer each the plugin made before. */
static void time_net452(const char *dir)
{
    char *path = g_build_filename(dir, "perfview_net452_x64_merged_compressed.etl", NULL);
    double md5 = 1e9, one = 1e9, two = 1e9;
    for (int k = 0; k < 5; k++) {
        double t0 = now();
        gchar *bytes;
        gsize len;
        if (!g_file_get_contents(path, &bytes, &len, NULL))
            break;
        g_free(g_compute_checksum_for_data(G_CHECKSUM_MD5, (const guchar *)bytes, len));
        g_free(bytes);
        double t1 = now();
        decoder_context c;
        decoder_context_init(&c, quiet);
        etl_error err;
        const etl_observer obs[] = { etl_registry_observer(c.reg), etl_procs_observer(c.procs) };
        etl_prescan_file(path, obs, 2, &err);
        double t2 = now();
        decoder_context_free(&c);
        decoder_context_init(&c, quiet);
        double t3 = now();
        const etl_observer ro = etl_registry_observer(c.reg), po = etl_procs_observer(c.procs);
        etl_prescan_file(path, &ro, 1, &err);
        etl_prescan_file(path, &po, 1, &err);
        double t4 = now();
        decoder_context_free(&c);
        md5 = MIN(md5, t1 - t0), one = MIN(one, t2 - t1), two = MIN(two, t4 - t3);
    }
    printf("net452 prescan (best of 5): md5 %.2f ms, one pass %.2f ms (%.2fx md5), two passes %.2f ms "
           "(%.2fx md5)\n", md5 * 1e3, one * 1e3, one / md5, two * 1e3, two / md5);
    g_free(path);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_prescan CAPTURES\n");
        return 2;
    }
    test_ids_agree();
    test_arguments(argv[1]);
    test_damage(argv[1]);
    test_corpus(argv[1]);
    time_net452(argv[1]);
    CHECK_MAIN_END();
}
