/* SPDX-License-Identifier: MIT */
/* reference/funcs.h: the table of repdl functions that the oracle tools
   (exhaustive.c, hardcases.c, worstcases.c) and the elementary tests know.

   A function whose header is absent from include/repdl/ is left out of the
   table (so the tools build while the library grows); asking a tool for it
   is then an error, never a silent pass. */
#ifndef REPDL_REFERENCE_FUNCS_H
#define REPDL_REFERENCE_FUNCS_H

#include <repdl/repdl.h>
#include <repdl/detail/cr.h>
#include <stddef.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<repdl/exp.h>)
#include <repdl/exp.h>
#define REPDL_REF_HAVE_EXPF 1
#endif
#if __has_include(<repdl/log.h>)
#include <repdl/log.h>
#define REPDL_REF_HAVE_LOGF 1
#endif
#if __has_include(<repdl/tanh.h>)
#include <repdl/tanh.h>
#define REPDL_REF_HAVE_TANHF 1
#endif
#if __has_include(<repdl/sqrt.h>)
#include <repdl/sqrt.h>
#define REPDL_REF_HAVE_SQRTF 1
#endif
#if __has_include(<repdl/sigmoid.h>)
#include <repdl/sigmoid.h>
#define REPDL_REF_HAVE_SIGMOIDF 1
#endif
/* exp2, expm1, log2, log1p */
#if __has_include(<repdl/exp2.h>)
#include <repdl/exp2.h>
#define REPDL_REF_HAVE_EXP2F 1
#endif
#if __has_include(<repdl/expm1.h>)
#include <repdl/expm1.h>
#define REPDL_REF_HAVE_EXPM1F 1
#endif
#if __has_include(<repdl/log2.h>)
#include <repdl/log2.h>
#define REPDL_REF_HAVE_LOG2F 1
#endif
#if __has_include(<repdl/log1p.h>)
#include <repdl/log1p.h>
#define REPDL_REF_HAVE_LOG1PF 1
#endif
/* issue 17, activations (h17-act) */
#if __has_include(<repdl/erf.h>)
#include <repdl/erf.h>
#define REPDL_REF_HAVE_ERFF 1
#endif
/* rsqrt, sin, cos */
#if __has_include(<repdl/rsqrt.h>)
#include <repdl/rsqrt.h>
#define REPDL_REF_HAVE_RSQRTF 1
#endif
#if __has_include(<repdl/sin.h>)
#include <repdl/sin.h>
#define REPDL_REF_HAVE_SINF 1
#endif
#if __has_include(<repdl/cos.h>)
#include <repdl/cos.h>
#define REPDL_REF_HAVE_COSF 1
#endif
#else
#include <repdl/exp.h>
#include <repdl/log.h>
#include <repdl/tanh.h>
#include <repdl/sqrt.h>
#define REPDL_REF_HAVE_EXPF 1
#define REPDL_REF_HAVE_LOGF 1
#define REPDL_REF_HAVE_TANHF 1
#define REPDL_REF_HAVE_SQRTF 1
#include <repdl/sigmoid.h>
#define REPDL_REF_HAVE_SIGMOIDF 1
#include <repdl/exp2.h>
#include <repdl/expm1.h>
#include <repdl/log2.h>
#include <repdl/log1p.h>
#define REPDL_REF_HAVE_EXP2F 1
#define REPDL_REF_HAVE_EXPM1F 1
#define REPDL_REF_HAVE_LOG2F 1
#define REPDL_REF_HAVE_LOG1PF 1
#include <repdl/erf.h>
#define REPDL_REF_HAVE_ERFF 1
#include <repdl/rsqrt.h>
#include <repdl/sin.h>
#include <repdl/cos.h>
#define REPDL_REF_HAVE_RSQRTF 1
#define REPDL_REF_HAVE_SINF 1
#define REPDL_REF_HAVE_COSF 1
#endif

/* Which function it is, for the oracle (also in reference/oracle.h). */
#ifndef REPDL_REF_ID_DEFINED
#define REPDL_REF_ID_DEFINED
enum repdl_ref_id { REPDL_REF_EXPF, REPDL_REF_LOGF, REPDL_REF_TANHF, REPDL_REF_SQRTF,
                   REPDL_REF_SIGMOIDF,
                   REPDL_REF_EXP2F, REPDL_REF_EXPM1F, REPDL_REF_LOG2F, REPDL_REF_LOG1PF,
                   /* issue 17, activations (h17-act) */
                   REPDL_REF_ERFF, REPDL_REF_SILUF, REPDL_REF_SOFTPLUSF, REPDL_REF_GELUF,
                   REPDL_REF_GELU_TANHF,
                   REPDL_REF_RSQRTF, REPDL_REF_SINF, REPDL_REF_COSF };
#endif

