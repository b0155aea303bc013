/* schema_cache.c - the schema arena and its TraceLogging and provider-name indexes.
 *
 * The indexes are small open-addressing tables written here rather than GLib's GHashTable:
 * the cache is on the per-record path, where the library reports ETL_ERR_NOMEM instead of
 * aborting (the memory rule in etl.h) and allocates through etl_allocator, which a GHashTable
 * does not; and one keyed by variable-length byte strings would need a key object per lookup
 * or a custom equal function reaching into the arena anyway.  Each slot holds the full 64-bit hash
 * and the arena index; the key bytes live once, in the schema (etl_schema.key), and a probe
 * compares them only when the stored hash matches.  Linear probing, power-of-two sizes, at most
 * half full, never deleted from (the arena is append-only), so the table stays simple. */
#include "schema_cache.h"

#include <string.h>

#include "bytes.h"
#include "error.h"
#include "etl_format.h"
#include "tl_schema.h"

#define EMPTY UINT32_MAX

typedef struct slot {
    uint64_t hash;
    uint32_t index; /* arena index (schemas) or provider entry index; EMPTY when free */
} slot;

typedef struct table {
    slot *slots;
    uint32_t cap; /* power of two, 0 before first use */
    uint32_t used;
} table;

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    /* data follows, 8-aligned */
} chunk;

typedef struct absent_slot {
    uint64_t hash;
    uint8_t key[ETL_MF_KEY_SIZE + 1]; /* the manifest key and the pointer size */
    bool used;
} absent_slot;

/* Negative cache: open addressing over a fixed table twice the entry bound. */
#define ABSENT_CAP (2u * ETL_SCHEMA_CACHE_MAX_ABSENT)

typedef struct provider_entry {
    etl_guid guid;
    const char *name;
    size_t name_len;
} provider_entry;

struct etl_schema_cache {
    etl_allocator alloc;
    chunk *chunks; /* newest first */
    const etl_schema **schemas;
    uint32_t count, cap;
    table tl[2]; /* [0] 32-bit records, [1] 64-bit records */
    table mf[2]; /* manifest keys, same split */
    table classic[2]; /* classic keys (class GUID, type, version), same split */
    absent_slot *absent; /* ABSENT_CAP slots, allocated on first use */
    uint32_t absent_used;
    table prov;
    provider_entry *providers;
    uint32_t prov_count, prov_cap;
    etl_schema_builder builder; /* scratch, reused by every compile */
    etl_schema_cache_stats stats;
};

/* ---- hashing ---------------------------------------------------------------------------- */

/* 64-bit multiply-xorshift over 8-byte words: metadata blobs are 40-400 bytes, so the word loop
 * dominates and stays a few cycles per 16 bytes.  Not cryptographic - an attacker who makes many
 * keys collide only makes probes longer, and every match is confirmed by comparing bytes. */
static uint64_t mix(uint64_t h)
{
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
    /* two independent lanes of 8 bytes each, so the multiplies overlap */
    uint64_t a = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n, b = 0xc2b2ae3d27d4eb4fULL;
    while (n >= 16) {
        a = (a ^ etl_ld64(p)) * 0xbf58476d1ce4e5b9ULL;
        b = (b ^ etl_ld64(p + 8)) * 0x94d049bb133111ebULL;
        a ^= a >> 29;
        b ^= b >> 31;
        p += 16;
        n -= 16;
    }
    if (n >= 8) {
        a = (a ^ etl_ld64(p)) * 0xbf58476d1ce4e5b9ULL;
        a ^= a >> 29;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)p[i] << (8 * i);
    b = (b ^ w) * 0x94d049bb133111ebULL;
    return mix(a + b * 0x9e3779b97f4a7c15ULL);
}

static uint64_t hash_guid(const etl_guid *g)
{
    uint64_t a = (uint64_t)g->data1 << 32 | (uint64_t)g->data2 << 16 | g->data3;
    return mix((a ^ etl_ld64(g->data4)) * 0xbf58476d1ce4e5b9ULL);
}

/* ---- tables ----------------------------------------------------------------------------- */

