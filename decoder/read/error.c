/* error.c - status names and the error setter. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

const char *etl_status_name(etl_status s)
{
    switch (s) {
    case ETL_OK: return "ok";
    case ETL_END: return "end";
    case ETL_ERR_ARG: return "bad argument";
    case ETL_ERR_IO: return "I/O error";
    case ETL_ERR_NOT_ETL: return "not an ETL file";
    case ETL_ERR_TRUNCATED: return "truncated";
    case ETL_ERR_CORRUPT: return "corrupt";
    case ETL_ERR_LIMIT: return "limit exceeded";
    case ETL_ERR_NOMEM: return "out of memory";
    case ETL_ERR_DECOMPRESS: return "decompression failed";
    case ETL_ERR_NOT_FOUND: return "not found";
    }
    return "unknown status";
}

etl_status etl_fail(etl_error *err, etl_status code, uint64_t offset, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        err->offset = offset;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}
