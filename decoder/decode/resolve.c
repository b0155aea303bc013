/* resolve.c - the decoding session and its one resolve call (resolve.h). */
#include "resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_format.h"
#include "known_providers.h"
#include "message.h"
#include "tl_schema.h"
#include "tmf.h"
#include "tmf_schema.h"
#include "wpp_format.h"

/* Names of WPP messages without a TMF ("Message(43)"): one per message number, made on first
 * use, so the names handed out stay valid as long as the session. */
#define WPP_NAME_SIZE sizeof "Message(65535)"

struct etl_decoder {
    etl_schema_cache *cache;
    etl_registry *registry;
    etl_registry_report_fn report;
    void *report_ctx;
    etl_tmf_store *tmf;          /* the TMF path's messages (the WPP schema source) */
    etl_schema_builder wpp_builder;
    char (*wpp_names)[WPP_NAME_SIZE]; /* 65536 names, allocated on the first WPP record */
    etl_message_scratch msg; /* about 21 KiB: the session is on the heap */
};

static const char *const status_names[] = {
    "decoded", "older version", "unknown event", "schema missing", "not applicable", "schema error",
};

const char *etl_resolve_status_name(etl_resolve_status s)
{
    return (unsigned)s < sizeof status_names / sizeof status_names[0] ? status_names[s] : "?";
}

/* The TMF reader's messages go where the registry's go. */
static void report_tmf(void *ctx, bool warning, const char *message)
{
    etl_decoder *d = ctx;
    if (d->report)
        d->report(d->report_ctx, warning ? ETL_REGISTRY_WARNING : ETL_REGISTRY_ERROR, message);
}

etl_decoder *etl_decoder_new(etl_registry_report_fn report, void *report_ctx)
{
    etl_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->report = report;
    d->report_ctx = report_ctx;
    etl_schema_builder_init(&d->wpp_builder, NULL);
    d->cache = etl_schema_cache_new(NULL);
    d->registry = d->cache ? etl_registry_new(d->cache, report, report_ctx) : NULL;
    d->tmf = d->registry ? etl_tmf_store_new(report_tmf, d) : NULL;
    if (!d->tmf) {
        etl_decoder_free(d);
        return NULL;
    }
    return d;
}

void etl_decoder_free(etl_decoder *d)
{
    if (!d)
        return;
    etl_tmf_store_free(d->tmf);
    etl_schema_builder_free(&d->wpp_builder);
    free(d->wpp_names);
    etl_registry_free(d->registry);
    etl_schema_cache_free(d->cache);
    free(d);
}

etl_registry *etl_decoder_registry(etl_decoder *d)
{
    return d ? d->registry : NULL;
}

etl_schema_cache *etl_decoder_cache(etl_decoder *d)
{
    return d ? d->cache : NULL;
}

static const char *schema_name(const etl_schema *s, uint32_t off)
{
    return off ? etl_schema_str(s, off) : NULL;
}

static void set_provider(etl_resolved *out, const char *name, etl_name_source from)
{
    out->provider_name = name;
    out->provider_name_from = from;
}

/* The name the record's PROV_TRAITS item gives (in the record's bytes, NUL-terminated), its
 * length in *len; NULL when there is none. */
static const char *traits_name(const etl_record *rec, size_t *len)
{
    const etl_ext_item *traits = rec->ext_count ? etl_record_tl_traits(rec) : NULL;
    if (!traits || !traits->data)
        return NULL;
    etl_tl_traits t;
    etl_tl_parse_traits(traits->data, traits->data_size, &t, NULL);
    *len = t.name_len;
    return t.name;
}

const char *etl_decoder_traits_name(const etl_record *rec)
{
    size_t len;
    return rec ? traits_name(rec, &len) : NULL;
}

/* The first names of the chain (resolve.h): this record's PROV_TRAITS, remembered for the GUID
 * unless the caller says not to. */
