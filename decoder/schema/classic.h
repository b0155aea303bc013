/* classic.h - classic (MOF-era) events: how a record is keyed, and the project's own description
 * of the kernel classes that the library carries.
 *
 * Classic events have no event id.  Windows finds their layout by (class GUID, event type, class
 * version): the kernel's system-family headers (SYSTEM, COMPACT, PERFINFO) name a kernel group
 * in the HookId's high byte, whose class GUID is fixed (etw-formats.md 9.2); FULL_HEADER and
 * INSTANCE records carry the class GUID themselves.  The pointer size of the record (4 or 8)
 * completes the key: pointer-sized fields and TOKEN_USER in SIDs follow it.
 *
 * One exception: the image-load event is logged with hook 0x030A (group PROCESS, type 10) but
 * belongs to the Image class; it is keyed with the Image class GUID, as Windows does.
 *
 * The layouts come from decoder/schema/kernel/kernel-classes.man (written from Microsoft's published
 * MOF class documentation; inferred layouts are marked there), embedded in the library at build
 * time (decoder/schema/kernel/embed.cmake) and read by the one manifest reader. */
#ifndef ETL_CLASSIC_H
#define ETL_CLASSIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel class document's bytes (UTF-8 XML), NUL-terminated. */
extern const unsigned char etl_kernel_classes_man[];
extern const size_t etl_kernel_classes_man_len;
#define ETL_KERNEL_CLASSES_ORIGIN "etlshark kernel classes (built in)"

/* Is this record's header a classic one (SYSTEM, COMPACT, PERFINFO, FULL_HEADER, INSTANCE)?
 * Inline, as the next: asked several times per record (the decoder, the process context, the
 * stack links), a million times on a trace like net452. */
static inline bool etl_record_is_classic(const etl_record *rec)
{
    etl_family f = etl_header_family(rec->header_type);
    return f == ETL_FAMILY_SYSTEM || f == ETL_FAMILY_FULL;
}
/* Does the header name a kernel group (SYSTEM, COMPACT, PERFINFO)? */
static inline bool etl_record_is_kernel_group(const etl_record *rec)
{
    return etl_header_family(rec->header_type) == ETL_FAMILY_SYSTEM;
}

/* The classic key of a record.  *known is false for a kernel group without a known class GUID
 * (then *cls is a stand-in, unique per group, that the cache can key on).  False when the
 * record is not classic or has no GUID at all. */
typedef struct etl_classic_key {
    etl_guid cls;
    uint8_t type;
    uint8_t version;
    bool known;       /* cls is a real class GUID */
    uint8_t group;    /* kernel group (system family), else 0 */
} etl_classic_key;

bool etl_classic_key_of(const etl_record *rec, etl_classic_key *key);

#ifdef __cplusplus
}
#endif

#endif /* ETL_CLASSIC_H */
