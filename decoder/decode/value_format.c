/* value_format.c - typed values and text of field values (value_format.h). */
#include "value_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bytes.h"
#include "etl_format.h"

/* ---- error-code names ------------------------------------------------------------------- */

/* The codes seen most in traces (winerror.h / ntstatus.h values, MS-ERREF).  A short table on
 * purpose: offline we cannot have Windows' message text, and a name for the common codes covers
 * most reading; every other code still shows its number. */
typedef struct code_name {
    uint32_t code;
    const char *name;
} code_name;

static const code_name win32_errors[] = {
    {0, "ERROR_SUCCESS"},
    {1, "ERROR_INVALID_FUNCTION"},
    {2, "ERROR_FILE_NOT_FOUND"},
    {3, "ERROR_PATH_NOT_FOUND"},
    {4, "ERROR_TOO_MANY_OPEN_FILES"},
    {5, "ERROR_ACCESS_DENIED"},
    {6, "ERROR_INVALID_HANDLE"},
    {8, "ERROR_NOT_ENOUGH_MEMORY"},
    {13, "ERROR_INVALID_DATA"},
    {14, "ERROR_OUTOFMEMORY"},
    {21, "ERROR_NOT_READY"},
    {32, "ERROR_SHARING_VIOLATION"},
    {33, "ERROR_LOCK_VIOLATION"},
    {38, "ERROR_HANDLE_EOF"},
    {50, "ERROR_NOT_SUPPORTED"},
    {53, "ERROR_BAD_NETPATH"},
    {64, "ERROR_NETNAME_DELETED"},
    {80, "ERROR_FILE_EXISTS"},
    {87, "ERROR_INVALID_PARAMETER"},
    {109, "ERROR_BROKEN_PIPE"},
    {111, "ERROR_BUFFER_OVERFLOW"},
    {112, "ERROR_DISK_FULL"},
    {120, "ERROR_CALL_NOT_IMPLEMENTED"},
    {122, "ERROR_INSUFFICIENT_BUFFER"},
    {123, "ERROR_INVALID_NAME"},
    {126, "ERROR_MOD_NOT_FOUND"},
    {127, "ERROR_PROC_NOT_FOUND"},
    {170, "ERROR_BUSY"},
    {183, "ERROR_ALREADY_EXISTS"},
    {193, "ERROR_BAD_EXE_FORMAT"},
    {203, "ERROR_ENVVAR_NOT_FOUND"},
    {206, "ERROR_FILENAME_EXCED_RANGE"},
    {230, "ERROR_BAD_PIPE"},
    {231, "ERROR_PIPE_BUSY"},
    {232, "ERROR_NO_DATA"},
    {233, "ERROR_PIPE_NOT_CONNECTED"},
    {234, "ERROR_MORE_DATA"},
    {258, "WAIT_TIMEOUT"},
    {259, "ERROR_NO_MORE_ITEMS"},
    {267, "ERROR_DIRECTORY"},
    {487, "ERROR_INVALID_ADDRESS"},
    {995, "ERROR_OPERATION_ABORTED"},
    {996, "ERROR_IO_INCOMPLETE"},
    {997, "ERROR_IO_PENDING"},
    {998, "ERROR_NOACCESS"},
    {1008, "ERROR_NO_TOKEN"},
    {1060, "ERROR_SERVICE_DOES_NOT_EXIST"},
    {1062, "ERROR_SERVICE_NOT_ACTIVE"},
    {1168, "ERROR_NOT_FOUND"},
    {1223, "ERROR_CANCELLED"},
    {1225, "ERROR_CONNECTION_REFUSED"},
    {1236, "ERROR_CONNECTION_ABORTED"},
    {1326, "ERROR_LOGON_FAILURE"},
    {1450, "ERROR_NO_SYSTEM_RESOURCES"},
    {1460, "ERROR_TIMEOUT"},
    {1722, "RPC_S_SERVER_UNAVAILABLE"},
    {10054, "WSAECONNRESET"},
    {10060, "WSAETIMEDOUT"},
    {10061, "WSAECONNREFUSED"},
};

static const code_name ntstatus_codes[] = {
    {0x00000000, "STATUS_SUCCESS"},
    {0x00000102, "STATUS_TIMEOUT"},
    {0x00000103, "STATUS_PENDING"},
    {0x00000104, "STATUS_REPARSE"},
    {0x00000105, "STATUS_MORE_ENTRIES"},
    {0x80000003, "STATUS_BREAKPOINT"},
    {0x80000005, "STATUS_BUFFER_OVERFLOW"},
    {0x80000006, "STATUS_NO_MORE_FILES"},
    {0x8000001A, "STATUS_NO_MORE_ENTRIES"},
    {0xC0000001, "STATUS_UNSUCCESSFUL"},
    {0xC0000002, "STATUS_NOT_IMPLEMENTED"},
    {0xC0000004, "STATUS_INFO_LENGTH_MISMATCH"},
    {0xC0000005, "STATUS_ACCESS_VIOLATION"},
    {0xC0000008, "STATUS_INVALID_HANDLE"},
    {0xC000000D, "STATUS_INVALID_PARAMETER"},
    {0xC000000F, "STATUS_NO_SUCH_FILE"},
    {0xC0000010, "STATUS_INVALID_DEVICE_REQUEST"},
    {0xC0000011, "STATUS_END_OF_FILE"},
    {0xC0000017, "STATUS_NO_MEMORY"},
    {0xC000001D, "STATUS_ILLEGAL_INSTRUCTION"},
    {0xC0000022, "STATUS_ACCESS_DENIED"},
    {0xC0000023, "STATUS_BUFFER_TOO_SMALL"},
    {0xC0000024, "STATUS_OBJECT_TYPE_MISMATCH"},
    {0xC0000033, "STATUS_OBJECT_NAME_INVALID"},
    {0xC0000034, "STATUS_OBJECT_NAME_NOT_FOUND"},
    {0xC0000035, "STATUS_OBJECT_NAME_COLLISION"},
    {0xC000003A, "STATUS_OBJECT_PATH_NOT_FOUND"},
    {0xC0000043, "STATUS_SHARING_VIOLATION"},
    {0xC0000054, "STATUS_FILE_LOCK_CONFLICT"},
    {0xC0000061, "STATUS_PRIVILEGE_NOT_HELD"},
    {0xC000006D, "STATUS_LOGON_FAILURE"},
    {0xC000007F, "STATUS_DISK_FULL"},
    {0xC0000094, "STATUS_INTEGER_DIVIDE_BY_ZERO"},
    {0xC0000096, "STATUS_PRIVILEGED_INSTRUCTION"},
    {0xC000009A, "STATUS_INSUFFICIENT_RESOURCES"},
    {0xC00000AC, "STATUS_PIPE_NOT_AVAILABLE"},
    {0xC00000B0, "STATUS_PIPE_DISCONNECTED"},
    {0xC00000B5, "STATUS_IO_TIMEOUT"},
    {0xC00000BA, "STATUS_FILE_IS_A_DIRECTORY"},
    {0xC00000BB, "STATUS_NOT_SUPPORTED"},
    {0xC00000FD, "STATUS_STACK_OVERFLOW"},
    {0xC0000101, "STATUS_DIRECTORY_NOT_EMPTY"},
    {0xC0000103, "STATUS_NOT_A_DIRECTORY"},
    {0xC0000120, "STATUS_CANCELLED"},
    {0xC0000135, "STATUS_DLL_NOT_FOUND"},
    {0xC0000142, "STATUS_DLL_INIT_FAILED"},
    {0xC000014B, "STATUS_PIPE_BROKEN"},
    {0xC0000185, "STATUS_IO_DEVICE_ERROR"},
    {0xC000020D, "STATUS_CONNECTION_RESET"},
    {0xC0000225, "STATUS_NOT_FOUND"},
    {0xC0000236, "STATUS_CONNECTION_REFUSED"},
    {0xC0000241, "STATUS_CONNECTION_ABORTED"},
    {0xC0000374, "STATUS_HEAP_CORRUPTION"},
    {0xC0000409, "STATUS_STACK_BUFFER_OVERRUN"},
};

