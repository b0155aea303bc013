/* packet-etl.c - dissector (epan plugin) for ETW records read from .etl files by etlshark.
 *
 * etlshark - SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Frames come from the etlshark file reader (etl_wiretap.c) on Wireshark's ETW encapsulation: the
 * record's real bytes followed by the context trailer of etl_frame.h.  The record is framed
 * again from its bytes by the decoder library (etl_frame_record); this file only turns the
 * decoder's normalised view into a protocol tree.  It knows nothing of byte layouts: header
 * fields are highlighted over the trace header span, extended items over their own span, and
 * values become text only through the decoder's formatter (etl_format.h).
 *
 * Protocol names: Wireshark's built-in ETW dissector owns "Event Tracing for Windows" / "ETW" /
 * "etw", so this one is "ETW event (etlshark)" / "ETL" / "etl"; the Protocol column still
 * reads "ETW".
 */

#include "compat.h"

#include <string.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <wiretap/wtap.h>

#include "etl.h"
#include "etl_format.h"
#include "wpp.h"
#include "etl_event_data.h"
#include "etl_frame.h"
#include "etl_packet_dissect.h"
#include "etl_prescan.h"
#include "etl_process.h"
#include "etl_views.h"
#include "etl_wsconv.h"

ETLS_PLUGIN_SYMBOLS(WS_PLUGIN_DESC_DISSECTOR)

void proto_register_etl(void);
void proto_reg_handoff_etl(void);

/* Wireshark's own ETW dissector, for ETW-encapsulated frames that are not etlshark's (its
 * extcap's and Windows reader's): NULL when this Wireshark has none. */
static dissector_handle_t etw_stock_handle;

static int proto_etl = -1;

/* record / trace header */
static int hf_etl_size = -1;
static int hf_etl_header_type = -1;
static int hf_etl_raw_header_type = -1;
static int hf_etl_header_size = -1;
static int hf_etl_pointer_size = -1;
static int hf_etl_provider = -1;
static int hf_etl_event_id = -1;
static int hf_etl_version = -1;
static int hf_etl_channel = -1;
static int hf_etl_level = -1;
static int hf_etl_opcode = -1;
static int hf_etl_task = -1;
static int hf_etl_keyword = -1;
static int hf_etl_pid = -1;
static int hf_etl_tid = -1;
static int hf_etl_cpu = -1;
static int hf_etl_timestamp_raw = -1;
static int hf_etl_timestamp = -1;
static int hf_etl_flags = -1;
static int hf_etl_flags_extended_info = -1;
static int hf_etl_flags_private_session = -1;
static int hf_etl_flags_string_only = -1;
static int hf_etl_flags_trace_message = -1;
static int hf_etl_flags_no_cputime = -1;
static int hf_etl_flags_32_bit_header = -1;
static int hf_etl_flags_64_bit_header = -1;
static int hf_etl_flags_decode_guid = -1;
static int hf_etl_flags_classic_header = -1;
static int hf_etl_flags_processor_index = -1;
static int hf_etl_flags_stored = -1;
static int hf_etl_event_property = -1;
static int hf_etl_kernel_time = -1;
static int hf_etl_user_time = -1;
static int hf_etl_processor_time = -1;
static int hf_etl_activity_id = -1;
static int hf_etl_related_activity_id = -1;
static int hf_etl_sid = -1;
static int hf_etl_hook_id = -1;
static int hf_etl_group = -1;
static int hf_etl_pebs_index = -1;
static int hf_etl_pmc = -1;
static int hf_etl_instance_id = -1;
static int hf_etl_parent_instance_id = -1;
static int hf_etl_parent_guid = -1;
static int hf_etl_message_number = -1;
static int hf_etl_message_flags = -1;
static int hf_etl_mflag_sequence = -1;
static int hf_etl_mflag_guid = -1;
static int hf_etl_mflag_componentid = -1;
static int hf_etl_mflag_timestamp = -1;
static int hf_etl_mflag_performance_timestamp = -1;
static int hf_etl_mflag_systeminfo = -1;
static int hf_etl_mflag_pointer32 = -1;
static int hf_etl_mflag_pointer64 = -1;
static int hf_etl_sequence = -1;
static int hf_etl_component_id = -1;
static int hf_etl_payload_size = -1;
static int hf_etl_payload = -1;
static int hf_etl_record_data = -1;
/* extended data items */
static int hf_etl_ext_count = -1;
static int hf_etl_ext_type = -1;
static int hf_etl_ext_size = -1;
static int hf_etl_ext_data = -1;
static int hf_etl_ext_ts_id = -1;
static int hf_etl_ext_pebs_index = -1;
static int hf_etl_ext_psm_key = -1;
static int hf_etl_ext_event_key = -1;
static int hf_etl_ext_process_start_key = -1;
static int hf_etl_ext_qpc_delta = -1;
static int hf_etl_ext_control_guid = -1;
static int hf_etl_ext_container_id = -1;
static int hf_etl_ext_pmc = -1;
static int hf_etl_stack_match_id = -1;
static int hf_etl_stack_count = -1;
static int hf_etl_stack_address = -1;
/* logfile header */
static int hf_etl_lf_logger_name = -1;
static int hf_etl_lf_log_file_name = -1;
static int hf_etl_lf_os_version = -1;
static int hf_etl_lf_os_build = -1;
static int hf_etl_lf_processors = -1;
static int hf_etl_lf_cpu_speed = -1;
static int hf_etl_lf_clock_type = -1;
static int hf_etl_lf_pointer_size = -1;
static int hf_etl_lf_timer_resolution = -1;
static int hf_etl_lf_perf_freq = -1;
static int hf_etl_lf_buffer_size = -1;
static int hf_etl_lf_max_file_size = -1;
static int hf_etl_lf_log_file_mode = -1;
static int hf_etl_lf_buffers_written = -1;
static int hf_etl_lf_start_buffers = -1;
static int hf_etl_lf_events_lost = -1;
static int hf_etl_lf_buffers_lost = -1;
static int hf_etl_lf_start_time = -1;
static int hf_etl_lf_end_time = -1;
static int hf_etl_lf_boot_time = -1;
static int hf_etl_lf_tz_bias = -1;
static int hf_etl_lf_tz_standard_name = -1;
static int hf_etl_lf_tz_daylight_name = -1;
/* frame context (trailer) */
static int hf_etl_position = -1;
static int hf_etl_buffer_offset = -1;
static int hf_etl_record_offset = -1;
static int hf_etl_logger_id = -1;
static int hf_etl_buffer_flags = -1;
static int hf_etl_buffer_flags_flush_marker = -1;
static int hf_etl_buffer_flags_events_lost = -1;
static int hf_etl_buffer_flags_buffer_lost = -1;
static int hf_etl_buffer_flags_rtbackup_corrupt = -1;
static int hf_etl_buffer_flags_rtbackup = -1;
static int hf_etl_buffer_flags_proc_index = -1;
static int hf_etl_buffer_flags_compressed = -1;
static int hf_etl_buffer_type = -1;
static int hf_etl_session_pointer_size = -1;
static int hf_etl_clock_type = -1;
static int hf_etl_has_timestamp = -1;
static int hf_etl_logfile_header = -1;
static int hf_etl_damage = -1;
static int hf_etl_damage_kind = -1;
static int hf_etl_damage_status = -1;
static int hf_etl_damage_offset = -1;

static int ett_etl = -1;
static int ett_etl_header = -1;
static int ett_etl_descriptor = -1;
static int ett_etl_flags = -1;
static int ett_etl_message_flags = -1;
static int ett_etl_ext = -1;
static int ett_etl_ext_item = -1;
static int ett_etl_logfile = -1;
static int ett_etl_context = -1;
static int ett_etl_buffer_flags = -1;
static int ett_etl_damage = -1;
static int ett_etl_damage_note = -1;

static expert_field ei_etl_no_trailer = EI_INIT;
static expert_field ei_etl_unframed = EI_INIT;
static expert_field ei_etl_record_damage = EI_INIT;
static expert_field ei_etl_trace_damage = EI_INIT;
static expert_field ei_etl_notes_truncated = EI_INIT;
static expert_field ei_etl_notes_malformed = EI_INIT;
static expert_field ei_etl_ext_short = EI_INIT;
static expert_field ei_etl_logfile_bad = EI_INIT;
static expert_field ei_etl_events_lost = EI_INIT;
static expert_field ei_etl_buffer_lost = EI_INIT;
static expert_field ei_etl_no_time = EI_INIT;

static dissector_handle_t etl_handle;

/* The header and context fields a packet frame in brief leaves out (all of hf[] but the
 * brief items: etls_packet_brief), as registered. */
static const header_field_info **etls_full_only;
static guint etls_full_only_count;

/* Name tables built at registration from the decoder's own names (one source of names). */
static value_string *etl_header_type_vals;
static value_string *etl_ext_type_vals;
static value_string *etl_clock_type_vals;
static value_string *etl_status_vals;

/* Standard event levels (winmeta). */
static const value_string etl_level_vals[] = {
    { 0, "Log Always" },
    { 1, "Critical" },
    { 2, "Error" },
    { 3, "Warning" },
    { 4, "Information" },
    { 5, "Verbose" },
    { 0, NULL }
};

static const value_string etl_note_kind_vals[] = {
    { ETLS_NOTE_READER, "Trace damage (found by the reader, reported with this record)" },
    { ETLS_NOTE_RECORD, "Record damage (inside this record)" },
    { 0, NULL }
};

/* The frame's context trailer (etl_frame.h), decoded. */
typedef struct etls_trailer {
    guint offset; /* of the trailer in the tvb */
    uint32_t record_size;
    uint32_t notes_size;
    uint64_t position;
    uint64_t buffer_offset;
    uint32_t record_offset;
    uint16_t cpu;
    uint16_t logger_id;
    uint16_t buffer_flags;
    uint8_t buffer_type;
    uint8_t session_pointer_size;
    uint8_t clock_type;
    uint8_t flags;
    uint16_t note_count;
    int64_t timestamp;
} etls_trailer;

