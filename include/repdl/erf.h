/* SPDX-License-Identifier: MIT */
/* repdl/erf.h: correctly rounded error function of a binary32 value.

   Accuracy: repdl_erf_f32(x) is erf(x) = 2/sqrt(pi) int_0^x e^(-t^2) dt
   rounded to nearest-even binary32 for every binary32 x, subnormal results
   included (erf(x) ~ 2x/sqrt(pi) for tiny x); erf(-x) = -erf(x) bit for bit,
   erf(+-0) = +-0, erf(+-inf) = +-1, NaN -> the canonical NaN 0x7fc00000.
   Proven by comparing all 2^32 inputs with MPFR (mpfr_erf), in contracted
   and uncontracted builds (docs/functions/erff.md).

   Fast path, tried first for 2^-126 <= |x| < 0x1.f5a88ap+1, in double:
     erf(x) = x Q(x^2), Q(s) = erf(sqrt(s)) / sqrt(s), and on 65 pieces
     Q ~ P_j(x^2 - d_j), degree 5 (reference/gen/erff_fast.sollya):
       |x| < 1/4:  j = 0, d_0 = 0 (x P_0(x^2) is an odd polynomial);
       [2^e, 2^(e+1)), e = -2 .. 1: 16 pieces [lo, hi) of width 2^e/16,
                   j = 1 .. 64 read from the exponent and the four leading
                   significand bits of x by one shift; d_j = (lo^2 + hi^2)/2;
     v = x^2 - d_j is exact, P_j is evaluated by Estrin's scheme (a shorter
     chain of dependent operations than Horner's) and y = x P_j(v) carries
     the sign of x.  Per piece, |y / erf(x) - 1| < 2^-48.0 (|x| < 1/4),
     2^-48.7 (1/4 <= |x| < 1), 2^-39.8 (1 <= |x| < 2), 2^-33.8
     (2 <= |x| < 4), fused or not (reference/gen/erff.py), and
     repdl__round_ok_normal with the piece's constant c_j proves y's
     rounding on all but about c_j 2^-28 of the piece's inputs: 2^-25 to
     2^-22 below 1, 2^-17 to 2^-14 in [1, 2), 2^-12 to 2^-8 in [2, 4).
     The others take the accurate path below, unchanged.  The exhaustive
     proof checks both paths on all 2^32 inputs.

   Accurate path (every x the fast path does not answer), in double, on
   a = |x| (the sign is put back exactly at the end):
     a <  1/2:               erf(a) ~ a P0(a^2),   P0 of degree 11 (a^2 exact)
     (i+1)/4 <= a < (i+2)/4:  erf(a) ~ P_i(a - c_i), c_i = (i+1)/4 + 1/8,
                             i = 1..14, degree 11 (a - c_i exact)
   the 15 polynomials from Sollya (reference/gen/erff.sollya, relative error
   < 2^-54.13 each, supnorm), Horner in binary64: |y / erf(a) - 1| <
   2.52 2^-53 on every piece, fused or not (reference/gen/erff.py bounds the
   evaluation in exact rational arithmetic).  y is rounded to binary32 when a
   rounding test proves that correct (repdl__round_ok_normal of detail/cr.h,
   then repdl__round_ok); the few other inputs are listed with their
   correctly rounded results (MPFR) in detail/erff_hard.inc.
   Exactly handled, outside that path:
     a >= 0x1.f5a88ap+1:     erfc(a) < 2^-25, erf rounds to 1 (+-1, inf too;
                             reference/gen/erff.py finds the threshold);
     NaN:                    the canonical NaN.
   Tiny and subnormal x need nothing special: a P0(a^2) keeps its relative
   error bound down to the least subnormal (a^2 >= 2^-298 is a normal
   double), and the rounding test's conversion rounds to subnormals too.

   Also: repdl_erf_array_f32(n, x, out), the same results for an array;
   repdl_erf_bf16, repdl_erf_f16 and their array forms (bfloat16 and
   float16 bit patterns, half.h), each rounded once from y (below). */
#ifndef REPDL_ERF_H
#define REPDL_ERF_H

