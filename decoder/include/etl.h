/* etl.h - public API of the etlshark decoder library.
 *
 * The library reads Windows ETW trace files (.etl) on any OS.  It is a small pull API:
 *
 *   etl_reader *r;  etl_error err;
 *   if (etl_reader_open_file(path, NULL, &r, &err) != ETL_OK) { report(err); }
 *   etl_record rec;
 *   while (etl_reader_next(r, &rec, &err) == ETL_OK) { ... use rec ... }
 *   while (etl_reader_next_problem(r, &err)) { report damage }
 *   etl_reader_close(r);
 *
 * A record view (etl_record) points into memory owned by the reader; it stays valid until the
 * next call on the same reader.  Nothing here knows about Wireshark: the plugin and the
 * etldump command-line tool are two users of this same API.
 *
 * Damage never stops the stream: a buffer whose header is impossible is reported (file offset,
 * reason) and skipped, a record that cannot be framed ends its buffer with a report, and the
 * reports are queued for etl_reader_next_problem().  Only unusable input (not an .etl file,
 * unreadable) makes open fail.
 *
 * Byte formats: ../shared/docs/etw-formats.md (sections 1-4); the reader names every layout
 * it relies on in read/layout.h.
 *
 * Memory, one rule: a path that runs per record or per buffer, or that hostile input can make
 * large, reports exhaustion as ETL_ERR_NOMEM through etl_error (or a NULL from a constructor
 * documented "NULL when out of memory") and never aborts - the reader, the buffers, the schema
 * builder, compilers and cache, the stack links.  They allocate with malloc/calloc/realloc and
 * check every result; the schema machinery goes through etl_allocator (schema.h) so a host can
 * supply its own.  GLib allocation (g_new, g_malloc, g_strdup, which abort when memory runs
 * out) is kept to the files built on GLib's containers and its XML parser - the manifest loader
 * (manifest.c), the schemas carried in the trace (carried.c), EventSource manifests
 * (eventsource.c), the registry and the process context - which abort on exhaustion as GLib
 * and Wireshark do; a file uses one family or the other, never both.
 */
#ifndef ETL_H
#define ETL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- limits (named, so hostile input meets a stated bound) ------------------------------ */

/* Size of the WMI_BUFFER_HEADER that starts every buffer. */
#define ETL_BUFFER_HEADER_SIZE 0x48u
/* Largest buffer accepted, on disk or decompressed.  Windows caps session buffers at 1 MiB
 * (16 MiB on recent builds); anything larger is taken as a corrupt header. */
#define ETL_MAX_BUFFER_SIZE (16u * 1024u * 1024u)
/* Most extended data items kept per EVENT_HEADER record; more are reported and ignored. */
#define ETL_MAX_EXT_ITEMS 32u
/* How far (bytes) the reader scans forward for the next plausible buffer header after a
 * damaged one before giving up on the rest of the file. */
#define ETL_MAX_RESYNC_SCAN (64u * 1024u * 1024u)
/* Default bound of the timestamp merge: buffers held at once, and bytes held at once. */
#define ETL_DEFAULT_WINDOW_BUFFERS 64u
#define ETL_DEFAULT_WINDOW_BYTES (64u * 1024u * 1024u)

/* ---- errors ----------------------------------------------------------------------------- */

typedef enum etl_status {
    ETL_OK = 0,
    ETL_END = 1,           /* no more records */
    ETL_ERR_ARG = -1,      /* caller error (NULL, bad option) */
    ETL_ERR_IO = -2,       /* the underlying read failed */
    ETL_ERR_NOT_ETL = -3,  /* input is empty or not an ETW trace file */
    ETL_ERR_TRUNCATED = -4,/* a structure runs past the end of the data that holds it */
    ETL_ERR_CORRUPT = -5,  /* a structure has impossible values */
    ETL_ERR_LIMIT = -6,    /* a stated limit was exceeded */
    ETL_ERR_NOMEM = -7,    /* allocation failed */
    ETL_ERR_DECOMPRESS = -8,/* a compressed buffer did not inflate */
    ETL_ERR_NOT_FOUND = -9 /* a position does not name a record */
} etl_status;

/* One error type for the whole library: a code, a message and the byte offset (absolute file
 * offset; for data inside a compressed buffer, the offset of that buffer's header, and the
 * message names the offset inside the decompressed data). */
