/* SPDX-License-Identifier: MIT */
/* tests/nn/test_act_pool.c: activation.h and pool.h against
   the independent reference of reference/act_pool_ref.c, bit for bit.

     test_nn_act_pool act    activations, forward and backward:
        - inputs: special values (NaN payloads, +-inf, +-0, subnormals,
          +-FLT_MAX), each side of every threshold of the definitions, a
          uniform sample of all 2^32 bit patterns (step 65537), with random
          dy (every class);
        - sigmoid, silu, softplus, gelu, gelu_tanh (correctly rounded),
          relu and every backward but gelu's: bit equality with
          act_pool_ref.c (MPFR for the correctly rounded ones);
        - gelu's g = gelu'(x): bit equality with the
          MPFR value wherever that lies more than 2^-40 (relative) from a
          binary32 rounding boundary (repdl's error is < 2^-44), within one
          ulp elsewhere (counted);
        - array forms equal the scalar calls, in place too; n = 0 with NULL;
          batch invariance (the array cut in arbitrary pieces).
     test_nn_act_pool pool   max/avg pool2d forward and backward on random
        shapes (windows partly or wholly in padding, stride > kernel, 1x1,
        overlapping windows; rows of 16 to 105 outputs for the host's
        vector blocks), data with NaNs (dense and sparse), +-0, ties,
        infinities: bit equality with act_pool_ref.c (argmax included);
        backward with argmax entries of other windows and out of range;
        n = 0 / c = 0 with NULL; batch invariance (each image alone == the
        batch). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/activation.h>
#include <repdl/pool.h>

#include "../common/check.h"
#include "../common/splitmix64.h"
#include "act_pool_ref.h"

static splitmix64 rng = {0x243f6a8885a308d3ull};
static uint64_t rnd(void) { return splitmix64_next(&rng); }
/* a random float of a random class */
static float rnd_float(void)
{
    uint64_t r = rnd();
    uint32_t sign = (uint32_t)(r >> 63) << 31;
    switch ((r >> 56) & 7) {
    case 0: return asfloat(sign | (uint32_t)(r & 0x7fffffu));                 /* subnormal/0 */
    case 1: return asfloat(sign | 0x7f800000u | (uint32_t)((r >> 8) & 1));     /* inf or NaN */
    case 2: return asfloat(sign | (uint32_t)((r >> 8) % 0x7f800000u));         /* any finite */
    default: return asfloat(sign | (uint32_t)(120 + (r >> 8) % 12) << 23 | (uint32_t)(r & 0x7fffffu));
    }
}

/* The report line of a failed check (check_failed decides whether to print). */
static void report(const char *what, float x, float dy, uint32_t got, uint32_t want)
{
    printf("FAIL %s x=%a (0x%08x) dy=%a: got 0x%08x (%a) want 0x%08x (%a)\n", what, (double)x,
           (unsigned)asuint(x), (double)dy, (unsigned)got, (double)asfloat(got), (unsigned)want,
           (double)asfloat(want));
}

static void eq(const char *what, float x, float dy, float got, float want)
{
    if (check_failed(asuint(got) == asuint(want))) report(what, x, dy, asuint(got), asuint(want));
}

/* bit equality away from rounding boundaries, one ulp near them */
static long long near_boundary;
static void eq_far(const char *what, float x, float got, float want, double dist)
{
    int ok = asuint(got) == asuint(want);
    if (!ok && !(dist > 0x1p-40 || want != want || got != got)) {
        near_boundary++;
        ok = nextafterf(want, INFINITY) == got || nextafterf(want, -INFINITY) == got;
    }
    if (check_failed(ok)) report(what, x, 1.0f, asuint(got), asuint(want));
}

static void check_input(float x)
{
    float dy = rnd_float();
    double d;
    float want;
    eq("relu", x, 0, repdl_relu_f32(x), ref_relu(x));
    eq("relu_backward", x, dy, repdl_relu_backward_f32(x, dy), ref_relu_bwd(x, dy));
    eq("sigmoid", x, 0, repdl_sigmoid_f32(x), ref_sigmoid(x));
    eq("sigmoid_backward", x, dy, repdl_sigmoid_backward_f32(x, dy), ref_sigmoid_bwd(x, dy));
    eq("silu", x, 0, repdl_silu_f32(x), ref_silu(x));
    eq("silu_backward", x, dy, repdl_silu_backward_f32(x, dy), ref_silu_bwd(x, dy));
    eq("gelu_tanh", x, 0, repdl_gelu_tanh_f32(x), ref_gelu_tanh(x));
    eq("gelu_tanh_backward", x, dy, repdl_gelu_tanh_backward_f32(x, dy), ref_gelu_tanh_bwd(x, dy));
    eq("softplus_backward", x, dy, repdl_softplus_backward_f32(x, dy), ref_softplus_bwd(x, dy));
    want = ref_gelu(x, &d);
    eq_far("gelu", x, repdl_gelu_f32(x), want, d);
    want = ref_softplus(x, &d);
    eq_far("softplus", x, repdl_softplus_f32(x), want, d);
    want = ref_gelu_grad(x, &d);
    eq_far("gelu_backward(dy=1)", x, repdl_gelu_backward_f32(x, 1.0f), want, d);
    /* dx = dy * g, g = the dy = 1 value (the documented last step) */
    {
        float g = repdl_gelu_backward_f32(x, 1.0f), p = dy * g;
        eq("gelu_backward", x, dy, repdl_gelu_backward_f32(x, dy), p != p ? asfloat(0x7fc00000u) : p);
    }
}

