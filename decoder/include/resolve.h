/* resolve.h - everything a consumer needs to render one record, decided once: the decoding
 * session (etl_decoder) and its one call, etl_decoder_resolve.
 *
 * A record is decoded one of three ways, and which is the record's business, not the
 * consumer's:
 *   classic      SYSTEM, COMPACT, PERFINFO, FULL_HEADER and INSTANCE headers: the kernel class
 *                document (classic.h), keyed by class GUID, event type, class version; an event
 *                it does not describe gets an `unknown` schema (payload raw), never an error;
 *   TraceLogging EVENT_HEADER records with an EVENT_SCHEMA_TL item describe themselves
 *                (tl_schema.h, compiled once per metadata blob in the cache);
 *   manifest     the other EVENT_HEADER records: the registry's sources in their precedence
 *                (registry.h), a lower version's definition when the record's is not defined;
 *   WPP          MESSAGE records, and EVENT_HEADER records flagged TRACE_MESSAGE (WPP events a
 *                relogger rewrote): the TMF files of the session's TMF path, keyed by message
 *                GUID and message number (schema/tmf/, docs/wpp.md).  Without the TMF the
 *                record is still named - event name "Message(N)", the component as provider
 *                name when a loaded TMF names the GUID - and the status is SCHEMA_MISSING with
 *                the TMF file that would decode it in the error.
 * Everything else (WNODE, TIMED, ERROR and unknown headers) has no schema path:
 * ETL_RESOLVE_NOT_APPLICABLE, which is not an error.
 *
 * The provider's name is taken, first that has one: the record's own PROV_TRAITS (TraceLogging
 * events; the name is remembered per provider GUID), the schema's provider name (manifest and
 * classic schemas), a source that names the provider (manifest events without a schema), the
 * name last remembered from PROV_TRAITS for the GUID (TraceLogging and manifest events), and
 * last the library's table of well-known Windows providers (known_providers.h: ETL_NAME_KNOWN,
 * so that a consumer can say the name is not from the trace or a schema).
 * Classic providers are named by the class document only.
 *
 * The session owns the schema cache, the registry that fills it and the provider names
 * remembered; a consumer adds manifest paths and feeds schema-carrying records through
 * etl_decoder_registry.  Not thread-safe: one session per reader or dissector thread. */
#ifndef ETL_RESOLVE_H
#define ETL_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl.h"
#include "fields.h"
#include "registry.h"
#include "schema.h"
#include "schema_cache.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etl_resolve_status {
    ETL_RESOLVE_DECODED = 0,        /* schema set: its fields describe the payload */
    ETL_RESOLVE_OLDER_VERSION = 1,  /* schema set, compiled from a lower version's definition
                                       (schema_version says which): no source defines the
                                       record's version */
    ETL_RESOLVE_UNKNOWN_EVENT = 2,  /* classic event the kernel class document does not
                                       describe: schema set, an `unknown` one (its name made
                                       from the key, its payload handed out raw) */
    ETL_RESOLVE_SCHEMA_MISSING = 3, /* manifest event no source describes, WPP message without
                                       its TMF: no schema; error names the key and says how to
                                       add a manifest / which TMF would decode it */
    ETL_RESOLVE_NOT_APPLICABLE = 4, /* the record has no schema path (WNODE, TIMED, ...) */
    ETL_RESOLVE_SCHEMA_ERROR = 5    /* the schema cannot be had (cache exhausted, out of
                                       memory, a classic record without a class): error says why */
} etl_resolve_status;

/* "decoded", "older version", ... */
const char *etl_resolve_status_name(etl_resolve_status s);

/* How the record is decoded (see the top comment). */
typedef enum etl_resolve_kind {
    ETL_RESOLVE_NONE = 0,
    ETL_RESOLVE_CLASSIC = 1,
    ETL_RESOLVE_TRACELOGGING = 2,
    ETL_RESOLVE_MANIFEST = 3,
    ETL_RESOLVE_WPP = 4       /* provider_name: the component; event_name: the function (FUNC=)
                                 or "Message(N)" without a TMF; level_name: LEVEL=;
                                 keywords_name: FLAGS=; the message: the formatted string */
} etl_resolve_kind;

/* Where the provider's name came from. */
typedef enum etl_name_source {
    ETL_NAME_NONE = 0,
    ETL_NAME_TRAITS = 1,   /* this record's PROV_TRAITS: the name is in the record's bytes */
    ETL_NAME_SCHEMA = 2,   /* the schema's source names the provider */
    ETL_NAME_REGISTRY = 3, /* a source names the provider (the event itself has no schema) */
    ETL_NAME_CACHE = 4,    /* remembered from an earlier record's PROV_TRAITS */
    ETL_NAME_KNOWN = 5     /* nothing else names it: the library's table of well-known Windows
                              providers (known_providers.h), the last of the chain */
} etl_name_source;

/* What etl_decoder_resolve says about a record.  Pointers are into the record (valid as long as
 * it is) or into the session (valid until it is freed). */
