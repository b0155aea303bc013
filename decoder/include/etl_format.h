/* etl_format.h - the one place that turns typed values into text (GUIDs, SIDs, times, hex).
 * Both etldump and the Wireshark plugin use these, so a value never renders two ways. */
#ifndef ETL_FORMAT_H
#define ETL_FORMAT_H

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETL_GUID_STR_SIZE 37 /* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" + NUL */
#define ETL_TIME_STR_SIZE 32 /* "2020-01-02T03:04:05.1234567Z" + NUL */
#define ETL_TIME_TEXT_LEN 28 /* the text's bytes when formatting succeeds (years 1601..9999) */
#define ETL_SID_STR_SIZE 200 /* S-1- + authority + 15 sub-authorities */

/* The two hex digits of every byte value (lower and upper case) and the two decimal digits of
 * 0..99: the tables every number writer uses (the value formatter, etldump's JSON), so a
 * byte or a pair of digits is one load and one 2-byte store. */
extern const char etl_hex_pairs_lower[513];
extern const char etl_hex_pairs_upper[513];
extern const char etl_dec_pairs[201];

/* Lower-case GUID without braces. */
void etl_format_guid(const etl_guid *g, char out[ETL_GUID_STR_SIZE]);
/* Read a GUID in Windows layout from 16 bytes. */
void etl_read_guid(const uint8_t *p, etl_guid *out);
/* Parse "xxxxxxxx-xxxx-..." with or without braces, any case. */
bool etl_parse_guid(const char *s, etl_guid *out);
bool etl_guid_equal(const etl_guid *a, const etl_guid *b);

/* FILETIME (100 ns since 1601 UTC) as ISO 8601 UTC with 7 fraction digits and a 'Z'.
 * Returns false (and writes "invalid") for values outside years 1601..9999. */
bool etl_format_filetime(int64_t filetime, char out[ETL_TIME_STR_SIZE]);
/* The same, remembering the last whole second formatted in `cache` (zero it before first use):
 * consecutive records mostly share their second, which then costs only the fraction digits. */
typedef struct etl_time_cache {
    int64_t second; /* FILETIME / 10^7 of `text`, -1 or 0-initialized = none */
    bool valid;
    char text[ETL_TIME_STR_SIZE];
} etl_time_cache;
bool etl_format_filetime_cached(int64_t filetime, char out[ETL_TIME_STR_SIZE], etl_time_cache *cache);
/* FILETIME to seconds and nanoseconds since the Unix epoch (may be negative). */
void etl_filetime_to_unix(int64_t filetime, int64_t *secs, int32_t *nsecs);

/* A SID (revision, count, 6-byte authority, count u32 sub-authorities) as S-1-...
 * Returns the bytes it occupies, or 0 when `len` is too short or the SID is malformed. */
size_t etl_format_sid(const uint8_t *p, size_t len, char out[ETL_SID_STR_SIZE]);

/* Lower-case hex of `len` bytes into `out` (capacity at least 2*len+1). */
void etl_format_hex(const uint8_t *p, size_t len, char *out);

#define ETL_GUID_BRACED_STR_SIZE 39 /* "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}" + NUL */
/* Upper-case GUID in braces, as Windows renders GUID fields (StringFromGUID2). */
void etl_format_guid_braced(const etl_guid *g, char out[ETL_GUID_BRACED_STR_SIZE]);

/* A SYSTEMTIME (8 little-endian u16: year, month, day of week, day, hour, minute, second,
 * milliseconds) as FILETIME, taking it as UTC.  False when a field is out of range (the day of
 * week is not checked: Windows ignores it too). */
bool etl_systemtime_to_filetime(const uint8_t p[16], int64_t *filetime);

#ifdef __cplusplus
}
#endif

#endif /* ETL_FORMAT_H */
