/* capture_list.h - the .etl files of a captures folder, by name, for the tests that walk the
 * whole corpus. */
#ifndef ETL_TEST_CAPTURE_LIST_H
#define ETL_TEST_CAPTURE_LIST_H

#include <glib.h>
#include <string.h>

static gint capture_list_by_name(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names (not paths) of the *.etl files in `dir`, sorted; NULL when it cannot be opened.
 * Free with g_ptr_array_free(names, TRUE). */
static inline GPtrArray *capture_list(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (!d)
        return NULL;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const char *n;
    while ((n = g_dir_read_name(d)))
        if (g_str_has_suffix(n, ".etl"))
            g_ptr_array_add(names, g_strdup(n));
    g_dir_close(d);
    g_ptr_array_sort(names, capture_list_by_name);
    return names;
}

/* fn(dir, name) for every capture in `dir`, by name; how many there were (0 when `dir` cannot
 * be opened). */
static inline guint capture_list_each(const char *dir, void (*fn)(const char *dir, const char *name))
{
    GPtrArray *names = capture_list(dir);
    if (!names)
        return 0;
    for (guint i = 0; i < names->len; i++)
        fn(dir, g_ptr_array_index(names, i));
    guint n = names->len;
    g_ptr_array_free(names, TRUE);
    return n;
}

#endif
