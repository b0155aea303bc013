/* carried.c - KernelTraceControl MetaData (TRACE_EVENT_INFO, EVENT_MAP_INFO) to manifest
 * declarations; see carried.h for the why and the layouts. */
#include "carried.h"

#include <glib.h>
#include <string.h>

#include "bytes.h"
#include "error.h"
#include "etl_format.h"
#include "schema.h"
#include "text.h"

/* TRACE_EVENT_INFO (tdh.h): the header, then PropertyCount EVENT_PROPERTY_INFO entries; the
 * name offsets count from the start of the structure (0 = no name). */
enum {
    TRACE_EVENT_INFO_OFF_PROVIDER_GUID = 0,
    TRACE_EVENT_INFO_OFF_EVENT_ID = 32,       /* EVENT_DESCRIPTOR: u16 Id, */
    TRACE_EVENT_INFO_OFF_VERSION = 34,        /* u8 Version, Channel, Level, Opcode, */
    TRACE_EVENT_INFO_OFF_CHANNEL = 35,
    TRACE_EVENT_INFO_OFF_LEVEL = 36,
    TRACE_EVENT_INFO_OFF_OPCODE = 37,
    TRACE_EVENT_INFO_OFF_TASK = 38,           /* u16 Task, u64 Keyword */
    TRACE_EVENT_INFO_OFF_DECODING_SOURCE = 48, /* u32: 0 = manifest (XML) */
    TRACE_EVENT_INFO_OFF_PROVIDER_NAME = 52,
    TRACE_EVENT_INFO_OFF_LEVEL_NAME = 56,
    TRACE_EVENT_INFO_OFF_TASK_NAME = 68,
    TRACE_EVENT_INFO_OFF_OPCODE_NAME = 72,
    TRACE_EVENT_INFO_OFF_EVENT_MESSAGE = 76,
    TRACE_EVENT_INFO_OFF_EVENT_NAME = 92,     /* union with ActivityIDNameOffset */
    TRACE_EVENT_INFO_OFF_PROPERTY_COUNT = 100,
    TRACE_EVENT_INFO_OFF_TOP_LEVEL_PROPERTY_COUNT = 104,
    TRACE_EVENT_INFO_SIZE = 112
};
/* EVENT_PROPERTY_INFO: u32 Flags, u32 NameOffset, then a union - InType, OutType and
 * MapNameOffset for a value, StructStartIndex and NumOfStructMembers for a struct - then the
 * count and length (constants, or property indexes under PROP_PARAM_COUNT/LENGTH). */
enum {
    EVENT_PROPERTY_INFO_OFF_FLAGS = 0,
    EVENT_PROPERTY_INFO_OFF_NAME = 4,
    EVENT_PROPERTY_INFO_OFF_IN_TYPE = 8,
    EVENT_PROPERTY_INFO_OFF_OUT_TYPE = 10,
    EVENT_PROPERTY_INFO_OFF_MAP_NAME = 12,
    EVENT_PROPERTY_INFO_OFF_STRUCT_START = 8,
    EVENT_PROPERTY_INFO_OFF_STRUCT_MEMBERS = 10,
    EVENT_PROPERTY_INFO_OFF_COUNT = 16,
    EVENT_PROPERTY_INFO_OFF_LENGTH = 18,
    EVENT_PROPERTY_INFO_SIZE = 24
};
/* EventMapInfo's payload: the provider GUID, then an EVENT_MAP_INFO (u32 NameOffset, u32 Flag,
 * u32 EntryCount, u32 format/value type) and its 8-byte EVENT_MAP_ENTRYs (u32 OutputOffset,
 * u32 Value); the offsets count from the EVENT_MAP_INFO. */
enum {
    EVENT_MAP_PAYLOAD_OFF_INFO = 16,
    EVENT_MAP_INFO_OFF_NAME = 0,
    EVENT_MAP_INFO_OFF_FLAG = 4,
    EVENT_MAP_INFO_OFF_ENTRY_COUNT = 8,
    EVENT_MAP_INFO_SIZE = 16,
    EVENT_MAP_ENTRY_OFF_OUTPUT = 0,
    EVENT_MAP_ENTRY_OFF_VALUE = 4,
    EVENT_MAP_ENTRY_SIZE = 8
};
#define CARRIED_MAX_NAME 512u      /* bytes of UTF-8 kept per name */
#define CARRIED_MAX_MAP_ENTRIES 65536u

