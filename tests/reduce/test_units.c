/* SPDX-License-Identifier: MIT */
/* tests/reduce/test_units.c: repdl/reduce_units.h without MPI.  For every
   U up to 40 and every range [u0, u1) of it: the canonical cut (consecutive
   nodes, each a node by the rules of docs/mpi.md section 2, the short one
   only at U), each node vector against a recursive buddy tree written
   here, bit for bit (special values included), the one-unit-at-a-time
   state against the array form, and the whole range [0, U) as one node
   equal to the sum.  Bad ranges are refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/reduce_units.h>
#if defined(__SSE__) && !defined(REPDL_PORTABLE_C)
#include <xmmintrin.h>
#endif

static long fails, checks;
static void check(int cond, const char *what, size_t U, size_t u0, size_t u1)
{
    checks++;
    if (!cond && fails++ < 20) fprintf(stderr, "%s (U %zu [%zu, %zu))\n", what, U, u0, u1);
}

/* node(k, j) of docs/mpi.md section 1, element e */
static float ref_node(const float *x, size_t V, size_t U, size_t e, unsigned k, size_t j)
{
    size_t half;
    float l;
    if (k == 0) return x[j * V + e];
    half = (size_t)1 << (k - 1);
    l = ref_node(x, V, U, e, k - 1, 2 * j);
    if ((2 * j + 1) * half >= U) return l;
    return l + ref_node(x, V, U, e, k - 1, 2 * j + 1);
}
static uint32_t bits(float v) { return v != v ? 0x7fc00000u : repdl__asuint(v); }

static uint64_t st = 7;
static float value(void)
{
    static const uint32_t sp[] = {0x7fc00000u, 0xffc00001u, 0x7f800000u, 0xff800000u,
                                  0x80000000u, 0x00000001u, 0x807fffffu, 0x7f7fffffu};
    uint32_t r;
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    r = (uint32_t)(st >> 33);
    if (r % 16 == 0) return repdl__asfloat(sp[(r >> 4) % 8]);
    return (float)(int32_t)(r - 0x40000000u) * repdl__asfloat((uint32_t)(100 + r % 50) << 23);
}

