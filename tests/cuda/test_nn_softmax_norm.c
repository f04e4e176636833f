/* SPDX-License-Identifier: MIT */
/* tests/cuda/test_nn_softmax_norm.c: the CUDA softmax, losses and
   normalizations (cuda/nn_softmax_norm.cu) against the host functions of
   include/repdl/softmax.h and norm.h, bit for bit (NaN bits included).

   Expected values: the host functions compiled by the C compiler
   (tests/nn proves them against reference/nn_ref.h).
   Checked, for every launcher: shapes across leaf boundaries (cols 1 ..
   5000, rows 1 .. 300, and 0), data with -inf, +inf, NaN, all -inf rows,
   subnormals, huge values; affine and non-affine; in-place calls; batch
   invariance (a row alone on the device equals that row in a batch);
   losses with more than one leaf of rows and out-of-range targets; the
   batch order of the sums over rows / images (micro-batches of 16 added
   by the buddy tree: dgamma, dbeta, batch norm's statistics and backward
   sums) on rows 17, 40, 70, 300 (the last micro-batch short) and batch
   norm with n = rows images of hw = cols, also against the oracle
   reference/nn_ref.h (ref_layer_norm_backward, ref_rms_norm_backward,
   ref_batch_norm_train, ref_batch_norm_backward) up to 400000 elements.
   No GPU: prints "skipped: no GPU" and exits 77. */
#include <repdl/norm.h>
#include <repdl/softmax.h>

#include "../../reference/nn_ref.h"
#include "gpu_test.h"

static long checks = 0, failures = 0;

static void same(const char *what, const float *a, const float *b, size_t n, size_t rows,
                 size_t cols)
{
    checks++;
    for (size_t i = 0; i < n; i++)
        if (f2u(a[i]) != f2u(b[i])) {
            failures++;
            if (failures < 30)
                fprintf(stderr, "FAIL %s rows=%zu cols=%zu: [%zu] gpu %08x host %08x\n", what, rows,
                        cols, i, f2u(a[i]), f2u(b[i]));
            return;
        }
}

static float gen_value(int mode)
{
    uint64_t r = rng_next();
    uint32_t sign = (uint32_t)(r >> 63) << 31;
    switch (mode) {
    case 0: return u2f(sign | (uint32_t)(119 + (r >> 8) % 17) << 23 | (uint32_t)(r & 0x7fffff));
    case 1: return u2f(sign | (uint32_t)((r >> 8) % 0x7f800000u));
    case 2: return (float)((double)(r >> 11) * 0x1p-53 * 64.0 - 32.0);
    default: return u2f(sign | (uint32_t)127 << 23 | (uint32_t)(r & 0x7fffff));
    }
}

static void gen(float *x, size_t rows, size_t cols, int kind)
{
    for (size_t i = 0; i < rows * cols; i++) x[i] = gen_value(kind % 4);
    if (kind < 4 || cols == 0) return;
    for (size_t r = 0; r < rows; r++) {
        float *xr = x + r * cols;
        switch (r % 5) {
        case 1: xr[rng_below(cols)] = u2f(0xff800000u); break;
        case 2: xr[rng_below(cols)] = u2f(0x7f800000u); break;
        case 3: xr[rng_below(cols)] = u2f(0x7f800001u | (uint32_t)rng_below(0x7fffff)); break;
        case 4: if (r % 10 == 4) for (size_t i = 0; i < cols; i++) xr[i] = u2f(0xff800000u); break;
        }
    }
}

