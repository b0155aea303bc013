/* manifest.h - instrumentation manifests (<instrumentationManifest>, .man/.xml) read into a
 * plain model: providers with their events, templates, maps, tasks, opcodes, levels, keywords
 * and channels, names already resolved through the manifest's string table.
 *
 * This is the front end of the manifest schema source: the model is what a compiler turns into
 * the decoder's schema programs, the same ones TraceLogging metadata and schemas carried in the
 * trace become.  The same model is filled from EventSource manifests reassembled from the
 * stream.  Format: etw-formats.md section 6.1 and 8.
 *
 * XML is parsed with GLib's GMarkup: GLib is already the decoder's (and Wireshark's)
 * dependency, GMarkup is a strict, well-kept non-validating parser that reports the line of
 * any error, and manifests use no DTDs or external entities that would need libxml2.
 * UTF-16 manifests (with a byte-order mark) are converted to UTF-8 first. */
#ifndef ETL_MANIFEST_H
#define ETL_MANIFEST_H

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Named limits: a manifest larger or deeper than this is refused with a clear error. */
#define ETL_MF_MAX_FILE_SIZE (64u * 1024u * 1024u)
#define ETL_MF_MAX_PROPERTIES 1024u   /* per template, struct members included */
#define ETL_MF_MAX_STRUCT_DEPTH 8u
#define ETL_MF_NO_REF 0xFFFFu         /* a length/count that is not taken from another property */

/* One <data> or <struct> of a template, in document order.  A struct is followed by its
 * `member_count` members (which may be structs themselves). */
typedef struct etl_mf_property {
    const char *name;
    uint16_t in_type;       /* TDH_INTYPE number (etw-formats.md 8.1); 0 for a struct */
    uint16_t out_type;      /* TDH_OUTTYPE number (8.2); 0 = the in-type's default */
    bool is_struct;
    uint16_t member_count;  /* struct: how many of the following properties are its members */
    uint16_t length;        /* fixed length (characters or bytes), when length_ref is NO_REF */
    uint16_t length_ref;    /* index (in the template) of the property giving the length */
    bool has_length;
    uint16_t count;         /* fixed array count, when count_ref is NO_REF */
    uint16_t count_ref;     /* index of the property giving the count */
    bool has_count;
    const char *map_name;   /* a valueMap/bitMap name, or NULL */
    /* Layout qualifiers of the project's classic kernel document (decoder/kernel, namespace
     * urn:etlshark:kernel-classes, written k:optional="true" / k:rest="true"):
     *   optional  this property and every one after it may be absent: a payload that ends
     *             exactly where it would start is complete (shorter forms of a class version);
     *   rest      takes the rest of the payload: a Binary without a length takes every byte
     *             left; an array (count="N") holds as many elements as fit, at most N. */
    bool optional;
    bool rest;
} etl_mf_property;

typedef struct etl_mf_template {
    const char *tid;
    etl_mf_property *props;
    uint32_t prop_count;
} etl_mf_template;

typedef struct etl_mf_map_entry {
    uint64_t value;
    const char *text;       /* the entry's message string, trimmed */
} etl_mf_map_entry;

typedef struct etl_mf_map {
    const char *name;
    bool is_bitmap;
    etl_mf_map_entry *entries;
    uint32_t entry_count;
} etl_mf_map;

/* A named value: level, channel, keyword (value is the mask), task, opcode. */
typedef struct etl_mf_named {
    const char *name;       /* as declared (e.g. "win:Start", "GarbageCollection") */
    const char *display;    /* the message string when there is one, else the name without "win:" */
    uint64_t value;
    uint16_t task;          /* opcodes declared inside a task: that task's value; else 0 */
    bool task_scoped;
} etl_mf_named;

typedef struct etl_mf_event {
    uint16_t id;
    uint8_t version, level, opcode, channel;
    uint16_t task;
    uint64_t keywords;
    const char *name;              /* the event's own name (name= attribute; TRACE_EVENT_INFO's
                                      EventName), or NULL - most manifests name events only
                                      through their task and opcode */
    const char *symbol;
    const char *template_tid;      /* NULL when the event has no template */
    const etl_mf_template *tmpl;   /* resolved after the whole file is read */
    const char *message;           /* the message string with %1-style inserts, or NULL */
    const char *task_name;         /* display names as TDH returns them, or NULL */
    const char *opcode_name;
    const char *level_name;
    const char *channel_name;
    const char *keywords_name;     /* display names of the declared keywords, " | "-joined */
    uint32_t source_line;          /* where it is declared, for messages about clashes */
} etl_mf_event;

typedef struct etl_mf_provider {
    etl_guid guid;
    const char *name;
    const char *source;            /* the file (or stream origin) it came from */
    etl_mf_event *events;
    uint32_t event_count;
    etl_mf_template *templates;
    uint32_t template_count;
    etl_mf_map *maps;
    uint32_t map_count;
    etl_mf_named *tasks, *opcodes, *levels, *keywords, *channels;
    uint32_t task_count, opcode_count, level_count, keyword_count, channel_count;
} etl_mf_provider;

/* A loaded manifest file: its providers, and the memory behind every string in them. */
typedef struct etl_manifest etl_manifest;

/* Parse a manifest from memory (UTF-8, or UTF-16 with a byte-order mark).  `origin` names it
 * in errors ("path/file.man" or "EventSource stream of {guid}").  On error *out is NULL and
 * `err` names the origin, the line and what is wrong. */
etl_status etl_manifest_parse(const char *xml, size_t len, const char *origin, etl_manifest **out, etl_error *err);
/* Read and parse a file. */
/* The same read by GMarkup alone (etl_manifest_parse reads the plain XML manifests are made of
 * by a faster reader of its own and leaves the rest to GMarkup; tests compare the two). */
etl_status etl_manifest_parse_gmarkup(const char *xml, size_t len, const char *origin, etl_manifest **out,
                                      etl_error *err);
etl_status etl_manifest_load_file(const char *path, etl_manifest **out, etl_error *err);
void etl_manifest_free(etl_manifest *m);

uint32_t etl_manifest_provider_count(const etl_manifest *m);
const etl_mf_provider *etl_manifest_provider(const etl_manifest *m, uint32_t i);

/* The event (id, version) of a provider, or NULL. */
const etl_mf_event *etl_mf_find_event(const etl_mf_provider *p, uint16_t id, uint8_t version);
const etl_mf_map *etl_mf_find_map(const etl_mf_provider *p, const char *name);

/* The manifest name of a TDH type number ("win:UInt32", "xs:unsignedInt"), or NULL.  TDH's
 * in-types 300-310 and out-types 300/301, which manifests cannot name but TRACE_EVENT_INFO can
 * carry, are "tdh:" + their tdh.h name ("tdh:REVERSEDCOUNTEDSTRING"), which the parser reads. */
const char *etl_mf_in_type_qname(uint16_t in_type);
const char *etl_mf_out_type_qname(uint16_t out_type);

#ifdef __cplusplus
}
#endif

#endif /* ETL_MANIFEST_H */
