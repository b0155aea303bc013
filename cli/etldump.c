/* etldump - print every record of an .etl file as JSON Lines, or a summary of the file.
 *
 *   etldump [--order=time|file] [--window=N] [--no-payload] [--manifest-path PATH]... [--tmf-path PATH]... FILE
 *   etldump --summary FILE
 *   etldump --verify-positions FILE   (re-read every record by its position and compare)
 *   etldump --write OUT.etl [SELECTION] FILE   (write_out.c: the selection as a new .etl)
 *   etldump --pcapng OUT [--first-appearance] FILE   (pcapng_out.c: the packets as pcapng)
 *
 * Exit status: 0 when everything was read; 1 when the file was read with damage (all that is
 * readable is still printed, each problem on stderr with its file offset); 2 when the input is
 * unusable (missing, empty, not an .etl file), with one line saying why.
 *
 * A thin user of the decoder's public API: the Wireshark plugin reads through the same calls.
 *
 * Schemas.  TraceLogging events describe themselves.  Manifest-based events (EVENT_HEADER records
 * without TraceLogging metadata) find theirs in the schema registry (registry.h), from, in this
 * precedence: manifest files on the search path; EventSource manifests in the trace; schemas the
 * trace carries (KernelTraceControl MetaData); the built-in pktmon and netsh layouts.  The search path is every --manifest-path PATH
 * (in the order given), then $ETLSHARK_MANIFEST_PATH; each is a ':'-separated list of manifest
 * files and folders (a folder's *.man and *.xml files are read in name order).  A manifest that
 * does not parse is reported on stderr with its file and line, and the others still load.
 * WPP messages find their format in TMF files: every --tmf-path PATH, then $ETLSHARK_TMF_PATH,
 * files and folders (*.tmf) the same way (docs/wpp.md).
 * Before decoding, etldump reads the trace once to collect the schemas it carries (MetaData
 * records, EventSource manifest chunks), so every event decodes whatever its position.
 *
 * Output.  Every key, when it appears and how its value reads, is written once, in
 * docs/etldump-json.md: keep it in step with write_record, write_resolved and write_value.
 * Every decision behind those keys (schema, names, value text) is the decoder's
 * (resolve.h, fields.h, value_format.h); this file only writes what they return.
 */
#include <math.h>
#ifdef __GLIBC__
#include <malloc.h> /* mallopt */
#endif
#include <pthread.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <stdio_ext.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl.h"
#include "etl_format.h"
#include "fields.h"
#include "json.h"
#include "message.h"
#include "options.h"
#include "parallel.h"
#include "pcapng_out.h"
#include "prescan.h"
#include "procs.h"
#include "registry.h"
#include "resolve.h"
#include "thread.h" /* the decoder's own (read/): etl_thread_start */
#include "value_format.h"
#include "volumes.h"
#include "wpp.h"
#include "write_out.h"

/* ---- per-record JSON -------------------------------------------------------------------- */

/* The small key writers are inlined (JSON_INLINE) so each key stays a literal: json.h then
 * writes it with fixed moves instead of measuring and scanning it per record. */
JSON_INLINE void key_guid(json_out *j, const char *key, const etl_guid *g)
{
    char s[ETL_GUID_STR_SIZE];
    etl_format_guid(g, s);
    json_key(j, key);
    json_string(j, s);
}

static void write_ext(json_out *j, const etl_ext_item *it)
{
    const char *name = etl_ext_type_name(it->type);
    json_begin_object(j);
    json_key(j, "type");
    if (name)
        json_string(j, name);
    else
        json_u64(j, it->type);
    json_key_u64(j, "size", it->data_size);
    etl_guid g;
    uint32_t u32;
    uint64_t u64, match;
    uint32_t count;
    char sid[ETL_SID_STR_SIZE];
    switch (it->type) {
    case ETL_EXT_RELATED_ACTIVITYID:
    case ETL_EXT_CONTROL_GUID:
    case ETL_EXT_CONTAINER_ID:
        if (etl_ext_guid(it, &g)) {
            key_guid(j, "guid", &g);
            goto done;
        }
        break;
    case ETL_EXT_SID:
        if (etl_format_sid(it->data, it->data_size, sid)) {
            json_key_string(j, "sid", sid);
            goto done;
        }
        break;
    case ETL_EXT_TS_ID:
        if (etl_ext_u32(it, &u32)) {
            json_key_u64(j, "session_id", u32);
            goto done;
        }
        break;
    case ETL_EXT_INSTANCE_INFO:
        if (it->data_size >= 24) {
            json_key_u64(j, "instance_id", (uint32_t)(it->data[0] | it->data[1] << 8 | it->data[2] << 16 | (uint32_t)it->data[3] << 24));
            json_key_u64(j, "parent_instance_id", (uint32_t)(it->data[4] | it->data[5] << 8 | it->data[6] << 16 | (uint32_t)it->data[7] << 24));
            etl_read_guid(it->data + 8, &g);
            key_guid(j, "parent_guid", &g);
            goto done;
        }
        break;
    case ETL_EXT_STACK_TRACE32:
    case ETL_EXT_STACK_TRACE64:
        if (etl_ext_stack(it, &match, &count)) {
            json_key_u64(j, "match_id", match);
            json_key(j, "addresses");
            json_begin_array(j);
            for (uint32_t i = 0; i < count; i++)
                json_hex_u64(j, etl_ext_stack_address(it, i));
            json_end_array(j);
            goto done;
        }
        break;
    case ETL_EXT_PEBS_INDEX:
    case ETL_EXT_PSM_KEY:
    case ETL_EXT_EVENT_KEY:
    case ETL_EXT_PROCESS_START_KEY:
    case ETL_EXT_QPC_DELTA:
        if (etl_ext_u64(it, &u64)) {
            json_key_u64(j, "value", u64);
            goto done;
        }
        break;
    case ETL_EXT_PMC_COUNTERS:
        json_key(j, "counters");
        json_begin_array(j);
        for (uint32_t i = 0; i + 8 <= it->data_size; i += 8) {
            etl_ext_item one = *it;
            one.data = it->data + i;
            one.data_size = 8;
            etl_ext_u64(&one, &u64);
            json_u64(j, u64);
        }
        json_end_array(j);
        goto done;
    default:
        break;
    }
    /* Types without a decoding here (TraceLogging schema, provider traits, stack keys, ...)
     * and items too short for their type: the data as hex. */
    json_key(j, "data_hex");
    json_hex_bytes(j, it->data, it->data_size);
done:
    json_end_object(j);
}

/* ---- decoded fields ---------------------------------------------------------------------- */

/* json.c has no writer for a bare number in text form (doubles, big integers stay strings);
 * this one follows its comma rule: a value after a key or a first element gets none. */

#define JSON_SAFE_INT (1ULL << 53) /* integers beyond this lose precision in a double */

/* The keys of a schema's steps in JSON form ("key":), side by side in one table per schema, for
 * the scalar runs: a key is then one fixed 32-byte copy from memory the schema's records keep
 * warm, instead of a lookup in the writer's memo (whose slots are spread by hash).  The keys
 * are the decoder's (etl_fields_step_key); a key longer than KEY_PLAN_TEXT or needing escapes
 * has no entry and goes through field_key's memo.  Per thread, direct-mapped by the schema's
 * arena index, the entries in an arena that starts over when full (a schema stays in the
 * decoder's cache for the decoder's life, so its address and index name it). */
#define KEY_PLAN_TEXT 31u
#define KEY_PLAN_SLOTS 256u
#define KEY_PLAN_ARENA 8192u /* entries: 256 KiB */
typedef struct key_entry {
    char text[KEY_PLAN_TEXT]; /* "key": */
    uint8_t len;              /* 0: no entry */
} key_entry;
typedef struct key_plan {
    const etl_schema *schema;
    uint32_t at; /* the first step's entry in the arena */
} key_plan;
typedef struct key_plans {
    key_plan slot[KEY_PLAN_SLOTS];
    uint32_t used;
    key_entry arena[KEY_PLAN_ARENA];
} key_plans;

/* The names of a decoded manifest or classic record - provider_name (and its source) to
 * keywords_name - as one block of text remembered per thread by the schema and the names'
 * addresses, when every name is a string of the schema (stable for the decoder's life, as for
 * key_schema_name), short and free of escapes: one lookup and one copy instead of a lookup and
 * a copy per name.  Other records take key_schema_name name by name. */
#define NAMES_NAMES 7
#define NAMES_TEXT_MAX 640u /* 7 pairs of 64-byte names with their keys, and the source pair */
#define NAMES_SLOTS 64u
typedef struct names_text {
    const etl_schema *schema;
    const char *names[NAMES_NAMES]; /* provider, event, task, opcode, level, channel, keywords */
    etl_name_source from;
    bool valid, ok; /* ok: the names make a block (else write them one by one) */
    uint16_t len;
    char text[NAMES_TEXT_MAX]; /* each pair with its leading ',' */
} names_text;

/* The provider GUID's text, remembered per thread in a few slots by GUID: a trace has few
 * providers, so formatting one is mostly a 16-byte compare and a 36-byte copy. */
typedef struct guid_text {
    etl_guid g;
    bool valid;
    char text[ETL_GUID_STR_SIZE];
} guid_text;
#define GUID_TEXT_SLOTS 16u

/* The run's part from "provider" to "keyword" - what one event kind's records share: ~170
 * bytes at most (KIND_TEXT_MAX), remembered per thread in a few slots by those values and copied
 * whole when met again instead of formatted (seven numbers, a GUID). */
#define KIND_TEXT_MAX 192u
#define KIND_TEXT_SLOTS 512u
typedef struct kind_text {
    etl_guid provider;
    uint64_t ids;     /* event_id, version, channel, level, opcode, task (kind_ids) */
    uint64_t keyword;
    bool has_provider, valid;
    uint8_t len;
    char text[KIND_TEXT_MAX];
} kind_text;

/* Top-level string fields with a DOS form per record, at most (more are left out). */
#define DOS_PATHS_MAX 16

