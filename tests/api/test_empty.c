/* tests/api/test_empty.c: empty extents with NULL pointers are defined
   (docs/api.md, section 5): n = 0, rows = 0, cols = 0, a batch of 0
   images, 0 channels.  Each call below must neither read nor write
   through NULL nor form NULL + 0 (undefined behaviour in C); meson runs it
   built by clang with -fsanitize=undefined,address (clang reports
   "applying zero offset to null pointer", gcc does not) and plainly.  The
   outputs that an empty reduction defines are checked: the empty sum and
   layer norm's statistics of empty rows. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <repdl/repdl.h>
#include <repdl/op_table.h>
#include <repdl/reduce_threads.h>
#include <repdl/gemm_cr_threads.h>
#include <repdl/attention_threads.h>

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

#define CANARY 0x7f7f7f7fu   /* the bytes 0x7f of an untouched float */
#define NAN_BITS 0x7fc00000u
#define NEG_ZERO 0x80000000u

/* 1 when each of the n floats has the bits u. */
static int all_bits(const float *p, size_t n, uint32_t u)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (bits(p[i]) != u) return 0;
    return 1;
}

/* The reductions of reduce.h, reduce_minmax.h and reduce_threads.h on no
   element (reduce.h's edge cases: the empty sum -0, its square root -0,
   the mean and variance of nothing NaN; reduce_minmax.h's identities
   max -inf, min +inf and REPDL_NO_INDEX), x NULL, and their row forms
   with rows of no element (the same value in every row). */
static int check_reductions(void)
{
    float out[3];
    size_t ix[3];
    int f = 0, j;
    f += bits(repdl_sum_strided_f32(0, NULL, 3)) != NEG_ZERO;
    f += bits(repdl_dot_strided_f32(0, NULL, 2, NULL, -1)) != NEG_ZERO;
    f += bits(repdl_sumsq_f32(0, NULL)) != NEG_ZERO;
    f += bits(repdl_sumsq_strided_f32(0, NULL, 2)) != NEG_ZERO;
    f += bits(repdl_norm2_f32(0, NULL)) != NEG_ZERO;
    f += bits(repdl_norm2_strided_f32(0, NULL, 2)) != NEG_ZERO;
    f += bits(repdl_mean_f32(0, NULL)) != NAN_BITS;
    f += bits(repdl_mean_strided_f32(0, NULL, 2)) != NAN_BITS;
    f += bits(repdl_var_f32(0, 0, NULL)) != NAN_BITS;
    f += bits(repdl_var_strided_f32(0, 1, NULL, 2)) != NAN_BITS;
    f += bits(repdl_max_f32(0, NULL)) != 0xff800000u;
    f += bits(repdl_min_f32(0, NULL)) != 0x7f800000u;
    f += bits(repdl_max_strided_f32(0, NULL, -1)) != 0xff800000u;
    f += bits(repdl_min_strided_f32(0, NULL, -1)) != 0x7f800000u;
    f += repdl_argmax_f32(0, NULL) != REPDL_NO_INDEX;
    f += repdl_argmin_f32(0, NULL) != REPDL_NO_INDEX;
    f += repdl_argmax_strided_f32(0, NULL, 2) != REPDL_NO_INDEX;
    f += repdl_argmin_strided_f32(0, NULL, 2) != REPDL_NO_INDEX;
    f += bits(repdl_sum_threads_f32(0, 2, NULL)) != NEG_ZERO;
    f += bits(repdl_dot_threads_f32(0, 2, NULL, NULL)) != NEG_ZERO;
    /* no row: nothing read or written, out may be NULL */
    f += repdl_dot_rows_f32(0, 4, NULL, 4, NULL, 4, NULL) != REPDL_OK;
    f += repdl_sumsq_rows_f32(0, 4, NULL, 4, NULL) != REPDL_OK;
    f += repdl_norm2_rows_f32(0, 4, NULL, 4, NULL) != REPDL_OK;
    f += repdl_mean_rows_f32(0, 4, NULL, 4, NULL) != REPDL_OK;
    f += repdl_min_rows_f32(0, 4, NULL, 4, NULL) != REPDL_OK;
    f += repdl_argmin_rows_f32(0, 4, NULL, 4, NULL) != REPDL_OK;
    /* 3 rows of no element: x (and y) NULL, each row the empty value */
    memset(out, 0x7f, sizeof out);
    f += repdl_dot_rows_f32(3, 0, NULL, 0, NULL, 0, out) != REPDL_OK || !all_bits(out, 3, NEG_ZERO);
    memset(out, 0x7f, sizeof out);
    f += repdl_sum_rows_f32(3, 0, NULL, 0, out) != REPDL_OK || !all_bits(out, 3, NEG_ZERO);
    memset(out, 0x7f, sizeof out);
    f += repdl_sumsq_rows_f32(3, 0, NULL, 0, out) != REPDL_OK || !all_bits(out, 3, NEG_ZERO);
    memset(out, 0x7f, sizeof out);
    f += repdl_norm2_rows_f32(3, 0, NULL, 0, out) != REPDL_OK || !all_bits(out, 3, NEG_ZERO);
    memset(out, 0x7f, sizeof out);
    f += repdl_mean_rows_f32(3, 0, NULL, 0, out) != REPDL_OK || !all_bits(out, 3, NAN_BITS);
    memset(out, 0x7f, sizeof out);
    f += repdl_var_rows_f32(3, 0, 0, NULL, 0, out) != REPDL_OK || !all_bits(out, 3, NAN_BITS);
    memset(out, 0x7f, sizeof out);
    f += repdl_max_rows_f32(3, 0, NULL, 0, out) != REPDL_OK || !all_bits(out, 3, 0xff800000u);
    memset(out, 0x7f, sizeof out);
    f += repdl_min_rows_f32(3, 0, NULL, 0, out) != REPDL_OK || !all_bits(out, 3, 0x7f800000u);
    memset(ix, 0x7f, sizeof ix);
    f += repdl_argmax_rows_f32(3, 0, NULL, 0, ix) != REPDL_OK;
    for (j = 0; j < 3; j++) f += ix[j] != REPDL_NO_INDEX;
    memset(ix, 0x7f, sizeof ix);
    f += repdl_argmin_rows_f32(3, 0, NULL, 0, ix) != REPDL_OK;
    for (j = 0; j < 3; j++) f += ix[j] != REPDL_NO_INDEX;
    /* rows > 0 of n > 0 elements with x NULL: refused, out untouched */
    memset(out, 0x7f, sizeof out);
    f += repdl_sumsq_rows_f32(3, 2, NULL, 2, out) != REPDL_ERR_INVALID;
    f += repdl_mean_rows_f32(3, 2, NULL, 2, out) != REPDL_ERR_INVALID;
    f += repdl_min_rows_f32(3, 2, NULL, 2, out) != REPDL_ERR_INVALID;
    f += !all_bits(out, 3, CANARY);
    return f;
}

