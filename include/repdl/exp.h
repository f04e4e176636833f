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

   Constants and table: reference/gen/expf.py; polynomial:
   reference/gen/expf.sollya; error bound: reference/gen/expf.py (it prints
   each term of the bound below).

   Also: repdl_exp_array_f32(n, x, out), the same results for an array, in a
   form that compilers vectorize.  tanh.h shares the reduction below. */
#ifndef REPDL_EXP_H
#define REPDL_EXP_H

#include "config.h"
#include "detail/cr.h"

/* Relative error bound of repdl__expf_y's y on every path (fused or not),
   including the 2^-53 rounding of the rounding test's own products:
   2^-51.46 (reference/gen/expf.py), rounded up. */
#define REPDL__EXPF_ERR 0x1p-51

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
        0x0p0, -0x1.4e82fc61851acp-55, 0x1.b3b4f1a88bf6ep-54, -0x1.2985dd8521d32p-55,
        -0x1.160139cd8dc5dp-56, 0x1.51e617061bfbdp-57, -0x1.05e7a108766d1p-54, 0x1.45fad437fa426p-55,
        0x1.cd2523567f613p-55, -0x1.54529642b232fp-54, -0x1.bce8023f98efap-55, 0x1.293708ef5c32ep-55,
        0x1.0f74e61e6c861p-57, -0x1.5b9280905b2a4p-54, 0x1.0a3e45b33d399p-54, 0x1.4f31f32c4b7e7p-55,
        0x1.79aa65d837b6dp-54, 0x1.407fb30d0642p-54, 0x1.eb51a92fdeffcp-55, -0x1.a5d04b3b9911bp-54,
        0x1.ebe3d702f9cd1p-60, -0x1.37a01f0739546p-54, -0x1.a033489906e0bp-57, 0x1.b8268b04ef0a5p-55,
        -0x1.556522a2fbd0ep-54, -0x1.ac46e44a2ebccp-54, -0x1.080ef8c4eea55p-58, -0x1.5704e90c9f86p-57,
        -0x1.1c923b9d5f416p-54, -0x1.97cea57e4628p-55, 0x1.0d3e3e95c55afp-55, 0x1.6f01429e2b9d2p-58,
        -0x1.01b15eaa59348p-55, 0x1.e653b2459034bp-57, -0x1.f1ff055de323dp-55, 0x1.2cc7ea345b7dcp-54,
        0x1.b898c3f1353bfp-55, 0x1.57bfb2876ea9ep-54, -0x1.6d99c7611eb26p-54, 0x1.cdc1873af2155p-55,
        0x1.aecf73e3a2f6p-54, -0x1.493684653a131p-54, -0x1.fe782cb86389dp-55, -0x1.8e2899077520ap-54,
        0x1.a6f4144a6c38dp-55, 0x1.120fcd4f59273p-54, 0x1.07a05b0e4047dp-55, 0x1.9b788c188c9b8p-55,
        0x1.68efde3a8a894p-54, 0x1.77afbca90ef84p-55, 0x1.75e18f274487dp-55, 0x1.1512f082876eep-54,
        0x1.0472b981fe7f2p-55, 0x1.a02f0c7d75ec6p-54, -0x1.6b87b3f71085ep-54, -0x1.03297e78260bfp-55,
        0x1.2f7e16d09ab31p-55, -0x1.5b77e5ccd9fbfp-54, -0x1.d219b1a6fbffap-60, -0x1.1e75c40b4251ep-54,
        0x1.b3782720c0ab4p-55, 0x1.8a911f1f7785ap-54, 0x1.e149289cecb8fp-57, -0x1.1e7c998db7dbbp-57,
        0x1.34d754db0abb6p-55, 0x1.5425c11faadf4p-55, 0x1.64201e2ac744cp-55, -0x1.79517a03e2847p-54,
        0x1.fdd395dd3f84ap-55, -0x1.00e2a46da4beep-55, -0x1.6a3803b8e5b04p-55, -0x1.7430803972b34p-55,
        -0x1.24aedcc4b5068p-54, -0x1.54de30ae02d94p-54, -0x1.907f81b512d8ep-54, -0x1.4f2487e1c03ecp-54,
        -0x1.1d1e83e9436d2p-56, 0x1.14a5432fcb2f4p-54, -0x1.91919b3ce1b15p-54, 0x1.9c3bba5562a2fp-56,
        0x1.59f48a72a4c6dp-55, -0x1.5a71612e21658p-55, -0x1.312607a28698ap-54, 0x1.6421f6f1d24d6p-55,
        -0x1.8a78f4817895bp-58, -0x1.348a6815fce65p-54, -0x1.c2c9b67499a1bp-56, 0x1.35c43984d9871p-55,
        0x1.363ed60c2ac11p-59, -0x1.32afc8d9473ap-57, 0x1.666093b0664efp-54, -0x1.5fc5e44de020ep-54,
        0x1.ecce1daa10379p-57, -0x1.ea0148327c42fp-56, 0x1.3ff8e3f0f123p-54, -0x1.a843ad1a88022p-56,
        0x1.690cebb7aafbp-56, 0x1.92ca3bf144e63p-55, 0x1.31dbdeb54e077p-54, -0x1.02c99b04aa8bp-54,
        -0x1.f94340071a38ep-55, 0x1.3e34f67e67118p-56, -0x1.7deccdc93a349p-55, -0x1.5a3b1197ba0fp-56,
        -0x1.8dec6bd0f385fp-56, 0x1.1bd2888075068p-55, -0x1.61246ec7b5cf6p-55, -0x1.96be8ae89ef8fp-55,
        0x1.3350518fdd78ep-54, -0x1.8e6ac90348602p-55, 0x1.b98b72f8a9b05p-56, -0x1.1af7f1365c3acp-54,
        0x1.063e1e21c5409p-54, -0x1.43a3540d1898ap-54, 0x1.4c7855019c6eap-60, -0x1.51f58ddaa809p-54,
        0x1.432e62b64c035p-54, -0x1.2e1648e50a17cp-55, -0x1.ce44a6199769fp-55, 0x1.5f30eda98a575p-54,
        -0x1.c33c53bef4da8p-55, 0x1.17ecda8a72159p-54, -0x1.45378892be9aep-55, -0x1.345f3cee1ae6ep-54,
        -0x1.3cedd78565858p-54, -0x1.5c33fdf910406p-55, 0x1.710aa807e1964p-58, 0x1.1079ab5789604p-55,
        -0x1.3b3efbf5e2228p-54, 0x1.27df161cd7778p-56, -0x1.a12ad8734b982p-57, 0x1.3f9924a05b767p-54,
        -0x1.367efb86da9eep-57, -0x1.7557939a8b5efp-55, -0x1.0dc3d54e08851p-55, 0x1.1ed2f56fa9d1ap-58,
        -0x1.81f647e5a3ecfp-56, -0x1.8e67a9006c909p-55, -0x1.6ee4ac08b7dbp-55, 0x1.6597566977ac8p-55,
        -0x1.619321e55e68ap-55, 0x1.2c0b7028a5c3ap-54, 0x1.09ccb5e09d4d3p-54, 0x1.a30faf49cc78cp-55,
        -0x1.b32dcb94da51dp-56, -0x1.2dad3519d7b5bp-54, 0x1.4ecfd5467c06bp-54, 0x1.7d51410fd15c2p-55,
        0x1.5ebe1abd66c55p-57, -0x1.60a3629969871p-56, -0x1.8a1c52fb3cf42p-55, 0x1.b18c6e3fdef5dp-55,
        -0x1.369b6f13b3734p-54, 0x1.0ec1ddcb1390ap-54, -0x1.05e843a19ff1ep-55, -0x1.22cea4f3afa1ep-58,
        -0x1.4d450d872576ep-54, 0x1.c88549b958471p-56, 0x1.0ad675b0e8ap-54, 0x1.31143962f7877p-54,
        0x1.db72fc1f0eab4p-55, 0x1.3e9e96f112479p-54, -0x1.5b6609cc5e7ffp-57, -0x1.dac42a4a38dfp-55,
        0x1.bf68359f35f44p-56, 0x1.b99dd98b1ed84p-55, -0x1.3091fa71e3d83p-54, -0x1.885ad50cbb75p-56,
        -0x1.da9b88b6c1e29p-58, -0x1.2d5e85f3e0301p-55, -0x1.c23f97c90b959p-57, -0x1.1669428996971p-58,
        -0x1.2434322f4f9aap-54, 0x1.1f2b2c1c4c014p-56, -0x1.5ca6cd7668e4bp-55, -0x1.294f304f166b6p-54,
        0x1.1affc2b91ce27p-56, -0x1.a1e58414c07d3p-55, 0x1.dd235e10a73bbp-57, -0x1.9740b58a20091p-56,
        -0x1.7c50422622263p-55, 0x1.165830a2b96c2p-54, 0x1.b1c86e3e231d5p-55, -0x1.03d5cbe27874bp-54,
        -0x1.1bbd1d3bcbb15p-54, 0x1.986178980fcep-58, 0x1.0cc319cee31d2p-54, -0x1.9472975b1f2a5p-55,
        0x1.469846e735ab3p-55, 0x1.d8157a34b7e7fp-56, -0x1.2dfcd978e9db4p-55, 0x1.c8a4e231ebb7dp-55,
        0x1.c1a7792cb3387p-55, -0x1.88c8d11a142e5p-55, -0x1.07b8f4ad1d9fap-54, 0x1.89c2ea41433c7p-55,
        -0x1.5c3d956dcaebap-58, -0x1.274aedac8ff8p-56, -0x1.0a40e3da6f64p-54, 0x1.5c620ce76df06p-55,
        -0x1.8d6f438ad9334p-57, -0x1.fda52e1b51e41p-55, -0x1.1eee26b588a35p-54, -0x1.2141a7b3e2cd8p-60,
        0x1.4ffd70a5fddcdp-56, -0x1.02899507554e5p-60, -0x1.1bdfbfa9298acp-54, -0x1.0dda2d4c0010cp-55,
        0x1.36eae30af0cb3p-56, -0x1.a007daadf8d68p-55, 0x1.ee3325c9ffd94p-55, 0x1.36909391181d3p-55,
        0x1.4e08fd10959acp-55, -0x1.11cd7dbdf9547p-55, 0x1.3cdaf384e1a67p-57, -0x1.ac28b7bef6621p-56,
        0x1.76b2c6c921968p-57, -0x1.030587207b9e1p-56, -0x1.08a1883ccb5d2p-55, -0x1.cc734592af7fcp-55,
        -0x1.fad5d3ffffa6fp-55, 0x1.7752a44f587e8p-55, -0x1.00dae3875a949p-54, 0x1.5b66fefeef52ep-55,
        0x1.4a385a63d07a7p-56, 0x1.159d9d908a96ep-58, -0x1.2919e2040220fp-55, 0x1.c254d16117a68p-55,
        0x1.e5a50d5c192acp-55, -0x1.d8c329fbd0e03p-55, 0x1.43a59ac016b4bp-55, -0x1.ea6e6fbd5f2a6p-55,
        -0x1.2d52107b43e1fp-55, -0x1.3e8e3eab2cbb4p-57, -0x1.92ab93b470dc9p-55, -0x1.b7966cd0d2cd9p-55,
        0x1.4b604603a88d3p-56, -0x1.76caa4c2ff1cfp-56, 0x1.3c5ec519d7271p-55, -0x1.1d5fc525d994p-55,
        -0x1.ff7128fd391fp-55, 0x1.55cd8aaea3d21p-55, -0x1.dae98e223747dp-55, 0x1.269947c2bed4ap-55,
        0x1.ec3bc41aa2008p-55, -0x1.3b6137e9afe9ep-55, 0x1.42b94c3a9eb32p-55, -0x1.9fa74878ba7c7p-57,
        0x1.a64a931d185eep-55, 0x1.01f3a75ee0efep-54, -0x1.e37bae43be3edp-55, -0x1.16a9ce6ed84fap-58,
        0x1.7893b4d91cd9dp-56, -0x1.99c7db2effc76p-57, 0x1.305c14160cc89p-58, 0x1.4b458677f984p-57,
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
    double z = repdl__dadd(repdl__dmul(xd, 0x1.71547652b82fep8), 0x1.8p52);
    uint64_t ki = repdl__asuint64(z);
    double kd = repdl__dsub(z, 0x1.8p52);                        /* = k, exact */
    /* ln2/256 = C_HI + C_LO + O(2^-101): C_HI = 0x1.62e42fefap-9 has 37
       significant bits, so k C_HI (|k| < 2^16) is exact.  xd - k C_HI is
       exact too: for k = 0 it is xd; otherwise |xd| > 2^-10, so xd is a
       multiple of 2^-33 and k C_HI one of 2^-45, and their difference is a
       multiple of 2^-45 below 2^-9 in magnitude, which has at most 36
       significant bits.  Fused or not, this line is therefore exact. */
    double r = repdl__dsub(xd, repdl__dmul(kd, 0x1.62e42fefap-9));
    /* |k C_LO| < 2^16 * 2^-47.1 so its rounding is < 2^-84; |r| < 2^-9 so
       the subtraction's rounding is <= 2^-63; k (C_HI + C_LO - ln2/256) < 2^-85.
       Total < 2^-62.99, fused or not. */
    r = repdl__dsub(r, repdl__dmul(kd, 0x1.cf79abc9e3b3ap-48));
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
    double r = repdl__exp_reduce((double)x, &s, &j);
    /* degree-4, Sollya (reference/gen/expf.sollya), [-0x1.63p-10, 0x1.63p-10]:
       |(1 + q(r)) / exp(r) - 1| < 2^-57.45 */
    double r2 = repdl__dmul(r, r);
    double a = repdl__dadd(0x1.00000000000d2p-1, repdl__dmul(r, 0x1.55555720cca8ep-3));
    double p = repdl__dadd(a, repdl__dmul(r2, 0x1.55554e56bbb14p-5));
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

