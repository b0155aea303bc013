/* record.h - record framing internals shared by the framer and the buffer scanner. */
#ifndef ETL_RECORD_INTERNAL_H
#define ETL_RECORD_INTERNAL_H

#include <stddef.h>

#include "bytes.h"
#include "etl.h"
#include "layout.h"

/* The first step of framing, cheap enough to run over every record of a buffer when it is
 * loaded: classify the marker, find the size, and peek the raw timestamp.
 * Returns ETL_OK, ETL_END (end-of-data marker or fewer than 4 bytes), or an error saying why
 * no record can be framed here (offset relative to `d`). */
typedef struct etl_record_peek {
    uint8_t header_type;     /* ETL_HT_* (ETL_HT_UNKNOWN for unrecognised forms) */
    uint8_t raw_header_type;
    uint32_t size;           /* record bytes, pad excluded */
    bool has_timestamp;
    int64_t timestamp_raw;
} etl_record_peek;

etl_status etl_peek_record(const uint8_t *d, size_t avail, etl_record_peek *out, etl_error *err);

/* What etl_peek_record_quick knows of a typed header kind: its smallest size (0: not one it
 * peeks), where its timestamp is, and whether its size is in the marker's low word (else at
 * SYSTEM_TRACE_HEADER_OFF_SIZE, the system family). */
typedef struct etl_quick_kind {
    uint8_t min, ts_off;
    bool size_in_marker;
} etl_quick_kind;
extern const etl_quick_kind etl_quick_kinds[256];

/* etl_peek_record for the common records (a typed header of a known kind whose size is
 * plausible), inline in the indexing loop that runs once per record; everything else, and
 * every error, goes through etl_peek_record, which gives the same answer for these
 * (test_record checks that at every offset of real and damaged buffers).  A table and masks,
 * not a switch: kernel traces interleave the kinds at random, and the switch's indirect jump,
 * mispredicted, was a third of the indexing loop's time (perf annotate of etl_buffer_load,
 * --summary on the 1 M-record kernel trace, session 17). */
static inline etl_status etl_peek_record_quick(const uint8_t *d, size_t avail, etl_record_peek *out, etl_error *err)
{
    if (avail >= ETL_MARKER_SIZE + 4u) {
        uint32_t m = etl_ld32(d);
        unsigned t = etl_marker_header_type(m);
        const etl_quick_kind *k = &etl_quick_kinds[t];
        if (etl_marker_is_typed(m) && k->min) {
            /* both sizes read (the 8 bytes are there), one kept by a mask: no branch on the kind */
            uint32_t in_marker = 0u - (uint32_t)k->size_in_marker;
            uint32_t size = (etl_marker_size(m) & in_marker) | (etl_ld16(d + SYSTEM_TRACE_HEADER_OFF_SIZE) & ~in_marker);
            /* every minimum covers the timestamp, so size >= min puts it inside the record */
            if (size >= k->min && size <= avail) {
                out->header_type = out->raw_header_type = (uint8_t)t;
                out->size = size;
                out->has_timestamp = true;
                out->timestamp_raw = (int64_t)etl_ld64(d + k->ts_off);
                return ETL_OK;
            }
        }
    }
    return etl_peek_record(d, avail, out, err);
}

/* The classic class GUIDs of the kernel groups 0x00..ETL_KERNEL_GROUPS - 1 (HookId high byte,
 * etw-formats.md 9.2), indexed by group. */
#define ETL_KERNEL_GROUPS 0x1Fu
extern const etl_guid etl_kernel_group_guids[ETL_KERNEL_GROUPS];

/* etl.h orders etl_record's fields by size so that its head stays 208 bytes; a field added out
 * of place shows here (on 64-bit machines: with 4-byte pointers the sizes differ). */
#if UINTPTR_MAX > 0xFFFFFFFFu
_Static_assert(offsetof(etl_record, ext) == 208, "etl_record's head grew: keep etl.h's order by size");
#endif

/* The record's pid and tid, in one store: their first reader (etl_procs_ids) loads both at
 * once, and a load that spans two smaller stores is not forwarded from them - it waits until
 * they are in the cache, which on a batch's fresh lines (etldump --threads, cli/parallel.c)
 * meant waiting for the line to come from the other core (75% of etl_procs_ids's samples on
 * its first instruction at --threads 2, session 14; 4.9% -> 1.3% of all samples). */
static inline void etl_record_set_ids(etl_record *rec, uint32_t pid, uint32_t tid)
{
    _Static_assert(offsetof(etl_record, tid) == offsetof(etl_record, pid) + 4, "pid, then tid");
    const struct {
        uint32_t pid, tid;
    } ids = {pid, tid};
    memcpy(&rec->pid, &ids, sizeof ids);
}

/* The system family's header fields (SYSTEM, COMPACT, PERFINFO) into a view whose head is
 * clear: the HookId and what it says, the version, the ids and CPU times the form carries.
 * Returns the header's size, where PEBS/PMC items or the payload start.  Inline: the reader
 * frames a kernel trace's records through it without a call (record.c's framer uses it too). */
