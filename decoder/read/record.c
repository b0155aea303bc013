/* record.c - record framing: every trace header kind to one normalised record view.
 *
 * A record starts with a marker dword.  Byte 3 carries flag bits: 0xC0 (TRACE_HEADER_FLAG |
 * TRACE_HEADER_EVENT_TRACE) for the typed headers, whose byte 2 is the header type; 0x9x for
 * MESSAGE (WPP).  System-family headers (SYSTEM, COMPACT, PERFINFO) keep their version in the
 * low word and the size in the next word; every other kind keeps its size in the low word.
 * Layouts: layout.h (etw-formats.md section 2, headers, and 3, EVENT_HEADER and extended items). */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "bytes.h"
#include "error.h"
#include "etl_format.h"
#include "layout.h"
#include "record.h"

/* The kinds etl_peek_record_quick peeks (record.h), as its switch had them. */
const etl_quick_kind etl_quick_kinds[256] = {
    [ETL_HT_SYSTEM32] = {SYSTEM_TRACE_HEADER_SIZE, ETL_TRACE_HEADER_OFF_TIMESTAMP, false},
    [ETL_HT_SYSTEM64] = {SYSTEM_TRACE_HEADER_SIZE, ETL_TRACE_HEADER_OFF_TIMESTAMP, false},
    [ETL_HT_COMPACT32] = {SYSTEM_TRACE_HEADER_COMPACT_SIZE, ETL_TRACE_HEADER_OFF_TIMESTAMP, false},
    [ETL_HT_COMPACT64] = {SYSTEM_TRACE_HEADER_COMPACT_SIZE, ETL_TRACE_HEADER_OFF_TIMESTAMP, false},
    [ETL_HT_PERFINFO32] = {PERFINFO_TRACE_HEADER_SIZE, PERFINFO_TRACE_HEADER_OFF_SYSTEM_TIME, false},
    [ETL_HT_PERFINFO64] = {PERFINFO_TRACE_HEADER_SIZE, PERFINFO_TRACE_HEADER_OFF_SYSTEM_TIME, false},
    [ETL_HT_EVENT_HEADER32] = {EVENT_HEADER_SIZE, ETL_TRACE_HEADER_OFF_TIMESTAMP, true},
    [ETL_HT_EVENT_HEADER64] = {EVENT_HEADER_SIZE, ETL_TRACE_HEADER_OFF_TIMESTAMP, true},
    [ETL_HT_FULL_HEADER32] = {EVENT_TRACE_HEADER_SIZE, ETL_TRACE_HEADER_OFF_TIMESTAMP, true},
    [ETL_HT_FULL_HEADER64] = {EVENT_TRACE_HEADER_SIZE, ETL_TRACE_HEADER_OFF_TIMESTAMP, true},
    [ETL_HT_INSTANCE32] = {EVENT_INSTANCE_GUID_HEADER_SIZE, ETL_TRACE_HEADER_OFF_TIMESTAMP, true},
    [ETL_HT_INSTANCE64] = {EVENT_INSTANCE_GUID_HEADER_SIZE, ETL_TRACE_HEADER_OFF_TIMESTAMP, true},
};

/* Kernel group (HookId high byte) to the classic class GUID that consumers show as provider
 * (etw-formats.md 9.2): entry i is group i. */
