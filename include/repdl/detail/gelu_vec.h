/* SPDX-License-Identifier: MIT */
/* repdl/detail/gelu_vec.h: the vectorized body of repdl_gelu_array_f32
   (gelu.h), out[i] = repdl_gelu_f32(x[i]) bit for bit.

   On x86-64 with gcc or clang (not nvcc, not REPDL_PORTABLE_C, not
   REPDL_GELU_NO_DISPATCH) and a CPU with AVX2 and FMA (probed once at run
   time), eight elements at a time:
     1. the scalar form's exact answers by selects: +-0 and
        x >= 0x1.5ae102p+2 (+inf too) give x, x <= -0x1.cb64eap+3 (-inf
        too) gives -0, NaN the canonical NaN; 0 < |x| < 2^-60 and
        -0x1.cb64eap+3 < x < -13 are flagged;
     2. the other lanes evaluate gelu.h's algorithm in double, four per
        vector: the same piece i = floor(2|x|), the same 29 polynomials
        (each lane's row of gelu.h's table loaded two coefficients at a
        time), Horner with fused multiply-adds, e = exp(-x^2/2) by the
        operations of repdl__act_exp in the same order, each product that
        feeds an addition kept unfused by a vector contraction barrier, then
        x (e S) or x (1 - e S);
     3. the rounding test of the scalar form, repdl__round_ok_normal(y,
        16), as integer vector operations; a lane that passes returns
        RN32(y), the others are flagged;
     4. flagged lanes (about 2^-24 of those that reach the test, 33 low
        words of 2^32 fail it, plus the ranges of step 1) call the scalar
        form.
   Why a lane that passes is the scalar's answer: gelu.h's bound
   |y / gelu(x) - 1| < 9.41 2^-53 holds on every path, fused or not
   (reference/gen/act_cr.py counts every rounding a contraction may drop),
   and this evaluation is one of those paths; the test then proves RN32(y)
   = RN32(gelu(x)), the correctly rounded value the scalar form returns.
   tests/math/test_gelu_vec.c checks the agreement on a sample (suite
   quick) and on all 2^32 inputs (`test_gelu_vec all`, not in a suite).
   The backward pass, which is not correctly rounded but defined by its
   operations, is below: the same operations, none fused.
   Elsewhere (other compilers or targets, CPUs without AVX2) the callers
   keep their scalar loops. */
#ifndef REPDL_DETAIL_GELU_VEC_H
#define REPDL_DETAIL_GELU_VEC_H

#include "../config.h"
#include "exp_table.h"
REPDL_BEGIN_CODE

#if REPDL__GNU_HOST && defined(__x86_64__) && !defined(REPDL_GELU_NO_DISPATCH)
#define REPDL__GELU_X86 1
#include <immintrin.h>
#else
#define REPDL__GELU_X86 0
#endif

/* The scalar form the vector body falls back to. */
typedef float (*repdl__gelu_scalar_fn)(float);

#if REPDL__GELU_X86

/* 1 when the CPU has AVX2 and FMA (config.h's probe). */
REPDL_FN int repdl__gelu_vec_isa(void) { return repdl__cpu_avx2_fma(); }

/* The contraction barrier of detail/barrier.h for a vector of doubles. */
#define REPDL__VKEEP(v) __asm__("" : "+x"(v))

/* repdl__act_exp (gelu.h) on four lanes, operation for operation: a is
   -u^2/2 for a binary32 u with |u| <= 13. */
