/*
 * etlwriter.h - build small, valid Windows ETW trace files (.etl) on any OS.
 *
 * This library exists so that the etlshark decoder and plugins can be tested
 * against files whose every byte is known: the real captures in the shared corpus
 * cover only some record kinds (no WPP MESSAGE, no INSTANCE headers, few extended
 * items), and nothing in them is under our control.
 *
 * Layout facts follow docs/etw-formats.md (sections 1-3, 5, 7) and were checked against
 * the real files in the shared captures (buffer headers of the PerfView compressed logs).
 *
 * Model:
 *   - a trace has one buffer per CPU; records are appended to the buffer of the CPU
 *     the caller names, and a buffer is written out ("flushed") when the next record
 *     does not fit, so buffers of different CPUs interleave in the file as they do in
 *     real per-CPU traces;
 *   - the first buffer of the file is a HEADER buffer that holds only the logfile
 *     header record; it is written when the trace is opened and rewritten on close,
 *     when EndTime and BuffersWritten are known;
 *   - output goes to a sink that supports positional writes (memory, FILE*, or a
 *     counting null sink); buffers stream out, so memory use does not grow with the
 *     number of records.
 *
 * Every function that writes bytes checks its bounds; errors are reported through
 * return codes (ETLW_OK == 0, negative on failure).  Nothing here uses global state.
 */
#ifndef ETLWRITER_H
#define ETLWRITER_H

#include "etl_write.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes ------------------------------------------------------------------ */

enum {
    ETLW_OK = 0,
    ETLW_E_ARG = -1,      /* bad argument (unknown CPU, bad config, ...) */
    ETLW_E_NOMEM = -2,    /* allocation failed */
    ETLW_E_TOO_BIG = -3,  /* record or item larger than its size field / the buffer allows */
    ETLW_E_IO = -4,       /* the sink refused a write */
    ETLW_E_STATE = -5     /* writer already failed or closed */
};
const char *etlw_strerror(int status);

/* ---- GUIDs (stored in Windows mixed-endian form) -------------------------------- */

typedef struct etlw_guid {
    uint32_t d1;
    uint16_t d2, d3;
    uint8_t d4[8];
} etlw_guid;

/* Parse "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", braces optional.  Returns 0 or -1. */
int etlw_guid_parse(const char *text, etlw_guid *out);
/* Lower-case, no braces, NUL-terminated (37 bytes). */
void etlw_guid_format(const etlw_guid *g, char out[37]);
int etlw_guid_equal(const etlw_guid *a, const etlw_guid *b);

/* ---- bounded byte builder ----------------------------------------------------------
 * Used for payloads, extended-item lists and TraceLogging metadata.  Storage belongs
 * to the caller.  A write that does not fit sets `overflow` and writes nothing more;
 * consumers of an overflowed builder fail with ETLW_E_TOO_BIG. */

typedef struct etlw_bytes {
    uint8_t *data;
    size_t len;
    size_t cap;
    int overflow;
} etlw_bytes;

void etlw_bytes_init(etlw_bytes *b, void *storage, size_t cap);
void etlw_bytes_reset(etlw_bytes *b);
void etlw_put(etlw_bytes *b, const void *p, size_t n);
void etlw_put_fill(etlw_bytes *b, uint8_t value, size_t n);
void etlw_put_u8(etlw_bytes *b, uint8_t v);
void etlw_put_u16(etlw_bytes *b, uint16_t v);
void etlw_put_u32(etlw_bytes *b, uint32_t v);
void etlw_put_u64(etlw_bytes *b, uint64_t v);
void etlw_put_f32(etlw_bytes *b, float v);  /* IEEE-754, little-endian */
void etlw_put_f64(etlw_bytes *b, double v);
void etlw_put_ptr(etlw_bytes *b, unsigned pointer_size, uint64_t v); /* 4 or 8 bytes */
void etlw_put_guid(etlw_bytes *b, const etlw_guid *g);
/* NUL-terminated 8-bit string (bytes copied as given, then one NUL). */
void etlw_put_strz(etlw_bytes *b, const char *s);
/* UTF-8 -> UTF-16LE with a u16 NUL terminator (invalid UTF-8 becomes U+FFFD). */
void etlw_put_utf16z(etlw_bytes *b, const char *utf8);
/* UTF-8 -> UTF-16LE without terminator. */
void etlw_put_utf16(etlw_bytes *b, const char *utf8);
/* Number of UTF-16 code units etlw_put_utf16 would write. */
size_t etlw_utf16_units(const char *utf8);
/* u16 byte count + UTF-16LE, no NUL (TDH COUNTEDSTRING / TL type 22). */
void etlw_put_counted_utf16(etlw_bytes *b, const char *utf8);
/* u16 byte count + bytes, no NUL (TL types 14, 23, 25). */
void etlw_put_counted(etlw_bytes *b, const void *p, uint16_t n);
/* A binary SID: revision 1, count, 48-bit big-endian authority, sub-authorities. */
void etlw_put_sid(etlw_bytes *b, uint64_t authority, const uint32_t *subs, unsigned n);
/* Overwrite already written bytes (used for size fields known only at the end). */
void etlw_patch_u16(etlw_bytes *b, size_t off, uint16_t v);

