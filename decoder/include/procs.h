/* procs.h - which process and thread each record belongs to, and which event a
 * kernel stack walk belongs to.
 *
 * Windows consumers show a process name beside every event (TraceEvent's PName, WPA's
 * Process column).  The trace itself says it only in the kernel's process events: the
 * Process class (Start 1, End 2, DCStart 3, DCEnd 4, Defunct 39, every class version) carries
 * ProcessId and ImageFileName; the Thread class (Start 1, End 2, DCStart 3, DCEnd 4) maps a
 * thread to its process.  etl_procs collects those events, decoded through the classic
 * schemas of the schema registry (the kernel class document), into lifetimes:
 *
 *   - a process id names different processes over a trace (ids are reused): each Start opens
 *     a lifetime, End closes it, and rundown events (DCStart/DCEnd at the trace's start and
 *     end, Defunct) name the process alive at their time - so a process that only appears in
 *     the end rundown is known from the start of the trace, and one that ended before a new
 *     process took its id keeps its own name for its own events;
 *   - the same for thread ids and the process each thread belongs to.
 *
 * Which process a record belongs to (etl_procs_lookup), in this order:
 *   1. the events whose payload names their subject - Process (all types), Thread Start/End/
 *      DCStart/DCEnd, Image, SystemConfig Services - take the payload's ProcessId (and Thread
 *      events the payload's TThreadId), as Windows tools show them: Process/Start belongs to
 *      the new process, not to the parent that logged it;
 *   2. else the header's process id, when the header has one (not ETL_NO_ID, not 0xFFFFFFFF);
 *   3. else (PERFINFO headers: Sample, SysClEnter, ISR, DPC, TcpIp, DiskIO completions, ...)
 *      a process id the payload carries (TcpIp/UdpIp PID, StackWalk StackProcess,
 *      VirtualAlloc ProcessId), or the process of the record's thread at the record's time -
 *      the thread from the header, or from the payload (PerfInfo Sample ThreadId, StackWalk
 *      StackThread, PageFault TThreadId, DiskIO IssuingThreadId, FileIo TTID, CSwitch
 *      NewThreadId); pid_from_thread then says so.
 * The name is the image file name of that process's lifetime at the record's time, as the
 * kernel logged it ("svchost.exe", "System", "Idle"); processes 0 and 4 are "Idle" and "System"
 * when no process event names them (Windows' fixed ids since XP).
 *
 * Traces merged into one file (etl_relog.h etl_merge) keep their processes apart by the buffer's logger id: the
 * process and thread events of each logger id name the processes of records of that logger id,
 * so two machines' pid 4 or one pid in two traces keep their own names.  A record whose logger
 * id has no process events (the user-mode session of a kernel + user merge, as xperf writes it)
 * takes the processes of the one logger id that has any; with several, none.  A trace of one
 * session (every shared capture) has one logger id and is not affected.
 *
 * Feeding: a pre-scan of the whole trace (prescan.h with etl_procs_observer, or
 * etl_procs_observe on every record) before lookups makes everything known everywhere; a streaming reader feeds
 * records as they come, and then later rundowns only help later records.  Records may come in
 * any order (file order or time order).  Lookups allocate nothing; lifetimes of an id are
 * rebuilt once after new events of that id arrive.
 *
 * Memory and work are bounded (limits below): events past the limits on events, distinct ids
 * or events per id are counted (stats.dropped) and ignored; names past the limit on distinct
 * names are kept as unknown.  Together about 100 MiB at worst, a few hundred KiB for real
 * traces.  Events of one id arriving in time order are folded into its lifetimes as they come;
 * one arriving out of order makes the next lookup of that id rebuild them (at most
 * ETL_PROCS_MAX_EVENTS_PER_ID steps).
 *
 * Stack walks.  A kernel StackWalk/Stack event (class StackWalk, type 32) follows the event
 * whose stack it is and names it by (EventTimeStamp, StackThread): the raw timestamp of that
 * event and its thread.  etl_stack_event_key gives any event's own key, etl_stackwalk_target_key
 * a stack's target key; stack_links.h keeps a bounded map of recent events to join them.
 * Events whose header carries no thread (PERFINFO headers: Sample, most stack targets) have
 * their thread in the payload: etl_procs_event_key reads it there, etl_stack_event_key (which
 * sees the header only) leaves it ETL_NO_ID - and etl_stack_links_find then matches on the
 * timestamp alone.
 *
 * Not thread-safe, but for etl_procs_locate on a sealed table (etl_procs_seal). */
#ifndef ETL_PROCESS_CONTEXT_H
#define ETL_PROCESS_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "etl.h"
#include "registry.h"
#include "stack_links.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Process events (Start/End/rundown) kept; a trace of a busy machine has a few thousand. */
#define ETL_PROCS_MAX_PROCESS_EVENTS (1u << 18)
/* Thread events kept (Start/End/rundown); tens of thousands in a long trace. */
#define ETL_PROCS_MAX_THREAD_EVENTS (1u << 20)
/* Distinct process ids and thread ids kept (Windows hands out ids below 2^24, multiples of 4;
 * real traces see hundreds of processes and thousands of threads). */
#define ETL_PROCS_MAX_PROCESSES (1u << 16)
#define ETL_PROCS_MAX_THREADS (1u << 18)
/* Events kept per id: an id reused this often in one trace is not a real one. */
#define ETL_PROCS_MAX_EVENTS_PER_ID 1024u
/* Distinct image names kept. */
#define ETL_PROCS_MAX_NAMES (1u << 16)
/* Logger ids whose processes are kept apart (a merge of this many traces); records of more
 * share the last one's. */
