/* repdl/exp.h: correctly rounded natural exponential of a binary32 value.

   Accuracy: repdl_expf(x) is exp(x) rounded to nearest-even binary32 for
   every binary32 x, subnormal results included (exp(x) > 2^-150) and
   overflow to +inf; exp(+-0) = 1, exp(-inf) = +0, exp(+inf) = +inf, NaN ->
   the canonical NaN 0x7fc00000.  Proven by comparing all 2^32 inputs with
   MPFR, in both contracted and uncontracted builds (docs/functions/expf.md).

   Algorithm, in double:
     exp(x) = 2^(k/64) exp(r),          k = round(x 64/ln2), r = x - k ln2/64
            = 2^(k>>6) T[k&63] (1 + q(r)),  |r| <= ln2/128 (+2^-38 ln2/64)
     T[j] = 2^(j/64) rounded to double, q(r) = r + r^2 (c2 + c3 r + r^2 (c4 + c5 r))
     y = s + s q with s = 2^(k>>6) T[j]:  |y / exp(x) - 1| < 2^-52.09
   then y is rounded to binary32 when the rounding test (detail/cr.h)
   proves that rounding correct; the few other inputs are listed, with
   their correctly rounded results, in detail/expf_hard.inc.

   Constants and table: reference/gen/expf.py; polynomial:
   reference/gen/expf.sollya; error bound: reference/gen/expf.py (it prints
   each term of the bound below).

   Also: repdl_expf_array(out, x, n), the same results for an array, in a
   form that compilers vectorize.  tanh.h shares the reduction below. */
#ifndef REPDL_EXP_H
#define REPDL_EXP_H

#include "config.h"
#include "detail/cr.h"

/* Relative error bound of repdl__expf_y's y on every path (fused or not),
   including the 2^-53 rounding of the rounding test's own products:
   2^-51.48 (reference/gen/expf.py), rounded up. */
#define REPDL__EXPF_ERR 0x1p-51

/* Bits of T[j] = RN(2^(j/64)) minus j << 46, so that adding ki << 46
   (ki the integer holding k, below) yields 2^(k>>6) T[k&63] exactly.
   |T[j] / 2^(j/64) - 1| < 0.8415 * 2^-53.  From reference/gen/expf.py. */
REPDL_FN uint64_t repdl__exp2_64_bits(uint64_t j)
{
    static const uint64_t T[64] = {
        0x3ff0000000000000u, 0x3fefec9a3e778061u, 0x3fefd9b0d3158574u, 0x3fefc74518759bc8u,
        0x3fefb5586cf9890fu, 0x3fefa3ec32d3d1a2u, 0x3fef9301d0125b51u, 0x3fef829aaea92de0u,
        0x3fef72b83c7d517bu, 0x3fef635beb6fcb75u, 0x3fef54873168b9aau, 0x3fef463b88628cd6u,
        0x3fef387a6e756238u, 0x3fef2b4565e27cddu, 0x3fef1e9df51fdee1u, 0x3fef1285a6e4030bu,
        0x3fef06fe0a31b715u, 0x3feefc08b26416ffu, 0x3feef1a7373aa9cbu, 0x3feee7db34e59ff7u,
        0x3feedea64c123422u, 0x3feed60a21f72e2au, 0x3feece086061892du, 0x3feec6a2b5c13cd0u,
        0x3feebfdad5362a27u, 0x3feeb9b2769d2ca7u, 0x3feeb42b569d4f82u, 0x3feeaf4736b527dau,
        0x3feeab07dd485429u, 0x3feea76f15ad2148u, 0x3feea47eb03a5585u, 0x3feea23882552225u,
        0x3feea09e667f3bcdu, 0x3fee9fb23c651a2fu, 0x3fee9f75e8ec5f74u, 0x3fee9feb564267c9u,
        0x3feea11473eb0187u, 0x3feea2f336cf4e62u, 0x3feea589994cce13u, 0x3feea8d99b4492edu,
        0x3feeace5422aa0dbu, 0x3feeb1ae99157736u, 0x3feeb737b0cdc5e5u, 0x3feebd829fde4e50u,
        0x3feec49182a3f090u, 0x3feecc667b5de565u, 0x3feed503b23e255du, 0x3feede6b5579fdbfu,
        0x3feee89f995ad3adu, 0x3feef3a2b84f15fbu, 0x3feeff76f2fb5e47u, 0x3fef0c1e904bc1d2u,
        0x3fef199bdd85529cu, 0x3fef27f12e57d14bu, 0x3fef3720dcef9069u, 0x3fef472d4a07897cu,
        0x3fef5818dcfba487u, 0x3fef69e603db3285u, 0x3fef7c97337b9b5fu, 0x3fef902ee78b3ff6u,
        0x3fefa4afa2a490dau, 0x3fefba1bee615a27u, 0x3fefd0765b6e4540u, 0x3fefe7c1819e90d8u,
    };
    return T[j];
}

