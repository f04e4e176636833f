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
   - reduction R/kind: for each length n of golden_lengths, in order, R over
     the window of n elements of the kind's data (golden_window), result as
     4 (float) or 8 (index) little-endian bytes; hash = SHA-256 of all.
   - batched R/kind: for each shape of golden_shapes, the rows results, in
     order, as 4 little-endian bytes each; hash = SHA-256 of all. */
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
/* reductions of one or two arrays of n floats */
typedef float (*golden_red1)(const float *x, size_t n);
typedef float (*golden_red2)(const float *x, const float *y, size_t n);
typedef size_t (*golden_redi)(const float *x, size_t n);
/* batched: out[r] = R(row r), rows of `cols` floats stored contiguously */
typedef void (*golden_rows1)(float *out, const float *x, size_t rows, size_t cols);
typedef void (*golden_rows2)(float *out, const float *x, const float *y, size_t rows, size_t cols);

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

/* One reduction hash over all lengths; exactly one of r1, r2, ri is set. */
static void golden_reduce(const golden_data *d, int kind, golden_red1 r1, golden_red2 r2,
                          golden_redi ri, unsigned char digest[32])
{
    size_t len[GOLDEN_NLENGTHS_MAX], nl = golden_lengths(len), c;
    golden_sha256 s;
    golden_sha256_init(&s);
    for (c = 0; c < nl; c++) {
        const float *x = d->a[kind] + golden_window(len[c], 0);
        const float *y = d->b[kind] + golden_window(len[c], 1);
        unsigned char bytes[8];
        if (ri) {
            uint64_t v = (uint64_t)ri(x, len[c]);
            golden_put32(bytes, (uint32_t)v);
            golden_put32(bytes + 4, (uint32_t)(v >> 32));
            golden_sha256_update(&s, bytes, 8);
        } else {
            golden_put32(bytes, golden_bits_of(r1 ? r1(x, len[c]) : r2(x, y, len[c])));
            golden_sha256_update(&s, bytes, 4);
        }
    }
    golden_sha256_final(&s, digest);
}

/* One batched hash over all shapes; exactly one of b1, b2 is set.  Returns
   -1 when out of memory. */
static int golden_rows(const golden_data *d, int kind, golden_rows1 b1, golden_rows2 b2,
                       unsigned char digest[32])
{
    golden_sha256 s;
    int c;
    golden_sha256_init(&s);
    for (c = 0; c < GOLDEN_NSHAPES; c++) {
        size_t rows = golden_shapes[c].rows, cols = golden_shapes[c].cols, r;
        size_t n = rows * cols;
        const float *x = d->a[kind] + golden_window(n, 2);
        const float *y = d->b[kind] + golden_window(n, 3);
        float *out = (float *)malloc(sizeof(float) * (rows + 1));
        unsigned char bytes[4];
        if (!out) return -1;
        if (b1) b1(out, x, rows, cols); else b2(out, x, y, rows, cols);
        for (r = 0; r < rows; r++) {
            golden_put32(bytes, golden_bits_of(out[r]));
            golden_sha256_update(&s, bytes, 4);
        }
        free(out);
    }
    golden_sha256_final(&s, digest);
    return 0;
}

/* ---- The list of hashes ---- */

/* An operation of the golden set, as a program provides it. */
typedef struct golden_op {
    const char *name;      /* "expf", "sum_f32", "sum_rows_f32" */
    golden_map map;        /* tables */
    golden_map map2;       /* tables: a second form (the array API), or NULL */
    golden_red1 r1;
    golden_red2 r2;
    golden_redi ri;
    golden_rows1 b1;
    golden_rows2 b2;
} golden_op;

/* Table name at stride 2^log2s: "expf/s256", or "expf/full" for 2^0. */
static void golden_table_name(char *buf, size_t size, const char *f, unsigned log2s)
{
    if (log2s == 0) snprintf(buf, size, "%s/full", f);
    else snprintf(buf, size, "%s/s%lu", f, 1ul << log2s);
}

#endif /* REPDL_TESTS_GOLDEN_CORE_H */
