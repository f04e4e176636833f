/* SPDX-License-Identifier: MIT */
/* repdl/exp.h: correctly rounded natural exponential of a binary32 value.

   Accuracy: repdl_exp_f32(x) is exp(x) rounded to nearest-even binary32 for
   every binary32 x, subnormal results included (exp(x) > 2^-150) and
   overflow to +inf; exp(+-0) = 1, exp(-inf) = +0, exp(+inf) = +inf, NaN ->
   the canonical NaN 0x7fc00000.  Proven by comparing all 2^32 inputs with
   MPFR, in both contracted and uncontracted builds (docs/functions/expf.md).

   Algorithm, in double:
     exp(x) = 2^(k/256) exp(r),          k = round(x 256/ln2), r = x - k ln2/256
            = 2^(k>>8) T[k&255] (1 + q(r)),  |r| <= ln2/512 (+2^-36 ln2/256)
     T[j] = 2^(j/256) rounded to double, q(r) = r + r^2 (c2 + c3 r + c4 r^2)
     y = s + s q with s = 2^(k>>8) T[j]:  |y / exp(x) - 1| < 2^-52.07
   then y is rounded to binary32 when a rounding test proves that rounding
   correct (repdl__round_ok_normal of detail/cr.h, a cheap integer test, then
   repdl__round_ok of detail/cr.h); the few other inputs are listed, with
   their correctly rounded results, in detail/expf_hard.inc.

   Fast path (repdl_exp_f32, |x| <= 87), tried first:
     w = x 256/ln2 = k + d, k = round(w), |d| <= 1/2,
     exp(x) = 2^(w/256) = 2^(k>>8) T[k&255] 2^(d/256) ~ s P(d),
     P(d) = (1 + e1 d) + d^2 (e2 + e3 d)  (degree 3; tanh.h's P of -d)
   with |y / exp(x) - 1| < 2^-44.68 (reference/gen/expf.py), under a rounding
   test with a margin to match (REPDL__EXPF_FAST_C); where it fails (about
   one input in 2^19) the approximation above decides, as before.

   Constants and table: reference/gen/expf.py; polynomial:
   reference/gen/expf.sollya; error bound: reference/gen/expf.py (it prints
   each term of the bound below).

   Also: repdl_exp_array_f32(n, x, out), the same results for an array, in a
   form that compilers vectorize.  tanh.h shares the reduction below. */
#ifndef REPDL_EXP_H
#define REPDL_EXP_H

#include "config.h"
#include "detail/cr.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__expf_y's y on every path (fused or not),
   including the 2^-53 rounding of the rounding test's own products:
   2^-51.46 (reference/gen/expf.py), rounded up. */
#define REPDL__EXPF_ERR 4.440892098500626e-16 /* 0x1p-51 */

/* Bits of T[j] = RN(2^(j/256)) minus j << 44, so that adding ki << 44
   (ki the integer holding k, below) yields 2^(k>>8) T[k&255] exactly.
   |T[j] / 2^(j/256) - 1| < 0.851 * 2^-53.  From reference/gen/expf.py.
   (256 entries: a degree-4 polynomial suffices, which is faster than a
   degree 5 and a table of 64.) */
