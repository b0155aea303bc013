/* procs.c - process and thread lifetimes from the kernel's events, and the process
 * of each record (procs.h).
 *
 * Per id (process id, thread id) the events seen are kept sorted by time ("observations"),
 * and its lifetimes are a left fold over them (procs.h says how): an observation
 * arriving in order is folded in at once; one arriving out of order marks the id, and the next
 * lookup of it folds all its observations again - so events can arrive in any order.  Lifetimes of one id are
 * sorted by the time they begin; a lookup is a hash probe and a binary search.
 *
 * Payload fields are read through the record's classic schema: per schema, once, a plan says
 * which top-level fields carry a process or thread id (by name, as the kernel class document
 * names them) and, when every field before them has a fixed size, at which offset - so a
 * lookup on a hot event (PerfInfo Sample, CSwitch) reads one u32 through a bounds check. */
#include "procs.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "classic.h"
#include "etl_format.h"
#include "fields.h"
#include "value_format.h"

/* ---- the kernel classes this file knows by GUID ------------------------------------------ */

static const etl_guid CLASS_PROCESS = {0x3d6fa8d0, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
static const etl_guid CLASS_THREAD = {0x3d6fa8d1, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
static const etl_guid CLASS_IMAGE = {0x2cb15d1d, 0x5fc1, 0x11d2, {0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18}};
static const etl_guid CLASS_SYSCONFIG = {0x01853a65, 0x418f, 0x4f36, {0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35}};
static const etl_guid CLASS_STACKWALK = {0xdef2fe46, 0x7bd6, 0x4b80, {0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3}};

/* Kernel groups (HookId high byte) of those classes (etw-formats.md 9.2). */
enum { GROUP_PROCESS = 0x03, GROUP_THREAD = 0x05, GROUP_STACKWALK = 0x18 };

/* Event types (EVENT_TRACE_TYPE_*) of the Process and Thread classes. */
enum {
    TYPE_START = 1,
    TYPE_END = 2,
    TYPE_DC_START = 3,
    TYPE_DC_END = 4,
    TYPE_CSWITCH = 36,
    TYPE_DEFUNCT = 39,
    TYPE_READY_THREAD = 50,
    TYPE_STACK = 32,
    TYPE_STACK_KEY_KERNEL = 37,
    TYPE_STACK_KEY_USER = 38
};

/* Fields, by the kernel class document's names.  A process id... */
static const char *const PID_FIELDS[] = {"ProcessId", "PID", "StackProcess"};
/* ...and the thread an event happened on (not a thread it is about: ReadyThread's TThreadId
 * names the thread made ready, and is left out below). */
static const char *const TID_FIELDS[] = {"TThreadId", "ThreadId", "IssuingThreadId", "StackThread", "NewThreadId", "TTID"};

/* ---- observations and lifetimes ------------------------------------------------------------ */

enum { OBS_START, OBS_END, OBS_RUNDOWN };

#define NO_VAL UINT32_MAX

typedef struct obs {
    int64_t ts;
    uint32_t val;  /* process: name index; thread: process id; NO_VAL when unknown */
    uint8_t kind;
} obs;

typedef struct life {
    int64_t from;  /* records at or after this time (raw) belong here, until the next life */
    int64_t end;   /* INT64_MAX while no end was seen */
    uint32_t val;
} life;

typedef struct entity {
    obs *obs;
    uint32_t n_obs, cap_obs;
    life *lives;
    uint32_t n_lives, cap_lives;
    bool dirty;
} entity;

typedef struct plan {
    bool known;       /* computed */
    bool subject_pid; /* the payload's pid is the event's subject: it wins over the header's */
    bool subject_tid;
    bool read_pid, read_tid;
    uint32_t pid_step, tid_step;
    uint32_t pid_off, tid_off; /* fixed offsets, or UINT32_MAX: walk the fields */
    uint8_t pid_size, tid_size;
} plan;

/* Kernel-group records' schemas by (hook, version, pointer size): a direct-mapped memo in
 * front of the registry's lookup, which hashes the whole classic key. */
#define HOOK_MEMO_SIZE 1024u
typedef struct hook_memo {
    const etl_schema *schema; /* NULL: empty */
    uint16_t hook;
    uint8_t version, pointer_size;
} hook_memo;

/* The processes and threads of one logger id (procs.h: the traces of a merge stay apart). */
typedef struct domain {
    uint16_t logger_id;
    GHashTable *procs;    /* pid -> entity */
    GHashTable *threads;  /* tid -> entity */
} domain;

struct etl_procs {
    etl_registry *schemas;
    hook_memo memo[HOOK_MEMO_SIZE];
    domain domains[ETL_PROCS_MAX_DOMAINS]; /* created when their first event is taken */
    uint32_t n_domains;
    GPtrArray *names;     /* name index -> interned string */
    GHashTable *name_idx; /* string -> index + 1 */
    GStringChunk *chunk;
    plan *plans;          /* by schema arena index */
    uint32_t n_plans;
    etl_procs_stats stats;
    char text[ETL_VALUE_TEXT_CAP(ETL_PROCS_MAX_NAME)];
};

static void entity_free(gpointer p)
{
    entity *e = p;
    g_free(e->obs);
    g_free(e->lives);
    g_free(e);
}

etl_procs *etl_procs_new(etl_registry *schemas)
{
    etl_procs *p = g_try_new0(etl_procs, 1);
    if (!p)
        return NULL;
    p->schemas = schemas;
    p->names = g_ptr_array_new();
    p->name_idx = g_hash_table_new(g_str_hash, g_str_equal);
    p->chunk = g_string_chunk_new(4096);
    return p;
}

void etl_procs_free(etl_procs *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->n_domains; i++) {
        g_hash_table_destroy(p->domains[i].procs);
        g_hash_table_destroy(p->domains[i].threads);
    }
    g_ptr_array_free(p->names, TRUE);
    g_hash_table_destroy(p->name_idx);
    g_string_chunk_free(p->chunk);
    g_free(p->plans);
    g_free(p);
}

const etl_procs_stats *etl_procs_get_stats(const etl_procs *p)
{
    return &p->stats;
}

/* The domain of a logger id, created on first use when `create` (past ETL_PROCS_MAX_DOMAINS
 * the last one takes the rest). */
static domain *domain_get(etl_procs *p, uint16_t logger_id, bool create)
{
    for (uint32_t i = 0; i < p->n_domains; i++)
        if (p->domains[i].logger_id == logger_id)
            return &p->domains[i];
    if (!create)
        return NULL;
    if (p->n_domains == ETL_PROCS_MAX_DOMAINS)
        return &p->domains[p->n_domains - 1];
    domain *d = &p->domains[p->n_domains++];
    d->logger_id = logger_id;
    d->procs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, entity_free);
    d->threads = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, entity_free);
    return d;
}

