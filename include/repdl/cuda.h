/* SPDX-License-Identifier: MIT */
/* repdl/cuda.h: C-callable launchers of repdl's CUDA kernels.

   The kernels are built from the same headers as the host library
   (include/repdl/): every element and every sum comes out bit for bit equal
   to what repdl_exp_f32, repdl_sum_f32, ... return on the CPU, whatever the
   GPU model, grid size, block size or batch count.  docs/cuda.md documents
   the API, the error codes and the build.

     #include "repdl/cuda.h"
     float *x, *y, *s;                        device pointers
     int rc = repdl_cuda_exp_array_f32(n, x, y, stream);          y[i] = repdl_exp_f32(x[i])
     rc = repdl_cuda_sum_f32(n, x, s, stream);           *s = repdl_sum_f32(n, x)
     if (rc != REPDL_OK) ... repdl_status_string(rc),
                                  repdl_cuda_last_cuda_error()

   Conventions of every launcher:
     - Pointers are device pointers (or managed memory).  Results are written
       to device memory, asynchronously, in stream order.
     - `stream` is a cudaStream_t passed as void *, so that this header needs
       no CUDA header and C code can include it; NULL is the legacy default
       stream.  (cudaStream_t is a pointer type: pass it as it is.)
     - The return type is int; its value is a repdl_status code (below).
       Nothing is printed.  A
       launcher that fails has launched nothing that writes to the outputs,
       except when the failure is reported by CUDA after a launch
       (REPDL_ERR_CUDA): then the outputs are unspecified.
     - Errors of earlier asynchronous work are not the launcher's: they
       surface, as always in CUDA, at the caller's next synchronisation.
     - Sizes are size_t: n may exceed 2^32 (the index arithmetic is 64-bit
       throughout).
     - The first call on a device runs a one-time probe kernel
       (repdl_cuda_check_device) and waits for it; call that function once
       before capturing launchers into a CUDA graph. */
#ifndef REPDL_CUDA_H
#define REPDL_CUDA_H

#include <stddef.h>