__attribute__((always_inline, target("avx2,fma"))) static inline __m256d
repdl__gelu_vexp(__m256d a)
{
    const __m256d shift = _mm256_set1_pd(6755399441055744.0);
    __m256d p1 = _mm256_mul_pd(a, _mm256_set1_pd(369.3299304675746));
    __m256d z, kd, r, q, r2, p, s, sr, sr2, t;
    __m256i ki, j, sb;
    uint64_t jj[4], tb[4];
    REPDL__VKEEP(p1);
    z = _mm256_add_pd(p1, shift);
    ki = _mm256_castpd_si256(z);
    j = _mm256_and_si256(ki, _mm256_set1_epi64x(255));
    kd = _mm256_sub_pd(z, shift);
    q = _mm256_mul_pd(kd, _mm256_set1_pd(0.0027076061740558544));
    REPDL__VKEEP(q);
    r = _mm256_sub_pd(a, q);
    q = _mm256_mul_pd(kd, _mm256_set1_pd(6.432011555819173e-15));
    REPDL__VKEEP(q);
    r = _mm256_sub_pd(r, q);
    _mm256_storeu_si256((__m256i *)(void *)jj, j);
    tb[0] = repdl__exp2_256_bits(jj[0]);
    tb[1] = repdl__exp2_256_bits(jj[1]);
    tb[2] = repdl__exp2_256_bits(jj[2]);
    tb[3] = repdl__exp2_256_bits(jj[3]);
    sb = _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(const void *)tb),
                          _mm256_slli_epi64(ki, 44));
    s = _mm256_castsi256_pd(sb);
    r2 = _mm256_mul_pd(r, r);
    t = _mm256_mul_pd(r, _mm256_set1_pd(0.16666668003889068));
    REPDL__VKEEP(t);
    p = _mm256_add_pd(_mm256_set1_pd(0.5000000000000233), t);
    t = _mm256_mul_pd(r2, _mm256_set1_pd(0.0416666536383358));
    REPDL__VKEEP(t);
    p = _mm256_add_pd(p, t);
    sr = _mm256_mul_pd(s, r);
    REPDL__VKEEP(sr);
    sr2 = _mm256_mul_pd(s, r2);
    t = _mm256_mul_pd(sr2, p);
    REPDL__VKEEP(t);
    return _mm256_add_pd(s, _mm256_add_pd(sr, t));
}

/* y ~ gelu(x) on four lanes of xf (each in the fast domain, or a
   harmless stand-in); C: gelu.h's 29 x 14 coefficients. */
__attribute__((always_inline, target("avx2,fma"))) static inline __m256d
repdl__gelu_v4(__m128 xf, const double *C)
{
    __m128 a = _mm_and_ps(xf, _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)));
    __m256d u = _mm256_cvtps_pd(a), xd = _mm256_cvtps_pd(xf);
    __m128i i = _mm_cvttps_epi32(_mm_mul_ps(a, _mm_set1_ps(2.0f)));   /* <= 28 */
    __m128i off = _mm_mullo_epi32(i, _mm_set1_epi32(14));
    __m256d mid = _mm256_add_pd(_mm256_mul_pd(_mm256_cvtepi32_pd(i), _mm256_set1_pd(0.5)),
                                _mm256_set1_pd(0.25));             /* exact */
    __m256d piece0 = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpeq_epi32(i, _mm_setzero_si128())));
    __m256d t = _mm256_blendv_pd(_mm256_sub_pd(u, mid), u, piece0);   /* exact */
    /* the lanes' rows of C, coefficients k and k + 1 at a time: two
       16-byte loads per pair of lanes, one unpack per coefficient (cheaper
       than a gather per coefficient on the measured CPUs) */
    int o[4];
    const double *c0, *c1, *c2, *c3;
    __m256d h, e, q, neg, lo02, lo13;
    int k;
    _mm_storeu_si128((__m128i *)(void *)o, off);
    c0 = C + o[0]; c1 = C + o[1]; c2 = C + o[2]; c3 = C + o[3];
    lo02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(c0 + 12)), _mm_loadu_pd(c2 + 12), 1);
    lo13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(c1 + 12)), _mm_loadu_pd(c3 + 12), 1);
    h = _mm256_fmadd_pd(_mm256_unpackhi_pd(lo02, lo13), t, _mm256_unpacklo_pd(lo02, lo13));
    for (k = 10; k >= 0; k -= 2) {
        lo02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(c0 + k)), _mm_loadu_pd(c2 + k), 1);
        lo13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(c1 + k)), _mm_loadu_pd(c3 + k), 1);
        h = _mm256_fmadd_pd(h, t, _mm256_unpackhi_pd(lo02, lo13));
        h = _mm256_fmadd_pd(h, t, _mm256_unpacklo_pd(lo02, lo13));
    }
    e = repdl__gelu_vexp(_mm256_mul_pd(_mm256_mul_pd(u, u), _mm256_set1_pd(-0.5)));
    q = _mm256_mul_pd(e, h);
    neg = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_castps_si128(
        _mm_cmplt_ps(xf, _mm_setzero_ps()))));
    return _mm256_mul_pd(xd, _mm256_blendv_pd(_mm256_sub_pd(_mm256_set1_pd(1.0), q), q, neg));
}

