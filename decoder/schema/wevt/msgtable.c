/* msgtable.c - MESSAGETABLE resources (msgtable.h). */
#include "msgtable.h"

#include <glib.h>
#include <string.h>

#include "bytes.h"
#include "error.h"
#include "text.h"

enum {
    MESSAGE_RESOURCE_DATA_OFF_BLOCKS = 0,  /* u32 NumberOfBlocks */
    MESSAGE_RESOURCE_DATA_SIZE = 4,
    MESSAGE_RESOURCE_BLOCK_OFF_LOW = 0,
    MESSAGE_RESOURCE_BLOCK_OFF_HIGH = 4,
    MESSAGE_RESOURCE_BLOCK_OFF_ENTRIES = 8,
    MESSAGE_RESOURCE_BLOCK_SIZE = 12,
    MESSAGE_RESOURCE_ENTRY_OFF_LENGTH = 0,
    MESSAGE_RESOURCE_ENTRY_OFF_FLAGS = 2,
    MESSAGE_RESOURCE_ENTRY_SIZE = 4
};
#define MESSAGE_RESOURCE_UNICODE 0x0001u

struct etl_msgtable {
    GHashTable *texts; /* boxed u32 id -> char* (every u32, 0 and 0xFFFFFFFF included, is an id) */
};

static guint id_hash(gconstpointer k)
{
    return *(const uint32_t *)k;
}

static gboolean id_eq(gconstpointer a, gconstpointer b)
{
    return *(const uint32_t *)a == *(const uint32_t *)b;
}

etl_msgtable *etl_msgtable_new(void)
{
    etl_msgtable *t = g_new0(etl_msgtable, 1);
    t->texts = g_hash_table_new_full(id_hash, id_eq, g_free, g_free);
    return t;
}

void etl_msgtable_free(etl_msgtable *t)
{
    if (!t)
        return;
    g_hash_table_destroy(t->texts);
    g_free(t);
}

uint32_t etl_msgtable_count(const etl_msgtable *t)
{
    return t ? g_hash_table_size(t->texts) : 0;
}

void etl_msgtable_merge_table(etl_msgtable *t, const etl_msgtable *from)
{
    if (!t || !from)
        return;
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, from->texts);
    while (g_hash_table_iter_next(&it, &k, &v))
        if (!g_hash_table_contains(t->texts, k))
            g_hash_table_insert(t->texts, g_memdup2(k, sizeof(uint32_t)), g_strdup(v));
}

const char *etl_msgtable_get(const etl_msgtable *t, uint32_t id)
{
    return t ? g_hash_table_lookup(t->texts, &id) : NULL;
}

/* The entry's text as UTF-8 without the trailing NULs and CR LF. */
static char *entry_text(const uint8_t *p, size_t len, bool unicode)
{
    char *s;
    if (unicode) {
        size_t cap = len / 2 * 3 + 1;
        s = g_malloc(cap);
        etl_utf16_to_utf8(p, len & ~(size_t)1, s, cap, NULL);
    } else {
        size_t n = strnlen((const char *)p, len);
        s = g_utf8_validate((const char *)p, (gssize)n, NULL) ? g_strndup((const char *)p, n)
                                                              : g_convert((const char *)p, (gssize)n, "UTF-8",
                                                                          "WINDOWS-1252", NULL, NULL, NULL);
        if (!s)
            s = g_strndup("", 0);
    }
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

etl_status etl_msgtable_merge(etl_msgtable *t, const uint8_t *d, size_t n, uint64_t base, etl_error *err)
{
    uint32_t blocks;
    if (!etl_u32_at(d, n, MESSAGE_RESOURCE_DATA_OFF_BLOCKS, &blocks))
        return etl_fail(err, ETL_ERR_TRUNCATED, base, "message table of %zu bytes has no header", n);
    if (blocks > ETL_MSGTABLE_MAX_BLOCKS || !etl_span_ok(n, MESSAGE_RESOURCE_DATA_SIZE,
                                                           (size_t)blocks * MESSAGE_RESOURCE_BLOCK_SIZE))
        return etl_fail(err, ETL_ERR_CORRUPT, base, "message table claims %u blocks, which do not fit its %zu bytes",
                        blocks, n);
    uint32_t total = 0;
    for (uint32_t b = 0; b < blocks; b++) {
        const uint8_t *blk = d + MESSAGE_RESOURCE_DATA_SIZE + (size_t)b * MESSAGE_RESOURCE_BLOCK_SIZE;
        uint64_t at = base + (uint64_t)(blk - d);
        uint32_t low = etl_ld32(blk + MESSAGE_RESOURCE_BLOCK_OFF_LOW), high = etl_ld32(blk + MESSAGE_RESOURCE_BLOCK_OFF_HIGH);
        size_t off = etl_ld32(blk + MESSAGE_RESOURCE_BLOCK_OFF_ENTRIES);
        if (high < low || high - low >= ETL_MSGTABLE_MAX_ENTRIES - total)
            return etl_fail(err, ETL_ERR_LIMIT, at, "message table block %u: ids 0x%x-0x%x are more than %u messages",
                            b, low, high, ETL_MSGTABLE_MAX_ENTRIES);
        for (uint32_t id = low;; id++) {
            uint16_t len, flags;
            if (!etl_u16_at(d, n, off + MESSAGE_RESOURCE_ENTRY_OFF_LENGTH, &len) ||
                !etl_u16_at(d, n, off + MESSAGE_RESOURCE_ENTRY_OFF_FLAGS, &flags) || len < MESSAGE_RESOURCE_ENTRY_SIZE ||
                !etl_span_ok(n, off, len))
                return etl_fail(err, ETL_ERR_TRUNCATED, base + off,
                                "message 0x%x at 0x%llx runs past the end of its table", id,
                                (unsigned long long)(base + off));
            total++;
            uint32_t key = id;
            if (!g_hash_table_contains(t->texts, &key))
                g_hash_table_insert(t->texts, g_memdup2(&key, sizeof key),
                                    entry_text(d + off + MESSAGE_RESOURCE_ENTRY_SIZE, len - MESSAGE_RESOURCE_ENTRY_SIZE,
                                               flags & MESSAGE_RESOURCE_UNICODE));
            off += len;
            if (id == high)
                break;
        }
    }
    return ETL_OK;
}
