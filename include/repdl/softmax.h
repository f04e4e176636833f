/* SPDX-License-Identifier: MIT */
/* repdl/softmax.h: softmax, log-softmax, cross-entropy and NLL loss over the
   last dimension of a row-major [rows x cols] binary32 array, with their
   backward passes.  Reproducible, not correctly rounded: every result is a
   fixed sequence of correctly rounded steps (the same bits on every
   compiler, flag set, thread count, batch size and on the GPU,
   cuda/nn_softmax_norm.cu), documented below and in docs/nn-softmax-norm.md.

     repdl_softmax_f32(rows, cols, x, y);               y may be x
     float loss;                                        target: size_t class indices
     repdl_cross_entropy_f32(rows, cols, REPDL_REDUCTION_MEAN, logits, target,
                             &loss, dlogits);           dlogits may be NULL
   Every function returns a repdl_status (REPDL_OK, REPDL_ERR_OVERFLOW when
   rows x cols floats do not fit in size_t bytes, REPDL_ERR_INVALID for a
   NULL array that must be read or written, or an unknown reduction); on an
   error nothing is written.

   Notation: RN(.) one rounding to nearest-even binary32; for a row
   x[0..n) (n = cols):
     m      = repdl_max_f32(n, x)        max by the rules of reduce_minmax.h
                                         (-0 < +0; any NaN gives NaN)
     d_i    = RN(x_i - m)
     e_i    = repdl_exp_f32(d_i)            correctly rounded exp
     s      = repdl_sum_f32(n, e)        the canonical sum (reduce.h)
   softmax       y_i = RN(e_i / s)                      (IEEE division)
   log_softmax   y_i = RN(d_i - repdl_log_f32(s))          (correctly rounded log)
   The sums are computed a leaf (1024 elements) at a time as they are
   produced, pushed into the canonical tree: the same bits as
   repdl_sum_f32 on the whole array (reduce.h, section 6 of
   docs/canonical-order.md).

   Special rows (the plain definition above applied, NaN made canonical):
     - any NaN in the row: the whole row is the canonical NaN 0x7fc00000;
     - a +inf in the row: NaN row (inf - inf = NaN enters the sum);
     - every element -inf: NaN row (-inf - -inf = NaN), as in PyTorch;
     - otherwise m is finite, the e_i are in [0, 1], e_argmax = 1 and
       s is in [1, n]: no NaN, -inf inputs give softmax +0 and
       log_softmax -inf;
     - n == 1: softmax 1, log_softmax +0 (x finite);
     - cols == 0 or rows == 0: nothing is read or written (NULL allowed).
   Every row is computed alone: its bits never depend on `rows` or on the
   other rows (batch invariance), so rows may be split between threads.
   In place (y == x, dx == dy or dx == y) is allowed for every function of
   this file; any other overlap is not.

   Backward (y the forward output, dy the incoming gradient):
     softmax_backward      dot = repdl_dot_f32(n, y, dy)  (each product
                           rounded, canonical sum), dx_i = RN(y_i * RN(dy_i - dot))
     log_softmax_backward  s = repdl_sum_f32(n, dy),
                           dx_i = RN(dy_i - RN(repdl_exp_f32(y_i) * s))
   (products are rounded before they are subtracted: buffered behind a
   compiler barrier, never contracted into an FMA).

   Losses: see repdl_cross_entropy_f32 and repdl_nll_loss_f32 below. */
#ifndef REPDL_SOFTMAX_H
#define REPDL_SOFTMAX_H

#include "config.h"
#include "exp.h"
#include "log.h"
#include "reduce.h"
REPDL_BEGIN_CODE

#define REPDL_REDUCTION_MEAN 0
#define REPDL_REDUCTION_SUM 1

/* Chunk of the elementwise passes that need a product rounded before an
   addition: the products go to a stack buffer behind REPDL__MATERIALIZE. */
#define REPDL__NN_CHUNK 256

/* y[0..n) = the canonical NaN. */
REPDL_FN void repdl__sm_fill_nan(float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl__nanf();
}

/* 1 when m is finite (neither NaN nor infinite). */
REPDL_FN int repdl__sm_finite(float m)
{
    return (repdl__asuint(m) & 0x7fffffffu) < 0x7f800000u;
}

