/* repdl/log.h: correctly rounded natural logarithm of a binary32 value.

   Accuracy: repdl_log_f32(x) is log(x) rounded to nearest-even binary32 for
   every binary32 x.  log(+-0) = -inf, log(+inf) = +inf, log(1) = +0,
   log(x < 0) (-inf included) and log(NaN) = the canonical NaN 0x7fc00000.
   Subnormal inputs are ordinary inputs; no result is subnormal or
   overflows.  Proven by comparing all 2^32 inputs with MPFR, in both
   contracted and uncontracted builds (docs/functions/logf.md).

   Algorithm, in double:
     x = 2^e m,  m in [OFF, 2 OFF), OFF = 0x1.668p-1 (about 0.7012)
     log(x) = e ln2 + (-log c_i) + log1p(r),   r = m c_i - 1, |r| <= 2^-8
     y = ((e LN2 + T_i) + r) + r^2 q(r):       |y / log(x) - 1| < 2^-50.39
   i is the top 7 bits of m's mantissa (counted from OFF), c_i a binary32
   near 1/m on interval i and T_i = RN(-log c_i).  m c_i is exact in double
   (24 + 24 bits) and lies in [1/2, 2], so r = m c_i - 1 is exact
   (Sterbenz), fused or not.  1.0 lies inside interval 76, whose c is
   exactly 1 and T exactly 0: near x = 1, y = log1p(x - 1) with x - 1 exact,
   so y keeps its relative accuracy however small log(x) is.  Then y is
   rounded to binary32 when a rounding test on y's bits
   (detail/cr.h's repdl__round_ok_normal), or else detail/cr.h's test, proves that
   rounding correct; the few other inputs are listed, with their correctly
   rounded results, in detail/logf_hard.inc.

   Table and error bound: reference/gen/logf.py (which checks this file's
   table and coefficients with --check); polynomial:
   reference/gen/logf.sollya.

   Also: repdl_log_array_f32(n, x, out), the same results for an array, in a
   form that compilers vectorize. */
#ifndef REPDL_LOG_H
#define REPDL_LOG_H

#include "config.h"
#include "detail/cr.h"

/* Relative error bound of repdl__logf_y's y on every path (fused or not):
   the evaluation's bound is 2^-50.392 = 6.10 u (u = 2^-53, worst at
   e = -1, m near 2 OFF: log(x) = -0.3466); E leaves room for the 2^-53
   roundings of cr.h's test (which the hard-case generator uses), since
   eps/(1 - eps) <= E - u(1 + E) (reference/gen/logf.py checks it). */
#define REPDL__LOGF_ERR 0x1p-50

/* y ~ log(x), |y / log(x) - 1| < 2^-50.39, for the bits u of a positive
   normal binary32 x, or for u = bits(x 2^23) - (23 << 23) when x is
   subnormal (that is, u - 0x3f338000 holds e in its top 9 bits as a two's
   complement number and m's mantissa in its low 23 bits). */