static const code_name hresults[] = {
    {0x00000000, "S_OK"},
    {0x00000001, "S_FALSE"},
    {0x8000000A, "E_PENDING"},
    {0x8000000B, "E_BOUNDS"},
    {0x8000000C, "E_CHANGED_STATE"},
    {0x8000000E, "E_ILLEGAL_METHOD_CALL"},
    {0x80004001, "E_NOTIMPL"},
    {0x80004002, "E_NOINTERFACE"},
    {0x80004003, "E_POINTER"},
    {0x80004004, "E_ABORT"},
    {0x80004005, "E_FAIL"},
    {0x8000FFFF, "E_UNEXPECTED"},
    {0x80010105, "RPC_E_SERVERFAULT"},
    {0x80010106, "RPC_E_CHANGED_MODE"},
    {0x80010108, "RPC_E_DISCONNECTED"},
    {0x80020003, "DISP_E_MEMBERNOTFOUND"},
    {0x80020005, "DISP_E_TYPEMISMATCH"},
    {0x80040110, "CLASS_E_NOAGGREGATION"},
    {0x80040154, "REGDB_E_CLASSNOTREG"},
    {0x800401F0, "CO_E_NOTINITIALIZED"},
    {0x80070005, "E_ACCESSDENIED"},
    {0x80070006, "E_HANDLE"},
    {0x8007000E, "E_OUTOFMEMORY"},
    {0x80070057, "E_INVALIDARG"},
    {0x8007007A, "E_NOT_SUFFICIENT_BUFFER"},
    {0x8007139F, "E_NOT_VALID_STATE"},
    {0x80080005, "CO_E_SERVER_EXEC_FAILURE"},
};

static const char *find_code(const code_name *t, size_t n, uint32_t code)
{
    size_t lo = 0, hi = n; /* tables are sorted by code */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid].code == code)
            return t[mid].name;
        if (t[mid].code < code)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *etl_win32_error_name(uint32_t code)
{
    return find_code(win32_errors, sizeof win32_errors / sizeof win32_errors[0], code);
}

const char *etl_ntstatus_name(uint32_t code)
{
    return find_code(ntstatus_codes, sizeof ntstatus_codes / sizeof ntstatus_codes[0], code);
}

const char *etl_hresult_name(uint32_t code)
{
    return find_code(hresults, sizeof hresults / sizeof hresults[0], code);
}

/* ---- in/out pairing --------------------------------------------------------------------- */

static uint16_t default_format(unsigned in)
{
    switch (in) {
    case ETL_IN_UNICODESTRING: case ETL_IN_ANSISTRING: case ETL_IN_COUNTEDSTRING: case ETL_IN_COUNTEDANSISTRING:
    case ETL_IN_SID:
        return ETL_OUT_STRING;
    case ETL_IN_INT8: return ETL_OUT_BYTE;
    case ETL_IN_UINT8: return ETL_OUT_UNSIGNEDBYTE;
    case ETL_IN_INT16: return ETL_OUT_SHORT;
    case ETL_IN_UINT16: return ETL_OUT_UNSIGNEDSHORT;
    case ETL_IN_INT32: return ETL_OUT_INT;
    case ETL_IN_UINT32: return ETL_OUT_UNSIGNEDINT;
    case ETL_IN_INT64: return ETL_OUT_LONG;
    case ETL_IN_UINT64: return ETL_OUT_UNSIGNEDLONG;
    case ETL_IN_FLOAT: return ETL_OUT_FLOAT;
    case ETL_IN_DOUBLE: return ETL_OUT_DOUBLE;
    case ETL_IN_BOOLEAN: return ETL_OUT_BOOLEAN;
    case ETL_IN_BINARY: case ETL_IN_COUNTEDBINARY: return ETL_OUT_HEXBINARY;
    case ETL_IN_GUID: return ETL_OUT_GUID;
    case ETL_IN_POINTER: return ETL_OUT_HEXINT64;
    case ETL_IN_FILETIME: case ETL_IN_SYSTEMTIME: return ETL_OUT_DATETIME;
    case ETL_IN_HEXINT32: return ETL_OUT_HEXINT32;
    case ETL_IN_HEXINT64: return ETL_OUT_HEXINT64;
    default: return ETL_OUT_HEXBINARY; /* unknown in-types: show the bytes */
    }
}

/* The pairs Windows renders (winmeta.xml's lists, TraceLogging's documented combinations, and
 * the same-width signed/unsigned/hex readings TDH accepts). */
