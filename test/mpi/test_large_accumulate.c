/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Large accumulates, modelled on MPICH's rma/large_acc_flush_local:
 * every round creates a window, and in one lock_all epoch every rank
 * adds into the next rank's window 10 times, 256 KiB to 2 MiB of ints
 * (MPI_SUM, each followed by MPI_Win_flush_local), then frees the
 * window.  Each rank checks every int of its own window: the sum of the
 * values its neighbour added, exactly.  Rank 0 prints "ok - ..." or
 * "not ok - ...", and the time per accumulate (reported, not judged).
 *
 *   test_large_accumulate [-r ROUNDS]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_check.h"

#define ACCS 10
#define MAX_INTS ((2 << 20) / (int) sizeof (int))

/* the value accumulate A of round R adds at index I */
static int addend (int round, int a, int i)
{
    return (round * 7 + a * 3 + i) % 5 + 1;
}

/* 256 KiB, 512 KiB, ... up to 2 MiB, then around again */
static int ints_of (int a)
{
    return (MAX_INTS >> (3 - a % 4));
}

static long round_trip (int round, int rank, int nprocs, int *base, int *source)
{
    long bad = 0;
    MPI_Win win;

    for (int i = 0 ; i < MAX_INTS ; ++i) {
        base[i] = 0;
    }
    CHECK(MPI_Win_create (base, MAX_INTS * sizeof (int), sizeof (int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK(MPI_Win_lock_all (0, win));
    for (int a = 0 ; a < ACCS ; ++a) {
        for (int i = 0 ; i < ints_of (a) ; ++i) {
            source[i] = addend (round, a, i);
        }
        CHECK(MPI_Accumulate (source, ints_of (a), MPI_INT, (rank + 1) % nprocs, 0, ints_of (a), MPI_INT,
                              MPI_SUM, win));
        CHECK(MPI_Win_flush_local ((rank + 1) % nprocs, win));
    }
    CHECK(MPI_Win_unlock_all (win));
    CHECK(MPI_Barrier (MPI_COMM_WORLD));
    for (int i = 0 ; i < MAX_INTS ; ++i) {
        int want = 0;

        for (int a = 0 ; a < ACCS ; ++a) {
            want += i < ints_of (a) ? addend (round, a, i) : 0;
        }
        bad += base[i] != want;
    }
    CHECK(MPI_Win_free (&win));
    return bad;
}

int main (int argc, char **argv)
{
    int rank, nprocs, rounds = 20, opt, errors = 0;
    int *base, *source;
    long bytes = 0;
    double t0, t;
    char what[200];

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    while (-1 != (opt = getopt (argc, argv, "r:"))) {
        if ('r' == opt) {
            rounds = atoi (optarg);
        }
    }
    base = malloc (MAX_INTS * sizeof (int));
    source = malloc (MAX_INTS * sizeof (int));
    if (NULL == base || NULL == source) {
        MPI_Abort (MPI_COMM_WORLD, 1);
    }
    t0 = MPI_Wtime ();
    for (int r = 0 ; r < rounds ; ++r) {
        long bad = round_trip (r, rank, nprocs, base, source);

        if (bad && !errors) {
            fprintf (stderr, "rank %d: round %d: %ld ints of its window wrong\n", rank, r, bad);
        }
        errors += bad != 0;
    }
    t = MPI_Wtime () - t0;
    for (int a = 0 ; a < ACCS ; ++a) {
        bytes += (long) ints_of (a) * (long) sizeof (int);
    }
    snprintf (what, sizeof (what), "%d ranks, %d rounds of window create, lock_all, %d MPI_Accumulate SUM of "
              "256 KiB to 2 MiB of ints with flush_local, free: every int exact (%.2f ms per accumulate, "
              "%.0f MB/s per rank)", nprocs, rounds, ACCS, t * 1e3 / (rounds * ACCS), bytes * rounds / t / 1e6);
    test_report (what, errors);
    free (base);
    free (source);
    MPI_Finalize ();
    return errors != 0;
}