REPDL_FN double repdl__logf_core(uint32_t u)
{
    /* {c_i, T_i = RN(-log c_i)}: c_i = RN32(2/(lo_i + hi_i)) on interval i,
       c_76 = 1.  |T_i + log c_i| <= 2^-54 |T_i|.  From reference/gen/logf.py. */
    static const double tab[256] = {
        0x1.6c16c2p+0, -0x1.68ac8589c6a0fp-2, /*   0: m in [0.701172, 0.705078] */
        0x1.6a13cep+0, -0x1.6300334baac3cp-2, /*   1: m in [0.705078, 0.708984] */
        0x1.681682p+0, -0x1.5d5bdfa595f2ap-2, /*   2: m in [0.708984, 0.712891] */
        0x1.661ec8p+0, -0x1.57bf791c8d1ddp-2, /*   3: m in [0.712891, 0.716797] */
        0x1.642c86p+0, -0x1.522ae1b38a3d5p-2, /*   4: m in [0.716797, 0.720703] */
        0x1.623fa8p+0, -0x1.4c9e0b8172c37p-2, /*   5: m in [0.720703, 0.724609] */
        0x1.605816p+0, -0x1.4718dc171c41bp-2, /*   6: m in [0.724609, 0.728516] */
        0x1.5e75bcp+0, -0x1.419b438d5e8c4p-2, /*   7: m in [0.728516, 0.732422] */
        0x1.5c9884p+0, -0x1.3c252b3333168p-2, /*   8: m in [0.732422, 0.736328] */
        0x1.5ac058p+0, -0x1.36b67b4be10f9p-2, /*   9: m in [0.736328, 0.740234] */
        0x1.58ed24p+0, -0x1.314f20fd35cd3p-2, /*  10: m in [0.740234, 0.744141] */
        0x1.571ed4p+0, -0x1.2bef087dc9353p-2, /*  11: m in [0.744141, 0.748047] */
        0x1.555556p+0, -0x1.269623134db8ap-2, /*  12: m in [0.748047, 0.751953] */
        0x1.539096p+0, -0x1.21445b28eb8afp-2, /*  13: m in [0.751953, 0.755859] */
        0x1.51d08p+0, -0x1.1bf99a35a6b75p-2, /*  14: m in [0.755859, 0.759766] */
        0x1.501502p+0, -0x1.16b5ced2cfb6bp-2, /*  15: m in [0.759766, 0.763672] */
        0x1.4e5e0cp+0, -0x1.1178ece27e44fp-2, /*  16: m in [0.763672, 0.767578] */
        0x1.4cab8ap+0, -0x1.0c42db3e162b5p-2, /*  17: m in [0.767578, 0.771484] */
        0x1.4afd6ap+0, -0x1.071385f4d5862p-2, /*  18: m in [0.771484, 0.775391] */
        0x1.4953ap+0, -0x1.01eaeae26c654p-2, /*  19: m in [0.775391, 0.779297] */
        0x1.47ae16p+0, -0x1.f991d04b3b31fp-3, /*  20: m in [0.779297, 0.783203] */
        0x1.460cbep+0, -0x1.ef5ae7bdcff8dp-3, /*  21: m in [0.783203, 0.787109] */
        0x1.446f88p+0, -0x1.e530fa7e70fa4p-3, /*  22: m in [0.787109, 0.791016] */
        0x1.42d664p+0, -0x1.db13e56d488d5p-3, /*  23: m in [0.791016, 0.794922] */
        0x1.414142p+0, -0x1.d10383e655e65p-3, /*  24: m in [0.794922, 0.798828] */
        0x1.3fb014p+0, -0x1.c6ffbc8f00f71p-3, /*  25: m in [0.798828, 0.802734] */
        0x1.3e22ccp+0, -0x1.bd0874c3bd8abp-3, /*  26: m in [0.802734, 0.806641] */
        0x1.3c995cp+0, -0x1.b31d9095bcdc1p-3, /*  27: m in [0.806641, 0.810547] */
        0x1.3b13b2p+0, -0x1.a93ed8c8ad9cap-3, /*  28: m in [0.810547, 0.814453] */
        0x1.3991c4p+0, -0x1.9f6c489089622p-3, /*  29: m in [0.814453, 0.818359] */
        0x1.381382p+0, -0x1.95a5b2ef70165p-3, /*  30: m in [0.818359, 0.822266] */
        0x1.3698ep+0, -0x1.8beb03b38fe73p-3, /*  31: m in [0.822266, 0.826172] */
        0x1.3521dp+0, -0x1.823c18551a3bep-3, /*  32: m in [0.826172, 0.830078] */
        0x1.33ae46p+0, -0x1.7898da4444c6fp-3, /*  33: m in [0.830078, 0.833984] */
        0x1.323e36p+0, -0x1.6f0131d756a68p-3, /*  34: m in [0.833984, 0.837891] */
        0x1.30d19p+0, -0x1.6574eb68c133ap-3, /*  35: m in [0.837891, 0.841797] */
        0x1.2f684cp+0, -0x1.5bf407b543db1p-3, /*  36: m in [0.841797, 0.845703] */
        0x1.2e025cp+0, -0x1.527e5e2a1b58dp-3, /*  37: m in [0.845703, 0.849609] */
        0x1.2c9fb6p+0, -0x1.4913e0133b523p-3, /*  38: m in [0.849609, 0.853516] */
        0x1.2b404cp+0, -0x1.3fb462799288ap-3, /*  39: m in [0.853516, 0.857422] */
        0x1.29e414p+0, -0x1.365fd48158fbcp-3, /*  40: m in [0.857422, 0.861328] */
        0x1.288b02p+0, -0x1.2d16169868118p-3, /*  41: m in [0.861328, 0.865234] */
        0x1.27350cp+0, -0x1.23d715e49c1f7p-3, /*  42: m in [0.865234, 0.869141] */
        0x1.25e228p+0, -0x1.1aa2bea23f6fcp-3, /*  43: m in [0.869141, 0.873047] */
        0x1.24924ap+0, -0x1.1178ee227e458p-3, /*  44: m in [0.873047, 0.876953] */
        0x1.234568p+0, -0x1.08598e99e39fcp-3, /*  45: m in [0.876953, 0.880859] */
        0x1.21fb78p+0, -0x1.fe89129dbd565p-4, /*  46: m in [0.880859, 0.884766] */
        0x1.20b472p+0, -0x1.ec73a990a1089p-4, /*  47: m in [0.884766, 0.888672] */
        0x1.1f7048p+0, -0x1.da727838446ap-4, /*  48: m in [0.888672, 0.892578] */
        0x1.1e2ef4p+0, -0x1.c885845bc4b1ap-4, /*  49: m in [0.892578, 0.896484] */
        0x1.1cf06cp+0, -0x1.b6ac995ad5a94p-4, /*  50: m in [0.896484, 0.900391] */
        0x1.1bb4a4p+0, -0x1.a4e763cb1bc38p-4, /*  51: m in [0.900391, 0.904297] */
        0x1.1a7b96p+0, -0x1.9335e4d594988p-4, /*  52: m in [0.904297, 0.908203] */
        0x1.194538p+0, -0x1.8197e2740e3fp-4, /*  53: m in [0.908203, 0.912109] */
        0x1.181182p+0, -0x1.700d3deeac089p-4, /*  54: m in [0.912109, 0.916016] */
        0x1.16e06ap+0, -0x1.5e95b9b9790f2p-4, /*  55: m in [0.916016, 0.919922] */
        0x1.15b1e6p+0, -0x1.4d31165207eacp-4, /*  56: m in [0.919922, 0.923828] */
        0x1.1485f2p+0, -0x1.3bdf6b1d1eddap-4, /*  57: m in [0.923828, 0.927734] */
        0x1.135c82p+0, -0x1.2aa0580471746p-4, /*  58: m in [0.927734, 0.931641] */
        0x1.12359p+0, -0x1.1973d4146545ep-4, /*  59: m in [0.931641, 0.935547] */
        0x1.111112p+0, -0x1.08599959e39a5p-4, /*  60: m in [0.935547, 0.939453] */
        0x1.0fef02p+0, -0x1.eea338406b7b4p-5, /*  61: m in [0.939453, 0.943359] */
        0x1.0ecf58p+0, -0x1.ccb762dddb163p-5, /*  62: m in [0.943359, 0.947266] */
        0x1.0db20cp+0, -0x1.aaef598fb0f0dp-5, /*  63: m in [0.947266, 0.951172] */
        0x1.0c9716p+0, -0x1.894ac049fb253p-5, /*  64: m in [0.951172, 0.955078] */
        0x1.0b7e7p+0, -0x1.67c9752d4b9efp-5, /*  65: m in [0.955078, 0.958984] */
        0x1.0a6812p+0, -0x1.466b16c2de23bp-5, /*  66: m in [0.958984, 0.962891] */
        0x1.0953f4p+0, -0x1.252f4078d1811p-5, /*  67: m in [0.962891, 0.966797] */
        0x1.084212p+0, -0x1.0416069e74233p-5, /*  68: m in [0.966797, 0.970703] */
        0x1.073262p+0, -0x1.c63d83414a775p-6, /*  69: m in [0.970703, 0.974609] */
        0x1.0624dep+0, -0x1.8492858c8c979p-6, /*  70: m in [0.974609, 0.978516] */
        0x1.05198p+0, -0x1.432ab25980c41p-6, /*  71: m in [0.978516, 0.982422] */
        0x1.041042p+0, -0x1.0205a38935667p-6, /*  72: m in [0.982422, 0.986328] */
        0x1.03091cp+0, -0x1.8244e0388a0dcp-7, /*  73: m in [0.986328, 0.990234] */
        0x1.020408p+0, -0x1.01014f588de6dp-7, /*  74: m in [0.990234, 0.994141] */
        0x1.010102p+0, -0x1.0081539588355p-8, /*  75: m in [0.994141, 0.998047] */
        0x1p+0, 0x0p+0, /*  76: m in [0.998047, 1.003906] */
        0x1.fc07f2p-1, 0x1.fe01b4b106eafp-8, /*  77: m in [1.003906, 1.011719] */
        0x1.f81f84p-1, 0x1.fc0a070fc0825p-7, /*  78: m in [1.011719, 1.019531] */
        0x1.f4465cp-1, 0x1.7b916b7d5b36ep-6, /*  79: m in [1.019531, 1.027344] */
        0x1.f07c2p-1, 0x1.f82990e78338p-6, /*  80: m in [1.027344, 1.035156] */
        0x1.ecc07ep-1, 0x1.39e84cdfebf82p-5, /*  81: m in [1.035156, 1.042969] */
        0x1.e9131cp-1, 0x1.77457a632dd6bp-5, /*  82: m in [1.042969, 1.050781] */
        0x1.e573aep-1, 0x1.b42dbed197252p-5, /*  83: m in [1.050781, 1.058594] */
        0x1.e1e1e4p-1, 0x1.f0a2e801163eap-5, /*  84: m in [1.058594, 1.066406] */
        0x1.de5d7p-1, 0x1.16535fea37b51p-4, /*  85: m in [1.066406, 1.074219] */
        0x1.dae60ap-1, 0x1.341d6321bd2c8p-4, /*  86: m in [1.074219, 1.082031] */
        0x1.d77b66p-1, 0x1.51b06dd061852p-4, /*  87: m in [1.082031, 1.089844] */
        0x1.d41d44p-1, 0x1.6f0d15ae56cp-4, /*  88: m in [1.089844, 1.097656] */
        0x1.d0cb5ap-1, 0x1.8c34544319b4bp-4, /*  89: m in [1.097656, 1.105469] */
        0x1.cd856ap-1, 0x1.a926c6e4ad5b5p-4, /*  90: m in [1.105469, 1.113281] */
        0x1.ca4b32p-1, 0x1.c5e53a15bc7b2p-4, /*  91: m in [1.113281, 1.121094] */
        0x1.c71c74p-1, 0x1.e27062e2af3aep-4, /*  92: m in [1.121094, 1.128906] */
        0x1.c3f8f2p-1, 0x1.fec901fdbeb4dp-4, /*  93: m in [1.128906, 1.136719] */
        0x1.c0e072p-1, 0x1.0d77dfad08e9bp-3, /*  94: m in [1.136719, 1.144531] */
        0x1.bdd2bap-1, 0x1.1b72a6e2f67cap-3, /*  95: m in [1.144531, 1.152344] */
        0x1.bacf92p-1, 0x1.29552c41ff52ep-3, /*  96: m in [1.152344, 1.160156] */
        0x1.b7d6c6p-1, 0x1.371fb811e8fd7p-3, /*  97: m in [1.160156, 1.167969] */
        0x1.b4e81cp-1, 0x1.44d2b38cb7d29p-3, /*  98: m in [1.167969, 1.175781] */
        0x1.b20366p-1, 0x1.526e54ea1b48ep-3, /*  99: m in [1.175781, 1.183594] */
        0x1.af286ep-1, 0x1.5ff2fc8a79442p-3, /* 100: m in [1.183594, 1.191406] */
        0x1.ac5704p-1, 0x1.6d60f3519d298p-3, /* 101: m in [1.191406, 1.199219] */
        0x1.a98ef8p-1, 0x1.7ab886a10d963p-3, /* 102: m in [1.199219, 1.207031] */
        0x1.a6d01cp-1, 0x1.87f9feb20c94bp-3, /* 103: m in [1.207031, 1.214844] */
        0x1.a41a42p-1, 0x1.9525a80f456b8p-3, /* 104: m in [1.214844, 1.222656] */
        0x1.a16d4p-1, 0x1.a23bbffe2b567p-3, /* 105: m in [1.222656, 1.230469] */
        0x1.9ec8eap-1, 0x1.af3c91880bffep-3, /* 106: m in [1.230469, 1.238281] */
        0x1.9c2d16p-1, 0x1.bc2861f2d8cf2p-3, /* 107: m in [1.238281, 1.246094] */
        0x1.99999ap-1, 0x1.c8ff7a79a9a26p-3, /* 108: m in [1.246094, 1.253906] */
        0x1.970e5p-1, 0x1.d5c21434fbb98p-3, /* 109: m in [1.253906, 1.261719] */
        0x1.948b12p-1, 0x1.e2706bc2af362p-3, /* 110: m in [1.261719, 1.269531] */
        0x1.920fb6p-1, 0x1.ef0ad5adc5968p-3, /* 111: m in [1.269531, 1.277344] */
        0x1.8f9c1ap-1, 0x1.fb918195e3e46p-3, /* 112: m in [1.277344, 1.285156] */
        0x1.8d301ap-1, 0x1.040256434d053p-2, /* 113: m in [1.285156, 1.292969] */
        0x1.8acb92p-1, 0x1.0a324b77390f2p-2, /* 114: m in [1.292969, 1.300781] */
        0x1.886e6p-1, 0x1.1058bd1ae4ae2p-2, /* 115: m in [1.300781, 1.308594] */
        0x1.861862p-1, 0x1.1675c97aba611p-2, /* 116: m in [1.308594, 1.316406] */
        0x1.83c978p-1, 0x1.1c898b36999fdp-2, /* 117: m in [1.316406, 1.324219] */
        0x1.818182p-1, 0x1.22941e6cf7969p-2, /* 118: m in [1.324219, 1.332031] */
        0x1.7f406p-1, 0x1.2895a0bde86a4p-2, /* 119: m in [1.332031, 1.339844] */
        0x1.7d05f6p-1, 0x1.2e8e268e11d65p-2, /* 120: m in [1.339844, 1.347656] */
        0x1.7ad222p-1, 0x1.347dd5c187d73p-2, /* 121: m in [1.347656, 1.355469] */
        0x1.78a4cap-1, 0x1.3a64c0269462p-2, /* 122: m in [1.355469, 1.363281] */
        0x1.767ddp-1, 0x1.404303a86a811p-2, /* 123: m in [1.363281, 1.371094] */
        0x1.745d18p-1, 0x1.4618ba21c5ecap-2, /* 124: m in [1.371094, 1.378906] */
        0x1.72428ap-1, 0x1.4be5f3af778e1p-2, /* 125: m in [1.378906, 1.386719] */
        0x1.702e06p-1, 0x1.51aad7c2df82ep-2, /* 126: m in [1.386719, 1.394531] */
        0x1.6e1f78p-1, 0x1.57676dd455a87p-2, /* 127: m in [1.394531, 1.402344] */
    };
    uint32_t t = u - 0x3f338000u;                 /* bits(OFF) */
    size_t i = (t >> 16) & 127u;                  /* size_t: what gcc's gathers take */
    /* e in [-149, 128]: the top 9 bits of t, signed.  C99 leaves the
       conversion to int32_t of t >= 2^31 and the right shift of a negative
       number to the compiler; gcc, clang, nvcc and MSVC wrap and shift
       arithmetically (the exhaustive tests check the builds). */
    int e = (int32_t)t >> 23;
    double m = (double)repdl__asfloat(u - (t & 0xff800000u)); /* in [OFF, 2 OFF), exact */
    double c = tab[2 * i], T = tab[2 * i + 1];
    /* m c has at most 48 significant bits and lies in [1/2, 2]: the product
       and the subtraction are both exact (so is a fused m*c - 1). */
    double r = repdl__dsub(repdl__dmul(m, c), 1.0);
    /* log1p(r) ~ r + r^2 q(r): degree-6, Sollya, [-2^-8, 2^-8],
       rel. error < 2^-54.8 (reference/gen/logf.sollya).
       P2 = r^2 q(r) = r^2 (a2 + a3 r) + r^4 ((a4 + a5 r) + a6 r^2), split
       for a short dependency chain.  |P2| < 2^-17 and |P2| < 2^-8.9 |r|, so
       its roundings (each <= u = 2^-53 relative, fewer when fused) stay
       below 2^-60 |r|. */
    double r2 = repdl__dmul(r, r);
    double q0 = repdl__dadd(-0x1p-1, repdl__dmul(0x1.55555555279e5p-2, r));
    double q1 = repdl__dadd(-0x1.ffffffffa0c25p-3, repdl__dmul(0x1.999b07518c62p-3, r));
    double r4 = repdl__dmul(r2, r2);
    double u1 = repdl__dadd(q1, repdl__dmul(r2, -0x1.5556a79fe776p-3));
    double p2 = repdl__dadd(repdl__dmul(r2, q0), repdl__dmul(r4, u1));
    /* s = e LN2 + T, LN2 = RN(ln 2) (|LN2 - ln 2| < 2^-55.2 ln 2): e LN2
       rounds (<= u |e LN2|, not at all when fused), the sum rounds
       (<= u |s|); e = 0: s = T exactly.  s + r rounds (<= u |s + r|;
       exact on interval 76 with e = 0, where s = +0), and so does the
       final sum (<= u |y|).  Summed over every e and every piece of every
       interval, against |log x|: < 6.10 u (reference/gen/logf.py). */
    double s = repdl__dadd(repdl__dmul((double)e, 0x1.62e42fefa39efp-1), T);
    return repdl__dadd(repdl__dadd(s, r), p2);
}

