/* SPDX-License-Identifier: MIT */
/* tests/golden/golden.c: computes the golden hashes with the code under
   test and compares them with the committed ones (hashes.txt, derived from
   the MPFR oracle and the reference definitions by derive.sh).

     golden [--hashes FILE] [--stride S | --full] [--threads N] [--only NAME]
            [--no-tables] [--no-reductions]

   S is a power of two from 1 to 65536 (default 256: 2^24 inputs per
   function); --full is --stride 1 (all 2^32 inputs).  Each correctly
   rounded function F is run two ways on the same inputs: the scalar
   repdl_F inlined in a plain loop (which the compiler may vectorize), and
   the array API repdl_F_array; the hash is of the scalar outputs, and
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
#ifdef GOLDEN_HAVE_REDUCE
    GOLDEN_REDUCE_OPS
#endif
    GOLDEN_OP_END};

#include "golden_main.h"

int main(int argc, char **argv) { return golden_main(argc, argv, ops, 0); }
