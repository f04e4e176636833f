/* SPDX-License-Identifier: MIT */
/* cuda/status.cu: status strings, the thread's last CUDA error, and the
   one-time floating-point environment probe of each device. */
#include <atomic>
#include <mutex>
#include <string.h>

#include <repdl/config.h>

#include "common.cuh"

namespace repdl_cuda {

static thread_local int last_cuda_error = 0;

int fail_cuda(cudaError_t err)
{
    last_cuda_error = (int)err;
    return REPDL_ERR_CUDA;
}

/* repdl_fpenv_ok compiled with the launchers' own flags: a build with
   -ftz=true would flush here as in every kernel. */
__global__ void fpenv_probe_kernel(float one, int *ok)
{
    *ok = repdl_fpenv_ok(one);
}

enum { MAX_DEVICES = 256 };
/* 0 unknown, 1 probed good, 2 probed flushing. */
static std::atomic<int> probe_state[MAX_DEVICES];
static std::atomic<int> sm_count[MAX_DEVICES];

static int probe(int device)
{
    int *d_ok = NULL, ok = 0;
    cudaError_t e = cudaMalloc((void **)&d_ok, sizeof(int));
    if (e != cudaSuccess) return fail_cuda(e);
    /* volatile: `one` must not be a constant the compiler could fold. */
    volatile float one = 1.0f;
    fpenv_probe_kernel<<<1, 1>>>(one, d_ok);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaMemcpy(&ok, d_ok, sizeof(int), cudaMemcpyDeviceToHost);
    cudaError_t f = cudaFree(d_ok);
    if (e == cudaSuccess) e = f;
    if (e != cudaSuccess) return fail_cuda(e);
    probe_state[device].store(ok == 1 ? 1 : 2);
    return ok == 1 ? REPDL_OK : REPDL_ERR_FPENV;
}

/* The pool of each device: created on first use, kept for the process. */
static std::atomic<cudaMemPool_t> pools[MAX_DEVICES];
static std::atomic<int> pool_state[MAX_DEVICES]; /* 0 unknown, 1 pool, 2 no pools */
static std::mutex pool_mutex;

static cudaMemPool_t workspace_pool(int dev)
{
    if (dev < 0 || dev >= MAX_DEVICES) return NULL;
    int st = pool_state[dev].load();
    if (st == 1) return pools[dev].load();
    if (st == 2) return NULL;
    std::lock_guard<std::mutex> lock(pool_mutex);
    st = pool_state[dev].load();
    if (st != 0) return st == 1 ? pools[dev].load() : NULL;
    int supported = 0;
    cudaMemPool_t pool = NULL;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, dev) == cudaSuccess &&
        supported) {
        cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = dev;
        if (cudaMemPoolCreate(&pool, &props) == cudaSuccess) {
            unsigned long long keep = WORKSPACE_KEEP; /* the attribute is a cuuint64_t */
            if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) {
                cudaMemPoolDestroy(pool);
                pool = NULL;
            }
        } else {
            pool = NULL;
        }
    }
    (void)cudaGetLastError(); /* a refused attribute or pool is not the caller's error */
    pools[dev].store(pool);
    pool_state[dev].store(pool ? 1 : 2);
    return pool;
}

cudaError_t workspace_alloc(void **p, size_t bytes, cudaStream_t s)
{
    *p = NULL;
    if (bytes == 0) return cudaSuccess;
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    cudaMemPool_t pool = workspace_pool(dev);
    return pool ? cudaMallocFromPoolAsync(p, bytes, pool, s) : cudaMallocAsync(p, bytes, s);
}

cudaError_t workspace_free(void *p, cudaStream_t s)
{
    return p ? cudaFreeAsync(p, s) : cudaSuccess;
}

int current_device(device_facts *f)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return fail_cuda(e);
    if (dev < 0 || dev >= MAX_DEVICES) return fail_cuda(cudaErrorInvalidDevice);
    int st = probe_state[dev].load();
    if (st == 0) {
        /* Two threads may both probe: harmless, same answer. */
        int rc = probe(dev);
        if (rc != REPDL_OK) return rc;
    } else if (st == 2) {
        return REPDL_ERR_FPENV;
    }
    int sms = sm_count[dev].load();
    if (sms == 0) {
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        if (e != cudaSuccess) return fail_cuda(e);
        if (sms <= 0) sms = 1;
        sm_count[dev].store(sms);
    }
    f->device = dev;
    f->sms = sms;
    return REPDL_OK;
}

} // namespace repdl_cuda

/* The status names: repdl_status_string (include/repdl/config.h). */

extern "C" int repdl_cuda_last_cuda_error(void)
{
    return repdl_cuda::last_cuda_error;
}

extern "C" int repdl_cuda_check_device(void)
{
    repdl_cuda::device_facts f;
    return repdl_cuda::current_device(&f);
}
