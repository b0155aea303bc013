/* etl_fields.c - the dynamic field registry and its per-profile store (etl_fields.h).
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "compat.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include <epan/proto.h>
#include <wsutil/filesystem.h>

#include "etl_fields.h"

/* A store larger than this is not ours (20000 fields of 200 bytes is 4 MB); it is left alone. */
#define ETLS_STORE_MAX_BYTES (16u * 1024u * 1024u)
/* Store lines complained about one by one; the rest are counted. */
#define ETLS_STORE_MAX_WARNINGS 10u
/* Names tried for one (path, type): plain, _<code>, _<code>_2 ... _<code>_<n>. */
#define ETLS_MAX_CANDIDATES 16u

/* field ids in etls_by_path: not looked up yet / no typed field to be had */
#define ETLS_ID_UNRESOLVED (-1)
#define ETLS_ID_NONE (-2)

typedef struct etls_ftype_info {
    const char *code;
    enum ftenum ft;
    int display;
    const char *blurb;
} etls_ftype_info;

static const etls_ftype_info etls_ftypes[ETLS_FT_COUNT] = {
    [ETLS_FT_I8] = { "i8", FT_INT8, BASE_DEC, "Event field: signed 8-bit integer" },
    [ETLS_FT_I16] = { "i16", FT_INT16, BASE_DEC, "Event field: signed 16-bit integer" },
    [ETLS_FT_I32] = { "i32", FT_INT32, BASE_DEC, "Event field: signed 32-bit integer" },
    [ETLS_FT_I64] = { "i64", FT_INT64, BASE_DEC, "Event field: signed 64-bit integer" },
    [ETLS_FT_U8] = { "u8", FT_UINT8, BASE_DEC, "Event field: unsigned 8-bit integer" },
    [ETLS_FT_U16] = { "u16", FT_UINT16, BASE_DEC, "Event field: unsigned 16-bit integer" },
    [ETLS_FT_U32] = { "u32", FT_UINT32, BASE_DEC, "Event field: unsigned 32-bit integer" },
    [ETLS_FT_U64] = { "u64", FT_UINT64, BASE_DEC, "Event field: unsigned 64-bit integer" },
    [ETLS_FT_X8] = { "x8", FT_UINT8, BASE_HEX, "Event field: 8-bit integer shown in hex" },
    [ETLS_FT_X16] = { "x16", FT_UINT16, BASE_HEX, "Event field: 16-bit integer shown in hex" },
    [ETLS_FT_X32] = { "x32", FT_UINT32, BASE_HEX, "Event field: 32-bit integer shown in hex" },
    [ETLS_FT_X64] = { "x64", FT_UINT64, BASE_HEX, "Event field: 64-bit integer shown in hex" },
    [ETLS_FT_DOUBLE] = { "double", FT_DOUBLE, BASE_NONE, "Event field: floating point" },
    [ETLS_FT_BOOL] = { "bool", FT_BOOLEAN, BASE_NONE, "Event field: boolean" },
    [ETLS_FT_STRING] = { "string", FT_STRING, BASE_NONE, "Event field: string" },
    [ETLS_FT_BYTES] = { "bytes", FT_BYTES, BASE_NONE, "Event field: binary" },
    [ETLS_FT_GUID] = { "guid", FT_GUID, BASE_NONE, "Event field: GUID" },
    [ETLS_FT_TIME] = { "time", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, "Event field: date and time (UTC)" },
    [ETLS_FT_IPV4] = { "ipv4", FT_IPv4, BASE_NONE, "Event field: IPv4 address" },
    [ETLS_FT_IPV6] = { "ipv6", FT_IPv6, BASE_NONE, "Event field: IPv6 address" },
};

/* One registered dynamic field.  `id` is its hf_register_info's p_id target. */
typedef struct etls_field {
    int id;
    etls_ftype type;
    const char *abbrev;
} etls_field;

/* A field registered in this process and not yet in the store. */
typedef struct etls_unsaved {
    const char *abbrev;
    etls_ftype type;
} etls_unsaved;

static int etls_proto = -1;
/* Full abbreviation -> etls_field.  The keys are also the fields' names inside Wireshark, so
 * neither is ever freed. */
static GHashTable *etls_by_abbrev;
/* Sanitised path -> int[ETLS_FT_COUNT]: the field id per type, once resolved. */
static GHashTable *etls_by_path;
static GArray *etls_unsaved_fields;
static unsigned etls_field_count;
static gint64 etls_last_save;
static bool etls_warned_save;
static bool etls_warned_limit;
static bool etls_remember = true;

const char *
etls_ftype_code(etls_ftype t)
{
    return (unsigned)t < ETLS_FT_COUNT ? etls_ftypes[t].code : "?";
}

