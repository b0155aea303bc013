/* registry.c - the schema registry (registry.h): manifest files, EventSource manifests and schemas
 * carried in the trace, in that precedence, compiled on first use into the shared cache.
 *
 * Each source is a parsed manifest model.  Per source kind (layer), an index maps a provider
 * GUID to the providers that describe it, in precedence order, and each provider gets a small
 * table from (id, version) to its event, so resolving a key is a few hash probes.  Resolving
 * happens once per key and bitness; after that the cache's index answers. */
#include "registry.h"

#include <glib.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "carried.h"
#include "classic.h"
#include "error.h"
#include "etl_format.h"
#include "eventsource.h"
#include "known_providers.h"
#include "manifest.h"
#include "mf_schema.h"
#include "prescan.h"
#include "search_path.h"
#include "thread.h"
#include "wevt.h"

/* Reports about malformed schema records in one trace before the rest are only counted. */
#define SCHEMAS_MAX_RECORD_REPORTS 20u
#define LAYERS 4 /* etl_registry_source: file, stream, carried, built-in */

/* A provider binary (wevt.h) is a source whose model is read on first use: indexing it gives
 * the provider GUIDs only, and its prov_refs wait (p NULL) until a lookup reaches one of them
 * (ready()), when the whole binary is read; a binary that then fails to read is reported once
 * and its providers stay empty. */
typedef struct source {
    etl_manifest *m;         /* NULL until a binary is read (or when it failed) */
    etl_registry_source kind;
    char *origin;
    uint32_t order; /* position in precedence within its layer */
    bool binary;             /* a provider binary, read lazily */
    bool tried;              /* ... and its read was attempted */
    GPtrArray *refs;         /* a binary's prov_refs (not owned), to fill when it is read */
} source;

/* One provider of one source, with its events by (id, version). */
typedef struct prov_ref {
    const etl_mf_provider *p; /* NULL while its binary is not read */
    source *src;
    etl_guid guid;            /* the index key points here */
    GHashTable *events; /* GUINT_TO_POINTER(id << 8 | version) + 1 -> etl_mf_event* */
} prov_ref;

/* Kernel-group records (SYSTEM, COMPACT, PERFINFO headers) are most of a big trace and repeat a
 * few dozen keys, so the registry remembers their schemas in a small direct-mapped memo keyed by
 * the header's own fields: a repeat skips building the class key, hashing and comparing it in
 * the cache (about 15 ns of a 20 ns lookup).  The cache never drops a schema, so a remembered
 * pointer stays valid as long as the registry (the cache outlives it). */
#define KERNEL_MEMO_SIZE 256u /* power of two */
#define KM_VALID 0x80000000u
#define KM_PTR32 0x40000000u
#define KM_IMAGE_LOAD 0x20000000u /* hook 0x030A, keyed with the Image class (classic.h) */
typedef struct kernel_memo {
    uint32_t key;             /* KM_* bits | group << 16 | type << 8 | version; 0 = empty */
    const etl_schema *schema;
} kernel_memo;

/* Manifest keys the same way: a trace's manifest events are a few hundred keys, and a repeat
 * would otherwise build the cache key, hash and compare it (about 300 instructions of a
 * lookup).  Keyed by the input as well (each input sees its own carried layers); every entry
 * is dropped when any provider's definitions change (forget: a generation count). */
#define MF_MEMO_SIZE 256u /* power of two */
typedef struct mf_memo {
    etl_guid g;
    const struct input *in;
    const etl_schema *schema;
    uint32_t gen; /* the registry's mf_memo_gen when it was remembered; 0 = empty */
    uint16_t id;
    uint8_t version, ptr;
} mf_memo;

/* The schemas one input of the capture carries - the MetaData records and EventSource manifests
 * of one logger id of one trace (registry.h: the inputs of a merge stay apart) - as its own
 * stream and carried layers.  The first input's keys are compiled into the cache's index like
 * the manifest files' (a trace of one input is looked up as it always was); every other input
 * (and `bare`, the records of no input when there are several) keeps the keys compiled for it
 * in `compiled`, the schemas themselves in the cache's arena. */
#define INPUT_LAYER(l) ((l) - ETL_REGISTRY_STREAM) /* STREAM, CARRIED -> 0, 1 */
typedef struct input {
    uint32_t trace;
    uint16_t logger_id;
    etl_carried *carried;
    bool carried_dirty;
    etl_es_collector *es;
    GPtrArray *sources[2];   /* source*, arrival order: stream, carried */
    GHashTable *index[2];    /* etl_guid* -> GPtrArray of prov_ref* */
    GHashTable *compiled;    /* ckey* -> etl_schema* or ABSENT (not for the first input) */
} input;

/* A key of an input's own compiled schemas. */
typedef struct ckey {
    etl_guid g;
    uint16_t id;
    uint8_t version, ptr;
} ckey;
static const char absent_mark;
#define ABSENT ((gpointer)&absent_mark)

struct etl_registry {
    etl_schema_cache *cache;
    etl_schema_builder builder;
    etl_registry_report_fn report;
    void *report_ctx;
    GPtrArray *sources[LAYERS];  /* source*, precedence order (stream and carried: empty, the inputs have them) */
    GHashTable *index[LAYERS];   /* etl_guid* -> GPtrArray of prov_ref* (precedence order) */
    input *inputs[ETL_REGISTRY_MAX_INPUTS]; /* in order of their first schema record */
    uint32_t n_inputs;
    input *bare;                 /* records of no input (several inputs, none theirs) */
    GPtrArray *observers;        /* trace_observer* handed out by etl_registry_observer_of */
    GHashTable *warned;          /* "fileA\nfileB\nguid" pairs already reported */
    const etl_schema *string_only[2]; /* STRING_ONLY events' built-in schema, 32-/64-bit */
    /* classic events: the built-in kernel class document, indexed by class GUID apart from
     * the manifest layers (read on first use) */
    GHashTable *classic_index;   /* etl_guid* -> GPtrArray of prov_ref* */
    source *classic_src;
    bool classic_tried;
    kernel_memo kmemo[KERNEL_MEMO_SIZE];
    mf_memo mmemo[MF_MEMO_SIZE];
    uint32_t mf_memo_gen;  /* starts at 1; bumped by forget */
    uint32_t record_reports;
    etl_registry_stats stats;
    struct preload *preload;     /* the path's files loaded ahead (etl_registry_add_path_threads) */
};

static void report(etl_registry *s, etl_registry_severity sev, const char *fmt, ...) ETL_PRINTF(3, 4);
static void report(etl_registry *s, etl_registry_severity sev, const char *fmt, ...)
{
    if (!s->report)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    s->report(s->report_ctx, sev, msg);
    g_free(msg);
}

/* ---- indexes ------------------------------------------------------------------------------ */

static guint guid_hash(gconstpointer k)
{
    const etl_guid *g = k;
    return g->data1 ^ ((guint)g->data2 << 16 | g->data3) ^ ((guint)g->data4[4] << 24 | (guint)g->data4[5] << 16 |
                                                           (guint)g->data4[6] << 8 | g->data4[7]);
}

static gboolean guid_eq(gconstpointer a, gconstpointer b)
{
    return etl_guid_equal(a, b);
}

