/* buffer.c - the buffer reader: header checks, loading, LZXpress inflation, record index.
 *
 * A buffer is a WMI_BUFFER_HEADER (layout.h) followed by 8-aligned records up to the valid
 * end (the Offset field, "FilledBytes"), then 0xFF slack up to BufferSize.  In compressed files
 * (ETL_BF_COMPRESSED) the bytes after the header, up to BufferSize, are one LZXpress stream
 * that inflates to exactly Offset - ETL_BUFFER_HEADER_SIZE bytes (checked against the real
 * corpus), and BufferSize is the on-disk length, variable and unaligned. */
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "bytes.h"
#include "error.h"
#include "inflate_cache.h"
#include "layout.h"
#include "prefault.h"
#include "record.h"

etl_status etl_buffer_header_check(const uint8_t h[ETL_BUFFER_HEADER_SIZE], uint64_t remaining,
                                   etl_buffer_header *b, etl_error *err)
{
    b->buffer_size = etl_ld32(h + WMI_BUFFER_HEADER_OFF_BUFFER_SIZE);
    b->saved_offset = etl_ld32(h + WMI_BUFFER_HEADER_OFF_SAVED_OFFSET);
    b->timestamp = (int64_t)etl_ld64(h + WMI_BUFFER_HEADER_OFF_TIMESTAMP);
    b->sequence = (int64_t)etl_ld64(h + WMI_BUFFER_HEADER_OFF_SEQUENCE);
    b->flags = etl_ld16(h + WMI_BUFFER_HEADER_OFF_FLAGS);
    b->type = etl_ld16(h + WMI_BUFFER_HEADER_OFF_TYPE);
    /* ClientContext: ProcessorNumber byte (+ alignment byte), or a u16 ProcessorIndex when
     * the PROC_INDEX flag says so. */
    b->cpu = (b->flags & ETL_BF_PROC_INDEX)
                 ? (etl_ld16(h + WMI_BUFFER_HEADER_OFF_PROCESSOR) & WMI_BUFFER_PROCESSOR_INDEX_MASK)
                 : h[WMI_BUFFER_HEADER_OFF_PROCESSOR];
    b->logger_id = etl_ld16(h + WMI_BUFFER_HEADER_OFF_LOGGER_ID);
    b->state = etl_ld32(h + WMI_BUFFER_HEADER_OFF_STATE);
    b->filled = etl_ld32(h + WMI_BUFFER_HEADER_OFF_FILLED);

    if (b->buffer_size < ETL_BUFFER_HEADER_SIZE)
        return etl_fail(err, ETL_ERR_CORRUPT, 0, "buffer size %u is smaller than a buffer header", b->buffer_size);
    if (b->buffer_size > ETL_MAX_BUFFER_SIZE)
        return etl_fail(err, ETL_ERR_CORRUPT, 0, "buffer size %u exceeds the %u-byte limit", b->buffer_size,
                        ETL_MAX_BUFFER_SIZE);
    if (b->type > WMI_BUFFER_TYPE_MAX)
        return etl_fail(err, ETL_ERR_CORRUPT, 0, "buffer type %u is not a known ETW buffer type", b->type);
    if (b->flags & WMI_BUFFER_FLAGS_UNDEFINED)
        return etl_fail(err, ETL_ERR_CORRUPT, 0, "buffer flags 0x%04x carry undefined bits", b->flags);
    if (b->flags & ETL_BF_COMPRESSED) {
        if (b->filled < ETL_BUFFER_HEADER_SIZE || b->filled > ETL_MAX_BUFFER_SIZE)
            return etl_fail(err, ETL_ERR_CORRUPT, 0, "compressed buffer's decompressed size %u is impossible", b->filled);
        b->valid_end = b->filled;
    } else if (b->filled >= ETL_BUFFER_HEADER_SIZE && b->filled <= b->buffer_size) {
        b->valid_end = b->filled;
    } else if (b->saved_offset >= ETL_BUFFER_HEADER_SIZE && b->saved_offset <= b->buffer_size) {
        /* Offset unusable: SavedOffset holds the same end in every file seen. */
        b->valid_end = b->saved_offset;
    } else {
        return etl_fail(err, ETL_ERR_CORRUPT, 0, "valid-data end (0x%x / 0x%x) lies outside the %u-byte buffer",
                        b->filled, b->saved_offset, b->buffer_size);
    }
    (void)remaining;
    return ETL_OK;
}