/* The rounding test of repdl_log_f32: detail/cr.h's repdl__round_ok_normal
   with c = TOL = E 2^53 = 8 (ulps of binary64): with
   |y / log(x) - 1| < E = REPDL__LOGF_ERR and |y| in [2^k, 2^(k+1)),
   |y - log(x)| < E 2^(k+1) = TOL ulp(y).  Valid because every result of
   logf is a normal binary32 (2^-24 < |log(x)| < 2^7 for x != 1, and
   y = +0 for x = 1).  When it fails, repdl_log_f32 still applies
   repdl__round_ok(y, E) and then the hard-case table.  (It fails only where
   a boundary lies within TOL ulp(y) <= 2E|y| of y, so even without the
   second test the table, made with 4E, would list every such input:
   docs/functions/logf.md.) */
#define REPDL__LOGF_TOL 8u

/* 1 when x takes the approximation path, with *y ~ log(x),
   |*y / log(x) - 1| < REPDL__LOGF_ERR; 0 for the special inputs (x <= 0,
   -0 included, +inf, NaN), whose results repdl_log_f32 gives exactly. */
REPDL_FN int repdl__logf_y(float x, double *y)
{
    uint32_t u = repdl__asuint(x);
    if (REPDL_UNLIKELY(u - 0x00800000u >= 0x7f000000u)) {
        /* not a positive normal number */
        if (u == 0u || u >= 0x7f800000u) return 0;  /* +-0, negative, +inf, NaN */
        /* positive subnormal: x 2^23 is exact and normal */
        u = repdl__asuint(repdl__fmul(x, 0x1p23f)) - (23u << 23);
    }
    *y = repdl__logf_core(u);
    return 1;
}

