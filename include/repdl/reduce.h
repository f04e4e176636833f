/* SPDX-License-Identifier: MIT */
/* repdl/reduce.h: canonical reductions of binary32 arrays: sum, dot, sum of
   squares, 2-norm, mean, variance (max, min, argmax, argmin are in
   reduce_minmax.h, included below).

   Every sum is evaluated in one order, a pure function of n: the canonical
   tree of docs/canonical-order.md, whose plainest implementation is
   reference/reduce_ref.h.  The same bits come out for any compiler, flags,
   vector width, thread count, CUDA grid or batch size.

     float s = repdl_sum_f32(n, x);
     float d = repdl_dot_f32(n, x, y);       each product rounded, then summed
     float m = repdl_mean_f32(n, x);         RN(sum / n), one rounding
     repdl_div_count_f32(n, B, g, g);        g[i] = RN(g[i] / B), the same division

   The tree (docs/canonical-order.md, sections 2 to 4):
     - leaves of REPDL_SUM_LEAF = 1024 consecutive elements, seen as
       REPDL_SUM_VECS = 16 vectors of REPDL_SUM_LANES = 64 lanes; the last
       leaf is padded with -0.0, which changes no sum (x + -0 == x for
       every x, -0 included);
     - inside a leaf the vectors combine by an adjacent pairwise tree of
       vertical (lane by lane) additions, then the 64 lanes fold by halving,
       a[v] = a[v] + a[v + h] for h = 32, 16, ..., 1;
     - the leaves combine by an aligned buddy tree: adjacent pairs, pairs of
       pairs, ...; a missing right sibling passes its left sibling up.
   Accuracy (section 5): |computed - exact| <= g(d) * sum |x_i|, with
   g(d) = d u / (1 - d u), u = 2^-24 and d = ceil(log2 n) (no overflow).

   Splitting (section 6): every power-of-two-aligned run of leaves is a
   subtree, and the value of such a block is the canonical sum of the block
   alone.  So repdl_sum_f32(c, x + b) computed anywhere (thread, CUDA block,
   MPI rank) for aligned blocks [b, b + c), then combined with
   repdl_sum_combine_f32 (equal blocks) or repdl_sum_state_* (any aligned
   blocks), gives repdl_sum_f32(n, x), bit for bit.

   Edge cases, every function: n == 0 reads nothing (x may be NULL); the sum
   of nothing is -0.0; every NaN result is 0x7fc00000.  Sizes and indices
   are size_t (64-bit), strides ptrdiff_t, in elements. */
#ifndef REPDL_REDUCE_H
#define REPDL_REDUCE_H

#include "config.h"
REPDL_BEGIN_CODE

/* The leaf, the buddy tree and the walks over arrays: the accumulation
   layer, which every canonical sum of repdl goes through. */
#include "detail/accum.h"

/* ---- Sum ---- */

/* The canonical sum of x[0..n).  -0.0 when n == 0. */
REPDL_FN float repdl__sum_f32(size_t n, const float *x)
{
    repdl__tree t;
    repdl__tree_init(&t);
    repdl__tree_sum_run(&t, n, x);
    return repdl__canon(repdl__tree_root(&t));
}
/* The value-returning reductions check the floating-point environment
   (canonical NaN when it would change the bits: docs/api.md, section 4)
   in the functions that compute; those that only pass another one's
   result on (sumsq, norm2, mean, var) get its NaN.  The row-wise forms
   check once per call and run the unchecked repdl__sum_f32 and
   repdl__dot_f32. */
REPDL_API float repdl_sum_f32(size_t n, const float *x)
{
    REPDL__FPENV_CHECK_OR(repdl__nanf());
    return repdl__sum_f32(n, x);
}

/* ---- Partial / combine API (docs/canonical-order.md, section 6) ----
   A block [begin, begin + count) is a node of the tree when begin is a
   multiple of 1024 * 2^k and count == 1024 * 2^k, or when it is the last
   block of the array (ends at n) and count <= 1024 * 2^k, for some k >= 0.
   Its value is the canonical sum of the block alone. */

