/* schema.c - building compiled schemas (schema.h), and the names of the TDH type numbers. */
#include "schema.h"
#include "message.h"
#include "value_format.h"

#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- allocation ------------------------------------------------------------------------- */

void *etl_mem_alloc(const etl_allocator *a, size_t size)
{
    return a && a->alloc ? a->alloc(a->ctx, size) : malloc(size);
}

void *etl_mem_realloc(const etl_allocator *a, void *p, size_t size)
{
    return a && a->realloc ? a->realloc(a->ctx, p, size) : realloc(p, size);
}

void etl_mem_free(const etl_allocator *a, void *p)
{
    if (!p)
        return;
    if (a && a->free)
        a->free(a->ctx, p);
    else
        free(p);
}

/* ---- names ------------------------------------------------------------------------------ */

const char *etl_in_type_name(unsigned t)
{
    static const char *const names[] = {
        "NULL",        "UNICODESTRING", "ANSISTRING",   "INT8",          "UINT8",
        "INT16",       "UINT16",        "INT32",        "UINT32",        "INT64",
        "UINT64",      "FLOAT",         "DOUBLE",       "BOOLEAN",       "BINARY",
        "GUID",        "POINTER",       "FILETIME",     "SYSTEMTIME",    "SID",
        "HEXINT32",    "HEXINT64",      "COUNTEDSTRING", "COUNTEDANSISTRING", "STRUCT",
        "COUNTEDBINARY",
    };
    static const char *const names300[] = {
        "MOF_COUNTEDSTRING", "MOF_COUNTEDANSISTRING", "REVERSEDCOUNTEDSTRING", "REVERSEDCOUNTEDANSISTRING",
        "NONNULLTERMINATEDSTRING", "NONNULLTERMINATEDANSISTRING", "UNICODECHAR", "ANSICHAR",
        "SIZET", "HEXDUMP", "WBEMSID",
    };
    if (t >= 300 && t - 300 < sizeof names300 / sizeof names300[0])
        return names300[t - 300];
    return t < sizeof names / sizeof names[0] ? names[t] : NULL;
}

const char *etl_out_type_name(unsigned t)
{
    static const char *const names[] = {
        "NULL",          "STRING",        "DATETIME",      "BYTE",          "UNSIGNEDBYTE",
        "SHORT",         "UNSIGNEDSHORT", "INT",           "UNSIGNEDINT",   "LONG",
        "UNSIGNEDLONG",  "FLOAT",         "DOUBLE",        "BOOLEAN",       "GUID",
        "HEXBINARY",     "HEXINT8",       "HEXINT16",      "HEXINT32",      "HEXINT64",
        "PID",           "TID",           "PORT",          "IPV4",          "IPV6",
        "SOCKETADDRESS", "CIMDATETIME",   "ETWTIME",       "XML",           "ERRORCODE",
        "WIN32ERROR",    "NTSTATUS",      "HRESULT",       "CULTURE_INSENSITIVE_DATETIME",
        "JSON",          "UTF8",          "PKCS7_WITH_TYPE_INFO", "CODE_POINTER", "DATETIME_UTC",
    };
    if (t < sizeof names / sizeof names[0])
        return names[t];
    if (t == ETL_OUT_REDUCEDSTRING)
        return "REDUCEDSTRING";
    if (t == ETL_OUT_NOPRINT)
        return "NOPRINT";
    return NULL;
}

const char *etl_schema_reason(const etl_schema *s)
{
    if (s->complete || s->unsupported_at >= s->step_count)
        return NULL;
    return s->strings + s->steps[s->unsupported_at].data;
}

/* ---- builder ---------------------------------------------------------------------------- */

void etl_schema_builder_init(etl_schema_builder *b, const etl_allocator *alloc)
{
    memset(b, 0, sizeof *b);
    if (alloc)
        b->alloc = *alloc;
}

void etl_schema_builder_free(etl_schema_builder *b)
{
    etl_mem_free(&b->alloc, b->steps);
    etl_mem_free(&b->alloc, b->strings);
    etl_mem_free(&b->alloc, b->bytes);
    etl_allocator a = b->alloc;
    memset(b, 0, sizeof *b);
    b->alloc = a;
}

