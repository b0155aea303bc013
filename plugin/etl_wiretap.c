/* etl_wiretap.c - Wireshark file reader (wiretap plugin) for Windows ETW trace files (.etl).
 *
 * etlshark - SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The reader is thin glue: the etlshark decoder library (decoder/include/etl.h) reads the file and
 * delivers records; this file turns each record into one Wireshark frame whose bytes are the
 * record followed by the context trailer described in etl_frame.h.
 *
 *   - recognised by content (etl_looks_like_etl on the first bytes), registered as a magic
 *     reader that runs before the heuristic readers;
 *   - the decoder reads through an etl_io whose read_at seeks and reads wth->fh (and
 *     wth->random_fh for seek_read); input without random access or known size (standard
 *     input, compressed files) is read into memory first, within ETLS_MAX_MEMORY_TRACE;
 *   - the frame's offset is the record's file offset (etls_frame_offset), so Wireshark's
 *     length and offsets are those of the file; a table maps it back to the decoder's opaque
 *     record position, with which seek_read re-reads the record (etl_reader_read_at) and
 *     produces the same bytes;
 *   - damage reports queued by the decoder are attached to the next frame (kept per position
 *     so a re-read frame carries them too); reports left after the last record end the read
 *     with WTAP_ERR_BAD_FILE and their text, after every readable record was delivered.
 */

#define ETLS_WIRETAP_MODULE
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "etl.h"
#include "etl_format.h"
#include "etl_frame.h"
#include "etl_capinfo.h"
#include "etl_packet_len.h"
#include "etl_wiretap_dump.h"

ETLS_PLUGIN_SYMBOLS(WS_PLUGIN_DESC_FILE_TYPE)

/* Names registered with wiretap.  Frames are on Wireshark's own ETW encapsulation
 * (WTAP_ENCAP_ETW, pcapng link type 290), so every writer that knows it - pcapng: Save As,
 * editcap, mergecap - takes them; the dissector tells them from other ETW frames by their
 * trailer (etl_frame.h). */
#define ETLS_FILE_TYPE_DESC "Windows ETW trace (.etl)"
#define ETLS_FILE_TYPE_NAME "etl"
#define ETLS_OPEN_INFO_NAME "Windows ETW trace (etlshark)"

/* Bytes read to recognise a file: a buffer header and the start of the first record. */
#define ETLS_MAGIC_PROBE_SIZE (ETL_BUFFER_HEADER_SIZE + 0x20u)
/* Longest single note text (an etl_error message is shorter). */
#define ETLS_MAX_NOTE_TEXT 255u
/* Largest trace held in memory when the input has no random access or no known size
 * (standard input, gzip/zstd/lz4-compressed files). */
#define ETLS_MAX_MEMORY_TRACE (1024u * 1024u * 1024u)
/* Room kept in each frame's notes block for the record's own framing problem. */
#define ETLS_RECORD_NOTE_RESERVE (ETLS_NOTE_HEADER_SIZE + ETLS_MAX_NOTE_TEXT)

static int etls_file_type_subtype = -1;
static int etls_encap = -1;

/* The etl_io context: one per wiretap file handle. */
typedef struct etls_io_ctx {
    FILE_T fh;
    int fd;         /* >= 0: read with pread on this descriptor instead of fh (etls_open_own_fd) */
    int err;        /* wiretap error of the last failed read */
    char *err_info; /* its detail, owned here */
} etls_io_ctx;

/* Damage notes the decoder queued before one record, already in frame (etl_frame.h) form. */
typedef struct etls_notes {
    uint16_t count;
    bool truncated;
    GByteArray *bytes;
} etls_notes;

/* Per-file state, wth->priv (freed by wtap_close; members freed in etls_close). */
typedef struct etls_file {
    etl_reader *reader;
    etls_io_ctx seq; /* wth->fh */
    etls_io_ctx rnd; /* wth->random_fh */
    uint8_t session_pointer_size;
    uint8_t clock_type;
    GHashTable *notes_by_position; /* gint64 position -> etls_notes, only frames with notes */
    GHashTable *position_by_offset; /* etls_offset_entry (frame offset -> record position) */
    bool no_random_access;         /* no wth->random_fh: seek_read never comes (etls_frame_offset) */
    uint64_t file_size;
    uint64_t offsets_past_end;     /* frame offsets handed out past the file's end */
    GByteArray *frame;             /* scratch: the frame being built */
    GByteArray *memory;            /* the whole trace, when read from a pipe or compressed file */
} etls_file;

