/* libFuzzer target for the packet layer (etl_packet.h): the input is a sequence of pktmon and
 * ndiscap events in a form of its own (below), each framed as a record and handed in order to
 * etl_packets_observe and etl_packets_decode, so fragments join across records and metadata
 * attaches to the next packet.  A crash, sanitizer report, leak, or a frame that breaks the
 * API's promises (bytes outside the record or the context's buffer, a captured length over the
 * limit, an original length below it, a problem without a message) is a bug.
 *
 * Input: records, each  u8 selector (bit 0: ndiscap, else pktmon; bit 1: 32-bit pointers),
 * u16 event id, u64 keyword, u16 payload length, payload.  packet_seeds.py writes the events
 * of real and generated traces in this form. */
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "etl_packet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { IN_SELECTOR = 0, IN_EVENT_ID = 1, IN_KEYWORD = 3, IN_LENGTH = 11, IN_HEAD = 13 };
#define MAX_RECORDS 4096u

static uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint64_t ld64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    etl_packets *pk = etl_packets_new();
    if (!pk)
        abort();
    size_t off = 0;
    for (unsigned n = 0; n < MAX_RECORDS && size - off >= IN_HEAD; n++) {
        const uint8_t *h = data + off;
        size_t len = ld16(h + IN_LENGTH);
        if (len > size - off - IN_HEAD)
            len = size - off - IN_HEAD;
        /* the payload in a buffer of its own size, so a read past it is a sanitizer report */
        uint8_t *bytes = malloc(len ? len : 1);
        if (!bytes)
            abort();
        memcpy(bytes, h + IN_HEAD, len);
        etl_record rec;
        memset(&rec, 0, sizeof rec);
        rec.header_type = ETL_HT_EVENT_HEADER64;
        rec.pointer_size = (h[IN_SELECTOR] & 2) ? 4 : 8;
        rec.has_provider = true;
        rec.provider = (h[IN_SELECTOR] & 1) ? etl_ndiscap_guid : etl_pktmon_guid;
        rec.event_id = ld16(h + IN_EVENT_ID);
        rec.keyword = ld64(h + IN_KEYWORD);
        rec.bytes = bytes;
        rec.size = (uint32_t)len;
        rec.payload_offset = 0;
        rec.payload_size = (uint32_t)len;
        rec.position = n;
        etl_packets_observe(pk, &rec);
        etl_packet p;
        etl_error err;
        err.message[0] = 0;
        if (etl_packets_decode(pk, &rec, &p, &err) != ETL_OK)
            abort();
        if (p.kind == ETL_PACKET_FRAME) {
            if (p.captured_len > ETL_PACKET_MAX_FRAME || p.original_len < p.captured_len)
                abort();
            bool in_record = p.frame >= bytes && p.frame + p.captured_len <= bytes + len;
            if (!in_record && !p.modified && p.fragments <= 1 && p.captured_len)
                abort(); /* a single-event frame that is not in its record */
            if (p.frame_in_record && (p.frame != bytes + p.frame_offset || !in_record))
                abort(); /* frame_offset must say where the frame is */
            volatile uint8_t sum = 0;
            for (uint32_t i = 0; i < p.captured_len; i++)
                sum ^= p.frame[i]; /* every byte readable */
            (void)sum;
        }
        if (p.problem != ETL_OK && !err.message[0])
            abort();
        free(bytes);
        off += IN_HEAD + len;
    }
    for (uint32_t i = 0; i < etl_packets_interface_count(pk); i++) {
        const etl_packet_iface *e = etl_packets_interface_at(pk, i);
        if (strlen(e->name) >= sizeof e->name || strlen(e->description) >= sizeof e->description)
            abort();
    }
    etl_packets_free(pk);
    return 0;
}