static gpointer ev_key(uint16_t id, uint8_t version)
{
    return GUINT_TO_POINTER(((guint)id << 8 | version) + 1u);
}

static void prov_ref_free(gpointer p)
{
    prov_ref *r = p;
    if (r->events)
        g_hash_table_destroy(r->events);
    g_free(r);
}

static void source_free(gpointer p)
{
    source *src = p;
    etl_manifest_free(src->m);
    if (src->refs)
        g_ptr_array_free(src->refs, TRUE);
    g_free(src->origin);
    g_free(src);
}

static GHashTable *new_index(void)
{
    return g_hash_table_new_full(guid_hash, guid_eq, NULL, (GDestroyNotify)g_ptr_array_unref);
}

static void add_source(etl_registry *s, input *in, etl_manifest *m, etl_registry_source kind, const char *origin);

static guint ckey_hash(gconstpointer k)
{
    const ckey *c = k;
    return guid_hash(&c->g) ^ ((guint)c->id << 16 | (guint)c->version << 8 | c->ptr);
}

static gboolean ckey_eq(gconstpointer a, gconstpointer b)
{
    return memcmp(a, b, sizeof(ckey)) == 0;
}

static input *input_new(uint32_t trace, uint16_t logger_id)
{
    input *in = g_new0(input, 1);
    in->trace = trace;
    in->logger_id = logger_id;
    in->carried = etl_carried_new();
    in->es = etl_es_collector_new();
    for (int k = 0; k < 2; k++) {
        in->sources[k] = g_ptr_array_new_with_free_func(source_free);
        in->index[k] = new_index();
    }
    in->compiled = g_hash_table_new_full(ckey_hash, ckey_eq, g_free, NULL);
    return in;
}

static void input_free(input *in)
{
    for (int k = 0; k < 2; k++) {
        g_hash_table_destroy(in->index[k]); /* before the sources: keys point into them */
        g_ptr_array_free(in->sources[k], TRUE);
    }
    g_hash_table_destroy(in->compiled);
    etl_carried_free(in->carried);
    etl_es_collector_free(in->es);
    g_free(in);
}

/* The built-in layer (builtin.h): parsed once per registry, the lowest precedence. */
static void add_builtin(etl_registry *s)
{
    etl_manifest *m;
    etl_error err;
    if (etl_builtin_packet_manifest(&m, &err) == ETL_OK)
        add_source(s, NULL, m, ETL_REGISTRY_BUILTIN, ETL_BUILTIN_PACKET_ORIGIN);
    else
        report(s, ETL_REGISTRY_ERROR, "the built-in packet capture layouts: %s", err.message);
}

etl_registry *etl_registry_new(etl_schema_cache *cache, etl_registry_report_fn fn, void *ctx)
{
    if (!cache)
        return NULL;
    etl_registry *s = g_new0(etl_registry, 1);
    s->cache = cache;
    etl_schema_builder_init(&s->builder, NULL);
    s->report = fn;
    s->report_ctx = ctx;
    s->mf_memo_gen = 1;
    for (int l = 0; l < LAYERS; l++) {
        s->sources[l] = g_ptr_array_new_with_free_func(source_free);
        s->index[l] = new_index();
    }
    s->bare = input_new(UINT32_MAX, 0);
    s->observers = g_ptr_array_new_with_free_func(g_free);
    s->warned = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    add_builtin(s);
    return s;
}

void etl_registry_free(etl_registry *s)
{
    if (!s)
        return;
    for (int l = 0; l < LAYERS; l++) {
        g_hash_table_destroy(s->index[l]); /* before the sources: keys point into them */
        g_ptr_array_free(s->sources[l], TRUE);
    }
    if (s->classic_index)
        g_hash_table_destroy(s->classic_index);
    if (s->classic_src)
        source_free(s->classic_src);
    for (uint32_t i = 0; i < s->n_inputs; i++)
        input_free(s->inputs[i]);
    input_free(s->bare);
    g_ptr_array_free(s->observers, TRUE);
    g_hash_table_destroy(s->warned);
    etl_schema_builder_free(&s->builder);
    g_free(s);
}

const etl_registry_stats *etl_registry_get_stats(const etl_registry *s)
{
    return &s->stats;
}

const char *etl_registry_env_path(void)
{
    const char *p = g_getenv(ETL_REGISTRY_ENV);
    return p && *p ? p : NULL;
}

/* ---- comparing two definitions of one event ----------------------------------------------- */

static bool str_same(const char *a, const char *b)
{
    return (a ? a : "")[0] == (b ? b : "")[0] && strcmp(a ? a : "", b ? b : "") == 0;
}

static bool map_same(const etl_mf_provider *pa, const char *a, const etl_mf_provider *pb, const char *b)
{
    if (!str_same(a, b))
        return false;
    const etl_mf_map *x = etl_mf_find_map(pa, a), *y = etl_mf_find_map(pb, b);
    if (!x || !y)
        return !x && !y;
    if (x->is_bitmap != y->is_bitmap || x->entry_count != y->entry_count)
        return false;
    for (uint32_t i = 0; i < x->entry_count; i++)
        if (x->entries[i].value != y->entries[i].value || !str_same(x->entries[i].text, y->entries[i].text))
            return false;
    return true;
}

/* Do two definitions decode and name an event the same way? */
static bool event_same(const etl_mf_provider *pa, const etl_mf_event *a, const etl_mf_provider *pb,
                       const etl_mf_event *b)
{
    if (!str_same(a->name, b->name) || !str_same(a->task_name, b->task_name) ||
        !str_same(a->opcode_name, b->opcode_name) || a->opcode != b->opcode || a->task != b->task)
        return false;
    const etl_mf_template *x = a->tmpl, *y = b->tmpl;
    uint32_t nx = x ? x->prop_count : 0, ny = y ? y->prop_count : 0;
    if (nx != ny)
        return false;
    for (uint32_t i = 0; i < nx; i++) {
        const etl_mf_property *p = &x->props[i], *q = &y->props[i];
        if (!str_same(p->name, q->name) || p->in_type != q->in_type || p->out_type != q->out_type ||
            p->is_struct != q->is_struct || p->member_count != q->member_count || p->has_length != q->has_length ||
            p->length != q->length || p->length_ref != q->length_ref || p->has_count != q->has_count ||
            p->count != q->count || p->count_ref != q->count_ref || !map_same(pa, p->map_name, pb, q->map_name))
            return false;
    }
    return true;
}

/* ---- adding sources ------------------------------------------------------------------------ */

/* The newly indexed provider `r` against those of the same GUID already in the file layer:
 * each of its events is compared with the definition that wins for the key (the first earlier
 * file that has it), and one warning per pair of files says how many differ. */
static bool ready(etl_registry *s, prov_ref *r);

