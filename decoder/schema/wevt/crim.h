/* crim.h - compiled instrumentation manifests ("CRIM", the WEVT_TEMPLATE resource of a provider
 * binary: etw-formats.md 6.4) read into the manifest model (manifest.h), so that a binary's
 * events compile into the same programs as an XML manifest's (mf_schema.h) and the registry
 * treats both alike.
 *
 * The blob is turned into the manifest text it was compiled from - providers, channels, levels,
 * tasks with their opcodes, keywords, value and bit maps, templates and events, names from the
 * elements and display strings from the message table - and that text goes through
 * etl_manifest_parse, the one reader of manifests, as the schemas carried in a trace do
 * (carried.h).  Every rule of the XML path (standard win: names, display names, the event name
 * rule, how maps attach) therefore holds for binaries by construction.
 *
 * Layout, as far as the decoder reads it (libfwevt's "Windows Event manifest binary format",
 * checked against the shared clretwrc.dll and the XML manifest its CLR providers were compiled
 * from; offsets count from the start of the CRIM blob):
 *   CRIM: "CRIM", u32 size, u16 major, u16 minor, u32 provider count, {GUID, u32 offset}[];
 *   WEVT: "WEVT", u32 size, u32 message id of the provider's name (0xFFFFFFFF: none), u32
 *         element count, then {u32 kind, u32 offset}[] (libfwevt reads the pairs from +20 as
 *         {offset, unknown}; the blobs show them from +16 as kind then offset, the last offset
 *         directly before the first element); each element is known by its signature;
 *   EVNT: 48-byte events {u16 id, u8 version, channel, level, opcode, u16 task, u64 keywords,
 *         u32 message id, u32 TEMP offset, u32 OPCO/LEVL/TASK entry offsets, ...};
 *   TTBL: TEMP templates {"TEMP", u32 size, u32 top-level property count, u32 property count,
 *         u32 property offset, u32 kind, GUID, binary XML (bxml.h)} and 20-byte properties laid
 *         out like TRACE_EVENT_INFO's: {u32 flags, u8 in-type, u8 out-type (or u16 first member
 *         of a struct), u16 (struct: member count), u32 map offset, u16 count, u16 length, u32
 *         name offset}.  Flags, found by comparing with the XML: 0x01 struct, 0x02 fixed length,
 *         0x04 length from the property at index `length`, 0x08 fixed count, 0x10 count from the
 *         property at index `count`.  Properties are flat: the top-level ones first, struct
 *         members at [first, first + members);
 *   MAPS: u32 count, u32 offsets[count] of "VMAP"/"BMAP" {u32 size, u32 name offset, u32 flags
 *         (1 bit map), u32 entry count, {u32 value, u32 message id}[]};
 *   OPCO, LEVL: {u32 value, u32 message id, u32 name offset} (an opcode's value holds its task in
 *         the low 16 bits, the opcode in the high 16); TASK: {u32 value, u32 message id, GUID,
 *         u32 name offset}; KEYW: {u64 mask, u32 message id, u32 name offset}; CHAN: {u32 value,
 *         u32 name offset, u32, u32 message id};
 *   names: u32 size (itself included), UTF-16LE with a NUL, padded.
 * A binary does not store its provider's name unless the WEVT header gives it a message: the
 * name is then the well-known one (known_providers.h), if any. */
#ifndef ETL_WEVT_CRIM_H
#define ETL_WEVT_CRIM_H

#include <stddef.h>
#include <stdint.h>

#include "etl.h"
#include "manifest.h"
#include "msgtable.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Named limits: a blob beyond any of them is refused with the offset of what exceeded it. */
#define ETL_CRIM_MAX_SIZE (64u * 1024u * 1024u)
#define ETL_CRIM_MAX_PROVIDERS 1024u
#define ETL_CRIM_MAX_ELEMENTS 64u       /* element descriptors of one provider */
#define ETL_CRIM_MAX_ENTRIES 65536u     /* entries of one element (events, templates, maps, ...) */
#define ETL_CRIM_MAX_PROPERTIES 1024u   /* properties of one template, as written out with its
                                           structs' members (ETL_MF_MAX_PROPERTIES) */
#define ETL_CRIM_MAX_KEYWORDS 256u      /* keyword definitions of one provider (64 bits of mask) */
#define ETL_CRIM_MAX_NAME 2048u         /* characters of one name */

/* The provider GUIDs the blob at data[0, size) declares (what indexing a binary reads): up to
 * `cap` into out, the count in *count.  `base` is the blob's file offset, for errors. */
etl_status etl_crim_provider_guids(const uint8_t *data, size_t size, uint64_t base, etl_guid *out, uint32_t cap,
                                   uint32_t *count, etl_error *err);

/* The manifest text the blob stands for (g_free it), names resolved through `messages` (may be
 * NULL).  On error NULL and *err names the file offset (base + offset in the blob). */
char *etl_crim_manifest_xml(const uint8_t *data, size_t size, uint64_t base, const etl_msgtable *messages,
                            etl_error *err);

/* The same, parsed into the model; `origin` names the binary in messages. */
etl_status etl_crim_parse(const uint8_t *data, size_t size, uint64_t base, const etl_msgtable *messages,
                          const char *origin, etl_manifest **out, etl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ETL_WEVT_CRIM_H */
