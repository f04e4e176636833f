/* SPDX-License-Identifier: MIT */
/* reference/repdl_oracle.h: checks any binary32, bfloat16 or float16
   function against its correctly rounded result (docs/oracle.md), the
   entry point of the repdl-oracle command (reference/oracle_tool.c) and of
   a project's own tests.  Header-only; link with MPFR, GMP, libm and
   pthreads (-lmpfr -lgmp -lm -pthread).

     repdl_oracle_check_f32(name, fn, lo, hi, stride, threads, &report)
     repdl_oracle_check_bf16(...), repdl_oracle_check_f16(...)
         fn: float (*)(float), or uint16_t (*)(uint16_t) on bit patterns;
         name: one of repdl's functions (repdl_oracle_names); the inputs are
         the bit patterns lo, lo + stride, ... <= hi (0 .. 0xffffffff or
         0xffff: every input).  Returns 0 when every result is the
         correctly rounded one, 1 when some are not, 2 on bad arguments
         (unknown name, lo > hi, hi beyond the format, stride 0, fn NULL,
         report NULL, a floating-point environment that flushes
         subnormals); report is filled in the first two cases.
     repdl_oracle_check(&args, &report)   the same with every option
     repdl_oracle_probe(&args, &report)   a sanity probe (below)

   The expected result.  binary32: reference/oracle.h's screen (glibc's
   double function, rounded when provably far from a rounding boundary,
   MPFR otherwise), or MPFR for every input (args.mode_mpfr).  bfloat16,
   float16: MPFR for every input (2^16 of them), rounded once to the
   format: MPFR's own correctly rounded function at the format's precision
   and exponent range (half_ref.h's method) for the twelve functions MPFR
   has, a Ziv loop on reference/mpfr_ref.h's error-bounded evaluations for
   sigmoid, silu, softplus, gelu and gelu_tanh (their mathematical
   shortcuts, mpfr_ref.h's, hold in the 16-bit formats too: each rounds to
   x, 1 or a zero there).

   Comparison.  A NaN is right where the correct result is NaN (any sign or
   payload) and wrong elsewhere; every other result must have the correct
   bits, so a zero of the wrong sign is wrong.  Those two kinds are "of
   the wrong class" and carry no ulp count.  The error of any other wrong
   result is its distance in ulps from the correctly rounded result: the
   number of steps between the two in the ordered sequence -inf, -MAX, ...,
   -min subnormal, 0, +min subnormal, ..., +MAX, +inf of the format (both
   zeros one point).  So it is an integer, 1 for a result one
   representable number away (an overflow to inf where MAX is correct
   included), not |got - f(x)| / ulp of the exact value. */
#ifndef REPDL_REFERENCE_REPDL_ORACLE_H
#define REPDL_REFERENCE_REPDL_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include "oracle.h"
#ifndef REPDL_HR_MPFR
#define REPDL_HR_MPFR 1
#endif
#include "half_ref.h"

enum repdl_oracle_format { REPDL_ORACLE_F32, REPDL_ORACLE_BF16, REPDL_ORACLE_F16 };

/* The most failures a report keeps (the first by input bit pattern). */
#define REPDL_ORACLE_FIRST_MAX 1000

typedef struct repdl_oracle_failure {
    uint32_t in, got, want;     /* bit patterns */
    uint64_t ulps;              /* 0 when wrong_class */
    int wrong_class;            /* NaN against a number, or a zero of the wrong sign */
} repdl_oracle_failure;

typedef struct repdl_oracle_report {
    uint64_t checked;           /* inputs checked */
    uint64_t wrong;             /* results that are not the correctly rounded one */
    uint64_t wrong_class;       /* of which of the wrong class */
    uint64_t max_ulps;          /* largest error in ulps of the others (0: none) */
    uint32_t max_ulps_in;       /* the first input (by bit pattern) with that error */
    uint64_t mpfr_calls;        /* inputs the oracle needed MPFR for */
    double seconds;             /* wall time */
    int threads;
    size_t nfirst;              /* entries of first[] */
    repdl_oracle_failure first[REPDL_ORACLE_FIRST_MAX];
} repdl_oracle_report;

