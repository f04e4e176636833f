/* SPDX-License-Identifier: MIT */
/* tests/config/leak_a.c, leak_b.c: two translation units that include
   repdl and use its functions, linked together (built -O0, so the static
   inline functions are emitted as code).  check_nm.sh checks that the
   program runs, that both units agree, and that nm shows no global repdl_
   symbol: every repdl function is static inline. */
#include <stdio.h>
#include <repdl/repdl.h>
#include <repdl/exp.h>
#include <repdl/log.h>
#include <repdl/tanh.h>
#include <repdl/sqrt.h>

uint32_t leak_b(float x);

static uint32_t leak_a(float x)
{
    float v[4], o[4];
    v[0] = repdl_exp_f32(x); v[1] = repdl_log_f32(x); v[2] = repdl_tanh_f32(x); v[3] = repdl_sqrt_f32(x);
    repdl_exp_array_f32(1, &x, o); repdl_log_array_f32(1, &x, o + 1);
    repdl_tanh_array_f32(1, &x, o + 2); repdl_sqrt_array_f32(1, &x, o + 3);
    return repdl__asuint(v[0]) ^ repdl__asuint(v[1]) * 3u ^ repdl__asuint(v[2]) * 5u ^ repdl__asuint(v[3]) * 7u
         ^ (repdl__asuint(o[0]) ^ repdl__asuint(o[1]) * 3u ^ repdl__asuint(o[2]) * 5u ^ repdl__asuint(o[3]) * 7u) * 11u;
}

int main(void)
{
    static const float xs[] = {0.5f, 1.0f, 2.5f, 1e-40f, 88.0f, -3.0f};
    unsigned i;
    for (i = 0; i < sizeof xs / sizeof xs[0]; i++)
        if (leak_a(xs[i]) != leak_b(xs[i])) {
            printf("translation units disagree at x = %a\n", (double)xs[i]);
            return 1;
        }
    printf("both translation units agree on %u inputs\n", i);
    return 0;
}