/* Where a record's processes are looked up: its logger id's, else - a session without kernel
 * events of its own, e.g. the user-mode session of an xperf merge - the one logger id that has
 * any, else none. */
static domain *domain_of(etl_procs *p, const etl_record *rec)
{
    domain *d = domain_get(p, rec->logger_id, false);
    if (d == NULL && p->n_domains == 1)
        d = &p->domains[0];
    return d;
}

/* Ids are keys of direct hashes: id + 1 so that id 0 is not the NULL key.  NULL when absent
 * (or, creating, past `limit` distinct ids). */
static entity *entity_get(GHashTable *t, uint32_t id, bool create, uint32_t *count, uint32_t limit)
{
    gpointer key = GUINT_TO_POINTER((guint)id + 1u);
    entity *e = g_hash_table_lookup(t, key);
    if (!e && create && *count < limit) {
        e = g_new0(entity, 1);
        g_hash_table_insert(t, key, e);
        (*count)++;
    }
    return e;
}

static life *push_life(entity *e, int64_t from, int64_t end, uint32_t val)
{
    if (e->n_lives == e->cap_lives) {
        e->cap_lives = e->cap_lives ? e->cap_lives * 2 : 2;
        e->lives = g_renew(life, e->lives, e->cap_lives);
    }
    life *l = &e->lives[e->n_lives++];
    *l = (life){.from = from, .end = end, .val = val};
    return l;
}

