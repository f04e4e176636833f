/* SPDX-License-Identifier: MIT */
/* tests/cuda/test_math.c: every map kernel of cuda/ against the host
   function, bit for bit (NaN bits included), over binary32 inputs, and the
   bfloat16 and float16 maps over all 2^16 inputs of each format (every
   run).

     test_cuda_math --all         every one of the 2^32 inputs (suite exhaustive)
     test_cuda_math [--stride S]  inputs k*S + offset, S = 61 by default, offset
                            random (printed): about 7e7 inputs a function
                            (suite quick)
     test_cuda_math --small       2^20 inputs (for compute-sanitizer)

   The expected values are repdl_exp_f32, ... compiled for the host by the C
   compiler, which tests/math proves against MPFR for every input.
   Also checked on the first chunk: in-place (y == x) and unaligned
   pointers (the scalar path of the kernel).
   No GPU: prints "skipped: no GPU" and exits 77. */
#include <repdl/erf.h>
#include <repdl/exp.h>
#include <repdl/half_math.h>
#include <repdl/log.h>
#include <repdl/sqrt.h>
#include <repdl/tanh.h>
#include <repdl/exp2.h>
#include <repdl/log2.h>
#include <repdl/expm1.h>
#include <repdl/log1p.h>
#include <repdl/rsqrt.h>
#include <repdl/sin.h>
#include <repdl/cos.h>
#include <repdl/activation.h>

#include <time.h>

#include "gpu_test.h"

typedef int (*launcher_t)(size_t, const float *, float *, void *);
typedef float (*hostfn_t)(float);

static const struct {
    const char *name;
    launcher_t dev;
    hostfn_t host;
} funcs[] = {
#define ENTRY(name) {#name, repdl_cuda_##name##_array_f32, repdl_##name##_f32},
    REPDL_CUDA_MAP_FUNCTIONS(ENTRY)
#undef ENTRY
};

typedef int (*launcher16_t)(size_t, const uint16_t *, uint16_t *, void *);
typedef uint16_t (*hostfn16_t)(uint16_t);

