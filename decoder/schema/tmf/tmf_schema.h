/* tmf_schema.h - a TMF message's arguments compiled into the decoder's schema program
 * (schema.h), the WPP schema source.
 *
 * One VALUE step per argument, in the TMF's order, each tagged with its argument number (the
 * step's `tag` is the %N the format string names it by: 10, 11, ...), typed in the TDH numbering
 * every other source uses (the table in tmf_schema.c, docs/wpp.md), ItemList/ItemSet names as a
 * compiled value map or bit map.  An Item type the reader does not know ends the program in an
 * UNSUPPORTED step naming it: the arguments before it decode, the rest of the payload is a
 * placeholder.  The schema's facts: provider name = the component, event name = FUNC= (the
 * message name when there is none), level name = LEVEL=, keyword names = FLAGS=, message = the
 * format string, origin = the TMF file. */
#ifndef ETL_TMF_SCHEMA_H
#define ETL_TMF_SCHEMA_H

#include "schema.h"
#include "schema_cache.h"
#include "tmf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compile `m` for records of `pointer_size` into `b` (reset first). */
etl_status etl_tmf_compile(etl_schema_builder *b, const etl_tmf_message *m, uint8_t pointer_size, etl_error *err);

/* The schema of `m` at `pointer_size`, compiled into the cache's arena on first use and kept in
 * the message (m->compiled).  ETL_OK with *out set (a program that may end in UNSUPPORTED), or
 * ETL_ERR_NOMEM / ETL_ERR_LIMIT from the cache. */
etl_status etl_tmf_schema(etl_schema_cache *c, etl_schema_builder *b, etl_tmf_message *m, uint8_t pointer_size,
                          const etl_schema **out, etl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ETL_TMF_SCHEMA_H */
