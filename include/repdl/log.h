/* SPDX-License-Identifier: MIT */
/* repdl/log.h: correctly rounded natural logarithm of a binary32 value.

   Accuracy: repdl_log_f32(x) is log(x) rounded to nearest-even binary32 for
   every binary32 x.  log(+-0) = -inf, log(+inf) = +inf, log(1) = +0,
   log(x < 0) (-inf included) and log(NaN) = the canonical NaN 0x7fc00000.
   Subnormal inputs are ordinary inputs; no result is subnormal or
   overflows.  Proven by comparing all 2^32 inputs with MPFR, in both
   contracted and uncontracted builds (docs/functions/logf.md).

   Algorithm, in double:
     x = 2^e m,  m in [OFF, 2 OFF), OFF = 0x1.67p-1 (0.701171875)
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

   Fast path (repdl__logf_fast, since 2026-11-27), tried first on every
   positive normal x: the same reduction and table, a degree-4 polynomial
   (reference/gen/log_fast.sollya), y = (e LN2 + T_i) + r t(r),
   |y / log(x) - 1| < 2^-36.85 (reference/gen/logf.py's analyse_fast),
   under a rounding test with c = 2^17; where it fails (about 2^-11 of the
   inputs) the algorithm above decides.  log2.h and log1p.h share its
   evaluation (repdl__log_fast_eval).

   Table and error bound: reference/gen/logf.py (which checks this file's
   table and coefficients with --check); polynomials:
   reference/gen/logf.sollya, reference/gen/log_fast.sollya.

   Also: repdl_log_array_f32(n, x, out), the same results for an array, in a
   form that compilers vectorize. */
#ifndef REPDL_LOG_H
#define REPDL_LOG_H

#include "config.h"
#include "detail/cr.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__logf_y's y on every path (fused or not):
   the evaluation's bound is 2^-50.392 = 6.10 u (u = 2^-53, worst at
   e = -1, m near 2 OFF: log(x) = -0.3466); E leaves room for the 2^-53
   roundings of cr.h's test (which the hard-case generator uses), since
   eps/(1 - eps) <= E - u(1 + E) (reference/gen/logf.py checks it). */
#define REPDL__LOGF_ERR 8.881784197001252e-16 /* 0x1p-50 */

/* The table {c_i, T_i = RN(-log c_i)}: c_i = RN32(2/(lo_i + hi_i)) on
   interval i, c_76 = 1.  |T_i + log c_i| <= 2^-54 |T_i|.  From
   reference/gen/logf.py. */