/* mse_loss.h: n = 0 with NULL arrays; the mean of no term NaN, the sum
   -0; the loss pointer is always written so never NULL; n > 0 with a NULL
   array, a bad reduction (even with n = 0) and n floats past size_t bytes
   refused with nothing written. */
static int check_mse_loss(void)
{
    float l, x[2] = {1.0f, 2.0f}, t[2] = {0.5f, 0.5f}, dx[2];
    int f = 0;
    l = 1.0f;
    f += repdl_mse_loss_forward_f32(0, REPDL_REDUCTION_MEAN, NULL, NULL, &l) != REPDL_OK;
    f += bits(l) != NAN_BITS;
    l = 1.0f;
    f += repdl_mse_loss_forward_f32(0, REPDL_REDUCTION_SUM, NULL, NULL, &l) != REPDL_OK;
    f += bits(l) != NEG_ZERO;
    f += repdl_mse_loss_backward_f32(0, REPDL_REDUCTION_MEAN, NULL, NULL, 1.0f, NULL) != REPDL_OK;
    f += repdl_mse_loss_backward_f32(0, REPDL_REDUCTION_SUM, NULL, NULL, 1.0f, NULL) != REPDL_OK;
    f += repdl_mse_loss_forward_f32(0, REPDL_REDUCTION_MEAN, NULL, NULL, NULL) != REPDL_ERR_INVALID;
    memset(&l, 0x7f, sizeof l);
    memset(dx, 0x7f, sizeof dx);
    f += repdl_mse_loss_forward_f32(0, 2, NULL, NULL, &l) != REPDL_ERR_INVALID;
    f += repdl_mse_loss_backward_f32(0, -1, NULL, NULL, 1.0f, NULL) != REPDL_ERR_INVALID;
    f += repdl_mse_loss_forward_f32(2, REPDL_REDUCTION_MEAN, NULL, t, &l) != REPDL_ERR_INVALID;
    f += repdl_mse_loss_forward_f32(2, REPDL_REDUCTION_SUM, x, NULL, &l) != REPDL_ERR_INVALID;
    f += repdl_mse_loss_backward_f32(2, REPDL_REDUCTION_MEAN, x, t, 1.0f, NULL) != REPDL_ERR_INVALID;
    f += repdl_mse_loss_backward_f32(2, REPDL_REDUCTION_SUM, NULL, t, 1.0f, dx) != REPDL_ERR_INVALID;
    f += repdl_mse_loss_forward_f32(((size_t)-1) / 4 + 1, REPDL_REDUCTION_MEAN, x, t, &l) !=
         REPDL_ERR_OVERFLOW;
    f += repdl_mse_loss_backward_f32((size_t)-1, REPDL_REDUCTION_SUM, x, t, 1.0f, dx) !=
         REPDL_ERR_OVERFLOW;
    f += bits(l) != CANARY || !all_bits(dx, 2, CANARY);
    return f;
}

/* rope.h: no position or no row reads and writes nothing (NULL accepted,
   pos0 <= positions still checked); d odd or 0, a sequence past the
   table, NULL where an element is read or written: REPDL_ERR_INVALID;
   size products past size_t: REPDL_ERR_OVERFLOW; nothing written. */
