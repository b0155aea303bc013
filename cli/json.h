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

/* Short strings that need no escaping - nearly every key and name - take a shorter path, and
 * the test for it is inline: for a literal key the compiler decides it at compile time, so only
 * names from schemas are scanned at run time (etldump writes some 30 keys per record). */
#define JSON_SHORT_STRING 64u

/* Keys (and whole key-value pairs) remembered by an identity the caller gives (two numbers and
 * a pointer: etldump's are a schema's arena index and a step, or a name kind and the name),
 * kept in JSON form, so one met again is one fixed copy instead of a length, an escape scan and
 * a copy.  Direct-mapped: a slot holds the last of its hash. */
#define JSON_KEY_MEMO_SLOTS 4096u
typedef struct json_key_memo {
    uint32_t a1, b;  /* identity; a1 = a + 1 (0: an empty slot) */
    const void *tag; /* identity */
    uint8_t len;     /* bytes of text */
    char text[JSON_SHORT_STRING + 7]; /* "key": or "key":"value" */
} json_key_memo;

/* Where a buffer's text goes instead of the FILE, when given (etldump --threads: parallel.c
 * keeps a batch's text until its turn without copying it): called with the buffer and its len
 * bytes of text, it returns the buffer to write on (the same one, or another of
 * JSON_BUFFER_SIZE bytes that it owns). */
typedef char *(*json_sink_fn)(void *ctx, char *buf, size_t len);

/* Bytes before a writer's fields: its fields change on every token, and another thread's
 * allocation ending right before them would share their cache line (etldump --threads: each
 * formatting thread has a writer, parallel.c). */
#define JSON_MARGIN 64u
typedef struct json_out {
    char margin[JSON_MARGIN]; /* never used: see JSON_MARGIN */
    FILE *f;
    json_sink_fn sink; /* NULL: the text goes to f */
    void *sink_ctx;
    bool need_comma[64]; /* per nesting level */
    int depth;
    size_t len;          /* bytes waiting in buf */
    char *buf;           /* JSON_BUFFER_SIZE bytes: store, or one the sink handed back */
    json_key_memo keys[JSON_KEY_MEMO_SLOTS]; /* json_key_memoized */
    char store[JSON_BUFFER_SIZE];
} json_out;

/* A writer to f (zeroed, writing on its own store); no allocation. */
void json_init(json_out *j, FILE *f);
/* A new writer to f, as json_init makes it, from calloc: its pages are touched only as they are
 * used (the key memo and the store are 580 KiB; json_init's memset touched all of the memo's
 * pages, a page fault each - 10 us apiece on the VM of bench/README.md, session 12).  NULL when
 * out of memory; json_free frees it. */
json_out *json_new(FILE *f);
void json_free(json_out *j);

void json_begin_object(json_out *j);
void json_end_object(json_out *j);
void json_begin_array(json_out *j);
void json_end_array(json_out *j);
/* Keys and strings of any length and content. */
void json_key_n(json_out *j, const char *key, size_t n);
void json_string_n(json_out *j, const char *s, size_t n);

/* Always inlined: a call would hide a literal's bytes from the compiler. */
#if defined(__GNUC__)
#define JSON_INLINE static inline __attribute__((always_inline))
#define JSON_IS_CONSTANT(x) __builtin_constant_p(x)
#else
#define JSON_INLINE static inline
#define JSON_IS_CONSTANT(x) 0
#endif

/* The separator before the value about to be written (its key's ':', or a comma) is out
 * already: that value adds no comma.  Levels beyond the array's 64 are not tracked. */
JSON_INLINE void json_separator_written(json_out *j)
{
    if (j->depth > 0 && j->depth < 64)
        j->need_comma[j->depth] = false;
}

/* Does any of the 8 bytes in w need escaping (a control byte, '"' or '\\')?  Exact for the word
 * as a whole, whatever the byte order: (x - 0x01..) & ~x & 0x80.. is non-zero exactly when a byte
 * of x is zero, (w - 0x20..) & ~w & 0x80.. exactly when a byte of w is below 0x20.  Bytes >= 0x80
 * (UTF-8) never count. */