/* Level k of a block of `count` elements: the least k with
   count <= 1024 * 2^k (count > 0). */
REPDL_FN unsigned repdl__sum_block_level(size_t count)
{
    size_t leaves = ((count - 1) >> REPDL_SUM_LEAF_LOG2) + 1;
    unsigned k = 0;
    while (((size_t)1 << k) < leaves) k++;
    return k;
}

/* 1 when [begin, begin + count) can be a node: begin is a multiple of
   1024 * 2^k, k = repdl__sum_block_level(count).  (Whether a short block
   is the last one, the caller knows.)  count == 0 is always fine. */
REPDL_API int repdl_sum_block_ok(size_t begin, size_t count)
{
    unsigned k;
    if (count == 0) return 1;
    k = repdl__sum_block_level(count);
    return (begin & ((((size_t)REPDL_SUM_LEAF) << k) - 1)) == 0;
}

/* The partial of the aligned block x[begin .. begin + count): equal to
   repdl_sum_f32(count, x + begin); the canonical NaN when the block cannot
   be a node (repdl_sum_block_ok fails), to catch misaligned splits. */
REPDL_API float repdl_sum_partial_f32(size_t begin, size_t count, const float *x)
{
    if (!repdl_sum_block_ok(begin, count)) return repdl__nanf();
    if (count == 0) return -0.0f;
    return repdl_sum_f32(count, x + begin);
}

/* Combines the partials of p consecutive equal blocks of 1024 * 2^k
   elements each (the last block may be shorter), block 0 starting at
   element 0: the buddy tree over the partials.  It is the same tree as over
   leaves, so combine(partials of blocks of x) == repdl_sum_f32(x).
   p == 0 gives -0.0.  The usual in-place GPU tree computes the same thing:
     for (s = 1; s < p; s *= 2)
       for (i = 0; i + s < p; i += 2 * s) part[i] = part[i] + part[i + s];
*/
REPDL_API float repdl_sum_combine_f32(size_t p, const float *partials)
{
    REPDL__FPENV_CHECK_OR(repdl__nanf());
    repdl__tree t;
    size_t i;
    repdl__tree_init(&t);
    for (i = 0; i < p; i++) repdl__tree_push(&t, 0, partials[i]);
    return repdl__canon(repdl__tree_root(&t));
}

/* Combining blocks of different sizes, in order (section 6):
     repdl_sum_state s;  repdl_sum_state_init(&s);
     repdl_sum_state_push(&s, 0, 4096, pa);      pa = sum of x[0..4096)
     repdl_sum_state_push(&s, 4096, 904, pb);    pb = sum of x[4096..5000)
     float total = repdl_sum_state_result(&s);   == repdl_sum_f32(5000, x)
   Blocks must come in order, start at 0, be consecutive and each be a node;
   a block shorter than 1024 * 2^k ends the array.  push returns 0, or -1
   (and the state is poisoned: result is NaN) for a block that breaks these
   rules. */
typedef struct repdl_sum_state {
    repdl__tree tree;
    size_t next;  /* the element where the next block must begin */
    int closed;   /* a short (last) block was pushed */
    int error;
} repdl_sum_state;

REPDL_API void repdl_sum_state_init(repdl_sum_state *s)
{
    repdl__tree_init(&s->tree);
    s->next = 0;
    s->closed = 0;
    s->error = 0;
}

REPDL_API int repdl_sum_state_push(repdl_sum_state *s, size_t begin, size_t count,
                                  float partial)
{
    unsigned k;
    if (s->error) return -1;
    if (REPDL_UNLIKELY(repdl__fpenv_bad())) { /* docs/api.md, section 4 */
        s->error = 1;
        return -1;
    }
    if (count == 0) return 0;
    if (s->closed || begin != s->next || !repdl_sum_block_ok(begin, count)) {
        s->error = 1;
        return -1;
    }
    k = repdl__sum_block_level(count);
    repdl__tree_push(&s->tree, k, partial);
    if (count != ((size_t)REPDL_SUM_LEAF << k)) s->closed = 1;
    s->next = begin + count;
    return 0;
}

