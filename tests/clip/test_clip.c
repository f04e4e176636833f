/* SPDX-License-Identifier: MIT */
/* tests/clip/test_clip.c: the global gradient norm and clipping
   (include/repdl/clip.h) against reference/clip_ref.h, bit for bit:
     - lists of 1 to 2100 tensors (more than one leaf of per-tensor values)
       of sizes 0 to 5000, with clipping on and off;
     - the per-tensor sums may be computed anywhere: each by the threaded
       dot of reduce_threads.h at 1 to 4 threads, then the canonical sum of
       the list, gives the same norm;
     - the rule of clipping: untouched when max_norm / (norm + eps) >= 1 (the
       gradient bits compared), scaled when below 1 even with norm <=
       max_norm (eps pushes it over, as in PyTorch), max_norm +inf, 0;
     - NaN and infinite norms (a NaN or inf element, squares that overflow):
       the norm returned (canonical NaN, +inf), the gradients untouched;
     - bad input: a status and nothing written; under flush-to-zero
       REPDL_ERR_FPENV (x86, MXCSR). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/clip.h>
#include <repdl/reduce_threads.h>

#include "clip_ref.h"
#include "../common/check.h"
#include "../common/splitmix64.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

static splitmix64 rng;

static float rnd(float scale)
{
    return (float)((int32_t)(uint32_t)(splitmix64_next(&rng) >> 32)) * 0x1p-31f * scale;
}

typedef struct {
    size_t count;
    size_t *sizes;
    float **g;
} list;

static list make_list(size_t count, size_t maxsize, float scale)
{
    list l;
    size_t t, i;
    l.count = count;
    l.sizes = (size_t *)malloc((count ? count : 1) * sizeof(size_t));
    l.g = (float **)malloc((count ? count : 1) * sizeof(float *));
    for (t = 0; t < count; t++) {
        l.sizes[t] = (size_t)(splitmix64_next(&rng) % (maxsize + 1));
        l.g[t] = (float *)malloc((l.sizes[t] ? l.sizes[t] : 1) * sizeof(float));
        for (i = 0; i < l.sizes[t]; i++) l.g[t][i] = rnd(scale);
    }
    return l;
}

static list copy_list(const list *a)
{
    list l;
    size_t t;
    l.count = a->count;
    l.sizes = (size_t *)malloc((a->count ? a->count : 1) * sizeof(size_t));
    l.g = (float **)malloc((a->count ? a->count : 1) * sizeof(float *));
    for (t = 0; t < a->count; t++) {
        l.sizes[t] = a->sizes[t];
        l.g[t] = (float *)malloc((a->sizes[t] ? a->sizes[t] : 1) * sizeof(float));
        memcpy(l.g[t], a->g[t], a->sizes[t] * sizeof(float));
    }
    return l;
}

static void free_list(list *l)
{
    size_t t;
    for (t = 0; t < l->count; t++) free(l->g[t]);
    free(l->g);
    free(l->sizes);
}

static int lists_same(const list *a, const list *b)
{
    size_t t;
    for (t = 0; t < a->count; t++)
        if (a->sizes[t] && memcmp(a->g[t], b->g[t], a->sizes[t] * sizeof(float))) return 0;
    return 1;
}

/* clip.h against the reference, and the gradients against the reference's. */
static void check_clip(const list *l, float max_norm, float eps, const char *what)
{
    list a = copy_list(l), r = copy_list(l);
    float nrm = -1.0f, rn, gn = -1.0f;
    CHECK(repdl_grad_norm_f32(l->count, l->sizes, (const float *const *)l->g, &gn) == REPDL_OK, "%s", what);
    CHECK(repdl_clip_grad_norm_f32(a.count, a.sizes, max_norm, eps, a.g, &nrm) == REPDL_OK, "%s", what);
    rn = ref_clip(r.count, r.sizes, max_norm, eps, r.g);
    CHECK_BITS(nrm, rn, "%s: norm", what);
    CHECK_BITS(gn, rn, "%s: grad_norm", what);
    CHECK(lists_same(&a, &r), "%s: clipped gradients", what);
    free_list(&a);
    free_list(&r);
}

