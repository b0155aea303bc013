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

/* The message's parser, shared by the formatter and the compiler: the text between inserts and
 * the escapes' characters go to lit(), in the very pieces the formatter puts (its cut at the
 * output's end depends on them), the inserts to ins() with their text as written. */
typedef struct msg_sink {
    void (*lit)(void *ctx, const char *s, size_t n);
    void (*ins)(void *ctx, unsigned n, const char *raw, size_t raw_len);
    void *ctx;
} msg_sink;

static void parse_message(const char *msg, const msg_sink *k)
{
    for (const char *p = msg; *p;) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            k->lit(k->ctx, p, strlen(p));
            return;
        }
        k->lit(k->ctx, p, (size_t)(pct - p));
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
            k->ins(k->ctx, n, start, (size_t)(p - start));
            continue;
        }
        switch (c) {
        case '0': return; /* ends the message */
        case 'n': k->lit(k->ctx, "\n", 1); break;
        case 'r': k->lit(k->ctx, "\r", 1); break;
        case 't': k->lit(k->ctx, "\t", 1); break;
        case ' ': k->lit(k->ctx, " ", 1); break;
        case '%': k->lit(k->ctx, "%", 1); break;
        case '.': k->lit(k->ctx, ".", 1); break;
        case '!': k->lit(k->ctx, "!", 1); break;
        case '\0': k->lit(k->ctx, "%", 1); return; /* a lone % at the end */
        default: k->lit(k->ctx, "%", 1); continue;  /* not an escape: keep the % and go on */
        }
        p++;
    }
}

typedef struct format_ctx {
    out_buf o;
    const char *(*insert)(void *ctx, unsigned n);
    void *ictx;
} format_ctx;

static void format_lit(void *ctx, const char *s, size_t n)
{
    put(&((format_ctx *)ctx)->o, s, n);
}

static void format_ins(void *ctx, unsigned n, const char *raw, size_t raw_len)
{
    format_ctx *f = ctx;
    const char *text = f->insert ? f->insert(f->ictx, n) : NULL;
    if (text)
        put(&f->o, text, strlen(text));
    else
        put(&f->o, raw, raw_len); /* no such field: leave it as written */
}

size_t etl_message_format(const char *msg, const char *(*insert)(void *ctx, unsigned n), void *ctx, char *out,
                          size_t cap)
{
    format_ctx f = {{out, cap, 0}, insert, ctx};
    if (cap)
        out[0] = '\0';
    if (!msg)
        return 0;
    const msg_sink k = {format_lit, format_ins, &f};
    parse_message(msg, &k);
    return f.o.len;
}

/* The compiler's sink: adjacent literal text merged into one piece; counts only when the
 * outputs are NULL. */
typedef struct compile_ctx {
    const char *msg;
    etl_message_piece *pieces;
    char *lits;
    size_t n_pieces, n_lits;
    bool in_lit; /* the last piece is a literal that may grow */
} compile_ctx;

static void compile_lit(void *ctx, const char *s, size_t n)
{
    compile_ctx *c = ctx;
    if (!n)
        return;
    if (!c->in_lit) {
        if (c->pieces)
            c->pieces[c->n_pieces] = (etl_message_piece){(uint32_t)c->n_lits, 0, 0};
        c->n_pieces++;
        c->in_lit = true;
    }
    if (c->lits) {
        memcpy(c->lits + c->n_lits, s, n);
        c->pieces[c->n_pieces - 1].len += (uint32_t)n;
    }
    c->n_lits += n;
}

static void compile_ins(void *ctx, unsigned n, const char *raw, size_t raw_len)
{
    compile_ctx *c = ctx;
    if (c->pieces)
        c->pieces[c->n_pieces] = (etl_message_piece){(uint32_t)(raw - c->msg), (uint32_t)raw_len, n};
    c->n_pieces++;
    c->in_lit = false;
}

