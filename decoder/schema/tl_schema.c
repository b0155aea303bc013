/* tl_schema.c - compile TraceLogging event metadata into a schema program; read provider traits.
 *
 * Metadata layout (etw-formats.md 5.1, checked against microsoft/tracelogging's encoders):
 *
 *   u16 Size | tags (7-bit groups, 0x80 = more) | event name NUL | fields until Size
 *   field:  name NUL | InMeta | [OutMeta if InMeta & 0x80] | [tags if OutMeta & 0x80]
 *           | [u16 CCount if count kind is 0x20] | [u16 CbSchema + schema if kind is 0x60]
 *
 * A struct (in-type 24) has OutMeta's low 7 bits = the number of following *logical* fields that
 * are its members (each may itself be a struct), so the compiler is a recursive descent over the
 * metadata that emits the flat program as it goes: one pass, no intermediate field list.  The
 * recursion depth is bounded by ETL_SCHEMA_MAX_DEPTH.
 *
 * Damage policy: everything compiled before the first problem stays; the program then ends in
 * one UNSUPPORTED step saying what was wrong (the enumerator shows the rest of the payload as a
 * placeholder).  Nothing here can read outside [meta, meta+len). */
#include "tl_schema.h"

#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "error.h"
#include "etl_format.h"

uint16_t etl_tl_out_to_tdh(unsigned in, unsigned out)
{
    /* integer width for the HEX / SIGNED / UNSIGNED out-types, which TDH spells per width */
    unsigned bits = 0;
    switch (in) {
    case ETL_IN_INT8: case ETL_IN_UINT8: bits = 8; break;
    case ETL_IN_INT16: case ETL_IN_UINT16: bits = 16; break;
    case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32: bits = 32; break;
    case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_HEXINT64: bits = 64; break;
    default: break;
    }
    switch (out) {
    case ETL_TLOUT_NULL: return ETL_OUT_NULL;
    case ETL_TLOUT_NOPRINT: return ETL_OUT_NOPRINT;
    case ETL_TLOUT_STRING: return ETL_OUT_STRING;
    case ETL_TLOUT_BOOLEAN: return ETL_OUT_BOOLEAN;
    case ETL_TLOUT_HEX:
        switch (bits) {
        case 8: return ETL_OUT_HEXINT8;
        case 16: return ETL_OUT_HEXINT16;
        case 32: return ETL_OUT_HEXINT32;
        case 64: return ETL_OUT_HEXINT64;
        default: break;
        }
        if (in == ETL_IN_BINARY || in == ETL_IN_COUNTEDBINARY)
            return ETL_OUT_HEXBINARY;
        return ETL_OUT_NULL;
    case ETL_TLOUT_PID: return ETL_OUT_PID;
    case ETL_TLOUT_TID: return ETL_OUT_TID;
    case ETL_TLOUT_PORT: return ETL_OUT_PORT;
    case ETL_TLOUT_IPV4: return ETL_OUT_IPV4;
    case ETL_TLOUT_IPV6: return ETL_OUT_IPV6;
    case ETL_TLOUT_SOCKETADDRESS: return ETL_OUT_SOCKETADDRESS;
    case ETL_TLOUT_XML: return ETL_OUT_XML;
    case ETL_TLOUT_JSON: return ETL_OUT_JSON;
    case ETL_TLOUT_WIN32ERROR: return ETL_OUT_WIN32ERROR;
    case ETL_TLOUT_NTSTATUS: return ETL_OUT_NTSTATUS;
    case ETL_TLOUT_HRESULT: return ETL_OUT_HRESULT;
    case ETL_TLOUT_FILETIME: return ETL_OUT_DATETIME;
    case ETL_TLOUT_SIGNED:
        return bits == 8 ? ETL_OUT_BYTE : bits == 16 ? ETL_OUT_SHORT : bits == 32 ? ETL_OUT_INT
               : bits == 64 ? ETL_OUT_LONG : ETL_OUT_NULL;
    case ETL_TLOUT_UNSIGNED:
        return bits == 8 ? ETL_OUT_UNSIGNEDBYTE : bits == 16 ? ETL_OUT_UNSIGNEDSHORT
               : bits == 32 ? ETL_OUT_UNSIGNEDINT : bits == 64 ? ETL_OUT_UNSIGNEDLONG : ETL_OUT_NULL;
    case ETL_TLOUT_DATETIME_CULTURE_INSENSITIVE: return ETL_OUT_CULTURE_INSENSITIVE_DATETIME;
    case ETL_TLOUT_UTF8: return ETL_OUT_UTF8;
    case ETL_TLOUT_PKCS7_WITH_TYPE_INFO: return ETL_OUT_PKCS7_WITH_TYPE_INFO;
    case ETL_TLOUT_CODE_POINTER: return ETL_OUT_CODE_POINTER;
    case ETL_TLOUT_DATETIME_UTC: return ETL_OUT_DATETIME_UTC;
    default: return ETL_OUT_NULL;
    }
}

