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

/* The registry as an observer: the schemas the trace carries (etl_registry_observe, refusals
 * reported through the registry's report function). */
etl_observer etl_registry_observer(struct etl_registry *s);
/* The process table as an observer: process and thread lifetimes (etl_procs_observe). */
etl_observer etl_procs_observer(struct etl_procs *p);

#ifdef __cplusplus
}
#endif

#endif
