/* SPDX-License-Identifier: MIT */
/* reference/gemm_cr_ref.h: the MPFR oracle of repdl_gemm_cr_f32
   (include/repdl/gemm_cr.h), written from the definition only.

   gemm_cr_ref_one(K, a, sa, b, sb, bias) = the exact sum of the K
   products a[k sa] * b[k sb] (and *bias when bias != NULL), rounded once
   to binary32, nearest-even, with binary32's subnormals and overflow.
   Every term is a multiple of 2^-298 below 2^256 in magnitude, so a sum
   of fewer than 2^64 terms is exact in 1024 bits of precision: the MPFR
   accumulator never rounds.  IEEE rules come from MPFR itself: 0 * inf
   and inf - inf are NaN, the sum of zeros is -0 only when every term is
   -0 (the accumulator starts at -0, the empty sum).  A NaN result is
   returned as the canonical 0x7fc00000. */
#ifndef REPDL_GEMM_CR_REF_H
#define REPDL_GEMM_CR_REF_H

#include <mpfr.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static float gemm_cr_ref_one(size_t K, const float *a, size_t sa, const float *b, size_t sb,
                             const float *bias)
{
    mpfr_t acc, p, x, y, r;
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    size_t k;
    float out;
    int inex;
    mpfr_inits2(1024, acc, p, (mpfr_ptr)0);
    mpfr_inits2(24, x, y, r, (mpfr_ptr)0);
    mpfr_set_zero(acc, -1);
    if (bias) {
        mpfr_set_flt(x, *bias, MPFR_RNDN);
        inex = mpfr_add(acc, acc, x, MPFR_RNDN);
        if (inex) abort();
    }
    for (k = 0; k < K; k++) {
        mpfr_set_flt(x, a[k * sa], MPFR_RNDN);
        mpfr_set_flt(y, b[k * sb], MPFR_RNDN);
        if (mpfr_mul(p, x, y, MPFR_RNDN) != 0) abort();
        if (mpfr_add(acc, acc, p, MPFR_RNDN) != 0) abort();
    }
    if (mpfr_nan_p(acc)) {
        uint32_t u = 0x7fc00000u;
        memcpy(&out, &u, 4);
    } else {
        /* binary32: precision 24, normal exponents of MPFR's [1/2, 1)
           convention in [-125, 128], subnormals down to 2^-149. */
        mpfr_set_emin(-148);
        mpfr_set_emax(128);
        inex = mpfr_set(r, acc, MPFR_RNDN);
        inex = mpfr_check_range(r, inex, MPFR_RNDN);
        mpfr_subnormalize(r, inex, MPFR_RNDN);
        out = mpfr_get_flt(r, MPFR_RNDN);
        mpfr_set_emin(emin);
        mpfr_set_emax(emax);
    }
    mpfr_clears(acc, p, x, y, r, (mpfr_ptr)0);
    return out;
}

/* The whole product, the layout of repdl_gemm_cr_f32. */
static void gemm_cr_ref(int transA, int transB, size_t M, size_t N, size_t K, const float *A,
                        size_t lda, const float *B, size_t ldb, const float *bias, float *C,
                        size_t ldc)
{
    size_t i, j;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++)
            C[i * ldc + j] = gemm_cr_ref_one(K, transA ? A + i : A + i * lda, transA ? lda : 1,
                                             transB ? B + j * ldb : B + j, transB ? 1 : ldb,
                                             bias ? bias + j : NULL);
}

#endif /* REPDL_GEMM_CR_REF_H */
