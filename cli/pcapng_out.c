/* pcapng_out.c - etldump --pcapng (pcapng_out.h).
 *
 * One pass to collect the rundowns (pktmon components, ndiscap interface media: they are
 * logged at the end of a capture), then the trace in time order: every frame etl_packets_decode
 * returns becomes an enhanced packet block.
 *   interfaces  one per (pktmon component or ndiscap LowerIfIndex, link type; VMSwitch also per
 *               VLAN and source port), written before its first packet, with if_name (the
 *               component's name, or "ndiscap ifindex N") and if_description (its description,
 *               id, type and medium);
 *   per packet  epb_flags direction (pktmon DirTag, ndiscap SendPath/ReceivePath), epb_packetid
 *               (pktmon PktGroupId), epb_verdict for pktmon drops (type 0, the DropReason as
 *               u32 then the DropLocation as u32), and a comment with the process and thread
 *               ids and the pktmon packet number, appearance and component, or the ndiscap
 *               fragment count, VLAN and 1002 radio metadata (Wireshark shows it as the packet
 *               comment, frame.comment; pcapng has no standard option for a process id);
 *   times       the record's FILETIME (pktmon's own conversion, which the reader's is) in
 *               microseconds since 1970, the format's default unit, as pktmon etl2pcap writes.
 * Frames without a link type (pktmon HTTP or unknown PacketType) and empty ones are not
 * written, and counted.  Every appearance of a pktmon packet is written unless
 * first_appearance (AppearanceCount 1 only). */
#include "pcapng_out.h"

#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "etl_packet.h"
#include "pcapng.h"
#include "prescan.h"

/* FILETIME of 1970-01-01 and 100 ns per microsecond. */
#define FILETIME_UNIX_EPOCH 116444736000000000LL
#define TICKS_PER_USEC 10
/* Problems printed one by one before the rest are only counted. */
#define MAX_PROBLEM_REPORTS 20u
/* Records between two progress lines. */
#define PROGRESS_EVERY 16384u
#define USER_APPL "etlshark etldump --pcapng"

typedef struct conv {
    pcapng_writer w;
    etl_packets *pk;
    GHashTable *ifaces; /* "source:id:link:vlan:port" -> index + 1 */
    uint32_t n_ifaces;
    uint64_t written, skipped_no_link, skipped_empty, skipped_repeat;
    uint32_t reports;
} conv;

static void medium_text(char *out, size_t cap, const etl_packet_iface *e)
{
    if (!e || !e->has_medium) {
        *out = 0;
        return;
    }
    snprintf(out, cap, ", medium %u", (unsigned)e->medium);
}

static uint32_t interface_for(conv *c, const etl_packet *p)
{
    unsigned vlan = p->has_vlan ? p->vlan_id : 0, port = p->vmswitch ? p->source_port_id : 0;
    char key[64];
    snprintf(key, sizeof key, "%u:%u:%u:%u:%u", (unsigned)p->source, (unsigned)p->link_type, vlan, p->interface_id,
             port);
    gpointer v = g_hash_table_lookup(c->ifaces, key);
    if (v)
        return GPOINTER_TO_UINT(v) - 1u;
    const etl_packet_iface *e = etl_packets_interface(c->pk, p->source, p->interface_id);
    char name[ETL_PACKET_MAX_NAME + 32], desc[2 * ETL_PACKET_MAX_NAME + 128], med[32];
    medium_text(med, sizeof med, e);
    if (p->source == ETL_PACKET_SRC_PKTMON) {
        if (e && *e->name)
            snprintf(name, sizeof name, "%s", e->name);
        else
            snprintf(name, sizeof name, "pktmon component %u", p->interface_id);
        snprintf(desc, sizeof desc, "%s%spktmon component %u, type %u%s, %s", e && *e->description ? e->description : "",
                 e && *e->description ? " (" : "", p->interface_id, e ? (unsigned)e->component_type : 0u, med,
                 etl_link_type_name(p->link_type));
        if (e && *e->description)
            g_strlcat(desc, ")", sizeof desc);
    } else {
        snprintf(name, sizeof name, "ndiscap ifindex %u", p->interface_id);
        if (p->vmswitch)
            snprintf(desc, sizeof desc, "ndiscap LowerIfIndex %u, MiniportIfIndex %u%s, VMSwitch port %u, VLAN %u, %s",
                     p->lower_if_index, p->miniport_if_index, med, p->source_port_id, vlan,
                     etl_link_type_name(p->link_type));
        else
            snprintf(desc, sizeof desc, "ndiscap LowerIfIndex %u, MiniportIfIndex %u%s, %s", p->lower_if_index,
                     p->miniport_if_index, med, etl_link_type_name(p->link_type));
    }
    pcapng_interface(&c->w, (uint16_t)p->link_type, 0, name, desc, 6);
    g_hash_table_insert(c->ifaces, g_strdup(key), GUINT_TO_POINTER(c->n_ifaces + 1u));
    return c->n_ifaces++;
}

