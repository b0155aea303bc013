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

static void out_mem(json_out *j, const char *p, size_t n)
{
    if (n > sizeof j->buf - j->len) {
        json_flush(j);
        if (n > sizeof j->buf) {
            out_mem(j, p, n);
            return;
        }
    }
    memcpy(j->buf + j->len, p, n);
    j->len += n;
}

static void out_byte(json_out *j, char c)
{
    if (j->len == sizeof j->buf)
        json_flush(j);
    j->buf[j->len++] = c;
}

static void out_str(json_out *j, const char *s)
{
    out_mem(j, s, strlen(s));
}

static void sep(json_out *j)
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

static void raw_string(json_out *j, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    out_byte(j, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out_mem(j, s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': out_str(j, "\\\""); break;
        case '\\': out_str(j, "\\\\"); break;
        case '\n': out_str(j, "\\n"); break;
        case '\r': out_str(j, "\\r"); break;
        case '\t': out_str(j, "\\t"); break;
        default:
            out_str(j, "\\u00");
            out_byte(j, hex[c >> 4]);
            out_byte(j, hex[c & 15]);
        }
    }
    out_mem(j, s + run, n - run);
    out_byte(j, '"');
}

void json_key(json_out *j, const char *key)
{
    sep(j);
    raw_string(j, key, strlen(key));
    out_byte(j, ':');
    /* the value that follows must not add a comma */
    if (j->depth > 0 && j->depth < 64)
        j->need_comma[j->depth] = false;
}

/* After a key, the value resets need_comma to true via sep(). */
void json_string(json_out *j, const char *s)
{
    sep(j);
    raw_string(j, s, strlen(s));
}

void json_string_n(json_out *j, const char *s, size_t n)
{
    sep(j);
    raw_string(j, s, n);
}

void json_u64(json_out *j, uint64_t v)
{
    char buf[24];
    int i = 23;
    buf[i] = '\0';
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    sep(j);
    out_mem(j, buf + i, (size_t)(23 - i));
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
    out_str(j, v ? "true" : "false");
}

void json_null(json_out *j)
{
    sep(j);
    out_str(j, "null");
}

void json_hex_u64(json_out *j, uint64_t v)
{
    char buf[24];
    static const char hex[] = "0123456789abcdef";
    int i = 23;
    buf[i] = '\0';
    do {
        buf[--i] = hex[v & 15];
        v >>= 4;
    } while (v);
    buf[--i] = 'x';
    buf[--i] = '0';
    sep(j);
    out_byte(j, '"');
    out_mem(j, buf + i, (size_t)(23 - i));
    out_byte(j, '"');
}

void json_hex_bytes(json_out *j, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    char chunk[256];
    sep(j);
    out_byte(j, '"');
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        chunk[k++] = hex[p[i] >> 4];
        chunk[k++] = hex[p[i] & 15];
        if (k == sizeof chunk) {
            out_mem(j, chunk, k);
            k = 0;
        }
    }
    out_mem(j, chunk, k);
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
