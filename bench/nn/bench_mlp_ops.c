/* SPDX-License-Identifier: MIT */
/* bench/nn/bench_mlp_ops.c: the library's time for the elementwise and
   row-wise ops of bench/python/bench_mlp.py's MLP step (batch 64), one
   call each, without Python: the part of each row of that benchmark that
   is the library's own.

     bench_mlp_ops [--reps R] [--rows B]

   Ops: gelu forward and backward on [B, 512], layer norm forward and
   backward (dx, dgamma, dbeta) on [B, 512], cross-entropy (loss and
   dlogits, mean) on [B, 10]; then gelu's anchors in the same run: the
   AVX2 forms of detail/gelu_vec.h (where the CPU runs the AVX-512 ones)
   and the scalar functions in a plain loop (the same bits).  For each, the median over R repetitions
   (default 21) of the thread CPU time per call, each repetition looping
   the call for at least 20 ms.  Printed in microseconds; nothing is
   compared here (the PyTorch times are bench_mlp.py's). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/common/timer.h"

#include <repdl/activation.h>
#include <repdl/gelu.h>
#include <repdl/norm.h>
#include <repdl/softmax.h>

enum { GELU_F, GELU_B, LN_F, LN_B, CE, GELU_F2, GELU_B2, GELU_FS, GELU_BS, NOPS };
static const char *names[NOPS] = {"gelu forward [B,512]", "gelu backward [B,512]",
                                  "layer_norm forward [B,512]", "layer_norm backward [B,512]",
                                  "cross_entropy [B,10]", "  gelu forward, AVX2 form", "  gelu backward, AVX2 form",
                                  "  gelu forward, scalar loop", "  gelu backward, scalar loop"};
static size_t B;
static float *x, *y, *dy, *dx, *g, *b, *mu, *rs, *pg, *pb, *lg, *dl, loss;
static size_t *tg;
static volatile float sink;

static void run(int op)
{
    switch (op) {
    case GELU_F: (void)repdl_gelu_array_f32(B * 512, x, y); break;
    case GELU_B: (void)repdl_gelu_backward_array_f32(B * 512, x, dy, dx); break;
    case LN_F: (void)repdl_layer_norm_forward_f32(B, 512, 1e-5f, x, g, b, y, mu, rs); break;
    case LN_B: (void)repdl_layer_norm_backward_f32(B, 512, x, g, mu, rs, dy, dx, pg, pb); break;
    case CE: (void)repdl_cross_entropy_f32(B, 10, REPDL_REDUCTION_MEAN, lg, tg, &loss, dl); break;
#if REPDL__GELU_X86
    case GELU_F2: repdl__gelu_vec_avx2(B * 512, x, y, repdl_gelu_f32); break;
    case GELU_B2: repdl__gelu_bwd_vec_avx2(B * 512, x, dy, dx, repdl__gelu_q_coeffs()); break;
#endif
    case GELU_FS: {
        size_t i;
        for (i = 0; i < B * 512; i++) y[i] = repdl_gelu_f32(x[i]);
        break;
    }
    case GELU_BS: {
        size_t i;
        for (i = 0; i < B * 512; i++) dx[i] = repdl_gelu_backward_f32(x[i], dy[i]);
        break;
    }
    }
    sink = y[0] + dx[0] + loss + dl[0];
}

static float urand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

int main(int argc, char **argv)
{
    int reps = 21, a, op, k, isa = 0;
    unsigned s = 1;
    size_t i;
    double *t;
    B = 64;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--rows") && a + 1 < argc) B = (size_t)atol(argv[++a]);
        else {
            fprintf(stderr, "usage: bench_mlp_ops [--reps R] [--rows B]\n");
            return 2;
        }
    }
    if (reps < 1 || B < 1) return 2;
    x = malloc(B * 512 * sizeof *x); y = malloc(B * 512 * sizeof *y);
    dy = malloc(B * 512 * sizeof *dy); dx = malloc(B * 512 * sizeof *dx);
    g = malloc(512 * sizeof *g); b = malloc(512 * sizeof *b);
    pg = malloc(512 * sizeof *pg); pb = malloc(512 * sizeof *pb);
    mu = malloc(B * sizeof *mu); rs = malloc(B * sizeof *rs);
    lg = malloc(B * 10 * sizeof *lg); dl = malloc(B * 10 * sizeof *dl);
    tg = malloc(B * sizeof *tg);
    t = malloc((size_t)reps * sizeof *t);
    if (!x || !y || !dy || !dx || !g || !b || !pg || !pb || !mu || !rs || !lg || !dl || !tg || !t)
        return 1;
    for (i = 0; i < B * 512; i++) {
        x[i] = 3.0f * urand(&s);
        dy[i] = urand(&s);
    }
    for (i = 0; i < 512; i++) {
        g[i] = 1.0f + 0.1f * urand(&s);
        b[i] = 0.1f * urand(&s);
    }
    for (i = 0; i < B * 10; i++) lg[i] = 4.0f * urand(&s);
    for (i = 0; i < B; i++) tg[i] = i % 10;
    (void)repdl_layer_norm_forward_f32(B, 512, 1e-5f, x, g, b, y, mu, rs);
#if REPDL__GELU_X86
    isa = repdl__gelu_vec_isa();
#endif
    printf("bench_mlp_ops: B %zu, %d repetitions of >= 20 ms, thread CPU time; gelu's vector form: %s\n", B,
           reps, isa == 2 ? "AVX-512F" : isa == 1 ? "AVX2+FMA" : "none");
    printf("%-30s %10s\n", "op", "us/call");
    for (op = 0; op < NOPS; op++) {
        /* the AVX2 rows only where the CPU runs the AVX-512 form */
        if ((op == GELU_F2 || op == GELU_B2) && isa != 2) continue;
        for (k = 0; k < reps; k++) {
            long n = 0;
            double t0 = timer_now(TIMER_CPU), e;
            do {
                run(op);
                n++;
                e = timer_now(TIMER_CPU) - t0;
            } while (e < 0.02);
            t[k] = e / (double)n;
        }
        printf("%-30s %10.2f\n", names[op], 1e6 * timer_median(t, reps));
    }
    return 0;
}
