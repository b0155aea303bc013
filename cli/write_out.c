/* write_out.c - etldump --write OUT.etl: cut a trace into a smaller .etl without Windows.
 *
 *   etldump --write OUT.etl [SELECTION] [--manifest-path PATH]... FILE
 *
 * SELECTION (every option given must match; repeated options of one kind match any value):
 *   --records=A-B      record numbers A to B (0-based, inclusive; "A-" to the end) in the order
 *                      etldump prints them (timestamp order; the logfile header is record 0)
 *   --every=N          every Nth record: numbers 0, N, 2N, ...
 *   --positions=A-B    records whose "position" (as etldump prints it) is in [A, B]
 *   --from=T --to=T    records with a timestamp in [from, to]: FILETIME numbers or UTC times
 *                      as etldump prints them (2021-09-09T14:59:35.7990000Z)
 *   --provider=GUID    records of this provider / class / kernel group GUID
 *   --event-id=N       records with this event id (EVENT_HEADER id; classic records: 0)
 *   --pid=N            records of this process (the header's pid, or the process etldump names
 *                      in "process_id")
 * Without a selection every record is written.  The options are parsed with all of etldump's
 * (options.c); this file applies the selection and runs the writer.
 *
 * What is written besides the selection (the records decoding it needs), how, and the warnings
 * naming what the trace does not hold: etl_relog.h, which this file calls.
 *
 * Exit status: 0 written (warnings or not); 1 written, but input damage or records too big for a
 * buffer were left out; 2 nothing written (bad
 * options, unusable input, the input has no logfile header, the output cannot be written). */
#include "write_out.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "etl_format.h"
#include "etl_relog.h"
#include "etl_write.h"
#include "procs.h"
#include "registry.h"

/* ---- selection ---------------------------------------------------------------------------- */

static bool selected(void *ctx, const etl_record *r, uint64_t number, const etl_proc_info *proc)
{
    const etldump_selection *s = ctx;
    if (!s->any)
        return true;
    if (s->has_records && (number < s->rec_lo || number > s->rec_hi))
        return false;
    if (s->every && number % s->every != 0)
        return false;
    if (s->has_positions && (r->position < s->pos_lo || r->position > s->pos_hi))
        return false;
    if ((s->has_from || s->has_to) && !r->has_timestamp)
        return false;
    if (s->has_from && r->timestamp < s->from)
        return false;
    if (s->has_to && r->timestamp > s->to)
        return false;
    if (s->nproviders) {
        bool hit = false;
        for (size_t i = 0; i < s->nproviders && !hit; i++)
            hit = r->has_provider && etl_guid_equal(&r->provider, &s->providers[i]);
        if (!hit)
            return false;
    }
    if (s->nevent_ids) {
        bool hit = false;
        for (size_t i = 0; i < s->nevent_ids && !hit; i++)
            hit = r->event_id == s->event_ids[i];
        if (!hit)
            return false;
    }
    if (s->npids) {
        uint32_t pid = proc ? proc->pid : r->pid;
        bool hit = false;
        for (size_t i = 0; i < s->npids && !hit; i++)
            hit = pid == s->pids[i] || r->pid == s->pids[i];
        if (!hit)
            return false;
    }
    return true;
}

/* ---- the run ------------------------------------------------------------------------------ */

static void report(void *ctx, bool warning, const char *message)
{
    const char *in = ctx;
    if (warning)
        fprintf(stderr, "etldump: warning: %s\n", message);
    else
        fprintf(stderr, "etldump: %s: %s\n", in, message);
}

int etldump_write_run(const etldump_options *o)
{
    /* the --manifest-path values, then $ETLSHARK_MANIFEST_PATH */
    static const char *manifest_paths[ETLDUMP_MAX_MANIFEST_PATHS + 1];
    size_t n_manifest_paths = o->n_manifest_paths;
    memcpy(manifest_paths, o->manifest_paths, n_manifest_paths * sizeof manifest_paths[0]);
    if (etl_registry_env_path())
        manifest_paths[n_manifest_paths++] = etl_registry_env_path();
    FILE *out = fopen(o->write_path, "wb");
    if (out == NULL) {
        fprintf(stderr, "etldump: %s: cannot create the output\n", o->write_path);
        return 2;
    }
    etl_write_file fs;
    etl_relog_options opt = {
        .manifest_paths = manifest_paths,
        .n_manifest_paths = n_manifest_paths,
        .select = o->sel.any ? selected : NULL,
        .select_ctx = (void *)&o->sel,
        .report = report,
        .report_ctx = (void *)o->path,
    };
    etl_relog_stats st;
    etl_error err;
    etl_status s = etl_relog(o->path, etl_write_file_sink(&fs, out), &opt, &st, &err);
    bool closed = fclose(out) == 0;
    if (s != ETL_OK || !closed) {
        fprintf(stderr, "etldump: %s: %s\n", s == ETL_ERR_IO || !closed ? o->write_path : o->path,
                s != ETL_OK ? err.message : "writing the output failed");
        remove(o->write_path);
        return 2;
    }
    fprintf(stderr,
            "etldump: wrote %s: %" PRIu64 " records (%" PRIu64 " selected, %" PRIu64 " kept as context), %" PRIu64
            " buffers, %" PRIu64 " bytes\n",
            o->write_path, st.records, st.selected, st.context, st.buffers, st.bytes);
    /* Warnings name what the input itself lacks: they do not fail the run. */
    return st.damaged || st.skipped ? 1 : 0;
}
