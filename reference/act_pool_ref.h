/* SPDX-License-Identifier: MIT */
/* reference/act_pool_ref.h: the independent reference of activation.h
   and pool.h (reference/act_pool_ref.c, linked with MPFR): the
   activations forward and backward, the pooling output size and max/avg
   pool2d forward and backward.  Uses no repdl header. */
#ifndef REPDL_REFERENCE_ACT_POOL_REF_H
#define REPDL_REFERENCE_ACT_POOL_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif /* REPDL_REFERENCE_ACT_POOL_REF_H */

float ref_sigmoid(float x);
float ref_gelu(float x, double *dist);
float ref_gelu_grad(float x, double *dist);
float ref_softplus(float x, double *dist);
float ref_relu(float x);
float ref_relu_bwd(float x, float dy);
float ref_sigmoid_bwd(float x, float dy);
float ref_silu(float x);
float ref_silu_bwd(float x, float dy);
float ref_gelu_tanh(float x);
float ref_gelu_tanh_bwd(float x, float dy);
float ref_softplus_bwd(float x, float dy);

typedef struct ref_pool_shape { size_t n, c, h, w, kh, kw, sh, sw, ph, pw; } ref_pool_shape;
void ref_pool_out(const ref_pool_shape *s, size_t *oh, size_t *ow);
void ref_maxpool_fwd(const ref_pool_shape *s, const float *x, float *y, int64_t *arg);
void ref_maxpool_bwd(const ref_pool_shape *s, const int64_t *arg, const float *dy, float *dx);
void ref_avgpool_fwd(const ref_pool_shape *s, int incl, const float *x, float *y);
void ref_avgpool_bwd(const ref_pool_shape *s, int incl, const float *dy, float *dx);

#ifdef __cplusplus
}
#endif

#endif /* REPDL_REFERENCE_ACT_POOL_REF_H */