#include "config.h"
#include "op_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every launcher is declared int (so that C and C++ tables of launchers,
   int (*)(...), hold them without a cast) and returns one of the values of
   repdl_status (include/repdl/config.h, docs/api.md): REPDL_OK;
   REPDL_ERR_INVALID for a bad argument (a NULL pointer where data must be
   read or written, an output partially
   overlapping an input, a launch configuration out of range, an unknown
   reduction); REPDL_ERR_OVERFLOW for a size whose element or byte count
   overflows size_t (the host's code for the same sizes); REPDL_ERR_NOMEM
   when a workspace allocation fails; REPDL_ERR_CUDA when a CUDA runtime
   call failed (repdl_cuda_last_cuda_error() gives its cudaError_t);
   REPDL_ERR_FPENV when the device flushes subnormals to zero (a build with
   -ftz=true or -use_fast_math), and then nothing is launched.
   repdl_status_string() names each. */

/* The cudaError_t (as int) behind the most recent REPDL_ERR_CUDA
   returned on this host thread; 0 (cudaSuccess) if there was none.
   Thread-local; a later successful call does not clear it. */
int repdl_cuda_last_cuda_error(void);

/* Runs the floating-point environment probe (repdl_fpenv_ok of
   include/repdl/config.h, in a kernel compiled with the launchers' flags)
   on the current device, once per device per process, and waits for it.
   REPDL_OK, REPDL_ERR_FPENV or REPDL_ERR_CUDA. */
int repdl_cuda_check_device(void);

/* ---- Elementwise maps: y[i] = f(x[i]) for 0 <= i < n ----
   The correctly rounded functions of include/repdl/, NaN results
   canonical (0x7fc00000) as on the host.  In place (y == x) is allowed;
   any other overlap of x[0..n) and y[0..n) is REPDL_ERR_INVALID.
   n == 0 launches nothing and returns REPDL_OK (NULL allowed).
   The functions are the rows of include/repdl/op_table.h (the prototypes
   below are written from it by tests/config/check_op_table.py --write,
   and the quick test 'op table' fails when they differ); for each:
     int repdl_cuda_<name>_array_f32(size_t n, const float *x, float *y,
                                     void *stream);
   and for each row with half == HALF, the same maps over bfloat16 and
   float16 bit patterns (half_math.h and the functions' headers,
   docs/functions/half.md), y[i] = repdl_<name>_bf16(x[i]) (_f16),
   correctly rounded to the 16-bit format, NaN results the format's
   canonical NaN (bf16 0x7fc0, f16 0x7e00), the same rules:
     int repdl_cuda_<name>_array_bf16(size_t n, const uint16_t *x,
                                      uint16_t *y, void *stream);
     int repdl_cuda_<name>_array_f16(size_t n, const uint16_t *x,
                                     uint16_t *y, void *stream);
   The launchers of op_table.h's cuda == MAP rows are cuda/math.cu's
   (float4 loads where aligned), those of the ACT rows (relu and the
   activations) cuda/nn_act_pool.cu's, next to their backward launchers
   (below, "Backward passes"); every 16-bit launcher is math.cu's. */
/* op_table.h maps: begin (tests/config/check_op_table.py --write) */
int repdl_cuda_exp_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_log_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_tanh_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_sqrt_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_exp2_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_log2_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_expm1_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_log1p_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_erf_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_rsqrt_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_sin_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_cos_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_relu_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_sigmoid_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_silu_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_gelu_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_gelu_tanh_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_softplus_array_f32(size_t n, const float *x, float *y, void *stream);
int repdl_cuda_exp_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_exp_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_log_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_log_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_tanh_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_tanh_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_sqrt_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_sqrt_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_exp2_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_exp2_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_log2_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_log2_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_expm1_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_expm1_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_log1p_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_log1p_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_erf_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_erf_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_rsqrt_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_rsqrt_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_sin_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_sin_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_cos_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_cos_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_sigmoid_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_sigmoid_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_silu_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_silu_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_gelu_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_gelu_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_gelu_tanh_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_gelu_tanh_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_softplus_array_bf16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
int repdl_cuda_softplus_array_f16(size_t n, const uint16_t *x, uint16_t *y, void *stream);
/* op_table.h maps: end */

/* Selections of op_table.h under the names cuda/ uses, X(name) each:
   the f32 maps of cuda/math.cu, the 16-bit maps (both formats), the f32
   maps and backward passes of cuda/nn_act_pool.cu, and the backward
   passes whose forward is a math.cu map. */
#define REPDL_CUDA_MAP_FUNCTIONS(X) REPDL_ELEMENTWISE_MAP(X)
#define REPDL_CUDA_MAP_FUNCTIONS_16(X) REPDL_ELEMENTWISE_HALF(X)
#define REPDL_CUDA_ACTIVATIONS(X) REPDL_ELEMENTWISE_ACT(X)
#define REPDL_CUDA_MATH_BACKWARD(X) REPDL_ELEMENTWISE_MAP_BACKWARD(X)

/* ---- Canonical reductions (docs/canonical-order.md) ----
   *out = repdl_sum_f32(n, x) / repdl_dot_f32(n, x, y), bit for bit, written
   to device memory.  n == 0 writes -0.0 (x, y may then be NULL); out must
   not be NULL.  NaN results are 0x7fc00000.
   These may allocate a small workspace with cudaMallocAsync on `stream`
   (several blocks per row), released in stream order. */
int repdl_cuda_sum_f32(size_t n, const float *x, float *out, void *stream);
int repdl_cuda_dot_f32(size_t n, const float *x, const float *y, float *out,
                       void *stream);

/* Row-wise (batched) forms: row r of x is x[r*ldx .. r*ldx + n), and
   out[r] = repdl_sum_f32(n, x + r*ldx) (resp. the dot of row r of x with
   row r of y), for 0 <= r < rows.  Each row's bits are those of the
   single-row call, whatever rows is.  Any ld is accepted (rows may
   overlap, ld = 0 repeats one row); out[0..rows) must not overlap the
   inputs.  rows == 0 does nothing. */
int repdl_cuda_sum_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                            float *out, void *stream);
int repdl_cuda_dot_rows_f32(size_t rows, size_t n, const float *x,
                            size_t ldx, const float *y, size_t ldy, float *out,
                            void *stream);

