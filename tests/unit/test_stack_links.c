/* test_stack_links.c - the stack-walk links (stack_links.h) on their own: eviction,
 * latest-wins, the no-thread fallback, clear, and the buckets across 2^32 events
 * (stack_links.c keeps only the low 32 bits of a bucket's sequence number).  A trace reaches
 * that many classic events only past some 250 GB, so the test starts the count just below 2^32
 * instead: it includes the module's source to set `added`, the one thing no caller can do.
 * Stack walks in real captures are test_procs.c's (section 3). */
#include "../../decoder/context/stack_links.c"

#include "check.h"

#define TWO_TO_32 (UINT64_C(1) << 32)

/* Eviction, latest-wins, another thread's key, the no-thread fallback, consistent chains and
 * clear, with the count started at `start`: 0 as a fresh table, or near a multiple of 2^32,
 * where every bucket's 0 reads as a number near it. */
static void links_from(uint64_t start)
{
    etl_stack_links *l = etl_stack_links_new(4);
    CHECK(l != NULL);
    if (!l)
        return;
    l->added = start;
    uint64_t id;
    CHECK(!etl_stack_links_find(l, 1, 1, &id)); /* a bucket never written yields nothing */
    for (uint64_t i = 0; i < 4; i++)
        etl_stack_links_add(l, 100 + i, 7, i);
    CHECK(etl_stack_links_find(l, 100, 7, &id) && id == 0);
    etl_stack_links_add(l, 200, 7, 4); /* evicts (100, 7) */
    CHECK(!etl_stack_links_find(l, 100, 7, &id));
    CHECK(etl_stack_links_find(l, 103, 7, &id) && id == 3);
    CHECK(!etl_stack_links_find(l, 103, 8, &id)); /* other thread */
    etl_stack_links_add(l, 103, 7, 5);            /* same key again: the latest wins */
    CHECK(etl_stack_links_find(l, 103, 7, &id) && id == 5);
    etl_stack_links_add(l, 300, ETL_NO_ID, 6); /* an event whose thread was not known */
    CHECK(etl_stack_links_find(l, 300, 9, &id) && id == 6);
    /* many more than the capacity: only the last 4 stay, chains stay consistent */
    for (uint64_t i = 0; i < 10000; i++)
        etl_stack_links_add(l, i % 37, (uint32_t)(i % 5), i);
    unsigned present = 0;
    for (uint64_t i = 0; i < 10000; i++)
        present += etl_stack_links_find(l, i % 37, (uint32_t)(i % 5), &id) && id == i;
    CHECK_EQ_U(present, 4);
    etl_stack_links_clear(l);
    CHECK(!etl_stack_links_find(l, 9999 % 37, 9999 % 5, &id));
    etl_stack_links_free(l);
}

/* A larger window crossing 2^32: the live events found under their keys, the evicted not. */
static void window_across(void)
{
    enum { CAP = 1024, EVENTS = 20000 };
    etl_stack_links *l = etl_stack_links_new(CAP);
    CHECK(l != NULL);
    if (!l)
        return;
    l->added = TWO_TO_32 - 5000;
    unsigned missed = 0, stale = 0;
    uint64_t id;
    for (uint64_t i = 0; i < EVENTS; i++) {
        etl_stack_links_add(l, i * 13, (uint32_t)(i % 11), i);
        uint64_t back = i % CAP; /* an event still in the window */
        missed += !(etl_stack_links_find(l, (i - back) * 13, (uint32_t)((i - back) % 11), &id) && id == i - back);
        if (i >= CAP) /* the event just evicted */
            stale += etl_stack_links_find(l, (i - CAP) * 13, (uint32_t)((i - CAP) % 11), &id);
    }
    CHECK_EQ_U(missed, 0);
    CHECK_EQ_U(stale, 0);
    CHECK(l->added > TWO_TO_32); /* the window did cross */
    etl_stack_links_free(l);
}

int main(void)
{
    links_from(0);
    for (uint64_t start = TWO_TO_32 - 40; start < TWO_TO_32 + 40; start += 7)
        links_from(start);
    links_from(3 * TWO_TO_32 - 2);
    window_across();
    CHECK_MAIN_END();
}