typedef struct repdl_oracle_args {
    const char *function;       /* "exp", ... (repdl_oracle_names) */
    int format;                 /* enum repdl_oracle_format */
    float (*fn32)(float);       /* REPDL_ORACLE_F32 */
    uint16_t (*fn16)(uint16_t); /* REPDL_ORACLE_BF16, REPDL_ORACLE_F16 */
    uint64_t lo, hi, stride;    /* inputs lo, lo + stride, ... <= hi */
    int threads;                /* < 1: every online CPU */
    int mode_mpfr;              /* binary32: MPFR for every input */
    size_t show;                /* failures to keep, <= REPDL_ORACLE_FIRST_MAX */
    int progress;               /* a progress line on stderr */
} repdl_oracle_args;

/* The functions, in enum repdl_ref_id's order. */
static const char *const repdl_oracle_names[] = {
    "exp", "log", "tanh", "sqrt", "sigmoid", "exp2", "expm1", "log2", "log1p",
    "erf", "silu", "softplus", "gelu", "gelu_tanh", "rsqrt", "sin", "cos"};
#define REPDL_ORACLE_NFUNCS 17

/* The id of a function name, -1 when unknown. */
static inline int repdl_oracle_function_id(const char *name)
{
    int k;
    if (!name) return -1;
    for (k = 0; k < REPDL_ORACLE_NFUNCS; k++)
        if (strcmp(name, repdl_oracle_names[k]) == 0) return k;
    return -1;
}

static inline const repdl_hr_fmt *repdl_oracle_fmt_(int format)
{
    return format == REPDL_ORACLE_BF16 ? &repdl_hr_bf16 : &repdl_hr_f16;
}

/* The binary32 value of a 16-bit pattern (exact: both formats are subsets). */
static inline float repdl_oracle_h2f(int format, uint32_t h)
{
    if (format == REPDL_ORACLE_BF16) return repdl__asfloat(h << 16);
    return (float)repdl_hr_decode(&repdl_hr_f16, h);
}

/* f(x) correctly rounded to a 16-bit format, for the functions MPFR has.
   x is a value of the format, so inside its exponent range. */
static inline uint32_t repdl_oracle_h_native_(const repdl_hr_fmt *f, enum repdl_ref_id id, float x)
{
    mpfr_t xm, m;
    uint32_t r;
    int t;
    if (id == REPDL_REF_RSQRTF && repdl__asuint(x) == 0x80000000u)
        return repdl_hr_sign(f) | repdl_hr_inf(f);      /* IEEE 754 rSqrt(-0) = -inf (mpfr_ref.h) */
    repdl_hr_wide_range();
    mpfr_init2(xm, 24);
    mpfr_init2(m, f->p + 1);
    mpfr_set_flt(xm, x, MPFR_RNDN);                     /* exact */
    repdl_hr_set_range(f);
    switch (id) {
    case REPDL_REF_EXPF: t = mpfr_exp(m, xm, MPFR_RNDN); break;
    case REPDL_REF_LOGF: t = mpfr_log(m, xm, MPFR_RNDN); break;
    case REPDL_REF_TANHF: t = mpfr_tanh(m, xm, MPFR_RNDN); break;
    case REPDL_REF_EXP2F: t = mpfr_exp2(m, xm, MPFR_RNDN); break;
    case REPDL_REF_EXPM1F: t = mpfr_expm1(m, xm, MPFR_RNDN); break;
    case REPDL_REF_LOG2F: t = mpfr_log2(m, xm, MPFR_RNDN); break;
    case REPDL_REF_LOG1PF: t = mpfr_log1p(m, xm, MPFR_RNDN); break;
    case REPDL_REF_ERFF: t = mpfr_erf(m, xm, MPFR_RNDN); break;
    case REPDL_REF_RSQRTF: t = mpfr_rec_sqrt(m, xm, MPFR_RNDN); break;
    case REPDL_REF_SINF: t = mpfr_sin(m, xm, MPFR_RNDN); break;
    case REPDL_REF_COSF: t = mpfr_cos(m, xm, MPFR_RNDN); break;
    default: t = mpfr_sqrt(m, xm, MPFR_RNDN); break;
    }
    t = mpfr_subnormalize(m, t, MPFR_RNDN);             /* t: the first rounding's direction */
    (void)t;
    r = mpfr_nan_p(m) ? f->nan : repdl_hr_encode(f, mpfr_get_d(m, MPFR_RNDN));   /* exact */
    repdl_hr_wide_range();
    mpfr_clear(xm);
    mpfr_clear(m);
    return r;
}