static void check_disagreements(etl_registry *s, GPtrArray *earlier, const prov_ref *r)
{
    for (guint k = 0; k < earlier->len; k++)
        ready(s, g_ptr_array_index(earlier, k)); /* a binary defining the same provider is read now */
    char g[ETL_GUID_STR_SIZE];
    etl_format_guid(&r->p->guid, g);
    uint32_t *differ = g_new0(uint32_t, earlier->len);
    const etl_mf_event **example = g_new0(const etl_mf_event *, earlier->len);
    for (uint32_t i = 0; i < r->p->event_count; i++) {
        const etl_mf_event *ev = &r->p->events[i];
        for (guint k = 0; k < earlier->len; k++) {
            const prov_ref *e = g_ptr_array_index(earlier, k);
            if (!e->p)
                continue; /* a binary that did not read */
            const etl_mf_event *old = g_hash_table_lookup(e->events, ev_key(ev->id, ev->version));
            if (!old)
                continue;
            if (!event_same(e->p, old, r->p, ev)) {
                if (!example[k])
                    example[k] = ev;
                differ[k]++;
                s->stats.disagreements++;
            }
            break; /* the winning definition decides */
        }
    }
    for (guint k = 0; k < earlier->len; k++) {
        if (!differ[k])
            continue;
        const prov_ref *e = g_ptr_array_index(earlier, k);
        char *key = g_strdup_printf("%s\n%s\n%s", e->src->origin, r->src->origin, g);
        if (g_hash_table_contains(s->warned, key)) {
            g_free(key);
            continue;
        }
        g_hash_table_add(s->warned, key);
        report(s, ETL_REGISTRY_WARNING,
               "manifests %s and %s define %u event(s) of provider %s {%s} differently (first: id %u version %u); "
               "using %s, which comes first in the search path",
               e->src->origin, r->src->origin, differ[k], r->p->name ? r->p->name : "(unnamed)", g,
               (unsigned)example[k]->id, (unsigned)example[k]->version, e->src->origin);
    }
    g_free(differ);
    g_free(example);
}

/* A provider's events by (id, version): the first definition of a key wins (manifests should
 * not repeat one; if they do, document order decides). */
static void fill_prov_ref(prov_ref *r, const etl_mf_provider *p)
{
    r->p = p;
    r->events = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (uint32_t k = 0; k < p->event_count; k++) {
        gpointer key = ev_key(p->events[k].id, p->events[k].version);
        if (!g_hash_table_contains(r->events, key))
            g_hash_table_insert(r->events, key, (gpointer)&p->events[k]);
    }
}

static prov_ref *new_prov_ref(const etl_mf_provider *p, source *src)
{
    prov_ref *r = g_new0(prov_ref, 1);
    r->src = src;
    r->guid = p->guid;
    fill_prov_ref(r, p);
    return r;
}

/* Read a binary source now (once): its model, and every prov_ref waiting for it. */
static void read_binary(etl_registry *s, source *src)
{
    src->tried = true;
    etl_error err;
    etl_manifest *m = NULL;
    if (etl_wevt_load_file(src->origin, &m, &err) != ETL_OK) {
        s->stats.binaries_failed++;
        report(s, ETL_REGISTRY_ERROR, "provider binary %s: %s; its schemas are not used", src->origin, err.message);
        return;
    }
    src->m = m;
    s->stats.binaries_read++;
    for (guint i = 0; i < src->refs->len; i++) {
        prov_ref *r = g_ptr_array_index(src->refs, i);
        for (uint32_t k = 0; k < etl_manifest_provider_count(m) && !r->p; k++)
            if (etl_guid_equal(&etl_manifest_provider(m, k)->guid, &r->guid))
                fill_prov_ref(r, etl_manifest_provider(m, k));
    }
}

/* Is the provider's model there (reading its binary first if it is one not yet read)? */
static bool ready(etl_registry *s, prov_ref *r)
{
    if (!r->p && r->src->binary && !r->src->tried)
        read_binary(s, r->src);
    return r->p != NULL;
}

/* Are the input's keys those of the cache's index (no input, or the first)? */
static bool in_cache_index(const etl_registry *s, const input *in)
{
    return !in || (s->n_inputs && in == s->inputs[0]);
}

/* The index of layer `l` as the records of input `in` see it: the stream and carried layers
 * are the input's own (empty without one). */
static GHashTable *layer(const etl_registry *s, const input *in, int l)
{
    return in && (l == ETL_REGISTRY_STREAM || l == ETL_REGISTRY_CARRIED) ? in->index[INPUT_LAYER(l)] : s->index[l];
}

/* Keys of provider `g` resolved (or missed) before for input `in` are resolved again; a
 * manifest file or built-in source (in NULL) is every input's. */
static void forget(etl_registry *s, const input *in, const etl_guid *g)
{
    if (++s->mf_memo_gen == 0) { /* wrapped: no entry may look current */
        memset(s->mmemo, 0, sizeof s->mmemo);
        s->mf_memo_gen = 1;
    }
    if (in_cache_index(s, in))
        etl_schema_cache_mf_forget(s->cache, g); /* (also empties the negative cache) */
    if (!in || !in_cache_index(s, in)) {
        for (uint32_t i = 1; i < s->n_inputs; i++)
            if (!in || in == s->inputs[i])
                g_hash_table_remove_all(s->inputs[i]->compiled);
        if (!in || in == s->bare)
            g_hash_table_remove_all(s->bare->compiled);
    }
}

/* Index a parsed manifest as a source of `kind` (takes ownership of m); a stream or carried
 * source is input `in`'s. */
static void add_source(etl_registry *s, input *in, etl_manifest *m, etl_registry_source kind, const char *origin)
{
    bool own = kind == ETL_REGISTRY_STREAM || kind == ETL_REGISTRY_CARRIED;
    GPtrArray *sources = own ? in->sources[INPUT_LAYER(kind)] : s->sources[kind];
    GHashTable *index = own ? in->index[INPUT_LAYER(kind)] : s->index[kind];
    source *src = g_new0(source, 1);
    src->m = m;
    src->kind = kind;
    src->origin = g_strdup(origin);
    src->order = sources->len;
    g_ptr_array_add(sources, src);
    for (uint32_t i = 0; i < etl_manifest_provider_count(m); i++) {
        const etl_mf_provider *p = etl_manifest_provider(m, i);
        prov_ref *r = new_prov_ref(p, src);
        GPtrArray *list = g_hash_table_lookup(index, &p->guid);
        if (!list) {
            list = g_ptr_array_new_with_free_func(prov_ref_free);
            g_hash_table_insert(index, (gpointer)&r->guid, list);
        } else if (kind == ETL_REGISTRY_FILE) {
            check_disagreements(s, list, r);
        }
        g_ptr_array_add(list, r);
        forget(s, own ? in : NULL, &p->guid);
    }
}

/* Index a provider binary: its providers wait in the file layer, in path order, until used.
 * A provider another source of the path defines too is read at once, so that the two
 * definitions are compared (and a difference reported) as for two manifests. */
static void add_binary(etl_registry *s, const char *path, const etl_guid *guids, uint32_t count)
{
    source *src = g_new0(source, 1);
    src->kind = ETL_REGISTRY_FILE;
    src->origin = g_strdup(path);
    src->order = s->sources[ETL_REGISTRY_FILE]->len;
    src->binary = true;
    src->refs = g_ptr_array_new();
    g_ptr_array_add(s->sources[ETL_REGISTRY_FILE], src);
    for (uint32_t i = 0; i < count; i++) {
        bool repeated = false;
        for (uint32_t k = 0; k < i; k++)
            repeated |= etl_guid_equal(&guids[k], &guids[i]);
        if (repeated)
            continue;
        prov_ref *r = g_new0(prov_ref, 1);
        r->src = src;
        r->guid = guids[i];
        g_ptr_array_add(src->refs, r);
    }
    for (guint i = 0; i < src->refs->len; i++) {
        prov_ref *r = g_ptr_array_index(src->refs, i);
        GPtrArray *list = g_hash_table_lookup(s->index[ETL_REGISTRY_FILE], &r->guid);
        if (!list) {
            list = g_ptr_array_new_with_free_func(prov_ref_free);
            g_hash_table_insert(s->index[ETL_REGISTRY_FILE], &r->guid, list);
        } else if (ready(s, r)) {
            check_disagreements(s, list, r);
        }
        g_ptr_array_add(list, r);
        forget(s, NULL, &r->guid);
    }
}

