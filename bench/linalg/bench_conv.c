/* SPDX-License-Identifier: MIT */
/* bench/linalg/bench_conv.c: repdl's conv2d forward and backward, serial
   and threaded (conv2d_threads.h), against the im2col + gemm forward
   (repdl__conv2d_forward_im2col_f32: the forward before the direct form,
   the same bits) measured in the same run (docs/bench-linalg.md).

     bench_conv [--reps R] [--threads T] [--shape I] [--only WHAT]

   Shapes: LeNet-5's two layers at batch 64 and ResNet-like 3x3 layers at
   small batches.  Each repetition runs every variant once, in turn
   (interleaved, so a load change hits them alike); every figure is the
   median of R repetitions after one warm-up.  ratio = im2col time / the
   variant's time (> 1: faster than the old forward).  The same-bits check
   (memcmp of every output against the serial form) runs on every shape.
   --only fwd|fwd_im2col|bwd|none runs that one call once (none: no call), for
   valgrind --tool=callgrind instruction counts (--shape picks the shape). */
#define _POSIX_C_SOURCE 199309L
#include <repdl/conv2d.h>
#include <repdl/conv2d_threads.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/common/timer.h"

static float *arr(size_t n, uint32_t seed)
{
    float *a = (float *)malloc((n ? n : 1) * sizeof(float));
    size_t i;
    uint32_t s = seed;
    for (i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        a[i] = (float)((int)(s >> 9) - (1 << 22)) * (1.0f / (1 << 22));
    }
    return a;
}

typedef struct {
    const char *name;
    repdl_conv2d_shape s;
} bench_shape;

