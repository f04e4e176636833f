/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_api.c: a shape fuzzer over every public host function
   that takes a shape, with its own generator (tests/common/splitmix64.h).

     fuzz_api [first_seed [seeds [calls_per_seed [only_call]]]]

   Each call draws a function and a shape aimed at the edges: zeros and
   ones, sizes of a few elements, sizes near SIZE_MAX and 2^62 (size
   products that do not fit), leading dimensions below the row, strides,
   paddings and dilations from 0 to SIZE_MAX, NULL arrays with and without
   an empty extent, in-place calls where the header allows them.  Every
   array is allocated to the exact extent the documented shape implies
   (malloc, so AddressSanitizer sees a read one past it) between two
   canary zones of FZ_CANARY bytes; an extent that does not fit, or that
   is larger than FZ_CAP bytes, gets a dummy of one element instead (the
   call must refuse before touching it).  The oracle of each call:
     - no crash, no sanitizer report (the sanitized build runs this too);
     - every canary intact; every input unchanged (in place: the output);
     - the status is one the header documents: REPDL_ERR_INVALID for a
       NULL array of nonzero extent and for the invalid parameters the
       case knows (ld < row, zero stride or kernel, unknown reduction),
       an error (INVALID or OVERFLOW) when an output's extent does not
       fit, REPDL_OK for a valid shape;
     - a call that returns an error has written nothing (every byte of
       every array as before);
     - a valid call run twice from the same inputs gives the same bits;
       the threaded forms (gemm, conv2d forward and backward) give the
       plain form's bits with another thread count; an in-place call gives
       the out-of-place call's bits.
   It prints the counts (calls, shapes, seeds, statuses) and the failures
   with the seed and call number that reproduce them; exit status 1 on a
   failure.  Plain C99 (pthread for the threaded forms). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/repdl.h>
#include <repdl/gemm_threads.h>
#include <repdl/conv2d_threads.h>
#include <repdl/gemm_cr_threads.h>
#define REPDL_ATTENTION_GRAIN 0 /* the threads forms at every thread count asked for */
#include <repdl/attention_threads.h>
#include <repdl/reduce_units.h>
#include <repdl/op_table.h>

#include "../common/splitmix64.h"

#define FZ_CANARY 64                /* bytes of canary each side */
#define FZ_CAP ((size_t)1 << 20)    /* the largest array allocated, bytes */
#define FZ_HUGE ((size_t)-1)        /* an extent that does not fit */
#define FZ_MAXARR 12

enum { FZ_IN, FZ_OUT, FZ_INOUT };
enum { FZ_EXP_OK, FZ_EXP_INV, FZ_EXP_ERR, FZ_EXP_ANY, FZ_EXP_OVF };  /* OVF: sizes checked first */

typedef struct fz_arr {
    size_t n, esz;          /* extent in elements (FZ_HUGE: does not fit) */
    int role, optional;     /* 1: NULL is allowed whatever the extent; 2: never
                               NULL unless empty (a void function, or one
                               that refuses only part way) */
    int alias;              /* >= 0: an output passed as array `alias` (in place) */
    unsigned char *blk;     /* canary, payload, canary */
    size_t bytes;           /* payload bytes allocated */
    unsigned char *snap;    /* the payload before the call */
    void *p;                /* what the call gets (NULL, the payload, or an alias) */
    int isnull;
} fz_arr;

typedef struct fz {
    splitmix64 r;
    fz_arr a[FZ_MAXARR];
    int na;
    size_t z[20];           /* the case's sizes */
    float f[6];             /* its scalars */
    int iv[4];              /* its flags */
    int expect;             /* FZ_EXP_* before NULLs and huge extents */
    int variant;            /* 0 the plain call; 1, 2 threads forms */
    int threads;            /* the case has a threads form */
    void (*fix)(struct fz *F);  /* gives index arrays values of their own */
    const char *name;
    int skip;               /* the shape cannot be run here (counted) */
    repdl_status (*run)(struct fz *F, int variant);
} fz;

static long n_calls, n_shapes, n_seeds, n_fail, n_skip, n_det, n_thr, n_alias, n_null;
static long n_status[8];
static uint64_t cur_seed;
static long cur_call;

static uint64_t rnd(fz *F) { return splitmix64_next(&F->r); }
static size_t rn(fz *F, size_t m) { return m ? (size_t)(rnd(F) % m) : 0; }

static int last_status;
static void fail(fz *F, const char *what)
{
    int k;
    if (n_fail++ >= 40) return;
    printf("FAIL %s: %s, status %d (reproduce: fuzz_api %llu 1 %ld %ld)\n  sizes", F->name, what,
           last_status, (unsigned long long)cur_seed, cur_call + 1, cur_call);
    for (k = 0; k < 14; k++) printf(" %#zx", F->z[k]);
    printf("; flags %d %d; arrays", F->iv[0], F->iv[1]);
    for (k = 0; k < F->na; k++)
        printf(" %s%zu%s", F->a[k].isnull ? "NULL:" : "", F->a[k].n, F->a[k].p && F->a[k].alias >= 0 &&
               F->a[k].p == F->a[F->a[k].alias].p ? "(in place)" : "");
    printf("\n");
}

/* A size aimed at the edges: mostly small, sometimes a value whose
   products do not fit. */
static size_t dim(fz *F)
{
    static const size_t huge[] = {FZ_HUGE, FZ_HUGE - 1, (size_t)1 << 62, ((size_t)1 << 61) + 1,
                                  ((size_t)1 << 32) + 1, (size_t)1 << 40};
    uint64_t r = rnd(F) % 100;
    if (r < 10) return 0;
    if (r < 25) return 1;
    if (r < 85) return 2 + rn(F, 6);
    if (r < 95) return 8 + rn(F, 33);
    return huge[rn(F, sizeof huge / sizeof huge[0])];
}
/* A leading dimension for rows of `row` elements: usually >= row. */
static size_t ld(fz *F, size_t row)
{
    uint64_t r = rnd(F) % 100;
    if (r < 8 && row > 0) return row - 1 - rn(F, row);          /* below the row */
    if (r < 12) return FZ_HUGE - rn(F, 3);
    if (row >= FZ_HUGE - 8) return row;
    return row + (r < 60 ? 0 : rn(F, 5));
}
/* Strides, dilations, paddings: 0 and 1, small, near SIZE_MAX. */
static size_t step(fz *F, int zero_ok)
{
    uint64_t r = rnd(F) % 100;
    if (r < 6) return zero_ok ? 0 : 1;
    if (r < 60) return 1 + rn(F, 3);
    if (r < 80) return zero_ok ? rn(F, 3) : 1;
    if (r < 90) return FZ_HUGE - rn(F, 3);
    return ((size_t)1 << 62) + rn(F, 2);
}

/* Products and sums of extents, saturating at FZ_HUGE beyond what fits in
   size_t bytes of floats (the bound of config.h's repdl__size_mul). */
#define FZ_LIM (((size_t)-1) / sizeof(float))
static size_t mul(size_t a, size_t b)
{
    if (a == 0 || b == 0) return 0;
    if (a == FZ_HUGE || b == FZ_HUGE || a > FZ_LIM / b) return FZ_HUGE;
    return a * b;
}
static size_t add(size_t a, size_t b)
{
    if (a == FZ_HUGE || b == FZ_HUGE || a > FZ_LIM || b > FZ_LIM - a) return FZ_HUGE;
    return a + b;
}
/* The extent of `rows` rows of `row` elements, ld apart. */
static size_t span(size_t rows, size_t row, size_t ldx)
{
    if (rows == 0 || row == 0) return 0;
    return add(mul(rows - 1, ldx), row);
}

static float value(fz *F)
{
    static const uint32_t sp[] = {0x7fc00000u, 0xffc00001u, 0x7f800000u, 0xff800000u, 0x80000000u,
                                  0x00000001u, 0x807fffffu, 0x7f7fffffu, 0x00000000u, 0x3f800000u};
    uint64_t r = rnd(F);
    if (r % 16 == 0) {
        uint32_t b = sp[(r >> 8) % 10];
        float v;
        memcpy(&v, &b, 4);
        return v;
    }
    return (float)((int64_t)(r >> 40) - (1 << 23)) * (1.0f / (1 << 20));
}

/* Registers array k: n elements of esz bytes. */
static void arr(fz *F, size_t n, size_t esz, int role)
{
    fz_arr *a = &F->a[F->na++];
    memset(a, 0, sizeof *a);
    a->n = n;
    a->esz = esz;
    a->role = role;
    a->alias = -1;
}
#define ARR_F(n, role) arr(F, (n), sizeof(float), (role))
#define P_F(k) ((float *)F->a[k].p)
#define P_CF(k) ((const float *)F->a[k].p)

static void canary_fill(unsigned char *b, size_t n, uint64_t salt)
{
    size_t i;
    for (i = 0; i < n; i++) b[i] = (unsigned char)(0xa5 ^ (i * 7 + salt));
}
static int canary_ok(const unsigned char *b, size_t n, uint64_t salt)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (b[i] != (unsigned char)(0xa5 ^ (i * 7 + salt))) return 0;
    return 1;
}

