/* etl_packet_len.c - a packet frame's length on the wire (etl_packet_len.h).
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <string.h>

#include "etl_packet.h"

#include "etl_packet_len.h"

/* One context for every file: a record is decoded alone (the stream is forgotten before each
 * decode), and lengths need no rundown. */
static etl_packets *etls_len_pk;

uint32_t
etls_packet_missing_bytes(const etl_record *rec)
{
    etl_packet p;
    etl_error err;

    if (!etl_packet_is_packet_event(rec))
        return 0;
    if (etls_len_pk == NULL && (etls_len_pk = etl_packets_new()) == NULL)
        return 0;
    etl_packets_reset_stream(etls_len_pk);
    memset(&err, 0, sizeof err);
    if (etl_packets_decode(etls_len_pk, rec, &p, &err) != ETL_OK || p.kind != ETL_PACKET_FRAME ||
        p.original_len <= p.captured_len)
        return 0;
    return p.original_len - p.captured_len;
}
