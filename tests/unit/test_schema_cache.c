/* Unit tests of schema_cache.c: one arena for every schema, the TraceLogging index keyed by the
 * metadata bytes separately per record bitness, no allocation on a hit (counted through the
 * cache's allocator hook, which every allocation of the cache goes through), damaged metadata
 * compiled once, allocation failures, and provider names. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "fields.h"
#include "schema_cache.h"
#include "tl_build.h"
#include "tl_schema.h"

/* A counting allocator that can also be told to fail. */
static struct {
    unsigned long allocs, reallocs, frees;
    long fail_after; /* -1: never */
} counter = {0, 0, 0, -1};

static bool should_fail(void)
{
    if (counter.fail_after < 0)
        return false;
    if (counter.fail_after == 0)
        return true;
    counter.fail_after--;
    return false;
}
static void *c_alloc(void *ctx, size_t n)
{
    (void)ctx;
    if (should_fail())
        return NULL;
    counter.allocs++;
    return malloc(n);
}
static void *c_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (should_fail())
        return NULL;
    if (p)
        counter.reallocs++;
    else
        counter.allocs++; /* realloc(NULL) is a new block: counted so that allocs == frees at the end */
    return realloc(p, n);
}
static void c_free(void *ctx, void *p)
{
    (void)ctx;
    counter.frees++;
    free(p);
}
static const etl_allocator counting = {c_alloc, c_realloc, c_free, NULL};

static unsigned long allocations(void)
{
    return counter.allocs + counter.reallocs;
}

static tlbuf m;

static void meta_with_pointer(const char *event)
{
    tl_begin(&m, event, 0);
    tl_field(&m, "before", 8, -1, 0);
    tl_field(&m, "ptr", 16, -1, 0); /* laid out by record bitness */
    tl_field(&m, "after", 4, -1, 0);
    tl_end(&m);
}

static void test_keying_and_hits(void)
{
    etl_schema_cache *c = etl_schema_cache_new(&counting);
    CHECK(c != NULL);
    const etl_schema *s64, *s32, *again;
    etl_error err;
    meta_with_pointer("P");
    CHECK_EQ_U(etl_schema_cache_tl(c, m.b, m.n, 8, &s64, &err), ETL_OK);
    CHECK_EQ_U(etl_schema_cache_tl(c, m.b, m.n, 4, &s32, &err), ETL_OK);
    /* the same bytes from 32- and 64-bit records: two schemas, laid out differently */
    CHECK(s64 != s32);
    CHECK_EQ_U(s64->index, 0);
    CHECK_EQ_U(s32->index, 1);
    CHECK_EQ_U(s64->pointer_size, 8);
    CHECK_EQ_U(s32->pointer_size, 4);
    CHECK_EQ_U(s64->steps[1].size, 8);
    CHECK_EQ_U(s32->steps[1].size, 4);
    CHECK_EQ_U(etl_schema_cache_count(c), 2);
    CHECK(etl_schema_cache_at(c, 0) == s64);
    CHECK(etl_schema_cache_at(c, 1) == s32);
    CHECK(etl_schema_cache_at(c, 2) == NULL);
    /* the key is the bytes, not where they are: a copy hits */
    tlbuf copy = m;
    unsigned long before = allocations();
    for (int i = 0; i < 1000; i++) {
        CHECK_EQ_U(etl_schema_cache_tl(c, copy.b, copy.n, 8, &again, &err), ETL_OK);
        if (again != s64)
            CHECK(again == s64);
        CHECK_EQ_U(etl_schema_cache_tl(c, m.b, m.n, 4, &again, &err), ETL_OK);
        if (again != s32)
            CHECK(again == s32);
    }
    CHECK_EQ_U(allocations() - before, 0); /* hits allocate nothing */
    const etl_schema_cache_stats *st = etl_schema_cache_get_stats(c);
    CHECK_EQ_U(st->compiles, 2);
    CHECK_EQ_U(st->hits, 2000);
    CHECK_EQ_U(st->lookups, 2002);

    /* decoding a hit's payload allocates nothing either */
    uint8_t payload[13] = {1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3};
    before = allocations();
    etl_fields f;
    etl_item it;
    int values = 0;
    CHECK_EQ_U(etl_schema_cache_tl(c, m.b, m.n, 8, &again, &err), ETL_OK);
    etl_fields_start(&f, again, payload, sizeof payload, 8);
    while (etl_fields_next(&f, &it) != ETL_ITEM_END)
        values += it.kind == ETL_ITEM_VALUE;
    CHECK_EQ_U(values, 3);
    CHECK_EQ_U(allocations() - before, 0);

    /* one byte different: another schema; the event id is not part of the key (there is none) */
    m.b[m.n - 1] = 5;
    CHECK_EQ_U(etl_schema_cache_tl(c, m.b, m.n, 8, &again, &err), ETL_OK);
    CHECK(again != s64);
    CHECK_EQ_U(again->index, 2);
    etl_schema_cache_free(c);
    CHECK_EQ_U(counter.allocs, counter.frees); /* everything given back */
}

