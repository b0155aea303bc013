/* layout.h - the on-disk layouts the reader relies on, named: buffer header, record markers,
 * every trace header kind, extended data items and the logfile header.
 *
 * Names are the Windows structure's name and the field's, `<STRUCT>_OFF_<FIELD>` for a byte
 * offset from the start of the structure and `<STRUCT>_SIZE` for its fixed size, so a read in
 * the code says what it reads.  All values little-endian.  The tables these come from, with
 * their sources, are in ../shared/docs/etw-formats.md (sections named per group below). */
#ifndef ETL_LAYOUT_H
#define ETL_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "etl.h"

/* ---- WMI_BUFFER_HEADER (etw-formats.md 1.1): 0x48 bytes, ETL_BUFFER_HEADER_SIZE ----------- */

enum {
    WMI_BUFFER_HEADER_OFF_BUFFER_SIZE = 0x00,  /* u32 bytes on disk, header included */
    WMI_BUFFER_HEADER_OFF_SAVED_OFFSET = 0x04, /* u32 valid bytes, header included */
    WMI_BUFFER_HEADER_OFF_TIMESTAMP = 0x10,    /* i64 flush time, session clock */
    WMI_BUFFER_HEADER_OFF_SEQUENCE = 0x18,     /* i64 */
    WMI_BUFFER_HEADER_OFF_PROCESSOR = 0x28,    /* u8 ProcessorNumber, or u16 ProcessorIndex */
    WMI_BUFFER_HEADER_OFF_LOGGER_ID = 0x2A,    /* u16 */
    WMI_BUFFER_HEADER_OFF_STATE = 0x2C,        /* u32 ETW_BUFFER_STATE */
    WMI_BUFFER_HEADER_OFF_FILLED = 0x30,       /* u32 "Offset" / FilledBytes: valid end */
    WMI_BUFFER_HEADER_OFF_FLAGS = 0x34,        /* u16 BufferFlag (ETL_BF_*) */
    WMI_BUFFER_HEADER_OFF_TYPE = 0x36          /* u16 BufferType */
};
/* ProcessorIndex (BufferFlag PROC_INDEX) keeps the processor in its low 11 bits. */
#define WMI_BUFFER_PROCESSOR_INDEX_MASK 0x07FFu
/* BufferFlag bits past ETL_BF_COMPRESSED are undefined. */
#define WMI_BUFFER_FLAGS_UNDEFINED 0xFF80u
/* Highest BufferType (7 DBG_INFO) and ETW_BUFFER_STATE (3 Flush). */
#define WMI_BUFFER_TYPE_MAX 7u
#define WMI_BUFFER_STATE_MAX 3u
/* EVENT_TRACE_FILE_MODE: the session wrote compressed buffers. */
#define EVENT_TRACE_COMPRESSED_MODE 0x04000000u

/* ---- the marker dword that starts every record (etw-formats.md 2.1) ------------------------ */

/* The marker dword itself. */
#define ETL_MARKER_SIZE 4u
/* Every typed header but PERFINFO keeps its i64 timestamp here (SYSTEM, COMPACT, FULL,
 * INSTANCE, EVENT_HEADER): the *_OFF_SYSTEM_TIME / *_OFF_TIMESTAMP below. */
#define ETL_TRACE_HEADER_OFF_TIMESTAMP 0x10u
/* 0xFFFFFFFF: the 0xFF slack after a buffer's last record. */
#define TRACE_MARKER_END 0xFFFFFFFFu
/* The marker's top byte: TRACE_HEADER_FLAG (0x80) on every trace header; with
 * TRACE_HEADER_EVENT_TRACE (0x40) the typed headers, whose next byte is the header type;
 * 0x9x the MESSAGE (WPP) header. */
#define TRACE_HEADER_FLAG 0x80u
#define TRACE_HEADER_TYPED 0xC0u
#define TRACE_HEADER_MESSAGE 0x90u
#define TRACE_HEADER_MESSAGE_MASK 0xF0u