JSON_INLINE uint64_t json_word_escape_bits(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return (((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b)) & high;
}
/* The bits are exact for the word as a whole, and for its lowest flagged byte: a borrow only
 * runs upward from a byte that is flagged itself (so, little-endian, the first byte in memory
 * that needs escaping is the lowest set bit's). */
JSON_INLINE bool json_word_needs_escape(uint64_t w)
{
    return json_word_escape_bits(w) != 0;
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

void json_flush(json_out *j);

/* Room for n more bytes at the end of the buffer (flushed first when they do not fit); the
 * caller writes there and adds what it wrote to j->len.  n <= JSON_BUFFER_SIZE. */
JSON_INLINE char *json_room(json_out *j, size_t n)
{
    if (n > JSON_BUFFER_SIZE - j->len)
        json_flush(j);
    return j->buf + j->len;
}

/* The separator a value or key at this level needs, taken: 1 for a comma. */
JSON_INLINE size_t json_take_comma(json_out *j)
{
    if (j->depth <= 0 || j->depth >= 64)
        return 0;
    size_t c = j->need_comma[j->depth];
    j->need_comma[j->depth] = true;
    return c;
}

/* Copy n <= JSON_SHORT_STRING bytes with word moves (the last one overlapping); for a literal
 * the compiler knows n and keeps only the moves it needs. */
JSON_INLINE void json_copy_short(char *d, const char *s, size_t n)
{
    uint64_t w;
    uint32_t h;
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&w, s + i, 8);
            memcpy(d + i, &w, 8);
        }
        memcpy(&w, s + n - 8, 8);
        memcpy(d + n - 8, &w, 8);
    } else if (n >= 4) {
        memcpy(&h, s, 4);
        memcpy(d, &h, 4);
        memcpy(&h, s + n - 4, 4);
        memcpy(d + n - 4, &h, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    }
}

/* [,]"key": at d (n <= JSON_SHORT_STRING), the level's comma taken; returns the bytes written. */
JSON_INLINE size_t json_put_key(json_out *j, char *d, const char *key, size_t n)
{
    size_t c = json_take_comma(j);
    d[0] = ',';
    d[c] = '"';
    json_copy_short(d + c + 1, key, n);
    d[c + n + 1] = '"';
    d[c + n + 2] = ':';
    return c + n + 3;
}

/* A short string that needs no escaping, quoted, with its separator, in one reservation; as a
 * key, with its ':' (and the value that follows adds no comma).  Inline: etldump writes some
 * 30 literal keys per record, each then a few fixed moves. */
JSON_INLINE void json_short_quoted(json_out *j, const char *s, size_t n, bool key)
{
    size_t at = json_put_key(j, json_room(j, JSON_SHORT_STRING + 4), s, n);
    j->len += key ? at : at - 1; /* a string: its ':' is not kept */
    if (key)
        json_separator_written(j);
}

JSON_INLINE void json_key_short(json_out *j, const char *key, size_t n)
{
    json_short_quoted(j, key, n, true);
}

JSON_INLINE void json_key(json_out *j, const char *key)
{
    size_t n = strlen(key);
    if (n <= JSON_SHORT_STRING && !json_needs_escape(key, n)) {
        if (JSON_IS_CONSTANT(n))
            json_key_short(j, key, n); /* a literal: inline */
        else
            json_key_plain(j, key, n);
    } else {
        json_key_n(j, key, n);
    }
}

/* What is remembered for identity (a, b, tag), a < UINT32_MAX; NULL when nothing is yet (write
 * it with json_key_memoize or json_pair_memoize).  The identity must stand for the same text
 * for the writer's life. */