/* Grow *p to hold `need` elements, at least `first` when it has none yet, keeping its first
 * `have`.  The new memory is mapped in at once (etl_prefault), before the kept elements are
 * copied into it: a buffer's arrays are written the first time it is loaded, by a loader thread
 * when there are any, and page by page each first write was a fault - realloc's copy too. */
static bool grow(void **p, uint32_t *cap, uint32_t have, uint32_t need, uint32_t first, size_t elem)
{
    if (need <= *cap)
        return true;
    uint32_t n = *cap ? *cap : first;
    while (n < need)
        n *= 2;
    void *q = malloc((size_t)n * elem);
    if (!q)
        return false;
    etl_prefault(q, (size_t)n * elem);
    if (have)
        memcpy(q, *p, (size_t)have * elem);
    free(*p);
    *p = q;
    *cap = n;
    return true;
}

/* The index's first size for a buffer of `len` bytes: its records are 8-byte aligned and the
 * kernel's smallest are a few dozen bytes, so one entry for every 64 bytes holds a typical
 * buffer's records without the copies of growing there by doubling (it still grows if not). */
static uint32_t index_first_cap(uint32_t len)
{
    uint32_t n = 256;
    while (n < len / 64 && n < (1u << 20))
        n *= 2;
    return n;
}

static int cmp_entry(const void *a, const void *b, const etl_index_entry *ix)
{
    const etl_index_entry *x = &ix[*(const uint32_t *)a], *y = &ix[*(const uint32_t *)b];
    if (x->timestamp != y->timestamp)
        return x->timestamp < y->timestamp ? -1 : 1;
    return x->offset < y->offset ? -1 : (x->offset > y->offset);
}

/* qsort has no context argument in C11: sort a permutation with a small merge sort instead,
 * which is also stable and O(n log n) on any input (an insertion sort would be quadratic on
 * hostile buffers). */
static bool sort_order(etl_buffer *b)
{
    uint32_t n = b->count;
    uint32_t *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp)
        return false;
    uint32_t *src = b->order, *dst = tmp;
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = cmp_entry(&src[j], &src[i], b->index) < 0 ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != b->order)
        memcpy(b->order, src, (size_t)n * sizeof *src);
    free(tmp);
    return true;
}

etl_status etl_io_read(const struct etl_io_ref *io, uint64_t off, void *buf, size_t len, size_t *got,
                       etl_error *err)
{
    *got = 0;
    if (off >= io->size)
        return ETL_OK;
    if (len > io->size - off)
        len = (size_t)(io->size - off);
    if (io->io->read_at(io->ctx, off, buf, len, got) < 0)
        return etl_fail(err, ETL_ERR_IO, off, "read of %zu bytes at offset 0x%llx failed", len, (unsigned long long)off);
    return ETL_OK;
}

