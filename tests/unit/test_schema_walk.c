/* Unit tests of schema_walk.c (the items of a compiled schema without a payload) and of
 * etl_value_nominal (value_format.h, a field's nominal type):
 *   - every schema of the kernel class document (both bitnesses) and every event of the shared
 *     manifests: the walk yields each step once, containers balanced, and ends;
 *   - every record of every capture (manifests on the path, the schemas the trace carries, the
 *     kernel class document, TraceLogging): each item the enumerator yields (character arrays
 *     as one string) is at a step the walk yields with the same name, kind, element flag,
 *     repeat ordinal and character-array flag, and the value
 *     decoder gives it exactly the walk item's nominal type (kind, bits, format, and the
 *     address size of IPV4/IPV6) - except where the bytes themselves depart (a FILETIME past
 *     9999, an impossible SYSTEMTIME, a malformed SID, a value cut short, an IPV6 of another
 *     size), which are counted and named;
 *   - each of those values decodes (typed value and text) the same from the nominal type its
 *     schema step keeps (etl_step_nominal) as from the rule worked out afresh, and the step's
 *     copy is the rule's for its in/out-type;
 *   - the elements of arrays counted by another field, which a payload with count 0 never
 *     shows, are among the walk's items (GC/PerHeapHistory's Values.SizeBefore). */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "classic.h"
#include "fields.h"
#include "prescan.h"
#include "registry.h"
#include "schema_cache.h"
#include "schema_walk.h"
#include "value_format.h"

static void quiet(void *ctx, etl_registry_severity sev, const char *msg)
{
    (void)ctx, (void)sev, (void)msg;
}

/* The walk of one schema, checked for shape; `items` (step_count entries, may be NULL) gets
 * each step's item. */
static uint64_t walked_schemas, walked_values;

static void walk_schema(const etl_schema *s, uint8_t pointer_size, etl_item *items)
{
    etl_schema_walk w;
    etl_item it;
    unsigned depth = 0;
    uint32_t n = 0, last = UINT32_MAX;
    bool balanced = true;
    etl_schema_walk_start(&w, s, pointer_size);
    for (;;) {
        etl_item_kind k = etl_schema_walk_next(&w, &it);
        if (k == ETL_ITEM_END)
            break;
        CHECK(last == UINT32_MAX || it.step == last + 1); /* every step once, in order */
        last = it.step;
        n++;
        if (items && it.step < s->step_count)
            items[it.step] = it;
        if (it.char_array) /* its element and ARRAY_END are not walked */
            last = s->steps[it.step].match;
        if (k == ETL_ITEM_VALUE)
            walked_values++;
        else if (k == ETL_ITEM_STRUCT_BEGIN || k == ETL_ITEM_ARRAY_BEGIN)
            depth++;
        else if (k == ETL_ITEM_STRUCT_END || k == ETL_ITEM_ARRAY_END)
            balanced = balanced && depth-- > 0;
        if (k == ETL_ITEM_PLACEHOLDER)
            CHECK(it.reason != NULL);
    }
    CHECK(balanced && (depth == 0 || !s->complete));
    CHECK(last + 1 == (s->complete ? s->step_count : s->unsupported_at + 1) || n == 0);
    CHECK(etl_schema_walk_next(&w, &it) == ETL_ITEM_END);
    walked_schemas++;
}

static void walk_classic(void *ctx, const etl_guid *cls, uint8_t type, uint8_t version)
{
    static const uint8_t sizes[] = { 8, 4 };
    for (unsigned i = 0; i < 2; i++) {
        const etl_schema *s;
        if (etl_registry_lookup_classic(ctx, cls, type, version, sizes[i], &s, NULL) == ETL_OK)
            walk_schema(s, sizes[i], NULL);
    }
}

typedef struct found {
    etl_registry *reg;
    bool per_heap_values; /* GC/PerHeapHistory: Values.SizeBefore in a counted array */
} found;

