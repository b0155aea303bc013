/*
 * etlgen_presets.c - the content of every preset etlgen can write.
 *
 * Each preset exercises one area of the format so that a decoder test can point at a
 * file and know exactly what must come out of it.  Payload values are fixed (or drawn
 * from a PRNG with a fixed seed), timestamps come from a simulated clock that starts
 * at the logfile header's anchor, so output is byte-for-byte reproducible.
 * captures/README.md describes the files in words.
 */
#include "etlgen_presets.h"
#include "etlgen_packets.h"
#include "etlgen_wpp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(expr)                \
    do {                           \
        int rc_ = (expr);          \
        if (rc_ != ETLW_OK)        \
            return rc_;            \
    } while (0)

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- identities used by the presets ------------------------------------------------------- */

/* TraceLogging / EventSource providers get the GUID Windows derives from the name
 * (SHA-1 name hash, EventSource.GetGuidFromName / TraceLoggingDynamic GetGuidForName);
 * the same computation gives the real GUID a61ea624-... for "MySource" in the shared
 * capture perfview_SelfDescribingSingleEvent_tl_compressed.etl. */
#define TL_PROVIDER_NAME "Etlshark.Test"
#define TL_PROVIDER_GUID "67ec4410-f420-5601-a336-bdeda0292064"
#define ES_PROVIDER_NAME "Etlshark-EventSource"
#define ES_PROVIDER_GUID "c67d050d-ab99-5fe2-bf03-a67b39314c99"
/* Provider group of Windows telemetry providers (format doc §5.3 example). */
#define TL_GROUP_GUID "4f50731a-89cf-4782-b3e0-dce8c90476ba"
/* Made-up identities for the other kinds of providers. */
#define MANIFEST_PROVIDER_GUID "5e1b2a40-7d2c-4c51-9b8e-3f6a0d9c1e27"
#define MOF_CLASS_GUID "a7f3c2d1-0b5e-4c8a-9e61-2d4f8b7c3a10"
#define MOF_INSTANCE_CLASS_GUID "b8e4d3c2-1c6f-4d9b-8f72-3e5a9c8d4b21"
#define WPP_MESSAGE_GUID "c9f5e4d3-2d70-4eac-a083-4f6bad9e5c32"
#define ERROR_PROVIDER_GUID "da06f5e4-3e81-4fbd-b194-507cbe0f6d43"
#define INTERLEAVED_PROVIDER_GUID "eb17a6f5-4f92-40ce-82a5-618dcf1a7e54"

#define PID 4242u
#define TID_BASE 5000u

static etlw_guid guid(const char *text)
{
    etlw_guid g;
    if (etlw_guid_parse(text, &g) != 0)
        abort(); /* the constants above are wrong: a bug, not an input error */
    return g;
}

/* ---- deterministic randomness and time -------------------------------------------------------- */

