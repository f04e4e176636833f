/* SPDX-License-Identifier: MIT */
/* cuda/gemm_cr.cu: repdl_cuda_gemm_cr_f32, the correctly rounded product
   (include/repdl/gemm_cr.h's definition, bit for bit) on int8 tensor cores:
   the tile of cuda/gemm_cr_tile.cuh (one warp a 16 x 8 tile of C), the
   slices, bound and rule of include/repdl/detail/gemm_cr_slice.h.

   Two kernels on `stream`: crs_exp_kernel writes the exponent of every row
   of op(A) and column of op(B) to a workspace of M + N ints (one thread a
   line), gemm_cr_kernel runs the tiles (4 warps a block, tiles in
   grid-stride order).  Every output is decided from its row, its column
   and its bias alone, so the tiling and the grid cannot change a bit. */
#include "common.cuh"
#include "gemm_cr_tile.cuh"

#include <repdl/cuda.h>

namespace repdl_cuda {

/* The device executor: the calling lane; the warp's MMA and vote. */
struct crt_device_warp {
    enum { LANES = 1 };
    static __device__ __forceinline__ int lane(int) { return (int)(threadIdx.x & 31u); }
    static __device__ __forceinline__ int any(int p) { return __any_sync(0xffffffffu, p); }
    static __device__ __forceinline__ void mma(int32_t acc[1][4], uint32_t a[1][4],
                                               uint32_t b[1][2])
    {
        repdl__mma_s8_m16n8k32(acc[0], a[0], b[0]);
    }
};

__global__ void __launch_bounds__(256) crs_exp_kernel(crt_args p, int *E)
{
    size_t n = p.M + p.N;
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < n;
         t += (size_t)gridDim.x * blockDim.x) {
        if (t < p.M)
            E[t] = repdl__crs_exp(p.transA ? p.A + t : p.A + t * p.lda, p.K,
                                  p.transA ? p.lda : 1);
        else {
            size_t j = t - p.M;
            E[t] = repdl__crs_exp(p.transB ? p.B + j * p.ldb : p.B + j, p.K,
                                  p.transB ? 1 : p.ldb);
        }
    }
}

enum { CRT_WARPS = 4 };

__global__ void __launch_bounds__(32 * CRT_WARPS) gemm_cr_kernel(crt_args p)
{
    size_t mt = p.M / 16 + (p.M % 16 != 0), nt = p.N / 8 + (p.N % 8 != 0);
    size_t warp = (size_t)blockIdx.x * CRT_WARPS + threadIdx.x / 32;
    for (size_t t = warp; t < mt * nt; t += (size_t)gridDim.x * CRT_WARPS)
        crt_tile<crt_device_warp>(p, (t / nt) * 16, (t % nt) * 8);
}

} /* namespace repdl_cuda */

using namespace repdl_cuda;

extern "C" int repdl_cuda_gemm_cr_f32(int transA, int transB, size_t M, size_t N, size_t K,
                                      const float *A, size_t lda, const float *B, size_t ldb,
                                      const float *bias, float *C, size_t ldc, void *stream)
{
    repdl_status st = repdl__gemm_check(transA, transB, M, N, K, A, lda, B, ldb, C, ldc);
    if (st != REPDL_OK) return st;
    REPDL_CUDA_TRY(device_ready());
    if (M == 0 || N == 0) return REPDL_OK;
    size_t lines = M + N, bytes, tiles, mt = M / 16 + (M % 16 != 0), nt = N / 8 + (N % 8 != 0);
    if (lines < M || !mul_ok(lines, sizeof(int), &bytes) || !mul_ok(mt, nt, &tiles))
        return REPDL_ERR_OVERFLOW;
    cudaStream_t s = as_stream(stream);
    void *ws;
    cudaError_t e = workspace_alloc(&ws, bytes, s);
    if (e != cudaSuccess) return fail_alloc(e);
    int *E = (int *)ws;
    crt_args p = {M, N, K, A, lda, B, ldb, bias, C, ldc, transA != 0, transB != 0, E, E + M};
    int rc = launch_fill(crs_exp_kernel, lines, 256, stream, p, E);
    if (rc == REPDL_OK) {
        device_facts dev;
        rc = current_device(&dev);
        if (rc == REPDL_OK)
            rc = launch(gemm_cr_kernel, grid_blocks(tiles, CRT_WARPS, (size_t)dev.sms * 16),
                        32 * CRT_WARPS, stream, p);
    }
    e = workspace_free(ws, s);
    if (rc == REPDL_OK && e != cudaSuccess) rc = fail_cuda(e);
    return rc;
}