const etl_guid etl_kernel_group_guids[ETL_KERNEL_GROUPS] = {
    {0x68fdd900, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}}, /* 0x00 */
    {0x3d6fa8d4, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}, /* 0x01 */
    {0x3d6fa8d3, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}, /* 0x02 */
    {0x3d6fa8d0, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}, /* 0x03 */
    {0x90cbdc39, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}}, /* 0x04 */
    {0x3d6fa8d1, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}, /* 0x05 */
    {0x9a280ac0, 0xc8e0, 0x11d1, {0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2}}, /* 0x06 */
    {0x3282fc76, 0xfeed, 0x498e, {0x8a, 0xa7, 0xe7, 0x0f, 0x45, 0x9d, 0x43, 0x0e}}, /* 0x07 */
    {0xbf3a50c5, 0xa9c9, 0x4988, {0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80}}, /* 0x08 */
    {0xae53722e, 0xc863, 0x11d2, {0x86, 0x59, 0x00, 0xc0, 0x4f, 0xa3, 0x21, 0xa1}}, /* 0x09 */
    {0x13976d09, 0xa327, 0x438c, {0x95, 0x0b, 0x7f, 0x03, 0x19, 0x28, 0x15, 0xc7}}, /* 0x0A */
    {0x01853a65, 0x418f, 0x4f36, {0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35}}, /* 0x0B */
    {0x99134383, 0x5248, 0x43fc, {0x83, 0x4b, 0x52, 0x94, 0x54, 0xe7, 0x5d, 0xf3}}, /* 0x0C */
    {0x42695762, 0xea50, 0x497a, {0x90, 0x68, 0x5c, 0xbb, 0xb3, 0x5e, 0x0b, 0x95}}, /* 0x0D */
    {0x0268a8b6, 0x74fd, 0x4302, {0x9d, 0xd0, 0x6e, 0x8f, 0x17, 0x95, 0xc0, 0xcf}}, /* 0x0E */
    {0xce1dbfb4, 0x137e, 0x4da6, {0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc}}, /* 0x0F */
    {0x222962ab, 0x6180, 0x4b88, {0xa8, 0x25, 0x34, 0x6b, 0x75, 0xf2, 0xa2, 0x4a}}, /* 0x10 */
    {0x89497f50, 0xeffe, 0x4440, {0x8c, 0xf2, 0xce, 0x6b, 0x1c, 0xdc, 0xac, 0xa7}}, /* 0x11 */
    {0xe43445e0, 0x0903, 0x48c3, {0xb8, 0x78, 0xff, 0x0f, 0xcc, 0xeb, 0xdd, 0x04}}, /* 0x12 */
    {0xa9152f00, 0x3f58, 0x4bee, {0x92, 0xa1, 0x70, 0xc7, 0xd0, 0x79, 0xd5, 0xdd}}, /* 0x13 */
    {0x2cb15d1d, 0x5fc1, 0x11d2, {0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18}}, /* 0x14 */
    {0xb2d14872, 0x7c5b, 0x463d, {0x84, 0x19, 0xee, 0x9b, 0xf7, 0xd2, 0x3e, 0x04}}, /* 0x15 */
    {0x7687a439, 0xf752, 0x45b8, {0xb7, 0x41, 0x32, 0x1a, 0xec, 0x0f, 0x8d, 0xf9}}, /* 0x16 */
    {0x3ac66736, 0xcc59, 0x4cff, {0x81, 0x15, 0x8d, 0xf9, 0x5e, 0x39, 0x81, 0x6b}}, /* 0x17 */
    {0xdef2fe46, 0x7bd6, 0x4b80, {0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3}}, /* 0x18 */
    {0x9aec974b, 0x5b8e, 0x4118, {0x9b, 0x92, 0x31, 0x86, 0xd8, 0x00, 0x2c, 0xe5}}, /* 0x19 */
    {0x45d8cccd, 0x539f, 0x4b72, {0xa8, 0xb7, 0x5c, 0x68, 0x31, 0x42, 0x60, 0x9a}}, /* 0x1A */
    {0xd837ca92, 0x12b9, 0x44a5, {0xad, 0x6a, 0x3a, 0x65, 0xb3, 0x57, 0x8a, 0xa8}}, /* 0x1B */
    {0xc861d0e2, 0xa2c1, 0x4d36, {0x9f, 0x9c, 0x97, 0x0b, 0xab, 0x94, 0x3a, 0x12}}, /* 0x1C */
    {0x7f2a405c, 0x69b5, 0x4bf9, {0xa1, 0xf5, 0x30, 0xe8, 0xf1, 0xaf, 0xab, 0x5e}}, /* 0x1D */
    {0x2ce9a149, 0xeffe, 0x42f0, {0xa6, 0x35, 0xa1, 0xd3, 0x9e, 0x26, 0xc8, 0xf2}}, /* 0x1E */
};

bool etl_kernel_group_guid(unsigned group, etl_guid *out)
{
    if (group >= ETL_KERNEL_GROUPS)
        return false;
    *out = etl_kernel_group_guids[group];
    return true;
}

const char *etl_header_type_name(unsigned t)
{
    switch (t) {
    case ETL_HT_SYSTEM32: return "SYSTEM32";
    case ETL_HT_SYSTEM64: return "SYSTEM64";
    case ETL_HT_COMPACT32: return "COMPACT32";
    case ETL_HT_COMPACT64: return "COMPACT64";
    case ETL_HT_FULL_HEADER32: return "FULL_HEADER32";
    case ETL_HT_INSTANCE32: return "INSTANCE32";
    case ETL_HT_TIMED: return "TIMED";
    case ETL_HT_ERROR: return "ERROR";
    case ETL_HT_WNODE: return "WNODE_HEADER";
    case ETL_HT_MESSAGE: return "MESSAGE";
    case ETL_HT_PERFINFO32: return "PERFINFO32";
    case ETL_HT_PERFINFO64: return "PERFINFO64";
    case ETL_HT_EVENT_HEADER32: return "EVENT_HEADER32";
    case ETL_HT_EVENT_HEADER64: return "EVENT_HEADER64";
    case ETL_HT_FULL_HEADER64: return "FULL_HEADER64";
    case ETL_HT_INSTANCE64: return "INSTANCE64";
    default: return "UNKNOWN";
    }
}

