/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * MPI_Barrier time: median over repeats of the mean of many back-to-back
 * barriers, in microseconds, on MPI_COMM_WORLD.
 *   bench_barrier [-n barriers] [-r repeats]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench_stats.h"

int main (int argc, char **argv)
{
    int rank, size, opt, n = 20000, repeats = 7;
    double t[101];

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    while (-1 != (opt = getopt (argc, argv, "n:r:"))) {
        if ('n' == opt) n = atoi (optarg);
        if ('r' == opt) repeats = atoi (optarg);
    }
    if (n < 1 || repeats < 1 || repeats > 101) {
        MPI_Abort (MPI_COMM_WORLD, 2);
    }
    for (int i = 0 ; i < n / 10 ; ++i) {
        MPI_Barrier (MPI_COMM_WORLD);
    }
    for (int r = 0 ; r < repeats ; ++r) {
        double t0 = MPI_Wtime ();
        for (int i = 0 ; i < n ; ++i) {
            MPI_Barrier (MPI_COMM_WORLD);
        }
        t[r] = (MPI_Wtime () - t0) / n * 1e6;
    }
    if (0 == rank) {
        printf ("%d %.3f\n", size, bench_median (t, repeats));
    }
    MPI_Finalize ();
    return 0;
}