/* PROPERTY_FLAGS (tdh.h) */
enum {
    PROP_STRUCT = 0x1,
    PROP_PARAM_LENGTH = 0x2,
    PROP_PARAM_COUNT = 0x4,
    PROP_PARAM_FIXED_LENGTH = 0x10,
    PROP_PARAM_FIXED_COUNT = 0x20
};
/* MAP_FLAGS (tdh.h) */
enum { MAP_MANIFEST_VALUEMAP = 0x1, MAP_MANIFEST_BITMAP = 0x2 };

static const etl_guid metadata_guid = {0xbbccf6c1, 0x6cd1, 0x48c4, {0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71}};

/* What is known of one provider: its declarations, as manifest XML fragments. */
typedef struct carried_provider {
    etl_guid guid;
    char *name;
    GHashTable *event_keys;  /* "id/version" already taken */
    GHashTable *map_names;   /* map names already taken */
    GHashTable *tasks;       /* task value (GUINT_TO_POINTER(v+1)) -> carried_task */
    GHashTable *levels;      /* custom level value+1 -> name */
    GString *templates, *events, *maps;
} carried_provider;

typedef struct carried_task {
    char *name;
    GHashTable *opcodes;     /* opcode value+1 -> name (custom opcodes only) */
} carried_task;

struct etl_carried {
    GHashTable *providers;   /* GUID text -> carried_provider */
    GPtrArray *order;        /* providers in first-seen order, for a deterministic document */
    uint32_t events, maps;
};

static void task_free(gpointer p)
{
    carried_task *t = p;
    g_free(t->name);
    g_hash_table_destroy(t->opcodes);
    g_free(t);
}

static void provider_free(gpointer p)
{
    carried_provider *cp = p;
    g_free(cp->name);
    g_hash_table_destroy(cp->event_keys);
    g_hash_table_destroy(cp->map_names);
    g_hash_table_destroy(cp->tasks);
    g_hash_table_destroy(cp->levels);
    g_string_free(cp->templates, TRUE);
    g_string_free(cp->events, TRUE);
    g_string_free(cp->maps, TRUE);
    g_free(cp);
}

etl_carried *etl_carried_new(void)
{
    etl_carried *c = g_new0(etl_carried, 1);
    c->providers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    c->order = g_ptr_array_new_with_free_func(provider_free);
    return c;
}

void etl_carried_free(etl_carried *c)
{
    if (!c)
        return;
    g_hash_table_destroy(c->providers);
    g_ptr_array_free(c->order, TRUE);
    g_free(c);
}

bool etl_carried_is_metadata(const etl_record *rec)
{
    return rec && rec->has_provider && etl_guid_equal(&rec->provider, &metadata_guid) &&
           (rec->header_type == ETL_HT_FULL_HEADER32 || rec->header_type == ETL_HT_FULL_HEADER64) &&
           (rec->opcode == ETL_CARRIED_EVENT_INFO || rec->opcode == ETL_CARRIED_EVENT_MAP_INFO);
}

uint32_t etl_carried_event_count(const etl_carried *c)
{
    return c ? c->events : 0;
}

uint32_t etl_carried_map_count(const etl_carried *c)
{
    return c ? c->maps : 0;
}

/* A NUL-terminated UTF-16 name at `off` of a structure of `size` bytes, as escaped UTF-8
 * (g_free it); NULL when the offset is 0 (no name) or outside the structure. */
static char *name_at(const uint8_t *p, size_t size, uint32_t off)
{
    if (off == 0 || off >= size)
        return NULL;
    char buf[CARRIED_MAX_NAME];
    etl_utf16_to_utf8(p + off, size - off, buf, sizeof buf, NULL);
    return g_markup_escape_text(g_strstrip(buf), -1);
}

