/* text.h - UTF-16LE to UTF-8 conversion for names stored in the trace. */
#ifndef ETL_TEXT_H
#define ETL_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Convert NUL-terminated (or `len`-bounded) UTF-16LE at `p` to UTF-8 in `out` (always
 * NUL-terminated, truncated at a character boundary when `cap` is too small).  Unpaired
 * surrogates become U+FFFD.  *consumed (if not NULL) gets the input bytes used, the
 * terminator included.  Returns the UTF-8 length written. */
size_t etl_utf16_to_utf8(const uint8_t *p, size_t len, char *out, size_t cap, size_t *consumed);

#endif
