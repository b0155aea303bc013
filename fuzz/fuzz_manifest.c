/* libFuzzer target for manifest schemas: the input is a u16 payload length, then that payload,
 * then manifest XML.  Parse the manifest, compile every event (32- and 64-bit), run each
 * program over the payload and format every value.  Seeds: the shared manifests with a small
 * payload in front (manifest_seeds.py). */
#include <string.h>

#include "fuzz_input.h"
#include "manifest.h"
#include "mf_schema.h"
#include "schema.h"
#include "schema_walk.h"
#include "value_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static char text[ETL_VALUE_TEXT_CAP(65536)];

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    fuzz_input in;
    etl_manifest *m = NULL;
    etl_error err;
    if (!fuzz_input_split(d, n, &in) || etl_manifest_parse(in.text, in.text_len, "fuzz.man", &m, &err) != ETL_OK)
        return 0;
    etl_schema_builder b;
    etl_schema_builder_init(&b, NULL);
    unsigned compiled = 0;
    for (uint32_t i = 0; i < etl_manifest_provider_count(m); i++) {
        const etl_mf_provider *p = etl_manifest_provider(m, i);
        for (uint32_t k = 0; k < p->event_count && compiled < 64; k++) {
            char name[ETL_MF_MAX_EVENT_NAME];
            etl_mf_event_display_name(&p->events[k], name, sizeof name);
            for (uint8_t ptr = 4; ptr <= 8; ptr += 4) {
                /* compile leaves a usable program (ending in UNSUPPORTED) unless out of memory */
                if (etl_mf_compile(&b, p, &p->events[k], ptr, "fuzz.man", &err) == ETL_ERR_NOMEM)
                    continue;
                etl_schema *s = etl_schema_builder_finish(&b, NULL, 0);
                if (!s)
                    continue;
                compiled++;
                fuzz_format_values(s, in.payload, in.payload_len, ptr, text, sizeof text);
                fuzz_scalar_runs(s, in.payload, in.payload_len, ptr);
                /* the same schema walked without a payload, every value's nominal type */
                etl_item it;
                etl_schema_walk w;
                etl_value nominal;
                etl_schema_walk_start(&w, s, ptr);
                while (etl_schema_walk_next(&w, &it) != ETL_ITEM_END)
                    if (it.kind == ETL_ITEM_VALUE)
                        etl_item_nominal(&it, &nominal);
                etl_schema_free(NULL, s);
            }
        }
    }
    etl_schema_builder_free(&b);
    etl_manifest_free(m);
    return 0;
}
