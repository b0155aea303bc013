/* fields.h - the pull enumerator over an event's fields: the public API that etldump and the
 * Wireshark dissector both walk.
 *
 * Shape (after microsoft/LinuxTracepoints' EventEnumerator): start on a compiled schema and a
 * payload, then call etl_fields_next() until it returns ETL_ITEM_END.  Each call yields one item:
 *
 *   STRUCT_BEGIN / STRUCT_END    a struct's members come between them
 *   ARRAY_BEGIN / ARRAY_END      `array_count` elements come between them (each a VALUE or a
 *                                STRUCT_BEGIN..END with is_element set and array_index 0..n-1)
 *   VALUE                        one value: name, in/out type (TDH numbers), tag, raw bytes
 *   PLACEHOLDER                  decoding cannot go on: `reason`, and the rest of the payload
 *                                as raw bytes; every item before it was complete and correct
 *   END                          the end (after a PLACEHOLDER, END comes next whatever
 *                                containers are still open: consumers close them at END)
 *
 *   etl_fields f; etl_item it;
 *   etl_fields_start(&f, schema, payload, payload_size, rec.pointer_size);
 *   while (etl_fields_next(&f, &it) != ETL_ITEM_END) { ... switch (it.kind) ... }
 *
 * Values are not formatted here: `data`/`size` are the value's bytes in the payload (a u16 count
 * prefix excluded; a string's NUL terminator included when present), and value_format.h turns
 * them into typed values and text.  Every read is bounds-checked against the payload; a payload
 * shorter than its schema ends in a PLACEHOLDER, never in a read past its end.
 *
 * No allocation, no recursion: the state is this struct (about 700 bytes, fine on the stack)
 * and items point into the schema and the payload, which must outlive the walk.  Work per event
 * is bounded by ETL_FIELDS_MAX_ITEMS whatever the input. */
#ifndef ETL_FIELDS_H
#define ETL_FIELDS_H

#include "etl.h"
#include "schema.h"
#include "schema_cache.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etl_item_kind {
    ETL_ITEM_END = 0,
    ETL_ITEM_VALUE,
    ETL_ITEM_STRUCT_BEGIN,
    ETL_ITEM_STRUCT_END,
    ETL_ITEM_ARRAY_BEGIN,
    ETL_ITEM_ARRAY_END,
    ETL_ITEM_PLACEHOLDER
} etl_item_kind;

typedef struct etl_item {
    etl_item_kind kind;
    const char *name;      /* UTF-8, never NULL ("" at END and for unnamed placeholders) */
    uint16_t in_type;      /* TDH numbering (ETL_IN_*); ARRAY_*: the element's */
    uint16_t out_type;     /* TDH numbering (ETL_OUT_*) */
    uint8_t raw_out;       /* the source's own out-type byte (TraceLogging TlgOut) */
    uint8_t depth;         /* containers open around this item */
    uint8_t pointer_size;  /* of the record (4 or 8) */
    bool is_element;       /* VALUE / STRUCT_*: an element of the enclosing array */
    uint16_t dup;          /* 0, or N >= 2 for the Nth sibling with this name (schema.h) */
    uint16_t elem_size;    /* ARRAY_BEGIN/END: bytes per element when all are fixed-size, else 0 */
    uint32_t step;         /* the schema step: with the schema's arena index, the field's identity */
    uint32_t tag;          /* field tag, 0 when none */
    uint32_t array_index;  /* is_element: position in the array */
    uint32_t array_count;  /* ARRAY_BEGIN/END: number of elements; STRUCT_*: member fields */
    uint32_t offset;       /* payload offset of the item's first byte (a count prefix included);
                              *_END: of the container's first byte */
    uint32_t wire_size;    /* payload bytes the item spans (prefix included); *_END: the whole
                              container; ARRAY_BEGIN: the count prefix, plus the elements when
                              elem_size is set */
    const uint8_t *data;   /* VALUE: the value; ARRAY_BEGIN with elem_size: all elements;
                              PLACEHOLDER: the rest of the payload; END: bytes after the last
                              field (normally none) */
    uint32_t size;
    /* with ETL_FIELDS_CHAR_STRINGS: a character array handed out as one VALUE (kind VALUE,
     * in_type the element's, data/size every element, offset/wire_size the whole array);
     * value_format.h decodes it as the string Windows shows */
    bool char_array;
    /* custom-serialized values (TraceLogging in-meta 0x60): kind VALUE, in_type COUNTEDBINARY */
    bool custom;
    uint8_t custom_protocol;      /* the in-type bits of a custom field */
    const uint8_t *custom_schema; /* the schema bytes from the metadata */
    uint32_t custom_schema_len;
    const char *reason;           /* PLACEHOLDER: why */
    /* VALUE with a value map or bit map (manifests): the compiled map (schema.h) and the strings
     * its names are in; map is NULL when the value has none.  value_format.h renders it. */
    const uint8_t *map;
    uint32_t map_len;
    const char *map_strings;
    /* VALUE: the field's nominal type as its schema step keeps it (schema.h), which
     * etl_value_decode starts from; NULL (or not computed) when the item has no step */
    const etl_step_nominal *nominal;
} etl_item;

