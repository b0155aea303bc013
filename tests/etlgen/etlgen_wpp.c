/* etlgen_wpp.c - the wpp preset: WPP messages of a dozen of the shared TMFs' own message
 * definitions (../shared/tmf, BthPS3/BthPS3PSM/DsHidMini/DMF), each argument laid out as WPP
 * logs it (etw-formats.md 9.3, docs/wpp.md), covering every Item type those TMFs use:
 * ItemNTSTATUS, ItemPtr, ItemLongLongXX, ItemString, ItemLong, ItemWINERROR, ItemPWString,
 * ItemLongLong, ItemListByte, ItemDouble, ItemWString, ItemULongLong, and a message without
 * arguments.  Then the cases around them: the EVENT_HEADER form (TRACE_MESSAGE flag, as a
 * relogger writes WPP events), a 32-bit provider's message (POINTER32: 4-byte pointers),
 * arguments cut short and arguments with bytes left over, a list value without a name, a
 * message GUID no TMF describes, and a message number its TMF does not define.
 * tests/integration/test_wpp.py decodes it with ../shared/tmf and checks every field and string
 * against tracefmt's rules; the table below is what it reads back (same order). */
#include "etlgen_wpp.h"

#include <string.h>

#define WPP_PID 4u
#define WPP_TID 0x1A8u
/* GUID, TIMESTAMP, SYSTEMINFO, POINTER64: what the cldflt driver's records carry */
#define FLAGS64 (ETLW_MSG_GUID | ETLW_MSG_TIMESTAMP | ETLW_MSG_SYSTEMINFO | ETLW_MSG_POINTER64)
#define FLAGS32 (ETLW_MSG_GUID | ETLW_MSG_TIMESTAMP | ETLW_MSG_SYSTEMINFO | ETLW_MSG_POINTER32)

#define G_L2CAP "01e9b841-7d67-315a-7b92-23b2033356de"     /* BthPS3 L2CAP.c */
#define G_DMFCORE "0a9ab260-f7e4-311e-a23e-f8ab6856dc72"   /* DmfKFramework DmfCore.c */
#define G_CONNECT "028f1450-e0d5-3b03-31cd-6226d77778f9"   /* BthPS3 L2CAP.Connect.c */
#define G_DS3 "10ab5e95-3a19-3bea-8e73-829a95a5dd10"       /* sys (DsHidMini) Ds3.c */
#define G_SIDEBAND "03fb1cb4-1c81-30e9-50db-4ecb4f47594e"  /* BthPS3PSM Sideband.c */
#define G_CONFIG "13024be3-4b84-3755-d706-51020667de4f"    /* sys Configuration.c */
#define G_DEVICE "a3210761-4ce2-3dcc-7574-aabc25a63d48"    /* sys Device.c */
#define G_OUTPUT "87140dc3-05eb-3f8c-a1be-42661f4f939d"    /* sys OutputReport.c */
#define G_NONE "11111111-2222-3333-4444-555555555555"      /* no TMF */

struct wgen {
    etlw_writer *w;
    int64_t now;
    uint32_t seq;
};

static void put_double(etlw_bytes *b, double d)
{
    etlw_put_f64(b, d);
}

/* One MESSAGE record of `guid`/`number` with the arguments in `a`. */
static int message(struct wgen *g, const char *guid, uint16_t number, uint16_t flags, const etlw_bytes *a)
{
    etlw_message_rec r;
    memset(&r, 0, sizeof r);
    r.message_number = number;
    r.option_flags = flags;
    r.sequence = ++g->seq;
    etlw_guid_parse(guid, &r.guid);
    g->now += 1234;
    r.timestamp = g->now;
    r.tid = WPP_TID;
    r.pid = WPP_PID;
    return etlw_write_message(g->w, 0, &r, a->data, a->len);
}

void etlgen_config_wpp(etlw_config *c, const etlgen_options *opt)
{
    (void)opt;
    etlw_config_init(c);
    c->pointer_size = 8;
    c->num_cpus = 1;
    c->buffer_size = 8192;
    c->logger_name = "etlshark-wpp";
    c->log_file_name = "C:\\etlshark\\wpp.etl";
}

