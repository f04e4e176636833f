/* SPDX-License-Identifier: MIT */
/* repdl__fmaf and repdl__fmaf_soft against MPFR's fma rounded to binary32.

   Cases: every pair of special/boundary values (zeros, subnormals, FLT_MAX,
   infinities, NaN) as a, b and c, then random operands drawn so that the
   product and c overlap (cancellation, ties, subnormal and overflowing
   results).  Bits are compared; a NaN result must be a NaN (the payload is
   canonicalised by the callers, not here).  Built twice by meson: with the
   hardware FMA (-march=native when the compiler has -mfma) and without, so
   both paths of repdl__fmaf are checked. */
#include <stdio.h>
#include <stdint.h>
#include "repdl/config.h"
#include "../../reference/mpfr_ref.h"

static uint64_t st = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void)
{
    st ^= st << 13; st ^= st >> 7; st ^= st << 17;
    return (uint32_t)(st >> 16);
}

static long fails;
static void check(float a, float b, float c)
{
    float want = repdl_ref_fmaf(a, b, c);
    float got[2];
    got[0] = repdl__fmaf_soft(a, b, c);
    got[1] = repdl__fmaf(a, b, c);
    for (int i = 0; i < 2; i++) {
        uint32_t w = repdl__asuint(want), g = repdl__asuint(got[i]);
        int ok = (want != want) ? (got[i] != got[i]) : (w == g);
        if (!ok && fails++ < 10)
            printf("FAIL %s fma(%08x, %08x, %08x) = %08x, want %08x\n",
                   i ? "repdl__fmaf" : "repdl__fmaf_soft", repdl__asuint(a),
                   repdl__asuint(b), repdl__asuint(c), g, w);
    }
}

int main(void)
{
    static const uint32_t sp[] = {
        0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu,
        0x00800000u, 0x3f800000u, 0xbf800000u, 0x3f800001u, 0x3f7fffffu,
        0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
        0x5f800000u, 0x1f800000u, 0x33800000u, 0xb3800000u, 0x4b800001u};
    const int ns = (int)(sizeof sp / sizeof sp[0]);
    long n = 0;
    repdl_ref_init();
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < ns; j++)
            for (int k = 0; k < ns; k++, n++)
                check(repdl__asfloat(sp[i]), repdl__asfloat(sp[j]), repdl__asfloat(sp[k]));
    for (long t = 0; t < 3000000; t++, n++) {
        uint32_t a = rnd(), b = rnd(), c = rnd();
        int mode = (int)(t % 4);
        if (mode >= 1) {
            /* c's exponent near that of a*b: cancellation and ties */
            int ea = (int)((a >> 23) & 255), eb = (int)((b >> 23) & 255);
            int ec = ea + eb - 127 + (int)(rnd() % 50) - 25;
            if (mode == 3) ec = ea + eb - 127;
            if (ec < 0) ec = 0;
            if (ec > 254) ec = 254;
            c = (c & 0x807fffffu) | ((uint32_t)ec << 23);
            if (mode == 2) c = (c & 0x807fffffu) | ((a ^ b ^ 0x80000000u) & 0x80000000u) | ((uint32_t)ec << 23);
        }
        if (t % 7 == 0) { a &= 0x87ffffffu; b &= 0x87ffffffu; } /* small: subnormal results */
        if (t % 11 == 0) { a &= 0xffff0000u; b &= 0xffff0000u; } /* short products: exact ties */
        check(repdl__asfloat(a), repdl__asfloat(b), repdl__asfloat(c));
    }
    /* Near-ties a binary64 intermediate would round onto: c has exponent E,
       a*b = +-2^(E-24) * (1 - k^2 2^-46), just inside half an ulp of c.
       Rounding a*b + c to 53 bits first lands exactly on the binary32 tie
       and then goes to even: wrong for half of these. */
    for (long t = 0; t < 200000; t++, n++) {
        uint32_t c = rnd() & 0x7fffffffu;
        int ec = (int)((c >> 23) & 255);
        if (ec < 30 || ec > 250) continue;
        uint32_t k = 1u + rnd() % 4096u;
        float a = repdl__asfloat(((uint32_t)(ec - 24) << 23) | k);   /* 2^(E-24) (1 + k 2^-23) */
        float b = repdl__asfloat((126u << 23) | (0x800000u - 2u * k)); /* 1 - k 2^-23 */
        uint32_t sg = (rnd() & 1u) << 31;
        check(repdl__asfloat(repdl__asuint(a) | sg), b, repdl__asfloat(c | (rnd() & 1u) << 31));
    }
    printf("%ld cases, %ld failures (hardware fma path: %d)\n", n, fails, REPDL__HAVE_HW_FMA);
    return fails != 0;
}
