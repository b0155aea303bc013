/* etl_packet_len.h - the reader's part of packets in ETW traces (etl_packet_dissect.h shows
 * them): a frame's length on the wire.
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A pktmon or ndiscap packet logged truncated (pktmon --pkt-size, ndiscap PacketTruncated)
 * should read as a snaplen cut: "N bytes on wire, M bytes captured".  Wireshark takes a frame's
 * wire length from the reader only (the dissector cannot change pinfo->fd->pkt_len), so the
 * reader adds the bytes the capture did not log to the length of the record's frame. */
#ifndef ETLSHARK_ETL_PACKET_LEN_H
#define ETLSHARK_ETL_PACKET_LEN_H

#include <stdint.h>

#include "etl.h"

/* Bytes of the record's packet that were not logged (original - captured length); 0 for every
 * record that is not a truncated packet event.  Depends on nothing but the record (the same
 * answer in the sequential read and in seek_read); an ndiscap packet joined from several
 * events counts its last fragment only. */
uint32_t etls_packet_missing_bytes(const etl_record *rec);

#endif /* ETLSHARK_ETL_PACKET_LEN_H */
