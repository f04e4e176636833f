/* SPDX-License-Identifier: MIT */
/* repdl/gelu.h: gelu, erf form: x Phi(x) = x/2 (1 + erf(x / sqrt 2)),
   correctly rounded, of a binary32, bfloat16 or float16 value.

     repdl_gelu_f32(x), repdl_gelu_array_f32(n, x, y),
     repdl_gelu_bf16(h), repdl_gelu_f16(h), repdl_gelu_array_bf16(n, x, out),
     repdl_gelu_array_f16(n, x, out)

   The claim (every input, proven against MPFR), the algorithm, its error
   bound and the provenance of its constants are in the section comment
   below; the 16-bit forms round the binary32 function's double
   approximation once (detail/act.h gives why that is correct); the
   backward pass is activation.h's (it shares repdl__act_exp below). */
#ifndef REPDL_GELU_H
#define REPDL_GELU_H

#include "config.h"
#include "detail/barrier.h"
#include "detail/cr.h"
#include "detail/exp_table.h"
#include "detail/act.h"
#include "detail/gelu_vec.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* ---- A double-precision exponential (also gelu's backward pass's) ----
   No contraction can change it: every product that feeds an addition is
   behind repdl__dkeep. */

/* exp(a) in double for a double a, -110 <= a <= 0, that is either a
   binary32 value or -x^2/2 for a binary32 x (both make the reduction
   below exact, see exp.h's repdl__exp_reduce: a - k C_HI is a multiple of
   2^-56 below 2^-9 when k != 0).  The reduction and degree-4 polynomial of
   exp.h (reference/gen/expf.sollya), with dkeep barriers:
   |result / exp(a) - 1| < 1.9 2^-53 (reference/gen/expf.py's bound; the
   uncontracted path is one of the paths it covers). */
REPDL_FN double repdl__act_exp(double a)
{
    double z = repdl__dadd(repdl__dkeep(repdl__dmul(a, 369.3299304675746)), 6755399441055744.0);
    uint64_t ki = repdl__asuint64(z), j = ki & 255u;
    double kd = repdl__dsub(z, 6755399441055744.0 /* 0x1.8p52 */);
    double r = repdl__dsub(a, repdl__dkeep(repdl__dmul(kd, 0.0027076061740558544 /* 0x1.62e42fefap-9 */)));
    double s, r2, p, sr, sr2;
    r = repdl__dsub(r, repdl__dkeep(repdl__dmul(kd, 6.432011555819173e-15 /* 0x1.cf79abc9e3b3ap-48 */)));
    s = repdl__asdouble(repdl__exp2_256_bits(j) + (ki << 44));
    r2 = repdl__dmul(r, r);
    p = repdl__dadd(0.5000000000000233, repdl__dkeep(repdl__dmul(r, 0.16666668003889068)));
    p = repdl__dadd(p, repdl__dkeep(repdl__dmul(r2, 0.0416666536383358 /* 0x1.55554e56bbb14p-5 */)));
    sr = repdl__dkeep(repdl__dmul(s, r));
    sr2 = repdl__dmul(s, r2);
    return repdl__dadd(s, repdl__dadd(sr, repdl__dkeep(repdl__dmul(sr2, p))));
}

/* ---- gelu, erf form: x Phi(x) = x/2 (1 + erf(x / sqrt 2)), correctly rounded ----
   repdl_gelu_f32(x) is gelu(x) rounded to nearest-even binary32 for every
   binary32 x (all 2^32 inputs proven against MPFR, docs/functions/geluf.md);
   gelu(+-0) = +-0, gelu(+inf) = +inf, gelu(-inf) = -0 (the limit), NaN ->
   the canonical NaN.
   Algorithm, in double, u = |x|:
     Phi(x) = 1 - Q(u) (x > 0),  Q(u) (x < 0),  Q(u) = Phi(-u) = e S(u),
     e = exp(-u^2/2) (repdl__act_exp below: u^2/2 is exact, |e / exp - 1|
     < 1.9 2^-53), S(u) = Q(u) exp(u^2/2) from 29 polynomials of degree 13
     (reference/gen/geluf.sollya: piece 0 on [0, 1/2) in u, piece i on
     [i/2, (i+1)/2) in u - (i/2 + 1/4), exact; relative errors < 2^-53.18, the rounding of the
     constant coefficients dominating);
     y = x (e S) or x (1 - e S).  Since Q <= 1/2, 1 - Q carries at most Q's
     relative error plus one rounding.  S within 4.51 2^-53 (approximation
     and Horner evaluation, bounded in exact rational arithmetic by
     reference/gen/act_cr.py), Q = e S within 7.41 2^-53, |y / gelu(x) - 1|
     < 9.41 2^-53 on every path, fused or not; with the test's 2^-53,
     10.41 2^-53 < E = 2^-49.  Rounding test (detail/cr.h):
     repdl__round_ok_normal(y, 16) where the result is normal, then
     repdl__round_ok(y, 2^-49); the other inputs in detail/geluf_hard.inc.
   Exactly handled (reference/gen/act_cr.py finds the thresholds):
     x >= 0x1.5ae102p+2:     Q(x) < 2^-25: x (1 - Q) rounds to x (+inf too);
     x <= -0x1.cb64eap+3:    |gelu(x)| = u Q(u) <= 2^-150 (never equal): -0
                             (-inf too);
     |x| < 2^-60:            gelu(x) = x/2 + x^2/sqrt(2 pi) + O(x^4) lies above
                             x/2 (both signs) by less than 2^-61 |x/2|: as
                             silu's tiny range, x/2 moved one binary64 ulp
                             towards +inf rounds correctly; +-0 -> +-0. */
