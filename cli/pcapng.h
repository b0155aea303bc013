/* pcapng.h - a small pcapng writer (draft-ietf-opsawg-pcapng): one section header, interface
 * description blocks and enhanced packet blocks with the options etldump --pcapng sets.
 * Everything is written little-endian (the byte-order magic says so), blocks and options padded
 * to 32 bits as the format requires. */
#ifndef ETL_PCAPNG_H
#define ETL_PCAPNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Option codes used (section 4.2, 4.3 of the draft). */
enum {
    PCAPNG_OPT_END = 0,
    PCAPNG_OPT_COMMENT = 1,
    PCAPNG_SHB_USERAPPL = 4,
    PCAPNG_IF_NAME = 2,
    PCAPNG_IF_DESCRIPTION = 3,
    PCAPNG_IF_TSRESOL = 9,
    PCAPNG_EPB_FLAGS = 2,
    PCAPNG_EPB_PACKETID = 5,
    PCAPNG_EPB_VERDICT = 7
};
/* epb_flags bits 0-1: direction. */
enum { PCAPNG_DIR_UNKNOWN = 0, PCAPNG_DIR_INBOUND = 1, PCAPNG_DIR_OUTBOUND = 2 };
/* epb_verdict types: 0 = hardware (octets of the capturing system's own verdict). */
enum { PCAPNG_VERDICT_HARDWARE = 0 };

/* Largest option value written (longer comments and names are cut). */
#define PCAPNG_MAX_OPTION 1024u

typedef struct pcapng_writer {
    FILE *f;
    bool failed;
    uint64_t bytes;
} pcapng_writer;

/* One packet's options; zero/NULL fields are left out. */
typedef struct pcapng_packet_opts {
    unsigned direction;          /* PCAPNG_DIR_* */
    bool has_packet_id;
    uint64_t packet_id;
    bool has_verdict;
    uint8_t verdict[8];          /* the verdict's octets after its type byte */
    size_t verdict_len;
    const char *comment;
} pcapng_packet_opts;

void pcapng_init(pcapng_writer *w, FILE *f);
/* The section header, with shb_userappl when given. */
void pcapng_section(pcapng_writer *w, const char *user_appl);
/* An interface; interfaces are numbered 0, 1, ... in the order written.  tsresol_exp: the
 * timestamp unit as a power of ten (6 = microseconds, the format's default, not written). */
void pcapng_interface(pcapng_writer *w, uint16_t link_type, uint32_t snaplen, const char *name,
                      const char *description, unsigned tsresol_exp);
/* An enhanced packet block; `ts` in the interface's unit. */
void pcapng_packet(pcapng_writer *w, uint32_t interface, uint64_t ts, const uint8_t *data, uint32_t caplen,
                   uint32_t origlen, const pcapng_packet_opts *o);
/* False when a write failed (then nothing more is written). */
bool pcapng_ok(const pcapng_writer *w);

#endif
