/* SPDX-License-Identifier: MIT */
/* bench/math/bench_baseline.c: the anchors of the elementary
   benchmark, glibc's libm and LLVM libc's correctly rounded functions, in
   loops of real calls.

   Compiled with -fno-builtin-F for every F of the table so that each glibc
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

/* glibc has no rsqrtf: its anchor is what a caller writes without repdl,
   1.0f / sqrtf(x) with libm's sqrtf (a call, -fno-builtin-sqrtf), two
   roundings. */
static BENCH_NOINLINE float bench_one_over_sqrtf(float x) { return 1.0f / sqrtf(x); }

#define GLIBC_LOOPS_(F, N, G) BENCH_LOOPS(glibc_##F, G)
BENCH_FUNCS(GLIBC_LOOPS_)

/* LLVM libc: the functions llvmlibc.sh found, REPDL_BENCH_LLVM_LIST(X) =
   X(expf) X(logf) ... (llvmlibc_cr.h); the others keep NULL entries. */
#if defined(REPDL_BENCH_LLVM_LIST)
#define LLVM_LOOPS_(F) BENCH_LOOPS(llvm_##F, repdl_bench_llvm_##F)
REPDL_BENCH_LLVM_LIST(LLVM_LOOPS_)
#endif

/* Field order: name, glibc_name (rsqrtf's set by bench_baselines_init),
   glibc, llvm (set by bench_baselines_init),
   glibc_thr, llvm_thr, glibc_lat, llvm_lat */
#define ENTRY_(F, N, G) \
    { #F, #F, G, NULL, glibc_##F##_thr, NULL, glibc_##F##_lat, NULL },
struct bench_baseline bench_baselines[BENCH_NFUNC] = { BENCH_FUNCS(ENTRY_) };

void bench_baselines_init(void)
{
    bench_baselines[BENCH_rsqrtf].glibc_name = "1/sqrtf";
#if defined(REPDL_BENCH_LLVM_LIST)
#define LLVM_SET_(F)                                                          \
    bench_baselines[BENCH_##F].llvm = repdl_bench_llvm_##F;                   \
    bench_baselines[BENCH_##F].llvm_thr = llvm_##F##_thr;                     \
    bench_baselines[BENCH_##F].llvm_lat = llvm_##F##_lat;
    REPDL_BENCH_LLVM_LIST(LLVM_SET_)
#endif
}

const char *bench_object_of(const void *p)
{
    Dl_info info;
    if (p && dladdr(p, &info) && info.dli_fname) return info.dli_fname;
    return "?";
}
