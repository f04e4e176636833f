/* SPDX-License-Identifier: MIT */
/* bench/rng_optim/bench_rng_optim.c: add, scale, dropout and Adam
   of repdl against the plain loops of plain.c, measured in the same run
   (docs/rng-optim.md).

     bench_rng_optim [--rounds R] [--wall]

   Sizes 2^14 (L1/L2) and 2^22 (DRAM) elements.  Each sample times `reps`
   calls (thread CPU time by default: the machine is shared); samples of
   repdl and of the anchor alternate, R rounds (11 by default), and the
   median is printed, GB/s counting the bytes each call reads and writes
   (add 12 n, scale 8 n, dropout 9 n with the mask, Adam 28 n), and the
   ratio repdl / plain (>= 1: repdl at least as fast). */
#define _POSIX_C_SOURCE 200809L
#include <repdl/elementwise.h>
#include <repdl/optim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/common/timer.h"

void plain_add(size_t n, const float *a, const float *b, float *y);
void plain_scale(size_t n, float alpha, const float *x, float *y);
void plain_dropout(size_t n, float p, uint64_t seed, uint64_t offset, const float *x, float *y,
                   uint8_t *mask);
void plain_adam(size_t n, float *w, const float *g, float *m, float *v, float lr, float b1,
                float b2, float eps, float wd, long t);

static enum timer_clock bench_clock = TIMER_CPU; /* --wall: TIMER_WALL */
static float *A, *B, *Y, *M, *V;
static uint8_t *MASK;
static size_t N;
static repdl_adam_config AC = {1e-3f, 0.9f, 0.999f, 1e-8f, 1e-2f, 0};
static repdl_adam_state AS;

static void r_add(void) { repdl_add_f32(N, A, B, Y); }
static void p_add(void) { plain_add(N, A, B, Y); }
static void r_scale(void) { repdl_scale_f32(N, 0.7f, A, Y); }
static void p_scale(void) { plain_scale(N, 0.7f, A, Y); }
static void r_drop(void) { repdl_dropout_forward_f32(N, 0.1f, 1, 2, A, Y, MASK); }
static void p_drop(void) { plain_dropout(N, 0.1f, 1, 2, A, Y, MASK); }
static void r_adam(void) { repdl_adam_step_f32(N, &AC, &AS, B, Y, M, V); }
static void p_adam(void) { plain_adam(N, Y, B, M, V, 1e-3f, 0.9f, 0.999f, 1e-8f, 1e-2f, 10); }

static double sample(void (*f)(void), int reps)
{
    double t0 = timer_now(bench_clock);
    for (int r = 0; r < reps; r++) f();
    return (timer_now(bench_clock) - t0) / reps;
}

int main(int argc, char **argv)
{
    int rounds = 11;
    static const size_t sizes[] = {(size_t)1 << 14, (size_t)1 << 22};
    struct { const char *name; void (*r)(void), (*p)(void); double bytes; } ops[] = {
        {"add", r_add, p_add, 12}, {"scale", r_scale, p_scale, 8},
        {"dropout", r_drop, p_drop, 9}, {"adam", r_adam, p_adam, 28}};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--wall")) bench_clock = TIMER_WALL;
    }
    if (rounds < 1) rounds = 1;
    repdl_adam_state_init(&AS);
    for (int s = 0; s < 10; s++) repdl_adam_begin_step(&AS, &AC);
    printf("%-8s %10s %12s %12s %8s\n", "op", "n", "repdl GB/s", "plain GB/s", "ratio");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        N = sizes[si];
        A = malloc(N * 4); B = malloc(N * 4); Y = malloc(N * 4); M = malloc(N * 4); V = malloc(N * 4);
        MASK = malloc(N);
        for (size_t i = 0; i < N; i++) {
            A[i] = (float)(i % 1000) * 1e-3f - 0.5f;
            B[i] = (float)(i % 777) * 1e-4f - 0.03f;
            Y[i] = A[i]; M[i] = 0.0f; V[i] = 1e-6f;
        }
        int reps = N <= 65536 ? 2000 : 20;
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            double *tr = malloc(rounds * sizeof(double)), *tp = malloc(rounds * sizeof(double));
            int r;
            ops[o].r(); ops[o].p(); /* warm */
            for (r = 0; r < rounds; r++) {
                tr[r] = sample(ops[o].r, reps);
                tp[r] = sample(ops[o].p, reps);
            }
            qsort(tr, rounds, sizeof(double), timer_cmp);
            qsort(tp, rounds, sizeof(double), timer_cmp);
            double gr = ops[o].bytes * N / tr[rounds / 2] * 1e-9, gp = ops[o].bytes * N / tp[rounds / 2] * 1e-9;
            printf("%-8s %10zu %12.2f %12.2f %8.2f\n", ops[o].name, N, gr, gp, gr / gp);
            free(tr); free(tp);
        }
        free(A); free(B); free(Y); free(M); free(V); free(MASK);
    }
    return 0;
}
