/* etl_process.h - the process of every record, and stack walks linked to their events, in the
 * etl dissector.
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The decoder's process context (decoder/procs.h) says which process each record
 * belongs to - from the kernel's Process and Thread events, whatever the record's kind - and
 * which event a kernel StackWalk event carries the stack of.  This file shows both:
 *
 *   etl.process_name   image file name of the record's process as the kernel logged it
 *                      ("svchost.exe"), on every frame whose process is known
 *   etl.process_pid    the process id it was resolved for (the header's, the payload's subject,
 *                      or the process of the record's thread)
 *   etl.process_tid    the thread id used, when the header has none (read from the payload)
 *   etl.stack_of       on a StackWalk event: the frame of the event whose stack it is (same raw
 *                      timestamp and thread)
 *   etl.stack_frame    on that event: the StackWalk frame(s); known once the first pass has
 *                      seen the stack walk, i.e. with tshark -2 and in the GUI
 *   etl.dos_path       after an event's string value that is an NT path: its DOS form, from the
 *                      trace's volume mappings (volumes.h)
 *
 * The process table is filled by the capture file's one prescan (etl_prescan.h: the path the
 * reader puts in the interface description, read once for the schemas and the processes); without a file (a
 * pipe) the first pass feeds it the records as they come, so a process is named from its first
 * Process/Thread event on.  What a frame gets is decided in the first pass and kept with the
 * frame, so redissection (two-pass, the GUI) shows the same.  Everything lives in the capture
 * file's scope and is rebuilt per file. */
#ifndef ETLSHARK_ETL_PROCESS_H
#define ETLSHARK_ETL_PROCESS_H

#include <epan/packet.h>

#include "etl.h"
#include "etl_event_data.h"

/* At protocol registration: fields and the per-file tables. */
void etls_process_register(int proto);

/* For every framed record, after its event data: the process and stack-walk items in `tree`,
 * and sum->process for the Info column. */
void etls_process_record(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
                         const etl_record *rec, etls_event_summary *sum);

/* After a string value of the record's event data: its DOS form (etl.dos_path, generated) when
 * it is an NT path of a volume the frame's trace maps (the decoder's volumes.h). */
void etls_process_dos_path(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const etl_record *rec,
                           int off, int len, const char *s, size_t n);

#endif /* ETLSHARK_ETL_PROCESS_H */
