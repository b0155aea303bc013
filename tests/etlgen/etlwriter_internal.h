/*
 * etlwriter_internal.h - what the writer's source files share and callers must not see:
 * the writer struct, record placement and statistics.
 */
#ifndef ETLWRITER_INTERNAL_H
#define ETLWRITER_INTERNAL_H

#include "etlwriter.h"

/* Every record's Size is a u16, so no record (and no scratch area) exceeds this. */
#define ETLW_MAX_RECORD 0xFFFFu

struct lzx_compressor;
struct etl_writer;

/* The buffers, alignment, HEADER buffer and final logfile facts are the decoder library's
 * writer (decoder/include/etl_write.h), shared with the relogger; this struct keeps what the
 * generator adds: its configuration, record scratch areas and statistics. */
struct etlw_writer {
    etlw_config cfg;           /* copy; string members are only read by etlw_open */
    etlw_sink sink;
    struct etl_writer *lw;     /* the library writer: buffers and the HEADER buffer */
    uint8_t *record;           /* scratch: one record being built */
    uint8_t *ext;              /* scratch: extended items of a TraceLogging event */
    uint8_t *meta;             /* scratch: TraceLogging metadata / traits blobs */
    struct lzx_compressor *lzx;
    int64_t now;               /* largest timestamp seen: "the current time" */
    int status;                /* first fatal error */
    int closed;
    etlw_stats stats;
    size_t last_provider;      /* index of the last provider counted (cache) */
};

/* Little-endian stores into a byte array the caller has bounds-checked: the decoder's. */
#include "bytes.h"
#define etlw_st16 etl_st16
#define etlw_st32 etl_st32
#define etlw_st64 etl_st64
#define etlw_ld16 etl_ld16

/* Resolve a record's `bits` (0, 32, 64) to 32 or 64; 0 for anything else. */
unsigned etlw__bits(const etlw_writer *w, unsigned bits);

/* Append one complete record (Size already inside) to a CPU buffer, flushing the
 * buffer first if the record does not fit.  `has_ts` says whether the record carries
 * a timestamp that advances the writer's notion of "now". */
int etlw__place(etlw_writer *w, unsigned cpu, const uint8_t *rec, size_t len,
                int has_ts, int64_t ts);

/* Statistics, called once a record has been placed. */
void etlw__count_record(etlw_writer *w, unsigned header_type);
void etlw__count_provider(etlw_writer *w, const etlw_guid *g);
void etlw__count_kernel_group(etlw_writer *w, unsigned group);
void etlw__count_ext(etlw_writer *w, unsigned ext_type);

/* Checks that fail without poisoning the writer. */
int etlw__usable(const etlw_writer *w);

#endif /* ETLWRITER_INTERNAL_H */
