/* SPDX-License-Identifier: MIT */
/* repdl/activation.h: activation functions and their backward passes
   (float32), reproducible: the same bits on every machine, compiler, flag
   set and vector width (docs/nn-act-pool.md gives each definition).

   Array forms (in place allowed: y == x, dx == dy or dx == x; any other
   overlap is not; n = 0 accepts NULL):
     repdl_F_f32(n, x, y)                 y[i]  = repdl_Ff(x[i])
     repdl_F_backward_f32(n, x, dy, dx)   dx[i] = repdl_F_backwardf(x[i], dy[i])
   for F in relu, sigmoid, silu, gelu (erf form), gelu_tanh, softplus.
   Every NaN output is the canonical 0x7fc00000.

   Accuracy (docs/nn-act-pool.md):
     sigmoid            correctly rounded (sigmoid.h, all 2^32 inputs proven);
     relu               exact;
     silu, gelu_tanh,   reproducible, not correctly rounded: the float
     softplus backward, operation sequences written below, built on the
     all backward        correctly rounded sigmoid;
     gelu, softplus     reproducible, not correctly rounded: evaluated in
                        double (relative error < 2^-44 before the final
                        rounding, measured by reference/gen/nn_act.py;
                        gelu's backward factor near its zero x = -0.7518:
                        absolute error about 2^-52), rounded once.
   Contraction: every product that feeds an addition is behind
   repdl__fkeep / repdl__dkeep, or the sequence says repdl__fmaf (a fused
   multiply-add that is part of the definition, identical everywhere). */
#ifndef REPDL_ACTIVATION_H
#define REPDL_ACTIVATION_H

#include "config.h"
#include "exp.h"
#include "sigmoid.h"
REPDL_BEGIN_CODE

/* ---- relu: max(x, +0); NaN -> NaN ---- */
/* y = x if x > 0, NaN if x is NaN, +0 otherwise (-0 and negatives). */
REPDL_API float repdl_relu_f32(float x)
{
    return repdl__fgt(x, 0.0f) ? x : (repdl__fne(x, x) ? repdl__nanf() : 0.0f);
}
/* dx = dy if x > 0; NaN if x is NaN; +0 otherwise (whatever dy). */
REPDL_API float repdl_relu_backward_f32(float x, float dy)
{
    return repdl__fgt(x, 0.0f) ? repdl__canon(dy) : (repdl__fne(x, x) ? repdl__nanf() : 0.0f);
}

/* ---- sigmoid: correctly rounded (sigmoid.h) ---- */
/* dx = dy * (sigma(x) sigma(-x)): sigma'(x) = sigma(x) (1 - sigma(x)) =
   sigma(x) sigma(-x), both factors correctly rounded (no cancellation). */
REPDL_API float repdl_sigmoid_backward_f32(float x, float dy)
{
    float g = repdl__fmul(repdl_sigmoid_f32(x), repdl_sigmoid_f32(repdl__fneg(x)));
    return repdl__canon(repdl__fmul(dy, g));
}

/* ---- silu: x sigma(x) ---- */
/* y = x * sigma(x) (one rounding after the correctly rounded sigma);
   silu(-inf) = -0 (the limit; the formula would give -inf * 0). */
REPDL_API float repdl_silu_f32(float x)
{
    if (REPDL_UNLIKELY(repdl__asuint(x) == 0xff800000u)) return -0.0f;
    return repdl__canon(repdl__fmul(x, repdl_sigmoid_f32(x)));
}
/* silu'(x) = sigma(x) (1 + x sigma(-x)):
     g = sigma(x) * fmaf(x, sigma(-x), 1);  dx = dy * g.
   g(+inf) = 1, g(-inf) = -0 (the limits, which the formula reaches for
   large finite x too). */
REPDL_API float repdl_silu_backward_f32(float x, float dy)
{
    float g;
    uint32_t ux = repdl__asuint(x);
    if (REPDL_UNLIKELY((ux & 0x7fffffffu) == 0x7f800000u))
        g = ux == 0x7f800000u ? 1.0f : -0.0f;
    else
        g = repdl__fmul(repdl_sigmoid_f32(x), repdl__fmaf(x, repdl_sigmoid_f32(repdl__fneg(x)), 1.0f));
    return repdl__canon(repdl__fmul(dy, g));
}

