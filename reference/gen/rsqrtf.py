#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""reference/gen/rsqrtf.py: the error bound of repdl_rsqrt_f32
(include/repdl/rsqrt.h).

    /usr/bin/python3 reference/gen/rsqrtf.py            # print the bound
    /usr/bin/python3 reference/gen/rsqrtf.py --check    # also check rsqrt.h holds it

y = RN(1 / RN(sqrt(x))) for binary32 x > 0 converted exactly to double:
s = sqrt(x)(1 + e1), y = (1/s)(1 + e2), |e1|, |e2| <= u = 2^-53 (both
operations correctly rounded; no underflow or overflow: x in [2^-149,
2^128)), so |y sqrt(x) - 1| = |(1 + e2)/(1 + e1) - 1| <= 2u / (1 - u).
Nothing can be contracted (no product feeds a sum).  E adds u (1 + 2u/(1-u))
for repdl__round_ok's own products; repdl__round_ok_normal's c must satisfy
bound (1 + 2^-50) < (c - 1) u.  Needs mpmath (python3-mpmath).
"""
import os
import re
import sys

import mpmath as mp

mp.mp.prec = 200
U = mp.mpf(2) ** -53
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    err = 2 * U / (1 - U)
    E = err + U * (1 + err)
    cmin = int(mp.floor(err * (1 + mp.mpf(2) ** -50) / U)) + 2
    print("rsqrtf: |y sqrt(x) - 1| <= %s 2^-53; with round_ok's rounding E >= %s 2^-53 = 2^%.4f;"
          " repdl__round_ok_normal needs c >= %d" % (mp.nstr(err / U, 20), mp.nstr(E / U, 20),
                                                     float(mp.log(E, 2)), cmin))
    if '--check' in sys.argv:
        src = open(os.path.join(ROOT, 'include', 'repdl', 'rsqrt.h')).read()
        m = re.search(r'#define REPDL__RSQRTF_ERR (\S+)', src)
        ok = bool(m) and E <= mp.mpf(float(m.group(1)))
        ok = ok and 'repdl__round_ok_normal(y, 4u)' in src and cmin <= 4
        print("check of rsqrt.h:", "ok" if ok else "FAILED")
        return 0 if ok else 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
