/* tlbench - speed of TraceLogging field decoding, in ns per event, on the TraceLogging events of
 * real or generated captures.
 *
 *   tlbench [--repeat N] FILE...
 *
 * Each file is read first and its TraceLogging events (EVENT_SCHEMA_TL bytes, payload, pointer
 * size) are copied aside, so the figures are the field decoder's own cost, not the reader's.
 * Rows, each the best of N timed runs over all those events (CPU time):
 *   items        schema cache lookup (a hit) + every item of the event through the enumerator
 *   items/warm   the enumerator alone, schemas already in hand
 *   items/skip   items, passing over arrays of fixed-size elements in one step (etl_fields_skip),
 *                as etldump does for char arrays: what a consumer that takes such arrays whole pays
 *   +typed       items + a typed value (etl_value_decode) for every VALUE
 *   +text        items + the text (etl_value_format) of every VALUE, as etl.field.value needs
 * The first (cold) pass, which compiles each distinct schema once, is not timed.
 * Goal: "items" under 100 ns per event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "etl.h"
#include "fields.h"
#include "schema_cache.h"
#include "value_format.h"



/* One TraceLogging event, copied out of its buffer. */
typedef struct tl_event {
    uint32_t meta_off, meta_len; /* into the pool */
    uint32_t data_off, data_len;
    uint8_t pointer_size;
    const etl_schema *schema;    /* filled by the cold pass */
} tl_event;

typedef struct events {
    tl_event *v;
    size_t n, cap;
    uint8_t *pool;
    size_t pool_len, pool_cap;
} events;

static uint32_t pool_add(events *e, const uint8_t *p, size_t n)
{
    if (e->pool_len + n > e->pool_cap) {
        size_t c = e->pool_cap ? e->pool_cap : 1 << 20;
        while (c < e->pool_len + n)
            c *= 2;
        e->pool = realloc(e->pool, c);
        if (!e->pool) {
            fputs("tlbench: out of memory\n", stderr);
            exit(2);
        }
        e->pool_cap = c;
    }
    memcpy(e->pool + e->pool_len, p, n);
    uint32_t off = (uint32_t)e->pool_len;
    e->pool_len += n;
    return off;
}

static void collect(const struct mem *m, events *e)
{
    etl_reader *r;
    etl_error err;
    etl_options opt = {.order = ETL_ORDER_FILE};
    if (etl_reader_open_memory(m->p, m->n, &opt, &r, &err) != ETL_OK) {
        fprintf(stderr, "tlbench: %s\n", err.message);
        exit(2);
    }
    etl_record rec;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        const etl_ext_item *x = etl_record_tl_schema(&rec);
        if (!x)
            continue;
        if (e->n == e->cap) {
            e->cap = e->cap ? e->cap * 2 : 1024;
            e->v = realloc(e->v, e->cap * sizeof *e->v);
            if (!e->v) {
                fputs("tlbench: out of memory\n", stderr);
                exit(2);
            }
        }
        tl_event *t = &e->v[e->n++];
        t->meta_off = pool_add(e, x->data, x->data_size);
        t->meta_len = x->data_size;
        t->data_off = pool_add(e, rec.bytes + rec.payload_offset, rec.payload_size);
        t->data_len = rec.payload_size;
        t->pointer_size = rec.pointer_size;
        t->schema = NULL;
    }
    etl_error p;
    while (etl_reader_next_problem(r, &p))
        ;
    etl_reader_close(r);
}

static volatile uint64_t sink;
static char text[ETL_VALUE_TEXT_CAP(65536)];

enum { ROW_ITEMS, ROW_WARM, ROW_SKIP, ROW_TYPED, ROW_TEXT };

/* One pass over all events; returns the items seen. */
static uint64_t run(const events *e, etl_schema_cache *c, int row)
{
    uint64_t items = 0, acc = 0;
    etl_fields f;
    etl_item it;
    etl_error err;
    for (size_t i = 0; i < e->n; i++) {
        const tl_event *t = &e->v[i];
        const etl_schema *s = t->schema;
        if (row != ROW_WARM && etl_schema_cache_tl(c, e->pool + t->meta_off, t->meta_len, t->pointer_size, &s, &err) != ETL_OK)
            continue;
        etl_fields_start(&f, s, e->pool + t->data_off, t->data_len, t->pointer_size);
        while (etl_fields_next(&f, &it) != ETL_ITEM_END) {
            items++;
            acc += it.size + it.offset;
            if (row == ROW_SKIP && it.kind == ETL_ITEM_ARRAY_BEGIN && it.elem_size)
                etl_fields_skip(&f);
            if (it.kind != ETL_ITEM_VALUE)
                continue;
            if (row == ROW_TYPED) {
                etl_value v;
                etl_value_decode(&it, &v, text, sizeof text);
                acc += v.kind + v.v.u;
            } else if (row == ROW_TEXT) {
                acc += etl_value_format(&it, text, sizeof text);
            }
        }
    }
    sink += acc;
    return items;
}

int main(int argc, char **argv)
{
    int repeat = 5, first = 1;
    if (argc > 2 && strcmp(argv[1], "--repeat") == 0) {
        repeat = atoi(argv[2]);
        first = 3;
    }
    if (first >= argc || repeat < 1) {
        fputs("usage: tlbench [--repeat N] FILE...\n", stderr);
        return 2;
    }
    printf("%-44s %-11s %8s %9s %8s %12s %9s\n", "file", "pass", "events", "schemas", "items/ev", "events/s",
           "ns/event");
    for (int a = first; a < argc; a++) {
        struct mem m = bench_read_file("tlbench", argv[a]);
        uint8_t *buf = (uint8_t *)m.p;
        events e = {0};
        collect(&m, &e);
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        if (!e.n) {
            printf("%-44.44s %-11s %8s\n", name, "-", "0");
            free(buf);
            continue;
        }
        etl_schema_cache *c = etl_schema_cache_new(NULL);
        etl_error err;
        for (size_t i = 0; i < e.n; i++) /* cold pass: compile every schema once (not timed) */
            etl_schema_cache_tl(c, e.pool + e.v[i].meta_off, e.v[i].meta_len, e.v[i].pointer_size, &e.v[i].schema,
                                &err);
        uint32_t schemas = etl_schema_cache_count(c);
        /* small files: repeat the whole set so each timed run lasts long enough to measure */
        int loops = (int)(200000 / e.n) + 1;
        static const char *labels[] = {"items", "items/warm", "items/skip", "+typed", "+text"};
        for (int row = ROW_ITEMS; row <= ROW_TEXT; row++) {
            double best = 1e30;
            uint64_t items = 0;
            for (int k = 0; k < repeat; k++) {
                double t0 = bench_cpu_now();
                items = 0;
                for (int l = 0; l < loops; l++)
                    items += run(&e, c, row);
                double t = (bench_cpu_now() - t0) / loops;
                if (t < best)
                    best = t;
            }
            printf("%-44.44s %-11s %8zu %9u %8.1f %12.0f %9.1f\n", name, labels[row], e.n, schemas,
                   (double)items / loops / (double)e.n, (double)e.n / best, best * 1e9 / (double)e.n);
        }
        etl_schema_cache_free(c);
        free(e.v);
        free(e.pool);
        free(buf);
    }
    return 0;
}