REPDL_FN uint64_t repdl__exp2_256_bits(uint64_t j)
{
    static const uint64_t T[256] = {
        0x3ff0000000000000u, 0x3feffb1afa5abcbfu, 0x3feff63da9fb3335u, 0x3feff168143b0281u,
        0x3fefec9a3e778061u, 0x3fefe7d42e11bbccu, 0x3fefe315e86e7f85u, 0x3fefde5f72f654b1u,
        0x3fefd9b0d3158574u, 0x3fefd50a0e3c1f89u, 0x3fefd06b29ddf6deu, 0x3fefcbd42b72a836u,
        0x3fefc74518759bc8u, 0x3fefc2bdf66607e0u, 0x3fefbe3ecac6f383u, 0x3fefb9c79b1f3919u,
        0x3fefb5586cf9890fu, 0x3fefb0f145e46c85u, 0x3fefac922b7247f7u, 0x3fefa83b23395decu,
        0x3fefa3ec32d3d1a2u, 0x3fef9fa55fdfa9c5u, 0x3fef9b66affed31bu, 0x3fef973028d7233eu,
        0x3fef9301d0125b51u, 0x3fef8edbab5e2ab6u, 0x3fef8abdc06c31ccu, 0x3fef86a814f204abu,
        0x3fef829aaea92de0u, 0x3fef7e95934f312eu, 0x3fef7a98c8a58e51u, 0x3fef76a45471c3c2u,
        0x3fef72b83c7d517bu, 0x3fef6ed48695bbc0u, 0x3fef6af9388c8deau, 0x3fef672658375d2fu,
        0x3fef635beb6fcb75u, 0x3fef5f99f8138a1cu, 0x3fef5be084045cd4u, 0x3fef582f95281c6bu,
        0x3fef54873168b9aau, 0x3fef50e75eb44027u, 0x3fef4d5022fcd91du, 0x3fef49c18438ce4du,
        0x3fef463b88628cd6u, 0x3fef42be3578a819u, 0x3fef3f49917ddc96u, 0x3fef3bdda27912d1u,
        0x3fef387a6e756238u, 0x3fef351ffb82140au, 0x3fef31ce4fb2a63fu, 0x3fef2e85711ece75u,
        0x3fef2b4565e27cddu, 0x3fef280e341ddf29u, 0x3fef24dfe1f56381u, 0x3fef21ba7591bb70u,
        0x3fef1e9df51fdee1u, 0x3fef1b8a66d10f13u, 0x3fef187fd0dad990u, 0x3fef157e39771b2fu,
        0x3fef1285a6e4030bu, 0x3fef0f961f641589u, 0x3fef0cafa93e2f56u, 0x3fef09d24abd886bu,
        0x3fef06fe0a31b715u, 0x3fef0432edeeb2fdu, 0x3fef0170fc4cd831u, 0x3feefeb83ba8ea32u,
        0x3feefc08b26416ffu, 0x3feef96266e3fa2du, 0x3feef6c55f929ff1u, 0x3feef431a2de883bu,
        0x3feef1a7373aa9cbu, 0x3feeef26231e754au, 0x3feeecae6d05d866u, 0x3feeea401b7140efu,
        0x3feee7db34e59ff7u, 0x3feee57fbfec6cf4u, 0x3feee32dc313a8e5u, 0x3feee0e544ede173u,
        0x3feedea64c123422u, 0x3feedc70df1c5175u, 0x3feeda4504ac801cu, 0x3feed822c367a024u,
        0x3feed60a21f72e2au, 0x3feed3fb2709468au, 0x3feed1f5d950a897u, 0x3feecffa3f84b9d4u,
        0x3feece086061892du, 0x3feecc2042a7d232u, 0x3feeca41ed1d0057u, 0x3feec86d668b3237u,
        0x3feec6a2b5c13cd0u, 0x3feec4e1e192aed2u, 0x3feec32af0d7d3deu, 0x3feec17dea6db7d7u,
        0x3feebfdad5362a27u, 0x3feebe41b817c114u, 0x3feebcb299fddd0du, 0x3feebb2d81d8abffu,
        0x3feeb9b2769d2ca7u, 0x3feeb8417f4531eeu, 0x3feeb6daa2cf6642u, 0x3feeb57de83f4eefu,
        0x3feeb42b569d4f82u, 0x3feeb2e2f4f6ad27u, 0x3feeb1a4ca5d920fu, 0x3feeb070dde910d2u,
        0x3feeaf4736b527dau, 0x3feeae27dbe2c4cfu, 0x3feead12d497c7fdu, 0x3feeac0827ff07ccu,
        0x3feeab07dd485429u, 0x3feeaa11fba87a03u, 0x3feea9268a5946b7u, 0x3feea84590998b93u,
        0x3feea76f15ad2148u, 0x3feea6a320dceb71u, 0x3feea5e1b976dc09u, 0x3feea52ae6cdf6f4u,
        0x3feea47eb03a5585u, 0x3feea3dd1d1929fdu, 0x3feea34634ccc320u, 0x3feea2b9febc8fb7u,
        0x3feea23882552225u, 0x3feea1c1c70833f6u, 0x3feea155d44ca973u, 0x3feea0f4b19e9538u,
        0x3feea09e667f3bcdu, 0x3feea052fa75173eu, 0x3feea012750bdabfu, 0x3fee9fdcddd47645u,
        0x3fee9fb23c651a2fu, 0x3fee9f9298593ae5u, 0x3fee9f7df9519484u, 0x3fee9f7466f42e87u,
        0x3fee9f75e8ec5f74u, 0x3fee9f8286ead08au, 0x3fee9f9a48a58174u, 0x3fee9fbd35d7cbfdu,
        0x3fee9feb564267c9u, 0x3feea024b1ab6e09u, 0x3feea0694fde5d3fu, 0x3feea0b938ac1cf6u,
        0x3feea11473eb0187u, 0x3feea17b0976cfdbu, 0x3feea1ed0130c132u, 0x3feea26a62ff86f0u,
        0x3feea2f336cf4e62u, 0x3feea3878491c491u, 0x3feea427543e1a12u, 0x3feea4d2add106d9u,
        0x3feea589994cce13u, 0x3feea64c1eb941f7u, 0x3feea71a4623c7adu, 0x3feea7f4179f5b21u,
        0x3feea8d99b4492edu, 0x3feea9cad931a436u, 0x3feeaac7d98a6699u, 0x3feeabd0a478580fu,
        0x3feeace5422aa0dbu, 0x3feeae05bad61778u, 0x3feeaf3216b5448cu, 0x3feeb06a5e0866d9u,
        0x3feeb1ae99157736u, 0x3feeb2fed0282c8au, 0x3feeb45b0b91ffc6u, 0x3feeb5c353aa2fe2u,
        0x3feeb737b0cdc5e5u, 0x3feeb8b82b5f98e5u, 0x3feeba44cbc8520fu, 0x3feebbdd9a7670b3u,
        0x3feebd829fde4e50u, 0x3feebf33e47a22a2u, 0x3feec0f170ca07bau, 0x3feec2bb4d53fe0du,
        0x3feec49182a3f090u, 0x3feec674194bb8d5u, 0x3feec86319e32323u, 0x3feeca5e8d07f29eu,
        0x3feecc667b5de565u, 0x3feece7aed8eb8bbu, 0x3feed09bec4a2d33u, 0x3feed2c980460ad8u,
        0x3feed503b23e255du, 0x3feed74a8af46052u, 0x3feed99e1330b358u, 0x3feedbfe53c12e59u,
        0x3feede6b5579fdbfu, 0x3feee0e521356ebau, 0x3feee36bbfd3f37au, 0x3feee5ff3a3c2774u,
        0x3feee89f995ad3adu, 0x3feeeb4ce622f2ffu, 0x3feeee07298db666u, 0x3feef0ce6c9a8952u,
        0x3feef3a2b84f15fbu, 0x3feef68415b749b1u, 0x3feef9728de5593au, 0x3feefc6e29f1c52au,
        0x3feeff76f2fb5e47u, 0x3fef028cf22749e4u, 0x3fef05b030a1064au, 0x3fef08e0b79a6f1fu,
        0x3fef0c1e904bc1d2u, 0x3fef0f69c3f3a207u, 0x3fef12c25bd71e09u, 0x3fef16286141b33du,
        0x3fef199bdd85529cu, 0x3fef1d1cd9fa652cu, 0x3fef20ab5fffd07au, 0x3fef244778fafb22u,
        0x3fef27f12e57d14bu, 0x3fef2ba88988c933u, 0x3fef2f6d9406e7b5u, 0x3fef33405751c4dbu,
        0x3fef3720dcef9069u, 0x3fef3b0f2e6d1675u, 0x3fef3f0b555dc3fau, 0x3fef43155b5bab74u,
        0x3fef472d4a07897cu, 0x3fef4b532b08c968u, 0x3fef4f87080d89f2u, 0x3fef53c8eacaa1d6u,
        0x3fef5818dcfba487u, 0x3fef5c76e862e6d3u, 0x3fef60e316c98398u, 0x3fef655d71ff6075u,
        0x3fef69e603db3285u, 0x3fef6e7cd63a8315u, 0x3fef7321f301b460u, 0x3fef77d5641c0658u,
        0x3fef7c97337b9b5fu, 0x3fef81676b197d17u, 0x3fef864614f5a129u, 0x3fef8b333b16ee12u,
        0x3fef902ee78b3ff6u, 0x3fef953924676d76u, 0x3fef9a51fbc74c83u, 0x3fef9f7977cdb740u,
        0x3fefa4afa2a490dau, 0x3fefa9f4867cca6eu, 0x3fefaf482d8e67f1u, 0x3fefb4aaa2188510u,
        0x3fefba1bee615a27u, 0x3fefbf9c1cb6412au, 0x3fefc52b376bba97u, 0x3fefcac948dd7274u,
        0x3fefd0765b6e4540u, 0x3fefd632798844f8u, 0x3fefdbfdad9cbe14u, 0x3fefe1d802243c89u,
        0x3fefe7c1819e90d8u, 0x3fefedba3692d514u, 0x3feff3c22b8f71f1u, 0x3feff9d96b2a23d9u,
    };
    return T[j];
}

