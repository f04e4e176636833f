/* SPDX-License-Identifier: MIT */
/* bench/math/bench_baseline.c: the anchors of the elementary
   benchmark, glibc's libm and LLVM libc's correctly rounded functions, in
   loops of real calls.

   Compiled with -fno-builtin-{expf,logf,tanhf,sqrtf} so that each glibc
   call is a call into libm (gcc would otherwise open-code sqrtf as sqrtss
   plus an errno branch).  glibc picks its implementation at run time
   (ifunc): on x86-64 CPUs with FMA and AVX2 that is its FMA variant,
   whatever flags this file is built with.

   LLVM libc comes from a private copy of the Debian archive's members in
   which the plain symbols `expf`, ... were made local (llvmlibc.sh), so
   they cannot shadow glibc's; we call them by their C++-namespaced symbols
   through asm labels declared in the generated llvmlibc_cr.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include "bench_elementary.h"

#if defined(REPDL_BENCH_HAVE_LLVM)
#include "llvmlibc_cr.h"
const char *bench_llvm_origin = REPDL_BENCH_LLVM_ARCHIVE;
#else
const char *bench_llvm_origin = NULL;
#endif

#define BENCH_LOOPS(NAME, CALL)                                               \
    static BENCH_NOINLINE void NAME##_thr(float *out, const float *in, size_t n) \
    {                                                                         \
        for (size_t i = 0; i < n; i++) out[i] = CALL(in[i]);                  \
    }                                                                         \
    static BENCH_NOINLINE float NAME##_lat(const float *in, size_t n, float zero) \
    {                                                                         \
        float y = 0.0f;                                                       \
        for (size_t i = 0; i < n; i++) BENCH_CHAIN(CALL);                     \
        return y;                                                             \
    }

BENCH_LOOPS(glibc_expf, expf)
BENCH_LOOPS(glibc_logf, logf)
BENCH_LOOPS(glibc_tanhf, tanhf)
BENCH_LOOPS(glibc_sqrtf, sqrtf)

#if defined(REPDL_BENCH_LLVM_EXPF)
BENCH_LOOPS(llvm_expf, repdl_bench_llvm_expf)
#define LLVM_EXPF repdl_bench_llvm_expf, llvm_expf_thr, llvm_expf_lat
#else
#define LLVM_EXPF NULL, NULL, NULL
#endif
#if defined(REPDL_BENCH_LLVM_LOGF)
BENCH_LOOPS(llvm_logf, repdl_bench_llvm_logf)
#define LLVM_LOGF repdl_bench_llvm_logf, llvm_logf_thr, llvm_logf_lat
#else
#define LLVM_LOGF NULL, NULL, NULL
#endif
#if defined(REPDL_BENCH_LLVM_TANHF)
BENCH_LOOPS(llvm_tanhf, repdl_bench_llvm_tanhf)
#define LLVM_TANHF repdl_bench_llvm_tanhf, llvm_tanhf_thr, llvm_tanhf_lat
#else
#define LLVM_TANHF NULL, NULL, NULL
#endif
#if defined(REPDL_BENCH_LLVM_SQRTF)
BENCH_LOOPS(llvm_sqrtf, repdl_bench_llvm_sqrtf)
#define LLVM_SQRTF repdl_bench_llvm_sqrtf, llvm_sqrtf_thr, llvm_sqrtf_lat
#else
#define LLVM_SQRTF NULL, NULL, NULL
#endif

/* Field order: name, glibc, llvm, glibc_thr, llvm_thr, glibc_lat, llvm_lat */
#define ENTRY(F, LL) ENTRY_(F, LL)
#define ENTRY_(F, L_FN, L_THR, L_LAT) \
    { #F, F, L_FN, glibc_##F##_thr, L_THR, glibc_##F##_lat, L_LAT }
const struct bench_baseline bench_baselines[BENCH_NFUNC] = {
    ENTRY(expf, LLVM_EXPF),
    ENTRY(logf, LLVM_LOGF),
    ENTRY(tanhf, LLVM_TANHF),
    ENTRY(sqrtf, LLVM_SQRTF),
};

const char *bench_object_of(const void *p)
{
    Dl_info info;
    if (p && dladdr(p, &info) && info.dli_fname) return info.dli_fname;
    return "?";
}