REPDL_FN const double *repdl__log_tab(void)
{
    static const double tab[256] = {
        1.4222222566604614, -0.35222061780373876, /*   0: m in [0.701172, 0.705078] */
        1.4143646955490112, -0.34668045186362284, /*   1: m in [0.705078, 0.708984] */
        1.4065934419631958, -0.3411707825484763, /*   2: m in [0.708984, 0.712891] */
        1.39890718460083, -0.3356913493801395, /*   3: m in [0.712891, 0.716797] */
        1.39130437374115, -0.3302417054970282, /*   4: m in [0.716797, 0.720703] */
        1.3837838172912598, -0.3248216436156243, /*   5: m in [0.720703, 0.724609] */
        1.376344084739685, -0.31943076983503865, /*   6: m in [0.724609, 0.728516] */
        1.3689839839935303, -0.31406884718274974, /*   7: m in [0.728516, 0.732422] */
        1.3617022037506104, -0.3087355375289662, /*   8: m in [0.732422, 0.736328] */
        1.3544974327087402, -0.30343048716191806, /*   9: m in [0.736328, 0.740234] */
        1.3473684787750244, -0.29815341515991384, /*  10: m in [0.740234, 0.744141] */
        1.3403141498565674, -0.2929040266774809, /*  11: m in [0.744141, 0.748047] */
        1.3333333730697632, -0.28768210225410284, /*  12: m in [0.748047, 0.751953] */
        1.3264249563217163, -0.2824873203015938, /*  13: m in [0.751953, 0.755859] */
        1.3195877075195312, -0.27731934502087735, /*  14: m in [0.755859, 0.759766] */
        1.312820553779602, -0.27217791711512146, /*  15: m in [0.759766, 0.763672] */
        1.3061225414276123, -0.2670628560295584, /*  16: m in [0.763672, 0.767578] */
        1.2994924783706665, -0.26197378698774837, /*  17: m in [0.767578, 0.771484] */
        1.2929292917251587, -0.25691041285370464, /*  18: m in [0.771484, 0.775391] */
        1.2864322662353516, -0.25187270171145326, /*  19: m in [0.775391, 0.779297] */
        1.28000009059906, -0.24686014871203896, /*  20: m in [0.779297, 0.783203] */
        1.2736319303512573, -0.24187260673533864, /*  21: m in [0.783203, 0.787109] */
        1.267326831817627, -0.23690982530945093, /*  22: m in [0.787109, 0.791016] */
        1.2610838413238525, -0.23197154273754586, /*  23: m in [0.791016, 0.794922] */
        1.2549020051956177, -0.2270574860256033, /*  24: m in [0.794922, 0.798828] */
        1.2487804889678955, -0.22216746627247688, /*  25: m in [0.798828, 0.802734] */
        1.2427184581756592, -0.21730128500320708, /*  26: m in [0.802734, 0.806641] */
        1.2367150783538818, -0.2124587341018991, /*  27: m in [0.806641, 0.810547] */
        1.2307692766189575, -0.20763940203114678, /*  28: m in [0.810547, 0.814453] */
        1.2248804569244385, -0.202843253050717, /*  29: m in [0.814453, 0.818359] */
        1.2190476655960083, -0.19806995194631863, /*  30: m in [0.818359, 0.822266] */
        1.2132701873779297, -0.19331934825639827, /*  31: m in [0.822266, 0.826172] */
        1.2075471878051758, -0.1885911847087111, /*  32: m in [0.826172, 0.830078] */
        1.2018779516220093, -0.18388529320563715, /*  33: m in [0.830078, 0.833984] */
        1.1962617635726929, -0.17920149744425662, /*  34: m in [0.833984, 0.837891] */
        1.1906976699829102, -0.17453941262660938, /*  35: m in [0.837891, 0.841797] */
        1.185185194015503, -0.16989904424597804, /*  36: m in [0.841797, 0.845703] */
        1.1797235012054443, -0.16528009000778035, /*  37: m in [0.845703, 0.849609] */
        1.1743119955062866, -0.16068244036379395, /*  38: m in [0.849609, 0.853516] */
        1.168949842453003, -0.15610577519902719, /*  39: m in [0.853516, 0.857422] */
        1.1636364459991455, -0.1515499689077141, /*  40: m in [0.857422, 0.861328] */
        1.158371090888977, -0.14701478626830844, /*  41: m in [0.861328, 0.865234] */
        1.1531531810760498, -0.14250008682166967, /*  42: m in [0.865234, 0.869141] */
        1.147982120513916, -0.13800572331086147, /*  43: m in [0.869141, 0.873047] */
        1.1428571939468384, -0.1335314373280052, /*  44: m in [0.873047, 0.876953] */
        1.1377778053283691, -0.129077066489529, /*  45: m in [0.876953, 0.880859] */
        1.1327433586120605, -0.12464244148198629, /*  46: m in [0.880859, 0.884766] */
        1.1277533769607544, -0.12022749172507664, /*  47: m in [0.884766, 0.888672] */
        1.1228070259094238, -0.11583182297570227, /*  48: m in [0.888672, 0.892578] */
        1.1179039478302002, -0.11145545675780646, /*  49: m in [0.892578, 0.896484] */
        1.1130435466766357, -0.10709819702365514, /*  50: m in [0.896484, 0.900391] */
        1.1082251071929932, -0.10275973302644636, /*  51: m in [0.900391, 0.904297] */
        1.1034482717514038, -0.09844006908796221, /*  52: m in [0.904297, 0.908203] */
        1.09871244430542, -0.09413898905121676, /*  53: m in [0.908203, 0.912109] */
        1.0940171480178833, -0.08985637848195628, /*  54: m in [0.912109, 0.916016] */
        1.0893617868423462, -0.08559200810083548, /*  55: m in [0.916016, 0.919922] */
        1.0847457647323608, -0.08134564131659755, /*  56: m in [0.919922, 0.923828] */
        1.0801688432693481, -0.07711736527738058, /*  57: m in [0.923828, 0.927734] */
        1.0756303071975708, -0.07290682203082807, /*  58: m in [0.927734, 0.931641] */
        1.0711297988891602, -0.068713978229725, /*  59: m in [0.931641, 0.935547] */
        1.0666667222976685, -0.064538573291634, /*  60: m in [0.935547, 0.939453] */
        1.062240719795227, -0.06038056360863156, /*  61: m in [0.939453, 0.943359] */
        1.0578513145446777, -0.05623978910338925, /*  62: m in [0.943359, 0.947266] */
        1.0534980297088623, -0.052116084026719724, /*  63: m in [0.947266, 0.951172] */
        1.0491803884506226, -0.04800927692835857, /*  64: m in [0.951172, 0.955078] */
        1.0448980331420898, -0.043919304715348655, /*  65: m in [0.955078, 0.958984] */
        1.040650486946106, -0.039845985846970376, /*  66: m in [0.958984, 0.962891] */
        1.0364372730255127, -0.03578913299729448, /*  67: m in [0.962891, 0.966797] */
        1.032258152961731, -0.03174878399625349, /*  68: m in [0.966797, 0.970703] */
        1.028112530708313, -0.02772462671160932, /*  69: m in [0.970703, 0.974609] */
        1.0240000486373901, -0.023716574114766218, /*  70: m in [0.974609, 0.978516] */
        1.0199203491210938, -0.019724535150100534, /*  71: m in [0.978516, 0.982422] */
        1.0158730745315552, -0.01574841471013713, /*  72: m in [0.982422, 0.986328] */
        1.0118577480316162, -0.011787995798912147, /*  73: m in [0.986328, 0.990234] */
        1.0078740119934082, -0.007843173735735587, /*  74: m in [0.990234, 0.994141] */
        1.003921627998352, -0.003913958460118068, /*  75: m in [0.994141, 0.998047] */
        1.0, 0.0, /*  76: m in [0.998047, 1.003906] */
        0.9922481179237366, 0.007782084097040772, /*  77: m in [1.003906, 1.011719] */
        0.9846154451370239, 0.015504125068677219, /*  78: m in [1.011719, 1.019531] */
        0.9770992994308472, 0.023166995020278795, /*  79: m in [1.019531, 1.027344] */
        0.9696969985961914, 0.030771628864431744, /*  80: m in [1.027344, 1.035156] */
        0.9624060988426208, 0.038318777223479664, /*  81: m in [1.035156, 1.042969] */
        0.9552239179611206, 0.04580949691574684, /*  82: m in [1.042969, 1.050781] */
        0.9481481909751892, 0.053244469349668436, /*  83: m in [1.050781, 1.058594] */
        0.9411765336990356, 0.060624554761211716, /*  84: m in [1.058594, 1.066406] */
        0.9343066215515137, 0.06795060602915483, /*  85: m in [1.066406, 1.074219] */
        0.9275363087654114, 0.07522333834988182, /*  86: m in [1.074219, 1.082031] */
        0.9208633303642273, 0.08244364639367177, /*  87: m in [1.082031, 1.089844] */
        0.9142857789993286, 0.08961208790917397, /*  88: m in [1.089844, 1.097656] */
        0.9078014492988586, 0.09672959246527772, /*  89: m in [1.097656, 1.105469] */
        0.9014084935188293, 0.10379674618419339, /*  90: m in [1.105469, 1.113281] */
        0.8951049447059631, 0.11081431092659846, /*  91: m in [1.113281, 1.121094] */
        0.888888955116272, 0.11778296115058026, /*  92: m in [1.121094, 1.128906] */
        0.8827586770057678, 0.1247034147053629, /*  93: m in [1.128906, 1.136719] */
        0.8767123818397522, 0.13157629725275374, /*  94: m in [1.136719, 1.144531] */
        0.8707483410835266, 0.1384022748960077, /*  95: m in [1.144531, 1.152344] */
        0.8648648858070374, 0.14518198563011125, /*  96: m in [1.152344, 1.160156] */
        0.8590604662895203, 0.15191596798570003, /*  97: m in [1.160156, 1.167969] */
        0.8533333539962769, 0.15860500596225194, /*  98: m in [1.167969, 1.175781] */
        0.8476821780204773, 0.16524950351177775, /*  99: m in [1.175781, 1.183594] */
        0.8421053290367126, 0.171850178695566, /* 100: m in [1.183594, 1.191406] */
        0.8366013765335083, 0.17840757458511258, /* 101: m in [1.191406, 1.199219] */
        0.8311688899993896, 0.18492226771349882, /* 102: m in [1.199219, 1.207031] */
        0.8258064985275269, 0.19139479618895403, /* 103: m in [1.207031, 1.214844] */
        0.8205128312110901, 0.19782573029140393, /* 104: m in [1.214844, 1.222656] */
        0.8152866363525391, 0.2042155265275298, /* 105: m in [1.222656, 1.230469] */
        0.8101266026496887, 0.21056474396164043, /* 106: m in [1.230469, 1.238281] */
        0.8050314784049988, 0.2168738987194057, /* 107: m in [1.238281, 1.246094] */
        0.800000011920929, 0.22314353641304868, /* 108: m in [1.246094, 1.253906] */
        0.7950310707092285, 0.22937408243839452, /* 109: m in [1.253906, 1.261719] */
        0.7901235222816467, 0.2355659884250612, /* 110: m in [1.261719, 1.269531] */
        0.7852761149406433, 0.24171988426742108, /* 111: m in [1.269531, 1.277344] */
        0.7804878354072571, 0.24783612478903388, /* 112: m in [1.277344, 1.285156] */
        0.7757576107978821, 0.2539151648118196, /* 113: m in [1.285156, 1.292969] */
        0.7710843682289124, 0.25995748439005617, /* 114: m in [1.292969, 1.300781] */
        0.7664670944213867, 0.2659635112442357, /* 115: m in [1.300781, 1.308594] */
        0.761904776096344, 0.27193369685719043, /* 116: m in [1.308594, 1.316406] */
        0.7573964595794678, 0.2778684379649404, /* 117: m in [1.316406, 1.324219] */
        0.7529411911964417, 0.2837681535728707, /* 118: m in [1.324219, 1.332031] */
        0.7485380172729492, 0.2896332851324621, /* 119: m in [1.332031, 1.339844] */
        0.7441861033439636, 0.29546413652538767, /* 120: m in [1.339844, 1.347656] */
        0.7398844361305237, 0.30126127237050254, /* 121: m in [1.347656, 1.355469] */
        0.7356322407722473, 0.3070249579951412, /* 122: m in [1.355469, 1.363281] */
        0.7314286231994629, 0.31275563922338373, /* 123: m in [1.363281, 1.371094] */
        0.7272727489471436, 0.31845370131621265, /* 124: m in [1.371094, 1.378906] */
        0.723163902759552, 0.32411938436952253, /* 125: m in [1.378906, 1.386719] */
        0.7191011309623718, 0.3297532761279197, /* 126: m in [1.386719, 1.394531] */
        0.7150838375091553, 0.33535548790443, /* 127: m in [1.394531, 1.402344] */
    };
    return tab;
}

