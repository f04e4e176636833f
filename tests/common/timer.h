/* SPDX-License-Identifier: MIT */
/* tests/common/timer.h: the one clock of the tests and benchmarks, in
   seconds as a double.

     timer_now(TIMER_WALL)  CLOCK_MONOTONIC: elapsed time
     timer_now(TIMER_CPU)   CLOCK_THREAD_CPUTIME_ID: this thread's CPU time,
                            which leaves out the time the thread spends
                            descheduled (the main noise on a shared machine)
     timer_median(t, n)     the median of n timings (sorts t in place)
     timer_cmp              qsort's comparator of doubles, ascending

   clock_gettime needs POSIX: define _POSIX_C_SOURCE (199309L or later)
   before the first #include of the program (under -std=c99 glibc declares
   it only then).  Where the clock is missing (not POSIX, or no per-thread
   CPU clock) it falls back to clock(), the process's CPU time. */
#ifndef REPDL_TESTS_COMMON_TIMER_H
#define REPDL_TESTS_COMMON_TIMER_H

#include <stdlib.h>
#include <time.h>

enum timer_clock { TIMER_WALL, TIMER_CPU };

static inline double timer_now(enum timer_clock which)
{
#if defined(CLOCK_MONOTONIC)
    struct timespec t;
#if defined(CLOCK_THREAD_CPUTIME_ID)
    clock_gettime(which == TIMER_CPU ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &t);
#else
    (void)which;
    clock_gettime(CLOCK_MONOTONIC, &t);
#endif
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
#else
    (void)which;
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

static inline int timer_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of t[0..n), n >= 1: the middle one, or the mean of the two
   middle ones; t is sorted in place. */
static inline double timer_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, timer_cmp);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

#endif /* REPDL_TESTS_COMMON_TIMER_H */
