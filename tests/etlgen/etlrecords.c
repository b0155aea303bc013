/*
 * etlrecords.c - encoders for every trace header kind (format doc §2) and for the
 * extended data items of EVENT_HEADER records (§3.3).
 *
 * Each encoder assembles one record in the writer's scratch area with bounds-checked
 * appends, patches the Size field, hands the record to etlw__place() and then counts
 * it, so the statistics describe exactly what reached a buffer.
 */
#include "etlwriter_internal.h"

#include <string.h>

#define MARKER_FLAGS 0xC0u     /* TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE */
#define MESSAGE_FLAGS 0x90u    /* TRACE_HEADER_FLAG | TRACE_MESSAGE */
#define SYSTEM_VERSION_PEBS 0x8000u
#define SYSTEM_VERSION_PMC_SHIFT 8
#define EVENT_HEADER_SIZE 0x50u

/* ---- names and tables ------------------------------------------------------------------ */

const char *etlw_header_type_name(unsigned type)
{
    static const char *const names[0x16] = {
        [0x01] = "SYSTEM32", [0x02] = "SYSTEM64", [0x03] = "COMPACT32", [0x04] = "COMPACT64",
        [0x0A] = "FULL_HEADER32", [0x0B] = "INSTANCE32", [0x0C] = "TIMED", [0x0D] = "ERROR",
        [0x0E] = "WNODE_HEADER", [0x0F] = "MESSAGE", [0x10] = "PERFINFO32",
        [0x11] = "PERFINFO64", [0x12] = "EVENT_HEADER32", [0x13] = "EVENT_HEADER64",
        [0x14] = "FULL_HEADER64", [0x15] = "INSTANCE64",
    };
    return type < 0x16 ? names[type] : NULL;
}

const char *etlw_ext_type_name(unsigned type)
{
    static const char *const names[19] = {
        NULL, "RELATED_ACTIVITYID", "SID", "TS_ID", "INSTANCE_INFO", "STACK_TRACE32",
        "STACK_TRACE64", "PEBS_INDEX", "PMC_COUNTERS", "PSM_KEY", "EVENT_KEY",
        "EVENT_SCHEMA_TL", "PROV_TRAITS", "PROCESS_START_KEY", "CONTROL_GUID", "QPC_DELTA",
        "CONTAINER_ID", "STACK_KEY32", "STACK_KEY64",
    };
    return type < 19 ? names[type] : NULL;
}

