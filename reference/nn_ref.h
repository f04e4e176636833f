/* SPDX-License-Identifier: MIT */
/* reference/nn_ref.h: the plain definitions of softmax.h and norm.h, the
   oracle of tests/nn and tests/cuda/test_nn_softmax_norm.c.

   Written from the operation sequences of docs/nn-softmax-norm.md, as
   plainly as possible: whole-array calls of the canonical reductions
   (repdl_sum_f32, repdl_max_f32, repdl_dot_f32, repdl_mean_f32,
   repdl_var_f32) on malloc'd temporaries, scalar repdl_exp_f32 / repdl_log_f32,
   the C library's fmaf (correctly rounded) for the affine fma, IEEE
   division and repdl_sqrt_f32.  No special cases beyond the definition (a
   row with a +inf is NaN here because inf - inf enters the sum, not by a
   test).  Every product that feeds an addition is stored to a volatile
   float (ref_nn_mul), so no compiler fuses it.  Uses repdl's public
   functions only (the reductions and the correctly rounded functions,
   proven separately by tests/reduce and tests/math), none of its
   private helpers.  The sums over the batch (the norms' dgamma and dbeta
   over rows, batch norm's statistics over images) are in the batch order:
   repdl_sum_f32 of each micro-batch of 16 samples, the micro-batch values
   added by the buddy tree's recursive definition (ref_nn_batch_sum).
   Slow, and that is fine. */
#ifndef REPDL_REFERENCE_NN_REF_H
#define REPDL_REFERENCE_NN_REF_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "batch_ref.h"

#include <repdl/exp.h>
#include <repdl/log.h>
#include <repdl/reduce.h>
#include <repdl/sqrt.h>

static inline float *ref_nn_alloc(size_t n)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof(float));
    if (!p) abort();
    return p;
}
static inline float ref_nn_nan(void)
{
    uint32_t u = 0x7fc00000u;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline float ref_nn_canon(float v) { return v != v ? ref_nn_nan() : v; }
/* a rounded product that no compiler may fuse with what follows */
static inline float ref_nn_mul(float a, float b)
{
    volatile float p = a * b;
    return p;
}

/* ---- softmax family ---- */

static inline void ref_softmax(size_t rows, size_t cols, const float *x, float *y)
{
    float *e = ref_nn_alloc(cols);
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float m = repdl_max_f32(cols, xr);
        for (size_t i = 0; i < cols; i++) e[i] = repdl_exp_f32(xr[i] - m);
        float s = repdl_sum_f32(cols, e);
        for (size_t i = 0; i < cols; i++) y[r * cols + i] = ref_nn_canon(e[i] / s);
    }
    free(e);
}

static inline void ref_log_softmax(size_t rows, size_t cols, const float *x, float *y)
{
    float *e = ref_nn_alloc(cols), *d = ref_nn_alloc(cols);
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float m = repdl_max_f32(cols, xr);
        for (size_t i = 0; i < cols; i++) {
            d[i] = xr[i] - m;
            e[i] = repdl_exp_f32(d[i]);
        }
        float ls = repdl_log_f32(repdl_sum_f32(cols, e));
        for (size_t i = 0; i < cols; i++) y[r * cols + i] = ref_nn_canon(d[i] - ls);
    }
    free(e);
    free(d);
}

static inline void ref_softmax_backward(size_t rows, size_t cols, const float *y,
                                        const float *dy, float *dx)
{
    for (size_t r = 0; r < rows; r++) {
        const float *yr = y + r * cols, *g = dy + r * cols;
        float dot = repdl_dot_f32(cols, yr, g);
        for (size_t i = 0; i < cols; i++) dx[r * cols + i] = ref_nn_canon(yr[i] * (g[i] - dot));
    }
}

static inline void ref_log_softmax_backward(size_t rows, size_t cols, const float *y,
                                            const float *dy, float *dx)
{
    for (size_t r = 0; r < rows; r++) {
        const float *yr = y + r * cols, *g = dy + r * cols;
        float s = repdl_sum_f32(cols, g);
        for (size_t i = 0; i < cols; i++)
            dx[r * cols + i] = ref_nn_canon(g[i] - ref_nn_mul(repdl_exp_f32(yr[i]), s));
    }
}

