/*
 * etlgen - write small, valid .etl files for tests and large ones for benchmarks.
 *
 *   etlgen --list
 *   etlgen --preset NAME -o FILE [--records N] [--memory]   (--memory: build the file
 *                                                          in memory, then write it)
 *          [--pcapng FILE]                              (packet presets with a pcapng twin)
 *   etlgen --preset NAME --expect [--records N]     what FILE will contain, as JSON
 *   etlgen --lzx-compress IN -o OUT                 raw LZXpress stream (compressor tests)
 *
 * --expect runs the preset into a counting sink and prints the writer's own statistics
 * (records, header_types, ext_types, providers, buffers, compressed_buffers, file_size),
 * so tests can compare any reader against it without a second copy of the presets.
 */
#include "etlgen_presets.h"
#include "etlwriter.h"
#include "lzx_compress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fputs("usage: etlgen --list\n"
          "       etlgen --preset NAME -o FILE [--records N] [--memory] [--pcapng FILE]\n"
          "       etlgen --preset NAME --expect [--records N]\n"
          "       etlgen --lzx-compress IN -o OUT\n",
          f);
}

/* ---- JSON of the writer statistics --------------------------------------------------------- */

static void print_counts(const char *key, const uint64_t *counts, unsigned n,
                         const char *(*name_of)(unsigned), int unknown_in_hex)
{
    printf(",\n  \"%s\": {", key);
    int any = 0;
    for (unsigned i = 0; i < n; i++) {
        if (counts[i] == 0)
            continue;
        const char *name = name_of(i);
        char tmp[32];
        if (name == NULL) {
            if (unknown_in_hex)
                snprintf(tmp, sizeof tmp, "UNKNOWN_0x%02x", i);
            else
                snprintf(tmp, sizeof tmp, "UNKNOWN_%u", i);
            name = tmp;
        }
        printf("%s\"%s\": %llu", any ? ", " : "", name, (unsigned long long)counts[i]);
        any = 1;
    }
    printf("}");
}

struct provider_line {
    char key[40];   /* GUID, or kernel-group-0xNN for groups outside the known table */
    uint64_t count;
};

static int provider_cmp(const void *a, const void *b)
{
    return strcmp(((const struct provider_line *)a)->key, ((const struct provider_line *)b)->key);
}

static void print_expect(const char *preset, const etlw_stats *s)
{
    printf("{\n  \"preset\": \"%s\",\n  \"records\": %llu", preset,
           (unsigned long long)s->records);
    print_counts("header_types", s->header_types, 256, etlw_header_type_name, 1);
    print_counts("ext_types", s->ext_types, 256, etlw_ext_type_name, 0);

    /* Providers sorted by key so the output does not depend on insertion order. */
    struct provider_line lines[ETLW_MAX_PROVIDERS];
    for (size_t i = 0; i < s->nproviders; i++) {
        const etlw_provider_count *p = &s->providers[i];
        if (p->unknown_kernel_group >= 0)
            snprintf(lines[i].key, sizeof lines[i].key, "kernel-group-0x%02x",
                     (unsigned)p->unknown_kernel_group);
        else
            etlw_guid_format(&p->guid, lines[i].key);
        lines[i].count = p->count;
    }
    qsort(lines, s->nproviders, sizeof lines[0], provider_cmp);
    printf(",\n  \"providers\": {");
    for (size_t i = 0; i < s->nproviders; i++)
        printf("%s\n    \"%s\": %llu", i ? "," : "", lines[i].key,
               (unsigned long long)lines[i].count);
    printf("%s}", s->nproviders ? "\n  " : "");
    printf(",\n  \"providers_complete\": %s", s->providers_overflow ? "false" : "true");
    printf(",\n  \"buffers\": %llu,\n  \"compressed_buffers\": %llu,\n  \"dropped\": %llu,\n"
           "  \"file_size\": %llu\n}\n",
           (unsigned long long)s->buffers, (unsigned long long)s->compressed_buffers,
           (unsigned long long)s->dropped, (unsigned long long)s->file_size);
}

/* ---- running a preset ------------------------------------------------------------------------ */

/* Largest image --memory builds before writing it out. */
#define MEMORY_IMAGE_MAX ((size_t)256 << 20)

