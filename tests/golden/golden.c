/* SPDX-License-Identifier: MIT */
/* tests/golden/golden.c: computes the golden hashes with the code under
   test and compares them with the committed ones (hashes.txt, derived from
   the MPFR oracle and the reference definitions by derive.sh).

     golden [--hashes FILE] [--stride S | --full] [--stride-more S2]
            [--threads N] [--only NAME] [--sets LIST] [--no-tables]
            [--no-reductions] [--print]

   S is a power of two from 1 to 65536 (default 256: 2^24 inputs per
   function); --full is --stride 1 (all 2^32 inputs).  S applies to the
   base tables (expf, logf, tanhf, sqrtf); the other binary32 functions
   are sampled at --stride-more S2 (default 4096: 2^20 inputs), and the
   16-bit functions (bf16 and f16) on all 2^16 inputs; --sets chooses among
   base, more, half and red (golden_core.h).  Each correctly rounded
   function F is run two ways on the same inputs: the scalar repdl_F
   inlined in a plain loop (which the compiler may vectorize), and the
   array API repdl_F_array; the hash is of the scalar outputs, and
   `F_array/...` reports the array form's agreement with them.
   Prints one line per hash, "name hash  ok", "name hash  DIFFERS
   (golden ...)" or "name hash  NO-GOLDEN", then "golden: N agree, N differ,
   N missing" (missing: in the file, not computed here).  Exit status 0 when
   every hash in the file for the chosen stride was computed and agrees and
   every computed hash has a golden value; 1 otherwise; 2 on a usage error.

   Built as C99 and as C++ by every cell of tests/matrix.sh. */
#if !defined(__cplusplus) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <repdl/repdl.h>

#if defined(__has_include)
#if __has_include(<repdl/exp.h>)
#include <repdl/exp.h>
#define GOLDEN_HAVE_EXPF 1
#endif
#if __has_include(<repdl/log.h>)
#include <repdl/log.h>
#define GOLDEN_HAVE_LOGF 1
#endif
#if __has_include(<repdl/tanh.h>)
#include <repdl/tanh.h>
#define GOLDEN_HAVE_TANHF 1
#endif
#if __has_include(<repdl/sqrt.h>)
#include <repdl/sqrt.h>
#define GOLDEN_HAVE_SQRTF 1
#endif
#if __has_include(<repdl/reduce.h>)
#include <repdl/reduce.h>
#define GOLDEN_HAVE_REDUCE 1
#endif
#endif

#include "golden_core.h"

/* ---- The code under test, behind the callback types of golden_core.h ---- */

