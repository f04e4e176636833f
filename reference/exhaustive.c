/* SPDX-License-Identifier: MIT */
/* reference/exhaustive.c: checks a repdl function against the MPFR oracle
   on every binary32 input, comparing bit patterns (+0 and -0 differ; a NaN
   result must be exactly 0x7fc00000).

     exhaustive F [--mode screened|mpfr|agree] [--range LO HI] [--step K]
                  [--threads N] [--max-print N] [--no-array] [--wc FILE]

   F is expf, logf, tanhf, sqrtf, sigmoidf, exp2f, expm1f, log2f, log1pf, erff, siluf,
   softplusf, geluf, gelu_tanhf, rsqrtf, sinf or cosf.  LO and HI are input bit patterns in hex,
   both included (default 0 ffffffff: all 2^32 inputs), so a run can be
   sharded over machines.  --step K checks only LO, LO+K, LO+2K, ... <= HI:
   a uniform sample, used to time the pure-MPFR mode and extrapolate.  Modes (reference/oracle.h):
     screened  glibc's double function, MPFR near rounding boundaries (default)
     mpfr      MPFR for every input
     agree     no library call: checks that the two modes above give the
               same bits on every input of the range (the screen's test)
   It also checks that the array form repdl_F_array, and a plain loop of
   repdl_F calls that the compiler may inline and vectorize, give bit for
   bit the results of the scalar calls (which go through a function pointer);
   inputs are fed in chunks of 4096 consecutive values.  Such mismatches are
   printed as F_array or F_loop with want = the scalar result, and counted
   as "array-form mismatches".

   --wc FILE also checks the inputs of a worst-case file (tests/math/F.wc:
   lines "F in=0x........ want=0x........"): the function's scalar and array
   results and the file's own expected value against the oracle (with
   --step, the sample and the hardest inputs together).

   Prints each mismatch as
     F in=0x........ got=0x........ want=0x........
   (the first --max-print of them, default 1000; all are counted), and ends
   with one summary line.  Exit status: 0 when no mismatch, 1 otherwise, 2 on
   a usage error or an unknown function. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "funcs.h"
#include "oracle.h"

#define BLOCK 4096u

static const repdl_ref_fn *g_fn;
static enum repdl_ref_id g_fn_id;
static const char *g_name;
static int g_mode_mpfr, g_mode_agree;
static int g_check_array = 1;
static const char *g_wc;             /* --wc FILE, or NULL */
static uint64_t g_lo, g_hi;          /* inclusive */
static uint64_t g_step = 1, g_count; /* inputs g_lo + j*g_step, 0 <= j < g_count */
static uint64_t g_next;              /* atomic: next index j to hand out */
static uint64_t g_mismatch, g_array_mismatch, g_mpfr_calls, g_printed, g_max_print = 1000;
static pthread_mutex_t g_print = PTHREAD_MUTEX_INITIALIZER;

static void report(const char *what, uint32_t in, uint32_t got, uint32_t want)
{
    pthread_mutex_lock(&g_print);
    if (g_printed < g_max_print) {
        printf("%s in=0x%08" PRIx32 " got=0x%08" PRIx32 " want=0x%08" PRIx32 "\n", what, in, got, want);
        fflush(stdout);
    } else if (g_printed == g_max_print) {
        printf("(further mismatches are counted, not printed)\n");
    }
    g_printed++;
    pthread_mutex_unlock(&g_print);
}

