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
    v[0] = repdl_expf(x); v[1] = repdl_logf(x); v[2] = repdl_tanhf(x); v[3] = repdl_sqrtf(x);
    repdl_expf_array(o, &x, 1); repdl_logf_array(o + 1, &x, 1);
    repdl_tanhf_array(o + 2, &x, 1); repdl_sqrtf_array(o + 3, &x, 1);
    return repdl__asuint(v[0]) ^ repdl__asuint(v[1]) * 3u ^ repdl__asuint(v[2]) * 5u ^ repdl__asuint(v[3]) * 7u
         ^ (repdl__asuint(o[0]) ^ repdl__asuint(o[1]) * 3u ^ repdl__asuint(o[2]) * 5u ^ repdl__asuint(o[3]) * 7u) * 11u;
}