int main(void)
{
    enum { V = 5, UMAX = 40 };
    static float x[UMAX * V], nodes[130 * V], nodes2[130 * V];
    repdl_units_node list[130];
    size_t U, u0, u1, i, e, N;
    for (i = 0; i < UMAX * V; i++) x[i] = value();
    for (U = 0; U <= UMAX; U++)
        for (u0 = 0; u0 <= U; u0++)
            for (u1 = u0; u1 <= U; u1++) {
                repdl_units_state s;
                N = repdl_units_nodes(U, u0, u1, 130, list);
                for (i = 0; i < N; i++) {
                    size_t b = list[i].begin, c = list[i].count;
                    unsigned k = list[i].level;
                    check(b == (i ? list[i - 1].begin + list[i - 1].count : u0), "cut: gap", U, u0, u1);
                    check(c >= 1 && ((size_t)1 << k) >= c && (k == 0 || ((size_t)1 << (k - 1)) < c) &&
                          b % ((size_t)1 << k) == 0 && (c == (size_t)1 << k || b + c == U),
                          "cut: not a node", U, u0, u1);
                    check(repdl_units_block_ok(b, c, U), "block_ok", U, u0, u1);
                }
                check(N ? list[N - 1].begin + list[N - 1].count == u1 : u0 == u1, "cut: end", U, u0, u1);
                check(repdl_units_nodes_f32(U, u0, u1, V, x + u0 * V, V, nodes) == REPDL_OK,
                      "nodes_f32 status", U, u0, u1);
                for (i = 0; i < N; i++)
                    for (e = 0; e < V; e++)
                        check(repdl__asuint(nodes[i * V + e]) ==
                                  bits(ref_node(x, V, U, e, list[i].level, list[i].begin >> list[i].level)),
                              "node vector", U, u0, u1);
                /* the state, one unit at a time from a reused buffer */
                check(repdl_units_state_init(&s, U, u0, u1, V, nodes2) == REPDL_OK, "init", U, u0, u1);
                for (i = u0; i < u1; i++) {
                    float buf[V];
                    memcpy(buf, x + i * V, sizeof buf);
                    check(repdl_units_state_push(&s, buf) == REPDL_OK, "push", U, u0, u1);
                    memset(buf, 0x55, sizeof buf);
                }
                check(repdl_units_state_push(&s, x) == REPDL_ERR_INVALID, "push past the end", U, u0, u1);
                repdl_units_state_free(&s);
                check(memcmp(nodes, nodes2, N * V * sizeof(float)) == 0, "state vs array", U, u0, u1);
            }
    /* the whole range is one node: the sum */
    for (U = 1; U <= UMAX; U++) {
        unsigned K = 0;
        while (((size_t)1 << K) < U) K++;
        check(repdl_units_nodes(U, 0, U, 0, NULL) == 1, "[0, U) one node", U, 0, U);
        repdl_units_nodes_f32(U, 0, U, V, x, V, nodes);
        for (e = 0; e < V; e++)
            check(repdl__asuint(nodes[e]) == bits(ref_node(x, V, U, e, K, 0)), "sum", U, 0, U);
    }
    /* repdl_units_combine_f32: every split of [0, U) into P <= 4 ranges
       (all cut points, empty ranges included) gives the sum */
    for (U = 0; U <= 24; U++) {
        unsigned K = 0;
        size_t a, b2, c2;
        while (((size_t)1 << K) < U) K++;
        for (a = 0; a <= U; a++)
            for (b2 = a; b2 <= U; b2++)
                for (c2 = b2; c2 <= U; c2++) {
                    size_t bounds[5], p;
                    float *nd[4], out[V];
                    bounds[0] = 0; bounds[1] = a; bounds[2] = b2; bounds[3] = c2; bounds[4] = U;
                    for (p = 0; p < 4; p++) {
                        size_t n = repdl_units_nodes(U, bounds[p], bounds[p + 1], 0, NULL);
                        nd[p] = (float *)malloc((n ? n : 1) * V * sizeof(float));
                        repdl_units_nodes_f32(U, bounds[p], bounds[p + 1], V,
                                              x + bounds[p] * V, V, nd[p]);
                    }
                    check(repdl_units_combine_f32(U, 4, bounds, V, (const float *const *)nd,
                                                  out) == REPDL_OK, "combine status", U, a, c2);
                    for (e = 0; e < V; e++)
                        check(repdl__asuint(out[e]) ==
                                  (U ? bits(ref_node(x, V, U, e, K, 0)) : 0x80000000u),
                              "combine", U, a, c2);
                    for (p = 0; p < 4; p++) free(nd[p]);
                }
    }
    {
        size_t bb[3] = {0, 5, 4}, bc[3] = {0, 3, 9};
        float o[V];
        const float *nn[2] = {x, x};
        check(repdl_units_combine_f32(4, 2, bb, V, nn, o) == REPDL_ERR_INVALID, "combine: decreasing bounds", 4, 0, 4);
        check(repdl_units_combine_f32(10, 2, bc, V, nn, o) == REPDL_ERR_INVALID, "combine: bounds end before U", 10, 0, 9);
        check(repdl_units_combine_f32(0, 0, NULL, V, NULL, o) == REPDL_OK && repdl__asuint(o[0]) == 0x80000000u,
              "combine: no unit is -0", 0, 0, 0);
    }
    /* bad input */
    check(repdl_units_nodes_f32(10, 3, 2, V, x, V, nodes) == REPDL_ERR_INVALID, "u0 > u1", 10, 3, 2);
    check(repdl_units_nodes_f32(10, 3, 11, V, x, V, nodes) == REPDL_ERR_INVALID, "u1 > U", 10, 3, 11);
    check(repdl_units_nodes_f32(10, 3, 5, V, NULL, V, nodes) == REPDL_ERR_INVALID, "NULL units", 10, 3, 5);
    check(repdl_units_nodes_f32(10, 3, 5, V, x, V, NULL) == REPDL_ERR_INVALID, "NULL nodes", 10, 3, 5);
    check(repdl_units_nodes_f32(10, 3, 5, V, x, V - 1, nodes) == REPDL_ERR_INVALID, "ldu < V", 10, 3, 5);
    check(repdl_units_nodes_f32(10, 4, 4, V, NULL, 0, NULL) == REPDL_OK, "empty range", 10, 4, 4);
    /* extents that do not fit in size_t bytes: REPDL_ERR_OVERFLOW before
       anything is read (the units' (u1 - u0 - 1) ldu + V floats, the
       nodes' N V floats, out's V floats), nothing written */
    {
        const size_t lim = SIZE_MAX / sizeof(float);
        float canary[2 * V];
        size_t bounds3[3] = {0, 1, 3};   /* [1, 3) of 3: the nodes [1, 2) and [2, 3) */
        const float *nn3[2];
        repdl_units_state s;
        memset(canary, 0x5a, sizeof canary);
        memcpy(nodes, canary, sizeof canary);
        nn3[0] = nn3[1] = x;
        check(repdl_units_nodes_f32(4, 0, 4, 1, x, SIZE_MAX / 8, nodes) == REPDL_ERR_OVERFLOW &&
              !memcmp(nodes, canary, sizeof canary), "units extent 3 ldu + 1 with ldu = 2^61", 4, 0, 4);
        check(repdl_units_nodes_f32(4, 0, 4, V, x, (lim - V) / 3 + 1, nodes) == REPDL_ERR_OVERFLOW &&
              !memcmp(nodes, canary, sizeof canary), "units extent one past the bound", 4, 0, 4);
        check(repdl_units_nodes_f32(4, 1, 2, V, x, SIZE_MAX, nodes) == REPDL_OK,
              "one unit: ldu is never applied", 4, 1, 2);
        memcpy(nodes, canary, sizeof canary);
        check(repdl_units_nodes_f32(4, 0, 4, lim / 3 + 1, x, lim / 3 + 1, nodes) == REPDL_ERR_OVERFLOW &&
              !memcmp(nodes, canary, sizeof canary), "units extent: V huge", 4, 0, 4);
        check(repdl_units_state_init(&s, 4, 0, 3, lim / 2 + 1, nodes) == REPDL_ERR_OVERFLOW &&
              repdl_units_state_push(&s, x) == REPDL_ERR_OVERFLOW, "state: 2 nodes of V = 2^61 floats", 4, 0, 3);
        repdl_units_state_free(&s);
        check(repdl_units_combine_f32(0, 0, NULL, lim + 1, NULL, nodes) == REPDL_ERR_OVERFLOW &&
              !memcmp(nodes, canary, sizeof canary), "combine: out of 2^62 floats", 0, 0, 0);
        check(repdl_units_combine_f32(3, 2, bounds3, lim / 2 + 1, nn3, nodes) == REPDL_ERR_OVERFLOW &&
              !memcmp(nodes, canary, sizeof canary), "combine: a range's 2 nodes of 2^61 floats", 3, 0, 3);
    }
    /* V = 0: units may be NULL whatever ldu (no NULL + offset); an empty
       range needs no tree, whatever V (tests/fuzz found both) */
    {
        repdl_units_state s;
        check(repdl_units_nodes_f32(10, 2, 7, 0, NULL, SIZE_MAX, NULL) == REPDL_OK, "V = 0, units NULL, ldu SIZE_MAX", 10, 2, 7);
        check(repdl_units_state_init(&s, 10, 3, 3, SIZE_MAX / 8, NULL) == REPDL_OK &&
              repdl_units_state_push(&s, x) == REPDL_ERR_INVALID, "empty range, V = 2^61", 10, 3, 3);
        repdl_units_state_free(&s);
    }
#if defined(__SSE__) && !defined(REPDL_PORTABLE_C)
    /* a state refused for the floating-point environment (flush to zero
       set) is still safe to free: init sets it empty before returning */
    {
        repdl_units_state s;
        unsigned int csr = _mm_getcsr();
        repdl_status st;
        memset(&s, 0xab, sizeof s);   /* what an uninitialised local may hold */
        _mm_setcsr(csr | 0x8000u);
        st = repdl_units_state_init(&s, 4, 0, 2, V, nodes);
        _mm_setcsr(csr);
        check(st == REPDL_ERR_FPENV, "init under FTZ: REPDL_ERR_FPENV", 4, 0, 2);
        check(repdl_units_state_push(&s, x) == REPDL_ERR_FPENV, "push after the refused init", 4, 0, 2);
        repdl_units_state_free(&s);
    }
#endif
    /* NULL state, NULL unit vector, NULL list */
    {
        repdl_units_state s;
        repdl_units_node one[1];
        check(repdl_units_state_init(NULL, 4, 0, 2, V, nodes) == REPDL_ERR_INVALID, "init NULL state", 4, 0, 2);
        check(repdl_units_state_push(NULL, x) == REPDL_ERR_INVALID, "push NULL state", 4, 0, 2);
        repdl_units_state_free(NULL);
        check(repdl_units_state_init(&s, 4, 0, 2, V, nodes) == REPDL_OK &&
              repdl_units_state_push(&s, NULL) == REPDL_ERR_INVALID &&
              repdl_units_state_push(&s, x) == REPDL_OK && repdl_units_state_push(&s, NULL) == REPDL_ERR_INVALID &&
              repdl_units_state_push(&s, x + V) == REPDL_OK, "push NULL x: refused, state unchanged", 4, 0, 2);
        repdl_units_state_free(&s);
        repdl_units_nodes_f32(4, 0, 2, V, x, V, nodes2);
        check(memcmp(nodes, nodes2, V * sizeof(float)) == 0, "push NULL x: same node after", 4, 0, 2);
        check(repdl_units_state_init(&s, 4, 0, 2, 0, NULL) == REPDL_OK && repdl_units_state_push(&s, NULL) == REPDL_OK,
              "push NULL x with V = 0", 4, 0, 2);
        repdl_units_state_free(&s);
        check(repdl_units_nodes(11, 1, 10, 5, NULL) == 4, "nodes: NULL list counts, writes nothing", 11, 1, 10);
        check(repdl_units_nodes(11, 1, 10, 1, one) == 4 && one[0].begin == 1 && one[0].count == 1,
              "nodes: max 1", 11, 1, 10);
    }
    check(!repdl_units_block_ok(2, 3, 10) && repdl_units_block_ok(8, 2, 10) &&
          repdl_units_block_ok(8, 3, 11) && !repdl_units_block_ok(8, 3, 12) &&
          repdl_units_block_ok(4, 3, 7) && !repdl_units_block_ok(2, 2, 3),
          "block_ok rules", 0, 0, 0);
    printf("test_units: %ld checks, %ld failures\n", checks, fails);
    return fails != 0;
}
