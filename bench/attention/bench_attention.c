/* SPDX-License-Identifier: MIT */
/* bench/attention/bench_attention.c: repdl attention forward and backward
   (attention_threads.h), causal (ATTN_CAUSAL=0 in the environment: not),
   recomputing the scores in the backward (ATTN_SCORES=1: the _scores
   forms, the forward saving them for the backward, as torch's autograd
   keeps its softmax),
   batch 1, H heads, head_dim 64, at
   sequence lengths 128 .. 1024 and T threads.  Prints one line per
   (seq, threads): the median wall time of forward and backward in ms, and
   the median CPU time of the calling thread (the whole work when threads
   is 1; a loaded machine inflates wall time, not this).
   bench/attention/run.sh runs it beside the PyTorch anchor
   (bench_attention_torch.py) and prints the ratios.

     bench_attention [reps] [heads] [threads...]   (defaults 31 4 1 2; each
     shape and thread count first runs BENCH_WARM untimed repetitions) */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>

#include <repdl/attention_threads.h>

#include "../../tests/common/splitmix64.h"
#include "../../tests/common/timer.h"

static float *rand_array(splitmix64 *r, size_t n)
{
    float *p = (float *)malloc(n * sizeof(float));
    size_t i;
    if (!p) abort();
    for (i = 0; i < n; i++) p[i] = (float)(splitmix64_next(r) >> 40) * (2.0f / 16777216.0f) - 1.0f;
    return p;
}

#define BENCH_WARM 3 /* untimed repetitions of each shape and thread count */

int main(int argc, char **argv)
{
    static const size_t seqs[4] = {128, 256, 512, 1024};
    int reps = argc > 1 ? atoi(argv[1]) : 31, H = argc > 2 ? atoi(argv[2]) : 4;
    int threads[8] = {1, 2}, nt = 2, a, z, ti;
    const char *ce = getenv("ATTN_CAUSAL");
    int causal = !(ce && ce[0] == '0');
    const char *se = getenv("ATTN_SCORES");
    int saved = se && se[0] == '1';
    splitmix64 r;
    if (argc > 3) {
        nt = 0;
        for (a = 3; a < argc && nt < 8; a++) threads[nt++] = atoi(argv[a]);
    }
    if (reps < 1 || reps > 101 || H < 1) return 2;
    splitmix64_seed(&r, 1);
    printf("# repdl attention: batch 1, heads %d, head_dim 64, %s, %s, median of %d (ms)\n", H,
           causal ? "causal" : "not causal", saved ? "scores saved" : "scores recomputed", reps);
    printf("# seq threads forward_ms backward_ms forward_cpu_ms backward_cpu_ms\n");
    for (z = 0; z < 4; z++) {
        size_t n = seqs[z], d = 64, m = (size_t)H * n * d;
        repdl_attention_shape s;
        float *q = rand_array(&r, m), *k = rand_array(&r, m), *v = rand_array(&r, m),
              *g = rand_array(&r, m), *o = rand_array(&r, m), *l = rand_array(&r, (size_t)H * n),
              *dq = rand_array(&r, m), *dk = rand_array(&r, m), *dv = rand_array(&r, m),
              *sc = saved ? rand_array(&r, (size_t)H * n * n) : NULL;
        s.batch = 1; s.hq = s.hkv = (size_t)H; s.nq = s.nk = n; s.d = d;
        s.q_pos0 = 0; s.kv_stride = 0; s.causal = causal;
        for (ti = 0; ti < nt; ti++) {
            double tf[101], tb[101], cf[101], cb[101];
            int i;
            for (i = 0; i < BENCH_WARM; i++) /* untimed, as bench_attention_torch.py */
                if (repdl_attention_forward_scores_threads_f32(&s, threads[ti], 0.125f, q, k, v, NULL, NULL, o,
                                                               l, sc) ||
                    repdl_attention_backward_scores_threads_f32(&s, threads[ti], 0.125f, q, k, v, NULL, NULL, o,
                                                                l, sc, g, dq, dk, dv))
                    return 1;
            for (i = 0; i < reps; i++) {
                double c0 = timer_now(TIMER_CPU), t0 = timer_now(TIMER_WALL), t1, t2, c1, c2;
                if (repdl_attention_forward_scores_threads_f32(&s, threads[ti], 0.125f, q, k, v, NULL, NULL, o,
                                                               l, sc))
                    return 1;
                t1 = timer_now(TIMER_WALL);
                c1 = timer_now(TIMER_CPU);
                if (repdl_attention_backward_scores_threads_f32(&s, threads[ti], 0.125f, q, k, v, NULL, NULL,
                                                                o, l, sc, g, dq, dk, dv))
                    return 1;
                t2 = timer_now(TIMER_WALL);
                c2 = timer_now(TIMER_CPU);
                tf[i] = t1 - t0;
                tb[i] = t2 - t1;
                cf[i] = c1 - c0;
                cb[i] = c2 - c1;
            }
            printf("%zu %d %.3f %.3f %.3f %.3f\n", n, threads[ti], 1e3 * timer_median(tf, reps),
                   1e3 * timer_median(tb, reps), 1e3 * timer_median(cf, reps),
                   1e3 * timer_median(cb, reps));
            fflush(stdout);
        }
        free(q); free(k); free(v); free(g); free(o); free(l); free(dq); free(dk); free(dv); free(sc);
    }
    return 0;
}