typedef struct etl_error {
    etl_status code;
    uint64_t offset;
    char message[192];
} etl_error;

const char *etl_status_name(etl_status s);

/* ---- basic types ------------------------------------------------------------------------ */

/* A GUID in Windows layout (Data1..3 little-endian on disk, Data4 as bytes). */
typedef struct etl_guid {
    uint32_t data1;
    uint16_t data2;
    uint16_t data3;
    uint8_t data4[8];
} etl_guid;

/* Trace header kinds: the header-type byte of the record marker (format doc section 2). */
enum {
    ETL_HT_SYSTEM32 = 0x01,
    ETL_HT_SYSTEM64 = 0x02,
    ETL_HT_COMPACT32 = 0x03,
    ETL_HT_COMPACT64 = 0x04,
    ETL_HT_FULL_HEADER32 = 0x0A,
    ETL_HT_INSTANCE32 = 0x0B,
    ETL_HT_TIMED = 0x0C,
    ETL_HT_ERROR = 0x0D,
    ETL_HT_WNODE = 0x0E,
    ETL_HT_MESSAGE = 0x0F,
    ETL_HT_PERFINFO32 = 0x10,
    ETL_HT_PERFINFO64 = 0x11,
    ETL_HT_EVENT_HEADER32 = 0x12,
    ETL_HT_EVENT_HEADER64 = 0x13,
    ETL_HT_FULL_HEADER64 = 0x14,
    ETL_HT_INSTANCE64 = 0x15,
    ETL_HT_UNKNOWN = 0xFF /* framed by its size, passed on raw */
};

/* Name of a header kind as in the format doc ("SYSTEM64", "EVENT_HEADER32", ...);
 * "UNKNOWN" for anything else. */
const char *etl_header_type_name(unsigned header_type);

/* Header kinds by family: what a header says about the event's identity, and so how a consumer
 * decodes and shows it.  Ask this, never a list of header types. */
typedef enum etl_family {
    ETL_FAMILY_OTHER = 0,   /* TIMED, ERROR, WNODE and unknown headers: no event identity */
    ETL_FAMILY_SYSTEM = 1,  /* SYSTEM, COMPACT, PERFINFO: a kernel group and type in the HookId */
    ETL_FAMILY_FULL = 2,    /* FULL_HEADER, INSTANCE: a classic event with its class GUID */
    ETL_FAMILY_EVENT = 3,   /* EVENT_HEADER: a provider, event id and version (manifest or
                               TraceLogging events) */
    ETL_FAMILY_MESSAGE = 4  /* MESSAGE: a WPP trace message (message GUID and number) */
} etl_family;
/* Inline: asked several times per record (decoding, process context, stack links). */
static inline etl_family etl_header_family(unsigned header_type)
{
    switch (header_type) {
    case ETL_HT_SYSTEM32: case ETL_HT_SYSTEM64: case ETL_HT_COMPACT32: case ETL_HT_COMPACT64:
    case ETL_HT_PERFINFO32: case ETL_HT_PERFINFO64:
        return ETL_FAMILY_SYSTEM;
    case ETL_HT_FULL_HEADER32: case ETL_HT_FULL_HEADER64: case ETL_HT_INSTANCE32: case ETL_HT_INSTANCE64:
        return ETL_FAMILY_FULL;
    case ETL_HT_EVENT_HEADER32: case ETL_HT_EVENT_HEADER64:
        return ETL_FAMILY_EVENT;
    case ETL_HT_MESSAGE:
        return ETL_FAMILY_MESSAGE;
    default:
        return ETL_FAMILY_OTHER;
    }
}

