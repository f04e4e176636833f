/* SPDX-License-Identifier: MIT */
/* tests/attention/exp_all.c: attention.h's softmax exp kernel
   (repdl__attn_exp: x[i] = repdl_exp_f32(RN(x[i] - sub))) against
   repdl_exp_f32 on every binary32 input, bit for bit.  The kernel is the
   widest the CPU runs (AVX-512F, AVX2 or the portable lane; the argument
   caps it through REPDL_ATTN_ISA_MAX at build time, see meson.build); the
   inputs go through in rows of 65536 and, so that the kernels' tails and
   their fallback chunks are exercised at every offset, one row in 61 is
   cut into ragged pieces of 1 .. 47 elements.  repdl_exp_f32 is itself
   proven against MPFR on all inputs (tests/math, suite exhaustive).
   About 15 s a build on one core. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <repdl/attention.h>

#include "../common/check.h"

static float asf(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

int main(void)
{
    enum { ROW = 65536 };
    static float x[ROW], want[ROW];
    uint64_t u0;
    long bad = 0;
    int isa = repdl__attn_visa();
    for (u0 = 0; u0 < ((uint64_t)1 << 32); u0 += ROW) {
        size_t i;
        for (i = 0; i < ROW; i++) {
            x[i] = asf((uint32_t)(u0 + i));
            want[i] = repdl_exp_f32(x[i]);
        }
        if ((u0 / ROW) % 61 == 0) {
            size_t at = 0, step = 1;
            while (at < ROW) {
                size_t m = ROW - at < step ? ROW - at : step;
                repdl__attn_exp(m, x + at, 0.0f, NULL);
                at += m;
                step = step % 47 + 1;
            }
        } else {
            repdl__attn_exp(ROW, x, 0.0f, NULL);
        }
        for (i = 0; i < ROW; i++)
            if (memcmp(&x[i], &want[i], sizeof x[i]) != 0) {
                if (bad < 8) {
                    uint32_t g, w;
                    memcpy(&g, &x[i], 4);
                    memcpy(&w, &want[i], 4);
                    printf("input 0x%08x: kernel 0x%08x, repdl_exp_f32 0x%08x\n", (unsigned)(u0 + i), (unsigned)g,
                           (unsigned)w);
                }
                bad++;
            }
    }
    printf("kernel %d (2 AVX-512F, 1 AVX2, 0 portable lane)\n", isa);
    CHECK(bad == 0, "attention exp kernel %d: %ld of 2^32 inputs differ from repdl_exp_f32", isa, bad);
    return check_summary("attention exp, all inputs");
}
