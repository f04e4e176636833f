#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/exp2f.py: polynomial, thresholds and error bound of
repdl_exp2_f32 (include/repdl/exp2.h).

    /usr/bin/python3 reference/gen/exp2f.py            # print everything
    /usr/bin/python3 reference/gen/exp2f.py --check    # also check exp2.h holds it

Needs mpmath (python3-mpmath) and sollya (reference/gen/exp2f.sollya gives
the coefficients and their approximation error).  Reuses expf.py's table
(exp.h's T, shared) and its forward error analysis (class Bound).

What it derives:
  * the coefficients e1..e4 of q(d), 1 + q(d) ~ 2^(d/256) on |d| <= 1/2;
  * a bound of |y / 2^x - 1| for exp2.h's y = s + s q, s = 2^(k>>8) T[k&255],
    d = 256 x - k exact, on sub-intervals of d, for either contraction
    pattern (each a*b+c charged two roundings, which covers one);
    the bound is relative, and every operation scales with s, so s = 1
    (times T[j]'s own error, charged as tabrel) covers every k;
  * the overflow and underflow thresholds, and that -150 < x < 128 keeps
    w = 256 x and k>>8 in the ranges exp2.h assumes.
"""
import os
import re
import sys

import mpmath as mp

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import expf  # noqa: E402  (Bound, table, sollya_poly, helpers)

from expf import Bound, U, bfloat, fbits, hexf, log2  # noqa: E402


def exp2f_bound(verbose=True):
    coeffs, perr, _ = expf.sollya_poly('exp2f.sollya', ['e1', 'e2', 'e3', 'e4'])
    e = [hexf(coeffs['e%d' % i]) for i in range(1, 5)]
    _, _, tabrel = expf.table()
    worst = mp.mpf(0)
    NS = 256
    H = mp.mpf(1) / 2
    S = Bound.const(1)
    for i in range(NS):
        dl, dh = -H + i / mp.mpf(NS), -H + (i + 1) / mp.mpf(NS)
        dd = Bound(dl, dh)
        d2 = dd.sq()
        a = Bound.const(e[0]).add(dd.mul(Bound.const(e[1])))
        b = Bound.const(e[2]).add(dd.mul(Bound.const(e[3])))
        q = dd.mul(a.add(d2.mul(b)))
        y = S.add(S.mul(q))
        ymin = mp.mpf(2) ** (dl / 256) * (1 - perr)
        ev = y.err / ymin
        tot = (1 + ev) * (1 + perr) * (1 + tabrel) - 1
        worst = max(worst, tot)
    E = worst + U
    if verbose:
        print("exp2f: polynomial error < 2^%.2f, table error < %.4f 2^-53" % (log2(perr), tabrel / U))
        print("exp2f: |y / 2^x - 1| < 2^%.3f = %.3f 2^-53; with round_ok's rounding E >= 2^%.3f = %.3f 2^-53"
              % (log2(worst), worst / U, log2(E), E / U))
    return worst, E, coeffs


def thresholds():
    # every x < 128 has 2^x below the overflow boundary FLT_MAX + ulp/2 =
    # 2^128 (1 - 2^-25): the largest such x is 128 - 2^-17
    xmax = mp.mpf(bfloat(0x42ffffff))
    assert xmax == 128 - mp.mpf(2) ** -17
    assert mp.mpf(2) ** xmax < mp.mpf(2) ** 128 * (1 - mp.mpf(2) ** -25)
    assert mp.mpf(2) ** xmax < mp.mpf(2) ** 128 * (1 - mp.mpf(2) ** -18)
    # x = -150: 2^-150 is the midpoint of +0 and 2^-149 (a tie, to +0);
    # x in (-150, -149): (2^-150, 2^-149), rounds up to 2^-149
    assert bfloat(0xc3160000) == -150.0 and bfloat(0x43000000) == 128.0
    assert bfloat(0xc2fc0000) == -126.0
    # w = 256 x exact, |w| < 38400 < 2^51 (the 0x1.8p52 rounding trick);
    # k >> 8 in [-150, 128]: s = 2^(k>>8) T[j] a normal double
    assert 256 * 150 <= 38400
    return 0x43000000, 0xc3160000


TOL = 4                                           # REPDL__EXP2F_TOL


def main():
    check = '--check' in sys.argv
    worst, E, coeffs = exp2f_bound()
    for i in range(1, 5):
        print("e%d = %s (%r)" % (i, coeffs['e%d' % i], float.fromhex(coeffs['e%d' % i])))
    ovf, unf = thresholds()
    print("overflow: x >= 128 (0x%08x) -> +inf; underflow: x <= -150 (0x%08x) -> +0" % (ovf, unf))
    c = int(mp.ceil(worst * (1 + mp.mpf(2) ** -50) / U)) + 1
    print("repdl__round_ok_normal needs c >= %d" % c)
    ok = True
    if check:
        src = open(os.path.join(ROOT, 'include', 'repdl', 'exp2.h')).read()
        code, vals = expf.header_numbers(src)
        for i in range(1, 5):
            v = float.fromhex(coeffs['e%d' % i])
            if v not in vals:
                print("exp2.h lacks e%d = %r" % (i, v))
                ok = False
        m = re.search(r'#define REPDL__EXP2F_ERR (\S+)', src)
        if not m or not E <= mp.mpf(float(m.group(1))):
            print("REPDL__EXP2F_ERR is below the bound")
            ok = False
        m = re.search(r'#define REPDL__EXP2F_TOL (\d+)u', src)
        if not m or int(m.group(1)) < c:
            print("REPDL__EXP2F_TOL is below %d" % c)
            ok = False
        for n in ['0x%08xu' % ovf, '0x%08xu' % unf, '0xc2fc0000u']:
            if n not in code:
                print("exp2.h lacks", n)
                ok = False
        print("check of exp2.h:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
