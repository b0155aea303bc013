/* etl_prescan.c - the capture file's one prescan (etl_prescan.h).
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "compat.h"

#include <string.h>

#include <epan/epan.h>
#include <epan/packet.h>

#include "prescan.h"

#include "etl_frame.h"
#include "etl_prescan.h"

static const etls_prescan_client *etls_clients[ETL_PRESCAN_MAX_OBSERVERS];
static unsigned etls_client_count;
/* The open capture file was prescanned (or could not be: its clients stream). */
static bool etls_done;

static void
etls_prescan_init(void)
{
    etls_done = false;
}

void
etls_prescan_register(const etls_prescan_client *c)
{
    if (etls_client_count == 0)
        register_init_routine(etls_prescan_init);
    if (etls_client_count < G_N_ELEMENTS(etls_clients))
        etls_clients[etls_client_count++] = c;
    else
        ws_warning("etlshark: more than %u prescan clients", (unsigned)G_N_ELEMENTS(etls_clients));
}

/* The dissector is not told which file it dissects: the file reader (etl_wiretap.c) names the
 * trace in the description of the capture's one interface (ETLS_IDB_TRACE_PREFIX), which
 * epan gives every dissector. */
const char *
etls_trace_path(packet_info *pinfo)
{
    const char *desc = etls_interface_description(pinfo);
    size_t plen = strlen(ETLS_IDB_TRACE_PREFIX);

    if (desc != NULL && strncmp(desc, ETLS_IDB_TRACE_PREFIX, plen) == 0 && desc[plen] != '\0')
        return desc + plen;
    return NULL;
}

void
etls_prescan_once(packet_info *pinfo)
{
    etl_observer obs[G_N_ELEMENTS(etls_clients)];
    const etls_prescan_client *who[G_N_ELEMENTS(etls_clients)];
    const char *path;
    unsigned n = 0;

    if (etls_done)
        return;
    etls_done = true;
    for (unsigned i = 0; i < etls_client_count; i++)
        if (etls_clients[i]->observer(&obs[n]))
            who[n++] = etls_clients[i];
    if (n == 0)
        return;
    path = etls_trace_path(pinfo);
    if (path != NULL) {
        etl_error err;

        memset(&err, 0, sizeof err);
        if (etl_prescan_file(path, obs, n, &err) == ETL_OK)
            return;
        ws_warning("etlshark: %s: reading the trace before its first frame: %s; schemas and "
                   "processes are taken from the frames as they are dissected instead", path,
                   err.message);
    }
    for (unsigned i = 0; i < n; i++)
        who[i]->stream();
}
