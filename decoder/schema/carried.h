/* carried.h - event schemas carried inside a trace: the KernelTraceControl MetaData events that
 * xperf, WPR and PerfView write into merged traces (classic header, provider
 * {bbccf6c1-6cd1-48c4-80ff-839482e37671}; opcode 32 EventInfo holds a TRACE_EVENT_INFO exactly
 * as TdhGetEventInformation returns it, opcode 33 EventMapInfo a provider GUID followed by an
 * EVENT_MAP_INFO).  This is how such a trace decodes anywhere, without the providers installed.
 *
 * The collected schemas become the same manifest model (manifest.h) that manifest files give:
 * each TRACE_EVENT_INFO is written out as the manifest declarations it stands for and read by
 * the one manifest parser, so every schema source goes through one path to the compiled
 * programs.  (PerfView rebuilds manifests from TDH information the same way.)
 *
 * Layouts (public tdh.h): TRACE_EVENT_INFO is 112 bytes of header (provider and event GUIDs,
 * EVENT_DESCRIPTOR, decoding source, offsets of the provider/level/channel/keyword/task/opcode/
 * message names, property counts, flags) followed by 24-byte EVENT_PROPERTY_INFO entries; every
 * offset counts from the start of the structure and names are NUL-terminated UTF-16LE. */
#ifndef ETL_CARRIED_H
#define ETL_CARRIED_H

#include "etl.h"
#include "manifest.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { ETL_CARRIED_EVENT_INFO = 32, ETL_CARRIED_EVENT_MAP_INFO = 33 };

typedef struct etl_carried etl_carried;

etl_carried *etl_carried_new(void);
void etl_carried_free(etl_carried *c);

/* True for a KernelTraceControl MetaData EventInfo or EventMapInfo record. */
bool etl_carried_is_metadata(const etl_record *rec);

/* Take one MetaData record's schema.  A malformed one is refused with the reason (and the
 * offset inside the payload); the others are unaffected.  The same event or map seen again is
 * ignored (merged traces repeat them per session). */
etl_status etl_carried_add(etl_carried *c, const etl_record *rec, etl_error *err);

/* Events and maps taken so far. */
uint32_t etl_carried_event_count(const etl_carried *c);
uint32_t etl_carried_map_count(const etl_carried *c);

/* The collected schemas as a manifest model (NULL with ETL_ERR_NOT_FOUND when none). */
etl_status etl_carried_build(const etl_carried *c, etl_manifest **out, etl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ETL_CARRIED_H */