REPDL_API float repdl_sum_state_result(const repdl_sum_state *s)
{
    REPDL__FPENV_CHECK_OR(repdl__nanf());
    if (s->error) return repdl__nanf();
    return repdl__canon(repdl__tree_root(&s->tree));
}

/* The first block of the canonical decomposition of [begin, end) into
   nodes: the largest 1024 * 2^k that divides begin and fits in
   [begin, end); or end - begin when less than a leaf remains (allowed only
   when end is the end of the array).  begin must be a multiple of 1024.
   Used to split a range of leaves between threads (reduce_threads.h). */
REPDL_API size_t repdl_sum_block_size(size_t begin, size_t end)
{
    size_t len = end - begin, b = REPDL_SUM_LEAF;
    if (len < REPDL_SUM_LEAF) return len;
    while ((begin & (2 * b - 1)) == 0 && 2 * b <= len && 2 * b > b) b *= 2;
    return b;
}

/* ---- Dot product and sum of squares ---- */

/* sum over i of RN(x[i] * y[i]), in the canonical order.  Each product is
   rounded to binary32 first (no FMA anywhere): the canonical sum of the
   array of products.  -0.0 when n == 0. */
REPDL_FN float repdl__dot_f32(size_t n, const float *x, const float *y)
{
    repdl__tree t;
    repdl__tree_init(&t);
    repdl__tree_dot_run(&t, n, x, y);
    return repdl__canon(repdl__tree_root(&t));
}
REPDL_API float repdl_dot_f32(size_t n, const float *x, const float *y)
{
    REPDL__FPENV_CHECK_OR(repdl__nanf());
    return repdl__dot_f32(n, x, y);
}

/* Strided dot: element i is x[i * incx] * y[i * incy] (strides in
   elements, any sign; 0 repeats one element). */
REPDL_API float repdl_dot_strided_f32(size_t n, const float *x, ptrdiff_t incx,
                                     const float *y, ptrdiff_t incy)
{
    REPDL__FPENV_CHECK_OR(repdl__nanf());
    repdl__tree t;
    repdl__tree_init(&t);
    repdl__tree_staged(&t, REPDL__TERM_XY, n, x, incx, y, incy, 0.0f);
    return repdl__canon(repdl__tree_root(&t));
}

/* Sum of squares: sum over i of RN(x[i] * x[i]), canonical order; bit for
   bit repdl_dot_f32(n, x, x).  Plain, unscaled: a square overflows to +inf
   for |x| >= 2^64 (about 1.8e19) and the sum to +inf when it exceeds
   FLT_MAX; squares below 2^-149 round to zero (gradual underflow, as IEEE
   multiplication does).  Any NaN gives NaN; otherwise any infinity gives
   +inf.  n == 0 gives -0.0 (the empty sum). */
REPDL_API float repdl_sumsq_f32(size_t n, const float *x)
{
    return repdl_dot_f32(n, x, x);
}

REPDL_API float repdl_sumsq_strided_f32(size_t n, const float *x, ptrdiff_t incx)
{
    return repdl_dot_strided_f32(n, x, incx, x, incx);
}

/* 2-norm: RN(sqrt(repdl_sumsq_f32(n, x))), the square root correctly
   rounded.  Overflows to +inf when the sum of squares does (|x| around
   1.8e19 and above), even where the true norm would be finite; tiny inputs
   lose accuracy to underflow of their squares (when every |x| < 2^-75,
   about 2.6e-23, the norm is 0).  n == 0 gives -0.0 (sqrt(-0) = -0). */
REPDL_API float repdl_norm2_f32(size_t n, const float *x)
{
    return repdl__canon(repdl__fsqrt(repdl_sumsq_f32(n, x)));
}

