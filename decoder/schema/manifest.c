/* manifest.c - read instrumentation manifests into the model of manifest.h.
 *
 * One pass of GMarkup callbacks fills growable arrays per provider; names that point elsewhere
 * (an event's task, opcode, level, channel, keywords and template, a property's length or
 * count naming another property, "$(string.X)" messages) are resolved when the document has
 * been read, because the string table comes last and declarations may follow their use. */
#include "manifest.h"

#include <glib.h>
#include <stdarg.h>
#include <string.h>

#include "error.h"
#include "etl_format.h"

struct etl_manifest {
    GStringChunk *strings;
    GArray *providers; /* etl_mf_provider */
};

/* ---- builders --------------------------------------------------------------------------- */

typedef struct prop_build {
    etl_mf_property p;
    const char *length_name; /* resolved to length_ref at the end of the template */
    const char *count_name;
} prop_build;

typedef struct event_build {
    etl_mf_event e;
    const char *level, *task, *opcode, *channel, *keywords; /* names as written */
} event_build;

typedef struct provider_build {
    etl_mf_provider p;
    GArray *events, *templates, *maps, *tasks, *opcodes, *levels, *keywords, *channels;
    uint32_t next_channel_value; /* channels without a value get 16, 17, ... as mc.exe assigns */
} provider_build;

typedef struct parse_state {
    etl_manifest *m;
    const char *origin;
    GMarkupParseContext *ctx;
    GArray *providers;       /* provider_build */
    provider_build *prov;    /* the <provider> being read, or NULL */
    GArray *props;           /* prop_build of the <template> being read, or NULL */
    const char *tid;
    GArray *map_entries;     /* entries of the <valueMap>/<bitMap> being read, or NULL */
    etl_mf_map cur_map;
    bool in_task;
    uint16_t cur_task;
    int in_userdata; /* inside a template's <UserData>: free-form XML, not properties */
    int struct_stack[ETL_MF_MAX_STRUCT_DEPTH];
    int struct_depth;
    /* localization: the en-US table wins; the first table seen serves otherwise */
    GHashTable *strings_en, *strings_any;
    bool in_en_table, in_any_table, any_table_taken;
    struct fast_xml *fast; /* the fast reader's position (see below), or NULL under GMarkup */
    GStringChunk *temp;    /* strings needed only until the document is resolved (see transient) */
} parse_state;

static int state_line(parse_state *st);

#define MF_ERROR g_quark_from_static_string("etl-manifest")

/* strcmp(a, b) == 0 with the first characters compared inline: names are compared by the hundred
 * thousand while 20 manifests load (element and attribute names, each event's task, opcode and
 * template among the provider's), and most differ at once. */
static inline bool streq(const char *a, const char *b)
{
    return a[0] == b[0] && strcmp(a, b) == 0;
}

/* A string of the model: kept with the manifest, each text once. */
static const char *keep(parse_state *st, const char *s)
{
    return s ? g_string_chunk_insert_const(st->m->strings, s) : NULL;
}

/* A string read only while the document is resolved - names that are looked up (an event's
 * level, task, opcode, channel and keywords, a length= or count= property name), the string
 * table, and texts that are replaced by their resolved form: copied into the parse's own chunk,
 * dropped with it, and not looked up in the manifest's (a third of the strings of the shared
 * manifests). */
static const char *transient(parse_state *st, const char *s)
{
    return s ? g_string_chunk_insert(st->temp, s) : NULL;
}

static const char *attr(const char **names, const char **values, const char *want)
{
    for (int i = 0; names[i]; i++)
        if (streq(names[i], want))
            return values[i];
    return NULL;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    guint64 v = g_ascii_strtoull(s, &end, 0);
    while (*end == ' ')
        end++;
    if (*end)
        return false;
    *out = v;
    return true;
}

/* A semantic error from a callback.  GMarkup calls back once it has read the character after
 * the tag's '>', so the line where the tag ends is the current one, or the one before when that
 * character was the newline; etl_manifest_parse adds the origin and that line. */
static void fail(GError **error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void fail(GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error_literal(error, MF_ERROR, 1, msg);
    g_free(msg);
}

/* ---- type names ------------------------------------------------------------------------- */

typedef struct type_name {
    const char *name;
    uint16_t value;
} type_name;

static const type_name in_types[] = {
    {"win:UnicodeString", 1}, {"win:AnsiString", 2}, {"win:Int8", 3}, {"win:UInt8", 4}, {"win:Int16", 5},
    {"win:UInt16", 6}, {"win:Int32", 7}, {"win:UInt32", 8}, {"win:Int64", 9}, {"win:UInt64", 10},
    {"win:Float", 11}, {"win:Double", 12}, {"win:Boolean", 13}, {"win:Binary", 14}, {"win:GUID", 15},
    {"win:Pointer", 16}, {"win:FILETIME", 17}, {"win:SYSTEMTIME", 18}, {"win:SID", 19}, {"win:HexInt32", 20},
    {"win:HexInt64", 21}, {"win:CountedUnicodeString", 22}, {"win:CountedAnsiString", 23},
    {"win:CountedBinary", 25},
    /* older trace: aliases PerfView also accepts */
    {"trace:SizeT", 16}, {"trace:Port", 6}, {"trace:IPAddrV4", 8}, {"trace:IPAddrV6", 14}, {"trace:WmiTime", 9},
    /* TDH's types from 300 on have no manifest name; schemas carried in the trace
     * (TRACE_EVENT_INFO) can use them, so the model names them in a namespace of its own */
    {"tdh:COUNTEDSTRING", 300}, {"tdh:COUNTEDANSISTRING", 301}, {"tdh:REVERSEDCOUNTEDSTRING", 302},
    {"tdh:REVERSEDCOUNTEDANSISTRING", 303}, {"tdh:NONNULLTERMINATEDSTRING", 304},
    {"tdh:NONNULLTERMINATEDANSISTRING", 305}, {"tdh:UNICODECHAR", 306}, {"tdh:ANSICHAR", 307}, {"tdh:SIZET", 308},
    {"tdh:HEXDUMP", 309}, {"tdh:WBEMSID", 310},
};

static const type_name out_types[] = {
    {"xs:string", 1}, {"xs:dateTime", 2}, {"xs:byte", 3}, {"xs:unsignedByte", 4}, {"xs:short", 5},
    {"xs:unsignedShort", 6}, {"xs:int", 7}, {"xs:unsignedInt", 8}, {"xs:long", 9}, {"xs:unsignedLong", 10},
    {"xs:float", 11}, {"xs:double", 12}, {"xs:boolean", 13}, {"xs:GUID", 14}, {"xs:hexBinary", 15},
    {"win:HexInt8", 16}, {"win:HexInt16", 17}, {"win:HexInt32", 18}, {"win:HexInt64", 19}, {"win:PID", 20},
    {"win:TID", 21}, {"win:Port", 22}, {"win:IPv4", 23}, {"win:IPv6", 24}, {"win:SocketAddress", 25},
    {"win:CIMDateTime", 26}, {"win:ETWTIME", 27}, {"win:Xml", 28}, {"win:ErrorCode", 29},
    {"win:Win32Error", 30}, {"win:NTSTATUS", 31}, {"win:HResult", 32}, {"win:DateTimeCultureInsensitive", 33},
    {"win:Json", 34}, {"win:Utf8", 35}, {"win:Pkcs7WithTypeInfo", 36}, {"win:CodePointer", 37},
    {"win:DateTimeUtc", 38}, {"tdh:REDUCEDSTRING", 300}, {"tdh:NOPRINT", 301},
};

/* The TDH number of a manifest type name ("win:UInt32", "xs:unsignedInt", "trace:SizeT",
 * "tdh:..."); 0 when unknown. */
static uint16_t type_number(const type_name *table, size_t n, const char *name)
{
    for (size_t i = 0; name && i < n; i++)
        if (streq(table[i].name, name))
            return table[i].value;
    return 0;
}

/* The first name of a TDH number in the table (the win: and xs: names come first), or NULL. */
static const char *type_qname(const type_name *table, size_t n, uint16_t value)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].value == value)
            return table[i].name;
    return NULL;
}

