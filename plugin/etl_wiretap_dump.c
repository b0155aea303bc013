/* etl_wiretap_dump.c - the .etl file type's writer: Save As, Export Specified Packets,
 * `editcap -F etl` and `mergecap -F etl` (of frames of one trace) write .etl.
 *
 * etlshark - SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A frame (etl_frame.h) is a record's bytes and a trailer that names the record's position in
 * its trace; the capture's interface description names the trace (ETLS_IDB_TRACE_PREFIX).  The
 * writer collects the positions of the frames it is given, and on finish has the decoder write
 * them with everything decoding them needs (etl_relog.h: the logfile header, process, thread
 * and image events, carried schemas, PROV_TRAITS namers, stack links) from that trace, in its
 * file order with its buffer breaks.  So a written subset decodes as it did in the whole trace,
 * with no path back to it, and exporting every frame gives the same records again.
 *
 * Frames of several traces (mergecap of .etl files) are merged by etl_merge (etl_relog.h): one
 * timeline by UTC time on a system-time clock, every record's timestamps converted from its own
 * trace's clock, each trace's frames with their own context.  Frames whose trace is not readable
 * any more (a pcapng of etlshark frames whose .etl moved) are refused with a message. */

#define ETLS_WIRETAP_MODULE
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "etl.h"
#include "etl_frame.h"
#include "etl_relog.h"
#include "etl_wiretap_dump.h"

typedef struct etls_dump {
    GPtrArray *traces;     /* trace path per interface id (NULL: the interface names none) */
    GHashTable *positions; /* trace path -> GHashTable of the gint64 positions written */
    GPtrArray *order;      /* the traces frames came from, first seen first (not owned) */
    int64_t pos;           /* output write position */
} etls_dump;

static int etls_dump_encap = -1;

void etls_dump_set_encap(int encap)
{
    etls_dump_encap = encap;
}

int etls_dump_can_write_encap(int encap)
{
    return encap == etls_dump_encap ? 0 : WTAP_ERR_UNWRITABLE_ENCAP;
}

/* The trace an interface block names, or NULL. */
static char *trace_of_idb(wtap_block_t idb)
{
    char *desc = NULL;
    size_t n = strlen(ETLS_IDB_TRACE_PREFIX);
    if (wtap_block_get_string_option_value(idb, OPT_IDB_DESCRIPTION, &desc) != WTAP_OPTTYPE_SUCCESS || desc == NULL ||
        strncmp(desc, ETLS_IDB_TRACE_PREFIX, n) != 0)
        return NULL;
    return g_strdup(desc + n);
}

static etls_bool refuse(int *err, char **err_info, const char *why)
{
    *err = WTAP_ERR_UNWRITABLE_REC_DATA;
    *err_info = g_strdup(why);
    return ETLS_FALSE;
}

/* An interface block given after open (editcap hands them over as it reads them). */
static etls_bool etls_dump_add_idb(wtap_dumper *wdh, wtap_block_t idb, int *err, char **err_info)
{
    etls_dump *d = wdh->priv;
    (void)err_info;
    *err = 0;
    g_ptr_array_add(d->traces, trace_of_idb(idb));
    return ETLS_TRUE;
}

/* Frames the writer cannot write are refused as they come (the tools then name the frame). */
static etls_bool etls_dump_write(ETLS_DUMP_WRITE_ARGS)
{
    etls_dump *d = wdh->priv;
    const uint8_t *bytes = ETLS_DUMP_REC_BYTES;
    *err = 0;
    if (rec->rec_type != REC_TYPE_PACKET)
        return ETLS_TRUE; /* nothing else is an ETW record */
    uint32_t len = rec->rec_header.packet_header.caplen;
    if (len < ETLS_TRAILER_SIZE || memcmp(bytes + len - ETLS_TRAILER_SIZE, ETLS_TRAILER_MAGIC, ETLS_TRAILER_MAGIC_LEN) != 0)
        return refuse(err, err_info, "etl: only ETW frames read by etlshark's .etl reader can be written as .etl");
    const uint8_t *t = bytes + len - ETLS_TRAILER_SIZE;
    uint64_t position = 0;
    for (int i = 7; i >= 0; i--)
        position = position << 8 | t[ETLS_TRL_POSITION + i];
    guint iface = (rec->presence_flags & WTAP_HAS_INTERFACE_ID) ? rec->rec_header.packet_header.interface_id : 0;
    const char *trace = iface < d->traces->len ? g_ptr_array_index(d->traces, iface) : NULL;
    if (trace == NULL && d->traces->len > 0)
        trace = g_ptr_array_index(d->traces, 0);
    if (trace == NULL)
        return refuse(err, err_info, "etl: the capture does not name the .etl trace its frames were read from");
    GHashTable *set = g_hash_table_lookup(d->positions, trace);
    if (set == NULL) {
        set = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
        g_hash_table_insert(d->positions, (gpointer)trace, set);
        g_ptr_array_add(d->order, (gpointer)trace);
    }
    gint64 *key = g_new(gint64, 1);
    *key = (gint64)position;
    g_hash_table_add(set, key);
    return ETLS_TRUE;
}

