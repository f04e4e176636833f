/* SPDX-License-Identifier: MIT */
/* repdl/detail/gelu_vec.h: the vectorized bodies of repdl_gelu_array_f32
   (gelu.h), out[i] = repdl_gelu_f32(x[i]) bit for bit, and of
   repdl_gelu_backward_array_f32 (activation.h), the scalar form's bits.

   On x86-64 with gcc or clang (not nvcc, not REPDL_PORTABLE_C, not
   REPDL_GELU_NO_DISPATCH), by the CPU (probed once at run time): AVX-512F
   (eight doubles per vector), else AVX2 and FMA (four), else nothing (the
   callers keep their scalar loops); REPDL_GELU_ISA_MAX caps the choice
   (2, 1, 0), so that tests reach every form on one CPU.

   The forward, eight elements at a time:
     1. the scalar form's exact answers by selects: +-0 and
        x >= 0x1.5ae102p+2 (+inf too) give x, x <= -0x1.cb64eap+3 (-inf
        too) gives -0, NaN the canonical NaN; 0 < |x| < 2^-60 and
        -0x1.cb64eap+3 < x < -13 are flagged;
     2. the other lanes, 2^-60 <= u = |x| <= 13, evaluate in double an
        algorithm of their own (not gelu.h's: any evaluation is allowed
        whose error is bounded, since the result is correctly rounded):
          Q(u) = Phi(-u) = e S(u),  e = exp(-u^2/2),
          S(u) = P_S(t),  t = (u - 25/8)/(u + 6) in [-25/48, 79/152],
        one polynomial of degree 18 for the whole domain (no pieces, no
        table: the map t pushes the slow 1/u decay of S into a smooth
        function of t), Horner with fused multiply-adds;
          e = 2^k E(r),  -u^2/2 = k ln2 + r,  |r| < 0.3466,
        E of degree 11, no table; y = x (e S) for x < 0, x (1 - e S)
        for x > 0;
     3. the rounding test repdl__round_ok_normal(y, 128) as integer
        vector operations; a lane that passes returns RN32(y), the others
        are flagged;
     4. flagged lanes call the scalar form: the ranges of step 1 and the
        lanes that fail the test (257 of the 2^29 values of y's low 29
        bits: about 4.8e-7 of uniformly spread lanes; on all 2^32 inputs,
        230 of the 1.06e9 in the domain, 2.2e-7).
   Why a lane that passes is the scalar's answer: |y / gelu(x) - 1| <
   84.14 2^-53 < 127 2^-53 (reference/gen/gelu_vec.py: Sollya's
   supnorm bounds of P_S, 2^-52.15, and of E, 2^-57.86
   (reference/gen/gelu_vec.sollya); the Horner roundings bounded in exact
   rational arithmetic, two per step, so fused or not; t's three
   roundings moved through P_S; the reduction's rounding; the products
   e S and x (.), and 1 - e S, which a contracting compiler may fuse, one
   rounding fewer); c = 128 then proves RN32(y) = RN32(gelu(x))
   (detail/cr.h), the correctly rounded value the scalar form returns.
   Both vector widths perform the same operations, so give the same y.
   tests/math/test_gelu_vec.c checks the agreement on a sample (suite
   quick, each form) and on all 2^32 inputs (`test_gelu_vec all`, not in
   a suite; results/gelu-2026-11-29d.txt).

   The backward pass, which is not correctly rounded but defined by its
   operations, is below: the scalar form's operations, none fused. */
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
/* g++ 12 reports -Wuninitialized and -Wmaybe-uninitialized inside its own
   avx512fintrin.h (intrinsics whose unused lanes are a deliberately
   undefined value, `__Y = __Y`) once they are inlined here: silenced for
   this section only, so that a C++ user's -Werror build compiles (as
   detail/gemv.h does). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/* The highest form a build may use: 2 AVX-512F, 1 AVX2 + FMA, 0 none
   (the tests force each form with it; every form gives the same bits). */
#ifndef REPDL_GELU_ISA_MAX
#define REPDL_GELU_ISA_MAX 2
#endif

/* The form this CPU runs: 2 when it has AVX-512F (and AVX2, FMA), 1 with
   AVX2 and FMA (config.h's probe), 0 otherwise; at most
   REPDL_GELU_ISA_MAX.  The probe's answer is cached (threads racing to
   the first call store the same value, atomically). */
