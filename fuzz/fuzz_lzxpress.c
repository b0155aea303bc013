/* libFuzzer target for the LZXpress decompressor alone: any input, small and large outputs. */
#include <stdlib.h>

#include "etl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t out[1 << 17];
    size_t n;
    size_t cap = size ? (size_t)data[0] * 512u + 1u : 1u;
    if (cap > sizeof out)
        cap = sizeof out;
    etl_lzxpress_decompress(data, size, out, cap, &n, NULL);
    if (n > cap)
        abort();
    return 0;
}