static const bench_shape shapes[] = {
    {"lenet conv1 n64 1->6 5x5 28x28 p2", {64, 1, 28, 28, 6, 5, 5, 1, 1, 2, 2, 1, 1}},
    {"lenet conv2 n64 6->16 5x5 14x14", {64, 6, 14, 14, 16, 5, 5, 1, 1, 0, 0, 1, 1}},
    {"resnet n4 64->64 3x3 56x56 p1", {4, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1}},
    {"resnet n4 128->128 3x3 28x28 p1", {4, 128, 28, 28, 128, 3, 3, 1, 1, 1, 1, 1, 1}},
    {"resnet n1 64->64 3x3 56x56 p1", {1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1}},
    {"resnet n8 256->256 3x3 14x14 p1", {8, 256, 14, 14, 256, 3, 3, 1, 1, 1, 1, 1, 1}},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

enum { V_IM2COL, V_FWD, V_FWD_T1, V_FWD_TN, V_BWD, V_BWD_T1, V_BWD_TN, NV };
static const char *vname[NV] = {"fwd im2col (anchor)", "fwd serial", "fwd threads 1",
                                "fwd threads T", "bwd serial", "bwd threads 1", "bwd threads T"};

int main(int argc, char **argv)
{
    int reps = 9, T = 2, only_shape = -1, a, r, v;
    const char *only = NULL;
    size_t si;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc) T = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--shape") && a + 1 < argc) only_shape = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--only") && a + 1 < argc) only = argv[++a];
        else {
            fprintf(stderr, "usage: bench_conv [--reps R] [--threads T] [--shape I] [--only fwd|fwd_im2col|bwd]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 64) reps = 9;
    if (!only) printf("bench_conv: medians of %d interleaved repetitions, T = %d threads\n", reps, T);
    for (si = 0; si < NSHAPES; si++) {
        const repdl_conv2d_shape *s = &shapes[si].s;
        size_t oh = repdl_conv2d_out_h(s), ow = repdl_conv2d_out_w(s);
        size_t nx = s->n * s->c * s->h * s->w, nw = s->oc * s->c * s->kh * s->kw;
        size_t ny = s->n * s->oc * oh * ow;
        double fmas = (double)ny * (double)(s->c * s->kh * s->kw), t[NV][64], med[NV];
        float *x = arr(nx, 1), *w = arr(nw, 2), *b = arr(s->oc, 3), *dy = arr(ny, 4);
        float *y0 = arr(ny, 0), *y1 = arr(ny, 0), *dx0 = arr(nx, 0), *dx1 = arr(nx, 0);
        float *dw0 = arr(nw, 0), *dw1 = arr(nw, 0), *db0 = arr(s->oc, 0), *db1 = arr(s->oc, 0);
        int same = 1;
        if (only_shape >= 0 && (size_t)only_shape != si) goto next;
        if (only) {
            if (!strcmp(only, "fwd")) repdl_conv2d_forward_f32(s, x, w, b, y0);
            else if (!strcmp(only, "fwd_im2col")) repdl__conv2d_forward_im2col_f32(s, x, w, b, y0);
            else if (!strcmp(only, "bwd")) repdl_conv2d_backward_f32(s, x, w, dy, dx0, dw0, db0);
            /* "none": the set-up alone, subtracted from the others' counts */
            printf("%s: %s done\n", shapes[si].name, only);
            goto next;
        }
        for (r = -1; r < reps; r++)
            for (v = 0; v < NV; v++) {
                double t0 = timer_now(TIMER_WALL);
                switch (v) {
                case V_IM2COL: repdl__conv2d_forward_im2col_f32(s, x, w, b, y1); break;
                case V_FWD: repdl_conv2d_forward_f32(s, x, w, b, y0); break;
                case V_FWD_T1: repdl_conv2d_forward_threads_f32(s, 1, x, w, b, y1); break;
                case V_FWD_TN: repdl_conv2d_forward_threads_f32(s, T, x, w, b, y1); break;
                case V_BWD: repdl_conv2d_backward_f32(s, x, w, dy, dx0, dw0, db0); break;
                case V_BWD_T1: repdl_conv2d_backward_threads_f32(s, 1, x, w, dy, dx1, dw1, db1); break;
                default: repdl_conv2d_backward_threads_f32(s, T, x, w, dy, dx1, dw1, db1); break;
                }
                if (r >= 0) t[v][r] = timer_now(TIMER_WALL) - t0;
                /* every variant's output against the serial form's */
                if (v == V_IM2COL || v == V_FWD_T1 || v == V_FWD_TN)
                    same &= r < 0 || v == V_IM2COL || memcmp(y0, y1, ny * sizeof(float)) == 0;
                if (v == V_BWD_T1 || v == V_BWD_TN)
                    same &= memcmp(dx0, dx1, nx * sizeof(float)) == 0 &&
                            memcmp(dw0, dw1, nw * sizeof(float)) == 0 &&
                            memcmp(db0, db1, s->oc * sizeof(float)) == 0;
            }
        repdl_conv2d_forward_f32(s, x, w, b, y0);
        repdl__conv2d_forward_im2col_f32(s, x, w, b, y1);
        same &= memcmp(y0, y1, ny * sizeof(float)) == 0;
        for (v = 0; v < NV; v++) med[v] = timer_median(t[v], reps);
        printf("\n%s  (%.1f M fma forward)  same bits: %s\n", shapes[si].name, fmas * 1e-6,
               same ? "yes" : "NO");
        for (v = 0; v < NV; v++)
            printf("  %-20s %9.3f ms  %7.2f GFLOP/s  x%.2f vs im2col%s\n", vname[v], med[v] * 1e3,
                   2.0 * fmas * (v >= V_BWD ? 2.0 : 1.0) / med[v] * 1e-9, med[V_IM2COL] / med[v],
                   v >= V_BWD ? " (bwd: dx+dw+db, 2x the fma)" : "");
        if (!same) return 1;
    next:
        free(x); free(w); free(b); free(dy); free(y0); free(y1); free(dx0); free(dx1);
        free(dw0); free(dw1); free(db0); free(db1);
    }
    return 0;
}
