/* SPDX-License-Identifier: MIT */
/* reference/gen/trigf_minred.c: the smallest reduced argument of sinf/cosf.

     cc -O2 reference/gen/trigf_minred.c -lmpfr -lgmp -o /tmp/trigf_minred
     /tmp/trigf_minred

   For every binary32 x >= 1/2 (x = m 2^e, 2^23 <= m < 2^24, e = E - 150,
   126 <= E <= 254; -x gives the same distance), the distance
   |f*| = |x 2/pi - round(x 2/pi)| of x 2/pi to the nearest integer (in
   quadrants: x = (q + f*) pi/2), its minimum and where it is reached.
   detail/trig_reduce.h's error bound divides by this minimum.

   Independent of the library: 2/pi comes from MPFR (400 bits), the
   products are unsigned __int128 (a generator may use it; repdl's headers
   do not).  Per exponent, A = floor(2^(e+K) 2/pi) mod 2^(K+2), K = 100:
   x 2/pi = m A 2^-K + t (mod 4) with 0 <= t < m 2^-K < 2^-76, and
   m A < 2^126; the fraction is m A mod 2^K.  The printed minimum is
   within 2^-76 of the exact one, and a lower bound when decreased by it. */
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>

#define K 100

int main(void)
{
    mpfr_t t, s;
    mpz_t z;
    unsigned __int128 one = 1, mask = (one << K) - 1, half = one << (K - 1), best = half;
    int E, bestE = 0;
    uint32_t bestm = 0;
    mpfr_init2(t, 400);
    mpfr_init2(s, 400);
    mpz_init(z);
    mpfr_const_pi(t, MPFR_RNDN);
    mpfr_ui_div(t, 2, t, MPFR_RNDN);              /* 2/pi, relative error 2^-400 */
    for (E = 126; E <= 254; E++) {
        int e = E - 150;
        unsigned __int128 A;
        uint32_t m;
        mpfr_mul_2si(s, t, e + K, MPFR_RNDN);       /* exact */
        mpfr_get_z(z, s, MPFR_RNDD);                /* floor; the 2^-(400-e-K) error never */
        mpz_fdiv_r_2exp(z, z, K + 2);               /* reaches the bits kept (e + K < 230) */
        A = (unsigned __int128)mpz_getlimbn(z, 1) << 64 | mpz_getlimbn(z, 0);
        for (m = 1u << 23; m < 1u << 24; m++) {
            unsigned __int128 fr = ((unsigned __int128)m * A) & mask;
            unsigned __int128 d = fr < half ? fr : (one << K) - fr;
            if (d < best) { best = d; bestE = E; bestm = m; }
        }
    }
    {
        double dm = ldexp((double)(uint64_t)(best >> 40), 40 - K);
        printf("min |f*| = %a = 2^%.4f quadrants (within 2^-76), at x = 0x%06xp%d = %a (bits 0x%08x)\n",
               dm, log2(dm), bestm, bestE - 150, ldexp((double)bestm, bestE - 150),
               (unsigned)((uint32_t)bestE << 23 | (bestm & 0x7fffffu)));
    }
    mpz_clear(z);
    mpfr_clear(t);
    mpfr_clear(s);
    return 0;
}
