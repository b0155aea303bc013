/* etl_relog.h - write a selection of a trace's records as a new .etl, with the records decoding
 * them needs: what etldump --write and the Wireshark writer do.
 *
 * Two passes over the input after a prescan (prescan.h: the schemas it carries, its processes):
 *   1. timestamp order (the order etldump prints, record 0 the logfile header): the caller's
 *      select function picks records by number, position, time, provider, process...; keep.h
 *      adds the context they need (logfile and HEADER group, process/thread/image events,
 *      carried schemas, PROV_TRAITS namers, stack links); the logfile header record is copied;
 *   2. file order: every kept record written (etl_write.h) with its bytes, header kind,
 *      timestamp and processor unchanged, and the input's buffer breaks kept, so the written
 *      file reads back in the same timestamp order.
 * The logfile header written is the input's with BuffersWritten counted again, the
 * compressed-mode bit of LogFileMode cleared (buffers are written uncompressed) and EventsLost
 * raised by records that could not be written.  Damaged records of the input (a framing
 * problem) are not written, so the output never reports damage; each is reported.
 *
 * Warnings (report with warning=true) name what a selection needs and the trace does not hold:
 * processes no event names, providers whose name no earlier PROV_TRAITS gives, stack walks
 * whose event is not in the trace, manifest events whose schema comes from a manifest file
 * (opt->manifest_paths) rather than the trace. */
#ifndef ETL_RELOG_H
#define ETL_RELOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl.h"
#include "etl_write.h"

#ifdef __cplusplus
extern "C" {
#endif

struct etl_proc_info;

/* Is record `number` (0-based, timestamp order) selected?  `proc` is its process (procs.h),
 * NULL when unknown. */
typedef bool (*etl_relog_select_fn)(void *ctx, const etl_record *rec, uint64_t number,
                                    const struct etl_proc_info *proc);
/* A message: a warning (the output is written anyway) or a report of input damage. */
typedef void (*etl_relog_report_fn)(void *ctx, bool warning, const char *message);

typedef struct etl_relog_options {
    const char *const *manifest_paths; /* ':'-lists of manifest files and folders */
    size_t n_manifest_paths;
    etl_relog_select_fn select;        /* NULL: every record */
    void *select_ctx;
    etl_relog_report_fn report;        /* NULL: silent */
    void *report_ctx;
} etl_relog_options;

typedef struct etl_relog_stats {
    uint64_t records;  /* written, the logfile header included */
    uint64_t selected; /* records the select function picked */
    uint64_t context;  /* records written only because selected ones need them */
    uint64_t buffers;
    uint64_t bytes;
    uint64_t damaged;  /* input damage reports and damaged records left out */
    uint64_t skipped;  /* records too big for the session's buffers, left out */
    uint64_t warnings;
} etl_relog_stats;

/* ETL_OK when the file was written (damage left out is counted in stats); ETL_ERR_NOT_ETL or
 * the reader's error when the input cannot be read, ETL_ERR_NOT_FOUND when it has no logfile
 * header, ETL_ERR_IO when the sink fails, ETL_ERR_NOMEM. */
etl_status etl_relog(const char *in_path, etl_write_sink sink, const etl_relog_options *opt,
                     etl_relog_stats *stats, etl_error *err);

/* Merge several traces into one .etl (mergecap -F etl): one timeline ordered by UTC time.
 * Each input's selection (select may be NULL: every record) gets its own context (keep.h).  The
 * output's clock is system time (ReservedFlags 2, PerfFreq 10^7): every record's header
 * timestamp (and a StackWalk's EventTimeStamp, which names its event) is rewritten as the FILETIME
 * its own trace's clock gives, so traces of different clocks and timer frequencies share one
 * timeline, as the relogger converts them.  Records keep their header kinds, so a 32-bit trace's
 * events keep their 32-bit layout.  The logfile header is the first input's with the clock
 * changed, StartTime the earliest, EndTime the latest, BufferSize, PointerSize and
 * NumberOfProcessors the largest of the inputs; the other inputs' logfile header records are
 * written as ordinary records at their time.  Not converted: process ids (two machines' pid 4
 * are one process id in the output; a name is looked up by id and time) and WPP/unknown records
 * of a 32-bit trace merged behind a 64-bit one (framed with the output's pointer size). */
typedef struct etl_merge_input {
    const char *path;
    etl_relog_select_fn select;
    void *select_ctx;
} etl_merge_input;
etl_status etl_merge(const etl_merge_input *in, size_t n, etl_write_sink sink,
                     etl_relog_report_fn report, void *report_ctx, etl_relog_stats *stats,
                     etl_error *err);

/* The same on a trace held in memory (`data` valid until it returns). */
etl_status etl_relog_memory(const uint8_t *data, size_t size, etl_write_sink sink,
                            const etl_relog_options *opt, etl_relog_stats *stats, etl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ETL_RELOG_H */
