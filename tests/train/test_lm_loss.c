/* SPDX-License-Identifier: MIT */
/* tests/train/test_lm_loss.c: repdl_cross_entropy_f32 at the sizes of a
   language model's output layer (issue 30 item 4):
     - vocabulary 50257 (GPT-2's), 6 rows, logits in [-16, 16), targets at
       both ends of the range and one outside it: loss (SUM and MEAN) and
       dlogits bits of reference/nn_ref.h's ref_cross_entropy; each row
       alone gives its row of the batch;
     - 64-bit targets: a target 2^32 + 3 is outside a vocabulary of 50257
       (its row NaN), never read as class 3;
     - size limits: rows x cols past size_t, rows targets past size_t
       bytes: REPDL_ERR_OVERFLOW with nothing written; rows = 0 with a
       vocabulary of 2^40 reads nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/softmax.h>

#include "nn_ref.h"
#include "../common/check.h"
#include "../common/splitmix64.h"

#define VOC 50257
#define ROWS 6

int main(void)
{
    splitmix64 rng;
    float *x = (float *)malloc((size_t)ROWS * VOC * sizeof(float));
    float *dx = (float *)malloc((size_t)ROWS * VOC * sizeof(float));
    float *rdx = (float *)malloc((size_t)ROWS * VOC * sizeof(float));
    float *one = (float *)malloc((size_t)VOC * sizeof(float));
    size_t tg[ROWS] = {0, VOC - 1, 17, VOC, 31337, 4};
    int32_t rt[ROWS];
    size_t i, r;
    int red;
    splitmix64_seed(&rng, 50257);
    for (i = 0; i < (size_t)ROWS * VOC; i++)
        x[i] = (float)((int32_t)(uint32_t)(splitmix64_next(&rng) >> 32)) * 0x1p-27f;
    for (r = 0; r < ROWS; r++) rt[r] = (int32_t)tg[r];
    for (red = 0; red < 2; red++) { /* 0 MEAN, 1 SUM (nn_ref.h's codes) */
        int mode = red == 0 ? REPDL_REDUCTION_MEAN : REPDL_REDUCTION_SUM;
        float loss = -1.0f, want;
        CHECK(repdl_cross_entropy_f32(ROWS, VOC, mode, x, tg, &loss, dx) == REPDL_OK, "ce");
        want = ref_cross_entropy(ROWS, VOC, x, rt, red, rdx);
        CHECK_BITS(loss, want, "vocab %d, reduction %d: loss", VOC, red);
        CHECK_SAME(dx, rdx, (size_t)ROWS * VOC, "vocab %d, reduction %d: dlogits", VOC, red);
    }
    /* each row alone (SUM): its own loss and the batch's gradient row */
    for (r = 0; r < ROWS; r++) {
        float l, want;
        int32_t t1 = rt[r];
        CHECK(repdl_cross_entropy_f32(1, VOC, REPDL_REDUCTION_SUM, x + r * VOC, &tg[r], &l, one) == REPDL_OK,
              "row");
        want = ref_cross_entropy(1, VOC, x + r * VOC, &t1, 1, rdx);
        CHECK_BITS(l, want, "row %zu alone", r);
        CHECK_SAME(one, rdx, VOC, "row %zu alone: dlogits", r);
    }
    /* a 64-bit target: out of range, NaN, not class 3 */
    {
        size_t big = ((size_t)1 << 32) + 3, three = 3;
        float l = 0.0f, l3 = 0.0f;
        if (sizeof(size_t) >= 8) {
            CHECK(repdl_cross_entropy_f32(1, VOC, REPDL_REDUCTION_SUM, x, &big, &l, NULL) == REPDL_OK, "big");
            CHECK(asuint(l) == 0x7fc00000u, "target 2^32 + 3: loss %a, not NaN", l);
            CHECK(repdl_cross_entropy_f32(1, VOC, REPDL_REDUCTION_SUM, x, &three, &l3, NULL) == REPDL_OK, "3");
            CHECK(asuint(l3) != 0x7fc00000u, "class 3 is a number");
        }
    }
    /* size limits: nothing written */
    {
        float l = 1234.0f;
        size_t t0 = 0;
        size_t huge_rows = ((size_t)-1) / sizeof(size_t) + 1;
        CHECK(repdl_cross_entropy_f32((size_t)1 << 40, (size_t)1 << 30, REPDL_REDUCTION_SUM, x, tg, &l,
                                      dx) == REPDL_ERR_OVERFLOW, "rows x cols overflow");
        CHECK(repdl_cross_entropy_f32(huge_rows, 1, REPDL_REDUCTION_SUM, x, tg, &l, dx) ==
                  REPDL_ERR_OVERFLOW, "targets bytes overflow");
        CHECK(l == 1234.0f, "an overflow wrote the loss");
        CHECK(repdl_cross_entropy_f32(0, (size_t)1 << 40, REPDL_REDUCTION_SUM, NULL, NULL, &l, NULL) ==
                  REPDL_OK, "no rows");
        CHECK(asuint(l) == 0x80000000u, "no rows: -0");
        (void)t0;
    }
    free(x); free(dx); free(rdx); free(one);
    return check_summary("test_lm_loss");
}