/* A header type's name and length (write_header: the names are the library's constants). */
typedef struct header_type_name {
    const char *name;
    size_t len;
} header_type_name;

/* A formatting thread's scratch: converted text (value_text) and rendered text (value_out),
 * big enough for any value of a record (< 64 KiB), a record's message text and the thread's
 * key plans.  Every formatting scratch is the thread's own (--threads: parallel.h).  This one
 * is on the heap, made once per formatting thread (par_new, read_trace): as thread storage
 * its 0.7 MiB were zeroed at every thread's start, pages most runs never touch, and calloc's
 * fresh pages are touched only where used. */
typedef struct fmt_scratch {
    char value_text[ETL_VALUE_TEXT_CAP(65536)];
    char value_out[ETL_VALUE_TEXT_CAP(65536)];
    char message_text[65536];
    key_plans kp;
    /* what the formatting functions remember or convert into (each function's comment says
     * which is its): here, not in thread storage, where every thread's start zeroed their
     * 210 KiB - the reader's loader threads' and the pre-scan's too, which never format - and
     * the main thread's at the program's start, 50-odd page faults each */
    etl_message_scratch message;
    char dos[DOS_PATHS_MAX][ETL_VOLUMES_MAX_PATH * 2];
    char dos_text[ETL_VALUE_TEXT_CAP(ETL_VOLUMES_MAX_PATH * 2)];
    names_text names_memo[NAMES_SLOTS];
    guid_text guid_memo[GUID_TEXT_SLOTS];
    kind_text kind_memo[KIND_TEXT_SLOTS];
    header_type_name ht[256];
    etl_time_cache tc; /* records come in time order: most share the last one's second */
} fmt_scratch;
/* The formatting thread's scratch, set before it formats a record (format_slot, read_trace). */
static _Thread_local fmt_scratch *scratch;

/* Room a value takes in a run after its key (write_value): a number, a hex integer or a short
 * string with its quotes. */
#define VALUE_RUN_ROOM (JSON_SHORT_STRING + 8u)

/* The item's key before the value when the value does not go in a run. */
JSON_INLINE void value_key(json_out *j, const json_key_memo *key)
{
    if (key)
        json_key_memo_write(j, key);
}

/* An item's value, after its key: `key` is the item's remembered key (field_key), written here,
 * or NULL when the key is written already or there is none (an array element).  The common
 * values - integers, hex integers, short strings that need no escaping - go out with their key
 * in one run (json.h). */
static void write_decoded(json_out *j, const etl_value *vp, const json_key_memo *key);
static void write_value(json_out *j, const etl_item *it, const json_key_memo *key)
{
    etl_value v;
    size_t n;
    etl_value_decode(it, &v, scratch->value_text, sizeof scratch->value_text);
    if (it->map && etl_value_map_text(it, &v, scratch->value_out, sizeof scratch->value_out, &n)) {
        value_key(j, key);
        json_string_n(j, scratch->value_out, n); /* the value's names in its value map or bit map */
        return;
    }
    write_decoded(j, &v, key);
}

/* A decoded value (write_value without a map). */
static void write_decoded(json_out *j, const etl_value *vp, const json_key_memo *key)
{
    const etl_value v = *vp;
    char *t = scratch->value_out, *p;
    const size_t tcap = sizeof scratch->value_out;
    size_t n;
    switch (v.kind) {
    case ETL_VALUE_INT:
        if (v.v.i >= -(int64_t)JSON_SAFE_INT && v.v.i <= (int64_t)JSON_SAFE_INT) {
            p = json_run_begin_memo(j, key, VALUE_RUN_ROOM);
            json_run_end(j, json_run_i64(p, v.v.i));
        } else {
            n = etl_value_text(&v, t, tcap);
            value_key(j, key);
            json_string_n(j, t, n);
        }
        return;
    case ETL_VALUE_UINT:
        if (etl_value_int_style(&v) == ETL_INT_HEX) { /* "0x1F": the value text, written directly */
            p = json_run_begin_memo(j, key, VALUE_RUN_ROOM);
            json_run_end(j, json_run_hex_case(p, v.v.u, true));
            return;
        }
        if (etl_value_int_style(&v) == ETL_INT_DECIMAL && v.v.u <= JSON_SAFE_INT) {
            p = json_run_begin_memo(j, key, VALUE_RUN_ROOM);
            json_run_end(j, json_run_u64(p, v.v.u));
            return;
        }
        /* "5 (ERROR_ACCESS_DENIED)", or beyond a double's integers */
        n = etl_value_text(&v, t, tcap);
        value_key(j, key);
        json_string_n(j, t, n);
        return;
    case ETL_VALUE_STRING:
        if (v.str_len <= JSON_SHORT_STRING && !json_needs_escape(v.str, v.str_len)) {
            p = json_run_begin_memo(j, key, VALUE_RUN_ROOM);
            json_run_end(j, json_run_plain(p, v.str, v.str_len));
        } else {
            value_key(j, key);
            json_string_n(j, v.str, v.str_len);
        }
        return;
    default:
        break;
    }
    value_key(j, key);
    switch (v.kind) {
    case ETL_VALUE_DOUBLE:
        n = etl_value_text(&v, t, tcap);
        if (isfinite(v.v.d))
            json_raw(j, t, n);
        else
            json_string_n(j, t, n);
        return;
    case ETL_VALUE_BOOL:
        json_bool(j, v.v.b);
        return;
    case ETL_VALUE_GUID: {
        char g[ETL_GUID_STR_SIZE];
        etl_format_guid(&v.v.guid, g);
        json_string(j, g);
        return;
    }
    case ETL_VALUE_FILETIME:
        etl_format_filetime(v.v.filetime, t); /* ETL_TIME_STR_SIZE fits easily */
        json_string(j, t);
        return;
    case ETL_VALUE_BYTES:
        if (v.format == ETL_OUT_IPV4 || v.format == ETL_OUT_IPV6 || v.format == ETL_OUT_SOCKETADDRESS) {
            n = etl_value_text(&v, t, tcap);
            json_string_n(j, t, n);
            return;
        }
        json_hex_bytes(j, v.bytes, v.bytes_len);
        return;
    case ETL_VALUE_NONE:
    default:
        json_hex_bytes(j, v.bytes, v.bytes_len);
        return;
    }
}

/* The object key of an item (fields.h: "_N" on the Nth repeat of a name), remembered by the
 * writer under its schema's arena index and step: a schema in the decoder's cache stays, with
 * its names, until the decoder is freed (schema_cache.h), so the pair names one key.  Returns
 * the remembered key for the caller to write (with its value: write_value), or NULL when the
 * key was written here (met for the first time, or not one to remember). */
static const json_key_memo *field_key_new(json_out *j, const etl_item *it, uint32_t schema);
JSON_INLINE const json_key_memo *field_key(json_out *j, const etl_fields *f, const etl_item *it)
{
    uint32_t schema = f->schema ? f->schema->index : UINT32_MAX;
    const json_key_memo *m = schema != UINT32_MAX ? json_key_memo_find(j, schema, it->step, NULL) : NULL;
    return m ? m : field_key_new(j, it, schema);
}

/* field_key's key met for the first time (or not one to remember): written here. */
static const json_key_memo *field_key_new(json_out *j, const etl_item *it, uint32_t schema)
{
    char key[ETL_ITEM_KEY_MAX];
    const char *k = etl_item_key(it, key, sizeof key);
    json_key_memoize(j, schema, it->step, k, strlen(k));
    return NULL;
}

/* Scalars handed out at most per call of etl_fields_next_scalars (fields.h). */
#define SCALAR_RUN_MAX 32u


/* The entries of f's schema's steps (NULL when the schema has too many steps). */
static const key_entry *key_plan_build(key_plans *kp, key_plan *pl, const etl_fields *f)
{
    const etl_schema *s = f->schema;
    if (s->step_count > KEY_PLAN_ARENA)
        return NULL;
    if (kp->used + s->step_count > KEY_PLAN_ARENA) { /* full: every schema's plan starts over */
        memset(kp->slot, 0, sizeof kp->slot);
        kp->used = 0;
    }
    key_entry *e = &kp->arena[kp->used];
    for (uint32_t i = 0; i < s->step_count; i++) {
        char key[ETL_ITEM_KEY_MAX];
        const char *k = etl_fields_step_key(f, i, key, sizeof key);
        size_t n = strlen(k);
        e[i].len = 0;
        if (n + 3 <= KEY_PLAN_TEXT && !json_needs_escape(k, n)) {
            e[i].text[0] = '"';
            memcpy(e[i].text + 1, k, n);
            e[i].text[n + 1] = '"';
            e[i].text[n + 2] = ':';
            e[i].len = (uint8_t)(n + 3);
        }
    }
    pl->schema = s;
    pl->at = kp->used;
    kp->used += s->step_count;
    return e;
}

JSON_INLINE const key_entry *key_plan_of(const etl_fields *f)
{
    key_plans *kp = &scratch->kp;
    const etl_schema *s = f->schema;
    if (s->index == UINT32_MAX)
        return NULL;
    key_plan *pl = &kp->slot[s->index % KEY_PLAN_SLOTS];
    if (pl->schema == s)
        return &kp->arena[pl->at];
    return key_plan_build(kp, pl, f);
}

/* Does a scalar go as a JSON number (fields.h: its text is the number's)?  All but those beyond
 * a double's integers. */
JSON_INLINE bool scalar_is_number(const etl_scalar *sc)
{
    switch (sc->style) {
    case ETL_SCALAR_HEX: return true; /* a string, "0x1F" */
    case ETL_SCALAR_UINT: return sc->u <= JSON_SAFE_INT;
    default: return (int64_t)sc->u >= -(int64_t)JSON_SAFE_INT && (int64_t)sc->u <= (int64_t)JSON_SAFE_INT;
    }
}

