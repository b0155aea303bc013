/* crim.c - compiled manifests (WEVT_TEMPLATE) to the manifest model (crim.h). */
#include "crim.h"

#include <glib.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bxml.h"
#include "bytes.h"
#include "error.h"
#include "etl_format.h"
#include "known_providers.h"
#include "text.h"

/* ---- layouts (crim.h; offsets from the start of each structure) ----------------------------- */
enum {
    CRIM_OFF_SIGNATURE = 0,
    CRIM_OFF_SIZE = 4,
    CRIM_OFF_MAJOR = 8,
    CRIM_OFF_PROVIDER_COUNT = 12,
    CRIM_HEADER_SIZE = 16,
    CRIM_PROVIDER_OFF_GUID = 0,
    CRIM_PROVIDER_OFF_OFFSET = 16,
    CRIM_PROVIDER_SIZE = 20,
    WEVT_OFF_MESSAGE = 8,
    WEVT_OFF_ELEMENT_COUNT = 12,
    WEVT_HEADER_SIZE = 16,
    WEVT_ELEMENT_OFF_OFFSET = 4,      /* after u32 kind */
    WEVT_ELEMENT_SIZE = 8,
    LIST_OFF_COUNT = 8,               /* every element list: signature, u32 size, u32 count */
    LIST_HEADER_SIZE = 12,
    EVNT_HEADER_SIZE = 16,            /* ... and one u32 more */
    EVENT_OFF_ID = 0,
    EVENT_OFF_VERSION = 2,
    EVENT_OFF_CHANNEL = 3,
    EVENT_OFF_LEVEL = 4,
    EVENT_OFF_OPCODE = 5,
    EVENT_OFF_TASK = 6,
    EVENT_OFF_KEYWORDS = 8,
    EVENT_OFF_MESSAGE = 16,
    EVENT_OFF_TEMPLATE = 20,
    EVENT_OFF_OPCODE_DEF = 24,
    EVENT_OFF_LEVEL_DEF = 28,
    EVENT_OFF_TASK_DEF = 32,
    EVENT_SIZE = 48,
    TEMP_OFF_SIZE = 4,
    TEMP_OFF_TOP_COUNT = 8,
    TEMP_OFF_COUNT = 12,
    TEMP_OFF_ITEMS = 16,
    TEMP_OFF_BXML = 40,
    TEMP_HEADER_SIZE = 40,
    ITEM_OFF_FLAGS = 0,
    ITEM_OFF_IN_TYPE = 4,
    ITEM_OFF_OUT_TYPE = 5,
    ITEM_OFF_STRUCT_FIRST = 4,
    ITEM_OFF_STRUCT_MEMBERS = 6,
    ITEM_OFF_MAP = 8,
    ITEM_OFF_COUNT = 12,
    ITEM_OFF_LENGTH = 14,
    ITEM_OFF_NAME = 16,
    ITEM_SIZE = 20,
    MAP_OFF_SIZE = 4,
    MAP_OFF_NAME = 8,
    MAP_OFF_FLAGS = 12,
    MAP_OFF_COUNT = 16,
    MAP_HEADER_SIZE = 20,
    MAP_ENTRY_SIZE = 8,               /* u32 value, u32 message id */
    VALUE_ENTRY_OFF_MESSAGE = 4,      /* OPCO, LEVL: u32 value, u32 message id, u32 name offset */
    VALUE_ENTRY_OFF_NAME = 8,
    VALUE_ENTRY_SIZE = 12,
    TASK_ENTRY_OFF_MESSAGE = 4,
    TASK_ENTRY_OFF_NAME = 24,
    TASK_ENTRY_SIZE = 28,
    KEYW_ENTRY_OFF_MESSAGE = 8,
    KEYW_ENTRY_OFF_NAME = 12,
    KEYW_ENTRY_SIZE = 16,
    CHAN_ENTRY_OFF_NAME = 4,
    CHAN_ENTRY_OFF_MESSAGE = 12,
    CHAN_ENTRY_SIZE = 16,
    NAME_HEADER_SIZE = 4
};
#define CRIM_NO_MESSAGE 0xFFFFFFFFu
#define ITEM_STRUCT 0x01u
#define ITEM_FIXED_LENGTH 0x02u
#define ITEM_LENGTH_REF 0x04u
#define ITEM_FIXED_COUNT 0x08u
#define ITEM_COUNT_REF 0x10u
#define MAP_BITMAP 0x01u

typedef struct crim {
    const uint8_t *d;
    size_t n;
    uint64_t base;
    const etl_msgtable *mt;
    etl_error *err;
    GHashTable *maps;      /* offset -> map name (g_free) */
    GHashTable *templates; /* offsets of the TEMPs read */
} crim;

static etl_status bad(crim *c, etl_status code, size_t off, const char *fmt, ...) ETL_PRINTF(4, 5);
static etl_status bad(crim *c, etl_status code, size_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    etl_status st = etl_fail(c->err, code, c->base + off, "WEVT_TEMPLATE at 0x%llx: %s",
                             (unsigned long long)(c->base + off), msg);
    g_free(msg);
    return st;
}

