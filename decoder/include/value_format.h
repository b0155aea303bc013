/* value_format.h - the one formatter: a field's bytes, in-type and out-type to a typed value and
 * to text, rendered the way Windows (TDH) renders them (etw-formats.md 8.2/8.3).
 *
 * Two outputs from the same decision, so they never disagree:
 *   - a typed value (etl_value): what a consumer with types needs - the Wireshark dissector maps
 *     it to typed header fields, etldump to JSON numbers, booleans and strings;
 *   - text: what a person reads (etldump's strings, the dissector's etl.field.value).
 *
 * The out-type chooses the rendering when it makes sense for the in-type; an unknown or
 * unsupported in/out pairing (and NOPRINT) falls back to the in-type's default, as Windows
 * decoders do.  `format` in the typed value is that effective out-type.
 *
 * Text conventions (stable; tests pin them):
 *   integers            decimal; HEXINT8..64, POINTER, CODE_POINTER: "0x" + upper-case hex, no padding
 *   WIN32ERROR          decimal, plus " (NAME)" for the common codes: "5 (ERROR_ACCESS_DENIED)"
 *   NTSTATUS, HRESULT   "0x%08X", plus " (NAME)": "0xC0000022 (STATUS_ACCESS_DENIED)"
 *   BOOLEAN             "true" / "false"
 *   FLOAT, DOUBLE       shortest text that reads back to the same value ("%.9g"/"%.17g" at most)
 *   GUID                "{0AD614C4-0EF4-4225-8013-F44F37CB0397}" (StringFromGUID2 style)
 *   FILETIME/SYSTEMTIME ISO 8601 UTC, 7 fraction digits: "2021-09-09T14:59:35.7990000Z"
 *   SID                 "S-1-5-21-..."
 *   binary              lower-case hex, no prefix ("" when empty), as etldump's payload_hex
 *   IPV4 / IPV6         dotted quad / RFC 5952; SOCKETADDRESS "1.2.3.4:80", "[::1]:443"
 *   PORT                decimal of the big-endian u16
 *   8-bit strings       UTF-8 when valid, else Windows-1252 (TraceLogging's own assumption),
 *                       so no byte is lost; UTF8/JSON/XML out-types the same way
 *   char (STRING out on INT8/UINT8/UINT16)  the one character
 *   mapped integers     (manifest valueMap/bitMap on the item) the map's names: a value map's
 *                       name for the value; a bit map's names of every entry whose bits are all
 *                       set, lowest value first, joined by " | ", then any bits no entry names
 *                       as "0x.." ("CONCURRENT_GC | SERVER_GC | 0x800000"); a value that has
 *                       no name (value map miss, no named bit set) renders as the number
 *   TDH types 300-310   as their base type: counted/reversed/unterminated strings as strings,
 *                       UNICODECHAR/ANSICHAR as a character, SIZET as a pointer, HEXDUMP as
 *                       binary, WBEMSID as its SID
 *
 * No allocation; the caller passes the buffers.  ETL_VALUE_TEXT_CAP(size) bytes always hold the
 * whole text of a value of `size` bytes (and the scratch text of a typed value); with less, text
 * is cut at a UTF-8 character boundary and `truncated` is set. */
#ifndef ETL_VALUE_FORMAT_H
#define ETL_VALUE_FORMAT_H

#include "etl.h"
#include "fields.h"
#include "schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Text capacity that always suffices for a value of n bytes. */
#define ETL_VALUE_TEXT_CAP(n) (3u * (size_t)(n) + 256u)

typedef enum etl_value_kind {
    ETL_VALUE_NONE = 0, /* the bytes are too short for the type: text is their hex */
    ETL_VALUE_INT,      /* i */
    ETL_VALUE_UINT,     /* u (also hex, PID/TID, port, error codes) */
    ETL_VALUE_DOUBLE,   /* d (FLOAT widened) */
    ETL_VALUE_BOOL,     /* b */
    ETL_VALUE_STRING,   /* str/str_len: UTF-8, not NUL-terminated */
    ETL_VALUE_BYTES,    /* bytes/bytes_len (also IPV4/IPV6/SOCKETADDRESS: the raw address) */
    ETL_VALUE_GUID,     /* guid */
    ETL_VALUE_FILETIME  /* filetime: 100 ns since 1601-01-01 UTC (SYSTEMTIME converted) */
} etl_value_kind;

