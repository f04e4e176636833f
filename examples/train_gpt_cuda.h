/* SPDX-License-Identifier: MIT */
/* examples/train_gpt_cuda.h: the interface between examples/train_gpt.c
   and its CUDA side (train_gpt_cuda.c, --device cuda).  Each function
   returns 0, or -1 with a reason in train_gpt_cuda_error (init: in err).
   Arrays passed in are host memory. */
#ifndef TRAIN_GPT_CUDA_H
#define TRAIN_GPT_CUDA_H

#include <stddef.h>
#include <stdint.h>

typedef struct gpt_dev_model {
    size_t L, D, H, hd, N;             /* layers, d_model, heads, head size, context */
    const size_t *off;                 /* [1 + 12 L + 2 + 1] tensor offsets (train_gpt.c) */
    size_t total;                      /* parameters */
    float scale;                       /* the attention scale */
    const float *cos_tab, *sin_tab;    /* the RoPE table [N][hd / 2] */
    int gemm_cr;                       /* --gemm cr */
} gpt_dev_model;

typedef struct gpt_dev gpt_dev;

/* Device memory for calls of at most S sequences; fails without a usable
   device (*dev is then NULL or to be freed). */
int train_gpt_cuda_init(gpt_dev **dev, const gpt_dev_model *m, size_t S, char *err, size_t errlen);
/* The parameters (m->total floats) for the following calls. */
int train_gpt_cuda_set_params(gpt_dev *d, const float *P);
/* unit_grad of train_gpt.c for S sequences (ids, tgt [S N]): the token
   losses into tokloss [S N], dlogits / count, the gradient into grad. */
int train_gpt_cuda_grad(gpt_dev *d, const int64_t *ids, const size_t *tgt, size_t S, size_t count,
                        float *tokloss, float *grad);
/* The logits [S N][256] of S sequences. */
int train_gpt_cuda_logits(gpt_dev *d, const int64_t *ids, size_t S, float *logits);
const char *train_gpt_cuda_error(const gpt_dev *d);
void train_gpt_cuda_free(gpt_dev *d);

#endif /* TRAIN_GPT_CUDA_H */