/* Allocates every array; 0 when one is too large to run (skipped). */
static int alloc_all(fz *F)
{
    int k;
    for (k = 0; k < F->na; k++) {
        fz_arr *a = &F->a[k];
        size_t i, n = a->n == FZ_HUGE ? 1 : a->n;
        if (n > FZ_CAP / a->esz) return 0;
        a->bytes = n * a->esz;
        a->blk = (unsigned char *)malloc(a->bytes + 2 * FZ_CANARY);
        a->snap = (unsigned char *)malloc(a->bytes + 1);
        canary_fill(a->blk, FZ_CANARY, (uint64_t)k);
        canary_fill(a->blk + FZ_CANARY + a->bytes, FZ_CANARY, (uint64_t)k + 99);
        if (a->esz == sizeof(float))
            for (i = 0; i < n; i++) {
                float v = value(F);
                memcpy(a->blk + FZ_CANARY + i * 4, &v, 4);
            }
        else
            for (i = 0; i < a->bytes; i++) a->blk[FZ_CANARY + i] = (unsigned char)rnd(F);
        a->p = a->blk + FZ_CANARY;
    }
    return 1;
}
static void free_all(fz *F)
{
    int k;
    for (k = 0; k < F->na; k++) {
        free(F->a[k].blk);
        free(F->a[k].snap);
        F->a[k].blk = F->a[k].snap = NULL;
    }
}
static void snapshot(fz *F)
{
    int k;
    for (k = 0; k < F->na; k++) memcpy(F->a[k].snap, F->a[k].blk + FZ_CANARY, F->a[k].bytes);
}
static void restore(fz *F)
{
    int k;
    for (k = 0; k < F->na; k++) memcpy(F->a[k].blk + FZ_CANARY, F->a[k].snap, F->a[k].bytes);
}
/* The pointers the call gets: NULL, the own payload, or (in place) the
   payload of the array aliased. */
static void point(fz *F, int in_place)
{
    int k;
    for (k = 0; k < F->na; k++) {
        fz_arr *a = &F->a[k];
        a->p = a->isnull ? NULL : a->blk + FZ_CANARY;
        if (in_place && a->alias >= 0 && !a->isnull && !F->a[a->alias].isnull)
            a->p = F->a[a->alias].blk + FZ_CANARY;
    }
}
static int canaries_ok(fz *F)
{
    int k;
    for (k = 0; k < F->na; k++)
        if (!canary_ok(F->a[k].blk, FZ_CANARY, (uint64_t)k) ||
            !canary_ok(F->a[k].blk + FZ_CANARY + F->a[k].bytes, FZ_CANARY, (uint64_t)k + 99))
            return 0;
    return 1;
}
/* 1 when array k (role mask) is as in the snapshot. */
static int unchanged(fz *F, int k) { return !memcmp(F->a[k].snap, F->a[k].blk + FZ_CANARY, F->a[k].bytes); }

static void copy_outputs(fz *F, unsigned char **save)
{
    int k;
    for (k = 0; k < F->na; k++) {
        save[k] = (unsigned char *)malloc(F->a[k].bytes + 1);
        memcpy(save[k], F->a[k].blk + FZ_CANARY, F->a[k].bytes);
    }
}
static int same_as(fz *F, unsigned char **save)
{
    int k;
    for (k = 0; k < F->na; k++)
        if (memcmp(save[k], F->a[k].blk + FZ_CANARY, F->a[k].bytes)) return 0;
    return 1;
}

static int status_index(repdl_status s) { return s <= 0 && s >= -6 ? -(int)s : 7; }

/* One call of the case F: allocation, NULL injection, the call, the oracle. */
static void exec(fz *F)
{
    int k, expect = F->expect, huge_out = 0, huge_any = 0, null_bad = 0, in_place = 0, nul = -1;
    repdl_status st, st2;
    unsigned char *save[FZ_MAXARR];
    n_shapes++;
    for (k = 0; k < F->na; k++) {
        if (F->a[k].n == FZ_HUGE) {
            huge_any = 1;
            if (F->a[k].role != FZ_IN) huge_out = 1;
        }
    }
    if (F->skip || !alloc_all(F)) {
        n_skip++;
        free_all(F);
        return;
    }
    /* one array NULL in one call of 5: with an empty extent that is fine,
       otherwise REPDL_ERR_INVALID unless it is optional */
    if (F->fix) F->fix(F);
    if (rnd(F) % 5 == 0 && F->na > 0 &&
        (F->a[nul = (int)rn(F, (size_t)F->na)].optional != 2 || F->a[nul].n == 0)) {
        F->a[nul].isnull = 1;
        n_null++;
        if (F->a[nul].n != 0 && !F->a[nul].optional) null_bad = 1;
    }
    /* in place where allowed, one call of 3 */
    for (k = 0; k < F->na; k++)
        if (F->a[k].alias >= 0 && rnd(F) % 3 == 0) in_place = 1;
    if (expect == FZ_EXP_OK && null_bad) expect = FZ_EXP_INV;
    if (huge_out && expect != FZ_EXP_ANY && expect != FZ_EXP_OVF) expect = FZ_EXP_ERR;
    if (huge_any && expect == FZ_EXP_OK) expect = FZ_EXP_ANY;   /* an input not read may be huge */
    if (expect == FZ_EXP_INV && huge_any) expect = FZ_EXP_ERR;   /* either check may come first */
    snapshot(F);
    point(F, in_place);
    n_calls++;
    st = F->run(F, 0);
    last_status = (int)st;
    n_status[status_index(st)]++;
    if (st != REPDL_OK && st != REPDL_ERR_INVALID && st != REPDL_ERR_OVERFLOW && st != REPDL_ERR_NOMEM)
        fail(F, "status not a documented value");
    if (expect == FZ_EXP_OK && st != REPDL_OK) fail(F, "valid shape refused");
    if (expect == FZ_EXP_INV && st != REPDL_ERR_INVALID) fail(F, "want REPDL_ERR_INVALID");
    if (expect == FZ_EXP_ERR && st == REPDL_OK) fail(F, "an extent that does not fit accepted");
    if (expect == FZ_EXP_OVF && st != REPDL_ERR_OVERFLOW) fail(F, "want REPDL_ERR_OVERFLOW");
    if (!canaries_ok(F)) fail(F, "wrote outside an array (canary)");
    for (k = 0; k < F->na; k++) {
        int aliased_to = 0, j;
        for (j = 0; j < F->na; j++)
            if (in_place && F->a[j].alias == k && !F->a[j].isnull) aliased_to = 1;
        if (F->a[k].role == FZ_IN && !aliased_to && !unchanged(F, k)) fail(F, "an input was written");
        if (st != REPDL_OK && !unchanged(F, k)) fail(F, "an error wrote an output");
    }
    if (st == REPDL_OK && !huge_any) {
        /* determinism: the same call from the same inputs */
        copy_outputs(F, save);
        restore(F);
        n_calls++;
        n_det++;
        st2 = F->run(F, 0);
        if (st2 != st || !same_as(F, save)) fail(F, "second call differs");
        /* the threads forms, two other thread counts */
        if (F->threads) {
            int v;
            for (v = 1; v <= 2; v++) {
                restore(F);
                n_calls++;
                n_thr++;
                st2 = F->run(F, v);
                if (st2 != st || !same_as(F, save)) fail(F, "threads form differs");
            }
        }
        /* in place == out of place */
        if (in_place) {
            int j;
            restore(F);
            point(F, 0);
            n_calls++;
            n_alias++;
            st2 = F->run(F, 0);
            for (j = 0; j < F->na; j++)
                if (F->a[j].alias >= 0 && !F->a[j].isnull && !F->a[F->a[j].alias].isnull &&
                    (F->a[j].bytes != F->a[F->a[j].alias].bytes ||
                     memcmp(save[F->a[j].alias], F->a[j].blk + FZ_CANARY, F->a[j].bytes)))
                    fail(F, "in place differs from out of place");
            if (st2 != st) fail(F, "in place status differs");
        }
        for (k = 0; k < F->na; k++) free(save[k]);
    }
    free_all(F);
}

/* ---- The cases: each draws a shape, registers its arrays, sets the
   expected status, and says how to call. ---- */

/* gemm: C [M x N] (ldc) = alpha op(A) op(B) (+ bias[N]) + beta C. */
static repdl_status run_gemm(fz *F, int v)
{
    size_t *z = F->z;
    if (F->iv[2] == 1 && v == 0)
        return repdl_gemm_cr_f32(F->iv[0], F->iv[1], z[0], z[1], z[2], P_CF(0), z[3], P_CF(1), z[4],
                                 P_CF(2), P_F(3), z[5]);
    if (F->iv[2] == 1)
        return repdl_gemm_cr_threads_f32(F->iv[0], F->iv[1], z[0], z[1], z[2], v == 1 ? 2 : 3, P_CF(0),
                                         z[3], P_CF(1), z[4], P_CF(2), P_F(3), z[5]);
    if (F->iv[2] == 2)
        return repdl_gemm_cr_bf16(F->iv[0], F->iv[1], z[0], z[1], z[2], (const uint16_t *)F->a[0].p,
                                  z[3], (const uint16_t *)F->a[1].p, z[4], P_CF(2), P_F(3), z[5]);
    if (v == 0)
        return repdl_gemm_f32(F->iv[0], F->iv[1], z[0], z[1], z[2], F->f[0], F->f[1], P_CF(0), z[3],
                              P_CF(1), z[4], P_CF(2), P_F(3), z[5]);
    return repdl_gemm_threads_f32(F->iv[0], F->iv[1], z[0], z[1], z[2], v == 1 ? 2 : 3, F->f[0],
                                  F->f[1], P_CF(0), z[3], P_CF(1), z[4], P_CF(2), P_F(3), z[5]);
}
static void case_gemm(fz *F)
{
    size_t M = dim(F), N = dim(F), K = dim(F), *z = F->z;
    int tA = (int)(rnd(F) & 1), tB = (int)(rnd(F) & 1), inv = 0, empty = M == 0 || N == 0;
    z[0] = M; z[1] = N; z[2] = K;
    z[3] = ld(F, tA ? M : K); z[4] = ld(F, tB ? K : N); z[5] = ld(F, N);
    F->iv[0] = tA; F->iv[1] = tB;
    F->f[0] = rnd(F) % 4 ? 1.0f : value(F);
    F->f[1] = rnd(F) % 2 ? 0.0f : value(F);
    /* 0 gemm (alpha, beta), 1 gemm_cr_f32 and its threads form, 2
       gemm_cr_bf16: the same shapes and checks (gemm_cr.h); C is only
       written by gemm_cr */
    F->iv[2] = (int)rn(F, 3);
    F->name = F->iv[2] == 0 ? "gemm" : F->iv[2] == 1 ? "gemm_cr_f32" : "gemm_cr_bf16";
    F->run = run_gemm;
    F->threads = F->iv[2] != 2;
    arr(F, empty || K == 0 ? 0 : span(tA ? K : M, tA ? M : K, z[3]),
        F->iv[2] == 2 ? sizeof(uint16_t) : sizeof(float), FZ_IN);
    arr(F, empty || K == 0 ? 0 : span(tB ? N : K, tB ? K : N, z[4]),
        F->iv[2] == 2 ? sizeof(uint16_t) : sizeof(float), FZ_IN);
    ARR_F(empty ? 0 : N, FZ_IN);
    F->a[2].optional = 1;
    ARR_F(empty ? 0 : span(M, N, z[5]), F->iv[2] ? FZ_OUT : FZ_INOUT);
    if (!empty && z[5] < N) inv = 1;
    if (!empty && K && (z[3] < (tA ? M : K) || z[4] < (tB ? K : N))) inv = 1;
    /* gemm's documented extent of a matrix: its rows times its leading
       dimension (gemm.h, repdl__gemm_check) */
    if (!empty && (mul(M, z[5]) == FZ_HUGE ||
                   (K && (mul(tA ? K : M, z[3]) == FZ_HUGE || mul(tB ? N : K, z[4]) == FZ_HUGE))))
        inv = 1;
    F->expect = inv ? FZ_EXP_ERR : FZ_EXP_OK;
}