typedef struct etl_value {
    etl_value_kind kind;
    uint16_t format;     /* the effective out-type (ETL_OUT_*), never NULL/NOPRINT */
    uint8_t bits;        /* INT/UINT/DOUBLE: width of the in-type; POINTER: record pointer bits */
    bool truncated;      /* STRING: the text did not fit the scratch buffer */
    union {
        int64_t i;
        uint64_t u;
        double d;
        bool b;
        int64_t filetime;
        etl_guid guid;
    } v;
    const char *str;     /* STRING: into the payload (valid UTF-8 8-bit strings) or the buffer */
    size_t str_len;
    const uint8_t *bytes;
    size_t bytes_len;
} etl_value;

/* The out-type actually used for an in/out pair: `out` when Windows renders the pair that way,
 * else the in-type's default. */
uint16_t etl_value_effective_format(unsigned in_type, unsigned out_type);

/* A byte count not known yet (etl_value_nominal of a field before any payload). */
#define ETL_VALUE_SIZE_ANY ((size_t)-1)

/* A field's nominal type: the kind, bits and format (and bytes_len of IPV4/IPV6 addresses: 4,
 * 16) that a well-formed value of in_type/out_type gets from etl_value_decode_raw; n is its
 * byte count, or ETL_VALUE_SIZE_ANY when the payload decides it.  The one rule the decoder
 * itself follows: a decoded value departs from it only when its bytes do - a FILETIME past year
 * 9999 stays a UINT, an impossible SYSTEMTIME or a malformed SID are BYTES. */
void etl_value_nominal(unsigned in_type, unsigned out_type, uint8_t pointer_size, size_t n, etl_value *v);
/* The part of that rule that needs no byte count, as a schema step keeps it (schema.h
 * etl_step_nominal; the schema builder calls this once per VALUE step). */
etl_step_nominal etl_value_type_nominal(unsigned in_type, unsigned out_type, uint8_t pointer_size);
/* The same for an item: of the enumerator (fields.h) or of a schema walk (schema_walk.h, where
 * size is UINT32_MAX when the payload decides it). */
void etl_item_nominal(const etl_item *it, etl_value *v);

/* Typed value of bytes p[0..n) of in_type/out_type.  `buf` (cap bytes) is scratch for text that
 * has to be converted (UTF-16, Windows-1252, chars, SIDs); strings point into it or into p. */
void etl_value_decode_raw(unsigned in_type, unsigned out_type, const uint8_t *p, size_t n, uint8_t pointer_size,
                          etl_value *v, char *buf, size_t cap);
/* Typed value of a VALUE item. */
void etl_value_decode(const etl_item *it, etl_value *v, char *buf, size_t cap);

/* How the text of an unsigned integer value (ETL_VALUE_UINT) is written - the one rule behind
 * a JSON writer's "number or string" and a typed field's base: */
typedef enum etl_int_style {
    ETL_INT_DECIMAL = 0, /* its decimal number */
    ETL_INT_HEX,         /* "0x1F": HEXINT8..64, POINTER, CODE_POINTER */
    ETL_INT_CODE,        /* decimal and a name: WIN32ERROR "5 (ERROR_ACCESS_DENIED)" */
    ETL_INT_CODE_HEX     /* "0x%08X" and a name: NTSTATUS, HRESULT */
} etl_int_style;
/* The style of an unsigned integer value of effective out-type `format`. */
static inline etl_int_style etl_format_int_style(uint16_t format)
{
    switch (format) {
    case ETL_OUT_HEXINT8: case ETL_OUT_HEXINT16: case ETL_OUT_HEXINT32: case ETL_OUT_HEXINT64:
    case ETL_OUT_CODE_POINTER:
        return ETL_INT_HEX;
    case ETL_OUT_WIN32ERROR:
        return ETL_INT_CODE;
    case ETL_OUT_NTSTATUS: case ETL_OUT_HRESULT:
        return ETL_INT_CODE_HEX;
    default:
        return ETL_INT_DECIMAL;
    }
}
/* Inline: asked for every integer value that is written out. */
static inline etl_int_style etl_value_int_style(const etl_value *v)
{
    return v->kind == ETL_VALUE_UINT ? etl_format_int_style(v->format) : ETL_INT_DECIMAL;
}
/* Is the value's number shown in hex (ETL_INT_HEX or ETL_INT_CODE_HEX)? */
static inline bool etl_value_is_hex(const etl_value *v)
{
    etl_int_style s = etl_value_int_style(v);
    return s == ETL_INT_HEX || s == ETL_INT_CODE_HEX;
}