/* A scalar's number at p (scalar_is_number): 21 bytes at most. */
JSON_INLINE char *scalar_number(char *p, const etl_scalar *sc)
{
    uint64_t u = sc->u;
    if (sc->style == ETL_SCALAR_HEX)
        return json_run_hex_case(p, u, true);
    if (sc->style == ETL_SCALAR_INT && (int64_t)u < 0) {
        *p++ = '-';
        u = (uint64_t)0 - u;
    }
    return json_run_u64(p, u);
}

/* Room a scalar takes in a run: its comma, its key (a plan entry's or a memo's) and its number. */
#define SCALAR_ROOM (1u + sizeof(((json_key_memo *)0)->text) + VALUE_RUN_ROOM)

/* write_scalars from scalar i on, whatever comes: p is the open run (NULL: none) and `sep` says
 * scalar i's separator is in it already.  Keys from the plan (if any) or field_key's memo, a key
 * met for the first time through json.c, a number beyond a double's through write_decoded; the
 * run resumes after either. */
static void write_scalars_from(json_out *j, const etl_fields *f, const etl_scalar *sc, unsigned n, bool keys,
                               const key_entry *plan, unsigned i, char *p, bool sep)
{
    uint32_t schema = f->schema->index;
    for (; i < n; i++, sep = false) {
        if (!p)
            p = json_run_begin(j, (n - i) * SCALAR_ROOM); /* after a lone key: no comma */
        else if (!sep)
            *p++ = ',';
        /* here the run is open and scalar i's separator is in it */
        if (keys) {
            const key_entry *e = plan ? &plan[sc[i].step] : NULL;
            const json_key_memo *m;
            if (e && e->len) {
                memcpy(p, e->text, sizeof *e);
                p += e->len;
            } else if ((m = schema != UINT32_MAX ? json_key_memo_find(j, schema, sc[i].step, NULL) : NULL)) {
                memcpy(p, m->text, sizeof m->text);
                p += m->len;
            } else { /* met for the first time: written (and remembered) through json.c */
                char key[ETL_ITEM_KEY_MAX];
                const char *k = etl_fields_step_key(f, sc[i].step, key, sizeof key);
                json_run_end(j, p);
                json_separator_written(j);
                json_key_memoize(j, schema, sc[i].step, k, strlen(k));
                p = json_run_begin(j, (n - i) * SCALAR_ROOM);
            }
        }
        if (scalar_is_number(&sc[i])) {
            p = scalar_number(p, &sc[i]);
            continue;
        }
        /* beyond a double's integers: the value's text as a string, its separator (the comma or
         * the key) already written */
        etl_value v;
        etl_scalar_value(f, &sc[i], &v);
        json_run_end(j, p);
        json_separator_written(j);
        write_decoded(j, &v, NULL);
        p = NULL;
    }
    if (p)
        json_run_end(j, p);
}

/* A run of scalars (fields.h), as write_value would write each: in an object (`keys`) every key
 * from the schema's key plan, in an array none, the numbers straight after, the whole run behind
 * one reservation; at the first scalar that needs more (a key without a plan entry, a number
 * beyond a double's) write_scalars_from takes over. */
static void write_scalars(json_out *j, const etl_fields *f, const etl_scalar *sc, unsigned n, bool keys)
{
    const key_entry *plan = keys ? key_plan_of(f) : NULL;
    if (keys && !plan) {
        write_scalars_from(j, f, sc, n, keys, NULL, 0, NULL, false);
        return;
    }
    char *p = json_run_begin(j, n * SCALAR_ROOM);
    unsigned i = 0;
    for (; i < n; i++) {
        const key_entry *e = plan ? &plan[sc[i].step] : NULL;
        if ((e && !e->len) || !scalar_is_number(&sc[i]))
            break;
        if (i)
            *p++ = ',';
        if (e) {
            memcpy(p, e->text, sizeof *e);
            p += e->len;
        }
        p = scalar_number(p, &sc[i]);
    }
    if (i < n)
        write_scalars_from(j, f, sc, n, keys, plan, i, p, i == 0); /* scalar 0's separator: the run's */
    else
        json_run_end(j, p);
}

/* "fields", then "dos_paths": {field: DOS path} for the top-level string fields that are NT
 * paths of a volume the trace maps (volumes.h), only when some field is. */
static void write_fields(json_out *j, etl_fields *f, const etl_volumes *vol, const etl_record *r)
{
    enum { IN_OBJECT, IN_ARRAY };
    uint8_t in[ETL_SCHEMA_MAX_DEPTH + 1];
    int depth = 0;
    etl_item it, hole = {0};
    bool have_hole = false;
    /* the fields with a DOS form, as their items (name and duplicate number: etl_item_key
     * makes the key when it is written) - not copies of their keys, 16 x 64 KiB of thread
     * storage that every thread's start zeroed (1.5 ms of a tiny trace's 7.7 at 2 threads) */
    etl_item with_dos[DOS_PATHS_MAX];
    char(*dos)[ETL_VOLUMES_MAX_PATH * 2] = scratch->dos;
    char *text = scratch->dos_text;
    unsigned n_dos = 0;
    bool dos_paths = vol && etl_volumes_count(vol); /* the trace maps volumes: some path may have a DOS form */
    in[0] = IN_OBJECT;
    json_key(j, "fields");
    json_begin_object(j);
    for (;;) {
        etl_scalar sc[SCALAR_RUN_MAX];
        unsigned n_sc = etl_fields_next_scalars(f, sc, SCALAR_RUN_MAX);
        if (n_sc) {
            write_scalars(j, f, sc, n_sc, in[depth] == IN_OBJECT);
            continue;
        }
        etl_item_kind k = etl_fields_next(f, &it);
        if (k == ETL_ITEM_END)
            break;
        switch (k) {
        case ETL_ITEM_VALUE:
            write_value(j, &it, in[depth] == IN_OBJECT ? field_key(j, f, &it) : NULL);
            if (dos_paths && depth == 0 && n_dos < DOS_PATHS_MAX) {
                etl_value v;
                etl_value_decode(&it, &v, text, sizeof scratch->dos_text);
                if (v.kind == ETL_VALUE_STRING &&
                    etl_volumes_dos_path(vol, r, v.str, v.str_len, dos[n_dos], sizeof scratch->dos[n_dos])) {
                    with_dos[n_dos++] = it;
                }
            }
            break;
        case ETL_ITEM_STRUCT_BEGIN:
        case ETL_ITEM_ARRAY_BEGIN:
            if (in[depth] == IN_OBJECT)
                value_key(j, field_key(j, f, &it));
            if (k == ETL_ITEM_STRUCT_BEGIN)
                json_begin_object(j);
            else
                json_begin_array(j);
            if (depth < (int)ETL_SCHEMA_MAX_DEPTH)
                in[++depth] = k == ETL_ITEM_STRUCT_BEGIN ? IN_OBJECT : IN_ARRAY;
            break;
        case ETL_ITEM_STRUCT_END:
        case ETL_ITEM_ARRAY_END:
            if (k == ETL_ITEM_STRUCT_END)
                json_end_object(j);
            else
                json_end_array(j);
            if (depth > 0)
                depth--;
            break;
        case ETL_ITEM_PLACEHOLDER:
            hole = it;
            have_hole = true;
            break;
        default:
            break;
        }
    }
    /* after a placeholder, containers may still be open */
    while (depth > 0) {
        if (in[depth--] == IN_ARRAY)
            json_end_array(j);
        else
            json_end_object(j);
    }
    json_end_object(j);
    if (n_dos) {
        json_key(j, "dos_paths");
        json_begin_object(j);
        for (unsigned i = 0; i < n_dos; i++) /* value_text is free again: the key of a duplicate goes there */
            json_key_string(j, etl_item_key(&with_dos[i], scratch->value_text, sizeof scratch->value_text), dos[i]);
        json_end_object(j);
    }
    if (have_hole) {
        json_key(j, "fields_placeholder");
        json_begin_object(j);
        json_key_string(j, "field", hole.name);
        json_key_string(j, "reason", hole.reason ? hole.reason : "");
        json_key_u64(j, "offset", hole.offset);
        json_key(j, "data_hex");
        json_hex_bytes(j, hole.data, hole.size);
        json_end_object(j);
    } else if (it.size) {
        json_key(j, "fields_trailing_hex");
        json_hex_bytes(j, it.data, it.size);
    }
}

/* provider_name, event_name and fields of an EVENT_HEADER record (see the top comment). */
/* TraceLogging tags (28 bits): "event_tags" and, for fields that carry one, "field_tags" as
 * [{"field": name, "tag": "0x..."}] in schema order; both only when some tag is set. */
static void write_tags(json_out *j, const etl_schema *s)
{
    if (s->event_tags) {
        json_key_hex_u64(j, "event_tags", s->event_tags);
    }
    bool any = false;
    for (uint32_t i = 0; i < s->step_count; i++) {
        const etl_schema_step *st = &s->steps[i];
        if (!st->tag || st->op == ETL_OP_STRUCT_END || st->op == ETL_OP_ARRAY_END ||
            ((st->flags & ETL_STEP_ELEMENT) && i > 0 && s->steps[i - 1].op == ETL_OP_ARRAY_BEGIN))
            continue; /* an array's tag is on its ARRAY_BEGIN; its element step repeats it */
        if (!any) {
            json_key(j, "field_tags");
            json_begin_array(j);
            any = true;
        }
        json_begin_object(j);
        json_key_string(j, "field", etl_schema_str(s, st->name));
        json_key_hex_u64(j, "tag", st->tag);
        json_end_object(j);
    }
    if (any)
        json_end_array(j);
}

/* What decoding a record needs besides the record. */
/* What the pre-scan's inflated buffers may hold for the decoding pass: all of a compressed
 * trace like net452 (23 MB inflated), and a bounded share of a bigger one. */
#define ETLDUMP_INFLATE_CACHE_BYTES (32u * 1024u * 1024u)

