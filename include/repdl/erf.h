/* SPDX-License-Identifier: MIT */
/* repdl/erf.h: correctly rounded error function of a binary32 value.

   Accuracy: repdl_erf_f32(x) is erf(x) = 2/sqrt(pi) int_0^x e^(-t^2) dt
   rounded to nearest-even binary32 for every binary32 x, subnormal results
   included (erf(x) ~ 2x/sqrt(pi) for tiny x); erf(-x) = -erf(x) bit for bit,
   erf(+-0) = +-0, erf(+-inf) = +-1, NaN -> the canonical NaN 0x7fc00000.
   Proven by comparing all 2^32 inputs with MPFR (mpfr_erf), in contracted
   and uncontracted builds (docs/functions/erff.md).

   Algorithm, in double, on a = |x| (the sign is put back exactly at the end):
     a <  1/2:               erf(a) ~ a P0(a^2),   P0 of degree 11 (a^2 exact)
     (i+1)/4 <= a < (i+2)/4:  erf(a) ~ P_i(a - c_i), c_i = (i+1)/4 + 1/8,
                             i = 1..14, degree 11 (a - c_i exact)
   the 15 polynomials from Sollya (reference/gen/erff.sollya, relative error
   < 2^-54.13 each, supnorm), Horner in binary64: |y / erf(a) - 1| <
   2.52 2^-53 on every piece, fused or not (reference/gen/erff.py bounds the
   evaluation in exact rational arithmetic).  y is rounded to binary32 when a
   rounding test proves that correct (repdl__round_ok_normal of detail/cr.h,
   then repdl__round_ok); the few other inputs are listed with their
   correctly rounded results (MPFR) in detail/erff_hard.inc.
   Exactly handled, outside that path:
     a >= 0x1.f5a88ap+1:     erfc(a) < 2^-25, erf rounds to 1 (+-1, inf too;
                             reference/gen/erff.py finds the threshold);
     NaN:                    the canonical NaN.
   Tiny and subnormal x need nothing special: a P0(a^2) keeps its relative
   error bound down to the least subnormal (a^2 >= 2^-298 is a normal
   double), and the rounding test's conversion rounds to subnormals too.

   Also: repdl_erf_array_f32(n, x, out), the same results for an array;
   repdl_erf_bf16, repdl_erf_f16 and their array forms (bfloat16 and
   float16 bit patterns, half.h), each rounded once from y (below). */
#ifndef REPDL_ERF_H
#define REPDL_ERF_H

#include "config.h"
#include "detail/cr.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__erff_y's y on every path, including the
   2^-53 of repdl__round_ok's own products: 3.52 2^-53 (reference/gen/erff.py),
   rounded up. */
#define REPDL__ERFF_ERR 4.440892098500626e-16 /* 0x1p-51 */

/* The 15 polynomials (coefficients of degree 0 to 11; piece 0 in a^2,
   multiplied by a afterwards).  From reference/gen/erff.py. */