#include "config.h"
#include "detail/cr.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__erff_y's y on every path, including the
   2^-53 of repdl__round_ok's own products: 3.52 2^-53 (reference/gen/erff.py),
   rounded up. */
#define REPDL__ERFF_ERR 4.440892098500626e-16 /* 0x1p-51 */

/* The bits of 0x1.f5a88ap+1, the least |x| whose erf(x) rounds to +-1
   (reference/gen/erff.py): the end of both paths' domains. */
#define REPDL__ERFF_SAT 0x407ad445u

/* The 15 polynomials (coefficients of degree 0 to 11; piece 0 in a^2,
   multiplied by a afterwards).  From reference/gen/erff.py. */
REPDL_FN const double *repdl__erff_coeffs(uint32_t i)
{
    static const double C[15][12] = {
        {1.1283791670955126, -0.37612638903183215, 0.11283791670899533, -0.02686617061856105, 0.005223976919583024, -0.0008548212416997384, 0.00012043378967934233, -1.4108117598399491e-05, -1.9999570466522587e-06, 1.0049277209886254e-05, -1.629419597442545e-05, 1.1324190586392315e-05},
        {0.623240882188418, 0.763499535760605, -0.4771872098504118, -0.05567184114937987, 0.17645985365419634, -0.02741341100694167, -0.0413448352413962, 0.013909999952608592, 0.006686253199556743, -0.0036327721863322567, -0.0007353318145119056, 0.0006617739495368732},
        {0.7840750610598597, 0.5247450452901482, -0.45915191462892524, 0.09292360177012915, 0.11239656245395285, -0.06721587737961877, -0.010367789084013816, 0.01859572589217896, -0.0018458570761442905, -0.003256785691242063, 0.0008860846797273918, 0.00038730007022617176},
        {0.8883882317017078, 0.3182739585007693, -0.3580582033133836, 0.16245233298478723, 0.027973297142151653, -0.06132368361208072, 0.015536833799261926, 0.009606895217342384, -0.0060310992514033684, -0.00036027092270610514, 0.0011455917758137746, -0.00017381818966938765},
        {0.9481700727820903, 0.1703597736875156, -0.23424468882031957, 0.15793770685614, -0.030500610528988892, -0.030605976271648558, 0.022161236155788192, -0.0014190618226100696, -0.004261101797790977, 0.0015778598363501333, 0.0003259690697812706, -0.000336743678312091},
        {0.9784437332399837, 0.08047225902251116, -0.13076742091160037, 0.11484061964670791, -0.049718863153131586, -0.002134924839989387, 0.014414780530763498, -0.0061842616427362695, -0.000576521771366784, 0.00141069583377816, -0.00035363428812083895, -0.00012604768953084752},
        {0.9919900576701199, 0.03354582842421607, -0.06289842829536572, 0.06744109256118713, -0.04225988152556037, 0.011462583364223285, 0.004105189378625191, -0.004928393882003917, 0.001430343663019242, 0.00036226319366082494, -0.0003854802908279038, 7.299486076156566e-05},
        {0.9973459706405177, 0.012340820614333696, -0.026224243805467833, 0.03303740518628827, -0.02636082840529573, 0.012495482591861748, -0.0018214131243786595, -0.0018692573456187379, 0.0013833854906818638, -0.0002897708038205965, -0.00012411204437908825, 9.440758091754594e-05},
        {0.9992170617821089, 0.004006477861670219, -0.009515384921485627, 0.013730533505099264, -0.013133213556461328, 0.008357392833654203, -0.0031140801345323644, 0.000123269654935142, 0.0005941893879648051, -0.00033753072169421535, 5.231376882063623e-05, 3.176143867095533e-05},
        {0.9997946242638588, 0.001147875125882675, -0.0030131722054501883, 0.004890426317562798, -0.005414293803641387, 0.004217880601613494, -0.002246834306192883, 0.0006808681252598328, 3.467690250329095e-05, -0.000152603848643927, 7.302120642094906e-05, -1.0131923370898634e-05},
        {0.9999521451602562, 0.0002902282828624988, -0.0008344063132105175, 0.0015025360060684533, -0.0018817600778760096, 0.0017132632801286443, -0.0011400736093769251, 0.0005285699981476867, -0.0001356737633911486, -1.6136761865001583e-05, 3.49743031890788e-05, -1.4832341324166452e-05},
        {0.9999901032653747, 6.475868323471284e-05, -0.00020237088509160415, 0.0004000197828979196, -0.000557573955157167, 0.0005769615014219964, -0.00045231427942990174, 0.00026648105745394687, -0.00011132220451679356, 2.5450413350670436e-05, 5.311962803215269e-06, -6.371269149209736e-06},
        {0.9999981847185726, 1.2751740799766679e-05, -4.3037125254027e-05, 9.258295142958158e-05, -0.00014188800250724559, 0.0001637739452001927, -0.00014641175046495861, 0.00010218608713924828, -5.466308886326705e-05, 2.12723587052245e-05, -8.837133888463667e-06, -8.350119953914381e-07},
        {0.9999997048598075, 2.2159202846339967e-06, -8.032711036672702e-06, 1.8673744897488685e-05, -3.116859053725264e-05, 3.959233575406529e-05, -3.952936937745133e-05, 3.151406085381548e-05, -2.0072828604293988e-05, 1.0059125821233814e-05, -4.09627567539844e-06, 7.092387612437592e-07},
        {0.999999957486056, 3.398223817807514e-07, -1.3168117941952712e-06, 3.288489507236936e-06, -5.932487952330543e-06, 8.208845395829333e-06, -9.024486948706132e-06, 8.033158471578719e-06, -5.631502279723752e-06, 3.4739427221339312e-06, -6.719043920139815e-06, 6.125801117680504e-07},
    };
    return C[i];
}

