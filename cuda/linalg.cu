/* SPDX-License-Identifier: MIT */
/* cuda/linalg.cu: repdl's matrix products on the GPU (gemm, linear, conv2d),
   bit for bit equal to include/repdl/gemm.h, linear.h and conv2d.h on the
   host, for any grid, batch or workspace size (docs/cuda-linalg.md).

   One FFMA kernel does every product: the tile of cuda/gemm_tile.cuh
   (128 x 128 block tile, 8 x 8 register tile a thread, k panels of 8 in
   double-buffered shared memory, float4 loads where aligned), whose every
   element is the pinned chain acc = __fmaf_rn(a_ik, b_kj, acc), k
   ascending, from bias / -0 / the existing C.  No split-K, no tensor
   cores, no TF32: every float operation is a config.h primitive, and the
   PTX is the same under --fmad=true and --fmad=false
   (tests/cuda/check_ptx.sh).

   The reductions over the batch (linear dW, db; conv2d dw, db) follow the
   batch order (docs/canonical-order.md, "The batch order"; accum.h):
   micro-batches of REPDL_MICROBATCH = 16 samples, each reduced alone in
   the output's chain order from -0, the micro-batch values added by the
   aligned buddy tree, the root's NaN canonical.  A batch of at most 16
   samples is one micro-batch: the plain chain, computed as before.
   Linear: forward = gemm(0, 1), dx = gemm(0, 0); dW = gemm(1, 0) when
   M <= 16, else the micro-batch chains (a batched gemm, K = 16 each, the
   short last micro-batch its own launch) into a workspace of partial
   matrices and mb_tree_kernel's tree over them; db one thread a column:
   a fadd chain per micro-batch into the thread's repdl__tree.
   Conv2d (explicit im2col into a stream-ordered workspace, a batch of
   images at a time):
     forward  col_b = im2col(x_b); y_b = w col_b from bias[o] (batched gemm);
     dw       for each image of a micro-batch in order: P = dy_n col_n^T,
              the chain of each image after the micro-batch's first going
              on from P (GEMM_INIT_C): the chain over (n in g, p, q),
              n-major, of conv2d.h; P is dw itself when n <= 16, else a
              partial matrix of the workspace, and mb_tree_kernel adds the
              partials by the tree;
     dx       dcol_b = w^T dy_b (batched gemm), then col2im: one thread an
              input element, fadd chain from -0 over kidx ascending;
     db       one warp a channel: fadd chain over (n in g, p, q) per
              micro-batch, values fetched 32 at a time and broadcast by
              shuffles, the micro-batch values into a repdl__tree.
   The tree workspace (mb_tree_run): `group` partial matrices of the
   output's size, group = cap / output bytes in [1, G] (cap: conv2d's
   workspace_bytes or 256 MiB), plus bitlen(G) matrices of pending tree
   nodes when group < G (G micro-batches in groups of `group`, the tree's
   state carried between groups). */
#include "common.cuh"
#include "gemm_conv.cuh"
#include "gemm_tile.cuh"

