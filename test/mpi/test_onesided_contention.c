/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Proves puts and gets stay right under lock contention (MPICH's
 * rma/contention_putget pattern): every rank, to every rank (itself
 * included), N times takes an exclusive lock, puts one double into its
 * own slot of the target's MPI_Win_create window and unlocks, then N
 * times locks, gets the slot back and unlocks.  Every value read back
 * must be the one put there, and at the end each rank finds every other
 * rank's N values in its own window.
 *
 *   test_onesided_contention [-n N]
 */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_check.h"

static int rank, nprocs, count = 500;

/* what rank `from' puts into slot j at `target' */
static double value (int from, int target, int j)
{
    return from * 1e6 + target * 1e3 + j + 0.5;
}

static int put_then_get (MPI_Win win, int target)
{
    int errors = 0;

    for (int j = 0 ; j < count ; ++j) {
        double v = value (rank, target, j);
        CHECK(MPI_Win_lock (MPI_LOCK_EXCLUSIVE, target, 0, win));
        CHECK(MPI_Put (&v, 1, MPI_DOUBLE, target, (MPI_Aint) rank * count + j, 1, MPI_DOUBLE, win));
        CHECK(MPI_Win_unlock (target, win));
    }
    for (int j = 0 ; j < count ; ++j) {
        double got = -1.0;
        CHECK(MPI_Win_lock (MPI_LOCK_EXCLUSIVE, target, 0, win));
        CHECK(MPI_Get (&got, 1, MPI_DOUBLE, target, (MPI_Aint) rank * count + j, 1, MPI_DOUBLE, win));
        CHECK(MPI_Win_unlock (target, win));
        if (got != value (rank, target, j) && errors++ < 3) {
            fprintf (stderr, "rank %d: slot %d at rank %d reads %.1f, put %.1f\n", rank, j, target, got,
                     value (rank, target, j));
        }
    }
    return errors;
}

int main (int argc, char **argv)
{
    int opt, errors = 0, mine = 0;
    double *buf;
    MPI_Win win;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    while (-1 != (opt = getopt (argc, argv, "n:"))) {
        if ('n' == opt) {
            count = atoi (optarg);
        } else {
            MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
    CHECK(MPI_Alloc_mem (sizeof (double) * nprocs * count, MPI_INFO_NULL, &buf));
    CHECK(MPI_Win_create (buf, sizeof (double) * nprocs * count, sizeof (double), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &win));
    CHECK(MPI_Win_lock (MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int i = 0 ; i < nprocs * count ; ++i) {
        buf[i] = 0.0;
    }
    CHECK(MPI_Win_unlock (rank, win));
    MPI_Barrier (MPI_COMM_WORLD);

    /* each rank starts with a different target, so every target is contended */
    for (int i = 0 ; i < nprocs ; ++i) {
        errors += put_then_get (win, (rank + i) % nprocs);
    }
    MPI_Barrier (MPI_COMM_WORLD);
    CHECK(MPI_Win_lock (MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int from = 0 ; from < nprocs ; ++from) {
        for (int j = 0 ; j < count ; ++j) {
            if (buf[from * count + j] != value (from, rank, j) && mine++ < 3) {
                fprintf (stderr, "rank %d: rank %d's slot %d holds %.1f\n", rank, from, j, buf[from * count + j]);
            }
        }
    }
    CHECK(MPI_Win_unlock (rank, win));
    char what[160];
    snprintf (what, sizeof (what), "MPI_Win_create, %d ranks each to every rank: %d exclusive lock-put-unlock, then "
              "%d lock-get-unlock, every value read back and left in place", nprocs, count, count);
    errors = test_report (what, errors + mine);

    CHECK(MPI_Win_free (&win));
    CHECK(MPI_Free_mem (buf));
    MPI_Finalize ();
    return errors;
}