/* reduction of per-row losses: 0 mean, 1 sum */
static inline float ref_loss_reduce(const float *l, size_t rows, int reduction)
{
    if (reduction == 1) return repdl_sum_f32(rows, l);
    if (reduction == 0) return repdl_mean_f32(rows, l); /* RN(sum / rows); NaN for 0 */
    return ref_nn_nan();
}

/* loss_r = -log_softmax(x_r)[t]; gradient softmax - onehot, / rows for the
   mean (rows < 2^24 here: (float)rows is exact). */
static inline float ref_cross_entropy(size_t rows, size_t cols, const float *x,
                                      const int32_t *t, int reduction, float *dx)
{
    float *l = ref_nn_alloc(rows), *ls = ref_nn_alloc(cols), *p = ref_nn_alloc(cols);
    for (size_t r = 0; r < rows; r++) {
        int ok = t[r] >= 0 && (size_t)t[r] < cols && (reduction == 0 || reduction == 1);
        ref_log_softmax(1, cols, x + r * cols, ls);
        ref_softmax(1, cols, x + r * cols, p);
        l[r] = ok ? ref_nn_canon(-ls[t[r]]) : ref_nn_nan();
        if (dx) {
            for (size_t i = 0; i < cols; i++) {
                float g = p[i];
                if (!ok) g = ref_nn_nan();
                else if ((size_t)t[r] == i) g = g - 1.0f;
                if (reduction == 0) g = g / (float)rows;
                dx[r * cols + i] = ref_nn_canon(g);
            }
        }
    }
    float v = ref_loss_reduce(l, rows, reduction);
    free(l);
    free(ls);
    free(p);
    return v;
}

static inline float ref_nll_loss(size_t rows, size_t cols, const float *lp, const int32_t *t,
                                 int reduction, float *dx)
{
    float *l = ref_nn_alloc(rows);
    for (size_t r = 0; r < rows; r++) {
        int ok = t[r] >= 0 && (size_t)t[r] < cols && (reduction == 0 || reduction == 1);
        l[r] = ok ? ref_nn_canon(-lp[r * cols + t[r]]) : ref_nn_nan();
        if (dx)
            for (size_t i = 0; i < cols; i++)
                dx[r * cols + i] = !ok ? ref_nn_nan()
                                 : (size_t)t[r] != i ? 0.0f
                                 : reduction == 0 ? -(1.0f / (float)rows) : -1.0f;
    }
    float v = ref_loss_reduce(l, rows, reduction);
    free(l);
    return v;
}

/* ---- normalizations ---- */

static inline float ref_rstd(float var, float eps)
{
    return ref_nn_canon(1.0f / repdl_sqrt_f32(var + eps));
}

/* the affine map of a normalised value */
static inline float ref_affine(float xh, const float *gamma, const float *beta, size_t j)
{
    if (gamma && beta) return ref_nn_canon(fmaf(xh, gamma[j], beta[j]));
    if (gamma) return ref_nn_canon(xh * gamma[j]);
    if (beta) return ref_nn_canon(xh + beta[j]);
    return ref_nn_canon(xh);
}

static inline void ref_layer_norm_forward(size_t rows, size_t cols, const float *x,
                                          const float *gamma, const float *beta, float eps,
                                          float *y, float *mean, float *rstd)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float mu = repdl_mean_f32(cols, xr);          /* NaN for cols == 0 */
        float rs = ref_rstd(repdl_var_f32(cols, 0, xr), eps);
        mean[r] = mu;
        rstd[r] = rs;
        for (size_t j = 0; j < cols; j++)
            y[r * cols + j] = ref_affine(ref_nn_mul(xr[j] - mu, rs), gamma, beta, j);
    }
}

/* The batch order (docs/canonical-order.md, "The batch order"): the
   batch is cut into micro-batches of REF_MICROBATCH consecutive samples
   (the last one short); each micro-batch's value is the canonical sum
   (repdl_sum_f32) of its terms; the G values are added by the aligned
   buddy tree (ref_batch_tree, batch_ref.h: its recursive definition). */

/* The batch-order sum of t[0 .. n * per): n samples of per consecutive
   terms each (canonical NaN). */
static inline float ref_nn_batch_sum(const float *t, size_t n, size_t per)
{
    size_t G = (n + REF_MICROBATCH - 1) / REF_MICROBATCH;
    float *v = ref_nn_alloc(G), s;
    for (size_t g = 0; g < G; g++) {
        size_t i0 = g * REF_MICROBATCH;
        size_t ni = n - i0 < REF_MICROBATCH ? n - i0 : REF_MICROBATCH;
        v[g] = repdl_sum_f32(ni * per, t + i0 * per);
    }
    s = ref_nn_canon(ref_batch_tree(v, G));
    free(v);
    return s;
}

