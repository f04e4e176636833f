#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/expm1f.py: thresholds and error bound of repdl_expm1_f32
(include/repdl/expm1.h).

    /usr/bin/python3 reference/gen/expm1f.py            # print everything
    /usr/bin/python3 reference/gen/expm1f.py --check    # also check expm1.h

Needs mpmath and sollya (reference/gen/tanhf.sollya: the polynomial q and
its error).  Reuses expf.py's table, reduction bound and class Bound.

The bound: for every k of the approximation domain (x = k ln2/256 + r,
XLO <= x <= 0x1.62e42ep6) and sub-intervals of r, forward error analysis of
  r2 = r r; a = d2 + d3 r; b = d4 + d5 r; c = a + r2 b;
  v = r + (rho + rho r); w = v + r2 c;  y = (s - 1) + s w
(each a*b+c charged two roundings, which covers one; s - 1 exact for s in
[1/2, 2^53), charged one rounding otherwise), plus:
  * the reduction: |r - r*| <= dr (expf.py; 0 for k = 0, where r = x),
    which moves e^x by e^x dr (1 + 2^-40);
  * the polynomial: |q(r) - expm1(r)| <= 2^-61.11 |expm1(r)|, times s;
  * the table: s (1 + rho) = 2^(k/256) (1 + tau), |tau| < 2^-106;
  * the dropped rho (q - r) = rho r2 c: < 2^-53 s r^2.