REPDL_FN int repdl__gelu_vec_isa(void)
{
    static int isa = -1;
    int v = __atomic_load_n(&isa, __ATOMIC_RELAXED);
    if (v < 0) {
        v = REPDL_GELU_ISA_MAX >= 1 && repdl__cpu_avx2_fma() ? 1 : 0;
        if (v && REPDL_GELU_ISA_MAX >= 2 && __builtin_cpu_supports("avx512f")) v = 2;
        __atomic_store_n(&isa, v, __ATOMIC_RELAXED);
    }
    return v;
}

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
    __m256i ki, j, sb, tb;
    __m128i jl, jh;
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
    /* the four table entries by lane extracts and inserts (a store of j
       and a vector reload of four scalar stores would stall on store
       forwarding) */
    jl = _mm256_castsi256_si128(j);
    jh = _mm256_extracti128_si256(j, 1);
    tb = _mm256_set_epi64x((long long)repdl__exp2_256_bits((uint64_t)_mm_extract_epi64(jh, 1)),
                           (long long)repdl__exp2_256_bits((uint64_t)_mm_cvtsi128_si64(jh)),
                           (long long)repdl__exp2_256_bits((uint64_t)_mm_extract_epi64(jl, 1)),
                           (long long)repdl__exp2_256_bits((uint64_t)_mm_cvtsi128_si64(jl)));
    sb = _mm256_add_epi64(tb, _mm256_slli_epi64(ki, 44));
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

/* The forward's rounding test constant c of repdl__round_ok_normal: the
   evaluation's relative error bound (the comment at the top) is below
   (c - 1) 2^-53 */
#define REPDL__GELU_VEC_C 128

/* The vector form's coefficients (reference/gen/gelu_vec.py, from
   reference/gen/gelu_vec.sollya): P_S's 19 (degree 0 to 18, S(u) as a
   polynomial in t = (u - 25/8)/(u + 6)), then E's 12 (degree 0 to 11,
   exp(r) for |r| <= 0.3466). */
REPDL_FN const double *repdl__gelu_vec_coeffs(void)
{
    static const double C[31] = {
        0.11735258076253545,
        -0.29396612285639895,
        0.4004380073828323,
        -0.463792919748352,
        0.456976370531887,
        -0.3805933602919058,
        0.2637671894606799,
        -0.14734070196938936,
        0.061851308906846404,
        -0.015776165935843398,
        -0.000528093048216396,
        0.00237466167426338,
        -0.0007480795433330249,
        -0.00014641998386858072,
        0.00015798610015871416,
        -6.880840386151406e-06,
        -2.5916626841381374e-05,
        3.514001409521269e-06,
        3.2675089921511116e-06,
        1.0,
        1.0,
        0.5000000000000011,
        0.16666666666666424,
        0.04166666666652705,
        0.008333333333487052,
        0.0013888888944313675,
        0.00019841269522464735,
        2.4801492482785765e-05,
        2.7557572292916585e-06,
        2.7630444481328946e-07,
        2.500448964711025e-08
    };
    return C;
}

/* y ~ gelu(x) on four lanes of xf, each 2^-60 <= |x| <= 13 (or a harmless
   stand-in), C = repdl__gelu_vec_coeffs(): u = |x|, t = (u - 25/8)/(u + 6),
   S = P_S(t), e = 2^k E(r) with a = -u^2/2 = k ln2 + r, then
   x (e S) or x (1 - e S).  Its error bound is in the comment at the top. */
__attribute__((always_inline, target("avx2,fma"))) static inline __m256d
repdl__gelu_v4(__m128 xf, const double *C)
{
    __m128 ab = _mm_and_ps(xf, _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)));
    __m256d u = _mm256_cvtps_pd(ab), xd = _mm256_cvtps_pd(xf);
    const __m256d shift = _mm256_set1_pd(6755399441055744.0);   /* 0x1.8p52 */
    __m256d t, h, a, z, kd, r, p, e, q, neg;
    int k;
    /* t within 3 rounding errors of its exact value (u - 25/8 and u + 6
       are exact for u >= 2^-29, rounded once below) */
    t = _mm256_div_pd(_mm256_sub_pd(u, _mm256_set1_pd(3.125)), _mm256_add_pd(u, _mm256_set1_pd(6.0)));
    h = _mm256_fmadd_pd(_mm256_broadcast_sd(C + 18), t, _mm256_broadcast_sd(C + 17));
    for (k = 16; k >= 0; k--) h = _mm256_fmadd_pd(h, t, _mm256_broadcast_sd(C + k));
    /* a = -u^2/2, exact (u^2 has at most 48 bits); k = nearest integer to
       a log2(e) (the shifter's rounding), |k| <= 122 */
    a = _mm256_mul_pd(_mm256_mul_pd(u, u), _mm256_set1_pd(-0.5));
    z = _mm256_fmadd_pd(a, _mm256_set1_pd(1.4426950408889634), shift);
    kd = _mm256_sub_pd(z, shift);
    /* r = a - k ln2: the first step is exact (a and k LN2_HI are multiples
       of 2^-53, the difference below 1/2), the second rounds once:
       |r - (a - k ln 2)| < 2^-55 + 2^-100, |r| < 0.3466 */
    r = _mm256_fnmadd_pd(kd, _mm256_set1_pd(0.6931471805599453), a);
    r = _mm256_fnmadd_pd(kd, _mm256_set1_pd(2.3190468138462996e-17), r);
    p = _mm256_fmadd_pd(_mm256_broadcast_sd(C + 30), r, _mm256_broadcast_sd(C + 29));
    for (k = 28; k >= 19; k--) p = _mm256_fmadd_pd(p, r, _mm256_broadcast_sd(C + k));
    /* e = 2^k E(r): k added to E's exponent, exact (E(r) in [0.7, 1.42],
       2^k E(r) >= 2^-123, normal) */
    e = _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(p),
                                             _mm256_slli_epi64(_mm256_castpd_si256(z), 52)));
    q = _mm256_mul_pd(e, h);
    neg = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_castps_si128(
        _mm_cmplt_ps(xf, _mm_setzero_ps()))));
    return _mm256_mul_pd(xd, _mm256_blendv_pd(_mm256_sub_pd(_mm256_set1_pd(1.0), q), q, neg));
}