typedef struct repdl_ref_fn {
    const char *name;                                 /* "expf" */
    enum repdl_ref_id id;
    float (*scalar)(float);                           /* repdl_exp_f32 */
    void (*array)(float *, const float *, size_t);    /* repdl_exp_array_f32 */
    void (*loop)(float *, const float *, size_t);     /* a plain loop of repdl_exp_f32,
                                                         which the compiler may inline
                                                         and vectorize on its own */
    int (*approx)(float, double *);                   /* repdl__expf_y, or NULL */
    double err;                                       /* REPDL__EXPF_ERR, or 0 */
} repdl_ref_fn;

/* Wrappers with the table's exact pointer types (the array forms may use
   REPDL_RESTRICT, which a function pointer type need not repeat). */
#define REPDL_REF_WRAP(F, N)                                                   \
    static float repdl_ref_w_##F(float x) { return repdl_##N##_f32(x); }      \
    static void repdl_ref_wa_##F(float *o, const float *x, size_t n)           \
    { repdl_##N##_array_f32(n, x, o); }                                       \
    static void repdl_ref_wl_##F(float *o, const float *x, size_t n)           \
    { size_t i; for (i = 0; i < n; i++) o[i] = repdl_##N##_f32(x[i]); }
#define REPDL_REF_WRAP_Y(F)                                                   \
    static int repdl_ref_wy_##F(float x, double *y) { return repdl__##F##_y(x, y); }

#ifdef REPDL_REF_HAVE_EXPF
REPDL_REF_WRAP(expf, exp)
REPDL_REF_WRAP_Y(expf)
#endif
#ifdef REPDL_REF_HAVE_LOGF
REPDL_REF_WRAP(logf, log)
REPDL_REF_WRAP_Y(logf)
#endif
#ifdef REPDL_REF_HAVE_TANHF
REPDL_REF_WRAP(tanhf, tanh)
REPDL_REF_WRAP_Y(tanhf)
#endif
#ifdef REPDL_REF_HAVE_SQRTF
REPDL_REF_WRAP(sqrtf, sqrt)
#endif
#ifdef REPDL_REF_HAVE_SIGMOIDF
REPDL_REF_WRAP(sigmoidf, sigmoid)
REPDL_REF_WRAP_Y(sigmoidf)
#endif
#ifdef REPDL_REF_HAVE_EXP2F
REPDL_REF_WRAP(exp2f, exp2)
REPDL_REF_WRAP_Y(exp2f)
#endif
#ifdef REPDL_REF_HAVE_EXPM1F
REPDL_REF_WRAP(expm1f, expm1)
REPDL_REF_WRAP_Y(expm1f)
#endif
#ifdef REPDL_REF_HAVE_LOG2F
REPDL_REF_WRAP(log2f, log2)
REPDL_REF_WRAP_Y(log2f)
#endif
#ifdef REPDL_REF_HAVE_LOG1PF
REPDL_REF_WRAP(log1pf, log1p)
REPDL_REF_WRAP_Y(log1pf)
#endif
/* issue 17, activations (h17-act) */
#ifdef REPDL_REF_HAVE_ERFF
REPDL_REF_WRAP(erff, erf)
REPDL_REF_WRAP_Y(erff)
#endif
#if 1   /* activation.h is part of repdl.h */
#include <repdl/activation.h>
REPDL_REF_WRAP(siluf, silu)
REPDL_REF_WRAP_Y(siluf)
REPDL_REF_WRAP(softplusf, softplus)
REPDL_REF_WRAP_Y(softplusf)
REPDL_REF_WRAP(geluf, gelu)
REPDL_REF_WRAP_Y(geluf)
REPDL_REF_WRAP(gelu_tanhf, gelu_tanh)
REPDL_REF_WRAP_Y(gelu_tanhf)
#define REPDL_REF_HAVE_ACT 1
#endif
#ifdef REPDL_REF_HAVE_RSQRTF
REPDL_REF_WRAP(rsqrtf, rsqrt)
REPDL_REF_WRAP_Y(rsqrtf)
#endif
#ifdef REPDL_REF_HAVE_SINF
REPDL_REF_WRAP(sinf, sin)
REPDL_REF_WRAP_Y(sinf)
#endif
#ifdef REPDL_REF_HAVE_COSF
REPDL_REF_WRAP(cosf, cos)
REPDL_REF_WRAP_Y(cosf)
#endif

static const repdl_ref_fn repdl_ref_fns[] = {
#ifdef REPDL_REF_HAVE_EXPF
    {"expf", REPDL_REF_EXPF, repdl_ref_w_expf, repdl_ref_wa_expf, repdl_ref_wl_expf, repdl_ref_wy_expf, REPDL__EXPF_ERR},
#endif
#ifdef REPDL_REF_HAVE_LOGF
    {"logf", REPDL_REF_LOGF, repdl_ref_w_logf, repdl_ref_wa_logf, repdl_ref_wl_logf, repdl_ref_wy_logf, REPDL__LOGF_ERR},
#endif
#ifdef REPDL_REF_HAVE_TANHF
    {"tanhf", REPDL_REF_TANHF, repdl_ref_w_tanhf, repdl_ref_wa_tanhf, repdl_ref_wl_tanhf, repdl_ref_wy_tanhf, REPDL__TANHF_ERR},
#endif
#ifdef REPDL_REF_HAVE_SQRTF
    {"sqrtf", REPDL_REF_SQRTF, repdl_ref_w_sqrtf, repdl_ref_wa_sqrtf, repdl_ref_wl_sqrtf, NULL, 0.0},
#endif
#ifdef REPDL_REF_HAVE_SIGMOIDF
    {"sigmoidf", REPDL_REF_SIGMOIDF, repdl_ref_w_sigmoidf, repdl_ref_wa_sigmoidf, repdl_ref_wl_sigmoidf, repdl_ref_wy_sigmoidf, REPDL__SIGMOIDF_ERR},
#endif
#ifdef REPDL_REF_HAVE_EXP2F
    {"exp2f", REPDL_REF_EXP2F, repdl_ref_w_exp2f, repdl_ref_wa_exp2f, repdl_ref_wl_exp2f, repdl_ref_wy_exp2f, REPDL__EXP2F_ERR},
#endif
#ifdef REPDL_REF_HAVE_EXPM1F
    {"expm1f", REPDL_REF_EXPM1F, repdl_ref_w_expm1f, repdl_ref_wa_expm1f, repdl_ref_wl_expm1f, repdl_ref_wy_expm1f, REPDL__EXPM1F_ERR},
#endif
#ifdef REPDL_REF_HAVE_LOG2F
    {"log2f", REPDL_REF_LOG2F, repdl_ref_w_log2f, repdl_ref_wa_log2f, repdl_ref_wl_log2f, repdl_ref_wy_log2f, REPDL__LOG2F_ERR},
#endif
#ifdef REPDL_REF_HAVE_LOG1PF
    {"log1pf", REPDL_REF_LOG1PF, repdl_ref_w_log1pf, repdl_ref_wa_log1pf, repdl_ref_wl_log1pf, repdl_ref_wy_log1pf, REPDL__LOG1PF_ERR},
#endif
    /* issue 17, activations (h17-act) */
#ifdef REPDL_REF_HAVE_ERFF
    {"erff", REPDL_REF_ERFF, repdl_ref_w_erff, repdl_ref_wa_erff, repdl_ref_wl_erff, repdl_ref_wy_erff, REPDL__ERFF_ERR},
#endif
#ifdef REPDL_REF_HAVE_ACT
    {"siluf", REPDL_REF_SILUF, repdl_ref_w_siluf, repdl_ref_wa_siluf, repdl_ref_wl_siluf, repdl_ref_wy_siluf, REPDL__SILUF_ERR},
    {"softplusf", REPDL_REF_SOFTPLUSF, repdl_ref_w_softplusf, repdl_ref_wa_softplusf, repdl_ref_wl_softplusf, repdl_ref_wy_softplusf, REPDL__SOFTPLUSF_ERR},
    {"geluf", REPDL_REF_GELUF, repdl_ref_w_geluf, repdl_ref_wa_geluf, repdl_ref_wl_geluf, repdl_ref_wy_geluf, REPDL__GELUF_ERR},
    {"gelu_tanhf", REPDL_REF_GELU_TANHF, repdl_ref_w_gelu_tanhf, repdl_ref_wa_gelu_tanhf, repdl_ref_wl_gelu_tanhf, repdl_ref_wy_gelu_tanhf, REPDL__GELU_TANHF_ERR},
#endif
#ifdef REPDL_REF_HAVE_RSQRTF
    {"rsqrtf", REPDL_REF_RSQRTF, repdl_ref_w_rsqrtf, repdl_ref_wa_rsqrtf, repdl_ref_wl_rsqrtf, repdl_ref_wy_rsqrtf, REPDL__RSQRTF_ERR},
#endif
#ifdef REPDL_REF_HAVE_SINF
    {"sinf", REPDL_REF_SINF, repdl_ref_w_sinf, repdl_ref_wa_sinf, repdl_ref_wl_sinf, repdl_ref_wy_sinf, REPDL__SINF_ERR},
#endif
#ifdef REPDL_REF_HAVE_COSF
    {"cosf", REPDL_REF_COSF, repdl_ref_w_cosf, repdl_ref_wa_cosf, repdl_ref_wl_cosf, repdl_ref_wy_cosf, REPDL__COSF_ERR},
#endif
    {NULL, REPDL_REF_EXPF, NULL, NULL, NULL, NULL, 0.0}
};

/* The entry named `name`, or NULL when that function is not compiled in. */
static inline const repdl_ref_fn *repdl_ref_find(const char *name)
{
    const repdl_ref_fn *f;
    for (f = repdl_ref_fns; f->name; f++)
        if (strcmp(f->name, name) == 0) return f;
    return NULL;
}

#endif /* REPDL_REFERENCE_FUNCS_H */
