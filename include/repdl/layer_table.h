/* SPDX-License-Identifier: MIT */
/* repdl/layer_table.h: the one list of repdl's layer operations (the
   functions over shapes: softmax, losses, norms, pools, linear, conv2d,
   embedding, rotary embeddings), from which the repetitive layers are
   driven (docs/architecture.md, "Adding an operation"), as op_table.h is
   for the elementwise functions.  By the preprocessor:

     python/repdl/csrc           repdl._C's registration of the layer
                                 bindings, CPU (repdl_ext.cpp) and CUDA
                                 (cuda_ops.cpp, as cuda_<binding>), and the
                                 tuple repdl._C.layer_bindings that
                                 repdl/_device.py and the Python tests read

   and by tests/config/check_op_table.py --write (output checked in; the
   quick test 'op table' fails when it would change anything, and checks
   the rows against the headers, cuda/ and python/):

     include/repdl/cuda.h        the launcher prototypes of each cuda/ source
                                 named below, from the host declarations
                                 (repdl_ -> repdl_cuda_, `void *stream` last)
     docs/api.md                 section 7, the layer operations
     include/repdl/repdl.h       the #include of each header that declares
                                 a row's host function, in the table's order

   and by tests/config/check_op_table.py --list (read by meson at configure
   time): tests/meson.build builds tests/<op>/test_<op>.c (a folder without
   a meson.build of its own) as the standard variants and as C++, and
   cuda/meson.build adds each cuda/<cuda>.cu named below to the library.

   One row a public host function, S(X, ...) of

     REPDL_LAYER(op, function, pass, cuda, py, binding)

   op        the operation; repdl.ops.<op> is its Python function when py
             is not NOPY;
   function  repdl_<function>_f32 is declared (REPDL_API) in include/repdl/
             and, unless cuda is NOCUDA, its launcher
             repdl_cuda_<function>_f32 (same arguments, then the stream) is
             defined in cuda/<cuda>.cu;
   pass      FWD forward, BWD backward, FWDBWD both in one call (the
             losses: value and gradient), AUX a table the passes read;
   cuda      the stem of its launcher's source in cuda/, or NOCUDA;
   py        PY: repdl._C.<binding> calls it and is registered from this
             row (both builds); VIA: repdl._C.<binding>, registered from an
             earlier row, calls it too; NOPY: no Python binding;
   binding   the repdl._C function (NOPY rows: `-`).

   The bindings themselves (argument checks and calls only) are in
   python/repdl/csrc/layers.inc, shared by the two builds (REPDL_PY_CALL,
   REPDL_PY_CALL_THREADS: the host's _threads forms), but for
   linear_forward, whose checks differ, in repdl_ext.cpp and
   cuda_ops.cpp.
   Only macros: this header declares nothing. */
#ifndef REPDL_LAYER_TABLE_H
#define REPDL_LAYER_TABLE_H

