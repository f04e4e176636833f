/* SPDX-License-Identifier: MIT */
/* python/repdl/csrc/backward.h: the backward formulas of repdl._C that the
   library has no function for (docs/python.md, "Backward formulas"), one
   element at a time, written once for the CPU build (repdl_ext.cpp) and the
   CUDA build (cuda_glue.cu).

   Each is a sequence of IEEE binary32 operations through repdl's
   primitives (include/repdl/config.h), RN = one rounding: plain operators
   on the host (the extension is compiled with -ffp-contract=off, and a
   product that feeds a subtraction is behind repdl__fkeep), explicitly
   rounded PTX on the device, which nvcc never contracts.  NaN results are
   canonical (0x7fc00000), as everywhere in repdl.  REPDL_FN makes them
   __host__ __device__ under nvcc. */
#ifndef REPDL_PY_BACKWARD_H
#define REPDL_PY_BACKWARD_H

#include <repdl/reduce.h>

/* log: dx = RN(dy / x) */
REPDL_FN float repdl_py__log_backward(float x, float dy)
{
    return repdl__canon(repdl__fdiv(dy, x));
}

/* tanh: dx = RN(dy * RN(1 - RN(y * y))), y = tanh x */
REPDL_FN float repdl_py__tanh_backward(float y, float dy)
{
    return repdl__canon(repdl__fmul(dy, repdl__fsub(1.0f, repdl__fkeep(repdl__fmul(y, y)))));
}

/* sqrt: dx = RN(dy / RN(2 y)), y = sqrt x */
REPDL_FN float repdl_py__sqrt_backward(float y, float dy)
{
    return repdl__canon(repdl__fdiv(dy, repdl__fmul(2.0f, y)));
}

/* Reductions of a row of n elements to one value y, incoming gradient dy:
     sum   dx_i = dy
     mean  dx_i = RN(dy / n)                        (repdl_mean_f32's division)
     var   dx_i = RN(RN(x_i - m) * k),  m = repdl_mean_f32 of the row,
           k = RN(RN(2 dy) / (n - ddof)), NaN when n <= ddof
     norm  dx_i = RN(x_i * k),  k = RN(dy / y), and +0 where y == 0
   The per-row factor first (computed once a row), then the element. */
REPDL_FN float repdl_py__sum_backward(float dy)
{
    return repdl__canon(dy);
}

REPDL_FN float repdl_py__mean_backward(float dy, size_t n)
{
    return repdl__canon(repdl__div_count_f32(dy, n));
}

REPDL_FN float repdl_py__var_backward_k(float dy, size_t n, size_t ddof)
{
    return n > ddof ? repdl__div_count_f32(repdl__fmul(2.0f, dy), n - ddof) : repdl__nanf();
}

REPDL_FN float repdl_py__var_backward(float x, float m, float k)
{
    return repdl__canon(repdl__fmul(repdl__fsub(x, m), k));
}

REPDL_FN float repdl_py__norm_backward_k(float y, float dy)
{
    return repdl__fdiv(dy, y);
}

REPDL_FN float repdl_py__norm_backward(float x, float y, float k)
{
    return repdl__feq(y, 0.0f) ? 0.0f : repdl__canon(repdl__fmul(x, k));
}

#endif /* REPDL_PY_BACKWARD_H */
