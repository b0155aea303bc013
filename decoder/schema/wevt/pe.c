/* pe.c - PE headers, sections and the resource directory (pe.h). */
#include "pe.h"

#include <glib.h>
#include <string.h>

#include "bytes.h"
#include "error.h"

/* IMAGE_DOS_HEADER, IMAGE_NT_HEADERS (PE/COFF specification 3, 4) */
enum {
    IMAGE_DOS_HEADER_OFF_MAGIC = 0x00,   /* "MZ" */
    IMAGE_DOS_HEADER_OFF_LFANEW = 0x3C,  /* u32 file offset of the NT headers */
    IMAGE_DOS_HEADER_SIZE = 0x40,
    IMAGE_NT_OFF_SIGNATURE = 0,          /* "PE\0\0" */
    IMAGE_NT_OFF_FILE_HEADER = 4,
    IMAGE_FILE_HEADER_OFF_MACHINE = 0,
    IMAGE_FILE_HEADER_OFF_SECTIONS = 2,  /* u16 NumberOfSections */
    IMAGE_FILE_HEADER_OFF_OPT_SIZE = 16, /* u16 SizeOfOptionalHeader */
    IMAGE_FILE_HEADER_SIZE = 20,
    IMAGE_NT_OFF_OPTIONAL_HEADER = 24,
    IMAGE_OPTIONAL_HEADER_OFF_MAGIC = 0,
    IMAGE_OPTIONAL_HEADER32_OFF_RVA_COUNT = 92,  /* u32 NumberOfRvaAndSizes */
    IMAGE_OPTIONAL_HEADER32_OFF_DIRECTORIES = 96,
    IMAGE_OPTIONAL_HEADER64_OFF_RVA_COUNT = 108,
    IMAGE_OPTIONAL_HEADER64_OFF_DIRECTORIES = 112,
    IMAGE_DATA_DIRECTORY_SIZE = 8,       /* u32 VirtualAddress, u32 Size */
    IMAGE_DIRECTORY_ENTRY_RESOURCE = 2,
    IMAGE_SECTION_HEADER_OFF_VIRTUAL_SIZE = 8,
    IMAGE_SECTION_HEADER_OFF_VIRTUAL_ADDRESS = 12,
    IMAGE_SECTION_HEADER_OFF_RAW_SIZE = 16,
    IMAGE_SECTION_HEADER_OFF_RAW_POINTER = 20,
    IMAGE_SECTION_HEADER_SIZE = 40
};
#define IMAGE_NT_OPTIONAL_HDR32_MAGIC 0x10Bu
#define IMAGE_NT_OPTIONAL_HDR64_MAGIC 0x20Bu

/* IMAGE_RESOURCE_DIRECTORY, its entries, IMAGE_RESOURCE_DATA_ENTRY (specification 6.9); the
 * offsets inside count from the start of the resource directory */
enum {
    IMAGE_RESOURCE_DIRECTORY_OFF_NAMED = 12, /* u16 NumberOfNamedEntries */
    IMAGE_RESOURCE_DIRECTORY_OFF_IDS = 14,   /* u16 NumberOfIdEntries */
    IMAGE_RESOURCE_DIRECTORY_SIZE = 16,
    IMAGE_RESOURCE_ENTRY_OFF_NAME = 0,       /* u32: bit 31 set: offset of a counted UTF-16 name */
    IMAGE_RESOURCE_ENTRY_OFF_DATA = 4,       /* u32: bit 31 set: offset of a subdirectory */
    IMAGE_RESOURCE_ENTRY_SIZE = 8,
    IMAGE_RESOURCE_DATA_ENTRY_OFF_RVA = 0,
    IMAGE_RESOURCE_DATA_ENTRY_OFF_SIZE = 4,
    IMAGE_RESOURCE_DATA_ENTRY_SIZE = 16
};
#define IMAGE_RESOURCE_HIGH_BIT 0x80000000u

