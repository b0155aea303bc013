/* tl_schema.h - TraceLogging metadata (EVENT_SCHEMA_TL, PROV_TRAITS) to compiled schemas.
 *
 * A TraceLogging event describes itself: the EVENT_SCHEMA_TL extended item carries the event's
 * name and fields (etw-formats.md 5.1-5.6) and PROV_TRAITS the provider's name (5.3).  These
 * functions turn the first into a compiled schema (schema.h) and read the second.  Usually
 * called through the schema cache (schema_cache.h), which compiles each distinct metadata blob
 * once per record bitness. */
#ifndef ETL_TL_SCHEMA_H
#define ETL_TL_SCHEMA_H

#include "etl.h"
#include "schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TraceLogging's own bound on one metadata blob ("must be < 32768"). */
#define ETL_TL_MAX_METADATA 32767u
/* Tags are 28 bits in 7-bit groups: at most 4 bytes. */
#define ETL_TL_MAX_TAG_BYTES 4u

/* TraceLogging in-type flags (InMeta) and out-type chain bit (OutMeta). */
enum {
    ETL_TL_IN_TYPE_MASK = 0x1F,
    ETL_TL_IN_COUNT_MASK = 0x60,
    ETL_TL_IN_CCOUNT = 0x20, /* constant array, u16 count in the metadata */
    ETL_TL_IN_VCOUNT = 0x40, /* variable array, u16 count in the payload */
    ETL_TL_IN_CUSTOM = 0x60, /* custom serializer: u16 byte count + bytes in the payload */
    ETL_TL_CHAIN = 0x80      /* InMeta: OutMeta follows; OutMeta: tags follow */
};

/* TraceLogging out-types (TlgOut, TraceLoggingProvider.h): NOT the TDH numbers. */
enum {
    ETL_TLOUT_NULL = 0,
    ETL_TLOUT_NOPRINT = 1,
    ETL_TLOUT_STRING = 2,
    ETL_TLOUT_BOOLEAN = 3,
    ETL_TLOUT_HEX = 4,
    ETL_TLOUT_PID = 5,
    ETL_TLOUT_TID = 6,
    ETL_TLOUT_PORT = 7,
    ETL_TLOUT_IPV4 = 8,
    ETL_TLOUT_IPV6 = 9,
    ETL_TLOUT_SOCKETADDRESS = 10,
    ETL_TLOUT_XML = 11,
    ETL_TLOUT_JSON = 12,
    ETL_TLOUT_WIN32ERROR = 13,
    ETL_TLOUT_NTSTATUS = 14,
    ETL_TLOUT_HRESULT = 15,
    ETL_TLOUT_FILETIME = 16,
    ETL_TLOUT_SIGNED = 17,
    ETL_TLOUT_UNSIGNED = 18,
    ETL_TLOUT_DATETIME_CULTURE_INSENSITIVE = 33,
    ETL_TLOUT_UTF8 = 35,
    ETL_TLOUT_PKCS7_WITH_TYPE_INFO = 36,
    ETL_TLOUT_CODE_POINTER = 37,
    ETL_TLOUT_DATETIME_UTC = 38
};

/* The TDH out-type (ETL_OUT_*) a TraceLogging out-type means for a given in-type; ETL_OUT_NULL
 * (the in-type's default) for codes without a meaning. */
uint16_t etl_tl_out_to_tdh(unsigned in_type, unsigned tl_out);

/* Compile EVENT_SCHEMA_TL data into `b` (reset first) for records of `pointer_size` (4 or 8;
 * only the unsupported in-type 16 depends on it).  Always leaves a usable program in `b`:
 *   ETL_OK             the whole metadata compiled;
 *   ETL_ERR_CORRUPT,   the metadata is damaged, or exceeds a limit: the program holds every
 *   ETL_ERR_TRUNCATED, field before the damage and ends in an UNSUPPORTED step whose reason is
 *   ETL_ERR_LIMIT      also in *err (offset = byte offset in the metadata);
 *   ETL_ERR_NOMEM      out of memory (the program is not usable). */
etl_status etl_tl_compile(etl_schema_builder *b, const uint8_t *meta, size_t len, uint8_t pointer_size,
                          etl_error *err);

/* The event name in EVENT_SCHEMA_TL data without compiling it (points into `meta`, not
 * NUL-terminated in general: use the length).  False when the blob is too damaged to hold one. */
bool etl_tl_event_name(const uint8_t *meta, size_t len, const char **name, size_t *name_len);

/* PROV_TRAITS: the provider's name and traits. */
enum { ETL_TL_TRAIT_GROUP = 1 }; /* provider group GUID */

typedef struct etl_tl_traits {
    const char *name;  /* into the blob; NULL when there is no terminated name */
    size_t name_len;
    bool has_group;
    etl_guid group;
    uint32_t trait_count;
} etl_tl_traits;

/* Read PROV_TRAITS data.  ETL_OK when everything parsed; an error (with *err) when some part
 * is damaged - out->name is still set when the name itself was readable. */
etl_status etl_tl_parse_traits(const uint8_t *blob, size_t len, etl_tl_traits *out, etl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ETL_TL_SCHEMA_H */
