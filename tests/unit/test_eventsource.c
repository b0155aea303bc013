/* Unit tests of eventsource.c: EventSource manifests reassembled from the real captures; chunks
 * out of sequence refused without losing the rest. */
#include <glib.h>

#include "check.h"
#include "etl_format.h"
#include "eventsource.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reassemble every manifest of a capture; returns the provider names, ';'-joined. */
static char *names_in(const char *path, uint32_t *chunks, uint32_t *refused)
{
    etl_reader *r;
    etl_error e;
    GString *names = g_string_new(NULL);
    *chunks = *refused = 0;
    if (etl_reader_open_file(path, NULL, &r, &e) != ETL_OK) {
        fprintf(stderr, "%s: %s\n", path, e.message);
        return g_string_free(names, FALSE);
    }
    etl_es_collector *c = etl_es_collector_new();
    etl_record rec;
    while (etl_reader_next(r, &rec, &e) == ETL_OK) {
        if (!etl_es_is_manifest_chunk(&rec))
            continue;
        (*chunks)++;
        etl_manifest *m = NULL;
        if (etl_es_add(c, &rec, &m, &e) != ETL_OK) {
            (*refused)++;
            fprintf(stderr, "%s: %s\n", path, e.message);
        }
        for (uint32_t i = 0; m && i < etl_manifest_provider_count(m); i++) {
            const etl_mf_provider *p = etl_manifest_provider(m, i);
            char g[ETL_GUID_STR_SIZE];
            etl_format_guid(&p->guid, g);
            CHECK(etl_guid_equal(&p->guid, &rec.provider)); /* the manifest is its sender's */
            CHECK(p->event_count > 0);
            g_string_append_printf(names, "%s%s", names->len ? ";" : "", p->name);
        }
        etl_manifest_free(m);
    }
    etl_es_collector_free(c);
    etl_reader_close(r);
    /* in name order, so the comparison does not depend on delivery order */
    char **v = g_strsplit(names->str, ";", -1);
    g_string_free(names, TRUE);
    qsort(v, g_strv_length(v), sizeof *v, cmp_str);
    char *joined = g_strjoinv(";", v);
    g_strfreev(v);
    return joined;
}

static void test_captures(const char *shared)
{
    uint32_t chunks, refused;
    char *p = g_build_filename(shared, "perfview_net452_x64_merged_compressed.etl", NULL);
    char *n = names_in(p, &chunks, &refused);
    CHECK_STR(n, "PerfView;System.Diagnostics.Eventing.FrameworkEventSource;System.Threading.Tasks.TplEventSource");
    CHECK_EQ_U(chunks, 4);
    CHECK_EQ_U(refused, 0);
    g_free(p);
    g_free(n);
    p = g_build_filename(shared, "tx_BondEtwSample_eventsource.etl", NULL);
    n = names_in(p, &chunks, &refused);
    CHECK_STR(n, "MSOpenTech-Tx-BinaryEventSource");
    CHECK_EQ_U(refused, 0);
    g_free(p);
    g_free(n);
    /* the diaghub trace sends TplEventSource's manifest twice: taken once */
    p = g_build_filename(shared, "perfview_diaghub_user_paged_clr_tl.etl", NULL);
    n = names_in(p, &chunks, &refused);
    CHECK_STR(n, "System.Threading.Tasks.TplEventSource");
    CHECK_EQ_U(chunks, 2);
    g_free(p);
    g_free(n);
}

/* Chunk records made by hand: EVENT_HEADER64 with the manifest descriptor. */
static uint8_t buf[4][256];

static void make_chunk(int i, uint16_t number, uint16_t total, uint8_t magic, const char *text)
{
    uint8_t *b = buf[i];
    memset(b, 0, sizeof buf[i]);
    size_t n = strlen(text), size = 0x50 + 8 + n;
    b[0] = (uint8_t)size;
    b[2] = 0x13;
    b[3] = 0xC0;
    b[0x0C] = 9; /* pid */
    b[0x18] = 0xAA; /* provider */
    b[0x28] = 0xFE;
    b[0x29] = 0xFF; /* id 0xFFFE */
    b[0x2D] = 0xFE; /* opcode */
    b[0x2E] = 0xFE;
    b[0x2F] = 0xFF; /* task 0xFFFE */
    uint8_t *p = b + 0x50;
    p[0] = 1;
    p[1] = 1;
    p[3] = magic;
    p[4] = (uint8_t)total;
    p[6] = (uint8_t)number;
    memcpy(p + 8, text, n);
}

static etl_status feed(etl_es_collector *c, int i, etl_manifest **m, etl_error *e)
{
    etl_record rec;
    uint32_t stride;
    memset(&rec, 0, sizeof rec);
    if (etl_frame_record(buf[i], buf[i][0], 8, &rec, &stride, e) != ETL_OK)
        return ETL_ERR_CORRUPT;
    return etl_es_add(c, &rec, m, e);
}

static void test_sequence(void)
{
    static const char *part1 = "<instrumentationManifest><instrumentation><events>"
                               "<provider name=\"Hand\" guid=\"{000000aa-0000-0000-0000-000000000000}\">";
    static const char *part2 = "<events><event value=\"1\"/></events></provider></events></instrumentation>"
                               "</instrumentationManifest>";
    etl_es_collector *c = etl_es_collector_new();
    etl_manifest *m = NULL;
    etl_error e;
    make_chunk(0, 0, 2, 0x5B, part1);
    make_chunk(1, 1, 2, 0x5B, part2);
    make_chunk(2, 1, 2, 0x5C, part2); /* bad magic */
    make_chunk(3, 2, 2, 0x5B, part2); /* number >= total */
    CHECK(feed(c, 2, &m, &e) == ETL_ERR_CORRUPT && strstr(e.message, "magic") != NULL);
    CHECK(feed(c, 3, &m, &e) == ETL_ERR_CORRUPT);
    CHECK(feed(c, 1, &m, &e) == ETL_ERR_CORRUPT && strstr(e.message, "was due") != NULL); /* no chunk 0 yet */
    CHECK(feed(c, 0, &m, &e) == ETL_OK && m == NULL);
    CHECK(feed(c, 1, &m, &e) == ETL_OK && m != NULL);
    if (m)
        CHECK(etl_mf_find_event(etl_manifest_provider(m, 0), 1, 0) != NULL);
    etl_manifest_free(m);
    /* the same manifest again: taken once */
    CHECK(feed(c, 0, &m, &e) == ETL_OK && feed(c, 1, &m, &e) == ETL_OK && m == NULL);
    CHECK_EQ_U(etl_es_manifest_count(c), 1);
    /* chunk 1 twice: the set is dropped, the next set starting at 0 works */
    CHECK(feed(c, 0, &m, &e) == ETL_OK);
    CHECK(feed(c, 1, &m, &e) == ETL_OK); /* completes (duplicate text, so m stays NULL) */
    CHECK(feed(c, 1, &m, &e) == ETL_ERR_CORRUPT);
    etl_es_collector_free(c);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_eventsource SHARED_CAPTURES\n");
        return 2;
    }
    test_captures(argv[1]);
    test_sequence();
    CHECK_MAIN_END();
}
