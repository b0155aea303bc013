/* prescan.h - one pass over a trace before decoding, feeding every observer.
 *
 * Some of what decodes a record can come after it in the file: the schemas a trace carries
 * (KernelTraceControl MetaData records, EventSource manifest chunks: registry.h), and the
 * process and thread lifetimes named by rundown events at the trace's end (procs.h).  A
 * consumer that wants every record decoded and named whatever its position reads the trace
 * once before decoding and hands every record to whoever collects such things: an observer.
 * etl_prescan is that one pass; each consumer lists its observers (the registry, the process
 * table, and whatever collects more later), and every record goes to each of them in the order
 * listed.
 *
 * The pass reads in file order (no timestamp merge: every record once, in the order stored;
 * observers that care about time sort for themselves, as procs.h does), frames records and
 * decodes nothing itself.  Damage is tolerated: damaged records still reach the observers as
 * the reader delivers them, and the reader's problem reports are drained unreported - they are
 * the decoding pass's to report.
 *
 * A reader that streams instead (a pipe, a compressed file the reader cannot open) calls the
 * same observers on each record as it comes; then only later records profit. */
#ifndef ETL_PRESCAN_H
#define ETL_PRESCAN_H

#include <stddef.h>

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

struct etl_registry;
struct etl_procs;

/* Called with every record of the trace; must pass over records it has no use for cheaply
 * (the pass calls every observer on every record). */
typedef void (*etl_observe_fn)(void *ctx, const etl_record *rec);

typedef struct etl_observer {
    etl_observe_fn observe;
    void *ctx;
} etl_observer;

/* An observer's filter: might it take this record?  False only for records it passes over;
 * reads nothing but the record, so that any thread may ask (etl_prescan_file_filtered).  An
 * observer with a filter may be handed copies of records the helper thread read through a view
 * of the file (their buffer offsets and positions are the file's, their bytes the copy's). */
typedef bool (*etl_wants_fn)(const etl_record *rec);

/* The same filter by the one number that names most records: adds to `set` every hook id
 * (group << 8 | type) of a kernel compact record (the system family) and every event id of an
 * event-header record the observer's etl_wants_fn might take.  The pass then moves past the
 * others unframed (etl_reader_next_of).  Must agree with the etl_wants_fn: an id left out is a
 * record that observer never sees (tests/unit/test_prescan.c holds each pair to it). */
typedef void (*etl_wants_ids_fn)(etl_id_set *set);

/* Observers of one pass: more is a caller's mistake (ETL_ERR_ARG). */
#define ETL_PRESCAN_MAX_OBSERVERS 32u

/* Read `r` to its end (it is left there), every record to obs[0..n) in turn.  ETL_OK at the
 * end of the trace, else the reader's error (the observers keep what they took). */
etl_status etl_prescan(etl_reader *r, const etl_observer *obs, size_t n, etl_error *err);
/* The same on a file, through a reader of its own in file order. */
etl_status etl_prescan_file(const char *path, const etl_observer *obs, size_t n, etl_error *err);
/* The same with that reader's loader threads (etl_options.threads; the order stays file order). */
etl_status etl_prescan_file_threads(const char *path, unsigned threads, const etl_observer *obs, size_t n,
                                    etl_error *err);
/* The same with an inflate cache (etl_options.inflate_cache): a decoding pass over the same
 * file with that cache then takes the buffers this pass inflated instead of inflating them. */
etl_status etl_prescan_file_cached(const char *path, unsigned threads, etl_inflate_cache *cache, const etl_observer *obs,
                                   size_t n, etl_error *err);
/* The same, told what each observer wants (wants[i] obs[i]'s filter, ids[i] its filter by
 * hook and event id; `ids` may be NULL, and then every record is framed).  With threads, a large
 * uncompressed file is then read by two threads at once: the calling thread reads and observes
 * it from the front, while a helper thread takes pieces of it from the back, one at a time
 * (each through a view of the file that is its first buffer, the logfile header's, then the
 * piece), and keeps copies of the records some observer wants; where the two meet depends on
 * their speeds.  Then the copies are observed, in file order.  The observers see what one pass
 * shows them, in the same order: the helper's pieces are used only when their reading met no
 * damage and the first record they hold is the one the calling thread's reader finds there,
 * and their copies stay within a bound; else the calling thread's reader goes on alone. */
etl_status etl_prescan_file_filtered(const char *path, unsigned threads, etl_inflate_cache *cache,
                                     const etl_observer *obs, const etl_wants_fn *wants,
                                     const etl_wants_ids_fn *ids, size_t n, etl_error *err);
/* etl_prescan_file_filtered in two steps, for a caller with a core to spare: the pass's reader
 * of `path` (file order, through `cache`), opened ahead - etldump opens it on another thread
 * while it opens its own reader of the same file, both opens walking every buffer header - and
 * the pass itself over that reader, which it closes whatever happens. */
etl_status etl_prescan_open(const char *path, etl_inflate_cache *cache, etl_reader **out, etl_error *err);
etl_status etl_prescan_reader_filtered(etl_reader *r, const char *path, unsigned threads, const etl_observer *obs,
                                       const etl_wants_fn *wants, const etl_wants_ids_fn *ids, size_t n,
                                       etl_error *err);

/* The registry as an observer: the schemas the trace carries (etl_registry_observe, refusals
 * reported through the registry's report function). */
/* The same for the records of trace number `trace` of a capture of several (etl_record.trace):
 * the schema records the pass reads from that trace's file count as its own.  The observer
 * lives as long as the registry. */
etl_observer etl_registry_observer_of(struct etl_registry *s, uint32_t trace);
etl_observer etl_registry_observer(struct etl_registry *s);
/* Its filter: the schema records (MetaData, EventSource manifest chunks). */
bool etl_registry_observer_wants(const etl_record *rec);
/* Its filter by id: EventSource manifest chunks' event id (no kernel compact record carries a
 * schema; MetaData records have full headers). */
void etl_registry_observer_wants_ids(etl_id_set *set);
/* The process table as an observer: process and thread lifetimes (etl_procs_observe). */
etl_observer etl_procs_observer(struct etl_procs *p);
/* Its filters are etl_procs_wants and etl_procs_wants_ids (procs.h); the volume table's,
 * etl_volumes_is_mapping and etl_volumes_wants_ids (volumes.h). */

#ifdef __cplusplus
}
#endif

#endif
