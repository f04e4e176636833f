/* SPDX-License-Identifier: MIT */
/* reference/act_pool_ref.c: the independent reference of activation.h and
   pool.h, written from the definitions in docs/nn-act-pool.md, not from
   the headers: MPFR for the values claimed correctly rounded (sigmoid) or
   computed in high precision (gelu, softplus: exact value and its distance
   to a rounding boundary), plain C float operators for the documented
   binary32 sequences, glibc's fmaf (correctly rounded) for the fused steps,
   plain scatter loops for the pooling orders.  Built once, with
   -O2 -ffp-contract=off (reference/meson.build), so that the plain
   `a*b + c` below are two roundings whatever the test's own flags are.
   Uses no repdl header. */
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <string.h>

#include "act_pool_ref.h"
#include "mpfr_ref.h"   /* the correctly rounded silu and softplus (Ziv loops) */

static float uf(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static float canon(float x) { return x != x ? uf(0x7fc00000u) : x; }

/* ---- MPFR helpers: v at precision P in MPFR's wide range; returns the
   binary32 rounding (subnormals, overflow) and, in *dist, the distance of
   v to the nearest binary32 rounding boundary relative to |v| (0 when v
   is zero). */
#define P 160
static float round32(mpfr_srcptr v, double *dist)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_t m, a, b;
    float r;
    int t;
    mpfr_init2(m, 24);
    t = mpfr_set(m, v, MPFR_RNDN);
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    t = mpfr_check_range(m, t, MPFR_RNDN);
    t = mpfr_subnormalize(m, t, MPFR_RNDN);
    r = mpfr_get_flt(m, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clear(m);
    if (dist) {
        /* boundaries around r: the midpoints to its neighbours */
        float up = nextafterf(r, INFINITY), dn = nextafterf(r, -INFINITY);
        double d1, d2;
        if (mpfr_zero_p(v)) { *dist = 0.0; return r; }
        mpfr_inits2(P, a, b, (mpfr_ptr)0);
        mpfr_set_flt(a, r, MPFR_RNDN);
        mpfr_set_flt(b, up, MPFR_RNDN);
        mpfr_add(a, a, b, MPFR_RNDN);
        mpfr_div_2ui(a, a, 1, MPFR_RNDN);
        mpfr_sub(a, a, v, MPFR_RNDN);
        mpfr_div(a, a, v, MPFR_RNDN);
        d1 = fabs(mpfr_get_d(a, MPFR_RNDN));
        mpfr_set_flt(a, r, MPFR_RNDN);
        mpfr_set_flt(b, dn, MPFR_RNDN);
        mpfr_add(a, a, b, MPFR_RNDN);
        mpfr_div_2ui(a, a, 1, MPFR_RNDN);
        mpfr_sub(a, a, v, MPFR_RNDN);
        mpfr_div(a, a, v, MPFR_RNDN);
        d2 = fabs(mpfr_get_d(a, MPFR_RNDN));
        if (isinf(up) || isinf(dn)) d1 = d2 = 1.0;
        *dist = d1 < d2 ? d1 : d2;
        mpfr_clears(a, b, (mpfr_ptr)0);
    }
    (void)t;
    return r;
}

static void wide(void)
{
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
}

/* sigma(x) correctly rounded: at P bits the error is far below any
   distance this test relies on; inputs too close to a boundary are
   resolved by raising the precision. */
float ref_sigmoid(float x)
{
    mpfr_t t;
    float r = 0.0f;
    double d;
    mpfr_prec_t p;
    if (x != x) return uf(0x7fc00000u);
    if (x == 0.0f) return 0.5f;
    if (isinf(x)) return x > 0 ? 1.0f : 0.0f;
    wide();
    for (p = P;; p *= 2) {
        mpfr_init2(t, p);
        mpfr_set_flt(t, -x, MPFR_RNDN);
        mpfr_exp(t, t, MPFR_RNDN);
        mpfr_add_ui(t, t, 1, MPFR_RNDN);
        mpfr_ui_div(t, 1, t, MPFR_RNDN);
        r = round32(t, &d);
        mpfr_clear(t);
        if (d > ldexp(1.0, 8 - (int)p) || p > 5000) break;
    }
    return r;
}

/* gelu (erf form): correctly rounded (reference/mpfr_ref.h's Ziv loop);
   *dist = 1: bit equality everywhere */
float ref_gelu(float x, double *dist)
{
    *dist = 1.0;
    return repdl_ref_geluf(x);
}

/* gelu'(x) = Phi(x) + x phi(x), rounded (the g of the backward pass) */
float ref_gelu_grad(float x, double *dist)
{
    mpfr_t t, s, e;
    float r;
    *dist = 1.0;
    if (x != x) return uf(0x7fc00000u);
    if (isinf(x)) return x > 0 ? 1.0f : -0.0f;
    /* x <= -40: 0 > g > x phi(x) > -2^-1100 (Phi(x) > 0), rounds to -0;
       MPFR could not resolve the cancellation of the two terms there */
    if (x <= -40.0f) return -0.0f;
    wide();
    mpfr_inits2(P, t, s, e, (mpfr_ptr)0);
    mpfr_set_ui(s, 2, MPFR_RNDN);
    mpfr_sqrt(s, s, MPFR_RNDN);
    mpfr_set_flt(t, -x, MPFR_RNDN);
    mpfr_div(t, t, s, MPFR_RNDN);
    mpfr_erfc(t, t, MPFR_RNDN);
    mpfr_div_2ui(t, t, 1, MPFR_RNDN);            /* Phi(x) */
    mpfr_set_flt(e, x, MPFR_RNDN);
    mpfr_sqr(e, e, MPFR_RNDN);
    mpfr_div_2ui(e, e, 1, MPFR_RNDN);
    mpfr_neg(e, e, MPFR_RNDN);
    mpfr_exp(e, e, MPFR_RNDN);                   /* exp(-x^2/2) */
    mpfr_const_pi(s, MPFR_RNDN);
    mpfr_mul_2ui(s, s, 1, MPFR_RNDN);
    mpfr_sqrt(s, s, MPFR_RNDN);
    mpfr_div(e, e, s, MPFR_RNDN);
    mpfr_mul_d(e, e, (double)x, MPFR_RNDN);
    mpfr_add(t, t, e, MPFR_RNDN);
    r = round32(t, dist);
    mpfr_clears(t, s, e, (mpfr_ptr)0);
    return r;
}

/* softplus: correctly rounded (reference/mpfr_ref.h's Ziv loop); *dist = 1
   so that the test asks for bit equality everywhere */
float ref_softplus(float x, double *dist)
{
    *dist = 1.0;
    return repdl_ref_softplusf(x);
}

/* ---- The binary32 sequences of docs/nn-act-pool.md, plain ---- */
float ref_relu(float x) { return x != x ? uf(0x7fc00000u) : (x > 0 ? x : 0.0f); }
float ref_relu_bwd(float x, float dy)
{
    if (x != x) return uf(0x7fc00000u);
    return x > 0 ? canon(dy) : 0.0f;
}
float ref_sigmoid_bwd(float x, float dy) { return canon(dy * (ref_sigmoid(x) * ref_sigmoid(-x))); }
/* silu: correctly rounded (reference/mpfr_ref.h's Ziv loop) */
float ref_silu(float x) { return repdl_ref_siluf(x); }
float ref_silu_bwd(float x, float dy)
{
    float g;
    if (isinf(x)) g = x > 0 ? 1.0f : -0.0f;
    else g = ref_sigmoid(x) * fmaf(x, ref_sigmoid(-x), 1.0f);
    return canon(dy * g);
}
static const float K1 = 0.044715f, K3 = 0.134145f;
static float c2(void) { return (float)(2.0 * sqrt(2.0 / 3.14159265358979323846)); }
/* gelu_tanh forward: correctly rounded, exact constants (mpfr_ref.h) */
float ref_gelu_tanh(float x) { return repdl_ref_gelu_tanhf(x); }
float ref_gelu_tanh_bwd(float x, float dy)
{
    float x2, i, w, s, sn, dw, a, g;
    if (fabsf(x) >= 4294967296.0f) g = x > 0 ? 1.0f : 0.0f;
    else {
        x2 = x * x;
        i = x + K1 * (x2 * x);
        w = c2() * i;
        s = ref_sigmoid(w);
        sn = ref_sigmoid(-w);
        dw = c2() * fmaf(K3, x2, 1.0f);
        a = (x * s) * sn;
        g = fmaf(a, dw, s);
    }
    return canon(dy * g);
}
float ref_softplus_bwd(float x, float dy) { return canon(dy * ref_sigmoid(x)); }

/* ---- Pooling: plain loops over the outputs, scatter for the backward ---- */
static size_t outsz(size_t h, size_t k, size_t st, size_t pad)
{
    if (k == 0 || st == 0 || h + 2 * pad < k) return 0;
    return (h + 2 * pad - k) / st + 1;
}
void ref_pool_out(const ref_pool_shape *s, size_t *oh, size_t *ow)
{
    *oh = outsz(s->h, s->kh, s->sh, s->ph);
    *ow = outsz(s->w, s->kw, s->sw, s->pw);
}
void ref_maxpool_fwd(const ref_pool_shape *s, const float *x, float *y, int64_t *arg)
{
    size_t oh, ow, pl, p, q;
    long long r, c;
    ref_pool_out(s, &oh, &ow);
    for (pl = 0; pl < s->n * s->c; pl++)
        for (p = 0; p < oh; p++)
            for (q = 0; q < ow; q++) {
                float best = -INFINITY;
                long long bi = -1;
                int found = 0;
                for (r = 0; r < (long long)s->kh; r++)
                    for (c = 0; c < (long long)s->kw; c++) {
                        long long hh = (long long)(p * s->sh) - (long long)s->ph + r;
                        long long ww = (long long)(q * s->sw) - (long long)s->pw + c;
                        float v;
                        if (hh < 0 || ww < 0 || hh >= (long long)s->h || ww >= (long long)s->w) continue;
                        v = x[pl * s->h * s->w + (size_t)hh * s->w + (size_t)ww];
                        if (!found) { best = v; bi = hh * (long long)s->w + ww; found = 1; continue; }
                        if (best != best) continue;          /* a NaN already won */
                        if (v != v || v > best) { best = v; bi = hh * (long long)s->w + ww; }
                    }
                y[pl * oh * ow + p * ow + q] = canon(best);
                arg[pl * oh * ow + p * ow + q] = bi;
            }
}
void ref_maxpool_bwd(const ref_pool_shape *s, const int64_t *arg, const float *dy, float *dx)
{
    size_t oh, ow, pl, p, q, i;
    ref_pool_out(s, &oh, &ow);
    for (i = 0; i < s->n * s->c * s->h * s->w; i++) dx[i] = -0.0f;
    for (pl = 0; pl < s->n * s->c; pl++)
        for (p = 0; p < oh; p++)
            for (q = 0; q < ow; q++) {
                int64_t a = arg[pl * oh * ow + p * ow + q];
                long long hh, ww;
                if (a < 0 || (uint64_t)a >= (uint64_t)(s->h * s->w)) continue;
                hh = a / (long long)s->w;
                ww = a % (long long)s->w;
                /* in this output's window? */
                if (hh < (long long)(p * s->sh) - (long long)s->ph ||
                    hh >= (long long)(p * s->sh) - (long long)s->ph + (long long)s->kh ||
                    ww < (long long)(q * s->sw) - (long long)s->pw ||
                    ww >= (long long)(q * s->sw) - (long long)s->pw + (long long)s->kw)
                    continue;
                dx[pl * s->h * s->w + (size_t)a] += dy[pl * oh * ow + p * ow + q];
            }
    for (i = 0; i < s->n * s->c * s->h * s->w; i++) dx[i] = canon(dx[i]);
}
static float avg_div(const ref_pool_shape *s, int incl, size_t p, size_t q)
{
    long long r, c, cnt = 0;
    if (incl) return (float)(s->kh * s->kw);
    for (r = 0; r < (long long)s->kh; r++)
        for (c = 0; c < (long long)s->kw; c++) {
            long long hh = (long long)(p * s->sh) - (long long)s->ph + r;
            long long ww = (long long)(q * s->sw) - (long long)s->pw + c;
            if (hh >= 0 && ww >= 0 && hh < (long long)s->h && ww < (long long)s->w) cnt++;
        }
    return (float)cnt;
}
void ref_avgpool_fwd(const ref_pool_shape *s, int incl, const float *x, float *y)
{
    size_t oh, ow, pl, p, q;
    long long r, c;
    ref_pool_out(s, &oh, &ow);
    for (pl = 0; pl < s->n * s->c; pl++)
        for (p = 0; p < oh; p++)
            for (q = 0; q < ow; q++) {
                float acc = -0.0f;
                int any = 0;
                for (r = 0; r < (long long)s->kh; r++)
                    for (c = 0; c < (long long)s->kw; c++) {
                        long long hh = (long long)(p * s->sh) - (long long)s->ph + r;
                        long long ww = (long long)(q * s->sw) - (long long)s->pw + c;
                        if (hh < 0 || ww < 0 || hh >= (long long)s->h || ww >= (long long)s->w) continue;
                        acc += x[pl * s->h * s->w + (size_t)hh * s->w + (size_t)ww];
                        any = 1;
                    }
                y[pl * oh * ow + p * ow + q] = any ? canon(acc / avg_div(s, incl, p, q)) : -0.0f;
            }
}
void ref_avgpool_bwd(const ref_pool_shape *s, int incl, const float *dy, float *dx)
{
    size_t oh, ow, pl, p, q, i;
    long long r, c;
    ref_pool_out(s, &oh, &ow);
    for (i = 0; i < s->n * s->c * s->h * s->w; i++) dx[i] = -0.0f;
    for (pl = 0; pl < s->n * s->c; pl++)
        for (p = 0; p < oh; p++)
            for (q = 0; q < ow; q++) {
                float g = dy[pl * oh * ow + p * ow + q] / avg_div(s, incl, p, q);
                for (r = 0; r < (long long)s->kh; r++)
                    for (c = 0; c < (long long)s->kw; c++) {
                        long long hh = (long long)(p * s->sh) - (long long)s->ph + r;
                        long long ww = (long long)(q * s->sw) - (long long)s->pw + c;
                        if (hh < 0 || ww < 0 || hh >= (long long)s->h || ww >= (long long)s->w) continue;
                        dx[pl * s->h * s->w + (size_t)hh * s->w + (size_t)ww] += g;
                    }
            }
    for (i = 0; i < s->n * s->c * s->h * s->w; i++) dx[i] = canon(dx[i]);
}