REPDL_API float repdl_norm2_strided_f32(size_t n, const float *x, ptrdiff_t incx)
{
    return repdl__canon(repdl__fsqrt(repdl_sumsq_strided_f32(n, x, incx)));
}

/* ---- Strided sum ---- */

/* Element i is x[i * incx] (incx in elements, any sign; 0 repeats x[0]).
   Gathers each leaf into a buffer, then the same leaf code: the same bits
   as repdl_sum_f32 on the gathered array. */
REPDL_API float repdl_sum_strided_f32(size_t n, const float *x, ptrdiff_t incx)
{
    repdl__tree t;
    if (incx == 1) return repdl_sum_f32(n, x);
    REPDL__FPENV_CHECK_OR(repdl__nanf());
    repdl__tree_init(&t);
    repdl__tree_staged(&t, REPDL__TERM_X, n, x, incx, NULL, 0, 0.0f);
    return repdl__canon(repdl__tree_root(&t));
}

/* Row sums for rows that may live in L3 or DRAM (softmax.h, norm.h): the
   bits of repdl_sum_f32 / repdl_dot_f32, through the staged walk below
   REPDL_SUM_STREAM_MIN (twice as fast as the full schedule on a row that
   is not in cache), the streaming schedule above. */
REPDL_FN float repdl__row_sum_f32(size_t n, const float *x)
{
    repdl__tree t;
    if (n >= REPDL_SUM_STREAM_MIN) return repdl_sum_f32(n, x);
    repdl__tree_init(&t);
    repdl__tree_staged(&t, REPDL__TERM_X, n, x, 1, NULL, 0, 0.0f);
    return repdl__canon(repdl__tree_root(&t));
}
REPDL_FN float repdl__row_dot_f32(size_t n, const float *x, const float *y)
{
    repdl__tree t;
    if (n >= REPDL_SUM_STREAM_MIN) return repdl_dot_f32(n, x, y);
    repdl__tree_init(&t);
    repdl__tree_staged(&t, REPDL__TERM_XY, n, x, 1, y, 1, 0.0f);
    return repdl__canon(repdl__tree_root(&t));
}

/* ---- Division by a count, one rounding ---- */

/* RN(s / n) for n >= 1: the exact quotient rounded once to binary32
   (nearest, ties to even, subnormals kept).  For n <= 2^24, n is exact in
   binary32 and IEEE division rounds once.  Beyond, an integer long
   division gives 26 quotient bits and a sticky bit (round to odd), which
   one conversion double -> float then rounds correctly: rounding to odd
   with two extra bits, then to nearest, equals rounding to nearest once. */
REPDL_FN float repdl__div_exact_f32(float s, size_t n)
{
    uint32_t u = repdl__asuint(s), mag = u & 0x7fffffffu;
    uint64_t r, d = (uint64_t)n, q = 0;
    int e, i;
    float f;
    if (mag == 0 || mag >= 0x7f800000u) return s; /* +-0, +-inf: s / n == s; NaN */
    if (mag >= 0x00800000u) {
        r = (mag & 0x007fffffu) | 0x00800000u;
        e = (int)(mag >> 23) - 150; /* |s| = r * 2^e */
    } else {
        r = mag;
        e = -149;
    }
    /* |s| / n = (r / d) * 2^e; bring r / d into [1/2, 1).  The first loop
       runs only when n <= r < 2^24 (so d < 2^25); in the second, 2r < d is
       tested as r < d - r, which cannot overflow. */
    while (r >= d) { d <<= 1; e++; }
    while (r < d - r) { r <<= 1; e--; }
    /* Long division, 26 bits: q = floor(2^26 r / d), 2^25 <= q < 2^26;
       invariant 0 <= r < d, and 2r - d is computed as r - (d - r). */
    for (i = 0; i < 26; i++) {
        if (r >= d - r) { q = 2 * q + 1; r = r - (d - r); }
        else { q = 2 * q; r = r + r; }
    }
    q |= (r != 0);  /* sticky bit: q is |s| / n rounded to odd, 26 bits */
    e -= 26;        /* |s| / n ~ q * 2^e, -239 <= e <= 102: a normal double */
    f = repdl__d2f(repdl__dmul((double)q, repdl__asdouble((uint64_t)(e + 1023) << 52)));
    return repdl__asfloat(repdl__asuint(f) | (u & 0x80000000u));
}

