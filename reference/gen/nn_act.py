#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/nn_act.py: thresholds and error figures of
include/repdl/sigmoid.h and activation.h (docs/nn-act-pool.md).

    /usr/bin/python3 reference/gen/nn_act.py [--samples N]

Needs mpmath.  Prints:
  * sigmoid: the thresholds (x >= 17.5 rounds to 1; x < -0x1.9fe368p6
    rounds to +0; the |x| < 2^-12 argument, binade by binade) and the error
    bound of y = 1/(1 + e);
  * gelu (erf form), its backward pass: the double-precision evaluation of
    activation.h replayed operation by operation in Python floats (IEEE
    binary64, one rounding per operation, no FMA: the uncontracted path,
    which is the only path, every product feeding an add being behind
    repdl__dkeep), compared with mpmath at 100 digits on a sample of
    binary32 inputs: the largest relative error before the final rounding
    to binary32.  This is a measurement on a dense sample, not a proof;
    the approximation errors of the polynomials are Sollya's
    (reference/gen/nn_act.sollya; supnorm bounds for R1, R2, R3).
    (softplus is correctly rounded now: its bound is act_cr.py's.)
"""
import re
import struct
import sys

import mpmath as mp

mp.mp.dps = 100


def f32(b):
    return struct.unpack('<f', struct.pack('<I', b))[0]


def bits32(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def rn32(v):
    return struct.unpack('<f', struct.pack('<f', float(v)))[0]  # double rounding fine for a print


# ---- sigmoid ----
def sigmoid_checks():
    one_minus = mp.exp(-mp.mpf(17.5))
    assert one_minus < mp.mpf(2) ** -25
    print("sigmoid: 1 - sigma(17.5) < e^-17.5 = 2^%.3f < 2^-25: x >= 17.5 rounds to 1"
          % float(mp.log(one_minus, 2)))
    xlo = f32(0xc2cff1b5)             # the binary32 just below -0x1.9fe368p6
    v = mp.exp(mp.mpf(xlo))
    assert v < mp.mpf(2) ** -150
    print("sigmoid: sigma(x) < e^x <= e^%r = 2^%.4f < 2^-150 for x < -0x1.9fe368p6: rounds to +0"
          % (xlo, float(mp.log(v, 2))))
    # tiny: |x| < 2^-12: d = x/4 - (sigma(x) - 1/2) has x's sign and
    # 0 < |d| < ulp(x)/4 (so no boundary other than y1 lies between y1
    # and sigma(x)), and 1 ulp of binary64 near 1/2 is below that distance
    for e in range(-27, -12):
        for x in (mp.mpf(2) ** e, mp.mpf(2) ** (e + 1) * (1 - mp.mpf(2) ** -24)):
            d = x / 4 - (1 / (1 + mp.exp(-x)) - mp.mpf(1) / 2)
            ulp = mp.mpf(2) ** (e - 23)
            assert 0 < d < ulp / 4, (e, d)
            assert mp.mpf(2) ** -53 < ulp / 4
    print("sigmoid: |x| < 2^-12: 0 < d < ulp(x)/4 in every binade 2^-27 .. 2^-13 (checked at both ends)")
    u = mp.mpf(2) ** -53
    eexp = 3 * u                           # REPDL__EXPF_ERR - 2^-53 (exp.h)
    bound = (1 + eexp) * (1 + u) / (1 - u) - 1
    print("sigmoid: |y/sigma - 1| < %.4f 2^-53 (e: 3, 1 + e: 1, 1/(.): 1); with round_ok's own"
          " 2^-53: %.4f 2^-53 <= 8 2^-53 = REPDL__SIGMOIDF_ERR" % (bound / u, bound / u + 1))


# ---- replay of activation.h's double evaluation ----
T = [float(mp.power(2, mp.mpf(j) / 256)) for j in range(256)]


def act_exp(a):
    z = a * float.fromhex('0x1.71547652b82fep8') + float.fromhex('0x1.8p52')
    ki = struct.unpack('<q', struct.pack('<d', z))[0]
    j = ki & 255
    kd = z - float.fromhex('0x1.8p52')
    r = a - kd * float.fromhex('0x1.62e42fefap-9')
    r = r - kd * float.fromhex('0x1.cf79abc9e3b3ap-48')
    k = (ki - j) // 256 if False else None  # (k is carried by the bits below)
    del k
    kk = int(round(kd))
    s = T[j] * 2.0 ** ((kk - j) // 256)
    r2 = r * r
    p = float.fromhex('0x1.00000000000d2p-1') + r * float.fromhex('0x1.55555720cca8ep-3')
    p = p + r2 * float.fromhex('0x1.55554e56bbb14p-5')
    sr = s * r
    sr2 = s * r2
    return s + (sr + sr2 * p)


def horner(c, v):
    h = c[-1]
    for k in range(len(c) - 2, -1, -1):
        h = c[k] + h * v
    return h


def coeffs(name):
    src = open(__file__.replace('reference/gen/nn_act.py', 'include/repdl/activation.h')).read()
    start = src.index('static const double %s[' % name)
    body = src[src.index('{', start) + 1:src.index('};', start)]
    # the header writes them as exact decimals (hexfloat_to_decimal.py,
    # which asserted each one exact); comments are not values
    body = re.sub(r'/\*.*?\*/', ' ', body, flags=re.S)
    return [float(t) for t in body.replace('\n', ' ').split(',') if t.strip()]


def gelu_q(u):
    P1, R1, R2, R3 = coeffs('P1'), coeffs('R1'), coeffs('R2'), coeffs('R3')
    w = u * u
    e = act_exp(w * -0.5)
    if u < 1.0:
        return 0.5 - u * horner(P1, w), e
    if u < 2.0:
        return e * horner(R1, u), e
    if u < 4.0:
        return e * horner(R2, 1.0 / u), e
    return e * horner(R3, 1.0 / u), e


def measure(samples):
    import random
    rnd = random.Random(1)
    worst_q = worst_g = worst_d = mp.mpf(0)
    for _ in range(samples):
        u = f32(rnd.randrange(0x00800000, 0x41700000))     # (2^-126, 15)
        q, e = gelu_q(u)
        qt = mp.erfc(mp.mpf(u) / mp.sqrt(2)) / 2
        worst_q = max(worst_q, abs(mp.mpf(q) / qt - 1))
        # exp(-u^2/2)
        et = mp.exp(-mp.mpf(u) ** 2 / 2)
        worst_d = max(worst_d, abs(mp.mpf(e) / et - 1))
        # gelu'(x) for x = -u: Q - u e / sqrt(2 pi)
        g = q + ((-u) * e) * float.fromhex('0x1.9884533d43651p-2')
        gt = qt - mp.mpf(u) * et / mp.sqrt(2 * mp.pi)
        if gt != 0:
            worst_g = max(worst_g, abs(mp.mpf(g) / gt - 1))
    print("exp(-u^2/2) (act_exp): max rel err 2^%.2f" % float(mp.log(worst_d, 2)))
    print("gelu:  Q(u), u in (2^-126, 15): max rel err 2^%.2f (x Phi(x): the same for x < 0,"
          " smaller for x > 0)" % float(mp.log(worst_q, 2)))
    print("gelu': Phi(x) + x phi(x), x in (-15, 0): max rel err 2^%.2f" % float(mp.log(worst_g, 2)))


def main():
    n = 20000
    if len(sys.argv) > 2 and sys.argv[1] == '--samples':
        n = int(sys.argv[2])
    sigmoid_checks()
    measure(n)


if __name__ == '__main__':
    main()
