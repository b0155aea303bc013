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

/* Little-endian stores into a byte array the caller has bounds-checked. */
static inline void etlw_st16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void etlw_st32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void etlw_st64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t etlw_ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

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
