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

typedef struct walk {
    const etl_search_path *p;
    GPtrArray *paths;     /* full paths of the wanted files found */
    unsigned counted;     /* how many of them max_files counts */
    bool full;            /* a limit was reached: the rest are not read */
} walk;

/* The wanted files of `dir` into w->paths, and of its subfolders when `recursive`. */
static etl_status collect(walk *w, const char *dir, bool recursive, unsigned depth)
{
    const etl_search_path *p = w->p;
    GError *ge = NULL;
    GDir *d = g_dir_open(dir, 0, &ge);
    if (!d) {
        problem(p, true, "%s folder %s: %s", p->what, dir, ge->message);
        g_error_free(ge);
        return ETL_ERR_IO;
    }
    etl_status first = ETL_OK;
    const char *n;
    while (!w->full && (n = g_dir_read_name(d))) {
        bool wanted = p->wanted(n);
        if (!wanted && !recursive)
            continue;
        char *path = g_build_filename(dir, n, NULL);
        if (!wanted) {
            if (!g_file_test(path, G_FILE_TEST_IS_SYMLINK) && g_file_test(path, G_FILE_TEST_IS_DIR)) {
                if (depth + 1 >= p->max_depth) {
                    problem(p, false, "%s folder %s: deeper than %u folders; not read", p->what, path, p->max_depth);
                } else {
                    etl_status st = collect(w, path, true, depth + 1);
                    if (st != ETL_OK && first == ETL_OK)
                        first = st;
                }
            }
            g_free(path);
            continue;
        }
        bool counted = !p->limited || p->limited(n);
        if (counted && w->counted >= p->max_files) {
            problem(p, false, "%s folder %s: more than %u %s; the rest are not read", p->what, dir, p->max_files,
                    p->files);
            w->full = true;
        } else if (p->max_tree_files && w->paths->len >= p->max_tree_files) {
            problem(p, false, "%s folder %s: more than %u %s; the rest are not read", p->what, dir,
                    p->max_tree_files, p->tree_files);
            w->full = true;
        } else {
            w->counted += counted;
            g_ptr_array_add(w->paths, path);
            path = NULL;
        }
        g_free(path);
    }
    g_dir_close(d);
    return first;
}

/* Does the entry end in the recursive suffix?  *dir gets the folder (g_free). */
static bool recursive_entry(const etl_search_path *p, const char *entry, char **dir)
{
    if (!p->recursive_suffix)
        return false;
    size_t n = strlen(entry), m = strlen(p->recursive_suffix);
    if (n <= m || strcmp(entry + n - m, p->recursive_suffix) != 0)
        return false;
    *dir = g_strndup(entry, n - m);
    return true;
}

/* One entry: a folder's files in name order (with its subfolders' for a recursive entry, in
 * order of their full paths), or one file. */
static etl_status walk_entry(const etl_search_path *p, const char *entry)
{
    char *rdir = NULL;
    bool recursive = recursive_entry(p, entry, &rdir);
    const char *dir = recursive ? rdir : entry;
    if (recursive || g_file_test(entry, G_FILE_TEST_IS_DIR)) {
        if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
            problem(p, true, "%s path entry %s: no such folder", p->what, entry);
            g_free(rdir);
            return ETL_ERR_IO;
        }
        walk w = {p, g_ptr_array_new_with_free_func(g_free), 0, false};
        etl_status first = collect(&w, dir, recursive, 0);
        qsort(w.paths->pdata, w.paths->len, sizeof(char *), cmp_names);
        for (guint i = 0; i < w.paths->len; i++) {
            const char *path = g_ptr_array_index(w.paths, i);
            if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
                continue;
            etl_status st = p->file(p->ctx, path);
            if (st != ETL_OK && first == ETL_OK)
                first = st;
        }
        g_ptr_array_free(w.paths, TRUE);
        g_free(rdir);
        return first;
    }
    if (!g_file_test(entry, G_FILE_TEST_EXISTS)) {
        problem(p, true, "%s path entry %s: no such file or folder", p->what, entry);
        return ETL_ERR_IO;
    }
    return p->file(p->ctx, entry);
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
