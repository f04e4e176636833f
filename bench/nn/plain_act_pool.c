/* SPDX-License-Identifier: MIT */
/* bench/nn/plain_act_pool.c: the anchors of bench_nn_act_pool: the
   textbook loops with glibc's float functions (not reproducible: glibc's
   results are not correctly rounded and differ between versions, and the
   compiler may contract).  Pooling: the direct loops (plain_max_pool2d,
   plain_avg_pool2d: no argmax, no NaN rule, no padding, the issue's
   anchors), plus plain_max_pool2d_arg, the direct loop with repdl's
   semantics (argmax written, the first NaN wins, the first maximum
   wins), and plain_max_pool2d_backward, the textbook scatter
   dx[argmax] += dy over a zeroed dx. */
#include <math.h>
#include <stddef.h>

#include "plain_act_pool.h"

void plain_relu(size_t n, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
void plain_sigmoid(size_t n, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++) y[i] = 1.0f / (1.0f + expf(-x[i]));
}
void plain_silu(size_t n, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++) y[i] = x[i] / (1.0f + expf(-x[i]));
}
void plain_gelu(size_t n, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++) y[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678f));
}
void plain_gelu_tanh(size_t n, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}
void plain_softplus(size_t n, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++) y[i] = x[i] > 20.0f ? x[i] : log1pf(expf(x[i]));
}
void plain_max_pool2d(size_t planes, size_t h, size_t w, size_t k, size_t st, const float *x, float *y)
{
    size_t oh = (h - k) / st + 1, ow = (w - k) / st + 1;
    for (size_t p = 0; p < planes; p++)
        for (size_t i = 0; i < oh; i++)
            for (size_t j = 0; j < ow; j++) {
                float m = -INFINITY;
                for (size_t r = 0; r < k; r++)
                    for (size_t c = 0; c < k; c++) {
                        float v = x[p * h * w + (i * st + r) * w + j * st + c];
                        m = v > m ? v : m;
                    }
                y[p * oh * ow + i * ow + j] = m;
            }
}
void plain_avg_pool2d(size_t planes, size_t h, size_t w, size_t k, size_t st, const float *x, float *y)
{
    size_t oh = (h - k) / st + 1, ow = (w - k) / st + 1;
    for (size_t p = 0; p < planes; p++)
        for (size_t i = 0; i < oh; i++)
            for (size_t j = 0; j < ow; j++) {
                float s = 0.0f;
                for (size_t r = 0; r < k; r++)
                    for (size_t c = 0; c < k; c++) s += x[p * h * w + (i * st + r) * w + j * st + c];
                y[p * oh * ow + i * ow + j] = s / (float)(k * k);
            }
}
void plain_max_pool2d_arg(size_t planes, size_t h, size_t w, size_t k, size_t st, const float *x,
                          float *y, size_t *arg)
{
    size_t oh = (h - k) / st + 1, ow = (w - k) / st + 1;
    for (size_t p = 0; p < planes; p++)
        for (size_t i = 0; i < oh; i++)
            for (size_t j = 0; j < ow; j++) {
                size_t bi = (i * st) * w + j * st;
                float m = x[p * h * w + bi];
                for (size_t r = 0; r < k; r++)
                    for (size_t c = 0; c < k; c++) {
                        size_t t = (i * st + r) * w + j * st + c;
                        float v = x[p * h * w + t];
                        if (v > m || (v != v && m == m)) { m = v; bi = t; }
                    }
                y[p * oh * ow + i * ow + j] = m;
                arg[p * oh * ow + i * ow + j] = bi;
            }
}
void plain_max_pool2d_backward(size_t planes, size_t hw, size_t ohw, const size_t *arg,
                               const float *dy, float *dx)
{
    for (size_t i = 0; i < planes * hw; i++) dx[i] = 0.0f;
    for (size_t p = 0; p < planes; p++)
        for (size_t o = 0; o < ohw; o++) dx[p * hw + arg[p * ohw + o]] += dy[p * ohw + o];
}