typedef struct etl_resolved {
    etl_resolve_status status;
    etl_resolve_kind kind;
    const etl_schema *schema;   /* NULL unless DECODED, OLDER_VERSION or UNKNOWN_EVENT */
    bool older_version;         /* a manifest or classic schema of a version other than the
                                   record's (also with UNKNOWN_EVENT) */
    uint8_t schema_version;     /* the version of the definition used (manifest, classic) */
    bool has_message;           /* the schema has a message string (etl_decoder_message) */

    /* the provider: NUL-terminated UTF-8 from the trace or a manifest (not validated) */
    const char *provider_name;  /* NULL when nothing names it */
    etl_name_source provider_name_from;

    /* the event and its facts (NULL when none): names from the schema */
    const char *event_name;
    const char *task_name, *opcode_name, *level_name, *channel_name, *keywords_name;
    /* the bytes of the record that hold the names (TraceLogging: the event name in its
     * metadata, the whole metadata item when the name cannot be found; PROV_TRAITS: the
     * provider name and its NUL), NULL when the name is not in the record */
    const uint8_t *event_name_bytes;
    size_t event_name_bytes_len;
    const uint8_t *provider_name_bytes;
    size_t provider_name_bytes_len;

    /* SCHEMA_MISSING: the hint (code ETL_ERR_NOT_FOUND); SCHEMA_ERROR: why (the code of the
     * failure); else code ETL_OK */
    etl_error error;
} etl_resolved;

/* Flags of etl_decoder_resolve. */
enum {
    /* Do not remember this record's PROV_TRAITS name for the provider's later records: a
     * consumer that sees records again (Wireshark's redissection) keeps "later" meaning later
     * in the trace. */
    ETL_RESOLVE_NO_LEARN = 0x1
};

typedef struct etl_decoder etl_decoder;

/* A session with an empty registry (the kernel class document is built in); `report` (may be
 * NULL) gets the registry's messages.  NULL when out of memory. */
etl_decoder *etl_decoder_new(etl_registry_report_fn report, void *report_ctx);
void etl_decoder_free(etl_decoder *d);

/* The session's registry (to add manifest paths, observe schema-carrying records, prescan) and
 * cache (arena indexes, statistics). */
etl_registry *etl_decoder_registry(etl_decoder *d);
etl_schema_cache *etl_decoder_cache(etl_decoder *d);

/* Resolve a record: *out filled whatever the status (which is also returned).  When `fields`
 * is not NULL and a schema was found, the enumerator is started on the record's payload, with
 * character arrays as one value (fields.h ETL_FIELDS_CHAR_STRINGS). */
etl_resolve_status etl_decoder_resolve(etl_decoder *d, const etl_record *rec, unsigned flags, etl_resolved *out,
                                       etl_fields *fields);

/* The provider name the record's PROV_TRAITS item gives: NUL-terminated, in the record's bytes
 * (valid as long as they are); NULL when the record has none.  It is what etl_decoder_resolve
 * answers as provider_name with ETL_NAME_TRAITS, for a consumer that keeps such an answer apart
 * from its record and meets the record again (etldump's threads keep one answer for many
 * records: docs/parallel.md). */
const char *etl_decoder_traits_name(const etl_record *rec);

/* Add a TMF search path: entries separated by ':' (G_SEARCHPATH_SEPARATOR), each a TMF file or
 * a folder whose *.tmf files are read in name order.  A TMF that does not parse is reported to
 * the session's report function ("file:line: reason") and skipped; the others still load.
 * ETL_OK when every entry loaded, else the code of the first failure. */
etl_status etl_decoder_add_tmf_path(etl_decoder *d, const char *path_list);

/* Every WPP message the TMF path defines, with its schema compiled for `pointer_size`: what a
 * consumer needs to prepare for the messages it may meet (Wireshark registering fields at
 * start-up).  `schema` is NULL when it cannot be had (out of memory). */
typedef void (*etl_decoder_wpp_fn)(void *ctx, const etl_guid *guid, uint16_t number, const etl_schema *schema);
void etl_decoder_foreach_wpp_message(etl_decoder *d, uint8_t pointer_size, etl_decoder_wpp_fn fn, void *ctx);

/* The schema's message for the record with its %1-style inserts filled in (message.h), into
 * out (cap bytes, NUL-terminated); its length, 0 when there is none.  WPP messages: the
 * format string rendered as tracefmt prints it (wpp_format.h, docs/wpp.md).  Uses the session's
 * scratch: allocates nothing. */
size_t etl_decoder_message(etl_decoder *d, const etl_record *rec, const etl_resolved *res, char *out, size_t cap);

/* Several threads over one session (etldump --threads, docs/parallel.md): one thread calls
 * etl_decoder_resolve for every record in order (it learns names and compiles schemas), and
 * other threads, given a record and what was resolved for it, only read: they start the field
 * enumerator with etl_decoder_fields and render the message with etl_decoder_message_in into
 * a scratch of their own (message.h's etl_message_scratch).  Resolved schemas stay valid and
 * unchanged while the session lives. */
typedef struct etl_message_scratch etl_message_scratch;
size_t etl_decoder_message_in(const etl_decoder *d, const etl_record *rec, const etl_resolved *res,
                              etl_message_scratch *scratch, char *out, size_t cap);
/* The enumerator over the record's payload with the schema resolved for it, as
 * etl_decoder_resolve starts it; false (f untouched) when there is no schema. */
bool etl_decoder_fields(const etl_record *rec, const etl_resolved *res, etl_fields *f);

#ifdef __cplusplus
}
#endif

#endif /* ETL_RESOLVE_H */
