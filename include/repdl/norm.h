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
   NULL), REPDL_ERR_NOMEM when the backward of layer or RMS norm cannot
   have the heap scratch of its dgamma / dbeta tree (more than
   REPDL_MICROBATCH rows: ceil(log2 G) + 2 vectors of min(cols, 512)
   floats each, G micro-batches; the out-of-memory rule of the batch order,
   docs/canonical-order.md); on an error nothing is written.

   Notation: RN(.) one rounding to nearest-even binary32; S(v_i) the
   canonical sum (reduce.h) of the rounded values v_i in index order;
   RN(a / n) for a count n is repdl_mean_f32's division (one rounding,
   exact integer n).  fma(a, b, c) = repdl__fmaf, a*b + c rounded once
   (the same bits on every target, config.h).  B(v_r): the batch order
   over samples r (docs/canonical-order.md, "The batch order"; detail/
   accum.h): micro-batches of REPDL_MICROBATCH = 16 consecutive samples
   (the last one short), each one's value the canonical sum S of its terms
   alone, the G = ceil(samples / 16) values added by the aligned buddy tree
   (-0.0 for G = 0); for <= 16 samples B is S.  A call on the samples of
   one micro-batch gives its value (combine them with
   repdl_units_combine_f32, reduce_units.h, to the same bits).

   Statistics of n values x_i (a row; a channel of batch norm has B in
   place of S, below):
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
     dgamma_j = B over rows r of RN(dy_rj * xhat_rj), dbeta_j = B over
            rows of dy_rj (the rows are the samples; r ascending).
   Batch norm (per channel, the N = n * hw values of the n images in order
   (image, k)): its sums are B over the images, a micro-batch's terms its
   16 * hw values in that order: forward mean = RN(B(x_i) / N),
   var = RN(B(RN(d_i * d_i)) / N), uvar = RN(B(RN(d_i * d_i)) / (N - 1));
   backward (k = RN(gamma * rstd), or rstd when gamma is NULL):
     sdy = B(dy_i) (= dbeta), sdx = B(RN(dy_i * xhat_i)) (= dgamma),
     c1 = RN(sdy / N), c2 = RN(sdx / N),
     dx_i = RN(k * RN(RN(dy_i - c1) - RN(xhat_i * c2))).
   Every product that feeds an addition is rounded first: the products go
   through a stack buffer behind REPDL__MATERIALIZE, so no host compiler
   contracts them (only the fma above, written on purpose, is fused).

   Edge cases: a NaN or infinite value in a row (channel) makes its mean or
   variance NaN, hence every output of that row NaN (canonical 0x7fc00000);
   n == 0 (cols == 0, or n * hw == 0): nothing is read, mean and rstd
   outputs are NaN (0/0), y and dx are empty; rows == 0: the forward
   writes nothing, the backward writes no dx and sets dgamma[j] and
   dbeta[j] (those not NULL) to -0.0, the empty batch-order sum, for every
   j < cols (batch norm with N == 0 likewise: dgamma[ch], dbeta[ch] = -0.0,
   no dx).
   Rows (channels) are computed alone: y, dx of layer / RMS norm are batch
   invariant; dgamma, dbeta and batch norm's statistics depend on the batch
   by the definition above only (not on how it is computed).  Outputs must not
   overlap inputs, except y == x in the forward functions. */
#ifndef REPDL_NORM_H
#define REPDL_NORM_H

#include "config.h"
#include "reduce.h"
#include <stdlib.h>
REPDL_BEGIN_CODE

/* The largest count of floats whose bytes fit in size_t: a vector of rows,
   cols or c floats (mean, rstd, gamma, dgamma, ...) beyond it is
   REPDL_ERR_OVERFLOW even when the element count rows x cols is 0. */
#define REPDL__NORM_LIM (((size_t)-1) / sizeof(float))

/* The argument rule of the row norms (layer, RMS): REPDL_ERR_OVERFLOW when
   rows x cols overflows size_t or a vector of rows or cols floats does
   not fit (REPDL__NORM_LIM), then REPDL_ERR_INVALID when rows x cols > 0
   and an array the call needs is NULL (missing), else REPDL_OK. */
REPDL_FN repdl_status repdl__norm_rows_args(size_t rows, size_t cols, int missing)
{
    size_t total = rows;
    if (repdl__size_mul(&total, cols) || rows > REPDL__NORM_LIM || cols > REPDL__NORM_LIM)
        return REPDL_ERR_OVERFLOW;
    return total && missing ? REPDL_ERR_INVALID : REPDL_OK;
}

/* The same for batch norm: n x c x hw elements, vectors of c floats. */
REPDL_FN repdl_status repdl__norm_nchw_args(size_t n, size_t c, size_t hw, int missing)
{
    size_t total = n;
    if (repdl__size_mul(&total, c) || repdl__size_mul(&total, hw) || c > REPDL__NORM_LIM)
        return REPDL_ERR_OVERFLOW;
    return total && missing ? REPDL_ERR_INVALID : REPDL_OK;
}

/* The entry of every norm function: the environment check, then the
   status of ARGS (one of the two above) unless it is REPDL_OK. */
#define REPDL__NORM_ENTRY(ARGS)                                               \
    do {                                                                      \
        repdl_status st_;                                                     \
        REPDL__FPENV_CHECK();                                                 \
        st_ = (ARGS);                                                         \
        if (st_ != REPDL_OK) return st_;                                      \
    } while (0)

/* Chunk of the elementwise passes. */
#define REPDL__NORM_CHUNK 256
/* Width of the column blocks of dgamma, dbeta. */
#ifndef REPDL__NORM_COLS
#define REPDL__NORM_COLS 512
#endif