/* RN(s / n) for a count n: one IEEE division by the exact float n (the
   tests stay far below 2^24 elements) */
static inline float ref_nn_div_count(float s, size_t n)
{
    if (n > ((size_t)1 << 24)) abort();
    return s / (float)n;
}

/* column sum over rows of v[r * cols + j], in the batch order (the rows
   are the samples) */
static inline float ref_colsum(const float *v, size_t rows, size_t cols, size_t j)
{
    float *c = ref_nn_alloc(rows);
    for (size_t r = 0; r < rows; r++) c[r] = v[r * cols + j];
    float s = ref_nn_batch_sum(c, rows, 1);
    free(c);
    return s;
}

static inline void ref_layer_norm_backward(size_t rows, size_t cols, const float *x,
                                           const float *gamma, const float *mean,
                                           const float *rstd, const float *dy, float *dx,
                                           float *dgamma, float *dbeta)
{
    float *xh = ref_nn_alloc(rows * cols), *gx = ref_nn_alloc(rows * cols);
    float *g = ref_nn_alloc(cols), *p = ref_nn_alloc(cols);
    for (size_t r = 0; r < rows; r++) {
        for (size_t j = 0; j < cols; j++) {
            size_t k = r * cols + j;
            xh[k] = ref_nn_mul(x[k] - mean[r], rstd[r]);
            gx[k] = ref_nn_mul(dy[k], xh[k]);
            g[j] = gamma ? ref_nn_mul(dy[k], gamma[j]) : dy[k];
            p[j] = ref_nn_mul(g[j], xh[k]);
        }
        float c1 = repdl_mean_f32(cols, g), c2 = repdl_mean_f32(cols, p);
        for (size_t j = 0; j < cols; j++) {
            size_t k = r * cols + j;
            dx[k] = ref_nn_canon(rstd[r] * ((g[j] - c1) - ref_nn_mul(xh[k], c2)));
        }
    }
    for (size_t j = 0; j < cols; j++) {
        dgamma[j] = ref_colsum(gx, rows, cols, j);
        dbeta[j] = ref_colsum(dy, rows, cols, j);
    }
    free(xh);
    free(gx);
    free(g);
    free(p);
}

static inline void ref_rms_norm_forward(size_t rows, size_t cols, const float *x,
                                        const float *gamma, float eps, float *y, float *rstd)
{
    float *sq = ref_nn_alloc(cols);
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        for (size_t j = 0; j < cols; j++) sq[j] = ref_nn_mul(xr[j], xr[j]);
        float rs = ref_rstd(repdl_mean_f32(cols, sq), eps);
        rstd[r] = rs;
        for (size_t j = 0; j < cols; j++)
            y[r * cols + j] = ref_affine(xr[j] * rs, gamma, NULL, j);
    }
    free(sq);
}

static inline void ref_rms_norm_backward(size_t rows, size_t cols, const float *x,
                                         const float *gamma, const float *rstd,
                                         const float *dy, float *dx, float *dgamma)
{
    float *gx = ref_nn_alloc(rows * cols), *g = ref_nn_alloc(cols), *p = ref_nn_alloc(cols);
    for (size_t r = 0; r < rows; r++) {
        for (size_t j = 0; j < cols; j++) {
            size_t k = r * cols + j;
            float xh = x[k] * rstd[r];
            gx[k] = ref_nn_mul(dy[k], xh);
            g[j] = gamma ? ref_nn_mul(dy[k], gamma[j]) : dy[k];
            p[j] = ref_nn_mul(g[j], xh);
        }
        float c2 = repdl_mean_f32(cols, p);
        for (size_t j = 0; j < cols; j++) {
            size_t k = r * cols + j;
            dx[k] = ref_nn_canon(rstd[r] * (g[j] - ref_nn_mul(ref_nn_mul(x[k], rstd[r]), c2)));
        }
    }
    for (size_t j = 0; j < cols; j++) dgamma[j] = ref_colsum(gx, rows, cols, j);
    free(gx);
    free(g);
    free(p);
}

/* channel ch of [n][c][hw] as a plain array, i-major */
static inline float *ref_bn_channel(const float *x, size_t n, size_t c, size_t hw, size_t ch)
{
    float *v = ref_nn_alloc(n * hw);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < hw; k++) v[i * hw + k] = x[(i * c + ch) * hw + k];
    return v;
}