const char *etl_ext_type_name(unsigned t)
{
    static const char *const names[] = {
        NULL, "RELATED_ACTIVITYID", "SID", "TS_ID", "INSTANCE_INFO", "STACK_TRACE32",
        "STACK_TRACE64", "PEBS_INDEX", "PMC_COUNTERS", "PSM_KEY", "EVENT_KEY", "EVENT_SCHEMA_TL",
        "PROV_TRAITS", "PROCESS_START_KEY", "CONTROL_GUID", "QPC_DELTA", "CONTAINER_ID",
        "STACK_KEY32", "STACK_KEY64"};
    return t < sizeof names / sizeof names[0] ? names[t] : NULL;
}

/* Minimum record size (the fixed trace header) of a header kind. */
static uint32_t header_min_size(unsigned t)
{
    switch (t) {
    case ETL_HT_SYSTEM32: case ETL_HT_SYSTEM64: return SYSTEM_TRACE_HEADER_SIZE;
    case ETL_HT_COMPACT32: case ETL_HT_COMPACT64: return SYSTEM_TRACE_HEADER_COMPACT_SIZE;
    case ETL_HT_PERFINFO32: case ETL_HT_PERFINFO64: return PERFINFO_TRACE_HEADER_SIZE;
    case ETL_HT_FULL_HEADER32: case ETL_HT_FULL_HEADER64: return EVENT_TRACE_HEADER_SIZE;
    case ETL_HT_INSTANCE32: case ETL_HT_INSTANCE64: return EVENT_INSTANCE_GUID_HEADER_SIZE;
    case ETL_HT_EVENT_HEADER32: case ETL_HT_EVENT_HEADER64: return EVENT_HEADER_SIZE;
    case ETL_HT_MESSAGE: return MESSAGE_TRACE_HEADER_SIZE;
    default: return ETL_MARKER_SIZE; /* ERROR, TIMED, WNODE and unknown forms: the marker alone */
    }
}

static bool is_system_family(unsigned t)
{
    return t == ETL_HT_SYSTEM32 || t == ETL_HT_SYSTEM64 || t == ETL_HT_COMPACT32 ||
           t == ETL_HT_COMPACT64 || t == ETL_HT_PERFINFO32 || t == ETL_HT_PERFINFO64;
}

static bool is_known_typed(unsigned t)
{
    return (t >= ETL_HT_SYSTEM32 && t <= ETL_HT_COMPACT64) || (t >= ETL_HT_FULL_HEADER32 && t <= ETL_HT_INSTANCE64);
}

/* Byte offset of the optional timestamp in a MESSAGE record, or 0 when it has none. */
static uint32_t message_timestamp_offset(uint16_t opt)
{
    uint32_t off = MESSAGE_TRACE_HEADER_SIZE;
    if (opt & TRACE_MESSAGE_SEQUENCE)
        off += TRACE_MESSAGE_SEQUENCE_SIZE;
    if (opt & TRACE_MESSAGE_COMPONENTID)
        off += TRACE_MESSAGE_COMPONENTID_SIZE; /* component id wins over the GUID when both flags are set */
    else if (opt & TRACE_MESSAGE_GUID)
        off += TRACE_MESSAGE_GUID_SIZE;
    return (opt & TRACE_MESSAGE_TIMESTAMP) ? off : 0;
}

