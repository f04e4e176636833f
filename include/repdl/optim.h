/* SPDX-License-Identifier: MIT */
/* repdl/optim.h: optimizer steps (SGD with momentum, Adam, AdamW) with
   one fixed sequence of binary32 operations, the same bits everywhere.

   Accuracy: reproducible, not correctly rounded: each step is the exact
   sequence below, every operation one IEEE round-to-nearest-even binary32
   operation (RN), no fused multiply-add anywhere (every product is rounded
   before it is added: a contraction barrier on the host, the _rn
   intrinsics on the device).  Semantics are PyTorch's (torch.optim.SGD,
   Adam, AdamW without amsgrad/maximize); the rounding sequence is repdl's.
   Every element is independent: any split of the arrays, any thread or
   block count, gives the same bits.  NaN outputs are 0x7fc00000.

   SGD, element i (wd = weight_decay, mu = momentum, lr, dampening):
     d = g                           or, if wd != 0:  d = RN(g + RN(wd * w))
     if mu != 0 and momentum_buf != NULL:
       step <= 1:  b = d
       else:       b = RN(RN(mu * b) + RN(omd * d)),   omd = RN(1 - dampening)
       nesterov:   d = RN(d + RN(mu * b))             else: d = b
     w = RN(w - RN(lr * d))
   momentum_buf == NULL: momentum is ignored (plain SGD).

   Adam / AdamW, element i, after repdl_adam_begin_step (t >= 1):
     per call (scalars):  omb1 = RN(1 - beta1), omb2 = RN(1 - beta2),
                          bc1 = RN(1 - beta1_pow), bc2 = RN(1 - beta2_pow),
                          step_size = RN(lr / bc1), bc2s = RN(sqrt(bc2)),
                          decay = decoupled ? RN(1 - RN(lr * wd)) : 1
     g' = g              or, if !decoupled and wd != 0: g' = RN(g + RN(wd * w))
     w' = RN(w * decay)  (decay == 1 leaves w unchanged, exactly)
     m  = RN(RN(beta1 * m) + RN(omb1 * g'))
     v  = RN(RN(beta2 * v) + RN(omb2 * RN(g' * g')))
     den = RN(RN(RN(sqrt(v)) / bc2s) + eps)
     w  = RN(w' - RN(step_size * RN(m / den)))
   repdl_adam_state holds t and beta1^t, beta2^t as running products:
   begin_step does t += 1, beta1_pow = RN(beta1_pow * beta1), beta2_pow =
   RN(beta2_pow * beta2), starting from 1 (state_init).  One rounding per
   step, the same on every machine; the state (t, beta1_pow, beta2_pow) is
   the whole checkpoint (with w, m, v).  Its relative distance to the exact
   beta^t is below t 2^-24 (docs/rng-optim.md).  s->t == 0 (begin_step
   never called): adam_step does nothing.

   n == 0 reads nothing (pointers may be NULL).  w, m, v, momentum_buf are
   updated in place; g may alias nothing that is written. */
#ifndef REPDL_OPTIM_H
#define REPDL_OPTIM_H

#include "config.h"
#include "detail/barrier.h"
REPDL_BEGIN_CODE

typedef struct repdl_sgd_config {
    float lr, momentum, dampening, weight_decay;
    int nesterov;
} repdl_sgd_config;

typedef struct repdl_adam_config {
    float lr, beta1, beta2, eps, weight_decay;
    int decoupled; /* 1: AdamW (decoupled weight decay) */
} repdl_adam_config;

typedef struct repdl_adam_state {
    uint64_t t;
    float beta1_pow, beta2_pow;
} repdl_adam_state; /* checkpoint = these fields */

/* ---- SGD ---- */

/* Per-call scalars of SGD, computed once. */
typedef struct repdl__sgd_k {
    float lr, mu, omd, wd;
    int use_wd, use_mom, first, nesterov;
} repdl__sgd_k;

