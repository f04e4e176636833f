/* SPDX-License-Identifier: MIT */
/* repdl/norm.h: layer norm, RMS norm and batch norm of binary32 arrays,
   forward and backward.  Reproducible, not correctly rounded: each result
   is a fixed sequence of correctly rounded steps, the same bits on every
   compiler, flag set, thread count, batch size and on the GPU
   (cuda/nn_softmax_norm.cu).  docs/nn-softmax-norm.md has the table.

     repdl_layer_norm_forward_f32(rows, cols, 1e-5f, x, gamma, beta, y, mean, rstd);

   Every function returns a repdl_status: REPDL_ERR_OVERFLOW when the
   element count (rows x cols, n x c x hw) does not fit in size_t bytes,
   REPDL_ERR_INVALID when an array that must be read or written is NULL
   while that count is not 0 (the optional outputs and gamma/beta may be
   NULL); on an error nothing is written.

   Notation: RN(.) one rounding to nearest-even binary32; S(v_i) the
   canonical sum (reduce.h) of the rounded values v_i in index order;
   RN(a / n) for a count n is repdl_mean_f32's division (one rounding,
   exact integer n).  fma(a, b, c) = repdl__fmaf, a*b + c rounded once
   (the same bits on every target, config.h).

   Statistics of n values x_i (a row, or a channel of a batch):
     mean  = RN(S(x_i) / n)                       = repdl_mean_f32
     d_i   = RN(x_i - mean)
     var   = RN(S(RN(d_i * d_i)) / n)             = repdl_var_f32(.., 0)
     rstd  = RN(1 / RN(sqrt(RN(var + eps))))      IEEE sqrt and division
   Normalised value and affine map:
     xhat_i = RN(d_i * rstd)
     y_i    = fma(xhat_i, gamma_i, beta_i)   gamma and beta given
            = RN(xhat_i * gamma_i)           beta NULL
            = RN(xhat_i + beta_i)            gamma NULL
            = xhat_i                         both NULL (non-affine)
   RMS norm: ms = RN(S(RN(x_i * x_i)) / n), rstd = RN(1 / RN(sqrt(RN(ms + eps)))),
     xhat_i = RN(x_i * rstd), y_i = RN(xhat_i * gamma_i) (gamma NULL: xhat_i).

   Backward (dy the incoming gradient; mean and rstd as saved by forward):
     g_i  = RN(dy_i * gamma_i) (layer, rms; gamma NULL: dy_i)
     layer: c1 = RN(S(g_i) / n), c2 = RN(S(RN(g_i * xhat_i)) / n)
            dx_i = RN(rstd * RN(RN(g_i - c1) - RN(xhat_i * c2)))
     rms:   c2 = RN(S(RN(g_i * xhat_i)) / n)
            dx_i = RN(rstd * RN(g_i - RN(xhat_i * c2)))
     dgamma_j = S over rows r of RN(dy_rj * xhat_rj), dbeta_j = S over rows
            of dy_rj (the canonical tree over the rows, r ascending).
   Batch norm, backward (per channel, n values, k = RN(gamma * rstd), or
   rstd when gamma is NULL):
     sdy = S(dy_i) (= dbeta), sdx = S(RN(dy_i * xhat_i)) (= dgamma),
     c1 = RN(sdy / n), c2 = RN(sdx / n),
     dx_i = RN(k * RN(RN(dy_i - c1) - RN(xhat_i * c2))).
   Every product that feeds an addition is rounded first: the products go
   through a stack buffer behind REPDL__MATERIALIZE, so no host compiler
   contracts them (only the fma above, written on purpose, is fused).

   Edge cases: a NaN or infinite value in a row (channel) makes its mean or
   variance NaN, hence every output of that row NaN (canonical 0x7fc00000);
   n == 0 (cols == 0, or n * hw == 0): nothing is read, mean and rstd
   outputs are NaN (0/0), y and dx are empty; rows == 0: nothing.
   Rows (channels) are computed alone: batch invariant.  Outputs must not
   overlap inputs, except y == x in the forward functions. */
#ifndef REPDL_NORM_H
#define REPDL_NORM_H

