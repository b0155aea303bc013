/* libFuzzer target for TraceLogging decoding: the input is a u16 metadata length, a flags byte
 * (bit 0: 32-bit record) and then the metadata followed by the payload.  Compile, enumerate
 * every item (skipping some containers whole), decode and format every value, parse the same
 * bytes as provider traits.  Seeds come from the real TraceLogging events (tl_seeds.py). */
#include <string.h>

#include "fields.h"
#include "fuzz_input.h"
#include "schema_cache.h"
#include "schema_walk.h"
#include "tl_schema.h"
#include "value_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static char text[ETL_VALUE_TEXT_CAP(65536)];

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n < 3)
        return 0;
    size_t mlen = (size_t)(d[0] | (d[1] << 8));
    uint8_t ptr = (d[2] & 1) ? 4 : 8;
    d += 3;
    n -= 3;
    if (mlen > n)
        mlen = n;
    /* a fresh cache per input: the arena is append-only, so one cache would grow forever */
    etl_schema_cache *c = etl_schema_cache_new(NULL);
    const etl_schema *s;
    etl_error err;
    if (etl_schema_cache_tl(c, d, mlen, ptr, &s, &err) == ETL_OK) {
        etl_fields f;
        etl_item it;
        int k = 0;
        etl_fields_start(&f, s, d + mlen, n - mlen, ptr);
        while (etl_fields_next(&f, &it) != ETL_ITEM_END) {
            if (it.kind == ETL_ITEM_VALUE) {
                etl_value v;
                etl_value_decode(&it, &v, text, sizeof text);
                etl_value_text(&v, text, sizeof text);
                etl_value_format(&it, text, 40); /* a small buffer: truncation paths */
            }
            if (it.kind == ETL_ITEM_ARRAY_BEGIN && etl_value_is_char_array(&it)) {
                bool cut;
                etl_value_char_array(&it, text, sizeof text, &cut);
            }
            if ((it.kind == ETL_ITEM_ARRAY_BEGIN || it.kind == ETL_ITEM_STRUCT_BEGIN) && (++k % 3) == 0)
                etl_fields_skip(&f);
        }
        fuzz_scalar_runs(s, d + mlen, n - mlen, ptr);
        /* the same schema walked without a payload, every value's nominal type */
        etl_schema_walk w;
        etl_value nominal;
        etl_schema_walk_start(&w, s, ptr);
        while (etl_schema_walk_next(&w, &it) != ETL_ITEM_END)
            if (it.kind == ETL_ITEM_VALUE)
                etl_item_nominal(&it, &nominal);
    }
    etl_tl_traits t;
    etl_tl_parse_traits(d, mlen, &t, &err);
    const char *name;
    size_t name_len;
    etl_tl_event_name(d, mlen, &name, &name_len);
    etl_schema_cache_free(c);
    return 0;
}