int etlw_kernel_group_guid(unsigned group, etlw_guid *out)
{
    /* Kernel event groups (HookId high byte) -> MOF class GUID, format doc §9.2. */
    static const etlw_guid groups[] = {
    { 0x68fdd900, 0x4a3e, 0x11d1, { 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } }, /* 0x00 HEADER (EventTrace) */
    { 0x3d6fa8d4, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }, /* 0x01 IO (DiskIo) */
    { 0x3d6fa8d3, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }, /* 0x02 MEMORY (PageFault) */
    { 0x3d6fa8d0, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }, /* 0x03 PROCESS */
    { 0x90cbdc39, 0x4a3e, 0x11d1, { 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } }, /* 0x04 FILE (FileIo) */
    { 0x3d6fa8d1, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }, /* 0x05 THREAD */
    { 0x9a280ac0, 0xc8e0, 0x11d1, { 0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2 } }, /* 0x06 TCPIP */
    { 0x3282fc76, 0xfeed, 0x498e, { 0x8a, 0xa7, 0xe7, 0x0f, 0x45, 0x9d, 0x43, 0x0e } }, /* 0x07 JOB */
    { 0xbf3a50c5, 0xa9c9, 0x4988, { 0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80 } }, /* 0x08 UDPIP */
    { 0xae53722e, 0xc863, 0x11d2, { 0x86, 0x59, 0x00, 0xc0, 0x4f, 0xa3, 0x21, 0xa1 } }, /* 0x09 REGISTRY */
    { 0x13976d09, 0xa327, 0x438c, { 0x95, 0x0b, 0x7f, 0x03, 0x19, 0x28, 0x15, 0xc7 } }, /* 0x0A DBGPRINT */
    { 0x01853a65, 0x418f, 0x4f36, { 0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35 } }, /* 0x0B CONFIG (EventTraceConfig) */
    { 0x99134383, 0x5248, 0x43fc, { 0x83, 0x4b, 0x52, 0x94, 0x54, 0xe7, 0x5d, 0xf3 } }, /* 0x0C SPARE1 */
    { 0x42695762, 0xea50, 0x497a, { 0x90, 0x68, 0x5c, 0xbb, 0xb3, 0x5e, 0x0b, 0x95 } }, /* 0x0D WNF */
    { 0x0268a8b6, 0x74fd, 0x4302, { 0x9d, 0xd0, 0x6e, 0x8f, 0x17, 0x95, 0xc0, 0xcf } }, /* 0x0E POOL */
    { 0xce1dbfb4, 0x137e, 0x4da6, { 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } }, /* 0x0F PERFINFO */
    { 0x222962ab, 0x6180, 0x4b88, { 0xa8, 0x25, 0x34, 0x6b, 0x75, 0xf2, 0xa2, 0x4a } }, /* 0x10 HEAP */
    { 0x89497f50, 0xeffe, 0x4440, { 0x8c, 0xf2, 0xce, 0x6b, 0x1c, 0xdc, 0xac, 0xa7 } }, /* 0x11 OBJECT */
    { 0xe43445e0, 0x0903, 0x48c3, { 0xb8, 0x78, 0xff, 0x0f, 0xcc, 0xeb, 0xdd, 0x04 } }, /* 0x12 POWER */
    { 0xa9152f00, 0x3f58, 0x4bee, { 0x92, 0xa1, 0x70, 0xc7, 0xd0, 0x79, 0xd5, 0xdd } }, /* 0x13 MODBOUND */
    { 0x2cb15d1d, 0x5fc1, 0x11d2, { 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 } }, /* 0x14 IMAGE (ImageLoad) */
    { 0xb2d14872, 0x7c5b, 0x463d, { 0x84, 0x19, 0xee, 0x9b, 0xf7, 0xd2, 0x3e, 0x04 } }, /* 0x15 DPC */
    { 0x7687a439, 0xf752, 0x45b8, { 0xb7, 0x41, 0x32, 0x1a, 0xec, 0x0f, 0x8d, 0xf9 } }, /* 0x16 CC */
    { 0x3ac66736, 0xcc59, 0x4cff, { 0x81, 0x15, 0x8d, 0xf5, 0x0e, 0x39, 0x81, 0x6b } }, /* 0x17 CRITSEC */
    { 0xdef2fe46, 0x7bd6, 0x4b80, { 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3 } }, /* 0x18 STACKWALK */
    { 0x9aec974b, 0x5b8e, 0x4118, { 0x9b, 0x92, 0x31, 0x86, 0xd8, 0x00, 0x2c, 0xe5 } }, /* 0x19 UMS */
    { 0x45d8cccd, 0x539f, 0x4b72, { 0xa8, 0xb7, 0x5c, 0x68, 0x31, 0x42, 0x60, 0x9a } }, /* 0x1A ALPC */
    { 0xd837ca92, 0x12b9, 0x44a5, { 0xad, 0x6a, 0x3a, 0x65, 0xb3, 0x57, 0x8a, 0xa8 } }, /* 0x1B SPLITIO */
    { 0xc861d0e2, 0xa2c1, 0x4d36, { 0x9f, 0x9c, 0x97, 0x0b, 0xab, 0x94, 0x3a, 0x12 } }, /* 0x1C THREAD_POOL */
    { 0x7f2a405c, 0x69b5, 0x4bf9, { 0xa1, 0xf5, 0x30, 0xe8, 0xf1, 0xaf, 0xab, 0x5e } }, /* 0x1D HYPERVISOR */
    { 0x2ce9a149, 0xeffe, 0x42f0, { 0xa6, 0x35, 0xa1, 0xd3, 0x9e, 0x26, 0xc8, 0xf2 } }, /* 0x1E HYPERVISORX */
    };
    if (group >= sizeof groups / sizeof groups[0])
        return -1;
    *out = groups[group];
    return 0;
}

/* ---- shared steps -------------------------------------------------------------------------- */

/* The record under construction lives in the writer's scratch area. */
static void begin(etlw_writer *w, etlw_bytes *r)
{
    etlw_bytes_init(r, w->record, ETLW_MAX_RECORD);
}

/* A record that could not be built is as lost as one that does not fit a buffer. */
static int too_big(etlw_writer *w)
{
    w->stats.dropped++;
    return ETLW_E_TOO_BIG;
}

