/* SPDX-License-Identifier: MIT */
/* tests/mse_loss/test_mse_loss.c: include/repdl/mse_loss.h against
   reference/mse_loss_ref.h (written from the definition: the terms in an
   array, reference/reduce_ref.h's canonical sum, divisions in double),
   bit for bit:
     - forward (mean and sum) and backward (dloss 1, 0.5, -3, a random
       value, +-0, +-inf, NaN) = the reference, n 0..3000 (one to three
       leaves of the canonical sum, short last leaves), inputs with +-0,
       subnormals, +-inf, NaN payloads, huge values (squares and 2 d that
       overflow) and exact cancellations;
     - the sum is repdl_sum_f32 over the array of terms RN(RN(x - t)^2);
     - every NaN written is 0x7fc00000;
     - n == 0: mean NaN, sum -0.0, the backward writes nothing (NULL
       arrays allowed); dx == x and dx == t in place give the same bits;
     - bad input: a reduction other than 0 and 1, loss NULL, x, t or dx
       NULL with n > 0, n floats beyond size_t bytes: the documented
       status and not one output byte written; flush-to-zero set (x86-64):
       REPDL_ERR_FPENV, nothing written.
   No threads form exists (nothing to compare across thread counts).
   Exit 0 when every check passes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/mse_loss.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h> /* MXCSR: the flush-to-zero mode */
#endif

#include "../common/check.h"
#include "../common/splitmix64.h"
#include "mse_loss_ref.h"

/* A NaN pattern no call writes (every NaN written is 0x7fc00000); quiet,
   since gcc may quiet a signalling NaN that it folds through a float. */
#define CANARY 0x7fcabcdeu

static splitmix64 rng;

static uint64_t rnd(uint64_t m) { return m ? splitmix64_next(&rng) % m : 0; }

/* mode 0: ordinary values; 1: with specials (inf, NaN payloads, huge) */
static float rnd_value(int mode)
{
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u,
                                       0x007fffffu, 0x7f800000u, 0xff800000u, 0x7fc00001u,
                                       0xffc12345u, 0x7f7fffffu, 0xff7fffffu, 0x5f000000u};
    uint64_t k = rnd(100);
    if (mode && k < 3) return asfloat(special[rnd(sizeof special / sizeof special[0])]);
    if (k < 15) return (float)((int)rnd(7) - 3); /* small integers: exact cancellations */
    if (k < 22) return asfloat((uint32_t)rnd(1u << 23) | (uint32_t)(rnd(2) << 31));
    return asfloat((uint32_t)(rnd(2) << 31) | (uint32_t)((100 + rnd(60)) << 23) |
                   (uint32_t)rnd(1u << 23));
}

static float *alloc_f(size_t n)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof(float));
    if (!p) abort();
    return p;
}

static void fill_canary(float *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) p[i] = asfloat(CANARY);
}

static int untouched(const float *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (asuint(p[i]) != CANARY) return 0;
    return 1;
}

static int nan_canonical(const float *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != p[i] && asuint(p[i]) != 0x7fc00000u) return 0;
    return 1;
}