/* A name: u32 size (itself included), UTF-16LE; g_free the result. */
static etl_status name_at(crim *c, uint32_t off, char **out)
{
    uint32_t size;
    *out = NULL;
    if (!etl_u32_at(c->d, c->n, off, &size) || size < NAME_HEADER_SIZE || !etl_span_ok(c->n, off, size))
        return bad(c, ETL_ERR_TRUNCATED, off, "a name runs past the end of the blob");
    size_t bytes = size - NAME_HEADER_SIZE;
    if (bytes / 2 > ETL_CRIM_MAX_NAME)
        return bad(c, ETL_ERR_LIMIT, off, "a name of %zu characters (at most %u)", bytes / 2, ETL_CRIM_MAX_NAME);
    size_t cap = bytes / 2 * 3 + 1;
    char *s = g_malloc(cap);
    etl_utf16_to_utf8(c->d + off + NAME_HEADER_SIZE, bytes & ~(size_t)1, s, cap, NULL);
    *out = s;
    return ETL_OK;
}

/* An optional name (offset 0: none). */
static etl_status opt_name(crim *c, uint32_t off, char **out)
{
    *out = NULL;
    return off ? name_at(c, off, out) : ETL_OK;
}

static const char *message(const crim *c, uint32_t id)
{
    return id == CRIM_NO_MESSAGE ? NULL : etl_msgtable_get(c->mt, id);
}

static void attr(GString *x, const char *name, const char *value)
{
    if (!value)
        return;
    char *e = g_markup_escape_text(value, -1);
    g_string_append_printf(x, " %s=\"%s\"", name, e);
    g_free(e);
}

/* An element list at `off` with signature `sig`: its entries' first byte and count, checked. */
static etl_status list_at(crim *c, uint32_t off, size_t header, size_t entry, size_t *first, uint32_t *count)
{
    uint32_t n;
    if (!etl_u32_at(c->d, c->n, off + (size_t)LIST_OFF_COUNT, &n) || !etl_span_ok(c->n, off, header))
        return bad(c, ETL_ERR_TRUNCATED, off, "%.4s header runs past the end of the blob", (const char *)c->d + off);
    if (n > ETL_CRIM_MAX_ENTRIES)
        return bad(c, ETL_ERR_LIMIT, off, "%.4s claims %u entries (at most %u)", (const char *)c->d + off, n,
                   ETL_CRIM_MAX_ENTRIES);
    if (entry && !etl_span_ok(c->n, (size_t)off + header, (size_t)n * entry))
        return bad(c, ETL_ERR_TRUNCATED, off, "%.4s: %u entries run past the end of the blob", (const char *)c->d + off, n);
    *first = (size_t)off + header;
    *count = n;
    return ETL_OK;
}

/* ---- the provider's elements ----------------------------------------------------------------- */

typedef struct elements {
    uint32_t evnt, ttbl, maps, opco, levl, task, keyw, chan; /* offsets, 0 = absent */
} elements;

static etl_status find_elements(crim *c, uint32_t wevt, elements *el)
{
    memset(el, 0, sizeof *el);
    uint32_t n;
    if (!etl_span_ok(c->n, wevt, WEVT_HEADER_SIZE) || memcmp(c->d + wevt, "WEVT", 4) != 0)
        return bad(c, ETL_ERR_CORRUPT, wevt, "no WEVT provider where the CRIM header points");
    n = etl_ld32(c->d + wevt + WEVT_OFF_ELEMENT_COUNT);
    if (n > ETL_CRIM_MAX_ELEMENTS || !etl_span_ok(c->n, (size_t)wevt + WEVT_HEADER_SIZE, (size_t)n * WEVT_ELEMENT_SIZE))
        return bad(c, ETL_ERR_LIMIT, wevt + WEVT_OFF_ELEMENT_COUNT, "provider claims %u elements (at most %u that fit)", n,
                   ETL_CRIM_MAX_ELEMENTS);
    static const struct {
        const char *sig;
        size_t field;
    } kinds[] = {{"EVNT", offsetof(elements, evnt)}, {"TTBL", offsetof(elements, ttbl)}, {"MAPS", offsetof(elements, maps)},
                 {"OPCO", offsetof(elements, opco)}, {"LEVL", offsetof(elements, levl)}, {"TASK", offsetof(elements, task)},
                 {"KEYW", offsetof(elements, keyw)}, {"CHAN", offsetof(elements, chan)}};
    for (uint32_t i = 0; i < n; i++) {
        size_t at = (size_t)wevt + WEVT_HEADER_SIZE + (size_t)i * WEVT_ELEMENT_SIZE + WEVT_ELEMENT_OFF_OFFSET;
        uint32_t off = etl_ld32(c->d + at);
        if (!etl_span_ok(c->n, off, LIST_HEADER_SIZE))
            return bad(c, ETL_ERR_TRUNCATED, at, "provider element offset 0x%x is past the end of the blob", off);
        for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++) {
            uint32_t *slot = (uint32_t *)(void *)((char *)el + kinds[k].field);
            if (memcmp(c->d + off, kinds[k].sig, 4) == 0 && !*slot)
                *slot = off;
        }
        /* other signatures (PRVA: provider attributes) are not needed to decode */
    }
    return ETL_OK;
}

