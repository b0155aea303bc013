/* known_providers.h - the names of common Windows providers by GUID, built into the library: the
 * last name the decoder falls back to (resolve.h ETL_NAME_KNOWN), so an event of a provider no
 * manifest, binary or trace names still shows who wrote it instead of a bare GUID.
 *
 * The table (known_providers.c) is the project's own, compiled from public documentation (the
 * providers' published manifests and Microsoft's documentation pages); it names providers
 * only, never their events.  A provider binary that does not name its provider (its WEVT
 * header has no message id: Windows keeps provider names in the registry, not in the binary)
 * is named from here too (crim.h). */
#ifndef ETL_KNOWN_PROVIDERS_H
#define ETL_KNOWN_PROVIDERS_H

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The well-known name of provider `g`, or NULL. */
const char *etl_known_provider_name(const etl_guid *g);

/* Entries of the table, and entry i (for tests): its GUID text and name. */
unsigned etl_known_provider_count(void);
void etl_known_provider_at(unsigned i, const char **guid, const char **name);

#ifdef __cplusplus
}
#endif

#endif /* ETL_KNOWN_PROVIDERS_H */