/* rstd = RN(1 / RN(sqrt(RN(v + eps)))), NaN canonical. */
REPDL_FN float repdl__norm_rstd(float v, float eps)
{
    return repdl__canon(repdl__fdiv(1.0f, repdl__fsqrt(repdl__fadd(v, eps))));
}

/* ---- The run-time dispatch of the row norms (layer, RMS) ----
   On x86-64 with gcc or clang (not nvcc, not REPDL_PORTABLE_C, not
   REPDL_NORM_NO_DISPATCH) and a CPU with AVX2 and FMA (probed once), the
   row loops of layer and RMS norm, forward and backward, run as a clone
   compiled for target("avx2,fma"): the same source, so the same
   operations in the same order (every product that feeds an addition is
   kept from contraction by the barriers, as in any -march=x86-64-v3
   -ffp-contract=fast build), and the affine step's fma, written on
   purpose, is the hardware instruction (__builtin_fmaf) instead of
   repdl__fmaf_soft: both are the correctly rounded a*b + c (config.h), so
   the bits are those of every other build.  Elsewhere the plain loops
   run.  REPDL__NORM_BODY marks a body both forms inline (always_inline
   under the dispatch, so that the clone compiles it for its target).
   Batch norm calls only the clone's affine step (repdl__bn_apply). */
#if REPDL__GNU_HOST && defined(__x86_64__) && !defined(REPDL_NORM_NO_DISPATCH)
#define REPDL__NORM_X86 1
#define REPDL__NORM_BODY __attribute__((always_inline)) static inline
#define REPDL__NORM_AVX2 __attribute__((target("avx2,fma"))) static
#else
#define REPDL__NORM_X86 0
#define REPDL__NORM_BODY REPDL_FN
#endif

/* 1 when the clone may run (the CPU has AVX2 and FMA: config.h's
   probe); 0 without the dispatch. */
REPDL_FN int repdl__norm_isa(void)
{
#if REPDL__NORM_X86
    return repdl__cpu_avx2_fma();
#else
    return 0;
#endif
}

/* The affine map of xhat[0..len) into y (see the top of the file), with
   FMA as its fused multiply-add.  xhat is a buffer of rounded products: the
   barrier keeps RN(xhat + beta) from being contracted with the product
   that made xhat. */
#define REPDL__NORM_AFFINE_LOOPS(FMA)                                                     \
    do {                                                                                  \
        size_t i_;                                                                        \
        REPDL__MATERIALIZE(xhat);                                                         \
        if (gamma && beta)                                                                \
            for (i_ = 0; i_ < len; i_++)                                                  \
                y[i_] = repdl__canon(FMA(xhat[i_], gamma[i_], beta[i_]));                 \
        else if (gamma)                                                                   \
            for (i_ = 0; i_ < len; i_++) y[i_] = repdl__canon(repdl__fmul(xhat[i_], gamma[i_])); \
        else if (beta)                                                                    \
            for (i_ = 0; i_ < len; i_++) y[i_] = repdl__canon(repdl__fadd(xhat[i_], beta[i_])); \
        else                                                                              \
            for (i_ = 0; i_ < len; i_++) y[i_] = repdl__canon(xhat[i_]);                  \
    } while (0)

REPDL_FN void repdl__norm_affine(float *y, float *xhat, size_t len, const float *gamma,
                                 const float *beta)
{
    REPDL__NORM_AFFINE_LOOPS(repdl__fmaf);
}

#if REPDL__NORM_X86
/* The same with the hardware fma: the clone's form (hw = 1 below). */
__attribute__((target("avx2,fma"))) static inline void
repdl__norm_affine_hw(float *y, float *xhat, size_t len, const float *gamma, const float *beta)
{
    REPDL__NORM_AFFINE_LOOPS(__builtin_fmaf);
}
#define REPDL__NORM_AFFINE(hw, y, xh, len, g, b)                                          \
    ((hw) ? repdl__norm_affine_hw((y), (xh), (len), (g), (b))                             \
          : repdl__norm_affine((y), (xh), (len), (g), (b)))
#else
#define REPDL__NORM_AFFINE(hw, y, xh, len, g, b)                                          \
    ((void)(hw), repdl__norm_affine((y), (xh), (len), (g), (b)))
#endif

/* ---- Layer norm ---- */

/* One row of a forward pass: y_i = the affine map of
   xhat_i = RN(RN(x_i - mu) * rs) (layer norm, center == 1) or
   RN(x_i * rs) (RMS norm, center == 0), a chunk at a time.  y may be x.
   hw: the clone's hardware fma (1 only inside a target("avx2,fma") clone). */
REPDL__NORM_BODY void repdl__norm_row_out(const float *xr, float *yr, size_t cols, int center,
                                          float mu, float rs, const float *gamma,
                                          const float *beta, int hw)
{
    size_t k, i;
    for (k = 0; k < cols; k += REPDL__NORM_CHUNK) {
        float xh[REPDL__NORM_CHUNK];
        size_t len = cols - k < REPDL__NORM_CHUNK ? cols - k : REPDL__NORM_CHUNK;
        if (center)
            for (i = 0; i < len; i++) xh[i] = repdl__fmul(repdl__fsub(xr[k + i], mu), rs);
        else
            for (i = 0; i < len; i++) xh[i] = repdl__fmul(xr[k + i], rs);
        REPDL__NORM_AFFINE(hw, yr + k, xh, len, gamma ? gamma + k : NULL, beta ? beta + k : NULL);
    }
}