etl_status etl_peek_record(const uint8_t *d, size_t avail, etl_record_peek *out, etl_error *err)
{
    if (avail < ETL_MARKER_SIZE)
        return ETL_END;
    uint32_t m = etl_ld32(d);
    if (m == TRACE_MARKER_END)
        return ETL_END;
    unsigned t = etl_marker_header_type(m);
    out->raw_header_type = (uint8_t)t;
    out->has_timestamp = false;
    out->timestamp_raw = 0;
    if (etl_marker_is_typed(m)) {
        out->header_type = is_known_typed(t) ? (uint8_t)t : ETL_HT_UNKNOWN;
        if (is_system_family(t)) {
            if (avail < SYSTEM_TRACE_HEADER_OFF_HOOK_ID + 2u) /* the size and hook id words */
                return etl_fail(err, ETL_ERR_TRUNCATED, 0, "%s header cut after %zu bytes", etl_header_type_name(t), avail);
            out->size = etl_ld16(d + SYSTEM_TRACE_HEADER_OFF_SIZE);
        } else {
            out->size = etl_marker_size(m);
        }
    } else if (etl_marker_is_message(m)) {
        out->header_type = ETL_HT_MESSAGE;
        out->raw_header_type = ETL_HT_MESSAGE;
        out->size = etl_marker_size(m);
    } else if (etl_marker_flags(m) & TRACE_HEADER_FLAG) {
        /* A trace header form nobody documents (e.g. 0xB0 ULONG32_TIME): framed by the size in
         * its low word and passed on raw. */
        out->header_type = ETL_HT_UNKNOWN;
        out->size = etl_marker_size(m);
    } else {
        return etl_fail(err, ETL_ERR_CORRUPT, 0, "not a trace header (marker 0x%08x)", m);
    }
    uint32_t min = header_min_size(out->header_type);
    if (out->header_type == ETL_HT_UNKNOWN || out->header_type == ETL_HT_ERROR ||
        out->header_type == ETL_HT_TIMED || out->header_type == ETL_HT_WNODE)
        min = 8; /* the marker and one more dword: a record that can be skipped by its size */
    if (out->size < min)
        return etl_fail(err, ETL_ERR_CORRUPT, 0, "%s record size %u is below its minimum %u (marker 0x%08x)",
                        etl_header_type_name(out->header_type), out->size, min, m);
    if (out->size > avail)
        return etl_fail(err, ETL_ERR_TRUNCATED, 0, "%s record of %u bytes runs %zu bytes past the buffer's valid data",
                        etl_header_type_name(out->header_type), out->size, out->size - avail);
    switch (out->header_type) {
    case ETL_HT_PERFINFO32: case ETL_HT_PERFINFO64:
        out->timestamp_raw = (int64_t)etl_ld64(d + PERFINFO_TRACE_HEADER_OFF_SYSTEM_TIME);
        out->has_timestamp = true;
        break;
    case ETL_HT_MESSAGE: {
        uint32_t to = message_timestamp_offset(etl_ld16(d + MESSAGE_TRACE_HEADER_OFF_OPTION_FLAGS));
        if (to && etl_span_ok(out->size, to, TRACE_MESSAGE_TIMESTAMP_SIZE)) {
            out->timestamp_raw = (int64_t)etl_ld64(d + to);
            out->has_timestamp = true;
        }
        break;
    }
    case ETL_HT_UNKNOWN: case ETL_HT_TIMED: case ETL_HT_WNODE:
        break;
    case ETL_HT_ERROR: /* EVENT_HEADER-shaped */
        if (out->size >= EVENT_HEADER_OFF_TIMESTAMP + 8u) {
            out->timestamp_raw = (int64_t)etl_ld64(d + EVENT_HEADER_OFF_TIMESTAMP);
            out->has_timestamp = true;
        }
        break;
    default: /* SYSTEM, COMPACT, FULL, INSTANCE, EVENT_HEADER: all at the same offset */
        out->timestamp_raw = (int64_t)etl_ld64(d + ETL_TRACE_HEADER_OFF_TIMESTAMP);
        out->has_timestamp = true;
        break;
    }
    return ETL_OK;
}

/* What a framing problem was: the view keeps its index in problem_texts (one byte, where a
 * pointer took eight of every view's head). */
enum problem_text {
    PROBLEM_STATUS = 0, /* the status's own name */
    PROBLEM_EXT_HEADER_PAST_END,
    PROBLEM_EXT_SIZES,
    PROBLEM_EXT_PAST_END,
    PROBLEM_EXT_TOO_MANY,
    PROBLEM_PEBS_PAST_END,
    PROBLEM_PMC_PAST_END,
    PROBLEM_MESSAGE_ITEMS_PAST_END,
    PROBLEM_ERROR_TOO_SHORT,
    PROBLEM_TEXTS
};
static const char *const problem_texts[PROBLEM_TEXTS] = {
    [PROBLEM_STATUS] = NULL,
    [PROBLEM_EXT_HEADER_PAST_END] = "extended data item header runs past the record end",
    [PROBLEM_EXT_SIZES] = "extended data item with impossible sizes",
    [PROBLEM_EXT_PAST_END] = "extended data item runs past the record end",
    [PROBLEM_EXT_TOO_MANY] = "more extended data items than the decoder keeps (ETL_MAX_EXT_ITEMS)",
    [PROBLEM_PEBS_PAST_END] = "PEBS index runs past the record end",
    [PROBLEM_PMC_PAST_END] = "PMC counters run past the record end",
    [PROBLEM_MESSAGE_ITEMS_PAST_END] = "MESSAGE optional items run past the record end",
    [PROBLEM_ERROR_TOO_SHORT] = "ERROR record shorter than an EVENT_HEADER",
};
_Static_assert(ETL_ERR_NOT_FOUND >= INT8_MIN && ETL_END <= INT8_MAX, "etl_status fits internal.problem");

