/* SPDX-License-Identifier: MIT */
/* tests/fpenv/fpenv_refuse.c: every public function that takes an array or
   a shape refuses a floating-point environment that would change its bits
   (flush-to-zero, denormals-are-zero, a rounding mode other than nearest)
   with REPDL_ERR_FPENV and writes nothing (docs/api.md, section 4).

   One call of a function of each header (one or more forms: f32, bf16/f16,
   backward, threads, row-wise, value-returning reductions), every output in
   one canary-filled buffer and every in-out array compared with a copy.

     fpenv_refuse ok       every call returns REPDL_OK and writes its output;
                           repdl_fpenv_ok(1.0f) == 1
     fpenv_refuse refuse   every call returns REPDL_ERR_FPENV (the value
                           forms NaN / REPDL_NO_INDEX / -1) and the canary
                           and the in-out arrays are unchanged;
                           repdl_fpenv_ok(1.0f) == 0.  Run under an
                           LD_PRELOADed library built with -ffast-math
                           (tests/fpenv/meson.build), or in a program linked
                           with clang -funsafe-math-optimizations.
     fpenv_refuse csr      each mode the machine can set by hand, set
                           alone: "refuse" holds; restored: "ok" holds.
                           x86 SSE: FTZ, DAZ and the three directed
                           rounding modes in MXCSR; aarch64: FZ and the
                           three rounding modes in FPCR; elsewhere the
                           three directed modes through fesetround (77,
                           skipped, where <fenv.h> has none of them).
   Exit 0 when every check holds, 1 otherwise (each failure printed). */
#include <repdl/repdl.h>
#include <repdl/conv2d_threads.h>
#include <repdl/gemm_threads.h>
#include <repdl/reduce_threads.h>
#include <repdl/reduce_units.h>
#include <repdl/attention_threads.h>
#include <repdl/gemm_cr_threads.h>

#include <stdio.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE__)
#include <xmmintrin.h>
#define MODE_REG 1 /* MXCSR */
#define MODE_MASK 0xe040u
static unsigned mode_get(void) { return _mm_getcsr(); }
static void mode_set(unsigned v) { _mm_setcsr(v); }
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#define MODE_REG 1 /* FPCR */
#define MODE_MASK 0x01c00000u
static unsigned mode_get(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
    return (unsigned)v;
}
static void mode_set(unsigned v)
{
    uint64_t w = v;
    __asm__ __volatile__("msr fpcr, %0" : : "r"(w));
}
#else
#include <fenv.h>
#define MODE_REG 0
#endif

#define CANARY 0x5a
#define BUF_BYTES 65536

static unsigned char buf[BUF_BYTES]; /* every output lies here */
static int failures, calls;

static float in_x[256], in_y[256], in_w[256];
static uint16_t in_h[256];
static size_t in_t[8];
static const int64_t emb_ids[8] = {0, 3, 1, 3, 2, 0, 1, 2};

/* The in-out arrays (optimizer weights and state) and their copies. */
static float io_w[64], io_m[64], io_v[64], io_mom[64];
static float io_copy[4][64];
static repdl_adam_state io_adam;

static float *fo(size_t k) { return (float *)(void *)(buf + 4096 * k); }
static uint16_t *ho(size_t k) { return (uint16_t *)(void *)(buf + 4096 * k); }
static size_t *zo(size_t k) { return (size_t *)(void *)(buf + 4096 * k); }

static void reset(void)
{
    size_t i;
    memset(buf, CANARY, sizeof buf);
    for (i = 0; i < 64; i++) {
        io_w[i] = 0.25f * (float)i - 3.0f;
        io_m[i] = 0.01f * (float)i;
        io_v[i] = 0.001f * (float)(i + 1);
        io_mom[i] = -0.5f + 0.02f * (float)i;
    }
    memcpy(io_copy[0], io_w, sizeof io_w);
    memcpy(io_copy[1], io_m, sizeof io_m);
    memcpy(io_copy[2], io_v, sizeof io_v);
    memcpy(io_copy[3], io_mom, sizeof io_mom);
    repdl_adam_state_init(&io_adam);
}