static bool pair_ok(unsigned in, unsigned out)
{
    switch (in) {
    case ETL_IN_UNICODESTRING: case ETL_IN_COUNTEDSTRING:
        return out == ETL_OUT_STRING || out == ETL_OUT_XML || out == ETL_OUT_JSON;
    case ETL_IN_ANSISTRING: case ETL_IN_COUNTEDANSISTRING:
        return out == ETL_OUT_STRING || out == ETL_OUT_XML || out == ETL_OUT_JSON || out == ETL_OUT_UTF8;
    case ETL_IN_INT8: case ETL_IN_UINT8:
        return out == ETL_OUT_BYTE || out == ETL_OUT_UNSIGNEDBYTE || out == ETL_OUT_STRING || out == ETL_OUT_HEXINT8 ||
               (in == ETL_IN_UINT8 && out == ETL_OUT_BOOLEAN);
    case ETL_IN_INT16: case ETL_IN_UINT16:
        return out == ETL_OUT_SHORT || out == ETL_OUT_UNSIGNEDSHORT || out == ETL_OUT_HEXINT16 ||
               (in == ETL_IN_UINT16 && (out == ETL_OUT_PORT || out == ETL_OUT_STRING));
    case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32:
        return out == ETL_OUT_INT || out == ETL_OUT_UNSIGNEDINT || out == ETL_OUT_HEXINT32 || out == ETL_OUT_PID ||
               out == ETL_OUT_TID || out == ETL_OUT_IPV4 || out == ETL_OUT_WIN32ERROR || out == ETL_OUT_NTSTATUS ||
               out == ETL_OUT_HRESULT || out == ETL_OUT_CODE_POINTER;
    case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_HEXINT64:
        return out == ETL_OUT_LONG || out == ETL_OUT_UNSIGNEDLONG || out == ETL_OUT_HEXINT64 ||
               out == ETL_OUT_CODE_POINTER;
    case ETL_IN_POINTER:
        return out == ETL_OUT_HEXINT64 || out == ETL_OUT_HEXINT32 || out == ETL_OUT_CODE_POINTER;
    case ETL_IN_BINARY: case ETL_IN_COUNTEDBINARY:
        return out == ETL_OUT_HEXBINARY || out == ETL_OUT_IPV6 || out == ETL_OUT_SOCKETADDRESS ||
               out == ETL_OUT_PKCS7_WITH_TYPE_INFO;
    case ETL_IN_FILETIME: case ETL_IN_SYSTEMTIME:
        return out == ETL_OUT_DATETIME || out == ETL_OUT_CULTURE_INSENSITIVE_DATETIME || out == ETL_OUT_DATETIME_UTC;
    case ETL_IN_FLOAT: return out == ETL_OUT_FLOAT;
    case ETL_IN_DOUBLE: return out == ETL_OUT_DOUBLE;
    case ETL_IN_BOOLEAN: return out == ETL_OUT_BOOLEAN;
    case ETL_IN_GUID: return out == ETL_OUT_GUID;
    case ETL_IN_SID: return out == ETL_OUT_STRING;
    default: return false;
    }
}

/* TDH's types from 300 on are laid out differently in the payload (the enumerator strips their
 * count prefixes) but their values are those of a base type: render them as that type.  The
 * two chars default to a character (the STRING out-type) as TDH shows them. */
static unsigned canonical_in(unsigned in, unsigned *out)
{
    switch (in) {
    case ETL_IN_MOF_COUNTEDSTRING: case ETL_IN_REVERSEDCOUNTEDSTRING: case ETL_IN_NONNULLTERMINATEDSTRING:
        return ETL_IN_COUNTEDSTRING;
    case ETL_IN_MOF_COUNTEDANSISTRING: case ETL_IN_REVERSEDCOUNTEDANSISTRING:
    case ETL_IN_NONNULLTERMINATEDANSISTRING:
        return ETL_IN_COUNTEDANSISTRING;
    case ETL_IN_UNICODECHAR:
        if (*out == ETL_OUT_NULL)
            *out = ETL_OUT_STRING;
        return ETL_IN_UINT16;
    case ETL_IN_ANSICHAR:
        if (*out == ETL_OUT_NULL)
            *out = ETL_OUT_STRING;
        return ETL_IN_UINT8;
    case ETL_IN_SIZET: return ETL_IN_POINTER;
    case ETL_IN_HEXDUMP: return ETL_IN_BINARY;
    case ETL_IN_WBEMSID: return ETL_IN_SID;
    default: return in;
    }
}

uint16_t etl_value_effective_format(unsigned in, unsigned out)
{
    in = canonical_in(in, &out);
    if (out != ETL_OUT_NULL && out != ETL_OUT_NOPRINT && pair_ok(in, out))
        return (uint16_t)out;
    return default_format(in);
}

/* ---- text helpers ----------------------------------------------------------------------- */

/* Windows-1252 0x80..0x9F; the five undefined bytes map to the C1 code point of the same
 * value, as Windows' own conversion does, so every byte survives. */
static const uint16_t cp1252_high[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

static uint32_t cp1252(uint8_t b)
{
    return b >= 0x80 && b < 0xA0 ? cp1252_high[b - 0x80] : b;
}

/* Encode one code point; 0 when it does not fit (cap counts the NUL that must follow). */
static size_t put_cp(uint32_t c, char *out, size_t o, size_t cap)
{
    size_t n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (o + n >= cap)
        return 0;
    if (n == 1) {
        out[o] = (char)c;
    } else if (n == 2) {
        out[o] = (char)(0xC0 | (c >> 6));
        out[o + 1] = (char)(0x80 | (c & 0x3F));
    } else if (n == 3) {
        out[o] = (char)(0xE0 | (c >> 12));
        out[o + 1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[o + 2] = (char)(0x80 | (c & 0x3F));
    } else {
        out[o] = (char)(0xF0 | (c >> 18));
        out[o + 1] = (char)(0x80 | ((c >> 12) & 0x3F));
        out[o + 2] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[o + 3] = (char)(0x80 | (c & 0x3F));
    }
    return n;
}

/* Is p[0..n) valid UTF-8 (no overlongs, no surrogates, <= U+10FFFF)?  ASCII runs are checked
 * eight bytes at a time: nearly all trace strings are ASCII. */
static bool valid_utf8(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n && (etl_ld64(p + i) & 0x8080808080808080ULL) == 0) {
            i += 8;
            continue;
        }
        uint8_t c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + len > n)
            return false;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (p[i + k] & 0x3F);
        }
        if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
            return false;
        i += len;
    }
    return true;
}

/* 8-bit text: the bytes themselves when they are UTF-8, else Windows-1252 converted into buf. */
static void ansi_value(const uint8_t *p, size_t n, etl_value *v, char *buf, size_t cap)
{
    v->kind = ETL_VALUE_STRING;
    if (valid_utf8(p, n)) {
        v->str = (const char *)p;
        v->str_len = n;
        return;
    }
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = put_cp(cp1252(p[i]), buf, o, cap);
        if (!k) {
            v->truncated = true;
            break;
        }
        o += k;
    }
    if (cap)
        buf[o] = '\0';
    v->str = buf;
    v->str_len = o;
}

/* UTF-16LE (up to a NUL unit or n bytes) to UTF-8 in buf.  Written here rather than through
 * text.c's converter for two reasons: the exact `truncated` flag, and an ASCII fast path (four
 * code units per step) - trace strings are overwhelmingly ASCII.  Unpaired surrogates become
 * U+FFFD. */