/* ---- I/O: the decoder reads the file through wiretap's FILE_T ----------------------------- */

static int
etls_read_at(void *vctx, uint64_t offset, void *buf, size_t len, size_t *got)
{
    etls_io_ctx *ctx = (etls_io_ctx *)vctx;
    size_t done = 0;
    int err = 0;

    *got = 0;
    if (ctx->fd >= 0) {
        while (done < len) {
            ssize_t n;

            if (offset > (uint64_t)INT64_MAX - done) {
                ctx->err = WTAP_ERR_CANT_SEEK;
                return -1;
            }
            n = pread(ctx->fd, (uint8_t *)buf + done, len - done, (off_t)(offset + done));
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                ctx->err = errno;
                return -1;
            }
            if (n == 0)
                break;
            done += (size_t)n;
        }
        *got = done;
        return 0;
    }
    if (ctx->fh == NULL) {
        ctx->err = WTAP_ERR_INTERNAL;
        return -1;
    }
    if (offset > (uint64_t)INT64_MAX || file_seek(ctx->fh, (int64_t)offset, SEEK_SET, &err) == -1) {
        ctx->err = err != 0 ? err : WTAP_ERR_CANT_SEEK;
        return -1;
    }
    while (done < len) {
        size_t want = len - done;
        int n;

        if (want > (1u << 30))
            want = 1u << 30;
        n = file_read((uint8_t *)buf + done, (unsigned int)want, ctx->fh);
        if (n < 0) {
            g_free(ctx->err_info);
            ctx->err_info = NULL;
            ctx->err = file_error(ctx->fh, &ctx->err_info);
            if (ctx->err == 0)
                ctx->err = WTAP_ERR_SHORT_READ;
            return -1;
        }
        if (n == 0)
            break;
        done += (size_t)n;
    }
    *got = done;
    return 0;
}

static const etl_io etls_io_ops = { etls_read_at };

/* Report a decoder failure as a wiretap error: I/O failures keep the FILE_T's error. */
static void
etls_set_error(etls_io_ctx *ctx, etl_status st, const etl_error *e, int *err, char **err_info)
{
    if (st == ETL_ERR_IO && ctx != NULL && ctx->err != 0) {
        *err = ctx->err;
        *err_info = ctx->err_info;
        ctx->err_info = NULL;
        ctx->err = 0;
        return;
    }
    *err = (st == ETL_ERR_NOMEM || st == ETL_ERR_ARG) ? WTAP_ERR_INTERNAL : WTAP_ERR_BAD_FILE;
    *err_info = g_strdup_printf("etl: %s at file offset 0x%" PRIx64 ": %s", etl_status_name(st),
                                e->offset, e->message);
}

/* ---- frames ------------------------------------------------------------------------------- */

/* Longest prefix of `text` of at most `max` bytes that does not split a UTF-8 sequence. */
static size_t
etls_text_len(const char *text, size_t max)
{
    size_t n = strlen(text);

    if (n <= max)
        return n;
    n = max;
    while (n > 0 && ((uint8_t)text[n] & 0xC0u) == 0x80u)
        n--;
    return n;
}

static void
etls_append_note(GByteArray *out, uint8_t kind, int32_t status, uint64_t offset, const char *text)
{
    uint8_t hdr[ETLS_NOTE_HEADER_SIZE];
    size_t len = etls_text_len(text != NULL ? text : "", ETLS_MAX_NOTE_TEXT);

    memset(hdr, 0, sizeof hdr);
    hdr[ETLS_NOTE_KIND] = kind;
    etls_put_le16(hdr + ETLS_NOTE_TEXT_LEN, (uint16_t)len);
    etls_put_le32(hdr + ETLS_NOTE_STATUS, (uint32_t)status);
    etls_put_le64(hdr + ETLS_NOTE_OFFSET, offset);
    g_byte_array_append(out, hdr, sizeof hdr);
    if (len > 0)
        g_byte_array_append(out, (const guint8 *)text, (guint)len);
}