/* splitmix64: tiny, good enough spread, same sequence on every platform. */
struct rng {
    uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(struct rng *r, uint32_t n)
{
    return (uint32_t)(rng_next(r) % n);
}

/* State shared by one preset run. */
struct gen {
    etlw_writer *w;
    unsigned ps;     /* pointer size of the trace; records use the matching variant */
    int64_t now;     /* simulated raw clock (QPC ticks at 10 MHz) */
    struct rng rng;
};

static void gen_init(struct gen *g, etlw_writer *w, uint64_t seed)
{
    g->w = w;
    g->ps = etlw_pointer_size(w);
    g->now = etlw_now(w) + 10000; /* first event 1 ms after the anchor */
    g->rng.s = seed;
}

/* Advance the clock by a pseudo-random step in [min, min + spread). */
static int64_t tick(struct gen *g, uint32_t min, uint32_t spread)
{
    g->now += min + (spread ? rng_below(&g->rng, spread) : 0);
    return g->now;
}

static void base_config(etlw_config *c, unsigned pointer_size, unsigned cpus, uint32_t buffer_size,
                        const char *logger, const char *file)
{
    etlw_config_init(c);
    c->pointer_size = pointer_size;
    c->num_cpus = cpus;
    c->buffer_size = buffer_size;
    c->logger_name = logger;
    c->log_file_name = file;
    c->header_tid = 0x1F40;
    c->header_pid = 0x1F3C;
}

/* ---- TraceLogging events (tl64, tl32, compressed*) -------------------------------------------- */

static const etlw_tl_field hello_fields[] = {
    { .name = "Message", .intype = ETLW_TL_ANSISTRING, .outtype = ETLW_TLO_UTF8 },
    { .name = "Count", .intype = ETLW_TL_UINT32 },
    { .name = "Enabled", .intype = ETLW_TL_BOOL32 },
};

static const etlw_tl_field scalar_fields[] = {
    { .name = "I8", .intype = ETLW_TL_INT8 },
    { .name = "U8", .intype = ETLW_TL_UINT8 },
    { .name = "I16", .intype = ETLW_TL_INT16 },
    { .name = "U16", .intype = ETLW_TL_UINT16, .outtype = ETLW_TLO_HEX },
    { .name = "I32", .intype = ETLW_TL_INT32 },
    { .name = "U32", .intype = ETLW_TL_UINT32 },
    { .name = "I64", .intype = ETLW_TL_INT64 },
    { .name = "U64", .intype = ETLW_TL_UINT64 },
    { .name = "F32", .intype = ETLW_TL_FLOAT },
    { .name = "F64", .intype = ETLW_TL_DOUBLE },
    { .name = "Bool", .intype = ETLW_TL_BOOL32 },
    { .name = "Guid", .intype = ETLW_TL_GUID },
    { .name = "FileTime", .intype = ETLW_TL_FILETIME },
    { .name = "SystemTime", .intype = ETLW_TL_SYSTEMTIME },
    { .name = "Sid", .intype = ETLW_TL_SID },
    { .name = "Hex32", .intype = ETLW_TL_HEXINT32 },
    { .name = "Hex64", .intype = ETLW_TL_HEXINT64 },
    { .name = "Wide", .intype = ETLW_TL_UNICODESTRING },
    { .name = "Narrow", .intype = ETLW_TL_ANSISTRING },
    { .name = "CountedWide", .intype = ETLW_TL_COUNTEDSTRING },
    { .name = "CountedNarrow", .intype = ETLW_TL_COUNTEDANSISTRING },
    { .name = "Binary", .intype = ETLW_TL_BINARY },
    { .name = "CountedBinary", .intype = ETLW_TL_COUNTEDBINARY },
};

static const etlw_tl_field array_fields[] = {
    { .name = "Fixed", .intype = ETLW_TL_UINT32, .count = ETLW_TL_CCOUNT, .ccount = 4 },
    { .name = "Var", .intype = ETLW_TL_UINT16, .count = ETLW_TL_VCOUNT },
    { .name = "Names", .intype = ETLW_TL_UNICODESTRING, .count = ETLW_TL_VCOUNT },
    { .name = "Empty", .intype = ETLW_TL_INT64, .count = ETLW_TL_VCOUNT },
    { .name = "Guids", .intype = ETLW_TL_GUID, .count = ETLW_TL_CCOUNT, .ccount = 2 },
};

/* Struct members follow their struct; the struct's outtype is its member count. */
static const etlw_tl_field nested_fields[] = {
    { .name = "Point", .intype = ETLW_TL_STRUCT, .outtype = 2 },
    { .name = "X", .intype = ETLW_TL_INT32 },
    { .name = "Y", .intype = ETLW_TL_INT32 },
    { .name = "Outer", .intype = ETLW_TL_STRUCT, .outtype = 3 },
    { .name = "Name", .intype = ETLW_TL_ANSISTRING },
    { .name = "Inner", .intype = ETLW_TL_STRUCT, .outtype = 2 },
    { .name = "A", .intype = ETLW_TL_UINT8 },
    { .name = "B", .intype = ETLW_TL_UINT16, .outtype = ETLW_TLO_HEX },
    { .name = "Tag", .intype = ETLW_TL_UINT32 },
    { .name = "Pairs", .intype = ETLW_TL_STRUCT, .outtype = 2, .count = ETLW_TL_VCOUNT },
    { .name = "Key", .intype = ETLW_TL_UINT16 },
    { .name = "Value", .intype = ETLW_TL_UNICODESTRING },
    { .name = "Grid", .intype = ETLW_TL_STRUCT, .outtype = 1, .count = ETLW_TL_CCOUNT, .ccount = 2 },
    { .name = "Row", .intype = ETLW_TL_INT16, .count = ETLW_TL_CCOUNT, .ccount = 3 },
};

/* "Pointer" is HEXINT32 or HEXINT64 depending on the trace (set at run time). */
static const etlw_tl_field format_fields[] = {
    { .name = "Pid", .intype = ETLW_TL_UINT32, .outtype = ETLW_TLO_PID },
    { .name = "Tid", .intype = ETLW_TL_UINT32, .outtype = ETLW_TLO_TID },
    { .name = "Port", .intype = ETLW_TL_UINT16, .outtype = ETLW_TLO_PORT },
    { .name = "IPv4", .intype = ETLW_TL_UINT32, .outtype = ETLW_TLO_IPV4 },
    { .name = "IPv6", .intype = ETLW_TL_BINARY, .outtype = ETLW_TLO_IPV6 },
    { .name = "Status", .intype = ETLW_TL_UINT32, .outtype = ETLW_TLO_NTSTATUS },
    { .name = "Result", .intype = ETLW_TL_INT32, .outtype = ETLW_TLO_HRESULT },
    { .name = "Error", .intype = ETLW_TL_UINT32, .outtype = ETLW_TLO_WIN32ERROR },
    { .name = "Flag", .intype = ETLW_TL_UINT8, .outtype = ETLW_TLO_BOOLEAN },
    { .name = "Letter", .intype = ETLW_TL_UINT16, .outtype = ETLW_TLO_STRING },
    { .name = "Json", .intype = ETLW_TL_ANSISTRING, .outtype = ETLW_TLO_JSON },
    { .name = "When", .intype = ETLW_TL_FILETIME, .outtype = ETLW_TLO_DATETIME_UTC },
    { .name = "Tagged", .intype = ETLW_TL_UINT32, .tags = 0x0123456 },
    { .name = "Pointer", .intype = ETLW_TL_HEXINT64, .outtype = ETLW_TLO_CODE_POINTER },
};

static const uint8_t custom_schema[] = { 'e', 't', 'l', 0x01 };
static const etlw_tl_field custom_fields[] = {
    { .name = "Before", .intype = ETLW_TL_UINT32 },
    /* Custom serializer: the low 5 InMeta bits are the protocol family (5 = first one
     * not reserved by Microsoft); payload is u16 size + opaque bytes. */
    { .name = "Opaque", .intype = 5, .count = ETLW_TL_CUSTOM, .schema = custom_schema,
      .schema_len = sizeof custom_schema },
    { .name = "After", .intype = ETLW_TL_UINT32 },
};

static const etlw_tl_field work_fields[] = {
    { .name = "Item", .intype = ETLW_TL_UNICODESTRING },
    { .name = "Step", .intype = ETLW_TL_UINT32 },
};

/* Common header fields of the Etlshark.Test provider's events. */
static etlw_tl_event tl_event(struct gen *g, unsigned cpu, const char *name, uint8_t level,
                              uint64_t keyword)
{
    etlw_tl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.hdr.tid = TID_BASE + cpu;
    ev.hdr.pid = PID;
    ev.hdr.timestamp = tick(g, 500, 4000);
    ev.hdr.provider = guid(TL_PROVIDER_GUID);
    ev.hdr.level = level;
    ev.hdr.keyword = keyword;
    ev.provider_name = TL_PROVIDER_NAME;
    ev.name = name;
    return ev;
}

static int tl_hello(struct gen *g, unsigned cpu, uint32_t n)
{
    etlw_guid group = guid(TL_GROUP_GUID);
    uint8_t buf[128];
    char text[64];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    snprintf(text, sizeof text, "hello from etlshark #%u", (unsigned)n);
    etlw_put_strz(&p, text);
    etlw_put_u32(&p, n);
    etlw_put_u32(&p, n % 2);
    etlw_tl_event ev = tl_event(g, cpu, "Hello", 4, 0x1);
    /* Every other Hello carries the provider-group trait, as both forms exist. */
    ev.provider_group = n % 2 ? &group : NULL;
    return etlw_write_tl(g->w, cpu, &ev, hello_fields, COUNT(hello_fields), p.data, p.len);
}

static int tl_scalars(struct gen *g, unsigned cpu)
{
    static const uint32_t sid_subs[] = { 21, 1004336348, 1177238915, 682003330, 1001 };
    static const uint8_t bin[] = { 0xDE, 0xAD, 0xBE, 0xEF };
    static const uint8_t cbin[] = { 0x01, 0x02, 0x03 };
    etlw_guid some = guid("01234567-89ab-cdef-0123-456789abcdef");
    uint8_t buf[512];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_u8(&p, (uint8_t)-5);
    etlw_put_u8(&p, 200);
    etlw_put_u16(&p, (uint16_t)-1234);
    etlw_put_u16(&p, 0xBEEF);
    etlw_put_u32(&p, (uint32_t)-100000);
    etlw_put_u32(&p, 4000000000u);
    etlw_put_u64(&p, (uint64_t)-5000000000000LL);
    etlw_put_u64(&p, 18000000000000000000ull);
    etlw_put_f32(&p, 1.5f);
    etlw_put_f64(&p, -2.25);
    etlw_put_u32(&p, 1);
    etlw_put_guid(&p, &some);
    etlw_put_u64(&p, 133486382450000000ull); /* 2024-01-02T03:04:05Z */
    static const uint16_t st[8] = { 2024, 1, 2, 2, 3, 4, 5, 678 }; /* Y M DoW D h m s ms */
    for (unsigned i = 0; i < 8; i++)
        etlw_put_u16(&p, st[i]);
    etlw_put_sid(&p, 5, sid_subs, COUNT(sid_subs));
    etlw_put_u32(&p, 0xDEADBEEFu);
    etlw_put_u64(&p, 0x00007FF612345678ull);
    etlw_put_utf16z(&p, "Gr\xC3\xBC\xC3\x9F" "e \xE2\x82\xAC \xF0\x9F\x98\x80"); /* Grüße € 😀 */
    etlw_put_strz(&p, "plain ascii");
    etlw_put_counted_utf16(&p, "counted \xE2\x9C\x93");               /* counted ✓ */
    etlw_put_counted(&p, "counted ansi", 12);
    etlw_put_counted(&p, bin, sizeof bin);
    etlw_put_counted(&p, cbin, sizeof cbin);
    etlw_tl_event ev = tl_event(g, cpu, "AllScalars", 5, 0x2);
    return etlw_write_tl(g->w, cpu, &ev, scalar_fields, COUNT(scalar_fields), p.data, p.len);
}

static int tl_arrays(struct gen *g, unsigned cpu, unsigned variant)
{
    etlw_guid a = guid("11111111-2222-3333-4444-555555555555");
    etlw_guid b = guid("66666666-7777-8888-9999-aaaaaaaaaaaa");
    uint8_t buf[512];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    for (uint32_t i = 0; i < 4; i++)
        etlw_put_u32(&p, 10 * (i + 1) + variant);
    unsigned nvar = 3 + variant; /* element counts differ between the two Arrays events */
    etlw_put_u16(&p, (uint16_t)nvar);
    for (unsigned i = 0; i < nvar; i++)
        etlw_put_u16(&p, (uint16_t)(0x100 + i));
    etlw_put_u16(&p, 2);
    etlw_put_utf16z(&p, "alpha");
    etlw_put_utf16z(&p, variant ? "" : "beta");
    etlw_put_u16(&p, 0); /* empty variable array */
    etlw_put_guid(&p, &a);
    etlw_put_guid(&p, &b);
    etlw_tl_event ev = tl_event(g, cpu, "Arrays", 4, 0x2);
    return etlw_write_tl(g->w, cpu, &ev, array_fields, COUNT(array_fields), p.data, p.len);
}

static int tl_nested(struct gen *g, unsigned cpu)
{
    uint8_t buf[256];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_u32(&p, (uint32_t)-7);  /* Point.X */
    etlw_put_u32(&p, 12);            /* Point.Y */
    etlw_put_strz(&p, "outer");      /* Outer.Name */
    etlw_put_u8(&p, 0xA5);           /* Outer.Inner.A */
    etlw_put_u16(&p, 0x1234);        /* Outer.Inner.B */
    etlw_put_u32(&p, 99);            /* Outer.Tag */
    etlw_put_u16(&p, 2);             /* Pairs: 2 elements */
    etlw_put_u16(&p, 1);
    etlw_put_utf16z(&p, "one");
    etlw_put_u16(&p, 2);
    etlw_put_utf16z(&p, "two");
    for (int row = 0; row < 2; row++) /* Grid[2] of Row[3] */
        for (int col = 0; col < 3; col++)
            etlw_put_u16(&p, (uint16_t)(row * 10 + col - 1));
    etlw_tl_event ev = tl_event(g, cpu, "Nested", 4, 0x4);
    return etlw_write_tl(g->w, cpu, &ev, nested_fields, COUNT(nested_fields), p.data, p.len);
}

static int tl_formats(struct gen *g, unsigned cpu)
{
    static const uint8_t ipv6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
    etlw_tl_field fields[COUNT(format_fields)];
    memcpy(fields, format_fields, sizeof fields);
    fields[COUNT(fields) - 1].intype = g->ps == 8 ? ETLW_TL_HEXINT64 : ETLW_TL_HEXINT32;
    uint8_t buf[256];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_u32(&p, PID);
    etlw_put_u32(&p, TID_BASE + cpu);
    etlw_put_u8(&p, 0x01);           /* port 443, stored big-endian */
    etlw_put_u8(&p, 0xBB);
    static const uint8_t ipv4[4] = { 192, 168, 1, 20 }; /* network order */
    etlw_put(&p, ipv4, 4);
    etlw_put_counted(&p, ipv6, sizeof ipv6);
    etlw_put_u32(&p, 0xC0000005u);   /* STATUS_ACCESS_VIOLATION */
    etlw_put_u32(&p, 0x80070005u);   /* E_ACCESSDENIED */
    etlw_put_u32(&p, 2);             /* ERROR_FILE_NOT_FOUND */
    etlw_put_u8(&p, 1);
    etlw_put_u16(&p, 'Z');
    etlw_put_strz(&p, "{\"k\":[1,2]}");
    etlw_put_u64(&p, 133486382450000000ull);
    etlw_put_u32(&p, 7);
    etlw_put_ptr(&p, g->ps, g->ps == 8 ? 0x00007FF6ABCD1234ull : 0x77A01234u);
    etlw_tl_event ev = tl_event(g, cpu, "Formats", 4, 0x4);
    ev.tags = 0x0ABCDEF;
    return etlw_write_tl(g->w, cpu, &ev, fields, COUNT(fields), p.data, p.len);
}

static int tl_custom(struct gen *g, unsigned cpu)
{
    static const uint8_t opaque[] = { 0x0A, 0x03, 'e', 't', 'l' };
    uint8_t buf[64];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_u32(&p, 0x11111111u);
    etlw_put_counted(&p, opaque, sizeof opaque);
    etlw_put_u32(&p, 0x22222222u);
    etlw_tl_event ev = tl_event(g, cpu, "Custom", 5, 0x8);
    return etlw_write_tl(g->w, cpu, &ev, custom_fields, COUNT(custom_fields), p.data, p.len);
}

/* A TraceLogging activity: Start (opcode 1) names its parent in RELATED_ACTIVITYID,
 * Stop (opcode 2) carries a stack of the trace's bitness. */
static int tl_work(struct gen *g, unsigned cpu_start, unsigned cpu_stop)
{
    etlw_guid activity = guid("a1a1a1a1-b2b2-c3c3-d4d4-e5e5e5e5e5e5");
    etlw_guid parent = guid("f0f0f0f0-0000-1111-2222-333333333333");
    uint8_t buf[128], extbuf[256];
    etlw_bytes p, ext;

    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_utf16z(&p, "job-1");
    etlw_put_u32(&p, 1);
    etlw_bytes_init(&ext, extbuf, sizeof extbuf);
    etlw_ext_related_activity(&ext, &parent);
    etlw_tl_event ev = tl_event(g, cpu_start, "Work", 4, 0x10);
    ev.hdr.opcode = 1;
    ev.hdr.activity_id = activity;
    ev.more_ext = &ext;
    CHECK(etlw_write_tl(g->w, cpu_start, &ev, work_fields, COUNT(work_fields), p.data, p.len));

    etlw_bytes_reset(&p);
    etlw_put_utf16z(&p, "job-1");
    etlw_put_u32(&p, 2);
    etlw_bytes_reset(&ext);
    if (g->ps == 8) {
        static const uint64_t frames[] = { 0xFFFFF80312345678ull, 0x00007FF612340010ull,
                                           0x00007FF612340200ull };
        etlw_ext_stack64(&ext, 0x1122334455667788ull, frames, COUNT(frames));
    } else {
        static const uint32_t frames[] = { 0x82345678u, 0x77A01010u, 0x77A02020u };
        etlw_ext_stack32(&ext, 0x1122334455667788ull, frames, COUNT(frames));
    }
    ev = tl_event(g, cpu_stop, "Work", 4, 0x10);
    ev.hdr.opcode = 2;
    ev.hdr.activity_id = activity;
    ev.more_ext = &ext;
    return etlw_write_tl(g->w, cpu_stop, &ev, work_fields, COUNT(work_fields), p.data, p.len);
}

static int fill_tl(etlw_writer *w, const etlgen_options *opt)
{
    (void)opt;
    struct gen g;
    gen_init(&g, w, 0x7115EEDull);
    CHECK(tl_hello(&g, 0, 0));
    CHECK(tl_hello(&g, 1, 1));
    CHECK(tl_scalars(&g, 0));
    CHECK(tl_arrays(&g, 1, 0));
    CHECK(tl_nested(&g, 0));
    CHECK(tl_formats(&g, 1));
    CHECK(tl_custom(&g, 0));
    CHECK(tl_work(&g, 1, 0));
    CHECK(tl_hello(&g, 0, 2));
    CHECK(tl_arrays(&g, 1, 1));
    CHECK(tl_hello(&g, 1, 3));
    CHECK(tl_hello(&g, 0, 4));
    return ETLW_OK;
}

static void config_tl64(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    base_config(c, 8, 2, 4096, "etlshark-tl64", "C:\\etlshark\\tl64.etl");
}

static void config_tl32(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    base_config(c, 4, 2, 4096, "etlshark-tl32", "C:\\etlshark\\tl32.etl");
}

/* ---- manifest-based events with extended items (manifest64) ----------------------------------- */

static etlw_event_rec manifest_event(struct gen *g, unsigned cpu, uint16_t id, uint8_t version,
                                     uint8_t level, uint8_t opcode, uint16_t task, uint64_t keyword)
{
    etlw_event_rec r;
    memset(&r, 0, sizeof r);
    r.tid = TID_BASE + 100 + cpu;
    r.pid = PID + 1;
    r.timestamp = tick(g, 200, 3000);
    r.provider = guid(MANIFEST_PROVIDER_GUID);
    r.id = id;
    r.version = version;
    r.channel = 16; /* first channel value a manifest can define */
    r.level = level;
    r.opcode = opcode;
    r.task = task;
    r.keyword = keyword;
    r.kernel_time = 3;
    r.user_time = 1;
    return r;
}

static int fill_manifest64(etlw_writer *w, const etlgen_options *opt)
{
    (void)opt;
    static const uint32_t user_sid[] = { 21, 3623811015u, 3361044348u, 30300820u, 1013 };
    static const uint64_t stack[] = { 0xFFFFF8031C2A1B10ull, 0xFFFFF8031C2A0F00ull,
                                      0x00007FFC10203040ull, 0x00007FFC10205060ull,
                                      0x00007FF7AA001000ull };
    static const uint64_t pmc[] = { 123456789ull, 987654321ull };
    static const uint8_t unknown_item[12] = { 'u', 'n', 'k', 'n', 'o', 'w', 'n', 0, 1, 2, 3, 4 };
    etlw_guid parent_guid = guid("0badc0de-0000-4000-8000-000000000001");
    etlw_guid container = guid("c0c0c0c0-1111-2222-3333-444444444444");
    struct gen g;
    gen_init(&g, w, 0x3A11F357ull);
    uint8_t pbuf[256], ebuf[512];
    etlw_bytes p, ext;
    etlw_bytes_init(&p, pbuf, sizeof pbuf);
    etlw_bytes_init(&ext, ebuf, sizeof ebuf);

    for (uint32_t job = 1; job <= 3; job++) {
        unsigned cpu = job % 2;
        etlw_guid activity = guid("aaaaaaaa-0000-0000-0000-000000000000");
        activity.d2 = (uint16_t)job;
        etlw_guid related = guid("bbbbbbbb-0000-0000-0000-000000000000");
        related.d2 = (uint16_t)job;

        /* JobStart: id 1, opcode Start, task 1 "Job". */
        etlw_bytes_reset(&p);
        etlw_bytes_reset(&ext);
        char name[16];
        snprintf(name, sizeof name, "job-%u", (unsigned)job);
        etlw_put_utf16z(&p, name);
        etlw_put_u32(&p, job);
        etlw_ext_related_activity(&ext, &related);
        etlw_ext_sid(&ext, 5, user_sid, COUNT(user_sid));
        etlw_ext_ts_id(&ext, 1);
        etlw_event_rec r = manifest_event(&g, cpu, 1, 0, 4, 1, 1, 0x8000000000000001ull);
        r.activity_id = activity;
        CHECK(etlw_write_event(w, cpu, &r, &ext, p.data, p.len));

        /* JobStop: id 2 version 1, opcode Stop. */
        etlw_bytes_reset(&p);
        etlw_bytes_reset(&ext);
        etlw_put_u32(&p, job);
        etlw_put_u64(&p, 1000ull * job);
        etlw_ext_stack64(&ext, 0xABCDEF0000000000ull | job, stack, COUNT(stack));
        etlw_ext_event_key(&ext, 0x5000000000000000ull + job);
        r = manifest_event(&g, 1 - cpu, 2, 1, 4, 2, 1, 0x8000000000000001ull);
        r.activity_id = activity;
        CHECK(etlw_write_event(w, 1 - cpu, &r, &ext, p.data, p.len));
    }

    /* JobFailed: id 3, level Error, task 2, SID + TS_ID + stack. */
    etlw_bytes_reset(&p);
    etlw_bytes_reset(&ext);
    etlw_put_utf16z(&p, "disk full");
    etlw_put_u32(&p, 0x80070070u);
    etlw_ext_sid(&ext, 5, user_sid, COUNT(user_sid));
    etlw_ext_ts_id(&ext, 2);
    etlw_ext_stack64(&ext, 0x42, stack, 2);
    etlw_event_rec r = manifest_event(&g, 0, 3, 0, 2, 0, 2, 0x8000000000000002ull);
    CHECK(etlw_write_event(w, 0, &r, &ext, p.data, p.len));

    /* EventWriteString: id 0, STRING_ONLY flag, payload is one UTF-16 string. */
    etlw_bytes_reset(&p);
    etlw_put_utf16z(&p, "a plain string event");
    r = manifest_event(&g, 1, 0, 0, 5, 0, 0, 0);
    r.channel = 0;
    r.flags = ETLW_EVENT_FLAG_STRING_ONLY;
    CHECK(etlw_write_event(w, 1, &r, NULL, p.data, p.len));

    /* Probe: id 4 carrying every remaining item kind, including an unknown type 0x30. */
    etlw_bytes_reset(&p);
    etlw_bytes_reset(&ext);
    etlw_put_u32(&p, 0xFEEDFACEu);
    etlw_ext_instance_info(&ext, 7, 3, &parent_guid);
    etlw_ext_process_start_key(&ext, 0x0000000100000042ull);
    etlw_ext_pebs_index(&ext, 0x99);
    etlw_ext_pmc_counters(&ext, pmc, COUNT(pmc));
    size_t at = etlw_ext_begin(&ext, ETLW_EXT_CONTAINER_ID);
    etlw_put_guid(&ext, &container);
    etlw_ext_end(&ext, at);
    etlw_ext_add(&ext, 0x30, unknown_item, sizeof unknown_item);
    r = manifest_event(&g, 0, 4, 0, 4, 0, 3, 0x8000000000000004ull);
    CHECK(etlw_write_event(w, 0, &r, &ext, p.data, p.len));
    return ETLW_OK;
}

static void config_manifest64(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    base_config(c, 8, 2, 4096, "etlshark-manifest64", "C:\\etlshark\\manifest64.etl");
}

/* ---- EventSource with its manifest in the stream (eventsource) ----------------------------------- */

/* The manifest an EventSource named Etlshark-EventSource would send (same shape as the
 * one in the shared tx_BondEtwSample capture).  Task = 0xFFFE - event id, as EventSource
 * assigns them when the code names no task. */
static const char es_manifest[] =
    "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\r\n"
    " <instrumentation xmlns:xs=\"http://www.w3.org/2001/XMLSchema\" "
    "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
    "xmlns:win=\"http://manifests.microsoft.com/win/2004/08/windows/events\">\r\n"
    "  <events xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\r\n"
    "<provider name=\"" ES_PROVIDER_NAME "\" guid=\"{" ES_PROVIDER_GUID "}\" "
    "resourceFileName=\"" ES_PROVIDER_NAME "\" messageFileName=\"" ES_PROVIDER_NAME "\" "
    "symbol=\"EtlsharkEventSource\">\r\n"
    " <tasks>\r\n"
    "  <task name=\"Bytes\" message=\"$(string.task_Bytes)\" value=\"65531\"/>\r\n"
    "  <task name=\"Stop\" message=\"$(string.task_Stop)\" value=\"65532\"/>\r\n"
    "  <task name=\"Start\" message=\"$(string.task_Start)\" value=\"65533\"/>\r\n"
    " </tasks>\r\n"
    " <opcodes>\r\n"
    " </opcodes>\r\n"
    " <keywords>\r\n"
    "  <keyword name=\"Session3\" message=\"$(string.keyword_Session3)\" mask=\"0x100000000000\"/>\r\n"
    "  <keyword name=\"Session2\" message=\"$(string.keyword_Session2)\" mask=\"0x200000000000\"/>\r\n"
    "  <keyword name=\"Session1\" message=\"$(string.keyword_Session1)\" mask=\"0x400000000000\"/>\r\n"
    "  <keyword name=\"Session0\" message=\"$(string.keyword_Session0)\" mask=\"0x800000000000\"/>\r\n"
    " </keywords>\r\n"
    " <events>\r\n"
    "  <event value=\"1\" version=\"0\" level=\"win:Informational\" symbol=\"Start\" "
    "message=\"$(string.event_Start)\" task=\"Start\" template=\"StartArgs\"/>\r\n"
    "  <event value=\"2\" version=\"0\" level=\"win:Informational\" symbol=\"Stop\" "
    "message=\"$(string.event_Stop)\" task=\"Stop\" template=\"StopArgs\"/>\r\n"
    "  <event value=\"3\" version=\"0\" level=\"win:Verbose\" symbol=\"Bytes\" "
    "message=\"$(string.event_Bytes)\" task=\"Bytes\" template=\"BytesArgs\"/>\r\n"
    " </events>\r\n"
    " <templates>\r\n"
    "  <template tid=\"StartArgs\">\r\n"
    "   <data name=\"Name\" inType=\"win:UnicodeString\"/>\r\n"
    "   <data name=\"Value\" inType=\"win:Int32\"/>\r\n"
    "  </template>\r\n"
    "  <template tid=\"StopArgs\">\r\n"
    "   <data name=\"Elapsed\" inType=\"win:Int64\"/>\r\n"
    "   <data name=\"Ok\" inType=\"win:Boolean\"/>\r\n"
    "  </template>\r\n"
    "  <template tid=\"BytesArgs\">\r\n"
    "   <data name=\"Size\" inType=\"win:Int32\"/>\r\n"
    "   <data name=\"Data\" inType=\"win:Binary\" length=\"Size\"/>\r\n"
    "  </template>\r\n"
    " </templates>\r\n"
    "</provider>\r\n"
    "</events>\r\n"
    "</instrumentation>\r\n"
    "<localization>\r\n"
    " <resources culture=\"en-US\">\r\n"
    "  <stringTable>\r\n"
    "   <string id=\"event_Bytes\" value=\"%1 bytes\"/>\r\n"
    "   <string id=\"event_Start\" value=\"Start %1 with %2\"/>\r\n"
    "   <string id=\"event_Stop\" value=\"Stop after %1 (ok=%2)\"/>\r\n"
    "   <string id=\"keyword_Session0\" value=\"Session0\"/>\r\n"
    "   <string id=\"keyword_Session1\" value=\"Session1\"/>\r\n"
    "   <string id=\"keyword_Session2\" value=\"Session2\"/>\r\n"
    "   <string id=\"keyword_Session3\" value=\"Session3\"/>\r\n"
    "   <string id=\"task_Bytes\" value=\"Bytes\"/>\r\n"
    "   <string id=\"task_Start\" value=\"Start\"/>\r\n"
    "   <string id=\"task_Stop\" value=\"Stop\"/>\r\n"
    "  </stringTable>\r\n"
    " </resources>\r\n"
    "</localization>\r\n"
    "</instrumentationManifest>\r\n";

static etlw_event_rec es_event(struct gen *g, uint16_t id, uint8_t level)
{
    etlw_event_rec r;
    memset(&r, 0, sizeof r);
    r.tid = TID_BASE + 200;
    r.pid = PID + 2;
    r.timestamp = tick(g, 1000, 5000);
    r.provider = guid(ES_PROVIDER_GUID);
    r.id = id;
    r.level = level;
    r.task = (uint16_t)(0xFFFE - id);
    r.keyword = 0xF00000000000ull;
    return r;
}

static int fill_eventsource(etlw_writer *w, const etlgen_options *opt)
{
    (void)opt;
    struct gen g;
    gen_init(&g, w, 0xE5E5E5ull);
    size_t len = sizeof es_manifest - 1;
    etlw_event_rec base = es_event(&g, 0, 0);
    /* Two chunks, as a manifest larger than one chunk would be sent. */
    CHECK(etlw_write_eventsource_manifest(w, 0, &base, es_manifest, len, (len + 1) / 2));
    g.now += 2;

    uint8_t buf[128];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    for (int32_t i = 1; i <= 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "task-%d", (int)i);
        etlw_bytes_reset(&p);
        etlw_put_utf16z(&p, name);
        etlw_put_u32(&p, (uint32_t)(i * 100));
        etlw_event_rec r = es_event(&g, 1, 4);
        CHECK(etlw_write_event(w, 0, &r, NULL, p.data, p.len));
        etlw_bytes_reset(&p);
        etlw_put_u64(&p, (uint64_t)(i * 2500));
        etlw_put_u32(&p, i != 2);
        r = es_event(&g, 2, 4);
        CHECK(etlw_write_event(w, 1, &r, NULL, p.data, p.len));
    }
    static const uint8_t data[6] = { 'b', 'y', 't', 'e', 's', 0 };
    etlw_bytes_reset(&p);
    etlw_put_u32(&p, sizeof data);
    etlw_put(&p, data, sizeof data);
    etlw_event_rec r = es_event(&g, 3, 5);
    return etlw_write_event(w, 1, &r, NULL, p.data, p.len);
}

