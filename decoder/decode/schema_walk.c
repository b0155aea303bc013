/* schema_walk.c - the items of a compiled schema without a payload (schema_walk.h). */
#include "schema_walk.h"

#include <string.h>

#include "value_format.h"

void etl_schema_walk_start(etl_schema_walk *w, const etl_schema *s, uint8_t pointer_size)
{
    w->schema = s;
    w->pc = 0;
    w->pointer_size = pointer_size ? pointer_size : (s ? s->pointer_size : 8);
    w->done = s == NULL;
    w->last_kind = ETL_ITEM_END;
}

/* An element program of one fixed-size VALUE: ARRAY_BEGIN, VALUE, ARRAY_END. */
static uint16_t fixed_element(const etl_schema *s, uint32_t begin)
{
    const etl_schema_step *b = &s->steps[begin];
    const etl_schema_step *el = begin + 1 < s->step_count ? &s->steps[begin + 1] : NULL;
    return el && el->op == ETL_OP_VALUE && el->size_rule == ETL_SIZE_FIXED && begin + 2 == b->match ? el->size : 0;
}

etl_item_kind etl_schema_walk_next(etl_schema_walk *w, etl_item *it)
{
    const etl_schema *s = w->schema;
    memset(it, 0, sizeof *it);
    it->name = "";
    it->pointer_size = w->pointer_size;
    if (w->done || w->pc >= s->step_count) {
        w->done = true;
        return w->last_kind = it->kind = ETL_ITEM_END;
    }
    uint32_t pc = w->pc++;
    const etl_schema_step *st = &s->steps[pc];
    it->name = s->strings + st->name;
    it->in_type = st->in_type;
    it->out_type = st->out_type;
    it->raw_out = st->raw_out;
    it->depth = st->depth;
    it->is_element = (st->flags & ETL_STEP_ELEMENT) != 0;
    it->dup = st->dup;
    it->step = pc;
    it->tag = st->tag;
    switch (st->op) {
    case ETL_OP_VALUE:
        it->kind = ETL_ITEM_VALUE;
        it->size = it->wire_size = st->size_rule == ETL_SIZE_FIXED ? st->size : UINT32_MAX;
        if (st->flags & ETL_STEP_MAP) {
            it->map = s->bytes + st->data;
            it->map_len = st->data_len;
            it->map_strings = s->strings;
        }
        break;
    case ETL_OP_CUSTOM: /* as the enumerator hands it out */
        it->kind = ETL_ITEM_VALUE;
        it->size = it->wire_size = UINT32_MAX;
        it->custom = true;
        it->custom_protocol = st->raw_out;
        it->raw_out = 0;
        it->custom_schema = s->bytes + st->data;
        it->custom_schema_len = st->data_len;
        break;
    case ETL_OP_STRUCT_BEGIN: case ETL_OP_STRUCT_END:
        it->kind = st->op == ETL_OP_STRUCT_BEGIN ? ETL_ITEM_STRUCT_BEGIN : ETL_ITEM_STRUCT_END;
        it->array_count = st->count;
        break;
    case ETL_OP_ARRAY_BEGIN:
        it->kind = ETL_ITEM_ARRAY_BEGIN;
        it->elem_size = fixed_element(s, pc);
        if (etl_value_is_char_array(it) && st->match < s->step_count) {
            /* one string, as the enumerator hands it out with ETL_FIELDS_CHAR_STRINGS: its
             * element and its ARRAY_END are not walked */
            it->kind = ETL_ITEM_VALUE;
            it->char_array = true;
            it->size = it->wire_size = UINT32_MAX;
            w->pc = st->match + 1;
        }
        break;
    case ETL_OP_ARRAY_END:
        it->kind = ETL_ITEM_ARRAY_END;
        it->elem_size = st->match < pc ? fixed_element(s, st->match) : 0;
        break;
    case ETL_OP_UNSUPPORTED:
    default:
        it->kind = ETL_ITEM_PLACEHOLDER;
        it->in_type = it->out_type = 0;
        it->is_element = false;
        it->dup = 0;
        it->reason = s->strings + (st->op == ETL_OP_UNSUPPORTED ? st->data : 0);
        w->done = true;
        break;
    }
    return w->last_kind = it->kind;
}
