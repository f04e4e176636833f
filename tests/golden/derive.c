/* SPDX-License-Identifier: MIT */
/* tests/golden/derive.c: prints the golden hashes from the independent
   sources, never from the code under test:
     - correctly rounded functions: the MPFR oracle of reference/oracle.h,
       pure MPFR (--mode mpfr) or screened by glibc's double functions with
       MPFR near rounding boundaries (--mode screened, the default; margin
       and proof in reference/oracle.h);
     - their bfloat16 and float16 forms: F(x) rounded once to the format by
       MPFR (reference/half_ref.h's rounding; below), or screened the same
       way by glibc's double functions (--mode screened);
     - reductions and batched rows: the plain recursive definitions of
       reference/reduce_ref.h.

     derive [--mode mpfr|screened] [--stride S | --full] [--stride-more S2]
            [--threads N] [--only NAME] [--sets LIST] [--no-tables]
            [--no-reductions] [--check [--hashes FILE]]

   Output: "name hash" lines, the format of hashes.txt.  derive.sh runs it
   and writes hashes.txt with the commands in its header.  With --check it
   compares instead, like golden (tests/golden/meson.build runs that: the
   committed hashes stay reproducible from the oracle). */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "../../reference/oracle.h"
#include "../../reference/reduce_ref.h"
#define REPDL_HR_MPFR 1
#include "../../reference/half_ref.h"

#include "golden_core.h"

static int g_mpfr_only;

static void oracle_map(enum repdl_ref_id id, float *o, const float *x, size_t n)
{
    uint64_t calls = 0;
    size_t i;
    repdl_ref_init();                 /* per thread: MPFR's exponent range */
    for (i = 0; i < n; i++)
        o[i] = repdl__asfloat(g_mpfr_only ? repdl_oracle_mpfr(id, x[i])
                                          : repdl_oracle_screened(id, x[i], &calls));
}

static void ref_expf(float *o, const float *x, size_t n) { oracle_map(REPDL_REF_EXPF, o, x, n); }
static void ref_logf(float *o, const float *x, size_t n) { oracle_map(REPDL_REF_LOGF, o, x, n); }
static void ref_tanhf(float *o, const float *x, size_t n) { oracle_map(REPDL_REF_TANHF, o, x, n); }
static void ref_sqrtf(float *o, const float *x, size_t n) { oracle_map(REPDL_REF_SQRTF, o, x, n); }
#define REF_MAP(F, ID) \
    static void ref_##F(float *o, const float *x, size_t n) { oracle_map(ID, o, x, n); }
REF_MAP(exp2f, REPDL_REF_EXP2F)
REF_MAP(log2f, REPDL_REF_LOG2F)
REF_MAP(expm1f, REPDL_REF_EXPM1F)
REF_MAP(log1pf, REPDL_REF_LOG1PF)
REF_MAP(rsqrtf, REPDL_REF_RSQRTF)
REF_MAP(sinf, REPDL_REF_SINF)
REF_MAP(cosf, REPDL_REF_COSF)
REF_MAP(erff, REPDL_REF_ERFF)
REF_MAP(sigmoidf, REPDL_REF_SIGMOIDF)
REF_MAP(siluf, REPDL_REF_SILUF)
REF_MAP(softplusf, REPDL_REF_SOFTPLUSF)
REF_MAP(geluf, REPDL_REF_GELUF)
REF_MAP(gelu_tanhf, REPDL_REF_GELU_TANHF)

