/* SPDX-License-Identifier: MIT */
/* tests/cuda/test_gemm_tile_host.cpp: the GPU matrix products' code
   (cuda/gemm_tile.cuh, cuda/gemm_conv.cuh) replayed on the host, without a
   GPU, against the plain oracle reference/gemm_ref.h, bit for bit.

   Plain C++ (no nvcc, no GPU).  It runs the very functions the kernels run
   (gemm_block, gemm_block_tile, the panel loads and stores, the 8 x 8
   register chains, conv_im2col_at, conv_col2im_at) with one stand-in: the
   executor plays all 256 threads of a block in turn between barriers
   (X::LANES == 256, in a random thread order), instead of one thread a
   call.  Checked, for every grid the kernel may be given (full grids and
   capped grids whose blocks walk several tiles):
     - every element of C is stored exactly once, nothing outside the
       M x N window (ld padding, other batches) is touched;
     - every element equals the pinned chain (k ascending, init from bias,
       -0 or C, alpha, beta, canonical NaN) of reference/gemm_ref.h: odd
       shapes (1, 7, 33, 130, 257), all transposes, float4 and scalar loads,
       short last panels (an extra step over the zero padding would turn a
       -0 chain into +0: tested), special values;
     - the conv2d pipeline of linalg.cu (im2col, batched gemm, per-image dw
       chain continuation within a micro-batch of 16 images, the tree over
       micro-batches by mb_tree_element in groups of 1, 3 and all partial
       matrices, col2im) against the direct-loop reference convolution
       (whose dw follows the batch order by its recursive tree), for
       workspace chunks of 1 image and of all images, n up to 70.
   What this cannot check (tests/cuda/test_linalg.c does, on a GPU): the
   CUDA code generation, real concurrency (the barrier placement is argued
   in docs/cuda-linalg.md), the launchers' argument handling. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../reference/gemm_ref.h"
#include "gemm_conv.cuh"
#include "gemm_tile.cuh"

using namespace repdl_cuda;

static uint64_t rng = 0x1234567u;
static uint64_t next()
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint32_t bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static float from(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }

/* kind 0: +-[1, 2) (every change of order shows in the last bits);
   1: wide exponents with subnormals, zeros, a few inf and NaN;
   2: +0 (with B negative: every product is -0). */
static float gen(int kind)
{
    uint64_t r = next();
    uint32_t sign = (uint32_t)(r >> 63) << 31;
    switch (kind) {
    case 0: return from(sign | (uint32_t)127 << 23 | (uint32_t)(r & 0x7fffff));
    case 1: {
        uint32_t sel = (uint32_t)(r >> 40) % 64;
        if (sel == 0) return from(sign | 0x7f800000u);
        if (sel == 1) return from(0x7f800001u | (uint32_t)(r & 0x3fffff));
        if (sel < 6) return from(sign | (uint32_t)(r & 0x7fffff)); /* subnormal */
        return from(sign | (uint32_t)(100 + (r >> 8) % 56) << 23 | (uint32_t)(r & 0x7fffff));
    }
    default: return 0.0f;
    }
}

/* The executor of gemm_tile.cuh for the host: all threads of a block, in
   the order perm, per call; stores counted per element of the C buffer. */
struct host_exec {
    enum { LANES = GEMM_NT };
    int perm[GEMM_NT];
    float *base = nullptr;
    std::vector<unsigned> *count = nullptr;
    int tid(int l) const { return perm[l]; }
    void sync() const {}
    void store(float *p, float v)
    {
        (*count)[(size_t)(p - base)]++;
        *p = v;
    }
};

static host_exec make_exec(float *base, std::vector<unsigned> *count)
{
    host_exec x;
    for (int t = 0; t < GEMM_NT; t++) x.perm[t] = t;
    for (int t = GEMM_NT - 1; t > 0; t--) std::swap(x.perm[t], x.perm[next() % (t + 1)]);
    x.base = base;
    x.count = count;
    return x;
}

/* Every block of grid g, as the kernel's grid would run them. */
static void run_grid(const gemm_args &a, gemm_grid g, host_exec &x)
{
    static gemm_smem sm;
    for (size_t bz = 0; bz < g.z; bz++)
        for (size_t by = 0; by < g.y; by++)
            for (size_t bx = 0; bx < g.x; bx++) gemm_block(a, bx, by, bz, g.x, g.y, g.z, &sm, x);
}

static int failures = 0, checks = 0;

