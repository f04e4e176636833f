/* SPDX-License-Identifier: MIT */
/* tests/train/gpt_cuda_shim.c: a host stand-in for the CUDA runtime and the
   repdl_cuda_* launchers that examples/train_gpt_cuda.c calls, so that
   train_gpt --device cuda runs on a machine without a GPU (test
   train-gpt-cuda-shim): device memory is host memory, each launcher calls
   the host function it mirrors (include/repdl/cuda.h: the launchers give
   those bits).  What it checks is train_gpt_cuda.c itself: the order of the
   operations, the buffers, the head layout copies and the interface with
   train_gpt.c must reproduce the published hashes.  It says nothing about
   the launchers (tests/cuda on a GPU). */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include <repdl/repdl.h>
#include <repdl/attention.h>
#include <repdl/embedding.h>
#include <repdl/gemm_cr.h>
#include <repdl/rope.h>

#include <repdl/cuda.h>

/* ---- the runtime: host memory ---- */
cudaError_t cudaMalloc(void **p, size_t bytes)
{
    *p = malloc(bytes ? bytes : 1);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}
cudaError_t cudaMemset(void *p, int v, size_t bytes)
{
    memset(p, v, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    (void)kind;
    memmove(dst, src, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind)
{
    size_t r;
    (void)kind;
    for (r = 0; r < height; r++)
        memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error (host shim)" : "error (host shim)";
}

int repdl_cuda_check_device(void) { return REPDL_OK; }
int repdl_cuda_last_cuda_error(void) { return 0; }

/* ---- the launchers: the host functions ---- */
int repdl_cuda_embedding_forward_f32(const float *table, size_t vocab, size_t dim, const int64_t *ids,
                                     size_t n, float *out, void *stream)
{
    (void)stream;
    return repdl_embedding_forward_f32(table, vocab, dim, ids, n, out);
}
int repdl_cuda_embedding_backward_f32(const float *dout, const int64_t *ids, size_t n, size_t vocab,
                                      size_t dim, float *dtable, void *stream)
{
    (void)stream;
    return repdl_embedding_backward_f32(dout, ids, n, vocab, dim, dtable);
}
int repdl_cuda_layer_norm_forward_f32(size_t rows, size_t cols, float eps, const float *x,
                                      const float *gamma, const float *beta, float *y, float *mean,
                                      float *rstd, void *stream)
{
    (void)stream;
    return repdl_layer_norm_forward_f32(rows, cols, eps, x, gamma, beta, y, mean, rstd);
}
int repdl_cuda_layer_norm_backward_f32(size_t rows, size_t cols, const float *x, const float *gamma,
                                       const float *mean, const float *rstd, const float *dy,
                                       float *dx, float *dgamma, float *dbeta, void *stream)
{
    (void)stream;
    return repdl_layer_norm_backward_f32(rows, cols, x, gamma, mean, rstd, dy, dx, dgamma, dbeta);
}
int repdl_cuda_linear_forward_f32(size_t M, size_t K, size_t N, const float *x, const float *W,
                                  const float *b, float *y, void *stream)
{
    (void)stream;
    return repdl_linear_forward_f32(M, K, N, x, W, b, y);
}
int repdl_cuda_linear_backward_f32(size_t M, size_t K, size_t N, const float *x, const float *W,
                                   const float *dy, float *dx, float *dW, float *db, void *stream)
{
    (void)stream;
    return repdl_linear_backward_f32(M, K, N, x, W, dy, dx, dW, db);
}
int repdl_cuda_gemm_cr_f32(int transA, int transB, size_t M, size_t N, size_t K, const float *A,
                           size_t lda, const float *B, size_t ldb, const float *bias, float *C,
                           size_t ldc, void *stream)
{
    (void)stream;
    return repdl_gemm_cr_f32(transA, transB, M, N, K, A, lda, B, ldb, bias, C, ldc);
}
int repdl_cuda_rope_forward_f32(size_t batch, size_t heads, size_t n, size_t d, size_t pos0,
                                size_t positions, const float *cos_tab, const float *sin_tab,
                                const float *x, float *y, void *stream)
{
    (void)stream;
    return repdl_rope_forward_f32(batch, heads, n, d, pos0, positions, cos_tab, sin_tab, x, y);
}
int repdl_cuda_rope_backward_f32(size_t batch, size_t heads, size_t n, size_t d, size_t pos0,
                                 size_t positions, const float *cos_tab, const float *sin_tab,
                                 const float *dy, float *dx, void *stream)
{
    (void)stream;
    return repdl_rope_backward_f32(batch, heads, n, d, pos0, positions, cos_tab, sin_tab, dy, dx);
}
int repdl_cuda_attention_forward_f32(const struct repdl_attention_shape *s, float scale,
                                     const float *q, const float *k, const float *v,
                                     const float *mask, const unsigned char *key_keep, float *out,
                                     float *lse, void *stream)
{
    (void)stream;
    return repdl_attention_forward_f32(s, scale, q, k, v, mask, key_keep, out, lse);
}
int repdl_cuda_attention_backward_f32(const struct repdl_attention_shape *s, float scale,
                                      const float *q, const float *k, const float *v,
                                      const float *mask, const unsigned char *key_keep,
                                      const float *out, const float *lse, const float *dout,
                                      float *dq, float *dk, float *dv, void *stream)
{
    (void)stream;
    return repdl_attention_backward_f32(s, scale, q, k, v, mask, key_keep, out, lse, dout, dq, dk,
                                        dv);
}
int repdl_cuda_add_f32(size_t n, const float *a, const float *b, float *y, void *stream)
{
    (void)stream;
    return repdl_add_f32(n, a, b, y);
}
int repdl_cuda_gelu_array_f32(size_t n, const float *x, float *y, void *stream)
{
    (void)stream;
    return repdl_gelu_array_f32(n, x, y);
}
int repdl_cuda_gelu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx,
                                       void *stream)
{
    (void)stream;
    return repdl_gelu_backward_array_f32(n, x, dy, dx);
}
int repdl_cuda_cross_entropy_f32(size_t rows, size_t cols, int reduction, const float *logits,
                                 const size_t *target, float *loss, float *dlogits, void *stream)
{
    (void)stream;
    return repdl_cross_entropy_f32(rows, cols, reduction, logits, target, loss, dlogits);
}
int repdl_cuda_div_count_f32(size_t n, size_t count, const float *x, float *y, void *stream)
{
    (void)stream;
    return repdl_div_count_f32(n, count, x, y);
}
