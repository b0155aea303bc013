/* etl_capinfo.h - the capture properties (section header, interface statistics) of a trace.
 *
 * etlshark - SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ETLSHARK_CAPINFO_H
#define ETLSHARK_CAPINFO_H

#include "etl.h"

/* Fill the file's section header (OS, hardware, application, a comment with the time zone and
 * losses) and its interface's statistics (drops) from the logfile header.  Call after the
 * interface block exists (wtap_add_generated_idb). */
void etls_capture_properties(wtap *wth, const etl_logfile *lf);

#endif
