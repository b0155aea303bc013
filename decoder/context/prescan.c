/* prescan.c - the one pass before decoding (prescan.h). */
#include "prescan.h"

#include "error.h"

#include "carried.h"
#include "eventsource.h"
#include "procs.h"
#include "registry.h"

etl_status etl_prescan(etl_reader *r, const etl_observer *obs, size_t n, etl_error *err)
{
    if (!r || (n && !obs) || n > ETL_PRESCAN_MAX_OBSERVERS)
        return etl_fail(err, ETL_ERR_ARG, 0, "prescan: no reader, or more than %u observers",
                        ETL_PRESCAN_MAX_OBSERVERS);
    etl_record rec;
    etl_status st;
    while ((st = etl_reader_next(r, &rec, err)) == ETL_OK)
        for (size_t i = 0; i < n; i++)
            obs[i].observe(obs[i].ctx, &rec);
    etl_error p;
    while (etl_reader_next_problem(r, &p))
        ; /* damage is the decoding pass's to report */
    return st == ETL_END ? ETL_OK : st;
}

etl_status etl_prescan_file(const char *path, const etl_observer *obs, size_t n, etl_error *err)
{
    return etl_prescan_file_threads(path, 0, obs, n, err);
}

etl_status etl_prescan_file_threads(const char *path, unsigned threads, const etl_observer *obs, size_t n,
                                    etl_error *err)
{
    return etl_prescan_file_cached(path, threads, NULL, obs, n, err);
}

etl_status etl_prescan_file_cached(const char *path, unsigned threads, etl_inflate_cache *cache, const etl_observer *obs,
                                   size_t n, etl_error *err)
{
    etl_options opt = {0};
    opt.order = ETL_ORDER_FILE; /* no merge: every record once, in the order stored */
    opt.threads = threads;
    opt.inflate_cache = cache;
    etl_reader *r;
    etl_status st = etl_reader_open_file(path, &opt, &r, err);
    if (st != ETL_OK)
        return st;
    st = etl_prescan(r, obs, n, err);
    etl_reader_close(r);
    return st;
}

static void observe_registry(void *ctx, const etl_record *rec)
{
    /* only EVENT_HEADER records (EventSource chunks) and classic full headers (MetaData) can
     * carry schemas: the rest passes without a call */
    switch (rec->header_type) {
    case ETL_HT_EVENT_HEADER32: case ETL_HT_EVENT_HEADER64:
    case ETL_HT_FULL_HEADER32: case ETL_HT_FULL_HEADER64:
        /* and of those only the schema records: the registry's answer for any other (an error
         * with its message formatted) is not worth asking for per record */
        if (etl_carried_is_metadata(rec) || etl_es_is_manifest_chunk(rec))
            etl_registry_observe(ctx, rec, NULL);
        break;
    default:
        break;
    }
}

etl_observer etl_registry_observer(etl_registry *s)
{
    return (etl_observer){ observe_registry, s };
}

static void observe_procs(void *ctx, const etl_record *rec)
{
    etl_procs_observe(ctx, rec);
}

etl_observer etl_procs_observer(etl_procs *p)
{
    return (etl_observer){ observe_procs, p };
}
