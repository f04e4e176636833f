/* SPDX-License-Identifier: MIT */
/* tests/golden/derive.c: prints the golden hashes from the independent
   sources, never from the code under test:
     - correctly rounded functions: the MPFR oracle of reference/oracle.h,
       pure MPFR (--mode mpfr) or screened by glibc's double functions with
       MPFR near rounding boundaries (--mode screened, the default; margin
       and proof in reference/oracle.h);
     - reductions and batched rows: the plain recursive definitions of
       reference/reduce_ref.h.

     derive [--mode mpfr|screened] [--stride S | --full] [--threads N]
            [--only NAME] [--no-tables] [--no-reductions]
            [--check [--hashes FILE]]

   Output: "name hash" lines, the format of hashes.txt.  derive.sh runs it
   and writes hashes.txt with the commands in its header.  With --check it
   compares instead, like golden (tests/golden/meson.build runs that: the
   committed hashes stay reproducible from the oracle). */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "../../reference/oracle.h"
#include "../../reference/reduce_ref.h"

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