/* The rows of layer norm's forward (below), hw as repdl__norm_row_out. */
REPDL__NORM_BODY void repdl__ln_fwd_rows(size_t rows, size_t cols, float eps, const float *x,
                                         const float *gamma, const float *beta, float *y,
                                         float *mean, float *rstd, int hw)
{
    size_t r;
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
        repdl__norm_row_out(xr, yr, cols, 1, mu, rs, gamma, beta, hw);
    }
}

#if REPDL__NORM_X86
REPDL__NORM_AVX2 void repdl__ln_fwd_avx2(size_t rows, size_t cols, float eps, const float *x,
                                         const float *gamma, const float *beta, float *y,
                                         float *mean, float *rstd)
{
    repdl__ln_fwd_rows(rows, cols, eps, x, gamma, beta, y, mean, rstd, 1);
}
#endif

/* y = layer_norm(x) over each row of cols values; mean[r], rstd[r] saved
   when not NULL.  gamma, beta: [cols] or NULL.  y may be x. */
REPDL_API repdl_status repdl_layer_norm_forward_f32(size_t rows, size_t cols, float eps,
                                                    const float *x, const float *gamma, const float *beta,
                                                    float *y, float *mean, float *rstd)
{
    REPDL__NORM_ENTRY(repdl__norm_rows_args(rows, cols, !x || !y));
#if REPDL__NORM_X86
    if (repdl__norm_isa()) {
        repdl__ln_fwd_avx2(rows, cols, eps, x, gamma, beta, y, mean, rstd);
        return REPDL_OK;
    }
#endif
    repdl__ln_fwd_rows(rows, cols, eps, x, gamma, beta, y, mean, rstd, 0);
    return REPDL_OK;
}

/* Column sums over rows for dgamma / dbeta, in the batch order
   (detail/accum.h, docs/canonical-order.md "The batch order"): for each
   micro-batch of REPDL_MICROBATCH rows (the last one short), the canonical
   sum over its rows (repdl_sum_f32 of those <= 16 terms, r ascending), then
   the buddy tree over the micro-batches; out[j] canonical, -0.0 when
   rows == 0.  The terms v(r, j):
     mode 0:  v = dy[r][j]
     mode 1:  v = RN(dy[r][j] * RN(RN(x[r][j] - mean[r]) * rstd[r]))   (layer)
     mode 2:  v = RN(dy[r][j] * RN(x[r][j] * rstd[r]))                   (rms) */

/* Prefetch hints (detail/accum.h; no value changes) for cb floats at g
   and at xr (NULL: none): the next block's piece of a row, asked for
   while the current one is computed.  The pieces of a column block are
   runs of 1 KiB 4 cols bytes apart, which the hardware prefetchers pick
   up late (measured: 0.64x -> 0.82x the plain loop for 4096 x 1024). */
REPDL_FN void repdl__norm_prefetch(const float *g, const float *xr, size_t cb)
{
    size_t c;
    for (c = 0; c < cb; c += 16) {
        REPDL__PREFETCH_L2(g + c);
        if (xr) REPDL__PREFETCH_L2(xr + c);
    }
}

/* The term of mode 1 (layer), 2 (rms) or 0 for one element: dy g, x xr,
   the row's mean mu and rstd rs. */
#define REPDL__NORM_TERM(mode, g, xr, mu, rs)                                             \
    ((mode) == 1 ? repdl__fmul((g), repdl__fmul(repdl__fsub((xr), (mu)), (rs)))         \
                 : (mode) == 2 ? repdl__fmul((g), repdl__fmul((xr), (rs))) : (g))

/* The micro-batch of the len (1 .. 16) rows from r0, columns [j0, j0 + cb)
   (cb <= REPDL__NORM_COLS): out[c] = its canonical sum of column j0 + c
   (repdl__cols_sum16's order); when out0 is not NULL (layer norm's dgamma
   and dbeta in one pass, mode 1) also out0[c] = the sum of the mode-0
   terms dy.  The first step of the fold (h = 8: rows v and v + 8, v < 8,
   REPDL__COLS_H8 of detail/accum.h; for a whole micro-batch also h = 4,
   REPDL__COLS_H84) is done as the row pieces are read, the terms kept
   from contraction by REPDL__KEEP_PROD (detail/barrier.h); a missing
   row v + 8 (v + 8 >= len) leaves the term of row v alone, a missing row
   v gives -0.0 (x + -0 == x: detail/accum.h, short leaves); then
   repdl__cols_fold8 or fold4 (16 KiB of stack an output).  Each row piece is read
   once, contiguously.  pf_len rows of the next block, pf_off floats from
   the current row pieces, pf_cb wide, are prefetched along the way. */