static void config_eventsource(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    base_config(c, 8, 2, 4096, "etlshark-eventsource", "C:\\etlshark\\eventsource.etl");
}

/* ---- classic kernel, MOF, WPP and odd records (kernel64, kernel32) ------------------------------ */

static etlw_system_rec sys_rec(struct gen *g, enum etlw_system_kind kind, uint8_t group,
                               uint8_t type, uint8_t version, uint32_t tid)
{
    etlw_system_rec r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.group = group;
    r.type = type;
    r.version = version;
    r.tid = tid;
    r.pid = tid ? PID + 3 : 0;
    r.timestamp = tick(g, 100, 2000);
    r.kernel_time = 12;
    r.user_time = 5;
    return r;
}

/* EventTrace HEADER_EXTENSION (hook 0x0005): 8 group masks + version. */
static int k_header_extension(struct gen *g, unsigned cpu)
{
    uint8_t buf[64];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    static const uint32_t masks[8] = { 0x00000007u, 0, 0x20000000u, 0, 0, 0, 0, 0 };
    for (int i = 0; i < 8; i++)
        etlw_put_u32(&p, masks[i]);
    etlw_put_u32(&p, 1);
    etlw_system_rec r = sys_rec(g, ETLW_SYSTEM, 0x00, 0x05, 2, 0);
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

/* Process DCStart (group 3, type 3), Process_V2_TypeGroup1 layout: UniqueProcessKey,
 * ProcessId, ParentId, SessionId, ExitStatus, UserSID (WBEMSID), ImageFileName,
 * CommandLine. */
static int k_process(struct gen *g, unsigned cpu, uint32_t pid)
{
    static const uint32_t subs[] = { 18 }; /* S-1-5-18, LocalSystem */
    uint8_t buf[256];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_ptr(&p, g->ps, g->ps == 8 ? 0xFFFFA0012345C080ull : 0x8612C080u);
    etlw_put_u32(&p, pid);
    etlw_put_u32(&p, 4);
    etlw_put_u32(&p, 0);
    etlw_put_u32(&p, 259); /* STILL_ACTIVE */
    etlw_put_ptr(&p, g->ps, g->ps == 8 ? 0xFFFFC00011112222ull : 0x91112222u); /* TOKEN_USER.Sid */
    etlw_put_ptr(&p, g->ps, 0);                                                 /* .Attributes */
    etlw_put_sid(&p, 5, subs, 1);
    etlw_put_strz(&p, "etlshark.exe");
    etlw_put_utf16z(&p, "etlshark.exe --capture");
    etlw_system_rec r = sys_rec(g, ETLW_SYSTEM, 0x03, 0x03, 2, 0);
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

/* Thread Start (group 5, type 1), Thread_V2_TypeGroup1-like layout. */
static int k_thread(struct gen *g, unsigned cpu, uint32_t tid)
{
    uint8_t buf[128];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    uint64_t base = g->ps == 8 ? 0xFFFFD00000000000ull : 0x9A000000u;
    etlw_put_u32(&p, PID + 3);
    etlw_put_u32(&p, tid);
    for (int i = 0; i < 7; i++) /* StackBase .. TebBase */
        etlw_put_ptr(&p, g->ps, base + 0x1000u * (uint64_t)i + tid);
    etlw_put_u32(&p, 0);        /* SubProcessTag */
    etlw_system_rec r = sys_rec(g, ETLW_SYSTEM, 0x05, 0x01, 2, tid);
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

/* CSwitch (group 5, type 36) in a COMPACT header: 24-byte payload. */
static int k_cswitch(struct gen *g, unsigned cpu, uint32_t new_tid, uint32_t old_tid)
{
    uint8_t buf[32];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_u32(&p, new_tid);
    etlw_put_u32(&p, old_tid);
    static const uint8_t b[8] = { 9, 8, 0, 0, 5, 1, 2, 0 }; /* priorities, cstate, wait ... */
    etlw_put(&p, b, sizeof b);
    etlw_put_u32(&p, 100);      /* NewThreadWaitTime */
    etlw_put_u32(&p, 0);        /* Reserved */
    etlw_system_rec r = sys_rec(g, ETLW_COMPACT, 0x05, 36, 2, new_tid);
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

/* SampledProfile (PerfInfo group 0x0F, type 46), optionally with PEBS + 2 PMC counters. */
static int k_sample(struct gen *g, unsigned cpu, uint32_t tid, int with_pmc)
{
    static const uint64_t pmc[2] = { 0x0000000012345678ull, 0x0000000000ABCDEFull };
    uint8_t buf[32];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_ptr(&p, g->ps, g->ps == 8 ? 0xFFFFF8031C2A1B10ull : 0x82A1B10u);
    etlw_put_u32(&p, tid);
    etlw_put_u16(&p, 1);        /* Count */
    etlw_put_u16(&p, 0);        /* Reserved */
    etlw_system_rec r = sys_rec(g, ETLW_PERFINFO, 0x0F, 46, 2, 0);
    if (with_pmc) {
        r.has_pebs = 1;
        r.pebs_index = 0x7A;
        r.pmc_count = 2;
        r.pmc = pmc;
    }
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

/* SysCallEnter (PerfInfo group 0x0F, type 51). */
static int k_syscall(struct gen *g, unsigned cpu)
{
    uint8_t buf[16];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_ptr(&p, g->ps, g->ps == 8 ? 0xFFFFF8031C000100ull : 0x82000100u);
    etlw_system_rec r = sys_rec(g, ETLW_PERFINFO, 0x0F, 51, 2, 0);
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

/* A classic (MOF) provider event in a FULL_HEADER record. */
static int k_mof_full(struct gen *g, unsigned cpu, uint32_t n)
{
    uint8_t buf[64];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_u32(&p, n);
    etlw_put_strz(&p, "classic mof event");
    etlw_classic_rec r;
    memset(&r, 0, sizeof r);
    r.type = 1;
    r.level = 4;
    r.version = 0;
    r.tid = TID_BASE + 300;
    r.pid = PID + 4;
    r.timestamp = tick(g, 100, 2000);
    r.guid = guid(MOF_CLASS_GUID);
    r.kernel_time = 7;
    r.user_time = 2;
    return etlw_write_classic(g->w, cpu, &r, p.data, p.len);
}

/* The same kind of event in an INSTANCE header (instance ids + parent class). */
static int k_mof_instance(struct gen *g, unsigned cpu)
{
    uint8_t buf[64];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_utf16z(&p, "instance");
    etlw_classic_rec r;
    memset(&r, 0, sizeof r);
    r.instance = 1;
    r.type = 2;
    r.level = 4;
    r.version = 1;
    r.tid = TID_BASE + 300;
    r.pid = PID + 4;
    r.timestamp = tick(g, 100, 2000);
    r.guid = guid(MOF_INSTANCE_CLASS_GUID);
    r.instance_id = 17;
    r.parent_instance_id = 16;
    r.parent_guid = guid(MOF_CLASS_GUID);
    return etlw_write_classic(g->w, cpu, &r, p.data, p.len);
}

/* WPP: sequence, message GUID, timestamp, thread/process; arguments "%10!s! %11!d! %12!p!". */
static int k_wpp(struct gen *g, unsigned cpu, uint32_t seq)
{
    uint8_t buf[64];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_strz(&p, "etlshark");
    etlw_put_u32(&p, 42);
    etlw_put_ptr(&p, g->ps, g->ps == 8 ? 0xFFFFF80300001234ull : 0x80001234u);
    etlw_message_rec r;
    memset(&r, 0, sizeof r);
    r.message_number = 10;
    r.option_flags = ETLW_MSG_SEQUENCE | ETLW_MSG_GUID | ETLW_MSG_TIMESTAMP | ETLW_MSG_SYSTEMINFO |
                     (g->ps == 8 ? ETLW_MSG_POINTER64 : ETLW_MSG_POINTER32);
    r.sequence = seq;
    r.guid = guid(WPP_MESSAGE_GUID);
    r.timestamp = tick(g, 100, 2000);
    r.tid = TID_BASE + 400;
    r.pid = 4;
    return etlw_write_message(g->w, cpu, &r, p.data, p.len);
}

/* WPP with a component id instead of a GUID (and no thread/process). */
static int k_wpp_component(struct gen *g, unsigned cpu, uint32_t seq)
{
    uint8_t buf[8];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_u32(&p, 0xC0FFEEu);
    etlw_message_rec r;
    memset(&r, 0, sizeof r);
    r.message_number = 11;
    r.option_flags = ETLW_MSG_SEQUENCE | ETLW_MSG_COMPONENTID | ETLW_MSG_TIMESTAMP;
    r.sequence = seq;
    r.component_id = 0x77;
    r.timestamp = tick(g, 100, 2000);
    return etlw_write_message(g->w, cpu, &r, p.data, p.len);
}

/* ERROR record: EVENT_HEADER-shaped, "error while logging event". */
static int k_error(struct gen *g, unsigned cpu)
{
    uint8_t buf[8];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_u32(&p, 0x80070008u);
    etlw_event_rec r;
    memset(&r, 0, sizeof r);
    r.error = 1;
    r.tid = TID_BASE + 500;
    r.pid = PID + 5;
    r.timestamp = tick(g, 100, 2000);
    r.provider = guid(ERROR_PROVIDER_GUID);
    r.id = 5;
    r.level = 2;
    return etlw_write_event(g->w, cpu, &r, NULL, p.data, p.len);
}

/* A TIMED (0x0C) record: no known layout, only the u16 size can be trusted. */
static int k_timed(struct gen *g, unsigned cpu)
{
    static const uint8_t body[16] = { 'T', 'I', 'M', 'E', 'D', 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
    return etlw_write_unknown(g->w, cpu, ETLW_HT_TIMED, body, sizeof body);
}

/* A SYSTEM record of a group outside the known table (0x40). */
static int k_unknown_group(struct gen *g, unsigned cpu)
{
    uint8_t buf[8];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_u32(&p, 0x40404040u);
    etlw_system_rec r = sys_rec(g, ETLW_SYSTEM, 0x40, 0x01, 0, TID_BASE + 600);
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

static int fill_kernel(etlw_writer *w, const etlgen_options *opt)
{
    (void)opt;
    struct gen g;
    gen_init(&g, w, 0x4E4E4E4Eull);
    CHECK(k_header_extension(&g, 0));
    CHECK(k_process(&g, 0, PID + 3));
    CHECK(k_thread(&g, 1, TID_BASE + 10));
    for (uint32_t i = 0; i < 4; i++) {
        CHECK(k_cswitch(&g, i % 2, TID_BASE + 10 + i, TID_BASE + 9 + i));
        CHECK(k_sample(&g, (i + 1) % 2, TID_BASE + 10 + i, i == 1));
    }
    CHECK(k_syscall(&g, 1));
    CHECK(k_mof_full(&g, 0, 1));
    CHECK(k_mof_instance(&g, 1));
    CHECK(k_wpp(&g, 0, 1));
    CHECK(k_wpp_component(&g, 1, 2));
    CHECK(k_error(&g, 0));
    CHECK(k_timed(&g, 1));
    CHECK(k_unknown_group(&g, 0));
    CHECK(k_mof_full(&g, 1, 2));
    return ETLW_OK;
}

static void config_kernel64(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    base_config(c, 8, 2, 4096, "NT Kernel Logger", "C:\\etlshark\\kernel64.etl");
    c->logger_id = 0xFFFF; /* the kernel logger */
}

static void config_kernel32(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    base_config(c, 4, 2, 4096, "NT Kernel Logger", "C:\\etlshark\\kernel32.etl");
    c->logger_id = 0xFFFF;
    c->os_major = 6;
    c->os_minor = 1;
    c->os_build = 7601;
}

/* ---- compressed relogged traces (compressed64, compressed32) ------------------------------------ */

static int fill_compressed(etlw_writer *w, const etlgen_options *opt)
{
    (void)opt;
    struct gen g;
    gen_init(&g, w, 0xC0C0C0ull);
    static const uint32_t user_sid[] = { 21, 1111, 2222, 3333, 1001 };
    uint8_t pbuf[64], ebuf[128];
    etlw_bytes p, ext;
    etlw_bytes_init(&p, pbuf, sizeof pbuf);
    etlw_bytes_init(&ext, ebuf, sizeof ebuf);
    for (uint32_t i = 0; i < 300; i++) {
        unsigned cpu = rng_below(&g.rng, 2);
        switch (rng_below(&g.rng, 10)) {
        case 0: case 1: case 2:
            CHECK(tl_hello(&g, cpu, i));
            break;
        case 3:
            CHECK(tl_formats(&g, cpu));
            break;
        case 4: case 5: {
            etlw_bytes_reset(&p);
            etlw_bytes_reset(&ext);
            etlw_put_u32(&p, i);
            etlw_put_utf16z(&p, "relogged");
            etlw_guid related = guid("bbbbbbbb-0000-0000-0000-000000000000");
            related.d1 += i;
            etlw_ext_related_activity(&ext, &related);
            etlw_ext_sid(&ext, 5, user_sid, COUNT(user_sid));
            etlw_event_rec r = manifest_event(&g, cpu, 1, 0, 4, 1, 1, 0x8000000000000001ull);
            CHECK(etlw_write_event(w, cpu, &r, &ext, p.data, p.len));
            break;
        }
        case 6:
            CHECK(k_thread(&g, cpu, TID_BASE + i));
            break;
        case 7:
            CHECK(k_sample(&g, cpu, TID_BASE + i, 0));
            break;
        case 8:
            CHECK(k_cswitch(&g, cpu, TID_BASE + i, TID_BASE + i - 1));
            break;
        default:
            CHECK(k_mof_full(&g, cpu, i));
            break;
        }
    }
    return ETLW_OK;
}

static void config_compressed(etlw_config *c, unsigned ps, const char *logger, const char *file)
{
    base_config(c, ps, 2, 4096, logger, file);
    c->compressed = 1;
    c->log_file_mode = ETLW_LOGFILE_MODE_SEQUENTIAL | ETLW_LOGFILE_MODE_RELOG;
}

static void config_compressed64(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    config_compressed(c, 8, "Relogger", "C:\\etlshark\\compressed64.etl");
}

static void config_compressed32(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    config_compressed(c, 4, "Relogger", "C:\\etlshark\\compressed32.etl");
}

/* ---- per-CPU interleaving (interleaved) -------------------------------------------------------- */

/* Every record carries a global sequence number as its first payload field (u64), then
 * its CPU (u32), in timestamp order, so a reader that merges buffers by timestamp must
 * output 0, 1, 2, ...
 * CPU 0 gets half the events: its buffers fill faster, so the buffers of CPUs 1-3 span
 * longer stretches of time and the file order is far from timestamp order. */
static int fill_interleaved(etlw_writer *w, const etlgen_options *opt)
{
    (void)opt;
    struct gen g;
    gen_init(&g, w, 0x1A7E1EAFull);
    etlw_guid provider = guid(INTERLEAVED_PROVIDER_GUID);
    uint8_t buf[32];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    for (uint64_t seq = 0; seq < 360; seq++) {
        static const unsigned cpu_of[10] = { 0, 0, 0, 0, 0, 1, 1, 2, 2, 3 };
        unsigned cpu = cpu_of[rng_below(&g.rng, 10)];
        int64_t ts = tick(&g, 1, 40);
        etlw_bytes_reset(&p);
        etlw_put_u64(&p, seq);
        etlw_put_u32(&p, cpu);
        if (seq % 5 == 4) {
            /* SampledProfile-shaped: InstructionPointer = seq, ThreadId = cpu, Count 1. */
            etlw_put_u16(&p, 1);
            etlw_put_u16(&p, 0);
            etlw_system_rec r;
            memset(&r, 0, sizeof r);
            r.kind = ETLW_PERFINFO;
            r.group = 0x0F;
            r.type = 46;
            r.version = 2;
            r.timestamp = ts;
            CHECK(etlw_write_system(w, cpu, &r, p.data, p.len));
        } else {
            etlw_put_u32(&p, 0);
            etlw_event_rec r;
            memset(&r, 0, sizeof r);
            r.tid = TID_BASE + cpu;
            r.pid = PID;
            r.timestamp = ts;
            r.provider = provider;
            r.id = 1;
            r.level = 4;
            CHECK(etlw_write_event(w, cpu, &r, NULL, p.data, p.len));
        }
    }
    return ETLW_OK;
}

static void config_interleaved(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    base_config(c, 8, 4, 1024, "etlshark-interleaved", "C:\\etlshark\\interleaved.etl");
}

/* ---- benchmark input (large) ------------------------------------------------------------------ */

#define LARGE_DEFAULT_RECORDS 100000u

static const etlw_tl_field sample_fields[] = {
    { .name = "Value", .intype = ETLW_TL_UINT64 },
    { .name = "Ratio", .intype = ETLW_TL_DOUBLE },
};

/* The TraceLogging items are built once: every event of a shape carries the same bytes. */
static void large_shape(etlw_bytes *ext, const char *name, const etlw_tl_field *f, size_t n)
{
    uint8_t tmp[512];
    etlw_bytes blob;
    etlw_bytes_init(&blob, tmp, sizeof tmp);
    etlw_tl_traits(&blob, TL_PROVIDER_NAME, NULL);
    etlw_ext_prov_traits(ext, &blob);
    etlw_bytes_reset(&blob);
    etlw_tl_metadata(&blob, name, 0, f, n);
    etlw_ext_schema_tl(ext, &blob);
}

static int fill_large(etlw_writer *w, const etlgen_options *opt)
{
    uint64_t n = opt->records ? opt->records : LARGE_DEFAULT_RECORDS;
    struct gen g;
    gen_init(&g, w, 0x1A26Eull);
    uint8_t ebuf[3][512];
    etlw_bytes ext[3];
    for (int i = 0; i < 3; i++)
        etlw_bytes_init(&ext[i], ebuf[i], sizeof ebuf[i]);
    large_shape(&ext[0], "Hello", hello_fields, COUNT(hello_fields));
    large_shape(&ext[1], "Work", work_fields, COUNT(work_fields));
    large_shape(&ext[2], "Sample", sample_fields, COUNT(sample_fields));
    etlw_guid provider = guid(TL_PROVIDER_GUID);
    uint8_t buf[128];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    /* The logfile header is record 0; n counts it. */
    for (uint64_t i = 1; i < n; i++) {
        unsigned cpu = rng_below(&g.rng, 4);
        uint32_t kind = rng_below(&g.rng, 20);
        int64_t ts = tick(&g, 1, 30);
        uint32_t tid = TID_BASE + cpu;
        etlw_bytes_reset(&p);
        if (kind < 12) {
            unsigned shape = kind % 3;
            if (shape == 0) {
                etlw_put_strz(&p, "hello from etlshark");
                etlw_put_u32(&p, (uint32_t)i);
                etlw_put_u32(&p, (uint32_t)(i & 1));
            } else if (shape == 1) {
                etlw_put_utf16z(&p, "job");
                etlw_put_u32(&p, (uint32_t)i);
            } else {
                etlw_put_u64(&p, i * 3);
                etlw_put_f64(&p, (double)(i % 1000) / 1000.0);
            }
            etlw_event_rec r;
            memset(&r, 0, sizeof r);
            r.tid = tid;
            r.pid = PID;
            r.timestamp = ts;
            r.provider = provider;
            r.channel = 11;
            r.level = 4;
            r.keyword = 1;
            CHECK(etlw_write_event(w, cpu, &r, &ext[shape], p.data, p.len));
        } else if (kind < 17) {
            etlw_put_u32(&p, tid);
            etlw_put_u32(&p, tid - 1);
            etlw_put_fill(&p, 0, 16);
            etlw_system_rec r;
            memset(&r, 0, sizeof r);
            r.kind = ETLW_SYSTEM;
            r.group = 0x05;
            r.type = 36;
            r.version = 2;
            r.tid = tid;
            r.pid = PID;
            r.timestamp = ts;
            CHECK(etlw_write_system(w, cpu, &r, p.data, p.len));
        } else {
            etlw_put_u64(&p, 0xFFFFF80300000000ull + (i & 0xFFFF));
            etlw_put_u32(&p, tid);
            etlw_put_u32(&p, 1);
            etlw_system_rec r;
            memset(&r, 0, sizeof r);
            r.kind = ETLW_PERFINFO;
            r.group = 0x0F;
            r.type = 46;
            r.version = 2;
            r.timestamp = ts;
            CHECK(etlw_write_system(w, cpu, &r, p.data, p.len));
        }
    }
    return ETLW_OK;
}

static void config_large(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    base_config(c, 8, 4, 64 * 1024, "etlshark-large", "C:\\etlshark\\large.etl");
}

/* ---- benchmark input, kernel events only (large_kernel) ------------------------------------------ */

/* A kernel session with sampling, context switches, stacks and I/O, in proportions like those of
 * big real traces: what bench/kbench and etldump's JSON rate are measured on.  Every event has a
 * layout in the kernel class document, so all of it decodes to fields.  Payloads vary (threads,
 * addresses, stack depths) so the output is not one line repeated. */

#define LK_THREADS 64u

static uint32_t lk_tid(struct gen *g)
{
    return TID_BASE + rng_below(&g->rng, LK_THREADS);
}

static uint64_t lk_kaddr(struct gen *g)
{
    return g->ps == 8 ? 0xFFFFF80310000000ull + rng_below(&g->rng, 0x00FFFFFFu)
                      : 0x82000000u + rng_below(&g->rng, 0x00FFFFFFu);
}

static uint64_t lk_uaddr(struct gen *g)
{
    return g->ps == 8 ? 0x00007FF612340000ull + rng_below(&g->rng, 0x00FFFFFFu)
                      : 0x77000000u + rng_below(&g->rng, 0x00FFFFFFu);
}

/* ReadyThread (group 5, type 50), in a COMPACT header like CSwitch. */
static int lk_ready(struct gen *g, unsigned cpu)
{
    uint8_t buf[16];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_u32(&p, lk_tid(g));
    etlw_put_u8(&p, 1);                       /* AdjustReason */
    etlw_put_u8(&p, (uint8_t)rng_below(&g->rng, 8)); /* AdjustIncrement */
    etlw_put_u8(&p, 0);                       /* Flag */
    etlw_put_u8(&p, 0);
    etlw_system_rec r = sys_rec(g, ETLW_COMPACT, 0x05, 50, 2, lk_tid(g));
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

/* StackWalk Stack (group 0x18, type 32): the event it belongs to, then 4 to 35 frames, kernel
 * frames first. */
static int lk_stack(struct gen *g, unsigned cpu)
{
    uint8_t buf[16 + 35 * 8];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    uint32_t frames = 4 + rng_below(&g->rng, 32), kernel = rng_below(&g->rng, frames);
    etlw_put_u64(&p, (uint64_t)g->now);       /* EventTimeStamp: the event just logged */
    etlw_put_u32(&p, PID + 3);
    etlw_put_u32(&p, lk_tid(g));
    for (uint32_t i = 0; i < frames; i++)
        etlw_put_ptr(&p, g->ps, i < kernel ? lk_kaddr(g) : lk_uaddr(g));
    etlw_system_rec r = sys_rec(g, ETLW_PERFINFO, 0x18, 32, 2, 0);
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

/* SysClExit (PerfInfo type 52): an NTSTATUS. */
static int lk_syscall_exit(struct gen *g, unsigned cpu)
{
    uint8_t buf[8];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_u32(&p, rng_below(&g->rng, 8) ? 0 : 0xC0000034u); /* STATUS_OBJECT_NAME_NOT_FOUND */
    etlw_system_rec r = sys_rec(g, ETLW_PERFINFO, 0x0F, 52, 2, 0);
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

/* PageFault DemandZeroFault (group 2, type 11) or HardFault (type 32). */
static int lk_fault(struct gen *g, unsigned cpu)
{
    uint8_t buf[48];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    uint8_t type = 11;
    if (rng_below(&g->rng, 4) == 0) {
        type = 32;
        etlw_put_u64(&p, (uint64_t)g->now - 5000); /* InitialTime */
        etlw_put_u64(&p, (uint64_t)rng_below(&g->rng, 1u << 20) << 12); /* ReadOffset */
        etlw_put_ptr(&p, g->ps, lk_uaddr(g));
        etlw_put_ptr(&p, g->ps, lk_kaddr(g));       /* FileObject */
        etlw_put_u32(&p, lk_tid(g));
        etlw_put_u32(&p, 4096u << rng_below(&g->rng, 4));
    } else {
        etlw_put_ptr(&p, g->ps, lk_uaddr(g));
        etlw_put_ptr(&p, g->ps, lk_uaddr(g));
    }
    etlw_system_rec r = sys_rec(g, ETLW_PERFINFO, 0x02, type, 2, 0);
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

/* DiskIo Read (group 1, type 10), version 3 layout. */
static int lk_disk(struct gen *g, unsigned cpu)
{
    uint8_t buf[64];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_u32(&p, 0);                                   /* DiskNumber */
    etlw_put_u32(&p, 0x60043);                             /* IrpFlags */
    etlw_put_u32(&p, 4096u << rng_below(&g->rng, 6));      /* TransferSize */
    etlw_put_u32(&p, 0);
    etlw_put_u64(&p, (uint64_t)rng_below(&g->rng, 1u << 30) << 9); /* ByteOffset */
    etlw_put_ptr(&p, g->ps, lk_kaddr(g));                  /* FileObject */
    etlw_put_ptr(&p, g->ps, lk_kaddr(g));                  /* Irp */
    etlw_put_u64(&p, 1000 + rng_below(&g->rng, 100000));   /* HighResResponseTime */
    etlw_put_u32(&p, lk_tid(g));
    etlw_system_rec r = sys_rec(g, ETLW_PERFINFO, 0x01, 10, 3, 0);
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

/* FileIo Read (group 4, type 67) or, one in four, Create (type 64) with a path. */
static int lk_file(struct gen *g, unsigned cpu)
{
    static const char *const paths[] = {
        "\\Device\\HarddiskVolume3\\Windows\\System32\\kernel32.dll",
        "\\Device\\HarddiskVolume3\\Users\\etlshark\\AppData\\Local\\Temp\\trace.tmp",
        "\\Device\\HarddiskVolume3\\Program Files\\etlshark\\etlshark.exe",
        "\\Device\\HarddiskVolume3\\Windows\\Microsoft.NET\\Framework64\\v4.0.30319\\clr.dll",
    };
    uint8_t buf[256];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    uint8_t type = 67;
    if (rng_below(&g->rng, 4) == 0) {
        type = 64;
        etlw_put_ptr(&p, g->ps, lk_kaddr(g));              /* IrpPtr */
        etlw_put_ptr(&p, g->ps, lk_tid(g));                /* TTID */
        etlw_put_ptr(&p, g->ps, lk_kaddr(g));              /* FileObject */
        etlw_put_u32(&p, 0x01000060u);                     /* CreateOptions */
        etlw_put_u32(&p, 0x80u);                           /* FileAttributes */
        etlw_put_u32(&p, 0x7u);                            /* ShareAccess */
        etlw_put_utf16z(&p, paths[rng_below(&g->rng, COUNT(paths))]);
    } else {
        etlw_put_u64(&p, (uint64_t)rng_below(&g->rng, 1u << 20) << 12); /* Offset */
        etlw_put_ptr(&p, g->ps, lk_kaddr(g));              /* IrpPtr */
        etlw_put_ptr(&p, g->ps, lk_tid(g));                /* TTID */
        etlw_put_ptr(&p, g->ps, lk_kaddr(g));              /* FileObject */
        etlw_put_ptr(&p, g->ps, lk_kaddr(g));              /* FileKey */
        etlw_put_u32(&p, 4096u << rng_below(&g->rng, 4));  /* IoSize */
        etlw_put_u32(&p, 0);                               /* IoFlags */
    }
    etlw_system_rec r = sys_rec(g, ETLW_PERFINFO, 0x04, type, 2, 0);
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

/* Image Load (hook 0x030A: group PROCESS, type 10, keyed to the Image class), version 3. */
static int lk_image(struct gen *g, unsigned cpu)
{
    static const char *const names[] = {
        "\\Windows\\System32\\ntdll.dll", "\\Windows\\System32\\KernelBase.dll",
        "\\Program Files\\etlshark\\etlshark.exe",
    };
    uint8_t buf[160];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_put_ptr(&p, g->ps, lk_uaddr(g) & ~(uint64_t)0xFFFF); /* ImageBase */
    etlw_put_ptr(&p, g->ps, 0x1A0000);                         /* ImageSize */
    etlw_put_u32(&p, PID + 3);
    etlw_put_u32(&p, 0x1B2C3D);                                /* ImageCheckSum */
    etlw_put_u32(&p, 0x5F1E2D3C);                              /* TimeDateStamp */
    etlw_put_u32(&p, 0);
    etlw_put_ptr(&p, g->ps, g->ps == 8 ? 0x180000000ull : 0x10000000u); /* DefaultBase */
    etlw_put_fill(&p, 0, 16);                                  /* Reserved1..4 */
    etlw_put_utf16z(&p, names[rng_below(&g->rng, COUNT(names))]);
    etlw_system_rec r = sys_rec(g, ETLW_SYSTEM, 0x03, 10, 3, lk_tid(g));
    return etlw_write_system(g->w, cpu, &r, p.data, p.len);
}

static int fill_large_kernel(etlw_writer *w, const etlgen_options *opt)
{
    uint64_t n = opt->records ? opt->records : LARGE_DEFAULT_RECORDS;
    struct gen g;
    gen_init(&g, w, 0x4B3E2A1Dull);
    /* The logfile header is record 0 and the header extension record 1; n counts both. */
    CHECK(k_header_extension(&g, 0));
    for (uint64_t i = 2; i < n; i++) {
        unsigned cpu = rng_below(&g.rng, 4);
        uint32_t kind = rng_below(&g.rng, 100);
        if (kind < 26) {
            CHECK(k_sample(&g, cpu, lk_tid(&g), 0));
        } else if (kind < 46) {
            uint32_t new_tid = lk_tid(&g);
            CHECK(k_cswitch(&g, cpu, new_tid, lk_tid(&g)));
        } else if (kind < 62) {
            CHECK(lk_stack(&g, cpu));
        } else if (kind < 70) {
            CHECK(lk_ready(&g, cpu));
        } else if (kind < 78) {
            CHECK(k_syscall(&g, cpu));
        } else if (kind < 86) {
            CHECK(lk_syscall_exit(&g, cpu));
        } else if (kind < 91) {
            CHECK(lk_fault(&g, cpu));
        } else if (kind < 94) {
            CHECK(lk_disk(&g, cpu));
        } else if (kind < 98) {
            CHECK(lk_file(&g, cpu));
        } else if (kind < 99) {
            CHECK(lk_image(&g, cpu));
        } else {
            CHECK(k_thread(&g, cpu, lk_tid(&g)));
        }
    }
    return ETLW_OK;
}

static void config_large_kernel(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    base_config(c, 8, 4, 64 * 1024, "NT Kernel Logger", "C:\\etlshark\\large_kernel.etl");
    c->logger_id = 0xFFFF; /* the kernel logger */
}

/* The same records in LZXpress-compressed buffers (a relogged, compressed trace): the bench
 * input for compressed traces larger than etldump's inflate cache (the pre-scan's inflated
 * buffers no longer all kept for the decode pass). */
static void config_large_kernel_lzx(etlw_config *c, const etlgen_options *opt)
{
    config_large_kernel(c, opt);
    c->compressed = 1;
    c->log_file_mode = ETLW_LOGFILE_MODE_SEQUENTIAL | ETLW_LOGFILE_MODE_RELOG;
}

/* ---- the table ------------------------------------------------------------------------------------ */

/* ---- manifest layouts for the decoder's manifest tests (mf_fields64, mf_fields32, mf_late) ------ */

/* The provider of tests/integration/test_manifest.py's generated manifest: events whose layout
 * only that manifest explains - lengths and counts from other fields, an array of structs,
 * value and bit maps, a pointer of the record's size. */
#define MF_PROVIDER_GUID "7e57a11a-0000-4000-8000-00000000f00d"
/* An EventSource whose manifest is sent after its first events (mf_late). */
#define LATE_PROVIDER_NAME "Etlshark-Late"
#define LATE_PROVIDER_GUID "1a7e1a7e-0000-4000-8000-00000000beef"

static etlw_event_rec mf_event(struct gen *g, uint16_t id, uint8_t opcode, uint16_t task)
{
    etlw_event_rec r;
    memset(&r, 0, sizeof r);
    r.tid = TID_BASE + 300;
    r.pid = PID + 3;
    r.timestamp = tick(g, 500, 2000);
    r.provider = guid(MF_PROVIDER_GUID);
    r.id = id;
    r.level = 4;
    r.opcode = opcode;
    r.task = task;
    return r;
}

static int fill_mf_fields(etlw_writer *w, const etlgen_options *opt)
{
    (void)opt;
    struct gen g;
    gen_init(&g, w, 0x3F1E1D5ull);
    uint8_t buf[256];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);

    /* Lengths (id 1, Job/Start): NameLen, Name (5 UTF-16 units, no NUL), BlobSize, Blob,
     * Count, Values (u64 x Count), Tail */
    etlw_put_u16(&p, 5);
    etlw_put_utf16(&p, "alpha");
    etlw_put_u32(&p, 3);
    etlw_put(&p, "\x0a\x0b\x0c", 3);
    etlw_put_u32(&p, 2);
    etlw_put_u64(&p, 1);
    etlw_put_u64(&p, UINT64_MAX);
    etlw_put_strz(&p, "end");
    etlw_event_rec r = mf_event(&g, 1, 1, 1);
    CHECK(etlw_write_event(w, 0, &r, NULL, p.data, p.len));

    /* Shapes (id 2): PointCount, Points[PointCount] {X, Y, Label}, Kind (value map), Perms
     * (bit map, with a bit it does not name), Other (value map, a value it does not name) */
    etlw_bytes_reset(&p);
    etlw_put_u16(&p, 2);
    for (int i = 0; i < 2; i++) {
        etlw_put_u32(&p, (uint32_t)(2 * i + 1));
        etlw_put_u32(&p, (uint32_t)-(2 * i + 2));
        etlw_put_utf16z(&p, i ? "p1" : "p0");
    }
    etlw_put_u8(&p, 1);
    etlw_put_u32(&p, 0x1 | 0x4 | 0x8);
    etlw_put_u32(&p, 9);
    r = mf_event(&g, 2, 0, 2);
    CHECK(etlw_write_event(w, 0, &r, NULL, p.data, p.len));

    /* Pointers (id 3): a pointer as wide as the record's, then fields after it */
    etlw_bytes_reset(&p);
    etlw_put_ptr(&p, g.ps, g.ps == 4 ? 0xDEADBEEFull : 0x7FF6DEADBEEFull);
    etlw_put_u32(&p, 4096);
    etlw_put_u16(&p, 7);
    r = mf_event(&g, 3, 0, 1);
    return etlw_write_event(w, 0, &r, NULL, p.data, p.len);
}

static void config_mf_fields64(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    base_config(c, 8, 1, 4096, "etlshark-mf64", "C:\\etlshark\\mf64.etl");
}

static void config_mf_fields32(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    base_config(c, 4, 1, 4096, "etlshark-mf32", "C:\\etlshark\\mf32.etl");
}

static const char late_manifest[] =
    "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\r\n"
    " <instrumentation><events>\r\n"
    "  <provider name=\"" LATE_PROVIDER_NAME "\" guid=\"{" LATE_PROVIDER_GUID "}\" symbol=\"Late\">\r\n"
    "   <tasks><task name=\"Hello\" value=\"65533\"/></tasks>\r\n"
    "   <templates><template tid=\"HelloArgs\">\r\n"
    "    <data name=\"Greeting\" inType=\"win:UnicodeString\"/>\r\n"
    "    <data name=\"Number\" inType=\"win:Int32\"/>\r\n"
    "   </template></templates>\r\n"
    "   <events><event value=\"1\" version=\"0\" level=\"win:Informational\" task=\"Hello\" "
    "template=\"HelloArgs\"/></events>\r\n"
    "  </provider>\r\n"
    " </events></instrumentation>\r\n"
    "</instrumentationManifest>\r\n";

static int fill_mf_late(etlw_writer *w, const etlgen_options *opt)
{
    (void)opt;
    struct gen g;
    gen_init(&g, w, 0x1A7Eull);
    uint8_t buf[64];
    etlw_bytes p;
    etlw_bytes_init(&p, buf, sizeof buf);
    etlw_event_rec r;
    memset(&r, 0, sizeof r);
    r.tid = TID_BASE + 400;
    r.pid = PID + 4;
    r.provider = guid(LATE_PROVIDER_GUID);
    r.level = 4;
    /* two events first ... */
    for (int32_t i = 1; i <= 2; i++) {
        etlw_bytes_reset(&p);
        etlw_put_utf16z(&p, "hi");
        etlw_put_u32(&p, (uint32_t)i);
        r.id = 1;
        r.task = 65533;
        r.timestamp = tick(&g, 1000, 1000);
        CHECK(etlw_write_event(w, 0, &r, NULL, p.data, p.len));
    }
    /* ... then the manifest that describes them, in two chunks */
    r.timestamp = tick(&g, 1000, 1000);
    size_t len = sizeof late_manifest - 1;
    return etlw_write_eventsource_manifest(w, 0, &r, late_manifest, len, (len + 1) / 2);
}

static void config_mf_late(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    base_config(c, 8, 1, 4096, "etlshark-mf-late", "C:\\etlshark\\mflate.etl");
}

const etlgen_preset etlgen_presets[] = {
    { "tl64", "TraceLogging events, 64-bit: all scalar types, arrays, nested structs, "
              "custom field, tags, provider traits, an activity with a stack",
      config_tl64, fill_tl },
    { "tl32", "the tl64 events in a 32-bit trace (EVENT_HEADER32, SYSTEM32 header)",
      config_tl32, fill_tl },
    { "manifest64", "manifest-style EVENT_HEADER64 events with descriptors and 11 extended "
                    "item kinds (one unknown), plus a STRING_ONLY event",
      config_manifest64, fill_manifest64 },
    { "eventsource", "EventSource manifest sent in 2 chunks (id 0xFFFE), then its events",
      config_eventsource, fill_eventsource },
    { "kernel64", "SYSTEM, COMPACT, PERFINFO (PEBS + 2 PMC), FULL_HEADER, INSTANCE, MESSAGE, "
                  "ERROR and TIMED records, 64-bit",
      config_kernel64, fill_kernel },
    { "kernel32", "the kernel64 records in a 32-bit trace", config_kernel32, fill_kernel },
    { "compressed64", "300 mixed events over 2 CPUs in LZXpress-compressed buffers, 64-bit",
      config_compressed64, fill_compressed },
    { "compressed32", "the compressed64 mix in a 32-bit trace", config_compressed32, fill_compressed },
    { "interleaved", "4 CPUs, 1 KiB buffers: file order differs from timestamp order; "
                     "payload u64 = global sequence in timestamp order",
      config_interleaved, fill_interleaved },
    { "large", "benchmark input: --records N mixed TraceLogging/SYSTEM/PERFINFO records, "
               "4 CPUs, 64 KiB buffers",
      config_large, fill_large },
    { "large_kernel", "benchmark input: --records N classic kernel records (samples, context "
                      "switches, stacks, syscalls, faults, I/O), 4 CPUs, 64 KiB buffers",
      config_large_kernel, fill_large_kernel },
    { "large_kernel_lzx", "benchmark input: the large_kernel records in LZXpress-compressed buffers",
      config_large_kernel_lzx, fill_large_kernel },
    { "mf_fields64", "manifest events whose layout needs their manifest: lengths and counts from "
                     "other fields, an array of structs, value and bit maps, a pointer (64-bit)",
      config_mf_fields64, fill_mf_fields },
    { "mf_fields32", "the mf_fields64 events in a 32-bit trace (4-byte pointer)",
      config_mf_fields32, fill_mf_fields },
    { "mf_late", "an EventSource's events, then its manifest (2 chunks) after them",
      config_mf_late, fill_mf_late },
    /* packet captures carried in ETW (etlgen_packets.c) */
    { "ndiscap", "netsh trace packets: 802.3, 802.11 with radio metadata, WWAN IPv4/IPv6, three "
                 "fragments, VMSwitch with a VLAN, a truncated packet, and bad fragments",
      etlgen_config_ndiscap, etlgen_fill_ndiscap },
    { "pktmon", "pktmon packets at two components, drops, a 128-byte snaplen, Wi-Fi, raw IP, bad "
                "packet events, the component rundown at the end",
      etlgen_config_pktmon, etlgen_fill_pktmon },
    { "pktmon_large", "benchmark input: --records N pktmon packets (default 100000), each at two "
                      "components",
      etlgen_config_pktmon, etlgen_fill_pktmon_large },
    { "pktmon_tcp", "pktmon at a NIC: a TCP conversation (handshake, HTTP GET, a response in two "
                    "segments, FIN both ways); --pcapng FILE writes its frames as a pcapng too",
      etlgen_config_pktmon, etlgen_fill_pktmon_tcp },
    /* WPP software traces (etlgen_wpp.c) */
    { "wpp", "WPP messages built from a dozen of the shared TMFs' definitions (every Item type "
             "they use), the EVENT_HEADER form, a 32-bit provider, short and long arguments, "
             "messages no TMF describes",
      etlgen_config_wpp, etlgen_fill_wpp },
    { NULL, NULL, NULL, NULL },
};

const etlgen_preset *etlgen_find_preset(const char *name)
{
    for (const etlgen_preset *p = etlgen_presets; p->name; p++)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}