/* The fast path's 65 pieces: c_0 .. c_5 of P_j, then d_j, then 0 (64
   bytes a row).  From reference/gen/erff.py. */
REPDL_FN const double *repdl__erff_fast_coeffs(uint32_t j)
{
    static const double T[65][8] = {
    {1.1283791670955092, -0.3761263890279034, 0.11283791597257882, -0.026866120235220503, 0.00522241834860832, -0.0008325517633907737, 0.0, 0.0},
    {1.1038477231314383, -0.36146321519561064, 0.10761207949023535, -0.025513136018652696, 0.004948136404892769, -0.0008084006410946021, 0.0665283203125, 0.0},
    {1.1008546962752523, -0.3596819490248147, 0.1069787833740942, -0.025349419817783034, 0.004914381954679309, -0.0008027101505357666, 0.0748291015625, 0.0},
    {1.0977016758202125, -0.3578073238238323, 0.1063126626402403, -0.025177278375732907, 0.004878635731249831, -0.0007962670043328883, 0.0836181640625, 0.0},
    {1.094391304448988, -0.3558412109953051, 0.10561444102740186, -0.024996908297691436, 0.004842378739486299, -0.0007905314959303531, 0.0928955078125, 0.0},
    {1.0909263415646313, -0.35378556261424965, 0.10488487306210445, -0.02480851451895091, 0.004804137936156574, -0.0007840306771715143, 0.1026611328125, 0.0},
    {1.0873096587469464, -0.35164240792516316, 0.10412474253944866, -0.02461230978301248, 0.004763523684320665, -0.0007769934012386203, 0.1129150390625, 0.0},
    {1.0835442350544144, -0.3494138497237274, 0.10333486101412608, -0.02440851426765773, 0.004721848804767076, -0.0007698284491448842, 0.1236572265625, 0.0},
    {1.0796331521833553, -0.34710206063258014, 0.10251606638102209, -0.024197355162070715, 0.004679183557144458, -0.0007628500147758477, 0.1348876953125, 0.0},
    {1.0755795894962672, -0.344709279280826, 0.10166922133599149, -0.023979066284770652, 0.004634571680119889, -0.0007552393563142689, 0.1466064453125, 0.0},
    {1.071386818931514, -0.34223780639713514, 0.10079521168943668, -0.02375388754716827, 0.004588546475773772, -0.0007473347867758749, 0.1588134765625, 0.0},
    {1.0670581998067146, -0.3396900008264121, 0.09989494480765435, -0.023522064539730332, 0.004541566541960509, -0.0007395058801430606, 0.1715087890625, 0.0},
    {1.0625971735283335, -0.33706827548012624, 0.09896934802157745, -0.02328384811487638, 0.004493192191194456, -0.0007314193574251995, 0.1846923828125, 0.0},
    {1.0580072582200852, -0.33437509323046627, 0.09801936690892693, -0.023039493880471718, 0.004443349280251902, -0.0007229700996163276, 0.1983642578125, 0.0},
    {1.0532920432828183, -0.3316129627585175, 0.09704596360716582, -0.022789261722124726, 0.004392384651901909, -0.0007143544502810333, 0.2125244140625, 0.0},
    {1.048455183898579, -0.3287844343666657, 0.0960501151468173, -0.022533415349049433, 0.004340613778787623, -0.000705730410146764, 0.2271728515625, 0.0},
    {1.043500395491535, -0.32589209576540323, 0.09503281181992718, -0.02227222185712912, 0.004287437836953226, -0.0006967246971788024, 0.2423095703125, 0.0},
    {1.0357965023938485, -0.32140545784249447, 0.09345680969056629, -0.02186791661491898, 0.0042053623673327075, -0.0006829040704789852, 0.26611328125, 0.0},
    {1.0252270726436443, -0.3152710546520055, 0.09130612887325025, -0.021316855310778503, 0.004093569566551808, -0.000664101795030671, 0.29931640625, 0.0},
    {1.0142552554887003, -0.30892942648764676, 0.08908793699817663, -0.020749331006096397, 0.003978539733374083, -0.0006447620369450781, 0.33447265625, 0.0},
    {1.0029127081952869, -0.3024023460446334, 0.08681049880958129, -0.020167560232635752, 0.0038607559658660937, -0.0006249779808268183, 0.37158203125, 0.0},
    {0.9912313857140217, -0.2957116823522162, 0.08448208921531761, -0.019573757339098725, 0.0037406742311734483, -0.0006048251548624649, 0.41064453125, 0.0},
    {0.9792433688283863, -0.28887927277031616, 0.08211094246833069, -0.01897012046889288, 0.0036187500842839878, -0.0005843802729699196, 0.45166015625, 0.0},
    {0.9669806973953924, -0.2819267995679805, 0.07970520339635132, -0.018358818150606776, 0.003495436740800317, -0.0005637224196719476, 0.49462890625, 0.0},
    {0.9544752099245474, -0.27487567205008984, 0.07727288106990923, -0.017741976611346685, 0.003371173317420717, -0.0005429256513113065, 0.53955078125, 0.0},
    {0.9417583906288493, -0.2677469151026381, 0.07482180524484709, -0.01712166789930998, 0.0032463896019460847, -0.000522063282172949, 0.58642578125, 0.0},
    {0.9288612249596435, -0.2605610649233976, 0.07235958590028356, -0.016499898909116604, 0.003121500174177142, -0.0005012064714305202, 0.63525390625, 0.0},
    {0.9158140645078859, -0.2533380725956747, 0.06989357612368928, -0.0158786013792332, 0.0029969020510884066, -0.00048042197137455596, 0.68603515625, 0.0},
    {0.9026465020197938, -0.24609721604996085, 0.06743083855390589, -0.015259622913225137, 0.00287297424647752, -0.0004597743908690229, 0.73876953125, 0.0},
    {0.8893872571371447, -0.23885702084338234, 0.06497811554626294, -0.014644719074390689, 0.002750075747533369, -0.0004393241163356501, 0.79345703125, 0.0},
    {0.8760640733336669, -0.23163519007170782, 0.06254180317158699, -0.014035546576297964, 0.0026285433677253963, -0.0004191277096790898, 0.85009765625, 0.0},
    {0.8627036263810446, -0.22444854361494826, 0.06012792911023049, -0.01343365758548869, 0.002508692499972341, -0.00039923829727695495, 0.90869140625, 0.0},
    {0.8493314445429175, -0.21731296680685744, 0.057742134465002815, -0.012840495138496845, 0.00239081428979428, -0.00037970459796385017, 0.96923828125, 0.0},
    {0.8291526164262508, -0.20665827963739225, 0.05420114756666113, -0.011963495902081794, 0.002217212416362339, -0.00035097213878478544, 1.064453125, 0.0},
    {0.802634525027826, -0.1928739377227532, 0.049661067649400085, -0.010845464920638023, 0.0019964773605808794, -0.0003145674882878878, 1.197265625, 0.0},
    {0.7764642979156887, -0.17952857852170748, 0.04531398797127874, -0.009782488256924647, 0.0017876194216384618, -0.000280242109470693, 1.337890625, 0.0},
    {0.7507828120437309, -0.166699902518338, 0.04118511832695146, -0.0087805804787, 0.0015917870534213226, -0.00024817947370286546, 1.486328125, 0.0},
    {0.7257088790626179, -0.15444909858981104, 0.03729317802539362, -0.007843986586152851, 0.00140975594909393, -0.00021849876218765833, 1.642578125, 0.0},
    {0.7013397326150275, -0.14282154634789668, 0.03365075950348489, -0.006975298179124179, 0.001241956198942885, -0.00019125991678678678, 1.806640625, 0.0},
    {0.6777519964058005, -0.1318478635460041, 0.030264823482545444, -0.00617560456821819, 0.0010885066039065519, -0.0001664698936738762, 1.978515625, 0.0},
    {0.655003037069068, -0.12154521708025688, 0.027137290680144713, -0.005444668667494932, 0.0009492540085620925, -0.00014408975536037968, 2.158203125, 0.0},
    {0.6331326044915974, -0.11191881667028557, 0.02426569583981358, -0.004781117834045204, 0.0008238153655672605, -0.00012404216472975484, 2.345703125, 0.0},
    {0.6121646654967862, -0.10296351459804019, 0.02164387214325955, -0.004182640587350978, 0.0007116206684206487, -0.00010621898150828583, 2.541015625, 0.0},
    {0.5921093437914092, -0.09466544213161866, 0.019262637576190074, -0.003646181244410126, 0.0006119550298738122, -9.048865286837989e-05, 2.744140625, 0.0},
    {0.5729648888820065, -0.08700362262546418, 0.017110459151674702, -0.0031681258312551003, 0.0005239984601546135, -7.670313934554426e-05, 2.955078125, 0.0},
    {0.5547196083204322, -0.079951511932684, 0.01517407568587913, -0.0027444740687232634, 0.0004468623023801864, -6.47042106991061e-05, 3.173828125, 0.0},
    {0.5373537102303053, -0.07347842791386901, 0.013439064737171541, -0.002370993683290924, 0.0003796215460042621, -5.432897717355258e-05, 3.400390625, 0.0},
    {0.5208410157910615, -0.06755084180521681, 0.01189034407117703, -0.0020433546786005493, 0.000321342601474714, -4.541459357939951e-05, 3.634765625, 0.0},
    {0.5051505135429679, -0.06213351447097658, 0.010512602377893143, -0.0017572424568935078, 0.00027110631672165077, -3.78021064868611e-05, 3.876953125, 0.0},
    {0.4829196097191044, -0.05483442509924469, 0.00872119885008039, -0.0013943352764948214, 0.00020875147778955992, -2.846179700720956e-05, 4.2578125, 0.0},
    {0.45605659234099805, -0.04663419939866632, 0.006813131839230954, -0.00102217188125782, 0.00014617867493848808, -1.9283238506892914e-05, 4.7890625, 0.0},
    {0.43181224350477704, -0.03984470832159577, 0.005334173330834182, -0.0007473268345408533, 0.00010155581984569621, -1.2903781248109189e-05, 5.3515625, 0.0},
    {0.40989023362630495, -0.03422326767033804, 0.004193030198488267, -0.0005463143441518319, 7.018713651582e-05, -8.549282176918203e-06, 5.9453125, 0.0},
    {0.39001514737778775, -0.02955977228234614, 0.0033140720503199916, -0.00040027845163901124, 4.838803833552182e-05, -5.622977566155317e-06, 6.5703125, 0.0},
    {0.37193899193910357, -0.025677397976364046, 0.002636515087143868, -0.00029457063466868856, 3.336763865036457e-05, -3.681643522208276e-06, 7.2265625, 0.0},
    {0.35544313998912513, -0.02243036635556323, 0.0021126487047936167, -0.00021811368601601673, 2.307430791496142e-05, -2.406565827544421e-06, 7.9140625, 0.0},
    {0.3403374420668243, -0.019700208179661102, 0.001705687919418984, -0.00016271096013536872, 1.6037358326304876e-05, -1.5749007349485806e-06, 8.6328125, 0.0},
    {0.3264578092515541, -0.017391525566407495, 0.0013876322196770886, -0.00012239893393835457, 1.1224204282963907e-05, -1.0345387404521355e-06, 9.3828125, 0.0},
    {0.3136631527757835, -0.015427870297130426, 0.0011373429705874084, -9.289222552157631e-05, 7.921730242142518e-06, -6.837252370886946e-07, 10.1640625, 0.0},
    {0.30183222787139335, -0.013748062525488951, 0.0009389293798603043, -7.113639979903924e-05, 5.643509734574712e-06, -4.5549207332156305e-07, 10.9765625, 0.0},
    {0.2908606809655316, -0.01230307503592324, 0.000780455387704669, -5.49636730767478e-05, 4.060510696120071e-06, -3.063104795998058e-07, 11.8203125, 0.0},
    {0.2806584347809224, -0.011053488277498715, 0.0006529376327481614, -4.28367771365284e-05, 2.951179815616529e-06, -2.081295379252819e-07, 12.6953125, 0.0},
    {0.27114744703144744, -0.009967459601876047, 0.0005495870057468526, -3.36632336557343e-05, 2.166491302093341e-06, -1.4296022448539646e-07, 13.6015625, 0.0},
    {0.2622598255994482, -0.009019126175338097, 0.0004652435587719869, -2.6663153680759913e-05, 1.6059997610254263e-06, -9.928141788488016e-08, 14.5390625, 0.0},
    {0.2539362595296656, -0.008187358849279798, 0.0003959594623912668, -2.127629746463799e-05, 1.2016908617792212e-06, -6.970050290908054e-08, 15.5078125, 0.0},
    };
    return T[j];
}