/* ---- gelu, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
   = x sigma(w), w = 2 sqrt(2/pi) (x + 0.044715 x^3), since
   1 + tanh(z) = 2 sigma(2z) exactly: the same function without the
   cancellation of 1 + tanh for negative x.  Sequence (binary32):
     x2 = x*x; x3 = x2*x; i = x + keep(K1*x3); w = C2*i; y = x * sigma(w)
   K1 = RN(0.044715), C2 = RN(2 sqrt(2/pi)).  gelu_tanh(-inf) = -0. ---- */
#define REPDL__GELU_K1 0.044715f /* 0x1.6e4e26p-5f */  /* RN32(0.044715) */
#define REPDL__GELU_K3 0.134145f /* 0x1.12ba9ep-3f */  /* RN32(3 * 0.044715) = RN32(0.134145) */
#define REPDL__GELU_C2 1.5957692f /* 0x1.988454p+0f */  /* RN32(2 sqrt(2/pi)) */
REPDL_FN float repdl__gelu_tanh_w(float x, float *x2)
{
    float x3, i;
    *x2 = repdl__fmul(x, x);
    x3 = repdl__fmul(*x2, x);
    i = repdl__fadd(x, repdl__fkeep(repdl__fmul(REPDL__GELU_K1, x3)));
    return repdl__fmul(REPDL__GELU_C2, i);
}
REPDL_API float repdl_gelu_tanh_f32(float x)
{
    float x2;
    if (REPDL_UNLIKELY(repdl__asuint(x) == 0xff800000u)) return -0.0f;
    return repdl__canon(repdl__fmul(x, repdl_sigmoid_f32(repdl__gelu_tanh_w(x, &x2))));
}
/* d/dx x sigma(w) = sigma(w) + x sigma(w) sigma(-w) w'(x),
   w'(x) = C2 (1 + 3 K1 x^2):
     s = sigma(w); sn = sigma(-w); dw = C2 * fmaf(K3, x2, 1);
     a = (x * s) * sn; g = fmaf(a, dw, s); dx = dy * g.
   |x| >= 2^32 (infinities included): g = 1 for x > 0, +0 for x < 0, the
   values the sequence gives just below 2^32 (where x2 would overflow). */
REPDL_API float repdl_gelu_tanh_backward_f32(float x, float dy)
{
    float x2, w, s, sn, dw, a, g;
    uint32_t ux = repdl__asuint(x);
    if (REPDL_UNLIKELY((ux & 0x7fffffffu) >= 0x4f800000u && (ux & 0x7fffffffu) <= 0x7f800000u)) {
        g = ux < 0x80000000u ? 1.0f : 0.0f;
    } else {
        w = repdl__gelu_tanh_w(x, &x2);
        s = repdl_sigmoid_f32(w);
        sn = repdl_sigmoid_f32(repdl__fneg(w));
        dw = repdl__fmul(REPDL__GELU_C2, repdl__fmaf(REPDL__GELU_K3, x2, 1.0f));
        a = repdl__fmul(repdl__fmul(x, s), sn);
        g = repdl__fmaf(a, dw, s);
    }
    return repdl__canon(repdl__fmul(dy, g));
}

/* ---- Double-precision helpers of gelu (erf form) and softplus ----
   No contraction can change them: every product that feeds an addition is
   behind repdl__dkeep. */

/* exp(a) in double for a double a, -110 <= a <= 0, that is either a
   binary32 value or -x^2/2 for a binary32 x (both make the reduction
   below exact, see exp.h's repdl__exp_reduce: a - k C_HI is a multiple of
   2^-56 below 2^-9 when k != 0).  The reduction and degree-4 polynomial of
   exp.h (reference/gen/expf.sollya), with dkeep barriers:
   |result / exp(a) - 1| < 1.9 2^-53 (reference/gen/expf.py's bound; the
   uncontracted path is one of the paths it covers). */
