/* schema.h - the compiled schema: how one kind of event's payload is laid out, as a flat program
 * of decode steps.
 *
 * Every schema source (TraceLogging metadata, manifests, TRACE_EVENT_INFO carried in the trace,
 * the classic kernel class document) compiles into the same shape, so nothing downstream knows
 * where a schema came from.
 * The shape is the one evtx uses for its compiled templates: the tree of fields is flattened
 * once, when the schema is first seen, into a list of steps that the enumerator (fields.h)
 * runs per event with a program counter and a small fixed stack - no recursion, no allocation,
 * no re-parsing of metadata per event.
 *
 * Steps, in payload order:
 *
 *   VALUE          one value: in-type, out-type, name, tag and a size rule (fixed size, NUL
 *                  terminated UTF-16 or 8-bit, u16 byte-count prefix (little- or big-endian),
 *                  u32 byte-count prefix, SID, TOKEN_USER + SID, the rest of the payload, or
 *                  a length read earlier from another field - see "references" below); a
 *                  value may carry a value map or bit map that names its integer values
 *   STRUCT_BEGIN   a group of `count` member fields (the members' steps follow), no bytes
 *   STRUCT_END
 *   ARRAY_BEGIN    the element program that follows (one VALUE, CUSTOM or STRUCT_BEGIN..END)
 *                  repeats `count` times (COUNT_CONST), as many times as a u16 read from the
 *                  payload says (COUNT_U16), or as another field's value says (COUNT_REF);
 *                  `match` is the index of the ARRAY_END
 *   ARRAY_END
 *   CUSTOM         u16 byte count + opaque bytes serialized by a custom protocol (Bond,
 *                  protobuf...); the metadata's schema bytes are kept with the step
 *   UNSUPPORTED    decoding cannot go on from here: the reason is kept with the step; the
 *                  enumerator reports the rest of the payload as a placeholder
 *
 * References (manifests: length="Prop", count="Prop").  A VALUE step whose value another step
 * needs has the REFSLOT flag and `slot`: when the enumerator passes it, it keeps the value (an
 * unsigned integer of 1, 2, 4 or 8 bytes) in that slot; a later SIZE_REF value or COUNT_REF
 * array reads slot `ref`.  Slots are few (ETL_SCHEMA_MAX_REFS) and live in the enumerator,
 * so running a program still allocates nothing.  A reference inside an array of structs reads
 * the value of the current element, as TDH does.
 *
 * Maps: a VALUE step with the MAP flag keeps a compiled map in the schema's bytes at `data`
 * (`data_len` bytes): u32 flags (bit 0: bit map), u32 entry count, then per entry u64 value and
 * u32 offset of its name in the strings, u32 zero.  Entries are sorted by value: value maps
 * are searched by binary search, bit maps render their names lowest value first (entries of
 * equal value in the manifest's order).
 *
 * Event facts (manifest sources): besides the event name, a schema can carry the provider's
 * name, the task, opcode, level, channel and keyword names and the event's message string
 * (with %1-style inserts) as string offsets, and the origin it was compiled from (a manifest
 * file, "EventSource manifest ...", "schemas carried in the trace"); 0 = none.
 *
 * A schema owns all its bytes: the steps, the names (NUL-terminated UTF-8), the custom schema
 * bytes and the key it was cached under live in one block (in the cache's arena, or one
 * allocation from etl_schema_builder_finish), so a schema pointer stays valid as long as the
 * block does and reading one never touches the metadata it came from.
 *
 * Type numbers: in_type and out_type use the TDH numbering (TDH_INTYPE_* / TDH_OUTTYPE_*,
 * etw-formats.md 8.1/8.2) whatever the source, so one formatter (value_format.h) renders them
 * all.  TraceLogging in-types 1-25 are TDH's numbers; TraceLogging out-types are NOT (TlgOut
 * 2 is STRING where TDH_OUTTYPE 2 is DATETIME, ...), so the TraceLogging compiler translates
 * them and keeps the original in `raw_out`. */
