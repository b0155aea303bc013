/* registry.h - the schema registry: where manifest-based events find their schema off Windows.
 *
 * On Windows TDH finds an event's layout in the registry.  Here three sources stand in for it,
 * all read into the manifest model (manifest.h) and compiled on first use into the programs of
 * schema.h, cached in the one arena of schema_cache.h under (provider GUID, event id, version)
 * per record bitness:
 *
 *   1. manifest files from a search path (etl_registry_add_path): `.man`/`.xml` instrumentation
 *      manifests, given as files or folders;
 *   2. EventSource manifests sent in the event stream (eventsource.h), as they complete;
 *   3. schemas carried in the trace: KernelTraceControl MetaData TRACE_EVENT_INFO/EVENT_MAP_INFO
 *      records of merged traces (carried.h).
 *
 * Precedence, per key (provider, id, version):
 *   - a manifest file on the search path wins over everything in the trace: the carried
 *     schemas of merged traces keep the manifests' internal names (task GarbageCollection,
 *     opcode GCRestartEEEnd) where TDH shows the manifest's display names (GC, RestartEEStop),
 *     so the file is the better source whenever the user supplied one;
 *   - then EventSource manifests from the stream (the provider's own description of itself);
 *   - then schemas carried in the trace;
 *   - last, the layouts built into the library for the packet capture providers, pktmon and
 *     ndiscap (builtin.h), so that their traces decode with nothing to configure.
 *   A key defined by no source, when a lower version of the same event is, decodes with the
 *   highest lower version from the first source (in the order above) that has one: newer
 *   versions of an event append fields (the rule .NET's and Windows' manifests follow), so the
 *   fields the older definition knows decode right and the bytes after them show as trailing
 *   data.  The schema's schema_version tells which version was used.
 *
 * Several manifest files defining the same key: the first one in search order wins - search
 * path entries in the order given, the files of a folder in byte-wise name order (strcmp) - and
 * when their definitions differ (fields, types, names), a warning names both files, the one used
 * and the one ignored, once per pair of files and provider.  The same rule orders several
 * EventSource manifests of one provider (arrival order; a provider re-sending an identical
 * manifest is taken once).
 *
 * Each input keeps the schemas it carries: a merged trace (etl_merge writes each input under
 * logger ids of its own) or a capture of several traces' frames (etl_record.trace) holds
 * several inputs, each a (trace, logger id) that sent MetaData records or EventSource
 * manifests, and an event's key is looked up in its own input's: the manifest files, then the
 * stream and carried schemas of its (trace, logger id), else of the one input of its trace
 * that has any (the user-mode session of an xperf-style kernel + user merge takes the trace's
 * schemas), then the built-in layouts; an event of no input when there are several gets no
 * other input's schemas (in its own file it had none).  Two inputs that define one key
 * differently both decode right.  A single trace is one input: nothing changes for it.
 *
 * Records with a classic header are keyed the classic way, apart from all of the above (see
 * etl_registry_lookup_classic); WPP records get no schema here; TraceLogging events describe
 * themselves (fields.h) and are not looked up here.
 *
 * Schemas in the trace can come after the events that need them: the prescan (prescan.h, with
 * etl_registry_observer) reads a trace once (cheaply: records are framed, nothing is decoded)
 * handing MetaData records and EventSource manifest chunks to etl_registry_observe, so that
 * every event then decodes whatever its position.  A reader that streams instead feeds
 * records to etl_registry_observe as they come; keys that
 * missed before a new source arrived are looked up again (the negative cache is emptied).
 *
 * Not thread-safe, like the cache it fills. */
#ifndef ETL_REGISTRY_H
#define ETL_REGISTRY_H

#include "etl.h"
#include "schema.h"
#include "schema_cache.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Entries of one search path, manifest files taken from one folder entry, manifests and
 * binaries together from one folder entry, and folders nested under a recursive entry. */
#define ETL_REGISTRY_MAX_PATH_ENTRIES 256u
#define ETL_REGISTRY_MAX_FOLDER_FILES 4096u
#define ETL_REGISTRY_MAX_TREE_FILES 1000000u
#define ETL_REGISTRY_MAX_FOLDER_DEPTH 64u
/* Inputs (trace, logger id) whose carried schemas are kept apart; past it the last one takes
 * the schema records of the rest. */
