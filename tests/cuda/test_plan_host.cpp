/* SPDX-License-Identifier: MIT */
/* tests/cuda/test_plan_host.cpp: the split of the CUDA reduction into warps,
   blocks and grid (cuda/reduce_plan.cuh), checked on the host, without a
   GPU, against repdl_sum_f32 / repdl_dot_f32, bit for bit.

   Plain C++ on the host (no nvcc, no GPU).  It runs the index
   functions and combining steps that the kernels run (warp_run,
   warps_in_chunk, combine_in_order, group_size, group_value, make_plan,
   repdl__tree), in the
   kernels' order, with two stand-ins for the parallel parts:
     - the leaf as the warp computes it: lanes t and t + 32 added, then t
       and t + 16, then repdl__sum_fold16_f32 (the shuffles of
       cuda/leaf_sum.cuh, written as loops over t);
     - the in-place pairwise loops (block_pairwise, one thread per index),
       written as the sequential loop of reduce.h.
   What this cannot check (the GPU tests do): the CUDA code itself, memory
   ordering of the ticket, shuffles. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "reduce_plan.cuh"

using namespace repdl_cuda;

static uint64_t rng = 12345;
static uint64_t next()
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint32_t bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static float from(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }

static float gen(int kind)
{
    uint64_t r = next();
    uint32_t sign = (uint32_t)(r >> 63) << 31;
    switch (kind) {
    case 0: return from(sign | (uint32_t)(107 + (r >> 8) % 41) << 23 | (uint32_t)(r & 0x7fffff));
    case 1: return from(sign | (uint32_t)((r >> 8) % 0x7f800000u));
    case 2: return from(sign | (uint32_t)(250 + (r >> 8) % 5) << 23 | (uint32_t)(r & 0x7fffff));
    case 4: return from(sign | (uint32_t)127 << 23 | (uint32_t)(r & 0x7fffff)); /* +-[1, 2): order shows */
    default: return (r >> 8) % 1000 == 0 ? from(0x7f800001u | (uint32_t)(r & 0x3fffff)) : from(sign | (uint32_t)((r >> 8) % 0x00800000u));
    }
}

/* The warp's leaf (cuda/leaf_sum.cuh, warp_leaf_columns) with the shuffles as loops. */
static float leaf_as_warp(const float *c)
{
    float a[32], b[16];
    for (int t = 0; t < 32; t++)
        a[t] = repdl__fadd(repdl__sum_column_f32(c + t), repdl__sum_column_f32(c + t + 32));
    for (int t = 0; t < 16; t++) b[t] = repdl__fadd(a[t], a[t + 16]); /* shfl_down 16 */
    return repdl__sum_fold16_f32(b);
}

/* Leaf values of x (or of the products x*y) as the device stages them:
   full sum leaves read in place, the rest through a buffer padded with
   -0.0. */
static std::vector<float> leaves(const float *x, const float *y, size_t n)
{
    std::vector<float> v(leaves_of(n));
    float buf[1024];
    for (size_t j = 0; j < v.size(); j++) {
        size_t base = j * 1024, len = n - base < 1024 ? n - base : 1024;
        if (!y && len == 1024) {
            v[j] = leaf_as_warp(x + base);
            continue;
        }
        for (size_t i = 0; i < 1024; i++)
            buf[i] = i < len ? (y ? repdl__fmul(x[base + i], y[base + i]) : x[base + i]) : -0.0f;
        v[j] = leaf_as_warp(buf);
    }
    return v;
}

static float walk(const std::vector<float> &lv, size_t first, size_t count)
{
    repdl__tree t;
    repdl__tree_init(&t);
    for (size_t j = 0; j < count; j++) repdl__tree_push(&t, 0, lv[first + j]);
    return repdl__tree_root(&t);
}

