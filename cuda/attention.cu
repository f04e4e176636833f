/* SPDX-License-Identifier: MIT */
/* cuda/attention.cu: attention forward and backward on the GPU, from the
   row functions of include/repdl/attention.h.

   The launchers run the header's own checks on the host
   (repdl__attn_fwd_setup, repdl__attn_bwd_setup: the same statuses for the
   same arguments), take one stream-ordered workspace and launch W device
   threads (W = min(units, ATTN_WORKERS)), each with its own slice of the
   workspace laid out by repdl__attn_ws_attach, each running the header's
   row functions over the units u = t, t + W, ... : repdl__attn_fwd_row for
   the forward; for the backward repdl__attn_bwd_row (P, dS, dq: one kernel)
   and then repdl__attn_bwd_key (dk, dv: a second kernel, after the first
   in stream order).  A row's bits depend only on its own inputs (the
   header's definition), so they are the host's whatever W, the grid or the
   device. */
#include <repdl/attention.h>

#include "common.cuh"

namespace repdl_cuda {

enum { ATTN_THREADS = 64, ATTN_WORKERS = 2048 };

/* dk and dv of a backward with no query row: the empty sums (the host's
   repdl__attn_bwd_empty), one element a thread. */
__global__ void __launch_bounds__(256)
attention_empty_kernel(repdl__attn a, size_t count)
{
    size_t stride = (size_t)gridDim.x * blockDim.x, row = a.s.nk * a.s.d;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += stride) {
        size_t kh = e / row, rest = e - kh * row, at = kh * a.R * a.s.d + rest;
        if (a.dk) a.dk[at] = repdl__fmul(a.scale, -0.0f);
        if (a.dv) a.dv[at] = -0.0f;
    }
}

/* One kernel per phase (one function each: a kernel holding the three
   compiles several times slower).  Worker t < W owns slice t of ws and the
   units t, t + W, ... */
#define REPDL_CUDA_ATTN_KERNEL(name, backward, ROW)                                        \
    __global__ void __launch_bounds__(ATTN_THREADS)                                       \
    name(repdl__attn a, char *ws, size_t ws_stride, size_t units, size_t W)                \
    {                                                                                     \
        size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;                          \
        repdl__attn_ws w;                                                                 \
        if (t >= W || t >= units) return;                                                 \
        repdl__attn_ws_attach(&w, &a, backward, ws + t * ws_stride);                      \
        for (size_t u = t; u < units; u += W) ROW(&a, &w, u);                             \
    }
REPDL_CUDA_ATTN_KERNEL(attention_fwd_kernel, 0, repdl__attn_fwd_row)
REPDL_CUDA_ATTN_KERNEL(attention_bwd_row_kernel, 1, repdl__attn_bwd_row)
REPDL_CUDA_ATTN_KERNEL(attention_bwd_key_kernel, 1, repdl__attn_bwd_key)
#undef REPDL_CUDA_ATTN_KERNEL

/* The workspace of W workers (one slice each, 256-byte aligned) and, in
   the backward, P and dS behind them; then the kernels of the phases. */
static int run(repdl__attn *a, size_t nrows, int backward, void *stream)
{
    size_t nkr = a->s.batch * a->s.hkv * a->s.nk, units = backward && nkr > nrows ? nkr : nrows;
    size_t W = units < (size_t)ATTN_WORKERS ? units : (size_t)ATTN_WORKERS;
    size_t stride = repdl__attn_ws_bytes(a, backward), bytes, pm = 0;
    void *ws;
    int st = REPDL_OK;
    cudaError_t e;
    if (stride == 0 || stride > (size_t)-1 - 255) return REPDL_ERR_OVERFLOW;
    stride = (stride + 255) / 256 * 256;
    if (!mul_ok(W, stride, &bytes)) return REPDL_ERR_OVERFLOW;
    if (backward) { /* 2 nrows nk floats: checked by repdl__attn_bwd_setup */
        pm = 2 * nrows * a->s.nk * sizeof(float);
        if (bytes > (size_t)-1 - pm) return REPDL_ERR_OVERFLOW;
    }
    REPDL_CUDA_TRY(device_ready());
    e = workspace_alloc(&ws, bytes + pm, as_stream(stream));
    if (e != cudaSuccess) return fail_alloc(e);
    if (backward && pm) {
        a->P = (float *)((char *)ws + bytes);
        a->dS = a->P + nrows * a->s.nk;
    }
    unsigned grid = grid_blocks(W, ATTN_THREADS, (size_t)-1);
    if (!backward) {
        st = launch(attention_fwd_kernel, grid, ATTN_THREADS, stream, *a, (char *)ws, stride, nrows, W);
    } else {
        st = launch(attention_bwd_row_kernel, grid, ATTN_THREADS, stream, *a, (char *)ws, stride,
                    nrows, W);
        if (st == REPDL_OK)
            st = launch(attention_bwd_key_kernel, grid, ATTN_THREADS, stream, *a, (char *)ws, stride,
                        nkr, W);
    }
    e = workspace_free(ws, as_stream(stream));
    if (st == REPDL_OK && e != cudaSuccess) st = fail_cuda(e);
    return st;
}

} // namespace repdl_cuda

using namespace repdl_cuda;

extern "C" int repdl_cuda_attention_forward_scores_f32(const struct repdl_attention_shape *s,
                                                       float scale, const float *q, const float *k,
                                                       const float *v, const float *mask,
                                                       const unsigned char *key_keep, float *out,
                                                       float *lse, float *scores, void *stream)
{
    repdl__attn a;
    size_t nrows;
    int st = repdl__attn_fwd_setup(&a, s, scale, q, k, v, mask, key_keep, out, lse, scores, &nrows);
    if (st != REPDL_OK || nrows == 0) return st;
    return run(&a, nrows, 0, stream);
}

extern "C" int repdl_cuda_attention_forward_f32(const struct repdl_attention_shape *s,
                                                float scale, const float *q, const float *k,
                                                const float *v, const float *mask,
                                                const unsigned char *key_keep, float *out,
                                                float *lse, void *stream)
{
    return repdl_cuda_attention_forward_scores_f32(s, scale, q, k, v, mask, key_keep, out, lse, NULL,
                                                   stream);
}

extern "C" int repdl_cuda_attention_backward_scores_f32(
    const struct repdl_attention_shape *s, float scale, const float *q, const float *k,
    const float *v, const float *mask, const unsigned char *key_keep, const float *out,
    const float *lse, const float *scores, const float *dout, float *dq, float *dk, float *dv,
    void *stream)
{
    repdl__attn a;
    size_t nrows, nkeys;
    int st = repdl__attn_bwd_setup(&a, s, scale, q, k, v, mask, key_keep, out, lse, scores, dout, dq,
                                   dk, dv, &nrows, &nkeys);
    if (st != REPDL_OK) return st;
    if (nrows == 0) {
        size_t count = s->batch * s->hkv * s->nk * s->d; /* fits: repdl__attn_check_shape */
        if (count == 0 || (!dk && !dv)) return REPDL_OK;
        return launch_fill(attention_empty_kernel, count, 256, stream, a, count);
    }
    return run(&a, nrows, 1, stream);
}

extern "C" int repdl_cuda_attention_backward_f32(
    const struct repdl_attention_shape *s, float scale, const float *q, const float *k,
    const float *v, const float *mask, const unsigned char *key_keep, const float *out,
    const float *lse, const float *dout, float *dq, float *dk, float *dv, void *stream)
{
    return repdl_cuda_attention_backward_scores_f32(s, scale, q, k, v, mask, key_keep, out, lse, NULL,
                                                    dout, dq, dk, dv, stream);
}