typedef struct etl_fields_frame {
    uint32_t begin; /* step of the STRUCT_BEGIN / ARRAY_BEGIN */
    uint32_t count; /* array elements */
    uint32_t index; /* current element */
    uint32_t start; /* payload offset where the container starts */
} etl_fields_frame;

/* Enumerator state; treat as opaque. */
typedef struct etl_fields {
    const etl_schema *schema;
    const uint8_t *data;
    uint32_t size, pos;
    uint32_t pc;
    uint32_t items;
    uint8_t pointer_size;
    uint8_t done;
    uint8_t depth;
    uint8_t last_kind;
    uint8_t pending; /* a placeholder found by etl_fields_skip, handed out next */
    uint8_t options; /* ETL_FIELDS_* */
    const char *pend_name, *pend_reason;
    etl_fields_frame stack[ETL_SCHEMA_MAX_DEPTH];
    uint32_t slots_kept; /* bit n: slots[n] was written in this walk (unwritten ones read 0) */
    uint64_t slots[ETL_SCHEMA_MAX_REFS]; /* values kept for length=/count= references */
} etl_fields;

/* Start on a payload.  pointer_size 0 = the schema's. */
void etl_fields_start(etl_fields *f, const etl_schema *schema, const uint8_t *payload, size_t size,
                      uint8_t pointer_size);

/* Options of etl_fields_start_opts. */
enum {
    /* Character arrays (an ARRAY_BEGIN of INT8/UINT8/UINT16 with the STRING out-type whose
     * elements are at hand: TraceLogging's CharArray encodings) come as one VALUE with
     * char_array set - Windows shows them as one string - and neither their elements nor
     * their ARRAY_END are handed out.  What every renderer wants; etl_decoder_resolve
     * (resolve.h) starts its enumerator so. */
    ETL_FIELDS_CHAR_STRINGS = 0x1
};
void etl_fields_start_opts(etl_fields *f, const etl_schema *schema, const uint8_t *payload, size_t size,
                           uint8_t pointer_size, unsigned options);

/* The key an item goes by among its siblings: its name, with "_N" on the Nth repeat of a name
 * (dup, schema.h) - "x", "x_2", "x_3"; a field literally named "x_2" beside them is not
 * renamed.  Returns it->name when the item is not a repeat, else `out` (cap bytes; a longer
 * key is cut).  ETL_ITEM_KEY_MAX always suffices. */
#define ETL_ITEM_KEY_MAX (ETL_SCHEMA_MAX_METADATA + 16u)
const char *etl_item_key(const etl_item *it, char *out, size_t cap);

/* The next item (also returned as the kind). */
etl_item_kind etl_fields_next(etl_fields *f, etl_item *item);

/* The next top-level value (the walk of a consumer that wants a few named fields of an event):
 * true with it in *item; false at the end or where decoding cannot go on (a placeholder). */
static inline bool etl_fields_next_top_value(etl_fields *f, etl_item *item)
{
    for (;;) {
        etl_item_kind k = etl_fields_next(f, item);
        if (k == ETL_ITEM_END || k == ETL_ITEM_PLACEHOLDER)
            return false;
        if (k == ETL_ITEM_VALUE && item->depth == 0)
            return true;
    }
}

/* ---- scalar runs: the fast path of a renderer ---------------------------------------------
 *
 * Most fields of kernel and manifest events are fixed-size integers shown as numbers, one after
 * the other (and the elements of arrays of them: stack addresses).  etl_fields_next_scalars
 * hands out such a run in one call - each value's number, its style and its step - instead of
 * one etl_item per value, with the same bounds checks; the enumerator then stands where as
 * many etl_fields_next calls would have left it, and the next item of any other kind (or the
 * placeholder where the payload ends inside a field) comes from etl_fields_next as before.
 *
 * A scalar is a VALUE the enumerator would hand out with a fixed size equal to its in-type's,
 * without a value map or bit map, not optional, not kept for a later length or count, whose
 * nominal type (value_format.h) is an integer of style ETL_INT_DECIMAL or ETL_INT_HEX (not a
 * PORT, an error code or a status): its value as etl_value_decode gives it is the number `u`,
 * and its text etl_value_text's of that number (decimal, or "0x" + upper-case hex).  Elements
 * of an array of one such VALUE are scalars too (keyless: the renderer knows it is in an
 * array); a run never crosses a container's begin or end. */
