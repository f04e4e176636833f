/* SPDX-License-Identifier: MIT */
/* tests/common/splitmix64.h: the one pseudo-random generator of the tests
   and benchmarks: splitmix64 (Steele, Lea and Flood, "Fast splittable
   pseudorandom number generators", OOPSLA 2014).

   The state is a 64-bit counter advanced by the odd constant
   0x9e3779b97f4a7c15 (2^64 / golden ratio); each output is the state
   passed through the finaliser splitmix64_mix (Stafford's "Mix13").
   Integer arithmetic only, so every machine and compiler produces the same
   sequence from the same seed: the golden hashes (tests/golden/hashes.txt)
   and every test input are derived from it.  Plain C99, also valid C++.

     splitmix64 r = {seed};          or  splitmix64_seed(&r, seed)
     uint64_t v = splitmix64_next(&r);
     uint64_t h = splitmix64_mix(z);  (a stateless hash of z) */
#ifndef REPDL_TESTS_COMMON_SPLITMIX64_H
#define REPDL_TESTS_COMMON_SPLITMIX64_H

#include <stdint.h>

#define SPLITMIX64_GAMMA 0x9e3779b97f4a7c15ull

typedef struct splitmix64 { uint64_t s; } splitmix64;

static inline uint64_t splitmix64_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline void splitmix64_seed(splitmix64 *r, uint64_t seed) { r->s = seed; }

static inline uint64_t splitmix64_next(splitmix64 *r)
{
    r->s += SPLITMIX64_GAMMA;
    return splitmix64_mix(r->s);
}

#endif /* REPDL_TESTS_COMMON_SPLITMIX64_H */