#define REPDL__GELUF_ERR 1.7763568394002505e-15 /* 0x1p-49 */

/* S's 29 polynomials (degree 0 to 13).  From reference/gen/act_cr.py. */
REPDL_FN const double *repdl__gelu_s_coeffs(uint32_t i)
{
    static const double C[29][14] = {
        {0.5, -0.3989422804014326, 0.24999999999998657, -0.13298076013307575, 0.06249999997967358, -0.026596151694216603, 0.010416663158888641, -0.0037994251980725618, 0.001301958023144033, -0.0004217181546339434, 0.00012909931367096757, -3.643863966913475e-05, 8.553758725615924e-06, -1.2112031709756873e-06},
        {0.30023246233995093, -0.17376793364646947, 0.08495325605255044, -0.03668433053568653, 0.014360002037569566, -0.00518286580137684, 0.0017454754543341738, -0.0005533941798148128, 0.00016630356896223274, -4.762943022758768e-05, 1.3059741962084772e-05, -3.441741275539966e-06, 8.71826755040475e-07, -2.0509157457356755e-07},
        {0.23076032130563176, -0.11049187876939295, 0.04632273642195101, -0.017529486080657908, 0.006102719704548435, -0.0019802172892453922, 0.0006045747224011781, -0.0001749284517036107, 4.823819878253369e-05, -1.2735717084965447e-05, 3.2454923543147952e-06, -8.019785576422156e-07, 1.209699968612041e-07, 1.3473683154510693e-08},
        {0.18523166467823896, -0.0747868672145145, 0.027177323526421632, -0.009075517014427718, 0.0028237921874936954, -0.0008267761370263537, 0.0002294890077208595, -6.0738636981408775e-05, 1.5399111057407736e-05, -3.754150183362617e-06, 8.8852920078408e-07, -2.0390569821871957e-07, 1.6998682777813418e-08, 6.025633166939096e-09},
        {0.15365193742384164, -0.053225421197788995, 0.01694736986440565, -0.005031279667621356, 0.0014067476533910581, -0.00037321948991262516, 9.450061559280172e-05, -2.294185194835212e-05, 5.3606588553010166e-06, -1.2094297307475278e-06, 2.578361661741376e-07, -5.1114968027278664e-08, 4.183656322730871e-08, -2.5818085623413014e-08},
        {0.13072473410074711, -0.03944926162437811, 0.011119632316853704, -0.002956757584344304, 0.0007471372399705053, -0.0001804260348002841, 4.182760771043667e-05, -9.342877393669925e-06, 2.0168283707470874e-06, -4.217475870617678e-07, 8.58016145547292e-08, -1.8038578987840374e-08, 2.6636867863147858e-09, 4.532235398993379e-09},
        {0.11345206212929865, -0.0302230784812121, 0.0076135285326765865, -0.0018263702499997385, 0.000419456305438291, -9.262745189948518e-05, 1.9736159521452104e-05, -4.069256116705074e-06, 8.144604747744604e-07, -1.5851002863679522e-07, 2.2570254320104548e-08, -2.0167481424074638e-09, 3.739554041786177e-08, -1.7631469532668615e-08},
        {0.10003920963545321, -0.023795244268483163, 0.005403521814319139, -0.0011773458215927992, 0.0002471187460329632, -5.013010503669639e-05, 9.855131253777891e-06, -1.8818979616784612e-06, 3.500386598150265e-07, -6.350999557910823e-08, 7.523302698204053e-09, -1.5922739714468544e-10, 1.8487966088432594e-08, -8.815840820004359e-09},
        {0.08935931861967142, -0.019165176267829143, 0.003953659740699379, -0.000787374123286713, 0.00015182992910597117, -2.8419384817695152e-05, 5.174594812069323e-06, -9.18198272507432e-07, 1.5891947172249458e-07, -2.6873664595605334e-08, 5.901164334059642e-09, -1.3596201232550016e-09, -6.976692585124704e-09, 3.1073757245168376e-09},
        {0.08067539917254936, -0.015734134331823208, 0.0029691305481960137, -0.0005435880759669273, 9.677179665228995e-05, -1.6784408123024156e-05, 2.8409865399581048e-06, -4.69971276164312e-07, 7.580634079743215e-08, -1.1958205672578178e-08, 5.367085280741552e-09, -1.6633232411199518e-09, -1.7142768396144365e-08, 6.771232750852669e-09},
        {0.07348823085269288, -0.013129068424795097, 0.0022803108112577465, -0.0003858122218939642, 6.369916177830672e-05, -1.0278324798654645e-05, 1.622981818767761e-06, -2.510833238595845e-07, 3.839075251052768e-08, -5.78571358850888e-09, -2.9181614843366186e-09, 1.294662887980092e-09, 1.847394188573017e-08, -6.9456140595184285e-09},
        {0.0674492313514587, -0.011109200130545227, 0.0017856653004089127, -0.00028054155105832395, 4.313784582777393e-05, -6.499788040672125e-06, 9.606570441756691e-07, -1.3940742336669652e-07, 2.042616843708776e-08, -2.945376910630289e-09, -6.588531452107154e-09, 1.981433468693607e-09, 3.434089386160803e-08, -1.0098198432167755e-08},
        {0.062308486908362076, -0.009514237224169695, 0.0014222521286511697, -0.00020838714003432792, 2.9958125804343143e-05, -4.229770665103549e-06, 5.870128620344784e-07, -8.013798112157104e-08, 1.0688819111234958e-08, -1.3999331413889598e-09, 1.2147682609541146e-09, -3.505009842974046e-10, -5.062225688958318e-09, 1.6043704733802714e-09},
        {0.057882631723879995, -0.008234516265242702, 0.0011498234667466725, -0.0001577359549031325, 2.1276442686138643e-05, -2.8239931643447917e-06, 3.690870288535238e-07, -4.753034165813137e-08, 5.884387183170263e-09, -6.867405220004753e-10, 2.0050448838607466e-09, -8.666338750380669e-10, -9.410718333115109e-09, 4.1177325541650934e-09},
        {0.05403435940923554, -0.007193174684475032, 0.0009419214733953276, -0.00012141466745175311, 1.54162836500283e-05, -1.9293222976047017e-06, 2.3811301420126022e-07, -2.899626020334086e-08, 3.570166782222632e-09, -4.3732661152306597e-10, -1.0306695751039443e-09, 2.939837581461254e-10, 5.314048873546089e-09, -1.4719322462653906e-09},
        {0.05065898233519691, -0.006335167303656634, 0.0007807178659284621, -9.486794756891352e-05, 1.1372818136091193e-05, -1.3457215179730997e-06, 1.5724229204890358e-07, -1.8151538460308598e-08, 2.1714649032949646e-09, -2.490211082028748e-10, -1.260819615655328e-09, 2.0431428681576412e-10, 6.336065510656853e-09, -1.055108641675848e-09},
        {0.04767539072655085, -0.005620306907388147, 0.0006539293702993164, -7.512986747300987e-05, 8.526990912385541e-06, -9.564384805753608e-07, 1.060622037124027e-07, -1.1632598864391963e-08, 1.262772394950578e-09, -1.2495609781609917e-10, 6.010210554132123e-12, -1.2621377085691444e-10, 4.1448521137824804e-11, 5.757754627071348e-10},
        {0.04501983300125158, -0.0050187416404813895, 0.0005529218235190426, -6.0225228227744876e-05, 6.4877692168826796e-06, -6.914496929147056e-07, 7.29260607620479e-08, -7.613652227105792e-09, 9.126519830362966e-10, -1.175834788221597e-10, -1.5956725880657116e-09, 4.6338894756196917e-10, 7.896290436067647e-09, -2.2537890838699533e-09},
        {0.04264154944410702, -0.004507948043442693, 0.00047151502113216946, -4.881136599374385e-05, 5.002471279920313e-06, -5.07701033801407e-07, 5.1047266634240555e-08, -5.085541897529444e-09, 2.9273460019300186e-10, -2.0764530428679113e-12, 2.681219448061358e-09, -5.998003095342881e-10, -1.317691189344495e-08, 2.941303822080293e-09},
        {0.040499650305367736, -0.00407068992409723, 0.0004052117727107741, -3.995838005888126e-05, 3.904391668848184e-06, -3.781120049992393e-07, 3.630625547406974e-08, -3.4568668766804022e-09, 1.570388219874232e-10, 7.766952553198518e-12, 2.168251144038927e-09, -4.865681794782666e-10, -1.0660843976671194e-08, 2.3793147027808468e-09},
        {0.03856084623888273, -0.0036936064528847274, 0.00035069004840624827, -3.301115223705785e-05, 3.0814346077065577e-06, -2.852897528780921e-07, 2.619621295867491e-08, -2.3867792365002557e-09, 3.823223339926663e-10, -4.70833779265583e-11, -2.1280832855548343e-09, 3.5865212527873976e-10, 1.0485583685291996e-08, -1.7817016288316907e-09},
        {0.03679777319643005, -0.0033662185398096313, 0.00030546194673790013, -2.7500870791012083e-05, 2.456896479355956e-06, -2.1784683869652533e-07, 1.9171322728759887e-08, -1.6747833327091582e-09, 2.1254495733876637e-10, -2.933951110460204e-11, -8.588333899229774e-10, 2.1071910925518162e-10, 4.233537471613458e-09, -1.0219170799369121e-09},
        {0.03518773883972102, -0.0030802184545711854, 0.0002676406128991292, -2.3087186491370887e-05, 1.977441021078144e-06, -1.6819452280418866e-07, 1.421955411126478e-08, -1.1942112462405182e-09, -1.8895452796980256e-10, 4.230104073658389e-11, 3.691708254717628e-09, -6.470052452421165e-10, -1.8171742103102736e-08, 3.185402904491804e-09},
        {0.033711772414414094, -0.0028289545320670743, 0.00023577833131283173, -1.9519713046469292e-05, 1.6054257739094433e-06, -1.3119209044396955e-07, 1.0652038703016821e-08, -8.59513236592992e-10, 9.784297628498664e-11, -1.0480065426798409e-11, -3.69342220326111e-10, 6.362288827570101e-11, 1.8204976427800117e-09, -3.129663053979113e-10},
        {0.032353896166432555, -0.0026070523626338855, 0.00020875236208336956, -1.6611975702739175e-05, 1.3139149772105468e-06, -1.0330356022601069e-07, 8.071870357329428e-09, -6.27350693704856e-10, 1.15656060354087e-10, -7.679029353354632e-12, -8.595304909432587e-10, 5.7379337060168554e-11, 4.233038623582526e-09, -3.071277310267203e-10},
        {0.031100560591563298, -0.0024101328590006212, 0.00018568331965309584, -1.4223511142944893e-05, 1.0833880930048287e-06, -8.20624570583623e-08, 6.184820556006974e-09, -4.633388679745179e-10, -4.1601168570426464e-11, 1.983526438583946e-12, 9.74599955266182e-10, -6.534071114604954e-11, -4.797211459876613e-09, 3.475145325581282e-10},
        {0.029940202293495033, -0.0022346000126235058, 0.00016587606311632602, -1.2247392108557598e-05, 8.995294789121539e-07, -6.572547402012671e-08, 4.774569947092688e-09, -3.448808104820545e-10, 1.1218168862289134e-10, -1.9757770466484035e-11, -1.1174716912370175e-09, 2.2525448976928378e-10, 5.502128470479137e-09, -1.0915322380132481e-09},
        {0.028862894617664746, -0.0020774794085424327, 0.00014877637510284515, -1.060141695803112e-05, 7.517230212807992e-07, -5.30451926411284e-08, 3.7231428167947576e-09, -2.602096310884663e-10, 7.485819598017037e-11, -6.365640052732021e-12, -7.2623048222715e-10, 6.844452218736455e-11, 3.5757897640947507e-09, -3.4792509304065767e-10},
        {0.02786006921131525, -0.001936294140190348, 0.0001339388568014003, -9.221810256847489e-06, 6.320151598942446e-07, -4.31188410679465e-08, 2.928634946729044e-09, -1.981766796334876e-10, 1.254142662627156e-11, 2.607065471731554e-12, 1.0184094593409631e-11, -4.147555899996117e-11, -4.984036471980982e-11, 1.9211399152289078e-10},
    };
    return C[i];
}