/* ---- sinks: where the file bytes go --------------------------------------------------
 * write_at(ctx, offset, data, len) returns 0 on success.  The writer only ever
 * appends, except for the final rewrite of the header buffer at offset 0. */

typedef int (*etlw_write_fn)(void *ctx, uint64_t offset, const void *data, size_t len);
typedef struct etlw_sink {
    etlw_write_fn write_at;
    void *ctx;
} etlw_sink;

/* Growable memory image, never larger than max_bytes. Free with etlw_mem_release(). */
typedef struct etlw_mem {
    uint8_t *data;
    size_t len;
    size_t cap;
    size_t max;
} etlw_mem;
etlw_sink etlw_mem_sink(etlw_mem *m, size_t max_bytes);
void etlw_mem_release(etlw_mem *m);

/* A seekable stdio stream (the decoder library's file sink).  `state` must outlive the writer. */
typedef etl_write_file etlw_file;
etlw_sink etlw_file_sink(etlw_file *state, FILE *f);

/* Discards bytes, remembers the file size (used for --expect and dry runs). */
etlw_sink etlw_null_sink(uint64_t *size);

/* ---- the trace -------------------------------------------------------------------- */

enum etlw_clock {
    ETLW_CLOCK_QPC = 1,    /* QueryPerformanceCounter, PerfFreq ticks per second */
    ETLW_CLOCK_SYSTEM = 2, /* raw timestamps are FILETIMEs */
    ETLW_CLOCK_CYCLES = 3  /* CPU cycle counter, CpuSpeedInMHz */
};

#define ETLW_BUFFER_HEADER_SIZE 0x48u
#define ETLW_LOGFILE_MODE_SEQUENTIAL 0x00000001u
#define ETLW_LOGFILE_MODE_RELOG 0x00010000u
#define ETLW_LOGFILE_MODE_COMPRESSED 0x04000000u

typedef struct etlw_config {
    unsigned pointer_size;     /* 4 or 8: SYSTEM32/64 header record, 0x110/0x118 header */
    unsigned clock_type;       /* enum etlw_clock */
    uint64_t perf_freq;        /* PerfFreq; 0 means 10,000,000 */
    uint32_t cpu_speed_mhz;    /* CpuSpeedInMHz (needed by the cycle clock) */
    uint32_t buffer_size;      /* session buffer size, multiple of 8, 512 .. 64 MiB */
    uint32_t num_cpus;         /* 1 .. 256; one open buffer per CPU */
    uint16_t logger_id;        /* ClientContext.LoggerId of every buffer */
    int64_t start_time;        /* FILETIME of session start (the anchor's wall time) */
    int64_t boot_time;         /* FILETIME */
    int64_t end_time;          /* FILETIME; 0 = derive from the last timestamp seen */
    int64_t header_timestamp;  /* raw clock value of the logfile header record (anchor) */
    uint32_t header_tid, header_pid;
    uint8_t os_major, os_minor, os_sub, os_subminor;
    uint32_t os_build;         /* ProviderVersion */
    uint32_t timer_resolution; /* 100-ns units */
    uint32_t log_file_mode;    /* COMPRESSED is added when `compressed` is set */
    uint32_t events_lost;      /* added to the records the writer had to drop */
    uint32_t buffers_lost;
    int32_t tz_bias_minutes;
    const char *tz_standard_name;  /* up to 31 UTF-16 units */
    const char *tz_daylight_name;
    const char *logger_name;       /* UTF-8 */
    const char *log_file_name;     /* UTF-8 */
    int compressed;            /* LZXpress buffers, as written by relogging sessions */
} etlw_config;

