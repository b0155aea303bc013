/* Unit tests of the record framer on hand-built records of every header kind. */
#include "check.h"
#include "etl.h"
#include "etl_format.h"

static uint8_t buf[1024];

static void put16(size_t o, unsigned v) { buf[o] = (uint8_t)v; buf[o + 1] = (uint8_t)(v >> 8); }
static void put32(size_t o, uint32_t v) { put16(o, v & 0xFFFF); put16(o + 2, v >> 16); }
static void put64(size_t o, uint64_t v) { put32(o, (uint32_t)v); put32(o + 4, (uint32_t)(v >> 32)); }

static etl_status frame(size_t avail, etl_record *r)
{
    uint32_t stride;
    memset(r, 0, sizeof *r);
    return etl_frame_record(buf, avail, 8, r, &stride, NULL);
}

static void test_event_header(void)
{
    etl_record r;
    memset(buf, 0, sizeof buf);
    /* EVENT_HEADER64 with RELATED_ACTIVITYID (24 bytes) and TS_ID (16 bytes), 6 payload bytes */
    size_t size = 0x50 + 24 + 16 + 6;
    put16(0, (unsigned)size);
    put16(2, 0xC013);
    put16(4, ETL_EHF_EXTENDED_INFO);
    put32(8, 0x2e8);
    put32(0x0C, 0x2e4);
    put64(0x10, 123456789);
    put32(0x18, 0xb8ddcea7);
    put16(0x28, 7);
    buf[0x2A] = 1; buf[0x2B] = 11; buf[0x2C] = 5; buf[0x2D] = 2;
    put16(0x2E, 0x99);
    put64(0x30, 0x8000000000000001ULL);
    put16(0x50, 24); put16(0x52, ETL_EXT_RELATED_ACTIVITYID); put16(0x54, 1); put16(0x56, 16);
    buf[0x58] = 0xAA;
    put16(0x68, 16); put16(0x6A, ETL_EXT_TS_ID); put16(0x6C, 0); put16(0x6E, 4);
    put32(0x70, 3);
    memcpy(buf + 0x78, "pay", 3);
    CHECK(frame(size, &r) == ETL_OK);
    CHECK_EQ_U(r.header_type, ETL_HT_EVENT_HEADER64);
    CHECK_EQ_U(r.pointer_size, 8);
    CHECK_EQ_U(r.size, size);
    CHECK_EQ_U(r.pid, 0x2e4);
    CHECK_EQ_U(r.tid, 0x2e8);
    CHECK_EQ_U(r.timestamp_raw, 123456789);
    CHECK_EQ_U(r.event_id, 7);
    CHECK_EQ_U(r.level, 5);
    CHECK_EQ_U(r.channel, 11);
    CHECK_EQ_U(r.task, 0x99);
    CHECK_EQ_U(r.keyword, 0x8000000000000001ULL);
    CHECK_EQ_U(r.flags, ETL_EHF_EXTENDED_INFO | ETL_EHF_64_BIT_HEADER);
    CHECK_EQ_U(r.ext_count, 2);
    CHECK_EQ_U(r.ext[0].type, ETL_EXT_RELATED_ACTIVITYID);
    CHECK_EQ_U(r.ext[1].type, ETL_EXT_TS_ID);
    uint32_t ts;
    CHECK(etl_ext_u32(&r.ext[1], &ts) && ts == 3);
    CHECK_EQ_U(r.payload_offset, 0x78);
    CHECK_EQ_U(r.payload_size, 6);
    etl_error problem;
    uint32_t at = 7;
    CHECK(!etl_record_problem(&r, &problem, &at));
    CHECK_EQ_U(at, 7); /* untouched when there is none */

    /* The chain says another item follows, but the record ends: a problem, not a failure,
     * named as an etl_error: code, text, and the file offset of the byte (the third item's
     * header would start at 0x78 of the record). */
    put16(0x6C, 1);
    CHECK(frame(size, &r) == ETL_OK);
    r.buffer_offset = 0x20000;
    r.record_offset = 0x48;
    CHECK(etl_record_problem(&r, NULL, NULL));
    CHECK(etl_record_problem(&r, &problem, &at));
    CHECK(problem.code == ETL_ERR_TRUNCATED);
    CHECK_EQ_U(problem.offset, 0x20000 + 0x48 + 0x78);
    CHECK_EQ_U(at, 0x78);
    CHECK(strcmp(problem.message, "extended data item header runs past the record end") == 0);
    /* In a compressed buffer the record has no file offset of its own: the buffer's, and the
     * message says where in the decompressed buffer (0x48 + 0x78). */
    r.buffer_flags = ETL_BF_COMPRESSED;
    CHECK(etl_record_problem(&r, &problem, &at));
    CHECK(problem.code == ETL_ERR_TRUNCATED);
    CHECK_EQ_U(problem.offset, 0x20000);
    CHECK_EQ_U(at, 0x78);
    CHECK(strcmp(problem.message,
                 "extended data item header runs past the record end (byte 0xc0 of the decompressed buffer)") == 0);
    CHECK_EQ_U(r.ext_count, 2);
    put16(0x6C, 0);
    /* An item whose data size exceeds its own size: the problem is at that item (0x68). */
    put16(0x6E, 40);
    CHECK(frame(size, &r) == ETL_OK);
    CHECK(etl_record_problem(&r, &problem, &at));
    CHECK(problem.code == ETL_ERR_CORRUPT);
    CHECK_EQ_U(problem.offset, 0x68);
    CHECK_EQ_U(at, 0x68);
    CHECK(strcmp(problem.message, "extended data item with impossible sizes") == 0);
    CHECK_EQ_U(r.ext_count, 1);
    CHECK_EQ_U(r.payload_offset, 0x68);
    /* A record running past the available bytes cannot be framed. */
    CHECK(frame(size - 1, &r) == ETL_ERR_TRUNCATED);
    /* EVENT_HEADER32 below its minimum size. */
    put16(0, 0x40);
    put16(2, 0xC012);
    CHECK(frame(size, &r) == ETL_ERR_CORRUPT);
}