/* Extended data item types (evntcons.h EVENT_HEADER_EXT_TYPE_*). */
enum {
    ETL_EXT_RELATED_ACTIVITYID = 1,
    ETL_EXT_SID = 2,
    ETL_EXT_TS_ID = 3,
    ETL_EXT_INSTANCE_INFO = 4,
    ETL_EXT_STACK_TRACE32 = 5,
    ETL_EXT_STACK_TRACE64 = 6,
    ETL_EXT_PEBS_INDEX = 7,
    ETL_EXT_PMC_COUNTERS = 8,
    ETL_EXT_PSM_KEY = 9,
    ETL_EXT_EVENT_KEY = 10,
    ETL_EXT_EVENT_SCHEMA_TL = 11,
    ETL_EXT_PROV_TRAITS = 12,
    ETL_EXT_PROCESS_START_KEY = 13,
    ETL_EXT_CONTROL_GUID = 14,
    ETL_EXT_QPC_DELTA = 15,
    ETL_EXT_CONTAINER_ID = 16,
    ETL_EXT_STACK_KEY32 = 17,
    ETL_EXT_STACK_KEY64 = 18
};
/* "RELATED_ACTIVITYID", ...; NULL for a type without a name. */
const char *etl_ext_type_name(unsigned ext_type);

/* EVENT_HEADER flags (stored ones and those Windows synthesizes for consumers). */
enum {
    ETL_EHF_EXTENDED_INFO = 0x0001,
    ETL_EHF_PRIVATE_SESSION = 0x0002,
    ETL_EHF_STRING_ONLY = 0x0004,
    ETL_EHF_TRACE_MESSAGE = 0x0008,
    ETL_EHF_NO_CPUTIME = 0x0010,
    ETL_EHF_32_BIT_HEADER = 0x0020,
    ETL_EHF_64_BIT_HEADER = 0x0040,
    ETL_EHF_DECODE_GUID = 0x0080,
    ETL_EHF_CLASSIC_HEADER = 0x0100,
    ETL_EHF_PROCESSOR_INDEX = 0x0200
};

/* Buffer flags and clock types. */
enum {
    ETL_BF_FLUSH_MARKER = 0x0001,
    ETL_BF_EVENTS_LOST = 0x0002,
    ETL_BF_BUFFER_LOST = 0x0004,
    ETL_BF_RTBACKUP_CORRUPT = 0x0008,
    ETL_BF_RTBACKUP = 0x0010,
    ETL_BF_PROC_INDEX = 0x0020,
    ETL_BF_COMPRESSED = 0x0040
};
enum { ETL_CLOCK_RAW = 0, ETL_CLOCK_QPC = 1, ETL_CLOCK_SYSTEM_TIME = 2, ETL_CLOCK_CPU_CYCLES = 3 };

/* ---- the trace's logfile header --------------------------------------------------------- */

typedef struct etl_logfile {
    bool present;              /* false when the first buffer held no logfile header */
    uint8_t header_type;       /* SYSTEM32 or SYSTEM64: which TRACE_LOGFILE_HEADER form */
    uint32_t buffer_size;      /* session buffer size (bytes) */
    uint8_t os_major, os_minor, os_sub, os_subminor;
    uint32_t os_build;         /* ProviderVersion */
    uint32_t processors;
    int64_t end_time;          /* FILETIME UTC */
    uint32_t timer_resolution; /* 100 ns units */
    uint32_t max_file_size_mb;
    uint32_t log_file_mode;
    uint32_t buffers_written;
    uint32_t start_buffers;
    uint32_t pointer_size;
    uint32_t events_lost;
    uint32_t cpu_speed_mhz;
    int32_t tz_bias_minutes;
    char tz_standard_name[96]; /* UTF-8 */
    char tz_daylight_name[96]; /* UTF-8 */
    int64_t boot_time;         /* FILETIME UTC */
    int64_t perf_freq;
    int64_t start_time;        /* FILETIME UTC */
    uint32_t clock_type;       /* ReservedFlags: ETL_CLOCK_* */
    uint32_t buffers_lost;
    char logger_name[256];     /* UTF-8 */
    char log_file_name[520];   /* UTF-8 */
    int64_t anchor_raw;        /* raw timestamp of the logfile header record */
} etl_logfile;

/* Parse a TRACE_LOGFILE_HEADER payload (after the trace header) in the given form. */
etl_status etl_logfile_parse(const uint8_t *payload, size_t size, bool is64, etl_logfile *out,
                             etl_error *err);

/* Name of a clock type: "QPC", "SystemTime", "CPUCycle", "Raw". */
const char *etl_clock_name(uint32_t clock_type);

/* ---- records ---------------------------------------------------------------------------- */

/* One extended data item, data inline in the record. */
typedef struct etl_ext_item {
    uint16_t type;
    uint16_t data_size;
    uint32_t offset;     /* offset of the item header within the record */
    const uint8_t *data; /* data_size bytes */
} etl_ext_item;

