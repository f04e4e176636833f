/* SPDX-License-Identifier: MIT */
/* repdl/log2.h: correctly rounded base-2 logarithm of a binary32 value.

   Accuracy: repdl_log2_f32(x) is log2(x) rounded to nearest-even binary32
   for every binary32 x.  log2(+-0) = -inf, log2(+inf) = +inf, log2(1) = +0,
   log2(2^k) = k exactly, log2(x < 0) (-inf included) and log2(NaN) = the
   canonical NaN 0x7fc00000.  Subnormal inputs are ordinary inputs; no
   result is subnormal or overflows.  Proven by comparing all 2^32 inputs
   with MPFR (docs/functions/log2f.md).

   Fast path (repdl__log2f_fast, since 2026-11-27), tried first on every
   positive normal x: log.h's fast evaluation with 1/ln2 folded into a table
   of its own, {c_i, RN(-log2 c_i)}, and into the degree-4 polynomial
   (reference/gen/log_fast.sollya); |y / log2(x) - 1| < 2^-37.31
   (reference/gen/log2f.py), under a rounding test with c = 2^16; where it
   fails (about 2^-12 of the inputs) the algorithm below decides.

   Algorithm, in double: log.h's approximation of the natural logarithm,
   scaled:
     log2(x) = log(x) / ln2,   y = RN(y_e INVLN2),  INVLN2 = RN(1/ln2)
   where y_e = repdl__logf_core's y, |y_e / log(x) - 1| < 6.10 2^-53 on every
   path (log.h, reference/gen/logf.py), so |y / log2(x) - 1| < 7.23 2^-53
   (reference/gen/log2f.py), fused or not (the product of a sum and a
   constant offers nothing to contract).  No new table.
   Exact cases: x = 1 gives y_e = +0 (log.h), so y = +0; x = 2^k (k != 0)
   gives y within 7.23 2^-53 of the integer k, a binary32 value, which every
   rounding boundary is farther from than 2^-25 |k|: the rounding test
   accepts y and returns k.  log2 of a binary32 other than a power of two
   is irrational, never a midpoint.  y is rounded to binary32 when the
   rounding test proves it correct (detail/cr.h's repdl__round_ok_normal,
   then repdl__round_ok); the few other inputs are listed, with their
   correctly rounded results, in detail/log2f_hard.inc.

   Also: repdl_log2_array_f32(n, x, out), the same results for an array, in
   a form that compilers vectorize; repdl_log2_bf16, repdl_log2_f16 and
   their array forms (half.h bit patterns), rounded once from y. */
#ifndef REPDL_LOG2_H
#define REPDL_LOG2_H

#include "config.h"
#include "detail/cr.h"
#include "log.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__log2f_y's y on every path (fused or not),
   with room for the 2^-53 roundings of cr.h's test: 7.23 2^-53 + 2^-53
   (reference/gen/log2f.py), rounded up to 9 2^-53. */
#define REPDL__LOG2F_ERR 9.992007221626409e-16 /* 0x1.2p-50 */

/* c of repdl__round_ok_normal: (c - 1) 2^-53 / (1 + 2^-50) above y's
   bound 7.23 2^-53 (detail/cr.h); every result of log2f other than +0 is
   a normal binary32 (2^-22.6 < |log2(x)| <= 149), and y = +0 passes the
   test and rounds to +0. */
#define REPDL__LOG2F_TOL 9u

/* y ~ log2(x), for the bits u of a positive normal binary32 x, or for
   u = bits(x 2^23) - (23 << 23) when x is subnormal (log.h's convention). */
REPDL_FN double repdl__log2f_core(uint32_t u)
{
    /* INVLN2 = RN(1/ln2); the product rounds once (<= 2^-53 |y|) */
    return repdl__dmul(repdl__logf_core(u), 1.4426950408889634);
}

/* c of repdl__round_ok_normal for repdl__log2f_fast's y: its relative
   error is below 2^-37.31 = 52708 2^-53 < (c - 1) 2^-53 / (1 + 2^-50)
   (reference/gen/log2f.py).  The test fails for about 2c / 2^29 = 2^-12
   of the inputs. */
#define REPDL__LOG2F_FAST_C 0x10000u /* 2^16 */

/* y ~ log2(x) for the bits u of a positive normal binary32 x (on other
   bits a meaningless value, nothing undefined), the fast path: log.h's
   repdl__log_fast_eval with 1/ln2 folded into the table and the
   polynomial: y = (e + T2_i) + r t(r), T2_i = RN(-log2 c_i) (log.h's c_i),
   t from reference/gen/log_fast.sollya (b1..b4).  e + T2_i rounds once;
   |y / log2(x) - 1| < 2^-37.31, fused or not (reference/gen/log2f.py).
   x = 2^k gives y = k exactly (T2_76 = 0, r = 0). */