const char *etl_mf_in_type_qname(uint16_t in_type)
{
    return type_qname(in_types, G_N_ELEMENTS(in_types), in_type);
}

const char *etl_mf_out_type_qname(uint16_t out_type)
{
    return type_qname(out_types, G_N_ELEMENTS(out_types), out_type);
}

/* The standard names of winmeta.xml, with the display text TDH gives them. */
typedef struct std_name {
    const char *name;
    uint8_t value;
    const char *display;
} std_name;
static const std_name std_levels[] = {{"win:LogAlways", 0, "Log Always"}, {"win:Critical", 1, "Critical"}, {"win:Error", 2, "Error"},
                  {"win:Warning", 3, "Warning"},      {"win:Informational", 4, "Information"},
                  {"win:Verbose", 5, "Verbose"}},
  std_opcodes[] = {{"win:Info", 0, "Info"},         {"win:Start", 1, "Start"},   {"win:Stop", 2, "Stop"},
                   {"win:DC_Start", 3, "DCStart"},  {"win:DC_Stop", 4, "DCStop"}, {"win:Extension", 5, "Extension"},
                   {"win:Reply", 6, "Reply"},       {"win:Resume", 7, "Resume"}, {"win:Suspend", 8, "Suspend"},
                   {"win:Send", 9, "Send"},         {"win:Receive", 240, "Receive"}},
  std_channels[] = {{"TraceClassic", 0, "TraceClassic"}, {"System", 8, "System"}, {"Application", 9, "Application"},
                    {"Security", 10, "Security"},        {"TraceLogging", 11, "TraceLogging"},
                    {"ProviderMetadata", 12, "ProviderMetadata"}};

/* A standard name (`name` may be NULL: none) to its value and display text; nothing when the
 * table does not have it (the tables repeat no name). */
static void std_find(const std_name *table, size_t n, const char *name, uint8_t *value, const char **display)
{
    for (size_t k = 0; name && k < n; k++)
        if (streq(table[k].name, name)) {
            *value = table[k].value;
            *display = table[k].display;
        }
}

/* ---- element handlers ------------------------------------------------------------------- */

static void named_add(parse_state *st, GArray *arr, const char **n, const char **v, const char *value_attr,
                      GError **error)
{
    etl_mf_named x = {0};
    uint64_t val = 0;
    const char *vs = attr(n, v, value_attr);
    x.name = keep(st, attr(n, v, "name"));
    x.display = transient(st, attr(n, v, "message")); /* "$(string.X)": resolved at the end */
    if (!x.name) {
        fail(error, "<%s> without a name", value_attr);
        return;
    }
    if (vs && !parse_u64(vs, &val)) {
        fail(error, "value \"%s\" is not a number", vs);
        return;
    }
    x.value = val;
    if (st->in_task && arr == st->prov->opcodes) {
        x.task_scoped = true;
        x.task = st->cur_task;
    }
    g_array_append_val(arr, x);
}

static void on_property(parse_state *st, const char *element, const char **n, const char **v, GError **error)
{
    prop_build b = {0};
    bool is_struct = streq(element, "struct");
    if (st->props->len >= ETL_MF_MAX_PROPERTIES) {
        fail(error, "template %s has more properties than the decoder accepts (ETL_MF_MAX_PROPERTIES)", st->tid ? st->tid : "(no tid)");
        return;
    }
    b.p.name = keep(st, attr(n, v, "name"));
    b.p.is_struct = is_struct;
    b.p.length_ref = b.p.count_ref = ETL_MF_NO_REF;
    if (!is_struct) {
        const char *it = attr(n, v, "inType");
        b.p.in_type = type_number(in_types, G_N_ELEMENTS(in_types), it); /* 0: unknown type, decoded as a placeholder */
        b.p.out_type = type_number(out_types, G_N_ELEMENTS(out_types), attr(n, v, "outType"));
        b.p.map_name = keep(st, attr(n, v, "map"));
    }
    const char *len = attr(n, v, "length"), *cnt = attr(n, v, "count");
    const char *opt = attr(n, v, "k:optional"), *rest = attr(n, v, "k:rest");
    b.p.optional = opt && streq(opt, "true");
    b.p.rest = rest && streq(rest, "true");
    uint64_t x;
    if (len) {
        b.p.has_length = true;
        if (parse_u64(len, &x) && x <= 0xFFFF)
            b.p.length = (uint16_t)x;
        else
            b.length_name = transient(st, len);
    }
    if (cnt) {
        b.p.has_count = true;
        if (parse_u64(cnt, &x) && x <= 0xFFFF)
            b.p.count = (uint16_t)x;
        else
            b.count_name = transient(st, cnt);
    }
    /* a direct member of the innermost open struct */
    if (st->struct_depth > 0)
        g_array_index(st->props, prop_build, st->struct_stack[st->struct_depth - 1]).p.member_count++;
    g_array_append_val(st->props, b);
    if (is_struct) {
        if (st->struct_depth >= (int)ETL_MF_MAX_STRUCT_DEPTH) {
            fail(error, "structs nested deeper than the decoder accepts in template %s", st->tid ? st->tid : "(no tid)");
            return;
        }
        st->struct_stack[st->struct_depth++] = (int)st->props->len - 1;
    }
}

