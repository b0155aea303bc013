/* decoder_context.h - the decoding context several unit tests build by hand: a schema cache, a
 * registry on it and a process table on the registry, freed in the reverse order. */
#ifndef ETL_TEST_DECODER_CONTEXT_H
#define ETL_TEST_DECODER_CONTEXT_H

#include "procs.h"
#include "registry.h"
#include "schema_cache.h"

typedef struct decoder_context {
    etl_schema_cache *cache;
    etl_registry *reg;
    etl_procs *procs;
} decoder_context;

/* `report` (may be NULL) gets the registry's messages. */
static inline void decoder_context_init(decoder_context *c, etl_registry_report_fn report)
{
    c->cache = etl_schema_cache_new(NULL);
    c->reg = etl_registry_new(c->cache, report, NULL);
    c->procs = etl_procs_new(c->reg);
}

static inline void decoder_context_free(decoder_context *c)
{
    etl_procs_free(c->procs);
    etl_registry_free(c->reg);
    etl_schema_cache_free(c->cache);
}

#endif