static inline unsigned etl_marker_flags(uint32_t marker)
{
    return marker >> 24;
}
static inline unsigned etl_marker_header_type(uint32_t marker)
{
    return (marker >> 16) & 0xFFu;
}
/* Every kind but the system family (SYSTEM, COMPACT, PERFINFO: SYSTEM_TRACE_HEADER_OFF_SIZE)
 * keeps its record size in the marker's low word. */
static inline uint32_t etl_marker_size(uint32_t marker)
{
    return marker & 0xFFFFu;
}
static inline bool etl_marker_is_typed(uint32_t marker)
{
    return (etl_marker_flags(marker) & TRACE_HEADER_TYPED) == TRACE_HEADER_TYPED;
}
static inline bool etl_marker_is_message(uint32_t marker)
{
    return (etl_marker_flags(marker) & TRACE_HEADER_MESSAGE_MASK) == TRACE_HEADER_MESSAGE;
}

/* ---- SYSTEM_TRACE_HEADER, its compact form, PERFINFO_TRACE_HEADER (2.2, 2.3) --------------- */

enum {
    SYSTEM_TRACE_HEADER_OFF_VERSION = 0x00,     /* u16 class version + PEBS/PMC flags */
    SYSTEM_TRACE_HEADER_OFF_SIZE = 0x04,        /* u16 record bytes */
    SYSTEM_TRACE_HEADER_OFF_HOOK_ID = 0x06,     /* u16 (group << 8) | type */
    SYSTEM_TRACE_HEADER_OFF_THREAD_ID = 0x08,   /* u32 */
    SYSTEM_TRACE_HEADER_OFF_PROCESS_ID = 0x0C,  /* u32 */
    SYSTEM_TRACE_HEADER_OFF_SYSTEM_TIME = 0x10, /* i64 timestamp, session clock */
    SYSTEM_TRACE_HEADER_OFF_KERNEL_TIME = 0x18, /* u32, not in the compact form */
    SYSTEM_TRACE_HEADER_OFF_USER_TIME = 0x1C,   /* u32, not in the compact form */
    SYSTEM_TRACE_HEADER_SIZE = 0x20,
    SYSTEM_TRACE_HEADER_COMPACT_SIZE = 0x18,
    PERFINFO_TRACE_HEADER_OFF_SYSTEM_TIME = 0x08, /* i64: no thread or process id */
    PERFINFO_TRACE_HEADER_SIZE = 0x10
};
/* The version word's flags: an inserted u64 PEBS index, and the number of inserted u64 PMC
 * counters. */
#define TRACE_HEADER_PEBS_INDEX_FLAG 0x8000u
#define TRACE_HEADER_PMC_COUNTERS_MASK 0x0700u
#define TRACE_HEADER_PMC_COUNTERS_SHIFT 8u
#define TRACE_HEADER_PEBS_INDEX_SIZE 8u
#define TRACE_HEADER_PMC_COUNTER_SIZE 8u

/* ---- EVENT_TRACE_HEADER ("full", 2.4) and EVENT_INSTANCE_GUID_HEADER (2.5) ----------------- */

enum {
    EVENT_TRACE_HEADER_OFF_TYPE = 0x04,        /* u8 Class.Type (opcode) */
    EVENT_TRACE_HEADER_OFF_LEVEL = 0x05,       /* u8 Class.Level */
    EVENT_TRACE_HEADER_OFF_VERSION = 0x06,     /* u16 Class.Version */
    EVENT_TRACE_HEADER_OFF_THREAD_ID = 0x08,   /* u32 */
    EVENT_TRACE_HEADER_OFF_PROCESS_ID = 0x0C,  /* u32 */
    EVENT_TRACE_HEADER_OFF_TIMESTAMP = 0x10,   /* i64 */
    EVENT_TRACE_HEADER_OFF_GUID = 0x18,        /* GUID of the MOF event class */
    EVENT_TRACE_HEADER_OFF_KERNEL_TIME = 0x28, /* u32 */
    EVENT_TRACE_HEADER_OFF_USER_TIME = 0x2C,   /* u32 */
    EVENT_TRACE_HEADER_SIZE = 0x30,
    EVENT_INSTANCE_GUID_HEADER_OFF_INSTANCE_ID = 0x30,        /* u32 */
    EVENT_INSTANCE_GUID_HEADER_OFF_PARENT_INSTANCE_ID = 0x34, /* u32 */
    EVENT_INSTANCE_GUID_HEADER_OFF_PARENT_GUID = 0x38,        /* GUID */
    EVENT_INSTANCE_GUID_HEADER_SIZE = 0x48
};