/* f(x) rounded to a 16-bit format from eval (|t / f(x) - 1| < 2^(c - p)
   at precision p, mpfr_ref.h's Ziv loop with a 16-bit rounding): the ends
   t (1 -+ 2^(c + 1 - p)) enclose f(x); equal roundings are f(x)'s.  A zero
   or infinite t is exact (an underflow or overflow of MPFR's own range,
   far beyond the format's). */
static inline uint32_t repdl_oracle_h_ziv_(const repdl_hr_fmt *f, repdl_ref_ziv_fn eval, int c, float x)
{
    mpfr_prec_t p;
    repdl_hr_wide_range();
    for (p = 64;; p *= 2) {
        mpfr_t t, lo, hi;
        uint32_t a, b;
        if (p > 65536) {
            fprintf(stderr, "repdl_oracle: no rounding found for %a\n", (double)x);
            abort();
        }
        mpfr_init2(t, p);
        mpfr_inits2(p + 8, lo, hi, (mpfr_ptr)0);
        eval(t, x);
        if (!mpfr_regular_p(t)) {
            a = b = mpfr_nan_p(t) ? f->nan : repdl_hr_encode(f, mpfr_get_d(t, MPFR_RNDN));
        } else {
            mpfr_mul_2si(hi, t, c + 1 - (long)p, MPFR_RNDN);   /* exact */
            mpfr_sub(lo, t, hi, MPFR_RNDN);                    /* exact: p + 8 bits hold both */
            mpfr_add(hi, t, hi, MPFR_RNDN);
            a = repdl_hr_mpfr_round(f, lo);
            b = repdl_hr_mpfr_round(f, hi);
        }
        mpfr_clear(t);
        mpfr_clears(lo, hi, (mpfr_ptr)0);
        if (a == b) return a;
    }
}

/* sigma(x) at precision p: three roundings, |t / sigma - 1| < 2^(2-p). */
static inline void repdl_oracle_sigmoid_eval_(mpfr_ptr t, float x) { repdl_hr_sigmoid(t, x); }

/* f(x) correctly rounded to a 16-bit format; h is x's pattern. */
static inline uint32_t repdl_oracle_h_(const repdl_hr_fmt *f, enum repdl_ref_id id, uint32_t h, float x)
{
    uint32_t neg0 = repdl_hr_sign(f), one = repdl_hr_encode(f, 1.0);
    if (x != x) return f->nan;
    switch (id) {
    case REPDL_REF_SIGMOIDF:
        if (x == 0.0f) return repdl_hr_encode(f, 0.5);
        if (x >= 17.5f) return one;
        if (x <= -104.0f) return 0u;
        return repdl_oracle_h_ziv_(f, repdl_oracle_sigmoid_eval_, 2, x);
    case REPDL_REF_SILUF:
        if (x == 0.0f || x >= 17.5f) return h;
        if (x <= -110.0f) return neg0;
        return repdl_oracle_h_ziv_(f, repdl_ref_silu_eval_, 2, x);
    case REPDL_REF_SOFTPLUSF:
        if (x >= 16.0f) return h;
        if (x <= -104.0f) return 0u;
        return repdl_oracle_h_ziv_(f, repdl_ref_softplus_eval_, 2, x);
    case REPDL_REF_GELUF:
        if (x == 0.0f || x >= 6.0f) return h;
        if (x <= -15.0f) return neg0;
        return repdl_oracle_h_ziv_(f, repdl_ref_gelu_eval_, 9, x);
    case REPDL_REF_GELU_TANHF:
        if (x == 0.0f || x >= 6.0f) return h;
        if (x <= -11.0f) return neg0;
        return repdl_oracle_h_ziv_(f, repdl_ref_gelu_tanh_eval_, 12, x);
    default:
        return repdl_oracle_h_native_(f, id, x);
    }
}

/* 0: right; 1: wrong by *ulps; 2: wrong class (the comment at the top);
   in a format with +inf pattern `inf` and sign bit `sign`. */
static inline int repdl_oracle_compare_fmt(uint32_t sign, uint32_t inf, uint32_t got, uint32_t want,
                                           uint64_t *ulps)
{
    uint32_t mag = sign - 1u, ag = got & mag, aw = want & mag;
    int64_t og, ow;
    *ulps = 0;
    if (aw > inf) return ag > inf ? 0 : 2;              /* NaN wanted: any NaN is right */
    if (ag > inf) return 2;
    if (got == want) return 0;
    if (ag == 0 && aw == 0) return 2;                   /* a zero of the wrong sign */
    og = (got & sign) ? -(int64_t)ag : (int64_t)ag;
    ow = (want & sign) ? -(int64_t)aw : (int64_t)aw;
    *ulps = (uint64_t)(og > ow ? og - ow : ow - og);
    return 1;
}