/* m in [OFF, 2 OFF) (exact), its interval *i and the exponent *e with
   x = 2^e m, for the bits u of a positive normal binary32 x (or the
   shifted bits of a subnormal, as below). */
REPDL_FN double repdl__logf_split(uint32_t u, size_t *i, int *e)
{
    uint32_t t = u - 0x3f338000u;                 /* bits(OFF) */
    *i = (t >> 16) & 127u;                        /* size_t: what gcc's gathers take */
    /* e in [-149, 128]: the top 9 bits of t, signed.  C99 leaves the
       conversion to int32_t of t >= 2^31 and the right shift of a negative
       number to the compiler; gcc, clang, nvcc and MSVC wrap and shift
       arithmetically (the exhaustive tests check the builds). */
    *e = (int32_t)t >> 23;
    return repdl__f2d(repdl__asfloat(u - (t & 0xff800000u)));
}

/* r^2 q(r), the part of log1p(r) ~ r + r^2 q(r) beyond r, for |r| <= 2^-8:
   degree-6, Sollya, [-2^-8, 2^-8], rel. error < 2^-54.8
   (reference/gen/logf.sollya).  Evaluated as
   r^2 (a2 + a3 r) + r^4 ((a4 + a5 r) + a6 r^2), a short dependency chain;
   |r^2 q(r)| < 2^-17 and < 2^-8.9 |r|, so its roundings (each <= 2^-53
   relative, fewer when fused) stay below 2^-60 |r|.  Shared by
   repdl__logf_core and log1p.h's small arguments. */