static inline void ref_batch_norm_train(size_t n, size_t c, size_t hw, const float *x,
                                        const float *gamma, const float *beta, float eps,
                                        float mom, float *rmean, float *rvar, float *y,
                                        float *smean, float *srstd)
{
    size_t N = n * hw;
    for (size_t ch = 0; ch < c; ch++) {
        if (N == 0) {
            smean[ch] = srstd[ch] = ref_nn_nan();
            continue;
        }
        /* the sums in the batch order over the images: the mean's, then
           the squared deviations' */
        float *v = ref_bn_channel(x, n, c, hw, ch), *sq = ref_nn_alloc(N);
        float mu = ref_nn_canon(ref_nn_div_count(ref_nn_batch_sum(v, n, hw), N));
        for (size_t e = 0; e < N; e++) sq[e] = ref_nn_mul(v[e] - mu, v[e] - mu);
        float s2 = ref_nn_batch_sum(sq, n, hw);
        float rs = ref_rstd(ref_nn_canon(ref_nn_div_count(s2, N)), eps);
        float uv = N > 1 ? ref_nn_canon(ref_nn_div_count(s2, N - 1)) : ref_nn_nan(); /* NaN for N == 1 */
        free(sq);
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < hw; k++) {
                size_t q = (i * c + ch) * hw + k;
                float xh = ref_nn_mul(x[q] - mu, rs);
                y[q] = gamma && beta ? ref_nn_canon(fmaf(xh, gamma[ch], beta[ch]))
                     : gamma ? ref_nn_canon(xh * gamma[ch])
                     : beta ? ref_nn_canon(xh + beta[ch]) : ref_nn_canon(xh);
            }
        smean[ch] = mu;
        srstd[ch] = rs;
        float om = 1.0f - mom;
        rmean[ch] = ref_nn_canon(ref_nn_mul(mom, mu) + ref_nn_mul(om, rmean[ch]));
        rvar[ch] = ref_nn_canon(ref_nn_mul(mom, uv) + ref_nn_mul(om, rvar[ch]));
        free(v);
    }
}

static inline void ref_batch_norm_infer(size_t n, size_t c, size_t hw, const float *x,
                                        const float *gamma, const float *beta, float eps,
                                        const float *rmean, const float *rvar, float *y)
{
    for (size_t ch = 0; ch < c; ch++) {
        float rs = ref_rstd(rvar[ch], eps);
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < hw; k++) {
                size_t q = (i * c + ch) * hw + k;
                float xh = ref_nn_mul(x[q] - rmean[ch], rs);
                y[q] = gamma && beta ? ref_nn_canon(fmaf(xh, gamma[ch], beta[ch]))
                     : gamma ? ref_nn_canon(xh * gamma[ch])
                     : beta ? ref_nn_canon(xh + beta[ch]) : ref_nn_canon(xh);
            }
    }
}

static inline void ref_batch_norm_backward(size_t n, size_t c, size_t hw, const float *x,
                                           const float *gamma, const float *smean,
                                           const float *srstd, const float *dy, float *dx,
                                           float *dgamma, float *dbeta)
{
    size_t N = n * hw;
    for (size_t ch = 0; ch < c; ch++) {
        float *gv = ref_bn_channel(dy, n, c, hw, ch), *xv = ref_bn_channel(x, n, c, hw, ch);
        float mu = smean[ch], rs = srstd[ch];
        for (size_t e = 0; e < N; e++) xv[e] = ref_nn_mul(gv[e], ref_nn_mul(xv[e] - mu, rs));
        dbeta[ch] = ref_nn_batch_sum(gv, n, hw);
        dgamma[ch] = ref_nn_batch_sum(xv, n, hw);
        if (N) {
            float c1 = ref_nn_div_count(dbeta[ch], N), c2 = ref_nn_div_count(dgamma[ch], N);
            float k = gamma ? gamma[ch] * rs : rs;
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < hw; j++) {
                    size_t q = (i * c + ch) * hw + j;
                    float xh = ref_nn_mul(x[q] - mu, rs);
                    dx[q] = ref_nn_canon(k * ((dy[q] - c1) - ref_nn_mul(xh, c2)));
                }
        }
        free(gv);
        free(xv);
    }
}

#endif /* REPDL_REFERENCE_NN_REF_H */
