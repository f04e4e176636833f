/* SPDX-License-Identifier: MIT */
/* bench/nn/count_poolnorm.c: one call of max_pool2d (forward, backward)
   or layer-norm backward on the shapes of bench_nn_act_pool and bench_nn,
   for instruction counts that do not depend on the machine's load:

     valgrind --tool=callgrind --toggle-collect=count_run \
         build/bench/nn/count_poolnorm OP

   OP: maxfwd22, maxfwd33 (64 x 16 x 56 x 56, 2x2 stride 2 / 3x3 stride 1,
   argmax written), maxbwd22, maxbwd33 (the backward from that argmax),
   lnbwd_dx, lnbwd_params, lnbwd_all (4096 x 1024: dx only, dgamma and
   dbeta only, all three); a prefix "plain_" counts the plain loop of the
   same row of the benchmarks instead.  Only count_run is counted (the
   data set-up is not).  Built at -O3 -march=x86-64-v3: valgrind does not
   run AVX-512 code, so these are the counts of the AVX2 build, not of the
   -march=native benchmarks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/norm.h>
#include <repdl/pool.h>

#include "naive_softmax_norm.h"
#include "plain_act_pool.h"

static const char *op;
static int plain;
static repdl_pool2d_shape ps = {64, 16, 56, 56, 2, 2, 2, 2, 0, 0};
static float *x, *y, *dy, *dx, *g, *mu, *rs, *pg, *pb;
static size_t *arg;
static const size_t R = 4096, C = 1024;

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void count_run(void)
{
    size_t planes = ps.n * ps.c, ohw = repdl_pool2d_out_h(&ps) * repdl_pool2d_out_w(&ps);
    if (!strncmp(op, "maxfwd", 6)) {
        if (plain) plain_max_pool2d(planes, ps.h, ps.w, ps.kh, ps.stride_h, x, y);
        else repdl_max_pool2d_forward_f32(&ps, x, y, arg);
    } else if (!strncmp(op, "maxbwd", 6)) {
        if (plain) plain_max_pool2d_backward(planes, ps.h * ps.w, ohw, arg, dy, dx);
        else repdl_max_pool2d_backward_f32(&ps, arg, dy, dx);
    } else if (!strcmp(op, "lnbwd_dx")) {
        if (plain) naive_layer_norm_backward(R, C, x, g, mu, rs, dy, dx);
        else repdl_layer_norm_backward_f32(R, C, x, g, mu, rs, dy, dx, NULL, NULL);
    } else if (!strcmp(op, "lnbwd_params")) {
        if (plain) naive_layer_norm_param_grads(R, C, x, mu, rs, dy, pg, pb);
        else repdl_layer_norm_backward_f32(R, C, x, g, mu, rs, dy, NULL, pg, pb);
    } else {
        if (plain) {
            naive_layer_norm_backward(R, C, x, g, mu, rs, dy, dx);
            naive_layer_norm_param_grads(R, C, x, mu, rs, dy, pg, pb);
        } else {
            repdl_layer_norm_backward_f32(R, C, x, g, mu, rs, dy, dx, pg, pb);
        }
    }
}

int main(int argc, char **argv)
{
    size_t n = R * C, i;
    static const char *ops[] = {"maxfwd22", "maxfwd33", "maxbwd22", "maxbwd33",
                                "lnbwd_dx", "lnbwd_params", "lnbwd_all"};
    int k, known = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: count_poolnorm [plain_]OP\n");
        return 2;
    }
    op = argv[1];
    if (!strncmp(op, "plain_", 6)) {
        plain = 1;
        op += 6;
    }
    for (k = 0; k < (int)(sizeof ops / sizeof ops[0]); k++) known |= !strcmp(op, ops[k]);
    if (!known) {
        fprintf(stderr, "count_poolnorm: unknown OP %s\n", argv[1]);
        return 2;
    }
    if (op[6] == '3') {
        ps.kh = ps.kw = 3;
        ps.stride_h = ps.stride_w = 1;
    }
    if (n < ps.n * ps.c * ps.h * ps.w) n = ps.n * ps.c * ps.h * ps.w;
    x = (float *)malloc(n * sizeof(float)); y = (float *)malloc(n * sizeof(float));
    dy = (float *)malloc(n * sizeof(float)); dx = (float *)malloc(n * sizeof(float));
    arg = (size_t *)malloc(n * sizeof(size_t));
    g = (float *)malloc(C * sizeof(float)); pg = (float *)malloc(C * sizeof(float));
    pb = (float *)malloc(C * sizeof(float));
    mu = (float *)malloc(R * sizeof(float)); rs = (float *)malloc(R * sizeof(float));
    if (!x || !y || !dy || !dx || !arg || !g || !pg || !pb || !mu || !rs) return 1;
    srand(1);
    for (i = 0; i < n; i++) {
        x[i] = (float)rand() / (float)RAND_MAX * 16.0f - 8.0f;
        dy[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    }
    for (i = 0; i < C; i++) g[i] = 1.0f + (float)i / (float)C;
    if (!strncmp(op, "maxbwd", 6)) repdl_max_pool2d_forward_f32(&ps, x, y, arg);
    if (!strncmp(op, "lnbwd", 5)) repdl_layer_norm_forward_f32(R, C, 1e-5f, x, g, NULL, y, mu, rs);
    count_run();
    printf("%s%s done\n", plain ? "plain_" : "", op);
    free(x); free(y); free(dy); free(dx); free(arg); free(g); free(pg); free(pb); free(mu); free(rs);
    return 0;
}