REPDL_FN repdl__sgd_k repdl__sgd_prepare(const repdl_sgd_config *c, int have_buf, uint64_t step)
{
    repdl__sgd_k k;
    k.lr = c->lr;
    k.mu = c->momentum;
    k.omd = repdl__fsub(1.0f, c->dampening);
    k.wd = c->weight_decay;
    k.use_wd = repdl__fne(c->weight_decay, 0.0f);
    k.use_mom = repdl__fne(c->momentum, 0.0f) && have_buf;
    k.first = step <= 1u;
    k.nesterov = c->nesterov != 0;
    return k;
}

/* One element: *w, and *b when k->use_mom. */
REPDL_FN void repdl__sgd_elem(repdl__sgd_k k, float *w, float g, float *b, uint32_t keep)
{
    float wi = *w;
    float d = k.use_wd ? repdl__fadd(g, REPDL__KEEP_PROD(k.wd, wi, keep)) : g;
    if (k.use_mom) {
        float bi = k.first ? d
                            : repdl__fadd(REPDL__KEEP_PROD(k.mu, *b, keep), REPDL__KEEP_PROD(k.omd, d, keep));
        bi = repdl__canon(bi);
        *b = bi;
        d = k.nesterov ? repdl__fadd(d, REPDL__KEEP_PROD(k.mu, bi, keep)) : bi;
    }
    *w = repdl__canon(repdl__fsub(wi, REPDL__KEEP_PROD(k.lr, d, keep)));
}

REPDL_API repdl_status repdl_sgd_step_f32(size_t n, const repdl_sgd_config *c, uint64_t step, const float *g,
                                 float *w, float *momentum_buf)
{
    REPDL__FPENV_CHECK();
    repdl__sgd_k k;
    uint32_t keep;
    size_t i;
    if (n == 0) return REPDL_OK;
    if (!c || !g || !w) return REPDL_ERR_INVALID;
    k = repdl__sgd_prepare(c, momentum_buf != NULL, step);
    keep = repdl__opaque_ones();
    if (k.use_mom) {
        for (i = 0; i < n; i++) repdl__sgd_elem(k, w + i, g[i], momentum_buf + i, keep);
    } else {
        for (i = 0; i < n; i++) repdl__sgd_elem(k, w + i, g[i], NULL, keep);
    }
    return REPDL_OK;
}

/* ---- Adam / AdamW ---- */

REPDL_API void repdl_adam_state_init(repdl_adam_state *s)
{
    if (!s) return;
    s->t = 0;
    s->beta1_pow = 1.0f;
    s->beta2_pow = 1.0f;
}

REPDL_API repdl_status repdl_adam_begin_step(repdl_adam_state *s, const repdl_adam_config *c)
{
    REPDL__FPENV_CHECK();
    if (!s || !c) return REPDL_ERR_INVALID;
    s->t += 1u;
    s->beta1_pow = repdl__fmul(s->beta1_pow, c->beta1);
    s->beta2_pow = repdl__fmul(s->beta2_pow, c->beta2);
    return REPDL_OK;
}

/* Per-call scalars of Adam, computed once. */
typedef struct repdl__adam_k {
    float b1, b2, omb1, omb2, step_size, bc2s, eps, wd, decay;
    int coupled_wd;
} repdl__adam_k;

REPDL_FN repdl__adam_k repdl__adam_prepare(const repdl_adam_config *c, const repdl_adam_state *s)
{
    repdl__adam_k k;
    float bc1 = repdl__fsub(1.0f, s->beta1_pow);
    float bc2 = repdl__fsub(1.0f, s->beta2_pow);
    k.b1 = c->beta1;
    k.b2 = c->beta2;
    k.omb1 = repdl__fsub(1.0f, c->beta1);
    k.omb2 = repdl__fsub(1.0f, c->beta2);
    k.step_size = repdl__fdiv(c->lr, bc1);
    k.bc2s = repdl__fsqrt(bc2);
    k.eps = c->eps;
    k.wd = c->weight_decay;
    k.decay = c->decoupled ? repdl__fsub(1.0f, repdl__fkeep(repdl__fmul(c->lr, c->weight_decay)))
                           : 1.0f;
    k.coupled_wd = !c->decoupled && repdl__fne(c->weight_decay, 0.0f);
    return k;
}

