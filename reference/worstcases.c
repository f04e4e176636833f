/* SPDX-License-Identifier: MIT */
/* reference/worstcases.c: finds the hardest-to-round binary32 inputs of a
   function, for the worst-case files tests/math/F.wc.

     worstcases F [--count N] [--threads N] > tests/math/F.wc

   F is expf, logf, tanhf, sqrtf, sigmoidf, exp2f, expm1f, log2f, log1pf,
   erff, siluf, softplusf, geluf, gelu_tanhf, rsqrtf, sinf or cosf.  Prints
   the N inputs (default 50) whose exact value f(x) lies closest to a
   rounding midpoint (the middle of two consecutive binary32 values, the
   overflow boundary (2 - 2^-24) * 2^127 included), the distance measured
   in ulps of the spacing around that midpoint, hardest first, with their
   correctly rounded results from MPFR:

     F in=0x........ want=0x........  # x = %a, distance to midpoint 2^-%.1f ulp

   Method: every input is screened with the double estimate d of
   reference/oracle.h's screen (glibc's double function, or a few double
   operations on glibc's), whose bound there is 2^-51 |f|, except for geluf
   and gelu_tanhf: 2^-43.5 |f| (repdl_oracle_gelu_double, called here) for
   x != 0 in -15 < x < 6, resp. -11 < x < 6; outside that range they round
   to x or -0 and f lies more than 0.45 ulp from every midpoint (x >= 6:
   |f/x - 1| < 1 - Phi(6) < 2^-29, resp. sigma(-w(6)) < 2^-35, and
   |x| < 2^24 ulp; below: |f| < 2^-158), so no hard input is there.  The
   spacing around a midpoint is at least 2^-24 |f|, so d is within 2^-26
   ulp of the truth (2^-19 ulp for geluf and gelu_tanhf).  The inputs with
   d within 2^-16 ulp of a midpoint are kept, so no input nearer than
   2^-17 ulp is missed (2^-16 - 2^-19 > 2^-17); each kept input is then
   measured with MPFR at 160 bits (relative error at most 2^-148; geluf and
   gelu_tanhf use reference/mpfr_ref.h's evaluations, 2^(9-p) and
   2^(12-p)), and the N nearest are printed, one per class of equivalent
   inputs (tanhf, erff, sinf, cosf: x and -x; sqrtf, rsqrtf: x and 4^k x, whose
   results differ by an exact scaling; siluf, geluf, gelu_tanhf: every
   |x| < 2^-125 of one sign; erff: x and 2^k x for 2^-126 <= |x| < 2^-30,
   within 2^-37 ulp of each other; sigmoidf: the |x| < 2^-12 of one sign
   that put 1/2 + x/4 on a midpoint; see wc_key).
   Independent of the library: no repdl function is called (only the bit
   casts and repdl__round_ok of include/repdl/detail/cr.h). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpfr_ref.h"
#include "oracle.h"

#define SCREEN 0x1p-16   /* keep inputs whose double estimate is this close (ulps) */
#define REFINE_PREC 160

typedef struct { uint32_t x, want; double dist; } wc_entry;

/* indexed by enum repdl_ref_id */
static const char *const wc_names[] = {"expf", "logf", "tanhf", "sqrtf", "sigmoidf",
                                       "exp2f", "expm1f", "log2f", "log1pf",
                                       "erff", "siluf", "softplusf", "geluf", "gelu_tanhf",
                                       "rsqrtf", "sinf", "cosf"};
#define WC_NFN ((int)(sizeof wc_names / sizeof wc_names[0]))
static enum repdl_ref_id g_id;
static uint64_t g_next;
#define CHUNK (1u << 20)

typedef struct { wc_entry *v; size_t n, cap; } wc_list;

static double wc_double(enum repdl_ref_id id, double x)
{
    switch (id) {
    case REPDL_REF_EXPF: return exp(x);
    case REPDL_REF_LOGF: return log(x);
    case REPDL_REF_TANHF: return tanh(x);
    case REPDL_REF_EXP2F: return exp2(x);
    case REPDL_REF_EXPM1F: return expm1(x);
    case REPDL_REF_LOG2F: return log2(x);
    case REPDL_REF_LOG1PF: return log1p(x);
    /* issue 17, activations (h17-act): glibc's erf, exp and log1p, 1 ulp
       each (reference/oracle.h): within 2^-51 of f */
    case REPDL_REF_ERFF: return erf(x);
    case REPDL_REF_SILUF: return x / (1.0 + exp(-x));
    case REPDL_REF_SOFTPLUSF: return log1p(exp(x));
    /* oracle.h's screens: sigmoid 2^-51 (glibc's exp, two roundings),
       gelu and gelu_tanh 2^-43.5 in the range above */
    case REPDL_REF_SIGMOIDF: return 1.0 / (1.0 + exp(-x));
    case REPDL_REF_GELUF:
    case REPDL_REF_GELU_TANHF: return repdl_oracle_gelu_double(id, (float)x);   /* x: binary32 */
    case REPDL_REF_RSQRTF: return 1.0 / sqrt(x);
    case REPDL_REF_SINF: return sin(x);
    case REPDL_REF_COSF: return cos(x);
    default: return sqrt(x);
    }
}