/* ---- 16-bit forms: F(x) rounded once to bfloat16 or float16 ----

   x is the binary32 value of the 16-bit pattern (exact).  NaN in: the
   format's canonical NaN (bf16 0x7fc0, f16 0x7e00, repdl/half.h), as for
   every NaN result.

   Pure MPFR (ref16_mpfr):
   - exp, log, tanh, sqrt, exp2, log2, expm1, log1p, rsqrt, sin, cos, erf:
     MPFR's own correct rounding at the format's precision p + 1 in its
     exponent range, subnormalized (the rounding of
     reference/half_ref.h); rsqrt(-0) = -inf (IEEE 754 rSqrt; MPFR gives
     +inf), as reference/mpfr_ref.h's repdl_ref_rsqrtf;
   - sigmoid: reference/half_ref.h's repdl_hr_mpfr_fn (an enclosure);
   - silu, softplus, gelu, gelu_tanh (MPFR has none): the mathematical
     shortcuts of reference/mpfr_ref.h (+-0, and the thresholds beyond
     which F(x) is within 2^-20 |x| of x, which the format holds, or below
     2^-150 in magnitude, which rounds to a zero in both formats), and in
     between a Ziv loop on mpfr_ref.h's evaluations t, |t / F - 1| <
     2^(c - q) at precision q: F lies in [t - d, t + d], d = |t| 2^(c+1-q)
     (|F| < 2|t|), whose ends are computed with outward rounding; when they
     round alike in the format that is F's rounding, otherwise q doubles
     (F(x) is transcendental for these x: never a midpoint).

   Screened (ref16_screen, --mode screened): glibc's double d of
   reference/oracle.h's screen, |d - F| <= 2^-51 |F| (2^-43.5 for gelu and
   gelu_tanh, in the ranges where oracle.h uses them), accepted when d is
   a normal double and d (1 - M) and d (1 + M), M = 2^-36 > 2^-43.4, round
   to the same value of the format (then F, which lies between them, rounds
   there too); otherwise the pure MPFR answer. */
typedef struct ref16_fn {
    enum repdl_ref_id id;
    int (*mpfr)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);  /* MPFR's function, or NULL */
    repdl_ref_ziv_fn eval;                           /* mpfr_ref.h's evaluation, or NULL */
    int c;                                           /* its error exponent */
    float hi, lo;        /* shortcuts: x >= hi gives x; x <= lo gives a zero */
} ref16_fn;

static const repdl_hr_fmt *ref16_fmt(int f16) { return f16 ? &repdl_hr_f16 : &repdl_hr_bf16; }

/* v rounded to format f, v computed in the wide range. */
static uint32_t ref16_round(const repdl_hr_fmt *f, mpfr_srcptr v) { return repdl_hr_mpfr_round(f, v); }

static uint32_t ref16_mpfr(const repdl_hr_fmt *f, const ref16_fn *F, float x)
{
    uint32_t ux = repdl__asuint(x);
    if (x != x) return f->nan;
    if (F->id == REPDL_REF_SIGMOIDF) return repdl_hr_mpfr_fn(f, REPDL_HR_SIGMOID, x);
    if (F->mpfr) {
        mpfr_t xm, m;
        uint32_t r;
        int t;
        if (F->id == REPDL_REF_RSQRTF && ux == 0x80000000u) return repdl_hr_sign(f) | repdl_hr_inf(f);
        mpfr_init2(xm, 24);
        mpfr_init2(m, f->p + 1);
        mpfr_set_flt(xm, x, MPFR_RNDN);          /* exact, wide range */
        repdl_hr_set_range(f);
        t = F->mpfr(m, xm, MPFR_RNDN);
        t = mpfr_subnormalize(m, t, MPFR_RNDN);
        (void)t;
        r = mpfr_nan_p(m) ? f->nan : repdl_hr_encode(f, mpfr_get_d(m, MPFR_RNDN));   /* exact */
        repdl_hr_wide_range();
        mpfr_clear(xm);
        mpfr_clear(m);
        return r;
    }
    /* silu, softplus, gelu, gelu_tanh */
    if (x == 0.0f && F->id != REPDL_REF_SOFTPLUSF) return repdl_hr_encode(f, (double)x);  /* +-0 */
    if (x >= F->hi) return repdl_hr_encode(f, (double)x);                             /* +inf too */
    if (x <= F->lo) return F->id == REPDL_REF_SOFTPLUSF ? 0u : repdl_hr_sign(f);       /* +0, -0 */
    {
        mpfr_prec_t q;
        for (q = 64;; q *= 2) {
            mpfr_t t, d, lo, hi;
            uint32_t a, b;
            if (q > 65536) { fprintf(stderr, "derive: Ziv loop past 2^16 bits\n"); abort(); }
            mpfr_init2(t, q);
            mpfr_inits2(q + 64, d, lo, hi, (mpfr_ptr)0);
            F->eval(t, x);
            mpfr_abs(d, t, MPFR_RNDN);                              /* exact */
            mpfr_mul_2si(d, d, F->c + 1 - (long)q, MPFR_RNDN);      /* exact */
            mpfr_sub(lo, t, d, MPFR_RNDD);
            mpfr_add(hi, t, d, MPFR_RNDU);
            a = ref16_round(f, lo);
            b = ref16_round(f, hi);
            mpfr_clear(t);
            mpfr_clears(d, lo, hi, (mpfr_ptr)0);
            if (a == b) return a;
        }
    }
}

