/* search_path.c - search paths of schema files (search_path.h). */
#include "search_path.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

static void problem(const etl_search_path *p, bool failed, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void problem(const etl_search_path *p, bool failed, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *m = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    p->problem(p->ctx, failed, m);
    g_free(m);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One entry: a folder's files in name order, or one file. */
static etl_status walk_entry(const etl_search_path *p, const char *entry)
{
    if (!g_file_test(entry, G_FILE_TEST_IS_DIR)) {
        if (!g_file_test(entry, G_FILE_TEST_EXISTS)) {
            problem(p, true, "%s path entry %s: no such file or folder", p->what, entry);
            return ETL_ERR_IO;
        }
        return p->file(p->ctx, entry);
    }
    GError *ge = NULL;
    GDir *d = g_dir_open(entry, 0, &ge);
    if (!d) {
        problem(p, true, "%s folder %s: %s", p->what, entry, ge->message);
        g_error_free(ge);
        return ETL_ERR_IO;
    }
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const char *n;
    while ((n = g_dir_read_name(d))) {
        if (!p->wanted(n))
            continue;
        if (names->len >= p->max_files) {
            problem(p, false, "%s folder %s: more than %u %s; the rest are not read", p->what, entry, p->max_files,
                    p->files);
            break;
        }
        g_ptr_array_add(names, g_strdup(n));
    }
    g_dir_close(d);
    qsort(names->pdata, names->len, sizeof(char *), cmp_names);
    etl_status first = ETL_OK;
    for (guint i = 0; i < names->len; i++) {
        char *path = g_build_filename(entry, (char *)names->pdata[i], NULL);
        if (g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
            etl_status st = p->file(p->ctx, path);
            if (st != ETL_OK && first == ETL_OK)
                first = st;
        }
        g_free(path);
    }
    g_ptr_array_free(names, TRUE);
    return first;
}

etl_status etl_search_path_walk(const etl_search_path *p, const char *list)
{
    if (!p || !list)
        return ETL_ERR_ARG;
    char sep[2] = {G_SEARCHPATH_SEPARATOR, 0};
    char **entries = g_strsplit(list, sep, -1);
    etl_status first = ETL_OK;
    unsigned n = 0;
    for (char **e = entries; *e; e++) {
        if (!**e)
            continue; /* "a::b" and a trailing ':' add nothing */
        if (++n > p->max_entries) {
            problem(p, false, "%s path has more than %u entries; the rest are not read", p->what, p->max_entries);
            if (first == ETL_OK)
                first = ETL_ERR_LIMIT;
            break;
        }
        etl_status st = walk_entry(p, *e);
        if (st != ETL_OK && first == ETL_OK)
            first = st;
    }
    g_strfreev(entries);
    return first;
}
