/* inflate_cache.h - the reader's side of etl_inflate_cache (etl.h): inflated buffers kept by
 * one reader for another reader of the same file. */
#ifndef ETL_INFLATE_CACHE_H
#define ETL_INFLATE_CACHE_H

#include "buffer.h"

typedef struct etl_inflate_cache_stats {
    uint64_t kept, taken, missed, refused; /* buffers */
    uint64_t bytes_kept;
} etl_inflate_cache_stats;

/* Keep a copy of the `len` inflated bytes (the records region) of the buffer at `offset`
 * with header `h`, unless the limit would be passed or it was kept before. */
void etl_inflate_cache_put(etl_inflate_cache *c, uint64_t offset, const etl_buffer_header *h, const uint8_t *data,
                           uint32_t len);

/* Copy the kept bytes of the buffer at `offset` into out (at most `cap`) and drop them: true
 * when it was kept with the same header fields (size, decompressed size, flush time). */
bool etl_inflate_cache_take(etl_inflate_cache *c, uint64_t offset, const etl_buffer_header *h, uint8_t *out,
                            uint32_t cap, uint32_t *len);

const etl_inflate_cache_stats *etl_inflate_cache_stats_of(const etl_inflate_cache *c);

#endif