/* ---- the run ---- */
typedef struct repdl_oracle_run_ {
    const repdl_oracle_args *a;
    enum repdl_ref_id id;
    const repdl_hr_fmt *f16;    /* NULL for binary32 */
    uint32_t sign, inf;
    uint64_t count, next, done;
    int finished;
    pthread_mutex_t lock;
    pthread_cond_t ended;       /* signalled as each worker ends */
    repdl_oracle_report *r;
} repdl_oracle_run_;

/* Keeps the failures of smallest index: each thread records its first
   `show` (its chunks come in increasing order, so these are its smallest),
   then the lists merge under the lock. */
static inline void repdl_oracle_merge_(repdl_oracle_run_ *run, const repdl_oracle_failure *mine, size_t n)
{
    repdl_oracle_report *r = run->r;
    size_t show = run->a->show, i;
    for (i = 0; i < n; i++) {
        size_t k = r->nfirst;
        if (k == show && (show == 0 || mine[i].in >= r->first[k - 1].in)) break;
        if (k == show) k--;                             /* drop the largest */
        while (k > 0 && r->first[k - 1].in > mine[i].in) { r->first[k] = r->first[k - 1]; k--; }
        r->first[k] = mine[i];
        if (r->nfirst < show) r->nfirst++;
    }
}

static inline void *repdl_oracle_worker_(void *arg)
{
    static const uint64_t chunk = 1u << 14;
    repdl_oracle_run_ *run = (repdl_oracle_run_ *)arg;
    const repdl_oracle_args *a = run->a;
    repdl_oracle_failure *mine = NULL;
    size_t nmine = 0;
    uint64_t wrong = 0, wclass = 0, maxu = 0, calls = 0;
    uint32_t maxu_in = 0;
    if (a->show) mine = (repdl_oracle_failure *)malloc(a->show * sizeof *mine);
    if (run->f16) repdl_hr_wide_range(); else repdl_ref_init();
    for (;;) {
        uint64_t b = __atomic_fetch_add(&run->next, chunk, __ATOMIC_RELAXED), e, j;
        if (b >= run->count) break;
        e = b + chunk < run->count ? b + chunk : run->count;
        for (j = b; j < e; j++) {
            uint32_t in = (uint32_t)(a->lo + j * a->stride), got, want;
            uint64_t u;
            int c;
            if (run->f16) {
                float x = repdl_oracle_h2f(a->format, in);
                got = a->fn16((uint16_t)in);
                want = repdl_oracle_h_(run->f16, run->id, in, x);
                calls++;
            } else {
                float x = repdl__asfloat(in);
                got = repdl__asuint(a->fn32(x));
                if (a->mode_mpfr) { want = repdl_oracle_mpfr(run->id, x); calls++; }
                else want = repdl_oracle_screened(run->id, x, &calls);
            }
            c = repdl_oracle_compare_fmt(run->sign, run->inf, got, want, &u);
            if (!c) continue;
            wrong++;
            if (c == 2) wclass++;
            else if (u > maxu || (u == maxu && in < maxu_in)) { maxu = u; maxu_in = in; }
            if (nmine < a->show) {
                repdl_oracle_failure fl;
                fl.in = in; fl.got = got; fl.want = want; fl.ulps = u; fl.wrong_class = c == 2;
                mine[nmine++] = fl;
            }
        }
        __atomic_fetch_add(&run->done, e - b, __ATOMIC_RELAXED);
    }
    pthread_mutex_lock(&run->lock);
    run->r->wrong += wrong;
    run->r->wrong_class += wclass;
    run->r->mpfr_calls += calls;
    if (maxu > run->r->max_ulps || (maxu == run->r->max_ulps && maxu && maxu_in < run->r->max_ulps_in)) {
        run->r->max_ulps = maxu;
        run->r->max_ulps_in = maxu_in;
    }
    repdl_oracle_merge_(run, mine, nmine);
    run->finished++;
    pthread_cond_signal(&run->ended);
    pthread_mutex_unlock(&run->lock);
    free(mine);
    mpfr_free_cache();
    return NULL;
}