/* The fast path's rounding-test constants c_j (repdl__round_ok_normal): the
   least power of two with c_j - 1 >= E_j 2^53, E_j piece j's bound.  From
   reference/gen/erff.py. */
REPDL_FN uint32_t repdl__erff_fast_c(uint32_t j)
{
    static const uint32_t C[65] = {
        64u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 8u, 16u, 16u, 16u, 16u, 16u, 16u, 16u, 32u, 32u, 2048u, 2048u, 2048u, 4096u, 4096u, 4096u, 8192u, 8192u, 8192u, 8192u, 8192u, 8192u, 8192u, 16384u, 16384u, 16384u, 1048576u, 1048576u, 1048576u, 1048576u, 524288u, 524288u, 524288u, 524288u, 262144u, 262144u, 262144u, 262144u, 131072u, 131072u, 131072u, 65536u
    };
    return C[j];
}

/* y ~ erf(a) for a binary32 0 <= a < 0x1.f5a88ap+1 (no special-case test). */
REPDL_FN double repdl__erff_core(float a)
{
    double ad = repdl__f2d(a);
    /* i = max(floor(4a) - 1, 0): 4a is exact, its truncation is floor */
    int32_t k = repdl__f2i_rz(repdl__fmul(a, 4.0f)) - 1;
    uint32_t i = k > 0 ? (uint32_t)k : 0u;
    const double *c = repdl__erff_coeffs(i);
    /* v = a^2 (exact, 48 bits) on piece 0, a - c_i on the others (exact:
       a and c_i are multiples of 2^-23 and 2^-3 in [1/2, 4), |a - c_i| <= 1/8) */
    double v = i == 0u ? repdl__dmul(ad, ad)
                       : repdl__dsub(ad, repdl__dadd(repdl__dmul((double)i, 0.25), 0.375));
    /* Horner: each product and sum rounds once (2^-53 of its size); the
       bound of reference/gen/erff.py counts both, a contraction drops one */
    double h = c[11];
    h = repdl__dadd(c[10], repdl__dmul(h, v));
    h = repdl__dadd(c[9], repdl__dmul(h, v));
    h = repdl__dadd(c[8], repdl__dmul(h, v));
    h = repdl__dadd(c[7], repdl__dmul(h, v));
    h = repdl__dadd(c[6], repdl__dmul(h, v));
    h = repdl__dadd(c[5], repdl__dmul(h, v));
    h = repdl__dadd(c[4], repdl__dmul(h, v));
    h = repdl__dadd(c[3], repdl__dmul(h, v));
    h = repdl__dadd(c[2], repdl__dmul(h, v));
    h = repdl__dadd(c[1], repdl__dmul(h, v));
    h = repdl__dadd(c[0], repdl__dmul(h, v));
    /* piece 0: one more rounding (counted by reference/gen/erff.py) */
    return i == 0u ? repdl__dmul(ad, h) : h;
}