static int untouched(void)
{
    size_t i;
    for (i = 0; i < sizeof buf; i++)
        if (buf[i] != CANARY) return 0;
    return !memcmp(io_copy[0], io_w, sizeof io_w) && !memcmp(io_copy[1], io_m, sizeof io_m) &&
           !memcmp(io_copy[2], io_v, sizeof io_v) && !memcmp(io_copy[3], io_mom, sizeof io_mom) &&
           io_adam.t == 0;
}

static void status_case(const char *what, repdl_status got, repdl_status want, int refuse)
{
    calls++;
    if (got != want) {
        printf("FAIL %s: status %d (%s), expected %d\n", what, (int)got, repdl_status_string(got),
               (int)want);
        failures++;
    }
    if (refuse && !untouched()) {
        printf("FAIL %s: refused, but it wrote to its output\n", what);
        failures++;
    }
    if (!refuse && untouched()) { /* else the canary would prove nothing */
        printf("FAIL %s: accepted, but it wrote nothing\n", what);
        failures++;
    }
    reset();
}

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static void value_case(const char *what, float got, int refuse)
{
    calls++;
    if (refuse ? bits(got) != REPDL_NAN_BITS : got != got) {
        printf("FAIL %s: 0x%08x (%s expected)\n", what, (unsigned)bits(got),
               refuse ? "the canonical NaN" : "a number");
        failures++;
    }
}