static carried_provider *provider_for(etl_carried *c, const etl_guid *g, const char *name)
{
    char key[ETL_GUID_STR_SIZE];
    etl_format_guid(g, key);
    carried_provider *cp = g_hash_table_lookup(c->providers, key);
    if (!cp) {
        cp = g_new0(carried_provider, 1);
        cp->guid = *g;
        cp->event_keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        cp->map_names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        cp->tasks = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, task_free);
        cp->levels = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
        cp->templates = g_string_new(NULL);
        cp->events = g_string_new(NULL);
        cp->maps = g_string_new(NULL);
        g_hash_table_insert(c->providers, g_strdup(key), cp);
        g_ptr_array_add(c->order, cp);
    }
    if (!cp->name && name && *name)
        cp->name = g_strdup(name);
    return cp;
}

/* ---- TRACE_EVENT_INFO ------------------------------------------------------------------- */

typedef struct tei {
    const uint8_t *p;
    size_t size;
    uint32_t count;          /* PropertyCount */
    uint8_t *visiting;       /* struct recursion guard, one flag per property */
} tei;

static bool write_properties(const tei *t, GString *out, uint32_t first, uint32_t n, unsigned depth,
                             etl_error *err);

/* Offset of property i's EVENT_PROPERTY_INFO in the TRACE_EVENT_INFO. */
static size_t property_at(uint32_t i)
{
    return TRACE_EVENT_INFO_SIZE + (size_t)i * EVENT_PROPERTY_INFO_SIZE;
}

/* A count or length that names another property (`attr` = "count" or "length", read at
 * `field` of property i): the attribute with that property's name; false when it names none. */
static bool write_reference(const tei *t, GString *attrs, uint32_t i, size_t field, const char *attr,
                            etl_error *err)
{
    uint16_t ref = etl_ld16(t->p + property_at(i) + field);
    if (ref >= t->count) {
        etl_fail(err, ETL_ERR_CORRUPT, property_at(i) + field, "property %u takes its %s from property %u of %u", i,
                 attr, ref, t->count);
        return false;
    }
    char *name = name_at(t->p, t->size, etl_ld32(t->p + property_at(ref) + EVENT_PROPERTY_INFO_OFF_NAME));
    g_string_append_printf(attrs, " %s=\"%s\"", attr, name ? name : "");
    g_free(name);
    return true;
}

