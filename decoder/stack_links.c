/* stack_links.c - recent events by (timestamp, thread) for stack-walk joining (stack_links.h).
 *
 * A ring of the last `capacity` events and a chained hash over them: buckets hold the newest
 * ring slot of their chain, each slot the next older one.  The slot about to be overwritten is
 * unlinked from its chain first, so chains only ever hold live slots. */
#include "stack_links.h"

#include <stdlib.h>

#include "etl.h"

#define NIL UINT32_MAX

typedef struct slot {
    uint64_t ts;
    uint64_t id;
    uint32_t tid;
    uint32_t next;   /* older slot in the same bucket, or NIL */
    uint32_t bucket; /* the bucket it is chained in, NIL when the slot is free */
} slot;

struct etl_stack_links {
    slot *ring;
    uint32_t capacity;
    uint32_t head;   /* next slot to fill */
    uint32_t *buckets;
    uint32_t mask;   /* buckets - 1 (a power of two, at least 2 x capacity) */
};

static uint32_t bucket_of(const etl_stack_links *l, uint64_t ts, uint32_t tid)
{
    uint64_t h = (ts ^ ((uint64_t)tid << 32 | tid)) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32) & l->mask;
}

etl_stack_links *etl_stack_links_new(uint32_t capacity)
{
    if (capacity == 0)
        capacity = ETL_STACK_LINKS_DEFAULT_CAPACITY;
    if (capacity > ETL_STACK_LINKS_MAX_CAPACITY)
        capacity = ETL_STACK_LINKS_MAX_CAPACITY;
    etl_stack_links *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    uint32_t nb = 2;
    while (nb < 2u * capacity)
        nb <<= 1;
    l->ring = malloc((size_t)capacity * sizeof *l->ring);
    l->buckets = malloc((size_t)nb * sizeof *l->buckets);
    if (!l->ring || !l->buckets) {
        etl_stack_links_free(l);
        return NULL;
    }
    l->capacity = capacity;
    l->mask = nb - 1;
    etl_stack_links_clear(l);
    return l;
}

void etl_stack_links_free(etl_stack_links *l)
{
    if (!l)
        return;
    free(l->ring);
    free(l->buckets);
    free(l);
}

void etl_stack_links_clear(etl_stack_links *l)
{
    for (uint32_t i = 0; i < l->capacity; i++)
        l->ring[i].bucket = NIL;
    for (uint32_t i = 0; i <= l->mask; i++)
        l->buckets[i] = NIL;
    l->head = 0;
}

void etl_stack_links_add(etl_stack_links *l, uint64_t ts_raw, uint32_t tid, uint64_t id)
{
    uint32_t s = l->head;
    slot *e = &l->ring[s];
    if (e->bucket != NIL) {
        /* unlink the oldest event: it is the last of its chain */
        uint32_t *link = &l->buckets[e->bucket];
        while (*link != s && *link != NIL)
            link = &l->ring[*link].next;
        if (*link == s)
            *link = e->next;
    }
    uint32_t b = bucket_of(l, ts_raw, tid);
    e->ts = ts_raw;
    e->tid = tid;
    e->id = id;
    e->bucket = b;
    e->next = l->buckets[b];
    l->buckets[b] = s;
    l->head = s + 1 == l->capacity ? 0 : s + 1;
}

static bool find_exact(const etl_stack_links *l, uint64_t ts, uint32_t tid, uint64_t *id)
{
    for (uint32_t s = l->buckets[bucket_of(l, ts, tid)]; s != NIL; s = l->ring[s].next)
        if (l->ring[s].ts == ts && l->ring[s].tid == tid) {
            *id = l->ring[s].id;
            return true;
        }
    return false;
}

bool etl_stack_links_find(const etl_stack_links *l, uint64_t ts_raw, uint32_t tid, uint64_t *id)
{
    if (find_exact(l, ts_raw, tid, id))
        return true;
    return tid != ETL_NO_ID && find_exact(l, ts_raw, ETL_NO_ID, id);
}
