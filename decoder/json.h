/* json.h - a minimal, fast JSON writer for etldump (stdio-backed, no allocation). */
#ifndef ETL_JSON_H
#define ETL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct json_out {
    FILE *f;
    bool need_comma[64]; /* per nesting level */
    int depth;
} json_out;

void json_begin_object(json_out *j);
void json_end_object(json_out *j);
void json_begin_array(json_out *j);
void json_end_array(json_out *j);
void json_key(json_out *j, const char *key);
void json_string(json_out *j, const char *s);
void json_string_n(json_out *j, const char *s, size_t n);
void json_u64(json_out *j, uint64_t v);
void json_i64(json_out *j, int64_t v);
void json_bool(json_out *j, bool v);
void json_null(json_out *j);
void json_hex_u64(json_out *j, uint64_t v); /* "0x..." as a string */
void json_hex_bytes(json_out *j, const uint8_t *p, size_t n); /* "0a1b..." */
void json_newline(json_out *j);

#endif