/* Plausible defaults: 64-bit, QPC at 10 MHz, 64 KiB buffers, 1 CPU, Windows 10. */
void etlw_config_init(etlw_config *c);

/* What the writer has put in the file, counted from its own API calls. */
#define ETLW_MAX_PROVIDERS 64
typedef struct etlw_provider_count {
    int unknown_kernel_group; /* -1, or the group byte of a classic record outside §9.2 */
    etlw_guid guid;
    uint64_t count;
} etlw_provider_count;

typedef struct etlw_stats {
    uint64_t records;
    uint64_t header_types[256]; /* indexed by header type (0x0F = MESSAGE) */
    uint64_t ext_types[256];    /* indexed by extended item type (255: 255 and above) */
    uint64_t buffers;
    uint64_t compressed_buffers;
    uint64_t dropped;          /* records refused with ETLW_E_TOO_BIG (counted as lost) */
    uint64_t file_size;
    size_t nproviders;
    int providers_overflow;    /* more than ETLW_MAX_PROVIDERS distinct providers */
    etlw_provider_count providers[ETLW_MAX_PROVIDERS];
} etlw_stats;

typedef struct etlw_writer etlw_writer;

/* Validates the config, allocates the CPU buffers and writes the header buffer. */
int etlw_open(etlw_writer **out, const etlw_config *cfg, etlw_sink sink);
/* Flushes every CPU buffer (CPU order), rewrites the header buffer.  Idempotent. */
int etlw_close(etlw_writer *w);
void etlw_destroy(etlw_writer *w);
/* First fatal error, or ETLW_OK. */
int etlw_status(const etlw_writer *w);
const etlw_stats *etlw_get_stats(const etlw_writer *w);
unsigned etlw_pointer_size(const etlw_writer *w);
/* Largest timestamp seen so far (the logfile header's anchor before any record). */
int64_t etlw_now(const etlw_writer *w);
/* Write out one CPU's buffer now (no-op when it is empty), stamped `timestamp`. */
int etlw_flush_cpu(etlw_writer *w, unsigned cpu, int64_t timestamp);

/* Names as in docs/etw-formats.md (SYSTEM64, EVENT_HEADER32, EVENT_SCHEMA_TL, ...);
 * NULL when the number has no name. */
const char *etlw_header_type_name(unsigned type);
const char *etlw_ext_type_name(unsigned type);
/* Kernel event-group class GUID (format doc §9.2); returns 0, or -1 if unknown. */
int etlw_kernel_group_guid(unsigned group, etlw_guid *out);

/* ---- record kinds -------------------------------------------------------------------
 * `bits` selects the 32- or 64-bit header variant; 0 means the trace's pointer size.
 * Payload bytes are copied; Size fields include header, inserted items and payload,
 * never the alignment pad.  All functions return ETLW_OK or a negative status. */

/* Header type bytes (marker byte 2). */
enum etlw_header_type {
    ETLW_HT_SYSTEM32 = 0x01, ETLW_HT_SYSTEM64 = 0x02,
    ETLW_HT_COMPACT32 = 0x03, ETLW_HT_COMPACT64 = 0x04,
    ETLW_HT_FULL_HEADER32 = 0x0A, ETLW_HT_INSTANCE32 = 0x0B,
    ETLW_HT_TIMED = 0x0C, ETLW_HT_ERROR = 0x0D, ETLW_HT_WNODE = 0x0E, ETLW_HT_MESSAGE = 0x0F,
    ETLW_HT_PERFINFO32 = 0x10, ETLW_HT_PERFINFO64 = 0x11,
    ETLW_HT_EVENT_HEADER32 = 0x12, ETLW_HT_EVENT_HEADER64 = 0x13,
    ETLW_HT_FULL_HEADER64 = 0x14, ETLW_HT_INSTANCE64 = 0x15
};

