/* SPDX-License-Identifier: MIT */
/* bench/nn/plain_act_pool.h: the anchors (plain_act_pool.c). */
#include <stddef.h>
void plain_relu(size_t n, const float *x, float *y);
void plain_sigmoid(size_t n, const float *x, float *y);
void plain_silu(size_t n, const float *x, float *y);
void plain_gelu(size_t n, const float *x, float *y);
void plain_gelu_tanh(size_t n, const float *x, float *y);
void plain_softplus(size_t n, const float *x, float *y);
void plain_max_pool2d(size_t planes, size_t h, size_t w, size_t k, size_t st, const float *x, float *y);
void plain_avg_pool2d(size_t planes, size_t h, size_t w, size_t k, size_t st, const float *x, float *y);
void plain_max_pool2d_arg(size_t planes, size_t h, size_t w, size_t k, size_t st, const float *x,
                          float *y, size_t *arg);
void plain_max_pool2d_backward(size_t planes, size_t hw, size_t ohw, const size_t *arg,
                               const float *dy, float *dx);
