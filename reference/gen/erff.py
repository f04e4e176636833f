#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/erff.py: the table and the error bound of include/repdl/erf.h.

    /usr/bin/python3 reference/gen/erff.py      (runs sollya reference/gen/erff.sollya)

Needs sollya and mpmath.  Prints:
  * the coefficient table of erf.h (decimal, shortest round trip of the
    binary64 coefficients Sollya chose, each asserted);
  * the saturation threshold: the least binary32 x with erfc(x) < 2^-25
    (from there on erf(x) rounds to 1);
  * per piece, a rigorous bound of the evaluation's rounding error
    (Horner in binary64, u = 2^-53 per operation; a contracted a*b + c
    drops one of the roundings counted, so the bound holds fused or not),
    as exact rational arithmetic on |coefficients| and the interval ends,
    plus Sollya's supnorm of the approximation error, relative to erf:
    the total is the bound E of erf.h (plus 2^-53 for repdl__round_ok's
    own products).
"""
import re
import struct
import subprocess
from fractions import Fraction as Fr

import mpmath as mp

mp.mp.prec = 200
out = subprocess.run(['sollya', 'reference/gen/erff.sollya'], capture_output=True, text=True,
                     check=True).stdout
pieces = []
errs = []
for m in re.finditer(r'relative error < 2\^(-[0-9.]+) \*/\n\{\n(.*?)\}', out, re.S):
    errs.append(float(m.group(1)))
    pieces.append([float.fromhex(h) for h in re.findall(r'(-?0x[0-9a-f.]+p-?[0-9]+)', m.group(2))])
assert len(pieces) == 15 and all(len(p) == 12 for p in pieces)

print('/* from reference/gen/erff.py (Sollya: reference/gen/erff.sollya) */')
for i, p in enumerate(pieces):
    s = ', '.join(repr(c) for c in p)
    for c in p:
        assert float(repr(c)) == c
    print('    {%s},' % s)


def f32(b):
    return struct.unpack('<f', struct.pack('<I', b))[0]


lo, hi = 0x40400000, 0x40a00000
while hi - lo > 1:
    mid = (lo + hi) // 2
    if mp.erfc(f32(mid)) < mp.mpf(2) ** -25:
        hi = mid
    else:
        lo = mid
print('saturation: erf(x) rounds to 1 for x >= %s (0x%08x); erfc there = 2^%.3f, below it 2^%.3f'
      % (float.hex(f32(hi)), hi, float(mp.log(mp.erfc(f32(hi)), 2)), float(mp.log(mp.erfc(f32(lo)), 2))))

u = Fr(1, 2 ** 53)


def horner_bound(c, V):
    """|computed - exact Horner value| <= returned bound, for |v| <= V, v exact."""
    n = len(c)
    err = Fr(0)
    hmax = abs(Fr(c[-1]))
    for k in range(n - 2, -1, -1):
        prod = V * hmax                           # |v h_{k+1}|, computed value bound
        hk = abs(Fr(c[k])) + prod
        err = V * err + u * prod + u * hk        # product rounding, sum rounding
        hmax = hk * (1 + 2 * u) + err
    return err


worst = 0.0
for i, p in enumerate(pieces):
    if i == 0:
        V = Fr(1, 4)                                  # v = x^2 <= 1/4, exact
        fmin = mp.erf(mp.mpf(1) / 2) * 2              # min of erf(x)/x on [0, 1/2]
        e_eval = horner_bound(p, V) / Fr(float(fmin) * (1 - 2 ** -40)) + u    # + the product x h
    else:
        V = Fr(1, 8)                                  # t = x - c, exact
        c = (i + 1) / 4 + 1 / 8
        fmin = mp.erf(c - mp.mpf(1) / 8)
        e_eval = horner_bound(p, V) / Fr(float(fmin) * (1 - 2 ** -40))
    tot = float(e_eval) + 2.0 ** errs[i]
    worst = max(worst, tot)
    print('piece %2d: evaluation %.3f 2^-53, approximation 2^%.2f, total %.3f 2^-53'
          % (i, float(e_eval) * 2 ** 53, errs[i], tot * 2 ** 53))
print('|y / erf(x) - 1| < %.3f 2^-53 on every piece, fused or not;' % (worst * 2 ** 53))
print('with repdl__round_ok\'s 2^-53: E = %.3f 2^-53 <= 4 2^-53 = 2^-51' % (worst * 2 ** 53 + 1))
assert worst * 2 ** 53 + 1 <= 4
