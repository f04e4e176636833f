/* SPDX-License-Identifier: MIT */
/* tests/mpi/test_mpi.c: the canonical allreduce (repdl/mpi.h) and the node
   vectors of a range of units (repdl/reduce_units.h) against a plain
   recursive buddy tree written here, bit for bit.

   Run under mpirun with any rank count (meson runs 1, 2, 3, 4, 5 and 7).
   Every rank generates the same unit vectors (special values included:
   NaN with several payloads, infinities, signed zeros, subnormals, values
   whose sums overflow), takes its range (even, random cut points with
   empty ranges, everything on one rank, ...), builds its node vectors,
   calls the allreduce and compares every output bit with the reference.
   Bad input (gaps, overlaps, ranks that disagree on U or V, NULL nodes)
   must give REPDL_ERR_INVALID on every rank, without hanging. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/mpi.h>

static int R, me;
static long fails, checks;

/* ---- the reference: docs/canonical-order.md section 4 over units ---- */
static float ref_node(const float *x, size_t V, size_t U, size_t e, unsigned k, size_t j)
{
    size_t half;
    float l, r;
    if (k == 0) return x[j * V + e];
    half = (size_t)1 << (k - 1);
    l = ref_node(x, V, U, e, k - 1, 2 * j);
    if ((2 * j + 1) * half >= U) return l; /* no right half: pass up */
    r = ref_node(x, V, U, e, k - 1, 2 * j + 1);
    return l + r;
}
static float canon(float v) { return v != v ? repdl__asfloat(0x7fc00000u) : v; }
static float ref_sum(const float *x, size_t V, size_t U, size_t e)
{
    unsigned K = 0;
    if (U == 0) return -0.0f;
    while (((size_t)1 << K) < U) K++;
    return canon(ref_node(x, V, U, e, K, 0));
}

/* ---- data: the same on every rank ---- */
static uint64_t rng_state;
static uint32_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 32);
}
static float special(void)
{
    static const uint32_t bits[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7fa5a5a5u,
                                    0x7f800000u, 0xff800000u, 0x00000000u, 0x80000000u,
                                    0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,
                                    0x7f7fffffu, 0xff7fffffu, 0x7f000000u, 0xff000000u};
    return repdl__asfloat(bits[rnd() % (sizeof bits / sizeof bits[0])]);
}
/* mode 0: ordinary values of mixed magnitude; 1: with specials (about one
   in 8); 2: huge values that overflow, plus subnormals */
static void fill(float *x, size_t n, int mode)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t r = rnd();
        float v = (float)((int32_t)rnd()) * (1.0f / 2147483648.0f);
        v *= repdl__asfloat((uint32_t)(127 - 20 + r % 41) << 23); /* 2^-20 .. 2^20 */
        if (mode == 1 && r % 8 == 0) v = special();
        if (mode == 2) {
            if (r % 3 == 0) v = ((r >> 8) & 1 ? 1 : -1) * 3.0e38f;
            else if (r % 3 == 1) v = repdl__asfloat((rnd() & 0x807fffffu) | 1u);
        }
        x[i] = v;
    }
}

static void check(int cond, const char *what, size_t U, size_t V, int split, size_t e)
{
    checks++;
    if (!cond) {
        if (fails < 20)
            fprintf(stderr, "rank %d of %d: %s (U %zu V %zu split %d element %zu)\n", me, R,
                    what, U, V, split, e);
        fails++;
    }
}

/* The ranges: bounds[r] .. bounds[r+1] for rank r. */
static void make_split(int split, size_t U, size_t *bounds)
{
    int r;
    bounds[0] = 0;
    bounds[R] = U;
    for (r = 1; r < R; r++) {
        switch (split) {
        case 0: bounds[r] = U * (size_t)r / (size_t)R; break;          /* even */
        case 1: bounds[r] = U ? rnd() % (U + 1) : 0; break;              /* random */
        case 2: bounds[r] = r <= R / 2 ? 0 : U; break;                   /* one rank owns all */
        default: bounds[r] = (size_t)(R - r) > U ? 0 : U - (size_t)(R - r); break; /* last ranks one unit each */
        }
    }
    if (split == 1) { /* sort the cut points */
        int a, b;
        for (a = 1; a < R; a++)
            for (b = a + 1; b < R; b++)
                if (bounds[b] < bounds[a]) { size_t t = bounds[a]; bounds[a] = bounds[b]; bounds[b] = t; }
    }
}

/* One case: the allreduce of U units of V floats with split `split`, in
   chunks of chunk_max elements (0: the public function). */