/* The two midpoints around r = RN(v) (binary32) and the spacing around
   each, as doubles (exact: 25 significant bits).  Returns how many (1 or 2). */
static int wc_midpoints(float r, double m[2], double sp[2])
{
    double rd = (double)r, up, dn;
    int k = 0;
    if (r == INFINITY) rd = 0x1p128;
    if (r == -INFINITY) rd = -0x1p128;
    up = (r == FLT_MAX) ? 0x1p128 : (double)nextafterf(r, INFINITY);
    dn = (r == -FLT_MAX) ? -0x1p128 : (double)nextafterf(r, -INFINITY);
    if (rd < 0x1p128) { m[k] = 0.5 * (rd + up); sp[k] = up - rd; k++; }
    if (rd > -0x1p128) { m[k] = 0.5 * (dn + rd); sp[k] = rd - dn; k++; }
    if (r == INFINITY) { m[0] = 0.5 * ((double)FLT_MAX + 0x1p128); sp[0] = 0x1p104; k = 1; }
    if (r == -INFINITY) { m[0] = -0.5 * ((double)FLT_MAX + 0x1p128); sp[0] = 0x1p104; k = 1; }
    return k;
}

static void *wc_screen(void *arg)
{
    wc_list *l = (wc_list *)arg;
    for (;;) {
        uint64_t lo = __atomic_fetch_add(&g_next, CHUNK, __ATOMIC_RELAXED), i;
        if (lo >= (1ull << 32)) break;
        for (i = lo; i < lo + CHUNK; i++) {
            float x = repdl__asfloat((uint32_t)i), r;
            double d, m[2], sp[2], best = 1.0;
            int k, j;
            if (x != x) continue;
            d = wc_double(g_id, (double)x);
            if (d != d || d == 0.0 || d - d != 0.0) continue;
            r = (float)d;
            k = wc_midpoints(r, m, sp);
            for (j = 0; j < k; j++) {
                double t = fabs(d - m[j]) / sp[j];
                if (t < best) best = t;
            }
            if (best >= SCREEN) continue;
            if (l->n == l->cap) {
                l->cap = l->cap ? 2 * l->cap : 4096;
                l->v = (wc_entry *)realloc(l->v, l->cap * sizeof *l->v);
                if (!l->v) { perror("realloc"); exit(2); }
            }
            l->v[l->n].x = (uint32_t)i;
            l->n++;
        }
    }
    return NULL;
}

/* Exact distance (ulps) of f(x) to its nearest midpoint, with MPFR. */
static double wc_refine(enum repdl_ref_id id, float x, float r)
{
    mpfr_t f, t;
    double m[2], sp[2], best = 1.0;
    int k, j;
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_init2(f, REFINE_PREC);
    mpfr_init2(t, REFINE_PREC);
    mpfr_set_flt(f, x, MPFR_RNDN);
    switch (id) {
    case REPDL_REF_EXPF: mpfr_exp(f, f, MPFR_RNDN); break;
    case REPDL_REF_LOGF: mpfr_log(f, f, MPFR_RNDN); break;
    case REPDL_REF_TANHF: mpfr_tanh(f, f, MPFR_RNDN); break;
    case REPDL_REF_EXP2F: mpfr_exp2(f, f, MPFR_RNDN); break;
    case REPDL_REF_EXPM1F: mpfr_expm1(f, f, MPFR_RNDN); break;
    case REPDL_REF_LOG2F: mpfr_log2(f, f, MPFR_RNDN); break;
    case REPDL_REF_LOG1PF: mpfr_log1p(f, f, MPFR_RNDN); break;
    /* issue 17, activations (h17-act): a few roundings at 160 bits */
    case REPDL_REF_ERFF: mpfr_erf(f, f, MPFR_RNDN); break;
    case REPDL_REF_SILUF:
        mpfr_neg(t, f, MPFR_RNDN); mpfr_exp(t, t, MPFR_RNDN); mpfr_add_ui(t, t, 1, MPFR_RNDN);
        mpfr_div(f, f, t, MPFR_RNDN); break;
    case REPDL_REF_SOFTPLUSF: mpfr_exp(f, f, MPFR_RNDN); mpfr_log1p(f, f, MPFR_RNDN); break;
    case REPDL_REF_SIGMOIDF:
        mpfr_neg(f, f, MPFR_RNDN); mpfr_exp(f, f, MPFR_RNDN); mpfr_add_ui(f, f, 1, MPFR_RNDN);
        mpfr_ui_div(f, 1, f, MPFR_RNDN); break;
    case REPDL_REF_GELUF: repdl_ref_gelu_eval_(f, x); break;
    case REPDL_REF_GELU_TANHF: repdl_ref_gelu_tanh_eval_(f, x); break;
    case REPDL_REF_RSQRTF: mpfr_rec_sqrt(f, f, MPFR_RNDN); break;   /* x > 0 here */
    case REPDL_REF_SINF: mpfr_sin(f, f, MPFR_RNDN); break;
    case REPDL_REF_COSF: mpfr_cos(f, f, MPFR_RNDN); break;
    default: mpfr_sqrt(f, f, MPFR_RNDN); break;
    }
    k = wc_midpoints(r, m, sp);
    for (j = 0; j < k; j++) {
        double v;
        mpfr_sub_d(t, f, m[j], MPFR_RNDN);     /* relative error 2^-160 */
        mpfr_div_d(t, t, sp[j], MPFR_RNDN);    /* exact: power of two */
        v = fabs(mpfr_get_d(t, MPFR_RNDN));
        if (v < best) best = v;
    }
    mpfr_clear(f);
    mpfr_clear(t);
    return best;
}

