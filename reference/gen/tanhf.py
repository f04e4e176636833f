#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/tanhf.py: thresholds and error bounds of repdl_tanh_f32
(include/repdl/tanh.h).

    /usr/bin/python3 reference/gen/tanhf.py            # print everything
    /usr/bin/python3 reference/gen/tanhf.py --check    # also check tanh.h holds it

Needs mpmath and sollya (reference/gen/tanhf.sollya gives the polynomials);
shares the table, the reduction and the error-analysis class with
reference/gen/expf.py.  About two minutes.

What it derives:
  * the tiny threshold: for 0 < |x| < 2^-12, tanh(x) rounds to x;
  * the saturation threshold: for |x| >= 0x1.205968p3, tanh(|x|) > 1 - 2^-25
    rounds to 1;
  * a bound of |y / tanh(x) - 1| for the accurate path's y
    (repdl__tanhf_core) on every path (fused or not), for each
    k = round(2|x| 256/ln2) and sub-interval of r;
  * a bound of |y / tanh(x) - 1| for the fast path's y (repdl__tanhf_fast),
    fused or not, for each k = round(x (-512/ln2)) and sub-interval of d,
    and the c of repdl__round_ok_normal it allows.
"""
import os
import re
import struct
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expf as E  # noqa: E402  (table, reduction, Bound, helpers)

mp.mp.prec = 300
U = E.U
TINY = 0x39800000        # 2^-12
SAT = 0x41102cb4         # 0x1.205968p3
FAST_LO = 0x3b800000     # 2^-8: the fast path is 2^-8 <= |x| < 16
FAST_HI = 0x41800000     # 16
FAST_C = 0x8000          # REPDL__TANHF_FAST_C


def tiny_threshold():
    """tanh(x) rounds to x for every binary32 0 < x < 2^-12 (and by symmetry
    for negative x): tanh(x) lies in (x - x^3/3, x), and x^3/3 is below
    half the gap between x and the binary32 below it.  Checked binade by
    binade at the worst inputs (the binade's smallest element, where the gap
    below is halved, and its largest, where x^3 is largest), and for the
    subnormals, whose gap is 2^-149."""
    for e in range(-126, -12):
        lo = mp.mpf(2) ** e
        hi = mp.mpf(2) ** (e + 1) * (1 - mp.mpf(2) ** -24)
        assert lo ** 3 / 3 < mp.mpf(2) ** (e - 24) / 2          # gap below 2^e is 2^(e-24)
        assert hi ** 3 / 3 < mp.mpf(2) ** (e - 23) / 2
    assert (mp.mpf(2) ** -126) ** 3 / 3 < mp.mpf(2) ** -150        # subnormals
    # and directly, at the boundary inputs, with MPFR-grade precision
    for b in [TINY - 1, 0x39000000, 0x39000001, 0x00000001, 0x007fffff]:
        x = mp.mpf(E.bfloat(b))
        th = mp.tanh(x)
        gap = x - mp.mpf(E.bfloat(b - 1)) if b > 1 else x
        assert x - th < gap / 2
    # 2^-12 itself would not do (it needs the approximation path):
    x = mp.mpf(2) ** -12
    return mp.tanh(x)


def sat_threshold():
    lim = mp.atanh(1 - mp.mpf(2) ** -25)
    b = E.fbits(float(lim))
    while mp.mpf(E.bfloat(b)) > lim:
        b -= 1
    while mp.mpf(E.bfloat(b)) <= lim:
        b += 1
    return b


def tanhf_bound(verbose=True):
    coeffs, perr, _ = E.sollya_poly('tanhf.sollya', ['d2', 'd3', 'd4', 'd5'])
    dc = [E.hexf(coeffs['d%d' % i]) for i in range(2, 6)]
    hi_bits, rho_t, tabrel = E.table()
    tmax = 2 * mp.mpf(E.bfloat(SAT - 1))
    kmax = int(mp.nint(tmax * E.N / mp.log(2))) + 1
    dr = E.reduction_error(kmax)
    E.reduction_checks(kmax)
    A = E.A_R
    B = E.Bound
    worst = mp.mpf(0)
    worst_at = None
    em1_worst = mp.mpf(0)
    rc_err = mp.mpf(0)
    for k in range(0, kmax + 1):
        j = k & (E.N - 1)
        s = mp.mpf(struct.unpack('<d', struct.pack('<Q', (hi_bits[j] + (j << (52 - E.NB)) + ((k >> E.NB) << 52)) % 2 ** 64))[0])
        rho = mp.mpf(rho_t[j])
        if k == 0:
            # r = t exactly (kd = 0), t in [2^-11, A]; geometric pieces
            pieces = []
            lo = mp.mpf(2) ** -11
            while lo < A:
                hi = min(lo * (1 + mp.mpf(1) / 128), A)
                pieces.append((lo, hi))
                lo = hi
        else:
            NS = 64 if k < 512 else 4
            pieces = [(-A + 2 * A * i / NS, -A + 2 * A * (i + 1) / NS) for i in range(NS)]
        for (rlo, rhi) in pieces:
            r = B(rlo, rhi)
            S = B.const(s)
            R = B.const(rho)
            r2 = r.sq()
            a = B.const(dc[0]).add(r.mul(B.const(dc[1])))
            b = B.const(dc[2]).add(r.mul(B.const(dc[3])))
            c = a.add(r2.mul(b))
            rc_err = max(rc_err, r2.mul(c).err)
            if k == 0:
                # rho = 0, s = 1: v = r, s w = w and (s - 1) + s w = w, all exact
                w = r.add(r2.mul(c))
                em1 = w
            else:
                v = r.add(R.add(R.mul(r)))
                w = v.add(r2.mul(c))
                em1 = S.sub(B.const(1), exact=True).add(S.mul(w))
            # exact-arithmetic em1 vs the true expm1(t) = 2^(k/N) e^(r_t) - 1
            dr_k = 0 if k == 0 else dr
            qmax = max(abs(mp.expm1(rlo)), abs(mp.expm1(rhi)))
            rc_max = (r2.mag()) * c.mag()
            approx = s * (1 + abs(rho)) * (perr * qmax + mp.exp(A) * (mp.exp(dr_k) - 1)) \
                + s * mp.mpf(2) ** -106 * mp.exp(A) + s * abs(rho) * rc_max
            two_k = mp.mpf(2) ** (mp.mpf(k) / E.N)
            em1_min = two_k * mp.exp(rlo - dr_k) - 1
            eps1 = (em1.err + approx) / em1_min
            em1_worst = max(em1_worst, eps1)
            # tanh = em1 / (em1 + 2): em1's relative error scaled by 2/(em1+2)
            theta_c = 2 / (em1_min + 2)
            e_t = eps1 * theta_c / (1 - eps1)
            e_t = (1 + e_t) * (1 + U) / (1 - U) - 1          # em1 + 2, then the division
            if e_t > worst:
                worst, worst_at = e_t, (k, float(rlo), float(rhi))
    Ebound = worst + U
    if verbose:
        print("tanhf: polynomial error < 2^%.2f, reduction error < 2^%.3f, k <= %d"
              % (E.log2(perr), E.log2(dr), kmax))
        print("tanhf: evaluation error of r2 c < 2^%.2f (absolute)" % E.log2(rc_err))
        print("tanhf: |em1 / expm1(t) - 1| < %.3f 2^-53" % (em1_worst / U))
        print("tanhf: |y / tanh(x) - 1| < 2^%.3f = %.3f 2^-53 (worst at k = %d, r in [%g, %g]);"
              % (E.log2(worst), worst / U, worst_at[0], worst_at[1], worst_at[2]))
        print("       with round_ok's rounding E >= 2^%.3f = %.3f 2^-53" % (E.log2(Ebound), Ebound / U))
    return worst, Ebound, coeffs



# ---------------------------------------------------------------------------
# The fast path (repdl__tanhf_fast), for 2^-8 <= |x| < 16:
#   w = RN(x C), C = RN(-512/ln2); k = round(w) (z = w + 0x1.8p52);
#   d = w - k (exact); sigma = 2^(k>>8) T[k&255];
#   P = (1 + f1 d) + d^2 (f2 + f3 d);  y = RN(RN(P - sigma) / RN(P + sigma)).
# Exactly, with d* = x (-512/ln2) - k, P* = 2^(-d*/256), sigma* = 2^(k/256):
#   tanh(x) = (P* - sigma*) / (P* + sigma*)     (P*/sigma* = e^(2x)).
# Errors, on every contraction pattern:
#   |d - d*| <= Dd = |x| |C - C*| + 2^-53 |x C| (1 + 2^-50): the rounding of
#     w, or, fused, that of d = RN(x C - k) (<= 2^-53 |d| <= 2^-53 |w| when
#     k != 0; d = w when k = 0); |d| <= 1/2 + 2^-40 (k may come from the
#     exact product when z is fused), so |d*| <= 1/2 + 2^-38;
#   P = P* + dP, |dP| <= P*max (e^(Dd ln2/256) - 1) + poly + eval, where poly
#     = min(absolute error, relative error * |2^(-d/256) - 1|) of the
#     polynomial (Sollya, on |d| <= 1/2 + 2^-30), eval the rounding errors
#     of its evaluation (expf.Bound: two roundings per a*b + c);
#   sigma = sigma* (1 + beta), |beta| <= the table's error for j = k & 255.
# With g(P, s) = ln |(P - s) / (P + s)|, dg/dP = 2 s / (P^2 - s^2) and
# dg/ds = -2 P / (P^2 - s^2), so on the box of (P, s) values
#   |ln(y' / tanh(x))| <= L = (2 s_max |dP| + 2 P_max beta s*) / min |P^2 - s^2|
# for y' = (P - sigma) / (P + sigma) in exact arithmetic; the three roundings
# give |y / tanh(x) - 1| <= e^L (1 + u)^2 / (1 - u) - 1.
def tanhf_fast_bound(verbose=True):
    coeffs, _, out = E.sollya_poly('tanhf.sollya', ['d2', 'd3', 'd4', 'd5', 'f1', 'f2', 'f3'])
    ea = mp.mpf(2) ** mp.mpf(re.search(r'^fast absolute error < 2\^(\S+)$', out, re.M).group(1))
    er = mp.mpf(2) ** mp.mpf(re.search(r'^fast relative error < 2\^(\S+)$', out, re.M).group(1))
    f = [E.hexf(coeffs['f%d' % i]) for i in range(1, 4)]
    hi_bits, _, _ = E.table()
    prec = mp.mp.prec
    tau = []
    for j in range(E.N):
        t = mp.mpf(struct.unpack('<d', struct.pack('<Q', hi_bits[j] + (j << (52 - E.NB))))[0])
        tau.append(abs(t / mp.mpf(2) ** (mp.mpf(j) / E.N) - 1))
    mp.mp.prec = 120
    ln2 = mp.log(2)
    Cs = -512 / ln2
    C = mp.mpf(E.d(-512 / mp.log(2)))
    dC = abs(C - Cs)
    D1 = mp.mpf(1) / 2 + mp.mpf(2) ** -38           # |d*|
    DW = mp.mpf(2) ** -37                            # d - d* (Dd < 2^-39 here)
    assert D1 + DW < mp.mpf(1) / 2 + mp.mpf(2) ** -30  # inside the polynomial's interval
    NF = 64
    fine = [(-D1 + 2 * D1 * i / NF, -D1 + 2 * D1 * (i + 1) / NF) for i in range(NF)]
    B = E.Bound
    fine_ev = []
    for (a, b) in fine:
        dd = B(a - DW, b + DW)
        P = B.const(1).add(dd.mul(B.const(f[0]))).add(dd.sq().mul(B.const(f[1]).add(dd.mul(B.const(f[2])))))
        fine_ev.append(P.err)
    xlo_all = mp.mpf(E.bfloat(TINY))
    xlo_fast = mp.mpf(E.bfloat(FAST_LO))
    xhi = mp.mpf(E.bfloat(FAST_HI))
    kmax = int(mp.nint(xhi * abs(Cs))) + 1
    worst_fast, worst_at, by_binade = mp.mpf(0), None, {}
    for k in range(-kmax, kmax + 1):
        sig = mp.mpf(2) ** (mp.mpf(k) / E.N)
        tj = tau[k & (E.N - 1)]
        npc = 64 if abs(k) <= 4 else (16 if abs(k) <= 64 else 4)
        st = NF // npc
        for p in range(npc):
            dl, dh = fine[p * st][0], fine[p * st + st - 1][1]
            ev = max(fine_ev[p * st:(p + 1) * st])
            xa, xb = (k + dh) / Cs, (k + dl) / Cs
            lo, hi = min(xa, xb), max(xa, xb)
            for (s, a, b) in [(1, max(lo, xlo_all), min(hi, xhi)), (-1, max(-hi, xlo_all), min(-lo, xhi))]:
                if a > b:
                    continue                              # |x| in [a, b], sign s
                Dd = b * dC + E.U * b * abs(C) * (1 + mp.mpf(2) ** -50)
                assert Dd < DW
                Pmin, Pmax = mp.mpf(2) ** (-dh / 256), mp.mpf(2) ** (-dl / 256)
                pd1 = max(abs(mp.mpf(2) ** (-(dl - Dd) / 256) - 1), abs(mp.mpf(2) ** (-(dh + Dd) / 256) - 1))
                dP = Pmax * mp.expm1(Dd * ln2 / 256) + min(ea, er * pd1) + ev
                bs = tj * sig
                Amin = sig * abs(mp.expm1(2 * s * a)) - dP - bs     # |P - s| on the box
                Bmin = Pmin + sig - dP - bs
                assert Amin > 0 and Bmin > 0
                L = (2 * sig * (1 + tj) * dP + 2 * (Pmax + dP) * bs) / (Amin * Bmin)
                e = mp.exp(L) * (1 + E.U) ** 2 / (1 - E.U) - 1
                bk = int(mp.floor(mp.log(b, 2)))
                by_binade[(s, bk)] = max(by_binade.get((s, bk), 0), e)
                if b >= xlo_fast and e > worst_fast:
                    worst_fast, worst_at = e, (k, s, float(a), float(b))
    mp.mp.prec = prec
    if verbose:
        print("tanhf fast: evaluation error of P < 2^%.3f (absolute), |d - d*| < 2^%.2f"
              % (E.log2(max(fine_ev)), E.log2(xhi * dC + E.U * xhi * abs(C) * (1 + mp.mpf(2) ** -50))))
        print("tanhf fast: polynomial error < 2^%.2f absolute, 2^%.2f relative to 2^(-d/256) - 1; "
              "|C / (-512/ln2) - 1| = %.3f 2^-53" % (E.log2(ea), E.log2(er), dC / abs(Cs) / E.U))
        print("tanhf fast: |y / tanh(x) - 1| by binade of |x| (sign of x: + / -):")
        for bk in sorted(set(b for (_, b) in by_binade)):
            print("   [2^%d, 2^%d): 2^%.2f / 2^%.2f" % (bk, bk + 1, E.log2(by_binade.get((1, bk), 0)),
                                                      E.log2(by_binade.get((-1, bk), 0))))
        print("tanhf fast: on 2^-8 <= |x| < 16, |y / tanh(x) - 1| < 2^%.3f = 2^%.2f 2^-53 (k = %d, sign %+d, |x| in [%g, %g])"
              % (E.log2(worst_fast), E.log2(worst_fast / E.U), *worst_at))
        c = int(mp.ceil(worst_fast * (1 + mp.mpf(2) ** -50) / E.U)) + 1
        print("tanhf fast: repdl__round_ok_normal needs c >= %d (2^%.2f); c = 0x%x fails with probability about 2^%.1f"
              % (c, E.log2(c), FAST_C, E.log2(mp.mpf(2 * FAST_C + 1) / 2 ** 29)))
    return worst_fast, coeffs

def main():
    check = '--check' in sys.argv
    t12 = tiny_threshold()
    print("tiny: tanh(x) rounds to x for 0 < |x| < 2^-12 (0x%08x)" % TINY)
    sat = sat_threshold()
    print("saturation: tanh(|x|) > 1 - 2^-25 for |x| >= %s (0x%08x)" % (float(E.bfloat(sat)).hex(), sat))
    assert sat == SAT
    worst, Eb, coeffs = tanhf_bound()
    wf, fcoeffs = tanhf_fast_bound()
    print("fast-path constants: C = %r, f1..f3 = %s" % (E.d(-512 / mp.log(2)),
          ", ".join(repr(float.fromhex(fcoeffs['f%d' % i])) for i in range(1, 4))))
    ok = True
    if check:
        src = open(os.path.join(E.ROOT, 'include', 'repdl', 'tanh.h')).read()
        vals = E.header_numbers(src)[1]
        need = [float.fromhex(coeffs['d%d' % i]) for i in range(2, 6)]
        need += [float.fromhex(fcoeffs['f%d' % i]) for i in range(1, 4)]
        need += [E.d(-512 / mp.log(2)), 6755399441055744.0]
        for v in need:
            if -v not in vals and v not in vals:
                print("tanh.h lacks the constant", repr(v), float(v).hex())
                ok = False
        for n in ["0x%08xu" % TINY, "0x%08xu" % SAT, "0x%08xu" % (2 * FAST_LO % 2 ** 32),
                  "0x%08xu" % (2 * FAST_HI % 2 ** 32), "0x%xu" % FAST_C]:
            if n not in src:
                print("tanh.h lacks:", n)
                ok = False
        m = re.search(r'#define REPDL__TANHF_ERR (\S+)', src)
        Eh = mp.mpf(float(m.group(1)))
        if not Eb <= Eh:
            print("REPDL__TANHF_ERR %s is below the bound" % m.group(1))
            ok = False
        if not worst * (1 + mp.mpf(2) ** -50) < 7 * U:
            print("c = 8 of repdl__round_ok_normal is too small")
            ok = False
        m = re.search(r'#define REPDL__TANHF_FAST_C (0x[0-9a-f]+)u', src)
        if not m or int(m.group(1), 16) != FAST_C:
            print("REPDL__TANHF_FAST_C is not 0x%x" % FAST_C)
            ok = False
        if not wf * (1 + mp.mpf(2) ** -50) < (FAST_C - 1) * U:
            print("c = 0x%x of the fast path is too small" % FAST_C)
            ok = False
        print("check of tanh.h:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
