/* search_path.h - a search path of schema files walked: entries separated by
 * G_SEARCHPATH_SEPARATOR, each a file or a folder whose files of the wanted kind are taken in
 * byte-wise name order (strcmp), with messages naming what went wrong.  The WPP TMF path
 * (tmf/tmf.c) walks with it; the manifest path (registry.c) has its own walk, which also takes
 * provider binaries and "folder/..." trees, with the same flat-folder rule and messages. */
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
    unsigned max_files;      /* files of one folder; past it the rest are not read */
    /* one file: ETL_OK, or the code of its failure (the callee reports it) */
    etl_status (*file)(void *ctx, const char *path);
    /* a problem of the path itself; `failed`: an entry that could not be read (a missing
     * entry, a folder that does not open), else a limit met */
    void (*problem)(void *ctx, bool failed, const char *message);
    void *ctx;
} etl_search_path;

/* Walk `list`.  ETL_OK when every entry loaded, else the code of the first failure (the rest
 * are read anyway). */
etl_status etl_search_path_walk(const etl_search_path *p, const char *list);

#ifdef __cplusplus
}
#endif

#endif /* ETL_SEARCH_PATH_H */