/* linear forward y [M x N] = x [M x K] W^T (+ b) and backward. */
static repdl_status run_linf(fz *F, int v)
{
    (void)v;
    return repdl_linear_forward_f32(F->z[0], F->z[1], F->z[2], P_CF(0), P_CF(1), P_CF(2), P_F(3));
}
static repdl_status run_linb(fz *F, int v)
{
    (void)v;
    return repdl_linear_backward_f32(F->z[0], F->z[1], F->z[2], P_CF(0), P_CF(1), P_CF(2), P_F(3),
                                     P_F(4), P_F(5));
}
static void case_linear(fz *F)
{
    size_t M = dim(F), K = dim(F), N = dim(F);
    F->z[0] = M; F->z[1] = K; F->z[2] = N;
    F->expect = FZ_EXP_OK;
    if (rnd(F) & 1) {
        F->name = "linear_forward";
        F->run = run_linf;
        ARR_F(M && N && K ? mul(M, K) : 0, FZ_IN);
        ARR_F(M && N && K ? mul(N, K) : 0, FZ_IN);
        ARR_F(M && N ? N : 0, FZ_IN);
        F->a[2].optional = 1;
        ARR_F(mul(M, N), FZ_OUT);
    } else {
        F->name = "linear_backward";
        F->run = run_linb;
        ARR_F(N && K ? mul(M, K) : 0, FZ_IN);                 /* x */
        ARR_F(M && K ? mul(N, K) : 0, FZ_IN);                 /* W */
        ARR_F(mul(M, N), FZ_IN);                              /* dy */
        ARR_F(mul(M, K), FZ_OUT);                             /* dx */
        ARR_F(mul(N, K), FZ_OUT);                             /* dW */
        ARR_F(N, FZ_OUT);                                     /* db */
        F->a[3].optional = F->a[4].optional = F->a[5].optional = 1;
        F->expect = FZ_EXP_ANY;   /* which inputs are needed depends on the outputs asked */
        if (mul(M, N) == FZ_HUGE || mul(M, K) == FZ_HUGE || mul(N, K) == FZ_HUGE) F->expect = FZ_EXP_ANY;
    }
}

/* conv2d forward and backward, plain and threaded. */
static repdl_status run_convf(fz *F, int v)
{
    repdl_conv2d_shape s;
    memcpy(&s, F->z, sizeof s);
    if (v == 0) return repdl_conv2d_forward_f32(&s, P_CF(0), P_CF(1), P_CF(2), P_F(3));
    return repdl_conv2d_forward_threads_f32(&s, v == 1 ? 2 : 3, P_CF(0), P_CF(1), P_CF(2), P_F(3));
}
static repdl_status run_convb(fz *F, int v)
{
    repdl_conv2d_shape s;
    memcpy(&s, F->z, sizeof s);
    if (v == 0)
        return repdl_conv2d_backward_f32(&s, P_CF(0), P_CF(1), P_CF(2), P_F(3), P_F(4), P_F(5));
    return repdl_conv2d_backward_threads_f32(&s, v == 1 ? 2 : 3, P_CF(0), P_CF(1), P_CF(2), P_F(3),
                                             P_F(4), P_F(5));
}
/* oh of a convolution: (h + 2 pad - dil (k - 1) - 1) / stride + 1, 0 when
   it does not reach; FZ_HUGE when a term does not fit. */
static size_t conv_out(size_t h, size_t k, size_t st, size_t pad, size_t dil, int *bad)
{
    size_t room = add(h, mul(pad, 2)), reach;
    if (k == 0 || st == 0 || dil == 0) { *bad = 1; return 0; }
    reach = add(mul(dil, k - 1), 1);
    if (room == FZ_HUGE || reach == FZ_HUGE) { *bad = 2; return 0; }
    return room < reach ? 0 : (room - reach) / st + 1;
}
static void case_conv(fz *F)
{
    repdl_conv2d_shape s;
    size_t oh, ow, in_sz, out_sz, w_sz;
    int bad = 0;
    s.n = rn(F, 3); s.c = dim(F) % 4; s.h = dim(F); s.w = dim(F);
    s.oc = dim(F) % 5; s.kh = 1 + rn(F, 3); s.kw = 1 + rn(F, 3);
    if (rnd(F) % 8 == 0) s.kh = dim(F);
    s.stride_h = step(F, 1); s.stride_w = step(F, 1);
    s.pad_h = rn(F, 3); s.pad_w = rn(F, 3);
    if (rnd(F) % 10 == 0) s.pad_w = step(F, 1);
    s.dil_h = step(F, 1) % 4; s.dil_w = 1 + rn(F, 2);
    if (rnd(F) % 12 == 0) s.dil_h = FZ_HUGE;
    oh = conv_out(s.h, s.kh, s.stride_h, s.pad_h, s.dil_h, &bad);
    ow = conv_out(s.w, s.kw, s.stride_w, s.pad_w, s.dil_w, &bad);
    memcpy(F->z, &s, sizeof s);
    in_sz = mul(mul(mul(s.n, s.c), s.h), s.w);
    out_sz = mul(mul(mul(s.n, s.oc), oh), ow);
    w_sz = mul(mul(mul(s.oc, s.c), s.kh), s.kw);
    F->threads = 1;
    F->expect = bad == 1 ? FZ_EXP_INV : bad == 2 ? FZ_EXP_ERR : FZ_EXP_ANY;
    if (rnd(F) & 1) {
        F->name = "conv2d_forward";
        F->run = run_convf;
        ARR_F(in_sz, FZ_IN);
        ARR_F(w_sz, FZ_IN);
        ARR_F(s.oc, FZ_IN);
        F->a[2].optional = 1;
        ARR_F(out_sz, FZ_OUT);
    } else {
        F->name = "conv2d_backward";
        F->run = run_convb;
        ARR_F(in_sz, FZ_IN);
        ARR_F(w_sz, FZ_IN);
        ARR_F(out_sz, FZ_IN);
        ARR_F(in_sz, FZ_OUT);
        ARR_F(w_sz, FZ_OUT);
        ARR_F(s.oc, FZ_OUT);
        F->a[3].optional = F->a[4].optional = F->a[5].optional = 1;
    }
    if (bad) {   /* the arrays are not looked at: small dummies */
        int k;
        for (k = 0; k < F->na; k++)
            if (F->a[k].n != FZ_HUGE && F->a[k].n > 64) F->a[k].n = 64;
    }
}

static void pool_fix_argmax(fz *F);
static void loss_fix_targets(fz *F);