#ifdef GOLDEN_NO_ARRAY
#define GOLDEN_MAPS(F)                                                        \
    static void map_##F(float *o, const float *x, size_t n)                   \
    { size_t i; for (i = 0; i < n; i++) o[i] = repdl_##F##_f32(x[i]); }
#define GOLDEN_ARRAY(F) NULL
#else
#define GOLDEN_MAPS(F)                                                        \
    static void map_##F(float *o, const float *x, size_t n)                   \
    { size_t i; for (i = 0; i < n; i++) o[i] = repdl_##F##_f32(x[i]); }             \
    static void arr_##F(float *o, const float *x, size_t n) { repdl_##F##_array_f32(n, x, o); }
#define GOLDEN_ARRAY(F) arr_##F
#endif

#ifdef GOLDEN_HAVE_EXPF
GOLDEN_MAPS(exp)
#endif
#ifdef GOLDEN_HAVE_LOGF
GOLDEN_MAPS(log)
#endif
#ifdef GOLDEN_HAVE_TANHF
GOLDEN_MAPS(tanh)
#endif
#ifdef GOLDEN_HAVE_SQRTF
GOLDEN_MAPS(sqrt)
#endif

/* The other binary32 functions and the 16-bit forms of all of them, which
   <repdl/repdl.h> declares (exp2.h ... cos.h, activation.h, sigmoid.h,
   half_math.h). */
GOLDEN_MAPS(exp2)
GOLDEN_MAPS(log2)
GOLDEN_MAPS(expm1)
GOLDEN_MAPS(log1p)
GOLDEN_MAPS(rsqrt)
GOLDEN_MAPS(sin)
GOLDEN_MAPS(cos)
GOLDEN_MAPS(erf)
GOLDEN_MAPS(sigmoid)
GOLDEN_MAPS(silu)
GOLDEN_MAPS(softplus)
GOLDEN_MAPS(gelu)
GOLDEN_MAPS(gelu_tanh)

/* 16-bit: map16_F_T, the scalar repdl_F_T in a loop, and arr16_F_T, the
   array form repdl_F_array_T, T = bf16 or f16. */
#define GOLDEN_SCALAR16_T(F, T)                                               \
    static void map16_##F##_##T(uint16_t *o, const uint16_t *x, size_t n)     \
    { size_t i; for (i = 0; i < n; i++) o[i] = repdl_##F##_##T(x[i]); }
#ifdef GOLDEN_NO_ARRAY
#define GOLDEN_MAP16_T(F, T) GOLDEN_SCALAR16_T(F, T)
#define GOLDEN_ARRAY16(F, T) NULL
#else
#define GOLDEN_MAP16_T(F, T)                                                  \
    GOLDEN_SCALAR16_T(F, T)                                                   \
    static void arr16_##F##_##T(uint16_t *o, const uint16_t *x, size_t n)     \
    { repdl_##F##_array_##T(n, x, o); }
#define GOLDEN_ARRAY16(F, T) arr16_##F##_##T
#endif
#define GOLDEN_MAPS16(F) GOLDEN_MAP16_T(F, bf16) GOLDEN_MAP16_T(F, f16)
GOLDEN_MAPS16(exp)
GOLDEN_MAPS16(log)
GOLDEN_MAPS16(tanh)
GOLDEN_MAPS16(sqrt)
GOLDEN_MAPS16(exp2)
GOLDEN_MAPS16(log2)
GOLDEN_MAPS16(expm1)
GOLDEN_MAPS16(log1p)
GOLDEN_MAPS16(rsqrt)
GOLDEN_MAPS16(sin)
GOLDEN_MAPS16(cos)
GOLDEN_MAPS16(erf)
GOLDEN_MAPS16(sigmoid)
GOLDEN_MAPS16(silu)
GOLDEN_MAPS16(softplus)
GOLDEN_MAPS16(gelu)
GOLDEN_MAPS16(gelu_tanh)
#define GOLDEN_OP16(F)                                                        \
    GOLDEN_OP_MAP16(#F "_bf16", map16_##F##_bf16, GOLDEN_ARRAY16(F, bf16)),   \
    GOLDEN_OP_MAP16(#F "_f16", map16_##F##_f16, GOLDEN_ARRAY16(F, f16))

#ifdef GOLDEN_HAVE_REDUCE
/* Reductions: the public API behind golden_red / golden_batch (the strides
   are those of the op: 1 for the contiguous forms, which ignore them). */
RED1(sum, repdl_sum_f32(n, x))
RED1(dot, repdl_dot_f32(n, x, y))
RED1(sumsq, repdl_sumsq_f32(n, x))
RED1(norm2, repdl_norm2_f32(n, x))
RED1(mean, repdl_mean_f32(n, x))
RED1(var0, repdl_var_f32(n, 0, x))
RED1(var1, repdl_var_f32(n, 1, x))
RED1(max, repdl_max_f32(n, x))
RED1(min, repdl_min_f32(n, x))
REDI(argmax, repdl_argmax_f32(n, x))
REDI(argmin, repdl_argmin_f32(n, x))
RED1(sum_strided, repdl_sum_strided_f32(n, x, incx))
RED1(dot_strided, repdl_dot_strided_f32(n, x, incx, y, incy))

#define ROWS1(NAME, CALL)                                                     \
    static void rows_##NAME(const float *x, size_t ldx, const float *y,       \
                            size_t ldy, size_t rows, size_t n, void *out)     \
    { (void)y; (void)ldy; CALL; }
ROWS1(sum, repdl_sum_rows_f32(rows, n, x, ldx, (float *)out))
ROWS1(dot, repdl_dot_rows_f32(rows, n, x, ldx, y, ldy, (float *)out))
ROWS1(sumsq, repdl_sumsq_rows_f32(rows, n, x, ldx, (float *)out))
ROWS1(norm2, repdl_norm2_rows_f32(rows, n, x, ldx, (float *)out))
ROWS1(mean, repdl_mean_rows_f32(rows, n, x, ldx, (float *)out))
ROWS1(var1, repdl_var_rows_f32(rows, n, 1, x, ldx, (float *)out))
ROWS1(max, repdl_max_rows_f32(rows, n, x, ldx, (float *)out))
ROWS1(min, repdl_min_rows_f32(rows, n, x, ldx, (float *)out))
ROWS1(argmax, repdl_argmax_rows_f32(rows, n, x, ldx, (size_t *)out))
ROWS1(argmin, repdl_argmin_rows_f32(rows, n, x, ldx, (size_t *)out))

#define GOLDEN_REDUCE_OPS                                                      \
    GOLDEN_OP_RED("sum_f32", red_sum, GOLDEN_F32),                             \
    GOLDEN_OP_RED("dot_f32", red_dot, GOLDEN_F32),                             \
    GOLDEN_OP_RED("sumsq_f32", red_sumsq, GOLDEN_F32),                         \
    GOLDEN_OP_RED("norm2_f32", red_norm2, GOLDEN_F32),                         \
    GOLDEN_OP_RED("mean_f32", red_mean, GOLDEN_F32),                           \
    GOLDEN_OP_RED("var_f32_ddof0", red_var0, GOLDEN_F32),                      \
    GOLDEN_OP_RED("var_f32_ddof1", red_var1, GOLDEN_F32),                      \
    GOLDEN_OP_RED("max_f32", red_max, GOLDEN_F32),                             \
    GOLDEN_OP_RED("min_f32", red_min, GOLDEN_F32),                             \
    GOLDEN_OP_RED("argmax_f32", red_argmax, GOLDEN_IDX),                       \
    GOLDEN_OP_RED("argmin_f32", red_argmin, GOLDEN_IDX),                       \
    GOLDEN_OP_STRIDED("sum_strided_f32_inc3", red_sum_strided, 3, 1),          \
    GOLDEN_OP_STRIDED("sum_strided_f32_incm2", red_sum_strided, -2, 1),        \
    GOLDEN_OP_STRIDED("dot_strided_f32_inc2_m3", red_dot_strided, 2, -3),      \
    GOLDEN_OP_ROWS("sum_rows_f32", rows_sum, GOLDEN_F32),                      \
    GOLDEN_OP_ROWS("dot_rows_f32", rows_dot, GOLDEN_F32),                      \
    GOLDEN_OP_ROWS("sumsq_rows_f32", rows_sumsq, GOLDEN_F32),                  \
    GOLDEN_OP_ROWS("norm2_rows_f32", rows_norm2, GOLDEN_F32),                  \
    GOLDEN_OP_ROWS("mean_rows_f32", rows_mean, GOLDEN_F32),                    \
    GOLDEN_OP_ROWS("var_rows_f32_ddof1", rows_var1, GOLDEN_F32),               \
    GOLDEN_OP_ROWS("max_rows_f32", rows_max, GOLDEN_F32),                      \
    GOLDEN_OP_ROWS("min_rows_f32", rows_min, GOLDEN_F32),                      \
    GOLDEN_OP_ROWS("argmax_rows_f32", rows_argmax, GOLDEN_IDX),                \
    GOLDEN_OP_ROWS("argmin_rows_f32", rows_argmin, GOLDEN_IDX),
#endif

static const golden_op ops[] = {
#ifdef GOLDEN_HAVE_EXPF
    GOLDEN_OP_MAP("expf", map_exp, GOLDEN_ARRAY(exp)),
#endif
#ifdef GOLDEN_HAVE_LOGF
    GOLDEN_OP_MAP("logf", map_log, GOLDEN_ARRAY(log)),
#endif
#ifdef GOLDEN_HAVE_TANHF
    GOLDEN_OP_MAP("tanhf", map_tanh, GOLDEN_ARRAY(tanh)),
#endif
#ifdef GOLDEN_HAVE_SQRTF
    GOLDEN_OP_MAP("sqrtf", map_sqrt, GOLDEN_ARRAY(sqrt)),
#endif
    GOLDEN_OP_MAP_MORE("exp2f", map_exp2, GOLDEN_ARRAY(exp2)),
    GOLDEN_OP_MAP_MORE("log2f", map_log2, GOLDEN_ARRAY(log2)),
    GOLDEN_OP_MAP_MORE("expm1f", map_expm1, GOLDEN_ARRAY(expm1)),
    GOLDEN_OP_MAP_MORE("log1pf", map_log1p, GOLDEN_ARRAY(log1p)),
    GOLDEN_OP_MAP_MORE("rsqrtf", map_rsqrt, GOLDEN_ARRAY(rsqrt)),
    GOLDEN_OP_MAP_MORE("sinf", map_sin, GOLDEN_ARRAY(sin)),
    GOLDEN_OP_MAP_MORE("cosf", map_cos, GOLDEN_ARRAY(cos)),
    GOLDEN_OP_MAP_MORE("erff", map_erf, GOLDEN_ARRAY(erf)),
    GOLDEN_OP_MAP_MORE("sigmoidf", map_sigmoid, GOLDEN_ARRAY(sigmoid)),
    GOLDEN_OP_MAP_MORE("siluf", map_silu, GOLDEN_ARRAY(silu)),
    GOLDEN_OP_MAP_MORE("softplusf", map_softplus, GOLDEN_ARRAY(softplus)),
    GOLDEN_OP_MAP_MORE("geluf", map_gelu, GOLDEN_ARRAY(gelu)),
    GOLDEN_OP_MAP_MORE("gelu_tanhf", map_gelu_tanh, GOLDEN_ARRAY(gelu_tanh)),
    GOLDEN_OP16(exp), GOLDEN_OP16(log), GOLDEN_OP16(tanh), GOLDEN_OP16(sqrt),
    GOLDEN_OP16(exp2), GOLDEN_OP16(log2), GOLDEN_OP16(expm1), GOLDEN_OP16(log1p),
    GOLDEN_OP16(rsqrt), GOLDEN_OP16(sin), GOLDEN_OP16(cos), GOLDEN_OP16(erf),
    GOLDEN_OP16(sigmoid), GOLDEN_OP16(silu), GOLDEN_OP16(softplus), GOLDEN_OP16(gelu),
    GOLDEN_OP16(gelu_tanh),
#ifdef GOLDEN_HAVE_REDUCE
    GOLDEN_REDUCE_OPS
#endif
    GOLDEN_OP_END};

#include "golden_main.h"

int main(int argc, char **argv) { return golden_main(argc, argv, ops, 0); }
