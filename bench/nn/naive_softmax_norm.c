/* SPDX-License-Identifier: MIT */
/* bench/nn/naive_softmax_norm.c: the anchors: plain, non-reproducible C
   loops (glibc expf/logf/sqrtf, sequential sums in float, reciprocal
   multiply), compiled alone at -O3 -march=native without -ffast-math. */
#include <math.h>
#include <stddef.h>

#include "naive_softmax_norm.h"

void naive_softmax(size_t rows, size_t cols, const float *x, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        float m = -INFINITY, s = 0.0f;
        for (size_t i = 0; i < cols; i++) m = xr[i] > m ? xr[i] : m;
        for (size_t i = 0; i < cols; i++) {
            yr[i] = expf(xr[i] - m);
            s += yr[i];
        }
        float inv = 1.0f / s;
        for (size_t i = 0; i < cols; i++) yr[i] *= inv;
    }
}

void naive_log_softmax(size_t rows, size_t cols, const float *x, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        float m = -INFINITY, s = 0.0f;
        for (size_t i = 0; i < cols; i++) m = xr[i] > m ? xr[i] : m;
        for (size_t i = 0; i < cols; i++) s += expf(xr[i] - m);
        float ls = m + logf(s);
        for (size_t i = 0; i < cols; i++) yr[i] = xr[i] - ls;
    }
}

void naive_softmax_backward(size_t rows, size_t cols, const float *y, const float *dy, float *dx)
{
    for (size_t r = 0; r < rows; r++) {
        const float *yr = y + r * cols, *g = dy + r * cols;
        float dot = 0.0f;
        for (size_t i = 0; i < cols; i++) dot += yr[i] * g[i];
        for (size_t i = 0; i < cols; i++) dx[r * cols + i] = yr[i] * (g[i] - dot);
    }
}

void naive_log_softmax_backward(size_t rows, size_t cols, const float *y, const float *dy, float *dx)
{
    for (size_t r = 0; r < rows; r++) {
        const float *yr = y + r * cols, *g = dy + r * cols;
        float s = 0.0f;
        for (size_t i = 0; i < cols; i++) s += g[i];
        for (size_t i = 0; i < cols; i++) dx[r * cols + i] = g[i] - expf(yr[i]) * s;
    }
}

void naive_layer_norm(size_t rows, size_t cols, const float *x, const float *g, const float *b,
                      float eps, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        float mu = 0.0f, var = 0.0f;
        for (size_t i = 0; i < cols; i++) mu += xr[i];
        mu /= (float)cols;
        for (size_t i = 0; i < cols; i++) var += (xr[i] - mu) * (xr[i] - mu);
        var /= (float)cols;
        float rs = 1.0f / sqrtf(var + eps);
        for (size_t i = 0; i < cols; i++) yr[i] = (xr[i] - mu) * rs * g[i] + b[i];
    }
}

void naive_layer_norm_backward(size_t rows, size_t cols, const float *x, const float *gam,
                               const float *mean, const float *rstd, const float *dy, float *dx)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols, *gr = dy + r * cols;
        float mu = mean[r], rs = rstd[r], a = 0.0f, b = 0.0f;
        for (size_t i = 0; i < cols; i++) {
            float g = gr[i] * gam[i];
            a += g;
            b += g * (xr[i] - mu) * rs;
        }
        a /= (float)cols;
        b /= (float)cols;
        for (size_t i = 0; i < cols; i++)
            dx[r * cols + i] = rs * (gr[i] * gam[i] - a - (xr[i] - mu) * rs * b);
    }
}

void naive_rms_norm(size_t rows, size_t cols, const float *x, const float *g, float eps, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        float ss = 0.0f;
        for (size_t i = 0; i < cols; i++) ss += xr[i] * xr[i];
        float rs = 1.0f / sqrtf(ss / (float)cols + eps);
        for (size_t i = 0; i < cols; i++) yr[i] = xr[i] * rs * g[i];
    }
}

void naive_layer_norm_param_grads(size_t rows, size_t cols, const float *x, const float *mean,
                                  const float *rstd, const float *dy, float *dgamma, float *dbeta)
{
    for (size_t j = 0; j < cols; j++) dgamma[j] = dbeta[j] = 0.0f;
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < cols; j++) {
            float g = dy[r * cols + j];
            dgamma[j] += g * (x[r * cols + j] - mean[r]) * rstd[r];
            dbeta[j] += g;
        }
}
