/* Unit tests of carried.c: the schemas merged traces carry (KernelTraceControl MetaData) read
 * from the real net452 capture into the manifest model, and malformed ones refused alone. */
#include <glib.h>

#include "carried.h"
#include "check.h"
#include "etl_format.h"

static const etl_mf_provider *by_guid(const etl_manifest *m, const char *g)
{
    etl_guid want;
    etl_parse_guid(g, &want);
    for (uint32_t i = 0; i < etl_manifest_provider_count(m); i++)
        if (etl_guid_equal(&etl_manifest_provider(m, i)->guid, &want))
            return etl_manifest_provider(m, i);
    return NULL;
}

static void test_net452(const char *path)
{
    etl_reader *r;
    etl_error e;
    CHECK(etl_reader_open_file(path, NULL, &r, &e) == ETL_OK);
    if (!r)
        return;
    etl_carried *c = etl_carried_new();
    etl_record rec;
    unsigned seen = 0, refused = 0;
    while (etl_reader_next(r, &rec, &e) == ETL_OK)
        if (etl_carried_is_metadata(&rec)) {
            seen++;
            if (etl_carried_add(c, &rec, &e) != ETL_OK) {
                refused++;
                fprintf(stderr, "refused: %s\n", e.message);
            }
        }
    etl_reader_close(r);
    CHECK_EQ_U(seen, 44 + 17 + 14 + 10); /* expected.json's MetaData records: EventInfo and EventMapInfo */
    CHECK_EQ_U(refused, 0);
    CHECK(etl_carried_event_count(c) > 20);
    CHECK(etl_carried_map_count(c) > 5);
    etl_manifest *m;
    CHECK(etl_carried_build(c, &m, &e) == ETL_OK);
    if (!m) {
        fprintf(stderr, "%s\n", e.message);
        etl_carried_free(c);
        return;
    }
    /* Microsoft-Windows-DNS-Client 1001: six properties, Address's length from AddressLength,
     * DynamicAddress through DnsIpTypeMap */
    const etl_mf_provider *dns = by_guid(m, "1c95126e-7eea-49a9-a3fe-a378b03ddb4d");
    CHECK(dns && strcmp(dns->name, "Microsoft-Windows-DNS-Client") == 0);
    const etl_mf_event *ev = dns ? etl_mf_find_event(dns, 1001, 0) : NULL;
    CHECK(ev && ev->tmpl && ev->tmpl->prop_count == 6);
    if (ev && ev->tmpl) {
        CHECK_STR(ev->task_name, "DnsServerForInterface");
        CHECK_EQ_U(ev->task, 1001);
        CHECK_EQ_U(ev->level, 4);
        const etl_mf_property *a = &ev->tmpl->props[5];
        CHECK_STR(a->name, "Address");
        CHECK_EQ_U(a->in_type, 14);
        CHECK_EQ_U(a->out_type, 25);
        CHECK_EQ_U(a->length_ref, 4);
        CHECK_STR(ev->tmpl->props[3].map_name, "DnsIpTypeMap");
        const etl_mf_map *map = etl_mf_find_map(dns, "DnsIpTypeMap");
        CHECK(map && map->entry_count == 2 && strcmp(map->entries[1].text, "dynamic") == 0);
    }
    /* the CLR's carried schemas keep the manifest's internal names (issue: a manifest on the
     * path must win for display names) */
    const etl_mf_provider *clr = by_guid(m, "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
    ev = clr ? etl_mf_find_event(clr, 12, 1) : NULL;
    CHECK(ev != NULL);
    if (ev) {
        CHECK_STR(ev->task_name, "GarbageCollection");
        CHECK_STR(ev->opcode_name, "GCTerminateConcurrentThread");
    }
    etl_manifest_free(m);
    etl_carried_free(c);
}

/* A hand-built TRACE_EVENT_INFO inside a FULL_HEADER64 record. */
static uint8_t rec_bytes[2048];

static void put16(size_t o, unsigned v) { rec_bytes[o] = (uint8_t)v; rec_bytes[o + 1] = (uint8_t)(v >> 8); }
static void put32(size_t o, uint32_t v) { put16(o, v & 0xFFFF); put16(o + 2, v >> 16); }
static size_t put_w(size_t o, const char *s)
{
    for (; *s; s++, o += 2)
        put16(o, (unsigned char)*s);
    put16(o, 0);
    return o + 2;
}

static etl_status add_hand_built(etl_carried *c, unsigned nprops, uint16_t struct_start, uint16_t members,
                                 size_t cut, etl_error *e)
{
    memset(rec_bytes, 0, sizeof rec_bytes);
    size_t P = 0x30; /* payload after the 0x30-byte classic header */
    const uint8_t guid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    memcpy(rec_bytes + P, guid, 16);
    put16(P + 32, 7);  /* id */
    rec_bytes[P + 36] = 4;
    put32(P + 100, nprops);
    put32(P + 104, 1);
    size_t names = 112 + 24 * nprops, o = names;
    put32(P + 52, (uint32_t)o);
    o = put_w(P + o, "Hand") - P;
    for (unsigned i = 0; i < nprops; i++) {
        size_t e0 = P + 112 + 24 * i;
        put32(e0 + 4, (uint32_t)o);
        char nm[8] = {'F', (char)('0' + i), 0};
        o = put_w(P + o, nm) - P;
        if (i == 0 && members) {
            put32(e0, 1); /* struct */
            put16(e0 + 8, struct_start);
            put16(e0 + 10, members);
        } else {
            put16(e0 + 8, 8); /* win:UInt32 */
            put16(e0 + 16, 1);
        }
    }
    size_t size = P + o;
    if (cut)
        size = cut;
    rec_bytes[0] = (uint8_t)size;
    rec_bytes[1] = (uint8_t)(size >> 8);
    rec_bytes[2] = 0x14;
    rec_bytes[3] = 0xC0;
    rec_bytes[4] = 32; /* EventInfo */
    const uint8_t md[16] = {0xc1, 0xf6, 0xcc, 0xbb, 0xd1, 0x6c, 0xc4, 0x48, 0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71};
    memcpy(rec_bytes + 0x18, md, 16);
    etl_record rec;
    uint32_t stride;
    memset(&rec, 0, sizeof rec);
    if (etl_frame_record(rec_bytes, size, 8, &rec, &stride, e) != ETL_OK)
        return ETL_ERR_CORRUPT;
    return etl_carried_add(c, &rec, e);
}

static void test_malformed(void)
{
    etl_carried *c = etl_carried_new();
    etl_error e;
    /* a struct whose members include itself: refused, not a loop */
    CHECK(add_hand_built(c, 2, 0, 2, 0, &e) == ETL_ERR_CORRUPT);
    /* members past the property array */
    CHECK(add_hand_built(c, 2, 1, 5, 0, &e) == ETL_ERR_CORRUPT);
    CHECK(strstr(e.message, "struct property") != NULL);
    /* properties running past the event */
    CHECK(add_hand_built(c, 3, 0, 0, 0x30 + 112 + 10, &e) == ETL_ERR_TRUNCATED);
    /* header cut */
    CHECK(add_hand_built(c, 1, 0, 0, 0x30 + 50, &e) == ETL_ERR_TRUNCATED);
    CHECK_EQ_U(etl_carried_event_count(c), 0);
    /* and a good one still goes in after all that */
    CHECK(add_hand_built(c, 2, 1, 1, 0, &e) == ETL_OK);
    CHECK_EQ_U(etl_carried_event_count(c), 1);
    etl_manifest *m;
    CHECK(etl_carried_build(c, &m, &e) == ETL_OK);
    if (m) {
        const etl_mf_event *ev = etl_mf_find_event(etl_manifest_provider(m, 0), 7, 0);
        CHECK(ev && ev->tmpl && ev->tmpl->prop_count == 2 && ev->tmpl->props[0].is_struct);
        CHECK_STR(etl_manifest_provider(m, 0)->name, "Hand");
        etl_manifest_free(m);
    }
    etl_carried_free(c);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_carried NET452_CAPTURE\n");
        return 2;
    }
    test_net452(argv[1]);
    test_malformed();
    CHECK_MAIN_END();
}