static void walk_manifest_event(void *vctx, const etl_guid *provider, uint16_t id, uint8_t version)
{
    found *f = vctx;
    const etl_schema *s;
    if (etl_registry_lookup_key(f->reg, provider, id, version, 8, &s, NULL) != ETL_OK)
        return;
    etl_item *items = g_new0(etl_item, s->step_count ? s->step_count : 1);
    walk_schema(s, 8, items);
    if (strcmp(etl_schema_event_name(s), "GC/PerHeapHistory") == 0) {
        for (uint32_t i = 0; i < s->step_count; i++) {
            if (items[i].kind != ETL_ITEM_VALUE || strcmp(items[i].name, "SizeBefore") != 0)
                continue;
            /* inside Values (a struct array counted by Count), a hex u64 */
            const etl_schema_step *b = NULL;
            for (uint32_t j = i; j-- > 0;)
                if (s->steps[j].op == ETL_OP_ARRAY_BEGIN && s->steps[j].match > i) {
                    b = &s->steps[j];
                    break;
                }
            etl_value v;
            etl_item_nominal(&items[i], &v);
            f->per_heap_values = b && b->count_rule == ETL_COUNT_REF && v.kind == ETL_VALUE_UINT && v.bits == 64 &&
                                 v.format == ETL_OUT_HEXINT64;
        }
    }
    g_free(items);
}

/* ---- real records ------------------------------------------------------------------------ */

typedef struct tally {
    uint64_t values, agree, departed, char_arrays;
    uint64_t step_path; /* values decoded from their step's nominal type (all but char arrays) */
    uint64_t departures[5]; /* filetime, systemtime, sid, short, ipv6 size */
} tally;

static bool is_address(const etl_value *v)
{
    return v->kind == ETL_VALUE_BYTES && (v->format == ETL_OUT_IPV4 || v->format == ETL_OUT_IPV6);
}

static bool same_type(const etl_value *a, const etl_value *b)
{
    return a->kind == b->kind && a->bits == b->bits && a->format == b->format &&
           (!is_address(a) || a->bytes_len == b->bytes_len);
}

/* The same value, member by member (strings and bytes by content): the step's nominal type
 * (etl_step_nominal, computed once when the step was added) and the rule worked out afresh
 * from the in- and out-type must decode every value alike. */
static bool same_value(const etl_value *a, const etl_value *b)
{
    if (!same_type(a, b) || a->truncated != b->truncated || a->bytes_len != b->bytes_len ||
        (a->bytes_len && memcmp(a->bytes, b->bytes, a->bytes_len) != 0))
        return false;
    switch (a->kind) {
    case ETL_VALUE_INT: case ETL_VALUE_UINT: case ETL_VALUE_FILETIME:
        return a->v.u == b->v.u;
    case ETL_VALUE_DOUBLE:
        return memcmp(&a->v.d, &b->v.d, sizeof a->v.d) == 0;
    case ETL_VALUE_BOOL:
        return a->v.b == b->v.b;
    case ETL_VALUE_GUID:
        return memcmp(&a->v.guid, &b->v.guid, sizeof a->v.guid) == 0;
    case ETL_VALUE_STRING:
        return a->str_len == b->str_len && memcmp(a->str, b->str, a->str_len) == 0;
    default:
        return true;
    }
}

static char scratch2[ETL_VALUE_TEXT_CAP(65536)];

/* Why a decoded value may leave its nominal type: its bytes say so.  -1 when they do not. */
static int departure(const etl_item *it, const etl_value *nominal, const etl_value *got)
{
    if (got->kind == ETL_VALUE_NONE)
        return 3;
    if (nominal->kind == ETL_VALUE_FILETIME && it->in_type == ETL_IN_FILETIME && got->kind == ETL_VALUE_UINT)
        return 0;
    if (nominal->kind == ETL_VALUE_FILETIME && it->in_type == ETL_IN_SYSTEMTIME && got->kind == ETL_VALUE_BYTES)
        return 1;
    if (nominal->kind == ETL_VALUE_STRING && got->kind == ETL_VALUE_BYTES &&
        (it->in_type == ETL_IN_SID || it->in_type == ETL_IN_WBEMSID))
        return 2;
    if (nominal->format == ETL_OUT_IPV6 && got->format == ETL_OUT_HEXBINARY && got->bytes_len != 16)
        return 4;
    return -1;
}

