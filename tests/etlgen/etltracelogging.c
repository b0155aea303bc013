/*
 * etltracelogging.c - self-describing events: TraceLogging metadata and provider traits
 * (format doc §5) and the chunked EventSource manifest (§7).  Both end up as ordinary
 * EVENT_HEADER records written through etlw_write_event().
 */
#include "etlwriter_internal.h"

#include <string.h>

#define TL_CHANNEL 11u            /* TraceLogging's default channel */
#define TL_CHAIN 0x80u            /* InMeta: OutMeta follows; OutMeta: tags follow */
#define TL_MAX_METADATA 0x7FFFu   /* metadata Size must stay below 32768 */
#define TL_TRAIT_PROVIDER_GROUP 1u

#define ES_MANIFEST_ID 0xFFFEu
#define ES_MANIFEST_OPCODE 0xFEu
#define ES_MANIFEST_TASK 0xFFFEu
#define ES_MANIFEST_KEYWORDS 0x00FFFFFFFFFFFFFFull
#define ES_MAX_CHUNK 0xFF00u
#define ES_ENVELOPE_MAGIC 0x5Bu

/* 28-bit tags, 7 bits per byte, most significant group first; bit 7 = more follow. */
static void put_tags(etlw_bytes *b, uint32_t tags)
{
    if (tags & 0xF0000000u) {
        b->overflow = 1;
        return;
    }
    for (;;) {
        uint8_t v = (uint8_t)((tags >> 21) & 0x7F);
        if ((tags & 0x1FFFFFu) == 0) {
            etlw_put_u8(b, v);
            return;
        }
        etlw_put_u8(b, (uint8_t)(v | 0x80));
        tags = (tags << 7) & 0x0FFFFFFFu;
    }
}

static void put_field(etlw_bytes *b, const etlw_tl_field *f)
{
    unsigned count = f->count & 0x60u;
    int is_struct = f->intype == ETLW_TL_STRUCT;
    /* A struct always has OutMeta: its low 7 bits are the number of member fields. */
    int has_out = is_struct || f->outtype != 0 || f->tags != 0;
    if ((f->intype & ~0x1Fu) || (is_struct && (f->outtype == 0 || f->outtype > 0x7F)) ||
        (!is_struct && f->outtype > 0x7F) || (count == ETLW_TL_CCOUNT && f->ccount == 0) ||
        (count == ETLW_TL_CUSTOM && f->schema == NULL && f->schema_len != 0)) {
        b->overflow = 1; /* not encodable: make the caller's build fail */
        return;
    }
    etlw_put_strz(b, f->name ? f->name : "");
    etlw_put_u8(b, (uint8_t)(f->intype | count | (has_out ? TL_CHAIN : 0)));
    if (has_out) {
        etlw_put_u8(b, (uint8_t)(f->outtype | (f->tags ? TL_CHAIN : 0)));
        if (f->tags)
            put_tags(b, f->tags);
    }
    if (count == ETLW_TL_CCOUNT)
        etlw_put_u16(b, f->ccount);
    if (count == ETLW_TL_CUSTOM) {
        etlw_put_u16(b, f->schema_len);
        etlw_put(b, f->schema, f->schema_len);
    }
}

void etlw_tl_metadata(etlw_bytes *out, const char *event_name, uint32_t event_tags,
                      const etlw_tl_field *fields, size_t nfields)
{
    size_t start = out->len;
    etlw_put_u16(out, 0);        /* Size, counting itself */
    put_tags(out, event_tags);   /* at least one byte, 0x00 = no tags */
    etlw_put_strz(out, event_name ? event_name : "");
    for (size_t i = 0; i < nfields; i++)
        put_field(out, &fields[i]);
    if (out->overflow || out->len - start > TL_MAX_METADATA) {
        out->overflow = 1;
        return;
    }
    etlw_patch_u16(out, start, (uint16_t)(out->len - start));
}

