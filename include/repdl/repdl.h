/* SPDX-License-Identifier: MIT */
/* repdl.h: umbrella header of repdl, reproducible deep-learning numerics.

   repdl gives the same bits on every machine: CPU or GPU, gcc, clang or
   nvcc, any optimisation flags, any thread, SIMD, block or batch count.

     #include <repdl/repdl.h>

   Everything is header-only C99 (also valid C++ and CUDA): every function is
   `static inline`, and under nvcc also __host__ __device__.  No library to
   link.  Contents:

     repdl_exp_f32, repdl_log_f32, repdl_tanh_f32, repdl_sqrt_f32,
     repdl_exp2_f32, repdl_log2_f32, repdl_expm1_f32, repdl_log1p_f32
         correctly rounded binary32 functions (docs/math.md);
     repdl_f32_to_bf16, repdl_exp_bf16, repdl_exp_f16, ...
         bfloat16 and float16 conversions and functions, correctly
         rounded (docs/functions/half.md);
     repdl_sum_f32, repdl_dot_f32, ... canonical reductions
         (docs/canonical-order.md).

   See README.md for the build and the proofs. */
#ifndef REPDL_REPDL_H
#define REPDL_REPDL_H

#define REPDL_VERSION_MAJOR 0
#define REPDL_VERSION_MINOR 1
#define REPDL_VERSION_PATCH 0

#include "config.h"
/* elementary functions */
#include "exp.h"
#include "tanh.h"
#include "log.h"
#include "sqrt.h"
#include "sigmoid.h"
#include "exp2.h"
#include "log2.h"
#include "expm1.h"
#include "log1p.h"
#include "erf.h"
#include "rsqrt.h"
#include "sin.h"
#include "cos.h"
#include "silu.h"
#include "gelu.h"
#include "gelu_tanh.h"
#include "softplus.h"
/* bfloat16 and float16: conversions, the elementary functions */
#include "half.h"
#include "half_math.h"
/* reductions */
#include "reduce.h"
/* matrix products */
#include "gemm.h"
#include "gemm_cr.h"
/* random numbers, elementwise ops and dropout, optimizers (docs/rng-optim.md) */
#include "rng.h"
#include "elementwise.h"
#include "optim.h"
/* activations (docs/nn-act-pool.md) */
#include "activation.h"
/* backward passes of exp, log, tanh, sqrt and the row reductions (docs/nn.md) */
#include "backward.h"
/* gradient clipping by global norm */
#include "clip.h"
/* the linear layer from a weight packed once (decoding one token) */
#include "linear_pack.h"
/* the layer operations (docs/nn.md): the header of each host function of
   include/repdl/layer_table.h, in the table's order (softmax and losses,
   normalizations, pooling, linear, conv2d, embedding, rotary embeddings
   (docs/rope.md), attention and the key/value cache (docs/attention.md)) */
/* layer_table.h headers: begin (tests/config/check_op_table.py --write) */
#include "softmax.h"
#include "mse_loss.h"
#include "norm.h"
#include "pool.h"
#include "linear.h"
#include "conv2d.h"
#include "embedding.h"
#include "rope.h"
#include "attention.h"
/* layer_table.h headers: end */

#endif /* REPDL_REPDL_H */