#define ETL_NO_ID UINT32_MAX /* pid/tid not carried by this header kind */

/* One record as framed from its buffer: a view, valid until the next call on the reader. */
typedef struct etl_record {
    /* Fields are grouped by size (8-byte, GUIDs, 4-, 2-, 1-byte), and fields no record has
     * together share storage (the unions below, as in the Windows headers), so that the head (up
     * to `ext`) is 208 bytes: 280 with the fields in the order they were first written down.
     * What padding is left is 2 bytes in `internal` and 6 before `ext`: room for new 1- and
     * 2-byte fields.  Every record is framed into one, and etldump --threads copies each head
     * into a batch that another core reads: on the 1 M-record kernel trace, 280 -> 240 bytes
     * was 2-3% of one thread's time and 5% of two's while the host's caches were under
     * pressure, nothing measurable while they were not (bench/README.md, session 24). */

    /* where it is */
    uint64_t position;      /* opaque; etl_reader_read_at(position) reads it again */
    uint64_t buffer_offset; /* file offset of the buffer header */

    /* the bytes */
    const uint8_t *bytes;   /* the record's real bytes: trace header + payload (no pad) */

    /* the header, normalised */
    int64_t timestamp_raw;  /* session clock */
    int64_t timestamp;      /* FILETIME (100 ns since 1601-01-01 UTC), when has_timestamp */
    uint64_t keyword;
    union {
        struct {
            uint32_t kernel_time, user_time; /* when has_cpu_times */
        };
        uint64_t processor_time; /* EVENT_HEADER with NO_CPUTIME (then not has_cpu_times) */
    };

    /* kind-specific */
    uint64_t pebs_index;
    const uint8_t *pmc;     /* pmc_count little-endian u64 values */

    /* the header: GUIDs */
    etl_guid provider;      /* provider id, or MOF class / kernel group GUID, or WPP message GUID */
    union {
        etl_guid activity_id; /* when has_activity_id */
        struct {
            etl_guid parent_guid; /* INSTANCE */
            uint32_t instance_id, parent_instance_id; /* INSTANCE */
        };
    };

    /* where it is, the bytes and the header: 4 bytes each */
    uint32_t record_offset; /* offset of the record in the buffer (0x48 = first), decompressed */
    uint32_t trace;         /* which trace of a capture holding several (a pcapng of several .etl
                             * files' frames): set by the consumer that knows, after framing (the
                             * framer and the reader leave 0); the schemas a trace carries apply to
                             * its own records only (registry.h) */
    uint32_t size;
    uint32_t header_size;   /* bytes of the trace header, extended items excluded */
    uint32_t payload_offset;/* user data starts here (after extended items / inserted items) */
    uint32_t payload_size;
    uint32_t pid, tid;      /* ETL_NO_ID when absent */
    uint32_t sequence;
    uint32_t component_id;

    /* The library's own, not for consumers: the problem framing this record that did not stop
     * it, read with etl_record_problem() (problem: an etl_status, ETL_OK when none; its offset
     * within the record; what it was, an index in record.c's texts, 0 = the status's name). */
    struct etl_record_internal {
        uint32_t problem_offset;
        int8_t problem;
        uint8_t problem_text;
    } internal;

    /* 2 bytes each */
    uint16_t buffer_flags;
    uint16_t cpu;           /* processor that filled the buffer */
    uint16_t logger_id;
    uint16_t event_id;
    uint16_t task;
    uint16_t flags;         /* as a Windows consumer sees them: stored + synthesized bits */
    uint16_t flags_stored;  /* EVENT_HEADER flags as stored (0 for other kinds) */
    uint16_t event_property;
    uint16_t hook_id;       /* system family: (group << 8) | type */
    uint16_t message_number, message_flags; /* MESSAGE (WPP) */
    uint16_t ext_count;

    /* 1 byte each */
    uint8_t buffer_type;
    uint8_t header_type;    /* ETL_HT_*; ETL_HT_UNKNOWN when not recognised */
    uint8_t raw_header_type;/* the header-type byte as stored */
    uint8_t pointer_size;   /* 4 or 8: from the header kind, else the session's */
    bool is_logfile_header; /* SYSTEM header, hook 0x0000, first record of the first buffer */
    bool has_timestamp;
    bool has_provider;
    uint8_t version, channel, level, opcode;
    bool has_cpu_times;
    bool has_activity_id;
    uint8_t group;          /* system family: kernel group */
    bool has_pebs;
    uint8_t pmc_count;
    bool has_sequence, has_component_id;

    /* extended data items (EVENT_HEADER) */
    etl_ext_item ext[ETL_MAX_EXT_ITEMS];
} etl_record;