REPDL__NORM_BODY void repdl__norm_mb_cols(size_t r0, size_t len, size_t cols, size_t j0, size_t cb,
                                  const float *x, const float *mean, const float *rstd,
                                  const float *dy, int mode, float *out, float *out0,
                                  size_t pf_len, size_t pf_off, size_t pf_cb)
{
    float e[8][REPDL__NORM_COLS], e0[8][REPDL__NORM_COLS];
    uint32_t keep = repdl__opaque_ones();
    size_t v, c;
    if (len == REPDL_MICROBATCH && mode == 1) {
        /* a whole micro-batch: the steps h = 8 and h = 4 as the four row
           pieces v, v + 8, v + 4, v + 12 are read (REPDL__COLS_H84), then
           repdl__cols_fold4 */
        REPDL__ROLLED
        for (v = 0; v < 4; v++) {
            const float *g0 = dy + (r0 + v) * cols + j0, *x0 = x + (r0 + v) * cols + j0;
            const float *g8 = g0 + 8 * cols, *x8 = x0 + 8 * cols;
            const float *g4 = g0 + 4 * cols, *x4 = x0 + 4 * cols;
            const float *g12 = g0 + 12 * cols, *x12 = x0 + 12 * cols;
            float m0 = mean[r0 + v], m8 = mean[r0 + v + 8], m4 = mean[r0 + v + 4], m12 = mean[r0 + v + 12];
            float s0 = rstd[r0 + v], s8 = rstd[r0 + v + 8], s4 = rstd[r0 + v + 4], s12 = rstd[r0 + v + 12];
            float *ev = e[v], *e0v = e0[v];
            if (v < pf_len) repdl__norm_prefetch(g0 + pf_off, x0 + pf_off, pf_cb);
            if (v + 8 < pf_len) repdl__norm_prefetch(g8 + pf_off, x8 + pf_off, pf_cb);
            if (v + 4 < pf_len) repdl__norm_prefetch(g4 + pf_off, x4 + pf_off, pf_cb);
            if (v + 12 < pf_len) repdl__norm_prefetch(g12 + pf_off, x12 + pf_off, pf_cb);
            /* the term of row v + k, and its dy */
#define REPDL__T(k) REPDL__KEEP_PROD(g##k[c], repdl__fmul(repdl__fsub(x##k[c], m##k), s##k), keep)
#define REPDL__G(k) g##k[c]
            if (out0)
                for (c = 0; c < cb; c++) {
                    e0v[c] = REPDL__COLS_H84(REPDL__G);
                    ev[c] = REPDL__COLS_H84(REPDL__T);
                }
            else
                for (c = 0; c < cb; c++) ev[c] = REPDL__COLS_H84(REPDL__T);
#undef REPDL__T
#undef REPDL__G
        }
        REPDL__MATERIALIZE(e);
        REPDL__MATERIALIZE(e0);
        repdl__cols_fold4(e[0], REPDL__NORM_COLS, cb, out);
        if (out0) repdl__cols_fold4(e0[0], REPDL__NORM_COLS, cb, out0);
        return;
    }
    REPDL__ROLLED
    for (v = 0; v < 8; v++) {
        size_t ra = r0 + v, rb = r0 + v + 8;
        /* rows past the micro-batch are not formed (they may lie past x) */
        const float *ga = v < len ? dy + ra * cols + j0 : dy, *xa = v < len ? x + ra * cols + j0 : x;
        const float *gb = v + 8 < len ? dy + rb * cols + j0 : dy;
        const float *xb = v + 8 < len ? x + rb * cols + j0 : x;
        float *ev = e[v], *e0v = e0[v];
        if (v < pf_len) repdl__norm_prefetch(dy + ra * cols + j0 + pf_off, mode ? x + ra * cols + j0 + pf_off : NULL, pf_cb);
        if (v + 8 < pf_len) repdl__norm_prefetch(dy + rb * cols + j0 + pf_off, mode ? x + rb * cols + j0 + pf_off : NULL, pf_cb);
        if (v + 8 < len) {   /* the step h = 8 as rows v and v + 8 are read (REPDL__COLS_H8) */
            float m0 = mode == 1 ? mean[ra] : 0.0f, m8 = mode == 1 ? mean[rb] : 0.0f;
            float s0 = mode ? rstd[ra] : 0.0f, s8 = mode ? rstd[rb] : 0.0f;
            const float *g0 = ga, *x0 = xa, *g8 = gb, *x8 = xb;
#define REPDL__T(k) REPDL__KEEP_PROD(g##k[c], repdl__fmul(repdl__fsub(x##k[c], m##k), s##k), keep)
#define REPDL__R(k) REPDL__KEEP_PROD(g##k[c], repdl__fmul(x##k[c], s##k), keep)
#define REPDL__G(k) g##k[c]
            if (out0)
                for (c = 0; c < cb; c++) {
                    e0v[c] = REPDL__COLS_H8(REPDL__G);
                    ev[c] = REPDL__COLS_H8(REPDL__T);
                }
            else if (mode == 1)
                for (c = 0; c < cb; c++) ev[c] = REPDL__COLS_H8(REPDL__T);
            else if (mode == 2)
                for (c = 0; c < cb; c++) ev[c] = REPDL__COLS_H8(REPDL__R);
            else
                for (c = 0; c < cb; c++) ev[c] = REPDL__COLS_H8(REPDL__G);
#undef REPDL__T
#undef REPDL__R
#undef REPDL__G
        } else if (v < len) {
            float mua = mode == 1 ? mean[ra] : 0.0f, rsa = mode ? rstd[ra] : 0.0f;
            REPDL__ROLLED
            for (c = 0; c < cb; c++) ev[c] = REPDL__NORM_TERM(mode, ga[c], xa[c], mua, rsa);
            if (out0) {
                REPDL__ROLLED
                for (c = 0; c < cb; c++) e0v[c] = ga[c];
            }
        } else {
            REPDL__ROLLED
            for (c = 0; c < cb; c++) ev[c] = e0v[c] = -0.0f;
        }
    }
    REPDL__MATERIALIZE(e); /* rounded terms: no FMA with the fold */
    REPDL__MATERIALIZE(e0);
    repdl__cols_fold8(e[0], REPDL__NORM_COLS, cb, out);
    if (out0) repdl__cols_fold8(e0[0], REPDL__NORM_COLS, cb, out0);
}

/* The vector trees of repdl__norm_colsum: one column strip
   (min(cols, REPDL__NORM_COLS) floats) a node, vt0 only when `two` (the
   mode-0 sums of out0 in the same pass), none for one micro-batch.  Taken
   by the caller before its first write (the out-of-memory rule, detail/
   accum.h): 0, or -1 with nothing held. */