JSON_INLINE size_t json_key_memo_slot(uint32_t a, uint32_t b)
{
    _Static_assert(JSON_KEY_MEMO_SLOTS == 1u << 12, "the slot is the hash's top 12 bits");
    return ((a + 1u) * 0x9E3779B1u ^ b * 0x85EBCA77u) >> 20;
}
JSON_INLINE const json_key_memo *json_key_memo_find(const json_out *j, uint32_t a, uint32_t b, const void *tag)
{
    const json_key_memo *m = &j->keys[json_key_memo_slot(a, b)];
    return m->a1 == a + 1u && m->b == b && m->tag == tag ? m : NULL;
}

/* A remembered key or pair, with its separator, in one reservation (a key: the value that
 * follows adds no comma). */
JSON_INLINE void json_memo_write(json_out *j, const json_key_memo *m, bool key)
{
    char *d = json_room(j, sizeof m->text + 1);
    size_t c = json_take_comma(j);
    d[0] = ',';
    memcpy(d + c, m->text, sizeof m->text);
    j->len += c + m->len;
    if (key)
        json_separator_written(j);
}
JSON_INLINE void json_key_memo_write(json_out *j, const json_key_memo *m)
{
    json_memo_write(j, m, true);
}

/* Write key[0..n) and remember it for (a, b, NULL) when it is short and needs no escaping. */
void json_key_memoize(json_out *j, uint32_t a, uint32_t b, const char *key, size_t n);
/* Write the pair key: value (a string) and remember it for (a, b, tag) when it is short and
 * needs no escaping; write it again with json_memo_write(j, m, false). */
void json_pair_memoize(json_out *j, uint32_t a, uint32_t b, const void *tag, const char *key, const char *value);

JSON_INLINE void json_string(json_out *j, const char *s)
{
    size_t n = strlen(s);
    if (n <= JSON_SHORT_STRING && !json_needs_escape(s, n))
        json_short_quoted(j, s, n, false);
    else
        json_string_n(j, s, n);
}

/* Digits are written in place once their count is known (no scratch copy): short numbers two
 * per step from the library's tables (etl_format.h), longer ones by words (JSON_SWAR below). */
extern const char etl_dec_pairs[201];
extern const char etl_hex_pairs_lower[513];
extern const char etl_hex_pairs_upper[513];

/* Decimal digits of v (1..20): floor(log10(v)) from the bit length (1233/4096 ~ log10 2),
 * corrected by one comparison. */
JSON_INLINE unsigned json_dec_len(uint64_t v)
{
    static const uint64_t pow10[20] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
                                       10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
                                       100000000000ULL, 1000000000000ULL, 10000000000000ULL,
                                       100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
                                       100000000000000000ULL, 1000000000000000000ULL,
                                       10000000000000000000ULL};
    v |= 1; /* 0 has one digit; v | 1 never has more digits than v (10^k - 1 is odd) */
#if defined(__GNUC__)
    unsigned bits = 64u - (unsigned)__builtin_clzll(v);
#else
    unsigned bits = 0;
    for (uint64_t x = v; x; x >>= 1)
        bits++;
#endif
    unsigned t = bits * 1233u >> 12;
    return t + 1u - (v < pow10[t]);
}

/* Digits by word arithmetic (SWAR) where the host is little-endian and the compiler GNU C: 8
 * digits of a number in a few multiplies and shifts instead of a loop with a division per two
 * digits (a record has ~30 numbers and ~5 hex values; positions and raw timestamps have 11-13
 * digits).  Elsewhere the pair tables, two digits per step. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JSON_SWAR 1
#else
#define JSON_SWAR 0
#endif

#if JSON_SWAR
/* Exactly 8 decimal digits of x < 10^8 (leading zeros kept) as a word in memory order: the two
 * 4-digit halves in 32-bit lanes, each split by 100 into 16-bit lanes (x * 10486 >> 20 is x / 100
 * for x < 43,699), each of those by 10 into bytes (x * 103 >> 10 is x / 10 for x < 179); no lane
 * carries into the next. */
