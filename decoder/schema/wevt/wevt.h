/* wevt.h - provider binaries (.dll, .exe, .sys) as a schema source: the WEVT_TEMPLATE resource
 * (crim.h) and the message strings of the binary's MESSAGETABLE or of its language file beside
 * it (msgtable.h), read into the manifest model.
 *
 * Two steps, so that a folder of thousands of binaries costs little until it is used:
 *   - etl_wevt_index_file reads the PE headers, the resource directory and the CRIM header
 *     only: the provider GUIDs the binary defines (most binaries of a Windows folder have no
 *     WEVT_TEMPLATE: ETL_ERR_NOT_FOUND, not an error);
 *   - etl_wevt_load_file reads the templates, the message table and the `.mui` and builds the
 *     model, when the registry first needs one of the binary's providers.
 * Files are mapped read-only (GMappedFile): only the pages read are paged in. */
#ifndef ETL_WEVT_H
#define ETL_WEVT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl.h"
#include "manifest.h"
#include "msgtable.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Binaries larger than this are refused (a Windows binary is far smaller). */
#define ETL_WEVT_MAX_FILE_SIZE (2048u * 1024u * 1024u - 1u)
/* The language folder searched beside a binary for its .mui. */
#define ETL_WEVT_MUI_LANGUAGE "en-US"

/* Does the file name end in .dll, .exe or .sys (any case)? */
bool etl_wevt_is_binary_name(const char *name);

/* The provider GUIDs of the binary at `path` (g_free *guids).  ETL_OK when it has a
 * WEVT_TEMPLATE; ETL_ERR_NOT_FOUND when it is a PE without one; else the damage, with the file
 * offset in err (ETL_ERR_NOT_ETL: not a PE at all). */
etl_status etl_wevt_index_file(const char *path, etl_guid **guids, uint32_t *count, etl_error *err);

/* The whole model of the binary at `path`, message strings from its MESSAGETABLE and from
 * `<dir>/en-US/<name>.mui` when there is one (the binary's own strings win). */
etl_status etl_wevt_load_file(const char *path, etl_manifest **out, etl_error *err);

/* The same for a PE image in memory (`extra`: more message strings, may be NULL), or for a bare
 * CRIM blob when data does not start like a PE; `origin` names it in messages. */
etl_status etl_wevt_load_memory(const uint8_t *data, size_t size, const char *origin, const etl_msgtable *extra,
                                etl_manifest **out, etl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ETL_WEVT_H */