/* e[i] = repdl_exp_f32(d[i]), i < n, bit for bit: detail/cr.h's skeleton
   (repdl_exp_array_f32) in blocks of REPDL__SM_BLOCK elements instead of
   REPDL__ARRAY_CHUNK, only the last one padded (with zeros), so that a
   short row (cross-entropy's classes) does not pay for a chunk of 256.
   Per block: the branch-free lane repdl__exp_lane on all of it, then
   repdl_exp_f32 on its flagged real elements (a lane that is not flagged
   passed the rounding test: its result is repdl_exp_f32's), then the
   block written after every read of it (e may be d). */
#define REPDL__SM_BLOCK 16
REPDL_FN void repdl__sm_exp_blocks(size_t n, const float *d, float *e)
{
    size_t i0, i;
    for (i0 = 0; i0 < n; i0 += REPDL__SM_BLOCK) {
        float xb[REPDL__SM_BLOCK];
        uint32_t res[REPDL__SM_BLOCK], bad[REPDL__SM_BLOCK], any = 0;
        size_t m = n - i0 < REPDL__SM_BLOCK ? n - i0 : REPDL__SM_BLOCK;
        for (i = 0; i < REPDL__SM_BLOCK; i++) xb[i] = i < m ? d[i0 + i] : 0.0f;
        for (i = 0; i < REPDL__SM_BLOCK; i++) {
            res[i] = repdl__exp_lane(repdl__asuint(xb[i]), &bad[i]);
            any |= bad[i];
        }
        if (REPDL_UNLIKELY(any))
            for (i = 0; i < m; i++)
                if (bad[i]) res[i] = repdl__asuint(repdl_exp_f32(xb[i]));
        memcpy(e + i0, res, m * sizeof res[0]);
    }
}

/* The first pass of a row shared by softmax, log_softmax and
   cross-entropy, for a finite max m: e[i] = repdl_exp_f32(RN(x_i - m)) (when
   e != NULL) and d[i] = RN(x_i - m) (when d != NULL), and the canonical
   sum of the e_i, returned.  One leaf at a time; x may equal e or d. */
REPDL_FN float repdl__softmax_pass(const float *x, size_t n, float m, float *e, float *d)
{
    repdl__tree t;
    size_t j, i, len;
    repdl__tree_init(&t);
    REPDL__LEAVES(n, j, len) {
        float db[REPDL_SUM_LEAF], eb[REPDL_SUM_LEAF];
        float *dd = d ? d + j : db, *ee = e ? e + j : eb;
        for (i = 0; i < len; i++) dd[i] = repdl__fsub(x[j + i], m);
        /* a leaf shorter than one chunk: blocks of 16, not a chunk of 256 */
        if (len < REPDL__ARRAY_CHUNK) repdl__sm_exp_blocks(len, dd, ee);
        else repdl_exp_array_f32(len, dd, ee);
        repdl__tree_leaf_copy(&t, ee, len);
    }
    return repdl__tree_root(&t);
}

/* One row of softmax. */
REPDL_FN void repdl__softmax_row(const float *x, float *y, size_t n)
{
    float m = repdl_max_f32(n, x), s;
    size_t i;
    if (!repdl__sm_finite(m)) { repdl__sm_fill_nan(y, n); return; }
    s = repdl__softmax_pass(x, n, m, y, NULL); /* s in [1, n] */
    for (i = 0; i < n; i++) y[i] = repdl__fdiv(y[i], s);
}

/* The checks of every row-wise function here: REPDL_ERR_OVERFLOW when
   rows x cols floats do not fit in size_t bytes; REPDL_OK otherwise, with
   *total = rows * cols.  The callers then return REPDL_OK at once when
   *total == 0 (nothing read or written, NULL allowed), and
   REPDL_ERR_INVALID when an array they must read or write is NULL. */
REPDL_FN repdl_status repdl__rows_check(size_t rows, size_t cols, size_t *total)
{
    size_t t = rows;
    *total = 0;
    if (repdl__size_mul(&t, cols)) return REPDL_ERR_OVERFLOW;
    *total = t;
    return REPDL_OK;
}