/* RN(s / n): fast path for n <= 2^24 (IEEE division, one rounding). */
REPDL_FN float repdl__div_count_f32(float s, size_t n)
{
    if (n <= ((size_t)1 << 24)) return repdl__fdiv(s, (float)n);
    return repdl__div_exact_f32(s, n);
}

/* ---- Mean and variance ---- */

/* RN(S / n) where S = repdl_sum_f32(n, x): the canonical sum, then one
   correctly rounded division by the exact integer n.  NaN when n == 0
   (0/0); +-inf and NaN sums pass through. */
REPDL_API float repdl_mean_f32(size_t n, const float *x)
{
    if (n == 0) return repdl__nanf();
    return repdl__canon(repdl__div_count_f32(repdl_sum_f32(n, x), n));
}

REPDL_API float repdl_mean_strided_f32(size_t n, const float *x, ptrdiff_t incx)
{
    if (n == 0) return repdl__nanf();
    return repdl__canon(repdl__div_count_f32(repdl_sum_strided_f32(n, x, incx), n));
}

/* y[i] = RN(x[i] / count) for i < n: each element divided by the exact
   integer count, one rounding, by the division of repdl_mean_f32 (correct
   for every size_t count).  It is REPDL_REDUCTION_MEAN's division of the
   loss gradient (softmax.h), written out for a shard of a global batch: a
   process that holds rows [r0, r1) of a batch of B rows computes its rows'
   gradients with REPDL_REDUCTION_SUM and divides them by B here, giving the
   bits the MEAN call on all B rows gives those rows.  count == 0: every
   y[i] is NaN (the mean of nothing).  NaN results are 0x7fc00000; +-0,
   +-inf and subnormals are ordinary values.  n == 0 reads nothing
   (pointers may be NULL); y == x is allowed. */
REPDL_API repdl_status repdl_div_count_f32(size_t n, size_t count, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !y)) return REPDL_ERR_INVALID;
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = count ? repdl__canon(repdl__div_count_f32(x[i], count)) : repdl__nanf();
    return REPDL_OK;
}

/* Two-pass variance with `ddof` delta degrees of freedom (0: population,
   divide by n; 1: sample, divide by n - 1):
     m   = repdl_mean_f32(n, x)
     d_i = RN(x_i - m),  s_i = RN(d_i * d_i)
     var = RN(S2 / (n - ddof)),  S2 = canonical sum of the s_i.
   NaN when n <= ddof, or when any x_i is NaN or infinite (m is then NaN or
   inf and inf - inf = NaN).  Squares overflow to +inf as in
   repdl_sumsq_f32. */
/* The canonical sum of RN(RN(x_i - m)^2) over x[i * incx], i < n, divided
   by `count`, one rounding (variance given its mean; norm.h uses it). */
REPDL_FN float repdl__sqdev_mean(size_t n, const float *x, ptrdiff_t incx, float m,
                                 size_t count)
{
    repdl__tree t;
    repdl__tree_init(&t);
    repdl__tree_staged(&t, REPDL__TERM_SQDEV, n, x, incx, NULL, 0, m);
    return repdl__canon(repdl__div_count_f32(repdl__tree_root(&t), count));
}

REPDL_API float repdl_var_strided_f32(size_t n, size_t ddof, const float *x,
                                     ptrdiff_t incx)
{
    if (n <= ddof) return repdl__nanf();
    return repdl__sqdev_mean(n, x, incx, repdl_mean_strided_f32(n, x, incx), n - ddof);
}

REPDL_API float repdl_var_f32(size_t n, size_t ddof, const float *x)
{
    return repdl_var_strided_f32(n, ddof, x, 1);
}