static const struct {
    const char *name;
    launcher16_t dev;
    hostfn16_t host;
} funcs16[] = {
#define ENTRY16(name) {#name "_bf16", repdl_cuda_##name##_array_bf16, repdl_##name##_bf16}, \
                      {#name "_f16", repdl_cuda_##name##_array_f16, repdl_##name##_f16},
    REPDL_CUDA_MAP_FUNCTIONS_16(ENTRY16)
#undef ENTRY16
};

/* The 16-bit maps on all 2^16 inputs: aligned, unaligned (x + 1, y + 3:
   the scalar path) and in place, against the host function.  Returns the
   number of mismatches. */
static uint64_t test_16(void)
{
    const size_t m = 65536;
    uint16_t *hx = (uint16_t *)xmalloc(m * sizeof *hx), *hy = (uint16_t *)xmalloc(m * sizeof *hy);
    uint16_t *ref = (uint16_t *)xmalloc(m * sizeof *ref), *dx, *dy;
    uint64_t failures = 0;
    CU(cudaMalloc((void **)&dx, m * sizeof *dx));
    CU(cudaMalloc((void **)&dy, (m + 4) * sizeof *dy));
    for (size_t i = 0; i < m; i++) hx[i] = (uint16_t)i;
    for (size_t f = 0; f < sizeof funcs16 / sizeof funcs16[0]; f++) {
        uint64_t bad = 0;
        for (size_t i = 0; i < m; i++) ref[i] = funcs16[f].host(hx[i]);
        for (int pass = 0; pass < 3; pass++) {
            /* 0: aligned; 1: x + 1 -> y + 3 (m - 1 elements); 2: in place */
            size_t xo = pass == 1 ? 1 : 0, yo = pass == 1 ? 3 : 0, k = m - xo;
            CU(cudaMemcpy(dx, hx, m * sizeof *dx, cudaMemcpyHostToDevice));
            RD(funcs16[f].dev(k, dx + xo, pass == 2 ? dx : dy + yo, NULL));
            CU(cudaMemcpy(hy, pass == 2 ? dx : dy + yo, k * sizeof *hy, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < k; i++)
                if (hy[i] != ref[i + xo]) {
                    if (bad < 5)
                        printf("  MISMATCH %s %s(0x%04x): device 0x%04x, host 0x%04x\n",
                               pass == 0 ? "" : pass == 1 ? "unaligned" : "in-place", funcs16[f].name,
                               (unsigned)(i + xo), (unsigned)hy[i], (unsigned)ref[i + xo]);
                    bad++;
                }
        }
        printf("%s %s: all 65536 inputs (aligned, unaligned, in place), %llu mismatches\n",
               bad ? "FAIL" : "ok  ", funcs16[f].name, (unsigned long long)bad);
        failures += bad;
    }
    CU(cudaFree(dx));
    CU(cudaFree(dy));
    free(hx);
    free(hy);
    free(ref);
    return failures;
}

struct job {
    hostfn_t f;
    const float *x;
    float *r;
    size_t lo, hi;
};

static void *run_job(void *p)
{
    struct job *j = (struct job *)p;
    for (size_t i = j->lo; i < j->hi; i++) j->r[i] = j->f(j->x[i]);
    return NULL;
}

/* r[i] = f(x[i]) for i < m, on every core. */
static void host_map(hostfn_t f, const float *x, float *r, size_t m)
{
    int nt = host_threads();
    pthread_t th[64];
    int started[64];
    struct job jobs[64];
    for (int t = 0; t < nt; t++) {
        jobs[t].f = f;
        jobs[t].x = x;
        jobs[t].r = r;
        jobs[t].lo = m * t / nt;
        jobs[t].hi = m * (t + 1) / nt;
        started[t] = pthread_create(&th[t], NULL, run_job, &jobs[t]) == 0;
        if (!started[t]) run_job(&jobs[t]);
    }
    for (int t = 0; t < nt; t++)
        if (started[t]) pthread_join(th[t], NULL);
}

/* Counts the i in [lo, m) where got[i] and want[i] differ in any bit;
   prints the first few. */
static uint64_t compare(const char *what, const char *name, const float *x,
                        const float *got, const float *want, size_t lo, size_t m)
{
    uint64_t bad = 0;
    for (size_t i = lo; i < m; i++) {
        if (f2u(got[i]) != f2u(want[i])) {
            if (bad < 5)
                printf("  MISMATCH %s %s(0x%08x): device 0x%08x, host 0x%08x\n", what, name,
                       (unsigned)f2u(x[i]), (unsigned)f2u(got[i]), (unsigned)f2u(want[i]));
            bad++;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    uint64_t stride = 61, total;
    size_t chunk = (size_t)1 << 26;
    int small = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--all")) stride = 1;
        else if (!strcmp(argv[i], "--stride") && i + 1 < argc) stride = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--small")) small = 1;
        else {
            fprintf(stderr, "usage: %s [--all | --stride S | --small]\n", argv[0]);
            return 2;
        }
    }
    if (stride == 0) stride = 1;
    gpu_require("test_cuda_math");

    rng_state = (uint64_t)time(NULL);
    uint64_t offset = stride > 1 ? rng_below(stride) : 0;
    total = (((uint64_t)1 << 32) - 1 - offset) / stride + 1;
    if (small) {
        stride = 4099;
        offset = 0;
        total = (uint64_t)1 << 20;
        chunk = (size_t)1 << 20;
    }
    printf("test_cuda_math: inputs k*%llu + %llu, %llu per function, chunks of %zu\n",
           (unsigned long long)stride, (unsigned long long)offset, (unsigned long long)total,
           chunk);

    float *hx = (float *)xmalloc(chunk * sizeof(float));
    float *hy = (float *)xmalloc(chunk * sizeof(float));
    float *ref = (float *)xmalloc(chunk * sizeof(float));
    float *dx, *dy;
    CU(cudaMalloc((void **)&dx, chunk * sizeof(float)));
    CU(cudaMalloc((void **)&dy, chunk * sizeof(float)));

    uint64_t failures = 0;
    for (size_t f = 0; f < sizeof funcs / sizeof funcs[0]; f++) {
        uint64_t bad = 0, checked = 0;
        for (uint64_t base = 0; base < total; base += chunk) {
            size_t m = (size_t)(total - base < chunk ? total - base : chunk);
            for (size_t i = 0; i < m; i++) hx[i] = u2f((uint32_t)((base + i) * stride + offset));
            CU(cudaMemcpy(dx, hx, m * sizeof(float), cudaMemcpyHostToDevice));
            RD(funcs[f].dev(m, dx, dy, NULL));
            CU(cudaMemcpy(hy, dy, m * sizeof(float), cudaMemcpyDeviceToHost));
            host_map(funcs[f].host, hx, ref, m);
            bad += compare("", funcs[f].name, hx, hy, ref, 0, m);
            checked += m;
            if (base == 0 && m > 8) {
                /* unaligned: x + 1, y + 3 -> the scalar path */
                RD(funcs[f].dev(m - 3, dx + 1, dy + 3, NULL));
                CU(cudaMemcpy(hy, dy + 3, (m - 3) * sizeof(float), cudaMemcpyDeviceToHost));
                bad += compare("unaligned", funcs[f].name, hx + 1, hy, ref + 1, 0, m - 3);
                /* in place */
                RD(funcs[f].dev(m, dx, dx, NULL));
                CU(cudaMemcpy(hy, dx, m * sizeof(float), cudaMemcpyDeviceToHost));
                bad += compare("in-place", funcs[f].name, hx, hy, ref, 0, m);
            }
        }
        CU(cudaDeviceSynchronize());
        printf("%s %s: %llu inputs, %llu mismatches\n", bad ? "FAIL" : "ok  ", funcs[f].name,
               (unsigned long long)checked, (unsigned long long)bad);
        failures += bad;
    }
    CU(cudaFree(dx));
    CU(cudaFree(dy));
    free(hx);
    free(hy);
    free(ref);
    failures += test_16();
    return failures ? 1 : 0;
}