namespace repdl_cuda {

/* The executor of gemm_tile.cuh on the device: a call plays one thread. */
struct gemm_dev_exec {
    enum { LANES = 1 };
    __device__ __forceinline__ int tid(int) const { return (int)threadIdx.x; }
    __device__ __forceinline__ void sync() const { __syncthreads(); }
    __device__ __forceinline__ void store(float *p, float v) const { *p = v; }
};

__global__ void __launch_bounds__(GEMM_NT) gemm_kernel(gemm_args a)
{
    __shared__ __align__(16) gemm_smem sm;
    gemm_dev_exec x;
    gemm_block(a, blockIdx.x, blockIdx.y, blockIdx.z, gridDim.x, gridDim.y, gridDim.z, &sm, x);
}

/* The default configuration. */
static const repdl_cuda_gemm_config default_cfg = {0, 0, 0, 0, 0};

/* Launches the product a (sizes, pointers, strides set; tiles, vector
   flags and grid filled here).  M, N, batch > 0. */
static int launch_gemm(gemm_args a, cudaStream_t s, const repdl_cuda_gemm_config *cfg)
{
    a.mt = gemm_tiles(a.M, GEMM_BM);
    a.nt = gemm_tiles(a.N, GEMM_BN);
    a.vecA = !cfg->scalar_loads && a.K > 0 && gemm_vec_ok(a.A, a.lda, a.sA, a.batch);
    a.vecB = !cfg->scalar_loads && a.K > 0 && gemm_vec_ok(a.B, a.ldb, a.sB, a.batch);
    gemm_grid g = gemm_plan_grid(a, cfg->grid_x, cfg->grid_y, cfg->grid_z);
    gemm_kernel<<<dim3(g.x, g.y, g.z), GEMM_NT, 0, s>>>(a);
    return check_launch();
}

/* *cp: NULL becomes the default configuration; REPDL_ERR_INVALID when out
   of range. */
static int check_gemm_cfg(const repdl_cuda_gemm_config **cp)
{
    if (!*cp) *cp = &default_cfg;
    const repdl_cuda_gemm_config *c = *cp;
    if (c->scalar_loads > 1) return REPDL_ERR_INVALID;
    if (c->grid_x > 0x7fffffffu || c->grid_y > 65535u || c->grid_z > 65535u)
        return REPDL_ERR_INVALID;
    return REPDL_OK;
}

/* Bytes of a rows x cols matrix at stride ld (0 when empty or on overflow:
   *ok is cleared on overflow). */
static size_t mat_bytes(size_t rows, size_t cols, size_t ld, int *ok)
{
    if (rows == 0 || cols == 0) return 0;
    size_t b = span_bytes(ld, rows, cols);
    if (b == 0) *ok = 0;
    return b;
}

/* The checks of a product (argument rules, byte counts, overlaps, the
   device) and its gemm_args: REPDL_OK with *a filled, or *empty = 1 when
   there is nothing to compute (M == 0 or N == 0), or an error status. */
static int gemm_prepare(int transA, int transB, size_t M, size_t N, size_t K, float alpha,
                        const float *A, size_t lda, const float *B, size_t ldb,
                        const float *bias, float beta, float *C, size_t ldc, gemm_args *a,
                        int *empty)
{
    *empty = 0;
    if (M == 0 || N == 0) {
        *empty = 1;
        return REPDL_OK;
    }
    if (!C || ldc < N) return REPDL_ERR_INVALID;
    int ok = 1;
    size_t cb = mat_bytes(M, N, ldc, &ok), ab = 0, bb = 0, biasb = 0;
    if (K > 0) {
        if (!A || !B) return REPDL_ERR_INVALID;
        if (lda < (transA ? M : K) || ldb < (transB ? K : N)) return REPDL_ERR_INVALID;
        ab = mat_bytes(transA ? K : M, transA ? M : K, lda, &ok);
        bb = mat_bytes(transB ? N : K, transB ? K : N, ldb, &ok);
    }
    if (bias) biasb = mat_bytes(1, N, N, &ok);
    if (!ok) return REPDL_ERR_OVERFLOW;
    if (overlap(C, cb, A, ab) || overlap(C, cb, B, bb) || overlap(C, cb, bias, biasb))
        return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    memset(a, 0, sizeof *a);
    a->M = M; a->N = N; a->K = K; a->batch = 1;
    a->A = A; a->lda = lda; a->B = B; a->ldb = ldb;
    a->bias = bias; a->C = C; a->ldc = ldc;
    a->alpha = alpha; a->beta = beta;
    a->transA = transA != 0; a->transB = transB != 0;
    a->init = bias ? GEMM_INIT_BIAS_COL : GEMM_INIT_ZERO;
    return REPDL_OK;
}

static int gemm_checked(int transA, int transB, size_t M, size_t N, size_t K, float alpha,
                        const float *A, size_t lda, const float *B, size_t ldb,
                        const float *bias, float beta, float *C, size_t ldc, void *stream,
                        const repdl_cuda_gemm_config *cfg)
{
    REPDL_CUDA_TRY(check_gemm_cfg(&cfg));
    gemm_args a;
    int empty;
    REPDL_CUDA_TRY(gemm_prepare(transA, transB, M, N, K, alpha, A, lda, B, ldb, bias, beta, C,
                                ldc, &a, &empty));
    if (empty) return REPDL_OK;
    return launch_gemm(a, as_stream(stream), cfg);
}

/* ---- Column sums (linear db), batch order ----
   db[n] = the buddy tree over micro-batches g of (fadd chain over m in g,
   ascending, of dy[m][n], from -0): one thread a column, the tree in the
   thread's repdl__tree (accum.h, the host's binary counter).  M <= 16:
   one micro-batch, the root is its chain: the plain column chain. */
__global__ void __launch_bounds__(256) colsum_kernel(const float *dy, size_t M, size_t N,
                                                     float *db)
{
    for (size_t n = (size_t)blockIdx.x * blockDim.x + threadIdx.x; n < N;
         n += (size_t)gridDim.x * blockDim.x) {
        repdl__tree tr;
        repdl__tree_init(&tr);
        for (size_t m0 = 0; m0 < M; m0 += REPDL_MICROBATCH) {
            size_t m1 = repdl__mb_end(M, m0);
            float acc = -0.0f;
            for (size_t m = m0; m < m1; m++) acc = repdl__fadd(acc, dy[m * N + n]);
            repdl__tree_push(&tr, 0, acc);
        }
        db[n] = repdl__canon(repdl__tree_root(&tr));
    }
}

static unsigned blocks_for(size_t work, unsigned threads)
{
    return grid_blocks(work, threads, 65535u * 16u); /* the rest by grid-stride */
}

/* ---- The tree over micro-batches (dW of linear, dw of conv2d) ----
   The micro-batch values of a V-element output come as partial matrices
   (one a micro-batch, the chains of the gemm tile restricted to the
   micro-batch's samples) in a workspace of `group` of them; after each
   group, mb_tree_kernel adds them into the per-element buddy tree.  The
   tree of element e is repdl__tree's binary counter (accum.h, the host's
   and reduce.cu's): its pending nodes, one per set bit of the count of
   micro-batches already in (the same count for every element), live in
   `slots` (level l at slots + l V) between groups; within a group they are
   in the thread's repdl__tree.  The last group writes the root, NaN
   canonical.  Every element walks the same counter, so the additions are
   the host's repdl__vtree ones, left operand first. */
__global__ void __launch_bounds__(256) mb_tree_kernel(const float *parts, size_t np, size_t V,
                                                      size_t count0, float *slots, float *out,
                                                      int last)
{
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < V;
         e += (size_t)gridDim.x * blockDim.x)
        mb_tree_element(parts, np, V, count0, slots, out, last, e); /* gemm_conv.cuh */
}