/* ---- Row-wise (batched) forms ----
   out[r] = f(row r) for r < rows, row r being x[r * ldx .. r * ldx + n)
   (ldx in elements; x is not read when n == 0).  Each row is exactly the
   single-row call: the result of a row never depends on `rows` or on the
   other rows.  Rows may overlap (ldx < n, ldx = 0 repeats one row): they
   are only read.  Returns REPDL_OK; REPDL_ERR_OVERFLOW when the span
   (rows - 1) * ldx + n floats, or rows values of size_t (out, whatever
   its type), do not fit in size_t bytes;
   REPDL_ERR_INVALID when out is NULL with rows > 0, or x (y) is NULL with
   rows > 0 and n > 0.  On an error nothing is written. */
enum { REPDL__ROW_SUM, REPDL__ROW_SUMSQ, REPDL__ROW_NORM2, REPDL__ROW_MEAN, REPDL__ROW_VAR,
       REPDL__ROW_DOT };

/* Every float-valued row-wise form: the checks, then op on each row. */
REPDL_FN repdl_status repdl__rows_f32(int op, size_t rows, size_t n, size_t ddof, const float *x,
                                      size_t ldx, const float *y, size_t ldy, float *out)
{
    size_t r;
    REPDL__ROWS_CHECK(x, ldx);
    if (op == REPDL__ROW_DOT) REPDL__ROWS_CHECK(y, ldy);
    for (r = 0; r < rows; r++) {
        const float *xr = n ? x + r * ldx : x, *yr = n && y ? y + r * ldy : y;
        switch (op) {
        case REPDL__ROW_SUM: out[r] = repdl__sum_f32(n, xr); break;
        case REPDL__ROW_SUMSQ: out[r] = repdl__dot_f32(n, xr, xr); break;
        case REPDL__ROW_NORM2: out[r] = repdl__canon(repdl__fsqrt(repdl__dot_f32(n, xr, xr))); break;
        case REPDL__ROW_MEAN: out[r] = repdl_mean_f32(n, xr); break;
        case REPDL__ROW_VAR: out[r] = repdl_var_f32(n, ddof, xr); break;
        default: out[r] = repdl__dot_f32(n, xr, yr); break;
        }
    }
    return REPDL_OK;
}

REPDL_API repdl_status repdl_sum_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                          float *out)
{
    REPDL__FPENV_CHECK();
    return repdl__rows_f32(REPDL__ROW_SUM, rows, n, 0, x, ldx, NULL, 0, out);
}

REPDL_API repdl_status repdl_dot_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                          const float *y, size_t ldy, float *out)
{
    REPDL__FPENV_CHECK();
    return repdl__rows_f32(REPDL__ROW_DOT, rows, n, 0, x, ldx, y, ldy, out);
}

REPDL_API repdl_status repdl_sumsq_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                            float *out)
{
    REPDL__FPENV_CHECK();
    return repdl__rows_f32(REPDL__ROW_SUMSQ, rows, n, 0, x, ldx, NULL, 0, out);
}

REPDL_API repdl_status repdl_norm2_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                            float *out)
{
    REPDL__FPENV_CHECK();
    return repdl__rows_f32(REPDL__ROW_NORM2, rows, n, 0, x, ldx, NULL, 0, out);
}

REPDL_API repdl_status repdl_mean_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                           float *out)
{
    REPDL__FPENV_CHECK();
    return repdl__rows_f32(REPDL__ROW_MEAN, rows, n, 0, x, ldx, NULL, 0, out);
}

REPDL_API repdl_status repdl_var_rows_f32(size_t rows, size_t n, size_t ddof, const float *x,
                                          size_t ldx, float *out)
{
    REPDL__FPENV_CHECK();
    return repdl__rows_f32(REPDL__ROW_VAR, rows, n, ddof, x, ldx, NULL, 0, out);
}
#include "reduce_minmax.h"

REPDL_END_CODE
#endif /* REPDL_REDUCE_H */