/* RN32(y) on four lanes, and in *ok bit l: lane l passes
   repdl__round_ok_normal(y, REPDL__GELU_VEC_C). */
__attribute__((always_inline, target("avx2,fma"))) static inline __m128
repdl__gelu_vround(__m256d y, int *ok)
{
    /* (lo << 3) + 0x80000000 + 8 c > 16 c unsigned, on each low word lo:
       flip the sign bit for a signed comparison, so
       (lo << 3) + 8 c > 16 c ^ 0x80000000 signed. */
    __m256i v = _mm256_add_epi32(_mm256_slli_epi64(_mm256_castpd_si256(y), 3),
                                 _mm256_set1_epi64x(8 * REPDL__GELU_VEC_C));
    __m256i c = _mm256_cmpgt_epi32(v, _mm256_set1_epi64x((long long)((16u * REPDL__GELU_VEC_C) ^ 0x80000000u)));
    /* the low words' results are bits 0, 2, 4, 6 of the mask */
    int m = _mm256_movemask_ps(_mm256_castsi256_ps(c));
    *ok = (m & 1) | ((m >> 1) & 2) | ((m >> 2) & 4) | ((m >> 3) & 8);
    return _mm256_cvtpd_ps(y);
}

/* The selects of eight elements xs, as the scalar form answers them: +-0
   and x >= 0x1.5ae102p+2 (+inf too) give x, x <= -0x1.cb64eap+3 (-inf
   too) gives -0, NaN the canonical NaN: *sel marks those lanes, *sp holds
   their results.  *slow marks the lanes sent to the scalar form,
   0 < |x| < 2^-60 and -0x1.cb64eap+3 < x < -13; *off both kinds.  Returns
   xs with the stand-in 1.0f on the lanes of *off. */
__attribute__((always_inline, target("avx2,fma"))) static inline __m256
repdl__gelu_sel8(const float *xs, __m256i *sel, __m256i *sp, __m256i *slow, __m256i *off)
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
    __m256i isnan = _mm256_xor_si256(notnan, _mm256_set1_epi32(-1));
    *slow = _mm256_or_si256(small, mid);
    *sel = _mm256_or_si256(_mm256_or_si256(same, mzero), isnan);
    *off = _mm256_or_si256(*slow, *sel);
    /* the selected lanes' results: x, -0, the canonical NaN */
    *sp = _mm256_blendv_epi8(ux, _mm256_set1_epi32((int)0x80000000u), mzero);
    *sp = _mm256_blendv_epi8(*sp, _mm256_set1_epi32((int)REPDL_NAN_BITS), isnan);
    return _mm256_blendv_ps(_mm256_castsi256_ps(ux), _mm256_set1_ps(1.0f), _mm256_castsi256_ps(*off));
}

/* Eight elements: the results to r, and the bit mask of the lanes that
   need the scalar form (repdl__gelu_sel8's slow lanes and the lanes in
   the domain that fail the rounding test). */
__attribute__((always_inline, target("avx2,fma"))) static inline int
repdl__gelu_v8(const float *xs, float *r, const double *C)
{
    __m256i sel, sp, slow, off;
    __m256 xv = repdl__gelu_sel8(xs, &sel, &sp, &slow, &off), res;
    int ok0, ok1, offm;
    __m128 r0 = repdl__gelu_vround(repdl__gelu_v4(_mm256_castps256_ps128(xv), C), &ok0);
    __m128 r1 = repdl__gelu_vround(repdl__gelu_v4(_mm256_extractf128_ps(xv, 1), C), &ok1);
    res = _mm256_blendv_ps(_mm256_insertf128_ps(_mm256_castps128_ps256(r0), r1, 1),
                           _mm256_castsi256_ps(sp), _mm256_castsi256_ps(sel));
    _mm256_storeu_ps(r, res);
    offm = _mm256_movemask_ps(_mm256_castsi256_ps(off));
    return (_mm256_movemask_ps(_mm256_castsi256_ps(slow)) | (~(ok0 | ok1 << 4) & ~offm)) & 0xff;
}