#define ETL_REGISTRY_MAX_INPUTS 64u
/* A path entry ending in this is a folder searched with its subfolders ("/mnt/win/System32/..."). */
#define ETL_REGISTRY_RECURSIVE_SUFFIX "/..."

typedef enum etl_registry_source {
    ETL_REGISTRY_FILE = 0,      /* a manifest file from the search path */
    ETL_REGISTRY_STREAM = 1,    /* an EventSource manifest in the trace */
    ETL_REGISTRY_CARRIED = 2,   /* TRACE_EVENT_INFO carried in the trace */
    ETL_REGISTRY_BUILTIN = 3    /* built into the library: packet capture providers (builtin.h) */
} etl_registry_source;

typedef enum etl_registry_severity {
    ETL_REGISTRY_INFO = 0,
    ETL_REGISTRY_WARNING = 1,   /* e.g. two manifest files disagree about an event */
    ETL_REGISTRY_ERROR = 2      /* e.g. a manifest file that does not parse: file:line: reason */
} etl_registry_severity;

/* Where messages go (one complete sentence each, without a trailing newline). */
typedef void (*etl_registry_report_fn)(void *ctx, etl_registry_severity severity, const char *message);

typedef struct etl_registry_stats {
    uint32_t files_loaded;     /* manifest files that parsed */
    uint32_t files_failed;     /* manifest files (or path entries) that did not */
    uint32_t stream_manifests; /* EventSource manifests taken from the trace */
    uint32_t carried_events;   /* TRACE_EVENT_INFO records taken from the trace */
    uint32_t carried_maps;     /* EVENT_MAP_INFO records */
    uint32_t disagreements;    /* events defined differently by two manifest files */
    uint32_t binaries_indexed; /* provider binaries with a WEVT_TEMPLATE, indexed by provider GUID */
    uint32_t binaries_read;    /* ... of them read whole (a provider of theirs was needed) */
    uint32_t binaries_failed;  /* binaries refused (damaged PE, resource tree or template) */
    uint32_t binaries_without_schema; /* binaries without a WEVT_TEMPLATE (most of a Windows folder) */
    uint64_t lookups;          /* etl_registry_lookup calls */
    uint64_t not_found;        /* lookups without a schema */
    uint64_t older_version;    /* lookups answered with a lower version's definition */
} etl_registry_stats;

typedef struct etl_registry etl_registry;

/* A registry filling `cache` (not owned; it must outlive the registry).  `report` may be NULL. */
etl_registry *etl_registry_new(etl_schema_cache *cache, etl_registry_report_fn report, void *report_ctx);
void etl_registry_free(etl_registry *s);

/* ---- manifest files ---------------------------------------------------------------------- */

/* Add a search path: entries separated by ':' (the platform's G_SEARCHPATH_SEPARATOR), each a
 * manifest file or a folder whose `*.man` and `*.xml` files are read in name order.  Files
 * added by earlier calls come first in precedence.  A file that does not parse is reported
 * (ETL_REGISTRY_ERROR: "file:line: reason") and skipped; the others still load.  ETL_OK when
 * every entry loaded, else the code of the first failure (the rest loaded anyway). */
etl_status etl_registry_add_path(etl_registry *s, const char *path_list);
/* The same, its files read (parsed, binaries indexed) on up to `threads` threads, this one
 * included (and at most ETL_REGISTRY_MAX_READ_THREADS more): the registry, its messages and the
 * status are those of etl_registry_add_path, in the same order.  The path is walked twice, once
 * to list its files and once to take them; where the second walk departs from the first's list
 * (a folder changed in between), that file and every one after it is read then, on this thread.
 * 1: etl_registry_add_path. */
etl_status etl_registry_add_path_threads(etl_registry *s, const char *path_list, unsigned threads);
#define ETL_REGISTRY_MAX_READ_THREADS 64u
/* One manifest file. */
etl_status etl_registry_add_file(etl_registry *s, const char *path, etl_error *err);
/* One provider binary (.dll, .exe, .sys: wevt.h): indexed by the provider GUIDs of its
 * WEVT_TEMPLATE now, read whole when one of its providers is first needed.  ETL_OK also for a
 * binary without a WEVT_TEMPLATE (counted in binaries_without_schema); else the damage, with
 * the file and offset in *err (the binary is skipped). */