REPDL_FN const double *repdl__erff_coeffs(uint32_t i)
{
    static const double C[15][12] = {
        {1.1283791670955126, -0.37612638903183215, 0.11283791670899533, -0.02686617061856105, 0.005223976919583024, -0.0008548212416997384, 0.00012043378967934233, -1.4108117598399491e-05, -1.9999570466522587e-06, 1.0049277209886254e-05, -1.629419597442545e-05, 1.1324190586392315e-05},
        {0.623240882188418, 0.763499535760605, -0.4771872098504118, -0.05567184114937987, 0.17645985365419634, -0.02741341100694167, -0.0413448352413962, 0.013909999952608592, 0.006686253199556743, -0.0036327721863322567, -0.0007353318145119056, 0.0006617739495368732},
        {0.7840750610598597, 0.5247450452901482, -0.45915191462892524, 0.09292360177012915, 0.11239656245395285, -0.06721587737961877, -0.010367789084013816, 0.01859572589217896, -0.0018458570761442905, -0.003256785691242063, 0.0008860846797273918, 0.00038730007022617176},
        {0.8883882317017078, 0.3182739585007693, -0.3580582033133836, 0.16245233298478723, 0.027973297142151653, -0.06132368361208072, 0.015536833799261926, 0.009606895217342384, -0.0060310992514033684, -0.00036027092270610514, 0.0011455917758137746, -0.00017381818966938765},
        {0.9481700727820903, 0.1703597736875156, -0.23424468882031957, 0.15793770685614, -0.030500610528988892, -0.030605976271648558, 0.022161236155788192, -0.0014190618226100696, -0.004261101797790977, 0.0015778598363501333, 0.0003259690697812706, -0.000336743678312091},
        {0.9784437332399837, 0.08047225902251116, -0.13076742091160037, 0.11484061964670791, -0.049718863153131586, -0.002134924839989387, 0.014414780530763498, -0.0061842616427362695, -0.000576521771366784, 0.00141069583377816, -0.00035363428812083895, -0.00012604768953084752},
        {0.9919900576701199, 0.03354582842421607, -0.06289842829536572, 0.06744109256118713, -0.04225988152556037, 0.011462583364223285, 0.004105189378625191, -0.004928393882003917, 0.001430343663019242, 0.00036226319366082494, -0.0003854802908279038, 7.299486076156566e-05},
        {0.9973459706405177, 0.012340820614333696, -0.026224243805467833, 0.03303740518628827, -0.02636082840529573, 0.012495482591861748, -0.0018214131243786595, -0.0018692573456187379, 0.0013833854906818638, -0.0002897708038205965, -0.00012411204437908825, 9.440758091754594e-05},
        {0.9992170617821089, 0.004006477861670219, -0.009515384921485627, 0.013730533505099264, -0.013133213556461328, 0.008357392833654203, -0.0031140801345323644, 0.000123269654935142, 0.0005941893879648051, -0.00033753072169421535, 5.231376882063623e-05, 3.176143867095533e-05},
        {0.9997946242638588, 0.001147875125882675, -0.0030131722054501883, 0.004890426317562798, -0.005414293803641387, 0.004217880601613494, -0.002246834306192883, 0.0006808681252598328, 3.467690250329095e-05, -0.000152603848643927, 7.302120642094906e-05, -1.0131923370898634e-05},
        {0.9999521451602562, 0.0002902282828624988, -0.0008344063132105175, 0.0015025360060684533, -0.0018817600778760096, 0.0017132632801286443, -0.0011400736093769251, 0.0005285699981476867, -0.0001356737633911486, -1.6136761865001583e-05, 3.49743031890788e-05, -1.4832341324166452e-05},
        {0.9999901032653747, 6.475868323471284e-05, -0.00020237088509160415, 0.0004000197828979196, -0.000557573955157167, 0.0005769615014219964, -0.00045231427942990174, 0.00026648105745394687, -0.00011132220451679356, 2.5450413350670436e-05, 5.311962803215269e-06, -6.371269149209736e-06},
        {0.9999981847185726, 1.2751740799766679e-05, -4.3037125254027e-05, 9.258295142958158e-05, -0.00014188800250724559, 0.0001637739452001927, -0.00014641175046495861, 0.00010218608713924828, -5.466308886326705e-05, 2.12723587052245e-05, -8.837133888463667e-06, -8.350119953914381e-07},
        {0.9999997048598075, 2.2159202846339967e-06, -8.032711036672702e-06, 1.8673744897488685e-05, -3.116859053725264e-05, 3.959233575406529e-05, -3.952936937745133e-05, 3.151406085381548e-05, -2.0072828604293988e-05, 1.0059125821233814e-05, -4.09627567539844e-06, 7.092387612437592e-07},
        {0.999999957486056, 3.398223817807514e-07, -1.3168117941952712e-06, 3.288489507236936e-06, -5.932487952330543e-06, 8.208845395829333e-06, -9.024486948706132e-06, 8.033158471578719e-06, -5.631502279723752e-06, 3.4739427221339312e-06, -6.719043920139815e-06, 6.125801117680504e-07},
    };
    return C[i];
}

/* y ~ erf(a) for a binary32 0 <= a < 0x1.f5a88ap+1 (no special-case test). */
REPDL_FN double repdl__erff_core(float a)
{
    double ad = repdl__f2d(a);
    /* i = max(floor(4a) - 1, 0): 4a is exact, its truncation is floor */
    int32_t k = repdl__f2i_rz(repdl__fmul(a, 4.0f)) - 1;
    uint32_t i = k > 0 ? (uint32_t)k : 0u;
    const double *c = repdl__erff_coeffs(i);
    /* v = a^2 (exact, 48 bits) on piece 0, a - c_i on the others (exact:
       a and c_i are multiples of 2^-23 and 2^-3 in [1/2, 4), |a - c_i| <= 1/8) */
    double v = i == 0u ? repdl__dmul(ad, ad)
                       : repdl__dsub(ad, repdl__dadd(repdl__dmul((double)i, 0.25), 0.375));
    /* Horner: each product and sum rounds once (2^-53 of its size); the
       bound of reference/gen/erff.py counts both, a contraction drops one */
    double h = c[11];
    h = repdl__dadd(c[10], repdl__dmul(h, v));
    h = repdl__dadd(c[9], repdl__dmul(h, v));
    h = repdl__dadd(c[8], repdl__dmul(h, v));
    h = repdl__dadd(c[7], repdl__dmul(h, v));
    h = repdl__dadd(c[6], repdl__dmul(h, v));
    h = repdl__dadd(c[5], repdl__dmul(h, v));
    h = repdl__dadd(c[4], repdl__dmul(h, v));
    h = repdl__dadd(c[3], repdl__dmul(h, v));
    h = repdl__dadd(c[2], repdl__dmul(h, v));
    h = repdl__dadd(c[1], repdl__dmul(h, v));
    h = repdl__dadd(c[0], repdl__dmul(h, v));
    /* piece 0: one more rounding (counted by reference/gen/erff.py) */
    return i == 0u ? repdl__dmul(ad, h) : h;
}

