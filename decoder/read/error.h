/* error.h - filling the library's one error type (etl_error in etl.h). */
#ifndef ETL_ERROR_INTERNAL_H
#define ETL_ERROR_INTERNAL_H

#include "etl.h"

#if defined(__GNUC__)
#define ETL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ETL_PRINTF(a, b)
#endif

/* Set *err (when err is not NULL) and return `code`, so callers can `return etl_fail(...)`. */
etl_status etl_fail(etl_error *err, etl_status code, uint64_t offset, const char *fmt, ...)
    ETL_PRINTF(4, 5);

#endif
