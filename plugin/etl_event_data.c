/* etl_event_data.c - provider/event names and the decoded fields of TraceLogging and manifest
 * events (etl_event_data.h).
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A second thin user of the decoder's field API, beside etldump: the decoder resolves each
 * record (resolve.h), the enumerator (fields.h) says what each payload byte is, value_format.h
 * gives the typed value and the text Windows shows; this file only places them in the tree.
 * Nothing here reads payload bytes itself or decides how a record decodes.  The steps' names
 * and fields, the start-up registration and the preferences and session are the other files
 * of etl_event_internal.h.
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
#include "resolve.h"
#include "value_format.h"
#include "viewer_output.h"
#include "wpp.h"

#include "etl_frame.h"

#include "etl_event_data.h"
#include "etl_process.h"
#include "etl_event_internal.h"
#include "etl_fields.h"
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
static int hf_etl_manifest_problem = -1;

static int ett_etl_data = -1;
static int ett_etl_data_struct = -1;
static int ett_etl_data_array = -1;
static int ett_etl_manifest_problems = -1;

static expert_field ei_etl_schema_error = EI_INIT;
static expert_field ei_etl_field_unsupported = EI_INIT;
static expert_field ei_etl_field_trailing = EI_INIT;
static expert_field ei_etl_field_untyped = EI_INIT;
static expert_field ei_etl_schema_missing = EI_INIT;
static expert_field ei_etl_mf_schema_error = EI_INIT;
static expert_field ei_etl_unknown_event = EI_INIT;
static expert_field ei_etl_older_version = EI_INIT;
static expert_field ei_etl_classic_schema_error = EI_INIT;
static expert_field ei_etl_manifest_error = EI_INIT;
static expert_field ei_etl_manifest_warning = EI_INIT;
static expert_field ei_etl_tmf_missing = EI_INIT;

/* WPP messages without their TMF: the first frame of each hint (one per message GUID), so the
 * note is made once per GUID however often the file is dissected. */
static wmem_map_t *etls_tmf_missing_first;

/* The rendered message of an event. */
static char etls_message[65536];

/* Scratch of the formatter: converted text of a value, and its rendered text.  Big enough for
 * any value of a record (records are < 64 KiB).  Dissection is single-threaded. */
static char etls_scratch[ETL_VALUE_TEXT_CAP(65536)];
static char etls_text[ETL_VALUE_TEXT_CAP(65536)];
/* Scratch of an etl.kv text ("path=text"). */
static GString *etls_kv;

/* What this process's command line says its output prints (viewer_output.h), read once. */
static etl_viewer_output etls_output;

/* State of one event's walk. */
typedef struct etls_walk {
    tvbuff_t *tvb;
    packet_info *pinfo;
    int payload_off;          /* frame offset of the payload: item offsets are relative to it */
    etls_event_summary *sum;
    unsigned info_fields;     /* fields already in sum->fields */
    bool untyped_noted;
    const etl_record *rec;
    /* What the frame's dissection needs, decided once per walk: nothing is built that no one
     * sees.  `shown`: the tree is printed or displayed (labels); want_*: someone asks for the
     * hidden generic fields (etls_hidden_wanted); want_info: the Info column takes the first
     * fields (there is a column and the frame is not a packet's). */
    bool shown;
    bool want_name;
    bool want_value;
    bool want_kv;
    bool want_info;
    GString *kv;              /* scratch of the etl.kv text */
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

/* The same for a NUL-terminated name that outlives the frame's dissection (the session's, or
 * in the record): itself when it is valid, which it nearly always is (Wireshark copies what
 * it shows). */
static const char *
etls_utf8_name(wmem_allocator_t *pool, const char *s)
{
    if (g_utf8_validate(s, -1, NULL))
        return s;
    return etls_utf8(pool, s, strlen(s));
}

/* Room etls_one_line_to needs for a cut at `max` bytes: the cut is made at the first character
 * boundary at or past max, so the last character (escaped: 4 bytes) and "..." may follow. */
#define ETLS_ONE_LINE_CAP(max) ((max) + 8u)

/* s[0..n) fit for one line of a label or column, into out (ETLS_ONE_LINE_CAP(max) bytes,
 * NUL-terminated; returns the length): control characters escaped, and cut (at a character
 * boundary, marked with ASCII "..." - U+2026 is mangled by Wireshark 4.0's CSV export) after
 * `max` bytes.  No allocation: it runs for every shown value. */
static size_t
etls_one_line_to(char *out, const char *s, size_t n, size_t max)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (o >= max && (c & 0xC0) != 0x80) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (c >= 0x20 && c != 0x7F) {
            out[o++] = (char)c;
            continue;
        }
        out[o++] = '\\';
        if (c == '\n') {
            out[o++] = 'n';
        } else if (c == '\r') {
            out[o++] = 'r';
        } else if (c == '\t') {
            out[o++] = 't';
        } else {
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 0xF];
        }
    }
    out[o] = '\0';
    return o;
}

