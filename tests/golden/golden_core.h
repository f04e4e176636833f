/* SPDX-License-Identifier: MIT */
/* tests/golden/golden_core.h: what the golden hashes are hashes of, defined
   once for the two programs that compute them:

     golden.c   the code under test (repdl's headers, built by each matrix
                cell with the cell's compiler and flags);
     derive.c   the independent source (the MPFR oracle and the reference
                definitions in reference/), run once to write hashes.txt.

   Both fill a table of callbacks; this file turns callbacks into digests.
   Hashes (docs/matrix.md):
   - table F/sS (F/full when S = 1): outputs of F over the golden_input
     samples at stride S, in input order, each as its 4 little-endian
     bytes; cut into chunks of 2^16 outputs (256 KiB); the hash is
     SHA-256(D_0 || D_1 || ... ), D_j = SHA-256(chunk j).  (The chunks let
     threads share a 2^32 table.)
   - 16-bit table F_bf16/all, F_f16/all: outputs of F for the 2^16 input
     patterns 0x0000 ... 0xffff, in that order, each as its 2 little-endian
     bytes; the hash is SHA-256 of the 131072 bytes;
   - reduction R/kind: for each length n of golden_lengths, in order, R over
     the window of n elements of the kind's data (golden_window), result as
     4 (float) or 8 (index) little-endian bytes; hash = SHA-256 of all
     (golden_reduce says which lengths a strided op uses);
   - batched R/kind: for each shape of golden_shapes, the rows' results, in
     order, 4 or 8 little-endian bytes each; hash = SHA-256 of all
     (golden_rows gives the row strides). */
#ifndef REPDL_TESTS_GOLDEN_CORE_H
#define REPDL_TESTS_GOLDEN_CORE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef GOLDEN_NO_THREADS
#include <pthread.h>
#endif

#include "gen.h"
#include "sha256.h"

#define GOLDEN_CHUNK_LOG2 16
#define GOLDEN_BLOCK 4096

/* out[i] = F(in[i]) for i < n */
typedef void (*golden_map)(float *out, const float *in, size_t n);
/* the same on 16-bit patterns (bfloat16 or float16, repdl/half.h) */
typedef void (*golden_map16)(uint16_t *out, const uint16_t *in, size_t n);
/* A reduction of x (and y) with strides incx, incy (in elements, the
   pointers at element 0), writing its result to *out: a float, or a
   size_t for the index ops (GOLDEN_IDX). */
typedef void (*golden_red)(const float *x, ptrdiff_t incx, const float *y, ptrdiff_t incy,
                           size_t n, void *out);
/* Batched: out[r] = R(row r) for r < rows, row r of x at x + r * ldx (of y
   at y + r * ldy), n elements each; out is float[] or size_t[]. */
typedef void (*golden_batch)(const float *x, size_t ldx, const float *y, size_t ldy,
                             size_t rows, size_t n, void *out);

enum { GOLDEN_F32, GOLDEN_IDX };

static void golden_put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16); p[3] = (unsigned char)(v >> 24);
}

static uint32_t golden_bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* ---- Tables ---- */

typedef struct golden_table_job {
    golden_map f, g;          /* g: optional second form, compared with f */
    unsigned log2s;
    uint64_t nchunks, next;
    unsigned char *digests;   /* nchunks * 32 */
    uint64_t gdiff;           /* inputs where g's bits differ from f's */
    uint32_t first_in, first_f, first_g;
#ifndef GOLDEN_NO_THREADS
    pthread_mutex_t lock;
#endif
} golden_table_job;

static void golden_table_chunk(golden_table_job *job, uint64_t j, uint64_t *gdiff,
                               uint32_t *fi, uint32_t *ff, uint32_t *fg)
{
    float in[GOLDEN_BLOCK], out[GOLDEN_BLOCK], out2[GOLDEN_BLOCK];
    unsigned char bytes[4 * GOLDEN_BLOCK];
    golden_sha256 s;
    uint64_t base = j << GOLDEN_CHUNK_LOG2, b;
    size_t i;
    golden_sha256_init(&s);
    for (b = 0; b < (1u << GOLDEN_CHUNK_LOG2); b += GOLDEN_BLOCK) {
        for (i = 0; i < GOLDEN_BLOCK; i++) in[i] = golden_f(golden_input(base + b + i, job->log2s));
        job->f(out, in, GOLDEN_BLOCK);
        for (i = 0; i < GOLDEN_BLOCK; i++) golden_put32(bytes + 4 * i, golden_bits_of(out[i]));
        golden_sha256_update(&s, bytes, sizeof bytes);
        if (job->g) {
            job->g(out2, in, GOLDEN_BLOCK);
            if (memcmp(out, out2, sizeof out) != 0)
                for (i = 0; i < GOLDEN_BLOCK; i++)
                    if (golden_bits_of(out[i]) != golden_bits_of(out2[i])) {
                        if (*gdiff == 0) {
                            *fi = golden_bits_of(in[i]);
                            *ff = golden_bits_of(out[i]);
                            *fg = golden_bits_of(out2[i]);
                        }
                        ++*gdiff;
                    }
        }
    }
    golden_sha256_final(&s, job->digests + 32 * j);
}

