/* schema_walk.h - the items of a compiled schema without a payload: what fields an event of
 * that schema can have, before any event is seen.
 *
 * The enumerator (fields.h) yields the items of one payload: an array counted by another field
 * yields as many elements as that payload's count says (none when it says 0), so a consumer that
 * wants to know every field ahead of the first event - the Wireshark plugin registering its
 * typed filter fields at start-up - cannot learn it from any one payload.  The walk yields
 * every step of the schema's program once, in program order, in the same etl_item shape:
 *
 *   VALUE                        name, in/out type, tag, dup, step; `size` the fixed byte count,
 *                                or UINT32_MAX when the payload decides it (strings, counted
 *                                and referenced lengths); custom values as the enumerator
 *                                gives them (in_type COUNTEDBINARY, custom set)
 *   STRUCT_BEGIN / STRUCT_END    array_count = member fields
 *   ARRAY_BEGIN / ARRAY_END      the element program comes once between them, its items with
 *                                is_element set and array_index 0; array_count 0 (the payload
 *                                decides it); elem_size set when the element is one fixed-size
 *                                VALUE
 *   VALUE with char_array        a character array (etl_value_is_char_array), as the enumerator
 *                                hands it out with ETL_FIELDS_CHAR_STRINGS: one VALUE at the
 *                                ARRAY_BEGIN's step, its element and ARRAY_END not walked
 *   PLACEHOLDER                  the schema's UNSUPPORTED step, with its reason; END follows
 *   END
 *
 * Offsets are 0 and data NULL throughout.  A value's nominal type is etl_item_nominal
 * (value_format.h) of its item: the type a well-formed value of that field decodes to.
 * No allocation; the state is a few words. */
#ifndef ETL_SCHEMA_WALK_H
#define ETL_SCHEMA_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "fields.h"
#include "schema.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etl_schema_walk {
    const etl_schema *schema;
    uint32_t pc;
    uint8_t pointer_size;
    bool done;
    uint8_t last_kind;
} etl_schema_walk;

/* Start on a schema; pointer_size 0 = the schema's. */
void etl_schema_walk_start(etl_schema_walk *w, const etl_schema *s, uint8_t pointer_size);
/* The next item (also returned as the kind). */
etl_item_kind etl_schema_walk_next(etl_schema_walk *w, etl_item *it);

#ifdef __cplusplus
}
#endif

#endif /* ETL_SCHEMA_WALK_H */