static int check_rope(void)
{
    float c[2], s[2], x[4] = {1.0f, 2.0f, 3.0f, 4.0f}, y[4];
    size_t big = (size_t)1 << (sizeof(size_t) > 4 ? 62 : 30);
    size_t mid = (size_t)1 << (sizeof(size_t) > 4 ? 40 : 20);
    int f = 0;
    f += repdl_rope_table_f32(0, 4, 10000.0f, NULL, NULL) != REPDL_OK;
    f += repdl_rope_forward_f32(0, 2, 3, 4, 0, 3, NULL, NULL, NULL, NULL) != REPDL_OK;
    f += repdl_rope_forward_f32(2, 0, 3, 4, 0, 3, NULL, NULL, NULL, NULL) != REPDL_OK;
    f += repdl_rope_forward_f32(2, 2, 0, 4, 3, 3, NULL, NULL, NULL, NULL) != REPDL_OK;
    f += repdl_rope_backward_f32(0, 2, 3, 4, 0, 3, NULL, NULL, NULL, NULL) != REPDL_OK;
    f += repdl_rope_backward_f32(2, 2, 0, 4, 0, 0, NULL, NULL, NULL, NULL) != REPDL_OK;
    /* 2^40 (2^20) sequences of no row: nothing to do (no product past
       size_t bytes) */
    f += repdl_rope_forward_f32(mid, 1, 0, 4, 0, 0, NULL, NULL, NULL, NULL) != REPDL_OK;
    memset(c, 0x7f, sizeof c); memset(s, 0x7f, sizeof s); memset(y, 0x7f, sizeof y);
    f += repdl_rope_forward_f32(2, 2, 0, 4, 4, 3, NULL, NULL, NULL, NULL) != REPDL_ERR_INVALID;
    f += repdl_rope_forward_f32(0, 2, 3, 3, 0, 3, NULL, NULL, NULL, NULL) != REPDL_ERR_INVALID;
    f += repdl_rope_backward_f32(0, 2, 3, 0, 0, 3, NULL, NULL, NULL, NULL) != REPDL_ERR_INVALID;
    f += repdl_rope_table_f32(1, 4, 10000.0f, NULL, s) != REPDL_ERR_INVALID;
    f += repdl_rope_table_f32(1, 4, 10000.0f, c, NULL) != REPDL_ERR_INVALID;
    f += repdl_rope_table_f32(0, 0, 10000.0f, NULL, NULL) != REPDL_ERR_INVALID;
    f += repdl_rope_forward_f32(1, 1, 1, 4, 0, 1, c, s, NULL, y) != REPDL_ERR_INVALID;
    f += repdl_rope_forward_f32(1, 1, 1, 4, 0, 1, c, NULL, x, y) != REPDL_ERR_INVALID;
    f += repdl_rope_backward_f32(1, 1, 1, 4, 0, 1, c, s, x, NULL) != REPDL_ERR_INVALID;
    f += repdl_rope_backward_f32(1, 1, 2, 4, 0, 1, c, s, x, y) != REPDL_ERR_INVALID;
    f += repdl_rope_forward_f32(big, big, 1, 4, 0, 1, c, s, x, y) != REPDL_ERR_OVERFLOW;
    f += !all_bits(c, 2, CANARY) || !all_bits(s, 2, CANARY) || !all_bits(y, 4, CANARY);
    return f;
}

/* clip.h: no tensor, or tensors of no element with NULL data: the norm is
   the empty sum's square root -0, nothing clipped, `norm` may be NULL in
   the clip; NULL lists with count > 0, NULL data of a nonempty tensor, a
   bad max_norm or eps: REPDL_ERR_INVALID, nothing written. */
static int check_clip(void)
{
    size_t sz0[2] = {0, 0}, sz1[2] = {0, 2};
    float g[2] = {3.0f, 4.0f}, nrm;
    float *gl[2] = {NULL, NULL};
    const float *cgl[2] = {NULL, NULL};
    int f = 0;
    nrm = 1.0f;
    f += repdl_grad_norm_f32(0, NULL, NULL, &nrm) != REPDL_OK || bits(nrm) != NEG_ZERO;
    nrm = 1.0f;
    f += repdl_grad_norm_f32(2, sz0, cgl, &nrm) != REPDL_OK || bits(nrm) != NEG_ZERO;
    nrm = 1.0f;
    f += repdl_clip_grad_norm_f32(0, NULL, 1.0f, 1e-6f, NULL, &nrm) != REPDL_OK || bits(nrm) != NEG_ZERO;
    nrm = 1.0f;
    f += repdl_clip_grad_norm_f32(2, sz0, 1.0f, 1e-6f, gl, &nrm) != REPDL_OK || bits(nrm) != NEG_ZERO;
    f += repdl_clip_grad_norm_f32(2, sz0, 1.0f, 1e-6f, gl, NULL) != REPDL_OK;
    memset(&nrm, 0x7f, sizeof nrm);
    f += repdl_grad_norm_f32(0, NULL, NULL, NULL) != REPDL_ERR_INVALID;
    f += repdl_grad_norm_f32(2, NULL, cgl, &nrm) != REPDL_ERR_INVALID;
    f += repdl_grad_norm_f32(2, sz0, NULL, &nrm) != REPDL_ERR_INVALID;
    f += repdl_grad_norm_f32(2, sz1, cgl, &nrm) != REPDL_ERR_INVALID;
    /* tensor 1 (2 elements) has no data; tensor 0 is empty */
    gl[1] = NULL;
    f += repdl_clip_grad_norm_f32(2, sz1, 1.0f, 1e-6f, gl, &nrm) != REPDL_ERR_INVALID;
    gl[1] = g;
    f += repdl_clip_grad_norm_f32(2, sz1, -1.0f, 1e-6f, gl, &nrm) != REPDL_ERR_INVALID;
    f += repdl_clip_grad_norm_f32(2, sz1, 1.0f, -1.0f, gl, &nrm) != REPDL_ERR_INVALID;
    f += bits(nrm) != CANARY || bits(g[0]) != 0x40400000u || bits(g[1]) != 0x40800000u;
    /* the same list is clipped: norm 5 (exact), c = RN(1 / RN(5 + 0)) */
    f += repdl_clip_grad_norm_f32(2, sz1, 1.0f, 0.0f, gl, &nrm) != REPDL_OK;
    f += bits(nrm) != 0x40a00000u || g[0] != 3.0f * (1.0f / 5.0f) || g[1] != 4.0f * (1.0f / 5.0f);
    return f;
}

/* gemm_cr.h, gemm_cr_threads.h: M or N 0 reads and writes nothing (NULL
   accepted); K = 0 reads neither A nor B and writes C = -0 (the empty
   sum), or the bias; C NULL or ldc < N with an element: REPDL_ERR_INVALID;
   M ldc past size_t: REPDL_ERR_OVERFLOW; nothing written. */