static void
etls_notes_free(gpointer p)
{
    etls_notes *n = (etls_notes *)p;

    if (n != NULL) {
        g_byte_array_free(n->bytes, TRUE);
        g_free(n);
    }
}

/* Move every queued damage report of the decoder into a notes block (NULL when none). */
static etls_notes *
etls_drain_problems(etl_reader *reader)
{
    etls_notes *notes = NULL;
    etl_error e;

    while (etl_reader_next_problem(reader, &e)) {
        size_t need;

        if (notes == NULL) {
            notes = g_new0(etls_notes, 1);
            notes->bytes = g_byte_array_new();
        }
        need = ETLS_NOTE_HEADER_SIZE + etls_text_len(e.message, ETLS_MAX_NOTE_TEXT);
        if (notes->bytes->len + need > ETLS_MAX_NOTES_SIZE - ETLS_RECORD_NOTE_RESERVE ||
            notes->count == UINT16_MAX) {
            notes->truncated = true;
            continue;
        }
        etls_append_note(notes->bytes, ETLS_NOTE_READER, (int32_t)e.code, e.offset, e.message);
        notes->count++;
    }
    return notes;
}

/* Build the frame of one record (record bytes, notes, trailer) into the wiretap record. */
static etls_bool
etls_fill_rec(wtap *wth, etls_file *f, const etl_record *er, const etls_notes *reader_notes,
              wtap_rec *rec, Buffer *buf, int *err, char **err_info)
{
    uint8_t trl[ETLS_TRAILER_SIZE];
    uint16_t note_count = 0;
    uint8_t tflags = 0;
    uint32_t notes_start;
    uint32_t notes_size;
    GByteArray *frame = f->frame;
    etl_error problem;
    uint32_t problem_at;

    g_byte_array_set_size(frame, 0);
    g_byte_array_append(frame, er->bytes, er->size);

    /* Notes: the record's own framing problem first, then the decoder's queued reports. */
    notes_start = frame->len;
    if (etl_record_problem(er, &problem, &problem_at)) {
        /* the offset within the record: the frame's bytes are the record's */
        etls_append_note(frame, ETLS_NOTE_RECORD, (int32_t)problem.code, problem_at, problem.message);
        note_count++;
    }
    if (reader_notes != NULL) {
        g_byte_array_append(frame, reader_notes->bytes->data, reader_notes->bytes->len);
        note_count = (uint16_t)(note_count + reader_notes->count);
        if (reader_notes->truncated)
            tflags |= ETLS_TF_NOTES_TRUNCATED;
    }
    notes_size = frame->len - notes_start;

    if (er->has_timestamp)
        tflags |= ETLS_TF_HAS_TIMESTAMP;
    if (er->is_logfile_header)
        tflags |= ETLS_TF_LOGFILE_HEADER;

    memset(trl, 0, sizeof trl);
    memcpy(trl + ETLS_TRL_MAGIC, ETLS_TRAILER_MAGIC, ETLS_TRAILER_MAGIC_LEN);
    etls_put_le16(trl + ETLS_TRL_VERSION, ETLS_TRAILER_VERSION);
    etls_put_le16(trl + ETLS_TRL_TRAILER_SIZE, ETLS_TRAILER_SIZE);
    etls_put_le32(trl + ETLS_TRL_RECORD_SIZE, er->size);
    etls_put_le32(trl + ETLS_TRL_NOTES_SIZE, notes_size);
    etls_put_le64(trl + ETLS_TRL_POSITION, er->position);
    etls_put_le64(trl + ETLS_TRL_BUFFER_OFFSET, er->buffer_offset);
    etls_put_le32(trl + ETLS_TRL_RECORD_OFFSET, er->record_offset);
    etls_put_le16(trl + ETLS_TRL_CPU, er->cpu);
    etls_put_le16(trl + ETLS_TRL_LOGGER_ID, er->logger_id);
    etls_put_le16(trl + ETLS_TRL_BUFFER_FLAGS, er->buffer_flags);
    trl[ETLS_TRL_BUFFER_TYPE] = er->buffer_type;
    trl[ETLS_TRL_SESSION_PTR_SIZE] = f->session_pointer_size;
    trl[ETLS_TRL_CLOCK_TYPE] = f->clock_type;
    trl[ETLS_TRL_FLAGS] = tflags;
    etls_put_le16(trl + ETLS_TRL_NOTE_COUNT, note_count);
    etls_put_le64(trl + ETLS_TRL_TIMESTAMP, er->has_timestamp ? (uint64_t)er->timestamp : 0);
    g_byte_array_append(frame, trl, sizeof trl);

    etls_setup_packet_rec(rec, wth->file_encap);
    rec->block = wtap_block_create(WTAP_BLOCK_PACKET);
    rec->presence_flags = WTAP_HAS_CAP_LEN;
    rec->tsprec = WTAP_TSPREC_NSEC;
    if (er->has_timestamp) {
        int64_t secs;
        int32_t nsecs;

        etl_filetime_to_unix(er->timestamp, &secs, &nsecs);
        rec->presence_flags |= WTAP_HAS_TS;
        rec->ts.secs = (time_t)secs;
        rec->ts.nsecs = (int)nsecs;
    } else {
        rec->ts.secs = 0;
        rec->ts.nsecs = 0;
    }
    rec->rec_header.packet_header.caplen = frame->len;
    /* a truncated packet event reads as a snaplen cut (etl_packet_len.h) */
    rec->rec_header.packet_header.len = frame->len + etls_packet_missing_bytes(er);

    if (frame->len > WTAP_MAX_PACKET_SIZE_STANDARD) {
        *err = WTAP_ERR_PACKET_TOO_LARGE;
        *err_info = g_strdup_printf("etl: record at position 0x%" PRIx64 " makes a %u-byte frame",
                                    er->position, frame->len);
        return ETLS_FALSE;
    }

    ws_buffer_clean(buf);
    ws_buffer_append(buf, frame->data, frame->len);
    return ETLS_TRUE;
}

