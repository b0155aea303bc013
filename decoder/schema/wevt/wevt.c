/* wevt.c - provider binaries as a schema source (wevt.h). */
#include "wevt.h"

#include <glib.h>
#include <string.h>

#include "crim.h"
#include "error.h"
#include "pe.h"

#define WEVT_RESOURCE_TYPE "WEVT_TEMPLATE"

bool etl_wevt_is_binary_name(const char *name)
{
    size_t n = strlen(name);
    if (n < 5 || name[n - 4] != '.')
        return false;
    const char *ext = name + n - 3;
    return g_ascii_strcasecmp(ext, "dll") == 0 || g_ascii_strcasecmp(ext, "exe") == 0 ||
           g_ascii_strcasecmp(ext, "sys") == 0;
}

/* Map a file read-only; NULL with *err set when it cannot be read or is too large. */
static GMappedFile *map(const char *path, const uint8_t **data, size_t *size, etl_error *err)
{
    GError *ge = NULL;
    GMappedFile *f = g_mapped_file_new(path, FALSE, &ge);
    if (!f) {
        etl_fail(err, ETL_ERR_IO, 0, "%s", ge->message);
        g_error_free(ge);
        return NULL;
    }
    *size = g_mapped_file_get_length(f);
    *data = (const uint8_t *)g_mapped_file_get_contents(f);
    if (*size > ETL_WEVT_MAX_FILE_SIZE) {
        etl_fail(err, ETL_ERR_LIMIT, 0, "%zu bytes: larger than a provider binary is read (%u)", *size,
                 ETL_WEVT_MAX_FILE_SIZE);
        g_mapped_file_unref(f);
        return NULL;
    }
    if (!*data)
        *data = (const uint8_t *)""; /* an empty file maps to NULL */
    return f;
}

/* Map the binary at `path` and find its WEVT_TEMPLATE: the mapping (unref it; NULL when the file
 * could not be mapped) and in *st whether the headers and the resource were found. */
static GMappedFile *open_binary(const char *path, etl_pe *pe, etl_pe_resource *r, etl_status *st, etl_error *err)
{
    const uint8_t *d;
    size_t n;
    GMappedFile *f = map(path, &d, &n, err);
    if (!f) {
        *st = err ? err->code : ETL_ERR_IO;
        return NULL;
    }
    *st = etl_pe_open(pe, d, n, err);
    if (*st == ETL_OK)
        *st = etl_pe_find_resource(pe, WEVT_RESOURCE_TYPE, 0, r, err);
    return f;
}

etl_status etl_wevt_index_file(const char *path, etl_guid **guids, uint32_t *count, etl_error *err)
{
    *guids = NULL;
    *count = 0;
    etl_pe pe;
    etl_pe_resource r;
    etl_status st;
    GMappedFile *f = open_binary(path, &pe, &r, &st, err);
    if (!f)
        return st;
    const uint8_t *d = pe.data;
    if (st == ETL_OK) {
        etl_guid *g = g_new0(etl_guid, ETL_CRIM_MAX_PROVIDERS);
        st = etl_crim_provider_guids(d + r.offset, r.size, r.offset, g, ETL_CRIM_MAX_PROVIDERS, count, err);
        if (st == ETL_OK && *count)
            *guids = g_renew(etl_guid, g, *count);
        else
            g_free(g);
    }
    g_mapped_file_unref(f);
    return st;
}

/* The MESSAGETABLE of a PE image, merged into t (none: nothing to do). */
static etl_status merge_messages(const etl_pe *pe, etl_msgtable *t, etl_error *err)
{
    etl_pe_resource r;
    etl_status st = etl_pe_find_resource(pe, NULL, ETL_PE_RT_MESSAGETABLE, &r, err);
    if (st == ETL_ERR_NOT_FOUND)
        return ETL_OK;
    if (st != ETL_OK)
        return st;
    return etl_msgtable_merge(t, pe->data + r.offset, r.size, r.offset, err);
}

etl_status etl_wevt_load_memory(const uint8_t *d, size_t n, const char *origin, const etl_msgtable *extra,
                                etl_manifest **out, etl_error *err)
{
    *out = NULL;
    etl_pe pe;
    etl_status st = etl_pe_open(&pe, d, n, err);
    if (st == ETL_ERR_NOT_ETL && n >= 4 && memcmp(d, "CRIM", 4) == 0)
        return etl_crim_parse(d, n, 0, extra, origin, out, err); /* a bare blob */
    if (st != ETL_OK)
        return st;
    etl_pe_resource r;
    if ((st = etl_pe_find_resource(&pe, WEVT_RESOURCE_TYPE, 0, &r, err)) != ETL_OK)
        return st;
    etl_msgtable *t = etl_msgtable_new();
    st = merge_messages(&pe, t, err);
    etl_msgtable_merge_table(t, extra);
    if (st == ETL_OK)
        st = etl_crim_parse(d + r.offset, r.size, r.offset, t, origin, out, err);
    etl_msgtable_free(t);
    return st;
}

/* `<dir>/en-US/<name>.mui`, matching the folder and file names in any case (copies of Windows
 * folders keep Windows' mixed case); NULL when there is none. */
static char *mui_path(const char *path)
{
    char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
    char *want = g_strconcat(base, ".mui", NULL), *found = NULL;
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *n;
    while (d && !found && (n = g_dir_read_name(d))) {
        if (g_ascii_strcasecmp(n, ETL_WEVT_MUI_LANGUAGE) != 0)
            continue;
        char *lang = g_build_filename(dir, n, NULL);
        GDir *l = g_dir_open(lang, 0, NULL);
        const char *m;
        while (l && !found && (m = g_dir_read_name(l)))
            if (g_ascii_strcasecmp(m, want) == 0)
                found = g_build_filename(lang, m, NULL);
        if (l)
            g_dir_close(l);
        g_free(lang);
    }
    if (d)
        g_dir_close(d);
    g_free(dir);
    g_free(base);
    g_free(want);
    return found;
}

etl_status etl_wevt_load_file(const char *path, etl_manifest **out, etl_error *err)
{
    *out = NULL;
    etl_pe pe;
    etl_pe_resource r;
    etl_status st;
    GMappedFile *f = open_binary(path, &pe, &r, &st, err);
    if (!f)
        return st;
    const uint8_t *d = pe.data;
    etl_msgtable *t = etl_msgtable_new();
    if (st == ETL_OK)
        st = merge_messages(&pe, t, err);
    char *mui = st == ETL_OK ? mui_path(path) : NULL;
    if (mui) {
        const uint8_t *md;
        size_t mn;
        etl_error merr;
        GMappedFile *mf = map(mui, &md, &mn, &merr);
        etl_pe mpe;
        if (!mf || (st = etl_pe_open(&mpe, md, mn, &merr)) != ETL_OK || (st = merge_messages(&mpe, t, &merr)) != ETL_OK) {
            st = etl_fail(err, merr.code, merr.offset, "%s: %s", mui, merr.message);
        }
        if (mf)
            g_mapped_file_unref(mf);
        g_free(mui);
    }
    if (st == ETL_OK)
        st = etl_crim_parse(d + r.offset, r.size, r.offset, t, path, out, err);
    etl_msgtable_free(t);
    g_mapped_file_unref(f);
    return st;
}