/* exp(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_exp_f32(float x)
{
    /* The approximation runs first, on every input (on NaN, inf or huge x it
       computes garbage, harmlessly: the table index is masked), so that one
       branch tests both conditions of the fast path:
       |x| <= 87, so exp(x) in [2^-125.5, 2^125.6] and y rounds to a normal
       binary32, and the fast rounding test, whose c = 4 REPDL__EXPF_ERR = 2^-51
       gives. */
    double y = repdl__expf_core(x);
    if (REPDL_LIKELY(((repdl__asuint(x) & 0x7fffffffu) <= 0x42ae0000u) & repdl__round_ok_normal(y, 4u)))
        return repdl__d2f(y);
    if (!repdl__expf_y(x, &y)) {
        if (x != x) return repdl__nanf();
        return x > 0.0f ? repdl__asfloat(0x7f800000u) : 0.0f;
    }
    if (REPDL_LIKELY(repdl__round_ok(y, REPDL__EXPF_ERR))) return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/expf_hard.inc"
        };
        return repdl__hard_lookup(tab, (int)(sizeof tab / sizeof tab[0]), x, y);
    }
}

/* The array form: out[i] = repdl_exp_f32(x[i]) for 0 <= i < n, bit for bit.
   out may be x itself (in place), otherwise the two must not overlap;
   n = 0 accepts NULL pointers.  Each chunk of 256 takes a branch-free pass
   that compilers vectorize (the approximation runs on every element; NaN,
   overflow and underflow to 0 are answered by selects), then the scalar
   function redoes the elements flagged by that pass: 87 < |x| within the
   approximation domain, and the rare (about 1 in 2^24) failures of the
   fast rounding test. */
