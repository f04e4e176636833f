/* SPDX-License-Identifier: MIT */
/* tests/train/test_gpt_grad.c: the backward pass of examples/train_gpt.c's
   model is the gradient of its loss.  A 2-layer model (d_model 8, 2
   heads, context 6) with random weights (layer-norm gains and biases
   included), one window of random bytes: for every parameter tensor, a
   few elements, the central differences (loss(p + h) - loss(p - h)) / 2h
   of the binary32 forward (the loss accumulated in double) at h = 4e-3
   and 2e-3, extrapolated (Richardson), agree with
   the program's gradient (unit_grad: forward, cross-entropy, backward,
   the tied table's two gradients added).  Tolerance 1e-3 + 3% of |g|:
   the forward's rounding noise is ~1e-4 after the division by 2h and
   the extrapolation, the remaining h^4 error smaller; a wrong sign,
   a missing term or a dropped gradient path is off by |g| or more. */
#define main train_gpt_main
#include "../../examples/train_gpt.c"
#undef main

#include "../common/check.h"
#include "../common/splitmix64.h"

static double dabs(double x) { return x < 0 ? -x : x; }

static double loss_of(const model *m, const float *P, job *j)
{
    ws *w = &j->w[0];
    size_t N = m->N, r;
    double s = 0;
    load_window(j, 0, w, 0);
    if (forward(m, P, w, 1, N) != REPDL_OK) return 0.0 / 0.0;
    if (token_losses(j, w, N, j->tokloss, 0) != REPDL_OK) return 0.0 / 0.0;
    for (r = 0; r < N; r++) s += j->tokloss[r];
    return s / (double)N;
}

/* The central difference at step h, with the steps actually taken. */
static double central(const model *m, float *P, job *j, size_t e, float h)
{
    float p0 = P[e], up = p0 + h, dn = p0 - h;
    double lp, lm;
    P[e] = up;
    lp = loss_of(m, P, j);
    P[e] = dn;
    lm = loss_of(m, P, j);
    P[e] = p0;
    return (lp - lm) / ((double)up - (double)dn);
}

/* Richardson's extrapolation of the central differences at h and h / 2:
   the h^2 term cancels, so a step large enough to stay above the
   forward's rounding noise stays accurate where the loss curves. */
static double richardson(const model *m, float *P, job *j, size_t e, float h)
{
    return (4.0 * central(m, P, j, e, h * 0.5f) - central(m, P, j, e, h)) / 3.0;
}

int main(void)
{
    options o;
    model m;
    ws w;
    job j;
    splitmix64 rng;
    unsigned char text[7];
    uint32_t perm[1] = {0};
    float *P, *G, tokloss[6];
    size_t t, i, k;
    memset(&o, 0, sizeof o);
    o.layers = 2; o.dmodel = 8; o.heads = 2; o.ctx = 6;
    splitmix64_seed(&rng, 5);
    CHECK(model_init(&m, &o) == 0, "model");
    CHECK(ws_alloc(&w, &m, 1) == 0, "workspace");
    P = (float *)malloc(m.total * sizeof(float));
    G = (float *)malloc(m.total * sizeof(float));
    model_init_weights(&m, 7, P);
    /* 4 times the init's weights (the gradients must be sizeable)
       and gains and biases away from 1 and 0 */
    for (i = 0; i < m.total; i++)
        P[i] = P[i] * 4.0f + (float)((int32_t)(uint32_t)(splitmix64_next(&rng) >> 32)) * 0x1p-33f;
    for (i = 0; i < sizeof text; i++) text[i] = (unsigned char)(splitmix64_next(&rng) >> 56);
    memset(&j, 0, sizeof j);
    j.m = &m; j.P = P; j.w = &w; j.text = text; j.perm = perm; j.first = 0; j.B = 1;
    j.tokloss = tokloss;
    CHECK(unit_grad(&j, 0, 0, 0, 1, G) == REPDL_OK, "unit_grad");
    for (t = 0; t < m.ntensors; t++) {
        size_t n = m.count[t];
        /* 4 random elements; for the tied table also the rows of the
           first two input bytes, where both uses contribute */
        size_t extra = t == t_wte() ? 2 * m.D : 0;
        for (k = 0; k < 4 + extra; k++) {
            size_t e = k < 4 ? m.off[t] + (size_t)(splitmix64_next(&rng) % n)
                             : m.off[t] + (size_t)text[(k - 4) / m.D] * m.D + (k - 4) % m.D;
            double g = G[e], fd = richardson(&m, P, &j, e, 4e-3f);
            CHECK(dabs(fd - g) <= 1e-3 + 0.03 * dabs(g),
                  "tensor %zu element %zu: finite difference %.6g, gradient %.6g", t, e - m.off[t], fd, g);
        }
    }
    free(P);
    free(G);
    ws_free(&w, &m);
    model_free(&m);
    return check_summary("test_gpt_grad");
}
