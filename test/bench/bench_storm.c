/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The connection storm as a user meets it: MPI_Alltoall of 16 KiB blocks,
 * 3 rounds, on a job where no connection exists yet, so the first round
 * makes every one.  Every received byte is checked.  Rank 0 prints, in
 * seconds, the slowest rank's time in MPI_Init and in each round (what
 * MPI_Finalize takes only the launcher sees: the script's wall time):
 *   init SECONDS
 *   round 1 SECONDS ... round 3 SECONDS
 *   bad_bytes N
 * (test/bench/bench_storm.sh runs it against btl/tcp.)
 *   mpirun -np N bench_storm [BLOCK_BYTES]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double wall_now (void)
{
    struct timespec t;

    clock_gettime (CLOCK_REALTIME, &t);
    return (double) t.tv_sec + (double) t.tv_nsec * 1e-9;
}

static unsigned char pattern (int from, int to, int round, size_t i)
{
    return (unsigned char) (from * 7 + to * 3 + round * 11 + i);
}

int main (int argc, char **argv)
{
    double start = wall_now (), init, rounds[3], slowest;
    size_t block = argc > 1 ? strtoul (argv[1], NULL, 10) : 16384;
    long bad = 0, total_bad = 0;
    unsigned char *out, *in;
    int rank, size;

    MPI_Init (&argc, &argv);
    init = wall_now () - start;
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    out = malloc (block * (size_t) size);
    in = malloc (block * (size_t) size);
    if (NULL == out || NULL == in) {
        fprintf (stderr, "bench_storm: no memory for %d blocks of %zu bytes\n", size, block);
        MPI_Abort (MPI_COMM_WORLD, 1);
    }
    for (int round = 0 ; round < 3 ; ++round) {
        double t;

        for (int p = 0 ; p < size ; ++p) {
            for (size_t i = 0 ; i < block ; ++i) {
                out[(size_t) p * block + i] = pattern (rank, p, round, i);
            }
        }
        memset (in, 0, block * (size_t) size);
        t = MPI_Wtime ();
        MPI_Alltoall (out, (int) block, MPI_BYTE, in, (int) block, MPI_BYTE, MPI_COMM_WORLD);
        rounds[round] = MPI_Wtime () - t;
        for (int p = 0 ; p < size ; ++p) {
            for (size_t i = 0 ; i < block ; ++i) {
                bad += in[(size_t) p * block + i] != pattern (p, rank, round, i);
            }
        }
    }
    MPI_Reduce (&init, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf ("init %.3f\n", slowest);
    }
    for (int round = 0 ; round < 3 ; ++round) {
        MPI_Reduce (&rounds[round], &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (0 == rank) {
            printf ("round %d %.3f\n", round + 1, slowest);
        }
    }
    MPI_Reduce (&bad, &total_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf ("bad_bytes %ld\n", total_bad);
    }
    free (out);
    free (in);
    MPI_Finalize ();
    return 0;
}
