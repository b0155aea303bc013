/* eventsource.c - reassembly of EventSource manifests from their chunk events (eventsource.h). */
#include "eventsource.h"

#include <glib.h>
#include <string.h>

#include "bytes.h"
#include "error.h"
#include "etl_format.h"

/* The chunk event's descriptor (etw-formats.md 7): EventSource's reserved ManifestData event. */
enum { ES_MANIFEST_EVENT_ID = 0xFFFE, ES_MANIFEST_OPCODE = 0xFE, ES_MANIFEST_TASK = 0xFFFE };
/* The envelope before each chunk of manifest text: u8 Format (1), u8 MajorVersion,
 * u8 MinorVersion, u8 Magic (0x5B), u16 TotalChunks, u16 ChunkNumber. */
enum {
    ES_ENVELOPE_OFF_FORMAT = 0,
    ES_ENVELOPE_OFF_MAJOR = 1,
    ES_ENVELOPE_OFF_MINOR = 2,
    ES_ENVELOPE_OFF_MAGIC = 3,
    ES_ENVELOPE_OFF_TOTAL_CHUNKS = 4,
    ES_ENVELOPE_OFF_CHUNK_NUMBER = 6,
    ES_ENVELOPE = 8
};
#define ES_FORMAT 1u
#define ES_MAGIC 0x5Bu

typedef struct es_pending {
    uint8_t format, major, minor;
    uint16_t total, next; /* chunks expected, and the next chunk number due */
    GString *text;
} es_pending;

struct etl_es_collector {
    GHashTable *pending;  /* "guid/pid/tid" -> es_pending */
    GHashTable *seen;     /* checksums of complete manifests already handed out */
    uint32_t manifests;
};

static void pending_free(gpointer p)
{
    es_pending *e = p;
    g_string_free(e->text, TRUE);
    g_free(e);
}

etl_es_collector *etl_es_collector_new(void)
{
    etl_es_collector *c = g_new0(etl_es_collector, 1);
    c->pending = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, pending_free);
    c->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    return c;
}

void etl_es_collector_free(etl_es_collector *c)
{
    if (!c)
        return;
    g_hash_table_destroy(c->pending);
    g_hash_table_destroy(c->seen);
    g_free(c);
}

uint32_t etl_es_manifest_count(const etl_es_collector *c)
{
    return c ? c->manifests : 0;
}

bool etl_es_is_manifest_chunk(const etl_record *rec)
{
    return rec && etl_header_family(rec->header_type) == ETL_FAMILY_EVENT &&
           rec->event_id == ES_MANIFEST_EVENT_ID && rec->opcode == ES_MANIFEST_OPCODE && rec->task == ES_MANIFEST_TASK;
}

uint16_t etl_es_manifest_event_id(void)
{
    return ES_MANIFEST_EVENT_ID;
}

