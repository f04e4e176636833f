/* SPDX-License-Identifier: MIT */
/* bench/linalg/bench_microbatch.c: the cost of the batch order's
   micro-batch size (docs/canonical-order.md, "The batch order") on the
   backward passes of LeNet-5 (examples/train_fmnist.c): conv1 (dw, db),
   conv2 (dx, dw, db), fc1, fc2, fc3 (dx, dW, db) at batch B.

   Built against the headers as they are (REPDL_MICROBATCH = 16);
   bench/linalg/microbatch.sh rebuilds it against copies of the headers
   with other values (4 .. 64, and 65536: one chain over the whole batch,
   the order before micro-batches) to compare them in one run.  Prints
   the median CPU time of one backward step (this thread's CPU clock: the
   time the thread is descheduled on a shared machine is left out).

     bench_microbatch [--batch B] [--reps R] */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/conv2d.h>
#include <repdl/linear.h>

#include "../../tests/common/splitmix64.h"
#include "../../tests/common/timer.h"

static float *arr(size_t n, splitmix64 *s)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof(float));
    size_t i;
    if (!p) exit(1);
    for (i = 0; i < n; i++)
        p[i] = (float)((int64_t)(splitmix64_next(s) >> 40) - (1 << 23)) * 0x1p-26f;
    return p;
}

static repdl_conv2d_shape conv(size_t n, size_t c, size_t hw, size_t oc, size_t pad)
{
    repdl_conv2d_shape s;
    memset(&s, 0, sizeof s);
    s.n = n; s.c = c; s.h = hw; s.w = hw; s.oc = oc; s.kh = 5; s.kw = 5;
    s.stride_h = s.stride_w = s.dil_h = s.dil_w = 1;
    s.pad_h = s.pad_w = pad;
    return s;
}

int main(int argc, char **argv)
{
    size_t B = 64, reps = 41, r, i;
    splitmix64 seed = {1};
    double *t;
    repdl_conv2d_shape c1, c2;
    float *x1, *dy1, *w1, *dw1, *db1, *x2, *dy2, *w2, *dx2, *dw2, *db2;
    float *h0, *g1, *W1, *dh0, *dW1, *dB1, *h1, *g2, *W2, *dh1, *dW2, *dB2, *h2, *g3, *W3, *dh2,
        *dW3, *dB3;
    for (i = 1; i + 1 < (size_t)argc; i += 2) {
        if (!strcmp(argv[i], "--batch")) B = strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--reps")) reps = strtoul(argv[i + 1], NULL, 10);
    }
    if (reps < 1) reps = 1;
    c1 = conv(B, 1, 28, 6, 2);
    c2 = conv(B, 6, 14, 16, 0);
    x1 = arr(B * 784, &seed); dy1 = arr(B * 6 * 784, &seed); w1 = arr(150, &seed);
    dw1 = arr(150, &seed); db1 = arr(6, &seed);
    x2 = arr(B * 6 * 196, &seed); dy2 = arr(B * 16 * 100, &seed); w2 = arr(2400, &seed);
    dx2 = arr(B * 6 * 196, &seed); dw2 = arr(2400, &seed); db2 = arr(16, &seed);
    h0 = arr(B * 400, &seed); g1 = arr(B * 120, &seed); W1 = arr(48000, &seed);
    dh0 = arr(B * 400, &seed); dW1 = arr(48000, &seed); dB1 = arr(120, &seed);
    h1 = arr(B * 120, &seed); g2 = arr(B * 84, &seed); W2 = arr(10080, &seed);
    dh1 = arr(B * 120, &seed); dW2 = arr(10080, &seed); dB2 = arr(84, &seed);
    h2 = arr(B * 84, &seed); g3 = arr(B * 10, &seed); W3 = arr(840, &seed);
    dh2 = arr(B * 84, &seed); dW3 = arr(840, &seed); dB3 = arr(10, &seed);
    t = (double *)malloc(reps * sizeof(double));
    if (!t) return 1;
    for (r = 0; r < reps + 2; r++) {
        double t0 = timer_now(TIMER_CPU);
        repdl_linear_backward_f32(B, 84, 10, h2, W3, g3, dh2, dW3, dB3);
        repdl_linear_backward_f32(B, 120, 84, h1, W2, g2, dh1, dW2, dB2);
        repdl_linear_backward_f32(B, 400, 120, h0, W1, g1, dh0, dW1, dB1);
        if (repdl_conv2d_backward_f32(&c2, x2, w2, dy2, dx2, dw2, db2) ||
            repdl_conv2d_backward_f32(&c1, x1, w1, dy1, NULL, dw1, db1))
            return 1;
        if (r >= 2) t[r - 2] = timer_now(TIMER_CPU) - t0; /* two warm-up runs */
    }
    printf("micro-batch %4d  batch %4zu  backward step %8.1f us (median of %zu)\n",
           REPDL_MICROBATCH, B, timer_median(t, reps) * 1e6, reps);
    return 0;
}
