/* SPDX-License-Identifier: MIT */
/* cuda/embedding.cu: the embedding lookup and its backward pass on the
   GPU, bit for bit the host's (include/repdl/embedding.h).

   Both launchers copy the ids to the host (n int64, then a
   synchronisation of `stream`) and run the header's own checks there
   (repdl__embedding_args: sizes, NULL arrays; then every id in
   [0, vocab)),
   so that a bad id is REPDL_ERR_INVALID with nothing launched.  The
   backward pass then sorts the positions by id on the host, stably
   (repdl__embedding_sort), copies the sort to a stream-ordered workspace
   and runs one thread per element of dtable, each the header's
   repdl__embedding_grad_elem over its id's positions: each element is a
   pure function of the ids and dout, whatever the grid. */
#include <stdlib.h>

#include <repdl/embedding.h>

#include "common.cuh"

namespace repdl_cuda {

enum { EMB_THREADS = 256 };

__global__ void __launch_bounds__(EMB_THREADS)
embedding_forward_kernel(const float *table, size_t dim, const int64_t *ids, size_t count,
                         float *out)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < count; j += stride) {
        size_t i = j / dim, d = j - i * dim;
        out[j] = repdl__canon(table[(size_t)ids[i] * dim + d]);
    }
}

__global__ void __launch_bounds__(EMB_THREADS)
embedding_backward_kernel(const float *dout, size_t dim, const size_t *start, const size_t *pos,
                          size_t count, float *dtable)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < count; j += stride) {
        size_t v = j / dim, d = j - v * dim;
        dtable[j] = repdl__embedding_grad_elem(dout, dim, d, pos + start[v],
                                               start[v + 1] - start[v]);
    }
}

/* The header's checks of sizes and NULL pointers, then the ids copied to
   the host (malloc'd into *host when n > 0) and checked.  ta: table or dtable, io:
   out or dout (device pointers, only compared with NULL here). */
static int fetch_ids(size_t vocab, size_t dim, const int64_t *ids, size_t n, const void *ta,
                     const void *io, void *stream, int64_t **host)
{
    size_t bytes;
    int st = repdl__embedding_args(vocab, dim, ids, n, ta, io);
    *host = NULL;
    if (st != REPDL_OK) return st;
    if (n == 0) return REPDL_OK;
    if (!mul_ok(n, sizeof(int64_t), &bytes)) return REPDL_ERR_OVERFLOW;
    REPDL_CUDA_TRY(device_ready());
    *host = (int64_t *)malloc(bytes);
    if (!*host) return REPDL_ERR_NOMEM;
    cudaError_t e = cudaMemcpyAsync(*host, ids, bytes, cudaMemcpyDeviceToHost, as_stream(stream));
    if (e == cudaSuccess) e = cudaStreamSynchronize(as_stream(stream));
    if (e != cudaSuccess) {
        free(*host);
        *host = NULL;
        return fail_cuda(e);
    }
    if (!repdl__embedding_ids_ok(*host, n, vocab)) {
        free(*host);
        *host = NULL;
        return REPDL_ERR_INVALID;
    }
    return REPDL_OK;
}

} // namespace repdl_cuda

using namespace repdl_cuda;

extern "C" int repdl_cuda_embedding_forward_f32(const float *table, size_t vocab, size_t dim,
                                                const int64_t *ids, size_t n, float *out,
                                                void *stream)
{
    int64_t *h;
    size_t count = n * dim, obytes, tbytes;
    int st = fetch_ids(vocab, dim, ids, n, table, out, stream, &h);
    if (st != REPDL_OK) return st;
    free(h);
    if (count == 0) return REPDL_OK;
    obytes = count * sizeof(float); /* fit: repdl__embedding_args */
    tbytes = vocab * dim * sizeof(float);
    if (overlap(out, obytes, table, tbytes) || overlap(out, obytes, ids, n * sizeof(int64_t)))
        return REPDL_ERR_INVALID;
    return launch_fill(embedding_forward_kernel, count, EMB_THREADS, stream, table, dim, ids,
                       count, out);
}

extern "C" int repdl_cuda_embedding_backward_f32(const float *dout, const int64_t *ids, size_t n,
                                                 size_t vocab, size_t dim, float *dtable,
                                                 void *stream)
{
    int64_t *h;
    size_t count = vocab * dim, words, bytes, tbytes;
    size_t *sort;
    void *ws;
    cudaError_t e;
    int st = fetch_ids(vocab, dim, ids, n, dtable, dout, stream, &h);
    if (st != REPDL_OK) return st;
    if (count == 0) {
        free(h);
        return REPDL_OK;
    }
    tbytes = count * sizeof(float);
    if (overlap(dtable, tbytes, dout, n * dim * sizeof(float)) ||
        overlap(dtable, tbytes, ids, n * sizeof(int64_t))) {
        free(h);
        return REPDL_ERR_INVALID;
    }
    words = vocab + 1; /* vocab dim floats fit in size_t bytes, and dim >= 1 */
    if (words + n < n || !mul_ok(words + n, sizeof(size_t), &bytes)) {
        free(h);
        return REPDL_ERR_OVERFLOW;
    }
    sort = (size_t *)malloc(bytes);
    if (!sort) {
        free(h);
        return REPDL_ERR_NOMEM;
    }
    repdl__embedding_sort(h, n, vocab, sort, sort + words);
    free(h);
    e = workspace_alloc(&ws, bytes, as_stream(stream));
    if (e != cudaSuccess) {
        free(sort);
        return fail_alloc(e);
    }
    /* from pageable memory: returns once `sort` has been read */
    e = cudaMemcpyAsync(ws, sort, bytes, cudaMemcpyHostToDevice, as_stream(stream));
    free(sort);
    if (e != cudaSuccess) {
        workspace_free(ws, as_stream(stream));
        return fail_cuda(e);
    }
    st = launch_fill(embedding_backward_kernel, count, EMB_THREADS, stream, dout, dim,
                     (const size_t *)ws, (const size_t *)ws + words, count, dtable);
    e = workspace_free(ws, as_stream(stream));
    if (st == REPDL_OK && e != cudaSuccess) st = fail_cuda(e);
    return st;
}