static bool table_grow(etl_schema_cache *c, table *t)
{
    uint32_t ncap = t->cap ? t->cap * 2 : 64;
    slot *ns = etl_mem_alloc(&c->alloc, (size_t)ncap * sizeof *ns);
    if (!ns)
        return false;
    for (uint32_t i = 0; i < ncap; i++)
        ns[i].index = EMPTY;
    for (uint32_t i = 0; i < t->cap; i++) {
        if (t->slots[i].index == EMPTY)
            continue;
        uint32_t j = (uint32_t)t->slots[i].hash & (ncap - 1);
        while (ns[j].index != EMPTY)
            j = (j + 1) & (ncap - 1);
        ns[j] = t->slots[i];
    }
    etl_mem_free(&c->alloc, t->slots);
    t->slots = ns;
    t->cap = ncap;
    return true;
}

/* Insert (hash, index); the caller knows the key is absent. */
static bool table_insert(etl_schema_cache *c, table *t, uint64_t hash, uint32_t index)
{
    if ((t->used + 1) * 2 > t->cap && !table_grow(c, t))
        return false;
    uint32_t j = (uint32_t)hash & (t->cap - 1);
    while (t->slots[j].index != EMPTY)
        j = (j + 1) & (t->cap - 1);
    t->slots[j].hash = hash;
    t->slots[j].index = index;
    t->used++;
    return true;
}

/* ---- arena ------------------------------------------------------------------------------ */

static void *arena_alloc(etl_schema_cache *c, size_t size)
{
    size = (size + 7u) & ~(size_t)7u;
    chunk *k = c->chunks;
    if (!k || k->cap - k->used < size) {
        size_t cap = size > ETL_SCHEMA_ARENA_CHUNK ? size : ETL_SCHEMA_ARENA_CHUNK;
        size_t head = (sizeof(chunk) + 7u) & ~(size_t)7u;
        k = etl_mem_alloc(&c->alloc, head + cap);
        if (!k)
            return NULL;
        k->cap = cap;
        k->used = 0;
        /* A big one-off chunk goes behind the current one so the current one keeps filling. */
        if (c->chunks && size > ETL_SCHEMA_ARENA_CHUNK) {
            k->next = c->chunks->next;
            c->chunks->next = k;
        } else {
            k->next = c->chunks;
            c->chunks = k;
        }
        c->stats.arena_bytes += head + cap;
    }
    void *p = (uint8_t *)k + ((sizeof(chunk) + 7u) & ~(size_t)7u) + k->used;
    k->used += size;
    return p;
}

etl_schema_cache *etl_schema_cache_new(const etl_allocator *alloc)
{
    etl_allocator a = {0};
    if (alloc)
        a = *alloc;
    etl_schema_cache *c = etl_mem_alloc(&a, sizeof *c);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->alloc = a;
    etl_schema_builder_init(&c->builder, &a);
    return c;
}

void etl_schema_cache_free(etl_schema_cache *c)
{
    if (!c)
        return;
    for (chunk *k = c->chunks, *n; k; k = n) {
        n = k->next;
        etl_mem_free(&c->alloc, k);
    }
    etl_mem_free(&c->alloc, (void *)c->schemas);
    etl_mem_free(&c->alloc, c->tl[0].slots);
    etl_mem_free(&c->alloc, c->tl[1].slots);
    etl_mem_free(&c->alloc, c->mf[0].slots);
    etl_mem_free(&c->alloc, c->mf[1].slots);
    etl_mem_free(&c->alloc, c->classic[0].slots);
    etl_mem_free(&c->alloc, c->classic[1].slots);
    etl_mem_free(&c->alloc, c->absent);
    etl_mem_free(&c->alloc, c->prov.slots);
    etl_mem_free(&c->alloc, c->providers);
    etl_schema_builder_free(&c->builder);
    etl_allocator a = c->alloc;
    etl_mem_free(&a, c);
}

uint32_t etl_schema_cache_count(const etl_schema_cache *c)
{
    return c->count;
}

const etl_schema *etl_schema_cache_at(const etl_schema_cache *c, uint32_t index)
{
    return index < c->count ? c->schemas[index] : NULL;
}