static char scratch[ETL_VALUE_TEXT_CAP(65536)];

static void check_record(const etl_schema *s, const etl_record *rec, GHashTable *walks, tally *t)
{
    char key[64];
    g_snprintf(key, sizeof key, "%p/%u", (const void *)s, rec->pointer_size);
    etl_item *items = g_hash_table_lookup(walks, key);
    if (!items) {
        items = g_new0(etl_item, s->step_count ? s->step_count : 1);
        walk_schema(s, rec->pointer_size, items);
        g_hash_table_insert(walks, g_strdup(key), items);
    }
    etl_fields f;
    etl_item it;
    etl_fields_start_opts(&f, s, rec->bytes + rec->payload_offset, rec->payload_size, rec->pointer_size,
                          ETL_FIELDS_CHAR_STRINGS);
    while (etl_fields_next(&f, &it) != ETL_ITEM_END) {
        if (it.kind == ETL_ITEM_PLACEHOLDER)
            break;
        const etl_item *w = it.step < s->step_count ? &items[it.step] : NULL;
        CHECK(w && w->kind == it.kind && strcmp(w->name, it.name) == 0 && w->is_element == it.is_element &&
              w->dup == it.dup);
        if (!w)
            continue;
        CHECK(w->char_array == it.char_array);
        if (it.char_array)
            t->char_arrays++;
        if (it.kind != ETL_ITEM_VALUE)
            continue;
        etl_value nominal, got;
        etl_item_nominal(w, &nominal);
        etl_value_decode(&it, &got, scratch, sizeof scratch);
        t->values++;
        if (!it.char_array) {
            /* the step's copy of the nominal type is the one the rule gives its in/out-type,
             * and decoding from it or from the rule afresh gives the same value and text */
            const etl_step_nominal *nm = &s->steps[it.step].nominal;
            etl_step_nominal fresh = etl_value_type_nominal(it.in_type, it.custom ? ETL_OUT_NULL : it.out_type,
                                                            s->pointer_size);
            CHECK(it.nominal == nm && nm->pointer_size != 0 && memcmp(nm, &fresh, sizeof fresh) == 0);
            etl_item bare = it;
            bare.nominal = NULL;
            etl_value again;
            etl_value_decode(&bare, &again, scratch2, sizeof scratch2);
            CHECK(same_value(&got, &again));
            char t1[512], t2[512];
            if (it.size < 64) {
                size_t n1 = etl_value_format(&it, t1, sizeof t1), n2 = etl_value_format(&bare, t2, sizeof t2);
                CHECK(n1 == n2 && memcmp(t1, t2, n1) == 0);
            }
            t->step_path++;
        }
        if (same_type(&nominal, &got)) {
            t->agree++;
            continue;
        }
        int why = departure(&it, &nominal, &got);
        if (why >= 0) {
            t->departed++;
            t->departures[why]++;
            continue;
        }
        CHECK(!"a decoded value's type differs from its field's nominal type");
        fprintf(stderr, "  %s.%s: in %u out %u: nominal kind %d bits %u format %u, decoded kind %d bits %u format %u\n",
                etl_schema_event_name(s), it.name, it.in_type, it.out_type, nominal.kind, nominal.bits,
                nominal.format, got.kind, got.bits, got.format);
    }
}