static bool
etls_ftype_from_code(const char *code, etls_ftype *out)
{
    for (unsigned i = 0; i < ETLS_FT_COUNT; i++) {
        if (strcmp(code, etls_ftypes[i].code) == 0) {
            *out = (etls_ftype)i;
            return true;
        }
    }
    return false;
}

/* Wireshark's abbreviation rules ([A-Za-z0-9_.-], no empty component) plus ours: our prefix,
 * no component starting with '-' (the display filter scanner would not read it as a name). */
static bool
etls_valid_abbrev(const char *abbrev)
{
    const size_t plen = strlen(ETLS_FIELDS_PREFIX);
    const char *p;
    size_t n;

    if (strncmp(abbrev, ETLS_FIELDS_PREFIX, plen) != 0)
        return false;
    p = abbrev + plen;
    n = strlen(p);
    if (n == 0 || n > ETLS_FIELDS_MAX_PATH + 32 || p[0] == '.' || p[0] == '-' || p[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];

        if (c == '.') {
            if (p[i + 1] == '.' || p[i + 1] == '-')
                return false;
        } else if (!g_ascii_isalnum(c) && c != '_' && c != '-') {
            return false;
        }
    }
    return true;
}

static etls_field *
etls_register(const char *abbrev, etls_ftype t)
{
    /* Both live as long as the process: Wireshark keeps pointers to the hf and its strings. */
    hf_register_info *hf = g_new0(hf_register_info, 1);
    etls_field *f = g_new0(etls_field, 1);
    char *key = g_strdup(abbrev);

    f->id = -1;
    f->type = t;
    f->abbrev = key;
    hf->p_id = &f->id;
    hf->hfinfo.name = key + strlen(ETLS_FIELDS_PREFIX); /* the path, as the GUI lists it */
    hf->hfinfo.abbrev = key;
    hf->hfinfo.type = etls_ftypes[t].ft;
    hf->hfinfo.display = etls_ftypes[t].display;
    hf->hfinfo.strings = NULL;
    hf->hfinfo.bitmask = 0;
    hf->hfinfo.blurb = etls_ftypes[t].blurb;
    HFILL_INIT(*hf);
    proto_register_field_array(etls_proto, hf, 1);
    g_hash_table_insert(etls_by_abbrev, key, f);
    etls_field_count++;
    return f;
}

/* ---- the store: reading ------------------------------------------------------------------- */

/* One store line; NULL when it was used (or is a comment), else why it was not. */
static const char *
etls_load_line(char *line)
{
    char *abbrev, *code, *rest;
    etls_ftype t;
    etls_field *known;

    while (*line == ' ' || *line == '\t')
        line++;
    if (*line == '\0' || *line == '#')
        return NULL;
    abbrev = line;
    while (*line != '\0' && *line != ' ' && *line != '\t')
        line++;
    if (*line == '\0')
        return "no type after the field name";
    *line++ = '\0';
    while (*line == ' ' || *line == '\t')
        line++;
    code = line;
    while (*line != '\0' && *line != ' ' && *line != '\t')
        line++;
    rest = line;
    if (*rest != '\0') {
        *rest++ = '\0';
        while (*rest == ' ' || *rest == '\t')
            rest++;
        if (*rest != '\0')
            return "more than a field name and a type";
    }
    if (!etls_valid_abbrev(abbrev))
        return "not a valid " ETLS_FIELDS_PREFIX "<name> field name";
    if (!etls_ftype_from_code(code, &t))
        return "unknown type";
    known = (etls_field *)g_hash_table_lookup(etls_by_abbrev, abbrev);
    if (known != NULL)
        return known->type == t ? NULL : "the field is listed before with another type";
    if (proto_registrar_get_byname(abbrev) != NULL)
        return "Wireshark already has a field of that name";
    if (etls_field_count >= ETLS_FIELDS_MAX)
        return "more fields than etlshark registers";
    etls_register(abbrev, t);
    return NULL;
}