void etlw_tl_traits(etlw_bytes *out, const char *provider_name, const etlw_guid *group)
{
    size_t start = out->len;
    etlw_put_u16(out, 0);
    etlw_put_strz(out, provider_name ? provider_name : "");
    if (group != NULL) {
        etlw_put_u16(out, 3 + 16); /* TraitSize counts its own 3 header bytes */
        etlw_put_u8(out, TL_TRAIT_PROVIDER_GROUP);
        etlw_put_guid(out, group);
    }
    if (out->overflow || out->len - start > 0xFFFF) {
        out->overflow = 1;
        return;
    }
    etlw_patch_u16(out, start, (uint16_t)(out->len - start));
}

int etlw_write_tl(etlw_writer *w, unsigned cpu, const etlw_tl_event *ev,
                  const etlw_tl_field *fields, size_t nfields, const void *payload, size_t len)
{
    if (!etlw__usable(w))
        return ETLW_E_STATE;
    if (ev == NULL || (fields == NULL && nfields > 0))
        return ETLW_E_ARG;
    etlw_bytes ext, blob;
    etlw_bytes_init(&ext, w->ext, ETLW_MAX_RECORD);
    etlw_bytes_init(&blob, w->meta, ETLW_MAX_RECORD);
    /* Same order as real TraceLogging records: PROV_TRAITS, then EVENT_SCHEMA_TL. */
    if (ev->provider_name != NULL) {
        etlw_tl_traits(&blob, ev->provider_name, ev->provider_group);
        etlw_ext_prov_traits(&ext, &blob);
        etlw_bytes_reset(&blob);
    }
    etlw_tl_metadata(&blob, ev->name, ev->tags, fields, nfields);
    etlw_ext_schema_tl(&ext, &blob);
    if (ev->more_ext != NULL) {
        if (ev->more_ext->overflow)
            ext.overflow = 1;
        else
            etlw_put(&ext, ev->more_ext->data, ev->more_ext->len);
    }
    etlw_event_rec hdr = ev->hdr;
    if (hdr.channel == 0)
        hdr.channel = TL_CHANNEL;
    return etlw_write_event(w, cpu, &hdr, &ext, payload, len);
}

int etlw_write_eventsource_manifest(etlw_writer *w, unsigned cpu, const etlw_event_rec *base,
                                    const char *xml, size_t xml_len, size_t chunk_size)
{
    if (!etlw__usable(w))
        return ETLW_E_STATE;
    if (base == NULL || xml == NULL || chunk_size == 0 || chunk_size > ES_MAX_CHUNK)
        return ETLW_E_ARG;
    size_t total = (xml_len + chunk_size - 1) / chunk_size;
    if (total == 0 || total > 0xFFFF)
        return ETLW_E_ARG;
    for (size_t i = 0; i < total; i++) {
        size_t off = i * chunk_size;
        size_t n = xml_len - off < chunk_size ? xml_len - off : chunk_size;
        etlw_bytes p;
        etlw_bytes_init(&p, w->meta, ETLW_MAX_RECORD);
        etlw_put_u8(&p, 1);      /* Format: SimpleXmlFormat */
        etlw_put_u8(&p, 1);      /* MajorVersion */
        etlw_put_u8(&p, 0);      /* MinorVersion */
        etlw_put_u8(&p, ES_ENVELOPE_MAGIC);
        etlw_put_u16(&p, (uint16_t)total);
        etlw_put_u16(&p, (uint16_t)i);
        etlw_put(&p, xml + off, n);
        if (p.overflow)
            return ETLW_E_TOO_BIG;
        etlw_event_rec rec = *base;
        rec.id = ES_MANIFEST_ID;
        rec.version = 1;
        rec.channel = 0;
        rec.level = 0;
        rec.opcode = ES_MANIFEST_OPCODE;
        rec.task = ES_MANIFEST_TASK;
        rec.keyword = ES_MANIFEST_KEYWORDS;
        rec.timestamp = base->timestamp + (int64_t)i;
        int rc = etlw_write_event(w, cpu, &rec, NULL, p.data, p.len);
        if (rc != ETLW_OK)
            return rc;
    }
    return ETLW_OK;
}
