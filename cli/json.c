/* json.c - the JSON writer etldump uses: strings escaped per RFC 8259, integers without printf. */
#include "json.h"

#include <stdlib.h>

#include "etl_format.h"

#include <stddef.h>
#include <string.h>

void json_init(json_out *j, FILE *f)
{
    memset(j, 0, offsetof(json_out, store)); /* the store's bytes are written before read */
    j->f = f;
    j->buf = j->store;
}

json_out *json_new(FILE *f)
{
    json_out *j = calloc(1, sizeof *j);
    if (j) {
        j->f = f;
        j->buf = j->store;
    }
    return j;
}

void json_free(json_out *j)
{
    free(j);
}

void json_flush(json_out *j)
{
    if (j->len) {
        if (j->sink)
            j->buf = j->sink(j->sink_ctx, j->buf, j->len);
        else
            fwrite(j->buf, 1, j->len, j->f);
        j->len = 0;
    }
}

static inline char *room(json_out *j, size_t n)
{
    return json_room(j, n);
}

static void out_mem(json_out *j, const char *p, size_t n)
{
    while (n > JSON_BUFFER_SIZE - j->len) {
        size_t k = JSON_BUFFER_SIZE - j->len;
        memcpy(j->buf + j->len, p, k);
        j->len += k;
        p += k;
        n -= k;
        json_flush(j);
    }
    memcpy(j->buf + j->len, p, n);
    j->len += n;
}

static inline void out_byte(json_out *j, char c)
{
    *room(j, 1) = c;
    j->len++;
}

static inline void sep(json_out *j)
{
    if (j->depth > 0 && j->depth < 64) {
        if (j->need_comma[j->depth])
            out_byte(j, ',');
        j->need_comma[j->depth] = true;
    }
}

void json_begin_object(json_out *j)
{
    sep(j);
    out_byte(j, '{');
    if (j->depth < 63)
        j->need_comma[++j->depth] = false;
}

void json_end_object(json_out *j)
{
    out_byte(j, '}');
    if (j->depth > 0)
        j->depth--;
}

void json_begin_array(json_out *j)
{
    sep(j);
    out_byte(j, '[');
    if (j->depth < 63)
        j->need_comma[++j->depth] = false;
}

void json_end_array(json_out *j)
{
    out_byte(j, ']');
    if (j->depth > 0)
        j->depth--;
}

/* 1 for the bytes a JSON string must escape: controls, '"' and '\\'. */
static const uint8_t escaped[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1,
};

/* Strings go out in pieces of at most this many bytes, each with room for its worst case (every
 * byte a 6-byte \u00XX escape) in the buffer. */
#define STRING_PIECE (JSON_BUFFER_SIZE / 8u)

static void escape_piece(json_out *j, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (!json_needs_escape(s, n)) { /* the common case */
        memcpy(room(j, n), s, n);
        j->len += n;
        return;
    }
    char *d = room(j, 6 * n);
    for (size_t i = 0; i < n; i++) {
        /* a word with nothing to escape goes as a whole (a message's text is mostly words
         * between line breaks; a path has a '\\' every few bytes): whole words, then the bytes
         * before the word's first escape at once */
        uint64_t w;
        while (i + 8 <= n && (memcpy(&w, s + i, 8), !json_word_needs_escape(w))) {
            memcpy(d, &w, 8);
            d += 8;
            i += 8;
        }
        if (i == n)
            break;
#if JSON_SWAR
        if (i + 8 <= n) { /* w holds an escape: its lowest flagged byte is the first (json.h) */
            unsigned k = (unsigned)__builtin_ctzll(json_word_escape_bits(w)) / 8u;
            memcpy(d, &w, 8); /* the k clean bytes; the rest is overwritten next */
            d += k;
            i += k;
        }
#endif
        unsigned char c = (unsigned char)s[i];
        if (!escaped[c]) {
            *d++ = (char)c;
            continue;
        }
        *d++ = '\\';
        switch (c) {
        case '"': *d++ = '"'; break;
        case '\\': *d++ = '\\'; break;
        case '\n': *d++ = 'n'; break;
        case '\r': *d++ = 'r'; break;
        case '\t': *d++ = 't'; break;
        default:
            memcpy(d, "u00", 3);
            d[3] = hex[c >> 4];
            d[4] = hex[c & 15];
            d += 5;
        }
    }
    j->len = (size_t)(d - j->buf);
}

static void raw_string(json_out *j, const char *s, size_t n)
{
    out_byte(j, '"');
    while (n > STRING_PIECE) {
        escape_piece(j, s, STRING_PIECE);
        s += STRING_PIECE;
        n -= STRING_PIECE;
    }
    escape_piece(j, s, n);
    out_byte(j, '"');
}