/* One gemm case: batch of products with ld padding, replayed under the
   grid caps (cx, cy, cz), compared with ref_gemm_f32 per batch. */
static void gemm_case(int tA, int tB, size_t M, size_t N, size_t K, size_t batch, int kind,
                      int init, float alpha, float beta, int misalign, unsigned cx, unsigned cy,
                      unsigned cz)
{
    size_t pad = 1 + next() % 5;
    size_t rowsA = tA ? K : M, colsA = tA ? M : K, rowsB = tB ? N : K, colsB = tB ? K : N;
    /* misalign: A one float off and odd strides (scalar loads); else
       ld and batch strides multiples of 4 (float4 loads where in range) */
    size_t lda = misalign ? colsA + pad : (colsA + 3) / 4 * 4 + (pad / 2) * 4;
    size_t ldb = misalign ? colsB + 1 : (colsB + 3) / 4 * 4 + 4;
    if (lda == 0) lda = 1;
    if (ldb == 0) ldb = 1;
    size_t ldc = N + pad;
    size_t sA = rowsA * lda + (misalign ? 1 : 4), sB = rowsB * ldb + 4, sC = M * ldc + 3;
    std::vector<float> A(batch * sA + 8), B(batch * sB + 8), bias(batch * (M + N) + 1), C(batch * sC + 8);
    int kb = kind == 2 ? 0 : kind;
    for (auto &v : A) v = gen(kind);
    for (auto &v : B) v = kind == 2 ? -from(0x3f800000u | (uint32_t)(next() & 0x7fffff)) : gen(kb);
    for (auto &v : bias) v = kind == 2 ? -0.0f : gen(kb);
    for (auto &v : C) v = gen(kb);
    std::vector<float> C0 = C;

    gemm_args a;
    memset(&a, 0, sizeof a);
    a.M = M; a.N = N; a.K = K; a.batch = batch;
    a.A = A.data() + misalign; a.lda = lda; a.sA = sA;
    a.B = B.data(); a.ldb = ldb; a.sB = sB;
    a.bias = init == GEMM_INIT_BIAS_COL || init == GEMM_INIT_BIAS_ROW ? bias.data() : nullptr;
    a.sBias = init == GEMM_INIT_BIAS_ROW ? 0 : N;
    a.C = C.data(); a.ldc = ldc; a.sC = sC;
    a.alpha = init == GEMM_INIT_C ? 1.0f : alpha;
    a.beta = init == GEMM_INIT_C ? 0.0f : beta;
    a.transA = tA; a.transB = tB; a.init = init;
    a.mt = gemm_tiles(M, GEMM_BM);
    a.nt = gemm_tiles(N, GEMM_BN);
    a.vecA = K > 0 && gemm_vec_ok(a.A, lda, sA, batch);
    a.vecB = K > 0 && gemm_vec_ok(a.B, ldb, sB, batch);
    std::vector<unsigned> count(C.size(), 0);
    host_exec x = make_exec(C.data(), &count);
    run_grid(a, gemm_plan_grid(a, cx, cy, cz), x);

    /* expected: the oracle per batch, on a copy of C */
    std::vector<float> E = C0;
    for (size_t b = 0; b < batch; b++) {
        const float *Ab = a.A + b * sA, *Bb = B.data() + b * sB;
        float *Eb = E.data() + b * sC;
        if (init == GEMM_INIT_ZERO || init == GEMM_INIT_BIAS_COL) {
            ref_gemm_f32(tA, tB, M, N, K, a.alpha, Ab, lda, Bb, ldb,
                         init == GEMM_INIT_BIAS_COL ? bias.data() + b * N : nullptr, a.beta, Eb,
                         ldc);
        } else if (init == GEMM_INIT_BIAS_ROW) {
            /* bias[i]: the oracle on one row at a time, with a bias
               vector of N copies of bias[i] */
            std::vector<float> rb(N);
            for (size_t i = 0; i < M; i++) {
                std::fill(rb.begin(), rb.end(), bias[i]);
                ref_gemm_f32(tA, tB, 1, N, K, a.alpha, tA ? Ab + i : Ab + i * lda, lda, Bb, ldb,
                             rb.data(), a.beta, Eb + i * ldc, ldc);
            }
        } else {
            /* continuation: the chain from C[i][j], written out */
            for (size_t i = 0; i < M; i++)
                for (size_t j = 0; j < N; j++) {
                    float acc = Eb[i * ldc + j];
                    for (size_t k = 0; k < K; k++)
                        acc = fmaf(tA ? Ab[k * lda + i] : Ab[i * lda + k],
                                   tB ? Bb[j * ldb + k] : Bb[k * ldb + j], acc);
                    Eb[i * ldc + j] = gref_canon(acc);
                }
        }
    }
    size_t bad = 0, badcount = 0;
    for (size_t e = 0; e < C.size(); e++) {
        size_t b = e / sC, off = e % sC, i = off / ldc, j = off % ldc;
        int inside = b < batch && i < M && j < N;
        if (count[e] != (unsigned)inside) badcount++;
        uint32_t got = bits(C[e]), want = bits(inside ? E[e] : C0[e]);
        if (got != want) {
            if (bad++ < 3)
                std::printf("  element b=%zu i=%zu j=%zu: got 0x%08x want 0x%08x\n", b, i, j,
                            got, want);
        }
    }
    checks++;
    if (bad || badcount) {
        failures++;
        std::printf("FAIL gemm tA=%d tB=%d M=%zu N=%zu K=%zu batch=%zu kind=%d init=%d alpha=%g "
                    "beta=%g misalign=%d vec=%d/%d caps=%u,%u,%u: %zu wrong, %zu coverage errors\n",
                    tA, tB, M, N, K, batch, kind, init, alpha, beta, misalign, a.vecA, a.vecB,
                    cx, cy, cz, bad, badcount);
    }
}

