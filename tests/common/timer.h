/* SPDX-License-Identifier: MIT */
/* tests/common/timer.h: the one clock of the tests and benchmarks, in
   seconds as a double.

     timer_now(TIMER_WALL)  CLOCK_MONOTONIC: elapsed time
     timer_now(TIMER_CPU)   CLOCK_THREAD_CPUTIME_ID: this thread's CPU time,
                            which leaves out the time the thread spends
                            descheduled (the main noise on a shared machine)

   clock_gettime needs POSIX: define _POSIX_C_SOURCE (199309L or later)
   before the first #include of the program (under -std=c99 glibc declares
   it only then).  Where the clock is missing (not POSIX, or no per-thread
   CPU clock) it falls back to clock(), the process's CPU time. */
#ifndef REPDL_TESTS_COMMON_TIMER_H
#define REPDL_TESTS_COMMON_TIMER_H

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

#endif /* REPDL_TESTS_COMMON_TIMER_H */
