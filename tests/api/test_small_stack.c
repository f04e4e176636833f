/* SPDX-License-Identifier: MIT */
/* tests/api/test_small_stack.c: no library call needs a large stack.
   Every call below runs once on the main thread and once inside a thread
   created with a 64 KiB stack (or PTHREAD_STACK_MIN if larger); the two
   results must be the same bits.  A call that needed more stack would
   crash the small thread (SIGSEGV: the test fails). */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sums of NS elements must use threads: the default threshold (2^21) is
   lowered so that the test stays small */
#define REPDL_THREADS_MIN ((size_t)1 << 16)
#include <repdl/repdl.h>
#include <repdl/gemm_threads.h>
#include <repdl/reduce_threads.h>

#define NS ((size_t)1 << 18) /* sums: past REPDL_THREADS_MIN, so threads are used */
#define R 64
#define C 1024               /* layer norm columns: the column-sum path */
#define GM 96
#define GN 80
#define GK 70

typedef struct {
    float sum, dot;
    float *y_exp, *y_softmax, *ln_y, *ln_mean, *ln_rstd, *ln_dx, *ln_dgamma, *ln_dbeta;
    float *gemm_c;
} results;

static float *xs, *ys, *lx, *lgamma, *lbeta, *ldy, *ga, *gb;

static float *alloc(size_t n) { float *p = (float *)calloc(n, sizeof(float)); if (!p) exit(2); return p; }

static void fill(float *p, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (float)((int)(seed >> 9) - (1 << 22)) / (float)(1 << 20);
    }
}

static void *work(void *arg)
{
    results *r = (results *)arg;
    r->sum = repdl_sum_threads_f32(NS, 2, xs);
    r->dot = repdl_dot_threads_f32(NS, 3, xs, ys);
    repdl_exp_array_f32(NS, xs, r->y_exp);
    repdl_softmax_f32(R, C, lx, r->y_softmax);
    repdl_layer_norm_forward_f32(R, C, 1e-5f, lx, lgamma, lbeta, r->ln_y, r->ln_mean, r->ln_rstd);
    repdl_layer_norm_backward_f32(R, C, lx, lgamma, r->ln_mean, r->ln_rstd, ldy, r->ln_dx,
                                  r->ln_dgamma, r->ln_dbeta);
    repdl_gemm_threads_f32(0, 0, GM, GN, GK, 2, 1.0f, 0.0f, ga, GK, gb, GN, NULL, r->gemm_c, GN);
    return NULL;
}

static void init(results *r)
{
    r->y_exp = alloc(NS); r->y_softmax = alloc(R * C); r->ln_y = alloc(R * C);
    r->ln_mean = alloc(R); r->ln_rstd = alloc(R); r->ln_dx = alloc(R * C);
    r->ln_dgamma = alloc(C); r->ln_dbeta = alloc(C); r->gemm_c = alloc(GM * GN);
}

static int same(const char *what, const void *a, const void *b, size_t bytes)
{
    if (memcmp(a, b, bytes) == 0) return 0;
    printf("FAIL %s: small-stack thread and main thread differ\n", what);
    return 1;
}

int main(void)
{
    results a, b;
    pthread_attr_t attr;
    pthread_t t;
    size_t stack = 64 * 1024;
    int fails = 0;
#ifdef PTHREAD_STACK_MIN
    if (stack < (size_t)PTHREAD_STACK_MIN) stack = (size_t)PTHREAD_STACK_MIN;
#endif
    xs = alloc(NS); ys = alloc(NS); lx = alloc(R * C); lgamma = alloc(C); lbeta = alloc(C);
    ldy = alloc(R * C); ga = alloc(GM * GK); gb = alloc(GK * GN);
    fill(xs, NS, 1); fill(ys, NS, 2); fill(lx, R * C, 3); fill(lgamma, C, 4); fill(lbeta, C, 5);
    fill(ldy, R * C, 6); fill(ga, GM * GK, 7); fill(gb, GK * GN, 8);
    init(&a); init(&b);
    work(&a);
    if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, stack) ||
        pthread_create(&t, &attr, work, &b) || pthread_join(t, NULL)) {
        printf("FAIL: could not run a thread with a %zu-byte stack\n", stack);
        return 1;
    }
    fails += same("sum_threads", &a.sum, &b.sum, sizeof a.sum);
    fails += same("dot_threads", &a.dot, &b.dot, sizeof a.dot);
    fails += same("exp_array", a.y_exp, b.y_exp, NS * sizeof(float));
    fails += same("softmax", a.y_softmax, b.y_softmax, R * C * sizeof(float));
    fails += same("layer_norm_forward", a.ln_y, b.ln_y, R * C * sizeof(float));
    fails += same("layer_norm_backward dx", a.ln_dx, b.ln_dx, R * C * sizeof(float));
    fails += same("layer_norm_backward dgamma", a.ln_dgamma, b.ln_dgamma, C * sizeof(float));
    fails += same("layer_norm_backward dbeta", a.ln_dbeta, b.ln_dbeta, C * sizeof(float));
    fails += same("gemm_threads", a.gemm_c, b.gemm_c, GM * GN * sizeof(float));
    /* and the threaded sum equals the plain canonical sum */
    {
        float s1 = repdl_sum_f32(NS, xs);
        fails += same("sum_threads == sum", &s1, &a.sum, sizeof s1);
    }
    printf("%s: 10 checks on a %zu-byte thread stack, %d failed\n", fails ? "FAIL" : "ok", stack, fails);
    return fails != 0;
}
