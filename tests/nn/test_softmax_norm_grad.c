/* SPDX-License-Identifier: MIT */
/* tests/nn/test_softmax_norm_grad.c: the backward passes of softmax.h
   and norm.h against central finite differences of the forward definitions
   evaluated in double (libm exp, log, sqrt).  A sanity test of the
   formulas (a sign or a missing term fails it), with a tolerance: the
   float gradients carry float rounding, the differences a truncation
   error.  Bitwise reproducibility is test_nn's business.

   Each case: L(p) = sum_i w_i f(p)_i for random weights w (the losses are
   scalars already), p the inputs (x, and gamma, beta where present); the
   library's backward with dy = w must match dL/dp within
   |got - want| <= 2e-3 * max_k |want_k| + 1e-5. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/norm.h>
#include <repdl/softmax.h>

enum { ROWS = 3, COLS = 7, NB = 4, CB = 3, HW = 5 };
#define EPS 1e-3

static long checks = 0, failures = 0;
static uint64_t st = 0x853c49e6748fea9bull;
static double urand(void) /* [-1, 1) */
{
    uint64_t z = (st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-52 - 1.0;
}

/* ---- forward definitions in double ---- */
static size_t tgt[ROWS] = {2, 0, 6};
static double w[NB * CB * HW];

static double f_softmax(const double *x, int logf_)
{
    double L = 0;
    for (int r = 0; r < ROWS; r++) {
        const double *xr = x + r * COLS;
        double m = xr[0], s = 0;
        for (int i = 1; i < COLS; i++) m = xr[i] > m ? xr[i] : m;
        for (int i = 0; i < COLS; i++) s += exp(xr[i] - m);
        for (int i = 0; i < COLS; i++)
            L += w[r * COLS + i] * (logf_ ? xr[i] - m - log(s) : exp(xr[i] - m) / s);
    }
    return L;
}
static double f_sm(const double *p) { return f_softmax(p, 0); }
static double f_lsm(const double *p) { return f_softmax(p, 1); }
static double f_ce(const double *x) /* mean */
{
    double L = 0;
    for (int r = 0; r < ROWS; r++) {
        const double *xr = x + r * COLS;
        double m = xr[0], s = 0;
        for (int i = 1; i < COLS; i++) m = xr[i] > m ? xr[i] : m;
        for (int i = 0; i < COLS; i++) s += exp(xr[i] - m);
        L += -(xr[tgt[r]] - m - log(s));
    }
    return L / ROWS;
}
static double f_nll(const double *x) /* sum */
{
    double L = 0;
    for (int r = 0; r < ROWS; r++) L -= x[r * COLS + tgt[r]];
    return L;
}
/* p = x[ROWS*COLS], gamma[COLS], beta[COLS] */
static double f_ln(const double *p)
{
    const double *g = p + ROWS * COLS, *b = g + COLS;
    double L = 0;
    for (int r = 0; r < ROWS; r++) {
        const double *xr = p + r * COLS;
        double mu = 0, var = 0;
        for (int i = 0; i < COLS; i++) mu += xr[i];
        mu /= COLS;
        for (int i = 0; i < COLS; i++) var += (xr[i] - mu) * (xr[i] - mu);
        var /= COLS;
        for (int i = 0; i < COLS; i++)
            L += w[r * COLS + i] * ((xr[i] - mu) / sqrt(var + 1e-5) * g[i] + b[i]);
    }
    return L;
}
static double f_rms(const double *p)
{
    const double *g = p + ROWS * COLS;
    double L = 0;
    for (int r = 0; r < ROWS; r++) {
        const double *xr = p + r * COLS;
        double ms = 0;
        for (int i = 0; i < COLS; i++) ms += xr[i] * xr[i];
        ms /= COLS;
        for (int i = 0; i < COLS; i++) L += w[r * COLS + i] * (xr[i] / sqrt(ms + 1e-6) * g[i]);
    }
    return L;
}
/* p = x[NB][CB][HW], gamma[CB], beta[CB] */
static double f_bn(const double *p)
{
    const double *g = p + NB * CB * HW, *b = g + CB;
    double L = 0;
    for (int c = 0; c < CB; c++) {
        double mu = 0, var = 0;
        for (int n = 0; n < NB; n++)
            for (int k = 0; k < HW; k++) mu += p[(n * CB + c) * HW + k];
        mu /= NB * HW;
        for (int n = 0; n < NB; n++)
            for (int k = 0; k < HW; k++) {
                double d = p[(n * CB + c) * HW + k] - mu;
                var += d * d;
            }
        var /= NB * HW;
        for (int n = 0; n < NB; n++)
            for (int k = 0; k < HW; k++) {
                int q = (n * CB + c) * HW + k;
                L += w[q] * ((p[q] - mu) / sqrt(var + 1e-5) * g[c] + b[c]);
            }
    }
    return L;
}

/* Central differences of f at p (np parameters) vs got[0..np). */
static void check(const char *what, double (*f)(const double *), const float *pf, int np,
                  const float *got)
{
    double p[NB * CB * HW + 2 * CB + ROWS * COLS + 2 * COLS], want[sizeof p / sizeof p[0]];
    double mx = 0;
    for (int k = 0; k < np; k++) p[k] = pf[k];
    for (int k = 0; k < np; k++) {
        double h = 1e-5 * (fabs(p[k]) > 1 ? fabs(p[k]) : 1), s = p[k];
        p[k] = s + h;
        double up = f(p);
        p[k] = s - h;
        double dn = f(p);
        p[k] = s;
        want[k] = (up - dn) / (2 * h);
        mx = fabs(want[k]) > mx ? fabs(want[k]) : mx;
    }
    checks++;
    for (int k = 0; k < np; k++)
        if (!(fabs(got[k] - want[k]) <= 2e-3 * mx + 1e-5)) {
            failures++;
            fprintf(stderr, "FAIL %s: d/dp[%d] got %.9g want %.9g\n", what, k, got[k], want[k]);
            return;
        }
    printf("ok %s (%d partials)\n", what, np);
}

int main(void)
{
    float x[NB * CB * HW + 2 * CB], y[ROWS * COLS], dy[NB * CB * HW], g[ROWS * COLS + 2 * COLS];
    float mu[ROWS], rs[ROWS];
    int n = ROWS * COLS;
    for (int i = 0; i < NB * CB * HW; i++) {
        w[i] = urand();
        dy[i] = (float)w[i];
        w[i] = dy[i]; /* the weights the library sees */
    }
    for (int i = 0; i < NB * CB * HW + 2 * CB; i++) x[i] = (float)(3 * urand());

    repdl_softmax_f32(ROWS, COLS, x, y);
    repdl_softmax_backward_f32(ROWS, COLS, y, dy, g);
    check("softmax_backward", f_sm, x, n, g);
    repdl_log_softmax_f32(ROWS, COLS, x, y);
    repdl_log_softmax_backward_f32(ROWS, COLS, y, dy, g);
    check("log_softmax_backward", f_lsm, x, n, g);
    {
        float l;
        if (repdl_cross_entropy_f32(ROWS, COLS, REPDL_REDUCTION_MEAN, x, tgt, &l, g) != REPDL_OK) {
            printf("FAIL cross_entropy status\n");
            return 1;
        }
    }
    check("cross_entropy mean dlogits", f_ce, x, n, g);
    {
        float l;
        if (repdl_nll_loss_f32(ROWS, COLS, REPDL_REDUCTION_SUM, x, tgt, &l, g) != REPDL_OK) {
            printf("FAIL nll_loss status\n");
            return 1;
        }
    }
    check("nll sum dlogp", f_nll, x, n, g);

    {   /* layer norm: p = x, gamma, beta */
        float p[ROWS * COLS + 2 * COLS];
        for (int i = 0; i < n + 2 * COLS; i++) p[i] = x[i];
        for (int i = 0; i < COLS; i++) p[n + i] = (float)(1 + 0.5 * urand());
        repdl_layer_norm_forward_f32(ROWS, COLS, 1e-5f, p, p + n, p + n + COLS, y, mu, rs);
        repdl_layer_norm_backward_f32(ROWS, COLS, p, p + n, mu, rs, dy, g, g + n, g + n + COLS);
        check("layer_norm_backward dx dgamma dbeta", f_ln, p, n + 2 * COLS, g);
        repdl_rms_norm_forward_f32(ROWS, COLS, 1e-6f, p, p + n, y, rs);
        repdl_rms_norm_backward_f32(ROWS, COLS, p, p + n, rs, dy, g, g + n);
        check("rms_norm_backward dx dgamma", f_rms, p, n + COLS, g);
    }
    {   /* batch norm: p = x, gamma, beta */
        int m = NB * CB * HW;
        float yb[NB * CB * HW], gb[NB * CB * HW + 2 * CB], sm[CB], sr[CB];
        for (int i = 0; i < CB; i++) x[m + i] = (float)(1 + 0.5 * urand());
        repdl_batch_norm_forward_train_f32(NB, CB, HW, 1e-5f, 0.1f, x, x + m, x + m + CB, NULL,
                                           NULL, yb, sm, sr);
        repdl_batch_norm_backward_f32(NB, CB, HW, x, x + m, sm, sr, dy, gb, gb + m, gb + m + CB);
        check("batch_norm_backward dx dgamma dbeta", f_bn, x, m + 2 * CB, gb);
    }
    printf("test_softmax_norm_grad: %ld checks, %ld failures\n", checks, failures);
    return failures ? 1 : 0;
}
