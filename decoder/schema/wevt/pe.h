/* pe.h - the part of a PE (Portable Executable: .dll, .exe, .sys, .mui) the schema sources need:
 * its headers and section table, to turn an RVA into a file offset, and its resource directory,
 * to find a resource by type, name and language.
 *
 * PE32 and PE32+ are read alike (only the optional header's data-directory position differs).
 * Nothing is mapped or relocated: a resource is a span of the file's bytes.  Every read is
 * bounds-checked against the buffer; an error names the file offset and what was wrong.
 * Written by hand: no Debian-packaged library reads PE resources (libpe-dev and pefile are
 * not in Debian), and the subset needed is small.  Layout: the PE/COFF specification
 * ("Microsoft PE and COFF Specification", sections 3, 4 and 6.9). */
#ifndef ETL_WEVT_PE_H
#define ETL_WEVT_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Named limits. */
#define ETL_PE_MAX_SECTIONS 96u              /* the PE specification's own limit */
#define ETL_PE_MAX_RESOURCE_ENTRIES 4096u    /* entries of one resource directory table */
#define ETL_PE_RESOURCE_LEVELS 3u            /* type, name, language: the fixed tree depth */
#define ETL_PE_MAX_RESOURCE_NAME 64u         /* characters of a resource type or name compared */

/* Resource types by number (winuser.h RT_*). */
#define ETL_PE_RT_MESSAGETABLE 11u

/* Languages: LANG_NEUTRAL and en-US, the ones a lookup prefers. */
#define ETL_PE_LANG_NEUTRAL 0u
#define ETL_PE_LANG_EN_US 1033u

typedef struct etl_pe {
    const uint8_t *data;
    size_t size;
    bool pe32plus;            /* PE32+ (64-bit image) */
    uint16_t machine;
    uint16_t section_count;
    size_t sections_offset;   /* file offset of the section table */
    uint32_t rsrc_rva, rsrc_size; /* the resource data directory; 0 when the image has none */
    size_t rsrc_offset;       /* its file offset (valid when rsrc_rva != 0) */
    size_t rsrc_avail;        /* bytes of the resource section available from rsrc_offset */
} etl_pe;

/* One resource found: its bytes in the file. */
typedef struct etl_pe_resource {
    size_t offset;            /* file offset */
    uint32_t size;
    uint32_t language;        /* LANGID of the leaf */
} etl_pe_resource;

/* Read the headers of a PE image held in data[0, size).  ETL_ERR_NOT_ETL when it does not
 * start like a PE (no "MZ" or no "PE\0\0": not an error for a folder walk), ETL_ERR_TRUNCATED
 * or ETL_ERR_CORRUPT (with the file offset) when it starts like one but is damaged. */
etl_status etl_pe_open(etl_pe *pe, const uint8_t *data, size_t size, etl_error *err);

/* The file offset of [rva, rva+len), when one section holds all of it in its raw data. */
bool etl_pe_rva_to_offset(const etl_pe *pe, uint32_t rva, uint32_t len, size_t *offset);

/* Find the resource of a type given by name (`type_name`, compared case-insensitively, e.g.
 * "WEVT_TEMPLATE") or, when type_name is NULL, by number (`type_id`).  The first name (or
 * number) entry under the type is taken, and under it the language en-US, else neutral, else
 * the first.  ETL_OK with *out set; ETL_ERR_NOT_FOUND when the image has no such resource;
 * else the damage found, with its file offset (a directory loop, an entry past the end, an
 * absurd entry count, data outside the file). */
etl_status etl_pe_find_resource(const etl_pe *pe, const char *type_name, uint32_t type_id, etl_pe_resource *out,
                                etl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ETL_WEVT_PE_H */