/* One element: *w, *m, *v. */
REPDL_FN void repdl__adam_elem(repdl__adam_k k, float *w, float g, float *m, float *v,
                               uint32_t keep)
{
    float wi = *w;
    float gi = k.coupled_wd ? repdl__fadd(g, REPDL__KEEP_PROD(k.wd, wi, keep)) : g;
    float wd = REPDL__KEEP_PROD(wi, k.decay, keep);
    float mi = repdl__fadd(REPDL__KEEP_PROD(k.b1, *m, keep), REPDL__KEEP_PROD(k.omb1, gi, keep));
    float vi = repdl__fadd(REPDL__KEEP_PROD(k.b2, *v, keep),
                           REPDL__KEEP_PROD(k.omb2, repdl__fmul(gi, gi), keep));
    float den = repdl__fadd(repdl__fdiv(repdl__fsqrt(vi), k.bc2s), k.eps);
    float q = repdl__fdiv(mi, den);
    *m = repdl__canon(mi);
    *v = repdl__canon(vi);
    *w = repdl__canon(repdl__fsub(wd, REPDL__KEEP_PROD(k.step_size, q, keep)));
}

/* Host loop: repdl__adam_elem's operations on a chunk of len <=
   REPDL__ADAM_CHUNK elements, in three passes so that each vectorizes even
   when repdl__fsqrt is inline assembly (math-errno on): m, v and the values
   to square-root; the square roots (repdl__fsqrt_n); den, q and w.  The
   same operations on the same operands, hence the same bits: pass 3 reads
   m[i] = canon(mi), and the canonical NaN differs from a NaN mi only where
   w is NaN anyway (then 0x7fc00000).  Where repdl__fsqrt vectorizes by
   itself (REPDL__FSQRT_VEC: -fno-math-errno, device) the step uses the one
   pass loop of repdl__adam_elem instead (faster there, the same bits). */
#define REPDL__ADAM_CHUNK 256
REPDL_FN void repdl__adam_chunk(repdl__adam_k k, size_t len, float *w, const float *g,
                                float *m, float *v, uint32_t keep)
{
    float r[REPDL__ADAM_CHUNK];
    size_t i;
    for (i = 0; i < len; i++) {
        float wi = w[i];
        float gi = k.coupled_wd ? repdl__fadd(g[i], REPDL__KEEP_PROD(k.wd, wi, keep)) : g[i];
        float mi = repdl__fadd(REPDL__KEEP_PROD(k.b1, m[i], keep), REPDL__KEEP_PROD(k.omb1, gi, keep));
        float vi = repdl__fadd(REPDL__KEEP_PROD(k.b2, v[i], keep),
                               REPDL__KEEP_PROD(k.omb2, repdl__fmul(gi, gi), keep));
        m[i] = repdl__canon(mi);
        v[i] = repdl__canon(vi);
        r[i] = vi;
    }
    repdl__fsqrt_n(r, len);
    for (i = 0; i < len; i++) {
        float den = repdl__fadd(repdl__fdiv(r[i], k.bc2s), k.eps);
        float q = repdl__fdiv(m[i], den);
        w[i] = repdl__canon(
            repdl__fsub(REPDL__KEEP_PROD(w[i], k.decay, keep), REPDL__KEEP_PROD(k.step_size, q, keep)));
    }
}

