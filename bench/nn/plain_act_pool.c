/* SPDX-License-Identifier: MIT */
/* bench/nn/plain_act_pool.c: the anchors of bench_nn_act_pool: the
   textbook loops with glibc's float functions (not reproducible: glibc's
   results are not correctly rounded and differ between versions, and the
   compiler may contract).  Pooling: the direct loops. */
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