/* One EVENT_PROPERTY_INFO as a <data> or <struct> element. */
static bool write_property(const tei *t, GString *out, uint32_t i, unsigned depth, etl_error *err)
{
    const uint8_t *e = t->p + property_at(i);
    uint32_t flags = etl_ld32(e + EVENT_PROPERTY_INFO_OFF_FLAGS), name_off = etl_ld32(e + EVENT_PROPERTY_INFO_OFF_NAME);
    uint16_t count = etl_ld16(e + EVENT_PROPERTY_INFO_OFF_COUNT), length = etl_ld16(e + EVENT_PROPERTY_INFO_OFF_LENGTH);
    GString *attrs = g_string_new(NULL);
    bool refs_ok = true;
    if (flags & PROP_PARAM_COUNT)
        refs_ok = write_reference(t, attrs, i, EVENT_PROPERTY_INFO_OFF_COUNT, "count", err);
    else if (count > 1 || (flags & PROP_PARAM_FIXED_COUNT))
        g_string_append_printf(attrs, " count=\"%u\"", count);
    if (refs_ok && (flags & PROP_PARAM_LENGTH))
        refs_ok = write_reference(t, attrs, i, EVENT_PROPERTY_INFO_OFF_LENGTH, "length", err);
    if (!refs_ok) {
        g_string_free(attrs, TRUE);
        return false;
    }
    char *name = name_at(t->p, t->size, name_off);
    if (!name)
        name = g_strdup_printf("Property%u", i);
    bool ok = true;
    if (flags & PROP_STRUCT) {
        uint16_t start = etl_ld16(e + EVENT_PROPERTY_INFO_OFF_STRUCT_START),
                 members = etl_ld16(e + EVENT_PROPERTY_INFO_OFF_STRUCT_MEMBERS);
        if (depth >= ETL_MF_MAX_STRUCT_DEPTH || t->visiting[i] || (uint32_t)start + members > t->count) {
            ok = false;
            etl_fail(err, ETL_ERR_CORRUPT, property_at(i) + EVENT_PROPERTY_INFO_OFF_STRUCT_START,
                     "struct property %u: members %u..%u of %u, nested %u deep", i, start, start + members,
                     t->count, depth);
        } else {
            g_string_append_printf(out, "<struct name=\"%s\"%s>", name, attrs->str);
            t->visiting[i] = 1;
            ok = write_properties(t, out, start, members, depth + 1, err);
            t->visiting[i] = 0;
            g_string_append(out, "</struct>\n");
        }
    } else {
        uint16_t in = etl_ld16(e + EVENT_PROPERTY_INFO_OFF_IN_TYPE), outt = etl_ld16(e + EVENT_PROPERTY_INFO_OFF_OUT_TYPE);
        const char *in_name = etl_mf_in_type_qname(in), *out_name = etl_mf_out_type_qname(outt);
        /* A type the manifest vocabulary cannot name stays an unknown type: the compiled
         * schema turns it into a placeholder, and the fields before it still decode. */
        g_string_append_printf(out, "<data name=\"%s\" inType=\"%s\"", name, in_name ? in_name : "etl:Unknown");
        if (out_name)
            g_string_append_printf(out, " outType=\"%s\"", out_name);
        if (!(flags & PROP_PARAM_LENGTH) && length &&
            (in == ETL_IN_UNICODESTRING || in == ETL_IN_ANSISTRING || in == ETL_IN_BINARY ||
             (flags & PROP_PARAM_FIXED_LENGTH)))
            g_string_append_printf(out, " length=\"%u\"", length);
        char *map = name_at(t->p, t->size, etl_ld32(e + EVENT_PROPERTY_INFO_OFF_MAP_NAME));
        if (map)
            g_string_append_printf(out, " map=\"%s\"", map);
        g_free(map);
        g_string_append_printf(out, "%s/>\n", attrs->str);
    }
    g_free(name);
    g_string_free(attrs, TRUE);
    return ok;
}

static bool write_properties(const tei *t, GString *out, uint32_t first, uint32_t n, unsigned depth, etl_error *err)
{
    for (uint32_t i = first; i < first + n; i++)
        if (!write_property(t, out, i, depth, err))
            return false;
    return true;
}

static const char *const std_levels[] = {"win:LogAlways", "win:Critical", "win:Error", "win:Warning",
                                         "win:Informational", "win:Verbose"};