/* ---- maps -------------------------------------------------------------------------------------- */

static etl_status write_maps(crim *c, uint32_t off, GString *x)
{
    size_t first;
    uint32_t n;
    etl_status st = list_at(c, off, LIST_HEADER_SIZE, 4, &first, &n);
    if (st != ETL_OK || !n)
        return st;
    g_string_append(x, "<maps>\n");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t m = etl_ld32(c->d + first + (size_t)i * 4);
        if (!etl_span_ok(c->n, m, MAP_HEADER_SIZE) || (memcmp(c->d + m, "VMAP", 4) != 0 && memcmp(c->d + m, "BMAP", 4) != 0))
            return bad(c, ETL_ERR_CORRUPT, first + (size_t)i * 4, "map %u at 0x%x is not a VMAP or BMAP", i, m);
        uint32_t count = etl_ld32(c->d + m + MAP_OFF_COUNT);
        bool bitmap = c->d[m] == 'B' || (etl_ld32(c->d + m + MAP_OFF_FLAGS) & MAP_BITMAP);
        if (count > ETL_CRIM_MAX_ENTRIES || !etl_span_ok(c->n, (size_t)m + MAP_HEADER_SIZE, (size_t)count * MAP_ENTRY_SIZE))
            return bad(c, ETL_ERR_TRUNCATED, m, "map with %u entries runs past the end of the blob", count);
        char *name;
        if ((st = name_at(c, etl_ld32(c->d + m + MAP_OFF_NAME), &name)) != ETL_OK)
            return st;
        g_string_append_printf(x, "<%s", bitmap ? "bitMap" : "valueMap");
        attr(x, "name", name);
        g_string_append(x, ">");
        for (uint32_t k = 0; k < count; k++) {
            const uint8_t *e = c->d + m + MAP_HEADER_SIZE + (size_t)k * MAP_ENTRY_SIZE;
            g_string_append_printf(x, "<map value=\"0x%x\"", etl_ld32(e));
            attr(x, "message", message(c, etl_ld32(e + 4)));
            g_string_append(x, "/>");
        }
        g_string_append_printf(x, "</%s>\n", bitmap ? "bitMap" : "valueMap");
        g_hash_table_insert(c->maps, GUINT_TO_POINTER(m), name);
    }
    g_string_append(x, "</maps>\n");
    return ETL_OK;
}

/* ---- templates --------------------------------------------------------------------------------- */

static uint16_t default_out_type(uint8_t in)
{
    /* the out-type mc.exe writes when the manifest gives none (TDH's defaults, etw-formats.md 8.2) */
    static const uint8_t def[] = {0, 1, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 14, 19, 2, 2, 1, 18, 19, 1, 1, 0, 15};
    return in < sizeof def ? def[in] : 0;
}

typedef struct tmpl {
    crim *c;
    size_t items;       /* offset of the property descriptors */
    uint32_t count;     /* all of them */
    char **names;
    uint8_t *visiting;
    uint32_t written;   /* properties written: structs sharing members could multiply them */
} tmpl;

