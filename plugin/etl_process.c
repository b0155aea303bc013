/* etl_process.c - the process of every record and the stack-walk links (etl_process.h).
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A thin user of the decoder's process context (procs.h, stack_links.h): the decoder
 * decides which process a record belongs to and which event a stack walk names; this file
 * keeps the answers with the frames and places them in the tree.
 */

#include "compat.h"

#include <string.h>

#include <epan/packet.h>
#include <epan/proto_data.h>

#include "etl.h"
#include "prescan.h"
#include "procs.h"
#include "registry.h"
#include "stack_links.h"
#include "volumes.h"

#include "etl_event_data.h"
#include "etl_prescan.h"
#include "etl_process.h"

/* p_add_proto_data key of a frame's etls_frame_ctx (etl_event_data.c uses 0). */
#define ETLS_PDATA_PROCESS 1u

static int etls_proto = -1;

static int hf_etl_process_name = -1;
static int hf_etl_process_pid = -1;
static int hf_etl_process_tid = -1;
static int hf_etl_stack_of = -1;
static int hf_etl_stack_frame = -1;
static int hf_etl_dos_path = -1;

/* One trace's process table and stack links.  A capture file holds one trace, or several (a
 * pcapng of the frames of several .etl files): each trace's processes name its own frames only,
 * so two traces' same pid keep their own names. */
typedef struct etls_trace_procs {
    etl_procs *procs;
    etl_volumes *volumes; /* its NT -> DOS volume mappings */
    /* events of the first pass by (raw timestamp, thread), to find a stack walk's event */
    etl_stack_links *links;
    /* no prescan of this trace: the first pass feeds the table */
    bool feed;
} etls_trace_procs;

/* The open capture file's traces by etls_trace_key (etl_prescan.h); a trace is added at its
 * first frame, absent when the decoder could not make its table. */
static GHashTable *etls_traces;
/* Frame number of an event -> wmem_array_t of the StackWalk frames that carry its stack
 * (file scope: reset per capture file). */
static wmem_map_t *etls_stacks_of_event;

/* What the first pass decided about a frame (file scope, under ETLS_PDATA_PROCESS). */
typedef struct etls_frame_ctx {
    uint32_t pid;         /* ETL_NO_ID when not known */
    uint32_t tid;         /* ETL_NO_ID when not known */
    const char *name;     /* owned by the trace's etl_procs (lives as long as the file); NULL if unnamed */
    bool pid_from_thread;
    uint32_t stack_of;    /* StackWalk events: the frame of their event; 0 when none */
} etls_frame_ctx;

static void
etls_trace_procs_free(gpointer p)
{
    etls_trace_procs *t = (etls_trace_procs *)p;

    etl_stack_links_free(t->links);
    etl_volumes_free(t->volumes);
    etl_procs_free(t->procs);
    g_free(t);
}

/* Everything of a trace that records name: its processes and its volume mappings. */
static void
etls_trace_observe(void *ctx, const etl_record *rec)
{
    etls_trace_procs *t = (etls_trace_procs *)ctx;

    etl_procs_observe(t->procs, rec);
    etl_volumes_observe(t->volumes, rec);
}

/* The prescan's client (etl_prescan.h): the process table of the trace being prescanned. */
static bool
etls_procs_observer(etl_observer *out)
{
    etl_registry *schemas = etls_event_data_schemas();
    const char *key = etls_prescan_scanning();
    etls_trace_procs *t;

    if (schemas == NULL || key == NULL || etls_traces == NULL)
        return false;
    t = g_new0(etls_trace_procs, 1);
    t->procs = etl_procs_new(schemas);
    t->links = etl_stack_links_new(0);
    t->volumes = etl_volumes_new(schemas);
    if (t->procs == NULL || t->links == NULL || t->volumes == NULL) {
        ws_warning("etlshark: out of memory for the process table; process names and stack "
                   "links are not shown");
        etls_trace_procs_free(t);
        return false;
    }
    g_hash_table_insert(etls_traces, g_strdup(key), t);
    out->observe = etls_trace_observe;
    out->ctx = t;
    return true;
}