static void test_many_schemas(void)
{
    /* thousands of distinct schemas: the arena grows in chunks, earlier schemas never move,
     * every one is found again */
    etl_schema_cache *c = etl_schema_cache_new(&counting);
    enum { N = 5000 };
    static const etl_schema *first[N];
    etl_error err;
    char name[32];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "Event%d", i);
        meta_with_pointer(name);
        CHECK_EQ_U(etl_schema_cache_tl(c, m.b, m.n, (i & 1) ? 4 : 8, &first[i], &err), ETL_OK);
        if (first[i]->index != (uint32_t)i)
            CHECK_EQ_U(first[i]->index, i);
    }
    unsigned long before = allocations();
    int bad = 0;
    for (int i = 0; i < N; i++) {
        const etl_schema *s;
        snprintf(name, sizeof name, "Event%d", i);
        meta_with_pointer(name);
        etl_schema_cache_tl(c, m.b, m.n, (i & 1) ? 4 : 8, &s, &err);
        bad += s != first[i] || strcmp(etl_schema_event_name(s), name) != 0;
    }
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(allocations() - before, 0);
    CHECK_EQ_U(etl_schema_cache_get_stats(c)->compiles, N);
    CHECK(etl_schema_cache_get_stats(c)->arena_bytes >= ETL_SCHEMA_ARENA_CHUNK);
    /* a schema bigger than an arena chunk gets a chunk of its own */
    tl_begin(&m, "Huge", 0);
    for (int i = 0; i < 1200; i++) /* about 31 KiB of metadata, over 100 KiB compiled */
        tl_field(&m, "a_rather_long_field_name", 8, -1, 0);
    tl_end(&m);
    const etl_schema *huge;
    CHECK_EQ_U(etl_schema_cache_tl(c, m.b, m.n, 8, &huge, &err), ETL_OK);
    CHECK_EQ_U(huge->step_count, 1200);
    CHECK(etl_schema_cache_get_stats(c)->arena_bytes > 2 * ETL_SCHEMA_ARENA_CHUNK);
    CHECK(huge->complete);
    const etl_schema *s;
    meta_with_pointer("Event0");
    etl_schema_cache_tl(c, m.b, m.n, 8, &s, &err);
    CHECK(s == first[0]);
    etl_schema_cache_free(c);
    CHECK_EQ_U(counter.allocs, counter.frees);
}

static void test_damaged_and_generic(void)
{
    etl_schema_cache *c = etl_schema_cache_new(NULL);
    etl_error err;
    const etl_schema *a, *b2;
    tl_begin(&m, "Bad", 0);
    tl_field(&m, "ok", 8, -1, 0);
    tl_field(&m, "bad", 30, -1, 0);
    tl_end(&m);
    CHECK_EQ_U(etl_schema_cache_tl(c, m.b, m.n, 8, &a, &err), ETL_OK);
    CHECK(!a->complete);
    CHECK(strstr(etl_schema_reason(a), "unknown in-type 30") != NULL);
    CHECK_EQ_U(etl_schema_cache_tl(c, m.b, m.n, 8, &b2, &err), ETL_OK);
    CHECK(a == b2);
    CHECK_EQ_U(etl_schema_cache_get_stats(c)->compiles, 1);
    CHECK_EQ_U(etl_schema_cache_get_stats(c)->damaged, 1);
    /* garbage and empty keys are schemas too (an UNSUPPORTED step) */
    uint8_t junk[2] = {0xFF, 0xFF};
    CHECK_EQ_U(etl_schema_cache_tl(c, junk, 2, 8, &a, &err), ETL_OK);
    CHECK(!a->complete);
    CHECK_EQ_U(etl_schema_cache_tl(c, junk, 0, 8, &a, &err), ETL_OK);
    CHECK_EQ_U(etl_schema_cache_tl(c, NULL, 0, 8, &a, &err), ETL_ERR_ARG);
    CHECK_EQ_U(etl_schema_cache_tl(NULL, junk, 2, 8, &a, &err), ETL_ERR_ARG);

    /* another source adds to the same arena through a builder */
    etl_schema_builder b;
    etl_schema_builder_init(&b, NULL);
    etl_schema_builder_reset(&b, ETL_SCHEMA_MANIFEST, 8);
    b.event_name = etl_schema_builder_add_string(&b, "Manifest/Event", 14);
    etl_schema_step st = {0};
    st.op = ETL_OP_VALUE;
    st.in_type = ETL_IN_UINT32;
    st.size = 4;
    st.name = etl_schema_builder_add_string(&b, "Value", 5);
    etl_schema_builder_add_step(&b, &st, 0);
    b.field_count = 1;
    uint32_t before = etl_schema_cache_count(c);
    const uint8_t key[4] = {1, 2, 3, 4};
    CHECK_EQ_U(etl_schema_cache_add(c, &b, key, sizeof key, &a, &err), ETL_OK);
    CHECK_EQ_U(a->index, before);
    CHECK_EQ_U(a->source, ETL_SCHEMA_MANIFEST);
    CHECK_STR(etl_schema_event_name(a), "Manifest/Event");
    CHECK(a->key_len == 4 && memcmp(a->key, key, 4) == 0);
    CHECK(etl_schema_cache_at(c, before) == a);
    etl_schema_builder_free(&b);
    etl_schema_cache_free(c);
}