static etl_status add_event_info(etl_carried *c, const uint8_t *p, size_t size, etl_error *err)
{
    if (size < TRACE_EVENT_INFO_SIZE)
        return etl_fail(err, ETL_ERR_TRUNCATED, 0, "TRACE_EVENT_INFO needs %u bytes, the event has %zu",
                        TRACE_EVENT_INFO_SIZE, size);
    etl_guid prov;
    etl_read_guid(p + TRACE_EVENT_INFO_OFF_PROVIDER_GUID, &prov);
    uint16_t id = etl_ld16(p + TRACE_EVENT_INFO_OFF_EVENT_ID);
    uint8_t version = p[TRACE_EVENT_INFO_OFF_VERSION], level = p[TRACE_EVENT_INFO_OFF_LEVEL],
            opcode = p[TRACE_EVENT_INFO_OFF_OPCODE];
    uint16_t task = etl_ld16(p + TRACE_EVENT_INFO_OFF_TASK);
    uint32_t source = etl_ld32(p + TRACE_EVENT_INFO_OFF_DECODING_SOURCE);
    uint32_t count = etl_ld32(p + TRACE_EVENT_INFO_OFF_PROPERTY_COUNT),
             top = etl_ld32(p + TRACE_EVENT_INFO_OFF_TOP_LEVEL_PROPERTY_COUNT);
    if (source != 0)
        return etl_fail(err, ETL_ERR_NOT_FOUND, TRACE_EVENT_INFO_OFF_DECODING_SOURCE,
                        "event %u v%u: decoding source %u is not a manifest", id, version, source);
    if (count > ETL_MF_MAX_PROPERTIES || top > count)
        return etl_fail(err, ETL_ERR_LIMIT, TRACE_EVENT_INFO_OFF_PROPERTY_COUNT, "event %u v%u: %u properties (%u top-level)",
                        id, version, count, top);
    if (!etl_span_ok(size, TRACE_EVENT_INFO_SIZE, (size_t)count * EVENT_PROPERTY_INFO_SIZE))
        return etl_fail(err, ETL_ERR_TRUNCATED, TRACE_EVENT_INFO_SIZE,
                        "event %u v%u: %u properties run past the %zu-byte event", id, version, count, size);

    char *pname = name_at(p, size, etl_ld32(p + TRACE_EVENT_INFO_OFF_PROVIDER_NAME));
    carried_provider *cp = provider_for(c, &prov, pname);
    g_free(pname);
    char *key = g_strdup_printf("%u/%u", id, version);
    if (g_hash_table_contains(cp->event_keys, key)) {
        g_free(key);
        return ETL_OK;
    }

    /* the template first: a malformed one refuses the whole event */
    GString *tmpl = g_string_new(NULL);
    tei t = {p, size, count, g_malloc0(count ? count : 1)};
    bool ok = write_properties(&t, tmpl, 0, top, 0, err);
    g_free(t.visiting);
    if (!ok) {
        g_string_free(tmpl, TRUE);
        g_free(key);
        return err ? err->code : ETL_ERR_CORRUPT;
    }
    g_hash_table_add(cp->event_keys, key);
    c->events++;

    /* task and opcode: declared with the names the trace carries */
    char *task_name = name_at(p, size, etl_ld32(p + TRACE_EVENT_INFO_OFF_TASK_NAME));
    char *opcode_name = name_at(p, size, etl_ld32(p + TRACE_EVENT_INFO_OFF_OPCODE_NAME));
    char *level_name = name_at(p, size, etl_ld32(p + TRACE_EVENT_INFO_OFF_LEVEL_NAME));
    carried_task *ct = NULL;
    if (task_name) {
        ct = g_hash_table_lookup(cp->tasks, GUINT_TO_POINTER((guint)task + 1));
        if (!ct) {
            ct = g_new0(carried_task, 1);
            ct->name = g_strdup(task_name);
            ct->opcodes = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
            g_hash_table_insert(cp->tasks, GUINT_TO_POINTER((guint)task + 1), ct);
        }
        if (opcode_name && strncmp(opcode_name, "win:", 4) != 0 &&
            !g_hash_table_contains(ct->opcodes, GUINT_TO_POINTER((guint)opcode + 1)))
            g_hash_table_insert(ct->opcodes, GUINT_TO_POINTER((guint)opcode + 1), g_strdup(opcode_name));
    }
    const char *lvl = level < G_N_ELEMENTS(std_levels) ? std_levels[level] : NULL;
    if (!lvl && level_name) {
        if (!g_hash_table_contains(cp->levels, GUINT_TO_POINTER((guint)level + 1)))
            g_hash_table_insert(cp->levels, GUINT_TO_POINTER((guint)level + 1), g_strdup(level_name));
        lvl = level_name;
    }

    g_string_append_printf(cp->templates, "<template tid=\"e%u_v%u\">\n%s</template>\n", id, version, tmpl->str);
    g_string_free(tmpl, TRUE);
    g_string_append_printf(cp->events, "<event value=\"%u\" version=\"%u\" template=\"e%u_v%u\"", id, version, id, version);
    if (task_name)
        g_string_append_printf(cp->events, " task=\"%s\"", task_name);
    if (opcode_name)
        g_string_append_printf(cp->events, " opcode=\"%s\"", opcode_name);
    if (lvl)
        g_string_append_printf(cp->events, " level=\"%s\"", lvl);
    char *event_name = name_at(p, size, etl_ld32(p + TRACE_EVENT_INFO_OFF_EVENT_NAME));
    if (event_name)
        g_string_append_printf(cp->events, " name=\"%s\"", event_name);
    char *message = name_at(p, size, etl_ld32(p + TRACE_EVENT_INFO_OFF_EVENT_MESSAGE));
    if (message)
        g_string_append_printf(cp->events, " message=\"%s\"", message);
    g_string_append(cp->events, "/>\n");
    g_free(event_name);
    g_free(message);
    g_free(task_name);
    g_free(opcode_name);
    g_free(level_name);
    return ETL_OK;
}

