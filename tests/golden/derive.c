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

#define GOLDEN_REDUCE_OPS /* filled in when reference/reduce_ref.h lands */

static const golden_op ops[] = {
    {"expf", ref_expf, NULL, NULL, NULL, NULL, NULL, NULL},
    {"logf", ref_logf, NULL, NULL, NULL, NULL, NULL, NULL},
    {"tanhf", ref_tanhf, NULL, NULL, NULL, NULL, NULL, NULL},
    {"sqrtf", ref_sqrtf, NULL, NULL, NULL, NULL, NULL, NULL},
    GOLDEN_REDUCE_OPS
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL}};

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
