/* packet_internal.h - what the packet layer's files share (etl_packet.h is the public side).
 *
 * packets.c owns the context (interfaces from the rundown, counters, the frame buffer) and
 * dispatches by provider; pktmon.c and ndiscap.c know their provider's layouts. */
#ifndef ETL_PACKET_INTERNAL_H
#define ETL_PACKET_INTERNAL_H

#include <glib.h>

#include "etl_packet.h"

/* The ndiscap packet being joined from fragments. */
typedef struct etl_pending_packet {
    bool active;
    uint8_t *bytes;             /* ETL_PACKET_MAX_FRAME capacity, allocated on first use */
    uint32_t len;
    uint32_t fragments;
    bool cut;                   /* bytes past ETL_PACKET_MAX_FRAME were dropped */
} etl_pending_packet;

/* What one processor's ndiscap events carry over to its next ones.  The fragments of one packet
 * and the metadata before it are logged one after another by one processor (into its own
 * buffer), but in time order another processor's packets can come between them: so the state
 * is kept per processor (rec->cpu), in ETL_PACKET_STREAMS slots (processor modulo the count). */
typedef struct etl_ndiscap_stream {
    etl_pending_packet pending;
    bool has_radio;             /* a 1002 waits for the next packet */
    etl_packet_radio radio;
} etl_ndiscap_stream;
#define ETL_PACKET_STREAMS 64u

struct etl_packets {
    GArray *ifaces;             /* etl_packet_iface, in the order first seen */
    GHashTable *iface_index;    /* (source << 32 | id) + 1 -> index + 1 */
    etl_packets_stats stats;
    etl_ndiscap_stream streams[ETL_PACKET_STREAMS];
};

/* The interface entry (created when missing; NULL over ETL_PACKET_MAX_INTERFACES). */
etl_packet_iface *etl_packets_iface_get(etl_packets *pk, etl_packet_source src, uint32_t id);

/* Record a problem on the result: count it under `counter`, set out->problem and *err (offset =
 * the record's file position + `off` within its payload). */
void etl_packets_problem(etl_packets *pk, const etl_record *rec, etl_packet *out, uint64_t *counter,
                         etl_status code, uint32_t off, etl_error *err, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* Raw IP: the version nibble of the first byte (4 or 6), else 0. */
uint8_t etl_packet_ip_version(const uint8_t *frame, uint32_t len);

/* pktmon.c */
void etl_pktmon_observe(etl_packets *pk, const etl_record *rec);
void etl_pktmon_decode(etl_packets *pk, const etl_record *rec, etl_packet *out, etl_error *err);

/* ndiscap.c */
void etl_ndiscap_observe(etl_packets *pk, const etl_record *rec);
void etl_ndiscap_decode(etl_packets *pk, const etl_record *rec, etl_packet *out, etl_error *err);

#endif