/* Runs the batch order for an output of V > 0 elements (out, contiguous)
   over G >= 1 micro-batches: fill(g0, gn, parts) computes the values of
   micro-batches g0 .. g0 + gn - 1 into parts + (g - g0) V (REPDL_OK or a
   status).  Workspace: `group` partial matrices, group = cap / (V floats)
   clamped to [1, G], and, when group < G, the pending nodes of the tree:
   bitlen(G) more matrices of V floats.  Both stream-ordered
   (workspace_alloc); a failed allocation returns REPDL_ERR_NOMEM (or
   REPDL_ERR_CUDA) before anything is written to out. */
template <class Fill>
static int mb_tree_run(size_t G, size_t V, size_t cap, float *out, cudaStream_t s, Fill fill)
{
    size_t per = V * sizeof(float); /* callers checked V floats fit in bytes */
    size_t group = cap / per, sb = 0;
    if (group < 1) group = 1;
    if (group > G) group = G;
    if (group < G) {
        unsigned S = 0;
        while (S < 64 && (G >> S) != 0) S++; /* bit length of G */
        if (!mul_ok(per, S, &sb)) return REPDL_ERR_OVERFLOW;
    }
    float *parts = NULL, *slots = NULL;
    cudaError_t e = workspace_alloc((void **)&parts, group * per, s);
    if (e != cudaSuccess) return fail_alloc(e);
    e = workspace_alloc((void **)&slots, sb, s);
    if (e != cudaSuccess) {
        workspace_free(parts, s);
        return fail_alloc(e);
    }
    int rc = REPDL_OK;
    for (size_t g0 = 0; g0 < G && rc == REPDL_OK; g0 += group) {
        size_t gn = G - g0 < group ? G - g0 : group;
        rc = fill(g0, gn, parts);
        if (rc == REPDL_OK)
            rc = launch(mb_tree_kernel, blocks_for(V, 256), 256, s, parts, gn, V, g0, slots, out,
                        (int)(g0 + gn == G));
    }
    e = workspace_free(slots, s);
    if (e != cudaSuccess && rc == REPDL_OK) rc = fail_cuda(e);
    e = workspace_free(parts, s);
    if (e != cudaSuccess && rc == REPDL_OK) rc = fail_cuda(e);
    return rc;
}