/* The kernels' evaluation of one row under plan p. */
static float run_plan(const std::vector<float> &lv, const plan &p)
{
    if (p.per_warp) return repdl__canon(walk(lv, 0, p.nleaf));
    std::vector<float> chunk(p.bpr);
    for (size_t c = 0; c < p.bpr; c++) {
        float wv[32];
        for (unsigned w = 0; w < p.warps; w++) {
            size_t first, count = warp_run(c, w, p.warps, p.lpw, p.nleaf, &first);
            wv[w] = walk(lv, first, count);
        }
        chunk[c] = combine_in_order(wv, warps_in_chunk(c, p.warps, p.lpw, p.nleaf));
    }
    if (p.bpr == 1) return repdl__canon(chunk[0]);
    /* the last block's combine: groups of G, then the pairwise loop */
    size_t G = group_size(p.bpr, p.threads), m = p.bpr / G + (p.bpr % G != 0);
    std::vector<float> b(m);
    for (size_t i = 0; i < m; i++)
        b[i] = group_value(&chunk[i * G], p.bpr - i * G < G ? p.bpr - i * G : G,
                           [](const float *q) { return *q; });
    for (size_t s = 1; s < m; s *= 2)
        for (size_t i = 0; i + s < m; i += 2 * s) b[i] = repdl__fadd(b[i], b[i + s]);
    return repdl__canon(b[0]);
}

