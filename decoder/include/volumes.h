/* volumes.h - DOS paths for the NT paths a trace logs, from the trace's own volume mappings.
 *
 * The kernel logs file names as NT paths (\Device\HarddiskVolume2\Windows\System32\ntdll.dll,
 * \SystemRoot\System32\...); WPA and PerfView show C:\Windows\System32\ntdll.dll.  The mapping
 * is in the trace: KernelTraceControl's SysConfig VolumeMapping events (class
 * {9b79ee91-b5fd-41c0-a243-4248e266e9d0}, type 35: NtPath, DosPath; written by xperf, WPR and
 * PerfView at the trace's end, decoded through the kernel class document).  etl_volumes
 * collects them (a prescan observer, prescan.h) and turns any string that starts with a mapped
 * NT prefix (the longest one, compared without regard to ASCII case, as Windows does) into its
 * DOS form.  This is the one place that decides a DOS path: etldump and Wireshark both ask it.
 *
 * Bounded: at most ETL_VOLUMES_MAX mappings, each prefix at most ETL_VOLUMES_MAX_PATH bytes
 * (more are counted and ignored).  Not thread-safe.  GLib family (registry, fields). */
#ifndef ETL_VOLUMES_H
#define ETL_VOLUMES_H

#include <stdbool.h>
#include <stddef.h>

#include "etl.h"
#include "prescan.h"
#include "registry.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETL_VOLUMES_MAX 256u
#define ETL_VOLUMES_MAX_PATH 520u

typedef struct etl_volumes etl_volumes;

/* Uses `schemas` (not owned) to decode the mapping events.  NULL when out of memory. */
etl_volumes *etl_volumes_new(etl_registry *schemas);
void etl_volumes_free(etl_volumes *v);

/* Is this record a volume mapping event (what a written subset keeps, keep.h)? */
bool etl_volumes_is_mapping(const etl_record *rec);
/* The ids of the records that are mappings (etl_wants_ids_fn, prescan.h): none, the mappings
 * come with a full header (KernelTraceControl's class). */
void etl_volumes_wants_ids(etl_id_set *set);

/* Take a record if it is a volume mapping (anything else is passed over cheaply). */
void etl_volumes_observe(etl_volumes *v, const etl_record *rec);
etl_observer etl_volumes_observer(etl_volumes *v);

/* Mappings taken, and ignored at the limits. */
size_t etl_volumes_count(const etl_volumes *v);
size_t etl_volumes_dropped(const etl_volumes *v);

/* The DOS form of `path` (UTF-8, `len` bytes), a string value of record `rec` (the mapping
 * events themselves get none: they state their DOS side), into out (NUL-terminated): true when a mapped NT
 * prefix starts it, maps to another text ("\\?\" mapped to itself does not count) and the
 * result fits `cap`; false otherwise (out untouched). */
bool etl_volumes_dos_path(const etl_volumes *v, const etl_record *rec, const char *path, size_t len, char *out,
                          size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* ETL_VOLUMES_H */
