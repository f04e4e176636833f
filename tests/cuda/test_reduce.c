/* SPDX-License-Identifier: MIT */
/* tests/cuda/test_reduce.c: the CUDA canonical reductions against the host,
   bit for bit (NaN bits included).

   Expected values: repdl_sum_f32 / repdl_dot_f32 compiled for the host by
   the C compiler (tests/reduce proves them against the plain reference of
   docs/canonical-order.md).  Checked:
     - sizes 0 .. 2^27 + 1: small, every power of two and its neighbours,
       random, with data that mixes ±0, subnormals, huge values that
       overflow, ±inf, NaNs with random payloads, cancellation;
     - each size under the default launch and under random launch
       configurations (threads, grid, leaves per warp, row per warp), and
       with unaligned pointers: grid- and block-size invariance;
     - the row-wise forms: every row equals the host's single-row result
       and the device's single-row call, for several row counts and
       strides: batch invariance.
     test_reduce [--seed S] [--small | --huge]
       --small: a short run for compute-sanitizer;
       --huge:  only n = 2^32 + 5 and 2^32 + 5 - 1 (64-bit indices; about
                36 GiB of host and 33 GiB of device memory), with an
                infinity planted past index 2^32 in a second vector.
   No GPU: prints "skipped: no GPU" and exits 77. */
#include <repdl/reduce.h>
#include <time.h>

#include "gpu_test.h"

static int failures = 0;
static int small_run = 0;
/* --huge: an index past 2^32 at which check_vector plants -inf in x (0: none). */
static size_t plant_at = 0;

/* Random floats of one kind. */
static float gen_value(int mode)
{
    uint64_t r = rng_next();
    uint32_t sign = (uint32_t)(r >> 63) << 31;
    switch (mode) {
    case 0: /* moderate magnitudes: exponents 2^-20 .. 2^20 */
        return u2f(sign | (uint32_t)(107 + (r >> 8) % 41) << 23 | (uint32_t)(r & 0x7fffff));
    case 1: /* every finite exponent, subnormals and zeros included */
        return u2f(sign | (uint32_t)((r >> 8) % 0x7f800000u));
    case 2: /* subnormals and zeros */
        return u2f(sign | (uint32_t)((r >> 8) % 0x00800000u) * ((r >> 40) % 4 != 0));
    case 3: /* huge: sums overflow to inf or cancel, depending on the order */
        return u2f(sign | (uint32_t)(250 + (r >> 8) % 5) << 23 | (uint32_t)(r & 0x7fffff));
    case 4: /* +-[1, 2): every change of order shows in the last bits */
        return u2f(sign | (uint32_t)127 << 23 | (uint32_t)(r & 0x7fffff));
    default:
        return 0.0f;
    }
}

/* x[0..n) of a random composition; specials sprinkled at random. */
static void gen_array(float *x, size_t n, int kind)
{
    int mode = kind % 5;
    for (size_t i = 0; i < n; i++) x[i] = gen_value(mode);
    switch (kind / 5) {
    case 0: break;
    case 1: /* one +inf or -inf */
        if (n) x[rng_below(n)] = u2f(0x7f800000u | (uint32_t)(rng_next() & 1) << 31);
        break;
    case 2: /* a NaN with a random payload and sign */
        if (n) x[rng_below(n)] = u2f(0x7f800001u | (uint32_t)(rng_next() % 0x7fffff) | (uint32_t)(rng_next() & 1) << 31);
        break;
    case 3: /* all -0 */
        for (size_t i = 0; i < n; i++) x[i] = u2f(0x80000000u);
        break;
    case 4: /* ±0 only */
        for (size_t i = 0; i < n; i++) x[i] = u2f((uint32_t)(rng_next() & 1) << 31);
        break;
    case 5: /* cancellation: x[2i+1] = -x[2i] */
        for (size_t i = 1; i < n; i += 2) x[i] = -x[i - 1];
        break;
    case 6: /* +inf and -inf: NaN */
        if (n >= 2) {
            x[rng_below(n / 2)] = u2f(0x7f800000u);
            x[n / 2 + rng_below(n - n / 2)] = u2f(0xff800000u);
        }
        break;
    }
}
#define NKINDS 35

static void random_cfg(repdl_cuda_config *c)
{
    static const unsigned threads[] = {0, 32, 64, 128, 256};
    static const unsigned grids[] = {0, 1, 2, 3, 7, 64, 1000, 65537};
    c->threads = threads[rng_below(5)];
    c->grid = grids[rng_below(8)];
    c->row_per_warp = rng_below(4) == 0;
    c->leaves_per_warp = c->row_per_warp ? 0 : (unsigned)(rng_below(3) ? 0 : 1u << rng_below(9));

}

