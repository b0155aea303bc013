/* etl_frame.h - the bytes of one etlshark frame: the contract between the file reader
 * (etl_wiretap.c, which writes frames) and the dissector (packet-etl.c, which reads them).
 *
 * A frame carries one ETW record exactly as it is stored in its buffer, so the bytes pane
 * shows the record at its own offsets (frame offset 0 = the record's first byte: its Size
 * or marker).  What the dissector cannot learn from the record itself (which CPU filled the
 * buffer, the buffer's flags, the session's pointer size and clock, where the record lives
 * in the file, damage found around it) follows the record:
 *
 *   +--------------------------+  offset 0
 *   | record bytes             |  record_size bytes: trace header + extended items + payload,
 *   |                          |  as etl_record.bytes / etl_record.size (no alignment padding)
 *   +--------------------------+  offset record_size
 *   | damage notes             |  notes_size bytes: note_count ETLS_NOTE entries (may be 0)
 *   +--------------------------+  offset record_size + notes_size
 *   | trailer                  |  ETLS_TRAILER_SIZE bytes, fixed layout below
 *   +--------------------------+  end of frame
 *
 * The trailer is found from the END of the frame (its last ETLS_TRAILER_SIZE bytes), so a
 * reader of the frame never needs to understand the record to locate it.  All integers are
 * little-endian.  Nothing here is a Windows structure: this layout belongs to etlshark and
 * is versioned by ETLS_TRAILER_VERSION.
 *
 * Trailer (ETLS_TRAILER_SIZE = 64 bytes):
 *
 *   off size name                 meaning
 *   --- ---- -------------------- -------------------------------------------------------------
 *     0    4 magic                ETLS_TRAILER_MAGIC: the bytes 'E' 'T' 'L' 'S'
 *     4    2 version              ETLS_TRAILER_VERSION
 *     6    2 trailer_size         ETLS_TRAILER_SIZE (lets a newer version append fields)
 *     8    4 record_size          bytes of the record at frame offset 0
 *    12    4 notes_size           bytes of the notes block that follows the record
 *    16    8 position             the reader's opaque 64-bit position of the record (what
 *                                 Wireshark stores as the frame's offset; re-reads the record)
 *    24    8 buffer_offset        file offset of the WMI buffer header holding the record
 *    32    4 record_offset        offset of the record inside its (decompressed) buffer;
 *                                 0x48 = the first record after the buffer header
 *    36    2 cpu                  processor number of the buffer (the event's CPU)
 *    38    2 logger_id            logger (session) id from the buffer header
 *    40    2 buffer_flags         WMI buffer flags (ETL_BF_*: flush marker, events lost, ...)
 *    42    1 buffer_type          WMI buffer type
 *    43    1 session_pointer_size pointer size of the logging session (4 or 8); the framer
 *                                 needs it to frame the record again from its bytes
 *    44    1 clock_type           session clock (ETL_CLOCK_*: raw, QPC, system time, CPU cycles)
 *    45    1 flags                ETLS_TF_* bits below
 *    46    2 note_count           number of entries in the notes block
 *    48    8 timestamp            record time as FILETIME (100 ns since 1601-01-01 UTC),
 *                                 signed; meaningful only with ETLS_TF_HAS_TIMESTAMP
 *    56    8 reserved             zero
 *
 * Trailer flags:
 *   ETLS_TF_HAS_TIMESTAMP  the record's raw timestamp was converted to absolute time (the
 *                          frame time and `timestamp` hold it); clear when the session clock
 *                          could not be converted, then the frame has no time.
 *   ETLS_TF_LOGFILE_HEADER the record is the trace's logfile header (TRACE_LOGFILE_HEADER
 *                          event; only the reader knows, it is "first record of the file").
 *   ETLS_TF_NOTES_TRUNCATED more damage notes were queued than ETLS_MAX_NOTES_SIZE holds;
 *                          the rest were dropped (the frame says so rather than grow).
 *
 * Notes block: note_count entries, each a 16-byte header followed by its text:
 *
 *   off size name      meaning
 *     0    1 kind      ETLS_NOTE_READER: a damage report the reader queued (etl_reader_next_
 *                      problem) since the previous frame, e.g. a skipped damaged buffer;
 *                      ETLS_NOTE_RECORD: a problem framing this record that did not stop it
 *                      (etl_record_problem)
 *     1    1 reserved  zero
 *     2    2 text_len  bytes of text (UTF-8, no terminating NUL)
 *     4    4 status    etl_status code of the report (signed)
 *     8    8 offset    ETLS_NOTE_READER: absolute file offset the report names;
 *                      ETLS_NOTE_RECORD: offset within the record
 *    16    n text      the report's message
 */
#ifndef ETLSHARK_ETL_FRAME_H
#define ETLSHARK_ETL_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define ETLS_TRAILER_MAGIC "ETLS"
#define ETLS_TRAILER_MAGIC_LEN 4
#define ETLS_TRAILER_VERSION 1
#define ETLS_TRAILER_SIZE 64

/* Trailer field offsets (from the start of the trailer). */
#define ETLS_TRL_MAGIC 0
#define ETLS_TRL_VERSION 4
#define ETLS_TRL_TRAILER_SIZE 6
#define ETLS_TRL_RECORD_SIZE 8
#define ETLS_TRL_NOTES_SIZE 12
#define ETLS_TRL_POSITION 16
#define ETLS_TRL_BUFFER_OFFSET 24
#define ETLS_TRL_RECORD_OFFSET 32
#define ETLS_TRL_CPU 36
#define ETLS_TRL_LOGGER_ID 38
#define ETLS_TRL_BUFFER_FLAGS 40
#define ETLS_TRL_BUFFER_TYPE 42
#define ETLS_TRL_SESSION_PTR_SIZE 43
#define ETLS_TRL_CLOCK_TYPE 44
#define ETLS_TRL_FLAGS 45
#define ETLS_TRL_NOTE_COUNT 46
#define ETLS_TRL_TIMESTAMP 48
#define ETLS_TRL_RESERVED 56

/* Trailer flags. */
#define ETLS_TF_HAS_TIMESTAMP 0x01u
#define ETLS_TF_LOGFILE_HEADER 0x02u
#define ETLS_TF_NOTES_TRUNCATED 0x04u

/* Notes. */
#define ETLS_NOTE_READER 1
#define ETLS_NOTE_RECORD 2
#define ETLS_NOTE_HEADER_SIZE 16
#define ETLS_NOTE_KIND 0
#define ETLS_NOTE_TEXT_LEN 2
#define ETLS_NOTE_STATUS 4
#define ETLS_NOTE_OFFSET 8
/* Bound of the notes block of one frame; a report's text is at most etl_error.message. */
#define ETLS_MAX_NOTES_SIZE 4096u

/* The capture's one interface (IDB) is described as this prefix followed by the path of the
 * trace, when the reader opened it from a regular file: the dissector (a separate plugin,
 * which Wireshark never tells the file name) reads it through
 * epan_get_interface_description and prescans the file for the schemas it carries. */
#define ETLS_IDB_TRACE_PREFIX "etlshark trace: "

/* Little-endian stores and loads used by both sides (no alignment assumptions). */
static inline void etls_put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void etls_put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void etls_put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

#endif /* ETLSHARK_ETL_FRAME_H */
