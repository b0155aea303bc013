/* schema_cache.h - one append-only arena of compiled schemas, and the indexes that find them.
 *
 * Every schema source puts its compiled schemas into the same arena and gets back a stable
 * index (0, 1, 2, ...): the Wireshark plugin can key its per-schema field registrations by it,
 * and a schema pointer stays valid until the cache is freed.  Each source keeps its own index
 * from its key to arena indexes:
 *
 *   TraceLogging   the raw EVENT_SCHEMA_TL bytes, one index per record bitness (32- and 64-bit
 *                  records with the same bytes can lay out differently - in-type 16 - so they
 *                  never share an entry).  The event id is deliberately not part of the key:
 *                  TraceLogging events usually all have id 0 (etw-formats.md 5.6, pitfall 11).
 *   manifests      (provider GUID, event id, version), one index per record bitness (in-type
 *                  16/308 pointers make 32- and 64-bit layouts differ); the key's 19 bytes are
 *                  kept with the schema.  Only manifest-origin schemas (manifest files,
 *                  EventSource manifests, TRACE_EVENT_INFO carried in the trace) go in: records
 *                  with a classic or WPP header never look here (their ids collide).  Keys
 *                  looked up and not found go in a bounded negative cache (emptied when full)
 *                  so a trace full of events without a schema costs one probe each; a new
 *                  schema source empties it (etl_schema_cache_mf_forget).
 *
 * A lookup hashes the key once, probes a small open-addressing table and compares the stored
 * key bytes; a hit allocates nothing.  Compiling happens once per distinct key, also for damaged
 * metadata (its program ends in an UNSUPPORTED step), so bad metadata costs one compile.
 *
 * The cache also remembers provider names from TraceLogging PROV_TRAITS per provider GUID, so
 * events of that provider that carry no traits can still be named.
 *
 * Not thread-safe: one cache per reader/dissector thread, or a lock around it. */
#ifndef ETL_SCHEMA_CACHE_H
#define ETL_SCHEMA_CACHE_H

#include "etl.h"
#include "schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes per arena chunk; a schema larger than this gets a chunk of its own. */
#define ETL_SCHEMA_ARENA_CHUNK (64u * 1024u)
/* Schemas one cache holds; past it lookups fail with ETL_ERR_LIMIT (a trace with more distinct
 * event layouts than this is hostile or broken). */
#define ETL_SCHEMA_CACHE_MAX_SCHEMAS (1u << 20)
/* Provider names remembered. */
#define ETL_SCHEMA_CACHE_MAX_PROVIDERS (1u << 16)

typedef struct etl_schema_cache etl_schema_cache;

typedef struct etl_schema_cache_stats {
    uint64_t lookups;      /* TraceLogging lookups */
    uint64_t hits;
    uint64_t compiles;     /* schemas compiled (= misses) */
    uint64_t damaged;      /* compiled schemas that end in UNSUPPORTED */
    uint64_t arena_bytes;  /* bytes held by the arena */
    uint64_t mf_lookups;   /* manifest-key lookups */
    uint64_t mf_hits;
    uint64_t mf_absent_hits; /* answered by the negative cache */
    uint64_t mf_compiles;
    uint64_t classic_lookups; /* classic-key lookups */
    uint64_t classic_hits;
    uint64_t classic_compiles;
} etl_schema_cache_stats;

/* NULL allocator = libc.  NULL when out of memory. */
etl_schema_cache *etl_schema_cache_new(const etl_allocator *alloc);
void etl_schema_cache_free(etl_schema_cache *c);

/* ---- the arena -------------------------------------------------------------------------- */

uint32_t etl_schema_cache_count(const etl_schema_cache *c);
/* The schema at an arena index; NULL when out of range. */
const etl_schema *etl_schema_cache_at(const etl_schema_cache *c, uint32_t index);
/* Append the schema in `b` (with a copy of `key`) to the arena: for sources that keep their own
 * index.  Sets (*out)->index. */