#ifndef ETL_SCHEMA_H
#define ETL_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- named limits ----------------------------------------------------------------------- */

/* Containers (structs and arrays together) open at once.  TraceLogging allows 127 members per
 * struct but real events nest a few levels; 32 keeps the enumerator's stack small and the
 * JSON writer's fixed nesting (64) out of reach. */
#define ETL_SCHEMA_MAX_DEPTH 32u
/* Fields (metadata entries, struct headers included) in one schema.  Windows tools stop at 128
 * fields; the format allows about 16 K in 32 KiB of metadata. */
#define ETL_SCHEMA_MAX_FIELDS 2048u
/* Steps in one program: each field gives at most three (ARRAY_BEGIN, VALUE, ARRAY_END), plus
 * the final UNSUPPORTED. */
#define ETL_SCHEMA_MAX_STEPS (3u * ETL_SCHEMA_MAX_FIELDS + 1u)
/* Bytes of schema metadata a source may hand the compiler (TraceLogging's own limit is 32767;
 * manifest templates reuse this bound). */
#define ETL_SCHEMA_MAX_METADATA 65535u
/* Elements of one array run.  Counts are u16 in every format; the bound is stated so the
 * enumerator's arithmetic can rely on it. */
#define ETL_SCHEMA_MAX_ARRAY_COUNT 65535u
/* Items one event may yield before the enumerator stops it with a placeholder.  Nested arrays
 * of structs multiply; this keeps hostile input to bounded work per event. */
#define ETL_FIELDS_MAX_ITEMS (1u << 20)

/* ---- type numbers (TDH) ----------------------------------------------------------------- */

enum {
    ETL_IN_NULL = 0,
    ETL_IN_UNICODESTRING = 1,
    ETL_IN_ANSISTRING = 2,
    ETL_IN_INT8 = 3,
    ETL_IN_UINT8 = 4,
    ETL_IN_INT16 = 5,
    ETL_IN_UINT16 = 6,
    ETL_IN_INT32 = 7,
    ETL_IN_UINT32 = 8,
    ETL_IN_INT64 = 9,
    ETL_IN_UINT64 = 10,
    ETL_IN_FLOAT = 11,
    ETL_IN_DOUBLE = 12,
    ETL_IN_BOOLEAN = 13, /* 4 bytes (BOOL32) */
    ETL_IN_BINARY = 14,
    ETL_IN_GUID = 15,
    ETL_IN_POINTER = 16, /* TraceLogging: "unsupported", best effort by record bitness */
    ETL_IN_FILETIME = 17,
    ETL_IN_SYSTEMTIME = 18,
    ETL_IN_SID = 19,
    ETL_IN_HEXINT32 = 20,
    ETL_IN_HEXINT64 = 21,
    ETL_IN_COUNTEDSTRING = 22,     /* u16 byte count + UTF-16LE */
    ETL_IN_COUNTEDANSISTRING = 23, /* u16 byte count + 8-bit */
    ETL_IN_STRUCT = 24,            /* TraceLogging struct (TDH RESERVED24) */
    ETL_IN_COUNTEDBINARY = 25,     /* u16 byte count + bytes */
    /* TDH's WBEM/MOF-era types (tdh.h numbers them from 300) */
    ETL_IN_MOF_COUNTEDSTRING = 300,             /* u16 byte count + UTF-16LE */
    ETL_IN_MOF_COUNTEDANSISTRING = 301,        /* u16 byte count + 8-bit */
    ETL_IN_REVERSEDCOUNTEDSTRING = 302,         /* big-endian u16 byte count + UTF-16LE */
    ETL_IN_REVERSEDCOUNTEDANSISTRING = 303,     /* big-endian u16 byte count + 8-bit */
    ETL_IN_NONNULLTERMINATEDSTRING = 304,       /* UTF-16LE to the end of the payload */
    ETL_IN_NONNULLTERMINATEDANSISTRING = 305,   /* 8-bit to the end of the payload */
    ETL_IN_UNICODECHAR = 306,                   /* one UTF-16 code unit */
    ETL_IN_ANSICHAR = 307,                      /* one byte */
    ETL_IN_SIZET = 308,                         /* pointer-sized unsigned integer */
    ETL_IN_HEXDUMP = 309,                       /* u32 byte count + bytes */
    ETL_IN_WBEMSID = 310                        /* TOKEN_USER (two pointers) + SID */
};