/* rho[j] = RN((2^(j/256) - T[j]) / T[j]): T[j] (1 + rho[j]) = 2^(j/256)
   with relative error < 2^-106.  |rho[j]| < 2^-53.  Used where T[j]'s own
   rounding is too coarse (expm1 in tanh.h).  From reference/gen/expf.py. */
REPDL_FN double repdl__exp2_256_rho(uint64_t j)
{
    static const double R[256] = {
        0.0, -3.626782723182394e-17, 9.447885451727066e-17, -3.225749868798885e-17,
        -1.507066976926039e-17, 9.158765022871105e-18, -5.679155082825012e-17, 3.5342800810512006e-17,
        4.9997448722726326e-17, -7.379570160108344e-17, -4.823683599994895e-17, 3.22241127105875e-17,
        7.357846871247418e-18, -7.53677229630258e-17, 5.773230223741951e-17, 3.63419273814989e-17,
        8.189317638195515e-17, 6.949710465302917e-17, 5.326891139980878e-17, -9.146625470077728e-17,
        1.6665881442326747e-18, -6.75730030639223e-17, -1.128113245461828e-17, 4.7721219203453936e-17,
        -7.402825309426177e-17, -9.286775361857284e-17, -3.578659767309563e-18, -9.29755353247197e-18,
        -6.170654745608695e-17, -4.4214546599356274e-17, 2.919139999949279e-17, 4.9738441820855665e-18,
        -2.7939114859515733e-17, 1.3181918093986738e-17, -5.399285355184285e-17, 6.52214648233906e-17,
        4.776959425256223e-17, 7.45386430284485e-17, -7.927701432338473e-17, 5.006368255068444e-17,
        9.341710609905046e-17, -7.138668078838777e-17, -5.534520675707472e-17, -8.633688057865751e-17,
        4.585670326662351e-17, 5.94276638600689e-17, 2.8582430411116143e-17, 4.46117630352068e-17,
        7.826573258636076e-17, 4.073200896351628e-17, 4.053626906769216e-17, 6.008084272918382e-17,
        2.823784425951061e-17, 9.024547262552506e-17, -7.882802262487991e-17, -2.80984096687499e-17,
        3.2904726646008416e-17, -7.534518803630196e-17, -1.5792094703347882e-18, -6.211611577611981e-17,
        4.721368121170128e-17, 8.555805394630551e-17, 1.3045277096919659e-17, -7.765238052228753e-18,
        3.3484623336251524e-17, 3.687886347039402e-17, 3.8611199774925664e-17, -8.181785718848385e-17,
        5.527550048505249e-17, -2.785156236246432e-17, -3.927184172445234e-17, -4.035286173668099e-17,
        -6.346552106729483e-17, -7.391395011102348e-17, -8.684417614865944e-17, -7.267248833792347e-17,
        -1.5456342819397733e-17, 5.998794265961993e-17, -8.70763476495455e-17, 2.2347212620662107e-17,
        3.750854201303127e-17, -3.7561413300668235e-17, -6.616854503526488e-17, 3.86119819197098e-17,
        -5.346099009198751e-18, -6.69040887631498e-17, -2.443726321015018e-17, 3.3584951515744015e-17,
        2.1023049675215714e-18, -8.312758534328463e-18, 7.771067937501065e-17, -7.627861339432742e-17,
        1.3357510088834541e-17, -2.656322470426289e-17, 6.938291696959204e-17, -2.2999417046532372e-17,
        1.9572585293112036e-17, 4.36705768280675e-17, 6.632256961675804e-17, -5.611559863493893e-17,
        -5.478069123926778e-17, 1.7250029865693378e-17, -4.140839310392624e-17, -1.8769205872297345e-17,
        -2.1571477251208752e-17, 3.077208576406284e-17, -3.8287766552120535e-17, -4.409930613802759e-17,
        6.663804589232195e-17, -4.319647175894786e-17, 2.3936187400285282e-17, -6.13590177708548e-17,
        5.68648095791174e-17, -7.017780481491471e-17, 1.1264523354521684e-18, -7.328321885353335e-17,
        7.007875046906994e-17, -3.275234356562283e-17, -5.0119214278381254e-17, 7.615243644842956e-17,
        -4.8923067513522756e-17, 6.069910409110529e-17, -3.5260089953269434e-17, -6.686752355587934e-17,
        -6.872303720902018e-17, -3.775225510557552e-17, 5.001446664133532e-18, 2.954182804637628e-17,
        -6.835808657661922e-17, 1.6039222422136547e-17, -1.1307344092910212e-17, 6.930181583208251e-17,
        -8.416011634717156e-18, -4.047783115673486e-17, -2.9247977035436566e-17, 3.88719082908185e-18,
        -2.092304381843353e-17, -4.3195148251494274e-17, -3.9778645875427124e-17, 3.8770111501883155e-17,
        -3.833464968654295e-17, 6.506181881382132e-17, 5.763611164480894e-17, 4.543471376437447e-17,
        -2.3591094770850053e-17, -6.541568317980021e-17, 7.260074661098575e-17, 4.1342515241761364e-17,
        9.50689710108796e-18, -1.911655638774713e-17, -4.272956133839906e-17, 4.700542876742117e-17,
        -6.735219232374683e-17, 5.87111285254001e-17, -2.8396044410430936e-17, -3.941172535709002e-18,
        -7.226635472101257e-17, 2.4748034361231882e-17, 5.786121003395918e-17, 6.615346305685786e-17,
        5.1548301170786783e-17, 6.908958879988667e-17, -9.416257568878152e-18, -5.1474262167464706e-17,
        2.4253985766689806e-17, 4.788016778840113e-17, -6.604314051707707e-17, -2.1269597052639714e-17,
        -6.432131775424189e-18, -3.2674517546387563e-17, -1.2204007601863921e-17, -3.7731749627264886e-18,
        -6.336161863401293e-17, 1.556744326672912e-17, -3.7800879246373815e-17, -6.446868448933262e-17,
        1.5341410053603723e-17, -4.530843437489394e-17, 1.2932855580427452e-17, -2.207721690323335e-17,
        -4.123367330661149e-17, 6.03563406113924e-17, 4.703083974463456e-17, -5.634276515023469e-17,
        -6.152602891550265e-17, 5.534591155171671e-18, 5.827849326195279e-17, -4.3850299043813304e-17,
        3.540948262646183e-17, 2.5591719280008003e-17, -3.2741571320938764e-17, 4.9509449975256166e-17,
        4.875160526227062e-17, -4.258577438618375e-17, -5.718569790077838e-17, 4.26916951168406e-17,
        -4.719539664590972e-18, -1.6007848753069685e-17, -5.773451958805706e-17, 3.777176156482348e-17,
        -1.0772487078934056e-17, -5.525584707482764e-17, -6.221808618533911e-17, -9.800390248883478e-19,
        1.821405440362259e-17, -8.759588860695418e-19, -6.155536546227639e-17, -2.925743996850606e-17,
        1.685487290628973e-17, -4.5106136765727296e-17, 5.3581249177694816e-17, 3.36714978480023e-17,
        3.621615935336894e-17, -2.968574820877882e-17, 8.588379527574144e-18, -2.3210548811747337e-17,
        1.01562190116415e-17, -1.4041588699211893e-17, -2.869134889187244e-17, -4.992211942765796e-17,
        -5.495118966122005e-17, 4.06925816470442e-17, -5.56965572431627e-17, 3.766543592078606e-17,
        1.790126907604513e-17, 3.762394116624619e-18, -3.2211766346200164e-17, 4.8825019534573255e-17,
        5.265370768556274e-17, -5.125699770980558e-17, 3.5089866402403033e-17, -5.317267812177088e-17,
        -3.266924100901318e-17, -8.634468025220208e-18, -4.3657593008079375e-17, -4.766018286365994e-17,
        1.7963932659833022e-17, -2.031749207700352e-17, 3.4300925275214166e-17, -3.094032213459214e-17,
        -5.545065618639427e-17, 3.705834438928239e-17, -5.149009745457733e-17, 3.1940460609698624e-17,
        5.336805878514151e-17, -3.4193542031270496e-17, 3.498978661192973e-17, -1.1266309325860443e-17,
        4.5784915277060095e-17, 5.593437445486485e-17, -5.241934575393899e-17, -3.7765920242338976e-18,
        2.0414278897578303e-17, -1.1107127810435507e-17, 4.124842848606488e-18, 8.979134251418192e-18,
    };
    return R[j];
}