each divided by min |e^x - 1| over the piece.
"""
import os
import re
import sys
import struct

import mpmath as mp

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import expf  # noqa: E402

from expf import Bound, U, bfloat, fbits, hexf, log2  # noqa: E402

OVF = 0x42b17217          # 0x1.62e42ep6


def thresholds():
    # overflow: the largest x with e^x - 1 < 2^128 (1 - 2^-25)
    lim = mp.log(mp.mpf(2) ** 128 * (1 - mp.mpf(2) ** -25) + 1)
    b = fbits(float(lim))
    while mp.mpf(bfloat(b)) >= lim:
        b -= 1
    while mp.mpf(bfloat(b + 1)) < lim:
        b += 1
    assert b == OVF, hex(b)
    # -1: x < -25 ln2 gives e^x < 2^-25, e^x - 1 in (-1, -1 + 2^-25): -1.
    # XLO = the most negative binary32 above -25 ln2 (its bits are the
    # largest negative pattern that takes the approximation path)
    lim = -25 * mp.log(2)
    b = fbits(float(lim))
    while mp.mpf(bfloat(b)) < lim:        # negative: larger bits, more negative
        b -= 1
    while mp.mpf(bfloat(b + 1)) > lim:
        b += 1
    xlo = b
    assert mp.mpf(bfloat(xlo)) > lim and mp.mpf(bfloat(xlo + 1)) < lim
    # |x| < 2^-25: |expm1(x) - x| <= x^2/2 (1 + |x|) < 2^-26 (1 + 2^-25) |x|,
    # below the smallest relative half-gap next to x, 2^-25
    assert mp.mpf(2) ** -26 * (1 + mp.mpf(2) ** -25) < mp.mpf(2) ** -25
    return OVF, xlo


def bound(xlo, verbose=True):
    mp.mp.prec = 300
    coeffs, perr, _ = expf.sollya_poly('tanhf.sollya', ['d2', 'd3', 'd4', 'd5'])
    dc = [hexf(coeffs['d%d' % i]) for i in range(2, 6)]
    hi_bits, rho, _ = expf.table()
    A = expf.A_R
    xmin = mp.mpf(bfloat(xlo))
    xmax = mp.mpf(bfloat(OVF))
    L = mp.log(2) / 256
    kmin = int(mp.nint(xmin / L)) - 1
    kmax = int(mp.nint(xmax / L)) + 1
    dr = expf.reduction_error(max(-kmin, kmax))
    expf.reduction_checks(max(-kmin, kmax))
    mp.mp.prec = 128
    worst, where = mp.mpf(0), None
    tiny = mp.mpf(2) ** -25
    C = [Bound.const(c) for c in dc]
    for k in range(kmin, kmax + 1):
        j = k & 255
        s = mp.mpf(struct.unpack('<d', struct.pack('<Q', hi_bits[j] + (j << 44)))[0]) * mp.mpf(2) ** (k >> 8)
        S = Bound.const(s)
        R0 = Bound.const(rho[j])
        if k == 0:
            pieces = []
            for sg in (1, -1):
                a = tiny
                while a < A:
                    b = min(a * (1 + mp.mpf(2) ** -4), A)
                    pieces.append((a, b) if sg > 0 else (-b, -a))
                    a = b
            drk = mp.mpf(0)
        else:
            NS = 64 if abs(k) <= 4 else 4
            pieces = [(-A + 2 * A * i / NS, -A + 2 * A * (i + 1) / NS) for i in range(NS)]
            drk = dr
        for (rlo, rhi) in pieces:
            xl, xh = k * L + rlo - drk, k * L + rhi + drk
            if xh < xmin or xl > xmax:
                continue
            r = Bound(rlo, rhi)
            r2 = r.sq()
            a = C[0].add(r.mul(C[1]))
            b = C[2].add(r.mul(C[3]))
            c = a.add(r2.mul(b))
            v = r.add(R0.add(R0.mul(r)))
            w = v.add(r2.mul(c))
            sm1 = S.sub(Bound.const(1), exact=(mp.mpf(1) / 2 <= s < mp.mpf(2) ** 53))
            y = sm1.add(S.mul(w))
            fmin = min(abs(mp.expm1(max(xl, xmin))), abs(mp.expm1(min(xh, xmax))))
            if xl < 0 < xh:
                raise AssertionError("piece contains 0")
            ex = mp.exp(min(xh, xmax))
            rm = max(abs(rlo), abs(rhi))
            err = (y.err + ex * drk * (1 + mp.mpf(2) ** -40)
                   + s * (1 + abs(rho[j])) * perr * mp.expm1(rm) * 2
                   + ex * mp.mpf(2) ** -105 + s * U * rm * rm)
            rel = err / fmin
            if rel > worst:
                worst, where = rel, (k, float(rlo))
    mp.mp.prec = 300
    if verbose:
        print("expm1f: polynomial error < 2^%.2f (tanhf.sollya's q), reduction error < 2^%.3f"
              % (log2(perr), log2(dr)))
        print("expm1f: |y / expm1(x) - 1| < 2^%.3f = %.3f 2^-53 (worst at k, r = %s), k in [%d, %d]"
              % (log2(worst), worst / U, where, kmin, kmax))
    return worst, coeffs


FAST_MID = 0x3d800000     # 1/16: below, the polynomial; above, exp.h's fast path
FAST_XMAX = 0x42ae0000    # 87: repdl__expf_fast's domain
FAST_C = 0x2000           # REPDL__EXPM1F_FAST_C


def fast_bound(verbose=True):
    """Bound of repdl__expm1f_fast, the path tried first on 2^-25 <= |x| <= 87:
      |x| >= 1/16:  y = RN(E - 1), E = repdl__expf_fast(x), |E / e^x - 1| < eta
                    (expf.py); |y - expm1(x)| <= eta e^x + u |E - 1|, and
                    e^x / |e^x - 1| <= 1 / (1 - e^(-1/16)) on both sides;
      |x| < 1/16:   y = x + x2 p, x2 = x x, p = (g2 + g3 x) + x2 ((g4 + g5 x)
                    + x2 g6) (expm1f_fast.sollya, |p~/expm1 - 1| <= ea), each
                    operation charged a rounding (so fused or not), on pieces
                    geometric in |x| from 2^-25, relative to min |expm1(x)|."""
    mp.mp.prec = 300
    eta, _ = expf.expf_fast_bound(verbose=False)
    F = 1 / (1 - mp.exp(-mp.mpf(1) / 16))
    big = eta * F + U * (1 + eta * F)
    coeffs, ea, _ = expf.sollya_poly('expm1f_fast.sollya', ['g%d' % i for i in range(2, 7)])
    g = [Bound.const(hexf(coeffs['g%d' % i])) for i in range(2, 7)]
    mp.mp.prec = 128
    small, where = mp.mpf(0), None
    top = mp.mpf(bfloat(FAST_MID))
    for sg in (1, -1):
        a = mp.mpf(2) ** -25
        while a < top:
            b = min(a * (1 + mp.mpf(2) ** -6), top)
            lo, hi = (a, b) if sg > 0 else (-b, -a)
            x = Bound(lo, hi)
            x2 = x.sq()
            q0 = g[0].add(x.mul(g[1]))
            q2 = g[2].add(x.mul(g[3])).add(x2.mul(g[4]))
            y = x.add(x2.mul(q0.add(x2.mul(q2))))
            fmin = min(abs(mp.expm1(lo)), abs(mp.expm1(hi)))
            fmax = max(abs(mp.expm1(lo)), abs(mp.expm1(hi)))
            rel = (y.err + ea * fmax) / fmin
            if rel > small:
                small, where = rel, float(lo)
            a = b
    mp.mp.prec = 300
    worst = max(big, small)
    c = int(mp.ceil(worst * (1 + mp.mpf(2) ** -50) / U)) + 1
    if verbose:
        print("expm1f fast: |x| >= 1/16: eta = 2^%.3f (expf.py), |y / expm1(x) - 1| < 2^%.3f = %.1f 2^-53"
              % (log2(eta), log2(big), big / U))
        print("expm1f fast: |x| < 1/16: polynomial error < 2^%.2f (expm1f_fast.sollya), "
              "|y / expm1(x) - 1| < 2^%.3f = %.1f 2^-53 (worst near x = %r)"
              % (log2(ea), log2(small), small / U, where))
        print("expm1f fast: repdl__round_ok_normal needs c >= %d; c = 0x%x fails with probability about 2^%.1f"
              % (c, FAST_C, log2(mp.mpf(2 * FAST_C + 1) / 2 ** 29)))
    return worst, c, coeffs


def main():
    check = '--check' in sys.argv
    ovf, xlo = thresholds()
    print("overflow: x > %s (0x%08x) -> +inf; x < %s (0x%08x the last one above) -> -1"
          % (float(bfloat(ovf)).hex(), ovf, float(bfloat(xlo)).hex(), xlo))
    worst, coeffs = bound(xlo)
    E = worst / (1 - worst) + U * 1.0000001
    c = int(mp.ceil(worst * (1 + mp.mpf(2) ** -50) / U)) + 1
    print("E >= %.3f 2^-53; repdl__round_ok_normal needs c >= %d" % (E / U, c))
    fworst, fc, fcoeffs = fast_bound()
    ok = fc <= FAST_C
    if check:
        src = open(os.path.join(ROOT, 'include', 'repdl', 'expm1.h')).read()
        code, vals = expf.header_numbers(src)
        for i in range(2, 6):
            v = float.fromhex(coeffs['d%d' % i])
            if v not in vals:
                print("expm1.h lacks d%d = %r" % (i, v))
                ok = False
        Eh = float(re.search(r'#define REPDL__EXPM1F_ERR (\S+)', src).group(1))
        if not (worst / (1 - worst) <= Eh - U * (1 + Eh)):
            print("REPDL__EXPM1F_ERR is below the bound")
            ok = False
        ch = int(re.search(r'#define REPDL__EXPM1F_TOL (\d+)u', src).group(1))
        if ch < c:
            print("REPDL__EXPM1F_TOL is below %d" % c)
            ok = False
        for i in range(2, 7):
            v = float.fromhex(fcoeffs['g%d' % i])
            if v not in vals:
                print("expm1.h lacks g%d = %r" % (i, v))
                ok = False
        fh = int(re.search(r'#define REPDL__EXPM1F_FAST_C (0x[0-9a-f]+)u', src).group(1), 16)
        if fh != FAST_C:
            print("REPDL__EXPM1F_FAST_C is not 0x%x" % FAST_C)
            ok = False
        for n in ['0x%08xu' % ovf, '0x%08xu' % xlo, '0x33000000u', '0x%08xu' % FAST_MID,
                  '0x%08xu' % (FAST_XMAX - 0x33000000)]:
            if n not in code:
                print("expm1.h lacks", n)
                ok = False
        print("check of expm1.h:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
