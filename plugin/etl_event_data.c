/* etl_event_data.c - provider/event names and the decoded fields of TraceLogging and manifest
 * events (etl_event_data.h).
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A second thin user of the decoder's field API, beside etldump: the enumerator (fields.h)
 * says what each payload byte is, value_format.h gives the typed value and the text Windows
 * shows; this file only places them in the tree.  Nothing here reads payload bytes itself.
 */

#include "compat.h"

#include <string.h>

#include <epan/epan.h>
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>

#include "etl.h"
#include "etl_format.h"
#include "fields.h"
#include "prescan.h"
#include "registry.h"
#include "resolve.h"
#include "schema_cache.h"
#include "schema_walk.h"
#include "value_format.h"

#include "etl_frame.h"

#include "etl_event_data.h"
#include "etl_fields.h"
#include "etl_prescan.h"
#include "etl_wsconv.h"

/* Bytes of a value's text shown in its tree label (Wireshark cuts labels at 240 anyway). */
#define ETLS_LABEL_VALUE_MAX 200u

static int etls_proto = -1;

static int hf_etl_provider_name = -1;
static int hf_etl_event_name = -1;
static int hf_etl_task_name = -1;
static int hf_etl_opcode_name = -1;
static int hf_etl_level_name = -1;
static int hf_etl_channel_name = -1;
static int hf_etl_keywords_name = -1;
static int hf_etl_message = -1;
static int hf_etl_schema_version = -1;
static int hf_etl_data = -1;
static int hf_etl_field_name = -1;
static int hf_etl_field_value = -1;
static int hf_etl_kv = -1;
static int hf_etl_data_unsupported = -1;
static int hf_etl_data_trailing = -1;
static int hf_etl_data_raw = -1;

static int ett_etl_data = -1;
static int ett_etl_data_struct = -1;
static int ett_etl_data_array = -1;

static expert_field ei_etl_schema_error = EI_INIT;
static expert_field ei_etl_field_unsupported = EI_INIT;
static expert_field ei_etl_field_trailing = EI_INIT;
static expert_field ei_etl_field_untyped = EI_INIT;
static expert_field ei_etl_schema_missing = EI_INIT;
static expert_field ei_etl_mf_schema_error = EI_INIT;
static expert_field ei_etl_unknown_event = EI_INIT;
static expert_field ei_etl_older_version = EI_INIT;
static expert_field ei_etl_classic_schema_error = EI_INIT;

/* The decoding session for the open capture file (resolve.h): its schema cache (a hit
 * allocates nothing), registry and remembered provider names. */
static etl_decoder *etls_decoder;

/* The session's schema registry (registry.h): the manifest files of the search path (preference etl.manifest_path, then
 * $ETLSHARK_MANIFEST_PATH), then the EventSource manifests and carried schemas of the file,
 * collected by the prescan of the file before its first frame is dissected (etl_prescan.h). */
static etl_registry *etls_schemas;
/* The preference etl.manifest_path (':'-separated manifest files and folders). */
static const char *etls_pref_manifest_path = "";
/* No file to prescan (a pipe, a compressed file, a frame from elsewhere): the first pass
 * feeds schema-carrying records to the registry as they come instead, so events before their
 * schema decode on redissection only. */
static bool etls_observe;
/* Registry messages already reported (each manifest problem once per process, not per file). */
static GHashTable *etls_reported;
#define ETLS_REPORTED_MAX 1000u
/* The search path whose manifests' fields were registered (etls_register_manifest_fields). */
static char *etls_registered_path;

/* The rendered message of an event. */
static char etls_message[65536];

/* What this file learned about each step of a cached schema: the field's path and, once a
 * value was seen, its typed field.  Indexed by the schema's arena index, so it lives and dies
 * with the cache. */
typedef struct etls_step {
    char *path;     /* display path: names joined by '.', "_N" for the Nth same-named member */
    char *key;      /* the path sanitised for an abbreviation (etl_fields.h) */
    int hf;         /* typed field of the last value, -1 when it has none */
    int type;       /* etls_ftype of hf, -1 before the first value */
} etls_step;

typedef struct etls_schema_steps {
    uint32_t count;
    etls_step step[];
} etls_schema_steps;

static GPtrArray *etls_schema_steps_by_index;

/* Scratch of the formatter: converted text of a value, and its rendered text.  Big enough for
 * any value of a record (records are < 64 KiB).  Dissection is single-threaded. */
static char etls_scratch[ETL_VALUE_TEXT_CAP(65536)];
static char etls_text[ETL_VALUE_TEXT_CAP(65536)];

/* State of one event's walk. */
typedef struct etls_walk {
    tvbuff_t *tvb;
    packet_info *pinfo;
    int payload_off;          /* frame offset of the payload: item offsets are relative to it */
    etls_event_summary *sum;
    unsigned info_fields;     /* fields already in sum->fields */
    bool untyped_noted;
} etls_walk;

typedef struct etls_level {
    proto_tree *tree;
    proto_item *item;
    etls_step *step;          /* the container's step; NULL at the top */
} etls_level;


/* ---- helpers ------------------------------------------------------------------------------ */

static int
etls_offset_in_record(const etl_record *rec, const void *p)
{
    const uint8_t *b = (const uint8_t *)p;

    if (b == NULL || b < rec->bytes || b > rec->bytes + rec->size)
        return 0;
    return (int)(b - rec->bytes);
}

/* Names come from the trace: Wireshark's strings must be UTF-8, so invalid bytes become U+FFFD. */
static const char *
etls_utf8(wmem_allocator_t *pool, const char *s, size_t n)
{
    char *valid;
    const char *out;

    if (g_utf8_validate(s, (gssize)n, NULL))
        return wmem_strndup(pool, s, n);
    valid = g_utf8_make_valid(s, (gssize)n);
    out = wmem_strdup(pool, valid);
    g_free(valid);
    return out;
}

/* Append a NUL-terminated name from the trace as valid UTF-8. */
static void
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

/* s[0..n) fit for one line of a label or column: control characters escaped, and cut (at a
 * character boundary, marked with an ellipsis) after `max` bytes. */
