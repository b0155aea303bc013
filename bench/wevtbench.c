/* wevtbench - provider binaries on the manifest path: what indexing a folder of them costs at
 * start-up, and that they cost nothing per event afterwards.
 *
 *   wevtbench [--repeat N] [--files N] WEVT_DIR CAPTURE
 *
 * The fixture: a temporary folder of N (3,000) small synthetic PE files (tests/unit/pe_build.h),
 * PE32 and PE32+ alternating, one in ten with a WEVT_TEMPLATE (libfwevt's CRIM blob from WEVT_DIR
 * under a GUID of its own), the rest without - as in a System32 copy, where most binaries define
 * no provider.  It is removed at the end.  Rows (best of N runs):
 *   md5          the yardstick: MD5 of every fixture file, read from disk (wall and CPU)
 *   index        etl_registry_add_path on the folder: every file mapped, its headers and resource
 *                tree read, the WEVT_TEMPLATEs' provider GUIDs indexed (no template is read)
 *   decode       every record of CAPTURE resolved and its fields enumerated (etl_decoder_resolve,
 *                etl_fields_next) with WEVT_DIR/clretwrc.dll on the path, then with the folder
 *                after it: ns per record, and the ratio of the two (alternating runs)
 * Goals (issue 15): the index under one second, the two decode rows equal. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "bench_util.h"
#include "etl_format.h"
#include "fields.h"
#include "resolve.h"
#include "../tests/unit/pe_build.h"

static volatile uint64_t sink;

/* The fixture folder; its path (g_free) and the files in it. */
static char *make_fixture(const char *wevt_dir, unsigned files, GPtrArray *paths)
{
    char *dir = g_dir_make_tmp("wevtbench_XXXXXX", NULL), *blob_path = g_build_filename(wevt_dir, "libfwevt_manifest.1", NULL);
    gchar *blob;
    gsize blen;
    if (!dir || !g_file_get_contents(blob_path, &blob, &blen, NULL)) {
        fprintf(stderr, "wevtbench: cannot read %s or make a folder\n", blob_path);
        exit(2);
    }
    for (unsigned i = 0; i < files; i++) {
        bool schema = i % 10 == 0, wide = i % 2 == 0;
        if (schema)
            memcpy(blob + 16, &i, sizeof i); /* the provider GUID's first bytes: one per file */
        GByteArray *img = pe_build_image(schema ? (const uint8_t *)blob : NULL, blen, NULL, wide, NULL);
        char name[32];
        snprintf(name, sizeof name, "bin%05u.%s", i, i % 3 == 0 ? "exe" : "dll");
        char *path = g_build_filename(dir, name, NULL);
        if (!g_file_set_contents(path, (const char *)img->data, img->len, NULL)) {
            fprintf(stderr, "wevtbench: cannot write %s\n", path);
            exit(2);
        }
        g_ptr_array_add(paths, path);
        g_byte_array_unref(img);
    }
    g_free(blob);
    g_free(blob_path);
    return dir;
}

static double md5_files(const GPtrArray *paths)
{
    double w0 = bench_wall_now();
    for (guint i = 0; i < paths->len; i++) {
        gchar *d;
        gsize n;
        if (!g_file_get_contents(paths->pdata[i], &d, &n, NULL))
            continue;
        char *sum = g_compute_checksum_for_data(G_CHECKSUM_MD5, (const guchar *)d, n);
        sink += (uint64_t)sum[0];
        g_free(sum);
        g_free(d);
    }
    return bench_wall_now() - w0;
}

