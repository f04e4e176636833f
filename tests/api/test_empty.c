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

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

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
    fails += repdl_max_pool2d_forward_f32(&p0, NULL, NULL, NULL) != REPDL_OK;
    fails += repdl_avg_pool2d_backward_f32(&p0, 0, NULL, NULL) != REPDL_OK;
    fails += repdl_gemm_f32(0, 0, 0, 4, 2, 1.0f, 0.0f, NULL, 2, NULL, 4, NULL, NULL, 4) != REPDL_OK;
    fails += repdl_linear_forward_f32(0, 3, 4, NULL, NULL, NULL, NULL) != REPDL_OK;
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