/* ---- frame offsets ------------------------------------------------------------------------ */

/* A frame offset and the record position it stands for (the key is the first member, so the
 * entry is its own g_int64_hash key). */
typedef struct etls_offset_entry {
    gint64 offset;
    uint64_t position;
} etls_offset_entry;

/* The offset Wireshark gets for a record: where its bytes are in the file.  A record of a
 * plain buffer is at buffer + record offset.  A compressed buffer's records have no file
 * offset of their own (they are in the compressed stream): they get the buffer's offset plus
 * their index in eighths of the decompressed buffer, which stays within the buffer for any
 * sensible compression; an offset already taken (a record of another buffer has it) is replaced
 * by one past the file's end, so every frame's offset is unique. */
static int64_t
etls_frame_offset(etls_file *f, const etl_record *er)
{
    etls_offset_entry *e, *old;
    gint64 off;

    if ((er->buffer_flags & ETL_BF_COMPRESSED) != 0)
        off = (gint64)(er->buffer_offset + (er->record_offset >> 3));
    else
        off = (gint64)(er->buffer_offset + er->record_offset);
    /* Without random access (a one-pass tshark, capinfos, editcap) no frame is read again by
     * its offset: keeping an entry per frame would only cost memory (72 bytes a frame, 4.7 GB
     * of a 66 M-frame trace).  A compressed buffer's rare clash of offsets then stays a clash,
     * which nothing reads. */
    if (f->no_random_access)
        return off;
    old = (etls_offset_entry *)g_hash_table_lookup(f->position_by_offset, &off);
    if (old != NULL && old->position == er->position)
        return old->offset;
    if (old != NULL)
        off = (gint64)(f->file_size + f->offsets_past_end++);
    e = g_new(etls_offset_entry, 1);
    e->offset = off;
    e->position = er->position;
    g_hash_table_add(f->position_by_offset, e);
    return off;
}

/* ---- wiretap callbacks -------------------------------------------------------------------- */

/* The next record (position NULL) or the record at *position into `er`: ETL_OK, ETL_END after
 * the last one (sequential reads only), or a failure already set in *err and *err_info. */