/* The four pooling functions. */
static repdl_status run_pool(fz *F, int v)
{
    repdl_pool2d_shape s;
    (void)v;
    memcpy(&s, F->z, sizeof s);
    switch (F->iv[0]) {
    case 0: return repdl_max_pool2d_forward_f32(&s, P_CF(0), P_F(1), (size_t *)F->a[2].p);
    case 1: return repdl_max_pool2d_backward_f32(&s, (const size_t *)F->a[0].p, P_CF(1), P_F(2));
    case 2: return repdl_avg_pool2d_forward_f32(&s, F->iv[1], P_CF(0), P_F(1));
    default: return repdl_avg_pool2d_backward_f32(&s, F->iv[1], P_CF(0), P_F(1));
    }
}
static size_t pool_out(size_t h, size_t k, size_t st, size_t pad, int *bad)
{
    size_t room = add(h, mul(pad, 2));
    if (k == 0 || st == 0) { *bad |= 1; return 0; }
    if (room == FZ_HUGE) { *bad |= 2; return 0; }
    return room < k ? 0 : (room - k) / st + 1;
}
static void case_pool(fz *F)
{
    repdl_pool2d_shape s;
    size_t oh, ow, in_sz, out_sz, i;
    int bad = 0, which = (int)rn(F, 4);
    static const char *names[] = {"max_pool2d_forward", "max_pool2d_backward", "avg_pool2d_forward",
                                  "avg_pool2d_backward"};
    s.n = rn(F, 3); s.c = dim(F) % 4; s.h = dim(F); s.w = dim(F);
    s.kh = dim(F) % 5; s.kw = dim(F) % 5;
    if (rnd(F) % 10 == 0) s.kw = dim(F);
    s.stride_h = step(F, 1); s.stride_w = step(F, 1);
    s.pad_h = rn(F, 4); s.pad_w = rn(F, 4);
    if (rnd(F) % 6 == 0) s.pad_w = step(F, 1);
    if (rnd(F) % 6 == 0) s.pad_h = step(F, 1);
    oh = pool_out(s.h, s.kh, s.stride_h, s.pad_h, &bad);
    ow = pool_out(s.w, s.kw, s.stride_w, s.pad_w, &bad);
    if (mul(s.kh, s.kw) == FZ_HUGE) bad |= 2;
    memcpy(F->z, &s, sizeof s);
    in_sz = mul(mul(mul(s.n, s.c), s.h), s.w);
    out_sz = mul(mul(mul(s.n, s.c), oh), ow);
    F->iv[0] = which;
    F->iv[1] = (int)(rnd(F) & 1);
    F->name = names[which];
    F->run = run_pool;
    F->fix = pool_fix_argmax;
    F->expect = bad & 1 ? FZ_EXP_INV : bad ? FZ_EXP_ERR : FZ_EXP_OK;
    if (in_sz == FZ_HUGE || out_sz == FZ_HUGE) F->expect = bad & 1 ? FZ_EXP_INV : FZ_EXP_ERR;
    switch (which) {
    case 0: ARR_F(in_sz, FZ_IN); ARR_F(out_sz, FZ_OUT); arr(F, out_sz, sizeof(size_t), FZ_OUT);
        F->a[2].optional = 1; break;
    case 1: arr(F, out_sz, sizeof(size_t), FZ_IN); ARR_F(out_sz, FZ_IN); ARR_F(in_sz, FZ_OUT); break;
    case 2: ARR_F(in_sz, FZ_IN); ARR_F(out_sz, FZ_OUT); break;
    default: ARR_F(out_sz, FZ_IN); ARR_F(in_sz, FZ_OUT); break;
    }
    if (bad)
        for (i = 0; i < (size_t)F->na; i++)
            if (F->a[i].n != FZ_HUGE && F->a[i].n > 64) F->a[i].n = 64;
}
/* max_pool2d_backward's argmax: indices near the plane's, NO_INDEX. */
static void pool_fix_argmax(fz *F)
{
    size_t i, n;
    if (F->iv[0] != 1 || !F->a[0].blk || F->a[0].n == FZ_HUGE) return;
    n = F->a[0].n;
    for (i = 0; i < n; i++) {
        size_t v = rnd(F) % 4 == 0 ? REPDL_NO_INDEX : rn(F, 40);
        memcpy(F->a[0].blk + FZ_CANARY + i * sizeof(size_t), &v, sizeof v);
    }
}

/* softmax, log_softmax and their backward passes; y may be x. */
static repdl_status run_smax(fz *F, int v)
{
    (void)v;
    switch (F->iv[0]) {
    case 0: return repdl_softmax_f32(F->z[0], F->z[1], P_CF(0), P_F(1));
    case 1: return repdl_log_softmax_f32(F->z[0], F->z[1], P_CF(0), P_F(1));
    case 2: return repdl_softmax_backward_f32(F->z[0], F->z[1], P_CF(0), P_CF(1), P_F(2));
    default: return repdl_log_softmax_backward_f32(F->z[0], F->z[1], P_CF(0), P_CF(1), P_F(2));
    }
}
static void case_softmax(fz *F)
{
    size_t rows = dim(F), cols = dim(F), t = mul(rows, cols);
    F->z[0] = rows; F->z[1] = cols;
    F->iv[0] = (int)rn(F, 4);
    F->name = F->iv[0] == 0 ? "softmax" : F->iv[0] == 1 ? "log_softmax" : F->iv[0] == 2 ? "softmax_backward"
                                                                                       : "log_softmax_backward";
    F->run = run_smax;
    F->expect = t == FZ_HUGE ? FZ_EXP_ERR : FZ_EXP_OK;
    ARR_F(t, FZ_IN);
    if (F->iv[0] >= 2) ARR_F(t, FZ_IN);
    ARR_F(t, FZ_OUT);
    if (F->iv[0] < 2) F->a[1].alias = 0;
}

/* cross_entropy and nll_loss: targets of every kind, any reduction. */
static repdl_status run_loss(fz *F, int v)
{
    (void)v;
    if (F->iv[0] == 0)
        return repdl_cross_entropy_f32(F->z[0], F->z[1], F->iv[1], P_CF(0), (const size_t *)F->a[1].p,
                                       P_F(2), P_F(3));
    return repdl_nll_loss_f32(F->z[0], F->z[1], F->iv[1], P_CF(0), (const size_t *)F->a[1].p, P_F(2),
                              P_F(3));
}
static void case_loss(fz *F)
{
    size_t rows = dim(F), cols = dim(F), t = mul(rows, cols);
    F->z[0] = rows; F->z[1] = cols;
    F->iv[0] = (int)(rnd(F) & 1);
    F->iv[1] = rnd(F) % 8 == 0 ? 2 + (int)rn(F, 3) : (int)(rnd(F) & 1);
    F->name = F->iv[0] ? "nll_loss" : "cross_entropy";
    F->run = run_loss;
    F->fix = loss_fix_targets;
    F->expect = F->iv[1] > 1 ? FZ_EXP_INV : t == FZ_HUGE ? FZ_EXP_ERR : FZ_EXP_OK;
    ARR_F(t, FZ_IN);
    arr(F, rows, sizeof(size_t), FZ_IN);
    ARR_F(1, FZ_OUT);
    ARR_F(t, FZ_OUT);
    F->a[3].optional = 1;
    F->a[3].alias = 0;
    if (F->iv[0]) F->a[3].alias = -1;   /* nll: dlogp must not be logp (not documented) */
}
static void loss_fix_targets(fz *F)
{
    size_t i, n;
    if (F->run != run_loss || !F->a[1].blk || F->a[1].n == FZ_HUGE) return;
    n = F->a[1].n;
    for (i = 0; i < n; i++) {
        size_t v = rnd(F) % 6 == 0 ? (rnd(F) & 1 ? REPDL_NO_INDEX : F->z[1]) : rn(F, F->z[1]);
        memcpy(F->a[1].blk + FZ_CANARY + i * sizeof(size_t), &v, sizeof v);
    }
}

