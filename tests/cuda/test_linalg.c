/* SPDX-License-Identifier: MIT */
/* tests/cuda/test_linalg.c: the CUDA matrix products (cuda/linalg.cu) against
   the host library (include/repdl/gemm.h, linear.h, conv2d.h) and the plain
   oracle (reference/gemm_ref.h), bit for bit (NaN bits included).

   Checked:
     - gemm: M, N, K in {1, 7, 33, 1000} (K also 0), all four transposes,
       alpha in {1, 2.5}, beta in {0, 1, -0.75}, with and without bias, ld
       padding, 16-byte aligned (float4 loads) and misaligned (scalar)
       pointers, data with subnormals, infinities and NaNs;
     - launch invariance: capped grids (blocks walking several tiles) and
       scalar_loads give the default's bits;
     - batch invariance: each row of an M = 512 product equals the M = 1
       product of that row, on the device;
     - linear forward and backward; conv2d forward and backward (stride,
       padding, dilation, 1x1) with workspaces of one image and of all;
     - the batch order of dW, db, dw (micro-batches of 16 samples added by
       the buddy tree): linear M = 17, 32, 48, 100, 257 (1000), conv2d
       n = 17, 32, 40, 70, also against reference/gemm_ref.h's recursive
       tree; conv2d with a tree group of one partial matrix (the tree's
       state carried between groups) and of three;
     - argument errors (no GPU needed for these).
     test_gemm [--seed S]
   No GPU: prints "skipped: no GPU" and exits 77. */
#include <repdl/conv2d.h>
#include <repdl/gemm.h>
#include <repdl/linear.h>

#include "../../reference/gemm_ref.h"
#include "gpu_test.h"

static int failures = 0, checks = 0;

static float gen_value(int kind)
{
    uint64_t r = rng_next();
    uint32_t sign = (uint32_t)(r >> 63) << 31;
    if (kind == 0) /* +-[1, 2): any change of order shows */
        return u2f(sign | (uint32_t)127 << 23 | (uint32_t)(r & 0x7fffff));
    switch ((r >> 40) % 64) {
    case 0: return u2f(sign | 0x7f800000u);                                   /* inf */
    case 1: return u2f(0x7f800001u | (uint32_t)(r & 0x3fffff) | sign);        /* NaN */
    case 2: case 3: case 4: return u2f(sign | (uint32_t)(r & 0x7fffff));      /* subnormal, 0 */
    default: return u2f(sign | (uint32_t)(100 + (r >> 8) % 56) << 23 | (uint32_t)(r & 0x7fffff));
    }
}

static void fill(float *p, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) p[i] = gen_value(kind);
}