/* repdl__gelu_v4 on eight lanes (AVX-512F), the same operations */
__attribute__((always_inline, target("avx512f,avx2,fma"))) static inline __m512d
repdl__gelu_v8_512(__m256 xf, const double *C)
{
    __m512d xd = _mm512_cvtps_pd(xf), u = _mm512_abs_pd(xd);
    const __m512d shift = _mm512_set1_pd(6755399441055744.0);
    __m512d t, h, a, z, kd, r, p, e, q;
    int k;
    t = _mm512_div_pd(_mm512_sub_pd(u, _mm512_set1_pd(3.125)), _mm512_add_pd(u, _mm512_set1_pd(6.0)));
    h = _mm512_fmadd_pd(_mm512_set1_pd(C[18]), t, _mm512_set1_pd(C[17]));
    for (k = 16; k >= 0; k--) h = _mm512_fmadd_pd(h, t, _mm512_set1_pd(C[k]));
    a = _mm512_mul_pd(_mm512_mul_pd(u, u), _mm512_set1_pd(-0.5));
    z = _mm512_fmadd_pd(a, _mm512_set1_pd(1.4426950408889634), shift);
    kd = _mm512_sub_pd(z, shift);
    r = _mm512_fnmadd_pd(kd, _mm512_set1_pd(0.6931471805599453), a);
    r = _mm512_fnmadd_pd(kd, _mm512_set1_pd(2.3190468138462996e-17), r);
    p = _mm512_fmadd_pd(_mm512_set1_pd(C[30]), r, _mm512_set1_pd(C[29]));
    for (k = 28; k >= 19; k--) p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(C[k]));
    e = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_castpd_si512(p),
                                             _mm512_slli_epi64(_mm512_castpd_si512(z), 52)));
    q = _mm512_mul_pd(e, h);
    return _mm512_mul_pd(xd, _mm512_mask_blend_pd((__mmask8)_mm256_movemask_ps(xf),
                                                  _mm512_sub_pd(_mm512_set1_pd(1.0), q), q));
}

/* repdl__gelu_v8 by the AVX-512F evaluation */
__attribute__((always_inline, target("avx512f,avx2,fma"))) static inline int
repdl__gelu_v8_avx512(const float *xs, float *r, const double *C)
{
    __m256i sel, sp, slow, off;
    __m256 xv = repdl__gelu_sel8(xs, &sel, &sp, &slow, &off), res;
    __m512d y = repdl__gelu_v8_512(xv, C);
    /* repdl__round_ok_normal(y, REPDL__GELU_VEC_C) on the low words */
    __m512i v = _mm512_and_si512(_mm512_add_epi64(_mm512_slli_epi64(_mm512_castpd_si512(y), 3),
                                                  _mm512_set1_epi64(0x80000000 + 8 * REPDL__GELU_VEC_C)),
                                 _mm512_set1_epi64(0xffffffff));
    int ok = (int)_mm512_cmpgt_epu64_mask(v, _mm512_set1_epi64(16 * REPDL__GELU_VEC_C));
    int offm = _mm256_movemask_ps(_mm256_castsi256_ps(off));
    res = _mm256_blendv_ps(_mm512_cvtpd_ps(y), _mm256_castsi256_ps(sp), _mm256_castsi256_ps(sel));
    _mm256_storeu_ps(r, res);
    return (_mm256_movemask_ps(_mm256_castsi256_ps(slow)) | (~ok & ~offm)) & 0xff;
}

/* out[i] = scalar(x[i]) by eight-lane steps of V8 (repdl__gelu_v8 or
   repdl__gelu_v8_avx512), the flagged lanes by the scalar form */
#define REPDL__GELU_VEC_LOOP(V8)                                                      \
    size_t i0;                                                                        \
    int l;                                                                            \
    for (i0 = 0; i0 < n; i0 += 8) {                                                   \
        float xb[8], r[8];                                                            \
        size_t m = n - i0 < 8 ? n - i0 : 8;                                           \
        const float *xs = x + i0;                                                     \
        int bad;                                                                      \
        if (m < 8) {                                                                  \
            for (l = 0; l < 8; l++) xb[l] = (size_t)l < m ? x[i0 + (size_t)l] : 1.0f; \
            xs = xb;                                                                  \
        }                                                                             \
        bad = V8(xs, r, C);                                                           \
        if (REPDL_UNLIKELY(bad))                                                      \
            for (l = 0; l < (int)m; l++)                                              \
                if (bad >> l & 1) r[l] = scalar(xs[l]);                               \
        memcpy(out + i0, r, m * sizeof r[0]);   /* after every read of x + i0 */      \
    }

__attribute__((target("avx2,fma"))) static inline void
repdl__gelu_vec_avx2(size_t n, const float *x, float *out, repdl__gelu_scalar_fn scalar)
{
    const double *C = repdl__gelu_vec_coeffs();
    REPDL__GELU_VEC_LOOP(repdl__gelu_v8)
}