REPDL_FN double repdl__log2f_fast(uint32_t u)
{
    /* {c_i, T2_i}: reference/gen/log2f.py --table */
    static const double tab[256] = {
        1.4222222566604614, -0.5081469386043008, /*   0 */
        1.4143646955490112, -0.5001541686767936, /*   1 */
        1.4065934419631958, -0.4922053960788937, /*   2 */
        1.39890718460083, -0.48430024502005165, /*   3 */
        1.39130437374115, -0.47643807081527606, /*   4 */
        1.3837838172912598, -0.4686185744176634, /*   5 */
        1.376344084739685, -0.4608411875483541, /*   6 */
        1.3689839839935303, -0.4531055683282667, /*   7 */
        1.3617022037506104, -0.44541122893922797, /*   8 */
        1.3544974327087402, -0.43775765908302144, /*   9 */
        1.3473684787750244, -0.430144453475316, /*  10 */
        1.3403141498565674, -0.4225711867440103, /*  11 */
        1.3333333730697632, -0.4150375422745059, /*  12 */
        1.3264249563217163, -0.4075430561131215, /*  13 */
        1.3195877075195312, -0.4000872438041952, /*  14 */
        1.312820553779602, -0.39266973126147303, /*  15 */
        1.3061225414276123, -0.38529025799948713, /*  16 */
        1.2994924783706665, -0.37794828333012626, /*  17 */
        1.2929292917251587, -0.37064337857677593, /*  18 */
        1.2864322662353516, -0.3633754976944188, /*  19 */
        1.28000009059906, -0.3561439123399706, /*  20 */
        1.2736319303512573, -0.34894841026395956, /*  21 */
        1.267326831817627, -0.3417886301118155, /*  22 */
        1.2610838413238525, -0.33466419433481964, /*  23 */
        1.2549020051956177, -0.32757470908585296, /*  24 */
        1.2487804889678955, -0.3205199018381684, /*  25 */
        1.2427184581756592, -0.3134994862529262, /*  26 */
        1.2367150783538818, -0.30651316208235674, /*  27 */
        1.2307692766189575, -0.2995603356034852, /*  28 */
        1.2248804569244385, -0.2926409552540545, /*  29 */
        1.2190476655960083, -0.2857545374220692, /*  30 */
        1.2132701873779297, -0.27890086503739225, /*  31 */
        1.2075471878051758, -0.27207956693463203, /*  32 */
        1.2018779516220093, -0.2652904006001857, /*  33 */
        1.1962617635726929, -0.25853311168270526, /*  34 */
        1.1906976699829102, -0.25180714503608187, /*  35 */
        1.185185194015503, -0.2451125085854471, /*  36 */
        1.1797235012054443, -0.23844876621190622, /*  37 */
        1.1743119955062866, -0.23181575987078212, /*  38 */
        1.168949842453003, -0.22521302773376384, /*  39 */
        1.1636364459991455, -0.21864038859003573, /*  40 */
        1.158371090888977, -0.21209750308663947, /*  41 */
        1.1531531810760498, -0.20558416858386958, /*  42 */
        1.147982120513916, -0.19910017263487428, /*  43 */
        1.1428571939468384, -0.1926451424358885, /*  44 */
        1.1377778053283691, -0.18621884371693848, /*  45 */
        1.1327433586120605, -0.17982103221035445, /*  46 */
        1.1277533769607544, -0.17345160609028695, /*  47 */
        1.1228070259094238, -0.16710999658417397, /*  48 */
        1.1179039478302002, -0.1607962347445017, /*  49 */
        1.1130435466766357, -0.1545100377341764, /*  50 */
        1.1082251071929932, -0.148250957240328, /*  51 */
        1.1034482717514038, -0.14201899949797003, /*  52 */
        1.09871244430542, -0.13581385265849083, /*  53 */
        1.0940171480178833, -0.1296353516281601, /*  54 */
        1.0893617868423462, -0.12348316562680331, /*  55 */
        1.0847457647323608, -0.11735695332538766, /*  56 */
        1.0801688432693481, -0.11125684045209971, /*  57 */
        1.0756303071975708, -0.10518231059084988, /*  58 */
        1.0711297988891602, -0.09913331563177645, /*  59 */
        1.0666667222976685, -0.09310947963388926, /*  60 */
        1.062240719795227, -0.08711073968425337, /*  61 */
        1.0578513145446777, -0.08113686484010083, /*  62 */
        1.0534980297088623, -0.07518761597590107, /*  63 */
        1.0491803884506226, -0.06926274574120783, /*  64 */
        1.0448980331420898, -0.06336216311212477, /*  65 */
        1.040650486946106, -0.05748560618075598, /*  66 */
        1.0364372730255127, -0.05163280469291231, /*  67 */
        1.032258152961731, -0.0458038132256498, /*  68 */
        1.028112530708313, -0.039998181467336455, /*  69 */
        1.0240000486373901, -0.03421578386224878, /*  70 */
        1.0199203491210938, -0.028456489044890083, /*  71 */
        1.0158730745315552, -0.022720159804177638, /*  72 */
        1.0118577480316162, -0.01700648308111049, /*  73 */
        1.0078740119934082, -0.011315307853376297, /*  74 */
        1.003921627998352, -0.005646648460657741, /*  75 */
        1.0, 0.0, /*  76 */
        0.9922481179237366, 0.011227174134581588, /*  77 */
        0.9846154451370239, 0.022367724349902883, /*  78 */
        0.9770992994308472, 0.03342290882805553, /*  79 */
        0.9696969985961914, 0.044394076362791364, /*  80 */
        0.9624060988426208, 0.05528230987324308, /*  81 */
        0.9552239179611206, 0.06608913402596622, /*  82 */
        0.9481481909751892, 0.07681553188553106, /*  83 */
        0.9411765336990356, 0.08746274451010154, /*  84 */
        0.9343066215515137, 0.09803200234366137, /*  85 */
        0.9275363087654114, 0.10852433719648708, /*  86 */
        0.9208633303642273, 0.11894103980495355, /*  87 */
        0.9142857789993286, 0.12928291483027113, /*  88 */
        0.9078014492988586, 0.1395513033568666, /*  89 */
        0.9014084935188293, 0.14974705098034624, /*  90 */
        0.8951049447059631, 0.15987125683333128, /*  91 */
        0.888888955116272, 0.16992489395315957, /*  92 */
        0.8827586770057678, 0.1799089979773469, /*  93 */
        0.8767123818397522, 0.18982447154507998, /*  94 */
        0.8707483410835266, 0.19967227564022139, /*  95 */
        0.8648648858070374, 0.20945333069497424, /*  96 */
        0.8590604662895203, 0.21916841364481596, /*  97 */
        0.8533333539962769, 0.22881865556190534, /*  98 */
        0.8476821780204773, 0.23840463922580513, /*  99 */
        0.8421053290367126, 0.24792740057997528, /* 100 */
        0.8366013765335083, 0.2573877231109698, /* 101 */
        0.8311688899993896, 0.266786438580206, /* 102 */
        0.8258064985275269, 0.27612432331375786, /* 103 */
        0.8205128312110901, 0.285402200051646, /* 104 */
        0.8152866363525391, 0.2946207273937958, /* 105 */
        0.8101266026496887, 0.30378071189951295, /* 106 */
        0.8050314784049988, 0.31288289818074194, /* 107 */
        0.800000011920929, 0.32192807338953117, /* 108 */
        0.7950310707092285, 0.33091685124232806, /* 109 */
        0.7901235222816467, 0.33984988330294275, /* 110 */
        0.7852761149406433, 0.3487280783168626, /* 111 */
        0.7804878354072571, 0.3575519481862775, /* 112 */
        0.7757576107978821, 0.36632214908051597, /* 113 */
        0.7710843682289124, 0.37503937357150413, /* 114 */
        0.7664670944213867, 0.38370423872947484, /* 115 */
        0.761904776096344, 0.39231739590647136, /* 116 */
        0.7573964595794678, 0.400879417471582, /* 117 */
        0.7529411911964417, 0.4093909079217984, /* 118 */
        0.7485380172729492, 0.4178525041369822, /* 119 */
        0.7441861033439636, 0.42626464452571644, /* 120 */
        0.7398844361305237, 0.43462814366082336, /* 121 */
        0.7356322407722473, 0.4429433843287324, /* 122 */
        0.7314286231994629, 0.45121100971763345, /* 123 */
        0.7272727489471436, 0.45943157564163517, /* 124 */
        0.723163902759552, 0.4676054284858939, /* 125 */
        0.7191011309623718, 0.4757334161866388, /* 126 */
        0.7150838375091553, 0.4838156993346199, /* 127 */
    };
    size_t i;
    int e;
    double m = repdl__logf_split(u, &i, &e);
    return repdl__log_fast_eval(tab, i, e, m, 1.0, 1.4426950408805657, -0.7213475204290859,
                                0.4809027497674851, -0.3606781630289995);
}