typedef struct decode_ctx {
    etl_decoder *dec;            /* resolves every record; NULL when not decoding */
    etl_registry *schemas;       /* the decoder's registry */
    etl_procs *procs;            /* process/thread lifetimes from the pre-scan; NULL when none */
    etl_stack_links *links;      /* recent events, for StackWalk "stack_of" */
    etl_volumes *volumes;        /* the trace's NT -> DOS volume mappings, from the pre-scan */
    etl_inflate_cache *inflate;  /* buffers the pre-scan inflated, for the decoding pass; or NULL */
    /* keys already reported on stderr as having no schema (bounded) */
    struct missing_key {
        etl_guid provider;
        uint16_t id;
        uint8_t version;
        bool wpp;
    } missing[256];
    unsigned missing_count;
    bool missing_overflow;
} decode_ctx;

/* Where etldump's manifest path is set: added to the decoder's one "no schema" wording
 * (resolve.h: the error of ETL_RESOLVE_SCHEMA_MISSING) in the JSON hint and on stderr. */
#define MISSING_WHERE " (--manifest-path or " ETL_REGISTRY_ENV ")"
/* The same for WPP messages without their TMF (resolve.h: kind ETL_RESOLVE_WPP). */
#define MISSING_TMF_WHERE " (--tmf-path or " ETL_TMF_ENV ")"

/* "no schema" on stderr once per key (and once in all past the bound); WPP: once per message
 * GUID, the TMF it names decoding all of the GUID's messages. */
static void report_missing(decode_ctx *d, const etl_record *r, const char *why, bool wpp)
{
    for (unsigned i = 0; i < d->missing_count; i++)
        if ((wpp || (d->missing[i].id == r->event_id && d->missing[i].version == r->version)) &&
            d->missing[i].wpp == wpp && etl_guid_equal(&d->missing[i].provider, &r->provider))
            return;
    if (d->missing_count == sizeof d->missing / sizeof d->missing[0]) {
        if (!d->missing_overflow)
            fprintf(stderr, "etldump: more event kinds without a schema; not reported one by one\n");
        d->missing_overflow = true;
        return;
    }
    d->missing[d->missing_count].provider = r->provider;
    d->missing[d->missing_count].id = r->event_id;
    d->missing[d->missing_count].version = r->version;
    d->missing[d->missing_count].wpp = wpp;
    d->missing_count++;
    fprintf(stderr, "etldump: %s%s\n", why, wpp ? MISSING_TMF_WHERE : MISSING_WHERE);
}

JSON_INLINE void key_name(json_out *j, const char *key, const char *name)
{
    if (!name)
        return;
    json_key(j, key);
    json_string(j, name);
}

/* Names resolve.h returns (provider, event, task, ...) as whole pairs remembered by the writer,
 * when the name is a string of the record's schema: a schema in the decoder's cache and its
 * strings stay until the decoder is freed (schema_cache.h), so (its index, which name, the
 * name's address) names one pair.  Other names are written as they come. */
enum { NAME_PROVIDER = 0xFFFFFF00u, NAME_EVENT, NAME_TASK, NAME_OPCODE, NAME_LEVEL, NAME_CHANNEL, NAME_KEYWORDS };

JSON_INLINE void key_schema_name(json_out *j, const etl_schema *s, uint32_t which, const char *key, const char *name)
{
    if (!name)
        return;
    uintptr_t at = (uintptr_t)name, base = s ? (uintptr_t)s->strings : 0;
    if (!s || s->index == UINT32_MAX || at < base || at >= base + s->strings_len) {
        key_name(j, key, name);
        return;
    }
    const json_key_memo *m = json_key_memo_find(j, s->index, which, name);
    if (m)
        json_memo_write(j, m, false);
    else
        json_pair_memoize(j, s->index, which, name, key, name);
}

static void names_fill(names_text *m, const etl_resolved *res, const char *const names[NAMES_NAMES])
{
#define NAMES_KEY(k) {",\"" k "\":", sizeof(k) + 3}
    static const struct {
        const char *key;
        size_t len;
    } keys[NAMES_NAMES] = {NAMES_KEY("provider_name"), NAMES_KEY("event_name"),   NAMES_KEY("task_name"),
                           NAMES_KEY("opcode_name"),   NAMES_KEY("level_name"),   NAMES_KEY("channel_name"),
                           NAMES_KEY("keywords_name")};
#undef NAMES_KEY
    static const char source[] = ",\"provider_name_source\":\"well-known\"";
    const etl_schema *s = res->schema;
    m->valid = true;
    m->ok = false;
    m->schema = s;
    m->from = res->provider_name_from;
    memcpy(m->names, names, sizeof m->names);
    char *p = m->text;
    uintptr_t base = (uintptr_t)s->strings;
    for (unsigned i = 0; i < NAMES_NAMES; i++) {
        const char *name = names[i];
        if (!name)
            continue;
        if ((uintptr_t)name < base || (uintptr_t)name >= base + s->strings_len)
            return; /* not the schema's string: its text may change under the same address */
        size_t n = strlen(name);
        if (n > JSON_SHORT_STRING || json_needs_escape(name, n))
            return;
        p = json_run_plain(json_run_lit(p, keys[i].key, keys[i].len), name, n);
        if (i == 0 && res->provider_name_from == ETL_NAME_KNOWN)
            p = JSON_RUN_LIT(p, source);
    }
    m->len = (uint16_t)(p - m->text);
    m->ok = p > m->text;
}

/* Write the names block of res; false when its names do not make one (nothing written). */
static bool names_block(json_out *j, const etl_resolved *res)
{
    names_text *memo = scratch->names_memo;
    const etl_schema *s = res->schema;
    if (!s || s->index == UINT32_MAX)
        return false;
    const char *names[NAMES_NAMES] = {res->provider_name, res->event_name,   res->task_name,    res->opcode_name,
                                      res->level_name,    res->channel_name, res->keywords_name};
    names_text *m = &memo[(s->index * 0x9E3779B1u) >> 26];
    _Static_assert(NAMES_SLOTS == 64u, "the slot is the hash's top 6 bits");
    if (!m->valid || m->schema != s || m->from != res->provider_name_from || memcmp(m->names, names, sizeof names) != 0)
        names_fill(m, res, names);
    if (!m->ok)
        return false;
    char *p = json_run_begin(j, NAMES_TEXT_MAX);
    memcpy(p, m->text + 1, m->len - 1u); /* the first pair's comma: json_run_begin's */
    json_run_end(j, p + m->len - 1u);
    return true;
}

static void write_schema_missing(json_out *j, const etl_record *r, const etl_resolved *res)
{
    char g[ETL_GUID_STR_SIZE];
    etl_format_guid(&r->provider, g);
    json_key(j, "schema_missing");
    json_begin_object(j);
    json_key_string(j, "provider", g);
    json_key_u64(j, "id", r->event_id);
    json_key_u64(j, "version", r->version);
    json_key(j, "hint");
    bool wpp = res->kind == ETL_RESOLVE_WPP;
    char hint[sizeof res->error.message + sizeof MISSING_WHERE + sizeof MISSING_TMF_WHERE];
    snprintf(hint, sizeof hint, "%s%s", res->error.message, wpp ? MISSING_TMF_WHERE : MISSING_WHERE);
    json_string(j, hint);
    json_end_object(j);
}

/* provider_name, event_name and the rest of what the decoder resolved for a record (see the
 * top comment), then its fields. */
static void slot_resolved(const par_slot *s, etl_resolved *out);

static void write_resolved(json_out *j, const decode_ctx *d, const par_slot *s)
{
    const etl_record *r = s->r;
    etl_resolved resolved;
    slot_resolved(s, &resolved);
    const etl_resolved *res = &resolved;
    etl_resolve_status st = res->status;
    etl_fields f;
    if (res->kind == ETL_RESOLVE_NONE)
        return;
    etl_decoder_fields(r, res, &f);
    /* a decoded record of a manifest or classic schema: its names may go as one block */
    bool block = st != ETL_RESOLVE_NOT_APPLICABLE && st != ETL_RESOLVE_SCHEMA_MISSING &&
                 st != ETL_RESOLVE_SCHEMA_ERROR && res->kind != ETL_RESOLVE_TRACELOGGING && names_block(j, res);
    if (res->provider_name && !block) {
        key_schema_name(j, res->schema, NAME_PROVIDER, "provider_name", res->provider_name);
        if (res->provider_name_from == ETL_NAME_KNOWN) /* not from the trace or a schema: the library's table */
            json_key_string(j, "provider_name_source", "well-known");
    }
    switch (st) {
    case ETL_RESOLVE_NOT_APPLICABLE:
        return;
    case ETL_RESOLVE_SCHEMA_MISSING:
        key_schema_name(j, res->schema, NAME_EVENT, "event_name", res->event_name); /* WPP: named without a TMF */
        write_schema_missing(j, r, res);
        return;
    case ETL_RESOLVE_SCHEMA_ERROR:
        json_key_string(j, "fields_error", res->error.message);
        return;
    default:
        break;
    }
    if (res->kind == ETL_RESOLVE_TRACELOGGING) {
        key_schema_name(j, res->schema, NAME_EVENT, "event_name", res->event_name); /* never NULL here */
        write_tags(j, res->schema);
        write_fields(j, &f, d->volumes, r);
        return;
    }
    if (!block) {
        key_schema_name(j, res->schema, NAME_EVENT, "event_name", res->event_name);
        key_schema_name(j, res->schema, NAME_TASK, "task_name", res->task_name);
        key_schema_name(j, res->schema, NAME_OPCODE, "opcode_name", res->opcode_name);
        key_schema_name(j, res->schema, NAME_LEVEL, "level_name", res->level_name);
        key_schema_name(j, res->schema, NAME_CHANNEL, "channel_name", res->channel_name);
        key_schema_name(j, res->schema, NAME_KEYWORDS, "keywords_name", res->keywords_name);
    }
    if (res->has_message) {
        size_t n = etl_decoder_message_in(d->dec, r, res, &scratch->message, scratch->message_text,
                                          sizeof scratch->message_text);
        json_key(j, "message");
        json_string_n(j, scratch->message_text, n);
    }
    if (res->older_version) {
        json_key_u64(j, "schema_version", res->schema_version);
    }
    write_fields(j, &f, d->volumes, r);
    if (st == ETL_RESOLVE_UNKNOWN_EVENT) {
        json_key(j, "event_unknown");
        json_bool(j, true);
    }
}

