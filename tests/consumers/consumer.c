/* SPDX-License-Identifier: MIT */
/* tests/consumers/consumer.c: a user's program, built by each consumer
   project of run.sh against repdl found its own way (meson subproject,
   pkg-config, CMake add_subdirectory / FetchContent / find_package).
   Checks values known independently of repdl: e rounded to binary32 is
   0x402df854, log(1) is +0, sqrt(2) rounded is 0x3fb504f3, the sum
   1 + 2 + ... + 100 is exactly 5050. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <repdl/repdl.h>

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

int main(void)
{
    float v[100];
    int i, fails = 0;
    for (i = 0; i < 100; i++) v[i] = (float)(i + 1);
    fails += bits(repdl_exp_f32(1.0f)) != 0x402df854u;
    fails += bits(repdl_log_f32(1.0f)) != 0x00000000u;
    fails += bits(repdl_sqrt_f32(2.0f)) != 0x3fb504f3u;
    fails += bits(repdl_sum_f32(100, v)) != bits(5050.0f);
    printf("%s: consumer (%s), %d of 4 checks failed\n", fails ? "FAIL" : "ok",
#ifdef __cplusplus
           "C++",
#else
           "C",
#endif
           fails);
    return fails != 0;
}
