/* inflate_cache.c - inflated buffers kept for a second reader of the same file (etl.h,
 * etl_inflate_cache).
 *
 * An open-addressing table keyed by the buffer's file offset, each entry a copy of the
 * buffer's inflated records region and, to refuse a buffer that is not the one kept, the
 * header fields that describe it.  Bytes put are counted against the limit for good (taking
 * an entry frees its copy but gives no room back), so the cache never holds more than the
 * limit and never keeps on filling with buffers nobody will take.  One mutex: the readers'
 * loader threads put and take concurrently, once per buffer. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "buffer.h"
#include "etl.h"
#include "inflate_cache.h"

typedef struct entry {
    uint64_t offset; /* UINT64_MAX: empty slot */
    uint32_t buffer_size, filled;
    int64_t timestamp;
    uint8_t *data; /* NULL: taken (a tombstone, the probe sequence goes on past it) */
    uint32_t len;
    bool in_arena; /* data is in the arena, not malloc'd */
} entry;

struct etl_inflate_cache {
    pthread_mutex_t mu;
    uint64_t limit, used;
    entry *slots;
    uint32_t cap, count; /* count: slots not empty, tombstones included */
    uint8_t *arena;      /* the copies, one after the other (see arena_new), or NULL */
    size_t arena_size, arena_used;
    etl_inflate_cache_stats stats;
};

/* The copies' memory: one anonymous mapping of the limit's size, asked for in huge pages, and
 * filled front to back (bytes put are never given back, so a bump pointer is all the bookkeeping).
 * A cache that holds a whole compressed trace's inflated buffers (23 MB for net452) otherwise
 * takes thousands of page faults to fill 64 KB mallocs; a 2 MB page is one.  Limits past
 * ARENA_MAX, or no mapping, keep malloc for each copy. */
#define ARENA_MAX (1ull << 30)
#define ARENA_ALIGN 64u
static void arena_new(etl_inflate_cache *c)
{
    if (c->limit == 0 || c->limit > ARENA_MAX)
        return;
    size_t size = ((size_t)c->limit + 256u * ARENA_ALIGN + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return;
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE); /* a hint: without it the mapping still works */
#endif
    c->arena = p;
    c->arena_size = size;
}

etl_inflate_cache *etl_inflate_cache_new(uint64_t max_bytes)
{
    etl_inflate_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c);
        return NULL;
    }
    c->limit = max_bytes;
    arena_new(c);
    return c;
}

void etl_inflate_cache_free(etl_inflate_cache *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->cap; i++)
        if (!c->slots[i].in_arena)
            free(c->slots[i].data);
    free(c->slots);
    if (c->arena)
        munmap(c->arena, c->arena_size);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

const etl_inflate_cache_stats *etl_inflate_cache_stats_of(const etl_inflate_cache *c)
{
    return &c->stats;
}

static uint32_t slot_of(uint64_t offset, uint32_t cap)
{
    return (uint32_t)((offset * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* Where `offset` is, or the empty slot that ends its probe sequence. */
static entry *find(etl_inflate_cache *c, uint64_t offset)
{
    for (uint32_t i = slot_of(offset, c->cap);; i = (i + 1) & (c->cap - 1))
        if (c->slots[i].offset == offset || c->slots[i].offset == UINT64_MAX)
            return &c->slots[i];
}

static bool grow(etl_inflate_cache *c)
{
    uint32_t ncap = c->cap ? c->cap * 2 : 256;
    entry *n = malloc((size_t)ncap * sizeof *n);
    if (!n)
        return false;
    for (uint32_t i = 0; i < ncap; i++) {
        n[i].offset = UINT64_MAX;
        n[i].data = NULL;
        n[i].in_arena = false;
    }
    entry *old = c->slots;
    uint32_t ocap = c->cap;
    c->slots = n;
    c->cap = ncap;
    c->count = 0;
    for (uint32_t i = 0; i < ocap; i++)
        if (old[i].offset != UINT64_MAX && old[i].data) { /* tombstones are dropped */
            *find(c, old[i].offset) = old[i];
            c->count++;
        }
    free(old);
    return true;
}

void etl_inflate_cache_put(etl_inflate_cache *c, uint64_t offset, const etl_buffer_header *h, const uint8_t *data,
                           uint32_t len)
{
    pthread_mutex_lock(&c->mu);
    if (len > c->limit - c->used || (((uint64_t)c->count + 1) * 2 > c->cap && !grow(c))) {
        c->stats.refused++; /* over the limit (or no memory): this buffer is inflated again */
        pthread_mutex_unlock(&c->mu);
        return;
    }
    entry *e = find(c, offset);
    uint8_t *copy = NULL;
    bool in_arena = false;
    if (e->offset == UINT64_MAX) { /* kept once */
        size_t at = (c->arena_used + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
        if (c->arena && len && at + len <= c->arena_size) {
            copy = c->arena + at;
            c->arena_used = at + len;
            in_arena = true;
        } else {
            copy = malloc(len ? len : 1);
        }
    }
    if (copy) {
        memcpy(copy, data, len);
        e->offset = offset;
        e->buffer_size = h->buffer_size;
        e->filled = h->filled;
        e->timestamp = h->timestamp;
        e->data = copy;
        e->len = len;
        e->in_arena = in_arena;
        c->count++;
        c->used += len;
        c->stats.kept++;
        c->stats.bytes_kept += len;
    } else {
        c->stats.refused++;
    }
    pthread_mutex_unlock(&c->mu);
}

bool etl_inflate_cache_take(etl_inflate_cache *c, uint64_t offset, const etl_buffer_header *h, uint8_t *out,
                            uint32_t cap, uint32_t *len)
{
    bool hit = false;
    pthread_mutex_lock(&c->mu);
    if (c->cap) {
        entry *e = find(c, offset);
        if (e->offset == offset && e->data && e->buffer_size == h->buffer_size && e->filled == h->filled &&
            e->timestamp == h->timestamp && e->len <= cap) {
            memcpy(out, e->data, e->len);
            *len = e->len;
            if (!e->in_arena)
                free(e->data);
            e->data = NULL; /* taken: each buffer is wanted once more, by the other reader */
            hit = true;
        }
    }
    if (hit)
        c->stats.taken++;
    else
        c->stats.missed++;
    pthread_mutex_unlock(&c->mu);
    return hit;
}