/* The record's header part as one run (json.h): position to keyword, pid to process_name, cpu
 * to user_time, and the system family's group and pebs_index, ending with "ext" when it is
 * empty - about 25 literal keys and numbers behind one reservation.  RECORD_RUN_ROOM bounds the
 * run (each key with its value at its longest); a string that is long or needs escaping goes
 * out through json.c and the run resumes (json_run_string). */
#define RECORD_RUN_ROOM 1024u


static char *run_guid(char *p, const etl_guid *g)
{
    guid_text *memo = scratch->guid_memo;
    guid_text *m = &memo[(g->data1 ^ g->data2 ^ g->data4[7]) % GUID_TEXT_SLOTS];
    if (!m->valid || memcmp(&m->g, g, sizeof *g) != 0) {
        m->g = *g;
        etl_format_guid(g, m->text);
        m->valid = true;
    }
    *p = '"';
    memcpy(p + 1, m->text, ETL_GUID_STR_SIZE - 1);
    p[ETL_GUID_STR_SIZE] = '"';
    return p + ETL_GUID_STR_SIZE + 1;
}


JSON_INLINE uint64_t kind_ids(const etl_record *r)
{
    return (uint64_t)r->event_id | (uint64_t)r->version << 16 | (uint64_t)r->channel << 24 |
           (uint64_t)r->level << 32 | (uint64_t)r->opcode << 40 | (uint64_t)r->task << 48;
}

static void kind_format(kind_text *m, const etl_record *r)
{
    char *p = m->text;
    p = JSON_RUN_LIT(p, ",\"provider\":");
    if (r->has_provider)
        p = run_guid(p, &r->provider);
    else
        p = JSON_RUN_LIT(p, "null");
    /* the numbers in key order (a miss only: a loop over a table is fine here) */
#define KIND_NUMBER(key, value) {key, sizeof key - 1, value}
    const struct {
        const char *key;
        size_t len;
        uint64_t value;
    } numbers[] = {
        KIND_NUMBER(",\"event_id\":", r->event_id), KIND_NUMBER(",\"version\":", r->version),
        KIND_NUMBER(",\"channel\":", r->channel),   KIND_NUMBER(",\"level\":", r->level),
        KIND_NUMBER(",\"opcode\":", r->opcode),     KIND_NUMBER(",\"task\":", r->task),
    };
#undef KIND_NUMBER
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        p = json_run_u64(json_run_lit(p, numbers[i].key, numbers[i].len), numbers[i].value);
    p = JSON_RUN_LIT(p, ",\"keyword\":");
    p = json_run_hex(p, r->keyword);
    m->len = (uint8_t)(p - m->text);
    m->provider = r->provider;
    m->has_provider = r->has_provider;
    m->ids = kind_ids(r);
    m->keyword = r->keyword;
    m->valid = true;
}

JSON_INLINE char *run_kind(char *p, const etl_record *r)
{
    kind_text *memo = scratch->kind_memo;
    uint64_t ids = kind_ids(r);
    /* the provider mixed in before the multiply, so that it reaches the top bits */
    kind_text *m = &memo[((ids ^ r->provider.data1) * 0x9E3779B97F4A7C15ULL) >> 55];
    _Static_assert(KIND_TEXT_SLOTS == 512u, "the slot is a hash's top 9 bits");
    if (!m->valid || m->ids != ids || m->keyword != r->keyword || m->has_provider != r->has_provider ||
        (r->has_provider && memcmp(&m->provider, &r->provider, sizeof r->provider) != 0))
        kind_format(m, r);
    memcpy(p, m->text, sizeof m->text);
    return p + m->len;
}

JSON_INLINE char *run_id(char *p, uint32_t id)
{
    if (id == ETL_NO_ID)
        return JSON_RUN_LIT(p, "null");
    return json_run_u64(p, id);
}

static void write_family_fields(json_out *j, const etl_record *r);

/* proc: the record's process (etl_procs_locate), NULL when none is known. */
static void write_header(json_out *j, const par_slot *s, const etl_proc_info *proc)
{
    const etl_record *r = s->r;
    header_type_name *ht = scratch->ht; /* per type */
    const char *htn = etl_header_type_name(r->header_type);
    if (ht[r->header_type].name != htn) {
        ht[r->header_type].name = htn;
        ht[r->header_type].len = strlen(htn);
    }
    char *p = json_run_begin(j, RECORD_RUN_ROOM);
    p = JSON_RUN_LIT(p, "\"position\":");
    p = json_run_u64(p, r->position);
    p = JSON_RUN_LIT(p, ",\"header_type\":");
    p = json_run_string(j, p, htn, ht[r->header_type].len, RECORD_RUN_ROOM);
    if (r->header_type == ETL_HT_UNKNOWN) {
        p = JSON_RUN_LIT(p, ",\"raw_header_type\":");
        p = json_run_u64(p, r->raw_header_type);
    }
    p = JSON_RUN_LIT(p, ",\"timestamp\":");
    if (r->has_timestamp && etl_format_filetime_cached(r->timestamp, p + 1, &scratch->tc)) {
        *p = '"'; /* the text's NUL at p + 1 + ETL_TIME_TEXT_LEN becomes its closing quote */
        p[1 + ETL_TIME_TEXT_LEN] = '"';
        p += ETL_TIME_TEXT_LEN + 2;
    } else {
        p = JSON_RUN_LIT(p, "null");
    }
    p = JSON_RUN_LIT(p, ",\"timestamp_raw\":");
    p = json_run_i64(p, r->timestamp_raw);
    p = run_kind(p, r); /* provider to keyword */
    /* pid and tid, and the process the context names (procs.h) */
    p = JSON_RUN_LIT(p, ",\"pid\":");
    p = run_id(p, r->pid);
    p = JSON_RUN_LIT(p, ",\"tid\":");
    p = run_id(p, r->tid);
    if (proc) {
        if (proc->pid != r->pid) {
            p = JSON_RUN_LIT(p, ",\"process_id\":");
            p = json_run_u64(p, proc->pid);
        }
        if (proc->name) {
            p = JSON_RUN_LIT(p, ",\"process_name\":");
            p = json_run_string(j, p, proc->name, strlen(proc->name), RECORD_RUN_ROOM);
        }
    }
    /* cpu, flags, size, activity id and CPU times */
    p = JSON_RUN_LIT(p, ",\"cpu\":");
    p = json_run_u64(p, r->cpu);
    p = JSON_RUN_LIT(p, ",\"flags\":");
    p = json_run_u64(p, r->flags);
    p = JSON_RUN_LIT(p, ",\"size\":");
    p = json_run_u64(p, r->size);
    if (r->has_activity_id) {
        static const etl_guid zero;
        if (!etl_guid_equal(&r->activity_id, &zero)) {
            p = JSON_RUN_LIT(p, ",\"activity_id\":");
            p = run_guid(p, &r->activity_id);
        }
    }
    if (r->has_cpu_times) {
        p = JSON_RUN_LIT(p, ",\"kernel_time\":");
        p = json_run_u64(p, r->kernel_time);
        p = JSON_RUN_LIT(p, ",\"user_time\":");
        p = json_run_u64(p, r->user_time);
    }
    /* the system family's group and PEBS index in the run; its PMC counters and the other
     * families' fields through write_family_fields */
    bool system = etl_header_family(r->header_type) == ETL_FAMILY_SYSTEM;
    if (system) {
        p = JSON_RUN_LIT(p, ",\"group\":");
        p = json_run_u64(p, r->group);
        if (r->has_pebs) {
            p = JSON_RUN_LIT(p, ",\"pebs_index\":");
            p = json_run_u64(p, r->pebs_index);
        }
    }
    if (!system || r->pmc_count) {
        json_run_end(j, p);
        write_family_fields(j, r);
        p = json_room(j, RECORD_RUN_ROOM);
    }
    if (r->ext_count == 0)
        p = JSON_RUN_LIT(p, ",\"ext\":[]");
    json_run_end(j, p);
    if (r->ext_count) {
        json_key(j, "ext");
        json_begin_array(j);
        for (unsigned i = 0; i < r->ext_count; i++)
            write_ext(j, &r->ext[i]);
        json_end_array(j);
    }
}

/* What only some header families carry: the PMC counters (system family; its group and
 * PEBS index are in write_header's run), the instance ids (INSTANCE), the WPP message fields (MESSAGE). */
static void write_family_fields(json_out *j, const etl_record *r)
{
    switch (etl_header_family(r->header_type)) {
    case ETL_FAMILY_SYSTEM: /* group and pebs_index: write_header's run */
        if (r->pmc_count) {
            json_key(j, "pmc");
            json_begin_array(j);
            for (unsigned i = 0; i < r->pmc_count; i++) {
                uint64_t v = 0;
                for (int k = 7; k >= 0; k--)
                    v = v << 8 | r->pmc[8 * i + (unsigned)k];
                json_u64(j, v);
            }
            json_end_array(j);
        }
        break;
    case ETL_FAMILY_FULL:
        if (r->header_type != ETL_HT_INSTANCE32 && r->header_type != ETL_HT_INSTANCE64)
            break;
        json_key_u64(j, "instance_id", r->instance_id);
        json_key_u64(j, "parent_instance_id", r->parent_instance_id);
        key_guid(j, "parent_guid", &r->parent_guid);
        break;
    case ETL_FAMILY_MESSAGE: {
        char names[160];
        json_key_u64(j, "message_flags", r->message_flags);
        etl_wpp_flags_text(r->message_flags, names, sizeof names);
        json_key(j, "message_flags_names");
        json_string(j, names);
        if (r->has_sequence) {
            json_key_u64(j, "sequence", r->sequence);
        }
        if (r->has_component_id) {
            json_key_u64(j, "component_id", r->component_id);
        }
        break;
    }
    default:
        break;
    }
}

/* The error message of a record's schema, kept until its line is written: in its batch
 * (par_keep), or with one thread in one buffer (the line is written before the next record is
 * read). */
