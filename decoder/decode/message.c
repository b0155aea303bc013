/* message.c - event message strings with their inserts (message.h). */
#include "message.h"

#include <string.h>

#include "fields.h"
#include "value_format.h"

/* Bounded append that keeps the output NUL-terminated and cuts at a character boundary. */
typedef struct out_buf {
    char *p;
    size_t cap, len;
} out_buf;

static void put(out_buf *o, const char *s, size_t n)
{
    if (!o->cap)
        return;
    if (o->len + n + 1 > o->cap) {
        n = o->cap - 1 - o->len;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
    o->p[o->len] = '\0';
}

size_t etl_message_format(const char *msg, const char *(*insert)(void *ctx, unsigned n), void *ctx, char *out,
                          size_t cap)
{
    out_buf o = {out, cap, 0};
    if (cap)
        out[0] = '\0';
    if (!msg)
        return 0;
    for (const char *p = msg; *p;) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            put(&o, p, strlen(p));
            break;
        }
        put(&o, p, (size_t)(pct - p));
        p = pct + 1;
        char c = *p;
        if (c >= '1' && c <= '9') {
            unsigned n = (unsigned)(c - '0');
            const char *start = pct;
            p++;
            if (*p >= '0' && *p <= '9') {
                n = n * 10 + (unsigned)(*p - '0');
                p++;
            }
            if (*p == '!') { /* %1!s!: a printf format for the insert, skipped */
                const char *end = strchr(p + 1, '!');
                if (end)
                    p = end + 1;
            }
            const char *text = insert ? insert(ctx, n) : NULL;
            if (text)
                put(&o, text, strlen(text));
            else
                put(&o, start, (size_t)(p - start)); /* no such field: leave it as written */
            continue;
        }
        switch (c) {
        case '0': return o.len; /* ends the message */
        case 'n': put(&o, "\n", 1); break;
        case 'r': put(&o, "\r", 1); break;
        case 't': put(&o, "\t", 1); break;
        case ' ': put(&o, " ", 1); break;
        case '%': case '.': case '!': put(&o, &c, 1); break;
        case '\0': put(&o, "%", 1); return o.len; /* a lone % at the end */
        default: put(&o, "%", 1); continue;       /* not an escape: keep the % and go on */
        }
        p++;
    }
    return o.len;
}

typedef etl_message_scratch inserts;

static const char *insert_at(void *ctx, unsigned n)
{
    inserts *in = ctx;
    return n >= 1 && n <= in->count && in->have[n] ? in->text + in->off[n] : NULL;
}

/* Append text to the insert being built (the caller terminates it). */
static void ins_put(inserts *in, const char *s, size_t n)
{
    size_t room = sizeof in->text - 1 - in->used;
    if (n > room) {
        n = room;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(in->text + in->used, s, n);
    in->used += n;
}

size_t etl_message_render(const etl_schema *s, const uint8_t *payload, size_t size, uint8_t pointer_size,
                          etl_message_scratch *in, char *out, size_t cap)
{
    if (cap)
        out[0] = '\0';
    if (!s || !s->message || !in)
        return 0;
    char *val = in->value;
    const size_t vcap = sizeof in->value;
    in->count = 0;
    in->used = 0;
    memset(in->have, 0, sizeof in->have);
    etl_fields f;
    etl_item it;
    etl_fields_start_opts(&f, s, payload, size, pointer_size, ETL_FIELDS_CHAR_STRINGS);
    bool in_array = false;
    unsigned elems = 0;
    while (etl_fields_next(&f, &it) != ETL_ITEM_END) {
        if (it.kind == ETL_ITEM_PLACEHOLDER)
            break;
        if (it.depth == 0 && it.kind != ETL_ITEM_STRUCT_END && it.kind != ETL_ITEM_ARRAY_END) {
            /* a new top-level field: a new insert */
            if (in->count >= ETL_MESSAGE_MAX_INSERTS)
                break;
            if (in->used && in->used < sizeof in->text)
                in->text[in->used++] = '\0';
            if (in->used >= sizeof in->text - 1)
                break;
            in->count++;
            in->off[in->count] = (uint32_t)in->used;
            in->have[in->count] = true;
            in_array = it.kind == ETL_ITEM_ARRAY_BEGIN;
            elems = 0;
        }
        if (it.kind == ETL_ITEM_VALUE && (it.depth == 0 || (in_array && it.depth == 1))) {
            if (in_array && elems++)
                ins_put(in, ", ", 2);
            size_t n = etl_value_format(&it, val, vcap);
            ins_put(in, val, n);
        }
    }
    if (in->used < sizeof in->text)
        in->text[in->used] = '\0';
    else
        in->text[sizeof in->text - 1] = '\0';
    return etl_message_format(etl_schema_str(s, s->message), insert_at, in, out, cap);
}