static etl_status
etls_get_record(etls_file *f, const uint64_t *position, etl_record *er, int *err, char **err_info)
{
    etl_error e;
    etl_status st;

    memset(&e, 0, sizeof e);
    if (position == NULL)
        st = etl_reader_next(f->reader, er, &e);
    else if ((st = etl_reader_read_at(f->reader, *position, er, &e)) == ETL_END)
        st = ETL_ERR_NOT_FOUND;
    if (st != ETL_OK && st != ETL_END)
        etls_set_error(position != NULL && f->rnd.fh != NULL ? &f->rnd : &f->seq, st, &e, err, err_info);
    return st;
}

/* The end of the sequential read.  Damage found after the last record has no frame to ride on:
 * it is reported now, every readable record having been delivered. */
static etls_bool
etls_read_end(etls_file *f, int *err, char **err_info)
{
    etls_notes *notes = etls_drain_problems(f->reader);
    GString *msg;
    uint32_t off = 0;

    *err = 0;
    if (notes == NULL)
        return ETLS_FALSE;
    msg = g_string_new("etl: damage after the last readable record:");
    while (off + ETLS_NOTE_HEADER_SIZE <= notes->bytes->len) {
        const uint8_t *p = notes->bytes->data + off;
        uint16_t tlen = (uint16_t)(p[ETLS_NOTE_TEXT_LEN] | (p[ETLS_NOTE_TEXT_LEN + 1] << 8));

        g_string_append_printf(msg, " [%.*s]", (int)tlen, (const char *)(p + ETLS_NOTE_HEADER_SIZE));
        off += ETLS_NOTE_HEADER_SIZE + tlen;
    }
    if (notes->truncated)
        g_string_append(msg, " [more reports dropped]");
    etls_notes_free(notes);
    *err = WTAP_ERR_BAD_FILE;
    *err_info = g_string_free(msg, FALSE);
    return ETLS_FALSE;
}

static etls_bool
etls_read(ETLS_READ_ARGS)
{
    etls_file *f = (etls_file *)wth->priv;
    etl_record er;
    etls_notes *notes;
    etl_status st = etls_get_record(f, NULL, &er, err, err_info);

    if (st == ETL_END)
        return etls_read_end(f, err, err_info);
    if (st != ETL_OK)
        return ETLS_FALSE;
    notes = etls_drain_problems(f->reader);
    *data_offset = etls_frame_offset(f, &er);
    if (!etls_fill_rec(wth, f, &er, notes, rec, ETLS_REC_BUF, err, err_info)) {
        etls_notes_free(notes);
        return ETLS_FALSE;
    }
    if (notes != NULL) {
        gint64 *key = g_new(gint64, 1);

        *key = (gint64)er.position;
        g_hash_table_replace(f->notes_by_position, key, notes);
    }
    return ETLS_TRUE;
}

static etls_bool
etls_seek_read(ETLS_SEEK_READ_ARGS)
{
    etls_file *f = (etls_file *)wth->priv;
    etl_record er;
    gint64 off = seek_off;
    const etls_offset_entry *oe =
        (const etls_offset_entry *)g_hash_table_lookup(f->position_by_offset, &off);
    gint64 key;

    if (oe == NULL) {
        *err = WTAP_ERR_BAD_FILE;
        *err_info = g_strdup_printf("etl: no record was read at offset %" PRId64, seek_off);
        return ETLS_FALSE;
    }
    key = (gint64)oe->position;
    if (etls_get_record(f, &oe->position, &er, err, err_info) != ETL_OK)
        return ETLS_FALSE;
    return etls_fill_rec(wth, f, &er,
                         (const etls_notes *)g_hash_table_lookup(f->notes_by_position, &key), rec,
                         ETLS_REC_BUF, err, err_info);
}

static void
etls_sequential_close(wtap *wth)
{
    etls_file *f = (etls_file *)wth->priv;

    /* wiretap closes wth->fh after this; the decoder must not read through it again. */
    if (f != NULL) {
        f->seq.fh = NULL;
        if (f->seq.fd >= 0)
            close(f->seq.fd);
        f->seq.fd = -1;
    }
}