static void name_from_traits(etl_decoder *d, const etl_record *rec, unsigned flags, etl_resolved *out)
{
    size_t len;
    const char *name = traits_name(rec, &len);
    if (!name)
        return;
    set_provider(out, name, ETL_NAME_TRAITS);
    out->provider_name_bytes = (const uint8_t *)name;
    out->provider_name_bytes_len = len + 1; /* the NUL terminator is the name's too */
    if (rec->has_provider && !(flags & ETL_RESOLVE_NO_LEARN))
        etl_schema_cache_set_provider_name(d->cache, &rec->provider, name, len);
}

/* The end of the chain: the name remembered for the GUID, else the well-known one. */
static void name_from_cache(etl_decoder *d, const etl_record *rec, etl_resolved *out)
{
    if (out->provider_name || !rec->has_provider)
        return;
    const char *known = etl_schema_cache_provider_name(d->cache, &rec->provider);
    if (known)
        set_provider(out, known, ETL_NAME_CACHE);
    else if ((known = etl_known_provider_name(&rec->provider)))
        set_provider(out, known, ETL_NAME_KNOWN);
}

/* The event facts of a manifest or classic schema, and its status. */
static etl_resolve_status take_schema(const etl_record *rec, const etl_schema *s, etl_resolved *out)
{
    out->schema = s;
    if (!out->provider_name && s->provider_name)
        set_provider(out, etl_schema_str(s, s->provider_name), ETL_NAME_SCHEMA);
    out->event_name = etl_schema_event_name(s);
    out->task_name = schema_name(s, s->task_name);
    out->opcode_name = schema_name(s, s->opcode_name);
    out->level_name = schema_name(s, s->level_name);
    out->channel_name = schema_name(s, s->channel_name);
    out->keywords_name = schema_name(s, s->keywords_name);
    out->has_message = s->message != 0;
    out->schema_version = s->schema_version;
    out->older_version = s->schema_version != rec->version;
    if (s->unknown)
        return ETL_RESOLVE_UNKNOWN_EVENT;
    return out->older_version ? ETL_RESOLVE_OLDER_VERSION : ETL_RESOLVE_DECODED;
}

/* Classic providers are named by the class document alone (no PROV_TRAITS names them). */
static etl_resolve_status resolve_classic(etl_decoder *d, const etl_record *rec, etl_resolved *out)
{
    const etl_schema *s = NULL;
    out->kind = ETL_RESOLVE_CLASSIC;
    if (etl_registry_lookup(d->registry, rec, &s, &out->error) != ETL_OK || !s)
        return ETL_RESOLVE_SCHEMA_ERROR;
    return take_schema(rec, s, out);
}

static etl_resolve_status resolve_tracelogging(etl_decoder *d, const etl_record *rec, const etl_ext_item *meta,
                                               etl_resolved *out)
{
    out->kind = ETL_RESOLVE_TRACELOGGING;
    name_from_cache(d, rec, out);
    const etl_schema *s = NULL;
    if (etl_schema_cache_tl(d->cache, meta->data, meta->data_size, rec->pointer_size, &s, &out->error) != ETL_OK ||
        !s)
        return ETL_RESOLVE_SCHEMA_ERROR;
    out->schema = s;
    out->event_name = etl_schema_event_name(s);
    const char *in_meta;
    size_t in_meta_len;
    if (etl_tl_event_name(meta->data, meta->data_size, &in_meta, &in_meta_len)) {
        out->event_name_bytes = (const uint8_t *)in_meta;
        out->event_name_bytes_len = in_meta_len + 1;
    } else {
        out->event_name_bytes = meta->data;
        out->event_name_bytes_len = meta->data_size;
    }
    return ETL_RESOLVE_DECODED;
}

