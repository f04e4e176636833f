/* SPDX-License-Identifier: MIT */
/* python/repdl/csrc/cuda_glue.h: the CUDA runtime calls of repdl._C's CUDA
   build, defined in cuda_glue.cu (nvcc) and declared here with no CUDA and
   no torch header, so that cuda_ops.cpp, compiled by the host compiler
   against torch, can call them whether or not torch has CUDA.  Every
   number comes from repdl's launchers (include/repdl/cuda.h). */
#ifndef REPDL_PY_CUDA_GLUE_H
#define REPDL_PY_CUDA_GLUE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Makes `device` the current device of this thread and stores the one
   that was current in *previous: REPDL_OK, or REPDL_ERR_CUDA. */
int repdl_py_cuda_set_device(int device, int *previous);

/* cudaGetErrorString of a cudaError_t given as int (e.g.
   repdl_cuda_last_cuda_error()). */
const char *repdl_py_cuda_error_string(int err);

#ifdef __cplusplus
}
#endif

#endif /* REPDL_PY_CUDA_GLUE_H */