static void *golden_table_worker(void *arg)
{
    golden_table_job *job = (golden_table_job *)arg;
    uint64_t gdiff = 0, j;
    uint32_t fi = 0, ff = 0, fg = 0;
    for (;;) {
#ifndef GOLDEN_NO_THREADS
        pthread_mutex_lock(&job->lock);
#endif
        j = job->next++;
#ifndef GOLDEN_NO_THREADS
        pthread_mutex_unlock(&job->lock);
#endif
        if (j >= job->nchunks) break;
        golden_table_chunk(job, j, &gdiff, &fi, &ff, &fg);
    }
#ifndef GOLDEN_NO_THREADS
    pthread_mutex_lock(&job->lock);
#endif
    if (gdiff && !job->gdiff) { job->first_in = fi; job->first_f = ff; job->first_g = fg; }
    job->gdiff += gdiff;
#ifndef GOLDEN_NO_THREADS
    pthread_mutex_unlock(&job->lock);
#endif
    return NULL;
}

/* Digest of F's table at stride 2^log2s (log2s <= 16), with `threads`
   threads.  When g is not NULL, g runs on the same inputs and *gdiff counts
   the outputs whose bits differ from f's (the first one is printed to
   stderr).  Returns 0, or -1 when out of memory. */
static int golden_table(golden_map f, golden_map g, unsigned log2s, int threads,
                        unsigned char digest[32], uint64_t *gdiff)
{
    golden_table_job job;
    golden_sha256 s;
    int t;
    memset(&job, 0, sizeof job);
    job.f = f; job.g = g; job.log2s = log2s;
    job.nchunks = 1ull << (32 - log2s - GOLDEN_CHUNK_LOG2);
    job.digests = (unsigned char *)malloc((size_t)job.nchunks * 32);
    if (!job.digests) return -1;
#ifndef GOLDEN_NO_THREADS
    pthread_mutex_init(&job.lock, NULL);
    if (threads > 1) {
        pthread_t *th = (pthread_t *)malloc(sizeof(pthread_t) * (size_t)threads);
        int started = 0;
        if (th) {
            for (t = 0; t < threads; t++) {
                if (pthread_create(&th[t], NULL, golden_table_worker, &job) != 0) break;
                started++;
            }
        }
        if (started == 0) golden_table_worker(&job);
        for (t = 0; t < started; t++) pthread_join(th[t], NULL);
        free(th);
    } else
#endif
    {
        (void)t; (void)threads;
        golden_table_worker(&job);
    }
#ifndef GOLDEN_NO_THREADS
    pthread_mutex_destroy(&job.lock);
#endif
    golden_sha256_init(&s);
    golden_sha256_update(&s, job.digests, (size_t)job.nchunks * 32);
    golden_sha256_final(&s, digest);
    free(job.digests);
    if (gdiff) *gdiff = job.gdiff;
    if (job.gdiff)
        fprintf(stderr, "  second form differs on %llu inputs, first in=0x%08x: 0x%08x vs 0x%08x\n",
                (unsigned long long)job.gdiff, (unsigned)job.first_in, (unsigned)job.first_f,
                (unsigned)job.first_g);
    return 0;
}

/* ---- 16-bit tables ---- */

/* Digest of a 16-bit function's table: all 2^16 input patterns in order,
   each output as 2 little-endian bytes.  When g is not NULL it runs on the
   same inputs and *gdiff counts the outputs whose bits differ from f's (the
   first one is printed to stderr). */
static void golden_table16(golden_map16 f, golden_map16 g, unsigned char digest[32],
                           uint64_t *gdiff)
{
    uint16_t in[GOLDEN_BLOCK], out[GOLDEN_BLOCK], out2[GOLDEN_BLOCK];
    unsigned char bytes[2 * GOLDEN_BLOCK];
    golden_sha256 s;
    uint32_t base;
    size_t i;
    *gdiff = 0;
    golden_sha256_init(&s);
    for (base = 0; base < 0x10000u; base += GOLDEN_BLOCK) {
        for (i = 0; i < GOLDEN_BLOCK; i++) in[i] = (uint16_t)(base + i);
        f(out, in, GOLDEN_BLOCK);
        for (i = 0; i < GOLDEN_BLOCK; i++) {
            bytes[2 * i] = (unsigned char)out[i];
            bytes[2 * i + 1] = (unsigned char)(out[i] >> 8);
        }
        golden_sha256_update(&s, bytes, sizeof bytes);
        if (!g) continue;
        g(out2, in, GOLDEN_BLOCK);
        for (i = 0; i < GOLDEN_BLOCK; i++)
            if (out[i] != out2[i]) {
                if (*gdiff == 0)
                    fprintf(stderr, "  second form differs, first in=0x%04x: 0x%04x vs 0x%04x\n",
                            (unsigned)in[i], (unsigned)out[i], (unsigned)out2[i]);
                ++*gdiff;
            }
    }
    golden_sha256_final(&s, digest);
}