etl_status etl_schema_cache_add(etl_schema_cache *c, const etl_schema_builder *b, const uint8_t *key,
                                size_t key_len, const etl_schema **out, etl_error *err)
{
    if (!c || !b || !out)
        return etl_fail(err, ETL_ERR_ARG, 0, "no cache or schema");
    if (c->count >= ETL_SCHEMA_CACHE_MAX_SCHEMAS)
        return etl_fail(err, ETL_ERR_LIMIT, 0, "more than %u distinct schemas", ETL_SCHEMA_CACHE_MAX_SCHEMAS);
    if (c->count == c->cap) {
        uint32_t n = c->cap ? c->cap * 2 : 64;
        const etl_schema **v = etl_mem_realloc(&c->alloc, (void *)c->schemas, (size_t)n * sizeof *v);
        if (!v)
            return etl_fail(err, ETL_ERR_NOMEM, 0, "out of memory growing the schema arena");
        c->schemas = v;
        c->cap = n;
    }
    void *mem = arena_alloc(c, etl_schema_builder_size(b, key_len));
    if (!mem)
        return etl_fail(err, ETL_ERR_NOMEM, 0, "out of memory in the schema arena");
    etl_schema *s = etl_schema_builder_emit(b, mem, key, key_len);
    s->index = c->count;
    c->schemas[c->count++] = s;
    if (!s->complete)
        c->stats.damaged++;
    *out = s;
    return ETL_OK;
}

/* The one probe loop of every index: the entries stored under hash `h`, one a call in probe
 * order, then EMPTY.  `*j` is the cursor; it starts at PROBE_START. */
#define PROBE_START UINT32_MAX /* no slot number: a table has fewer than 2^31 slots */

static inline uint32_t table_next(const table *t, uint64_t h, uint32_t *j)
{
    if (!t->cap)
        return EMPTY;
    for (*j = (*j == PROBE_START ? (uint32_t)h : *j + 1) & (t->cap - 1);; *j = (*j + 1) & (t->cap - 1)) {
        const slot *sl = &t->slots[*j];
        if (sl->index == EMPTY || sl->hash == h)
            return sl->index;
    }
}

/* The schema indexed in `t` under hash `h` whose key is `key` (len bytes), or NULL. */
static const etl_schema *table_find(const etl_schema_cache *c, const table *t, uint64_t h, const uint8_t *key,
                                    size_t len)
{
    uint32_t i, j = PROBE_START;
    while ((i = table_next(t, h, &j)) != EMPTY) {
        const etl_schema *s = c->schemas[i];
        if (s->key_len == len && memcmp(s->key, key, len) == 0)
            return s;
    }
    return NULL;
}

/* Every keyed index (TraceLogging metadata, manifest keys, classic keys) is a pair of tables:
 * [0] for 32-bit records, [1] for 64-bit ones (a schema's pointer-sized fields differ). */
static table *for_bitness(table pair[2], uint8_t pointer_size)
{
    return &pair[pointer_size == 4 ? 0 : 1];
}

/* The one keyed lookup: the schema indexed under `key` (hash `h`) for records of `pointer_size`,
 * counted in *lookups and *hits. */
static const etl_schema *find_keyed(etl_schema_cache *c, table pair[2], uint8_t pointer_size, const uint8_t *key,
                                    size_t len, uint64_t h, uint64_t *lookups, uint64_t *hits)
{
    (*lookups)++;
    const etl_schema *s = table_find(c, for_bitness(pair, pointer_size), h, key, len);
    *hits += s != NULL;
    return s;
}

/* The one keyed add: append the schema in `b` to the arena under `key` (hash `h`) and index it
 * for records of `pointer_size`, counted in *compiles. */
static etl_status add_keyed(etl_schema_cache *c, const etl_schema_builder *b, table pair[2], uint8_t pointer_size,
                            const uint8_t *key, size_t len, uint64_t h, uint64_t *compiles, const etl_schema **out,
                            etl_error *err)
{
    const etl_schema *s;
    etl_status st = etl_schema_cache_add(c, b, key, len, &s, err);
    if (st != ETL_OK)
        return st;
    if (!table_insert(c, for_bitness(pair, pointer_size), h, s->index))
        return etl_fail(err, ETL_ERR_NOMEM, 0, "out of memory growing a schema index");
    (*compiles)++;
    *out = s;
    return ETL_OK;
}

/* ---- TraceLogging index ----------------------------------------------------------------- */

