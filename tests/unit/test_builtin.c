/* test_builtin.c - the built-in packet capture layouts (builtin.h, schema/packet/packet-capture.man):
 *   - pktmon: field by field equal to the schema the shared pktmon capture carries (names, types,
 *     lengths, maps and their entries, messages) for every event the capture describes;
 *   - ndiscap: the same names and in-types as the provider's manifest in ../shared/manifests
 *     (read in place) for every event the document declares;
 *   - the registry: the lowest-precedence source - a lookup with no other source finds it, a
 *     manifest file defining the same event wins.
 * Usage: test_builtin PKTMON_CAPTURE NDISCAP_MANIFEST */
#include <string.h>

#include "builtin.h"
#include "carried.h"
#include "check.h"
#include "etl_packet.h"
#include "registry.h"

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static const etl_mf_provider *provider(const etl_manifest *m, const etl_guid *g)
{
    for (uint32_t i = 0; i < etl_manifest_provider_count(m); i++)
        if (memcmp(&etl_manifest_provider(m, i)->guid, g, sizeof *g) == 0)
            return etl_manifest_provider(m, i);
    return NULL;
}

static void compare_maps(const etl_mf_provider *a, const etl_mf_provider *b, const char *name)
{
    const etl_mf_map *x = etl_mf_find_map(a, name), *y = etl_mf_find_map(b, name);
    CHECK(x && y);
    if (!x || !y)
        return;
    CHECK(x->is_bitmap == y->is_bitmap);
    CHECK_EQ_U(x->entry_count, y->entry_count);
    for (uint32_t i = 0; i < x->entry_count && i < y->entry_count; i++) {
        CHECK_EQ_U(x->entries[i].value, y->entries[i].value);
        CHECK(same_str(x->entries[i].text, y->entries[i].text));
    }
}

/* Every event of `want`: the same in `got`, property by property (strict: out-types, lengths,
 * counts, maps and messages too). */
static void compare_events(const etl_mf_provider *got, const etl_mf_provider *want, bool strict, unsigned *events)
{
    for (uint32_t e = 0; e < want->event_count; e++) {
        const etl_mf_event *w = &want->events[e];
        const etl_mf_event *g = etl_mf_find_event(got, w->id, w->version);
        if (!g) {
            if (strict) {
                fprintf(stderr, "event %u version %u missing from the built-in document\n", w->id, w->version);
                CHECK(g != NULL);
            }
            continue;
        }
        (*events)++;
        CHECK((g->tmpl == NULL) == (w->tmpl == NULL));
        if (!g->tmpl || !w->tmpl)
            continue;
        CHECK_EQ_U(g->tmpl->prop_count, w->tmpl->prop_count);
        for (uint32_t i = 0; i < g->tmpl->prop_count && i < w->tmpl->prop_count; i++) {
            const etl_mf_property *a = &g->tmpl->props[i], *b = &w->tmpl->props[i];
            if (!same_str(a->name, b->name) || a->in_type != b->in_type)
                fprintf(stderr, "event %u property %u: %s/%u vs %s/%u\n", w->id, i, a->name, a->in_type, b->name,
                        b->in_type);
            CHECK(same_str(a->name, b->name));
            CHECK_EQ_U(a->in_type, b->in_type);
            CHECK(a->has_length == b->has_length && a->length_ref == b->length_ref);
            CHECK(a->has_count == b->has_count && a->count_ref == b->count_ref);
            if (a->length_ref == ETL_MF_NO_REF)
                CHECK_EQ_U(a->length, b->length);
            if (strict) {
                CHECK_EQ_U(a->out_type, b->out_type);
                CHECK(same_str(a->map_name, b->map_name));
                if (a->map_name && b->map_name)
                    compare_maps(got, want, a->map_name);
            }
        }
        if (strict) {
            CHECK(same_str(g->message, w->message));
            CHECK_EQ_U(g->level, w->level);
        }
    }
}

