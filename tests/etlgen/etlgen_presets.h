/*
 * etlgen_presets.h - the named trace files etlgen can produce.
 *
 * A preset is a configuration plus a deterministic sequence of writer calls: no clock,
 * no unseeded randomness, so the same preset always gives the same bytes.
 */
#ifndef ETLGEN_PRESETS_H
#define ETLGEN_PRESETS_H

#include "etlwriter.h"

typedef struct etlgen_options {
    uint64_t records;          /* for presets whose size is adjustable (large) */
    const char *pcapng;        /* packet presets that have one: also write their frames here */
} etlgen_options;

typedef struct etlgen_preset {
    const char *name;
    const char *summary;
    void (*configure)(etlw_config *cfg, const etlgen_options *opt);
    int (*fill)(etlw_writer *w, const etlgen_options *opt);
} etlgen_preset;

/* NULL-terminated table, in --list order. */
extern const etlgen_preset etlgen_presets[];

const etlgen_preset *etlgen_find_preset(const char *name);

#endif /* ETLGEN_PRESETS_H */
