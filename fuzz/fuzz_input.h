/* fuzz_input.h - what the targets fed a payload and a schema text share (fuzz_manifest.c,
 * fuzz_tmf.c): the input's layout - a u16 payload length, that payload (cut to what there
 * is), then the text - and every value of a payload run through a schema and formatted; and
 * the enumerator's scalar runs checked against its item-by-item walk (those and fuzz_tl.c,
 * fuzz_classic.c). */
#ifndef ETL_FUZZ_INPUT_H
#define ETL_FUZZ_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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

/* The payload walked twice as etldump starts the enumerator: item by item, and taking scalar
 * runs (etl_fields_next_scalars, at most 1..8 per call) wherever they come.  Every scalar must be
 * the VALUE item the first walk gives there with the same number, every other item the same
 * item, both ends the same: abort() when not. */
static inline void fuzz_scalar_runs(const etl_schema *s, const uint8_t *payload, size_t len, uint8_t pointer_size)
{
    etl_fields a, b;
    etl_item ia, ib;
    etl_scalar sc[8];
    char text[64];
    unsigned max = 1;
    etl_fields_start_opts(&a, s, payload, len, pointer_size, ETL_FIELDS_CHAR_STRINGS);
    etl_fields_start_opts(&b, s, payload, len, pointer_size, ETL_FIELDS_CHAR_STRINGS);
    for (;;) {
        unsigned n = etl_fields_next_scalars(&b, sc, max);
        max = max % 8 + 1;
        for (unsigned i = 0; i < n; i++) {
            etl_value va, vb;
            if (etl_fields_next(&a, &ia) != ETL_ITEM_VALUE || ia.step != sc[i].step || ia.offset != sc[i].offset)
                abort();
            etl_value_decode(&ia, &va, text, sizeof text);
            etl_scalar_value(&b, &sc[i], &vb);
            if (va.kind != vb.kind || va.format != vb.format || va.v.u != vb.v.u || va.v.u != sc[i].u ||
                (va.kind != ETL_VALUE_INT && va.kind != ETL_VALUE_UINT))
                abort();
        }
        if (n)
            continue;
        etl_item_kind k = etl_fields_next(&b, &ib);
        if (etl_fields_next(&a, &ia) != k || ia.step != ib.step || ia.offset != ib.offset || ia.size != ib.size ||
            ia.data != ib.data || ia.depth != ib.depth || ia.array_index != ib.array_index)
            abort();
        if (k == ETL_ITEM_END)
            return;
    }
}

#endif /* ETL_FUZZ_INPUT_H */
