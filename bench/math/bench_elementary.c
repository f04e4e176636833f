/* SPDX-License-Identifier: MIT */
/* bench/math/bench_elementary.c: repdl's correctly rounded binary32
   functions (exp, log, tanh, sqrt, exp2, log2, expm1, log1p, rsqrt, sin,
   cos, erf: the table BENCH_FUNCS of bench_elementary.h) against glibc's
   libm and LLVM libc's correctly rounded versions, side by side in one run.

   For each function, on an array of N inputs (default 4096, L1/L2-resident)
   drawn from a fixed realistic distribution:
     throughput  out[i] = F(in[i]), ns per call;
     latency     y = F(in[i] + zero*y), ns per call (each call waits for the
                 previous result);
   for these implementations:
     glibc               libm's F, a real call (anchor: ratio 1.00)
     repdl (call)        repdl_F through a noinline wrapper: the function as
                         a call, like the anchors
     llvm libc (call)    LLVM libc's correctly rounded F
     repdl (inlined)     the loop with repdl_F inlined: what a caller
                         compiling repdl into its loop gets (the compiler may
                         vectorize it)
     repdl_F_array       the array form.
   Each timing runs the loop until about --calls calls (default 2^20) have
   been made; the implementations are interleaved inside each repetition, and
   the median over --reps repetitions (default 11) is reported.

   Times are this thread's CPU time (--wall: wall-clock time).

   Usage: bench_elementary [--reps R] [--n N] [--calls C] [--quick] [--wall]
          bench_elementary --flags   (prints the flags of this build)
          bench_elementary --callgrind FUNC IMPL [CALLS]
            (one loop of CALLS (default 10^6) calls, for callgrind.sh:
             FUNC expf|logf|...|erff, IMPL glibc|repdl|llvm|inline|array|empty)

   This file is the repdl translation unit; bench/math/meson.build
   builds it five ways (-O2; -O3 -march=x86-64-v3; -O3 -march=native; each of
   the last two with -ffp-contract=fast -fno-math-errno), BENCH_FLAGS naming
   the build.  docs/bench-math.md has the figures. */
#define _GNU_SOURCE
#include <gnu/libc-version.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/cos.h>
#include <repdl/erf.h>
#include <repdl/exp.h>
#include <repdl/exp2.h>
#include <repdl/expm1.h>
#include <repdl/log.h>
#include <repdl/log1p.h>
#include <repdl/log2.h>
#include <repdl/rsqrt.h>
#include <repdl/sin.h>
#include <repdl/sqrt.h>
#include <repdl/tanh.h>

#include "../../tests/common/splitmix64.h"
#include "../../tests/common/timer.h"
#include "bench_elementary.h"

#ifndef BENCH_FLAGS
#define BENCH_FLAGS "?"
#endif

/* ---- repdl, as a call and inlined ---- */

