/* etl_event_prefs.c - the preferences of the event data, the registry's reports, and the
 * decoding session of the open capture file with its prescan client (etl_event_internal.h).
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later */

#include "compat.h"

#include <string.h>

#include <epan/epan.h>
#include <epan/packet.h>
#include <epan/prefs.h>

#include "prescan.h"
#include "wpp.h"

#include "etl_event_data.h"
#include "etl_event_internal.h"
#include "etl_prescan.h"

/* The decoding session for the open capture file (resolve.h): its schema cache (a hit
 * allocates nothing), registry and remembered provider names. */
static etl_decoder *etls_decoder;

/* The session's schema registry (registry.h): the manifest files of the search path (preference etl.manifest_path, then
 * $ETLSHARK_MANIFEST_PATH), then the EventSource manifests and carried schemas of the file,
 * collected by the prescan of the file before its first frame is dissected (etl_prescan.h). */
static etl_registry *etls_schemas;
/* The preference etl.manifest_path (':'-separated manifest files and folders). */
static const char *etls_pref_manifest_path_value = "";
/* The preference etl.tmf_path (':'-separated WPP TMF files and folders). */
static const char *etls_pref_tmf_path_value = "";
/* The preference etl.full_packet_record (etl_event_data.h). */
static etls_pref_bool etls_pref_full_packet_record_value;
/* No file to prescan (a pipe, a compressed file, a frame from elsewhere): the first pass
 * feeds schema-carrying records to the registry as they come instead, so events before their
 * schema decode on redissection only. */
static bool etls_observe;
/* Registry messages already reported (each manifest problem once per process, not per file). */
static GHashTable *etls_reported;
#define ETLS_REPORTED_MAX 1000u
/* The open capture file's registry problems, each once, in the order reported, for the expert
 * infos of its first frame (someone who started Wireshark from a menu sees no stderr). */
typedef struct etls_problem {
    bool error;
    char *message;
} etls_problem;
static GArray *etls_file_problems;
#define ETLS_FILE_PROBLEMS_MAX 64u

static void
etls_file_problems_reset(bool again)
{
    if (etls_file_problems != NULL) {
        for (guint i = 0; i < etls_file_problems->len; i++)
            g_free(g_array_index(etls_file_problems, etls_problem, i).message);
        g_array_free(etls_file_problems, TRUE);
        etls_file_problems = NULL;
    }
    if (again)
        etls_file_problems = g_array_new(FALSE, FALSE, sizeof(etls_problem));
}

static void
etls_file_problem_add(etl_registry_severity severity, const char *message)
{
    etls_problem pr;

    if (etls_file_problems == NULL || etls_file_problems->len >= ETLS_FILE_PROBLEMS_MAX)
        return;
    for (guint i = 0; i < etls_file_problems->len; i++)
        if (strcmp(g_array_index(etls_file_problems, etls_problem, i).message, message) == 0)
            return;
    pr.error = severity == ETL_REGISTRY_ERROR;
    pr.message = g_strdup(message);
    g_array_append_val(etls_file_problems, pr);
}

guint
etls_manifest_problem_count(void)
{
    return etls_file_problems != NULL ? etls_file_problems->len : 0;
}

const char *
etls_manifest_problem(guint i, bool *error)
{
    const etls_problem *pr = &g_array_index(etls_file_problems, etls_problem, i);

    *error = pr->error;
    return pr->message;
}
const char *
etls_pref_manifest_path(void)
{
    return etls_pref_manifest_path_value != NULL ? etls_pref_manifest_path_value : "";
}

bool
etls_pref_full_packet_record(void)
{
    return etls_pref_full_packet_record_value != 0;
}

const char *
etls_pref_tmf_path(void)
{
    return etls_pref_tmf_path_value != NULL ? etls_pref_tmf_path_value : "";
}

etl_decoder *
etls_event_decoder(void)
{
    return etls_decoder;
}

/* The registry's messages (a manifest that does not parse: "file:line: reason"; two files
 * disagreeing about an event; a refused schema record): on stderr once each per process (the
 * manifests are read again for every capture file), and for the open file's first frame. */
void
etls_schemas_report(void *ctx _U_, etl_registry_severity severity, const char *message)
{
    if (severity == ETL_REGISTRY_INFO)
        return;
    etls_file_problem_add(severity, message);
    if (etls_reported == NULL)
        etls_reported = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    if (g_hash_table_contains(etls_reported, message))
        return;
    if (g_hash_table_size(etls_reported) < ETLS_REPORTED_MAX)
        g_hash_table_add(etls_reported, g_strdup(message));
    /* manifest and TMF problems alike: the message names the file */
    ws_warning("etlshark: %s%s", severity == ETL_REGISTRY_ERROR ? "error: " : "", message);
}

/* The search path in precedence order: the preference, then the environment.  Its files are
 * read on every CPU Wireshark may use (the registry, and what it reports, are the same; the
 * reports all come from this thread). */
void
etls_add_manifest_paths(etl_registry *s)
{
    const char *env = etl_registry_env_path();

    if (etls_pref_manifest_path()[0] != '\0')
        etl_registry_add_path_threads(s, etls_pref_manifest_path(), etl_thread_cpus());
    if (env != NULL && env[0] != '\0')
        etl_registry_add_path_threads(s, env, etl_thread_cpus());
}