#if REPDL__GNU_HOST && defined(__x86_64__) && !defined(REPDL_OPTIM_NO_DISPATCH)
#define REPDL__ADAM_X86 1
#include <immintrin.h>
/* repdl__adam_chunk's operations, 16 elements a step with AVX-512F, on the
   first len (a multiple of 16) elements: each product masked by keep
   (REPDL__KEEP_PROD: rounded before it is added), the square root and
   the divisions IEEE's, NaN outputs canonical; q reads m's canonical
   value as the chunk's third pass does.  The same operations on the same
   operands: the same bits.  (g++ 12 reports -Wmaybe-uninitialized inside
   its own avx512fintrin.h once the intrinsics are inlined here, as in
   detail/gemv.h: silenced for this function only, so that a C++ user's
   -Werror build compiles.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"))) static inline void
repdl__adam_avx512(repdl__adam_k k, size_t len, float *w, const float *g, float *m, float *v,
                   uint32_t keep)
{
    const __m512i km = _mm512_set1_epi32((int)keep);
    const __m512 b1 = _mm512_set1_ps(k.b1), b2 = _mm512_set1_ps(k.b2);
    const __m512 omb1 = _mm512_set1_ps(k.omb1), omb2 = _mm512_set1_ps(k.omb2);
    const __m512 wd = _mm512_set1_ps(k.wd), decay = _mm512_set1_ps(k.decay);
    const __m512 bc2s = _mm512_set1_ps(k.bc2s), eps = _mm512_set1_ps(k.eps);
    const __m512 ss = _mm512_set1_ps(k.step_size);
    const __m512 qn = _mm512_castsi512_ps(_mm512_set1_epi32((int)REPDL_NAN_BITS));
    size_t i;
#define REPDL__KP(a, b) \
    _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(_mm512_mul_ps((a), (b))), km))
#define REPDL__CANON(x) _mm512_mask_mov_ps((x), _mm512_cmp_ps_mask((x), (x), _CMP_UNORD_Q), qn)
    for (i = 0; i < len; i += 16) {
        __m512 wi = _mm512_loadu_ps(w + i), gi = _mm512_loadu_ps(g + i);
        __m512 mi, vi, mc, den, q;
        if (k.coupled_wd) gi = _mm512_add_ps(gi, REPDL__KP(wd, wi));
        mi = _mm512_add_ps(REPDL__KP(b1, _mm512_loadu_ps(m + i)), REPDL__KP(omb1, gi));
        vi = _mm512_add_ps(REPDL__KP(b2, _mm512_loadu_ps(v + i)),
                           REPDL__KP(omb2, _mm512_mul_ps(gi, gi)));
        mc = REPDL__CANON(mi);
        _mm512_storeu_ps(m + i, mc);
        _mm512_storeu_ps(v + i, REPDL__CANON(vi));
        den = _mm512_add_ps(_mm512_div_ps(_mm512_sqrt_ps(vi), bc2s), eps);
        q = _mm512_div_ps(mc, den);
        _mm512_storeu_ps(w + i, REPDL__CANON(_mm512_sub_ps(REPDL__KP(wi, decay), REPDL__KP(ss, q))));
    }
#undef REPDL__KP
#undef REPDL__CANON
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#else
#define REPDL__ADAM_X86 0
#endif

REPDL_API repdl_status repdl_adam_step_f32(size_t n, const repdl_adam_config *c, const repdl_adam_state *s, const float *g, float *w,
                                  float *m, float *v)
{
    REPDL__FPENV_CHECK();
    repdl__adam_k k;
    uint32_t keep;
    size_t i, len;
    if (n == 0) return REPDL_OK;
    if (!c || !s || !g || !w || !m || !v) return REPDL_ERR_INVALID;
    if (s->t == 0) return REPDL_OK;
    k = repdl__adam_prepare(c, s);
    keep = repdl__opaque_ones();
#if REPDL__ADAM_X86
    __builtin_cpu_init();
    if (n >= 16 && __builtin_cpu_supports("avx512f")) {
        len = n / 16 * 16;
        repdl__adam_avx512(k, len, w, g, m, v, keep);
        n -= len;
        w += len; g += len; m += len; v += len;
    }
#endif
    if (REPDL__FSQRT_VEC) { /* sqrt vectorizes in place: one pass is faster */
        for (i = 0; i < n; i++) repdl__adam_elem(k, w + i, g[i], m + i, v + i, keep);
    } else {
        for (i = 0; i < n; i += len) {
            len = n - i < REPDL__ADAM_CHUNK ? n - i : REPDL__ADAM_CHUNK;
            repdl__adam_chunk(k, len, w + i, g + i, m + i, v + i, keep);
        }
    }
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_OPTIM_H */