static inline uint32_t etl_frame_system_head(const uint8_t *d, unsigned t, uint16_t ver, etl_record *rec)
{
    uint16_t hook = etl_ld16(d + SYSTEM_TRACE_HEADER_OFF_HOOK_ID);
    unsigned group = hook >> 8;
    rec->hook_id = hook;
    rec->group = (uint8_t)group;
    rec->opcode = (uint8_t)(hook & 0xFF);
    rec->version = (uint8_t)(ver & 0xFF);
    if (group < ETL_KERNEL_GROUPS) {
        rec->provider = etl_kernel_group_guids[group];
        rec->has_provider = true;
    }
    /* PERFINFO has no ids (where the others keep them it keeps its timestamp, inside its 16
     * bytes): they are read for every kind and PERFINFO's made ETL_NO_ID (all ones) by a mask.
     * Kernel traces interleave PERFINFO samples with the other kinds at random, and a branch
     * on the kind here was mispredicted on a third of large_kernel's records (callgrind
     * --branch-sim).  gcc makes a branch of any ?: here, and mixing the mask into the loads'
     * expression made it assemble them byte by byte: the empty asm keeps each load whole. */
    _Static_assert(ETL_NO_ID == UINT32_MAX, "the mask makes ETL_NO_ID by or-ing ones");
    uint32_t none = 0u - (uint32_t)((t == ETL_HT_PERFINFO32) | (t == ETL_HT_PERFINFO64));
    uint32_t tid = etl_ld32(d + SYSTEM_TRACE_HEADER_OFF_THREAD_ID);
    uint32_t pid = etl_ld32(d + SYSTEM_TRACE_HEADER_OFF_PROCESS_ID);
    __asm__("" : "+r"(tid), "+r"(pid));
    etl_record_set_ids(rec, pid | none, tid | none);
    if (t == ETL_HT_SYSTEM32 || t == ETL_HT_SYSTEM64) {
        rec->kernel_time = etl_ld32(d + SYSTEM_TRACE_HEADER_OFF_KERNEL_TIME);
        rec->user_time = etl_ld32(d + SYSTEM_TRACE_HEADER_OFF_USER_TIME);
        rec->has_cpu_times = true;
        return SYSTEM_TRACE_HEADER_SIZE;
    }
    _Static_assert(SYSTEM_TRACE_HEADER_COMPACT_SIZE - PERFINFO_TRACE_HEADER_SIZE == 8, "the sizes below");
    return SYSTEM_TRACE_HEADER_COMPACT_SIZE - (none & 8u);
}

/* The pointer size a typed header kind says (4 or 8), or 0 for kinds that do not say.  A
 * table: the switch it was cost twice the instructions on every record framed. */
static inline uint8_t etl_header_pointer_size(unsigned t)
{
    static const uint8_t size[] = {
        [ETL_HT_SYSTEM32] = 4, [ETL_HT_COMPACT32] = 4, [ETL_HT_PERFINFO32] = 4,
        [ETL_HT_FULL_HEADER32] = 4, [ETL_HT_INSTANCE32] = 4, [ETL_HT_EVENT_HEADER32] = 4,
        [ETL_HT_SYSTEM64] = 8, [ETL_HT_COMPACT64] = 8, [ETL_HT_PERFINFO64] = 8,
        [ETL_HT_FULL_HEADER64] = 8, [ETL_HT_INSTANCE64] = 8, [ETL_HT_EVENT_HEADER64] = 8,
    };
    return t < sizeof size ? size[t] : 0;
}

/* The rest of framing (etl_frame_record) for a record whose peek succeeded: the reader peeks
 * every record once when it indexes a buffer, and frames from that peek on delivery. */
void etl_frame_peeked(const uint8_t *d, const etl_record_peek *pk, uint8_t session_pointer_size, etl_record *rec);

/* The same into a view whose head (everything before the extended items) the caller has
 * cleared with etl_record_clear_head and whose position and buffer fields it has set: the
 * reader's path, which writes those fields once instead of saving them around the clear. */
void etl_frame_cleared(const uint8_t *d, const etl_record_peek *pk, uint8_t session_pointer_size, etl_record *rec);

/* Zero the header part of a record view (everything before the extended items).  Written as
 * 16-byte stores the compiler keeps inline: a memset of this size becomes `rep stos`, whose
 * start-up cost alone was most of the time of framing a record. */
typedef unsigned char etl_zero16 __attribute__((vector_size(16), aligned(1), may_alias));
static inline void etl_record_clear_head(etl_record *rec)
{
    enum { HEAD = offsetof(etl_record, ext) };
    unsigned char *p = (unsigned char *)rec;
    const etl_zero16 z = {0};
#define ETL_Z16(i) \
    if ((i) * 16 + 16 <= HEAD) \
        *(etl_zero16 *)(p + (i) * 16) = z;
    ETL_Z16(0) ETL_Z16(1) ETL_Z16(2) ETL_Z16(3) ETL_Z16(4) ETL_Z16(5) ETL_Z16(6) ETL_Z16(7)
    ETL_Z16(8) ETL_Z16(9) ETL_Z16(10) ETL_Z16(11) ETL_Z16(12) ETL_Z16(13) ETL_Z16(14) ETL_Z16(15)
    ETL_Z16(16) ETL_Z16(17) ETL_Z16(18) ETL_Z16(19) ETL_Z16(20) ETL_Z16(21) ETL_Z16(22) ETL_Z16(23)
#undef ETL_Z16
    _Static_assert(HEAD <= 24 * 16, "etl_record_clear_head covers at most 384 bytes: add stores");
    for (size_t i = HEAD / 16 * 16; i < HEAD; i++)
        p[i] = 0;
}

#endif