/* The TMF path in precedence order: the preference, then the environment. */
void
etls_add_tmf_paths(etl_decoder *d)
{
    const char *env = etl_tmf_env_path();

    if (etls_pref_tmf_path()[0] != '\0')
        etl_decoder_add_tmf_path(d, etls_pref_tmf_path());
    if (env != NULL && env[0] != '\0')
        etl_decoder_add_tmf_path(d, env);
}

static void
etls_prefs_apply(void)
{
    etls_register_manifest_fields();
    etls_register_wpp_fields();
}

etl_registry *
etls_event_data_schemas(void)
{
    return etls_schemas;
}

/* The prescan's client (etl_prescan.h): the schemas the capture file carries (MetaData
 * records, EventSource manifest chunks) go to the registry before the first lookup. */
static bool
etls_schemas_observer(etl_observer *out)
{
    if (etls_schemas == NULL)
        return false;
    *out = etl_registry_observer_of(etls_schemas, etls_trace_number_of(etls_prescan_scanning()));
    return true;
}

static void
etls_schemas_stream(void)
{
    etls_observe = true;
}

static const etls_prescan_client etls_schemas_client = { etls_schemas_observer, etls_schemas_stream };

void
etls_event_data_record(packet_info *pinfo, const etl_record *rec)
{
    if (etls_schemas == NULL)
        return;
    etls_prescan_once(pinfo);
    if (etls_observe && !PINFO_FD_VISITED(pinfo)) {
        etl_error err;

        memset(&err, 0, sizeof err);
        etl_registry_observe(etls_schemas, rec, &err);
    }
}

static void
etls_event_data_init(void)
{
    etls_file_problems_reset(true);
    etls_decoder = etl_decoder_new(etls_schemas_report, NULL);
    if (etls_decoder == NULL)
        ws_warning("etlshark: out of memory for the schema cache; event fields are not "
                   "decoded");
    etls_steps_open();
    /* Manifest files first (they take precedence), then, at the first frame, the file's own. */
    etls_schemas = etl_decoder_registry(etls_decoder);
    if (etls_schemas != NULL)
        etls_add_manifest_paths(etls_schemas);
    if (etls_decoder != NULL)
        etls_add_tmf_paths(etls_decoder);
    etls_observe = false;
}

static void
etls_event_data_cleanup(void)
{
    etls_steps_close();
    etl_decoder_free(etls_decoder);
    etls_decoder = NULL;
    etls_schemas = NULL;
    etls_fields_save(true);
    etls_file_problems_reset(false);
}

static void
etls_event_data_shutdown(void)
{
    etls_fields_shutdown();
    if (etls_reported != NULL) {
        g_hash_table_destroy(etls_reported);
        etls_reported = NULL;
    }
    etls_register_shutdown();
}

void
etls_event_prefs_register(int proto)
{
    module_t *prefs;

    register_init_routine(etls_event_data_init);
    register_cleanup_routine(etls_event_data_cleanup);
    register_shutdown_routine(etls_event_data_shutdown);
    etls_prescan_register(&etls_schemas_client);

    prefs = prefs_register_protocol(proto, etls_prefs_apply);
    prefs_register_string_preference(prefs, "manifest_path", "Manifest search path",
        "Instrumentation manifests (.man/.xml) of manifest-based providers, and provider "
        "binaries (.dll/.exe/.sys with a WEVT_TEMPLATE resource, e.g. a copy of "
        "Windows\\System32): a list of files and folders (a folder's *.man, *.xml, *.dll, *.exe "
        "and *.sys files are read; a folder ending in \"" ETL_REGISTRY_RECURSIVE_SUFFIX "\" "
        "with its subfolders) separated by '" G_SEARCHPATH_SEPARATOR_S "'.  Searched before $"
        ETL_REGISTRY_ENV ", and before the EventSource manifests and schemas a trace carries.  "
        "The typed etl.data.<name> fields of every event they describe are registered at "
        "start-up.",
        &etls_pref_manifest_path_value);
    prefs_register_string_preference(prefs, "tmf_path", "WPP TMF search path",
        "Trace message format files (.tmf, tracepdb output) of WPP software traces: a list of "
        "TMF files and folders (a folder's *.tmf files are read) separated by '"
        G_SEARCHPATH_SEPARATOR_S "'.  Searched before $" ETL_TMF_ENV ".  Each WPP message then "
        "shows its formatted message, level, flags and typed etl.data.<expression> arguments, "
        "registered at start-up.",
        &etls_pref_tmf_path_value);
    prefs_register_bool_preference(prefs, "full_packet_record",
        "Show the full ETW record on packet frames",
        "On a packet event handed to the Ethernet, IP or 802.11 dissectors (pktmon 160/170, "
        "ndiscap 1001/1003), the ETW tree shows the Packet subtree (etl.pkt.*: every pktmon and "
        "ndiscap field), the provider and event names, the event id, process, thread and CPU.  "
        "On: also the full trace header, the payload, the event's decoded fields (Event data, "
        "which repeat etl.pkt.*) and the record context, as on any other frame.  Off, they are "
        "still added to a frame whenever a display filter, a column or a -e field uses one of "
        "their fields, and to a packet event that is malformed or does not decode cleanly.",
        &etls_pref_full_packet_record_value);
}