__attribute__((target("avx512f,avx2,fma"))) static inline void
repdl__gelu_vec_avx512(size_t n, const float *x, float *out, repdl__gelu_scalar_fn scalar)
{
    const double *C = repdl__gelu_vec_coeffs();
    REPDL__GELU_VEC_LOOP(repdl__gelu_v8_avx512)
}
#undef REPDL__GELU_VEC_LOOP

/* ---- The backward pass (activation.h's repdl_gelu_backward_f32) ----
   g = RN32(Phi(x) + keep(x e RN(1/sqrt(2 pi)))), dx = canon(dy g), with
   Phi from Q(u) = repdl__gelu_q: not a correctly rounded function, so the
   vector form performs the scalar form's operations exactly, none fused
   (a barrier on every product that feeds an addition): u = |x|, w = u^2,
   e as repdl__act_exp, the piece p = [u >= 1] + [u >= 2] + [u >= 4] and
   its argument v (w, u, 1/u, 1/u), Horner over the piece's row of T
   (activation.h's repdl__gelu_q_coeffs, zero-padded to 16), then
   Q = 1/2 - u h (p = 0) or e h.  Horner starts at coefficient 14 of every
   row: coefficient 15 is 0 in all four rows, and on the rows of degree
   below 14 the steps from the padding down to the row's top coefficient
   give h = 0 + (+0) v = +0 and then exactly that coefficient, the scalar
   form's start.  Each lane's coefficient k comes from a register holding
   coefficient k of the four rows (T transposed, built once per call),
   picked by a permute on p: no loads per lane.
   |x| >= 15 and NaN by selects: g = 1 (x > 0), -0 (x < 0), NaN (NaN x,
   whose result is the canonical NaN either way).  No lane needs the
   scalar form. */

/* Tt[4 k + p] = T[16 p + k], k < 16, p < 4: coefficient k of the four
   rows side by side */
REPDL_FN void repdl__gelu_bwd_transpose(const double *T, double *Tt)
{
    int k, p;
    for (k = 0; k < 16; k++)
        for (p = 0; p < 4; p++) Tt[4 * k + p] = T[16 * p + k];
}

/* Lane l of the four doubles at c, where idx holds 2 l, 2 l + 1 in each
   64-bit lane */
#define REPDL__GELU_PICK(c, idx) \
    _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(_mm256_loadu_pd(c)), (idx)))

/* Phi(x) + keep(x e RN(1/sqrt(2 pi))) in double on four lanes of xf, each
   |x| < 15 (the others: any stand-in below 15); Tt as
   repdl__gelu_bwd_transpose makes it */