etl_status etl_schema_cache_tl(etl_schema_cache *c, const uint8_t *meta, size_t len, uint8_t pointer_size,
                               const etl_schema **out, etl_error *err)
{
    if (!c || !meta || !out)
        return etl_fail(err, ETL_ERR_ARG, 0, "no cache or metadata");
    if (len > ETL_SCHEMA_MAX_METADATA)
        len = ETL_SCHEMA_MAX_METADATA; /* ext items are < 64 KiB anyway; keeps key sizes bounded */
    uint64_t h = hash_bytes(meta, len);
    const etl_schema *hit = find_keyed(c, c->tl, pointer_size, meta, len, h, &c->stats.lookups, &c->stats.hits);
    if (hit) {
        *out = hit;
        return ETL_OK;
    }
    /* Miss: compile (damage is kept in the program, not returned) and index it. */
    etl_error cerr;
    etl_status st = etl_tl_compile(&c->builder, meta, len, pointer_size == 4 ? 4 : 8, &cerr);
    if (st == ETL_ERR_NOMEM)
        return etl_fail(err, ETL_ERR_NOMEM, 0, "%s", cerr.message);
    return add_keyed(c, &c->builder, c->tl, pointer_size, meta, len, h, &c->stats.compiles, out, err);
}

/* ---- manifest index --------------------------------------------------------------------- */

/* The manifest key: provider GUID (Windows layout), event id (LE), version. */
static void mf_key(uint8_t key[ETL_MF_KEY_SIZE], const etl_guid *g, uint16_t id, uint8_t version)
{
    for (int i = 0; i < 4; i++)
        key[i] = (uint8_t)(g->data1 >> (8 * i));
    key[4] = (uint8_t)g->data2;
    key[5] = (uint8_t)(g->data2 >> 8);
    key[6] = (uint8_t)g->data3;
    key[7] = (uint8_t)(g->data3 >> 8);
    memcpy(key + 8, g->data4, 8);
    key[16] = (uint8_t)id;
    key[17] = (uint8_t)(id >> 8);
    key[18] = version;
}

/* The negative cache's key: the manifest key and the pointer size (one table for both). */
static void absent_key(uint8_t key[ETL_MF_KEY_SIZE + 1], const etl_guid *g, uint16_t id, uint8_t version,
                       uint8_t pointer_size)
{
    mf_key(key, g, id, version);
    key[ETL_MF_KEY_SIZE] = pointer_size == 4 ? 4 : 8;
}

/* The classic key: GUID (Windows layout), type, version: 18 bytes, so a classic key never
 * equals a manifest key (19 bytes) even where a class GUID is also some provider's GUID. */
#define CLASSIC_KEY_SIZE 18u

static void classic_key(uint8_t key[CLASSIC_KEY_SIZE], const etl_guid *g, uint8_t type, uint8_t version)
{
    uint8_t mk[ETL_MF_KEY_SIZE];
    mf_key(mk, g, 0, 0);
    memcpy(key, mk, 16);
    key[16] = type;
    key[17] = version;
}

/* The two indexes keyed by an event's identity: manifest events (provider, id, version) and
 * classic events (class, type, version).  One find and one add serve both. */
typedef enum { BY_MANIFEST, BY_CLASSIC } event_index;

/* The index's key of (g, id, version) in `key` (room for the longer, manifest form); its length. */
static size_t event_key(event_index which, uint8_t key[ETL_MF_KEY_SIZE], const etl_guid *g, uint16_t id,
                        uint8_t version)
{
    if (which == BY_CLASSIC) {
        classic_key(key, g, (uint8_t)id, version);
        return CLASSIC_KEY_SIZE;
    }
    mf_key(key, g, id, version);
    return ETL_MF_KEY_SIZE;
}

static const etl_schema *find_event(etl_schema_cache *c, event_index which, const etl_guid *g, uint16_t id,
                                    uint8_t version, uint8_t pointer_size)
{
    uint8_t key[ETL_MF_KEY_SIZE];
    const bool classic = which == BY_CLASSIC;
    size_t len = event_key(which, key, g, id, version);
    return find_keyed(c, classic ? c->classic : c->mf, pointer_size, key, len, hash_bytes(key, len),
                      classic ? &c->stats.classic_lookups : &c->stats.mf_lookups,
                      classic ? &c->stats.classic_hits : &c->stats.mf_hits);
}