#define ETL_PROCS_MAX_DOMAINS 64u
/* Bytes of an image file name kept (the kernel logs at most 15 characters in EPROCESS, but
 * newer versions log longer ones): longer names are cut at a UTF-8 boundary. */
#define ETL_PROCS_MAX_NAME 260u

typedef struct etl_procs etl_procs;

typedef struct etl_procs_stats {
    uint64_t process_events;   /* process events taken */
    uint64_t thread_events;    /* thread events taken */
    uint64_t dropped;          /* events ignored at the limits above */
    uint64_t names_dropped;    /* names not kept (ETL_PROCS_MAX_NAMES) */
    uint64_t undecodable;      /* process/thread events whose payload had no usable id */
    uint32_t processes;        /* distinct process ids seen */
    uint32_t threads;          /* distinct thread ids seen */
} etl_procs_stats;

/* Uses `schemas` (not owned; it must outlive p) to decode the kernel events by their classic
 * schemas.  NULL when out of memory. */
etl_procs *etl_procs_new(etl_registry *schemas);
void etl_procs_free(etl_procs *p);

/* Take a record if it is a Process or Thread event (anything else is passed over cheaply). */
void etl_procs_observe(etl_procs *p, const etl_record *rec);
/* Could etl_procs_observe take it?  False for what it passes over (most records); reads only
 * the record (any thread: the pre-scan's etl_observer.wants). */
bool etl_procs_wants(const etl_record *rec);
/* The ids of the records it might take (etl_wants_ids_fn, prescan.h): the Process and Thread
 * groups' lifetime types among the kernel's compact records; no event-header record. */
void etl_procs_wants_ids(etl_id_set *set);
/* A whole trace before lookups: etl_prescan (prescan.h) with etl_procs_observer. */

typedef struct etl_proc_info {
    uint32_t pid, tid;        /* ETL_NO_ID when unknown */
    const char *name;         /* image file name as the kernel logged it ("svchost.exe"), or NULL;
                                 owned by p, valid until etl_procs_free */
    bool pid_from_thread;     /* pid derived from the thread (header and payload had none) */
} etl_proc_info;

/* The process a record belongs to at its time (rules above).  True when a pid is known (the
 * name may still be NULL: a process no event named).  etl_procs_ids, then etl_procs_locate. */
bool etl_procs_lookup(etl_procs *p, const etl_record *rec, etl_proc_info *out);

/* The lookup in two halves, for a consumer that does the first in record order and the second
 * elsewhere (etldump --threads: docs/parallel.md).  The first reads what the record says of
 * itself: its header's ids and, through its classic schema, its payload's (rules 1-3 above,
 * before the thread map), and the thread of its stack-walk key (etl_procs_event_key).  It
 * asks the registry and remembers per-schema plans: one thread at a time. */
typedef struct etl_proc_ids {
    uint32_t pid, tid; /* ETL_NO_ID when unknown */
    uint32_t key_tid;  /* the thread etl_procs_event_key gives: the header's, else the payload's */
} etl_proc_ids;
void etl_procs_ids(etl_procs *p, const etl_record *rec, etl_proc_ids *ids);
/* The second half: the process of those ids at the record's time, as etl_procs_lookup.  Once
 * the table is sealed, and while nothing is observed any more, it writes nothing: threads may
 * call it at once. */
bool etl_procs_locate(etl_procs *p, const etl_record *rec, const etl_proc_ids *ids, etl_proc_info *out);
/* Build now every lifetime that a lookup would otherwise rebuild on first use (procs.h: events
 * out of order): after the pre-scan, before lookups from several threads. */
void etl_procs_seal(etl_procs *p);

/* The process alive with this id at raw time ts: its name, or NULL (the processes of the first
 * logger id that has any). */
const char *etl_procs_name_at(etl_procs *p, uint32_t pid, int64_t ts_raw);
/* The process of thread tid at raw time ts, or ETL_NO_ID. */
uint32_t etl_procs_thread_pid_at(etl_procs *p, uint32_t tid, int64_t ts_raw);

const etl_procs_stats *etl_procs_get_stats(const etl_procs *p);

/* ---- stack walks ------------------------------------------------------------------------ */

/* The key of any event: its raw timestamp and its header's thread (ETL_NO_ID when the header
 * has none).  False for a record without a timestamp. */
bool etl_stack_event_key(const etl_record *rec, uint64_t *ts_raw, uint32_t *tid);
/* The same with the thread read from the payload when the header has none (PerfInfo Sample's
 * ThreadId, ...: the thread rules of etl_procs_lookup): the key a stack walk names. */
bool etl_procs_event_key(etl_procs *p, const etl_record *rec, uint64_t *ts_raw, uint32_t *tid);
/* For a StackWalk event (class StackWalk, type 32, or the key-reference types 37/38 which name
 * their event the same way): the key of the event its stack belongs to (EventTimeStamp,
 * StackThread).  False for any other record or a payload too short. */
bool etl_stackwalk_target_key(const etl_record *rec, uint64_t *ts_raw, uint32_t *tid);
/* Is this a StackWalk event that names a target (types 32, 37, 38)? */
bool etl_record_is_stackwalk(const etl_record *rec);

#ifdef __cplusplus
}
#endif

#endif /* ETL_PROCESS_CONTEXT_H */