static int run_preset(const etlgen_preset *preset, const etlgen_options *opt, const char *out_path,
                      int expect, int in_memory)
{
    etlw_config cfg;
    preset->configure(&cfg, opt);

    FILE *f = NULL;
    etlw_file fstate;
    etlw_mem image;
    uint64_t null_size;
    etlw_sink sink;
    if (out_path) {
        f = fopen(out_path, "wb");
        if (f == NULL) {
            fprintf(stderr, "etlgen: %s: %s\n", out_path, strerror(errno));
            return 1;
        }
        /* --memory goes through the in-memory sink, so tests can compare both paths. */
        sink = in_memory ? etlw_mem_sink(&image, MEMORY_IMAGE_MAX) : etlw_file_sink(&fstate, f);
    } else {
        sink = etlw_null_sink(&null_size);
    }

    etlw_writer *w = NULL;
    int rc = etlw_open(&w, &cfg, sink);
    if (rc == ETLW_OK)
        rc = preset->fill(w, opt);
    if (rc == ETLW_OK)
        rc = etlw_close(w);
    if (rc == ETLW_OK && expect)
        print_expect(preset->name, etlw_get_stats(w));
    etlw_destroy(w);
    if (f != NULL && in_memory) {
        if (rc == ETLW_OK && fwrite(image.data, 1, image.len, f) != image.len)
            rc = ETLW_E_IO;
        etlw_mem_release(&image);
    }
    if (f != NULL && fclose(f) != 0 && rc == ETLW_OK)
        rc = ETLW_E_IO;
    if (rc != ETLW_OK) {
        fprintf(stderr, "etlgen: preset %s: %s\n", preset->name, etlw_strerror(rc));
        if (out_path)
            remove(out_path);
        return 1;
    }
    return 0;
}

/* ---- raw compression ------------------------------------------------------------------------- */

static int compress_file(const char *in_path, const char *out_path)
{
    FILE *in = fopen(in_path, "rb");
    if (in == NULL) {
        fprintf(stderr, "etlgen: %s: %s\n", in_path, strerror(errno));
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *data = malloc(cap);
    int ok = data != NULL;
    while (ok) {
        if (n == cap) {
            uint8_t *p = cap < ((size_t)1 << 30) ? realloc(data, cap * 2) : NULL;
            if (p == NULL) {
                ok = 0;
                break;
            }
            data = p;
            cap *= 2;
        }
        size_t got = fread(data + n, 1, cap - n, in);
        n += got;
        if (got == 0)
            break;
    }
    ok = ok && !ferror(in);
    fclose(in);
    size_t zcap = lzx_compress_bound(n), z = 0;
    uint8_t *zbuf = ok ? malloc(zcap) : NULL;
    lzx_compressor *c = ok ? lzx_compressor_new() : NULL;
    if (zbuf && c)
        z = lzx_compress(c, data, n, zbuf, zcap);
    ok = z != 0;
    if (ok) {
        FILE *out = fopen(out_path, "wb");
        ok = out != NULL && fwrite(zbuf, 1, z, out) == z;
        if (out != NULL && fclose(out) != 0)
            ok = 0;
    }
    lzx_compressor_free(c);
    free(zbuf);
    free(data);
    if (!ok) {
        fprintf(stderr, "etlgen: compressing %s into %s failed\n", in_path, out_path);
        return 1;
    }
    return 0;
}

/* ---- main -------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *preset_name = NULL, *out_path = NULL, *lzx_in = NULL;
    int list = 0, expect = 0, in_memory = 0;
    etlgen_options opt = { 0 };

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (strcmp(a, "--list") == 0) {
            list = 1;
        } else if (strcmp(a, "--expect") == 0) {
            expect = 1;
        } else if (strcmp(a, "--memory") == 0) {
            in_memory = 1;
        } else if (strcmp(a, "--preset") == 0 && has_value) {
            preset_name = argv[++i];
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && has_value) {
            out_path = argv[++i];
        } else if (strcmp(a, "--pcapng") == 0 && has_value) {
            opt.pcapng = argv[++i];
        } else if (strcmp(a, "--lzx-compress") == 0 && has_value) {
            lzx_in = argv[++i];
        } else if (strcmp(a, "--records") == 0 && has_value) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (errno || *end || v == 0 || argv[i][0] == '-') {
                fprintf(stderr, "etlgen: --records needs a positive number\n");
                return 2;
            }
            opt.records = v;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }

    if (list) {
        for (const etlgen_preset *p = etlgen_presets; p->name; p++)
            printf("%-13s %s\n", p->name, p->summary);
        return 0;
    }
    if (lzx_in) {
        if (!out_path) {
            usage(stderr);
            return 2;
        }
        return compress_file(lzx_in, out_path);
    }
    if (!preset_name || (!out_path && !expect) || (out_path && expect)) {
        usage(stderr);
        return 2;
    }
    const etlgen_preset *preset = etlgen_find_preset(preset_name);
    if (preset == NULL) {
        fprintf(stderr, "etlgen: unknown preset '%s' (see --list)\n", preset_name);
        return 2;
    }
    return run_preset(preset, &opt, out_path, expect, in_memory);
}