static void set_problem(etl_record *rec, etl_status code, uint32_t offset, enum problem_text text)
{
    if (rec->internal.problem == ETL_OK) {
        rec->internal.problem = (int8_t)code;
        rec->internal.problem_offset = offset;
        rec->internal.problem_text = (uint8_t)text;
    }
}

bool etl_record_problem(const etl_record *r, etl_error *out, uint32_t *in_record)
{
    if (!r || r->internal.problem == ETL_OK)
        return false;
    const struct etl_record_internal *p = &r->internal;
    etl_status code = (etl_status)p->problem;
    const char *text = p->problem_text && p->problem_text < PROBLEM_TEXTS ? problem_texts[p->problem_text]
                                                                         : etl_status_name(code);
    if (in_record)
        *in_record = p->problem_offset;
    if (!out)
        return true;
    if (r->buffer_flags & ETL_BF_COMPRESSED) /* no file offset of its own: the buffer's, and where in it */
        etl_fail(out, code, r->buffer_offset, "%s (byte 0x%" PRIx64 " of the decompressed buffer)", text,
                 (uint64_t)r->record_offset + p->problem_offset);
    else
        etl_fail(out, code, r->buffer_offset + r->record_offset + p->problem_offset, "%s", text);
    return true;
}

/* EVENT_HEADER (and ERROR records long enough to carry one): fields and extended items. */
static void frame_event_header(const uint8_t *d, etl_record *rec)
{
    rec->flags_stored = etl_ld16(d + EVENT_HEADER_OFF_FLAGS);
    rec->event_property = etl_ld16(d + EVENT_HEADER_OFF_EVENT_PROPERTY);
    etl_record_set_ids(rec, etl_ld32(d + EVENT_HEADER_OFF_PROCESS_ID), etl_ld32(d + EVENT_HEADER_OFF_THREAD_ID));
    etl_read_guid(d + EVENT_HEADER_OFF_PROVIDER_ID, &rec->provider);
    rec->has_provider = true;
    rec->event_id = etl_ld16(d + EVENT_HEADER_OFF_ID);
    rec->version = d[EVENT_HEADER_OFF_VERSION];
    rec->channel = d[EVENT_HEADER_OFF_CHANNEL];
    rec->level = d[EVENT_HEADER_OFF_LEVEL];
    rec->opcode = d[EVENT_HEADER_OFF_OPCODE];
    rec->task = etl_ld16(d + EVENT_HEADER_OFF_TASK);
    rec->keyword = etl_ld64(d + EVENT_HEADER_OFF_KEYWORD);
    if (rec->flags_stored & ETL_EHF_NO_CPUTIME) {
        rec->processor_time = etl_ld64(d + EVENT_HEADER_OFF_KERNEL_TIME);
    } else {
        rec->kernel_time = etl_ld32(d + EVENT_HEADER_OFF_KERNEL_TIME);
        rec->user_time = etl_ld32(d + EVENT_HEADER_OFF_USER_TIME);
        rec->has_cpu_times = true;
    }
    etl_read_guid(d + EVENT_HEADER_OFF_ACTIVITY_ID, &rec->activity_id);
    rec->has_activity_id = true;
    rec->header_size = EVENT_HEADER_SIZE;

    uint32_t p = EVENT_HEADER_SIZE;
    if (rec->flags_stored & ETL_EHF_EXTENDED_INFO) {
        /* Every item is at least its 8-byte header, so the walk ends within size/8 steps. */
        for (;;) {
            if (!etl_span_ok(rec->size, p, EVENT_EXTENDED_ITEM_HEADER_SIZE)) {
                set_problem(rec, ETL_ERR_TRUNCATED, p, PROBLEM_EXT_HEADER_PAST_END);
                break;
            }
            const uint8_t *item = d + p;
            uint16_t isize = etl_ld16(item + EVENT_EXTENDED_ITEM_OFF_TOTAL_SIZE),
                     itype = etl_ld16(item + EVENT_EXTENDED_ITEM_OFF_TYPE),
                     link = etl_ld16(item + EVENT_EXTENDED_ITEM_OFF_LINKAGE),
                     dsize = etl_ld16(item + EVENT_EXTENDED_ITEM_OFF_DATA_SIZE);
            if (isize < EVENT_EXTENDED_ITEM_HEADER_SIZE || dsize > isize - EVENT_EXTENDED_ITEM_HEADER_SIZE) {
                set_problem(rec, ETL_ERR_CORRUPT, p, PROBLEM_EXT_SIZES);
                break;
            }
            if (!etl_span_ok(rec->size, p, isize)) {
                set_problem(rec, ETL_ERR_TRUNCATED, p, PROBLEM_EXT_PAST_END);
                break;
            }
            if (rec->ext_count < ETL_MAX_EXT_ITEMS) {
                etl_ext_item *it = &rec->ext[rec->ext_count++];
                it->type = itype;
                it->data_size = dsize;
                it->offset = p;
                it->data = item + EVENT_EXTENDED_ITEM_HEADER_SIZE;
            } else {
                set_problem(rec, ETL_ERR_LIMIT, p, PROBLEM_EXT_TOO_MANY);
            }
            p += isize;
            if (!(link & EVENT_EXTENDED_ITEM_LINKAGE_MORE))
                break;
        }
    }
    rec->payload_offset = p;
}