static int check_gemm_cr(void)
{
    float C[4], bias[2] = {1.5f, -0.0f};
    uint16_t A[2] = {0x3f80, 0x4000};
    int f = 0, j;
    f += repdl_gemm_cr_f32(0, 0, 0, 4, 2, NULL, 2, NULL, 4, NULL, NULL, 4) != REPDL_OK;
    f += repdl_gemm_cr_f32(1, 1, 3, 0, 2, NULL, 3, NULL, 2, NULL, NULL, 0) != REPDL_OK;
    f += repdl_gemm_cr_bf16(0, 0, 0, 4, 2, NULL, 2, NULL, 4, NULL, NULL, 4) != REPDL_OK;
    f += repdl_gemm_cr_threads_f32(0, 0, 3, 0, 2, 2, NULL, 2, NULL, 0, NULL, NULL, 0) != REPDL_OK;
    memset(C, 0x7f, sizeof C);
    f += repdl_gemm_cr_f32(0, 0, 2, 2, 0, NULL, 0, NULL, 2, NULL, C, 2) != REPDL_OK;
    f += !all_bits(C, 4, NEG_ZERO);
    memset(C, 0x7f, sizeof C);
    f += repdl_gemm_cr_bf16(0, 1, 2, 2, 0, NULL, 0, NULL, 0, bias, C, 2) != REPDL_OK;
    for (j = 0; j < 2; j++) f += bits(C[2 * j]) != 0x3fc00000u || bits(C[2 * j + 1]) != NEG_ZERO;
    memset(C, 0x7f, sizeof C);
    f += repdl_gemm_cr_threads_f32(0, 0, 2, 2, 0, 3, NULL, 0, NULL, 2, NULL, C, 2) != REPDL_OK;
    f += !all_bits(C, 4, NEG_ZERO);
    memset(C, 0x7f, sizeof C);
    f += repdl_gemm_cr_f32(0, 0, 2, 2, 1, NULL, 1, NULL, 2, NULL, C, 2) != REPDL_ERR_INVALID;
    f += repdl_gemm_cr_f32(0, 0, 2, 2, 0, NULL, 0, NULL, 2, NULL, NULL, 2) != REPDL_ERR_INVALID;
    f += repdl_gemm_cr_bf16(0, 0, 1, 2, 1, A, 1, NULL, 2, NULL, C, 2) != REPDL_ERR_INVALID;
    f += repdl_gemm_cr_bf16(0, 0, 2, 2, 1, A, 1, A, 2, NULL, C, 1) != REPDL_ERR_INVALID;
    f += repdl_gemm_cr_threads_f32(0, 0, 2, 2, 0, 2, NULL, 0, NULL, 2, NULL, NULL, 2) != REPDL_ERR_INVALID;
    f += repdl_gemm_cr_f32(0, 0, (size_t)-1 / 2, 2, 0, NULL, 0, NULL, 2, NULL, C, 4) !=
         REPDL_ERR_OVERFLOW;
    f += !all_bits(C, 4, CANARY);
    return f;
}

/* attention.h, attention_threads.h: no batch entry, head or query reads
   and writes nothing in the forward (NULL accepted); the backward with no
   query writes the empty sums of the key rows there are: dk = RN(scale
   -0) = -0 for scale > 0, dv = -0; no key (nk = 0): every row sees no
   key, out = +0 and lse = -inf (k and v NULL accepted).  The shape's
   checks and NULL arrays with rows: REPDL_ERR_INVALID, nothing written.
   The key/value cache over no element likewise. */
