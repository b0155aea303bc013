/* Unit tests of message.c: which inserts a message names (etl_message_inserts, kept in every
 * schema), and that rendering only those gives the same text as rendering every insert - on a
 * schema whose unused inserts fill the insert text past its limit (where the cut depends on
 * them), and on every message of the shared net452 trace with the shared manifests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "etl.h"
#include "message.h"
#include "prescan.h"
#include "registry.h"
#include "resolve.h"
#include "tl_build.h"
#include "tl_schema.h"

static const char *captures, *manifests;

static void test_inserts(void)
{
    uint64_t u[2];
    /* %% is a percent, not an insert; !fmt! is skipped; two digits at most; %0 ends it */
    CHECK_EQ_U(etl_message_inserts("a=%1 b=%%2 c=%3!d! %n%12%99 %0 %5", u), 99);
    CHECK(u[0] == ((1ULL << 1) | (1ULL << 3) | (1ULL << 12)));
    CHECK(u[1] == 1ULL << (99 - 64));
    CHECK_EQ_U(etl_message_inserts("no inserts %n%t 100%", u), 0);
    CHECK(u[0] == 0 && u[1] == 0);
}

/* A TraceLogging schema of `strings` UTF-16 strings and then a UINT32, with message msg. */
static etl_schema *strings_schema(etl_schema_builder *b, unsigned strings, const char *msg)
{
    static tlbuf m;
    tl_begin(&m, "Big", 0);
    for (unsigned i = 0; i < strings; i++) {
        char name[8];
        snprintf(name, sizeof name, "s%u", i);
        tl_field(&m, name, 1, -1, 0);
    }
    tl_field(&m, "n", 8, -1, 0);
    tl_end(&m);
    etl_error err;
    CHECK(etl_tl_compile(b, m.b, m.n, 8, &err) == ETL_OK);
    b->message = etl_schema_builder_add_string(b, msg, strlen(msg));
    return etl_schema_builder_finish(b, m.b, m.n);
}

static void render_both(const etl_schema *s, const uint8_t *p, size_t n, char *fast, char *all, size_t cap)
{
    static etl_message_scratch scratch;
    scratch.render_all = false;
    etl_message_render(s, p, n, 8, &scratch, fast, cap);
    scratch.render_all = true;
    etl_message_render(s, p, n, 8, &scratch, all, cap);
    scratch.render_all = false;
    /* item by item (no scalar runs): the same text */
    static char items[256];
    CHECK(cap <= sizeof items);
    scratch.items = true;
    etl_message_render(s, p, n, 8, &scratch, items, cap);
    scratch.items = false;
    CHECK_STR(items, fast);
}

static void test_unused_inserts_at_the_limit(void)
{
    static etl_schema_builder b;
    etl_schema_builder_init(&b, NULL);
    static tlbuf p;
    static char big[3001], fast[256], all[256];
    memset(big, 'x', 3000);
    for (unsigned strings = 2; strings <= 6; strings += 4) {
        etl_schema *s = strings_schema(&b, strings, "n=%7 first=%1!s!");
        CHECK(s && s->message_max_insert == 7);
        p.n = 0;
        for (unsigned i = 0; i < strings; i++)
            tl_wstr(&p, big);
        tl_u32(&p, 42);
        render_both(s, p.b, p.n, fast, all, 12);
        CHECK_STR(fast, all);
        /* 2 strings: n is insert 3 (%7 stays as written); 6 strings: 18 KB of inserts before
         * n cut the text, so n (insert 7) is missing there too and %7 stays as written */
        CHECK(strncmp(fast, "n=%7 first=", 11) == 0);
        free(s);
        char msg[16];
        snprintf(msg, sizeof msg, "n=%%%u", strings + 1);
        s = strings_schema(&b, strings, msg);
        render_both(s, p.b, p.n, fast, all, sizeof fast);
        CHECK_STR(fast, all);
        /* n is the only insert used: with 2 strings it is there, with 6 the inserts before it
         * (unused by the message) fill the text first, as when every insert is rendered */
        CHECK_STR(fast, strings == 2 ? "n=42" : "n=%7");
        free(s);
    }
    etl_schema_builder_free(&b);
}