enum {
    ETL_OUT_NULL = 0, /* the in-type's default */
    ETL_OUT_STRING = 1,
    ETL_OUT_DATETIME = 2,
    ETL_OUT_BYTE = 3,
    ETL_OUT_UNSIGNEDBYTE = 4,
    ETL_OUT_SHORT = 5,
    ETL_OUT_UNSIGNEDSHORT = 6,
    ETL_OUT_INT = 7,
    ETL_OUT_UNSIGNEDINT = 8,
    ETL_OUT_LONG = 9,
    ETL_OUT_UNSIGNEDLONG = 10,
    ETL_OUT_FLOAT = 11,
    ETL_OUT_DOUBLE = 12,
    ETL_OUT_BOOLEAN = 13,
    ETL_OUT_GUID = 14,
    ETL_OUT_HEXBINARY = 15,
    ETL_OUT_HEXINT8 = 16,
    ETL_OUT_HEXINT16 = 17,
    ETL_OUT_HEXINT32 = 18,
    ETL_OUT_HEXINT64 = 19,
    ETL_OUT_PID = 20,
    ETL_OUT_TID = 21,
    ETL_OUT_PORT = 22,
    ETL_OUT_IPV4 = 23,
    ETL_OUT_IPV6 = 24,
    ETL_OUT_SOCKETADDRESS = 25,
    ETL_OUT_CIMDATETIME = 26,
    ETL_OUT_ETWTIME = 27,
    ETL_OUT_XML = 28,
    ETL_OUT_ERRORCODE = 29,
    ETL_OUT_WIN32ERROR = 30,
    ETL_OUT_NTSTATUS = 31,
    ETL_OUT_HRESULT = 32,
    ETL_OUT_CULTURE_INSENSITIVE_DATETIME = 33,
    ETL_OUT_JSON = 34,
    ETL_OUT_UTF8 = 35,
    ETL_OUT_PKCS7_WITH_TYPE_INFO = 36,
    ETL_OUT_CODE_POINTER = 37,
    ETL_OUT_DATETIME_UTC = 38,
    ETL_OUT_REDUCEDSTRING = 300,
    ETL_OUT_NOPRINT = 301
};

/* "UNICODESTRING", ...; NULL for numbers without a name. */
const char *etl_in_type_name(unsigned in_type);
const char *etl_out_type_name(unsigned out_type);

/* ---- the program ------------------------------------------------------------------------ */

typedef enum etl_schema_op {
    ETL_OP_VALUE = 0,
    ETL_OP_STRUCT_BEGIN,
    ETL_OP_STRUCT_END,
    ETL_OP_ARRAY_BEGIN,
    ETL_OP_ARRAY_END,
    ETL_OP_CUSTOM,
    ETL_OP_UNSUPPORTED
} etl_schema_op;

/* How many bytes a VALUE takes. */
typedef enum etl_size_rule {
    ETL_SIZE_FIXED = 0, /* `size` bytes */
    ETL_SIZE_UTF16Z,    /* UTF-16LE up to and including a u16 NUL (or the end of the payload) */
    ETL_SIZE_ANSIZ,     /* bytes up to and including a NUL (or the end of the payload) */
    ETL_SIZE_COUNTED16, /* u16 byte count, then that many bytes */
    ETL_SIZE_SID,       /* 8 + 4 x byte[1] */
    ETL_SIZE_COUNTED16_BE, /* big-endian u16 byte count, then that many bytes */
    ETL_SIZE_COUNTED32, /* u32 byte count, then that many bytes */
    ETL_SIZE_REST,      /* every byte left in the payload (possibly none) */
    ETL_SIZE_WBEMSID,   /* a u32 0 (no SID: 4 bytes), else 2 pointers of TOKEN_USER + a SID */
    ETL_SIZE_REF        /* slot `ref` x `size` bytes (`size` = bytes per unit: 2 for UTF-16) */
} etl_size_rule;