/* The double of reference/oracle.h's screen for F at x, and 1; or 0 where
   that screen decides by the definition or has no double (the shortcut
   ranges of the activations, rsqrt(-0)): then MPFR answers here. */
static int ref16_double(const ref16_fn *F, float x, double *d)
{
    double xd = (double)x;
    switch (F->id) {
    case REPDL_REF_EXPF: *d = exp(xd); return 1;
    case REPDL_REF_LOGF: *d = log(xd); return 1;
    case REPDL_REF_TANHF: *d = tanh(xd); return 1;
    case REPDL_REF_SQRTF: *d = sqrt(xd); return 1;
    case REPDL_REF_EXP2F: *d = exp2(xd); return 1;
    case REPDL_REF_LOG2F: *d = log2(xd); return 1;
    case REPDL_REF_EXPM1F: *d = expm1(xd); return 1;
    case REPDL_REF_LOG1PF: *d = log1p(xd); return 1;
    case REPDL_REF_RSQRTF: if (x == 0.0f) return 0; *d = 1.0 / sqrt(xd); return 1;
    case REPDL_REF_SINF: *d = sin(xd); return 1;
    case REPDL_REF_COSF: *d = cos(xd); return 1;
    case REPDL_REF_ERFF: *d = erf(xd); return 1;
    case REPDL_REF_SIGMOIDF:
        if (!(x > -104.0f && x < 17.5f)) return 0;
        *d = 1.0 / (1.0 + exp(-xd)); return 1;
    case REPDL_REF_SILUF:
        if (!(x > -110.0f && x < 17.5f)) return 0;
        *d = xd / (1.0 + exp(-xd)); return 1;
    case REPDL_REF_SOFTPLUSF:
        if (!(x > -104.0f && x < 16.0f)) return 0;
        *d = log1p(exp(xd)); return 1;
    default: /* gelu, gelu_tanh */
        if (!(x != 0.0f && x > F->lo && x < F->hi)) return 0;
        *d = repdl_oracle_gelu_double(F->id, x); return 1;
    }
}

static uint32_t ref16_screen(const repdl_hr_fmt *f, const ref16_fn *F, float x)
{
    double d;
    if (x == x && ref16_double(F, x, &d) && isnormal(d)) {
        mpfr_t lo, hi;
        uint32_t a, b;
        mpfr_inits2(128, lo, hi, (mpfr_ptr)0);
        mpfr_set_d(lo, fabs(d), MPFR_RNDN);
        mpfr_mul_2si(lo, lo, -36, MPFR_RNDN);    /* |d| M, exact */
        mpfr_add_d(hi, lo, d, MPFR_RNDN);        /* d + |d| M: 90 bits, exact */
        mpfr_neg(lo, lo, MPFR_RNDN);
        mpfr_add_d(lo, lo, d, MPFR_RNDN);        /* d - |d| M, exact */
        a = ref16_round(f, lo);
        b = ref16_round(f, hi);
        mpfr_clears(lo, hi, (mpfr_ptr)0);
        if (a == b) return a;
    }
    return ref16_mpfr(f, F, x);
}

static void ref16_map(const repdl_hr_fmt *f, const ref16_fn *F, uint16_t *o, const uint16_t *x,
                      size_t n)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    size_t i;
    repdl_hr_wide_range();
    for (i = 0; i < n; i++) {
        float xf = (float)repdl_hr_decode(f, x[i]);         /* exact; NaN stays NaN */
        o[i] = (uint16_t)(g_mpfr_only ? ref16_mpfr(f, F, xf) : ref16_screen(f, F, xf));
    }
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
}