/* Patch Size at `size_off` and place the record. */
static int finish(etlw_writer *w, unsigned cpu, etlw_bytes *r, size_t size_off, int has_ts,
                  int64_t ts)
{
    if (r->overflow || r->len > ETLW_MAX_RECORD)
        return too_big(w);
    etlw_patch_u16(r, size_off, (uint16_t)r->len);
    return etlw__place(w, cpu, r->data, r->len, has_ts, ts);
}

static int payload_ok(const void *payload, size_t len)
{
    return payload != NULL || len == 0;
}

/* ---- SYSTEM / COMPACT / PERFINFO ------------------------------------------------------------- */

int etlw_write_system(etlw_writer *w, unsigned cpu, const etlw_system_rec *rec,
                      const void *payload, size_t len)
{
    if (!etlw__usable(w))
        return ETLW_E_STATE;
    unsigned bits = etlw__bits(w, rec->bits);
    if (bits == 0 || rec->pmc_count > 7 || (rec->pmc_count && rec->pmc == NULL) ||
        !payload_ok(payload, len) || rec->kind > ETLW_PERFINFO)
        return ETLW_E_ARG;
    static const uint8_t types[3][2] = {
        { ETLW_HT_SYSTEM32, ETLW_HT_SYSTEM64 },
        { ETLW_HT_COMPACT32, ETLW_HT_COMPACT64 },
        { ETLW_HT_PERFINFO32, ETLW_HT_PERFINFO64 },
    };
    uint8_t type = types[rec->kind][bits == 64];
    uint16_t version = (uint16_t)(rec->version | (rec->has_pebs ? SYSTEM_VERSION_PEBS : 0) |
                                  (rec->pmc_count << SYSTEM_VERSION_PMC_SHIFT));
    etlw_bytes r;
    begin(w, &r);
    /* Version in the low word of the marker, Size in the next word. */
    etlw_put_u16(&r, version);
    etlw_put_u8(&r, type);
    etlw_put_u8(&r, MARKER_FLAGS);
    etlw_put_u16(&r, 0);
    etlw_put_u8(&r, rec->type);   /* HookId low byte: event type (opcode) */
    etlw_put_u8(&r, rec->group);  /* HookId high byte: group */
    if (rec->kind != ETLW_PERFINFO) {
        etlw_put_u32(&r, rec->tid);
        etlw_put_u32(&r, rec->pid);
    }
    etlw_put_u64(&r, (uint64_t)rec->timestamp);
    if (rec->kind == ETLW_SYSTEM) {
        etlw_put_u32(&r, rec->kernel_time);
        etlw_put_u32(&r, rec->user_time);
    }
    /* Inserted items precede the event data; PEBS first, then the counters (the order
     * when both are present is not documented, format doc §11). */
    if (rec->has_pebs)
        etlw_put_u64(&r, rec->pebs_index);
    for (unsigned i = 0; i < rec->pmc_count; i++)
        etlw_put_u64(&r, rec->pmc[i]);
    etlw_put(&r, payload, len);
    int rc = finish(w, cpu, &r, 4, 1, rec->timestamp);
    if (rc == ETLW_OK) {
        etlw__count_record(w, type);
        etlw__count_kernel_group(w, rec->group);
    }
    return rc;
}

/* ---- FULL_HEADER / INSTANCE ------------------------------------------------------------------ */