/* For consumers that copy a record view (etldump's batches, the pre-scan's helper): the
 * extended items in use, and whether q's n bytes lie within the record's bytes (extended items
 * and PMC counters do, from the framer; anything else must be copied on its own). */
static inline unsigned etl_record_ext_in_use(const etl_record *r)
{
    return r->ext_count < ETL_MAX_EXT_ITEMS ? r->ext_count : ETL_MAX_EXT_ITEMS;
}
static inline bool etl_record_holds(const etl_record *r, const uint8_t *q, size_t n)
{
    uintptr_t a = (uintptr_t)q, lo = (uintptr_t)r->bytes;
    return a >= lo && a - lo <= r->size && n <= r->size - (a - lo);
}
/* The bytes of a copy's view: the record view up to its last extended item in use (the unused
 * items are most of the struct), rounded up to 8 so that what follows stays aligned.  A reader
 * of such a copy must have a whole etl_record's room from the copy's start on (the copy's
 * holder leaves it after the last one). */
static inline size_t etl_record_head_size(const etl_record *r)
{
    return (offsetof(etl_record, ext) + etl_record_ext_in_use(r) * sizeof r->ext[0] + 7) & ~(size_t)7;
}

/* A problem framing the record that did not stop it (a broken extended item chain, counters
 * running past the record's end, ...): false when there is none.  Otherwise true, and, when
 * given, `out` gets it as an etl_error: its code, its text and the file offset of the damaged
 * byte (in a compressed buffer, as for every etl_error, the buffer header's offset, the message
 * then naming the byte's place in the decompressed buffer), and `in_record` the damaged byte's
 * offset within the record's bytes (for consumers that show those bytes). */
bool etl_record_problem(const etl_record *r, etl_error *out, uint32_t *in_record);
/* Whether etl_record_problem would return true, inline for the loop over every record. */
static inline bool etl_record_has_problem(const etl_record *r)
{
    return r->internal.problem != ETL_OK;
}

/* Frame one record from its bytes: the framer alone, used by the reader and by tests.
 * `data`/`avail` are the bytes from the record's start to the end of the buffer's valid data.
 * On success fills `rec` (position and buffer fields untouched, timestamp not converted) and
 * `*stride` with the aligned distance to the next record.  ETL_END means an end-of-data
 * marker; errors describe why this record cannot be framed (offset relative to `data`). */
etl_status etl_frame_record(const uint8_t *data, size_t avail, uint8_t session_pointer_size,
                            etl_record *rec, uint32_t *stride, etl_error *err);

/* The classic class GUID of a kernel group (HookId high byte); false for unknown groups. */
bool etl_kernel_group_guid(unsigned group, etl_guid *out);

/* Extended-item helpers: each returns false when the item is too short for its type. */
bool etl_ext_guid(const etl_ext_item *it, etl_guid *out);   /* RELATED_ACTIVITYID, CONTROL_GUID, CONTAINER_ID */
bool etl_ext_u32(const etl_ext_item *it, uint32_t *out);    /* TS_ID */
bool etl_ext_u64(const etl_ext_item *it, uint64_t *out);    /* PEBS_INDEX, PSM_KEY, EVENT_KEY, PROCESS_START_KEY, QPC_DELTA */
/* STACK_TRACE32/64: match id and address count; addresses read with etl_ext_stack_address. */
bool etl_ext_stack(const etl_ext_item *it, uint64_t *match_id, uint32_t *count);
uint64_t etl_ext_stack_address(const etl_ext_item *it, uint32_t index);

/* ---- the reader ------------------------------------------------------------------------- */

/* Where the bytes come from.  read_at returns 0 and sets *got (short only at end of file), or
 * a negative value on an I/O error.  The library never reads past `size`. */
typedef struct etl_io {
    int (*read_at)(void *ctx, uint64_t offset, void *buf, size_t len, size_t *got);
} etl_io;