static void on_start(GMarkupParseContext *ctx, const char *element, const char **n, const char **v, gpointer data,
                     GError **error)
{
    parse_state *st = data;
    (void)ctx;
    if (streq(element, "provider")) {
        provider_build pb = {0};
        const char *g = attr(n, v, "guid");
        if (!g || !etl_parse_guid(g, &pb.p.guid)) {
            fail(error, "provider guid \"%s\" is not a GUID", g ? g : "(missing)");
            return;
        }
        pb.p.name = keep(st, attr(n, v, "name"));
        pb.p.source = keep(st, st->origin);
        pb.events = g_array_new(FALSE, TRUE, sizeof(event_build));
        pb.templates = g_array_new(FALSE, TRUE, sizeof(etl_mf_template));
        pb.maps = g_array_new(FALSE, TRUE, sizeof(etl_mf_map));
        pb.tasks = g_array_new(FALSE, TRUE, sizeof(etl_mf_named));
        pb.opcodes = g_array_new(FALSE, TRUE, sizeof(etl_mf_named));
        pb.levels = g_array_new(FALSE, TRUE, sizeof(etl_mf_named));
        pb.keywords = g_array_new(FALSE, TRUE, sizeof(etl_mf_named));
        pb.channels = g_array_new(FALSE, TRUE, sizeof(etl_mf_named));
        pb.next_channel_value = 16;
        g_array_append_val(st->providers, pb);
        st->prov = &g_array_index(st->providers, provider_build, st->providers->len - 1);
        return;
    }
    if (streq(element, "resources")) {
        const char *culture = attr(n, v, "culture");
        st->in_en_table = culture && g_ascii_strcasecmp(culture, "en-US") == 0;
        st->in_any_table = !st->any_table_taken;
        st->any_table_taken = true;
        return;
    }
    if (streq(element, "string") && (st->in_en_table || st->in_any_table)) {
        const char *id = attr(n, v, "id"), *val = attr(n, v, "value");
        if (id && val)
            g_hash_table_insert(st->in_en_table ? st->strings_en : st->strings_any, (gpointer)transient(st, id),
                                (gpointer)transient(st, val));
        return;
    }
    provider_build *p = st->prov;
    if (!p)
        return;
    if (st->in_userdata || streq(element, "UserData")) {
        st->in_userdata++;
        return;
    }
    if (streq(element, "event")) {
        event_build e = {0};
        uint64_t x = 0;
        const char *val = attr(n, v, "value");
        if (!val || !parse_u64(val, &x) || x > 0xFFFF) {
            fail(error, "event value \"%s\" is not a 16-bit number", val ? val : "(missing)");
            return;
        }
        e.e.id = (uint16_t)x;
        x = 0;
        const char *ver = attr(n, v, "version");
        if (ver && (!parse_u64(ver, &x) || x > 0xFF)) {
            fail(error, "event version \"%s\" is not an 8-bit number", ver);
            return;
        }
        e.e.version = (uint8_t)x;
        e.e.symbol = keep(st, attr(n, v, "symbol"));
        e.e.name = keep(st, attr(n, v, "name"));
        e.e.template_tid = keep(st, attr(n, v, "template"));
        e.e.message = transient(st, attr(n, v, "message")); /* resolved and kept at the end */
        e.level = transient(st, attr(n, v, "level"));
        e.task = transient(st, attr(n, v, "task"));
        e.opcode = transient(st, attr(n, v, "opcode"));
        e.channel = transient(st, attr(n, v, "channel"));
        e.keywords = transient(st, attr(n, v, "keywords"));
        e.e.source_line = (uint32_t)state_line(st);
        g_array_append_val(p->events, e);
    } else if (streq(element, "template")) {
        st->tid = keep(st, attr(n, v, "tid"));
        st->props = g_array_new(FALSE, TRUE, sizeof(prop_build));
        st->struct_depth = 0;
    } else if ((streq(element, "data") || streq(element, "struct")) && st->props) {
        on_property(st, element, n, v, error);
    } else if (streq(element, "valueMap") || streq(element, "bitMap")) {
        memset(&st->cur_map, 0, sizeof st->cur_map);
        st->cur_map.name = keep(st, attr(n, v, "name"));
        st->cur_map.is_bitmap = element[0] == 'b';
        st->map_entries = g_array_new(FALSE, TRUE, sizeof(etl_mf_map_entry));
    } else if (streq(element, "map") && st->map_entries) {
        etl_mf_map_entry me = {0};
        const char *val = attr(n, v, "value");
        if (!parse_u64(val, &me.value)) {
            fail(error, "map value \"%s\" is not a number", val ? val : "(missing)");
            return;
        }
        me.text = transient(st, attr(n, v, "message")); /* resolved and kept at the end */
        g_array_append_val(st->map_entries, me);
    } else if (streq(element, "task")) {
        named_add(st, p->tasks, n, v, "value", error);
        st->in_task = true;
        st->cur_task = p->tasks->len ? (uint16_t)g_array_index(p->tasks, etl_mf_named, p->tasks->len - 1).value : 0;
    } else if (streq(element, "opcode")) {
        named_add(st, p->opcodes, n, v, "value", error);
    } else if (streq(element, "level")) {
        named_add(st, p->levels, n, v, "value", error);
    } else if (streq(element, "keyword")) {
        named_add(st, p->keywords, n, v, "mask", error);
    } else if (streq(element, "channel") || streq(element, "importChannel")) {
        etl_mf_named c = {0};
        const char *name = attr(n, v, "name"), *chid = attr(n, v, "chid"), *val = attr(n, v, "value");
        uint64_t x = 0;
        c.name = keep(st, chid ? chid : name); /* events refer to a channel by chid when it has one */
        c.display = keep(st, name);
        if (val && parse_u64(val, &x)) {
            c.value = x;
        } else if (element[0] == 'i') {
            for (size_t i = 0; name && i < G_N_ELEMENTS(std_channels); i++)
                if (streq(std_channels[i].name, name))
                    c.value = std_channels[i].value;
        } else {
            c.value = p->next_channel_value++;
        }
        g_array_append_val(p->channels, c);
    }
}