etl_status etl_pe_open(etl_pe *pe, const uint8_t *d, size_t n, etl_error *err)
{
    memset(pe, 0, sizeof *pe);
    pe->data = d;
    pe->size = n;
    uint32_t lfanew;
    if (n < IMAGE_DOS_HEADER_SIZE || d[0] != 'M' || d[1] != 'Z')
        return etl_fail(err, ETL_ERR_NOT_ETL, 0, "not a PE file (no MZ header)");
    lfanew = etl_ld32(d + IMAGE_DOS_HEADER_OFF_LFANEW);
    if (!etl_span_ok(n, lfanew, IMAGE_NT_OFF_OPTIONAL_HEADER))
        return etl_fail(err, ETL_ERR_TRUNCATED, IMAGE_DOS_HEADER_OFF_LFANEW,
                        "PE header offset 0x%x is past the end of the %zu-byte file", lfanew, n);
    if (memcmp(d + lfanew + IMAGE_NT_OFF_SIGNATURE, "PE\0\0", 4) != 0)
        return etl_fail(err, ETL_ERR_NOT_ETL, lfanew, "not a PE file (no PE signature at 0x%x)", lfanew);
    const size_t fh = (size_t)lfanew + IMAGE_NT_OFF_FILE_HEADER;
    pe->machine = etl_ld16(d + fh + IMAGE_FILE_HEADER_OFF_MACHINE);
    pe->section_count = etl_ld16(d + fh + IMAGE_FILE_HEADER_OFF_SECTIONS);
    uint16_t opt_size = etl_ld16(d + fh + IMAGE_FILE_HEADER_OFF_OPT_SIZE);
    const size_t opt = (size_t)lfanew + IMAGE_NT_OFF_OPTIONAL_HEADER;
    if (pe->section_count > ETL_PE_MAX_SECTIONS)
        return etl_fail(err, ETL_ERR_LIMIT, fh + IMAGE_FILE_HEADER_OFF_SECTIONS,
                        "%u sections: more than a PE may have (%u)", pe->section_count, ETL_PE_MAX_SECTIONS);
    if (!etl_span_ok(n, opt, opt_size) || opt_size < 2)
        return etl_fail(err, ETL_ERR_TRUNCATED, opt, "PE optional header of %u bytes runs past the end of the file",
                        opt_size);
    uint16_t magic = etl_ld16(d + opt + IMAGE_OPTIONAL_HEADER_OFF_MAGIC);
    if (magic != IMAGE_NT_OPTIONAL_HDR32_MAGIC && magic != IMAGE_NT_OPTIONAL_HDR64_MAGIC)
        return etl_fail(err, ETL_ERR_CORRUPT, opt, "PE optional header magic 0x%x is neither PE32 nor PE32+", magic);
    pe->pe32plus = magic == IMAGE_NT_OPTIONAL_HDR64_MAGIC;
    size_t count_off = pe->pe32plus ? IMAGE_OPTIONAL_HEADER64_OFF_RVA_COUNT : IMAGE_OPTIONAL_HEADER32_OFF_RVA_COUNT;
    size_t dirs_off = pe->pe32plus ? IMAGE_OPTIONAL_HEADER64_OFF_DIRECTORIES : IMAGE_OPTIONAL_HEADER32_OFF_DIRECTORIES;
    pe->sections_offset = opt + opt_size;
    if (!etl_span_ok(n, pe->sections_offset, (size_t)pe->section_count * IMAGE_SECTION_HEADER_SIZE))
        return etl_fail(err, ETL_ERR_TRUNCATED, pe->sections_offset,
                        "PE section table (%u sections) runs past the end of the file", pe->section_count);
    /* the resource directory, when the optional header is long enough to list it */
    const size_t rdir = dirs_off + (size_t)IMAGE_DIRECTORY_ENTRY_RESOURCE * IMAGE_DATA_DIRECTORY_SIZE;
    if (opt_size < count_off + 4 || opt_size < rdir + IMAGE_DATA_DIRECTORY_SIZE ||
        etl_ld32(d + opt + count_off) <= IMAGE_DIRECTORY_ENTRY_RESOURCE)
        return ETL_OK;
    pe->rsrc_rva = etl_ld32(d + opt + rdir);
    pe->rsrc_size = etl_ld32(d + opt + rdir + 4);
    if (!pe->rsrc_rva)
        return ETL_OK;
    /* the bytes of the section holding the directory, from the directory on */
    for (uint16_t i = 0; i < pe->section_count; i++) {
        const uint8_t *s = d + pe->sections_offset + (size_t)i * IMAGE_SECTION_HEADER_SIZE;
        uint32_t va = etl_ld32(s + IMAGE_SECTION_HEADER_OFF_VIRTUAL_ADDRESS);
        uint32_t raw = etl_ld32(s + IMAGE_SECTION_HEADER_OFF_RAW_SIZE);
        uint32_t ptr = etl_ld32(s + IMAGE_SECTION_HEADER_OFF_RAW_POINTER);
        if (pe->rsrc_rva < va || pe->rsrc_rva - va >= raw)
            continue;
        size_t start = (size_t)ptr + (pe->rsrc_rva - va);
        if (start >= n)
            return etl_fail(err, ETL_ERR_TRUNCATED, pe->sections_offset + (size_t)i * IMAGE_SECTION_HEADER_SIZE,
                            "resource section data at 0x%zx is past the end of the %zu-byte file", start, n);
        size_t end = (size_t)ptr + raw;
        if (end > n)
            end = n; /* a truncated file: what is there is read, and the walk checks every span */
        pe->rsrc_offset = start;
        pe->rsrc_avail = end - start;
        return ETL_OK;
    }
    return etl_fail(err, ETL_ERR_CORRUPT, opt + rdir, "resource directory RVA 0x%x is in no section", pe->rsrc_rva);
}