static void *worker(void *arg)
{
    static const uint64_t chunk = 1u << 16;
    float in[BLOCK], out[BLOCK], outa[BLOCK];
    uint64_t mism = 0, amism = 0, calls = 0;
    char aname[32], lname[32];
    (void)arg;
    snprintf(aname, sizeof aname, "%s_array", g_name);
    snprintf(lname, sizeof lname, "%s_loop", g_name);
    repdl_ref_init();
    for (;;) {
        uint64_t lo = __atomic_fetch_add(&g_next, chunk, __ATOMIC_RELAXED), hi, b;
        if (lo >= g_count) break;
        hi = lo + chunk < g_count ? lo + chunk : g_count;   /* indices [lo, hi) */
        for (b = lo; b < hi; b += BLOCK) {
            size_t n = (size_t)(hi - b < BLOCK ? hi - b : BLOCK), i;
            for (i = 0; i < n; i++) in[i] = repdl__asfloat((uint32_t)(g_lo + (b + i) * g_step));
            if (g_mode_agree) {
                for (i = 0; i < n; i++) {
                    uint32_t s = repdl_oracle_screened(g_fn_id, in[i], &calls);
                    uint32_t m = repdl_oracle_mpfr(g_fn_id, in[i]);
                    if (s != m) { mism++; report("oracle(screened vs mpfr)", repdl__asuint(in[i]), s, m); }
                }
                continue;
            }
            for (i = 0; i < n; i++) out[i] = g_fn->scalar(in[i]);
            if (g_check_array) {
                g_fn->loop(outa, in, n);
                if (memcmp(out, outa, n * sizeof *out) != 0)
                    for (i = 0; i < n; i++)
                        if (repdl__asuint(outa[i]) != repdl__asuint(out[i])) {
                            amism++;
                            report(lname, repdl__asuint(in[i]), repdl__asuint(outa[i]), repdl__asuint(out[i]));
                        }
                g_fn->array(outa, in, n);
                if (memcmp(out, outa, n * sizeof *out) != 0)
                    for (i = 0; i < n; i++)
                        if (repdl__asuint(outa[i]) != repdl__asuint(out[i])) {
                            amism++;
                            report(aname, repdl__asuint(in[i]), repdl__asuint(outa[i]), repdl__asuint(out[i]));
                        }
            }
            for (i = 0; i < n; i++) {
                uint32_t x = repdl__asuint(in[i]), got = repdl__asuint(out[i]);
                uint32_t want = g_mode_mpfr ? repdl_oracle_mpfr(g_fn_id, in[i])
                                            : repdl_oracle_screened(g_fn_id, in[i], &calls);
                if (got != want) { mism++; report(g_name, x, got, want); }
            }
        }
    }
    if (g_mode_mpfr || g_mode_agree) calls = 0; /* counted below as the number of inputs */
    __atomic_fetch_add(&g_mismatch, mism, __ATOMIC_RELAXED);
    __atomic_fetch_add(&g_array_mismatch, amism, __ATOMIC_RELAXED);
    __atomic_fetch_add(&g_mpfr_calls, calls, __ATOMIC_RELAXED);
    mpfr_free_cache(); /* this thread's MPFR constant caches (LeakSanitizer) */
    return NULL;
}

/* --wc FILE: the listed inputs, checked in the main thread after the
   sample.  Returns the number of lines read, -1 on a malformed file. */
static long check_wc(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512], name[32];
    unsigned in, want;
    long lines = 0;
    uint64_t calls = 0;
    if (!f) { perror(path); return -1; }
    repdl_ref_init();
    while (fgets(line, sizeof line, f)) {
        uint32_t o, got, ga;
        float x, r;
        if (line[0] == '#' || line[0] == '\n') continue;
        if (sscanf(line, "%31s in=0x%x want=0x%x", name, &in, &want) != 3 || strcmp(name, g_name) != 0) {
            fprintf(stderr, "%s: malformed line: %s", path, line);
            fclose(f);
            return -1;
        }
        lines++;
        x = repdl__asfloat((uint32_t)in);
        o = g_mode_mpfr ? repdl_oracle_mpfr(g_fn_id, x) : repdl_oracle_screened(g_fn_id, x, &calls);
        got = repdl__asuint(g_fn->scalar(x));
        g_fn->array(&r, &x, 1);
        ga = repdl__asuint(r);
        if (o != (uint32_t)want) { g_mismatch++; report("wc-file", (uint32_t)in, (uint32_t)want, o); }
        if (got != o) { g_mismatch++; report(g_name, (uint32_t)in, got, o); }
        if (ga != o) { g_array_mismatch++; report("wc-array", (uint32_t)in, ga, o); }
    }
    fclose(f);
    mpfr_free_cache();
    return lines;
}

static int usage(void)
{
    fprintf(stderr, "usage: exhaustive F [--mode screened|mpfr|agree] [--range LO HI] [--step K]\n"
                    "                  [--threads N] [--max-print N] [--no-array] [--wc FILE]\n"
                    "  F: expf logf tanhf sqrtf sigmoidf exp2f expm1f log2f log1pf erff siluf softplusf geluf\n"
                    "     gelu_tanhf rsqrtf sinf cosf; LO, HI: input bits in hex, inclusive\n");
    return 2;
}