/* layer, RMS and batch norm, forward and backward. */
static repdl_status run_norm(fz *F, int v)
{
    size_t *z = F->z;
    (void)v;
    switch (F->iv[0]) {
    case 0: return repdl_layer_norm_forward_f32(z[0], z[1], F->f[0], P_CF(0), P_CF(1), P_CF(2), P_F(3),
                                                P_F(4), P_F(5));
    case 1: return repdl_layer_norm_backward_f32(z[0], z[1], P_CF(0), P_CF(1), P_CF(2), P_CF(3), P_CF(4),
                                                 P_F(5), P_F(6), P_F(7));
    case 2: return repdl_rms_norm_forward_f32(z[0], z[1], F->f[0], P_CF(0), P_CF(1), P_F(2), P_F(3));
    case 3: return repdl_rms_norm_backward_f32(z[0], z[1], P_CF(0), P_CF(1), P_CF(2), P_CF(3), P_F(4),
                                               P_F(5));
    case 4: return repdl_batch_norm_forward_train_f32(z[0], z[1], z[2], F->f[0], F->f[1], P_CF(0), P_CF(1),
                                                      P_CF(2), P_F(3), P_F(4), P_F(5), P_F(6), P_F(7));
    case 5: return repdl_batch_norm_forward_infer_f32(z[0], z[1], z[2], F->f[0], P_CF(0), P_CF(1), P_CF(2),
                                                      P_CF(3), P_CF(4), P_F(5));
    default: return repdl_batch_norm_backward_f32(z[0], z[1], z[2], P_CF(0), P_CF(1), P_CF(2), P_CF(3),
                                                  P_CF(4), P_F(5), P_F(6), P_F(7));
    }
}
static void case_norm(fz *F)
{
    static const char *names[] = {"layer_norm_forward", "layer_norm_backward", "rms_norm_forward",
                                  "rms_norm_backward", "batch_norm_forward_train",
                                  "batch_norm_forward_infer", "batch_norm_backward"};
    size_t rows = dim(F), cols = dim(F), hw = dim(F), t;
    int w = (int)rn(F, 7);
    F->z[0] = rows; F->z[1] = cols; F->z[2] = hw;
    F->f[0] = 1e-5f; F->f[1] = 0.1f;
    F->iv[0] = w;
    F->name = names[w];
    F->run = run_norm;
    t = w >= 4 ? mul(mul(rows, cols), hw) : mul(rows, cols);
    F->expect = t == FZ_HUGE ? FZ_EXP_ERR : FZ_EXP_ANY;
    if (cols == FZ_HUGE || (w < 4 && rows == FZ_HUGE)) F->expect = FZ_EXP_ERR;
    /* no element (t = 0) with a huge n: batch norm returns at once (its
       backward does not walk n empty micro-batches), so nothing is skipped */
    switch (w) {
    case 0: ARR_F(t, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(t, FZ_OUT); ARR_F(rows, FZ_OUT);
        ARR_F(rows, FZ_OUT);
        F->a[1].optional = F->a[2].optional = F->a[4].optional = F->a[5].optional = 1;
        F->a[3].alias = 0;
        break;
    case 1: ARR_F(t, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(rows, FZ_IN); ARR_F(rows, FZ_IN); ARR_F(t, FZ_IN);
        ARR_F(t, FZ_OUT); ARR_F(cols, FZ_OUT); ARR_F(cols, FZ_OUT);
        F->a[1].optional = F->a[5].optional = F->a[6].optional = F->a[7].optional = 1;
        break;
    case 2: ARR_F(t, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(t, FZ_OUT); ARR_F(rows, FZ_OUT);
        F->a[1].optional = F->a[3].optional = 1;
        F->a[2].alias = 0;
        break;
    case 3: ARR_F(t, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(rows, FZ_IN); ARR_F(t, FZ_IN); ARR_F(t, FZ_OUT);
        ARR_F(cols, FZ_OUT);
        F->a[1].optional = F->a[4].optional = F->a[5].optional = 1;
        break;
    case 4: ARR_F(t, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(cols, FZ_INOUT); ARR_F(cols, FZ_INOUT);
        ARR_F(t, FZ_OUT); ARR_F(cols, FZ_OUT); ARR_F(cols, FZ_OUT);
        F->a[1].optional = F->a[2].optional = F->a[3].optional = F->a[4].optional = 1;
        F->a[6].optional = F->a[7].optional = 1;
        break;
    case 5: ARR_F(t, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(cols, FZ_IN);
        ARR_F(t, FZ_OUT);
        F->a[1].optional = F->a[2].optional = 1;
        break;
    default: ARR_F(t, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(cols, FZ_IN); ARR_F(t, FZ_IN);
        ARR_F(t, FZ_OUT); ARR_F(cols, FZ_OUT); ARR_F(cols, FZ_OUT);
        F->a[1].optional = F->a[5].optional = F->a[6].optional = F->a[7].optional = 1;
        break;
    }
}

/* Row reductions with a leading dimension. */
static repdl_status run_rows(fz *F, int v)
{
    size_t *z = F->z;
    (void)v;
    switch (F->iv[0]) {
    case 0: return repdl_sum_rows_f32(z[0], z[1], P_CF(0), z[2], P_F(1));
    case 1: return repdl_dot_rows_f32(z[0], z[1], P_CF(0), z[2], P_CF(2), z[3], P_F(1));
    case 2: return repdl_sumsq_rows_f32(z[0], z[1], P_CF(0), z[2], P_F(1));
    case 3: return repdl_norm2_rows_f32(z[0], z[1], P_CF(0), z[2], P_F(1));
    case 4: return repdl_mean_rows_f32(z[0], z[1], P_CF(0), z[2], P_F(1));
    case 5: return repdl_var_rows_f32(z[0], z[1], z[4], P_CF(0), z[2], P_F(1));
    case 6: return repdl_max_rows_f32(z[0], z[1], P_CF(0), z[2], P_F(1));
    case 7: return repdl_min_rows_f32(z[0], z[1], P_CF(0), z[2], P_F(1));
    case 8: return repdl_argmax_rows_f32(z[0], z[1], P_CF(0), z[2], (size_t *)F->a[1].p);
    default: return repdl_argmin_rows_f32(z[0], z[1], P_CF(0), z[2], (size_t *)F->a[1].p);
    }
}
static void case_rows(fz *F)
{
    static const char *names[] = {"sum_rows", "dot_rows", "sumsq_rows", "norm2_rows", "mean_rows",
                                  "var_rows", "max_rows", "min_rows", "argmax_rows", "argmin_rows"};
    size_t rows = dim(F), n = dim(F);
    int w = (int)rn(F, 10), inv;
    F->z[0] = rows; F->z[1] = n; F->z[2] = ld(F, n); F->z[3] = ld(F, n); F->z[4] = rn(F, 3);
    F->iv[0] = w;
    F->name = names[w];
    F->run = run_rows;
    inv = 0;   /* rows may overlap: ldx < n is allowed (reduce.h) */
    F->expect = FZ_EXP_ANY;
    ARR_F(span(rows, n, F->z[2]), FZ_IN);
    arr(F, rows, w >= 8 ? sizeof(size_t) : sizeof(float), FZ_OUT);
    if (w == 1) ARR_F(span(rows, n, F->z[3]), FZ_IN);
    if (!inv && span(rows, n, F->z[2]) != FZ_HUGE && (w != 1 || span(rows, n, F->z[3]) != FZ_HUGE))
        F->expect = FZ_EXP_OK;
}

/* rng fills (ranges at any first), dropout, permutation.  A NULL array
   of nonzero extent is REPDL_ERR_INVALID (dropout's forward mask is
   optional); n is never huge: these take a count, not a shape, and a
   count that fits is valid (the dummy array of a huge one would be
   written). */
static repdl_status run_rng(fz *F, int v)
{
    size_t *z = F->z;
    (void)v;
    switch (F->iv[0]) {
    case 0: return repdl_rng_uniform_fill_range_f32(z[0], z[1], z[2], z[3], -1.0f, 2.0f, P_F(0));
    case 1: return repdl_rng_normal_fill_range_f32(z[0], z[1], z[2], z[3], 0.5f, 2.0f, P_F(0));
    case 2: return repdl_rng_uniform_fill_f32(z[0], z[1], z[2], 0.0f, 1.0f, P_F(0));
    case 3: return repdl_rng_normal_fill_f32(z[0], z[1], z[2], 0.0f, 1.0f, P_F(0));
    case 4:
        return repdl_dropout_forward_range_f32(z[0], F->f[0], z[1], z[2], z[3], P_CF(1), P_F(0),
                                               (uint8_t *)F->a[2].p);
    case 5:
        return repdl_dropout_backward_f32(z[0], F->f[0], (const uint8_t *)F->a[2].p, P_CF(1), P_F(0));
    default:
        return repdl_rng_permutation(z[0], z[1], z[2], (uint32_t *)F->a[0].p);
    }
}
static void case_rng(fz *F)
{
    static const char *names[] = {"rng_uniform_fill_range", "rng_normal_fill_range", "rng_uniform_fill",
                                  "rng_normal_fill", "dropout_forward_range", "dropout_backward",
                                  "rng_permutation"};
    size_t n = dim(F);
    int w = (int)rn(F, 7);
    if (n == FZ_HUGE || n > ((size_t)1 << 30)) n = rn(F, 50);   /* a count: no huge n */
    F->z[0] = n; F->z[1] = rnd(F); F->z[2] = rnd(F) % 4 ? rn(F, 100) : rnd(F);
    F->z[3] = rnd(F) % 3 ? rn(F, 100) : FZ_HUGE - rn(F, 8);
    F->f[0] = rnd(F) % 4 == 0 ? value(F) : 0.25f;
    F->iv[0] = w;
    F->name = names[w];
    F->run = run_rng;
    F->expect = FZ_EXP_OK;
    if (w == 6) arr(F, n, sizeof(uint32_t), FZ_OUT);
    else ARR_F(n, FZ_OUT);
    if (w == 4 || w == 5) {
        ARR_F(n, FZ_IN);
        arr(F, n, 1, w == 4 ? FZ_OUT : FZ_IN);
        if (w == 4) F->a[2].optional = 1;
        F->a[0].alias = 1;
    }
}

/* sgd and adam steps (w, momentum / m, v in place); a NULL array of
   nonzero extent is REPDL_ERR_INVALID (sgd's momentum buffer is
   optional); n is a count, never huge (as the rng fills). */
static repdl_status run_optim(fz *F, int v)
{
    (void)v;
    if (F->iv[0] == 0) {
        repdl_sgd_config c;
        c.lr = 0.1f; c.momentum = F->f[0]; c.dampening = 0.0f; c.weight_decay = F->f[1];
        c.nesterov = F->iv[1];
        return repdl_sgd_step_f32(F->z[0], &c, F->z[1], P_CF(0), P_F(1), P_F(2));
    } else {
        repdl_adam_config c;
        repdl_adam_state s;
        repdl_status st;
        c.lr = 1e-3f; c.beta1 = 0.9f; c.beta2 = 0.999f; c.eps = 1e-8f; c.weight_decay = F->f[1];
        c.decoupled = F->iv[1];
        repdl_adam_state_init(&s);
        st = repdl_adam_begin_step(&s, &c);
        if (st != REPDL_OK) return st;
        return repdl_adam_step_f32(F->z[0], &c, &s, P_CF(0), P_F(1), P_F(2), P_F(3));
    }
}
static void case_optim(fz *F)
{
    size_t n = dim(F);
    if (n > 4096) n = rn(F, 50);
    F->z[0] = n; F->z[1] = rn(F, 3);
    F->f[0] = rnd(F) & 1 ? 0.9f : 0.0f;
    F->f[1] = rnd(F) & 1 ? 0.01f : 0.0f;
    F->iv[0] = (int)(rnd(F) & 1);
    F->iv[1] = (int)(rnd(F) & 1) && F->f[0] != 0.0f;
    F->name = F->iv[0] ? "adam_step" : "sgd_step";
    F->run = run_optim;
    F->expect = FZ_EXP_OK;
    ARR_F(n, FZ_IN);
    ARR_F(n, FZ_INOUT);
    ARR_F(n, FZ_INOUT);
    if (F->iv[0]) ARR_F(n, FZ_INOUT);
    if (F->iv[0] == 0) F->a[2].optional = 1;   /* sgd: no momentum buffer */
}

/* reduce_units.h: the state, the nodes of a range, the combine. */
static repdl_status run_units(fz *F, int v)
{
    size_t *z = F->z;
    (void)v;
    if (F->iv[0] == 0) return repdl_units_nodes_f32(z[0], z[1], z[2], z[3], P_CF(0), z[4], P_F(1));
    if (F->iv[0] == 1) {
        repdl_units_state s;
        size_t u;
        repdl_status st = repdl_units_state_init(&s, z[0], z[1], z[2], z[3], P_F(1));
        if (st != REPDL_OK) return st;   /* nothing allocated */
        for (u = z[1]; u < z[2] && st == REPDL_OK; u++)
            st = repdl_units_state_push(&s, z[3] ? P_CF(0) + (u - z[1]) * z[4] : P_CF(0));
        repdl_units_state_free(&s);
        return st;
    } else {
        size_t bounds[3];
        const float *nodes[2];
        bounds[0] = 0; bounds[1] = z[1]; bounds[2] = z[0];
        nodes[0] = P_CF(0); nodes[1] = P_CF(2);
        return repdl_units_combine_f32(z[0], 2, bounds, z[3], nodes, P_F(1));
    }
}
static void case_units(fz *F)
{
    size_t U = rnd(F) % 10 == 0 ? (rnd(F) & 1 ? REPDL_UNITS_MAX + 1 : REPDL_UNITS_MAX) : rn(F, 40);
    size_t u0 = rn(F, U + 1), u1 = u0 + rn(F, U - u0 + 1), V = dim(F) % 9, N, ldu;
    int w = (int)rn(F, 3);
    if (rnd(F) % 8 == 0) V = dim(F);
    if (rnd(F) % 10 == 0) u1 = U + 1;   /* past the end */
    ldu = ld(F, V);
    F->z[0] = U; F->z[1] = u0; F->z[2] = u1; F->z[3] = V; F->z[4] = ldu;
    F->iv[0] = w;
    F->run = run_units;
    N = repdl_units_nodes(U, u0, u1, 0, NULL);
    if (w == 0) {
        int inv = U > REPDL_UNITS_MAX || u1 > U || (u0 < u1 && V && ldu < V);
        F->name = "units_nodes_f32";
        ARR_F(u0 < u1 && V ? span(u1 - u0, V, ldu) : 0, FZ_IN);
        ARR_F(mul(N, V), FZ_OUT);
        F->expect = inv ? FZ_EXP_ERR : FZ_EXP_OK;
        /* one step per unit: a range too long to run whose extent fits is skipped */
        if (!inv && u1 - u0 > 4096 && F->a[0].n != FZ_HUGE) F->a[0].n = FZ_CAP;
        if (inv) {
            int k;
            for (k = 0; k < F->na; k++)
                if (F->a[k].n > 64 && F->a[k].n != FZ_HUGE) F->a[k].n = 64;
        }
    } else if (w == 1) {
        int inv = U > REPDL_UNITS_MAX || u1 > U || (u0 < u1 && V && ldu < V);
        F->name = "units_state";
        ldu = F->z[4] = V;   /* the state has no leading dimension: the harness's own */
        inv = U > REPDL_UNITS_MAX || u1 > U;
        ARR_F(u0 < u1 && V ? span(u1 - u0, V, ldu) : 0, FZ_IN);
        ARR_F(mul(N, V), FZ_OUT);
        F->a[0].optional = 2;   /* a NULL unit is refused per push, after earlier nodes were written */
        F->expect = inv ? FZ_EXP_ERR : FZ_EXP_OK;
        /* the caller pushes every unit: a range too long to push is skipped */
        if (!inv && u1 - u0 > 4096) F->a[0].n = FZ_CAP;
        if (inv) {
            int k;
            for (k = 0; k < F->na; k++)
                if (F->a[k].n > 64 && F->a[k].n != FZ_HUGE) F->a[k].n = 64;
        }
    } else {
        size_t b = U <= REPDL_UNITS_MAX ? rn(F, U + 1) : 0;
        size_t N0 = repdl_units_nodes(U, 0, b, 0, NULL), N1 = repdl_units_nodes(U, b, U, 0, NULL);
        F->z[1] = b;
        F->name = "units_combine_f32";
        ARR_F(mul(N0, V), FZ_IN);
        ARR_F(V, FZ_OUT);
        ARR_F(mul(N1, V), FZ_IN);
        F->expect = U > REPDL_UNITS_MAX ? FZ_EXP_ERR : FZ_EXP_OK;
        if (U > REPDL_UNITS_MAX) {
            int k;
            for (k = 0; k < F->na; k++)
                if (F->a[k].n > 64 && F->a[k].n != FZ_HUGE) F->a[k].n = 64;
        }
    }
}

/* The elementwise array forms (every row of op_table.h: binary32, and
   bf16 / f16 where the row has them), the backward arrays, and
   backward.h's row backward passes (dense rows: sum, mean, var with ddof,
   norm2).  The array forms take a count, never huge (as the rng fills);
   in place where the headers allow it (out == x; dx == a or dy). */
typedef repdl_status (*fz_map_fn)(size_t, const float *, float *);
typedef repdl_status (*fz_map16_fn)(size_t, const uint16_t *, uint16_t *);
typedef repdl_status (*fz_bwd_fn)(size_t, const float *, const float *, float *);
#define FZ_MAP(name) repdl_##name##_array_f32,
#define FZ_MAP16(name) repdl_##name##_array_bf16, repdl_##name##_array_f16,
#define FZ_BWD(name, reads_y) repdl_##name##_backward_array_f32,
static const fz_map_fn fz_maps[] = {REPDL_ELEMENTWISE_OPS(FZ_MAP)};
static const fz_map16_fn fz_maps16[] = {REPDL_ELEMENTWISE_HALF(FZ_MAP16)};
static const fz_bwd_fn fz_bwds[] = {REPDL_ELEMENTWISE_BACKWARD(FZ_BWD)};
#undef FZ_MAP
#undef FZ_MAP16
#undef FZ_BWD
#define FZ_COUNT(t) (sizeof t / sizeof t[0])

static repdl_status run_ew(fz *F, int v)
{
    size_t *z = F->z;
    (void)v;
    switch (F->iv[0]) {
    case 0: return fz_maps[F->iv[1]](z[0], P_CF(0), P_F(1));
    case 1: return fz_maps16[F->iv[1]](z[0], (const uint16_t *)F->a[0].p, (uint16_t *)F->a[1].p);
    case 2: return fz_bwds[F->iv[1]](z[0], P_CF(0), P_CF(1), P_F(2));
    case 3: return repdl_sum_rows_backward_f32(z[0], z[1], P_CF(0), P_F(1));
    case 4: return repdl_mean_rows_backward_f32(z[0], z[1], P_CF(0), P_F(1));
    case 5: return repdl_var_rows_backward_f32(z[0], z[1], z[2], P_CF(0), P_CF(1), P_F(2));
    default: return repdl_norm2_rows_backward_f32(z[0], z[1], P_CF(0), P_CF(1), P_CF(2), P_F(3));
    }
}
static void case_ew(fz *F)
{
    static const char *names[] = {"elementwise _array_f32", "elementwise _array_bf16/_f16",
                                  "backward_array_f32", "sum_rows_backward", "mean_rows_backward",
                                  "var_rows_backward", "norm2_rows_backward"};
    size_t rows = dim(F), n = dim(F), t = mul(rows, n);
    int w = (int)rn(F, 7);
    F->iv[0] = w;
    F->name = names[w];
    F->run = run_ew;
    F->expect = FZ_EXP_OK;
    if (w <= 2 && (rows == FZ_HUGE || rows > ((size_t)1 << 30))) rows = rn(F, 50);
    F->z[0] = rows; F->z[1] = n; F->z[2] = rn(F, 4);
    switch (w) {
    case 0:
        F->iv[1] = (int)rn(F, FZ_COUNT(fz_maps));
        ARR_F(rows, FZ_IN); ARR_F(rows, FZ_OUT);
        F->a[1].alias = 0;
        break;
    case 1:
        F->iv[1] = (int)rn(F, FZ_COUNT(fz_maps16));
        arr(F, rows, 2, FZ_IN); arr(F, rows, 2, FZ_OUT);
        F->a[1].alias = 0;
        break;
    case 2:
        F->iv[1] = (int)rn(F, FZ_COUNT(fz_bwds));
        ARR_F(rows, FZ_IN); ARR_F(rows, FZ_IN); ARR_F(rows, FZ_OUT);
        F->a[2].alias = (int)rn(F, 2);
        break;
    case 3: case 4: ARR_F(rows, FZ_IN); ARR_F(t, FZ_OUT); break;
    case 5: ARR_F(t, FZ_IN); ARR_F(rows, FZ_IN); ARR_F(t, FZ_OUT); break;
    default: ARR_F(t, FZ_IN); ARR_F(rows, FZ_IN); ARR_F(rows, FZ_IN); ARR_F(t, FZ_OUT); break;
    }
    if (w >= 3 && t == 0) {   /* no element: nothing read, any array may be NULL (backward.h) */
        int k;
        for (k = 0; k < F->na; k++) F->a[k].optional = 1;
    }
}

/* embedding forward out [n x dim] = table [vocab x dim] rows at ids [n],
   and backward dtable [vocab x dim] from dout [n x dim]; one call in 4
   plants an id outside [0, vocab) (REPDL_ERR_INVALID, nothing written). */
static repdl_status run_emb(fz *F, int v)
{
    size_t *z = F->z;
    (void)v;
    if (F->iv[0] == 0)
        return repdl_embedding_forward_f32(P_CF(0), z[0], z[1], (const int64_t *)F->a[1].p, z[2], P_F(2));
    return repdl_embedding_backward_f32(P_CF(0), (const int64_t *)F->a[1].p, z[2], z[0], z[1], P_F(2));
}
static void emb_fix_ids(fz *F)
{
    size_t i, n;
    if (F->run != run_emb || !F->a[1].blk) return;
    n = F->a[1].n == FZ_HUGE ? 1 : F->a[1].n;   /* the dummy of an extent that
                                                  does not fit: a valid id */
    for (i = 0; i < n; i++) {
        int64_t id = (int64_t)rn(F, F->z[0]);
        if (F->iv[1] && i == F->z[3]) id = F->iv[2] ? -1 - (int64_t)rn(F, 3) : (int64_t)F->z[0];
        memcpy(F->a[1].blk + FZ_CANARY + i * sizeof(int64_t), &id, sizeof id);
    }
}
static void case_embedding(fz *F)
{
    size_t vocab = dim(F), d = dim(F), n = dim(F), *z = F->z;
    size_t tt = mul(vocab, d), tn = mul(n, d);
    int bad;
    if (vocab == FZ_HUGE || vocab > 64) vocab = 1 + rn(F, 64);   /* ids are drawn below vocab */
    tt = mul(vocab, d);
    z[0] = vocab; z[1] = d; z[2] = n;
    F->iv[0] = (int)(rnd(F) & 1);
    F->name = F->iv[0] ? "embedding_backward" : "embedding_forward";
    F->run = run_emb;
    F->fix = emb_fix_ids;
    /* an ids array that cannot be allocated (n huge) holds no planted id */
    bad = n > 0 && mul(n, 2) != FZ_HUGE && rnd(F) % 4 == 0;
    F->iv[1] = bad;
    F->iv[2] = (int)(rnd(F) & 1);
    z[3] = bad ? rn(F, n) : 0;
    if (bad && vocab == 0) F->iv[2] = 1;   /* id 0 is already out of [0, 0) */
    ARR_F(F->iv[0] ? tn : tt, FZ_IN);
    arr(F, mul(n, 2) == FZ_HUGE ? FZ_HUGE : n, sizeof(int64_t), FZ_IN);
    ARR_F(F->iv[0] ? tt : tn, FZ_OUT);
    /* embedding.h checks the sizes before any array or id */
    if (tt == FZ_HUGE || tn == FZ_HUGE || mul(n, 2) == FZ_HUGE) F->expect = FZ_EXP_OVF;
    else if (bad || (n > 0 && vocab == 0)) F->expect = FZ_EXP_INV;
    else F->expect = FZ_EXP_OK;
}

/* Prefix products as config.h's repdl__size_mul takes them: 1 when
   a[0] a[1] ... a[k] exceeds size_t bytes of floats for some k, even when
   a later factor is 0 (then the call may refuse or run: FZ_EXP_ANY). */
static int prefix_ovf(const size_t *a, int n)
{
    size_t t = a[0];
    int k;
    for (k = 1; k < n; k++) {
        if (a[k] != 0 && t > FZ_LIM / a[k]) return 1;
        t *= a[k];
    }
    return 0;
}
/* The expectation of a call whose sizes checks come after its parameter
   checks: inv (INVALID), else a full product that does not fit (OVERFLOW),
   else a prefix that does not fit (either), else OK. */
static int size_expect(int inv, int full_huge, int prefix)
{
    if (inv) return FZ_EXP_INV;
    if (full_huge) return FZ_EXP_OVF;
    return prefix ? FZ_EXP_ANY : FZ_EXP_OK;
}

/* mse_loss forward and backward (mse_loss.h: n's bytes checked first, then
   the reduction, then the arrays; dx may be x or t). */
static repdl_status run_mse(fz *F, int v)
{
    (void)v;
    if (F->iv[0])
        return repdl_mse_loss_backward_f32(F->z[0], F->iv[1], P_CF(0), P_CF(1), F->f[0], P_F(2));
    return repdl_mse_loss_forward_f32(F->z[0], F->iv[1], P_CF(0), P_CF(1), P_F(2));
}
static void case_mse(fz *F)
{
    size_t n = dim(F), ext = n > FZ_LIM ? FZ_HUGE : n;
    F->z[0] = n;
    F->iv[0] = (int)(rnd(F) & 1);
    F->iv[1] = rnd(F) % 8 == 0 ? 2 + (int)rn(F, 3) : (int)(rnd(F) & 1);
    F->f[0] = rnd(F) % 4 ? 1.0f : value(F);
    F->name = F->iv[0] ? "mse_loss_backward" : "mse_loss_forward";
    F->run = run_mse;
    ARR_F(ext, FZ_IN);
    ARR_F(ext, FZ_IN);
    if (F->iv[0]) {
        ARR_F(ext, FZ_OUT);
        F->a[2].alias = (int)(rnd(F) & 1);
    } else {
        ARR_F(1, FZ_OUT);   /* the loss: always written, never NULL */
    }
    F->expect = ext == FZ_HUGE ? FZ_EXP_OVF : F->iv[1] > 1 ? FZ_EXP_INV : FZ_EXP_OK;
}

/* rope table, forward, backward (rope.h: d even in 2 .. 2^24, positions
   <= 2^24, pos0 + n <= positions, base finite and > 0; then the size
   products; y may be x, dx may be dy). */
static repdl_status run_rope(fz *F, int v)
{
    size_t *z = F->z;
    (void)v;
    if (F->iv[0] == 0) return repdl_rope_table_f32(z[4], z[3], F->f[0], P_F(0), P_F(1));
    if (F->iv[0] == 1)
        return repdl_rope_forward_f32(z[0], z[1], z[2], z[3], z[5], z[4], P_CF(0), P_CF(1), P_CF(2),
                                      P_F(3));
    return repdl_rope_backward_f32(z[0], z[1], z[2], z[3], z[5], z[4], P_CF(0), P_CF(1), P_CF(2),
                                   P_F(3));
}
static void case_rope(fz *F)
{
    size_t *z = F->z, B = dim(F), H = dim(F), n = dim(F), d, pos0, positions, cells, t;
    size_t pr[4];
    int inv;
    d = rnd(F) % 8 == 0 ? dim(F) : 2 * (1 + rn(F, 8));
    pos0 = rnd(F) % 4 == 0 ? dim(F) : rn(F, 4);
    positions = rnd(F) % 6 == 0 ? dim(F) : add(add(pos0, n), rn(F, 3));
    z[0] = B; z[1] = H; z[2] = n; z[3] = d; z[4] = positions; z[5] = pos0;
    F->iv[0] = (int)rn(F, 3);
    F->f[0] = rnd(F) % 4 ? 10000.0f : value(F);
    F->name = F->iv[0] == 0 ? "rope_table" : F->iv[0] == 1 ? "rope_forward" : "rope_backward";
    F->run = run_rope;
    inv = d == 0 || (d & 1) || d > ((size_t)1 << 24) || positions > ((size_t)1 << 24);
    cells = inv ? 0 : mul(positions, d / 2);
    if (F->iv[0] == 0) {
        float b = F->f[0];
        inv = inv || !(b > 0.0f) || !(b <= 3.40282347e38f);
        ARR_F(cells, FZ_OUT);
        ARR_F(cells, FZ_OUT);
        F->expect = inv ? FZ_EXP_INV : FZ_EXP_OK;
        return;
    }
    inv = inv || pos0 > positions || n > positions - pos0;
    pr[0] = B; pr[1] = H; pr[2] = n; pr[3] = d;
    t = mul(mul(mul(B, H), n), d);
    ARR_F(t ? cells : 0, FZ_IN);   /* the tables are read only for a pair */
    ARR_F(t ? cells : 0, FZ_IN);
    ARR_F(t, FZ_IN);
    ARR_F(t, FZ_OUT);
    F->a[3].alias = 2;
    F->expect = size_expect(inv, t == FZ_HUGE, prefix_ovf(pr, 4));
}

/* clip_grad_norm and grad_norm over up to 6 tensors (clip.h: max_norm and
   eps first, then the lists; a tensor's data NULL only when it is empty;
   the clip's norm may be NULL). */
static repdl_status run_clip(fz *F, int v)
{
    float *g[6];
    const float *cg[6];
    size_t k, count = F->z[0];
    (void)v;
    for (k = 0; k < count; k++) {
        g[k] = P_F(1 + (int)k);
        cg[k] = g[k];
    }
    if (F->iv[0])
        return repdl_clip_grad_norm_f32(count, F->iv[1] ? NULL : F->z + 1, F->f[0], F->f[1],
                                        F->iv[2] ? NULL : g, P_F(0));
    return repdl_grad_norm_f32(count, F->iv[1] ? NULL : F->z + 1, F->iv[2] ? NULL : cg, P_F(0));
}
static void case_clip(fz *F)
{
    size_t count = rn(F, 7), k;
    int inv;
    F->z[0] = count;
    F->iv[0] = (int)(rnd(F) & 1);
    F->iv[1] = rnd(F) % 10 == 0;   /* sizes NULL */
    F->iv[2] = rnd(F) % 10 == 0;   /* grads NULL */
    F->f[0] = rnd(F) % 4 ? 1.0f : value(F);
    F->f[1] = rnd(F) % 4 ? 1e-6f : value(F);
    F->name = F->iv[0] ? "clip_grad_norm" : "grad_norm";
    F->run = run_clip;
    ARR_F(1, FZ_OUT);
    F->a[0].optional = F->iv[0];
    /* sizes stay small: a tensor's extent is the caller's promise, no
       product is formed from it */
    for (k = 0; k < count; k++) {
        F->z[1 + k] = rnd(F) % 5 == 0 ? 0 : 1 + rn(F, 40);
        ARR_F(F->z[1 + k], F->iv[0] ? FZ_INOUT : FZ_IN);
    }
    inv = count > 0 && (F->iv[1] || F->iv[2]);
    if (F->iv[0])
        inv = inv || !(F->f[0] >= 0.0f) || !(F->f[1] >= 0.0f) || !(F->f[1] <= 3.40282347e38f);
    F->expect = inv ? FZ_EXP_INV : FZ_EXP_OK;
}

/* scaled dot-product attention, forward and backward, plain and threaded
   (attention.h: the shape's parameters, then its extents, then the
   arrays; lse, mask, key_keep optional; dq, dk, dv optional in the
   backward, lse required there); with iv[2] the _scores forms, scores
   (optional) the last array: written by the forward, read by the backward
   (random values there: other gradients, never another status). */
static repdl_status run_attn(fz *F, int v)
{
    repdl_attention_shape s;
    size_t *z = F->z;
    int T = v == 1 ? 2 : 3;
    s.batch = z[0]; s.hq = z[1]; s.hkv = z[2]; s.nq = z[3]; s.nk = z[4]; s.d = z[5];
    s.q_pos0 = z[6]; s.kv_stride = z[7]; s.causal = F->iv[1];
    if (F->iv[2] && F->iv[0] == 0)
        return v == 0 ? repdl_attention_forward_scores_f32(&s, F->f[0], P_CF(0), P_CF(1), P_CF(2), P_CF(3),
                                                           (const unsigned char *)F->a[4].p, P_F(5), P_F(6),
                                                           P_F(7))
                      : repdl_attention_forward_scores_threads_f32(&s, T, F->f[0], P_CF(0), P_CF(1), P_CF(2),
                                                                   P_CF(3), (const unsigned char *)F->a[4].p,
                                                                   P_F(5), P_F(6), P_F(7));
    if (F->iv[2])
        return v == 0 ? repdl_attention_backward_scores_f32(&s, F->f[0], P_CF(0), P_CF(1), P_CF(2), P_CF(3),
                                                            (const unsigned char *)F->a[4].p, P_CF(5), P_CF(6),
                                                            P_CF(11), P_CF(7), P_F(8), P_F(9), P_F(10))
                      : repdl_attention_backward_scores_threads_f32(
                            &s, T, F->f[0], P_CF(0), P_CF(1), P_CF(2), P_CF(3), (const unsigned char *)F->a[4].p,
                            P_CF(5), P_CF(6), P_CF(11), P_CF(7), P_F(8), P_F(9), P_F(10));
    if (F->iv[0] == 0 && v == 0)
        return repdl_attention_forward_f32(&s, F->f[0], P_CF(0), P_CF(1), P_CF(2), P_CF(3),
                                           (const unsigned char *)F->a[4].p, P_F(5), P_F(6));
    if (F->iv[0] == 0)
        return repdl_attention_forward_threads_f32(&s, T, F->f[0], P_CF(0), P_CF(1), P_CF(2), P_CF(3),
                                                   (const unsigned char *)F->a[4].p, P_F(5), P_F(6));
    if (v == 0)
        return repdl_attention_backward_f32(&s, F->f[0], P_CF(0), P_CF(1), P_CF(2), P_CF(3),
                                            (const unsigned char *)F->a[4].p, P_CF(5), P_CF(6), P_CF(7),
                                            P_F(8), P_F(9), P_F(10));
    return repdl_attention_backward_threads_f32(&s, T, F->f[0], P_CF(0), P_CF(1), P_CF(2), P_CF(3),
                                                (const unsigned char *)F->a[4].p, P_CF(5), P_CF(6),
                                                P_CF(7), P_F(8), P_F(9), P_F(10));
}
static size_t small_or_dim(fz *F, size_t m) { return rnd(F) % 8 == 0 ? dim(F) : rn(F, m); }
static void case_attn(fz *F)
{
    size_t *z = F->z, B, hq, hkv, nq, nk, d, R, G;
    size_t rows, qx, kx, mx;
    size_t p1[5], p2[4], p3[3];
    int inv, bwd = (int)(rnd(F) & 1), causal = (int)(rnd(F) & 1), prefix;
    B = small_or_dim(F, 3);
    hkv = rnd(F) % 16 == 0 ? 0 : 1 + rn(F, 2);
    G = 1 + rn(F, 3);
    hq = rnd(F) % 16 == 0 ? dim(F) : hkv * G;
    nq = small_or_dim(F, 5);
    nk = small_or_dim(F, 7);
    d = rnd(F) % 16 == 0 ? dim(F) : 1 + rn(F, 9);
    z[0] = B; z[1] = hq; z[2] = hkv; z[3] = nq; z[4] = nk; z[5] = d;
    z[6] = causal && nk >= nq && rnd(F) % 6 ? nk - nq : small_or_dim(F, 4);
    z[7] = rnd(F) % 4 ? 0 : rnd(F) & 1 ? add(nk, rn(F, 3)) : rn(F, nk + 1);
    R = z[7] ? z[7] : nk;
    F->iv[0] = bwd;
    F->iv[1] = causal;
    F->iv[2] = (int)(rnd(F) % 3 == 0); /* the _scores forms */
    F->f[0] = rnd(F) % 4 ? 0.35f : value(F);
    F->name = F->iv[2] ? (bwd ? "attention_backward_scores" : "attention_forward_scores")
                       : (bwd ? "attention_backward" : "attention_forward");
    F->run = run_attn;
    F->threads = 1;
    inv = d == 0 || hkv == 0 || hq % hkv != 0 || R < nk ||
          (causal && (z[6] > nk || nk - z[6] < nq));
    rows = mul(mul(B, hq), nq);
    kx = mul(mul(mul(B, hkv), R), d);
    qx = mul(rows, d);
    mx = mul(mul(B, nq), nk);
    p1[0] = B; p1[1] = hq; p1[2] = nq; p1[3] = d; p1[4] = nk;
    p2[0] = B; p2[1] = hkv; p2[2] = R; p2[3] = d;
    p3[0] = B; p3[1] = nq; p3[2] = nk;
    prefix = prefix_ovf(p1, 5) || prefix_ovf(p2, 4) || prefix_ovf(p3, 3);
    /* the workspace's bytes (attention.h: about 2 d (nk + 32) + 2 nk
       floats a thread, the backward's G nq d and 64 (G nq + pad) more,
       G = hq / hkv) are checked like an extent, by the backward even when
       no query is there: near or past the bound, either status */
    {
        size_t G2 = hkv ? hq / hkv : 0, gq = mul(G2, nq);
        size_t w = add(add(mul(d, add(nk, 32)), mul(gq, d)), mul(add(gq, 64), 64));
        if (mul(w, 4) == FZ_HUGE) prefix = 1;
    }
    ARR_F(qx, FZ_IN);                                           /* q */
    ARR_F(nk ? kx : 0, FZ_IN);                                  /* k */
    ARR_F(nk ? kx : 0, FZ_IN);                                  /* v */
    ARR_F(rows ? mx : 0, FZ_IN);                                /* mask */
    arr(F, rows ? mul(B, nk) : 0, 1, FZ_IN);                    /* key_keep */
    F->a[3].optional = F->a[4].optional = 1;
    if (!bwd) {
        ARR_F(qx, FZ_OUT);                                      /* out */
        ARR_F(rows, FZ_OUT);                                    /* lse */
        F->a[6].optional = 1;
        if (F->iv[2]) {
            ARR_F(nk ? mul(rows, nk) : 0, FZ_OUT);              /* scores */
            F->a[7].optional = 1;
        }
    } else {
        ARR_F(qx, FZ_IN);                                       /* out */
        ARR_F(rows, FZ_IN);                                     /* lse */
        ARR_F(qx, FZ_IN);                                       /* dout */
        ARR_F(qx, FZ_OUT);                                      /* dq */
        ARR_F(kx, FZ_OUT);                                      /* dk */
        ARR_F(kx, FZ_OUT);                                      /* dv */
        F->a[8].optional = F->a[9].optional = F->a[10].optional = 1;
        if (F->iv[2]) {
            ARR_F(nk ? mul(rows, nk) : 0, FZ_IN);               /* scores */
            F->a[11].optional = 1;
        }
    }
    F->expect = size_expect(inv, qx == FZ_HUGE || kx == FZ_HUGE || (rows && mx == FZ_HUGE) ||
                                     mul(rows, nk) == FZ_HUGE, prefix);
    /* a quick run: shapes of more than 2^16 products are not run (counted
       as skipped); every huge shape is refused before any work */
    if (F->expect != FZ_EXP_OVF && mul(mul(rows, nk), d) > ((size_t)1 << 16)) F->skip = 1;
}

typedef void (*fz_case)(fz *F);
static const fz_case cases[] = {case_gemm, case_linear, case_conv, case_pool, case_softmax, case_loss,
                                case_norm, case_rows, case_rng, case_optim, case_units, case_ew,
                                case_embedding, case_mse, case_rope, case_clip, case_attn};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

static void one_call(uint64_t seed, long call)
{
    fz F;
    memset(&F, 0, sizeof F);
    splitmix64_seed(&F.r, splitmix64_mix(seed) ^ (uint64_t)call * 0x9e3779b97f4a7c15ull);
    cur_seed = seed;
    cur_call = call;
    cases[rn(&F, N_CASES)](&F);
    if (getenv("FZ_TRACE")) {   /* the shape of each call before it runs */
        int k;
        printf("seed %llu call %ld %s sizes", (unsigned long long)seed, call, F.name);
        for (k = 0; k < 8; k++) printf(" %#zx", F.z[k]);
        printf("\n");
        fflush(stdout);
    }
    exec(&F);
}

int main(int argc, char **argv)
{
    uint64_t first = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    uint64_t seeds = argc > 2 ? strtoull(argv[2], NULL, 0) : 16;
    long calls = argc > 3 ? strtol(argv[3], NULL, 0) : 400, c;
    long only = argc > 4 ? strtol(argv[4], NULL, 0) : -1;   /* one call alone */
    uint64_t s;
    for (s = first; s < first + seeds; s++) {
        n_seeds++;
        for (c = 0; c < calls; c++)
            if (only < 0 || c == only) one_call(s, c);
    }
    printf("fuzz_api: seeds %llu..%llu, %ld shapes (%ld skipped as too large to allocate), %ld calls "
           "(%ld determinism reruns, %ld threads-form calls, %ld in-place comparisons), %ld with a NULL "
           "array; statuses OK %ld, INVALID %ld, OVERFLOW %ld, NOMEM %ld; %ld failures\n",
           (unsigned long long)first, (unsigned long long)(first + seeds - 1), n_shapes, n_skip, n_calls,
           n_det, n_thr, n_alias, n_null, n_status[0], n_status[1], n_status[2], n_status[3], n_fail);
    return n_fail != 0;
}
