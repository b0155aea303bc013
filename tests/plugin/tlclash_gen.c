/* tlclash_gen - write the TraceLogging capture the plugin tests use for the field-name rules
 * (test_plugin.py, tests tlclash and tlstore), with the project's generator library.
 *
 *   tlclash_gen [--reverse] -o FILE
 *
 * One 64-bit trace, provider "Etlshark.Clash", these events in this order (--reverse writes
 * Second before First, so the two types of Tally are met the other way round):
 *
 *   1 First    Tally UINT32 7, Label ANSISTRING "alpha"
 *   2 Second   Tally ANSISTRING "seven", Label UINT64 5         (both names change type)
 *   3 Third    "Tally_string" UINT32 9                          (named like a suffixed name)
 *   4 Odd      "Raw Script" ANSI "x = 1", "a.b" UINT8 3, "-dash" INT16 -2, "" UINT32 11,
 *              "Gr\u00fc\u00dfe" UINT32 12, struct S { x UINT8 1, x UINT16 2 } (a repeated name)
 *   5 Short    Before UINT32 0x01020304, Missing UINT64: the payload stops 3 bytes into it
 *   6 Future   A UINT32 5, Weird (in-type 27, unknown), After UINT32 6
 *   7 First    Tally UINT32 8, Label ANSISTRING "beta"             (decodes normally after 5, 6)
 *
 * The names are none of the kernel events' fields (those are registered at every start, so a
 * kernel name such as Count, a u16 there, would already be taken by its kernel type).
 *
 * Deterministic: no clock, no randomness. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "etlwriter.h"

#define PROVIDER_NAME "Etlshark.Clash"
#define PROVIDER_GUID "5b0e9c2a-6f41-4d8e-9a37-c1d2e3f40506"

static const etlw_tl_field first_fields[] = {
    { .name = "Tally", .intype = ETLW_TL_UINT32 },
    { .name = "Label", .intype = ETLW_TL_ANSISTRING },
};
static const etlw_tl_field second_fields[] = {
    { .name = "Tally", .intype = ETLW_TL_ANSISTRING },
    { .name = "Label", .intype = ETLW_TL_UINT64 },
};
static const etlw_tl_field third_fields[] = {
    { .name = "Tally_string", .intype = ETLW_TL_UINT32 },
};
static const etlw_tl_field odd_fields[] = {
    { .name = "Raw Script", .intype = ETLW_TL_ANSISTRING },
    { .name = "a.b", .intype = ETLW_TL_UINT8 },
    { .name = "-dash", .intype = ETLW_TL_INT16 },
    { .name = "", .intype = ETLW_TL_UINT32 },
    { .name = "Gr\xC3\xBC\xC3\x9F" "e", .intype = ETLW_TL_UINT32 },
    { .name = "S", .intype = ETLW_TL_STRUCT, .outtype = 2 },
    { .name = "x", .intype = ETLW_TL_UINT8 },
    { .name = "x", .intype = ETLW_TL_UINT16 },
};
static const etlw_tl_field short_fields[] = {
    { .name = "Before", .intype = ETLW_TL_UINT32 },
    { .name = "Missing", .intype = ETLW_TL_UINT64 },
};
static const etlw_tl_field future_fields[] = {
    { .name = "A", .intype = ETLW_TL_UINT32 },
    { .name = "Weird", .intype = 27 },
    { .name = "After", .intype = ETLW_TL_UINT32 },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct gen {
    etlw_writer *w;
    etlw_guid provider;
    int64_t now;
    uint8_t buf[256];
    etlw_bytes p;
};

static int emit(struct gen *g, const char *name, const etlw_tl_field *fields, size_t n)
{
    etlw_tl_event ev;

    memset(&ev, 0, sizeof ev);
    ev.hdr.tid = 7001;
    ev.hdr.pid = 7000;
    ev.hdr.timestamp = (g->now += 10000); /* 1 ms apart */
    ev.hdr.provider = g->provider;
    ev.hdr.level = 4;
    ev.provider_name = PROVIDER_NAME;
    ev.name = name;
    return etlw_write_tl(g->w, 0, &ev, fields, n, g->p.data, g->p.len);
}