/* Keys and short strings that need no escaping - nearly all of them - go out quoted in one
 * reservation, with the separator. */
#define SHORT_STRING JSON_SHORT_STRING

static inline size_t take_comma(json_out *j)
{
    return json_take_comma(j);
}

void json_key_plain(json_out *j, const char *key, size_t n)
{
    json_key_short(j, key, n);
}

void json_string_plain(json_out *j, const char *s, size_t n)
{
    json_short_quoted(j, s, n, false);
}

void json_key_n(json_out *j, const char *key, size_t n)
{
    if (n <= SHORT_STRING && !json_needs_escape(key, n)) {
        json_key_plain(j, key, n);
        return;
    }
    sep(j);
    raw_string(j, key, n);
    out_byte(j, ':');
    json_separator_written(j);
}

/* Remember "key": (and "value" after it when value is given) for (a, b, tag), when it fits
 * and neither needs escaping. */
static void memoize(json_out *j, uint32_t a, uint32_t b, const void *tag, const char *key, size_t n,
                    const char *value, size_t vn)
{
    json_key_memo *m = &j->keys[json_key_memo_slot(a, b)]; /* whoever held it */
    size_t len = n + 3 + (value ? vn + 2 : 0);
    if (a == UINT32_MAX || len > sizeof m->text || json_needs_escape(key, n) ||
        (value && json_needs_escape(value, vn)))
        return;
    m->a1 = a + 1u;
    m->b = b;
    m->tag = tag;
    m->text[0] = '"';
    memcpy(m->text + 1, key, n);
    m->text[n + 1] = '"';
    m->text[n + 2] = ':';
    if (value) {
        m->text[n + 3] = '"';
        memcpy(m->text + n + 4, value, vn);
        m->text[n + 4 + vn] = '"';
    }
    m->len = (uint8_t)len;
}

void json_key_memoize(json_out *j, uint32_t a, uint32_t b, const char *key, size_t n)
{
    json_key_n(j, key, n);
    memoize(j, a, b, NULL, key, n, NULL, 0);
}

void json_pair_memoize(json_out *j, uint32_t a, uint32_t b, const void *tag, const char *key, const char *value)
{
    size_t n = strlen(key), vn = strlen(value);
    json_key_n(j, key, n);
    json_string_n(j, value, vn);
    memoize(j, a, b, tag, key, n, value, vn);
}

void json_string_n(json_out *j, const char *s, size_t n)
{
    if (n <= SHORT_STRING && !json_needs_escape(s, n)) {
        json_string_plain(j, s, n);
        return;
    }
    sep(j);
    raw_string(j, s, n);
}

void json_u64_digits(json_out *j, uint64_t v)
{
    json_u64_at(j, v);
}

void json_i64(json_out *j, int64_t v)
{
    if (v < 0) {
        sep(j);
        out_byte(j, '-');
        /* print the magnitude without the separator logic adding a comma */
        json_separator_written(j);
        json_u64(j, (uint64_t)0 - (uint64_t)v);
    } else {
        json_u64(j, (uint64_t)v);
    }
}

void json_bool(json_out *j, bool v)
{
    sep(j);
    if (v)
        out_mem(j, "true", 4);
    else
        out_mem(j, "false", 5);
}

/* "0x" and the digits of v without leading zeros ("0x0" for 0), quoted, written in place. */
static void hex_u64(json_out *j, uint64_t v, bool upper)
{
    unsigned len = json_hex_len(v);
    char *d = room(j, 24);
    size_t c = take_comma(j);
    d[0] = ',';
    memcpy(d + c, "\"0x", 3);
    json_put_hex(d + c + 3, v, len, upper);
    d[c + 3 + len] = '"';
    j->len += c + len + 4;
}

void json_hex_u64(json_out *j, uint64_t v)
{
    hex_u64(j, v, false);
}

void json_hex_upper_u64(json_out *j, uint64_t v)
{
    hex_u64(j, v, true);
}

void json_hex_bytes(json_out *j, const uint8_t *p, size_t n)
{
    sep(j);
    out_byte(j, '"');
    while (n) {
        size_t k = n < STRING_PIECE ? n : STRING_PIECE;
        etl_format_hex(p, k, room(j, 2 * k + 1)); /* its NUL is overwritten next */
        j->len += 2 * k;
        p += k;
        n -= k;
    }
    out_byte(j, '"');
}

void json_newline(json_out *j)
{
    out_byte(j, '\n');
    if (j->len >= JSON_BUFFER_SIZE / 2)
        json_flush(j);
}

void json_raw(json_out *j, const char *s, size_t n)
{
    sep(j);
    out_mem(j, s, n);
}