/* The exact results of the special inputs of repdl__logf_y. */
REPDL_FN float repdl__logf_special(float x)
{
    uint32_t u = repdl__asuint(x);
    if ((u << 1) == 0u) return repdl__asfloat(0xff800000u); /* log(+-0) = -inf */
    if (u == 0x7f800000u) return x;                          /* log(+inf) = +inf */
    return repdl__nanf();                                   /* x < 0, NaN */
}

/* Correctly rounded log(x) (see the top of this file). */
REPDL_API float repdl_log_f32(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__logf_y(x, &y))) return repdl__logf_special(x);
    if (REPDL_LIKELY(repdl__round_ok_normal(y, REPDL__LOGF_TOL))) return repdl__d2f(y);
    /* rare (about 2^-24 of the inputs): the shared test, then the table */
    if (repdl__round_ok(y, REPDL__LOGF_ERR)) return repdl__d2f(y);
    {
        /* inputs whose y fails the test with 4E, with MPFR's results
           (reference/hardcases.c) */
        static const repdl__hardcase tab[] = {
#include "detail/logf_hard.inc"
        };
        return repdl__hard_lookup(tab, (int)(sizeof tab / sizeof tab[0]), x, y);
    }
}

/* Chunk of repdl_log_array_f32: small enough for the stack of a GPU thread;
   a multiple of 8. */
