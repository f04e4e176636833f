/* tests/api/test_bad_sizes.c: shape-taking functions handed sizes that
   overflow, look negative ((size_t)-1, i.e. -1 passed as a size), or do
   not fit together, return their documented status (docs/api.md) and
   write nothing.  Every output is a small real buffer filled with a canary
   bit pattern and compared with memcmp afterwards; built once plainly and
   once with AddressSanitizer and UndefinedBehaviorSanitizer (meson), so a
   write or read past a buffer is caught too.  Covers gemm, the threaded
   gemm, linear forward/backward, conv2d forward/backward, the four
   pool2d functions and the embedding; the status strings. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <repdl/repdl.h>
#include <repdl/gemm_threads.h>

#include "../common/check.h"

#define BIG ((size_t)-1)
#define HUGE_DIM ((size_t)1 << 62)
enum { NBUF = 64 };

static float in[NBUF], out[NBUF], out2[NBUF], out3[NBUF], canary[NBUF];
static size_t am[NBUF], am_canary[NBUF];

static void reset(void)
{
    memcpy(out, canary, sizeof out);
    memcpy(out2, canary, sizeof out2);
    memcpy(out3, canary, sizeof out3);
    memcpy(am, am_canary, sizeof am);
}

static void expect(const char *what, int got, int want)
{
    int untouched = !memcmp(out, canary, sizeof out) && !memcmp(out2, canary, sizeof out2) &&
                    !memcmp(out3, canary, sizeof out3) && !memcmp(am, am_canary, sizeof am);
    CHECK(got == want && untouched, "%s: status %d (%s), want %d (%s)%s", what, got,
          repdl_status_string((repdl_status)got), want, repdl_status_string((repdl_status)want),
          untouched ? "" : ", output written");
    reset();
}

static repdl_conv2d_shape conv_ok(void)
{
    repdl_conv2d_shape s = {1, 1, 4, 4, 1, 2, 2, 1, 1, 0, 0, 1, 1};
    return s;
}

static repdl_pool2d_shape pool_ok(void)
{
    repdl_pool2d_shape s = {1, 1, 4, 4, 2, 2, 2, 2, 0, 0};
    return s;
}

#define CONV_FWD(s) repdl_conv2d_forward_f32(&(s), in, in, NULL, out)
#define CONV_BWD(s) repdl_conv2d_backward_f32(&(s), in, in, in, out, out2, out3)

int main(void)
{
    const int INV = REPDL_ERR_INVALID, OVF = REPDL_ERR_OVERFLOW;
    size_t i;
    repdl_conv2d_shape c;
    repdl_pool2d_shape p;
    for (i = 0; i < NBUF; i++) {
        uint32_t u = 0x7fa5a5a5u ^ (uint32_t)i; /* a signalling-NaN pattern */
        memcpy(&canary[i], &u, 4);
        am_canary[i] = (size_t)0x5a5a5a5a5a5a5a5aULL;
        in[i] = (float)i / 8.0f;
    }
    reset();

    /* ---- gemm (and the threaded form, and linear, which use its check) ---- */
    expect("gemm ldc < N", repdl_gemm_f32(0, 0, 2, 4, 2, 1, 0, in, 2, in, 4, NULL, out, 3), INV);
    expect("gemm lda < K", repdl_gemm_f32(0, 0, 2, 4, 3, 1, 0, in, 2, in, 4, NULL, out, 4), INV);
    expect("gemm lda < M (transA)", repdl_gemm_f32(1, 0, 3, 4, 2, 1, 0, in, 2, in, 4, NULL, out, 4), INV);
    expect("gemm ldb < N", repdl_gemm_f32(0, 0, 2, 4, 2, 1, 0, in, 2, in, 3, NULL, out, 4), INV);
    expect("gemm ldb < K (transB)", repdl_gemm_f32(0, 1, 2, 4, 3, 1, 0, in, 3, in, 2, NULL, out, 4), INV);
    expect("gemm C NULL", repdl_gemm_f32(0, 0, 2, 4, 2, 1, 0, in, 2, in, 4, NULL, NULL, 4), INV);
    expect("gemm A NULL", repdl_gemm_f32(0, 0, 2, 4, 2, 1, 0, NULL, 2, in, 4, NULL, out, 4), INV);
    expect("gemm M ldc overflows", repdl_gemm_f32(0, 0, HUGE_DIM, 4, 2, 1, 0, in, 2, in, 4, NULL, out, 4), OVF);
    expect("gemm M = -1", repdl_gemm_f32(0, 0, BIG, 4, 2, 1, 0, in, 2, in, 4, NULL, out, 4), OVF);
    expect("gemm ldc = -1", repdl_gemm_f32(0, 0, 2, 4, 2, 1, 0, in, 2, in, 4, NULL, out, BIG), OVF);
    expect("gemm K lda overflows (transA)", repdl_gemm_f32(1, 0, 2, 4, HUGE_DIM, 1, 0, in, 2, in, 4, NULL, out, 4), OVF);
    expect("gemm ldb = -1", repdl_gemm_f32(0, 0, 2, 4, 2, 1, 0, in, 2, in, BIG, NULL, out, 4), OVF);
    expect("gemm M = 0: nothing, ok", repdl_gemm_f32(0, 0, 0, 4, 2, 1, 0, NULL, 2, NULL, 4, NULL, NULL, 0), REPDL_OK);
    expect("gemm_threads ldc < N", repdl_gemm_threads_f32(0, 0, 2, 4, 2, 2, 1, 0, in, 2, in, 4, NULL, out, 3), INV);
    expect("gemm_threads M = -1", repdl_gemm_threads_f32(0, 0, BIG, 4, 2, 2, 1, 0, in, 2, in, 4, NULL, out, 4), OVF);
    expect("linear forward M = -1", repdl_linear_forward_f32(BIG, 2, 2, in, in, NULL, out), OVF);
    expect("linear forward M*N overflows", repdl_linear_forward_f32(HUGE_DIM, 2, 8, in, in, NULL, out), OVF);
    { /* linear_pack.h: a buffer packed for 2 x 2 (K, N), refused under any
         other (K, N) or layout version */
        static float pk[REPDL_LINEAR_PACK_HEADER + 2 * 16];
        size_t np = 7;
        uint32_t ver;
        const size_t cap = sizeof pk / sizeof pk[0];
        expect("pack size K*N overflows", repdl_linear_pack_size_f32(HUGE_DIM, 8, &np), OVF);
        expect("pack size N = -1", repdl_linear_pack_size_f32(2, BIG, &np), OVF);
        CHECK(np == 7, "pack size written on overflow");
        expect("pack size NULL", repdl_linear_pack_size_f32(2, 2, NULL), INV);
        expect("pack K = -1", repdl_linear_pack_f32(BIG, 2, in, out, NBUF), OVF);
        expect("pack packed NULL", repdl_linear_pack_f32(2, 2, in, NULL, NBUF), INV);
        expect("pack W NULL", repdl_linear_pack_f32(2, 2, NULL, out, NBUF), INV);
        expect("pack cap short", repdl_linear_pack_f32(2, 2, in, out, 2 * 16 + 15), INV);
        CHECK(repdl_linear_pack_f32(2, 2, in, pk, cap) == REPDL_OK, "pack 2 x 2");
        expect("packed ok", repdl_linear_forward_packed_f32(0, 2, 2, in, pk, NULL, out), REPDL_OK);
        expect("packed M = -1", repdl_linear_forward_packed_f32(BIG, 2, 2, in, pk, NULL, out), OVF);
        expect("packed M*N overflows", repdl_linear_forward_packed_f32(HUGE_DIM, 2, 8, in, pk, NULL, out), OVF);
        expect("packed M*K overflows", repdl_linear_forward_packed_f32(8, HUGE_DIM, 2, in, pk, NULL, out), OVF);
        expect("packed size overflows", repdl_linear_forward_packed_f32(1, HUGE_DIM, 8, in, pk, NULL, out), OVF);
        expect("packed y NULL", repdl_linear_forward_packed_f32(2, 2, 2, in, pk, NULL, NULL), INV);
        expect("packed NULL", repdl_linear_forward_packed_f32(2, 2, 2, in, NULL, NULL, out), INV);
        expect("packed x NULL", repdl_linear_forward_packed_f32(2, 2, 2, NULL, pk, NULL, out), INV);
        expect("packed other K", repdl_linear_forward_packed_f32(2, 3, 2, in, pk, NULL, out), INV);
        expect("packed other N", repdl_linear_forward_packed_f32(2, 2, 1, in, pk, NULL, out), INV);
        expect("packed K = 0 of a K = 2 buffer", repdl_linear_forward_packed_f32(2, 0, 2, NULL, pk, NULL, out), INV);
        expect("packed unpacked W", repdl_linear_forward_packed_f32(2, 2, 2, in, in, NULL, out), INV);
        memcpy(&ver, &pk[1], 4);
        ver++; /* the layout version word */
        memcpy(&pk[1], &ver, 4);
        expect("packed other version", repdl_linear_forward_packed_f32(2, 2, 2, in, pk, NULL, out), INV);
    }
    expect("linear backward M = -1", repdl_linear_backward_f32(BIG, 2, 2, in, in, in, out, out2, out3), OVF);
    expect("linear backward dy NULL", repdl_linear_backward_f32(2, 2, 2, in, in, NULL, out, out2, out3), INV);

    /* ---- conv2d ---- */
    c = conv_ok(); c.stride_h = 0; expect("conv stride 0", CONV_FWD(c), INV);
    c = conv_ok(); c.dil_w = 0; expect("conv backward dil 0", CONV_BWD(c), INV);
    c = conv_ok(); c.kh = 0; expect("conv kernel 0", CONV_FWD(c), INV);
    expect("conv shape NULL", repdl_conv2d_forward_f32(NULL, in, in, NULL, out), INV);
    c = conv_ok(); c.pad_h = BIG; expect("conv pad = -1", CONV_FWD(c), OVF);
    c = conv_ok(); c.pad_w = BIG; expect("conv backward pad = -1", CONV_BWD(c), OVF);
    c = conv_ok(); c.dil_h = BIG; expect("conv dil = -1", CONV_FWD(c), OVF);
    c = conv_ok(); c.c = HUGE_DIM; expect("conv c = 2^62", CONV_FWD(c), OVF);
    c = conv_ok(); c.c = HUGE_DIM; expect("conv backward c = 2^62", CONV_BWD(c), OVF);
    c = conv_ok(); c.n = BIG; expect("conv n = -1", CONV_FWD(c), OVF);
    c = conv_ok(); c.oc = HUGE_DIM; expect("conv oc = 2^62", CONV_FWD(c), OVF);
    c = conv_ok(); c.kw = HUGE_DIM; c.w = HUGE_DIM; expect("conv kw = w = 2^62", CONV_FWD(c), OVF);
    c = conv_ok(); c.h = (size_t)1 << 40; c.w = (size_t)1 << 40; expect("conv h w = 2^80", CONV_FWD(c), OVF);
    c = conv_ok(); c.n = 0; expect("conv n = 0: nothing, ok", CONV_FWD(c), REPDL_OK);
    expect("conv_out_h of pad -1 is 0", (int)repdl_conv2d_out_h(&c) == 3 ? 0 : 1, 0);
    c.pad_h = BIG; expect("conv_out_h of pad -1 is 0", (int)repdl_conv2d_out_h(&c), 0);

    /* ---- softmax, losses, norms, row-wise reductions ---- */
    {
        static const size_t tg[4] = {0, 1, 0, 1};
        expect("softmax rows x cols overflows", repdl_softmax_f32(HUGE_DIM, 8, in, out), OVF);
        expect("softmax rows = -1", repdl_softmax_f32(BIG, 2, in, out), OVF);
        expect("softmax y NULL", repdl_softmax_f32(2, 2, in, NULL), INV);
        expect("log_softmax x NULL", repdl_log_softmax_f32(2, 2, NULL, out), INV);
        expect("softmax_backward overflows", repdl_softmax_backward_f32(BIG, 2, in, in, out), OVF);
        expect("log_softmax_backward dy NULL", repdl_log_softmax_backward_f32(2, 2, in, NULL, out), INV);
        expect("cross_entropy rows = -1", repdl_cross_entropy_f32(BIG, 2, REPDL_REDUCTION_SUM, in, tg, out, out2), OVF);
        expect("cross_entropy reduction 2", repdl_cross_entropy_f32(2, 2, 2, in, tg, out, out2), INV);
        expect("cross_entropy loss NULL", repdl_cross_entropy_f32(2, 2, REPDL_REDUCTION_SUM, in, tg, NULL, out2), INV);
        expect("cross_entropy target NULL", repdl_cross_entropy_f32(2, 2, REPDL_REDUCTION_SUM, in, NULL, out, out2), INV);
        expect("nll_loss overflows", repdl_nll_loss_f32(HUGE_DIM, 8, REPDL_REDUCTION_MEAN, in, tg, out, out2), OVF);
        expect("nll_loss reduction -1", repdl_nll_loss_f32(2, 2, -1, in, tg, out, NULL), INV);
        expect("layer_norm overflows", repdl_layer_norm_forward_f32(BIG, 2, 0.0f, in, NULL, NULL, out, out2, out3), OVF);
        expect("layer_norm_backward rstd NULL",
               repdl_layer_norm_backward_f32(2, 2, in, NULL, in, NULL, in, out, out2, out3), INV);
        expect("rms_norm overflows", repdl_rms_norm_forward_f32(HUGE_DIM, 8, 0.0f, in, NULL, out, out2), OVF);
        expect("rms_norm_backward x NULL", repdl_rms_norm_backward_f32(2, 2, NULL, NULL, in, in, out, out2), INV);
        expect("batch_norm_train n c hw overflows",
               repdl_batch_norm_forward_train_f32(HUGE_DIM, 2, 2, 0.0f, 0.1f, in, NULL, NULL, NULL, NULL, out, out2,
                                                  out3), OVF);
        expect("batch_norm_infer running_var NULL",
               repdl_batch_norm_forward_infer_f32(2, 2, 2, 0.0f, in, NULL, NULL, in, NULL, out), INV);
        expect("batch_norm_backward overflows",
               repdl_batch_norm_backward_f32(BIG, 2, 2, in, NULL, in, in, in, out, out2, out3), OVF);
        expect("sum_rows span overflows", repdl_sum_rows_f32(3, 10, in, HUGE_DIM, out), OVF);
        expect("dot_rows y span overflows", repdl_dot_rows_f32(3, 10, in, 10, in, BIG, out), OVF);
        expect("var_rows out NULL", repdl_var_rows_f32(2, 2, 0, in, 2, NULL), INV);
        expect("max_rows x NULL", repdl_max_rows_f32(2, 2, NULL, 2, out), INV);
        expect("argmax_rows span overflows", repdl_argmax_rows_f32(BIG, 2, in, 2, am), OVF);
    }

    /* ---- pool2d ---- */
    p = pool_ok(); p.stride_w = 0;
    expect("max_pool fwd stride 0", repdl_max_pool2d_forward_f32(&p, in, out, am), INV);
    expect("max_pool bwd stride 0", repdl_max_pool2d_backward_f32(&p, am, in, out), INV);
    expect("avg_pool fwd stride 0", repdl_avg_pool2d_forward_f32(&p, 1, in, out), INV);
    expect("avg_pool bwd stride 0", repdl_avg_pool2d_backward_f32(&p, 1, in, out), INV);
    p = pool_ok(); p.kh = 0;
    expect("max_pool kernel 0", repdl_max_pool2d_forward_f32(&p, in, out, am), INV);
    expect("pool shape NULL", repdl_max_pool2d_forward_f32(NULL, in, out, am), INV);
    p = pool_ok(); p.pad_h = BIG;
    expect("max_pool fwd pad = -1", repdl_max_pool2d_forward_f32(&p, in, out, am), OVF);
    expect("max_pool bwd pad = -1", repdl_max_pool2d_backward_f32(&p, am, in, out), OVF);
    expect("avg_pool fwd pad = -1", repdl_avg_pool2d_forward_f32(&p, 0, in, out), OVF);
    expect("avg_pool bwd pad = -1", repdl_avg_pool2d_backward_f32(&p, 0, in, out), OVF);
    p = pool_ok(); p.c = HUGE_DIM;
    expect("max_pool c = 2^62", repdl_max_pool2d_forward_f32(&p, in, out, am), OVF);
    expect("avg_pool bwd c = 2^62", repdl_avg_pool2d_backward_f32(&p, 1, in, out), OVF);
    p = pool_ok(); p.n = BIG;
    expect("avg_pool n = -1", repdl_avg_pool2d_forward_f32(&p, 1, in, out), OVF);
    p = pool_ok(); p.kh = HUGE_DIM; p.kw = HUGE_DIM; p.h = HUGE_DIM;
    expect("avg_pool kh kw = 2^124", repdl_avg_pool2d_forward_f32(&p, 1, in, out), OVF);
    p = pool_ok(); p.n = 0;
    expect("max_pool n = 0: nothing, ok", repdl_max_pool2d_forward_f32(&p, NULL, NULL, NULL), REPDL_OK);

    /* ---- embedding (docs/nn.md): sizes, then NULL arrays, then every id,
       all before anything is written ---- */
    {
        static const int64_t ok_ids[4] = {0, 3, 1, 3}, hi[4] = {0, 3, 4, 1}, neg[4] = {0, -1, 1, 2};
        expect("embedding vocab dim overflows", repdl_embedding_forward_f32(in, BIG, 2, ok_ids, 4, out), OVF);
        expect("embedding dim = 2^62", repdl_embedding_forward_f32(in, 4, HUGE_DIM, ok_ids, 4, out), OVF);
        expect("embedding n = -1", repdl_embedding_forward_f32(in, 4, 2, ok_ids, BIG, out), OVF);
        /* dim 0: no float array has an element, but ids (n int64) does not fit */
        expect("embedding dim 0, n = 2^62", repdl_embedding_forward_f32(in, 4, 0, ok_ids, HUGE_DIM, out), OVF);
        expect("embedding_backward dim 0, n = -1", repdl_embedding_backward_f32(in, ok_ids, BIG, 4, 0, out), OVF);
        expect("embedding out NULL", repdl_embedding_forward_f32(in, 4, 2, ok_ids, 4, NULL), INV);
        expect("embedding table NULL", repdl_embedding_forward_f32(NULL, 4, 2, ok_ids, 4, out), INV);
        expect("embedding ids NULL", repdl_embedding_forward_f32(in, 4, 2, NULL, 4, out), INV);
        expect("embedding id = vocab", repdl_embedding_forward_f32(in, 4, 2, hi, 4, out), INV);
        expect("embedding id -1", repdl_embedding_forward_f32(in, 4, 2, neg, 4, out), INV);
        expect("embedding_backward vocab dim overflows",
               repdl_embedding_backward_f32(in, ok_ids, 4, HUGE_DIM, 8, out), OVF);
        expect("embedding_backward n = -1", repdl_embedding_backward_f32(in, ok_ids, BIG, 4, 2, out), OVF);
        expect("embedding_backward dtable NULL", repdl_embedding_backward_f32(in, ok_ids, 4, 4, 2, NULL), INV);
        expect("embedding_backward dout NULL", repdl_embedding_backward_f32(NULL, ok_ids, 4, 4, 2, out), INV);
        expect("embedding_backward id = vocab", repdl_embedding_backward_f32(in, hi, 4, 4, 2, out), INV);
        expect("embedding_backward id -1", repdl_embedding_backward_f32(in, neg, 4, 4, 2, out), INV);
    }

    /* ---- status strings ---- */
    {
        const repdl_status all[] = {REPDL_OK, REPDL_ERR_INVALID, REPDL_ERR_OVERFLOW,
                                    REPDL_ERR_NOMEM, REPDL_ERR_CUDA, REPDL_ERR_FPENV,
                                    REPDL_ERR_MPI};
        for (i = 0; i < sizeof all / sizeof all[0]; i++) {
            size_t j;
            for (j = 0; j < i; j++)
                if (!strcmp(repdl_status_string(all[i]), repdl_status_string(all[j]))) break;
            expect("status strings distinct", j == i && strcmp(repdl_status_string(all[i]), "unknown status") ? 0 : 1, 0);
        }
        expect("unknown status", strcmp(repdl_status_string((repdl_status)7), "unknown status"), 0);
    }
    return check_summary("test_bad_sizes");
}