#define REPDL_WRAP(F, N)                                                     \
    static BENCH_NOINLINE float call_repdl_##F(float x) { return repdl_##N##_f32(x); } \
    static BENCH_NOINLINE void repdl_##F##_call_thr(float *out, const float *in, size_t n) \
    {                                                                        \
        for (size_t i = 0; i < n; i++) out[i] = call_repdl_##F(in[i]);       \
    }                                                                        \
    static BENCH_NOINLINE float repdl_##F##_call_lat(const float *in, size_t n, float zero) \
    {                                                                        \
        float y = 0.0f;                                                      \
        for (size_t i = 0; i < n; i++) BENCH_CHAIN(call_repdl_##F);          \
        return y;                                                            \
    }                                                                        \
    static BENCH_NOINLINE void repdl_##F##_inl_thr(float *out, const float *in, size_t n) \
    {                                                                        \
        for (size_t i = 0; i < n; i++) out[i] = repdl_##N##_f32(in[i]);            \
    }                                                                        \
    static BENCH_NOINLINE float repdl_##F##_inl_lat(const float *in, size_t n, float zero) \
    {                                                                        \
        float y = 0.0f;                                                      \
        for (size_t i = 0; i < n; i++) BENCH_CHAIN(repdl_##N##_f32);               \
        return y;                                                            \
    }                                                                        \
    static BENCH_NOINLINE void repdl_##F##_arr_thr(float *out, const float *in, size_t n) \
    {                                                                        \
        repdl_##N##_array_f32(n, in, out);                                       \
    }

#define WRAP_(F, N, G) REPDL_WRAP(F, N)
BENCH_FUNCS(WRAP_)

/* An empty call, for the loop-overhead line of callgrind.sh. */
static BENCH_NOINLINE float call_empty(float x) { return x; }
static BENCH_NOINLINE void empty_thr(float *out, const float *in, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = call_empty(in[i]);
}
static BENCH_NOINLINE float empty_lat(const float *in, size_t n, float zero)
{
    float y = 0.0f;
    for (size_t i = 0; i < n; i++) BENCH_CHAIN(call_empty);
    return y;
}

struct repdl_impls {
    float (*call)(float);
    bench_thr_fn call_thr, inl_thr, arr_thr;
    bench_lat_fn call_lat, inl_lat;
};
#define IMPLS(F) { call_repdl_##F, repdl_##F##_call_thr, repdl_##F##_inl_thr, \
                   repdl_##F##_arr_thr, repdl_##F##_call_lat, repdl_##F##_inl_lat }
#define IMPLS_(F, N, G) IMPLS(F),
static const struct repdl_impls repdl_impls[BENCH_NFUNC] = { BENCH_FUNCS(IMPLS_) };

/* ---- inputs ---- */

static splitmix64 rng; /* tests/common/splitmix64.h */

/* uniform in [0, 1) */
static double uniform(void) { return (double)(splitmix64_next(&rng) >> 11) * 0x1p-53; }

static const char *const input_desc[BENCH_NFUNC] = {
    [BENCH_expf] = "3/4 uniform on [-87, 88], 1/4 uniform on [-1, 1]",
    [BENCH_logf] = "log-uniform on [2^-20, 2^20] (about 1e-6 to 1e6)",
    [BENCH_tanhf] = "uniform on [-10, 10]",
    [BENCH_sqrtf] = "uniform on [0, 1e6]",
    [BENCH_exp2f] = "3/4 uniform on [-125, 127], 1/4 uniform on [-1, 1]",
    [BENCH_log2f] = "log-uniform on [2^-20, 2^20]",
    [BENCH_expm1f] = "1/2 uniform on [-1, 1], 1/2 uniform on [-20, 20]",
    [BENCH_log1pf] = "1/2 uniform on [-0.5, 1], 1/2 log-uniform on [2^-20, 2^20]",
    [BENCH_rsqrtf] = "log-uniform on [2^-20, 2^20] (mean squares + eps of RMS norm)",
    [BENCH_sinf] = "1/2 uniform on [-pi, pi], 1/2 uniform on [0, 4096] (rotary angles)",
    [BENCH_cosf] = "1/2 uniform on [-pi, pi], 1/2 uniform on [0, 4096] (rotary angles)",
    [BENCH_erff] = "uniform on [-5, 5]",
};
static void fill_inputs(int f, float *in, size_t n)
{
    splitmix64_seed(&rng, 0x5eed2024u + (uint64_t)f);
    for (size_t i = 0; i < n; i++) {
        double u = uniform();
        /* the first four as in the first version of this benchmark (the
           same inputs); the others draw their choice of range after u */
        switch (f) {
        case BENCH_expf:
            in[i] = (splitmix64_next(&rng) & 3) ? (float)(-87.0 + 175.0 * u) : (float)(-1.0 + 2.0 * u);
            break;
        case BENCH_logf: case BENCH_log2f: case BENCH_rsqrtf:
            in[i] = (float)exp2(-20.0 + 40.0 * u); break;
        case BENCH_tanhf: in[i] = (float)(-10.0 + 20.0 * u); break;
        case BENCH_sqrtf: in[i] = (float)(1e6 * u); break;
        case BENCH_exp2f:
            in[i] = (splitmix64_next(&rng) & 3) ? (float)(-125.0 + 252.0 * u) : (float)(-1.0 + 2.0 * u);
            break;
        case BENCH_expm1f:
            in[i] = (splitmix64_next(&rng) & 1) ? (float)(-1.0 + 2.0 * u) : (float)(-20.0 + 40.0 * u);
            break;
        case BENCH_log1pf:
            in[i] = (splitmix64_next(&rng) & 1) ? (float)(-0.5 + 1.5 * u) : (float)exp2(-20.0 + 40.0 * u);
            break;
        case BENCH_sinf: case BENCH_cosf:
            in[i] = (splitmix64_next(&rng) & 1) ? (float)(-3.141592653589793 + 6.283185307179586 * u)
                                                : (float)(4096.0 * u);
            break;
        default: in[i] = (float)(-5.0 + 10.0 * u); break; /* erff */
        }
    }
}

/* ---- timing ---- */

/* The clock: by default this thread's CPU time, which leaves out the time
   the thread spends descheduled, the main noise on a shared machine (it
   still counts cache and TLB misses caused by other processes); --wall
   selects CLOCK_MONOTONIC (tests/common/timer.h). */
static enum timer_clock bench_clock = TIMER_CPU;

static float sink; /* results read back, so no loop is dead */

static double time_thr(bench_thr_fn fn, float *out, const float *in, size_t n, size_t loops)
{
    double t0 = timer_now(bench_clock);
    for (size_t r = 0; r < loops; r++) fn(out, in, n);
    double t1 = timer_now(bench_clock);
    sink += out[n / 2];
    return (t1 - t0) * 1e9 / ((double)n * (double)loops);
}
static double time_lat(bench_lat_fn fn, const float *in, size_t n, size_t loops, float zero)
{
    float y = 0.0f;
    double t0 = timer_now(bench_clock);
    for (size_t r = 0; r < loops; r++) y += fn(in, n, zero);
    double t1 = timer_now(bench_clock);
    sink += y;
    return (t1 - t0) * 1e9 / ((double)n * (double)loops);
}

/* ---- checks that the three implementations are three ---- */

static uint32_t bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static float from_bits(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
/* equal bit patterns, any two NaNs counting as equal */
static int same(float a, float b) { return (a != a && b != b) || bits(a) == bits(b); }

/* Inputs where glibc 2.36's result is not the correctly rounded one, found
   here by comparing glibc with LLVM libc and confirmed with the MPFR oracle
   (reference/mpfr_ref.h; docs/bench-math.md):
     expf(0x1.fefe02p-16)  glibc 0x1.0002p+0,    correct 0x1.0001fep+0
     logf(0x1.012de6p+1)   glibc 0x1.653e9ap-1,  correct 0x1.653e98p-1
     tanhf(0x1.000002p-1)  glibc 0x1.d93542p-2,  correct 0x1.d9354p-2
   Another glibc may round them correctly: the line then says "same", and
   the addresses above remain the proof that the code is distinct. */
static const uint32_t glibc_misrounded[BENCH_NFUNC] = {
    [BENCH_expf] = 0x37ff7f01u, [BENCH_logf] = 0x400096f3u, [BENCH_tanhf] = 0x3f000001u
};

/* A function's address as an object pointer, for dladdr and %p (ISO C
   has no direct conversion). */
static const void *addr(float (*fn)(float))
{
    const void *p;
    memcpy(&p, &fn, sizeof p);
    return p;
}

static void check_implementations(void)
{
    printf("\nImplementations (each line: where the code lives, then a strided sample of\n"
           "2^22 bit patterns covering every exponent: differing results, NaNs equal):\n");
    for (int f = 0; f < BENCH_NFUNC; f++) {
        const struct bench_baseline *b = &bench_baselines[f];
        unsigned long rl = 0, gl = 0, rg = 0;
        for (uint64_t u = 0x2a5u; u <= 0xffffffffu; u += 1024) {
            float x = from_bits((uint32_t)u);
            float r = repdl_impls[f].call(x), g = b->glibc(x);
            rg += !same(r, g);
            if (b->llvm) {
                float l = b->llvm(x);
                rl += !same(r, l);
                gl += !same(g, l);
            }
        }
        printf("  %-6s glibc in %s; repdl in %s; llvm libc in %s\n", b->name,
               bench_object_of(addr(b->glibc)), bench_object_of(addr(repdl_impls[f].call)),
               b->llvm ? bench_object_of(addr(b->llvm)) : "(absent)");
        if (b->llvm) {
            printf("        distinct code: glibc %p, llvm %p: %s\n", addr(b->glibc), addr(b->llvm),
                   b->glibc != b->llvm ? "yes" : "NO (llvm shadows glibc!)");
            printf("        sample: repdl vs llvm %lu differ%s, glibc vs llvm %lu, repdl vs glibc %lu\n",
                   rl, rl ? "  <-- both claim correct rounding: INVESTIGATE" : "", gl, rg);
        } else {
            printf("        sample: repdl vs glibc %lu differ\n", rg);
        }
        if (glibc_misrounded[f] && b->llvm) {
            float x = from_bits(glibc_misrounded[f]);
            float g = b->glibc(x), l = b->llvm(x), r = repdl_impls[f].call(x);
            printf("        %s(%a): glibc %a, llvm %a, repdl %a: glibc and llvm %s\n", b->name, x, g, l, r,
                   same(g, l) ? "same" : "differ");
        }
    }
}

/* ---- the table ---- */

enum { I_GLIBC, I_CALL, I_LLVM, I_INL, I_ARR, NIMPL };
#define N_(f) (bench_baselines[f].name)
static const char *const impl_name[NIMPL] = {
    "glibc (libm call)", "repdl (call)", "llvm libc (call)", "repdl (inlined loop)", "repdl_%s_array"
};

struct opts { int reps; size_t n, calls; };

static double result_thr[BENCH_NFUNC][NIMPL], result_lat[BENCH_NFUNC][NIMPL];

static void bench_function(int f, const struct opts *o, float *in, float *out, float zero)
{
    const struct bench_baseline *b = &bench_baselines[f];
    const struct repdl_impls *r = &repdl_impls[f];
    bench_thr_fn thr[NIMPL] = { b->glibc_thr, r->call_thr, b->llvm_thr, r->inl_thr, r->arr_thr };
    bench_lat_fn lat[NIMPL] = { b->glibc_lat, r->call_lat, b->llvm_lat, r->inl_lat, NULL };
    size_t loops = o->calls / o->n ? o->calls / o->n : 1;
    double *t = malloc(sizeof(double) * (size_t)o->reps * NIMPL * 2);
    if (!t) { perror("malloc"); exit(1); }
    fill_inputs(f, in, o->n);
    for (int i = 0; i < NIMPL; i++) { /* warm up: caches, branch predictors, lazy binding */
        if (thr[i]) (void)time_thr(thr[i], out, in, o->n, 1 + loops / 8);
        if (lat[i]) (void)time_lat(lat[i], in, o->n, 1 + loops / 8, zero);
    }
    for (int k = 0; k < o->reps; k++)
        for (int i = 0; i < NIMPL; i++) {
            t[(i * 2) * o->reps + k] = thr[i] ? time_thr(thr[i], out, in, o->n, loops) : NAN;
            t[(i * 2 + 1) * o->reps + k] = lat[i] ? time_lat(lat[i], in, o->n, loops, zero) : NAN;
        }
    for (int i = 0; i < NIMPL; i++) {
        result_thr[f][i] = thr[i] ? timer_median(t + (i * 2) * o->reps, o->reps) : NAN;
        result_lat[f][i] = lat[i] ? timer_median(t + (i * 2 + 1) * o->reps, o->reps) : NAN;
    }
    free(t);
}

static void print_cell(double v, const char *fmt)
{
    if (v != v) printf("%10s", "-");
    else printf(fmt, v);
}

static double overhead_thr, overhead_lat;
static void bench_overhead(const struct opts *o, float *in, float *out, float zero)
{
    size_t loops = o->calls / o->n ? o->calls / o->n : 1;
    double *t = malloc(sizeof(double) * (size_t)o->reps * 2);
    if (!t) { perror("malloc"); exit(1); }
    fill_inputs(BENCH_tanhf, in, o->n);
    (void)time_thr(empty_thr, out, in, o->n, 1 + loops / 8);
    for (int k = 0; k < o->reps; k++) {
        t[k] = time_thr(empty_thr, out, in, o->n, loops);
        t[o->reps + k] = time_lat(empty_lat, in, o->n, loops, zero);
    }
    overhead_thr = timer_median(t, o->reps);
    overhead_lat = timer_median(t + o->reps, o->reps);
    free(t);
}

static void print_table(void)
{
    printf("\n%-7s %-22s %11s %11s %10s %10s\n", "func", "implementation", "thr ns/call",
           "lat ns/call", "thr/glibc", "lat/glibc");
    for (int f = 0; f < BENCH_NFUNC; f++) {
        for (int i = 0; i < NIMPL; i++) {
            char name[64];
            if (i == I_GLIBC && strcmp(bench_baselines[f].glibc_name, bench_baselines[f].name))
                snprintf(name, sizeof name, "glibc (%s)", bench_baselines[f].glibc_name);
            else
                snprintf(name, sizeof name, impl_name[i], N_(f));
            printf("%-7s %-22s ", N_(f), name);
            print_cell(result_thr[f][i], " %10.2f");
            print_cell(result_lat[f][i], " %10.2f");
            print_cell(result_thr[f][i] / result_thr[f][I_GLIBC], " %9.2fx");
            print_cell(result_lat[f][i] / result_lat[f][I_GLIBC], " %9.2fx");
            if (i == I_LLVM && result_thr[f][i] != result_thr[f][i]) printf("  (LLVM libc absent)");
            printf("\n");
        }
    }
    printf("(for scale: the same loops around an empty noinline call take %.2f ns/call (throughput),\n"
           " %.2f ns/call (latency chain, which adds a multiply and an add per call); figures above\n"
           " include that overhead, not subtracted)\n", overhead_thr, overhead_lat);
}

static int verdict(const char *what, double ratio, double limit)
{
    int pass = ratio <= limit;
    printf("%s  %-48s %5.2fx glibc (target <= %.1fx)\n", pass ? "PASS" : "MISS", what, ratio, limit);
    return pass;
}

static void print_targets(void)
{
    printf("\nTargets of issues 16 and 17 (repdl as a call against LLVM libc's correctly rounded\n"
           "function as a call, time ratios: throughput and latency <= 1.0x LLVM libc's, latency\n"
           "<= 1.0x glibc's):\n");
    for (int f = 0; f < BENCH_NFUNC; f++) {
        double tl = result_thr[f][I_CALL] / result_thr[f][I_LLVM];
        double ll = result_lat[f][I_CALL] / result_lat[f][I_LLVM];
        double lg = result_lat[f][I_CALL] / result_lat[f][I_GLIBC];
        if (tl != tl) { printf("  -   %-7s LLVM libc absent\n", N_(f)); continue; }
        printf("%s  %-7s thr %5.2fx llvm   %s  lat %5.2fx llvm   %s  lat %5.2fx %s\n",
               tl <= 1.0 ? "PASS" : "MISS", N_(f), tl, ll <= 1.0 ? "PASS" : "MISS", ll,
               lg <= 1.0 ? "PASS" : "MISS", lg, bench_baselines[f].glibc_name);
    }
    printf("\nTargets of issue 2 (throughput ratios to glibc measured above):\n");
    verdict("repdl_exp_f32 throughput (call)", result_thr[BENCH_expf][I_CALL] / result_thr[BENCH_expf][I_GLIBC], 1.0);
    verdict("repdl_log_f32 throughput (call)", result_thr[BENCH_logf][I_CALL] / result_thr[BENCH_logf][I_GLIBC], 1.0);
    verdict("repdl_tanh_f32 throughput (call)", result_thr[BENCH_tanhf][I_CALL] / result_thr[BENCH_tanhf][I_GLIBC], 0.5);
    for (int f = BENCH_expf; f <= BENCH_sqrtf; f++) {
        char what[96];
        const char *n = bench_baselines[f].name;
        snprintf(what, sizeof what, "array loop: repdl_%s inlined < glibc calls", n);
        /* "beats": strictly faster than the scalar glibc loop */
        printf("%s  %-48s %5.2fx glibc (target < 1.0x)\n",
               result_thr[f][I_INL] < result_thr[f][I_GLIBC] ? "PASS" : "MISS", what,
               result_thr[f][I_INL] / result_thr[f][I_GLIBC]);
        snprintf(what, sizeof what, "array loop: repdl_%s_array < glibc calls", n);
        printf("%s  %-48s %5.2fx glibc (target < 1.0x)\n",
               result_thr[f][I_ARR] < result_thr[f][I_GLIBC] ? "PASS" : "MISS", what,
               result_thr[f][I_ARR] / result_thr[f][I_GLIBC]);
    }
}

static void print_header(const struct opts *o)
{
    char model[256] = "?";
    FILE *p = fopen("/proc/cpuinfo", "r");
    if (p) {
        char line[512];
        while (fgets(line, sizeof line, p))
            if (!strncmp(line, "model name", 10)) {
                char *c = strchr(line, ':');
                if (c) { snprintf(model, sizeof model, "%s", c + 2); model[strcspn(model, "\n")] = 0; }
                break;
            }
        fclose(p);
    }
    double load[3] = { -1, -1, -1 };
    p = fopen("/proc/loadavg", "r");
    if (p) { if (fscanf(p, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1; fclose(p); }
    printf("repdl elementary-function benchmark\n");
    printf("  build: repdl TU compiled with %s (%s)\n", BENCH_FLAGS,
#if defined(__clang__)
           "clang " __clang_version__
#elif defined(__GNUC__)
           "gcc " __VERSION__
#else
           "unknown compiler"
#endif
    );
    printf("  cpu: %s, load average %.2f %.2f %.2f\n", model, load[0], load[1], load[2]);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    printf("  glibc %s: libm chooses its variant at run time (ifunc); this CPU has FMA %s, AVX2 %s%s\n",
           gnu_get_libc_version(), __builtin_cpu_supports("fma") ? "yes" : "no",
           __builtin_cpu_supports("avx2") ? "yes" : "no",
           __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2") ? ", so the FMA variants (e.g. __expf_fma)" : "");
#else
    printf("  glibc %s\n", gnu_get_libc_version());
#endif
    if (bench_llvm_origin)
        printf("  LLVM libc: private copy of %s (plain symbols localized)\n", bench_llvm_origin);
    else
        printf("  LLVM libc: NOT FOUND at configure time (no /usr/lib/llvm-*/lib/libllvmlibc.a): its rows are skipped\n");
    printf("  n = %zu inputs per array, %zu calls per timing, median of %d repetitions, %s\n", o->n,
           (o->calls / o->n ? o->calls / o->n : 1) * o->n, o->reps,
           bench_clock == TIMER_WALL ? "wall-clock time" : "thread CPU time");
    for (int f = 0; f < BENCH_NFUNC; f++) printf("  %-6s inputs: %s\n", N_(f), input_desc[f]);
}

/* ---- callgrind mode ---- */

static int callgrind_mode(int argc, char **argv)
{
    if (argc < 4) return 2;
    int f = -1;
    for (int i = 0; i < BENCH_NFUNC; i++)
        if (!strcmp(argv[2], bench_baselines[i].name)) f = i;
    if (f < 0) return 2;
    const char *impl = argv[3];
    size_t calls = argc > 4 ? (size_t)strtoull(argv[4], NULL, 10) : 1000000;
    bench_thr_fn fn = !strcmp(impl, "glibc") ? bench_baselines[f].glibc_thr
                    : !strcmp(impl, "llvm")  ? bench_baselines[f].llvm_thr
                    : !strcmp(impl, "repdl") ? repdl_impls[f].call_thr
                    : !strcmp(impl, "inline") ? repdl_impls[f].inl_thr
                    : !strcmp(impl, "array") ? repdl_impls[f].arr_thr
                    : !strcmp(impl, "empty") ? empty_thr : NULL;
    if (!fn) { fprintf(stderr, "no implementation %s for %s\n", impl, argv[2]); return 3; }
    /* Same inputs as the timed run; one call of the loop function over all
       of them, so callgrind --toggle-collect='*_thr' sees exactly `calls`
       calls. */
    float *in = malloc(calls * sizeof *in), *out = malloc(calls * sizeof *out);
    if (!in || !out) { perror("malloc"); return 1; }
    fill_inputs(f, in, calls);
    fn(out, in, calls);
    double s = 0;
    for (size_t i = 0; i < calls; i++) s += out[i];
    printf("%s %s %zu calls, checksum %g\n", argv[2], impl, calls, s);
    free(in); free(out);
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o = { 11, 4096, (size_t)1 << 20 };
    bench_baselines_init();
    if (argc > 1 && !strcmp(argv[1], "--flags")) { puts(BENCH_FLAGS); return 0; }
    if (argc > 1 && !strcmp(argv[1], "--callgrind")) {
        int rc = callgrind_mode(argc, argv);
        if (rc == 2) fprintf(stderr, "usage: %s --callgrind FUNC glibc|repdl|llvm|inline|array|empty [CALLS]\n"
                             "  (FUNC expf, logf, tanhf, sqrtf, exp2f, log2f, expm1f, log1pf, rsqrtf, sinf, cosf, erff)\n",
                             argv[0]);
        return rc;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) o.reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--n") && i + 1 < argc) o.n = (size_t)strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--calls") && i + 1 < argc) o.calls = (size_t)strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--quick")) { o.reps = 7; o.calls = (size_t)1 << 17; }
        else if (!strcmp(argv[i], "--wall")) bench_clock = TIMER_WALL;
        else {
            fprintf(stderr, "usage: %s [--reps R] [--n N] [--calls C] [--quick] [--wall]\n", argv[0]);
            return 2;
        }
    }
    if (o.reps < 1 || o.n < 1) return 2;
    float *in = malloc(o.n * sizeof *in), *out = malloc(o.n * sizeof *out);
    if (!in || !out) { perror("malloc"); return 1; }
    /* The runtime zero of the latency chains: read from a volatile once
       here, then passed as an ordinary argument (no volatile in the loops). */
    volatile float vzero = 0.0f;
    float zero = vzero;

    print_header(&o);
    check_implementations();
    for (int f = 0; f < BENCH_NFUNC; f++) bench_function(f, &o, in, out, zero);
    bench_overhead(&o, in, out, zero);
    print_table();
    print_targets();
    printf("\n(sink %g)\n", (double)sink);
    free(in); free(out);
    return 0;
}