REPDL_FN int repdl__norm_trees(size_t rows, size_t cols, int two, repdl__vtree *vt,
                               repdl__vtree *vt0)
{
    size_t G = repdl__mb_count(rows), cw = cols < REPDL__NORM_COLS ? cols : REPDL__NORM_COLS;
    int e;
    if (G <= 1) cw = 0;
    e = repdl__vtree_init(vt, cw, G);
    if (repdl__vtree_init(vt0, two ? cw : 0, G) || e) {
        repdl__vtree_free(vt);
        repdl__vtree_free(vt0);
        return -1;
    }
    return 0;
}

/* The micro-batch values of a row are pushed into the vector tree vt
   (out0 not NULL: vt0, for the mode-0 sums, from the same pass), a column
   strip at a time down all the rows: the trees' vectors (one strip) stay
   in L1.  One micro-batch (rows <= 16): its values, no tree. */
REPDL__NORM_BODY void repdl__norm_colsum(size_t rows, size_t cols, const float *x, const float *mean,
                                 const float *rstd, const float *dy, int mode, float *out,
                                 float *out0, repdl__vtree *vt, repdl__vtree *vt0)
{
    size_t G = repdl__mb_count(rows), g, j0, c;
    if (cols == 0) return;
    if (G <= 1) { /* one micro-batch (or none: -0) */
        for (j0 = 0; j0 < cols; j0 += REPDL__NORM_COLS)
            if (G == 1)
                repdl__norm_mb_cols(0, rows, cols, j0,
                                    cols - j0 < REPDL__NORM_COLS ? cols - j0 : REPDL__NORM_COLS,
                                    x, mean, rstd, dy, mode, out + j0, out0 ? out0 + j0 : NULL,
                                    0, 0, 0);
        for (c = 0; c < cols; c++) out[c] = G ? repdl__canon(out[c]) : -0.0f;
        if (out0)
            for (c = 0; c < cols; c++) out0[c] = G ? repdl__canon(out0[c]) : -0.0f;
        return;
    }
    for (j0 = 0; j0 < cols; j0 += REPDL__NORM_COLS) {
        size_t cb = cols - j0 < REPDL__NORM_COLS ? cols - j0 : REPDL__NORM_COLS;
        /* an empty tree of cb floats a node (its slots fit) */
        repdl__vtree_clear(vt, cb);
        if (out0) repdl__vtree_clear(vt0, cb);
        for (g = 0; g < G; g++) {
            /* the next block: the next micro-batch, or the next strip */
            size_t r0 = g * REPDL_MICROBATCH, len = repdl__mb_end(rows, r0) - r0;
            size_t r1 = r0 + len < rows ? r0 + len : 0, j1 = r1 ? j0 : j0 + cb;
            size_t len1 = j1 < cols ? repdl__mb_end(rows, r1) - r1 : 0;
            float *d = repdl__vtree_dest(vt, 0), *d0 = out0 ? repdl__vtree_dest(vt0, 0) : NULL;
            repdl__norm_mb_cols(r0, len, cols, j0, cb, x, mean, rstd, dy, mode, d, d0, len1,
                                (r1 - r0) * cols + j1 - j0,
                                cols - j1 < REPDL__NORM_COLS ? cols - j1 : REPDL__NORM_COLS);
            repdl__vtree_push(vt, 0);
            if (out0) repdl__vtree_push(vt0, 0);
        }
        repdl__vtree_root(vt, out + j0);
        if (out0) repdl__vtree_root(vt0, out0 + j0);
    }
}

/* dx of layer norm, row by row: c1 and c2 of a row (its two canonical
   sums, a leaf at a time, divided by cols) ... */
REPDL__NORM_BODY void repdl__ln_bwd_consts(const float *xr, const float *gr, const float *gamma, size_t cols,
                                   float mu, float rs, float *c1, float *c2)
{
    size_t j, i, len;
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
    *c1 = repdl__div_count_f32(repdl__tree_root(&tg), cols);
    *c2 = repdl__div_count_f32(repdl__tree_root(&tp), cols);
}

/* ... and dx of columns [j, j + len) of a row (len <= REPDL__NORM_CHUNK). */
REPDL__NORM_BODY void repdl__ln_bwd_out(const float *xr, const float *gr, const float *gamma, float *o,
                                size_t j, size_t len, float mu, float rs, float c1, float c2)
{
    float g[REPDL__NORM_CHUNK], q[REPDL__NORM_CHUNK];
    size_t i;
    for (i = 0; i < len; i++) {
        float xh = repdl__fmul(repdl__fsub(xr[j + i], mu), rs);
        g[i] = gamma ? repdl__fmul(gr[j + i], gamma[j + i]) : gr[j + i];
        q[i] = repdl__fmul(xh, c2);
    }
    REPDL__MATERIALIZE(g);
    REPDL__MATERIALIZE(q);
    for (i = 0; i < len; i++)
        o[j + i] = repdl__canon(repdl__fmul(rs, repdl__fsub(repdl__fsub(g[i], c1), q[i])));
}

/* The whole backward with dx and a column sum, a micro-batch at a time:
   the c1, c2 of its rows, then per column block its rows' dx and the
   block's micro-batch values (repdl__norm_mb_cols, mode 1 with dbeta as
   out0, or mode 0), so that the column sums read the row pieces dx has
   just read, from cache.  The values and their order are those of the
   separate passes.  Returns -1, having written nothing, when a vector
   tree cannot be had. */
