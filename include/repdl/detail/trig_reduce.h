/* SPDX-License-Identifier: MIT */
/* repdl/detail/trig_reduce.h: exact argument reduction and the two
   polynomials shared by repdl_sin_f32 (sin.h) and repdl_cos_f32 (cos.h).

   Reduction: every finite binary32 x is written
     x = (q + f) pi/2 + 2 pi n,   q in {0, 1, 2, 3}, |f| <= 1/2 (f in quadrants)
   so that sin(x) and cos(x) are +-sin(pi/2 f) or +-cos(pi/2 f).
     |x| < 1/2:   q = 0, f = RN(x C), C = RN(2/pi), |C / (2/pi) - 1| < 0.557 2^-53:
                  |f / (2x/pi) - 1| < 1.557 2^-53 (one product, 2x/pi is not
                  subnormal in double).
     1/2 <= |x| < 2^28:  Cody and Waite's reduction in double, with 2/pi =
                  C1 + C2 + C3 + d (C1, C2 of 28 significant bits, C3 = RN of
                  the rest, |d| < 2^-114.8):
                    k = the integer nearest RN(x C) (the shifter 1.5 2^52;
                        |x 2/pi - k| <= 1/2 + 2^-40.9, so |f| stays within the
                        polynomials' 1/2 + 2^-40), q = k mod 4;
                    a = x C1 - k    exact (a multiple of 2^-52 below 1),
                    b = x C2        exact (24 + 28 bits),
                    s + e = a + b   exactly (Knuth's 2Sum),
                    f = RN(s + RN(e + RN(x C3)));
                  for |x| < 2^12 the error before the last rounding is
                  < 2^-106 |f*| + 2^-100.3, so |f / f* - 1| < 2^-53 + 2^-70
                  (|f*| >= 2^-29.85, as below), fused or not: every step is
                  exact or rounds once (a fused x C + 1.5 2^52 may pick the
                  other k of a tie: still |f| <= 1/2 + 2^-40.9).  Beyond
                  2^12 that analysis no longer keeps |f| within the
                  polynomials' interval; instead tests/math/test_trig.c
                  (`reduce`) checks, for every binary32 x with
                  1/2 <= |x| < 2^28, in each build, that this reduction
                  returns the f and q of the integer one below bit for bit
                  (it does for all 4.9e8 inputs: no f differs), so the
                  integer reduction's bound is this one's.  Since it only
                  changes how f is computed, never its value, sinf's and
                  cosf's results and hard-case tables are those of the
                  integer reduction alone.  About 30 instructions fewer.
     |x| >= 2^28: Payne and Hanek's reduction in integer arithmetic.  With
                  x = m 2^e (m the 24-bit integer significand, e = E - 150 for
                  the biased exponent E >= 126) and 2/pi = sum b_i 2^-i:
                    x 2/pi = m sum b_i 2^(e-i);
                  the bits i < e - 1 give multiples of 4 (they change n, not q
                  or f) and are skipped; the 128 bits i = e-1 ... e+126 form
                  the integer W, and
                    x 2/pi = m W 2^-126 + t (mod 4),  0 <= t < m 2^-126 < 2^-102;
                  m W mod 2^128 is computed exactly with 64-bit integer
                  products (m < 2^24, W split in 32-bit parts), its top bits
                  rounded to q and the rest taken as the signed fraction f,
                  converted to double with one rounding (|f - f*| < 2^-53 |f|
                  + 2^-101.9 absolute, f* the exact value).  Every binary32 x >= 1/2
                  has |f*| >= 2^-29.85 (reference/gen/trigf_minred.c scans them
                  all, exactly), so |f / f* - 1| < 2^-53 + 2^-72.
   The words of 2/pi, C = RN(2/pi), C1, C2, C3 and the bounds above:
   reference/gen/trigf.py (mpmath, 600 bits).

   Polynomials (Sollya, reference/gen/trigf.sollya, |f| <= 1/2 + 2^-40):
     sin(pi/2 f) ~ f S(f^2), degree 13, relative error < 2^-54.5 (that of
                   s0 = RN(pi/2) itself);
     cos(pi/2 f) ~ C(f^2),   degree 14, relative error < 2^-61.14.
   Evaluated in double, Horner, fused or not: the bounds of sin.h and cos.h
   come from reference/gen/trigf.py (forward error analysis). */
