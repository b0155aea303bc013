/* parallel.h - etldump's ordered batch pipeline for --threads (docs/parallel.md).
 *
 * The main thread reads the records in order, copies each into the batch being filled (the
 * reader's bytes are only valid until its next call) and does there all that depends on the
 * records before it (par_slot's context: process, stack link, resolved schema; the stderr
 * messages).  Full batches go to N worker threads, each formatting a whole batch with its own
 * json_out; when every batch is in flight the main thread formats one itself instead of
 * waiting.  The batches' text goes to the FILE in the order they were filled (the batch whose
 * turn it is straight from its formatter, the others from their own memory once their turn
 * comes), so the output is the one thread's, byte for byte.  Batches in flight are at most
 * 2 x (N + 1): memory is bounded whatever the trace's size. */
#ifndef ETLDUMP_PARALLEL_H
#define ETLDUMP_PARALLEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "etl.h"
#include "json.h"
#include "procs.h"
#include "resolve.h"

/* One record with what the main thread found for it. */
typedef struct par_slot {
    const etl_record *r;    /* the record: its copy in a batch's arena, the reader's own with one thread */
    etl_proc_ids ids;       /* etl_procs_ids's answer (in record order) */
    bool has_proc;          /* proc: etl_procs_locate's answer (by the formatting thread) */
    bool has_stack;         /* stack_of: etl_stack_links_observe_tid's answer */
    etl_proc_info proc;
    uint64_t stack_of;
    etl_resolve_status status; /* res: etl_decoder_resolve's answer (fields not started) */
    etl_resolved res;
} par_slot;

/* Format one slot into j (a worker thread: read only shared state; the slot is its own). */
typedef void (*par_format_fn)(void *ctx, json_out *j, par_slot *s);

typedef struct par par;

/* N >= 1 worker threads besides the calling one, writing to out; NULL when out of memory or no thread could start. */
par *par_new(unsigned workers, FILE *out, par_format_fn format, void *ctx);
/* Where the next record view may be read (etl_reader_next) so that par_add need not copy its
 * header: the free end of the batch being filled, room for a whole etl_record. */
etl_record *par_view(par *p);
/* The next slot, the record copied into it (a view read at par_view stays where it is: only
 * its bytes and what they point to are copied); waits for, and writes out, finished batches
 * when all are in flight.  NULL when out of memory (the record is then lost: say so). */
par_slot *par_add(par *p, const etl_record *rec);
/* Every batch formatted and written, in order; then the threads end and p is freed.
 * False when some output could not be made (out of memory). */
bool par_finish(par *p);

#endif