REPDL_API void repdl_exp_array_f32(size_t n, const float *x, float *out)
{
    size_t i0, i;
    for (i0 = 0; i0 < n; i0 += REPDL__ARRAY_CHUNK) {
        size_t m;
        float xb[REPDL__ARRAY_CHUNK];
        const float *xc = repdl__chunk_in(x, n, i0, xb, &m);
        uint32_t res[REPDL__ARRAY_CHUNK], bad[REPDL__ARRAY_CHUNK], anybad = 0;
        for (i = 0; i < REPDL__ARRAY_CHUNK; i++) {
            uint32_t ux = repdl__asuint(xc[i]);
            int ovf = (ux > 0x42b17217u) & (ux <= 0x7f800000u);        /* +inf */
            int unf = (ux > 0xc2cff1b4u) & (ux <= 0xff800000u);        /* +0 */
            int nan = (ux & 0x7fffffffu) > 0x7f800000u;                /* NaN */
            int sp = ovf | unf | nan;
            int fast = (ux & 0x7fffffffu) <= 0x42ae0000u;              /* as repdl_exp_f32 */
            /* specials run the approximation on a harmless argument: x with
               its exponent field cleared (|.| < 2^-126); an input-dependent
               value keeps compilers from branching around a constant */
            double y = repdl__expf_core(repdl__asfloat(ux & (sp ? 0x807fffffu : 0xffffffffu)));
            uint32_t r = repdl__asuint(repdl__d2f(y));
            uint32_t fail = (uint32_t)(!sp & !(fast & repdl__round_ok_normal(y, 4u)));
            /* selects as masks, so that no compiler moves the conversion
               above into a branch (which would stop vectorization) */
            uint32_t spm = 0u - (uint32_t)sp;
            r = (r & ~spm) | (0x7f800000u & (0u - (uint32_t)ovf)) | (REPDL_NAN_BITS & (0u - (uint32_t)nan));
            res[i] = r;
            bad[i] = fail;
            anybad |= fail;
        }
        if (REPDL_UNLIKELY(anybad))
            for (i = 0; i < m; i++)
                if (bad[i]) res[i] = repdl__asuint(repdl_exp_f32(xc[i]));
        memcpy(out + i0, res, m * sizeof res[0]);   /* after every read of xc: in place is fine */
    }
}

#endif /* REPDL_EXP_H */
