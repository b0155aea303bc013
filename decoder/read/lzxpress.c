/* lzxpress.c - MS-XCA "plain LZ77" (LZXpress) decompression, as ETW uses for compressed
 * buffers (LogFileMode EVENT_TRACE_COMPRESSED_MODE, buffer flag 0x40).
 *
 * Written here by hand because no Debian library implements this variant (libmspack and
 * wimlib carry LZX and XPRESS-Huffman, not plain LZ77).  Algorithm from [MS-XCA] 2.3/2.4:
 * a 32-bit flag word precedes each group of 32 items, MSB first; a clear bit is one literal
 * byte, a set bit a 16-bit match (13-bit offset-1, 3-bit length-3) whose length may extend
 * through a shared half-byte, a byte, a u16 and a u32.  Every read and write is checked; a
 * malformed stream stops with the output produced so far kept. */
#include <string.h>

#include "bytes.h"
#include "error.h"

/* Room the fast path needs: a 32-byte literal copy or a 3-byte token, and 24 bytes of output
 * written for a match of at most 24. */
#define FAST_IN_MARGIN 40u
#define FAST_OUT_MARGIN 64u

etl_status etl_lzxpress_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                                   size_t *out_len, etl_error *err)
{
    size_t ip = 0, op = 0;
    uint32_t flags = 0;
    unsigned flag_count = 0;
    size_t half_byte_pos = 0; /* 0 = no pending shared half-byte (position 0 is a flag word) */
    etl_status st = ETL_OK;

    if (!in || !out || !out_len)
        return etl_fail(err, ETL_ERR_ARG, 0, "lzxpress: NULL argument");

    while (ip < in_len) {
        if (flag_count == 0) {
            if (in_len - ip < 4) {
                /* Trailing bytes too short for a flag word: what follows is padding. */
                break;
            }
            flags = etl_ld32(in + ip);
            ip += 4;
            flag_count = 32;
        }
        /* The fast path, while both sides have room for the widest step below (so no check
         * per byte): runs of literals copied at once, and matches whose length the token or
         * the shared half-byte holds (up to 24 bytes) by 8-byte moves.  The rest - longer
         * lengths, matches reaching before the output, the last bytes of either side - takes
         * the checked path. */
        if (in_len - ip >= FAST_IN_MARGIN && out_cap - op >= FAST_OUT_MARGIN) {
            uint32_t rest = flags << (32 - flag_count); /* the unread flag bits, at the top */
            if (!(rest & 0x80000000u)) {
                unsigned k = rest ? (unsigned)__builtin_clz(rest) : flag_count;
                if (k > flag_count)
                    k = flag_count;
                memcpy(out + op, in + ip, 32); /* k <= 32 literals; the margins cover 32 */
                op += k;
                ip += k;
                flag_count -= k;
                continue;
            }
            uint32_t token = etl_ld16(in + ip);
            size_t length = token & 7u, offset = (token >> 3) + 1u;
            size_t used = 2;
            if (length == 7) {
                /* the shared half-byte, looked at before anything is taken: a 15 (a longer
                 * length in the bytes after it) is the checked path's */
                size_t nib = half_byte_pos ? (size_t)(in[half_byte_pos] >> 4) : (size_t)(in[ip + 2] & 0x0Fu);
                if (nib == 15 || offset > op)
                    goto checked;
                if (half_byte_pos) {
                    half_byte_pos = 0;
                } else {
                    half_byte_pos = ip + 2;
                    used = 3;
                }
                length = 7 + nib;
            }
            if (offset <= op) {
                flag_count--;
                ip += used;
                length += 3; /* 3..24 bytes */
                uint8_t *d = out + op;
                const uint8_t *src = d - offset;
                if (offset >= 8) {
                    /* 8-byte moves, each after the one before: with offset >= 8 every byte
                     * read was written before it is read, as a byte-wise copy has it; the
                     * margins cover the 24 bytes the last move may reach */
                    uint64_t w;
                    for (size_t k = 0; k < length; k += 8) {
                        memcpy(&w, src + k, 8);
                        memcpy(d + k, &w, 8);
                    }
                } else {
                    for (size_t i = 0; i < length; i++)
                        d[i] = src[i];
                }
                op += length;
                continue;
            }
        }
    checked:
        flag_count--;
        if (!(flags & (1u << flag_count))) {
            if (ip >= in_len)
                break;
            if (op >= out_cap) {
                st = etl_fail(err, ETL_ERR_LIMIT, ip, "lzxpress: output exceeds %zu bytes", out_cap);
                break;
            }
            out[op++] = in[ip++];
            continue;
        }
        if (ip == in_len)
            break; /* a set flag bit with no input left marks the end of the stream */
        if (in_len - ip < 2) {
            st = etl_fail(err, ETL_ERR_DECOMPRESS, ip, "lzxpress: match token cut at input offset %zu", ip);
            break;
        }
        uint32_t token = etl_ld16(in + ip);
        ip += 2;
        size_t length = token & 7u;
        size_t offset = (token >> 3) + 1u;
        if (length == 7) {
            if (half_byte_pos == 0) {
                if (ip >= in_len) {
                    st = etl_fail(err, ETL_ERR_DECOMPRESS, ip, "lzxpress: length nibble cut at input offset %zu", ip);
                    break;
                }
                length = in[ip] & 0x0Fu;
                half_byte_pos = ip++;
            } else {
                length = in[half_byte_pos] >> 4;
                half_byte_pos = 0;
            }
            if (length == 15) {
                if (ip >= in_len) {
                    st = etl_fail(err, ETL_ERR_DECOMPRESS, ip, "lzxpress: length byte cut at input offset %zu", ip);
                    break;
                }
                length = in[ip++];
                if (length == 255) {
                    if (in_len - ip < 2) {
                        st = etl_fail(err, ETL_ERR_DECOMPRESS, ip, "lzxpress: length word cut at input offset %zu", ip);
                        break;
                    }
                    length = etl_ld16(in + ip);
                    ip += 2;
                    if (length == 0) {
                        if (in_len - ip < 4) {
                            st = etl_fail(err, ETL_ERR_DECOMPRESS, ip, "lzxpress: length dword cut at input offset %zu", ip);
                            break;
                        }
                        length = etl_ld32(in + ip);
                        ip += 4;
                    }
                    if (length < 15 + 7) {
                        st = etl_fail(err, ETL_ERR_DECOMPRESS, ip, "lzxpress: impossible match length at input offset %zu", ip);
                        break;
                    }
                    length -= 15 + 7;
                }
                length += 15;
            }
            length += 7;
        }
        length += 3;
        if (offset > op) {
            st = etl_fail(err, ETL_ERR_DECOMPRESS, ip, "lzxpress: match reaches %zu bytes before the output start (input offset %zu)",
                          offset - op, ip);
            break;
        }
        if (length > out_cap - op) {
            st = etl_fail(err, ETL_ERR_LIMIT, ip, "lzxpress: output exceeds %zu bytes", out_cap);
            break;
        }
        if (offset >= length) {
            memcpy(out + op, out + op - offset, length);
            op += length;
        } else {
            /* An overlapping copy repeats the last `offset` bytes (runs of one byte, padding):
             * as a byte-wise copy would, but in non-overlapping pieces from the pattern's start,
             * each as long as what is already written after it - the pieces double, so a long
             * run is a few memcpy calls, not one step per byte. */
            const uint8_t *src = out + op - offset;
            uint8_t *d = out + op;
            size_t left = length, dist = offset;
            while (left) {
                size_t n = left < dist ? left : dist;
                memcpy(d, src, n);
                d += n;
                left -= n;
                dist += n;
            }
            op += length;
        }
    }
    *out_len = op;
    return st;
}