/* Every sampled entry point; refuse: expect the refusal, else REPDL_OK. */
static void run(int refuse)
{
    repdl_status want = refuse ? REPDL_ERR_FPENV : REPDL_OK;
    repdl_conv2d_shape cs = {1, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1};
    repdl_pool2d_shape ps = {1, 2, 6, 6, 2, 2, 2, 2, 0, 0};
    repdl_sgd_config sgd = {0.1f, 0.9f, 0.0f, 0.0f, 0};
    repdl_adam_config adam = {0.001f, 0.9f, 0.999f, 1e-8f, 0.01f, 1};
    repdl_adam_state as1 = {1u, 0.9f, 0.999f};
    repdl_sum_state ss;
    const float *nodes_in[1];
    size_t bounds[2] = {0, 4};
    size_t idx;
    /* attention: 2 query heads on 1 key/value head, 4 queries, 8 keys, d 8 */
    repdl_attention_shape as = {1, 2, 1, 4, 8, 8, 4, 0, 1};
    repdl_kv_cache kvc = {1, 1, 8, 8, 8, in_x, in_y};
    const size_t gsz[2] = {8, 16};
    const float *cgr[2] = {in_x, in_y};
    float *wgr[2] = {fo(1), fo(2)};
#define S(call) status_case(#call, call, want, refuse)
    reset();
    /* activation.h */
    S(repdl_relu_array_f32(256, in_x, fo(0)));
    S(repdl_gelu_array_f32(256, in_x, fo(0)));
    S(repdl_silu_array_f32(256, in_x, fo(0)));
    S(repdl_gelu_backward_array_f32(256, in_x, in_y, fo(0)));
    S(repdl_softplus_backward_array_f32(256, in_x, in_y, fo(0)));
    S(repdl_silu_array_bf16(256, in_h, ho(0)));
    S(repdl_gelu_tanh_array_f16(256, in_h, ho(0)));
#if defined(REPDL_BACKWARD_H)
    /* backward.h */
    S(repdl_exp_backward_array_f32(256, in_x, in_y, fo(0)));
    S(repdl_sum_rows_backward_f32(4, 64, in_y, fo(0)));
#endif
    /* the elementary functions' headers */
    S(repdl_exp_array_f32(256, in_x, fo(0)));
    S(repdl_exp2_array_f32(256, in_x, fo(0)));
    S(repdl_expm1_array_f32(256, in_x, fo(0)));
    S(repdl_log_array_f32(256, in_w, fo(0)));
    S(repdl_log2_array_f32(256, in_w, fo(0)));
    S(repdl_log1p_array_f32(256, in_w, fo(0)));
    S(repdl_tanh_array_f32(256, in_x, fo(0)));
    S(repdl_sigmoid_array_f32(256, in_x, fo(0)));
    S(repdl_sqrt_array_f32(256, in_w, fo(0)));
    S(repdl_rsqrt_array_f32(256, in_w, fo(0)));
    S(repdl_sin_array_f32(256, in_x, fo(0)));
    S(repdl_cos_array_f32(256, in_x, fo(0)));
    S(repdl_erf_array_f32(256, in_x, fo(0)));
    S(repdl_exp2_array_bf16(256, in_h, ho(0)));
    S(repdl_log1p_array_f16(256, in_h, ho(0)));
    S(repdl_sin_array_bf16(256, in_h, ho(0)));
    /* half.h, half_math.h */
    S(repdl_f32_to_bf16_array(256, in_x, ho(0)));
    S(repdl_f16_to_f32_array(256, in_h, fo(0)));
    S(repdl_exp_array_f16(256, in_h, ho(0)));
    S(repdl_sigmoid_array_bf16(256, in_h, ho(0)));
    /* reduce.h, reduce_minmax.h, reduce_threads.h, reduce_units.h */
    S(repdl_sum_rows_f32(4, 64, in_x, 64, fo(0)));
    S(repdl_var_rows_f32(4, 64, 1, in_x, 64, fo(0)));
    S(repdl_div_count_f32(256, 3, in_x, fo(0)));
    S(repdl_max_rows_f32(4, 64, in_x, 64, fo(0)));
    S(repdl_argmax_rows_f32(4, 64, in_x, 64, zo(0)));
    S(repdl_units_nodes_f32(4, 0, 4, 8, in_x, 8, fo(0)));
    nodes_in[0] = in_x;
    S(repdl_units_combine_f32(4, 1, bounds, 8, nodes_in, fo(0)));
    value_case("repdl_sum_f32", repdl_sum_f32(256, in_x), refuse);
    value_case("repdl_dot_f32", repdl_dot_f32(256, in_x, in_y), refuse);
    value_case("repdl_sum_strided_f32", repdl_sum_strided_f32(64, in_x, 3), refuse);
    value_case("repdl_norm2_f32", repdl_norm2_f32(256, in_x), refuse);
    value_case("repdl_mean_f32", repdl_mean_f32(256, in_x), refuse);
    value_case("repdl_var_f32", repdl_var_f32(256, 1, in_x), refuse);
    value_case("repdl_sum_combine_f32", repdl_sum_combine_f32(4, in_x), refuse);
    value_case("repdl_max_f32", repdl_max_f32(256, in_x), refuse);
    value_case("repdl_sum_threads_f32", repdl_sum_threads_f32(256, 2, in_x), refuse);
    value_case("repdl_dot_threads_f32", repdl_dot_threads_f32(256, 2, in_x, in_y), refuse);
    idx = repdl_argmax_f32(256, in_x);
    calls++;
    if ((idx == REPDL_NO_INDEX) != refuse) {
        printf("FAIL repdl_argmax_f32: %zu\n", idx);
        failures++;
    }
    repdl_sum_state_init(&ss);
    calls++;
    if (repdl_sum_state_push(&ss, 0, 1024, 1.0f) != (refuse ? -1 : 0) ||
        (bits(repdl_sum_state_result(&ss)) == REPDL_NAN_BITS) != refuse) {
        printf("FAIL repdl_sum_state_push / result\n");
        failures++;
    }
    /* gemm.h, gemm_threads.h, linear.h, conv2d.h, conv2d_threads.h */
    S(repdl_gemm_f32(0, 1, 8, 8, 8, 1.0f, 0.0f, in_x, 8, in_y, 8, in_w, fo(0), 8));
    S(repdl_gemm_threads_f32(0, 0, 8, 8, 8, 2, 1.0f, 0.0f, in_x, 8, in_y, 8, NULL, fo(0), 8));
    S(repdl_linear_forward_f32(4, 8, 8, in_x, in_y, in_w, fo(0)));
    S(repdl_linear_backward_f32(4, 8, 8, in_x, in_y, in_w, fo(0), fo(1), fo(2)));
    { /* linear_pack.h: the packing copies bits (no check); the forward */
        static float pk[REPDL_LINEAR_PACK_HEADER + 8 * 16];
        if (repdl_linear_pack_f32(8, 8, in_y, pk, sizeof pk / sizeof pk[0]) != REPDL_OK) {
            printf("FAIL repdl_linear_pack_f32\n");
            failures++;
        }
        S(repdl_linear_forward_packed_f32(4, 8, 8, in_x, pk, in_w, fo(0)));
    }
    S(repdl_conv2d_forward_f32(&cs, in_x, in_y, in_w, fo(0)));
    S(repdl_conv2d_backward_f32(&cs, in_x, in_y, in_w, fo(0), fo(1), fo(2)));
    S(repdl_conv2d_forward_threads_f32(&cs, 2, in_x, in_y, in_w, fo(0)));
    /* pool.h */
    S(repdl_max_pool2d_forward_f32(&ps, in_x, fo(0), zo(1)));
    S(repdl_avg_pool2d_forward_f32(&ps, 1, in_x, fo(0)));
    S(repdl_avg_pool2d_backward_f32(&ps, 1, in_y, fo(0)));
    /* softmax.h */
    S(repdl_softmax_f32(4, 64, in_x, fo(0)));
    S(repdl_log_softmax_backward_f32(4, 64, in_x, in_y, fo(0)));
    S(repdl_cross_entropy_f32(4, 64, REPDL_REDUCTION_MEAN, in_x, in_t, fo(0), fo(1)));
    S(repdl_nll_loss_f32(4, 64, REPDL_REDUCTION_SUM, in_x, in_t, fo(0), fo(1)));
    /* norm.h */
    S(repdl_layer_norm_forward_f32(4, 64, 1e-5f, in_x, in_w, in_y, fo(0), fo(1), fo(2)));
    S(repdl_rms_norm_forward_f32(4, 64, 1e-5f, in_x, in_w, fo(0), fo(1)));
    S(repdl_batch_norm_forward_infer_f32(2, 4, 8, 1e-5f, in_x, in_w, in_y, in_w, in_y, fo(0)));
    /* embedding.h (ids below vocab 4) */
    S(repdl_embedding_forward_f32(in_x, 4, 8, emb_ids, 8, fo(0)));
    S(repdl_embedding_backward_f32(in_y, emb_ids, 8, 4, 8, fo(0)));
    /* mse_loss.h, rope.h, clip.h */
    S(repdl_mse_loss_forward_f32(256, REPDL_REDUCTION_MEAN, in_x, in_y, fo(0)));
    S(repdl_mse_loss_backward_f32(256, REPDL_REDUCTION_SUM, in_x, in_y, 0.5f, fo(0)));
    S(repdl_rope_table_f32(8, 8, 10000.0f, fo(0), fo(1)));
    S(repdl_rope_forward_f32(1, 2, 4, 8, 2, 8, in_w, in_y, in_x, fo(0)));
    S(repdl_rope_backward_f32(1, 2, 4, 8, 2, 8, in_w, in_y, in_x, fo(0)));
    S(repdl_grad_norm_f32(2, gsz, cgr, fo(0)));
    S(repdl_clip_grad_norm_f32(2, gsz, 1.0f, 1e-6f, wgr, fo(0)));
    /* attention.h, attention_threads.h (the cache's keys: in_x, values: in_y) */
    S(repdl_attention_forward_f32(&as, 0.25f, in_x, in_y, in_w, NULL, NULL, fo(0), fo(1)));
    S(repdl_attention_backward_f32(&as, 0.25f, in_x, in_y, in_w, NULL, NULL, in_y, in_w, in_x,
                                   fo(0), fo(1), fo(2)));
    S(repdl_attention_forward_threads_f32(&as, 2, 0.25f, in_x, in_y, in_w, NULL, NULL, fo(0),
                                          fo(1)));
    S(repdl_attention_backward_threads_f32(&as, 2, 0.25f, in_x, in_y, in_w, NULL, NULL, in_y,
                                           in_w, in_x, fo(0), fo(1), fo(2)));
    S(repdl_kv_cache_attend_f32(&kvc, 2, 3, 0.25f, in_w, NULL, NULL, fo(0), fo(1)));
    /* gemm_cr.h, gemm_cr_threads.h */
    S(repdl_gemm_cr_f32(0, 1, 4, 8, 8, in_x, 8, in_y, 8, in_w, fo(0), 8));
    S(repdl_gemm_cr_bf16(0, 0, 4, 8, 8, in_h, 8, in_h + 64, 8, NULL, fo(0), 8));
    S(repdl_gemm_cr_threads_f32(1, 0, 4, 8, 8, 2, in_x, 4, in_y, 8, NULL, fo(0), 8));
    /* rng.h, elementwise.h */
    S(repdl_rng_uniform_fill_f32(256, 1, 2, -1.0f, 1.0f, fo(0)));
    S(repdl_rng_normal_fill_range_f32(256, 1, 2, 5, 0.0f, 1.0f, fo(0)));
    S(repdl_add_f32(256, in_x, in_y, fo(0)));
    S(repdl_scale_f32(256, 0.5f, in_x, fo(0)));
    S(repdl_dropout_forward_f32(256, 0.25f, 1, 2, in_x, fo(0), buf + 4096 * 3));
    S(repdl_dropout_backward_f32(256, 0.25f, buf + 4096 * 3, in_y, fo(0)));
    /* optim.h (in place: the copies must hold when refused) */
    S(repdl_sgd_step_f32(64, &sgd, 1, in_y, io_w, io_mom));
    S(repdl_adam_begin_step(&io_adam, &adam));
    S(repdl_adam_step_f32(64, &adam, &as1, in_y, io_w, io_m, io_v));
#undef S
    calls++;
    if (repdl_fpenv_ok(in_w[0] / in_w[0]) != !refuse) {
        printf("FAIL repdl_fpenv_ok says %d\n", !refuse);
        failures++;
    }
}