static etl_status write_props(tmpl *t, GString *x, uint32_t from, uint32_t to, unsigned depth)
{
    crim *c = t->c;
    for (uint32_t i = from; i < to; i++) {
        const uint8_t *p = c->d + t->items + (size_t)i * ITEM_SIZE;
        size_t at = t->items + (size_t)i * ITEM_SIZE;
        uint32_t flags = etl_ld32(p + ITEM_OFF_FLAGS);
        uint16_t count = etl_ld16(p + ITEM_OFF_COUNT), length = etl_ld16(p + ITEM_OFF_LENGTH);
        bool is_struct = flags & ITEM_STRUCT;
        if (++t->written > ETL_CRIM_MAX_PROPERTIES)
            return bad(c, ETL_ERR_LIMIT, at, "template expands to more than %u properties", ETL_CRIM_MAX_PROPERTIES);
        g_string_append(x, is_struct ? "<struct" : "<data");
        attr(x, "name", t->names[i]);
        if (!is_struct) {
            uint8_t in = p[ITEM_OFF_IN_TYPE], out = p[ITEM_OFF_OUT_TYPE];
            const char *qin = etl_mf_in_type_qname(in);
            char unknown[24];
            if (!qin) {
                /* a type this decoder has no name for: the compiler stops there (UNSUPPORTED) */
                snprintf(unknown, sizeof unknown, "crim:InType%u", (unsigned)in);
                qin = unknown;
            }
            attr(x, "inType", qin);
            if (out && out != default_out_type(in))
                attr(x, "outType", etl_mf_out_type_qname(out));
            uint32_t map = etl_ld32(p + ITEM_OFF_MAP);
            if (map) {
                const char *mname = g_hash_table_lookup(c->maps, GUINT_TO_POINTER(map));
                if (!mname)
                    return bad(c, ETL_ERR_CORRUPT, at, "property \"%s\" names a map at 0x%x that the provider does not hold",
                               t->names[i], map);
                attr(x, "map", mname);
            }
            if (flags & ITEM_LENGTH_REF) {
                if (length >= t->count)
                    return bad(c, ETL_ERR_CORRUPT, at, "property \"%s\" takes its length from property %u of %u",
                               t->names[i], length, t->count);
                attr(x, "length", t->names[length]);
            } else if ((flags & ITEM_FIXED_LENGTH) || (length && (in == 1 || in == 2 || in == 14))) {
                g_string_append_printf(x, " length=\"%u\"", length);
            }
        }
        if (flags & ITEM_COUNT_REF) {
            if (count >= t->count)
                return bad(c, ETL_ERR_CORRUPT, at, "property \"%s\" takes its count from property %u of %u", t->names[i],
                           count, t->count);
            attr(x, "count", t->names[count]);
        } else if (flags & ITEM_FIXED_COUNT) {
            g_string_append_printf(x, " count=\"%u\"", count);
        }
        if (!is_struct) {
            g_string_append(x, "/>");
            continue;
        }
        uint32_t first = etl_ld16(p + ITEM_OFF_STRUCT_FIRST), members = etl_ld16(p + ITEM_OFF_STRUCT_MEMBERS);
        if (first + members > t->count || t->visiting[i] || depth >= ETL_MF_MAX_STRUCT_DEPTH)
            return bad(c, ETL_ERR_CORRUPT, at, "struct \"%s\": members %u..%u of %u properties, or nested in itself",
                       t->names[i], first, first + members, t->count);
        g_string_append(x, ">");
        t->visiting[i] = 1;
        etl_status st = write_props(t, x, first, first + members, depth + 1);
        t->visiting[i] = 0;
        if (st != ETL_OK)
            return st;
        g_string_append(x, "</struct>");
    }
    return ETL_OK;
}

static etl_status write_template(crim *c, size_t off, uint32_t size, GString *x)
{
    const uint8_t *h = c->d + off;
    uint32_t top = etl_ld32(h + TEMP_OFF_TOP_COUNT), count = etl_ld32(h + TEMP_OFF_COUNT);
    uint32_t items = etl_ld32(h + TEMP_OFF_ITEMS);
    if (count > ETL_CRIM_MAX_PROPERTIES || top > count)
        return bad(c, ETL_ERR_LIMIT, off, "template of %u properties, %u top-level (at most %u)", count, top,
                   ETL_CRIM_MAX_PROPERTIES);
    if (count && !etl_span_ok(c->n, items, (size_t)count * ITEM_SIZE))
        return bad(c, ETL_ERR_TRUNCATED, off + TEMP_OFF_ITEMS, "template properties at 0x%x run past the end of the blob",
                   items);
    /* the binary XML sits between the header and the properties (or the template's end) */
    size_t end = off + size;
    if (count && items > off + TEMP_HEADER_SIZE && items < end)
        end = items;
    etl_bxml_info bx;
    etl_status st = etl_bxml_scan(c->d + off + TEMP_OFF_BXML, end - off - TEMP_OFF_BXML, c->base + off + TEMP_OFF_BXML,
                                  &bx, c->err);
    if (st != ETL_OK)
        return st;
    if (bx.max_index >= 0 && (uint32_t)bx.max_index >= count)
        return bad(c, ETL_ERR_CORRUPT, off, "template XML substitutes property %d of %u", bx.max_index, count);
    tmpl t = {c, items, count, g_new0(char *, count ? count : 1), g_malloc0(count ? count : 1), 0};
    for (uint32_t i = 0; i < count && st == ETL_OK; i++)
        st = opt_name(c, etl_ld32(c->d + items + (size_t)i * ITEM_SIZE + ITEM_OFF_NAME), &t.names[i]);
    if (st == ETL_OK) {
        g_string_append_printf(x, "<template tid=\"t%zx\">", off);
        st = write_props(&t, x, 0, top, 0);
        g_string_append(x, "</template>\n");
    }
    for (uint32_t i = 0; i < count; i++)
        g_free(t.names[i]);
    g_free(t.names);
    g_free(t.visiting);
    if (st == ETL_OK)
        g_hash_table_add(c->templates, GUINT_TO_POINTER(off));
    return st;
}