#include "config.h"
#include "reduce.h"
#include <stdlib.h>
REPDL_BEGIN_CODE

/* Chunk of the elementwise passes. */
#define REPDL__NORM_CHUNK 256

/* rstd = RN(1 / RN(sqrt(RN(v + eps)))), NaN canonical. */
REPDL_FN float repdl__norm_rstd(float v, float eps)
{
    return repdl__canon(repdl__fdiv(1.0f, repdl__fsqrt(repdl__fadd(v, eps))));
}

/* The affine map of xhat[0..len) into y (see the top of the file).  xhat
   is a buffer of rounded products: the barrier keeps RN(xhat + beta) from
   being contracted with the product that made xhat. */
REPDL_FN void repdl__norm_affine(float *y, float *xhat, size_t len, const float *gamma,
                                 const float *beta)
{
    size_t i;
    REPDL__MATERIALIZE(xhat);
    if (gamma && beta)
        for (i = 0; i < len; i++) y[i] = repdl__canon(repdl__fmaf(xhat[i], gamma[i], beta[i]));
    else if (gamma)
        for (i = 0; i < len; i++) y[i] = repdl__canon(repdl__fmul(xhat[i], gamma[i]));
    else if (beta)
        for (i = 0; i < len; i++) y[i] = repdl__canon(repdl__fadd(xhat[i], beta[i]));
    else
        for (i = 0; i < len; i++) y[i] = repdl__canon(xhat[i]);
}

/* ---- Layer norm ---- */

/* One row of a forward pass: y_i = the affine map of
   xhat_i = RN(RN(x_i - mu) * rs) (layer norm, center == 1) or
   RN(x_i * rs) (RMS norm, center == 0), a chunk at a time.  y may be x. */
REPDL_FN void repdl__norm_row_out(const float *xr, float *yr, size_t cols, int center, float mu,
                                  float rs, const float *gamma, const float *beta)
{
    size_t k, i;
    for (k = 0; k < cols; k += REPDL__NORM_CHUNK) {
        float xh[REPDL__NORM_CHUNK];
        size_t len = cols - k < REPDL__NORM_CHUNK ? cols - k : REPDL__NORM_CHUNK;
        if (center)
            for (i = 0; i < len; i++) xh[i] = repdl__fmul(repdl__fsub(xr[k + i], mu), rs);
        else
            for (i = 0; i < len; i++) xh[i] = repdl__fmul(xr[k + i], rs);
        repdl__norm_affine(yr + k, xh, len, gamma ? gamma + k : NULL, beta ? beta + k : NULL);
    }
}


/* y = layer_norm(x) over each row of cols values; mean[r], rstd[r] saved
   when not NULL.  gamma, beta: [cols] or NULL.  y may be x. */
REPDL_API repdl_status repdl_layer_norm_forward_f32(size_t rows, size_t cols, float eps,
                                                    const float *x, const float *gamma, const float *beta,
                                                    float *y, float *mean, float *rstd)
{
    size_t r;
    size_t total_ = rows;
    if (repdl__size_mul(&total_, cols)) return REPDL_ERR_OVERFLOW;
    if (total_ && (!x || !y)) return REPDL_ERR_INVALID;
    for (r = 0; r < rows; r++) {
        const float *xr = REPDL__OFFSET(x, r * cols);
        float *yr = REPDL__OFFSET(y, r * cols);
        /* repdl_mean_f32(cols, xr), with the row sum staged in L1 */
        float mu = cols ? repdl__canon(repdl__div_count_f32(repdl__row_sum_f32(cols, xr), cols))
                        : repdl__nanf();
        /* repdl_var_f32(cols, 0, xr) without recomputing the mean */
        float var = cols ? repdl__sqdev_mean(cols, xr, 1, mu, cols) : repdl__nanf();
        float rs = repdl__norm_rstd(var, eps);
        if (mean) mean[r] = mu;
        if (rstd) rstd[r] = rs;
        repdl__norm_row_out(xr, yr, cols, 1, mu, rs, gamma, beta);
    }
    return REPDL_OK;
}