static const char *keep_error(par *pool, const char *message)
{
    static char one[PAR_KEEP_MAX];
    if (pool)
        return par_keep(pool, message);
    snprintf(one, sizeof one, "%s", message);
    return one;
}

/* What a record's line needs from the records before it, in record order on the main thread
 * (parallel.h): its process's ids, its stack link, its schema and names (the session learns
 * from every record), and the stderr message of a missing schema.  False when out of memory
 * (the line then has no names: the caller says so). */
static bool prepare_record(decode_ctx *d, par *pool, par_slot *s)
{
    const etl_record *r = s->r;
    etl_procs_ids(d->procs, r, &s->ids); /* one payload read for the process and the stack key */
    s->has_stack = etl_stack_links_observe_tid(d->links, r, s->ids.key_tid, r->position, &s->stack_of);
    etl_resolved res; /* resolved here, in memory the thread keeps hot; the slot gets the line's part */
    etl_resolve_status st = etl_decoder_resolve(d->dec, r, 0, &res, NULL);
    if (st == ETL_RESOLVE_SCHEMA_MISSING)
        report_missing(d, r, res.error.message, res.kind == ETL_RESOLVE_WPP);
    bool has_error = st == ETL_RESOLVE_SCHEMA_MISSING || st == ETL_RESOLVE_SCHEMA_ERROR;
    s->error = has_error ? keep_error(pool, res.error.message) : NULL;
    s->error_code = (int8_t)res.error.code;
    static par_resolved one; /* with one thread: the record's line is written before the next */
    if (!pool) {
        par_resolved_from(st, &res, &one);
        one.provider_name = res.provider_name; /* even the record's own: it is the reader's, alive until written */
        s->res = &one;
    } else if (!(s->res = par_resolved_keep(pool, st, &res))) {
        static const par_resolved none = {.kind = ETL_RESOLVE_NONE};
        s->res = &none;
        return false;
    }
    return true;
}

/* What the slot kept of etl_decoder_resolve's answer, as the library's etl_resolved again (for
 * etl_decoder_fields, etl_decoder_message_in and the writers below); the names' bytes and the
 * error's offset were not kept (etldump writes neither). */
static void slot_resolved(const par_slot *s, etl_resolved *out)
{
    const par_resolved *k = s->res;
    out->status = (etl_resolve_status)k->status;
    out->kind = (etl_resolve_kind)k->kind;
    out->schema = k->schema;
    out->older_version = k->older_version;
    out->schema_version = k->schema_version;
    out->has_message = k->has_message;
    out->provider_name_from = (etl_name_source)k->provider_name_from;
    /* a name from the record's PROV_TRAITS, not kept with the answer, is read again (parallel.h) */
    out->provider_name = k->provider_name || out->provider_name_from != ETL_NAME_TRAITS ? k->provider_name
                                                                                       : etl_decoder_traits_name(s->r);
    out->event_name = k->event_name;
    out->task_name = k->task_name;
    out->opcode_name = k->opcode_name;
    out->level_name = k->level_name;
    out->channel_name = k->channel_name;
    out->keywords_name = k->keywords_name;
    out->event_name_bytes = out->provider_name_bytes = NULL;
    out->event_name_bytes_len = out->provider_name_bytes_len = 0;
    out->error.code = (etl_status)s->error_code;
    out->error.offset = 0;
    if (s->error)
        snprintf(out->error.message, sizeof out->error.message, "%s", s->error);
    else
        out->error.message[0] = '\0';
}

/* One record as one JSON line, block by block in the documented key order: only reads the
 * session (any thread). */
static void write_record(json_out *j, const par_slot *s, bool payload, const decode_ctx *d)
{
    const etl_record *r = s->r;
    json_begin_object(j);
    /* the record's process, from its ids: the process table is sealed after the pre-scan
     * (etl_procs_seal), so any thread may look it up; found here, in the formatting thread's
     * own memory, not in the slot */
    etl_proc_info proc;
    bool has_proc = d->procs && etl_procs_locate(d->procs, r, &s->ids, &proc);
    write_header(j, s, has_proc ? &proc : NULL);
    etl_error problem;
    if (etl_record_problem(r, &problem, NULL))
        json_key_string(j, "problem", problem.message);
    if (s->has_stack) {
        json_key_u64(j, "stack_of", s->stack_of);
    }
    write_resolved(j, d, s);
    if (payload) {
        json_key(j, "payload_hex");
        json_hex_bytes(j, r->bytes + r->payload_offset, r->payload_size);
    }
    json_end_object(j);
    json_newline(j);
}

/* ---- summary ---------------------------------------------------------------------------- */

/* Small open-addressing count table keyed by strings (header kinds, ext types, GUIDs). */
typedef struct counter {
    char key[40];
    uint64_t n;
} counter;

typedef struct counts {
    counter *v;
    size_t len, cap;
} counts;

/* Count one more `key`; returns its counter's index (SIZE_MAX when out of memory). */
static size_t count(counts *c, const char *key)
{
    for (size_t i = 0; i < c->len; i++)
        if (strcmp(c->v[i].key, key) == 0) {
            c->v[i].n++;
            return i;
        }
    if (c->len == c->cap) {
        size_t n = c->cap ? c->cap * 2 : 16;
        counter *v = realloc(c->v, n * sizeof *v);
        if (!v)
            return SIZE_MAX;
        c->v = v;
        c->cap = n;
    }
    snprintf(c->v[c->len].key, sizeof c->v[c->len].key, "%s", key);
    c->v[c->len].n = 1;
    return c->len++;
}

static void write_counts(json_out *j, const char *key, const counts *c)
{
    json_key(j, key);
    json_begin_object(j);
    for (size_t i = 0; i < c->len; i++) {
        json_key(j, c->v[i].key);
        json_u64(j, c->v[i].n);
    }
    json_end_object(j);
}

static void write_time(json_out *j, const char *key, int64_t ft)
{
    char s[ETL_TIME_STR_SIZE];
    json_key(j, key);
    if (ft > 0 && etl_format_filetime(ft, s))
        json_string(j, s);
    else
        json_null(j);
}

static void write_logfile(json_out *j, const etl_logfile *lf)
{
    char v[32];
    json_key(j, "logfile");
    if (!lf->present) {
        json_null(j);
        return;
    }
    json_begin_object(j);
    json_key_string(j, "logger_name", lf->logger_name);
    json_key_string(j, "log_file_name", lf->log_file_name);
    json_key_string(j, "header_form", lf->header_type == ETL_HT_SYSTEM64 ? "64-bit" : "32-bit");
    json_key_u64(j, "pointer_size", lf->pointer_size);
    snprintf(v, sizeof v, "%u.%u.%u.%u", lf->os_major, lf->os_minor, lf->os_sub, lf->os_subminor);
    json_key_string(j, "os_version", v);
    json_key_u64(j, "os_build", lf->os_build);
    json_key_u64(j, "processors", lf->processors);
    json_key_string(j, "clock_type", etl_clock_name(lf->clock_type));
    json_key_i64(j, "perf_freq", lf->perf_freq);
    json_key_u64(j, "cpu_speed_mhz", lf->cpu_speed_mhz);
    json_key_u64(j, "timer_resolution", lf->timer_resolution);
    json_key_u64(j, "buffer_size", lf->buffer_size);
    json_key_hex_u64(j, "log_file_mode", lf->log_file_mode);
    json_key_u64(j, "max_file_size_mb", lf->max_file_size_mb);
    json_key_u64(j, "buffers_written", lf->buffers_written);
    json_key_u64(j, "events_lost", lf->events_lost);
    json_key_u64(j, "buffers_lost", lf->buffers_lost);
    write_time(j, "start_time", lf->start_time);
    write_time(j, "end_time", lf->end_time);
    write_time(j, "boot_time", lf->boot_time);
    json_key_i64(j, "start_time_filetime", lf->start_time);
    json_key_i64(j, "time_zone_bias_minutes", lf->tz_bias_minutes);
    json_key_string(j, "time_zone", lf->tz_standard_name);
    json_end_object(j);
}

/* The pre-scan's reader, opened on another thread while this one opens the decoding reader
 * (etl_prescan_open): both opens walk every buffer header of the same file, ~3 ms each on the
 * 1 M-record kernel trace, and with --threads N > 1 the second core sat idle through the
 * first of them. */
typedef struct prescan_open_job {
    const char *path;
    etl_inflate_cache *cache;
    etl_reader *r;
    etl_status st;
    etl_error err;
    pthread_t t;
    bool started;
} prescan_open_job;

static void *prescan_open_run(void *arg)
{
    prescan_open_job *job = arg;
    job->st = etl_prescan_open(job->path, job->cache, &job->r, &job->err);
    return NULL;
}

/* The job's reader once its thread is done (NULL, with the open's error in *err, when it
 * could not be opened). */
static etl_reader *prescan_open_join(prescan_open_job *job, etl_error *err)
{
    pthread_join(job->t, NULL);
    job->started = false;
    if (job->st != ETL_OK) {
        *err = job->err;
        return NULL;
    }
    return job->r;
}

/* The job given up (the decoding reader could not open, no memory): its thread joined, its
 * reader closed. */
static void prescan_open_drop(prescan_open_job *job)
{
    etl_error ignored;
    if (job->started)
        etl_reader_close(prescan_open_join(job, &ignored));
}

/* One pass over the trace before decoding (prescan.h): the schemas it carries (MetaData
 * records, EventSource manifest chunks) and its process and thread events, so that every
 * record decodes and is named whatever its position.  With `job` started, over its reader. */