/* Where an array's element count comes from. */
typedef enum etl_count_rule {
    ETL_COUNT_CONST = 0, /* `count` in the step */
    ETL_COUNT_U16,       /* a u16 in the payload just before the elements */
    ETL_COUNT_REF,       /* the value in slot `ref` (a field read earlier) */
    ETL_COUNT_REST       /* as many fixed-size elements as the rest of the payload holds, at
                            most `count` (classic kernel events: StackWalk's frames) */
} etl_count_rule;

/* Step flags. */
enum {
    ETL_STEP_ELEMENT = 0x01, /* this step (VALUE, CUSTOM, STRUCT_BEGIN/END) is an array's element */
    ETL_STEP_REFSLOT = 0x02, /* VALUE: keep the value in slot `slot` for later SIZE_REF/COUNT_REF */
    ETL_STEP_MAP = 0x04,     /* VALUE: `data`/`data_len` hold a compiled value or bit map */
    ETL_STEP_OPTIONAL = 0x08 /* top-level VALUE/ARRAY_BEGIN/STRUCT_BEGIN: when the payload ends
                                exactly here, the event is complete (this field and the ones
                                after it are absent: a shorter form of the same class version) */
};

/* Reference slots per program: distinct fields whose value sizes or counts another field.  Real
 * manifests use one or two per template; past this the referencing field is UNSUPPORTED. */
#define ETL_SCHEMA_MAX_REFS 16u
/* Entries of one compiled map: what fits the builder's bound on one byte blob
 * (ETL_SCHEMA_MAX_METADATA).  Manifests do not bound a map, but real maps hold at most a few
 * hundred names; a larger one is not attached and its values show as numbers. */
#define ETL_SCHEMA_MAX_MAP_ENTRIES ((ETL_SCHEMA_MAX_METADATA - ETL_MAP_HEADER_SIZE) / ETL_MAP_ENTRY_SIZE)
/* Compiled map layout (see the top comment). */
#define ETL_MAP_HEADER_SIZE 8u
#define ETL_MAP_ENTRY_SIZE 16u
enum { ETL_MAP_BITMAP = 0x1 };

/* The byte-count-free part of a field's nominal type (value_format.h etl_value_nominal): what
 * every well-formed value of the field decodes as.  Filled in one place, when a step is added
 * (etl_schema_builder_add_step); the value decoder starts from it and applies the byte count. */
typedef struct etl_step_nominal {
    uint16_t in_type;     /* the in-type as rendered (TDH 300-310 as their base type) */
    uint16_t format;      /* the effective out-type (etl_value_effective_format) */
    uint8_t kind;         /* etl_value_kind of a well-formed value */
    uint8_t bits;         /* INT/UINT/DOUBLE width; chars: 8 or 16 */
    uint8_t fixed;        /* bytes the in-type needs (0 when variable) */
    uint8_t pointer_size; /* 4 or 8: the pointer size it was worked out for; 0 = not computed */
} etl_step_nominal;

/* One step.  Names, reasons and custom schema bytes are offsets into the schema's own storage
 * (etl_schema_name etc. turn them into pointers). */