static const char *
etls_one_line(wmem_allocator_t *pool, const char *s, size_t n, size_t max)
{
    wmem_strbuf_t *b = wmem_strbuf_new(pool, "");

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (wmem_strbuf_get_len(b) >= max && (c & 0xC0) != 0x80) {
            wmem_strbuf_append(b, "\xE2\x80\xA6");
            break;
        }
        if (c == '\n')
            wmem_strbuf_append(b, "\\n");
        else if (c == '\r')
            wmem_strbuf_append(b, "\\r");
        else if (c == '\t')
            wmem_strbuf_append(b, "\\t");
        else if (c < 0x20 || c == 0x7F)
            wmem_strbuf_append_printf(b, "\\x%02x", c);
        else
            wmem_strbuf_append_c(b, (char)c);
    }
    return wmem_strbuf_get_str(b);
}

/* The Wireshark type of a decoded value: the decoder decides the value's kind and width from
 * the in- and out-types; this only maps that decision. */
static etls_ftype
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

static proto_item *
etls_add_typed(proto_tree *tree, int hf, etls_ftype t, tvbuff_t *tvb, int off, int len,
               const etl_value *v, wmem_allocator_t *pool)
{
    switch (t) {
    case ETLS_FT_I8: case ETLS_FT_I16: case ETLS_FT_I32:
        return proto_tree_add_int(tree, hf, tvb, off, len, (gint32)v->v.i);
    case ETLS_FT_I64:
        return proto_tree_add_int64(tree, hf, tvb, off, len, v->v.i);
    case ETLS_FT_U8: case ETLS_FT_U16: case ETLS_FT_U32:
    case ETLS_FT_X8: case ETLS_FT_X16: case ETLS_FT_X32:
        return proto_tree_add_uint(tree, hf, tvb, off, len, (guint32)v->v.u);
    case ETLS_FT_U64: case ETLS_FT_X64:
        return proto_tree_add_uint64(tree, hf, tvb, off, len, v->v.u);
    case ETLS_FT_DOUBLE:
        return proto_tree_add_double(tree, hf, tvb, off, len, v->v.d);
    case ETLS_FT_BOOL:
        return proto_tree_add_boolean(tree, hf, tvb, off, len, v->v.b ? 1 : 0);
    case ETLS_FT_STRING:
        return proto_tree_add_string(tree, hf, tvb, off, len,
                                     v->str != NULL ? wmem_strndup(pool, v->str, v->str_len) : "");
    case ETLS_FT_GUID: {
        e_guid_t g;

        etls_to_e_guid(&v->v.guid, &g);
        return proto_tree_add_guid(tree, hf, tvb, off, len, &g);
    }
    case ETLS_FT_TIME: {
        nstime_t ts;

        etls_filetime_to_nstime(v->v.filetime, &ts);
        return proto_tree_add_time(tree, hf, tvb, off, len, &ts);
    }
    case ETLS_FT_IPV4: {
        ws_in4_addr a; /* network order, as stored */

        memcpy(&a, v->bytes, sizeof a);
        return proto_tree_add_ipv4(tree, hf, tvb, off, len, a);
    }
    case ETLS_FT_IPV6: {
        ws_in6_addr a;

        memcpy(a.bytes, v->bytes, sizeof a.bytes);
        return proto_tree_add_ipv6(tree, hf, tvb, off, len, &a);
    }
    case ETLS_FT_BYTES:
    default:
        /* The item spans the field (a count prefix included); the value is the data alone. */
        return proto_tree_add_bytes_with_length(tree, hf, tvb, off, len, v->bytes,
                                                (gint)v->bytes_len);
    }
}

/* ---- per-step paths and fields ------------------------------------------------------------ */

static void
etls_free_schema_steps(gpointer p)
{
    etls_schema_steps *ss = (etls_schema_steps *)p;

    if (ss == NULL)
        return;
    for (uint32_t i = 0; i < ss->count; i++) {
        g_free(ss->step[i].path);
        g_free(ss->step[i].key);
    }
    g_free(ss);
}

static etls_schema_steps *
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

static etls_schema_steps *
etls_steps_of(const etl_schema *s)
{
    return etls_steps_in(etls_schema_steps_by_index, s);
}

/* The step of an item, its path made on first sight.  A schema's structure is fixed, so the
 * container around a step (`parent`) is always the same one. */