/* No prescan: the first pass feeds the table. */
static void
etls_procs_stream(void)
{
    const char *key = etls_prescan_scanning();
    etls_trace_procs *t = key != NULL && etls_traces != NULL
                              ? (etls_trace_procs *)g_hash_table_lookup(etls_traces, key) : NULL;

    if (t != NULL)
        t->feed = true;
}

static const etls_prescan_client etls_procs_client = { etls_procs_observer, etls_procs_stream };

/* The first pass over a frame: its process, and the stack-walk link. */
static etls_frame_ctx *
etls_first_pass(etls_trace_procs *t, packet_info *pinfo, const etl_record *rec)
{
    etls_frame_ctx *fc = wmem_new0(wmem_file_scope(), etls_frame_ctx);
    etl_proc_info info;
    uint64_t target;

    fc->pid = ETL_NO_ID;
    fc->tid = ETL_NO_ID;
    if (t->feed)
        etls_trace_observe(t, rec);
    if (etl_procs_lookup(t->procs, rec, &info)) {
        fc->pid = info.pid;
        fc->tid = info.tid;
        fc->name = info.name;
        fc->pid_from_thread = info.pid_from_thread;
    }

    /* frame numbers as ids: 0 is no frame, and a walk links back, never forward */
    if (etl_stack_links_observe(t->links, t->procs, rec, pinfo->num, &target) && target != 0 &&
        target < pinfo->num) {
        wmem_array_t *walks;

        fc->stack_of = (uint32_t)target;
        walks = (wmem_array_t *)wmem_map_lookup(etls_stacks_of_event,
                                                GUINT_TO_POINTER(fc->stack_of));
        if (walks == NULL) {
            walks = wmem_array_new(wmem_file_scope(), sizeof(uint32_t));
            wmem_map_insert(etls_stacks_of_event, GUINT_TO_POINTER(fc->stack_of), walks);
        }
        wmem_array_append_one(walks, pinfo->num);
    }
    p_add_proto_data(wmem_file_scope(), pinfo, etls_proto, ETLS_PDATA_PROCESS, fc);
    return fc;
}

void
etls_process_record(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etl_record *rec,
                    etls_event_summary *sum)
{
    etls_frame_ctx *fc;
    etls_trace_procs *t;
    wmem_array_t *walks;
    proto_item *ti;

    etls_prescan_once(pinfo);
    t = etls_traces != NULL ? (etls_trace_procs *)g_hash_table_lookup(etls_traces, etls_trace_key(pinfo)) : NULL;
    if (t == NULL)
        return;
    fc = (etls_frame_ctx *)p_get_proto_data(wmem_file_scope(), pinfo, etls_proto,
                                            ETLS_PDATA_PROCESS);
    if (fc == NULL) {
        if (PINFO_FD_VISITED(pinfo))
            return; /* not seen in a first pass (cannot happen: every frame gets one) */
        fc = etls_first_pass(t, pinfo, rec);
    } else if (t->feed) {
        /* No prescan (a pcapng whose trace is not at hand): the first pass filled the table
         * from the frames, so later passes (tshark -2, the GUI) name each frame from all of
         * them - rundowns at the end of the trace included. */
        etl_proc_info info;

        if (etl_procs_lookup(t->procs, rec, &info)) {
            fc->pid = info.pid;
            fc->tid = info.tid;
            fc->name = info.name;
            fc->pid_from_thread = info.pid_from_thread;
        }
    }

    if (fc->pid != ETL_NO_ID) {
        if (fc->name != NULL) {
            ti = proto_tree_add_string(tree, hf_etl_process_name, tvb, 0, 0, fc->name);
            proto_item_set_generated(ti);
            sum->process = wmem_strdup_printf(pinfo->pool, "%s (%u)", fc->name, fc->pid);
        } else {
            sum->process = wmem_strdup_printf(pinfo->pool, "pid %u", fc->pid);
        }
        ti = proto_tree_add_uint(tree, hf_etl_process_pid, tvb, 0, 0, fc->pid);
        proto_item_set_generated(ti);
        if (fc->pid_from_thread)
            proto_item_append_text(ti, " (the process of thread %u)", fc->tid);
        if (fc->tid != ETL_NO_ID && fc->tid != rec->tid) {
            ti = proto_tree_add_uint(tree, hf_etl_process_tid, tvb, 0, 0, fc->tid);
            proto_item_set_generated(ti);
        }
    }
    if (fc->stack_of != 0) {
        ti = proto_tree_add_uint(tree, hf_etl_stack_of, tvb, 0, 0, fc->stack_of);
        proto_item_set_generated(ti);
    }
    /* Filled while the first pass reaches the stack walks after this frame: shown from the
     * second pass on (tshark -2, the GUI). */
    walks = (wmem_array_t *)wmem_map_lookup(etls_stacks_of_event, GUINT_TO_POINTER(pinfo->num));
    if (walks != NULL && PINFO_FD_VISITED(pinfo)) {
        for (guint i = 0; i < wmem_array_get_count(walks); i++) {
            ti = proto_tree_add_uint(tree, hf_etl_stack_frame, tvb, 0, 0,
                                     *(const uint32_t *)wmem_array_index(walks, i));
            proto_item_set_generated(ti);
        }
    }
}