/* Column sums over rows for dgamma / dbeta: out[j] = S over r < rows of
   v(r, j), the canonical tree over r, where
     mode 0:  v = dy[r][j]
     mode 1:  v = RN(dy[r][j] * RN(RN(x[r][j] - mean[r]) * rstd[r]))   (layer)
     mode 2:  v = RN(dy[r][j] * RN(x[r][j] * rstd[r]))                   (rms)
   Through the column-leaf schedule of detail/accum.h (REPDL__COLS_BLOCK
   columns at once): this function only produces each lane's terms.  The
   256 trees (66 KiB) live on the heap, since a caller's thread may have a
   64 KiB stack; the rest of the work area is 23 KiB of stack.  Should the
   allocation fail, blocks of 8 columns use trees on the stack: the same
   bits (columns are independent), slower.  Every row piece is read once,
   contiguously. */
REPDL_FN void repdl__norm_colsum(size_t rows, size_t cols, const float *x, const float *mean,
                                 const float *rstd, const float *dy, int mode, float *out)
{
    size_t j0, r0, c, blk = REPDL__COLS_BLOCK;
    repdl__tree small[8];
    repdl__tree *t = cols ? (repdl__tree *)malloc(REPDL__COLS_BLOCK * sizeof(repdl__tree)) : NULL;
    if (!t) { t = small; blk = 8; }
    for (j0 = 0; j0 < cols; j0 += blk) {
        size_t cb = cols - j0 < blk ? cols - j0 : blk;
        for (c = 0; c < cb; c++) repdl__tree_init(&t[c]);
        for (r0 = 0; r0 < rows; r0 += REPDL_SUM_LEAF) {
            float lc[7][REPDL__COLS_BLOCK];
            int p;
            for (p = 0; p < REPDL_SUM_LANES; p++) {
                float e[REPDL_SUM_VECS][REPDL__COLS_BLOCK];
                int l = repdl__cols_lane(p), v;
                int nv = repdl__cols_nv(rows, r0, l);
                for (v = 0; v < nv; v++) {
                    size_t r = r0 + (size_t)v * REPDL_SUM_LANES + (size_t)l;
                    const float *g = dy + r * cols + j0, *xr = x + r * cols + j0;
                    float *ev = e[v];
                    if (mode == 0) {
                        for (c = 0; c < cb; c++) ev[c] = g[c];
                    } else if (mode == 1) {
                        float rs = rstd[r], mu = mean[r];
                        for (c = 0; c < cb; c++)
                            ev[c] = repdl__fmul(g[c], repdl__fmul(repdl__fsub(xr[c], mu), rs));
                    } else {
                        float rs = rstd[r];
                        for (c = 0; c < cb; c++) ev[c] = repdl__fmul(g[c], repdl__fmul(xr[c], rs));
                    }
                }
                if (p + 1 < REPDL_SUM_LANES) {
                    /* hint: the next lane's row pieces (a strided walk the
                       hardware prefetchers do not follow); no effect on
                       any value */
                    int ln = repdl__cols_lane(p + 1);
                    for (v = 0; v < REPDL_SUM_VECS; v++) {
                        size_t r = r0 + (size_t)v * REPDL_SUM_LANES + (size_t)ln;
                        if (r < rows)
                            for (c = 0; c < cb; c += 16) {
                                REPDL__PREFETCH_L2(dy + r * cols + j0 + c);
                                if (mode) REPDL__PREFETCH_L2(x + r * cols + j0 + c);
                            }
                    }
                }
                repdl__cols_lane_push(e, nv, cb, lc, p);
            }
            for (c = 0; c < cb; c++) repdl__tree_push(&t[c], 0, lc[6][c]);
        }
        for (c = 0; c < cb; c++) out[j0 + c] = repdl__canon(repdl__tree_root(&t[c]));
    }
    if (t != small) free(t);
}

/* Backward of layer norm (see the top of the file).  mean, rstd: as saved
   by the forward pass (required).  gamma NULL: non-affine.  dx, dgamma,
   dbeta: NULL skips that output. */
