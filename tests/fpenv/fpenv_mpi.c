/* SPDX-License-Identifier: MIT */
/* tests/fpenv/fpenv_mpi.c: repdl_mpi_sum_nodes_f32 (repdl/mpi.h) refuses a
   floating-point environment that would change the bits on every rank
   alike, and never leaves a rank waiting: with flush-to-zero set on rank 0
   only (MXCSR, or FPCR on aarch64), every rank returns REPDL_ERR_FPENV and
   writes nothing; restored, every rank returns REPDL_OK and the sum of the
   ranks' unit vectors.  Run with mpirun -np 2 or more (tests/fpenv/meson.build).
   77 (skipped) where the mode cannot be set by hand. */
#include <repdl/mpi.h>

#include <stdio.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE__)
#include <xmmintrin.h>
#define CAN_SET 1
static void ftz(int on) { _mm_setcsr(on ? (_mm_getcsr() | 0x8000u) : (_mm_getcsr() & ~0x8000u)); }
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#define CAN_SET 1
static void ftz(int on)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
    v = on ? (v | (1u << 24)) : (v & ~(uint64_t)(1u << 24));
    __asm__ __volatile__("msr fpcr, %0" : : "r"(v));
}
#else
#define CAN_SET 0
static void ftz(int on) { (void)on; }
#endif

#define V 8

int main(int argc, char **argv)
{
    int R, me, fail = 0, all_fail = 0, r;
    float node[V], out[V], canary[V];
    repdl_status st;
    size_t i;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (!CAN_SET) {
        if (me == 0) printf("SKIP: the floating-point mode cannot be set here\n");
        MPI_Finalize();
        return 77;
    }
    /* rank r holds unit r of R: its node is its unit vector */
    for (i = 0; i < V; i++) node[i] = (float)(me + 1) * 0.5f + (float)i;
    memset(canary, 0x5a, sizeof canary);

    memcpy(out, canary, sizeof out);
    if (me == 0) ftz(1);
    st = repdl_mpi_sum_nodes_f32(MPI_COMM_WORLD, (size_t)R, (size_t)me, (size_t)me + 1, V, node, out);
    if (me == 0) ftz(0);
    if (st != REPDL_ERR_FPENV || memcmp(out, canary, sizeof out)) {
        printf("FAIL rank %d, FTZ on rank 0: status %d (%s), output %s\n", me, (int)st,
               repdl_status_string(st), memcmp(out, canary, sizeof out) ? "written" : "untouched");
        fail = 1;
    }

    memcpy(out, canary, sizeof out);
    st = repdl_mpi_sum_nodes_f32(MPI_COMM_WORLD, (size_t)R, (size_t)me, (size_t)me + 1, V, node, out);
    if (st != REPDL_OK) {
        printf("FAIL rank %d, restored: status %d\n", me, (int)st);
        fail = 1;
    } else {
        /* every partial sum is an exact multiple of 0.5 below 2^20: any
           order gives this value, computed here by a plain loop */
        for (i = 0; i < V; i++) {
            float want = 0.0f;
            for (r = 0; r < R; r++) want += (float)(r + 1) * 0.5f + (float)i;
            if (memcmp(&want, &out[i], sizeof want)) {
                printf("FAIL rank %d, restored: out[%zu] = %g, expected %g\n", me, i, (double)out[i],
                       (double)want);
                fail = 1;
            }
        }
    }
    MPI_Allreduce(&fail, &all_fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0)
        printf("%d ranks: FTZ on rank 0 refused on every rank, nothing written; restored: "
               "the sum: %s\n", R, all_fail ? "FAILED" : "ok");
    MPI_Finalize();
    return all_fail;
}
