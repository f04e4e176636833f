/* SPDX-License-Identifier: MIT */
/* tests/nn/test_softmax_norm.c: softmax.h and norm.h against the plain
   definitions of reference/nn_ref.h, bit for bit (NaN bits included).

   Checked, for every function of the two headers:
     - random shapes (cols 0 .. 3000, across leaf boundaries; rows 0 .. 5)
       and data: moderate values, wide exponents with subnormals and -0,
       cancelling pairs, huge values, rows with -inf, +inf, a NaN, all -inf,
       length 1; affine and non-affine; in-place calls where allowed;
     - directed edge cases with their expected values derived by hand
       (softmax of one element is 1, of a NaN row the canonical NaN, ...);
     - batch invariance: each row of a batch equals the one-row call;
     - thread-count invariance: the rows split between 1 .. 4 pthreads
       give the same bits as one call;
     - more than one leaf of rows in the losses and the column sums;
     - the batch order (docs/canonical-order.md): rows (batch norm: images)
       16, 17, 40, 70, 100, several micro-batches with a short last one,
       special values in x and in dy; layer norm dgamma and dbeta
       recombined from one call per micro-batch over every split into 1 .. 4
       ranges (repdl_units_nodes_f32, repdl_units_combine_f32).
   Built in several variants (meson.build): every one must pass.
     test_nn [--seed S] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/norm.h>
#include <repdl/reduce_units.h>
#include <repdl/softmax.h>

#include "../common/check.h"
#include "../common/splitmix64.h"
#include "nn_ref.h"

static splitmix64 rng = {0x243f6a8885a308d3ull};
static uint64_t rng_next(void) { return splitmix64_next(&rng); }
static size_t rng_below(size_t m) { return (size_t)(rng_next() % m); }

/* Compares a[0..n) with b[0..n) bit for bit; reports the first mismatch. */
static void same(const char *what, const float *a, const float *b, size_t n, size_t rows,
                 size_t cols, int kind)
{
    CHECK_SAME(a, b, n, "%s rows=%zu cols=%zu kind=%d", what, rows, cols, kind);
}
static void same1(const char *what, float a, float b, size_t rows, size_t cols, int kind)
{
    same(what, &a, &b, 1, rows, cols, kind);
}

/* repdl's losses called with the reference's int32 targets (a negative one
   becomes REPDL_NO_INDEX: out of range for both), the status required to
   be REPDL_OK; returns the loss. */
static float loss_call(int nll, size_t rows, size_t cols, int red, const float *x,
                       const int32_t *t, float *g)
{
    size_t *ts = (size_t *)malloc((rows ? rows : 1) * sizeof(size_t));
    float l = 12345.0f;
    repdl_status st;
    for (size_t r = 0; t && r < rows; r++) ts[r] = t[r] < 0 ? REPDL_NO_INDEX : (size_t)t[r];
    st = nll ? repdl_nll_loss_f32(rows, cols, red, x, t ? ts : NULL, &l, g)
             : repdl_cross_entropy_f32(rows, cols, red, x, t ? ts : NULL, &l, g);
    CHECK(st == REPDL_OK, "%s", nll ? "nll_loss returns REPDL_OK" : "cross_entropy returns REPDL_OK");
    free(ts);
    return l;
}

static float gen_value(int mode)
{
    uint64_t r = rng_next();
    uint32_t sign = (uint32_t)(r >> 63) << 31;
    switch (mode) {
    case 0: /* moderate: 2^-8 .. 2^8 */
        return asfloat(sign | (uint32_t)(119 + (r >> 8) % 17) << 23 | (uint32_t)(r & 0x7fffff));
    case 1: /* every finite exponent, subnormals, zeros */
        return asfloat(sign | (uint32_t)((r >> 8) % 0x7f800000u));
    case 2: /* logits scale: +-[0, 32) */
        return (float)((double)(r >> 11) * 0x1p-53 * 64.0 - 32.0);
    case 3: /* huge */
        return asfloat(sign | (uint32_t)(250 + (r >> 8) % 4) << 23 | (uint32_t)(r & 0x7fffff));
    default: /* +-[1, 2) */
        return asfloat(sign | (uint32_t)127 << 23 | (uint32_t)(r & 0x7fffff));
    }
}

#define NKINDS 40
/* A rows x cols array of kind `kind`: value mode kind % 5, specials kind / 5. */
static void gen(float *x, size_t rows, size_t cols, int kind)
{
    size_t n = rows * cols;
    for (size_t i = 0; i < n; i++) x[i] = gen_value(kind % 5);
    for (size_t r = 0; r < rows && cols; r++) {
        float *xr = x + r * cols;
        switch (kind / 5) {
        case 1: xr[rng_below(cols)] = asfloat(0xff800000u); break;           /* a -inf */
        case 2: xr[rng_below(cols)] = asfloat(0x7f800000u); break;           /* a +inf */
        case 3: xr[rng_below(cols)] = asfloat(0xff800001u | (uint32_t)rng_below(0x7fffff)); break; /* NaN */
        case 4: if (r % 2) for (size_t i = 0; i < cols; i++) xr[i] = asfloat(0xff800000u); break; /* all -inf */
        case 5: for (size_t i = 1; i < cols; i += 2) xr[i] = -xr[i - 1]; break;  /* cancel */
        case 6: for (size_t i = 0; i < cols; i++) if (rng_next() & 1) xr[i] = asfloat((uint32_t)(rng_next() & 1) << 31); break; /* +-0 */
        case 7: for (size_t i = 0; i < cols; i++) xr[i] = xr[0]; break;  /* constant row */
        }
    }
}

static float *alloc(size_t n) { return ref_nn_alloc(n); }