/* ---- EVENT_HEADER (3.1) and its extended data items (3.3) ---------------------------------- */

enum {
    EVENT_HEADER_OFF_FLAGS = 0x04,          /* u16 (ETL_EHF_*) */
    EVENT_HEADER_OFF_EVENT_PROPERTY = 0x06, /* u16 */
    EVENT_HEADER_OFF_THREAD_ID = 0x08,      /* u32 */
    EVENT_HEADER_OFF_PROCESS_ID = 0x0C,     /* u32 */
    EVENT_HEADER_OFF_TIMESTAMP = 0x10,      /* i64, session clock */
    EVENT_HEADER_OFF_PROVIDER_ID = 0x18,    /* GUID */
    EVENT_HEADER_OFF_ID = 0x28,             /* u16 EventDescriptor.Id */
    EVENT_HEADER_OFF_VERSION = 0x2A,        /* u8 */
    EVENT_HEADER_OFF_CHANNEL = 0x2B,        /* u8 */
    EVENT_HEADER_OFF_LEVEL = 0x2C,          /* u8 */
    EVENT_HEADER_OFF_OPCODE = 0x2D,         /* u8 */
    EVENT_HEADER_OFF_TASK = 0x2E,           /* u16 */
    EVENT_HEADER_OFF_KEYWORD = 0x30,        /* u64 */
    EVENT_HEADER_OFF_KERNEL_TIME = 0x38,    /* u32, or a u64 ProcessorTime with NO_CPUTIME */
    EVENT_HEADER_OFF_USER_TIME = 0x3C,      /* u32 */
    EVENT_HEADER_OFF_ACTIVITY_ID = 0x40,    /* GUID */
    EVENT_HEADER_SIZE = 0x50
};

/* A stored extended data item: u16 total size (8-aligned, this header included), u16 type,
 * u16 linkage (bit 0: another item follows), u16 data size, then the data inline. */
enum {
    EVENT_EXTENDED_ITEM_OFF_TOTAL_SIZE = 0x00,
    EVENT_EXTENDED_ITEM_OFF_TYPE = 0x02,
    EVENT_EXTENDED_ITEM_OFF_LINKAGE = 0x04,
    EVENT_EXTENDED_ITEM_OFF_DATA_SIZE = 0x06,
    EVENT_EXTENDED_ITEM_HEADER_SIZE = 0x08
};
#define EVENT_EXTENDED_ITEM_LINKAGE_MORE 0x0001u
/* STACK_TRACE32/64 item data: u64 MatchId, then the frame addresses. */
#define EVENT_EXTENDED_ITEM_STACK_OFF_FRAMES 8u

/* ---- MESSAGE_TRACE_HEADER (WPP, 2.7) ------------------------------------------------------- */

enum {
    MESSAGE_TRACE_HEADER_OFF_MESSAGE_NUMBER = 0x04, /* u16 */
    MESSAGE_TRACE_HEADER_OFF_OPTION_FLAGS = 0x06,   /* u16 TRACE_MESSAGE_* */
    MESSAGE_TRACE_HEADER_SIZE = 0x08                /* the optional items follow, in flag order */
};
enum {
    TRACE_MESSAGE_SEQUENCE = 0x0001,    /* u32 sequence number */
    TRACE_MESSAGE_GUID = 0x0002,        /* 16-byte message GUID */
    TRACE_MESSAGE_COMPONENTID = 0x0004, /* u32 component id, in the GUID's place when both are set */
    TRACE_MESSAGE_TIMESTAMP = 0x0008,   /* i64 timestamp */
    TRACE_MESSAGE_SYSTEMINFO = 0x0020,  /* u32 thread id, u32 process id */
    TRACE_MESSAGE_POINTER32 = 0x0040,   /* the provider is 32-bit: its pointer arguments are 4 bytes */
    TRACE_MESSAGE_POINTER64 = 0x0080    /* the provider is 64-bit */
};
enum {
    TRACE_MESSAGE_SEQUENCE_SIZE = 4,
    TRACE_MESSAGE_GUID_SIZE = 16,
    TRACE_MESSAGE_COMPONENTID_SIZE = 4,
    TRACE_MESSAGE_TIMESTAMP_SIZE = 8,
    TRACE_MESSAGE_SYSTEMINFO_SIZE = 8
};