static etl_status write_templates(crim *c, uint32_t off, GString *x)
{
    size_t at;
    uint32_t n;
    etl_status st = list_at(c, off, LIST_HEADER_SIZE, 0, &at, &n);
    if (st != ETL_OK || !n)
        return st;
    g_string_append(x, "<templates>\n");
    for (uint32_t i = 0; i < n; i++) {
        if (!etl_span_ok(c->n, at, TEMP_HEADER_SIZE) || memcmp(c->d + at, "TEMP", 4) != 0)
            return bad(c, ETL_ERR_CORRUPT, at, "template %u of %u is not a TEMP", i, n);
        uint32_t size = etl_ld32(c->d + at + TEMP_OFF_SIZE);
        if (size < TEMP_HEADER_SIZE + 1 || !etl_span_ok(c->n, at, size))
            return bad(c, ETL_ERR_TRUNCATED, at, "template of %u bytes runs past the end of the blob", size);
        if ((st = write_template(c, at, size, x)) != ETL_OK)
            return st;
        at += size;
    }
    g_string_append(x, "</templates>\n");
    return ETL_OK;
}

/* ---- named values ------------------------------------------------------------------------------ */

static bool std_name(const char *name)
{
    /* winmeta.xml's levels and opcodes, which manifest.c knows by name as an XML manifest uses
     * them: declaring them again would change their display text */
    static const char *const names[] = {"win:LogAlways", "win:Critical", "win:Error",  "win:Warning",  "win:Informational",
                                        "win:Verbose",   "win:Info",     "win:Start",  "win:Stop",     "win:DC_Start",
                                        "win:DC_Stop",   "win:Extension", "win:Reply", "win:Resume",   "win:Suspend",
                                        "win:Send",      "win:Receive"};
    for (size_t i = 0; name && i < G_N_ELEMENTS(names); i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return name && strncmp(name, "win:", 4) == 0;
}

typedef struct named {
    uint64_t value;
    uint32_t entry;   /* offset of its entry */
    char *name;
    const char *msg;
} named;

/* Entries of an OPCO, LEVL, TASK or KEYW list (at most `max`). */
static etl_status read_named(crim *c, uint32_t off, size_t entry, size_t msg_at, size_t name_at_off, uint32_t max,
                             GArray *out)
{
    if (!off)
        return ETL_OK;
    size_t first;
    uint32_t n;
    etl_status st = list_at(c, off, LIST_HEADER_SIZE, entry, &first, &n);
    if (st == ETL_OK && n > max)
        return bad(c, ETL_ERR_LIMIT, off, "%.4s claims %u entries (at most %u)", (const char *)c->d + off, n, max);
    for (uint32_t i = 0; st == ETL_OK && i < n; i++) {
        const uint8_t *e = c->d + first + (size_t)i * entry;
        named v = {0};
        v.entry = (uint32_t)(first + (size_t)i * entry);
        v.value = entry == KEYW_ENTRY_SIZE ? etl_ld64(e) : etl_ld32(e);
        v.msg = message(c, etl_ld32(e + msg_at));
        st = opt_name(c, etl_ld32(e + name_at_off), &v.name);
        g_array_append_val(out, v);
    }
    return st;
}

static void free_named(GArray *a)
{
    for (guint i = 0; i < a->len; i++)
        g_free(g_array_index(a, named, i).name);
    g_array_free(a, TRUE);
}

/* A complete list's entries by entry offset and by value (the first of a value), so that an
 * event finds its level, task and opcode in constant time whatever the counts. */
typedef struct named_index {
    GHashTable *entry, *value;
} named_index;

static void index_named(GArray *a, named_index *ix)
{
    ix->entry = g_hash_table_new(g_direct_hash, g_direct_equal);
    ix->value = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < a->len; i++) {
        named *v = &g_array_index(a, named, i);
        g_hash_table_insert(ix->entry, GUINT_TO_POINTER(v->entry), v);
        if (!g_hash_table_contains(ix->value, &v->value))
            g_hash_table_insert(ix->value, &v->value, v);
    }
}

static void free_index(named_index *ix)
{
    if (ix->entry)
        g_hash_table_destroy(ix->entry);
    if (ix->value)
        g_hash_table_destroy(ix->value);
}

static const named *named_by_entry(const named_index *ix, uint32_t entry)
{
    return entry ? g_hash_table_lookup(ix->entry, GUINT_TO_POINTER(entry)) : NULL;
}

static const named *named_by_value(const named_index *ix, uint64_t value)
{
    return g_hash_table_lookup(ix->value, &value);
}

static void write_named(GString *x, const named *v, const char *elem, const char *value_attr, uint64_t value)
{
    g_string_append_printf(x, "<%s", elem);
    attr(x, "name", v->name);
    g_string_append_printf(x, " %s=\"0x%llx\"", value_attr, (unsigned long long)value);
    attr(x, "message", v->msg);
}

/* ---- one provider ------------------------------------------------------------------------------ */

typedef struct prov {
    GArray *opcodes, *levels, *tasks, *keywords, *channels;
    named_index opcodes_ix, levels_ix, tasks_ix, channels_ix;
    GHashTable *task_opcodes; /* task value -> GArray of indexes into opcodes */
} prov;