/* ---- Conv2d pieces ---- */

/* col[b][kidx][pq] = x_tap of image img0 + b, b < nb (gemm_conv.cuh). */
template <class I>
__global__ void __launch_bounds__(256) im2col_kernel(conv_geom g, const float *x, size_t img0,
                                                     size_t nb, float *col)
{
    I total = (I)(nb * g.CK * g.P);
    for (I e = (I)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (I)gridDim.x * blockDim.x)
        col[e] = conv_im2col_at<I>(g, x, img0, e);
}

/* dx of images img0 + b, b < nb, from dcol[b] [CK][P] (gemm_conv.cuh). */
template <class I>
__global__ void __launch_bounds__(256) col2im_kernel(conv_geom g, const float *dcol, size_t img0,
                                                     size_t nb, float *dx)
{
    I total = (I)(nb * g.in_sz);
    for (I e = (I)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (I)gridDim.x * blockDim.x)
        dx[img0 * g.in_sz + (size_t)e] = conv_col2im_at<I>(g, dcol, e);
}

/* db[o] = the buddy tree over micro-batches g (REPDL_MICROBATCH images)
   of (fadd chain over (n in g, p, q), n-major, of dy[n][o][pq], from -0):
   one warp a channel; each step reads 32 values (coalesced) and every lane
   runs the same chain over them, in order, through shuffles, and pushes
   the same micro-batch values into its own repdl__tree (lane 0 writes).
   n <= 16: one micro-batch, the plain chain. */
__global__ void __launch_bounds__(256) conv_db_kernel(conv_geom g, const float *dy, float *db)
{
    unsigned lane = threadIdx.x % 32;
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    size_t warps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t o = warp; o < g.oc; o += warps) {
        repdl__tree tr;
        repdl__tree_init(&tr);
        for (size_t i0 = 0; i0 < g.n; i0 += REPDL_MICROBATCH) {
            size_t i1 = repdl__mb_end(g.n, i0);
            float acc = -0.0f;
            for (size_t img = i0; img < i1; img++) {
                const float *row = dy + (img * g.oc + o) * g.P;
                for (size_t i = 0; i < g.P; i += 32) {
                    float v = i + lane < g.P ? row[i + lane] : 0.0f;
                    unsigned cnt = g.P - i < 32 ? (unsigned)(g.P - i) : 32u;
                    for (unsigned u = 0; u < cnt; u++)
                        acc = repdl__fadd(acc, __shfl_sync(0xffffffffu, v, (int)u));
                }
            }
            repdl__tree_push(&tr, 0, acc);
        }
        if (lane == 0) db[o] = repdl__canon(repdl__tree_root(&tr));
    }
}

static const size_t DEFAULT_WORKSPACE = (size_t)256 << 20;

static int conv_geometry(const repdl_conv2d_shape *s, conv_geom *g)
{
    repdl_status st = repdl__conv2d_check(s); /* the host's check: same statuses */
    if (st != REPDL_OK) return st;
    /* every size below must fit size_t, in bytes too */
    size_t t, u, b;
    if (!mul_ok(2, s->pad_h, &t) || s->h > (size_t)-1 - t) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(2, s->pad_w, &t) || s->w > (size_t)-1 - t) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->dil_h, s->kh, &t) || !mul_ok(s->dil_w, s->kw, &t))
        return REPDL_ERR_OVERFLOW;
    size_t oh = repdl_conv2d_out_h(s), ow = repdl_conv2d_out_w(s), P, CK, in_sz, out_sz;
    if (!mul_ok(oh, ow, &P)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->c, s->kh, &t) || !mul_ok(t, s->kw, &CK)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->c, s->h, &t) || !mul_ok(t, s->w, &in_sz)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->oc, P, &out_sz)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->n, in_sz, &t) || !mul_ok(t, sizeof(float), &b)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->n, out_sz, &t) || !mul_ok(t, sizeof(float), &b)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->oc, CK, &t) || !mul_ok(t, sizeof(float), &b)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(CK, P, &t) || !mul_ok(t, sizeof(float), &b)) return REPDL_ERR_OVERFLOW;
    /* tap coordinates p sh + r dh stay far from overflow */
    if (!mul_ok(oh, s->stride_h, &t) || !mul_ok(s->kh, s->dil_h, &u) || t > (size_t)-1 / 4 ||
        u > (size_t)-1 / 4)
        return REPDL_ERR_OVERFLOW;
    if (!mul_ok(ow, s->stride_w, &t) || !mul_ok(s->kw, s->dil_w, &u) || t > (size_t)-1 / 4 ||
        u > (size_t)-1 / 4)
        return REPDL_ERR_OVERFLOW;
    *g = conv_geom_of(s);
    return REPDL_OK;
}