static etl_resolve_status resolve_manifest(etl_decoder *d, const etl_record *rec, etl_resolved *out)
{
    out->kind = ETL_RESOLVE_MANIFEST;
    if (!rec->has_provider)
        return ETL_RESOLVE_NOT_APPLICABLE;
    const etl_schema *s = NULL;
    etl_status st = etl_registry_lookup(d->registry, rec, &s, &out->error);
    etl_resolve_status rs;
    if (st == ETL_OK && s) {
        rs = take_schema(rec, s, out);
    } else {
        rs = st == ETL_ERR_NOT_FOUND ? ETL_RESOLVE_SCHEMA_MISSING : ETL_RESOLVE_SCHEMA_ERROR;
    }
    /* no schema, or one whose source does not name the provider: another source may */
    const char *name = out->provider_name ? NULL : etl_registry_record_provider_name(d->registry, rec);
    if (name)
        set_provider(out, name, ETL_NAME_REGISTRY);
    name_from_cache(d, rec, out);
    return rs;
}

etl_status etl_decoder_add_tmf_path(etl_decoder *d, const char *path_list)
{
    return d ? etl_tmf_add_path(d->tmf, path_list) : ETL_ERR_ARG;
}

typedef struct wpp_each {
    etl_decoder *d;
    uint8_t pointer_size;
    etl_decoder_wpp_fn fn;
    void *ctx;
} wpp_each;

static void each_wpp(void *ctx, etl_tmf_message *m)
{
    wpp_each *w = ctx;
    const etl_schema *s = NULL;
    etl_error err;
    if (etl_tmf_schema(w->d->cache, &w->d->wpp_builder, m, w->pointer_size, &s, &err) != ETL_OK)
        s = NULL;
    w->fn(w->ctx, &m->guid, m->number, s);
}

void etl_decoder_foreach_wpp_message(etl_decoder *d, uint8_t pointer_size, etl_decoder_wpp_fn fn, void *ctx)
{
    if (!d || !fn)
        return;
    wpp_each w = {d, pointer_size == 4 ? 4 : 8, fn, ctx};
    etl_tmf_foreach(d->tmf, each_wpp, &w);
}

/* "Message(N)", the name of a WPP message no TMF describes; NULL when out of memory. */
static const char *wpp_name(etl_decoder *d, uint16_t number)
{
    if (!d->wpp_names && !(d->wpp_names = calloc(65536, WPP_NAME_SIZE)))
        return NULL;
    char *n = d->wpp_names[number];
    if (!n[0])
        snprintf(n, WPP_NAME_SIZE, "Message(%u)", (unsigned)number);
    return n;
}

/* WPP records (resolve.h): the message GUID is the record's provider, the message number its
 * event id, in both forms (MESSAGE, and EVENT_HEADER with TRACE_MESSAGE). */
static etl_resolve_status resolve_wpp(etl_decoder *d, const etl_record *rec, etl_resolved *out)
{
    out->kind = ETL_RESOLVE_WPP;
    uint16_t number = rec->event_id;
    etl_tmf_message *m = rec->has_provider ? etl_tmf_find(d->tmf, &rec->provider, number) : NULL;
    if (m) {
        const etl_schema *s = NULL;
        if (etl_tmf_schema(d->cache, &d->wpp_builder, m, rec->pointer_size, &s, &out->error) != ETL_OK || !s)
            return ETL_RESOLVE_SCHEMA_ERROR;
        out->schema = s;
        set_provider(out, etl_schema_str(s, s->provider_name), ETL_NAME_SCHEMA);
        out->event_name = etl_schema_event_name(s);
        out->level_name = schema_name(s, s->level_name);
        out->keywords_name = schema_name(s, s->keywords_name);
        out->has_message = true;
        return ETL_RESOLVE_DECODED;
    }
    out->event_name = wpp_name(d, number);
    const etl_tmf_guid *sec = rec->has_provider ? etl_tmf_find_guid(d->tmf, &rec->provider) : NULL;
    char g[ETL_GUID_STR_SIZE];
    etl_format_guid(&rec->provider, g);
    out->error.code = ETL_ERR_NOT_FOUND;
    if (sec) {
        set_provider(out, sec->component, ETL_NAME_REGISTRY);
        snprintf(out->error.message, sizeof out->error.message,
                 "WPP message %u of %s (message GUID %s): %s defines no such message", (unsigned)number,
                 sec->component, g, sec->origin);
    } else if (rec->has_provider) {
        snprintf(out->error.message, sizeof out->error.message,
                 "WPP message GUID %s has no TMF: %s.tmf would decode its messages", g, g);
    } else {
        snprintf(out->error.message, sizeof out->error.message,
                 "WPP message %u names component id %u, not a message GUID: no TMF can be found for it",
                 (unsigned)number, (unsigned)rec->component_id);
    }
    return ETL_RESOLVE_SCHEMA_MISSING;
}