/* ---- one shape, one kind: every function against the reference ---- */
static void check_shape(size_t rows, size_t cols, int kind)
{
    size_t n = rows * cols;
    float *x = alloc(n), *y = alloc(n), *yr = alloc(n), *dy = alloc(n), *dx = alloc(n),
          *dxr = alloc(n), *ip = alloc(n);
    float *gam = alloc(cols), *bet = alloc(cols), *dg = alloc(cols), *dgr = alloc(cols),
          *db = alloc(cols), *dbr = alloc(cols);
    float *mu = alloc(rows), *mur = alloc(rows), *rs = alloc(rows), *rsr = alloc(rows);
    int32_t *t = (int32_t *)malloc((rows ? rows : 1) * sizeof(int32_t));
    gen(x, rows, cols, kind);
    for (size_t i = 0; i < n; i++) dy[i] = gen_value(kind % 2 ? 2 : 4);
    for (size_t j = 0; j < cols; j++) {
        gam[j] = gen_value(4);
        bet[j] = gen_value(0);
    }
    for (size_t r = 0; r < rows; r++) /* mostly in range, sometimes not */
        t[r] = (rng_next() % 8 == 0) ? (int32_t)(rng_next() % 3) - 1 + (int32_t)((rng_next() & 1) ? cols : 0)
                                     : (cols ? (int32_t)rng_below(cols) : 0);

    /* softmax, log_softmax, in place too */
    repdl_softmax_f32(rows, cols, x, y);
    ref_softmax(rows, cols, x, yr);
    same("softmax", y, yr, n, rows, cols, kind);
    memcpy(ip, x, n * sizeof(float));
    repdl_softmax_f32(rows, cols, ip, ip);
    same("softmax in place", ip, yr, n, rows, cols, kind);
    repdl_softmax_backward_f32(rows, cols, yr, dy, dx);
    ref_softmax_backward(rows, cols, yr, dy, dxr);
    same("softmax_backward", dx, dxr, n, rows, cols, kind);

    repdl_log_softmax_f32(rows, cols, x, y);
    ref_log_softmax(rows, cols, x, yr);
    same("log_softmax", y, yr, n, rows, cols, kind);
    memcpy(ip, x, n * sizeof(float));
    repdl_log_softmax_f32(rows, cols, ip, ip);
    same("log_softmax in place", ip, yr, n, rows, cols, kind);
    repdl_log_softmax_backward_f32(rows, cols, yr, dy, dx);
    ref_log_softmax_backward(rows, cols, yr, dy, dxr);
    same("log_softmax_backward", dx, dxr, n, rows, cols, kind);
    memcpy(ip, dy, n * sizeof(float));
    repdl_log_softmax_backward_f32(rows, cols, yr, ip, ip);
    same("log_softmax_backward in place", ip, dxr, n, rows, cols, kind);

    /* losses: both reductions, with and without gradient, in place */
    for (int red = 0; red < 2; red++) {
        float l = loss_call(0, rows, cols, red, x, t, dx);
        float lr = ref_cross_entropy(rows, cols, x, t, red, dxr);
        same1(red ? "cross_entropy sum" : "cross_entropy mean", l, lr, rows, cols, kind);
        same("cross_entropy grad", dx, dxr, n, rows, cols, kind);
        same1("cross_entropy no grad", loss_call(0, rows, cols, red, x, t, NULL), lr,
              rows, cols, kind);
        memcpy(ip, x, n * sizeof(float));
        same1("cross_entropy in place", loss_call(0, rows, cols, red, ip, t, ip), lr,
              rows, cols, kind);
        same("cross_entropy grad in place", ip, dxr, n, rows, cols, kind);
        ref_log_softmax(rows, cols, x, yr);
        l = loss_call(1, rows, cols, red, yr, t, dx);
        lr = ref_nll_loss(rows, cols, yr, t, red, dxr);
        same1("nll", l, lr, rows, cols, kind);
        same("nll grad", dx, dxr, n, rows, cols, kind);
    }

    /* layer norm: affine, gamma only, beta only, none */
    for (int aff = 0; aff < 4; aff++) {
        const float *g = (aff & 1) ? gam : NULL, *b = (aff & 2) ? bet : NULL;
        float eps = aff == 3 ? 0.0f : 1e-5f;
        repdl_layer_norm_forward_f32(rows, cols, eps, x, g, b, y, mu, rs);
        ref_layer_norm_forward(rows, cols, x, g, b, eps, yr, mur, rsr);
        same("layer_norm y", y, yr, n, rows, cols, kind * 4 + aff);
        same("layer_norm mean", mu, mur, rows, rows, cols, kind * 4 + aff);
        same("layer_norm rstd", rs, rsr, rows, rows, cols, kind * 4 + aff);
        memcpy(ip, x, n * sizeof(float));
        repdl_layer_norm_forward_f32(rows, cols, eps, ip, g, b, ip, NULL, NULL);
        same("layer_norm in place", ip, yr, n, rows, cols, kind * 4 + aff);
        repdl_layer_norm_backward_f32(rows, cols, x, g, mur, rsr, dy, dx, dg, db);
        ref_layer_norm_backward(rows, cols, x, g, mur, rsr, dy, dxr, dgr, dbr);
        same("layer_norm dx", dx, dxr, n, rows, cols, kind * 4 + aff);
        same("layer_norm dgamma", dg, dgr, cols, rows, cols, kind * 4 + aff);
        same("layer_norm dbeta", db, dbr, cols, rows, cols, kind * 4 + aff);

        repdl_rms_norm_forward_f32(rows, cols, eps, x, g, y, rs);
        ref_rms_norm_forward(rows, cols, x, g, eps, yr, rsr);
        same("rms_norm y", y, yr, n, rows, cols, kind * 4 + aff);
        same("rms_norm rstd", rs, rsr, rows, rows, cols, kind * 4 + aff);
        repdl_rms_norm_backward_f32(rows, cols, x, g, rsr, dy, dx, dg);
        ref_rms_norm_backward(rows, cols, x, g, rsr, dy, dxr, dgr);
        same("rms_norm dx", dx, dxr, n, rows, cols, kind * 4 + aff);
        same("rms_norm dgamma", dg, dgr, cols, rows, cols, kind * 4 + aff);
    }

    /* batch norm: the same array seen as [n][c][hw] for a few splits */
    {
        size_t splits[3][3] = {{rows, cols, 1}, {rows, 1, cols}, {1, rows, cols}};
        for (int s = 0; s < 3; s++) {
            size_t bn = splits[s][0], bc = splits[s][1], bh = splits[s][2];
            float *rm = alloc(bc), *rv = alloc(bc), *rmr = alloc(bc), *rvr = alloc(bc);
            float *sm = alloc(bc), *sr = alloc(bc), *smr = alloc(bc), *srr = alloc(bc);
            float *g2 = alloc(bc), *b2 = alloc(bc), *dg2 = alloc(bc), *db2 = alloc(bc),
                  *dg2r = alloc(bc), *db2r = alloc(bc);
            for (size_t ch = 0; ch < bc; ch++) {
                rm[ch] = rmr[ch] = gen_value(0);
                rv[ch] = rvr[ch] = gen_value(4) + 2.0f;
                g2[ch] = gen_value(4);
                b2[ch] = gen_value(0);
            }
            for (int aff = 0; aff < 4; aff += 3) {
                const float *g = aff ? g2 : NULL, *b = aff ? b2 : NULL;
                repdl_batch_norm_forward_train_f32(bn, bc, bh, 1e-5f, 0.1f, x, g, b, rm, rv, y, sm, sr);
                ref_batch_norm_train(bn, bc, bh, x, g, b, 1e-5f, 0.1f, rmr, rvr, yr, smr, srr);
                same("batch_norm train y", y, yr, n, bn * 1000 + bc, bh, kind);
                same("batch_norm save_mean", sm, smr, bc, bn * 1000 + bc, bh, kind);
                same("batch_norm save_rstd", sr, srr, bc, bn * 1000 + bc, bh, kind);
                same("batch_norm running_mean", rm, rmr, bc, bn * 1000 + bc, bh, kind);
                same("batch_norm running_var", rv, rvr, bc, bn * 1000 + bc, bh, kind);
                repdl_batch_norm_forward_infer_f32(bn, bc, bh, 1e-5f, x, g, b, rmr, rvr, y);
                ref_batch_norm_infer(bn, bc, bh, x, g, b, 1e-5f, rmr, rvr, yr);
                same("batch_norm infer y", y, yr, n, bn * 1000 + bc, bh, kind);
                repdl_batch_norm_backward_f32(bn, bc, bh, x, g, smr, srr, dy, dx, dg2, db2);
                ref_batch_norm_backward(bn, bc, bh, x, g, smr, srr, dy, dxr, dg2r, db2r);
                same("batch_norm dx", dx, dxr, n, bn * 1000 + bc, bh, kind);
                same("batch_norm dgamma", dg2, dg2r, bc, bn * 1000 + bc, bh, kind);
                same("batch_norm dbeta", db2, db2r, bc, bn * 1000 + bc, bh, kind);
            }
            free(rm); free(rv); free(rmr); free(rvr); free(sm); free(sr); free(smr); free(srr);
            free(g2); free(b2); free(dg2); free(db2); free(dg2r); free(db2r);
        }
    }
    free(x); free(y); free(yr); free(dy); free(dx); free(dxr); free(ip);
    free(gam); free(bet); free(dg); free(dgr); free(db); free(dbr);
    free(mu); free(mur); free(rs); free(rsr); free(t);
}

