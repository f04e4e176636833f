/* SPDX-License-Identifier: MIT */
/* repdl/reduce_minmax.h: max, min, argmax, argmin of binary32 arrays
   (included by reduce.h).

   Rules (docs/canonical-order.md, section 9):
     - order: the numeric order, with -0 < +0 (so max(-0, +0) = +0 and
       min(-0, +0) = -0);
     - NaN: if any element is NaN, max and min are the canonical NaN
       (0x7fc00000) and argmax, argmin the index of the first NaN;
     - ties: argmax, argmin return the first (least) index of the extreme;
     - empty (n == 0): max = -inf, min = +inf (the identities),
       argmax = argmin = REPDL_NO_INDEX.
   These rules make max and min associative and commutative on bit
   patterns, and argmax/argmin on (value, index) pairs: any split, in any
   order, gives the same result.  No tree is needed; repdl_max2_f32 and
   repdl_argmax_merge_f32 combine the results of blocks.

   The comparisons use an integer key with the same order: positive floats
   get their bits with the top bit set, negative floats their bits
   inverted, so -inf < ... < -0 < +0 < ... < +inf as unsigned integers.
   Integer max/min vectorize at any width. */
#ifndef REPDL_REDUCE_MINMAX_H
#define REPDL_REDUCE_MINMAX_H

#include "config.h"
REPDL_BEGIN_CODE

/* argmax/argmin of an empty array. */
/* REPDL_NO_INDEX: config.h */

