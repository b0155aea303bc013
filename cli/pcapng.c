/* pcapng.c - the pcapng writer (pcapng.h). */
#include "pcapng.h"

#include <string.h>

enum {
    BLOCK_SHB = 0x0A0D0D0A,
    BLOCK_IDB = 0x00000001,
    BLOCK_EPB = 0x00000006
};
#define BYTE_ORDER_MAGIC 0x1A2B3C4Du
#define SECTION_LENGTH_UNKNOWN UINT64_MAX
/* block type + total length before the body, total length again after it */
#define BLOCK_FRAME 12u

/* A block is built in memory, then written at once: one frame, the options and the data. */
typedef struct block {
    uint8_t *b;
    size_t len, cap;
    bool overflow;
} block;

static void put(block *k, const void *p, size_t n)
{
    if (k->overflow || n > k->cap - k->len) {
        k->overflow = true;
        return;
    }
    memcpy(k->b + k->len, p, n);
    k->len += n;
}
static void put16(block *k, uint16_t v)
{
    uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
    put(k, b, 2);
}
static void put32(block *k, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    put(k, b, 4);
}
static void put64(block *k, uint64_t v)
{
    put32(k, (uint32_t)v);
    put32(k, (uint32_t)(v >> 32));
}
static void pad4(block *k)
{
    static const uint8_t zero[4];
    put(k, zero, (4u - k->len % 4u) % 4u);
}
static void option(block *k, uint16_t code, const void *v, size_t n)
{
    if (n > PCAPNG_MAX_OPTION)
        n = PCAPNG_MAX_OPTION;
    put16(k, code);
    put16(k, (uint16_t)n);
    put(k, v, n);
    pad4(k);
}
static void option_str(block *k, uint16_t code, const char *s)
{
    if (s && *s)
        option(k, code, s, strlen(s));
}

/* Room for the largest block: a frame of 256 KiB plus options. */
#define BLOCK_CAPACITY (256u * 1024u + 4u * PCAPNG_MAX_OPTION + 64u)

static void begin(block *k, uint8_t *storage, uint32_t type)
{
    k->b = storage;
    k->cap = BLOCK_CAPACITY;
    k->len = 0;
    k->overflow = false;
    put32(k, type);
    put32(k, 0); /* total length, patched */
}

static void finish(pcapng_writer *w, block *k, bool has_options)
{
    if (has_options) {
        put16(k, PCAPNG_OPT_END);
        put16(k, 0);
    }
    uint32_t total = (uint32_t)(k->len + 4);
    put32(k, total);
    if (k->overflow) {
        w->failed = true;
        return;
    }
    for (int i = 0; i < 4; i++) /* the total length after the type, known now */
        k->b[4 + i] = (uint8_t)(total >> (8 * i));
    if (!w->failed && fwrite(k->b, 1, k->len, w->f) != k->len)
        w->failed = true;
    w->bytes += k->len;
}

static uint8_t storage[BLOCK_CAPACITY];

void pcapng_init(pcapng_writer *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
}

void pcapng_section(pcapng_writer *w, const char *user_appl)
{
    block k;
    begin(&k, storage, BLOCK_SHB);
    put32(&k, BYTE_ORDER_MAGIC);
    put16(&k, 1); /* major */
    put16(&k, 0); /* minor */
    put64(&k, SECTION_LENGTH_UNKNOWN);
    bool opts = user_appl && *user_appl;
    option_str(&k, PCAPNG_SHB_USERAPPL, user_appl);
    finish(w, &k, opts);
}

void pcapng_interface(pcapng_writer *w, uint16_t link_type, uint32_t snaplen, const char *name,
                      const char *description, unsigned tsresol_exp)
{
    block k;
    begin(&k, storage, BLOCK_IDB);
    put16(&k, link_type);
    put16(&k, 0);
    put32(&k, snaplen);
    size_t before = k.len;
    option_str(&k, PCAPNG_IF_NAME, name);
    option_str(&k, PCAPNG_IF_DESCRIPTION, description);
    if (tsresol_exp != 6) {
        uint8_t r = (uint8_t)tsresol_exp;
        option(&k, PCAPNG_IF_TSRESOL, &r, 1);
    }
    finish(w, &k, k.len != before);
}

void pcapng_packet(pcapng_writer *w, uint32_t interface, uint64_t ts, const uint8_t *data, uint32_t caplen,
                   uint32_t origlen, const pcapng_packet_opts *o)
{
    block k;
    begin(&k, storage, BLOCK_EPB);
    put32(&k, interface);
    put32(&k, (uint32_t)(ts >> 32));
    put32(&k, (uint32_t)ts);
    put32(&k, caplen);
    put32(&k, origlen);
    put(&k, data, caplen);
    pad4(&k);
    size_t before = k.len;
    if (o) {
        option_str(&k, PCAPNG_OPT_COMMENT, o->comment);
        if (o->direction) {
            uint32_t flags = o->direction & 3u;
            uint8_t b[4] = { (uint8_t)flags, 0, 0, 0 };
            option(&k, PCAPNG_EPB_FLAGS, b, 4);
        }
        if (o->has_packet_id) {
            uint8_t b[8];
            for (int i = 0; i < 8; i++)
                b[i] = (uint8_t)(o->packet_id >> (8 * i));
            option(&k, PCAPNG_EPB_PACKETID, b, 8);
        }
        if (o->has_verdict) {
            uint8_t b[1 + sizeof o->verdict];
            size_t n = o->verdict_len < sizeof o->verdict ? o->verdict_len : sizeof o->verdict;
            b[0] = PCAPNG_VERDICT_HARDWARE;
            memcpy(b + 1, o->verdict, n);
            option(&k, PCAPNG_EPB_VERDICT, b, 1 + n);
        }
    }
    finish(w, &k, k.len != before);
}

bool pcapng_ok(const pcapng_writer *w)
{
    return !w->failed;
}