/* 1 with *y ~ erf(x), |*y / erf(x) - 1| < REPDL__ERFF_ERR - 2^-53, when
   |x| < 0x1.f5a88ap+1; 0 for the special cases that repdl_erf_f32 answers
   exactly: NaN, |x| >= 0x1.f5a88ap+1 (+-1, infinities included). */
REPDL_FN int repdl__erff_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    double r;
    if (REPDL_UNLIKELY(ax >= REPDL__ERFF_SAT)) return 0;
    r = repdl__erff_core(repdl__asfloat(ax));
    *y = repdl__asdouble(repdl__asuint64(r) | ((uint64_t)(ux >> 31) << 63));   /* odd, exact */
    return 1;
}

/* The accurate path of repdl_erf_f32, for every x: special cases, tiny and
   subnormal x, and the inputs whose fast rounding test failed. */
REPDL_FN_NOINLINE float repdl__erff_accurate(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__erff_y(x, &y))) {
        uint32_t ux = repdl__asuint(x);
        if ((ux & 0x7fffffffu) > 0x7f800000u) return repdl__nanf();
        return repdl__asfloat((ux & 0x80000000u) | 0x3f800000u);        /* +-1 */
    }
    /* |x| >= 2^-126: |erf(x)| > 1.128 2^-126, a normal binary32; E = 2^-51
       gives c = 4 (detail/cr.h) */
    if (REPDL_LIKELY(((repdl__asuint(x) & 0x7fffffffu) >= 0x00800000u) & repdl__round_ok_normal(y, 4u)))
        return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/erff_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__ERFF_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* The fast path's domain: 2^-126 <= |x| < 0x1.f5a88ap+1 (ax = |x|'s
   bits), where erf(x) rounds to a normal binary32 (|erf(x)| > 1.128
   2^-126). */