static bool selected(void *ctx, const etl_record *rec, uint64_t number, const struct etl_proc_info *proc)
{
    GHashTable *set = ctx;
    gint64 key = (gint64)rec->position;
    (void)number;
    (void)proc;
    return g_hash_table_contains(set, &key);
}

/* The decoder's writer appends, and rewrites the HEADER buffer at 0 on close. */
static int sink_write(void *ctx, uint64_t off, const void *data, size_t len)
{
    wtap_dumper *wdh = ctx;
    etls_dump *d = wdh->priv;
    int err = 0;
    if ((int64_t)off != d->pos) {
        if (wtap_dump_file_seek(wdh, (gint64)off, SEEK_SET, &err) < 0)
            return -1;
        d->pos = (int64_t)off;
    }
    if (!wtap_dump_file_write(wdh, data, len, &err))
        return -1;
    d->pos += (int64_t)len;
    wdh->bytes_dumped = d->pos > wdh->bytes_dumped ? d->pos : wdh->bytes_dumped;
    return 0;
}


/* wtap_dump_close frees priv itself (g_free): the tables go here. */
static void etls_dump_free_tables(etls_dump *d)
{
    g_hash_table_destroy(d->positions);
    g_ptr_array_free(d->order, TRUE);
    g_ptr_array_free(d->traces, TRUE);
    d->traces = d->order = NULL;
    d->positions = NULL;
}

static etls_bool etls_dump_finish_tables(wtap_dumper *wdh, int *err, char **err_info);

static etls_bool etls_dump_finish(wtap_dumper *wdh, int *err, char **err_info)
{
    etls_bool ok = etls_dump_finish_tables(wdh, err, err_info);
    etls_dump_free_tables(wdh->priv);
    return ok;
}

static etls_bool etls_dump_finish_tables(wtap_dumper *wdh, int *err, char **err_info)
{
    etls_dump *d = wdh->priv;
    *err = 0;
    if (d->order->len == 0)
        return refuse(err, err_info, "etl: no frame to write (an .etl needs at least its trace's logfile header)");
    etl_relog_stats st;
    etl_error e;
    etl_status rc;
    const char *what = g_ptr_array_index(d->order, 0);
    if (d->order->len == 1) {
        etl_relog_options opt = { .select = selected, .select_ctx = g_hash_table_lookup(d->positions, what) };
        rc = etl_relog(what, (etl_write_sink){ sink_write, wdh }, &opt, &st, &e);
    } else {
        /* several traces (mergecap): one timeline, each trace's frames with their own context */
        etl_merge_input *in = g_new0(etl_merge_input, d->order->len);
        for (guint i = 0; i < d->order->len; i++) {
            in[i].path = g_ptr_array_index(d->order, i);
            in[i].select = selected;
            in[i].select_ctx = g_hash_table_lookup(d->positions, in[i].path);
        }
        rc = etl_merge(in, d->order->len, (etl_write_sink){ sink_write, wdh }, NULL, NULL, &st, &e);
        what = "merging traces";
        g_free(in);
    }
    if (rc != ETL_OK) {
        *err = e.code == ETL_ERR_IO ? WTAP_ERR_CANT_WRITE : WTAP_ERR_INTERNAL;
        *err_info = g_strdup_printf("etl: %s: %s", what, e.message);
        return ETLS_FALSE;
    }
    return ETLS_TRUE;
}

etls_dump_open_ret etls_dump_open(wtap_dumper *wdh, int *err, char **err_info)
{
    (void)err_info;
    etls_dump *d = g_new0(etls_dump, 1); /* wtap_dump_close frees priv */
    d->traces = g_ptr_array_new_with_free_func(g_free);
    d->positions = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_hash_table_destroy);
    d->order = g_ptr_array_new();
    if (wdh->interface_data != NULL)
        for (guint i = 0; i < wdh->interface_data->len; i++)
            g_ptr_array_add(d->traces, trace_of_idb(g_array_index(wdh->interface_data, wtap_block_t, i)));
    wdh->priv = d;
    wdh->subtype_add_idb = etls_dump_add_idb;
    wdh->subtype_write = etls_dump_write;
    wdh->subtype_finish = etls_dump_finish;
    *err = 0;
    return ETLS_TRUE;
}
