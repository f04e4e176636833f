/* SPDX-License-Identifier: MIT */
/* tests/cuda/test_backward.c: the launchers of include/repdl/backward.h's
   functions (the backward passes of exp, log, tanh, sqrt and of the row
   reductions sum, mean, var, norm2) and of reduce.h's mean, norm2 and var
   by rows and repdl_div_count_f32, GPU against host, bit for bit: random
   bit patterns with special values (NaN, +-inf, +-0, subnormals), sizes
   across leaves and blocks, in place, empty sizes with NULL, NULL
   pointers and partial overlaps (REPDL_ERR_INVALID).  Without a GPU:
   "skipped: no GPU", exit 77. */
#include <repdl/backward.h>
#include <repdl/reduce.h>

#include "gpu_test.h"

static long failures, checks;

static void compare(const char *what, size_t n, const float *got, const float *want)
{
    size_t i, bad = 0;
    for (i = 0; i < n; i++)
        if (f2u(got[i]) != f2u(want[i])) {
            if (bad < 3)
                printf("FAIL %s [%zu]: gpu %08x, host %08x\n", what, i, (unsigned)f2u(got[i]),
                       (unsigned)f2u(want[i]));
            bad++;
        }
    checks++;
    if (bad) failures++;
}

static void expect(const char *what, int got, int want)
{
    checks++;
    if (got != want) {
        printf("FAIL %s: status %d, want %d\n", what, got, want);
        failures++;
    }
}

static const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu,
                                    0x00800000u, 0x3f800000u, 0xbf800000u, 0x7f7fffffu,
                                    0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u};

static float value(int wide)
{
    uint64_t r = rng_next();
    if (r % 23 == 0) return u2f(specials[(r >> 8) % (sizeof specials / sizeof specials[0])]);
    if (wide) return u2f((uint32_t)(r >> 16));
    return u2f(((uint32_t)(r >> 16) & 0x807fffffu) | 0x3e000000u);
}

