#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/tanhf.py: thresholds and error bound of repdl_tanh_f32
(include/repdl/tanh.h).

    /usr/bin/python3 reference/gen/tanhf.py            # print everything
    /usr/bin/python3 reference/gen/tanhf.py --check    # also check tanh.h holds it

Needs mpmath and sollya (reference/gen/tanhf.sollya gives the polynomial);
shares the table, the reduction and the error-analysis class with
reference/gen/expf.py.

What it derives:
  * the tiny threshold: for 0 < |x| < 2^-12, tanh(x) rounds to x;
  * the saturation threshold: for |x| >= 0x1.205968p3, tanh(|x|) > 1 - 2^-25
    rounds to 1;
  * a bound of |y / tanh(x) - 1| for tanh.h's y on every path (fused or not),
    for each k = round(2|x| 256/ln2) and sub-interval of r.
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


def main():
    check = '--check' in sys.argv
    t12 = tiny_threshold()
    print("tiny: tanh(x) rounds to x for 0 < |x| < 2^-12 (0x%08x)" % TINY)
    sat = sat_threshold()
    print("saturation: tanh(|x|) > 1 - 2^-25 for |x| >= %s (0x%08x)" % (float(E.bfloat(sat)).hex(), sat))
    assert sat == SAT
    worst, Eb, coeffs = tanhf_bound()
    ok = True
    if check:
        src = open(os.path.join(E.ROOT, 'include', 'repdl', 'tanh.h')).read()
        needles = [coeffs['d%d' % i] for i in range(2, 6)] + ["0x%08xu" % TINY, "0x%08xu" % SAT]
        for n in needles:
            if n not in src:
                print("tanh.h lacks:", n)
                ok = False
        m = re.search(r'#define REPDL__TANHF_ERR (\S+)', src)
        Eh = mp.mpf(float.fromhex(m.group(1)))
        if not Eb <= Eh:
            print("REPDL__TANHF_ERR %s is below the bound" % m.group(1))
            ok = False
        if not worst * (1 + mp.mpf(2) ** -50) < 7 * U:
            print("c = 8 of repdl__round_ok_normal is too small")
            ok = False
        print("check of tanh.h:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
