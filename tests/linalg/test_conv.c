/* SPDX-License-Identifier: MIT */
/* tests/linalg/test_conv.c: conv2d.h's direct forward and conv2d_threads.h,
   bit for bit.
     test_conv [--small]
   - forward (direct where conv2d.h takes it: stride 1, not too wide a
     padding; im2col + gemm elsewhere) == the plain loops of
     reference/gemm_ref.h (ref_conv2d_forward_f32) on many shapes: stride,
     padding, dilation, 1x1, odd sizes, kernels larger than the input,
     channel counts across K panels (c kh kw > REPDL_GEMM_KC), output
     channels across micro-panels; values with NaN, inf, subnormals and
     signed zeros; NULL bias;
   - the same == repdl__conv2d_forward_im2col_f32 (the im2col path);
   - repdl_conv2d_forward_threads_f32 and repdl_conv2d_backward_threads_f32
     with 1, 2, 3, 4 threads == the serial forms, bit for bit, with n
     across the micro-batch boundaries (1, 15, 16, 17, 33) and == the
     reference's dx, dw, db. */
#define REPDL_CONV_THREADS_MIN 0.0 /* threads even for small problems */
#include <repdl/conv2d.h>
#include <repdl/conv2d_threads.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "../common/splitmix64.h"
#include "gemm_ref.h"

static int small_mode;
static splitmix64 rng = {0x9e3779b97f4a7c15ull};
static uint64_t rnd(void) { return splitmix64_next(&rng); }

/* kind 0: values in (-2, 2) with random low bits; kind 1: plus +-0,
   subnormals, huge values, +-inf, NaNs with random payloads. */
static float gen_val(int kind)
{
    float v = asfloat((uint32_t)(rnd() & 0x807fffffu) | ((uint32_t)(120 + rnd() % 8) << 23));
    if (kind == 1) {
        switch (rnd() % 96) {
        case 0: return 0.0f;
        case 1: return -0.0f;
        case 2: return asfloat((uint32_t)(rnd() & 0x807fffffu));
        case 3: return asfloat(0x7f800000u | (uint32_t)(rnd() & 0x80000000u));
        case 4: return asfloat(0x7f800001u | (uint32_t)(rnd() & 0x803fffffu));
        case 5: return asfloat((uint32_t)(rnd() & 0x807fffffu) | (250u << 23));
        default: break;
        }
    }
    return v;
}
static float *gen_arr(size_t n, int kind)
{
    float *a = (float *)malloc((n ? n : 1) * sizeof(float));
    size_t i;
    for (i = 0; i < n; i++) a[i] = gen_val(kind);
    return a;
}

static repdl_conv2d_shape cs(size_t n, size_t c, size_t h, size_t w, size_t oc, size_t kh,
                             size_t kw, size_t sh, size_t sw, size_t ph, size_t pw, size_t dh,
                             size_t dw)
{
    repdl_conv2d_shape s;
    s.n = n; s.c = c; s.h = h; s.w = w; s.oc = oc; s.kh = kh; s.kw = kw;
    s.stride_h = sh; s.stride_w = sw; s.pad_h = ph; s.pad_w = pw; s.dil_h = dh; s.dil_w = dw;
    return s;
}
static ref_conv_shape to_ref(const repdl_conv2d_shape *s)
{
    ref_conv_shape r;
    r.n = s->n; r.c = s->c; r.h = s->h; r.w = s->w; r.oc = s->oc; r.kh = s->kh; r.kw = s->kw;
    r.sh = s->stride_h; r.sw = s->stride_w; r.ph = s->pad_h; r.pw = s->pad_w;
    r.dh = s->dil_h; r.dw = s->dil_w;
    return r;
}

#define SHAPE_FMT "n%zu c%zu %zux%zu oc%zu k%zux%zu s%zu,%zu p%zu,%zu d%zu,%zu"
#define SHAPE_ARGS(s) (s).n, (s).c, (s).h, (s).w, (s).oc, (s).kh, (s).kw, (s).stride_h, \
    (s).stride_w, (s).pad_h, (s).pad_w, (s).dil_h, (s).dil_w

static long n_direct;