REPDL_API repdl_status repdl_layer_norm_backward_f32(size_t rows, size_t cols, const float *x,
                                                     const float *gamma, const float *mean,
                                                     const float *rstd, const float *dy, float *dx,
                                                     float *dgamma, float *dbeta)
{
    size_t r, j, i, len;
    size_t total_ = rows;
    if (repdl__size_mul(&total_, cols)) return REPDL_ERR_OVERFLOW;
    if (total_ && (!x || !dy || !mean || !rstd)) return REPDL_ERR_INVALID;
    if (dx) {
        for (r = 0; r < rows; r++) {
            const float *xr = REPDL__OFFSET(x, r * cols), *gr = REPDL__OFFSET(dy, r * cols);
            float *o = REPDL__OFFSET(dx, r * cols);
            float mu = mean[r], rs = rstd[r], c1, c2;
            repdl__tree tg, tp;
            repdl__tree_init(&tg);
            repdl__tree_init(&tp);
            REPDL__LEAVES(cols, j, len) {
                float g[REPDL_SUM_LEAF], p[REPDL_SUM_LEAF];
                for (i = 0; i < len; i++) {
                    float xh = repdl__fmul(repdl__fsub(xr[j + i], mu), rs);
                    float gi = gamma ? repdl__fmul(gr[j + i], gamma[j + i]) : gr[j + i];
                    g[i] = gi;
                    p[i] = repdl__fmul(gi, xh);
                }
                repdl__tree_leaf(&tg, g, len);
                repdl__tree_leaf(&tp, p, len);
            }
            c1 = repdl__div_count_f32(repdl__tree_root(&tg), cols);
            c2 = repdl__div_count_f32(repdl__tree_root(&tp), cols);
            for (j = 0; j < cols; j += REPDL__NORM_CHUNK) {
                float g[REPDL__NORM_CHUNK], q[REPDL__NORM_CHUNK];
                size_t len = cols - j < REPDL__NORM_CHUNK ? cols - j : REPDL__NORM_CHUNK;
                for (i = 0; i < len; i++) {
                    float xh = repdl__fmul(repdl__fsub(xr[j + i], mu), rs);
                    g[i] = gamma ? repdl__fmul(gr[j + i], gamma[j + i]) : gr[j + i];
                    q[i] = repdl__fmul(xh, c2);
                }
                REPDL__MATERIALIZE(g);
                REPDL__MATERIALIZE(q);
                for (i = 0; i < len; i++)
                    o[j + i] = repdl__canon(
                        repdl__fmul(rs, repdl__fsub(repdl__fsub(g[i], c1), q[i])));
            }
        }
    }
    if (dgamma) repdl__norm_colsum(rows, cols, x, mean, rstd, dy, 1, dgamma);
    if (dbeta) repdl__norm_colsum(rows, cols, x, mean, rstd, dy, 0, dbeta);
    return REPDL_OK;
}

/* ---- RMS norm ---- */

/* y = rms_norm(x) over each row; rstd[r] saved when not NULL.  gamma:
   [cols] or NULL.  y may be x. */
REPDL_API repdl_status repdl_rms_norm_forward_f32(size_t rows, size_t cols, float eps,
                                                  const float *x, const float *gamma, float *y, float *rstd)
{
    size_t r;
    size_t total_ = rows;
    if (repdl__size_mul(&total_, cols)) return REPDL_ERR_OVERFLOW;
    if (total_ && (!x || !y)) return REPDL_ERR_INVALID;
    for (r = 0; r < rows; r++) {
        const float *xr = REPDL__OFFSET(x, r * cols);
        float *yr = REPDL__OFFSET(y, r * cols);
        /* RN(repdl_sumsq_f32(cols, xr) / cols) */
        float ms = cols ? repdl__div_count_f32(repdl__row_dot_f32(cols, xr, xr), cols) : repdl__nanf();
        float rs = repdl__norm_rstd(ms, eps);
        if (rstd) rstd[r] = rs;
        repdl__norm_row_out(xr, yr, cols, 0, 0.0f, rs, gamma, NULL);
    }
    return REPDL_OK;
}

/* Backward of RMS norm.  rstd as saved by the forward pass (required);
   gamma NULL: non-affine; dx, dgamma NULL: skipped. */