REPDL_FN int repdl__erff_fast_in(uint32_t ax)
{
    return ax - 0x00800000u < REPDL__ERFF_SAT - 0x00800000u;
}

/* The fast path's y ~ erf(x) for x in its domain (ax = |x|'s bits), and in
   *c its piece's rounding-test constant. */
REPDL_FN double repdl__erff_fast_y(float x, uint32_t ax, uint32_t *c)
{
    int32_t k = (int32_t)(ax >> 19) - 0x7cf;              /* 1 at |x| = 1/4 */
    uint32_t j = k > 0 ? (uint32_t)k : 0u;
    const double *p = repdl__erff_fast_coeffs(j);
    double xd = repdl__f2d(x);
    /* x^2 is exact (48 bits), and so is x^2 - d_j (a multiple of 2^-50
       below 1/2 in magnitude, d_j one of 2^-13): fused or not */
    double v = repdl__dsub(repdl__dmul(xd, xd), p[6]);
    double v2 = repdl__dmul(v, v), v4 = repdl__dmul(v2, v2);
    /* Estrin: (c0 + c1 v) + (c2 + c3 v) v^2 + (c4 + c5 v) v^4, each
       operation rounded once (so bounded by reference/gen/erff.py) */
    double p01 = repdl__dadd(p[0], repdl__dmul(p[1], v));
    double p23 = repdl__dadd(p[2], repdl__dmul(p[3], v));
    double p45 = repdl__dadd(p[4], repdl__dmul(p[5], v));
    *c = repdl__erff_fast_c(j);
    return repdl__dmul(xd, repdl__dadd(repdl__dadd(p01, repdl__dmul(p23, v2)),
                                       repdl__dmul(p45, v4)));
}