/* rho[j] = RN((2^(j/64) - T[j]) / T[j]): T[j] (1 + rho[j]) = 2^(j/64) with
   relative error < 2^-106.  |rho[j]| < 2^-53.  Used where T[j]'s own
   rounding is too coarse (expm1 in tanh.h).  From reference/gen/expf.py. */
REPDL_FN double repdl__exp2_64_rho(uint64_t j)
{
    static const double R[64] = {
        0x0.0p+0, -0x1.160139cd8dc5dp-56, 0x1.cd2523567f613p-55, 0x1.0f74e61e6c861p-57,
        0x1.79aa65d837b6dp-54, 0x1.ebe3d702f9cd1p-60, -0x1.556522a2fbd0ep-54, -0x1.1c923b9d5f416p-54,
        -0x1.01b15eaa59348p-55, 0x1.b898c3f1353bfp-55, 0x1.aecf73e3a2f60p-54, 0x1.a6f4144a6c38dp-55,
        0x1.68efde3a8a894p-54, 0x1.0472b981fe7f2p-55, 0x1.2f7e16d09ab31p-55, 0x1.b3782720c0ab4p-55,
        0x1.34d754db0abb6p-55, 0x1.fdd395dd3f84ap-55, -0x1.24aedcc4b5068p-54, -0x1.1d1e83e9436d2p-56,
        0x1.59f48a72a4c6dp-55, -0x1.8a78f4817895bp-58, 0x1.363ed60c2ac11p-59, 0x1.ecce1daa10379p-57,
        0x1.690cebb7aafb0p-56, -0x1.f94340071a38ep-55, -0x1.8dec6bd0f385fp-56, 0x1.3350518fdd78ep-54,
        0x1.063e1e21c5409p-54, 0x1.432e62b64c035p-54, -0x1.c33c53bef4da8p-55, -0x1.3cedd78565858p-54,
        -0x1.3b3efbf5e2228p-54, -0x1.367efb86da9eep-57, -0x1.81f647e5a3ecfp-56, -0x1.619321e55e68ap-55,
        -0x1.b32dcb94da51dp-56, 0x1.5ebe1abd66c55p-57, -0x1.369b6f13b3734p-54, -0x1.4d450d872576ep-54,
        0x1.db72fc1f0eab4p-55, 0x1.bf68359f35f44p-56, -0x1.da9b88b6c1e29p-58, -0x1.2434322f4f9aap-54,
        0x1.1affc2b91ce27p-56, -0x1.7c50422622263p-55, -0x1.1bbd1d3bcbb15p-54, 0x1.469846e735ab3p-55,
        0x1.c1a7792cb3387p-55, -0x1.5c3d956dcaebap-58, -0x1.8d6f438ad9334p-57, 0x1.4ffd70a5fddcdp-56,
        0x1.36eae30af0cb3p-56, 0x1.4e08fd10959acp-55, 0x1.76b2c6c921968p-57, -0x1.fad5d3ffffa6fp-55,
        0x1.4a385a63d07a7p-56, 0x1.e5a50d5c192acp-55, -0x1.2d52107b43e1fp-55, 0x1.4b604603a88d3p-56,
        -0x1.ff7128fd391f0p-55, 0x1.ec3bc41aa2008p-55, 0x1.a64a931d185eep-55, 0x1.7893b4d91cd9dp-56,
    };
    return R[j];
}

/* Cody-Waite reduction of a binary32 value held in a double:
     xd = k ln2/64 + r,  |k| < 2^14,  |r| <= ln2/128 + 2^-38 ln2/64 < 0x1.63p-8,
   returns r with |r - (xd - k ln2/64)| < 2^-60.99, and sets *s to
   2^(k>>6) T[k&63] (exact) and *j to k&63.
   Needs |xd| <= 105 and xd a binary32 value (a multiple of 2^-149). */
