/* SPDX-License-Identifier: MIT */
/* bench/mpi/bench_mpi.c: the canonical allreduce (repdl_mpi_sum_nodes_f32)
   against MPI_Allreduce(MPI_SUM) on the same vectors (docs/mpi.md).

     mpirun -np R build/bench/mpi/bench_mpi [--reps K] [--max-log2 L]

   Sizes 2^20, 2^22, 2^24, 2^26 floats (1M .. 64M; --max-log2 caps it).
   Two layouts of the units:
     aligned  U = R units, rank r owns unit r: one node a rank (the usual
              data-parallel step);
     uneven   U = 10 R + 3 units cut evenly: several nodes a rank (the
              partial-node overhead), up to 2^24 floats (memory).
   Each time is the slowest rank's (a barrier, then the call, then the
   maximum over ranks), the median of K repetitions after one warm-up.
   Throughput = vector bytes / time.  The node vectors are built before
   timing (they are the caller's data, as MPI_Allreduce's input is). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/mpi.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int k)
{
    qsort(t, (size_t)k, sizeof *t, cmp_d);
    return k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
}

/* The slowest rank's time of one call. */
static double timed(int which, MPI_Comm comm, size_t U, size_t u0, size_t u1, size_t V,
                    const float *nodes, float *out)
{
    double t0, t, tmax;
    MPI_Barrier(comm);
    t0 = MPI_Wtime();
    if (which == 0) {
        if (repdl_mpi_sum_nodes_f32(comm, U, u0, u1, V, nodes, out) != REPDL_OK) MPI_Abort(comm, 2);
    } else {
        MPI_Allreduce(nodes, out, (int)V, MPI_FLOAT, MPI_SUM, comm);
    }
    t = MPI_Wtime() - t0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    return tmax;
}

int main(int argc, char **argv)
{
    int R, me, reps = 7, maxlog = 26, lg, layout, i, k;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-log2") && i + 1 < argc) maxlog = atoi(argv[++i]);
    }
    if (reps < 1) reps = 1;
    if (me == 0)
        printf("# %d ranks, median of %d (slowest rank), GB/s = 4 V bytes / time\n"
               "%-8s %10s %6s %12s %12s %9s %9s %7s\n",
               R, reps, "layout", "floats", "nodes", "repdl ms", "MPI ms", "repdl GB/s", "MPI GB/s",
               "ratio");
    for (layout = 0; layout < 2; layout++)
        for (lg = 20; lg <= maxlog; lg += 2) {
            size_t V = (size_t)1 << lg, U, u0, u1, N, e;
            float *units, *nodes, *out;
            double *t0 = (double *)malloc((size_t)reps * sizeof(double));
            double *t1 = (double *)malloc((size_t)reps * sizeof(double));
            double a, b;
            unsigned long long nn;
            if (layout == 1 && lg > 24) break;
            U = layout == 0 ? (size_t)R : 10 * (size_t)R + 3;
            u0 = U * (size_t)me / (size_t)R;
            u1 = U * (size_t)(me + 1) / (size_t)R;
            N = repdl_units_nodes(U, u0, u1, 0, NULL);
            units = (float *)malloc((u1 - u0) * V * sizeof(float) + 4);
            nodes = (float *)malloc((N ? N : 1) * V * sizeof(float));
            out = (float *)malloc(V * sizeof(float));
            if (!units || !nodes || !out || !t0 || !t1) MPI_Abort(MPI_COMM_WORLD, 1);
            for (e = 0; e < (u1 - u0) * V; e++)
                units[e] = (float)((e * 2654435761u + (size_t)me) % 1000003) * 1e-3f - 500.0f;
            if (repdl_units_nodes_f32(U, u0, u1, V, units, V, nodes) != REPDL_OK)
                MPI_Abort(MPI_COMM_WORLD, 1);
            free(units);
            nn = N;
            MPI_Allreduce(MPI_IN_PLACE, &nn, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
            /* MPI_Allreduce sums the first node vector of each rank (the
               same bytes per rank as the aligned layout) */
            timed(0, MPI_COMM_WORLD, U, u0, u1, V, nodes, out);
            timed(1, MPI_COMM_WORLD, U, u0, u1, V, nodes, out);
            for (k = 0; k < reps; k++) {
                t0[k] = timed(0, MPI_COMM_WORLD, U, u0, u1, V, nodes, out);
                t1[k] = timed(1, MPI_COMM_WORLD, U, u0, u1, V, nodes, out);
            }
            a = median(t0, reps);
            b = median(t1, reps);
            if (me == 0)
                printf("%-8s %10zu %6llu %12.2f %12.2f %9.2f %9.2f %7.2f\n",
                       layout ? "uneven" : "aligned", V, nn, a * 1e3, b * 1e3,
                       4.0 * (double)V / a * 1e-9, 4.0 * (double)V / b * 1e-9, b / a);
            free(nodes); free(out); free(t0); free(t1);
        }
    MPI_Finalize();
    return 0;
}
