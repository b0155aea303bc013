/* position.h - what a record's position (etl_record.position, opaque to consumers) holds: the
 * file offset of its buffer, and its own offset in that buffer (decompressed) in 8-byte units,
 * where records start. */
#ifndef ETL_POSITION_H
#define ETL_POSITION_H

#include <stdint.h>

#define ETL_POSITION_OFFSET_BITS 21 /* a buffer's records region ends below 16 MiB */

static inline uint64_t etl_position_make(uint64_t buffer_offset, uint32_t record_offset)
{
    return (buffer_offset << ETL_POSITION_OFFSET_BITS) | (record_offset >> 3);
}

static inline uint64_t etl_position_buffer(uint64_t position)
{
    return position >> ETL_POSITION_OFFSET_BITS;
}

static inline uint32_t etl_position_record(uint64_t position)
{
    return (uint32_t)((position & ((UINT64_C(1) << ETL_POSITION_OFFSET_BITS) - 1)) << 3);
}

#endif
