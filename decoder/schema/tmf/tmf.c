/* tmf.c - the TMF reader and store (tmf.h).
 *
 * Written by hand: TMF is a line format of Microsoft's WPP tools with no published grammar and
 * no library off Windows; the grammar below is what tracepdb writes (etw-formats.md 9.3, and
 * the 90 files in ../shared/tmf).  A file is parsed into a scratch list first and merged into
 * the store only when the whole file parsed, so a bad file changes nothing. */
#include "tmf.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "etl_format.h"
#include "search_path.h"

struct etl_tmf_store {
    etl_tmf_report_fn report;
    void *report_ctx;
    GStringChunk *strings;     /* every string of every message */
    GPtrArray *sections;       /* etl_tmf_guid *, owned */
    GPtrArray *messages;       /* etl_tmf_message *, owned, load order */
    GHashTable *by_key;        /* (guid, number) key -> etl_tmf_message * */
    GHashTable *by_guid;       /* guid bytes -> etl_tmf_guid * (the first section of a GUID) */
    etl_tmf_stats stats;
};

/* ---- keys ----------------------------------------------------------------------------------- */

typedef struct msg_key {
    etl_guid guid;
    uint16_t number;
} msg_key;

static guint guid_hash(const etl_guid *g)
{
    guint h = g->data1 ^ ((guint)g->data2 << 16 | g->data3);
    for (int i = 0; i < 8; i++)
        h = h * 31u + g->data4[i];
    return h;
}

static guint key_hash(gconstpointer p)
{
    const msg_key *k = p;
    return guid_hash(&k->guid) * 65599u + k->number;
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
    const msg_key *x = a, *y = b;
    return x->number == y->number && etl_guid_equal(&x->guid, &y->guid);
}

static guint gkey_hash(gconstpointer p)
{
    return guid_hash(p);
}

static gboolean gkey_equal(gconstpointer a, gconstpointer b)
{
    return etl_guid_equal(a, b);
}

/* ---- the store ------------------------------------------------------------------------------ */

etl_tmf_store *etl_tmf_store_new(etl_tmf_report_fn report, void *ctx)
{
    etl_tmf_store *s = g_new0(etl_tmf_store, 1);
    s->report = report;
    s->report_ctx = ctx;
    s->strings = g_string_chunk_new(16384);
    s->sections = g_ptr_array_new_with_free_func(g_free);
    s->messages = g_ptr_array_new();
    s->by_key = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
    s->by_guid = g_hash_table_new(gkey_hash, gkey_equal);
    return s;
}

static void free_message(etl_tmf_message *m)
{
    g_free((void *)m->items);
    g_free(m);
}

void etl_tmf_store_free(etl_tmf_store *s)
{
    if (!s)
        return;
    for (guint i = 0; i < s->messages->len; i++) {
        etl_tmf_message *m = s->messages->pdata[i];
        for (uint16_t k = 0; k < m->item_count; k++)
            g_free((void *)m->items[k].list);
        free_message(m);
    }
    g_ptr_array_free(s->messages, TRUE);
    g_ptr_array_free(s->sections, TRUE);
    g_hash_table_destroy(s->by_key);
    g_hash_table_destroy(s->by_guid);
    g_string_chunk_free(s->strings);
    g_free(s);
}

static void report(etl_tmf_store *s, bool warning, const char *message)
{
    if (warning)
        s->stats.warnings++;
    if (s->report)
        s->report(s->report_ctx, warning, message);
}

etl_tmf_message *etl_tmf_find(const etl_tmf_store *s, const etl_guid *guid, uint16_t number)
{
    if (!s || !guid)
        return NULL;
    msg_key k = {*guid, number};
    return g_hash_table_lookup(s->by_key, &k);
}

const etl_tmf_guid *etl_tmf_find_guid(const etl_tmf_store *s, const etl_guid *guid)
{
    return s && guid ? g_hash_table_lookup(s->by_guid, guid) : NULL;
}

