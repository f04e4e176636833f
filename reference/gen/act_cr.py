#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/act_cr.py: thresholds, constants, tables and error bounds of
the correctly rounded silu, softplus, gelu and gelu_tanh of
include/repdl/silu.h, gelu.h, gelu_tanh.h, softplus.h (issue 17).

    /usr/bin/python3 reference/gen/act_cr.py     (runs sollya on
        reference/gen/softplusf.sollya and reference/gen/geluf.sollya)

Needs sollya and mpmath.  Prints:
  * each exactly handled threshold (bisection on binary32 patterns with
    mpmath at 300 bits);
  * gelu_tanh's split constants C_H + C_L = 2 sqrt(2/pi), K_H + K_L =
    0.044715 * 2 sqrt(2/pi) (C_H, K_H rounded to 29 significant bits);
  * softplus's and gelu's evaluation error bounds: the Horner roundings
    bounded in exact rational arithmetic (u = 2^-53 per operation; a
    contracted a*b + c drops one of the roundings counted, so the bounds
    hold fused or not; horner_bound of reference/gen/fperr.py), plus
    Sollya's supnorm bounds;
  * gelu's table S (decimal, shortest round trip, asserted).
"""
import re
import struct
import subprocess
from fractions import Fraction as Fr

import mpmath as mp

from fperr import horner_bound

mp.mp.prec = 300
u = Fr(1, 2 ** 53)


def f32(b):
    return struct.unpack('<f', struct.pack('<I', b))[0]


def bisect(lo, hi, pred):
    """least pattern in (lo, hi] with pred true (pred monotone in the pattern)"""
    while hi - lo > 1:
        m = (lo + hi) // 2
        if pred(m):
            hi = m
        else:
            lo = m
    return hi


two150 = mp.mpf(2) ** -150
sig = lambda t: 1 / (1 + mp.exp(-t))
Q = lambda v: mp.erfc(v / mp.sqrt(2)) / 2
c = 2 * mp.sqrt(2 / mp.pi)
k = mp.mpf(44715) / 10 ** 6
w = lambda x: c * (x + k * x ** 3)

b = bisect(0x42800000, 0x43000000, lambda m: abs(f32(m)) * sig(-f32(m)) <= two150)
print('silu: |silu(x)| <= 2^-150 for x <= -%s (0x%08x)' % (float.hex(f32(b)), b | 0x80000000))
print('silu: sigma(-17.5) = 2^%.3f < 2^-25' % float(mp.log(sig(-17.5), 2)))
print('softplus: log1p(e^-16) = 2^%.3f < 2^-20 (half an ulp of 16)' % float(mp.log(mp.log1p(mp.exp(-16)), 2)))
b = bisect(0x40000000, 0x41000000, lambda m: Q(f32(m)) < mp.mpf(2) ** -25)
print('gelu: Q(x) < 2^-25 for x >= %s (0x%08x)' % (float.hex(f32(b)), b))
b = bisect(0x41000000, 0x41800000, lambda m: f32(m) * Q(f32(m)) <= two150)
print('gelu: |gelu(x)| <= 2^-150 for x <= -%s (0x%08x)' % (float.hex(f32(b)), b | 0x80000000))
print('gelu: 13 Q(13) = 2^%.2f > 2^-126 (normal results for x >= -13)' % float(mp.log(13 * Q(13), 2)))
b = bisect(0x40000000, 0x41000000, lambda m: sig(-w(f32(m))) < mp.mpf(2) ** -25)
print('gelu_tanh: sigma(-w) < 2^-25 for x >= %s (0x%08x)' % (float.hex(f32(b)), b))
b = bisect(0x41000000, 0x41800000, lambda m: f32(m) * sig(w(-f32(m))) <= two150)
print('gelu_tanh: |g(x)| <= 2^-150 for x <= -%s (0x%08x)' % (float.hex(f32(b)), b | 0x80000000))
print('gelu_tanh: 10 sigma(w(-10)) = 2^%.2f > 2^-126 (normal results for x >= -10)'
      % float(mp.log(10 * sig(w(-10)), 2)))
print('gelu_tanh: |w| < %.2f on the approximation range' % float(abs(w(-f32(b)))))


def rnd_bits(v, nb):
    e = mp.floor(mp.log(abs(v), 2))
    s = mp.mpf(2) ** (e - nb + 1)
    return mp.nint(v / s) * s


CH = rnd_bits(c, 29)
KH = rnd_bits(c * k, 29)
for name, hi, full in (('C', CH, c), ('K', KH, c * k)):
    assert float(hi) == hi
    lo = float(full - hi)
    print('gelu_tanh: %s_H = %r (%s), %s_L = %r (%s)' % (name, float(hi), float.hex(float(hi)), name, lo,
                                                         float.hex(lo)))


# ---- softplus ----
out = subprocess.run(['sollya', 'reference/gen/softplusf.sollya'], capture_output=True, text=True,
                     check=True).stdout
eA = float(re.search(r'< 2\^(-[0-9.]+)', out).group(1))
A = [float.fromhex(h) for h in re.findall(r'(-?0x[0-9a-f.]+p-?[0-9]+)', out)]
assert len(A) == 10
W = Fr(1, 9) + Fr(1, 2 ** 40)
eh = horner_bound(A, W)                        # absolute error of A(w)
Amin = Fr(1, 3)                                # A(w) >= a0 > 1/3 - 2^-54
# t = (s w) A: relative error of A (eh / Amin), w = s^2 (one rounding), s w,
# the product: < eh/Amin + 3u; t < s w A <= s/27 * 1.2 < 0.045 s
t_rel = eh / Amin + 3 * u
# s: e (3u) scaled by 2/(2 + e) <= 1, 2 + e and the division: 5u; L's
# sensitivity to s: s / ((1 - s^2) atanh(s)) at s = 1/3 (its maximum)
s3 = mp.mpf(1) / 3
amp = s3 / ((1 - s3 ** 2) * mp.atanh(s3))
L_rel = float(amp) * 5 + float(Fr(45, 1000) * t_rel / u) + 1 + 2.0 ** eA * 2 ** 53
print('softplus: A Horner abs error %.3g 2^-53, atanh sensitivity %.4f; |L/log1p(e) - 1| < %.3f 2^-53,'
      ' y (x > 0: one more rounding) < %.3f 2^-53; E with the test\'s 2^-53: %.3f 2^-53 <= 16 2^-53'
      % (float(eh / u), float(amp), L_rel, L_rel + 1, L_rel + 2))
assert L_rel + 2 <= 16

# ---- gelu ----
out = subprocess.run(['sollya', 'reference/gen/geluf.sollya'], capture_output=True, text=True,
                     check=True).stdout
pieces, errs = [], []
for m in re.finditer(r'relative error < 2\^(-[0-9.]+) \*/\n\{\n(.*?)\}', out, re.S):
    errs.append(float(m.group(1)))
    pieces.append([float.fromhex(h) for h in re.findall(r'(-?0x[0-9a-f.]+p-?[0-9]+)', m.group(2))])
assert len(pieces) == 29
print('/* gelu S table, from reference/gen/act_cr.py (Sollya: reference/gen/geluf.sollya) */')
for p in pieces:
    for cc in p:
        assert float(repr(cc)) == cc
    print('        {%s},' % ', '.join(repr(cc) for cc in p))
worst = 0.0
for i, p in enumerate(pieces):
    V = Fr(1, 2) if i == 0 else Fr(1, 4)
    hi = mp.mpf(i) / 2 + (mp.mpf(1) / 2 if i == 0 else mp.mpf(3) / 4)
    Smin = Q(hi) * mp.exp(hi ** 2 / 2)        # S decreases
    e_eval = float(horner_bound(p, V) / Fr(float(Smin) * (1 - 2 ** -40)))
    tot = e_eval + 2.0 ** errs[i]
    worst = max(worst, tot)
# Q = e S: e 1.9u, S worst, the product u; x < 0: x Q one more; x > 0:
# 1 - Q (Q <= 1/2: Q's relative error at most, plus u), x (1 - Q) one more
Qe = 1.9 + worst * 2 ** 53 + 1
print('gelu: S within %.3f 2^-53 (evaluation and approximation, worst piece), Q within %.3f 2^-53,'
      ' y within %.3f 2^-53; E with the test: %.3f 2^-53 <= 16 2^-53'
      % (worst * 2 ** 53, Qe, Qe + 2, Qe + 3))
assert Qe + 3 <= 16