static void test_allocation_failures(void)
{
    /* every allocation point failing in turn: an error, never a crash, and the cache stays
     * usable once memory comes back */
    etl_error err;
    for (long k = 0; k < 12; k++) {
        counter.fail_after = k;
        etl_schema_cache *c = etl_schema_cache_new(&counting);
        if (!c) {
            counter.fail_after = -1;
            continue;
        }
        const etl_schema *s = NULL;
        meta_with_pointer("Fail");
        etl_status st = etl_schema_cache_tl(c, m.b, m.n, 8, &s, &err);
        CHECK(st == ETL_OK || st == ETL_ERR_NOMEM);
        etl_schema_cache_set_provider_name(c, &(etl_guid){1, 2, 3, {4}}, "P", 1);
        counter.fail_after = -1;
        st = etl_schema_cache_tl(c, m.b, m.n, 8, &s, &err);
        CHECK_EQ_U(st, ETL_OK);
        CHECK(s && s->complete && strcmp(etl_schema_event_name(s), "Fail") == 0);
        const etl_schema *again;
        etl_schema_cache_tl(c, m.b, m.n, 8, &again, &err);
        CHECK(again == s);
        etl_schema_cache_free(c);
    }
    CHECK_EQ_U(counter.allocs, counter.frees);
}

static void test_provider_names(void)
{
    etl_schema_cache *c = etl_schema_cache_new(&counting);
    etl_guid g1 = {0x0cd1c309, 0x0878, 0x4515, {0x83, 0xdb, 0x74, 0x98, 0x43, 0xb3, 0xf5, 0xc9}};
    etl_guid g2 = g1;
    g2.data4[7] ^= 1;
    CHECK(etl_schema_cache_provider_name(c, &g1) == NULL);
    CHECK_EQ_U(etl_schema_cache_set_provider_name(c, &g1, "Microsoft.Windows.Subsystem.LxCore", 34), ETL_OK);
    CHECK_STR(etl_schema_cache_provider_name(c, &g1), "Microsoft.Windows.Subsystem.LxCore");
    CHECK(etl_schema_cache_provider_name(c, &g2) == NULL);
    unsigned long before = allocations();
    for (int i = 0; i < 100; i++)
        etl_schema_cache_set_provider_name(c, &g1, "Microsoft.Windows.Subsystem.LxCore", 34);
    CHECK_EQ_U(allocations() - before, 0); /* the same name again costs nothing */
    CHECK_EQ_U(etl_schema_cache_set_provider_name(c, &g1, "Renamed", 7), ETL_OK);
    CHECK_STR(etl_schema_cache_provider_name(c, &g1), "Renamed");
    /* many providers */
    for (uint32_t i = 0; i < 3000; i++) {
        etl_guid g = g1;
        g.data1 = i;
        char n[16];
        snprintf(n, sizeof n, "P%u", i);
        etl_schema_cache_set_provider_name(c, &g, n, strlen(n));
    }
    int bad = 0;
    for (uint32_t i = 0; i < 3000; i++) {
        etl_guid g = g1;
        g.data1 = i;
        char n[16];
        snprintf(n, sizeof n, "P%u", i);
        const char *got = etl_schema_cache_provider_name(c, &g);
        bad += !got || strcmp(got, n) != 0;
    }
    CHECK_EQ_U(bad, 0);
    CHECK_STR(etl_schema_cache_provider_name(c, &g1), "Renamed");
    CHECK_EQ_U(etl_schema_cache_set_provider_name(c, NULL, "x", 1), ETL_ERR_ARG);
    etl_schema_cache_free(c);
    CHECK_EQ_U(counter.allocs, counter.frees);
}

int main(void)
{
    test_keying_and_hits();
    test_many_schemas();
    test_damaged_and_generic();
    test_allocation_failures();
    test_provider_names();
    CHECK_MAIN_END();
}