bool etl_pe_rva_to_offset(const etl_pe *pe, uint32_t rva, uint32_t len, size_t *offset)
{
    for (uint16_t i = 0; i < pe->section_count; i++) {
        const uint8_t *s = pe->data + pe->sections_offset + (size_t)i * IMAGE_SECTION_HEADER_SIZE;
        uint32_t va = etl_ld32(s + IMAGE_SECTION_HEADER_OFF_VIRTUAL_ADDRESS);
        uint32_t raw = etl_ld32(s + IMAGE_SECTION_HEADER_OFF_RAW_SIZE);
        uint32_t ptr = etl_ld32(s + IMAGE_SECTION_HEADER_OFF_RAW_POINTER);
        if (rva < va || rva - va >= raw)
            continue;
        if (!etl_span_ok(raw, rva - va, len))
            return false;
        size_t off = (size_t)ptr + (rva - va);
        if (!etl_span_ok(pe->size, off, len))
            return false;
        *offset = off;
        return true;
    }
    return false;
}

/* ---- the resource tree ---------------------------------------------------------------------- */

typedef struct rsrc {
    const etl_pe *pe;
    const uint8_t *base; /* the directory's first byte */
    size_t avail;
} rsrc;

/* Does the entry's name (bit 31 set: a counted UTF-16 string) equal `want` (ASCII, any case)? */
static bool name_is(const rsrc *r, uint32_t name, const char *want)
{
    if (!(name & IMAGE_RESOURCE_HIGH_BIT))
        return false;
    size_t off = name & ~IMAGE_RESOURCE_HIGH_BIT;
    uint16_t len;
    if (!etl_u16_at(r->base, r->avail, off, &len) || len > ETL_PE_MAX_RESOURCE_NAME || len != strlen(want) ||
        !etl_span_ok(r->avail, off + 2, (size_t)len * 2))
        return false;
    for (uint16_t i = 0; i < len; i++) {
        uint16_t ch = etl_ld16(r->base + off + 2 + (size_t)i * 2);
        char w = want[i];
        if (ch > 0x7F || g_ascii_tolower((char)ch) != g_ascii_tolower(w))
            return false;
    }
    return true;
}

/* The entries of the directory table at `dir` (checked): their first byte and count. */
static etl_status dir_entries(const rsrc *r, uint32_t dir, size_t *first, uint32_t *count, etl_error *err)
{
    size_t at = r->pe->rsrc_offset + dir;
    if (!etl_span_ok(r->avail, dir, IMAGE_RESOURCE_DIRECTORY_SIZE))
        return etl_fail(err, ETL_ERR_TRUNCATED, at, "resource directory at 0x%zx runs past the end of the file", at);
    uint32_t n = (uint32_t)etl_ld16(r->base + dir + IMAGE_RESOURCE_DIRECTORY_OFF_NAMED) +
                 etl_ld16(r->base + dir + IMAGE_RESOURCE_DIRECTORY_OFF_IDS);
    if (n > ETL_PE_MAX_RESOURCE_ENTRIES)
        return etl_fail(err, ETL_ERR_LIMIT, at, "resource directory at 0x%zx claims %u entries (at most %u are read)", at,
                        n, ETL_PE_MAX_RESOURCE_ENTRIES);
    if (!etl_span_ok(r->avail, (size_t)dir + IMAGE_RESOURCE_DIRECTORY_SIZE, (size_t)n * IMAGE_RESOURCE_ENTRY_SIZE))
        return etl_fail(err, ETL_ERR_TRUNCATED, at, "resource directory at 0x%zx: its %u entries run past the end", at, n);
    *first = (size_t)dir + IMAGE_RESOURCE_DIRECTORY_SIZE;
    *count = n;
    return ETL_OK;
}

/* The subdirectory an entry points to, checked against the path from the root (a loop) and
 * the tree's fixed depth. */
