/* test_kernel_layouts.c - decoder/schema/kernel/kernel-classes.man against the real captures.
 *
 *   test_kernel_layouts KERNEL_CLASSES_MAN CAPTURES_DIR [GOLDENS_DIR]
 *
 * 1. The document loads with the manifest reader (etl_manifest_parse) and follows its own key
 *    convention: every event's value is its opcode's value, every event names its task (the
 *    class) and, but for type 0, its opcode; no (type, version) is declared twice per class.
 * 2. Every classic record of every capture (SYSTEM, COMPACT, PERFINFO, FULL_HEADER and INSTANCE
 *    headers) is looked up by (class GUID, event type, class version) - the kernel group's GUID
 *    for the system family, hook 0x030A (image load) keyed with the Image class GUID - and the
 *    layout found must consume the payload exactly: fixed-size properties, pointers and SIZET by
 *    the record's pointer size, WBEMSIDs, strings scanned to their terminators, counts and
 *    lengths taken from earlier properties, and the document's k:optional / k:rest qualifiers.
 *    A table per (class/type, version, pointer size) reports records, exact, failed, not
 *    described.  The test fails on any failed record and on any record left undescribed but the
 *    ones listed in `known_undescribed`.
 * 3. The two syzygy 32-bit captures logged the same image events with Image class version 0
 *    (Vista) and version 2 (Windows 7): both layouts must read the same (type, base, size, file
 *    name) for every one of them.
 * 4. With GOLDENS_DIR: every kernel and KernelTraceControl event listed in
 *    net.4.5.2.x64.baseline.txt is found in perfview_net452_x64_merged_compressed.etl (same time
 *    in ms, name and DataLen; among several candidates, the one whose values agree) and each
 *    listed field is compared with the value this document's layout reads.  Fields Windows tools
 *    compute or rename are mapped or skipped (tables below); any other difference fails.
 *
 * The walk here is independent of the decoder's schema compiler on purpose: it checks the
 * document, not the compiler. */
#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>

#include "check.h"
#include "golden_events.h"
#include "etl.h"
#include "manifest.h"

/* ---- the document's own qualifiers (k:optional, k:rest), read in a second GMarkup pass ---- */

typedef struct kflags {
    bool optional, rest;
} kflags;

typedef struct side_state {
    GHashTable *tmpl;   /* "guid|tid" -> GArray of kflags, one per <data>/<struct> in document order */
    char *guid;
    GArray *cur;
} side_state;

static const char *side_attr(const char **n, const char **v, const char *want)
{
    for (; n && *n; n++, v++)
        if (strcmp(*n, want) == 0)
            return *v;
    return NULL;
}

static void side_start(GMarkupParseContext *c, const char *el, const char **n, const char **v, gpointer data, GError **e)
{
    side_state *s = data;
    (void)c;
    (void)e;
    if (strcmp(el, "provider") == 0) {
        g_free(s->guid);
        s->guid = g_ascii_strdown(side_attr(n, v, "guid") ? side_attr(n, v, "guid") : "", -1);
    } else if (strcmp(el, "template") == 0 && s->guid) {
        s->cur = g_array_new(FALSE, TRUE, sizeof(kflags));
        g_hash_table_insert(s->tmpl, g_strdup_printf("%s|%s", s->guid, side_attr(n, v, "tid")), s->cur);
    } else if ((strcmp(el, "data") == 0 || strcmp(el, "struct") == 0) && s->cur) {
        kflags f = {0};
        const char *o = side_attr(n, v, "k:optional"), *r = side_attr(n, v, "k:rest");
        f.optional = o && strcmp(o, "true") == 0;
        f.rest = r && strcmp(r, "true") == 0;
        g_array_append_val(s->cur, f);
    }
}

static void side_end(GMarkupParseContext *c, const char *el, gpointer data, GError **e)
{
    side_state *s = data;
    (void)c;
    (void)e;
    if (strcmp(el, "template") == 0)
        s->cur = NULL;
}

static void free_array(gpointer a) { g_array_free(a, TRUE); }

/* ---- small helpers -------------------------------------------------------------------------- */

static void guid_str(const etl_guid *g, char out[40])
{
    snprintf(out, 40, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", g->data1, g->data2, g->data3, g->data4[0],
             g->data4[1], g->data4[2], g->data4[3], g->data4[4], g->data4[5], g->data4[6], g->data4[7]);
}

