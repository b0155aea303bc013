/* tmf_schema.c - TMF messages to schema programs (tmf_schema.h). */
#include "tmf_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "error.h"

static uint32_t add_str(etl_schema_builder *b, const char *s)
{
    return s && *s ? etl_schema_builder_add_string(b, s, strlen(s)) : 0;
}

/* The wire form and TDH types of an Item kind (docs/wpp.md has the table with its reasons). */
static bool value_of(etl_tmf_kind k, uint8_t ptr, etl_schema_step *st)
{
    st->size_rule = ETL_SIZE_FIXED;
    switch (k) {
    case ETL_TMF_INT8: st->in_type = ETL_IN_INT8; st->size = 1; break;
    case ETL_TMF_UINT8: st->in_type = ETL_IN_UINT8; st->size = 1; break;
    case ETL_TMF_INT16: st->in_type = ETL_IN_INT16; st->size = 2; break;
    case ETL_TMF_UINT16: st->in_type = ETL_IN_UINT16; st->size = 2; break;
    case ETL_TMF_INT32: st->in_type = ETL_IN_INT32; st->size = 4; break;
    case ETL_TMF_UINT32: st->in_type = ETL_IN_UINT32; st->size = 4; break;
    case ETL_TMF_INT64: st->in_type = ETL_IN_INT64; st->size = 8; break;
    case ETL_TMF_UINT64: st->in_type = ETL_IN_UINT64; st->size = 8; break;
    case ETL_TMF_HEX32: st->in_type = ETL_IN_UINT32; st->out_type = ETL_OUT_HEXINT32; st->size = 4; break;
    case ETL_TMF_HEX64: st->in_type = ETL_IN_UINT64; st->out_type = ETL_OUT_HEXINT64; st->size = 8; break;
    case ETL_TMF_POINTER: st->in_type = ETL_IN_POINTER; st->size = ptr; break;
    case ETL_TMF_DOUBLE: st->in_type = ETL_IN_DOUBLE; st->size = 8; break;
    case ETL_TMF_GUID: st->in_type = ETL_IN_GUID; st->size = 16; break;
    case ETL_TMF_NTSTATUS: st->in_type = ETL_IN_UINT32; st->out_type = ETL_OUT_NTSTATUS; st->size = 4; break;
    case ETL_TMF_WINERROR: st->in_type = ETL_IN_UINT32; st->out_type = ETL_OUT_WIN32ERROR; st->size = 4; break;
    case ETL_TMF_HRESULT: st->in_type = ETL_IN_UINT32; st->out_type = ETL_OUT_HRESULT; st->size = 4; break;
    case ETL_TMF_STRING: st->in_type = ETL_IN_ANSISTRING; st->size_rule = ETL_SIZE_ANSIZ; break;
    case ETL_TMF_WSTRING: st->in_type = ETL_IN_UNICODESTRING; st->size_rule = ETL_SIZE_UTF16Z; break;
    case ETL_TMF_PSTRING: st->in_type = ETL_IN_COUNTEDANSISTRING; st->size_rule = ETL_SIZE_COUNTED16; break;
    case ETL_TMF_PWSTRING: st->in_type = ETL_IN_COUNTEDSTRING; st->size_rule = ETL_SIZE_COUNTED16; break;
    case ETL_TMF_SID: st->in_type = ETL_IN_SID; st->size_rule = ETL_SIZE_SID; break;
    case ETL_TMF_HEXDUMP: st->in_type = ETL_IN_COUNTEDBINARY; st->size_rule = ETL_SIZE_COUNTED16; break;
    case ETL_TMF_IPV4: st->in_type = ETL_IN_UINT32; st->out_type = ETL_OUT_IPV4; st->size = 4; break;
    case ETL_TMF_IPV6: st->in_type = ETL_IN_BINARY; st->out_type = ETL_OUT_IPV6; st->size = 16; break;
    case ETL_TMF_PORT: st->in_type = ETL_IN_UINT16; st->out_type = ETL_OUT_PORT; st->size = 2; break;
    case ETL_TMF_TIMESTAMP: st->in_type = ETL_IN_FILETIME; st->size = 8; break;
    case ETL_TMF_LIST8: case ETL_TMF_SET8: st->in_type = ETL_IN_UINT8; st->size = 1; break;
    case ETL_TMF_LIST16: case ETL_TMF_SET16: st->in_type = ETL_IN_UINT16; st->size = 2; break;
    case ETL_TMF_LIST32: case ETL_TMF_SET32: case ETL_TMF_ENUM: st->in_type = ETL_IN_UINT32; st->size = 4; break;
    default: return false;
    }
    return true;
}

