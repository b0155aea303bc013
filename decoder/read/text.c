/* text.c - UTF-16LE to UTF-8 (written by hand: GLib's g_utf16_to_utf8 needs aligned, host-order
 * input and allocates; trace strings are unaligned little-endian and converted into fixed
 * buffers on hot paths). */
#include "text.h"

#include "bytes.h"

static size_t put_utf8(uint32_t c, char *out, size_t pos, size_t cap)
{
    char tmp[4];
    size_t n;
    if (c < 0x80) {
        tmp[0] = (char)c;
        n = 1;
    } else if (c < 0x800) {
        tmp[0] = (char)(0xC0 | (c >> 6));
        tmp[1] = (char)(0x80 | (c & 0x3F));
        n = 2;
    } else if (c < 0x10000) {
        tmp[0] = (char)(0xE0 | (c >> 12));
        tmp[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        tmp[2] = (char)(0x80 | (c & 0x3F));
        n = 3;
    } else {
        tmp[0] = (char)(0xF0 | (c >> 18));
        tmp[1] = (char)(0x80 | ((c >> 12) & 0x3F));
        tmp[2] = (char)(0x80 | ((c >> 6) & 0x3F));
        tmp[3] = (char)(0x80 | (c & 0x3F));
        n = 4;
    }
    if (pos + n >= cap)
        return 0;
    for (size_t i = 0; i < n; i++)
        out[pos + i] = tmp[i];
    return n;
}

size_t etl_utf16_to_utf8(const uint8_t *p, size_t len, char *out, size_t cap, size_t *consumed)
{
    size_t i = 0, o = 0;
    bool full = false;
    if (cap == 0)
        return 0;
    while (i + 2 <= len) {
        uint32_t c = etl_ld16(p + i);
        i += 2;
        if (c == 0)
            break;
        if (c >= 0xD800 && c < 0xDC00 && i + 2 <= len) {
            uint32_t lo = etl_ld16(p + i);
            if (lo >= 0xDC00 && lo < 0xE000) {
                i += 2;
                c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
            } else {
                c = 0xFFFD;
            }
        } else if (c >= 0xD800 && c < 0xE000) {
            c = 0xFFFD;
        }
        if (!full) {
            size_t n = put_utf8(c, out, o, cap);
            if (n == 0)
                full = true; /* keep consuming input so *consumed stays right */
            o += n;
        }
    }
    out[o] = '\0';
    if (consumed)
        *consumed = i;
    return o;
}
