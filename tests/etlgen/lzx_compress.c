/*
 * lzx_compress.c - MS-XCA "plain LZ77" (LZXpress) compressor, [MS-XCA] sections 2.3/2.4.
 *
 * Written here because no Debian library implements this variant (libmspack covers LZX
 * and Xpress-Huffman, not plain LZ77).  ETW uses it for compressed .etl buffers
 * (BufferFlag 0x40); the inverse is lzxpress_plain_decompress in the shared etlscan.py.
 *
 * Stream format (what the decoder expects):
 *   - a u32 LE flag word announces the next 32 symbols, most significant bit first:
 *     0 = one literal byte, 1 = a match;
 *   - a match is a u16 LE: (distance - 1) << 3 | min(length - 3, 7), distance 1..8192;
 *     if the low 3 bits are 7, the length continues in a 4-bit field (two matches share
 *     one byte: the first uses the low nibble of a byte written at that point, the
 *     second the high nibble of the same byte); nibble 15 continues in a byte; byte
 *     255 continues in a u16 holding length - 3, and u16 0 in a u32 holding length - 3.
 *   - the flag word for the next group is reserved as soon as 32 symbols are written,
 *     and the unused bits of the last flag word are set to 1: a decoder that meets a
 *     match flag at the end of its input stops there (MS-XCA 2.4), so a trailing flag
 *     word of all ones is a clean end marker.
 *
 * Match finding: greedy, 3-byte hash with chains limited to the 8 KiB window.  Simple,
 * deterministic, good enough for trace buffers (which compress 3-6x).
 */
#include "lzx_compress.h"

#include <stdlib.h>
#include <string.h>

#define WINDOW 8192u            /* largest distance a match can encode */
#define HASH_BITS 13u
#define HASH_SIZE (1u << HASH_BITS)
#define MAX_CHAIN 48u           /* candidates examined per position */
#define MIN_MATCH 3u

struct lzx_compressor {
    int32_t head[HASH_SIZE];    /* newest position with this hash, or -1 */
    int32_t prev[WINDOW];       /* older position with the same hash, by pos % WINDOW */
};

/* Output cursor with a hard bound; `ok` drops to 0 on the first write that would not fit. */
struct out {
    uint8_t *p;
    size_t len, cap;
    int ok;
    size_t flag_pos;            /* where the current flag word goes */
    uint32_t flags;
    unsigned nflags;            /* symbols recorded in `flags` */
    size_t nibble_pos;          /* byte with a free high nibble, or SIZE_MAX */
};

lzx_compressor *lzx_compressor_new(void)
{
    return calloc(1, sizeof(lzx_compressor));
}

void lzx_compressor_free(lzx_compressor *c)
{
    free(c);
}

size_t lzx_compress_bound(size_t n)
{
    /* All literals: n bytes + one flag word per 32 symbols + the final flag word. */
    return n + 4 * (n / 32) + 8;
}

static void put_byte(struct out *o, uint8_t v)
{
    if (!o->ok || o->len >= o->cap) {
        o->ok = 0;
        return;
    }
    o->p[o->len++] = v;
}

static void put_le(struct out *o, uint32_t v, unsigned nbytes)
{
    for (unsigned i = 0; i < nbytes; i++)
        put_byte(o, (uint8_t)(v >> (8 * i)));
}

static void store_flags(struct out *o, uint32_t flags)
{
    if (!o->ok || o->flag_pos + 4 > o->len)
        return;
    for (unsigned i = 0; i < 4; i++)
        o->p[o->flag_pos + i] = (uint8_t)(flags >> (8 * i));
}

/* Record one symbol's flag bit; after 32, store the word and reserve the next one. */
static void push_flag(struct out *o, unsigned bit)
{
    o->flags = (o->flags << 1) | bit;
    if (++o->nflags == 32) {
        store_flags(o, o->flags);
        o->flags = 0;
        o->nflags = 0;
        o->flag_pos = o->len;
        put_le(o, 0, 4);
    }
}