/* Cody-Waite reduction of a binary32 value held in a double:
     xd = k ln2/256 + r,  |k| < 2^16,  |r| <= ln2/512 + 2^-36 ln2/256 < 0x1.63p-10,
   returns r with |r - (xd - k ln2/256)| < 2^-62.99, and sets *s to
   2^(k>>8) T[k&255] (exact) and *j to k&255.
   Needs |xd| <= 104 and xd a binary32 value. */
REPDL_FN double repdl__exp_reduce(double xd, double *s, uint64_t *j)
{
    /* z = xd 256/ln2 + 0x1.8p52: the addition rounds xd 256/ln2 to an
       integer k (in the low bits of z's mantissa, as |k| < 2^51); fused or
       not, |xd 256/ln2 - k| <= 1/2 + 2^-36, since the product's rounding and
       0x1.71547652b82fep8's own error are each below 2^-53 * 38500. */
    double z = repdl__dadd(repdl__dmul(xd, 369.3299304675746), 6755399441055744.0);
    uint64_t ki = repdl__asuint64(z);
    double kd = repdl__dsub(z, 6755399441055744.0);                        /* = k, exact */
    /* ln2/256 = C_HI + C_LO + O(2^-101): C_HI = 0x1.62e42fefap-9 has 37
       significant bits, so k C_HI (|k| < 2^16) is exact.  xd - k C_HI is
       exact too: for k = 0 it is xd; otherwise |xd| > 2^-10, so xd is a
       multiple of 2^-33 and k C_HI one of 2^-45, and their difference is a
       multiple of 2^-45 below 2^-9 in magnitude, which has at most 36
       significant bits.  Fused or not, this line is therefore exact. */
    double r = repdl__dsub(xd, repdl__dmul(kd, 0.0027076061740558544));
    /* |k C_LO| < 2^16 * 2^-47.1 so its rounding is < 2^-84; |r| < 2^-9 so
       the subtraction's rounding is <= 2^-63; k (C_HI + C_LO - ln2/256) < 2^-85.
       Total < 2^-62.99, fused or not. */
    r = repdl__dsub(r, repdl__dmul(kd, 6.432011555819173e-15));
    *j = ki & 255u;
    /* ki << 44 = (k mod 2^20) << 44 = ((k >> 8) << 52) + ((k & 255) << 44)
       modulo 2^64: adds k>>8 to T[k&255]'s exponent, cancelling the j << 44
       the table subtracted.  The exponent stays in range (|k>>8| <= 151). */
    *s = repdl__asdouble(repdl__exp2_256_bits(*j) + (ki << 44));
    return r;
}

