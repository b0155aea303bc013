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
void json_key_n(json_out *j, const char *key, size_t n);
void json_string_n(json_out *j, const char *s, size_t n);
/* Inline so that the length of a literal key or string is known at compile time. */
static inline void json_key(json_out *j, const char *key)
{
    json_key_n(j, key, strlen(key));
}
static inline void json_string(json_out *j, const char *s)
{
    json_string_n(j, s, strlen(s));
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

#endif