/* Explicit launch configuration, for the invariance tests and tuning.
   The result never depends on it: any valid configuration gives the same
   bits.  A zero field means "choose".
     threads          threads a block: a power of two, 32 .. 256 (each
                      warp stages a leaf in 4 KiB of shared memory);
     grid             blocks in the grid (grid-stride over the work units):
                      1 .. 2^31 - 1;
     leaves_per_warp  leaves (docs/canonical-order.md: 1024 elements) a warp
                      walks before its block combines: a power of two,
                      1 .. 2^30; sets how many blocks share a row;
     row_per_warp     1: each warp takes whole rows (leaves_per_warp must
                      then be 0); 0: choose.
   Anything else is REPDL_ERR_INVALID. */
typedef struct repdl_cuda_config {
    unsigned threads;
    unsigned grid;
    unsigned leaves_per_warp;
    unsigned row_per_warp;
} repdl_cuda_config;

int repdl_cuda_sum_rows_config_f32(size_t rows, size_t n, const repdl_cuda_config *config,
                                   const float *x, size_t ldx, float *out,
                                   void *stream);
int repdl_cuda_dot_rows_config_f32(size_t rows, size_t n,
                                   const repdl_cuda_config *config, const float *x, size_t ldx,
                                   const float *y, size_t ldy, float *out,
                                   void *stream);

/* The other row-wise forms of reduce.h: out[r] = repdl_mean_f32,
   repdl_norm2_f32, repdl_var_f32 (ddof) of row r, bit for bit (the sum
   or dot launcher above, then the host's last rounding in a kernel);
   rows == 0 launches nothing.  var takes a workspace of rows * n + rows
   floats (the deviations RN(x - m) and the means) with cudaMallocAsync on
   `stream`, released in stream order.  repdl_cuda_div_count_f32 is
   reduce.h's repdl_div_count_f32 (y == x allowed, count 0: NaN). */
int repdl_cuda_mean_rows_f32(size_t rows, size_t n, const float *x, size_t ldx, float *out,
                             void *stream);
int repdl_cuda_norm2_rows_f32(size_t rows, size_t n, const float *x, size_t ldx, float *out,
                              void *stream);
int repdl_cuda_var_rows_f32(size_t rows, size_t n, size_t ddof, const float *x, size_t ldx,
                            float *out, void *stream);
int repdl_cuda_div_count_f32(size_t n, size_t count, const float *x, float *y, void *stream);

/* ---- Matrix products: gemm, linear, conv2d (cuda/linalg.cu; issue 6) ----
   The host functions of include/repdl/gemm.h, linear.h and conv2d.h, same
   arguments (device pointers) plus the stream, same bits: every element
   is the pinned chain of fused multiply-adds (gemm.h), k ascending, no
   split-K, no tensor cores, no TF32 (docs/cuda-linalg.md).
   Sizes 0, NULL pointers and alpha/beta/bias follow the host functions.
   REPDL_ERR_INVALID where the host returns -1, and also for
   ld < the row length (lda >= (transA ? M : K), ldb >= (transB ? K : N),
   ldc >= N) and for an output overlapping an input; REPDL_ERR_OVERFLOW
   for sizes whose byte counts overflow size_t.  Conv2d takes an im2col workspace with
   cudaMallocAsync on `stream` (at most 256 MiB unless one image needs
   more), released in stream order.
   The reductions over the batch (linear dW and db, conv2d dw and db)
   follow the host's batch order (micro-batches of REPDL_MICROBATCH = 16
   samples added by the buddy tree; docs/canonical-order.md).  For a batch
   of more than 16 samples (linear M > 16, conv2d n > 16) dW / dw also take
   a stream-ordered tree workspace: `group` partial matrices of dW's (dw's)
   size, group = 256 MiB (conv2d: workspace_bytes when set) / dW bytes,
   at least 1 and at most the G = ceil(batch / 16) micro-batches, plus
   bitlen(G) more matrices of dW's size when group < G.  A batch of at
   most 16 samples takes none.  db needs no workspace.
   An allocation failure is REPDL_ERR_NOMEM when the device is out of
   memory, REPDL_ERR_CUDA otherwise (the host's -2); nothing was written
   to dW / dw then (dx and db may have been).
   The conv shape is the host's struct: include <repdl/conv2d.h> to fill
   one (here it is only named, so this header needs no repdl header). */