static float *dev(size_t n)
{
    void *p = NULL;
    CU(cudaMalloc(&p, (n ? n : 1) * sizeof(float)));
    return (float *)p;
}
static float *up(const float *h, size_t n)
{
    float *d = dev(n);
    if (n) CU(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}
static void down(float *h, const float *d, size_t n)
{
    CU(cudaDeviceSynchronize());
    if (n) CU(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
}

static void check_shape(size_t rows, size_t cols, int kind)
{
    size_t n = rows * cols;
    float *x = (float *)xmalloc(n * 4), *dy = (float *)xmalloc(n * 4), *hy = (float *)xmalloc(n * 4),
          *gy = (float *)xmalloc(n * 4), *hy2 = (float *)xmalloc(n * 4);
    /* per-row / per-column / per-channel arrays: K covers every use */
    size_t K = rows + cols + 1;
    float *gam = (float *)xmalloc(K * 4), *bet = (float *)xmalloc(K * 4);
    float *hm = (float *)xmalloc(K * 4), *hr = (float *)xmalloc(K * 4),
          *gm = (float *)xmalloc(K * 4), *gr = (float *)xmalloc(K * 4);
    float *hg = (float *)xmalloc(K * 4), *hb = (float *)xmalloc(K * 4),
          *gg = (float *)xmalloc(K * 4), *gb = (float *)xmalloc(K * 4);
    /* the oracle's outputs (reference/nn_ref.h; dx and y into hy2) */
    float *rg = (float *)xmalloc(K * 4), *rb = (float *)xmalloc(K * 4),
          *rm = (float *)xmalloc(K * 4), *rr = (float *)xmalloc(K * 4);
    int use_ref = n <= 400000;
    size_t *t = (size_t *)xmalloc((rows + 1) * sizeof(size_t));
    gen(x, rows, cols, kind);
    gen(dy, rows, cols, 3);
    for (size_t j = 0; j < K; j++) { gam[j] = gen_value(3); bet[j] = gen_value(0); }
    for (size_t r = 0; r < rows; r++)
        t[r] = rng_next() % 16 == 0 ? (rng_next() & 1 ? cols : REPDL_NO_INDEX)
                                    : (cols ? (size_t)rng_below(cols) : 0);
    float *dx_ = up(x, n), *ddy = up(dy, n), *dyo = dev(n), *dg = up(gam, K), *db = up(bet, K);
    float *dm = dev(K), *dr = dev(K), *dgo = dev(K), *dbo = dev(K), *dl = dev(1);
    size_t *dt = NULL;
    CU(cudaMalloc((void **)&dt, (rows + 1) * sizeof(size_t)));
    CU(cudaMemcpy(dt, t, rows * sizeof(size_t), cudaMemcpyHostToDevice));

    for (int log = 0; log < 2; log++) {
        const char *nm = log ? "log_softmax" : "softmax";
        if (log) repdl_log_softmax_f32(rows, cols, x, hy);
        else repdl_softmax_f32(rows, cols, x, hy);
        RD(log ? repdl_cuda_log_softmax_f32(rows, cols, dx_, dyo, NULL)
               : repdl_cuda_softmax_f32(rows, cols, dx_, dyo, NULL));
        down(gy, dyo, n);
        same(nm, gy, hy, n, rows, cols);
        /* in place */
        float *ip = up(x, n);
        RD(log ? repdl_cuda_log_softmax_f32(rows, cols, ip, ip, NULL)
               : repdl_cuda_softmax_f32(rows, cols, ip, ip, NULL));
        down(gy, ip, n);
        same(log ? "log_softmax in place" : "softmax in place", gy, hy, n, rows, cols);
        /* batch invariance: the last row alone */
        if (rows > 1) {
            RD(log ? repdl_cuda_log_softmax_f32(1, cols, dx_ + (rows - 1) * cols, ip, NULL)
                   : repdl_cuda_softmax_f32(1, cols, dx_ + (rows - 1) * cols, ip, NULL));
            down(gy, ip, cols);
            same("batch invariance", gy, hy + (rows - 1) * cols, cols, 1, cols);
        }
        /* backward from the host's y */
        float *dyh = up(hy, n);
        if (log) repdl_log_softmax_backward_f32(rows, cols, hy, dy, hy2);
        else repdl_softmax_backward_f32(rows, cols, hy, dy, hy2);
        RD(log ? repdl_cuda_log_softmax_backward_f32(rows, cols, dyh, ddy, ip, NULL)
               : repdl_cuda_softmax_backward_f32(rows, cols, dyh, ddy, ip, NULL));
        down(gy, ip, n);
        same(log ? "log_softmax_backward" : "softmax_backward", gy, hy2, n, rows, cols);
        CU(cudaFree(ip));
        CU(cudaFree(dyh));
    }
    for (int red = 0; red < 2; red++) {
        float hl, gl;
        RD(repdl_cross_entropy_f32(rows, cols, red, x, t, &hl, hy));
        RD(repdl_cuda_cross_entropy_f32(rows, cols, red, dx_, dt, dl, dyo, NULL));
        down(gy, dyo, n);
        down(&gl, dl, 1);
        same("cross_entropy loss", &gl, &hl, 1, rows, cols);
        same("cross_entropy grad", gy, hy, n, rows, cols);
        RD(repdl_nll_loss_f32(rows, cols, red, x, t, &hl, hy));
        RD(repdl_cuda_nll_loss_f32(rows, cols, red, dx_, dt, dl, dyo, NULL));
        down(gy, dyo, n);
        down(&gl, dl, 1);
        same("nll loss", &gl, &hl, 1, rows, cols);
        same("nll grad", gy, hy, n, rows, cols);
    }
    for (int aff = 0; aff < 4; aff++) {
        const float *hgam = aff & 1 ? gam : NULL, *hbet = aff & 2 ? bet : NULL;
        const float *dgam = aff & 1 ? dg : NULL, *dbet = aff & 2 ? db : NULL;
        repdl_layer_norm_forward_f32(rows, cols, 1e-5f, x, hgam, hbet, hy, hm, hr);
        RD(repdl_cuda_layer_norm_forward_f32(rows, cols, 1e-5f, dx_, dgam, dbet, dyo, dm, dr, NULL));
        down(gy, dyo, n); down(gm, dm, rows); down(gr, dr, rows);
        same("layer_norm y", gy, hy, n, rows, cols);
        same("layer_norm mean", gm, hm, rows, rows, cols);
        same("layer_norm rstd", gr, hr, rows, rows, cols);
        repdl_layer_norm_backward_f32(rows, cols, x, hgam, hm, hr, dy, hy, hg, hb);
        RD(repdl_cuda_layer_norm_backward_f32(rows, cols, dx_, dgam, dm, dr, ddy, dyo, dgo, dbo, NULL));
        down(gy, dyo, n); down(gg, dgo, cols); down(gb, dbo, cols);
        same("layer_norm dx", gy, hy, n, rows, cols);
        same("layer_norm dgamma", gg, hg, cols, rows, cols);
        same("layer_norm dbeta", gb, hb, cols, rows, cols);
        if (use_ref) {
            ref_layer_norm_backward(rows, cols, x, hgam, hm, hr, dy, hy2, rg, rb);
            same("layer_norm dx vs reference", gy, hy2, n, rows, cols);
            same("layer_norm dgamma vs reference", gg, rg, cols, rows, cols);
            same("layer_norm dbeta vs reference", gb, rb, cols, rows, cols);
        }
        repdl_rms_norm_forward_f32(rows, cols, 1e-6f, x, hgam, hy, hr);
        RD(repdl_cuda_rms_norm_forward_f32(rows, cols, 1e-6f, dx_, dgam, dyo, dr, NULL));
        down(gy, dyo, n); down(gr, dr, rows);
        same("rms_norm y", gy, hy, n, rows, cols);
        same("rms_norm rstd", gr, hr, rows, rows, cols);
        repdl_rms_norm_backward_f32(rows, cols, x, hgam, hr, dy, hy, hg);
        RD(repdl_cuda_rms_norm_backward_f32(rows, cols, dx_, dgam, dr, ddy, dyo, dgo, NULL));
        down(gy, dyo, n); down(gg, dgo, cols);
        same("rms_norm dx", gy, hy, n, rows, cols);
        same("rms_norm dgamma", gg, hg, cols, rows, cols);
        if (use_ref) {
            ref_rms_norm_backward(rows, cols, x, hgam, hr, dy, hy2, rg);
            same("rms_norm dx vs reference", gy, hy2, n, rows, cols);
            same("rms_norm dgamma vs reference", gg, rg, cols, rows, cols);
        }
    }
    /* batch norm: [rows][cols][1] and [1][rows][cols] ... as [n][c][hw] */
    {
        size_t sp[3][3] = {{rows, cols, 1}, {rows > 2 ? 2 : 1, rows > 2 ? rows / 2 : rows, cols},
                           {rows, 1, cols}};
        for (int s = 0; s < 3; s++) {
            size_t bn = sp[s][0], bc = sp[s][1], bh = sp[s][2], m = bn * bc * bh;
            float *hrm = (float *)xmalloc(bc * 4 + 4), *hrv = (float *)xmalloc(bc * 4 + 4);
            float *grm = (float *)xmalloc(bc * 4 + 4), *grv = (float *)xmalloc(bc * 4 + 4);
            float *rrm = (float *)xmalloc(bc * 4 + 4), *rrv = (float *)xmalloc(bc * 4 + 4);
            for (size_t ch = 0; ch < bc; ch++) { hrm[ch] = gen_value(0); hrv[ch] = gen_value(3) + 2.0f; }
            float *drm = up(hrm, bc), *drv = up(hrv, bc);
            for (int aff = 0; aff < 2; aff++) {
                const float *hgam = aff ? gam : NULL, *hbet = aff ? bet : NULL;
                const float *dgam = aff ? dg : NULL, *dbet = aff ? db : NULL;
                memcpy(rrm, hrm, bc * sizeof(float));
                memcpy(rrv, hrv, bc * sizeof(float));
                repdl_batch_norm_forward_train_f32(bn, bc, bh, 1e-5f, 0.1f, x, hgam, hbet, hrm, hrv, hy, hm, hr);
                RD(repdl_cuda_batch_norm_forward_train_f32(bn, bc, bh, 1e-5f, 0.1f, dx_, dgam, dbet, drm, drv, dyo, dm, dr, NULL));
                down(gy, dyo, m); down(gm, dm, bc); down(gr, dr, bc); down(grm, drm, bc); down(grv, drv, bc);
                same("batch_norm train y", gy, hy, m, bn, bc);
                same("batch_norm save_mean", gm, hm, bc, bn, bc);
                same("batch_norm save_rstd", gr, hr, bc, bn, bc);
                same("batch_norm running_mean", grm, hrm, bc, bn, bc);
                same("batch_norm running_var", grv, hrv, bc, bn, bc);
                if (use_ref) {
                    ref_batch_norm_train(bn, bc, bh, x, hgam, hbet, 1e-5f, 0.1f, rrm, rrv, hy2, rm, rr);
                    same("batch_norm train y vs reference", gy, hy2, m, bn, bc);
                    same("batch_norm save_mean vs reference", gm, rm, bc, bn, bc);
                    same("batch_norm save_rstd vs reference", gr, rr, bc, bn, bc);
                    same("batch_norm running_mean vs reference", grm, rrm, bc, bn, bc);
                    same("batch_norm running_var vs reference", grv, rrv, bc, bn, bc);
                }
                repdl_batch_norm_forward_infer_f32(bn, bc, bh, 1e-5f, x, hgam, hbet, hrm, hrv, hy);
                RD(repdl_cuda_batch_norm_forward_infer_f32(bn, bc, bh, 1e-5f, dx_, dgam, dbet, drm, drv, dyo, NULL));
                down(gy, dyo, m);
                same("batch_norm infer y", gy, hy, m, bn, bc);
                repdl_batch_norm_backward_f32(bn, bc, bh, x, hgam, hm, hr, dy, hy, hg, hb);
                RD(repdl_cuda_batch_norm_backward_f32(bn, bc, bh, dx_, dgam, dm, dr, ddy, dyo, dgo, dbo, NULL));
                down(gy, dyo, m); down(gg, dgo, bc); down(gb, dbo, bc);
                same("batch_norm dx", gy, hy, m, bn, bc);
                same("batch_norm dgamma", gg, hg, bc, bn, bc);
                same("batch_norm dbeta", gb, hb, bc, bn, bc);
                if (use_ref) {
                    ref_batch_norm_backward(bn, bc, bh, x, hgam, hm, hr, dy, hy2, rg, rb);
                    same("batch_norm dx vs reference", gy, hy2, m, bn, bc);
                    same("batch_norm dgamma vs reference", gg, rg, bc, bn, bc);
                    same("batch_norm dbeta vs reference", gb, rb, bc, bn, bc);
                }
            }
            CU(cudaFree(drm)); CU(cudaFree(drv));
            free(hrm); free(hrv); free(grm); free(grv); free(rrm); free(rrv);
        }
    }
    CU(cudaFree(dx_)); CU(cudaFree(ddy)); CU(cudaFree(dyo)); CU(cudaFree(dg)); CU(cudaFree(db));
    CU(cudaFree(dm)); CU(cudaFree(dr)); CU(cudaFree(dgo)); CU(cudaFree(dbo)); CU(cudaFree(dl));
    CU(cudaFree(dt));
    free(x); free(dy); free(hy); free(gy); free(hy2); free(gam); free(bet);
    free(hm); free(hr); free(gm); free(gr); free(hg); free(hb); free(gg); free(gb); free(t);
    free(rg); free(rb); free(rm); free(rr);
}

int main(int argc, char **argv)
{
    /* --small: a short run for compute-sanitizer (tests/cuda/run_all.sh) */
    int small_run = argc > 1 && !strcmp(argv[1], "--small");
    if (argc > 1 && !small_run) {
        fprintf(stderr, "usage: %s [--small]\n", argv[0]);
        return 2;
    }
    static const size_t colsv[] = {0, 1, 2, 31, 33, 64, 1000, 1024, 1025, 5000};
    static const size_t rowsv[] = {1, 3, 16, 17, 40, 70, 300};
    gpu_require("test_nn_softmax_norm");
    RD(repdl_cuda_check_device());
    for (size_t a = 0; a < sizeof colsv / sizeof colsv[0]; a++)
        for (size_t b = 0; b < sizeof rowsv / sizeof rowsv[0]; b++)
            for (int kind = 0; kind < 8; kind++) {
                if (colsv[a] * rowsv[b] > 100000 && kind % 4 != 2) continue;
                if (small_run && (colsv[a] > 1025 || rowsv[b] > 40 || kind % 2)) continue;
                check_shape(rowsv[b], colsv[a], kind);
            }
    check_shape(2100, 3, 6); /* losses and column sums over more than one leaf of rows */
    printf("test_nn_softmax_norm: %ld checks, %ld failures\n", checks, failures);
    return failures ? 1 : 0;
}