/* The conv2d pipeline of linalg.cu, replayed: the same gemm_args as
   conv_forward / conv_backward build, workspace chunks of nb images. */
static void conv_case(const repdl_conv2d_shape &s, size_t nb, size_t tg, int kind)
{
    conv_geom g = conv_geom_of(&s);
    std::vector<float> x(g.n * g.in_sz + 1), w(g.oc * g.CK + 1), b(g.oc + 1), dy(g.n * g.out_sz + 1);
    for (auto &v : x) v = gen(kind);
    for (auto &v : w) v = gen(kind);
    for (auto &v : b) v = gen(kind);
    for (auto &v : dy) v = gen(kind);
    std::vector<float> y(g.n * g.out_sz + 1), dx(g.n * g.in_sz + 1), dw(g.oc * g.CK + 1), ws(nb * g.CK * g.P + 1);
    std::vector<unsigned> cnt_y(y.size()), cnt_dw(dw.size()), cnt_ws(ws.size());

    /* forward */
    gemm_args a;
    memset(&a, 0, sizeof a);
    a.M = g.oc; a.N = g.P; a.K = g.CK;
    a.A = w.data(); a.lda = g.CK;
    a.ldb = g.P; a.sB = g.CK * g.P;
    a.bias = b.data();
    a.ldc = g.P; a.sC = g.out_sz;
    a.alpha = 1.0f; a.init = GEMM_INIT_BIAS_ROW;
    a.mt = gemm_tiles(a.M, GEMM_BM); a.nt = gemm_tiles(a.N, GEMM_BN);
    for (size_t img0 = 0; img0 < g.n; img0 += nb) {
        size_t c = std::min(nb, g.n - img0);
        for (size_t e = 0; e < c * g.CK * g.P; e++) ws[e] = conv_im2col_at<size_t>(g, x.data(), img0, e);
        a.B = ws.data(); a.batch = c; a.C = y.data() + img0 * g.out_sz;
        a.vecA = gemm_vec_ok(a.A, a.lda, 0, c); a.vecB = gemm_vec_ok(a.B, a.ldb, a.sB, c);
        host_exec xe = make_exec(y.data(), &cnt_y);
        run_grid(a, gemm_plan_grid(a, 0, 0, 0), xe);
    }
    /* dw in the batch order: per micro-batch of 16 images, image after
       image continuing the chains (into dw when n <= 16, else into a
       partial matrix), then the tree over micro-batches (mb_tree_element)
       after each group of tg partial matrices, as conv_backward and
       mb_tree_run do */
    memset(&a, 0, sizeof a);
    a.alpha = 1.0f; a.batch = 1;
    a.M = g.oc; a.N = g.CK; a.K = g.P;
    a.lda = g.P; a.transB = 1; a.ldb = g.P; a.ldc = g.CK;
    a.mt = gemm_tiles(a.M, GEMM_BM); a.nt = gemm_tiles(a.N, GEMM_BN);
    size_t G = repdl__mb_count(g.n), V = g.oc * g.CK;
    if (tg > G) tg = G;
    std::vector<float> parts(tg * V + 1), slots(64 * V + 1);
    std::vector<unsigned> cnt_parts(parts.size());
    auto chains = [&](size_t i0, size_t i1, float *C, float *base, std::vector<unsigned> *cnt) {
        a.C = C;
        for (size_t img0 = i0; img0 < i1; img0 += nb) {
            size_t c = std::min(nb, i1 - img0);
            for (size_t e = 0; e < c * g.CK * g.P; e++) ws[e] = conv_im2col_at<size_t>(g, x.data(), img0, e);
            for (size_t i = 0; i < c; i++) {
                a.A = dy.data() + (img0 + i) * g.out_sz;
                a.B = ws.data() + i * g.CK * g.P;
                a.init = img0 + i == i0 ? GEMM_INIT_ZERO : GEMM_INIT_C;
                a.vecA = gemm_vec_ok(a.A, a.lda, 0, 1); a.vecB = gemm_vec_ok(a.B, a.ldb, 0, 1);
                host_exec xe = make_exec(base, cnt);
                run_grid(a, gemm_plan_grid(a, 0, 0, 0), xe);
            }
        }
    };
    size_t dw_stores = g.n;
    if (G <= 1) {
        chains(0, g.n, dw.data(), dw.data(), &cnt_dw);
    } else {
        dw_stores = 1;
        for (size_t g0 = 0; g0 < G; g0 += tg) {
            size_t gn = std::min(tg, G - g0);
            for (size_t k = 0; k < gn; k++) {
                size_t i0 = (g0 + k) * REPDL_MICROBATCH, i1 = std::min(g.n, i0 + REPDL_MICROBATCH);
                chains(i0, i1, parts.data() + k * V, parts.data(), &cnt_parts);
            }
            for (size_t e = 0; e < V; e++) {
                mb_tree_element(parts.data(), gn, V, g0, slots.data(), dw.data(), g0 + gn == G, e);
                if (g0 + gn == G) cnt_dw[e]++;
            }
        }
        /* every partial element: one store per image of its micro-batch */
        for (size_t k = 0; k < tg; k++)
            for (size_t e = 0; e < V; e++) {
                size_t stores = 0;
                for (size_t g1 = k; g1 < G; g1 += tg)
                    stores += std::min(g.n - g1 * REPDL_MICROBATCH, (size_t)REPDL_MICROBATCH);
                if (cnt_parts[k * V + e] != stores) dw_stores = 0; /* fails below */
            }
    }
    /* dx: dcol = w^T dy per image (batched), then col2im */
    memset(&a, 0, sizeof a);
    a.alpha = 1.0f; a.init = GEMM_INIT_ZERO;
    a.M = g.CK; a.N = g.P; a.K = g.oc;
    a.transA = 1; a.A = w.data(); a.lda = g.CK;
    a.ldb = g.P; a.sB = g.out_sz;
    a.ldc = g.P; a.sC = g.CK * g.P; a.C = ws.data();
    a.mt = gemm_tiles(a.M, GEMM_BM); a.nt = gemm_tiles(a.N, GEMM_BN);
    for (size_t img0 = 0; img0 < g.n; img0 += nb) {
        size_t c = std::min(nb, g.n - img0);
        a.B = dy.data() + img0 * g.out_sz; a.batch = c;
        a.vecA = gemm_vec_ok(a.A, a.lda, 0, c); a.vecB = gemm_vec_ok(a.B, a.ldb, a.sB, c);
        std::fill(cnt_ws.begin(), cnt_ws.end(), 0u);
        host_exec xe = make_exec(ws.data(), &cnt_ws);
        run_grid(a, gemm_plan_grid(a, 0, 0, 0), xe);
        for (size_t e = 0; e < c * g.in_sz; e++)
            dx[img0 * g.in_sz + e] = conv_col2im_at<size_t>(g, ws.data(), e);
    }

    ref_conv_shape rs = {s.n, s.c, s.h, s.w, s.oc, s.kh, s.kw, s.stride_h, s.stride_w,
                         s.pad_h, s.pad_w, s.dil_h, s.dil_w};
    std::vector<float> ry(y.size()), rdx(dx.size()), rdw(dw.size()), rdb(g.oc + 1);
    ref_conv2d_forward_f32(&rs, x.data(), w.data(), b.data(), ry.data());
    ref_conv2d_backward_f32(&rs, x.data(), w.data(), dy.data(), rdx.data(), rdw.data(), rdb.data());
    size_t bad = 0;
    for (size_t i = 0; i < g.n * g.out_sz; i++) bad += bits(y[i]) != bits(ry[i]) || cnt_y[i] != 1;
    for (size_t i = 0; i < g.oc * g.CK; i++) bad += bits(dw[i]) != bits(rdw[i]) || cnt_dw[i] != dw_stores;
    for (size_t i = 0; i < g.n * g.in_sz; i++) bad += bits(dx[i]) != bits(rdx[i]);
    checks++;
    if (bad) {
        failures++;
        std::printf("FAIL conv n=%zu c=%zu h=%zu w=%zu oc=%zu k=%zux%zu s=%zu,%zu p=%zu,%zu d=%zu,%zu "
                    "chunk=%zu group=%zu kind=%d: %zu wrong\n", s.n, s.c, s.h, s.w, s.oc, s.kh,
                    s.kw, s.stride_h, s.stride_w, s.pad_h, s.pad_w, s.dil_h, s.dil_w, nb, tg, kind,
                    bad);
    }
}

