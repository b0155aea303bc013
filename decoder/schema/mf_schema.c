/* mf_schema.c - compile manifest model events into schema programs (mf_schema.h).
 *
 * The template is a flat list of properties in document order where a struct is followed by
 * its members (manifest.h), so the compiler walks it recursively, one logical property at a
 * time, and emits the program as it goes.  Struct nesting is bounded by the manifest parser
 * (ETL_MF_MAX_STRUCT_DEPTH) and again here by ETL_SCHEMA_MAX_DEPTH.
 *
 * Damage policy, as in tl_schema.c: everything compiled before the first property that cannot be
 * compiled stays; the program then ends in one UNSUPPORTED step saying which property and why. */
#include "mf_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "error.h"

#define NO_SLOT 0xFFu
/* Maps one template can attach (distinct maps; a map used by several fields is compiled once). */
#define MF_MAX_MAPS_PER_EVENT 64u

typedef struct map_done {
    const etl_mf_map *map;
    uint32_t off, len;
} map_done;

typedef struct mf_ctx {
    etl_schema_builder *b;
    const etl_mf_provider *prov;
    const etl_mf_template *t;
    uint8_t pointer_size;
    uint8_t slot_of[ETL_MF_MAX_PROPERTIES]; /* per property: its reference slot, or NO_SLOT */
    map_done maps[MF_MAX_MAPS_PER_EVENT];
    uint32_t map_count;
} mf_ctx;

/* Manifest problems have no byte offset (the model is parsed already): always 0. */
#define fail(c, code, ...) etl_schema_builder_fail((c)->b, (code), 0, __VA_ARGS__)

static uint32_t add_str(etl_schema_builder *b, const char *s)
{
    return s && *s ? etl_schema_builder_add_string(b, s, strlen(s)) : 0;
}

/* In-types whose value is an unsigned integer the enumerator can keep for a reference, and
 * that a map can name. */
static bool is_integer(uint16_t in)
{
    switch (in) {
    case ETL_IN_INT8: case ETL_IN_UINT8: case ETL_IN_INT16: case ETL_IN_UINT16: case ETL_IN_INT32:
    case ETL_IN_UINT32: case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_HEXINT32: case ETL_IN_HEXINT64:
    case ETL_IN_POINTER: case ETL_IN_SIZET: case ETL_IN_BOOLEAN:
        return true;
    default:
        return false;
    }
}

/* How many properties (itself and its members, recursively) property i spans. */
static uint32_t span(const etl_mf_template *t, uint32_t i, unsigned depth)
{
    if (i >= t->prop_count)
        return 0;
    uint32_t n = 1;
    if (t->props[i].is_struct && depth < ETL_MF_MAX_STRUCT_DEPTH + 1)
        for (uint32_t k = 0; k < t->props[i].member_count && i + n < t->prop_count; k++)
            n += span(t, i + n, depth + 1);
    return n;
}