/* ---- directed edge cases (expected values by hand) ---- */
static void check_edges(void)
{
    const uint32_t NANB = 0x7fc00000u;
    float x[4], y[4];
    /* length 1 */
    x[0] = 3.5f;
    repdl_softmax_f32(1, 1, x, y);
    CHECK(asuint(y[0]) == asuint(1.0f), "softmax of one element is 1");
    repdl_log_softmax_f32(1, 1, x, y);
    CHECK(asuint(y[0]) == 0u, "log_softmax of one element is +0");
    /* NaN row */
    x[0] = 1; x[1] = asfloat(0xffc12345u); x[2] = 2; x[3] = 3;
    repdl_softmax_f32(1, 4, x, y);
    CHECK(asuint(y[0]) == NANB && asuint(y[3]) == NANB, "softmax NaN row canonical");
    repdl_log_softmax_f32(1, 4, x, y);
    CHECK(asuint(y[0]) == NANB && asuint(y[2]) == NANB, "log_softmax NaN row canonical");
    /* all -inf */
    for (int i = 0; i < 4; i++) x[i] = asfloat(0xff800000u);
    repdl_softmax_f32(1, 4, x, y);
    CHECK(asuint(y[0]) == NANB && asuint(y[3]) == NANB, "softmax all -inf is NaN");
    /* +inf present */
    x[0] = 1; x[1] = asfloat(0x7f800000u); x[2] = 0; x[3] = -1;
    repdl_softmax_f32(1, 4, x, y);
    CHECK(asuint(y[0]) == NANB && asuint(y[1]) == NANB, "softmax with +inf is NaN");
    /* -inf entries among finite: 0 and -inf */
    x[0] = 0; x[1] = asfloat(0xff800000u); x[2] = 0; x[3] = asfloat(0xff800000u);
    repdl_softmax_f32(1, 4, x, y);
    CHECK(asuint(y[1]) == 0u && y[0] == 0.5f && y[2] == 0.5f,
          "softmax -inf entry is +0, others 1/2");
    repdl_log_softmax_f32(1, 4, x, y);
    CHECK(asuint(y[1]) == 0xff800000u && asuint(y[0]) == asuint(repdl_log_f32(0.5f)),
          "log_softmax -inf entry is -inf");
    /* equal logits: uniform */
    for (int i = 0; i < 4; i++) x[i] = -7.25f;
    repdl_softmax_f32(1, 4, x, y);
    CHECK(y[0] == 0.25f && y[3] == 0.25f, "softmax uniform 1/4");
    /* cols == 0 / rows == 0: nothing written, NULL accepted */
    y[0] = 42.0f;
    repdl_softmax_f32(3, 0, NULL, NULL);
    repdl_log_softmax_f32(0, 4, NULL, NULL);
    repdl_softmax_backward_f32(3, 0, NULL, NULL, NULL);
    repdl_log_softmax_backward_f32(0, 3, NULL, NULL, NULL);
    CHECK(y[0] == 42.0f, "empty calls write nothing");
    /* losses */
    {
        int32_t t[2] = {0, 1};
        float lg[4] = {0, 0, 0, 0}, g[4];
        float l = loss_call(0, 2, 2, REPDL_REDUCTION_MEAN, lg, t, g);
        CHECK(asuint(l) == asuint(repdl_log_f32(2.0f)), "CE of equal logits is log 2");
        CHECK(g[0] == -0.25f && g[1] == 0.25f && g[3] == -0.25f, "CE mean grad -1/4, 1/4");
        l = loss_call(0, 2, 2, REPDL_REDUCTION_SUM, lg, t, g);
        CHECK(asuint(l) == asuint(repdl__fadd(repdl_log_f32(2.0f), repdl_log_f32(2.0f))),
              "CE sum is 2 log 2");
        t[1] = 2;
        l = loss_call(0, 2, 2, REPDL_REDUCTION_MEAN, lg, t, g);
        CHECK(asuint(l) == NANB && asuint(g[2]) == NANB && asuint(g[3]) == NANB && g[0] == -0.25f,
              "CE target out of range: NaN loss and NaN grad row");
        t[1] = -1;
        l = loss_call(1, 2, 2, REPDL_REDUCTION_SUM, lg, t, NULL);
        CHECK(asuint(l) == NANB, "NLL negative target: NaN");
        CHECK(asuint(loss_call(0, 0, 5, REPDL_REDUCTION_MEAN, NULL, NULL, NULL)) == NANB,
              "CE rows 0 mean NaN");
        CHECK(asuint(loss_call(0, 0, 5, REPDL_REDUCTION_SUM, NULL, NULL, NULL)) == 0x80000000u,
              "CE rows 0 sum -0");
        CHECK(asuint(loss_call(1, 0, 5, REPDL_REDUCTION_SUM, NULL, NULL, NULL)) == 0x80000000u,
              "NLL rows 0 sum -0");
        t[0] = 1; t[1] = 0;
        lg[1] = -2.5f; lg[2] = -0.5f;
        l = loss_call(1, 2, 2, REPDL_REDUCTION_MEAN, lg, t, g);
        CHECK(l == 1.5f && g[1] == -0.5f && asuint(g[0]) == 0u && g[2] == -0.5f,
              "NLL mean (2.5 + 0.5) / 2 = 1.5");
        {
            size_t ts[2] = {1, 0};
            float lo = 42.0f;
            CHECK(repdl_cross_entropy_f32(2, 2, 7, lg, ts, &lo, g) == REPDL_ERR_INVALID && lo == 42.0f,
                  "CE bad reduction: REPDL_ERR_INVALID, nothing written");
            CHECK(repdl_nll_loss_f32(2, 2, -1, lg, ts, &lo, NULL) == REPDL_ERR_INVALID && lo == 42.0f,
                  "NLL bad reduction: REPDL_ERR_INVALID");
            CHECK(repdl_cross_entropy_f32(2, 2, REPDL_REDUCTION_SUM, lg, ts, NULL, NULL) == REPDL_ERR_INVALID,
                  "CE loss NULL: REPDL_ERR_INVALID");
            CHECK(repdl_cross_entropy_f32(2, 2, REPDL_REDUCTION_SUM, lg, NULL, &lo, NULL) == REPDL_ERR_INVALID,
                  "CE target NULL: REPDL_ERR_INVALID");
            CHECK(repdl_cross_entropy_f32((size_t)1 << 40, (size_t)1 << 40, REPDL_REDUCTION_SUM, lg, ts, &lo, NULL) == REPDL_ERR_OVERFLOW && lo == 42.0f,
                  "CE rows x cols overflow: REPDL_ERR_OVERFLOW");
            CHECK(repdl_softmax_f32((size_t)1 << 40, (size_t)1 << 40, lg, g) == REPDL_ERR_OVERFLOW,
                  "softmax overflow: REPDL_ERR_OVERFLOW");
            CHECK(repdl_softmax_f32(1, 2, NULL, g) == REPDL_ERR_INVALID,
                  "softmax NULL: REPDL_ERR_INVALID");
            CHECK(repdl_log_softmax_backward_f32(1, 2, lg, NULL, g) == REPDL_ERR_INVALID,
                  "log_softmax_backward NULL: REPDL_ERR_INVALID");
            CHECK(repdl_layer_norm_forward_f32((size_t)1 << 40, (size_t)1 << 40, 0.0f, lg, NULL, NULL, g, NULL, NULL) == REPDL_ERR_OVERFLOW,
                  "layer_norm overflow: REPDL_ERR_OVERFLOW");
            CHECK(repdl_rms_norm_backward_f32(1, 2, lg, NULL, NULL, lg, g, NULL) == REPDL_ERR_INVALID,
                  "rms_norm_backward NULL rstd: REPDL_ERR_INVALID");
            CHECK(repdl_batch_norm_forward_infer_f32((size_t)1 << 30, (size_t)1 << 30, (size_t)1 << 10, 0.0f, lg, NULL, NULL, lg, lg, g) == REPDL_ERR_OVERFLOW,
                  "batch_norm overflow: REPDL_ERR_OVERFLOW");
            CHECK(repdl_batch_norm_backward_f32(1, 1, 2, lg, NULL, NULL, lg, lg, g, NULL, NULL) == REPDL_ERR_INVALID,
                  "batch_norm_backward NULL: REPDL_ERR_INVALID");
        }
    }
    /* norms */
    {
        float a[4] = {1, 2, 3, 4}, o[4], m, r;
        repdl_layer_norm_forward_f32(1, 4, 0.0f, a, NULL, NULL, o, &m, &r);
        /* mean 2.5, var 1.25, rstd = RN(1 / RN(sqrt(1.25))) */
        CHECK(m == 2.5f, "layer_norm mean 2.5");
        CHECK(asuint(r) == asuint(1.0f / repdl_sqrt_f32(1.25f)), "layer_norm rstd");
        CHECK(asuint(o[0]) == asuint(repdl__fkeep(-1.5f * r)), "layer_norm y[0] = RN(-1.5 * rstd)");
        repdl_layer_norm_forward_f32(1, 0, 1e-5f, NULL, NULL, NULL, NULL, &m, &r);
        CHECK(asuint(m) == NANB && asuint(r) == NANB, "layer_norm cols 0: NaN statistics");
        a[2] = asfloat(0x7f800000u);
        repdl_layer_norm_forward_f32(1, 4, 1e-5f, a, NULL, NULL, o, &m, &r);
        CHECK(asuint(o[0]) == NANB && asuint(o[3]) == NANB, "layer_norm with inf: NaN row");
        a[2] = 3;
        repdl_rms_norm_forward_f32(1, 4, 0.0f, a, NULL, o, &r);
        /* mean square 7.5 */
        CHECK(asuint(r) == asuint(1.0f / repdl_sqrt_f32(7.5f)), "rms_norm rstd");
        /* batch norm N == 1: unbiased variance NaN -> running_var NaN */
        float rm = 0.0f, rv = 1.0f, sm, sr, yy;
        repdl_batch_norm_forward_train_f32(1, 1, 1, 1e-5f, 0.1f, a, NULL, NULL, &rm, &rv, &yy, &sm, &sr);
        CHECK(asuint(rv) == NANB && rm == repdl__fkeep(0.1f * 1.0f) && sm == 1.0f && asuint(yy) == 0u,
              "batch_norm N == 1: running_var NaN, mean updated");
        rm = 5.0f; rv = 6.0f;
        repdl_batch_norm_forward_train_f32(0, 1, 3, 1e-5f, 0.1f, NULL, NULL, NULL, &rm, &rv, NULL, &sm, &sr);
        CHECK(asuint(sm) == NANB && asuint(sr) == NANB && rm == 5.0f && rv == 6.0f,
              "batch_norm N == 0: NaN saved stats, running unchanged");
    }
}