/* y ~ exp(x) for x in the approximation domain, no special-case test. */
REPDL_FN double repdl__expf_core(float x)
{
    double s;
    uint64_t j;
    double r = repdl__exp_reduce(repdl__f2d(x), &s, &j);
    /* degree-4, Sollya (reference/gen/expf.sollya), [-0x1.63p-10, 0x1.63p-10]:
       |(1 + q(r)) / exp(r) - 1| < 2^-57.45 */
    double r2 = repdl__dmul(r, r);
    double a = repdl__dadd(0.5000000000000233, repdl__dmul(r, 0.16666668003889068));
    double p = repdl__dadd(a, repdl__dmul(r2, 0.0416666536383358));
    /* y = s (1 + q) = s + (s r + (s r2) p), in this order so that s r and
       s r2 are ready when p is (a shorter dependency chain).  |s q| < 0.0014 s:
       the roundings of r2, a, p, s r, s r2, (s r2) p and s r + (s r2) p add
       up to < 2^-61.5 s; the final sum rounds by <= 2^-53 |y|.  With the
       table's 0.851 2^-53, the polynomial's 2^-57.45 and the reduction's
       2^-63: |y / exp(x) - 1| < 1.90 2^-53 (reference/gen/expf.py), fused
       or not. */
    double sr = repdl__dmul(s, r), sr2 = repdl__dmul(s, r2);
    return repdl__dadd(s, repdl__dadd(sr, repdl__dmul(sr2, p)));
}