static uint64_t ld(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* UTF-16LE (len bytes, stops at a NUL) to UTF-8. */
static char *u16(const uint8_t *p, uint32_t len)
{
    GString *s = g_string_new(NULL);
    for (uint32_t i = 0; i + 1 < len; i += 2) {
        gunichar c = (gunichar)ld(p + i, 2);
        if (c == 0)
            break;
        if (c >= 0xD800 && c < 0xDC00 && i + 3 < len) {
            gunichar lo = (gunichar)ld(p + i + 2, 2);
            if (lo >= 0xDC00 && lo < 0xE000) {
                c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                i += 2;
            }
        }
        g_string_append_unichar(s, c);
    }
    return g_string_free(s, FALSE);
}

/* ---- the walk ----------------------------------------------------------------------------- */

enum { V_NONE, V_INT, V_STR };

typedef struct fval {
    const char *name;
    int kind;
    uint64_t u;       /* V_INT: the value, zero-extended */
    unsigned width;   /* V_INT: bytes */
    char *s;          /* V_STR */
} fval;

typedef struct walk_out {
    GArray *vals;     /* fval, one per scalar property read (arrays: none) */
    const char *why;  /* failure: which rule and where */
    char whybuf[160];
} walk_out;

static bool fixed_size(uint16_t t, unsigned ps, unsigned *sz)
{
    switch (t) {
    case 3: case 4: *sz = 1; return true;                  /* Int8, UInt8 */
    case 5: case 6: *sz = 2; return true;                  /* Int16, UInt16 */
    case 7: case 8: case 13: case 20: *sz = 4; return true; /* Int32, UInt32, Boolean, HexInt32 */
    case 9: case 10: case 17: case 21: *sz = 8; return true; /* Int64, UInt64, FILETIME, HexInt64 */
    case 11: *sz = 4; return true;
    case 12: *sz = 8; return true;
    case 15: case 18: *sz = 16; return true;               /* GUID, SYSTEMTIME */
    case 16: case 308: *sz = ps; return true;              /* Pointer, SIZET */
    default: return false;
    }
}

static bool fail_at(walk_out *o, const char *what, const etl_mf_property *pr, uint32_t pos)
{
    snprintf(o->whybuf, sizeof o->whybuf, "%s at %s (offset %u)", what, pr ? pr->name : "?", pos);
    o->why = o->whybuf;
    return false;
}

/* Size of one element of property pr at pos; false when it does not fit. */
static bool element_size(const etl_mf_property *pr, const uint64_t *slot, const uint8_t *p, uint32_t n, uint32_t pos,
                         unsigned ps, uint32_t *sz, walk_out *o)
{
    unsigned f;
    uint32_t rest = n - pos;
    if (pr->in_type == 1 || pr->in_type == 2) { /* strings */
        unsigned cu = pr->in_type == 1 ? 2 : 1;
        if (pr->has_length) {
            uint64_t chars = pr->length_ref != ETL_MF_NO_REF ? slot[pr->length_ref] : pr->length;
            *sz = (uint32_t)(chars * cu);
            return *sz <= rest || fail_at(o, "fixed-length string runs past the payload", pr, pos);
        }
        for (uint32_t i = 0; i + cu <= rest; i += cu)
            if (p[pos + i] == 0 && (cu == 1 || p[pos + i + 1] == 0)) {
                *sz = i + cu;
                return true;
            }
        return fail_at(o, "string without its terminator", pr, pos);
    }
    if (pr->in_type == 14) { /* Binary */
        if (!pr->has_length)
            return fail_at(o, "binary without a length", pr, pos);
        *sz = pr->length_ref != ETL_MF_NO_REF ? (uint32_t)slot[pr->length_ref] : pr->length;
        return *sz <= rest || fail_at(o, "binary runs past the payload", pr, pos);
    }
    if (pr->in_type == 310) { /* WBEMSID: u32 0, or TOKEN_USER (two pointers) and a SID */
        if (rest >= 4 && ld(p + pos, 4) == 0) {
            *sz = 4;
            return true;
        }
        if (rest < 2 * ps + 8)
            return fail_at(o, "WBEMSID runs past the payload", pr, pos);
        *sz = 2 * ps + 8 + 4u * p[pos + 2 * ps + 1];
        return *sz <= rest || fail_at(o, "WBEMSID runs past the payload", pr, pos);
    }
    if (pr->in_type == 19) { /* SID */
        if (rest < 8)
            return fail_at(o, "SID runs past the payload", pr, pos);
        *sz = 8 + 4u * p[pos + 1];
        return *sz <= rest || fail_at(o, "SID runs past the payload", pr, pos);
    }
    if (fixed_size(pr->in_type, ps, &f)) {
        *sz = f;
        return f <= rest || fail_at(o, "payload ends inside", pr, pos);
    }
    return fail_at(o, "in-type this test does not size", pr, pos);
}

static void keep_value(walk_out *o, const etl_mf_property *pr, const uint8_t *p, uint32_t pos, uint32_t sz, unsigned ps)
{
    fval v = {pr->name, V_NONE, 0, 0, NULL};
    unsigned f;
    if (pr->in_type == 1) {
        v.kind = V_STR;
        v.s = u16(p + pos, sz);
    } else if (pr->in_type == 2) {
        v.kind = V_STR;
        v.s = g_strndup((const char *)p + pos, sz);
    } else if (pr->in_type == 15) {
        etl_guid g;
        g.data1 = (uint32_t)ld(p + pos, 4);
        g.data2 = (uint16_t)ld(p + pos + 4, 2);
        g.data3 = (uint16_t)ld(p + pos + 6, 2);
        memcpy(g.data4, p + pos + 8, 8);
        char b[40];
        guid_str(&g, b);
        v.kind = V_STR;
        v.s = g_strdup(b);
    } else if (pr->in_type == 14 && pr->out_type == 24 && sz == 16) { /* IPv6 */
        v.kind = V_STR;
        v.s = g_malloc(48);
        /* RFC 5952: lowercase, leading zeros dropped, the longest run (>= 2) of zero groups as "::" */
        unsigned grp[8], best = 0, bestlen = 0;
        for (int i = 0; i < 8; i++)
            grp[i] = (unsigned)(p[pos + 2 * i] << 8 | p[pos + 2 * i + 1]);
        for (unsigned i = 0; i < 8;) {
            unsigned j = i;
            while (j < 8 && grp[j] == 0)
                j++;
            if (j - i > bestlen) {
                best = i;
                bestlen = j - i;
            }
            i = j > i ? j : i + 1;
        }
        GString *s = g_string_new(NULL);
        for (unsigned i = 0; i < 8; i++) {
            if (bestlen >= 2 && i == best) {
                g_string_append(s, "::");
                i += bestlen - 1;
                continue;
            }
            if (s->len && s->str[s->len - 1] != ':')
                g_string_append_c(s, ':');
            g_string_append_printf(s, "%x", grp[i]);
        }
        g_free(v.s);
        v.s = g_string_free(s, FALSE);
    } else if (pr->in_type == 8 && pr->out_type == 23) { /* IPv4, network order */
        v.kind = V_STR;
        v.s = g_strdup_printf("%u.%u.%u.%u", p[pos], p[pos + 1], p[pos + 2], p[pos + 3]);
    } else if (pr->in_type == 6 && pr->out_type == 22) { /* port, big-endian */
        v.kind = V_INT;
        v.width = 2;
        v.u = (uint64_t)(p[pos] << 8 | p[pos + 1]);
    } else if (fixed_size(pr->in_type, ps, &f) && f <= 8) {
        v.kind = V_INT;
        v.width = f;
        v.u = ld(p + pos, f);
    }
    if (v.kind != V_NONE)
        g_array_append_val(o->vals, v);
}

/* Walk template t (with its k: flags) over the payload; true when it consumes it exactly. */
static bool walk(const etl_mf_template *t, const GArray *kf, const uint8_t *p, uint32_t n, unsigned ps, walk_out *o)
{
    uint32_t pos = 0;
    uint64_t *slot = g_new0(uint64_t, t->prop_count + 1);
    bool ok = true;
    for (uint32_t i = 0; i < t->prop_count && ok; i++) {
        const etl_mf_property *pr = &t->props[i];
        kflags f = kf && i < kf->len ? g_array_index(kf, kflags, i) : (kflags){0};
        if (f.optional && pos == n)
            break; /* the shorter form of the class version: complete */
        if (pr->is_struct) {
            ok = fail_at(o, "struct (not used by this document)", pr, pos);
            break;
        }
        if (f.rest) {
            if (pr->in_type == 14 && !pr->has_length) {
                pos = n;
                continue;
            }
            unsigned es;
            if (!fixed_size(pr->in_type, ps, &es)) {
                ok = fail_at(o, "k:rest on a property without a fixed element size", pr, pos);
                break;
            }
            uint32_t rest = n - pos, max = pr->has_count && pr->count_ref == ETL_MF_NO_REF ? pr->count : UINT32_MAX;
            if (rest % es || rest / es > max) {
                ok = fail_at(o, "rest of the payload is not a whole number of elements", pr, pos);
                break;
            }
            pos = n;
            continue;
        }
        uint64_t count = 1;
        if (pr->has_count)
            count = pr->count_ref != ETL_MF_NO_REF ? slot[pr->count_ref] : pr->count;
        if (count > n) {
            ok = fail_at(o, "count larger than the payload", pr, pos);
            break;
        }
        for (uint64_t k = 0; k < count && ok; k++) {
            uint32_t sz;
            if (!element_size(pr, slot, p, n, pos, ps, &sz, o)) {
                ok = false;
                break;
            }
            if (count == 1 && !pr->has_count) {
                keep_value(o, pr, p, pos, sz, ps);
                unsigned fs;
                if (fixed_size(pr->in_type, ps, &fs) && fs <= 8)
                    slot[i] = ld(p + pos, fs);
            }
            pos += sz;
        }
    }
    g_free(slot);
    if (ok && pos != n) {
        snprintf(o->whybuf, sizeof o->whybuf, "%u bytes left after the last property", n - pos);
        o->why = o->whybuf;
        ok = false;
    }
    return ok;
}

static void free_vals(GArray *a)
{
    for (guint i = 0; i < a->len; i++)
        g_free(g_array_index(a, fval, i).s);
    g_array_set_size(a, 0);
}

/* ---- the document ------------------------------------------------------------------------- */

typedef struct doc {
    etl_manifest *m;
    GHashTable *kf; /* "guid|tid" -> GArray kflags */
} doc;

static const etl_mf_provider *find_provider(const doc *d, const etl_guid *g)
{
    for (uint32_t i = 0; i < etl_manifest_provider_count(d->m); i++) {
        const etl_mf_provider *p = etl_manifest_provider(d->m, i);
        if (memcmp(&p->guid, g, sizeof *g) == 0)
            return p;
    }
    return NULL;
}

static const GArray *flags_of(const doc *d, const etl_mf_provider *p, const etl_mf_event *e)
{
    char g[40];
    guid_str(&p->guid, g);
    char *key = g_strdup_printf("{%s}|%s", g, e->template_tid ? e->template_tid : "");
    const GArray *a = g_hash_table_lookup(d->kf, key);
    g_free(key);
    return a;
}

/* "Provider/Task[/Opcode]" as Windows tools name classic events. */
static char *event_name(const etl_mf_provider *p, const etl_mf_event *e)
{
    bool show_op = e->opcode_name && *e->opcode_name && strcmp(e->opcode_name, "Info") != 0;
    return show_op ? g_strdup_printf("%s/%s/%s", p->name, e->task_name, e->opcode_name)
                   : g_strdup_printf("%s/%s", p->name, e->task_name);
}

static void test_document(const doc *d)
{
    uint32_t events = 0, bad_key = 0, bad_names = 0, dups = 0, missing_tmpl = 0;
    for (uint32_t i = 0; i < etl_manifest_provider_count(d->m); i++) {
        const etl_mf_provider *p = etl_manifest_provider(d->m, i);
        for (uint32_t k = 0; k < p->event_count; k++, events++) {
            const etl_mf_event *e = &p->events[k];
            if (e->opcode != e->id) {
                bad_key++;
                fprintf(stderr, "%s: event value %u has opcode %u\n", p->name, e->id, e->opcode);
            }
            if (!e->task_name || (e->id != 0 && (!e->opcode_name || !*e->opcode_name))) {
                bad_names++;
                fprintf(stderr, "%s: event %u v%u has no task or opcode name\n", p->name, e->id, e->version);
            }
            if (etl_mf_find_event(p, e->id, e->version) != e)
                dups++;
            if (e->template_tid && !e->tmpl)
                missing_tmpl++;
        }
    }
    printf("document: %u providers, %u events\n", etl_manifest_provider_count(d->m), events);
    CHECK(events > 200);
    CHECK_EQ_U(bad_key, 0);
    CHECK_EQ_U(bad_names, 0);
    CHECK_EQ_U(dups, 0);
    CHECK_EQ_U(missing_tmpl, 0);
}

/* ---- the captures ------------------------------------------------------------------------- */

/* Records this document leaves undescribed on purpose: class GUID, type, version, why. */
static const struct {
    const char *guid;
    unsigned type, version;
    const char *why;
} known_undescribed[] = {
    {"9b79ee91-b5fd-41c0-a243-4248e266e9d0", 37, 0,
     "KernelTraceControl SysConfig type 37: undocumented; Windows tools show it as Opcode(37)"},
};

typedef struct row {
    char *name;             /* Provider/Task/Opcode, or the GUID for undescribed classes */
    char *guid;             /* the class GUID the record was keyed with */
    unsigned type, version, ps;
    uint64_t records, exact, failed, undescribed, named_only;
    char *example;          /* first failure */
    GString *files;
} row;

static bool classic(const etl_record *r)
{
    switch (r->header_type) {
    case ETL_HT_SYSTEM32: case ETL_HT_SYSTEM64: case ETL_HT_COMPACT32: case ETL_HT_COMPACT64:
    case ETL_HT_PERFINFO32: case ETL_HT_PERFINFO64: case ETL_HT_FULL_HEADER32: case ETL_HT_FULL_HEADER64:
    case ETL_HT_INSTANCE32: case ETL_HT_INSTANCE64:
        return true;
    default:
        return false;
    }
}

static bool system_family(const etl_record *r)
{
    return r->header_type <= ETL_HT_COMPACT64 || r->header_type == ETL_HT_PERFINFO32 || r->header_type == ETL_HT_PERFINFO64;
}

/* The class GUID a record is keyed with. */
static bool class_of(const etl_record *r, etl_guid *g)
{
    if (system_family(r)) {
        if (r->hook_id == 0x030A)
            return etl_kernel_group_guid(0x14, g); /* image load: the Image class */
        return etl_kernel_group_guid(r->group, g);
    }
    if (!r->has_provider)
        return false;
    *g = r->provider;
    return true;
}

typedef struct golden_ev golden_ev;

/* The images of the two syzygy 32-bit captures (Vista: Image version 0; Windows 7: version 2), as
 * "type base size name" per capture: both logged the same loads, so the two layouts must read the
 * same values. */
static GHashTable *syzygy_images[2];

static const fval *val_of(const GArray *vals, const char *a, const char *b)
{
    for (guint k = 0; k < vals->len; k++) {
        const fval *v = &g_array_index(vals, fval, k);
        if (strcmp(v->name, a) == 0 || strcmp(v->name, b) == 0)
            return v;
    }
    return NULL;
}

static void syzygy_offer(const char *file, const etl_record *r, const char *name, const GArray *vals)
{
    int which = g_str_has_prefix(file, "syzygy_sawbuck_test_data_32_v0") ? 0
                : g_str_has_prefix(file, "syzygy_sawbuck_image_data_32_v2") ? 1 : -1;
    if (which < 0 || !strstr(name, "/Image/"))
        return;
    const fval *base = val_of(vals, "ImageBase", "BaseAddress"), *size = val_of(vals, "ImageSize", "ModuleSize"),
               *fn = val_of(vals, "FileName", "ImageFileName");
    CHECK(base && size && fn && base->kind == V_INT && size->kind == V_INT && fn->kind == V_STR);
    if (!base || !size || !fn || base->kind != V_INT || size->kind != V_INT || fn->kind != V_STR)
        return;
    CHECK(base->u != 0 && size->u != 0 && size->u < 0x10000000u);
    CHECK(g_str_has_suffix(fn->s, ".dll") || g_str_has_suffix(fn->s, ".exe") || g_str_has_suffix(fn->s, ".DLL"));
    if (!syzygy_images[which])
        syzygy_images[which] = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_hash_table_add(syzygy_images[which],
                     g_strdup_printf("%u %" PRIx64 " %" PRIx64 " %s", r->opcode, base->u, size->u, fn->s));
}

static void report_syzygy(void)
{
    CHECK(syzygy_images[0] && syzygy_images[1]);
    if (!syzygy_images[0] || !syzygy_images[1])
        return;
    unsigned n0 = g_hash_table_size(syzygy_images[0]), n1 = g_hash_table_size(syzygy_images[1]), common = 0;
    GHashTableIter it;
    gpointer k;
    g_hash_table_iter_init(&it, syzygy_images[0]);
    while (g_hash_table_iter_next(&it, &k, NULL))
        common += g_hash_table_contains(syzygy_images[1], k);
    printf("syzygy image events: Vista (version 0) %u distinct, Windows 7 (version 2) %u, the same (type, base, size, name) in both: %u\n",
           n0, n1, common);
    CHECK(n0 > 10);
    CHECK_EQ_U(common, n0);
    CHECK_EQ_U(common, n1);
    g_hash_table_destroy(syzygy_images[0]);
    g_hash_table_destroy(syzygy_images[1]);
}

static void golden_offer(const char *file, const etl_record *r, int64_t first_ts, const char *name, const GArray *vals);

static void scan_capture(const doc *d, const char *dir, const char *file, GHashTable *rows, GPtrArray *order, bool for_golden)
{
    char *path = g_build_filename(dir, file, NULL);
    etl_reader *rd;
    etl_error err;
    if (etl_reader_open_file(path, NULL, &rd, &err) != ETL_OK) {
        g_free(path);
        return;
    }
    etl_record r;
    walk_out o = {g_array_new(FALSE, TRUE, sizeof(fval)), NULL, {0}};
    int64_t first_ts = 0;
    bool have_first = false;
    char short_name[24];
    snprintf(short_name, sizeof short_name, "%.20s", file);
    while (etl_reader_next(rd, &r, &err) == ETL_OK) {
        if (!have_first && r.has_timestamp) {
            first_ts = r.timestamp;
            have_first = true;
        }
        if (!classic(&r))
            continue;
        etl_guid g;
        char gs[40] = "(no class)";
        const etl_mf_provider *p = NULL;
        const etl_mf_event *e = NULL;
        if (class_of(&r, &g)) {
            guid_str(&g, gs);
            p = find_provider(d, &g);
        }
        /* a class may be split over several <provider>s of one GUID (the events Windows
         * tools show as MSNT_SystemTrace): the first that has the event */
        for (uint32_t pi = 0; p && !e && pi < etl_manifest_provider_count(d->m); pi++) {
            const etl_mf_provider *q = etl_manifest_provider(d->m, pi);
            if (memcmp(&q->guid, &g, sizeof g) == 0 && (e = etl_mf_find_event(q, r.opcode, r.version)))
                p = q;
        }
        char *name = e   ? event_name(p, e)
                     : p ? g_strdup_printf("%s/%s/Opcode(%u)", p->name, p->task_count ? p->tasks[0].display : "?", r.opcode)
                         : g_strdup_printf("{%s}", gs);
        char *key = g_strdup_printf("%s|%u|%u|%u", name, r.opcode, r.version, r.pointer_size);
        row *w = g_hash_table_lookup(rows, key);
        if (!w) {
            w = g_new0(row, 1);
            w->name = g_strdup(name);
            w->guid = g_strdup(gs);
            w->type = r.opcode;
            w->version = r.version;
            w->ps = r.pointer_size;
            w->files = g_string_new(NULL);
            g_hash_table_insert(rows, g_strdup(key), w);
            g_ptr_array_add(order, w);
        }
        w->records++;
        if (!strstr(w->files->str, short_name))
            g_string_append_printf(w->files, "%s%s", w->files->len ? " " : "", short_name);
        const uint8_t *pl = r.bytes + r.payload_offset;
        if (!e || !e->tmpl) {
            if (!e)
                w->undescribed++;
            else if (r.payload_size == 0)
                w->exact++;
            else
                w->named_only++;
            free_vals(o.vals);
            if (for_golden)
                golden_offer(file, &r, first_ts, name, o.vals);
        } else {
            o.why = NULL;
            free_vals(o.vals);
            if (walk(e->tmpl, flags_of(d, p, e), pl, r.payload_size, r.pointer_size, &o)) {
                w->exact++;
                syzygy_offer(file, &r, name, o.vals);
                if (for_golden)
                    golden_offer(file, &r, first_ts, name, o.vals);
            } else {
                w->failed++;
                if (!w->example)
                    w->example = g_strdup_printf("%s @%" PRIu64 ": %s (payload %u bytes)", file, r.position, o.why, r.payload_size);
            }
        }
        g_free(key);
        g_free(name);
    }
    free_vals(o.vals);
    g_array_free(o.vals, TRUE);
    etl_reader_close(rd);
    g_free(path);
}

static int str_cmp(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int row_cmp(gconstpointer a, gconstpointer b)
{
    const row *x = *(row *const *)a, *y = *(row *const *)b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    if (x->version != y->version)
        return (int)x->version - (int)y->version;
    return (int)x->ps - (int)y->ps;
}

/* ---- the golden --------------------------------------------------------------------------- */

struct golden_ev {
    golden_event *e;    /* the golden's line */
    bool found;
    unsigned compared, equal;
    GString *diffs;     /* of the match, or of the first candidate when none matched */
};

static GPtrArray *golden; /* golden_ev* of the kernel and KernelTraceControl events */
static GPtrArray *golden_lines; /* the golden_event lines they stand for */
static unsigned golden_skipped; /* golden field values not compared (not_compared) */
/* (golden PID/TID are not compared: Windows tools take them from the payload of process,
 * thread and network events and leave -1 where the header has none) */
static uint64_t golden_unexpected;

/* Golden field name -> this document's name (the names Windows tools show instead). */
static const char *const renames[][2] = {
    {"ProcessID", "ProcessId"}, {"ParentID", "ParentId"}, {"SessionID", "SessionId"},
    {"PageDirectoryBase", "DirectoryTableBase"}, {"ImageChecksum", "ImageCheckSum"}, {"MemoryCount", "PageFaultCount"},
    {"FileKey", "FileObject"}, {"StartAddr", "Affinity"},
    {"LogFileName", "LogFilePath"}, {"TargetID", "TargetId"}, {"S1", "s1"}, {"S2", "s2"}, {"S3", "s3"},
    {"S4", "s4"}, {"S5", "s5"},
};

/* Golden fields Windows tools compute or present their own way: not compared.
 * Entries: "Provider/Task/Opcode/Field"; a star and "/Field" for that field of every event; an event
 * name and a slash-star for every field of that event. */
static const char *const not_compared[] = {
    "*/BuildTime",          /* from TimeDateStamp */
    "*/ElapsedTimeMSec", "*/DiskServiceTimeMSec", /* from HighResResponseTime and the header time */
    "*/Priority",           /* DiskIO: from IrpFlags */
    "*/IrpFlags",           /* shown through a flag map */
    "*/Flags",              /* Process: shown through a flag map */
    "*/FileName",           /* DiskIO/HardFault: looked up from FileKey; Image: a DOS path for the NT path */
    "*/ParentThreadID", "*/ParentProcessID", /* Thread: TraceEvent's own bookkeeping */
    "*/UtcOffsetMinutes", "*/EndTime", "*/BootTime", "*/StartTime", "*/InstallDate", /* dates */
    "*/ExecutingDPC", "*/ExecutingISR", "*/Rank", "*/ProcessorNumber", /* SampleProf: bits of Count */
    "*/ProcessName",        /* Services: from ProcessId */
    "*/PhysicalAddr",       /* NIC: printed as a signed decimal, cut to 20 characters (same u64) */
    /* UdpIp Send/Recv (version 2): Windows tools show the first 8 bytes (PID and size) as one
     * "context" pointer and a "dsize" of their own, beside the same size, addresses and ports */
    "Windows Kernel/UdpIp/Recv/context", "Windows Kernel/UdpIp/Send/context",
    "Windows Kernel/UdpIp/Recv/dsize", "Windows Kernel/UdpIp/Send/dsize",
    "KernelTraceControl/ImageID/ProcessID", /* shown 0 where the payload holds the header's PID */
};

static bool skip_field(const char *ev, const char *field)
{
    for (size_t i = 0; i < G_N_ELEMENTS(not_compared); i++) {
        const char *s = not_compared[i];
        if (s[0] == '*' && strcmp(s + 2, field) == 0)
            return true;
        size_t el = strlen(ev);
        if (strncmp(s, ev, el) == 0 && s[el] == '/' && (strcmp(s + el + 1, field) == 0 || strcmp(s + el + 1, "*") == 0))
            return true;
    }
    return false;
}

static void load_golden(const char *path)
{
    if (!(golden_lines = golden_events_read(path, golden_kernel_prefixes)))
        return;
    golden = g_ptr_array_new();
    for (guint i = 0; i < golden_lines->len; i++) {
        golden_ev *g = g_new0(golden_ev, 1);
        g->e = g_ptr_array_index(golden_lines, i);
        g->diffs = g_string_new(NULL);
        g_ptr_array_add(golden, g);
    }
}

/* Golden integer text ("1,404,928", "-1", "0x00187000") to a value. */
static bool golden_int(const char *s, int64_t *out)
{
    GString *t = g_string_new(NULL);
    for (const char *c = s; *c; c++)
        if (*c != ',')
            g_string_append_c(t, *c);
    char *end;
    if (g_str_has_prefix(t->str, "0x"))
        *out = (int64_t)g_ascii_strtoull(t->str + 2, &end, 16);
    else
        *out = g_ascii_strtoll(t->str, &end, 10);
    bool ok = t->len && *end == 0;
    g_string_free(t, TRUE);
    return ok;
}

/* Compare golden event g with a record's values; the differences go to diffs. */
static unsigned golden_compare(const golden_ev *g, const char *name, const GArray *vals, unsigned *compared, GString *diffs)
{
    const char *gn = g_str_has_prefix(g->e->name, "MSNT_SystemTrace/") ? g->e->name + strlen("MSNT_SystemTrace/") : NULL;
    unsigned bad = 0;
    *compared = 0;
    for (guint f = 0; f < g->e->fields->len; f++) {
        char *fv = g_strdup(g_ptr_array_index(g->e->fields, f));
        char *eq = strchr(fv, '=');
        *eq = 0;
        const char *gfield = fv, *gval = eq + 1, *ours = gfield;
        for (size_t k = 0; k < G_N_ELEMENTS(renames); k++)
            if (strcmp(renames[k][0], gfield) == 0)
                ours = renames[k][1];
        if (skip_field(g->e->name, gfield) || (gn && skip_field(name, gfield))) {
            g_free(fv);
            continue;
        }
        const fval *v = NULL;
        for (guint k = 0; k < vals->len; k++)
            if (g_ascii_strcasecmp(g_array_index(vals, fval, k).name, ours) == 0)
                v = &g_array_index(vals, fval, k);
        (*compared)++;
        bool same = false;
        char ourtext[96] = "(absent)";
        if (!v) {
            same = *gval == 0; /* an optional property left out (k:optional): shown empty */
        } else if (v->kind == V_STR) {
            size_t gl = strlen(gval);
            snprintf(ourtext, sizeof ourtext, "\"%s\"", v->s);
            if (gl > 3 && strcmp(gval + gl - 3, "...") == 0)
                same = strncmp(v->s, gval, gl - 3) == 0;
            else
                same = strcmp(v->s, gval) == 0;
        } else if (v->kind == V_INT) {
            int64_t gi;
            snprintf(ourtext, sizeof ourtext, "%" PRIu64, v->u);
            if (golden_int(gval, &gi)) {
                uint64_t mask = v->width >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * v->width)) - 1;
                same = ((uint64_t)gi & mask) == v->u;
            }
        }
        if (!same) {
            g_string_append_printf(diffs, " %s: golden %s, ours %s;", gfield, gval, ourtext);
            bad++;
        }
        g_free(fv);
    }
    return bad;
}