static etl_status write_channels(crim *c, uint32_t off, GString *x, GArray *out)
{
    if (!off)
        return ETL_OK;
    size_t first;
    uint32_t n;
    etl_status st = list_at(c, off, LIST_HEADER_SIZE, CHAN_ENTRY_SIZE, &first, &n);
    if (st != ETL_OK || !n)
        return st;
    g_string_append(x, "<channels>");
    for (uint32_t i = 0; i < n && st == ETL_OK; i++) {
        const uint8_t *e = c->d + first + (size_t)i * CHAN_ENTRY_SIZE;
        named v = {0};
        v.value = etl_ld32(e);
        v.msg = message(c, etl_ld32(e + CHAN_ENTRY_OFF_MESSAGE));
        if ((st = opt_name(c, etl_ld32(e + CHAN_ENTRY_OFF_NAME), &v.name)) == ETL_OK) {
            g_string_append_printf(x, "<channel chid=\"c%llu\"", (unsigned long long)v.value);
            attr(x, "name", v.name);
            g_string_append_printf(x, " value=\"%llu\"/>", (unsigned long long)v.value);
        }
        g_array_append_val(out, v);
    }
    g_string_append(x, "</channels>\n");
    return st;
}

static void write_tasks_and_opcodes(const prov *p, GString *x)
{
    bool *placed = g_new0(bool, p->opcodes->len ? p->opcodes->len : 1);
    if (p->tasks->len) {
        g_string_append(x, "<tasks>\n");
        for (guint i = 0; i < p->tasks->len; i++) {
            const named *t = &g_array_index(p->tasks, named, i);
            if (!t->name)
                continue; /* a task without a name cannot be referred to */
            write_named(x, t, "task", "value", t->value);
            g_string_append(x, ">");
            bool open = false;
            GArray *mine = t->value && t->value <= 0xFFFF
                               ? g_hash_table_lookup(p->task_opcodes, GUINT_TO_POINTER((guint)t->value))
                               : NULL;
            for (guint j = 0; mine && j < mine->len; j++) {
                guint k = g_array_index(mine, guint, j);
                const named *o = &g_array_index(p->opcodes, named, k);
                if (placed[k] || !o->name || std_name(o->name))
                    continue;
                if (!open)
                    g_string_append(x, "<opcodes>");
                open = true;
                write_named(x, o, "opcode", "value", o->value >> 16);
                g_string_append(x, "/>");
                placed[k] = true;
            }
            if (open)
                g_string_append(x, "</opcodes>");
            g_string_append(x, "</task>\n");
        }
        g_string_append(x, "</tasks>\n");
    }
    bool open = false;
    for (guint k = 0; k < p->opcodes->len; k++) {
        const named *o = &g_array_index(p->opcodes, named, k);
        if (placed[k] || !o->name || std_name(o->name))
            continue;
        if (!open)
            g_string_append(x, "<opcodes>");
        open = true;
        write_named(x, o, "opcode", "value", o->value >> 16);
        g_string_append(x, "/>");
    }
    if (open)
        g_string_append(x, "</opcodes>\n");
    g_free(placed);
}

static void write_plain(GArray *a, GString *x, const char *list, const char *elem, const char *value_attr)
{
    bool open = false;
    for (guint i = 0; i < a->len; i++) {
        const named *v = &g_array_index(a, named, i);
        if (std_name(v->name) || !v->name)
            continue;
        if (!open)
            g_string_append_printf(x, "<%s>", list);
        open = true;
        write_named(x, v, elem, value_attr, v->value);
        g_string_append(x, "/>");
    }
    if (open)
        g_string_append_printf(x, "</%s>\n", list);
}

static const char *const std_level_names[] = {"win:LogAlways", "win:Critical", "win:Error", "win:Warning",
                                              "win:Informational", "win:Verbose"};