/* ---- TRACE_LOGFILE_HEADER (1.2): the payload of the first record --------------------------- */

/* Offsets of the 32-bit form; the 64-bit form's two pointer slots (LoggerName, LogFileName)
 * are 8 bytes each, which moves everything from TimeZone on by
 * TRACE_LOGFILE_HEADER_POINTER_SHIFT bytes. */
enum {
    TRACE_LOGFILE_HEADER_OFF_BUFFER_SIZE = 0x00,      /* u32 */
    TRACE_LOGFILE_HEADER_OFF_VERSION = 0x04,          /* u8 x4: major, minor, sub, subminor */
    TRACE_LOGFILE_HEADER_OFF_PROVIDER_VERSION = 0x08, /* u32 OS build */
    TRACE_LOGFILE_HEADER_OFF_PROCESSORS = 0x0C,       /* u32 */
    TRACE_LOGFILE_HEADER_OFF_END_TIME = 0x10,         /* i64 FILETIME */
    TRACE_LOGFILE_HEADER_OFF_TIMER_RESOLUTION = 0x18, /* u32 */
    TRACE_LOGFILE_HEADER_OFF_MAX_FILE_SIZE = 0x1C,    /* u32 MB */
    TRACE_LOGFILE_HEADER_OFF_LOG_FILE_MODE = 0x20,    /* u32 */
    TRACE_LOGFILE_HEADER_OFF_BUFFERS_WRITTEN = 0x24,  /* u32 */
    TRACE_LOGFILE_HEADER_OFF_START_BUFFERS = 0x28,    /* u32 */
    TRACE_LOGFILE_HEADER_OFF_POINTER_SIZE = 0x2C,     /* u32 */
    TRACE_LOGFILE_HEADER_OFF_EVENTS_LOST = 0x30,      /* u32 */
    TRACE_LOGFILE_HEADER_OFF_CPU_SPEED = 0x34,        /* u32 MHz */
    /* 0x38 LoggerName, 0x3C LogFileName: pointers, meaningless in a file */
    TRACE_LOGFILE_HEADER_OFF_TIME_ZONE = 0x40,        /* TIME_ZONE_INFORMATION */
    TRACE_LOGFILE_HEADER_OFF_BOOT_TIME = 0xF0,        /* i64 FILETIME */
    TRACE_LOGFILE_HEADER_OFF_PERF_FREQ = 0xF8,        /* i64 QPC frequency */
    TRACE_LOGFILE_HEADER_OFF_START_TIME = 0x100,      /* i64 FILETIME */
    TRACE_LOGFILE_HEADER_OFF_RESERVED_FLAGS = 0x108,  /* u32 clock type */
    TRACE_LOGFILE_HEADER_OFF_BUFFERS_LOST = 0x10C,    /* u32 */
    TRACE_LOGFILE_HEADER_SIZE = 0x110,                /* then the logger and file names */
    TRACE_LOGFILE_HEADER_POINTER_SHIFT = 0x08
};
/* TIME_ZONE_INFORMATION: i32 Bias, u16 StandardName[32], SYSTEMTIME, i32, u16 DaylightName[32]. */
enum {
    TIME_ZONE_INFORMATION_OFF_BIAS = 0x00,
    TIME_ZONE_INFORMATION_OFF_STANDARD_NAME = 0x04,
    TIME_ZONE_INFORMATION_OFF_DAYLIGHT_NAME = 0x58,
    TIME_ZONE_INFORMATION_NAME_BYTES = 64
};

#endif /* ETL_LAYOUT_H */
