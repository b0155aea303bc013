/* etl_wsconv.h - decoder values to Wireshark value types (GUIDs, times), shared by the
 * dissector's files so each conversion is written once.
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Include after compat.h (it needs Wireshark's and the decoder's types). */
#ifndef ETLSHARK_ETL_WSCONV_H
#define ETLSHARK_ETL_WSCONV_H

#include <string.h>

#include <epan/guid-utils.h>
#include <wsutil/nstime.h>

#include "etl.h"
#include "etl_format.h"

static inline void
etls_to_e_guid(const etl_guid *g, e_guid_t *out)
{
    out->data1 = g->data1;
    out->data2 = g->data2;
    out->data3 = g->data3;
    memcpy(out->data4, g->data4, sizeof out->data4);
}

/* FILETIME (100 ns since 1601 UTC) to Wireshark's absolute time; the decoder does the math. */
static inline void
etls_filetime_to_nstime(int64_t filetime, nstime_t *out)
{
    int64_t secs;
    int32_t nsecs;

    etl_filetime_to_unix(filetime, &secs, &nsecs);
    out->secs = (time_t)secs;
    out->nsecs = (int)nsecs;
}

#endif /* ETLSHARK_ETL_WSCONV_H */
