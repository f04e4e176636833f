/* SPDX-License-Identifier: MIT */
/* tests/math/test_gelu_vec.c: repdl_gelu_array_f32 (the vector bodies of
   detail/gelu_vec.h where the CPU has AVX-512F, or AVX2 and FMA) against
   the scalar repdl_gelu_f32, bit for bit, and the same for the backward
   array repdl_gelu_backward_array_f32 against repdl_gelu_backward_f32;
   for the backward also the double g before its rounding (check_g),
   against activation.h's definition evaluated here by the scalar helpers.

     test_gelu_vec sample   (suite quick) every 4099th binary32 pattern,
                            every hard-case input of detail/geluf_hard.inc
                            and its neighbours, the domain thresholds and
                            piece boundaries with their neighbours, the
                            specials; arrays of every length 0..40 at 8
                            offsets (the tails), in place and out of place;
                            first through the public functions (the form
                            the CPU gets), then each lower vector form
                            called directly (AVX2 on an AVX-512 CPU);
                            about 0.1 s a form
     test_gelu_vec all [T] [fwd | both] [avx2 | avx512]
                            every one of the 2^32 patterns, T threads
                            (default 2; fwd: the forward only), through the
                            public functions or the named form called
                            directly; not in a suite: about 36 s of CPU for
                            fwd, 110 s with the backward (gcc -O2, AMD EPYC,
                            AVX2 form; results/gelu-2026-11-29d.txt)
   Exit status 0 only when every compared element agrees; prints which
   vector form ran. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "repdl/activation.h"

static const repdl__hardcase hard[] = {
#include "repdl/detail/geluf_hard.inc"
};

static unsigned long long fails;
/* The form under test: 0 the public array functions (dispatched), 1 the
   AVX2 bodies, 2 the AVX-512 bodies of detail/gelu_vec.h, called directly
   (only when the CPU has them). */