/* ---- the compiler ----------------------------------------------------------------------- */

typedef struct tl_ctx {
    etl_schema_builder *b;
    const uint8_t *m;
    size_t end; /* the metadata's own Size (or the bytes present, if fewer) */
    size_t pos;
    uint8_t pointer_size;
    uint32_t fields;
} tl_ctx;

/* Tags: 7 bits per byte, most significant group first, continuing while bit 7 is set; at most
 * four bytes give the 28 bits. */
static bool read_tags(tl_ctx *c, const char *what, uint32_t *tags)
{
    uint32_t t = 0;
    int shift = 21;
    for (unsigned i = 0;; i++) {
        if (c->pos >= c->end)
            return etl_schema_builder_fail(c->b, ETL_ERR_TRUNCATED, c->pos, "%s tags run past the metadata", what);
        if (i == ETL_TL_MAX_TAG_BYTES)
            return etl_schema_builder_fail(c->b, ETL_ERR_CORRUPT, c->pos, "%s tags longer than 28 bits", what);
        uint8_t v = c->m[c->pos++];
        t |= (uint32_t)(v & 0x7F) << shift;
        shift -= 7;
        if (!(v & 0x80))
            break;
    }
    *tags = t;
    return true;
}

/* A NUL-terminated name at pos: its length, pos moved past the NUL. */
static bool read_name(tl_ctx *c, const char *what, size_t *start, size_t *len)
{
    const uint8_t *nul = memchr(c->m + c->pos, 0, c->end - c->pos);
    if (!nul)
        return etl_schema_builder_fail(c->b, ETL_ERR_TRUNCATED, c->pos, "%s name is not terminated", what);
    *start = c->pos;
    *len = (size_t)(nul - (c->m + c->pos));
    c->pos += *len + 1;
    return true;
}

/* Size rule of a TraceLogging in-type (5.4); false for types that carry no payload rule. */
static bool size_rule(unsigned in, uint8_t pointer_size, uint8_t *rule, uint16_t *size)
{
    *size = 0;
    switch (in) {
    case ETL_IN_UNICODESTRING: *rule = ETL_SIZE_UTF16Z; return true;
    case ETL_IN_ANSISTRING: *rule = ETL_SIZE_ANSIZ; return true;
    case ETL_IN_INT8: case ETL_IN_UINT8: *size = 1; break;
    case ETL_IN_INT16: case ETL_IN_UINT16: *size = 2; break;
    case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_FLOAT: case ETL_IN_BOOLEAN: case ETL_IN_HEXINT32:
        *size = 4;
        break;
    case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_DOUBLE: case ETL_IN_FILETIME: case ETL_IN_HEXINT64:
        *size = 8;
        break;
    case ETL_IN_GUID: case ETL_IN_SYSTEMTIME: *size = 16; break;
    case ETL_IN_POINTER: *size = pointer_size == 4 ? 4 : 8; break; /* best effort: record bitness */
    case ETL_IN_SID: *rule = ETL_SIZE_SID; return true;
    case ETL_IN_BINARY: case ETL_IN_COUNTEDSTRING: case ETL_IN_COUNTEDANSISTRING: case ETL_IN_COUNTEDBINARY:
        *rule = ETL_SIZE_COUNTED16;
        return true;
    default: return false;
    }
    *rule = ETL_SIZE_FIXED;
    return true;
}