int main()
{
    int failures = 0, checks = 0;
    /* 1. The warp's leaf mapping against reduce.h's leaf, raw bits. */
    std::vector<float> x(1024);
    for (int trial = 0; trial < 20000; trial++) {
        int kind = trial % 5;
        for (auto &v : x) v = gen(kind);
        /* NaN payloads are not part of the contract (and the host compiler
           may commute an addition's operands): compare canonicalised. */
        float a = repdl__canon(leaf_as_warp(x.data()));
        float b = repdl__canon(repdl__sum_leaf_full_f32(x.data()));
        checks++;
        if (bits(a) != bits(b)) {
            if (failures++ < 10) std::printf("FAIL leaf trial %d: warp 0x%08x, reduce.h 0x%08x\n", trial, bits(a), bits(b));
        }
    }
    std::printf("leaf mapping: %d leaves\n", checks);

    /* 2. Plans: sizes, every block size, many leaves-per-warp, automatic plans. */
    size_t sizes[64];
    int ns = 0;
    const size_t fixed[] = {0, 1, 5, 1023, 1024, 1025, 2048, 3000, 8192, 8193, 65536 + 7,
                            (size_t)1 << 20, ((size_t)1 << 20) + 1024 * 37 + 3};
    for (size_t f : fixed) sizes[ns++] = f;
    while (ns < 40) sizes[ns++] = next() % ((size_t)1 << (1 + next() % 23));
    int plans = 0;
    for (int si = 0; si < ns; si++) {
        size_t n = sizes[si];
        std::vector<float> xs(n + 1), ys(n + 1);
        /* every other size: +-[1, 2), where any change of order shows */
        int kind = si % 2 ? 4 : (int)(next() % 5);
        for (auto &v : xs) v = gen(kind);
        for (auto &v : ys) v = gen((int)(next() % 5));
        std::vector<float> ls = leaves(xs.data(), nullptr, n), ld = leaves(xs.data(), ys.data(), n);
        float want_s = repdl_sum_f32(n, xs.data()), want_d = repdl_dot_f32(n, xs.data(), ys.data());
        std::vector<repdl_cuda_config> cfgs;
        for (unsigned th = 32; th <= 256; th *= 2) {
            cfgs.push_back({th, 0, 0, 1});
            for (unsigned l = 1; l <= 4096; l *= 4) cfgs.push_back({th, 0, l, 0});
        }
        cfgs.push_back({0, 0, 0, 0});
        for (auto &c : cfgs) {
            /* resident blocks of a device: from one to an H200's 132 SMs x 8 */
            for (size_t resident : {(size_t)1, (size_t)5, (size_t)46 * 3, (size_t)132 * 8}) {
                for (size_t rows : {(size_t)1, (size_t)7, (size_t)100000}) {
                    plan p;
                    if (check_config(&c) != REPDL_OK ||
                        make_plan(rows, n, resident, &c, &p) != REPDL_OK) {
                        std::printf("FAIL make_plan refused a valid configuration\n");
                        failures++;
                        continue;
                    }
                    if (!p.per_warp && (size_t)1 << 22 < p.bpr) continue; /* too slow here */
                    plans++;
                    float gs = run_plan(ls, p), gd = run_plan(ld, p);
                    if (bits(gs) != bits(want_s) || bits(gd) != bits(want_d)) {
                        if (failures++ < 10)
                            std::printf("FAIL n=%zu threads=%u lpw=%zu bpr=%zu per_warp=%d: "
                                        "sum 0x%08x vs 0x%08x, dot 0x%08x vs 0x%08x\n",
                                        n, p.threads, p.lpw, p.bpr, p.per_warp, bits(gs),
                                        bits(want_s), bits(gd), bits(want_d));
                    }
                    if (c.leaves_per_warp || c.row_per_warp) break; /* rows only matter for auto */
                }
            }
        }
    }
    std::printf("plans: %d sizes, %d plans evaluated\n", ns, plans);

    /* 3. Huge rows (no data): the runs of the warps tile the leaves exactly,
       in order, and the grid and workspace stay in range. */
    const size_t huge[] = {((size_t)1 << 32) + 5, (size_t)1 << 40, ((size_t)1 << 40) + 1023,
                           ((size_t)1 << 44) + 12345};
    for (size_t n : huge) {
        for (unsigned th = 32; th <= 256; th *= 2) {
            repdl_cuda_config c = {th, 0, 0, 0};
            plan p;
            if (make_plan(1, n, 132 * 8, &c, &p) != REPDL_OK || p.per_warp ||
                p.grid == 0 || p.grid > 0x7fffffffu || p.nleaf != (n + 1023) / 1024) {
                std::printf("FAIL huge n=%zu: plan refused or out of range\n", n);
                failures++;
                continue;
            }
            size_t next = 0;
            int bad = 0;
            for (size_t ch = 0; ch < p.bpr && !bad; ch++) {
                unsigned nonempty = 0;
                for (unsigned w = 0; w < p.warps; w++) {
                    size_t first, count = warp_run(ch, w, p.warps, p.lpw, p.nleaf, &first);
                    if (count == 0) continue;
                    nonempty++;
                    /* aligned run of lpw leaves (the last may be short) */
                    if (first != next || first % p.lpw != 0 || (count != p.lpw && first + count != p.nleaf))
                        bad = 1;
                    next = first + count;
                }
                if (nonempty != warps_in_chunk(ch, p.warps, p.lpw, p.nleaf)) bad = 1;
            }
            if (bad || next != p.nleaf) {
                std::printf("FAIL huge n=%zu threads=%u: runs do not tile the leaves\n", n, th);
                failures++;
            }
            checks++;
        }
    }
    std::printf("huge rows: tiling checked up to n = 2^44\n");

    /* 4. make_plan's refusals. */
    const repdl_cuda_config bad[] = {{16, 0, 0, 0}, {48, 0, 0, 0}, {512, 0, 0, 0}, {0, 0, 3, 0},
                                     {0, 0, 0, 2}, {0, 0x80000000u, 0, 0}, {0, 0, 4, 1},
                                     {0, 0, (1u << 31), 0}};
    for (const auto &c : bad) {
        if (check_config(&c) != REPDL_ERR_INVALID) {
            std::printf("FAIL make_plan accepted {%u, %u, %u, %u}\n", c.threads, c.grid,
                        c.leaves_per_warp, c.row_per_warp);
            failures++;
        }
    }
    std::printf("%s: %d failures\n", failures ? "FAIL" : "ok", failures);
    return failures ? 1 : 0;
}