REPDL_FN double repdl__logf_p2(double r)
{
    double r2 = repdl__dmul(r, r);
    double q0 = repdl__dadd(-0.5, repdl__dmul(0.33333333332293896, r));
    double q1 = repdl__dadd(-0.24999999998917236, repdl__dmul(0.20000272481552006, r));
    double r4 = repdl__dmul(r2, r2);
    double u1 = repdl__dadd(q1, repdl__dmul(r2, -0.16666918713320467));
    return repdl__dadd(repdl__dmul(r2, q0), repdl__dmul(r4, u1));
}

/* y ~ log(x), |y / log(x) - 1| < 2^-50.39, for the bits u of a positive
   normal binary32 x, or for u = bits(x 2^23) - (23 << 23) when x is
   subnormal (that is, u - 0x3f338000 holds e in its top 9 bits as a two's
   complement number and m's mantissa in its low 23 bits). */
REPDL_FN double repdl__logf_core(uint32_t u)
{
    size_t i;
    int e;
    double m = repdl__logf_split(u, &i, &e);                     /* exact */
    const double *tab = repdl__log_tab();
    double c = tab[2 * i], T = tab[2 * i + 1];
    /* m c has at most 48 significant bits and lies in [1/2, 2]: the product
       and the subtraction are both exact (so is a fused m*c - 1). */
    double r = repdl__dsub(repdl__dmul(m, c), 1.0);
    /* log1p(r) ~ r + p2, p2 = r^2 q(r) (repdl__logf_p2); u = 2^-53 below */
    double p2 = repdl__logf_p2(r);
    /* s = e LN2 + T, LN2 = RN(ln 2) (|LN2 - ln 2| < 2^-55.2 ln 2): e LN2
       rounds (<= u |e LN2|, not at all when fused), the sum rounds
       (<= u |s|); e = 0: s = T exactly.  s + r rounds (<= u |s + r|;
       exact on interval 76 with e = 0, where s = +0), and so does the
       final sum (<= u |y|).  Summed over every e and every piece of every
       interval, against |log x|: < 6.10 u (reference/gen/logf.py). */
    double s = repdl__dadd(repdl__dmul((double)e, 0.6931471805599453), T);
    return repdl__dadd(repdl__dadd(s, r), p2);
}