JSON_INLINE uint64_t json_dec8(uint32_t x)
{
    uint64_t v = (uint64_t)(x / 10000u) | (uint64_t)(x % 10000u) << 32;
    uint64_t top = (v * 10486u >> 20) & (0x7FULL << 32 | 0x7FULL);
    uint64_t hundreds = (v - 100u * top) << 16 | top;
    uint64_t tens = (hundreds * 103u >> 10) & 0x000F000F000F000FULL;
    tens |= (hundreds - 10u * tens) << 8;
    return tens + 0x3030303030303030ULL;
}
/* The last n (1..8) digits of json_dec8(x) at d, stored as a whole word: 8 bytes are written at
 * d (those past n are left for what follows to overwrite). */
JSON_INLINE void json_put_dec8(char *d, uint32_t x, unsigned n)
{
    uint64_t w = json_dec8(x) >> (8u * (8u - n));
    memcpy(d, &w, 8);
}
#endif

/* v's len = json_dec_len(v) decimal digits at d[0..len).  With JSON_SWAR whole words are stored:
 * the caller's room must reach d + 8 even when len is smaller. */
JSON_INLINE void json_put_dec(char *d, uint64_t v, unsigned len)
{
#if JSON_SWAR
    /* up to 4 digits (most numbers: versions, levels, ids, sizes) the pairs are fewer steps */
    if (len <= 4) {
        if (len > 2)
            memcpy(d + len - 2, etl_dec_pairs + 2 * (v % 100), 2), v /= 100;
        if (len & 1)
            d[0] = (char)('0' + v);
        else
            memcpy(d, etl_dec_pairs + 2 * v, 2);
        return;
    }
    /* front to back, each word's bytes past its digits overwritten by the next word */
    if (len <= 8) {
        json_put_dec8(d, (uint32_t)v, len);
        return;
    }
    uint64_t lo = v % 100000000u, hi = v / 100000000u;
    if (len <= 16) {
        json_put_dec8(d, (uint32_t)hi, len - 8);
    } else {
        json_put_dec8(d, (uint32_t)(hi / 100000000u), len - 16);
        json_put_dec8(d + len - 16, (uint32_t)(hi % 100000000u), 8);
    }
    json_put_dec8(d + len - 8, (uint32_t)lo, 8);
#else
    char *p = d + len;
    while (v >= 100) {
        p -= 2;
        memcpy(p, etl_dec_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10)
        memcpy(p - 2, etl_dec_pairs + 2 * v, 2);
    else
        p[-1] = (char)('0' + v);
#endif
}

/* Hex digits of v without leading zeros (1..16; "0" for 0). */
JSON_INLINE unsigned json_hex_len(uint64_t v)
{
#if defined(__GNUC__)
    return (67u - (unsigned)__builtin_clzll(v | 1)) / 4u;
#else
    unsigned n = 1;
    while (v >>= 4)
        n++;
    return n;
#endif
}

#if JSON_SWAR
/* The 8 hex digits of x (leading zeros kept) as a word in memory order: each nibble spread into
 * its byte, most significant first, then '0' added and, for the bytes >= 10 (bit 4 of b + 6),
 * the step to 'A' or 'a'. */
JSON_INLINE uint64_t json_hex8(uint32_t x, bool upper)
{
    uint64_t v = x;
    v = (v | v << 16) & 0x0000FFFF0000FFFFULL;
    v = (v | v << 8) & 0x00FF00FF00FF00FFULL;
    v = (v | v << 4) & 0x0F0F0F0F0F0F0F0FULL;
    v = __builtin_bswap64(v);
    uint64_t letters = (v + 0x0606060606060606ULL) >> 4 & 0x0101010101010101ULL;
    return v + 0x3030303030303030ULL + letters * (upper ? 7u : 39u);
}
#endif

/* v's len = json_hex_len(v) hex digits at d[0..len), lower or upper case.  With JSON_SWAR whole
 * words are stored: the caller's room must reach d + 8 even when len is smaller. */
JSON_INLINE void json_put_hex(char *d, uint64_t v, unsigned len, bool upper)
{
#if JSON_SWAR
    uint64_t lo = json_hex8((uint32_t)v, upper);
    if (len <= 8) {
        lo >>= 8u * (8u - len);
        memcpy(d, &lo, 8);
        return;
    }
    uint64_t hi = json_hex8((uint32_t)(v >> 32), upper) >> (8u * (16u - len));
    memcpy(d, &hi, 8);
    memcpy(d + len - 8, &lo, 8);
#else
    const char *pairs = upper ? etl_hex_pairs_upper : etl_hex_pairs_lower;
    char *p = d + len;
    while (p - d >= 2) {
        p -= 2;
        memcpy(p, pairs + 2 * (v & 0xFF), 2);
        v >>= 8;
    }
    if (p > d)
        p[-1] = pairs[2 * (v & 0xF) + 1];
#endif
}

/* Runs: a stretch of pairs whose size has a known bound (a record's header part: some 25
 * literal keys and numbers) written through a cursor after one reservation and one separator
 * decision, instead of one of each per pair.  json_run_begin reserves n bytes and returns where
 * the run starts, after the level's comma if it needs one; the run's first piece has no comma of
 * its own, every later one starts with its ','; json_run_end takes the cursor back and leaves
 * the level needing a comma.  Keys in a run are literals with their quotes, colon and comma
 * ("\",\"pid\":\""), copied by fixed moves: JSON_RUN_LIT. */
JSON_INLINE char *json_run_begin(json_out *j, size_t n)
{
    char *d = json_room(j, n);
    size_t c = json_take_comma(j);
    d[0] = ',';
    return d + c;
}
JSON_INLINE void json_run_end(json_out *j, char *p)
{
    j->len = (size_t)(p - j->buf);
    if (j->depth > 0 && j->depth < 64)
        j->need_comma[j->depth] = true;
}
JSON_INLINE char *json_run_lit(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}
#define JSON_RUN_LIT(p, lit) json_run_lit((p), (lit), sizeof(lit) - 1)
JSON_INLINE char *json_run_u64(char *p, uint64_t v)
{
    unsigned len = json_dec_len(v);
    json_put_dec(p, v, len);
    return p + len;
}
/* 21 bytes at most. */
JSON_INLINE char *json_run_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return json_run_u64(p, (uint64_t)0 - (uint64_t)v);
    }
    return json_run_u64(p, (uint64_t)v);
}
/* "0x..." with lower or upper case digits, quoted: 20 bytes at most. */
JSON_INLINE char *json_run_hex_case(char *p, uint64_t v, bool upper)
{
    unsigned len = json_hex_len(v);
    memcpy(p, "\"0x", 3);
    json_put_hex(p + 3, v, len, upper);
    p[3 + len] = '"';
    return p + len + 4;
}
JSON_INLINE char *json_run_hex(char *p, uint64_t v)
{
    return json_run_hex_case(p, v, false);
}
/* s[0..n), n <= JSON_SHORT_STRING, that needs no escaping, quoted: n + 2 bytes. */
JSON_INLINE char *json_run_plain(char *p, const char *s, size_t n)
{
    *p = '"';
    json_copy_short(p + 1, s, n);
    p[n + 1] = '"';
    return p + n + 2;
}

