#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/gelu_vec.py: the coefficients and the error bound of the
vector forward gelu of include/repdl/detail/gelu_vec.h.

    /usr/bin/python3 reference/gen/gelu_vec.py [SOLLYA_OUTPUT]
        (runs sollya on reference/gen/gelu_vec.sollya, about 3 minutes
        of CPU (the supnorm of P_S), or reads that run's saved output;
        needs sollya and mpmath)

Prints the coefficient table (decimal, shortest round trip, asserted),
the reduction constants of exp, and the bound on |y / gelu(x) - 1| of
the vector evaluation, in units u = 2^-53, counting:
  * t = (u - 25/8)/(u + 6): three roundings (the subtraction and the
    addition are exact for u >= 2^-26, the division rounds), moved
    through P_S by max |t P_S'(t) / P_S(t)| (mpmath on a fine grid of
    the interval, with a 1.1 safety factor);
  * P_S: Sollya's supnorm bound, plus the Horner roundings bounded in
    exact rational arithmetic (two per step; a fused multiply-add drops
    one, so the bound holds fused or not; horner_bound of
    reference/gen/fperr.py), over min S;
  * e = 2^k E(r): the reduction's rounding (|dr| < 2^-55 + 2^-100) through
    E'/E <= 1.5, E's supnorm bound, E's Horner roundings over min E;
    the scaling by 2^k is exact;
  * q = e S: one rounding; x < 0: y = x q, one more; x > 0: 1 - q
    (q <= 1/2 (1 + 2^-40): q's relative error at most, plus one rounding)
    and x (1 - q), one more.
The bound must stay below (c - 1) u for the rounding test's c
(detail/cr.h's repdl__round_ok_normal), asserted.
"""
import re
import subprocess
import sys
from fractions import Fraction as Fr

import mpmath as mp

from fperr import horner_bound

mp.mp.prec = 200
uu = Fr(1, 2 ** 53)
C_TEST = 128


if len(sys.argv) > 1:
    out = open(sys.argv[1]).read()          # a saved run of the .sollya file
else:
    out = subprocess.run(['sollya', 'reference/gen/gelu_vec.sollya'], capture_output=True, text=True,
                         check=True).stdout
blocks = re.findall(r'relative error < 2\^(-[0-9.]+) \*/\n\{\n(.*?)\}', out, re.S)
assert len(blocks) == 2
eS = float(blocks[0][0])
eE = float(blocks[1][0])
P = [float.fromhex(h) for h in re.findall(r'(-?0x[0-9a-f.]+p-?[0-9]+)', blocks[0][1])]
E = [float.fromhex(h) for h in re.findall(r'(-?0x[0-9a-f.]+p-?[0-9]+)', blocks[1][1])]
assert len(P) == 19 and len(E) == 12 and E[0] == 1.0 and E[1] == 1.0
print('/* gelu_vec coefficients: P_S (19), E (12) */')
for cc in P + E:
    assert float(repr(cc)) == cc
print(',\n'.join('        ' + repr(cc) for cc in P + E))

# exp's reduction constants
L2E = float(1 / mp.log(2))
HI = float(mp.log(2))
LO = float(mp.log(2) - mp.mpf(HI))
assert abs(mp.mpf(HI) + mp.mpf(LO) - mp.log(2)) < mp.mpf(2) ** -106
assert (HI, LO, L2E) == (0.6931471805599453, 2.3190468138462996e-17, 1.4426950408889634)  # gelu_vec.h's
print('log2(e) %r, LN2_HI %r, LN2_LO %r' % (L2E, HI, LO))
# the shifter's k is the nearest integer to a L2E, |a| <= 84.5:
# |r| <= ln2/2 + 84.5 |L2E - 1/ln2| ln2 + 122 |ln2 - HI - LO|
rmax = mp.log(2) / 2 + mp.mpf(84.5) * abs(mp.mpf(L2E) - 1 / mp.log(2)) * mp.log(2) + 1e-25
assert rmax < mp.mpf('0.3466')
print('|r| <= %.12f < 0.3466' % float(rmax))

Sf = lambda v: mp.erfc(v / mp.sqrt(2)) / 2 * mp.exp(v * v / 2)
T0, T1 = Fr(-25, 48), Fr(79, 152)
assert Fr(0 - Fr(25, 8)) / (0 + 6) == T0 and Fr(13 - Fr(25, 8)) / (13 + 6) == T1
V = max(abs(T0), abs(T1)) * (1 + 4 * uu)
Smin = Sf(mp.mpf(13))                      # S decreases
e_hS = horner_bound(P, V) / Fr(float(Smin) * (1 - 2 ** -40))
# t's three roundings through P: |t P'(t) / P(t)|
Pp = lambda t: sum(k * P[k] * t ** (k - 1) for k in range(1, 19))
Pv = lambda t: sum(P[k] * t ** k for k in range(19))
sens = max(abs(t * Pp(t) / Pv(t)) for t in mp.linspace(mp.mpf(-25) / 48, mp.mpf(79) / 152, 20001)) * mp.mpf(1.1)
e_t = float(sens) * 3 * 1.0000001
S_tot = e_t + float(e_hS / uu) + 2.0 ** eS * 2 ** 53
print('S: t rounding %.3f u (sensitivity %.4f), Horner %.3f u, approximation %.3f u: %.3f u'
      % (e_t, float(sens), float(e_hS / uu), 2.0 ** eS * 2 ** 53, S_tot))
Emin = mp.exp(-mp.mpf('0.3466'))
e_hE = horner_bound(E, Fr(0.3466) * (1 + uu)) / Fr(float(Emin) * (1 - 2 ** -40))
e_r = (2.0 ** -55 + 2.0 ** -100) * 1.5 * 2 ** 53
E_tot = e_r + float(e_hE / uu) + 2.0 ** eE * 2 ** 53
print('e: reduction %.3f u, Horner %.3f u, approximation %.3f u: %.3f u'
      % (e_r, float(e_hE / uu), 2.0 ** eE * 2 ** 53, E_tot))
Q_tot = (S_tot + E_tot + 1) * 1.0000001
Y_tot = Q_tot + 2
print('q within %.3f u, y within %.3f u < (c - 1) u = %d u for c = %d; rounding test fails for'
      ' about 2 c / 2^29 = %.2g of the lanes' % (Q_tot, Y_tot, C_TEST - 1, C_TEST, 2.0 * C_TEST / 2 ** 29))
assert Y_tot < C_TEST - 1