/* Grow a buffer to hold `need` units of `unit` bytes; false when out of memory. */
static bool grow(etl_schema_builder *b, void **p, uint32_t *cap, uint32_t need, size_t unit)
{
    if (need <= *cap)
        return true;
    uint32_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = etl_mem_realloc(&b->alloc, *p, (size_t)n * unit);
    if (!q) {
        b->failed_nomem = true;
        return false;
    }
    *p = q;
    *cap = n;
    return true;
}

void etl_schema_builder_reset(etl_schema_builder *b, uint8_t source, uint8_t pointer_size)
{
    b->step_count = 0;
    b->strings_len = 0;
    b->bytes_len = 0;
    b->source = source;
    b->pointer_size = pointer_size;
    b->field_count = 0;
    b->event_name = 0;
    b->event_tags = 0;
    b->provider_name = b->task_name = b->opcode_name = b->level_name = 0;
    b->channel_name = b->keywords_name = b->message = b->origin = 0;
    b->schema_version = 0;
    b->ref_slots = 0;
    b->unknown = false;
    b->failed_nomem = false;
    b->failed = false;
    b->fail_code = ETL_OK;
    b->fail_at = 0;
    b->fail_reason[0] = '\0';
    /* offset 0 is always the empty string, so a name that failed to copy still reads as "" */
    etl_schema_builder_add_string(b, "", 0);
}

uint32_t etl_schema_builder_add_string(etl_schema_builder *b, const char *s, size_t len)
{
    if (len > ETL_SCHEMA_MAX_METADATA || b->strings_len + len + 1 > UINT32_MAX / 2)
        return 0;
    uint32_t need = b->strings_len + (uint32_t)len + 1;
    if (!grow(b, (void **)&b->strings, &b->strings_cap, need, 1))
        return 0;
    uint32_t off = b->strings_len;
    if (len)
        memcpy(b->strings + off, s, len);
    b->strings[off + len] = '\0';
    b->strings_len = need;
    return off;
}

uint32_t etl_schema_builder_add_bytes(etl_schema_builder *b, const uint8_t *p, size_t len)
{
    if (len > ETL_SCHEMA_MAX_METADATA)
        return 0;
    if (!grow(b, (void **)&b->bytes, &b->bytes_cap, b->bytes_len + (uint32_t)len, 1))
        return 0;
    uint32_t off = b->bytes_len;
    if (len)
        memcpy(b->bytes + off, p, len);
    b->bytes_len += (uint32_t)len;
    return off;
}

bool etl_schema_builder_fail(etl_schema_builder *b, etl_status code, size_t at, const char *fmt, ...)
{
    if (!b->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(b->fail_reason, sizeof b->fail_reason, fmt, ap);
        va_end(ap);
        b->failed = true;
        b->fail_code = code;
        b->fail_at = at;
    }
    return false;
}

/* A step index, or the failure said once: memory or the step limit. */
static uint32_t checked(etl_schema_builder *b, uint32_t i, size_t at)
{
    if (i == UINT32_MAX) {
        if (b->failed_nomem)
            etl_schema_builder_fail(b, ETL_ERR_NOMEM, at, "out of memory");
        else
            etl_schema_builder_fail(b, ETL_ERR_LIMIT, at, "more than %u decode steps", ETL_SCHEMA_MAX_STEPS);
    }
    return i;
}

static uint32_t append_step(etl_schema_builder *b, const etl_schema_step *st)
{
    if (b->step_count >= ETL_SCHEMA_MAX_STEPS)
        return UINT32_MAX;
    if (!grow(b, (void **)&b->steps, &b->step_cap, b->step_count + 1, sizeof *b->steps))
        return UINT32_MAX;
    etl_schema_step *dst = &b->steps[b->step_count];
    *dst = *st;
    /* The one place a step's nominal type is worked out (schema.h): every source adds its
     * steps here.  A custom value is opaque bytes whatever its out-type (fields.h). */
    if (st->op == ETL_OP_VALUE || st->op == ETL_OP_CUSTOM)
        dst->nominal = etl_value_type_nominal(st->in_type, st->op == ETL_OP_CUSTOM ? ETL_OUT_NULL : st->out_type,
                                              b->pointer_size);
    else
        memset(&dst->nominal, 0, sizeof dst->nominal);
    return b->step_count++;
}

uint32_t etl_schema_builder_add_step(etl_schema_builder *b, const etl_schema_step *st, size_t at)
{
    return checked(b, append_step(b, st), at);
}

