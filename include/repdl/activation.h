/* SPDX-License-Identifier: MIT */
/* repdl/activation.h: activation functions and their backward passes
   (float32), reproducible: the same bits on every machine, compiler, flag
   set and vector width (docs/nn-act-pool.md gives each definition).

   Where each lives: relu and every backward pass here; each correctly
   rounded forward pass in its own header with its proof, its array and
   16-bit forms: sigmoid.h, silu.h, gelu.h (erf form), gelu_tanh.h,
   softplus.h, which this header includes.

   Array forms (in place allowed: y == x, dx == dy or dx == x; any other
   overlap is not; n = 0 accepts NULL):
     repdl_F_f32(n, x, y)                 y[i]  = repdl_Ff(x[i])
     repdl_F_backward_f32(n, x, dy, dx)   dx[i] = repdl_F_backwardf(x[i], dy[i])
   for F in relu, sigmoid, silu, gelu (erf form), gelu_tanh, softplus.
   Every NaN output is the canonical 0x7fc00000.

   Accuracy (docs/nn-act-pool.md, docs/functions/):
     sigmoid, silu,      correctly rounded functions of one binary32
     softplus, gelu      argument (sigmoid.h and below: a double
     (erf form),         approximation with a proven error bound, the
     gelu_tanh           rounding test of detail/cr.h, MPFR hard-case
                         tables; all 2^32 inputs compared with MPFR);
                         gelu_tanh with the exact constants sqrt(2/pi)
                         and 0.044715;
     relu                exact;
     every backward      reproducible, not correctly rounded: the
                         documented compositions below, built on the
                         correctly rounded sigmoid (gelu's in double,
                         relative error < 2^-44 before its final rounding,
                         measured by reference/gen/nn_act.py; near its
                         zero x = -0.7518: absolute error about 2^-52).
   Contraction: every product that feeds an addition is behind
   repdl__fkeep / repdl__dkeep, or the sequence says repdl__fmaf (a fused
   multiply-add that is part of the definition, identical everywhere), or
   (in the correctly rounded forward passes) the error bound holds fused or
   not. */
#ifndef REPDL_ACTIVATION_H
#define REPDL_ACTIVATION_H

#include "config.h"
#include "detail/barrier.h"
#include "detail/cr.h"
#include "sigmoid.h"
#include "silu.h"
#include "gelu.h"
#include "gelu_tanh.h"
#include "softplus.h"
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

/* ---- silu: correctly rounded (silu.h) ---- */
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

/* ---- gelu, erf form: correctly rounded (gelu.h) ----
   The backward pass's double-precision helpers (and gelu.h's
   repdl__act_exp).  No contraction can change them: every product that
   feeds an addition is behind repdl__dkeep. */

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
/* The coefficients of P1, R1, R2, R3 (lowest degree first) as rows of 16,
   each padded with zeros above its degree (detail/gelu_vec.h's vector
   form starts Horner at the row's top: 0 * v + c = c exactly, so the
   padding changes no bit). */
REPDL_FN const double *repdl__gelu_q_coeffs(void)
{
    static const double T[4 * 16] = {
        /* P1 */
        0.3989422804014327, -0.06649038006690723, 0.009973557010073532,
        -0.0011873282158456019, 0.00011543468955462453, -9.444662414146145e-06,
        6.659814828684324e-07, -4.1241488624332536e-08, 2.2841478758594596e-09,
        -1.167203022744101e-10, 5.227252589479909e-12, 0.0, 0.0, 0.0, 0.0, 0.0,
        /* R1 */
        0.49999589797759914, -0.3989033720991461, 0.24982939833341958,
        -0.13252195252913576, 0.06165311880193879, -0.02545818830167389,
        0.009263781589221889, -0.00289836274912385, 0.0007493218639870174,
        -0.0001515920821662005, 2.2230217741390536e-05, -2.08203346974257e-06,
        9.287593035517013e-08 /* 0x1.8ee62a556d7eep-24 */, 0.0, 0.0, 0.0,
        /* R2 */
        -3.256895254957147e-06, 0.39907329261219726, -0.002372457850640244,
        -0.37385351857433735, -0.16505259985049547, 1.817881821636288,
        -0.43490633854026794, -15.285143140092648, 57.06579300758222,
        -118.32403829806168, 164.0837785933804, -156.90363045271062,
        100.35143880460974, -38.905717359686314, 6.9431821781694385, 0.0,
        /* R3 */
        -4.2153652643488886e-10, 0.39894233201554957, -2.910714805247264e-06,
        -0.39884200032945244, -0.002359725079959959, 1.2369701339488666,
        -0.5091699166497038, -1.0981217576303521, -35.50640260160858,
        234.31592917344253, -744.7515228529644, 1458.9978313088143,
        -1812.5714175193727, 1322.9015031317967, -434.1920086281164, 0.0};
    return T;
}
/* Q(u) and *e = exp(-u^2/2) as above. */
REPDL_FN double repdl__gelu_q(double u, double *e)
{
    const double *P1 = repdl__gelu_q_coeffs(), *R1 = P1 + 16, *R2 = P1 + 32, *R3 = P1 + 48;
    double w = repdl__dmul(u, u);                    /* exact: u is a binary32 */
    *e = repdl__act_exp(repdl__dmul(w, -0.5));      /* -u^2/2, exact */
    if (u < 1.0)
        return repdl__dsub(0.5, repdl__dkeep(repdl__dmul(u, repdl__act_horner(P1, 11, w))));
    if (u < 2.0) return repdl__dkeep(repdl__dmul(*e, repdl__act_horner(R1, 13, u)));
    if (u < 4.0) return repdl__dkeep(repdl__dmul(*e, repdl__act_horner(R2, 15, repdl__ddiv(1.0, u))));
    return repdl__dkeep(repdl__dmul(*e, repdl__act_horner(R3, 15, repdl__ddiv(1.0, u))));
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

/* ---- softplus: correctly rounded (softplus.h) ---- */
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
REPDL_API repdl_status repdl_relu_array_f32(size_t n, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !y)) return REPDL_ERR_INVALID;
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl_relu_f32(x[i]);
    return REPDL_OK;
}
REPDL_API repdl_status repdl_relu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    REPDL__BACKWARD_ARRAY_BODY(n, x, dy, dx, repdl_relu_backward_f32);
}
REPDL_API repdl_status repdl_sigmoid_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    REPDL__BACKWARD_ARRAY_BODY(n, x, dy, dx, repdl_sigmoid_backward_f32);
}
REPDL_API repdl_status repdl_silu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    REPDL__BACKWARD_ARRAY_BODY(n, x, dy, dx, repdl_silu_backward_f32);
}
REPDL_API repdl_status repdl_gelu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !dy || !dx)) return REPDL_ERR_INVALID;
    /* detail/gelu_vec.h: vectorized where the CPU allows, the same bits */
    if (!repdl__gelu_bwd_vec_array(n, x, dy, dx, repdl__gelu_q_coeffs())) {
        size_t i;
        for (i = 0; i < n; i++) dx[i] = repdl_gelu_backward_f32(x[i], dy[i]);
    }
    return REPDL_OK;
}
REPDL_API repdl_status repdl_gelu_tanh_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    REPDL__BACKWARD_ARRAY_BODY(n, x, dy, dx, repdl_gelu_tanh_backward_f32);
}
REPDL_API repdl_status repdl_softplus_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    REPDL__BACKWARD_ARRAY_BODY(n, x, dy, dx, repdl_softplus_backward_f32);
}

REPDL_END_CODE
#endif /* REPDL_ACTIVATION_H */