/* c of repdl__round_ok_normal for repdl__expf_fast's y: its relative
   error is below 2^-44.68 = 319 2^-53 < (c - 1) 2^-53 / (1 + 2^-50)
   (reference/gen/expf.py).  The test fails with probability about
   2c / 2^29 = 2^-19. */
#define REPDL__EXPF_FAST_C 0x200u /* 2^9 */

/* y ~ exp(x) for |x| <= 87 (no special-case test), the fast path:
   |y / exp(x) - 1| < 2^-44.68, fused or not (reference/gen/expf.py). */
REPDL_FN double repdl__expf_fast(float x)
{
    double xd = repdl__f2d(x);
    /* w = x 256/ln2: the constant has relative error 0.13 2^-53, the
       product rounds by <= 2^-53 |w| (|w| < 32200); fused into z or d
       below, it is exact there.  d is within 1.13 2^-53 |w| of the exact
       x 256/ln2 - k: 2^(d/256) is off by < 1.13 |x| 2^-53 <= 2^6.6 2^-53
       relative. */
    double w = repdl__dmul(xd, 369.3299304675746);
    /* k = round(w) in z's low bits, kd = k and d = w - k exactly (as in
       tanh.h's fast path), |d| <= 1/2 + 2^-40 fused or not */
    double z = repdl__dadd(w, 6755399441055744.0);
    uint64_t ki = repdl__asuint64(z);
    double kd = repdl__dsub(z, 6755399441055744.0);
    double d = repdl__dsub(w, kd);
    /* s = 2^(k>>8) T[k&255], exact, |s / 2^(k/256) - 1| < 0.851 2^-53 */
    double s = repdl__asdouble(repdl__exp2_256_bits(ki & 255u) + (ki << 44));
    /* P ~ 2^(d/256): tanh.h's degree-3 polynomial of -d (Sollya,
       reference/gen/tanhf.sollya), |d| <= 1/2 + 2^-30, absolute error
       < 2^-45.24; its evaluation rounds by < 2^-52, fused or not. */
    double d2 = repdl__dmul(d, d);
    double P = repdl__dadd(repdl__dadd(1.0, repdl__dmul(d, 0.002707606174062255)),
                           repdl__dmul(d2, repdl__dadd(3.665566060704176e-06,
                                                       repdl__dmul(d, 3.3083031092022797e-09))));
    /* one more rounding */
    return repdl__dmul(s, P);
}