/* The whole rule above for a row-wise function whose needed arrays are
   not all given (missing): 1 when there is work, otherwise the call's
   status (REPDL_OK = 0 for rows x cols == 0, or an error, all < 1). */
REPDL_FN int repdl__rows_work(size_t rows, size_t cols, int missing)
{
    size_t total;
    repdl_status st = repdl__rows_check(rows, cols, &total);
    if (st != REPDL_OK || total == 0) return (int)st;
    return missing ? (int)REPDL_ERR_INVALID : 1;
}

/* One row of log_softmax. */
REPDL_FN void repdl__log_softmax_row(const float *x, float *y, size_t n)
{
    float m = repdl_max_f32(n, x), ls;
    size_t i;
    if (!repdl__sm_finite(m)) { repdl__sm_fill_nan(y, n); return; }
    ls = repdl_log_f32(repdl__softmax_pass(x, n, m, NULL, y)); /* y holds d */
    for (i = 0; i < n; i++) y[i] = repdl__fsub(y[i], ls);
}

/* Rows shorter than one chunk (0 < cols < REPDL__ARRAY_CHUNK) are taken
   g = REPDL__ARRAY_CHUNK / cols at a time (nr <= g rows, nr x cols <=
   REPDL__ARRAY_CHUNK elements): the exponentials of the whole group in
   one pass of repdl_exp_array_f32 (one chunk) instead of a padded block
   per row.  Each element is still repdl_exp_f32 of the same argument and
   each row's sum still one leaf of the canonical tree over that row
   alone, so every bit is that of the row functions above. */
#define REPDL__SM_GROUP(cols) (REPDL__ARRAY_CHUNK / (cols))

/* softmax or log_softmax of nr short rows (nr x n <= REPDL__ARRAY_CHUNK)
   at x, y: every x of the group is read before any y is written (y may
   be x). */
REPDL_FN void repdl__softmax_group(const float *x, float *y, size_t nr, size_t n, int log)
{
    float d[REPDL__ARRAY_CHUNK], e[REPDL__ARRAY_CHUNK], p[REPDL_SUM_LEAF];
    unsigned char ok[REPDL__ARRAY_CHUNK];
    size_t r, i;
    for (r = 0; r < nr; r++) {
        const float *xr = x + r * n;
        float m = repdl_max_f32(n, xr);
        ok[r] = (unsigned char)repdl__sm_finite(m);
        if (ok[r]) for (i = 0; i < n; i++) d[r * n + i] = repdl__fsub(xr[i], m);
        else for (i = 0; i < n; i++) d[r * n + i] = 0.0f; /* unused: the row is NaN */
    }
    (void)repdl_exp_array_f32(nr * n, d, e);
    for (r = 0; r < nr; r++) {
        const float *er = e + r * n, *dr = d + r * n;
        float *yr = y + r * n, s;
        repdl__tree t;
        if (!ok[r]) { repdl__sm_fill_nan(yr, n); continue; }
        repdl__tree_init(&t);
        /* n < one leaf: repdl__softmax_pass's sum (repdl__tree_leaf_copy's
           short case, written out: its full-leaf case would read past e,
           which gcc -O3 -Warray-bounds reports although n < 256) */
        memcpy(p, er, n * sizeof *er);
        repdl__tree_leaf(&t, p, n);
        s = repdl__tree_root(&t);
        if (log) {
            float ls = repdl_log_f32(s);
            for (i = 0; i < n; i++) yr[i] = repdl__fsub(dr[i], ls);
        } else {
            for (i = 0; i < n; i++) yr[i] = repdl__fdiv(er[i], s);
        }
    }
}

/* softmax (log == 0) or log_softmax (log == 1) of every row, with the
   checks of repdl__rows_check. */