static int check_attention(void)
{
    repdl_attention_shape s0 = {0, 2, 1, 3, 4, 8, 0, 0, 0};   /* no batch entry */
    repdl_attention_shape sq = {1, 2, 1, 0, 2, 2, 0, 0, 1};   /* no query, 2 keys */
    repdl_attention_shape sk = {1, 2, 2, 2, 0, 2, 0, 0, 0};   /* no key */
    repdl_attention_shape sd = {1, 1, 1, 1, 1, 0, 0, 0, 0};   /* d = 0 */
    repdl_kv_cache c;
    float out[8], lse[4], dk[4], dv[4], q[8] = {0};
    int f = 0, j;
    f += repdl_attention_forward_f32(&s0, 0.5f, NULL, NULL, NULL, NULL, NULL, NULL, NULL) != REPDL_OK;
    f += repdl_attention_backward_f32(&s0, 0.5f, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                      NULL, NULL) != REPDL_OK;
    f += repdl_attention_forward_threads_f32(&s0, 2, 0.5f, NULL, NULL, NULL, NULL, NULL, NULL, NULL) !=
         REPDL_OK;
    f += repdl_attention_backward_threads_f32(&s0, 2, 0.5f, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                              NULL, NULL, NULL, NULL) != REPDL_OK;
    f += repdl_attention_forward_f32(&sq, 0.5f, NULL, dk, dv, NULL, NULL, NULL, NULL) != REPDL_OK;
    {   /* the backward with no query: dk, dv the empty sums of 2 keys x d 2 */
        float k[4] = {1.0f, 2.0f, 3.0f, 4.0f}, v[4] = {5.0f, 6.0f, 7.0f, 8.0f};
        memset(dk, 0x7f, sizeof dk); memset(dv, 0x7f, sizeof dv);
        f += repdl_attention_backward_f32(&sq, 0.5f, NULL, k, v, NULL, NULL, NULL, NULL, NULL, NULL, dk,
                                          dv) != REPDL_OK;
        f += !all_bits(dk, 4, NEG_ZERO) || !all_bits(dv, 4, NEG_ZERO);
        memset(dk, 0x7f, sizeof dk); memset(dv, 0x7f, sizeof dv);
        f += repdl_attention_backward_threads_f32(&sq, 2, 0.5f, NULL, k, v, NULL, NULL, NULL, NULL, NULL,
                                                  NULL, dk, dv) != REPDL_OK;
        f += !all_bits(dk, 4, NEG_ZERO) || !all_bits(dv, 4, NEG_ZERO);
    }
    memset(out, 0x7f, sizeof out); memset(lse, 0x7f, sizeof lse);
    f += repdl_attention_forward_f32(&sk, 0.5f, q, NULL, NULL, NULL, NULL, out, lse) != REPDL_OK;
    f += !all_bits(out, 8, 0x00000000u) || !all_bits(lse, 4, 0xff800000u);
    memset(out, 0x7f, sizeof out); memset(lse, 0x7f, sizeof lse);
    f += repdl_attention_forward_threads_f32(&sk, 3, 0.5f, q, NULL, NULL, NULL, NULL, out, lse) != REPDL_OK;
    f += !all_bits(out, 8, 0x00000000u) || !all_bits(lse, 4, 0xff800000u);
    /* refusals: nothing written */
    memset(out, 0x7f, sizeof out); memset(lse, 0x7f, sizeof lse);
    f += repdl_attention_forward_f32(NULL, 0.5f, q, NULL, NULL, NULL, NULL, out, lse) != REPDL_ERR_INVALID;
    f += repdl_attention_forward_f32(&sd, 0.5f, q, q, q, NULL, NULL, out, lse) != REPDL_ERR_INVALID;
    f += repdl_attention_forward_f32(&sk, 0.5f, NULL, NULL, NULL, NULL, NULL, out, lse) != REPDL_ERR_INVALID;
    f += repdl_attention_forward_f32(&sk, 0.5f, q, NULL, NULL, NULL, NULL, NULL, lse) != REPDL_ERR_INVALID;
    f += repdl_attention_forward_threads_f32(&sk, 2, 0.5f, NULL, NULL, NULL, NULL, NULL, out, lse) !=
         REPDL_ERR_INVALID;
    f += repdl_attention_backward_f32(&sk, 0.5f, q, NULL, NULL, NULL, NULL, out, NULL, q, out, NULL,
                                      NULL) != REPDL_ERR_INVALID;   /* lse is required */
    f += !all_bits(out, 8, CANARY) || !all_bits(lse, 4, CANARY);
    /* the cache: no sequence, or no capacity, with NULL buffers */
    f += repdl_kv_cache_init(&c, 0, 1, 4, 8, NULL, NULL) != REPDL_OK;
    f += repdl_kv_cache_append_f32(&c, 2, NULL, NULL) != REPDL_OK;   /* no head: nothing copied */
    f += repdl_kv_cache_init(&c, 2, 1, 0, 8, NULL, NULL) != REPDL_OK;
    f += repdl_kv_cache_append_f32(&c, 0, NULL, NULL) != REPDL_OK || c.len != 0;
    f += repdl_kv_cache_write_f32(&c, 1, 0, 0, NULL, NULL) != REPDL_OK || c.len != 0;
    f += repdl_kv_cache_attend_f32(&c, 2, 0, 0.5f, NULL, NULL, NULL, NULL, NULL) != REPDL_OK;
    f += repdl_kv_cache_append_f32(&c, 1, q, q) != REPDL_ERR_INVALID;   /* past capacity 0 */
    f += repdl_kv_cache_write_f32(&c, 2, 0, 0, NULL, NULL) != REPDL_ERR_INVALID;   /* b >= batch */
    f += repdl_kv_cache_attend_f32(&c, 2, 1, 0.5f, q, NULL, NULL, out, lse) != REPDL_ERR_INVALID;
    f += repdl_kv_cache_init(NULL, 1, 1, 1, 1, q, q) != REPDL_ERR_INVALID;
    f += repdl_kv_cache_init(&c, 1, 1, 1, 0, q, q) != REPDL_ERR_INVALID;
    f += repdl_kv_cache_init(&c, 1, 1, 1, 1, NULL, q) != REPDL_ERR_INVALID;
    f += repdl_kv_cache_init(&c, (size_t)-1, 2, 1, 1, q, q) != REPDL_ERR_OVERFLOW;
    for (j = 0; j < 8; j++) f += bits(out[j]) != CANARY;
    return f;
}