int etlgen_fill_wpp(etlw_writer *w, const etlgen_options *opt)
{
    (void)opt;
    struct wgen g = { w, etlw_now(w) + 10000, 0 };
    static uint8_t abuf[1024];
    etlw_bytes a;
    int rc = 0;
#define BEGIN() etlw_bytes_init(&a, abuf, sizeof abuf)
#define EMIT(guid, number, flags) do { if (rc == 0) rc = message(&g, guid, number, flags, &a); } while (0)

    /* 1 L2CAP_c130 14: ItemNTSTATUS */
    BEGIN(); etlw_put_u32(&a, 0xC0000001u); EMIT(G_L2CAP, 14, FLAGS64);
    /* 2 the same with STATUS_SUCCESS and a sequence number */
    BEGIN(); etlw_put_u32(&a, 0); EMIT(G_L2CAP, 14, FLAGS64 | ETLW_MSG_SEQUENCE);
    /* 3 DmfCore_c1775 35: ItemPtr, ItemPtr, ItemLong */
    BEGIN(); etlw_put_u64(&a, 0xFFFF95820BE02120ull); etlw_put_u64(&a, 0xFFFF95820BE03000ull);
    etlw_put_u32(&a, 3); EMIT(G_DMFCORE, 35, FLAGS64);
    /* 4 L2CAP.Connect_c94 11: ItemLongLongXX, ItemString */
    BEGIN(); etlw_put_u64(&a, 0x001A7DDA7100ull); etlw_put_strz(&a, "PLAYSTATION(R)3 Controller");
    EMIT(G_CONNECT, 11, FLAGS64);
    /* 5 L2CAP_c203 18: ItemLong in %02X */
    BEGIN(); etlw_put_u32(&a, 5); EMIT(G_L2CAP, 18, FLAGS64);
    /* 6 Ds3_c355 28: ItemWINERROR */
    BEGIN(); etlw_put_u32(&a, 5); EMIT(G_DS3, 28, FLAGS64);
    /* 7 Sideband_c502 27: ItemPWString (UNICODE_STRING: byte count, characters), ItemLong */
    BEGIN(); etlw_put_counted_utf16(&a, "\\??\\BTHPS3PSM"); etlw_put_u32(&a, 26); EMIT(G_SIDEBAND, 27, FLAGS64);
    /* 8 Configuration_c782 20: ItemLongLong in %I64d */
    BEGIN(); etlw_put_u64(&a, (uint64_t)-5000000000LL); EMIT(G_CONFIG, 20, FLAGS64);
    /* 9 Sideband_c557 30: ItemListByte(Low,APC,DPC) */
    BEGIN(); etlw_put_u8(&a, 2); EMIT(G_SIDEBAND, 30, FLAGS64);
    /* 10 Configuration_c942 29: ItemDouble, ItemDouble */
    BEGIN(); put_double(&a, 1.5); put_double(&a, -0.25); EMIT(G_CONFIG, 29, FLAGS64);
    /* 11 Device_c1138 58: ItemWString */
    BEGIN(); etlw_put_utf16z(&a, "Global\\DsHidMiniDisconnectEvent"); EMIT(G_DEVICE, 58, FLAGS64);
    /* 12 OutputReport_c229 15: ItemPtr, ItemULongLong in %I64u */
    BEGIN(); etlw_put_u64(&a, 0xFFFFB00012345678ull); etlw_put_u64(&a, 250); EMIT(G_OUTPUT, 15, FLAGS64);
    /* 13 L2CAP_c141 15: no arguments */
    BEGIN(); EMIT(G_L2CAP, 15, FLAGS64);
    /* 14 a 32-bit provider: DmfCore_c1775 35 with 4-byte pointers */
    BEGIN(); etlw_put_u32(&a, 0x8A001000u); etlw_put_u32(&a, 0x8A002000u); etlw_put_u32(&a, 1);
    EMIT(G_DMFCORE, 35, FLAGS32);
    /* 15 cut short: DmfCore_c1775 35 with one pointer and half of the next */
    BEGIN(); etlw_put_u64(&a, 0xFFFF95820BE02120ull); etlw_put_u32(&a, 0x0BE03000u); EMIT(G_DMFCORE, 35, FLAGS64);
    /* 16 bytes left over: L2CAP_c203 18 with 4 more bytes */
    BEGIN(); etlw_put_u32(&a, 7); etlw_put_u32(&a, 0xDDCCBBAAu); EMIT(G_L2CAP, 18, FLAGS64);
    /* 17 a list value without a name: Sideband_c557 30 with 9 */
    BEGIN(); etlw_put_u8(&a, 9); EMIT(G_SIDEBAND, 30, FLAGS64);
    /* 18 a message GUID no TMF describes */
    BEGIN(); etlw_put_u32(&a, 0x12345678u); EMIT(G_NONE, 1, FLAGS64);
    /* 19 a message number its TMF does not define */
    BEGIN(); etlw_put_u32(&a, 1); EMIT(G_L2CAP, 999, FLAGS64);
    /* 20 the EVENT_HEADER form: L2CAP_c130 14 as a relogger writes it (provider = message GUID,
     * event id = message number, the TRACE_MESSAGE flag stored) */
    if (rc == 0) {
        etlw_event_rec e;
        memset(&e, 0, sizeof e);
        e.bits = 64;
        e.flags = 0x0008; /* EVENT_HEADER_FLAG_TRACE_MESSAGE */
        e.tid = WPP_TID;
        e.pid = WPP_PID;
        g.now += 1234;
        e.timestamp = g.now;
        etlw_guid_parse(G_L2CAP, &e.provider);
        e.id = 14;
        BEGIN();
        etlw_put_u32(&a, 0xC0000022u);
        rc = etlw_write_event(w, 0, &e, NULL, a.data, a.len);
    }
#undef BEGIN
#undef EMIT
    return rc;
}