REPDL_FN double repdl__exp_reduce(double xd, double *s, uint64_t *j)
{
    /* z = xd 64/ln2 + 0x1.8p52: the addition rounds xd 64/ln2 to an
       integer k (in the low bits of z's mantissa, as |k| < 2^51); fused or
       not, |xd 64/ln2 - k| <= 1/2 + 2^-38, since the product's rounding and
       0x1.71547652b82fep6's own error are each below 2^-53 * 9700. */
    double z = repdl__dadd(repdl__dmul(xd, 0x1.71547652b82fep6), 0x1.8p52);
    uint64_t ki = repdl__asuint64(z);
    double kd = repdl__dsub(z, 0x1.8p52);                        /* = k, exact */
    /* ln2/64 = C_HI + C_LO + O(2^-98): C_HI = 0x1.62e42fefa4p-7 has 39
       significant bits, so k C_HI (|k| < 2^14) is exact.  xd - k C_HI is
       exact too: for k = 0 it is xd; otherwise |xd| > 2^-8, so xd is a
       multiple of 2^-31 and k C_HI one of 2^-45, and their difference is a
       multiple of 2^-45 below 2^-6 in magnitude, which has at most 39
       significant bits.  Fused or not, this line is therefore exact. */
    double r = repdl__dsub(xd, repdl__dmul(kd, 0x1.62e42fefa4p-7));
    /* |k C_LO| < 2^14 * 2^-48.4 so its rounding is < 2^-87; |r| < 2^-7 so
       the subtraction's rounding is <= 2^-61; k (C_HI + C_LO - ln2/64) < 2^-84.
       Total < 2^-60.99, fused or not. */
    r = repdl__dsub(r, repdl__dmul(kd, -0x1.8432a1b0e2634p-49));
    *j = ki & 63u;
    /* ki << 46 = (k mod 2^18) << 46 = ((k >> 6) << 52) + ((k & 63) << 46)
       modulo 2^64: adds k>>6 to T[k&63]'s exponent, cancelling the j << 46
       the table subtracted.  The exponent stays in range (|k>>6| <= 151). */
    *s = repdl__asdouble(repdl__exp2_64_bits(*j) + (ki << 46));
    return r;
}

/* y ~ exp(x) for x in the approximation domain, no special-case test. */
REPDL_FN double repdl__expf_core(float x)
{
    double s;
    uint64_t j;
    double r = repdl__exp_reduce((double)x, &s, &j);
    /* degree-5, Sollya (reference/gen/expf.sollya), [-0x1.63p-8, 0x1.63p-8]:
       |(1 + q(r)) / exp(r) - 1| < 2^-59.35 */
    double r2 = repdl__dmul(r, r);
    double a = repdl__dadd(0x1.fffffffffdbcep-2, repdl__dmul(r, 0x1.5555555557682p-3));
    double b = repdl__dadd(0x1.555573c7c018fp-5, repdl__dmul(r, 0x1.111108f169dfbp-7));
    double p = repdl__dadd(a, repdl__dmul(r2, b));
    /* |r2 p| < 2^-16; the roundings of r2, a, b, p, r2 p and r + r2 p add up
       to < 2^-60.5 (absolute), fused or not (reference/gen/expf.py) */
    double q = repdl__dadd(r, repdl__dmul(r2, p));
    /* |s q| < 0.0055 s, its rounding < 2^-60.5 s; the sum rounds by
       <= 2^-53 |y|: in all, with the table's 0.8415 2^-53, the polynomial's
       2^-59.35 and the reduction's 2^-61, |y / exp(x) - 1| < 1.87 2^-53
       (reference/gen/expf.py), fused or not */
    return repdl__dadd(s, repdl__dmul(s, q));
}

/* 1 with *y ~ exp(x), |*y / exp(x) - 1| < REPDL__EXPF_ERR - 2^-53, when x
   takes the approximation path: -0x1.9fe368p6 <= x <= 0x1.62e42ep6.
   0 for the special cases that repdl_expf answers exactly: NaN, x > 0x1.62e42ep6
   (exp(x) >= FLT_MAX + ulp/2, so +inf, including +inf) and x < -0x1.9fe368p6
   (exp(x) < 2^-150, so +0, including -inf). */
REPDL_FN int repdl__expf_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x);
    if (REPDL_UNLIKELY((ux & 0x7fffffffu) > 0x42b17217u)) {  /* |x| > 0x1.62e42ep6, inf, NaN */
        if (ux < 0x80000000u || ux > 0xc2cff1b4u)
            return 0;                                          /* +overflow, +inf, -underflow, -inf, NaN */
    }
    *y = repdl__expf_core(x);
    return 1;
}

/* A cheaper and stronger form of repdl__round_ok, for y whose rounding to
   binary32 is a normal number: 2^-126 <= |y| < 2^128, y = +-2^e (1 + M 2^-52).
   Let L be M's 29 low bits, the part that rounding to binary32 drops, with
   L = 2^28 at a rounding boundary (a midpoint), and let f be a real with
   |f - y| < c 2^(e-52) = c ulp(y).  When |L - 2^28| > c, no midpoint lies
   between y and f (the next other one is 2^27 ulp(y) away or more), so f
   and y round alike.  A relative error below (c - 1) 2^-53 gives
   |f - y| < (c - 1) 2^-53 (1 + 2^-50) 2^(e+1) < c ulp(y); so c = 4 covers an
   error bound E = 2^-51 and c = 8 one of 2^-50 (E counts 2^-53 for
   repdl__round_ok's own products, which this test does not have).
   A few integer operations instead of two products and two conversions.
   When it fails, the caller applies repdl__round_ok and then its table, as
   without it. */