static void test_capture(const char *dir, const char *file, const char *manifests, tally *t)
{
    char *path = g_build_filename(dir, file, NULL);
    etl_schema_cache *cache = etl_schema_cache_new(NULL);
    etl_registry *reg = etl_registry_new(cache, quiet, NULL);
    etl_registry_add_path(reg, manifests);
    etl_error err;
    const etl_observer obs = etl_registry_observer(reg);
    if (etl_prescan_file(path, &obs, 1, &err) != ETL_OK) { /* the empty capture */
        etl_registry_free(reg);
        etl_schema_cache_free(cache);
        g_free(path);
        return;
    }
    GHashTable *walks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    etl_options opt = {0};
    opt.order = ETL_ORDER_FILE;
    etl_reader *r;
    CHECK(etl_reader_open_file(path, &opt, &r, &err) == ETL_OK);
    etl_record rec;
    uint64_t before = t->values;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        const etl_schema *s = NULL;
        etl_fields f;
        if (etl_record_is_classic(&rec)) {
            etl_classic_key k;
            if (!etl_classic_key_of(&rec, &k) ||
                etl_registry_lookup_classic(reg, &k.cls, k.type, k.version, rec.pointer_size, &s, NULL) != ETL_OK)
                s = NULL;
        } else if (etl_record_tl_schema(&rec)) {
            if (etl_fields_start_record(&f, cache, &rec, &s, NULL) != ETL_OK)
                s = NULL;
        } else if (etl_registry_lookup(reg, &rec, &s, NULL) != ETL_OK) {
            s = NULL;
        }
        if (s && !s->unknown)
            check_record(s, &rec, walks, t);
    }
    etl_reader_close(r);
    printf("%-52s %8" PRIu64 " values checked\n", file, t->values - before);
    g_hash_table_destroy(walks);
    etl_registry_free(reg);
    etl_schema_cache_free(cache);
    g_free(path);
}

/* Every in/out pair on well-formed bytes of its in-type: the decoded value has the nominal
 * type, with the byte count known and not; and the departures the bytes can force. */
static void test_pairs(void)
{
    /* a SYSTEMTIME (2021-09-09 14:59:35.799), a SID (S-1-5-18), then more bytes */
    static const uint8_t good[32] = { 0xE5, 0x07, 9, 0, 4, 0, 9, 0, 14, 0, 59, 0, 35, 0, 0x1F, 0x03,
                                      1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0, 'a', 0, 0, 0 };
    static const unsigned ins[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
                                    25, 300, 301, 302, 303, 304, 305, 306, 307, 308, 309, 310, 999 };
    unsigned pairs = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(ins); i++) {
        unsigned in = ins[i];
        const uint8_t *p = good;
        size_t n = 16;
        if (in == ETL_IN_SID || in == ETL_IN_WBEMSID) {
            p = good + 16;
            n = 12;
        }
        for (unsigned out = 0; out <= 302; out = out == 38 ? 300 : out + 1) {
            for (int ps = 4; ps <= 8; ps += 4) {
                etl_value got, at_n, any;
                etl_value_decode_raw(in, out, p, n, (uint8_t)ps, &got, scratch, sizeof scratch);
                etl_value_nominal(in, out, (uint8_t)ps, n, &at_n);
                etl_value_nominal(in, out, (uint8_t)ps, ETL_VALUE_SIZE_ANY, &any);
                CHECK(same_type(&at_n, &got));
                CHECK(same_type(&any, &got)); /* 16 bytes: an IPV6 is one */
                if (!same_type(&at_n, &got) || !same_type(&any, &got))
                    fprintf(stderr, "  in %u out %u ps %d: nominal kind %d bits %u format %u, decoded kind %d bits %u "
                            "format %u\n", in, out, ps, at_n.kind, at_n.bits, at_n.format, got.kind, got.bits, got.format);
                pairs++;
            }
        }
    }
    printf("%u in/out pairs: decoded values of their nominal type\n", pairs);
    /* the bytes' departures */
    static const uint8_t ones[16] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                      0xFF, 0xFF, 0xFF, 0xFF };
    etl_value v, nom;
    etl_value_nominal(ETL_IN_FILETIME, 0, 8, 8, &nom);
    CHECK(nom.kind == ETL_VALUE_FILETIME);
    etl_value_decode_raw(ETL_IN_FILETIME, 0, ones, 8, 8, &v, scratch, sizeof scratch);
    CHECK(v.kind == ETL_VALUE_UINT && v.bits == 64);
    etl_value_decode_raw(ETL_IN_SYSTEMTIME, 0, ones, 16, 8, &v, scratch, sizeof scratch);
    CHECK(v.kind == ETL_VALUE_BYTES && v.bytes_len == 16);
    etl_value_decode_raw(ETL_IN_SID, 0, ones, 3, 8, &v, scratch, sizeof scratch);
    CHECK(v.kind == ETL_VALUE_BYTES);
    etl_value_decode_raw(ETL_IN_UINT32, 0, ones, 3, 8, &v, scratch, sizeof scratch);
    etl_value_nominal(ETL_IN_UINT32, 0, 8, 3, &nom);
    CHECK(v.kind == ETL_VALUE_NONE && nom.kind == ETL_VALUE_NONE);
    etl_value_decode_raw(ETL_IN_BINARY, ETL_OUT_IPV6, ones, 4, 8, &v, scratch, sizeof scratch);
    etl_value_nominal(ETL_IN_BINARY, ETL_OUT_IPV6, 8, ETL_VALUE_SIZE_ANY, &nom);
    CHECK(v.format == ETL_OUT_HEXBINARY && nom.format == ETL_OUT_IPV6 && nom.bytes_len == 16);
}

