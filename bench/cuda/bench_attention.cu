/* SPDX-License-Identifier: MIT */
/* bench/cuda/bench_attention.cu: repdl's attention forward on the GPU
   (repdl_cuda_attention_forward_f32) against a plain FP32 flash-style
   kernel written here as the anchor (issue 30's GPU item: at least 0.5x
   its speed), and repdl's backward (recomputed and from saved scores),
   with each device result compared bit for bit with the host's.

     bench_cuda_attention

   The anchor, plain_flash below: one thread a query row, the row's q and
   output accumulator in registers, the keys and values of a tile of 64
   keys in shared memory for the block's 64 rows, an online softmax
   (running max, rescaled sum and accumulator: FlashAttention's forward in
   its simplest form), CUDA's expf, FMA contraction as nvcc does by
   default.  Its results are not reproducible (the online rescaling makes
   each row's bits depend on the tile size) and it is not repdl's
   definition; it is the speed a user could write in an afternoon.

   Shapes: head_dim 64, batch 1 x 4 heads and batch 8 x 16 heads (128
   rows of heads: enough blocks for a large GPU), sequences 128 .. 2048,
   causal and not.  Reported per shape: the median time (ms) of the
   anchor, of repdl's forward, plain / repdl (>= 0.5: the issue's bar),
   repdl's backward (recomputing the scores), and with the scores saved
   by the forward (the _scores forms); "bits" is the count of out, lse,
   dq, dk, dv elements that differ from the host's (0 expected: a nonzero
   count is printed and makes the exit status 1).  The host comparison
   runs on the smaller shapes only (batch 1 x 4 heads, up to 1024: the
   host takes seconds at the larger).  No GPU: says so and exits 77. */
#include "bench_common.cuh"

#include <repdl/attention.h>

enum { FL_ROWS = 64, FL_KEYS = 64, FL_D = 64 };

/* out of each query row (b h, i): the online softmax over the keys it
   sees, FL_KEYS keys a tile (blocks of FL_ROWS rows of one head). */
__global__ void __launch_bounds__(FL_ROWS)
plain_flash(const float *q, const float *k, const float *v, float *out, int n, float scale,
            int causal)
{
    __shared__ float ks[FL_KEYS][FL_D + 1], vs[FL_KEYS][FL_D + 1];
    int bh = blockIdx.y, i = blockIdx.x * FL_ROWS + threadIdx.x;
    const float *qh = q + (size_t)bh * n * FL_D, *kh = k + (size_t)bh * n * FL_D,
                *vh = v + (size_t)bh * n * FL_D;
    float qr[FL_D], acc[FL_D], m = -INFINITY, l = 0.0f;
#pragma unroll
    for (int c = 0; c < FL_D; c++) {
        qr[c] = i < n ? qh[(size_t)i * FL_D + c] * scale : 0.0f;
        acc[c] = 0.0f;
    }
    int last = causal ? min(n, (int)(blockIdx.x + 1) * FL_ROWS) : n; /* keys any row of the block sees */
    for (int j0 = 0; j0 < last; j0 += FL_KEYS) {
        __syncthreads();
        for (int e = threadIdx.x; e < FL_KEYS * FL_D; e += FL_ROWS) {
            int j = e / FL_D, c = e % FL_D;
            bool in = j0 + j < n;
            ks[j][c] = in ? kh[(size_t)(j0 + j) * FL_D + c] : 0.0f;
            vs[j][c] = in ? vh[(size_t)(j0 + j) * FL_D + c] : 0.0f;
        }
        __syncthreads();
        int jn = min(FL_KEYS, (causal ? min(i + 1, n) : n) - j0);
        for (int j = 0; j < jn; j++) {
            float s = 0.0f;
#pragma unroll
            for (int c = 0; c < FL_D; c++) s += qr[c] * ks[j][c];
            float mn = fmaxf(m, s), a = expf(m - mn), p = expf(s - mn);
            l = l * a + p;
#pragma unroll
            for (int c = 0; c < FL_D; c++) acc[c] = acc[c] * a + p * vs[j][c];
            m = mn;
        }
    }
    if (i < n)
#pragma unroll
        for (int c = 0; c < FL_D; c++) out[((size_t)bh * n + i) * FL_D + c] = acc[c] / l;
}

/* Elements whose bits differ. */
static size_t differ(const float *a, const float *b, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += std::memcmp(a + i, b + i, sizeof(float)) != 0;
    return c;
}

