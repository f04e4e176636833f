/* SPDX-License-Identifier: MIT */
/* tests/consumers/consumer_shared.c: a caller of librepdl.so that does not
   compile repdl's headers (as an FFI would): its own prototypes, resolved
   by the dynamic linker.  Same independently known values as consumer.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

float repdl_exp_f32(float x);
float repdl_sum_f32(size_t n, const float *x);

int main(void)
{
    float v[100], e = repdl_exp_f32(1.0f), s;
    uint32_t ue, us, u5050;
    float f5050 = 5050.0f;
    int i;
    for (i = 0; i < 100; i++) v[i] = (float)(i + 1);
    s = repdl_sum_f32(100, v);
    memcpy(&ue, &e, 4); memcpy(&us, &s, 4); memcpy(&u5050, &f5050, 4);
    if (ue != 0x402df854u || us != u5050) { printf("FAIL: shared consumer\n"); return 1; }
    printf("ok: consumer of librepdl.so\n");
    return 0;
}
