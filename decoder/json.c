/* json.c - the JSON writer etldump uses: strings escaped per RFC 8259, integers without printf. */
#include "json.h"

#include <string.h>

void json_flush(json_out *j)
{
    if (j->len) {
        fwrite(j->buf, 1, j->len, j->f);
        j->len = 0;
    }
}

/* Room for n more bytes at the end of the buffer (flushed first when they do not fit); the
 * caller writes there and adds what it wrote to j->len.  One bound check per value instead of one
 * per byte or per piece: etldump writes a few hundred values per record, so this is its JSON
 * writer's main cost.  n <= JSON_BUFFER_SIZE. */
static inline char *room(json_out *j, size_t n)
{
    if (n > sizeof j->buf - j->len)
        json_flush(j);
    return j->buf + j->len;
}

static void out_mem(json_out *j, const char *p, size_t n)
{
    while (n > sizeof j->buf - j->len) {
        size_t k = sizeof j->buf - j->len;
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

/* Does any of the 8 bytes in w need escaping in a JSON string (a control byte, '"' or '\\')?
 * Exact for the word as a whole, whatever the byte order: (x - 0x01..) & ~x & 0x80.. is non-zero
 * exactly when a byte of x is zero, and (w - 0x20..) & ~w & 0x80.. exactly when a byte of w is
 * below 0x20.  Bytes >= 0x80 (UTF-8) never count. */
static inline bool word_needs_escape(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return (((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b)) & high;
}

/* Strings go out in pieces of at most this many bytes, each with room for its worst case (every
 * byte a 6-byte \u00XX escape) in the buffer. */
#define STRING_PIECE (JSON_BUFFER_SIZE / 8u)

static void escape_piece(json_out *j, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    char *d = room(j, 6 * n);
    size_t i = 0;
    while (i < n) {
        uint64_t w;
        if (n - i >= 8 && (memcpy(&w, s + i, 8), !word_needs_escape(w))) {
            memcpy(d, &w, 8); /* the common case: 8 plain bytes at once */
            d += 8;
            i += 8;
            continue;
        }
        unsigned char c = (unsigned char)s[i++];
        if (c >= 0x20 && c != '"' && c != '\\') {
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

/* Short NUL-terminated strings (keys, names, times, GUIDs) go out in one pass that copies and
 * checks each byte, with one bound check: no strlen before, no second scan.  `tail` (up to 2
 * bytes) follows the closing quote.  False, with nothing written, when the string is longer than
 * SHORT_STRING or needs escaping: the caller takes the general path. */
#define SHORT_STRING 64u

static inline bool short_string(json_out *j, const char *s, const char *tail, size_t tail_len)
{
    char *d = room(j, SHORT_STRING + 4);
    d[0] = '"';
    for (size_t i = 0; i < SHORT_STRING; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0) {
            d[1 + i] = '"';
            memcpy(d + 2 + i, tail, tail_len);
            j->len += 2 + i + tail_len;
            return true;
        }
        if (c < 0x20 || c == '"' || c == '\\')
            return false;
        d[1 + i] = (char)c;
    }
    return false;
}

void json_key(json_out *j, const char *key)
{
    sep(j);
    if (!short_string(j, key, ":", 1)) {
        raw_string(j, key, strlen(key));
        out_byte(j, ':');
    }
    /* the value that follows must not add a comma */
    if (j->depth > 0 && j->depth < 64)
        j->need_comma[j->depth] = false;
}

/* After a key, the value resets need_comma to true via sep(). */
void json_string(json_out *j, const char *s)
{
    sep(j);
    if (!short_string(j, s, "", 0))
        raw_string(j, s, strlen(s));
}

void json_string_n(json_out *j, const char *s, size_t n)
{
    sep(j);
    raw_string(j, s, n);
}

void json_u64(json_out *j, uint64_t v)
{
    sep(j);
    if (v < 10) { /* most header numbers: versions, levels, zeros */
        *room(j, 1) = (char)('0' + v);
        j->len++;
        return;
    }
    unsigned len = 2;
    for (uint64_t t = v / 100; t; t /= 10)
        len++;
    char *d = room(j, len) + len;
    do {
        *--d = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    j->len += len;
}

void json_i64(json_out *j, int64_t v)
{
    if (v < 0) {
        sep(j);
        out_byte(j, '-');
        /* print the magnitude without the separator logic adding a comma */
        if (j->depth > 0 && j->depth < 64)
            j->need_comma[j->depth] = false;
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

void json_null(json_out *j)
{
    sep(j);
    out_mem(j, "null", 4);
}

void json_hex_u64(json_out *j, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    unsigned digits = 1;
    for (uint64_t t = v; t >= 16; t >>= 4)
        digits++;
    sep(j);
    char *d = room(j, digits + 4);
    memcpy(d, "\"0x", 3);
    char *e = d + 3 + digits;
    *e = '"';
    do {
        *--e = hex[v & 15];
        v >>= 4;
    } while (v);
    j->len += digits + 4;
}

void json_hex_bytes(json_out *j, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    sep(j);
    out_byte(j, '"');
    while (n) {
        size_t k = n < STRING_PIECE ? n : STRING_PIECE;
        char *d = room(j, 2 * k);
        for (size_t i = 0; i < k; i++) {
            d[2 * i] = hex[p[i] >> 4];
            d[2 * i + 1] = hex[p[i] & 15];
        }
        j->len += 2 * k;
        p += k;
        n -= k;
    }
    out_byte(j, '"');
}

void json_newline(json_out *j)
{
    out_byte(j, '\n');
    if (j->len >= sizeof j->buf / 2)
        json_flush(j);
}

void json_raw(json_out *j, const char *s, size_t n)
{
    sep(j);
    out_mem(j, s, n);
}