/* One step of the fold from observations (in time order) to lifetimes (procs.h):
 *   Start    opens a lifetime at its time (closing one still open: its End was not seen);
 *   End      closes the open lifetime, or is a lifetime of its own that began after the
 *            previous one ended (its Start was before the trace);
 *   rundown  (DCStart, DCEnd, Defunct) names the open lifetime, or opens one that began
 *            after the previous one ended; a rundown naming another process than the open
 *            lifetime's means the id was reused unseen, and opens a new one at its time. */
static void fold(entity *e, const obs *o)
{
    life *cur = e->n_lives ? &e->lives[e->n_lives - 1] : NULL;
    bool open = cur && cur->end == INT64_MAX;
    int64_t after = cur ? (cur->end == INT64_MAX ? o->ts : cur->end + 1) : INT64_MIN;
    switch (o->kind) {
    case OBS_START:
        if (open && cur->from == o->ts && (cur->val == o->val || cur->val == NO_VAL)) {
            cur->val = o->val; /* the same Start twice (merged traces) */
            break;
        }
        if (open)
            cur->end = o->ts - 1;
        push_life(e, o->ts, INT64_MAX, o->val);
        break;
    case OBS_END:
        if (open) {
            cur->end = o->ts;
            if (cur->val == NO_VAL)
                cur->val = o->val;
        } else {
            push_life(e, after, o->ts, o->val);
        }
        break;
    default:
        if (open && (cur->val == NO_VAL || o->val == NO_VAL || cur->val == o->val)) {
            if (cur->val == NO_VAL)
                cur->val = o->val;
        } else if (open) {
            cur->end = o->ts - 1;
            push_life(e, o->ts, INT64_MAX, o->val);
        } else {
            push_life(e, after, INT64_MAX, o->val);
        }
        break;
    }
}

static void entity_build(entity *e)
{
    e->n_lives = 0;
    for (uint32_t i = 0; i < e->n_obs; i++)
        fold(e, &e->obs[i]);
    e->dirty = false;
}

/* Insert keeping time order (ties in arrival order).  In order and with the lifetimes up to
 * date, fold it in at once; else the next lookup rebuilds.  False at the per-id limit. */
static bool entity_add(entity *e, int64_t ts, uint8_t kind, uint32_t val)
{
    if (e->n_obs >= ETL_PROCS_MAX_EVENTS_PER_ID)
        return false;
    if (e->n_obs == e->cap_obs) {
        e->cap_obs = e->cap_obs ? e->cap_obs * 2 : 4;
        e->obs = g_renew(obs, e->obs, e->cap_obs);
    }
    /* the first later observation: binary search, ties go after */
    uint32_t lo = 0, hi = e->n_obs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (e->obs[mid].ts <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&e->obs[lo + 1], &e->obs[lo], (size_t)(e->n_obs - lo) * sizeof *e->obs);
    e->obs[lo] = (obs){.ts = ts, .val = val, .kind = kind};
    e->n_obs++;
    if (lo == e->n_obs - 1 && !e->dirty)
        fold(e, &e->obs[lo]);
    else
        e->dirty = true;
    return true;
}