REPDL_FN repdl_status repdl__softmax_rows(size_t rows, size_t cols, const float *x, float *y,
                                          int log)
{
    size_t r;
    int go = repdl__rows_work(rows, cols, !x || !y);
    if (go != 1) return (repdl_status)go;
    if (cols < REPDL__ARRAY_CHUNK) {
        size_t g = REPDL__SM_GROUP(cols);
        for (r = 0; r < rows; r += g)
            repdl__softmax_group(x + r * cols, y + r * cols, rows - r < g ? rows - r : g, cols,
                                 log);
        return REPDL_OK;
    }
    for (r = 0; r < rows; r++) {
        if (log) repdl__log_softmax_row(x + r * cols, y + r * cols, cols);
        else repdl__softmax_row(x + r * cols, y + r * cols, cols);
    }
    return REPDL_OK;
}

/* y = softmax(x) row by row (see the top of this file).  In place ok.
   Returns REPDL_OK, REPDL_ERR_OVERFLOW (rows x cols) or REPDL_ERR_INVALID
   (x or y NULL with rows x cols > 0); on an error nothing is written. */
REPDL_API repdl_status repdl_softmax_f32(size_t rows, size_t cols, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    return repdl__softmax_rows(rows, cols, x, y, 0);
}

/* y = log_softmax(x) row by row.  In place ok.  Status as softmax. */
REPDL_API repdl_status repdl_log_softmax_f32(size_t rows, size_t cols, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    return repdl__softmax_rows(rows, cols, x, y, 1);
}

/* dx = d softmax given y = softmax(x) and dy:
   dx_i = RN(y_i * RN(dy_i - dot)), dot = repdl_dot_f32(n, y, dy).
   In place (dx == y or dx == dy) ok.  Status as softmax (y, dy, dx). */
REPDL_API repdl_status repdl_softmax_backward_f32(size_t rows, size_t cols, const float *y,
                                                  const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t r, i;
    int go = repdl__rows_work(rows, cols, !y || !dy || !dx);
    if (go != 1) return (repdl_status)go;
    for (r = 0; r < rows; r++) {
        const float *yr = y + r * cols, *gr = dy + r * cols;
        float *o = dx + r * cols;
        float dot = repdl__row_dot_f32(cols, yr, gr); /* = repdl_dot_f32 */
        for (i = 0; i < cols; i++)
            o[i] = repdl__canon(repdl__fmul(yr[i], repdl__fsub(gr[i], dot)));
    }
    return REPDL_OK;
}

/* log_softmax_backward of rows shorter than one chunk, by groups
   (REPDL__SM_GROUP): the exponentials of the group's y first (dx may be
   y), then row by row its sum of dy before its dx (dx may be dy).  A
   function of its own: the long-row loop below keeps its code. */
REPDL_FN void repdl__log_softmax_bwd_groups(size_t rows, size_t cols, const float *y,
                                            const float *dy, float *dx)
{
    size_t g = REPDL__SM_GROUP(cols), nr, r, k, i;
    for (r = 0; r < rows; r += nr) {
        float p[REPDL__ARRAY_CHUNK];
        nr = rows - r < g ? rows - r : g;
        (void)repdl_exp_array_f32(nr * cols, y + r * cols, p);
        for (k = 0; k < nr; k++) {
            const float *gr = dy + (r + k) * cols;
            float *o = dx + (r + k) * cols, *pk = p + k * cols;
            float s = repdl__row_sum_f32(cols, gr); /* = repdl_sum_f32 */
            for (i = 0; i < cols; i++) pk[i] = repdl__fmul(pk[i], s);
            REPDL__MATERIALIZE(p); /* rounded products: no FMA with the next line */
            for (i = 0; i < cols; i++) o[i] = repdl__canon(repdl__fsub(gr[i], pk[i]));
        }
    }
}

/* dx = d log_softmax given y = log_softmax(x) and dy:
   dx_i = RN(dy_i - RN(repdl_exp_f32(y_i) * s)), s = repdl_sum_f32(n, dy).
   In place ok.  Status as softmax (y, dy, dx). */