static void one_case(size_t n, int mode)
{
    float *x = alloc_f(n), *t = alloc_f(n), *s = alloc_f(n), *dx = alloc_f(n),
          *want = alloc_f(n), *io = alloc_f(n);
    const float dls[] = {1.0f, 0.5f, -3.0f, 0.0f, -0.0f, asfloat(0x7f800000u),
                         asfloat(0x7fc00042u), 0.0f};
    size_t i, k;
    int red;
    for (i = 0; i < n; i++) {
        x[i] = rnd_value(mode);
        t[i] = rnd(8) == 0 ? x[i] : rnd_value(mode); /* some d = +0 */
        s[i] = repdl__mse_term(x[i], t[i]);
    }
    for (red = 0; red <= 1; red++) {
        float loss = asfloat(CANARY), w = ref_mse_forward(x, t, n, red);
        CHECK(repdl_mse_loss_forward_f32(n, red, x, t, &loss) == REPDL_OK, "fwd n %zu", n);
        CHECK_BITS(loss, w, "fwd n %zu mode %d red %d", n, mode, red);
        CHECK(nan_canonical(&loss, 1), "fwd NaN n %zu", n);
        if (red == 1) CHECK_BITS(loss, repdl_sum_f32(n, s), "sum = repdl_sum_f32 n %zu", n);
        for (k = 0; k < sizeof dls / sizeof dls[0]; k++) {
            float dl = k + 1 < sizeof dls / sizeof dls[0] ? dls[k] : rnd_value(0);
            fill_canary(dx, n);
            ref_mse_backward(x, t, n, dl, red, want);
            CHECK(repdl_mse_loss_backward_f32(n, red, x, t, dl, dx) == REPDL_OK, "bwd n %zu", n);
            CHECK_SAME(dx, want, n, "bwd n %zu mode %d red %d dloss %08x", n, mode, red,
                       (unsigned)asuint(dl));
            CHECK(nan_canonical(dx, n), "bwd NaN n %zu", n);
        }
        /* in place: dx == x, dx == t */
        if (n) {
            memcpy(io, x, n * sizeof(float));
            CHECK(repdl_mse_loss_backward_f32(n, red, io, t, 0.25f, io) == REPDL_OK, "dx == x");
            ref_mse_backward(x, t, n, 0.25f, red, want);
            CHECK_SAME(io, want, n, "dx == x n %zu", n);
            memcpy(io, t, n * sizeof(float));
            CHECK(repdl_mse_loss_backward_f32(n, red, x, io, 0.25f, io) == REPDL_OK, "dx == t");
            CHECK_SAME(io, want, n, "dx == t n %zu", n);
        }
    }
    free(x);
    free(t);
    free(s);
    free(dx);
    free(want);
    free(io);
}

/* Values computed by hand from the definition (small exact numbers). */
static void specials(void)
{
    const float x[4] = {1.0f, 2.0f, -1.0f, 0.5f}, t[4] = {0.0f, 4.0f, -1.0f, 0.0f};
    float loss, dx[4];
    /* d = 1, -2, 0, 0.5; s = 1, 4, 0, 0.25; S = 5.25; mean 1.3125 */
    CHECK(repdl_mse_loss_forward_f32(4, 1, x, t, &loss) == REPDL_OK, "sum");
    CHECK_BITS(loss, 5.25f, "sum 5.25");
    CHECK(repdl_mse_loss_forward_f32(4, 0, x, t, &loss) == REPDL_OK, "mean");
    CHECK_BITS(loss, 1.3125f, "mean 1.3125");
    /* mean, dloss 1: g = 0.25, dx = 2 d g = 0.5, -1, +0, 0.25 */
    CHECK(repdl_mse_loss_backward_f32(4, 0, x, t, 1.0f, dx) == REPDL_OK, "bwd");
    CHECK_BITS(dx[0], 0.5f, "dx0");
    CHECK_BITS(dx[1], -1.0f, "dx1");
    CHECK_BITS(dx[2], 0.0f, "dx2 +0");
    CHECK_BITS(dx[3], 0.25f, "dx3");
    /* x == t everywhere: loss +0 */
    CHECK(repdl_mse_loss_forward_f32(2, 1, t, t, &loss) == REPDL_OK && asuint(loss) == 0,
          "x == t: +0");
    /* n == 0 */
    CHECK(repdl_mse_loss_forward_f32(0, 1, NULL, NULL, &loss) == REPDL_OK, "n 0 sum");
    CHECK_BITS(loss, -0.0f, "n 0 sum -0.0");
    CHECK(repdl_mse_loss_forward_f32(0, 0, NULL, NULL, &loss) == REPDL_OK, "n 0 mean");
    CHECK(asuint(loss) == 0x7fc00000u, "n 0 mean NaN");
    CHECK(repdl_mse_loss_backward_f32(0, 0, NULL, NULL, 1.0f, NULL) == REPDL_OK, "n 0 bwd");
    /* inf - inf: NaN, canonical */
    {
        const float a[2] = {asfloat(0x7f800000u), 1.0f}, b[2] = {asfloat(0x7f800000u), 1.0f};
        CHECK(repdl_mse_loss_forward_f32(2, 0, a, b, &loss) == REPDL_OK &&
                  asuint(loss) == 0x7fc00000u, "inf - inf");
        CHECK(repdl_mse_loss_backward_f32(2, 0, a, b, 1.0f, dx) == REPDL_OK &&
                  asuint(dx[0]) == 0x7fc00000u && asuint(dx[1]) == 0, "inf - inf bwd");
    }
}