static bool compile_fields(tl_ctx *c, uint32_t n, bool all, uint8_t depth, uint32_t struct_name);

/* One logical field (a struct with all its members) at pos; emits its steps. */
static bool compile_field(tl_ctx *c, uint8_t depth)
{
    size_t at = c->pos, name_start = 0, name_len = 0; /* set by read_name; 0s for gcc -O3 */
    if (!read_name(c, "field", &name_start, &name_len))
        return false;
    char what[80];
    snprintf(what, sizeof what, "field '%.*s'", (int)(name_len > 40 ? 40 : name_len), (const char *)c->m + name_start);
    if (++c->fields > ETL_SCHEMA_MAX_FIELDS)
        return etl_schema_builder_fail(c->b, ETL_ERR_LIMIT, at, "more than %u fields", ETL_SCHEMA_MAX_FIELDS);
    if (c->pos >= c->end)
        return etl_schema_builder_fail(c->b, ETL_ERR_TRUNCATED, c->pos, "%s has no type", what);
    uint8_t in_meta = c->m[c->pos++], out_meta = 0;
    uint32_t tag = 0;
    if (in_meta & ETL_TL_CHAIN) {
        if (c->pos >= c->end)
            return etl_schema_builder_fail(c->b, ETL_ERR_TRUNCATED, c->pos, "%s out-type runs past the metadata", what);
        out_meta = c->m[c->pos++];
        if ((out_meta & ETL_TL_CHAIN) && !read_tags(c, what, &tag))
            return false;
    }
    unsigned in = in_meta & ETL_TL_IN_TYPE_MASK, kind = in_meta & ETL_TL_IN_COUNT_MASK;
    uint16_t ccount = 0;
    size_t schema_at = 0;
    uint16_t schema_len = 0;
    if (kind == ETL_TL_IN_CCOUNT) {
        if (!etl_u16_at(c->m, c->end, c->pos, &ccount))
            return etl_schema_builder_fail(c->b, ETL_ERR_TRUNCATED, c->pos, "%s array count runs past the metadata", what);
        c->pos += 2;
    } else if (kind == ETL_TL_IN_CUSTOM) {
        if (!etl_u16_at(c->m, c->end, c->pos, &schema_len))
            return etl_schema_builder_fail(c->b, ETL_ERR_TRUNCATED, c->pos, "%s custom schema size runs past the metadata", what);
        c->pos += 2;
        if (!etl_span_ok(c->end, c->pos, schema_len))
            return etl_schema_builder_fail(c->b, ETL_ERR_TRUNCATED, c->pos, "%s custom schema (%u bytes) runs past the metadata", what,
                        schema_len);
        schema_at = c->pos;
        c->pos += schema_len;
    }

    bool is_struct = in == ETL_IN_STRUCT;
    uint8_t rule = 0;
    uint16_t size = 0;
    if (!is_struct && kind != ETL_TL_IN_CUSTOM && !size_rule(in, c->pointer_size, &rule, &size))
        return etl_schema_builder_fail(c->b, ETL_ERR_CORRUPT, at, "%s has unknown in-type %u", what, in);
    if (is_struct && !(in_meta & ETL_TL_CHAIN))
        return etl_schema_builder_fail(c->b, ETL_ERR_CORRUPT, at, "%s is a struct without a member count", what);
    if (is_struct && kind == ETL_TL_IN_CUSTOM)
        return etl_schema_builder_fail(c->b, ETL_ERR_CORRUPT, at, "%s is a struct with a custom serializer", what);

    uint32_t name = etl_schema_builder_add_string(c->b, (const char *)c->m + name_start, name_len);
    bool is_array = kind == ETL_TL_IN_CCOUNT || kind == ETL_TL_IN_VCOUNT;
    uint8_t raw_out = out_meta & 0x7F;
    uint16_t out = is_struct ? ETL_OUT_NULL : etl_tl_out_to_tdh(in, raw_out);
    uint32_t array_at = UINT32_MAX;
    uint8_t elem_depth = depth;

    if (is_array) {
        if (depth >= ETL_SCHEMA_MAX_DEPTH)
            return etl_schema_builder_fail(c->b, ETL_ERR_LIMIT, at, "%s nests deeper than %u", what, ETL_SCHEMA_MAX_DEPTH);
        etl_schema_step st = etl_schema_step_init(ETL_OP_ARRAY_BEGIN, name, depth, 0);
        st.count_rule = kind == ETL_TL_IN_CCOUNT ? ETL_COUNT_CONST : ETL_COUNT_U16;
        st.count = ccount;
        st.in_type = (uint16_t)in;
        st.out_type = out;
        st.raw_out = raw_out;
        st.tag = tag;
        if ((array_at = etl_schema_builder_add_step(c->b, &st, c->pos)) == UINT32_MAX)
            return false;
        elem_depth = (uint8_t)(depth + 1);
    }
    uint8_t elem_flag = is_array ? ETL_STEP_ELEMENT : 0;

    if (is_struct) {
        if (elem_depth >= ETL_SCHEMA_MAX_DEPTH)
            return etl_schema_builder_fail(c->b, ETL_ERR_LIMIT, at, "%s nests deeper than %u", what, ETL_SCHEMA_MAX_DEPTH);
        unsigned members = out_meta & 0x7F;
        etl_schema_step st = etl_schema_step_init(ETL_OP_STRUCT_BEGIN, name, elem_depth, elem_flag);
        st.in_type = ETL_IN_STRUCT;
        st.count = (uint16_t)members;
        st.tag = tag;
        uint32_t begin = etl_schema_builder_add_step(c->b, &st, c->pos);
        if (begin == UINT32_MAX)
            return false;
        if (!compile_fields(c, members, false, (uint8_t)(elem_depth + 1), name))
            return false;
        if (etl_schema_builder_close(c->b, begin, ETL_OP_STRUCT_END, c->pos) == UINT32_MAX)
            return false;
    } else {
        etl_schema_step st = etl_schema_step_init(ETL_OP_VALUE, name, elem_depth, elem_flag);
        st.tag = tag;
        if (kind == ETL_TL_IN_CUSTOM) {
            /* the payload is laid out like COUNTEDBINARY (u16 byte count + bytes); the in-type's
             * low bits name the custom protocol and are kept in raw_out's place for display */
            st.op = ETL_OP_CUSTOM;
            st.in_type = ETL_IN_COUNTEDBINARY;
            st.size_rule = ETL_SIZE_COUNTED16;
            st.raw_out = (uint8_t)in;
            st.data = etl_schema_builder_add_bytes(c->b, c->m + schema_at, schema_len);
            st.data_len = schema_len;
        } else {
            st.size_rule = rule;
            st.size = size;
            st.in_type = (uint16_t)in;
            st.out_type = out;
            st.raw_out = raw_out;
        }
        if (etl_schema_builder_add_step(c->b, &st, c->pos) == UINT32_MAX)
            return false;
    }
    return etl_schema_builder_end_field(c->b, array_at, c->pos);
}