/* A string value in a run (after its key): a short one that needs no escaping in place; any
 * other through json_string_n, the run then resumed with room for `resume` more bytes. */
JSON_INLINE char *json_run_string(json_out *j, char *p, const char *s, size_t n, size_t resume)
{
    if (n <= JSON_SHORT_STRING && !json_needs_escape(s, n))
        return json_run_plain(p, s, n);
    json_run_end(j, p);
    json_separator_written(j); /* its key is written */
    json_string_n(j, s, n);
    return json_room(j, resume);
}

/* A run that starts with a remembered key (m, or none: NULL) and has room for n more bytes: a
 * key and its value behind one reservation (json_run_end after the value). */
JSON_INLINE char *json_run_begin_memo(json_out *j, const json_key_memo *m, size_t n)
{
    char *p = json_run_begin(j, sizeof m->text + n);
    if (m) {
        memcpy(p, m->text, sizeof m->text);
        p += m->len;
    }
    return p;
}

/* [,]digits in one reservation. */
JSON_INLINE void json_u64_at(json_out *j, uint64_t v)
{
    unsigned len = json_dec_len(v);
    char *d = json_room(j, 24);
    size_t c = json_take_comma(j);
    d[0] = ',';
    json_put_dec(d + c, v, len);
    j->len += c + len;
}