/* ---- helpers ------------------------------------------------------------------------------ */

static bool
etls_is_instance(unsigned ht)
{
    return ht == ETL_HT_INSTANCE32 || ht == ETL_HT_INSTANCE64;
}

static uint64_t
etls_le64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static proto_item *
etls_add_guid(proto_tree *tree, int hf, tvbuff_t *tvb, int offset, int len, const etl_guid *g)
{
    e_guid_t eg;

    etls_to_e_guid(g, &eg);
    return proto_tree_add_guid(tree, hf, tvb, offset, len, &eg);
}

static proto_item *
etls_add_filetime(proto_tree *tree, int hf, tvbuff_t *tvb, int offset, int len, int64_t filetime)
{
    nstime_t ts;

    etls_filetime_to_nstime(filetime, &ts);
    return proto_tree_add_time(tree, hf, tvb, offset, len, &ts);
}

/* Offset of a pointer into the record, as a tvb offset (the record starts at 0). */
static int
etls_offset_of(const etl_record *rec, const uint8_t *p)
{
    if (p == NULL || p < rec->bytes || p > rec->bytes + rec->size)
        return 0;
    return (int)(p - rec->bytes);
}

/* Value string of n+1 entries from a name function, terminated; skips NULL/"UNKNOWN" names. */
static value_string *
etls_build_vals(int first, int last, const char *(*name_of)(int), const char *skip)
{
    value_string *vs = g_new0(value_string, (gsize)(last - first + 2));
    int n = 0;

    for (int v = first; v <= last; v++) {
        const char *name = name_of(v);

        if (name == NULL || (skip != NULL && strcmp(name, skip) == 0))
            continue;
        vs[n].value = (guint32)v;
        vs[n].strptr = name;
        n++;
    }
    vs[n].value = 0;
    vs[n].strptr = NULL;
    return vs;
}

static const char *etls_header_type_name_of(int v) { return etl_header_type_name((unsigned)v); }
static const char *etls_ext_type_name_of(int v) { return etl_ext_type_name((unsigned)v); }
static const char *etls_clock_name_of(int v) { return etl_clock_name((uint32_t)v); }
static const char *etls_status_name_of(int v) { return etl_status_name((etl_status)v); }

/* ---- the trailer -------------------------------------------------------------------------- */

static bool
etls_read_trailer(tvbuff_t *tvb, etls_trailer *t)
{
    guint len = tvb_captured_length(tvb);
    guint off;

    memset(t, 0, sizeof *t);
    if (len < ETLS_TRAILER_SIZE)
        return false;
    off = len - ETLS_TRAILER_SIZE;
    if (tvb_memeql(tvb, off + ETLS_TRL_MAGIC, (const guint8 *)ETLS_TRAILER_MAGIC,
                   ETLS_TRAILER_MAGIC_LEN) != 0)
        return false;
    if (tvb_get_letohs(tvb, off + ETLS_TRL_VERSION) != ETLS_TRAILER_VERSION ||
        tvb_get_letohs(tvb, off + ETLS_TRL_TRAILER_SIZE) != ETLS_TRAILER_SIZE)
        return false;
    t->offset = off;
    t->record_size = tvb_get_letohl(tvb, off + ETLS_TRL_RECORD_SIZE);
    t->notes_size = tvb_get_letohl(tvb, off + ETLS_TRL_NOTES_SIZE);
    if ((uint64_t)t->record_size + t->notes_size != off)
        return false;
    t->position = tvb_get_letoh64(tvb, off + ETLS_TRL_POSITION);
    t->buffer_offset = tvb_get_letoh64(tvb, off + ETLS_TRL_BUFFER_OFFSET);
    t->record_offset = tvb_get_letohl(tvb, off + ETLS_TRL_RECORD_OFFSET);
    t->cpu = tvb_get_letohs(tvb, off + ETLS_TRL_CPU);
    t->logger_id = tvb_get_letohs(tvb, off + ETLS_TRL_LOGGER_ID);
    t->buffer_flags = tvb_get_letohs(tvb, off + ETLS_TRL_BUFFER_FLAGS);
    t->buffer_type = tvb_get_uint8(tvb, off + ETLS_TRL_BUFFER_TYPE);
    t->session_pointer_size = tvb_get_uint8(tvb, off + ETLS_TRL_SESSION_PTR_SIZE);
    t->clock_type = tvb_get_uint8(tvb, off + ETLS_TRL_CLOCK_TYPE);
    t->flags = tvb_get_uint8(tvb, off + ETLS_TRL_FLAGS);
    t->note_count = tvb_get_letohs(tvb, off + ETLS_TRL_NOTE_COUNT);
    t->timestamp = (int64_t)tvb_get_letoh64(tvb, off + ETLS_TRL_TIMESTAMP);
    return true;
}

static void
dissect_etl_context(tvbuff_t *tvb, proto_tree *tree, const etls_trailer *t)
{
    static int * const buffer_flags[] = {
        &hf_etl_buffer_flags_flush_marker,
        &hf_etl_buffer_flags_events_lost,
        &hf_etl_buffer_flags_buffer_lost,
        &hf_etl_buffer_flags_rtbackup_corrupt,
        &hf_etl_buffer_flags_rtbackup,
        &hf_etl_buffer_flags_proc_index,
        &hf_etl_buffer_flags_compressed,
        NULL
    };
    proto_tree *ctx_tree;
    guint off = t->offset;

    ctx_tree = proto_tree_add_subtree(tree, tvb, off, ETLS_TRAILER_SIZE, ett_etl_context, NULL,
                                      "Record context (etlshark frame trailer)");
    proto_tree_add_item(ctx_tree, hf_etl_position, tvb, off + ETLS_TRL_POSITION, 8, ENC_LITTLE_ENDIAN);
    proto_tree_add_item(ctx_tree, hf_etl_buffer_offset, tvb, off + ETLS_TRL_BUFFER_OFFSET, 8, ENC_LITTLE_ENDIAN);
    proto_tree_add_item(ctx_tree, hf_etl_record_offset, tvb, off + ETLS_TRL_RECORD_OFFSET, 4, ENC_LITTLE_ENDIAN);
    proto_tree_add_item(ctx_tree, hf_etl_logger_id, tvb, off + ETLS_TRL_LOGGER_ID, 2, ENC_LITTLE_ENDIAN);
    proto_tree_add_bitmask(ctx_tree, tvb, off + ETLS_TRL_BUFFER_FLAGS, hf_etl_buffer_flags,
                           ett_etl_buffer_flags, buffer_flags, ENC_LITTLE_ENDIAN);
    proto_tree_add_item(ctx_tree, hf_etl_buffer_type, tvb, off + ETLS_TRL_BUFFER_TYPE, 1, ENC_LITTLE_ENDIAN);
    proto_tree_add_item(ctx_tree, hf_etl_session_pointer_size, tvb, off + ETLS_TRL_SESSION_PTR_SIZE, 1, ENC_LITTLE_ENDIAN);
    proto_tree_add_item(ctx_tree, hf_etl_clock_type, tvb, off + ETLS_TRL_CLOCK_TYPE, 1, ENC_LITTLE_ENDIAN);
    proto_tree_add_boolean(ctx_tree, hf_etl_has_timestamp, tvb, off + ETLS_TRL_FLAGS, 1,
                           t->flags & ETLS_TF_HAS_TIMESTAMP);
    proto_tree_add_boolean(ctx_tree, hf_etl_logfile_header, tvb, off + ETLS_TRL_FLAGS, 1,
                           t->flags & ETLS_TF_LOGFILE_HEADER);
}

/* Damage notes: each becomes an item and an expert info.  Returns whether a note of this
 * record's own framing problem was present. */
