/* etl_packet_dissect.h - packets carried in ETW traces (pktmon, netsh trace / ndiscap) as
 * packets: the frame of every packet event handed to Wireshark's own dissector for its link
 * type, the capture's context in the ETW tree.
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The packet layer (decoder/include/etl_packet.h) decides everything; this file only shows its
 * result.  One etl_packets per capture file, fed by the file's one prescan (etl_prescan.h: the
 * rundowns naming pktmon components and ndiscap interfaces are logged at the end of a capture)
 * and by the first, sequential pass, whose results are kept per frame (ndiscap's joined
 * fragments and radio metadata exist only in stream order).
 *
 *   etl.pkt                      the "Packet" subtree in the ETW tree
 *   etl.pkt.source, .link_type, .captured_len, .original_len, .truncated, .direction,
 *   etl.pkt.interface_id, .interface_name, .interface_description, .component_type, .medium
 *   etl.pkt.group_id             pktmon PktGroupId: one id per packet - follow it across components
 *   etl.pkt.number, .appearance  PktNumber, AppearanceCount
 *   etl.pkt.first_appearance     true on a packet's first appearance: "each packet once"
 *   etl.pkt.dir_tag, .packet_type, .edge_id, .filter_id
 *   etl.pkt.drop, .drop_reason, .drop_reason_name, .drop_location   pktmon drops (170)
 *   etl.pkt.keywords, .miniport_if_index, .lower_if_index, .fragments, .radio.*, .vlan.*,
 *   etl.pkt.vmswitch, .source_port_id                                  ndiscap
 *
 * Expert info: etl.expert.packet_drop (the drop and its reason), etl.expert.packet_problem (bad
 * input the packet layer found; the bytes that exist are still dissected), etl.expert.
 * packet_truncated (a snaplen cut: the frame tvb's reported length is the original length). */
#ifndef ETLSHARK_ETL_PACKET_DISSECT_H
#define ETLSHARK_ETL_PACKET_DISSECT_H

#include <epan/expert.h>
#include <epan/packet.h>

#include "etl.h"

/* At protocol registration (after etls_event_data_register: the drop reason's name is read with
 * the schema registry). */
void etls_packet_register(int proto, expert_module_t *expert);
/* At handoff: the link-type dissectors (the "wtap_encap" table). */
void etls_packet_handoff(void);

/* True when the record is a packet event whose frame goes to a link-layer dissector, which
 * then writes Protocol and Info (the ETW Info text would be overwritten).  In the first pass
 * this decodes the record (once); call it at any point of the record's dissection. */
bool etls_packet_takes_columns(packet_info *pinfo, const etl_record *rec);
/* The same, and the packet layer found the event sound (no etl.expert.packet_problem): such a
 * frame may show its ETW record in brief (packet-etl.c). */
bool etls_packet_takes_columns_clean(packet_info *pinfo, const etl_record *rec);

/* Every framed record, after the ETW tree and the ETW columns are written (the packet's own
 * dissectors then write Protocol and Info, as for any packet).  Records that are no packet
 * events are passed over cheaply. */
void etls_packet_dissect(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, proto_tree *etl_tree,
                         const etl_record *rec);

#endif /* ETLSHARK_ETL_PACKET_DISSECT_H */