/* 1 when x takes the approximation path, with *y ~ log2(x),
   |*y / log2(x) - 1| < REPDL__LOG2F_ERR - 2^-53; 0 for the special inputs
   (x <= 0, -0 included, +inf, NaN), whose results repdl_log2_f32 gives
   exactly. */
REPDL_FN int repdl__log2f_y(float x, double *y)
{
    uint32_t u = repdl__asuint(x);
    if (REPDL_UNLIKELY(u - 0x00800000u >= 0x7f000000u)) {
        /* not a positive normal number */
        if (u == 0u || u >= 0x7f800000u) return 0;  /* +-0, negative, +inf, NaN */
        /* positive subnormal: x 2^23 is exact and normal */
        u = repdl__asuint(repdl__fmul(x, 8388608.0f)) - (23u << 23);
    }
    *y = repdl__log2f_core(u);
    return 1;
}

/* repdl_log2_f32 off its fast path: x <= 0, subnormal, +inf, NaN and the
   fast rounding test's failures (the former path, unchanged). */
REPDL_FN_NOINLINE float repdl__log2f_slow(float x)
{
    double y;
    /* the special inputs have log's results: -inf, +inf, NaN */
    if (REPDL_UNLIKELY(!repdl__log2f_y(x, &y))) return repdl__logf_special(x);
    if (REPDL_LIKELY(repdl__round_ok_normal(y, REPDL__LOG2F_TOL))) return repdl__d2f(y);
    {
        /* inputs whose y fails the test with 4E, with MPFR's results
           (reference/hardcases.c) */
        static const repdl__hardcase tab[] = {
#include "detail/log2f_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__LOG2F_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* log2(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_log2_f32(float x)
{
    /* the fast path on every input; one branch tests its domain (x a
       positive normal binary32) and its rounding test */
    uint32_t u = repdl__asuint(x);
    double y = repdl__log2f_fast(u);
    if (REPDL_LIKELY((u - 0x00800000u < 0x7f000000u) & repdl__round_ok_normal(y, REPDL__LOG2F_FAST_C)))
        return repdl__d2f(y);
    return repdl__log2f_slow(x);
}

/* One element of repdl_log2_array_f32's branch-free pass (detail/cr.h's
   skeleton), as log.h's: flagged for repdl_log2_f32: the specials (x <= 0,
   subnormals, +inf, NaN) and the inputs whose integer rounding test
   fails. */
REPDL_FN uint32_t repdl__log2_lane(uint32_t u, uint32_t *fail)
{
    double y = repdl__log2f_core(u);
    *fail = (uint32_t)((u - 0x00800000u >= 0x7f000000u) |
                       !repdl__round_ok_normal(y, REPDL__LOG2F_TOL));
    return repdl__asuint(repdl__d2f(y));
}

/* out[k] = repdl_log2_f32(x[k]) for k < n, bit for bit (detail/cr.h's
   skeleton).  out may be x itself (in place) but must not overlap it
   otherwise; n = 0 (x, out may then be NULL) does nothing. */
REPDL_API repdl_status repdl_log2_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__CR_ARRAY(n, x, out, repdl__log2_lane, repdl_log2_f32);
    return REPDL_OK;
}

/* ---- bfloat16 and float16 (half.h bit patterns) ----
   y of repdl__log2f_y rounded once to the 16-bit format (half.h's
   repdl__d_to_h_1): tests/half/test_half_fn.c proves, for each of the
   2^16 inputs of each format, that log2(x) lies farther than
   REPDL__LOG2F_ERR from every rounding boundary of the format, or is 0
   (x = 1: y = +0 exactly).  Outside repdl__log2f_y's domain (x <= 0, +inf,
   NaN) repdl_log2_f32's result is exact. */
REPDL_FN uint32_t repdl__log2_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__log2f_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__f32_to_h(repdl_log2_f32(x), fmt);
}

/* One element of the 16-bit array forms' branch-free pass (half_math.h's
   skeleton), as half_math.h's log: flagged: every x that is not a positive
   normal binary32 other than 1 (2^-9.5 < |log2(x)| <= 133 for the others:
   normal in both formats). */
REPDL_FN uint32_t repdl__log2_h_lane(uint32_t h, int fmt, uint32_t *fail)
{
    uint32_t u = repdl__asuint(repdl__h_to_f32(h, fmt));
    uint32_t ok = (uint32_t)((u - 0x00800000u < 0x7f000000u) & (u != 0x3f800000u));
    double y = repdl__log2f_core(u);          /* garbage for the flagged: replaced */
    *fail = !ok;
    return repdl__d_to_h_normal(y, fmt);
}

/* log2(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_log2_bf16(uint16_t x) { return (uint16_t)repdl__log2_h(x, REPDL__BF16); }
/* log2(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_log2_f16(uint16_t x) { return (uint16_t)repdl__log2_h(x, REPDL__F16); }
/* out[i] = repdl_log2_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_log2_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__log2_h_lane, repdl__log2_h);
    return REPDL_OK;
}
/* out[i] = repdl_log2_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_log2_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__log2_h_lane, repdl__log2_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_LOG2_H */