/* The same in pool memory. */
static const char *
etls_one_line(wmem_allocator_t *pool, const char *s, size_t n, size_t max)
{
    char *out = (char *)wmem_alloc(pool, ETLS_ONE_LINE_CAP(max));

    etls_one_line_to(out, s, n, max);
    return out;
}

/* The same appended to a column text. */
static void
etls_one_line_append(wmem_strbuf_t *b, const char *s, size_t n, size_t max)
{
    char out[ETLS_ONE_LINE_CAP(ETLS_INFO_VALUE_MAX)];

    etls_one_line_to(out, s, n, max <= ETLS_INFO_VALUE_MAX ? max : ETLS_INFO_VALUE_MAX);
    wmem_strbuf_append(b, out);
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

/* How an item is called in its label: its name, "_N" for a repeated name (the step keeps it),
 * "[i]" for an array element. */
static const char *
etls_label_name(wmem_allocator_t *pool, const etl_item *it, const etls_step *st)
{
    const char *name;

    if (st != NULL) {
        name = st->label;
    } else {
        char buf[ETL_ITEM_KEY_MAX];
        const char *key = etl_item_key(it, buf, sizeof buf);

        name = key[0] != '\0' ? etls_utf8(pool, key, strlen(key)) : "(unnamed)";
    }
    if (it->is_element)
        return wmem_strdup_printf(pool, "%s[%u]", name, it->array_index);
    return name;
}

/* ---- values ------------------------------------------------------------------------------- */

/* A generated, hidden string item. */
static void
etls_add_hidden(proto_tree *tree, int hf, tvbuff_t *tvb, int off, int len, const char *s)
{
    proto_item *gi = proto_tree_add_string(tree, hf, tvb, off, len, s);

    proto_item_set_hidden(gi);
    proto_item_set_generated(gi);
}

/* Is a hidden item of field `hf` asked for?  Not merely because the tree is visible
 * (proto_field_is_referenced says yes to any field of a visible tree): tshark -V and the
 * GUI's details pane do not show hidden items.  Asked for: a display filter, a column, a tap,
 * a postdissector or (4.2 and later) a -e that references the field (Wireshark primes it:
 * ref_type), or, for a visible tree, the preference that shows hidden items, an output that
 * prints them (tshark -T json/jsonraw/pdml/ek) or a -e naming it (4.0's tshark builds a
 * visible tree for -T fields without priming its -e fields); viewer_output.h decides those
 * two from the command line. */
static bool
etls_hidden_wanted(proto_tree *tree, int hf)
{
    header_field_info *hfi;

    if (tree == NULL || hf < 0)
        return false;
    hfi = proto_registrar_get_nth((guint)hf);
    if (hfi != NULL && hfi->ref_type != HF_REF_TYPE_NONE)
        return true;
    if (!PTREE_DATA(tree)->visible)
        return false;
    return prefs.display_hidden_proto_items || etl_viewer_output_prints_hidden(&etls_output) ||
           (hfi != NULL && etl_viewer_output_names(&etls_output, hfi->abbrev));
}

/* Is a typed item of field `hf` wanted?  proto_field_is_referenced, but for the visible tree
 * that prints no tree (4.0's tshark -T fields): there only the -e fields and filters ask. */
static bool
etls_typed_wanted(proto_tree *tree, int hf)
{
    header_field_info *hfi;

    if (!proto_field_is_referenced(tree, hf))
        return false;
    if (!PTREE_DATA(tree)->visible || etl_viewer_output_prints_tree(&etls_output))
        return true;
    hfi = proto_registrar_get_nth((guint)hf);
    return hfi == NULL || hfi->ref_type != HF_REF_TYPE_NONE ||
           etl_viewer_output_names(&etls_output, hfi->abbrev);
}

/* Everything a value gets besides its typed item: the label, the generic fields and its place
 * in the Info column.  `ti` is the typed item (NULL without a tree); `hf` < 0 says the
 * registry gave no typed field, the one case worth an expert note.  `text` is the value's
 * text, NUL-terminated at text_len, or NULL when the walk needs none (etls_walk). */
static void
etls_finish_value(etls_walk *w, proto_tree *tree, proto_item *ti, int hf, const etl_item *it,
                  const etls_step *st, const char *text, size_t text_len, int off, int len)
{
    wmem_allocator_t *pool = w->pinfo->pool;
    const char *path = st != NULL ? st->path : etls_utf8(pool, it->name, strlen(it->name));
    char line[ETLS_ONE_LINE_CAP(ETLS_LABEL_VALUE_MAX)];
    proto_item *gi;

    if (hf >= 0) {
        if (w->shown) {
            etls_one_line_to(line, text, text_len, ETLS_LABEL_VALUE_MAX);
            proto_item_set_text(ti, "%s: %s", etls_label_name(pool, it, st), line);
        }
    } else {
        /* No typed field to be had (limit reached): the text is the visible item. */
        etls_one_line_to(line, text, text_len, ETLS_LABEL_VALUE_MAX);
        gi = proto_tree_add_string_format(tree, hf_etl_field_value, w->tvb, off, len, text,
                                          "%s: %s", etls_label_name(pool, it, st), line);
        if (!w->untyped_noted) {
            w->untyped_noted = true;
            expert_add_info(w->pinfo, gi, &ei_etl_field_untyped);
        }
    }

    /* One-pass filtering on any field, whatever its type or whether it is registered yet;
     * built only when a tree shows them or a filter or column asks for them. */
    if (w->want_name)
        etls_add_hidden(tree, hf_etl_field_name, w->tvb, off, len, path);
    if (hf >= 0 && w->want_value)
        etls_add_hidden(tree, hf_etl_field_value, w->tvb, off, len, text);
    if (w->want_kv) {
        g_string_assign(w->kv, path);
        g_string_append_c(w->kv, '=');
        g_string_append(w->kv, text);
        etls_add_hidden(tree, hf_etl_kv, w->tvb, off, len, w->kv->str);
    }

    if (w->want_info) {
        if (w->info_fields < ETLS_INFO_FIELDS) {
            if (w->sum->fields == NULL)
                w->sum->fields = wmem_strbuf_new(pool, "");
            else
                wmem_strbuf_append(w->sum->fields, ", ");
            etls_one_line_append(w->sum->fields, path, strlen(path), ETLS_INFO_VALUE_MAX);
            if (it->is_element)
                wmem_strbuf_append_printf(w->sum->fields, "[%u]", it->array_index);
            wmem_strbuf_append_c(w->sum->fields, '=');
            etls_one_line_append(w->sum->fields, text, text_len, ETLS_INFO_VALUE_MAX);
        } else if (w->info_fields == ETLS_INFO_FIELDS) {
            wmem_strbuf_append(w->sum->fields, ", ...");
        }
    }
    w->info_fields++;
}

/* Does this value need its text?  The label of a shown tree, the generic fields when they
 * are built, the first fields of the Info column, and a value without a typed field (its
 * text is its item). */
static bool
etls_value_needs_text(const etls_walk *w, int hf)
{
    return hf < 0 || w->shown || w->want_value || w->want_kv ||
           (w->want_info && w->info_fields < ETLS_INFO_FIELDS);
}

static void
etls_add_value(etls_walk *w, proto_tree *tree, const etl_item *it, etls_step *st)
{
    etl_value v;
    size_t text_len = 0;
    etls_ftype t;
    int hf;
    int off = w->payload_off + (int)it->offset;
    int len = (int)it->wire_size;
    proto_item *ti = NULL;
    const char *text = NULL;

    etl_value_decode(it, &v, etls_scratch, sizeof etls_scratch);
    t = etls_ftype_of(&v);
    hf = etls_step_hf(st, t);
    if (etls_value_needs_text(w, hf)) {
        /* A mapped value (manifests' valueMap/bitMap) shows its names; the typed value stays
         * the number. */
        if (it->map == NULL ||
            !etl_value_map_text(it, &v, etls_text, sizeof etls_text - 1, &text_len))
            text_len = etl_value_text(&v, etls_text, sizeof etls_text - 1);
        etls_text[text_len] = '\0';
        text = etls_text;
    }
    /* A typed item nobody sees or filters on would be faked by Wireshark anyway; skipping it
     * saves copying its value (strings). */
    if (hf >= 0 && etls_typed_wanted(tree, hf))
        ti = etls_add_typed(tree, hf, t, w->tvb, off, len, &v, w->pinfo->pool);
    etls_finish_value(w, tree, ti, hf, it, st, text, text_len, off, len);
    if (v.kind == ETL_VALUE_STRING && it->depth == 0)
        etls_process_dos_path(tree, w->tvb, w->pinfo, w->rec, off, len, v.str, v.str_len);
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
            /* a label only for a tree that is shown */
            const char *label = w->shown ? etls_label_name(w->pinfo->pool, &it, st) : "";
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
        name = etls_utf8_name(pinfo->pool, res->provider_name);
        proto_tree_add_string(tree, hf_etl_provider_name, tvb,
                              etls_offset_in_record(rec, res->provider_name_bytes),
                              (int)res->provider_name_bytes_len, name);
        sum->provider_name = name;
        return;
    case ETL_NAME_SCHEMA:
    case ETL_NAME_REGISTRY:
    case ETL_NAME_KNOWN: /* the library's well-known table: the same whatever the frame order */
        name = etls_utf8_name(pinfo->pool, res->provider_name);
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

    sum->event_name = etls_utf8_name(pinfo->pool, res->event_name);
    if (res->event_name_bytes != NULL) {
        proto_tree_add_string(tree, hf_etl_event_name, tvb,
                              etls_offset_in_record(rec, res->event_name_bytes),
                              (int)res->event_name_bytes_len, sum->event_name);
        return;
    }
    ti = proto_tree_add_string(tree, hf_etl_event_name, tvb, 0, 0, sum->event_name);
    proto_item_set_generated(ti);
}

/* ---- entry points ------------------------------------------------------------------------- */

/* The "Event data" subtree over the payload, walked from `f`. */
static void
etls_add_event_data(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etl_record *rec,
                    etl_fields *f, const etl_schema *schema, etls_event_summary *sum,
                    bool want_info)
{
    etls_walk w;
    proto_item *data_item;
    proto_tree *data_tree;

    data_item = proto_tree_add_item(tree, hf_etl_data, tvb, (int)rec->payload_offset,
                                    (int)rec->payload_size, ENC_NA);
    data_tree = proto_item_add_subtree(data_item, ett_etl_data);
    w.tvb = tvb;
    w.pinfo = pinfo;
    w.rec = rec;
    w.payload_off = (int)rec->payload_offset;
    w.sum = sum;
    w.info_fields = 0;
    w.untyped_noted = false;
    /* (a visible tree of an output that prints none, 4.0's -T fields, needs no label) */
    w.shown = tree != NULL && PTREE_DATA(tree)->visible && etl_viewer_output_prints_tree(&etls_output);
    w.want_name = etls_hidden_wanted(tree, hf_etl_field_name);
    w.want_value = etls_hidden_wanted(tree, hf_etl_field_value);
    w.want_kv = etls_hidden_wanted(tree, hf_etl_kv);
    w.want_info = want_info;
    w.kv = etls_kv;
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
    ti = proto_tree_add_string(tree, hf, tvb, 0, 0, etls_utf8_name(pinfo->pool, v));
    proto_item_set_generated(ti); /* from the manifest, not from the record */
}

/* No schema for the record (res->status says why): the payload as one item, with the reason. */
static void
etls_add_no_schema(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etl_record *rec,
                   const etl_resolved *res, const etls_event_summary *sum _U_)
{
    proto_item *ti = proto_tree_add_item(tree, hf_etl_data, tvb, (int)rec->payload_offset,
                                         (int)rec->payload_size, ENC_NA);
    const char *why = etl_status_name(res->error.code);

    if (res->status == ETL_RESOLVE_SCHEMA_MISSING && res->kind == ETL_RESOLVE_WPP) {
        /* the decoder's wording: which TMF would decode the message GUID; once per GUID */
        gpointer first = wmem_map_lookup(etls_tmf_missing_first, res->error.message);

        if (first == NULL) {
            first = GUINT_TO_POINTER(pinfo->num);
            wmem_map_insert(etls_tmf_missing_first, wmem_strdup(wmem_file_scope(), res->error.message), first);
        }
        if (GPOINTER_TO_UINT(first) == pinfo->num)
            expert_add_info_format(pinfo, ti, &ei_etl_tmf_missing,
                                   "%s (arguments shown raw; preference etl.tmf_path or " ETL_TMF_ENV ")",
                                   res->error.message);
    } else if (res->status == ETL_RESOLVE_SCHEMA_MISSING) {
        /* the decoder's one wording (resolve.h), and where Wireshark's manifest path is set */
        expert_add_info_format(pinfo, ti, &ei_etl_schema_missing,
                               "%s (payload shown raw; preference etl.manifest_path or "
                               ETL_REGISTRY_ENV ")", res->error.message);
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
                      etls_event_summary *sum, bool want_info)
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
    /* The message is rendered from every field: only for a tree that shows it, a filter on
     * it, or the Info column of a WPP message (its text). */
    if (res->has_message && (proto_field_is_referenced(tree, hf_etl_message) ||
                             (res->kind == ETL_RESOLVE_WPP && want_info))) {
        size_t n = etl_decoder_message(etls_event_decoder(), rec, res, etls_message,
                                       sizeof etls_message);

        /* (the session's buffer itself when it is valid UTF-8: Wireshark copies it) */
        const char *text = strlen(etls_message) == n ? etls_utf8_name(pinfo->pool, etls_message)
                                                     : etls_utf8(pinfo->pool, etls_message, n);

        ti = proto_tree_add_string(tree, hf_etl_message, tvb, (int)rec->payload_offset,
                                   (int)rec->payload_size, text);
        proto_item_set_generated(ti);
        if (res->kind == ETL_RESOLVE_WPP)
            sum->message = etls_one_line(pinfo->pool, text, strlen(text), 1024);
    }
    etls_add_event_data(tvb, pinfo, tree, rec, f, res->schema, sum, want_info);
}

/* Every record: the decoder resolves it (resolve.h) - schema, names, status - and this only
 * shows the answer. */
void
etls_dissect_event_data(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
                        const etl_record *rec, etls_event_summary *sum, bool want_info,
                        bool brief)
{
    etl_resolved res;
    etl_fields f;

    memset(sum, 0, sizeof *sum);
    if (etls_event_decoder() == NULL)
        return;
    etl_decoder_resolve(etls_event_decoder(), rec, PINFO_FD_VISITED(pinfo) ? ETL_RESOLVE_NO_LEARN : 0,
                        &res, &f);
    if (res.kind == ETL_RESOLVE_NONE)
        return;
    etls_provider_name(tvb, pinfo, tree, rec, &res, sum);
    switch (res.status) {
    case ETL_RESOLVE_NOT_APPLICABLE:
        return;
    case ETL_RESOLVE_SCHEMA_MISSING:
    case ETL_RESOLVE_SCHEMA_ERROR:
        if (res.kind == ETL_RESOLVE_WPP && res.event_name != NULL)
            etls_event_name(tvb, pinfo, tree, rec, &res, sum); /* "Message(N)" */
        etls_add_no_schema(tvb, pinfo, tree, rec, &res, sum);
        return;
    default:
        break;
    }
    if (brief && res.status == ETL_RESOLVE_DECODED) {
        /* a packet frame in brief: the names, nothing of what etl.pkt repeats */
        if (res.event_name != NULL)
            etls_event_name(tvb, pinfo, tree, rec, &res, sum);
        return;
    }
    if (res.kind == ETL_RESOLVE_TRACELOGGING) {
        etls_event_name(tvb, pinfo, tree, rec, &res, sum);
        etls_add_event_data(tvb, pinfo, tree, rec, &f, res.schema, sum, want_info);
        return;
    }
    etls_add_schema_event(tvb, pinfo, tree, rec, &res, &f, sum, want_info);
}

/* The fields a -e of this tshark's command line names (etls_output), looked up once: 4.0
 * primes none of them. */
static const header_field_info *etls_named[ETL_VIEWER_MAX_FIELDS];
static size_t etls_named_count;
static bool etls_named_done;

bool
etls_field_asked(const header_field_info *hfi)
{
    if (hfi == NULL)
        return false;
    if (hfi->ref_type != HF_REF_TYPE_NONE || etls_output.uncertain)
        return true;
    if (!etls_named_done) {
        etls_named_done = true;
        for (size_t i = 0; i < etls_output.n_fields && etls_named_count < ETL_VIEWER_MAX_FIELDS; i++) {
            const header_field_info *h = proto_registrar_get_byname(etls_output.fields[i]);

            if (h != NULL)
                etls_named[etls_named_count++] = h;
        }
    }
    for (size_t i = 0; i < etls_named_count; i++)
        if (etls_named[i] == hfi)
            return true;
    return false;
}

static bool
etls_hf_asked(int hf)
{
    return hf >= 0 && etls_field_asked(proto_registrar_get_nth((guint)hf));
}

bool
etls_event_data_needed(packet_info *pinfo _U_, const etl_record *rec)
{
    /* what the full event data adds beyond the provider and event names */
    const int full_only[] = {
        hf_etl_task_name, hf_etl_opcode_name, hf_etl_level_name, hf_etl_channel_name,
        hf_etl_keywords_name, hf_etl_message, hf_etl_schema_version, hf_etl_data,
        hf_etl_field_name, hf_etl_field_value, hf_etl_kv, hf_etl_data_unsupported,
        hf_etl_data_trailing, hf_etl_data_raw,
    };
    etls_schema_steps *ss;
    etl_resolved res;
    etl_fields f;

    if (etls_event_decoder() == NULL)
        return false;
    /* (no learning: the dissection's own resolve learns, as before) */
    etl_decoder_resolve(etls_event_decoder(), rec, ETL_RESOLVE_NO_LEARN, &res, &f);
    if (res.kind == ETL_RESOLVE_NONE || res.status == ETL_RESOLVE_NOT_APPLICABLE)
        return false;
    if (res.status != ETL_RESOLVE_DECODED)
        return true;
    for (size_t i = 0; i < G_N_ELEMENTS(full_only); i++)
        if (etls_hf_asked(full_only[i]))
            return true;
    ss = res.schema != NULL ? etls_steps_of(res.schema) : NULL;
    if (ss == NULL)
        return false;
    if (!ss->typed)
        etls_steps_type(res.schema);
    for (uint32_t i = 0; i < ss->count; i++)
        if (ss->step[i].path != NULL && etls_hf_asked(ss->step[i].hf))
            return true;
    return false;
}

/* The open file's manifest problems (etl_event_internal.h) on its first frame: one item and
 * one expert info each, so the GUI's Expert Information (and the status bar's expert
 * indicator) say why events do not decode; stderr has them too. */
void
etls_event_data_problems(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree)
{
    guint n = etls_manifest_problem_count();
    proto_item *pi;
    proto_tree *pt;

    if (n == 0 || pinfo->num != 1)
        return;
    pt = proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_etl_manifest_problems, &pi,
                                       "Manifest problems: %u", n);
    proto_item_set_generated(pi);
    for (guint i = 0; i < n; i++) {
        bool error;
        const char *msg = etls_manifest_problem(i, &error);
        proto_item *ti = proto_tree_add_string(pt, hf_etl_manifest_problem, tvb, 0, 0, msg);

        proto_item_set_generated(ti);
        if (error)
            expert_add_info_format(pinfo, ti, &ei_etl_manifest_error,
                                   "Manifest error: %s (preference etl.manifest_path or "
                                   ETL_REGISTRY_ENV ")", msg);
        else
            expert_add_info_format(pinfo, ti, &ei_etl_manifest_warning, "Manifests: %s", msg);
    }
}

