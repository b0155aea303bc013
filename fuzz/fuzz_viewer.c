/* libFuzzer target for the viewer command-line parser (decoder/decode/viewer_output.c): any
 * bytes as a NUL-separated command line, as the plugin reads /proc/self/cmdline.  Beyond the
 * sanitizers, the parsed names stay within their named bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "viewer_output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static etl_viewer_output out;

    etl_viewer_output_parse_cmdline(&out, (const char *)data, size);
    if (out.n_fields > ETL_VIEWER_MAX_FIELDS)
        abort();
    for (size_t i = 0; i < out.n_fields; i++)
        if (memchr(out.fields[i], '\0', ETL_VIEWER_MAX_NAME + 1) == NULL)
            abort();
    (void)etl_viewer_output_prints_hidden(&out);
    (void)etl_viewer_output_prints_tree(&out);
    (void)etl_viewer_output_names(&out, "etl.kv");
    if (out.n_fields > 0 && !etl_viewer_output_names(&out, out.fields[0]))
        abort();
    return 0;
}