static void on_end(GMarkupParseContext *ctx, const char *element, gpointer data, GError **error)
{
    parse_state *st = data;
    (void)ctx;
    if (st->in_userdata) {
        st->in_userdata--;
        return;
    }
    if (streq(element, "provider")) {
        st->prov = NULL;
    } else if (streq(element, "struct") && st->props && st->struct_depth > 0) {
        st->struct_depth--;
    } else if (streq(element, "template") && st->props && st->prov) {
        /* length= and count= naming another property: the nearest earlier one of that name */
        for (guint i = 0; i < st->props->len; i++) {
            prop_build *b = &g_array_index(st->props, prop_build, i);
            for (int which = 0; which < 2; which++) {
                const char *want = which ? b->count_name : b->length_name;
                if (!want)
                    continue;
                uint16_t ref = ETL_MF_NO_REF;
                for (guint k = i; k-- > 0;)
                    if (g_array_index(st->props, prop_build, k).p.name &&
                        streq(g_array_index(st->props, prop_build, k).p.name, want)) {
                        ref = (uint16_t)k;
                        break;
                    }
                if (ref == ETL_MF_NO_REF) {
                    fail(error, "a length or count names \"%s\", which no earlier property of the template is", want);
                    return;
                }
                if (which)
                    b->p.count_ref = ref;
                else
                    b->p.length_ref = ref;
            }
        }
        etl_mf_template t = {0};
        t.tid = st->tid;
        t.prop_count = st->props->len;
        t.props = g_new0(etl_mf_property, t.prop_count ? t.prop_count : 1);
        for (guint i = 0; i < st->props->len; i++)
            t.props[i] = g_array_index(st->props, prop_build, i).p;
        g_array_append_val(st->prov->templates, t);
        g_array_free(st->props, TRUE);
        st->props = NULL;
    } else if ((streq(element, "valueMap") || streq(element, "bitMap")) && st->map_entries && st->prov) {
        st->cur_map.entry_count = st->map_entries->len;
        st->cur_map.entries = (etl_mf_map_entry *)(void *)g_array_free(st->map_entries, FALSE);
        g_array_append_val(st->prov->maps, st->cur_map);
        st->map_entries = NULL;
    } else if (streq(element, "task")) {
        st->in_task = false;
    } else if (streq(element, "resources")) {
        st->in_en_table = st->in_any_table = false;
    }
}

/* ---- resolution after the whole document ------------------------------------------------ */

static const char *resolve_string(parse_state *st, const char *s)
{
    if (!s || strncmp(s, "$(string.", 9) != 0)
        return s;
    size_t len = strlen(s);
    if (len < 11 || s[len - 1] != ')')
        return s;
    char *id = g_strndup(s + 9, len - 10);
    const char *v = g_hash_table_lookup(st->strings_en, id);
    if (!v)
        v = g_hash_table_lookup(st->strings_any, id);
    g_free(id);
    return v; /* NULL when the table lacks it: callers fall back to the name */
}

/* Display text: the message string when there is one, else the name without "win:". */
static void resolve_display(parse_state *st, GArray *arr)
{
    for (guint i = 0; i < arr->len; i++) {
        etl_mf_named *x = &g_array_index(arr, etl_mf_named, i);
        const char *d = resolve_string(st, x->display);
        if (!d)
            d = x->name && strncmp(x->name, "win:", 4) == 0 ? x->name + 4 : x->name;
        char *t = d ? g_strstrip(g_strdup(d)) : NULL;
        x->display = keep(st, t);
        g_free(t);
    }
}

/* A named list (tasks, opcodes, ...) by name: each name's entries in declaration order, as a
 * chain - so that the lookup per event is one hash, not a walk of the list (the CLR manifest's
 * events times its opcodes took a tenth of loading the shared manifests). */
typedef struct named_index {
    GArray *arr;
    GHashTable *first; /* name -> 1 + index of its first entry */
    guint *next;       /* 1 + index of the next entry of the same name, or 0 */
} named_index;

static void named_index_init(named_index *ix, GArray *arr)
{
    ix->arr = arr;
    ix->first = g_hash_table_new(g_str_hash, g_str_equal);
    ix->next = g_new0(guint, arr->len ? arr->len : 1);
    for (guint i = arr->len; i-- > 0;) { /* backwards: each chain comes out in order */
        const etl_mf_named *x = &g_array_index(arr, etl_mf_named, i);
        if (!x->name)
            continue;
        ix->next[i] = GPOINTER_TO_UINT(g_hash_table_lookup(ix->first, x->name));
        g_hash_table_insert(ix->first, (gpointer)x->name, GUINT_TO_POINTER(i + 1));
    }
}

static void named_index_free(named_index *ix)
{
    g_hash_table_destroy(ix->first);
    g_free(ix->next);
}

static const etl_mf_named *find_named(const named_index *ix, const char *name, bool want_task, uint16_t task)
{
    const etl_mf_named *fallback = NULL;
    guint at = name ? GPOINTER_TO_UINT(g_hash_table_lookup(ix->first, name)) : 0;
    for (; at; at = ix->next[at - 1]) {
        const etl_mf_named *x = &g_array_index(ix->arr, etl_mf_named, at - 1);
        if (!want_task || !x->task_scoped || x->task == task) {
            if (!x->task_scoped || (want_task && x->task == task))
                return x;
            fallback = x;
        }
    }
    return fallback;
}

static char *trimmed(const char *s)
{
    return s ? g_strstrip(g_strdup(s)) : NULL;
}