static void utf16_value(const uint8_t *p, size_t n, etl_value *v, char *buf, size_t cap)
{
    size_t i = 0, o = 0;
    v->kind = ETL_VALUE_STRING;
    v->str = buf;
    v->str_len = 0;
    if (!cap)
        return;
    for (;;) {
#if defined(__SSE2__)
        /* eight ASCII units, none NUL, and room for them: each unit 1..0x7F, packed to bytes */
        while (i + 16 <= n && o + 8 < cap) {
            __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
            __m128i ascii = _mm_cmpeq_epi16(_mm_and_si128(w, _mm_set1_epi16((short)0xFF80)), _mm_setzero_si128());
            __m128i nul = _mm_cmpeq_epi16(w, _mm_setzero_si128());
            if (_mm_movemask_epi8(_mm_andnot_si128(nul, ascii)) != 0xFFFF)
                break;
            _mm_storel_epi64((__m128i *)(void *)(buf + o), _mm_packus_epi16(w, w));
            o += 8;
            i += 16;
        }
#endif
        /* four ASCII units, none NUL, and room for them */
        while (i + 8 <= n && o + 4 < cap) {
            uint64_t w = etl_ld64(p + i);
            if ((w & 0xFF80FF80FF80FF80ULL) || ((w - 0x0001000100010001ULL) & ~w & 0x8000800080008000ULL))
                break;
            buf[o] = (char)p[i];
            buf[o + 1] = (char)p[i + 2];
            buf[o + 2] = (char)p[i + 4];
            buf[o + 3] = (char)p[i + 6];
            o += 4;
            i += 8;
        }
        if (i + 2 > n)
            break;
        uint32_t c = etl_ld16(p + i);
        if (c == 0)
            break;
        size_t used = 2;
        if (c >= 0xD800 && c < 0xDC00 && i + 4 <= n) {
            uint32_t lo = etl_ld16(p + i + 2);
            if (lo >= 0xDC00 && lo < 0xE000) {
                c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                used = 4;
            } else {
                c = 0xFFFD;
            }
        } else if (c >= 0xD800 && c < 0xE000) {
            c = 0xFFFD;
        }
        size_t k = put_cp(c, buf, o, cap);
        if (!k) {
            v->truncated = true;
            break;
        }
        o += k;
        i += used;
    }
    buf[o] = '\0';
    v->str_len = o;
}

/* ---- decoding --------------------------------------------------------------------------- */

static void set_uint(etl_value *v, uint64_t u, uint8_t bits)
{
    v->kind = ETL_VALUE_UINT;
    v->v.u = u;
    v->bits = bits;
}

/* Fixed byte size of an in-type, 0 for variable ones. */
static size_t fixed_size(unsigned in, uint8_t pointer_size)
{
    switch (in) {
    case ETL_IN_INT8: case ETL_IN_UINT8: return 1;
    case ETL_IN_INT16: case ETL_IN_UINT16: return 2;
    case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_FLOAT: case ETL_IN_BOOLEAN: case ETL_IN_HEXINT32: return 4;
    case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_DOUBLE: case ETL_IN_FILETIME: case ETL_IN_HEXINT64: return 8;
    case ETL_IN_GUID: case ETL_IN_SYSTEMTIME: return 16;
    case ETL_IN_POINTER: return pointer_size == 4 ? 4 : 8;
    default: return 0;
    }
}

/* The one rule for a value's type, in two parts.  The type part - kind, width and effective
 * format from the in- and out-type - is worked out once per field, when its schema step is
 * added (etl_value_type_nominal, kept in the step); the byte-count part (too few bytes for the
 * type, an address of the wrong size) is applied per value (apply_nominal).  etl_value_decode
 * starts from the step's copy, etl_value_decode_raw from a fresh one, and both depart only
 * where the bytes themselves say otherwise (a FILETIME past year 9999, an impossible
 * SYSTEMTIME, a malformed SID). */
etl_step_nominal etl_value_type_nominal(unsigned in, unsigned out, uint8_t pointer_size)
{
    etl_step_nominal nm = {0};
    in = canonical_in(in, &out);
    uint16_t fmt = etl_value_effective_format(in, out);
    nm.in_type = (uint16_t)in;
    nm.format = fmt;
    nm.pointer_size = pointer_size == 4 ? 4 : 8;
    nm.fixed = (uint8_t)fixed_size(in, nm.pointer_size);
    switch (in) {
    case ETL_IN_UNICODESTRING: case ETL_IN_COUNTEDSTRING:
    case ETL_IN_ANSISTRING: case ETL_IN_COUNTEDANSISTRING:
    case ETL_IN_SID:
        nm.kind = ETL_VALUE_STRING;
        break;
    case ETL_IN_INT8: case ETL_IN_UINT8:
        if (fmt == ETL_OUT_STRING) { /* a character, Windows-1252 */
            nm.kind = ETL_VALUE_STRING;
            nm.bits = 8;
        } else if (fmt == ETL_OUT_BOOLEAN) {
            nm.kind = ETL_VALUE_BOOL;
        } else if (fmt == ETL_OUT_BYTE || (in == ETL_IN_INT8 && fmt != ETL_OUT_UNSIGNEDBYTE && fmt != ETL_OUT_HEXINT8)) {
            nm.kind = ETL_VALUE_INT;
            nm.bits = 8;
        } else {
            nm.kind = ETL_VALUE_UINT;
            nm.bits = 8;
        }
        break;
    case ETL_IN_INT16: case ETL_IN_UINT16:
        nm.bits = 16;
        if (fmt == ETL_OUT_STRING) /* a UCS-2 character */
            nm.kind = ETL_VALUE_STRING;
        else if (fmt == ETL_OUT_SHORT)
            nm.kind = ETL_VALUE_INT;
        else
            nm.kind = ETL_VALUE_UINT; /* PORT included */
        break;
    case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32:
        if (fmt == ETL_OUT_IPV4) {
            nm.kind = ETL_VALUE_BYTES; /* network order: the bytes as stored */
        } else {
            nm.kind = fmt == ETL_OUT_INT ? ETL_VALUE_INT : ETL_VALUE_UINT;
            nm.bits = 32;
        }
        break;
    case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_HEXINT64:
        nm.kind = fmt == ETL_OUT_LONG ? ETL_VALUE_INT : ETL_VALUE_UINT;
        nm.bits = 64;
        break;
    case ETL_IN_POINTER:
        nm.kind = ETL_VALUE_UINT;
        nm.bits = (uint8_t)(nm.fixed * 8);
        break;
    case ETL_IN_FLOAT: case ETL_IN_DOUBLE:
        nm.kind = ETL_VALUE_DOUBLE;
        nm.bits = in == ETL_IN_FLOAT ? 32 : 64;
        break;
    case ETL_IN_BOOLEAN:
        nm.kind = ETL_VALUE_BOOL;
        break;
    case ETL_IN_GUID:
        nm.kind = ETL_VALUE_GUID;
        break;
    case ETL_IN_FILETIME: case ETL_IN_SYSTEMTIME:
        nm.kind = ETL_VALUE_FILETIME;
        break;
    case ETL_IN_BINARY: case ETL_IN_COUNTEDBINARY:
        nm.kind = ETL_VALUE_BYTES; /* IPV6 / SOCKETADDRESS: checked against the byte count */
        break;
    default:
        nm.kind = ETL_VALUE_BYTES;
        nm.format = ETL_OUT_HEXBINARY;
        break;
    }
    return nm;
}