void etl_schema_builder_unsupported(etl_schema_builder *b, const char *fmt, ...)
{
    char reason[160];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof reason)
        n = sizeof reason - 1;
    etl_schema_step st = {0};
    st.op = ETL_OP_UNSUPPORTED;
    st.data = etl_schema_builder_add_string(b, reason, (size_t)n);
    st.depth = 0;
    /* The step limit must not swallow the reason: overwrite the last step if full. */
    if (append_step(b, &st) == UINT32_MAX && b->step_count > 0)
        b->steps[b->step_count - 1] = st;
    /* Containers the failure left open end at the UNSUPPORTED step. */
    uint32_t last = b->step_count ? b->step_count - 1 : 0;
    for (uint32_t i = 0; i < b->step_count; i++)
        if (b->steps[i].match == UINT32_MAX)
            b->steps[i].match = last;
}

uint32_t etl_schema_builder_close(etl_schema_builder *b, uint32_t begin, uint8_t end_op, size_t at)
{
    etl_schema_step st = b->steps[begin];
    st.op = end_op;
    st.match = begin;
    uint32_t end = etl_schema_builder_add_step(b, &st, at);
    if (end != UINT32_MAX)
        b->steps[begin].match = end;
    return end;
}

bool etl_schema_builder_end_field(etl_schema_builder *b, uint32_t array_at, size_t at)
{
    if (array_at != UINT32_MAX && etl_schema_builder_close(b, array_at, ETL_OP_ARRAY_END, at) == UINT32_MAX)
        return false;
    if (b->failed_nomem)
        return etl_schema_builder_fail(b, ETL_ERR_NOMEM, at, "out of memory");
    return !b->failed;
}

etl_status etl_schema_builder_conclude(etl_schema_builder *b, const char *what, const char *context, etl_error *err)
{
    if (b->failed_nomem)
        etl_schema_builder_fail(b, ETL_ERR_NOMEM, 0, "out of memory");
    if (!b->failed)
        return ETL_OK;
    if (b->fail_code == ETL_ERR_NOMEM)
        return etl_fail(err, ETL_ERR_NOMEM, 0, "out of memory compiling %s", what);
    etl_schema_builder_unsupported(b, "%s", b->fail_reason); /* also closes what the problem left open */
    return etl_fail(err, b->fail_code, b->fail_at, "%s: %s", context, b->fail_reason);
}

static size_t align8(size_t v)
{
    return (v + 7u) & ~(size_t)7u;
}

/* The message compiled (message.h) is laid out after the key: its pieces, then its literal
 * text.  WPP messages are formatted by their own code (wpp_format.h): not compiled. */
static const char *builder_message(const etl_schema_builder *b)
{
    return b->message && b->source != ETL_SCHEMA_WPP && b->message < b->strings_len ? b->strings + b->message : NULL;
}

static size_t message_size(const etl_schema_builder *b)
{
    size_t pieces, lits;
    etl_message_compile(builder_message(b), NULL, NULL, &pieces, &lits);
    return align8(pieces * sizeof(etl_message_piece)) + align8(lits);
}

size_t etl_schema_builder_size(const etl_schema_builder *b, size_t key_len)
{
    return align8(sizeof(etl_schema)) + align8((size_t)b->step_count * sizeof(etl_schema_step)) +
           align8(b->strings_len) + align8(b->bytes_len) + align8(key_len) + message_size(b);
}

/* Number the repeats of a name among the JSON-key siblings of one container (the members of a
 * struct, or the top-level fields): the second "x" gets dup 2, the third dup 3.  Done once per
 * schema here so that writers never compare names per event.  Array elements are not keys (the
 * array's ARRAY_BEGIN is), and an element struct's members are siblings of each other. */
