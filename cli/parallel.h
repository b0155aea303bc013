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

/* What etl_decoder_resolve answered for a record, as much as its line needs: the 328-byte
 * etl_resolved is mostly its etl_error (a 192-byte message only SCHEMA_MISSING and
 * SCHEMA_ERROR have), and the main thread's stores into a batch's slots were what made its
 * per-record work 3-7x slower at 2 threads than at one (perf, bench/README.md session 9).
 * The record's names bytes (event_name_bytes, provider_name_bytes) are not kept: etldump does
 * not write them.  The same answer comes for record after record (one per kind of event), so a
 * slot points to one copy of it kept for the whole run (par_resolved_keep); the error, which is
 * a record's own, is in the slot.  Nothing kept points into a record: a provider name from the
 * record's own PROV_TRAITS (ETL_NAME_TRAITS) is kept as NULL and read from the record again
 * (etl_decoder_traits_name).  Kept as it came, it was at another address in every record, and
 * a TraceLogging trace kept an answer per record address: 388,214 of them (45 MB) for the
 * 1 M records of etlgen's `large`, which --threads 2 decoded in 0.65 s against 0.49 s on one
 * thread (bench/README.md, session 23). */
typedef struct par_resolved {
    const etl_schema *schema;
    const char *provider_name; /* NULL with ETL_NAME_TRAITS: the record's own (above) */
    const char *event_name, *task_name, *opcode_name, *level_name, *channel_name, *keywords_name;
    uint8_t status;               /* etl_resolve_status */
    uint8_t kind;                 /* etl_resolve_kind */
    uint8_t provider_name_from;   /* etl_name_source */
    uint8_t schema_version;
    bool older_version, has_message;
} par_resolved;

/* One record with what the main thread found for it (the process itself is found by the
 * formatting thread, from ids: etl_procs_locate).  48 bytes: the formatting thread reads every
 * byte of it from the other core's writes (it was 112 with the answer in it). */
typedef struct par_slot {
    const etl_record *r;    /* the record: its copy in a batch's arena, the reader's own with one thread */
    uint64_t stack_of;      /* etl_stack_links_observe_tid's answer, when has_stack */
    const par_resolved *res;/* etl_decoder_resolve's answer (fields not started): par_resolved_keep's */
    const char *error;      /* SCHEMA_MISSING / SCHEMA_ERROR: the error's message (par_keep), else NULL */
    etl_proc_ids ids;       /* etl_procs_ids's answer (in record order) */
    int8_t error_code;      /* the error's etl_status */
    bool has_stack;
} par_slot;

/* Format one slot into j (a worker thread: read only shared state; the slot is its own), with
 * the formatting thread's own scratch (par_new's scratch_size bytes, zeroed when made). */
typedef void (*par_format_fn)(void *ctx, json_out *j, par_slot *s, void *scratch);

typedef struct par par;

/* N >= 1 worker threads besides the calling one, writing to out, each formatting thread (the
 * calling one too, when it helps) with scratch_size bytes of scratch of its own (0: none); NULL
 * when out of memory or no thread could start. */
par *par_new(unsigned workers, FILE *out, par_format_fn format, void *ctx, size_t scratch_size);
/* Where the next record view may be read (etl_reader_next) so that par_add need not copy its
 * header: the free end of the batch being filled, room for a whole etl_record. */
etl_record *par_view(par *p);
/* The next slot, the record copied into it (a view read at par_view stays where it is: only
 * its bytes and what they point to are copied); waits for, and writes out, finished batches
 * when all are in flight.  NULL when out of memory (the record is then lost: say so). */
par_slot *par_add(par *p, const etl_record *rec);
/* Room par_keep always has after a par_add: an etl_error's message and its NUL. */
#define PAR_KEEP_MAX sizeof(((etl_error *)0)->message)
/* A copy of text (cut to PAR_KEEP_MAX bytes with its NUL) kept as long as the record par_add
 * last returned: in its batch's arena.  Never NULL. */
const char *par_keep(par *p, const char *text);
/* etl_decoder_resolve's answer (st, r) in the form a slot keeps (par_resolved, its padding
 * zero). */
void par_resolved_from(etl_resolve_status st, const etl_resolved *r, par_resolved *out);
/* etl_decoder_resolve's answer (st, r) as a copy kept until par_finish, one per distinct
 * answer: its address goes in a slot.  Taken straight from etl_resolved: an answer met again
 * is compared with its kept copy, and only a new one is converted (par_resolved_from).  NULL
 * when out of memory.  The main thread's only. */
const par_resolved *par_resolved_keep(par *p, etl_resolve_status st, const etl_resolved *r);
/* Every batch formatted and written, in order; then the threads end and p is freed.
 * False when some output could not be made (out of memory). */
bool par_finish(par *p);

#endif
