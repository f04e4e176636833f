/* SPDX-License-Identifier: MIT */
/* cuda/common.cuh: what every launcher shares: status recording, the
   per-device facts (SM count, probe result), argument checks.  Host code
   only; nothing numeric. */
#ifndef REPDL_CUDA_COMMON_CUH
#define REPDL_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <repdl/cuda.h>

namespace repdl_cuda {

/* Records err as this thread's last CUDA error and returns the status. */
int fail_cuda(cudaError_t err);

/* The stream argument of the C API. */
static inline cudaStream_t as_stream(void *s) { return (cudaStream_t)s; }

/* Facts about the current device, cached per device: the probe result
   (runs repdl_fpenv_ok in a kernel once) and the SM count. */
struct device_facts {
    int device;
    int sms;
};
/* REPDL_OK and fills f, or an error status. */
int current_device(device_facts *f);

/* Workspace of the launchers (reduction partials and tickets, loss rows,
   conv2d columns), stream-ordered, from a memory pool that repdl owns on
   each device (never the caller's default pool, whose settings are left
   alone).  The pool keeps up to WORKSPACE_KEEP bytes of freed workspace
   across synchronizations, so that a call does not pay for a fresh device
   allocation each time (about 70 us on an H100 with the default pool,
   which returns everything at each synchronization:
   docs/results/gpu-h100-2026-11-24); above that it returns memory to the
   device as the default pool does.  Where the device has no memory pools,
   plain cudaMallocAsync.  bytes == 0 gives *p = NULL and cudaSuccess. */
constexpr size_t WORKSPACE_KEEP = (size_t)64 << 20;
cudaError_t workspace_alloc(void **p, size_t bytes, cudaStream_t s);
cudaError_t workspace_free(void *p, cudaStream_t s);
/* A failed workspace_alloc: REPDL_ERR_NOMEM when the device is out of
   memory, REPDL_ERR_CUDA otherwise (the error recorded either way). */
static inline int fail_alloc(cudaError_t e)
{
    int rc = fail_cuda(e);
    return e == cudaErrorMemoryAllocation ? REPDL_ERR_NOMEM : rc;
}

/* After a launch: REPDL_OK, or the launch error. */
static inline int check_launch(void)
{
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? REPDL_OK : fail_cuda(e);
}

/* 1 when [a, a + an) and [b, b + bn) (byte ranges) overlap. */
static inline int overlap(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    if (an == 0 || bn == 0) return 0;
    return pa < pb + bn && pb < pa + an;
}

/* *r = a * b, 0 on size_t overflow. */
static inline int mul_ok(size_t a, size_t b, size_t *r)
{
    if (a != 0 && b > (size_t)-1 / a) return 0;
    *r = a * b;
    return 1;
}

/* Bytes spanned by `rows` rows of n floats at stride ld: (rows-1)*ld + n
   floats; 0 on overflow (rows > 0 and n > 0 assumed). */
static inline size_t span_bytes(size_t ld, size_t rows, size_t n)
{
    size_t a, b;
    if (!mul_ok(rows - 1, ld, &a)) return 0;
    if (a > (size_t)-1 - n) return 0;
    if (!mul_ok(a + n, sizeof(float), &b)) return 0;
    return b;
}

} // namespace repdl_cuda

#endif
