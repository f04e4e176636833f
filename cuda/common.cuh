/* SPDX-License-Identifier: MIT */
/* cuda/common.cuh: what every launcher shares: status recording, the
   per-device facts (SM count, probe result), argument checks, grid sizes
   and the launch itself.  Host code only; nothing numeric. */
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
   results/gpu-h100-2026-11-24); above that it returns memory to the
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

/* Returns the status of call from the enclosing launcher unless REPDL_OK. */
#define REPDL_CUDA_TRY(call)                                   \
    do {                                                       \
        int repdl_cuda_rc_ = (call);                           \
        if (repdl_cuda_rc_ != REPDL_OK) return repdl_cuda_rc_; \
    } while (0)

/* The device check every launcher runs before its first CUDA call (the
   fpenv probe), when it needs no device facts. */
static inline int device_ready(void)
{
    device_facts f;
    return current_device(&f);
}

/* kernel<<<grid, threads, 0, stream>>>(args...), then check_launch().
   The arguments convert to the kernel's parameter types at the call. */
template <class T> struct as_is { typedef T type; };
template <class... P>
static inline int launch(void (*kernel)(P...), unsigned grid, unsigned threads, void *stream,
                         typename as_is<P>::type... args)
{
    kernel<<<grid, threads, 0, as_stream(stream)>>>(args...);
    return check_launch();
}

/* Blocks for `units` work items of per_block a block: at least 1, at
   most cap (grid-stride loops do the rest). */
static inline unsigned grid_blocks(size_t units, size_t per_block, size_t cap)
{
    size_t g = units / per_block + (units % per_block != 0);
    if (g < 1) g = 1;
    return (unsigned)(g < cap ? g : cap);
}

/* A grid-stride kernel over `units` work items: the device check
   (current_device), then launch() with enough blocks to fill the device
   several times (32 a SM); beyond that the grid-stride loop takes over. */
template <class... P>
static inline int launch_fill(void (*kernel)(P...), size_t units, unsigned threads,
                              void *stream, typename as_is<P>::type... args)
{
    device_facts dev;
    REPDL_CUDA_TRY(current_device(&dev));
    return launch(kernel, grid_blocks(units, threads, (size_t)dev.sms * 32), threads, stream,
                  args...);
}

/* 1 when [a, a + an) and [b, b + bn) (byte ranges) overlap. */
static inline int overlap(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    if (an == 0 || bn == 0) return 0;
    return pa < pb + bn && pb < pa + an;
}

/* An output may be an input exactly (in place) but not overlap it
   partly: 1 when out and in (bytes each) overlap otherwise. */
static inline int partial_overlap(const void *out, const void *in, size_t bytes)
{
    return out != in && overlap(out, bytes, in, bytes);
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