/* RN32(y) on four lanes, and in *ok bit l: lane l passes
   repdl__round_ok_normal(y, 16). */
__attribute__((always_inline, target("avx2,fma"))) static inline __m128
repdl__gelu_vround(__m256d y, int *ok)
{
    /* (lo << 3) + 0x80000000 + 128 > 256 unsigned, on each low word lo:
       flip the sign bit for a signed comparison, so
       (lo << 3) + 128 > 256 ^ 0x80000000 signed. */
    __m256i v = _mm256_add_epi32(_mm256_slli_epi64(_mm256_castpd_si256(y), 3),
                                 _mm256_set1_epi64x(128));
    __m256i c = _mm256_cmpgt_epi32(v, _mm256_set1_epi64x((long long)(256u ^ 0x80000000u)));
    /* the low words' results are bits 0, 2, 4, 6 of the mask */
    int m = _mm256_movemask_ps(_mm256_castsi256_ps(c));
    *ok = (m & 1) | ((m >> 1) & 2) | ((m >> 2) & 4) | ((m >> 3) & 8);
    return _mm256_cvtpd_ps(y);
}

/* Eight elements: the results to r, and the bit mask of the lanes that
   need the scalar form.  Answered by selects, as the scalar form answers
   them: +-0 and x >= 0x1.5ae102p+2 (+inf too) give x, x <= -0x1.cb64eap+3
   (-inf too) gives -0, NaN the canonical NaN.  Sent to the scalar form:
   0 < |x| < 2^-60, -0x1.cb64eap+3 < x < -13, and the lanes that fail the
   rounding test. */
__attribute__((always_inline, target("avx2,fma"))) static inline int
repdl__gelu_v8(const float *xs, float *r, const double *C)
{
    __m256i ux = _mm256_loadu_si256((const __m256i *)(const void *)xs);
    __m256i ax = _mm256_and_si256(ux, _mm256_set1_epi32(0x7fffffff));
    __m256i neg = _mm256_cmpgt_epi32(_mm256_setzero_si256(), ux);
    __m256i notnan = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x7f800001), ax);
    __m256i zero = _mm256_cmpeq_epi32(ax, _mm256_setzero_si256());
    __m256i small = _mm256_andnot_si256(zero, _mm256_cmpgt_epi32(_mm256_set1_epi32(0x21800000), ax));
    /* x >= 0x1.5ae102p+2 (0x40ad7081), not NaN; or +-0: the result is x */
    __m256i same = _mm256_or_si256(zero, _mm256_andnot_si256(neg, _mm256_and_si256(notnan,
                       _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x40ad7080)))));
    /* x <= -0x1.cb64eap+3 (0xc165b275), not NaN: the result is -0 */
    __m256i mzero = _mm256_and_si256(neg, _mm256_and_si256(notnan,
                        _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x4165b274))));
    /* -0x1.cb64eap+3 < x < -13 (0xc1500000): the scalar form */
    __m256i mid = _mm256_andnot_si256(mzero, _mm256_and_si256(neg,
                      _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x41500000))));
    __m256i slow = _mm256_or_si256(small, mid);
    __m256i isnan = _mm256_xor_si256(notnan, _mm256_set1_epi32(-1));
    __m256i sel = _mm256_or_si256(_mm256_or_si256(same, mzero), isnan);
    __m256i off_domain = _mm256_or_si256(slow, sel);
    /* stand-in 1.0f for the lanes off the domain keeps the loads in the table */
    __m256 xv = _mm256_blendv_ps(_mm256_castsi256_ps(ux), _mm256_set1_ps(1.0f),
                                 _mm256_castsi256_ps(off_domain));
    __m256i sp;
    __m256 res;
    int ok0, ok1, offm;
    __m128 r0 = repdl__gelu_vround(repdl__gelu_v4(_mm256_castps256_ps128(xv), C), &ok0);
    __m128 r1 = repdl__gelu_vround(repdl__gelu_v4(_mm256_extractf128_ps(xv, 1), C), &ok1);
    /* the selected lanes' results: x, -0, the canonical NaN */
    sp = _mm256_blendv_epi8(ux, _mm256_set1_epi32((int)0x80000000u), mzero);
    sp = _mm256_blendv_epi8(sp, _mm256_set1_epi32((int)REPDL_NAN_BITS), isnan);
    res = _mm256_blendv_ps(_mm256_insertf128_ps(_mm256_castps128_ps256(r0), r1, 1),
                           _mm256_castsi256_ps(sp), _mm256_castsi256_ps(sel));
    _mm256_storeu_ps(r, res);
    offm = _mm256_movemask_ps(_mm256_castsi256_ps(off_domain));
    return (_mm256_movemask_ps(_mm256_castsi256_ps(slow)) | (~(ok0 | ok1 << 4) & ~offm)) & 0xff;
}