int main(void)
{
    float m[3], r[3], out[256];
    size_t tg[3] = {0, 0, 0};
    float l;
    int fails = 0;
    repdl_conv2d_shape c0 = {0, 1, 4, 4, 1, 2, 2, 1, 1, 0, 0, 1, 1};  /* no image */
    repdl_conv2d_shape c1 = {2, 0, 4, 4, 3, 2, 2, 1, 1, 0, 0, 1, 1};  /* no channel */
    repdl_conv2d_shape c2 = {2, 1, 4, 4, 0, 2, 2, 1, 1, 0, 0, 1, 1};  /* no filter */
    repdl_conv2d_shape c3 = {2, 1, 1, 1, 2, 3, 3, 1, 1, 0, 0, 1, 1};  /* no output pixel */
    repdl_pool2d_shape p0 = {0, 1, 4, 4, 2, 2, 2, 2, 0, 0};
    fails += repdl_softmax_f32(0, 5, NULL, NULL) != REPDL_OK;
    fails += repdl_log_softmax_f32(0, 5, NULL, NULL) != REPDL_OK;
    fails += repdl_softmax_backward_f32(0, 5, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_log_softmax_backward_f32(0, 5, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_softmax_f32(3, 0, NULL, NULL) != REPDL_OK;
    fails += repdl_softmax_backward_f32(3, 0, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_layer_norm_forward_f32(0, 4, 1e-5f, NULL, NULL, NULL, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_layer_norm_backward_f32(0, 4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_layer_norm_forward_f32(3, 0, 1e-5f, NULL, NULL, NULL, NULL, m, r) != REPDL_OK;
    fails += bits(m[0]) != 0x7fc00000u; /* the mean of nothing: canonical NaN */
    fails += repdl_layer_norm_backward_f32(3, 0, NULL, NULL, m, r, NULL, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_rms_norm_forward_f32(0, 4, 1e-5f, NULL, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_rms_norm_forward_f32(3, 0, 1e-5f, NULL, NULL, NULL, r) != REPDL_OK;
    fails += repdl_rms_norm_backward_f32(0, 4, NULL, NULL, NULL, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_batch_norm_forward_infer_f32(0, 3, 4, 1e-5f, NULL, NULL, NULL, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_batch_norm_backward_f32(0, 3, 4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_cross_entropy_f32(0, 3, 0, NULL, NULL, &l, NULL) != REPDL_OK;
    fails += bits(l) != 0x7fc00000u; /* the mean of no row: NaN */
    fails += repdl_nll_loss_f32(0, 3, 1, NULL, NULL, &l, NULL) != REPDL_OK;
    fails += bits(l) != 0x80000000u; /* the sum of no row: -0 */
    fails += repdl_cross_entropy_f32(3, 0, 0, NULL, tg, &l, NULL) != REPDL_OK;
    fails += bits(l) != 0x7fc00000u; /* no class: every target out of range */
    fails += repdl_nll_loss_f32(3, 0, 0, NULL, tg, &l, NULL) != REPDL_OK;
    fails += repdl_conv2d_forward_f32(&c0, NULL, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_conv2d_backward_f32(&c0, NULL, NULL, NULL, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_conv2d_forward_f32(&c1, NULL, NULL, NULL, out) != REPDL_OK;
    fails += repdl_conv2d_backward_f32(&c1, NULL, NULL, out, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_conv2d_backward_f32(&c1, NULL, NULL, NULL, NULL, NULL, NULL) != REPDL_ERR_INVALID; /* dy is data */
    fails += repdl_conv2d_forward_f32(&c2, NULL, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_conv2d_backward_f32(&c3, NULL, NULL, NULL, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_conv2d_out_h(&c3) != 0 || repdl_conv2d_out_w(&c3) != 0;
    fails += repdl_conv2d_out_h(&c2) != 3 || repdl_conv2d_out_w(&c2) != 3;
    fails += repdl_pool2d_out_h(NULL) != 0 || repdl_pool2d_out_w(NULL) != 0; /* pool.h: 0 */
    fails += repdl_conv2d_out_h(NULL) != 0 || repdl_conv2d_out_w(NULL) != 0;
    fails += repdl_pool2d_out_h(&p0) != 2 || repdl_pool2d_out_w(&p0) != 2;
    fails += repdl_max_pool2d_forward_f32(&p0, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_avg_pool2d_backward_f32(&p0, 0, NULL, NULL) != REPDL_OK;
    fails += repdl_gemm_f32(0, 0, 0, 4, 2, 1.0f, 0.0f, NULL, 2, NULL, 4, NULL, NULL, 4) != REPDL_OK;
    fails += repdl_linear_forward_f32(0, 3, 4, NULL, NULL, NULL, NULL) != REPDL_OK;
    { /* linear_pack.h: M = 0 or N = 0 reads and writes nothing (NULL
         accepted); K = 0 or N = 0 packs the header alone (W not read);
         K = 0 gives the bias (NaN canonical) or -0, as the unpacked form */
        static float pk[REPDL_LINEAR_PACK_HEADER + 1];
        float b2[3] = {1.5f, -0.0f, 0.0f}, y1[6], y2[6];
        size_t np = 0;
        uint32_t nanp = 0x7fa00001u;
        memcpy(&b2[2], &nanp, 4);
        fails += repdl_linear_forward_packed_f32(0, 3, 4, NULL, NULL, NULL, NULL) != REPDL_OK;
        fails += repdl_linear_forward_packed_f32(2, 3, 0, NULL, NULL, NULL, NULL) != REPDL_OK;
        fails += repdl_linear_pack_size_f32(0, 5, &np) != REPDL_OK;
        fails += np != REPDL_LINEAR_PACK_HEADER;
        fails += repdl_linear_pack_size_f32(7, 0, &np) != REPDL_OK;
        fails += np != REPDL_LINEAR_PACK_HEADER;
        memset(pk, 0x7f, sizeof pk);
        fails += repdl_linear_pack_f32(7, 0, NULL, pk, REPDL_LINEAR_PACK_HEADER) != REPDL_OK;
        fails += bits(pk[REPDL_LINEAR_PACK_HEADER]) != 0x7f7f7f7fu; /* header only */
        fails += repdl_linear_forward_packed_f32(2, 7, 0, NULL, pk, NULL, NULL) != REPDL_OK;
        fails += repdl_linear_pack_f32(0, 3, NULL, pk, REPDL_LINEAR_PACK_HEADER) != REPDL_OK;
        memset(y1, 0x7f, sizeof y1); memset(y2, 0x3f, sizeof y2);
        fails += repdl_linear_forward_packed_f32(2, 0, 3, NULL, pk, b2, y1) != REPDL_OK;
        fails += repdl_linear_forward_f32(2, 0, 3, NULL, NULL, b2, y2) != REPDL_OK;
        fails += memcmp(y1, y2, sizeof y1) != 0;
        fails += bits(y1[5]) != 0x7fc00000u || bits(y1[1]) != 0x80000000u;
        memset(y1, 0x7f, sizeof y1); memset(y2, 0x3f, sizeof y2);
        fails += repdl_linear_forward_packed_f32(2, 0, 3, NULL, pk, NULL, y1) != REPDL_OK;
        fails += repdl_linear_forward_f32(2, 0, 3, NULL, NULL, NULL, y2) != REPDL_OK;
        fails += memcmp(y1, y2, sizeof y1) != 0 || bits(y1[0]) != 0x80000000u;
    }
    { /* the embedding (docs/nn.md): NULL exactly where the extent is 0;
         n = 0: the forward writes nothing, the backward +0 everywhere;
         vocab 0 or dim 0: no element of the table */
        static const int64_t ids[2] = {0, 2};
        float t[6], o[6];
        int j;
        memset(t, 0x7f, sizeof t); memset(o, 0x7f, sizeof o);
        fails += repdl_embedding_forward_f32(NULL, 0, 4, NULL, 0, NULL) != REPDL_OK;
        fails += repdl_embedding_forward_f32(t, 3, 2, NULL, 0, NULL) != REPDL_OK;
        fails += repdl_embedding_forward_f32(NULL, 3, 0, ids, 2, NULL) != REPDL_OK;
        fails += repdl_embedding_forward_f32(NULL, 0, 0, NULL, 0, NULL) != REPDL_OK;
        fails += repdl_embedding_backward_f32(NULL, NULL, 0, 0, 4, NULL) != REPDL_OK;
        fails += repdl_embedding_backward_f32(NULL, ids, 2, 3, 0, NULL) != REPDL_OK;
        fails += repdl_embedding_backward_f32(NULL, NULL, 0, 3, 2, o) != REPDL_OK;
        for (j = 0; j < 6; j++) fails += bits(o[j]) != 0x00000000u;
        for (j = 0; j < 6; j++) fails += bits(t[j]) != 0x7f7f7f7fu;
        /* an id is still checked when no element is read (dim 0) */
        fails += repdl_embedding_forward_f32(NULL, 2, 0, ids, 2, NULL) != REPDL_ERR_INVALID;
        fails += repdl_embedding_backward_f32(NULL, ids, 2, 2, 0, NULL) != REPDL_ERR_INVALID;
    }
    fails += repdl_sum_rows_f32(0, 4, NULL, 4, NULL) != REPDL_OK;
    fails += repdl_var_rows_f32(0, 4, 0, NULL, 4, NULL) != REPDL_OK;
    fails += repdl_max_rows_f32(0, 4, NULL, 4, NULL) != REPDL_OK;
    fails += repdl_argmax_rows_f32(0, 4, NULL, 4, NULL) != REPDL_OK;
    fails += repdl_sum_rows_f32(3, 0, NULL, 0, out) != REPDL_OK;
    fails += repdl_var_rows_f32(3, 0, 0, NULL, 0, out) != REPDL_OK;
    fails += repdl_max_rows_f32(3, 0, NULL, 0, out) != REPDL_OK;
    fails += bits(repdl_sum_f32(0, NULL)) != 0x80000000u; /* the empty sum is -0 */
    fails += bits(repdl_dot_f32(0, NULL, NULL)) != 0x80000000u;
    { /* no sample: the norms' dgamma / dbeta are the empty batch-order sum,
         -0, for each column (channel); dx and the forward write nothing */
        float dg[4], db[4], dx[4];
        int j;
        memset(dg, 0x7f, sizeof dg); memset(db, 0x7f, sizeof db); memset(dx, 0x7f, sizeof dx);
        fails += repdl_layer_norm_backward_f32(0, 3, NULL, NULL, NULL, NULL, NULL, dx, dg, db) != REPDL_OK;
        for (j = 0; j < 3; j++) fails += bits(dg[j]) != 0x80000000u || bits(db[j]) != 0x80000000u;
        fails += bits(dg[3]) != 0x7f7f7f7fu || bits(db[3]) != 0x7f7f7f7fu || bits(dx[0]) != 0x7f7f7f7fu;
        memset(dg, 0x7f, sizeof dg);
        fails += repdl_rms_norm_backward_f32(0, 3, NULL, NULL, NULL, NULL, dx, dg) != REPDL_OK;
        for (j = 0; j < 3; j++) fails += bits(dg[j]) != 0x80000000u;
        fails += bits(dg[3]) != 0x7f7f7f7fu || bits(dx[0]) != 0x7f7f7f7fu;
        memset(dg, 0x7f, sizeof dg); memset(db, 0x7f, sizeof db);
        fails += repdl_batch_norm_backward_f32(0, 2, 3, NULL, NULL, NULL, NULL, NULL, dx, dg, db) != REPDL_OK;
        for (j = 0; j < 2; j++) fails += bits(dg[j]) != 0x80000000u || bits(db[j]) != 0x80000000u;
        fails += bits(dg[2]) != 0x7f7f7f7fu || bits(dx[0]) != 0x7f7f7f7fu;
        memset(dg, 0x7f, sizeof dg); memset(db, 0x7f, sizeof db);
        fails += repdl_batch_norm_backward_f32(2, 2, 0, NULL, NULL, NULL, NULL, NULL, dx, dg, db) != REPDL_OK;
        for (j = 0; j < 2; j++) fails += bits(dg[j]) != 0x80000000u || bits(db[j]) != 0x80000000u;
        /* 2^40 (2^30 on 32-bit size_t) images of no element: the same
           -0 at once (the micro-batches were walked: hours) */
        memset(dg, 0x7f, sizeof dg); memset(db, 0x7f, sizeof db);
        fails += repdl_batch_norm_backward_f32((size_t)1 << (sizeof(size_t) > 4 ? 40 : 30), 2, 0,
                                               NULL, NULL, NULL, NULL, NULL, dx, dg, db) != REPDL_OK;
        for (j = 0; j < 2; j++) fails += bits(dg[j]) != 0x80000000u || bits(db[j]) != 0x80000000u;
        memset(dg, 0x7f, sizeof dg);
        fails += repdl_layer_norm_forward_f32(0, 3, 1e-5f, NULL, NULL, NULL, NULL, dg, db) != REPDL_OK;
        fails += bits(dg[0]) != 0x7f7f7f7fu;
    }
    /* every elementwise function of op_table.h, each of its array forms */
#define EMPTY(name) fails += repdl_##name##_array_f32(0, NULL, NULL) != REPDL_OK;
#define EMPTY_16(name)                                                  \
    fails += repdl_##name##_array_bf16(0, NULL, NULL) != REPDL_OK;      \
    fails += repdl_##name##_array_f16(0, NULL, NULL) != REPDL_OK;
#define EMPTY_BWD(name, reads_y) \
    fails += repdl_##name##_backward_array_f32(0, NULL, NULL, NULL) != REPDL_OK;
    REPDL_ELEMENTWISE_OPS(EMPTY)
    REPDL_ELEMENTWISE_HALF(EMPTY_16)
    REPDL_ELEMENTWISE_BACKWARD(EMPTY_BWD)
#undef EMPTY
#undef EMPTY_16
#undef EMPTY_BWD
    fails += repdl_add_f32(0, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_rng_uniform_fill_f32(0, 1, 0, 0.0f, 1.0f, NULL) != REPDL_OK;
    fails += check_reductions();
    fails += check_mse_loss();
    fails += check_rope();
    fails += check_clip();
    fails += check_gemm_cr();
    fails += check_attention();
    { /* n > 0 with a NULL array: REPDL_ERR_INVALID, and the other arrays
         (inputs and outputs) untouched, for every array form of op_table.h
         and the conversions and elementwise helpers */
        float xf[3] = {0.5f, -1.0f, 2.0f}, of[3], g[3] = {1.0f, 1.0f, 1.0f};
        uint16_t xh[3] = {0x3f00, 0xbf80, 0x4000}, oh[3];
        uint8_t mask[3] = {1, 0, 1};
        const float *nf = NULL;
        const uint16_t *nh = NULL;
        memset(of, 0x7f, sizeof of); memset(oh, 0x7f, sizeof oh);
#define NUL(name)                                                                   \
    fails += repdl_##name##_array_f32(3, nf, of) != REPDL_ERR_INVALID;              \
    fails += repdl_##name##_array_f32(3, xf, NULL) != REPDL_ERR_INVALID;
#define NUL_16(name)                                                                \
    fails += repdl_##name##_array_bf16(3, nh, oh) != REPDL_ERR_INVALID;             \
    fails += repdl_##name##_array_f16(3, xh, NULL) != REPDL_ERR_INVALID;
#define NUL_BWD(name, reads_y)                                                      \
    fails += repdl_##name##_backward_array_f32(3, nf, g, of) != REPDL_ERR_INVALID;  \
    fails += repdl_##name##_backward_array_f32(3, xf, nf, of) != REPDL_ERR_INVALID; \
    fails += repdl_##name##_backward_array_f32(3, xf, g, NULL) != REPDL_ERR_INVALID;
        REPDL_ELEMENTWISE_OPS(NUL)
        REPDL_ELEMENTWISE_HALF(NUL_16)
        REPDL_ELEMENTWISE_BACKWARD(NUL_BWD)
#undef NUL
#undef NUL_16
#undef NUL_BWD
        fails += repdl_f32_to_bf16_array(3, nf, oh) != REPDL_ERR_INVALID;
        fails += repdl_bf16_to_f32_array(3, xh, NULL) != REPDL_ERR_INVALID;
        fails += repdl_f32_to_f16_array(3, xf, NULL) != REPDL_ERR_INVALID;
        fails += repdl_f16_to_f32_array(3, nh, of) != REPDL_ERR_INVALID;
        fails += repdl_add_f32(3, xf, nf, of) != REPDL_ERR_INVALID;
        fails += repdl_mul_f32(3, nf, g, of) != REPDL_ERR_INVALID;
        fails += repdl_scale_f32(3, 2.0f, xf, NULL) != REPDL_ERR_INVALID;
        fails += repdl_div_count_f32(3, 7, nf, of) != REPDL_ERR_INVALID;
        fails += repdl_dropout_forward_f32(3, 0.5f, 1, 2, nf, of, NULL) != REPDL_ERR_INVALID;
        fails += repdl_dropout_backward_f32(3, 0.5f, NULL, g, of) != REPDL_ERR_INVALID;
        fails += repdl_dropout_backward_f32(3, 0.5f, mask, g, NULL) != REPDL_ERR_INVALID;
        {
            int j;
            for (j = 0; j < 3; j++)
                fails += bits(of[j]) != 0x7f7f7f7fu || oh[j] != 0x7f7fu;
        }
        /* the mask stays optional */
        fails += repdl_dropout_forward_f32(3, 0.5f, 1, 2, xf, of, NULL) != REPDL_OK;
    }
    printf("%s: empty extents with NULL, %d failed\n", fails ? "FAIL" : "ok", fails);
    return fails != 0;
}