static void bad_input(void)
{
    float x[4] = {1, 2, 3, 4}, t[4] = {0, 0, 0, 0}, dx[4], loss;
    const int reds[] = {-1, 2, 3, 1000};
    size_t k;
    for (k = 0; k < sizeof reds / sizeof reds[0]; k++) {
        fill_canary(&loss, 1);
        fill_canary(dx, 4);
        CHECK(repdl_mse_loss_forward_f32(4, reds[k], x, t, &loss) == REPDL_ERR_INVALID,
              "reduction %d", reds[k]);
        CHECK(repdl_mse_loss_forward_f32(0, reds[k], NULL, NULL, &loss) == REPDL_ERR_INVALID,
              "reduction %d n 0", reds[k]);
        CHECK(repdl_mse_loss_backward_f32(4, reds[k], x, t, 1.0f, dx) == REPDL_ERR_INVALID,
              "bwd reduction %d", reds[k]);
        CHECK(untouched(&loss, 1) && untouched(dx, 4), "written on a bad reduction");
    }
    fill_canary(&loss, 1);
    fill_canary(dx, 4);
    CHECK(repdl_mse_loss_forward_f32(4, 0, x, t, NULL) == REPDL_ERR_INVALID, "NULL loss");
    CHECK(repdl_mse_loss_forward_f32(0, 0, NULL, NULL, NULL) == REPDL_ERR_INVALID, "NULL loss n0");
    CHECK(repdl_mse_loss_forward_f32(4, 0, NULL, t, &loss) == REPDL_ERR_INVALID, "NULL x");
    CHECK(repdl_mse_loss_forward_f32(4, 1, x, NULL, &loss) == REPDL_ERR_INVALID, "NULL t");
    CHECK(repdl_mse_loss_backward_f32(4, 0, NULL, t, 1.0f, dx) == REPDL_ERR_INVALID, "NULL x b");
    CHECK(repdl_mse_loss_backward_f32(4, 0, x, NULL, 1.0f, dx) == REPDL_ERR_INVALID, "NULL t b");
    CHECK(repdl_mse_loss_backward_f32(4, 0, x, t, 1.0f, NULL) == REPDL_ERR_INVALID, "NULL dx");
    CHECK(untouched(&loss, 1) && untouched(dx, 4), "written on NULL");
    CHECK(repdl_mse_loss_forward_f32(((size_t)-1) / 4 + 1, 0, x, t, &loss) == REPDL_ERR_OVERFLOW,
          "overflow");
    CHECK(repdl_mse_loss_backward_f32((size_t)-1, 1, x, t, 1.0f, dx) == REPDL_ERR_OVERFLOW,
          "overflow bwd");
    CHECK(untouched(&loss, 1) && untouched(dx, 4), "written on overflow");
}

/* Flush-to-zero set: both passes REPDL_ERR_FPENV, nothing written. */
static void fpenv(void)
{
#if defined(__x86_64__) || defined(_M_X64)
    float x[2] = {1, 2}, t[2] = {0, 0}, dx[2], loss;
    unsigned csr = _mm_getcsr();
    int a, b;
    fill_canary(&loss, 1);
    fill_canary(dx, 2);
    _mm_setcsr(csr | 0x8000u); /* FTZ */
    a = repdl_mse_loss_forward_f32(2, 0, x, t, &loss);
    b = repdl_mse_loss_backward_f32(2, 0, x, t, 1.0f, dx);
    _mm_setcsr(csr);
    CHECK(a == REPDL_ERR_FPENV && b == REPDL_ERR_FPENV, "FTZ: %d %d", a, b);
    CHECK(untouched(&loss, 1) && untouched(dx, 2), "written under FTZ");
#endif
}

int main(void)
{
    static const size_t ns[] = {0, 1, 2, 3, 15, 16, 17, 63, 64, 65, 100, 1023, 1024, 1025, 2047,
                                2048, 2049, 3000};
    size_t a;
    int rep;
    splitmix64_seed(&rng, 0x6d7365u);
    for (a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (rep = 0; rep < 3; rep++) {
            one_case(ns[a], 0);
            one_case(ns[a], 1);
        }
    specials();
    bad_input();
    fpenv();
    return check_summary("test_mse_loss");
}