/* Order key of a non-NaN float's bits, and back. */
REPDL_FN uint32_t repdl__order_key(uint32_t u)
{
    return u ^ (((uint32_t)0 - (u >> 31)) | 0x80000000u);
}
REPDL_FN uint32_t repdl__order_unkey(uint32_t k)
{
    return k ^ (((k >> 31) - 1u) | 0x80000000u);
}
REPDL_FN int repdl__isnan_bits(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

#define REPDL__KEY_NEG_INF 0x007fffffu /* repdl__order_key(0xff800000) */
#define REPDL__KEY_POS_INF 0xff800000u /* repdl__order_key(0x7f800000) */

/* The larger of a and b by the rules above (NaN wins, -0 < +0). */
REPDL_API float repdl_max2_f32(float a, float b)
{
    uint32_t ua = repdl__asuint(a), ub = repdl__asuint(b);
    if (repdl__isnan_bits(ua) || repdl__isnan_bits(ub)) return repdl__nanf();
    return repdl__order_key(ua) >= repdl__order_key(ub) ? a : b;
}
REPDL_API float repdl_min2_f32(float a, float b)
{
    uint32_t ua = repdl__asuint(a), ub = repdl__asuint(b);
    if (repdl__isnan_bits(ua) || repdl__isnan_bits(ub)) return repdl__nanf();
    return repdl__order_key(ua) <= repdl__order_key(ub) ? a : b;
}

/* One pass: the largest and smallest keys and the largest magnitude bits
   (a NaN is present iff that exceeds 0x7f800000). */
REPDL_FN void repdl__minmax_scan(const float *x, ptrdiff_t incx, size_t n,
                                 uint32_t *kmax, uint32_t *kmin, uint32_t *amax)
{
    uint32_t hi = REPDL__KEY_NEG_INF, lo = REPDL__KEY_POS_INF, a = 0;
    size_t i;
    if (incx == 1) {
        for (i = 0; i < n; i++) {
            uint32_t u = repdl__asuint(x[i]), k = repdl__order_key(u), m = u & 0x7fffffffu;
            hi = k > hi ? k : hi;
            lo = k < lo ? k : lo;
            a = m > a ? m : a;
        }
    } else {
        for (i = 0; i < n; i++) {
            uint32_t u = repdl__asuint(x[(ptrdiff_t)i * incx]), k = repdl__order_key(u),
                     m = u & 0x7fffffffu;
            hi = k > hi ? k : hi;
            lo = k < lo ? k : lo;
            a = m > a ? m : a;
        }
    }
    *kmax = hi;
    *kmin = lo;
    *amax = a;
}

/* The first index whose bits are `want`, or the first NaN when want is a
   NaN pattern. */
REPDL_FN size_t repdl__find_first(const float *x, ptrdiff_t incx, size_t n, uint32_t want)
{
    size_t i;
    if (repdl__isnan_bits(want)) {
        for (i = 0; i < n; i++)
            if (repdl__isnan_bits(repdl__asuint(x[(ptrdiff_t)i * incx]))) return i;
    } else {
        for (i = 0; i < n; i++)
            if (repdl__asuint(x[(ptrdiff_t)i * incx]) == want) return i;
    }
    return REPDL_NO_INDEX; /* not reached for n > 0 */
}

REPDL_API float repdl_max_strided_f32(size_t n, const float *x, ptrdiff_t incx)
{
    REPDL__FPENV_CHECK_OR(repdl__nanf());
    uint32_t hi, lo, a;
    repdl__minmax_scan(x, incx, n, &hi, &lo, &a);
    if (a > 0x7f800000u) return repdl__nanf();
    return repdl__asfloat(repdl__order_unkey(hi));
}

REPDL_API float repdl_min_strided_f32(size_t n, const float *x, ptrdiff_t incx)
{
    REPDL__FPENV_CHECK_OR(repdl__nanf());
    uint32_t hi, lo, a;
    repdl__minmax_scan(x, incx, n, &hi, &lo, &a);
    if (a > 0x7f800000u) return repdl__nanf();
    return repdl__asfloat(repdl__order_unkey(lo));
}

/* Two passes: the extreme, then its first occurrence. */
REPDL_API size_t repdl_argmax_strided_f32(size_t n, const float *x, ptrdiff_t incx)
{
    REPDL__FPENV_CHECK_OR(REPDL_NO_INDEX);
    uint32_t hi, lo, a;
    if (n == 0) return REPDL_NO_INDEX;
    repdl__minmax_scan(x, incx, n, &hi, &lo, &a);
    return repdl__find_first(x, incx, n, a > 0x7f800000u ? REPDL_NAN_BITS : repdl__order_unkey(hi));
}

REPDL_API size_t repdl_argmin_strided_f32(size_t n, const float *x, ptrdiff_t incx)
{
    REPDL__FPENV_CHECK_OR(REPDL_NO_INDEX);
    uint32_t hi, lo, a;
    if (n == 0) return REPDL_NO_INDEX;
    repdl__minmax_scan(x, incx, n, &hi, &lo, &a);
    return repdl__find_first(x, incx, n, a > 0x7f800000u ? REPDL_NAN_BITS : repdl__order_unkey(lo));
}

REPDL_API float repdl_max_f32(size_t n, const float *x) { return repdl_max_strided_f32(n, x, 1); }
REPDL_API float repdl_min_f32(size_t n, const float *x) { return repdl_min_strided_f32(n, x, 1); }
REPDL_API size_t repdl_argmax_f32(size_t n, const float *x) { return repdl_argmax_strided_f32(n, x, 1); }
REPDL_API size_t repdl_argmin_f32(size_t n, const float *x) { return repdl_argmin_strided_f32(n, x, 1); }

/* Merging the (value, index) results of two blocks, in any order:
   (*v, *i) becomes the argmax (argmin) of the two by the rules above
   (first NaN, else the larger (smaller) value, ties to the lesser index).
   An empty block is (anything, REPDL_NO_INDEX) and changes nothing. */
REPDL_API void repdl_argmax_merge_f32(float v2, size_t i2, float *v, size_t *i)
{
    uint32_t u = repdl__asuint(*v), u2 = repdl__asuint(v2);
    int n1 = repdl__isnan_bits(u), n2 = repdl__isnan_bits(u2), take;
    if (i2 == REPDL_NO_INDEX) return;
    if (*i == REPDL_NO_INDEX) take = 1;
    else if (n1 || n2) take = n2 && (!n1 || i2 < *i);
    else if (u == u2) take = i2 < *i;
    else take = repdl__order_key(u2) > repdl__order_key(u);
    if (take) { *v = v2; *i = i2; }
}

REPDL_API void repdl_argmin_merge_f32(float v2, size_t i2, float *v, size_t *i)
{
    uint32_t u = repdl__asuint(*v), u2 = repdl__asuint(v2);
    int n1 = repdl__isnan_bits(u), n2 = repdl__isnan_bits(u2), take;
    if (i2 == REPDL_NO_INDEX) return;
    if (*i == REPDL_NO_INDEX) take = 1;
    else if (n1 || n2) take = n2 && (!n1 || i2 < *i);
    else if (u == u2) take = i2 < *i;
    else take = repdl__order_key(u2) < repdl__order_key(u);
    if (take) { *v = v2; *i = i2; }
}

/* Row-wise forms: out[r] = f(x + r * ldx, n) (x not read when n == 0);
   status and checks as the row-wise forms of reduce.h. */
/* op 0 max, 1 min (into outf), 2 argmax, 3 argmin (into outi). */
REPDL_FN repdl_status repdl__minmax_rows(int op, size_t rows, size_t n, const float *x, size_t ldx,
                                         float *outf, size_t *outi)
{
    size_t r;
    repdl_status st = repdl__rows_arg(rows, n, x, ldx);
    if (st != REPDL_OK) return st;
    if (rows && (op < 2 ? !outf : !outi)) return REPDL_ERR_INVALID;
    for (r = 0; r < rows; r++) {
        const float *xr = n ? x + r * ldx : x;
        if (op == 0) outf[r] = repdl_max_f32(n, xr);
        else if (op == 1) outf[r] = repdl_min_f32(n, xr);
        else if (op == 2) outi[r] = repdl_argmax_f32(n, xr);
        else outi[r] = repdl_argmin_f32(n, xr);
    }
    return REPDL_OK;
}

REPDL_API repdl_status repdl_max_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                          float *out)
{
    REPDL__FPENV_CHECK();
    return repdl__minmax_rows(0, rows, n, x, ldx, out, NULL);
}

REPDL_API repdl_status repdl_min_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                          float *out)
{
    REPDL__FPENV_CHECK();
    return repdl__minmax_rows(1, rows, n, x, ldx, out, NULL);
}

REPDL_API repdl_status repdl_argmax_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                             size_t *out)
{
    REPDL__FPENV_CHECK();
    return repdl__minmax_rows(2, rows, n, x, ldx, NULL, out);
}

REPDL_API repdl_status repdl_argmin_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                             size_t *out)
{
    REPDL__FPENV_CHECK();
    return repdl__minmax_rows(3, rows, n, x, ldx, NULL, out);
}

REPDL_END_CODE
#endif /* REPDL_REDUCE_MINMAX_H */
