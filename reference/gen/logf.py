#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/logf.py: table, polynomial and error bound of repdl_log_f32
(include/repdl/log.h).

Run from the repository root (needs mpmath, and sollya on PATH):

    /usr/bin/python3 reference/gen/logf.py          # prints the C fragments
    /usr/bin/python3 reference/gen/logf.py --check  # also checks log.h holds them

What it does:
 1. Builds the 128-entry table {c_i, T_i} of log.h.  x = 2^e m with
    m in [OFF, 2 OFF), OFF = 0x1.67p-1 (float bits 0x3f338000); the index i is
    the top 7 bits of (bits(m) - 0x3f338000), so interval i holds the floats
    whose bits are in [0x3f338000 + i 2^16, 0x3f338000 + (i+1) 2^16).  1.0 lies
    in the middle of interval 76, whose c is exactly 1 (and T exactly 0), so
    that near x = 1 the result is log1p(x - 1) with x - 1 exact: no
    cancellation.  Elsewhere c_i is 2/(lo + hi) rounded to binary32 (24
    bits), so m*c_i is exact in binary64 (24 + 24 bits) and r = m c_i - 1 is
    exact too (Sterbenz: m c_i is in [1/2, 2]).  T_i = RN64(-log(c_i)).
    Asserts |r| <= 2^-8 on every interval: the polynomial's domain.
 2. Runs reference/gen/logf.sollya for the polynomial and its rigorous
    approximation error.
 3. Bounds the relative error of y against log(x) for every exponent e and
    every interval i (split into pieces), with every rounding of log.h's
    evaluation counted (each + and * rounds with relative error <= u =
    2^-53; a fused multiply-add rounds once, so the bound for the unfused
    evaluation covers every contraction pattern).  Prints the largest bound
    and checks that REPDL__LOGF_ERR = 2^-50 leaves room for the rounding
    test's own two products (cr.h).