REPDL_FN double repdl__act_exp(double a)
{
    double z = repdl__dadd(repdl__dkeep(repdl__dmul(a, 369.3299304675746)), 6755399441055744.0);
    uint64_t ki = repdl__asuint64(z), j = ki & 255u;
    double kd = repdl__dsub(z, 6755399441055744.0 /* 0x1.8p52 */);
    double r = repdl__dsub(a, repdl__dkeep(repdl__dmul(kd, 0.0027076061740558544 /* 0x1.62e42fefap-9 */)));
    double s, r2, p, sr, sr2;
    r = repdl__dsub(r, repdl__dkeep(repdl__dmul(kd, 6.432011555819173e-15 /* 0x1.cf79abc9e3b3ap-48 */)));
    s = repdl__asdouble(repdl__exp2_256_bits(j) + (ki << 44));
    r2 = repdl__dmul(r, r);
    p = repdl__dadd(0.5000000000000233, repdl__dkeep(repdl__dmul(r, 0.16666668003889068)));
    p = repdl__dadd(p, repdl__dkeep(repdl__dmul(r2, 0.0416666536383358 /* 0x1.55554e56bbb14p-5 */)));
    sr = repdl__dkeep(repdl__dmul(s, r));
    sr2 = repdl__dmul(s, r2);
    return repdl__dadd(s, repdl__dadd(sr, repdl__dkeep(repdl__dmul(sr2, p))));
}

/* Horner c[0] + v (c[1] + v (... c[n-1])), products behind dkeep. */
REPDL_FN double repdl__act_horner(const double *c, int n, double v)
{
    double h = c[n - 1];
    int k;
    for (k = n - 2; k >= 0; k--) h = repdl__dadd(c[k], repdl__dkeep(repdl__dmul(h, v)));
    return h;
}

/* Q(u) = Phi(-u) = erfc(u / sqrt 2) / 2 for a binary32 0 <= u < 15, and
   *e = exp(-u^2/2).  Polynomials: reference/gen/nn_act.sollya (relative
   errors: P1 2^-53.8 (dirty), R1 2^-48.26, R2 2^-52.49, R3 2^-51.30
   (supnorm)).
     u < 1:       Q = 1/2 - u P1(u^2)       (P1 ~ erf(u/sqrt2)/(2u), Q > 0.158)
     1 <= u < 2:  Q = e R1(u)
     2 <= u < 4:  Q = e R2(1/u)
     u >= 4:      Q = e R3(1/u)
   |Q~ / Q - 1| < 2^-45 (reference/gen/nn_act.py measures it, with e's
   error and the evaluation's). */
REPDL_FN double repdl__gelu_q(double u, double *e)
{
    static const double P1[11] = {
        0.3989422804014327, -0.06649038006690723, 0.009973557010073532,
        -0.0011873282158456019, 0.00011543468955462453, -9.444662414146145e-06,
        6.659814828684324e-07, -4.1241488624332536e-08, 2.2841478758594596e-09,
        -1.167203022744101e-10, 5.227252589479909e-12};
    static const double R1[13] = {
        0.49999589797759914, -0.3989033720991461, 0.24982939833341958,
        -0.13252195252913576, 0.06165311880193879, -0.02545818830167389,
        0.009263781589221889, -0.00289836274912385, 0.0007493218639870174,
        -0.0001515920821662005, 2.2230217741390536e-05, -2.08203346974257e-06,
        9.287593035517013e-08 /* 0x1.8ee62a556d7eep-24 */};
    static const double R2[15] = {
        -3.256895254957147e-06, 0.39907329261219726, -0.002372457850640244,
        -0.37385351857433735, -0.16505259985049547, 1.817881821636288,
        -0.43490633854026794, -15.285143140092648, 57.06579300758222,
        -118.32403829806168, 164.0837785933804, -156.90363045271062,
        100.35143880460974, -38.905717359686314, 6.9431821781694385};
    static const double R3[15] = {
        -4.2153652643488886e-10, 0.39894233201554957, -2.910714805247264e-06,
        -0.39884200032945244, -0.002359725079959959, 1.2369701339488666,
        -0.5091699166497038, -1.0981217576303521, -35.50640260160858,
        234.31592917344253, -744.7515228529644, 1458.9978313088143,
        -1812.5714175193727, 1322.9015031317967, -434.1920086281164};
    double w = repdl__dmul(u, u);                    /* exact: u is a binary32 */
    *e = repdl__act_exp(repdl__dmul(w, -0.5));      /* -u^2/2, exact */
    if (u < 1.0)
        return repdl__dsub(0.5, repdl__dkeep(repdl__dmul(u, repdl__act_horner(P1, 11, w))));
    if (u < 2.0) return repdl__dkeep(repdl__dmul(*e, repdl__act_horner(R1, 13, u)));
    if (u < 4.0) return repdl__dkeep(repdl__dmul(*e, repdl__act_horner(R2, 15, repdl__ddiv(1.0, u))));
    return repdl__dkeep(repdl__dmul(*e, repdl__act_horner(R3, 15, repdl__ddiv(1.0, u))));
}

