/* etl_views.h - the views around the decode: Source/Destination (an address type of the
 * dissector's own), Conversations and Endpoints by process and provider, Statistics > ETW.
 *
 * etlshark - SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Every record is seen as a message from its process (Source) to its provider (Destination):
 * the process that logged it (or on whose behalf the kernel did), and the provider that names
 * what happened.  Conversations then read "which process used which provider, how often, for
 * how long"; Endpoints list processes and providers with their event counts.  A record with no
 * process (kernel events logged outside any process context: interrupts, DPCs, some PERFINFO
 * samples) comes from "Kernel (no process)", one endpoint for all of them, rather than a blank
 * or a per-CPU split: the CPU is in its own column, and one line says how much of the trace
 * the kernel logged for itself.
 */
#ifndef ETLSHARK_ETL_VIEWS_H
#define ETLSHARK_ETL_VIEWS_H

#include <epan/packet.h>

#include "etl.h"
#include "etl_event_data.h"

/* Source of the records that have no process. */
#define ETLS_NO_PROCESS "Kernel (no process)"

/* At protocol registration: the address type, the tap, conversation/endpoint tables, the
 * stats trees, and the etl.src / etl.dst fields. */
void etls_views_register(int proto);

/* Whether a table or statistic listens (then a packet event's provider and event names are
 * needed even without a tree). */
bool etls_views_listened(void);

/* For every framed record, after everything else is dissected (so a packet handed to the
 * eth/wlan/ip dissectors keeps the addresses they set): Source/Destination when nothing set
 * them, and one tap event for the tables and statistics.  `note_count`: damage notes of the
 * frame; `lost`: the record's buffer lost events. */
void etls_views_record(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
                       const etl_record *rec, const etls_event_summary *sum,
                       unsigned note_count, bool lost);

#endif /* ETLSHARK_ETL_VIEWS_H */
