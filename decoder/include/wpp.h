/* wpp.h - what consumers need of WPP software traces beyond etl_decoder_resolve: the names of a
 * MESSAGE record's option flags and where the TMF search path comes from.  TMF files are added
 * with etl_decoder_add_tmf_path (resolve.h); docs/wpp.md describes the feature. */
#ifndef ETL_WPP_H
#define ETL_WPP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MESSAGE_TRACE_HEADER option flags (etw-formats.md 2.7): which items the record carries. */
enum {
    ETL_WPP_SEQUENCE = 0x0001,
    ETL_WPP_GUID = 0x0002,
    ETL_WPP_COMPONENTID = 0x0004,
    ETL_WPP_TIMESTAMP = 0x0008,
    ETL_WPP_PERFORMANCE_TIMESTAMP = 0x0010,
    ETL_WPP_SYSTEMINFO = 0x0020,
    ETL_WPP_POINTER32 = 0x0040,
    ETL_WPP_POINTER64 = 0x0080
};

/* The flags' names joined with '|' ("GUID|TIMESTAMP|SYSTEMINFO|POINTER64"; bits without a name
 * as "0x0100"), into out (cap bytes, NUL-terminated); returns the length. */
size_t etl_wpp_flags_text(uint16_t flags, char *out, size_t cap);

/* The TMF search path from the environment, or NULL. */
#define ETL_TMF_ENV "ETLSHARK_TMF_PATH"
const char *etl_tmf_env_path(void);

#ifdef __cplusplus
}
#endif

#endif /* ETL_WPP_H */
