/* options.h - etldump's command line (options.c): every option of every mode parsed in one
 * place, once, into one struct; the modes (etldump.c: JSON, --summary, --verify-positions,
 * --pcapng; write_out.c: --write) only read it. */
#ifndef ETLDUMP_OPTIONS_H
#define ETLDUMP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl.h"
#include "pcapng_out.h"

/* Named limits of the command line. */
enum {
    ETLDUMP_MAX_MANIFEST_PATHS = 64, /* --manifest-path (and --tmf-path) options (each may join many with ':') */
    ETLDUMP_MAX_VALUES = 64,         /* values of one repeatable --write selection option */
    ETLDUMP_MAX_THREADS = 64,        /* --threads */
};

/* --write's selection: every option given must match; repeated options of one kind match any
 * of their values (write_out.c applies it). */
typedef struct etldump_selection {
    bool any;
    bool has_records, has_positions, has_from, has_to;
    uint64_t rec_lo, rec_hi, pos_lo, pos_hi, every;
    int64_t from, to;
    etl_guid providers[ETLDUMP_MAX_VALUES];
    size_t nproviders;
    uint32_t event_ids[ETLDUMP_MAX_VALUES];
    size_t nevent_ids;
    uint32_t pids[ETLDUMP_MAX_VALUES];
    size_t npids;
} etldump_selection;

typedef struct etldump_options {
    /* every mode */
    const char *path;                                       /* the input trace */
    const char *manifest_paths[ETLDUMP_MAX_MANIFEST_PATHS]; /* --manifest-path values, in order */
    size_t n_manifest_paths;
    const char *tmf_paths[ETLDUMP_MAX_MANIFEST_PATHS];      /* --tmf-path values, in order */
    size_t n_tmf_paths;
    /* reading: JSON Lines, --summary, --verify-positions */
    bool summary, payload, verify;
    unsigned threads; /* --threads N (default: the cores it may use, etl_thread_cpus) */
    etl_options reader;
    /* --pcapng OUT: packets to a pcapng file (pcapng_out.h) */
    const char *pcapng_path;
    pcapng_out_options pcapng;
    /* --write OUT.etl: the selection as a new .etl (write_out.h) */
    const char *write_path;
    etldump_selection sel;
} etldump_options;

/* Parse argv into `o` (large: keep it off the stack).  -1 when the command line is good, else
 * the exit status (0 after --help, 2 after a line on stderr saying what is wrong). */
int etldump_parse_options(int argc, char **argv, etldump_options *o);

#endif