void
etls_process_dos_path(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const etl_record *rec,
                      int off, int len, const char *s, size_t n)
{
    static char dos[2 * ETL_VOLUMES_MAX_PATH + 65536];
    etls_trace_procs *t;
    proto_item *ti;

    /* only for a tree shown, or a filter or column on etl.dos_path */
    if (s == NULL || n < 2 || s[0] != '\\' || etls_traces == NULL || !proto_field_is_referenced(tree, hf_etl_dos_path))
        return;
    t = (etls_trace_procs *)g_hash_table_lookup(etls_traces, etls_trace_key(pinfo));
    if (t == NULL || !etl_volumes_dos_path(t->volumes, rec, s, n, dos, sizeof dos))
        return;
    ti = proto_tree_add_string(tree, hf_etl_dos_path, tvb, off, len, dos);
    proto_item_set_generated(ti);
}

static void
etls_process_init(void)
{
    etls_traces = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, etls_trace_procs_free);
}

static void
etls_process_cleanup(void)
{
    if (etls_traces != NULL)
        g_hash_table_destroy(etls_traces);
    etls_traces = NULL;
}

void
etls_process_register(int proto)
{
    static hf_register_info hf[] = {
        { &hf_etl_process_name, { "Process name", "etl.process_name", FT_STRING, BASE_NONE, NULL, 0x0,
            "Image file name of the record's process as the kernel logged it (from the trace's Process and Thread events)", HFILL } },
        { &hf_etl_process_pid, { "Process id (resolved)", "etl.process_pid", FT_UINT32, BASE_DEC, NULL, 0x0,
            "The process the record belongs to: the event's subject (Process/Thread/Image events), else the header's, else the process of the record's thread", HFILL } },
        { &hf_etl_process_tid, { "Thread id (resolved)", "etl.process_tid", FT_UINT32, BASE_DEC, NULL, 0x0,
            "The record's thread when the header names none or another (read from the payload)", HFILL } },
        { &hf_etl_stack_of, { "Stack of frame", "etl.stack_of", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
            "StackWalk event: the frame of the event whose stack this is (same raw timestamp and thread)", HFILL } },
        { &hf_etl_dos_path, { "DOS path", "etl.dos_path", FT_STRING, BASE_NONE, NULL, 0x0,
            "The DOS form of the NT path value before it (\\Device\\HarddiskVolume2\\... as C:\\...), from the trace's own volume mappings", HFILL } },
        { &hf_etl_stack_frame, { "Stack in frame", "etl.stack_frame", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
            "The StackWalk event carrying this event's stack (known after the first pass: tshark -2, the GUI)", HFILL } },
    };

    etls_proto = proto;
    proto_register_field_array(proto, hf, G_N_ELEMENTS(hf));
    register_init_routine(etls_process_init);
    register_cleanup_routine(etls_process_cleanup);
    etls_prescan_register(&etls_procs_client);
    etls_stacks_of_event = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
                                                  g_direct_hash, g_direct_equal);
}
