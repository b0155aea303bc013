/* json.h - a minimal, fast JSON writer for etldump.  Output collects in the writer's own
 * buffer and goes to the FILE in large writes (at each json_newline once the buffer is half
 * full, and when it fills): one stdio call per many values instead of several per value. */
#ifndef ETL_JSON_H
#define ETL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define JSON_BUFFER_SIZE (256u * 1024u)

typedef struct json_out {
    FILE *f;
    bool need_comma[64]; /* per nesting level */
    int depth;
    size_t len;          /* bytes waiting in buf */
    char buf[JSON_BUFFER_SIZE];
} json_out;

void json_begin_object(json_out *j);
void json_end_object(json_out *j);
void json_begin_array(json_out *j);
void json_end_array(json_out *j);
/* Keys and strings of any length and content. */
void json_key_n(json_out *j, const char *key, size_t n);
void json_string_n(json_out *j, const char *s, size_t n);

/* Short strings that need no escaping - nearly every key and name - take a shorter path, and
 * the test for it is inline: for a literal key the compiler decides it at compile time, so only
 * names from schemas are scanned at run time (etldump writes some 30 keys per record). */
#define JSON_SHORT_STRING 64u

/* Always inlined: a call would hide a literal's bytes from the compiler. */
#if defined(__GNUC__)
#define JSON_INLINE static inline __attribute__((always_inline))
#else
#define JSON_INLINE static inline
#endif

/* Does any of the 8 bytes in w need escaping (a control byte, '"' or '\\')?  Exact for the word
 * as a whole, whatever the byte order: (x - 0x01..) & ~x & 0x80.. is non-zero exactly when a byte
 * of x is zero, (w - 0x20..) & ~w & 0x80.. exactly when a byte of w is below 0x20.  Bytes >= 0x80
 * (UTF-8) never count. */
JSON_INLINE bool json_word_needs_escape(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return (((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b)) & high;
}

/* Does s[0..n) need escaping?  Whole words at a time, the last word overlapping the one before
 * when n is not a multiple of 8 (two overlapping halves for 4..7 bytes), so no byte outside the
 * string is read. */
JSON_INLINE bool json_needs_escape(const char *s, size_t n)
{
    uint64_t w;
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&w, s + i, 8);
            if (json_word_needs_escape(w))
                return true;
        }
        memcpy(&w, s + n - 8, 8);
        return json_word_needs_escape(w);
    }
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        return json_word_needs_escape((uint64_t)a << 32 | b);
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == '"' || s[i] == '\\')
            return true;
    return false;
}

/* The short path: only for n <= JSON_SHORT_STRING and !json_needs_escape(s, n). */
void json_key_plain(json_out *j, const char *key, size_t n);
void json_string_plain(json_out *j, const char *s, size_t n);

JSON_INLINE void json_key(json_out *j, const char *key)
{
    size_t n = strlen(key);
    if (n <= JSON_SHORT_STRING && !json_needs_escape(key, n))
        json_key_plain(j, key, n);
    else
        json_key_n(j, key, n);
}

JSON_INLINE void json_string(json_out *j, const char *s)
{
    size_t n = strlen(s);
    if (n <= JSON_SHORT_STRING && !json_needs_escape(s, n))
        json_string_plain(j, s, n);
    else
        json_string_n(j, s, n);
}

void json_u64(json_out *j, uint64_t v);
void json_i64(json_out *j, int64_t v);
void json_bool(json_out *j, bool v);
void json_null(json_out *j);
void json_hex_u64(json_out *j, uint64_t v); /* "0x..." as a string */
void json_hex_bytes(json_out *j, const uint8_t *p, size_t n); /* "0a1b..." */
void json_newline(json_out *j);
/* A value already in JSON form (a number, "true", a quoted string), with the comma logic. */
void json_raw(json_out *j, const char *s, size_t n);
/* Write out what is buffered (call before reading the FILE or at the end). */
void json_flush(json_out *j);

/* A key and its value in one call: the pair every writer of an object repeats. */
JSON_INLINE void json_key_u64(json_out *j, const char *key, uint64_t v)
{
    json_key(j, key);
    json_u64(j, v);
}
JSON_INLINE void json_key_i64(json_out *j, const char *key, int64_t v)
{
    json_key(j, key);
    json_i64(j, v);
}
JSON_INLINE void json_key_hex_u64(json_out *j, const char *key, uint64_t v)
{
    json_key(j, key);
    json_hex_u64(j, v);
}
JSON_INLINE void json_key_string(json_out *j, const char *key, const char *s)
{
    json_key(j, key);
    json_string(j, s);
}

#endif