typedef struct etl_schema_step {
    uint8_t op;         /* etl_schema_op */
    uint8_t size_rule;  /* VALUE: etl_size_rule */
    uint8_t count_rule; /* ARRAY_BEGIN: etl_count_rule */
    uint8_t flags;      /* ETL_STEP_* */
    uint16_t in_type;   /* TDH numbering (ETL_IN_*); ARRAY_BEGIN: the element's */
    uint16_t out_type;  /* TDH numbering (ETL_OUT_*), already translated from the source's */
    uint16_t size;      /* VALUE with ETL_SIZE_FIXED: bytes */
    uint16_t count;     /* ARRAY_BEGIN COUNT_CONST: elements; STRUCT_BEGIN: member fields */
    uint8_t raw_out;    /* the out-type byte as the source wrote it (TraceLogging: TlgOut) */
    uint8_t depth;      /* containers open around this step (0 = top level) */
    uint16_t dup;       /* 0, or N >= 2 when this is the Nth sibling with the same name */
    uint32_t name;      /* offset of a NUL-terminated UTF-8 name in the strings (0 = "") */
    uint32_t tag;       /* field tag (TraceLogging: 28 bits), 0 when none */
    uint32_t match;     /* BEGIN: index of its END; END: index of its BEGIN */
    uint32_t data;      /* CUSTOM: offset of the schema bytes; UNSUPPORTED: offset of the reason;
                           VALUE with MAP: offset of the compiled map in the bytes */
    uint32_t data_len;  /* CUSTOM: schema byte count; MAP: map byte count */
    uint8_t slot;       /* REFSLOT: the slot this value is kept in */
    uint8_t ref;        /* SIZE_REF / COUNT_REF: the slot read */
    uint8_t scalar;     /* VALUE: the enumerator's scalar style (fields.h etl_fields_step_scalar),
                           worked out once when the schema is emitted; 0 = not a scalar */
    uint8_t reserved;
    /* VALUE / CUSTOM: the value's nominal type, worked out once from in_type and out_type by
     * etl_schema_builder_add_step (etl_value_type_nominal, value_format.h) so that decoding a
     * value does not re-derive it per value; zero (pointer_size 0) when not computed. */
    etl_step_nominal nominal;
} etl_schema_step;

/* Schema sources: TraceLogging metadata; manifests (files, EventSource manifests, schemas carried
 * in the trace); classic kernel and MOF events (the project's kernel class document); WPP
 * messages (TMF files: schema/tmf/tmf_schema.h, where a VALUE step's tag is the argument's %N). */
enum { ETL_SCHEMA_TRACELOGGING = 1, ETL_SCHEMA_MANIFEST = 2, ETL_SCHEMA_CLASSIC = 3, ETL_SCHEMA_WPP = 4 };

/* One piece of a compiled message (message.h etl_message_compile): the message as literal text
 * (its escapes already applied) and inserts, in order, so that rendering copies pieces instead
 * of parsing the message per event. */
typedef struct etl_message_piece {
    uint32_t off;    /* literal: offset in message_literals; insert: offset of the insert as written
                        in the message string (what stays when the event has no such field) */
    uint32_t len;
    uint32_t insert; /* 0: literal text; else the insert number n (1..99) */
} etl_message_piece;

/* A compiled schema.  Read-only once built; safe to share between threads. */
typedef struct etl_schema {
    uint32_t index;           /* arena index in its cache (UINT32_MAX when not in a cache) */
    uint8_t source;           /* ETL_SCHEMA_* */
    uint8_t pointer_size;     /* the record bitness it was compiled for */
    bool complete;            /* false when the program ends in UNSUPPORTED */
    uint32_t step_count;
    uint32_t field_count;     /* top-level fields */
    uint32_t event_name;      /* string offset */
    uint32_t event_tags;
    uint32_t unsupported_at;  /* step index of the UNSUPPORTED step, or step_count */
    const etl_schema_step *steps;
    const char *strings;      /* offset 0 is "" */
    uint32_t strings_len;
    const uint8_t *bytes;     /* custom schema bytes */
    uint32_t bytes_len;
    const uint8_t *key;       /* the bytes the schema was cached under (TraceLogging: the raw
                                 metadata); NULL when built outside a cache */
    uint32_t key_len;
    /* event facts (string offsets, 0 = none): manifest sources fill them */
    uint32_t provider_name;
    uint32_t task_name, opcode_name, level_name, channel_name, keywords_name;
    uint32_t message;         /* the event's message string with %1-style inserts */
    uint64_t message_inserts[2]; /* the inserts it names: n (1..99) is bit n % 64 of [n / 64]
                                    (message.h: etl_message_inserts), worked out once here */
    uint8_t message_max_insert;  /* the highest of them, 0 when none */
    uint32_t message_piece_count; /* the message compiled once here (0 pieces: not compiled, the */
    const etl_message_piece *message_pieces; /* renderer parses the string) */
    const char *message_literals;
    uint32_t origin;          /* where the schema came from (file, stream, trace) */
    uint8_t schema_version;   /* manifests: the version of the definition compiled (it can be
                                 lower than the record's: see mf_schema.h) */
    uint8_t ref_slots;        /* reference slots the program uses */
    bool unknown;             /* no source describes the event: its name is made from its key
                                 ("Process/Opcode(99)") and the program is one UNSUPPORTED step
                                 that hands out the payload raw (classic events) */
} etl_schema;

