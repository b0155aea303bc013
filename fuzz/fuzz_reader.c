/* libFuzzer target over the whole reader: open the input as a trace, read every record in time
 * order, read each one again by position and compare, and drain the damage reports; for some
 * inputs, also compare a pass with loader threads against one without.  Any crash,
 * sanitizer report, leak or mismatch is a bug; damage reports are expected. */
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "etl_format.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What a pass delivers, boiled down: the records' positions and sizes and the reports' codes
 * and offsets, in stream order (FNV-1a). */
typedef struct digest {
    uint64_t hash, records, reports;
} digest;

static void mix(digest *d, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        d->hash = (d->hash ^ (v & 0xFF)) * 0x100000001B3ull;
}

static void drain(etl_reader *r, digest *d)
{
    etl_error p;
    while (etl_reader_next_problem(r, &p)) {
        mix(d, (uint64_t)p.code);
        mix(d, p.offset);
        d->reports++;
    }
}

static digest pass_digest(const uint8_t *data, size_t size, etl_order order, uint32_t threads)
{
    digest d = {.hash = 0xCBF29CE484222325ull};
    etl_options opt = {.order = order, .threads = threads};
    etl_reader *r;
    etl_error err;
    if (etl_reader_open_memory(data, size, &opt, &r, &err) != ETL_OK)
        return d;
    etl_record rec;
    drain(r, &d);
    while (etl_reader_next(r, &rec, &err) == ETL_OK && d.records < 1000000) {
        mix(&d, rec.position);
        mix(&d, rec.size);
        d.records++;
        drain(r, &d);
    }
    drain(r, &d);
    etl_reader_close(r);
    return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    etl_reader *r;
    etl_error err;
    etl_options opt = {0};
    /* The first input byte picks the order and window, so both paths get fuzzed. */
    if (size && (data[size - 1] & 1)) {
        opt.order = ETL_ORDER_FILE;
    } else if (size) {
        opt.window_buffers = 1u + (data[size - 1] >> 4);
    }
    (void)etl_looks_like_etl(data, size);
    /* Bit 3 of the last byte: loader threads (1 to 3, bits 5-6; at open they also walk the
     * buffer headers in parts, reader.c) must deliver what one thread delivers. */
    if (size && (data[size - 1] & 8)) {
        etl_order order = (data[size - 1] & 1) ? ETL_ORDER_FILE : ETL_ORDER_TIME;
        digest one = pass_digest(data, size, order, 0);
        digest more = pass_digest(data, size, order, 1u + ((data[size - 1] >> 5) & 3u) % 3u);
        if (one.hash != more.hash || one.records != more.records || one.reports != more.reports)
            abort(); /* threads changed what the reader delivers */
    }
    /* Bit 1 of the last byte: a first pass in file order keeps what it inflates in a cache
     * (1 MiB) that the pass below takes its buffers from (etl_options.inflate_cache). */
    etl_inflate_cache *cache = NULL;
    if (size && (data[size - 1] & 2) && (cache = etl_inflate_cache_new(1u << 20))) {
        etl_options first = {.order = ETL_ORDER_FILE, .inflate_cache = cache};
        /* Bit 2: that pass skims as the pre-scan does (etl_reader_next_of), wanting the hook
         * and event ids the input's first bytes spell */
        static etl_id_set ids;
        memset(&ids, 0, sizeof ids);
        for (size_t i = 0; i + 1 < size && i < 16; i += 2) {
            etl_id_set_add_hook(&ids, (uint16_t)(data[i] | data[i + 1] << 8));
            etl_id_set_add_event_id(&ids, (uint16_t)(data[i + 1] | data[i] << 8));
        }
        const etl_id_set *skim = (data[size - 1] & 4) ? &ids : NULL;
        if (etl_reader_open_memory(data, size, &first, &r, &err) == ETL_OK) {
            etl_record rec;
            etl_error p;
            while (etl_reader_next_of(r, skim, &rec, &err) == ETL_OK) {
                volatile uint8_t sink = 0;
                for (uint32_t i = 0; i < rec.size; i++)
                    sink ^= rec.bytes[i];
                (void)sink;
            }
            while (etl_reader_next_problem(r, &p))
                ;
            etl_reader_close(r);
        }
        opt.inflate_cache = cache;
    }
    if (etl_reader_open_memory(data, size, &opt, &r, &err) != ETL_OK) {
        etl_inflate_cache_free(cache);
        return 0;
    }
    etl_record rec, again;
    uint64_t n = 0;
    while (etl_reader_next(r, &rec, &err) == ETL_OK && n < 1000000) {
        n++;
        /* Touch every byte the view claims, so a bad span shows up under ASan. */
        volatile uint8_t sink = 0;
        for (uint32_t i = 0; i < rec.size; i++)
            sink ^= rec.bytes[i];
        for (unsigned i = 0; i < rec.ext_count; i++)
            for (uint32_t k = 0; k < rec.ext[i].data_size; k++)
                sink ^= rec.ext[i].data[k];
        (void)sink;
        char s[ETL_SID_STR_SIZE];
        for (unsigned i = 0; i < rec.ext_count; i++)
            if (rec.ext[i].type == ETL_EXT_SID)
                etl_format_sid(rec.ext[i].data, rec.ext[i].data_size, s);
        uint8_t copy[64];
        size_t keep = rec.size < sizeof copy ? rec.size : sizeof copy;
        memcpy(copy, rec.bytes, keep);
        uint32_t size_before = rec.size;
        if (etl_reader_read_at(r, rec.position, &again, &err) != ETL_OK || again.size != size_before ||
            memcmp(again.bytes, copy, keep) != 0)
            abort(); /* a position that does not read back is a bug */
        etl_error p;
        while (etl_reader_next_problem(r, &p))
            ;
    }
    etl_error p;
    while (etl_reader_next_problem(r, &p))
        ;
    etl_reader_close(r);
    etl_inflate_cache_free(cache);
    return 0;
}