/* System family: SYSTEM, COMPACT, PERFINFO, then inserted PEBS/PMC items. */
static void frame_system(const uint8_t *d, etl_record *rec)
{
    uint16_t ver = etl_ld16(d + SYSTEM_TRACE_HEADER_OFF_VERSION);
    uint32_t hdr = etl_frame_system_head(d, rec->header_type, ver, rec);
    rec->header_size = hdr;
    /* A PEBS index then PMC counters (flags in the version word) sit between the header and
     * the event data; their order when both are present is undocumented. */
    uint32_t p = hdr;
    if (ver & TRACE_HEADER_PEBS_INDEX_FLAG) {
        if (!etl_span_ok(rec->size, p, TRACE_HEADER_PEBS_INDEX_SIZE)) {
            set_problem(rec, ETL_ERR_TRUNCATED, p, PROBLEM_PEBS_PAST_END);
            rec->payload_offset = rec->size;
            return;
        }
        rec->has_pebs = true;
        rec->pebs_index = etl_ld64(d + p);
        p += TRACE_HEADER_PEBS_INDEX_SIZE;
    }
    unsigned pmc = (ver & TRACE_HEADER_PMC_COUNTERS_MASK) >> TRACE_HEADER_PMC_COUNTERS_SHIFT;
    if (pmc) {
        if (!etl_span_ok(rec->size, p, TRACE_HEADER_PMC_COUNTER_SIZE * pmc)) {
            set_problem(rec, ETL_ERR_TRUNCATED, p, PROBLEM_PMC_PAST_END);
            rec->payload_offset = p;
            return;
        }
        rec->pmc_count = (uint8_t)pmc;
        rec->pmc = d + p;
        p += TRACE_HEADER_PMC_COUNTER_SIZE * pmc;
    }
    rec->payload_offset = p;
}

/* FULL_HEADER (EVENT_TRACE_HEADER) and INSTANCE (the same, then instance ids and parent GUID). */
static void frame_classic(const uint8_t *d, etl_record *rec)
{
    rec->opcode = d[EVENT_TRACE_HEADER_OFF_TYPE];
    rec->level = d[EVENT_TRACE_HEADER_OFF_LEVEL];
    rec->version = (uint8_t)etl_ld16(d + EVENT_TRACE_HEADER_OFF_VERSION);
    etl_record_set_ids(rec, etl_ld32(d + EVENT_TRACE_HEADER_OFF_PROCESS_ID),
                       etl_ld32(d + EVENT_TRACE_HEADER_OFF_THREAD_ID));
    etl_read_guid(d + EVENT_TRACE_HEADER_OFF_GUID, &rec->provider);
    rec->has_provider = true;
    rec->kernel_time = etl_ld32(d + EVENT_TRACE_HEADER_OFF_KERNEL_TIME);
    rec->user_time = etl_ld32(d + EVENT_TRACE_HEADER_OFF_USER_TIME);
    rec->has_cpu_times = true;
    rec->header_size = EVENT_TRACE_HEADER_SIZE;
    if (rec->header_type == ETL_HT_INSTANCE32 || rec->header_type == ETL_HT_INSTANCE64) {
        rec->instance_id = etl_ld32(d + EVENT_INSTANCE_GUID_HEADER_OFF_INSTANCE_ID);
        rec->parent_instance_id = etl_ld32(d + EVENT_INSTANCE_GUID_HEADER_OFF_PARENT_INSTANCE_ID);
        etl_read_guid(d + EVENT_INSTANCE_GUID_HEADER_OFF_PARENT_GUID, &rec->parent_guid);
        rec->header_size = EVENT_INSTANCE_GUID_HEADER_SIZE;
    }
    rec->payload_offset = rec->header_size;
}