/* The fast paths of log, log2 (log2.h) and log1p (log1p.h), on table tab
   ({c_i, T_i}, T_i = RN(-log_b c_i)) and the polynomial
   r (c1 + c2 r + c3 r^2 + c4 r^3) ~ log_b(1 + r) (reference/gen/
   log_fast.sollya: degree 4, relative error < 2^-36.86 for log, 2^-37.32
   for log2): y = (e K + T_i) + r t, K = RN(log_b 2).  Every operation
   rounds once (or is fused); the bounds, per interval, exponent and piece:
   reference/gen/logf.py's analyse_fast. */
REPDL_FN double repdl__log_fast_eval(const double *tab, size_t i, int e, double m, double K,
                                     double c1, double c2, double c3, double c4)
{
    double c = tab[2 * i], T = tab[2 * i + 1];
    double r = repdl__dsub(repdl__dmul(m, c), 1.0);  /* exact for binary32 m (above) */
    double r2 = repdl__dmul(r, r);
    double t = repdl__dadd(repdl__dadd(c1, repdl__dmul(c2, r)),
                           repdl__dmul(r2, repdl__dadd(c3, repdl__dmul(c4, r))));
    double s = repdl__dadd(repdl__dmul((double)e, K), T);   /* e = 0: s = T */
    return repdl__dadd(s, repdl__dmul(r, t));
}