struct repdl_conv2d_shape;

int repdl_cuda_gemm_f32(int transA, int transB, size_t M, size_t N, size_t K,
                        float alpha, float beta, const float *A,
                        size_t lda, const float *B, size_t ldb,
                        const float *bias, float *C, size_t ldc, void *stream);
/* layer_table.h linalg: begin (tests/config/check_op_table.py --write) */
int repdl_cuda_linear_forward_f32(size_t M, size_t K, size_t N, const float *x, const float *W,
                                  const float *b, float *y, void *stream);
int repdl_cuda_linear_backward_f32(size_t M, size_t K, size_t N, const float *x, const float *W,
                                   const float *dy, float *dx, float *dW, float *db, void *stream);
int repdl_cuda_conv2d_forward_f32(const struct repdl_conv2d_shape *s, const float *x,
                                  const float *w, const float *b, float *y, void *stream);
int repdl_cuda_conv2d_backward_f32(const struct repdl_conv2d_shape *s, const float *x,
                                   const float *w, const float *dy, float *dx, float *dw, float *db,
                                   void *stream);
/* layer_table.h linalg: end */

/* Explicit launch configuration of the matrix products, for the
   invariance tests and tuning; the bits never depend on it.  A zero field
   means "choose".
     grid_x, grid_y, grid_z  caps on the grid (column tiles of 128, row
                      tiles of 128, batch); blocks walk the remaining tiles
                      in grid-stride order: 1 .. 2^31 - 1, 1 .. 65535,
                      1 .. 65535;
     scalar_loads     1: never use float4 loads (else where aligned);
     workspace_bytes  conv2d: cap of the im2col workspace (whole images;
                      one image at least), and of the partial dw matrices
                      of backward's tree (n > 16: one at least).
   Anything else is REPDL_ERR_INVALID. */
typedef struct repdl_cuda_gemm_config {
    unsigned grid_x, grid_y, grid_z;
    unsigned scalar_loads;
    size_t workspace_bytes;
} repdl_cuda_gemm_config;

int repdl_cuda_gemm_config_f32(int transA, int transB, size_t M, size_t N,
                               size_t K, const repdl_cuda_gemm_config *config, float alpha,
                               float beta, const float *A, size_t lda,
                               const float *B, size_t ldb, const float *bias,
                               float *C, size_t ldc,
                               void *stream);
int repdl_cuda_conv2d_forward_config_f32(const struct repdl_conv2d_shape *s,
                                         const repdl_cuda_gemm_config *config, const float *x,
                                         const float *w, const float *b,
                                         float *y,
                                         void *stream);
int repdl_cuda_conv2d_backward_config_f32(const struct repdl_conv2d_shape *s,
                                          const repdl_cuda_gemm_config *config, const float *x,
                                          const float *w, const float *dy,
                                          float *dx, float *dw, float *db,
                                          void *stream);
/* (end matrix products) */

/* ---- RNG, elementwise, dropout, optimizers (cuda/rng_optim.cu) ----
   The host functions of include/repdl/rng.h, elementwise.h, optim.h on
   device arrays, bit for bit (docs/rng-optim.md).  seed, offset and step
   are the host's uint64_t values (unsigned long long: 64 bits here too);
   the config and state structs are read on the host (host pointers).
   n == 0 launches nothing (array pointers may be NULL).  In place is
   allowed where the host allows it (y == a or b, y == x, dx == dy); any
   other overlap is REPDL_ERR_INVALID.  repdl_rng_permutation
   (Fisher-Yates, sequential) is host-only: shuffle on the host and copy. */
