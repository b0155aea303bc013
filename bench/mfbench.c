/* mfbench - speed of manifest-based events: start-up (loading a manifest search path) and field
 * decoding in ns per event on the manifest events of real or generated captures.
 *
 *   mfbench [--repeat N] --manifest-path PATH [FILE...]
 *
 * Start-up rows (best of N, a new registry each time):
 *   load          etl_registry_add_path on PATH: read and parse every manifest, index providers,
 *                 compare the definitions of providers two files share (CPU and wall time)
 * Per FILE (read into memory first; its manifest events - EVENT_HEADER records without
 * TraceLogging metadata that some source describes - copied aside):
 *   prescan       etl_prescan (registry observer) over the trace (MetaData records, EventSource chunks)
 *   compile       the first lookup of every distinct key: resolve and compile (ms for all)
 *   items         registry lookup (a hit) + every item of the event through the enumerator
 *   items/warm    the enumerator alone, schemas already in hand
 *   +text         items + the text of every VALUE (etl_value_format, map names included)
 * Goal (issue 5): the same per-event cost as TraceLogging (bench/tlbench), and loading 20
 * manifests under 50 ms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "etl.h"
#include "fields.h"
#include "schema_cache.h"
#include "prescan.h"
#include "registry.h"
#include "value_format.h"

typedef struct mf_event {
    etl_guid provider;
    uint16_t id;
    uint8_t version, pointer_size;
    uint32_t data_off, data_len;
    const etl_schema *schema; /* from the cold pass */
} mf_event;

typedef struct events {
    mf_event *v;
    size_t n, cap;
    uint8_t *pool;
    size_t pool_len, pool_cap;
} events;

static void collect(const struct mem *m, events *e)
{
    etl_reader *r = bench_open_memory("mfbench", m);
    etl_record rec;
    etl_error err;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        if (etl_header_family(rec.header_type) != ETL_FAMILY_EVENT ||
            etl_record_tl_schema(&rec))
            continue;
        e->v = bench_grow("mfbench", e->v, &e->cap, e->n + 1, sizeof *e->v);
        e->pool = bench_grow("mfbench", e->pool, &e->pool_cap, e->pool_len + rec.payload_size, 1);
        mf_event *x = &e->v[e->n++];
        x->provider = rec.provider;
        x->id = rec.event_id;
        x->version = rec.version;
        x->pointer_size = rec.pointer_size;
        x->data_off = (uint32_t)e->pool_len;
        x->data_len = rec.payload_size;
        x->schema = NULL;
        memcpy(e->pool + e->pool_len, rec.bytes + rec.payload_offset, rec.payload_size);
        e->pool_len += rec.payload_size;
    }
    etl_error p;
    while (etl_reader_next_problem(r, &p))
        ;
    etl_reader_close(r);
}

static volatile uint64_t sink;
static char text[ETL_VALUE_TEXT_CAP(65536)];

enum { ROW_ITEMS, ROW_WARM, ROW_TEXT };

static uint64_t run(const events *e, etl_registry *s, int row)
{
    uint64_t items = 0, acc = 0;
    etl_fields f;
    etl_item it;
    etl_error err;
    for (size_t i = 0; i < e->n; i++) {
        const mf_event *x = &e->v[i];
        const etl_schema *sc = x->schema;
        if (!sc)
            continue; /* no source describes it */
        if (row != ROW_WARM &&
            etl_registry_lookup_key(s, &x->provider, x->id, x->version, x->pointer_size, &sc, &err) != ETL_OK)
            continue;
        etl_fields_start(&f, sc, e->pool + x->data_off, x->data_len, x->pointer_size);
        while (etl_fields_next(&f, &it) != ETL_ITEM_END) {
            items++;
            acc += it.size + it.offset;
            if (row == ROW_TEXT && it.kind == ETL_ITEM_VALUE)
                acc += etl_value_format(&it, text, sizeof text);
        }
    }
    sink += acc;
    return items;
}