typedef enum etl_scalar_style {
    ETL_SCALAR_UINT = 1, /* unsigned, decimal (ETL_VALUE_UINT, ETL_INT_DECIMAL) */
    ETL_SCALAR_INT,      /* signed, decimal (ETL_VALUE_INT): u holds the int64_t */
    ETL_SCALAR_HEX       /* unsigned, "0x" + upper-case hex (ETL_VALUE_UINT, ETL_INT_HEX) */
} etl_scalar_style;

typedef struct etl_scalar {
    uint64_t u;      /* the value (ETL_SCALAR_INT: sign-extended, read it as int64_t) */
    uint32_t step;   /* the schema step, as etl_item.step */
    uint32_t offset; /* payload offset of its bytes, as etl_item.offset */
    uint8_t style;   /* etl_scalar_style */
} etl_scalar;

/* The scalar style of a step (its etl_scalar_style, 0 when its values are not scalars), with
 * ETL_SCALAR_POINTER_BOUND when its width is the pointer's (a POINTER: a scalar only for records
 * of the pointer size the schema was compiled for).  The schema builder keeps it in the step
 * (etl_schema_step.scalar) when it emits a schema. */
#define ETL_SCALAR_POINTER_BOUND 0x80u
#define ETL_SCALAR_STYLE_MASK 0x7Fu
uint8_t etl_fields_step_scalar(const etl_schema_step *st, uint8_t pointer_size);

/* Up to max scalars from the enumerator's position into out; how many (0 when the next item is
 * not a scalar or its bytes are not all in the payload, and then nothing changes).  Each counts
 * towards ETL_FIELDS_MAX_ITEMS as its item would.  Inline, the answer "the next item is not a
 * scalar" (a renderer asks before every item it takes, and most of its other items are not);
 * etl_fields_scalar_run is the rest, and the same on its own. */
unsigned etl_fields_scalar_run(etl_fields *f, etl_scalar *out, unsigned max);
static inline unsigned etl_fields_next_scalars(etl_fields *f, etl_scalar *out, unsigned max)
{
    if (f->pending || f->done || f->pc >= f->schema->step_count || !f->schema->steps[f->pc].scalar)
        return 0;
    return etl_fields_scalar_run(f, out, max);
}

/* The key of step `step` of the enumerator's schema among its siblings, as etl_item_key gives
 * it for that step's items. */
const char *etl_fields_step_key(const etl_fields *f, uint32_t step, char *out, size_t cap);

/* Right after an ARRAY_BEGIN or STRUCT_BEGIN: pass over its contents without yielding them, so
 * that the next item is its END (or a PLACEHOLDER if the contents are damaged).  Arrays of
 * fixed-size elements are skipped in O(1) - e.g. a char array shown as one string from
 * ARRAY_BEGIN's data.  False (and nothing changes) after any other item. */
bool etl_fields_skip(etl_fields *f);

/* ---- TraceLogging records ---------------------------------------------------------------- */

/* TDH-style test: the record's EVENT_SCHEMA_TL item (ext type 11), or NULL when the record is
 * not a TraceLogging event.  Decide "TraceLogging or not" by this, never by the channel. */
const etl_ext_item *etl_record_tl_schema(const etl_record *rec);
/* The record's PROV_TRAITS item (ext type 12), or NULL. */
const etl_ext_item *etl_record_tl_traits(const etl_record *rec);

/* Look the record's TraceLogging schema up in `cache` (compiling it on first sight) and start
 * `f` on its payload.  ETL_OK; ETL_ERR_NOT_FOUND when the record has no EVENT_SCHEMA_TL;
 * ETL_ERR_NOMEM / ETL_ERR_LIMIT from the cache.  *schema may be NULL. */
etl_status etl_fields_start_record(etl_fields *f, etl_schema_cache *cache, const etl_record *rec,
                                   const etl_schema **schema, etl_error *err);

/* "VALUE", "STRUCT_BEGIN", ... */
const char *etl_item_kind_name(etl_item_kind k);

#ifdef __cplusplus
}
#endif

#endif /* ETL_FIELDS_H */