struct repdl_sgd_config;
struct repdl_adam_config;
struct repdl_adam_state;
int repdl_cuda_rng_uniform_fill_f32(size_t n, unsigned long long seed, unsigned long long offset,
                                    float lo, float hi, float *out, void *stream);
int repdl_cuda_rng_normal_fill_f32(size_t n, unsigned long long seed, unsigned long long offset,
                                   float mean, float std, float *out, void *stream);
int repdl_cuda_add_f32(size_t n, const float *a, const float *b, float *y, void *stream);
int repdl_cuda_mul_f32(size_t n, const float *a, const float *b, float *y, void *stream);
int repdl_cuda_scale_f32(size_t n, float alpha, const float *x, float *y, void *stream);
/* mask: n bytes (uint8_t) or NULL */
int repdl_cuda_dropout_forward_f32(size_t n, float p, unsigned long long seed,
                                   unsigned long long offset, const float *x, float *y,
                                   unsigned char *mask, void *stream);
int repdl_cuda_dropout_backward_f32(size_t n, float p, const unsigned char *mask, const float *dy,
                                    float *dx, void *stream);
int repdl_cuda_sgd_step_f32(size_t n, const struct repdl_sgd_config *c, unsigned long long step, const float *g,
                            float *w, float *momentum_buf,
                            void *stream);
/* s->t == 0 (repdl_adam_begin_step not called): nothing, REPDL_OK */
int repdl_cuda_adam_step_f32(size_t n, const struct repdl_adam_config *c, const struct repdl_adam_state *s, const float *g, float *w,
                             float *m, float *v,
                             void *stream);
/* (end rng/optim) */

/* ---- Softmax, losses, normalizations (cuda/nn_softmax_norm.cu) ---- */
/* The functions of include/repdl/softmax.h and norm.h on device pointers,
   bit for bit the host's results (operation sequences:
   docs/nn-softmax-norm.md), for any grid and any batch size.  Arguments
   and edge cases as on the host (NULL gamma/beta: non-affine; NULL
   mean/rstd/dgamma/dbeta/dx outputs: not written; in place where the host
   allows it).  The losses return their scalar through `loss`, one float
   of device memory, and allocate a rows-float workspace with
   cudaMallocAsync on `stream`.  Nothing to do (rows == 0, cols == 0):
   REPDL_OK, nothing launched, except the losses, which still write
   *loss.  NULL where data must be read or written, or an unknown
   reduction: REPDL_ERR_INVALID; rows x cols whose byte count overflows:
   REPDL_ERR_OVERFLOW.  Loss targets are size_t class indices, as on the
   host (>= cols: that row's loss is NaN). */
#include <stdint.h>
/* layer_table.h nn_softmax_norm: begin (tests/config/check_op_table.py --write) */
int repdl_cuda_softmax_f32(size_t rows, size_t cols, const float *x, float *y, void *stream);
int repdl_cuda_log_softmax_f32(size_t rows, size_t cols, const float *x, float *y, void *stream);
int repdl_cuda_softmax_backward_f32(size_t rows, size_t cols, const float *y, const float *dy,
                                    float *dx, void *stream);
int repdl_cuda_log_softmax_backward_f32(size_t rows, size_t cols, const float *y, const float *dy,
                                        float *dx, void *stream);
int repdl_cuda_cross_entropy_f32(size_t rows, size_t cols, int reduction, const float *logits,
                                 const size_t *target, float *loss, float *dlogits, void *stream);
int repdl_cuda_nll_loss_f32(size_t rows, size_t cols, int reduction, const float *logp,
                            const size_t *target, float *loss, float *dlogp, void *stream);
int repdl_cuda_layer_norm_forward_f32(size_t rows, size_t cols, float eps, const float *x,
                                      const float *gamma, const float *beta, float *y, float *mean,
                                      float *rstd, void *stream);
int repdl_cuda_layer_norm_backward_f32(size_t rows, size_t cols, const float *x, const float *gamma,
                                       const float *mean, const float *rstd, const float *dy,
                                       float *dx, float *dgamma, float *dbeta, void *stream);
