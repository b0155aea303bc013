/* keep.h - which records a written subset of a trace needs besides the ones selected, so every
 * selected event decodes in the written file as it does in the whole trace, with no path back.
 *
 * What decoding a record takes from other records (and so what is kept with any selection):
 *   logfile   the kernel HEADER group (0x00): the logfile header (clock, pointer size, start
 *             time: every timestamp's conversion), header extensions, rundown markers; and the
 *             volume mappings (volumes.h: every NT path's DOS form);
 *   process   Process, Thread and Image events (groups 0x03, 0x05, 0x14 and their classic class
 *             GUIDs: Start/End/DCStart/DCEnd/Defunct, image loads and rundowns): process names
 *             and the thread-to-process map of every record (procs.h), the modules stacks point
 *             into;
 *   schema    KernelTraceControl MetaData records (carried.h) and EventSource manifest chunks
 *             (eventsource.h): the schemas of manifest events the trace carries;
 *   traits    for a selected TraceLogging event without its own PROV_TRAITS, the latest earlier
 *             record of the same provider that has one: its provider name;
 *   stack     the StackWalk events of selected events, and the event of a selected StackWalk:
 *             the stack link (procs.h etl_stackwalk_target_key).
 * The first three are kept whatever the selection: a superset of what the selected records use,
 * cheap (a few thousand records in real traces), and what Windows' relogger keeps too (it never
 * drops kernel rundown or schema events when filtering). 
 *
 * Use: one pass over the trace in time order (the order the decoder resolves names in), every
 * record to etl_keep_observe with whether the caller selected it; then write the records for
 * which etl_keep_has says yes.  What cannot be found is counted: etl_keep_stats. */
#ifndef ETL_KEEP_H
#define ETL_KEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "etl.h"
#include "procs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why a record is kept (bits). */
enum {
    ETL_KEEP_SELECTED = 0x01,
    ETL_KEEP_LOGFILE = 0x02,
    ETL_KEEP_PROCESS = 0x04,
    ETL_KEEP_SCHEMA = 0x08,
    ETL_KEEP_TRAITS = 0x10,
    ETL_KEEP_STACK = 0x20
};

/* The context kinds a record is, whatever the selection: LOGFILE, PROCESS, SCHEMA or 0. */
unsigned etl_keep_context_kind(const etl_record *rec);

typedef struct etl_keep etl_keep;

typedef struct etl_keep_stats {
    uint64_t selected;         /* records the caller selected */
    uint64_t kept;             /* records kept in all */
    uint64_t by_reason[6];     /* records first kept for reason bit i (ETL_KEEP_* = 1 << i) */
    uint64_t traits_missing;   /* selected TraceLogging events of a provider no earlier record
                                  names with PROV_TRAITS */
    uint64_t stack_target_missing; /* selected StackWalk events whose event is not in the trace
                                      (or older than the stack-link window) */
} etl_keep_stats;

/* `procs` (may be NULL) reads the thread of PERFINFO events for the stack links: give the
 * process table the trace was prescanned into.  NULL when out of memory. */
etl_keep *etl_keep_new(etl_procs *procs);
void etl_keep_free(etl_keep *k);

/* Feed one record (time order); returns the ETL_KEEP_* reasons it is kept for so far (0: not
 * kept - yet: a later record can still need it, ask etl_keep_has after the pass). */
unsigned etl_keep_observe(etl_keep *k, const etl_record *rec, bool selected);
/* After the pass: is the record at this position kept? */
bool etl_keep_has(const etl_keep *k, uint64_t position);
const etl_keep_stats *etl_keep_get_stats(const etl_keep *k);

#ifdef __cplusplus
}
#endif

#endif /* ETL_KEEP_H */