/* The lifetime a record at ts falls in: the last one begun at or before ts. */
static const life *entity_at(entity *e, int64_t ts)
{
    if (e->dirty)
        entity_build(e);
    uint32_t lo = 0, hi = e->n_lives;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (e->lives[mid].from <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &e->lives[lo - 1] : NULL;
}

static uint32_t intern_name(etl_procs *p, const char *s, size_t n)
{
    if (n > ETL_PROCS_MAX_NAME) {
        /* cut at a character boundary: back off while the first byte dropped continues one */
        n = ETL_PROCS_MAX_NAME;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    char buf[ETL_PROCS_MAX_NAME + 1];
    memcpy(buf, s, n);
    buf[n] = 0;
    gpointer v = g_hash_table_lookup(p->name_idx, buf);
    if (v)
        return GPOINTER_TO_UINT(v) - 1u;
    if (p->names->len >= ETL_PROCS_MAX_NAMES) {
        p->stats.names_dropped++;
        return NO_VAL;
    }
    char *kept = g_string_chunk_insert(p->chunk, buf);
    uint32_t idx = p->names->len;
    g_ptr_array_add(p->names, kept);
    g_hash_table_insert(p->name_idx, kept, GUINT_TO_POINTER(idx + 1u));
    return idx;
}

/* ---- reading ids from payloads ------------------------------------------------------------ */

static bool value_u32(const etl_item *it, uint32_t *out)
{
    switch (it->in_type) {
    case ETL_IN_UINT32: case ETL_IN_INT32: case ETL_IN_HEXINT32: case ETL_IN_POINTER: case ETL_IN_UINT64:
    case ETL_IN_INT64: case ETL_IN_HEXINT64: case ETL_IN_SIZET:
        break;
    default:
        return false;
    }
    if (it->size == 4)
        *out = etl_ld32(it->data);
    else if (it->size == 8)
        *out = (uint32_t)etl_ld64(it->data); /* ids are 32-bit; Process V0 logs them as pointers */
    else
        return false;
    return true;
}

static bool name_in(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return true;
    return false;
}

/* Is the step an integer field this file can read as an id? */
static bool id_step(const etl_schema_step *st)
{
    if (st->op != ETL_OP_VALUE || st->depth != 0 || (st->flags & ETL_STEP_ELEMENT))
        return false;
    switch (st->in_type) {
    case ETL_IN_UINT32: case ETL_IN_INT32: case ETL_IN_HEXINT32: case ETL_IN_POINTER: case ETL_IN_UINT64:
    case ETL_IN_INT64: case ETL_IN_HEXINT64: case ETL_IN_SIZET:
        return true;
    default:
        return false;
    }
}

static void make_plan(plan *pl, const etl_schema *s, const etl_classic_key *k)
{
    memset(pl, 0, sizeof *pl);
    pl->known = true;
    pl->pid_off = pl->tid_off = UINT32_MAX;
    if (s->unknown)
        return;
    bool process = etl_guid_equal(&k->cls, &CLASS_PROCESS);
    bool thread = etl_guid_equal(&k->cls, &CLASS_THREAD);
    bool thread_life = thread && k->type >= TYPE_START && k->type <= TYPE_DC_END;
    if (thread && k->type == TYPE_READY_THREAD)
        return;
    pl->subject_pid = process || thread_life || etl_guid_equal(&k->cls, &CLASS_IMAGE) ||
                      etl_guid_equal(&k->cls, &CLASS_SYSCONFIG);
    pl->subject_tid = thread_life;
    uint32_t off = 0;
    bool fixed = true;
    for (uint32_t i = 0; i < s->unsupported_at && i < s->step_count; i++) {
        const etl_schema_step *st = &s->steps[i];
        const char *name = etl_schema_str(s, st->name);
        if (id_step(st)) {
            if (!pl->read_pid && name_in(name, PID_FIELDS, sizeof PID_FIELDS / sizeof *PID_FIELDS)) {
                pl->read_pid = true;
                pl->pid_step = i;
                if (fixed && st->size_rule == ETL_SIZE_FIXED) {
                    pl->pid_off = off;
                    pl->pid_size = (uint8_t)st->size;
                }
            } else if (!pl->read_tid && name_in(name, TID_FIELDS, sizeof TID_FIELDS / sizeof *TID_FIELDS)) {
                pl->read_tid = true;
                pl->tid_step = i;
                if (fixed && st->size_rule == ETL_SIZE_FIXED) {
                    pl->tid_off = off;
                    pl->tid_size = (uint8_t)st->size;
                }
            }
        }
        if (st->op == ETL_OP_VALUE && st->depth == 0 && st->size_rule == ETL_SIZE_FIXED && !(st->flags & ETL_STEP_OPTIONAL))
            off += st->size;
        else
            fixed = false;
    }
    if (pl->pid_off != UINT32_MAX && pl->pid_size != 4 && pl->pid_size != 8)
        pl->pid_off = UINT32_MAX;
    if (pl->tid_off != UINT32_MAX && pl->tid_size != 4 && pl->tid_size != 8)
        pl->tid_off = UINT32_MAX;
}

static bool read_fixed(const etl_record *rec, uint32_t off, uint8_t size, uint32_t *out)
{
    const uint8_t *d = rec->bytes + rec->payload_offset;
    if (size == 4)
        return etl_u32_at(d, rec->payload_size, off, out);
    uint64_t v;
    if (!etl_u64_at(d, rec->payload_size, off, &v))
        return false;
    *out = (uint32_t)v;
    return true;
}

/* The payload's process and thread ids of a classic record, as its plan says. */
typedef struct payload_ids {
    const plan *pl;
    bool has_pid, has_tid;
    uint32_t pid, tid;
} payload_ids;

static const plan *plan_of(etl_procs *p, const etl_record *rec, const etl_schema **schema)
{
    if (!p->schemas || !etl_record_is_classic(rec))
        return NULL;
    hook_memo *m = NULL;
    if (etl_record_is_kernel_group(rec)) {
        m = &p->memo[(rec->hook_id ^ (unsigned)rec->version * 0x9Du ^ rec->pointer_size) & (HOOK_MEMO_SIZE - 1u)];
        if (m->schema && m->hook == rec->hook_id && m->version == rec->version &&
            m->pointer_size == rec->pointer_size) {
            *schema = m->schema;
            const plan *pl = &p->plans[m->schema->index];
            return pl; /* a memo entry exists only once its plan is made */
        }
    }
    etl_classic_key k;
    if (!etl_classic_key_of(rec, &k) || !k.known)
        return NULL;
    const etl_schema *s;
    if (etl_registry_lookup_classic(p->schemas, &k.cls, k.type, k.version, rec->pointer_size, &s, NULL) != ETL_OK)
        return NULL;
    *schema = s;
    if (s->index == UINT32_MAX)
        return NULL;
    if (s->index >= p->n_plans) {
        if (s->index >= ETL_SCHEMA_CACHE_MAX_SCHEMAS)
            return NULL;
        uint32_t n = p->n_plans ? p->n_plans : 64;
        while (n <= s->index)
            n *= 2;
        plan *np = g_try_renew(plan, p->plans, n);
        if (!np)
            return NULL;
        memset(np + p->n_plans, 0, (size_t)(n - p->n_plans) * sizeof *np);
        p->plans = np;
        p->n_plans = n;
    }
    plan *pl = &p->plans[s->index];
    if (!pl->known)
        make_plan(pl, s, &k);
    if (m)
        *m = (hook_memo){.schema = s, .hook = rec->hook_id, .version = rec->version, .pointer_size = rec->pointer_size};
    return pl;
}

static void read_payload_ids(etl_procs *p, const etl_record *rec, payload_ids *ids)
{
    memset(ids, 0, sizeof *ids);
    const etl_schema *s = NULL;
    const plan *pl = plan_of(p, rec, &s);
    ids->pl = pl;
    if (!pl || (!pl->read_pid && !pl->read_tid))
        return;
    bool walk = false;
    if (pl->read_pid) {
        if (pl->pid_off != UINT32_MAX)
            ids->has_pid = read_fixed(rec, pl->pid_off, pl->pid_size, &ids->pid);
        else
            walk = true;
    }
    if (pl->read_tid) {
        if (pl->tid_off != UINT32_MAX)
            ids->has_tid = read_fixed(rec, pl->tid_off, pl->tid_size, &ids->tid);
        else
            walk = true;
    }
    if (!walk)
        return;
    etl_fields f;
    etl_item it;
    uint32_t last = 0;
    if (pl->read_pid && last < pl->pid_step)
        last = pl->pid_step;
    if (pl->read_tid && last < pl->tid_step)
        last = pl->tid_step;
    etl_fields_start(&f, s, rec->bytes + rec->payload_offset, rec->payload_size, rec->pointer_size);
    while (etl_fields_next(&f, &it) != ETL_ITEM_END) {
        if (it.kind == ETL_ITEM_PLACEHOLDER)
            break;
        if (it.kind == ETL_ITEM_VALUE) {
            if (pl->read_pid && it.step == pl->pid_step)
                ids->has_pid = value_u32(&it, &ids->pid);
            else if (pl->read_tid && it.step == pl->tid_step)
                ids->has_tid = value_u32(&it, &ids->tid);
        }
        if (it.step >= last)
            break;
    }
}

/* ---- observing ---------------------------------------------------------------------------- */

static uint32_t norm_id(uint32_t id)
{
    return id == 0xFFFFFFFFu ? ETL_NO_ID : id;
}

/* Process and thread events: ids (and the image name) through the full field walk - they are
 * few, and the name comes after variable-size fields (the user SID). */
static void observe_process(etl_procs *p, const etl_record *rec, const etl_schema *s, uint8_t kind, bool thread)
{
    etl_fields f;
    etl_item it;
    bool has_pid = false, has_tid = false;
    uint32_t pid = 0, tid = 0, name = NO_VAL;
    etl_fields_start(&f, s, rec->bytes + rec->payload_offset, rec->payload_size, rec->pointer_size);
    while (etl_fields_next_top_value(&f, &it)) {
        if (!has_pid && strcmp(it.name, "ProcessId") == 0)
            has_pid = value_u32(&it, &pid);
        else if (thread && !has_tid && strcmp(it.name, "TThreadId") == 0)
            has_tid = value_u32(&it, &tid);
        else if (!thread && strcmp(it.name, "ImageFileName") == 0) {
            etl_value v;
            etl_value_decode(&it, &v, p->text, sizeof p->text);
            if (v.kind == ETL_VALUE_STRING) {
                size_t n = v.str_len;
                const char *z = memchr(v.str, 0, n);
                if (z)
                    n = (size_t)(z - v.str);
                name = intern_name(p, v.str, n);
            }
            break; /* the last field wanted */
        }
        if (thread && has_pid && has_tid)
            break;
    }
    if (!has_pid || (thread && !has_tid)) {
        p->stats.undecodable++;
        return;
    }
    int64_t ts = rec->timestamp_raw;
    if (thread) {
        if (p->stats.thread_events >= ETL_PROCS_MAX_THREAD_EVENTS) {
            p->stats.dropped++;
            return;
        }
        entity *e = entity_get(domain_get(p, rec->logger_id, true)->threads, tid, true, &p->stats.threads,
                               ETL_PROCS_MAX_THREADS);
        if (!e || !entity_add(e, ts, kind, pid)) {
            p->stats.dropped++;
            return;
        }
        p->stats.thread_events++;
    } else {
        if (p->stats.process_events >= ETL_PROCS_MAX_PROCESS_EVENTS) {
            p->stats.dropped++;
            return;
        }
        entity *e = entity_get(domain_get(p, rec->logger_id, true)->procs, pid, true, &p->stats.processes,
                               ETL_PROCS_MAX_PROCESSES);
        if (!e || !entity_add(e, ts, kind, name)) {
            p->stats.dropped++;
            return;
        }
        p->stats.process_events++;
    }
}

/* Event types that are process or thread lifetimes (the switch in etl_procs_observe). */
static bool lifetime_type(uint8_t type)
{
    return (type >= TYPE_START && type <= TYPE_DC_END) || type == TYPE_DEFUNCT;
}

bool etl_procs_wants(const etl_record *rec)
{
    /* the common cases, cheaply (the pre-scan asks of every record): no classic kind, no
     * lifetime's type (a classic key's type is the opcode), or a kernel-group record of another
     * group than Process and Thread */
    etl_family f = etl_header_family(rec->header_type);
    return (f == ETL_FAMILY_SYSTEM || f == ETL_FAMILY_FULL) && lifetime_type(rec->opcode) &&
           (f == ETL_FAMILY_FULL || rec->group == GROUP_PROCESS || rec->group == GROUP_THREAD);
}

void etl_procs_wants_ids(etl_id_set *set)
{
    for (unsigned type = 0; type < 256; type++)
        if (lifetime_type((uint8_t)type)) {
            etl_id_set_add_hook(set, (uint16_t)(GROUP_PROCESS << 8 | type));
            etl_id_set_add_hook(set, (uint16_t)(GROUP_THREAD << 8 | type));
        }
}

void etl_procs_observe(etl_procs *p, const etl_record *rec)
{
    if (!p || !rec || !p->schemas || !etl_procs_wants(rec))
        return;
    etl_classic_key k;
    if (!etl_classic_key_of(rec, &k) || !k.known)
        return;
    bool process = etl_guid_equal(&k.cls, &CLASS_PROCESS), thread = !process && etl_guid_equal(&k.cls, &CLASS_THREAD);
    if (!process && !thread)
        return;
    uint8_t kind;
    switch (k.type) {
    case TYPE_START: kind = OBS_START; break;
    case TYPE_END: kind = OBS_END; break;
    case TYPE_DC_START: case TYPE_DC_END: kind = OBS_RUNDOWN; break;
    case TYPE_DEFUNCT:
        if (!process)
            return;
        kind = OBS_RUNDOWN;
        break;
    default:
        return;
    }
    const etl_schema *s;
    if (etl_registry_lookup_classic(p->schemas, &k.cls, k.type, k.version, rec->pointer_size, &s, NULL) != ETL_OK ||
        s->unknown)
        return;
    observe_process(p, rec, s, kind, thread);
}

/* ---- lookups ------------------------------------------------------------------------------ */

static const char *process_name_in(etl_procs *p, const domain *d, uint32_t pid, int64_t ts_raw)
{
    if (pid == ETL_NO_ID)
        return NULL;
    entity *e = d ? entity_get(d->procs, pid, false, NULL, 0) : NULL;
    const life *l = e ? entity_at(e, ts_raw) : NULL;
    if (l && l->val != NO_VAL && l->val < p->names->len)
        return g_ptr_array_index(p->names, l->val);
    /* Windows' fixed ids (since XP), when no event named them */
    if (pid == 0)
        return "Idle";
    if (pid == 4)
        return "System";
    return NULL;
}

static uint32_t thread_pid_in(const domain *d, uint32_t tid, int64_t ts_raw)
{
    if (!d || tid == ETL_NO_ID)
        return ETL_NO_ID;
    entity *e = entity_get(d->threads, tid, false, NULL, 0);
    const life *l = e ? entity_at(e, ts_raw) : NULL;
    return l && l->val != NO_VAL ? l->val : ETL_NO_ID;
}

const char *etl_procs_name_at(etl_procs *p, uint32_t pid, int64_t ts_raw)
{
    return p ? process_name_in(p, p->n_domains ? &p->domains[0] : NULL, pid, ts_raw) : NULL;
}

uint32_t etl_procs_thread_pid_at(etl_procs *p, uint32_t tid, int64_t ts_raw)
{
    return p ? thread_pid_in(p->n_domains ? &p->domains[0] : NULL, tid, ts_raw) : ETL_NO_ID;
}

/* The record's own ids (etl_proc_ids): one read of the payload serves the lookup and the
 * stack-walk key. */
void etl_procs_ids(etl_procs *p, const etl_record *rec, etl_proc_ids *ids)
{
    ids->pid = norm_id(rec->pid);
    ids->tid = ids->key_tid = norm_id(rec->tid);
    if (!p || !etl_record_is_classic(rec))
        return;
    payload_ids pi;
    read_payload_ids(p, rec, &pi);
    if (!pi.pl)
        return;
    if (pi.has_pid && (ids->pid == ETL_NO_ID || pi.pl->subject_pid))
        ids->pid = norm_id(pi.pid);
    if (pi.has_tid) {
        uint32_t t = norm_id(pi.tid);
        if (ids->tid == ETL_NO_ID || pi.pl->subject_tid)
            ids->tid = t;
        if (ids->key_tid == ETL_NO_ID) /* the key's thread: the header's when it has one */
            ids->key_tid = t;
    }
}

bool etl_procs_locate(etl_procs *p, const etl_record *rec, const etl_proc_ids *ids, etl_proc_info *out)
{
    out->pid = ids->pid;
    out->tid = ids->tid;
    out->name = NULL;
    out->pid_from_thread = false;
    if (!p || !rec)
        return false;
    const domain *d = domain_of(p, rec);
    if (out->pid == ETL_NO_ID && out->tid != ETL_NO_ID) {
        out->pid = thread_pid_in(d, out->tid, rec->timestamp_raw);
        out->pid_from_thread = out->pid != ETL_NO_ID;
    }
    if (out->pid == ETL_NO_ID)
        return false;
    out->name = process_name_in(p, d, out->pid, rec->timestamp_raw);
    return true;
}

bool etl_procs_lookup(etl_procs *p, const etl_record *rec, etl_proc_info *out)
{
    if (!p || !rec) {
        *out = (etl_proc_info){.pid = ETL_NO_ID, .tid = ETL_NO_ID};
        return false;
    }
    etl_proc_ids ids;
    etl_procs_ids(p, rec, &ids);
    return etl_procs_locate(p, rec, &ids, out);
}

static void build_all(GHashTable *t)
{
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, t);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        entity *e = value;
        if (e->dirty)
            entity_build(e);
    }
}