int repdl_cuda_rms_norm_forward_f32(size_t rows, size_t cols, float eps, const float *x,
                                    const float *gamma, float *y, float *rstd, void *stream);
int repdl_cuda_rms_norm_backward_f32(size_t rows, size_t cols, const float *x, const float *gamma,
                                     const float *rstd, const float *dy, float *dx, float *dgamma,
                                     void *stream);
int repdl_cuda_batch_norm_forward_train_f32(size_t n, size_t c, size_t hw, float eps,
                                            float momentum, const float *x, const float *gamma,
                                            const float *beta, float *running_mean,
                                            float *running_var, float *y, float *save_mean,
                                            float *save_rstd, void *stream);
int repdl_cuda_batch_norm_forward_infer_f32(size_t n, size_t c, size_t hw, float eps,
                                            const float *x, const float *gamma, const float *beta,
                                            const float *running_mean, const float *running_var,
                                            float *y, void *stream);
int repdl_cuda_batch_norm_backward_f32(size_t n, size_t c, size_t hw, const float *x,
                                       const float *gamma, const float *save_mean,
                                       const float *save_rstd, const float *dy, float *dx,
                                       float *dgamma, float *dbeta, void *stream);
/* layer_table.h nn_softmax_norm: end */
/* (end softmax/norm) */

/* ---- Activations and pooling (cuda/nn_act_pool.cu) ---- */
/* The functions of include/repdl/activation.h and pool.h on device
   pointers, bit for bit the host's results (definitions:
   docs/nn-act-pool.md), for any grid and any batch size.
   Activations: y[i] = repdl_Ff(x[i]), dx[i] = repdl_F_backwardf(x[i],
   dy[i]); in place (y == x, dx == dy, dx == x) allowed, any other overlap
   of an output with an input is REPDL_ERR_INVALID; n == 0 launches
   nothing (NULL allowed).
   Pooling: the shape is a host pointer (struct repdl_pool2d_shape of
   include/repdl/pool.h); argmax may be NULL in the forward pass; outputs
   must not overlap inputs.  Nothing to compute (an empty tensor): OK,
   nothing launched.  NULL where data must be read or written, or a NULL
   shape: REPDL_ERR_INVALID; a size whose byte count overflows:
   REPDL_ERR_OVERFLOW.  argmax is size_t, REPDL_NO_INDEX for a window
   with no in-bounds tap, as on the host. */
#include <stdint.h>
/* (the activations' launchers: "Backward passes" below and the
   elementwise maps above) */
struct repdl_pool2d_shape;
/* layer_table.h nn_act_pool: begin (tests/config/check_op_table.py --write) */
int repdl_cuda_max_pool2d_forward_f32(const struct repdl_pool2d_shape *s, const float *x, float *y,
                                      size_t *argmax, void *stream);
int repdl_cuda_max_pool2d_backward_f32(const struct repdl_pool2d_shape *s, const size_t *argmax,
                                       const float *dy, float *dx, void *stream);
int repdl_cuda_avg_pool2d_forward_f32(const struct repdl_pool2d_shape *s, int count_include_pad,
                                      const float *x, float *y, void *stream);
int repdl_cuda_avg_pool2d_backward_f32(const struct repdl_pool2d_shape *s, int count_include_pad,
                                       const float *dy, float *dx, void *stream);
/* layer_table.h nn_act_pool: end */
/* (end activations/pooling) */

/* ---- Backward passes of the elementwise functions (op_table.h) and of
   the row reductions (cuda/nn_act_pool.cu, cuda/reduce.cu) ----
   The functions of include/repdl/backward.h on device pointers, bit for
   bit the host's results, for any grid.  Elementwise:
   dx[i] = repdl_F_backward_f32(in[i], dy[i]), in = y (op_table.h's BY
   rows: exp, tanh, sqrt) or x (BX: log, relu, the activations); in place (dx == in, dx == dy) allowed, any other overlap
   REPDL_ERR_INVALID; n == 0 launches nothing (NULL allowed).
   Rows: x and dx dense [rows x n], y and dy [rows] (backward.h); rows == 0
   or n == 0 launches nothing; a NULL pointer that is read or written:
   REPDL_ERR_INVALID; rows * n floats overflowing size_t bytes:
   REPDL_ERR_OVERFLOW.  var takes a rows-float workspace (the row means)
   with cudaMallocAsync on `stream`, released in stream order. */