REPDL_API repdl_status repdl_rms_norm_backward_f32(size_t rows, size_t cols, const float *x,
                                                   const float *gamma, const float *rstd,
                                                   const float *dy, float *dx, float *dgamma)
{
    size_t r, j, i, len;
    size_t total_ = rows;
    if (repdl__size_mul(&total_, cols)) return REPDL_ERR_OVERFLOW;
    if (total_ && (!x || !dy || !rstd)) return REPDL_ERR_INVALID;
    if (dx) {
        for (r = 0; r < rows; r++) {
            const float *xr = REPDL__OFFSET(x, r * cols), *gr = REPDL__OFFSET(dy, r * cols);
            float *o = REPDL__OFFSET(dx, r * cols);
            float rs = rstd[r], c2;
            repdl__tree tp;
            repdl__tree_init(&tp);
            REPDL__LEAVES(cols, j, len) {
                float p[REPDL_SUM_LEAF];
                for (i = 0; i < len; i++) {
                    float xh = repdl__fmul(xr[j + i], rs);
                    float gi = gamma ? repdl__fmul(gr[j + i], gamma[j + i]) : gr[j + i];
                    p[i] = repdl__fmul(gi, xh);
                }
                repdl__tree_leaf(&tp, p, len);
            }
            c2 = repdl__div_count_f32(repdl__tree_root(&tp), cols);
            for (j = 0; j < cols; j += REPDL__NORM_CHUNK) {
                float g[REPDL__NORM_CHUNK], q[REPDL__NORM_CHUNK];
                size_t len = cols - j < REPDL__NORM_CHUNK ? cols - j : REPDL__NORM_CHUNK;
                for (i = 0; i < len; i++) {
                    g[i] = gamma ? repdl__fmul(gr[j + i], gamma[j + i]) : gr[j + i];
                    q[i] = repdl__fmul(repdl__fmul(xr[j + i], rs), c2);
                }
                REPDL__MATERIALIZE(g);
                REPDL__MATERIALIZE(q);
                for (i = 0; i < len; i++)
                    o[j + i] = repdl__canon(repdl__fmul(rs, repdl__fsub(g[i], q[i])));
            }
        }
    }
    if (dgamma) repdl__norm_colsum(rows, cols, x, NULL, rstd, dy, 2, dgamma);
    return REPDL_OK;
}

/* ---- Batch norm over [n][c][hw] (hw = 1: BatchNorm1d) ----
   Channel ch holds the N = n * hw values x[i][ch][k], taken in the order
   i ascending, then k ascending: element e = i * hw + k.  Its statistics
   are those above over these N values in that order. */

/* buf[0..len) = elements [e0, e0 + len) of channel ch. */
REPDL_FN void repdl__bn_gather(const float *x, size_t c, size_t hw, size_t ch, size_t e0,
                               size_t len, float *buf)
{
    size_t i = e0 / hw, k = e0 % hw, m = 0;
    while (m < len) {
        size_t run = hw - k < len - m ? hw - k : len - m, q;
        const float *src = x + (i * c + ch) * hw + k;
        for (q = 0; q < run; q++) buf[m + q] = src[q];
        m += run;
        k = 0;
        i++;
    }
}

/* Mean and population variance of channel ch (N > 0); *s2 receives the
   canonical sum of the squared deviations (for the unbiased variance). */
REPDL_FN void repdl__bn_stats(const float *x, size_t n, size_t c, size_t hw, size_t ch,
                              float *mean, float *var, float *s2)
{
    size_t N = n * hw, e, len;
    float p[REPDL_SUM_LEAF];
    float mu;
    repdl__tree t;
    repdl__tree_init(&t);
    REPDL__LEAVES(N, e, len) {
        repdl__bn_gather(x, c, hw, ch, e, len, p);
        repdl__tree_leaf(&t, p, len);
    }
    mu = repdl__canon(repdl__div_count_f32(repdl__tree_root(&t), N));
    repdl__tree_init(&t);
    REPDL__LEAVES(N, e, len) {
        repdl__bn_gather(x, c, hw, ch, e, len, p);
        repdl__sqdev(p, len, mu);
        repdl__tree_leaf(&t, p, len);
    }
    *s2 = repdl__tree_root(&t);
    *mean = mu;
    *var = repdl__canon(repdl__div_count_f32(*s2, N));
}