/* ---- gelu, erf form: x Phi(x) = 0.5 x (1 + erf(x / sqrt 2)) ----
   u = |x|; Phi(x) = 1 - Q(u) for x >= 0, Q(u) for x < 0 (in double);
   y = RN32(x * Phi) (the product in double, then one rounding to binary32
   after that).  |x| >= 14.5: y = x for x > 0 (Q(u) < 2^-150) and -0 for
   x < 0 (|x Phi(x)| < phi(x) < 2^-151), infinities included (the limit:
   gelu(-inf) = -0).  NaN -> NaN. */
REPDL_API float repdl_gelu_f32(float x)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    double u, q, e, phi;
    if (REPDL_UNLIKELY(ax >= 0x41680000u)) {        /* |x| >= 14.5, inf, NaN */
        if (ax > 0x7f800000u) return repdl__nanf();
        return ux < 0x80000000u ? x : -0.0f;
    }
    u = repdl__f2d(repdl__asfloat(ax));
    q = repdl__gelu_q(u, &e);
    phi = ux < 0x80000000u ? repdl__dsub(1.0, q) : q;
    return repdl__d2f(repdl__dmul(repdl__f2d(x), phi));
}
/* gelu'(x) = Phi(x) + x phi(x), phi(x) = exp(-x^2/2) / sqrt(2 pi):
   g = RN32(Phi + keep(x * e * RSQRT2PI)) in double, dx = dy * g (binary32).
   |x| >= 15: g = 1 for x > 0 (1 - Q + x phi, Q < 2^-160), -0 for x < 0
   (0 > g > x phi(x) > -2^-159). */
REPDL_API float repdl_gelu_backward_f32(float x, float dy)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    double u, q, e, phi;
    float g;
    if (REPDL_UNLIKELY(ax >= 0x41700000u)) {                /* |x| >= 15, inf, NaN */
        if (ax > 0x7f800000u) return repdl__nanf();
        g = ux < 0x80000000u ? 1.0f : -0.0f;
    } else {
        u = repdl__f2d(repdl__asfloat(ax));
        q = repdl__gelu_q(u, &e);
        phi = ux < 0x80000000u ? repdl__dsub(1.0, q) : q;
        g = repdl__d2f(repdl__dadd(phi, repdl__dkeep(repdl__dmul(repdl__dmul(repdl__f2d(x), e),
                                                                 0.3989422804014327 /* 0x1.9884533d43651p-2 */)))); /* RN(1/sqrt(2 pi)) */
    }
    return repdl__canon(repdl__fmul(dy, g));
}

/* ---- softplus (beta 1, threshold 20, as PyTorch) ----
   x > 20: y = x (PyTorch's threshold; +inf -> +inf).
   x < -0x1.9fe368p6: y = +0 (softplus(x) < e^x < 2^-150; -inf included).
   Otherwise, in double: e = exp(-|x|) (repdl__act_exp), s = e / (2 + e),
   L = log1p(e) = 2 atanh(s) = 2 (s + keep(s w A(w))), w = s^2, A from
   reference/gen/nn_act.sollya (relative error 2^-53.9, dirty);
   y = RN32(max(x, 0) + L) (x + L in double when x > 0).  NaN -> NaN. */
REPDL_API float repdl_softplus_f32(float x)
{
    static const double A[9] = {
        0.3333333333333904, 0.199999999979821, 0.14285714532553767,
        0.11111096302487655, 0.09091410635738087, 0.07682096336415364,
        0.06793589623132325, 0.04949433289654947, 0.08873669970935517};
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    double e, s, w, l;
    if (REPDL_UNLIKELY(ax > 0x7f800000u)) return repdl__nanf();
    if (repdl__fgt(x, 20.0f)) return x;
    if (REPDL_UNLIKELY(ux > 0xc2cff1b4u)) return 0.0f;
    e = repdl__act_exp(-repdl__f2d(repdl__asfloat(ax)));
    s = repdl__ddiv(e, repdl__dadd(2.0, e));
    w = repdl__dmul(s, s);
    l = repdl__dadd(s, repdl__dkeep(repdl__dmul(repdl__dmul(s, w), repdl__act_horner(A, 9, w))));
    l = repdl__dkeep(repdl__dmul(l, 2.0));
    return repdl__d2f(ux < 0x80000000u ? repdl__dadd(repdl__f2d(x), l) : l);
}
/* softplus'(x) = sigma(x): dx = dy * sigma(x) (correctly rounded sigma);
   for x > 20 PyTorch passes dy through, and sigma(x) = 1 there: the same. */