/* forward against the reference and the im2col path; threads against serial */
static void check_fwd(repdl_conv2d_shape s, int kind)
{
    ref_conv_shape r = to_ref(&s);
    size_t oh = repdl_conv2d_out_h(&s), ow = repdl_conv2d_out_w(&s);
    size_t nx = s.n * s.c * s.h * s.w, nw = s.oc * s.c * s.kh * s.kw, ny = s.n * s.oc * oh * ow;
    float *x = gen_arr(nx, kind), *w = gen_arr(nw, kind), *b = gen_arr(s.oc, kind);
    float *y = gen_arr(ny, 0), *yr = gen_arr(ny, 0), *yi = gen_arr(ny, 0), *yt = gen_arr(ny, 0);
    int nb, T;
    if (repdl__conv_direct_ok(&s, ow)) n_direct++;
    for (nb = 0; nb < 2; nb++) {
        const float *bb = nb ? NULL : b;
        CHECK(repdl_conv2d_forward_f32(&s, x, w, bb, y) == 0, "forward rc");
        ref_conv2d_forward_f32(&r, x, w, bb, yr);
        CHECK_SAME(y, yr, ny, "fwd vs ref " SHAPE_FMT " kind %d bias %d", SHAPE_ARGS(s), kind, !nb);
        CHECK(repdl__conv2d_forward_im2col_f32(&s, x, w, bb, yi) == 0, "im2col rc");
        CHECK_SAME(y, yi, ny, "fwd vs im2col " SHAPE_FMT, SHAPE_ARGS(s));
        for (T = 1; T <= 4; T++) {
            memset(yt, 0xa5, ny * sizeof(float));
            CHECK(repdl_conv2d_forward_threads_f32(&s, T, x, w, bb, yt) == 0, "threads rc");
            CHECK_SAME(yt, y, ny, "fwd threads %d " SHAPE_FMT, T, SHAPE_ARGS(s));
        }
    }
    free(x); free(w); free(b); free(y); free(yr); free(yi); free(yt);
}

/* backward threads against the serial form and the reference */
static void check_bwd(repdl_conv2d_shape s, int kind)
{
    ref_conv_shape r = to_ref(&s);
    size_t oh = repdl_conv2d_out_h(&s), ow = repdl_conv2d_out_w(&s);
    size_t nx = s.n * s.c * s.h * s.w, nw = s.oc * s.c * s.kh * s.kw, ny = s.n * s.oc * oh * ow;
    float *x = gen_arr(nx, kind), *w = gen_arr(nw, kind), *dy = gen_arr(ny, kind);
    float *dx = gen_arr(nx, 0), *dw = gen_arr(nw, 0), *db = gen_arr(s.oc, 0);
    float *dxr = gen_arr(nx, 0), *dwr = gen_arr(nw, 0), *dbr = gen_arr(s.oc, 0);
    float *dxt = gen_arr(nx, 0), *dwt = gen_arr(nw, 0), *dbt = gen_arr(s.oc, 0);
    int T, sel;
    CHECK(repdl_conv2d_backward_f32(&s, x, w, dy, dx, dw, db) == 0, "backward rc");
    ref_conv2d_backward_f32(&r, x, w, dy, dxr, dwr, dbr);
    CHECK_SAME(dx, dxr, nx, "dx vs ref " SHAPE_FMT, SHAPE_ARGS(s));
    CHECK_SAME(dw, dwr, nw, "dw vs ref " SHAPE_FMT, SHAPE_ARGS(s));
    CHECK_SAME(db, dbr, s.oc, "db vs ref " SHAPE_FMT, SHAPE_ARGS(s));
    for (T = 1; T <= 4; T++)
        for (sel = 0; sel < 4; sel++) { /* all; dx alone; dw alone; dw and db */
            float *px = (sel == 0 || sel == 1) ? dxt : NULL;
            float *pw = (sel == 0 || sel >= 2) ? dwt : NULL;
            float *pb = (sel == 0 || sel == 3) ? dbt : NULL;
            memset(dxt, 0xa5, nx * sizeof(float));
            memset(dwt, 0xa5, nw * sizeof(float));
            memset(dbt, 0xa5, s.oc * sizeof(float));
            CHECK(repdl_conv2d_backward_threads_f32(&s, T, x, w, dy, px, pw, pb) == 0,
                  "threads rc");
            if (px) CHECK_SAME(dxt, dx, nx, "dx threads %d sel %d " SHAPE_FMT, T, sel, SHAPE_ARGS(s));
            if (pw) CHECK_SAME(dwt, dw, nw, "dw threads %d sel %d " SHAPE_FMT, T, sel, SHAPE_ARGS(s));
            if (pb) CHECK_SAME(dbt, db, s.oc, "db threads %d sel %d " SHAPE_FMT, T, sel, SHAPE_ARGS(s));
        }
    free(x); free(w); free(dy); free(dx); free(dw); free(db); free(dxr); free(dwr); free(dbr);
    free(dxt); free(dwt); free(dbt);
}