int main(int argc, char **argv)
{
    int quick = !(argc > 1 && strcmp(argv[1], "--full") == 0);
    const size_t dims[] = {1, 7, 33, 130, 257};
    /* 1. Every transpose, odd shapes, the init modes, alpha/beta. */
    for (int tA = 0; tA < 2; tA++)
        for (int tB = 0; tB < 2; tB++)
            for (size_t M : dims)
                for (size_t N : dims)
                    for (size_t K : {(size_t)0, (size_t)1, (size_t)7, (size_t)33, (size_t)130}) {
                        if (quick && M * N * K > 33 * 257 * 130) continue;
                        int kind = (int)(next() % 3), init = (int)(next() % 4);
                        float alpha = next() % 2 ? 1.0f : -1.5f, beta = next() % 2 ? 0.0f : 0.75f;
                        gemm_case(tA, tB, M, N, K, 1, kind, init, alpha, beta, (int)(next() % 2),
                                  0, 0, 0);
                    }
    std::printf("gemm shapes: %d cases\n", checks);
    /* 2. -0 chains over a short last panel, both load paths. */
    for (size_t K : {(size_t)1, (size_t)5, (size_t)9, (size_t)15, (size_t)17})
        for (int mis = 0; mis < 2; mis++)
            for (int tA = 0; tA < 2; tA++)
                gemm_case(tA, 1 - tA, 9, 130, K, 1, 2, GEMM_INIT_ZERO, 1.0f, 0.0f, mis, 0, 0, 0);
    /* 3. Grids: capped grids walk several tiles a block; batches. */
    const unsigned caps[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 3, 2}, {3, 2, 1}, {0, 0, 1}};
    for (auto &c : caps)
        for (int i = 0; i < 4; i++)
            gemm_case(i & 1, i >> 1, 200 + next() % 200, 130 + next() % 300, 1 + next() % 40,
                      1 + next() % 3, (int)(next() % 2), (int)(next() % 4), 1.0f, 0.0f,
                      (int)(next() % 2), c[0], c[1], c[2]);
    std::printf("gemm grids: %d cases\n", checks);
    /* 4. Conv2d pipeline, chunks of 1 image and of all. */
    repdl_conv2d_shape shapes[] = {
        {2, 3, 7, 7, 5, 3, 3, 1, 1, 1, 1, 1, 1},
        {3, 2, 9, 8, 4, 3, 2, 2, 3, 1, 0, 1, 2},
        {2, 1, 5, 5, 3, 1, 1, 1, 1, 0, 0, 1, 1},
        {1, 4, 6, 6, 2, 5, 5, 3, 3, 2, 2, 1, 1},
        {2, 2, 4, 4, 3, 2, 2, 1, 1, 3, 3, 2, 2},
        {2, 130, 3, 3, 129, 1, 1, 1, 1, 0, 0, 1, 1},
        /* the batch order: several micro-batches of 16 images */
        {17, 2, 4, 4, 3, 3, 3, 1, 1, 1, 1, 1, 1},
        {40, 1, 5, 5, 2, 2, 2, 2, 2, 0, 0, 1, 1},
        {70, 1, 3, 3, 2, 3, 3, 1, 1, 1, 1, 1, 1},
    };
    for (auto &s : shapes)
        for (size_t nb : {(size_t)1, s.n})
            for (int kind = 0; kind < 2; kind++)
                for (size_t tg : {(size_t)1, (size_t)3, (size_t)-1}) { /* tree groups */
                    if (s.n <= REPDL_MICROBATCH && tg != (size_t)-1) continue;
                    conv_case(s, nb, tg, kind);
                }
    std::printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
