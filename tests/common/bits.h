/* SPDX-License-Identifier: MIT */
/* tests/common/bits.h: the bit views of a binary32 float used by the tests
   (memcpy, so no aliasing rule is broken and no float operation touches
   the value: NaN payloads and signalling NaNs come through unchanged).
   Plain C99, also valid C++. */
#ifndef REPDL_TESTS_COMMON_BITS_H
#define REPDL_TESTS_COMMON_BITS_H

#include <stdint.h>
#include <string.h>

/* The bits of f. */
static inline uint32_t asuint(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The float of bits u. */
static inline float asfloat(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#endif /* REPDL_TESTS_COMMON_BITS_H */
