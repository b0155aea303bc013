/* fuzz_input.h - what the targets fed a payload and a schema text share (fuzz_manifest.c,
 * fuzz_tmf.c): the input's layout - a u16 payload length, that payload (cut to what there
 * is), then the text - and every value of a payload run through a schema and formatted. */
#ifndef ETL_FUZZ_INPUT_H
#define ETL_FUZZ_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fields.h"
#include "schema.h"
#include "value_format.h"

typedef struct fuzz_input {
    const uint8_t *payload;
    size_t payload_len;
    const char *text;
    size_t text_len;
} fuzz_input;

/* False when the input is too short for the length. */
static inline bool fuzz_input_split(const uint8_t *d, size_t n, fuzz_input *out)
{
    if (n < 2)
        return false;
    size_t plen = (size_t)(d[0] | (d[1] << 8));
    d += 2;
    n -= 2;
    if (plen > n)
        plen = n;
    out->payload = d;
    out->payload_len = plen;
    out->text = (const char *)d + plen;
    out->text_len = n - plen;
    return true;
}

/* Every value `s` finds in the payload, formatted into text (cap bytes). */
static inline void fuzz_format_values(const etl_schema *s, const uint8_t *payload, size_t len, uint8_t pointer_size,
                                      char *text, size_t cap)
{
    etl_fields f;
    etl_item it;
    etl_fields_start(&f, s, payload, len, pointer_size);
    while (etl_fields_next(&f, &it) != ETL_ITEM_END)
        if (it.kind == ETL_ITEM_VALUE)
            etl_value_format(&it, text, cap);
}

#endif /* ETL_FUZZ_INPUT_H */
