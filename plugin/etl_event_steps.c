/* etl_event_steps.c - what each step of a cached schema is called and typed in the etl
 * dissector (etl_event_internal.h): the field's path, its abbreviation key and, once a value
 * was seen, its typed field.
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The tables are indexed by the schema's arena index, so they live and die with the cache of
 * the open file; the start-up registration keeps tables of its own. */

#include "compat.h"

#include <string.h>

#include "etl_event_internal.h"

/* The open file's table. */
static GPtrArray *etls_schema_steps_by_index;

/* Append a NUL-terminated name from the trace as valid UTF-8. */
void
etls_append_utf8(GString *out, const char *s)
{
    char *valid;

    if (g_utf8_validate(s, -1, NULL)) {
        g_string_append(out, s);
        return;
    }
    valid = g_utf8_make_valid(s, -1);
    g_string_append(out, valid);
    g_free(valid);
}

/* The Wireshark type of a decoded value: the decoder decides the value's kind and width from
 * the in- and out-types; this only maps that decision. */
etls_ftype
etls_ftype_of(const etl_value *v)
{
    switch (v->kind) {
    case ETL_VALUE_INT:
        return v->bits == 8 ? ETLS_FT_I8 : v->bits == 16 ? ETLS_FT_I16
               : v->bits == 32 ? ETLS_FT_I32 : ETLS_FT_I64;
    case ETL_VALUE_UINT: {
        bool hex = etl_value_is_hex(v);

        /* A pointer is HEXINT64 in a 32-bit record too: one 64-bit field whatever the
         * record's bitness, so a filter on it works on 32- and 64-bit traces alike. */
        if (v->format == ETL_OUT_HEXINT64)
            return ETLS_FT_X64;
        if (v->bits == 8)
            return hex ? ETLS_FT_X8 : ETLS_FT_U8;
        if (v->bits == 16)
            return hex ? ETLS_FT_X16 : ETLS_FT_U16;
        if (v->bits == 32)
            return hex ? ETLS_FT_X32 : ETLS_FT_U32;
        return hex ? ETLS_FT_X64 : ETLS_FT_U64;
    }
    case ETL_VALUE_DOUBLE:
        return ETLS_FT_DOUBLE;
    case ETL_VALUE_BOOL:
        return ETLS_FT_BOOL;
    case ETL_VALUE_STRING:
        return ETLS_FT_STRING;
    case ETL_VALUE_GUID:
        return ETLS_FT_GUID;
    case ETL_VALUE_FILETIME:
        return ETLS_FT_TIME;
    case ETL_VALUE_BYTES:
        if (v->format == ETL_OUT_IPV4 && v->bytes_len == 4)
            return ETLS_FT_IPV4;
        if (v->format == ETL_OUT_IPV6 && v->bytes_len == 16)
            return ETLS_FT_IPV6;
        return ETLS_FT_BYTES;
    case ETL_VALUE_NONE:
    default:
        return ETLS_FT_BYTES; /* too short for its type: the bytes themselves */
    }
}

static void
etls_free_schema_steps(gpointer p)
{
    etls_schema_steps *ss = (etls_schema_steps *)p;

    if (ss == NULL)
        return;
    for (uint32_t i = 0; i < ss->count; i++) {
        g_free(ss->step[i].path);
        g_free(ss->step[i].key);
        g_free(ss->step[i].label);
    }
    g_free(ss);
}

etls_schema_steps *
etls_steps_in(GPtrArray *by_index, const etl_schema *s)
{
    etls_schema_steps *ss;

    if (by_index == NULL || s->index == UINT32_MAX)
        return NULL;
    if (s->index >= by_index->len)
        g_ptr_array_set_size(by_index, (gint)s->index + 1);
    ss = (etls_schema_steps *)g_ptr_array_index(by_index, s->index);
    if (ss == NULL) {
        ss = (etls_schema_steps *)g_malloc0(sizeof *ss + s->step_count * sizeof ss->step[0]);
        ss->count = s->step_count;
        g_ptr_array_index(by_index, s->index) = ss;
    }
    return ss;
}

etls_schema_steps *
etls_steps_of(const etl_schema *s)
{
    return etls_steps_in(etls_schema_steps_by_index, s);
}

GPtrArray *
etls_steps_index_new(void)
{
    return g_ptr_array_new_with_free_func(etls_free_schema_steps);
}

void
etls_steps_open(void)
{
    etls_schema_steps_by_index = etls_steps_index_new();
}

GPtrArray *
etls_steps_open_index(void)
{
    return etls_schema_steps_by_index;
}

void
etls_steps_close(void)
{
    if (etls_schema_steps_by_index != NULL) {
        g_ptr_array_free(etls_schema_steps_by_index, TRUE);
        etls_schema_steps_by_index = NULL;
    }
}

/* The step of an item, its path made on first sight.  A schema's structure is fixed, so the
 * container around a step (`parent`) is always the same one. */
etls_step *
etls_step_for(etls_schema_steps *ss, const etl_item *it, const etls_step *parent)
{
    etls_step *st;

    if (ss == NULL || it->step >= ss->count)
        return NULL;
    st = &ss->step[it->step];
    if (st->path != NULL)
        return st;
    {
        char buf[ETL_ITEM_KEY_MAX];
        const char *name = etl_item_key(it, buf, sizeof buf); /* "_N" on a repeated name */
        GString *label = g_string_new(NULL);

        if (name[0] != '\0')
            etls_append_utf8(label, name);
        else
            g_string_append(label, "(unnamed)");
        st->label = g_string_free(label, FALSE);
    }
    if (it->is_element && parent != NULL) {
        /* Elements share their array's name: one field, many occurrences. */
        st->path = g_strdup(parent->path);
        st->key = g_strdup(parent->key);
    } else {
        GString *path = g_string_new(NULL);
        GString *key = g_string_new(NULL);

        if (parent != NULL) {
            g_string_append(path, parent->path);
            g_string_append_c(path, '.');
            g_string_append(key, parent->key);
            g_string_append_c(key, '.');
        }
        char buf[ETL_ITEM_KEY_MAX];
        const char *name = etl_item_key(it, buf, sizeof buf); /* "_N" on a repeated name */

        etls_append_utf8(path, name);
        etls_fields_append_component(key, name);
        st->path = g_string_free(path, FALSE);
        st->key = g_string_free(key, FALSE);
    }
    st->hf = -1;
    st->type = -1;
    return st;
}

int
etls_step_hf(etls_step *st, etls_ftype t)
{
    if (st == NULL)
        return -1;
    if (st->type != (int)t) {
        st->hf = etls_fields_hf(st->key, t);
        st->type = (int)t;
    }
    return st->hf;
}