static void report(const char *reg, const char *name, int before)
{
    printf("%s %-19s refused, then accepted once restored: %s\n", reg, name,
           failures == before ? "ok" : "FAILED");
}

#if MODE_REG
static int run_csr(void)
{
#if defined(__aarch64__)
    static const char reg[] = "FPCR";
    static const struct { unsigned bit; const char *name; } modes[] = {
        {1u << 24, "FZ"},
        {2u << 22, "round down"},
        {1u << 22, "round up"},
        {3u << 22, "round towards zero"},
    };
#else
    static const char reg[] = "MXCSR";
    static const struct { unsigned bit; const char *name; } modes[] = {
        {0x8000u, "FTZ"},
        {0x0040u, "DAZ"},
        {0x2000u, "round down"},
        {0x4000u, "round up"},
        {0x6000u, "round towards zero"},
    };
#endif
    unsigned orig = mode_get() & ~MODE_MASK;
    size_t m;
    mode_set(orig);
    for (m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        int before = failures;
        mode_set(orig | modes[m].bit);
        run(1);
        mode_set(orig);
        run(0);
        report(reg, modes[m].name, before);
    }
    return failures ? 1 : 0;
}
#else
static int run_csr(void)
{
    int n = 0;
#define ROUND(M)                                             \
    do {                                                     \
        int before = failures;                               \
        n++;                                                 \
        if (fesetround(M) != 0) {                            \
            printf("FAIL fesetround(" #M ")\n");             \
            failures++;                                      \
        }                                                    \
        run(1);                                              \
        fesetround(FE_TONEAREST);                            \
        run(0);                                              \
        report("fesetround", #M, before);                    \
    } while (0)
#ifdef FE_DOWNWARD
    ROUND(FE_DOWNWARD);
#endif
#ifdef FE_UPWARD
    ROUND(FE_UPWARD);
#endif
#ifdef FE_TOWARDZERO
    ROUND(FE_TOWARDZERO);
#endif
#undef ROUND
    if (n == 0) {
        printf("SKIP: no directed rounding mode in <fenv.h>\n");
        return 77;
    }
    return failures ? 1 : 0;
}
#endif

int main(int argc, char **argv)
{
    size_t i;
    const char *mode = argc > 1 ? argv[1] : "";
    for (i = 0; i < 256; i++) {
        in_x[i] = (float)((int)(i * 37u % 101u) - 50) * 0.0625f;
        in_y[i] = (float)((int)(i * 53u % 97u) - 48) * 0.03125f;
        in_w[i] = 0.5f + (float)i * 0.25f;
        in_h[i] = (uint16_t)(0x3c00u + i * 7u);
    }
    for (i = 0; i < 8; i++) in_t[i] = i * 5u;
    if (!strcmp(mode, "ok")) {
        run(0);
    } else if (!strcmp(mode, "refuse")) {
        run(1);
        if (!strstr(repdl_status_string(REPDL_ERR_FPENV), "fast-math")) {
            printf("FAIL the message of REPDL_ERR_FPENV does not name -ffast-math\n");
            failures++;
        }
    } else if (!strcmp(mode, "csr")) {
        return run_csr();
    } else {
        printf("usage: fpenv_refuse ok|refuse|csr\n");
        return 2;
    }
    printf("%s: %d checks, %d failed\n", mode, calls, failures);
    return failures ? 1 : 0;
}
