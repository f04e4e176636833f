// SPDX-License-Identifier: MIT
// python/repdl/csrc/adamw_torch.h: torch.optim.AdamW(foreach=False) as
// repdl.mode computes it (python/repdl/mode.py, _adamw_single), one pass
// over a float32 parameter's elements instead of one pass per aten
// operation.
//
// For each element, with the binary32 scalars of struct repdl_py_adamw
// (each a Python double rounded once to binary32, as PyTorch rounds a
// Python number operand of a float32 tensor operation), the operations and
// roundings of the mode's handlers for torch 1.13's _single_tensor_adamw
// statements, in their order:
//   p  = RN(p * decay)                         param.mul_(1 - lr * wd)
//   m  = RN(RN(m * beta1) + RN(g * a))         exp_avg.mul_(beta1).add_(g, alpha=a)
//   s  = RN(RN(s * beta2) + RN(RN(g * v) * g)) exp_avg_sq.mul_(beta2).addcmul_(g, g, value=v)
//   mx = max(mx, s)                            torch.maximum(mx, s, out=mx) (amsgrad)
//   d  = RN(RN(sqrt(mx or s) / bc2_sqrt) + eps)  repdl_sqrt_f32, div, add_
//   p  = RN(p + RN(RN(m / d) * nss))           param.addcdiv_(m, d, value=nss)
// The handlers skip a multiplication by a scalar equal to 1 (alpha=1,
// value=1); here it is always done: x * 1 is x for every non-NaN x (signed
// zeros, infinities and subnormals included), and a NaN stays a NaN.  The
// handlers make NaNs canonical after every operation; here once per stored
// array (m, s, mx, p) after its last update.  Both leave every bit as it
// is: add, mul, div and max give a NaN for a NaN operand and otherwise
// never read a NaN's payload, and repdl_sqrt_f32 returns the canonical NaN
// for every NaN; so which elements are NaN, and every other element's bits,
// are the same, and the final canonicalisation makes the NaNs equal.
// max: a NaN if either is a NaN, else mx > s ? mx : s (PyTorch's vector
// path; its scalar path keeps mx when mx == s, which differs only for a
// pair of zeros of opposite signs, which AdamW never stores: s and mx start
// at +0 and s = RN(RN(s b2) + RN(RN(g v) g)) is never -0).
//
// Each rounding is its own statement: no contraction into a fused
// multiply-add, as every compiler treats separate statements under the
// extension's -ffp-contract=off (python/setup.py).
#ifndef REPDL_PY_ADAMW_TORCH_H
#define REPDL_PY_ADAMW_TORCH_H

#include <cstddef>

#include <repdl/sqrt.h>

struct repdl_py_adamw {
    float decay, beta1, a, beta2, v, bc2_sqrt, eps, nss;
};

// The update of elements [0, n) of one parameter (any cut of a parameter
// into ranges gives the same bits: each element reads only its own
// values).  mx is NULL without amsgrad.
static inline void repdl_py_adamw_range(size_t n, const repdl_py_adamw &c, float *p, const float *g,
                                        float *m, float *s, float *mx)
{
    enum { kChunk = 512 };
    float d[kChunk];
    for (size_t b = 0; b < n; b += kChunk) {
        const size_t L = n - b < kChunk ? n - b : size_t(kChunk);
        float *pp = p + b, *pm = m + b, *ps = s + b;
        const float *pg = g + b;
        for (size_t k = 0; k < L; k++) {
            const float gk = pg[k];
            const float m1 = pm[k] * c.beta1;
            const float ga = gk * c.a;
            const float m2 = m1 + ga;
            pm[k] = repdl__canon(m2);
            const float s1 = ps[k] * c.beta2;
            const float gv = gk * c.v;
            const float gg = gv * gk;
            const float s2 = s1 + gg;
            ps[k] = repdl__canon(s2);
        }
        const float *root = ps;
        if (mx) {
            float *px = mx + b;
            for (size_t k = 0; k < L; k++) {
                const float x = px[k], y = ps[k];
                const float r = x > y ? x : y;
                px[k] = (x != x || y != y) ? repdl__nanf() : r;
            }
            root = px;
        }
        (void)repdl_sqrt_array_f32(L, root, d);  // the caller checked the environment
        for (size_t k = 0; k < L; k++) {
            const float p1 = pp[k] * c.decay;
            const float d1 = d[k] / c.bc2_sqrt;
            const float d2 = d1 + c.eps;
            const float q = pm[k] / d2;
            const float q1 = q * c.nss;
            const float p2 = p1 + q1;
            pp[k] = repdl__canon(p2);
        }
    }
}

#endif