/* repdl__log_fast_eval for the natural logarithm: log.h's table, K = LN2,
   a1 = 1 exactly, a2..a4 (log_fast.sollya).  Also log1p.h's fast path. */
REPDL_FN double repdl__log_fast_ln(size_t i, int e, double m)
{
    return repdl__log_fast_eval(repdl__log_tab(), i, e, m, 0.6931471805599453,
                                1.0, -0.49999999999357847, 0.333335861516791, -0.2500027021982777);
}

/* c of repdl__round_ok_normal for repdl__logf_fast's y: its relative error
   is below 2^-36.85 = 72500 2^-53 < (c - 1) 2^-53 / (1 + 2^-50)
   (reference/gen/logf.py).  The test fails for about 2c / 2^29 = 2^-11 of
   the inputs. */
#define REPDL__LOGF_FAST_C 0x20000u /* 2^17 */

/* y ~ log(x) for the bits u of a positive normal binary32 x (on other
   bits a meaningless value, nothing undefined), the fast path:
   |y / log(x) - 1| < 2^-36.85, fused or not (reference/gen/logf.py).
   x = 1 gives y = +0 exactly (e = 0, T_76 = 0, r = 0). */
REPDL_FN double repdl__logf_fast(uint32_t u)
{
    size_t i;
    int e;
    double m = repdl__logf_split(u, &i, &e);
    return repdl__log_fast_ln(i, e, m);
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
        u = repdl__asuint(repdl__fmul(x, 8388608.0f)) - (23u << 23);
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

/* repdl_log_f32 off its fast path: x <= 0, subnormal, +inf, NaN and the
   fast rounding test's failures (the former path, unchanged). */
REPDL_FN_NOINLINE float repdl__logf_slow(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__logf_y(x, &y))) return repdl__logf_special(x);
    if (REPDL_LIKELY(repdl__round_ok_normal(y, REPDL__LOGF_TOL))) return repdl__d2f(y);
    {
        /* inputs whose y fails the test with 4E, with MPFR's results
           (reference/hardcases.c) */
        static const repdl__hardcase tab[] = {
#include "detail/logf_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__LOGF_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* Correctly rounded log(x) (see the top of this file). */
REPDL_API float repdl_log_f32(float x)
{
    /* the fast path on every input; one branch tests its domain (x a
       positive normal binary32) and its rounding test */
    uint32_t u = repdl__asuint(x);
    double y = repdl__logf_fast(u);
    if (REPDL_LIKELY((u - 0x00800000u < 0x7f000000u) & repdl__round_ok_normal(y, REPDL__LOGF_FAST_C)))
        return repdl__d2f(y);
    return repdl__logf_slow(x);
}

/* One element of repdl_log_array_f32's branch-free pass (detail/cr.h's
   skeleton): every element takes the approximation path; flagged for
   repdl_log_f32: the specials (x <= 0, subnormals, +inf, NaN; their y is
   meaningless) and the inputs whose fast rounding test fails.  (gcc 12
   vectorizes it at -O2 and -O3 with 16-byte vectors and emulated
   gathers, with -march=native with AVX2 or AVX-512 gathers.) */
REPDL_FN uint32_t repdl__log_lane(uint32_t u, uint32_t *fail)
{
    double y = repdl__logf_core(u);
    *fail = (uint32_t)((u - 0x00800000u >= 0x7f000000u) |
                       !repdl__round_ok_normal(y, REPDL__LOGF_TOL));
    return repdl__asuint(repdl__d2f(y));
}

/* out[k] = repdl_log_f32(x[k]) for k < n, bit for bit (detail/cr.h's
   skeleton).  out may be x itself (in place) but must not overlap it
   otherwise; n = 0 (x, out may then be NULL) does nothing. */
REPDL_API repdl_status repdl_log_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__CR_ARRAY(n, x, out, repdl__log_lane, repdl_log_f32);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_LOG_H */