#ifndef REPDL_DETAIL_TRIG_REDUCE_H
#define REPDL_DETAIL_TRIG_REDUCE_H

#include "../config.h"
REPDL_BEGIN_CODE

/* Word k of 2/pi in binary: bits 64k - 64 ... 64k - 1 after the binary
   point, most significant first (word 0 is the integer part and the zeros
   before it: 0).  floor(2/pi 2^(64k-1)) mod 2^64, reference/gen/trigf.py. */
REPDL_FN uint64_t repdl__twoopi_word(uint32_t k)
{
    static const uint64_t W[5] = {
        0x0000000000000000u, 0x517cc1b727220a94u, 0xfe13abe8fa9a6ee0u,
        0x6db14acc9e21c820u, 0xff28b1d5ef5de2b0u,
    };
    return W[k];
}

/* f with |x| = (q + f) pi/2 (mod 2 pi), |f| <= 1/2, and *q, for
   ax = |x|'s bits with a biased exponent E >= 126 (|x| >= 1/2).  Harmless
   (in-bounds, garbage) for E = 255 (inf, NaN). */
REPDL_FN double repdl__trig_reduce_large(uint32_t ax, uint32_t *q)
{
    uint64_t m = (uint64_t)((ax & 0x007fffffu) | 0x00800000u);
    /* W starts at bit j0 of the words' bit string: i = e - 1 after the
       point is string bit i + 64, j0 = E - 150 - 1 + 64 = E - 87, in
       [39, 168]; it lies in words j0/64 ... j0/64 + 2 <= 4 */
    uint32_t j0 = (ax >> 23) - 87u, w = j0 >> 6, sh = j0 & 63u;
    uint64_t t0 = repdl__twoopi_word(w), t1 = repdl__twoopi_word(w + 1u),
             t2 = repdl__twoopi_word(w + 2u);
    uint64_t w1 = (t0 << sh) | (t1 >> 1 >> (63u - sh));   /* W's high 64 bits */
    uint64_t w0 = (t1 << sh) | (t2 >> 1 >> (63u - sh));   /* W's low 64 bits */
    /* P = m W mod 2^128 = c 2^64 + b 2^32 + a (mod 2^128), exactly:
       a, b < 2^56, c = m w1 mod 2^64 (the higher bits are multiples of 4
       quadrants) */
    uint64_t a = m * (w0 & 0xffffffffu), b = m * (w0 >> 32), c = m * w1;
    uint64_t lo = a + (b << 32);
    uint64_t hi = c + (b >> 32) + (uint64_t)(lo < a);      /* + the carry */
    /* x 2/pi = P 2^-126 (mod 4): q = round(P 2^-126) mod 4 and the signed
       fraction T 2^-128 = P 2^-126 - round(.), T = (P << 2) mod 2^128 read
       as a signed 128-bit integer th:tl */
    uint64_t th = (hi << 2) | (lo >> 62), tl = lo << 2;
    /* T = (th - r) 2^64 + (r 2^52 + tl >> 12) 2^12 + (tl & 0xfff), r = th & 0x7ff:
       th - r is a multiple of 2^11 below 2^63 in magnitude (53 significant
       bits: exact in double); u = r 2^52 + tl >> 12 < 2^63 rounds once, by
       <= 2^-107 in f; tl & 0xfff is dropped, < 2^-116 in f */
    int64_t hs = (int64_t)(th & ~(uint64_t)0x7ffu);
    int64_t u = (int64_t)(((th & 0x7ffu) << 52) | (tl >> 12));
    *q = (uint32_t)((hi >> 62) + (th >> 63)) & 3u;
    /* the products are by powers of two: exact, so fused or not the sum
       rounds once (2^-53 |f|) */
    return repdl__dadd(repdl__dmul((double)hs, 5.421010862427522e-20 /* 2^-64 */),
                       repdl__dmul((double)u, 1.2037062152420224e-35 /* 2^-116 */));
}

/* f and *q with x = (q + f) pi/2 (mod 2 pi) for 1/2 <= |x| < 2^28 (Cody
   and Waite, above): the integer reduction's f and q (negated for x < 0),
   bit for bit. */