static etl_status subdir(const rsrc *r, size_t entry, const uint32_t *path, unsigned depth, uint32_t *out,
                         etl_error *err)
{
    uint32_t v = etl_ld32(r->base + entry + IMAGE_RESOURCE_ENTRY_OFF_DATA);
    size_t at = r->pe->rsrc_offset + entry;
    if (!(v & IMAGE_RESOURCE_HIGH_BIT))
        return etl_fail(err, ETL_ERR_CORRUPT, at, "resource entry at 0x%zx is a leaf where a directory belongs", at);
    v &= ~IMAGE_RESOURCE_HIGH_BIT;
    for (unsigned i = 0; i < depth; i++)
        if (path[i] == v)
            return etl_fail(err, ETL_ERR_CORRUPT, at, "resource directory loop: the entry at 0x%zx points back to 0x%zx",
                            at, r->pe->rsrc_offset + v);
    *out = v;
    return ETL_OK;
}

etl_status etl_pe_find_resource(const etl_pe *pe, const char *type_name, uint32_t type_id, etl_pe_resource *out,
                                etl_error *err)
{
    if (!pe->rsrc_rva)
        return etl_fail(err, ETL_ERR_NOT_FOUND, 0, "no resources");
    rsrc r = {pe, pe->data + pe->rsrc_offset, pe->rsrc_avail};
    uint32_t path[ETL_PE_RESOURCE_LEVELS] = {0};
    size_t first;
    uint32_t n;
    etl_status st = dir_entries(&r, 0, &first, &n, err);
    if (st != ETL_OK)
        return st;
    /* level 1: the type */
    size_t hit = 0;
    bool found = false;
    for (uint32_t i = 0; i < n && !found; i++) {
        size_t e = first + (size_t)i * IMAGE_RESOURCE_ENTRY_SIZE;
        uint32_t name = etl_ld32(r.base + e + IMAGE_RESOURCE_ENTRY_OFF_NAME);
        found = type_name ? name_is(&r, name, type_name) : name == type_id;
        hit = e;
    }
    if (!found)
        return etl_fail(err, ETL_ERR_NOT_FOUND, 0, "no %s resource", type_name ? type_name : "such");
    /* level 2: the first name under it */
    uint32_t dir = 0; /* set by subdir; the 0 only quiets gcc -O3 (maybe-uninitialized) */
    if ((st = subdir(&r, hit, path, 1, &dir, err)) != ETL_OK || (st = dir_entries(&r, dir, &first, &n, err)) != ETL_OK)
        return st;
    if (!n)
        return etl_fail(err, ETL_ERR_NOT_FOUND, 0, "empty %s resource", type_name ? type_name : "");
    path[1] = dir;
    if ((st = subdir(&r, first, path, 2, &dir, err)) != ETL_OK || (st = dir_entries(&r, dir, &first, &n, err)) != ETL_OK)
        return st;
    if (!n)
        return etl_fail(err, ETL_ERR_NOT_FOUND, 0, "empty %s resource", type_name ? type_name : "");
    /* level 3: the language, en-US, else neutral, else the first */
    size_t leaf = first;
    int rank = 3;
    for (uint32_t i = 0; i < n; i++) {
        size_t e = first + (size_t)i * IMAGE_RESOURCE_ENTRY_SIZE;
        uint32_t lang = etl_ld32(r.base + e + IMAGE_RESOURCE_ENTRY_OFF_NAME);
        int k = lang == ETL_PE_LANG_EN_US ? 0 : lang == ETL_PE_LANG_NEUTRAL ? 1 : 2;
        if (k < rank) {
            rank = k;
            leaf = e;
        }
    }
    uint32_t data = etl_ld32(r.base + leaf + IMAGE_RESOURCE_ENTRY_OFF_DATA);
    size_t at = pe->rsrc_offset + leaf;
    if (data & IMAGE_RESOURCE_HIGH_BIT)
        return etl_fail(err, ETL_ERR_CORRUPT, at, "resource tree deeper than %u levels at 0x%zx", ETL_PE_RESOURCE_LEVELS,
                        at);
    if (!etl_span_ok(r.avail, data, IMAGE_RESOURCE_DATA_ENTRY_SIZE))
        return etl_fail(err, ETL_ERR_TRUNCATED, at, "resource data entry at 0x%zx is past the end of the file",
                        pe->rsrc_offset + data);
    uint32_t rva = etl_ld32(r.base + data + IMAGE_RESOURCE_DATA_ENTRY_OFF_RVA);
    uint32_t size = etl_ld32(r.base + data + IMAGE_RESOURCE_DATA_ENTRY_OFF_SIZE);
    size_t off;
    if (!etl_pe_rva_to_offset(pe, rva, size, &off))
        return etl_fail(err, ETL_ERR_TRUNCATED, pe->rsrc_offset + data,
                        "resource data (RVA 0x%x, %u bytes) is not inside the file", rva, size);
    out->offset = off;
    out->size = size;
    out->language = etl_ld32(r.base + leaf + IMAGE_RESOURCE_ENTRY_OFF_NAME);
    return ETL_OK;
}
