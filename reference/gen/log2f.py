#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/log2f.py: error bound of repdl_log2_f32 (include/repdl/log2.h).

Run from the repository root (needs mpmath, and sollya on PATH):

    /usr/bin/python3 reference/gen/log2f.py          # prints the bound
    /usr/bin/python3 reference/gen/log2f.py --check  # also checks log2.h

log2.h computes y = RN(y_e INVLN2), y_e log.h's approximation of log(x)
(repdl__logf_core) and INVLN2 = RN(1/ln2).  This script reruns logf.py's
analysis of y_e (every exponent, every interval of log.h's table, every
rounding counted, fused or not: |y_e / log(x) - 1| <= eps_e), and composes:
  |y / log2(x) - 1| <= (1 + eps_e)(1 + |INVLN2 ln2 - 1|)(1 + u) - 1 = eps.
Then checks REPDL__LOG2F_ERR = E against cr.h's condition
eps / (1 - eps) <= E - u (1 + E) and the c of repdl__round_ok_normal:
eps (1 + 2^-50) < (c - 1) u.
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


def bound():
    rows = logf.table()
    coef, _, eps_approx = logf.poly()
    ln2 = float(mpmath.log(2))
    ln2err = float(abs(mpmath.mpf(ln2) - mpmath.log(2))) * logf.UP
    eps_e, where = logf.analyse(rows, coef, eps_approx, ln2, ln2err)
    inv = float(1 / mpmath.log(2))
    dinv = float(abs(mpmath.mpf(inv) * mpmath.log(2) - 1)) * logf.UP
    # (1 + eps_e)(1 + dinv)(1 + u) - 1, expanded (1 + tiny is not exact in floats)
    eps = (eps_e + dinv + U + eps_e * dinv + eps_e * U + dinv * U + eps_e * dinv * U) * logf.UP
    return eps_e, where, inv, dinv, eps


def fast():
    """The fast path (log2.h's repdl__log2f_fast): log.h's c_i with
    T2_i = RN(-log2 c_i), y = RN(RN(e + T2) + RN(r t~)), t~ from
    log_fast.sollya's b1..b4, bounded by logf.py's analyse_fast."""
    rows = logf.table()
    for r in rows:
        tex = -mpmath.log(mpmath.mpf(r['c']), 2)
        r['T2'] = float(tex)
        r['T2err'] = float(abs(mpmath.mpf(r['T2']) - tex)) * logf.UP
    fcoef, _, ferr = logf.fast_poly()
    fw, where = logf.analyse_fast(rows, 'T2', fcoef['b'], ferr['b'], 1.0, 0.0, math.log(2),
                                  range(-126, 129))
    return rows, fcoef['b'], ferr['b'], fw, where, logf.fast_tol(fw)


def main():
    eps_e, where, inv, dinv, eps = bound()
    print('log(x):  |y_e / log(x) - 1| < 2^%.3f = %.3f u (logf.py, worst at %s)'
          % (math.log2(eps_e), eps_e / U, where))
    print('INVLN2 = %r = %s, |INVLN2 ln2 - 1| < %.3f u' % (inv, inv.hex(), dinv / U))
    print('log2(x): |y / log2(x) - 1| < 2^%.3f = %.3f u' % (math.log2(eps), eps / U))
    ok = True
    src = open(os.path.join(os.path.dirname(os.path.dirname(HERE)), 'include', 'repdl', 'log2.h')).read()
    m = re.search(r'#define REPDL__LOG2F_ERR (\S+)', src)
    E = float(m.group(1))
    need, room = eps / (1 - eps), E - U * (1 + E)
    print('E = %r = %.3f u: needs eps/(1-eps) = %.3f u <= E - u(1+E) = %.3f u: %s'
          % (E, E / U, need / U, room / U, 'ok' if need <= room else 'FAILS'))
    ok &= need <= room
    m = re.search(r'#define REPDL__LOG2F_TOL (\d+)u', src)
    c = int(m.group(1))
    print('c = %d: needs eps (1 + 2^-50) = %.3f u < (c - 1) u: %s'
          % (c, eps * (1 + 2.0 ** -50) / U, 'ok' if eps * (1 + 2.0 ** -50) < (c - 1) * U else 'FAILS'))
    ok &= eps * (1 + 2.0 ** -50) < (c - 1) * U
    rows, fb, ferr, fw, fwhere, fc = fast()
    print('fast path: b1..b4 (log_fast.sollya, relative error < 2^%.2f) = %s'
          % (math.log2(ferr), ', '.join(repr(v) for v in fb)))
    print('fast path: |y / log2(x) - 1| < 2^%.3f = %.1f u (worst at %s): c = 0x%x' % (math.log2(fw), fw / U, fwhere, fc))
    if '--table' in sys.argv:
        for r in rows:
            print('        %r, %r, /* %3d */' % (r['c'], r['T2'], r['i']))
    if '--check' in sys.argv:
        code = re.sub(r'/\*.*?\*/', '', src, flags=re.S)
        for r in rows:
            if '%r, %r,' % (r['c'], r['T2']) not in code:
                print('log2.h lacks the table row', r['i'])
                ok = False
        for v in fb:
            if repr(v) not in code:
                print('log2.h lacks the fast coefficient', repr(v))
                ok = False
        hc = int(re.search(r'#define REPDL__LOG2F_FAST_C (0x[0-9a-f]+)u', src).group(1), 16)
        if hc != fc:
            print('log2.h: REPDL__LOG2F_FAST_C is not 0x%x' % fc)
            ok = False
        if repr(inv) not in code:
            print('log2.h lacks INVLN2 =', repr(inv))
            ok = False
        print('check of log2.h:', 'ok' if ok else 'FAILED')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