/* A record of the net452 capture: the golden event it is (same ms, name, DataLen, values). */
static void golden_offer(const char *file, const etl_record *r, int64_t first_ts, const char *name, const GArray *vals)
{
    (void)file;
    if (!golden || !r->has_timestamp)
        return;
    double ms = (double)(r->timestamp - first_ts) / 10000.0;
    for (guint i = 0; i < golden->len; i++) {
        golden_ev *g = g_ptr_array_index(golden, i);
        if (g->found || g->e->datalen != (long)r->payload_size || g->e->ms < ms - 0.0011 || g->e->ms > ms + 0.0011)
            continue;
        const char *gn = g_str_has_prefix(g->e->name, "MSNT_SystemTrace/") ? g->e->name + strlen("MSNT_SystemTrace/") : NULL;
        const char *on = strchr(name, '/');
        if (gn ? !on || strcmp(gn, on + 1) != 0 : strcmp(g->e->name, name) != 0)
            continue;
        GString *diffs = g_string_new(NULL);
        unsigned compared, bad = golden_compare(g, name, vals, &compared, diffs);
        if (bad == 0) {
            g->found = true;
            g->compared = compared;
            g->equal = compared;
            g_string_assign(g->diffs, "");
            g_string_free(diffs, TRUE);
            return;
        }
        if (!g->diffs->len) {
            g->compared = compared;
            g->equal = compared - bad;
            g_string_assign(g->diffs, diffs->str);
        }
        g_string_free(diffs, TRUE);
    }
}