REPDL__NORM_BODY int repdl__ln_bwd_fused(size_t rows, size_t cols, const float *x, const float *gamma,
                                 const float *mean, const float *rstd, const float *dy, float *dx,
                                 float *dgamma, float *dbeta)
{
    size_t G = repdl__mb_count(rows), g, j0, v, c;
    int mode = dgamma ? 1 : 0;
    float *out = dgamma ? dgamma : dbeta, *out0 = dgamma ? dbeta : NULL;
    repdl__vtree vt = {0, 0, 0, NULL, NULL}, vt0 = {0, 0, 0, NULL, NULL};
    if (G > 1) {
        if (repdl__vtree_init(&vt, cols, G) != 0) return -1;
        if (out0 && repdl__vtree_init(&vt0, cols, G) != 0) {
            repdl__vtree_free(&vt);
            return -1;
        }
    }
    for (g = 0; g < G; g++) {
        size_t r0 = g * REPDL_MICROBATCH, len = repdl__mb_end(rows, r0) - r0;
        float c1[REPDL_MICROBATCH], c2[REPDL_MICROBATCH];
        float *d = G > 1 ? repdl__vtree_dest(&vt, 0) : out;
        float *d0 = out0 ? (G > 1 ? repdl__vtree_dest(&vt0, 0) : out0) : NULL;
        for (v = 0; v < len; v++) {
            size_t r = r0 + v;
            repdl__ln_bwd_consts(x + r * cols, dy + r * cols, gamma, cols, mean[r], rstd[r], &c1[v],
                                 &c2[v]);
        }
        for (j0 = 0; j0 < cols; j0 += REPDL__NORM_COLS) {
            size_t cb = cols - j0 < REPDL__NORM_COLS ? cols - j0 : REPDL__NORM_COLS;
            for (v = 0; v < len; v++) {
                size_t r = r0 + v, j;
                for (j = j0; j < j0 + cb; j += REPDL__NORM_CHUNK)
                    repdl__ln_bwd_out(x + r * cols, dy + r * cols, gamma, dx + r * cols, j,
                                      j0 + cb - j < REPDL__NORM_CHUNK ? j0 + cb - j : REPDL__NORM_CHUNK,
                                      mean[r], rstd[r], c1[v], c2[v]);
            }
            repdl__norm_mb_cols(r0, len, cols, j0, cb, x, mean, rstd, dy, mode, d + j0,
                                d0 ? d0 + j0 : NULL, 0, 0, 0);
        }
        if (G > 1) {
            repdl__vtree_push(&vt, 0);
            if (out0) repdl__vtree_push(&vt0, 0);
        }
    }
    if (G > 1) {
        repdl__vtree_root(&vt, out);
        repdl__vtree_free(&vt);
        if (out0) {
            repdl__vtree_root(&vt0, out0);
            repdl__vtree_free(&vt0);
        }
    } else {
        for (c = 0; c < cols; c++) out[c] = repdl__canon(out[c]);
        if (out0)
            for (c = 0; c < cols; c++) out0[c] = repdl__canon(out0[c]);
    }
    return 0;
}

/* The body of layer norm's backward (below), after the checks. */
REPDL__NORM_BODY repdl_status repdl__ln_bwd_body(size_t rows, size_t cols, const float *x,
                                                 const float *gamma, const float *mean,
                                                 const float *rstd, const float *dy, float *dx,
                                                 float *dgamma, float *dbeta)
{
    size_t r, j;
    repdl__vtree vt, vt0;
    if (dx && (dgamma || dbeta) && rows && cols &&
        repdl__ln_bwd_fused(rows, cols, x, gamma, mean, rstd, dy, dx, dgamma, dbeta) == 0)
        return REPDL_OK;
    /* the separate passes: their trees before the first write */
    if (repdl__norm_trees(dgamma || dbeta ? rows : 0, cols, dgamma && dbeta, &vt, &vt0))
        return REPDL_ERR_NOMEM;
    if (dx && cols) {   /* cols = 0: no dx, and mean, rstd may be NULL */
        for (r = 0; r < rows; r++) {
            const float *xr = REPDL__OFFSET(x, r * cols), *gr = REPDL__OFFSET(dy, r * cols);
            float *o = REPDL__OFFSET(dx, r * cols);
            float c1, c2;
            repdl__ln_bwd_consts(xr, gr, gamma, cols, mean[r], rstd[r], &c1, &c2);
            for (j = 0; j < cols; j += REPDL__NORM_CHUNK)
                repdl__ln_bwd_out(xr, gr, gamma, o, j, cols - j < REPDL__NORM_CHUNK ? cols - j
                                                                                 : REPDL__NORM_CHUNK,
                                  mean[r], rstd[r], c1, c2);
        }
    }
    if (dgamma) repdl__norm_colsum(rows, cols, x, mean, rstd, dy, 1, dgamma, dbeta, &vt, &vt0);
    else if (dbeta) repdl__norm_colsum(rows, cols, x, mean, rstd, dy, 0, dbeta, NULL, &vt, &vt0);
    repdl__vtree_free(&vt);
    repdl__vtree_free(&vt0);
    return REPDL_OK;
}

#if REPDL__NORM_X86
REPDL__NORM_AVX2 repdl_status repdl__ln_bwd_avx2(size_t rows, size_t cols, const float *x,
                                                 const float *gamma, const float *mean,
                                                 const float *rstd, const float *dy, float *dx,
                                                 float *dgamma, float *dbeta)
{
    return repdl__ln_bwd_body(rows, cols, x, gamma, mean, rstd, dy, dx, dgamma, dbeta);
}
#endif

/* Backward of layer norm (see the top of the file).  mean, rstd: as saved
   by the forward pass (required).  gamma NULL: non-affine.  dx, dgamma,
   dbeta: NULL skips that output. */