#define REPDL__LOGF_CHUNK 128

/* The branch-free pass of repdl_log_array_f32 over one whole chunk: a fixed
   trip count, which gcc -O2's cheap vectorizer also accepts. */
REPDL_FN void repdl__logf_pass(float *dst, unsigned char *bad, const float *in)
{
    size_t k;
    for (k = 0; k < REPDL__LOGF_CHUNK; k++) {
        uint32_t u = repdl__asuint(in[k]);
        double y = repdl__logf_core(u);
        bad[k] = (unsigned char)((u - 0x00800000u >= 0x7f000000u)
                                 | !repdl__round_ok_normal(y, REPDL__LOGF_TOL));
        dst[k] = repdl__d2f(y);
    }
}

/* out[k] = repdl_log_f32(x[k]) for k < n, bit for bit.  out may be x itself
   (in place) but must not overlap it otherwise; n = 0 (x, out may then be
   NULL) does nothing.  Each chunk is copied (so that in-place calls keep
   their inputs), then run through a branch-free loop that compilers
   vectorize (gcc 12: -O2 and -O3 with 16-byte vectors and emulated
   gathers, -march=native with AVX2 or AVX-512 gathers): every element
   takes the approximation path, and specials (subnormals included) and
   inputs whose rounding test fails are flagged; then the flagged elements
   are redone by repdl_log_f32.  An unflagged element
   passed the rounding test, so its result is the correctly rounded one,
   which repdl_log_f32 returns too. */