static void payload_start(struct gen *g)
{
    etlw_bytes_init(&g->p, g->buf, sizeof g->buf);
}

static int first(struct gen *g, uint32_t count, const char *label)
{
    payload_start(g);
    etlw_put_u32(&g->p, count);
    etlw_put_strz(&g->p, label);
    return emit(g, "First", first_fields, COUNT(first_fields));
}

static int second(struct gen *g)
{
    payload_start(g);
    etlw_put_strz(&g->p, "seven");
    etlw_put_u64(&g->p, 5);
    return emit(g, "Second", second_fields, COUNT(second_fields));
}

static int fill(struct gen *g, int reverse)
{
    int rc;

    if ((rc = reverse ? second(g) : first(g, 7, "alpha")) != ETLW_OK)
        return rc;
    if ((rc = reverse ? first(g, 7, "alpha") : second(g)) != ETLW_OK)
        return rc;

    payload_start(g);
    etlw_put_u32(&g->p, 9);
    if ((rc = emit(g, "Third", third_fields, COUNT(third_fields))) != ETLW_OK)
        return rc;

    payload_start(g);
    etlw_put_strz(&g->p, "x = 1");
    etlw_put_u8(&g->p, 3);
    etlw_put_u16(&g->p, (uint16_t)-2);
    etlw_put_u32(&g->p, 11);
    etlw_put_u32(&g->p, 12);
    etlw_put_u8(&g->p, 1);
    etlw_put_u16(&g->p, 2);
    if ((rc = emit(g, "Odd", odd_fields, COUNT(odd_fields))) != ETLW_OK)
        return rc;

    payload_start(g);
    etlw_put_u32(&g->p, 0x01020304u);
    etlw_put_u8(&g->p, 0xAA); /* 3 of Missing's 8 bytes */
    etlw_put_u8(&g->p, 0xBB);
    etlw_put_u8(&g->p, 0xCC);
    if ((rc = emit(g, "Short", short_fields, COUNT(short_fields))) != ETLW_OK)
        return rc;

    payload_start(g);
    etlw_put_u32(&g->p, 5);
    etlw_put_u32(&g->p, 0xDDDDDDDDu); /* whatever Weird is */
    etlw_put_u32(&g->p, 6);
    if ((rc = emit(g, "Future", future_fields, COUNT(future_fields))) != ETLW_OK)
        return rc;

    return first(g, 8, "beta");
}

int main(int argc, char **argv)
{
    const char *out_path = NULL;
    int reverse = 0;
    etlw_config cfg;
    etlw_file fstate;
    struct gen g;
    FILE *f;
    int rc;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reverse") == 0) {
            reverse = 1;
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out_path = argv[++i];
        } else {
            fprintf(stderr, "usage: tlclash_gen [--reverse] -o FILE\n");
            return 2;
        }
    }
    if (out_path == NULL) {
        fprintf(stderr, "usage: tlclash_gen [--reverse] -o FILE\n");
        return 2;
    }

    etlw_config_init(&cfg);
    cfg.pointer_size = 8;
    cfg.num_cpus = 1;
    cfg.buffer_size = 4096;
    cfg.logger_name = "etlshark-tlclash";
    cfg.log_file_name = "C:\\etlshark\\tlclash.etl";

    memset(&g, 0, sizeof g);
    if (etlw_guid_parse(PROVIDER_GUID, &g.provider) != 0)
        return 1;
    f = fopen(out_path, "wb");
    if (f == NULL) {
        fprintf(stderr, "tlclash_gen: %s: %s\n", out_path, strerror(errno));
        return 1;
    }
    rc = etlw_open(&g.w, &cfg, etlw_file_sink(&fstate, f));
    if (rc == ETLW_OK) {
        g.now = etlw_now(g.w);
        rc = fill(&g, reverse);
    }
    if (rc == ETLW_OK)
        rc = etlw_close(g.w);
    etlw_destroy(g.w);
    if (fclose(f) != 0 && rc == ETLW_OK)
        rc = ETLW_E_IO;
    if (rc != ETLW_OK) {
        fprintf(stderr, "tlclash_gen: %s\n", etlw_strerror(rc));
        remove(out_path);
        return 1;
    }
    return 0;
}