/* The compiled pieces (schema.h) render what parsing the message string renders: escapes,
 * printf formats, missing inserts, %0, a lone % - at every output size, where the parser's
 * pieces decide the cut (multi-byte characters at the edge included). */
static void test_compiled_pieces(void)
{
    static const char *const msgs[] = {
        "a=%1 b=%%2 c=%3!d! %n%12%99 %0 %5",
        "%1%2%3",
        "x%n%r%t% %.%!y%q%",
        "\xc3\xa9t\xc3\xa9=%2!s!;%n\xe2\x82\xac%1 %7",
        "no inserts at all",
        "%0",
        "100%",
        "%1!unterminated",
        "",
    };
    static etl_schema_builder b;
    etl_schema_builder_init(&b, NULL);
    static tlbuf p;
    p.n = 0;
    tl_wstr(&p, "\xc3\xa9\xc3\xa9 one");
    tl_wstr(&p, "");
    tl_u32(&p, 42);
    static etl_message_scratch scratch;
    for (size_t m = 0; m < sizeof msgs / sizeof msgs[0]; m++) {
        etl_schema *s = strings_schema(&b, 2, msgs[m]);
        CHECK(s != NULL);
        if (!s)
            continue;
        CHECK(msgs[m][0] == '\0' || strcmp(msgs[m], "%0") == 0 ? s->message_piece_count == 0
                                                             : s->message_piece_count > 0);
        for (size_t cap = 0; cap <= 64; cap++) {
            char a[64] = "?", c[64] = "?";
            scratch.parse = false;
            size_t na = etl_message_render(s, p.b, p.n, 8, &scratch, a, cap);
            scratch.parse = true;
            size_t nc = etl_message_render(s, p.b, p.n, 8, &scratch, c, cap);
            scratch.parse = false;
            CHECK_EQ_U(na, nc);
            CHECK(cap == 0 || strcmp(a, c) == 0);
        }
        free(s);
    }
    etl_schema_builder_free(&b);
}

/* A TraceLogging schema of fields a, b, c of the in-types `types`, with message msg. */
static etl_schema *three_fields(etl_schema_builder *b, const uint8_t types[3], const char *msg)
{
    static tlbuf m;
    tl_begin(&m, "Three", 0);
    tl_field(&m, "a", types[0], -1, 0);
    tl_field(&m, "b", types[1], -1, 0);
    tl_field(&m, "c", types[2], -1, 0);
    tl_end(&m);
    etl_error err;
    CHECK(etl_tl_compile(b, m.b, m.n, 8, &err) == ETL_OK);
    b->message = etl_schema_builder_add_string(b, msg, strlen(msg));
    etl_schema *s = etl_schema_builder_finish(b, m.b, m.n);
    CHECK(s != NULL);
    return s;
}

/* The message of payload p is `want`, from the compiled pieces and from the parsed string. */
static void check_message(const etl_schema *s, const tlbuf *p, const char *want)
{
    static etl_message_scratch scratch;
    char a[64], c[64];
    etl_message_render(s, p->b, p->n, 8, &scratch, a, sizeof a);
    scratch.parse = true;
    etl_message_render(s, p->b, p->n, 8, &scratch, c, sizeof c);
    scratch.parse = false;
    CHECK_STR(a, want);
    CHECK_STR(c, want);
}

/* An insert whose text holds a NUL (a counted 8-bit string "ab\0cd") ends there, as the string
 * it is read as does, and the next insert follows. */
static void test_insert_with_nul(void)
{
    static etl_schema_builder b;
    etl_schema_builder_init(&b, NULL);
    static const uint8_t types[3] = {23, 8, 23}; /* COUNTEDANSISTRING, UINT32, COUNTEDANSISTRING */
    etl_schema *s = three_fields(&b, types, "a=%1 b=%2 c=%3.");
    static tlbuf p;
    p.n = 0;
    tl_u16(&p, 5);
    static const uint8_t abcd[5] = {'a', 'b', 0, 'c', 'd'};
    for (int i = 0; i < 5; i++)
        tl_u8(&p, abcd[i]);
    tl_u32(&p, 7);
    tl_u16(&p, 2);
    tl_u8(&p, 'x');
    tl_u8(&p, 'y');
    check_message(s, &p, "a=ab b=7 c=xy.");
    free(s);
    etl_schema_builder_free(&b);
}