static void back(float *h, const float *d, size_t n)
{
    CU(cudaDeviceSynchronize());
    if (n) CU(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
}

/* Counts mismatching words; reports the first few. */
static size_t compare(const char *what, const float *got, const float *want, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (f2u(got[i]) != f2u(want[i]) && bad++ < 3)
            printf("  %s[%zu]: got 0x%08x want 0x%08x\n", what, i, f2u(got[i]), f2u(want[i]));
    checks++;
    if (bad) failures++;
    return bad;
}

/* One gemm against the host, and under other launch configurations. */
static void gemm_case(int tA, int tB, size_t M, size_t N, size_t K, float alpha, float beta,
                      int use_bias, int kind, int misalign, int configs)
{
    size_t pad = rng_below(5), lda = (tA ? M : K) + pad, ldb = (tB ? K : N) + (pad & 1) * 4;
    size_t ldc = N + rng_below(3);
    if (lda == 0) lda = 1;
    if (ldb == 0) ldb = 1;
    size_t na = (tA ? K : M) * lda + 1, nb = (tB ? N : K) * ldb, nc = M * ldc;
    float *A = xmalloc(na * 4), *B = xmalloc((nb + 1) * 4), *bias = xmalloc((N + 1) * 4);
    float *C = xmalloc((nc + 1) * 4), *H = xmalloc((nc + 1) * 4), *G = xmalloc((nc + 1) * 4);
    fill(A, na, kind);
    fill(B, nb + 1, kind);
    fill(bias, N + 1, kind);
    fill(C, nc + 1, kind);
    memcpy(H, C, nc * 4);
    repdl_gemm_f32(tA, tB, M, N, K, alpha, beta, A + misalign, lda, B, ldb,
                   use_bias ? bias : NULL, H, ldc);
    float *dA = dev_copy(A, na), *dB = dev_copy(B, nb + 1), *dbias = dev_copy(bias, N + 1);
    float *dC = dev_copy(C, nc + 1);
    RD(repdl_cuda_gemm_f32(tA, tB, M, N, K, alpha, beta, dA + misalign, lda, dB,
                           ldb, use_bias ? dbias : NULL, dC, ldc, NULL));
    back(G, dC, nc);
    if (compare("gemm", G, H, nc))
        printf("FAIL gemm tA=%d tB=%d M=%zu N=%zu K=%zu alpha=%g beta=%g bias=%d kind=%d mis=%d\n",
               tA, tB, M, N, K, alpha, beta, use_bias, kind, misalign);
    if (M * N * K <= 40000000) { /* the oracle too, where it is quick */
        memcpy(H, C, nc * 4);
        ref_gemm_f32(tA, tB, M, N, K, alpha, A + misalign, lda, B, ldb, use_bias ? bias : NULL,
                     beta, H, ldc);
        if (compare("gemm-ref", G, H, nc)) printf("FAIL gemm vs oracle M=%zu N=%zu K=%zu\n", M, N, K);
    }
    for (int c = 0; c < configs; c++) {
        repdl_cuda_gemm_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.grid_x = (unsigned)(1 + rng_below(3));
        cfg.grid_y = (unsigned)(1 + rng_below(3));
        cfg.scalar_loads = (unsigned)(c & 1);
        CU(cudaMemcpy(dC, C, nc * 4, cudaMemcpyHostToDevice));
        RD(repdl_cuda_gemm_config_f32(tA, tB, M, N, K, &cfg, alpha, beta, dA + misalign, lda,
                                      dB, ldb, use_bias ? dbias : NULL, dC, ldc, NULL));
        back(H, dC, nc);
        if (compare("gemm-config", H, G, nc))
            printf("FAIL gemm config grid %u x %u scalar %u M=%zu N=%zu K=%zu\n", cfg.grid_x,
                   cfg.grid_y, cfg.scalar_loads, M, N, K);
    }
    CU(cudaFree(dA)); CU(cudaFree(dB)); CU(cudaFree(dbias)); CU(cudaFree(dC));
    free(A); free(B); free(bias); free(C); free(H); free(G);
}

/* Each row of an M = 512 product equals the M = 1 product of that row. */
static void batch_invariance(size_t K, size_t N)
{
    size_t M = 512;
    float *x = xmalloc(M * K * 4), *W = xmalloc(N * K * 4), *b = xmalloc(N * 4);
    float *y = xmalloc(M * N * 4), *y1 = xmalloc(N * 4);
    fill(x, M * K, 0);
    fill(W, N * K, 0);
    fill(b, N, 0);
    float *dx = dev_copy(x, M * K), *dW = dev_copy(W, N * K), *db = dev_copy(b, N);
    float *dy = dev_copy(NULL, M * N), *dy1 = dev_copy(NULL, N);
    RD(repdl_cuda_linear_forward_f32(M, K, N, dx, dW, db, dy, NULL));
    back(y, dy, M * N);
    size_t bad = 0;
    for (size_t r = 0; r < M; r += 37) {
        RD(repdl_cuda_linear_forward_f32(1, K, N, dx + r * K, dW, db, dy1, NULL));
        back(y1, dy1, N);
        bad += compare("batch-row", y + r * N, y1, N);
    }
    if (bad) printf("FAIL batch invariance K=%zu N=%zu\n", K, N);
    CU(cudaFree(dx)); CU(cudaFree(dW)); CU(cudaFree(db)); CU(cudaFree(dy)); CU(cudaFree(dy1));
    free(x); free(W); free(b); free(y); free(y1);
}

static void linear_case(size_t M, size_t K, size_t N, int kind)
{
    float *x = xmalloc(M * K * 4 + 4), *W = xmalloc(N * K * 4 + 4), *b = xmalloc(N * 4 + 4);
    float *dyv = xmalloc(M * N * 4 + 4);
    fill(x, M * K, kind); fill(W, N * K, kind); fill(b, N, kind); fill(dyv, M * N, kind);
    float *hy = xmalloc(M * N * 4 + 4), *hdx = xmalloc(M * K * 4 + 4), *hdW = xmalloc(N * K * 4 + 4),
          *hdb = xmalloc(N * 4 + 4), *g = xmalloc((M * N + M * K + N * K + N) * 4 + 4);
    repdl_linear_forward_f32(M, K, N, x, W, b, hy);
    repdl_linear_backward_f32(M, K, N, x, W, dyv, hdx, hdW, hdb);
    float *dx_ = dev_copy(x, M * K), *dW_ = dev_copy(W, N * K), *db_ = dev_copy(b, N),
          *ddy = dev_copy(dyv, M * N);
    float *oy = dev_copy(NULL, M * N), *odx = dev_copy(NULL, M * K), *odW = dev_copy(NULL, N * K),
          *odb = dev_copy(NULL, N);
    RD(repdl_cuda_linear_forward_f32(M, K, N, dx_, dW_, db_, oy, NULL));
    RD(repdl_cuda_linear_backward_f32(M, K, N, dx_, dW_, ddy, odx, odW, odb, NULL));
    size_t bad = 0;
    back(g, oy, M * N); bad += compare("linear-y", g, hy, M * N);
    back(g, odx, M * K); bad += compare("linear-dx", g, hdx, M * K);
    back(g, odW, N * K); bad += compare("linear-dW", g, hdW, N * K);
    back(g, odb, N); bad += compare("linear-db", g, hdb, N);
    if (M * N * (K + 1) <= (size_t)20 * 1000 * 1000) {
        /* the batch order straight from the oracle's recursive tree */
        ref_linear_backward_f32(M, K, N, x, W, dyv, NULL, hdW, hdb);
        back(g, odW, N * K); bad += compare("linear-dW-ref", g, hdW, N * K);
        back(g, odb, N); bad += compare("linear-db-ref", g, hdb, N);
    }
    if (bad) printf("FAIL linear M=%zu K=%zu N=%zu kind=%d\n", M, K, N, kind);
    CU(cudaFree(dx_)); CU(cudaFree(dW_)); CU(cudaFree(db_)); CU(cudaFree(ddy));
    CU(cudaFree(oy)); CU(cudaFree(odx)); CU(cudaFree(odW)); CU(cudaFree(odb));
    free(x); free(W); free(b); free(dyv); free(hy); free(hdx); free(hdW); free(hdb); free(g);
}

static void conv_case(const repdl_conv2d_shape *s, int kind)
{
    size_t oh = repdl_conv2d_out_h(s), ow = repdl_conv2d_out_w(s), P = oh * ow;
    size_t CK = s->c * s->kh * s->kw, nx = s->n * s->c * s->h * s->w, ny = s->n * s->oc * P,
           nw = s->oc * CK;
    float *x = xmalloc(nx * 4 + 4), *w = xmalloc(nw * 4 + 4), *b = xmalloc(s->oc * 4 + 4),
          *dyv = xmalloc(ny * 4 + 4);
    fill(x, nx, kind); fill(w, nw, kind); fill(b, s->oc, kind); fill(dyv, ny, kind);
    float *hy = xmalloc(ny * 4 + 4), *hdx = xmalloc(nx * 4 + 4), *hdw = xmalloc(nw * 4 + 4),
          *hdb = xmalloc(s->oc * 4 + 4), *g = xmalloc((nx + ny + nw + s->oc) * 4 + 4);
    if (repdl_conv2d_forward_f32(s, x, w, b, hy) != 0 ||
        repdl_conv2d_backward_f32(s, x, w, dyv, hdx, hdw, hdb) != 0) {
        printf("FAIL host conv2d refused the shape\n");
        failures++;
        return;
    }
    float *dx_ = dev_copy(x, nx), *dw_ = dev_copy(w, nw), *db_ = dev_copy(b, s->oc),
          *ddy = dev_copy(dyv, ny);
    float *oy = dev_copy(NULL, ny), *odx = dev_copy(NULL, nx), *odw = dev_copy(NULL, nw),
          *odb = dev_copy(NULL, s->oc);
    /* the oracle's dw and db (the batch order by its recursive tree) */
    float *rdw = xmalloc(nw * 4 + 4), *rdb = xmalloc(s->oc * 4 + 4);
    ref_conv_shape rs = {s->n, s->c, s->h, s->w, s->oc, s->kh, s->kw, s->stride_h,
                         s->stride_w, s->pad_h, s->pad_w, s->dil_h, s->dil_w};
    ref_conv2d_backward_f32(&rs, x, w, dyv, NULL, rdw, rdb);
    for (int c = 0; c < 3; c++) {
        repdl_cuda_gemm_config cfg;
        memset(&cfg, 0, sizeof cfg);
        /* 1: one image a chunk, and (n > 16) one partial dw matrix a tree
           group: the tree's pending nodes carried between groups; 2: three
           partial matrices a group (groups not aligned on powers of 2) */
        cfg.workspace_bytes = c == 0 ? 0 : c == 1 ? 1 : 3 * nw * sizeof(float) + 4;
        RD(repdl_cuda_conv2d_forward_config_f32(s, &cfg, dx_, dw_, db_, oy, NULL));
        RD(repdl_cuda_conv2d_backward_config_f32(s, &cfg, dx_, dw_, ddy, odx, odw, odb, NULL));
        size_t bad = 0;
        back(g, oy, ny); bad += compare("conv-y", g, hy, ny);
        back(g, odx, nx); bad += compare("conv-dx", g, hdx, nx);
        back(g, odw, nw); bad += compare("conv-dw", g, hdw, nw);
        back(g, odb, s->oc); bad += compare("conv-db", g, hdb, s->oc);
        back(g, odw, nw); bad += compare("conv-dw-ref", g, rdw, nw);
        back(g, odb, s->oc); bad += compare("conv-db-ref", g, rdb, s->oc);
        if (bad)
            printf("FAIL conv n=%zu c=%zu %zux%zu oc=%zu k=%zux%zu s=%zu p=%zu d=%zu ws=%d kind=%d\n",
                   s->n, s->c, s->h, s->w, s->oc, s->kh, s->kw, s->stride_h, s->pad_h,
                   s->dil_h, c, kind);
    }
    CU(cudaFree(dx_)); CU(cudaFree(dw_)); CU(cudaFree(db_)); CU(cudaFree(ddy));
    CU(cudaFree(oy)); CU(cudaFree(odx)); CU(cudaFree(odw)); CU(cudaFree(odb));
    free(x); free(w); free(b); free(dyv); free(hy); free(hdx); free(hdw); free(hdb); free(g);
    free(rdw); free(rdb);
}

/* Argument errors: checked before any CUDA call, host pointers suffice. */
static void argument_errors(void)
{
    float buf[64];
    repdl_cuda_gemm_config bad_cfg;
    memset(&bad_cfg, 0, sizeof bad_cfg);
    bad_cfg.scalar_loads = 2;
    repdl_conv2d_shape s0 = {1, 1, 4, 4, 1, 3, 3, 0, 1, 0, 0, 1, 1}; /* stride 0 */
    struct { const char *what; int rc; } cases[] = {
        {"ldc < N", repdl_cuda_gemm_f32(0, 0, 2, 4, 2, 1.0f, 0.0f, buf, 2, buf + 8, 4, NULL, buf + 32, 3, NULL)},
        {"lda < K", repdl_cuda_gemm_f32(0, 0, 2, 4, 3, 1.0f, 0.0f, buf, 2, buf + 8, 4, NULL, buf + 32, 4, NULL)},
        {"C overlaps A", repdl_cuda_gemm_f32(0, 0, 2, 2, 2, 1.0f, 0.0f, buf, 2, buf + 8, 2, NULL, buf + 2, 2, NULL)},
        {"A NULL", repdl_cuda_gemm_f32(0, 0, 2, 2, 2, 1.0f, 0.0f, NULL, 2, buf + 8, 2, NULL, buf + 32, 2, NULL)},
        {"bad config", repdl_cuda_gemm_config_f32(0, 0, 2, 2, 2, &bad_cfg, 1.0f, 0.0f, buf, 2, buf + 8, 2, NULL, buf + 32, 2, NULL)},
        {"conv stride 0", repdl_cuda_conv2d_forward_f32(&s0, buf, buf + 16, NULL, buf + 32, NULL)},
        {"conv NULL shape", repdl_cuda_conv2d_forward_f32(NULL, buf, buf + 16, NULL, buf + 32, NULL)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        checks++;
        if (cases[i].rc != REPDL_ERR_INVALID) {
            failures++;
            printf("FAIL %s: status %d, want REPDL_ERR_INVALID\n", cases[i].what, cases[i].rc);
        }
    }
    /* empty products launch nothing and succeed, NULL allowed */
    checks++;
    if (repdl_cuda_gemm_f32(0, 0, 0, 5, 5, 1.0f, 0.0f, NULL, 5, NULL, 5, NULL, NULL, 5, NULL) != REPDL_OK) {
        failures++;
        printf("FAIL M == 0 not ok\n");
    }
}

int main(int argc, char **argv)
{
    /* --small: a short run for compute-sanitizer (tests/cuda/run_all.sh):
       no dimension of 1000 */
    int small_run = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) rng_state = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--small") == 0) small_run = 1;
        else {
            fprintf(stderr, "usage: %s [--seed S] [--small]\n", argv[0]);
            return 2;
        }
    }
    argument_errors();
    printf("argument checks: %d, failures %d\n", checks, failures);
    gpu_require("test_gemm");

    const size_t dims[] = {1, 7, 33, 1000};
    const int ndims = small_run ? 3 : 4;
    for (int tA = 0; tA < 2; tA++)
        for (int tB = 0; tB < 2; tB++)
            for (int im = 0; im < ndims; im++)
                for (int in = 0; in < ndims; in++)
                    for (int ik = 0; ik <= ndims; ik++) {
                        size_t M = dims[im], N = dims[in], K = ik == ndims ? 0 : dims[ik];
                        if (M * N * K > (size_t)33 * 1000 * 1000) continue;
                        float alpha = rng_below(2) ? 1.0f : 2.5f;
                        float beta = rng_below(3) == 0 ? 0.0f : rng_below(2) ? 1.0f : -0.75f;
                        gemm_case(tA, tB, M, N, K, alpha, beta, (int)rng_below(2),
                                  (int)rng_below(2), (int)rng_below(2), 2);
                    }
    if (!small_run) {
        gemm_case(0, 0, 1000, 1000, 1000, 1.0f, 0.0f, 1, 0, 0, 2);
        gemm_case(1, 1, 1000, 1000, 1000, 2.5f, -0.75f, 0, 1, 1, 2);
    }
    printf("gemm: %d checks, %d failures\n", checks, failures);

    if (!small_run) batch_invariance(784, 1024);
    batch_invariance(1000, 33);
    printf("batch invariance: %d checks, %d failures\n", checks, failures);

    linear_case(1, 784, 10, 0);
    linear_case(64, 784, 128, 0);
    linear_case(33, 7, 1000, 1);
    linear_case(5, 0, 3, 0);
    linear_case(0, 4, 3, 0);
    /* the batch order: several micro-batches of 16 rows, the last short
       (17, 100, 257) or full (32, 48) */
    linear_case(17, 33, 7, 0);
    linear_case(17, 5, 3, 1);
    linear_case(32, 20, 9, 0);
    linear_case(48, 3, 130, 1);
    linear_case(100, 64, 50, 0);
    linear_case(100, 7, 33, 1);
    linear_case(257, 9, 130, 0);
    linear_case(257, 130, 9, 1);
    if (!small_run) linear_case(1000, 129, 65, 0);
    printf("linear: %d checks, %d failures\n", checks, failures);

    repdl_conv2d_shape shapes[] = {
        {2, 3, 7, 7, 5, 3, 3, 1, 1, 1, 1, 1, 1},
        {3, 2, 9, 8, 4, 3, 2, 2, 3, 1, 0, 1, 2},
        {4, 16, 14, 14, 33, 3, 3, 1, 1, 1, 1, 1, 1},
        {2, 130, 5, 5, 129, 1, 1, 1, 1, 0, 0, 1, 1},
        {2, 2, 4, 4, 3, 2, 2, 1, 1, 3, 3, 2, 2},
        {8, 1, 28, 28, 32, 5, 5, 1, 1, 2, 2, 1, 1},
        /* the batch order: n = 17, 32, 40, 70 images (micro-batches of 16) */
        {17, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1},
        {32, 1, 4, 4, 2, 2, 2, 1, 1, 0, 0, 1, 1},
        {40, 3, 6, 6, 4, 2, 2, 2, 2, 0, 0, 1, 1},
        {70, 1, 4, 4, 2, 3, 3, 1, 1, 1, 1, 1, 1},
        {70, 4, 3, 3, 33, 1, 1, 1, 1, 0, 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int kind = 0; kind < 2; kind++) conv_case(&shapes[i], kind);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
