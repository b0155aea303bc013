/* wpp_format.h - a WPP message's format string rendered with its record's arguments, as tracefmt
 * prints the message part of a line (docs/wpp.md "The formatted message" gives every rule and
 * the readings chosen where tracefmt's are not documented).
 *
 *   %N!fmt!     N >= 10: argument N (the TMF item with "-- N"), in printf format `fmt`
 *               (flags, width, precision, the I64/I32/ll/l/h/w size letters, and one of
 *               d i u x X o c s S p e E f g G, as MSVC's printf prints them: `p` is the
 *               pointer's upper-case digits without "0x"); `s` is the argument's own text: strings, the
 *               name of an ItemList value, NTSTATUS/WINERROR/HRESULT as the project renders
 *               them everywhere, GUIDs, addresses, ...;
 *               N 1-9: tracefmt's prefix items of the record: 1 component, 2 the message's
 *               TMF name, 3 thread id, 4 time, 5 kernel time, 6 user time, 7 sequence number,
 *               8 process id, 9 CPU;
 *   %N          the same with format `s`;
 *   %!NAME!     FUNC, LEVEL, FLAGS, FILE, LINE, COMPNAME from the TMF; other names stay;
 *   %0          the place of tracefmt's line prefix: the message itself has none, so it goes,
 *               and so does the one space after it at the start ("%0 [%!FUNC!]..." gives
 *               "[Function]...");
 *   %%          a percent sign.
 * An argument the payload does not hold (too short) leaves its insert as written. */
#ifndef ETL_WPP_FORMAT_H
#define ETL_WPP_FORMAT_H

#include <stddef.h>

#include "etl.h"
#include "schema.h"
#include "tmf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of one argument's text while rendering (longer values are cut). */
#define ETL_WPP_MAX_VALUE_TEXT 4096u

/* Render message m (its schema s, compiled by tmf_schema.h for rec's pointer size) for record
 * rec into out (cap bytes, NUL-terminated, cut at a character boundary).  Returns the length.
 * Allocates nothing. */
size_t etl_wpp_format(const etl_tmf_message *m, const etl_schema *s, const etl_record *rec, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* ETL_WPP_FORMAT_H */