static etl_status write_events(crim *c, uint32_t off, const prov *p, GString *x)
{
    size_t first;
    uint32_t n;
    etl_status st = list_at(c, off, EVNT_HEADER_SIZE, EVENT_SIZE, &first, &n);
    if (st != ETL_OK)
        return st;
    g_string_append(x, "<events>\n");
    for (uint32_t i = 0; i < n; i++) {
        size_t at = first + (size_t)i * EVENT_SIZE;
        const uint8_t *e = c->d + at;
        uint16_t task = etl_ld16(e + EVENT_OFF_TASK);
        uint8_t opcode = e[EVENT_OFF_OPCODE], level = e[EVENT_OFF_LEVEL];
        g_string_append_printf(x, "<event value=\"%u\" version=\"%u\"", etl_ld16(e + EVENT_OFF_ID), e[EVENT_OFF_VERSION]);
        const named *v = named_by_entry(&p->levels_ix, etl_ld32(e + EVENT_OFF_LEVEL_DEF));
        if (!v && level)
            v = named_by_value(&p->levels_ix, level);
        /* level 0 without a definition: the event names none (XML: no level=) */
        attr(x, "level", v ? v->name : level && level < G_N_ELEMENTS(std_level_names) ? std_level_names[level] : NULL);
        const named *t = named_by_entry(&p->tasks_ix, etl_ld32(e + EVENT_OFF_TASK_DEF));
        if (!t && task)
            t = named_by_value(&p->tasks_ix, task);
        if (t)
            attr(x, "task", t->name);
        const named *o = named_by_entry(&p->opcodes_ix, etl_ld32(e + EVENT_OFF_OPCODE_DEF));
        if (!o && opcode)
            o = named_by_value(&p->opcodes_ix, (uint64_t)opcode << 16 | task);
        if (!o && opcode)
            o = named_by_value(&p->opcodes_ix, (uint64_t)opcode << 16);
        if (o)
            attr(x, "opcode", o->name);
        const named *ch = named_by_value(&p->channels_ix, e[EVENT_OFF_CHANNEL]);
        if (ch && e[EVENT_OFF_CHANNEL])
            g_string_append_printf(x, " channel=\"c%u\"", e[EVENT_OFF_CHANNEL]);
        uint64_t kw = etl_ld64(e + EVENT_OFF_KEYWORDS);
        GString *names = g_string_new(NULL);
        for (guint k = 0; k < p->keywords->len; k++) {
            const named *w = &g_array_index(p->keywords, named, k);
            if (w->value && (kw & w->value) == w->value && w->name && !std_name(w->name))
                g_string_append_printf(names, "%s%s", names->len ? " " : "", w->name);
        }
        if (names->len)
            attr(x, "keywords", names->str);
        g_string_free(names, TRUE);
        uint32_t temp = etl_ld32(e + EVENT_OFF_TEMPLATE);
        if (temp) {
            if (!g_hash_table_contains(c->templates, GUINT_TO_POINTER(temp)))
                return bad(c, ETL_ERR_CORRUPT, at + EVENT_OFF_TEMPLATE,
                           "event %u version %u names a template at 0x%x that the template table does not hold",
                           etl_ld16(e + EVENT_OFF_ID), e[EVENT_OFF_VERSION], temp);
            g_string_append_printf(x, " template=\"t%x\"", temp);
        }
        attr(x, "message", message(c, etl_ld32(e + EVENT_OFF_MESSAGE)));
        g_string_append(x, "/>\n");
    }
    g_string_append(x, "</events>\n");
    return ETL_OK;
}

static etl_status write_provider(crim *c, const etl_guid *g, uint32_t wevt, GString *x)
{
    elements el;
    etl_status st = find_elements(c, wevt, &el);
    if (st != ETL_OK)
        return st;
    char gs[ETL_GUID_STR_SIZE];
    etl_format_guid(g, gs);
    const char *name = message(c, etl_ld32(c->d + wevt + WEVT_OFF_MESSAGE));
    if (!name)
        name = etl_known_provider_name(g);
    g_string_append(x, "<provider");
    attr(x, "name", name);
    g_string_append_printf(x, " guid=\"{%s}\">\n", gs);
    prov p = {0};
    p.opcodes = g_array_new(FALSE, TRUE, sizeof(named));
    p.levels = g_array_new(FALSE, TRUE, sizeof(named));
    p.tasks = g_array_new(FALSE, TRUE, sizeof(named));
    p.keywords = g_array_new(FALSE, TRUE, sizeof(named));
    p.channels = g_array_new(FALSE, TRUE, sizeof(named));
    p.task_opcodes = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref);
    g_hash_table_remove_all(c->maps);
    g_hash_table_remove_all(c->templates);
    if ((st = read_named(c, el.opco, VALUE_ENTRY_SIZE, VALUE_ENTRY_OFF_MESSAGE, VALUE_ENTRY_OFF_NAME,
                         ETL_CRIM_MAX_ENTRIES, p.opcodes)) == ETL_OK &&
        (st = read_named(c, el.levl, VALUE_ENTRY_SIZE, VALUE_ENTRY_OFF_MESSAGE, VALUE_ENTRY_OFF_NAME,
                         ETL_CRIM_MAX_ENTRIES, p.levels)) == ETL_OK &&
        (st = read_named(c, el.task, TASK_ENTRY_SIZE, TASK_ENTRY_OFF_MESSAGE, TASK_ENTRY_OFF_NAME,
                         ETL_CRIM_MAX_ENTRIES, p.tasks)) == ETL_OK &&
        (st = read_named(c, el.keyw, KEYW_ENTRY_SIZE, KEYW_ENTRY_OFF_MESSAGE, KEYW_ENTRY_OFF_NAME,
                         ETL_CRIM_MAX_KEYWORDS, p.keywords)) == ETL_OK &&
        (st = write_channels(c, el.chan, x, p.channels)) == ETL_OK) {
        index_named(p.opcodes, &p.opcodes_ix);
        index_named(p.levels, &p.levels_ix);
        index_named(p.tasks, &p.tasks_ix);
        index_named(p.channels, &p.channels_ix);
        for (guint k = 0; k < p.opcodes->len; k++) {
            guint task = (guint)(g_array_index(p.opcodes, named, k).value & 0xFFFF);
            GArray *list = g_hash_table_lookup(p.task_opcodes, GUINT_TO_POINTER(task));
            if (!list) {
                list = g_array_new(FALSE, FALSE, sizeof(guint));
                g_hash_table_insert(p.task_opcodes, GUINT_TO_POINTER(task), list);
            }
            g_array_append_val(list, k);
        }
        write_plain(p.levels, x, "levels", "level", "value");
        write_tasks_and_opcodes(&p, x);
        write_plain(p.keywords, x, "keywords", "keyword", "mask");
        if ((!el.maps || (st = write_maps(c, el.maps, x)) == ETL_OK) &&
            (!el.ttbl || (st = write_templates(c, el.ttbl, x)) == ETL_OK) && el.evnt)
            st = write_events(c, el.evnt, &p, x);
    }
    g_string_append(x, "</provider>\n");
    free_index(&p.opcodes_ix);
    free_index(&p.levels_ix);
    free_index(&p.tasks_ix);
    free_index(&p.channels_ix);
    g_hash_table_destroy(p.task_opcodes);
    free_named(p.opcodes);
    free_named(p.levels);
    free_named(p.tasks);
    free_named(p.keywords);
    free_named(p.channels);
    return st;
}