static void test_pktmon_agrees(const etl_manifest *builtin, const char *capture)
{
    etl_reader *r;
    etl_error err;
    if (etl_reader_open_file(capture, NULL, &r, &err) != ETL_OK) {
        CHECK(!"open the pktmon capture");
        return;
    }
    etl_carried *c = etl_carried_new();
    etl_record rec;
    while (etl_reader_next(r, &rec, &err) == ETL_OK)
        if (etl_carried_is_metadata(&rec))
            etl_carried_add(c, &rec, &err);
    etl_reader_close(r);
    etl_manifest *m = NULL;
    CHECK(etl_carried_build(c, &m, &err) == ETL_OK);
    const etl_mf_provider *want = m ? provider(m, &etl_pktmon_guid) : NULL;
    const etl_mf_provider *got = provider(builtin, &etl_pktmon_guid);
    CHECK(want && got);
    if (want && got) {
        unsigned events = 0;
        compare_events(got, want, true, &events);
        CHECK_EQ_U(events, 12); /* every event the capture describes */
        CHECK(same_str(got->name, want->name));
        /* the drop event has the packet event's fields */
        const etl_mf_event *drop = etl_mf_find_event(got, ETL_PKTMON_EV_DROP, 0);
        const etl_mf_event *pkt = etl_mf_find_event(got, ETL_PKTMON_EV_PACKET, 0);
        CHECK(drop && pkt && drop->tmpl == pkt->tmpl);
    }
    etl_manifest_free(m);
    etl_carried_free(c);
}

static void test_ndiscap_agrees(const etl_manifest *builtin, const char *path)
{
    etl_manifest *m;
    etl_error err;
    if (etl_manifest_load_file(path, &m, &err) != ETL_OK) {
        fprintf(stderr, "%s\n", err.message);
        CHECK(!"load the ndiscap manifest");
        return;
    }
    const etl_mf_provider *got = provider(builtin, &etl_ndiscap_guid), *want = provider(m, &etl_ndiscap_guid);
    CHECK(got && want);
    if (got && want) {
        unsigned events = 0;
        compare_events(got, want, false, &events);
        CHECK_EQ_U(events, got->event_count); /* every built-in event is in the provider's manifest */
        CHECK(same_str(got->name, want->name));
        CHECK_EQ_U(got->keyword_count, 16);
        for (uint32_t k = 0; k < got->keyword_count; k++) {
            bool found = false;
            for (uint32_t j = 0; j < want->keyword_count; j++)
                found |= want->keywords[j].value == got->keywords[k].value &&
                         same_str(want->keywords[j].name, got->keywords[k].name);
            CHECK(found);
        }
    }
    etl_manifest_free(m);
}

static void test_registry(const char *ndiscap_manifest)
{
    etl_schema_cache *cache = etl_schema_cache_new(NULL);
    etl_registry *s = etl_registry_new(cache, NULL, NULL);
    const etl_schema *sc;
    etl_error err;
    CHECK_EQ_U(etl_registry_lookup_key(s, &etl_pktmon_guid, 160, 0, 8, &sc, &err), ETL_OK);
    CHECK_EQ_U(etl_registry_lookup_key(s, &etl_pktmon_guid, 170, 0, 8, &sc, &err), ETL_OK);
    CHECK_EQ_U(etl_registry_lookup_key(s, &etl_ndiscap_guid, 1001, 0, 8, &sc, &err), ETL_OK);
    CHECK_EQ_U(etl_registry_lookup_key(s, &etl_ndiscap_guid, 1003, 0, 4, &sc, &err), ETL_OK);
    CHECK(same_str(etl_registry_provider_name(s, &etl_ndiscap_guid), "Microsoft-Windows-NDIS-PacketCapture"));
    CHECK_EQ_U(etl_registry_lookup_key(s, &etl_ndiscap_guid, 9999, 0, 8, &sc, &err), ETL_ERR_NOT_FOUND);
    /* a manifest file wins: its 5100 (not built in) now resolves, and the file's 1001 is used */
    CHECK_EQ_U(etl_registry_add_file(s, ndiscap_manifest, &err), ETL_OK);
    CHECK_EQ_U(etl_registry_lookup_key(s, &etl_ndiscap_guid, 5100, 0, 8, &sc, &err), ETL_OK);
    etl_registry_free(s);
    etl_schema_cache_free(cache);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_builtin PKTMON_CAPTURE NDISCAP_MANIFEST\n");
        return 2;
    }
    etl_manifest *b;
    etl_error err;
    CHECK(etl_builtin_packet_manifest(&b, &err) == ETL_OK);
    if (b) {
        test_pktmon_agrees(b, argv[1]);
        test_ndiscap_agrees(b, argv[2]);
        etl_manifest_free(b);
    }
    test_registry(argv[2]);
    CHECK_MAIN_END();
}