/* The process's command line, for etls_hidden_wanted (an unreadable one keeps every item). */
static void
etls_read_output(void)
{
    gchar *buf = NULL;
    gsize len = 0;

    if (!g_file_get_contents("/proc/self/cmdline", &buf, &len, NULL))
        len = 0;
    etl_viewer_output_parse_cmdline(&etls_output, buf, len);
    g_free(buf);
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
        { &hf_etl_manifest_problem, { "Manifest problem", "etl.manifest_problem", FT_STRING, BASE_NONE, NULL, 0x0,
            "A problem with the manifests of the search path or the schemas the trace carries, on the first frame", HFILL } },
    };
    static int *ett[] = {
        &ett_etl_data,
        &ett_etl_data_struct,
        &ett_etl_data_array,
        &ett_etl_manifest_problems,
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
        { &ei_etl_manifest_error, { "etl.expert.manifest_error", PI_UNDECODED, PI_ERROR,
            "A manifest path entry is missing or a manifest does not parse: its events are not decoded", EXPFILL } },
        { &ei_etl_manifest_warning, { "etl.expert.manifest_warning", PI_UNDECODED, PI_WARN,
            "Manifests disagree about events, or a schema the trace carries was refused", EXPFILL } },
        { &ei_etl_tmf_missing, { "etl.expert.tmf_missing", PI_UNDECODED, PI_NOTE,
            "No TMF describes the WPP message GUID (noted on its first message); add it with etl.tmf_path or ETLSHARK_TMF_PATH", EXPFILL } },
    };
    etls_proto = proto;
    if (etls_kv == NULL)
        etls_kv = g_string_sized_new(256);
    etls_read_output();
    etls_tmf_missing_first = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_str_hash, g_str_equal);
    proto_register_field_array(proto, hf, G_N_ELEMENTS(hf));
    proto_register_subtree_array(ett, G_N_ELEMENTS(ett));
    expert_register_field_array(expert, ei, G_N_ELEMENTS(ei));
    etls_event_prefs_register(proto);

    /* After the static fields, so the store can never take one of their names. */
    etls_fields_register(proto);
    /* The kernel events' fields, then the manifests of $ETLSHARK_MANIFEST_PATH now (the
     * preference's when it is applied). */
    etls_register_classic_fields();
    etls_register_manifest_fields();
    etls_register_wpp_fields();
}