REPDL_API repdl_status repdl_layer_norm_backward_f32(size_t rows, size_t cols, const float *x,
                                                     const float *gamma, const float *mean,
                                                     const float *rstd, const float *dy, float *dx,
                                                     float *dgamma, float *dbeta)
{
    REPDL__NORM_ENTRY(repdl__norm_rows_args(rows, cols, !x || !dy || !mean || !rstd));
#if REPDL__NORM_X86
    if (repdl__norm_isa())
        return repdl__ln_bwd_avx2(rows, cols, x, gamma, mean, rstd, dy, dx, dgamma, dbeta);
#endif
    return repdl__ln_bwd_body(rows, cols, x, gamma, mean, rstd, dy, dx, dgamma, dbeta);
}

/* ---- RMS norm ---- */

/* The rows of RMS norm's forward (below), hw as repdl__norm_row_out. */
REPDL__NORM_BODY void repdl__rms_fwd_rows(size_t rows, size_t cols, float eps, const float *x,
                                          const float *gamma, float *y, float *rstd, int hw)
{
    size_t r;
    for (r = 0; r < rows; r++) {
        const float *xr = REPDL__OFFSET(x, r * cols);
        float *yr = REPDL__OFFSET(y, r * cols);
        /* RN(repdl_sumsq_f32(cols, xr) / cols) */
        float ms = cols ? repdl__div_count_f32(repdl__row_dot_f32(cols, xr, xr), cols) : repdl__nanf();
        float rs = repdl__norm_rstd(ms, eps);
        if (rstd) rstd[r] = rs;
        repdl__norm_row_out(xr, yr, cols, 0, 0.0f, rs, gamma, NULL, hw);
    }
}

#if REPDL__NORM_X86
REPDL__NORM_AVX2 void repdl__rms_fwd_avx2(size_t rows, size_t cols, float eps, const float *x,
                                          const float *gamma, float *y, float *rstd)
{
    repdl__rms_fwd_rows(rows, cols, eps, x, gamma, y, rstd, 1);
}
#endif

/* y = rms_norm(x) over each row; rstd[r] saved when not NULL.  gamma:
   [cols] or NULL.  y may be x. */
REPDL_API repdl_status repdl_rms_norm_forward_f32(size_t rows, size_t cols, float eps,
                                                  const float *x, const float *gamma, float *y, float *rstd)
{
    REPDL__NORM_ENTRY(repdl__norm_rows_args(rows, cols, !x || !y));
#if REPDL__NORM_X86
    if (repdl__norm_isa()) {
        repdl__rms_fwd_avx2(rows, cols, eps, x, gamma, y, rstd);
        return REPDL_OK;
    }
#endif
    repdl__rms_fwd_rows(rows, cols, eps, x, gamma, y, rstd, 0);
    return REPDL_OK;
}