/* The byte-count part of the rule, on top of the type part. */
static inline void apply_nominal(const etl_step_nominal *nm, size_t n, etl_value *v)
{
    memset(v, 0, sizeof *v);
    v->format = nm->format;
    v->bytes_len = n == ETL_VALUE_SIZE_ANY ? 0 : n;
    if (nm->fixed && n < nm->fixed) {
        v->kind = ETL_VALUE_NONE; /* not enough bytes for the type: the text is their hex */
        return;
    }
    v->kind = (etl_value_kind)nm->kind;
    v->bits = nm->bits;
    if (nm->kind == ETL_VALUE_BYTES) {
        if (nm->format == ETL_OUT_IPV4) {
            v->bytes_len = 4;
        } else if (nm->format == ETL_OUT_IPV6 && n == ETL_VALUE_SIZE_ANY) {
            v->bytes_len = 16; /* an address, when the bytes are one */
        } else if ((nm->format == ETL_OUT_IPV6 && n != 16) || (nm->format == ETL_OUT_SOCKETADDRESS && n < 2)) {
            v->format = ETL_OUT_HEXBINARY; /* wrong size for the address: plain bytes */
        }
    }
}

void etl_value_nominal(unsigned in, unsigned out, uint8_t pointer_size, size_t n, etl_value *v)
{
    etl_step_nominal nm = etl_value_type_nominal(in, out, pointer_size);
    apply_nominal(&nm, n, v);
}

/* A value's bytes, starting from its field's nominal type.  Integers first, on a short path:
 * they are most values of kernel and manifest events. */
static inline bool nominal_is_int(const etl_step_nominal *nm, size_t n)
{
    return (nm->kind == ETL_VALUE_UINT || nm->kind == ETL_VALUE_INT) && nm->fixed && n >= nm->fixed &&
           nm->format != ETL_OUT_PORT;
}

static inline __attribute__((always_inline)) void decode_nominal(const etl_step_nominal *nm, const uint8_t *p,
                                                                 size_t n, etl_value *v, char *buf, size_t cap)
{
    if (nominal_is_int(nm, n)) { /* its number is etl_nominal_int's */
        memset(v, 0, sizeof *v);
        v->kind = (etl_value_kind)nm->kind;
        v->format = nm->format;
        v->bits = nm->bits;
        v->bytes = p;
        v->bytes_len = n;
        v->v.u = etl_nominal_int(nm, p);
        return;
    }
    apply_nominal(nm, n, v);
    v->bytes = p;
    if (v->kind == ETL_VALUE_NONE)
        return;
    unsigned in = nm->in_type;
    switch (in) {
    case ETL_IN_UNICODESTRING: case ETL_IN_COUNTEDSTRING:
        utf16_value(p, n, v, buf, cap);
        return;
    case ETL_IN_ANSISTRING: case ETL_IN_COUNTEDANSISTRING: {
        size_t len = n;
        if (in == ETL_IN_ANSISTRING) { /* up to the terminator */
            const uint8_t *nul = n ? memchr(p, 0, n) : NULL;
            if (nul)
                len = (size_t)(nul - p);
        }
        ansi_value(p, len, v, buf, cap);
        return;
    }
    case ETL_IN_INT8: case ETL_IN_UINT8:
        if (v->kind == ETL_VALUE_STRING) {
            size_t k = cap ? put_cp(p[0] ? cp1252(p[0]) : 0, buf, 0, cap) : 0;
            if (cap)
                buf[p[0] ? k : 0] = '\0';
            v->str = buf;
            v->str_len = p[0] ? k : 0;
        } else if (v->kind == ETL_VALUE_BOOL) {
            v->v.b = p[0] != 0;
        } else if (v->kind == ETL_VALUE_INT) {
            v->v.i = (int8_t)p[0];
        } else {
            v->v.u = p[0];
        }
        return;
    case ETL_IN_INT16: case ETL_IN_UINT16: {
        uint16_t x = etl_ld16(p);
        if (v->kind == ETL_VALUE_STRING) { /* a lone surrogate becomes U+FFFD */
            uint32_t c = (x >= 0xD800 && x < 0xE000) ? 0xFFFD : x;
            size_t k = c && cap ? put_cp(c, buf, 0, cap) : 0;
            if (cap)
                buf[k] = '\0';
            v->str = buf;
            v->str_len = k;
        } else if (v->format == ETL_OUT_PORT) {
            v->v.u = (uint16_t)(p[0] << 8 | p[1]);
        } else if (v->kind == ETL_VALUE_INT) {
            v->v.i = (int16_t)x;
        } else {
            v->v.u = x;
        }
        return;
    }
    case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32: {
        uint32_t x = etl_ld32(p);
        if (v->kind == ETL_VALUE_BYTES)
            v->bytes_len = 4; /* IPV4 */
        else if (v->kind == ETL_VALUE_INT)
            v->v.i = (int32_t)x;
        else
            v->v.u = x;
        return;
    }
    case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_HEXINT64: {
        uint64_t x = etl_ld64(p);
        if (v->kind == ETL_VALUE_INT)
            v->v.i = (int64_t)x;
        else
            v->v.u = x;
        return;
    }
    case ETL_IN_POINTER:
        v->v.u = v->bits == 32 ? etl_ld32(p) : etl_ld64(p);
        return;
    case ETL_IN_FLOAT: {
        uint32_t b = etl_ld32(p);
        float f;
        memcpy(&f, &b, 4);
        v->v.d = f;
        return;
    }
    case ETL_IN_DOUBLE: {
        uint64_t b = etl_ld64(p);
        memcpy(&v->v.d, &b, 8);
        return;
    }
    case ETL_IN_BOOLEAN:
        v->v.b = etl_ld32(p) != 0;
        return;
    case ETL_IN_GUID:
        etl_read_guid(p, &v->v.guid);
        return;
    case ETL_IN_FILETIME: {
        int64_t ft = (int64_t)etl_ld64(p);
        if (ft >= 0 && ft <= 2650467743999999999LL) /* up to the end of year 9999 */
            v->v.filetime = ft;
        else
            set_uint(v, (uint64_t)ft, 64); /* not a date Windows can show: keep the number */
        return;
    }
    case ETL_IN_SYSTEMTIME: {
        int64_t ft;
        if (etl_systemtime_to_filetime(p, &ft) && ft <= 2650467743999999999LL) {
            v->v.filetime = ft;
        } else {
            v->kind = ETL_VALUE_BYTES; /* impossible fields: the raw 16 bytes */
            v->bytes_len = 16;
        }
        return;
    }
    case ETL_IN_SID: {
        char sid[ETL_SID_STR_SIZE];
        size_t used = etl_format_sid(p, n, sid);
        if (!used) {
            v->kind = ETL_VALUE_BYTES;
            return;
        }
        size_t len = strlen(sid);
        if (len + 1 > cap) {
            len = cap ? cap - 1 : 0;
            v->truncated = true;
        }
        if (cap) {
            memcpy(buf, sid, len);
            buf[len] = '\0';
        }
        v->str = buf;
        v->str_len = len;
        return;
    }
    default:
        return; /* bytes (binary, unknown in-types): as the nominal rule says */
    }
}