/* ---- batch invariance and thread-count invariance ---- */
typedef struct job {
    int op;
    size_t r0, r1, cols;
    const float *x, *dy, *g, *b, *mean, *rstd;
    float *y, *mu, *rs;
} job;

static void run_job(job *j)
{
    size_t c = j->cols, r0 = j->r0, m = j->r1 - j->r0;
    const float *x = j->x + r0 * c;
    float *y = j->y + r0 * c;
    switch (j->op) {
    case 0: repdl_softmax_f32(m, c, x, y); break;
    case 1: repdl_log_softmax_f32(m, c, x, y); break;
    case 2: repdl_softmax_backward_f32(m, c, x, j->dy + r0 * c, y); break;
    case 3: repdl_log_softmax_backward_f32(m, c, x, j->dy + r0 * c, y); break;
    case 4: repdl_layer_norm_forward_f32(m, c, 1e-5f, x, j->g, j->b, y, j->mu + r0, j->rs + r0); break;
    case 5: repdl_rms_norm_forward_f32(m, c, 1e-6f, x, j->g, y, j->rs + r0); break;
    case 6: repdl_layer_norm_backward_f32(m, c, x, j->g, j->mean + r0, j->rstd + r0, j->dy + r0 * c, y, NULL, NULL); break;
    case 7: repdl_rms_norm_backward_f32(m, c, x, j->g, j->rstd + r0, j->dy + r0 * c, y, NULL); break;
    }
}
static void *thread_main(void *arg)
{
    run_job((job *)arg);
    return NULL;
}
#define NOPS 8