static void finish_provider(parse_state *st, provider_build *pb)
{
    resolve_display(st, pb->tasks);
    resolve_display(st, pb->opcodes);
    resolve_display(st, pb->levels);
    resolve_display(st, pb->keywords);
    for (guint i = 0; i < pb->maps->len; i++) {
        etl_mf_map *m = &g_array_index(pb->maps, etl_mf_map, i);
        for (uint32_t k = 0; k < m->entry_count; k++) {
            char *t = trimmed(resolve_string(st, m->entries[k].text));
            m->entries[k].text = t ? keep(st, t) : NULL;
            g_free(t);
        }
    }
    named_index tasks, opcodes, levels, channels, keywords;
    named_index_init(&tasks, pb->tasks);
    named_index_init(&opcodes, pb->opcodes);
    named_index_init(&levels, pb->levels);
    named_index_init(&channels, pb->channels);
    named_index_init(&keywords, pb->keywords);
    /* templates by tid: the last one declared wins, as the walk of them all had it */
    GHashTable *templates = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint k = 0; k < pb->templates->len; k++) {
        etl_mf_template *t = &g_array_index(pb->templates, etl_mf_template, k);
        if (t->tid) /* a <template> may lack tid= */
            g_hash_table_insert(templates, (gpointer)t->tid, t);
    }
    for (guint i = 0; i < pb->events->len; i++) {
        event_build *e = &g_array_index(pb->events, event_build, i);
        const etl_mf_named *x;
        /* task */
        if ((x = find_named(&tasks, e->task, false, 0))) {
            e->e.task = (uint16_t)x->value;
            e->e.task_name = x->display;
        }
        /* opcode: one declared in the event's task first, then the provider's, then winmeta */
        if ((x = find_named(&opcodes, e->opcode, true, e->e.task))) {
            e->e.opcode = (uint8_t)x->value;
            e->e.opcode_name = x->display;
        } else {
            std_find(std_opcodes, G_N_ELEMENTS(std_opcodes), e->opcode, &e->e.opcode, &e->e.opcode_name);
        }
        /* level */
        if ((x = find_named(&levels, e->level, false, 0))) {
            e->e.level = (uint8_t)x->value;
            e->e.level_name = x->display;
        } else {
            std_find(std_levels, G_N_ELEMENTS(std_levels), e->level, &e->e.level, &e->e.level_name);
        }
        /* channel */
        if ((x = find_named(&channels, e->channel, false, 0))) {
            e->e.channel = (uint8_t)x->value;
            e->e.channel_name = x->display;
        }
        /* keywords: space-separated names, OR-ed */
        if (e->keywords) {
            char **names = g_strsplit_set(e->keywords, " \t\r\n", -1);
            GString *display = NULL;
            for (char **k = names; *k; k++)
                if (**k && (x = find_named(&keywords, *k, false, 0))) {
                    e->e.keywords |= x->value;
                    if (!display)
                        display = g_string_new(NULL);
                    else
                        g_string_append(display, " | ");
                    g_string_append(display, x->display ? x->display : x->name);
                }
            g_strfreev(names);
            if (display) {
                e->e.keywords_name = keep(st, display->str);
                g_string_free(display, TRUE);
            }
        }
        /* template */
        if (e->e.template_tid) {
            const etl_mf_template *t = g_hash_table_lookup(templates, e->e.template_tid);
            if (t)
                e->e.tmpl = t;
        }
        if (e->e.message) {
            char *t = trimmed(resolve_string(st, e->e.message));
            e->e.message = t ? keep(st, t) : NULL;
            g_free(t);
        }
    }
    g_hash_table_destroy(templates);
    named_index_free(&tasks);
    named_index_free(&opcodes);
    named_index_free(&levels);
    named_index_free(&channels);
    named_index_free(&keywords);
}

/* Move a provider's growable arrays into the plain model (the arrays' memory is kept). */
static void seal_provider(provider_build *pb, etl_mf_provider *out)
{
    *out = pb->p;
    out->event_count = pb->events->len;
    out->events = g_new0(etl_mf_event, out->event_count ? out->event_count : 1);
    for (guint i = 0; i < pb->events->len; i++)
        out->events[i] = g_array_index(pb->events, event_build, i).e;
    g_array_free(pb->events, TRUE);
    out->template_count = pb->templates->len;
    /* g_array_free(.., FALSE) hands over the array's own memory, so the events' template
     * pointers stay valid */
    out->templates = (etl_mf_template *)(void *)g_array_free(pb->templates, FALSE);
    out->map_count = pb->maps->len;
    out->maps = (etl_mf_map *)(void *)g_array_free(pb->maps, FALSE);
#define SEAL(field, count)           \
    out->count = pb->field->len; \
    out->field = (etl_mf_named *)(void *)g_array_free(pb->field, FALSE)
    SEAL(tasks, task_count);
    SEAL(opcodes, opcode_count);
    SEAL(levels, level_count);
    SEAL(keywords, keyword_count);
    SEAL(channels, channel_count);
#undef SEAL
}

static void free_provider(etl_mf_provider *p)
{
    for (uint32_t i = 0; i < p->template_count; i++)
        g_free(p->templates[i].props);
    for (uint32_t i = 0; i < p->map_count; i++)
        g_free(p->maps[i].entries);
    g_free(p->events);
    g_free(p->templates);
    g_free(p->maps);
    g_free(p->tasks);
    g_free(p->opcodes);
    g_free(p->levels);
    g_free(p->keywords);
    g_free(p->channels);
}

static void free_build(provider_build *pb)
{
    if (pb->events) {
        for (guint i = 0; i < pb->templates->len; i++)
            g_free(g_array_index(pb->templates, etl_mf_template, i).props);
        for (guint i = 0; i < pb->maps->len; i++)
            g_free(g_array_index(pb->maps, etl_mf_map, i).entries);
        g_array_free(pb->events, TRUE);
        g_array_free(pb->templates, TRUE);
        g_array_free(pb->maps, TRUE);
        g_array_free(pb->tasks, TRUE);
        g_array_free(pb->opcodes, TRUE);
        g_array_free(pb->levels, TRUE);
        g_array_free(pb->keywords, TRUE);
        g_array_free(pb->channels, TRUE);
    }
}

/* ---- parse state ------------------------------------------------------------------------- */

static void state_init(parse_state *st, etl_manifest **m, const char *origin)
{
    *m = g_new0(etl_manifest, 1);
    (*m)->strings = g_string_chunk_new(4096);
    (*m)->providers = g_array_new(FALSE, TRUE, sizeof(etl_mf_provider));
    memset(st, 0, sizeof *st);
    st->m = *m;
    st->origin = origin;
    st->providers = g_array_new(FALSE, TRUE, sizeof(provider_build));
    st->strings_en = g_hash_table_new(g_str_hash, g_str_equal);
    st->strings_any = g_hash_table_new(g_str_hash, g_str_equal);
    st->temp = g_string_chunk_new(16384);
}