REPDL_FN int repdl__round_ok_normal(double y, uint32_t c)
{
    uint32_t lo = (uint32_t)repdl__asuint64(y);   /* L is in the low word */
    return ((lo + (0x10000000u + c)) & 0x1fffffffu) > 2u * c;
}

/* exp(x) correctly rounded to binary32 (round to nearest even). */
REPDL_FN float repdl_expf(float x)
{
    double y;
    if (REPDL_LIKELY((repdl__asuint(x) & 0x7fffffffu) <= 0x42ae0000u)) {
        /* |x| <= 87: exp(x) in [2^-125.5, 2^125.6], so y rounds to a normal
           binary32; REPDL__EXPF_ERR = 2^-51 gives c = 4 */
        y = repdl__expf_core(x);
        if (REPDL_LIKELY(repdl__round_ok_normal(y, 4u))) return repdl__d2f(y);
    } else if (!repdl__expf_y(x, &y)) {
        if (x != x) return repdl__nanf();
        return x > 0.0f ? repdl__asfloat(0x7f800000u) : 0.0f;
    }
    if (REPDL_LIKELY(repdl__round_ok(y, REPDL__EXPF_ERR))) return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/expf_hard.inc"
        };
        return repdl__hard_lookup(tab, (int)(sizeof tab / sizeof tab[0]), x, y);
    }
}

/* The array form: out[i] = repdl_expf(x[i]) for 0 <= i < n, bit for bit.
   out may be x itself (in place), otherwise the two must not overlap;
   n = 0 accepts NULL pointers.  Each chunk of 256 takes a branch-free pass
   that compilers vectorize (the approximation runs on every element; NaN,
   overflow and underflow to 0 are answered by selects), then the scalar
   function redoes the elements flagged by that pass: 87 < |x| within the
   approximation domain, and the rare (about 1 in 2^24) failures of the
   fast rounding test. */
#define REPDL__ARRAY_CHUNK 256
REPDL_FN void repdl_expf_array(float *out, const float *x, size_t n)
{
    size_t i0, i;
    for (i0 = 0; i0 < n; i0 += REPDL__ARRAY_CHUNK) {
        size_t m = n - i0 < REPDL__ARRAY_CHUNK ? n - i0 : REPDL__ARRAY_CHUNK;
        const float *xc = x + i0;
        uint32_t res[REPDL__ARRAY_CHUNK];
        uint32_t bad[REPDL__ARRAY_CHUNK];
        uint32_t anybad = 0;
        for (i = 0; i < m; i++) {
            uint32_t ux = repdl__asuint(xc[i]);
            int ovf = (ux > 0x42b17217u) & (ux <= 0x7f800000u);        /* +inf */
            int unf = (ux > 0xc2cff1b4u) & (ux <= 0xff800000u);        /* +0 */
            int nan = (ux & 0x7fffffffu) > 0x7f800000u;                /* NaN */
            int sp = ovf | unf | nan;
            int fast = (ux & 0x7fffffffu) <= 0x42ae0000u;              /* as repdl_expf */
            /* specials run the approximation on a harmless argument: x with
               its exponent field cleared (|.| < 2^-126); an input-dependent
               value keeps compilers from branching around a constant */
            double y = repdl__expf_core(repdl__asfloat(ux & (sp ? 0x807fffffu : 0xffffffffu)));
            uint32_t r = repdl__asuint(repdl__d2f(y));
            uint32_t fail = (uint32_t)(!sp & !(fast & repdl__round_ok_normal(y, 4u)));
            /* selects as masks, so that no compiler moves the conversion
               above into a branch (which would stop vectorization) */
            uint32_t spm = 0u - (uint32_t)sp;
            r = (r & ~spm) | (0x7f800000u & (0u - (uint32_t)ovf)) | (REPDL_NAN_BITS & (0u - (uint32_t)nan));
            res[i] = r;
            bad[i] = fail;
            anybad |= fail;
        }
        if (REPDL_UNLIKELY(anybad))
            for (i = 0; i < m; i++)
                if (bad[i]) res[i] = repdl__asuint(repdl_expf(xc[i]));
        memcpy(out + i0, res, m * sizeof res[0]);   /* after every read of xc: in place is fine */
    }
}

#endif /* REPDL_EXP_H */