__attribute__((target("avx2,fma"))) static inline void
repdl__gelu_vec_avx2(size_t n, const float *x, float *out, const double *C,
                     repdl__gelu_scalar_fn scalar)
{
    size_t i0;
    int l;
    for (i0 = 0; i0 < n; i0 += 8) {
        float xb[8], r[8];
        size_t m = n - i0 < 8 ? n - i0 : 8;
        const float *xs = x + i0;
        int bad;
        if (m < 8) {
            for (l = 0; l < 8; l++) xb[l] = (size_t)l < m ? x[i0 + (size_t)l] : 1.0f;
            xs = xb;
        }
        bad = repdl__gelu_v8(xs, r, C);
        if (REPDL_UNLIKELY(bad))
            for (l = 0; l < (int)m; l++)
                if (bad >> l & 1) r[l] = scalar(xs[l]);
        memcpy(out + i0, r, m * sizeof r[0]);   /* after every read of x + i0 */
    }
}

/* ---- The backward pass (activation.h's repdl_gelu_backward_f32) ----
   g = RN32(Phi(x) + keep(x e RN(1/sqrt(2 pi)))), dx = canon(dy g), with
   Phi from Q(u) = repdl__gelu_q: not a correctly rounded function, so the
   vector form performs the scalar form's operations exactly, none fused
   (a barrier on every product that feeds an addition): u = |x|, w = u^2,
   e as repdl__act_exp, the piece p = [u >= 1] + [u >= 2] + [u >= 4] and
   its argument v (w, u, 1/u, 1/u), Horner over the piece's row of T
   (activation.h's repdl__gelu_q_coeffs, zero-padded to 16: starting at
   the padding adds only exact zeros), then Q = 1/2 - u h (p = 0) or e h.
   |x| >= 15 and NaN by selects: g = 1 (x > 0), -0 (x < 0), NaN (NaN x,
   whose result is the canonical NaN either way).  No lane needs the
   scalar form. */
/* Phi(x) + keep(x e RN(1/sqrt(2 pi))) in double on four lanes of xf, each
   |x| < 15 (the others: any stand-in below 15) */