static inline const char *etl_schema_str(const etl_schema *s, uint32_t off)
{
    return s->strings + off;
}
static inline const char *etl_schema_event_name(const etl_schema *s)
{
    return s->strings + s->event_name;
}
/* The reason of an UNSUPPORTED step / the schema's reason (NULL when complete). */
const char *etl_schema_reason(const etl_schema *s);

/* ---- allocation ------------------------------------------------------------------------- */

/* Where the schema machinery gets memory.  NULL members (or a NULL allocator) mean libc.  The
 * Wireshark plugin can pass g_malloc/wmem; tests pass a counting wrapper. */
typedef struct etl_allocator {
    void *(*alloc)(void *ctx, size_t size);
    void *(*realloc)(void *ctx, void *p, size_t size);
    void (*free)(void *ctx, void *p);
    void *ctx;
} etl_allocator;

void *etl_mem_alloc(const etl_allocator *a, size_t size);
void *etl_mem_realloc(const etl_allocator *a, void *p, size_t size);
void etl_mem_free(const etl_allocator *a, void *p);

/* ---- building --------------------------------------------------------------------------- */

/* Bytes of a compile problem's reason (the UNSUPPORTED step's text), NUL included. */
#define ETL_SCHEMA_MAX_REASON 160u

/* A reusable scratch area in which a source compiles one schema; its buffers grow once and are
 * reused for the next compile, so compiling allocates only until the largest schema is seen. */
typedef struct etl_schema_builder {
    etl_allocator alloc;
    etl_schema_step *steps;
    uint32_t step_count, step_cap;
    char *strings;
    uint32_t strings_len, strings_cap;
    uint8_t *bytes;
    uint32_t bytes_len, bytes_cap;
    /* the header fields of the schema being built */
    uint8_t source;
    uint8_t pointer_size;
    uint32_t field_count;
    uint32_t event_name;
    uint32_t event_tags;
    uint32_t provider_name, task_name, opcode_name, level_name, channel_name, keywords_name, message, origin;
    uint8_t schema_version;
    uint8_t ref_slots;
    bool unknown;
    bool failed_nomem;
    /* the first problem of this compile (see "the compile contract" below) */
    bool failed;
    etl_status fail_code;
    size_t fail_at;
    char fail_reason[ETL_SCHEMA_MAX_REASON];
} etl_schema_builder;

void etl_schema_builder_init(etl_schema_builder *b, const etl_allocator *alloc);
void etl_schema_builder_free(etl_schema_builder *b);
/* Start a new schema (keeps the buffers). */
void etl_schema_builder_reset(etl_schema_builder *b, uint8_t source, uint8_t pointer_size);

/* Append a NUL-terminated copy of s[0..len) to the strings; returns its offset (0 on failure:
 * the empty string, and failed_nomem is set). */
uint32_t etl_schema_builder_add_string(etl_schema_builder *b, const char *s, size_t len);
/* Append bytes; returns their offset. */
uint32_t etl_schema_builder_add_bytes(etl_schema_builder *b, const uint8_t *p, size_t len);

