#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/trigf.py: constants and error bounds of repdl_sin_f32 and
repdl_cos_f32 (include/repdl/sin.h, cos.h, detail/trig_reduce.h).

    /usr/bin/python3 reference/gen/trigf.py            # print everything
    /usr/bin/python3 reference/gen/trigf.py --check    # also check the headers hold it
                                                       # (trig_reduce.h, trigf.h, sin.h, cos.h)

Needs mpmath (python3-mpmath) and sollya (reference/gen/trigf.sollya gives
the polynomials and their approximation errors).

What it derives (mpmath at 600 bits, then rounded once):
  * the words of 2/pi: floor(2/pi 2^(64k-1)) mod 2^64, k = 0..4;
  * C = RN(2/pi) and its relative error;
  * C1, C2, C3 of the double (Cody and Waite) reduction of 1/2 <= |x| < 2^28:
    C1 = 2/pi rounded to 28 significant bits, C2 = the rest rounded to 28
    bits, C3 = RN(2/pi - C1 - C2), and the error of that reduction for
    |x| < 2^12 (beyond, up to 2^28, tests/math/test_trig.c `reduce` shows
    that it returns the integer reduction's f and q bit for bit, for every
    input, in each build: the bound of the integer reduction applies);
  * a bound of |y / sin(x) - 1| and |y / cos(x) - 1| by forward error
    analysis (expf.py's Bound, on sub-intervals of f) for either contraction
    pattern (each a*b+c charged two roundings, which covers one), from
      - the reduction: |f / f* - 1| <= dF, f* the exact fraction in
        quadrants; |x| < 1/2: f = RN(x C); |x| >= 1/2: trig_reduce.h's
        integer reduction, absolute error < 2^-101.9 before one rounding,
        relative to |f*| >= FMIN (reference/gen/trigf_minred.c);
      - sin(pi/2 f) against sin(pi/2 f*): relative change <= dF (u cot u <= 1),
        cos(pi/2 f): <= (pi/4) dF (u tan u <= pi/4 for |u| <= pi/4);
      - the polynomials' relative errors (Sollya's supnorm);
      - the evaluation of f S(f^2) and C(f^2);
    plus 2^-53 for repdl__round_ok's own products (E), and the c of
    repdl__round_ok_normal that the bound without it allows;
  * the fast path (detail/trigf.h, repdl__trigf_fast_y, |x| < XS = 2^17):
    the table sin(k pi/64), k = 0..127, the scaled constants 32 C, 32 C1
    and D2 = RN(32 (2/pi) - 32 C1) of its two-term reduction, and a bound of
    |y / sin(x) - 1| (cos: the same with K + 32) over the three cases of
    the table's two entries (0 and +-1, +-1 and 0, both other), from the
    error of r (relative where the result is r's sine: there it divides the
    reduction's error, proportional to x, by each binade's least |f*|,
    BINMIN), the polynomials' (Sollya) and their evaluation (Bound), the
    table's roundings and the final sum; and the c of repdl__round_ok_normal
    it allows (REPDL__TRIGF_FAST_C).
