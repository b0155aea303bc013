/* etl_prescan.h - the capture file's one prescan, before its first frame.
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Parts of the dissector that need the whole trace before its first frame (the schemas it
 * carries: etl_event_data.c; process and thread lifetimes: etl_process.c) each register a
 * client at protocol registration.  At the trace's first frame (whichever part sees it first
 * calls etls_prescan_once) every client is asked for its observer of the file, and the
 * decoder's one pass (prescan.h) reads the file once, feeding them all.  The file is named by
 * the reader in the interface description (etl_frame.h ETLS_IDB_TRACE_PREFIX); when there is
 * no file to read (a pipe, a compressed file, a frame from elsewhere) or the pass fails, every
 * client is told to take the records from the first pass as they come instead. */
#ifndef ETLSHARK_ETL_PRESCAN_H
#define ETLSHARK_ETL_PRESCAN_H

#include <stdbool.h>

#include <epan/packet.h>

#include "prescan.h"

typedef struct etls_prescan_client {
    /* At the file's first frame: set *out to this part's observer of the file; false when it
     * has none for this file (e.g. out of memory). */
    bool (*observer)(etl_observer *out);
    /* The file cannot be prescanned: this part observes the first pass's records instead. */
    void (*stream)(void);
} etls_prescan_client;

/* At protocol registration; `c` must live as long as the plugin.  Observers are called in the
 * order their clients registered. */
void etls_prescan_register(const etls_prescan_client *c);

/* Run the prescan of the frame's trace, once per trace of the capture file (later calls for
 * the same trace return at once).  A capture file holds several traces when it is a pcapng of
 * the frames of several .etl files (mergecap): each frame's interface names its trace, and the
 * clients are asked for an observer once per trace (etls_prescan_scanning says which), so each
 * trace's schemas and processes are read from its own file. */
void etls_prescan_once(packet_info *pinfo);

/* While a client's observer or stream function runs: the key (etls_trace_key) of the trace
 * being prescanned; else NULL. */
const char *etls_prescan_scanning(void);

/* The frame's trace: its path, or "" when its interface names none. */
const char *etls_trace_key(packet_info *pinfo);

/* The frame's trace as a number, 1 for the first trace the capture file's frames name, 2 for
 * the next, ... (etl_record.trace: the schemas each trace carries apply to its own frames);
 * the same for a trace key. */
uint32_t etls_trace_number(packet_info *pinfo);
uint32_t etls_trace_number_of(const char *key);

/* The capture file's path from the interface description the reader wrote
 * (ETLS_IDB_TRACE_PREFIX), or NULL (a pipe, a file from elsewhere). */
const char *etls_trace_path(packet_info *pinfo);

#endif /* ETLSHARK_ETL_PRESCAN_H */