int etlw_write_classic(etlw_writer *w, unsigned cpu, const etlw_classic_rec *rec,
                       const void *payload, size_t len)
{
    if (!etlw__usable(w))
        return ETLW_E_STATE;
    unsigned bits = etlw__bits(w, rec->bits);
    if (bits == 0 || !payload_ok(payload, len))
        return ETLW_E_ARG;
    uint8_t type = rec->instance ? (bits == 64 ? ETLW_HT_INSTANCE64 : ETLW_HT_INSTANCE32)
                                 : (bits == 64 ? ETLW_HT_FULL_HEADER64 : ETLW_HT_FULL_HEADER32);
    etlw_bytes r;
    begin(w, &r);
    etlw_put_u16(&r, 0);          /* Size */
    etlw_put_u8(&r, type);
    etlw_put_u8(&r, MARKER_FLAGS);
    etlw_put_u8(&r, rec->type);
    etlw_put_u8(&r, rec->level);
    etlw_put_u16(&r, rec->version);
    etlw_put_u32(&r, rec->tid);
    etlw_put_u32(&r, rec->pid);
    etlw_put_u64(&r, (uint64_t)rec->timestamp);
    etlw_put_guid(&r, &rec->guid);
    etlw_put_u32(&r, rec->kernel_time);
    etlw_put_u32(&r, rec->user_time);
    if (rec->instance) {
        etlw_put_u32(&r, rec->instance_id);
        etlw_put_u32(&r, rec->parent_instance_id);
        etlw_put_guid(&r, &rec->parent_guid);
    }
    etlw_put(&r, payload, len);
    int rc = finish(w, cpu, &r, 0, 1, rec->timestamp);
    if (rc == ETLW_OK) {
        etlw__count_record(w, type);
        etlw__count_provider(w, &rec->guid);
    }
    return rc;
}

/* ---- EVENT_HEADER / ERROR ---------------------------------------------------------------------- */

/* Items must be well formed: the writer steps through them to set the linkage bits. */
static int ext_list_valid(const etlw_bytes *ext)
{
    size_t off = 0;
    if (ext->overflow)
        return 0;
    while (off < ext->len) {
        if (ext->len - off < 8)
            return 0;
        uint16_t size = etlw_ld16(ext->data + off);
        uint16_t dsize = etlw_ld16(ext->data + off + 6);
        if (size < 8 || size % 8 != 0 || size > ext->len - off || dsize > size - 8)
            return 0;
        off += size;
    }
    return 1;
}

int etlw_write_event(etlw_writer *w, unsigned cpu, const etlw_event_rec *rec,
                     const etlw_bytes *ext, const void *payload, size_t len)
{
    if (!etlw__usable(w))
        return ETLW_E_STATE;
    unsigned bits = etlw__bits(w, rec->bits);
    if (bits == 0 || !payload_ok(payload, len))
        return ETLW_E_ARG;
    if (ext != NULL && !ext_list_valid(ext))
        return ext->overflow ? too_big(w) : ETLW_E_ARG;
    int has_ext = ext != NULL && ext->len > 0;
    uint8_t type = rec->error ? ETLW_HT_ERROR
                              : (bits == 64 ? ETLW_HT_EVENT_HEADER64 : ETLW_HT_EVENT_HEADER32);
    uint16_t flags = (uint16_t)((rec->flags & ~ETLW_EVENT_FLAG_EXTENDED_INFO) |
                                (has_ext ? ETLW_EVENT_FLAG_EXTENDED_INFO : 0));
    etlw_bytes r;
    begin(w, &r);
    etlw_put_u16(&r, 0);          /* Size */
    etlw_put_u8(&r, type);        /* HeaderType 0xC012 / 0xC013 / 0xC00D */
    etlw_put_u8(&r, MARKER_FLAGS);
    etlw_put_u16(&r, flags);
    etlw_put_u16(&r, rec->event_property);
    etlw_put_u32(&r, rec->tid);
    etlw_put_u32(&r, rec->pid);
    etlw_put_u64(&r, (uint64_t)rec->timestamp);
    etlw_put_guid(&r, &rec->provider);
    etlw_put_u16(&r, rec->id);
    etlw_put_u8(&r, rec->version);
    etlw_put_u8(&r, rec->channel);
    etlw_put_u8(&r, rec->level);
    etlw_put_u8(&r, rec->opcode);
    etlw_put_u16(&r, rec->task);
    etlw_put_u64(&r, rec->keyword);
    etlw_put_u32(&r, rec->kernel_time);
    etlw_put_u32(&r, rec->user_time);
    etlw_put_guid(&r, &rec->activity_id);
    size_t ext_at = r.len;
    if (has_ext) {
        etlw_put(&r, ext->data, ext->len);
        if (!r.overflow) {
            /* Linkage bit 0: set on every item but the last. */
            size_t off = 0;
            while (off < ext->len) {
                uint8_t *item = r.data + ext_at + off;
                uint16_t size = etlw_ld16(item);
                uint16_t link = etlw_ld16(item + 4);
                int last = off + size >= ext->len;
                etlw_st16(item + 4, (uint16_t)(last ? (link & ~1u) : (link | 1u)));
                off += size;
            }
        }
    }
    etlw_put(&r, payload, len);
    int rc = finish(w, cpu, &r, 0, 1, rec->timestamp);
    if (rc == ETLW_OK) {
        etlw__count_record(w, type);
        etlw__count_provider(w, &rec->provider);
        for (size_t off = 0; has_ext && off < ext->len; off += etlw_ld16(ext->data + off))
            etlw__count_ext(w, etlw_ld16(ext->data + off + 2));
    }
    return rc;
}