REPDL_API float repdl_softplus_backward_f32(float x, float dy)
{
    return repdl__canon(repdl__fmul(dy, repdl_sigmoid_f32(x)));
}

/* ---- Array forms ----
   Each is the loop of its scalar function, bit for bit; sigmoid, silu and
   gelu_tanh get sigma from repdl_sigmoid_array_f32 (vectorizable) chunk by
   chunk; the others are plain loops. */
REPDL_API void repdl_relu_array_f32(size_t n, const float *x, float *y)
{
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl_relu_f32(x[i]);
}
REPDL_API void repdl_relu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    size_t i;
    for (i = 0; i < n; i++) dx[i] = repdl_relu_backward_f32(x[i], dy[i]);
}
REPDL_API void repdl_sigmoid_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    size_t i;
    for (i = 0; i < n; i++) dx[i] = repdl_sigmoid_backward_f32(x[i], dy[i]);
}
REPDL_API void repdl_silu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    size_t i;
    for (i = 0; i < n; i++) dx[i] = repdl_silu_backward_f32(x[i], dy[i]);
}
REPDL_API void repdl_gelu_array_f32(size_t n, const float *x, float *y)
{
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl_gelu_f32(x[i]);
}
REPDL_API void repdl_gelu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    size_t i;
    for (i = 0; i < n; i++) dx[i] = repdl_gelu_backward_f32(x[i], dy[i]);
}
REPDL_API void repdl_gelu_tanh_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    size_t i;
    for (i = 0; i < n; i++) dx[i] = repdl_gelu_tanh_backward_f32(x[i], dy[i]);
}
REPDL_API void repdl_softplus_array_f32(size_t n, const float *x, float *y)
{
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl_softplus_f32(x[i]);
}
REPDL_API void repdl_softplus_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    size_t i;
    for (i = 0; i < n; i++) dx[i] = repdl_softplus_backward_f32(x[i], dy[i]);
}

/* y = x * sigma(x) (silu(-inf) = -0), with sigma by chunks */
REPDL_API void repdl_silu_array_f32(size_t n, const float *x, float *y)
{
    size_t i0, i;
    for (i0 = 0; i0 < n; i0 += REPDL__ARRAY_CHUNK) {
        size_t m = n - i0 < REPDL__ARRAY_CHUNK ? n - i0 : REPDL__ARRAY_CHUNK;
        float s[REPDL__ARRAY_CHUNK];
        repdl_sigmoid_array_f32(m, x + i0, s);
        for (i = 0; i < m; i++) {
            float xi = x[i0 + i];
            float r = repdl__canon(repdl__fmul(xi, s[i]));
            y[i0 + i] = repdl__asuint(xi) == 0xff800000u ? -0.0f : r;
        }
    }
}

/* y = x * sigma(w(x)) (gelu_tanh(-inf) = -0), with sigma by chunks */
REPDL_API void repdl_gelu_tanh_array_f32(size_t n, const float *x, float *y)
{
    size_t i0, i;
    for (i0 = 0; i0 < n; i0 += REPDL__ARRAY_CHUNK) {
        size_t m = n - i0 < REPDL__ARRAY_CHUNK ? n - i0 : REPDL__ARRAY_CHUNK;
        float w[REPDL__ARRAY_CHUNK];
        for (i = 0; i < m; i++) {
            float x2;
            w[i] = repdl__gelu_tanh_w(x[i0 + i], &x2);
        }
        repdl_sigmoid_array_f32(m, w, w);
        for (i = 0; i < m; i++) {
            float xi = x[i0 + i];
            float r = repdl__canon(repdl__fmul(xi, w[i]));
            y[i0 + i] = repdl__asuint(xi) == 0xff800000u ? -0.0f : r;
        }
    }
}

REPDL_END_CODE
#endif /* REPDL_ACTIVATION_H */
