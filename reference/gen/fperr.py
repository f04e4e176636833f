# SPDX-License-Identifier: MIT
"""reference/gen/fperr.py: rounding-error bounds shared by the generator
scripts of reference/gen/ (act_cr.py, erff.py, gelu_vec.py import it; it
runs nothing on import).

horner_bound(cs, V) bounds |computed - exact| of the Horner evaluation
    h_n = c_n,  h_k = c_k + v h_{k+1}  (k = n-1 .. 0),  result h_0,
in binary64 (u = 2^-53 per rounding), for every exact v with |v| <= V.
Each step rounds twice, the product v h_{k+1} and the sum; a contracted
(fused) a*b + c rounds once, so the bound holds fused or not.  With e_k
the error of the computed h_k and H_k a bound on its magnitude:
    e_k <= V e_{k+1} + u |v h_{k+1}| + u |h_k|,
    H_k  = (|c_k| + V H_{k+1}) (1 + 2u) + e_k,
evaluated in exact rational arithmetic (fractions.Fraction) over the
coefficients' magnitudes, so the returned bound is itself exact.
"""
from fractions import Fraction as Fr

U53 = Fr(1, 2 ** 53)


def horner_bound(cs, V, u=U53):
    """|computed - exact Horner value| for |v| <= V, v exact; cs[0] is the
    constant term, cs[-1] the leading one."""
    err = Fr(0)
    hmax = abs(Fr(cs[-1]))
    for k in range(len(cs) - 2, -1, -1):
        prod = V * hmax                 # bound on the computed |v h_{k+1}|
        hk = abs(Fr(cs[k])) + prod
        err = V * err + u * prod + u * hk   # the product's rounding, the sum's
        hmax = hk * (1 + 2 * u) + err
    return err