/* ---- MESSAGE (WPP) ------------------------------------------------------------------------------ */

int etlw_write_message(etlw_writer *w, unsigned cpu, const etlw_message_rec *rec,
                       const void *payload, size_t len)
{
    if (!etlw__usable(w))
        return ETLW_E_STATE;
    if (!payload_ok(payload, len))
        return ETLW_E_ARG;
    uint16_t f = rec->option_flags;
    etlw_bytes r;
    begin(w, &r);
    etlw_put_u16(&r, 0);          /* Size */
    etlw_put_u8(&r, 0);           /* Reserved */
    etlw_put_u8(&r, MESSAGE_FLAGS);
    etlw_put_u16(&r, rec->message_number);
    etlw_put_u16(&r, f);
    if (f & ETLW_MSG_SEQUENCE)
        etlw_put_u32(&r, rec->sequence);
    if (f & ETLW_MSG_COMPONENTID)
        etlw_put_u32(&r, rec->component_id); /* takes precedence over the GUID */
    else if (f & ETLW_MSG_GUID)
        etlw_put_guid(&r, &rec->guid);
    if (f & (ETLW_MSG_TIMESTAMP | ETLW_MSG_PERFORMANCE_TIMESTAMP))
        etlw_put_u64(&r, (uint64_t)rec->timestamp);
    if (f & ETLW_MSG_SYSTEMINFO) {
        etlw_put_u32(&r, rec->tid);
        etlw_put_u32(&r, rec->pid);
    }
    etlw_put(&r, payload, len);
    int rc = finish(w, cpu, &r, 0, (f & ETLW_MSG_TIMESTAMP) != 0, rec->timestamp);
    if (rc == ETLW_OK) {
        etlw__count_record(w, ETLW_HT_MESSAGE);
        if ((f & ETLW_MSG_GUID) && !(f & ETLW_MSG_COMPONENTID))
            etlw__count_provider(w, &rec->guid);
    }
    return rc;
}

/* ---- header types without a layout --------------------------------------------------------------- */

int etlw_write_unknown(etlw_writer *w, unsigned cpu, uint8_t header_type, const void *payload,
                       size_t len)
{
    if (!etlw__usable(w))
        return ETLW_E_STATE;
    /* Refuse types that have a layout: a reader would parse this record as one of them. */
    const char *name = etlw_header_type_name(header_type);
    if (!payload_ok(payload, len) ||
        (name != NULL && header_type != ETLW_HT_TIMED && header_type != ETLW_HT_WNODE))
        return ETLW_E_ARG;
    etlw_bytes r;
    begin(w, &r);
    etlw_put_u16(&r, 0);
    etlw_put_u8(&r, header_type);
    etlw_put_u8(&r, MARKER_FLAGS);
    etlw_put(&r, payload, len);
    int rc = finish(w, cpu, &r, 0, 0, 0);
    if (rc == ETLW_OK)
        etlw__count_record(w, header_type);
    return rc;
}

/* ---- extended data items --------------------------------------------------------------------------- */

size_t etlw_ext_begin(etlw_bytes *ext, uint16_t type)
{
    size_t at = ext->len;
    etlw_put_u16(ext, 0);     /* total item size, rounded up to 8 (patched by _end) */
    etlw_put_u16(ext, type);
    etlw_put_u16(ext, 0);     /* linkage, set by etlw_write_event */
    etlw_put_u16(ext, 0);     /* DataSize (patched by _end) */
    return at;
}

void etlw_ext_end(etlw_bytes *ext, size_t at)
{
    if (ext->overflow || at > ext->len || ext->len - at < 8) {
        ext->overflow = 1;
        return;
    }
    size_t data = ext->len - at - 8;
    size_t total = (8 + data + 7) & ~(size_t)7;
    if (total > 0xFFF8u) {
        ext->overflow = 1;
        return;
    }
    etlw_put_fill(ext, 0, total - 8 - data);
    etlw_patch_u16(ext, at, (uint16_t)total);
    etlw_patch_u16(ext, at + 6, (uint16_t)data);
}