/* Images a workspace chunk holds: at least 1, at most n. */
static size_t chunk_images(const conv_geom &g, const repdl_cuda_gemm_config *cfg)
{
    size_t cap = cfg->workspace_bytes ? cfg->workspace_bytes : DEFAULT_WORKSPACE;
    size_t per = g.CK * g.P * sizeof(float); /* no overflow: conv_geometry */
    size_t nb = per ? cap / per : g.n;
    if (nb < 1) nb = 1;
    if (nb > g.n) nb = g.n;
    return nb;
}

static int launch_im2col(const conv_geom &g, const float *x, size_t img0, size_t nb, float *col,
                         cudaStream_t s)
{
    size_t total = nb * g.CK * g.P;
    if (total == 0) return REPDL_OK;
    bool narrow = total < 0xffffffffu && g.CK * g.P < 0xffffffffu;
    return launch(narrow ? im2col_kernel<uint32_t> : im2col_kernel<size_t>,
                  blocks_for(total, 256), 256, s, g, x, img0, nb, col);
}

static int launch_col2im(const conv_geom &g, const float *dcol, size_t img0, size_t nb,
                         float *dx, cudaStream_t s)
{
    size_t total = nb * g.in_sz;
    if (total == 0) return REPDL_OK;
    return launch(total < 0xffffffffu ? col2im_kernel<uint32_t> : col2im_kernel<size_t>,
                  blocks_for(total, 256), 256, s, g, dcol, img0, nb, dx);
}

static int conv_forward(const repdl_conv2d_shape *sh, const float *x, const float *w,
                        const float *b, float *y, void *stream,
                        const repdl_cuda_gemm_config *cfg)
{
    conv_geom g;
    REPDL_CUDA_TRY(check_gemm_cfg(&cfg));
    REPDL_CUDA_TRY(conv_geometry(sh, &g));
    if (g.n == 0 || g.oc == 0 || g.P == 0) return REPDL_OK;
    if (!y || (g.CK && !w) || (g.CK && g.in_sz && !x)) return REPDL_ERR_INVALID;
    size_t yb = g.n * g.out_sz * sizeof(float);
    if (overlap(y, yb, x, g.n * g.in_sz * sizeof(float)) ||
        overlap(y, yb, w, g.oc * g.CK * sizeof(float)) ||
        overlap(y, yb, b, b ? g.oc * sizeof(float) : 0))
        return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    cudaStream_t s = as_stream(stream);

    gemm_args a;
    memset(&a, 0, sizeof a);
    a.M = g.oc; a.N = g.P; a.K = g.CK;
    a.A = w; a.lda = g.CK; a.sA = 0;
    a.ldb = g.P; a.sB = g.CK * g.P;
    a.bias = b; a.sBias = 0;
    a.ldc = g.P; a.sC = g.out_sz;
    a.alpha = 1.0f; a.beta = 0.0f;
    a.init = b ? GEMM_INIT_BIAS_ROW : GEMM_INIT_ZERO;
    if (g.CK == 0) { /* no taps: y = b or -0 */
        a.batch = g.n; a.C = y;
        return launch_gemm(a, s, cfg);
    }
    size_t nb = chunk_images(g, cfg);
    float *ws = NULL;
    int rc = REPDL_OK;
    cudaError_t e = workspace_alloc((void **)&ws, nb * g.CK * g.P * sizeof(float), s);
    if (e != cudaSuccess) return fail_alloc(e);
    for (size_t img0 = 0; img0 < g.n && rc == REPDL_OK; img0 += nb) {
        size_t cnt = g.n - img0 < nb ? g.n - img0 : nb;
        rc = launch_im2col(g, x, img0, cnt, ws, s);
        if (rc != REPDL_OK) break;
        a.B = ws; a.batch = cnt; a.C = y + img0 * g.out_sz;
        rc = launch_gemm(a, s, cfg);
    }
    e = workspace_free(ws, s);
    if (e != cudaSuccess && rc == REPDL_OK) rc = fail_cuda(e);
    return rc;
}