etl_resolve_status etl_decoder_resolve(etl_decoder *d, const etl_record *rec, unsigned flags, etl_resolved *out,
                                       etl_fields *fields)
{
    /* field by field: the error's message buffer is most of the struct, and a resolve is
     * on every record's path */
    out->kind = ETL_RESOLVE_NONE;
    out->schema = NULL;
    out->older_version = false;
    out->schema_version = 0;
    out->has_message = false;
    out->provider_name = NULL;
    out->provider_name_from = ETL_NAME_NONE;
    out->event_name = out->task_name = out->opcode_name = out->level_name = out->channel_name =
        out->keywords_name = NULL;
    out->event_name_bytes = out->provider_name_bytes = NULL;
    out->event_name_bytes_len = out->provider_name_bytes_len = 0;
    out->error.code = ETL_OK;
    out->error.offset = 0;
    out->error.message[0] = '\0';
    etl_resolve_status st = ETL_RESOLVE_NOT_APPLICABLE;
    if (!d || !rec) {
        out->status = st;
        return st;
    }
    switch (etl_header_family(rec->header_type)) {
    case ETL_FAMILY_SYSTEM:
    case ETL_FAMILY_FULL:
        st = resolve_classic(d, rec, out);
        break;
    case ETL_FAMILY_MESSAGE:
        st = resolve_wpp(d, rec, out);
        break;
    case ETL_FAMILY_EVENT: {
        if (rec->flags_stored & ETL_EHF_TRACE_MESSAGE) {
            st = resolve_wpp(d, rec, out);
            break;
        }
        /* TraceLogging or not is decided by the schema item, never by the channel */
        name_from_traits(d, rec, flags, out);
        const etl_ext_item *meta = rec->ext_count ? etl_record_tl_schema(rec) : NULL;
        st = meta ? resolve_tracelogging(d, rec, meta, out) : resolve_manifest(d, rec, out);
        break;
    }
    default:
        break;
    }
    out->status = st;
    if (fields)
        etl_decoder_fields(rec, out, fields);
    return st;
}

bool etl_decoder_fields(const etl_record *rec, const etl_resolved *res, etl_fields *f)
{
    if (!rec || !res || !res->schema || !f)
        return false;
    etl_fields_start_opts(f, res->schema, rec->bytes + rec->payload_offset, rec->payload_size, rec->pointer_size,
                          ETL_FIELDS_CHAR_STRINGS);
    return true;
}

size_t etl_decoder_message(etl_decoder *d, const etl_record *rec, const etl_resolved *res, char *out, size_t cap)
{
    return etl_decoder_message_in(d, rec, res, d ? &d->msg : NULL, out, cap);
}

size_t etl_decoder_message_in(const etl_decoder *d, const etl_record *rec, const etl_resolved *res,
                              etl_message_scratch *scratch, char *out, size_t cap)
{
    if (!d || !scratch || !res || !res->schema || !res->has_message) {
        if (cap)
            out[0] = '\0';
        return 0;
    }
    if (res->kind == ETL_RESOLVE_WPP) {
        const etl_tmf_message *m = etl_tmf_find(d->tmf, &rec->provider, rec->event_id);
        return etl_wpp_format(m, res->schema, rec, out, cap);
    }
    return etl_message_render(res->schema, rec->bytes + rec->payload_offset, rec->payload_size, rec->pointer_size,
                              scratch, out, cap);
}
