/* SPDX-License-Identifier: MIT */
/* tests/oracle/planted.c: a shared library whose functions are repdl's
   correctly rounded ones with errors planted at known inputs, for
   test_oracle.py (repdl-oracle must report exactly these):

     planted_expf        exp, one ulp too high at x = PLANT_EXP (and only there)
     planted_expf_nan    exp, NaN at x = PLANT_NAN (a wrong class)
     planted_sqrtf_zero  sqrt, +0 for -0 (a zero of the wrong sign)
     planted_logf_inf    log, +inf at x = 2 (far from log 2, but a number:
                         an ulp count, not a wrong class)
     planted_exp_bf16    exp in bfloat16, one ulp too low at x = PLANT_BF16
     planted_sin_twice   sin, the result one ulp up at PLANT_SIN and two
                         ulps down at PLANT_SIN2 (the largest error and
                         its input) */
#include <stdint.h>
#include <string.h>
#include <repdl/exp.h>
#include <repdl/log.h>
#include <repdl/sin.h>
#include <repdl/sqrt.h>
#include <repdl/half_math.h>

#define PLANT_EXP 0x3e8a3d71u   /* 0.27 */
#define PLANT_NAN 0x3f9d70a4u   /* 1.23 */
#define PLANT_BF16 0x3f40u      /* 0.75 */
#define PLANT_SIN 0x3f000000u   /* 0.5 */
#define PLANT_SIN2 0x3f400000u  /* 0.75 */

#define PLANTED_API __attribute__((visibility("default")))

static uint32_t bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static float value(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }

PLANTED_API float planted_expf(float x)
{
    float r = repdl_exp_f32(x);
    return bits(x) == PLANT_EXP ? value(bits(r) + 1u) : r;
}
PLANTED_API float planted_expf_nan(float x)
{
    return bits(x) == PLANT_NAN ? value(0x7fc00000u) : repdl_exp_f32(x);
}
PLANTED_API float planted_sqrtf_zero(float x)
{
    return bits(x) == 0x80000000u ? 0.0f : repdl_sqrt_f32(x);
}
PLANTED_API float planted_logf_inf(float x)
{
    return bits(x) == 0x40000000u ? value(0x7f800000u) : repdl_log_f32(x);
}
PLANTED_API uint16_t planted_exp_bf16(uint16_t x)
{
    uint16_t r = repdl_exp_bf16(x);
    return x == PLANT_BF16 ? (uint16_t)(r - 1u) : r;
}
PLANTED_API float planted_sin_twice(float x)
{
    float r = repdl_sin_f32(x);
    if (bits(x) == PLANT_SIN) return value(bits(r) + 1u);
    if (bits(x) == PLANT_SIN2) return value(bits(r) - 2u);
    return r;
}