/* ---- EVENT_MAP_INFO --------------------------------------------------------------------- */

static etl_status add_map_info(etl_carried *c, const uint8_t *payload, size_t psize, etl_error *err)
{
    const size_t info = EVENT_MAP_PAYLOAD_OFF_INFO;
    if (psize < info + EVENT_MAP_INFO_SIZE)
        return etl_fail(err, ETL_ERR_TRUNCATED, 0, "EventMapInfo needs %u bytes, the event has %zu",
                        (unsigned)(info + EVENT_MAP_INFO_SIZE), psize);
    etl_guid prov;
    etl_read_guid(payload, &prov);
    const uint8_t *p = payload + info; /* offsets inside count from the EVENT_MAP_INFO */
    size_t size = psize - info;
    uint32_t flags = etl_ld32(p + EVENT_MAP_INFO_OFF_FLAG), n = etl_ld32(p + EVENT_MAP_INFO_OFF_ENTRY_COUNT);
    if (!(flags & (MAP_MANIFEST_VALUEMAP | MAP_MANIFEST_BITMAP)))
        return etl_fail(err, ETL_ERR_NOT_FOUND, info + EVENT_MAP_INFO_OFF_FLAG,
                        "map flags 0x%x: not a manifest value or bit map", flags);
    if (n > CARRIED_MAX_MAP_ENTRIES || !etl_span_ok(size, EVENT_MAP_INFO_SIZE, (size_t)n * EVENT_MAP_ENTRY_SIZE))
        return etl_fail(err, ETL_ERR_TRUNCATED, info + EVENT_MAP_INFO_OFF_ENTRY_COUNT,
                        "map with %u entries runs past the %zu-byte event", n, psize);
    char *name = name_at(p, size, etl_ld32(p + EVENT_MAP_INFO_OFF_NAME));
    if (!name)
        return etl_fail(err, ETL_ERR_CORRUPT, info + EVENT_MAP_INFO_OFF_NAME, "map without a name");
    carried_provider *cp = provider_for(c, &prov, NULL);
    if (g_hash_table_contains(cp->map_names, name)) {
        g_free(name);
        return ETL_OK;
    }
    const char *elem = (flags & MAP_MANIFEST_BITMAP) ? "bitMap" : "valueMap";
    g_string_append_printf(cp->maps, "<%s name=\"%s\">", elem, name);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = p + EVENT_MAP_INFO_SIZE + (size_t)i * EVENT_MAP_ENTRY_SIZE;
        char *text = name_at(p, size, etl_ld32(e + EVENT_MAP_ENTRY_OFF_OUTPUT));
        g_string_append_printf(cp->maps, "<map value=\"0x%x\" message=\"%s\"/>", etl_ld32(e + EVENT_MAP_ENTRY_OFF_VALUE),
                               text ? text : "");
        g_free(text);
    }
    g_string_append_printf(cp->maps, "</%s>\n", elem);
    g_hash_table_add(cp->map_names, name);
    c->maps++;
    return ETL_OK;
}

etl_status etl_carried_add(etl_carried *c, const etl_record *rec, etl_error *err)
{
    if (!c || !etl_carried_is_metadata(rec))
        return etl_fail(err, ETL_ERR_ARG, 0, "not a KernelTraceControl MetaData record");
    const uint8_t *p = rec->bytes + rec->payload_offset;
    if (rec->opcode == ETL_CARRIED_EVENT_INFO)
        return add_event_info(c, p, rec->payload_size, err);
    return add_map_info(c, p, rec->payload_size, err);
}