static etl_status add_event(etl_schema_cache *c, event_index which, const etl_schema_builder *b, const etl_guid *g,
                            uint16_t id, uint8_t version, uint8_t pointer_size, const etl_schema **out,
                            etl_error *err)
{
    const bool classic = which == BY_CLASSIC;
    if (!c || !b || !g || !out)
        return etl_fail(err, ETL_ERR_ARG, 0, classic ? "no cache, schema or class" : "no cache, schema or provider");
    uint8_t key[ETL_MF_KEY_SIZE];
    size_t len = event_key(which, key, g, id, version);
    return add_keyed(c, b, classic ? c->classic : c->mf, pointer_size, key, len, hash_bytes(key, len),
                     classic ? &c->stats.classic_compiles : &c->stats.mf_compiles, out, err);
}

static bool absent_has(const etl_schema_cache *c, const uint8_t key[ETL_MF_KEY_SIZE + 1], uint64_t h)
{
    if (!c->absent)
        return false;
    for (uint32_t j = (uint32_t)h & (ABSENT_CAP - 1);; j = (j + 1) & (ABSENT_CAP - 1)) {
        const absent_slot *sl = &c->absent[j];
        if (!sl->used)
            return false;
        if (sl->hash == h && memcmp(sl->key, key, ETL_MF_KEY_SIZE + 1) == 0)
            return true;
    }
}

const etl_schema *etl_schema_cache_mf_find(etl_schema_cache *c, const etl_guid *provider, uint16_t id,
                                           uint8_t version, uint8_t pointer_size, bool *absent)
{
    uint8_t key[ETL_MF_KEY_SIZE + 1];
    if (absent)
        *absent = false;
    if (!c || !provider)
        return NULL;
    const etl_schema *hit = find_event(c, BY_MANIFEST, provider, id, version, pointer_size);
    if (hit)
        return hit;
    absent_key(key, provider, id, version, pointer_size);
    if (absent_has(c, key, hash_bytes(key, sizeof key))) {
        c->stats.mf_absent_hits++;
        if (absent)
            *absent = true;
    }
    return NULL;
}

etl_status etl_schema_cache_mf_add(etl_schema_cache *c, const etl_schema_builder *b, const etl_guid *provider,
                                   uint16_t id, uint8_t version, uint8_t pointer_size, const etl_schema **out,
                                   etl_error *err)
{
    return add_event(c, BY_MANIFEST, b, provider, id, version, pointer_size, out, err);
}

void etl_schema_cache_mf_absent(etl_schema_cache *c, const etl_guid *provider, uint16_t id, uint8_t version,
                                uint8_t pointer_size)
{
    if (!c || !provider)
        return;
    if (!c->absent) {
        c->absent = etl_mem_alloc(&c->alloc, (size_t)ABSENT_CAP * sizeof *c->absent);
        if (!c->absent)
            return; /* the negative cache is an optimisation: without memory, go without */
        memset(c->absent, 0, (size_t)ABSENT_CAP * sizeof *c->absent);
        c->absent_used = 0;
    }
    uint8_t key[ETL_MF_KEY_SIZE + 1];
    absent_key(key, provider, id, version, pointer_size);
    uint64_t h = hash_bytes(key, sizeof key);
    if (absent_has(c, key, h))
        return;
    if (c->absent_used >= ETL_SCHEMA_CACHE_MAX_ABSENT) { /* full: start again (bounded memory) */
        memset(c->absent, 0, (size_t)ABSENT_CAP * sizeof *c->absent);
        c->absent_used = 0;
    }
    uint32_t j = (uint32_t)h & (ABSENT_CAP - 1);
    while (c->absent[j].used)
        j = (j + 1) & (ABSENT_CAP - 1);
    c->absent[j].used = true;
    c->absent[j].hash = h;
    memcpy(c->absent[j].key, key, sizeof key);
    c->absent_used++;
}

