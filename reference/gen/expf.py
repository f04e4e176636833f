#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/expf.py: constants, table, thresholds and error bound of
repdl_exp_f32 (include/repdl/exp.h).

    /usr/bin/python3 reference/gen/expf.py            # print everything
    /usr/bin/python3 reference/gen/expf.py --check    # also check exp.h holds it

Needs mpmath (Debian: python3-mpmath) and, for the polynomial, sollya
(reference/gen/expf.sollya is run to get the coefficients and their
approximation error).

What it derives (every number at 300 bits, then rounded once):
  * 256/ln2 rounded to double; ln2/256 = C_HI + C_LO with C_HI on 37 bits;
  * T[j] = RN(2^(j/256)) as bits minus j << 44, and rho[j] = RN((2^(j/256) -
    T[j]) / T[j]) for tanh.h;
  * the overflow and underflow thresholds of expf;
  * a bound of |y / exp(x) - 1| for exp.h's y, by forward error analysis on
    sub-intervals of r (class Bound below), for either contraction pattern:
    a fused a*b+c rounds once, an unfused one twice; the bound charges both
    roundings, which covers both;
  * the same for the fast path's y (repdl__expf_fast: s P(d), P the degree-3
    polynomial of reference/gen/tanhf.sollya taken at -d) and the c of
    repdl__round_ok_normal it allows.