/* The compile contract, which every schema source (tl_schema.c, mf_schema.c) follows:
 *
 *   - the first problem is recorded in the builder (status, offset in the source metadata,
 *     reason) with etl_schema_builder_fail; later ones are ignored, so the compiler may simply
 *     return false up its recursion;
 *   - steps are added with etl_schema_builder_add_step and containers closed with
 *     etl_schema_builder_close, which record their own failure (the step limit, or memory) at
 *     the source offset given;
 *   - a field is opened with etl_schema_step_init (and, when it is an array, its ARRAY_BEGIN
 *     added first) and ended with etl_schema_builder_end_field;
 *   - the compile ends with etl_schema_builder_conclude: everything compiled before the problem
 *     stays, the program ends in one UNSUPPORTED step with its reason, and the problem becomes
 *     the compile's etl_error. */

/* Record the compile's problem (the first one only); returns false, for `return fail(...)`. */
bool etl_schema_builder_fail(etl_schema_builder *b, etl_status code, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* A step of `op` with its name, depth and flags, the rest zero; a BEGIN's match is UINT32_MAX
 * (open) until etl_schema_builder_close. */
static inline etl_schema_step etl_schema_step_init(uint8_t op, uint32_t name, uint8_t depth, uint8_t flags)
{
    etl_schema_step st = {0};
    st.op = op;
    st.name = name;
    st.depth = depth;
    st.flags = flags;
    if (op == ETL_OP_ARRAY_BEGIN || op == ETL_OP_STRUCT_BEGIN)
        st.match = UINT32_MAX;
    return st;
}
/* Append a step (copied); returns its index, or UINT32_MAX when ETL_SCHEMA_MAX_STEPS is
 * reached or memory ran out (recorded as the problem, at source offset `at`). */
uint32_t etl_schema_builder_add_step(etl_schema_builder *b, const etl_schema_step *st, size_t at);
/* Close the container opened at step `begin` (a STRUCT_BEGIN or ARRAY_BEGIN, whose match is
 * UINT32_MAX until now) with `end_op`: the END step copies the BEGIN step and the two point at
 * each other.  Returns the END's index, or UINT32_MAX like etl_schema_builder_add_step. */
uint32_t etl_schema_builder_close(etl_schema_builder *b, uint32_t begin, uint8_t end_op, size_t at);
/* End a field whose steps are in: close its array (`array_at`, its ARRAY_BEGIN, or UINT32_MAX
 * when it is not an array) and say a string or byte copy that ran out of memory.  False when
 * the compile has a problem. */
bool etl_schema_builder_end_field(etl_schema_builder *b, uint32_t array_at, size_t at);
/* End the compile: ETL_OK, or the problem as `err` ("<context>: <reason>" at its source offset;
 * "out of memory compiling <what>" at 0), the program then ending in UNSUPPORTED with the
 * reason (not when out of memory: the program is not usable). */
etl_status etl_schema_builder_conclude(etl_schema_builder *b, const char *what, const char *context, etl_error *err);
/* Append the final UNSUPPORTED step with a printf-style reason. */
void etl_schema_builder_unsupported(etl_schema_builder *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Bytes the finished schema occupies, key included. */
size_t etl_schema_builder_size(const etl_schema_builder *b, size_t key_len);
/* Lay the schema out in `mem` (etl_schema_builder_size bytes, 8-aligned) with a copy of the
 * key; fixes duplicate-name ordinals.  Returns the schema (at the start of mem). */
etl_schema *etl_schema_builder_emit(const etl_schema_builder *b, void *mem, const uint8_t *key, size_t key_len);
/* Same, into one allocation of its own (free with etl_schema_free and the same allocator).
 * NULL when out of memory. */
etl_schema *etl_schema_builder_finish(const etl_schema_builder *b, const uint8_t *key, size_t key_len);
void etl_schema_free(const etl_allocator *a, etl_schema *s);

#ifdef __cplusplus
}
#endif

#endif /* ETL_SCHEMA_H */