/* What a parse leaves half-built (a template's properties, a map's entries). */
static void state_release(parse_state *st)
{
    if (st->props) {
        g_array_free(st->props, TRUE);
        st->props = NULL;
    }
    if (st->map_entries) {
        g_array_free(st->map_entries, TRUE);
        st->map_entries = NULL;
    }
}

static void state_free(parse_state *st)
{
    g_array_free(st->providers, TRUE);
    g_hash_table_destroy(st->strings_en);
    g_hash_table_destroy(st->strings_any);
    g_string_chunk_free(st->temp);
    st->temp = NULL;
    if (st->ctx)
        g_markup_parse_context_free(st->ctx);
    st->ctx = NULL;
}

/* Everything of a parse that did not succeed, the manifest included. */
static void state_discard(parse_state *st, etl_manifest *m)
{
    state_release(st);
    for (guint i = 0; i < st->providers->len; i++)
        free_build(&g_array_index(st->providers, provider_build, i));
    state_free(st);
    etl_manifest_free(m);
}

/* ---- the fast reader ------------------------------------------------------------------------
 *
 * GMarkup spends ~90 instructions per byte of a manifest (2 MB of shared manifests: 175 M, more
 * than a tenth of decoding the net452 trace).  This reader reads the XML that manifests are -
 * elements, attributes with the five named entities, comments, <?...?>, text without entities -
 * calling on_start and on_end exactly as GMarkup would, with the same names, values (GMarkup's
 * attribute normalization: tab, newline and CR as a space, CR LF as one) and line.  Whatever else
 * it meets (a DOCTYPE, CDATA, a character reference, a name beyond plain ASCII, anything GMarkup
 * would refuse, invalid UTF-8, a callback's error), it stands back and GMarkup reads the
 * document afresh: results and messages stay GMarkup's. */

typedef struct fast_xml {
    const char *xml;
    size_t len;
    size_t at;      /* where GMarkup's iterator stands when it calls back */
    size_t counted; /* newlines of xml[1..counted) are in line */
    int line;
} fast_xml;

/* GMarkup counts a newline when its iterator steps onto it (never the first byte). */
static int fast_line(fast_xml *x)
{
    size_t end = x->at < x->len ? x->at + 1 : x->len;
    while (x->counted < end) {
        const char *nl = memchr(x->xml + x->counted, '\n', end - x->counted);
        if (!nl) {
            x->counted = end;
            break;
        }
        x->line++;
        x->counted = (size_t)(nl - x->xml) + 1;
    }
    return x->line;
}

static int state_line(parse_state *st)
{
    if (st->fast)
        return fast_line(st->fast);
    int line = 0, ch = 0;
    g_markup_parse_context_get_position(st->ctx, &line, &ch);
    return line;
}

/* Character classes, one table load per character (the reader's loops run over every byte). */
enum { FX_SPACE = 1, FX_NAME_START = 2, FX_NAME_CHAR = 4, FX_VALUE_SPECIAL = 8 };
#define FX_LETTERS(a, z) [a ... z] = FX_NAME_START | FX_NAME_CHAR
static const uint8_t fx_class[256] = {
    [' '] = FX_SPACE, ['\t'] = FX_SPACE | FX_VALUE_SPECIAL, ['\n'] = FX_SPACE | FX_VALUE_SPECIAL,
    ['\r'] = FX_SPACE | FX_VALUE_SPECIAL, ['&'] = FX_VALUE_SPECIAL,
    FX_LETTERS('A', 'Z'), FX_LETTERS('a', 'z'), ['_'] = FX_NAME_START | FX_NAME_CHAR,
    [':'] = FX_NAME_START | FX_NAME_CHAR, ['0' ... '9'] = FX_NAME_CHAR, ['.'] = FX_NAME_CHAR, ['-'] = FX_NAME_CHAR,
};
#undef FX_LETTERS

static inline bool fx_space(char c)
{
    return fx_class[(uint8_t)c] & FX_SPACE;
}

static inline bool fx_name_start(char c)
{
    return fx_class[(uint8_t)c] & FX_NAME_START;
}

static inline bool fx_name_char(char c)
{
    return fx_class[(uint8_t)c] & FX_NAME_CHAR;
}

/* The names and values of one tag, NUL-terminated one after the other (appended without
 * GString's per-call overhead: a tag's attributes are a few hundred appends per event). */
typedef struct fx_buf {
    char *p;
    size_t len, cap;
} fx_buf;

static void fx_grow(fx_buf *b, size_t n)
{
    while (b->cap - b->len < n)
        b->cap *= 2;
    b->p = g_realloc(b->p, b->cap);
}

static inline void fx_put(fx_buf *b, const char *s, size_t n)
{
    if (b->cap - b->len < n)
        fx_grow(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static inline void fx_putc(fx_buf *b, char c)
{
    if (b->cap == b->len)
        fx_grow(b, 1);
    b->p[b->len++] = c;
}

/* The end of a name starting at i (0 when there is none), in GMarkup's terms: plain ASCII name
 * characters up to a space, '=', '/' or '>'. */
static size_t fx_name(const char *xml, size_t len, size_t i)
{
    if (i >= len || !fx_name_start(xml[i]))
        return 0;
    while (i < len && fx_name_char(xml[i]))
        i++;
    if (i >= len || !(fx_space(xml[i]) || xml[i] == '=' || xml[i] == '/' || xml[i] == '>'))
        return 0;
    return i;
}

static size_t fx_skip_spaces(const char *xml, size_t len, size_t i)
{
    while (i < len && fx_space(xml[i]))
        i++;
    return i;
}

/* An attribute value as GMarkup hands it out, appended to buf with its NUL; false when it has
 * a character reference or an entity GMarkup would refuse. */
static bool fx_value(fx_buf *buf, const char *v, size_t n)
{
    size_t run = 0; /* bytes copied as they are, pending */
    for (size_t k = 0; k < n; k++) {
        char c = v[k];
        if (!(fx_class[(uint8_t)c] & FX_VALUE_SPECIAL)) {
            run++;
            continue;
        }
        fx_put(buf, v + k - run, run);
        run = 0;
        if (c != '&') {
            fx_putc(buf, ' ');
            if (c == '\r' && k + 1 < n && v[k + 1] == '\n')
                k++;
            continue;
        }
        static const struct {
            const char *name;
            size_t len;
            char c;
        } entities[] = {{"lt;", 3, '<'}, {"gt;", 3, '>'}, {"amp;", 4, '&'}, {"quot;", 5, '"'}, {"apos;", 5, '\''}};
        size_t e = 0;
        while (e < G_N_ELEMENTS(entities) &&
               !(n - k - 1 >= entities[e].len && memcmp(v + k + 1, entities[e].name, entities[e].len) == 0))
            e++;
        if (e == G_N_ELEMENTS(entities))
            return false;
        fx_putc(buf, entities[e].c);
        k += entities[e].len;
    }
    fx_put(buf, v + n - run, run);
    fx_putc(buf, '\0');
    return true;
}

enum { FX_MAX_DEPTH = 64, FX_MAX_NAME = 64, FX_MAX_ATTRS = 64 };

/* Plain ASCII without a NUL (what manifests are, mostly): 8 bytes per step; else GLib's check
 * of UTF-8 (which refuses a NUL as well). */
static bool fx_valid_text(const char *xml, size_t len)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, xml + i, 8);
        if ((w & 0x8080808080808080ULL) || ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL))
            return g_utf8_validate(xml, (gssize)len, NULL);
    }
    for (; i < len; i++)
        if (!xml[i] || (xml[i] & 0x80))
            return g_utf8_validate(xml, (gssize)len, NULL);
    return true;
}

