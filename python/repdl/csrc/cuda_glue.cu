/* SPDX-License-Identifier: MIT */
/* python/repdl/csrc/cuda_glue.cu: the CUDA runtime calls of repdl._C's
   CUDA build that need a CUDA header (cuda_glue.h): the device switch and
   the name of a CUDA error.  Compiled by nvcc with the launchers' flags
   (python/setup.py), no torch header.  Nothing numeric: every number of
   the CUDA build comes from repdl's launchers (include/repdl/cuda.h). */
#include <repdl/cuda.h>

#include "common.cuh"
#include "cuda_glue.h"

extern "C" int repdl_py_cuda_set_device(int device, int *previous)
{
    cudaError_t e = cudaGetDevice(previous);
    if (e == cudaSuccess && *previous != device) e = cudaSetDevice(device);
    return e == cudaSuccess ? REPDL_OK : repdl_cuda::fail_cuda(e);
}

extern "C" const char *repdl_py_cuda_error_string(int err)
{
    return cudaGetErrorString((cudaError_t)err);
}