/* tanh, erf and sin are odd, cos is even: f(-x) = +-f(x), and rounding to
   nearest is symmetric, so x and -x are the same hard case. */
static int wc_symmetric(enum repdl_ref_id id)
{
    return id == REPDL_REF_TANHF || id == REPDL_REF_ERFF || id == REPDL_REF_SINF
           || id == REPDL_REF_COSF;
}

/* Inputs with equal keys are the same hard case (see main).  silu, gelu and
   gelu_tanh are x/2 + c x^2 + O(x^3), c = 1/4, resp. 1/sqrt(2 pi) for both
   gelus: for |x| < 2^-125, x/2 is a binary32 value or (odd last bit) a
   subnormal midpoint, and c x^2 > 0 (below 2^-100 ulp) decides the
   rounding the same way for every such x of one sign (without this, their
   50 hardest are all such x, at 2^-151 .. 2^-140 ulp).  erf(x) =
   (2/sqrt(pi)) x (1 - x^2/3 + ...): for 2^-126 <= |x| < 2^-30 (normal
   results) x = m 2^k rounds as 2^k (2/sqrt(pi)) m, the x^2/3 < 2^-61
   moving its distance to a midpoint by < 2^-37 ulp, so one x per
   significand m (without this, 46 of erff's 50 are 0x1.546418p-k, each
   2^-26.0 ulp).  sigma(x) = 1/2 + x/4 - x^3/48 + ...: for |x| < 2^-12,
   1/2 + x/4 is a midpoint when x is an odd multiple of 2^-23 (x > 0, the
   spacing above 1/2 is 2^-24) or of 2^-24 (x < 0, 2^-25 below), and
   x^3/48 < 2^-16 ulp rounds it toward 1/2 for every such x of one sign
   (without this, all 50 of sigmoidf's are such x, 2^-52.6 .. 2^-34.8
   ulp). */
static double wc_key(enum repdl_ref_id id, float x)
{
    double ax = fabs((double)x);
    if (id == REPDL_REF_ERFF && ax >= 0x1p-126 && ax < 0x1p-30) {
        int e;
        return -frexp(ax, &e);                /* the significand: below 0, no clash */
    }
    if (id == REPDL_REF_SIGMOIDF && ax < 0x1p-12) {
        double q = ax * (x > 0 ? 0x1p23 : 0x1p24);   /* exact */
        if (q == floor(q) && fmod(q, 2.0) == 1.0)
            return x < 0 ? -2.0 : -1.0;       /* 1/2 + x/4 a midpoint: one case per sign */
    }
    if (wc_symmetric(id))
        return fabs((double)x);               /* odd or even */
    if (id == REPDL_REF_SQRTF || id == REPDL_REF_RSQRTF) {
        int e;
        double m = frexp((double)x, &e);      /* x = m 2^e, m in [0.5, 1) */
        return m + (double)(e & 1);           /* significand and exponent parity */
    }
    if ((id == REPDL_REF_SILUF || id == REPDL_REF_GELUF || id == REPDL_REF_GELU_TANHF)
        && fabs((double)x) < 0x1p-125)
        return x < 0 ? -2.0 : -1.0;           /* x/2 + c x^2: one case per sign */
    return (double)repdl__asuint(x);
}