static const ref16_fn ref16_exp = {REPDL_REF_EXPF, mpfr_exp, NULL, 0, 0, 0};
static const ref16_fn ref16_log = {REPDL_REF_LOGF, mpfr_log, NULL, 0, 0, 0};
static const ref16_fn ref16_tanh = {REPDL_REF_TANHF, mpfr_tanh, NULL, 0, 0, 0};
static const ref16_fn ref16_sqrt = {REPDL_REF_SQRTF, mpfr_sqrt, NULL, 0, 0, 0};
static const ref16_fn ref16_exp2 = {REPDL_REF_EXP2F, mpfr_exp2, NULL, 0, 0, 0};
static const ref16_fn ref16_log2 = {REPDL_REF_LOG2F, mpfr_log2, NULL, 0, 0, 0};
static const ref16_fn ref16_expm1 = {REPDL_REF_EXPM1F, mpfr_expm1, NULL, 0, 0, 0};
static const ref16_fn ref16_log1p = {REPDL_REF_LOG1PF, mpfr_log1p, NULL, 0, 0, 0};
static const ref16_fn ref16_rsqrt = {REPDL_REF_RSQRTF, mpfr_rec_sqrt, NULL, 0, 0, 0};
static const ref16_fn ref16_sin = {REPDL_REF_SINF, mpfr_sin, NULL, 0, 0, 0};
static const ref16_fn ref16_cos = {REPDL_REF_COSF, mpfr_cos, NULL, 0, 0, 0};
static const ref16_fn ref16_erf = {REPDL_REF_ERFF, mpfr_erf, NULL, 0, 0, 0};
static const ref16_fn ref16_sigmoid = {REPDL_REF_SIGMOIDF, NULL, NULL, 0, 0, 0};
/* c and the thresholds: reference/mpfr_ref.h (repdl_ref_siluf ...) */
static const ref16_fn ref16_silu = {REPDL_REF_SILUF, NULL, repdl_ref_silu_eval_, 2, 17.5f, -110.0f};
static const ref16_fn ref16_softplus = {REPDL_REF_SOFTPLUSF, NULL, repdl_ref_softplus_eval_, 2,
                                        16.0f, -104.0f};
static const ref16_fn ref16_gelu = {REPDL_REF_GELUF, NULL, repdl_ref_gelu_eval_, 9, 6.0f, -15.0f};
static const ref16_fn ref16_gelu_tanh = {REPDL_REF_GELU_TANHF, NULL, repdl_ref_gelu_tanh_eval_, 12,
                                         6.0f, -11.0f};

