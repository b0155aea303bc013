/* libFuzzer target for process context, volume mappings and stack links: read the input as a
 * trace, feed every record to etl_procs and etl_volumes in file order, then read it again in time order and ask each record's
 * process, event key and stack-walk target, linking stacks through etl_stack_links.  Any
 * crash, sanitizer report, leak, hang, or a name that is not a string, is a bug.  The schema
 * registry (and its kernel class document) is built once for the whole run. */
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "procs.h"
#include "schema_cache.h"
#include "registry.h"
#include "stack_links.h"
#include "volumes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static etl_schema_cache *cache;
static etl_registry *schemas;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!schemas) {
        cache = etl_schema_cache_new(NULL);
        schemas = etl_registry_new(cache, NULL, NULL);
        if (!schemas)
            abort();
    }
    etl_procs *p = etl_procs_new(schemas);
    etl_stack_links *links = etl_stack_links_new(64);
    etl_volumes *vol = etl_volumes_new(schemas);
    if (!p || !links || !vol)
        abort();
    etl_options opt = {0};
    opt.order = ETL_ORDER_FILE;
    etl_reader *r;
    etl_error err;
    etl_record rec;
    if (etl_reader_open_memory(data, size, &opt, &r, &err) == ETL_OK) {
        uint64_t n = 0;
        while (etl_reader_next(r, &rec, &err) == ETL_OK && n++ < 1000000)
        {
            etl_procs_observe(p, &rec);
            etl_volumes_observe(vol, &rec);
        }
        etl_reader_close(r);
    }
    if (etl_reader_open_memory(data, size, NULL, &r, &err) == ETL_OK) {
        uint64_t n = 0;
        while (etl_reader_next(r, &rec, &err) == ETL_OK && n++ < 1000000) {
            etl_proc_info pi;
            if (etl_procs_lookup(p, &rec, &pi) && pi.name && strlen(pi.name) > ETL_PROCS_MAX_NAME)
                abort();
            uint64_t ts, id;
            uint32_t tid;
            if (etl_stackwalk_target_key(&rec, &ts, &tid)) {
                (void)etl_stack_links_find(links, ts, tid, &id);
            } else if (etl_procs_event_key(p, &rec, &ts, &tid)) {
                etl_stack_links_add(links, ts, tid, rec.position);
            }
            (void)etl_stack_event_key(&rec, &ts, &tid);
            /* every string-looking stretch of the payload as a path: a DOS form is a string */
            char dos[2 * ETL_VOLUMES_MAX_PATH + 64];
            if (rec.payload_size > 1 && etl_volumes_dos_path(vol, &rec, (const char *)rec.bytes + rec.payload_offset,
                                                             rec.payload_size, dos, sizeof dos) &&
                strlen(dos) >= sizeof dos)
                abort();
        }
        etl_reader_close(r);
    }
    etl_stack_links_free(links);
    etl_volumes_free(vol);
    etl_procs_free(p);
    return 0;
}
