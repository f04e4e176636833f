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
   Prints one line per hash, "name hash  ok" or "name hash  DIFFERS
   (golden ...)", then "golden: N agree, N differ, N missing".  Exit status
   0 when every hash in the file for the chosen stride was computed and
   agrees, 1 otherwise, 2 on a usage error.

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
    { size_t i; for (i = 0; i < n; i++) o[i] = repdl_##F(x[i]); }
#define GOLDEN_ARRAY(F) NULL
#else
#define GOLDEN_MAPS(F)                                                        \
    static void map_##F(float *o, const float *x, size_t n)                   \
    { size_t i; for (i = 0; i < n; i++) o[i] = repdl_##F(x[i]); }             \
    static void arr_##F(float *o, const float *x, size_t n) { repdl_##F##_array(o, x, n); }
#define GOLDEN_ARRAY(F) arr_##F
#endif

#ifdef GOLDEN_HAVE_EXPF
GOLDEN_MAPS(expf)
#endif
#ifdef GOLDEN_HAVE_LOGF
GOLDEN_MAPS(logf)
#endif
#ifdef GOLDEN_HAVE_TANHF
GOLDEN_MAPS(tanhf)
#endif
#ifdef GOLDEN_HAVE_SQRTF
GOLDEN_MAPS(sqrtf)
#endif

#ifdef GOLDEN_HAVE_REDUCE
#define GOLDEN_REDUCE_OPS /* filled in when reduce.h lands */
#endif

static const golden_op ops[] = {
#ifdef GOLDEN_HAVE_EXPF
    {"expf", map_expf, GOLDEN_ARRAY(expf), NULL, NULL, NULL, NULL, NULL},
#endif
#ifdef GOLDEN_HAVE_LOGF
    {"logf", map_logf, GOLDEN_ARRAY(logf), NULL, NULL, NULL, NULL, NULL},
#endif
#ifdef GOLDEN_HAVE_TANHF
    {"tanhf", map_tanhf, GOLDEN_ARRAY(tanhf), NULL, NULL, NULL, NULL, NULL},
#endif
#ifdef GOLDEN_HAVE_SQRTF
    {"sqrtf", map_sqrtf, GOLDEN_ARRAY(sqrtf), NULL, NULL, NULL, NULL, NULL},
#endif
#ifdef GOLDEN_HAVE_REDUCE
    GOLDEN_REDUCE_OPS
#endif
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL}};

#include "golden_main.h"

int main(int argc, char **argv) { return golden_main(argc, argv, ops, 0); }