/* The MESSAGE optional item of `n` bytes at *p (and *p moved past it), or NULL when the record
 * ends first (*p unmoved). */
static const uint8_t *message_item(const uint8_t *d, const etl_record *rec, uint32_t *p, uint32_t n)
{
    if (!etl_span_ok(rec->size, *p, n))
        return NULL;
    const uint8_t *item = d + *p;
    *p += n;
    return item;
}

/* MESSAGE (WPP): optional items in a fixed order, each present only when its flag is set. */
static void frame_message(const uint8_t *d, etl_record *rec)
{
    uint16_t opt = etl_ld16(d + MESSAGE_TRACE_HEADER_OFF_OPTION_FLAGS);
    rec->message_number = etl_ld16(d + MESSAGE_TRACE_HEADER_OFF_MESSAGE_NUMBER);
    rec->message_flags = opt;
    rec->event_id = rec->message_number;
    uint32_t p = MESSAGE_TRACE_HEADER_SIZE;
    const uint8_t *item;
    if (opt & TRACE_MESSAGE_SEQUENCE) {
        if (!(item = message_item(d, rec, &p, TRACE_MESSAGE_SEQUENCE_SIZE)))
            goto cut;
        rec->sequence = etl_ld32(item);
        rec->has_sequence = true;
    }
    if (opt & TRACE_MESSAGE_COMPONENTID) {
        if (!(item = message_item(d, rec, &p, TRACE_MESSAGE_COMPONENTID_SIZE)))
            goto cut;
        rec->component_id = etl_ld32(item);
        rec->has_component_id = true;
    } else if (opt & TRACE_MESSAGE_GUID) {
        if (!(item = message_item(d, rec, &p, TRACE_MESSAGE_GUID_SIZE)))
            goto cut;
        etl_read_guid(item, &rec->provider);
        rec->has_provider = true;
    }
    /* the timestamp, already taken by the peek */
    if ((opt & TRACE_MESSAGE_TIMESTAMP) && !message_item(d, rec, &p, TRACE_MESSAGE_TIMESTAMP_SIZE))
        goto cut;
    if (opt & TRACE_MESSAGE_SYSTEMINFO) {
        if (!(item = message_item(d, rec, &p, TRACE_MESSAGE_SYSTEMINFO_SIZE)))
            goto cut;
        etl_record_set_ids(rec, etl_ld32(item + 4), etl_ld32(item));
    }
    rec->header_size = p;
    rec->payload_offset = p;
    return;
cut:
    set_problem(rec, ETL_ERR_TRUNCATED, p, PROBLEM_MESSAGE_ITEMS_PAST_END);
    rec->header_size = p;
    rec->payload_offset = rec->size;
}

etl_status etl_frame_record(const uint8_t *d, size_t avail, uint8_t session_pointer_size,
                            etl_record *rec, uint32_t *stride, etl_error *err)
{
    etl_record_peek pk;
    etl_status st = etl_peek_record(d, avail, &pk, err);
    if (st != ETL_OK)
        return st;
    etl_frame_peeked(d, &pk, session_pointer_size, rec);
    if (stride)
        *stride = etl_align8(rec->size);
    return ETL_OK;
}

void etl_frame_peeked(const uint8_t *d, const etl_record_peek *peek, uint8_t session_pointer_size, etl_record *rec)
{
    /* Reset the header part of the view; position and buffer fields belong to the caller. */
    uint64_t position = rec->position, buffer_offset = rec->buffer_offset;
    uint32_t record_offset = rec->record_offset;
    uint16_t buffer_flags = rec->buffer_flags, cpu = rec->cpu, logger_id = rec->logger_id;
    uint8_t buffer_type = rec->buffer_type;
    etl_record_clear_head(rec);
    rec->position = position;
    rec->buffer_offset = buffer_offset;
    rec->record_offset = record_offset;
    rec->buffer_flags = buffer_flags;
    rec->buffer_type = buffer_type;
    rec->cpu = cpu;
    rec->logger_id = logger_id;
    etl_frame_cleared(d, peek, session_pointer_size, rec);
}