/* y of channel ch from its mean and rstd (both passes of batch norm). */
REPDL_FN void repdl__bn_apply(const float *x, size_t n, size_t c, size_t hw, size_t ch,
                              const float *gamma, const float *beta, float mu, float rs,
                              float *y)
{
    size_t i, k, q;
    for (i = 0; i < n; i++) {
        const float *xr = x + (i * c + ch) * hw;
        float *yr = y + (i * c + ch) * hw;
        for (k = 0; k < hw; k += REPDL__NORM_CHUNK) {
            float xh[REPDL__NORM_CHUNK], gb[REPDL__NORM_CHUNK], bb[REPDL__NORM_CHUNK];
            size_t len = hw - k < REPDL__NORM_CHUNK ? hw - k : REPDL__NORM_CHUNK;
            for (q = 0; q < len; q++) {
                xh[q] = repdl__fmul(repdl__fsub(xr[k + q], mu), rs);
                gb[q] = gamma ? gamma[ch] : 1.0f;
                bb[q] = beta ? beta[ch] : 0.0f;
            }
            repdl__norm_affine(yr + k, xh, len, gamma ? gb : NULL, beta ? bb : NULL);
        }
    }
}

/* Training forward: batch statistics per channel (above), y, and
     save_mean[ch] = mean, save_rstd[ch] = rstd            (NULL: not saved)
     running_mean = RN(RN(momentum * mean) + RN(RN(1 - momentum) * running_mean))
     running_var  = RN(RN(momentum * uvar) + RN(RN(1 - momentum) * running_var))
   with uvar = RN(S(RN(d_i^2)) / (N - 1)), the unbiased variance (PyTorch's
   update; NULL running buffers: not updated).  N == 1: uvar is NaN (0/0;
   PyTorch refuses such a batch), so running_var becomes NaN.  N == 0:
   save_mean, save_rstd NaN, running statistics unchanged.  y may be x. */
REPDL_API repdl_status repdl_batch_norm_forward_train_f32(size_t n, size_t c, size_t hw, float eps,
                                                          float momentum, const float *x,
                                                          const float *gamma, const float *beta,
                                                          float *running_mean, float *running_var,
                                                          float *y, float *save_mean, float *save_rstd)
{
    size_t ch, N = n * hw;
    float om = repdl__fsub(1.0f, momentum);
    size_t total_ = n;
    if (repdl__size_mul(&total_, c) || repdl__size_mul(&total_, hw)) return REPDL_ERR_OVERFLOW;
    if (total_ && (!x || !y)) return REPDL_ERR_INVALID;
    for (ch = 0; ch < c; ch++) {
        float mu, var, s2, rs, uvar;
        if (N == 0) {
            if (save_mean) save_mean[ch] = repdl__nanf();
            if (save_rstd) save_rstd[ch] = repdl__nanf();
            continue;
        }
        repdl__bn_stats(x, n, c, hw, ch, &mu, &var, &s2);
        rs = repdl__norm_rstd(var, eps);
        uvar = N > 1 ? repdl__canon(repdl__div_count_f32(s2, N - 1)) : repdl__nanf();
        repdl__bn_apply(x, n, c, hw, ch, gamma, beta, mu, rs, y);
        if (save_mean) save_mean[ch] = mu;
        if (save_rstd) save_rstd[ch] = rs;
        if (running_mean)
            running_mean[ch] = repdl__canon(repdl__fadd(repdl__fkeep(repdl__fmul(momentum, mu)),
                                                        repdl__fkeep(repdl__fmul(om, running_mean[ch]))));
        if (running_var)
            running_var[ch] = repdl__canon(repdl__fadd(repdl__fkeep(repdl__fmul(momentum, uvar)),
                                                       repdl__fkeep(repdl__fmul(om, running_var[ch]))));
    }
    return REPDL_OK;
}

/* Inference forward: y as in training with mean = running_mean[ch] and
   rstd = RN(1 / RN(sqrt(RN(running_var[ch] + eps)))).  y may be x. */