static void test_reference(void)
{
    static const struct { size_t count, maxsize; float scale; } cases[] = {
        {1, 5000, 1.0f}, {3, 1025, 0.01f}, {17, 3000, 1e-3f}, {1024, 40, 1.0f},
        {1025, 3, 1.0f}, {2100, 12, 0.1f}, {0, 0, 1.0f}, {5, 0, 1.0f},
    };
    static const float max_norms[] = {1.0f, 1e6f, 0.0f, 0.25f};
    size_t k, m;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        list l = make_list(cases[k].count, cases[k].maxsize, cases[k].scale);
        for (m = 0; m < 4; m++) {
            char what[80];
            snprintf(what, sizeof what, "case %zu max_norm %g", k, (double)max_norms[m]);
            check_clip(&l, max_norms[m], 1e-6f, what);
        }
        free_list(&l);
    }
}

/* Each tensor's sum of squares computed by the threaded dot (as a thread,
   unit or rank that owns the tensor would), then the canonical sum of the
   list: the norm of clip.h. */
static void test_split(void)
{
    list l = make_list(40, 70000, 1.0f);
    float *part = (float *)malloc(l.count * sizeof(float)), nrm;
    unsigned T;
    size_t t;
    CHECK(repdl_grad_norm_f32(l.count, l.sizes, (const float *const *)l.g, &nrm) == REPDL_OK, "norm");
    for (T = 1; T <= 4; T++) {
        for (t = 0; t < l.count; t++) part[t] = repdl_dot_threads_f32(l.sizes[t], (int)T, l.g[t], l.g[t]);
        CHECK_BITS(repdl_sqrt_f32(repdl_sum_f32(l.count, part)), nrm, "threads %u", T);
    }
    free(part);
    free_list(&l);
}

static void test_rule(void)
{
    /* one tensor {3, 4}: norm 5 exactly */
    float g[2], *gp[1], nrm;
    size_t sz[1] = {2};
    gp[0] = g;
    /* max_norm 5, eps 0: c = 1, untouched */
    g[0] = 3.0f; g[1] = 4.0f;
    CHECK(repdl_clip_grad_norm_f32(1, sz, 5.0f, 0.0f, gp, &nrm) == REPDL_OK, "rule");
    CHECK_BITS(nrm, 5.0f, "norm 5");
    CHECK(asuint(g[0]) == asuint(3.0f) && asuint(g[1]) == asuint(4.0f), "c = 1 leaves them");
    /* max_norm 5, eps 1e-6: norm <= max_norm but c = 5 / RN(5 + 1e-6) < 1: scaled */
    CHECK(repdl_clip_grad_norm_f32(1, sz, 5.0f, 1e-6f, gp, &nrm) == REPDL_OK, "rule");
    {
        volatile float den = 5.0f + 1e-6f, c = 5.0f / den, a = 3.0f * c, b = 4.0f * c;
        CHECK(c < 1.0f, "the case is one that scales");
        CHECK_BITS(g[0], a, "eps scales");
        CHECK_BITS(g[1], b, "eps scales");
    }
    /* max_norm 1: c = RN(1/5) */
    g[0] = 3.0f; g[1] = -4.0f;
    CHECK(repdl_clip_grad_norm_f32(1, sz, 1.0f, 0.0f, gp, NULL) == REPDL_OK, "norm NULL accepted");
    {
        volatile float c = 1.0f / 5.0f, a = 3.0f * c, b = -4.0f * c;
        CHECK_BITS(g[0], a, "scaled");
        CHECK_BITS(g[1], b, "scaled");
    }
    /* max_norm +inf: never */
    g[0] = 3e30f; g[1] = 4e30f;
    CHECK(repdl_clip_grad_norm_f32(1, sz, asfloat(0x7f800000u), 0.0f, gp, &nrm) == REPDL_OK, "inf");
    CHECK(asuint(g[0]) == asuint(3e30f) && asuint(g[1]) == asuint(4e30f), "max_norm inf leaves them");
    /* max_norm 0: zeros with their signs */
    g[0] = 3.0f; g[1] = -4.0f;
    CHECK(repdl_clip_grad_norm_f32(1, sz, 0.0f, 1e-6f, gp, &nrm) == REPDL_OK, "zero");
    CHECK(asuint(g[0]) == 0u && asuint(g[1]) == 0x80000000u, "max_norm 0 gives +-0");
    /* non-finite norms: untouched, the norm says so */
    {
        static const uint32_t bad[3][2] = {{0x7fc12345u, 0x3f800000u},  /* NaN */
                                           {0x7f800000u, 0x3f800000u},  /* inf */
                                           {0x7f000000u, 0x3f800000u}}; /* 2^127: square overflows */
        static const uint32_t want[3] = {0x7fc00000u, 0x7f800000u, 0x7f800000u};
        int k;
        for (k = 0; k < 3; k++) {
            g[0] = asfloat(bad[k][0]); g[1] = asfloat(bad[k][1]);
            CHECK(repdl_clip_grad_norm_f32(1, sz, 1.0f, 1e-6f, gp, &nrm) == REPDL_OK, "nonfinite");
            CHECK(asuint(nrm) == want[k], "non-finite %d: norm %08x", k, (unsigned)asuint(nrm));
            CHECK(asuint(g[0]) == bad[k][0] && asuint(g[1]) == bad[k][1], "non-finite %d touched", k);
        }
    }
    /* no tensor, empty tensors: norm -0, nothing to do */
    CHECK(repdl_clip_grad_norm_f32(0, NULL, 1.0f, 0.0f, NULL, &nrm) == REPDL_OK, "empty list");
    CHECK(asuint(nrm) == 0x80000000u, "empty list: -0");
    {
        size_t z[2] = {0, 0};
        float *nul[2] = {NULL, NULL};
        CHECK(repdl_clip_grad_norm_f32(2, z, 1.0f, 0.0f, nul, &nrm) == REPDL_OK, "empty tensors");
        CHECK(asuint(nrm) == 0x80000000u, "empty tensors: -0");
    }
}