"""
import os
import re
import subprocess
import sys

import mpmath as mp

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from expf import Bound, U, log2, hexf, header_numbers  # noqa: E402  (the project's own error-analysis class)

mp.mp.prec = 600
TWOOPI = 2 / mp.pi
# min |f*| over binary32 x >= 1/2: reference/gen/trigf_minred.c prints
# 0x1.1a92ac7p-30 (within 2^-76), at x = 0x1.f37c8ap+95; a lower bound:
FMIN = mp.mpf(float.fromhex('0x1.1a92ac7p-30')) - mp.mpf(2) ** -75
# absolute error of the integer reduction before its rounding (quadrants):
# the bits of 2/pi beyond the window (< m 2^-126 < 2^-102), u's rounding
# (<= 2^-107) and the dropped tl & 0xfff (< 2^-116)
# the least |f*| of each binade 2^e <= x < 2^(e+1), e = -1 .. 16, as
# `trigf_minred --binades 17` prints them (each within 2^-76; decreased by
# 2^-75 below: lower bounds)
BINMIN = ['0x1.45f306dc9c883p-2', '0x1.de12cb3c4p-26', '0x1.de12cb3c6p-25', '0x1.04d88c86p-27',
          '0x1.04d88c86p-26', '0x1.04d88c86p-25', '0x1.04d88c86p-24', '0x1.04d88c86p-23',
          '0x1.6e3bed4ap-29', '0x1.6e3bed4bp-28', '0x1.6e3bed4bp-27', '0x1.6e3bed4b4p-26',
          '0x1.3baf6391ap-25', '0x1.3baf6391ap-24', '0x1.3baf6391ap-23', '0x1.3baf6391ap-22',
          '0x1.62d3a8fp-27', '0x1.62d3a8fp-26']
# the fast path's domain: |x| < XS (detail/trigf.h, repdl__trigf_fast_in)
XS_LOG2 = 17
RED_ABS = mp.mpf(2) ** -102 + mp.mpf(2) ** -107 + mp.mpf(2) ** -116
A = mp.mpf(1) / 2 + mp.mpf(2) ** -40


def rn_bits(v, bits):
    m, e = mp.frexp(v)
    return mp.ldexp(mp.nint(mp.ldexp(m, bits)), e - bits)


def cody_waite(verbose=True):
    """C1, C2, C3 and |f / f* - 1| of trig_reduce.h's double reduction for
    1/2 <= |x| < 2^12."""
    C1 = rn_bits(TWOOPI, 28)
    C2 = rn_bits(TWOOPI - C1, 28)
    C3 = mp.mpf(float(TWOOPI - C1 - C2))
    assert mp.mpf(float(C1)) == C1 and mp.mpf(float(C2)) == C2
    d = abs(TWOOPI - C1 - C2 - C3)
    X = mp.mpf(2) ** 12
    C = mp.mpf(float(TWOOPI))
    # k: |x 2/pi - k| <= 1/2 + |x| |C - 2/pi| + half an ulp of RN(x C) < 2^11.35
    kerr = X * abs(C - TWOOPI) + mp.mpf(2) ** (11 - 53)
    assert mp.mpf(1) / 2 + kerr + U < A
    # absolute error before f's last rounding: RN(x C3) (2^-53 |x C3|), the
    # rounding of e + RN(x C3) (2^-53 (2^-53 |s| + |x C3|) (1 + U)), x d
    xc3 = X * abs(C3)
    ab = U * xc3 + U * xc3 * (1 + U) + X * d
    rel_s = U * U * (1 + U)                          # the e part, relative to |s| ~ |f*|
    dF = (U * (FMIN * (1 + rel_s) + ab) + ab) / FMIN + rel_s
    if verbose:
        print("Cody-Waite: C1 = %s, C2 = %s, C3 = %s, |2/pi - C1 - C2 - C3| = 2^%.2f"
              % (float(C1).hex(), float(C2).hex(), float(C3).hex(), log2(d)))
        print("  |x| < 2^12: |f| <= 1/2 + 2^%.2f, error before rounding < 2^%.2f, |f / f* - 1| < %.4f 2^-53"
              % (log2(kerr), log2(ab), dF / U))
    return C1, C2, C3, dF


def words():
    return [int(mp.floor(TWOOPI * mp.mpf(2) ** (64 * k - 1))) % (1 << 64) for k in range(5)]


def sollya(prefix=''):
    """the coefficients named prefix + s0.. and prefix + c1.. of
    trigf.sollya and the two relative errors it prints for them ('': the
    accurate path's polynomials, 'f': the fast path's)"""
    out = subprocess.run(['sollya', os.path.join(HERE, 'trigf.sollya')], check=True,
                         capture_output=True, text=True).stdout
    c = {}
    for m in re.finditer(r'^(%s[sc]\d) = (\S+)$' % prefix, out, re.M):
        c[m.group(1)] = hexf(m.group(2))
    lead = 'fast ' if prefix else ''
    es = mp.mpf(2) ** mp.mpf(re.search(r'^%ssin relative error < 2\^(\S+)$' % lead, out, re.M).group(1))
    ec = mp.mpf(2) ** mp.mpf(re.search(r'^%scos relative error < 2\^(\S+)$' % lead, out, re.M).group(1))
    return c, es, ec


def horner_z(c, Z):
    """c[0] + z (c[1] + z (... + z c[n])) as computed, Horner in z (a Bound)"""
    p = Bound.const(c[-1])
    for k in range(len(c) - 2, -1, -1):
        p = Bound.const(c[k]).add(Z.mul(p))
    return p


def eval_bounds(s, cc, R, NS):
    """the largest relative evaluation errors of f S(f^2) (the product by f
    included) and of C(f^2) (cc[0] = 1), each Horner in z = RN(f^2), over NS
    sub-intervals of 0 <= f <= R; and the least values of S and C there"""
    ev_s = ev_c = mp.mpf(0)
    smin = cmin = mp.inf
    for i in range(NS):
        Z = Bound(R * i / NS, R * (i + 1) / NS).sq()
        p = horner_z(s, Z)
        pmin = min(p.lo, p.hi)
        ev_s = max(ev_s, (1 + p.err / pmin) * (1 + U) - 1)
        y = horner_z(cc, Z)
        ymin = min(y.lo, y.hi)
        ev_c = max(ev_c, y.err / ymin)
        smin, cmin = min(smin, pmin), min(cmin, ymin)
    return ev_s, ev_c, smin, cmin


def bounds(verbose=True):
    c, es, ec = sollya()
    C = mp.mpf(float(TWOOPI))
    dC = abs(C / TWOOPI - 1)
    dF_small = (1 + dC) * (1 + U) - 1
    dF_large = (U * (FMIN + RED_ABS) + RED_ABS) / FMIN     # |f - f*| <= U |f*+t| + |t|
    dF_cw = cody_waite(verbose)[3]
    dF = max(dF_small, dF_large, dF_cw)
    s = [c['s%d' % i] for i in range(7)]
    cc = [mp.mpf(1)] + [c['c%d' % i] for i in range(1, 8)]
    # sin: y = f (s0 + z (s1 + ... + z s6)); cos: y = 1 + z (c1 + ... + z c7)
    ev_s, ev_c, smin, cmin = eval_bounds(s, cc, A, 256)
    assert smin > 1 and cmin > mp.mpf('0.7')
    tot_s = (1 + ev_s) * (1 + es) * (1 + dF) - 1
    tot_c = (1 + ev_c) * (1 + ec) * (1 + mp.pi / 4 * dF) - 1
    worst = max(tot_s, tot_c)
    E = worst + U
    cmin = int(mp.floor(worst * (1 + mp.mpf(2) ** -50) / U)) + 2
    if verbose:
        print("C = RN(2/pi) = %r, |C / (2/pi) - 1| = %.4f 2^-53" % (float(C), dC / U))
        print("reduction: |f / f* - 1| < %.4f 2^-53 (|x| < 1/2), %.4f 2^-53 (|x| >= 1/2, |f*| >= 2^%.4f)"
              % (dF_small / U, dF_large / U, log2(FMIN)))
        print("polynomials: sin 2^%.2f, cos 2^%.2f; evaluation: sin %.4f 2^-53, cos %.4f 2^-53"
              % (log2(es), log2(ec), ev_s / U, ev_c / U))
        print("|y / sin(pi/2 f*) - 1| < %.4f 2^-53, |y / cos(pi/2 f*) - 1| < %.4f 2^-53"
              % (tot_s / U, tot_c / U))
        print("sinf, cosf: y error < 2^%.3f = %.4f 2^-53; with round_ok's rounding E >= 2^%.3f = %.4f 2^-53;"
              " repdl__round_ok_normal needs c >= %d" % (log2(worst), worst / U, log2(E), E / U, cmin))
    return worst, E, cmin, c, C


def fast_table():
    """sin(k pi/64) rounded to double, k = 0..127 (0, +-1 exact)"""
    T = [float(mp.sin(k * mp.pi / 64)) for k in range(128)]
    T[0] = T[64] = 0.0
    assert T[32] == 1.0 and T[96] == -1.0
    return T


def fast_bounds(verbose=True):
    """the fast path's bound: y = T[K] pc(r) + T[K+32] r ps(r), K + r = x 64/pi,
    for |x| < XS"""
    c, efs, efc = sollya('f')
    C1 = cody_waite(False)[0]
    C = mp.mpf(float(TWOOPI))
    D, D1 = 32 * C, 32 * C1                                # exact scalings
    D2 = mp.mpf(float(32 * TWOOPI - D1))
    d32 = abs(32 * TWOOPI - D1 - D2)
    assert len(BINMIN) == XS_LOG2 + 1
    X = mp.mpf(2) ** XS_LOG2
    # K = the integer nearest RN(x D) (+ the shifter; fused or not):
    # |x 64/pi - K| <= 1/2 + X |D - 64/pi| + half an ulp of x D
    R = mp.mpf(1) / 2 + X * abs(D - 32 * TWOOPI) + mp.mpf(2) ** (mp.ceil(log2(X * D)) - 54)
    Rp = mp.mpf(1) / 2 + mp.mpf(2) ** -17                   # the polynomials' interval
    assert R <= Rp
    # r* = x 64/pi - K = a + x D2 + x 32 d with a = x D1 - K exact (x D1
    # has 24 + 28 bits; |a| < 2, a multiple of ulp(x) 2^-23 of it); r =
    # RN(a + RN(x D2)) (a fused x D2 + a skips one rounding).  Its absolute
    # error for |x| <= Xm and |r*| <= rho:
    def rerr(Xm, rho):
        e1 = U * Xm * abs(D2)                              # RN(x D2)
        s = rho + e1 + Xm * d32                            # |a + RN(x D2)|
        return e1 + U * s + Xm * d32
    # case A, T[K] = 0 and T[K+32] = +-1 (K = 0 mod 32): y = +-r ps(r) exactly
    # as computed; needs r relative: K = 0 (|x| < 1/2: every term scales
    # with |x|, |r*| = |x| 64/pi) or |x| >= 1/2 in binade e (|r*| = 32 |f*|
    # >= 32 BINMIN[e], the error grows with x: its largest x, 2^(e+1))
    rel_r0 = rerr(1, 64 / mp.pi) / (64 / mp.pi)
    rmin = [32 * (mp.mpf(float.fromhex(b)) - mp.mpf(2) ** -75) for b in BINMIN]   # e = -1 ..
    rel_r1 = max(rerr(mp.mpf(2) ** (e + 1), rm) / rm for e, rm in zip(range(-1, XS_LOG2), rmin))
    rel_r = max(rel_r0, rel_r1)
    dabs = rerr(X, Rp)                                     # every case: |r - r*|
    fs = [c['fs0'], c['fs1'], c['fs2']]
    fc = [mp.mpf(1), c['fc1'], c['fc2']]
    # y = r (fs0 + z (fs1 + z fs2)) and 1 + z (fc1 + z fc2), z = RN(r^2)
    ev_s, ev_c, _, _ = eval_bounds(fs, fc, Rp, 64)
    # relative errors of the computed sin(pi/64 r), cos(pi/64 r) against the
    # exact functions of the computed r
    es = (1 + efs) * (1 + ev_s) - 1
    ec = (1 + efc) * (1 + ev_c) - 1
    th = mp.pi / 64 * Rp
    totA = (1 + rel_r) * (1 + es) - 1                      # u cot u <= 1
    # case B, T[K] = +-1, T[K+32] = 0: y = +-pc(r); r's error moves cos by
    # <= sin(th) pi/64 dabs, relative to cos(th)
    totB = (1 + ec) * (1 + mp.sin(th) * mp.pi / 64 * dabs / mp.cos(th)) - 1
    # case C, both entries nonzero: y = RN(RN(T1 pc) + RN(RN(T2 r) ps)), T1,
    # T2 the table's roundings of sK = sin(K pi/64), cK = cos(K pi/64).  The
    # second term has the table's rounding, RN(T2 r), the product by ps and
    # ps's own error: (1 + U)(1 + U)(1 + U)(1 + ps's) (1 + efs), which is
    # (1 + U)(1 + es)(1 + U) with es = (1 + efs)(1 + ev_s) - 1, ev_s counting
    # ps's error and one product (eval_bounds).  Case A: T2 = +-1 makes
    # RN(T2 r) = +-r exact, y = +-RN(r ps) as there.
    totC = mp.mpf(0)
    for K in range(128):
        if K % 32 == 0:
            continue
        sK, cK = abs(mp.sin(K * mp.pi / 64)), abs(mp.cos(K * mp.pi / 64))
        ymin = min(abs(mp.sin(mp.pi / 64 * (K - Rp))), abs(mp.sin(mp.pi / 64 * (K + Rp))))
        t1 = sK * mp.cos(0) * ((1 + U) * (1 + ec) * (1 + U) - 1)
        t2 = cK * mp.sin(th) * ((1 + U) * (1 + es) * (1 + U) - 1)
        tr = (cK + sK * mp.sin(th)) * mp.pi / 64 * dabs    # r's error, both terms
        ymag = sK + cK * mp.sin(th)
        e = (t1 + t2 + tr) * (1 + U) / ymin + U * (ymag + t1 + t2 + tr) / ymin
        totC = max(totC, e)
    worst = max(totA, totB, totC)
    need = worst * (1 + mp.mpf(2) ** -50) / U + 1             # c - 1 >= E 2^53 (detail/cr.h)
    cfast = 1
    while cfast < need:
        cfast *= 2
    if verbose:
        print("fast path: |x 64/pi - K| <= 1/2 + 2^%.2f; r: relative 2^%.3f (K = 0 mod 64), absolute 2^%.3f"
              % (log2(R - mp.mpf(1) / 2), log2(rel_r), log2(dabs)))
        print("  polynomials: sin 2^%.2f, cos 2^%.2f; evaluation: sin %.3f 2^-53, cos %.3f 2^-53"
              % (log2(efs), log2(efc), ev_s / U, ev_c / U))
        print("  |y / f - 1| < 2^%.3f (T = 0, +-1), 2^%.3f (T = +-1, 0), 2^%.3f (others)"
              % (log2(totA), log2(totB), log2(totC)))
        print("  fast y error < 2^%.3f; repdl__round_ok_normal needs c >= %.1f: REPDL__TRIGF_FAST_C = %d"
              % (log2(worst), need, cfast))
        print("  |x| < 2^%d; 32 C = %r, 32 C1 = %r, D2 = RN(32 (2/pi) - 32 C1) = %r, |32 (2/pi) - 32 C1 - D2| = 2^%.2f"
              % (XS_LOG2, float(D), float(D1), float(D2), log2(d32)))
    return worst, cfast, c, (D, D1, D2)


def main():
    check = '--check' in sys.argv
    W = words()
    print("words of 2/pi:")
    for k, w in enumerate(W):
        print("  0x%016xu" % w)
    worst, E, cmin, c, C = bounds()
    fworst, cfast, fc, Ds = fast_bounds()
    print("sin(k pi/64), k = 0..127:")
    T = fast_table()
    for i in range(0, 128, 4):
        print("        %s," % ', '.join(repr(t) for t in T[i:i + 4]))
    if not check:
        return 0
    ok = True
    red = open(os.path.join(ROOT, 'include', 'repdl', 'detail', 'trig_reduce.h')).read()
    code, vals = header_numbers(red, signed=True)
    for w in W:
        if "0x%016xu" % w not in red:
            print("trig_reduce.h lacks the word 0x%016xu" % w)
            ok = False
    C1, C2, C3, _ = cody_waite(False)
    for k, v in list(c.items()) + [('C', C), ('2^-64', mp.mpf(2) ** -64), ('2^-116', mp.mpf(2) ** -116),
                                   ('C1', C1), ('C2', C2), ('C3', C3)]:
        fv = float(v)
        if fv not in vals and -fv not in vals:
            print("trig_reduce.h lacks %s = %r" % (k, fv))
            ok = False
    for name in ('sin', 'cos'):
        src = open(os.path.join(ROOT, 'include', 'repdl', name + '.h')).read()
        m = re.search(r'#define REPDL__%sF_ERR (\S+)' % name.upper(), src)
        if not m or not E <= mp.mpf(float(m.group(1))):
            print("REPDL__%sF_ERR is below the bound" % name.upper())
            ok = False
        m = re.search(r'#define REPDL__%sF_C (\d+)u' % name.upper(), src)
        if not m or int(m.group(1)) < cmin:
            print("REPDL__%sF_C is below %d" % (name.upper(), cmin))
            ok = False
    # the fast path: its coefficients, scaled constants, table and c in trigf.h
    tf = open(os.path.join(ROOT, 'include', 'repdl', 'detail', 'trigf.h')).read()
    tcode, tvals = header_numbers(tf, signed=True)
    for k, v in list(fc.items()) + list(zip(('32 C', '32 C1', 'D2'), Ds)):
        if float(v) not in tvals:
            print("trigf.h lacks %s = %r" % (k, float(v)))
            ok = False
    if not re.search(r'return ax - lo < 0x%08xu - lo;' % ((127 + XS_LOG2) << 23), tcode):
        print("trigf.h's fast path is not |x| < 2^%d" % XS_LOG2)
        ok = False
    T = fast_table()
    i = tcode.index('T[128] = {')
    tab = [float(v) for v in re.findall(r'-?\d+\.\d*(?:e-?\d+)?', tcode[i:tcode.index('}', i)])]
    if tab != T:
        print("trigf.h's table of sin(k pi/64) differs")
        ok = False
    m = re.search(r'#define REPDL__TRIGF_FAST_C (\d+)u', tf)
    if not m or int(m.group(1)) < cfast:
        print("REPDL__TRIGF_FAST_C is below %d" % cfast)
        ok = False
    m = re.search(r'#define REPDL__TRIGF_FAST_ERR (\S+)', tf)
    if not m or not fworst < mp.mpf(float(m.group(1))):
        print("REPDL__TRIGF_FAST_ERR is below the bound")
        ok = False
    print("check of trig_reduce.h, trigf.h, sin.h, cos.h:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