static void report(conv *c, const char *in, const etl_error *e)
{
    if (c->reports++ < MAX_PROBLEM_REPORTS)
        fprintf(stderr, "etldump: %s: offset 0x%" PRIx64 ": %s\n", in, e->offset, e->message);
    else if (c->reports == MAX_PROBLEM_REPORTS + 1)
        fprintf(stderr, "etldump: %s: more problems; counted below\n", in);
}

static void write_packet(conv *c, const etl_packet *p)
{
    uint32_t ifc = interface_for(c, p);
    int64_t ft = p->has_timestamp ? p->timestamp : 0;
    uint64_t us = ft > FILETIME_UNIX_EPOCH ? (uint64_t)(ft - FILETIME_UNIX_EPOCH) / TICKS_PER_USEC : 0;
    pcapng_packet_opts o = {0};
    o.direction = p->direction == ETL_DIR_INBOUND ? PCAPNG_DIR_INBOUND
                  : p->direction == ETL_DIR_OUTBOUND ? PCAPNG_DIR_OUTBOUND
                                                     : PCAPNG_DIR_UNKNOWN;
    char comment[256];
    int n = 0;
    if (p->pid != ETL_NO_ID)
        n = snprintf(comment, sizeof comment, "PID %u TID %u", p->pid, p->tid);
    else
        comment[0] = 0;
    if (p->source == ETL_PACKET_SRC_PKTMON) {
        o.has_packet_id = true;
        o.packet_id = p->group_id;
        const char *dir = etl_pktmon_dir_tag_name(p->dir_tag);
        snprintf(comment + n, sizeof comment - (size_t)n, "%spktmon PktNumber %u Appearance %u Component %u %s%s",
                 n ? ", " : "", p->pkt_number, p->appearance, p->component_id, dir ? dir : "", p->is_drop ? " drop" : "");
        if (p->is_drop) {
            o.has_verdict = true;
            for (int i = 0; i < 4; i++) {
                o.verdict[i] = (uint8_t)(p->drop_reason >> (8 * i));
                o.verdict[4 + i] = (uint8_t)(p->drop_location >> (8 * i));
            }
            o.verdict_len = 8;
        }
    } else {
        /* what the frame bytes do not say: fragments joined, the VLAN tag, the radio */
        char vlan[32] = "", radio[80] = "";
        if (p->has_vlan)
            snprintf(vlan, sizeof vlan, ", VLAN %u priority %u", p->vlan_id, p->vlan_priority);
        if (p->has_radio)
            snprintf(radio, sizeof radio, ", radio %u MHz %d dBm rate %u x 500 kb/s", p->radio.center_frequency,
                     (int)p->radio.rssi, p->radio.data_rate);
        snprintf(comment + n, sizeof comment - (size_t)n, "%sndiscap fragments %u%s%s", n ? ", " : "", p->fragments,
                 vlan, radio);
    }
    o.comment = comment;
    pcapng_packet(&c->w, ifc, us, p->frame, p->captured_len, p->original_len, &o);
    c->written++;
}

static void progress(const etl_record *rec, uint64_t size, uint64_t packets)
{
    unsigned pct = size ? (unsigned)(rec->buffer_offset * 100u / size) : 0;
    fprintf(stderr, "\retldump: %3u%% of the trace, %" PRIu64 " packets", pct, packets);
}