etl_status etl_schema_cache_add(etl_schema_cache *c, const etl_schema_builder *b, const uint8_t *key,
                                size_t key_len, const etl_schema **out, etl_error *err);

/* ---- TraceLogging ----------------------------------------------------------------------- */

/* The compiled schema for EVENT_SCHEMA_TL data `meta` in a record of `pointer_size` (4 or 8),
 * compiling and caching it on first sight.  ETL_OK with *out set - also for damaged metadata,
 * whose schema says why (etl_schema_reason); ETL_ERR_NOMEM / ETL_ERR_LIMIT / ETL_ERR_ARG
 * otherwise.  A hit allocates nothing. */
etl_status etl_schema_cache_tl(etl_schema_cache *c, const uint8_t *meta, size_t len, uint8_t pointer_size,
                               const etl_schema **out, etl_error *err);

/* ---- manifest events -------------------------------------------------------------------- */

/* Keys not found that the negative cache remembers (per cache, both bitnesses); when it is full
 * it is emptied and starts again, so it never grows. */
#define ETL_SCHEMA_CACHE_MAX_ABSENT 4096u
#define ETL_MF_KEY_SIZE 19u /* GUID (Windows layout), u16 id, u8 version */

/* The schema compiled for (provider, id, version) at `pointer_size`, or NULL.  *absent (when not
 * NULL) is set when the key is in the negative cache.  A hit allocates nothing. */
const etl_schema *etl_schema_cache_mf_find(etl_schema_cache *c, const etl_guid *provider, uint16_t id,
                                           uint8_t version, uint8_t pointer_size, bool *absent);
/* Append the schema in `b` to the arena and index it under the key. */
etl_status etl_schema_cache_mf_add(etl_schema_cache *c, const etl_schema_builder *b, const etl_guid *provider,
                                   uint16_t id, uint8_t version, uint8_t pointer_size, const etl_schema **out,
                                   etl_error *err);
/* Remember that the key has no schema. */
void etl_schema_cache_mf_absent(etl_schema_cache *c, const etl_guid *provider, uint16_t id, uint8_t version,
                                uint8_t pointer_size);
/* A new schema source arrived: empty the negative cache, and drop the index entries of
 * `provider` (all providers when NULL) so their keys are resolved again.  The schemas stay in
 * the arena (pointers and indexes handed out remain valid). */
void etl_schema_cache_mf_forget(etl_schema_cache *c, const etl_guid *provider);

/* ---- classic events ---------------------------------------------------------------------- */

/* Classic kernel and MOF events are keyed the classic way - (class GUID, event type, class
 * version) and the record's pointer size - in an index of their own, never mixed with manifest
 * keys (a classic type is not an event id).  Events no source describes are compiled too (an
 * `unknown` schema, schema.h) and indexed like the others, so each key costs one compile. */
const etl_schema *etl_schema_cache_classic_find(etl_schema_cache *c, const etl_guid *cls, uint8_t type,
                                                uint8_t version, uint8_t pointer_size);
etl_status etl_schema_cache_classic_add(etl_schema_cache *c, const etl_schema_builder *b, const etl_guid *cls,
                                        uint8_t type, uint8_t version, uint8_t pointer_size, const etl_schema **out,
                                        etl_error *err);

/* ---- provider names --------------------------------------------------------------------- */

/* Remember `name` (len bytes, UTF-8) for a provider GUID; a later different name replaces it.
 * Costs a lookup and a compare when the name is already known. */
etl_status etl_schema_cache_set_provider_name(etl_schema_cache *c, const etl_guid *provider, const char *name,
                                              size_t len);
/* The remembered name (NUL-terminated, owned by the cache), or NULL. */
const char *etl_schema_cache_provider_name(const etl_schema_cache *c, const etl_guid *provider);

const etl_schema_cache_stats *etl_schema_cache_get_stats(const etl_schema_cache *c);

#ifdef __cplusplus
}
#endif

#endif /* ETL_SCHEMA_CACHE_H */