REPDL_API repdl_status repdl_batch_norm_forward_infer_f32(size_t n, size_t c, size_t hw, float eps,
                                                          const float *x, const float *gamma,
                                                          const float *beta, const float *running_mean,
                                                          const float *running_var, float *y)
{
    size_t ch;
    size_t total_ = n;
    if (repdl__size_mul(&total_, c) || repdl__size_mul(&total_, hw)) return REPDL_ERR_OVERFLOW;
    if (total_ && (!x || !y || !running_mean || !running_var)) return REPDL_ERR_INVALID;
    if (n == 0 || hw == 0) return REPDL_OK; /* no element: nothing read or written */
    for (ch = 0; ch < c; ch++)
        repdl__bn_apply(x, n, c, hw, ch, gamma, beta, running_mean[ch],
                        repdl__norm_rstd(running_var[ch], eps), y);
    return REPDL_OK;
}

/* Backward of training batch norm (see the top of the file), from the
   saved batch mean and rstd.  dx, dgamma, dbeta: NULL skips that output
   (the sums are computed anyway when dx needs them). */
REPDL_API repdl_status repdl_batch_norm_backward_f32(size_t n, size_t c, size_t hw, const float *x,
                                                     const float *gamma, const float *save_mean,
                                                     const float *save_rstd, const float *dy,
                                                     float *dx, float *dgamma, float *dbeta)
{
    size_t ch, N = n * hw, e, len, i, k, q;
    size_t total_ = n;
    if (repdl__size_mul(&total_, c) || repdl__size_mul(&total_, hw)) return REPDL_ERR_OVERFLOW;
    if (total_ && (!x || !dy || !save_mean || !save_rstd)) return REPDL_ERR_INVALID;
    for (ch = 0; ch < c; ch++) {
        /* N == 0: the sums are empty (-0); save_mean/save_rstd are not read */
        float mu = N ? save_mean[ch] : 0.0f, rs = N ? save_rstd[ch] : 0.0f, sdy, sdx, c1, c2, kk;
        repdl__tree ty, tx;
        repdl__tree_init(&ty);
        repdl__tree_init(&tx);
        REPDL__LEAVES(N, e, len) {
            float g[REPDL_SUM_LEAF], p[REPDL_SUM_LEAF];
            repdl__bn_gather(dy, c, hw, ch, e, len, g);
            repdl__bn_gather(x, c, hw, ch, e, len, p);
            for (q = 0; q < len; q++)
                p[q] = repdl__fmul(g[q], repdl__fmul(repdl__fsub(p[q], mu), rs));
            repdl__tree_leaf(&ty, g, len);
            repdl__tree_leaf(&tx, p, len);
        }
        sdy = repdl__canon(repdl__tree_root(&ty));
        sdx = repdl__canon(repdl__tree_root(&tx));
        if (dbeta) dbeta[ch] = sdy;
        if (dgamma) dgamma[ch] = sdx;
        if (!dx || N == 0) continue;
        c1 = repdl__div_count_f32(sdy, N);
        c2 = repdl__div_count_f32(sdx, N);
        kk = gamma ? repdl__fmul(gamma[ch], rs) : rs;
        for (i = 0; i < n; i++) {
            const float *xr = x + (i * c + ch) * hw, *gr = dy + (i * c + ch) * hw;
            float *o = dx + (i * c + ch) * hw;
            for (k = 0; k < hw; k += REPDL__NORM_CHUNK) {
                float qb[REPDL__NORM_CHUNK];
                size_t len = hw - k < REPDL__NORM_CHUNK ? hw - k : REPDL__NORM_CHUNK;
                for (q = 0; q < len; q++)
                    qb[q] = repdl__fmul(repdl__fmul(repdl__fsub(xr[k + q], mu), rs), c2);
                REPDL__MATERIALIZE(qb);
                for (q = 0; q < len; q++)
                    o[k + q] = repdl__canon(
                        repdl__fmul(kk, repdl__fsub(repdl__fsub(gr[k + q], c1), qb[q])));
            }
        }
    }
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_NORM_H */
