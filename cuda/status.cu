/* SPDX-License-Identifier: MIT */
/* cuda/status.cu: status strings, the thread's last CUDA error, and the
   one-time floating-point environment probe of each device. */
#include <atomic>

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
