/* SPDX-License-Identifier: MIT */
/* cuda/rope.cu: rotary position embeddings on the GPU, bit for bit the
   host's (include/repdl/rope.h).

   The kernels run the header's own per-element code (REPDL_FN is
   __host__ __device__): repdl__rope_theta, repdl__rope_angle and the
   correctly rounded sin/cos for a table cell, repdl__rope_elem for a pair.
   Each output is a pure function of its index and inputs, so the grid and
   the thread that computes it do not matter.  The argument checks are the
   header's (repdl__rope_table_check, repdl__rope_check). */
#include <repdl/rope.h>

#include "common.cuh"

namespace repdl_cuda {

enum { ROPE_THREADS = 256 };

__global__ void __launch_bounds__(ROPE_THREADS)
rope_table_kernel(size_t positions, size_t d, float L, float *c, float *s)
{
    size_t h = d / 2, cells = positions * h;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < cells; j += stride) {
        size_t p = j / h, i = j - p * h;
        float a = repdl__rope_angle(p, repdl__rope_theta(i, d, L));
        c[j] = repdl_cos_f32(a);
        s[j] = repdl_sin_f32(a);
    }
}

__global__ void __launch_bounds__(ROPE_THREADS)
rope_apply_kernel(size_t count, size_t n, size_t d, size_t pos0, int dir, const float *c,
                  const float *s, const float *in, float *out)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < count; j += stride)
        repdl__rope_elem(j, n, d, pos0, dir, c, s, in, out);
}

static int rope_apply(size_t batch, size_t heads, size_t n, size_t d, size_t pos0,
                      size_t positions, int dir, const float *c, const float *s, const float *in,
                      float *out, void *stream)
{
    size_t count = 0, bytes, tbytes;
    int st = repdl__rope_check(batch, heads, n, d, pos0, positions, c, s, in, out, &count);
    if (st != REPDL_OK) return st;
    if (count == 0) return REPDL_OK;
    if (!mul_ok(count * 2, sizeof(float), &bytes)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(positions * (d / 2), sizeof(float), &tbytes)) return REPDL_ERR_OVERFLOW;
    if (partial_overlap(out, in, bytes) || overlap(out, bytes, c, tbytes) ||
        overlap(out, bytes, s, tbytes))
        return REPDL_ERR_INVALID;
    return launch_fill(rope_apply_kernel, count, ROPE_THREADS, stream, count, n, d, pos0, dir, c,
                       s, in, out);
}

} // namespace repdl_cuda

using namespace repdl_cuda;

extern "C" int repdl_cuda_rope_table_f32(size_t positions, size_t d, float base, float *cos_tab,
                                         float *sin_tab, void *stream)
{
    size_t cells, bytes;
    int st = repdl__rope_table_check(positions, d, base, cos_tab, sin_tab);
    if (st != REPDL_OK) return st;
    cells = positions * (d / 2);
    if (cells == 0) return REPDL_OK;
    if (!mul_ok(cells, sizeof(float), &bytes)) return REPDL_ERR_OVERFLOW;
    if (overlap(cos_tab, bytes, sin_tab, bytes)) return REPDL_ERR_INVALID;
    /* L = RN(log2(base)): one correctly rounded value, the host's */
    return launch_fill(rope_table_kernel, cells, ROPE_THREADS, stream, positions, d,
                       repdl_log2_f32(base), cos_tab, sin_tab);
}

extern "C" int repdl_cuda_rope_forward_f32(size_t batch, size_t heads, size_t n, size_t d,
                                           size_t pos0, size_t positions, const float *cos_tab,
                                           const float *sin_tab, const float *x, float *y,
                                           void *stream)
{
    return rope_apply(batch, heads, n, d, pos0, positions, 0, cos_tab, sin_tab, x, y, stream);
}

extern "C" int repdl_cuda_rope_backward_f32(size_t batch, size_t heads, size_t n, size_t d,
                                            size_t pos0, size_t positions, const float *cos_tab,
                                            const float *sin_tab, const float *dy, float *dx,
                                            void *stream)
{
    return rope_apply(batch, heads, n, d, pos0, positions, 1, cos_tab, sin_tab, dy, dx, stream);
}