void etl_message_compile(const char *message, etl_message_piece *pieces, char *literals, size_t *n_pieces,
                         size_t *n_literals)
{
    compile_ctx c = {message, pieces, literals, 0, 0, false};
    const msg_sink k = {compile_lit, compile_ins, &c};
    if (message)
        parse_message(message, &k);
    *n_pieces = c.n_pieces;
    *n_literals = c.n_lits;
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
static size_t value_text_bound(bool mapped, uint32_t size, size_t vcap)
{
    if (mapped)
        return vcap;
    size_t b = 256 + 4 * (size_t)size;
    return b < vcap ? b : vcap;
}

/* What collect_inserts has gathered so far. */
typedef struct collect_state {
    inserts *in;
    const used_inserts *use;
    size_t bound;   /* the most in->used could have been with every insert formatted */
    bool in_array;  /* the current insert is an array: its elements are joined */
    bool wanted;    /* the current insert is formatted (the message uses it) */
    unsigned elems; /* elements of the current array insert so far */
} collect_state;

/* A new top-level field: a new insert.  False when no more are kept (the walk ends). */
static inline __attribute__((always_inline)) bool begin_insert(collect_state *c, bool array)
{
    inserts *in = c->in;
    if (in->count >= ETL_MESSAGE_MAX_INSERTS || (c->use && in->count >= c->use->max))
        return false;
    if (in->count && in->used < sizeof in->text) /* the previous insert's end, even an empty one's */
        in->text[in->used++] = '\0';
    c->bound++;
    if (in->used >= sizeof in->text - 1)
        return false;
    in->count++;
    in->off[in->count] = (uint32_t)in->used;
    in->have[in->count] = true;
    c->in_array = array;
    c->elems = 0;
    c->wanted = !c->use || (c->use->bits[in->count / 64] >> (in->count % 64) & 1);
    return true;
}

/* Before a value of the current insert: an array's elements are joined by ", ". */
static inline void begin_value(collect_state *c)
{
    if (c->in_array && c->elems++) {
        c->bound += 2;
        inserts *in = c->in;
        if (!c->wanted)
            return;
        if (sizeof in->text - 1 - in->used >= 2) { /* what ins_put does when it fits */
            in->text[in->used] = ',';
            in->text[in->used + 1] = ' ';
            in->used += 2;
        } else {
            ins_put(in, ", ", 2);
        }
    }
}

/* Scalars per etl_fields_next_scalars call: the elements of a stack-sized array in a few. */
#define COLLECT_RUN 32u

/* A run of scalars (fields.h) at enumerator depth `depth`: top-level fields (an insert each) or
 * the elements of the current array insert, formatted as etl_value_format would format their
 * VALUE items (a scalar has no map: its text is etl_scalar_text's).  False when the walk ends. */
static bool collect_scalars(collect_state *c, const etl_fields *f, const etl_scalar *sc, unsigned n, unsigned depth)
{
    if (depth > 1 || (depth == 1 && !c->in_array))
        return true; /* a struct's members, or deeper: not rendered */
    inserts *in = c->in;
    for (unsigned i = 0; i < n; i++) {
        if (depth == 0 && !begin_insert(c, false))
            return false;
        begin_value(c);
        if (!c->wanted) {
            c->bound += value_text_bound(false, f->schema->steps[sc[i].step].size, sizeof in->value);
            continue;
        }
        size_t before = in->used;
        if (sizeof in->text - 1 - in->used >= ETL_SCALAR_TEXT_MAX) {
            in->used += etl_scalar_text(&sc[i], in->text + in->used);
        } else {
            char t[ETL_SCALAR_TEXT_MAX];
            ins_put(in, t, etl_scalar_text(&sc[i], t));
        }
        c->bound += in->used - before;
    }
    return true;
}

/* Render with the inserts' texts; only those `use` marks are formatted when `use` is given.
 * Inserts the message does not use cost nothing but their place, unless all inserts together
 * could have reached the text's limit - where cutting depends on every insert's length: then
 * false, and the caller renders them all.  Scalar runs take the enumerator's short path; every
 * other value goes through etl_value_format. */
static bool collect_inserts(const etl_schema *s, const uint8_t *payload, size_t size, uint8_t pointer_size,
                            etl_message_scratch *in, const used_inserts *use)
{
    char *val = in->value;
    const size_t vcap = sizeof in->value;
    /* in->have[n] is read only for n <= in->count, and set for each: nothing to clear */
    in->count = 0;
    in->used = 0;
    etl_fields f;
    etl_item it;
    etl_fields_start_opts(&f, s, payload, size, pointer_size, ETL_FIELDS_CHAR_STRINGS);
    collect_state c = {in, use, 0, false, true, 0};
    for (;;) {
        etl_scalar sc[COLLECT_RUN];
        unsigned n_sc = in->items ? 0 : etl_fields_next_scalars(&f, sc, COLLECT_RUN);
        if (n_sc) {
            /* a run stays inside one container: the enumerator's depth is its items' */
            if (!collect_scalars(&c, &f, sc, n_sc, f.depth))
                break;
            continue;
        }
        etl_item_kind k = etl_fields_next(&f, &it);
        if (k == ETL_ITEM_END || k == ETL_ITEM_PLACEHOLDER)
            break;
        if (it.depth == 0 && k != ETL_ITEM_STRUCT_END && k != ETL_ITEM_ARRAY_END &&
            !begin_insert(&c, k == ETL_ITEM_ARRAY_BEGIN))
            break;
        if (k == ETL_ITEM_VALUE && (it.depth == 0 || (c.in_array && it.depth == 1))) {
            begin_value(&c);
            if (c.wanted) {
                size_t before = in->used;
                if (sizeof in->text - 1 - in->used >= vcap) {
                    /* room for the longest text: formatted in place, as the copy below would */
                    in->used += etl_value_format(&it, in->text + in->used, vcap);
                } else {
                    size_t n = etl_value_format(&it, val, vcap);
                    ins_put(in, val, n);
                }
                c.bound += in->used - before;
            } else {
                c.bound += value_text_bound(it.map || it.custom, it.size, vcap);
            }
        }
    }
    if (use && c.bound + 2 >= sizeof in->text)
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
    if (!s->message_piece_count || in->parse)
        return etl_message_format(msg, insert_at, in, out, cap);
    /* the compiled pieces; where the output would be cut, the parser's own pieces decide */
    size_t o = 0;
    for (uint32_t i = 0; i < s->message_piece_count; i++) {
        const etl_message_piece *pc = &s->message_pieces[i];
        const char *t;
        size_t n;
        if (!pc->insert) {
            t = s->message_literals + pc->off;
            n = pc->len;
        } else if (pc->insert <= in->count && in->have[pc->insert]) {
            t = in->text + in->off[pc->insert];
            n = strlen(t);
        } else {
            t = msg + pc->off;
            n = pc->len;
        }
        if (o + n + 1 > cap)
            return etl_message_format(msg, insert_at, in, out, cap);
        memcpy(out + o, t, n);
        o += n;
    }
    out[o] = '\0';
    return o;
}