static int conv_backward(const repdl_conv2d_shape *sh, const float *x, const float *w,
                         const float *dy, float *dx, float *dw, float *db, void *stream,
                         const repdl_cuda_gemm_config *cfg)
{
    conv_geom g;
    REPDL_CUDA_TRY(check_gemm_cfg(&cfg));
    REPDL_CUDA_TRY(conv_geometry(sh, &g));
    /* the host's argument rules (conv2d.h) */
    if (g.n && g.oc && g.P && !dy) return REPDL_ERR_INVALID;
    if (dx && g.n && g.in_sz && g.oc && g.P && !w) return REPDL_ERR_INVALID;
    if (dw && g.n && g.CK && g.P && g.oc && !x && g.in_sz) return REPDL_ERR_INVALID;
    size_t xb = g.n * g.in_sz * sizeof(float), dyb = g.n * g.out_sz * sizeof(float);
    size_t wb = g.oc * g.CK * sizeof(float), bb = g.oc * sizeof(float);
    const void *ins[3] = {x, w, dy};
    size_t inb[3] = {xb, wb, dyb};
    for (int i = 0; i < 3; i++) {
        if (dx && overlap(dx, xb, ins[i], inb[i])) return REPDL_ERR_INVALID;
        if (dw && overlap(dw, wb, ins[i], inb[i])) return REPDL_ERR_INVALID;
        if (db && overlap(db, bb, ins[i], inb[i])) return REPDL_ERR_INVALID;
    }
    int need_db = db && g.oc;
    int need_dw = dw && g.oc && g.CK;
    int need_dx = dx && g.n && g.in_sz;
    if (!need_db && !need_dw && !need_dx) return REPDL_OK;
    REPDL_CUDA_TRY(device_ready());
    cudaStream_t s = as_stream(stream);

    if (need_db)
        REPDL_CUDA_TRY(launch(conv_db_kernel, blocks_for(g.oc * 32, 256), 256, s, g, dy, db));

    /* dw [OC x CK]: image after image, each continuing the chains. */
    gemm_args a;
    memset(&a, 0, sizeof a);
    a.alpha = 1.0f; a.beta = 0.0f; a.batch = 1;
    a.M = g.oc; a.N = g.CK; a.K = g.P;
    a.lda = g.P; a.transB = 1; a.ldb = g.P; a.C = dw; a.ldc = g.CK;
    if (need_dw && (g.n == 0 || g.P == 0)) { /* empty chains: -0 */
        a.K = 0; a.init = GEMM_INIT_ZERO;
        REPDL_CUDA_TRY(launch_gemm(a, s, cfg));
        need_dw = 0;
    }
    if (need_dx && (g.P == 0 || g.CK == 0)) { /* no taps: -0 everywhere */
        REPDL_CUDA_TRY(launch_col2im(g, NULL, 0, g.n, dx, s));
        need_dx = 0;
    }
    if (!need_dw && !need_dx) return REPDL_OK;

    size_t nb = chunk_images(g, cfg);
    float *ws = NULL;
    int rc = REPDL_OK;
    cudaError_t e = workspace_alloc((void **)&ws, nb * g.CK * g.P * sizeof(float), s);
    if (e != cudaSuccess) return fail_alloc(e);
    /* The chains of images [i0, i1) into C (the first from -0, the others
       going on), their columns im2col'd nb at a time. */
    auto dw_chains = [&](size_t i0, size_t i1, float *C) -> int {
        int r = REPDL_OK;
        a.C = C;
        for (size_t img0 = i0; img0 < i1 && r == REPDL_OK; img0 += nb) {
            size_t cnt = i1 - img0 < nb ? i1 - img0 : nb;
            r = launch_im2col(g, x, img0, cnt, ws, s);
            for (size_t i = 0; i < cnt && r == REPDL_OK; i++) {
                size_t img = img0 + i;
                a.A = dy + img * g.out_sz;
                a.B = ws + i * g.CK * g.P;
                a.init = img == i0 ? GEMM_INIT_ZERO : GEMM_INIT_C;
                r = launch_gemm(a, s, cfg);
            }
        }
        return r;
    };
    if (need_dw) {
        size_t G = repdl__mb_count(g.n);
        if (G <= 1) { /* one micro-batch: the chains straight into dw */
            rc = dw_chains(0, g.n, dw);
        } else { /* the batch order: micro-batch chains, then the tree */
            size_t cap = cfg->workspace_bytes ? cfg->workspace_bytes : DEFAULT_WORKSPACE;
            size_t V = g.oc * g.CK;
            rc = mb_tree_run(G, V, cap, dw, s, [&](size_t g0, size_t gn, float *parts) -> int {
                int r = REPDL_OK;
                for (size_t k = 0; k < gn && r == REPDL_OK; k++) {
                    size_t i0 = (g0 + k) * REPDL_MICROBATCH;
                    size_t i1 = repdl__mb_end(g.n, i0);
                    r = dw_chains(i0, i1, parts + k * V);
                }
                return r;
            });
        }
    }
    /* dx: dcol_b [CK x P] = w^T [CK x OC] dy_b [OC x P], then col2im. */
    memset(&a, 0, sizeof a);
    a.alpha = 1.0f; a.beta = 0.0f; a.init = GEMM_INIT_ZERO;
    a.M = g.CK; a.N = g.P; a.K = g.oc;
    a.transA = 1; a.A = w; a.lda = g.CK; a.sA = 0;
    a.ldb = g.P; a.sB = g.out_sz;
    a.ldc = g.P; a.sC = g.CK * g.P; a.C = ws;
    for (size_t img0 = 0; need_dx && img0 < g.n && rc == REPDL_OK; img0 += nb) {
        size_t cnt = g.n - img0 < nb ? g.n - img0 : nb;
        a.B = g.oc ? dy + img0 * g.out_sz : NULL;
        a.batch = cnt;
        rc = launch_gemm(a, s, cfg);
        if (rc == REPDL_OK) rc = launch_col2im(g, ws, img0, cnt, dx, s);
    }
    e = workspace_free(ws, s);
    if (e != cudaSuccess && rc == REPDL_OK) rc = fail_cuda(e);
    return rc;
}

