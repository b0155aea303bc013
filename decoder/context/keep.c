/* keep.c - the context a written subset keeps (keep.h).  Built on GLib's hash tables: a set of
 * kept positions and, per provider GUID, the latest record with PROV_TRAITS. */
#include "keep.h"
#include "volumes.h"

#include <string.h>

#include <glib.h>

#include "carried.h"
#include "classic.h"
#include "eventsource.h"
#include "stack_links.h"

/* Kernel groups whose events are context (etw-formats.md 9.2). */
enum { GROUP_HEADER = 0x00, GROUP_PROCESS = 0x03, GROUP_THREAD = 0x05, GROUP_IMAGE = 0x14 };

struct etl_keep {
    etl_procs *procs;
    GHashTable *kept;       /* position (gint64 key) -> reasons (GUINT_TO_POINTER) */
    GHashTable *traits;     /* provider GUID (16 bytes) -> position of its latest PROV_TRAITS */
    etl_stack_links *links; /* every classic event's key -> its position */
    etl_keep_stats stats;
};

static bool is_group_guid(const etl_guid *g, unsigned group)
{
    etl_guid cls;
    return etl_kernel_group_guid(group, &cls) && memcmp(&cls, g, sizeof cls) == 0;
}

unsigned etl_keep_context_kind(const etl_record *rec)
{
    if (rec->is_logfile_header)
        return ETL_KEEP_LOGFILE;
    etl_family fam = etl_header_family(rec->header_type);
    if (fam == ETL_FAMILY_SYSTEM) {
        switch (rec->group) {
        case GROUP_HEADER: return ETL_KEEP_LOGFILE;
        case GROUP_PROCESS: case GROUP_THREAD: case GROUP_IMAGE: return ETL_KEEP_PROCESS;
        default: return 0;
        }
    }
    if (fam == ETL_FAMILY_FULL && rec->has_provider) {
        if (is_group_guid(&rec->provider, GROUP_HEADER) || etl_volumes_is_mapping(rec))
            return ETL_KEEP_LOGFILE;
        if (is_group_guid(&rec->provider, GROUP_PROCESS) || is_group_guid(&rec->provider, GROUP_THREAD) ||
            is_group_guid(&rec->provider, GROUP_IMAGE))
            return ETL_KEEP_PROCESS;
    }
    if (etl_carried_is_metadata(rec) || etl_es_is_manifest_chunk(rec))
        return ETL_KEEP_SCHEMA;
    return 0;
}

static guint guid_hash(gconstpointer p)
{
    const etl_guid *g = p;
    return g->data1 ^ ((guint)g->data2 << 16 | g->data3) ^ ((guint)g->data4[4] << 24 | (guint)g->data4[7]);
}

static gboolean guid_eq(gconstpointer a, gconstpointer b)
{
    return memcmp(a, b, sizeof(etl_guid)) == 0;
}

etl_keep *etl_keep_new(etl_procs *procs)
{
    etl_keep *k = g_new0(etl_keep, 1);
    k->procs = procs;
    k->kept = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    k->traits = g_hash_table_new_full(guid_hash, guid_eq, g_free, g_free);
    k->links = etl_stack_links_new(0);
    if (k->links == NULL) {
        etl_keep_free(k);
        return NULL;
    }
    return k;
}

void etl_keep_free(etl_keep *k)
{
    if (k == NULL)
        return;
    g_hash_table_destroy(k->kept);
    g_hash_table_destroy(k->traits);
    etl_stack_links_free(k->links);
    g_free(k);
}

static unsigned reasons_of(const etl_keep *k, uint64_t position)
{
    gint64 key = (gint64)position;
    return GPOINTER_TO_UINT(g_hash_table_lookup(k->kept, &key));
}

static void mark(etl_keep *k, uint64_t position, unsigned why)
{
    unsigned had = reasons_of(k, position);
    if ((had | why) == had)
        return;
    if (had == 0) {
        k->stats.kept++;
        for (unsigned i = 0; i < 6; i++)
            if (why & (1u << i)) {
                k->stats.by_reason[i]++;
                break;
            }
    }
    gint64 *key = g_new(gint64, 1);
    *key = (gint64)position;
    g_hash_table_replace(k->kept, key, GUINT_TO_POINTER(had | why));
}

static bool has_ext(const etl_record *rec, unsigned type)
{
    for (unsigned i = 0; i < rec->ext_count; i++)
        if (rec->ext[i].type == type)
            return true;
    return false;
}

unsigned etl_keep_observe(etl_keep *k, const etl_record *rec, bool selected)
{
    unsigned why = etl_keep_context_kind(rec) | (selected ? ETL_KEEP_SELECTED : 0u);
    if (selected)
        k->stats.selected++;
    if (why)
        mark(k, rec->position, why);

    /* The provider name a later event without PROV_TRAITS takes from this one (resolve.h). */
    if (etl_header_family(rec->header_type) == ETL_FAMILY_EVENT) {
        if (has_ext(rec, ETL_EXT_PROV_TRAITS)) {
            etl_guid *g = g_memdup2(&rec->provider, sizeof rec->provider);
            uint64_t *pos = g_memdup2(&rec->position, sizeof rec->position);
            g_hash_table_replace(k->traits, g, pos);
        } else if (selected) {
            const uint64_t *pos = g_hash_table_lookup(k->traits, &rec->provider);
            if (pos)
                mark(k, *pos, ETL_KEEP_TRAITS);
            else
                k->stats.traits_missing++;
        }
    }

    /* Stack links: a stack walk names its event by (timestamp, thread); events come first. */
    uint64_t ts_raw, target;
    uint32_t tid;
    if (etl_stackwalk_target_key(rec, &ts_raw, &tid)) {
        if (etl_stack_links_find(k->links, ts_raw, tid, &target)) {
            if (selected)
                mark(k, target, ETL_KEEP_STACK);
            else if (reasons_of(k, target) != 0)
                mark(k, rec->position, ETL_KEEP_STACK);
        } else if (selected) {
            k->stats.stack_target_missing++;
        }
    } else if (etl_record_is_classic(rec) && (k->procs ? etl_procs_event_key(k->procs, rec, &ts_raw, &tid)
                                                    : etl_stack_event_key(rec, &ts_raw, &tid))) {
        etl_stack_links_add(k->links, ts_raw, tid, rec->position);
    }
    return reasons_of(k, rec->position);
}

bool etl_keep_has(const etl_keep *k, uint64_t position)
{
    return reasons_of(k, position) != 0;
}

const etl_keep_stats *etl_keep_get_stats(const etl_keep *k)
{
    return &k->stats;
}