/* n logical fields (or, with `all`, every field up to the end of the metadata). */
static bool compile_fields(tl_ctx *c, uint32_t n, bool all, uint8_t depth, uint32_t struct_name)
{
    for (uint32_t k = 0; all || k < n; k++) {
        if (c->pos >= c->end) {
            if (all)
                return true;
            return etl_schema_builder_fail(c->b, ETL_ERR_TRUNCATED, c->pos, "struct '%.40s' declares %u members, %u present",
                        c->b->strings + struct_name,
                        n, k);
        }
        if (!compile_field(c, depth))
            return false;
        if (depth == 0)
            c->b->field_count++;
    }
    return true;
}

etl_status etl_tl_compile(etl_schema_builder *b, const uint8_t *meta, size_t len, uint8_t pointer_size,
                          etl_error *err)
{
    etl_schema_builder_reset(b, ETL_SCHEMA_TRACELOGGING, pointer_size == 4 ? 4 : 8);
    tl_ctx c = {.b = b, .m = meta, .end = len, .pointer_size = pointer_size};
    uint16_t declared = 0;
    if (!meta || !etl_u16_at(meta, len, 0, &declared)) {
        etl_schema_builder_fail(b, ETL_ERR_TRUNCATED, 0, "metadata shorter than its size field");
    } else if (declared < 4) {
        etl_schema_builder_fail(b, ETL_ERR_CORRUPT, 0, "metadata size %u is too small", declared);
    } else if (declared > ETL_TL_MAX_METADATA) {
        etl_schema_builder_fail(b, ETL_ERR_LIMIT, 0, "metadata size %u exceeds %u", declared, ETL_TL_MAX_METADATA);
    } else {
        /* Bytes after the declared size are not metadata; a declared size past the bytes
         * present is damage, reported once whatever fits has compiled. */
        c.end = declared < len ? declared : len;
        c.pos = 2;
        size_t name_start = 0, name_len = 0; /* set by read_name and read_tags; 0s for gcc -O3 */
        uint32_t tags = 0;
        if (read_tags(&c, "event", &tags) && read_name(&c, "event", &name_start, &name_len)) {
            b->event_tags = tags;
            b->event_name = etl_schema_builder_add_string(b, (const char *)meta + name_start, name_len);
            if (compile_fields(&c, 0, true, 0, 0) && declared > len)
                etl_schema_builder_fail(b, ETL_ERR_TRUNCATED, len, "metadata size %u exceeds the %zu bytes present", declared, len);
        }
    }
    return etl_schema_builder_conclude(b, "TraceLogging metadata", "TraceLogging metadata", err);
}

