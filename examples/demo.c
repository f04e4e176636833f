/* SPDX-License-Identifier: MIT */
/* examples/demo.c: what repdl promises, shown on this machine.

   1. Correctly rounded functions: over 2^24 inputs spread across every
      exponent, count where glibc's expf, logf, tanhf differ from repdl's
      (repdl's are proven correctly rounded on all 2^32 inputs by the MPFR
      oracle, so each difference is a glibc rounding error).
   2. Canonical sums: a naive loop gives different bits when the same data
      is summed in another order (what threads, SIMD width or a GPU grid do
      to it); repdl_sum_f32 gives one answer, and the same answer when the
      array is split into aligned blocks summed separately (two "threads")
      and combined, or run on 1..4 POSIX threads.
   3. A SHA-256 of every output above: the same line on every machine. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/repdl.h>
#include <repdl/reduce_threads.h>

#include "../tests/golden/sha256.h"

static uint32_t bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }

/* splitmix64: a fixed-seed generator, so the data is the same everywhere */
static uint64_t rng_state = 0x5eed5eed12345678u;
static uint64_t next64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

int main(void)
{
    golden_sha256 h;
    unsigned char digest[32];
    const uint32_t step = 256; /* 2^32 / 256 = 2^24 inputs */
    volatile float one = 1.0f; /* known only at run time: the probe cannot be folded */
    /* first: every number below assumes subnormals are kept */
    if (!repdl_fpenv_ok(one)) {
        fprintf(stderr, "demo: the floating-point environment flushes subnormals to zero "
                "(FTZ/DAZ), which changes repdl's results, so nothing was computed.  The cause "
                "is almost always -ffast-math: this program was linked with -ffast-math, -Ofast "
                "or -funsafe-math-optimizations (gcc and clang then link crtfastmath.o, which "
                "turns on FTZ/DAZ at start-up), or a shared library built with one of them is "
                "loaded (LD_PRELOAD, a dependency).  Link without those flags.\n");
        return 1;
    }
    if (golden_sha256_selftest() != 0) { printf("SHA-256 self-test failed\n"); return 1; }
    golden_sha256_init(&h);

    printf("repdl %d.%d.%d demo\n\n", REPDL_VERSION_MAJOR, REPDL_VERSION_MINOR,
           REPDL_VERSION_PATCH);
    printf("1. Correctly rounded functions (2^24 inputs, every exponent):\n");
    {
        const char *names[3] = {"expf", "logf", "tanhf"};
        for (int f = 0; f < 3; f++) {
            uint64_t diff = 0, total = 0;
            uint32_t example = 0;
            for (uint64_t i = 0; i < ((uint64_t)1 << 32); i += step) {
                float x, mine, libm;
                uint32_t u = (uint32_t)i + 77u, r;
                memcpy(&x, &u, 4);
                if (f == 0) { mine = repdl_exp_f32(x); libm = expf(x); }
                else if (f == 1) { mine = repdl_log_f32(x); libm = logf(x); }
                else { mine = repdl_tanh_f32(x); libm = tanhf(x); }
                r = bits(mine);
                golden_sha256_update(&h, &r, 4);
                total++;
                if (x != x || mine != mine) continue; /* glibc keeps NaN payloads */
                if (bits(mine) != bits(libm)) { if (!diff) example = u; diff++; }
            }
            printf("   %-6s glibc differs from the correctly rounded result on %" PRIu64
                   " of %" PRIu64 " inputs", names[f], diff, total);
            if (diff) {
                float x; memcpy(&x, &example, 4);
                float m = f == 0 ? repdl_exp_f32(x) : f == 1 ? repdl_log_f32(x) : repdl_tanh_f32(x);
                float l = f == 0 ? expf(x) : f == 1 ? logf(x) : tanhf(x);
                printf(" (e.g. x = %a: repdl %a, glibc %a)", (double)x, (double)m, (double)l);
            }
            printf("\n");
        }
        printf("   sqrtf(2) = %a (IEEE sqrt is correctly rounded everywhere)\n",
               (double)repdl_sqrt_f32(2.0f));
    }

    printf("\n2. Canonical sum of 1,000,003 floats of mixed magnitude:\n");
    {
        size_t n = 1000003, half = (size_t)1 << 19; /* an aligned split point */
        float *x = (float *)malloc(n * sizeof *x);
        float fwd = 0.0f, bwd = 0.0f, parts[2], s1, s2, sT[4];
        repdl_sum_state st;
        if (!x) return 1;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next64();
            float m = (float)(r >> 40) / 16777216.0f - 0.5f; /* [-0.5, 0.5) */
            x[i] = m * (float)(1u << (r & 15));             /* magnitudes 2^-1 .. 2^14 */
        }
        for (size_t i = 0; i < n; i++) fwd += x[i];
        for (size_t i = n; i-- > 0;) bwd += x[i];
        printf("   naive loop, forward  %a\n", (double)fwd);
        printf("   naive loop, backward %a   <- same data, other order, other bits\n", (double)bwd);
        s1 = repdl_sum_f32(n, x);
        parts[0] = repdl_sum_partial_f32(0, half, x);
        parts[1] = repdl_sum_partial_f32(half, n - half, x);
        repdl_sum_state_init(&st);
        repdl_sum_state_push(&st, 0, half, parts[0]);
        repdl_sum_state_push(&st, half, n - half, parts[1]);
        s2 = repdl_sum_state_result(&st);
        for (int t = 0; t < 4; t++) sT[t] = repdl_sum_threads_f32(n, t + 1, x);
        printf("   repdl_sum_f32        %a\n", (double)s1);
        printf("   two aligned halves   %a\n", (double)s2);
        printf("   1, 2, 3, 4 threads   %a %a %a %a\n", (double)sT[0], (double)sT[1],
               (double)sT[2], (double)sT[3]);
        printf("   repdl_dot_f32(x, x)  %a\n", (double)repdl_dot_f32(n, x, x));
        {
            uint32_t r[7] = {bits(s1), bits(s2), bits(sT[0]), bits(sT[1]), bits(sT[2]),
                             bits(sT[3]), bits(repdl_dot_f32(n, x, x))};
            golden_sha256_update(&h, r, sizeof r);
            for (int i = 1; i < 6; i++)
                if (r[i] != r[0]) { printf("   MISMATCH: splitting changed the sum\n"); return 1; }
        }
        free(x);
    }

    golden_sha256_final(&h, digest);
    printf("\n3. SHA-256 of every repdl output above (identical on every machine):\n   ");
    for (int i = 0; i < 32; i++) printf("%02x", digest[i]);
    printf("\n");
    return 0;
}