/* True when the whole document was read and every callback succeeded. */
static bool fast_parse(parse_state *st, const char *xml, size_t len)
{
    if (!fx_valid_text(xml, len))
        return false;
    fast_xml x = {xml, len, 0, 1, 1};
    char (*names)[FX_MAX_NAME] = g_malloc((size_t)FX_MAX_DEPTH * FX_MAX_NAME);
    fx_buf buf = {g_malloc(512), 0, 512};
    size_t name_at[FX_MAX_ATTRS], value_at[FX_MAX_ATTRS];
    const char *an[FX_MAX_ATTRS + 1], *av[FX_MAX_ATTRS + 1];
    GError *ge = NULL;
    int depth = 0;
    bool any = false, ok = false;
    st->fast = &x;
    size_t i = 0;
    for (;;) {
        if (depth == 0) {
            i = fx_skip_spaces(xml, len, i);
            if (i >= len)
                break;
            if (xml[i] != '<')
                goto out;
        } else {
            const char *lt = memchr(xml + i, '<', len - i);
            if (!lt || memchr(xml + i, '&', (size_t)(lt - xml) - i))
                goto out; /* the end inside an element, or text with an entity */
            i = (size_t)(lt - xml);
        }
        i++; /* past '<' */
        if (i >= len)
            goto out;
        if (xml[i] == '?' || xml[i] == '!') {
            /* <?...?> ends at the first "?>" (its '?' may be the opening one), <!--...--> at
             * the first "-->" (its dashes may be the opening ones) */
            const char *end = NULL;
            if (xml[i] == '?')
                end = g_strstr_len(xml + i, (gssize)(len - i), "?>");
            else if (len - i >= 3 && memcmp(xml + i, "!--", 3) == 0)
                end = g_strstr_len(xml + i + 1, (gssize)(len - i - 1), "-->");
            if (!end)
                goto out;
            i = (size_t)(end - xml) + (xml[i] == '?' ? 2 : 3);
            continue;
        }
        if (xml[i] == '/') { /* a close tag */
            size_t e = fx_name(xml, len, i + 1);
            if (!e || depth == 0)
                goto out;
            size_t n = e - (i + 1);
            if (n >= FX_MAX_NAME || memcmp(names[depth - 1], xml + i + 1, n) != 0 || names[depth - 1][n])
                goto out;
            i = fx_skip_spaces(xml, len, e);
            if (i >= len || xml[i] != '>')
                goto out;
            x.at = ++i;
            on_end(NULL, names[depth - 1], st, &ge);
            depth--;
            if (ge)
                goto out;
            continue;
        }
        /* a start tag */
        size_t e = fx_name(xml, len, i);
        if (!e || e - i >= FX_MAX_NAME || depth >= FX_MAX_DEPTH)
            goto out;
        memcpy(names[depth], xml + i, e - i);
        names[depth][e - i] = '\0';
        any = true;
        i = e;
        buf.len = 0;
        size_t na = 0;
        bool empty;
        for (;;) {
            i = fx_skip_spaces(xml, len, i);
            if (i >= len)
                goto out;
            if (xml[i] == '/') {
                if (i + 1 >= len || xml[i + 1] != '>')
                    goto out;
                x.at = ++i; /* GMarkup calls back with its iterator on the '>' */
                empty = true;
                break;
            }
            if (xml[i] == '>') {
                x.at = ++i;
                empty = false;
                break;
            }
            size_t ne = fx_name(xml, len, i);
            if (!ne || na >= FX_MAX_ATTRS)
                goto out;
            name_at[na] = buf.len;
            fx_put(&buf, xml + i, ne - i);
            fx_putc(&buf, '\0');
            i = fx_skip_spaces(xml, len, ne);
            if (i >= len || xml[i] != '=')
                goto out;
            i = fx_skip_spaces(xml, len, i + 1);
            if (i >= len || (xml[i] != '"' && xml[i] != '\''))
                goto out;
            const char *q = memchr(xml + i + 1, xml[i], len - i - 1);
            if (!q)
                goto out;
            value_at[na] = buf.len;
            if (!fx_value(&buf, xml + i + 1, (size_t)(q - xml) - i - 1))
                goto out;
            na++;
            i = (size_t)(q - xml) + 1;
        }
        for (size_t k = 0; k < na; k++) {
            an[k] = buf.p + name_at[k];
            av[k] = buf.p + value_at[k];
        }
        an[na] = av[na] = NULL;
        on_start(NULL, names[depth], an, av, st, &ge);
        if (ge)
            goto out;
        if (empty) {
            x.at = ++i; /* past the '>' */
            on_end(NULL, names[depth], st, &ge);
            if (ge)
                goto out;
        } else {
            depth++;
        }
    }
    ok = depth == 0 && any;
out:
    if (ge)
        g_error_free(ge);
    g_free(buf.p);
    g_free(names);
    st->fast = NULL;
    return ok;
}

/* ---- entry points ----------------------------------------------------------------------- */

