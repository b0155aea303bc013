/* tl_build.h - build TraceLogging metadata and payloads byte by byte in unit tests, so every
 * case (tags, structs, arrays, custom fields, damage) is spelled out in the test itself.
 * Encoding as in etw-formats.md 5.1: u16 size, tags, event name, then fields. */
#ifndef TL_BUILD_H
#define TL_BUILD_H

#include <stdint.h>
#include <string.h>

typedef struct tlbuf {
    uint8_t b[70000];
    size_t n;
} tlbuf;

static inline void tl_u8(tlbuf *m, uint8_t v)
{
    m->b[m->n++] = v;
}
static inline void tl_u16(tlbuf *m, uint16_t v)
{
    tl_u8(m, (uint8_t)v);
    tl_u8(m, (uint8_t)(v >> 8));
}
static inline void tl_u32(tlbuf *m, uint32_t v)
{
    tl_u16(m, (uint16_t)v);
    tl_u16(m, (uint16_t)(v >> 16));
}
static inline void tl_u64(tlbuf *m, uint64_t v)
{
    tl_u32(m, (uint32_t)v);
    tl_u32(m, (uint32_t)(v >> 32));
}
static inline void tl_bytes(tlbuf *m, const void *p, size_t n)
{
    memcpy(m->b + m->n, p, n);
    m->n += n;
}
static inline void tl_str(tlbuf *m, const char *s) /* with its NUL */
{
    tl_bytes(m, s, strlen(s) + 1);
}
/* UTF-16LE of an ASCII string, with a NUL code unit */
static inline void tl_wstr(tlbuf *m, const char *s)
{
    for (; *s; s++)
        tl_u16(m, (uint8_t)*s);
    tl_u16(m, 0);
}

/* Tags, shortest form: 7-bit groups from the top (bits 27..21 first), 0x80 on all but the last,
 * stopping once the remaining low bits are zero. */
static inline void tl_tags(tlbuf *m, uint32_t tags)
{
    int shift = 21;
    for (;;) {
        uint8_t v = (uint8_t)((tags >> shift) & 0x7F);
        uint32_t rest = shift ? tags & ((1u << shift) - 1) : 0;
        if (rest && shift > 0) {
            tl_u8(m, v | 0x80);
            shift -= 7;
        } else {
            tl_u8(m, v);
            break;
        }
    }
}

static inline void tl_begin(tlbuf *m, const char *event, uint32_t tags)
{
    m->n = 0;
    tl_u16(m, 0); /* size, patched by tl_end */
    tl_tags(m, tags);
    tl_str(m, event);
}

/* A field: in_meta (in-type | count kind; the chain bit is added when out >= 0), out (-1 for
 * none), tag (0 for none: forces an OutMeta when non-zero). */
static inline void tl_field(tlbuf *m, const char *name, uint8_t in_meta, int out, uint32_t tag)
{
    tl_str(m, name);
    if (tag) {
        tl_u8(m, in_meta | 0x80);
        tl_u8(m, (uint8_t)((out < 0 ? 0 : out) | 0x80));
        tl_tags(m, tag);
    } else if (out >= 0) {
        tl_u8(m, in_meta | 0x80);
        tl_u8(m, (uint8_t)out);
    } else {
        tl_u8(m, in_meta);
    }
}

static inline void tl_struct(tlbuf *m, const char *name, uint8_t count_kind, unsigned members)
{
    tl_field(m, name, (uint8_t)(24 | count_kind), (int)members, 0);
}

static inline void tl_end(tlbuf *m)
{
    m->b[0] = (uint8_t)m->n;
    m->b[1] = (uint8_t)(m->n >> 8);
}

#endif
