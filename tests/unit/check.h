/* check.h - the unit tests' assertions: each CHECK counts, a failure prints where and why,
 * and CHECK_MAIN_END prints "N passed, N failed" and sets the exit status. */
#ifndef ETL_CHECK_H
#define ETL_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            check_passed++;                                                          \
        } else {                                                                     \
            check_failed++;                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                            \
    do {                                                                                            \
        unsigned long long check_a = (unsigned long long)(a), check_b = (unsigned long long)(b);    \
        if (check_a == check_b) {                                                                   \
            check_passed++;                                                                         \
        } else {                                                                                    \
            check_failed++;                                                                         \
            fprintf(stderr, "%s:%d: %s == %s failed: %llu != %llu\n", __FILE__, __LINE__, #a, #b, \
                    check_a, check_b);                                                              \
        }                                                                                           \
    } while (0)

#define CHECK_STR(a, b)                                                                                 \
    do {                                                                                                \
        const char *check_a = (a), *check_b = (b);                                                      \
        if (strcmp(check_a, check_b) == 0) {                                                            \
            check_passed++;                                                                             \
        } else {                                                                                        \
            check_failed++;                                                                             \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a, #b, \
                    check_a, check_b);                                                                  \
        }                                                                                               \
    } while (0)

#define CHECK_MAIN_END()                                            \
    do {                                                            \
        printf("%d passed, %d failed\n", check_passed, check_failed); \
        return check_failed ? 1 : 0;                                \
    } while (0)

#endif