REPDL_API repdl_status repdl_log_softmax_backward_f32(size_t rows, size_t cols, const float *y,
                                                      const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t r, i, k;
    int go = repdl__rows_work(rows, cols, !y || !dy || !dx);
    if (go != 1) return (repdl_status)go;
    if (cols < REPDL__ARRAY_CHUNK) {
        repdl__log_softmax_bwd_groups(rows, cols, y, dy, dx);
        return REPDL_OK;
    }
    for (r = 0; r < rows; r++) {
        const float *yr = y + r * cols, *gr = dy + r * cols;
        float *o = dx + r * cols;
        float s = repdl__row_sum_f32(cols, gr); /* = repdl_sum_f32 */
        for (k = 0; k < cols; k += REPDL__NN_CHUNK) {
            float p[REPDL__NN_CHUNK];
            size_t len = cols - k < REPDL__NN_CHUNK ? cols - k : REPDL__NN_CHUNK;
            repdl_exp_array_f32(len, yr + k, p);
            for (i = 0; i < len; i++) p[i] = repdl__fmul(p[i], s);
            REPDL__MATERIALIZE(p); /* rounded products: no FMA with the next line */
            for (i = 0; i < len; i++) o[k + i] = repdl__canon(repdl__fsub(gr[k + i], p[i]));
        }
    }
    return REPDL_OK;
}

/* The loss of a batch from its per-row losses l(r), r < rows, written a
   leaf at a time to buf and summed by the canonical tree: the bits of
   repdl_sum_f32 over the array of row losses.  Then
     REPDL_REDUCTION_SUM   the canonical sum (rows == 0: -0.0, the empty sum)
     REPDL_REDUCTION_MEAN  RN(sum / rows), one rounding (repdl_mean_f32's
                           division; rows == 0: NaN)
   (the callers refuse any other reduction with REPDL_ERR_INVALID). */
REPDL_FN float repdl__loss_finish(float total, size_t rows, int reduction)
{
    if (reduction == REPDL_REDUCTION_SUM) return repdl__canon(total);
    if (reduction != REPDL_REDUCTION_MEAN || rows == 0) return repdl__nanf();
    return repdl__canon(repdl__div_count_f32(total, rows));
}

/* The checks of both losses (see repdl_cross_entropy_f32). */
REPDL_FN repdl_status repdl__loss_check(size_t rows, size_t cols, int reduction, const float *x,
                                        const size_t *target, const float *loss)
{
    size_t total;
    repdl_status st = repdl__rows_check(rows, cols, &total);
    if (st != REPDL_OK) return st;
    if (rows > ((size_t)-1) / sizeof(size_t)) return REPDL_ERR_OVERFLOW;   /* target[rows] */
    if ((reduction != REPDL_REDUCTION_SUM && reduction != REPDL_REDUCTION_MEAN) || !loss ||
        (rows && !target) || (total && !x))
        return REPDL_ERR_INVALID;
    return REPDL_OK;
}

/* Cross-entropy of logits [rows x cols] with class targets in [0, cols):
     loss_r = -RN(d_t - repdl_log_f32(s))    t = target[r], m, d, s as at the
                                          top of this file
   which is exactly -log_softmax(x_r)[t] (negation is exact; a perfect
   single-class row gives -0.0, as PyTorch), so cross-entropy equals
   repdl_nll_loss_f32 of repdl_log_softmax_f32, bit for bit.  The batch
   loss is the canonical sum of the loss_r (REPDL_REDUCTION_SUM) or that sum
   divided by rows, rounded once (REPDL_REDUCTION_MEAN; see
   repdl__loss_finish).
   dlogits (NULL: not computed; [rows x cols], may be logits itself):
     p_i = RN(e_i / s)                   the softmax, as repdl_softmax_f32
     g_i = RN(p_i - 1) for i == t, p_i otherwise
     dlogits_i = g_i (SUM), RN(g_i / rows) (MEAN, one correctly rounded
                 division by the integer rows).
   Targets are class indices (size_t, as every index of repdl).  A target
   >= cols (REPDL_NO_INDEX included), or a row whose max is not finite
   (NaN, +inf, all -inf): that row's loss and gradient row are NaN, so the
   batch loss is NaN.  rows == 0: *loss is -0.0 (SUM) or NaN (MEAN);
   cols == 0 with rows > 0: every target is out of range, NaN.
   Returns REPDL_OK; REPDL_ERR_OVERFLOW when rows x cols floats, or the
   rows targets, do not fit in size_t bytes; REPDL_ERR_INVALID for a
   reduction other than SUM and MEAN, loss NULL, target NULL with
   rows > 0, or logits NULL with rows x cols > 0.  On an error nothing is
   written. */
