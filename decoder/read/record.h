/* record.h - record framing internals shared by the framer and the buffer scanner. */
#ifndef ETL_RECORD_INTERNAL_H
#define ETL_RECORD_INTERNAL_H

#include "etl.h"

/* The first step of framing, cheap enough to run over every record of a buffer when it is
 * loaded: classify the marker, find the size, and peek the raw timestamp.
 * Returns ETL_OK, ETL_END (end-of-data marker or fewer than 4 bytes), or an error saying why
 * no record can be framed here (offset relative to `d`). */
typedef struct etl_record_peek {
    uint8_t header_type;     /* ETL_HT_* (ETL_HT_UNKNOWN for unrecognised forms) */
    uint8_t raw_header_type;
    uint32_t size;           /* record bytes, pad excluded */
    bool has_timestamp;
    int64_t timestamp_raw;
} etl_record_peek;

etl_status etl_peek_record(const uint8_t *d, size_t avail, etl_record_peek *out, etl_error *err);

/* The rest of framing (etl_frame_record) for a record whose peek succeeded: the reader peeks
 * every record once when it indexes a buffer, and frames from that peek on delivery. */
void etl_frame_peeked(const uint8_t *d, const etl_record_peek *pk, uint8_t session_pointer_size, etl_record *rec);

#endif