/* For each row of op_table.h with a backward pass (BX: in = x, BY: in = y;
   written from it as the maps above):
     int repdl_cuda_<name>_backward_array_f32(size_t n, const float *in,
                                              const float *dy, float *dx,
                                              void *stream);
   dx[i] = repdl_<name>_backward_f32(in[i], dy[i]) (backward.h,
   activation.h); in place (dx == in, dx == dy) allowed. */
/* op_table.h backward: begin (tests/config/check_op_table.py --write) */
int repdl_cuda_exp_backward_array_f32(size_t n, const float *y, const float *dy, float *dx, void *stream);
int repdl_cuda_log_backward_array_f32(size_t n, const float *x, const float *dy, float *dx, void *stream);
int repdl_cuda_tanh_backward_array_f32(size_t n, const float *y, const float *dy, float *dx, void *stream);
int repdl_cuda_sqrt_backward_array_f32(size_t n, const float *y, const float *dy, float *dx, void *stream);
int repdl_cuda_relu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx, void *stream);
int repdl_cuda_sigmoid_backward_array_f32(size_t n, const float *x, const float *dy, float *dx, void *stream);
int repdl_cuda_silu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx, void *stream);
int repdl_cuda_gelu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx, void *stream);
int repdl_cuda_gelu_tanh_backward_array_f32(size_t n, const float *x, const float *dy, float *dx, void *stream);
int repdl_cuda_softplus_backward_array_f32(size_t n, const float *x, const float *dy, float *dx, void *stream);
/* op_table.h backward: end */
int repdl_cuda_sum_rows_backward_f32(size_t rows, size_t n, const float *dy, float *dx,
                                     void *stream);
int repdl_cuda_mean_rows_backward_f32(size_t rows, size_t n, const float *dy, float *dx,
                                      void *stream);
int repdl_cuda_var_rows_backward_f32(size_t rows, size_t n, size_t ddof, const float *x,
                                     const float *dy, float *dx, void *stream);
int repdl_cuda_norm2_rows_backward_f32(size_t rows, size_t n, const float *x, const float *y,
                                       const float *dy, float *dx, void *stream);
/* (end backward passes) */

/* ---- Embedding (cuda/embedding.cu; include/repdl/embedding.h) ----
   The host functions on device arrays, same arguments plus the stream,
   same bits.  Both copy the n ids to the host and synchronise `stream`
   to check them (REPDL_ERR_INVALID for an id outside [0, vocab), nothing
   launched); the backward pass sorts the positions by id there and takes
   a stream-ordered workspace of (vocab + 1 + n) size_t.  Outputs must not
   overlap inputs (REPDL_ERR_INVALID). */
/* layer_table.h embedding: begin (tests/config/check_op_table.py --write) */
int repdl_cuda_embedding_forward_f32(const float *table, size_t vocab, size_t dim,
                                     const int64_t *ids, size_t n, float *out, void *stream);
int repdl_cuda_embedding_backward_f32(const float *dout, const int64_t *ids, size_t n, size_t vocab,
                                      size_t dim, float *dtable, void *stream);
/* layer_table.h embedding: end */
/* (end embedding) */

/* ---- Mean squared error (cuda/mse_loss.cu; include/repdl/mse_loss.h) ----
   The host functions on device arrays (loss: one device float), same
   arguments plus the stream, same checks, statuses and bits.  The forward
   takes a stream-ordered workspace of n floats (the terms, summed by
   repdl_cuda_sum_f32); loss must not overlap x or t (REPDL_ERR_INVALID). */
/* layer_table.h mse_loss: begin (tests/config/check_op_table.py --write) */
int repdl_cuda_mse_loss_forward_f32(size_t n, int reduction, const float *x, const float *t,
                                    float *loss, void *stream);