/* y ~ gelu(x) for 2^-60 <= |x|, -0x1.cb64eap+3 < x < 0x1.5ae102p+2 */
REPDL_FN double repdl__geluf_core(float x)
{
    uint32_t ux = repdl__asuint(x);
    float a = repdl__asfloat(ux & 0x7fffffffu);
    double u = repdl__f2d(a), xd = repdl__f2d(x);
    /* i = floor(2u) (2u exact, truncated), <= 28 */
    uint32_t i = (uint32_t)repdl__f2i_rz(repdl__fmul(a, 2.0f));
    const double *c = repdl__gelu_s_coeffs(i);
    /* t = u on piece 0, u - (i/2 + 1/4) on the others (exact: multiples of
       2^-24, |t| <= 1/4) */
    double t = i == 0u ? u : repdl__dsub(u, repdl__dadd(repdl__dmul((double)i, 0.5), 0.25));
    double h = c[13], e, q;
    int k;
    for (k = 12; k >= 0; k--) h = repdl__dadd(c[k], repdl__dmul(h, t));
    e = repdl__act_exp(repdl__dmul(repdl__dmul(u, u), -0.5));   /* -u^2/2 exact */
    q = repdl__dmul(e, h);
    return ux >> 31 ? repdl__dmul(xd, q) : repdl__dmul(xd, repdl__dsub(1.0, q));
}