static void st32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void st64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* By value, then by declaration order (kept in the entry's spare word while sorting), so
 * entries of equal value stay in the manifest's order whatever qsort does. */
static int cmp_entry(const void *a, const void *b)
{
    const uint8_t *p = a, *q = b;
    uint64_t x = etl_ld64(p), y = etl_ld64(q);
    if (x != y)
        return x < y ? -1 : 1;
    uint32_t i = etl_ld32(p + 12), j = etl_ld32(q + 12);
    return i < j ? -1 : i > j;
}

/* The compiled form of a map (schema.h), in the builder's bytes; false when it cannot be. */
static bool compile_map(mf_ctx *c, const etl_mf_map *m, uint32_t *off, uint32_t *len)
{
    for (uint32_t i = 0; i < c->map_count; i++)
        if (c->maps[i].map == m) {
            *off = c->maps[i].off;
            *len = c->maps[i].len;
            return true;
        }
    if (c->map_count >= MF_MAX_MAPS_PER_EVENT || m->entry_count > ETL_SCHEMA_MAX_MAP_ENTRIES)
        return false;
    size_t bytes = ETL_MAP_HEADER_SIZE + (size_t)m->entry_count * ETL_MAP_ENTRY_SIZE;
    uint8_t *blob = etl_mem_alloc(&c->b->alloc, bytes);
    if (!blob) {
        fail(c, ETL_ERR_NOMEM, "out of memory");
        return false;
    }
    st32(blob, m->is_bitmap ? ETL_MAP_BITMAP : 0);
    st32(blob + 4, m->entry_count);
    for (uint32_t i = 0; i < m->entry_count; i++) {
        uint8_t *e = blob + ETL_MAP_HEADER_SIZE + (size_t)i * ETL_MAP_ENTRY_SIZE;
        st64(e, m->entries[i].value);
        st32(e + 8, add_str(c->b, m->entries[i].text));
        st32(e + 12, i);
    }
    /* value maps are searched by value; bit maps render their names lowest value first, the
     * order compiled manifests and EventSource's own rendering give them (an EventSource
     * manifest lists a flags enum's names alphabetically) */
    if (m->entry_count > 1)
        qsort(blob + ETL_MAP_HEADER_SIZE, m->entry_count, ETL_MAP_ENTRY_SIZE, cmp_entry);
    for (uint32_t i = 0; i < m->entry_count; i++)
        st32(blob + ETL_MAP_HEADER_SIZE + (size_t)i * ETL_MAP_ENTRY_SIZE + 12, 0);
    *off = etl_schema_builder_add_bytes(c->b, blob, bytes);
    *len = (uint32_t)bytes;
    etl_mem_free(&c->b->alloc, blob);
    if (c->b->failed_nomem) {
        fail(c, ETL_ERR_NOMEM, "out of memory");
        return false;
    }
    c->maps[c->map_count].map = m;
    c->maps[c->map_count].off = *off;
    c->maps[c->map_count].len = *len;
    c->map_count++;
    return true;
}

/* The size rule of a <data> element; false (with the reason) when it has none. */
static bool value_rule(mf_ctx *c, const etl_mf_property *p, etl_schema_step *st)
{
    uint16_t in = p->in_type;
    bool ref_len = p->has_length && p->length_ref != ETL_MF_NO_REF;
    bool const_len = p->has_length && p->length_ref == ETL_MF_NO_REF;
    uint8_t ptr = c->pointer_size == 4 ? 4 : 8;
    st->size_rule = ETL_SIZE_FIXED;
    st->size = 0;
    switch (in) {
    case ETL_IN_UNICODESTRING: case ETL_IN_ANSISTRING: case ETL_IN_BINARY: {
        uint16_t unit = in == ETL_IN_UNICODESTRING ? 2 : 1;
        if (ref_len) {
            uint8_t slot = c->slot_of[p->length_ref];
            if (slot == NO_SLOT)
                return fail(c, ETL_ERR_LIMIT, "field '%.60s' takes its length from a field the decoder cannot keep",
                            p->name ? p->name : "");
            st->size_rule = ETL_SIZE_REF;
            st->size = unit;
            st->ref = slot;
            return true;
        }
        if (const_len) {
            if ((uint32_t)p->length * unit > UINT16_MAX)
                return fail(c, ETL_ERR_LIMIT, "field '%.60s' is longer than a record", p->name ? p->name : "");
            st->size = (uint16_t)(p->length * unit);
            return true;
        }
        if (in == ETL_IN_UNICODESTRING) {
            st->size_rule = ETL_SIZE_UTF16Z;
        } else if (in == ETL_IN_ANSISTRING) {
            st->size_rule = ETL_SIZE_ANSIZ;
        } else if (p->out_type == ETL_OUT_IPV6) {
            st->size = 16; /* tdh.h: a Binary IPv6 without a length is an IN6_ADDR */
        } else if (p->rest && !p->has_count) {
            st->size_rule = ETL_SIZE_REST; /* k:rest: every byte left */
        } else {
            return fail(c, ETL_ERR_CORRUPT, "field '%.60s' is win:Binary without a length", p->name ? p->name : "");
        }
        return true;
    }
    case ETL_IN_INT8: case ETL_IN_UINT8: case ETL_IN_ANSICHAR: st->size = 1; return true;
    case ETL_IN_INT16: case ETL_IN_UINT16: case ETL_IN_UNICODECHAR: st->size = 2; return true;
    case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_FLOAT: case ETL_IN_BOOLEAN: case ETL_IN_HEXINT32:
        st->size = 4;
        return true;
    case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_DOUBLE: case ETL_IN_FILETIME: case ETL_IN_HEXINT64:
        st->size = 8;
        return true;
    case ETL_IN_GUID: case ETL_IN_SYSTEMTIME: st->size = 16; return true;
    case ETL_IN_POINTER: case ETL_IN_SIZET: st->size = ptr; return true;
    case ETL_IN_SID: st->size_rule = ETL_SIZE_SID; return true;
    case ETL_IN_WBEMSID: st->size_rule = ETL_SIZE_WBEMSID; return true;
    case ETL_IN_COUNTEDSTRING: case ETL_IN_COUNTEDANSISTRING: case ETL_IN_COUNTEDBINARY:
    case ETL_IN_MOF_COUNTEDSTRING: case ETL_IN_MOF_COUNTEDANSISTRING:
        st->size_rule = ETL_SIZE_COUNTED16;
        return true;
    case ETL_IN_REVERSEDCOUNTEDSTRING: case ETL_IN_REVERSEDCOUNTEDANSISTRING:
        st->size_rule = ETL_SIZE_COUNTED16_BE;
        return true;
    case ETL_IN_NONNULLTERMINATEDSTRING: case ETL_IN_NONNULLTERMINATEDANSISTRING:
        st->size_rule = ETL_SIZE_REST;
        return true;
    case ETL_IN_HEXDUMP: st->size_rule = ETL_SIZE_COUNTED32; return true;
    default:
        return fail(c, ETL_ERR_CORRUPT, "field '%.60s' has an in-type the decoder has no rule for (%u)",
                    p->name ? p->name : "", (unsigned)in);
    }
}

static bool compile_props(mf_ctx *c, uint32_t first, uint32_t n, uint8_t depth, bool top, uint32_t *next);

/* Property i (with its members) at `depth`; *next gets the property after its subtree. */
static bool compile_prop(mf_ctx *c, uint32_t i, uint8_t depth, uint32_t *next)
{
    const etl_mf_property *p = &c->t->props[i];
    const char *pname = p->name ? p->name : "";
    *next = i + span(c->t, i, 0);
    uint32_t name = add_str(c->b, pname);
    bool is_array = p->has_count && (p->count_ref != ETL_MF_NO_REF || p->count != 1);
    uint32_t array_at = UINT32_MAX;
    uint8_t elem_depth = depth;
    if (depth >= ETL_SCHEMA_MAX_DEPTH - 1)
        return fail(c, ETL_ERR_LIMIT, "field '%.60s' nests deeper than %u", pname, ETL_SCHEMA_MAX_DEPTH);

    etl_schema_step vs = {0};
    if (!p->is_struct && !value_rule(c, p, &vs))
        return false;

    if (is_array) {
        etl_schema_step st = etl_schema_step_init(ETL_OP_ARRAY_BEGIN, name, depth, 0);
        if (p->count_ref != ETL_MF_NO_REF) {
            uint8_t slot = c->slot_of[p->count_ref];
            if (slot == NO_SLOT)
                return fail(c, ETL_ERR_LIMIT, "field '%.60s' takes its count from a field the decoder cannot keep",
                            pname);
            st.count_rule = ETL_COUNT_REF;
            st.ref = slot;
        } else if (p->rest) {
            /* k:rest: the payload's size says how many elements are there, at most count */
            if (p->is_struct || vs.size_rule != ETL_SIZE_FIXED || vs.size == 0)
                return fail(c, ETL_ERR_CORRUPT, "field '%.60s' is sized by the payload but its elements are not fixed-size",
                            pname);
            st.count_rule = ETL_COUNT_REST;
            st.count = p->count;
        } else {
            st.count_rule = ETL_COUNT_CONST;
            st.count = p->count;
        }
        st.in_type = p->is_struct ? 0 : p->in_type;
        st.out_type = p->is_struct ? 0 : p->out_type;
        if ((array_at = etl_schema_builder_add_step(c->b, &st, 0)) == UINT32_MAX)
            return false;
        elem_depth = (uint8_t)(depth + 1);
    }
    uint8_t elem_flag = is_array ? ETL_STEP_ELEMENT : 0;
    /* k:optional: the property's first step says "the event may end here" (top level only) */
    uint8_t opt_flag = p->optional && depth == 0 ? ETL_STEP_OPTIONAL : 0;
    if (is_array && opt_flag)
        c->b->steps[array_at].flags |= opt_flag;

    uint8_t flags = (uint8_t)(elem_flag | (is_array ? 0 : opt_flag));
    if (p->is_struct) {
        etl_schema_step st = etl_schema_step_init(ETL_OP_STRUCT_BEGIN, name, elem_depth, flags);
        st.count = p->member_count;
        uint32_t begin = etl_schema_builder_add_step(c->b, &st, 0);
        if (begin == UINT32_MAX)
            return false;
        uint32_t after;
        if (!compile_props(c, i + 1, p->member_count, (uint8_t)(elem_depth + 1), false, &after))
            return false;
        if (etl_schema_builder_close(c->b, begin, ETL_OP_STRUCT_END, 0) == UINT32_MAX)
            return false;
    } else {
        vs.op = ETL_OP_VALUE;
        vs.in_type = p->in_type;
        vs.out_type = p->out_type;
        vs.depth = elem_depth;
        vs.flags = flags;
        vs.name = name;
        if (c->slot_of[i] != NO_SLOT && !is_array) {
            vs.flags |= ETL_STEP_REFSLOT;
            vs.slot = c->slot_of[i];
        }
        const etl_mf_map *m = p->map_name && is_integer(p->in_type) ? etl_mf_find_map(c->prov, p->map_name) : NULL;
        uint32_t off, len;
        if (m && compile_map(c, m, &off, &len)) {
            vs.flags |= ETL_STEP_MAP;
            vs.data = off;
            vs.data_len = len;
        }
        if (c->b->failed)
            return false;
        if (etl_schema_builder_add_step(c->b, &vs, 0) == UINT32_MAX)
            return false;
    }
    return etl_schema_builder_end_field(c->b, array_at, 0);
}

/* n logical properties from `first`; *next gets the property after them. */
static bool compile_props(mf_ctx *c, uint32_t first, uint32_t n, uint8_t depth, bool top, uint32_t *next)
{
    uint32_t i = first;
    for (uint32_t k = 0; k < n; k++) {
        if (i >= c->t->prop_count)
            return fail(c, ETL_ERR_CORRUPT, "a struct declares more members than the template has");
        uint32_t after;
        if (!compile_prop(c, i, depth, &after))
            return false;
        if (top)
            c->b->field_count++;
        i = after;
    }
    *next = i;
    return true;
}

/* Give every property another one takes its length or count from a slot (in template order).
 * A referenced property must be a scalar integer; references past ETL_SCHEMA_MAX_REFS get no
 * slot, and the referencing property compiles to UNSUPPORTED. */
static void assign_slots(mf_ctx *c)
{
    const etl_mf_template *t = c->t;
    memset(c->slot_of, NO_SLOT, sizeof c->slot_of);
    uint8_t next = 0;
    for (uint32_t i = 0; i < t->prop_count && i < ETL_MF_MAX_PROPERTIES; i++) {
        const etl_mf_property *p = &t->props[i];
        uint16_t refs[2] = {p->has_length ? p->length_ref : ETL_MF_NO_REF, p->has_count ? p->count_ref : ETL_MF_NO_REF};
        for (int k = 0; k < 2; k++) {
            uint16_t r = refs[k];
            if (r == ETL_MF_NO_REF || r >= t->prop_count || r >= i || c->slot_of[r] != NO_SLOT)
                continue;
            const etl_mf_property *q = &t->props[r];
            bool scalar = !q->has_count || (q->count_ref == ETL_MF_NO_REF && q->count == 1);
            if (q->is_struct || !is_integer(q->in_type) || !scalar || next >= ETL_SCHEMA_MAX_REFS)
                continue;
            c->slot_of[r] = next++;
        }
    }
    c->b->ref_slots = next;
}

/* The display name under either rule: manifests leave opcode 0 out, classic events show it when
 * it is named (FileIo type 0 is "Name"). */
static size_t display_name(const etl_mf_event *e, bool classic, char *out, size_t cap)
{
    int n;
    if (!cap)
        return 0;
    bool opcode_shown = (classic || e->opcode != 0) && e->opcode_name && *e->opcode_name &&
                        strcmp(e->opcode_name, "Info") != 0;
    if (e->name && *e->name)
        n = snprintf(out, cap, "%s", e->name);
    else if (e->task_name && *e->task_name)
        n = opcode_shown ? snprintf(out, cap, "%s/%s", e->task_name, e->opcode_name) : snprintf(out, cap, "%s", e->task_name);
    else if (e->symbol && *e->symbol)
        n = snprintf(out, cap, "%s", e->symbol);
    else
        n = snprintf(out, cap, "EventID(%u)", (unsigned)e->id);
    if (n < 0)
        n = 0;
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

size_t etl_mf_event_display_name(const etl_mf_event *e, char *out, size_t cap)
{
    return display_name(e, false, out, cap);
}

etl_status etl_mf_compile(etl_schema_builder *b, const etl_mf_provider *p, const etl_mf_event *e,
                          uint8_t pointer_size, const char *origin, etl_error *err)
{
    return etl_mf_compile_as(b, p, e, pointer_size, origin, ETL_SCHEMA_MANIFEST, err);
}

etl_status etl_mf_compile_as(etl_schema_builder *b, const etl_mf_provider *p, const etl_mf_event *e,
                             uint8_t pointer_size, const char *origin, uint8_t source, etl_error *err)
{
    bool classic = source == ETL_SCHEMA_CLASSIC;
    etl_schema_builder_reset(b, classic ? ETL_SCHEMA_CLASSIC : ETL_SCHEMA_MANIFEST, pointer_size == 4 ? 4 : 8);
    /* the context (slots and maps per property) is too large for the stack of a host's thread */
    mf_ctx *c = etl_mem_alloc(&b->alloc, sizeof *c);
    if (!c)
        return etl_fail(err, ETL_ERR_NOMEM, 0, "out of memory compiling a manifest event");
    memset(c, 0, sizeof *c);
    c->b = b;
    c->prov = p;
    c->t = e->tmpl;
    c->pointer_size = pointer_size == 4 ? 4 : 8;

    char name[ETL_MF_MAX_EVENT_NAME];
    size_t nlen = display_name(e, classic, name, sizeof name);
    b->event_name = etl_schema_builder_add_string(b, name, nlen);
    b->provider_name = add_str(b, p->name);
    b->task_name = add_str(b, e->task_name);
    b->opcode_name = add_str(b, e->opcode_name);
    b->level_name = add_str(b, e->level_name);
    b->channel_name = add_str(b, e->channel_name);
    b->keywords_name = add_str(b, e->keywords_name);
    b->message = add_str(b, e->message);
    b->origin = add_str(b, origin ? origin : p->source);
    b->schema_version = e->version;

    if (c->t && c->t->prop_count) {
        uint32_t top = 0; /* top-level properties: those not inside a struct */
        for (uint32_t i = 0; i < c->t->prop_count; i += span(c->t, i, 0) ? span(c->t, i, 0) : 1)
            top++;
        assign_slots(c);
        uint32_t after;
        compile_props(c, 0, top, 0, true, &after);
    }
    etl_mem_free(&b->alloc, c);
    char context[48];
    snprintf(context, sizeof context, "event %u version %u", (unsigned)e->id, (unsigned)e->version);
    return etl_schema_builder_conclude(b, "a manifest event", context, err);
}

etl_status etl_mf_compile_manifest_data(etl_schema_builder *b, const char *provider_name, uint8_t pointer_size,
                                        etl_error *err)
{
    static const struct {
        const char *name;
        uint16_t in;
        uint8_t size;
    } envelope[] = {
        {"Format", ETL_IN_UINT8, 1},      {"MajorVersion", ETL_IN_UINT8, 1}, {"MinorVersion", ETL_IN_UINT8, 1},
        {"Magic", ETL_IN_UINT8, 1},       {"TotalChunks", ETL_IN_UINT16, 2}, {"ChunkNumber", ETL_IN_UINT16, 2},
    };
    etl_schema_builder_reset(b, ETL_SCHEMA_MANIFEST, pointer_size == 4 ? 4 : 8);
    b->event_name = add_str(b, "ManifestData");
    b->provider_name = add_str(b, provider_name);
    b->origin = add_str(b, "EventSource manifest chunk (built in)");
    b->schema_version = 1;
    for (size_t i = 0; i < sizeof envelope / sizeof envelope[0]; i++) {
        etl_schema_step st = {0};
        st.op = ETL_OP_VALUE;
        st.size_rule = ETL_SIZE_FIXED;
        st.size = envelope[i].size;
        st.in_type = envelope[i].in;
        st.name = add_str(b, envelope[i].name);
        etl_schema_builder_add_step(b, &st, 0);
        b->field_count++;
    }
    /* the chunk: UTF-8 manifest text, not terminated - the rest of the event */
    etl_schema_step st = {0};
    st.op = ETL_OP_VALUE;
    st.size_rule = ETL_SIZE_REST;
    st.in_type = ETL_IN_NONNULLTERMINATEDANSISTRING;
    st.out_type = ETL_OUT_UTF8;
    st.name = add_str(b, "Data");
    etl_schema_builder_add_step(b, &st, 0);
    b->field_count++;
    if (b->failed_nomem)
        return etl_fail(err, ETL_ERR_NOMEM, 0, "out of memory");
    return ETL_OK;
}

etl_status etl_mf_compile_string_only(etl_schema_builder *b, uint8_t pointer_size, etl_error *err)
{
    etl_schema_builder_reset(b, ETL_SCHEMA_MANIFEST, pointer_size == 4 ? 4 : 8);
    b->event_name = add_str(b, "EventWriteString");
    b->message = add_str(b, "%1");
    b->origin = add_str(b, "EVENT_HEADER_FLAG_STRING_ONLY (built in)");
    etl_schema_step st = {0};
    st.op = ETL_OP_VALUE;
    st.size_rule = ETL_SIZE_UTF16Z;
    st.in_type = ETL_IN_UNICODESTRING;
    st.name = add_str(b, "String");
    etl_schema_builder_add_step(b, &st, 0);
    b->field_count = 1;
    if (b->failed_nomem)
        return etl_fail(err, ETL_ERR_NOMEM, 0, "out of memory");
    return ETL_OK;
}
