/*
 * lzx_compress.h - MS-XCA "plain LZ77" (LZXpress) compressor.
 *
 * Written here because no Debian library implements this variant (libmspack has LZX
 * and the Huffman flavour, not plain LZ77), and compressed .etl buffers use it.
 */
#ifndef LZX_COMPRESS_H
#define LZX_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct lzx_compressor lzx_compressor;

/* Match-finder state (hash chains), reusable across calls.  NULL on allocation failure. */
lzx_compressor *lzx_compressor_new(void);
void lzx_compressor_free(lzx_compressor *c);

/* Largest output lzx_compress can produce for `n` input bytes. */
size_t lzx_compress_bound(size_t n);

/* Compress in[0..n) into out[0..cap).  Returns the compressed length, or 0 when the
 * output does not fit or n is too large (>= 2 GiB).  Empty input gives 4 bytes. */
size_t lzx_compress(lzx_compressor *c, const uint8_t *in, size_t n, uint8_t *out, size_t cap);

#endif /* LZX_COMPRESS_H */
