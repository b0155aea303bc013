/* tmf.h - WPP trace message format files (TMF, `tracepdb` output) read into a plain model: per
 * message GUID its component, and per (message GUID, message number) the format string, the
 * LEVEL/FLAGS/FUNC tags and the arguments' Item types.  Format: etw-formats.md 9.3, docs/wpp.md.
 *
 * The front end of the WPP schema source: tmf_schema.c compiles a message's arguments into the
 * decoder's schema programs (schema.h), the same ones every other source becomes, and
 * wpp_format.c (decode/) renders the format string.
 *
 * What a TMF holds, line by line (tracepdb writes nothing else in the files we have):
 *   // ...                                     comments (the PDB's name and date)
 *   <GUID> <component> // SRC=<file> MJ= MN=   starts a message GUID's section
 *   #typev <name> <number> "<format>" // LEVEL=<l> FLAGS=<f> FUNC=<fn> ...
 *   {                                          the message's arguments, one per line:
 *   <expression>, <ItemType>[(<a>,<b>,...)] -- <argument number>
 *   }
 * A file may hold several GUID sections.  Anything else is an error naming file and line; the
 * file is then not used (the others still load).  Lines are read as bytes (TMFs are ASCII); a
 * UTF-8 byte-order mark is skipped.
 *
 * Not thread-safe; built on GLib's containers (allocation aborts when memory runs out, as in
 * the manifest loader). */
#ifndef ETL_TMF_H
#define ETL_TMF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Named limits: input past them is refused with an error naming the file and line. */
#define ETL_TMF_MAX_FILE_SIZE (16u * 1024u * 1024u)
#define ETL_TMF_MAX_LINE (64u * 1024u)
#define ETL_TMF_MAX_ITEMS 128u      /* arguments of one message (WPP allows %10..%99 ~ 90) */
#define ETL_TMF_MAX_LIST 256u       /* names of one ItemList/ItemSet */
#define ETL_TMF_MAX_MESSAGES 65536u /* messages of one file */

/* What an argument's bytes are, from its Item type. */
typedef enum etl_tmf_kind {
    ETL_TMF_UNKNOWN = 0, /* an Item type this reader does not know: decoding stops there */
    ETL_TMF_INT8, ETL_TMF_UINT8, ETL_TMF_INT16, ETL_TMF_UINT16, ETL_TMF_INT32, ETL_TMF_UINT32,
    ETL_TMF_INT64, ETL_TMF_UINT64,
    ETL_TMF_HEX32, ETL_TMF_HEX64,     /* ItemULongX, ItemLongLongX/XX, ItemULongLongX */
    ETL_TMF_POINTER,                  /* ItemPtr: the record's pointer size */
    ETL_TMF_DOUBLE,
    ETL_TMF_GUID,
    ETL_TMF_NTSTATUS, ETL_TMF_WINERROR, ETL_TMF_HRESULT,
    ETL_TMF_STRING,                   /* NUL-terminated 8-bit */
    ETL_TMF_WSTRING,                  /* NUL-terminated UTF-16LE */
    ETL_TMF_PSTRING,                  /* u16 byte count + 8-bit (ANSI_STRING) */
    ETL_TMF_PWSTRING,                 /* u16 byte count + UTF-16LE (UNICODE_STRING) */
    ETL_TMF_SID,
    ETL_TMF_HEXDUMP,                  /* u16 byte count + bytes */
    ETL_TMF_IPV4,                     /* u32 in network order */
    ETL_TMF_IPV6,                     /* 16 bytes */
    ETL_TMF_PORT,                     /* u16 in network order */
    ETL_TMF_TIMESTAMP,                /* FILETIME */
    ETL_TMF_LIST8, ETL_TMF_LIST16, ETL_TMF_LIST32, /* ItemList*(a,b,...): value i is name i */
    ETL_TMF_SET8, ETL_TMF_SET16, ETL_TMF_SET32,    /* ItemSet*(a,b,...): bit i is name i */
    ETL_TMF_ENUM                      /* ItemEnum(name): u32, named by nothing we read */
} etl_tmf_kind;