/* ---- entry points ------------------------------------------------------------------------------- */

static etl_status header(crim *c, uint32_t *count)
{
    if (c->n < CRIM_HEADER_SIZE || memcmp(c->d + CRIM_OFF_SIGNATURE, "CRIM", 4) != 0)
        return bad(c, ETL_ERR_CORRUPT, 0, "no CRIM signature");
    if (c->n > ETL_CRIM_MAX_SIZE)
        return bad(c, ETL_ERR_LIMIT, 0, "%zu bytes (at most %u)", c->n, ETL_CRIM_MAX_SIZE);
    uint32_t size = etl_ld32(c->d + CRIM_OFF_SIZE);
    if (size < CRIM_HEADER_SIZE || size > c->n)
        return bad(c, ETL_ERR_TRUNCATED, CRIM_OFF_SIZE, "CRIM size %u, but the resource has %zu bytes", size, c->n);
    c->n = size;
    uint32_t n = etl_ld32(c->d + CRIM_OFF_PROVIDER_COUNT);
    if (n > ETL_CRIM_MAX_PROVIDERS || !etl_span_ok(c->n, CRIM_HEADER_SIZE, (size_t)n * CRIM_PROVIDER_SIZE))
        return bad(c, ETL_ERR_LIMIT, CRIM_OFF_PROVIDER_COUNT, "CRIM claims %u providers (at most %u that fit)", n,
                   ETL_CRIM_MAX_PROVIDERS);
    *count = n;
    return ETL_OK;
}

etl_status etl_crim_provider_guids(const uint8_t *data, size_t size, uint64_t base, etl_guid *out, uint32_t cap,
                                   uint32_t *count, etl_error *err)
{
    crim c = {data, size, base, NULL, err, NULL, NULL};
    uint32_t n = 0;
    *count = 0;
    etl_status st = header(&c, &n);
    if (st != ETL_OK)
        return st;
    for (uint32_t i = 0; i < n && i < cap; i++)
        etl_read_guid(data + CRIM_HEADER_SIZE + (size_t)i * CRIM_PROVIDER_SIZE + CRIM_PROVIDER_OFF_GUID, &out[i]);
    *count = n < cap ? n : cap;
    return ETL_OK;
}

char *etl_crim_manifest_xml(const uint8_t *data, size_t size, uint64_t base, const etl_msgtable *messages,
                            etl_error *err)
{
    crim c = {data, size, base, messages, err, g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free),
              g_hash_table_new(g_direct_hash, g_direct_equal)};
    uint32_t n = 0;
    etl_status st = header(&c, &n);
    GString *x = g_string_new("<instrumentationManifest>\n<instrumentation>\n<events>\n");
    for (uint32_t i = 0; st == ETL_OK && i < n; i++) {
        const uint8_t *e = data + CRIM_HEADER_SIZE + (size_t)i * CRIM_PROVIDER_SIZE;
        etl_guid g;
        etl_read_guid(e + CRIM_PROVIDER_OFF_GUID, &g);
        st = write_provider(&c, &g, etl_ld32(e + CRIM_PROVIDER_OFF_OFFSET), x);
    }
    g_string_append(x, "</events>\n</instrumentation>\n</instrumentationManifest>\n");
    g_hash_table_destroy(c.maps);
    g_hash_table_destroy(c.templates);
    if (st != ETL_OK) {
        g_string_free(x, TRUE);
        return NULL;
    }
    return g_string_free(x, FALSE);
}

etl_status etl_crim_parse(const uint8_t *data, size_t size, uint64_t base, const etl_msgtable *messages,
                          const char *origin, etl_manifest **out, etl_error *err)
{
    *out = NULL;
    char *xml = etl_crim_manifest_xml(data, size, base, messages, err);
    if (!xml)
        return err ? err->code : ETL_ERR_CORRUPT;
    etl_status st = etl_manifest_parse(xml, strlen(xml), origin, out, err);
    g_free(xml);
    return st;
}