/* Empty inserts are empty, the first one too (it once showed the next insert's text: the
 * separator after an insert was written only when some text came before it). */
static void test_empty_inserts(void)
{
    static etl_schema_builder b;
    etl_schema_builder_init(&b, NULL);
    static const uint8_t types[3] = {2, 2, 2}; /* ANSISTRING */
    etl_schema *s = three_fields(&b, types, "a=[%1] b=[%2] c=[%3]");
    static const char *const texts[][3] = {{"", "xy", "z"}, {"", "", "z"}, {"x", "", "z"}, {"", "", ""}};
    static const char *const want[] = {"a=[] b=[xy] c=[z]", "a=[] b=[] c=[z]", "a=[x] b=[] c=[z]",
                                       "a=[] b=[] c=[]"};
    static tlbuf p;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        p.n = 0;
        for (int k = 0; k < 3; k++)
            tl_str(&p, texts[i][k]);
        check_message(s, &p, want[i]);
    }
    free(s);
    etl_schema_builder_free(&b);
}

/* Every message of net452 (CLR events) with the shared manifests, every way: only the inserts
 * used or all of them, compiled pieces or the parsed string, scalar runs or item by item. */
static void test_net452(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", captures, "perfview_net452_x64_merged_compressed.etl");
    etl_decoder *d = etl_decoder_new(NULL, NULL);
    etl_registry_add_path(etl_decoder_registry(d), manifests);
    etl_error err;
    const etl_observer obs = etl_registry_observer(etl_decoder_registry(d));
    CHECK(etl_prescan_file(path, &obs, 1, &err) == ETL_OK);
    etl_reader *r;
    CHECK(etl_reader_open_file(path, NULL, &r, &err) == ETL_OK);
    static char fast[65536], all[65536];
    static etl_message_scratch scratch;
    unsigned messages = 0, differ = 0, skipping = 0;
    etl_record rec;
    while (etl_reader_next(r, &rec, &err) == ETL_OK) {
        etl_resolved res;
        if (etl_decoder_resolve(d, &rec, 0, &res, NULL) != ETL_RESOLVE_DECODED || !res.has_message)
            continue;
        const uint8_t *pl = rec.bytes + rec.payload_offset;
        scratch.render_all = false;
        etl_message_render(res.schema, pl, rec.payload_size, rec.pointer_size, &scratch, fast, sizeof fast);
        scratch.render_all = true;
        etl_message_render(res.schema, pl, rec.payload_size, rec.pointer_size, &scratch, all, sizeof all);
        messages++;
        differ += strcmp(fast, all) != 0;
        /* the compiled pieces against the parsed string */
        scratch.render_all = false;
        scratch.parse = true;
        etl_message_render(res.schema, pl, rec.payload_size, rec.pointer_size, &scratch, all, sizeof all);
        scratch.parse = false;
        differ += strcmp(fast, all) != 0;
        /* the scalar runs against every value through etl_value_format, with and without
         * the inserts the message does not use */
        scratch.items = true;
        etl_message_render(res.schema, pl, rec.payload_size, rec.pointer_size, &scratch, all, sizeof all);
        differ += strcmp(fast, all) != 0;
        scratch.render_all = true;
        etl_message_render(res.schema, pl, rec.payload_size, rec.pointer_size, &scratch, all, sizeof all);
        differ += strcmp(fast, all) != 0;
        scratch.render_all = false;
        scratch.items = false;
        unsigned named = (unsigned)(__builtin_popcountll(res.schema->message_inserts[0]) +
                                    __builtin_popcountll(res.schema->message_inserts[1]));
        skipping += named < res.schema->field_count;
    }
    etl_reader_close(r);
    etl_decoder_free(d);
    CHECK(messages > 60000);
    CHECK(skipping > 10000); /* the CLR events whose messages leave fields out */
    CHECK_EQ_U(differ, 0);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_message CAPTURES_DIR MANIFESTS_DIR\n");
        return 2;
    }
    captures = argv[1];
    manifests = argv[2];
    test_inserts();
    test_unused_inserts_at_the_limit();
    test_compiled_pieces();
    test_insert_with_nul();
    test_empty_inserts();
    test_net452();
    CHECK_MAIN_END();
}