REPDL_FN int repdl__geluf_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    if (REPDL_UNLIKELY(ax < 0x21800000u || (ux >= 0x40ad7081u && ux < 0x80000000u) ||
                       ux >= 0xc165b275u))
        return 0;
    *y = repdl__geluf_core(x);
    return 1;
}

REPDL_API float repdl_gelu_f32(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__geluf_y(x, &y))) {
        uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
        if (ax > 0x7f800000u) return repdl__nanf();
        if (ax < 0x21800000u) return repdl__siluf_tiny(x);   /* the same rule: x/2 nudged up */
        return ux < 0x80000000u ? x : -0.0f;
    }
    /* x >= -13 (and |x| >= 2^-60): |gelu(x)| > 2^-125, normal; E = 2^-49: c = 16 */
    if (REPDL_LIKELY((repdl__asuint(x) <= 0xc1500000u) & repdl__round_ok_normal(y, 16u)))
        return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/geluf_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__GELUF_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* ---- Array form ---- */

REPDL_API repdl_status repdl_gelu_array_f32(size_t n, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !y)) return REPDL_ERR_INVALID;
    /* detail/gelu_vec.h: vectorized where the CPU allows, the same bits */
    if (!repdl__gelu_vec_array(n, x, y, repdl__gelu_s_coeffs(0), repdl_gelu_f32)) {
        size_t i;
        for (i = 0; i < n; i++) y[i] = repdl_gelu_f32(x[i]);
    }
    return REPDL_OK;
}