int main(int argc, char **argv)
{
    static const size_t ns[] = {1, 15, 16, 17, 33};
    size_t i;
    int kind;
    small_mode = argc > 1 && strcmp(argv[1], "--small") == 0;
    for (kind = 0; kind < 2; kind++) {
        check_fwd(cs(2, 3, 9, 9, 4, 3, 3, 1, 1, 1, 1, 1, 1), kind);      /* same padding */
        check_fwd(cs(3, 2, 8, 11, 5, 3, 2, 2, 3, 1, 0, 1, 1), kind);     /* strides: im2col */
        check_fwd(cs(2, 2, 8, 11, 5, 3, 2, 2, 1, 1, 0, 1, 1), kind);     /* stride_h only */
        check_fwd(cs(2, 2, 9, 9, 3, 3, 3, 1, 1, 2, 1, 2, 3), kind);      /* dilation */
        check_fwd(cs(2, 2, 3, 3, 3, 5, 5, 1, 1, 2, 2, 1, 1), kind);      /* kernel > input */
        check_fwd(cs(1, 4, 5, 6, 7, 1, 1, 1, 1, 0, 0, 1, 1), kind);      /* 1x1 */
        check_fwd(cs(3, 5, 7, 13, 11, 1, 1, 1, 1, 0, 0, 1, 1), kind);    /* 1x1, odd */
        check_fwd(cs(2, 1, 4, 4, 2, 7, 7, 1, 1, 3, 3, 1, 1), kind);      /* kernel 7, input 4 */
        check_fwd(cs(1, 1, 5, 5, 1, 3, 3, 1, 1, 0, 0, 1, 1), kind);
        check_fwd(cs(3, 3, 1, 17, 5, 1, 3, 1, 1, 0, 1, 1, 1), kind);     /* one row */
        check_fwd(cs(3, 3, 17, 1, 5, 3, 1, 1, 1, 1, 0, 1, 1), kind);     /* one column */
        check_fwd(cs(2, 2, 6, 6, 3, 3, 3, 1, 1, 4, 4, 1, 1), kind);      /* wide padding */
        check_fwd(cs(2, 3, 11, 7, 13, 2, 4, 1, 1, 1, 2, 1, 1), kind);    /* even, asymmetric */
        check_fwd(cs(4, 1, 28, 28, 6, 5, 5, 1, 1, 2, 2, 1, 1), kind);    /* LeNet conv1 */
        check_fwd(cs(2, 6, 14, 14, 16, 5, 5, 1, 1, 0, 0, 1, 1), kind);   /* LeNet conv2 */
        check_fwd(cs(2, 20, 9, 9, 40, 3, 3, 1, 1, 1, 1, 1, 1), kind);    /* OC > MR */
        check_fwd(cs(1, 40, 10, 10, 8, 3, 3, 1, 1, 1, 1, 1, 1), kind);   /* CK 360 > KC */
        check_fwd(cs(1, 33, 6, 7, 7, 3, 3, 1, 1, 1, 1, 2, 1), kind);     /* CK 297, dilation */
        if (!small_mode) {
            check_fwd(cs(2, 64, 12, 12, 64, 3, 3, 1, 1, 1, 1, 1, 1), kind); /* ResNet-like */
            check_fwd(cs(1, 70, 9, 9, 19, 5, 5, 1, 1, 2, 2, 1, 1), kind);   /* CK 1750 */
            check_fwd(cs(5, 8, 33, 35, 13, 3, 3, 1, 1, 1, 1, 1, 1), kind);  /* many tiles */
        }
        for (i = 0; i < sizeof ns / sizeof ns[0]; i++) {
            check_fwd(cs(ns[i], 2, 6, 7, 5, 3, 3, 1, 1, 1, 1, 1, 1), kind);
            check_bwd(cs(ns[i], 2, 6, 7, 5, 3, 3, 1, 1, 1, 1, 1, 1), kind);
            check_bwd(cs(ns[i], 3, 7, 6, 13, 2, 3, 2, 1, 0, 1, 1, 2), kind); /* stride, dil */
        }
        check_bwd(cs(2, 1, 28, 28, 6, 5, 5, 1, 1, 2, 2, 1, 1), kind);      /* LeNet conv1 */
        if (!small_mode) {
            check_bwd(cs(40, 1, 28, 28, 6, 5, 5, 1, 1, 2, 2, 1, 1), kind);
            check_bwd(cs(18, 6, 14, 14, 16, 5, 5, 1, 1, 0, 0, 1, 1), kind); /* LeNet conv2 */
        }
    }
    CHECK(n_direct > 20, "the direct path was taken (%ld shapes)", n_direct);
    /* argument errors: the same as the serial forms */
    {
        repdl_conv2d_shape s = cs(1, 1, 3, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1);
        float one = 1.0f;
        CHECK(repdl_conv2d_forward_threads_f32(NULL, 2, &one, &one, NULL, &one) == -1, "NULL s");
        CHECK(repdl_conv2d_forward_threads_f32(&s, 2, NULL, &one, NULL, &one) == -1, "NULL x");
        s.stride_w = 0;
        CHECK(repdl_conv2d_backward_threads_f32(&s, 2, &one, &one, &one, NULL, NULL, NULL) == -1,
              "stride 0");
        s.stride_w = 1;
        s.n = 0;
        CHECK(repdl_conv2d_forward_threads_f32(&s, 2, NULL, NULL, NULL, NULL) == 0, "n 0");
    }
    return check_summary("test_conv");
}