typedef struct etl_tmf_item {
    const char *expr;      /* the C expression traced ("status", "ConnectParams->BtAddress") */
    const char *type;      /* the Item type as written, list included ("ItemListByte(Low,APC,DPC)") */
    etl_tmf_kind kind;
    uint16_t argno;        /* the %N of the format string (10, 11, ...) */
    const char **list;     /* ItemList/ItemSet names, in order */
    uint16_t list_count;
} etl_tmf_item;

typedef struct etl_tmf_guid etl_tmf_guid;

typedef struct etl_tmf_message {
    etl_guid guid;
    uint16_t number;
    const etl_tmf_guid *section; /* the GUID section it is in */
    const char *type_name;       /* "L2CAP_c141": source file with '.' as '_', then the line */
    uint32_t source_line;        /* the digits ending type_name, 0 when none */
    const char *format;          /* the format string, quotes removed */
    const char *level, *flags, *func; /* LEVEL=, FLAGS=, FUNC= (NULL when absent) */
    uint32_t tmf_line;           /* the #typev line in its file */
    const etl_tmf_item *items;
    uint16_t item_count;
    /* the compiled schemas (tmf_schema.c), per pointer size: [0] 4, [1] 8; NULL until asked */
    const void *compiled[2];
} etl_tmf_message;

struct etl_tmf_guid {
    etl_guid guid;
    const char *component;       /* "BthPS3" */
    const char *src;             /* SRC= ("L2CAP.c"), NULL when absent */
    const char *origin;          /* the file it came from */
    uint32_t messages;           /* messages defined for it */
};

/* The TMFs loaded: every GUID section and message, from files given one by one or by folder. */
typedef struct etl_tmf_store etl_tmf_store;

/* Where problems go: one complete sentence each ("file:line: reason"); warning is false for
 * errors (the file is not used), true for warnings (the file is used). */
typedef void (*etl_tmf_report_fn)(void *ctx, bool warning, const char *message);

etl_tmf_store *etl_tmf_store_new(etl_tmf_report_fn report, void *ctx);
void etl_tmf_store_free(etl_tmf_store *s);

/* Parse one TMF's text; `origin` names it in messages.  ETL_OK (warnings reported), or the
 * first error (in err: "origin:line: reason", offset = the line's byte offset), the store then
 * unchanged.  A message (GUID, number) already defined by an earlier file keeps the earlier
 * definition (a warning when the two differ). */
etl_status etl_tmf_add_text(etl_tmf_store *s, const char *text, size_t len, const char *origin, etl_error *err);
/* One TMF file. */
etl_status etl_tmf_add_file(etl_tmf_store *s, const char *path, etl_error *err);
/* A search path: entries separated by G_SEARCHPATH_SEPARATOR, each a TMF file or a folder whose
 * *.tmf files are read in name order.  Every failure is reported; ETL_OK when all loaded, else
 * the code of the first failure. */
etl_status etl_tmf_add_path(etl_tmf_store *s, const char *path_list);

/* The message (GUID, number), or NULL. */
etl_tmf_message *etl_tmf_find(const etl_tmf_store *s, const etl_guid *guid, uint16_t number);
/* The GUID's section (component), or NULL. */
const etl_tmf_guid *etl_tmf_find_guid(const etl_tmf_store *s, const etl_guid *guid);
/* Every message, in load order. */
typedef void (*etl_tmf_message_fn)(void *ctx, etl_tmf_message *m);
void etl_tmf_foreach(const etl_tmf_store *s, etl_tmf_message_fn fn, void *ctx);

typedef struct etl_tmf_stats {
    uint32_t files_loaded, files_failed, warnings;
    uint32_t guids, messages;
} etl_tmf_stats;
const etl_tmf_stats *etl_tmf_get_stats(const etl_tmf_store *s);

/* The kind of an Item type name (without its list); ETL_TMF_UNKNOWN when not known. */
etl_tmf_kind etl_tmf_kind_of(const char *type, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* ETL_TMF_H */