/* Linear dW [N x K] = dy^T [N x M] x [M x K] in the batch order: M <= 16,
   one product (the chains over m straight into dW); otherwise the chains
   of each micro-batch of REPDL_MICROBATCH rows (a batched product over the
   group's full micro-batches, K = 16 each, and one for the short last
   one), then mb_tree_run's tree.  The argument checks are the product's
   over the whole M. */
static int linear_dW(size_t M, size_t K, size_t N, const float *x, const float *dy, float *dW,
                     cudaStream_t s)
{
    const repdl_cuda_gemm_config *cfg = &default_cfg;
    gemm_args a;
    int empty;
    REPDL_CUDA_TRY(gemm_prepare(1, 0, N, K, M, 1.0f, dy, N, x, K, NULL, 0.0f, dW, K, &a, &empty));
    if (empty) return REPDL_OK;
    size_t G = repdl__mb_count(M);
    if (G <= 1) return launch_gemm(a, s, cfg);
    size_t V = N * K; /* dW's bytes were checked: no overflow */
    size_t last = M - (G - 1) * REPDL_MICROBATCH; /* rows of the last micro-batch, 1 .. 16 */
    return mb_tree_run(G, V, DEFAULT_WORKSPACE, dW, s, [&](size_t g0, size_t gn,
                                                         float *parts) -> int {
        gemm_args b = a;
        size_t full = gn;
        if (g0 + gn == G && last < REPDL_MICROBATCH) full--; /* the short one apart */
        b.K = REPDL_MICROBATCH;
        b.ldc = K; b.sC = V;
        b.sA = REPDL_MICROBATCH * N; b.sB = REPDL_MICROBATCH * K;
        if (full > 0) {
            b.A = dy + g0 * REPDL_MICROBATCH * N;
            b.B = x + g0 * REPDL_MICROBATCH * K;
            b.C = parts;
            b.batch = full;
            REPDL_CUDA_TRY(launch_gemm(b, s, cfg));
        }
        if (full < gn) {
            b.K = last;
            b.A = dy + (G - 1) * REPDL_MICROBATCH * N;
            b.B = x + (G - 1) * REPDL_MICROBATCH * K;
            b.C = parts + full * V;
            b.batch = 1;
            REPDL_CUDA_TRY(launch_gemm(b, s, cfg));
        }
        return REPDL_OK;
    });
}

} // namespace repdl_cuda

