/* SPDX-License-Identifier: MIT */
/* tests/config/probe.c: a translation unit that includes repdl and uses
   every elementary function; refuse.sh compiles it with flags that repdl
   must refuse. */
#include <repdl/repdl.h>
#include <repdl/exp.h>
#include <repdl/log.h>
#include <repdl/tanh.h>
#include <repdl/sqrt.h>

float repdl_probe(float x);
float repdl_probe(float x)
{
    return repdl_exp_f32(x) + repdl_log_f32(x) + repdl_tanh_f32(x) + repdl_sqrt_f32(x);
}