void etl_tmf_foreach(const etl_tmf_store *s, etl_tmf_message_fn fn, void *ctx)
{
    if (!s)
        return;
    for (guint i = 0; i < s->messages->len; i++)
        fn(ctx, s->messages->pdata[i]);
}

const etl_tmf_stats *etl_tmf_get_stats(const etl_tmf_store *s)
{
    return &s->stats;
}

/* ---- Item types ----------------------------------------------------------------------------- */

/* tracefmt's Item types as far as the format doc (9.3) and the shared files show them, and the
 * rest of the list WPP's defaultwpp.ini defines with a plain wire form. */
static const struct {
    const char *name;
    etl_tmf_kind kind;
} item_kinds[] = {
    {"ItemChar", ETL_TMF_INT8},          {"ItemUChar", ETL_TMF_UINT8},
    {"ItemCharSign", ETL_TMF_INT8},      {"ItemCharHex", ETL_TMF_UINT8},
    {"ItemShort", ETL_TMF_INT16},        {"ItemUShort", ETL_TMF_UINT16},
    {"ItemShortSign", ETL_TMF_INT16},    {"ItemShortHex", ETL_TMF_UINT16},
    {"ItemLong", ETL_TMF_INT32},         {"ItemULong", ETL_TMF_UINT32},
    {"ItemLongSign", ETL_TMF_INT32},     {"ItemULongX", ETL_TMF_HEX32},
    {"ItemLongX", ETL_TMF_HEX32},        {"ItemLongHex", ETL_TMF_HEX32},
    {"ItemLongLong", ETL_TMF_INT64},     {"ItemULongLong", ETL_TMF_UINT64},
    {"ItemLongLongX", ETL_TMF_HEX64},    {"ItemLongLongXX", ETL_TMF_HEX64},
    {"ItemULongLongX", ETL_TMF_HEX64},   {"ItemLongLongO", ETL_TMF_INT64},
    {"ItemPtr", ETL_TMF_POINTER},        {"ItemDouble", ETL_TMF_DOUBLE},
    {"ItemGuid", ETL_TMF_GUID},          {"ItemNTSTATUS", ETL_TMF_NTSTATUS},
    {"ItemWINERROR", ETL_TMF_WINERROR},  {"ItemHRESULT", ETL_TMF_HRESULT},
    {"ItemString", ETL_TMF_STRING},      {"ItemRString", ETL_TMF_STRING},
    {"ItemWString", ETL_TMF_WSTRING},    {"ItemRWString", ETL_TMF_WSTRING},
    {"ItemPString", ETL_TMF_PSTRING},    {"ItemPWString", ETL_TMF_PWSTRING},
    {"ItemSid", ETL_TMF_SID},            {"ItemHEXDump", ETL_TMF_HEXDUMP},
    {"ItemHexDump", ETL_TMF_HEXDUMP},    {"ItemIPAddr", ETL_TMF_IPV4},
    {"ItemIPV6Addr", ETL_TMF_IPV6},      {"ItemPort", ETL_TMF_PORT},
    {"ItemTimestamp", ETL_TMF_TIMESTAMP}, {"ItemListByte", ETL_TMF_LIST8},
    {"ItemListShort", ETL_TMF_LIST16},   {"ItemListLong", ETL_TMF_LIST32},
    {"ItemSetByte", ETL_TMF_SET8},       {"ItemSetShort", ETL_TMF_SET16},
    {"ItemSetLong", ETL_TMF_SET32},      {"ItemEnum", ETL_TMF_ENUM},
};

etl_tmf_kind etl_tmf_kind_of(const char *type, size_t len)
{
    for (size_t i = 0; i < G_N_ELEMENTS(item_kinds); i++)
        if (strlen(item_kinds[i].name) == len && memcmp(item_kinds[i].name, type, len) == 0)
            return item_kinds[i].kind;
    return ETL_TMF_UNKNOWN;
}