etl_status etl_es_add(etl_es_collector *c, const etl_record *rec, etl_manifest **done, etl_error *err)
{
    *done = NULL;
    if (!c || !etl_es_is_manifest_chunk(rec))
        return etl_fail(err, ETL_ERR_ARG, 0, "not an EventSource manifest chunk");
    char g[ETL_GUID_STR_SIZE];
    etl_format_guid(&rec->provider, g);
    const uint8_t *p = rec->bytes + rec->payload_offset;
    uint32_t n = rec->payload_size;
    if (n <= (uint32_t)ES_ENVELOPE)
        return etl_fail(err, ETL_ERR_TRUNCATED, rec->payload_offset, "EventSource manifest chunk of %s: %u bytes", g, n);
    uint8_t format = p[ES_ENVELOPE_OFF_FORMAT], major = p[ES_ENVELOPE_OFF_MAJOR], minor = p[ES_ENVELOPE_OFF_MINOR],
            magic = p[ES_ENVELOPE_OFF_MAGIC];
    uint16_t total = etl_ld16(p + ES_ENVELOPE_OFF_TOTAL_CHUNKS), number = etl_ld16(p + ES_ENVELOPE_OFF_CHUNK_NUMBER);
    if (magic != ES_MAGIC || format != ES_FORMAT)
        return etl_fail(err, ETL_ERR_CORRUPT, rec->payload_offset,
                        "EventSource manifest chunk of %s: envelope format %u magic 0x%02x (want 1, 0x5B)", g, format, magic);
    if (total == 0 || number >= total)
        return etl_fail(err, ETL_ERR_CORRUPT, rec->payload_offset + ES_ENVELOPE_OFF_TOTAL_CHUNKS,
                        "EventSource manifest chunk of %s: chunk %u of %u", g, number, total);

    char *key = g_strdup_printf("%s/%u/%u", g, rec->pid, rec->tid);
    es_pending *e = g_hash_table_lookup(c->pending, key);
    if (number == 0) {
        /* a new set (a set in progress is dropped: the provider restarted it) */
        if (!e && g_hash_table_size(c->pending) >= ETL_ES_MAX_PENDING) {
            g_free(key);
            return etl_fail(err, ETL_ERR_LIMIT, 0, "more than %u EventSource manifests in reassembly at once",
                            ETL_ES_MAX_PENDING);
        }
        e = g_new0(es_pending, 1);
        e->format = format;
        e->major = major;
        e->minor = minor;
        e->total = total;
        e->text = g_string_new(NULL);
        g_hash_table_replace(c->pending, key, e);
        key = NULL;
    } else if (!e || e->next != number || e->total != total || e->format != format || e->major != major ||
               e->minor != minor) {
        /* out of sequence (a repeat, a gap, another envelope): drop the set; resync at chunk 0 */
        uint16_t want = e ? e->next : 0;
        if (e)
            g_hash_table_remove(c->pending, key);
        g_free(key);
        return etl_fail(err, ETL_ERR_CORRUPT, rec->payload_offset + ES_ENVELOPE_OFF_CHUNK_NUMBER,
                        "EventSource manifest of %s: chunk %u of %u arrived when chunk %u was due; set dropped", g,
                        number, total, want);
    } else {
        g_free(key);
        key = NULL;
    }
    if (e->text->len + (n - ES_ENVELOPE) > ETL_ES_MAX_MANIFEST) {
        char *k = g_strdup_printf("%s/%u/%u", g, rec->pid, rec->tid);
        g_hash_table_remove(c->pending, k);
        g_free(k);
        return etl_fail(err, ETL_ERR_LIMIT, 0, "EventSource manifest of %s exceeds %u bytes", g, ETL_ES_MAX_MANIFEST);
    }
    g_string_append_len(e->text, (const char *)p + ES_ENVELOPE, n - ES_ENVELOPE);
    e->next++;
    if (e->next < e->total)
        return ETL_OK;

    /* complete: take it once */
    char *k = g_strdup_printf("%s/%u/%u", g, rec->pid, rec->tid);
    GString *text = e->text;
    e->text = g_string_new(NULL);
    g_hash_table_remove(c->pending, k);
    g_free(k);
    /* the manifest text may carry trailing NULs */
    while (text->len && text->str[text->len - 1] == '\0')
        g_string_truncate(text, text->len - 1);
    char *sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)text->str, text->len);
    if (g_hash_table_contains(c->seen, sum)) {
        g_free(sum);
        g_string_free(text, TRUE);
        return ETL_OK;
    }
    char *origin = g_strdup_printf("EventSource manifest of {%s} in the trace", g);
    etl_status st = etl_manifest_parse(text->str, text->len, origin, done, err);
    g_free(origin);
    g_string_free(text, TRUE);
    if (st != ETL_OK) {
        g_free(sum);
        return st;
    }
    g_hash_table_add(c->seen, sum);
    c->manifests++;
    return ETL_OK;
}
