/* SPDX-License-Identifier: MIT */
/* tests/reduce/test_reduce_huge.c: 64-bit index arithmetic of the
   reductions on an array of more than 2^32 elements.

   The array is a 16 GiB anonymous mapping that is never written except at
   a few places: every other page reads as the kernel's shared zero page,
   so the test needs almost no memory (MAP_NORESERVE; transparent huge
   zero pages keep the page faults few).  Values sit just before and after
   element 2^31, 2^32 and in the last, partial leaf, so an index computed
   in 32 bits would read the wrong element or the wrong leaf.

   Expected values: the recursive reference tree of reference/reduce_ref.h
   over the m = ceil(n / 1024) leaves, where a leaf that holds none of the
   written values is +0 (a sum of +0 and -0 padding is +0) and every other
   leaf is the reference leaf of the real memory.

   Also the strided forms with offsets beyond 2^32 elements (incx around
   2^30, positive and negative).  Exits 77 (skipped) where the mapping is
   refused (32-bit systems, strict overcommit). */
#define _DEFAULT_SOURCE
#include <repdl/reduce.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/check.h"
#include "reduce_ref.h"

static const float *hx;
static size_t hn;
static size_t written[64];
static int nwritten;

/* Leaf j: the reference leaf if a written value or the end lies in it. */
static int huge_dot; /* leaves of the products x[i] * x[i] */

static float huge_leaf(const void *ctx, size_t j)
{
    int w, real = (j + 1) * REF_LEAF >= hn;
    (void)ctx;
    for (w = 0; w < nwritten; w++)
        if (written[w] / REF_LEAF == j) real = 1;
    if (!real) return 0.0f;
    if (huge_dot) {
        float p[REF_LEAF];
        size_t i, len = hn - j * REF_LEAF < REF_LEAF ? hn - j * REF_LEAF : REF_LEAF;
        for (i = 0; i < len; i++) p[i] = ref_mul(hx[j * REF_LEAF + i], hx[j * REF_LEAF + i]);
        return ref_leaf(p, len, 0);
    }
    return ref_leaf(hx, hn, j * REF_LEAF);
}

int main(void)
{
    size_t n = ((size_t)1 << 32) + 3 * 4096 + 1234, bytes = n * sizeof(float), i;
    size_t pos[] = {0,
                    1,
                    ((size_t)1 << 31) - 1,
                    (size_t)1 << 31,
                    ((size_t)1 << 32) - 1,
                    (size_t)1 << 32,
                    ((size_t)1 << 32) + 1,
                    ((size_t)1 << 32) + 1024,
                    n - 1234,
                    n - 1};
    /* distinct powers of two: the exact sum 1023.75 is representable, and
       reading any element twice, or a zero instead, changes it */
    float vals[] = {1.0f, 2.0f, 4.0f, 8.0f, 16.0f, 32.0f, 64.0f, 128.0f, 256.0f, 512.0f};
    float vals_extra = 0.75f; /* and one more value, */
    size_t pos_extra = ((size_t)1 << 32) + 1024 + 5; /* next to an element 2^32 + 1024 */
    float *x, got, want;
    if (sizeof(size_t) < 8) {
        printf("test_reduce_huge: 32-bit size_t, skipped\n");
        return 77;
    }
    x = (float *)mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (x == (float *)MAP_FAILED) {
        printf("test_reduce_huge: cannot map %zu bytes, skipped\n", bytes);
        return 77;
    }
#ifdef MADV_HUGEPAGE
    madvise(x, bytes, MADV_HUGEPAGE);
#endif
    for (i = 0; i < sizeof pos / sizeof *pos; i++) {
        x[pos[i]] = vals[i];
        written[nwritten++] = pos[i];
    }
    x[pos_extra] = vals_extra;
    written[nwritten++] = pos_extra;
    hx = x;
    hn = n;

    want = ref_canon(ref_tree(huge_leaf, NULL, (n + REF_LEAF - 1) / REF_LEAF));
    got = repdl_sum_f32(n, x);
    printf("sum of %zu elements: got %a want %a\n", n, got, want);
    CHECK_BITS(got, want, "sum");
    CHECK_BITS(got, 1023.75f, "sum, exact value");

    huge_dot = 1;
    want = ref_canon(ref_tree(huge_leaf, NULL, (n + REF_LEAF - 1) / REF_LEAF));
    got = repdl_dot_f32(n, x, x);
    printf("dot of %zu elements: got %a want %a\n", n, got, want);
    CHECK_BITS(got, want, "dot");

    /* strided, offsets beyond 2^32 elements */
    {
        ptrdiff_t inc = ((ptrdiff_t)1 << 30) + 1;
        float g[4];
        for (i = 0; i < 4; i++) {
            x[i * (size_t)inc + 2] = (float)(i + 1) * 1.5f;
            g[i] = x[i * (size_t)inc + 2];
        }
        got = repdl_sum_strided_f32(4, x + 2, inc);
        want = ref_sum(g, 4);
        printf("strided +2^30+1: got %a want %a\n", got, want);
        CHECK_BITS(got, want, "strided +2^30+1");
        got = repdl_sum_strided_f32(4, x + 2 + 3 * (size_t)inc, -inc);
        {
            float r[4];
            for (i = 0; i < 4; i++) r[i] = g[3 - i];
            want = ref_sum(r, 4);
        }
        printf("strided -(2^30+1): got %a want %a\n", got, want);
        CHECK_BITS(got, want, "strided -(2^30+1)");
        got = repdl_max_strided_f32(4, x + 2, inc);
        CHECK_BITS(got, 6.0f, "max strided");
        CHECK(repdl_argmax_strided_f32(4, x + 2, inc) == 3, "argmax strided");
    }

    munmap(x, bytes);
    return check_summary("test_reduce_huge");
}