#define REPDL_LAYER_TABLE(S, X)                                                                    \
    S(X, softmax,       softmax,                  FWD,    nn_softmax_norm, PY,   softmax)          \
    S(X, log_softmax,   log_softmax,              FWD,    nn_softmax_norm, VIA,  softmax)          \
    S(X, softmax,       softmax_backward,         BWD,    nn_softmax_norm, PY,   softmax_backward) \
    S(X, log_softmax,   log_softmax_backward,     BWD,    nn_softmax_norm, VIA,  softmax_backward) \
    S(X, cross_entropy, cross_entropy,            FWDBWD, nn_softmax_norm, PY,   loss)             \
    S(X, nll_loss,      nll_loss,                 FWDBWD, nn_softmax_norm, VIA,  loss)             \
    S(X, mse_loss,      mse_loss_forward,         FWD,    mse_loss,        PY,   mse_loss_forward)    \
    S(X, mse_loss,      mse_loss_backward,        BWD,    mse_loss,        PY,   mse_loss_backward)   \
    S(X, layer_norm,    layer_norm_forward,       FWD,    nn_softmax_norm, PY,   layer_norm_forward)  \
    S(X, layer_norm,    layer_norm_backward,      BWD,    nn_softmax_norm, PY,   layer_norm_backward) \
    S(X, rms_norm,      rms_norm_forward,         FWD,    nn_softmax_norm, PY,   rms_norm_forward)    \
    S(X, rms_norm,      rms_norm_backward,        BWD,    nn_softmax_norm, PY,   rms_norm_backward)   \
    S(X, batch_norm,    batch_norm_forward_train, FWD,    nn_softmax_norm, PY,   batch_norm_forward_train) \
    S(X, batch_norm,    batch_norm_forward_infer, FWD,    nn_softmax_norm, PY,   batch_norm_forward_infer) \
    S(X, batch_norm,    batch_norm_backward,      BWD,    nn_softmax_norm, PY,   batch_norm_backward)      \
    S(X, max_pool2d,    max_pool2d_forward,       FWD,    nn_act_pool,     PY,   max_pool2d_forward)  \
    S(X, max_pool2d,    max_pool2d_backward,      BWD,    nn_act_pool,     PY,   max_pool2d_backward) \
    S(X, avg_pool2d,    avg_pool2d_forward,       FWD,    nn_act_pool,     PY,   avg_pool2d_forward)  \
    S(X, avg_pool2d,    avg_pool2d_backward,      BWD,    nn_act_pool,     PY,   avg_pool2d_backward) \
    S(X, linear,        linear_forward,           FWD,    linalg,          PY,   linear_forward)      \
    S(X, linear,        linear_backward,          BWD,    linalg,          PY,   linear_backward)     \
    S(X, conv2d,        conv2d_forward,           FWD,    linalg,          PY,   conv2d_forward)      \
    S(X, conv2d,        conv2d_backward,          BWD,    linalg,          PY,   conv2d_backward)     \
    S(X, embedding,     embedding_forward,        FWD,    embedding,       PY,   embedding_forward)   \
    S(X, embedding,     embedding_backward,       BWD,    embedding,       PY,   embedding_backward)  \
    S(X, rope,          rope_table,               AUX,    rope,            PY,   rope_table)          \
    S(X, rope,          rope_forward,             FWD,    rope,            PY,   rope_forward)        \
    S(X, rope,          rope_backward,            BWD,    rope,            PY,   rope_backward)       \
    S(X, scaled_dot_product_attention, attention_forward,  FWD, attention, PY, attention_forward)   \
    S(X, scaled_dot_product_attention, attention_backward, BWD, attention, PY, attention_backward) \
    S(X, scaled_dot_product_attention, attention_forward_scores,  FWD, attention, NOPY, -)       \
    S(X, scaled_dot_product_attention, attention_backward_scores, BWD, attention, NOPY, -)

/* ---- Selections ---- */

/* X(binding) for every row with py == PY: each repdl._C layer binding
   once, in the table's order. */
#define REPDL_LAYER_BINDINGS(X) REPDL_LAYER_TABLE(REPDL__LYSEL_PY, X)
/* The same for the rows with a launcher (cuda not NOCUDA): the bindings
   the CUDA build registers as cuda_<binding>. */
#define REPDL_LAYER_CUDA_BINDINGS(X) REPDL_LAYER_TABLE(REPDL__LYSEL_CUDA_PY, X)
/* X(function) for every row. */
#define REPDL_LAYER_FUNCTIONS(X) REPDL_LAYER_TABLE(REPDL__LYSEL_ALL, X)

#define REPDL__LYIF_PY_PY(F, ...) F(__VA_ARGS__)
#define REPDL__LYIF_PY_VIA(F, ...)
#define REPDL__LYIF_PY_NOPY(F, ...)
#define REPDL__LY_CALL(X, ...) X(__VA_ARGS__)

#define REPDL__LYSEL_PY(X, op, fn, pass, cuda, py, binding) \
    REPDL__LYIF_PY_##py(REPDL__LY_CALL, X, binding)
#define REPDL__LYSEL_ALL(X, op, fn, pass, cuda, py, binding) X(fn)

/* REPDL__LY_HASCUDA(cuda): 0 for NOCUDA, 1 for any other token (the
   probe REPDL__LY_PROBE_NOCUDA expands to two arguments, any other
   REPDL__LY_PROBE_<stem> stays one). */
#define REPDL__LY_SECOND_(a, b, ...) b
#define REPDL__LY_SECOND(...) REPDL__LY_SECOND_(__VA_ARGS__)
#define REPDL__LY_PROBE_NOCUDA ~, 0
#define REPDL__LY_HASCUDA(cuda) REPDL__LY_SECOND(REPDL__LY_PROBE_##cuda, 1, ~)
#define REPDL__LY_CAT_(a, b) a##b
#define REPDL__LY_CAT(a, b) REPDL__LY_CAT_(a, b)
#define REPDL__LYIF_HAS_1(F, ...) F(__VA_ARGS__)
#define REPDL__LYIF_HAS_0(F, ...)
#define REPDL__LYSEL_CUDA_PY(X, op, fn, pass, cuda, py, binding)                  \
    REPDL__LY_CAT(REPDL__LYIF_HAS_, REPDL__LY_HASCUDA(cuda))(REPDL__LYSEL_PY, X, op, fn, pass, \
                                                           cuda, py, binding)

#endif /* REPDL_LAYER_TABLE_H */