static void check_invariance(void)
{
    size_t rows = 37, cols = 2500, n = rows * cols;
    float *x = alloc(n), *dy = alloc(n), *g = alloc(cols), *b = alloc(cols);
    float *full = alloc(n), *part = alloc(n), *mu = alloc(rows), *rs = alloc(rows),
          *mu2 = alloc(rows), *rs2 = alloc(rows), *mean = alloc(rows), *rstd = alloc(rows);
    gen(x, rows, cols, 2);
    gen(dy, rows, cols, 4);
    for (size_t j = 0; j < cols; j++) { g[j] = gen_value(4); b[j] = gen_value(0); }
    repdl_layer_norm_forward_f32(rows, cols, 1e-5f, x, g, b, full, mean, rstd);
    for (int op = 0; op < NOPS; op++) {
        job all = {op, 0, rows, cols, x, dy, g, b, mean, rstd, full, mu, rs};
        run_job(&all);
        /* batch invariance: each row alone */
        for (size_t r = 0; r < rows; r++) {
            job one = {op, r, r + 1, cols, x, dy, g, b, mean, rstd, part, mu2, rs2};
            run_job(&one);
        }
        same("batch invariance", part, full, n, rows, cols, op);
        if (op == 4 || op == 5) same("batch invariance rstd", rs2, rs, rows, rows, cols, op);
        /* 1 .. 4 threads, uneven splits */
        for (int T = 1; T <= 4; T++) {
            pthread_t tid[4];
            job jobs[4];
            memset(part, 0xff, n * sizeof(float));
            for (int k = 0; k < T; k++) {
                job jk = {op, rows * (size_t)k / (size_t)T, rows * (size_t)(k + 1) / (size_t)T, cols,
                          x, dy, g, b, mean, rstd, part, mu2, rs2};
                jobs[k] = jk;
                if (pthread_create(&tid[k], NULL, thread_main, &jobs[k]) != 0) {
                    fprintf(stderr, "pthread_create failed\n");
                    exit(1);
                }
            }
            for (int k = 0; k < T; k++) pthread_join(tid[k], NULL);
            same("thread invariance", part, full, n, rows, (size_t)T, op);
        }
    }
    free(x); free(dy); free(g); free(b); free(full); free(part);
    free(mu); free(rs); free(mu2); free(rs2); free(mean); free(rstd);
}

