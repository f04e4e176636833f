#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/reduce/params/gen.py V L: leaf_template.c with the leaf trees of a
V-lane, L-vector leaf written out (pairwise vertical tree of each lane, the
halving fold down to 16 lanes folded into the column loop, as reduce.h)."""
import os
import sys

V, L = int(sys.argv[1]), int(sys.argv[2])


def tree(t):
    while len(t) > 1:
        t = ['(%s + %s)' % (t[i], t[i + 1]) for i in range(0, len(t), 2)]
    return t[0]


def halve(a):  # a[g] = a[g] + a[g + h], h = len/2 .. 1
    while len(a) > 1:
        h = len(a) // 2
        a = ['(%s + %s)' % (a[g], a[g + h]) for g in range(h)]
    return a[0]


G = V // 16
full = halve([tree(['x[v + %d]' % (16 * g + j * V) for j in range(L)]) for g in range(G)])
stream = halve([tree(['q[%d][v + %d]' % (j, 16 * g) for j in range(L // 2)]) for g in range(G)])
trees = '''static inline float leaf_full(const float *x)
{
    float b[16];
    int v;
    for (v = 0; v < 16; v++) b[v] = %s;
    return fold16(b);
}
static inline float leaf_stream(const float *x)
{
    float q[L / 2][V], b[16];
    int k, v;
    for (k = 0; k < L / 2; k++)
        for (v = 0; v < V; v++) q[k][v] = x[2 * k * V + v] + x[(2 * k + 1) * V + v];
    __asm__ __volatile__("" : : "r"(q) : "memory");
    for (v = 0; v < 16; v++) b[v] = %s;
    return fold16(b);
}''' % (full, stream)
here = os.path.dirname(os.path.abspath(__file__))
print(open(os.path.join(here, 'leaf_template.c')).read().replace('@TREES@', trees))