static inline double repdl_oracle_now_(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Validates the arguments; 0 when usable. */
static inline int repdl_oracle_args_ok_(const repdl_oracle_args *a)
{
    uint64_t top = a->format == REPDL_ORACLE_F32 ? 0xffffffffu : 0xffffu;
    if (repdl_oracle_function_id(a->function) < 0) return 0;
    if (a->format != REPDL_ORACLE_F32 && a->format != REPDL_ORACLE_BF16 && a->format != REPDL_ORACLE_F16)
        return 0;
    if (a->format == REPDL_ORACLE_F32 ? !a->fn32 : !a->fn16) return 0;
    if (a->lo > a->hi || a->hi > top || a->stride < 1 || a->show > REPDL_ORACLE_FIRST_MAX) return 0;
    return repdl_fpenv_ok(1.0f);    /* flushed subnormals would change both sides */
}

static inline int repdl_oracle_check(const repdl_oracle_args *a, repdl_oracle_report *r)
{
    repdl_oracle_run_ run;
    pthread_t *th;
    long nt, t, started = 0;
    double t0, last;
    if (!a || !r || !repdl_oracle_args_ok_(a)) return 2;
    memset(r, 0, sizeof *r);
    memset(&run, 0, sizeof run);
    run.a = a;
    run.r = r;
    run.id = (enum repdl_ref_id)repdl_oracle_function_id(a->function);
    run.f16 = a->format == REPDL_ORACLE_F32 ? NULL : repdl_oracle_fmt_(a->format);
    run.sign = run.f16 ? repdl_hr_sign(run.f16) : 0x80000000u;
    run.inf = run.f16 ? repdl_hr_inf(run.f16) : 0x7f800000u;
    run.count = (a->hi - a->lo) / a->stride + 1;
    pthread_mutex_init(&run.lock, NULL);
    pthread_cond_init(&run.ended, NULL);
    nt = a->threads >= 1 ? a->threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1) nt = 1;
    th = (pthread_t *)calloc((size_t)nt, sizeof *th);
    if (!th) return 2;
    t0 = last = repdl_oracle_now_();
    for (t = 0; t < nt; t++) {
        if (pthread_create(&th[t], NULL, repdl_oracle_worker_, &run) != 0) break;
        started++;
    }
    if (started == 0) repdl_oracle_worker_(&run);      /* no thread: this one */
    for (;;) {
        struct timespec until;
        int fin;
        double now;
        clock_gettime(CLOCK_REALTIME, &until);          /* the condition variable's clock */
        until.tv_nsec += 200000000;                     /* wake at least every 0.2 s */
        if (until.tv_nsec >= 1000000000) { until.tv_sec++; until.tv_nsec -= 1000000000; }
        pthread_mutex_lock(&run.lock);
        if (run.finished < (started ? started : 1)) pthread_cond_timedwait(&run.ended, &run.lock, &until);
        fin = run.finished;
        pthread_mutex_unlock(&run.lock);
        if (fin >= (started ? started : 1)) break;
        now = repdl_oracle_now_();
        if (a->progress && now - last >= (isatty(2) ? 1.0 : 30.0)) {
            uint64_t d = __atomic_load_n(&run.done, __ATOMIC_RELAXED);
            double el = now - t0, frac = (double)d / (double)run.count;
            fprintf(stderr, "%s%s: %llu of %llu inputs (%.1f%%), %.0f s, about %.0f s left%s",
                    isatty(2) ? "\r" : "", a->function, (unsigned long long)d,
                    (unsigned long long)run.count, 100.0 * frac, el,
                    frac > 0 ? el / frac - el : 0.0, isatty(2) ? "   " : "\n");
            last = now;
        }
    }
    for (t = 0; t < started; t++) pthread_join(th[t], NULL);
    if (a->progress && isatty(2)) fprintf(stderr, "\r%78s\r", "");
    free(th);
    pthread_mutex_destroy(&run.lock);
    pthread_cond_destroy(&run.ended);
    r->checked = run.count;
    r->seconds = repdl_oracle_now_() - t0;
    r->threads = (int)(started ? started : 1);
    return r->wrong ? 1 : 0;
}