static void report_golden(void)
{
    if (!golden)
        return;
    unsigned found = 0, compared = 0, equal = 0;
    for (guint i = 0; i < golden->len; i++) {
        golden_ev *g = g_ptr_array_index(golden, i);
        for (guint f = 0; f < g->e->fields->len; f++) {
            const char *fv = g_ptr_array_index(g->e->fields, f);
            char *field = g_strndup(fv, (size_t)(strchr(fv, '=') - fv));
            const char *gn = g_str_has_prefix(g->e->name, "MSNT_SystemTrace/") ? g->e->name + strlen("MSNT_SystemTrace/") : NULL;
            char *alt = gn ? g_strdup_printf("Windows Kernel/%s", gn) : NULL;
            golden_skipped += skip_field(g->e->name, field) || (alt && skip_field(alt, field));
            g_free(alt);
            g_free(field);
        }
        found += g->found;
        compared += g->compared;
        equal += g->equal;
        if (!g->found && g->diffs->len) {
            printf("golden: values differ: %.3f ms %s:%s\n", g->e->ms, g->e->name, g->diffs->str);
            golden_unexpected++;
        } else if (!g->found) {
            printf("golden: not found: %.3f ms %s DataLen=%ld\n", g->e->ms, g->e->name, g->e->datalen);
        }
    }
    printf("golden: %u kernel/KernelTraceControl events listed, %u found, %u field values compared, %u equal"
           " (field values Windows tools compute or format their own way, not compared: %u)\n",
           golden->len, found, compared, equal, golden_skipped);
    CHECK_EQ_U(found, golden->len);
    CHECK_EQ_U(golden_unexpected, 0);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s KERNEL_CLASSES_MAN CAPTURES_DIR [GOLDENS_DIR]\n", argv[0]);
        return 2;
    }
    doc d = {0};
    etl_error err;
    etl_status st = etl_manifest_load_file(argv[1], &d.m, &err);
    if (st != ETL_OK)
        fprintf(stderr, "%s: %s\n", argv[1], err.message);
    CHECK(st == ETL_OK);
    if (st != ETL_OK)
        CHECK_MAIN_END();

    /* the k: qualifiers */
    side_state s = {g_hash_table_new_full(g_str_hash, g_str_equal, g_free, free_array), NULL, NULL};
    char *xml = NULL;
    gsize xlen = 0;
    CHECK(g_file_get_contents(argv[1], &xml, &xlen, NULL));
    GMarkupParser mp = {side_start, side_end, NULL, NULL, NULL};
    GMarkupParseContext *ctx = g_markup_parse_context_new(&mp, 0, &s, NULL);
    CHECK(g_markup_parse_context_parse(ctx, xml, (gssize)xlen, NULL) && g_markup_parse_context_end_parse(ctx, NULL));
    g_markup_parse_context_free(ctx);
    g_free(xml);
    g_free(s.guid);
    d.kf = s.tmpl;

    test_document(&d);

    if (argc > 3) {
        char *gp = g_build_filename(argv[3], "net.4.5.2.x64.baseline.txt", NULL);
        load_golden(gp);
        g_free(gp);
        CHECK(golden && golden->len > 100);
    }

    GHashTable *rows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GPtrArray *order = g_ptr_array_new();
    GDir *dir = g_dir_open(argv[2], 0, NULL);
    CHECK(dir != NULL);
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    const char *fn;
    while (dir && (fn = g_dir_read_name(dir)))
        if (g_str_has_suffix(fn, ".etl"))
            g_ptr_array_add(files, g_strdup(fn));
    if (dir)
        g_dir_close(dir);
    g_ptr_array_sort(files, str_cmp);
    for (guint i = 0; i < files->len; i++) {
        const char *f = g_ptr_array_index(files, i);
        scan_capture(&d, argv[2], f, rows, order, strcmp(f, "perfview_net452_x64_merged_compressed.etl") == 0);
    }
    CHECK(files->len >= 10);

    /* the table */
    g_ptr_array_sort(order, row_cmp);
    uint64_t tot = 0, exact = 0, failed = 0, undesc = 0, named = 0, unexpected_undesc = 0;
    printf("%-52s %4s %3s %3s %8s %8s %6s %6s  %s\n", "class/type (Provider/Task/Opcode)", "type", "ver", "ptr", "records",
           "exact", "failed", "undesc", "captures");
    for (guint i = 0; i < order->len; i++) {
        row *w = g_ptr_array_index(order, i);
        printf("%-52s %4u %3u %3u %8" PRIu64 " %8" PRIu64 " %6" PRIu64 " %6" PRIu64 "  %s%s\n", w->name, w->type, w->version,
               w->ps, w->records, w->exact, w->failed, w->undescribed + w->named_only, w->files->str,
               w->named_only ? " (named; no layout: decoded by carried.c)" : "");
        if (w->example)
            printf("    first failure: %s\n", w->example);
        if (w->undescribed) {
            bool known = false;
            for (size_t k = 0; k < G_N_ELEMENTS(known_undescribed); k++)
                if (strcmp(w->guid, known_undescribed[k].guid) == 0 && w->type == known_undescribed[k].type &&
                    w->version == known_undescribed[k].version) {
                    known = true;
                    printf("    undescribed on purpose: %s\n", known_undescribed[k].why);
                }
            if (!known)
                unexpected_undesc += w->undescribed;
        }
        tot += w->records;
        exact += w->exact;
        failed += w->failed;
        undesc += w->undescribed;
        named += w->named_only;
    }
    printf("classic records: %" PRIu64 ", exact %" PRIu64 ", failed %" PRIu64 ", undescribed %" PRIu64
           ", named without a layout %" PRIu64 "\n", tot, exact, failed, undesc, named);
    CHECK(tot > 100000);
    CHECK_EQ_U(failed, 0);
    CHECK_EQ_U(unexpected_undesc, 0);

    report_syzygy();
    report_golden();

    for (guint i = 0; i < order->len; i++) {
        row *w = g_ptr_array_index(order, i);
        g_free(w->name);
        g_free(w->guid);
        g_free(w->example);
        g_string_free(w->files, TRUE);
        g_free(w);
    }
    g_ptr_array_free(order, TRUE);
    g_hash_table_destroy(rows);
    g_ptr_array_free(files, TRUE);
    g_hash_table_destroy(d.kf);
    etl_manifest_free(d.m);
    CHECK_MAIN_END();
}