static void test_bad_input(void)
{
    float g[2] = {3.0f, 4.0f}, *gp[2], nrm;
    const float *cg[1];
    size_t sz[2] = {2, 1};
    const float nan = asfloat(0x7fc00000u), inf = asfloat(0x7f800000u);
    struct { float max_norm, eps; int null_arg; } cases[] = {
        {nan, 0.0f, 0}, {-1.0f, 0.0f, 0}, {1.0f, nan, 0}, {1.0f, -1e-6f, 0}, {1.0f, inf, 0},
        {1.0f, 0.0f, 1}, {1.0f, 0.0f, 2}, {1.0f, 0.0f, 3},
    };
    size_t k;
    gp[0] = g; gp[1] = g;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        nrm = asfloat(0x7fa5a5a5u);
        gp[1] = cases[k].null_arg == 3 ? NULL : g;
        g[0] = 300.0f; g[1] = 400.0f;
        CHECK(repdl_clip_grad_norm_f32(2, cases[k].null_arg == 1 ? NULL : sz, cases[k].max_norm,
                                       cases[k].eps, cases[k].null_arg == 2 ? NULL : gp,
                                       &nrm) == REPDL_ERR_INVALID,
              "bad case %zu", k);
        CHECK(asuint(nrm) == 0x7fa5a5a5u && g[0] == 300.0f && g[1] == 400.0f, "bad case %zu wrote", k);
    }
    cg[0] = g;
    CHECK(repdl_grad_norm_f32(1, sz, cg, NULL) == REPDL_ERR_INVALID, "grad_norm NULL out");
    CHECK(repdl_grad_norm_f32(1, NULL, cg, &nrm) == REPDL_ERR_INVALID, "grad_norm NULL sizes");
    CHECK(repdl_grad_norm_f32(1, sz, NULL, &nrm) == REPDL_ERR_INVALID, "grad_norm NULL grads");
}

/* Under flush-to-zero (MXCSR's FTZ bit): REPDL_ERR_FPENV, nothing written. */
static void test_fpenv(void)
{
#ifdef HAVE_MXCSR
    float g[2] = {3.0f, 4.0f}, *gp[1], nrm = -7.0f, gn = -7.0f;
    const float *cg[1];
    size_t sz[1] = {2};
    unsigned old = _mm_getcsr();
    repdl_status a, b;
    gp[0] = g;
    cg[0] = g;
    _mm_setcsr(old | 0x8000u);
    a = repdl_clip_grad_norm_f32(1, sz, 1.0f, 0.0f, gp, &nrm);
    b = repdl_grad_norm_f32(1, sz, cg, &gn);
    _mm_setcsr(old);
    CHECK(a == REPDL_ERR_FPENV && b == REPDL_ERR_FPENV, "FTZ: %d %d", (int)a, (int)b);
    CHECK(nrm == -7.0f && gn == -7.0f && g[0] == 3.0f && g[1] == 4.0f, "FTZ: written");
#endif
}

int main(void)
{
    splitmix64_seed(&rng, 31);
    test_reference();
    test_split();
    test_rule();
    test_bad_input();
    test_fpenv();
    return check_summary("test_clip");
}