void etl_value_decode_raw(unsigned in, unsigned out, const uint8_t *p, size_t n, uint8_t pointer_size,
                          etl_value *v, char *buf, size_t cap)
{
    etl_step_nominal nm = etl_value_type_nominal(in, out, pointer_size);
    decode_nominal(&nm, p, n, v, buf, cap);
}

/* The step's nominal type when it applies to this item: computed, and for a pointer worked out
 * for the item's own pointer size. */
static inline const etl_step_nominal *item_step_nominal(const etl_item *it)
{
    const etl_step_nominal *nm = it->nominal;
    if (!nm || !nm->pointer_size)
        return NULL;
    if (nm->in_type == ETL_IN_POINTER && nm->pointer_size != (it->pointer_size == 4 ? 4 : 8))
        return NULL;
    return nm;
}

void etl_item_nominal(const etl_item *it, etl_value *v)
{
    if (it->char_array) { /* the string etl_value_decode makes of it */
        memset(v, 0, sizeof *v);
        v->kind = ETL_VALUE_STRING;
        v->format = ETL_OUT_STRING;
        return;
    }
    size_t n = it->size == UINT32_MAX ? ETL_VALUE_SIZE_ANY : it->size;
    const etl_step_nominal *nm = item_step_nominal(it);
    if (nm)
        apply_nominal(nm, n, v);
    else
        etl_value_nominal(it->in_type, it->custom ? ETL_OUT_NULL : it->out_type, it->pointer_size, n, v);
}

void etl_value_decode(const etl_item *it, etl_value *v, char *buf, size_t cap)
{
    if (it->char_array) {
        memset(v, 0, sizeof *v);
        v->kind = ETL_VALUE_STRING;
        v->format = ETL_OUT_STRING;
        v->str = buf;
        v->str_len = etl_value_char_array(it, buf, cap, &v->truncated);
        return;
    }
    const etl_step_nominal *nm = item_step_nominal(it);
    if (nm)
        decode_nominal(nm, it->data, it->size, v, buf, cap);
    else
        etl_value_decode_raw(it->in_type, it->custom ? ETL_OUT_NULL : it->out_type, it->data, it->size,
                             it->pointer_size, v, buf, cap);
}

void etl_scalar_value(const etl_fields *f, const etl_scalar *sc, etl_value *v)
{
    const etl_schema_step *st = &f->schema->steps[sc->step];
    decode_nominal(&st->nominal, f->data + sc->offset, st->size, v, NULL, 0);
}

/* ---- text ------------------------------------------------------------------------------- */

/* Bounded append: everything that renders goes through here so the NUL always fits. */
typedef struct sbuf {
    char *p;
    size_t cap, len;
    bool cut;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (!b->cap || !n)
        return;
    if (b->len + n + 1 > b->cap) {
        n = b->cap - 1 - b->len;
        /* cut at a character boundary */
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        b->cut = true;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

/* Two decimal digits per division, and two hex digits per byte: numbers are most of the text
 * of kernel events. */
#define dec_pairs etl_dec_pairs
#define hex_pairs_upper etl_hex_pairs_upper

/* x's decimal digits, written backwards so that they end at `end`; returns where they start
 * (at most 20 bytes before `end`). */
static inline char *dec_digits(char *end, uint64_t x)
{
    char *p = end;
    while (x >= 100) {
        p -= 2;
        memcpy(p, dec_pairs + 2 * (x % 100), 2);
        x /= 100;
    }
    if (x >= 10) {
        p -= 2;
        memcpy(p, dec_pairs + 2 * x, 2);
    } else {
        *--p = (char)('0' + x);
    }
    return p;
}

/* The same for a signed number (at most 20 bytes: a minus and 19 digits). */
static inline char *i64_digits(char *end, int64_t x)
{
    if (x >= 0)
        return dec_digits(end, (uint64_t)x);
    char *p = dec_digits(end, (uint64_t)0 - (uint64_t)x);
    *--p = '-';
    return p;
}

/* "0x" + upper-case hex, `digits` wide (0 = no padding), ending at `end` (at most 18 bytes
 * before it when digits <= 16). */
static inline char *hex_digits(char *end, uint64_t x, int digits)
{
    char *p = end;
    do {
        p -= 2;
        memcpy(p, hex_pairs_upper + 2 * (x & 0xFF), 2);
        x >>= 8;
    } while (x);
    /* whole bytes give an even count: drop a leading zero the width does not ask for */
    if (p[0] == '0' && end - p > 1 && end - p > digits)
        p++;
    while (end - p < digits)
        *--p = '0';
    *--p = 'x';
    *--p = '0';
    return p;
}

static void sb_u64(sbuf *b, uint64_t x)
{
    char t[24];
    const char *s = dec_digits(t + sizeof t, x);
    sb_put(b, s, (size_t)(t + sizeof t - s));
}

static void sb_i64(sbuf *b, int64_t x)
{
    char t[24];
    const char *s = i64_digits(t + sizeof t, x);
    sb_put(b, s, (size_t)(t + sizeof t - s));
}

static void sb_hex(sbuf *b, uint64_t x, int digits)
{
    char t[24];
    const char *s = hex_digits(t + sizeof t, x, digits);
    sb_put(b, s, (size_t)(t + sizeof t - s));
}

/* A number in one of the plain styles (decimal unsigned, decimal signed, "0x" hex) into out,
 * which has ETL_SCALAR_TEXT_MAX bytes: what sb_u64/sb_i64/sb_hex put, the same digit writers
 * ending where the counted length says - no bounded builder, no copy: the message inserts and
 * etl_value_format's integers are mostly these. */
static inline size_t plain_int_text(uint64_t x, etl_scalar_style style, char *out)
{
    char *e;
    if (style == ETL_SCALAR_HEX) {
        unsigned bits = 64u - (unsigned)__builtin_clzll(x | 1);
        e = out + 2 + (bits + 3) / 4; /* "0x", then the digits without a leading zero */
        hex_digits(e, x, 0);
    } else {
        char *o = out;
        if (style == ETL_SCALAR_INT && (int64_t)x < 0) {
            *o++ = '-';
            x = (uint64_t)0 - x;
        }
        unsigned n = 1; /* the digits: few for the counts and ids most decimal fields are */
        for (uint64_t p = 10; n < 20 && x >= p; p *= 10)
            n++;
        e = o + n;
        dec_digits(e, x);
    }
    *e = '\0';
    return (size_t)(e - out);
}

size_t etl_scalar_text(const etl_scalar *sc, char out[ETL_SCALAR_TEXT_MAX])
{
    return plain_int_text(sc->u, (etl_scalar_style)sc->style, out);
}

static void sb_bytes_hex(sbuf *b, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    char t[128];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        t[k++] = hex[p[i] >> 4];
        t[k++] = hex[p[i] & 15];
        if (k == sizeof t) {
            sb_put(b, t, k);
            k = 0;
        }
    }
    sb_put(b, t, k);
}

static void sb_double(sbuf *b, double d, int bits)
{
    char t[40];
    if (isnan(d)) {
        sb_str(b, "NaN");
        return;
    }
    if (isinf(d)) {
        sb_str(b, d < 0 ? "-Infinity" : "Infinity");
        return;
    }
    /* the shortest precision that reads back the same value */
    int max = bits == 32 ? 9 : 17;
    for (int prec = bits == 32 ? 6 : 15; prec <= max; prec++) {
        snprintf(t, sizeof t, "%.*g", prec, d);
        if (bits == 32 ? (float)strtod(t, NULL) == (float)d : strtod(t, NULL) == d)
            break;
    }
    sb_str(b, t);
}

static void sb_ipv4(sbuf *b, const uint8_t *p)
{
    for (int i = 0; i < 4; i++) {
        if (i)
            sb_put(b, ".", 1);
        sb_u64(b, p[i]);
    }
}

/* RFC 5952: lower-case hex without leading zeros, the longest run (first if tied) of two or
 * more zero groups as "::", and IPv4-mapped addresses in mixed notation. */
static void sb_ipv6(sbuf *b, const uint8_t *p)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    if (memcmp(p, mapped, 12) == 0) {
        sb_str(b, "::ffff:");
        sb_ipv4(b, p + 12);
        return;
    }
    uint16_t g[8];
    for (int i = 0; i < 8; i++)
        g[i] = (uint16_t)(p[2 * i] << 8 | p[2 * i + 1]);
    int best = -1, best_len = 0;
    for (int i = 0; i < 8;) {
        if (g[i]) {
            i++;
            continue;
        }
        int j = i;
        while (j < 8 && !g[j])
            j++;
        if (j - i > best_len && j - i >= 2) {
            best = i;
            best_len = j - i;
        }
        i = j;
    }
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 8; i++) {
        if (i == best) {
            sb_put(b, "::", 2);
            i += best_len - 1;
            continue;
        }
        if (i && i != best + best_len)
            sb_put(b, ":", 1);
        char t[4];
        int k = 0;
        bool lead = true;
        for (int s = 12; s >= 0; s -= 4) {
            int d = (g[i] >> s) & 15;
            if (d || !lead || s == 0) {
                t[k++] = hex[d];
                lead = false;
            }
        }
        sb_put(b, t, (size_t)k);
    }
}