etl_status etl_buffer_load(etl_buffer *b, const struct etl_io_ref *io, uint64_t off,
                           const etl_buffer_header *hdr, const etl_clock *clock, bool want_order,
                           etl_report_fn report, void *rctx, etl_error *err)
{
    etl_status st;
    size_t got;
    uint32_t cap_needed = hdr->valid_end;
    b->file_offset = off;
    b->hdr = *hdr;
    b->count = 0;
    b->next = 0;
    b->sorted = true;
    b->data_len = 0;
    if (cap_needed > b->data_cap) {
        /* A new block, not realloc: nothing of the old bytes is kept, and realloc copied them
         * into the new block's pages before they were mapped in, a fault a page (perf: 222 of
         * the 434 page faults of `etldump --summary --threads 2` on the 1 M-record kernel
         * trace, as buffers filled a little further came by).  Room for the session's buffer
         * size at once, so that the buffers after it fit (both are bounded:
         * ETL_MAX_BUFFER_SIZE); only what is loaded is mapped in, below. */
        uint32_t cap = hdr->buffer_size > cap_needed ? hdr->buffer_size : cap_needed;
        free(b->data);
        b->data = NULL;
        b->data_cap = b->data_mapped = 0;
        uint8_t *d = malloc(cap);
        if (!d)
            return etl_fail(err, ETL_ERR_NOMEM, off, "no memory for a %u-byte buffer", cap);
        b->data = d;
        b->data_cap = cap;
    }
    if (cap_needed > b->data_mapped) { /* about to be written: mapped in at once */
        etl_prefault(b->data + b->data_mapped, cap_needed - b->data_mapped);
        b->data_mapped = cap_needed;
    }
    uint64_t avail_disk = io->size - off; /* caller guarantees off + ETL_BUFFER_HEADER_SIZE <= size */
    uint32_t kept;
    if ((hdr->flags & ETL_BF_COMPRESSED) && io->cache &&
        etl_inflate_cache_take(io->cache, off, hdr, b->data, cap_needed, &kept)) {
        /* inflated before by another reader of the file, cleanly: nothing to report */
        b->data_len = kept;
    } else if (hdr->flags & ETL_BF_COMPRESSED) {
        size_t clen = hdr->buffer_size - ETL_BUFFER_HEADER_SIZE;
        uint8_t *cbuf = malloc(clen ? clen : 1);
        if (!cbuf)
            return etl_fail(err, ETL_ERR_NOMEM, off, "no memory for a %zu-byte compressed buffer", clen);
        st = etl_io_read(io, off, b->data, ETL_BUFFER_HEADER_SIZE, &got, err);
        if (st == ETL_OK)
            st = etl_io_read(io, off + ETL_BUFFER_HEADER_SIZE, cbuf, clen, &got, err);
        if (st != ETL_OK) {
            free(cbuf);
            return st;
        }
        if (got < clen)
            report(rctx, ETL_ERR_TRUNCATED, off, 0,
                   "compressed buffer at 0x%llx is cut: %zu of its %zu compressed bytes are in the file",
                   (unsigned long long)off, got, clen);
        size_t out_len = 0;
        etl_error derr;
        etl_status ds = etl_lzxpress_decompress(cbuf, got, b->data + ETL_BUFFER_HEADER_SIZE,
                                                hdr->valid_end - ETL_BUFFER_HEADER_SIZE, &out_len, &derr);
        free(cbuf);
        if (ds != ETL_OK)
            report(rctx, ETL_ERR_DECOMPRESS, off, hdr->valid_end - ETL_BUFFER_HEADER_SIZE - out_len,
                   "compressed buffer at 0x%llx does not inflate (%s at compressed byte %llu); %zu bytes recovered",
                   (unsigned long long)off, derr.message, (unsigned long long)derr.offset, out_len);
        else if (out_len != hdr->valid_end - ETL_BUFFER_HEADER_SIZE && got == clen)
            report(rctx, ETL_ERR_CORRUPT, off, 0,
                   "compressed buffer at 0x%llx inflates to %zu bytes, its header says %u",
                   (unsigned long long)off, out_len, hdr->valid_end - ETL_BUFFER_HEADER_SIZE);
        b->data_len = (uint32_t)(ETL_BUFFER_HEADER_SIZE + out_len);
        if (io->cache && got == clen && ds == ETL_OK && out_len == hdr->valid_end - ETL_BUFFER_HEADER_SIZE)
            etl_inflate_cache_put(io->cache, off, hdr, b->data, b->data_len); /* no report: kept */
    } else {
        uint32_t want = hdr->valid_end;
        st = etl_io_read(io, off, b->data, want, &got, err);
        if (st != ETL_OK)
            return st;
        if (got < want) {
            report(rctx, ETL_ERR_TRUNCATED, off, 0,
                   "buffer at 0x%llx is cut: %zu of its %u valid bytes are in the file",
                   (unsigned long long)off, got, want);
        } else if (avail_disk < hdr->buffer_size) {
            /* Valid data complete, only 0xFF slack missing: nothing lost, still worth saying. */
            report(rctx, ETL_ERR_TRUNCATED, off, 0,
                   "buffer at 0x%llx is cut in its unused tail (%llu of %u bytes in the file); all records kept",
                   (unsigned long long)off, (unsigned long long)avail_disk, hdr->buffer_size);
        }
        b->data_len = (uint32_t)got;
    }

    /* Index the records: the cheap peek of every record, stopping at the end marker or at the
     * first record that cannot be framed (the rest of the buffer is reported lost).  The index,
     * its count and the order flag live in locals until the end: stores through `e` could alias
     * the struct's fields, so gcc reloaded them once a record, and on a loader thread those
     * reloads were the loop's slowest loads. */
    uint32_t pos = ETL_BUFFER_HEADER_SIZE;
    int64_t last_ts = hdr->timestamp;
    etl_index_entry *ix = b->index;
    uint32_t count = 0, cap = b->index_cap;
    bool sorted = true;
    int64_t prev_ts = INT64_MIN; /* the last entry's timestamp */
    etl_status fail = ETL_OK;
    while (pos < b->data_len) {
        etl_record_peek pk;
        etl_error perr;
        st = etl_peek_record_quick(b->data + pos, b->data_len - pos, &pk, &perr);
        if (st == ETL_END)
            break;
        if (st != ETL_OK) {
            if (hdr->flags & ETL_BF_COMPRESSED)
                report(rctx, st, off, b->data_len - pos,
                       "buffer at 0x%llx, record at decompressed offset 0x%x: %s; rest of the buffer (%u bytes) skipped",
                       (unsigned long long)off, pos, perr.message, b->data_len - pos);
            else
                report(rctx, st, off + pos, b->data_len - pos,
                       "record at 0x%llx (buffer at 0x%llx): %s; rest of the buffer (%u bytes) skipped",
                       (unsigned long long)(off + pos), (unsigned long long)off, perr.message, b->data_len - pos);
            break;
        }
        if (count + 1 > cap && !grow((void **)&ix, &cap, count, count + 1, index_first_cap(b->data_len), sizeof *ix)) {
            fail = etl_fail(err, ETL_ERR_NOMEM, off, "no memory for the record index");
            break;
        }
        if (pk.has_timestamp)
            last_ts = pk.timestamp_raw;
        if (last_ts < prev_ts)
            sorted = false;
        prev_ts = last_ts;
        etl_index_entry *e = &ix[count];
        e->timestamp = last_ts;
        e->offset = pos;
        e->size = pk.size;
        e->header_type = pk.header_type;
        e->raw_header_type = pk.raw_header_type;
        e->has_timestamp = pk.has_timestamp;
        e->has_filetime = pk.has_timestamp && clock && etl_clock_convert(clock, pk.timestamp_raw, &e->filetime);
        if (!e->has_filetime)
            e->filetime = 0;
        count++;
        uint32_t stride = etl_align8(pk.size);
        if (stride > b->data_len - pos)
            break;
        pos += stride;
    }
    b->index = ix;
    b->index_cap = cap;
    b->count = count;
    b->sorted = sorted;
    if (fail != ETL_OK)
        return fail;
    if (want_order && !b->sorted) {
        if (!grow((void **)&b->order, &b->order_cap, 0, b->count, 256, sizeof *b->order)) /* rewritten below */
            return etl_fail(err, ETL_ERR_NOMEM, off, "no memory for the record order");
        for (uint32_t i = 0; i < b->count; i++)
            b->order[i] = i;
        if (!sort_order(b))
            return etl_fail(err, ETL_ERR_NOMEM, off, "no memory to sort the buffer");
    }
    return ETL_OK;
}

/* A cache line's size on the machines we run on (x86-64 and arm64 both use 64 bytes). */
#define BUFFER_LINE 64u

etl_buffer *etl_buffer_new(void)
{
    size_t size = (sizeof(etl_buffer) + BUFFER_LINE - 1) / BUFFER_LINE * BUFFER_LINE;
    etl_buffer *b = aligned_alloc(BUFFER_LINE, size);
    if (b)
        memset(b, 0, size);
    return b;
}

void etl_buffer_free(etl_buffer *b)
{
    free(b->data);
    free(b->index);
    free(b->order);
    memset(b, 0, sizeof *b);
}

int64_t etl_buffer_find(const etl_buffer *b, uint32_t offset)
{
    uint32_t lo = 0, hi = b->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (b->index[mid].offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < b->count && b->index[lo].offset == offset) ? (int64_t)lo : -1;
}