/* Rows shorter than one chunk of detail/cr.h (softmax.h's blocks of 16)
   whose exponentials the branch-free lane leaves to repdl_exp_f32: a max
   of 0, so d_i = x_i, and the other elements drawn from -0x1.d2259ap+3 and
   -0x1.65cf3p+6 (negative inputs of tests/math/expf.wc, within 2^-27 ulp
   of a midpoint: the lane's rounding test fails), values in
   (-104, -87] (the lane's slow range; results subnormal or 0) and moderate
   values.  Each row is checked to hold a flagged element (the premise),
   then softmax, log_softmax and cross-entropy against the reference. */
static void check_short_flagged(void)
{
    static const uint32_t hard[] = {0xc16912cdu, 0xc2b2e798u};
    static const size_t colsv[] = {2, 3, 10, 15, 16, 17, 33, 100, 255};
    enum { ROWS = 3 };
    for (size_t a = 0; a < sizeof colsv / sizeof colsv[0]; a++) {
        size_t cols = colsv[a], n = ROWS * cols;
        float *x = alloc(n), *y = alloc(n), *yr = alloc(n), *dx = alloc(n), *dxr = alloc(n);
        int32_t t[ROWS];
        for (size_t r = 0; r < ROWS; r++) {
            float *xr = x + r * cols;
            uint32_t flagged = 0, bad;
            xr[0] = 0.0f;
            for (size_t i = 1; i < cols; i++) {
                uint64_t u = rng_next();
                xr[i] = u % 3 == 0 ? asfloat(hard[(u >> 8) % 2])
                      : u % 3 == 1 ? -(87.0f + (float)((u >> 16) % 17000) * 0x1p-10f)
                                   : -(float)((u >> 16) % 1000) * 0x1p-6f;
            }
            xr[cols - 1] = asfloat(hard[r % 2]);
            for (size_t i = 0; i < cols; i++) {
                (void)repdl__exp_lane(asuint(xr[i]), &bad);
                flagged |= bad;
            }
            CHECK(flagged, "short row cols=%zu row %zu holds a flagged element", cols, r);
            t[r] = (int32_t)((r * 7 + 1) % cols);
        }
        repdl_softmax_f32(ROWS, cols, x, y);
        ref_softmax(ROWS, cols, x, yr);
        same("softmax short flagged", y, yr, n, ROWS, cols, -1);
        repdl_log_softmax_f32(ROWS, cols, x, y);
        ref_log_softmax(ROWS, cols, x, yr);
        same("log_softmax short flagged", y, yr, n, ROWS, cols, -1);
        for (int red = 0; red < 2; red++) {
            float l = loss_call(0, ROWS, cols, red, x, t, dx);
            float lr = ref_cross_entropy(ROWS, cols, x, t, red, dxr);
            same1("cross_entropy short flagged", l, lr, ROWS, cols, -1);
            same("cross_entropy grad short flagged", dx, dxr, n, ROWS, cols, -1);
        }
        free(x); free(y); free(yr); free(dx); free(dxr);
    }
}

/* short rows taken several at a time by softmax.h (REPDL__SM_GROUP: 256 /
   cols rows a group): the MLP's 64 x 10, one group and a short second one
   (cols 1, 300 rows), groups of 2 and 3 rows with a short last group
   (cols 128, 85), one row a group (cols 129), every kind (specials inside
   a group next to finite rows; a third of the kinds a shape) */
static void check_short_groups(void)
{
    static const size_t shapes[][2] = {{64, 10}, {300, 1}, {7, 128}, {11, 85}, {5, 129}, {26, 10}};
    for (size_t a = 0; a < sizeof shapes / sizeof shapes[0]; a++)
        for (int kind = 0; kind < NKINDS; kind++)
            if ((size_t)kind % 3 == a % 3) check_shape(shapes[a][0], shapes[a][1], kind);
}

/* losses and column sums over more than one leaf of rows (the canonical
   tree above a leaf), against the reference */