REPDL_FN double repdl__trig_reduce_mid(float x, uint32_t *q)
{
    double xd = repdl__f2d(x);
    /* RN(x C) + 1.5 2^52: k in the low bits of the significand */
    double t = repdl__dadd(repdl__dmul(xd, 0.6366197723675814 /* RN(2/pi) */),
                           6755399441055744.0 /* 1.5 2^52 */);
    double k = repdl__dsub(t, 6755399441055744.0);
    double a = repdl__dsub(repdl__dmul(xd, 0.6366197727620602 /* C1 = 0x1.45f306ep-1 */), k);
    double b = repdl__dmul(xd, -3.94478822871025e-10 /* C2 = -0x1.b1bbeaep-32 */);
    double s = repdl__dadd(a, b);
    double bv = repdl__dsub(s, a);
    double e = repdl__dadd(repdl__dsub(a, repdl__dsub(s, bv)), repdl__dsub(b, bv));
    double c = repdl__dmul(xd, 5.412865971015893e-19 /* C3 = 0x1.3f84eafa3ea6ap-61 */);
    *q = (uint32_t)repdl__asuint64(t) & 3u;
    return repdl__dadd(s, repdl__dadd(e, c));
}

/* f and *q with x = (q + f) pi/2 (mod 2 pi), |f| <= 1/2, for every finite
   x (garbage for inf and NaN); the sign of x is carried by f and q:
   -x = (-q - f) pi/2.  x = -0 gives f = -0, q = 0. */
REPDL_FN double repdl__trig_reduce(float x, uint32_t *q)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    double f;
    if (ax < 0x3f000000u) {                          /* |x| < 1/2 */
        *q = 0;
        return repdl__dmul(repdl__f2d(x), 0.6366197723675814 /* RN(2/pi) */);
    }
    if (ax < 0x4d800000u) return repdl__trig_reduce_mid(x, q);   /* |x| < 2^28 */
    f = repdl__trig_reduce_large(ax, q);
    if (ux >> 31) {
        *q = (0u - *q) & 3u;
        f = -f;
    }
    return f;
}

/* sin(pi/2 f) ~ f S(f^2) (sin_q = 1) or cos(pi/2 f) ~ C(f^2) (sin_q = 0),
   |f| <= 1/2, Horner in z = f^2 */
REPDL_FN double repdl__trig_sin_poly(double f, double z)
{
    double p = repdl__dadd(-3.598585748498499e-06, repdl__dmul(z, 5.626858907924294e-08));
    p = repdl__dadd(0.0001604411326945897, repdl__dmul(z, p));
    p = repdl__dadd(-0.004681754129625158, repdl__dmul(z, p));
    p = repdl__dadd(0.07969262624584415, repdl__dmul(z, p));
    p = repdl__dadd(-0.6459640975062381, repdl__dmul(z, p));
    p = repdl__dadd(1.5707963267948966, repdl__dmul(z, p));
    return repdl__dmul(f, p);
}
REPDL_FN double repdl__trig_cos_poly(double z)
{
    double p = repdl__dadd(4.710477218190736e-07, repdl__dmul(z, -6.306844864251871e-09));
    p = repdl__dadd(-2.5202031939730564e-05, repdl__dmul(z, p));
    p = repdl__dadd(0.0009192602732997827, repdl__dmul(z, p));
    p = repdl__dadd(-0.020863480763227176, repdl__dmul(z, p));
    p = repdl__dadd(0.25366950790104287, repdl__dmul(z, p));
    p = repdl__dadd(-1.2337005501361697, repdl__dmul(z, p));
    return repdl__dadd(1.0, repdl__dmul(z, p));
}

/* y ~ sin((q + f) pi/2): +-f S(f^2) for even q, +-C(f^2) for odd q;
   negative for q = 2, 3 */
REPDL_FN double repdl__trig_eval(uint32_t q, double f)
{
    double z = repdl__dmul(f, f);
    double y = (q & 1u) ? repdl__trig_cos_poly(z) : repdl__trig_sin_poly(f, z);
    return (q & 2u) ? -y : y;
}

REPDL_END_CODE
#endif /* REPDL_DETAIL_TRIG_REDUCE_H */
