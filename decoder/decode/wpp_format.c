/* wpp_format.c - WPP format strings rendered (wpp_format.h), and the names of the MESSAGE option
 * flags (wpp.h).  Written by hand: tracefmt's formatting is Windows-only and undocumented beyond
 * the WPP format specifications; the rules and the readings chosen are in docs/wpp.md. */
#include "wpp_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_format.h"
#include "fields.h"
#include "value_format.h"
#include "wpp.h"

/* ---- option flag names ---------------------------------------------------------------------- */

size_t etl_wpp_flags_text(uint16_t flags, char *out, size_t cap)
{
    static const char *const names[8] = {"SEQUENCE",   "GUID",       "COMPONENTID", "TIMESTAMP",
                                         "PERFORMANCE_TIMESTAMP", "SYSTEMINFO", "POINTER32",
                                         "POINTER64"};
    size_t n = 0;
    if (!cap)
        return 0;
    out[0] = '\0';
    for (unsigned bit = 0; bit < 16; bit++) {
        if (!(flags & (1u << bit)))
            continue;
        char unknown[8];
        const char *name = bit < 8 ? names[bit] : (snprintf(unknown, sizeof unknown, "0x%04X", 1u << bit), unknown);
        int w = snprintf(out + n, cap - n, "%s%s", n ? "|" : "", name);
        if (w < 0 || (size_t)w >= cap - n) {
            out[n] = '\0';
            break;
        }
        n += (size_t)w;
    }
    return n;
}

const char *etl_tmf_env_path(void)
{
    const char *p = getenv(ETL_TMF_ENV);
    return p && *p ? p : NULL;
}

/* ---- output --------------------------------------------------------------------------------- */

typedef struct out_buf {
    char *p;
    size_t cap, len;
    bool full;
} out_buf;

