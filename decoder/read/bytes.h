/* bytes.h - bounds-checked little-endian reads, the only way the decoder touches file bytes.
 *
 * Fields in ETW records are packed and often unaligned (MESSAGE timestamps, TraceLogging
 * payloads), and the host may be big-endian, so nothing casts a struct over the data: every
 * value is assembled from bytes.  The *_at helpers take (data, size, offset) and return false
 * instead of reading past `size`; the unchecked ld* (and, for writers, st*) helpers are for spans
 * already checked. */
#ifndef ETL_BYTES_H
#define ETL_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline uint16_t etl_ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t etl_ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t etl_ld64(const uint8_t *p)
{
    return (uint64_t)etl_ld32(p) | ((uint64_t)etl_ld32(p + 4) << 32);
}

/* Little-endian stores, for writers (decoder/write, the generator) into spans they checked. */
static inline void etl_st16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void etl_st32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void etl_st64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* True when [off, off+len) lies inside [0, size), without overflow. */
static inline bool etl_span_ok(size_t size, size_t off, size_t len)
{
    return off <= size && len <= size - off;
}

static inline bool etl_u16_at(const uint8_t *d, size_t size, size_t off, uint16_t *out)
{
    if (!etl_span_ok(size, off, 2))
        return false;
    *out = etl_ld16(d + off);
    return true;
}
static inline bool etl_u32_at(const uint8_t *d, size_t size, size_t off, uint32_t *out)
{
    if (!etl_span_ok(size, off, 4))
        return false;
    *out = etl_ld32(d + off);
    return true;
}
static inline bool etl_u64_at(const uint8_t *d, size_t size, size_t off, uint64_t *out)
{
    if (!etl_span_ok(size, off, 8))
        return false;
    *out = etl_ld64(d + off);
    return true;
}

/* Round up to a multiple of 8 without overflow (callers bound v far below SIZE_MAX). */
static inline uint32_t etl_align8(uint32_t v)
{
    return (v + 7u) & ~7u;
}

#endif /* ETL_BYTES_H */