static void
etls_load(const char *path)
{
    GStatBuf st;
    GError *err = NULL;
    gchar *text = NULL;
    gsize len = 0;
    unsigned lineno = 0, bad = 0;
    char *p, *end;

    if (g_stat(path, &st) != 0) {
        if (errno != ENOENT)
            ws_warning("etlshark: cannot read the TraceLogging field store %s: %s", path,
                       g_strerror(errno));
        return;
    }
    if ((guint64)st.st_size > ETLS_STORE_MAX_BYTES) {
        ws_warning("etlshark: %s is larger than a TraceLogging field store can be; not read",
                   path);
        return;
    }
    if (!g_file_get_contents(path, &text, &len, &err)) {
        ws_warning("etlshark: cannot read the TraceLogging field store: %s", err->message);
        g_error_free(err);
        return;
    }
    /* g_file_get_contents NUL-terminates, so every line can be terminated in place. */
    p = text;
    end = text + len;
    while (p < end) {
        char *eol = (char *)memchr(p, '\n', (size_t)(end - p));
        const char *why;

        if (eol == NULL)
            eol = end;
        lineno++;
        /* A NUL inside a line would hide the rest of it from the parser: not a text line. */
        if (memchr(p, '\0', (size_t)(eol - p)) != NULL) {
            why = "contains a NUL byte";
        } else {
            *eol = '\0';
            if (eol > p && eol[-1] == '\r')
                eol[-1] = '\0';
            why = etls_load_line(p);
        }
        if (why != NULL) {
            if (bad < ETLS_STORE_MAX_WARNINGS)
                ws_warning("etlshark: %s:%u: %s; line ignored", path, lineno, why);
            bad++;
        }
        p = eol + 1;
    }
    if (bad > ETLS_STORE_MAX_WARNINGS)
        ws_warning("etlshark: %s: %u more lines ignored", path, bad - ETLS_STORE_MAX_WARNINGS);
    g_free(text);
}

void
etls_fields_register(int proto)
{
    char *path;

    etls_proto = proto;
    etls_by_abbrev = g_hash_table_new(g_str_hash, g_str_equal);
    etls_by_path = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    etls_unsaved_fields = g_array_new(FALSE, FALSE, sizeof(etls_unsaved));
    /* The profile is chosen before dissectors register (tshark -C, the GUI's last profile). */
    path = get_persconffile_path(ETLS_FIELDS_STORE, TRUE);
    etls_load(path);
    g_free(path);
}

/* ---- names ------------------------------------------------------------------------------- */

void
etls_fields_append_component(GString *path, const char *name)
{
    gsize start = path->len;

    for (const unsigned char *p = (const unsigned char *)name; *p != '\0'; p++)
        g_string_append_c(path, (g_ascii_isalnum(*p) || *p == '_' || *p == '-') ? (char)*p : '_');
    if (path->len == start)
        g_string_append_c(path, '_');
    else if (path->str[start] == '-')
        path->str[start] = '_';
}

/* ---- resolution --------------------------------------------------------------------------- */

/* Apply the naming rule (etl_fields.h) for a path not resolved for this type yet. */
static int
etls_resolve(const char *path, etls_ftype t)
{
    GString *name = g_string_new(NULL);
    int id = ETLS_ID_NONE;

    for (unsigned n = 0; n < ETLS_MAX_CANDIDATES; n++) {
        etls_field *f;

        g_string_assign(name, ETLS_FIELDS_PREFIX);
        g_string_append(name, path);
        if (name->len > strlen(ETLS_FIELDS_PREFIX) + ETLS_FIELDS_MAX_PATH) {
            /* Cut, keeping the abbreviation valid: no trailing '.' */
            g_string_truncate(name, strlen(ETLS_FIELDS_PREFIX) + ETLS_FIELDS_MAX_PATH);
            while (name->len > 0 && name->str[name->len - 1] == '.')
                g_string_truncate(name, name->len - 1);
        }
        if (n >= 1)
            g_string_append_printf(name, "_%s", etls_ftypes[t].code);
        if (n >= 2)
            g_string_append_printf(name, "_%u", n);

        f = (etls_field *)g_hash_table_lookup(etls_by_abbrev, name->str);
        if (f != NULL) {
            if (f->type == t) {
                id = f->id;
                break;
            }
            continue; /* taken by another type: next candidate */
        }
        if (!etls_valid_abbrev(name->str))
            break;
        if (proto_registrar_get_byname(name->str) != NULL)
            continue; /* not ours (cannot happen with our prefix, but never share a name) */
        if (etls_field_count >= ETLS_FIELDS_MAX) {
            if (!etls_warned_limit) {
                etls_warned_limit = true;
                ws_warning("etlshark: more than %u distinct TraceLogging fields; further ones "
                           "are shown without a typed %s<name> field",
                           ETLS_FIELDS_MAX, ETLS_FIELDS_PREFIX);
            }
            break;
        }
        f = etls_register(name->str, t);
        if (etls_remember) {
            etls_unsaved u = { f->abbrev, t };

            g_array_append_val(etls_unsaved_fields, u);
        }
        id = f->id;
        break;
    }
    g_string_free(name, TRUE);
    return id;
}

int
etls_fields_hf(const char *path, etls_ftype t)
{
    int *ids;

    if (etls_by_path == NULL || (unsigned)t >= ETLS_FT_COUNT)
        return -1;
    ids = (int *)g_hash_table_lookup(etls_by_path, path);
    if (ids == NULL) {
        ids = g_new(int, ETLS_FT_COUNT);
        for (unsigned i = 0; i < ETLS_FT_COUNT; i++)
            ids[i] = ETLS_ID_UNRESOLVED;
        g_hash_table_insert(etls_by_path, g_strdup(path), ids);
    }
    if (ids[t] == ETLS_ID_UNRESOLVED)
        ids[t] = etls_resolve(path, t);
    return ids[t] >= 0 ? ids[t] : -1;
}