static void put(out_buf *o, const char *s, size_t n)
{
    if (o->full || !o->cap)
        return;
    size_t room = o->cap - 1 - o->len;
    if (n > room) {
        /* cut at a character boundary: drop UTF-8 continuation bytes left dangling */
        n = room;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        o->full = true;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
    o->p[o->len] = '\0';
}

static void puts_(out_buf *o, const char *s)
{
    if (s)
        put(o, s, strlen(s));
}

/* ---- a printf conversion -------------------------------------------------------------------- */

typedef struct conv {
    char flags[6];
    int width, precision; /* -1 when absent */
    char type;            /* d i u x X o c s S p e E f g G; 0 when the spec is not understood */
} conv;

/* Parse "012I64X", "s", "-10.4s", "p" ... (the text between the two '!'). */
static conv parse_conv(const char *b, const char *e)
{
    conv c = {{0}, -1, -1, 0};
    size_t nf = 0;
    while (b < e && strchr("-+ #0", *b)) {
        if (nf < sizeof c.flags - 1 && !strchr(c.flags, *b))
            c.flags[nf++] = *b;
        b++;
    }
    if (b < e && *b >= '0' && *b <= '9') {
        c.width = 0;
        while (b < e && *b >= '0' && *b <= '9') {
            if (c.width < 1000)
                c.width = c.width * 10 + (*b - '0');
            b++;
        }
    }
    if (b < e && *b == '.') {
        b++;
        c.precision = 0;
        while (b < e && *b >= '0' && *b <= '9') {
            if (c.precision < 1000)
                c.precision = c.precision * 10 + (*b - '0');
            b++;
        }
    }
    /* size letters: the argument's own type decides its width, so they are read and dropped */
    for (;;) {
        if (e - b >= 3 && (memcmp(b, "I64", 3) == 0 || memcmp(b, "I32", 3) == 0))
            b += 3;
        else if (b < e && strchr("IlhwLzjtq", *b))
            b++;
        else
            break;
    }
    if (e - b == 1 && strchr("diuxXocsSpeEfgGZ", *b))
        c.type = *b == 'Z' ? 's' : *b;
    if (c.width > 512)
        c.width = 512;
    if (c.precision > 512)
        c.precision = 512;
    return c;
}

/* snprintf with the conversion's flags, width and precision and `tail` ("llu", "s", "f"...). */
static void spec_of(const conv *c, const char *tail, char *spec, size_t cap)
{
    char w[16] = "", p[16] = "";
    if (c->width >= 0)
        snprintf(w, sizeof w, "%d", c->width);
    if (c->precision >= 0)
        snprintf(p, sizeof p, ".%d", c->precision);
    snprintf(spec, cap, "%%%s%s%s%s", c->flags, w, p, tail);
}

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
static void put_int(out_buf *o, const conv *c, uint64_t u, unsigned bits, bool is_signed)
{
    char spec[48], text[600];
    uint64_t mask = bits >= 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
    u &= mask;
    switch (c->type) {
    case 'd': case 'i': {
        int64_t v = (int64_t)u;
        if (bits < 64 && (u >> (bits - 1)) & 1)
            v = (int64_t)(u | ~mask); /* sign-extend the argument's width */
        if (!is_signed && c->type == 'd' && bits == 64)
            v = (int64_t)u;
        spec_of(c, "lld", spec, sizeof spec);
        snprintf(text, sizeof text, spec, (long long)v);
        break;
    }
    case 'u': spec_of(c, "llu", spec, sizeof spec); snprintf(text, sizeof text, spec, (unsigned long long)u); break;
    case 'x': spec_of(c, "llx", spec, sizeof spec); snprintf(text, sizeof text, spec, (unsigned long long)u); break;
    case 'X': spec_of(c, "llX", spec, sizeof spec); snprintf(text, sizeof text, spec, (unsigned long long)u); break;
    case 'o': spec_of(c, "llo", spec, sizeof spec); snprintf(text, sizeof text, spec, (unsigned long long)u); break;
    case 'c': {
        char ch[2] = {(char)(u & 0xFF), 0};
        if (!ch[0] || (unsigned char)ch[0] >= 0x80)
            ch[0] = '?';
        spec_of(c, "s", spec, sizeof spec);
        snprintf(text, sizeof text, spec, ch);
        break;
    }
    case 'p':
        /* MSVC's printf, which tracefmt's formatting is: the pointer's digits in upper case,
         * zero-padded to its width, no "0x" (so TMFs write "0x%10!p!") */
        snprintf(text, sizeof text, "%0*llX", bits >= 64 ? 16 : 8, (unsigned long long)u);
        break;
    default: /* s and the rest: decimal, with the width */
        spec_of(c, is_signed ? "lld" : "llu", spec, sizeof spec);
        if (is_signed) {
            int64_t v = (int64_t)u;
            if (bits < 64 && (u >> (bits - 1)) & 1)
                v = (int64_t)(u | ~mask);
            snprintf(text, sizeof text, spec, (long long)v);
        } else {
            snprintf(text, sizeof text, spec, (unsigned long long)u);
        }
        break;
    }
    puts_(o, text);
}

static void put_text(out_buf *o, const conv *c, const char *s, size_t n)
{
    if (c->width < 0 && c->precision < 0) {
        put(o, s, n);
        return;
    }
    if (c->precision >= 0 && (size_t)c->precision < n)
        n = (size_t)c->precision;
    size_t pad = c->width > 0 && (size_t)c->width > n ? (size_t)c->width - n : 0;
    bool left = strchr(c->flags, '-') != NULL;
    if (!left)
        for (size_t i = 0; i < pad; i++)
            put(o, " ", 1);
    put(o, s, n);
    if (left)
        for (size_t i = 0; i < pad; i++)
            put(o, " ", 1);
}

static void put_double(out_buf *o, const conv *c, double d)
{
    char spec[48], text[600];
    char t[2] = {c->type, 0};
    spec_of(c, t, spec, sizeof spec);
    snprintf(text, sizeof text, spec, d);
    puts_(o, text);
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* ---- arguments -------------------------------------------------------------------------------- */

static bool is_int_kind(etl_tmf_kind k)
{
    switch (k) {
    case ETL_TMF_INT8: case ETL_TMF_UINT8: case ETL_TMF_INT16: case ETL_TMF_UINT16: case ETL_TMF_INT32:
    case ETL_TMF_UINT32: case ETL_TMF_INT64: case ETL_TMF_UINT64: case ETL_TMF_HEX32: case ETL_TMF_HEX64:
    case ETL_TMF_POINTER: case ETL_TMF_NTSTATUS: case ETL_TMF_WINERROR: case ETL_TMF_HRESULT:
    case ETL_TMF_LIST8: case ETL_TMF_LIST16: case ETL_TMF_LIST32: case ETL_TMF_SET8: case ETL_TMF_SET16:
    case ETL_TMF_SET32: case ETL_TMF_ENUM:
        return true;
    default:
        return false;
    }
}

static bool is_signed_kind(etl_tmf_kind k)
{
    return k == ETL_TMF_INT8 || k == ETL_TMF_INT16 || k == ETL_TMF_INT32 || k == ETL_TMF_INT64;
}

/* Argument `it` (its TMF item `ti`) in conversion c. */
static void put_arg(out_buf *o, const conv *c, const etl_tmf_item *ti, const etl_item *it)
{
    char text[ETL_WPP_MAX_VALUE_TEXT], scratch[ETL_WPP_MAX_VALUE_TEXT]; /* no statics: sessions may be per thread */
    etl_value v;
    etl_value_decode(it, &v, scratch, sizeof scratch);
    bool numeric = c->type && strchr("diuxXocp", c->type);
    bool integer = v.kind == ETL_VALUE_INT || v.kind == ETL_VALUE_UINT;
    uint64_t u = v.kind == ETL_VALUE_INT ? (uint64_t)v.v.i : v.v.u;
    unsigned bits = it->size * 8u;
    if (integer && is_int_kind(ti->kind)) {
        if (ti->kind == ETL_TMF_POINTER && !(numeric && c->type != 'p')) {
            conv pc = *c;
            pc.type = 'p';
            put_int(o, &pc, u, bits, false);
            return;
        }
        if (numeric) {
            put_int(o, c, u, bits, is_signed_kind(ti->kind));
            return;
        }
        if (ti->kind == ETL_TMF_HEX32 || ti->kind == ETL_TMF_HEX64) {
            /* ItemLongLongX/XX and ItemULongX with %s: 0x and the hex digits */
            snprintf(text, sizeof text, "0x%llX", (unsigned long long)u);
            put_text(o, c, text, strlen(text));
            return;
        }
        if (ti->kind <= ETL_TMF_UINT64) {
            put_int(o, c, u, bits, is_signed_kind(ti->kind));
            return;
        }
        /* NTSTATUS, WINERROR, HRESULT, lists, sets, enums with %s: their names, below */
    } else if (v.kind == ETL_VALUE_DOUBLE && c->type && strchr("eEfgG", c->type)) {
        put_double(o, c, v.v.d);
        return;
    } else if (integer && numeric) {
        put_int(o, c, u, bits, v.kind == ETL_VALUE_INT);
        return;
    }
    if (v.kind == ETL_VALUE_GUID) {
        /* the registry form, as Windows writes GUIDs in text (StringFromGUID2) */
        char g[ETL_GUID_BRACED_STR_SIZE];
        etl_format_guid_braced(&v.v.guid, g);
        put_text(o, c, g, strlen(g));
        return;
    }
    size_t n = etl_value_format(it, text, sizeof text);
    put_text(o, c, text, n);
}

/* ---- prefix items and %!NAME! ---------------------------------------------------------------- */

/* "MM/DD/YYYY-HH:MM:SS.mmm" in UTC: tracefmt's %4 is local time; a trace does not say which
 * zone its reader is in, so UTC (docs/wpp.md). */
static void put_time(out_buf *o, const conv *c, const etl_record *rec)
{
    char iso[ETL_TIME_STR_SIZE], t[32];
    if (!rec->has_timestamp || !etl_format_filetime(rec->timestamp, iso)) {
        put_text(o, c, "", 0);
        return;
    }
    /* iso: YYYY-MM-DDTHH:MM:SS.fffffffZ */
    snprintf(t, sizeof t, "%.2s/%.2s/%.4s-%.8s.%.3s", iso + 5, iso + 8, iso, iso + 11, iso + 20);
    put_text(o, c, t, strlen(t));
}

static void put_prefix(out_buf *o, const conv *c, unsigned n, const etl_tmf_message *m, const etl_record *rec)
{
    switch (n) {
    case 1: put_text(o, c, m->section->component, strlen(m->section->component)); return;
    case 2: put_text(o, c, m->type_name, strlen(m->type_name)); return;
    case 3: put_int(o, c, rec->tid == ETL_NO_ID ? 0 : rec->tid, 32, false); return;
    case 4: put_time(o, c, rec); return;
    case 5: put_int(o, c, rec->has_cpu_times ? rec->kernel_time : 0, 32, false); return;
    case 6: put_int(o, c, rec->has_cpu_times ? rec->user_time : 0, 32, false); return;
    case 7: put_int(o, c, rec->has_sequence ? rec->sequence : 0, 32, false); return;
    case 8: put_int(o, c, rec->pid == ETL_NO_ID ? 0 : rec->pid, 32, false); return;
    case 9: put_int(o, c, rec->cpu, 32, false); return;
    default: return;
    }
}

/* %!NAME!: true when NAME is one the TMF gives. */
static bool put_tag(out_buf *o, const char *name, size_t n, const etl_tmf_message *m)
{
    char line[16];
    const char *v = NULL;
    if (n == 4 && memcmp(name, "FUNC", 4) == 0)
        v = m->func;
    else if (n == 5 && memcmp(name, "LEVEL", 5) == 0)
        v = m->level;
    else if (n == 5 && memcmp(name, "FLAGS", 5) == 0)
        v = m->flags;
    else if (n == 4 && memcmp(name, "FILE", 4) == 0)
        v = m->section->src;
    else if (n == 4 && memcmp(name, "LINE", 4) == 0) {
        snprintf(line, sizeof line, "%u", m->source_line);
        v = line;
    } else if (n == 8 && memcmp(name, "COMPNAME", 8) == 0)
        v = m->section->component;
    else
        return false;
    puts_(o, v ? v : "");
    return true;
}

/* ---- the format string ------------------------------------------------------------------------ */

size_t etl_wpp_format(const etl_tmf_message *m, const etl_schema *s, const etl_record *rec, char *out, size_t cap)
{
    out_buf o = {out, cap, 0, false};
    if (cap)
        out[0] = '\0';
    if (!m || !s || !rec || !cap)
        return 0;
    /* the arguments, by their number: the top-level values of the payload in schema order */
    etl_item args[ETL_TMF_MAX_ITEMS];
    const etl_tmf_item *targs[ETL_TMF_MAX_ITEMS];
    unsigned nargs = 0;
    etl_fields f;
    etl_fields_start(&f, s, rec->bytes + rec->payload_offset, rec->payload_size, rec->pointer_size);
    etl_item it;
    while (nargs < ETL_TMF_MAX_ITEMS && nargs < m->item_count) {
        etl_item_kind k = etl_fields_next(&f, &it);
        if (k != ETL_ITEM_VALUE)
            break;
        args[nargs] = it;
        targs[nargs] = &m->items[nargs];
        nargs++;
    }
    const char *p = m->format, *e = m->format + strlen(m->format);
    bool at_start = true;
    while (p < e) {
        const char *pct = memchr(p, '%', (size_t)(e - p));
        if (!pct) {
            put(&o, p, (size_t)(e - p));
            break;
        }
        put(&o, p, (size_t)(pct - p));
        if (pct > p)
            at_start = false;
        const char *q = pct + 1;
        if (q >= e) {
            put(&o, "%", 1);
            break;
        }
        if (*q == '%') {
            put(&o, "%", 1);
            p = q + 1;
            at_start = false;
            continue;
        }
        if (*q == '!') {
            const char *nb = q + 1, *ne = nb;
            while (ne < e && (((*ne | 0x20) >= 'a' && (*ne | 0x20) <= 'z') || *ne == '_' || (*ne >= '0' && *ne <= '9')))
                ne++;
            if (ne < e && *ne == '!' && ne > nb && put_tag(&o, nb, (size_t)(ne - nb), m)) {
                p = ne + 1;
                at_start = false;
                continue;
            }
            put(&o, pct, 1); /* not a tag we know: as written */
            p = q;
            at_start = false;
            continue;
        }
        if (*q < '0' || *q > '9') {
            put(&o, pct, 1);
            p = q;
            at_start = false;
            continue;
        }
        unsigned n = 0;
        const char *d = q;
        while (d < e && *d >= '0' && *d <= '9' && d - q < 3)
            n = n * 10 + (unsigned)(*d++ - '0');
        const char *cb = NULL, *ce = NULL;
        if (d < e && *d == '!') {
            const char *close = memchr(d + 1, '!', (size_t)(e - d - 1));
            if (close) {
                cb = d + 1;
                ce = close;
            }
        }
        const char *after = ce ? ce + 1 : d;
        conv c = cb ? parse_conv(cb, ce) : (conv){{0}, -1, -1, 's'};
        if (n == 0) {
            /* the prefix's place: dropped, with the one space after it at the start */
            p = after;
            if (at_start && p < e && *p == ' ')
                p++;
            continue;
        }
        at_start = false;
        if (n < 10) {
            put_prefix(&o, &c, n, m, rec);
            p = after;
            continue;
        }
        unsigned found = nargs;
        for (unsigned i = 0; i < nargs; i++)
            if (targs[i]->argno == n) {
                found = i;
                break;
            }
        if (found == nargs) {
            put(&o, pct, (size_t)(after - pct)); /* not in the payload: as written */
        } else {
            put_arg(&o, &c, targs[found], &args[found]);
        }
        p = after;
    }
    return o.len;
}