/* erf(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_erf_f32(float x)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    if (REPDL_LIKELY(repdl__erff_fast_in(ax))) {
        uint32_t c;
        double y = repdl__erff_fast_y(x, ax, &c);
        if (REPDL_LIKELY(repdl__round_ok_normal(y, c))) return repdl__d2f(y);
    }
    /* 0x1.f5a88ap+1 <= |x| <= inf: +-1 (as repdl__erff_accurate), without
       its call: a fifth of the inputs of erf's own benchmark, where the
       call cost more than the branch */
    if (ax - REPDL__ERFF_SAT <= 0x7f800000u - REPDL__ERFF_SAT)
        return repdl__asfloat((ux & 0x80000000u) | 0x3f800000u);
    return repdl__erff_accurate(x);
}

/* out[i] = repdl_erf_f32(x[i]), 0 <= i < n, bit for bit (element by
   element, REPDL__SCALAR_ARRAY of detail/cr.h); out == x (in place) is
   fine, any other overlap is not; n = 0 accepts NULL. */
REPDL_API repdl_status repdl_erf_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__SCALAR_ARRAY(n, x, out, repdl_erf_f32);
    return REPDL_OK;
}

/* ---- bfloat16 and float16 (half.h's bit patterns) ----
   erf(x) rounded once, directly from y of repdl__erff_y16 (the fast
   path's y in its domain, the accurate path's elsewhere), to the 16-bit
   format of x (repdl__d_to_h): no binary32 rounding in between (which
   would be a double rounding: wrong on the inputs tests/half/test_half_fn.c
   counts).  Why one rounding of y is correct in every build: the test
   checks with MPFR, for all 2^16 inputs of each format, that erf(x) lies
   farther than E = REPDL__ERFF_Y16_ERR (the larger bound of the two paths'
   y, fused or not) from every rounding boundary of the format (the
   subnormal ones included: erf(x) ~ 1.13 x is subnormal for subnormal x),
   or is exact and equal to y, sign included (erf(+-0) = +-0: y = +-0 P0(0)
   on the accurate path).  Outside
   repdl__erff_y's domain: NaN -> the format's NaN; |x| >= 0x1.f5a88ap+1,
   +-inf included: 1 - |erf(x)| < 2^-25, far below half an ulp of 1 in
   either format (2^-9, 2^-12): +-1, as repdl_erf_f32, converted exactly. */
