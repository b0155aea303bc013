/* etl_capinfo.c - what Statistics > Capture File Properties and capinfos show about a trace.
 *
 * etlshark - SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The logfile header (the trace's first record) says on which system and by which session the
 * trace was written, how many events and buffers were lost, and the time zone of the machine.
 * Wireshark shows a section header's hardware/OS/application options and an interface's
 * statistics block (dropped packets): the reader fills those from the header.
 */

#define ETLS_WIRETAP_MODULE
#include "compat.h"

#include <string.h>

#include "etl.h"
#include "etl_capinfo.h"
#include "etl_format.h"

/* The section header wiretap made for the file, or a new one when it made none. */
static wtap_block_t
etls_section(wtap *wth)
{
    wtap_block_t shb;

    if (wth->shb_hdrs == NULL)
        return NULL;
    if (wth->shb_hdrs->len > 0)
        return g_array_index(wth->shb_hdrs, wtap_block_t, 0);
    shb = wtap_block_create(WTAP_BLOCK_SECTION);
    g_array_append_val(wth->shb_hdrs, shb);
    return shb;
}

/* "UTC-08:00" for a Windows bias of 480 minutes (UTC = local time + bias). */
static char *
etls_utc_offset(int32_t bias_minutes)
{
    int32_t east = -bias_minutes;
    int32_t a = east < 0 ? -east : east;

    return g_strdup_printf("UTC%c%02d:%02d", east < 0 ? '-' : '+', (int)(a / 60), (int)(a % 60));
}

void
etls_capture_properties(wtap *wth, const etl_logfile *lf)
{
    wtap_block_t shb, idb, isb;
    wtapng_if_descr_mandatory_t *idb_mand;
    wtapng_if_stats_mandatory_t *isb_mand;
    char *tz;

    if (lf == NULL || !lf->present)
        return;

    shb = etls_section(wth);
    tz = etls_utc_offset(lf->tz_bias_minutes);
    if (shb != NULL) {
        wtap_block_add_string_option_format(shb, OPT_SHB_OS, "Windows %u.%u build %u",
                                            lf->os_major, lf->os_minor, lf->os_build);
        wtap_block_add_string_option_format(shb, OPT_SHB_HARDWARE, "%u processors, %u MHz, %u-bit",
                                            lf->processors, lf->cpu_speed_mhz,
                                            lf->pointer_size * 8u);
        if (lf->logger_name[0] != '\0')
            wtap_block_add_string_option_format(shb, OPT_SHB_USERAPPL, "ETW session \"%s\"",
                                                lf->logger_name);
        /* No section option holds a time zone or the session's losses: a comment does, the
         * place Capture File Properties and capinfos show it. */
        wtap_block_add_string_option_format(
            shb, OPT_COMMENT,
            "Time zone: %s%s%s%s; events lost: %u, buffers lost: %u; clock: %s; buffers "
            "written: %u",
            tz, lf->tz_standard_name[0] != '\0' ? " (" : "", lf->tz_standard_name,
            lf->tz_standard_name[0] != '\0' ? ")" : "", lf->events_lost, lf->buffers_lost,
            etl_clock_name(lf->clock_type), lf->buffers_written);
    }
    g_free(tz);

    /* The losses as the interface's drops (one statistics block, which is what Capture File
     * Properties reads): events lost, plus buffers lost, each a loss of unknown event count. */
    if (wth->interface_data == NULL || wth->interface_data->len == 0)
        return;
    idb = g_array_index(wth->interface_data, wtap_block_t, 0);
    idb_mand = (wtapng_if_descr_mandatory_t *)wtap_block_get_mandatory_data(idb);
    if (idb_mand == NULL || idb_mand->num_stat_entries != 0)
        return;
    isb = wtap_block_create(WTAP_BLOCK_IF_STATISTICS);
    isb_mand = (wtapng_if_stats_mandatory_t *)wtap_block_get_mandatory_data(isb);
    isb_mand->interface_id = 0;
    {
        /* the statistics' time: the end of the trace, in the interface's nanosecond ticks */
        int64_t secs;
        int32_t nsecs;
        uint64_t ns = 0;

        etl_filetime_to_unix(lf->end_time, &secs, &nsecs);
        if (secs > 0)
            ns = (uint64_t)secs * 1000000000u + (uint64_t)nsecs;
        isb_mand->ts_high = (uint32_t)(ns >> 32);
        isb_mand->ts_low = (uint32_t)ns;
    }
    wtap_block_add_uint64_option(isb, OPT_ISB_IFDROP,
                                 (uint64_t)lf->events_lost + (uint64_t)lf->buffers_lost);
    wtap_block_add_string_option_format(isb, OPT_COMMENT, "events lost: %u, buffers lost: %u",
                                        lf->events_lost, lf->buffers_lost);
    if (idb_mand->interface_statistics == NULL)
        idb_mand->interface_statistics = g_array_new(FALSE, FALSE, sizeof(wtap_block_t));
    g_array_append_val(idb_mand->interface_statistics, isb);
    idb_mand->num_stat_entries = 1;
}