#define REF16(F)                                                              \
    static void ref16_##F##_bf16(uint16_t *o, const uint16_t *x, size_t n)    \
    { ref16_map(ref16_fmt(0), &ref16_##F, o, x, n); }                         \
    static void ref16_##F##_f16(uint16_t *o, const uint16_t *x, size_t n)     \
    { ref16_map(ref16_fmt(1), &ref16_##F, o, x, n); }
REF16(exp) REF16(log) REF16(tanh) REF16(sqrt) REF16(exp2) REF16(log2) REF16(expm1)
REF16(log1p) REF16(rsqrt) REF16(sin) REF16(cos) REF16(erf) REF16(sigmoid) REF16(silu)
REF16(softplus) REF16(gelu) REF16(gelu_tanh)
#define REF16_OPS(F)                                                          \
    GOLDEN_OP_MAP16(#F "_bf16", ref16_##F##_bf16, NULL),                      \
    GOLDEN_OP_MAP16(#F "_f16", ref16_##F##_f16, NULL)

/* ---- Reductions: the reference definitions ---- */

/* RN(s / n), one rounding, by MPFR (binary32 range and subnormals). */
static float ref_div_count(float s, size_t n)
{
    mpfr_t m;
    float r;
    int t;
    repdl_ref_init();
    mpfr_init2(m, 24);
    mpfr_set_flt(m, s, MPFR_RNDN);                      /* exact */
    t = mpfr_div_ui(m, m, (unsigned long)n, MPFR_RNDN);
    t = mpfr_subnormalize(m, t, MPFR_RNDN);
    (void)t;
    r = mpfr_get_flt(m, MPFR_RNDN);
    mpfr_clear(m);
    return ref_canon(r);
}

static float ref_mean(const float *x, size_t n)
{
    return n == 0 ? ref_from_bits(0x7fc00000u) : ref_div_count(ref_sum(x, n), n);
}

static float ref_var(const float *x, size_t n, size_t ddof)
{
    if (n <= ddof) return ref_from_bits(0x7fc00000u);
    return ref_div_count(ref_sum_sqdev(x, n, ref_mean(x, n)), n - ddof);
}

static float ref_norm2(const float *x, size_t n)
{
    repdl_ref_init();
    return ref_canon(repdl_ref_sqrtf(ref_dot(x, x, n)));  /* MPFR square root */
}

/* A strided operand gathered into a contiguous copy: g[i] = x[i * inc]. */
static float *ref_gather(const float *x, ptrdiff_t inc, size_t n)
{
    float *g = (float *)malloc((n ? n : 1) * sizeof(float));
    size_t i;
    if (!g) { fprintf(stderr, "derive: out of memory\n"); exit(1); }
    for (i = 0; i < n; i++) g[i] = x[(ptrdiff_t)i * inc];
    return g;
}

static float ref_sum_strided(const float *x, ptrdiff_t inc, size_t n)
{
    float *g = ref_gather(x, inc, n), r = ref_sum(g, n);
    free(g);
    return r;
}

static float ref_dot_strided(const float *x, ptrdiff_t incx, const float *y, ptrdiff_t incy,
                             size_t n)
{
    float *gx = ref_gather(x, incx, n), *gy = ref_gather(y, incy, n), r = ref_dot(gx, gy, n);
    free(gx);
    free(gy);
    return r;
}

RED1(sum, ref_sum(x, n))
RED1(dot, ref_dot(x, y, n))
RED1(sumsq, ref_dot(x, x, n))
RED1(norm2, ref_norm2(x, n))
RED1(mean, ref_mean(x, n))
RED1(var0, ref_var(x, n, 0))
RED1(var1, ref_var(x, n, 1))
RED1(max, ref_max(x, n))
RED1(min, ref_min(x, n))
REDI(argmax, ref_argext(x, n, 1))
REDI(argmin, ref_argext(x, n, 0))
RED1(sum_strided, ref_sum_strided(x, incx, n))
RED1(dot_strided, ref_dot_strided(x, incx, y, incy, n))

/* Batched: the reference of each row, one row at a time. */
#define ROWSF(NAME, EXPR)                                                     \
    static void rows_##NAME(const float *x, size_t ldx, const float *y,       \
                            size_t ldy, size_t rows, size_t n, void *out)     \
    {                                                                         \
        size_t r;                                                             \
        for (r = 0; r < rows; r++) {                                          \
            const float *xr = x + r * ldx, *yr = y + r * ldy;                 \
            float v = (EXPR);                                                 \
            (void)yr;                                                         \
            memcpy((float *)out + r, &v, sizeof v);                           \
        }                                                                     \
    }
#define ROWSI(NAME, EXPR)                                                     \
    static void rows_##NAME(const float *x, size_t ldx, const float *y,       \
                            size_t ldy, size_t rows, size_t n, void *out)     \
    {                                                                         \
        size_t r;                                                             \
        (void)y; (void)ldy;                                                   \
        for (r = 0; r < rows; r++) {                                          \
            const float *xr = x + r * ldx;                                    \
            size_t v = (EXPR);                                                \
            memcpy((size_t *)out + r, &v, sizeof v);                          \
        }                                                                     \
    }
ROWSF(sum, ref_sum(xr, n))
ROWSF(dot, ref_dot(xr, yr, n))
ROWSF(sumsq, ref_dot(xr, xr, n))
ROWSF(norm2, ref_norm2(xr, n))
ROWSF(mean, ref_mean(xr, n))
ROWSF(var1, ref_var(xr, n, 1))
ROWSF(max, ref_max(xr, n))
ROWSF(min, ref_min(xr, n))
ROWSI(argmax, ref_argext(xr, n, 1))
ROWSI(argmin, ref_argext(xr, n, 0))

/* The same names as golden.c's list. */
static const golden_op ops[] = {
    GOLDEN_OP_MAP("expf", ref_expf, NULL),
    GOLDEN_OP_MAP("logf", ref_logf, NULL),
    GOLDEN_OP_MAP("tanhf", ref_tanhf, NULL),
    GOLDEN_OP_MAP("sqrtf", ref_sqrtf, NULL),
    GOLDEN_OP_MAP_MORE("exp2f", ref_exp2f, NULL),
    GOLDEN_OP_MAP_MORE("log2f", ref_log2f, NULL),
    GOLDEN_OP_MAP_MORE("expm1f", ref_expm1f, NULL),
    GOLDEN_OP_MAP_MORE("log1pf", ref_log1pf, NULL),
    GOLDEN_OP_MAP_MORE("rsqrtf", ref_rsqrtf, NULL),
    GOLDEN_OP_MAP_MORE("sinf", ref_sinf, NULL),
    GOLDEN_OP_MAP_MORE("cosf", ref_cosf, NULL),
    GOLDEN_OP_MAP_MORE("erff", ref_erff, NULL),
    GOLDEN_OP_MAP_MORE("sigmoidf", ref_sigmoidf, NULL),
    GOLDEN_OP_MAP_MORE("siluf", ref_siluf, NULL),
    GOLDEN_OP_MAP_MORE("softplusf", ref_softplusf, NULL),
    GOLDEN_OP_MAP_MORE("geluf", ref_geluf, NULL),
    GOLDEN_OP_MAP_MORE("gelu_tanhf", ref_gelu_tanhf, NULL),
    REF16_OPS(exp), REF16_OPS(log), REF16_OPS(tanh), REF16_OPS(sqrt),
    REF16_OPS(exp2), REF16_OPS(log2), REF16_OPS(expm1), REF16_OPS(log1p),
    REF16_OPS(rsqrt), REF16_OPS(sin), REF16_OPS(cos), REF16_OPS(erf),
    REF16_OPS(sigmoid), REF16_OPS(silu), REF16_OPS(softplus), REF16_OPS(gelu),
    REF16_OPS(gelu_tanh),
    GOLDEN_OP_RED("sum_f32", red_sum, GOLDEN_F32),
    GOLDEN_OP_RED("dot_f32", red_dot, GOLDEN_F32),
    GOLDEN_OP_RED("sumsq_f32", red_sumsq, GOLDEN_F32),
    GOLDEN_OP_RED("norm2_f32", red_norm2, GOLDEN_F32),
    GOLDEN_OP_RED("mean_f32", red_mean, GOLDEN_F32),
    GOLDEN_OP_RED("var_f32_ddof0", red_var0, GOLDEN_F32),
    GOLDEN_OP_RED("var_f32_ddof1", red_var1, GOLDEN_F32),
    GOLDEN_OP_RED("max_f32", red_max, GOLDEN_F32),
    GOLDEN_OP_RED("min_f32", red_min, GOLDEN_F32),
    GOLDEN_OP_RED("argmax_f32", red_argmax, GOLDEN_IDX),
    GOLDEN_OP_RED("argmin_f32", red_argmin, GOLDEN_IDX),
    GOLDEN_OP_STRIDED("sum_strided_f32_inc3", red_sum_strided, 3, 1),
    GOLDEN_OP_STRIDED("sum_strided_f32_incm2", red_sum_strided, -2, 1),
    GOLDEN_OP_STRIDED("dot_strided_f32_inc2_m3", red_dot_strided, 2, -3),
    GOLDEN_OP_ROWS("sum_rows_f32", rows_sum, GOLDEN_F32),
    GOLDEN_OP_ROWS("dot_rows_f32", rows_dot, GOLDEN_F32),
    GOLDEN_OP_ROWS("sumsq_rows_f32", rows_sumsq, GOLDEN_F32),
    GOLDEN_OP_ROWS("norm2_rows_f32", rows_norm2, GOLDEN_F32),
    GOLDEN_OP_ROWS("mean_rows_f32", rows_mean, GOLDEN_F32),
    GOLDEN_OP_ROWS("var_rows_f32_ddof1", rows_var1, GOLDEN_F32),
    GOLDEN_OP_ROWS("max_rows_f32", rows_max, GOLDEN_F32),
    GOLDEN_OP_ROWS("min_rows_f32", rows_min, GOLDEN_F32),
    GOLDEN_OP_ROWS("argmax_rows_f32", rows_argmax, GOLDEN_IDX),
    GOLDEN_OP_ROWS("argmin_rows_f32", rows_argmin, GOLDEN_IDX),
    GOLDEN_OP_END};

#include "golden_main.h"

int main(int argc, char **argv)
{
    int a, b = 1, print_only = 1;
    /* take --mode out, pass the rest on */
    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--mode") == 0 && a + 1 < argc) {
            a++;
            if (strcmp(argv[a], "mpfr") == 0) g_mpfr_only = 1;
            else if (strcmp(argv[a], "screened") == 0) g_mpfr_only = 0;
            else { fprintf(stderr, "derive: --mode mpfr|screened\n"); return 2; }
        } else if (strcmp(argv[a], "--check") == 0) {
            print_only = 0;
        } else {
            argv[b++] = argv[a];
        }
    }
    argc = b;
    return golden_main(argc, argv, ops, print_only);
}
