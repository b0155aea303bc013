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

/* The inserts a message uses, found by the formatter's own parser (nothing written). */
typedef struct used_inserts {
    uint64_t bits[2]; /* insert n (1..99): bit n % 64 of bits[n / 64] */
    unsigned max;
} used_inserts;

static const char *note_insert(void *ctx, unsigned n);

unsigned etl_message_inserts(const char *message, uint64_t used[2])
{
    used_inserts u = {{0, 0}, 0};
    etl_message_format(message, note_insert, &u, NULL, 0);
    used[0] = u.bits[0];
    used[1] = u.bits[1];
    return u.max;
}

static const char *note_insert(void *ctx, unsigned n)
{
    used_inserts *u = ctx;
    if (n <= ETL_MESSAGE_MAX_INSERTS) {
        u->bits[n / 64] |= 1ULL << (n % 64);
        if (n > u->max)
            u->max = n;
    }
    return NULL;
}

/* The most text a value can render to: its own text is cut at the scratch's size, and one with
 * no map and of this many bytes renders to far less (a number with its code name, a GUID, a
 * time; a string or binary at most 4 bytes of text per byte). */
static size_t value_text_bound(const etl_item *it, size_t vcap)
{
    if (it->map || it->custom)
        return vcap;
    size_t b = 256 + 4 * (size_t)it->size;
    return b < vcap ? b : vcap;
}

/* Render with the inserts' texts; only those `use` marks are formatted when `use` is given.
 * Inserts the message does not use cost nothing but their place, unless all inserts together
 * could have reached the text's limit - where cutting depends on every insert's length: then
 * false, and the caller renders them all. */
static bool collect_inserts(const etl_schema *s, const uint8_t *payload, size_t size, uint8_t pointer_size,
                            etl_message_scratch *in, const used_inserts *use)
{
    char *val = in->value;
    const size_t vcap = sizeof in->value;
    in->count = 0;
    in->used = 0;
    memset(in->have, 0, sizeof in->have);
    etl_fields f;
    etl_item it;
    etl_fields_start_opts(&f, s, payload, size, pointer_size, ETL_FIELDS_CHAR_STRINGS);
    bool in_array = false, wanted = true;
    unsigned elems = 0;
    size_t bound = 0; /* the most in->used could have been with every insert formatted */
    while (etl_fields_next(&f, &it) != ETL_ITEM_END) {
        if (it.kind == ETL_ITEM_PLACEHOLDER)
            break;
        if (it.depth == 0 && it.kind != ETL_ITEM_STRUCT_END && it.kind != ETL_ITEM_ARRAY_END) {
            /* a new top-level field: a new insert */
            if (in->count >= ETL_MESSAGE_MAX_INSERTS || (use && in->count >= use->max))
                break;
            if (in->used && in->used < sizeof in->text)
                in->text[in->used++] = '\0';
            bound++;
            if (in->used >= sizeof in->text - 1)
                break;
            in->count++;
            in->off[in->count] = (uint32_t)in->used;
            in->have[in->count] = true;
            in_array = it.kind == ETL_ITEM_ARRAY_BEGIN;
            elems = 0;
            wanted = !use || (use->bits[in->count / 64] >> (in->count % 64) & 1);
        }
        if (it.kind == ETL_ITEM_VALUE && (it.depth == 0 || (in_array && it.depth == 1))) {
            if (in_array && elems++) {
                bound += 2;
                if (wanted)
                    ins_put(in, ", ", 2);
            }
            if (wanted) {
                size_t before = in->used;
                size_t n = etl_value_format(&it, val, vcap);
                ins_put(in, val, n);
                bound += in->used - before;
            } else {
                bound += value_text_bound(&it, vcap);
            }
        }
    }
    if (use && bound + 2 >= sizeof in->text)
        return false;
    if (in->used < sizeof in->text)
        in->text[in->used] = '\0';
    else
        in->text[sizeof in->text - 1] = '\0';
    return true;
}

size_t etl_message_render(const etl_schema *s, const uint8_t *payload, size_t size, uint8_t pointer_size,
                          etl_message_scratch *in, char *out, size_t cap)
{
    if (cap)
        out[0] = '\0';
    if (!s || !s->message || !in)
        return 0;
    const char *msg = etl_schema_str(s, s->message);
    used_inserts use = {{s->message_inserts[0], s->message_inserts[1]}, s->message_max_insert};
    if (!collect_inserts(s, payload, size, pointer_size, in, in->render_all ? NULL : &use))
        collect_inserts(s, payload, size, pointer_size, in, NULL);
    return etl_message_format(msg, insert_at, in, out, cap);
}
