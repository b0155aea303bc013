/* viewer_output.c - what a viewer's command line says its output prints (viewer_output.h).
 *
 * etlshark SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "viewer_output.h"

#include <string.h>

/* tshark's short options that take an argument (4.0's getopt string, the capture and dissect
 * options included; 4.2-4.6 add none that takes one). */
static const char etl_tshark_short_with_arg[] = "abcfisyABdKNtuMCeEFGHjJoOrRSTUwWXYz";
/* tshark's short options without an argument. */
static const char etl_tshark_short_plain[] = "2DILpnghlPqQvVx";

/* tshark's long options that take no argument (4.0-4.6); any other takes one, as
 * "--name=value" or as the next argument. */
static const char *const etl_tshark_long_plain[] = {
    "help", "version", "list-interfaces", "list-data-link-types", "no-promiscuous-mode",
    "list-time-stamp-types", "monitor-mode", "print", "color", "no-duplicate-keys",
    "disable-all-protocols", "update-interval-never", "log-noisy-all", NULL,
};

/* Outputs that print every item of the tree, hidden ones included. */
static const char *const etl_tshark_details_outputs[] = { "json", "jsonraw", "pdml", "ek", NULL };

static bool
etl_in_list(const char *const *list, const char *s, size_t n)
{
    for (size_t i = 0; list[i] != NULL; i++)
        if (strlen(list[i]) == n && memcmp(list[i], s, n) == 0)
            return true;
    return false;
}

static bool
etl_is_tshark(const char *argv0)
{
    const char *base = argv0 != NULL ? strrchr(argv0, '/') : NULL;

    base = base != NULL ? base + 1 : argv0;
    return base != NULL && strncmp(base, "tshark", 6) == 0;
}

/* One option with its argument. */
static void
etl_viewer_option(etl_viewer_output *out, char opt, const char *arg)
{
    size_t n;

    if (opt == 'T') {
        out->details = etl_in_list(etl_tshark_details_outputs, arg, strlen(arg));
        out->fields_only = strcmp(arg, "fields") == 0;
    } else if (opt == 'e') {
        n = strlen(arg);
        if (out->n_fields >= ETL_VIEWER_MAX_FIELDS || n > ETL_VIEWER_MAX_NAME) {
            out->uncertain = true;
            return;
        }
        memcpy(out->fields[out->n_fields], arg, n + 1);
        out->n_fields++;
    }
}

void
etl_viewer_output_parse(etl_viewer_output *out, int argc, const char *const *argv)
{
    int i;

    memset(out, 0, sizeof *out);
    if (argc < 1 || argv == NULL || argv[0] == NULL) {
        out->uncertain = true;
        return;
    }
    out->is_tshark = etl_is_tshark(argv[0]);
    if (!out->is_tshark)
        return;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (a == NULL) {
            out->uncertain = true;
            return;
        }
        if (strcmp(a, "--") == 0)
            break;
        if (a[0] != '-' || a[1] == '\0') {
            /* tshark stops at the first operand (a capture filter): what follows is not an
             * option; an operand here is rare enough to keep every item. */
            out->uncertain = true;
            return;
        }
        if (a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');

            if (eq == NULL && !etl_in_list(etl_tshark_long_plain, name, strlen(name)))
                i++; /* its argument */
            continue;
        }
        /* a bundle of short options: the first that takes an argument ends it */
        for (const char *p = a + 1; *p != '\0'; p++) {
            if (strchr(etl_tshark_short_with_arg, *p) != NULL) {
                const char *arg = p[1] != '\0' ? p + 1 : (i + 1 < argc ? argv[++i] : NULL);

                if (arg == NULL) {
                    out->uncertain = true;
                    return;
                }
                etl_viewer_option(out, *p, arg);
                break;
            }
            if (strchr(etl_tshark_short_plain, *p) == NULL) {
                out->uncertain = true; /* an option this parser does not know */
                return;
            }
        }
    }
}

void
etl_viewer_output_parse_cmdline(etl_viewer_output *out, const char *buf, size_t len)
{
    enum { MAX_ARGS = 512 };
    const char *argv[MAX_ARGS];
    int argc = 0;
    size_t start = 0;

    if (buf == NULL || len == 0) {
        etl_viewer_output_parse(out, 0, NULL);
        return;
    }
    for (size_t i = 0; i < len; i++) {
        if (buf[i] != '\0')
            continue;
        if (argc == MAX_ARGS) {
            etl_viewer_output_parse(out, 0, NULL);
            return;
        }
        argv[argc++] = buf + start;
        start = i + 1;
    }
    if (start < len) {
        /* the last argument lacks its NUL: cut short, not to be trusted */
        etl_viewer_output_parse(out, 0, NULL);
        return;
    }
    etl_viewer_output_parse(out, argc, argv);
}

bool
etl_viewer_output_prints_hidden(const etl_viewer_output *out)
{
    return out->uncertain || (out->is_tshark && out->details && out->n_fields == 0);
}

bool
etl_viewer_output_names(const etl_viewer_output *out, const char *field)
{
    for (size_t i = 0; i < out->n_fields; i++)
        if (strcmp(out->fields[i], field) == 0)
            return true;
    return false;
}

bool
etl_viewer_output_prints_tree(const etl_viewer_output *out)
{
    return out->uncertain || !out->is_tshark || !out->fields_only;
}
