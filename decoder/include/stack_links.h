/* stack_links.h - a bounded map of recent events by (raw timestamp, thread), to join kernel
 * StackWalk events to the event whose stack they carry.
 *
 * The kernel logs a stack walk right after its event, on the same processor, naming the event
 * by its timestamp and thread (procs.h: etl_stackwalk_target_key).  A reader that
 * goes through the trace in order remembers every other event under its key
 * (etl_stack_event_key or etl_procs_event_key) with an id of its choosing (a record position,
 * a frame number), and asks for a stack's target key.  Only the last `capacity` events are
 * remembered: a stack whose event is older than that (or not in the trace, e.g. lost) is not
 * linked.  Only classic kernel events are stack-walk targets (events of other providers carry
 * their stacks in extended data items), so a reader need remember only those
 * (etl_record_is_classic).
 *
 * Matching: the event remembered under exactly (ts, tid); else, when none, one remembered
 * under (ts, ETL_NO_ID) - an event whose key had no thread (a PERFINFO header read without
 * its payload).  When several events share a key the latest remembered wins.
 *
 * Fixed memory (allocated once in etl_stack_links_new); adding and finding allocate nothing. */
#ifndef ETL_STACK_LINKS_H
#define ETL_STACK_LINKS_H

#include <stdbool.h>
#include <stdint.h>

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Events remembered by default.  A stack walk follows its event closely: in time order, on
 * the captures, 2 records later at the median and 22 at the 99th percentile; but user-mode
 * stacks are walked when the thread returns to user mode, and the deferred ones (StackKeyUser)
 * and the stacks of events logged just before a rundown come thousands of records later
 * (5504 at most on perfview_net452_x64_merged_compressed.etl).  16384 covers three times that
 * in 384 KiB (and 64 KiB of buckets). */
#define ETL_STACK_LINKS_DEFAULT_CAPACITY 16384u
/* Largest capacity accepted. */
#define ETL_STACK_LINKS_MAX_CAPACITY (1u << 24)

typedef struct etl_stack_links etl_stack_links;

/* capacity 0 = ETL_STACK_LINKS_DEFAULT_CAPACITY; rounded up to a power of two; larger than the
 * maximum is cut to it.
 * NULL when out of memory. */
etl_stack_links *etl_stack_links_new(uint32_t capacity);
void etl_stack_links_free(etl_stack_links *l);
/* Forget everything (a new pass over the trace). */
void etl_stack_links_clear(etl_stack_links *l);

/* Remember an event: the oldest remembered one is forgotten when full. */
void etl_stack_links_add(etl_stack_links *l, uint64_t ts_raw, uint32_t tid, uint64_t id);
/* The id of the event with this key (matching rule above); false when none is remembered. */
bool etl_stack_links_find(const etl_stack_links *l, uint64_t ts_raw, uint32_t tid, uint64_t *id);

/* The bookkeeping of one pass in trace order, one call per record: a StackWalk event
 * (etl_record_is_stackwalk) is looked up - true and *target the id its event was remembered
 * under, false when that event is not remembered or the walk's key cannot be read; any other
 * classic event is remembered under its key (etl_procs_event_key: `procs` finds the thread of
 * headers without one) with `id`, and false. */
struct etl_procs;
bool etl_stack_links_observe(etl_stack_links *l, struct etl_procs *procs, const etl_record *rec, uint64_t id,
                             uint64_t *target);
/* The same with the event's thread already known (etl_proc_ids.key_tid, from etl_procs_ids:
 * the payload read once for the process lookup and the key). */
bool etl_stack_links_observe_tid(etl_stack_links *l, const etl_record *rec, uint32_t key_tid, uint64_t id,
                                 uint64_t *target);

#ifdef __cplusplus
}
#endif

#endif /* ETL_STACK_LINKS_H */