int main(int argc, char **argv)
{
    test_pairs();
    if (argc < 3) {
        fprintf(stderr, "usage: test_schema_walk CAPTURES MANIFESTS\n");
        return 2;
    }
    etl_schema_cache *cache = etl_schema_cache_new(NULL);
    found fd = { etl_registry_new(cache, quiet, NULL), false };
    etl_registry_add_path(fd.reg, argv[2]);
    etl_registry_foreach_classic_event(fd.reg, walk_classic, fd.reg);
    uint64_t classic = walked_schemas;
    etl_registry_foreach_file_event(fd.reg, walk_manifest_event, &fd);
    printf("walked %" PRIu64 " kernel class schemas and %" PRIu64 " manifest schemas, %" PRIu64 " values\n", classic,
           walked_schemas - classic, walked_values);
    CHECK(classic > 500 && walked_schemas - classic > 1000);
    CHECK(fd.per_heap_values);
    etl_registry_free(fd.reg);
    etl_schema_cache_free(cache);

    tally t = {0};
    GDir *d = g_dir_open(argv[1], 0, NULL);
    CHECK(d != NULL);
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const char *n;
    while (d && (n = g_dir_read_name(d)))
        if (g_str_has_suffix(n, ".etl"))
            g_ptr_array_add(names, g_strdup(n));
    if (d)
        g_dir_close(d);
    for (guint i = 0; i < names->len; i++)
        test_capture(argv[1], g_ptr_array_index(names, i), argv[2], &t);
    g_ptr_array_free(names, TRUE);
    printf("%" PRIu64 " values: %" PRIu64 " of their field's nominal type, %" PRIu64 " departed by their bytes "
           "(filetime %" PRIu64 ", systemtime %" PRIu64 ", sid %" PRIu64 ", short %" PRIu64 ", ipv6 size %" PRIu64 ")\n",
           t.values, t.agree, t.departed, t.departures[0], t.departures[1], t.departures[2], t.departures[3],
           t.departures[4]);
    printf("%" PRIu64 " character arrays, as one string by the enumerator and the walk alike\n", t.char_arrays);
    CHECK(t.values > 1000000 && t.char_arrays > 0);
    CHECK_EQ_U(t.agree + t.departed, t.values);
    printf("%" PRIu64 " values decoded from their step's nominal type, equal to the rule worked out afresh\n",
           t.step_path);
    CHECK(t.step_path + t.char_arrays >= t.values && t.step_path > 1000000);
    CHECK_MAIN_END();
}
