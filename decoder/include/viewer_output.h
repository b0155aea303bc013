/* viewer_output.h - what a viewer's command line says its output prints, for items a consumer
 * builds only when someone can see them.
 *
 * The Wireshark dissector adds hidden generic items (etl.field.name, etl.field.value, etl.kv)
 * for one-pass filtering.  Wireshark tells a dissector when a filter, a column or (4.2 and
 * later) a `-e` names a field, but not which output a visible tree is for: tshark -V and the
 * GUI's details pane never show hidden items, while tshark -T json, jsonraw, pdml and ek print
 * every item, hidden ones included; and Wireshark 4.0's tshark builds a visible tree for
 * -T fields without telling the dissector which fields -e names.  This module answers those
 * two questions from the process's own command line (the plugin reads /proc/self/cmdline):
 *
 *   etl_viewer_output_prints_hidden  the output prints hidden items: tshark with -T json,
 *                                    jsonraw, pdml or ek and no -e (with -e only the fields
 *                                    named print), or a command line this parser cannot read
 *                                    with certainty (then it keeps them: never loses output)
 *   etl_viewer_output_names          `-e NAME` names this field
 *   etl_viewer_output_prints_tree    the output prints a tree (labels, every item): not so for
 *                                    tshark -T fields, which prints the -e fields' values only
 *                                    (4.0 builds a visible tree for it all the same)
 *
 * The parser follows tshark's options (its getopt string and long options, 4.0 to 4.6): the
 * short options taking an argument, bundles ("-nVT json", "-Tjson"), "--opt=value" and the
 * long options that take none; any other program (wireshark, sharkd, rawshark) prints no
 * hidden item here and names no field.  No allocation beyond the out structure's copy of the
 * names; bounded by the arguments given. */
#ifndef ETL_VIEWER_OUTPUT_H
#define ETL_VIEWER_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

/* At most this many -e names are kept; more makes the output count as printing every
 * hidden item (a safe answer). */
#define ETL_VIEWER_MAX_FIELDS 64
/* A -e name longer than this makes the output count as printing every hidden item. */
#define ETL_VIEWER_MAX_NAME 127

typedef struct etl_viewer_output {
    bool is_tshark;        /* the program is tshark */
    bool uncertain;        /* the command line could not be read with certainty */
    bool details;          /* -T json / jsonraw / pdml / ek: an output that prints every item */
    bool fields_only;      /* -T fields: the -e fields' values, no tree */
    size_t n_fields;       /* -e names */
    char fields[ETL_VIEWER_MAX_FIELDS][ETL_VIEWER_MAX_NAME + 1];
} etl_viewer_output;

/* Parses argv[0..argc-1] (argv[0]: the program).  `out` is always filled. */
void etl_viewer_output_parse(etl_viewer_output *out, int argc, const char *const *argv);

/* Parses a NUL-separated command line as /proc/self/cmdline holds it (len bytes).  A NULL or
 * empty one leaves `out` uncertain. */
void etl_viewer_output_parse_cmdline(etl_viewer_output *out, const char *buf, size_t len);

bool etl_viewer_output_prints_hidden(const etl_viewer_output *out);
bool etl_viewer_output_names(const etl_viewer_output *out, const char *field);
bool etl_viewer_output_prints_tree(const etl_viewer_output *out);

#endif