static void run_case(size_t U, size_t V, int split, int mode, size_t chunk_max, int alias)
{
    float *x = (float *)malloc((U * V + 1) * sizeof(float));
    float *out = (float *)malloc((V ? V : 1) * sizeof(float));
    float *nodes;
    size_t *bounds = (size_t *)malloc(((size_t)R + 1) * sizeof(size_t));
    size_t u0, u1, N, i, e;
    repdl_units_node list[128];
    repdl_status st;
    fill(x, U * V, mode);
    make_split(split, U, bounds);
    u0 = bounds[me];
    u1 = bounds[me + 1];
    N = repdl_units_nodes(U, u0, u1, 128, list);
    nodes = (float *)malloc((N * V + V + 1) * sizeof(float));
    /* the cut: consecutive nodes tiling [u0, u1) */
    for (i = 0; i < N; i++) {
        check(repdl_units_block_ok(list[i].begin, list[i].count, U), "cut: not a node", U, V, split, i);
        check(list[i].begin == (i ? list[i - 1].begin + list[i - 1].count : u0), "cut: gap", U, V, split, i);
    }
    check(N ? list[N - 1].begin + list[N - 1].count == u1 : u0 == u1, "cut: end", U, V, split, 0);
    st = repdl_units_nodes_f32(U, u0, u1, V, REPDL__OFFSET(x, u0 * V), V, nodes);
    check(st == REPDL_OK, "units_nodes status", U, V, split, 0);
    /* each node vector is the subtree (level, begin >> level) of the reference */
    for (i = 0; i < N; i++)
        for (e = 0; e < V; e++) {
            float want = canon(ref_node(x, V, U, e, list[i].level, list[i].begin >> list[i].level));
            check(repdl__asuint(nodes[i * V + e]) == repdl__asuint(want), "node vector", U, V, split, e);
        }
    for (e = 0; e < V; e++) out[e] = 12345.0f;
    if (alias) {
        /* out = nodes: a rank with no node still needs V floats there */
        st = repdl__mpi_sum_nodes_f32(MPI_COMM_WORLD, U, u0, u1, V, nodes, nodes, chunk_max);
        memcpy(out, nodes, V * sizeof(float));
    } else {
        st = repdl__mpi_sum_nodes_f32(MPI_COMM_WORLD, U, u0, u1, V, N ? nodes : NULL, out,
                                      chunk_max);
    }
    check(st == REPDL_OK, "allreduce status", U, V, split, 0);
    for (e = 0; e < V; e++) {
        float want = ref_sum(x, V, U, e);
        check(repdl__asuint(out[e]) == repdl__asuint(want), "allreduce bits", U, V, split, e);
    }
    free(x); free(out); free(nodes); free(bounds);
}

/* Bad ranges: every rank must return REPDL_ERR_INVALID (and not hang). */
static void run_bad(int kind)
{
    size_t U = 10, V = 5, u0, u1, Ur = U, Vr = V;
    float nodes[6 * 16], out[6]; /* room for Vr = V + 1 (kind 4, valid when R == 1) */
    const float *np = nodes;
    repdl_status st;
    memset(nodes, 0, sizeof nodes);
    u0 = U * (size_t)me / (size_t)R;
    u1 = U * (size_t)(me + 1) / (size_t)R;
    switch (kind) {
    case 0: if (me == R - 1) u1 = U - 1; break;            /* the last unit is nobody's */
    case 1: if (me == 0) u0 = 1; break;                      /* the first unit is nobody's */
    case 2: if (me == R - 1) u1 = U + 1; break;              /* past U */
    case 3: if (me == R / 2) Ur = U + 1; break;              /* U differs */
    case 4: if (me == R - 1) Vr = V + 1; break;              /* V differs */
    case 5: if (me == 0) { u0 = 0; u1 = U; } break;          /* overlap (R > 1) or fine */
    case 6: if (me == R - 1) u0 = u1 + 1; break;             /* u0 > u1 */
    case 7: if (me == R - 1 && u0 < u1) np = NULL; else if (me == R - 1) u1 = U + 3; break; /* NULL nodes */
    }
    st = repdl_mpi_sum_nodes_f32(MPI_COMM_WORLD, Ur, u0, u1, Vr, np, out);
    if ((kind == 4 || kind == 5) && R == 1) /* one rank: nothing to disagree with */
        check(st == REPDL_OK, "bad input: R = 1 is consistent", U, V, kind, 0);
    else
        check(st == REPDL_ERR_INVALID, "bad input not refused", U, V, kind, 0);
}

int main(int argc, char **argv)
{
    static const size_t Us[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 31, 33, 100};
    static const size_t Vs[] = {0, 1, 2, 3, 7, 17, 64, 130};
    size_t a, b;
    int split, kind;
    long tot[2], loc[2];
    (void)argc; (void)argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    rng_state = 0x5eed;
    for (a = 0; a < sizeof Us / sizeof Us[0]; a++)
        for (b = 0; b < sizeof Vs / sizeof Vs[0]; b++)
            for (split = 0; split < 4; split++)
                run_case(Us[a], Vs[b], split, (int)((a + b + (size_t)split) % 3), 0, 0);
    /* chunked (small chunks: several rounds of exchange) and out == nodes */
    for (a = 0; a < sizeof Us / sizeof Us[0]; a++) {
        run_case(Us[a], 130, 1, 1, 7, 0);
        run_case(Us[a], 33, 1, 2, 1, 0);
        run_case(Us[a], 64, 0, 1, 0, 1);
    }
    /* a larger one: levels up to 9, ranges of many nodes */
    run_case(1000, 37, 0, 1, 0, 0);
    run_case(1000, 37, 1, 2, 0, 0);
    run_case(1000, 37, 1, 0, 16, 0);
    for (kind = 0; kind < 8; kind++) run_bad(kind);
    loc[0] = fails;
    loc[1] = checks;
    MPI_Allreduce(loc, tot, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("test_mpi, %d ranks: %ld checks, %ld failures\n", R, tot[1], tot[0]);
    MPI_Finalize();
    return tot[0] ? 1 : 0;
}