/* A file of a manifest path, read: a binary's index or a manifest's model, or the failure.
 * Reading is the slow part (parsing, page faults) and touches nothing shared, so that it can be
 * done on other threads; taking it into the registry (take_binary, take_manifest) is done in
 * path order. */
typedef struct loaded {
    etl_status st;
    etl_error *err;  /* the failure, when st is not ETL_OK (a path may list a million files) */
    etl_manifest *m;
    etl_guid *guids;
    uint32_t count;
} loaded;

static void load_file(const char *path, bool binary, loaded *out)
{
    etl_error err;
    *out = (loaded){0};
    out->st = binary ? etl_wevt_index_file(path, &out->guids, &out->count, &err)
                     : etl_manifest_load_file(path, &out->m, &err);
    if (out->st != ETL_OK && !(binary && out->st == ETL_ERR_NOT_FOUND)) /* most binaries: no message */
        out->err = g_memdup2(&err, sizeof err);
}

static void drop_loaded(loaded *l)
{
    etl_manifest_free(l->m);
    g_free(l->guids);
    g_free(l->err);
    *l = (loaded){0};
}

/* The loaded file into the registry, as etl_registry_add_binary / etl_registry_add_file say;
 * what l held is the registry's or freed. */
static etl_status take_binary(etl_registry *s, const char *path, loaded *l, etl_error *err)
{
    etl_status st = l->st;
    etl_error e = l->err ? *l->err : (etl_error){0};
    if (st == ETL_ERR_NOT_FOUND) {
        s->stats.binaries_without_schema++;
        drop_loaded(l);
        return ETL_OK; /* most binaries of a Windows folder define no provider */
    }
    if (st != ETL_OK) {
        s->stats.binaries_failed++;
        drop_loaded(l);
        return etl_fail(err, st, e.offset, "provider binary %s: %s; skipped", path, e.message);
    }
    s->stats.binaries_indexed++;
    add_binary(s, path, l->guids, l->count);
    drop_loaded(l);
    return ETL_OK;
}

/* A manifest parsed (st ETL_OK: m is the registry's from here on) or not, counted. */
static etl_status take_model(etl_registry *s, etl_status st, etl_manifest *m, const char *origin)
{
    if (st != ETL_OK) {
        s->stats.files_failed++;
        return st;
    }
    s->stats.files_loaded++;
    add_source(s, NULL, m, ETL_REGISTRY_FILE, origin);
    return ETL_OK;
}

static etl_status take_manifest(etl_registry *s, const char *path, loaded *l, etl_error *err)
{
    if (l->st != ETL_OK)
        *err = *l->err;
    etl_status st = take_model(s, l->st, l->m, path);
    l->m = NULL; /* the registry's, when it parsed */
    drop_loaded(l);
    return st;
}

etl_status etl_registry_add_binary(etl_registry *s, const char *path, etl_error *err)
{
    loaded l;
    load_file(path, true, &l);
    return take_binary(s, path, &l, err);
}

etl_status etl_registry_add_manifest_text(etl_registry *s, const char *xml, size_t len, const char *origin,
                                         etl_error *err)
{
    etl_manifest *m = NULL;
    etl_status st = etl_manifest_parse(xml, len, origin, &m, err);
    return take_model(s, st, m, origin);
}

etl_status etl_registry_add_file(etl_registry *s, const char *path, etl_error *err)
{
    loaded l;
    load_file(path, false, &l);
    return take_manifest(s, path, &l, err);
}

static bool manifest_name(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && (g_ascii_strcasecmp(name + n - 4, ".man") == 0 || g_ascii_strcasecmp(name + n - 4, ".xml") == 0);
}

/* The files of a folder on the path: manifests and provider binaries. */
static bool schema_file_name(const char *name)
{
    return manifest_name(name) || etl_wevt_is_binary_name(name);
}

/* The files of a path walked once to list them, read on several threads, then taken in the
 * second walk's order (etl_registry_add_path_threads).  Hand-written: GLib's thread pool would
 * do the fan-out, but not the caller's own thread taking its share. */
typedef struct preload {
    GPtrArray *paths; /* the first walk's files, in its order */
    loaded *files;    /* their reads, the same order */
    unsigned next;    /* the second walk: the next file it should meet */
    unsigned claim;   /* the reading: the next file to read (atomic) */
} preload;

/* One file of the path: a provider binary by its name (.dll, .exe, .sys), else a manifest.  Read
 * ahead when the first walk listed it at this place, else here. */
static etl_status add_path_file(void *ctx, const char *path)
{
    etl_registry *s = ctx;
    etl_error err;
    bool binary = etl_wevt_is_binary_name(path);
    preload *pre = s->preload;
    loaded here, *l = &here;
    if (pre && pre->next < pre->paths->len && strcmp(g_ptr_array_index(pre->paths, pre->next), path) == 0)
        l = &pre->files[pre->next++];
    else /* the folder changed between the walks: this file was not read ahead */
        load_file(path, binary, &here);
    etl_status st = binary ? take_binary(s, path, l, &err) : take_manifest(s, path, l, &err);
    if (st != ETL_OK)
        report(s, ETL_REGISTRY_ERROR, "%s", err.message);
    return st;
}

static void path_problem(void *ctx, bool failed, const char *message)
{
    etl_registry *s = ctx;
    report(s, ETL_REGISTRY_ERROR, "%s", message);
    if (failed)
        s->stats.files_failed++;
}

static const etl_search_path manifest_path = {
    .what = "manifest", .files = "manifests", .wanted = schema_file_name,
    .max_entries = ETL_REGISTRY_MAX_PATH_ENTRIES, .max_files = ETL_REGISTRY_MAX_FOLDER_FILES,
    .file = add_path_file, .problem = path_problem,
    /* binaries do not count against the manifests' limit: a Windows folder has thousands */
    .limited = manifest_name, .max_tree_files = ETL_REGISTRY_MAX_TREE_FILES, .tree_files = "manifests and binaries",
    .recursive_suffix = ETL_REGISTRY_RECURSIVE_SUFFIX, .max_depth = ETL_REGISTRY_MAX_FOLDER_DEPTH,
};

etl_status etl_registry_add_path(etl_registry *s, const char *list)
{
    return etl_registry_add_path_threads(s, list, 1);
}

/* The first walk: the files only, in order; its messages are the second walk's to say. */
static etl_status list_file(void *ctx, const char *path)
{
    g_ptr_array_add(ctx, g_strdup(path));
    return ETL_OK;
}

static void list_problem(void *ctx, bool failed, const char *message)
{
    (void)ctx, (void)failed, (void)message;
}