static void report(const char *what, size_t n, size_t row, int kind, const repdl_cuda_config *c,
                   float got, float want)
{
    if (f2u(got) == f2u(want)) return;
    failures++;
    if (failures > 30) return;
    printf("  MISMATCH %s n=%zu row=%zu kind=%d cfg={threads %u, grid %u, lpw %u, rpw %u}: "
           "device 0x%08x, host 0x%08x\n",
           what, n, row, kind, c ? c->threads : 0, c ? c->grid : 0, c ? c->leaves_per_warp : 0,
           c ? c->row_per_warp : 0, (unsigned)f2u(got), (unsigned)f2u(want));
}

static float *dalloc(size_t n)
{
    float *d;
    CU(cudaMalloc((void **)&d, (n ? n : 1) * sizeof(float)));
    return d;
}

static float fetch(const float *d)
{
    float h;
    CU(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

/* One vector of n (+1 for the unaligned views): sum and dot, default and
   random configurations. */
static void check_vector(size_t n, int kind, int nconfigs)
{
    float *hx = (float *)xmalloc((n + 1) * sizeof(float));
    float *hy = (float *)xmalloc((n + 1) * sizeof(float));
    gen_array(hx, n + 1, kind);
    gen_array(hy, n + 1, (kind + 1 + (int)rng_below(NKINDS - 1)) % NKINDS);
    if (plant_at && plant_at < n) hx[plant_at] = u2f(0xff800000u);
    float *dx = dalloc(n + 1), *dy = dalloc(n + 1), *dout = dalloc(2);
    CU(cudaMemcpy(dx, hx, (n + 1) * sizeof(float), cudaMemcpyHostToDevice));
    CU(cudaMemcpy(dy, hy, (n + 1) * sizeof(float), cudaMemcpyHostToDevice));

    float s = repdl_sum_f32(n, hx), d = repdl_dot_f32(n, hx, hy);
    float s1 = repdl_sum_f32(n, hx + 1), d1 = repdl_dot_f32(n, hx + 1, hy);

    RD(repdl_cuda_sum_f32(n, dx, dout, NULL));
    report("sum", n, 0, kind, NULL, fetch(dout), s);
    RD(repdl_cuda_dot_f32(n, dx, dy, dout, NULL));
    report("dot", n, 0, kind, NULL, fetch(dout), d);
    RD(repdl_cuda_sum_f32(n, dx + 1, dout + 1, NULL)); /* unaligned x */
    report("sum unaligned", n, 0, kind, NULL, fetch(dout + 1), s1);
    RD(repdl_cuda_dot_f32(n, dx + 1, dy, dout, NULL));
    report("dot unaligned", n, 0, kind, NULL, fetch(dout), d1);

    for (int k = 0; k < nconfigs; k++) {
        repdl_cuda_config c;
        random_cfg(&c);
        /* Keep the workspace of tiny leaves-per-warp on huge n bounded. */
        if (c.leaves_per_warp && n / 1024 / c.leaves_per_warp > ((size_t)1 << 22)) c.leaves_per_warp = 0;
        RD(repdl_cuda_sum_rows_config_f32(1, n, &c, dx, n, dout, NULL));
        report("sum cfg", n, 0, kind, &c, fetch(dout), s);
        RD(repdl_cuda_dot_rows_config_f32(1, n, &c, dx, n, dy, n, dout, NULL));
        report("dot cfg", n, 0, kind, &c, fetch(dout), d);
    }
    CU(cudaFree(dx));
    CU(cudaFree(dy));
    CU(cudaFree(dout));
    free(hx);
    free(hy);
}

/* rows x n at strides ldx, ldy: every row against the host and against the
   device's single-row call. */
static void check_rows(size_t rows, size_t n, size_t ldx, size_t ldy, int nconfigs)
{
    size_t spanx = rows ? (rows - 1) * ldx + n : 0, spany = rows ? (rows - 1) * ldy + n : 0;
    float *hx = (float *)xmalloc((spanx + 1) * sizeof(float));
    float *hy = (float *)xmalloc((spany + 1) * sizeof(float));
    float *hs = (float *)xmalloc((rows + 1) * sizeof(float));
    float *hd = (float *)xmalloc((rows + 1) * sizeof(float));
    float *got = (float *)xmalloc((rows + 1) * sizeof(float));
    int kind = (int)rng_below(NKINDS);
    for (size_t r = 0; r < rows; r++) {
        gen_array(hx + r * ldx, n, (kind + (int)r) % NKINDS);
        gen_array(hy + r * ldy, n, (kind + 3 * (int)r + 1) % NKINDS);
    }
    for (size_t r = 0; r < rows; r++) {
        hs[r] = repdl_sum_f32(n, hx + r * ldx);
        hd[r] = repdl_dot_f32(n, hx + r * ldx, hy + r * ldy);
    }
    float *dx = dalloc(spanx + 1), *dy = dalloc(spany + 1), *dout = dalloc(rows + 1);
    CU(cudaMemcpy(dx, hx, spanx * sizeof(float), cudaMemcpyHostToDevice));
    CU(cudaMemcpy(dy, hy, spany * sizeof(float), cudaMemcpyHostToDevice));

    for (int k = -1; k < nconfigs; k++) {
        repdl_cuda_config c;
        if (k >= 0) random_cfg(&c);
        const repdl_cuda_config *cp = k >= 0 ? &c : NULL;
        RD(cp ? repdl_cuda_sum_rows_config_f32(rows, n, cp, dx, ldx, dout, NULL)
              : repdl_cuda_sum_rows_f32(rows, n, dx, ldx, dout, NULL));
        CU(cudaMemcpy(got, dout, rows * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t r = 0; r < rows; r++) report("sum rows", n, r, kind, cp, got[r], hs[r]);
        RD(cp ? repdl_cuda_dot_rows_config_f32(rows, n, cp, dx, ldx, dy, ldy, dout, NULL)
              : repdl_cuda_dot_rows_f32(rows, n, dx, ldx, dy, ldy, dout, NULL));
        CU(cudaMemcpy(got, dout, rows * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t r = 0; r < rows; r++) report("dot rows", n, r, kind, cp, got[r], hd[r]);
    }
    /* batch invariance on the device: each row alone (a few rows) */
    for (size_t t = 0; t < 4 && rows; t++) {
        size_t r = rng_below(rows);
        RD(repdl_cuda_sum_f32(n, dx + r * ldx, dout, NULL));
        report("sum row alone", n, r, kind, NULL, fetch(dout), hs[r]);
        RD(repdl_cuda_dot_f32(n, dx + r * ldx, dy + r * ldy, dout, NULL));
        report("dot row alone", n, r, kind, NULL, fetch(dout), hd[r]);
    }
    CU(cudaFree(dx));
    CU(cudaFree(dy));
    CU(cudaFree(dout));
    free(hx);
    free(hy);
    free(hs);
    free(hd);
    free(got);
}

int main(int argc, char **argv)
{
    int huge_run = 0;
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--small")) small_run = 1;
        else if (!strcmp(argv[i], "--huge")) huge_run = 1;
        else {
            fprintf(stderr, "usage: %s [--seed S] [--small | --huge]\n", argv[0]);
            return 2;
        }
    }
    gpu_require("test_reduce");
    rng_state = seed;
    printf("test_reduce: seed %llu\n", (unsigned long long)seed);

    size_t vectors = 0;
    if (huge_run) {
        /* 64-bit sizes: a 32-bit index anywhere would drop or repeat
           elements and change the sum.  Kind 4 (+-[1, 2)): every change of
           order shows in the last bits. */
        size_t n = ((size_t)1 << 32) + 5;
        check_vector(n, 4, 1);
        vectors++;
        plant_at = ((size_t)1 << 32) + 2; /* -inf past 2^32: the sum is -inf */
        check_vector(n - 1, 4, 1);
        vectors++;
        printf("%s: %zu vectors of n > 2^32, %d mismatches\n", failures ? "FAIL" : "ok",
               vectors, failures);
        return failures ? 1 : 0;
    }
    /* Small sizes, each kind. */
    for (size_t n = 0; n <= (small_run ? 40 : 300); n += 1 + n / 16)
        for (int kind = 0; kind < NKINDS; kind += small_run ? 7 : 1, vectors++)
            check_vector(n, kind, small_run ? 1 : 3);
    /* Powers of two and neighbours. */
    for (int e = 5; e <= (small_run ? 16 : 27); e++)
        for (int d = -1; d <= 1; d++, vectors++)
            check_vector(((size_t)1 << e) + d, (int)rng_below(NKINDS), e > 22 ? 2 : 4);
    /* Random sizes. */
    for (int t = 0; t < (small_run ? 4 : 60); t++, vectors++) {
        size_t n = (size_t)rng_below((uint64_t)1 << (1 + rng_below(small_run ? 18 : 24)));
        check_vector(n, (int)rng_below(NKINDS), 4);
    }
    printf("%s: %zu vectors\n", failures ? "FAIL" : "ok  ", vectors);

    /* Row-wise forms. */
    static const size_t rowcounts[] = {1, 2, 3, 7, 33, 100, 1000, 20000};
    size_t batches = 0;
    for (size_t i = 0; i < sizeof rowcounts / sizeof rowcounts[0]; i++) {
        size_t rows = rowcounts[i];
        for (int t = 0; t < (small_run ? 1 : 6); t++, batches++) {
            size_t maxn = rows >= 1000 ? 3000 : 200000;
            size_t n = (size_t)rng_below(maxn + 1);
            size_t ldx = n + (rng_below(2) ? 0 : rng_below(70));
            size_t ldy = n + (rng_below(2) ? 0 : rng_below(70));
            if (small_run && rows > 100) break;
            check_rows(rows, n, ldx, ldy, small_run ? 1 : 3);
        }
    }
    printf("%s: %zu batches\n", failures ? "FAIL" : "ok  ", batches);
    CU(cudaDeviceSynchronize());
    printf("%s: %d mismatches\n", failures ? "FAIL" : "ok", failures);
    return failures ? 1 : 0;
}