/* 1 with *y ~ exp(x), |*y / exp(x) - 1| < REPDL__EXPF_ERR - 2^-53, when x
   takes the approximation path: -0x1.9fe368p6 <= x <= 0x1.62e42ep6.
   0 for the special cases that repdl_exp_f32 answers exactly: NaN, x > 0x1.62e42ep6
   (exp(x) >= FLT_MAX + ulp/2, so +inf, including +inf) and x < -0x1.9fe368p6
   (exp(x) < 2^-150, so +0, including -inf). */
REPDL_FN int repdl__expf_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x);
    if (REPDL_UNLIKELY((ux & 0x7fffffffu) > 0x42b17217u)) {  /* |x| > 0x1.62e42ep6, inf, NaN */
        if (ux < 0x80000000u || ux > 0xc2cff1b4u)
            return 0;                                          /* +overflow, +inf, -underflow, -inf, NaN */
    }
    *y = repdl__expf_core(x);
    return 1;
}

/* repdl_exp_f32 off its fast path: |x| > 87 (overflow, underflow and
   subnormal results, inf, NaN) and the fast rounding test's failures. */
REPDL_FN_NOINLINE float repdl__expf_slow(float x)
{
    double y;
    if (!repdl__expf_y(x, &y)) {
        if (repdl__fne(x, x)) return repdl__nanf();
        return repdl__fgt(x, 0.0f) ? repdl__asfloat(0x7f800000u) : 0.0f;
    }
    /* |x| <= 87 keeps exp(x) in [2^-125.5, 2^125.6]: a normal binary32 */
    if (REPDL_LIKELY(((repdl__asuint(x) & 0x7fffffffu) <= 0x42ae0000u) & repdl__round_ok_normal(y, 4u)))
        return repdl__d2f(y);
    if (REPDL_LIKELY(repdl__round_ok(y, REPDL__EXPF_ERR))) return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/expf_hard.inc"
        };
        return repdl__hard_lookup(tab, (int)(sizeof tab / sizeof tab[0]), x, y);
    }
}