static void check_many_rows(void)
{
    size_t rows = 2600, cols = 5, n = rows * cols;
    float *x = alloc(n), *g = alloc(n), *gr = alloc(n), *dy = alloc(n);
    float *mu = alloc(rows), *rs = alloc(rows), *dx = alloc(n), *dxr = alloc(n);
    float dg[5], dgr[5], db[5], dbr[5], gam[5] = {1.5f, -0.25f, 2.0f, 0.75f, -1.0f};
    int32_t *t = (int32_t *)malloc(rows * sizeof(int32_t));
    gen(x, rows, cols, 2);
    gen(dy, rows, cols, 4);
    for (size_t r = 0; r < rows; r++) t[r] = (int32_t)rng_below(cols);
    for (int red = 0; red < 2; red++) {
        float l = loss_call(0, rows, cols, red, x, t, g);
        float lr = ref_cross_entropy(rows, cols, x, t, red, gr);
        same1("CE many rows", l, lr, rows, cols, red);
        same("CE many rows grad", g, gr, n, rows, cols, red);
        l = loss_call(1, rows, cols, red, x, t, g);
        lr = ref_nll_loss(rows, cols, x, t, red, gr);
        same1("NLL many rows", l, lr, rows, cols, red);
    }
    repdl_layer_norm_forward_f32(rows, cols, 1e-5f, x, gam, NULL, g, mu, rs);
    repdl_layer_norm_backward_f32(rows, cols, x, gam, mu, rs, dy, dx, dg, db);
    ref_layer_norm_backward(rows, cols, x, gam, mu, rs, dy, dxr, dgr, dbr);
    same("layer_norm many rows dgamma", dg, dgr, cols, rows, cols, 0);
    same("layer_norm many rows dbeta", db, dbr, cols, rows, cols, 0);
    same("layer_norm many rows dx", dx, dxr, n, rows, cols, 0);
    free(x); free(g); free(gr); free(dy); free(mu); free(rs); free(dx); free(dxr); free(t);
}

/* ---- the batch order: several micro-batches ---- */

/* dgamma and dbeta (and batch norm's sums) with the specials in dy too:
   dy of kind `kind`, x of a plain kind */
static void check_dy_specials(size_t rows, size_t cols, int kind)
{
    size_t n = rows * cols;
    float *x = alloc(n), *dy = alloc(n), *dx = alloc(n), *dxr = alloc(n), *gam = alloc(cols);
    float *dg = alloc(cols), *dgr = alloc(cols), *db = alloc(cols), *dbr = alloc(cols);
    float *mu = alloc(rows), *rs = alloc(rows);
    gen(x, rows, cols, kind % 5);
    gen(dy, rows, cols, kind);
    for (size_t j = 0; j < cols; j++) gam[j] = gen_value(4);
    ref_layer_norm_forward(rows, cols, x, gam, NULL, 1e-5f, dx, mu, rs);
    repdl_layer_norm_backward_f32(rows, cols, x, gam, mu, rs, dy, dx, dg, db);
    ref_layer_norm_backward(rows, cols, x, gam, mu, rs, dy, dxr, dgr, dbr);
    same("layer_norm dy specials dx", dx, dxr, n, rows, cols, kind);
    same("layer_norm dy specials dgamma", dg, dgr, cols, rows, cols, kind);
    same("layer_norm dy specials dbeta", db, dbr, cols, rows, cols, kind);
    ref_rms_norm_forward(rows, cols, x, gam, 1e-6f, dx, rs);
    repdl_rms_norm_backward_f32(rows, cols, x, gam, rs, dy, dx, dg);
    ref_rms_norm_backward(rows, cols, x, gam, rs, dy, dxr, dgr);
    same("rms_norm dy specials dx", dx, dxr, n, rows, cols, kind);
    same("rms_norm dy specials dgamma", dg, dgr, cols, rows, cols, kind);
    {   /* batch norm [rows][cols][1], statistics from the reference */
        float *sm = alloc(cols), *sr = alloc(cols), *rm = alloc(cols), *rv = alloc(cols);
        for (size_t j = 0; j < cols; j++) { rm[j] = 0.0f; rv[j] = 1.0f; }
        ref_batch_norm_train(rows, cols, 1, x, NULL, NULL, 1e-5f, 0.1f, rm, rv, dxr, sm, sr);
        repdl_batch_norm_backward_f32(rows, cols, 1, x, gam, sm, sr, dy, dx, dg, db);
        ref_batch_norm_backward(rows, cols, 1, x, gam, sm, sr, dy, dxr, dgr, dbr);
        same("batch_norm dy specials dx", dx, dxr, n, rows, cols, kind);
        same("batch_norm dy specials dgamma", dg, dgr, cols, rows, cols, kind);
        same("batch_norm dy specials dbeta", db, dbr, cols, rows, cols, kind);
        free(sm); free(sr); free(rm); free(rv);
    }
    free(x); free(dy); free(dx); free(dxr); free(gam); free(dg); free(dgr); free(db); free(dbr);
    free(mu); free(rs);
}

/* layer norm dgamma, dbeta: one call per micro-batch (its rows alone: a
   call on <= 16 rows gives the micro-batch's value), the values as units,
   every split of the micro-batches into 4 ranges (empty ones included: 1
   .. 4 ranges) cut into nodes and combined: the full call, bit for bit */
static void check_split(size_t rows, size_t cols, int kind)
{
    size_t n = rows * cols, G = (rows + 15) / 16, V = 2 * cols;
    float *x = alloc(n), *dy = alloc(n), *y = alloc(n), *gam = alloc(cols);
    float *mu = alloc(rows), *rs = alloc(rows), *full = alloc(V), *units = alloc(G * V),
          *out = alloc(V);
    gen(x, rows, cols, kind);
    gen(dy, rows, cols, (kind + 15) % NKINDS);
    for (size_t j = 0; j < cols; j++) gam[j] = gen_value(4);
    repdl_layer_norm_forward_f32(rows, cols, 1e-5f, x, gam, NULL, y, mu, rs);
    CHECK(repdl_layer_norm_backward_f32(rows, cols, x, gam, mu, rs, dy, NULL, full, full + cols) == REPDL_OK,
          "split: full call REPDL_OK");
    for (size_t g = 0; g < G; g++) {
        size_t r0 = g * 16, m = rows - r0 < 16 ? rows - r0 : 16;
        repdl_layer_norm_backward_f32(m, cols, x + r0 * cols, gam, mu + r0, rs + r0, dy + r0 * cols,
                                      NULL, units + g * V, units + g * V + cols);
    }
    for (size_t a = 0; a <= G; a++)
        for (size_t b = a; b <= G; b++)
            for (size_t c = b; c <= G; c++) {
                size_t bounds[5] = {0, a, b, c, G};
                float *nd[4];
                for (int p = 0; p < 4; p++) {
                    size_t k = repdl_units_nodes(G, bounds[p], bounds[p + 1], 0, NULL);
                    nd[p] = alloc((k ? k : 1) * V);
                    CHECK(repdl_units_nodes_f32(G, bounds[p], bounds[p + 1], V, units + bounds[p] * V,
                                                V, nd[p]) == REPDL_OK, "split: nodes REPDL_OK");
                }
                CHECK(repdl_units_combine_f32(G, 4, bounds, V, (const float *const *)nd, out) == REPDL_OK,
                      "split: combine REPDL_OK");
                same("split dgamma", out, full, cols, rows, a * 10000 + b * 100 + c, kind);
                same("split dbeta", out + cols, full + cols, cols, rows, a * 10000 + b * 100 + c, kind);
                for (int p = 0; p < 4; p++) free(nd[p]);
            }
    free(x); free(dy); free(y); free(gam); free(mu); free(rs); free(full); free(units); free(out);
}