void etl_frame_cleared(const uint8_t *d, const etl_record_peek *peek, uint8_t session_pointer_size, etl_record *rec)
{
    const etl_record_peek pk = *peek;
    rec->bytes = d;
    rec->size = pk.size;
    rec->header_type = pk.header_type;
    rec->raw_header_type = pk.raw_header_type;
    rec->timestamp_raw = pk.timestamp_raw;
    etl_record_set_ids(rec, ETL_NO_ID, ETL_NO_ID); /* the rest of the head is zero (etl_record_clear_head) */

    unsigned t = pk.header_type;
    uint8_t ps = etl_header_pointer_size(t);
    rec->pointer_size = ps ? ps : session_pointer_size == 4 ? 4 : 8;
    uint16_t bitness = rec->pointer_size == 4 ? ETL_EHF_32_BIT_HEADER : ETL_EHF_64_BIT_HEADER;

    switch (t) {
    case ETL_HT_EVENT_HEADER32: case ETL_HT_EVENT_HEADER64:
        frame_event_header(d, rec);
        rec->flags = (uint16_t)(rec->flags_stored | bitness);
        break;
    case ETL_HT_ERROR:
        if (rec->size >= EVENT_HEADER_SIZE) {
            frame_event_header(d, rec);
            rec->flags = (uint16_t)(rec->flags_stored | bitness);
        } else {
            rec->header_size = rec->payload_offset = ETL_MARKER_SIZE;
            set_problem(rec, ETL_ERR_TRUNCATED, 0, PROBLEM_ERROR_TOO_SHORT);
        }
        break;
    case ETL_HT_SYSTEM32: case ETL_HT_SYSTEM64: case ETL_HT_COMPACT32: case ETL_HT_COMPACT64:
    case ETL_HT_PERFINFO32: case ETL_HT_PERFINFO64:
        frame_system(d, rec);
        rec->flags = (uint16_t)(ETL_EHF_CLASSIC_HEADER | bitness);
        break;
    case ETL_HT_FULL_HEADER32: case ETL_HT_FULL_HEADER64:
    case ETL_HT_INSTANCE32: case ETL_HT_INSTANCE64:
        frame_classic(d, rec);
        rec->flags = (uint16_t)(ETL_EHF_CLASSIC_HEADER | bitness);
        break;
    case ETL_HT_MESSAGE:
        frame_message(d, rec);
        /* the provider's bitness, when the record says it, sizes its pointer arguments (a
         * 32-bit driver's messages in a 64-bit session) */
        if (rec->message_flags & TRACE_MESSAGE_POINTER32)
            rec->pointer_size = 4;
        else if (rec->message_flags & TRACE_MESSAGE_POINTER64)
            rec->pointer_size = 8;
        bitness = rec->pointer_size == 4 ? ETL_EHF_32_BIT_HEADER : ETL_EHF_64_BIT_HEADER;
        rec->flags = (uint16_t)(ETL_EHF_TRACE_MESSAGE | bitness);
        break;
    default:
        /* TIMED, WNODE and unknown forms: the marker is all we understand. */
        rec->header_size = rec->payload_offset = ETL_MARKER_SIZE;
        rec->flags = bitness;
        break;
    }
    if (rec->payload_offset > rec->size)
        rec->payload_offset = rec->size;
    rec->payload_size = rec->size - rec->payload_offset;
    /* has_timestamp stays false: the reader converts timestamp_raw with the trace's clock */
}

/* ---- extended item helpers ------------------------------------------------------------- */

bool etl_ext_guid(const etl_ext_item *it, etl_guid *out)
{
    if (it->data_size < 16)
        return false;
    etl_read_guid(it->data, out);
    return true;
}

bool etl_ext_u32(const etl_ext_item *it, uint32_t *out)
{
    if (it->data_size < 4)
        return false;
    *out = etl_ld32(it->data);
    return true;
}

bool etl_ext_u64(const etl_ext_item *it, uint64_t *out)
{
    if (it->data_size < 8)
        return false;
    *out = etl_ld64(it->data);
    return true;
}

bool etl_ext_stack(const etl_ext_item *it, uint64_t *match_id, uint32_t *count)
{
    unsigned w = it->type == ETL_EXT_STACK_TRACE32 ? 4 : 8;
    if (it->data_size < EVENT_EXTENDED_ITEM_STACK_OFF_FRAMES ||
        (it->type != ETL_EXT_STACK_TRACE32 && it->type != ETL_EXT_STACK_TRACE64))
        return false;
    *match_id = etl_ld64(it->data);
    *count = (uint32_t)((it->data_size - EVENT_EXTENDED_ITEM_STACK_OFF_FRAMES) / w);
    return true;
}

uint64_t etl_ext_stack_address(const etl_ext_item *it, uint32_t index)
{
    unsigned w = it->type == ETL_EXT_STACK_TRACE32 ? 4 : 8;
    size_t off = EVENT_EXTENDED_ITEM_STACK_OFF_FRAMES + (size_t)index * w;
    if (!etl_span_ok(it->data_size, off, w))
        return 0;
    return w == 4 ? etl_ld32(it->data + off) : etl_ld64(it->data + off);
}
