/* SPDX-License-Identifier: MIT */
/* reference/hardcases.c: generates the hard-case table of a correctly
   rounded function, include/repdl/detail/F_hard.inc.

     hardcases F [--threads N] > include/repdl/detail/F_hard.inc

   Scans all 2^32 binary32 inputs with the library's own approximation
   repdl__F_y (this program is built with -ffp-contract=off, the reference
   build) and lists, sorted by input bits, every x for which repdl__F_y
   returns 1 and repdl__round_ok(y, 4E) fails, E = REPDL__F_ERR, with the
   correctly rounded result from MPFR.  A sentinel ends the table.

   Why 4E covers every build (docs/math.md): a build whose y' (maybe
   computed with FMAs) satisfies |y' - f| < E|f| and fails the test at E has
   f within about 2E of a rounding boundary; the reference y, also within E
   of f, is then within about 3E of that boundary and fails the test at 4E,
   so x is in the table.  The exhaustive checker confirms it on each build. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpfr_ref.h"
#include "funcs.h"
#include "oracle.h"

typedef struct { uint32_t x, r; } hc_entry;

typedef struct {
    const repdl_ref_fn *fn;
    double e4;
    hc_entry *v;
    size_t n, cap;
} hc_worker;

static uint64_t next_chunk; /* atomic: first input of the next chunk */
#define CHUNK (1u << 20)

static void *hc_run(void *arg)
{
    hc_worker *w = (hc_worker *)arg;
    repdl_ref_init();
    for (;;) {
        uint64_t lo = __atomic_fetch_add(&next_chunk, CHUNK, __ATOMIC_RELAXED);
        uint64_t i;
        if (lo >= (1ull << 32)) break;
        for (i = lo; i < lo + CHUNK; i++) {
            float x = repdl__asfloat((uint32_t)i);
            double y;
            if (!w->fn->approx(x, &y)) continue;
            if (repdl__round_ok(y, w->e4)) continue;
            if (w->n == w->cap) {
                w->cap = w->cap ? 2 * w->cap : 1024;
                w->v = (hc_entry *)realloc(w->v, w->cap * sizeof *w->v);
                if (!w->v) { perror("realloc"); exit(2); }
            }
            w->v[w->n].x = (uint32_t)i;
            w->v[w->n].r = repdl_oracle_mpfr(w->fn->id, x);
            w->n++;
        }
    }
    return NULL;
}

static int hc_cmp(const void *a, const void *b)
{
    uint32_t u = ((const hc_entry *)a)->x, v = ((const hc_entry *)b)->x;
    return u < v ? -1 : u > v;
}

int main(int argc, char **argv)
{
    const repdl_ref_fn *fn = NULL;
    long nthreads = sysconf(_SC_NPROCESSORS_ONLN);
    hc_worker *w;
    pthread_t *th;
    hc_entry *all;
    size_t total = 0, k;
    long t;
    int a;
    char upper[16];

    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--threads") == 0 && a + 1 < argc) nthreads = atol(argv[++a]);
        else if (!fn && argv[a][0] != '-') {
            fn = repdl_ref_find(argv[a]);
            if (!fn) { fprintf(stderr, "hardcases: unknown function %s (or its header is absent)\n", argv[a]); return 2; }
        } else { fprintf(stderr, "usage: hardcases F [--threads N]   (F: expf logf tanhf)\n"); return 2; }
    }
    if (!fn) { fprintf(stderr, "usage: hardcases F [--threads N]   (F: expf logf tanhf)\n"); return 2; }
    if (!fn->approx) { fprintf(stderr, "hardcases: %s has no approximation path (needs no table)\n", fn->name); return 2; }
    if (nthreads < 1) nthreads = 1;

    w = (hc_worker *)calloc((size_t)nthreads, sizeof *w);
    th = (pthread_t *)calloc((size_t)nthreads, sizeof *th);
    for (t = 0; t < nthreads; t++) {
        w[t].fn = fn;
        w[t].e4 = 4.0 * fn->err;
        pthread_create(&th[t], NULL, hc_run, &w[t]);
    }
    for (t = 0; t < nthreads; t++) { pthread_join(th[t], NULL); total += w[t].n; }
    all = (hc_entry *)malloc((total + 1) * sizeof *all);
    for (t = 0, k = 0; t < nthreads; t++) {
        if (w[t].n) memcpy(all + k, w[t].v, w[t].n * sizeof *all);
        k += w[t].n;
        free(w[t].v);
    }
    qsort(all, total, sizeof *all, hc_cmp);

    for (k = 0; fn->name[k] && k + 1 < sizeof upper; k++)
        upper[k] = (char)(fn->name[k] >= 'a' && fn->name[k] <= 'z' ? fn->name[k] - 32 : fn->name[k]);
    upper[k] = 0;
    printf("/* include/repdl/detail/%s_hard.inc: hard cases of repdl_%s, generated;\n"
           "   do not edit.  Produced by reference/hardcases.c:\n     ", fn->name, fn->name);
    for (a = 0; a < argc; a++) {
        const char *s = strrchr(argv[a], '/');
        printf("%s%s", a ? " " : "", a == 0 && s ? s + 1 : argv[a]);
    }
    printf("\n   Every binary32 x on which repdl__%s_y returns 1 and whose y fails\n"
           "   repdl__round_ok(y, 4E), E = REPDL__%s_ERR = %a, in the reference\n"
           "   build (-ffp-contract=off), with its correctly rounded result (MPFR).\n"
           "   Sorted by input bits; %zu entries, then a sentinel. */\n",
           fn->name, upper, fn->err, total);
    for (k = 0; k < total; k++)
        printf("{0x%08" PRIx32 "u, 0x%08" PRIx32 "u}, /* x = %a, %s(x) = %a */\n",
               all[k].x, all[k].r, (double)repdl__asfloat(all[k].x), fn->name,
               (double)repdl__asfloat(all[k].r));
    printf("{0xffffffffu, 0x7fc00000u},\n");
    fprintf(stderr, "hardcases %s: %zu hard cases (E = %a)\n", fn->name, total, fn->err);
    free(all); free(w); free(th);
    return 0;
}