/* The number of a fixed-size integer field (nominal kind INT or UINT, PORT aside) from its
 * bytes p[0..nm->fixed): what etl_value_decode puts in v.u, INT sign-extended from its width.
 * Inline: the enumerator's scalar runs (fields.h) and the value decoder share it. */
static inline uint64_t etl_nominal_int(const etl_step_nominal *nm, const uint8_t *p)
{
    uint64_t x;
    switch (nm->fixed) {
    case 1: x = p[0]; break;
    case 2: x = (uint64_t)(p[0] | p[1] << 8); break;
    case 4: x = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24; break;
    default:
        x = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
            (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
        break;
    }
    if (nm->kind == ETL_VALUE_INT && nm->bits < 64) { /* sign-extend from the in-type's width */
        uint64_t sign = 1ULL << (nm->bits - 1);
        x = (x ^ sign) - sign;
    }
    return x;
}

/* The typed value of a scalar of a run (fields.h etl_fields_next_scalars), as etl_value_decode
 * gives it for the VALUE item the enumerator would have handed out instead: for a renderer's
 * rare cases (a number beyond what it writes as one).  f is the enumerator of the run, its
 * payload still valid. */
void etl_scalar_value(const etl_fields *f, const etl_scalar *sc, etl_value *v);

/* The text of a scalar, as etl_value_text gives it for that value: its decimal number, or "0x"
 * and upper-case hex; out has ETL_SCALAR_TEXT_MAX bytes (the longest, "-9223372036854775808",
 * and its NUL fit).  Returns its length. */
#define ETL_SCALAR_TEXT_MAX 24u
size_t etl_scalar_text(const etl_scalar *sc, char out[ETL_SCALAR_TEXT_MAX]);

/* Text of a decoded value into out (cap bytes, NUL-terminated); returns its length. */
size_t etl_value_text(const etl_value *v, char *out, size_t cap);
/* Text of raw bytes / of a VALUE item (decode + text in one call, one buffer). */
size_t etl_value_format_raw(unsigned in_type, unsigned out_type, const uint8_t *p, size_t n, uint8_t pointer_size,
                            char *out, size_t cap);
size_t etl_value_format(const etl_item *it, char *out, size_t cap);

/* Bit map names are joined with this.  TDH's exact separator is not documented (etw-formats.md
 * section 11); " | " is what Microsoft's TDH consumer sample (PrintMapString in "Using
 * TdhGetProperty to consume event data") prints between names, and it reads unambiguously
 * next to names that contain spaces or commas. */
#define ETL_BITMAP_SEPARATOR " | "

/* The map names of a VALUE item that carries a map (it->map), for its decoded value v: true
 * and the text in out (*len bytes) when the value has a name, false (nothing written) when it
 * has none or the item has no map - then the value shows as its number.  etl_value_format
 * already applies this. */
bool etl_value_map_text(const etl_item *it, const etl_value *v, char *out, size_t cap, size_t *len);
/* The same on a compiled map (schema.h layout) and an integer key. */
bool etl_map_text(const uint8_t *map, uint32_t map_len, const char *strings, uint64_t key, char *out, size_t cap,
                  size_t *len);

/* Character arrays: an ARRAY_BEGIN of INT8/UINT8/UINT16 with the STRING out-type (TraceLogging's
 * CharArray encodings) is shown by Windows as one string.  True for such items when the whole
 * array's bytes are at hand (elem_size set); etl_value_char_array then gives the text (the
 * string stops at a NUL).  Callers then pass over the elements with etl_fields_skip. */
bool etl_value_is_char_array(const etl_item *array_begin);
size_t etl_value_char_array(const etl_item *array_begin, char *out, size_t cap, bool *truncated);

/* Names of common error codes, or NULL. */
const char *etl_win32_error_name(uint32_t code);
const char *etl_ntstatus_name(uint32_t code);
const char *etl_hresult_name(uint32_t code);

#ifdef __cplusplus
}
#endif

#endif /* ETL_VALUE_FORMAT_H */
