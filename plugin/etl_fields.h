/* etl_fields.h - the dynamic field registry: typed display-filter fields `etl.data.<path>`
 * for event fields whose names are only known from the data.
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A TraceLogging event names its own fields, so the dissector cannot register them all at
 * start-up the usual way (a static hf array).  This registry gives every (path, type) pair
 * one Wireshark field and keeps that promise across runs:
 *
 *   - Fields are registered on demand while dissecting (proto_register_field_array on a heap
 *     hf_register_info); they show in -V, -T json/pdml/fields output at once.
 *   - Wireshark compiles -Y/-R filters and checks -e fields before it reads the capture, so
 *     a field first met while dissecting cannot be used in that same run.  Every new field is
 *     therefore appended to a per-profile store (ETLS_FIELDS_STORE in the Wireshark profile
 *     folder) and the store is registered at start-up: the next run accepts the field in -Y
 *     and -e from the start.
 *   - One name never has two types: registering one abbreviation twice with different types
 *     makes Wireshark crash when a filter compares it.  The type is part of the field's
 *     identity (etls_ftype, which includes the display base of integers), and the rule that
 *     picks the name is:
 *        the path's plain name `etl.data.<path>` for the first type seen for it,
 *        `etl.data.<path>_<code>` for any other type (code: etls_ftype_code, e.g. `u64`),
 *        `etl.data.<path>_<code>_<n>` (n = 2, 3, ...) if even that name has another type
 *        (a field literally named like a suffixed one).
 *     "First" means first in this store: the store remembers every name with its type, so
 *     the choice is stable across runs and capture files.
 *
 * Store format (UTF-8 text, one field per line, written as a whole to a temporary file that
 * then replaces the store, so a reader never sees half a file):
 *     # comment lines and empty lines are ignored
 *     etl.data.<path> <code>
 * A line that is not in this form (foreign, damaged or hand-edited) is skipped with a warning;
 * lines already in the file are kept as they are when new fields are appended.
 *
 * Nothing here knows about ETW: paths and types come from the caller. */
#ifndef ETLSHARK_ETL_FIELDS_H
#define ETLSHARK_ETL_FIELDS_H

#include <stdbool.h>
#include <glib.h>

/* Prefix of every dynamic field; the path follows it. */
#define ETLS_FIELDS_PREFIX "etl.data."
/* File name of the store in the Wireshark profile folder. */
#define ETLS_FIELDS_STORE "etlshark_fields"
/* Dynamic fields one process registers at most (store and new ones together).  Each costs a
 * few hundred bytes in Wireshark; past the bound values are still shown, but untyped. */
#define ETLS_FIELDS_MAX 20000u
/* Bytes of a path kept in an abbreviation; longer paths are cut (names rarely exceed 64). */
#define ETLS_FIELDS_MAX_PATH 200u

/* The Wireshark type of a dynamic field.  Integers of one width but different display base
 * (decimal / hex) are different types, so a field's display never depends on which event
 * was seen first. */
typedef enum etls_ftype {
    ETLS_FT_I8, ETLS_FT_I16, ETLS_FT_I32, ETLS_FT_I64,     /* FT_INT*, decimal */
    ETLS_FT_U8, ETLS_FT_U16, ETLS_FT_U32, ETLS_FT_U64,     /* FT_UINT*, decimal */
    ETLS_FT_X8, ETLS_FT_X16, ETLS_FT_X32, ETLS_FT_X64,     /* FT_UINT*, hex */
    ETLS_FT_DOUBLE,                                        /* FT_DOUBLE */
    ETLS_FT_BOOL,                                          /* FT_BOOLEAN */
    ETLS_FT_STRING,                                        /* FT_STRING */
    ETLS_FT_BYTES,                                         /* FT_BYTES */
    ETLS_FT_GUID,                                          /* FT_GUID */
    ETLS_FT_TIME,                                          /* FT_ABSOLUTE_TIME, UTC */
    ETLS_FT_IPV4,                                          /* FT_IPv4 */
    ETLS_FT_IPV6,                                          /* FT_IPv6 */
    ETLS_FT_COUNT
} etls_ftype;

/* The type's code in the store and in name suffixes: "i8" ... "u64", "x32", "double", "bool",
 * "string", "bytes", "guid", "time", "ipv4", "ipv6". */
const char *etls_ftype_code(etls_ftype t);

/* At protocol registration: read the store of the current profile and register its fields
 * under `proto`.  Warns about (and skips) lines it cannot use. */
void etls_fields_register(int proto);

/* Append one path component, sanitised to the abbreviation rules: bytes other than
 * [A-Za-z0-9_-] become '_', a leading '-' becomes '_', an empty name becomes "_".  ('.' is
 * replaced too: it separates struct members in the path.) */
void etls_fields_append_component(GString *path, const char *name);

/* The field id for values of type `t` at `path` (already sanitised, without the prefix),
 * registering the field if needed by the naming rule above.  -1 when no typed field can be
 * had (ETLS_FIELDS_MAX reached, or the path is not a valid abbreviation): show the value
 * untyped.  A path seen before costs one hash lookup and allocates nothing. */
int etls_fields_hf(const char *path, etls_ftype t);

/* While `on` is false, fields registered are not added to the store: for fields registered
 * the same way at every start (the kernel events' fields of the built-in class document), which
 * the store need not remember.  On by default. */
void etls_fields_remember(bool on);

/* Write fields registered since the last save to the store.  Without `force`, at most once a
 * second (a capture that keeps revealing fields does not rewrite the store per frame); the
 * dissector calls it after frames that registered fields, and with force when a capture file
 * is closed and at exit.  Failures are warned about once and never stop dissection. */
void etls_fields_save(bool force);

/* At exit: save, then free the registry's tables (the registered fields stay with Wireshark). */
void etls_fields_shutdown(void);

#endif /* ETLSHARK_ETL_FIELDS_H */
