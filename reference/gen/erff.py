#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/erff.py: the table and the error bound of include/repdl/erf.h.

    /usr/bin/python3 reference/gen/erff.py          (runs sollya on erff.sollya, erff_fast.sollya)
    /usr/bin/python3 reference/gen/erff.py --check  (also checks that erf.h holds it all)

Needs sollya and mpmath.  Prints:
  * the coefficient table of erf.h (decimal, shortest round trip of the
    binary64 coefficients Sollya chose, each asserted);
  * the saturation threshold: the least binary32 x with erfc(x) < 2^-25
    (from there on erf(x) rounds to 1; --check: erf.h's REPDL__ERFF_SAT);
  * per piece, a rigorous bound of the evaluation's rounding error
    (Horner in binary64, u = 2^-53 per operation; a contracted a*b + c
    drops one of the roundings counted, so the bound holds fused or not;
    horner_bound of reference/gen/fperr.py),
    as exact rational arithmetic on |coefficients| and the interval ends,
    plus Sollya's supnorm of the approximation error, relative to erf:
    the total is the bound E of erf.h (plus 2^-53 for repdl__round_ok's
    own products);
  * the fast path's tables (reference/gen/erff_fast.sollya: 65 pieces of
    degree 5, each row with its d) and, per piece, its bound: Estrin's
    scheme and the product by x bounded operation by operation in exact
    rational arithmetic, plus Sollya's supnorm; each piece's bound gives
    its constant c of the rounding test repdl__round_ok_normal.
"""
import os
import re
import struct
import subprocess
import sys
from fractions import Fraction as Fr

import mpmath as mp

from fperr import horner_bound

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
SAT = hi                                              # its bits, for --check

u = Fr(1, 2 ** 53)


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


# ---- the fast path (repdl_erf_f32's first try) ----
out = subprocess.run(['sollya', 'reference/gen/erff_fast.sollya'], capture_output=True,
                     text=True, check=True).stdout
fast = []
for m in re.finditer(r'piece *([0-9]+) *: d = *([-0-9.e]+) *, h = *([-0-9.e]+) *, '
                     r'relative error < 2\^(-[0-9.]+) \*/\n\{\n(.*?)\}', out, re.S):
    cs = [float.fromhex(h) for h in re.findall(r'(-?0x[0-9a-f.]+p-?[0-9]+)', m.group(5))]
    fast.append((int(m.group(1)), Fr(m.group(2)), Fr(m.group(3)), float(m.group(4)), cs))
assert [f[0] for f in fast] == list(range(65)) and all(len(f[4]) == 6 for f in fast)


def piece_ends(j):
    """[lo, hi) of piece j >= 1: binade 2^e, e = (j - 1) // 16 - 2, 16 pieces"""
    e = (j - 1) // 16 - 2
    w = Fr(2) ** e / 16
    lo = Fr(2) ** e + ((j - 1) % 16) * w
    return lo, lo + w


for j, d, h, _, _ in fast:
    if j == 0:
        assert d == 0 and h == Fr(1, 16)
    else:
        lo, hi = piece_ends(j)
        assert d == (lo * lo + hi * hi) / 2 and h == (hi * hi - lo * lo) / 2
        # the index of erf.h: j = (bits(x) >> 19) - 0x7cf for x in [lo, hi)
        e = (j - 1) // 16 - 2
        for x in (lo, hi - Fr(2) ** (e - 23)):            # its least and greatest binary32
            b = struct.unpack('<I', struct.pack('<f', float(x)))[0]
            assert float(x) == x and (b >> 19) - 0x7cf == j


def add(p, q):
    """(bound of |exact|, bound of |computed - exact|) of p + q rounded once"""
    (A, e), (B, f) = p, q
    return A + B, e + f + u * (A + B + e + f)


def mul(p, q):
    (A, e), (B, f) = p, q
    d = A * f + B * e + e * f
    return A * B, d + u * (A * B + d)


