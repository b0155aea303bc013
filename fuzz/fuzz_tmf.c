/* libFuzzer target for WPP: the input is a u16 payload length, then that payload (a message's
 * argument bytes), then TMF text.  Parse the TMF; for its messages (at most 64) compile the
 * schema (32- and 64-bit), frame a MESSAGE record of the message's GUID and number around the
 * payload, run the program over it, format every value and render the format string.  Seeds:
 * the shared TMFs with a payload in front (tmf_seeds.py). */
#include <string.h>

#include "bytes.h"
#include "fuzz_input.h"
#include "schema.h"
#include "schema_cache.h"
#include "tmf.h"
#include "tmf_schema.h"
#include "value_format.h"
#include "wpp_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static char text[ETL_VALUE_TEXT_CAP(65536)];
static char message[65536];
static uint8_t record[65536];

typedef struct run {
    etl_schema_cache *cache;
    etl_schema_builder b;
    const uint8_t *payload;
    size_t plen;
    unsigned done;
} run;

static void one(void *ctx, etl_tmf_message *m)
{
    run *r = ctx;
    if (r->done++ >= 64)
        return;
    for (uint8_t ptr = 4; ptr <= 8; ptr += 4) {
        const etl_schema *s = NULL;
        etl_error err;
        if (etl_tmf_schema(r->cache, &r->b, m, ptr, &s, &err) != ETL_OK || !s)
            continue;
        /* MESSAGE header, GUID, POINTER32/64, then the payload */
        size_t size = 8 + 16 + r->plen;
        if (size > 0xFFF8)
            size = 0xFFF8;
        memset(record, 0, 24);
        etl_st16(record, (uint16_t)size);
        record[3] = 0x90;
        etl_st16(record + 4, m->number);
        etl_st16(record + 6, (uint16_t)(0x0002 | (ptr == 4 ? 0x0040 : 0x0080)));
        etl_st32(record + 8, m->guid.data1);
        etl_st16(record + 12, m->guid.data2);
        etl_st16(record + 14, m->guid.data3);
        memcpy(record + 16, m->guid.data4, 8);
        memcpy(record + 24, r->payload, size - 24);
        etl_record rec;
        uint32_t stride;
        if (etl_frame_record(record, size, ptr, &rec, &stride, &err) != ETL_OK)
            continue;
        fuzz_format_values(s, rec.bytes + rec.payload_offset, rec.payload_size, rec.pointer_size, text, sizeof text);
        etl_wpp_format(m, s, &rec, message, sizeof message);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    fuzz_input in;
    if (!fuzz_input_split(d, n, &in))
        return 0;
    etl_tmf_store *s = etl_tmf_store_new(NULL, NULL);
    etl_error err;
    if (etl_tmf_add_text(s, in.text, in.text_len, "fuzz.tmf", &err) == ETL_OK) {
        run r = {0};
        r.cache = etl_schema_cache_new(NULL);
        etl_schema_builder_init(&r.b, NULL);
        r.payload = in.payload;
        r.plen = in.payload_len;
        etl_tmf_foreach(s, one, &r);
        etl_schema_builder_free(&r.b);
        etl_schema_cache_free(r.cache);
    }
    etl_tmf_store_free(s);
    return 0;
}