static void number_duplicates(etl_schema *s, etl_schema_step *steps)
{
    uint32_t parent[ETL_SCHEMA_MAX_DEPTH + 1]; /* first step of the current sibling group */
    int top = 0;
    parent[0] = 0;
    for (uint32_t i = 0; i < s->step_count; i++) {
        etl_schema_step *st = &steps[i];
        bool is_key = !(st->flags & ETL_STEP_ELEMENT) &&
                      (st->op == ETL_OP_VALUE || st->op == ETL_OP_CUSTOM || st->op == ETL_OP_STRUCT_BEGIN ||
                       st->op == ETL_OP_ARRAY_BEGIN);
        if (is_key) {
            /* siblings are the key steps after parent[top] at the same depth */
            uint16_t n = 1;
            for (uint32_t k = parent[top]; k < i; k++) {
                const etl_schema_step *o = &steps[k];
                if (o->depth == st->depth && !(o->flags & ETL_STEP_ELEMENT) &&
                    (o->op == ETL_OP_VALUE || o->op == ETL_OP_CUSTOM || o->op == ETL_OP_STRUCT_BEGIN ||
                     o->op == ETL_OP_ARRAY_BEGIN) &&
                    strcmp(s->strings + o->name, s->strings + st->name) == 0 && n < UINT16_MAX)
                    n++;
            }
            st->dup = n >= 2 ? n : 0;
        }
        if (st->op == ETL_OP_STRUCT_BEGIN && top < (int)ETL_SCHEMA_MAX_DEPTH)
            parent[++top] = i + 1;
        else if (st->op == ETL_OP_STRUCT_END && top > 0)
            top--;
    }
}

etl_schema *etl_schema_builder_emit(const etl_schema_builder *b, void *mem, const uint8_t *key, size_t key_len)
{
    uint8_t *p = mem;
    etl_schema *s = (etl_schema *)p;
    memset(s, 0, sizeof *s);
    p += align8(sizeof *s);
    etl_schema_step *steps = (etl_schema_step *)p;
    if (b->step_count)
        memcpy(steps, b->steps, (size_t)b->step_count * sizeof *steps);
    p += align8((size_t)b->step_count * sizeof *steps);
    char *strings = (char *)p;
    if (b->strings_len)
        memcpy(strings, b->strings, b->strings_len);
    p += align8(b->strings_len);
    uint8_t *bytes = p;
    if (b->bytes_len)
        memcpy(bytes, b->bytes, b->bytes_len);
    p += align8(b->bytes_len);
    uint8_t *k = p;
    if (key_len)
        memcpy(k, key, key_len);
    p += align8(key_len);
    size_t n_pieces, n_lits;
    const char *message = builder_message(b);
    etl_message_compile(message, NULL, NULL, &n_pieces, &n_lits);
    etl_message_piece *pieces = (etl_message_piece *)p;
    char *lits = (char *)p + align8(n_pieces * sizeof *pieces);
    etl_message_compile(message, pieces, lits, &n_pieces, &n_lits);

    s->index = UINT32_MAX;
    s->source = b->source;
    s->pointer_size = b->pointer_size;
    s->step_count = b->step_count;
    s->field_count = b->field_count;
    s->event_name = b->event_name;
    s->event_tags = b->event_tags;
    s->provider_name = b->provider_name;
    s->task_name = b->task_name;
    s->opcode_name = b->opcode_name;
    s->level_name = b->level_name;
    s->channel_name = b->channel_name;
    s->keywords_name = b->keywords_name;
    s->message = b->message;
    s->message_max_insert =
        s->message ? (uint8_t)etl_message_inserts(strings + s->message, s->message_inserts) : 0;
    s->message_piece_count = (uint32_t)n_pieces;
    s->message_pieces = n_pieces ? pieces : NULL;
    s->message_literals = lits;
    s->origin = b->origin;
    s->schema_version = b->schema_version;
    s->ref_slots = b->ref_slots;
    s->unknown = b->unknown;
    s->steps = steps;
    s->strings = strings;
    s->strings_len = b->strings_len;
    s->bytes = bytes;
    s->bytes_len = b->bytes_len;
    s->key = key ? k : NULL;
    s->key_len = (uint32_t)key_len;
    s->unsupported_at = s->step_count;
    s->complete = true;
    for (uint32_t i = 0; i < s->step_count; i++)
        if (steps[i].op == ETL_OP_UNSUPPORTED) {
            s->unsupported_at = i;
            s->complete = false;
            break;
        }
    number_duplicates(s, steps);
    /* the scalar runs' decision (fields.h), once the steps are final */
    for (uint32_t i = 0; i < s->step_count; i++)
        steps[i].scalar = etl_fields_step_scalar(&steps[i], s->pointer_size);
    return s;
}

etl_schema *etl_schema_builder_finish(const etl_schema_builder *b, const uint8_t *key, size_t key_len)
{
    void *mem = etl_mem_alloc(&b->alloc, etl_schema_builder_size(b, key_len));
    if (!mem)
        return NULL;
    return etl_schema_builder_emit(b, mem, key, key_len);
}

void etl_schema_free(const etl_allocator *a, etl_schema *s)
{
    etl_mem_free(a, s);
}
