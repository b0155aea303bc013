/* What a viewer's command line says its output prints (viewer_output.h): tshark's outputs that
 * print hidden items, its -e names, bundles and long options, other programs, and the command
 * lines the parser cannot read with certainty (they keep every item). */
#include "check.h"
#include "viewer_output.h"

static etl_viewer_output out;

#define PARSE(...)                                                                   \
    do {                                                                             \
        const char *const a[] = {__VA_ARGS__};                                       \
        etl_viewer_output_parse(&out, (int)(sizeof a / sizeof a[0]), a);             \
    } while (0)

static void tshark_outputs(void)
{
    /* -V and the summary never print hidden items; json, jsonraw, pdml and ek do */
    PARSE("/usr/bin/tshark", "-r", "x.etl", "-V");
    CHECK(!etl_viewer_output_prints_hidden(&out));
    CHECK(etl_viewer_output_prints_tree(&out));
    PARSE("tshark", "-r", "x.etl");
    CHECK(!etl_viewer_output_prints_hidden(&out));
    PARSE("tshark", "-r", "x.etl", "-T", "json");
    CHECK(etl_viewer_output_prints_hidden(&out));
    PARSE("tshark", "-r", "x.etl", "-Tpdml");
    CHECK(etl_viewer_output_prints_hidden(&out));
    PARSE("tshark", "-nr", "x.etl", "-VT", "ek");
    CHECK(etl_viewer_output_prints_hidden(&out));
    PARSE("tshark", "-T", "jsonraw", "-r", "x.etl");
    CHECK(etl_viewer_output_prints_hidden(&out));
    /* the last -T counts */
    PARSE("tshark", "-T", "json", "-T", "text", "-r", "x.etl");
    CHECK(!etl_viewer_output_prints_hidden(&out));
    PARSE("tshark", "-T", "psml", "-r", "x.etl");
    CHECK(!etl_viewer_output_prints_hidden(&out));
    /* a display filter's text is an argument, not options */
    PARSE("tshark", "-r", "x.etl", "-Y", "-T", "-V");
    CHECK(!etl_viewer_output_prints_hidden(&out));
    CHECK(!out.uncertain);
}

static void tshark_fields(void)
{
    PARSE("tshark", "-r", "x.etl", "-T", "fields", "-e", "frame.number", "-eetl.kv", "-E",
          "separator=,");
    CHECK(!etl_viewer_output_prints_hidden(&out));
    CHECK(etl_viewer_output_names(&out, "etl.kv"));
    CHECK(etl_viewer_output_names(&out, "frame.number"));
    CHECK(!etl_viewer_output_names(&out, "etl.field.value"));
    CHECK(!etl_viewer_output_names(&out, "separator=,"));
    CHECK(!etl_viewer_output_prints_tree(&out));
    /* json with -e prints the named fields only */
    PARSE("tshark", "-r", "x.etl", "-T", "json", "-e", "etl.field.name");
    CHECK(!etl_viewer_output_prints_hidden(&out));
    CHECK(etl_viewer_output_names(&out, "etl.field.name"));
    CHECK(etl_viewer_output_prints_tree(&out));
}

static void long_options(void)
{
    /* with "=", without (the next argument is the value), and those without a value */
    PARSE("tshark", "--disable-protocol", "-T", "-r", "x.etl", "--color", "-V");
    CHECK(!etl_viewer_output_prints_hidden(&out));
    CHECK(!out.uncertain);
    PARSE("tshark", "--enable-protocol=etl", "--no-duplicate-keys", "-T", "json", "-r", "x.etl");
    CHECK(etl_viewer_output_prints_hidden(&out));
    CHECK(!out.uncertain);
}

static void uncertain(void)
{
    /* an unknown short option, an operand, a missing argument: keep every item */
    PARSE("tshark", "-r", "x.etl", "-Tfields", "-e", "etl.kv", "-#");
    CHECK(out.uncertain && etl_viewer_output_prints_hidden(&out));
    CHECK(etl_viewer_output_prints_tree(&out));
    PARSE("tshark", "-r", "x.etl", "-V", "udp port 53");
    CHECK(out.uncertain && etl_viewer_output_prints_hidden(&out));
    PARSE("tshark", "-r");
    CHECK(out.uncertain && etl_viewer_output_prints_hidden(&out));
    etl_viewer_output_parse(&out, 0, NULL);
    CHECK(out.uncertain && etl_viewer_output_prints_hidden(&out));
    /* too many -e names */
    {
        const char *a[2 + 2 * (ETL_VIEWER_MAX_FIELDS + 1)];
        int n = 0;
        a[n++] = "tshark";
        for (int i = 0; i <= ETL_VIEWER_MAX_FIELDS; i++) {
            a[n++] = "-e";
            a[n++] = "frame.number";
        }
        etl_viewer_output_parse(&out, n, a);
        CHECK(out.uncertain && etl_viewer_output_prints_hidden(&out));
    }
}

static void other_programs(void)
{
    /* the GUI and the others: a visible tree there is a details pane (no hidden items) */
    PARSE("/usr/bin/wireshark", "-r", "x.etl", "-T", "json");
    CHECK(!out.is_tshark && !etl_viewer_output_prints_hidden(&out));
    CHECK(etl_viewer_output_prints_tree(&out));
    CHECK(!etl_viewer_output_names(&out, "etl.kv"));
    PARSE("sharkd", "-");
    CHECK(!etl_viewer_output_prints_hidden(&out));
}

static void cmdline(void)
{
    static const char line[] = "tshark\0-r\0x.etl\0-T\0fields\0-e\0etl.field.value\0";
    static const char cut[] = {'t', 's', 'h', 'a', 'r', 'k', '\0', '-', 'V'};

    etl_viewer_output_parse_cmdline(&out, line, sizeof line - 1);
    CHECK(out.is_tshark && !out.uncertain);
    CHECK(etl_viewer_output_names(&out, "etl.field.value"));
    CHECK(!etl_viewer_output_prints_hidden(&out));
    /* an argument without its NUL: cut short */
    etl_viewer_output_parse_cmdline(&out, cut, sizeof cut);
    CHECK(out.uncertain);
    etl_viewer_output_parse_cmdline(&out, NULL, 0);
    CHECK(out.uncertain);
}

int main(void)
{
    tshark_outputs();
    tshark_fields();
    long_options();
    uncertain();
    other_programs();
    cmdline();
    CHECK_MAIN_END();
}
