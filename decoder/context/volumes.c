/* volumes.c - the trace's NT -> DOS volume mappings (volumes.h).  GLib family. */
#include "volumes.h"

#include <glib.h>
#include <string.h>

#include "classic.h"
#include "etl_format.h"
#include "fields.h"
#include "value_format.h"

/* KernelTraceControl's SysConfig class and its VolumeMapping type (kernel-classes.man). */
static const etl_guid CLASS_KTC_SYSCONFIG = {0x9b79ee91, 0xb5fd, 0x41c0, {0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0}};
enum { TYPE_VOLUME_MAPPING = 35 };

typedef struct mapping {
    char *nt;   /* ends with '\' */
    size_t nt_len;
    char *dos;  /* ends with '\' */
    size_t dos_len;
} mapping;

struct etl_volumes {
    etl_registry *schemas;
    GArray *maps; /* mapping */
    size_t dropped;
    char text[ETL_VALUE_TEXT_CAP(ETL_VOLUMES_MAX_PATH)];
};

etl_volumes *etl_volumes_new(etl_registry *schemas)
{
    etl_volumes *v = g_try_new0(etl_volumes, 1);
    if (!v)
        return NULL;
    v->schemas = schemas;
    v->maps = g_array_new(FALSE, FALSE, sizeof(mapping));
    return v;
}

void etl_volumes_free(etl_volumes *v)
{
    if (!v)
        return;
    for (guint i = 0; i < v->maps->len; i++) {
        g_free(g_array_index(v->maps, mapping, i).nt);
        g_free(g_array_index(v->maps, mapping, i).dos);
    }
    g_array_free(v->maps, TRUE);
    g_free(v);
}

size_t etl_volumes_count(const etl_volumes *v)
{
    return v ? v->maps->len : 0;
}

size_t etl_volumes_dropped(const etl_volumes *v)
{
    return v ? v->dropped : 0;
}

/* A string value of the record's top level, as UTF-8 without a trailing NUL (owned by g). */
static char *string_value(etl_volumes *v, const etl_item *it)
{
    etl_value val;
    etl_value_decode(it, &val, v->text, sizeof v->text);
    if (val.kind != ETL_VALUE_STRING)
        return NULL;
    size_t n = val.str_len;
    const char *z = memchr(val.str, 0, n);
    if (z)
        n = (size_t)(z - val.str);
    return g_strndup(val.str, n);
}

static bool ends_with_backslash(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && s[n - 1] == '\\';
}

bool etl_volumes_is_mapping(const etl_record *rec)
{
    return rec->has_provider && rec->opcode == TYPE_VOLUME_MAPPING &&
           etl_guid_equal(&rec->provider, &CLASS_KTC_SYSCONFIG) && etl_record_is_classic(rec);
}

void etl_volumes_wants_ids(etl_id_set *set)
{
    (void)set; /* a system-family record's class is its group's, never CLASS_KTC_SYSCONFIG */
}

void etl_volumes_observe(etl_volumes *v, const etl_record *rec)
{
    if (!v || !rec || !v->schemas || !etl_volumes_is_mapping(rec))
        return;
    etl_classic_key k;
    const etl_schema *s;
    if (!etl_classic_key_of(rec, &k) || !k.known ||
        etl_registry_lookup_classic(v->schemas, &k.cls, k.type, k.version, rec->pointer_size, &s, NULL) != ETL_OK ||
        s->unknown)
        return;
    etl_fields f;
    etl_item it;
    char *nt = NULL, *dos = NULL;
    etl_fields_start(&f, s, rec->bytes + rec->payload_offset, rec->payload_size, rec->pointer_size);
    while (etl_fields_next_top_value(&f, &it)) {
        if (!nt && strcmp(it.name, "NtPath") == 0)
            nt = string_value(v, &it);
        else if (!dos && strcmp(it.name, "DosPath") == 0)
            dos = string_value(v, &it);
    }
    /* a mapping names a folder on both sides ("\Device\HarddiskVolume2\" -> "C:\"); "\??\"
     * with no DOS side and anything past the limits are not used */
    bool usable = nt && dos && *dos && ends_with_backslash(nt) && ends_with_backslash(dos) &&
                  strlen(nt) <= ETL_VOLUMES_MAX_PATH && strlen(dos) <= ETL_VOLUMES_MAX_PATH;
    for (guint i = 0; usable && i < v->maps->len; i++)
        if (g_ascii_strcasecmp(g_array_index(v->maps, mapping, i).nt, nt) == 0)
            usable = false; /* the same volume again (rundowns repeat): the first is kept */
    if (usable && v->maps->len >= ETL_VOLUMES_MAX) {
        v->dropped++;
        usable = false;
    }
    if (usable) {
        mapping m = { nt, strlen(nt), dos, strlen(dos) };
        g_array_append_val(v->maps, m);
        return;
    }
    g_free(nt);
    g_free(dos);
}

static void observe_volumes(void *ctx, const etl_record *rec)
{
    etl_volumes_observe(ctx, rec);
}

etl_observer etl_volumes_observer(etl_volumes *v)
{
    return (etl_observer){ observe_volumes, v };
}

bool etl_volumes_dos_path(const etl_volumes *v, const etl_record *rec, const char *path, size_t len, char *out,
                          size_t cap)
{
    while (len > 0 && path[len - 1] == '\0')
        len--;
    if (!v || !path || len < 2 || path[0] != '\\')
        return false; /* DOS paths are only for NT paths */
    if (rec && etl_volumes_is_mapping(rec))
        return false; /* a mapping says its DOS side itself */
    const mapping *best = NULL;
    for (guint i = 0; i < v->maps->len; i++) {
        const mapping *m = &g_array_index(v->maps, mapping, i);
        if (m->nt_len <= len && (!best || m->nt_len > best->nt_len) && g_ascii_strncasecmp(path, m->nt, m->nt_len) == 0)
            best = m;
    }
    if (!best || best->dos_len + (len - best->nt_len) + 1 > cap ||
        (best->dos_len == best->nt_len && memcmp(best->dos, best->nt, best->nt_len) == 0))
        return false; /* no DOS form, or the same text (\\?\ -> \\?\) */
    memcpy(out, best->dos, best->dos_len);
    memcpy(out + best->dos_len, path + best->nt_len, len - best->nt_len);
    out[best->dos_len + len - best->nt_len] = '\0';
    return true;
}