int pcapng_out_run(const char *out, const char *in, const etl_options *eo, const pcapng_out_options *opt)
{
    conv c;
    memset(&c, 0, sizeof c);
    c.pk = etl_packets_new();
    c.ifaces = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    etl_error err;
    int status = 0;
    /* the rundowns first: they come at the end of a capture, names are wanted from the start */
    etl_observer obs = etl_packets_observer(c.pk);
    if (etl_prescan_file(in, &obs, 1, &err) != ETL_OK) {
        fprintf(stderr, "etldump: %s: %s\n", in, err.message);
        status = 2;
        goto done;
    }
    etl_reader *r;
    if (etl_reader_open_file(in, eo, &r, &err) != ETL_OK) {
        fprintf(stderr, "etldump: %s: %s\n", in, err.message);
        status = 2;
        goto done;
    }
    FILE *f = strcmp(out, "-") == 0 ? stdout : fopen(out, "wb");
    if (!f) {
        fprintf(stderr, "etldump: %s: cannot write\n", out);
        etl_reader_close(r);
        status = 2;
        goto done;
    }
    struct stat sb;
    uint64_t size = stat(in, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    pcapng_init(&c.w, f);
    pcapng_section(&c.w, USER_APPL);
    etl_record rec;
    etl_status st;
    uint64_t seen = 0;
    while ((st = etl_reader_next(r, &rec, &err)) == ETL_OK) {
        etl_error p;
        while (etl_reader_next_problem(r, &p)) {
            fprintf(stderr, "etldump: %s: offset 0x%" PRIx64 ": %s\n", in, p.offset, p.message);
            status = 1;
        }
        if (opt->progress && ++seen % PROGRESS_EVERY == 0)
            progress(&rec, size, c.written);
        etl_packet pkt;
        etl_error perr;
        etl_packets_decode(c.pk, &rec, &pkt, &perr);
        if (pkt.problem != ETL_OK) {
            report(&c, in, &perr);
            status = 1;
        }
        if (pkt.kind != ETL_PACKET_FRAME)
            continue;
        if (pkt.link_type == ETL_LINK_NONE)
            c.skipped_no_link++;
        else if (pkt.captured_len == 0)
            c.skipped_empty++;
        else if (opt->first_appearance && pkt.source == ETL_PACKET_SRC_PKTMON && pkt.appearance != 1)
            c.skipped_repeat++;
        else
            write_packet(&c, &pkt);
    }
    etl_error p;
    while (etl_reader_next_problem(r, &p)) {
        fprintf(stderr, "etldump: %s: offset 0x%" PRIx64 ": %s\n", in, p.offset, p.message);
        status = 1;
    }
    if (st != ETL_END) {
        fprintf(stderr, "etldump: %s: %s\n", in, err.message);
        status = 1;
    }
    if (opt->progress)
        fputc('\n', stderr);
    etl_reader_close(r);
    if ((f != stdout && fclose(f) != 0) || !pcapng_ok(&c.w)) {
        fprintf(stderr, "etldump: %s: write failed\n", out);
        status = 2;
    } else if (f == stdout) {
        fflush(stdout);
    }
    const etl_packets_stats *s = etl_packets_get_stats(c.pk);
    if (s->problems || c.skipped_no_link || c.skipped_empty)
        fprintf(stderr,
                "etldump: %s: %" PRIu64 " packets written; %" PRIu64 " bad packet events (FragmentSize past the payload %" PRIu64
                ", LoggedPayloadSize past the event %" PRIu64 ", end without start %" PRIu64 ", start without end %" PRIu64
                ", unknown PacketType %" PRIu64 ", empty %" PRIu64 ", too short %" PRIu64 ", too large %" PRIu64
                "); not written: %" PRIu64 " without a link type, %" PRIu64 " empty\n",
                in, c.written, s->problems, s->bad_fragment_size, s->bad_logged_size, s->end_without_start,
                s->start_without_end, s->unknown_type, s->empty_payload, s->too_short, s->too_large, c.skipped_no_link,
                c.skipped_empty);
done:
    g_hash_table_destroy(c.ifaces);
    etl_packets_free(c.pk);
    return status;
}