REPDL_API void repdl_log_array_f32(size_t n, const float *x, float *out)
{
    /* the last, partial chunk is padded with 1.0f and written to res */
    size_t k0;
    for (k0 = 0; k0 < n; k0 += REPDL__LOGF_CHUNK) {
        float in[REPDL__LOGF_CHUNK], res[REPDL__LOGF_CHUNK];
        unsigned char bad[REPDL__LOGF_CHUNK];
        size_t len = n - k0 < REPDL__LOGF_CHUNK ? n - k0 : REPDL__LOGF_CHUNK, k;
        float *dst = len == REPDL__LOGF_CHUNK ? out + k0 : res;
        memcpy(in, x + k0, len * sizeof(float));
        for (k = len; k < REPDL__LOGF_CHUNK; k++) in[k] = 1.0f;
        repdl__logf_pass(dst, bad, in);
        for (k = 0; k < len; k += 8) {   /* flags are rare: skip 8 at a time */
            uint64_t w;
            memcpy(&w, bad + k, 8);
            if (REPDL_LIKELY(w == 0)) continue;
            {
                size_t j, end = k + 8 < len ? k + 8 : len;
                for (j = k; j < end; j++)
                    if (bad[j]) dst[j] = repdl_log_f32(in[j]);
            }
        }
        if (dst == res) memcpy(out + k0, res, len * sizeof(float));
    }
}

#endif /* REPDL_LOG_H */