int main(int argc, char **argv)
{
    int repeat = 5;
    const char *path = NULL;
    int a = 1;
    for (; a < argc; a++) {
        if (strcmp(argv[a], "--repeat") == 0 && a + 1 < argc)
            repeat = atoi(argv[++a]);
        else if (strcmp(argv[a], "--manifest-path") == 0 && a + 1 < argc)
            path = argv[++a];
        else
            break;
    }
    if (!path || repeat < 1) {
        fputs("usage: mfbench [--repeat N] --manifest-path PATH [FILE...]\n", stderr);
        return 2;
    }

    /* start-up */
    double best_cpu = 1e30, best_wall = 1e30;
    etl_registry_stats st = {0};
    for (int k = 0; k < repeat; k++) {
        etl_schema_cache *c = etl_schema_cache_new(NULL);
        double w0 = bench_wall_now(), c0 = bench_cpu_now();
        etl_registry *s = etl_registry_new(c, bench_quiet, NULL);
        etl_registry_add_path(s, path);
        double cpu = bench_cpu_now() - c0, wall = bench_wall_now() - w0;
        st = *etl_registry_get_stats(s);
        etl_registry_free(s);
        etl_schema_cache_free(c);
        if (cpu < best_cpu)
            best_cpu = cpu;
        if (wall < best_wall)
            best_wall = wall;
    }
    printf("load %s: %u manifests (%u failed), %.1f ms CPU, %.1f ms wall (best of %d)\n", path, st.files_loaded,
           st.files_failed, best_cpu * 1e3, best_wall * 1e3, repeat);

    printf("%-44s %-11s %8s %9s %8s %12s %9s\n", "file", "pass", "events", "schemas", "items/ev", "events/s",
           "ns/event");
    for (; a < argc; a++) {
        struct mem m = bench_read_file("mfbench", argv[a]);
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        etl_schema_cache *c = etl_schema_cache_new(NULL);
        etl_registry *s = etl_registry_new(c, bench_quiet, NULL);
        etl_registry_add_path(s, path);
        etl_error err;
        double t0 = bench_cpu_now();
        etl_reader *r = bench_open_memory("mfbench", &m);
        const etl_observer obs = etl_registry_observer(s);
        etl_prescan(r, &obs, 1, &err);
        etl_reader_close(r);
        double prescan = bench_cpu_now() - t0;
        events e = {0};
        collect(&m, &e);
        t0 = bench_cpu_now();
        size_t described = 0;
        for (size_t i = 0; i < e.n; i++) { /* cold pass: each distinct key compiled once */
            mf_event *x = &e.v[i];
            if (etl_registry_lookup_key(s, &x->provider, x->id, x->version, x->pointer_size, &x->schema, &err) == ETL_OK)
                described++;
            else
                x->schema = NULL;
        }
        double compile = bench_cpu_now() - t0;
        uint32_t schemas = etl_schema_cache_count(c);
        printf("%-44.44s %-11s %8zu %9u %8s %12s %9.2f ms\n", name, "prescan", e.n, schemas, "", "", prescan * 1e3);
        printf("%-44.44s %-11s %8zu %9u %8s %12s %9.2f ms\n", name, "compile", described, schemas, "", "",
               compile * 1e3);
        if (described) {
            int loops = (int)(200000 / described) + 1;
            static const char *labels[] = {"items", "items/warm", "+text"};
            for (int row = ROW_ITEMS; row <= ROW_TEXT; row++) {
                double best = 1e30;
                uint64_t items = 0;
                for (int k = 0; k < repeat; k++) {
                    double c0 = bench_cpu_now();
                    items = 0;
                    for (int l = 0; l < loops; l++)
                        items += run(&e, s, row);
                    double t = (bench_cpu_now() - c0) / loops;
                    if (t < best)
                        best = t;
                }
                printf("%-44.44s %-11s %8zu %9u %8.1f %12.0f %9.1f\n", name, labels[row], described, schemas,
                       (double)items / loops / (double)described, (double)described / best,
                       best * 1e9 / (double)described);
            }
        }
        etl_registry_free(s);
        etl_schema_cache_free(c);
        free(e.v);
        free(e.pool);
        free((void *)m.p);
    }
    return 0;
}