static void test_system_family(void)
{
    etl_record r;
    memset(buf, 0, sizeof buf);
    /* SYSTEM64, version 3 with PEBS (0x8000) and 2 PMC counters (0x0200), Process/Start */
    size_t size = 0x20 + 8 + 16 + 4;
    put16(0, 0x8203);
    buf[2] = 0x02;
    buf[3] = 0xC0;
    put16(4, (unsigned)size);
    put16(6, 0x0301);
    put32(8, 10);
    put32(0x0C, 20);
    put64(0x10, 555);
    put32(0x18, 7);
    put32(0x1C, 8);
    put64(0x20, 0x1122);
    put64(0x28, 1);
    put64(0x30, 2);
    CHECK(frame(size, &r) == ETL_OK);
    CHECK_EQ_U(r.header_type, ETL_HT_SYSTEM64);
    CHECK_EQ_U(r.version, 3);
    CHECK_EQ_U(r.group, 3);
    CHECK_EQ_U(r.opcode, 1);
    CHECK(r.has_pebs && r.pebs_index == 0x1122);
    CHECK_EQ_U(r.pmc_count, 2);
    CHECK_EQ_U(r.payload_offset, 0x38);
    CHECK_EQ_U(r.payload_size, 4);
    CHECK_EQ_U(r.kernel_time, 7);
    char g[ETL_GUID_STR_SIZE];
    etl_format_guid(&r.provider, g);
    CHECK_STR(g, "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c");
    CHECK_EQ_U(r.flags, ETL_EHF_CLASSIC_HEADER | ETL_EHF_64_BIT_HEADER);

    /* PERFINFO32: no pid/tid, timestamp at 8 */
    memset(buf, 0, sizeof buf);
    put16(0, 2);
    buf[2] = 0x10;
    buf[3] = 0xC0;
    put16(4, 0x18);
    put16(6, 0x0F2E);
    put64(8, 999);
    CHECK(frame(0x18, &r) == ETL_OK);
    CHECK_EQ_U(r.header_type, ETL_HT_PERFINFO32);
    CHECK_EQ_U(r.pointer_size, 4);
    CHECK(r.pid == ETL_NO_ID && r.tid == ETL_NO_ID);
    CHECK_EQ_U(r.timestamp_raw, 999);
    CHECK_EQ_U(r.payload_offset, 0x10);
    /* COMPACT64 with an unknown group: framed, no provider */
    memset(buf, 0, sizeof buf);
    buf[2] = 0x04;
    buf[3] = 0xC0;
    put16(4, 0x18);
    put16(6, 0x7001);
    CHECK(frame(0x18, &r) == ETL_OK);
    CHECK_EQ_U(r.header_type, ETL_HT_COMPACT64);
    CHECK(!r.has_provider);
}

