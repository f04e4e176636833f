#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/log1pf.py: error bound of repdl_log1p_f32 (include/repdl/log1p.h).

Run from the repository root (needs mpmath, and sollya on PATH):

    /usr/bin/python3 reference/gen/log1pf.py          # prints the bounds
    /usr/bin/python3 reference/gen/log1pf.py --check  # also checks log1p.h

Two paths (log1p.h), each bounded with logf.py's running error analysis
(every + and * charged one rounding of <= u = 2^-53 of its magnitude; a
fused multiply-add rounds once, so this covers every contraction pattern):

  small, 2^-25 <= |x| <= 2^-8:  y = RN(x + P2~(x)), log.h's polynomial on
      r = x exact: pieces geometric in |x|, as logf.py's interval 76.
  large, |x| > 2^-8, -1 < x:    y = RN(L + corr), L = log.h's y for zf
      (|L / log(zf) - 1| <= eps_e, logf.py's bound over every binary32),
      corr = RN(t - RN(RN(t t) / 2)), t = RN(zl / zf), |t| <= 2^-24 (1 + 2^-23).
      |log(1 + x)| >= min(log(1 + 2^-8), -log(1 - 2^-8)) = Lmin, and
      |log(zf) - log(1 + x)| = |log1p(t)| <= 2^-23.9 (plus, for x >= 2^53,
      |log(z) - log(1 + x)| < 2^-53).  The error of y:
        eps_e |log zf| + |corr~ - log1p(t)| + u |y|,
      relative to |log(1 + x)| >= Lmin, worst at Lmin (each term grows at
      most like |log(1 + x)|).
Then REPDL__LOG1PF_ERR = E must satisfy eps / (1 - eps) <= E - u (1 + E)
(cr.h) and REPDL__LOG1PF_TOL = c: eps (1 + 2^-50) < (c - 1) u.

The fast path tried first (repdl__log1pf_fast, fast_bound below) is log.h's
fast evaluation on z = 1 + x in binary64, bounded by logf.py's analyse_fast
with the rounding of m c counted; its constant REPDL__LOG1PF_FAST_C the same way.
"""
import math
import os
import re
import sys

import mpmath

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import logf  # noqa: E402

U = 2.0 ** -53
UP, DN = logf.UP, logf.DN


def small_bound(coef, eps_approx):
    # log.h's center-interval evaluation on r = x, from |x| = 2^-25
    rel, sign, a = logf.center_bound(coef, eps_approx, 2.0 ** -25)
    return rel, sign * a


def large_bound(eps_e):
    # t = RN(zl / zf): |t| <= T, one rounding
    T = 2.0 ** -24 * (1 + 2.0 ** -23)
    t = (T * UP, U * T * UP)
    tt = logf.mul(t, t)
    h = (tt[0] / 2 * UP, tt[1] / 2 * UP)            # exact halving
    corr = logf.add(t, h)                           # t - h: same bound as t + h
    dcorr = corr[1] + T ** 3 / 3 * UP               # + the dropped log1p(t) terms
    lmin = min(math.log1p(2.0 ** -8), -math.log1p(-2.0 ** -8)) * DN
    lzf = (lmin + T * UP) * UP                      # |log zf| <= |log1p x| + |log1p t| (at lmin)
    # x >= 2^53: z = RN(1 + x), |log z - log(1 + x)| < 2^-53 absolute,
    # against |log(1 + x)| >= 53 ln2 > 36: a relative 2^-53 / 36, added
    # to the worst relative bound (which it cannot reach, being at lmin)
    dz = 2.0 ** -53 / 36 * UP
    d = eps_e * lzf + dcorr
    vy = (lmin + T + d) * UP
    dy = (d + U * (vy + d)) * UP
    return dy / lmin * UP + dz, dcorr


def fast_bound(rows, ln2, ln2err):
    """Bound of repdl__log1pf_fast: z = 1 + x in binary64 (exact for
    2^-25 <= |x| < 2^53, rounded by < 2^-53 z above), y = log.h's
    repdl__log_fast_eval (logf's fast polynomial) on z's own exponent e,
    interval i and binary64 m.  Center interval at e = 0 (z in
    [0.998, 1.0039)): c = 1, m = z, r = x exactly, |x| >= 2^-25.
    Elsewhere m c rounds: |r~ - r| <= u (m c in [1 - 2^-8, 1 + 2^-8]; less
    when fused), and m reaches up to the next interval's first float;
    z >= 2^-24 keeps e >= -25."""
    from fractions import Fraction as F
    rows2 = []
    for r in rows:
        top = logf.f32(logf.OFF + ((r['i'] + 1) << logf.SH))    # open upper end
        assert abs(F(top) * F(r['c']) - 1) <= F(1, 256), r['i']
        rows2.append(dict(r, mhi=top))
    fcoef, _, ferr = logf.fast_poly()
    ef, where = logf.analyse_fast(rows2, 'T', fcoef['a'], ferr['a'], ln2, ln2err, 1.0,
                                  range(-25, 129), dr=U, rmin=2.0 ** -25)
    dz = 2.0 ** -53 / 36 * UP                       # x >= 2^53, as in large_bound
    return ef + dz, where


def main():
    rows = logf.table()
    coef, _, eps_approx = logf.poly()
    ln2 = float(mpmath.log(2))
    ln2err = float(abs(mpmath.mpf(ln2) - mpmath.log(2))) * UP
    eps_e, where = logf.analyse(rows, coef, eps_approx, ln2, ln2err)
    print('log(zf): |L / log(zf) - 1| < %.3f u (logf.py, worst at %s)' % (eps_e / U, where))
    es, ws = small_bound(coef, eps_approx)
    print('small path (|x| <= 2^-8): |y / log1p(x) - 1| < 2^%.3f = %.3f u (worst near x = %r)'
          % (math.log2(es), es / U, ws))
    el, dcorr = large_bound(eps_e)
    print('large path: correction error < 2^%.2f; |y / log1p(x) - 1| < 2^%.3f = %.3f u'
          % (math.log2(dcorr), math.log2(el), el / U))
    eps = max(es, el)
    ok = True
    ef, wf = fast_bound(rows, ln2, ln2err)
    print('fast path: |y / log1p(x) - 1| < 2^%.3f = %.1f u (worst at %s)' % (math.log2(ef), ef / U, wf))
    src = open(os.path.join(os.path.dirname(os.path.dirname(HERE)), 'include', 'repdl', 'log1p.h')).read()
    E = float(re.search(r'#define REPDL__LOG1PF_ERR (\S+)', src).group(1))
    need, room = eps / (1 - eps), E - U * (1 + E)
    print('E = %.3f u: needs eps/(1-eps) = %.3f u <= E - u(1+E) = %.3f u: %s'
          % (E / U, need / U, room / U, 'ok' if need <= room else 'FAILS'))
    ok &= need <= room
    c = int(re.search(r'#define REPDL__LOG1PF_TOL (\d+)u', src).group(1))
    print('c = %d: needs eps (1 + 2^-50) = %.3f u < (c - 1) u: %s'
          % (c, eps * (1 + 2.0 ** -50) / U, 'ok' if eps * (1 + 2.0 ** -50) < (c - 1) * U else 'FAILS'))
    ok &= eps * (1 + 2.0 ** -50) < (c - 1) * U
    cf = int(re.search(r'#define REPDL__LOG1PF_FAST_C (0x[0-9a-f]+)u', src).group(1), 16)
    okf = ef * (1 + 2.0 ** -50) < (cf - 1) * U
    print('fast c = %d: needs eps (1 + 2^-50) = %.1f u < (c - 1) u: %s'
          % (cf, ef * (1 + 2.0 ** -50) / U, 'ok' if okf else 'FAILS'))
    ok &= okf
    # |x| < 2^-25: |log1p(x) - x| <= x^2/2 (1 + |x|) < 2^-26 (1 + 2^-25) |x|,
    # below the smallest relative half-gap next to x, 2^-25
    assert 2.0 ** -26 * (1 + 2.0 ** -25) < 2.0 ** -25
    print('check of log1p.h:', 'ok' if ok else 'FAILED')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
