/* SPDX-License-Identifier: MIT */
/* tests/dp/test_dp_mpi.c: repdl_dp_step_mpi_f32 (include/repdl/data_parallel.h
   with REPDL_DP_MPI) under mpirun -np R.

   Every rank runs the step on its plan (rank r of R, 1 to 3 threads) with
   the synthetic callback of dp_case.h, and every rank checks the result
   against the buddy tree over units written in dp_case.h: batches of 0 to
   1000 samples, micro-batches of 1, 3 and 16, V = 0, 1, 37 (so some ranks
   own no micro-batch).  Then the agreement: a callback that fails on the
   last rank only, a plan whose rank is not the communicator's on one rank,
   a NULL callback on rank 0: every rank must return the same status
   (the most negative) with grad not written. */
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPDL_DP_MPI 1
#include <repdl/data_parallel.h>

#include "../common/check.h"
#include "dp_case.h"

static int all_agree(int v)
{
    int lo, hi;
    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

int main(int argc, char **argv)
{
    static const size_t batches[] = {0, 1, 17, 50, 64, 100, 1000};
    static const size_t mbs[] = {1, 3, 16};
    static const size_t Vs[] = {0, 1, 37};
    int R, me, T;
    size_t ib, im, iv, i;
    float g[40], want[40];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (ib = 0; ib < sizeof batches / sizeof batches[0]; ib++)
        for (im = 0; im < sizeof mbs / sizeof mbs[0]; im++)
            for (iv = 0; iv < sizeof Vs / sizeof Vs[0]; iv++)
                for (T = 1; T <= 3; T++) {
                    size_t B = batches[ib], mb = mbs[im], V = Vs[iv];
                    repdl_dp dp;
                    dp_case c;
                    repdl_status st;
                    dp_case_init(&c, 11, B, mb, V, T);
                    ref_sum(11, c.G, V, want);
                    st = repdl_dp_init(&dp, B, mb, V, T, R, me);
                    CHECK(st == REPDL_OK, "init %d", (int)st);
                    memset(g, 0x5a, sizeof g);
                    st = repdl_dp_step_mpi_f32(&dp, MPI_COMM_WORLD, case_unit, &c, g);
                    CHECK(st == REPDL_OK, "rank %d: B %zu mb %zu V %zu T %d: %d", me, B, mb, V,
                          T, (int)st);
                    CHECK_SAME(g, want, V, "rank %d of %d: B %zu mb %zu V %zu T %d", me, R, B, mb,
                               V, T);
                    CHECK(asuint(g[V]) == 0x5a5a5a5au, "rank %d: wrote past V", me);
                    for (i = 0; i < c.G; i++)
                        CHECK(c.calls[i] == (i >= dp.unit0 && i < dp.unit1) && !c.bad[i],
                              "rank %d: unit %zu called %d times", me, i, c.calls[i]);
                    repdl_dp_free(&dp);
                    dp_case_free(&c);
                }

    /* the ranks agree on failures */
    {
        repdl_dp dp;
        dp_case c;
        repdl_status st;
        int untouched;
        dp_case_init(&c, 12, 100, 16, 37, 2);
        CHECK(repdl_dp_init(&dp, 100, 16, 37, 2, R, me) == REPDL_OK, "init");
        if (me == R - 1) { /* the last rank's last unit fails */
            c.fail_unit[0] = dp.unit1 - 1;
            c.fail_status[0] = REPDL_ERR_OVERFLOW;
        }
        memset(g, 0x5a, sizeof g);
        st = repdl_dp_step_mpi_f32(&dp, MPI_COMM_WORLD, case_unit, &c, g);
        untouched = asuint(g[0]) == 0x5a5a5a5au && asuint(g[36]) == 0x5a5a5a5au;
        CHECK(st == REPDL_ERR_OVERFLOW && untouched && all_agree((int)st),
              "rank %d: a callback failing on rank %d: %d", me, R - 1, (int)st);
        c.fail_unit[0] = c.G;
        /* rank 0 passes no callback; the last rank a plan made for another
           rank count (one rank: a plan of 2 ranks) */
        if (me == R - 1 && R > 1) {
            repdl_dp_free(&dp);
            CHECK(repdl_dp_init(&dp, 100, 16, 37, 2, R + 1, me) == REPDL_OK, "init R + 1");
        }
        st = repdl_dp_step_mpi_f32(&dp, MPI_COMM_WORLD, me == 0 ? NULL : case_unit, &c, g);
        CHECK(st == REPDL_ERR_INVALID && all_agree((int)st) && asuint(g[0]) == 0x5a5a5a5au,
              "rank %d: bad arguments on some ranks: %d", me, (int)st);
        /* and then a good step on the same plans (the last rank's remade) */
        if (me == R - 1 && R > 1) {
            repdl_dp_free(&dp);
            CHECK(repdl_dp_init(&dp, 100, 16, 37, 2, R, me) == REPDL_OK, "init R");
        }
        dp_case_reset(&c);
        ref_sum(12, 7, 37, want);
        st = repdl_dp_step_mpi_f32(&dp, MPI_COMM_WORLD, case_unit, &c, g);
        CHECK(st == REPDL_OK, "rank %d: step after failures %d", me, (int)st);
        CHECK_SAME(g, want, 37, "rank %d: step after failures", me);
        repdl_dp_free(&dp);
        dp_case_free(&c);
    }
    {
        /* each rank's verdict; rank 0 reports */
        long f = check_failures, all = 0;
        MPI_Allreduce(&f, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        check_failures = all;
    }
    MPI_Finalize();
    if (me != 0) return check_failures != 0;
    return check_summary("test_dp_mpi");
}