/* Free what a file's state owns (not the state itself). */
static void
etls_file_release(etls_file *f)
{
    if (f->reader != NULL)
        etl_reader_close(f->reader);
    f->reader = NULL;
    if (f->notes_by_position != NULL)
        g_hash_table_destroy(f->notes_by_position);
    f->notes_by_position = NULL;
    if (f->position_by_offset != NULL)
        g_hash_table_destroy(f->position_by_offset);
    f->position_by_offset = NULL;
    if (f->frame != NULL)
        g_byte_array_free(f->frame, TRUE);
    f->frame = NULL;
    if (f->seq.fd >= 0)
        close(f->seq.fd);
    f->seq.fd = -1;
    g_free(f->seq.err_info);
    g_free(f->rnd.err_info);
    f->seq.err_info = f->rnd.err_info = NULL;
    if (f->memory != NULL)
        g_byte_array_free(f->memory, TRUE);
    f->memory = NULL;
}

static void
etls_close(wtap *wth)
{
    /* wth->priv itself is freed by wtap_close */
    if (wth->priv != NULL)
        etls_file_release((etls_file *)wth->priv);
}

/* Read the rest of a sequential-only input into memory, after the `head` bytes already read.
 * Bounded by ETLS_MAX_MEMORY_TRACE. */
static bool
etls_slurp(FILE_T fh, const uint8_t *head, size_t head_len, GByteArray **out, int *err,
           char **err_info)
{
    GByteArray *all = g_byte_array_sized_new(1u << 20);
    uint8_t *chunk = g_malloc(1u << 20);
    bool ok = true;

    g_byte_array_append(all, head, (guint)head_len);
    for (;;) {
        int n = file_read(chunk, 1u << 20, fh);

        if (n < 0) {
            *err = file_error(fh, err_info);
            if (*err == 0)
                *err = WTAP_ERR_SHORT_READ;
            ok = false;
            break;
        }
        if (n == 0)
            break;
        if ((uint64_t)all->len + (uint64_t)n > ETLS_MAX_MEMORY_TRACE) {
            *err = WTAP_ERR_UNSUPPORTED;
            *err_info = g_strdup_printf("etl: a trace read from a pipe or a compressed file is held "
                                        "in memory, and this one exceeds %u MiB; decompress it "
                                        "into a regular file first",
                                        (unsigned)(ETLS_MAX_MEMORY_TRACE >> 20));
            ok = false;
            break;
        }
        g_byte_array_append(all, chunk, (guint)n);
    }
    g_free(chunk);
    if (!ok) {
        g_byte_array_free(all, TRUE);
        return false;
    }
    *out = all;
    return true;
}

static bool
etls_has_etl_extension(const char *path)
{
    size_t n = strlen(path);

    return n >= 4 && g_ascii_strcasecmp(path + n - 4, ".etl") == 0;
}

/* A descriptor of our own on the file, for a sequential read without random access.
 *
 * Why: wiretap gives wth->fh fast-seek data only when the file is opened for random access
 * (wth->random_fh: Wireshark, tshark -2).  Without it (a one-pass tshark, capinfos) every
 * backward file_seek on an uncompressed file rewinds to the start and reads forward to the
 * offset, and the timestamp merge over per-CPU buffers seeks backwards all the time: a 65 MB
 * trace was read 30 times over, a 4.29 GB one without end in sight.  pread on a descriptor of
 * our own costs nothing per seek.  Used only when it is the same file: same size and same first
 * bytes as wiretap's handle; -1 (read through wth->fh as before) otherwise. */
