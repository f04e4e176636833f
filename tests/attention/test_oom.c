/* SPDX-License-Identifier: MIT */
/* tests/attention/test_oom.c: the out-of-memory rule of attention.h and
   attention_threads.h (docs/attention.md, "Bad input"): when any one of a
   call's allocations is refused, the call returns REPDL_ERR_NOMEM and has
   written nothing; with every allocation granted it gives the bits of the
   plain call.  tests/common/oom_alloc.h refuses allocation k on demand. */
#include "../common/oom_alloc.h"

#include <stdio.h>
#include <string.h>

/* every thread count asked for, whatever the work (attention_threads.h's
   grain would run these small shapes on one thread) */
#define REPDL_ATTENTION_GRAIN 0
#include <repdl/attention_threads.h>

#include "../common/check.h"
#include "../common/splitmix64.h"

enum { B = 2, HQ = 4, HKV = 2, N = 40, D = 16, NR = B * HQ * N, NKV = B * HKV * N };

static float q[NR * D], k[NKV * D], v[NKV * D], g[NR * D], out[NR * D], lse[NR];

/* fn 0 forward, 1 backward, 2 forward on 3 threads, 3 backward on 3 threads */
static int call(int fn, const repdl_attention_shape *s, float *o, float *l, float *dq, float *dk,
                float *dv)
{
    switch (fn) {
    case 0: return repdl_attention_forward_f32(s, 0.25f, q, k, v, NULL, NULL, o, l);
    case 1: return repdl_attention_backward_f32(s, 0.25f, q, k, v, NULL, NULL, out, lse, g, dq, dk, dv);
    case 2: return repdl_attention_forward_threads_f32(s, 3, 0.25f, q, k, v, NULL, NULL, o, l);
    default:
        return repdl_attention_backward_threads_f32(s, 3, 0.25f, q, k, v, NULL, NULL, out, lse, g,
                                                    dq, dk, dv);
    }
}

int main(void)
{
    static float want[5][NR * D], got[5][NR * D];
    static const char *name[4] = {"forward", "backward", "forward, 3 threads", "backward, 3 threads"};
    repdl_attention_shape s = {B, HQ, HKV, N, N, D, 0, 0, 1};
    splitmix64 r;
    size_t i;
    int fn, a;
    splitmix64_seed(&r, 7);
    for (i = 0; i < NR * D; i++) q[i] = (float)(splitmix64_next(&r) >> 40) / 8388608.0f - 1.0f;
    for (i = 0; i < NR * D; i++) g[i] = (float)(splitmix64_next(&r) >> 40) / 8388608.0f - 1.0f;
    for (i = 0; i < NKV * D; i++) k[i] = (float)(splitmix64_next(&r) >> 40) / 8388608.0f - 1.0f;
    for (i = 0; i < NKV * D; i++) v[i] = (float)(splitmix64_next(&r) >> 40) / 8388608.0f - 1.0f;
    CHECK(repdl_attention_forward_f32(&s, 0.25f, q, k, v, NULL, NULL, out, lse) == REPDL_OK, "setup");
    for (fn = 0; fn < 4; fn++) {
        long before, count;
        oom_at = -1;
        before = oom_calls;
        CHECK(call(fn, &s, want[0], want[1], want[2], want[3], want[4]) == REPDL_OK, "%s", name[fn]);
        count = oom_calls - before;
        CHECK(count >= 1, "%s: takes its workspace from REPDL__ALLOC (%ld allocations)", name[fn], count);
        for (a = 0; a < count; a++) {
            int j;
            for (j = 0; j < 5; j++) memset(got[j], 0x5a, sizeof got[j]);
            oom_at = oom_calls + a;
            CHECK(call(fn, &s, got[0], got[1], got[2], got[3], got[4]) == REPDL_ERR_NOMEM,
                  "%s: allocation %d of %ld refused: REPDL_ERR_NOMEM", name[fn], a, count);
            for (j = 0; j < 5; j++) {
                size_t b;
                for (b = 0; b < sizeof got[j] && ((const unsigned char *)got[j])[b] == 0x5a; b++) {}
                CHECK(b == sizeof got[j], "%s: allocation %d refused: output %d written", name[fn], a, j);
            }
        }
        oom_at = -1;
        CHECK(call(fn, &s, got[0], got[1], got[2], got[3], got[4]) == REPDL_OK, "%s again", name[fn]);
        if (fn % 2 == 0) {
            CHECK_SAME(got[0], want[0], NR * D, "%s: out", name[fn]);
            CHECK_SAME(got[1], want[1], NR, "%s: lse", name[fn]);
        } else {
            CHECK_SAME(got[2], want[2], NR * D, "%s: dq", name[fn]);
            CHECK_SAME(got[3], want[3], NKV * D, "%s: dk", name[fn]);
            CHECK_SAME(got[4], want[4], NKV * D, "%s: dv", name[fn]);
        }
    }
    CHECK_SAME(want[0], out, NR * D, "the forward forms agree");
    return check_summary("attention oom");
}
