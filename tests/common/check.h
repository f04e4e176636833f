/* SPDX-License-Identifier: MIT */
/* tests/common/check.h: the one check harness of the tests: counted
   checks, failure reports and the summary line.

   Equality is bit equality (the integer views of bits.h, or memcmp): +0 and -0
   differ, a NaN equals only a NaN with the same sign and payload.  A test
   that accepts any NaN, or wants the canonical one, says so itself before
   comparing.

     CHECK(cond, fmt, ...)              cond holds
     CHECK_BITS(got, want, fmt, ...)    two floats, the same bits
     CHECK_SAME(got, want, n, fmt, ...) two float arrays of n elements, the
                                        same bits (the first difference is
                                        reported)
     if (check_failed(ok)) printf("FAIL ...\n");
                                        one check with a report of the
                                        test's own
     return check_summary("name");      prints "name: N checks, M failures"
                                        and gives the exit status (1 when a
                                        check failed)

   Every check is counted; each failure too, and the first
   CHECK_MAX_REPORTS failures print one line "FAIL file:line ..." on
   stdout (the message arguments are evaluated only then).  Plain C99,
   also valid C++. */
#ifndef REPDL_TESTS_COMMON_CHECK_H
#define REPDL_TESTS_COMMON_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bits.h"

#define CHECK_MAX_REPORTS 30

static long check_count, check_failures;

/* Counts one check of outcome ok; returns 1 when it failed and is to be
   reported (one of the first CHECK_MAX_REPORTS failures). */
static inline int check_failed(int ok)
{
    check_count++;
    if (ok) return 0;
    return check_failures++ < CHECK_MAX_REPORTS;
}

/* The first index at which a[0..n) and b[0..n) differ in bits, or -1. */
static inline long check_first_diff(const float *a, const float *b, size_t n)
{
    size_t i;
    if (n == 0 || memcmp(a, b, n * sizeof(float)) == 0) return -1;
    for (i = 0; i < n; i++)
        if (asuint(a[i]) != asuint(b[i])) return (long)i;
    return -1;
}

/* Prints "name: N checks, M failures"; returns the exit status. */
static inline int check_summary(const char *name)
{
    printf("%s: %ld checks, %ld failures\n", name, check_count, check_failures);
    return check_failures != 0;
}

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (check_failed((cond) ? 1 : 0)) {                                               \
            printf("FAIL %s:%d %s: ", __FILE__, __LINE__, #cond);                         \
            printf(__VA_ARGS__);                                                          \
            printf("\n");                                                                 \
        }                                                                                 \
    } while (0)

#define CHECK_BITS(got, want, ...)                                                        \
    do {                                                                                  \
        float check_g_ = (got), check_w_ = (want);                                        \
        if (check_failed(asuint(check_g_) == asuint(check_w_))) {                         \
            printf("FAIL %s:%d got %a (0x%08x) want %a (0x%08x): ", __FILE__, __LINE__,   \
                   (double)check_g_, (unsigned)asuint(check_g_), (double)check_w_,        \
                   (unsigned)asuint(check_w_));                                           \
            printf(__VA_ARGS__);                                                          \
            printf("\n");                                                                 \
        }                                                                                 \
    } while (0)

#define CHECK_SAME(got, want, n, ...)                                                     \
    do {                                                                                  \
        long check_d_ = check_first_diff((got), (want), (n));                             \
        if (check_failed(check_d_ < 0)) {                                                 \
            printf("FAIL %s:%d at %ld: got 0x%08x want 0x%08x: ", __FILE__, __LINE__,     \
                   check_d_, (unsigned)asuint((got)[check_d_]),                           \
                   (unsigned)asuint((want)[check_d_]));                                   \
            printf(__VA_ARGS__);                                                          \
            printf("\n");                                                                 \
        }                                                                                 \
    } while (0)

#endif /* REPDL_TESTS_COMMON_CHECK_H */