/* SYSTEM_TRACE_HEADER, its compact form, and PERFINFO_TRACE_HEADER. */
enum etlw_system_kind { ETLW_SYSTEM = 0, ETLW_COMPACT = 1, ETLW_PERFINFO = 2 };
typedef struct etlw_system_rec {
    enum etlw_system_kind kind;
    unsigned bits;
    uint8_t version;           /* MOF class version (low byte of the Version word) */
    uint8_t group, type;       /* HookId = group << 8 | type */
    uint32_t tid, pid;         /* not stored by PERFINFO */
    int64_t timestamp;
    uint32_t kernel_time, user_time; /* SYSTEM only */
    int has_pebs;              /* Version bit 0x8000: u64 PEBS index inserted */
    uint64_t pebs_index;
    unsigned pmc_count;        /* Version bits 0x0700: u64 counters inserted (max 7) */
    const uint64_t *pmc;
} etlw_system_rec;
int etlw_write_system(etlw_writer *w, unsigned cpu, const etlw_system_rec *r,
                      const void *payload, size_t len);

/* EVENT_TRACE_HEADER (FULL_HEADER) and EVENT_INSTANCE_GUID_HEADER (INSTANCE). */
typedef struct etlw_classic_rec {
    int instance;              /* nonzero: INSTANCE header with the three fields below */
    unsigned bits;
    uint8_t type, level;
    uint16_t version;
    uint32_t tid, pid;
    int64_t timestamp;
    etlw_guid guid;            /* MOF event class */
    uint32_t kernel_time, user_time;
    uint32_t instance_id, parent_instance_id;
    etlw_guid parent_guid;
} etlw_classic_rec;
int etlw_write_classic(etlw_writer *w, unsigned cpu, const etlw_classic_rec *r,
                       const void *payload, size_t len);

/* EVENT_HEADER, or the EVENT_HEADER-shaped ERROR record (HeaderType 0xC00D). */
#define ETLW_EVENT_FLAG_EXTENDED_INFO 0x0001u
#define ETLW_EVENT_FLAG_STRING_ONLY 0x0004u
typedef struct etlw_event_rec {
    unsigned bits;
    int error;                 /* nonzero: write an ERROR record instead */
    uint16_t flags;            /* EXTENDED_INFO is set by the writer when items exist */
    uint16_t event_property;
    uint32_t tid, pid;
    int64_t timestamp;
    etlw_guid provider;
    uint16_t id;
    uint8_t version, channel, level, opcode;
    uint16_t task;
    uint64_t keyword;
    uint32_t kernel_time, user_time;
    etlw_guid activity_id;
} etlw_event_rec;
/* `ext` is an item list built with the etlw_ext_* functions below (or NULL). */
int etlw_write_event(etlw_writer *w, unsigned cpu, const etlw_event_rec *r,
                     const etlw_bytes *ext, const void *payload, size_t len);

/* MESSAGE_TRACE_HEADER (WPP / TraceMessage).  Optional items are stored in the order
 * of their flags; when both GUID and COMPONENTID are set, only the component id is
 * stored (format doc §2.7), and PERFORMANCE_TIMESTAMP reserves the timestamp slot. */
#define ETLW_MSG_SEQUENCE 0x0001u
#define ETLW_MSG_GUID 0x0002u
#define ETLW_MSG_COMPONENTID 0x0004u
#define ETLW_MSG_TIMESTAMP 0x0008u
#define ETLW_MSG_PERFORMANCE_TIMESTAMP 0x0010u
#define ETLW_MSG_SYSTEMINFO 0x0020u
#define ETLW_MSG_POINTER32 0x0040u
#define ETLW_MSG_POINTER64 0x0080u
typedef struct etlw_message_rec {
    uint16_t message_number;
    uint16_t option_flags;
    uint32_t sequence;
    etlw_guid guid;
    uint32_t component_id;
    int64_t timestamp;         /* only stored with ETLW_MSG_TIMESTAMP */
    uint32_t tid, pid;         /* only stored with ETLW_MSG_SYSTEMINFO */
} etlw_message_rec;
int etlw_write_message(etlw_writer *w, unsigned cpu, const etlw_message_rec *r,
                       const void *payload, size_t len);

/* A record of a header type with no known layout (0x0C TIMED, 0x0E WNODE, ...):
 * marker = 0xC0 | type | u16 Size, then the payload.  Readers can only skip it. */
int etlw_write_unknown(etlw_writer *w, unsigned cpu, uint8_t header_type,
                       const void *payload, size_t len);