__attribute__((always_inline, target("avx2,fma"))) static inline __m256d
repdl__gelu_bwd_gd(__m128 xs, const double *Tt)
{
    const __m256d one = _mm256_set1_pd(1.0);
    __m128 a = _mm_and_ps(xs, _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)));
    __m256d u = _mm256_cvtps_pd(a), xd = _mm256_cvtps_pd(xs);
    __m256d w = _mm256_mul_pd(u, u), e, v, h, q, t, phi, prod;
    __m256d ge1 = _mm256_cmp_pd(u, one, _CMP_GE_OQ);
    __m256d ge2 = _mm256_cmp_pd(u, _mm256_set1_pd(2.0), _CMP_GE_OQ);
    __m256d ge4 = _mm256_cmp_pd(u, _mm256_set1_pd(4.0), _CMP_GE_OQ);
    __m256i p, d, idx;
    int k;
    /* p = [u >= 1] + [u >= 2] + [u >= 4] per 64-bit lane (each mask is
       -1), then the permute's indices 2 p (low word), 2 p + 1 (high) */
    p = _mm256_sub_epi64(_mm256_sub_epi64(_mm256_sub_epi64(_mm256_setzero_si256(),
                                                           _mm256_castpd_si256(ge1)),
                                          _mm256_castpd_si256(ge2)),
                         _mm256_castpd_si256(ge4));
    d = _mm256_slli_epi64(p, 1);
    idx = _mm256_add_epi64(_mm256_or_si256(d, _mm256_slli_epi64(d, 32)),
                           _mm256_set1_epi64x((long long)1 << 32));
    e = repdl__gelu_vexp(_mm256_mul_pd(w, _mm256_set1_pd(-0.5)));
    v = _mm256_blendv_pd(w, u, ge1);
    v = _mm256_blendv_pd(v, _mm256_div_pd(one, u), ge2);
    h = REPDL__GELU_PICK(Tt + 4 * 14, idx);
    for (k = 13; k >= 0; k--) {
        t = _mm256_mul_pd(h, v);
        REPDL__VKEEP(t);
        h = _mm256_add_pd(REPDL__GELU_PICK(Tt + 4 * k, idx), t);
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
repdl__gelu_bwd_v4(__m128 xf, __m128 dyf, const double *Tt)
{
    __m128i ax = _mm_and_si128(_mm_castps_si128(xf), _mm_set1_epi32(0x7fffffff));
    __m128i big = _mm_cmpgt_epi32(ax, _mm_set1_epi32(0x416fffff));      /* |x| >= 15, inf, NaN */
    __m128i isnan = _mm_cmpgt_epi32(ax, _mm_set1_epi32(0x7f800000));
    __m128 xs = _mm_blendv_ps(xf, _mm_set1_ps(1.0f), _mm_castsi128_ps(big));   /* stand-in */
    __m128 g = _mm256_cvtpd_ps(repdl__gelu_bwd_gd(xs, Tt)), gs, r;
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
    double Tt[64];
    size_t i0, l;
    repdl__gelu_bwd_transpose(T, Tt);
    /* eight lanes a step (two independent halves), then four, then the
       tail padded with a stand-in */
    for (i0 = 0; i0 + 8 <= n; i0 += 8) {
        __m128 r0 = repdl__gelu_bwd_v4(_mm_loadu_ps(x + i0), _mm_loadu_ps(dy + i0), Tt);
        __m128 r1 = repdl__gelu_bwd_v4(_mm_loadu_ps(x + i0 + 4), _mm_loadu_ps(dy + i0 + 4), Tt);
        _mm_storeu_ps(dx + i0, r0);   /* after every read of x + i0, dy + i0 */
        _mm_storeu_ps(dx + i0 + 4, r1);
    }
    if (i0 + 4 <= n) {
        _mm_storeu_ps(dx + i0, repdl__gelu_bwd_v4(_mm_loadu_ps(x + i0), _mm_loadu_ps(dy + i0), Tt));
        i0 += 4;
    }
    if (i0 < n) {
        float xb[4] = {1.0f, 1.0f, 1.0f, 1.0f}, db[4] = {0.0f, 0.0f, 0.0f, 0.0f}, r[4];
        for (l = 0; i0 + l < n; l++) {
            xb[l] = x[i0 + l];
            db[l] = dy[i0 + l];
        }
        _mm_storeu_ps(r, repdl__gelu_bwd_v4(_mm_loadu_ps(xb), _mm_loadu_ps(db), Tt));
        memcpy(dx + i0, r, (n - i0) * sizeof r[0]);
    }
}

/* For tests: g[i] = repdl__gelu_bwd_gd of x[i], i < n (each |x[i]| < 15),
   the double the backward rounds. */
__attribute__((target("avx2,fma"))) static inline void
repdl__gelu_bwd_g_avx2(size_t n, const float *x, double *g, const double *T)
{
    double Tt[64];
    size_t i0, l;
    repdl__gelu_bwd_transpose(T, Tt);
    for (i0 = 0; i0 < n; i0 += 4) {
        float xb[4] = {1.0f, 1.0f, 1.0f, 1.0f};
        double gb[4];
        for (l = 0; l < 4 && i0 + l < n; l++) xb[l] = x[i0 + l];
        _mm256_storeu_pd(gb, repdl__gelu_bwd_gd(_mm_loadu_ps(xb), Tt));
        for (l = 0; l < 4 && i0 + l < n; l++) g[i0 + l] = gb[l];
    }
}

/* ---- The backward pass with AVX-512F: the same operations on eight
   lanes per vector (the picks by vpermpd on p, the selects by masks) ---- */

#define REPDL__VKEEP512(v) __asm__("" : "+v"(v))

/* repdl__gelu_vexp on eight lanes, operation for operation */
__attribute__((always_inline, target("avx512f,avx2,fma"))) static inline __m512d
repdl__gelu_vexp512(__m512d a)
{
    const __m512d shift = _mm512_set1_pd(6755399441055744.0);
    __m512d p1 = _mm512_mul_pd(a, _mm512_set1_pd(369.3299304675746));
    __m512d z, kd, r, q, r2, p, s, sr, sr2, t;
    __m512i ki, j, tb;
    uint64_t jj[8];
    REPDL__VKEEP512(p1);
    z = _mm512_add_pd(p1, shift);
    ki = _mm512_castpd_si512(z);
    j = _mm512_and_si512(ki, _mm512_set1_epi64(255));
    kd = _mm512_sub_pd(z, shift);
    q = _mm512_mul_pd(kd, _mm512_set1_pd(0.0027076061740558544));
    REPDL__VKEEP512(q);
    r = _mm512_sub_pd(a, q);
    q = _mm512_mul_pd(kd, _mm512_set1_pd(6.432011555819173e-15));
    REPDL__VKEEP512(q);
    r = _mm512_sub_pd(r, q);
    /* j stored whole and read back lane by lane (forwarded), the entries
       inserted into a vector */
    _mm512_storeu_si512((void *)jj, j);
    tb = _mm512_set_epi64((long long)repdl__exp2_256_bits(jj[7]), (long long)repdl__exp2_256_bits(jj[6]),
                          (long long)repdl__exp2_256_bits(jj[5]), (long long)repdl__exp2_256_bits(jj[4]),
                          (long long)repdl__exp2_256_bits(jj[3]), (long long)repdl__exp2_256_bits(jj[2]),
                          (long long)repdl__exp2_256_bits(jj[1]), (long long)repdl__exp2_256_bits(jj[0]));
    s = _mm512_castsi512_pd(_mm512_add_epi64(tb, _mm512_slli_epi64(ki, 44)));
    r2 = _mm512_mul_pd(r, r);
    t = _mm512_mul_pd(r, _mm512_set1_pd(0.16666668003889068));
    REPDL__VKEEP512(t);
    p = _mm512_add_pd(_mm512_set1_pd(0.5000000000000233), t);
    t = _mm512_mul_pd(r2, _mm512_set1_pd(0.0416666536383358));
    REPDL__VKEEP512(t);
    p = _mm512_add_pd(p, t);
    sr = _mm512_mul_pd(s, r);
    REPDL__VKEEP512(sr);
    sr2 = _mm512_mul_pd(s, r2);
    t = _mm512_mul_pd(sr2, p);
    REPDL__VKEEP512(t);
    return _mm512_add_pd(s, _mm512_add_pd(sr, t));
}

/* dx = canon(dy g) on eight lanes, as repdl__gelu_bwd_v4 (Tt as
   repdl__gelu_bwd_transpose makes it) */
__attribute__((always_inline, target("avx512f,avx2,fma"))) static inline __m256
repdl__gelu_bwd_v8_512(__m256 xf, __m256 dyf, const double *Tt, __m512d *gout)
{
    const __m512d one = _mm512_set1_pd(1.0);
    const __m512i one64 = _mm512_set1_epi64(1);
    __m256i ax = _mm256_and_si256(_mm256_castps_si256(xf), _mm256_set1_epi32(0x7fffffff));
    __m256i big = _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x416fffff));   /* |x| >= 15, inf, NaN */
    __m256i isnan = _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x7f800000));
    __mmask8 negm = (__mmask8)_mm256_movemask_ps(xf);                        /* sign bits */
    __m256 xs = _mm256_blendv_ps(xf, _mm256_set1_ps(1.0f), _mm256_castsi256_ps(big));   /* stand-in */
    __m512d u = _mm512_abs_pd(_mm512_cvtps_pd(xs)), xd = _mm512_cvtps_pd(xs);
    __m512d w = _mm512_mul_pd(u, u), e, v, h, q, t, phi, prod, g;
    __mmask8 ge1 = _mm512_cmp_pd_mask(u, one, _CMP_GE_OQ);
    __mmask8 ge2 = _mm512_cmp_pd_mask(u, _mm512_set1_pd(2.0), _CMP_GE_OQ);
    __mmask8 ge4 = _mm512_cmp_pd_mask(u, _mm512_set1_pd(4.0), _CMP_GE_OQ);
    __m512i p = _mm512_setzero_si512();
    __m256 gf, gs, r;
    int k;
    p = _mm512_mask_add_epi64(p, ge1, p, one64);
    p = _mm512_mask_add_epi64(p, ge2, p, one64);
    p = _mm512_mask_add_epi64(p, ge4, p, one64);
    e = repdl__gelu_vexp512(_mm512_mul_pd(w, _mm512_set1_pd(-0.5)));
    v = _mm512_mask_blend_pd(ge1, w, u);
    v = _mm512_mask_blend_pd(ge2, v, _mm512_div_pd(one, u));
    h = _mm512_permutexvar_pd(p, _mm512_broadcast_f64x4(_mm256_loadu_pd(Tt + 4 * 14)));
    for (k = 13; k >= 0; k--) {
        t = _mm512_mul_pd(h, v);
        REPDL__VKEEP512(t);
        h = _mm512_add_pd(_mm512_permutexvar_pd(p, _mm512_broadcast_f64x4(_mm256_loadu_pd(Tt + 4 * k))), t);
    }
    t = _mm512_mul_pd(u, h);
    REPDL__VKEEP512(t);
    q = _mm512_mul_pd(e, h);
    REPDL__VKEEP512(q);
    q = _mm512_mask_blend_pd(ge1, _mm512_sub_pd(_mm512_set1_pd(0.5), t), q);
    /* Phi: 1 - Q for x >= +0 (sign bit clear), Q otherwise */
    phi = _mm512_mask_blend_pd(negm, _mm512_sub_pd(one, q), q);
    prod = _mm512_mul_pd(_mm512_mul_pd(xd, e), _mm512_set1_pd(0.3989422804014327));
    REPDL__VKEEP512(prod);
    g = _mm512_add_pd(phi, prod);
    if (gout) *gout = g;
    gf = _mm512_cvtpd_ps(g);
    /* the selects: 1, -0, NaN */
    gs = _mm256_blendv_ps(_mm256_set1_ps(1.0f), _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u)), xf);
    gs = _mm256_blendv_ps(gs, _mm256_castsi256_ps(_mm256_set1_epi32((int)REPDL_NAN_BITS)),
                          _mm256_castsi256_ps(isnan));
    gf = _mm256_blendv_ps(gf, gs, _mm256_castsi256_ps(big));
    r = _mm256_mul_ps(dyf, gf);
    return _mm256_blendv_ps(r, _mm256_castsi256_ps(_mm256_set1_epi32((int)REPDL_NAN_BITS)),
                            _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
}