REPDL_API repdl_status repdl_cross_entropy_f32(size_t rows, size_t cols, int reduction,
                                               const float *logits, const size_t *target,
                                               float *loss, float *dlogits)
{
    REPDL__FPENV_CHECK();
    repdl__tree t;
    float lb[REPDL_SUM_LEAF];
    size_t r0, len, k, i;
    repdl_status st = repdl__loss_check(rows, cols, reduction, logits, target, loss);
    if (st != REPDL_OK) return st;
    repdl__tree_init(&t);
    REPDL__LEAVES(rows, r0, len) {
        for (k = 0; k < len; k++) {
            size_t r = r0 + k;
            const float *x = REPDL__OFFSET(logits, r * cols);
            float *g = dlogits ? REPDL__OFFSET(dlogits, r * cols) : NULL;
            size_t tg = target[r];
            float m, s, dt, lr;
            m = cols ? repdl_max_f32(cols, x) : repdl__nanf();
            if (tg >= cols || !repdl__sm_finite(m)) {
                lb[k] = repdl__nanf();
                if (g) repdl__sm_fill_nan(g, cols);
                continue;
            }
            dt = repdl__fsub(x[tg], m); /* read before g (maybe x) is written */
            s = repdl__softmax_pass(x, cols, m, g, NULL);
            lr = repdl__fneg(repdl__fsub(dt, repdl_log_f32(s))); /* -log_softmax(x)[t], exactly */
            lb[k] = lr;
            if (g) {
                for (i = 0; i < cols; i++) g[i] = repdl__fdiv(g[i], s);
                g[tg] = repdl__fsub(g[tg], 1.0f);
                if (reduction == REPDL_REDUCTION_MEAN)
                    for (i = 0; i < cols; i++) g[i] = repdl__div_count_f32(g[i], rows);
            }
        }
        repdl__tree_leaf(&t, lb, len);
    }
    *loss = repdl__loss_finish(repdl__tree_root(&t), rows, reduction);
    return REPDL_OK;
}

/* Negative log-likelihood of log-probabilities logp [rows x cols]:
     loss_r = -logp[r][target[r]]        (exact), reduced as cross-entropy.
   dlogp (NULL: not computed; [rows x cols]): every element +0.0 except
   dlogp[r][t] = -1 (SUM) or -RN(1 / rows) (MEAN).
   A target >= cols: that row's loss and gradient row are NaN.  NaN
   losses are canonical.  rows == 0: SUM -0.0, MEAN NaN.  Status and
   argument checks as repdl_cross_entropy_f32 (logp for logits). */
REPDL_API repdl_status repdl_nll_loss_f32(size_t rows, size_t cols, int reduction,
                                          const float *logp, const size_t *target, float *loss,
                                          float *dlogp)
{
    REPDL__FPENV_CHECK();
    repdl__tree t;
    float lb[REPDL_SUM_LEAF];
    size_t r0, len, k, i;
    repdl_status st = repdl__loss_check(rows, cols, reduction, logp, target, loss);
    float gt = reduction == REPDL_REDUCTION_MEAN && rows
                   ? -repdl__div_count_f32(1.0f, rows) : -1.0f;
    if (st != REPDL_OK) return st;
    repdl__tree_init(&t);
    REPDL__LEAVES(rows, r0, len) {
        for (k = 0; k < len; k++) {
            size_t r = r0 + k;
            size_t tg = target[r];
            float *g = dlogp ? REPDL__OFFSET(dlogp, r * cols) : NULL;
            if (tg >= cols) {
                lb[k] = repdl__nanf();
                if (g) repdl__sm_fill_nan(g, cols);
                continue;
            }
            lb[k] = repdl__canon(repdl__fneg(logp[r * cols + tg]));
            if (g) {
                for (i = 0; i < cols; i++) g[i] = 0.0f;
                g[tg] = gt;
            }
        }
        repdl__tree_leaf(&t, lb, len);
    }
    *loss = repdl__loss_finish(repdl__tree_root(&t), rows, reduction);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_SOFTMAX_H */
