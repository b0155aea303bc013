/* libFuzzer target for provider binaries: the input is a PE image (or a bare CRIM blob).  Read
 * its headers and resource tree, index its providers, read it whole (WEVT_TEMPLATE, binary XML,
 * MESSAGETABLE) into the manifest model and compile every event (32- and 64-bit); the message
 * table and binary XML readers also get the raw input.  Seeds: libfwevt's CRIM blob bare and in
 * small PE32/PE32+ images, and the head of clretwrc.dll (wevt_seeds.py). */
#include <string.h>

#include "bxml.h"
#include "crim.h"
#include "manifest.h"
#include "mf_schema.h"
#include "msgtable.h"
#include "pe.h"
#include "schema.h"
#include "wevt.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    etl_error err;
    etl_pe pe;
    etl_pe_resource r;
    if (etl_pe_open(&pe, d, n, &err) == ETL_OK) {
        size_t off;
        etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &r, &err);
        etl_pe_find_resource(&pe, NULL, ETL_PE_RT_MESSAGETABLE, &r, &err);
        etl_pe_rva_to_offset(&pe, pe.rsrc_rva, 16, &off);
    }
    etl_guid guids[16];
    uint32_t count;
    etl_crim_provider_guids(d, n, 0, guids, 16, &count, &err);

    etl_manifest *m = NULL;
    if (etl_wevt_load_memory(d, n, "fuzz.dll", NULL, &m, &err) == ETL_OK) {
        etl_schema_builder b;
        etl_schema_builder_init(&b, NULL);
        unsigned compiled = 0;
        for (uint32_t i = 0; i < etl_manifest_provider_count(m); i++) {
            const etl_mf_provider *p = etl_manifest_provider(m, i);
            for (uint32_t k = 0; k < p->event_count && compiled < 64; k++, compiled++)
                for (uint8_t ptr = 4; ptr <= 8; ptr += 4)
                    etl_mf_compile(&b, p, &p->events[k], ptr, "fuzz.dll", &err);
        }
        etl_schema_builder_free(&b);
        etl_manifest_free(m);
    }

    etl_msgtable *t = etl_msgtable_new();
    etl_msgtable_merge(t, d, n, 0, &err);
    etl_msgtable_free(t);
    etl_bxml_info info;
    etl_bxml_scan(d, n, 0, &info, &err);
    return 0;
}