static bool
dissect_etl_notes(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etls_trailer *t)
{
    proto_tree *notes_tree;
    proto_item *notes_item;
    guint off = t->record_size;
    guint end = t->record_size + t->notes_size;
    bool record_note = false;

    if (t->note_count == 0 && t->notes_size == 0 && !(t->flags & ETLS_TF_NOTES_TRUNCATED))
        return false;

    notes_tree = proto_tree_add_subtree_format(tree, tvb, off, t->notes_size, ett_etl_damage,
                                               &notes_item, "Damage notes (%u)", t->note_count);
    for (unsigned i = 0; i < t->note_count; i++) {
        proto_tree *note_tree;
        proto_item *text_item;
        uint8_t kind;
        uint16_t text_len;
        const char *text;

        if (off + ETLS_NOTE_HEADER_SIZE > end) {
            expert_add_info_format(pinfo, notes_item, &ei_etl_notes_malformed,
                                   "Damage note %u runs past the notes block", i + 1);
            break;
        }
        kind = tvb_get_uint8(tvb, off + ETLS_NOTE_KIND);
        text_len = tvb_get_letohs(tvb, off + ETLS_NOTE_TEXT_LEN);
        if (off + ETLS_NOTE_HEADER_SIZE + text_len > end) {
            expert_add_info_format(pinfo, notes_item, &ei_etl_notes_malformed,
                                   "Damage note %u text runs past the notes block", i + 1);
            break;
        }
        text = (const char *)tvb_get_string_enc(pinfo->pool, tvb, off + ETLS_NOTE_HEADER_SIZE,
                                                text_len, ENC_UTF_8);
        note_tree = proto_tree_add_subtree_format(notes_tree, tvb, off,
                                                  ETLS_NOTE_HEADER_SIZE + text_len,
                                                  ett_etl_damage_note, NULL, "%s: %s",
                                                  val_to_str_const(kind, etl_note_kind_vals, "Note"),
                                                  text);
        proto_tree_add_item(note_tree, hf_etl_damage_kind, tvb, off + ETLS_NOTE_KIND, 1, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(note_tree, hf_etl_damage_status, tvb, off + ETLS_NOTE_STATUS, 4, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(note_tree, hf_etl_damage_offset, tvb, off + ETLS_NOTE_OFFSET, 8, ENC_LITTLE_ENDIAN);
        text_item = proto_tree_add_item(note_tree, hf_etl_damage, tvb, off + ETLS_NOTE_HEADER_SIZE,
                                        text_len, ENC_UTF_8);
        if (kind == ETLS_NOTE_RECORD) {
            record_note = true;
            expert_add_info_format(pinfo, text_item, &ei_etl_record_damage, "Record damage: %s", text);
        } else {
            expert_add_info_format(pinfo, text_item, &ei_etl_trace_damage, "Trace damage: %s", text);
        }
        off += ETLS_NOTE_HEADER_SIZE + text_len;
    }
    if (t->flags & ETLS_TF_NOTES_TRUNCATED)
        expert_add_info(pinfo, notes_item, &ei_etl_notes_truncated);
    return record_note;
}

/* ---- the record --------------------------------------------------------------------------- */

/* A WPP message's option flags: which items the record carries, by name (wpp.h). */
static void
etls_add_message_flags(proto_tree *tree, tvbuff_t *tvb, int hlen, uint16_t flags)
{
    static int *const bits[] = {
            &hf_etl_mflag_sequence,
            &hf_etl_mflag_guid,
            &hf_etl_mflag_componentid,
            &hf_etl_mflag_timestamp,
            &hf_etl_mflag_performance_timestamp,
            &hf_etl_mflag_systeminfo,
            &hf_etl_mflag_pointer32,
            &hf_etl_mflag_pointer64,
    };
    char names[160];
    proto_item *ti = proto_tree_add_uint(tree, hf_etl_message_flags, tvb, 0, hlen, flags);
    proto_tree *sub = proto_item_add_subtree(ti, ett_etl_message_flags);

    etl_wpp_flags_text(flags, names, sizeof names);
    if (names[0] != '\0')
        proto_item_append_text(ti, " (%s)", names);
    for (size_t i = 0; i < G_N_ELEMENTS(bits); i++)
        proto_tree_add_boolean(sub, *bits[i], tvb, 0, hlen, flags);
}

static void
dissect_etl_header(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etl_record *rec,
                   const etls_trailer *t)
{
    static int * const flag_bits[] = {
        &hf_etl_flags_extended_info,
        &hf_etl_flags_private_session,
        &hf_etl_flags_string_only,
        &hf_etl_flags_trace_message,
        &hf_etl_flags_no_cputime,
        &hf_etl_flags_32_bit_header,
        &hf_etl_flags_64_bit_header,
        &hf_etl_flags_decode_guid,
        &hf_etl_flags_classic_header,
        &hf_etl_flags_processor_index,
        NULL
    };
    static const uint16_t flag_masks[] = {
        ETL_EHF_EXTENDED_INFO, ETL_EHF_PRIVATE_SESSION, ETL_EHF_STRING_ONLY,
        ETL_EHF_TRACE_MESSAGE, ETL_EHF_NO_CPUTIME, ETL_EHF_32_BIT_HEADER,
        ETL_EHF_64_BIT_HEADER, ETL_EHF_DECODE_GUID, ETL_EHF_CLASSIC_HEADER,
        ETL_EHF_PROCESSOR_INDEX
    };
    proto_tree *hdr_tree, *desc_tree, *flags_tree;
    proto_item *ti;
    const int hlen = (int)rec->header_size;
    const unsigned ht = rec->header_type;
    const etl_family family = etl_header_family(ht);
    const bool is_eh = family == ETL_FAMILY_EVENT;

    hdr_tree = proto_tree_add_subtree_format(tree, tvb, 0, hlen, ett_etl_header, NULL,
                                             "Trace header: %s", etl_header_type_name(ht));
    proto_tree_add_uint(hdr_tree, hf_etl_size, tvb, 0, hlen, rec->size);
    proto_tree_add_uint(hdr_tree, hf_etl_header_type, tvb, 0, hlen, ht);
    if (rec->raw_header_type != rec->header_type)
        proto_tree_add_uint(hdr_tree, hf_etl_raw_header_type, tvb, 0, hlen, rec->raw_header_type);
    proto_tree_add_uint(hdr_tree, hf_etl_header_size, tvb, 0, hlen, rec->header_size);
    proto_tree_add_uint(hdr_tree, hf_etl_pointer_size, tvb, 0, hlen, rec->pointer_size);

    if (rec->has_provider)
        etls_add_guid(hdr_tree, hf_etl_provider, tvb, 0, hlen, &rec->provider);

    /* Event descriptor / classic event identity */
    desc_tree = proto_tree_add_subtree(hdr_tree, tvb, 0, hlen, ett_etl_descriptor, NULL,
                                       is_eh ? "Event descriptor" : "Event identity");
    if (is_eh) {
        proto_tree_add_uint(desc_tree, hf_etl_event_id, tvb, 0, hlen, rec->event_id);
        proto_tree_add_uint(desc_tree, hf_etl_version, tvb, 0, hlen, rec->version);
        proto_tree_add_uint(desc_tree, hf_etl_channel, tvb, 0, hlen, rec->channel);
        proto_tree_add_uint(desc_tree, hf_etl_level, tvb, 0, hlen, rec->level);
        proto_tree_add_uint(desc_tree, hf_etl_opcode, tvb, 0, hlen, rec->opcode);
        proto_tree_add_uint(desc_tree, hf_etl_task, tvb, 0, hlen, rec->task);
        proto_tree_add_uint64(desc_tree, hf_etl_keyword, tvb, 0, hlen, rec->keyword);
    } else if (family == ETL_FAMILY_SYSTEM) {
        proto_tree_add_uint(desc_tree, hf_etl_version, tvb, 0, hlen, rec->version);
        proto_tree_add_uint(desc_tree, hf_etl_opcode, tvb, 0, hlen, rec->opcode);
        proto_tree_add_uint(desc_tree, hf_etl_group, tvb, 0, hlen, rec->group);
        proto_tree_add_uint(desc_tree, hf_etl_hook_id, tvb, 0, hlen, rec->hook_id);
    } else if (family == ETL_FAMILY_FULL) {
        proto_tree_add_uint(desc_tree, hf_etl_version, tvb, 0, hlen, rec->version);
        proto_tree_add_uint(desc_tree, hf_etl_level, tvb, 0, hlen, rec->level);
        proto_tree_add_uint(desc_tree, hf_etl_opcode, tvb, 0, hlen, rec->opcode);
    } else {
        proto_tree_add_uint(desc_tree, hf_etl_version, tvb, 0, hlen, rec->version);
        proto_tree_add_uint(desc_tree, hf_etl_opcode, tvb, 0, hlen, rec->opcode);
    }
    if (ht == ETL_HT_MESSAGE) {
        proto_tree_add_uint(desc_tree, hf_etl_message_number, tvb, 0, hlen, rec->message_number);
        etls_add_message_flags(desc_tree, tvb, hlen, rec->message_flags);
    }
    if (rec->has_sequence)
        proto_tree_add_uint(desc_tree, hf_etl_sequence, tvb, 0, hlen, rec->sequence);
    if (rec->has_component_id)
        proto_tree_add_uint(desc_tree, hf_etl_component_id, tvb, 0, hlen, rec->component_id);

    /* Time */
    ti = proto_tree_add_int64(hdr_tree, hf_etl_timestamp_raw, tvb, 0, hlen, rec->timestamp_raw);
    if (t->flags & ETLS_TF_HAS_TIMESTAMP)
        etls_add_filetime(hdr_tree, hf_etl_timestamp, tvb, 0, hlen, t->timestamp);
    else
        expert_add_info(pinfo, ti, &ei_etl_no_time);

    /* Who */
    if (rec->pid != ETL_NO_ID)
        proto_tree_add_uint(hdr_tree, hf_etl_pid, tvb, 0, hlen, rec->pid);
    if (rec->tid != ETL_NO_ID)
        proto_tree_add_uint(hdr_tree, hf_etl_tid, tvb, 0, hlen, rec->tid);
    /* Time and CPU come from the trailer but span the record header, like pid and tid: an item
     * at the trailer (the frame's end) this early would make Wireshark 4.6 count every later
     * item as not advancing, and stop frames with 50,000 such items as a dissector loop. */
    proto_tree_add_uint(hdr_tree, hf_etl_cpu, tvb, 0, hlen, tvb_get_letohs(tvb, t->offset + ETLS_TRL_CPU));

    /* Flags, as a Windows consumer sees them (stored + synthesized) */
    ti = proto_tree_add_uint(hdr_tree, hf_etl_flags, tvb, 0, hlen, rec->flags);
    flags_tree = proto_item_add_subtree(ti, ett_etl_flags);
    for (unsigned i = 0; flag_bits[i] != NULL; i++)
        proto_tree_add_boolean(flags_tree, *flag_bits[i], tvb, 0, hlen, rec->flags & flag_masks[i]);
    if (is_eh) {
        proto_tree_add_uint(hdr_tree, hf_etl_flags_stored, tvb, 0, hlen, rec->flags_stored);
        proto_tree_add_uint(hdr_tree, hf_etl_event_property, tvb, 0, hlen, rec->event_property);
    }

    /* CPU time */
    if (rec->has_cpu_times) {
        proto_tree_add_uint(hdr_tree, hf_etl_kernel_time, tvb, 0, hlen, rec->kernel_time);
        proto_tree_add_uint(hdr_tree, hf_etl_user_time, tvb, 0, hlen, rec->user_time);
    } else if (is_eh) {
        proto_tree_add_uint64(hdr_tree, hf_etl_processor_time, tvb, 0, hlen, rec->processor_time);
    }

    if (rec->has_activity_id)
        etls_add_guid(hdr_tree, hf_etl_activity_id, tvb, 0, hlen, &rec->activity_id);

    if (etls_is_instance(ht)) {
        proto_tree_add_uint(hdr_tree, hf_etl_instance_id, tvb, 0, hlen, rec->instance_id);
        proto_tree_add_uint(hdr_tree, hf_etl_parent_instance_id, tvb, 0, hlen, rec->parent_instance_id);
        etls_add_guid(hdr_tree, hf_etl_parent_guid, tvb, 0, hlen, &rec->parent_guid);
    }
    if (rec->has_pebs)
        proto_tree_add_uint64(hdr_tree, hf_etl_pebs_index, tvb, 0, hlen, rec->pebs_index);
    if (rec->pmc_count > 0 && rec->pmc != NULL) {
        int pmc_off = etls_offset_of(rec, rec->pmc);

        for (unsigned i = 0; i < rec->pmc_count; i++)
            proto_tree_add_uint64(hdr_tree, hf_etl_pmc, tvb, pmc_off + 8 * (int)i, 8,
                                  etls_le64(rec->pmc + 8 * i));
    }
}

static void
dissect_etl_ext_item(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etl_record *rec,
                     const etl_ext_item *it)
{
    proto_tree *item_tree;
    proto_item *item_ti;
    const char *name = etl_ext_type_name(it->type);
    int data_off = etls_offset_of(rec, it->data);
    int span = data_off + it->data_size - (int)it->offset;
    int dlen = it->data_size;
    bool ok = true;
    etl_guid g;
    uint32_t u32;
    uint64_t u64;

    if (span <= 0)
        span = dlen;
    item_tree = proto_tree_add_subtree_format(tree, tvb, (int)it->offset, span, ett_etl_ext_item,
                                              &item_ti, "Extended item: %s (type %u, %u bytes)",
                                              name != NULL ? name : "unknown", it->type,
                                              it->data_size);
    proto_tree_add_uint(item_tree, hf_etl_ext_type, tvb, (int)it->offset, span, it->type);
    proto_tree_add_uint(item_tree, hf_etl_ext_size, tvb, (int)it->offset, span, it->data_size);

    switch (it->type) {
    case ETL_EXT_RELATED_ACTIVITYID:
        if ((ok = etl_ext_guid(it, &g)))
            etls_add_guid(item_tree, hf_etl_related_activity_id, tvb, data_off, dlen, &g);
        break;
    case ETL_EXT_CONTROL_GUID:
        if ((ok = etl_ext_guid(it, &g)))
            etls_add_guid(item_tree, hf_etl_ext_control_guid, tvb, data_off, dlen, &g);
        break;
    case ETL_EXT_CONTAINER_ID:
        if ((ok = etl_ext_guid(it, &g)))
            etls_add_guid(item_tree, hf_etl_ext_container_id, tvb, data_off, dlen, &g);
        break;
    case ETL_EXT_SID: {
        char sid[ETL_SID_STR_SIZE];
        size_t used = it->data != NULL ? etl_format_sid(it->data, it->data_size, sid) : 0;

        if ((ok = used > 0))
            proto_tree_add_string(item_tree, hf_etl_sid, tvb, data_off, (int)used, sid);
        break;
    }
    case ETL_EXT_TS_ID:
        if ((ok = etl_ext_u32(it, &u32)))
            proto_tree_add_uint(item_tree, hf_etl_ext_ts_id, tvb, data_off, dlen, u32);
        break;
    case ETL_EXT_PEBS_INDEX:
    case ETL_EXT_PSM_KEY:
    case ETL_EXT_EVENT_KEY:
    case ETL_EXT_PROCESS_START_KEY:
    case ETL_EXT_QPC_DELTA: {
        int hf = it->type == ETL_EXT_PEBS_INDEX       ? hf_etl_ext_pebs_index
                 : it->type == ETL_EXT_PSM_KEY        ? hf_etl_ext_psm_key
                 : it->type == ETL_EXT_EVENT_KEY      ? hf_etl_ext_event_key
                 : it->type == ETL_EXT_PROCESS_START_KEY ? hf_etl_ext_process_start_key
                                                      : hf_etl_ext_qpc_delta;

        if ((ok = etl_ext_u64(it, &u64)))
            proto_tree_add_uint64(item_tree, hf, tvb, data_off, dlen, u64);
        break;
    }
    case ETL_EXT_STACK_TRACE32:
    case ETL_EXT_STACK_TRACE64: {
        uint32_t count = 0;

        if ((ok = etl_ext_stack(it, &u64, &count))) {
            proto_item *ti;

            proto_tree_add_uint64(item_tree, hf_etl_stack_match_id, tvb, data_off, dlen, u64);
            ti = proto_tree_add_uint(item_tree, hf_etl_stack_count, tvb, data_off, dlen, count);
            proto_item_set_generated(ti);
            for (uint32_t i = 0; i < count; i++)
                proto_tree_add_uint64(item_tree, hf_etl_stack_address, tvb, data_off, dlen,
                                      etl_ext_stack_address(it, i));
        }
        break;
    }
    case ETL_EXT_PMC_COUNTERS:
        for (int i = 0; it->data != NULL && i + 8 <= dlen; i += 8)
            proto_tree_add_uint64(item_tree, hf_etl_ext_pmc, tvb, data_off + i, 8,
                                  etls_le64(it->data + i));
        break;
    default:
        /* EVENT_SCHEMA_TL, PROV_TRAITS, INSTANCE_INFO, STACK_KEY*, unknown: raw data below. */
        break;
    }
    if (!ok)
        expert_add_info_format(pinfo, item_ti, &ei_etl_ext_short,
                               "Extended item %s is too short (%u bytes) for its type",
                               name != NULL ? name : "unknown", it->data_size);
    if (dlen > 0)
        proto_tree_add_item(item_tree, hf_etl_ext_data, tvb, data_off, dlen, ENC_NA);
}

static void
dissect_etl_ext_items(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etl_record *rec)
{
    proto_tree *ext_tree;
    int start, end;

    if (rec->ext_count == 0)
        return;
    start = (int)rec->ext[0].offset;
    end = (int)rec->payload_offset;
    if (end < start)
        end = start;
    ext_tree = proto_tree_add_subtree_format(tree, tvb, start, end - start, ett_etl_ext, NULL,
                                             "Extended data (%u item%s)", rec->ext_count,
                                             rec->ext_count == 1 ? "" : "s");
    proto_tree_add_uint(ext_tree, hf_etl_ext_count, tvb, start, end - start, rec->ext_count);
    for (unsigned i = 0; i < rec->ext_count && i < ETL_MAX_EXT_ITEMS; i++)
        dissect_etl_ext_item(tvb, pinfo, ext_tree, rec, &rec->ext[i]);
}

/* The logfile header record: TRACE_LOGFILE_HEADER in its payload.  Fills *lf (present=false
 * when it cannot be parsed). */
static void
dissect_etl_logfile(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const etl_record *rec,
                    etl_logfile *lf)
{
    proto_tree *lf_tree;
    proto_item *lf_ti, *ti;
    etl_error e;
    etl_status st;
    int off = (int)rec->payload_offset;
    int len = (int)rec->payload_size;
    char os[64];

    memset(lf, 0, sizeof *lf);
    memset(&e, 0, sizeof e);
    lf_tree = proto_tree_add_subtree(tree, tvb, off, len, ett_etl_logfile, &lf_ti,
                                     "Logfile header (TRACE_LOGFILE_HEADER)");
    st = etl_logfile_parse(rec->bytes + rec->payload_offset, rec->payload_size,
                           rec->header_type == ETL_HT_SYSTEM64, lf, &e);
    if (st != ETL_OK) {
        lf->present = false;
        expert_add_info_format(pinfo, lf_ti, &ei_etl_logfile_bad,
                               "Logfile header cannot be parsed (%s at payload offset 0x%" PRIx64
                               "): %s", etl_status_name(st), e.offset, e.message);
        return;
    }
    lf->present = true;
    proto_tree_add_string(lf_tree, hf_etl_lf_logger_name, tvb, off, len, lf->logger_name);
    proto_tree_add_string(lf_tree, hf_etl_lf_log_file_name, tvb, off, len, lf->log_file_name);
    snprintf(os, sizeof os, "%u.%u.%u.%u", lf->os_major, lf->os_minor, lf->os_sub, lf->os_subminor);
    proto_tree_add_string(lf_tree, hf_etl_lf_os_version, tvb, off, len, os);
    proto_tree_add_uint(lf_tree, hf_etl_lf_os_build, tvb, off, len, lf->os_build);
    proto_tree_add_uint(lf_tree, hf_etl_lf_processors, tvb, off, len, lf->processors);
    proto_tree_add_uint(lf_tree, hf_etl_lf_cpu_speed, tvb, off, len, lf->cpu_speed_mhz);
    proto_tree_add_uint(lf_tree, hf_etl_lf_clock_type, tvb, off, len, lf->clock_type);
    proto_tree_add_uint(lf_tree, hf_etl_lf_pointer_size, tvb, off, len, lf->pointer_size);
    proto_tree_add_uint(lf_tree, hf_etl_lf_timer_resolution, tvb, off, len, lf->timer_resolution);
    proto_tree_add_int64(lf_tree, hf_etl_lf_perf_freq, tvb, off, len, lf->perf_freq);
    proto_tree_add_uint(lf_tree, hf_etl_lf_buffer_size, tvb, off, len, lf->buffer_size);
    proto_tree_add_uint(lf_tree, hf_etl_lf_max_file_size, tvb, off, len, lf->max_file_size_mb);
    proto_tree_add_uint(lf_tree, hf_etl_lf_log_file_mode, tvb, off, len, lf->log_file_mode);
    proto_tree_add_uint(lf_tree, hf_etl_lf_buffers_written, tvb, off, len, lf->buffers_written);
    proto_tree_add_uint(lf_tree, hf_etl_lf_start_buffers, tvb, off, len, lf->start_buffers);
    ti = proto_tree_add_uint(lf_tree, hf_etl_lf_events_lost, tvb, off, len, lf->events_lost);
    if (lf->events_lost > 0)
        expert_add_info_format(pinfo, ti, &ei_etl_events_lost,
                               "The session lost %u events", lf->events_lost);
    ti = proto_tree_add_uint(lf_tree, hf_etl_lf_buffers_lost, tvb, off, len, lf->buffers_lost);
    if (lf->buffers_lost > 0)
        expert_add_info_format(pinfo, ti, &ei_etl_events_lost,
                               "The session lost %u buffers", lf->buffers_lost);
    etls_add_filetime(lf_tree, hf_etl_lf_start_time, tvb, off, len, lf->start_time);
    etls_add_filetime(lf_tree, hf_etl_lf_end_time, tvb, off, len, lf->end_time);
    etls_add_filetime(lf_tree, hf_etl_lf_boot_time, tvb, off, len, lf->boot_time);
    proto_tree_add_int(lf_tree, hf_etl_lf_tz_bias, tvb, off, len, lf->tz_bias_minutes);
    proto_tree_add_string(lf_tree, hf_etl_lf_tz_standard_name, tvb, off, len, lf->tz_standard_name);
    proto_tree_add_string(lf_tree, hf_etl_lf_tz_daylight_name, tvb, off, len, lf->tz_daylight_name);
}

/* ---- packet frames in brief ------------------------------------------------------------- */

/* Is a field of the full record header, payload or context asked for (etl_event_data.h)? */
static bool
etls_header_asked(void)
{
    static int named = -1; /* a -e of the command line names one: decided once */

    for (guint i = 0; i < etls_full_only_count; i++)
        if (etls_full_only[i]->ref_type != HF_REF_TYPE_NONE)
            return true;
    if (named < 0) {
        named = 0;
        for (guint i = 0; i < etls_full_only_count && named == 0; i++)
            named = etls_field_asked(etls_full_only[i]) ? 1 : 0;
    }
    return named == 1;
}

/* A packet event handed to a link-layer dissector shows its ETW record in brief: the Packet
 * subtree (etl.pkt.*, which holds every field the event's schema gives), the provider and
 * event names, the event id, process, thread and CPU, and (when present) its damage notes
 * and extended items - not the full trace header, the payload, the Event data (the schema's
 * fields again) or the record context.  These are shown as before when the preference
 * etl.full_packet_record is on, when a filter, column, tap or -e asks for one of their fields,
 * or when the event is not sound (no converted time, a packet-layer problem, a schema the
 * decoder cannot use as it is: missing, an older version's, an error), so filters, -e output
 * and that expert info are those of the full record.  Without a tree nothing is built either
 * way.  The check is a look at each full-only field's ref_type (about 120 static fields and
 * the event schema's own): no cache to go stale when the GUI applies another filter. */
static bool
etls_packet_brief(packet_info *pinfo, proto_tree *tree, const etl_record *rec,
                  const etls_trailer *t)
{
    if (tree == NULL || etls_pref_full_packet_record() || !(t->flags & ETLS_TF_HAS_TIMESTAMP) ||
        etl_header_family(rec->header_type) != ETL_FAMILY_EVENT ||
        !etls_packet_takes_columns_clean(pinfo, rec))
        return false;
    return !etls_header_asked() && !etls_event_data_needed(pinfo, rec);
}

/* The header items of a packet frame in brief: those of dissect_etl_header, same fields and
 * spans, so a filter or -e on them gives what the full header gives. */
static void
dissect_etl_header_brief(tvbuff_t *tvb, proto_tree *tree, const etl_record *rec,
                         const etls_trailer *t)
{
    const int hlen = (int)rec->header_size;

    proto_tree_add_uint(tree, hf_etl_event_id, tvb, 0, hlen, rec->event_id);
    if (rec->pid != ETL_NO_ID)
        proto_tree_add_uint(tree, hf_etl_pid, tvb, 0, hlen, rec->pid);
    if (rec->tid != ETL_NO_ID)
        proto_tree_add_uint(tree, hf_etl_tid, tvb, 0, hlen, rec->tid);
    proto_tree_add_uint(tree, hf_etl_cpu, tvb, 0, hlen, tvb_get_letohs(tvb, t->offset + ETLS_TRL_CPU));
}

/* The process of the record in the Info column: " [image.exe (pid)]" after the event's name. */
static void
etls_append_process(wmem_strbuf_t *s, const etls_event_summary *sum)
{
    if (sum != NULL && sum->process != NULL)
        wmem_strbuf_append_printf(s, " [%s]", sum->process);
}

/* Info column: Provider/EventName (for kernel events as Windows tools name them: "Windows
 * Kernel/Process/Start"), the record's process and the first fields of a named event (WPP
 * messages: Component/Function and the formatted message); else
 * provider/event id, header kind, opcode or hook, and the process. */
static void
etls_set_info(packet_info *pinfo, const etl_record *rec, const etl_logfile *lf,
              const etls_trailer *t, const etls_event_summary *sum)
{
    wmem_strbuf_t *s = wmem_strbuf_new(pinfo->pool, "");
    const char *kind = etl_header_type_name(rec->header_type);
    char guid[ETL_GUID_STR_SIZE];

    if (sum != NULL && sum->event_name != NULL) {
        if (sum->provider_name != NULL) {
            wmem_strbuf_append(s, sum->provider_name);
        } else {
            etl_format_guid(&rec->provider, guid);
            wmem_strbuf_append(s, guid);
        }
        wmem_strbuf_append_printf(s, "/%s", sum->event_name);
        if (sum->message != NULL) /* WPP: "Component/Function: formatted message" */
            wmem_strbuf_append_printf(s, ": %s", sum->message);
        else
            etls_append_process(s, sum);
        if (sum->message != NULL) {
            /* the message says it all */
        } else if (lf != NULL && lf->present)
            wmem_strbuf_append_printf(s, ": Logfile header: logger \"%s\", %u buffers of %u "
                                      "bytes, clock %s", lf->logger_name, lf->buffers_written,
                                      lf->buffer_size, etl_clock_name(lf->clock_type));
        else if (sum->fields != NULL)
            wmem_strbuf_append_printf(s, ": %s", wmem_strbuf_get_str(sum->fields));
    } else if (lf != NULL && lf->present) {
        wmem_strbuf_append_printf(s, "Logfile header: logger \"%s\", %u buffers of %u bytes, "
                                  "clock %s [%s]", lf->logger_name, lf->buffers_written,
                                  lf->buffer_size, etl_clock_name(lf->clock_type), kind);
        etls_append_process(s, sum);
    } else if (rec->has_provider) {
        etl_format_guid(&rec->provider, guid);
        if (etl_header_family(rec->header_type) == ETL_FAMILY_EVENT)
            wmem_strbuf_append_printf(s, "%s/%u %s opcode %u", guid, rec->event_id, kind,
                                      rec->opcode);
        else if (etl_header_family(rec->header_type) == ETL_FAMILY_SYSTEM)
            wmem_strbuf_append_printf(s, "%s/%u %s hook 0x%04x", guid, rec->opcode, kind,
                                      rec->hook_id);
        else
            wmem_strbuf_append_printf(s, "%s/%u %s", guid, rec->opcode, kind);
        etls_append_process(s, sum);
    } else {
        wmem_strbuf_append_printf(s, "%s record opcode %u", kind, rec->opcode);
        etls_append_process(s, sum);
    }
    if (t->note_count > 0)
        wmem_strbuf_append_printf(s, " [damage: %u note%s]", t->note_count,
                                  t->note_count == 1 ? "" : "s");
    col_add_str(pinfo->cinfo, COL_INFO, wmem_strbuf_get_str(s));
}

static int
dissect_etl(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    proto_item *top;
    proto_tree *etl_tree;
    etls_trailer t;
    etl_record rec;
    etl_error problem;
    uint32_t problem_at;
    etl_error e;
    etl_status st;
    uint32_t stride = 0;
    bool record_note;
    etl_logfile lf;
    etls_event_summary sum;
    bool pkt_columns;
    bool brief;

    col_set_str(pinfo->cinfo, COL_PROTOCOL, "ETW");
    col_clear(pinfo->cinfo, COL_INFO);

    top = proto_tree_add_item(tree, proto_etl, tvb, 0, -1, ENC_NA);
    etl_tree = proto_item_add_subtree(top, ett_etl);

    if (!etls_read_trailer(tvb, &t)) {
        expert_add_info(pinfo, top, &ei_etl_no_trailer);
        col_set_str(pinfo->cinfo, COL_INFO, "Not an etlshark record frame");
        if (tvb_captured_length(tvb) > 0)
            proto_tree_add_item(etl_tree, hf_etl_record_data, tvb, 0, -1, ENC_NA);
        return tvb_captured_length(tvb);
    }

    record_note = dissect_etl_notes(tvb, pinfo, etl_tree, &t);

    memset(&rec, 0, sizeof rec);
    memset(&e, 0, sizeof e);
    if (t.record_size > 0) {
        st = etl_frame_record(tvb_get_ptr(tvb, 0, t.record_size), t.record_size,
                              t.session_pointer_size, &rec, &stride, &e);
    } else {
        st = ETL_ERR_TRUNCATED;
        g_strlcpy(e.message, "empty record", sizeof e.message);
    }
    if (st != ETL_OK) {
        proto_item *ti = proto_tree_add_item(etl_tree, hf_etl_record_data, tvb, 0,
                                             (int)t.record_size, ENC_NA);

        if (st == ETL_END)
            g_strlcpy(e.message, "the record is an end-of-data marker", sizeof e.message);
        expert_add_info_format(pinfo, ti != NULL ? ti : top, &ei_etl_unframed,
                               "Record cannot be framed (%s at record offset 0x%" PRIx64 "): %s",
                               etl_status_name(st), e.offset, e.message);
        col_add_fstr(pinfo->cinfo, COL_INFO, "Malformed record (%s: %s)", etl_status_name(st),
                     e.message);
        dissect_etl_context(tvb, etl_tree, &t);
        return tvb_captured_length(tvb);
    }

    /* The rest of the record as the reader delivered it (the framer leaves where it is and
     * the converted time to the reader): the process context keys on the time. */
    rec.position = t.position;
    rec.buffer_offset = t.buffer_offset;
    rec.record_offset = t.record_offset;
    rec.buffer_flags = t.buffer_flags;
    rec.buffer_type = t.buffer_type;
    rec.cpu = t.cpu;
    rec.logger_id = t.logger_id;
    rec.trace = etls_trace_number(pinfo);
    if (t.flags & ETLS_TF_HAS_TIMESTAMP) {
        rec.has_timestamp = true;
        rec.timestamp = t.timestamp;
    }

    /* Schemas the file carries (MetaData, EventSource manifests) for manifest events. */
    etls_event_data_record(pinfo, &rec);
    etls_event_data_problems(tvb, pinfo, etl_tree);

    /* A packet event's columns are its packet's (etl_packet_dissect.h); its record may be
     * shown in brief (etls_packet_brief). */
    pkt_columns = etls_packet_takes_columns(pinfo, &rec);
    brief = pkt_columns && etls_packet_brief(pinfo, tree, &rec, &t);

    memset(&lf, 0, sizeof lf);
    if (brief) {
        proto_item_append_text(top, ", %s, in brief (preference etl.full_packet_record: "
                               "the full record)", etl_header_type_name(rec.header_type));
        dissect_etl_header_brief(tvb, etl_tree, &rec, &t);
        dissect_etl_ext_items(tvb, pinfo, etl_tree, &rec);
    } else {
        proto_item_append_text(top, ", %s", etl_header_type_name(rec.header_type));
        dissect_etl_header(tvb, pinfo, etl_tree, &rec, &t);
        dissect_etl_ext_items(tvb, pinfo, etl_tree, &rec);

        proto_tree_add_uint(etl_tree, hf_etl_payload_size, tvb, (int)rec.payload_offset,
                            (int)rec.payload_size, rec.payload_size);
        if (rec.payload_size > 0)
            proto_tree_add_item(etl_tree, hf_etl_payload, tvb, (int)rec.payload_offset,
                                (int)rec.payload_size, ENC_NA);

        if (t.flags & ETLS_TF_LOGFILE_HEADER)
            dissect_etl_logfile(tvb, pinfo, etl_tree, &rec, &lf);
    }

    /* Every record: the decoder says whether and how it decodes (etl_event_data.h).  Without a
     * tree (tshark's summary lines, statistics), the decoded fields of a packet event would only
     * feed an Info text its packet overwrites: they are left out, which keeps reading a packet
     * capture as fast as reading its pcapng (bench/pktshark.py).  (A packet event's provider is
     * named by its schema, never by the first pass's per-frame cache, so nothing is lost.) */
    memset(&sum, 0, sizeof sum);
    if (tree != NULL || !pkt_columns || etls_views_listened())
        etls_dissect_event_data(tvb, pinfo, etl_tree, &rec, &sum,
                                pinfo->cinfo != NULL && !pkt_columns, brief);
    /* Every record kind: its process, and stack walks linked to their events. */
    etls_process_record(tvb, pinfo, etl_tree, &rec, &sum);

    if (!record_note && etl_record_problem(&rec, &problem, &problem_at))
        expert_add_info_format(pinfo, top, &ei_etl_record_damage,
                               "Record damage (%s at record offset 0x%x): %s",
                               etl_status_name(problem.code), problem_at, problem.message);
    if ((t.buffer_flags & (ETL_BF_EVENTS_LOST | ETL_BF_BUFFER_LOST)) &&
        t.record_offset == ETL_BUFFER_HEADER_SIZE)
        expert_add_info(pinfo, top, &ei_etl_buffer_lost);

    if (!brief)
        dissect_etl_context(tvb, etl_tree, &t);
    if (!pkt_columns && pinfo->cinfo != NULL)
        etls_set_info(pinfo, &rec, &lf, &t, &sum);
    /* Source/Destination (process -> provider) and the statistics' tap; before the packet
     * dissectors, whose addresses then win on a packet frame. */
    etls_views_record(tvb, pinfo, etl_tree, &rec, &sum, t.note_count,
                      (t.buffer_flags & (ETL_BF_EVENTS_LOST | ETL_BF_BUFFER_LOST)) &&
                          t.record_offset == ETL_BUFFER_HEADER_SIZE);
    /* Last: a packet event's frame goes to its link type's dissector, whose columns win. */
    etls_packet_dissect(tvb, pinfo, tree, etl_tree, &rec);
    return tvb_captured_length(tvb);
}

/* ---- registration ------------------------------------------------------------------------- */

void
proto_register_etl(void)
{
    static hf_register_info hf[] = {
        /* record / trace header */
        { &hf_etl_size, { "Record size", "etl.size", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Bytes of the record (trace header, extended items and payload)", HFILL } },
        { &hf_etl_header_type, { "Header type", "etl.header_type", FT_UINT8, BASE_HEX, NULL, 0x0,
            "Trace header kind", HFILL } },
        { &hf_etl_raw_header_type, { "Stored header type", "etl.raw_header_type", FT_UINT8, BASE_HEX, NULL, 0x0,
            "Header-type byte as stored, when it differs from the recognised kind", HFILL } },
        { &hf_etl_header_size, { "Header size", "etl.header_size", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Bytes of the trace header, extended items excluded", HFILL } },
        { &hf_etl_pointer_size, { "Pointer size", "etl.pointer_size", FT_UINT8, BASE_DEC, NULL, 0x0,
            "Pointer size of the record (from its header kind or the session)", HFILL } },
        { &hf_etl_provider, { "Provider", "etl.provider", FT_GUID, BASE_NONE, NULL, 0x0,
            "Provider id, MOF class or kernel group GUID, or WPP message GUID", HFILL } },
        { &hf_etl_event_id, { "Event id", "etl.event_id", FT_UINT16, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_version, { "Version", "etl.version", FT_UINT8, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_channel, { "Channel", "etl.channel", FT_UINT8, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_level, { "Level", "etl.level", FT_UINT8, BASE_DEC, VALS(etl_level_vals), 0x0,
            NULL, HFILL } },
        { &hf_etl_opcode, { "Opcode", "etl.opcode", FT_UINT8, BASE_DEC, NULL, 0x0,
            "Opcode (event type of classic events)", HFILL } },
        { &hf_etl_task, { "Task", "etl.task", FT_UINT16, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_keyword, { "Keyword", "etl.keyword", FT_UINT64, BASE_HEX, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_pid, { "Process id", "etl.pid", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_tid, { "Thread id", "etl.tid", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_cpu, { "CPU", "etl.cpu", FT_UINT16, BASE_DEC, NULL, 0x0,
            "Processor that logged the event (of its buffer)", HFILL } },
        { &hf_etl_timestamp_raw, { "Raw timestamp", "etl.timestamp_raw", FT_INT64, BASE_DEC, NULL, 0x0,
            "Timestamp in the session clock's units", HFILL } },
        { &hf_etl_timestamp, { "Timestamp", "etl.timestamp", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0x0,
            "Timestamp converted to UTC", HFILL } },
        { &hf_etl_flags, { "Flags", "etl.flags", FT_UINT16, BASE_HEX, NULL, 0x0,
            "EVENT_HEADER flags as a Windows consumer sees them", HFILL } },
        { &hf_etl_flags_extended_info, { "Extended info", "etl.flags.extended_info", FT_BOOLEAN, 16, NULL, ETL_EHF_EXTENDED_INFO,
            NULL, HFILL } },
        { &hf_etl_flags_private_session, { "Private session", "etl.flags.private_session", FT_BOOLEAN, 16, NULL, ETL_EHF_PRIVATE_SESSION,
            NULL, HFILL } },
        { &hf_etl_flags_string_only, { "String only", "etl.flags.string_only", FT_BOOLEAN, 16, NULL, ETL_EHF_STRING_ONLY,
            NULL, HFILL } },
        { &hf_etl_flags_trace_message, { "Trace message", "etl.flags.trace_message", FT_BOOLEAN, 16, NULL, ETL_EHF_TRACE_MESSAGE,
            NULL, HFILL } },
        { &hf_etl_flags_no_cputime, { "No CPU time", "etl.flags.no_cputime", FT_BOOLEAN, 16, NULL, ETL_EHF_NO_CPUTIME,
            NULL, HFILL } },
        { &hf_etl_flags_32_bit_header, { "32-bit header", "etl.flags.32_bit_header", FT_BOOLEAN, 16, NULL, ETL_EHF_32_BIT_HEADER,
            NULL, HFILL } },
        { &hf_etl_flags_64_bit_header, { "64-bit header", "etl.flags.64_bit_header", FT_BOOLEAN, 16, NULL, ETL_EHF_64_BIT_HEADER,
            NULL, HFILL } },
        { &hf_etl_flags_decode_guid, { "Decode GUID", "etl.flags.decode_guid", FT_BOOLEAN, 16, NULL, ETL_EHF_DECODE_GUID,
            NULL, HFILL } },
        { &hf_etl_flags_classic_header, { "Classic header", "etl.flags.classic_header", FT_BOOLEAN, 16, NULL, ETL_EHF_CLASSIC_HEADER,
            NULL, HFILL } },
        { &hf_etl_flags_processor_index, { "Processor index", "etl.flags.processor_index", FT_BOOLEAN, 16, NULL, ETL_EHF_PROCESSOR_INDEX,
            NULL, HFILL } },
        { &hf_etl_flags_stored, { "Stored flags", "etl.flags_stored", FT_UINT16, BASE_HEX, NULL, 0x0,
            "EVENT_HEADER flags as stored in the file", HFILL } },
        { &hf_etl_event_property, { "Event property", "etl.event_property", FT_UINT16, BASE_HEX, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_kernel_time, { "Kernel time", "etl.kernel_time", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Kernel-mode CPU time (clock ticks)", HFILL } },
        { &hf_etl_user_time, { "User time", "etl.user_time", FT_UINT32, BASE_DEC, NULL, 0x0,
            "User-mode CPU time (clock ticks)", HFILL } },
        { &hf_etl_processor_time, { "Processor time", "etl.processor_time", FT_UINT64, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_activity_id, { "Activity id", "etl.activity_id", FT_GUID, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_related_activity_id, { "Related activity id", "etl.related_activity_id", FT_GUID, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_sid, { "User SID", "etl.sid", FT_STRING, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_hook_id, { "Hook id", "etl.hook_id", FT_UINT16, BASE_HEX, NULL, 0x0,
            "Kernel hook id: (group << 8) | type", HFILL } },
        { &hf_etl_group, { "Kernel group", "etl.group", FT_UINT8, BASE_HEX, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_pebs_index, { "PEBS index", "etl.pebs_index", FT_UINT64, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_pmc, { "PMC counter", "etl.pmc", FT_UINT64, BASE_DEC, NULL, 0x0,
            "Performance monitoring counter value", HFILL } },
        { &hf_etl_instance_id, { "Instance id", "etl.instance_id", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_parent_instance_id, { "Parent instance id", "etl.parent_instance_id", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_parent_guid, { "Parent GUID", "etl.parent_guid", FT_GUID, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_message_number, { "Message number", "etl.message_number", FT_UINT16, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_message_flags, { "Message flags", "etl.message_flags", FT_UINT16, BASE_HEX, NULL, 0x0,
            "WPP option flags: which items the MESSAGE record carries", HFILL } },
        { &hf_etl_mflag_sequence, { "Sequence number", "etl.message_flags.sequence", FT_BOOLEAN, 16, NULL, ETL_WPP_SEQUENCE,
            "WPP option flag SEQUENCE", HFILL } },
        { &hf_etl_mflag_guid, { "Message GUID", "etl.message_flags.guid", FT_BOOLEAN, 16, NULL, ETL_WPP_GUID,
            "WPP option flag GUID", HFILL } },
        { &hf_etl_mflag_componentid, { "Component id", "etl.message_flags.componentid", FT_BOOLEAN, 16, NULL, ETL_WPP_COMPONENTID,
            "WPP option flag COMPONENTID", HFILL } },
        { &hf_etl_mflag_timestamp, { "Timestamp", "etl.message_flags.timestamp", FT_BOOLEAN, 16, NULL, ETL_WPP_TIMESTAMP,
            "WPP option flag TIMESTAMP", HFILL } },
        { &hf_etl_mflag_performance_timestamp, { "Performance timestamp", "etl.message_flags.performance_timestamp", FT_BOOLEAN, 16, NULL, ETL_WPP_PERFORMANCE_TIMESTAMP,
            "WPP option flag PERFORMANCE_TIMESTAMP", HFILL } },
        { &hf_etl_mflag_systeminfo, { "Thread and process ids", "etl.message_flags.systeminfo", FT_BOOLEAN, 16, NULL, ETL_WPP_SYSTEMINFO,
            "WPP option flag SYSTEMINFO", HFILL } },
        { &hf_etl_mflag_pointer32, { "32-bit provider", "etl.message_flags.pointer32", FT_BOOLEAN, 16, NULL, ETL_WPP_POINTER32,
            "WPP option flag POINTER32", HFILL } },
        { &hf_etl_mflag_pointer64, { "64-bit provider", "etl.message_flags.pointer64", FT_BOOLEAN, 16, NULL, ETL_WPP_POINTER64,
            "WPP option flag POINTER64", HFILL } },
        { &hf_etl_sequence, { "Sequence number", "etl.sequence", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_component_id, { "Component id", "etl.component_id", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_payload_size, { "Payload size", "etl.payload_size", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_payload, { "Payload", "etl.payload", FT_BYTES, BASE_NONE, NULL, 0x0,
            "User data of the event", HFILL } },
        { &hf_etl_record_data, { "Record data", "etl.record_data", FT_BYTES, BASE_NONE, NULL, 0x0,
            "Bytes that could not be framed as a record", HFILL } },
        /* extended data items */
        { &hf_etl_ext_count, { "Extended items", "etl.ext.count", FT_UINT16, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_ext_type, { "Type", "etl.ext.type", FT_UINT16, BASE_DEC, NULL, 0x0,
            "Extended data item type", HFILL } },
        { &hf_etl_ext_size, { "Data size", "etl.ext.size", FT_UINT16, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_ext_data, { "Data", "etl.ext.data", FT_BYTES, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_ext_ts_id, { "Terminal session id", "etl.ext.ts_id", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_ext_pebs_index, { "PEBS index", "etl.ext.pebs_index", FT_UINT64, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_ext_psm_key, { "PSM key", "etl.ext.psm_key", FT_UINT64, BASE_HEX, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_ext_event_key, { "Event key", "etl.ext.event_key", FT_UINT64, BASE_HEX, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_ext_process_start_key, { "Process start key", "etl.ext.process_start_key", FT_UINT64, BASE_HEX, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_ext_qpc_delta, { "QPC delta", "etl.ext.qpc_delta", FT_UINT64, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_ext_control_guid, { "Control GUID", "etl.ext.control_guid", FT_GUID, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_ext_container_id, { "Container id", "etl.ext.container_id", FT_GUID, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_ext_pmc, { "PMC counter", "etl.ext.pmc", FT_UINT64, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_stack_match_id, { "Stack match id", "etl.stack.match_id", FT_UINT64, BASE_HEX, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_stack_count, { "Stack frames", "etl.stack.count", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_stack_address, { "Stack address", "etl.stack.address", FT_UINT64, BASE_HEX, NULL, 0x0,
            NULL, HFILL } },
        /* logfile header */
        { &hf_etl_lf_logger_name, { "Logger name", "etl.logfile.logger_name", FT_STRING, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_log_file_name, { "Log file name", "etl.logfile.log_file_name", FT_STRING, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_os_version, { "OS version", "etl.logfile.os_version", FT_STRING, BASE_NONE, NULL, 0x0,
            "major.minor.sub.subminor", HFILL } },
        { &hf_etl_lf_os_build, { "OS build (provider version)", "etl.logfile.os_build", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_processors, { "Processors", "etl.logfile.processors", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_cpu_speed, { "CPU speed (MHz)", "etl.logfile.cpu_speed", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_clock_type, { "Clock type", "etl.logfile.clock_type", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_pointer_size, { "Pointer size", "etl.logfile.pointer_size", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_timer_resolution, { "Timer resolution (100 ns)", "etl.logfile.timer_resolution", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_perf_freq, { "Performance counter frequency", "etl.logfile.perf_freq", FT_INT64, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_buffer_size, { "Buffer size", "etl.logfile.buffer_size", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_max_file_size, { "Maximum file size (MB)", "etl.logfile.max_file_size", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_log_file_mode, { "Log file mode", "etl.logfile.log_file_mode", FT_UINT32, BASE_HEX, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_buffers_written, { "Buffers written", "etl.logfile.buffers_written", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_start_buffers, { "Start buffers", "etl.logfile.start_buffers", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_events_lost, { "Events lost", "etl.logfile.events_lost", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_buffers_lost, { "Buffers lost", "etl.logfile.buffers_lost", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_start_time, { "Start time", "etl.logfile.start_time", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_end_time, { "End time", "etl.logfile.end_time", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_boot_time, { "Boot time", "etl.logfile.boot_time", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_tz_bias, { "Time zone bias (minutes)", "etl.logfile.tz_bias", FT_INT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_tz_standard_name, { "Time zone standard name", "etl.logfile.tz_standard_name", FT_STRING, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_lf_tz_daylight_name, { "Time zone daylight name", "etl.logfile.tz_daylight_name", FT_STRING, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        /* frame context (trailer) */
        { &hf_etl_position, { "Position", "etl.position", FT_UINT64, BASE_HEX, NULL, 0x0,
            "The reader's opaque position of the record", HFILL } },
        { &hf_etl_buffer_offset, { "Buffer file offset", "etl.buffer_offset", FT_UINT64, BASE_HEX, NULL, 0x0,
            "File offset of the buffer header holding the record", HFILL } },
        { &hf_etl_record_offset, { "Record offset in buffer", "etl.record_offset", FT_UINT32, BASE_HEX, NULL, 0x0,
            "Offset of the record inside its (decompressed) buffer", HFILL } },
        { &hf_etl_logger_id, { "Logger id", "etl.logger_id", FT_UINT16, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_buffer_flags, { "Buffer flags", "etl.buffer_flags", FT_UINT16, BASE_HEX, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_buffer_flags_flush_marker, { "Flush marker", "etl.buffer_flags.flush_marker", FT_BOOLEAN, 16, NULL, ETL_BF_FLUSH_MARKER,
            NULL, HFILL } },
        { &hf_etl_buffer_flags_events_lost, { "Events lost", "etl.buffer_flags.events_lost", FT_BOOLEAN, 16, NULL, ETL_BF_EVENTS_LOST,
            NULL, HFILL } },
        { &hf_etl_buffer_flags_buffer_lost, { "Buffer lost", "etl.buffer_flags.buffer_lost", FT_BOOLEAN, 16, NULL, ETL_BF_BUFFER_LOST,
            NULL, HFILL } },
        { &hf_etl_buffer_flags_rtbackup_corrupt, { "Real-time backup corrupt", "etl.buffer_flags.rtbackup_corrupt", FT_BOOLEAN, 16, NULL, ETL_BF_RTBACKUP_CORRUPT,
            NULL, HFILL } },
        { &hf_etl_buffer_flags_rtbackup, { "Real-time backup", "etl.buffer_flags.rtbackup", FT_BOOLEAN, 16, NULL, ETL_BF_RTBACKUP,
            NULL, HFILL } },
        { &hf_etl_buffer_flags_proc_index, { "Processor index", "etl.buffer_flags.proc_index", FT_BOOLEAN, 16, NULL, ETL_BF_PROC_INDEX,
            NULL, HFILL } },
        { &hf_etl_buffer_flags_compressed, { "Compressed", "etl.buffer_flags.compressed", FT_BOOLEAN, 16, NULL, ETL_BF_COMPRESSED,
            NULL, HFILL } },
        { &hf_etl_buffer_type, { "Buffer type", "etl.buffer_type", FT_UINT8, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_session_pointer_size, { "Session pointer size", "etl.session_pointer_size", FT_UINT8, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_clock_type, { "Session clock", "etl.clock_type", FT_UINT8, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_has_timestamp, { "Has converted timestamp", "etl.has_timestamp", FT_BOOLEAN, 8, NULL, ETLS_TF_HAS_TIMESTAMP,
            NULL, HFILL } },
        { &hf_etl_logfile_header, { "Logfile header record", "etl.logfile_header", FT_BOOLEAN, 8, NULL, ETLS_TF_LOGFILE_HEADER,
            NULL, HFILL } },
        { &hf_etl_damage, { "Damage", "etl.damage", FT_STRING, BASE_NONE, NULL, 0x0,
            "Text of a damage report", HFILL } },
        { &hf_etl_damage_kind, { "Kind", "etl.damage.kind", FT_UINT8, BASE_DEC, VALS(etl_note_kind_vals), 0x0,
            NULL, HFILL } },
        { &hf_etl_damage_status, { "Status", "etl.damage.status", FT_INT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_etl_damage_offset, { "Offset", "etl.damage.offset", FT_UINT64, BASE_HEX, NULL, 0x0,
            "File offset (trace damage) or record offset (record damage)", HFILL } },
    };

    static int *ett[] = {
        &ett_etl,
        &ett_etl_header,
        &ett_etl_descriptor,
        &ett_etl_flags,
        &ett_etl_message_flags,
        &ett_etl_ext,
        &ett_etl_ext_item,
        &ett_etl_logfile,
        &ett_etl_context,
        &ett_etl_buffer_flags,
        &ett_etl_damage,
        &ett_etl_damage_note,
    };

    static ei_register_info ei[] = {
        { &ei_etl_no_trailer, { "etl.expert.no_trailer", PI_MALFORMED, PI_ERROR,
            "Frame lacks the etlshark record trailer (not produced by the etlshark .etl reader)", EXPFILL } },
        { &ei_etl_unframed, { "etl.expert.unframed", PI_MALFORMED, PI_ERROR,
            "Record cannot be framed", EXPFILL } },
        { &ei_etl_record_damage, { "etl.expert.record_damage", PI_MALFORMED, PI_WARN,
            "Record damage", EXPFILL } },
        { &ei_etl_trace_damage, { "etl.expert.trace_damage", PI_MALFORMED, PI_WARN,
            "Trace damage found by the reader (reported with the next record)", EXPFILL } },
        { &ei_etl_notes_truncated, { "etl.expert.notes_truncated", PI_MALFORMED, PI_NOTE,
            "More damage reports were queued than one frame holds; the rest were dropped", EXPFILL } },
        { &ei_etl_notes_malformed, { "etl.expert.notes_malformed", PI_MALFORMED, PI_ERROR,
            "Damage notes block is malformed", EXPFILL } },
        { &ei_etl_ext_short, { "etl.expert.ext_short", PI_MALFORMED, PI_WARN,
            "Extended item too short for its type", EXPFILL } },
        { &ei_etl_logfile_bad, { "etl.expert.logfile_bad", PI_MALFORMED, PI_ERROR,
            "Logfile header cannot be parsed", EXPFILL } },
        { &ei_etl_events_lost, { "etl.expert.events_lost", PI_SEQUENCE, PI_WARN,
            "The session lost events or buffers", EXPFILL } },
        { &ei_etl_buffer_lost, { "etl.expert.buffer_lost", PI_SEQUENCE, PI_WARN,
            "This record's buffer is flagged: events or buffers were lost before it", EXPFILL } },
        { &ei_etl_no_time, { "etl.expert.no_time", PI_PROTOCOL, PI_NOTE,
            "The raw timestamp could not be converted to absolute time", EXPFILL } },
    };

    expert_module_t *expert_etl;

    /* Names from the decoder, so a kind, item type, clock or status has one spelling. */
    etl_header_type_vals = etls_build_vals(0, 0xFF, etls_header_type_name_of, "UNKNOWN");
    etl_ext_type_vals = etls_build_vals(0, 0xFF, etls_ext_type_name_of, NULL);
    etl_clock_type_vals = etls_build_vals(ETL_CLOCK_RAW, ETL_CLOCK_CPU_CYCLES, etls_clock_name_of, NULL);
    etl_status_vals = etls_build_vals(ETL_ERR_NOT_FOUND, ETL_END, etls_status_name_of, NULL);
    for (unsigned i = 0; i < G_N_ELEMENTS(hf); i++) {
        if (hf[i].p_id == &hf_etl_header_type || hf[i].p_id == &hf_etl_raw_header_type)
            hf[i].hfinfo.strings = VALS(etl_header_type_vals);
        else if (hf[i].p_id == &hf_etl_ext_type)
            hf[i].hfinfo.strings = VALS(etl_ext_type_vals);
        else if (hf[i].p_id == &hf_etl_clock_type || hf[i].p_id == &hf_etl_lf_clock_type)
            hf[i].hfinfo.strings = VALS(etl_clock_type_vals);
        else if (hf[i].p_id == &hf_etl_damage_status)
            hf[i].hfinfo.strings = VALS(etl_status_vals);
    }

    proto_etl = proto_register_protocol("ETW event (etlshark)", "ETL", "etl");
    proto_register_field_array(proto_etl, hf, G_N_ELEMENTS(hf));
    etls_full_only = g_new(const header_field_info *, G_N_ELEMENTS(hf));
    for (unsigned i = 0; i < G_N_ELEMENTS(hf); i++) {
        int id = *hf[i].p_id;

        if (id != hf_etl_event_id && id != hf_etl_pid && id != hf_etl_tid && id != hf_etl_cpu)
            etls_full_only[etls_full_only_count++] = proto_registrar_get_nth((guint)id);
    }
    proto_register_subtree_array(ett, G_N_ELEMENTS(ett));
    expert_etl = expert_register_protocol(proto_etl);
    expert_register_field_array(expert_etl, ei, G_N_ELEMENTS(ei));
    /* Provider/event names and decoded fields (etl.data.*), with their own tables. */
    etls_event_data_register(proto_etl, expert_etl);
    /* Process names and stack-walk links (after it: they use its schema registry). */
    etls_process_register(proto_etl);
    /* Packets of pktmon and netsh captures (etl.pkt.*): a prescan client after the others. */
    etls_packet_register(proto_etl, expert_etl);

    etl_handle = register_dissector("etl", dissect_etl, proto_etl);
    etls_views_register(proto_etl);
}

/* Frames on Wireshark's ETW encapsulation: etlshark's (the .etl reader's, and the same frames
 * saved in a pcapng: link type 290), told by their trailer, come here; any other ETW frame goes
 * to Wireshark's own ETW dissector. */
static int
dissect_etl_on_etw(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    etls_trailer t;

    if (!etls_read_trailer(tvb, &t) && etw_stock_handle != NULL)
        return call_dissector_with_data(etw_stock_handle, tvb, pinfo, tree, data);
    return call_dissector_with_data(etl_handle, tvb, pinfo, tree, data);
}

void
proto_reg_handoff_etl(void)
{
    /* The reader's frames are on WTAP_ENCAP_ETW, which pcapng writes (LINKTYPE_ETW), so Save
     * As pcapng, editcap and mergecap -F pcapng take them; the same binding reads them back,
     * with or without the reader plugin. */
    /* Wireshark's own ETW dissector has no name to find: take it from the table it is bound in
     * (built-in handoffs run before plugins'). */
    etw_stock_handle = dissector_get_uint_handle(find_dissector_table("wtap_encap"), WTAP_ENCAP_ETW);
    /* no protocol of its own: the frame's protocols are etl's or etw's, as the frame goes */
    dissector_add_uint("wtap_encap", WTAP_ENCAP_ETW, create_dissector_handle(dissect_etl_on_etw, -1));
    etls_packet_handoff();
}

void
plugin_register(void)
{
    static proto_plugin plug;

    plug.register_protoinfo = proto_register_etl;
    plug.register_handoff = proto_reg_handoff_etl;
    proto_register_plugin(&plug);
}

/*
 * Editor modelines  -  https://www.wireshark.org/tools/modelines.html
 *
 * Local variables:
 * c-basic-offset: 4
 * tab-width: 8
 * indent-tabs-mode: nil
 * End:
 *
 * vi: set shiftwidth=4 tabstop=8 expandtab:
 * :indentSize=4:tabSize=8:noTabs=true:
 */