static int wc_cmp(const void *a, const void *b)
{
    double u = ((const wc_entry *)a)->dist, v = ((const wc_entry *)b)->dist;
    uint32_t p = ((const wc_entry *)a)->x, q = ((const wc_entry *)b)->x;
    if (u != v) return u < v ? -1 : 1;
    return p < q ? -1 : p > q;
}

int main(int argc, char **argv)
{
    long nthreads = sysconf(_SC_NPROCESSORS_ONLN), t;
    long count = 50;
    const char *name = NULL;
    wc_list *lists;
    pthread_t *th;
    wc_entry *all;
    size_t total = 0, k;
    int a, found = 0;

    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--count") == 0 && a + 1 < argc) count = atol(argv[++a]);
        else if (strcmp(argv[a], "--threads") == 0 && a + 1 < argc) nthreads = atol(argv[++a]);
        else if (argv[a][0] != '-' && !name) name = argv[a];
        else name = NULL, a = argc;
    }
    for (k = 0; name && k < (size_t)WC_NFN; k++)
        if (wc_names[k] && strcmp(name, wc_names[k]) == 0) { g_id = (enum repdl_ref_id)k; found = 1; }
    if (!found || count < 1) {
        fprintf(stderr, "usage: worstcases F [--count N] [--threads N]   (F: expf logf tanhf sqrtf sigmoidf exp2f expm1f log2f log1pf erff siluf softplusf geluf gelu_tanhf rsqrtf sinf cosf)\n");
        return 2;
    }
    if (nthreads < 1) nthreads = 1;

    lists = (wc_list *)calloc((size_t)nthreads, sizeof *lists);
    th = (pthread_t *)calloc((size_t)nthreads, sizeof *th);
    for (t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, wc_screen, &lists[t]);
    for (t = 0; t < nthreads; t++) { pthread_join(th[t], NULL); total += lists[t].n; }
    all = (wc_entry *)malloc((total + 1) * sizeof *all);
    for (t = 0, k = 0; t < nthreads; t++) {
        if (lists[t].n) memcpy(all + k, lists[t].v, lists[t].n * sizeof *all);
        k += lists[t].n;
        free(lists[t].v);
    }
    for (k = 0; k < total; k++) {
        float x = repdl__asfloat(all[k].x);
        repdl_ref_init();
        all[k].want = repdl_oracle_mpfr(g_id, x);
        all[k].dist = wc_refine(g_id, x, repdl__asfloat(all[k].want));
    }
    qsort(all, total, sizeof *all, wc_cmp);
    if ((size_t)count > total) count = (long)total;

    {
        /* Equivalent inputs are printed once: tanh, erf, sin and cos are
           odd or even (x and -x are the same case: wc_symmetric), and
           sqrt(4x) = 2 sqrt(x) exactly, so for sqrtf inputs
           with the same significand and the same exponent parity are the
           same case (its hardest inputs are otherwise all (2 - 2^-23) 2^odd). */
        double *keys = (double *)malloc((size_t)count * sizeof *keys);
        size_t *pick = (size_t *)malloc((size_t)count * sizeof *pick);
        long printed = 0, j;
        for (k = 0; k < total && printed < count; k++) {
            double key = wc_key(g_id, repdl__asfloat(all[k].x));
            int dup = 0;
            for (j = 0; j < printed; j++) dup |= keys[j] == key;
            if (dup) continue;
            keys[printed] = key;
            pick[printed++] = k;
        }
        printf("# %s: the %ld binary32 inputs whose exact %s(x) is nearest a rounding midpoint"
               " (of %zu screened within 2^-16 ulp), hardest first, one per class of equivalent"
               " inputs%s; want = MPFR, 24 bits, RNDN, subnormalized.  Command: worstcases",
               wc_names[g_id], printed, wc_names[g_id], total,
               wc_symmetric(g_id) ? " (x and -x)"
               : (g_id == REPDL_REF_SQRTF || g_id == REPDL_REF_RSQRTF) ? " (x and 4^k x)" : "");
        for (a = 1; a < argc; a++) printf(" %s", argv[a]);
        printf("\n");
        for (j = 0; j < printed; j++) {
            const wc_entry *w = &all[pick[j]];
            printf("%s in=0x%08" PRIx32 " want=0x%08" PRIx32 "  # x = %a, distance to midpoint 2^-%.1f ulp\n",
                   wc_names[g_id], w->x, w->want, (double)repdl__asfloat(w->x),
                   w->dist > 0 ? -log2(w->dist) : 9999.0);
        }
        free(keys);
        free(pick);
        count = printed;
    }
    fprintf(stderr, "worstcases %s: %zu candidates, %ld printed\n", wc_names[g_id], total, count);
    free(all); free(lists); free(th);
    return 0;
}