static void st32(uint8_t *p, uint32_t v)
{
    etl_st32(p, v);
}

/* ItemList names: value i is name i; ItemSet names: bit i.  Compiled as schema.h says (entries
 * in value order, so no sorting is needed).  False when out of memory. */
static bool compile_list(etl_schema_builder *b, const etl_tmf_item *it, etl_schema_step *st)
{
    bool set = it->kind >= ETL_TMF_SET8 && it->kind <= ETL_TMF_SET32;
    unsigned bits = it->kind == ETL_TMF_SET8 ? 8 : it->kind == ETL_TMF_SET16 ? 16 : 32;
    uint32_t n = it->list_count;
    if (set && n > bits)
        n = bits; /* names past the value's width can never be set */
    if (!n)
        return true;
    size_t bytes = ETL_MAP_HEADER_SIZE + (size_t)n * ETL_MAP_ENTRY_SIZE;
    uint8_t *blob = etl_mem_alloc(&b->alloc, bytes);
    if (!blob)
        return false;
    st32(blob, set ? ETL_MAP_BITMAP : 0);
    st32(blob + 4, n);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *e = blob + ETL_MAP_HEADER_SIZE + (size_t)i * ETL_MAP_ENTRY_SIZE;
        etl_st64(e, set ? (uint64_t)1 << i : i);
        st32(e + 8, add_str(b, it->list[i]));
        st32(e + 12, 0);
    }
    st->data = etl_schema_builder_add_bytes(b, blob, bytes);
    st->data_len = (uint32_t)bytes;
    st->flags |= ETL_STEP_MAP;
    etl_mem_free(&b->alloc, blob);
    return !b->failed_nomem;
}

etl_status etl_tmf_compile(etl_schema_builder *b, const etl_tmf_message *m, uint8_t pointer_size, etl_error *err)
{
    uint8_t ptr = pointer_size == 4 ? 4 : 8;
    etl_schema_builder_reset(b, ETL_SCHEMA_WPP, ptr);
    b->event_name = add_str(b, m->func && *m->func ? m->func : m->type_name);
    b->provider_name = add_str(b, m->section->component);
    b->level_name = add_str(b, m->level);
    b->keywords_name = add_str(b, m->flags);
    b->message = add_str(b, m->format);
    b->origin = add_str(b, m->section->origin);
    for (uint16_t i = 0; i < m->item_count; i++) {
        const etl_tmf_item *it = &m->items[i];
        etl_schema_step st = etl_schema_step_init(ETL_OP_VALUE, add_str(b, it->expr), 0, 0);
        st.tag = it->argno;
        if (!value_of(it->kind, ptr, &st)) {
            etl_schema_builder_fail(b, ETL_ERR_CORRUPT, 0, "argument %u (%.60s) has Item type %.60s, which is not known",
                                    it->argno, it->expr, it->type);
            break;
        }
        if (it->list_count && !compile_list(b, it, &st)) {
            etl_schema_builder_fail(b, ETL_ERR_NOMEM, 0, "out of memory");
            break;
        }
        if (etl_schema_builder_add_step(b, &st, 0) == UINT32_MAX)
            break;
        b->field_count++;
    }
    char context[64];
    snprintf(context, sizeof context, "WPP message %u of %.40s", (unsigned)m->number, m->section->component);
    return etl_schema_builder_conclude(b, "a WPP message", context, err);
}

etl_status etl_tmf_schema(etl_schema_cache *c, etl_schema_builder *b, etl_tmf_message *m, uint8_t pointer_size,
                          const etl_schema **out, etl_error *err)
{
    unsigned slot = pointer_size == 4 ? 0 : 1;
    if (m->compiled[slot]) {
        *out = m->compiled[slot];
        return ETL_OK;
    }
    etl_error cerr;
    etl_status st = etl_tmf_compile(b, m, pointer_size, &cerr);
    if (st == ETL_ERR_NOMEM) {
        *err = cerr;
        return st;
    }
    /* the key: "WPP", the GUID in Windows layout, the number, the pointer size */
    uint8_t key[3 + 16 + 2 + 1];
    memcpy(key, "WPP", 3);
    etl_st32(key + 3, m->guid.data1);
    etl_st16(key + 7, m->guid.data2);
    etl_st16(key + 9, m->guid.data3);
    memcpy(key + 11, m->guid.data4, 8);
    etl_st16(key + 19, m->number);
    key[21] = pointer_size == 4 ? 4 : 8;
    const etl_schema *s = NULL;
    etl_status r = etl_schema_cache_add(c, b, key, sizeof key, &s, err);
    if (r != ETL_OK)
        return r;
    m->compiled[slot] = s;
    *out = s;
    return ETL_OK;
}
