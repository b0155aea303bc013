/* json.c - the JSON writer etldump uses: strings escaped per RFC 8259, integers without printf. */
#include "json.h"

#include <string.h>

static void sep(json_out *j)
{
    if (j->depth > 0 && j->depth < 64) {
        if (j->need_comma[j->depth])
            putc(',', j->f);
        j->need_comma[j->depth] = true;
    }
}

void json_begin_object(json_out *j)
{
    sep(j);
    putc('{', j->f);
    if (j->depth < 63)
        j->need_comma[++j->depth] = false;
}

void json_end_object(json_out *j)
{
    putc('}', j->f);
    if (j->depth > 0)
        j->depth--;
}

void json_begin_array(json_out *j)
{
    sep(j);
    putc('[', j->f);
    if (j->depth < 63)
        j->need_comma[++j->depth] = false;
}

void json_end_array(json_out *j)
{
    putc(']', j->f);
    if (j->depth > 0)
        j->depth--;
}

static void raw_string(json_out *j, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    putc('"', j->f);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        fwrite(s + run, 1, i - run, j->f);
        run = i + 1;
        switch (c) {
        case '"': fputs("\\\"", j->f); break;
        case '\\': fputs("\\\\", j->f); break;
        case '\n': fputs("\\n", j->f); break;
        case '\r': fputs("\\r", j->f); break;
        case '\t': fputs("\\t", j->f); break;
        default:
            fputs("\\u00", j->f);
            putc(hex[c >> 4], j->f);
            putc(hex[c & 15], j->f);
        }
    }
    fwrite(s + run, 1, n - run, j->f);
    putc('"', j->f);
}

void json_key(json_out *j, const char *key)
{
    sep(j);
    raw_string(j, key, strlen(key));
    putc(':', j->f);
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
    fwrite(buf + i, 1, (size_t)(23 - i), j->f);
}

void json_i64(json_out *j, int64_t v)
{
    if (v < 0) {
        sep(j);
        putc('-', j->f);
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
    fputs(v ? "true" : "false", j->f);
}

void json_null(json_out *j)
{
    sep(j);
    fputs("null", j->f);
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
    putc('"', j->f);
    fwrite(buf + i, 1, (size_t)(23 - i), j->f);
    putc('"', j->f);
}

void json_hex_bytes(json_out *j, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    char chunk[256];
    sep(j);
    putc('"', j->f);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        chunk[k++] = hex[p[i] >> 4];
        chunk[k++] = hex[p[i] & 15];
        if (k == sizeof chunk) {
            fwrite(chunk, 1, k, j->f);
            k = 0;
        }
    }
    fwrite(chunk, 1, k, j->f);
    putc('"', j->f);
}

void json_newline(json_out *j)
{
    putc('\n', j->f);
}