/* Every record of the capture resolved and enumerated, through a decoder with `path`. */
static double decode(const struct mem *m, const char *path, uint64_t *records)
{
    etl_decoder *d = etl_decoder_new(bench_quiet, NULL);
    etl_registry_add_path(etl_decoder_registry(d), path);
    double c0 = bench_cpu_now();
    etl_reader *r = bench_open_memory("wevtbench", m);
    etl_record rec;
    etl_error err;
    etl_resolved res;
    etl_fields f;
    etl_item it;
    uint64_t n = 0, acc = 0;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        n++;
        etl_decoder_resolve(d, &rec, 0, &res, &f);
        if (res.schema)
            while (etl_fields_next(&f, &it) != ETL_ITEM_END)
                acc += it.size;
    }
    etl_reader_close(r);
    double t = bench_cpu_now() - c0;
    etl_decoder_free(d);
    sink += acc;
    *records = n;
    return t;
}

int main(int argc, char **argv)
{
    int repeat = 5, a = 1;
    unsigned files = 3000;
    for (; a < argc; a++) {
        if (strcmp(argv[a], "--repeat") == 0 && a + 1 < argc)
            repeat = atoi(argv[++a]);
        else if (strcmp(argv[a], "--files") == 0 && a + 1 < argc)
            files = (unsigned)atoi(argv[++a]);
        else
            break;
    }
    if (argc - a != 2 || repeat < 1) {
        fputs("usage: wevtbench [--repeat N] [--files N] WEVT_DIR CAPTURE\n", stderr);
        return 2;
    }
    const char *wevt_dir = argv[a], *capture = argv[a + 1];
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    char *dir = make_fixture(wevt_dir, files, paths);

    double best_md5 = 1e30, best_wall = 1e30, best_cpu = 1e30;
    etl_registry_stats st = {0};
    for (int k = 0; k < repeat; k++) {
        double t = md5_files(paths);
        if (t < best_md5)
            best_md5 = t;
        etl_schema_cache *c = etl_schema_cache_new(NULL);
        etl_registry *s = etl_registry_new(c, bench_quiet, NULL);
        double w0 = bench_wall_now(), c0 = bench_cpu_now();
        etl_registry_add_path(s, dir);
        double cpu = bench_cpu_now() - c0, wall = bench_wall_now() - w0;
        st = *etl_registry_get_stats(s);
        etl_registry_free(s);
        etl_schema_cache_free(c);
        if (wall < best_wall)
            best_wall = wall;
        if (cpu < best_cpu)
            best_cpu = cpu;
    }
    printf("fixture: %u PE files (%u with a WEVT_TEMPLATE)\n", files, st.binaries_indexed);
    printf("md5 of every file     %8.1f ms wall\n", best_md5 * 1e3);
    printf("index the folder      %8.1f ms wall, %.1f ms CPU (%.2fx md5); %u indexed, %u without a schema, %u read, "
           "%u failed\n",
           best_wall * 1e3, best_cpu * 1e3, best_wall / best_md5, st.binaries_indexed, st.binaries_without_schema,
           st.binaries_read, st.binaries_failed);

    struct mem m = bench_read_file("wevtbench", capture);
    char *clr = g_build_filename(wevt_dir, "clretwrc.dll", NULL);
    char *both = g_strjoin(G_SEARCHPATH_SEPARATOR_S, clr, dir, NULL);
    double best_a = 1e30, best_b = 1e30;
    uint64_t records = 0;
    for (int k = 0; k < repeat; k++) {
        double ta = decode(&m, clr, &records), tb = decode(&m, both, &records);
        if (ta < best_a)
            best_a = ta;
        if (tb < best_b)
            best_b = tb;
    }
    printf("decode, clretwrc.dll  %8.1f ns/record (%llu records)\n", best_a * 1e9 / (double)records,
           (unsigned long long)records);
    printf("decode, + the folder  %8.1f ns/record (%.3fx)\n", best_b * 1e9 / (double)records, best_b / best_a);

    for (guint i = 0; i < paths->len; i++)
        g_remove(paths->pdata[i]);
    g_rmdir(dir);
    g_ptr_array_free(paths, TRUE);
    g_free(dir);
    g_free(clr);
    g_free(both);
    free((void *)m.p);
    return 0;
}
