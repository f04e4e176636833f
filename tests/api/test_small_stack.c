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
#include <repdl/attention.h>
#include <repdl/gemm_cr.h>
#include <repdl/gemm_cr_threads.h>
#include <repdl/embedding.h>

#define NS ((size_t)1 << 18) /* sums: past REPDL_THREADS_MIN, so threads are used */
#define R 64
#define C 1024               /* layer norm columns: the column-sum path */
#define GM 96
#define GN 80
#define GK 70
/* attention: grouped heads, causal, several key leaves, head_dim 64 */
#define AQ 40
#define AK 300
#define AD 64
#define AH 2
#define EV 50  /* embedding: vocab, dim, ids */
#define ED 70
#define EN 300

typedef struct {
    float sum, dot;
    float *y_exp, *y_softmax, *ln_y, *ln_mean, *ln_rstd, *ln_dx, *ln_dgamma, *ln_dbeta;
    float *gemm_c, *gcr_c, *gcr_t;
    float *at_out, *at_lse, *at_dq, *at_dk, *at_dv, *emb_d;
} results;

static float *xs, *ys, *lx, *lgamma, *lbeta, *ldy, *ga, *gb;
static float *aq, *ak, *av, *ado;
static int64_t eids[EN];
static const repdl_attention_shape ashape = {1, AH, 1, AQ, AK, AD, AK - AQ, 0, 1};

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
    repdl_gemm_cr_f32(0, 0, GM, GN, GK, ga, GK, gb, GN, NULL, r->gcr_c, GN);
    repdl_gemm_cr_threads_f32(0, 0, GM, GN, GK, 2, ga, GK, gb, GN, NULL, r->gcr_t, GN);
    repdl_attention_forward_f32(&ashape, 0.125f, aq, ak, av, NULL, NULL, r->at_out, r->at_lse);
    repdl_attention_backward_f32(&ashape, 0.125f, aq, ak, av, NULL, NULL, r->at_out, r->at_lse,
                                 ado, r->at_dq, r->at_dk, r->at_dv);
    repdl_embedding_backward_f32(lx, eids, EN, EV, ED, r->emb_d);
    return NULL;
}

static void init(results *r)
{
    r->y_exp = alloc(NS); r->y_softmax = alloc(R * C); r->ln_y = alloc(R * C);
    r->ln_mean = alloc(R); r->ln_rstd = alloc(R); r->ln_dx = alloc(R * C);
    r->ln_dgamma = alloc(C); r->ln_dbeta = alloc(C); r->gemm_c = alloc(GM * GN);
    r->gcr_c = alloc(GM * GN); r->gcr_t = alloc(GM * GN);
    r->at_out = alloc(AH * AQ * AD); r->at_lse = alloc(AH * AQ); r->at_dq = alloc(AH * AQ * AD);
    r->at_dk = alloc(AK * AD); r->at_dv = alloc(AK * AD); r->emb_d = alloc(EV * ED);
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
    aq = alloc(AH * AQ * AD); ak = alloc(AK * AD); av = alloc(AK * AD); ado = alloc(AH * AQ * AD);
    fill(aq, AH * AQ * AD, 9); fill(ak, AK * AD, 10); fill(av, AK * AD, 11);
    fill(ado, AH * AQ * AD, 12);
    {
        size_t i;
        for (i = 0; i < EN; i++) eids[i] = (int64_t)((i * 7) % EV);
    }
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
    fails += same("gemm_cr", a.gcr_c, b.gcr_c, GM * GN * sizeof(float));
    fails += same("gemm_cr_threads", a.gcr_t, b.gcr_t, GM * GN * sizeof(float));
    fails += same("gemm_cr_threads == gemm_cr", a.gcr_t, a.gcr_c, GM * GN * sizeof(float));
    fails += same("attention_forward out", a.at_out, b.at_out, AH * AQ * AD * sizeof(float));
    fails += same("attention_forward lse", a.at_lse, b.at_lse, AH * AQ * sizeof(float));
    fails += same("attention_backward dq", a.at_dq, b.at_dq, AH * AQ * AD * sizeof(float));
    fails += same("attention_backward dk", a.at_dk, b.at_dk, AK * AD * sizeof(float));
    fails += same("attention_backward dv", a.at_dv, b.at_dv, AK * AD * sizeof(float));
    fails += same("embedding_backward", a.emb_d, b.emb_d, EV * ED * sizeof(float));
    /* and the threaded sum equals the plain canonical sum */
    {
        float s1 = repdl_sum_f32(NS, xs);
        fails += same("sum_threads == sum", &s1, &a.sum, sizeof s1);
    }
    printf("%s: 19 checks on a %zu-byte thread stack, %d failed\n", fails ? "FAIL" : "ok", stack, fails);
    return fails != 0;
}