/* SOCKADDR_STORAGE: u16 family (LE), then a big-endian port and the address. */
static bool sb_sockaddr(sbuf *b, const uint8_t *p, size_t n)
{
    uint16_t family = etl_ld16(p);
    if (family == 2 && n >= 8) { /* AF_INET */
        sb_ipv4(b, p + 4);
        sb_put(b, ":", 1);
        sb_u64(b, (uint16_t)(p[2] << 8 | p[3]));
        return true;
    }
    if (family == 23 && n >= 28) { /* AF_INET6 (Windows numbering) */
        sb_put(b, "[", 1);
        sb_ipv6(b, p + 8);
        uint32_t scope = etl_ld32(p + 24);
        if (scope) {
            sb_put(b, "%", 1);
            sb_u64(b, scope);
        }
        sb_put(b, "]:", 2);
        sb_u64(b, (uint16_t)(p[2] << 8 | p[3]));
        return true;
    }
    return false;
}

static void sb_code(sbuf *b, uint32_t code, uint16_t fmt)
{
    const char *name = NULL;
    if (fmt == ETL_OUT_WIN32ERROR) {
        sb_u64(b, code);
        name = etl_win32_error_name(code);
    } else {
        sb_hex(b, code, 8);
        if (fmt == ETL_OUT_NTSTATUS) {
            name = etl_ntstatus_name(code);
        } else {
            name = etl_hresult_name(code);
            if (!name && (code & 0xFFFF0000u) == 0x80070000u) { /* HRESULT_FROM_WIN32 */
                const char *w = etl_win32_error_name(code & 0xFFFF);
                if (w) {
                    sb_str(b, " (HRESULT_FROM_WIN32(");
                    sb_str(b, w);
                    sb_str(b, "))");
                    return;
                }
            }
        }
    }
    if (name) {
        sb_str(b, " (");
        sb_str(b, name);
        sb_str(b, ")");
    }
}

size_t etl_value_text(const etl_value *v, char *out, size_t cap)
{
    sbuf b = {out, cap, 0, false};
    if (cap)
        out[0] = '\0';
    switch (v->kind) {
    case ETL_VALUE_NONE:
        sb_bytes_hex(&b, v->bytes, v->bytes_len);
        break;
    case ETL_VALUE_INT:
        sb_i64(&b, v->v.i);
        break;
    case ETL_VALUE_UINT:
        switch (etl_value_int_style(v)) {
        case ETL_INT_HEX:
            sb_hex(&b, v->v.u, 0);
            break;
        case ETL_INT_CODE:
        case ETL_INT_CODE_HEX:
            sb_code(&b, (uint32_t)v->v.u, v->format);
            break;
        default:
            sb_u64(&b, v->v.u);
        }
        break;
    case ETL_VALUE_DOUBLE:
        sb_double(&b, v->v.d, v->bits);
        break;
    case ETL_VALUE_BOOL:
        sb_str(&b, v->v.b ? "true" : "false");
        break;
    case ETL_VALUE_STRING:
        sb_put(&b, v->str, v->str_len);
        break;
    case ETL_VALUE_GUID: {
        /* The one GUID form of every output (JSON, labels, etl.kv, messages): lower case
         * without braces, as etl_format_guid writes provider ids and Wireshark shows FT_GUID. */
        char g[ETL_GUID_STR_SIZE];
        etl_format_guid(&v->v.guid, g);
        sb_str(&b, g);
        break;
    }
    case ETL_VALUE_FILETIME: {
        char t[ETL_TIME_STR_SIZE];
        etl_format_filetime(v->v.filetime, t);
        sb_str(&b, t);
        break;
    }
    case ETL_VALUE_BYTES:
        if (v->format == ETL_OUT_IPV4 && v->bytes_len >= 4)
            sb_ipv4(&b, v->bytes);
        else if (v->format == ETL_OUT_IPV6 && v->bytes_len == 16)
            sb_ipv6(&b, v->bytes);
        else if (!(v->format == ETL_OUT_SOCKETADDRESS && v->bytes_len >= 2 && sb_sockaddr(&b, v->bytes, v->bytes_len)))
            sb_bytes_hex(&b, v->bytes, v->bytes_len);
        break;
    }
    return b.len;
}

/* Decode + text in one buffer.  Strings are converted straight into `text` (they need no second
 * pass: the converters cut where etl_value_text would, at the last whole character); other
 * values whose decoding writes text (a SID) use the stack when small. */
static size_t format_nominal(const etl_step_nominal *nm, const uint8_t *p, size_t n, char *text, size_t cap)
{
    char scratch[512];
    etl_value v;
    bool big = nm->kind == ETL_VALUE_STRING || ETL_VALUE_TEXT_CAP(n) > sizeof scratch;
    decode_nominal(nm, p, n, &v, big ? text : scratch, big ? cap : sizeof scratch);
    if (v.kind == ETL_VALUE_STRING && v.str == text) {
        /* already in place */
        return v.str_len;
    }
    return etl_value_text(&v, text, cap);
}

