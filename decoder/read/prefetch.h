/* prefetch.h - loader threads that read, inflate and index the buffers a reader will load next
 * (etl_options.threads), so that the caller's thread only merges and frames records.
 *
 * The reader loads its buffers in one fixed order (reader.c: every buffer of the pre-scan, in
 * delivery order), so the loaders can work ahead of it: job i is "load the i-th buffer of that
 * order".  Each of `depth` slots holds one loaded buffer; a loader claims the next job only
 * when its slot is free, so at most `depth` buffers are held beyond the reader's own window -
 * memory stays bounded whatever the file's size.  The reader takes jobs in order
 * (etl_prefetch_take); when the one it needs is not done yet it loads the next free job itself
 * meanwhile, then spins a little and at last sleeps; the damage reports a load made are kept
 * with it and handed over on take, so they come at the same point of the record stream, with
 * the same text, as without threads. */
#ifndef ETL_PREFETCH_H
#define ETL_PREFETCH_H

#include "buffer.h"

typedef struct etl_prefetch etl_prefetch;

/* Job i's buffer: its file offset and checked header.  Called from the loader threads: the
 * table behind it must not change while they run. */
typedef void (*etl_prefetch_job_fn)(void *ctx, uint32_t i, uint64_t *offset, etl_buffer_header *hdr);

/* Start `threads` (>= 1) loaders over jobs 0..n-1 with `depth` (>= 1) slots, converting times
 * with `clock` (which must not change while they run).  io->read_at is then called from those
 * threads.  NULL when threads or memory cannot be had (the caller then
 * loads on its own thread). */
etl_prefetch *etl_prefetch_start(const struct etl_io_ref *io, const etl_clock *clock, etl_prefetch_job_fn job,
                                 void *job_ctx, uint32_t n, bool want_order, unsigned threads, unsigned depth);

/* Take job i's loaded buffer (jobs are taken in order 0, 1, 2, ...), loading later jobs on the
 * caller's thread while job i is still being loaded, then waiting for it.  `spare`
 * (an empty or reusable buffer) takes its place in the slot.  The load's damage reports are
 * replayed through `report`; the load's own status (ETL_ERR_IO, ETL_ERR_NOMEM) is returned with
 * `err`, as etl_buffer_load would. */
etl_status etl_prefetch_take(etl_prefetch *p, uint32_t i, etl_buffer *spare, etl_buffer **out, etl_report_fn report,
                             void *report_ctx, etl_error *err);

/* Stop the loaders, wait for them, free what they hold. */
void etl_prefetch_stop(etl_prefetch *p);

#endif
