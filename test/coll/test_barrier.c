/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Proves MPI_Barrier is a barrier, whatever component provides it.  All
 * ranks share one machine clock (one host, even in the emulated cluster),
 * so CLOCK_MONOTONIC entry and exit times can be compared across ranks: no
 * rank may leave a barrier before the last rank entered it.  Ranks enter
 * with random delays.  Checked on MPI_COMM_WORLD, a duplicate, a split, a
 * split with reversed rank order and MPI_COMM_SELF; then 10,000
 * back-to-back barriers followed by another skew check; then many
 * communicator create/free cycles with a memory bound.  Rank 0 prints one
 * "ok - ..." or "not ok - ..." line per check.
 *
 *   test_barrier [-n SKEW_ROUNDS] [-b BACK_TO_BACK] [-c CREATE_FREE_CYCLES]
 *   test_barrier -k N    the last rank kills itself in barrier N; the others
 *                        report an error a barrier returns (exit 3), or are
 *                        ended by the job; they must not hang
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../mpi/test_rss.h"

static int world_rank, failures;

static double now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void verdict (int bad, const char *what, const char *comm_name)
{
    int total = 0;

    MPI_Reduce (&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == world_rank) {
        printf ("%s - %s on %s%s\n", total ? "not ok" : "ok", what, comm_name,
                total ? " (a rank left before the last one entered)" : "");
        fflush (stdout);
    }
    failures += total != 0;
    MPI_Barrier (MPI_COMM_WORLD);
}

/* Rounds of: random delay, barrier; afterwards every rank's exit must be
 * later than every rank's entry, round by round. */
static int skew_violations (MPI_Comm comm, int rounds, unsigned seed)
{
    int size, rank, bad = 0;
    double *times = malloc (2 * (size_t) rounds * sizeof (double)), *all = NULL;

    MPI_Comm_size (comm, &size);
    MPI_Comm_rank (comm, &rank);
    for (int r = 0 ; r < rounds ; ++r) {
        usleep ((useconds_t) (rand_r (&seed) % 1500));
        times[2 * r] = now ();
        MPI_Barrier (comm);
        times[2 * r + 1] = now ();
    }
    if (0 == rank) {
        all = malloc (2 * (size_t) rounds * size * sizeof (double));
    }
    MPI_Gather (times, 2 * rounds, MPI_DOUBLE, all, 2 * rounds, MPI_DOUBLE, 0, comm);
    if (0 == rank) {
        for (int r = 0 ; r < rounds ; ++r) {
            double last_entry = 0, first_exit = 1e300;

            for (int p = 0 ; p < size ; ++p) {
                double in = all[(size_t) p * 2 * rounds + 2 * r], out = all[(size_t) p * 2 * rounds + 2 * r + 1];
                last_entry = in > last_entry ? in : last_entry;
                first_exit = out < first_exit ? out : first_exit;
            }
            bad += first_exit < last_entry;
        }
        free (all);
    }
    free (times);
    return bad;
}

static int die_in_barrier (int n, int size)
{
    MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0 ; ; ++i) {
        int rc, cls;

        if (i == n && world_rank == size - 1) {
            raise (SIGKILL);
        }
        rc = MPI_Barrier (MPI_COMM_WORLD);
        if (MPI_SUCCESS != rc) {
            MPI_Error_class (rc, &cls);
            printf ("# rank %d: barrier %d returned error class %d\n", world_rank, i, cls);
            fflush (stdout);
            return 3;
        }
    }
}

int main (int argc, char **argv)
{
    int opt, rounds = 30, back_to_back = 10000, cycles = 10000, size, kill_at = -1;
    unsigned seed;
    MPI_Comm dup, half, reversed;
    char what[128];

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    while (-1 != (opt = getopt (argc, argv, "n:b:c:k:"))) {
        switch (opt) {
        case 'k': kill_at = atoi (optarg); break;
        case 'n': rounds = atoi (optarg); break;
        case 'b': back_to_back = atoi (optarg); break;
        case 'c': cycles = atoi (optarg); break;
        default: MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
    if (kill_at >= 0) {
        return die_in_barrier (kill_at, size);
    }
    seed = 12345u + 977u * (unsigned) world_rank;
    snprintf (what, sizeof (what), "%d skewed barriers, %d ranks", rounds, size);

    verdict (skew_violations (MPI_COMM_WORLD, rounds, seed), what, "MPI_COMM_WORLD");
    MPI_Comm_dup (MPI_COMM_WORLD, &dup);
    verdict (skew_violations (dup, rounds, seed), what, "a duplicate of MPI_COMM_WORLD");
    MPI_Comm_split (MPI_COMM_WORLD, world_rank % 2, world_rank, &half);
    verdict (skew_violations (half, rounds, seed), what, "each half of an even/odd split");
    MPI_Comm_split (MPI_COMM_WORLD, 0, size - world_rank, &reversed);
    verdict (skew_violations (reversed, rounds, seed), what, "a split with reversed rank order");
    verdict (skew_violations (MPI_COMM_SELF, 3, seed), "barriers alone", "MPI_COMM_SELF");

    for (int i = 0 ; i < back_to_back ; ++i) {
        MPI_Barrier (dup);
    }
    snprintf (what, sizeof (what), "%d back-to-back barriers, then %d skewed ones", back_to_back, rounds);
    verdict (skew_violations (dup, rounds, seed), what, "a duplicate of MPI_COMM_WORLD");
    MPI_Comm_free (&dup);
    MPI_Comm_free (&half);
    MPI_Comm_free (&reversed);

    /* every communicator's barrier state must go with it */
    long before = 0, growth, max_growth = 0;
    for (int i = 0 ; i < cycles ; ++i) {
        MPI_Comm c;

        if (i == cycles / 10) {
            before = rss_kib (); /* after the allocators' start-up growth */
        }
        MPI_Comm_dup (MPI_COMM_WORLD, &c);
        MPI_Barrier (c);
        MPI_Comm_free (&c);
    }
    growth = rss_kib () - before;
    MPI_Reduce (&growth, &max_growth, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (0 == world_rank) {
        int bad = max_growth > 4096;
        printf ("%s - %d communicator create/barrier/free cycles: memory grew by %ld KiB over the last 90%%\n",
                bad ? "not ok" : "ok", cycles, max_growth);
        failures += bad;
    }

    MPI_Finalize ();
    return failures ? 1 : 0;
}
