/* etlgen_packets.h - presets of packet captures carried in ETW (etlgen_packets.c): netsh trace
 * (ndiscap) cases and pktmon traces, small and large. */
#ifndef ETLGEN_PACKETS_H
#define ETLGEN_PACKETS_H

#include "etlgen_presets.h"

void etlgen_config_ndiscap(etlw_config *c, const etlgen_options *opt);
int etlgen_fill_ndiscap(etlw_writer *w, const etlgen_options *opt);
void etlgen_config_pktmon(etlw_config *c, const etlgen_options *opt);
int etlgen_fill_pktmon(etlw_writer *w, const etlgen_options *opt);
int etlgen_fill_pktmon_large(etlw_writer *w, const etlgen_options *opt);
/* One TCP conversation (handshake, an HTTP GET and its response in two segments, FIN both
 * ways) at one NIC; with opt->pcapng the same frames as a pcapng (100 ns times). */
int etlgen_fill_pktmon_tcp(etlw_writer *w, const etlgen_options *opt);

/* Packets of pktmon_large when --records is not given (the bench's 100k). */
#define ETLGEN_PKTMON_LARGE_DEFAULT 100000u

#endif
