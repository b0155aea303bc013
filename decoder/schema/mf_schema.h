/* mf_schema.h - manifest events (the model of manifest.h) compiled into schema programs.
 *
 * Every manifest-origin schema - from a manifest file, an EventSource manifest in the stream, or
 * a TRACE_EVENT_INFO carried in the trace (all three become the same model) - goes through
 * etl_mf_compile and comes out as the same flat program TraceLogging metadata becomes
 * (schema.h), so the enumerator, the formatter and both front ends treat them alike.
 *
 * What the compiler does with a template (etw-formats.md 6.1, 8.1):
 *   - <data> becomes a VALUE whose size rule follows the in-type: fixed sizes; Pointer and SizeT
 *     by the record's pointer size (a schema is compiled per pointer size); strings NUL
 *     terminated, or of a constant length (UnicodeString in characters, AnsiString and Binary in
 *     bytes), or of a length another property gives (length="Prop"); SID, WBEMSID; counted,
 *     reversed-counted (big-endian count) and unterminated strings (types 22/23/25, 300-305);
 *     HEXDUMP (u32 count);
 *   - count="N" (N != 1) and count="Prop" make an array (ARRAY_BEGIN COUNT_CONST / COUNT_REF);
 *     count="1" stays a scalar, as TDH shows it;
 *   - <struct> becomes STRUCT_BEGIN..END, inside an array when it has a count;
 *   - map="Name" attaches the provider's valueMap/bitMap to the value (integer in-types only);
 *   - an in-type the decoder does not know (0: the manifest named a type this decoder has no
 *     rule for), a Binary without a length, a reference the program cannot keep, or a limit:
 *     the program ends in UNSUPPORTED there, so every field before it still decodes.
 * The event facts go along: the display name (below), provider, task, opcode, level, channel
 * and keyword names, the message string, the origin and the definition's version.
 *
 * Event display name (TraceEvent's rule, with the display names TDH returns):
 *   the event's own name (name=, or TRACE_EVENT_INFO's EventName) when it has one; else
 *   Task/Opcode with the opcode left out when it is 0, unnamed or Info ("GC/Start",
 *   "DnsServerForInterface"); else the event's symbol; else "EventID(N)".  Task and opcode
 *   names are the manifest's message strings where it has them, else the names without "win:"
 *   (manifest.c resolves them). */
#ifndef ETL_MF_SCHEMA_H
#define ETL_MF_SCHEMA_H

#include "etl.h"
#include "manifest.h"
#include "schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of an event display name ("Task/Opcode"). */
#define ETL_MF_MAX_EVENT_NAME 512u

/* The display name of a manifest event (see the top comment) into out (NUL-terminated);
 * returns its length. */
size_t etl_mf_event_display_name(const etl_mf_event *e, char *out, size_t cap);

/* Compile event `e` of provider `p` (its template, maps and names) into `b` (reset first) for
 * records of `pointer_size` (4 or 8).  `origin` names the source (file path, ...) and is kept
 * with the schema.  Always leaves a usable program in `b`:
 *   ETL_OK           the whole template compiled;
 *   ETL_ERR_CORRUPT, the program ends in an UNSUPPORTED step at the first property it could
 *   ETL_ERR_LIMIT    not compile; *err says which and why;
 *   ETL_ERR_NOMEM    out of memory (the program is not usable). */
etl_status etl_mf_compile(etl_schema_builder *b, const etl_mf_provider *p, const etl_mf_event *e,
                          uint8_t pointer_size, const char *origin, etl_error *err);
/* The same for another schema source: ETL_SCHEMA_CLASSIC compiles an event of the classic kernel
 * class document under its naming rule (opcode 0 is shown when it is named and not Info,
 * "FileIo/Name", as Windows tools name classic events); the k:optional and k:rest qualifiers
 * apply to any source. */
etl_status etl_mf_compile_as(etl_schema_builder *b, const etl_mf_provider *p, const etl_mf_event *e,
                             uint8_t pointer_size, const char *origin, uint8_t source, etl_error *err);

/* The schema of an EventSource's manifest chunk events (id 0xFFFE, etw-formats.md 7), which no
 * manifest declares: event name "ManifestData", the envelope (Format, MajorVersion,
 * MinorVersion, Magic, TotalChunks, ChunkNumber) and Data, the chunk of the manifest's text. */
etl_status etl_mf_compile_manifest_data(etl_schema_builder *b, const char *provider_name, uint8_t pointer_size,
                                        etl_error *err);

/* The schema of an EVENT_HEADER record flagged STRING_ONLY (EventWriteString): its payload is one
 * UTF-16 string and no manifest describes it.  Event name "EventWriteString" (TraceEvent's), one
 * field "String", and the string itself as the message. */
etl_status etl_mf_compile_string_only(etl_schema_builder *b, uint8_t pointer_size, etl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ETL_MF_SCHEMA_H */