void etl_procs_seal(etl_procs *p)
{
    for (uint32_t i = 0; p && i < p->n_domains; i++) {
        build_all(p->domains[i].procs);
        build_all(p->domains[i].threads);
    }
}

/* ---- stack walks -------------------------------------------------------------------------- */

bool etl_stack_event_key(const etl_record *rec, uint64_t *ts_raw, uint32_t *tid)
{
    if (!rec || !rec->has_timestamp)
        return false;
    *ts_raw = (uint64_t)rec->timestamp_raw;
    *tid = norm_id(rec->tid);
    return true;
}

bool etl_procs_event_key(etl_procs *p, const etl_record *rec, uint64_t *ts_raw, uint32_t *tid)
{
    if (!etl_stack_event_key(rec, ts_raw, tid))
        return false;
    if (*tid != ETL_NO_ID) /* the header's thread: the payload's is not asked for */
        return true;
    etl_proc_ids ids;
    etl_procs_ids(p, rec, &ids);
    *tid = ids.key_tid;
    return true;
}

bool etl_record_is_stackwalk(const etl_record *rec)
{
    if (!rec || !etl_record_is_classic(rec))
        return false;
    if (rec->opcode != TYPE_STACK && rec->opcode != TYPE_STACK_KEY_KERNEL && rec->opcode != TYPE_STACK_KEY_USER)
        return false;
    if (etl_record_is_kernel_group(rec))
        return rec->group == GROUP_STACKWALK;
    return rec->has_provider && etl_guid_equal(&rec->provider, &CLASS_STACKWALK);
}

/* The StackWalk class's first three properties are the same in every form the kernel logs
 * (StackWalk_Event, and the key references of types 37/38): a u64 EventTimeStamp, then the
 * u32 StackProcess and StackThread - fixed offsets whatever the pointer size. */
bool etl_stackwalk_target_key(const etl_record *rec, uint64_t *ts_raw, uint32_t *tid)
{
    if (!etl_record_is_stackwalk(rec))
        return false;
    const uint8_t *d = rec->bytes + rec->payload_offset;
    uint64_t ts;
    uint32_t thread;
    if (!etl_u64_at(d, rec->payload_size, 0, &ts) || !etl_u32_at(d, rec->payload_size, 12, &thread))
        return false;
    *ts_raw = ts;
    *tid = thread;
    return true;
}