__attribute__((always_inline, target("avx2,fma"))) static inline __m256d
repdl__gelu_bwd_gd(__m128 xs, const double *T)
{
    const __m256d one = _mm256_set1_pd(1.0);
    __m128 a = _mm_and_ps(xs, _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)));
    __m256d u = _mm256_cvtps_pd(a), xd = _mm256_cvtps_pd(xs);
    __m256d w = _mm256_mul_pd(u, u), e, v, h, q, t, phi, prod;
    __m256d ge1 = _mm256_cmp_pd(u, one, _CMP_GE_OQ);
    __m256d ge2 = _mm256_cmp_pd(u, _mm256_set1_pd(2.0), _CMP_GE_OQ);
    __m256d ge4 = _mm256_cmp_pd(u, _mm256_set1_pd(4.0), _CMP_GE_OQ);
    __m128i p;
    int o[4], k;
    const double *c0, *c1, *c2, *c3;
    __m256d lo02, lo13;
    /* p = [u >= 1] + [u >= 2] + [u >= 4] as an integer per lane */
    p = _mm_add_epi32(_mm256_cvtpd_epi32(_mm256_and_pd(ge1, one)),
                      _mm_add_epi32(_mm256_cvtpd_epi32(_mm256_and_pd(ge2, one)),
                                    _mm256_cvtpd_epi32(_mm256_and_pd(ge4, one))));
    e = repdl__gelu_vexp(_mm256_mul_pd(w, _mm256_set1_pd(-0.5)));
    v = _mm256_blendv_pd(w, u, ge1);
    v = _mm256_blendv_pd(v, _mm256_div_pd(one, u), ge2);
    _mm_storeu_si128((__m128i *)(void *)o, _mm_slli_epi32(p, 4));
    c0 = T + o[0]; c1 = T + o[1]; c2 = T + o[2]; c3 = T + o[3];
    h = _mm256_setzero_pd();
    for (k = 14; k >= 0; k -= 2) {
        lo02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(c0 + k)), _mm_loadu_pd(c2 + k), 1);
        lo13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(c1 + k)), _mm_loadu_pd(c3 + k), 1);
        t = _mm256_mul_pd(h, v);
        REPDL__VKEEP(t);
        h = _mm256_add_pd(_mm256_unpackhi_pd(lo02, lo13), t);
        t = _mm256_mul_pd(h, v);
        REPDL__VKEEP(t);
        h = _mm256_add_pd(_mm256_unpacklo_pd(lo02, lo13), t);
    }
    t = _mm256_mul_pd(u, h);
    REPDL__VKEEP(t);
    q = _mm256_mul_pd(e, h);
    REPDL__VKEEP(q);
    q = _mm256_blendv_pd(_mm256_sub_pd(_mm256_set1_pd(0.5), t), q, ge1);
    /* Phi: 1 - Q for x >= +0 (sign bit clear), Q otherwise */
    phi = _mm256_blendv_pd(_mm256_sub_pd(one, q), q,
                           _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_srai_epi32(_mm_castps_si128(xs), 31))));
    prod = _mm256_mul_pd(_mm256_mul_pd(xd, e), _mm256_set1_pd(0.3989422804014327));
    REPDL__VKEEP(prod);
    return _mm256_add_pd(phi, prod);
}

/* dx = canon(dy g) on four lanes */
__attribute__((always_inline, target("avx2,fma"))) static inline __m128
repdl__gelu_bwd_v4(__m128 xf, __m128 dyf, const double *T)
{
    __m128i ax = _mm_and_si128(_mm_castps_si128(xf), _mm_set1_epi32(0x7fffffff));
    __m128i big = _mm_cmpgt_epi32(ax, _mm_set1_epi32(0x416fffff));      /* |x| >= 15, inf, NaN */
    __m128i isnan = _mm_cmpgt_epi32(ax, _mm_set1_epi32(0x7f800000));
    __m128 xs = _mm_blendv_ps(xf, _mm_set1_ps(1.0f), _mm_castsi128_ps(big));   /* stand-in */
    __m128 g = _mm256_cvtpd_ps(repdl__gelu_bwd_gd(xs, T)), gs, r;
    /* the selects: 1, -0, NaN */
    gs = _mm_blendv_ps(_mm_set1_ps(1.0f), _mm_castsi128_ps(_mm_set1_epi32((int)0x80000000u)), xf);
    gs = _mm_blendv_ps(gs, _mm_castsi128_ps(_mm_set1_epi32((int)REPDL_NAN_BITS)), _mm_castsi128_ps(isnan));
    g = _mm_blendv_ps(g, gs, _mm_castsi128_ps(big));
    r = _mm_mul_ps(dyf, g);
    return _mm_blendv_ps(r, _mm_castsi128_ps(_mm_set1_epi32((int)REPDL_NAN_BITS)), _mm_cmpunord_ps(r, r));
}