using namespace repdl_cuda;

extern "C" int repdl_cuda_gemm_f32(int transA, int transB, size_t M, size_t N, size_t K,
                                   float alpha, float beta, const float *A, size_t lda,
                                   const float *B, size_t ldb, const float *bias, float *C,
                                   size_t ldc, void *stream)
{
    return gemm_checked(transA, transB, M, N, K, alpha, A, lda, B, ldb, bias, beta, C, ldc,
                        stream, NULL);
}

extern "C" int repdl_cuda_gemm_config_f32(int transA, int transB, size_t M, size_t N, size_t K,
                                          const repdl_cuda_gemm_config *config, float alpha, float beta,
                                          const float *A, size_t lda, const float *B,
                                          size_t ldb, const float *bias, float *C, size_t ldc,
                                          void *stream)
{
    return gemm_checked(transA, transB, M, N, K, alpha, A, lda, B, ldb, bias, beta, C, ldc,
                        stream, config);
}

extern "C" int repdl_cuda_linear_forward_f32(size_t M, size_t K, size_t N, const float *x,
                                             const float *W, const float *b, float *y,
                                             void *stream)
{
    return gemm_checked(0, 1, M, N, K, 1.0f, x, K, W, K, b, 0.0f, y, N, stream, NULL);
}

extern "C" int repdl_cuda_linear_backward_f32(size_t M, size_t K, size_t N, const float *x,
                                              const float *W, const float *dy, float *dx,
                                              float *dW, float *db, void *stream)
{
    int rc = REPDL_OK;
    /* dx [M x K] = dy [M x N] W [N x K] */
    if (dx) rc = gemm_checked(0, 0, M, K, N, 1.0f, dy, N, W, K, NULL, 0.0f, dx, K, stream, NULL);
    /* dW [N x K] = dy^T [N x M] x [M x K], in the batch order */
    if (rc == REPDL_OK && dW) rc = linear_dW(M, K, N, x, dy, dW, as_stream(stream));
    if (rc == REPDL_OK && db && N > 0) {
        size_t dyb = 0, t;
        if (M > 0) {
            if (!mul_ok(M, N, &t) || !mul_ok(t, sizeof(float), &dyb)) return REPDL_ERR_OVERFLOW;
            if (!dy) return REPDL_ERR_INVALID;
        }
        if (overlap(db, N * sizeof(float), dy, dyb)) return REPDL_ERR_INVALID;
        REPDL_CUDA_TRY(device_ready());
        rc = launch(colsum_kernel, blocks_for(N, 256), 256, stream, dy, M, N, db);
    }
    return rc;
}

extern "C" int repdl_cuda_conv2d_forward_f32(const struct repdl_conv2d_shape *s, const float *x,
                                             const float *w, const float *b, float *y,
                                             void *stream)
{
    return conv_forward(s, x, w, b, y, stream, NULL);
}

extern "C" int repdl_cuda_conv2d_forward_config_f32(const struct repdl_conv2d_shape *s,
                                                    const repdl_cuda_gemm_config *config, const float *x,
                                                    const float *w, const float *b, float *y,
                                                    void *stream)
{
    return conv_forward(s, x, w, b, y, stream, config);
}

extern "C" int repdl_cuda_conv2d_backward_f32(const struct repdl_conv2d_shape *s,
                                              const float *x, const float *w, const float *dy,
                                              float *dx, float *dw, float *db, void *stream)
{
    return conv_backward(s, x, w, dy, dx, dw, db, stream, NULL);
}

extern "C" int repdl_cuda_conv2d_backward_config_f32(const struct repdl_conv2d_shape *s,
                                                     const repdl_cuda_gemm_config *config, const float *x,
                                                     const float *w, const float *dy, float *dx,
                                                     float *dw, float *db,
                                                     void *stream)
{
    return conv_backward(s, x, w, dy, dx, dw, db, stream, config);
}
