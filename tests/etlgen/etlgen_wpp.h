/* etlgen_wpp.h - the wpp preset (etlgen_wpp.c): WPP software trace messages built from the real
 * message definitions of the shared TMFs (../shared/tmf), both record forms. */
#ifndef ETLGEN_WPP_H
#define ETLGEN_WPP_H

#include "etlgen_presets.h"

void etlgen_config_wpp(etlw_config *c, const etlgen_options *opt);
int etlgen_fill_wpp(etlw_writer *w, const etlgen_options *opt);

#endif