/* ---- Reductions ---- */

/* The data: for each kind, arrays A and B of GOLDEN_DATALEN floats (B from
   another stream, for the second operand of dots). */
typedef struct golden_data { float *a[GOLDEN_NKINDS], *b[GOLDEN_NKINDS]; } golden_data;

static int golden_data_make(golden_data *d)
{
    int k;
    memset(d, 0, sizeof *d);
    for (k = 0; k < GOLDEN_NKINDS; k++) {
        d->a[k] = (float *)malloc(sizeof(float) * GOLDEN_DATALEN);
        d->b[k] = (float *)malloc(sizeof(float) * GOLDEN_DATALEN);
        if (!d->a[k] || !d->b[k]) return -1;
        golden_fill(d->a[k], GOLDEN_DATALEN, k, GOLDEN_SEED_DATA);
        golden_fill(d->b[k], GOLDEN_DATALEN, k, ~GOLDEN_SEED_DATA);
    }
    return 0;
}

static void golden_data_free(golden_data *d)
{
    int k;
    for (k = 0; k < GOLDEN_NKINDS; k++) { free(d->a[k]); free(d->b[k]); }
}

/* Index results are hashed as 8 little-endian bytes, "no index"
   ((size_t)-1, REPDL_NO_INDEX) as 2^64 - 1 whatever the width of size_t. */
static void golden_put_result(golden_sha256 *s, int ret, const void *p)
{
    unsigned char bytes[8];
    if (ret == GOLDEN_IDX) {
        size_t i;
        uint64_t v;
        memcpy(&i, p, sizeof i);
        v = i == (size_t)-1 ? ~(uint64_t)0 : (uint64_t)i;
        golden_put32(bytes, (uint32_t)v);
        golden_put32(bytes + 4, (uint32_t)(v >> 32));
        golden_sha256_update(s, bytes, 8);
    } else {
        float f;
        memcpy(&f, p, 4);
        golden_put32(bytes, golden_bits_of(f));
        golden_sha256_update(s, bytes, 4);
    }
}

static size_t golden_absz(ptrdiff_t v) { return (size_t)(v < 0 ? -v : v); }

/* The hash of a reduction over every length of golden_lengths whose span
   (n - 1) * max(|incx|, |incy|) + 1 fits in GOLDEN_MAXLEN (all lengths for
   contiguous ops).  Operand x is read from the kind's array A at window
   golden_window(n, 0), y from B at golden_window(n, 1); with a negative
   stride the pointer is at the window's last used element, so element i
   is x[i * incx] as BLAS has it. */
static void golden_reduce(const golden_data *d, int kind, golden_red red, int ret,
                          ptrdiff_t incx, ptrdiff_t incy, unsigned char digest[32])
{
    size_t len[GOLDEN_NLENGTHS_MAX], nl = golden_lengths(len), c;
    size_t inc = golden_absz(incx) > golden_absz(incy) ? golden_absz(incx) : golden_absz(incy);
    golden_sha256 s;
    golden_sha256_init(&s);
    for (c = 0; c < nl; c++) {
        size_t n = len[c];
        const float *x = d->a[kind] + golden_window(n, 0);
        const float *y = d->b[kind] + golden_window(n, 1);
        union { float f; size_t i; } out;
        if (n > 0 && (n - 1) * inc + 1 > GOLDEN_MAXLEN) continue;
        if (n > 0 && incx < 0) x += (n - 1) * golden_absz(incx);
        if (n > 0 && incy < 0) y += (n - 1) * golden_absz(incy);
        red(x, incx, y, incy, n, &out);
        golden_put_result(&s, ret, &out);
    }
    golden_sha256_final(&s, digest);
}

/* The hash of a batched op over every shape of golden_shapes, rows
   x[r * ldx ..] with ldx = cols + 1, y[r * ldy ..] with ldy = cols + 3 (so
   rows are not contiguous and start at every alignment), windows
   golden_window(rows * cols, 2) and (.., 3).  Returns -1 when out of
   memory. */