static etl_status parse(const char *xml, size_t len, const char *origin, bool try_fast, etl_manifest **out,
                        etl_error *err);

etl_status etl_manifest_parse(const char *xml, size_t len, const char *origin, etl_manifest **out, etl_error *err)
{
    return parse(xml, len, origin, true, out, err);
}

etl_status etl_manifest_parse_gmarkup(const char *xml, size_t len, const char *origin, etl_manifest **out,
                                      etl_error *err)
{
    return parse(xml, len, origin, false, out, err);
}

static etl_status parse(const char *xml, size_t len, const char *origin, bool try_fast, etl_manifest **out,
                        etl_error *err)
{
    *out = NULL;
    if (!xml)
        return etl_fail(err, ETL_ERR_ARG, 0, "NULL argument");
    if (!origin)
        origin = "(manifest)";
    if (len > ETL_MF_MAX_FILE_SIZE)
        return etl_fail(err, ETL_ERR_LIMIT, 0, "%s: %zu bytes is more than a manifest may be (%u)", origin, len,
                        ETL_MF_MAX_FILE_SIZE);
    char *converted = NULL;
    if (len >= 2 && (((uint8_t)xml[0] == 0xFF && (uint8_t)xml[1] == 0xFE) ||
                     ((uint8_t)xml[0] == 0xFE && (uint8_t)xml[1] == 0xFF))) {
        gsize n = 0;
        GError *ge = NULL;
        converted = g_convert(xml + 2, (gssize)(len - 2), "UTF-8", (uint8_t)xml[0] == 0xFF ? "UTF-16LE" : "UTF-16BE",
                              NULL, &n, &ge);
        if (!converted) {
            etl_status s = etl_fail(err, ETL_ERR_CORRUPT, 0, "%s: not valid UTF-16: %s", origin, ge->message);
            g_error_free(ge);
            return s;
        }
        xml = converted;
        len = n;
    } else if (len >= 3 && (uint8_t)xml[0] == 0xEF && (uint8_t)xml[1] == 0xBB && (uint8_t)xml[2] == 0xBF) {
        xml += 3;
        len -= 3;
    }
    /* The <?xml ...?> declaration goes to GMarkup's passthrough handler, which is unset.  The
     * fast reader goes first; where it stands back, GMarkup reads the document afresh. */
    etl_manifest *m = NULL;
    parse_state st;
    state_init(&st, &m, origin);
    bool fast = try_fast && fast_parse(&st, xml, len);
    if (!fast) {
        state_discard(&st, m);
        state_init(&st, &m, origin);
    }
    static const GMarkupParser parser = {on_start, on_end, NULL, NULL, NULL};
    etl_status status = ETL_OK;
    if (!fast) {
        st.ctx = g_markup_parse_context_new(&parser, 0, &st, NULL);
        GError *ge = NULL;
        gboolean ok = g_markup_parse_context_parse(st.ctx, xml, (gssize)len, &ge) &&
                      g_markup_parse_context_end_parse(st.ctx, &ge);
        if (!ok) {
            int line = 0, ch = 0;
            g_markup_parse_context_get_position(st.ctx, &line, &ch);
            if (ge && ge->domain == MF_ERROR) {
                if (ch <= 1 && line > 1)
                    line--;
                status = etl_fail(err, ETL_ERR_CORRUPT, 0, "%s:%d: %s", origin, line, ge->message);
            } else {
                /* GMarkup's own messages start "Error on line N char M: ", which the
                 * origin:line:char prefix already says */
                const char *msg = ge ? ge->message : "parse error";
                const char *colon = strncmp(msg, "Error on line ", 14) == 0 ? strstr(msg, ": ") : NULL;
                status = etl_fail(err, ETL_ERR_CORRUPT, 0, "%s:%d:%d: %s", origin, line, ch, colon ? colon + 2 : msg);
            }
            if (ge)
                g_error_free(ge);
        }
    }
    if (status == ETL_OK && st.providers->len == 0)
        status = etl_fail(err, ETL_ERR_NOT_FOUND, 0, "%s: no <provider> in this manifest", origin);
    if (status != ETL_OK) {
        state_discard(&st, m);
        g_free(converted);
        return status;
    }
    state_release(&st);
    for (guint i = 0; i < st.providers->len; i++) {
        provider_build *pb = &g_array_index(st.providers, provider_build, i);
        finish_provider(&st, pb);
        etl_mf_provider sealed;
        seal_provider(pb, &sealed);
        g_array_append_val(m->providers, sealed);
    }
    state_free(&st);
    g_free(converted);
    *out = m;
    return ETL_OK;
}

etl_status etl_manifest_load_file(const char *path, etl_manifest **out, etl_error *err)
{
    gchar *data = NULL;
    gsize len = 0;
    GError *ge = NULL;
    *out = NULL;
    if (!g_file_get_contents(path, &data, &len, &ge)) {
        etl_status s = etl_fail(err, ETL_ERR_IO, 0, "%s: %s", path, ge->message);
        g_error_free(ge);
        return s;
    }
    etl_status s = etl_manifest_parse(data, len, path, out, err);
    g_free(data);
    return s;
}

void etl_manifest_free(etl_manifest *m)
{
    if (!m)
        return;
    for (guint i = 0; i < m->providers->len; i++)
        free_provider(&g_array_index(m->providers, etl_mf_provider, i));
    g_array_free(m->providers, TRUE);
    g_string_chunk_free(m->strings);
    g_free(m);
}

uint32_t etl_manifest_provider_count(const etl_manifest *m)
{
    return m ? m->providers->len : 0;
}

const etl_mf_provider *etl_manifest_provider(const etl_manifest *m, uint32_t i)
{
    return m && i < m->providers->len ? &g_array_index(m->providers, etl_mf_provider, i) : NULL;
}

const etl_mf_event *etl_mf_find_event(const etl_mf_provider *p, uint16_t id, uint8_t version)
{
    for (uint32_t i = 0; p && i < p->event_count; i++)
        if (p->events[i].id == id && p->events[i].version == version)
            return &p->events[i];
    return NULL;
}

const etl_mf_map *etl_mf_find_map(const etl_mf_provider *p, const char *name)
{
    for (uint32_t i = 0; p && name && i < p->map_count; i++)
        if (p->maps[i].name && streq(p->maps[i].name, name))
            return &p->maps[i];
    return NULL;
}