/* ---- the manifest they stand for -------------------------------------------------------- */

static gint cmp_keys(gconstpointer a, gconstpointer b)
{
    guint x = GPOINTER_TO_UINT(*(gconstpointer *)a), y = GPOINTER_TO_UINT(*(gconstpointer *)b);
    return x < y ? -1 : x > y;
}

/* Keys of a GHashTable keyed by value+1, sorted, so the document is deterministic. */
static GPtrArray *sorted_keys(GHashTable *h)
{
    GPtrArray *a = g_ptr_array_new();
    GHashTableIter it;
    gpointer k;
    g_hash_table_iter_init(&it, h);
    while (g_hash_table_iter_next(&it, &k, NULL))
        g_ptr_array_add(a, k);
    g_ptr_array_sort(a, cmp_keys);
    return a;
}

/* A table of custom names (value+1 -> name) as <list><item name= value=/>...</list>, values in
 * order; nothing when it is empty. */
static void write_names(GString *x, GHashTable *names, const char *list, const char *item, const char *after)
{
    GPtrArray *keys = sorted_keys(names);
    if (keys->len) {
        g_string_append_printf(x, "<%s>", list);
        for (guint k = 0; k < keys->len; k++)
            g_string_append_printf(x, "<%s name=\"%s\" value=\"%u\"/>", item,
                                   (char *)g_hash_table_lookup(names, keys->pdata[k]),
                                   GPOINTER_TO_UINT(keys->pdata[k]) - 1);
        g_string_append_printf(x, "</%s>%s", list, after);
    }
    g_ptr_array_free(keys, TRUE);
}

/* The manifest text the schemas stand for; g_free it. */
static char *carried_xml(const etl_carried *c)
{
    GString *x = g_string_new("<instrumentationManifest>\n<instrumentation>\n<events>\n");
    for (guint i = 0; c && i < c->order->len; i++) {
        carried_provider *cp = g_ptr_array_index(c->order, i);
        char g[ETL_GUID_STR_SIZE];
        etl_format_guid(&cp->guid, g);
        g_string_append_printf(x, "<provider name=\"%s\" guid=\"{%s}\">\n", cp->name ? cp->name : g, g);
        write_names(x, cp->levels, "levels", "level", "\n");
        GPtrArray *tasks = sorted_keys(cp->tasks);
        if (tasks->len) {
            g_string_append(x, "<tasks>\n");
            for (guint k = 0; k < tasks->len; k++) {
                carried_task *t = g_hash_table_lookup(cp->tasks, tasks->pdata[k]);
                g_string_append_printf(x, "<task name=\"%s\" value=\"%u\">", t->name, GPOINTER_TO_UINT(tasks->pdata[k]) - 1);
                write_names(x, t->opcodes, "opcodes", "opcode", "");
                g_string_append(x, "</task>\n");
            }
            g_string_append(x, "</tasks>\n");
        }
        g_ptr_array_free(tasks, TRUE);
        if (cp->maps->len)
            g_string_append_printf(x, "<maps>\n%s</maps>\n", cp->maps->str);
        if (cp->templates->len)
            g_string_append_printf(x, "<templates>\n%s</templates>\n", cp->templates->str);
        g_string_append_printf(x, "<events>\n%s</events>\n</provider>\n", cp->events->str);
    }
    g_string_append(x, "</events>\n</instrumentation>\n</instrumentationManifest>\n");
    return g_string_free(x, FALSE);
}

etl_status etl_carried_build(const etl_carried *c, etl_manifest **out, etl_error *err)
{
    *out = NULL;
    if (!c || c->order->len == 0)
        return etl_fail(err, ETL_ERR_NOT_FOUND, 0, "the trace carries no event schemas");
    char *xml = carried_xml(c);
    etl_status st = etl_manifest_parse(xml, strlen(xml), "schemas carried in the trace", out, err);
    g_free(xml);
    return st;
}