void etl_schema_cache_mf_forget(etl_schema_cache *c, const etl_guid *provider)
{
    if (!c)
        return;
    if (c->absent) {
        memset(c->absent, 0, (size_t)ABSENT_CAP * sizeof *c->absent);
        c->absent_used = 0;
    }
    uint8_t want[ETL_MF_KEY_SIZE];
    if (provider)
        mf_key(want, provider, 0, 0); /* the first 16 bytes are the GUID */
    for (int k = 0; k < 2; k++) {
        table *t = &c->mf[k];
        if (!t->cap)
            continue;
        /* linear probing has no deletion: rebuild the table without the provider's keys */
        slot *old = t->slots;
        uint32_t cap = t->cap;
        slot *ns = etl_mem_alloc(&c->alloc, (size_t)cap * sizeof *ns);
        if (!ns) {
            /* cannot rebuild: drop the whole index (every key resolves again, still correct) */
            for (uint32_t i = 0; i < cap; i++)
                old[i].index = EMPTY;
            t->used = 0;
            continue;
        }
        for (uint32_t i = 0; i < cap; i++)
            ns[i].index = EMPTY;
        t->slots = ns;
        t->used = 0;
        for (uint32_t i = 0; i < cap; i++) {
            if (old[i].index == EMPTY)
                continue;
            const etl_schema *s = c->schemas[old[i].index];
            if (!provider || (s->key && memcmp(s->key, want, 16) == 0))
                continue;
            uint32_t j = (uint32_t)old[i].hash & (cap - 1);
            while (ns[j].index != EMPTY)
                j = (j + 1) & (cap - 1);
            ns[j] = old[i];
            t->used++;
        }
        etl_mem_free(&c->alloc, old);
    }
}

/* ---- classic index ---------------------------------------------------------------------- */


const etl_schema *etl_schema_cache_classic_find(etl_schema_cache *c, const etl_guid *cls, uint8_t type,
                                                uint8_t version, uint8_t pointer_size)
{
    if (!c || !cls)
        return NULL;
    return find_event(c, BY_CLASSIC, cls, type, version, pointer_size);
}

etl_status etl_schema_cache_classic_add(etl_schema_cache *c, const etl_schema_builder *b, const etl_guid *cls,
                                        uint8_t type, uint8_t version, uint8_t pointer_size, const etl_schema **out,
                                        etl_error *err)
{
    return add_event(c, BY_CLASSIC, b, cls, type, version, pointer_size, out, err);
}

/* ---- provider names --------------------------------------------------------------------- */

static provider_entry *find_provider(const etl_schema_cache *c, const etl_guid *g, uint64_t h)
{
    uint32_t i, j = PROBE_START;
    while ((i = table_next(&c->prov, h, &j)) != EMPTY)
        if (etl_guid_equal(&c->providers[i].guid, g))
            return &c->providers[i];
    return NULL;
}

etl_status etl_schema_cache_set_provider_name(etl_schema_cache *c, const etl_guid *g, const char *name, size_t len)
{
    if (!c || !g || !name)
        return ETL_ERR_ARG;
    if (len > ETL_SCHEMA_MAX_METADATA)
        return ETL_ERR_LIMIT;
    uint64_t h = hash_guid(g);
    provider_entry *e = find_provider(c, g, h);
    if (e && e->name_len == len && memcmp(e->name, name, len) == 0)
        return ETL_OK;
    /* New provider or a new name: the old string stays in the arena (append-only). */
    char *copy = arena_alloc(c, len + 1);
    if (!copy)
        return ETL_ERR_NOMEM;
    memcpy(copy, name, len);
    copy[len] = '\0';
    if (e) {
        e->name = copy;
        e->name_len = len;
        return ETL_OK;
    }
    if (c->prov_count >= ETL_SCHEMA_CACHE_MAX_PROVIDERS)
        return ETL_ERR_LIMIT;
    if (c->prov_count == c->prov_cap) {
        uint32_t n = c->prov_cap ? c->prov_cap * 2 : 32;
        provider_entry *v = etl_mem_realloc(&c->alloc, c->providers, (size_t)n * sizeof *v);
        if (!v)
            return ETL_ERR_NOMEM;
        c->providers = v;
        c->prov_cap = n;
    }
    provider_entry *ne = &c->providers[c->prov_count];
    ne->guid = *g;
    ne->name = copy;
    ne->name_len = len;
    if (!table_insert(c, &c->prov, h, c->prov_count))
        return ETL_ERR_NOMEM;
    c->prov_count++;
    return ETL_OK;
}

const char *etl_schema_cache_provider_name(const etl_schema_cache *c, const etl_guid *g)
{
    if (!c || !g)
        return NULL;
    const provider_entry *e = find_provider(c, g, hash_guid(g));
    return e ? e->name : NULL;
}

const etl_schema_cache_stats *etl_schema_cache_get_stats(const etl_schema_cache *c)
{
    return &c->stats;
}