static float *dev(size_t n)
{
    void *p = NULL;
    CU(cudaMalloc(&p, (n ? n : 1) * sizeof(float)));
    return (float *)p;
}
static void up(float *d, const float *h, size_t n) { CU(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice)); }
static void down(float *h, const float *d, size_t n)
{
    CU(cudaDeviceSynchronize());
    CU(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
}

typedef int (*cuda_bwd)(size_t, const float *, const float *, float *, void *);
typedef repdl_status (*host_bwd)(size_t, const float *, const float *, float *);

static void elementwise(const char *name, cuda_bwd g, host_bwd h, size_t n)
{
    float *a = (float *)xmalloc(n * 4), *dy = (float *)xmalloc(n * 4), *want = (float *)xmalloc(n * 4),
          *got = (float *)xmalloc(n * 4);
    float *da = dev(n), *ddy = dev(n), *ddx = dev(n);
    size_t i;
    for (i = 0; i < n; i++) {
        a[i] = value(i & 1);
        dy[i] = value(i % 3 == 0);
    }
    h(n, a, dy, want);
    up(da, a, n);
    up(ddy, dy, n);
    RD(g(n, da, ddy, ddx, NULL));
    down(got, ddx, n);
    compare(name, n, got, want);
    /* in place: dx == in, then dx == dy */
    RD(g(n, da, ddy, da, NULL));
    down(got, da, n);
    compare(name, n, got, want);
    up(da, a, n);
    RD(g(n, da, ddy, ddy, NULL));
    down(got, ddy, n);
    compare(name, n, got, want);
    expect(name, g(0, NULL, NULL, NULL, NULL), REPDL_OK);
    if (n > 1) expect(name, g(n, da, ddy, da + 1, NULL), REPDL_ERR_INVALID);
    expect(name, g(n, NULL, ddy, ddx, NULL), REPDL_ERR_INVALID);
    CU(cudaFree(da));
    CU(cudaFree(ddy));
    CU(cudaFree(ddx));
    free(a);
    free(dy);
    free(want);
    free(got);
}

static void rows_case(size_t rows, size_t n)
{
    size_t total = rows * n, i, ddof;
    float *x = (float *)xmalloc(total * 4), *y = (float *)xmalloc(rows * 4),
          *dy = (float *)xmalloc(rows * 4), *want = (float *)xmalloc((total > rows ? total : rows) * 4),
          *got = (float *)xmalloc((total > rows ? total : rows) * 4);
    float *dx_ = dev(total), *dxo = dev(total), *dyd = dev(rows), *dydv = dev(rows), *dout = dev(rows);
    char what[96];
    for (i = 0; i < total; i++) x[i] = value(0);
    for (i = 0; i < rows; i++) dy[i] = value(0);
    if (rows > 2)
        for (i = 0; i < n; i++) x[2 * n + i] = 0.0f; /* a zero row: norm2's y = 0 */
    up(dx_, x, total);
    up(dydv, dy, rows);
    /* forward */
    for (ddof = 0; ddof < 3; ddof++) {
        size_t dd = ddof == 2 ? n : ddof;
        repdl_var_rows_f32(rows, n, dd, x, n, want);
        RD(repdl_cuda_var_rows_f32(rows, n, dd, dx_, n, dout, NULL));
        down(got, dout, rows);
        snprintf(what, sizeof what, "var_rows %zux%zu ddof %zu", rows, n, dd);
        compare(what, rows, got, want);
    }
    repdl_mean_rows_f32(rows, n, x, n, want);
    RD(repdl_cuda_mean_rows_f32(rows, n, dx_, n, dout, NULL));
    down(got, dout, rows);
    snprintf(what, sizeof what, "mean_rows %zux%zu", rows, n);
    compare(what, rows, got, want);
    repdl_norm2_rows_f32(rows, n, x, n, y);
    RD(repdl_cuda_norm2_rows_f32(rows, n, dx_, n, dout, NULL));
    down(got, dout, rows);
    snprintf(what, sizeof what, "norm2_rows %zux%zu", rows, n);
    compare(what, rows, got, y);
    up(dyd, y, rows);
    /* backward */
    repdl_sum_rows_backward_f32(rows, n, dy, want);
    RD(repdl_cuda_sum_rows_backward_f32(rows, n, dydv, dxo, NULL));
    down(got, dxo, total);
    snprintf(what, sizeof what, "sum_rows_backward %zux%zu", rows, n);
    compare(what, total, got, want);
    repdl_mean_rows_backward_f32(rows, n, dy, want);
    RD(repdl_cuda_mean_rows_backward_f32(rows, n, dydv, dxo, NULL));
    down(got, dxo, total);
    snprintf(what, sizeof what, "mean_rows_backward %zux%zu", rows, n);
    compare(what, total, got, want);
    for (ddof = 0; ddof < 3; ddof++) {
        size_t dd = ddof == 2 ? n : ddof;
        repdl_var_rows_backward_f32(rows, n, dd, x, dy, want);
        RD(repdl_cuda_var_rows_backward_f32(rows, n, dd, dx_, dydv, dxo, NULL));
        down(got, dxo, total);
        snprintf(what, sizeof what, "var_rows_backward %zux%zu ddof %zu", rows, n, dd);
        compare(what, total, got, want);
    }
    repdl_norm2_rows_backward_f32(rows, n, x, y, dy, want);
    RD(repdl_cuda_norm2_rows_backward_f32(rows, n, dx_, dyd, dydv, dxo, NULL));
    down(got, dxo, total);
    snprintf(what, sizeof what, "norm2_rows_backward %zux%zu", rows, n);
    compare(what, total, got, want);
    /* in place dx == x (var: the means are taken before the row is written) */
    RD(repdl_cuda_var_rows_backward_f32(rows, n, 1, dx_, dydv, dx_, NULL));
    repdl_var_rows_backward_f32(rows, n, 1, x, dy, want);
    down(got, dx_, total);
    snprintf(what, sizeof what, "var_rows_backward in place %zux%zu", rows, n);
    compare(what, total, got, want);
    /* errors */
    expect("rows_backward dx overlaps dy", repdl_cuda_sum_rows_backward_f32(rows, n, dxo, dxo, NULL),
           REPDL_ERR_INVALID);
    expect("norm2_rows_backward NULL y",
           repdl_cuda_norm2_rows_backward_f32(rows, n, dx_, NULL, dydv, dxo, NULL), REPDL_ERR_INVALID);
    expect("rows_backward empty", repdl_cuda_var_rows_backward_f32(0, n, 0, NULL, NULL, NULL, NULL),
           REPDL_OK);
    expect("rows_backward overflow",
           repdl_cuda_mean_rows_backward_f32((size_t)1 << 40, (size_t)1 << 30, dydv, dxo, NULL),
           REPDL_ERR_OVERFLOW);
    CU(cudaFree(dx_));
    CU(cudaFree(dxo));
    CU(cudaFree(dyd));
    CU(cudaFree(dydv));
    CU(cudaFree(dout));
    free(x);
    free(y);
    free(dy);
    free(want);
    free(got);
}

static void div_count(size_t n)
{
    static const size_t counts[] = {0, 1, 3, 1000, ((size_t)1 << 24) + 1, ((size_t)1 << 40) + 7};
    float *x = (float *)xmalloc(n * 4), *want = (float *)xmalloc(n * 4), *got = (float *)xmalloc(n * 4);
    float *dx_ = dev(n), *dy_ = dev(n);
    size_t i, c;
    for (i = 0; i < n; i++) x[i] = value(1);
    up(dx_, x, n);
    for (c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        repdl_div_count_f32(n, counts[c], x, want);
        RD(repdl_cuda_div_count_f32(n, counts[c], dx_, dy_, NULL));
        down(got, dy_, n);
        compare("div_count", n, got, want);
    }
    RD(repdl_cuda_div_count_f32(n, 7, dx_, dx_, NULL)); /* in place */
    repdl_div_count_f32(n, 7, x, want);
    down(got, dx_, n);
    compare("div_count in place", n, got, want);
    expect("div_count n = 0", repdl_cuda_div_count_f32(0, 3, NULL, NULL, NULL), REPDL_OK);
    CU(cudaFree(dx_));
    CU(cudaFree(dy_));
    free(x);
    free(want);
    free(got);
}

int main(void)
{
    static const size_t ns[] = {1, 7, 1024, 100003};
    static const size_t shapes[][2] = {{1, 1}, {3, 5}, {4, 1024}, {3, 1025}, {2, 70000}, {1000, 33}};
    size_t k;
    gpu_require("test_cuda_backward");
    for (k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        /* op_table.h's backward passes of the math.cu maps (exp, log, tanh,
           sqrt); the activations' are test_nn_act_pool.c's */
#define BWD(F) elementwise(#F "_backward", repdl_cuda_##F##_backward_array_f32, \
                           repdl_##F##_backward_array_f32, ns[k]);
        REPDL_CUDA_MATH_BACKWARD(BWD)
#undef BWD
        div_count(ns[k]);
    }
    for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) rows_case(shapes[k][0], shapes[k][1]);
    printf("test_cuda_backward: %ld checks, %ld failures\n", checks, failures);
    return failures != 0;
}