__attribute__((target("avx512f,avx2,fma"))) static inline void
repdl__gelu_bwd_vec_avx512(size_t n, const float *x, const float *dy, float *dx, const double *T)
{
    double Tt[64];
    size_t i0, l;
    repdl__gelu_bwd_transpose(T, Tt);
    /* sixteen lanes a step (two independent halves), then eight, then the
       tail padded with a stand-in */
    for (i0 = 0; i0 + 16 <= n; i0 += 16) {
        __m256 r0 = repdl__gelu_bwd_v8_512(_mm256_loadu_ps(x + i0), _mm256_loadu_ps(dy + i0), Tt, NULL);
        __m256 r1 = repdl__gelu_bwd_v8_512(_mm256_loadu_ps(x + i0 + 8), _mm256_loadu_ps(dy + i0 + 8), Tt,
                                           NULL);
        _mm256_storeu_ps(dx + i0, r0);   /* after every read of x + i0, dy + i0 */
        _mm256_storeu_ps(dx + i0 + 8, r1);
    }
    if (i0 + 8 <= n) {
        _mm256_storeu_ps(dx + i0, repdl__gelu_bwd_v8_512(_mm256_loadu_ps(x + i0), _mm256_loadu_ps(dy + i0),
                                                         Tt, NULL));
        i0 += 8;
    }
    if (i0 < n) {
        float xb[8], db[8], r[8];
        for (l = 0; l < 8; l++) {
            xb[l] = i0 + l < n ? x[i0 + l] : 1.0f;
            db[l] = i0 + l < n ? dy[i0 + l] : 0.0f;
        }
        _mm256_storeu_ps(r, repdl__gelu_bwd_v8_512(_mm256_loadu_ps(xb), _mm256_loadu_ps(db), Tt, NULL));
        memcpy(dx + i0, r, (n - i0) * sizeof r[0]);
    }
}

