/* compat.h - the one place where etlshark absorbs Wireshark API differences.
 *
 * Both plugins include this first.  Everything that differs between the Wireshark
 * releases the project builds against (4.0, 4.2, 4.4, 4.6) is named here once, so the
 * reader and the dissector are written against a single vocabulary:
 *
 *   - ETLS_WS_VER           major*100+minor of the headers in use (400, 402, 404, 406).
 *   - etls_bool             the boolean type of wiretap callbacks: gboolean before 4.2,
 *                           bool from 4.2 on (a mismatch is an incompatible function
 *                           pointer, so it matters).
 *   - wiretap internals     struct wtap and the subtype_* callback types live in
 *                           wiretap/wtap-int.h up to 4.4 (not installed by Debian: the
 *                           build obtains it, see cmake/FetchWiresharkPrivateHeaders.cmake)
 *                           and in the installed wiretap/wtap_module.h from 4.6.
 *   - ETLS_READ_ARGS /      parameter lists of subtype_read / subtype_seek_read: 4.0-4.4
 *     ETLS_SEEK_READ_ARGS   pass a Buffer*, 4.6 keeps the data in rec->data.
 *     ETLS_REC_BUF          the Buffer* the frame bytes go into.
 *   - etls_setup_packet_rec make a wtap_rec a packet record of an encapsulation
 *                           (4.6 has wtap_setup_packet_rec; before, the fields are set).
 *   - ETLS_PLUGIN_DESCRIBE  emits plugin_describe() on 4.2+ (the loader uses it to show the
 *                           plugin type; 4.0 has no wsutil/plugins.h).
 *   - tvb_get_uint8/16/32/64 the 4.4+ names, mapped to tvb_get_guint* on older releases.
 *
 * Define ETLS_WIRETAP_MODULE before including this header to get the wiretap-internal
 * part (only the file reader needs it).
 *
 * The 4.0 branches are compiled by the normal build; the 4.4 and 4.6 ones by the ctest tests
 * plugin_compat_4_4 / plugin_compat_4_6 (tests/plugin/compat-check.sh, against Debian's
 * headers of those releases).  The 4.2 branches are not compile-checked.
 */
#ifndef ETLSHARK_COMPAT_H
#define ETLSHARK_COMPAT_H

#include <stdbool.h>
#include <stdint.h>

#include <ws_version.h>
#include <wireshark.h>

#define ETLS_WS_VER (WIRESHARK_VERSION_MAJOR * 100 + WIRESHARK_VERSION_MINOR)

#if ETLS_WS_VER < 400
#error "etlshark needs Wireshark 4.0 or later"
#endif

/* ---- the frame's interface description (epan.h) --------------------------------------- */
/* The frame's own interface: a pcapng of several traces' frames has one interface per trace.
 * Wireshark 4.2 added the pcapng section number. */
#define etls_interface_id(pinfo)                                                                   \
    ((pinfo)->rec != NULL && ((pinfo)->rec->presence_flags & WTAP_HAS_INTERFACE_ID)                \
         ? (pinfo)->rec->rec_header.packet_header.interface_id : 0u)
#if ETLS_WS_VER >= 402
#define etls_interface_description(pinfo)                                                          \
    epan_get_interface_description((pinfo)->epan, etls_interface_id(pinfo),                       \
                                   (pinfo)->rec != NULL ? (pinfo)->rec->section_number : 0u)
#else
#define etls_interface_description(pinfo) epan_get_interface_description((pinfo)->epan, etls_interface_id(pinfo))
#endif

/* ---- booleans of callback signatures ---------------------------------------------------- */
#if ETLS_WS_VER >= 402
typedef bool etls_bool;
#define ETLS_TRUE true
#define ETLS_FALSE false
#else
typedef gboolean etls_bool;
#define ETLS_TRUE TRUE
#define ETLS_FALSE FALSE
#endif


/* ---- handing a frame to a dissector table (4.6 deprecated the _new name) ---------------- */
#if ETLS_WS_VER >= 406
#define etls_dissector_try_uint dissector_try_uint_with_data
#else
#define etls_dissector_try_uint dissector_try_uint_new
#endif

