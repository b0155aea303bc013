/* libFuzzer target for classic kernel events: every layout of the built-in kernel class
 * document (decoder/schema/kernel/kernel-classes.man) run over arbitrary payloads.
 *
 * Input: 16 bytes of class GUID (Windows layout), type, version, a flags byte (bit 0: 32-bit
 * record), then the payload.  A key the document describes is used as is; any other key is
 * mapped onto one of the described events (by a hash of the key), except that bit 1 of the
 * flags takes the unknown-event path instead - with a few stand-in keys, so the cache stays
 * bounded over a long run.  Then every item is enumerated (some
 * containers skipped whole) and every value decoded and formatted, as the front ends do.
 * Seeds are the real classic events of the captures (classic_seeds.py). */
#include <stdlib.h>
#include <string.h>

#include "etl_format.h"
#include "fields.h"
#include "fuzz_input.h"
#include "schema_cache.h"
#include "registry.h"
#include "value_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

typedef struct key {
    etl_guid cls;
    uint8_t type, version;
} key;

static etl_schema_cache *cache;
static etl_registry *reg;
static key *keys;
static size_t key_count, key_cap;
static char text[ETL_VALUE_TEXT_CAP(65536)];

static void collect(void *ctx, const etl_guid *cls, uint8_t type, uint8_t version)
{
    (void)ctx;
    if (key_count == key_cap) {
        key_cap = key_cap ? 2 * key_cap : 512;
        keys = realloc(keys, key_cap * sizeof *keys);
        if (!keys)
            abort();
    }
    keys[key_count].cls = *cls;
    keys[key_count].type = type;
    keys[key_count].version = version;
    key_count++;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n < 19)
        return 0;
    if (!reg) {
        /* one registry for the whole run: the document is parsed once, and the described keys
         * compile once per pointer size (a bounded cache) */
        cache = etl_schema_cache_new(NULL);
        reg = etl_registry_new(cache, NULL, NULL);
        etl_registry_foreach_classic_event(reg, collect, NULL);
        if (!key_count)
            abort(); /* the built-in document must describe events */
    }
    key k;
    k.cls.data1 = (uint32_t)(d[0] | d[1] << 8 | d[2] << 16 | (uint32_t)d[3] << 24);
    k.cls.data2 = (uint16_t)(d[4] | d[5] << 8);
    k.cls.data3 = (uint16_t)(d[6] | d[7] << 8);
    memcpy(k.cls.data4, d + 8, 8);
    k.type = d[16];
    k.version = d[17];
    uint8_t flags = d[18], ptr = (flags & 1) ? 4 : 8;
    d += 19;
    n -= 19;
    bool described = false;
    for (size_t i = 0; i < key_count && !described; i++)
        described = etl_guid_equal(&keys[i].cls, &k.cls) && keys[i].type == k.type && keys[i].version == k.version;
    if (!described && (flags & 2)) {
        /* unknown events: a handful of stand-in keys (4 classes x 8 types x 4 versions) */
        memset(&k.cls, 0, sizeof k.cls);
        k.cls.data1 = k.type & 3u;
        k.type &= 7u;
        k.version &= 3u;
    } else if (!described) {
        uint32_t h = k.cls.data1 ^ k.cls.data2 ^ (uint32_t)k.type << 8 ^ k.version;
        k = keys[h % key_count];
    }
    const etl_schema *s;
    etl_error err;
    if (etl_registry_lookup_classic(reg, &k.cls, k.type, k.version, ptr, &s, &err) != ETL_OK)
        abort(); /* classic lookups always answer (an unknown event has a schema too) */
    etl_fields f;
    etl_item it;
    int c = 0;
    etl_fields_start(&f, s, d, n, ptr);
    while (etl_fields_next(&f, &it) != ETL_ITEM_END) {
        if (it.kind == ETL_ITEM_VALUE) {
            etl_value v;
            etl_value_decode(&it, &v, text, sizeof text);
            etl_value_text(&v, text, sizeof text);
            etl_value_format(&it, text, 40); /* a small buffer: truncation paths */
        }
        if ((it.kind == ETL_ITEM_ARRAY_BEGIN || it.kind == ETL_ITEM_STRUCT_BEGIN) && (++c % 3) == 0)
            etl_fields_skip(&f);
    }
    fuzz_scalar_runs(s, d, n, ptr);
    return 0;
}