void etlw_ext_add(etlw_bytes *ext, uint16_t type, const void *data, size_t len)
{
    size_t at = etlw_ext_begin(ext, type);
    if (data != NULL || len == 0)
        etlw_put(ext, data, len);
    else
        ext->overflow = 1;
    etlw_ext_end(ext, at);
}

void etlw_ext_related_activity(etlw_bytes *ext, const etlw_guid *g)
{
    size_t at = etlw_ext_begin(ext, ETLW_EXT_RELATED_ACTIVITYID);
    etlw_put_guid(ext, g);
    etlw_ext_end(ext, at);
}

void etlw_ext_sid(etlw_bytes *ext, uint64_t authority, const uint32_t *subs, unsigned n)
{
    size_t at = etlw_ext_begin(ext, ETLW_EXT_SID);
    etlw_put_sid(ext, authority, subs, n);
    etlw_ext_end(ext, at);
}

void etlw_ext_ts_id(etlw_bytes *ext, uint32_t session_id)
{
    size_t at = etlw_ext_begin(ext, ETLW_EXT_TS_ID);
    etlw_put_u32(ext, session_id);
    etlw_ext_end(ext, at);
}

void etlw_ext_instance_info(etlw_bytes *ext, uint32_t instance_id, uint32_t parent_id,
                            const etlw_guid *parent_guid)
{
    size_t at = etlw_ext_begin(ext, ETLW_EXT_INSTANCE_INFO);
    etlw_put_u32(ext, instance_id);
    etlw_put_u32(ext, parent_id);
    etlw_put_guid(ext, parent_guid);
    etlw_ext_end(ext, at);
}

void etlw_ext_stack32(etlw_bytes *ext, uint64_t match_id, const uint32_t *addrs, size_t n)
{
    size_t at = etlw_ext_begin(ext, ETLW_EXT_STACK_TRACE32);
    etlw_put_u64(ext, match_id);
    for (size_t i = 0; i < n; i++)
        etlw_put_u32(ext, addrs[i]);
    etlw_ext_end(ext, at);
}

void etlw_ext_stack64(etlw_bytes *ext, uint64_t match_id, const uint64_t *addrs, size_t n)
{
    size_t at = etlw_ext_begin(ext, ETLW_EXT_STACK_TRACE64);
    etlw_put_u64(ext, match_id);
    for (size_t i = 0; i < n; i++)
        etlw_put_u64(ext, addrs[i]);
    etlw_ext_end(ext, at);
}

static void ext_u64(etlw_bytes *ext, uint16_t type, uint64_t v)
{
    size_t at = etlw_ext_begin(ext, type);
    etlw_put_u64(ext, v);
    etlw_ext_end(ext, at);
}

void etlw_ext_pebs_index(etlw_bytes *ext, uint64_t index)
{
    ext_u64(ext, ETLW_EXT_PEBS_INDEX, index);
}

void etlw_ext_pmc_counters(etlw_bytes *ext, const uint64_t *counters, size_t n)
{
    size_t at = etlw_ext_begin(ext, ETLW_EXT_PMC_COUNTERS);
    for (size_t i = 0; i < n; i++)
        etlw_put_u64(ext, counters[i]);
    etlw_ext_end(ext, at);
}

void etlw_ext_event_key(etlw_bytes *ext, uint64_t key)
{
    ext_u64(ext, ETLW_EXT_EVENT_KEY, key);
}

void etlw_ext_process_start_key(etlw_bytes *ext, uint64_t key)
{
    ext_u64(ext, ETLW_EXT_PROCESS_START_KEY, key);
}

void etlw_ext_schema_tl(etlw_bytes *ext, const etlw_bytes *metadata)
{
    if (metadata->overflow) {
        ext->overflow = 1;
        return;
    }
    etlw_ext_add(ext, ETLW_EXT_EVENT_SCHEMA_TL, metadata->data, metadata->len);
}

void etlw_ext_prov_traits(etlw_bytes *ext, const etlw_bytes *traits)
{
    if (traits->overflow) {
        ext->overflow = 1;
        return;
    }
    etlw_ext_add(ext, ETLW_EXT_PROV_TRAITS, traits->data, traits->len);
}