static void test_classic_and_message(void)
{
    etl_record r;
    memset(buf, 0, sizeof buf);
    /* INSTANCE32 */
    put16(0, 0x50);
    buf[2] = 0x0B;
    buf[3] = 0xC0;
    buf[4] = 10;
    buf[5] = 4;
    put16(6, 2);
    put32(0x30, 77);
    put32(0x34, 66);
    CHECK(frame(0x50, &r) == ETL_OK);
    CHECK_EQ_U(r.header_type, ETL_HT_INSTANCE32);
    CHECK_EQ_U(r.opcode, 10);
    CHECK_EQ_U(r.level, 4);
    CHECK_EQ_U(r.version, 2);
    CHECK_EQ_U(r.instance_id, 77);
    CHECK_EQ_U(r.parent_instance_id, 66);
    CHECK_EQ_U(r.payload_offset, 0x48);

    /* MESSAGE with sequence, GUID, timestamp and system info */
    memset(buf, 0, sizeof buf);
    size_t size = 8 + 4 + 16 + 8 + 8 + 5;
    put16(0, (unsigned)size);
    buf[3] = 0x90;
    put16(4, 12);
    put16(6, 0x0001 | 0x0002 | 0x0008 | 0x0020);
    put32(8, 41);
    buf[12] = 0xAB;
    put64(28, 31337);
    put32(36, 5);
    put32(40, 6);
    CHECK(frame(size, &r) == ETL_OK);
    CHECK_EQ_U(r.header_type, ETL_HT_MESSAGE);
    CHECK(r.has_sequence && r.sequence == 41);
    CHECK(r.has_provider && r.provider.data1 == 0xAB);
    CHECK_EQ_U(r.timestamp_raw, 31337);
    CHECK_EQ_U(r.tid, 5);
    CHECK_EQ_U(r.pid, 6);
    CHECK_EQ_U(r.payload_offset, 44);
    CHECK_EQ_U(r.payload_size, 5);
    CHECK_EQ_U(r.event_id, 12);
    /* component id wins over the GUID: 4 bytes, not 16 */
    put16(6, 0x0002 | 0x0004);
    CHECK(frame(size, &r) == ETL_OK);
    CHECK(r.has_component_id && !r.has_provider);
    CHECK_EQ_U(r.payload_offset, 12);
}

static void test_markers(void)
{
    etl_record r;
    uint32_t stride;
    memset(buf, 0xFF, sizeof buf);
    CHECK(frame(64, &r) == ETL_END);
    CHECK(frame(3, &r) == ETL_END);
    /* TIMED, defined but with no documented layout: framed by the low-word size, passed on raw */
    memset(buf, 0, sizeof buf);
    put16(0, 0x1C);
    buf[2] = 0x0C;
    buf[3] = 0xC0;
    memset(&r, 0, sizeof r);
    CHECK(etl_frame_record(buf, 64, 4, &r, &stride, NULL) == ETL_OK);
    CHECK_EQ_U(r.header_type, ETL_HT_TIMED);
    CHECK_EQ_U(r.raw_header_type, 0x0C);
    CHECK_EQ_U(stride, 0x20);
    CHECK_EQ_U(r.pointer_size, 4);
    CHECK_EQ_U(r.payload_size, 0x1C - 4);
    /* 0xB0 form (ULONG32_TIME): unknown, framed */
    buf[3] = 0xB0;
    CHECK(frame(64, &r) == ETL_OK);
    CHECK_EQ_U(r.header_type, ETL_HT_UNKNOWN);
    /* high bit clear: not a trace header */
    buf[3] = 0x40;
    etl_error e;
    memset(&r, 0, sizeof r);
    CHECK(etl_frame_record(buf, 64, 8, &r, &stride, &e) == ETL_ERR_CORRUPT);
    CHECK(strstr(e.message, "not a trace header") != NULL);
    /* size 0 in a system header */
    memset(buf, 0, sizeof buf);
    buf[2] = 0x02;
    buf[3] = 0xC0;
    CHECK(frame(64, &r) == ETL_ERR_CORRUPT);
    CHECK_STR(etl_header_type_name(ETL_HT_EVENT_HEADER32), "EVENT_HEADER32");
    CHECK_STR(etl_ext_type_name(ETL_EXT_STACK_KEY64), "STACK_KEY64");
    CHECK(etl_ext_type_name(99) == NULL);
}

int main(void)
{
    test_event_header();
    test_system_family();
    test_classic_and_message();
    test_markers();
    CHECK_MAIN_END();
}
