/* SPDX-License-Identifier: MIT */
/* tests/api/ffi_ref.c: the header-only side of tests/api/test_ffi.py.
   Prints, one hex word a line, the bits of the same calls that the Python
   test makes through librepdl.so with ctypes: repdl_exp_f32,
   repdl_log_f32, repdl_tanh_f32, repdl_sigmoid_f32 of every 65537th
   binary32 pattern, repdl_sum_f32 and repdl_dot_f32 of a generated
   vector, repdl_softmax_f32 of a small matrix. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <repdl/repdl.h>

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float val(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

int main(void)
{
    static float v[100003], w[100003], sm[12 * 37], sy[12 * 37];
    uint64_t i;
    for (i = 0; i < 65536; i++) {
        float x = val((uint32_t)(i * 65537u));
        printf("%08x %08x %08x %08x\n", bits(repdl_exp_f32(x)), bits(repdl_log_f32(x)),
               bits(repdl_tanh_f32(x)), bits(repdl_sigmoid_f32(x)));
    }
    for (i = 0; i < 100003; i++) {
        v[i] = (float)((int)(i * 2654435761u % 2001u) - 1000) / 64.0f;
        w[i] = (float)((int)(i * 40503u % 999u) - 499) / 32.0f;
    }
    printf("%08x %08x\n", bits(repdl_sum_f32(100003, v)), bits(repdl_dot_f32(100003, v, w)));
    for (i = 0; i < 12 * 37; i++) sm[i] = v[i * 7];
    repdl_softmax_f32(12, 37, sm, sy);
    for (i = 0; i < 12 * 37; i++) printf("%08x\n", bits(sy[i]));
    return 0;
}
