/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Connection set-up cost: every rank exchanges one byte with every other
 * rank (a ring of shifts: in round k, rank r sends to r+k and receives
 * from r-k), first when no connection exists yet (connections are made on
 * demand), then again over the connections now made.  The difference is
 * what making the connections cost.  The received bytes are checked.
 * Rank 0 prints, in microseconds:  first_exchange  warm_exchange  setup
 * (the slowest rank's times, one run; repeat the command for a median).
 *
 *   mpirun -np N bench_connect
 */
#include <mpi.h>
#include <stdio.h>

static double exchange_all (int rank, int nprocs, int *bad)
{
    double start = MPI_Wtime ();

    for (int k = 1 ; k < nprocs ; ++k) {
        int to = (rank + k) % nprocs, from = (rank + nprocs - k) % nprocs;
        unsigned char out = (unsigned char) (rank * 31 + k), in = 0;

        MPI_Sendrecv (&out, 1, MPI_BYTE, to, k, &in, 1, MPI_BYTE, from, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        *bad += in != (unsigned char) (from * 31 + k);
    }
    return (MPI_Wtime () - start) * 1e6;
}

int main (int argc, char **argv)
{
    int rank, nprocs, bad = 0, total_bad = 0;
    double first, warm, slowest_first, slowest_warm;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    first = exchange_all (rank, nprocs, &bad);
    warm = exchange_all (rank, nprocs, &bad);
    MPI_Reduce (&first, &slowest_first, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce (&warm, &slowest_warm, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce (&bad, &total_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        if (total_bad) {
            fprintf (stderr, "bench_connect: %d wrong bytes\n", total_bad);
        } else {
            printf ("%.1f %.1f %.1f\n", slowest_first, slowest_warm, slowest_first - slowest_warm);
        }
    }
    MPI_Finalize ();
    return total_bad ? 1 : 0;
}