typedef enum etl_order {
    ETL_ORDER_TIME = 0, /* timestamp order across buffers (bounded window), the default */
    ETL_ORDER_FILE = 1  /* records as stored: buffer by buffer */
} etl_order;

/* Inflated buffers kept for a second pass over the same compressed file (etldump's pre-pass
 * and decoding pass, say): a reader whose options name a cache puts every buffer it inflated
 * cleanly (no damage report) into it while the cache holds fewer than `max_bytes` bytes, and
 * takes - copies and drops - a buffer kept by another reader instead of inflating it again.
 * Bytes once kept count against max_bytes until the cache is freed, so it never holds more.
 * Records, order, positions and reports are the same with or without it.  Share one cache only
 * between readers of the same file; it is thread-safe.  Random reads (etl_reader_read_at) do
 * not use it.  NULL when out of memory. */
typedef struct etl_inflate_cache etl_inflate_cache;
etl_inflate_cache *etl_inflate_cache_new(uint64_t max_bytes);
void etl_inflate_cache_free(etl_inflate_cache *c);

typedef struct etl_options {
    etl_order order;
    uint32_t window_buffers; /* 0 = ETL_DEFAULT_WINDOW_BUFFERS */
    uint64_t window_bytes;   /* 0 = ETL_DEFAULT_WINDOW_BYTES */
    /* Loader threads that read, inflate and index buffers ahead of delivery (at most
     * ETL_MAX_READER_THREADS; each holds about four buffers more); 0 = none, everything on the
     * caller's thread.  Records, their order, positions and damage reports are the same either
     * way.  With threads the input's read_at is called from them, concurrently with the
     * caller's own reads (etl_reader_read_at): it must be thread-safe, as the file and memory
     * inputs are. */
    uint32_t threads;
    etl_inflate_cache *inflate_cache; /* NULL = none (see etl_inflate_cache_new) */
} etl_options;

#define ETL_MAX_READER_THREADS 16u

/* The CPUs the calling thread may run on: its affinity set, so that `taskset` and a
 * container's cpuset count, not the machine's cores; at least 1.  Where the set cannot be read,
 * or off Linux, the CPUs online.  What a consumer's default thread count starts from. */
unsigned etl_thread_cpus(void);

typedef struct etl_stats {
    uint64_t buffers;            /* buffers read (including damaged ones) */
    uint64_t buffers_compressed;
    uint64_t buffers_skipped;    /* damaged buffers skipped whole */
    uint64_t bytes_skipped;      /* bytes not decoded because of damage */
    uint64_t records;            /* records delivered */
    uint64_t records_damaged;    /* records delivered with a framing problem */
    uint64_t problems;           /* damage reports made */
    uint64_t order_fallbacks;    /* records delivered earlier than one already delivered,
                                    because the merge window was too small */
    uint64_t events_lost_flags;  /* buffers flagged EVENTS_LOST or BUFFER_LOST */
    uint64_t reports_pending;    /* damage reports etl_reader_next_problem would give now (0:
                                    none; a consumer can skip the call per record) */
} etl_stats;

typedef struct etl_reader etl_reader;

/* Open from an I/O callback.  `size` is the input's byte size.  ETL_ERR_NOT_ETL when the
 * input is empty or its first buffer is not a trace buffer. */
etl_status etl_reader_open_io(const etl_io *io, void *ctx, uint64_t size, const etl_options *opt,
                              etl_reader **out, etl_error *err);
/* Open a file by path (uses pread; files over 4 GiB work). */
etl_status etl_reader_open_file(const char *path, const etl_options *opt, etl_reader **out,
                                etl_error *err);
/* Open a trace held in memory; `data` must stay valid until etl_reader_close. */
etl_status etl_reader_open_memory(const uint8_t *data, size_t size, const etl_options *opt, etl_reader **out,
                                  etl_error *err);
void etl_reader_close(etl_reader *r);
/* Start the loader threads of etl_options.threads (`threads` of them, up to
 * ETL_MAX_READER_THREADS) on a reader opened without them, for a caller that learns from the
 * logfile header whether it wants them.  Only before the first etl_reader_next: false then, or
 * when they are started already or cannot start (the reader then loads on the caller's
 * thread, as without them). */