static void *read_files(void *arg)
{
    preload *pre = arg;
    for (unsigned i; (i = __atomic_fetch_add(&pre->claim, 1, __ATOMIC_RELAXED)) < pre->paths->len;) {
        const char *path = g_ptr_array_index(pre->paths, i);
        load_file(path, etl_wevt_is_binary_name(path), &pre->files[i]);
    }
    return NULL;
}

etl_status etl_registry_add_path_threads(etl_registry *s, const char *list, unsigned threads)
{
    if (!s || !list)
        return ETL_ERR_ARG;
    etl_search_path p = manifest_path;
    p.ctx = s;
    if (threads <= 1)
        return etl_search_path_walk(&p, list);
    preload pre = {.paths = g_ptr_array_new_with_free_func(g_free)};
    etl_search_path first = manifest_path;
    first.file = list_file;
    first.problem = list_problem;
    first.ctx = pre.paths;
    etl_search_path_walk(&first, list);
    pre.files = g_new0(loaded, pre.paths->len ? pre.paths->len : 1);
    unsigned helpers = threads - 1; /* besides this thread, which reads too: fewer than the files */
    if (helpers >= pre.paths->len)
        helpers = pre.paths->len ? pre.paths->len - 1 : 0;
    if (helpers > ETL_REGISTRY_MAX_READ_THREADS)
        helpers = ETL_REGISTRY_MAX_READ_THREADS;
    pthread_t t[ETL_REGISTRY_MAX_READ_THREADS];
    unsigned started = 0;
    while (started < helpers && etl_thread_start(&t[started], read_files, &pre) == 0)
        started++;
    read_files(&pre); /* this thread's share; all of it when no helper started */
    for (unsigned i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    s->preload = &pre;
    etl_status st = etl_search_path_walk(&p, list);
    s->preload = NULL;
    for (unsigned i = 0; i < pre.paths->len; i++) /* files the second walk did not meet */
        drop_loaded(&pre.files[i]);
    g_free(pre.files);
    g_ptr_array_free(pre.paths, TRUE);
    return st;
}

/* ---- schemas in the trace ------------------------------------------------------------------ */

/* Replace input `in`'s carried layer with a model built from every MetaData record it took. */
static void rebuild_carried(etl_registry *s, input *in)
{
    in->carried_dirty = false;
    etl_manifest *m;
    etl_error err;
    etl_status st = etl_carried_build(in->carried, &m, &err);
    if (st != ETL_OK) {
        if (st != ETL_ERR_NOT_FOUND)
            report(s, ETL_REGISTRY_WARNING, "schemas carried in the trace: %s", err.message);
        return;
    }
    /* the old model goes: its providers' keys are resolved again (from the new one, which
     * add_source forgets too); keys of other providers keep their compiled schemas */
    GPtrArray *old = in->sources[INPUT_LAYER(ETL_REGISTRY_CARRIED)];
    for (guint i = 0; i < old->len; i++) {
        const source *src = g_ptr_array_index(old, i);
        for (uint32_t k = 0; k < etl_manifest_provider_count(src->m); k++)
            forget(s, in, &etl_manifest_provider(src->m, k)->guid);
    }
    g_hash_table_remove_all(in->index[INPUT_LAYER(ETL_REGISTRY_CARRIED)]);
    g_ptr_array_set_size(old, 0);
    add_source(s, in, m, ETL_REGISTRY_CARRIED, "schemas carried in the trace");
}

/* The input of a record that carries schemas: its (trace, logger id)'s, created at its first
 * one (past ETL_REGISTRY_MAX_INPUTS the last one takes the rest). */
static input *input_get(etl_registry *s, const etl_record *rec)
{
    for (uint32_t i = 0; i < s->n_inputs; i++)
        if (s->inputs[i]->trace == rec->trace && s->inputs[i]->logger_id == rec->logger_id)
            return s->inputs[i];
    if (s->n_inputs == ETL_REGISTRY_MAX_INPUTS)
        return s->inputs[s->n_inputs - 1];
    input *in = input_new(rec->trace, rec->logger_id);
    s->inputs[s->n_inputs++] = in;
    return in;
}

/* Whose carried schemas a record's key is looked up in: its own (trace, logger id)'s; else
 * the one input of its trace (a logger id without schema records of its own, e.g. the
 * user-mode session of an xperf-style merge, takes those of the trace's one logger id that has
 * any); else, when no input carried anything, none (NULL: the cache's index); else none of
 * them (`bare`: another input's schemas do not describe its events). */
static input *input_of(etl_registry *s, const etl_record *rec)
{
    if (s->n_inputs == 0)
        return NULL;
    input *same = NULL;
    uint32_t n_same = 0;
    for (uint32_t i = 0; i < s->n_inputs; i++) {
        input *in = s->inputs[i];
        if (in->trace != rec->trace)
            continue;
        if (in->logger_id == rec->logger_id)
            return in;
        same = in;
        n_same++;
    }
    if (n_same == 1 || (n_same > 1 && s->n_inputs == ETL_REGISTRY_MAX_INPUTS))
        return n_same == 1 ? same : s->inputs[s->n_inputs - 1];
    return s->bare;
}

/* The first input (whose keys the cache's index holds), or NULL before any. */
static input *first_input(etl_registry *s)
{
    return s->n_inputs ? s->inputs[0] : NULL;
}

static void record_problem(etl_registry *s, const char *what, const etl_error *err)
{
    if (s->record_reports++ < SCHEMAS_MAX_RECORD_REPORTS)
        report(s, ETL_REGISTRY_WARNING, "%s refused: %s", what, err->message);
    else if (s->record_reports == SCHEMAS_MAX_RECORD_REPORTS + 1)
        report(s, ETL_REGISTRY_WARNING, "more schema records refused; not reported one by one");
}

etl_status etl_registry_observe(etl_registry *s, const etl_record *rec, etl_error *err)
{
    etl_error e;
    if (!err)
        err = &e;
    if (etl_carried_is_metadata(rec)) {
        input *in = input_get(s, rec);
        uint32_t ev0 = etl_carried_event_count(in->carried), maps0 = etl_carried_map_count(in->carried);
        etl_status st = etl_carried_add(in->carried, rec, err);
        if (st == ETL_OK) {
            uint32_t ev = etl_carried_event_count(in->carried), maps = etl_carried_map_count(in->carried);
            if (ev != ev0 || maps != maps0)
                in->carried_dirty = true; /* rebuilt at the next lookup: bursts coalesce */
            s->stats.carried_events += ev - ev0;
            s->stats.carried_maps += maps - maps0;
        } else if (st != ETL_ERR_NOT_FOUND) {
            record_problem(s, "a MetaData schema record", err);
        }
        return st == ETL_ERR_NOT_FOUND ? ETL_OK : st; /* not of manifest origin: taken, unused */
    }
    if (etl_es_is_manifest_chunk(rec)) {
        input *in = input_get(s, rec);
        etl_manifest *m = NULL;
        etl_status st = etl_es_add(in->es, rec, &m, err);
        if (st != ETL_OK) {
            record_problem(s, "an EventSource manifest chunk", err);
            return st;
        }
        if (m) {
            char g[ETL_GUID_STR_SIZE];
            etl_format_guid(&rec->provider, g);
            char *origin = g_strdup_printf("EventSource manifest of {%s} in the trace", g);
            add_source(s, in, m, ETL_REGISTRY_STREAM, origin);
            g_free(origin);
            s->stats.stream_manifests++;
        }
        return ETL_OK;
    }
    return etl_fail(err, ETL_ERR_NOT_FOUND, 0, "the record carries no schema");
}

/* The prescan's observer of one trace of several (etl_registry_observer_of). */
typedef struct trace_observer {
    etl_registry *s;
    uint32_t trace;
} trace_observer;

static void observe_trace(void *ctx, const etl_record *rec)
{
    const trace_observer *t = ctx;
    if (!etl_carried_is_metadata(rec) && !etl_es_is_manifest_chunk(rec))
        return;
    etl_record r = *rec; /* the few schema records only */
    r.trace = t->trace;
    etl_registry_observe(t->s, &r, NULL);
}

etl_observer etl_registry_observer_of(etl_registry *s, uint32_t trace)
{
    trace_observer *t = g_new0(trace_observer, 1);
    t->s = s;
    t->trace = trace;
    g_ptr_array_add(s->observers, t);
    return (etl_observer){ observe_trace, t };
}

/* ---- lookup -------------------------------------------------------------------------------- */

/* Input `in`'s carried layer, rebuilt when MetaData records came since it was built. */
static void carried_ready(etl_registry *s, input *in)
{
    if (in && in->carried_dirty)
        rebuild_carried(s, in);
}

static const char *provider_name_in(etl_registry *s, input *in, const etl_guid *g)
{
    carried_ready(s, in);
    for (int l = 0; l < LAYERS; l++) {
        GPtrArray *list = g_hash_table_lookup(layer(s, in, l), g);
        for (guint i = 0; list && i < list->len; i++) {
            prov_ref *r = g_ptr_array_index(list, i);
            if (ready(s, r) && r->p->name && *r->p->name)
                return r->p->name;
        }
    }
    return NULL;
}

const char *etl_registry_provider_name(etl_registry *s, const etl_guid *g)
{
    return s && g ? provider_name_in(s, first_input(s), g) : NULL;
}

const char *etl_registry_record_provider_name(etl_registry *s, const etl_record *rec)
{
    return s && rec ? provider_name_in(s, input_of(s, rec), &rec->provider) : NULL;
}

/* The definition of (id, version), exactly, through the layers in precedence order. */
static const etl_mf_event *resolve_exact(etl_registry *s, const input *in, const etl_guid *g, uint16_t id,
                                         uint8_t version, const prov_ref **from)
{
    for (int l = 0; l < LAYERS; l++) {
        GPtrArray *list = g_hash_table_lookup(layer(s, in, l), g);
        for (guint i = 0; list && i < list->len; i++) {
            prov_ref *r = g_ptr_array_index(list, i);
            if (!ready(s, r))
                continue;
            const etl_mf_event *e = g_hash_table_lookup(r->events, ev_key(id, version));
            if (e) {
                *from = r;
                return e;
            }
        }
    }
    return NULL;
}

/* The highest version below `version` of event `id`, from the first layer (and provider in it)
 * that has one. */
static const etl_mf_event *resolve_older(etl_registry *s, const input *in, const etl_guid *g, uint16_t id,
                                         uint8_t version, const prov_ref **from)
{
    for (int l = 0; l < LAYERS; l++) {
        GPtrArray *list = g_hash_table_lookup(layer(s, in, l), g);
        for (guint i = 0; list && i < list->len; i++) {
            prov_ref *r = g_ptr_array_index(list, i);
            if (!ready(s, r))
                continue;
            for (int v = (int)version - 1; v >= 0; v--) {
                const etl_mf_event *e = g_hash_table_lookup(r->events, ev_key(id, (uint8_t)v));
                if (e) {
                    *from = r;
                    return e;
                }
            }
        }
    }
    return NULL;
}

/* ---- an input's compiled keys ----------------------------------------------------------- */

/* The schema compiled for (g, id, version, ptr) as input `in`'s records see it: from the
 * cache's index for the first input, else from the input's own table; *absent when the key
 * is known to have none. */
static const etl_schema *compiled_find(etl_registry *s, input *in, const etl_guid *g, uint16_t id, uint8_t version,
                                       uint8_t ptr, bool *absent)
{
    if (in_cache_index(s, in))
        return etl_schema_cache_mf_find(s->cache, g, id, version, ptr, absent);
    ckey k;
    memset(&k, 0, sizeof k);
    k.g = *g;
    k.id = id;
    k.version = version;
    k.ptr = ptr;
    gpointer v = g_hash_table_lookup(in->compiled, &k);
    if (absent)
        *absent = v == ABSENT;
    return v == ABSENT ? NULL : v;
}

static void compiled_put(input *in, const etl_guid *g, uint16_t id, uint8_t version, uint8_t ptr, gpointer v)
{
    ckey *k = g_new0(ckey, 1);
    k->g = *g;
    k->id = id;
    k->version = version;
    k->ptr = ptr;
    g_hash_table_replace(in->compiled, k, v);
}

/* The schema in the builder, added to the cache under the key for input `in`. */
static etl_status compiled_add(etl_registry *s, input *in, const etl_guid *g, uint16_t id, uint8_t version,
                               uint8_t ptr, const etl_schema **out, etl_error *err)
{
    if (in_cache_index(s, in))
        return etl_schema_cache_mf_add(s->cache, &s->builder, g, id, version, ptr, out, err);
    etl_status st = etl_schema_cache_add(s->cache, &s->builder, NULL, 0, out, err);
    if (st == ETL_OK)
        compiled_put(in, g, id, version, ptr, (gpointer)*out);
    return st;
}

static etl_status not_found(etl_registry *s, input *in, const etl_guid *g, uint16_t id, uint8_t version,
                            uint8_t ptr, etl_error *err)
{
    char gs[ETL_GUID_STR_SIZE];
    etl_format_guid(g, gs);
    const char *name = provider_name_in(s, in, g);
    if (!name)
        name = etl_known_provider_name(g);
    if (in_cache_index(s, in))
        etl_schema_cache_mf_absent(s->cache, g, id, version, ptr);
    else
        compiled_put(in, g, id, version, ptr, ABSENT);
    s->stats.not_found++;
    return etl_fail(err, ETL_ERR_NOT_FOUND, 0, "no schema for %.60s%s{%s} event id %u version %u: add its manifest to the manifest path",
                    name ? name : "", name ? " " : "", gs, (unsigned)id, (unsigned)version);
}

static etl_status resolve_and_compile(etl_registry *s, input *in, const etl_guid *g, uint16_t id, uint8_t version,
                                      uint8_t ptr, const etl_schema **out, etl_error *err);

/* etl_registry_lookup_key for the records of input `in`. */
static etl_status lookup_key_in(etl_registry *s, input *in, const etl_guid *g, uint16_t id, uint8_t version,
                                uint8_t pointer_size, const etl_schema **out, etl_error *err)
{
    uint8_t ptr = pointer_size == 4 ? 4 : 8;
    s->stats.lookups++;
    carried_ready(s, in); /* may forget: before the memo is asked */
    mf_memo *m = &s->mmemo[(guid_hash(g) ^ (uint32_t)id * 0x9E3779B1u ^ (uint32_t)version << 24 ^ ptr) *
                               0x9E3779B1u >> 24 & (MF_MEMO_SIZE - 1)];
    const etl_schema *hit;
    if (m->gen == s->mf_memo_gen && m->id == id && m->version == version && m->ptr == ptr && m->in == in &&
        memcmp(&m->g, g, sizeof *g) == 0) { /* 16 bytes without padding: two compares */
        hit = m->schema;
    } else {
        bool absent;
        hit = compiled_find(s, in, g, id, version, ptr, &absent);
        if (!hit) {
            if (absent)
                return not_found(s, in, g, id, version, ptr, err);
            return resolve_and_compile(s, in, g, id, version, ptr, out, err);
        }
        *m = (mf_memo){*g, in, hit, s->mf_memo_gen, id, version, ptr};
    }
    if (hit->schema_version != version)
        s->stats.older_version++;
    *out = hit;
    return ETL_OK;
}

/* A key met for the first time: its definition through the layers, compiled. */
static etl_status resolve_and_compile(etl_registry *s, input *in, const etl_guid *g, uint16_t id, uint8_t version,
                                      uint8_t ptr, const etl_schema **out, etl_error *err)
{
    const prov_ref *from = NULL;
    const etl_mf_event *e = resolve_exact(s, in, g, id, version, &from);
    if (!e && (e = resolve_older(s, in, g, id, version, &from)))
        s->stats.older_version++;
    if (!e)
        return not_found(s, in, g, id, version, ptr, err);
    etl_error cerr;
    etl_status st = etl_mf_compile(&s->builder, from->p, e, ptr, from->src->origin, &cerr);
    if (st == ETL_ERR_NOMEM)
        return etl_fail(err, ETL_ERR_NOMEM, 0, "%s", cerr.message);
    return compiled_add(s, in, g, id, version, ptr, out, err);
}

etl_status etl_registry_lookup_key(etl_registry *s, const etl_guid *g, uint16_t id, uint8_t version,
                                  uint8_t pointer_size, const etl_schema **out, etl_error *err)
{
    if (!s || !g || !out)
        return etl_fail(err, ETL_ERR_ARG, 0, "no registry, provider or result");
    return lookup_key_in(s, first_input(s), g, id, version, pointer_size, out, err);
}

/* ---- classic events ------------------------------------------------------------------------ */

/* Read the built-in kernel class document into the classic index (once). */
static GHashTable *classic_index(etl_registry *s)
{
    if (s->classic_tried)
        return s->classic_index;
    s->classic_tried = true;
    etl_manifest *m;
    etl_error err;
    if (etl_manifest_parse((const char *)etl_kernel_classes_man, etl_kernel_classes_man_len, ETL_KERNEL_CLASSES_ORIGIN,
                           &m, &err) != ETL_OK) {
        /* a build defect, not an input problem: say so, and classic events show unknown */
        report(s, ETL_REGISTRY_ERROR, "the built-in kernel class document does not parse: %s", err.message);
        return NULL;
    }
    source *src = g_new0(source, 1);
    src->m = m;
    src->kind = ETL_REGISTRY_FILE;
    src->origin = g_strdup(ETL_KERNEL_CLASSES_ORIGIN);
    s->classic_src = src;
    s->classic_index = new_index();
    /* a class may be split over several <provider>s of the same GUID (events Windows tools
     * show under another provider name): all of them are searched, in document order */
    for (uint32_t i = 0; i < etl_manifest_provider_count(m); i++) {
        const etl_mf_provider *p = etl_manifest_provider(m, i);
        GPtrArray *list = g_hash_table_lookup(s->classic_index, &p->guid);
        if (!list) {
            list = g_ptr_array_new_with_free_func(prov_ref_free);
            g_hash_table_insert(s->classic_index, (gpointer)&p->guid, list);
        }
        g_ptr_array_add(list, new_prov_ref(p, src));
    }
    return s->classic_index;
}

/* The class's definition of (type, version), or the highest lower version (*older set). */
static const etl_mf_event *classic_resolve(GPtrArray *list, uint8_t type, uint8_t version, const prov_ref **from,
                                           bool *older)
{
    *older = false;
    for (int v = version; v >= 0; v--) {
        for (guint i = 0; list && i < list->len; i++) {
            const prov_ref *r = g_ptr_array_index(list, i);
            const etl_mf_event *e = g_hash_table_lookup(r->events, ev_key(type, (uint8_t)v));
            if (e) {
                *from = r;
                *older = v != version;
                return e;
            }
        }
    }
    return NULL;
}

/* The schema of a classic event no source describes: named from what is known of its key
 * ("Process/Opcode(99)", "Group(0x55)/Opcode(3)", "Process/Start" when only the version is
 * new), its payload handed out raw by one UNSUPPORTED step that says why. */
static etl_status compile_unknown(etl_registry *s, GPtrArray *list, const etl_classic_key *k, uint8_t ptr,
                                  etl_error *err)
{
    etl_schema_builder *b = &s->builder;
    etl_schema_builder_reset(b, ETL_SCHEMA_CLASSIC, ptr);
    b->unknown = true;
    b->schema_version = k->version;
    const etl_mf_provider *p = list && list->len ? ((const prov_ref *)g_ptr_array_index(list, 0))->p : NULL;
    const char *pname = p ? p->name : !k->known ? "Windows Kernel" : NULL;
    const char *task = p && p->task_count ? p->tasks[0].display : NULL;
    const char *op = NULL;
    for (guint i = 0; list && i < list->len && !op; i++) {
        const etl_mf_provider *q = ((const prov_ref *)g_ptr_array_index(list, i))->p;
        for (uint32_t o = 0; o < q->opcode_count && !op; o++)
            if (q->opcodes[o].value == k->type && strcmp(q->opcodes[o].display, "Info") != 0)
                op = q->opcodes[o].display;
    }
    char group[24], opbuf[24], name[ETL_MF_MAX_EVENT_NAME];
    if (!task && !k->known) {
        snprintf(group, sizeof group, "Group(0x%02X)", (unsigned)k->group);
        task = group;
    }
    if (!op) {
        snprintf(opbuf, sizeof opbuf, "Opcode(%u)", (unsigned)k->type);
        op = opbuf;
    }
    int n = task ? snprintf(name, sizeof name, "%s/%s", task, op) : snprintf(name, sizeof name, "%s", op);
    b->event_name = etl_schema_builder_add_string(b, name, n > 0 ? (size_t)n : 0);
    if (pname)
        b->provider_name = etl_schema_builder_add_string(b, pname, strlen(pname));
    if (task && task != group)
        b->task_name = etl_schema_builder_add_string(b, task, strlen(task));
    b->opcode_name = etl_schema_builder_add_string(b, op, strlen(op));
    b->origin = etl_schema_builder_add_string(b, ETL_KERNEL_CLASSES_ORIGIN, strlen(ETL_KERNEL_CLASSES_ORIGIN));
    char g[ETL_GUID_STR_SIZE];
    etl_format_guid(&k->cls, g);
    if (!k->known)
        etl_schema_builder_unsupported(b, "kernel group 0x%02X has no known class: its events are not described",
                                       (unsigned)k->group);
    else if (!p)
        etl_schema_builder_unsupported(b, "no description of classic event class {%s}", g);
    else
        etl_schema_builder_unsupported(b, "no layout known for %s %s type %u version %u", pname ? pname : "",
                                       task ? task : g, (unsigned)k->type, (unsigned)k->version);
    if (b->failed_nomem)
        return etl_fail(err, ETL_ERR_NOMEM, 0, "out of memory");
    return ETL_OK;
}

/* The registry's statistics for a classic lookup answered with `hit` (from the cache or memo). */
static void count_classic(etl_registry *s, const etl_schema *hit, uint8_t version)
{
    s->stats.lookups++;
    s->stats.not_found += hit->unknown;
    s->stats.older_version += !hit->unknown && hit->schema_version != version;
}

static etl_status classic_lookup(etl_registry *s, const etl_classic_key *k, uint8_t pointer_size,
                                 const etl_schema **out, etl_error *err)
{
    uint8_t ptr = pointer_size == 4 ? 4 : 8;
    const etl_schema *hit = etl_schema_cache_classic_find(s->cache, &k->cls, k->type, k->version, ptr);
    if (hit) {
        count_classic(s, hit, k->version);
        *out = hit;
        return ETL_OK;
    }
    s->stats.lookups++;
    GHashTable *index = classic_index(s);
    GPtrArray *list = index && k->known ? g_hash_table_lookup(index, &k->cls) : NULL;
    const prov_ref *from = NULL;
    bool older = false;
    const etl_mf_event *e = list ? classic_resolve(list, k->type, k->version, &from, &older) : NULL;
    etl_status st;
    if (e) {
        etl_error cerr;
        st = etl_mf_compile_as(&s->builder, from->p, e, ptr, from->src->origin, ETL_SCHEMA_CLASSIC, &cerr);
        if (st == ETL_ERR_NOMEM)
            return etl_fail(err, ETL_ERR_NOMEM, 0, "%s", cerr.message);
        s->stats.older_version += older;
    } else {
        st = compile_unknown(s, list, k, ptr, err);
        if (st != ETL_OK)
            return st;
        s->stats.not_found++;
    }
    return etl_schema_cache_classic_add(s->cache, &s->builder, &k->cls, k->type, k->version, ptr, out, err);
}

etl_status etl_registry_lookup_classic(etl_registry *s, const etl_guid *cls, uint8_t type, uint8_t version,
                                      uint8_t pointer_size, const etl_schema **out, etl_error *err)
{
    if (!s || !cls || !out)
        return etl_fail(err, ETL_ERR_ARG, 0, "no registry, class or result");
    etl_classic_key k = {0};
    k.cls = *cls;
    k.type = type;
    k.version = version;
    k.known = true;
    return classic_lookup(s, &k, pointer_size, out, err);
}

void etl_registry_foreach_classic_event(etl_registry *s, etl_registry_classic_fn fn, void *ctx)
{
    if (!s || !fn || !classic_index(s))
        return;
    const etl_manifest *m = s->classic_src->m;
    for (uint32_t pi = 0; pi < etl_manifest_provider_count(m); pi++) {
        const etl_mf_provider *p = etl_manifest_provider(m, pi);
        for (uint32_t ei = 0; ei < p->event_count; ei++)
            fn(ctx, &p->guid, (uint8_t)p->events[ei].id, p->events[ei].version);
    }
}

etl_status etl_registry_lookup(etl_registry *s, const etl_record *rec, const etl_schema **out, etl_error *err)
{
    if (!s || !rec || !out)
        return etl_fail(err, ETL_ERR_ARG, 0, "no registry, record or result");
    if (etl_record_is_kernel_group(rec)) {
        /* everything etl_classic_key_of and classic_lookup read of these headers */
        uint32_t mk = KM_VALID | (rec->pointer_size == 4 ? KM_PTR32 : 0) | (rec->hook_id == 0x030A ? KM_IMAGE_LOAD : 0) |
                      (uint32_t)rec->group << 16 | (uint32_t)rec->opcode << 8 | rec->version;
        kernel_memo *m = &s->kmemo[(mk * 0x9E3779B1u) >> 24 & (KERNEL_MEMO_SIZE - 1)];
        if (m->key == mk) {
            count_classic(s, m->schema, rec->version);
            *out = m->schema;
            return ETL_OK;
        }
        etl_classic_key ck;
        etl_classic_key_of(rec, &ck);
        etl_status st = classic_lookup(s, &ck, rec->pointer_size, out, err);
        if (st == ETL_OK) {
            m->key = mk;
            m->schema = *out;
        }
        return st;
    }
    etl_classic_key ck;
    if (etl_classic_key_of(rec, &ck))
        return classic_lookup(s, &ck, rec->pointer_size, out, err);
    if (etl_header_family(rec->header_type) != ETL_FAMILY_EVENT || !rec->has_provider)
        return etl_fail(err, ETL_ERR_ARG, 0, "only EVENT_HEADER records have manifest schemas");
    for (unsigned i = 0; i < rec->ext_count; i++)
        if (rec->ext[i].type == ETL_EXT_EVENT_SCHEMA_TL)
            return etl_fail(err, ETL_ERR_ARG, 0, "a TraceLogging event describes itself");
    if (rec->flags_stored & ETL_EHF_STRING_ONLY) {
        /* one UTF-16 string, whatever the provider: not in the key index (its id, often 0,
         * would collide with the provider's own event 0) */
        const etl_schema **so = &s->string_only[rec->pointer_size == 4 ? 0 : 1];
        if (!*so) {
            etl_status st = etl_mf_compile_string_only(&s->builder, rec->pointer_size, err);
            if (st == ETL_OK)
                st = etl_schema_cache_add(s->cache, &s->builder, NULL, 0, so, err);
            if (st != ETL_OK)
                return st;
        }
        *out = *so;
        return ETL_OK;
    }
    input *in = input_of(s, rec);
    if (etl_es_is_manifest_chunk(rec)) {
        uint8_t ptr = rec->pointer_size == 4 ? 4 : 8;
        carried_ready(s, in);
        const etl_schema *hit = compiled_find(s, in, &rec->provider, rec->event_id, rec->version, ptr, NULL);
        if (hit) {
            *out = hit;
            return ETL_OK;
        }
        etl_status st = etl_mf_compile_manifest_data(&s->builder, provider_name_in(s, in, &rec->provider), ptr, err);
        if (st != ETL_OK)
            return st;
        return compiled_add(s, in, &rec->provider, rec->event_id, rec->version, ptr, out, err);
    }
    return lookup_key_in(s, in, &rec->provider, rec->event_id, rec->version, rec->pointer_size, out, err);
}

void etl_registry_foreach_file_event(etl_registry *s, etl_registry_event_fn fn, void *ctx)
{
    if (!s || !fn)
        return;
    const GPtrArray *files = s->sources[ETL_REGISTRY_FILE];
    for (guint i = 0; files && i < files->len; i++) {
        source *src = g_ptr_array_index(files, i);
        if (src->binary && !src->tried)
            read_binary(s, src); /* every event is asked for: the binary is read now */
        for (uint32_t pi = 0; pi < etl_manifest_provider_count(src->m); pi++) {
            const etl_mf_provider *p = etl_manifest_provider(src->m, pi);
            for (uint32_t ei = 0; ei < p->event_count; ei++)
                fn(ctx, &p->guid, p->events[ei].id, p->events[ei].version);
        }
    }
}