static etl_status prescan(decode_ctx *d, const char *path, unsigned threads, prescan_open_job *job, etl_error *err)
{
    const etl_observer obs[] = { etl_registry_observer(d->schemas), etl_procs_observer(d->procs),
                                 etl_volumes_observer(d->volumes) };
    /* their filters: with threads, a large trace is pre-scanned by two threads at once */
    const etl_wants_fn wants[] = { etl_registry_observer_wants, etl_procs_wants, etl_volumes_is_mapping };
    /* and their hook and event ids: the pass frames no other kernel compact or event-header record */
    const etl_wants_ids_fn ids[] = { etl_registry_observer_wants_ids, etl_procs_wants_ids,
                                         etl_volumes_wants_ids };
    _Static_assert(sizeof wants / sizeof wants[0] == sizeof obs / sizeof obs[0], "a filter per observer");
    _Static_assert(sizeof ids / sizeof ids[0] == sizeof obs / sizeof obs[0], "a filter per observer");
    if (!job->started)
        return etl_prescan_file_filtered(path, threads, d->inflate, obs, wants, ids, sizeof obs / sizeof obs[0], err);
    etl_reader *r = prescan_open_join(job, err);
    if (!r)
        return job->st; /* as etl_prescan_file_filtered fails when its open does */
    return etl_prescan_reader_filtered(r, path, threads, obs, wants, ids, sizeof obs / sizeof obs[0], err);
}

/* The registry's messages (manifests that do not parse, disagreeing definitions, refused
 * schema records) on stderr. */
static void report_schemas(void *ctx, etl_registry_severity sev, const char *message)
{
    (void)ctx;
    fprintf(stderr, "etldump: %s%s\n", sev == ETL_REGISTRY_ERROR ? "error: " : sev == ETL_REGISTRY_WARNING ? "warning: " : "",
            message);
}

static bool same_record(const etl_record *a, const etl_record *b)
{
    return a->size == b->size && memcmp(a->bytes, b->bytes, a->size) == 0 && a->header_type == b->header_type &&
           a->timestamp == b->timestamp && a->has_timestamp == b->has_timestamp && a->cpu == b->cpu &&
           a->pid == b->pid && a->tid == b->tid && a->ext_count == b->ext_count &&
           a->payload_offset == b->payload_offset && a->is_logfile_header == b->is_logfile_header;
}

/* ---- the decoding mode -------------------------------------------------------------------- */

/* Manifest-based events: the registry's sources, then the schemas the trace carries (a
 * pre-pass, so that schemas stored after their events still apply to them).  False when out
 * of memory. */
static bool decode_setup(decode_ctx *d, const etldump_options *o, prescan_open_job *job)
{
    d->dec = etl_decoder_new(report_schemas, NULL);
    if (!d->dec)
        return false;
    d->schemas = etl_decoder_registry(d->dec);
    /* the files read on the threads asked for (a second core halves the 17-20 ms of the
     * shared manifests: bench/README.md, session 23); what is said, in the same order */
    for (size_t i = 0; i < o->n_manifest_paths; i++)
        etl_registry_add_path_threads(d->schemas, o->manifest_paths[i], o->threads);
    if (etl_registry_env_path())
        etl_registry_add_path_threads(d->schemas, etl_registry_env_path(), o->threads);
    for (size_t i = 0; i < o->n_tmf_paths; i++)
        etl_decoder_add_tmf_path(d->dec, o->tmf_paths[i]);
    if (etl_tmf_env_path())
        etl_decoder_add_tmf_path(d->dec, etl_tmf_env_path());
    d->procs = etl_procs_new(d->schemas);
    d->links = etl_stack_links_new(0);
    d->volumes = etl_volumes_new(d->schemas);
    etl_error perr;
    if (prescan(d, o->path, o->reader.threads, job, &perr) != ETL_OK)
        fprintf(stderr, "etldump: %s: collecting the schemas the trace carries: %s\n", o->path, perr.message);
    etl_procs_seal(d->procs); /* nothing is observed from here on: lookups write nothing */
    return true;
}

static void decode_free(decode_ctx *d)
{
    etl_stack_links_free(d->links);
    etl_volumes_free(d->volumes);
    etl_procs_free(d->procs);
    etl_decoder_free(d->dec);
}

/* ---- the summary mode --------------------------------------------------------------------- */

/* Memo sizes: header types are a byte; extended item types below 64 cover every named one;
 * providers go through a small direct-mapped table of recently seen GUIDs. */
enum { SUMMARY_EXT_MEMO = 64, SUMMARY_PROV_MEMO = 64 };

typedef struct summary {
    counts kinds, exts, provs;
    int64_t first_ts, last_ts;
    bool any_ts;
    /* Each record's counters found without building and comparing their key strings (what
     * made --summary slower than reading): counter index + 1, 0 = not seen yet. */
    uint32_t kind_at[256];
    uint32_t ext_at[SUMMARY_EXT_MEMO];
    /* The counts of memo hits, kept beside the memo and added to the counters at the end
     * (summary_settle): one increment in place per record, not one through the counters'
     * array. */
    uint64_t kind_n[256];
    struct {
        etl_guid g;
        uint32_t at;
        uint64_t n; /* hits not yet added to provs.v[at - 1] */
    } prov_memo[SUMMARY_PROV_MEMO];
} summary;

/* Two GUIDs equal: two 8-byte compares, not a memcmp call per record. */
static inline bool same_guid(const etl_guid *a, const etl_guid *b)
{
    uint64_t x[2], y[2];
    memcpy(x, a, 16);
    memcpy(y, b, 16);
    return x[0] == y[0] && x[1] == y[1];
}

/* The counter of `key` in c once more, through memo slot *at (index + 1). */
static void count_memo(counts *c, uint32_t *at, const char *key)
{
    if (*at) {
        c->v[*at - 1].n++;
        return;
    }
    size_t i = count(c, key);
    if (i != SIZE_MAX && i < UINT32_MAX)
        *at = (uint32_t)i + 1;
}

/* Add provider memo slot i's hits to its counter. */
static void settle_provider(summary *sm, unsigned i)
{
    if (sm->prov_memo[i].at)
        sm->provs.v[sm->prov_memo[i].at - 1].n += sm->prov_memo[i].n;
    sm->prov_memo[i].n = 0;
}

/* Every memo hit added to its counter: the counts are complete (before write_summary). */
static void summary_settle(summary *sm)
{
    for (unsigned t = 0; t < 256; t++) {
        if (sm->kind_at[t])
            sm->kinds.v[sm->kind_at[t] - 1].n += sm->kind_n[t];
        sm->kind_n[t] = 0;
    }
    for (unsigned i = 0; i < SUMMARY_PROV_MEMO; i++)
        settle_provider(sm, i);
}

static void summary_add(summary *sm, const etl_record *rec)
{
    uint32_t *kind = &sm->kind_at[rec->header_type];
    if (*kind) /* the memo's hit without naming the kind first */
        sm->kind_n[rec->header_type]++;
    else
        count_memo(&sm->kinds, kind, etl_header_type_name(rec->header_type));
    for (unsigned i = 0; i < rec->ext_count; i++) {
        unsigned t = rec->ext[i].type;
        const char *n = etl_ext_type_name(t);
        char num[16];
        if (!n) {
            snprintf(num, sizeof num, "%u", t);
            n = num;
        }
        if (t < SUMMARY_EXT_MEMO)
            count_memo(&sm->exts, &sm->ext_at[t], n);
        else
            count(&sm->exts, n);
    }
    if (rec->has_provider) {
        const etl_guid *pg = &rec->provider;
        unsigned slot = (pg->data1 ^ pg->data2 ^ ((unsigned)pg->data4[7] << 3)) % SUMMARY_PROV_MEMO;
        if (sm->prov_memo[slot].at && same_guid(&sm->prov_memo[slot].g, pg)) {
            sm->prov_memo[slot].n++;
        } else {
            settle_provider(sm, slot); /* the slot's GUID gives way: its hits to its counter */
            char g[ETL_GUID_STR_SIZE];
            etl_format_guid(pg, g);
            size_t at = count(&sm->provs, g);
            if (at != SIZE_MAX && at < UINT32_MAX) {
                sm->prov_memo[slot].g = *pg;
                sm->prov_memo[slot].at = (uint32_t)at + 1;
            }
        }
    }
    if (rec->has_timestamp) {
        if (!sm->any_ts || rec->timestamp < sm->first_ts)
            sm->first_ts = rec->timestamp;
        if (!sm->any_ts || rec->timestamp > sm->last_ts)
            sm->last_ts = rec->timestamp;
        sm->any_ts = true;
    }
}

static void write_summary(json_out *j, const char *path, etl_reader *r, const summary *sm,
                          const etl_error *reasons, size_t nreasons)
{
    const etl_stats *s = etl_reader_stats(r);
    json_begin_object(j);
    json_key_string(j, "file", path);
    write_logfile(j, etl_reader_logfile(r));
    json_key_u64(j, "records", s->records);
    write_counts(j, "header_types", &sm->kinds);
    write_counts(j, "ext_types", &sm->exts);
    write_counts(j, "providers", &sm->provs);
    write_time(j, "first_timestamp", sm->any_ts ? sm->first_ts : 0);
    write_time(j, "last_timestamp", sm->any_ts ? sm->last_ts : 0);
    json_key_u64(j, "buffers", s->buffers);
    json_key_u64(j, "buffers_compressed", s->buffers_compressed);
    json_key_u64(j, "buffers_flagged_lost", s->events_lost_flags);
    json_key_u64(j, "records_damaged", s->records_damaged);
    json_key_u64(j, "order_fallbacks", s->order_fallbacks);
    json_key(j, "skipped");
    json_begin_object(j);
    json_key_u64(j, "buffers", s->buffers_skipped);
    json_key_u64(j, "bytes", s->bytes_skipped);
    json_key_u64(j, "problems", s->problems);
    json_key(j, "reasons");
    json_begin_array(j);
    for (size_t i = 0; i < nreasons; i++) {
        json_begin_object(j);
        json_key_u64(j, "offset", reasons[i].offset);
        json_key_string(j, "code", etl_status_name(reasons[i].code));
        json_key_string(j, "message", reasons[i].message);
        json_end_object(j);
    }
    json_end_array(j);
    json_end_object(j);
    json_end_object(j);
    json_newline(j);
}

static void summary_free(summary *sm)
{
    free(sm->kinds.v);
    free(sm->exts.v);
    free(sm->provs.v);
}