def estrin5(c, V):
    """P(v) = (c0 + c1 v) + (c2 + c3 v) v^2 + (c4 + c5 v) v^4 as erf.h computes
    it, for |v| <= V, v exact; every operation rounds once (a contraction
    drops a product's rounding: the bound holds fused or not)"""
    C = [(abs(Fr(x)), Fr(0)) for x in c]
    v = (V, Fr(0))
    v2 = mul(v, v)
    v4 = mul(v2, v2)
    p01 = add(C[0], mul(C[1], v))
    p23 = add(C[2], mul(C[3], v))
    p45 = add(C[4], mul(C[5], v))
    return add(add(p01, mul(p23, v2)), mul(p45, v4))[1]


print('/* fast path: from reference/gen/erff.py (Sollya: reference/gen/erff_fast.sollya);')
print('   P_j\'s c_0 .. c_5, d_j, 0 */')
for j, d, _, _, cs in fast:
    for c in cs:
        assert float(repr(c)) == c
    assert float(d) == d
    print('    {%s},' % ', '.join(repr(c) for c in cs + [float(d), 0.0]))
consts = []
tots = []
for j, d, h, ea, cs in fast:
    # y = x P_j(v), v = x^2 - d exact (x^2: 48 bits; x^2 - d: a multiple of
    # 2^-50 below 2 in magnitude, d a multiple of 2^-13), relative to
    # erf(x) = x Q(x^2): |P_j(v) - Q| <= 2^ea Q, the evaluation's absolute
    # error over min Q on the piece, and the product by x (one rounding)
    if j == 0:
        qmin = mp.erf(mp.mpf(1) / 4) * 4              # Q decreases: min at x = 1/4
    else:
        hi = piece_ends(j)[1]
        hm = mp.mpf(hi.numerator) / hi.denominator
        qmin = mp.erf(hm) / hm
    e_eval = estrin5(cs, h) / Fr(float(qmin) * (1 - 2 ** -40))
    tot = float(e_eval * (1 + u) + u) + 2.0 ** ea * (1 + 2 ** -50)
    need = tot * 2 ** 53 + 1                          # c - 1 >= E 2^53 (detail/cr.h)
    c = 1
    while c < need:
        c *= 2
    consts.append(c)
    tots.append(tot)
    print('fast piece %2d: evaluation %.3f 2^-53, approximation 2^%.2f, total 2^%.2f, c = %d'
          % (j, float(e_eval) * 2 ** 53, ea, mp.log(tot, 2), c))
assert max(consts) < 2 ** 28
print('/* the test constants c_j of repdl__round_ok_normal, j = 0 .. 64 */')
print('    ' + ', '.join('%du' % c for c in consts))
print('fast path: largest bound 2^%.3f (the 16-bit forms\' E, REPDL__ERFF_Y16_ERR, must exceed it)'
      % mp.log(max(tots), 2))

# ---- --check: erf.h holds exactly these tables and constants ----
if '--check' in sys.argv:
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                            'include', 'repdl', 'erf.h')).read()

    def table(name):
        i = src.index(name)
        body = re.sub(r'/\*.*?\*/', '', src[src.index('{', i) + 1:src.index('};', i)], flags=re.S)
        return [float(v) for v in re.findall(r'-?\d+\.\d*(?:e-?\d+)?|-?\d+e-?\d+', body)]

    ok = True
    if table('static const double C[15][12]') != [c for p in pieces for c in p]:
        print('erf.h: the accurate table differs')
        ok = False
    if table('static const double T[65][8]') != [v for _, d, _, _, cs in fast for v in cs + [float(d), 0.0]]:
        print('erf.h: the fast table differs')
        ok = False
    i = src.index('static const uint32_t C[65]')
    if [int(v) for v in re.findall(r'(\d+)u\b', src[src.index('{', i):src.index('};', i)])] != consts:
        print("erf.h: the fast path's test constants differ")
        ok = False
    m = re.search(r'#define REPDL__ERFF_SAT (0x[0-9a-f]+)u', src)
    if not m or int(m.group(1), 16) != SAT:
        print('erf.h: REPDL__ERFF_SAT is not the saturation threshold 0x%08x' % SAT)
        ok = False
    m = re.search(r'#define REPDL__ERFF_Y16_ERR (\S+)', src)
    if not m or not max(tots) < float(m.group(1)):
        print('erf.h: REPDL__ERFF_Y16_ERR is below the fast bound')
        ok = False
    print('check of erf.h:', 'ok' if ok else 'FAILED')
    sys.exit(0 if ok else 1)
