/* eventsource.h - .NET EventSource manifests sent in the event stream, reassembled.
 *
 * An EventSource in manifest mode writes its XML manifest into the trace as ordinary events of
 * its own provider: id 0xFFFE, opcode 0xFE, task 0xFFFE, payload = an 8-byte envelope
 * (format 1, major 1, minor 0, magic 0x5B, u16 total chunks, u16 chunk number) + a chunk of the
 * UTF-8 manifest (etw-formats.md section 7).  Chunks are collected per (provider, process,
 * thread); a set must start at chunk 0, later chunks must match its envelope, a repeated or
 * out-of-range chunk drops the set, and a complete set is parsed by the one manifest parser.
 * The same manifest is re-sent whenever the provider is enabled: identical texts are taken
 * once. */
#ifndef ETL_EVENTSOURCE_H
#define ETL_EVENTSOURCE_H

#include "etl.h"
#include "manifest.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETL_ES_MAX_MANIFEST (16u * 1024u * 1024u) /* bytes of one reassembled manifest */
#define ETL_ES_MAX_PENDING 256u                   /* sets being reassembled at once */

typedef struct etl_es_collector etl_es_collector;

etl_es_collector *etl_es_collector_new(void);
void etl_es_collector_free(etl_es_collector *c);

/* True for an EventSource manifest chunk event (descriptor id 0xFFFE, opcode 0xFE, task 0xFFFE). */
bool etl_es_is_manifest_chunk(const etl_record *rec);
/* The event id of those chunks: a pass that skims by event id keeps it (etl_id_set). */
uint16_t etl_es_manifest_event_id(void);

/* Take one chunk.  Returns ETL_OK when taken (*done set to a new complete manifest, owned by
 * the caller, when this chunk completed one that had not been seen before; else NULL),
 * or an error saying why the chunk was refused (bad envelope, out of sequence, manifest that
 * does not parse: the message names the provider). */
etl_status etl_es_add(etl_es_collector *c, const etl_record *rec, etl_manifest **done, etl_error *err);

/* Complete manifests taken so far (duplicates not counted). */
uint32_t etl_es_manifest_count(const etl_es_collector *c);

#ifdef __cplusplus
}
#endif

#endif