/* The bound of repdl__erff_y16's y: the fast path's 2^-33.8 (the larger),
   rounded up. */
#define REPDL__ERFF_Y16_ERR 1.1641532182693481e-10 /* 0x1p-33 */

/* 1 with *y ~ erf(x) (|*y / erf(x) - 1| < REPDL__ERFF_Y16_ERR) where
   repdl__erff_y answers; 0 where it does not. */
REPDL_FN int repdl__erff_y16(float x, double *y)
{
    uint32_t ax = repdl__asuint(x) & 0x7fffffffu, c;
    if (REPDL_LIKELY(repdl__erff_fast_in(ax))) {
        *y = repdl__erff_fast_y(x, ax, &c);
        return 1;
    }
    return repdl__erff_y(x, y);
}

REPDL_FN uint32_t repdl__erf_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__erff_y16(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__f32_to_h(repdl_erf_f32(x), fmt);
}

/* erf(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_erf_bf16(uint16_t x) { return (uint16_t)repdl__erf_h(x, REPDL__BF16); }
/* erf(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_erf_f16(uint16_t x) { return (uint16_t)repdl__erf_h(x, REPDL__F16); }
/* out[i] = repdl_erf_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_erf_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__BF16, repdl__erf_h);
    return REPDL_OK;
}
/* out[i] = repdl_erf_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_erf_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__F16, repdl__erf_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_ERF_H */
