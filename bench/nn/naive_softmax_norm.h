/* SPDX-License-Identifier: MIT */
/* bench/nn/naive_softmax_norm.h: the plain-loop anchors of bench_softmax_norm.c. */
#ifndef BENCH_NN_NAIVE_H
#define BENCH_NN_NAIVE_H
#include <stddef.h>
void naive_softmax(size_t rows, size_t cols, const float *x, float *y);
void naive_log_softmax(size_t rows, size_t cols, const float *x, float *y);
void naive_softmax_backward(size_t rows, size_t cols, const float *y, const float *dy, float *dx);
void naive_log_softmax_backward(size_t rows, size_t cols, const float *y, const float *dy, float *dx);
void naive_layer_norm(size_t rows, size_t cols, const float *x, const float *g, const float *b,
                      float eps, float *y);
void naive_layer_norm_backward(size_t rows, size_t cols, const float *x, const float *gam,
                               const float *mean, const float *rstd, const float *dy, float *dx);
void naive_rms_norm(size_t rows, size_t cols, const float *x, const float *g, float eps, float *y);
void naive_layer_norm_param_grads(size_t rows, size_t cols, const float *x, const float *mean,
                                  const float *rstd, const float *dy, float *dgamma, float *dbeta);
#endif