void
etls_fields_remember(bool on)
{
    etls_remember = on;
}

/* ---- the store: writing ------------------------------------------------------------------- */

static void
etls_save_failed(const char *what, const char *path, const char *why)
{
    if (etls_warned_save)
        return;
    etls_warned_save = true;
    ws_warning("etlshark: cannot %s the TraceLogging field store %s: %s; fields first seen in "
               "this run are not remembered for the next one", what, path, why);
}

void
etls_fields_save(bool force)
{
    gint64 now;
    char *dir = NULL;
    char *path = NULL;
    gchar *old = NULL;
    gsize old_len = 0;
    GString *out = NULL;
    GHashTable *present = NULL;
    GError *err = NULL;
    GStatBuf st;

    if (etls_unsaved_fields == NULL || etls_unsaved_fields->len == 0)
        return;
    now = g_get_monotonic_time();
    if (!force && etls_last_save != 0 && now - etls_last_save < G_USEC_PER_SEC)
        return;
    etls_last_save = now;

    if (create_persconffile_dir(&dir) != 0) {
        etls_save_failed("create the folder of", dir != NULL ? dir : "?", g_strerror(errno));
        goto done;
    }
    path = get_persconffile_path(ETLS_FIELDS_STORE, TRUE);
    out = g_string_new(NULL);
    present = g_hash_table_new(g_str_hash, g_str_equal);

    /* Re-read the store: another Wireshark may have added fields since we started.  Its lines
     * are kept byte for byte (even ones we could not use) and ours go after them. */
    if (g_stat(path, &st) == 0) {
        char *p, *end;

        if ((guint64)st.st_size > ETLS_STORE_MAX_BYTES) {
            etls_save_failed("update", path, "the file is too large to be a field store");
            goto done;
        }
        if (!g_file_get_contents(path, &old, &old_len, &err)) {
            etls_save_failed("read", path, err->message);
            g_error_free(err);
            goto done;
        }
        g_string_append_len(out, old, (gssize)old_len);
        if (old_len > 0 && old[old_len - 1] != '\n')
            g_string_append_c(out, '\n');
        /* First word of each line (a field name, or anything): names already written. */
        p = old;
        end = old + old_len;
        while (p < end) {
            char *eol = (char *)memchr(p, '\n', (size_t)(end - p));
            char *w;

            if (eol == NULL)
                eol = end;
            *eol = '\0';
            while (*p == ' ' || *p == '\t')
                p++;
            w = p;
            while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r')
                p++;
            *p = '\0';
            if (*w != '\0')
                g_hash_table_add(present, w);
            p = eol + 1;
        }
    } else if (errno == ENOENT) {
        g_string_append(out,
            "# etlshark: typed display-filter fields of TraceLogging events, one per line:\n"
            "# \"<field> <type>\".  Written by the etlshark dissector when it meets a field it\n"
            "# has not registered before, read when Wireshark starts.  A field keeps the name\n"
            "# and type it was first given (see \"TraceLogging fields in Wireshark\" in\n"
            "# etlshark's README).\n");
    } else {
        etls_save_failed("read", path, g_strerror(errno));
        goto done;
    }

    for (guint i = 0; i < etls_unsaved_fields->len; i++) {
        const etls_unsaved *u = &g_array_index(etls_unsaved_fields, etls_unsaved, i);

        if (g_hash_table_contains(present, u->abbrev))
            continue; /* written meanwhile by another process (whose type then wins) */
        g_string_append_printf(out, "%s %s\n", u->abbrev, etls_ftypes[u->type].code);
    }
    /* Written to a temporary file in the same folder, then renamed over the store. */
    if (!g_file_set_contents(path, out->str, (gssize)out->len, &err)) {
        etls_save_failed("write", path, err->message);
        g_error_free(err);
    }

done:
    /* Saved or not, these are not retried: a store that cannot be written is warned about once. */
    g_array_set_size(etls_unsaved_fields, 0);
    if (present != NULL)
        g_hash_table_destroy(present);
    if (out != NULL)
        g_string_free(out, TRUE);
    g_free(old);
    g_free(path);
    g_free(dir);
}

void
etls_fields_shutdown(void)
{
    etls_fields_save(true);
    /* etls_by_abbrev, its keys and the fields stay: Wireshark still holds them. */
    if (etls_by_path != NULL) {
        g_hash_table_destroy(etls_by_path);
        etls_by_path = NULL;
    }
    if (etls_unsaved_fields != NULL) {
        g_array_free(etls_unsaved_fields, TRUE);
        etls_unsaved_fields = NULL;
    }
}
