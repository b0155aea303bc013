/* search_path.h - a search path of schema files walked: entries separated by
 * G_SEARCHPATH_SEPARATOR, each a file or a folder whose files of the wanted kind are taken in
 * byte-wise name order (strcmp), with messages naming what went wrong.  An entry ending in the
 * recursive suffix, when the path has one ("folder/..."), is the folder with its subfolders:
 * their files together in order of their full paths, symbolic links to folders not followed
 * (a link loop cannot trap the walk).  The manifest path (registry.c: manifests, provider
 * binaries, "folder/..." trees) and the WPP TMF path (tmf/tmf.c) walk with it. */
#ifndef ETL_SEARCH_PATH_H
#define ETL_SEARCH_PATH_H

#include <stdbool.h>

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etl_search_path {
    const char *what;        /* "manifest", "TMF": in messages ("manifest folder X: ...") */
    const char *files;       /* the plural in messages: "manifests", "TMF files" */
    bool (*wanted)(const char *name);        /* a folder's file names to take */
    unsigned max_entries;    /* entries of one path; past it the rest are not read */
    unsigned max_files;      /* files of one entry counted (`limited`); past it the rest are not read */
    /* one file: ETL_OK, or the code of its failure (the callee reports it) */
    etl_status (*file)(void *ctx, const char *path);
    /* a problem of the path itself; `failed`: an entry that could not be read (a missing
     * entry, a folder that does not open), else a limit met */
    void (*problem)(void *ctx, bool failed, const char *message);
    void *ctx;
    /* optional (zero: none) */
    bool (*limited)(const char *name);       /* the wanted names max_files counts (NULL: all) */
    unsigned max_tree_files; /* wanted files of one entry, subfolders included (0: no such limit) */
    const char *tree_files;  /* their plural in messages: "manifests and binaries" */
    const char *recursive_suffix;            /* "/...": the entry is walked with its subfolders */
    unsigned max_depth;      /* folders nested under a recursive entry; deeper ones are not read */
} etl_search_path;

/* Walk `list`.  ETL_OK when every entry loaded, else the code of the first failure (the rest
 * are read anyway). */
etl_status etl_search_path_walk(const etl_search_path *p, const char *list);

#ifdef __cplusplus
}
#endif

#endif /* ETL_SEARCH_PATH_H */