/* For tests: as repdl__gelu_bwd_g_avx2, by the AVX-512F form */
__attribute__((target("avx512f,avx2,fma"))) static inline void
repdl__gelu_bwd_g_avx512(size_t n, const float *x, double *g, const double *T)
{
    double Tt[64];
    size_t i0, l;
    repdl__gelu_bwd_transpose(T, Tt);
    for (i0 = 0; i0 < n; i0 += 8) {
        float xb[8], db[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        double gb[8];
        __m512d gv;
        for (l = 0; l < 8; l++) xb[l] = i0 + l < n ? x[i0 + l] : 1.0f;
        (void)repdl__gelu_bwd_v8_512(_mm256_loadu_ps(xb), _mm256_loadu_ps(db), Tt, &gv);
        _mm512_storeu_pd(gb, gv);
        for (l = 0; l < 8 && i0 + l < n; l++) g[i0 + l] = gb[l];
    }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif /* REPDL__GELU_X86 */

/* out[i] = scalar(x[i]), i < n, where scalar is repdl_gelu_f32 (gelu.h),
   by the vector body: returns 1 when the CPU
   has it, 0 (nothing done: the caller loops over scalar) otherwise.  out
   may be x (in place), no other overlap. */
REPDL_FN int repdl__gelu_vec_array(size_t n, const float *x, float *out, repdl__gelu_scalar_fn scalar)
{
#if REPDL__GELU_X86
    int isa = repdl__gelu_vec_isa();
    if (isa == 2) {
        repdl__gelu_vec_avx512(n, x, out, scalar);
        return 1;
    }
    if (isa == 1) {
        repdl__gelu_vec_avx2(n, x, out, scalar);
        return 1;
    }
#endif
    (void)n; (void)x; (void)out; (void)scalar;
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
    int isa = repdl__gelu_vec_isa();
    if (isa == 2) {
        repdl__gelu_bwd_vec_avx512(n, x, dy, dx, T);
        return 1;
    }
    if (isa == 1) {
        repdl__gelu_bwd_vec_avx2(n, x, dy, dx, T);
        return 1;
    }
#endif
    (void)n; (void)x; (void)dy; (void)dx; (void)T;
    return 0;
}

REPDL_END_CODE
#endif /* REPDL_DETAIL_GELU_VEC_H */