static int form;
static repdl_status fwd_array(size_t n, const float *x, float *y)
{
#if REPDL__GELU_X86
    if (form == 1) { repdl__gelu_vec_avx2(n, x, y, repdl_gelu_f32); return REPDL_OK; }
    if (form == 2) { repdl__gelu_vec_avx512(n, x, y, repdl_gelu_f32); return REPDL_OK; }
#endif
    return repdl_gelu_array_f32(n, x, y);
}
static repdl_status bwd_array(size_t n, const float *x, const float *dy, float *dx)
{
#if REPDL__GELU_X86
    if (form == 1) { repdl__gelu_bwd_vec_avx2(n, x, dy, dx, repdl__gelu_q_coeffs()); return REPDL_OK; }
    if (form == 2) { repdl__gelu_bwd_vec_avx512(n, x, dy, dx, repdl__gelu_q_coeffs()); return REPDL_OK; }
#endif
    return repdl_gelu_backward_array_f32(n, x, dy, dx);
}
#define BLK 4096
static int with_backward = 1;   /* "all fwd": the forward only */

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float flt(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* dy for the backward comparison of input pattern u: a varied normal
   value, sometimes a special */
static float dy_of(uint32_t u)
{
    uint32_t h = u * 2654435761u;
    if ((h & 1023u) == 0u) return flt(0x7f800000u | (h & 0x80000000u));   /* +-inf */
    if ((h & 1023u) == 1u) return flt(0x7fc00001u);                        /* NaN */
    return flt(0x3e000000u + (h >> 9));                                    /* [2^-3, 2^5) */
}

/* Compare the array forms against the scalar forms on x[0..n). */
static unsigned long long check(const float *x, size_t n, float *y, float *dy, float *dx)
{
    unsigned long long bad = 0;
    size_t i;
    for (i = 0; i < n; i++) dy[i] = dx[i] = dy_of(bits(x[i]));
    if (fwd_array(n, x, y) != REPDL_OK) return n + 1;
    if (with_backward && bwd_array(n, x, dy, dx) != REPDL_OK) return n + 1;
    for (i = 0; i < n; i++) {
        uint32_t want = bits(repdl_gelu_f32(x[i]));
        uint32_t wantb = with_backward ? bits(repdl_gelu_backward_f32(x[i], dy[i])) : bits(dx[i]);
        if (bits(y[i]) != want || bits(dx[i]) != wantb) {
            if (bad < 10)
                fprintf(stderr, "x = %08x: gelu array %08x scalar %08x; backward array %08x scalar %08x\n",
                        (unsigned)bits(x[i]), (unsigned)bits(y[i]), (unsigned)want,
                        (unsigned)bits(dx[i]), (unsigned)wantb);
            bad++;
        }
    }
    return bad;
}

/* The backward's double g (before its rounding to binary32) of the vector
   body against activation.h's definition, computed here from the scalar
   helpers exactly as repdl_gelu_backward_f32 does, for the |x| < 15 of
   x[0..n): a difference of one binary64 ulp (a fused product, a reordered
   sum) shows here even where the binary32 results agree. */
static unsigned long long check_g(const float *x, size_t n, float *xm, double *g)
{
    unsigned long long bad = 0;
#if REPDL__GELU_X86
    size_t i, m = 0;
    int k;
    for (i = 0; i < n; i++)
        if ((bits(x[i]) & 0x7fffffffu) < 0x41700000u) xm[m++] = x[i];
    k = form ? form : repdl__gelu_vec_isa();
    if (k == 2) repdl__gelu_bwd_g_avx512(m, xm, g, repdl__gelu_q_coeffs());
    else if (k == 1) repdl__gelu_bwd_g_avx2(m, xm, g, repdl__gelu_q_coeffs());
    else return 0;
    for (i = 0; i < m; i++) {
        double u = repdl__f2d(repdl__asfloat(bits(xm[i]) & 0x7fffffffu)), e, q, phi, want;
        q = repdl__gelu_q(u, &e);
        phi = bits(xm[i]) < 0x80000000u ? repdl__dsub(1.0, q) : q;
        want = repdl__dadd(phi, repdl__dkeep(repdl__dmul(repdl__dmul(repdl__f2d(xm[i]), e),
                                                         0.3989422804014327)));
        if (repdl__asuint64(want) != repdl__asuint64(g[i])) {
            if (bad < 10)
                fprintf(stderr, "x = %08x: backward g vector %016llx definition %016llx\n",
                        (unsigned)bits(xm[i]), (unsigned long long)repdl__asuint64(g[i]),
                        (unsigned long long)repdl__asuint64(want));
            bad++;
        }
    }
#else
    (void)x; (void)n; (void)xm; (void)g;
#endif
    return bad;
}

static float xs[BLK], ys[BLK], dys[BLK], dxs[BLK], xms[BLK];
static double gs[BLK];
static size_t nx;
static void flush(void)
{
    fails += check(xs, nx, ys, dys, dxs);
    fails += check_g(xs, nx, xms, gs);
    nx = 0;
}
static void add(uint32_t u)
{
    xs[nx++] = flt(u);
    if (nx == BLK) flush();
}
static void add_around(uint32_t u, uint32_t r)
{
    uint32_t d;
    for (d = 0; d <= 2u * r; d++) add(u - r + d);
}

static int sample(void)
{
    static const uint32_t edges[] = {
        0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x00800000u, 0x80800000u,
        0x21800000u, 0xa1800000u,             /* 2^-60 */
        0x40ad7081u, 0x40ad7080u,             /* the upper threshold */
        0xc1500000u, 0xc165b275u,             /* -13, the lower threshold */
        0x41700000u, 0xc1700000u,             /* +-15 (the backward's) */
        0x7f800000u, 0xff800000u, 0x7f7fffffu, 0xff7fffffu, 0x7fc00000u, 0xffc00000u,
        0x7f800001u, 0x3f800000u, 0xbf800000u, 0x40000000u, 0xc0000000u, 0x40800000u,
        0xc0800000u};
    uint64_t u;
    size_t k, n, off, hn = sizeof hard / sizeof hard[0];
    float buf[48], y[48], dy[48], dx[48], in[48];
    memset(buf, 0, sizeof buf);   /* every element read is written first: the zeros quiet -Wmaybe-uninitialized */
    /* every 4099th pattern */
    for (u = 0; u < 0x100000000ull; u += 4099u) add((uint32_t)u);
    /* the hard cases and their neighbours, both signs */
    for (k = 0; k < hn; k++) {
        add_around(hard[k].x, 3u);
        add_around(hard[k].x ^ 0x80000000u, 3u);
    }
    for (k = 0; k < sizeof edges / sizeof edges[0]; k++) add_around(edges[k], 4u);
    /* piece boundaries |x| = i/2 (the pieces of S), both signs */
    for (k = 1; k <= 29; k++) {
        uint32_t b = bits((float)k * 0.5f);
        add_around(b, 4u);
        add_around(b | 0x80000000u, 4u);
    }
    flush();
    /* lengths 0..40 at offsets 0..7 (vector tails), out of place and in place */
    for (n = 0; n <= 40; n++)
        for (off = 0; off < 8; off++) {
            for (k = 0; k < n + off; k++)
                buf[k] = flt(edges[(k * 7u + n) % (sizeof edges / sizeof edges[0])]) * 0.75f +
                         (float)((int)k - 20) * 0.3125f;
            fails += check(buf + off, n, y, dy, dx);
            memcpy(in, buf + off, n * sizeof in[0]);
            for (k = 0; k < n; k++) dy[k] = dy_of(bits(in[k]));
            memcpy(dx, buf + off, n * sizeof dx[0]);
            fwd_array(n, buf + off, buf + off);                         /* in place */
            bwd_array(n, dx, dy, dx);                                   /* dx = x */
            for (k = 0; k < n; k++)
                if (bits(buf[off + k]) != bits(repdl_gelu_f32(in[k])) ||
                    bits(dx[k]) != bits(repdl_gelu_backward_f32(in[k], dy[k]))) {
                    if (fails < 10) fprintf(stderr, "in place, n %zu off %zu k %zu\n", n, off, k);
                    fails++;
                }
        }
    /* NULL with n > 0 is refused; n = 0 accepts NULL */
    if (repdl_gelu_array_f32(1, NULL, y) != REPDL_ERR_INVALID ||
        repdl_gelu_array_f32(0, NULL, NULL) != REPDL_OK) {
        fprintf(stderr, "NULL handling\n");
        fails++;
    }
    return 0;
}

typedef struct { unsigned t, nt; unsigned long long bad; } job;
static void *run_all(void *p)
{
    job *j = (job *)p;
    static const size_t B = 1u << 16;
    float *x = (float *)malloc(5 * B * sizeof(float));
    double *g = (double *)malloc(B * sizeof(double));
    uint64_t base;
    size_t i;
    j->bad = 0;
    if (!x || !g) { j->bad = 1; free(x); free(g); return NULL; }
    for (base = (uint64_t)j->t * B; base < 0x100000000ull; base += (uint64_t)j->nt * B) {
        for (i = 0; i < B; i++) x[i] = flt((uint32_t)(base + i));
        j->bad += check(x, B, x + B, x + 2 * B, x + 3 * B);
        if (with_backward) j->bad += check_g(x, B, x + 4 * B, g);
    }
    free(x);
    free(g);
    return NULL;
}

static const char *form_name(int k)
{
    return k == 2 ? "AVX-512F" : k == 1 ? "AVX2+FMA" : "off: the scalar loops";
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "sample";
#if REPDL__GELU_X86
    int isa = repdl__gelu_vec_isa();
    if (isa > REPDL_GELU_ISA_MAX) { /* the build's cap (the x86-64 build sets 1) */
        fprintf(stderr, "vector form %d above REPDL_GELU_ISA_MAX = %d\n", isa, REPDL_GELU_ISA_MAX);
        return 1;
    }
#else
    int isa = 0;
#endif
    if (!strcmp(mode, "all")) {
        unsigned nt = argc > 2 ? (unsigned)atoi(argv[2]) : 2u, t;
        job jobs[64];
        pthread_t th[64];
        if (nt < 1u || nt > 64u) nt = 2u;
        if (argc > 3 && !strcmp(argv[3], "fwd")) with_backward = 0;
        if (argc > 4) {
            form = !strcmp(argv[4], "avx2") ? 1 : !strcmp(argv[4], "avx512") ? 2 : -1;
            if (form < 0 || form > isa) {
                fprintf(stderr, "form %s: not available on this CPU (or this build)\n", argv[4]);
                return 2;
            }
        }
        for (t = 0; t < nt; t++) {
            jobs[t].t = t;
            jobs[t].nt = nt;
            pthread_create(&th[t], NULL, run_all, &jobs[t]);
        }
        for (t = 0; t < nt; t++) {
            pthread_join(th[t], NULL);
            fails += jobs[t].bad;
        }
        printf("gelu array vs scalar, all 2^32 inputs%s (vector body %s%s): %llu differences\n",
               with_backward ? "" : " (forward only)", form_name(form ? form : isa),
               form ? ", called directly" : "", fails);
    } else if (!strcmp(mode, "sample")) {
        /* the public functions (the form the CPU gets), then each lower
           vector form called directly */
        for (form = 0; form < isa; form++) {
            unsigned long long before = fails;
            sample();
            printf("gelu array vs scalar, sample (vector body %s%s): %llu differences\n",
                   form_name(form ? form : isa), form ? ", called directly" : "", fails - before);
        }
        if (!isa) {
            sample();
            printf("gelu array vs scalar, sample (vector body %s): %llu differences\n", form_name(0), fails);
        }
    } else {
        fprintf(stderr, "usage: test_gelu_vec [sample | all [threads] [fwd | both] [avx2 | avx512]]\n");
        return 2;
    }
    return fails ? 1 : 0;
}