Magnitudes in step 3 are computed in binary64 and widened by a factor
1 +- 2^-40, far above binary64's own evaluation error, so the bound is an
upper bound.
"""
import math
import re
import struct
import subprocess
import sys

import mpmath

mpmath.mp.prec = 200

OFF = 0x3F338000
K = 7
N = 1 << K
SH = 23 - K
CENTER = (0x3F800000 - OFF) >> SH
U = 2.0 ** -53
E_CLAIM = 2.0 ** -50
UP = 1 + 2.0 ** -40
DN = 1 - 2.0 ** -40


def f32(bits):
    return struct.unpack('<f', struct.pack('<I', bits))[0]


def rn24(v):
    return struct.unpack('<f', struct.pack('<f', v))[0]


def table():
    rows = []
    for i in range(N):
        lo_b = OFF + (i << SH)
        hi_b = lo_b + (1 << SH) - 1
        mlo, mhi = f32(lo_b), f32(hi_b)
        if i == CENTER:
            assert mlo < 1.0 < mhi
            c = 1.0
        else:
            c = rn24(2.0 / (mlo + mhi))
        # r = m c - 1: m and c have 24 bits, so m c is exact in binary64;
        # check the range exactly with rationals.
        from fractions import Fraction as F
        rlo = F(mlo) * F(c) - 1
        rhi = F(mhi) * F(c) - 1
        assert abs(rlo) <= F(1, 256) and abs(rhi) <= F(1, 256), (i, rlo, rhi)
        assert F(1, 2) <= F(mlo) * F(c) and F(mhi) * F(c) <= 2
        tex = -mpmath.log(mpmath.mpf(c))
        t = float(tex)  # mpmath rounds to nearest
        terr = float(abs(mpmath.mpf(t) - tex))
        rows.append(dict(i=i, mlo=mlo, mhi=mhi, c=c, T=t, Terr=terr,
                         rlo=float(rlo), rhi=float(rhi)))
    return rows


def poly():
    out = subprocess.run(['sollya', 'reference/gen/logf.sollya'],
                         capture_output=True, text=True, check=True).stdout
    a = {}
    for line in out.splitlines():
        m = re.match(r'(a\d|relerr) = (\S+)', line)
        if m:
            a[m.group(1)] = m.group(2)
    coef = [float.fromhex(a['a%d' % k]) for k in range(2, 7)]
    assert all(float(mpmath.mpf(c)) == c for c in coef)
    # widen the rigorous bound when shortening it to a double
    eps = float.fromhex(a['relerr']) * UP
    return coef, [a['a%d' % k] for k in range(2, 7)], eps


# ---- running error analysis -------------------------------------------
# A node is (V, D): V bounds |exact value|, D bounds |computed - exact|.
def mul(A, B):
    va, da = A
    vb, db = B
    v = va * vb
    d = va * db + vb * da + da * db
    return (v * UP, (d + U * (v + d)) * UP)


def add(A, B):
    va, da = A
    vb, db = B
    v = va + vb
    d = da + db
    return (v * UP, (d + U * (v + d)) * UP)


def const(c):
    return (abs(c), 0.0)


def p2_error(coef, R):
    """Bounds for P2 = r^2 q(r), |r| <= R, evaluated as in log.h:
         r2 = r*r;  q0 = a2 + a3*r;  q1 = a4 + a5*r;  r4 = r2*r2;
         u1 = q1 + r2*a6;  P2 = r2*q0 + r4*u1.
    Returns (bound on |P2|, bound on |P2~ - P2|)."""
    a2, a3, a4, a5, a6 = (const(c) for c in coef)
    r = (R, 0.0)
    r2 = mul(r, r)
    q0 = add(a2, mul(a3, r))
    q1 = add(a4, mul(a5, r))
    r4 = mul(r2, r2)
    u1 = add(q1, mul(r2, a6))
    return add(mul(r2, q0), mul(r4, u1))


def pieces(rows, erange, nnear, nfar, dr):
    """Every piece of the analyses: (row, e, a, b, ra, rb, R) for each
    interval (row) but the center one at e = 0, each e in erange, and m in
    [a, b], the interval cut in nnear pieces for |e| <= 2 and nfar
    otherwise; r from ra = a c - 1 to rb = b c - 1, |r| <= R (dr added for
    a binary64 m, whose m c rounds)."""
    for row in rows:
        c = row['c']
        for e in erange:
            if e == 0 and row['i'] == CENTER:
                continue
            npieces = nnear if abs(e) <= 2 else nfar
            mlo, mhi = row['mlo'], row['mhi']
            for k in range(npieces):
                a = mlo + (mhi - mlo) * k / npieces
                b = mlo + (mhi - mlo) * (k + 1) / npieces
                ra, rb = a * c - 1, b * c - 1
                yield row, e, a, b, ra, rb, max(abs(ra), abs(rb)) * UP + 2.0 ** -80 + dr


def center_bound(coef, eps_approx, rmin):
    """Largest bound on |y~ / log1p(r) - 1| for y~ = RN(r + P2~), r exact
    (log.h's center interval at e = 0, where s~ = +0 and s~ + r = r; and
    log1p.h's small path), over pieces geometric in |r| from rmin to 2^-8;
    returns (bound, sign, a) of the worst piece [a, b] (sign * r)."""
    worst = (0.0, None, None)
    for sign in (1, -1):
        a = rmin
        while a < 2.0 ** -8:
            b = min(a * (1 + 2.0 ** -8), 2.0 ** -8)
            _, dp2 = p2_error(coef, b)
            lmin = abs(math.log1p(sign * a)) * DN
            lmax = abs(math.log1p(sign * b)) * UP
            d = dp2 + eps_approx * lmax             # |r + P2~ - log1p(r)|
            dy = (d + U * (lmax + d)) * UP
            rel = dy / lmin * UP
            if rel > worst[0]:
                worst = (rel, sign, a)
            a = b
    return worst


def analyse(rows, coef, eps_approx, ln2, ln2err):
    """Largest bound on |y~ / log(x) - 1|, y~ = RN(RN(s~ + r) + P2~),
    s~ = RN(RN(e*LN2) + T) (each RN absent when fused)."""
    # Center interval, e = 0: from the smallest |r| (2^-24: x = 1 - 2^-24)
    rel, sign, a = center_bound(coef, eps_approx, 2.0 ** -24)
    worst = (rel, ('center', sign, a))

    def note(rel, where):
        nonlocal worst
        if rel > worst[0]:
            worst = (rel, where)

    for row, e, a, b, ra, rb, R in pieces(rows, range(-149, 129), 256, 4, 0.0):
        c, t, terr = row['c'], row['T'], row['Terr']
        L1 = max(abs(math.log1p(ra)), abs(math.log1p(rb))) * UP
        vp2, dp2 = p2_error(coef, R)
        la = e * ln2 + math.log(a)
        lb = e * ln2 + math.log(b)
        assert la * lb > 0, (row['i'], e)     # log x keeps its sign
        lmin = min(abs(la), abs(lb)) * DN - 2.0 ** -60
        lmax = max(abs(la), abs(lb)) * UP + 2.0 ** -60
        assert lmin > 0
        if e == 0:
            # s = 0*LN2 + T = T exactly (also when fused)
            ds = terr
        else:
            vm = abs(e) * ln2 * UP
            dm = abs(e) * ln2err + U * vm    # e*LN2: LN2's error, one rounding
            vs = abs(e * ln2 - math.log(c)) * UP + 2.0 ** -60
            ds = (dm + terr + U * (vs + dm + terr)) * UP
        # s + r: exact value e ln2 - log c + r = log x - (log1p(r) - r),
        # so its magnitude is below lmax + |log1p(r) - r| <= lmax + vp2(1 + 2^-40).
        vsr = lmax + vp2 * UP + eps_approx * L1
        dsr = (ds + U * (vsr + ds)) * UP
        d = dsr + dp2 + eps_approx * L1       # |s~r + P2~ - log x|
        dy = (d + U * (lmax + d)) * UP       # y = s~r + P2~, one rounding
        note(dy / lmin * UP, (row['i'], e, a))
    return worst


# ---- the fast paths (log.h, log2.h, log1p.h) -----------------------------
def fast_poly():
    """log_fast.sollya: {'a': [a1..a4], 'b': [b1..b4]} (doubles), their hex
    texts, and the rigorous relative errors {'a': ..., 'b': ...}."""
    out = subprocess.run(['sollya', 'reference/gen/log_fast.sollya'],
                         capture_output=True, text=True, check=True).stdout
    txt = dict(re.findall(r'^([ab]\d) = (\S+)$', out, re.M))
    coef = {k: [float.fromhex(txt['%s%d' % (k, j)]) for j in range(1, 5)] for k in 'ab'}
    err = {'a': 2.0 ** float(re.search(r'^log relative error < 2\^(\S+)$', out, re.M).group(1)) * UP,
           'b': 2.0 ** float(re.search(r'^log2 relative error < 2\^(\S+)$', out, re.M).group(1)) * UP}
    return coef, txt, err


def fast_p(coef, R):
    """(V, D) of p = r t, t = (c1 + c2 r) + r2 (c3 + c4 r), r2 = r r, for
    |r| <= R, r exact: as log.h's repdl__log_fast_eval evaluates it."""
    c1, c2, c3, c4 = (const(c) for c in coef)
    r = (R, 0.0)
    r2 = mul(r, r)
    t = add(add(c1, mul(c2, r)), mul(r2, add(c3, mul(c4, r))))
    return mul(r, t)


def analyse_fast(rows, tkey, coef, eps, K, Kerr, lnb, erange, dr=0.0, rmin=2.0 ** -24):
    """Largest bound on |y~ / log_b(x) - 1| (lnb = ln b: 1 for log, ln 2 for
    log2) for y~ = RN(s~ + RN(r~ t~)), s~ = RN(RN(e K) + T) (T = row[tkey],
    K = LN2 for log, 1 for log2 (e K exact), |K - ln2/lnb| <= Kerr), each
    operation charged one rounding (so fused or not), for e in erange.
    Center interval at e = 0: s~ = +0, y~ = RN(r t~) with r = x - 1 exact,
    |r| from rmin.  Elsewhere, as analyse: r~ within dr of r (0 when m is
    a binary32)."""
    worst = (0.0, None)

    def note(rel, where):
        nonlocal worst
        if rel > worst[0]:
            worst = (rel, where)

    for sign in (1, -1):
        a = rmin
        while a < 2.0 ** -8:
            b = min(a * (1 + 2.0 ** -8), 2.0 ** -8)
            _, dp = fast_p(coef, b)
            lmin = abs(math.log1p(sign * a)) / lnb * DN
            lmax = abs(math.log1p(sign * b)) / lnb * UP
            note((dp + eps * lmax) / lmin * UP, ('center', sign, a))
            a = b
    for row, e, a, b, ra, rb, R in pieces(rows, erange, 64, 2, dr):
        c, t, terr = row['c'], row[tkey], row[tkey + 'err']
        L1 = (max(abs(math.log1p(ra)), abs(math.log1p(rb))) * UP + 2 * dr) / lnb * UP
        dlog = dr / (1 - R) / lnb * UP
        vp, dp = fast_p(coef, R)
        la = (e * math.log(2) + math.log(a)) / lnb
        lb = (e * math.log(2) + math.log(b)) / lnb
        assert la * lb > 0, (row['i'], e)
        lmin = min(abs(la), abs(lb)) * DN - 2.0 ** -60
        lmax = max(abs(la), abs(lb)) * UP + 2.0 ** -60
        assert lmin > 0
        if e == 0:
            ds = terr                        # s = 0 K + T = T
        else:
            vm = abs(e) * K * UP
            dm = abs(e) * Kerr + (U * vm if K != 1.0 else 0.0)
            vs = (abs(e) * math.log(2) / lnb + abs(math.log(c)) / lnb) * UP + 2.0 ** -60
            ds = (dm + terr + U * (vs + dm + terr)) * UP
        d = ds + dp + eps * L1 + dlog       # |s~ + p~ - log_b x|
        dy = (d + U * (lmax + d)) * UP      # the final sum rounds
        note(dy / lmin * UP, (row['i'], e, a))
    return worst


def fast_tol(eps):
    """smallest power of two c with eps (1 + 2^-50) < (c - 1) u (cr.h)"""
    c = 2
    while not eps * (1 + 2.0 ** -50) < (c - 1) * U:
        c *= 2
    return c


def hx(v):
    """C hex-float literal of a double, without trailing zeros."""
    if v == 0:
        return '0x0p+0'
    m = re.match(r'(-?0x[01])\.?([0-9a-f]*?)0*(p[-+]\d+)$', v.hex())
    return m.group(1) + ('.' + m.group(2) if m.group(2) else '') + m.group(3)


def c_table(rows):
    lines = []
    for r in rows:
        lines.append('        %s, %s, /* %3d: m in [%.6f, %.6f] */' % (
            hx(r['c']), hx(r['T']), r['i'], r['mlo'], r['mhi']))
    return '\n'.join(lines)


def main():
    rows = table()
    coef, coef_txt, eps_approx = poly()
    ln2 = float(mpmath.log(2))
    ln2err = float(abs(mpmath.mpf(ln2) - mpmath.log(2))) * UP
    rmax = max(max(abs(r['rlo']), abs(r['rhi'])) for r in rows)
    print('/* generated by reference/gen/logf.py */')
    print('/* OFF = 0x%08x, %d entries, center %d, max |r| = 2^%.4f */'
          % (OFF, N, CENTER, math.log2(rmax)))
    print('/* {c_i, T_i = RN(-log c_i)} */')
    print(c_table(rows))
    print('/* polynomial: a2..a6 */')
    for k, t in enumerate(coef_txt):
        print('#define A%d %s' % (k + 2, t))
    print('/* LN2 = %s, |LN2 - ln 2| < 2^%.2f */' % (ln2.hex(), math.log2(ln2err)))
    print('/* approximation: relative error < 2^%.3f */' % math.log2(eps_approx))
    worst, where = analyse(rows, coef, eps_approx, ln2, ln2err)
    print('/* evaluation: relative error of y < 2^%.3f = %.3f u (worst at %s) */'
          % (math.log2(worst), worst / U, where))
    # cr.h's test is sound when |y - f| <= (E - u(1 + E)) |y|; with
    # |y - f| <= eps |f| that needs eps / (1 - eps) <= E - u(1 + E).
    need = worst / (1 - worst)
    room = E_CLAIM - U * (1 + E_CLAIM)
    print('/* E = 2^%d: needs eps/(1-eps) = 2^%.3f <= E - u(1+E) = 2^%.3f: %s */'
          % (round(math.log2(E_CLAIM)), math.log2(need), math.log2(room),
             'ok' if need <= room else 'FAILS'))
    if need > room:
        sys.exit(1)
    fcoef, ftxt, ferr = fast_poly()
    assert fcoef['a'][0] == 1.0
    fw, fwhere = analyse_fast(rows, 'T', fcoef['a'], ferr['a'], ln2, ln2err, 1.0,
                              range(-126, 129))
    fc = fast_tol(fw)
    print('/* fast path: polynomial a1..a4 (log_fast.sollya, relative error < 2^%.2f): */'
          % math.log2(ferr['a']))
    for k in range(4):
        print('/*   a%d = %r */' % (k + 1, fcoef['a'][k]))
    print('/* fast path: relative error of y < 2^%.3f = %.1f u (worst at %s): c = 0x%x */'
          % (math.log2(fw), fw / U, fwhere, fc))
    if '--check' in sys.argv:
        src = open('include/repdl/log.h').read()
        hc = int(re.search(r'#define REPDL__LOGF_FAST_C (0x[0-9a-f]+)u', src).group(1), 16)
        if hc != fc:
            print('log.h: REPDL__LOGF_FAST_C is not 0x%x' % fc)
            sys.exit(1)
        missing = [repr(v) for v in fcoef['a'][1:] if repr(v) not in src]
        if missing:
            print('log.h lacks the fast coefficients', missing)
            sys.exit(1)
        # the header writes each constant as its shortest exact decimal
        # (reference/gen/hexfloat_to_decimal.py): repr of the double
        missing = ['%d: %r, %r' % (r['i'], r['c'], r['T']) for r in rows
                   if (repr(r['c']) + ', ' + repr(r['T'])) not in src]
        missing += [t for t in coef_txt if repr(float.fromhex(t)) not in src]
        if missing:
            print('log.h does not match:', missing[:4])
            sys.exit(1)
        print('/* log.h matches */')


if __name__ == '__main__':
    main()