int repdl_cuda_mse_loss_backward_f32(size_t n, int reduction, const float *x, const float *t,
                                     float dloss, float *dx, void *stream);
/* layer_table.h mse_loss: end */
/* (end mean squared error) */

/* ---- Rotary position embeddings (cuda/rope.cu; include/repdl/rope.h) ----
   The host functions' checks, statuses and bits; tables and arrays in
   device memory.  y == x (dx == dy) in place allowed, other overlaps not. */
/* layer_table.h rope: begin (tests/config/check_op_table.py --write) */
int repdl_cuda_rope_table_f32(size_t positions, size_t d, float base, float *cos_tab,
                              float *sin_tab, void *stream);
int repdl_cuda_rope_forward_f32(size_t batch, size_t heads, size_t n, size_t d, size_t pos0,
                                size_t positions, const float *cos_tab, const float *sin_tab,
                                const float *x, float *y, void *stream);
int repdl_cuda_rope_backward_f32(size_t batch, size_t heads, size_t n, size_t d, size_t pos0,
                                 size_t positions, const float *cos_tab, const float *sin_tab,
                                 const float *dy, float *dx, void *stream);
/* layer_table.h rope: end */
/* (end rotary position embeddings) */

/* ---- Attention (cuda/attention.cu; include/repdl/attention.h) ----
   The host functions' arguments, checks, statuses and bits (the shape on
   the host, every array in device memory).  Outputs must not overlap
   inputs.  A stream-ordered workspace of up to 2048 per-thread slices
   plus, in the backward, 2 batch hq nq nk floats (docs/attention.md). */
struct repdl_attention_shape;
/* layer_table.h attention: begin (tests/config/check_op_table.py --write) */
int repdl_cuda_attention_forward_f32(const struct repdl_attention_shape *s, float scale,
                                     const float *q, const float *k, const float *v,
                                     const float *mask, const unsigned char *key_keep, float *out,
                                     float *lse, void *stream);
int repdl_cuda_attention_backward_f32(const struct repdl_attention_shape *s, float scale,
                                      const float *q, const float *k, const float *v,
                                      const float *mask, const unsigned char *key_keep,
                                      const float *out, const float *lse, const float *dout,
                                      float *dq, float *dk, float *dv, void *stream);
int repdl_cuda_attention_forward_scores_f32(const struct repdl_attention_shape *s, float scale,
                                            const float *q, const float *k, const float *v,
                                            const float *mask, const unsigned char *key_keep,
                                            float *out, float *lse, float *scores, void *stream);
int repdl_cuda_attention_backward_scores_f32(const struct repdl_attention_shape *s, float scale,
                                             const float *q, const float *k, const float *v,
                                             const float *mask, const unsigned char *key_keep,
                                             const float *out, const float *lse,
                                             const float *scores, const float *dout, float *dq,
                                             float *dk, float *dv, void *stream);
/* layer_table.h attention: end */
/* (end attention) */

/* ---- Correctly rounded product (cuda/gemm_cr.cu; include/repdl/gemm_cr.h) ----
   C[i][j] = RN(sum_k opA[i][k] opB[k][j] [+ bias[j]]): repdl_gemm_cr_f32's
   definition and arguments (device pointers), the same bits.  int8
   tensor-core slices (mma.sync s8 on sm_80+, integer lane loops on sm_75),
   the bound and rule of include/repdl/detail/gemm_cr_slice.h, the exact
   path per undecided output (docs/functions/gemm_cr.md, "The device
   version").  Bad arguments: repdl_gemm_cr_f32's statuses, nothing written.
   Workspace: M + N ints with cudaMallocAsync on `stream`. */
int repdl_cuda_gemm_cr_f32(int transA, int transB, size_t M, size_t N, size_t K,
                           const float *A, size_t lda, const float *B, size_t ldb,
                           const float *bias, float *C, size_t ldc, void *stream);
/* (end gemm_cr) */

#ifdef __cplusplus
}
#endif

#endif /* REPDL_CUDA_H */