/* ---- the verify mode ---------------------------------------------------------------------- */

/* Read the record again by its position; false (and a line on stderr) when it differs. */
static bool verify_record(etl_reader *r, const char *path, const etl_record *rec)
{
    etl_record again;
    etl_error verr;
    /* copy the bytes aside: read_at may not disturb the sequential view, but check it */
    if (etl_reader_read_at(r, rec->position, &again, &verr) == ETL_OK && same_record(rec, &again))
        return true;
    fprintf(stderr, "etldump: %s: position %llu does not read back the same record\n", path,
            (unsigned long long)rec->position);
    return false;
}

/* ---- main ------------------------------------------------------------------------------- */

/* Damage reports as they are found: on stderr, and kept (bounded) for the summary. */
typedef struct damage {
    etl_error *reasons;
    size_t n;
} damage;
enum { MAX_SUMMARY_REASONS = 1000 };

static void report_problems(etl_reader *r, const char *path, damage *dm)
{
    etl_error p;
    while (etl_reader_next_problem(r, &p)) {
        fprintf(stderr, "etldump: %s: offset 0x%llx: %s\n", path, (unsigned long long)p.offset, p.message);
        if (dm->n < MAX_SUMMARY_REASONS) {
            etl_error *n = realloc(dm->reasons, (dm->n + 1) * sizeof *n);
            if (n) {
                dm->reasons = n;
                dm->reasons[dm->n++] = p;
            }
        }
    }
}

/* The decoding mode's formatting on a worker thread (parallel.h). */
typedef struct format_ctx {
    const decode_ctx *d;
    bool payload;
} format_ctx;

static void format_slot(void *ctx, json_out *j, par_slot *s, void *thread_scratch)
{
    const format_ctx *f = ctx;
    scratch = thread_scratch;
    write_record(j, s, f->payload, f->d);
}

/* The reading modes: JSON Lines, --summary, --verify-positions (one pass, each record to the
 * modes asked for); the exit status. */
static int read_trace(const etldump_options *o)
{
    const char *path = o->path;
    int rc;
    etl_reader *r;
    etl_error err;
    static decode_ctx dctx;
    const bool decode = !o->summary && !o->verify;
    /* Decoding reads a compressed trace twice (the pre-scan, then this reader): the buffers the
     * first pass inflates are kept, up to a bound, for the second (etl_inflate_cache). */
    etl_options ropt = o->reader;
    if (decode)
        ropt.inflate_cache = dctx.inflate = etl_inflate_cache_new(ETLDUMP_INFLATE_CACHE_BYTES);
    /* Decoding with N threads keeps N busy already (the main thread and N - 1 formatting
     * workers): loaders beside them only took turns on the same cores.  On 2 cores, none made
     * --threads 2 faster (large_kernel 0.355 -> 0.319 s, net452 with manifests 0.169 ->
     * 0.137 s; a compressed large_kernel, beyond the inflate cache, the same either way:
     * bench/README.md, session 9).  From 3 threads on, the main thread reading alone is what
     * workers would wait for, so loaders take the threads past two (not measured: 2 cores). */
    if (decode)
        ropt.threads = o->threads > 2 ? o->threads - 2 : 0;
    /* With another thread, the pre-scan's reader opens there meanwhile (prescan_open_job):
     * nothing of that open is said unless the pre-scan's own open would have said it. */
    prescan_open_job job = {.path = path, .cache = dctx.inflate};
    if (decode && o->threads > 1)
        job.started = etl_thread_start(&job.t, prescan_open_run, &job) == 0;
    if (etl_reader_open_file(path, &ropt, &r, &err) != ETL_OK) {
        fprintf(stderr, "etldump: %s: %s\n", path, err.message);
        prescan_open_drop(&job);
        etl_inflate_cache_free(dctx.inflate);
        return 2;
    }
    /* The JSON writer buffers by itself and hands stdout 128-256 KiB at a time: a stdio buffer
     * would only copy every byte once more. */
    setvbuf(stdout, NULL, _IONBF, 0);
#ifdef __GLIBC__
    /* One thread writes stdout: skip stdio's per-call locking on the writer's large writes. */
    __fsetlocking(stdout, FSETLOCKING_BYCALLER);
#endif
    json_out *j = json_new(stdout); /* 256 KiB of buffer: not on the stack */

    /* --threads N > 1: records decode and format on N workers, in batches (parallel.h); the
     * main thread reads, prepares each record (prepare_record) and writes the batches in order.
     * The pool is made before the decoder's setup and the pre-scan, which its workers do not
     * need: the first one maps the batches' memory in meanwhile, on a core that would
     * otherwise wait through the setup, and the decoding starts on memory already there. */
    format_ctx fctx = {&dctx, o->payload};
    par *pool = NULL;
    fmt_scratch *own_scratch = NULL; /* with one thread: the main thread formats every record */
    if (j && decode && o->threads > 1)
        pool = par_new(o->threads - 1, stdout, format_slot, &fctx, sizeof(fmt_scratch));
    else if (j && decode)
        scratch = own_scratch = calloc(1, sizeof *own_scratch);
    if (!j || (decode && !pool && !own_scratch) || (decode && !decode_setup(&dctx, o, &job))) {
        prescan_open_drop(&job);
        par_finish(pool); /* nothing handed over: its workers end */
        free(own_scratch);
        scratch = NULL;
        decode_free(&dctx);
        json_free(j);
        fprintf(stderr, "etldump: out of memory\n");
        etl_reader_close(r);
        etl_inflate_cache_free(dctx.inflate);
        return 2;
    }
    bool lost = false; /* a record not decoded (out of memory) */

    summary sm = {0};
    damage dm = {0};
    uint64_t verify_failures = 0;
    etl_record one_rec, *rec = &one_rec;
    etl_status st;
    const etl_stats *stats = etl_reader_stats(r);
    for (;;) {
        /* with workers, the view is read where its batch keeps it (par_view: no copy of it) */
        if (pool)
            rec = par_view(pool);
        st = etl_reader_next(r, rec, &err);
        if (stats->reports_pending || st != ETL_OK) /* no call per record when none is queued */
            report_problems(r, path, &dm);
        if (st != ETL_OK)
            break;
        etl_error problem;
        uint32_t at;
        if (etl_record_has_problem(rec) && etl_record_problem(rec, &problem, &at))
            fprintf(stderr, "etldump: %s: record at position %llu (buffer 0x%llx + 0x%x), byte %u: %s\n", path,
                    (unsigned long long)rec->position, (unsigned long long)rec->buffer_offset, rec->record_offset, at,
                    problem.message);
        if (o->verify && !verify_record(r, path, rec))
            verify_failures++;
        if (o->summary)
            summary_add(&sm, rec);
        else if (decode && pool) {
            par_slot *slot = par_add(pool, rec);
            if ((!slot || !prepare_record(&dctx, pool, slot)) && !lost) {
                fprintf(stderr, "etldump: out of memory: records from position %llu on are not decoded\n",
                        (unsigned long long)rec->position);
                lost = true;
            }
        } else if (decode) {
            static par_slot one; /* the reader's record itself: no copy */
            one.r = rec;
            prepare_record(&dctx, NULL, &one);
            write_record(j, &one, o->payload, &dctx);
        }
    }
    if (pool && !par_finish(pool)) {
        fprintf(stderr, "etldump: out of memory: some records were not written\n");
        lost = true;
    }
    rc = 0;
    if (st != ETL_END) {
        fprintf(stderr, "etldump: %s: offset 0x%llx: %s\n", path, (unsigned long long)err.offset, err.message);
        rc = 1;
    }
    const etl_stats *s = etl_reader_stats(r);
    if (s->problems || s->records_damaged || verify_failures)
        rc = 1;
    if (lost)
        rc = 2;
    if (o->summary) {
        summary_settle(&sm);
        write_summary(j, path, r, &sm, dm.reasons, dm.n);
    }
    if (o->verify)
        fprintf(stderr, "etldump: %s: %llu records re-read by position, %llu mismatches\n", path,
                (unsigned long long)s->records, (unsigned long long)verify_failures);
    json_flush(j);
    json_free(j);
    fflush(stdout);
    summary_free(&sm);
    free(dm.reasons);
    if (decode)
        decode_free(&dctx);
    free(own_scratch);
    scratch = NULL;
    etl_reader_close(r);
    etl_inflate_cache_free(dctx.inflate); /* after the reader: its loaders use it */
    return rc;
}

/* The largest block etldump's malloc takes from the heap (main). */
#define ETLDUMP_HEAP_BLOCK_MAX (32 * 1024 * 1024)

int main(int argc, char **argv)
{
    static etldump_options o; /* manifest paths and the selection: not on the stack */
    int rc = etldump_parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (o.write_path) /* --write OUT.etl: cut the trace into a new .etl (write_out.c) */
        return etldump_write_run(&o);
    if (o.pcapng_path) {
        o.pcapng.progress = isatty(STDERR_FILENO);
        return pcapng_out_run(o.pcapng_path, o.path, &o.reader, &o.pcapng);
    }
#ifdef __GLIBC__
    /* Blocks up to 32 MiB come from the heap and go back to it, never mapped and unmapped on
     * their own.  On the 2-core VM of bench/README.md (session 15) each munmap took 0.1-0.4 ms
     * once other threads had run (perf probe; page-table work is dear there), and --threads 2
     * freed its text buffers, writers and batch arenas that way, ~25 of them, 2.4 ms at its
     * end; glibc's own threshold moves up to the size of the last mapped block freed, so which
     * blocks were mapped depended on what happened to be freed before.  Peak memory is what it
     * was (large_kernel --threads 2: 10.2 -> 11.9 MiB, net452 with manifests 36.6 -> 36.5). */
    mallopt(M_MMAP_THRESHOLD, ETLDUMP_HEAP_BLOCK_MAX);
    mallopt(M_TRIM_THRESHOLD, ETLDUMP_HEAP_BLOCK_MAX); /* and so much of the heap's free top is kept */
#endif
    return read_trace(&o);
}