/* 1 with *y ~ erf(x), |*y / erf(x) - 1| < REPDL__ERFF_ERR - 2^-53, when
   |x| < 0x1.f5a88ap+1; 0 for the special cases that repdl_erf_f32 answers
   exactly: NaN, |x| >= 0x1.f5a88ap+1 (+-1, infinities included). */
REPDL_FN int repdl__erff_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    double r;
    if (REPDL_UNLIKELY(ax >= 0x407ad445u)) return 0;
    r = repdl__erff_core(repdl__asfloat(ax));
    *y = repdl__asdouble(repdl__asuint64(r) | ((uint64_t)(ux >> 31) << 63));   /* odd, exact */
    return 1;
}

/* erf(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_erf_f32(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__erff_y(x, &y))) {
        uint32_t ux = repdl__asuint(x);
        if ((ux & 0x7fffffffu) > 0x7f800000u) return repdl__nanf();
        return repdl__asfloat((ux & 0x80000000u) | 0x3f800000u);        /* +-1 */
    }
    /* |x| >= 2^-126: |erf(x)| > 1.128 2^-126, a normal binary32; E = 2^-51
       gives c = 4 (detail/cr.h) */
    if (REPDL_LIKELY(((repdl__asuint(x) & 0x7fffffffu) >= 0x00800000u) & repdl__round_ok_normal(y, 4u)))
        return repdl__d2f(y);
    if (REPDL_LIKELY(repdl__round_ok(y, REPDL__ERFF_ERR))) return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/erff_hard.inc"
        };
        return repdl__hard_lookup(tab, (int)(sizeof tab / sizeof tab[0]), x, y);
    }
}

/* out[i] = repdl_erf_f32(x[i]), 0 <= i < n, bit for bit (element by
   element, REPDL__SCALAR_ARRAY of detail/cr.h); out == x (in place) is
   fine, any other overlap is not; n = 0 accepts NULL. */
REPDL_API void repdl_erf_array_f32(size_t n, const float *x, float *out)
{
    REPDL__SCALAR_ARRAY(n, x, out, repdl_erf_f32);
}

/* ---- bfloat16 and float16 (half.h's bit patterns) ----
   erf(x) rounded once, directly from y of repdl__erff_y, to the 16-bit
   format of x (repdl__d_to_h): no binary32 rounding in between (which
   would be a double rounding: wrong on the inputs tests/half/test_half_fn.c
   counts).  Why one rounding of y is correct in every build: the test
   checks with MPFR, for all 2^16 inputs of each format, that erf(x) lies
   farther than E = REPDL__ERFF_ERR (the bound of y on every path, fused or
   not) from every rounding boundary of the format (the subnormal ones
   included: erf(x) ~ 1.13 x is subnormal for subnormal x), or is exact and
   equal to y, sign included (erf(+-0) = +-0: y = +-0 P0(0)).  Outside
   repdl__erff_y's domain: NaN -> the format's NaN; |x| >= 0x1.f5a88ap+1,
   +-inf included: 1 - |erf(x)| < 2^-25, far below half an ulp of 1 in
   either format (2^-9, 2^-12): +-1, as repdl_erf_f32, converted exactly. */
REPDL_FN uint32_t repdl__erf_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__erff_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__f32_to_h(repdl_erf_f32(x), fmt);
}

/* erf(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_erf_bf16(uint16_t x) { return (uint16_t)repdl__erf_h(x, REPDL__BF16); }
/* erf(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_erf_f16(uint16_t x) { return (uint16_t)repdl__erf_h(x, REPDL__F16); }
/* out[i] = repdl_erf_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API void repdl_erf_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__BF16, repdl__erf_h);
}
/* out[i] = repdl_erf_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API void repdl_erf_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__F16, repdl__erf_h);
}

REPDL_END_CODE
#endif /* REPDL_ERF_H */