bool etl_tl_event_name(const uint8_t *meta, size_t len, const char **name, size_t *name_len)
{
    uint16_t declared;
    if (!meta || !etl_u16_at(meta, len, 0, &declared))
        return false;
    size_t end = declared < len ? declared : len, pos = 2;
    for (unsigned i = 0;; i++) {
        if (pos >= end || i == ETL_TL_MAX_TAG_BYTES)
            return false;
        if (!(meta[pos++] & 0x80))
            break;
    }
    const uint8_t *nul = memchr(meta + pos, 0, end - pos);
    if (!nul)
        return false;
    *name = (const char *)meta + pos;
    *name_len = (size_t)(nul - (meta + pos));
    return true;
}

/* ---- provider traits -------------------------------------------------------------------- */

etl_status etl_tl_parse_traits(const uint8_t *blob, size_t len, etl_tl_traits *out, etl_error *err)
{
    memset(out, 0, sizeof *out);
    uint16_t declared;
    if (!blob || !etl_u16_at(blob, len, 0, &declared))
        return etl_fail(err, ETL_ERR_TRUNCATED, 0, "provider traits shorter than their size field");
    if (declared < 3)
        return etl_fail(err, ETL_ERR_CORRUPT, 0, "provider traits size %u is too small", declared);
    size_t end = declared < len ? declared : len;
    const uint8_t *nul = memchr(blob + 2, 0, end - 2);
    if (!nul)
        return etl_fail(err, ETL_ERR_TRUNCATED, 2, "provider name is not terminated");
    out->name = (const char *)blob + 2;
    out->name_len = (size_t)(nul - (blob + 2));
    size_t pos = (size_t)(nul - blob) + 1;
    while (pos < end) {
        uint16_t tsize;
        if (!etl_u16_at(blob, end, pos, &tsize) || tsize < 3 || !etl_span_ok(end, pos, tsize))
            return etl_fail(err, ETL_ERR_CORRUPT, pos, "provider trait at byte %zu has a bad size", pos);
        uint8_t type = blob[pos + 2];
        if (type == ETL_TL_TRAIT_GROUP && tsize >= 3 + 16) {
            out->has_group = true;
            etl_read_guid(blob + pos + 3, &out->group);
        }
        out->trait_count++;
        pos += tsize;
    }
    if (declared > len)
        return etl_fail(err, ETL_ERR_TRUNCATED, len, "provider traits size %u exceeds the %zu bytes present",
                        declared, len);
    return ETL_OK;
}
