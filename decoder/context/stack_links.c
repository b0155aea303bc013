/* stack_links.c - recent events by (timestamp, thread) for stack-walk joining (stack_links.h).
 *
 * A ring of the last `capacity` events (a power of two) and a chained hash over them, linked
 * by sequence numbers rather than slots: event n lives in slot n % capacity while n is one of
 * the last `capacity` added, buckets hold the sequence number of their newest event and each
 * event how far back the next older event of its bucket is.  Adding never unlinks anything: a walk
 * stops at the first number that has left the ring, so a chain only ever yields live events
 * and adding is two stores.
 *
 * A bucket keeps only the low 32 bits of its number, and there are as many buckets as events
 * (64 KiB at the default capacity, not 256): every add reads and writes a bucket at random,
 * and the larger table missed the caches on most of them, more so with etldump's batches
 * streaming through the same caches (--threads 2: the adds and finds took 1.5x the samples
 * they took with one thread; bench/README.md, session 20).  The full number is the one among
 * the last 2^32 with those low bits (bucket_head).  A bucket not written in 2^32 events names
 * some live event of another bucket instead of none: harmless, since a walk takes an event
 * only when its key is the one asked for, and an event with that key would be in this bucket
 * (test_stack_links.c). */
#include "stack_links.h"

#include <stdlib.h>

#include "classic.h"
#include "etl.h"
#include "procs.h"

/* 24 bytes: the ring is streamed through the caches once per `capacity` events.  A slot's
 * event is known from the sequence number alone: the last `capacity` numbers are all in the
 * ring, number n in slot n % capacity, so a number in that range names its slot's event. */
typedef struct slot {
    uint64_t ts;
    uint64_t id;
    uint32_t tid;
    uint32_t back; /* the next older event in the bucket: this one's number minus back; 0 = none */
} slot;

struct etl_stack_links {
    slot *ring;
    uint32_t *buckets; /* the low 32 bits of the sequence number (+1) of the newest event per
                        * bucket, 0 = none (bucket_head) */
    uint64_t added;    /* events added so far = the next sequence number */
    uint32_t capacity; /* a power of two */
    uint32_t mask;     /* buckets - 1 (as many buckets as events) */
};

static uint32_t bucket_of(const etl_stack_links *l, uint64_t ts, uint32_t tid)
{
    uint64_t h = (ts ^ ((uint64_t)tid << 32 | tid)) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32) & l->mask;
}

/* The sequence number (+1) a bucket holds: the latest number up to `added` with those low 32
 * bits (0, none, while fewer than 2^32 events were added and the bucket was never written). */
static uint64_t bucket_head(const etl_stack_links *l, uint32_t b)
{
    return l->added - (uint32_t)((uint32_t)l->added - l->buckets[b]);
}

etl_stack_links *etl_stack_links_new(uint32_t capacity)
{
    if (capacity == 0)
        capacity = ETL_STACK_LINKS_DEFAULT_CAPACITY;
    if (capacity > ETL_STACK_LINKS_MAX_CAPACITY)
        capacity = ETL_STACK_LINKS_MAX_CAPACITY;
    uint32_t cap = 1;
    while (cap < capacity)
        cap <<= 1;
    etl_stack_links *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->ring = calloc(cap, sizeof *l->ring);
    l->buckets = calloc(cap, sizeof *l->buckets);
    if (!l->ring || !l->buckets) {
        etl_stack_links_free(l);
        return NULL;
    }
    l->capacity = cap;
    l->mask = cap - 1u;
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
    for (uint32_t i = 0; i <= l->mask; i++)
        l->buckets[i] = 0;
    l->added = 0;
}

void etl_stack_links_add(etl_stack_links *l, uint64_t ts_raw, uint32_t tid, uint64_t id)
{
    uint64_t n = l->added;
    slot *e = &l->ring[n & (l->capacity - 1u)];
    uint32_t b = bucket_of(l, ts_raw, tid);
    uint64_t head = bucket_head(l, b);
    e->ts = ts_raw;
    e->tid = tid;
    e->id = id;
    /* a head still in the ring is fewer than `capacity` (at most 2^24) numbers back */
    e->back = head && n + 1 - head < l->capacity ? (uint32_t)(n + 1 - head) : 0;
    l->buckets[b] = (uint32_t)(n + 1);
    l->added = n + 1;
}

/* The live event with sequence number s (+1), or NULL once it has left the ring. */
static const slot *live(const etl_stack_links *l, uint64_t s)
{
    if (s == 0 || s > l->added || l->added - (s - 1) > l->capacity)
        return NULL;
    return &l->ring[(s - 1) & (l->capacity - 1u)];
}

static bool find_exact(const etl_stack_links *l, uint64_t ts, uint32_t tid, uint64_t *id)
{
    /* a chain holds at most `capacity` live events: the bound keeps the walk finite whatever */
    uint32_t steps = 0;
    uint64_t s = bucket_head(l, bucket_of(l, ts, tid));
    for (const slot *e = live(l, s); e && steps++ < l->capacity; e = e->back ? live(l, s -= e->back) : NULL)
        if (e->ts == ts && e->tid == tid) {
            *id = e->id;
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

bool etl_stack_links_observe_tid(etl_stack_links *l, const etl_record *rec, uint32_t key_tid, uint64_t id,
                                 uint64_t *target)
{
    uint64_t ts;
    uint32_t tid;
    if (!l || !rec)
        return false;
    if (etl_record_is_stackwalk(rec))
        return etl_stackwalk_target_key(rec, &ts, &tid) && etl_stack_links_find(l, ts, tid, target);
    if (rec->has_timestamp && etl_record_is_classic(rec)) /* etl_stack_event_key's condition */
        etl_stack_links_add(l, (uint64_t)rec->timestamp_raw, key_tid, id);
    return false;
}

bool etl_stack_links_observe(etl_stack_links *l, struct etl_procs *procs, const etl_record *rec, uint64_t id,
                             uint64_t *target)
{
    uint64_t ts;
    uint32_t tid = ETL_NO_ID;
    if (!l || !rec)
        return false;
    if (!etl_record_is_stackwalk(rec) && etl_record_is_classic(rec) && !etl_procs_event_key(procs, rec, &ts, &tid))
        return false; /* no timestamp: not remembered */
    return etl_stack_links_observe_tid(l, rec, tid, id, target);
}
