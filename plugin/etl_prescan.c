/* etl_prescan.c - the capture file's one prescan (etl_prescan.h).
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "compat.h"

#include <string.h>

#include <epan/epan.h>
#include <epan/packet.h>
#include <wiretap/wtap.h> /* wtap_rec: the frame's interface (compat.h) */

#include "prescan.h"

#include "etl_frame.h"
#include "etl_prescan.h"

static const etls_prescan_client *etls_clients[ETL_PRESCAN_MAX_OBSERVERS];
static unsigned etls_client_count;
/* The traces of the open capture file already prescanned (or that could not be: their clients
 * stream), by etls_trace_key; a pcapng of several traces' frames names each in its frames'
 * interface, and each is prescanned at its first frame. */
static GHashTable *etls_done;
/* The trace being prescanned, while the clients are asked for their observers. */
static const char *etls_scanning;
/* The open capture file's traces by etls_trace_key -> their number (etls_trace_number). */
static GHashTable *etls_numbers;

static void
etls_prescan_init(void)
{
    etls_done = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    etls_numbers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
}

static void
etls_prescan_cleanup(void)
{
    if (etls_done != NULL)
        g_hash_table_destroy(etls_done);
    etls_done = NULL;
    if (etls_numbers != NULL)
        g_hash_table_destroy(etls_numbers);
    etls_numbers = NULL;
}

uint32_t
etls_trace_number_of(const char *key)
{
    gpointer n;

    if (etls_numbers == NULL)
        return 0;
    n = g_hash_table_lookup(etls_numbers, key);
    if (n == NULL) {
        n = GUINT_TO_POINTER(g_hash_table_size(etls_numbers) + 1);
        g_hash_table_insert(etls_numbers, g_strdup(key), n);
    }
    return GPOINTER_TO_UINT(n);
}

uint32_t
etls_trace_number(packet_info *pinfo)
{
    return etls_trace_number_of(etls_trace_key(pinfo));
}

void
etls_prescan_register(const etls_prescan_client *c)
{
    if (etls_client_count == 0) {
        register_init_routine(etls_prescan_init);
        register_cleanup_routine(etls_prescan_cleanup);
    }
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

const char *
etls_trace_key(packet_info *pinfo)
{
    const char *path = etls_trace_path(pinfo);

    return path != NULL ? path : "";
}

const char *
etls_prescan_scanning(void)
{
    return etls_scanning;
}

void
etls_prescan_once(packet_info *pinfo)
{
    etl_observer obs[G_N_ELEMENTS(etls_clients)];
    const etls_prescan_client *who[G_N_ELEMENTS(etls_clients)];
    const char *key = etls_trace_key(pinfo);
    char *owned;
    unsigned n = 0;

    if (etls_done == NULL || g_hash_table_contains(etls_done, key))
        return;
    owned = g_strdup(key);
    g_hash_table_add(etls_done, owned);
    etls_scanning = owned;
    for (unsigned i = 0; i < etls_client_count; i++)
        if (etls_clients[i]->observer(&obs[n]))
            who[n++] = etls_clients[i];
    if (n > 0 && owned[0] != '\0') {
        etl_error err;

        memset(&err, 0, sizeof err);
        if (etl_prescan_file(owned, obs, n, &err) == ETL_OK)
            n = 0;
        else
            ws_warning("etlshark: %s: reading the trace before its first frame: %s; schemas and "
                       "processes are taken from the frames as they are dissected instead", owned,
                       err.message);
    }
    for (unsigned i = 0; i < n; i++)
        who[i]->stream();
    etls_scanning = NULL;
}
