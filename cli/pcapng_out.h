/* pcapng_out.h - etldump --pcapng: the packets a trace carries (pktmon, netsh/ndiscap) written
 * as a pcapng file (etl_packet.h decides every frame; this only writes them). */
#ifndef ETL_PCAPNG_OUT_H
#define ETL_PCAPNG_OUT_H

#include <stdbool.h>

#include "etl.h"

typedef struct pcapng_out_options {
    bool first_appearance; /* pktmon: only AppearanceCount 1 (each packet once) */
    bool progress;         /* progress on stderr (the caller decides: stderr is a terminal) */
} pcapng_out_options;

/* Convert `in` to `out` ("-" = stdout).  Exit status as etldump's: 0 read fully, 1 read with
 * damage or bad packet events (each reported on stderr, counted in a last line), 2 unusable. */
int pcapng_out_run(const char *out, const char *in, const etl_options *eo, const pcapng_out_options *o);

#endif