static float specials[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f, -3.0f, 20.0f, -20.0f,
    17.5f, -17.5f, 14.5f, -14.5f, 104.0f, -104.0f, 87.0f, -87.0f, 88.0f, -88.0f,
    0x1p-12f, -0x1p-12f, 0x1p-27f, -0x1p-27f, 0x1p-24f, -0x1p-24f, 0x1p-23f, -0x1p-23f,
    0x1p32f, -0x1p32f, 0x1p-126f, -0x1p-126f, 0x1p-149f, -0x1p-149f, 0x1.fffffcp-127f,
    1e30f, -1e30f, 0x1.fffffep127f, -0x1.fffffep127f, 4.0f, -4.0f, 1e-3f, -1e-3f,
};

static void act_tests(void)
{
    size_t i;
    uint64_t b;
    static const uint32_t bits[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u,
                                    0xffbfffffu, 0x7fa5a5a5u,
                                    /* thresholds of sigmoid.h/activation.h, both sides */
                                    0x418c0000u, 0x418bffffu, 0xc2cff1b4u, 0xc2cff1b5u, 0xc2cff1b3u,
                                    0x41680000u, 0x4167ffffu, 0xc1680000u, 0xc167ffffu,
                                    0x39800000u, 0x397fffffu, 0xb9800000u, 0xb97fffffu,
                                    0x41a00000u, 0x41a00001u, 0x4f800000u, 0x4f7fffffu, 0xcf800000u,
                                    0xcf7fffffu, 0xc2ae0000u, 0xc2ae0001u,
                                    /* the correctly rounded silu, softplus, gelu, gelu_tanh
                                       (activation.h, reference/gen/act_cr.py) */
                                    0xc2d95214u, 0xc2d95213u, 0x21800000u, 0x217fffffu,
                                    0xa1800000u, 0xa17fffffu, 0x41800000u, 0x417fffffu,
                                    0x40ad7081u, 0x40ad7080u, 0xc165b275u, 0xc165b274u,
                                    0x40a1f6d4u, 0x40a1f6d3u, 0xc12c557au, 0xc12c5579u,
                                    0xc1500000u, 0xc1500001u, 0xc1200000u, 0xc1200001u,
                                    0x00000001u, 0x80000001u, 0x00800001u, 0x80800001u,
                                    /* the hard cases of sigmoidf (detail/sigmoidf_hard.inc) */
                                    0x3a689801u, 0x3ab89c02u, 0x3b128604u, 0x3b8c250eu, 0x3bfa8d50u,
                                    0x3d0cab6au, 0x3d21bc81u, 0x3e8dffafu, 0x3eb2c9b8u, 0x3fd8ed9eu,
                                    0x407360f3u, 0xba928601u, 0xbbae719bu, 0xbd567bbbu, 0xbd655024u,
                                    0xbda363f4u, 0xbe104170u, 0xbf1964d0u, 0xc164ddcbu};
    for (i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        check_input(specials[i]);
        check_input(nextafterf(specials[i], INFINITY));
        check_input(nextafterf(specials[i], -INFINITY));
    }
    for (i = 0; i < sizeof bits / sizeof bits[0]; i++) check_input(asfloat(bits[i]));
    /* odd multiples of 2^-23 / 2^-24 near 0: sigmoid's tie region */
    for (i = 1; i < 4096; i += 2) {
        check_input((float)i * 0x1p-23f);
        check_input(-(float)i * 0x1p-24f);
    }
    for (b = 0; b < (1ull << 32); b += 131071) check_input(asfloat((uint32_t)b));
    for (i = 0; i < 8000; i++) check_input(asfloat((uint32_t)(0xc0000000u + rnd() % 0x03000000u))); /* -2..-16 */
    printf("act: %ld scalar checks, %lld within 2^-40 of a boundary (one ulp allowed)\n", check_count,
           near_boundary);

    /* array forms: scalar == array, in place, pieces, n = 0 */
    {
        enum { N = 5000 };
        float *x = (float *)malloc(N * sizeof(float)), *dy = (float *)malloc(N * sizeof(float));
        float *y = (float *)malloc(N * sizeof(float)), *z = (float *)malloc(N * sizeof(float));
        size_t j;
        for (j = 0; j < N; j++) { x[j] = rnd_float(); dy[j] = rnd_float(); }
#define ARR(F)                                                                             \
    do {                                                                                   \
        size_t a0, len;                                                                    \
        repdl_##F##_array_f32(N, x, y);                                                          \
        for (j = 0; j < N; j++) eq(#F "_f32", x[j], 0, y[j], repdl_##F##_f32(x[j]));          \
        for (a0 = 0; a0 < N; a0 += len) {                                                  \
            len = 1 + rnd() % 700;                                                         \
            if (len > N - a0) len = N - a0;                                                \
            repdl_##F##_array_f32(len, x + a0, z + a0);                                          \
        }                                                                                  \
        if (check_failed(!memcmp(y, z, N * sizeof(float)))) report(#F "_f32 pieces", 0, 0, 0, 0); \
        memcpy(z, x, N * sizeof(float));                                                   \
        repdl_##F##_array_f32(N, z, z);                                                          \
        if (check_failed(!memcmp(y, z, N * sizeof(float)))) report(#F "_f32 in place", 0, 0, 0, 0); \
        repdl_##F##_backward_array_f32(N, x, dy, y);                                             \
        for (j = 0; j < N; j++)                                                            \
            eq(#F "_backward_f32", x[j], dy[j], y[j], repdl_##F##_backward_f32(x[j], dy[j])); \
        memcpy(z, dy, N * sizeof(float));                                                  \
        repdl_##F##_backward_array_f32(N, x, z, z);                                              \
        if (check_failed(!memcmp(y, z, N * sizeof(float)))) report(#F "_backward_f32 in place", 0, 0, 0, 0); \
        repdl_##F##_array_f32(0, NULL, NULL);                                                    \
        repdl_##F##_backward_array_f32(0, NULL, NULL, NULL);                                     \
    } while (0)
        ARR(relu);
        ARR(sigmoid);
        ARR(silu);
        ARR(gelu);
        ARR(gelu_tanh);
        ARR(softplus);
#undef ARR
        free(x); free(dy); free(y); free(z);
    }
}

/* ---- pooling ---- */
static float pool_value(int kind)
{
    uint64_t r = rnd();
    switch (kind) {
    case 0: return (float)((int)(r % 7) - 3);                         /* ties galore, +-0 */
    case 1: return r % 50 == 0 ? asfloat(0x7fc00000u | (uint32_t)(r >> 40) % 0x3fffff) : rnd_float();
    case 2: return (r % 2 ? -0.0f : 0.0f);
    case 4: return r % 1000 == 0 ? asfloat(0xffc00000u | (uint32_t)(r >> 40) % 0x3fffff) : rnd_float();
    default: return asfloat((uint32_t)(r >> 63) << 31 | (uint32_t)(120 + (r >> 8) % 12) << 23 |
                       (uint32_t)(r & 0x7fffffu));
    }
}

static void pool_case(const ref_pool_shape *rsh, int kind, int corrupt)
{
    repdl_pool2d_shape s;
    size_t oh, ow, nx, ny, i, roh, row;
    long d;     /* first differing element, or -1 */
    float *x, *y, *yr, *dy, *dx, *dxr;
    size_t *a, *as;  /* repdl's argmax; the reference's, as repdl's type */
    int64_t *ar;     /* the reference's argmax (-1: none) */
    int incl;
    s.n = rsh->n; s.c = rsh->c; s.h = rsh->h; s.w = rsh->w; s.kh = rsh->kh; s.kw = rsh->kw;
    s.stride_h = rsh->sh; s.stride_w = rsh->sw; s.pad_h = rsh->ph; s.pad_w = rsh->pw;
    oh = repdl_pool2d_out_h(&s);
    ow = repdl_pool2d_out_w(&s);
    ref_pool_out(rsh, &roh, &row);
    if (check_failed(oh == roh && ow == row)) report("pool out size", 0, 0, (uint32_t)oh, (uint32_t)roh);
    if (oh != roh || ow != row) return;
    nx = s.n * s.c * s.h * s.w;
    ny = s.n * s.c * oh * ow;
    x = (float *)malloc((nx + 1) * sizeof(float)); dx = (float *)malloc((nx + 1) * sizeof(float));
    dxr = (float *)malloc((nx + 1) * sizeof(float));
    y = (float *)malloc((ny + 1) * sizeof(float)); yr = (float *)malloc((ny + 1) * sizeof(float));
    dy = (float *)malloc((ny + 1) * sizeof(float));
    a = (size_t *)malloc((ny + 1) * sizeof(size_t)); ar = (int64_t *)malloc((ny + 1) * sizeof(int64_t));
    as = (size_t *)malloc((ny + 1) * sizeof(size_t));
    for (i = 0; i < nx; i++) x[i] = pool_value(kind);
    for (i = 0; i < ny; i++) dy[i] = pool_value(kind == 1 ? 3 : kind);

    if (s.kh == 0 || s.kw == 0 || s.stride_h == 0 || s.stride_w == 0) {
        /* no pooling has this shape: REPDL_ERR_INVALID, nothing written
           (docs/api.md); the output buffers keep their canary */
        float canary = asfloat(0x7fa5a5a5u);
        for (i = 0; i <= nx; i++) dx[i] = canary;
        for (i = 0; i <= ny; i++) y[i] = canary;
        if (check_failed(repdl_max_pool2d_forward_f32(&s, x, y, a) == REPDL_ERR_INVALID &&
                         repdl_max_pool2d_backward_f32(&s, a, dy, dx) == REPDL_ERR_INVALID &&
                         repdl_avg_pool2d_forward_f32(&s, 1, x, y) == REPDL_ERR_INVALID &&
                         repdl_avg_pool2d_backward_f32(&s, 0, dy, dx) == REPDL_ERR_INVALID))
            report("pool2d invalid shape: status", 0, 0, 0, 0);
        for (i = 0; i <= nx; i++)
            if (asuint(dx[i]) != 0x7fa5a5a5u) break;
        if (check_failed(i > nx)) report("pool2d invalid shape wrote dx", 0, 0, asuint(dx[i]), 0);
        for (i = 0; i <= ny; i++)
            if (asuint(y[i]) != 0x7fa5a5a5u) break;
        if (check_failed(i > ny)) report("pool2d invalid shape wrote y", 0, 0, asuint(y[i]), 0);
        free(x); free(dx); free(dxr); free(y); free(yr); free(dy); free(a); free(ar); free(as);
        return;
    }

    repdl_max_pool2d_forward_f32(&s, x, y, a);
    ref_maxpool_fwd(rsh, x, yr, ar);
    for (i = 0; i < ny; i++)
        if (asuint(y[i]) != asuint(yr[i]) || a[i] != (ar[i] < 0 ? REPDL_NO_INDEX : (size_t)ar[i])) break;
    if (check_failed(i == ny)) report("max_pool2d_forward", (float)i, 0, asuint(y[i]), asuint(yr[i]));
    repdl_max_pool2d_forward_f32(&s, x, yr, NULL);          /* argmax NULL: same y */
    if (check_failed(!(ny && memcmp(y, yr, ny * sizeof(float))))) report("max_pool2d_forward argmax=NULL", 0, 0, 0, 0);
    /* a few argmax entries pointing outside their window select nothing */
    if (ny > 3) { ar[0] = -1; ar[1] = (int64_t)(s.h * s.w) + 5; ar[2] = ar[3]; }
    if (corrupt)  /* more: a neighbour's winner, any index of the plane or past it, 2^32 + a winner */
        for (i = 4; i + 1 < ny; i++) {
            uint64_t r = rnd();
            if (r % 13 == 0) ar[i] = ar[i + 1];
            else if (r % 13 == 1) ar[i] = (int64_t)((r >> 8) % (s.h * s.w + 2));
            else if (r % 13 == 2) ar[i] += (int64_t)1 << 32;   /* a winner's low 32 bits */
        }
    for (i = 0; i < ny; i++) as[i] = ar[i] < 0 ? REPDL_NO_INDEX : (size_t)ar[i];
    repdl_max_pool2d_backward_f32(&s, as, dy, dx);
    ref_maxpool_bwd(rsh, ar, dy, dxr);
    d = check_first_diff(dx, dxr, nx);
    if (check_failed(d < 0)) report("max_pool2d_backward", (float)d, 0, asuint(dx[d]), asuint(dxr[d]));
    for (incl = 0; incl < 2; incl++) {
        repdl_avg_pool2d_forward_f32(&s, incl, x, y);
        ref_avgpool_fwd(rsh, incl, x, yr);
        d = check_first_diff(y, yr, ny);
        if (check_failed(d < 0))
            report(incl ? "avg_pool2d_forward incl" : "avg_pool2d_forward", (float)d, 0, asuint(y[d]), asuint(yr[d]));
        repdl_avg_pool2d_backward_f32(&s, incl, dy, dx);
        ref_avgpool_bwd(rsh, incl, dy, dxr);
        d = check_first_diff(dx, dxr, nx);
        if (check_failed(d < 0))
            report(incl ? "avg_pool2d_backward incl" : "avg_pool2d_backward", (float)d, 0, asuint(dx[d]), asuint(dxr[d]));
    }
    /* batch invariance: image 1 alone == its slice of the batch */
    if (s.n > 1 && ny) {
        repdl_pool2d_shape one = s;
        size_t px = s.c * s.h * s.w, py = s.c * oh * ow;
        one.n = 1;
        repdl_max_pool2d_forward_f32(&s, x, y, a);
        repdl_max_pool2d_forward_f32(&one, x + px, yr, as);
        if (check_failed(!memcmp(y + py, yr, py * sizeof(float)) && !memcmp(a + py, as, py * sizeof(size_t))))
            report("max_pool2d batch invariance", 0, 0, 0, 0);
        repdl_avg_pool2d_backward_f32(&s, 0, dy, dx);
        repdl_avg_pool2d_backward_f32(&one, 0, dy + py, dxr);
        if (check_failed(!memcmp(dx + px, dxr, px * sizeof(float))))
            report("avg_pool2d_backward batch invariance", 0, 0, 0, 0);
    }
    free(x); free(y); free(yr); free(dy); free(dx); free(dxr); free(a); free(ar); free(as);
}

/* ---- Guarded calls: every buffer sits between guard cells ----
   Inputs are flanked by POOL_GUARD cells of 1e30 (a read of one changes
   a max or a sum), outputs by the canary 0x7fa5a5a5 (a write is seen),
   so a read or write outside the declared extents fails the bit
   comparison with the reference even without AddressSanitizer. */
#define POOL_GUARD 8
#define POOL_CANARY 0x7fa5a5a5u
static float *guarded(size_t n, int output)
{
    float *b = (float *)malloc((n + 2 * POOL_GUARD) * sizeof(float));
    size_t i;
    for (i = 0; i < n + 2 * POOL_GUARD; i++) b[i] = output ? asfloat(POOL_CANARY) : 1e30f;
    return b + POOL_GUARD;
}
/* 1 when the guard cells of an output of n elements are intact. */
static int guards_ok(const float *b, size_t n)
{
    size_t i;
    for (i = 0; i < POOL_GUARD; i++)
        if (asuint(b[-1 - (long)i]) != POOL_CANARY || asuint(b[n + i]) != POOL_CANARY) return 0;
    return 1;
}
static void unguard(float *b) { free(b - POOL_GUARD); }

/* The four pooling functions on a shape whose sizes fit in a few
   elements but whose strides and paddings may be near SIZE_MAX, against
   the reference, bit for bit, with guarded buffers. */
static void pool_guarded_case(const ref_pool_shape *rsh)
{
    repdl_pool2d_shape s;
    size_t oh, ow, nx, ny, i, *a;
    float *x, *y, *yr, *dy, *dx, *dxr;
    int64_t *ar;
    int incl;
    char what[160];
    s.n = rsh->n; s.c = rsh->c; s.h = rsh->h; s.w = rsh->w; s.kh = rsh->kh; s.kw = rsh->kw;
    s.stride_h = rsh->sh; s.stride_w = rsh->sw; s.pad_h = rsh->ph; s.pad_w = rsh->pw;
    ref_pool_out(rsh, &oh, &ow);
    if (check_failed(repdl_pool2d_out_h(&s) == oh && repdl_pool2d_out_w(&s) == ow))
        report("guarded pool out size", 0, 0, (uint32_t)repdl_pool2d_out_h(&s), (uint32_t)oh);
    nx = s.n * s.c * s.h * s.w;
    ny = s.n * s.c * oh * ow;
    snprintf(what, sizeof what, "h=%zu w=%zu k=%zux%zu stride=%#zx,%#zx pad=%#zx,%#zx", s.h, s.w,
             s.kh, s.kw, s.stride_h, s.stride_w, s.pad_h, s.pad_w);
    x = guarded(nx, 0); dy = guarded(ny, 0);
    y = guarded(ny, 1); yr = guarded(ny, 1); dx = guarded(nx, 1); dxr = guarded(nx, 1);
    a = (size_t *)malloc((ny + 1) * sizeof(size_t));
    ar = (int64_t *)malloc((ny + 1) * sizeof(int64_t));
    for (i = 0; i < nx; i++) x[i] = pool_value(3);
    for (i = 0; i < ny; i++) dy[i] = pool_value(3);
    if (check_failed(repdl_max_pool2d_forward_f32(&s, x, y, a) == REPDL_OK)) printf("FAIL %s: max fwd status\n", what);
    ref_maxpool_fwd(rsh, x, yr, ar);
    for (i = 0; i < ny; i++)
        if (asuint(y[i]) != asuint(yr[i]) || a[i] != (ar[i] < 0 ? REPDL_NO_INDEX : (size_t)ar[i])) break;
    if (check_failed(i == ny && guards_ok(y, ny)))
        printf("FAIL guarded max_pool2d_forward %s\n", what);
    for (i = 0; i < ny; i++) a[i] = ar[i] < 0 ? REPDL_NO_INDEX : (size_t)ar[i];
    if (check_failed(repdl_max_pool2d_backward_f32(&s, a, dy, dx) == REPDL_OK)) printf("FAIL %s: max bwd status\n", what);
    ref_maxpool_bwd(rsh, ar, dy, dxr);
    if (check_failed(check_first_diff(dx, dxr, nx) < 0 && guards_ok(dx, nx)))
        printf("FAIL guarded max_pool2d_backward %s\n", what);
    for (incl = 0; incl < 2; incl++) {
        if (check_failed(repdl_avg_pool2d_forward_f32(&s, incl, x, y) == REPDL_OK)) printf("FAIL %s: avg fwd status\n", what);
        ref_avgpool_fwd(rsh, incl, x, yr);
        if (check_failed(check_first_diff(y, yr, ny) < 0 && guards_ok(y, ny)))
            printf("FAIL guarded avg_pool2d_forward incl=%d %s\n", incl, what);
        if (check_failed(repdl_avg_pool2d_backward_f32(&s, incl, dy, dx) == REPDL_OK)) printf("FAIL %s: avg bwd status\n", what);
        ref_avgpool_bwd(rsh, incl, dy, dxr);
        if (check_failed(check_first_diff(dx, dxr, nx) < 0 && guards_ok(dx, nx)))
            printf("FAIL guarded avg_pool2d_backward incl=%d %s\n", incl, what);
    }
    unguard(x); unguard(dy); unguard(y); unguard(yr); unguard(dx); unguard(dxr);
    free(a); free(ar);
}

/* Strides near SIZE_MAX (where pad + stride - 1 wraps: the first interior
   output is ceil(pad / stride), a window read wholly from the padding
   would be read before x), on each axis,
   with paddings 0 to 3 and kernels 1 to 4 over 1 to 5 input cells; also
   h = 0 and w = 0 with padding (every window empty). */
static void pool_huge_stride_tests(void)
{
    static const size_t strides[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX / 2, (size_t)1 << 40, 7};
    size_t si, pad, k, len, axis;
    for (axis = 0; axis < 2; axis++)
        for (si = 0; si < sizeof strides / sizeof strides[0]; si++)
            for (pad = 0; pad < 4; pad++)
                for (k = 1; k <= 4; k++)
                    for (len = 0; len <= 5; len++) {
                        ref_pool_shape s = {1, 2, 3, 3, 2, 2, 1, 1, 1, 0};
                        if (axis == 0) { s.h = len; s.kh = k; s.sh = strides[si]; s.ph = pad; }
                        else { s.w = len; s.kw = k; s.sw = strides[si]; s.pw = pad; }
                        pool_guarded_case(&s);
                    }
}

/* NULL arrays (docs/api.md: REPDL_ERR_INVALID for a NULL where data is
   required, nothing written; fine with an empty extent): each pointer of
   each function, NULL with a nonzero extent and with an empty one. */
static void pool_null_tests(void)
{
    float x[64], y[64], dy[64], dx[64];
    size_t am[64], i;
    int ok;
    const repdl_pool2d_shape s = {1, 2, 4, 4, 2, 2, 2, 2, 0, 0};    /* 2 x 16 in, 2 x 4 out */
    const repdl_pool2d_shape h0 = {1, 2, 0, 4, 2, 2, 2, 2, 1, 0};   /* no input, 2 x 1 x 2 out */
    const repdl_pool2d_shape o0 = {1, 2, 4, 4, 9, 2, 2, 2, 0, 0};   /* 2 x 16 in, no output */
#define POOL_FILL()                                                                    \
    do {                                                                               \
        for (i = 0; i < 64; i++) {                                                     \
            x[i] = dy[i] = (float)i; y[i] = dx[i] = asfloat(POOL_CANARY); am[i] = 77;  \
        }                                                                              \
    } while (0)
#define POOL_UNTOUCHED(arr) (asuint(arr[0]) == POOL_CANARY && asuint(arr[63]) == POOL_CANARY && \
                             memcmp(arr, arr + 1, 63 * sizeof(float)) == 0)
#define POOL_EXPECT(call, status, cond, what)                                          \
    do {                                                                               \
        POOL_FILL();                                                                   \
        ok = (call) == (status);                                                       \
        if (check_failed(ok && (cond))) printf("FAIL pool NULL: %s\n", what);          \
    } while (0)
    /* NULL with a nonzero extent: REPDL_ERR_INVALID, nothing written */
    POOL_EXPECT(repdl_max_pool2d_forward_f32(&s, NULL, y, am), REPDL_ERR_INVALID,
                POOL_UNTOUCHED(y) && am[0] == 77, "max fwd x");
    POOL_EXPECT(repdl_max_pool2d_forward_f32(&s, x, NULL, am), REPDL_ERR_INVALID, am[0] == 77, "max fwd y");
    POOL_EXPECT(repdl_max_pool2d_backward_f32(&s, NULL, dy, dx), REPDL_ERR_INVALID, POOL_UNTOUCHED(dx), "max bwd argmax");
    POOL_EXPECT(repdl_max_pool2d_backward_f32(&s, am, NULL, dx), REPDL_ERR_INVALID, POOL_UNTOUCHED(dx), "max bwd dy");
    POOL_EXPECT(repdl_max_pool2d_backward_f32(&s, am, dy, NULL), REPDL_ERR_INVALID, 1, "max bwd dx");
    POOL_EXPECT(repdl_avg_pool2d_forward_f32(&s, 0, NULL, y), REPDL_ERR_INVALID, POOL_UNTOUCHED(y), "avg fwd x");
    POOL_EXPECT(repdl_avg_pool2d_forward_f32(&s, 1, x, NULL), REPDL_ERR_INVALID, 1, "avg fwd y");
    POOL_EXPECT(repdl_avg_pool2d_backward_f32(&s, 0, NULL, dx), REPDL_ERR_INVALID, POOL_UNTOUCHED(dx), "avg bwd dy");
    POOL_EXPECT(repdl_avg_pool2d_backward_f32(&s, 1, dy, NULL), REPDL_ERR_INVALID, 1, "avg bwd dx");
    /* argmax is optional in the forward pass */
    POOL_EXPECT(repdl_max_pool2d_forward_f32(&s, x, y, NULL), REPDL_OK, asuint(y[0]) == asuint(5.0f) &&
                asuint(y[7]) == asuint(31.0f) && asuint(y[8]) == POOL_CANARY, "max fwd argmax NULL");
    /* NULL with an empty extent: the defined answer.  h = 0 with padding:
       every window empty (max -inf / REPDL_NO_INDEX, avg -0); dx NULL has
       nothing to receive */
    POOL_EXPECT(repdl_max_pool2d_forward_f32(&h0, NULL, y, am), REPDL_OK,
                asuint(y[0]) == 0xff800000u && asuint(y[3]) == 0xff800000u && asuint(y[4]) == POOL_CANARY &&
                am[0] == REPDL_NO_INDEX && am[3] == REPDL_NO_INDEX && am[4] == 77, "max fwd x NULL, h = 0");
    POOL_EXPECT(repdl_avg_pool2d_forward_f32(&h0, 1, NULL, y), REPDL_OK,
                asuint(y[0]) == 0x80000000u && asuint(y[3]) == 0x80000000u && asuint(y[4]) == POOL_CANARY,
                "avg fwd x NULL, h = 0");
    POOL_EXPECT(repdl_max_pool2d_backward_f32(&h0, am, dy, NULL), REPDL_OK, 1, "max bwd dx NULL, h = 0");
    POOL_EXPECT(repdl_avg_pool2d_backward_f32(&h0, 0, dy, NULL), REPDL_OK, 1, "avg bwd dx NULL, h = 0");
    /* no output: y may be NULL; the backward passes read no argmax or dy
       and write dx = -0 */
    POOL_EXPECT(repdl_max_pool2d_forward_f32(&o0, x, NULL, NULL), REPDL_OK, 1, "max fwd y NULL, no output");
    POOL_EXPECT(repdl_avg_pool2d_forward_f32(&o0, 0, x, NULL), REPDL_OK, 1, "avg fwd y NULL, no output");
    POOL_EXPECT(repdl_max_pool2d_backward_f32(&o0, NULL, NULL, dx), REPDL_OK,
                asuint(dx[0]) == 0x80000000u && asuint(dx[31]) == 0x80000000u && asuint(dx[32]) == POOL_CANARY,
                "max bwd argmax, dy NULL, no output");
    POOL_EXPECT(repdl_avg_pool2d_backward_f32(&o0, 1, NULL, dx), REPDL_OK,
                asuint(dx[0]) == 0x80000000u && asuint(dx[31]) == 0x80000000u && asuint(dx[32]) == POOL_CANARY,
                "avg bwd dy NULL, no output");
    /* a NULL shape */
    if (check_failed(repdl_pool2d_out_h(NULL) == 0 && repdl_pool2d_out_w(NULL) == 0))
        printf("FAIL pool NULL: repdl_pool2d_out_h/w(NULL)\n");
    /* huge sizes whose products are 0 (tests/fuzz found each): a zero
       factor makes n c h w 0 even when n c h does not fit; no output
       (ow = 0) with oh = 2^40 rows, and n c wrapping modulo 2^64 with
       w = 0, are done at once (no walk over the rows or planes) */
    {
        const size_t big = ((size_t)1 << 61) + 1, t32 = ((size_t)1 << 32) + 1, t40 = (size_t)1 << 40;
        const repdl_pool2d_shape pz = {2, 2, big, 0, 4, 1, (size_t)1 << 62, SIZE_MAX - 2, 3, 3};
        const repdl_pool2d_shape rows0 = {1, 1, t40, 0, 1, 3, 1, 1, 0, 0};
        const repdl_pool2d_shape wrap = {t32, t32, t40, 0, 1, 5, 1, 1, 0, 1};
        POOL_EXPECT(repdl_max_pool2d_forward_f32(&pz, NULL, y, am), REPDL_OK,
                    asuint(y[0]) == 0xff800000u && asuint(y[3]) == 0xff800000u && asuint(y[4]) == POOL_CANARY &&
                    am[3] == REPDL_NO_INDEX, "n c h w = 0 with n c h past SIZE_MAX: 4 empty windows");
        POOL_EXPECT(repdl_avg_pool2d_forward_f32(&pz, 0, NULL, y), REPDL_OK,
                    asuint(y[3]) == 0x80000000u && asuint(y[4]) == POOL_CANARY, "avg: 4 empty windows");
        POOL_EXPECT(repdl_max_pool2d_forward_f32(&rows0, NULL, NULL, NULL) == REPDL_OK &&
                    repdl_avg_pool2d_forward_f32(&rows0, 1, NULL, NULL) == REPDL_OK &&
                    repdl_max_pool2d_backward_f32(&rows0, NULL, NULL, NULL) == REPDL_OK &&
                    repdl_avg_pool2d_backward_f32(&rows0, 1, NULL, NULL), REPDL_OK, 1,
                    "ow = 0 with oh = 2^40: nothing to do");
        POOL_EXPECT(repdl_max_pool2d_backward_f32(&wrap, NULL, NULL, NULL) == REPDL_OK &&
                    repdl_avg_pool2d_backward_f32(&wrap, 0, NULL, NULL), REPDL_OK, 1,
                    "n c = 2^64 + 2^33 + 1 with w = 0: nothing to do");
    }
#undef POOL_FILL
#undef POOL_UNTOUCHED
#undef POOL_EXPECT
}

static void pool_tests(void)
{
    int t;
    /* fixed edge shapes: 1x1, stride > kernel, pad >= kernel (windows in
       padding only), kernel == input, kernel > input without padding */
    static const ref_pool_shape fixed[] = {
        {1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, {2, 3, 5, 7, 1, 1, 1, 1, 0, 0}, {1, 2, 9, 9, 2, 2, 3, 3, 0, 0},
        {1, 1, 4, 4, 2, 2, 1, 1, 1, 1}, {1, 1, 4, 5, 3, 2, 2, 1, 1, 1}, {2, 2, 3, 3, 2, 2, 1, 1, 3, 3},
        {1, 1, 5, 5, 5, 5, 1, 1, 0, 0}, {1, 1, 3, 3, 5, 5, 1, 1, 0, 0}, {1, 1, 6, 6, 3, 3, 2, 2, 1, 1},
        {0, 3, 5, 5, 2, 2, 2, 2, 0, 0}, {3, 0, 5, 5, 2, 2, 2, 2, 0, 0}, {1, 1, 0, 5, 1, 1, 1, 1, 0, 0},
        {1, 1, 5, 5, 0, 2, 1, 1, 0, 0}, {1, 1, 5, 5, 2, 2, 0, 1, 0, 0},
        {1, 1, 28, 28, 2, 2, 2, 2, 0, 0}, {2, 4, 14, 14, 3, 3, 1, 1, 1, 1},
    };
    for (t = 0; t < (int)(sizeof fixed / sizeof fixed[0]); t++) {
        int k;
        for (k = 0; k < 4; k++) pool_case(&fixed[t], k, 0);
    }
    for (t = 0; t < 600; t++) {
        ref_pool_shape s;
        s.n = 1 + rnd() % 3; s.c = 1 + rnd() % 3; s.h = 1 + rnd() % 12; s.w = 1 + rnd() % 12;
        s.kh = 1 + rnd() % 5; s.kw = 1 + rnd() % 5; s.sh = 1 + rnd() % 4; s.sw = 1 + rnd() % 4;
        s.ph = rnd() % 4; s.pw = rnd() % 4;
        pool_case(&s, (int)(rnd() % 4), 0);
    }
    /* rows of 16 and more outputs (the host's vector blocks of 16, the last
       one overlapping): strides 1 to 3, padding, sparse NaNs (kind 4: one
       input in 1000, so that blocks with and without a NaN share a row),
       argmax entries of other windows and out of range in the backward */
    {
        static const ref_pool_shape wide[] = {
            {2, 3, 56, 56, 2, 2, 2, 2, 0, 0}, {1, 4, 56, 56, 3, 3, 1, 1, 0, 0},
            {1, 2, 9, 100, 3, 3, 2, 2, 1, 1}, {1, 2, 5, 33, 1, 1, 1, 1, 0, 0},
            {1, 1, 4, 70, 2, 5, 1, 3, 0, 2}, {1, 2, 17, 17, 2, 2, 1, 1, 1, 1},
        };
        for (t = 0; t < (int)(sizeof wide / sizeof wide[0]); t++) {
            int k;
            for (k = 0; k < 5; k++) pool_case(&wide[t], k, 1);
        }
    }
    for (t = 0; t < 300; t++) {
        ref_pool_shape s;
        s.n = 1 + rnd() % 2; s.c = 1 + rnd() % 3; s.h = 1 + rnd() % 9; s.w = 16 + rnd() % 90;
        s.kh = 1 + rnd() % 5; s.kw = 1 + rnd() % 5; s.sh = 1 + rnd() % 3; s.sw = 1 + rnd() % 3;
        s.ph = rnd() % 3; s.pw = rnd() % 3;
        if (s.ph > s.kh / 2) s.ph = s.kh / 2;     /* PyTorch's limit: most windows are interior */
        if (s.pw > s.kw / 2) s.pw = s.kw / 2;
        pool_case(&s, (int)(rnd() % 5), (int)(rnd() % 2));
    }
    /* n = 0 with NULL pointers */
    {
        repdl_pool2d_shape z = {0, 3, 4, 4, 2, 2, 2, 2, 0, 0};
        repdl_max_pool2d_forward_f32(&z, NULL, NULL, NULL);
        repdl_max_pool2d_backward_f32(&z, NULL, NULL, NULL);
        repdl_avg_pool2d_forward_f32(&z, 1, NULL, NULL);
        repdl_avg_pool2d_backward_f32(&z, 0, NULL, NULL);
    }
    pool_huge_stride_tests();
    pool_null_tests();
    printf("pool: %ld checks\n", check_count);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    if (strcmp(what, "act") == 0 || strcmp(what, "all") == 0) act_tests();
    if (strcmp(what, "pool") == 0 || strcmp(what, "all") == 0) pool_tests();
    return check_summary(what);
}