static void emit_literal(struct out *o, uint8_t v)
{
    put_byte(o, v);
    push_flag(o, 0);
}

static void emit_match(struct out *o, uint32_t distance, uint32_t length)
{
    uint32_t l = length - MIN_MATCH;
    uint32_t token = (distance - 1) << 3;

    if (l < 7) {
        put_le(o, token | l, 2);
    } else {
        put_le(o, token | 7, 2);
        uint32_t rest = l - 7;
        uint32_t nib = rest < 15 ? rest : 15;
        if (o->nibble_pos == SIZE_MAX) {
            o->nibble_pos = o->len;
            put_byte(o, (uint8_t)nib);
        } else {
            if (o->ok && o->nibble_pos < o->len)
                o->p[o->nibble_pos] |= (uint8_t)(nib << 4);
            o->nibble_pos = SIZE_MAX;
        }
        if (rest >= 15) {
            rest -= 15;
            if (rest < 255) {
                put_byte(o, (uint8_t)rest);
            } else {
                put_byte(o, 255);
                /* The wide forms carry length - 3 itself, not the remainder. */
                if (l <= 0xFFFF) {
                    put_le(o, l, 2);
                } else {
                    put_le(o, 0, 2);
                    put_le(o, l, 4);
                }
            }
        }
    }
    push_flag(o, 1);
}

static uint32_t hash3(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16);
    return (v * 2654435761u) >> (32 - HASH_BITS);
}

static void insert(lzx_compressor *c, const uint8_t *in, size_t n, size_t pos)
{
    if (pos + MIN_MATCH > n)
        return;
    uint32_t h = hash3(in + pos);
    c->prev[pos % WINDOW] = c->head[h];
    c->head[h] = (int32_t)pos;
}

/* Longest match for in[pos..] among earlier positions with the same hash. */
static uint32_t find_match(const lzx_compressor *c, const uint8_t *in, size_t n, size_t pos,
                           uint32_t *distance)
{
    uint32_t best = 0;
    if (pos + MIN_MATCH > n)
        return 0;
    int32_t cand = c->head[hash3(in + pos)];
    for (unsigned steps = 0; cand >= 0 && steps < MAX_CHAIN; steps++) {
        size_t cp = (size_t)cand;
        if (cp >= pos || pos - cp > WINDOW)
            break;
        size_t len = 0;
        size_t max = n - pos;
        while (len < max && in[cp + len] == in[pos + len])
            len++;
        if (len > best) {
            best = (uint32_t)len;
            *distance = (uint32_t)(pos - cp);
            if (len == max)
                break;
        }
        int32_t next = c->prev[cp % WINDOW];
        /* A slot overwritten by a newer position breaks the chain: stop there. */
        if (next >= cand)
            break;
        cand = next;
    }
    return best >= MIN_MATCH ? best : 0;
}

size_t lzx_compress(lzx_compressor *c, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    if (c == NULL || out == NULL || (in == NULL && n > 0) || n >= 0x7FFFFFFFu)
        return 0;
    for (size_t i = 0; i < HASH_SIZE; i++)
        c->head[i] = -1;

    struct out o = { .p = out, .cap = cap, .ok = 1, .nibble_pos = SIZE_MAX };
    o.flag_pos = 0;
    put_le(&o, 0, 4);

    size_t pos = 0;
    while (pos < n && o.ok) {
        uint32_t distance = 0;
        uint32_t len = find_match(c, in, n, pos, &distance);
        if (len == 0) {
            emit_literal(&o, in[pos]);
            insert(c, in, n, pos);
            pos++;
            continue;
        }
        emit_match(&o, distance, len);
        for (uint32_t i = 0; i < len; i++)
            insert(c, in, n, pos + i);
        pos += len;
    }

    /* Pad the last flag word with ones (0xFFFFFFFF when it holds no symbol). */
    uint32_t last = o.nflags == 0 ? 0xFFFFFFFFu
                                  : (o.flags << (32 - o.nflags)) | ((1u << (32 - o.nflags)) - 1);
    store_flags(&o, last);
    return o.ok ? o.len : 0;
}