/* ---- EVENT_HEADER extended data items ------------------------------------------------
 * Items are appended to an etlw_bytes list: u16 total size (rounded up to 8), u16 type,
 * u16 linkage (bit 0 = another item follows; set by etlw_write_event), u16 DataSize,
 * data, zero pad to 8. */

enum etlw_ext_type {
    ETLW_EXT_RELATED_ACTIVITYID = 1, ETLW_EXT_SID = 2, ETLW_EXT_TS_ID = 3,
    ETLW_EXT_INSTANCE_INFO = 4, ETLW_EXT_STACK_TRACE32 = 5, ETLW_EXT_STACK_TRACE64 = 6,
    ETLW_EXT_PEBS_INDEX = 7, ETLW_EXT_PMC_COUNTERS = 8, ETLW_EXT_PSM_KEY = 9,
    ETLW_EXT_EVENT_KEY = 10, ETLW_EXT_EVENT_SCHEMA_TL = 11, ETLW_EXT_PROV_TRAITS = 12,
    ETLW_EXT_PROCESS_START_KEY = 13, ETLW_EXT_CONTROL_GUID = 14, ETLW_EXT_QPC_DELTA = 15,
    ETLW_EXT_CONTAINER_ID = 16, ETLW_EXT_STACK_KEY32 = 17, ETLW_EXT_STACK_KEY64 = 18
};

/* Any item type with the given data. */
void etlw_ext_add(etlw_bytes *ext, uint16_t type, const void *data, size_t len);
/* Two-step form for items whose data is built in place:
 *   size_t at = etlw_ext_begin(ext, type); etlw_put_...(ext, ...); etlw_ext_end(ext, at); */
size_t etlw_ext_begin(etlw_bytes *ext, uint16_t type);
void etlw_ext_end(etlw_bytes *ext, size_t at);

void etlw_ext_related_activity(etlw_bytes *ext, const etlw_guid *g);
void etlw_ext_sid(etlw_bytes *ext, uint64_t authority, const uint32_t *subs, unsigned n);
void etlw_ext_ts_id(etlw_bytes *ext, uint32_t session_id);
void etlw_ext_instance_info(etlw_bytes *ext, uint32_t instance_id, uint32_t parent_id,
                            const etlw_guid *parent_guid);
void etlw_ext_stack32(etlw_bytes *ext, uint64_t match_id, const uint32_t *addrs, size_t n);
void etlw_ext_stack64(etlw_bytes *ext, uint64_t match_id, const uint64_t *addrs, size_t n);
void etlw_ext_pebs_index(etlw_bytes *ext, uint64_t index);
void etlw_ext_pmc_counters(etlw_bytes *ext, const uint64_t *counters, size_t n);
void etlw_ext_event_key(etlw_bytes *ext, uint64_t key);
void etlw_ext_process_start_key(etlw_bytes *ext, uint64_t key);
void etlw_ext_schema_tl(etlw_bytes *ext, const etlw_bytes *metadata);
void etlw_ext_prov_traits(etlw_bytes *ext, const etlw_bytes *traits);

/* ---- TraceLogging (format doc §5) -------------------------------------------------- */