static etls_step *
etls_step_for(etls_schema_steps *ss, const etl_item *it, const etls_step *parent)
{
    etls_step *st;

    if (ss == NULL || it->step >= ss->count)
        return NULL;
    st = &ss->step[it->step];
    if (st->path != NULL)
        return st;
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

static int
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

/* How an item is called in its label: its name, "_N" for a repeated name, "[i]" for an
 * array element. */
static const char *
etls_label_name(wmem_allocator_t *pool, const etl_item *it)
{
    char buf[ETL_ITEM_KEY_MAX];
    const char *key = etl_item_key(it, buf, sizeof buf);
    const char *name = key[0] != '\0' ? etls_utf8(pool, key, strlen(key)) : "(unnamed)";

    if (it->is_element)
        return wmem_strdup_printf(pool, "%s[%u]", name, it->array_index);
    return name;
}

/* ---- values ------------------------------------------------------------------------------- */

/* Everything a value gets besides its typed item: the label, the generic fields and its place
 * in the Info column.  `ti` is the typed item, NULL when the value has no typed field or when
 * nothing is shown (a tap or a filter dissecting without a visible tree); `refused` says the
 * registry gave no typed field, the one case worth an expert note. */
static void
etls_finish_value(etls_walk *w, proto_tree *tree, proto_item *ti, bool refused,
                  const etl_item *it, const etls_step *st, const char *text, size_t text_len,
                  int off, int len)
{
    wmem_allocator_t *pool = w->pinfo->pool;
    const char *path = st != NULL ? st->path : etls_utf8(pool, it->name, strlen(it->name));
    const char *value = wmem_strndup(pool, text, text_len);
    proto_item *gi;

    if (ti != NULL) {
        proto_item_set_text(ti, "%s: %s", etls_label_name(pool, it),
                            etls_one_line(pool, text, text_len, ETLS_LABEL_VALUE_MAX));
    } else {
        /* No typed field to be had (limit reached): the text is the visible item. */
        gi = proto_tree_add_string_format(tree, hf_etl_field_value, w->tvb, off, len, value,
                                          "%s: %s", etls_label_name(pool, it),
                                          etls_one_line(pool, text, text_len,
                                                        ETLS_LABEL_VALUE_MAX));
        if (refused && !w->untyped_noted) {
            w->untyped_noted = true;
            expert_add_info(w->pinfo, gi, &ei_etl_field_untyped);
        }
    }

    /* One-pass filtering on any field, whatever its type or whether it is registered yet. */
    gi = proto_tree_add_string(tree, hf_etl_field_name, w->tvb, off, len, path);
    proto_item_set_hidden(gi);
    proto_item_set_generated(gi);
    if (ti != NULL) {
        gi = proto_tree_add_string(tree, hf_etl_field_value, w->tvb, off, len, value);
        proto_item_set_hidden(gi);
        proto_item_set_generated(gi);
    }
    gi = proto_tree_add_string(tree, hf_etl_kv, w->tvb, off, len,
                               wmem_strdup_printf(pool, "%s=%s", path, value));
    proto_item_set_hidden(gi);
    proto_item_set_generated(gi);

    if (w->info_fields < ETLS_INFO_FIELDS) {
        if (w->sum->fields == NULL)
            w->sum->fields = wmem_strbuf_new(pool, "");
        else
            wmem_strbuf_append(w->sum->fields, ", ");
        wmem_strbuf_append(w->sum->fields,
                           etls_one_line(pool, path, strlen(path), ETLS_INFO_VALUE_MAX));
        if (it->is_element)
            wmem_strbuf_append_printf(w->sum->fields, "[%u]", it->array_index);
        wmem_strbuf_append_printf(w->sum->fields, "=%s",
                                  etls_one_line(pool, text, text_len, ETLS_INFO_VALUE_MAX));
    } else if (w->info_fields == ETLS_INFO_FIELDS) {
        wmem_strbuf_append(w->sum->fields, ", \xE2\x80\xA6");
    }
    w->info_fields++;
}

static void
etls_add_value(etls_walk *w, proto_tree *tree, const etl_item *it, etls_step *st)
{
    etl_value v;
    size_t text_len;
    etls_ftype t;
    int hf;
    int off = w->payload_off + (int)it->offset;
    int len = (int)it->wire_size;
    proto_item *ti = NULL;

    etl_value_decode(it, &v, etls_scratch, sizeof etls_scratch);
    /* A mapped value (manifests' valueMap/bitMap) shows its names; the typed value stays the
     * number. */
    if (it->map == NULL || !etl_value_map_text(it, &v, etls_text, sizeof etls_text, &text_len))
        text_len = etl_value_text(&v, etls_text, sizeof etls_text);
    t = etls_ftype_of(&v);
    hf = etls_step_hf(st, t);
    if (hf >= 0)
        ti = etls_add_typed(tree, hf, t, w->tvb, off, len, &v, w->pinfo->pool);
    etls_finish_value(w, tree, ti, hf < 0, it, st, etls_text, text_len, off, len);
}

static void
etls_add_placeholder(etls_walk *w, proto_tree *tree, const etl_item *it)
{
    wmem_allocator_t *pool = w->pinfo->pool;
    /* Unnamed when the schema itself is damaged: the reason then names the field. */
    const char *name = it->name[0] != '\0'
                           ? wmem_strdup_printf(pool, "%s: ", etls_utf8(pool, it->name,
                                                                         strlen(it->name)))
                           : "";
    const char *reason = it->reason != NULL ? it->reason : "cannot be decoded";
    proto_item *ti;

    ti = proto_tree_add_bytes_format(tree, hf_etl_data_unsupported, w->tvb,
                                     w->payload_off + (int)it->offset, (int)it->size, it->data,
                                     "Unsupported: %s%s (%u byte%s not decoded)", name, reason,
                                     it->size, it->size == 1 ? "" : "s");
    expert_add_info_format(w->pinfo, ti, &ei_etl_field_unsupported,
                           "Field data cannot be decoded (%s%s); the %u remaining payload "
                           "byte%s are shown raw", name, reason, it->size,
                           it->size == 1 ? "" : "s");
}

/* ---- the walk ----------------------------------------------------------------------------- */

static void
etls_walk_fields(etls_walk *w, etl_fields *f, etls_schema_steps *ss, proto_tree *data_tree,
                 proto_item *data_item)
{
    etls_level stack[ETL_SCHEMA_MAX_DEPTH + 1];
    unsigned depth = 0;
    unsigned unpushed = 0;      /* containers deeper than the stack (the decoder bounds depth,
                                   so only a guard) */
    bool placeholder = false;
    etl_item it;

    stack[0].tree = data_tree;
    stack[0].item = data_item;
    stack[0].step = NULL;
    for (;;) {
        etl_item_kind k = etl_fields_next(f, &it);
        etls_level *lv = &stack[depth];

        if (k == ETL_ITEM_END)
            break;
        switch (k) {
        case ETL_ITEM_VALUE:
            etls_add_value(w, lv->tree, &it, etls_step_for(ss, &it, lv->step));
            break;
        case ETL_ITEM_STRUCT_BEGIN:
        case ETL_ITEM_ARRAY_BEGIN: {
            etls_step *st = etls_step_for(ss, &it, lv->step);
            const char *label = etls_label_name(w->pinfo->pool, &it);
            proto_item *ci;
            proto_tree *ct;

            if (depth >= ETL_SCHEMA_MAX_DEPTH) {
                unpushed++;
                break;
            }
            /* STRUCT_BEGIN spans nothing yet and an array of variable-size elements only its
             * count: the END item gives the container's full length. */
            if (k == ETL_ITEM_ARRAY_BEGIN)
                ct = proto_tree_add_subtree_format(lv->tree, w->tvb,
                                                   w->payload_off + (int)it.offset,
                                                   (int)it.wire_size, ett_etl_data_array, &ci,
                                                   "%s (%u element%s)", label, it.array_count,
                                                   it.array_count == 1 ? "" : "s");
            else
                ct = proto_tree_add_subtree(lv->tree, w->tvb, w->payload_off + (int)it.offset,
                                            (int)it.wire_size, ett_etl_data_struct, &ci, label);
            depth++;
            stack[depth].tree = ct;
            stack[depth].item = ci;
            stack[depth].step = st;
            break;
        }
        case ETL_ITEM_STRUCT_END:
        case ETL_ITEM_ARRAY_END:
            if (unpushed > 0) {
                unpushed--;
                break;
            }
            if (depth > 0) {
                proto_item_set_len(stack[depth].item, (gint)it.wire_size);
                depth--;
            }
            break;
        case ETL_ITEM_PLACEHOLDER:
            etls_add_placeholder(w, lv->tree, &it);
            placeholder = true;
            break;
        default:
            break;
        }
    }
    /* END carries the bytes after the last field (normally none). */
    if (!placeholder && it.size > 0) {
        proto_item *ti = proto_tree_add_item(data_tree, hf_etl_data_trailing, w->tvb,
                                             w->payload_off + (int)it.offset, (int)it.size,
                                             ENC_NA);

        expert_add_info_format(w->pinfo, ti, &ei_etl_field_trailing,
                               "%u payload byte%s after the last field of the schema", it.size,
                               it.size == 1 ? "" : "s");
    }
}

/* ---- names -------------------------------------------------------------------------------- */

/* The provider's name as the decoder resolved it (resolve.h).  A name in the record
 * (PROV_TRAITS) covers its bytes; a schema's or a source's is generated.  A name remembered
 * from an earlier record must mean "from an earlier frame" whatever order frames are
 * dissected in (two-pass, the GUI): the first pass keeps it with the frame, and redissection
 * shows what the first pass found. */
static void
etls_provider_name(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etl_record *rec,
                   const etl_resolved *res, etls_event_summary *sum)
{
    const char *name = NULL;
    proto_item *ti;

    switch (res->provider_name_from) {
    case ETL_NAME_TRAITS:
        name = etls_utf8(pinfo->pool, res->provider_name, strlen(res->provider_name));
        proto_tree_add_string(tree, hf_etl_provider_name, tvb,
                              etls_offset_in_record(rec, res->provider_name_bytes),
                              (int)res->provider_name_bytes_len, name);
        sum->provider_name = name;
        return;
    case ETL_NAME_SCHEMA:
    case ETL_NAME_REGISTRY:
        name = etls_utf8(pinfo->pool, res->provider_name, strlen(res->provider_name));
        break;
    default:
        if (!rec->has_provider)
            return;
        if (!PINFO_FD_VISITED(pinfo)) {
            if (res->provider_name != NULL) {
                name = etls_utf8(wmem_file_scope(), res->provider_name,
                                 strlen(res->provider_name));
                p_add_proto_data(wmem_file_scope(), pinfo, etls_proto, 0, (void *)name);
            }
        } else {
            name = (const char *)p_get_proto_data(wmem_file_scope(), pinfo, etls_proto, 0);
        }
        break;
    }
    if (name != NULL) {
        ti = proto_tree_add_string(tree, hf_etl_provider_name, tvb, 0, 0, name);
        proto_item_set_generated(ti); /* not in this record: a manifest's, or an earlier one's */
        sum->provider_name = name;
    }
}

/* The event's name: over its bytes when the record holds it (TraceLogging metadata), else
 * generated. */
static void
etls_event_name(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etl_record *rec,
                const etl_resolved *res, etls_event_summary *sum)
{
    proto_item *ti;

    sum->event_name = etls_utf8(pinfo->pool, res->event_name, strlen(res->event_name));
    if (res->event_name_bytes != NULL) {
        proto_tree_add_string(tree, hf_etl_event_name, tvb,
                              etls_offset_in_record(rec, res->event_name_bytes),
                              (int)res->event_name_bytes_len, sum->event_name);
        return;
    }
    ti = proto_tree_add_string(tree, hf_etl_event_name, tvb, 0, 0, sum->event_name);
    proto_item_set_generated(ti);
}

/* ---- manifest events ---------------------------------------------------------------------- */

/* The registry's messages (a manifest that does not parse: "file:line: reason"; two files
 * disagreeing about an event; a refused schema record), once each per process: the manifests
 * are read again for every capture file. */
static void
etls_schemas_report(void *ctx _U_, etl_registry_severity severity, const char *message)
{
    if (severity == ETL_REGISTRY_INFO)
        return;
    if (etls_reported == NULL)
        etls_reported = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    if (g_hash_table_contains(etls_reported, message))
        return;
    if (g_hash_table_size(etls_reported) < ETLS_REPORTED_MAX)
        g_hash_table_add(etls_reported, g_strdup(message));
    ws_warning("etlshark: %s%s", severity == ETL_REGISTRY_ERROR ? "manifest error: " : "",
               message);
}

/* The search path in precedence order: the preference, then the environment. */
static void
etls_add_manifest_paths(etl_registry *s)
{
    const char *env = etl_registry_env_path();

    if (etls_pref_manifest_path != NULL && etls_pref_manifest_path[0] != '\0')
        etl_registry_add_path(s, etls_pref_manifest_path);
    if (env != NULL && env[0] != '\0')
        etl_registry_add_path(s, env);
}

/* Called with the step and type of every value of a schema (etls_schema_field_types). */
typedef void (*etls_field_type_fn)(void *ctx, etls_step *st, etls_ftype t);

/* Is this array's element count read from the payload (a u16 before the elements, or another
 * field's value), so that an event may have no element at all? */
static bool
etls_counted_by_payload(const etl_schema *s, const etl_item *array_begin)
{
    const etl_schema_step *st = &s->steps[array_begin->step];

    return st->count_rule == ETL_COUNT_U16 || st->count_rule == ETL_COUNT_REF;
}

/* Typed fields of one schema's values: the decoder's walk of the schema (every field, the
 * elements of arrays counted by another field included) and each value's nominal type - the
 * type its well-formed values decode to - mapped as dissection maps decoded values
 * (etls_ftype_of).  `counted` false: the fields every event of the schema has; true: the
 * fields inside arrays whose count the payload gives (registered after all the others, so a
 * name such a field shares with a field of another type keeps the type it always had). */
static void
etls_schema_field_types(GPtrArray *by_index, const etl_schema *s, bool counted,
                        etls_field_type_fn fn, void *ctx)
{
    etls_step *stack[ETL_SCHEMA_MAX_DEPTH + 1];
    bool counted_at[ETL_SCHEMA_MAX_DEPTH + 1];
    unsigned depth = 0, unpushed = 0;
    etls_schema_steps *ss = etls_steps_in(by_index, s);
    etl_schema_walk w;
    etl_item it;

    etl_schema_walk_start(&w, s, s->pointer_size == 4 ? 4 : 8);
    stack[0] = NULL;
    counted_at[0] = false;
    for (;;) {
        etl_item_kind k = etl_schema_walk_next(&w, &it);

        if (k == ETL_ITEM_END || k == ETL_ITEM_PLACEHOLDER)
            break;
        switch (k) {
        case ETL_ITEM_VALUE: {  /* character arrays included: one string */
            etl_value v;

            etl_item_nominal(&it, &v);
            if (counted_at[depth] == counted)
                fn(ctx, etls_step_for(ss, &it, stack[depth]), etls_ftype_of(&v));
            break;
        }
        case ETL_ITEM_STRUCT_BEGIN:
        case ETL_ITEM_ARRAY_BEGIN: {
            etls_step *st = etls_step_for(ss, &it, stack[depth]);

            if (depth >= ETL_SCHEMA_MAX_DEPTH) {
                unpushed++;
                break;
            }
            stack[++depth] = st;
            counted_at[depth] = counted_at[depth - 1] ||
                                (k == ETL_ITEM_ARRAY_BEGIN && etls_counted_by_payload(s, &it));
            break;
        }
        case ETL_ITEM_STRUCT_END:
        case ETL_ITEM_ARRAY_END:
            if (unpushed > 0)
                unpushed--;
            else if (depth > 0)
                depth--;
            break;
        default:
            break;
        }
    }
}

/* etls_field_type_fn registering the field at once. */
static void
etls_register_field_type(void *ctx _U_, etls_step *st, etls_ftype t)
{
    etls_step_hf(st, t);
}

typedef struct etls_startup_ctx {
    etl_registry *reg;
    GPtrArray *by_index;
    bool counted;   /* this round's fields: those inside arrays counted by the payload, or not */
    /* kernel events: per field path (its key), how many values have each type, and the paths
     * in the order first met */
    GHashTable *type_counts;
    GPtrArray *paths;
} etls_startup_ctx;

/* One event of a manifest on the path: the schema the registry would use for it (its
 * precedence rule), and that schema's fields registered. */
static void
etls_register_event_fields(void *vctx, const etl_guid *provider, uint16_t id, uint8_t version)
{
    etls_startup_ctx *ctx = (etls_startup_ctx *)vctx;
    const etl_schema *s = NULL;
    etl_error err;

    memset(&err, 0, sizeof err);
    if (etl_registry_lookup_key(ctx->reg, provider, id, version, 8, &s, &err) == ETL_OK && s != NULL)
        etls_schema_field_types(ctx->by_index, s, ctx->counted, etls_register_field_type, NULL);
}

/* At start-up (protocol registration, and when the preference is applied - before tshark
 * compiles -Y/-R and checks -e): register the typed fields of every event template of the
 * manifests on the search path, so a filter on a manifest field works in the first run.  The
 * schema of each (provider, id, version) is the one the registry picks (its precedence rule),
 * so the field types are those dissection will use; 64-bit records are assumed (a pointer
 * field of a 32-bit record gets its own name on first sight, by etl_fields.h's rule). */
static void
etls_register_manifest_fields(void)
{
    const char *env = etl_registry_env_path();
    char *key = g_strdup_printf("%s\n%s", etls_pref_manifest_path != NULL ? etls_pref_manifest_path : "",
                                env != NULL ? env : "");
    etl_schema_cache *cache;
    etl_registry *reg;
    etls_startup_ctx ctx;

    if (g_strcmp0(key, etls_registered_path) == 0 || strcmp(key, "\n") == 0) {
        g_free(key);
        return;
    }
    g_free(etls_registered_path);
    etls_registered_path = key;

    cache = etl_schema_cache_new(NULL);
    reg = cache != NULL ? etl_registry_new(cache, etls_schemas_report, NULL) : NULL;
    if (reg == NULL) {
        etl_schema_cache_free(cache);
        return;
    }
    etls_add_manifest_paths(reg);
    memset(&ctx, 0, sizeof ctx);
    ctx.reg = reg;
    ctx.by_index = g_ptr_array_new_with_free_func(etls_free_schema_steps);
    etl_registry_foreach_file_event(reg, etls_register_event_fields, &ctx);
    ctx.counted = true;
    etl_registry_foreach_file_event(reg, etls_register_event_fields, &ctx);
    g_ptr_array_free(ctx.by_index, TRUE);
    etl_registry_free(reg);
    etl_schema_cache_free(cache);
    etls_fields_save(true);
}

/* etls_field_type_fn counting the types of each path (etls_register_classic_fields). */
static void
etls_count_field_type(void *vctx, etls_step *st, etls_ftype t)
{
    etls_startup_ctx *ctx = (etls_startup_ctx *)vctx;
    unsigned *counts;

    if (st == NULL || st->key == NULL)
        return;
    counts = (unsigned *)g_hash_table_lookup(ctx->type_counts, st->key);
    if (counts == NULL) {
        char *key = g_strdup(st->key);

        counts = g_new0(unsigned, ETLS_FT_COUNT);
        g_hash_table_insert(ctx->type_counts, key, counts);
        g_ptr_array_add(ctx->paths, key);
    }
    counts[t]++;
}

/* One (class, type, version) of the kernel class document: the field types of its schema for
 * both record bitnesses, counted. */
static void
etls_register_classic_event(void *vctx, const etl_guid *cls, uint8_t type, uint8_t version)
{
    static const uint8_t pointer_sizes[] = { 8, 4 };
    etls_startup_ctx *ctx = (etls_startup_ctx *)vctx;

    for (unsigned i = 0; i < G_N_ELEMENTS(pointer_sizes); i++) {
        const etl_schema *s = NULL;
        etl_error err;

        memset(&err, 0, sizeof err);
        if (etl_registry_lookup_classic(ctx->reg, cls, type, version, pointer_sizes[i], &s,
                                       &err) == ETL_OK && s != NULL && !s->unknown)
            etls_schema_field_types(ctx->by_index, s, ctx->counted, etls_count_field_type, ctx);
    }
}

/* Register the paths of one round (etls_register_classic_fields), each name's most frequent type first (ties in
 * etls_ftype order), so that type gets the plain name. */
static void
etls_register_by_frequency(etls_startup_ctx *ctx)
{
    for (guint i = 0; i < ctx->paths->len; i++) {
        const char *key = (const char *)g_ptr_array_index(ctx->paths, i);
        const unsigned *counts = (const unsigned *)g_hash_table_lookup(ctx->type_counts, key);
        bool done[ETLS_FT_COUNT] = { false };

        for (;;) {
            int best = -1;

            for (int t = 0; t < (int)ETLS_FT_COUNT; t++)
                if (!done[t] && counts[t] > 0 && (best < 0 || counts[t] > counts[best]))
                    best = t;
            if (best < 0)
                break;
            done[best] = true;
            etls_fields_hf(key, (etls_ftype)best);
        }
    }
}

/* At start-up, once: the typed fields of every event of the kernel class document built into
 * the decoder (classic.h), so `-Y etl.data.daddr == 10.0.0.1` works in the first run.  They
 * are registered after the field store (whose names keep their types) and before any
 * manifest's.  When kernel events give one name values of different types, the type most of
 * them have gets the plain name (etl_fields.h's rule then suffixes the others): ProcessId is
 * the u32 PID of most classes, not Process V0's pointer (ProcessId_x64); daddr the IPv4
 * address of the TcpIp/UdpIp IPv4 events, daddr_ipv6 the IPv6 one. */
static void
etls_register_classic_fields(void)
{
    etl_schema_cache *cache = etl_schema_cache_new(NULL);
    etl_registry *reg = cache != NULL ? etl_registry_new(cache, etls_schemas_report, NULL) : NULL;
    etls_startup_ctx ctx;

    if (reg == NULL) {
        etl_schema_cache_free(cache);
        ws_warning("etlshark: out of memory registering the kernel events' fields");
        return;
    }
    memset(&ctx, 0, sizeof ctx);
    ctx.reg = reg;
    ctx.by_index = g_ptr_array_new_with_free_func(etls_free_schema_steps);
    /* Registered alike at every start: the store need not list them. */
    etls_fields_remember(false);
    for (int round = 0; round < 2; round++) {
        ctx.counted = round == 1;
        ctx.type_counts = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
        ctx.paths = g_ptr_array_new_with_free_func(g_free);
        etl_registry_foreach_classic_event(reg, etls_register_classic_event, &ctx);
        etls_register_by_frequency(&ctx);
        g_hash_table_destroy(ctx.type_counts);
        g_ptr_array_free(ctx.paths, TRUE);
    }
    etls_fields_remember(true);
    g_ptr_array_free(ctx.by_index, TRUE);
    etl_registry_free(reg);
    etl_schema_cache_free(cache);
}

static void
etls_prefs_apply(void)
{
    etls_register_manifest_fields();
}

etl_registry *
etls_event_data_schemas(void)
{
    return etls_schemas;
}

/* The prescan's client (etl_prescan.h): the schemas the capture file carries (MetaData
 * records, EventSource manifest chunks) go to the registry before the first lookup. */
static bool
etls_schemas_observer(etl_observer *out)
{
    if (etls_schemas == NULL)
        return false;
    *out = etl_registry_observer(etls_schemas);
    return true;
}

static void
etls_schemas_stream(void)
{
    etls_observe = true;
}

static const etls_prescan_client etls_schemas_client = { etls_schemas_observer, etls_schemas_stream };

void
etls_event_data_record(packet_info *pinfo, const etl_record *rec)
{
    if (etls_schemas == NULL)
        return;
    etls_prescan_once(pinfo);
    if (etls_observe && !PINFO_FD_VISITED(pinfo)) {
        etl_error err;

        memset(&err, 0, sizeof err);
        etl_registry_observe(etls_schemas, rec, &err);
    }
}

/* ---- entry points ------------------------------------------------------------------------- */

/* The "Event data" subtree over the payload, walked from `f`. */
static void
etls_add_event_data(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etl_record *rec,
                    etl_fields *f, const etl_schema *schema, etls_event_summary *sum)
{
    etls_walk w;
    proto_item *data_item;
    proto_tree *data_tree;

    data_item = proto_tree_add_item(tree, hf_etl_data, tvb, (int)rec->payload_offset,
                                    (int)rec->payload_size, ENC_NA);
    data_tree = proto_item_add_subtree(data_item, ett_etl_data);
    w.tvb = tvb;
    w.pinfo = pinfo;
    w.payload_off = (int)rec->payload_offset;
    w.sum = sum;
    w.info_fields = 0;
    w.untyped_noted = false;
    etls_walk_fields(&w, f, etls_steps_of(schema), data_tree, data_item);

    /* Fields met for the first time go to the store now (at most once a second), so even a
     * run that is cut short (tshark ... | head) leaves them for the next one. */
    etls_fields_save(false);
}

static void
etls_add_name(tvbuff_t *tvb, proto_tree *tree, int hf, packet_info *pinfo, const char *v)
{
    proto_item *ti;

    if (v == NULL)
        return;
    ti = proto_tree_add_string(tree, hf, tvb, 0, 0, etls_utf8(pinfo->pool, v, strlen(v)));
    proto_item_set_generated(ti); /* from the manifest, not from the record */
}

/* No schema for the record (res->status says why): the payload as one item, with the reason. */
static void
etls_add_no_schema(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etl_record *rec,
                   const etl_resolved *res, const etls_event_summary *sum)
{
    proto_item *ti = proto_tree_add_item(tree, hf_etl_data, tvb, (int)rec->payload_offset,
                                         (int)rec->payload_size, ENC_NA);
    const char *why = etl_status_name(res->error.code);
    char guid[ETL_GUID_STR_SIZE];

    if (res->status == ETL_RESOLVE_SCHEMA_MISSING) {
        etl_format_guid(&rec->provider, guid);
        expert_add_info_format(pinfo, ti, &ei_etl_schema_missing,
                               /* labels stop at 240 bytes: keep it short */
                               "No manifest for %s%s%s%s event id %u version %u (payload "
                               "shown raw): add it to preference etl.manifest_path or "
                               ETL_REGISTRY_ENV,
                               sum->provider_name != NULL ? sum->provider_name : guid,
                               sum->provider_name != NULL ? " (" : "",
                               sum->provider_name != NULL ? guid : "",
                               sum->provider_name != NULL ? ")" : "", rec->event_id,
                               rec->version);
    } else if (res->kind == ETL_RESOLVE_TRACELOGGING) {
        expert_add_info_format(pinfo, ti, &ei_etl_schema_error,
                               "The event's TraceLogging schema cannot be used (%s): %s", why,
                               res->error.message);
    } else if (res->kind == ETL_RESOLVE_CLASSIC) {
        /* only an exhausted cache gets here (ETL_ERR_NOMEM / ETL_ERR_LIMIT) */
        expert_add_info_format(pinfo, ti, &ei_etl_classic_schema_error,
                               "The kernel event's schema cannot be had (%s): %s", why,
                               res->error.message);
    } else {
        expert_add_info_format(pinfo, ti, &ei_etl_mf_schema_error,
                               "The event's manifest schema cannot be used (%s): %s", why,
                               res->error.message);
    }
}

/* An event not described by any source (UNKNOWN_EVENT: classic events the kernel class
 * document lacks): its made-up name is already shown; the payload goes under Event data as
 * it is, with a note - an unknown event is not an error in the trace. */
static void
etls_add_unknown_event(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
                       const etl_record *rec, const etl_resolved *res)
{
    const char *reason = etl_schema_reason(res->schema);
    proto_item *data_item, *ti;
    proto_tree *data_tree;

    data_item = proto_tree_add_item(tree, hf_etl_data, tvb, (int)rec->payload_offset,
                                    (int)rec->payload_size, ENC_NA);
    data_tree = proto_item_add_subtree(data_item, ett_etl_data);
    ti = proto_tree_add_item(data_tree, hf_etl_data_raw, tvb, (int)rec->payload_offset,
                             (int)rec->payload_size, ENC_NA);
    proto_item_set_text(ti, "Raw payload: %u byte%s (%s)", rec->payload_size,
                        rec->payload_size == 1 ? "" : "s",
                        reason != NULL ? reason : "no description of the event");
    expert_add_info_format(pinfo, data_item, &ei_etl_unknown_event,
                           "Unknown event %s/%s: no description of its fields; payload shown raw",
                           res->provider_name != NULL ? res->provider_name : "?",
                           res->event_name);
}

/* What the schema of a manifest or classic event says: the names, the message and the Event
 * data subtree. */
static void
etls_add_schema_event(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
                      const etl_record *rec, const etl_resolved *res, etl_fields *f,
                      etls_event_summary *sum)
{
    proto_item *ti;

    etls_event_name(tvb, pinfo, tree, rec, res, sum);
    etls_add_name(tvb, tree, hf_etl_task_name, pinfo, res->task_name);
    etls_add_name(tvb, tree, hf_etl_opcode_name, pinfo, res->opcode_name);
    etls_add_name(tvb, tree, hf_etl_level_name, pinfo, res->level_name);
    etls_add_name(tvb, tree, hf_etl_channel_name, pinfo, res->channel_name);
    etls_add_name(tvb, tree, hf_etl_keywords_name, pinfo, res->keywords_name);
    if (res->status == ETL_RESOLVE_UNKNOWN_EVENT) {
        etls_add_unknown_event(tvb, pinfo, tree, rec, res);
        return;
    }
    if (res->status == ETL_RESOLVE_OLDER_VERSION) {
        ti = proto_tree_add_uint(tree, hf_etl_schema_version, tvb, 0, 0, res->schema_version);
        proto_item_set_generated(ti);
        /* an unknown version is worth a look: fields a newer version added or changed show as
         * trailing bytes, or decode with the older layout */
        expert_add_info_format(pinfo, ti, &ei_etl_older_version,
                               "No description of version %u of %s; decoded with version %u's layout",
                               (unsigned)rec->version, res->event_name,
                               (unsigned)res->schema_version);
    }
    if (res->has_message) {
        size_t n = etl_decoder_message(etls_decoder, rec, res, etls_message,
                                       sizeof etls_message);

        ti = proto_tree_add_string(tree, hf_etl_message, tvb, (int)rec->payload_offset,
                                   (int)rec->payload_size,
                                   etls_utf8(pinfo->pool, etls_message, n));
        proto_item_set_generated(ti);
    }
    etls_add_event_data(tvb, pinfo, tree, rec, f, res->schema, sum);
}

/* Every record: the decoder resolves it (resolve.h) - schema, names, status - and this only
 * shows the answer. */
void
etls_dissect_event_data(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
                        const etl_record *rec, etls_event_summary *sum)
{
    etl_resolved res;
    etl_fields f;

    memset(sum, 0, sizeof *sum);
    if (etls_decoder == NULL)
        return;
    etl_decoder_resolve(etls_decoder, rec, PINFO_FD_VISITED(pinfo) ? ETL_RESOLVE_NO_LEARN : 0,
                        &res, &f);
    if (res.kind == ETL_RESOLVE_NONE)
        return;
    etls_provider_name(tvb, pinfo, tree, rec, &res, sum);
    switch (res.status) {
    case ETL_RESOLVE_NOT_APPLICABLE:
        return;
    case ETL_RESOLVE_SCHEMA_MISSING:
    case ETL_RESOLVE_SCHEMA_ERROR:
        etls_add_no_schema(tvb, pinfo, tree, rec, &res, sum);
        return;
    default:
        break;
    }
    if (res.kind == ETL_RESOLVE_TRACELOGGING) {
        etls_event_name(tvb, pinfo, tree, rec, &res, sum);
        etls_add_event_data(tvb, pinfo, tree, rec, &f, res.schema, sum);
        return;
    }
    etls_add_schema_event(tvb, pinfo, tree, rec, &res, &f, sum);
}

static void
etls_event_data_init(void)
{
    etls_decoder = etl_decoder_new(etls_schemas_report, NULL);
    if (etls_decoder == NULL)
        ws_warning("etlshark: out of memory for the schema cache; event fields are not "
                   "decoded");
    etls_schema_steps_by_index = g_ptr_array_new_with_free_func(etls_free_schema_steps);
    /* Manifest files first (they take precedence), then, at the first frame, the file's own. */
    etls_schemas = etl_decoder_registry(etls_decoder);
    if (etls_schemas != NULL)
        etls_add_manifest_paths(etls_schemas);
    etls_observe = false;
}

static void
etls_event_data_cleanup(void)
{
    if (etls_schema_steps_by_index != NULL) {
        g_ptr_array_free(etls_schema_steps_by_index, TRUE);
        etls_schema_steps_by_index = NULL;
    }
    etl_decoder_free(etls_decoder);
    etls_decoder = NULL;
    etls_schemas = NULL;
    etls_fields_save(true);
}

static void
etls_event_data_shutdown(void)
{
    etls_fields_shutdown();
    if (etls_reported != NULL) {
        g_hash_table_destroy(etls_reported);
        etls_reported = NULL;
    }
    g_free(etls_registered_path);
    etls_registered_path = NULL;
}

void
etls_event_data_register(int proto, expert_module_t *expert)
{
    static hf_register_info hf[] = {
        { &hf_etl_provider_name, { "Provider name", "etl.provider_name", FT_STRING, BASE_NONE, NULL, 0x0,
            "Provider name: TraceLogging PROV_TRAITS (remembered for the provider's later events), or the manifest's", HFILL } },
        { &hf_etl_event_name, { "Event name", "etl.event_name", FT_STRING, BASE_NONE, NULL, 0x0,
            "Event name: TraceLogging EVENT_SCHEMA_TL, or the manifest event's display name", HFILL } },
        { &hf_etl_task_name, { "Task name", "etl.task_name", FT_STRING, BASE_NONE, NULL, 0x0,
            "Manifest events: the display name of the event's task", HFILL } },
        { &hf_etl_opcode_name, { "Opcode name", "etl.opcode_name", FT_STRING, BASE_NONE, NULL, 0x0,
            "Manifest events: the display name of the event's opcode", HFILL } },
        { &hf_etl_level_name, { "Level name", "etl.level_name", FT_STRING, BASE_NONE, NULL, 0x0,
            "Manifest events: the display name of the event's level", HFILL } },
        { &hf_etl_channel_name, { "Channel name", "etl.channel_name", FT_STRING, BASE_NONE, NULL, 0x0,
            "Manifest events: the display name of the event's channel", HFILL } },
        { &hf_etl_keywords_name, { "Keyword names", "etl.keywords_name", FT_STRING, BASE_NONE, NULL, 0x0,
            "Manifest events: the display names of the event's keywords, ' | '-joined", HFILL } },
        { &hf_etl_schema_version, { "Schema version used", "etl.schema_version", FT_UINT8, BASE_DEC, NULL, 0x0,
            "Manifest events: no source defines the record's version; this lower version's definition decoded it", HFILL } },
        { &hf_etl_message, { "Message", "etl.message", FT_STRING, BASE_NONE, NULL, 0x0,
            "Manifest events: the event's message string with its %1-style inserts filled in", HFILL } },
        { &hf_etl_data, { "Event data", "etl.data", FT_NONE, BASE_NONE, NULL, 0x0,
            "Decoded fields of the event; each is etl.data.<name>", HFILL } },
        { &hf_etl_field_name, { "Field name", "etl.field.name", FT_STRING, BASE_NONE, NULL, 0x0,
            "Name of a decoded field (struct members: Outer.Inner)", HFILL } },
        { &hf_etl_field_value, { "Field value", "etl.field.value", FT_STRING, BASE_NONE, NULL, 0x0,
            "Value of a decoded field as Windows renders it", HFILL } },
        { &hf_etl_kv, { "Field name=value", "etl.kv", FT_STRING, BASE_NONE, NULL, 0x0,
            "Name=Value of a decoded field, the value as Windows renders it", HFILL } },
        { &hf_etl_data_unsupported, { "Undecoded field data", "etl.data_unsupported", FT_BYTES, BASE_NONE, NULL, 0x0,
            "Payload bytes from the first field that cannot be decoded", HFILL } },
        { &hf_etl_data_trailing, { "Trailing payload bytes", "etl.data_trailing", FT_BYTES, BASE_NONE, NULL, 0x0,
            "Payload bytes after the last field the schema describes", HFILL } },
        { &hf_etl_data_raw, { "Raw payload", "etl.data_raw", FT_BYTES, BASE_NONE, NULL, 0x0,
            "Payload of an event no source describes (etl.expert.unknown_event)", HFILL } },
    };
    static int *ett[] = {
        &ett_etl_data,
        &ett_etl_data_struct,
        &ett_etl_data_array,
    };
    static ei_register_info ei[] = {
        { &ei_etl_schema_error, { "etl.expert.schema_error", PI_MALFORMED, PI_ERROR,
            "The event's TraceLogging schema cannot be used", EXPFILL } },
        { &ei_etl_field_unsupported, { "etl.expert.field_unsupported", PI_UNDECODED, PI_WARN,
            "A field cannot be decoded; the rest of the payload is shown raw", EXPFILL } },
        { &ei_etl_field_trailing, { "etl.expert.field_trailing", PI_UNDECODED, PI_NOTE,
            "Payload bytes after the last field of the schema", EXPFILL } },
        { &ei_etl_field_untyped, { "etl.expert.field_untyped", PI_PROTOCOL, PI_NOTE,
            "Too many distinct fields: values shown without a typed etl.data.<name> field", EXPFILL } },
        { &ei_etl_schema_missing, { "etl.expert.schema_missing", PI_UNDECODED, PI_NOTE,
            "No manifest describes the event; add one with etl.manifest_path or ETLSHARK_MANIFEST_PATH", EXPFILL } },
        { &ei_etl_mf_schema_error, { "etl.expert.manifest_schema_error", PI_MALFORMED, PI_ERROR,
            "The event's manifest schema cannot be used", EXPFILL } },
        { &ei_etl_unknown_event, { "etl.expert.unknown_event", PI_UNDECODED, PI_NOTE,
            "Unknown event: no description of its fields (a kernel event the kernel class document lacks); payload shown raw", EXPFILL } },
        { &ei_etl_older_version, { "etl.expert.older_version", PI_UNDECODED, PI_NOTE,
            "Unknown version of a known event: decoded with the highest lower version's layout", EXPFILL } },
        { &ei_etl_classic_schema_error, { "etl.expert.classic_schema_error", PI_UNDECODED, PI_WARN,
            "The kernel event's schema cannot be had (out of memory or cache limit)", EXPFILL } },
    };
    module_t *prefs;

    etls_proto = proto;
    proto_register_field_array(proto, hf, G_N_ELEMENTS(hf));
    proto_register_subtree_array(ett, G_N_ELEMENTS(ett));
    expert_register_field_array(expert, ei, G_N_ELEMENTS(ei));
    register_init_routine(etls_event_data_init);
    register_cleanup_routine(etls_event_data_cleanup);
    register_shutdown_routine(etls_event_data_shutdown);
    etls_prescan_register(&etls_schemas_client);

    prefs = prefs_register_protocol(proto, etls_prefs_apply);
    prefs_register_string_preference(prefs, "manifest_path", "Manifest search path",
        "Instrumentation manifests (.man/.xml) of manifest-based providers: a list of manifest "
        "files and folders (a folder's *.man and *.xml files are read) separated by '"
        G_SEARCHPATH_SEPARATOR_S "'.  Searched before $" ETL_REGISTRY_ENV ", and before the "
        "EventSource manifests and schemas a trace carries.  The typed etl.data.<name> fields "
        "of every event they describe are registered at start-up.",
        &etls_pref_manifest_path);

    /* After the static fields, so the store can never take one of their names. */
    etls_fields_register(proto);
    /* The kernel events' fields, then the manifests of $ETLSHARK_MANIFEST_PATH now (the
     * preference's when it is applied). */
    etls_register_classic_fields();
    etls_register_manifest_fields();
}
