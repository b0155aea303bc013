/* etl_event_data.h - the decoded fields of an event ("Event data") in the etl dissector.
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * For EVENT_HEADER records: the provider name (PROV_TRAITS, remembered per provider GUID for
 * the provider's other events), and for TraceLogging events (an EVENT_SCHEMA_TL item) the event
 * name and every field, walked with the decoder's enumerator (fields.h) and rendered by its one
 * formatter (value_format.h):
 *
 *   etl.provider_name, etl.event_name   strings
 *   etl.data                            the "Event data" subtree over the payload
 *   etl.data.<path>                     one typed item per value (etl_fields.h names the
 *                                       field); structs and arrays are subtrees, array
 *                                       elements carry their index in the label
 *   etl.field.name, etl.field.value,    on every value, hidden: the path, the text as
 *   etl.kv                              Windows renders it, and "path=text" - filterable in one
 *                                       pass for any field, whatever its type; built only when
 *                                       asked for (a filter, column, tap, -e, the show-hidden
 *                                       preference, or an output printing hidden items:
 *                                       viewer_output.h), not for a shown tree alone
 *   etl.data_unsupported                the bytes the decoder could not decode (placeholder),
 *                                       with expert info; etl.data_trailing: bytes after the
 *                                       last field
 *
 * Manifest events (EVENT_HEADER records without TraceLogging metadata) take their schema from the
 * decoder's registry (registry.h): the same subtree and fields, plus etl.task_name,
 * etl.opcode_name, etl.level_name, etl.channel_name, etl.keywords_name, etl.message and
 * etl.schema_version; with no schema, expert info etl.expert.schema_missing.  The registry reads
 * the preference etl.manifest_path, then $ETLSHARK_MANIFEST_PATH, then the schemas the capture
 * file carries (the one prescan of etl_prescan.h, of the path the reader puts in the interface
 * description, etl_frame.h ETLS_IDB_TRACE_PREFIX).  The typed fields of every manifest event on the path are
 * registered at start-up, so -Y can use them in the first run.
 *
 * Classic records (SYSTEM, COMPACT, PERFINFO, FULL_HEADER, INSTANCE headers: kernel events) take
 * their schema from the kernel class document built into the decoder (classic.h), through the
 * same registry: the same names and subtree; an event the document does not describe is named
 * from its key and shows its payload raw (etl.data_raw) with a note, etl.expert.unknown_event.
 * Every kernel event's typed fields are registered at start-up too (not kept in the store).
 *
 * The decoder's schema cache and registry are owned here and rebuilt per capture file. */
#ifndef ETLSHARK_ETL_EVENT_DATA_H
#define ETLSHARK_ETL_EVENT_DATA_H

#include <epan/expert.h>
#include <epan/packet.h>

#include "etl.h"

/* Fields shown in the Info column after Provider/EventName, and the bounds of their text. */
#define ETLS_INFO_FIELDS 4u
#define ETLS_INFO_VALUE_MAX 40u

/* What the Info column needs from one record (pinfo->pool memory). */
typedef struct etls_event_summary {
    const char *provider_name; /* NULL when not known */
    const char *event_name;    /* NULL unless a TraceLogging event or a manifest event with a schema */
    wmem_strbuf_t *fields;     /* "path=value, ..." of the first fields; NULL when none */
    const char *process;       /* "image.exe (pid)" of the record's process; NULL when unknown */
    const char *message;       /* WPP messages: the formatted message (Info: "Component/Function:
                                  message"); NULL otherwise */
} etls_event_summary;

/* At protocol registration (after proto_register_protocol): fields, subtrees, expert info,
 * the dynamic field store, and the per-file init/cleanup of the schema cache. */
void etls_event_data_register(int proto, expert_module_t *expert);

/* For every framed record, before anything else is dissected from it: at the file's first
 * frame, the prescan (etl_prescan.h) that collects the schemas the file carries for manifest
 * events; without one, the schemas of this record. */
void etls_event_data_record(packet_info *pinfo, const etl_record *rec);

/* On the file's first frame: the problems of its manifests and carried schemas (a missing
 * path entry, a manifest that does not parse, two manifests that disagree), one item and
 * expert info each (etl.manifest_problem, etl.expert.manifest_error/_warning). */
void etls_event_data_problems(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree);

/* The open capture file's schema registry (NULL before the first file or when out of memory). */
struct etl_registry;
struct etl_registry *etls_event_data_schemas(void);

/* Dissect what the decoder resolves for any record (resolve.h: nothing for records without a
 * schema path, e.g. WPP) into `tree`; fills *sum (except sum->process: etl_process.h;
 * sum->fields only when `want_info`, i.e. the Info column will show them).  Only what is
 * seen is built: labels for a shown tree, the hidden generic fields and the message when
 * shown or referenced by a filter or column, typed items when referenced. */
void etls_dissect_event_data(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
                             const etl_record *rec, etls_event_summary *sum, bool want_info,
                             bool brief);

/* Packet frames in brief (`brief` above, packet-etl.c): a packet event handed to a link-layer
 * dissector shows its Packet subtree (etl.pkt.*), the provider and event names and a few
 * header items instead of its full record; with `brief` only the names are added here.
 *
 *   etls_pref_full_packet_record  the preference etl.full_packet_record: never in brief
 *   etls_field_asked              someone asks for field `hfi` whatever the tree shows: a
 *                                 filter, column, tap or (4.2 and later) -e primed it
 *                                 (ref_type), or a -e of this tshark's command line names it
 *                                 (4.0 primes none); every field when the command line could
 *                                 not be read
 *   etls_event_data_needed        the record's full event data must be shown: it does not
 *                                 resolve cleanly (its expert info), or one of the fields it
 *                                 adds beyond the names (Event data, etl.data.* of its schema,
 *                                 etl.kv, etl.field.*, the message, the task/opcode/level/
 *                                 channel/keyword names) is asked for */
bool etls_pref_full_packet_record(void);
bool etls_field_asked(const header_field_info *hfi);
bool etls_event_data_needed(packet_info *pinfo, const etl_record *rec);

#endif /* ETLSHARK_ETL_EVENT_DATA_H */
