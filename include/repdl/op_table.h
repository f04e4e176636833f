/* SPDX-License-Identifier: MIT */
/* repdl/op_table.h: the one list of repdl's elementwise functions, from
   which the repetitive layers are generated (docs/architecture.md,
   "Adding an operation").  By the preprocessor, through the selections
   below:

     cuda/math.cu                the f32 map launchers and every 16-bit one
     cuda/nn_act_pool.cu         the activations' launchers, every backward one
     python/repdl/csrc           repdl._C.unary / unary_backward and
                                 repdl._C.unary_ops, CPU and CUDA (unary.h)
     tests/cuda                  the lists of test_math, test_args,
                                 test_nn_act_pool, test_backward

   and by tests/config/check_op_table.py --write (output checked in; the
   quick test 'op table' fails when it would change anything, and checks
   the headers' declarations and repdl/ops.py against the rows):

     include/repdl/cuda.h        the launcher prototypes
     docs/api.md                 section 6, the elementwise functions

   One row a function:

     REPDL_OP(name, cuda, half, backward)

   name      the host's repdl_<name>_f32(x) and
             repdl_<name>_array_f32(n, x, y) exist (its own header);
   cuda      MAP: repdl_cuda_<name>_array_f32 is cuda/math.cu's vector map
             (float4 loads where aligned); ACT: cuda/nn_act_pool.cu's plain
             map, next to the function's backward launcher;
   half      HALF: repdl_<name>_bf16/_f16 and their _array forms exist
             (half_math.h or the function's header), and
             repdl_cuda_<name>_array_bf16/_f16; NOHALF: none;
   backward  BX: repdl_<name>_backward_array_f32(n, x, dy, dx) reads the
             input x, BY: it reads the output y (backward.h), both with a
             CUDA launcher repdl_cuda_<name>_backward_array_f32 and the
             Python function repdl.ops.<name> with autograd;
             NOBWD: none, no Python function.

   Consumers take the rows through the selections below, each X(name)
   (or X(name, reads_y)); a selection keeps the table's order.  Only
   macros: this header declares nothing. */
#ifndef REPDL_OP_TABLE_H
#define REPDL_OP_TABLE_H

/* S(X, name, cuda, half, backward) for each row; S picks (see below). */
#define REPDL_ELEMENTWISE_TABLE(S, X)      \
    S(X, exp,       MAP, HALF,   BY)       \
    S(X, log,       MAP, HALF,   BX)       \
    S(X, tanh,      MAP, HALF,   BY)       \
    S(X, sqrt,      MAP, HALF,   BY)       \
    S(X, exp2,      MAP, HALF,   NOBWD)    \
    S(X, log2,      MAP, HALF,   NOBWD)    \
    S(X, expm1,     MAP, HALF,   NOBWD)    \
    S(X, log1p,     MAP, HALF,   NOBWD)    \
    S(X, erf,       MAP, HALF,   NOBWD)    \
    S(X, rsqrt,     MAP, HALF,   NOBWD)    \
    S(X, sin,       MAP, HALF,   NOBWD)    \
    S(X, cos,       MAP, HALF,   NOBWD)    \
    S(X, relu,      ACT, NOHALF, BX)       \
    S(X, sigmoid,   ACT, HALF,   BX)       \
    S(X, silu,      ACT, HALF,   BX)       \
    S(X, gelu,      ACT, HALF,   BX)       \
    S(X, gelu_tanh, ACT, HALF,   BX)       \
    S(X, softplus,  ACT, HALF,   BX)

/* ---- Selections ---- */

/* X(name) for every row. */
#define REPDL_ELEMENTWISE_OPS(X) REPDL_ELEMENTWISE_TABLE(REPDL__OPSEL_ALL, X)
/* X(name) for cuda == MAP (REPDL_CUDA_MAP_FUNCTIONS of cuda.h). */
#define REPDL_ELEMENTWISE_MAP(X) REPDL_ELEMENTWISE_TABLE(REPDL__OPSEL_MAP, X)
/* X(name) for cuda == ACT: f32 forward and backward in nn_act_pool.cu. */
#define REPDL_ELEMENTWISE_ACT(X) REPDL_ELEMENTWISE_TABLE(REPDL__OPSEL_ACT, X)
/* X(name) for half == HALF. */
#define REPDL_ELEMENTWISE_HALF(X) REPDL_ELEMENTWISE_TABLE(REPDL__OPSEL_HALF, X)
/* X(name, reads_y) for every row with a backward pass: reads_y 1 for BY,
   0 for BX. */
#define REPDL_ELEMENTWISE_BACKWARD(X) REPDL_ELEMENTWISE_TABLE(REPDL__OPSEL_BWD, X)
/* X(name) for cuda == MAP with a backward pass (its backward launcher is
   nn_act_pool.cu's, the forward math.cu's). */
#define REPDL_ELEMENTWISE_MAP_BACKWARD(X) REPDL_ELEMENTWISE_TABLE(REPDL__OPSEL_MAP_BWD, X)

/* The selectors: REPDL__OPIF_<want>_<have>(F, args) is F(args) when the
   column's value <have> is <want>, nothing otherwise. */
#define REPDL__OPIF_MAP_MAP(F, ...) F(__VA_ARGS__)
#define REPDL__OPIF_MAP_ACT(F, ...)
#define REPDL__OPIF_ACT_ACT(F, ...) F(__VA_ARGS__)
#define REPDL__OPIF_ACT_MAP(F, ...)
#define REPDL__OPIF_HALF_HALF(F, ...) F(__VA_ARGS__)
#define REPDL__OPIF_HALF_NOHALF(F, ...)
#define REPDL__OPIF_BWD_BX(F, ...) F(__VA_ARGS__, 0)
#define REPDL__OPIF_BWD_BY(F, ...) F(__VA_ARGS__, 1)
#define REPDL__OPIF_BWD_NOBWD(F, ...)
#define REPDL__OPIF_ANYBWD_BX(F, ...) F(__VA_ARGS__)
#define REPDL__OPIF_ANYBWD_BY(F, ...) F(__VA_ARGS__)
#define REPDL__OPIF_ANYBWD_NOBWD(F, ...)
#define REPDL__OP_CALL(X, ...) X(__VA_ARGS__)

#define REPDL__OPSEL_ALL(X, name, cuda, half, bwd) X(name)
#define REPDL__OPSEL_MAP(X, name, cuda, half, bwd) REPDL__OPIF_MAP_##cuda(REPDL__OP_CALL, X, name)
#define REPDL__OPSEL_ACT(X, name, cuda, half, bwd) REPDL__OPIF_ACT_##cuda(REPDL__OP_CALL, X, name)
#define REPDL__OPSEL_HALF(X, name, cuda, half, bwd) REPDL__OPIF_HALF_##half(REPDL__OP_CALL, X, name)
#define REPDL__OPSEL_BWD(X, name, cuda, half, bwd) REPDL__OPIF_BWD_##bwd(REPDL__OP_CALL, X, name)
#define REPDL__OPSEL_MAP_BWD(X, name, cuda, half, bwd) \
    REPDL__OPIF_MAP_##cuda(REPDL__OPSEL_MAP_BWD_, X, name, bwd)
#define REPDL__OPSEL_MAP_BWD_(X, name, bwd) REPDL__OPIF_ANYBWD_##bwd(REPDL__OP_CALL, X, name)

#endif /* REPDL_OP_TABLE_H */