int main(int argc, char **argv)
{
    long nthreads = sysconf(_SC_NPROCESSORS_ONLN), t;
    pthread_t *th;
    struct timespec t0, t1, c0, c1;
    double secs, cpu;
    uint64_t count;
    int a;

    g_lo = 0; g_hi = 0xffffffffu;
    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--mode") == 0 && a + 1 < argc) {
            a++;
            if (strcmp(argv[a], "mpfr") == 0) g_mode_mpfr = 1;
            else if (strcmp(argv[a], "agree") == 0) g_mode_agree = 1;
            else if (strcmp(argv[a], "screened") == 0) g_mode_mpfr = 0;
            else return usage();
        } else if (strcmp(argv[a], "--range") == 0 && a + 2 < argc) {
            g_lo = strtoull(argv[a + 1], NULL, 16);
            g_hi = strtoull(argv[a + 2], NULL, 16);
            a += 2;
            if (g_lo > g_hi || g_hi > 0xffffffffu) return usage();
        } else if (strcmp(argv[a], "--step") == 0 && a + 1 < argc) {
            g_step = strtoull(argv[++a], NULL, 10);
            if (g_step < 1) return usage();
        } else if (strcmp(argv[a], "--threads") == 0 && a + 1 < argc) {
            nthreads = atol(argv[++a]);
        } else if (strcmp(argv[a], "--max-print") == 0 && a + 1 < argc) {
            g_max_print = strtoull(argv[++a], NULL, 10);
        } else if (strcmp(argv[a], "--wc") == 0 && a + 1 < argc) {
            g_wc = argv[++a];
        } else if (strcmp(argv[a], "--no-array") == 0) {
            g_check_array = 0;
        } else if (argv[a][0] != '-' && !g_name) {
            g_name = argv[a];
        } else {
            return usage();
        }
    }
    if (!g_name) return usage();
    {
        static const char *const ids[] = {"expf", "logf", "tanhf", "sqrtf", "sigmoidf",
                                          "exp2f", "expm1f", "log2f", "log1pf",
                                          "erff", "siluf", "softplusf", "geluf", "gelu_tanhf",
                                          "rsqrtf", "sinf", "cosf"};
        int k, known = 0;
        for (k = 0; k < (int)(sizeof ids / sizeof ids[0]); k++)
            if (strcmp(g_name, ids[k]) == 0) { g_fn_id = (enum repdl_ref_id)k; known = 1; }
        if (!known) return usage();
    }
    g_fn = repdl_ref_find(g_name);
    if (!g_fn && !g_mode_agree) {
        fprintf(stderr, "exhaustive: %s: its header is absent from include/repdl\n", g_name);
        return 2;
    }
    if (nthreads < 1) nthreads = 1;
    if (!repdl_fpenv_ok(1.0f)) {
        fprintf(stderr, "exhaustive: the floating-point environment flushes subnormals; refusing to run\n");
        return 2;
    }

    g_count = (g_hi - g_lo) / g_step + 1;
    g_next = 0;
    th = (pthread_t *)calloc((size_t)nthreads, sizeof *th);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    for (t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, NULL);
    for (t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    if (g_wc && !g_mode_agree) {
        long w = check_wc(g_wc);
        if (w <= 0) { fprintf(stderr, "exhaustive: %s: no usable lines\n", g_wc); return 2; }
        printf("%s: %ld inputs of %s checked too\n", g_name, w, g_wc);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    count = g_count;
    if (g_mode_mpfr || g_mode_agree) g_mpfr_calls = count;

    printf("%s: %" PRIu64 " mismatches, %" PRIu64 " array-form mismatches%s; "
           "%" PRIu64 " inputs [0x%08" PRIx64 ", 0x%08" PRIx64 "] step %" PRIu64 "; mode %s, %" PRIu64 " MPFR calls; "
           "%.1f s wall, %.1f s cpu, %ld threads\n",
           g_name, g_mismatch, g_array_mismatch, g_check_array && !g_mode_agree ? "" : " (not checked)",
           count, g_lo, g_hi, g_step, g_mode_agree ? "agree" : g_mode_mpfr ? "mpfr" : "screened", g_mpfr_calls, secs, cpu, nthreads);
    free(th);
    return g_mismatch || g_array_mismatch ? 1 : 0;
}
