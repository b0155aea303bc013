/*
 * etlwriter.c - the trace: configuration, buffers, the logfile header, sinks and the
 * statistics the writer keeps about what it wrote.  Record encoders live in
 * etlrecords.c, TraceLogging and EventSource helpers in etltracelogging.c.
 *
 * The buffer layout (HEADER buffer, per-CPU buffers, alignment, 0xFF slack, compressed
 * buffers as relogging with EVENT_TRACE_COMPRESSED_MODE writes them, the final logfile facts)
 * is the decoder library's writer, decoder/write/writer.c (etl_write.h), which the relogger
 * shares; this file builds the logfile header record it starts from and hands it records.
 */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L

#include "etlwriter_internal.h"
#include "etl_write.h"
#include "lzx_compress.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>


const char *etlw_strerror(int status)
{
    switch (status) {
    case ETLW_OK: return "ok";
    case ETLW_E_ARG: return "invalid argument";
    case ETLW_E_NOMEM: return "out of memory";
    case ETLW_E_TOO_BIG: return "record or item too large";
    case ETLW_E_IO: return "write failed";
    case ETLW_E_STATE: return "writer failed or closed";
    default: return "unknown error";
    }
}

/* ---- GUIDs ----------------------------------------------------------------------- */

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int etlw_guid_parse(const char *text, etlw_guid *out)
{
    /* Positions of the 32 hex digits in the 36-character form. */
    static const unsigned char pos[16] = { 0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34 };
    uint8_t b[16];
    if (text == NULL || out == NULL)
        return -1;
    int braced = text[0] == '{';
    const char *s = text + braced;
    if (strlen(s) != 36u + (unsigned)braced || s[8] != '-' || s[13] != '-' || s[18] != '-' ||
        s[23] != '-' || (braced && s[36] != '}'))
        return -1;
    for (int i = 0; i < 16; i++) {
        int hi = hex_digit(s[pos[i]]), lo = hex_digit(s[pos[i] + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    /* Text order is big-endian for all fields; the stored form swaps the first three. */
    out->d1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    out->d2 = (uint16_t)(b[4] << 8 | b[5]);
    out->d3 = (uint16_t)(b[6] << 8 | b[7]);
    memcpy(out->d4, b + 8, 8);
    return 0;
}

void etlw_guid_format(const etlw_guid *g, char out[37])
{
    snprintf(out, 37, "%08lx-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             (unsigned long)g->d1, g->d2, g->d3, g->d4[0], g->d4[1], g->d4[2], g->d4[3],
             g->d4[4], g->d4[5], g->d4[6], g->d4[7]);
}

int etlw_guid_equal(const etlw_guid *a, const etlw_guid *b)
{
    return a->d1 == b->d1 && a->d2 == b->d2 && a->d3 == b->d3 && memcmp(a->d4, b->d4, 8) == 0;
}

/* ---- bounded byte builder ---------------------------------------------------------- */

void etlw_bytes_init(etlw_bytes *b, void *storage, size_t cap)
{
    b->data = storage;
    b->len = 0;
    b->cap = storage ? cap : 0;
    b->overflow = 0;
}

void etlw_bytes_reset(etlw_bytes *b)
{
    b->len = 0;
    b->overflow = 0;
}

/* Room for n more bytes?  Sets the sticky overflow flag when not. */
static uint8_t *reserve(etlw_bytes *b, size_t n)
{
    if (b->overflow || n > b->cap - b->len) {
        b->overflow = 1;
        return NULL;
    }
    uint8_t *p = b->data + b->len;
    b->len += n;
    return p;
}

void etlw_put(etlw_bytes *b, const void *p, size_t n)
{
    uint8_t *d = reserve(b, n);
    if (d && n)
        memcpy(d, p, n);
}

void etlw_put_fill(etlw_bytes *b, uint8_t value, size_t n)
{
    uint8_t *d = reserve(b, n);
    if (d && n)
        memset(d, value, n);
}

void etlw_put_u8(etlw_bytes *b, uint8_t v)
{
    uint8_t *d = reserve(b, 1);
    if (d)
        d[0] = v;
}

void etlw_put_u16(etlw_bytes *b, uint16_t v)
{
    uint8_t *d = reserve(b, 2);
    if (d)
        etlw_st16(d, v);
}

void etlw_put_u32(etlw_bytes *b, uint32_t v)
{
    uint8_t *d = reserve(b, 4);
    if (d)
        etlw_st32(d, v);
}

void etlw_put_u64(etlw_bytes *b, uint64_t v)
{
    uint8_t *d = reserve(b, 8);
    if (d)
        etlw_st64(d, v);
}

void etlw_put_f32(etlw_bytes *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u); /* host float is IEEE-754 binary32 on every target we build */
    etlw_put_u32(b, u);
}

void etlw_put_f64(etlw_bytes *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    etlw_put_u64(b, u);
}

void etlw_put_ptr(etlw_bytes *b, unsigned pointer_size, uint64_t v)
{
    if (pointer_size == 4)
        etlw_put_u32(b, (uint32_t)v);
    else
        etlw_put_u64(b, v);
}

void etlw_put_guid(etlw_bytes *b, const etlw_guid *g)
{
    uint8_t *d = reserve(b, 16);
    if (d) {
        etlw_st32(d, g->d1);
        etlw_st16(d + 4, g->d2);
        etlw_st16(d + 6, g->d3);
        memcpy(d + 8, g->d4, 8);
    }
}

void etlw_put_strz(etlw_bytes *b, const char *s)
{
    etlw_put(b, s, strlen(s) + 1);
}

/* Next code point of a UTF-8 string; malformed input yields U+FFFD for one byte. */
static uint32_t utf8_next(const unsigned char **sp)
{
    const unsigned char *s = *sp;
    uint32_t c = s[0];
    unsigned n;
    uint32_t min;
    if (c < 0x80) {
        *sp = s + 1;
        return c;
    } else if ((c & 0xE0) == 0xC0) {
        n = 1; c &= 0x1F; min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 2; c &= 0x0F; min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 3; c &= 0x07; min = 0x10000;
    } else {
        *sp = s + 1;
        return 0xFFFD;
    }
    for (unsigned i = 1; i <= n; i++) {
        if ((s[i] & 0xC0) != 0x80) { /* also stops at the terminating NUL */
            *sp = s + 1;
            return 0xFFFD;
        }
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        *sp = s + 1;
        return 0xFFFD;
    }
    *sp = s + 1 + n;
    return c;
}

size_t etlw_utf16_units(const char *utf8)
{
    size_t n = 0;
    const unsigned char *s = (const unsigned char *)utf8;
    while (*s)
        n += utf8_next(&s) >= 0x10000 ? 2 : 1;
    return n;
}

void etlw_put_utf16(etlw_bytes *b, const char *utf8)
{
    const unsigned char *s = (const unsigned char *)utf8;
    while (*s && !b->overflow) {
        uint32_t c = utf8_next(&s);
        if (c >= 0x10000) {
            c -= 0x10000;
            etlw_put_u16(b, (uint16_t)(0xD800 | (c >> 10)));
            etlw_put_u16(b, (uint16_t)(0xDC00 | (c & 0x3FF)));
        } else {
            etlw_put_u16(b, (uint16_t)c);
        }
    }
}

void etlw_put_utf16z(etlw_bytes *b, const char *utf8)
{
    etlw_put_utf16(b, utf8);
    etlw_put_u16(b, 0);
}

void etlw_put_counted_utf16(etlw_bytes *b, const char *utf8)
{
    size_t units = etlw_utf16_units(utf8);
    if (units > 0xFFFF / 2) {
        b->overflow = 1;
        return;
    }
    etlw_put_u16(b, (uint16_t)(units * 2));
    etlw_put_utf16(b, utf8);
}

void etlw_put_counted(etlw_bytes *b, const void *p, uint16_t n)
{
    etlw_put_u16(b, n);
    etlw_put(b, p, n);
}

void etlw_put_sid(etlw_bytes *b, uint64_t authority, const uint32_t *subs, unsigned n)
{
    if (n > 15 || authority >> 48) { /* SID_MAX_SUB_AUTHORITIES; 48-bit authority */
        b->overflow = 1;
        return;
    }
    etlw_put_u8(b, 1);
    etlw_put_u8(b, (uint8_t)n);
    for (int i = 5; i >= 0; i--) /* IdentifierAuthority is big-endian */
        etlw_put_u8(b, (uint8_t)(authority >> (8 * i)));
    for (unsigned i = 0; i < n; i++)
        etlw_put_u32(b, subs[i]);
}

void etlw_patch_u16(etlw_bytes *b, size_t off, uint16_t v)
{
    if (b->overflow || off > b->len || b->len - off < 2) {
        b->overflow = 1;
        return;
    }
    etlw_st16(b->data + off, v);
}

/* ---- sinks ------------------------------------------------------------------------- */

static int mem_write(void *ctx, uint64_t off, const void *data, size_t len)
{
    etlw_mem *m = ctx;
    if (off > m->max || len > m->max - off)
        return -1;
    size_t end = (size_t)off + len;
    if (end > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < end)
            cap = cap > m->max / 2 ? m->max : cap * 2;
        uint8_t *p = realloc(m->data, cap);
        if (p == NULL)
            return -1;
        m->data = p;
        m->cap = cap;
    }
    if ((size_t)off > m->len) /* never happens with this writer; keep the image defined */
        memset(m->data + m->len, 0, (size_t)off - m->len);
    if (len)
        memcpy(m->data + off, data, len);
    if (end > m->len)
        m->len = end;
    return 0;
}

etlw_sink etlw_mem_sink(etlw_mem *m, size_t max_bytes)
{
    m->data = NULL;
    m->len = m->cap = 0;
    m->max = max_bytes;
    return (etlw_sink){ mem_write, m };
}

void etlw_mem_release(etlw_mem *m)
{
    free(m->data);
    m->data = NULL;
    m->len = m->cap = 0;
}

/* The file sink is the library's (etl_write.h); etlw_file is its state. */
etlw_sink etlw_file_sink(etlw_file *state, FILE *f)
{
    etl_write_sink s = etl_write_file_sink(state, f);
    return (etlw_sink){ s.write_at, s.ctx };
}

static int null_write(void *ctx, uint64_t off, const void *data, size_t len)
{
    uint64_t *size = ctx;
    (void)data;
    if (off + len > *size)
        *size = off + len;
    return 0;
}

etlw_sink etlw_null_sink(uint64_t *size)
{
    *size = 0;
    return (etlw_sink){ null_write, size };
}

/* ---- configuration ------------------------------------------------------------------- */

void etlw_config_init(etlw_config *c)
{
    memset(c, 0, sizeof *c);
    c->pointer_size = 8;
    c->clock_type = ETLW_CLOCK_QPC;
    c->perf_freq = 10000000;
    c->cpu_speed_mhz = 3000;
    c->buffer_size = 64 * 1024;
    c->num_cpus = 1;
    c->logger_id = 0x20;
    /* 2024-01-02T03:04:05Z; boot one hour earlier, QPC counting from boot. */
    c->start_time = 133486382450000000LL;
    c->boot_time = c->start_time - 36000000000LL;
    c->header_timestamp = 36000000000LL;
    c->os_major = 10;
    c->os_minor = 0;
    c->os_build = 19045;
    c->timer_resolution = 156250;
    c->log_file_mode = ETLW_LOGFILE_MODE_SEQUENTIAL;
    c->tz_standard_name = "Coordinated Universal Time";
    c->tz_daylight_name = "Coordinated Universal Time";
    c->logger_name = "etlshark";
    c->log_file_name = "C:\\etlshark\\trace.etl";
}

static int config_valid(const etlw_config *c)
{
    return (c->pointer_size == 4 || c->pointer_size == 8) &&
           c->clock_type >= ETLW_CLOCK_QPC && c->clock_type <= ETLW_CLOCK_CYCLES &&
           (c->clock_type != ETLW_CLOCK_CYCLES || c->cpu_speed_mhz != 0) &&
           c->buffer_size % 8 == 0 && c->buffer_size >= 512 && c->buffer_size <= (64u << 20) &&
           c->num_cpus >= 1 && c->num_cpus <= 256;
}

unsigned etlw_pointer_size(const etlw_writer *w)
{
    return w->cfg.pointer_size;
}

int64_t etlw_now(const etlw_writer *w)
{
    return w->now;
}

unsigned etlw__bits(const etlw_writer *w, unsigned bits)
{
    if (bits == 0)
        return w->cfg.pointer_size * 8;
    return bits == 32 || bits == 64 ? bits : 0;
}

int etlw__usable(const etlw_writer *w)
{
    return w != NULL && w->status == ETLW_OK && !w->closed;
}

int etlw_status(const etlw_writer *w)
{
    return w ? w->status : ETLW_E_ARG;
}

const etlw_stats *etlw_get_stats(const etlw_writer *w)
{
    return &w->stats;
}

/* Raw clock ticks -> 100-ns units (format doc §4), without 64-bit overflow for sane values. */
static int64_t ticks_to_100ns(const etlw_config *c, int64_t ticks)
{
    switch (c->clock_type) {
    case ETLW_CLOCK_SYSTEM:
        return ticks;
    case ETLW_CLOCK_CYCLES:
        return ticks / (int64_t)c->cpu_speed_mhz * 10 + ticks % (int64_t)c->cpu_speed_mhz * 10 / (int64_t)c->cpu_speed_mhz;
    default: {
        int64_t f = (int64_t)c->perf_freq;
        return ticks / f * 10000000 + ticks % f * 10000000 / f;
    }
    }
}

/* ---- statistics ---------------------------------------------------------------------- */

void etlw__count_record(etlw_writer *w, unsigned header_type)
{
    w->stats.records++;
    w->stats.header_types[header_type & 0xFF]++;
}

static void count_provider_key(etlw_writer *w, int unknown_group, const etlw_guid *g)
{
    etlw_stats *s = &w->stats;
    static const etlw_guid zero;
    const etlw_guid *key = g ? g : &zero;
    if (w->last_provider < s->nproviders) {
        etlw_provider_count *p = &s->providers[w->last_provider];
        if (p->unknown_kernel_group == unknown_group && etlw_guid_equal(&p->guid, key)) {
            p->count++;
            return;
        }
    }
    for (size_t i = 0; i < s->nproviders; i++) {
        etlw_provider_count *p = &s->providers[i];
        if (p->unknown_kernel_group == unknown_group && etlw_guid_equal(&p->guid, key)) {
            p->count++;
            w->last_provider = i;
            return;
        }
    }
    if (s->nproviders == ETLW_MAX_PROVIDERS) {
        s->providers_overflow = 1;
        return;
    }
    etlw_provider_count *p = &s->providers[s->nproviders];
    p->unknown_kernel_group = unknown_group;
    p->guid = *key;
    p->count = 1;
    w->last_provider = s->nproviders++;
}

void etlw__count_provider(etlw_writer *w, const etlw_guid *g)
{
    count_provider_key(w, -1, g);
}

void etlw__count_kernel_group(etlw_writer *w, unsigned group)
{
    etlw_guid g;
    if (etlw_kernel_group_guid(group, &g) == 0)
        count_provider_key(w, -1, &g);
    else
        count_provider_key(w, (int)(group & 0xFF), NULL);
}

void etlw__count_ext(etlw_writer *w, unsigned ext_type)
{
    w->stats.ext_types[ext_type > 255 ? 255 : ext_type]++;
}

/* ---- output: the decoder library's writer ------------------------------------------------- */

/* The library's statistics are the writer's buffers and file size. */
static void sync_stats(etlw_writer *w)
{
    if (w->lw == NULL)
        return;
    const etl_write_stats *ls = etl_writer_stats(w->lw);
    w->stats.buffers = ls->buffers;
    w->stats.compressed_buffers = ls->compressed_buffers;
    w->stats.file_size = ls->file_size;
}

/* A library status as the generator's: sink and memory failures poison the writer. */
static int from_library(etlw_writer *w, etl_status st)
{
    sync_stats(w);
    switch (st) {
    case ETL_OK: return ETLW_OK;
    case ETL_ERR_LIMIT: return ETLW_E_TOO_BIG;
    case ETL_ERR_ARG: return ETLW_E_ARG;
    case ETL_ERR_NOMEM: w->status = ETLW_E_NOMEM; return ETLW_E_NOMEM;
    default: w->status = ETLW_E_IO; return ETLW_E_IO;
    }
}

static size_t compress_region(void *ctx, const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    return lzx_compress(ctx, in, len, out, cap);
}

int etlw_flush_cpu(etlw_writer *w, unsigned cpu, int64_t timestamp)
{
    if (!etlw__usable(w))
        return ETLW_E_STATE;
    if (cpu >= w->cfg.num_cpus)
        return ETLW_E_ARG;
    if (timestamp > w->now)
        w->now = timestamp;
    return from_library(w, etl_writer_flush_cpu(w->lw, cpu, timestamp, NULL));
}

int etlw__place(etlw_writer *w, unsigned cpu, const uint8_t *rec, size_t len, int has_ts,
                int64_t ts)
{
    if (!etlw__usable(w))
        return ETLW_E_STATE;
    if (cpu >= w->cfg.num_cpus)
        return ETLW_E_ARG;
    etl_status st = etl_writer_add(w->lw, cpu, rec, len, has_ts, ts, NULL);
    if (st == ETL_ERR_LIMIT)
        w->stats.dropped++; /* real ETW drops an event that cannot fit one buffer: lost */
    else if (st == ETL_OK && has_ts && ts > w->now)
        w->now = ts;
    return from_library(w, st);
}

/* ---- the logfile header record ------------------------------------------------------------- */

static void put_tz_name(etlw_bytes *b, const char *name)
{
    /* WCHAR[32], NUL-terminated, truncated to 31 units. */
    uint8_t tmp[64];
    etlw_bytes t;
    etlw_bytes_init(&t, tmp, 62);
    etlw_put_utf16(&t, name ? name : "");
    size_t n = t.overflow ? 62 : t.len;
    etlw_put(b, tmp, n);
    etlw_put_fill(b, 0, 64 - n);
}

/* SYSTEM_TRACE_HEADER (HookId 0) + TRACE_LOGFILE_HEADER + logger and file names, built in the
 * record scratch area; the library writer places it in the HEADER buffer. */
static int build_header_record(etlw_writer *w, etlw_bytes *r)
{
    const etlw_config *c = &w->cfg;
    const char *logger = c->logger_name ? c->logger_name : "";
    const char *file = c->log_file_name ? c->log_file_name : "";
    unsigned ps = c->pointer_size;
    etlw_bytes_init(r, w->record, ETLW_MAX_RECORD);

    /* Marker 0xC0020002 / 0xC0010002: Version 2, SYSTEM64/32, flags 0xC0. */
    etlw_put_u16(r, 2);
    etlw_put_u8(r, ps == 8 ? ETLW_HT_SYSTEM64 : ETLW_HT_SYSTEM32);
    etlw_put_u8(r, 0xC0);
    etlw_put_u16(r, 0);  /* Size, patched below */
    etlw_put_u16(r, 0);  /* HookId 0x0000: group HEADER, type INFO */
    etlw_put_u32(r, c->header_tid);
    etlw_put_u32(r, c->header_pid);
    etlw_put_u64(r, (uint64_t)c->header_timestamp);
    etlw_put_u32(r, 0);  /* KernelTime */
    etlw_put_u32(r, 0);  /* UserTime */

    etlw_put_u32(r, c->buffer_size);
    etlw_put_u8(r, c->os_major);
    etlw_put_u8(r, c->os_minor);
    etlw_put_u8(r, c->os_sub);
    etlw_put_u8(r, c->os_subminor);
    etlw_put_u32(r, c->os_build);
    etlw_put_u32(r, c->num_cpus);
    etlw_put_u64(r, 0);  /* EndTime, set on close */
    etlw_put_u32(r, c->timer_resolution);
    etlw_put_u32(r, 0);  /* MaximumFileSize */
    etlw_put_u32(r, c->log_file_mode | (c->compressed ? ETLW_LOGFILE_MODE_COMPRESSED : 0));
    etlw_put_u32(r, 0);  /* BuffersWritten, set on close */
    etlw_put_u32(r, 1);  /* StartBuffers */
    etlw_put_u32(r, ps);
    etlw_put_u32(r, 0);  /* EventsLost, set on close */
    etlw_put_u32(r, c->cpu_speed_mhz);
    etlw_put_ptr(r, ps, 0); /* LoggerName pointer slot: meaningless in a file */
    etlw_put_ptr(r, ps, 0); /* LogFileName pointer slot */
    /* TIME_ZONE_INFORMATION, 0xAC bytes, then 4 bytes of alignment. */
    etlw_put_u32(r, (uint32_t)c->tz_bias_minutes);
    put_tz_name(r, c->tz_standard_name);
    etlw_put_fill(r, 0, 16); /* StandardDate */
    etlw_put_u32(r, 0);      /* StandardBias */
    put_tz_name(r, c->tz_daylight_name);
    etlw_put_fill(r, 0, 16); /* DaylightDate */
    etlw_put_u32(r, 0);      /* DaylightBias */
    etlw_put_u32(r, 0);      /* padding */
    etlw_put_u64(r, (uint64_t)c->boot_time);
    etlw_put_u64(r, c->perf_freq);
    etlw_put_u64(r, (uint64_t)c->start_time);
    etlw_put_u32(r, c->clock_type); /* ReservedFlags = clock type */
    etlw_put_u32(r, c->buffers_lost);
    if (!r->overflow && r->len != 0x20u + (ps == 8 ? 0x118u : 0x110u))
        return ETLW_E_ARG; /* layout slip: the struct sizes are fixed by the format */
    etlw_put_utf16z(r, logger);
    etlw_put_utf16z(r, file);
    if (r->overflow || r->len > ETLW_MAX_RECORD ||
        ETLW_BUFFER_HEADER_SIZE + ((r->len + 7) & ~(size_t)7) > c->buffer_size)
        return ETLW_E_TOO_BIG;
    etlw_patch_u16(r, 4, (uint16_t)r->len);
    return ETLW_OK;
}

/* ---- lifecycle --------------------------------------------------------------------------- */

int etlw_open(etlw_writer **out, const etlw_config *cfg, etlw_sink sink)
{
    if (out == NULL || cfg == NULL || sink.write_at == NULL)
        return ETLW_E_ARG;
    *out = NULL;
    if (!config_valid(cfg))
        return ETLW_E_ARG;
    etlw_writer *w = calloc(1, sizeof *w);
    if (w == NULL)
        return ETLW_E_NOMEM;
    w->cfg = *cfg;
    if (w->cfg.perf_freq == 0)
        w->cfg.perf_freq = 10000000;
    w->sink = sink;
    w->now = cfg->header_timestamp;
    w->record = malloc(ETLW_MAX_RECORD);
    w->ext = malloc(ETLW_MAX_RECORD);
    w->meta = malloc(ETLW_MAX_RECORD);
    int rc = ETLW_OK;
    if (!w->record || !w->ext || !w->meta)
        rc = ETLW_E_NOMEM;
    if (rc == ETLW_OK && cfg->compressed) {
        w->lzx = lzx_compressor_new();
        if (!w->lzx)
            rc = ETLW_E_NOMEM;
    }
    etlw_bytes hdr;
    if (rc == ETLW_OK)
        rc = build_header_record(w, &hdr);
    if (rc == ETLW_OK) {
        etl_write_config lc = {
            .buffer_size = cfg->buffer_size,
            .max_cpus = cfg->num_cpus,
            .logger_id = cfg->logger_id,
            .compress = cfg->compressed ? compress_region : NULL,
            .compress_ctx = w->lzx,
            .compress_bound = cfg->compressed ? lzx_compress_bound(cfg->buffer_size) : 0,
        };
        etl_status st = etl_writer_open(&lc, (etl_write_sink){ sink.write_at, sink.ctx }, hdr.data, hdr.len,
                                        &w->lw, NULL);
        rc = st == ETL_OK ? ETLW_OK : st == ETL_ERR_NOMEM ? ETLW_E_NOMEM : st == ETL_ERR_IO ? ETLW_E_IO : ETLW_E_ARG;
    }
    if (rc != ETLW_OK) {
        etlw_destroy(w);
        return rc;
    }
    sync_stats(w);
    etlw__count_record(w, cfg->pointer_size == 8 ? ETLW_HT_SYSTEM64 : ETLW_HT_SYSTEM32);
    etlw__count_kernel_group(w, 0);
    *out = w;
    return ETLW_OK;
}

int etlw_close(etlw_writer *w)
{
    if (w == NULL)
        return ETLW_E_ARG;
    if (w->closed || w->status != ETLW_OK)
        return w->status;
    const etlw_config *c = &w->cfg;
    uint64_t lost = (uint64_t)c->events_lost + w->stats.dropped;
    etl_write_final fin = {
        .set_end_time = true,
        .end_time = c->end_time ? c->end_time
                                : c->start_time + ticks_to_100ns(c, w->now - c->header_timestamp),
        .set_events_lost = true,
        .events_lost = lost > UINT32_MAX ? UINT32_MAX : (uint32_t)lost,
    };
    /* The library flushes with its own notion of now, which equals ours: both take the largest
     * timestamp of every placed record and every explicit flush. */
    int rc = from_library(w, etl_writer_close(w->lw, &fin, NULL));
    w->closed = 1;
    return rc;
}

void etlw_destroy(etlw_writer *w)
{
    if (w == NULL)
        return;
    etl_writer_free(w->lw);
    free(w->record);
    free(w->ext);
    free(w->meta);
    lzx_compressor_free(w->lzx);
    free(w);
}