/* ---- bfloat16 and float16 forms (detail/act.h) ---- */

/* gelu (erf form): y's domain 2^-60 <= |x|, -0x1.cb64eap+3 < x <
   0x1.5ae102p+2 */
REPDL_FN uint32_t repdl__gelu_hx(uint32_t h, float x, int fmt)   /* x = h as binary32 */
{
    double y;
    if (REPDL_LIKELY(repdl__geluf_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__act_h_special(h, x, fmt);
}
REPDL_FN uint32_t repdl__gelu_h(uint32_t h, int fmt)
{
    return repdl__gelu_hx(h, repdl__h_to_f32(h, fmt), fmt);
}

/* gelu(x) (erf form) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_gelu_bf16(uint16_t x) { return (uint16_t)repdl__gelu_h(x, REPDL__BF16); }
/* gelu(x) (erf form) correctly rounded to float16. */
REPDL_API uint16_t repdl_gelu_f16(uint16_t x) { return (uint16_t)repdl__gelu_h(x, REPDL__F16); }
/* out[i] = repdl_gelu_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_gelu_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_CONV_ARRAY(n, x, out, REPDL__BF16, repdl__gelu_hx);
    return REPDL_OK;
}
/* out[i] = repdl_gelu_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_gelu_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_CONV_ARRAY(n, x, out, REPDL__F16, repdl__gelu_hx);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_GELU_H */