bool etl_reader_start_loaders(etl_reader *r, uint32_t threads);

/* Quick content check for "is this an .etl file?" on the first bytes of a file (at least
 * ETL_BUFFER_HEADER_SIZE + 0x20 bytes give a confident answer). */
bool etl_looks_like_etl(const uint8_t *data, size_t len);

const etl_logfile *etl_reader_logfile(const etl_reader *r);
const etl_stats *etl_reader_stats(const etl_reader *r);
/* The pointer size the reader frames MESSAGE, ERROR and unknown records with (whose headers do
 * not say): the logfile header's when it is 4, else 8.  Pass it to etl_frame_record to frame
 * a record again exactly as the reader did. */
uint8_t etl_reader_session_pointer_size(const etl_reader *r);

/* Next record.  ETL_OK with *rec filled, ETL_END at the end, or an error when reading cannot go
 * on at all (I/O failure).  Damage is not an error here: see etl_reader_next_problem. */
etl_status etl_reader_next(etl_reader *r, etl_record *rec, etl_error *err);

/* The records a pass that looks at few kinds may take, by the one number that names each of
 * the two families most of a trace is: the kernel's compact records (the system family) by
 * hook id (group << 8 | type), event-header records by event id.  A bit per id. */
typedef struct etl_id_set {
    uint64_t hooks[65536 / 64];
    uint64_t event_ids[65536 / 64];
} etl_id_set;

static inline void etl_id_set_add_hook(etl_id_set *s, uint16_t hook_id)
{
    s->hooks[hook_id >> 6] |= 1ull << (hook_id & 63);
}

static inline bool etl_id_set_has_hook(const etl_id_set *s, uint16_t hook_id)
{
    return (s->hooks[hook_id >> 6] >> (hook_id & 63)) & 1;
}

static inline void etl_id_set_add_event_id(etl_id_set *s, uint16_t event_id)
{
    s->event_ids[event_id >> 6] |= 1ull << (event_id & 63);
}

static inline bool etl_id_set_has_event_id(const etl_id_set *s, uint16_t event_id)
{
    return (s->event_ids[event_id >> 6] >> (event_id & 63)) & 1;
}

/* etl_reader_next for a reader in file order (ETL_ORDER_FILE) that may pass over, unframed,
 * the system-family records whose hook id and the event-header records whose event id is not
 * in `ids` (a pre-scan for process events reads a kernel trace ten times faster so).  It
 * delivers every other record, in the same order and framed the same; it may deliver some
 * records outside the set (each buffer's first and last), so the caller still filters what it
 * gets.  Records passed over are not framed and so not counted in etl_stats.  Damage reports
 * are the same as etl_reader_next's.  In time order, or with `ids` NULL, it is
 * etl_reader_next. */
etl_status etl_reader_next_of(etl_reader *r, const etl_id_set *ids, etl_record *rec, etl_error *err);

/* Pop the oldest queued damage report; false when none is queued.  Reports become available as
 * the records around the damage are delivered: damage found while opening (impossible buffer
 * headers, a cut tail) comes with the first record of the buffer after it, or before ETL_END. */
bool etl_reader_next_problem(etl_reader *r, etl_error *out);

/* Read the record at `position` again (from a previous etl_reader_next).  Uses its own cache
 * and does not disturb the sequential position.  The bytes and header are identical. */
etl_status etl_reader_read_at(etl_reader *r, uint64_t position, etl_record *rec, etl_error *err);

/* Replace the I/O used by etl_reader_read_at (Wireshark reads frames again through a second
 * file handle). */
void etl_reader_set_random_io(etl_reader *r, const etl_io *io, void *ctx);

/* Convert a raw session timestamp to FILETIME with the trace's clock; false if it cannot. */
bool etl_reader_convert_time(const etl_reader *r, int64_t raw, int64_t *filetime);

/* ---- LZXpress plain LZ77 (MS-XCA 2.4) --------------------------------------------------- */

/* Decompress `in` into `out` (capacity `out_cap`).  Sets *out_len to the bytes produced.
 * ETL_ERR_DECOMPRESS on a malformed stream (the bytes produced so far are kept in out and
 * *out_len), ETL_ERR_LIMIT when the output would exceed out_cap. */
etl_status etl_lzxpress_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                                   size_t *out_len, etl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ETL_H */