/* The body of RMS norm's backward (below), after the checks. */
REPDL__NORM_BODY repdl_status repdl__rms_bwd_body(size_t rows, size_t cols, const float *x,
                                                  const float *gamma, const float *rstd,
                                                  const float *dy, float *dx, float *dgamma)
{
    size_t r, j, i, len;
    repdl__vtree vt, vt0;
    if (repdl__norm_trees(dgamma ? rows : 0, cols, 0, &vt, &vt0)) return REPDL_ERR_NOMEM;
    if (dx && cols) {   /* cols = 0: no dx, and rstd may be NULL */
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
    if (dgamma) repdl__norm_colsum(rows, cols, x, NULL, rstd, dy, 2, dgamma, NULL, &vt, &vt0);
    repdl__vtree_free(&vt);
    repdl__vtree_free(&vt0);
    return REPDL_OK;
}

#if REPDL__NORM_X86
REPDL__NORM_AVX2 repdl_status repdl__rms_bwd_avx2(size_t rows, size_t cols, const float *x,
                                                  const float *gamma, const float *rstd,
                                                  const float *dy, float *dx, float *dgamma)
{
    return repdl__rms_bwd_body(rows, cols, x, gamma, rstd, dy, dx, dgamma);
}
#endif

/* Backward of RMS norm.  rstd as saved by the forward pass (required);
   gamma NULL: non-affine; dx, dgamma NULL: skipped. */
REPDL_API repdl_status repdl_rms_norm_backward_f32(size_t rows, size_t cols, const float *x,
                                                   const float *gamma, const float *rstd,
                                                   const float *dy, float *dx, float *dgamma)
{
    REPDL__NORM_ENTRY(repdl__norm_rows_args(rows, cols, !x || !dy || !rstd));
#if REPDL__NORM_X86
    if (repdl__norm_isa()) return repdl__rms_bwd_avx2(rows, cols, x, gamma, rstd, dy, dx, dgamma);
#endif
    return repdl__rms_bwd_body(rows, cols, x, gamma, rstd, dy, dx, dgamma);
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

/* The batch-order sums of channel ch (docs/canonical-order.md, "The batch
   order"): for each micro-batch of REPDL_MICROBATCH images (the last one
   short), the canonical sum (repdl_sum_f32's order) of its ni * hw terms
   in element order (image, then k), then the buddy tree over the
   micro-batches (-0.0 for none; not canonicalised).  The terms of element e:
     kind 0:  s[0]: x_e                             (the mean's sum)
     kind 1:  s[0]: RN(RN(x_e - mu)^2)              (the variance's)
     kind 2:  s[0]: dy_e, s[1]: RN(dy_e * RN(RN(x_e - mu) * rs))  (backward) */
REPDL_FN void repdl__bn_sums(int kind, const float *x, const float *dy, size_t n, size_t c,
                             size_t hw, size_t ch, float mu, float rs, float *s)
{
    size_t i0, e, len, q;
    int k, ns = kind == 2 ? 2 : 1;
    repdl__tree T[2];
    repdl__tree_init(&T[0]);
    repdl__tree_init(&T[1]);
    for (i0 = 0; i0 < n; i0 += REPDL_MICROBATCH) {
        size_t ni = repdl__mb_end(n, i0) - i0;
        size_t Ng = ni * hw, e0 = i0 * hw;
        repdl__tree t[2];
        repdl__tree_init(&t[0]);
        repdl__tree_init(&t[1]);
        REPDL__LEAVES(Ng, e, len) {
            float p[2][REPDL_SUM_LEAF];
            if (kind == 2) {
                repdl__bn_gather(dy, c, hw, ch, e0 + e, len, p[0]);
                repdl__bn_gather(x, c, hw, ch, e0 + e, len, p[1]);
                for (q = 0; q < len; q++)
                    p[1][q] = repdl__fmul(p[0][q], repdl__fmul(repdl__fsub(p[1][q], mu), rs));
            } else {
                repdl__bn_gather(x, c, hw, ch, e0 + e, len, p[0]);
                if (kind == 1) repdl__sqdev(p[0], len, mu);
            }
            for (k = 0; k < ns; k++) repdl__tree_leaf(&t[k], p[k], len);
        }
        for (k = 0; k < ns; k++) repdl__tree_push(&T[k], 0, repdl__tree_root(&t[k]));
    }
    for (k = 0; k < ns; k++) s[k] = repdl__tree_root(&T[k]);
}

/* Mean and population variance of channel ch (N > 0); *s2 receives the
   batch-order sum of the squared deviations (for the unbiased variance). */
REPDL_FN void repdl__bn_stats(const float *x, size_t n, size_t c, size_t hw, size_t ch,
                              float *mean, float *var, float *s2)
{
    size_t N = n * hw;
    float s, mu;
    repdl__bn_sums(0, x, NULL, n, c, hw, ch, 0.0f, 0.0f, &s);
    mu = repdl__canon(repdl__div_count_f32(s, N));
    repdl__bn_sums(1, x, NULL, n, c, hw, ch, mu, 0.0f, s2);
    *mean = mu;
    *var = repdl__canon(repdl__div_count_f32(*s2, N));
}

/* y of channel ch from its mean and rstd (both passes of batch norm); the
   affine step by the clone's hardware fma where the dispatch allows it
   (repdl__norm_affine_hw, called: the rest stays in the caller's ISA). */
REPDL_FN void repdl__bn_apply(const float *x, size_t n, size_t c, size_t hw, size_t ch,
                              const float *gamma, const float *beta, float mu, float rs,
                              float *y)
{
    size_t i, k, q;
    int hwfma = repdl__norm_isa();
    /* row i starts at (i c + ch) hw: stepped to it, never past the last
       row (gcc's constant propagation, given (i c + ch) hw, saw an
       overflow for n it could not rule out, -Waggressive-loop-optimizations) */
    const float *xr = x + ch * hw;
    float *yr = y + ch * hw;
    for (i = 0; i < n; i++) {
        if (i) {
            xr += c * hw;
            yr += c * hw;
        }
        for (k = 0; k < hw; k += REPDL__NORM_CHUNK) {
            float xh[REPDL__NORM_CHUNK], gb[REPDL__NORM_CHUNK], bb[REPDL__NORM_CHUNK];
            size_t len = hw - k < REPDL__NORM_CHUNK ? hw - k : REPDL__NORM_CHUNK;
            for (q = 0; q < len; q++) {
                xh[q] = repdl__fmul(repdl__fsub(xr[k + q], mu), rs);
                gb[q] = gamma ? gamma[ch] : 1.0f;
                bb[q] = beta ? beta[ch] : 0.0f;
            }
            REPDL__NORM_AFFINE(hwfma, yr + k, xh, len, gamma ? gb : NULL, beta ? bb : NULL);
        }
    }
}

/* Training forward: batch statistics per channel (above), y, and
     save_mean[ch] = mean, save_rstd[ch] = rstd            (NULL: not saved)
     running_mean = RN(RN(momentum * mean) + RN(RN(1 - momentum) * running_mean))
     running_var  = RN(RN(momentum * uvar) + RN(RN(1 - momentum) * running_var))
   with uvar = RN(B(RN(d_i^2)) / (N - 1)), the unbiased variance (PyTorch's
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
    REPDL__NORM_ENTRY(repdl__norm_nchw_args(n, c, hw, !x || !y));
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
    REPDL__NORM_ENTRY(repdl__norm_nchw_args(n, c, hw, !x || !y || !running_mean || !running_var));
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
    size_t ch, N = n * hw, i, k, q;
    REPDL__NORM_ENTRY(repdl__norm_nchw_args(n, c, hw, !x || !dy || !save_mean || !save_rstd));
    for (ch = 0; ch < c; ch++) {
        /* N == 0: the sums are empty (-0); save_mean/save_rstd are not read */
        float mu = N ? save_mean[ch] : 0.0f, rs = N ? save_rstd[ch] : 0.0f, sdy, sdx, c1, c2, kk;
        float sums[2] = {-0.0f, -0.0f};
        /* N == 0 (n or hw 0): every micro-batch's sum is empty, -0, and
           the tree of -0 roots is -0; not walked, so that n = 2^40 with
           hw = 0 returns at once */
        if (N) repdl__bn_sums(2, x, dy, n, c, hw, ch, mu, rs, sums);
        sdy = repdl__canon(sums[0]);
        sdx = repdl__canon(sums[1]);
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