static bool is_list_kind(etl_tmf_kind k)
{
    return k >= ETL_TMF_LIST8 && k <= ETL_TMF_SET32;
}

/* ---- the parser ----------------------------------------------------------------------------- */

/* A file being parsed: its messages and sections stay here until the file is known good. */
typedef struct parse {
    etl_tmf_store *s;
    const char *origin;
    uint32_t line;            /* 1-based */
    size_t line_off;          /* byte offset of the line */
    etl_error *err;
    GPtrArray *sections;      /* etl_tmf_guid * */
    GPtrArray *messages;      /* etl_tmf_message * */
    etl_tmf_guid *section;    /* the current one */
    etl_tmf_message *open;    /* a #typev whose argument block is being read */
    enum { EXPECT_ANY, EXPECT_BRACE, IN_BLOCK } state;
    GArray *items;            /* etl_tmf_item, of `open` */
    GPtrArray *warnings;      /* char *, reported only when the file is taken */
} parse;

static bool fail(parse *p, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static bool fail(parse *p, const char *fmt, ...)
{
    char reason[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    p->err->code = ETL_ERR_CORRUPT;
    p->err->offset = p->line_off;
    snprintf(p->err->message, sizeof p->err->message, "%s:%u: %s", p->origin, p->line, reason);
    return false;
}

static void warn(parse *p, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void warn(parse *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *reason = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_ptr_array_add(p->warnings, g_strdup_printf("%s:%u: %s", p->origin, p->line, reason));
    g_free(reason);
}

static const char *keep(parse *p, const char *s, size_t n)
{
    return g_string_chunk_insert_len(p->s->strings, s, (gssize)n);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static void trim(const char **b, const char **e)
{
    while (*b < *e && is_space(**b))
        (*b)++;
    while (*e > *b && is_space((*e)[-1]))
        (*e)--;
}

static bool starts(const char *b, const char *e, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(e - b) >= n && memcmp(b, word, n) == 0;
}

/* A decimal number of at most `max`; *b moves past it. */
static bool number(const char **b, const char *e, uint32_t max, uint32_t *out)
{
    uint64_t v = 0;
    const char *q = *b;
    while (q < e && *q >= '0' && *q <= '9') {
        v = v * 10 + (uint64_t)(*q - '0');
        if (v > max)
            return false;
        q++;
    }
    if (q == *b)
        return false;
    *out = (uint32_t)v;
    *b = q;
    return true;
}

/* "<GUID> <component> // SRC=<file> ..." */
static bool guid_line(parse *p, const char *b, const char *e, const etl_guid *g)
{
    const char *q = b + 36;
    while (q < e && is_space(*q))
        q++;
    const char *c = q;
    while (q < e && !is_space(*q))
        q++;
    if (q == c)
        return fail(p, "message GUID without a component name");
    etl_tmf_guid *sec = g_new0(etl_tmf_guid, 1);
    sec->guid = *g;
    sec->component = keep(p, c, (size_t)(q - c));
    sec->origin = keep(p, p->origin, strlen(p->origin));
    const char *src = g_strstr_len(q, e - q, "SRC=");
    if (src) {
        src += 4;
        const char *se = src;
        while (se < e && !is_space(*se))
            se++;
        if (se > src)
            sec->src = keep(p, src, (size_t)(se - src));
    }
    g_ptr_array_add(p->sections, sec);
    p->section = sec;
    return true;
}

/* The tags after "//" on a #typev line: KEY=VALUE words. */
static void typev_tags(parse *p, etl_tmf_message *m, const char *b, const char *e)
{
    while (b < e) {
        while (b < e && is_space(*b))
            b++;
        const char *w = b;
        while (b < e && !is_space(*b))
            b++;
        const char *eq = memchr(w, '=', (size_t)(b - w));
        if (!eq || eq == w)
            continue;
        size_t kn = (size_t)(eq - w);
        const char *v = eq + 1;
        const char *val = v < b ? keep(p, v, (size_t)(b - v)) : NULL;
        if (kn == 5 && memcmp(w, "LEVEL", 5) == 0)
            m->level = val;
        else if (kn == 5 && memcmp(w, "FLAGS", 5) == 0)
            m->flags = val;
        else if (kn == 4 && memcmp(w, "FUNC", 4) == 0)
            m->func = val;
        /* other tags (tracepdb writes none in the files we have) are kept in the text only */
    }
}

/* "#typev <name> <number> "<format>" // <tags>" */
static bool typev_line(parse *p, const char *b, const char *e)
{
    if (!p->section)
        return fail(p, "#typev before any message GUID line");
    if (p->messages->len >= ETL_TMF_MAX_MESSAGES)
        return fail(p, "more than %u messages in one file", ETL_TMF_MAX_MESSAGES);
    const char *q = b + 6;
    while (q < e && is_space(*q))
        q++;
    const char *name = q;
    while (q < e && !is_space(*q))
        q++;
    if (q == name)
        return fail(p, "#typev without a message name");
    const char *name_end = q;
    while (q < e && is_space(*q))
        q++;
    uint32_t num;
    if (!number(&q, e, 0xFFFF, &num))
        return fail(p, "#typev %.*s: no message number (0-65535)", (int)(name_end - name), name);
    while (q < e && is_space(*q))
        q++;
    if (q >= e || *q != '"')
        return fail(p, "#typev %.*s: no quoted format string", (int)(name_end - name), name);
    const char *fmt = q + 1;
    /* the format ends at the last quote before the tags' "//" (a format may hold quotes) */
    const char *tags = NULL;
    for (const char *t = e - 1; t >= fmt; t--) /* t == fmt: an empty format "" */
        if (t[0] == '"') {
            tags = t + 1;
            break;
        }
    if (!tags)
        return fail(p, "#typev %.*s: format string without its closing quote", (int)(name_end - name), name);
    etl_tmf_message *m = g_new0(etl_tmf_message, 1);
    m->guid = p->section->guid;
    m->number = (uint16_t)num;
    m->section = p->section;
    m->type_name = keep(p, name, (size_t)(name_end - name));
    const char *d = name_end;
    while (d > name && d[-1] >= '0' && d[-1] <= '9')
        d--;
    uint32_t line = 0;
    if (d < name_end && number(&d, name_end, UINT32_MAX / 10, &line))
        m->source_line = line;
    m->format = keep(p, fmt, (size_t)(tags - 1 - fmt));
    m->tmf_line = p->line;
    while (tags < e && is_space(*tags))
        tags++;
    if (starts(tags, e, "//"))
        typev_tags(p, m, tags + 2, e);
    p->open = m;
    p->state = EXPECT_BRACE;
    g_array_set_size(p->items, 0);
    return true;
}

/* "<expression>, <ItemType>[(a,b,...)] -- <n>" */
static bool item_line(parse *p, const char *b, const char *e)
{
    if (p->items->len >= ETL_TMF_MAX_ITEMS)
        return fail(p, "more than %u arguments in one message", ETL_TMF_MAX_ITEMS);
    const char *dash = NULL;
    for (const char *t = e - 2; t >= b; t--)
        if (t[0] == '-' && t[1] == '-') {
            dash = t;
            break;
        }
    if (!dash)
        return fail(p, "argument line without '-- <number>'");
    const char *n = dash + 2;
    while (n < e && is_space(*n))
        n++;
    uint32_t argno;
    if (!number(&n, e, 0xFFFF, &argno) || n != e)
        return fail(p, "argument line: '--' not followed by an argument number");
    const char *te = dash;
    while (te > b && is_space(te[-1]))
        te--;
    /* the type is the last comma-separated part: past a "(...)" list when there is one */
    const char *ts = te;
    const char *list_b = NULL, *list_e = NULL;
    if (ts > b && ts[-1] == ')') {
        list_e = ts - 1;
        const char *o = list_e;
        while (o > b && o[-1] != '(')
            o--;
        if (o == b)
            return fail(p, "argument type list without its '('");
        list_b = o;
        ts = o - 1;
    }
    const char *type_end = ts;
    while (ts > b && (g_ascii_isalnum(ts[-1]) || ts[-1] == '_'))
        ts--;
    if (ts == type_end)
        return fail(p, "argument line without an Item type");
    const char *c = ts;
    while (c > b && is_space(c[-1]))
        c--;
    if (c == b || c[-1] != ',')
        return fail(p, "argument line: no ',' between the expression and the Item type");
    const char *xe = c - 1, *xb = b;
    trim(&xb, &xe);
    etl_tmf_item it = {0};
    it.expr = keep(p, xb, (size_t)(xe - xb));
    it.type = keep(p, ts, (size_t)(te - ts));
    it.kind = etl_tmf_kind_of(ts, (size_t)(type_end - ts));
    it.argno = (uint16_t)argno;
    if (it.kind == ETL_TMF_UNKNOWN)
        warn(p, "argument %u (%s): Item type %.*s is not known; its message decodes up to it", argno, it.expr,
             (int)(type_end - ts), ts);
    if (list_b && is_list_kind(it.kind)) {
        GPtrArray *names = g_ptr_array_new();
        const char *q = list_b;
        while (q <= list_e) {
            const char *w = q;
            while (q < list_e && *q != ',')
                q++;
            const char *wb = w, *we = q;
            trim(&wb, &we);
            if (names->len >= ETL_TMF_MAX_LIST) {
                g_ptr_array_free(names, TRUE);
                return fail(p, "argument %u: more than %u list names", argno, ETL_TMF_MAX_LIST);
            }
            g_ptr_array_add(names, (gpointer)keep(p, wb, (size_t)(we - wb)));
            q++;
        }
        it.list_count = (uint16_t)names->len;
        it.list = (const char **)g_ptr_array_free(names, FALSE);
    } else if (!list_b && is_list_kind(it.kind)) {
        warn(p, "argument %u (%s): %s without its list of names", argno, it.expr, it.type);
    }
    g_array_append_val(p->items, it);
    return true;
}

static void free_scratch_message(etl_tmf_message *m)
{
    for (uint16_t k = 0; k < m->item_count; k++)
        g_free((void *)m->items[k].list);
    free_message(m);
}

/* "}": the open message is complete. */
static void close_block(parse *p)
{
    etl_tmf_message *m = p->open;
    m->item_count = (uint16_t)p->items->len;
    m->items = g_memdup2(p->items->data, p->items->len * sizeof(etl_tmf_item));
    g_array_set_size(p->items, 0); /* the lists are the message's now */
    g_ptr_array_add(p->messages, m);
    p->open = NULL;
    p->state = EXPECT_ANY;
}

static bool parse_line(parse *p, const char *b, const char *e)
{
    trim(&b, &e);
    if (p->state == EXPECT_BRACE) {
        if (b == e)
            return true;
        if (e - b != 1 || *b != '{')
            return fail(p, "#typev %s: '{' expected for its argument block", p->open->type_name);
        p->state = IN_BLOCK;
        return true;
    }
    if (p->state == IN_BLOCK) {
        if (b == e)
            return true;
        if (e - b == 1 && *b == '}') {
            close_block(p);
            return true;
        }
        return item_line(p, b, e);
    }
    if (b == e || starts(b, e, "//"))
        return true;
    if (starts(b, e, "#typev"))
        return typev_line(p, b, e);
    etl_guid g;
    char gs[37];
    if (e - b >= 36) {
        memcpy(gs, b, 36);
        gs[36] = '\0';
        if (etl_parse_guid(gs, &g) && (e - b == 36 || is_space(b[36])))
            return guid_line(p, b, e, &g);
    }
    if (*b == '#') {
        /* another directive (#typed, #enumv ...): not written by the tracepdb we know */
        const char *w = b;
        while (w < e && !is_space(*w))
            w++;
        return fail(p, "unknown directive %.*s", (int)(w - b), b);
    }
    return fail(p, "line is neither a comment, a message GUID line nor a #typev line");
}

static bool same_items(const etl_tmf_message *a, const etl_tmf_message *b)
{
    if (a->item_count != b->item_count || strcmp(a->format, b->format) != 0)
        return false;
    for (uint16_t i = 0; i < a->item_count; i++)
        if (a->items[i].argno != b->items[i].argno || strcmp(a->items[i].type, b->items[i].type) != 0)
            return false;
    return true;
}

/* The file parsed: its sections and messages join the store. */
static void take(parse *p)
{
    etl_tmf_store *s = p->s;
    for (guint i = 0; i < p->sections->len; i++) {
        etl_tmf_guid *sec = p->sections->pdata[i];
        g_ptr_array_add(s->sections, sec);
        if (!g_hash_table_contains(s->by_guid, &sec->guid)) {
            g_hash_table_insert(s->by_guid, &sec->guid, sec);
            s->stats.guids++;
        }
    }
    g_ptr_array_set_free_func(p->sections, NULL);
    for (guint i = 0; i < p->warnings->len; i++)
        report(s, true, p->warnings->pdata[i]);
    for (guint i = 0; i < p->messages->len; i++) {
        etl_tmf_message *m = p->messages->pdata[i];
        msg_key k = {m->guid, m->number};
        etl_tmf_message *old = g_hash_table_lookup(s->by_key, &k);
        if (old) {
            /* tracepdb repeats a message in its file (once per use of the trace macro in an
             * inlined function): the same definition again is no news */
            if (!same_items(old, m)) {
                char *text = g_strdup_printf("%s:%u: message %u of %s is defined differently on line %u of %s; "
                                             "that one is used", p->origin, m->tmf_line, m->number,
                                             m->section->component, old->tmf_line, old->section->origin);
                report(s, true, text);
                g_free(text);
            }
            free_scratch_message(m);
            continue;
        }
        ((etl_tmf_guid *)m->section)->messages++;
        g_ptr_array_add(s->messages, m);
        msg_key *nk = g_new(msg_key, 1);
        *nk = k;
        g_hash_table_insert(s->by_key, nk, m);
        s->stats.messages++;
    }
    g_ptr_array_set_size(p->messages, 0);
}

etl_status etl_tmf_add_text(etl_tmf_store *s, const char *text, size_t len, const char *origin, etl_error *err)
{
    etl_error local;
    if (!err)
        err = &local;
    err->code = ETL_OK;
    err->offset = 0;
    err->message[0] = '\0';
    if (!s || (!text && len))
        return ETL_ERR_ARG;
    if (!origin)
        origin = "TMF text";
    parse p = {0};
    p.s = s;
    p.origin = origin;
    p.err = err;
    p.sections = g_ptr_array_new_with_free_func(g_free);
    p.messages = g_ptr_array_new();
    p.items = g_array_new(FALSE, FALSE, sizeof(etl_tmf_item));
    p.warnings = g_ptr_array_new_with_free_func(g_free);
    bool ok = true;
    size_t pos = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        pos = 3;
    if (len > ETL_TMF_MAX_FILE_SIZE) {
        p.line = 0;
        ok = fail(&p, "larger than %u bytes", ETL_TMF_MAX_FILE_SIZE);
    }
    while (ok && pos < len) {
        const char *b = text + pos;
        const char *nl = memchr(b, '\n', len - pos);
        const char *e = nl ? nl : text + len;
        p.line++;
        p.line_off = pos;
        if ((size_t)(e - b) > ETL_TMF_MAX_LINE) {
            ok = fail(&p, "line longer than %u bytes", ETL_TMF_MAX_LINE);
            break;
        }
        if (memchr(b, '\0', (size_t)(e - b))) {
            ok = fail(&p, "NUL byte in the text (not a TMF, or UTF-16: TMFs are 8-bit text)");
            break;
        }
        ok = parse_line(&p, b, e);
        pos = (size_t)(e - text) + 1;
    }
    if (ok && p.state != EXPECT_ANY) {
        p.line_off = len;
        ok = fail(&p, "#typev %s: the file ends inside its argument block", p.open->type_name);
    }
    if (ok && p.sections->len == 0)
        ok = fail(&p, "no message GUID line: not a TMF");
    if (ok)
        take(&p);
    if (p.open) {
        g_free(p.open);
        p.open = NULL;
    }
    for (guint i = 0; i < p.items->len; i++)
        g_free((void *)g_array_index(p.items, etl_tmf_item, i).list);
    if (!ok)
        for (guint i = 0; i < p.messages->len; i++)
            free_scratch_message(p.messages->pdata[i]);
    g_array_free(p.items, TRUE);
    g_ptr_array_free(p.messages, TRUE);
    g_ptr_array_free(p.sections, TRUE);
    g_ptr_array_free(p.warnings, TRUE);
    if (ok) {
        s->stats.files_loaded++;
        return ETL_OK;
    }
    s->stats.files_failed++;
    return err->code;
}

etl_status etl_tmf_add_file(etl_tmf_store *s, const char *path, etl_error *err)
{
    etl_error local;
    if (!err)
        err = &local;
    if (!s || !path)
        return ETL_ERR_ARG;
    gchar *text = NULL;
    gsize len = 0;
    GError *ge = NULL;
    GStatBuf st;
    if (g_stat(path, &st) == 0 && (guint64)st.st_size > ETL_TMF_MAX_FILE_SIZE) {
        err->code = ETL_ERR_LIMIT;
        err->offset = 0;
        snprintf(err->message, sizeof err->message, "%s: larger than %u bytes: not read", path, ETL_TMF_MAX_FILE_SIZE);
        s->stats.files_failed++;
        return err->code;
    }
    if (!g_file_get_contents(path, &text, &len, &ge)) {
        err->code = ETL_ERR_IO;
        err->offset = 0;
        snprintf(err->message, sizeof err->message, "%s: %s", path, ge->message);
        g_error_free(ge);
        s->stats.files_failed++;
        return err->code;
    }
    etl_status r = etl_tmf_add_text(s, text, len, path, err);
    g_free(text);
    return r;
}

static bool tmf_name(const char *n)
{
    size_t k = strlen(n);
    return k > 4 && g_ascii_strcasecmp(n + k - 4, ".tmf") == 0;
}

/* Files of one folder taken (named limit: a folder of more is cut, with a report). */
#define ETL_TMF_MAX_FOLDER_FILES 65536u
/* Entries of one search path. */
#define ETL_TMF_MAX_PATH_ENTRIES 256u

/* One file of the search path (search_path.h): loaded, or reported. */
static etl_status add_path_file(void *ctx, const char *path)
{
    etl_tmf_store *s = ctx;
    etl_error err;
    etl_status st = etl_tmf_add_file(s, path, &err);
    if (st != ETL_OK)
        report(s, false, err.message);
    return st;
}

static void path_problem(void *ctx, bool failed, const char *message)
{
    etl_tmf_store *s = ctx;
    report(s, false, message);
    if (failed)
        s->stats.files_failed++;
}

etl_status etl_tmf_add_path(etl_tmf_store *s, const char *list)
{
    if (!s || !list)
        return ETL_ERR_ARG;
    const etl_search_path p = {.what = "TMF", .files = "TMF files", .wanted = tmf_name,
                               .max_entries = ETL_TMF_MAX_PATH_ENTRIES, .max_files = ETL_TMF_MAX_FOLDER_FILES,
                               .file = add_path_file, .problem = path_problem, .ctx = s};
    return etl_search_path_walk(&p, list);
}