/* exp(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_exp_f32(float x)
{
    /* The fast path runs first, on every input (on NaN, inf or huge x it
       computes garbage, harmlessly: the table index is masked), so that one
       branch tests both conditions: |x| <= 87, so exp(x) is in
       [2^-125.5, 2^125.6] and y rounds to a normal binary32, and the fast
       rounding test. */
    double y = repdl__expf_fast(x);
    if (REPDL_LIKELY(((repdl__asuint(x) & 0x7fffffffu) <= 0x42ae0000u) &
                     repdl__round_ok_normal(y, REPDL__EXPF_FAST_C)))
        return repdl__d2f(y);
    return repdl__expf_slow(x);
}

/* One element of repdl_exp_array_f32's branch-free pass (detail/cr.h's
   skeleton): the approximation runs on every element; NaN, overflow and
   underflow to 0 are answered by selects; flagged for repdl_exp_f32:
   87 < |x| within the approximation domain, and the rare (about 1 in
   2^24) failures of the fast rounding test. */
REPDL_FN uint32_t repdl__exp_lane(uint32_t ux, uint32_t *fail)
{
    int ovf = (ux > 0x42b17217u) & (ux <= 0x7f800000u);        /* +inf */
    int unf = (ux > 0xc2cff1b4u) & (ux <= 0xff800000u);        /* +0 */
    int nan = (ux & 0x7fffffffu) > 0x7f800000u;                /* NaN */
    int sp = ovf | unf | nan;
    int fast = (ux & 0x7fffffffu) <= 0x42ae0000u;              /* as repdl_exp_f32 */
    /* specials run the approximation on a harmless argument: x with its
       exponent field cleared (|.| < 2^-126); an input-dependent value
       keeps compilers from branching around a constant */
    double y = repdl__expf_core(repdl__asfloat(ux & (sp ? 0x807fffffu : 0xffffffffu)));
    uint32_t r = repdl__asuint(repdl__d2f(y));
    /* selects as masks, so that no compiler moves the conversion above
       into a branch (which would stop vectorization) */
    uint32_t spm = 0u - (uint32_t)sp;
    *fail = (uint32_t)(!sp & !(fast & repdl__round_ok_normal(y, 4u)));
    return (r & ~spm) | (0x7f800000u & (0u - (uint32_t)ovf)) |
           (REPDL_NAN_BITS & (0u - (uint32_t)nan));
}

/* The array form: out[i] = repdl_exp_f32(x[i]) for 0 <= i < n, bit for bit
   (detail/cr.h's skeleton).  out may be x itself (in place), otherwise the
   two must not overlap; n = 0 accepts NULL pointers. */
REPDL_API repdl_status repdl_exp_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    REPDL__CR_ARRAY(n, x, out, repdl__exp_lane, repdl_exp_f32);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_EXP_H */
