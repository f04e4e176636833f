/* SPDX-License-Identifier: MIT */
/* tests/config/leak_b.c: the second translation unit (see leak_a.c). */
#include <repdl/repdl.h>
#include <repdl/exp.h>
#include <repdl/log.h>
#include <repdl/tanh.h>
#include <repdl/sqrt.h>

uint32_t leak_b(float x);
uint32_t leak_b(float x)
{
    float v[4], o[4];
    v[0] = repdl_exp_f32(x); v[1] = repdl_log_f32(x); v[2] = repdl_tanh_f32(x); v[3] = repdl_sqrt_f32(x);
    repdl_exp_array_f32(1, &x, o); repdl_log_array_f32(1, &x, o + 1);
    repdl_tanh_array_f32(1, &x, o + 2); repdl_sqrt_array_f32(1, &x, o + 3);
    return repdl__asuint(v[0]) ^ repdl__asuint(v[1]) * 3u ^ repdl__asuint(v[2]) * 5u ^ repdl__asuint(v[3]) * 7u
         ^ (repdl__asuint(o[0]) ^ repdl__asuint(o[1]) * 3u ^ repdl__asuint(o[2]) * 5u ^ repdl__asuint(o[3]) * 7u) * 11u;
}