"""
import re
import struct
import subprocess
import sys
import os

import mpmath as mp

mp.mp.prec = 300
U = mp.mpf(2) ** -53          # unit roundoff of binary64, round to nearest
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def d(x):
    """round an mpf to the nearest double (ties to even)"""
    return float(mp.mpf(x))


def dbits(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]


def fbits(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def bfloat(b):
    return struct.unpack('<f', struct.pack('<I', b))[0]


def round_bits(x, bits):
    """x rounded to nearest with `bits` significant bits"""
    e = mp.floor(mp.log(abs(x), 2))
    scale = mp.mpf(2) ** (bits - 1 - e)
    return mp.nint(x * scale) / scale


def cfmt(x):
    """a double as a C hex literal, as written in the headers (0x1.8p52)"""
    h = float(x).hex()
    m, e = h.split('p')
    if '.' in m:
        m = m.rstrip('0').rstrip('.')
    return m + 'p' + str(int(e))


def log2(x):
    return float(mp.log(x, 2))


# ---------------------------------------------------------------------------
# Forward error analysis.  A Bound is a computed double quantity: [lo, hi]
# encloses the value the same formula takes in exact arithmetic (on the
# current sub-interval of the input), err bounds |computed - exact|.  Each
# rounded operation adds U * (max |exact result| + propagated error).
class Bound:
    def __init__(self, lo, hi, err=0):
        self.lo, self.hi, self.err = mp.mpf(lo), mp.mpf(hi), mp.mpf(err)

    @staticmethod
    def const(c):
        return Bound(c, c, 0)

    def mag(self):
        return max(abs(self.lo), abs(self.hi))

    def add(self, o, exact=False):
        lo, hi = self.lo + o.lo, self.hi + o.hi
        prop = self.err + o.err
        m = max(abs(lo), abs(hi))
        return Bound(lo, hi, prop + (0 if exact else U * (m + prop)))

    def neg(self):
        return Bound(-self.hi, -self.lo, self.err)

    def sub(self, o, exact=False):
        return self.add(o.neg(), exact)

    def mul(self, o, exact=False):
        ps = [self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi]
        lo, hi = min(ps), max(ps)
        prop = self.mag() * o.err + o.mag() * self.err + self.err * o.err
        m = max(abs(lo), abs(hi))
        return Bound(lo, hi, prop + (0 if exact else U * (m + prop)))

    def sq(self):
        """x*x, with the tighter enclosure of a square"""
        b = self.mul(self)
        if self.lo <= 0 <= self.hi:
            b.lo = mp.mpf(0)
        return b


# ---------------------------------------------------------------------------
def sollya_poly(script, names):
    """run a Sollya script and read back its coefficients and error bound"""
    out = subprocess.run(['sollya', os.path.join(HERE, script)], check=True,
                         capture_output=True, text=True).stdout
    coeffs = {}
    for n in names:
        m = re.search(r'^%s = (\S+)$' % n, out, re.M)
        coeffs[n] = m.group(1)
    m = re.search(r'^relative error < 2\^(\S+)$', out, re.M)
    return coeffs, mp.mpf(2) ** mp.mpf(m.group(1)), out


def hexf(s):
    return mp.mpf(float.fromhex(s))


def header_numbers(src, signed=False):
    """a header's code without its comments, and the set of the decimal
    floating constants written in it (with their minus sign where signed);
    the headers write their constants in decimal (C++14 has no hexadecimal
    floating constants, reference/gen/hexfloat_to_decimal.py), so the
    --check modes compare values"""
    code = re.sub(r'/\*.*?\*/', '', src, flags=re.S)
    num = r'(?:\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)'
    pat = r'(?<![\w.])' + ('-?' if signed else '') + num + r'(?![\w.])'
    return code, set(float(v) for v in re.findall(pat, code))


NB = 8                                         # table of N = 2^NB entries
N = 1 << NB
CBITS = 53 - 16                                # C_HI's bits: k C_HI exact for |k| < 2^16
LN2_N = mp.log(2) / N
INVLN2N = d(N / mp.log(2))
C_HI = round_bits(LN2_N, CBITS)
C_LO = d(LN2_N - C_HI)
A_R = mp.mpf(float.fromhex('0x1.63p-10'))     # |r| bound used by the polynomials
KMAX_EXPF = 38500                              # |x| <= 104 -> |k| <= 104 * 256/ln2 + 1 < 38500


def table():
    hi_bits, rho = [], []
    maxrel = mp.mpf(0)
    for j in range(N):
        t = mp.mpf(2) ** (mp.mpf(j) / N)
        h = d(t)
        hi_bits.append(dbits(h) - (j << (52 - NB)))
        r = d((t - h) / h)
        rho.append(r)
        maxrel = max(maxrel, abs((h - t) / t))
        # T (1 + rho) = 2^(j/N) to 2^-106
        assert abs(mp.mpf(h) * (1 + mp.mpf(r)) / t - 1) < mp.mpf(2) ** -106
    return hi_bits, rho, maxrel


def reduction_error(kmax):
    """bound of |r - (x - k ln2/N)| for |k| <= kmax (exp.h's reduction)"""
    assert A_R < mp.mpf(2) ** -9
    r_round = mp.mpf(2) ** -63                     # |r| < 2^-9: half an ulp
    p = abs(kmax * C_LO)
    p_round = mp.mpf(2) ** (mp.floor(mp.log(p, 2)) - 53)
    rep = kmax * abs(C_HI + C_LO - LN2_N)
    return r_round + p_round + rep


def reduction_checks(kmax):
    # |x N/ln2 - k| <= 1/2 + slack: rounding of the product and of N/ln2
    xmax = kmax * LN2_N + 1
    slack = 2 * U * xmax * INVLN2N
    assert slack < mp.mpf(2) ** -36
    rmax = LN2_N * (mp.mpf(1) / 2 + slack) + reduction_error(kmax)
    assert rmax < A_R
    assert C_HI == round_bits(C_HI, CBITS) and kmax < 2 ** 16
    # x - k C_HI is exact for k != 0: |x| > 2^-10 makes x a multiple of
    # 2^-33; C_HI in [2^-9, 2^-8) with CBITS bits is a multiple of
    # 2^(-9-CBITS+1) = 2^-45; the difference is below 2^-9 = 2^36 * 2^-45.
    assert LN2_N * (mp.mpf(1) / 2 - slack) > mp.mpf(2) ** -10
    assert mp.mpf(2) ** -9 <= C_HI < mp.mpf(2) ** -8 and CBITS == 37
    assert LN2_N * (mp.mpf(1) / 2 + slack) + kmax * abs(C_HI - LN2_N) < mp.mpf(2) ** -9
    return rmax


def table2():
    """attention.h's AVX-512F softmax kernel takes s = RN(A[j >> 4] B[j & 15])
    with A[a] = T[16 a], B[b] = T[b] (the table's own entries, read back into
    two 16-entry tables that fit in registers), not T[j]: the bound of
    |s / 2^(j/N) - 1| over the 256 j, rounded product or exact (fused)"""
    hi_bits, _, _ = table()
    ent = [mp.mpf(struct.unpack('<d', struct.pack('<Q', hi_bits[j] + (j << (52 - NB))))[0])
           for j in range(N)]
    worst = mp.mpf(0)
    for j in range(N):
        t = mp.mpf(2) ** (mp.mpf(j) / N)
        prod = ent[16 * (j >> 4)] * ent[j & 15]
        for s in (prod, d(prod)):
            worst = max(worst, abs(s / t - 1))
    return worst


def expf_bound(verbose=True, tabrel=None, name='expf'):
    coeffs, perr, _ = sollya_poly('expf.sollya', ['c2', 'c3', 'c4'])
    c = [hexf(coeffs['c%d' % i]) for i in range(2, 5)]
    hi_bits, rho, tabrel1 = table()
    if tabrel is None:
        tabrel = tabrel1
    kmax = KMAX_EXPF
    dr = reduction_error(kmax)
    reduction_checks(kmax)
    worst = mp.mpf(0)
    qerr = mp.mpf(0)
    NS = 64
    for j in range(N):
        s = mp.mpf(struct.unpack('<d', struct.pack('<Q', hi_bits[j] + (j << (52 - NB))))[0])
        S = Bound.const(s)
        for i in range(NS):
            rlo = -A_R + 2 * A_R * i / NS
            rhi = -A_R + 2 * A_R * (i + 1) / NS
            r = Bound(rlo, rhi)
            r2 = r.sq()
            a = Bound.const(c[0]).add(r.mul(Bound.const(c[1])))
            p = a.add(r2.mul(Bound.const(c[2])))
            t = S.mul(r).add(S.mul(r2).mul(p))       # s r + (s r2) p ~ s q
            y = S.add(t)
            qerr = max(qerr, t.err / s)
            ymin = s * mp.exp(rlo) * (1 - perr)       # exact y is s (1 + q(r)) ~ s e^r
            # evaluation error, relative
            ev = y.err / ymin
            # approximation: s (1 + q(r)) vs 2^(k/N) e^(r_true)
            ap = perr + dr * mp.exp(A_R) + tabrel
            tot = (1 + ev) * (1 + ap) - 1
            worst = max(worst, tot)
    E = worst + U                                  # round_ok's own products
    if verbose:
        print("%s: polynomial error < 2^%.2f, table error < %.4f 2^-53, reduction error < 2^%.3f"
              % (name, log2(perr), tabrel / U, log2(dr)))
        print("%s: evaluation error of s q < 2^%.3f s (absolute)" % (name, log2(qerr)))
        print("%s: |y / exp(x) - 1| < 2^%.3f = %.3f 2^-53; with round_ok's rounding E >= 2^%.3f = %.3f 2^-53"
              % (name, log2(worst), worst / U, log2(E), E / U))
    return worst, E, coeffs



# ---------------------------------------------------------------------------
# The fast path (repdl__expf_fast), |x| <= 87:
#   w = RN(x C), C = RN(256/ln2); k = round(w) (z = w + 0x1.8p52), d = w - k
#   (exact); s = 2^(k>>8) T[k&255]; P = (1 + e1 d) + d^2 (e2 + e3 d) with
#   e_i = (-1)^i f_i, f_i the fast polynomial of reference/gen/tanhf.sollya
#   (P(d) = p(-d) with p ~ 2^(-d/256) on a symmetric interval, so P ~ 2^(d/256)
#   with the same error bounds); y = RN(s P).
# Exactly: exp(x) = 2^(k/256) 2^(d*/256), d* = x 256/ln2 - k, and
#   |d - d*| <= Dd = 87 |C - C*| + 2^-53 87 |C| (1 + 2^-50) (the rounding of
#   w, or fused that of d = RN(x C - k), which is <= 2^-53 |w| when k != 0).
#   |y / exp(x) - 1| <= (1 + tau)(1 + (poly + eval) / P*min)
#                       e^(Dd ln2/256) (1 + u) - 1.
XMAX_FAST = 0x42ae0000                          # 87
FAST_C = 0x200                                  # REPDL__EXPF_FAST_C


def expf_fast_bound(verbose=True):
    coeffs, _, out = sollya_poly('tanhf.sollya', ['f1', 'f2', 'f3'])
    ea = mp.mpf(2) ** mp.mpf(re.search(r'^fast absolute error < 2\^(\S+)$', out, re.M).group(1))
    e = [-hexf(coeffs['f1']), hexf(coeffs['f2']), -hexf(coeffs['f3'])]
    _, _, tabrel = table()
    Cs = N / mp.log(2)
    C = mp.mpf(d(N / mp.log(2)))
    xmax = mp.mpf(bfloat(XMAX_FAST))
    Dd = xmax * abs(C - Cs) + U * xmax * abs(C) * (1 + mp.mpf(2) ** -50)
    assert Dd < mp.mpf(2) ** -37
    D1 = mp.mpf(1) / 2 + mp.mpf(2) ** -38
    DW = mp.mpf(2) ** -37
    worst = mp.mpf(0)
    NS = 64
    for i in range(NS):
        dl, dh = -D1 + 2 * D1 * i / NS, -D1 + 2 * D1 * (i + 1) / NS
        dd = Bound(dl - DW, dh + DW)
        P = Bound.const(1).add(dd.mul(Bound.const(e[0]))).add(dd.sq().mul(Bound.const(e[1]).add(dd.mul(Bound.const(e[2])))))
        Pmin = mp.mpf(2) ** ((dl - DW) / 256) - ea - P.err
        t = (1 + tabrel) * (1 + (ea + P.err) / Pmin) * mp.exp(Dd * mp.log(2) / 256) * (1 + U) - 1
        worst = max(worst, t)
    c = int(mp.ceil(worst * (1 + mp.mpf(2) ** -50) / U)) + 1
    if verbose:
        print("expf fast: polynomial error < 2^%.2f (tanhf.sollya's, at -d), |d - d*| < 2^%.2f, "
              "|C / (256/ln2) - 1| = %.3f 2^-53" % (log2(ea), log2(Dd), abs(C - Cs) / Cs / U))
        print("expf fast: |y / exp(x) - 1| < 2^%.3f = %.1f 2^-53 for |x| <= 87; repdl__round_ok_normal needs c >= %d;"
              " c = 0x%x fails with probability about 2^%.1f" % (log2(worst), worst / U, c, FAST_C,
                                                               log2(mp.mpf(2 * FAST_C + 1) / 2 ** 29)))
    return worst, e

def thresholds():
    # overflow: largest x with exp(x) < 2^128 (1 - 2^-25) (FLT_MAX + ulp/2 rounds to inf)
    lim = mp.log(mp.mpf(2) ** 128 * (1 - mp.mpf(2) ** -25))
    b = fbits(float(lim))
    while mp.mpf(bfloat(b)) >= lim:
        b -= 1
    while mp.mpf(bfloat(b + 1)) < lim:
        b += 1
    ovf = b
    # underflow: most negative x with exp(x) > 2^-150 (2^-150 itself rounds to 0)
    lim = mp.log(mp.mpf(2) ** -150)
    b = fbits(float(lim))
    while mp.mpf(bfloat(b)) <= lim:
        b -= 1
    while mp.mpf(bfloat(b + 1)) > lim:
        b += 1
    unf = b
    # |x| <= 87: exp(x) within binary32's normal range with room to spare
    assert mp.exp(-87) > mp.mpf(2) ** -126 * 1.1 and mp.exp(87) < mp.mpf(2) ** 126
    return ovf, unf


def main():
    check = '--check' in sys.argv
    hi_bits, rho, tabrel = table()
    print("N/ln2   = %s" % cfmt(INVLN2N))
    print("C_HI    = %s (%d bits)" % (cfmt(C_HI), CBITS))
    print("C_LO    = %s" % cfmt(C_LO))
    print("|C_HI + C_LO - ln2/N| = 2^%.2f" % log2(abs(C_HI + C_LO - LN2_N)))
    print("T bits - (j << %d):" % (52 - NB))
    tlines = ["        " + ", ".join("0x%016xu" % v for v in hi_bits[i:i + 4]) + "," for i in range(0, N, 4)]
    print("\n".join(tlines))
    print("rho:")
    rlines = ["        " + ", ".join(cfmt(v) for v in rho[i:i + 4]) + "," for i in range(0, N, 4)]
    print("\n".join(rlines))
    print("max |T[j] / 2^(j/N) - 1| = %.6f 2^-53" % (tabrel / U))
    ovf, unf = thresholds()
    print("overflow: x > %s (0x%08x) -> +inf" % (float(bfloat(ovf)).hex(), ovf))
    print("underflow: x < %s (0x%08x) -> +0" % (float(bfloat(unf)).hex(), unf))
    worst, E, coeffs = expf_bound()
    # the evaluation bound above takes s as exact: the extra rounding of
    # s = RN(A B) is in table2's error (the worse of rounded and exact)
    tab2 = table2()
    worst2, _, _ = expf_bound(tabrel=tab2, name='expf, two tables (attention.h AVX-512F)')
    wf, ef = expf_fast_bound()
    ok = True
    if check:
        # exp.h and the table and reduction it shares (detail/exp_table.h)
        src = ''.join(open(os.path.join(ROOT, 'include', 'repdl', *p)).read()
                      for p in (('exp.h',), ('detail', 'exp_table.h')))
        vals = header_numbers(src)[1]
        needles = tlines + ["0x%08xu" % ovf, "0x%08xu" % unf]
        for n in needles:
            n = n.strip()
            if n not in src:
                print("exp.h lacks:", n)
                ok = False
        for v in list(rho) + [INVLN2N, float(C_HI), C_LO] + [float.fromhex(coeffs['c%d' % i]) for i in range(2, 5)]:
            if v not in vals and -v not in vals and v != 0.0:
                print("exp.h lacks the constant", repr(v))
                ok = False
        m = re.search(r'#define REPDL__EXPF_ERR (\S+)', src)
        Eh = mp.mpf(float(m.group(1)))
        if not E <= Eh:
            print("REPDL__EXPF_ERR %s is below the bound" % m.group(1))
            ok = False
        # repdl__round_ok_normal(y, 4) needs the bound (without round_ok's own
        # rounding) below (4 - 1) 2^-53 / (1 + 2^-50)
        if not worst * (1 + mp.mpf(2) ** -50) < 3 * U:
            print("c = 4 of repdl__round_ok_normal is too small")
            ok = False
        # attention.h's AVX-512F kernel: repdl__round_ok_normal(y, 8) with s
        # from the two 16-entry tables
        att = open(os.path.join(ROOT, 'include', 'repdl', 'attention.h')).read()
        if 'REPDL__ATTN_EXP2T_C 8u' not in att:
            print("attention.h lacks REPDL__ATTN_EXP2T_C 8u")
            ok = False
        if not worst2 * (1 + mp.mpf(2) ** -50) < 7 * U:
            print("c = 8 of attention.h's two-table kernel is too small")
            ok = False
        for v in [float(c) for c in ef] + [d(N / mp.log(2))]:
            if v not in vals and -v not in vals:
                print("exp.h lacks the fast-path constant", repr(v))
                ok = False
        m = re.search(r'#define REPDL__EXPF_FAST_C (0x[0-9a-f]+)u', src)
        if not m or int(m.group(1), 16) != FAST_C:
            print("REPDL__EXPF_FAST_C is not 0x%x" % FAST_C)
            ok = False
        if not wf * (1 + mp.mpf(2) ** -50) < (FAST_C - 1) * U:
            print("c = 0x%x of the fast path is too small" % FAST_C)
            ok = False
        if "0x%08xu" % XMAX_FAST not in src:
            print("exp.h lacks 0x%08xu" % XMAX_FAST)
            ok = False
        print("check of exp.h:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