/* Numbers of two or more digits (json_u64's long path). */
void json_u64_digits(json_out *j, uint64_t v);
/* One digit - most header numbers: versions, levels, zeros - inline. */
JSON_INLINE void json_u64(json_out *j, uint64_t v)
{
    if (v < 10) {
        char *d = json_room(j, 2);
        size_t c = json_take_comma(j);
        d[0] = ',';
        d[c] = (char)('0' + v);
        j->len += c + 1;
        return;
    }
    json_u64_digits(j, v);
}
void json_i64(json_out *j, int64_t v);
void json_bool(json_out *j, bool v);
JSON_INLINE void json_null(json_out *j)
{
    char *d = json_room(j, 5);
    size_t c = json_take_comma(j);
    d[0] = ',';
    memcpy(d + c, "null", 4);
    j->len += c + 4;
}
void json_hex_u64(json_out *j, uint64_t v); /* "0x..." as a string */
void json_hex_upper_u64(json_out *j, uint64_t v); /* "0x1F": value_format.h's hex integers */
void json_hex_bytes(json_out *j, const uint8_t *p, size_t n); /* "0a1b..." */
void json_newline(json_out *j);
/* A value already in JSON form (a number, "true", a quoted string), with the comma logic. */
void json_raw(json_out *j, const char *s, size_t n);
/* Write out what is buffered (call before reading the FILE or at the end): json_flush, above. */

/* A key and its value in one call: the pair every writer of an object repeats.  For a literal
 * key that needs no escaping (the compiler decides it) the key, its ':' and the value go out in
 * one reservation with one separator decision: the pair leaves the level needing a comma, as
 * key then value would. */
#define JSON_PAIR_ROOM (JSON_SHORT_STRING + 4 + 24)
JSON_INLINE bool json_literal_key(const char *key, size_t n)
{
    return JSON_IS_CONSTANT(n) && n <= JSON_SHORT_STRING && !json_needs_escape(key, n);
}


JSON_INLINE void json_key_u64(json_out *j, const char *key, uint64_t v)
{
    size_t n = strlen(key);
    if (json_literal_key(key, n)) {
        char *d = json_room(j, JSON_PAIR_ROOM);
        size_t at = json_put_key(j, d, key, n);
        unsigned len = json_dec_len(v);
        json_put_dec(d + at, v, len);
        j->len += at + len;
        return;
    }
    json_key(j, key);
    json_u64(j, v);
}
JSON_INLINE void json_key_i64(json_out *j, const char *key, int64_t v)
{
    if (v >= 0) {
        json_key_u64(j, key, (uint64_t)v);
        return;
    }
    json_key(j, key);
    json_i64(j, v);
}
JSON_INLINE void json_key_hex_u64(json_out *j, const char *key, uint64_t v)
{
    size_t n = strlen(key);
    if (json_literal_key(key, n)) {
        char *d = json_room(j, JSON_PAIR_ROOM);
        size_t at = json_put_key(j, d, key, n);
        unsigned len = json_hex_len(v);
        memcpy(d + at, "\"0x", 3);
        json_put_hex(d + at + 3, v, len, false);
        d[at + 3 + len] = '"';
        j->len += at + len + 4;
        return;
    }
    json_key(j, key);
    json_hex_u64(j, v);
}
JSON_INLINE void json_key_string(json_out *j, const char *key, const char *s)
{
    json_key(j, key);
    json_string(j, s);
}

#endif
