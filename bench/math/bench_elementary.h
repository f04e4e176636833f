/* SPDX-License-Identifier: MIT */
/* bench/math/bench_elementary.h: declarations shared by the two
   translation units of the elementary-function benchmark.

   bench_elementary.c  repdl (the TU whose flags vary: -O2, -O3 -march=native)
   bench_baseline.c    glibc's libm and LLVM libc, called as functions

   Every measured loop is a separate, non-inlinable, non-IPA-analysable
   function, so the compiler can neither drop the work nor specialise a loop
   on its arguments (the runtime zero of the latency chains in particular). */
#ifndef REPDL_BENCH_ELEMENTARY_H
#define REPDL_BENCH_ELEMENTARY_H

#include <stddef.h>

#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_NOINLINE __attribute__((noinline, noipa))
#else
#define BENCH_NOINLINE __attribute__((noinline))
#endif

/* Makes v opaque to the optimizer at no cost (an empty asm that claims to
   change the register).  The latency chain computes t = zero * y, passes t
   through this, then adds it: a separate multiply and add in every build,
   which -ffp-contract=fast can no longer fuse into one FMA, so the chain
   costs the same in the repdl and the anchor translation units whatever
   their flags. */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define BENCH_OPAQUE(v) __asm__("" : "+x"(v))
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
#define BENCH_OPAQUE(v) __asm__("" : "+w"(v))
#else
#define BENCH_OPAQUE(v) ((void)0)
#endif

/* Throughput: out[i] = F(in[i]), i < n.  Independent calls; the results are
   stored, and main reads them back into a checksum. */
typedef void (*bench_thr_fn)(float *out, const float *in, size_t n);
/* Latency: y = F(in[i] + zero * y), i < n (CORE-MATH's chain): each call
   waits for the previous result.  zero is 0.0f at run time; the compiler
   cannot fold zero * y (it does not know zero, and 0 * y is not 0 for
   y = inf or NaN), so the dependency is real.  Returns the last y.
   BENCH_CHAIN(F) is the loop body. */
#define BENCH_CHAIN(F)                                                        \
    do {                                                                      \
        float t_ = zero * y;                                                  \
        BENCH_OPAQUE(t_);                                                     \
        y = F(in[i] + t_);                                                    \
    } while (0)
typedef float (*bench_lat_fn)(const float *in, size_t n, float zero);

/* The functions, in table order: X(name, repdl stem, glibc anchor).  name is
   the C name (glibc's and LLVM libc's: expf, ...); repdl's function is
   repdl_<stem>_f32; the anchor is glibc's function of that name, except for
   rsqrtf, which glibc does not have: its anchor is 1.0f / sqrtf(x) with
   libm's sqrtf (bench_baseline.c), what a caller writes without repdl (two
   roundings, so not correctly rounded). */
#define BENCH_FUNCS(X)                                                        \
    X(expf, exp, expf) X(logf, log, logf) X(tanhf, tanh, tanhf)               \
    X(sqrtf, sqrt, sqrtf) X(exp2f, exp2, exp2f) X(log2f, log2, log2f)         \
    X(expm1f, expm1, expm1f) X(log1pf, log1p, log1pf)                         \
    X(rsqrtf, rsqrt, bench_one_over_sqrtf) X(sinf, sin, sinf) X(cosf, cos, cosf) \
    X(erff, erf, erff)
#define BENCH_ENUM_(F, N, G) BENCH_##F,
enum { BENCH_FUNCS(BENCH_ENUM_) BENCH_NFUNC };
#undef BENCH_ENUM_

/* From bench_baseline.c.  llvm_* entries are NULL when the LLVM libc
   archive was not found at configure time (or lacks that function). */
struct bench_baseline {
    const char *name;          /* "expf", ... */
    const char *glibc_name;    /* what the glibc row calls: "expf", ..., "1/sqrtf" */
    float (*glibc)(float);     /* libm's function, address as the program sees it */
    float (*llvm)(float);      /* LLVM libc's, or NULL */
    bench_thr_fn glibc_thr, llvm_thr;
    bench_lat_fn glibc_lat, llvm_lat;
};
extern struct bench_baseline bench_baselines[BENCH_NFUNC];
/* Fills in LLVM libc's entries (bench_baselines' llvm fields); call once
   before using the table. */
void bench_baselines_init(void);
/* A line describing where LLVM libc came from, or why it is absent. */
extern const char *bench_llvm_origin;
/* The shared object or executable that holds the code at address p
   (dladdr), or "?" */
const char *bench_object_of(const void *p);

#endif