etl_status etl_registry_add_binary(etl_registry *s, const char *path, etl_error *err);
/* A manifest already in memory (UTF-8 or UTF-16 with a BOM); `origin` names it in messages. */
etl_status etl_registry_add_manifest_text(etl_registry *s, const char *xml, size_t len, const char *origin,
                                         etl_error *err);

/* ---- schemas in the trace ----------------------------------------------------------------- */

/* Take a record if it carries schemas (MetaData EventInfo/EventMapInfo, EventSource manifest
 * chunk): ETL_OK when taken, ETL_ERR_NOT_FOUND when the record carries none, or the reason a
 * schema-carrying record was refused (malformed; reported too). */
etl_status etl_registry_observe(etl_registry *s, const etl_record *rec, etl_error *err);
/* A whole trace before decoding: etl_prescan (prescan.h) with etl_registry_observer. */

/* ---- lookup ------------------------------------------------------------------------------- */

/* The schema for an EVENT_HEADER record without TraceLogging metadata, compiled and cached on
 * first use (EventSource manifest chunk events get the built-in ManifestData schema, records
 * flagged STRING_ONLY the built-in EventWriteString one).
 *   ETL_OK              *out set (its program may end in UNSUPPORTED: see etl_schema_reason);
 *   ETL_ERR_NOT_FOUND   no source defines the key: *err names provider, id and version and
 *                       says how to add a manifest;
 *   ETL_ERR_ARG         a record that never takes this path (WPP, TraceLogging, ...);
 * Classic records always get a schema (see etl_registry_lookup_classic).
 *   ETL_ERR_NOMEM / ETL_ERR_LIMIT from the cache.
 * A hit allocates nothing. */
etl_status etl_registry_lookup(etl_registry *s, const etl_record *rec, const etl_schema **out, etl_error *err);
/* Classic records (SYSTEM, COMPACT, PERFINFO, FULL_HEADER, INSTANCE headers) take the classic
 * path of etl_registry_lookup: keyed by (class GUID, event type, class version, pointer size)
 * (classic.h), from the kernel class document built into the library, in an index of their own.
 * A version the document does not describe decodes with the highest lower version
 * (schema_version says which); an event with no description at all gets an `unknown` schema
 * (schema.h): named "Class/Opcode(N)" (or "Group(0xNN)/Opcode(N)" for an unknown kernel group)
 * with the payload handed out raw and the reason - never an error. */
etl_status etl_registry_lookup_classic(etl_registry *s, const etl_guid *cls, uint8_t type, uint8_t version,
                                      uint8_t pointer_size, const etl_schema **out, etl_error *err);
/* Every (class GUID, type, version) the kernel class document describes. */
typedef void (*etl_registry_classic_fn)(void *ctx, const etl_guid *cls, uint8_t type, uint8_t version);
void etl_registry_foreach_classic_event(etl_registry *s, etl_registry_classic_fn fn, void *ctx);

/* The same by key (as the first input's records see it: the manifest files and the schemas
 * of the first input that carried any). */
etl_status etl_registry_lookup_key(etl_registry *s, const etl_guid *provider, uint16_t id, uint8_t version,
                                  uint8_t pointer_size, const etl_schema **out, etl_error *err);

/* The provider's name from the sources (NULL when none names it).  Valid until the next call
 * that adds a source. */
const char *etl_registry_provider_name(etl_registry *s, const etl_guid *provider);
/* The name of the record's provider as its own input's schemas give it. */
const char *etl_registry_record_provider_name(etl_registry *s, const etl_record *rec);

/* Every (provider, event id, version) the manifest files on the search path define, in
 * precedence order (a key defined by two files comes once per file): what a consumer needs to
 * prepare for the events it may meet, e.g. Wireshark registering typed fields at start-up. */
typedef void (*etl_registry_event_fn)(void *ctx, const etl_guid *provider, uint16_t id, uint8_t version);
void etl_registry_foreach_file_event(etl_registry *s, etl_registry_event_fn fn, void *ctx);

const etl_registry_stats *etl_registry_get_stats(const etl_registry *s);

/* The search path from the environment (ETLSHARK_MANIFEST_PATH), or NULL. */
const char *etl_registry_env_path(void);
#define ETL_REGISTRY_ENV "ETLSHARK_MANIFEST_PATH"

#ifdef __cplusplus
}
#endif

#endif /* ETL_REGISTRY_H */
