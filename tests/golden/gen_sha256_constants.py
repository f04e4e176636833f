#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prints the SHA-256 constants of FIPS 180-4 section 4.2.2 and 5.3.3 as C
arrays, for tests/golden/sha256.h, from their definition in exact integer
arithmetic:
  K[t]  = first 32 bits of the fractional part of the cube root of the
          t-th prime (t = 0..63);
  H0[i] = first 32 bits of the fractional part of the square root of the
          i-th prime (i = 0..7).
Usage: python3 tests/golden/gen_sha256_constants.py"""


def iroot(n, k):
    """floor(n ** (1/k)) for integers n >= 0, k >= 1, exactly."""
    lo, hi = 0, 1
    while hi ** k <= n:
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid ** k <= n:
            lo = mid
        else:
            hi = mid
    return lo


def primes(count):
    out, c = [], 2
    while len(out) < count:
        if all(c % p for p in out):
            out.append(c)
        c += 1
    return out


def frac_bits(p, k):
    # floor(p^(1/k) * 2^32) mod 2^32 = floor((p * 2^(32k))^(1/k)) mod 2^32
    return iroot(p << (32 * k), k) & 0xffffffff


def c_array(name, vals):
    lines = []
    for i in range(0, len(vals), 4):
        lines.append("        " + ", ".join("0x%08xu" % v for v in vals[i:i + 4]) + ",")
    return "    static const uint32_t %s[%d] = {\n%s\n    };" % (name, len(vals), "\n".join(lines))


if __name__ == "__main__":
    print(c_array("k", [frac_bits(p, 3) for p in primes(64)]))
    print(c_array("h0", [frac_bits(p, 2) for p in primes(8)]))