static std::vector<float> to_host(const float *d, size_t n)
{
    std::vector<float> h(n);
    CU(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    return h;
}

int main()
{
    bench_require_gpu("bench_cuda_attention");
    const size_t heads_of[2][2] = {{1, 4}, {8, 16}}; /* batch, heads */
    const int seqs[5] = {128, 256, 512, 1024, 2048};
    const float scale = 0.125f;
    int bad = 0;
    std::vector<double> ratio;
    std::printf("%-5s %-5s %-6s %-6s | %10s %10s %8s | %10s %10s | %s\n", "batch", "heads", "seq",
                "causal", "plain ms", "repdl ms", "plain/rd", "bwd ms", "bwd sc ms", "bits (host)");
    for (auto &bh : heads_of)
        for (int n : seqs)
            for (int causal = 0; causal < 2; causal++) {
                size_t B = bh[0], H = bh[1], m = B * H * (size_t)n * FL_D, rows = B * H * (size_t)n;
                repdl_attention_shape s;
                s.batch = B; s.hq = s.hkv = H; s.nq = s.nk = (size_t)n; s.d = FL_D;
                s.q_pos0 = 0; s.kv_stride = 0; s.causal = causal;
                float *q, *k, *v, *g, *o, *po, *l, *dq, *dk, *dv, *sc;
                CU(cudaMalloc((void **)&q, m * sizeof(float)));
                CU(cudaMalloc((void **)&k, m * sizeof(float)));
                CU(cudaMalloc((void **)&v, m * sizeof(float)));
                CU(cudaMalloc((void **)&g, m * sizeof(float)));
                CU(cudaMalloc((void **)&o, m * sizeof(float)));
                CU(cudaMalloc((void **)&po, m * sizeof(float)));
                CU(cudaMalloc((void **)&dq, m * sizeof(float)));
                CU(cudaMalloc((void **)&dk, m * sizeof(float)));
                CU(cudaMalloc((void **)&dv, m * sizeof(float)));
                CU(cudaMalloc((void **)&l, rows * sizeof(float)));
                CU(cudaMalloc((void **)&sc, rows * (size_t)n * sizeof(float)));
                fill(q, m, -1.0f, 1.0f);
                fill(k, m, -1.0f, 1.0f);
                fill(v, m, -1.0f, 1.0f);
                fill(g, m, -1.0f, 1.0f);
                dim3 grid((unsigned)((n + FL_ROWS - 1) / FL_ROWS), (unsigned)(B * H));
                double tp = median_ms([&] { plain_flash<<<grid, FL_ROWS>>>(q, k, v, po, n, scale, causal); }, 11, 2);
                double tr = median_ms([&] {
                    RD(repdl_cuda_attention_forward_f32(&s, scale, q, k, v, nullptr, nullptr, o, l, nullptr));
                }, 11, 2);
                double tb = median_ms([&] {
                    RD(repdl_cuda_attention_backward_f32(&s, scale, q, k, v, nullptr, nullptr, o, l, g, dq, dk,
                                                         dv, nullptr));
                }, 5, 1);
                RD(repdl_cuda_attention_forward_scores_f32(&s, scale, q, k, v, nullptr, nullptr, o, l, sc, nullptr));
                double ts = median_ms([&] {
                    RD(repdl_cuda_attention_backward_scores_f32(&s, scale, q, k, v, nullptr, nullptr, o, l, sc, g,
                                                                dq, dk, dv, nullptr));
                }, 5, 1);
                CU(cudaDeviceSynchronize());
                char bits[96] = "not compared";
                if (B == 1 && n <= 1024) { /* the host's bits */
                    std::vector<float> hq = to_host(q, m), hk = to_host(k, m), hv = to_host(v, m),
                                       hg = to_host(g, m), ho(m), hl(rows), hdq(m), hdk(m), hdv(m);
                    std::vector<float> gdq = to_host(dq, m), gdk = to_host(dk, m), gdv = to_host(dv, m);
                    RD(repdl_attention_forward_f32(&s, scale, hq.data(), hk.data(), hv.data(), nullptr, nullptr,
                                                   ho.data(), hl.data()));
                    RD(repdl_attention_backward_f32(&s, scale, hq.data(), hk.data(), hv.data(), nullptr, nullptr,
                                                    ho.data(), hl.data(), hg.data(), hdq.data(), hdk.data(),
                                                    hdv.data()));
                    size_t d1 = differ(to_host(o, m).data(), ho.data(), m), d2 = differ(to_host(l, rows).data(), hl.data(), rows),
                           d3 = differ(gdq.data(), hdq.data(), m), d4 = differ(gdk.data(), hdk.data(), m),
                           d5 = differ(gdv.data(), hdv.data(), m);
                    /* and the recomputing backward's bits, rerun */
                    RD(repdl_cuda_attention_backward_f32(&s, scale, q, k, v, nullptr, nullptr, o, l, g, dq, dk, dv,
                                                         nullptr));
                    size_t d6 = differ(to_host(dq, m).data(), hdq.data(), m) + differ(to_host(dk, m).data(), hdk.data(), m) +
                                differ(to_host(dv, m).data(), hdv.data(), m);
                    std::snprintf(bits, sizeof bits, "out %zu lse %zu dq %zu dk %zu dv %zu (scores); bwd %zu", d1, d2,
                                  d3, d4, d5, d6);
                    bad |= d1 || d2 || d3 || d4 || d5 || d6;
                }
                ratio.push_back(tp / tr);
                std::printf("%-5zu %-5zu %-6d %-6d | %10.3f %10.3f %8.3f | %10.3f %10.3f | %s\n", B, H, n, causal,
                            tp, tr, tp / tr, tb, ts, bits);
                std::fflush(stdout);
                float *all[] = {q, k, v, g, o, po, l, dq, dk, dv, sc};
                for (float *p : all) CU(cudaFree(p));
            }
    std::sort(ratio.begin(), ratio.end());
    std::printf("plain/repdl forward: median %.3f, worst %.3f (>= 0.5: issue 30's bar)\n", ratio[ratio.size() / 2],
                ratio[0]);
    if (bad) std::printf("FAIL: device bits differ from the host's\n");
    return bad ? 1 : 0;
}