enum etlw_tl_in {
    ETLW_TL_UNICODESTRING = 1, ETLW_TL_ANSISTRING = 2, ETLW_TL_INT8 = 3, ETLW_TL_UINT8 = 4,
    ETLW_TL_INT16 = 5, ETLW_TL_UINT16 = 6, ETLW_TL_INT32 = 7, ETLW_TL_UINT32 = 8,
    ETLW_TL_INT64 = 9, ETLW_TL_UINT64 = 10, ETLW_TL_FLOAT = 11, ETLW_TL_DOUBLE = 12,
    ETLW_TL_BOOL32 = 13, ETLW_TL_BINARY = 14, ETLW_TL_GUID = 15, ETLW_TL_FILETIME = 17,
    ETLW_TL_SYSTEMTIME = 18, ETLW_TL_SID = 19, ETLW_TL_HEXINT32 = 20, ETLW_TL_HEXINT64 = 21,
    ETLW_TL_COUNTEDSTRING = 22, ETLW_TL_COUNTEDANSISTRING = 23, ETLW_TL_STRUCT = 24,
    ETLW_TL_COUNTEDBINARY = 25
};
/* TlgOut codes used by the presets (format doc §5.5; equal to TDH_OUTTYPE numbers). */
enum etlw_tl_out {
    ETLW_TLO_DEFAULT = 0, ETLW_TLO_NOPRINT = 1, ETLW_TLO_STRING = 2, ETLW_TLO_BOOLEAN = 3,
    ETLW_TLO_HEX = 4, ETLW_TLO_PID = 5, ETLW_TLO_TID = 6, ETLW_TLO_PORT = 7, ETLW_TLO_IPV4 = 8,
    ETLW_TLO_IPV6 = 9, ETLW_TLO_SOCKETADDRESS = 10, ETLW_TLO_XML = 11, ETLW_TLO_JSON = 12,
    ETLW_TLO_WIN32ERROR = 13, ETLW_TLO_NTSTATUS = 14, ETLW_TLO_HRESULT = 15,
    ETLW_TLO_FILETIME = 16, ETLW_TLO_SIGNED = 17, ETLW_TLO_UNSIGNED = 18,
    ETLW_TLO_DATETIME_CULTURE_INSENSITIVE = 33, ETLW_TLO_UTF8 = 35,
    ETLW_TLO_PKCS7_WITH_TYPE_INFO = 36, ETLW_TLO_CODE_POINTER = 37, ETLW_TLO_DATETIME_UTC = 38
};
/* Count kinds (InMeta bits 5-6). */
#define ETLW_TL_SCALAR 0x00u
#define ETLW_TL_CCOUNT 0x20u /* constant array: ccount in metadata */
#define ETLW_TL_VCOUNT 0x40u /* variable array: u16 count in the payload */
#define ETLW_TL_CUSTOM 0x60u /* u16 byte count + opaque bytes; schema in metadata */

typedef struct etlw_tl_field {
    const char *name;
    uint8_t intype;            /* enum etlw_tl_in; for CUSTOM the protocol family 1..31 */
    uint8_t outtype;           /* TlgOut (0 = default); for STRUCT: number of member fields */
    uint8_t count;             /* ETLW_TL_SCALAR / CCOUNT / VCOUNT / CUSTOM */
    uint16_t ccount;           /* elements of a CCOUNT array (never 0) */
    uint32_t tags;             /* 28-bit field tags, 0 = none */
    const uint8_t *schema;     /* CUSTOM only */
    uint16_t schema_len;
} etlw_tl_field;

/* EVENT_SCHEMA_TL blob: u16 size, tags, name, fields.  Fields of a struct follow it. */
void etlw_tl_metadata(etlw_bytes *out, const char *event_name, uint32_t event_tags,
                      const etlw_tl_field *fields, size_t nfields);
/* PROV_TRAITS blob: u16 size, name, optional provider-group trait (type 1). */
void etlw_tl_traits(etlw_bytes *out, const char *provider_name, const etlw_guid *group);

typedef struct etlw_tl_event {
    etlw_event_rec hdr;        /* provider, level, opcode, keyword, tid, pid, timestamp;
                                  channel 0 is written as 11 (TraceLogging) */
    const char *provider_name;
    const etlw_guid *provider_group; /* NULL: no group trait */
    const char *name;
    uint32_t tags;
    const etlw_bytes *more_ext; /* optional items appended after the TL ones */
} etlw_tl_event;
/* One TraceLogging event: PROV_TRAITS + EVENT_SCHEMA_TL items, then the payload. */
int etlw_write_tl(etlw_writer *w, unsigned cpu, const etlw_tl_event *ev,
                  const etlw_tl_field *fields, size_t nfields,
                  const void *payload, size_t len);

/* ---- EventSource manifest in the stream (format doc §7) -----------------------------
 * Writes ceil(xml_len / chunk_size) events with Id 0xFFFE, Version 1, Opcode 0xFE,
 * Task 0xFFFE, Keywords 0x00FFFFFFFFFFFFFF and the 8-byte envelope.  `base` gives
 * provider, tid, pid and the timestamp of chunk 0 (chunk i gets timestamp + i). */
int etlw_write_eventsource_manifest(etlw_writer *w, unsigned cpu, const etlw_event_rec *base,
                                    const char *xml, size_t xml_len, size_t chunk_size);

#ifdef __cplusplus
}
#endif

#endif /* ETLWRITER_H */
