/* etl_event_internal.h - what the parts of the event-data code share (etl_event_data.h is
 * the dissector's interface; this one only the files behind it see).
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The event data is four files, one job each:
 *   etl_event_data.c      the walk and the tree: names, values, subtrees, expert info
 *   etl_event_steps.c     what each step of a cached schema is called and typed (shared by the
 *                         walk and the start-up registration)
 *   etl_event_register.c  start-up field registration (kernel events, the manifests' events)
 *   etl_event_prefs.c     preferences, registry reports, the per-file decoding session and its
 *                         prescan client */
#ifndef ETLSHARK_ETL_EVENT_INTERNAL_H
#define ETLSHARK_ETL_EVENT_INTERNAL_H

#include <glib.h>

#include "etl.h"
#include "fields.h"
#include "registry.h"
#include "resolve.h"
#include "schema.h"
#include "value_format.h"

#include "etl_fields.h"

/* ---- steps (etl_event_steps.c) ------------------------------------------------------------ */

/* What this file learned about each step of a cached schema: the field's path and, once a
 * value was seen, its typed field.  Indexed by the schema's arena index, so it lives and dies
 * with the cache. */
typedef struct etls_step {
    char *path;     /* display path: names joined by '.', "_N" for the Nth same-named member */
    char *key;      /* the path sanitised for an abbreviation (etl_fields.h) */
    char *label;    /* the item's own name in its tree label (valid UTF-8; "(unnamed)") */
    int hf;         /* typed field of the last value, -1 when it has none */
    int type;       /* etls_ftype of hf, -1 before the first value */
} etls_step;

typedef struct etls_schema_steps {
    uint32_t count;
    bool typed;     /* every value step has its nominal type's field (etls_steps_type) */
    etls_step step[];
} etls_schema_steps;

/* A table of schema steps by arena index (g_ptr_array, freeing its entries). */
GPtrArray *etls_steps_index_new(void);
/* The steps of schema s in `by_index`, made on first sight; NULL for a schema outside a cache. */
etls_schema_steps *etls_steps_in(GPtrArray *by_index, const etl_schema *s);
/* The same in the open file's table (etls_steps_open / etls_steps_close). */
etls_schema_steps *etls_steps_of(const etl_schema *s);
void etls_steps_open(void);
/* The open file's table (NULL when no file is open). */
GPtrArray *etls_steps_open_index(void);
void etls_steps_close(void);
/* The step of an item, its path made on first sight (`parent`: its container's step). */
etls_step *etls_step_for(etls_schema_steps *ss, const etl_item *it, const etls_step *parent);
/* The typed field of a step for a value type (-1 when none can be had). */
int etls_step_hf(etls_step *st, etls_ftype t);
/* The Wireshark type of a decoded value. */
etls_ftype etls_ftype_of(const etl_value *v);
/* Append a NUL-terminated name from the trace as valid UTF-8. */
void etls_append_utf8(GString *out, const char *s);

/* ---- start-up registration (etl_event_register.c) ---------------------------------------- */

/* The typed fields of every kernel event (once) / of every event of the manifests on the
 * search path (again when the path changes). */
void etls_register_classic_fields(void);
void etls_register_manifest_fields(void);
/* The typed fields of every WPP message of the TMF path (again when the path changes). */
void etls_register_wpp_fields(void);
/* The typed field of every value step of schema s in the open file's table, from the
 * values' nominal types (as registered at start-up), so the fields a walk of it would add are
 * known before any walk; sets the steps' `typed`. */
void etls_steps_type(const etl_schema *s);
void etls_register_shutdown(void);

/* ---- preferences, reports, the session (etl_event_prefs.c) ------------------------------- */

/* The preference etl.manifest_path ("" when unset). */
const char *etls_pref_manifest_path(void);
/* The registry's messages: on stderr once each per process, and kept for the open file. */
void etls_schemas_report(void *ctx, etl_registry_severity severity, const char *message);
/* The open file's registry problems (a missing path entry, a manifest that does not parse, two
 * manifests that disagree, a refused carried schema), each once: how many, and the i-th with
 * whether it is an error (else a warning). */
guint etls_manifest_problem_count(void);
const char *etls_manifest_problem(guint i, bool *error);
/* The search path in precedence order: the preference, then the environment. */
void etls_add_manifest_paths(etl_registry *s);
/* The preference etl.tmf_path ("" when unset), and the TMF path in precedence order (the
 * preference, then $ETLSHARK_TMF_PATH) added to a session. */
const char *etls_pref_tmf_path(void);
void etls_add_tmf_paths(etl_decoder *d);
/* The open capture file's decoding session (NULL before the first file or when out of memory). */
etl_decoder *etls_event_decoder(void);
/* At protocol registration: the per-file session's init/cleanup, the prescan client, the
 * preferences. */
void etls_event_prefs_register(int proto);

#endif /* ETLSHARK_ETL_EVENT_INTERNAL_H */