static int golden_rows(const golden_data *d, int kind, golden_batch batch, int ret,
                       unsigned char digest[32])
{
    golden_sha256 s;
    int c;
    golden_sha256_init(&s);
    for (c = 0; c < GOLDEN_NSHAPES; c++) {
        size_t rows = golden_shapes[c].rows, cols = golden_shapes[c].cols, r;
        size_t n = rows * cols, size = ret == GOLDEN_IDX ? sizeof(size_t) : sizeof(float);
        const float *x = d->a[kind] + golden_window(n, 2);
        const float *y = d->b[kind] + golden_window(n, 3);
        unsigned char *out = (unsigned char *)malloc(size * (rows + 1));
        if (!out) return -1;
        batch(x, cols + 1, y, cols + 3, rows, cols, out);
        for (r = 0; r < rows; r++) golden_put_result(&s, ret, out + r * size);
        free(out);
    }
    golden_sha256_final(&s, digest);
    return 0;
}

/* The sets of hashes, chosen on the command line (--sets):
     base  binary32 tables of expf, logf, tanhf, sqrtf, at stride S (--stride)
     more  binary32 tables of the other correctly rounded functions, at
           stride S2 (--stride-more, default 4096)
     half  16-bit tables, all 2^16 inputs, bf16 and f16
     red   reductions and batched rows */
enum { GOLDEN_SET_BASE, GOLDEN_SET_MORE, GOLDEN_SET_HALF, GOLDEN_SET_RED, GOLDEN_NSETS };
static const char *const golden_set_name[GOLDEN_NSETS] = {"base", "more", "half", "red"};

/* An operation of the golden set, as a program provides it: a binary32
   table (map, and optionally map2, a second form that must give the same
   bits), a 16-bit table (map16 and optionally map16b, likewise), a
   reduction (red, with strides incx, incy: 1 for contiguous ops) or a
   batched op (batch). */
typedef struct golden_op {
    const char *name;      /* "expf", "exp_bf16", "sum_f32", "sum_rows_f32" */
    golden_map map, map2;
    golden_red red;
    golden_batch batch;
    int ret;               /* GOLDEN_F32 or GOLDEN_IDX */
    ptrdiff_t incx, incy;
    golden_map16 map16, map16b;
    int set;               /* GOLDEN_SET_* */
} golden_op;

#define GOLDEN_OP_MAP(name, f, g) {name, f, g, NULL, NULL, GOLDEN_F32, 1, 1, NULL, NULL, GOLDEN_SET_BASE}
#define GOLDEN_OP_MAP_MORE(name, f, g) {name, f, g, NULL, NULL, GOLDEN_F32, 1, 1, NULL, NULL, GOLDEN_SET_MORE}
#define GOLDEN_OP_MAP16(name, f, g) {name, NULL, NULL, NULL, NULL, GOLDEN_F32, 1, 1, f, g, GOLDEN_SET_HALF}
#define GOLDEN_OP_RED(name, r, ret) {name, NULL, NULL, r, NULL, ret, 1, 1, NULL, NULL, GOLDEN_SET_RED}
#define GOLDEN_OP_STRIDED(name, r, incx, incy) \
    {name, NULL, NULL, r, NULL, GOLDEN_F32, incx, incy, NULL, NULL, GOLDEN_SET_RED}
#define GOLDEN_OP_ROWS(name, b, ret) {name, NULL, NULL, NULL, b, ret, 1, 1, NULL, NULL, GOLDEN_SET_RED}
#define GOLDEN_OP_END {NULL, NULL, NULL, NULL, NULL, GOLDEN_F32, 1, 1, NULL, NULL, GOLDEN_SET_RED}

/* ---- Names ---- */

/* Table name at stride 2^log2s: "expf/s256", or "expf/full" for 2^0; a
   16-bit table is "exp_bf16/all". */
static void golden_table_name(char *buf, size_t size, const char *f, unsigned log2s)
{
    if (log2s == 0) snprintf(buf, size, "%s/full", f);
    else snprintf(buf, size, "%s/s%lu", f, 1ul << log2s);
}

/* One reduction as a red_NAME function of the common signature, writing
   its float (RED1) or size_t (REDI) result to out; golden.c binds EXPR to
   the library, derive.c to the reference definitions. */
#define RED1(NAME, EXPR)                                                      \
    static void red_##NAME(const float *x, ptrdiff_t incx, const float *y,    \
                           ptrdiff_t incy, size_t n, void *out)               \
    { float r = (EXPR); (void)incx; (void)y; (void)incy; memcpy(out, &r, sizeof r); }
#define REDI(NAME, EXPR)                                                      \
    static void red_##NAME(const float *x, ptrdiff_t incx, const float *y,    \
                           ptrdiff_t incy, size_t n, void *out)               \
    { size_t r = (EXPR); (void)incx; (void)y; (void)incy; memcpy(out, &r, sizeof r); }

#endif /* REPDL_TESTS_GOLDEN_CORE_H */