size_t etl_value_format_raw(unsigned in, unsigned out, const uint8_t *p, size_t n, uint8_t pointer_size, char *text,
                            size_t cap)
{
    etl_step_nominal nm = etl_value_type_nominal(in, out, pointer_size);
    return format_nominal(&nm, p, n, text, cap);
}

size_t etl_value_format(const etl_item *it, char *out, size_t cap)
{
    if (it->char_array)
        return etl_value_char_array(it, out, cap, NULL);
    if (it->map) {
        char scratch[64];
        etl_value v;
        size_t n;
        etl_value_decode(it, &v, scratch, sizeof scratch);
        if (etl_value_map_text(it, &v, out, cap, &n))
            return n;
    }
    const etl_step_nominal *nm = item_step_nominal(it);
    if (nm) {
        /* an integer shown as a plain number (most values of manifest events): its text
         * straight from its bytes, as decode_nominal and etl_value_text would make it */
        if (nominal_is_int(nm, it->size) && cap >= ETL_SCALAR_TEXT_MAX) {
            etl_int_style style = nm->kind == ETL_VALUE_INT ? ETL_INT_DECIMAL : etl_format_int_style(nm->format);
            if (style == ETL_INT_DECIMAL || style == ETL_INT_HEX)
                return plain_int_text(etl_nominal_int(nm, it->data),
                                      nm->kind == ETL_VALUE_INT ? ETL_SCALAR_INT
                                      : style == ETL_INT_HEX    ? ETL_SCALAR_HEX
                                                                : ETL_SCALAR_UINT,
                                      out);
        }
        return format_nominal(nm, it->data, it->size, out, cap);
    }
    return etl_value_format_raw(it->in_type, it->custom ? ETL_OUT_NULL : it->out_type, it->data, it->size,
                                it->pointer_size, out, cap);
}

/* ---- value maps and bit maps -------------------------------------------------------------- */

/* The integer a mapped value stands for: its bits, unsigned, at the value's width. */
static bool map_key(const etl_value *v, uint64_t *key)
{
    if (v->kind == ETL_VALUE_UINT) {
        *key = v->v.u;
        return true;
    }
    if (v->kind == ETL_VALUE_INT) {
        uint64_t u = (uint64_t)v->v.i;
        if (v->bits && v->bits < 64)
            u &= (1ULL << v->bits) - 1;
        *key = u;
        return true;
    }
    if (v->kind == ETL_VALUE_BOOL) {
        *key = v->v.b;
        return true;
    }
    return false;
}

bool etl_map_text(const uint8_t *map, uint32_t map_len, const char *strings, uint64_t key, char *out, size_t cap,
                  size_t *len)
{
    sbuf b = {out, cap, 0, false};
    if (cap)
        out[0] = '\0';
    *len = 0;
    if (!map || map_len < ETL_MAP_HEADER_SIZE)
        return false;
    uint32_t flags = etl_ld32(map), n = etl_ld32(map + 4);
    if (n > (map_len - ETL_MAP_HEADER_SIZE) / ETL_MAP_ENTRY_SIZE)
        n = (map_len - ETL_MAP_HEADER_SIZE) / ETL_MAP_ENTRY_SIZE;
    const uint8_t *e = map + ETL_MAP_HEADER_SIZE;
    if (!(flags & ETL_MAP_BITMAP)) {
        /* value map: entries sorted by value */
        uint32_t lo = 0, hi = n;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            uint64_t v = etl_ld64(e + (size_t)mid * ETL_MAP_ENTRY_SIZE);
            if (v == key) {
                sb_str(&b, strings + etl_ld32(e + (size_t)mid * ETL_MAP_ENTRY_SIZE + 8));
                *len = b.len;
                return true;
            }
            if (v < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        return false;
    }
    /* bit map: the names of the entries whose bits are all set, in the map's (value) order,
     * then the bits no entry names in hex; an entry of value 0 names only the value 0 */
    uint64_t left = key;
    bool any = false;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = etl_ld64(e + (size_t)i * ETL_MAP_ENTRY_SIZE);
        bool hit = v ? (key & v) == v : key == 0;
        if (!hit)
            continue;
        if (any)
            sb_str(&b, ETL_BITMAP_SEPARATOR);
        sb_str(&b, strings + etl_ld32(e + (size_t)i * ETL_MAP_ENTRY_SIZE + 8));
        any = true;
        left &= ~v;
    }
    if (!any)
        return false; /* no bit has a name: the number, as TDH shows it */
    if (left) {
        sb_str(&b, ETL_BITMAP_SEPARATOR);
        sb_hex(&b, left, 0);
    }
    *len = b.len;
    return true;
}

bool etl_value_map_text(const etl_item *it, const etl_value *v, char *out, size_t cap, size_t *len)
{
    uint64_t key;
    *len = 0;
    if (!it->map || !map_key(v, &key))
        return false;
    return etl_map_text(it->map, it->map_len, it->map_strings, key, out, cap, len);
}

/* ---- character arrays ------------------------------------------------------------------- */

bool etl_value_is_char_array(const etl_item *a)
{
    /* asked of every array the enumerator starts: the cheap tests first */
    if (a->kind != ETL_ITEM_ARRAY_BEGIN || !a->elem_size || (a->array_count && !a->data))
        return false;
    if (a->in_type != ETL_IN_INT8 && a->in_type != ETL_IN_UINT8 && a->in_type != ETL_IN_UINT16)
        return false;
    return etl_value_effective_format(a->in_type, a->out_type) == ETL_OUT_STRING;
}

size_t etl_value_char_array(const etl_item *a, char *out, size_t cap, bool *truncated)
{
    size_t o = 0;
    bool cut = false;
    if (!cap)
        return 0;
    if (a->in_type == ETL_IN_UINT16) {
        etl_value v;
        memset(&v, 0, sizeof v);
        utf16_value(a->data, a->size, &v, out, cap);
        o = v.str_len;
        cut = v.truncated;
    } else {
        const uint8_t *nul = a->size ? memchr(a->data, 0, a->size) : NULL;
        size_t n = nul ? (size_t)(nul - a->data) : a->size;
        if (valid_utf8(a->data, n)) {
            if (n + 1 > cap) {
                n = cap - 1;
                while (n > 0 && (a->data[n] & 0xC0) == 0x80)
                    n--;
                cut = true;
            }
            memcpy(out, a->data, n);
            o = n;
        } else {
            for (size_t i = 0; i < n; i++) {
                size_t k = put_cp(cp1252(a->data[i]), out, o, cap);
                if (!k) {
                    cut = true;
                    break;
                }
                o += k;
            }
        }
        out[o] = '\0';
    }
    if (truncated)
        *truncated = cut;
    return o;
}