/* layer-norm backward over column blocks (the host's 512 columns, a short
   last one) and whole micro-batches of 16 rows and short ones: every
   subset of the outputs dx, dgamma, dbeta in one call (the host computes
   dx and the column sums in one pass, or the column sums alone), and RMS
   norm's dgamma, against the reference */
static void check_wide_cols(size_t rows, size_t cols, int kind)
{
    size_t n = rows * cols;
    float *x = alloc(n), *dy = alloc(n), *dx = alloc(n), *dxr = alloc(n), *gam = alloc(cols);
    float *dg = alloc(cols), *dgr = alloc(cols), *db = alloc(cols), *dbr = alloc(cols);
    float *mu = alloc(rows), *rs = alloc(rows);
    gen(x, rows, cols, kind);
    gen(dy, rows, cols, (kind + 7) % NKINDS);
    for (size_t j = 0; j < cols; j++) gam[j] = gen_value(4);
    ref_layer_norm_forward(rows, cols, x, gam, NULL, 1e-5f, dx, mu, rs);
    ref_layer_norm_backward(rows, cols, x, gam, mu, rs, dy, dxr, dgr, dbr);
    for (int sub = 1; sub < 8; sub++) {
        float *pdx = (sub & 1) ? dx : NULL, *pdg = (sub & 2) ? dg : NULL, *pdb = (sub & 4) ? db : NULL;
        repdl_layer_norm_backward_f32(rows, cols, x, gam, mu, rs, dy, pdx, pdg, pdb);
        if (pdx) same("layer_norm wide dx", dx, dxr, n, rows, cols, kind * 8 + sub);
        if (pdg) same("layer_norm wide dgamma", dg, dgr, cols, rows, cols, kind * 8 + sub);
        if (pdb) same("layer_norm wide dbeta", db, dbr, cols, rows, cols, kind * 8 + sub);
    }
    ref_rms_norm_forward(rows, cols, x, gam, 1e-6f, dx, rs);
    ref_rms_norm_backward(rows, cols, x, gam, rs, dy, dxr, dgr);
    repdl_rms_norm_backward_f32(rows, cols, x, gam, rs, dy, NULL, dg);
    same("rms_norm wide dgamma", dg, dgr, cols, rows, cols, kind);
    free(x); free(dy); free(dx); free(dxr); free(gam); free(dg); free(dgr); free(db); free(dbr);
    free(mu); free(rs);
}

static void check_batch_order(void)
{
    static const size_t rowsv[] = {16, 17, 40, 70, 100};
    static const size_t colsv[] = {1, 3, 33, 300};
    for (size_t a = 0; a < sizeof rowsv / sizeof rowsv[0]; a++)
        for (size_t b = 0; b < sizeof colsv / sizeof colsv[0]; b++)
            for (int kind = 0; kind < NKINDS; kind++) {
                if (colsv[b] >= 33 && (size_t)kind % 4 != a % 4) continue;
                check_shape(rowsv[a], colsv[b], kind);
                check_dy_specials(rowsv[a], colsv[b], kind);
            }
    for (int kind = 0; kind < NKINDS; kind += 3) {
        check_split(70, 37, kind);
        check_split(100, 5, kind);
    }
    check_split(17, 300, 1);
    check_split(16, 9, 16);
    {
        static const size_t wr[] = {16, 33, 48, 7};
        static const size_t wc[] = {512, 600, 1100};
        for (size_t a = 0; a < sizeof wr / sizeof wr[0]; a++)
            for (size_t b = 0; b < sizeof wc / sizeof wc[0]; b++)
                for (int kind = (int)(a + b) % 5; kind < NKINDS; kind += 5) check_wide_cols(wr[a], wc[b], kind);
    }
}

int main(int argc, char **argv)
{
    static const size_t colsv[] = {0, 1, 2, 3, 17, 64, 255, 1000, 1023, 1024, 1025, 2049, 3000};
    static const size_t rowsv[] = {0, 1, 2, 5};
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--seed")) splitmix64_seed(&rng, strtoull(argv[i + 1], NULL, 0));
    check_edges();
    for (size_t a = 0; a < sizeof colsv / sizeof colsv[0]; a++)
        for (size_t b = 0; b < sizeof rowsv / sizeof rowsv[0]; b++)
            for (int kind = 0; kind < NKINDS; kind++) {
                /* the larger shapes get a sample of the kinds (every
                   special appears with several value modes) */
                if (colsv[a] >= 255 && (size_t)kind % 4 != a % 4) continue;
                if (colsv[a] >= 1000 && rowsv[b] == 5 && (size_t)kind % 8 != a % 8) continue;
                check_shape(rowsv[b], colsv[a], kind);
            }
    check_invariance();
    check_short_flagged();
    check_short_groups();
    check_many_rows();
    check_batch_order();
    return check_summary("test_nn");
}
