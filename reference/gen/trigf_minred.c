/* SPDX-License-Identifier: MIT */
/* reference/gen/trigf_minred.c: the smallest reduced argument of sinf/cosf.

     cc -O2 reference/gen/trigf_minred.c -lmpfr -lgmp -o /tmp/trigf_minred
     /tmp/trigf_minred                # the minimum over every x >= 1/2
     /tmp/trigf_minred --binades 17   # also each binade's, for 1/2 <= x < 2^17

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
   within 2^-76 of the exact one, and a lower bound when decreased by it.
   --binades N also prints the minimum of each binade 2^e <= x < 2^(e+1),
   -1 <= e < N: detail/trigf.h's fast path, whose shorter reduction errs by
   an amount proportional to x, divides by these (reference/gen/trigf.py). */
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K 100

/* d 2^-K as a double (its top 64 bits, d < 2^(K-1)), d = a distance */
static double to_double(unsigned __int128 d) { return ldexp((double)(uint64_t)(d >> 40), 40 - K); }

int main(int argc, char **argv)
{
    mpfr_t t, s;
    mpz_t z;
    unsigned __int128 one = 1, mask = (one << K) - 1, half = one << (K - 1), best = half;
    int E, bestE = 0, binades = -1;
    uint32_t bestm = 0;
    if (argc == 3 && strcmp(argv[1], "--binades") == 0) {
        char *end;
        long v = strtol(argv[2], &end, 10);
        binades = *end || end == argv[2] || v < 0 ? 1000 : (int)(v < 1000 ? v : 1000);
    }
    if (binades < 0 ? argc != 1 : binades > 128) {
        fprintf(stderr, "usage: %s [--binades N], 0 <= N <= 128\n", argv[0]);
        return 2;
    }
    mpfr_init2(t, 400);
    mpfr_init2(s, 400);
    mpz_init(z);
    mpfr_const_pi(t, MPFR_RNDN);
    mpfr_ui_div(t, 2, t, MPFR_RNDN);              /* 2/pi, relative error 2^-400 */
    for (E = 126; E <= 254; E++) {
        int e = E - 150;
        unsigned __int128 A, bin = half;
        uint32_t m;
        mpfr_mul_2si(s, t, e + K, MPFR_RNDN);       /* exact */
        mpfr_get_z(z, s, MPFR_RNDD);                /* floor; the 2^-(400-e-K) error never */
        mpz_fdiv_r_2exp(z, z, K + 2);               /* reaches the bits kept (e + K < 230) */
        A = (unsigned __int128)mpz_getlimbn(z, 1) << 64 | mpz_getlimbn(z, 0);
        for (m = 1u << 23; m < 1u << 24; m++) {
            unsigned __int128 fr = ((unsigned __int128)m * A) & mask;
            unsigned __int128 d = fr < half ? fr : (one << K) - fr;
            if (d < bin) bin = d;
            if (d < best) { best = d; bestE = E; bestm = m; }
        }
        if (e + 23 < binades)
            printf("binade 2^%d: min |f*| = %a = 2^%.4f\n", e + 23, to_double(bin), log2(to_double(bin)));
    }
    {
        double dm = to_double(best);
        printf("min |f*| = %a = 2^%.4f quadrants (within 2^-76), at x = 0x%06xp%d = %a (bits 0x%08x)\n",
               dm, log2(dm), bestm, bestE - 150, ldexp((double)bestm, bestE - 150),
               (unsigned)((uint32_t)bestE << 23 | (bestm & 0x7fffffu)));
    }
    mpz_clear(z);
    mpfr_clear(t);
    mpfr_clear(s);
    return 0;
}