static int
etls_open_own_fd(const char *path, int64_t size, const uint8_t *probe, size_t probe_len)
{
    uint8_t head[ETLS_MAGIC_PROBE_SIZE];
    off_t end;
    int fd;

    if (path == NULL || probe_len > sizeof head)
        return -1;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    end = lseek(fd, 0, SEEK_END);
    if (end != (off_t)size || pread(fd, head, probe_len, 0) != (ssize_t)probe_len ||
        memcmp(head, probe, probe_len) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static wtap_open_return_val
etls_open(wtap *wth, int *err, char **err_info)
{
    uint8_t probe[ETLS_MAGIC_PROBE_SIZE];
    etls_file *f;
    etl_error e;
    etl_status st;
    int64_t size;
    const etl_logfile *lf;

    /* An empty file is claimed by no reader in particular (Wireshark's ERF reader accepts it
     * as a capture without records); when it is named .etl, say plainly what is wrong. */
    if (!wth->ispipe && wth->pathname != NULL && etls_has_etl_extension(wth->pathname)) {
        size = wtap_file_size(wth, err);
        if (size == 0) {
            *err = WTAP_ERR_BAD_FILE;
            *err_info = g_strdup("etl: the file is empty (0 bytes); an .etl trace starts with a "
                                 "WMI buffer header");
            return WTAP_OPEN_ERROR;
        }
    }

    /* A file too short to hold a buffer header is not ours; only an I/O error is an error. */
    if (!wtap_read_bytes(wth->fh, probe, sizeof probe, err, err_info)) {
        if (*err != WTAP_ERR_SHORT_READ)
            return WTAP_OPEN_ERROR;
        return WTAP_OPEN_NOT_MINE;
    }
    if (!etl_looks_like_etl(probe, sizeof probe))
        return WTAP_OPEN_NOT_MINE;

    /* From here on the file is an .etl; failures are errors with a reason. */
    f = g_new0(etls_file, 1);
    f->seq.fh = wth->fh;
    f->seq.fd = f->rnd.fd = -1;
    memset(&e, 0, sizeof e);
    if (wth->ispipe || file_iscompressed(wth->fh)) {
        /* No random access (standard input) or no known size (gzip/zstd/lz4 read through
         * wiretap's decompressing FILE_T): hold the whole trace in memory, within a bound. */
        if (!etls_slurp(wth->fh, probe, sizeof probe, &f->memory, err, err_info)) {
            etls_file_release(f);
            g_free(f);
            return WTAP_OPEN_ERROR;
        }
        f->file_size = f->memory->len;
        st = etl_reader_open_memory(f->memory->data, f->memory->len, NULL, &f->reader, &e);
    } else {
        size = wtap_file_size(wth, err);
        if (size < 0) {
            g_free(f);
            return WTAP_OPEN_ERROR;
        }
        f->file_size = (uint64_t)size;
        if (wth->random_fh == NULL)
            f->seq.fd = etls_open_own_fd(wth->pathname, size, probe, sizeof probe);
        st = etl_reader_open_io(&etls_io_ops, &f->seq, (uint64_t)size, NULL, &f->reader, &e);
    }
    if (st != ETL_OK) {
        f->reader = NULL;
        if (st == ETL_ERR_NOT_ETL) {
            etls_file_release(f);
            g_free(f);
            return WTAP_OPEN_NOT_MINE;
        }
        etls_set_error(&f->seq, st, &e, err, err_info);
        etls_file_release(f);
        g_free(f);
        return WTAP_OPEN_ERROR;
    }
    f->no_random_access = wth->random_fh == NULL;
    if (wth->random_fh != NULL && f->memory == NULL) {
        f->rnd.fh = wth->random_fh;
        etl_reader_set_random_io(f->reader, &etls_io_ops, &f->rnd);
    }

    lf = etl_reader_logfile(f->reader);
    /* the reader's own rule, so the dissector re-frames records exactly as the reader did */
    f->session_pointer_size = etl_reader_session_pointer_size(f->reader);
    f->clock_type = ETL_CLOCK_QPC;
    if (lf != NULL && lf->present)
        f->clock_type = (uint8_t)lf->clock_type;
    f->notes_by_position = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                                 etls_notes_free);
    f->position_by_offset = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    f->frame = g_byte_array_new();

    wth->priv = f;
    wth->subtype_read = etls_read;
    wth->subtype_seek_read = etls_seek_read;
    wth->subtype_sequential_close = etls_sequential_close;
    wth->subtype_close = etls_close;
    wth->file_type_subtype = etls_file_type_subtype;
    wth->file_encap = etls_encap;
    wth->file_tsprec = WTAP_TSPREC_NSEC; /* ETW time has 100 ns resolution */
    wth->snapshot_length = 0;
    wtap_add_generated_idb(wth);
    if (!wth->ispipe && f->memory == NULL && wth->pathname != NULL &&
        wth->interface_data != NULL && wth->interface_data->len > 0) {
        /* Name the trace for the dissector (etl_frame.h: ETLS_IDB_TRACE_PREFIX), which reads
         * it again to collect the schemas it carries before the first frame decodes. */
        wtap_block_t idb = g_array_index(wth->interface_data, wtap_block_t,
                                         wth->interface_data->len - 1);
        char *desc = g_strconcat(ETLS_IDB_TRACE_PREFIX, wth->pathname, NULL);

        wtap_block_add_string_option(idb, OPT_IDB_DESCRIPTION, desc, strlen(desc));
        g_free(desc);
    }
    etls_capture_properties(wth, lf);

    return WTAP_OPEN_MINE;
}

/* ---- registration ------------------------------------------------------------------------- */

/* The interface's description names the trace (ETLS_IDB_TRACE_PREFIX): the writer
 * (etl_wiretap_dump.c) is given the interfaces only when the file type says it keeps them. */
static const struct supported_option_type etls_idb_options_supported[] = {
    { OPT_IDB_DESCRIPTION, ONE_OPTION_SUPPORTED }
};

/* The section's options (etl_capinfo.c: OS, hardware, logger, the comment with time zone,
 * clock and losses) are the trace's logfile facts: a written .etl holds them in its own logfile
 * header and reading it gives them again, so the writer "keeps" them without writing them.
 * Said so, Save As and Export do not ask to discard the comment - a question whose answer
 * crashes Wireshark 4.0 at the next Export (wtap_dump_params_init copying the section). */
static const struct supported_option_type etls_shb_options_supported[] = {
    { OPT_COMMENT, MULTIPLE_OPTIONS_SUPPORTED },
    { OPT_SHB_HARDWARE, ONE_OPTION_SUPPORTED },
    { OPT_SHB_OS, ONE_OPTION_SUPPORTED },
    { OPT_SHB_USERAPPL, ONE_OPTION_SUPPORTED }
};

static const struct supported_block_type etls_blocks_supported[] = {
    { WTAP_BLOCK_SECTION, ONE_BLOCK_SUPPORTED, OPTION_TYPES_SUPPORTED(etls_shb_options_supported) },
    /* One packet block per record; no options. */
    { WTAP_BLOCK_PACKET, MULTIPLE_BLOCKS_SUPPORTED, NO_OPTIONS_SUPPORTED },
    { WTAP_BLOCK_IF_ID_AND_INFO, MULTIPLE_BLOCKS_SUPPORTED, OPTION_TYPES_SUPPORTED(etls_idb_options_supported) }
};

static const struct file_type_subtype_info etls_file_type_info = {
    ETLS_FILE_TYPE_DESC,   /* description */
    ETLS_FILE_TYPE_NAME,   /* short name */
    "etl",                 /* default extension */
    NULL,                  /* additional extensions */
    ETLS_TRUE,             /* writing must seek: the HEADER buffer is rewritten at the end */
    BLOCKS_SUPPORTED(etls_blocks_supported),
    etls_dump_can_write_encap, /* the writer: etl_wiretap_dump.c */
    etls_dump_open,
    NULL                   /* wslua_info */
};

static void
etls_register_wtap_module(void)
{
    struct open_info oi = {
        ETLS_OPEN_INFO_NAME,
        OPEN_INFO_MAGIC,
        etls_open,
        "etl",
        NULL,
        NULL
    };

    /* first_routine: magic readers registered "first" are tried before every built-in
     * heuristic reader, which would otherwise claim an .etl (e.g. as MPEG). */
    wtap_register_open_info(&oi, ETLS_TRUE);
    etls_file_type_subtype = wtap_register_file_type_subtype(&etls_file_type_info);
    etls_encap = WTAP_ENCAP_ETW;
    etls_dump_set_encap(etls_encap);
}

void
plugin_register(void)
{
    static wtap_plugin plug;

    plug.register_wtap_module = etls_register_wtap_module;
    wtap_register_plugin(&plug);
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