__attribute__((target("avx2,fma"))) static inline void
repdl__gelu_bwd_vec_avx2(size_t n, const float *x, const float *dy, float *dx, const double *T)
{
    size_t i0, l;
    for (i0 = 0; i0 + 4 <= n; i0 += 4)
        _mm_storeu_ps(dx + i0, repdl__gelu_bwd_v4(_mm_loadu_ps(x + i0), _mm_loadu_ps(dy + i0), T));
    if (i0 < n) {
        float xb[4] = {1.0f, 1.0f, 1.0f, 1.0f}, db[4] = {0.0f, 0.0f, 0.0f, 0.0f}, r[4];
        for (l = 0; i0 + l < n; l++) {
            xb[l] = x[i0 + l];
            db[l] = dy[i0 + l];
        }
        _mm_storeu_ps(r, repdl__gelu_bwd_v4(_mm_loadu_ps(xb), _mm_loadu_ps(db), T));
        memcpy(dx + i0, r, (n - i0) * sizeof r[0]);
    }
}

/* For tests: g[i] = repdl__gelu_bwd_gd of x[i], i < n (each |x[i]| < 15),
   the double the backward rounds. */
__attribute__((target("avx2,fma"))) static inline void
repdl__gelu_bwd_g_avx2(size_t n, const float *x, double *g, const double *T)
{
    size_t i0, l;
    for (i0 = 0; i0 < n; i0 += 4) {
        float xb[4] = {1.0f, 1.0f, 1.0f, 1.0f};
        double gb[4];
        for (l = 0; l < 4 && i0 + l < n; l++) xb[l] = x[i0 + l];
        _mm256_storeu_pd(gb, repdl__gelu_bwd_gd(_mm_loadu_ps(xb), T));
        for (l = 0; l < 4 && i0 + l < n; l++) g[i0 + l] = gb[l];
    }
}

#endif /* REPDL__GELU_X86 */

/* out[i] = scalar(x[i]), i < n, where scalar is repdl_gelu_f32 and C its
   coefficient table (gelu.h), by the vector body: returns 1 when the CPU
   has it, 0 (nothing done: the caller loops over scalar) otherwise.  out
   may be x (in place), no other overlap. */
REPDL_FN int repdl__gelu_vec_array(size_t n, const float *x, float *out, const double *C,
                                   repdl__gelu_scalar_fn scalar)
{
#if REPDL__GELU_X86
    if (repdl__gelu_vec_isa()) {
        repdl__gelu_vec_avx2(n, x, out, C, scalar);
        return 1;
    }
#endif
    (void)n; (void)x; (void)out; (void)C; (void)scalar;
    return 0;
}

/* dx[i] = repdl_gelu_backward_f32(x[i], dy[i]), i < n, T its
   coefficients (activation.h), by the vector body: returns 1 when the CPU
   has it, 0 (nothing done: the caller loops over the scalar form)
   otherwise.  dx may be x or dy, no other overlap. */
REPDL_FN int repdl__gelu_bwd_vec_array(size_t n, const float *x, const float *dy, float *dx,
                                       const double *T)
{
#if REPDL__GELU_X86
    if (repdl__gelu_vec_isa()) {
        repdl__gelu_bwd_vec_avx2(n, x, dy, dx, T);
        return 1;
    }
#endif
    (void)n; (void)x; (void)dy; (void)dx; (void)T;
    return 0;
}

REPDL_END_CODE
#endif /* REPDL_DETAIL_GELU_VEC_H */