/* ---- plugin_describe (4.2+) ------------------------------------------------------------- */
#if ETLS_WS_VER >= 402
#include <wsutil/plugins.h>
#define ETLS_PLUGIN_DESCRIBE(desc_flag)                                                        \
    WS_DLL_PUBLIC uint32_t plugin_describe(void);                                              \
    uint32_t plugin_describe(void) { return (desc_flag); }
#else
#define ETLS_PLUGIN_DESCRIBE(desc_flag)
#endif

/* What Wireshark looks for in a plugin: its version, the Wireshark version it was built for,
 * plugin_register (defined by the plugin) and, from 4.2, what kind of plugin it is. */
#ifndef PLUGIN_VERSION
#define PLUGIN_VERSION "0.0.0"
#endif
#define ETLS_PLUGIN_SYMBOLS(desc_flag)                                                         \
    WS_DLL_PUBLIC_DEF const char plugin_version[] = PLUGIN_VERSION;                            \
    WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;                   \
    WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;                   \
    WS_DLL_PUBLIC void plugin_register(void);                                                  \
    ETLS_PLUGIN_DESCRIBE(desc_flag)

/* ---- preference variables (4.2 made a boolean preference's variable a C99 bool) --------- */
#if ETLS_WS_VER >= 402
typedef bool etls_pref_bool;
#else
typedef gboolean etls_pref_bool;
#endif

/* ---- tvb accessor names (4.4 renamed guintN to uintN) ------------------------------------ */
#if ETLS_WS_VER < 404
#define tvb_get_uint8 tvb_get_guint8
#define tvb_get_uint16 tvb_get_guint16
#define tvb_get_uint32 tvb_get_guint32
#define tvb_get_uint64 tvb_get_guint64
#endif

/* ---- wiretap module internals (file reader only) ---------------------------------------- */
#ifdef ETLS_WIRETAP_MODULE

#if ETLS_WS_VER >= 406
#include <wiretap/wtap_module.h>
#define ETLS_READ_ARGS                                                                         \
    wtap *wth, wtap_rec *rec, int *err, char **err_info, int64_t *data_offset
#define ETLS_SEEK_READ_ARGS                                                                    \
    wtap *wth, int64_t seek_off, wtap_rec *rec, int *err, char **err_info
#define ETLS_REC_BUF (&rec->data)
#define etls_setup_packet_rec(rec, encap) wtap_setup_packet_rec((rec), (encap))
#else
/* Obtained at build time from the installed version's source; see the CMake module. */
#include <wiretap/wtap-int.h>
#define ETLS_READ_ARGS                                                                         \
    wtap *wth, wtap_rec *rec, Buffer *buf, int *err, char **err_info, int64_t *data_offset
#define ETLS_SEEK_READ_ARGS                                                                    \
    wtap *wth, int64_t seek_off, wtap_rec *rec, Buffer *buf, int *err, char **err_info
#define ETLS_REC_BUF (buf)
#define etls_setup_packet_rec(rec, encap)                                                      \
    do {                                                                                       \
        (rec)->rec_type = REC_TYPE_PACKET;                                                     \
        (rec)->rec_header.packet_header.pkt_encap = (encap);                                   \
    } while (0)
#endif

#include <wiretap/file_wrappers.h>

/* The writer (etl_wiretap_dump.c): dump_open returns int in 4.0, bool from 4.2; from 4.6 a
 * record's bytes are in rec->data instead of a separate argument. */
#if ETLS_WS_VER >= 402
typedef bool etls_dump_open_ret;
#else
typedef int etls_dump_open_ret;
#endif
#if ETLS_WS_VER >= 406
#define ETLS_DUMP_WRITE_ARGS wtap_dumper *wdh, const wtap_rec *rec, int *err, char **err_info
#define ETLS_DUMP_REC_BYTES ws_buffer_start_ptr(&rec->data)
#else
#define ETLS_DUMP_WRITE_ARGS                                                                   \
    wtap_dumper *wdh, const wtap_rec *rec, const uint8_t *pd, int *err, char **err_info
#define ETLS_DUMP_REC_BYTES pd
#endif
#include <wsutil/buffer.h>

#endif /* ETLS_WIRETAP_MODULE */

#endif /* ETLSHARK_COMPAT_H */
