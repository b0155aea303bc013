/* buffer.h - one trace buffer: header checks, loading (and inflating), and its record index. */
#ifndef ETL_BUFFER_H
#define ETL_BUFFER_H

#include "error.h"
#include "etl.h"

/* The fields of a WMI_BUFFER_HEADER that reading needs (etw-formats.md 1.1). */
typedef struct etl_buffer_header {
    uint32_t buffer_size;   /* on-disk size: distance to the next buffer */
    uint32_t saved_offset;
    uint32_t filled;        /* Offset@0x30: end of valid data, header included (decompressed) */
    int64_t timestamp;
    int64_t sequence;
    uint16_t cpu;
    uint16_t logger_id;
    uint32_t state;
    uint16_t flags;
    uint16_t type;
    uint32_t valid_end;     /* end of records in the (decompressed) buffer, from the checks */
} etl_buffer_header;

/* Parse and check a buffer header.  `remaining` is the file bytes from the header on.
 * ETL_OK when plausible; ETL_ERR_CORRUPT with the reason when impossible. */
etl_status etl_buffer_header_check(const uint8_t h[ETL_BUFFER_HEADER_SIZE], uint64_t remaining,
                                   etl_buffer_header *out, etl_error *err);

/* A session's clock, for converting raw timestamps to FILETIMEs: StartTime + (raw - anchor)
 * scaled to 100 ns, the anchor being the logfile header's own timestamp (etw-formats.md
 * section 4).  Set up by the reader from the logfile header; can_convert false without one. */
typedef struct etl_clock {
    bool can_convert;
    bool freq_is_ticks; /* the clock counts 100 ns units (10 MHz QPC, system time) */
    int64_t anchor, start, freq;
} etl_clock;

/* The FILETIME of a raw timestamp; false when it has none.  Integer-only: whole seconds and
 * the remainder are scaled separately, so nothing drifts or overflows. */
static inline bool etl_clock_convert(const etl_clock *c, int64_t raw, int64_t *ft)
{
    if (!c->can_convert) {
        /* No usable clock: a raw value that is a plausible FILETIME (1990..2100) is one. */
        if (raw >= 125911584000000000LL && raw <= 157766880000000000LL) {
            *ft = raw;
            return true;
        }
        return false;
    }
    int64_t delta;
    if (__builtin_sub_overflow(raw, c->anchor, &delta))
        return false;
    if (c->freq_is_ticks) { /* the common clock: no scaling, the same bounds as below */
        if (delta > 900000000000LL * 10000000LL + 9999999LL || delta < -900000000000LL * 10000000LL)
            return false;
        if (__builtin_add_overflow(c->start, delta, ft))
            return false;
        return *ft >= 0;
    }
    int64_t q = delta / c->freq, rem = delta % c->freq;
    if (rem < 0) {
        rem += c->freq;
        q -= 1;
    }
    if (q > 900000000000LL || q < -900000000000LL)
        return false;
    int64_t ticks = q * 10000000LL + (int64_t)((__int128)rem * 10000000LL / c->freq);
    if (__builtin_add_overflow(c->start, ticks, ft))
        return false;
    return *ft >= 0;
}

/* One record of a loaded buffer, as the index keeps it: where it is, what its peek found
 * (record.h), so delivering it frames it without peeking again, and its converted time, so
 * that the loader threads convert it rather than the thread that delivers it. */
typedef struct etl_index_entry {
    int64_t timestamp;  /* raw; records without one inherit the previous record's */
    int64_t filetime;   /* the record's own timestamp converted, when has_filetime */
    uint32_t offset;    /* in the (decompressed) buffer, 0x48 = first record */
    uint32_t size;      /* the peek's record size */
    uint8_t header_type, raw_header_type;
    bool has_timestamp; /* the record carries its own timestamp (else it is inherited) */
    bool has_filetime;
} etl_index_entry;

typedef struct etl_buffer {
    uint64_t file_offset;
    etl_buffer_header hdr;
    uint8_t *data;            /* header copy + decompressed records region */
    size_t data_cap;
    size_t data_mapped;       /* how much of data etl_prefault mapped in (the most loaded yet) */
    uint32_t data_len;        /* bytes of data that are valid */
    etl_index_entry *index;   /* records in file order */
    uint32_t count, index_cap;
    uint32_t *order;          /* permutation of index in timestamp order (NULL = file order) */
    uint32_t order_cap;
    uint32_t next;            /* next record to deliver (in delivery order) */
    bool sorted;              /* index already in timestamp order */
    uint64_t load_seq;        /* file order of this buffer, ties in the merge go to the lower */
} etl_buffer;

/* A damage report found while loading a buffer, handed to the reader's queue. */
typedef void (*etl_report_fn)(void *ctx, etl_status code, uint64_t offset, uint64_t bytes_lost,
                              const char *fmt, ...) ETL_PRINTF(5, 6);

struct etl_io_ref {
    const etl_io *io;
    void *ctx;
    uint64_t size;
    etl_inflate_cache *cache; /* etl_options.inflate_cache, for the sequential reads; or NULL */
};

/* Read up to `len` bytes at `off`, never past io->size; *got says how many came (short only at
 * the end of the input).  ETL_ERR_IO when the read itself fails. */
etl_status etl_io_read(const struct etl_io_ref *io, uint64_t off, void *buf, size_t len, size_t *got,
                       etl_error *err);

/* Read, inflate and index the buffer whose (already checked) header is `hdr` at `off`, its
 * records' times converted with `clock` (NULL: none converted).  Damage inside it is reported
 * through `report` and what can be read is kept.  Returns ETL_ERR_IO / ETL_ERR_NOMEM on
 * failures that stop reading. */
etl_status etl_buffer_load(etl_buffer *b, const struct etl_io_ref *io, uint64_t off,
                           const etl_buffer_header *hdr, const etl_clock *clock, bool want_order,
                           etl_report_fn report, void *report_ctx, etl_error *err);

/* A zeroed etl_buffer on cache lines of its own (free with etl_buffer_free, then free()).  The
 * reader bumps `next` once a record on the buffer it delivers from while a loader thread writes
 * `count` and `index` of the buffer it is loading: two such structs from plain calloc sat on one
 * line, and that line crossed between the cores once a record (--summary --threads 2). */
etl_buffer *etl_buffer_new(void);

void etl_buffer_free(etl_buffer *b);

/* Index position of the record at `offset`, or -1. */
int64_t etl_buffer_find(const etl_buffer *b, uint32_t offset);

#endif