static inline int repdl_oracle_check_simple_(int format, const char *name, float (*fn32)(float),
                                             uint16_t (*fn16)(uint16_t), uint32_t lo, uint32_t hi,
                                             uint32_t stride, int threads, repdl_oracle_report *r)
{
    repdl_oracle_args a;
    memset(&a, 0, sizeof a);
    a.function = name;
    a.format = format;
    a.fn32 = fn32;
    a.fn16 = fn16;
    a.lo = lo;
    a.hi = hi;
    a.stride = stride;
    a.threads = threads;
    a.show = REPDL_ORACLE_FIRST_MAX;
    return repdl_oracle_check(&a, r);
}
static inline int repdl_oracle_check_f32(const char *name, float (*fn)(float), uint32_t lo, uint32_t hi,
                                         uint32_t stride, int threads, repdl_oracle_report *r)
{
    return repdl_oracle_check_simple_(REPDL_ORACLE_F32, name, fn, NULL, lo, hi, stride, threads, r);
}
static inline int repdl_oracle_check_bf16(const char *name, uint16_t (*fn)(uint16_t), uint32_t lo,
                                          uint32_t hi, uint32_t stride, int threads, repdl_oracle_report *r)
{
    return repdl_oracle_check_simple_(REPDL_ORACLE_BF16, name, NULL, fn, lo, hi, stride, threads, r);
}
static inline int repdl_oracle_check_f16(const char *name, uint16_t (*fn)(uint16_t), uint32_t lo,
                                         uint32_t hi, uint32_t stride, int threads, repdl_oracle_report *r)
{
    return repdl_oracle_check_simple_(REPDL_ORACLE_F16, name, NULL, fn, lo, hi, stride, threads, r);
}

/* The sanity probe.  dlsym gives an address, not a type: a symbol of
   another signature (a double function, a function of another argument
   count) or another function (exp asked for, log given) cannot be told
   from its address.  The probe calls the function at eight ordinary
   inputs (0.05, 0.3, 0.7, 1.1, 1.9, 2.6, 3.3, 5.5 in the format) and
   counts those whose result is of the wrong class or more than 4096 ulps
   (binary32) or 8 ulps (16-bit) from the correctly rounded one; the
   caller refuses when 4 or more are (repdl-oracle exits 3, --no-probe
   skips it).  A double function called as a float one returns the low
   bits of a double, and another function differs in its value: both miss
   nearly every probe.  What it cannot detect: a function of another
   signature that crashes when called, or one that happens to agree at
   these points.  Returns the count of bad probes (0 .. 8), -1 on bad
   arguments; MPFR's exponent range of the calling thread is kept. */
static inline int repdl_oracle_probe(const repdl_oracle_args *a, repdl_oracle_failure out[8])
{
    static const float xs[8] = {0.05f, 0.3f, 0.7f, 1.1f, 1.9f, 2.6f, 3.3f, 5.5f};
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    enum repdl_ref_id id;
    int k, bad = 0;
    uint64_t calls = 0;
    if (!a || repdl_oracle_function_id(a->function) < 0) return -1;
    if (a->format == REPDL_ORACLE_F32 ? !a->fn32 : !a->fn16) return -1;
    id = (enum repdl_ref_id)repdl_oracle_function_id(a->function);
    for (k = 0; k < 8; k++) {
        uint32_t in, got, want;
        uint64_t u;
        int c;
        if (a->format == REPDL_ORACLE_F32) {
            repdl_ref_init();
            in = repdl__asuint(xs[k]);
            got = repdl__asuint(a->fn32(xs[k]));
            want = repdl_oracle_screened(id, xs[k], &calls);
            c = repdl_oracle_compare_fmt(0x80000000u, 0x7f800000u, got, want, &u);
            if (c == 2 || u > 4096) bad++;
        } else {
            const repdl_hr_fmt *f = repdl_oracle_fmt_(a->format);
            in = repdl_hr_round_f32(f, xs[k]);
            got = a->fn16((uint16_t)in) & 0xffffu;
            want = repdl_oracle_h_(f, id, in, repdl_oracle_h2f(a->format, in));
            c = repdl_oracle_compare_fmt(repdl_hr_sign(f), repdl_hr_inf(f), got, want, &u);
            if (c == 2 || u > 8) bad++;
        }
        if (out) { out[k].in = in; out[k].got = got; out[k].want = want; out[k].ulps = u; out[k].wrong_class = c == 2; }
    }
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_free_cache();          /* this thread's constant caches (LeakSanitizer) */
    return bad;
}

#endif /* REPDL_REFERENCE_REPDL_ORACLE_H */
