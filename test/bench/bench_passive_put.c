/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Truly passive put, as Intel's IMB-RMA defines it (its Truly_passive_put,
 * not packaged in Debian; this is our own program of that definition):
 * does an origin's MPI_Put complete while the target computes?
 *
 * Per SIZE, rank 0 (the origin) holds a shared lock on rank 1's window.
 *   t_pure: each iteration is MPI_Put of SIZE bytes, MPI_Win_flush and
 *           MPI_Barrier, while the target only calls MPI_Barrier.
 *   t_ovrl: the same, while the target, at each iteration, first computes
 *           for t_pure (work calibrated before, not wall time: CPU taken
 *           from the computation makes it longer) and only then enters
 *           MPI_Barrier.
 * On a truly passive path the put completes during the computation and
 * t_ovrl is t_pure plus the barrier's tail; IMB's criterion is t_ovrl <=
 * 1.2 t_pure.  Without progress at the target the put waits for the
 * barrier and t_ovrl is about 2 t_pure.
 * The target checks every byte of the last put of each size.
 *
 *   bench_passive_put SIZE...
 * prints: size_bytes iterations t_pure_us t_ovrl_us
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mpi/test_check.h"

/* the computation's unit: about a microsecond of dependent arithmetic */
#define UNIT_STEPS 300

static double units_per_second;

static void work (long units)
{
    volatile double x = 1.0;

    for (long u = 0; u < units; ++u) {
        for (int s = 0; s < UNIT_STEPS; ++s) {
            x = x * 1.0000001 + 1e-9;
        }
    }
}

/* the rate of this core, alone, taken over 200 ms */
static void calibrate (void)
{
    long units = 0;
    double start = MPI_Wtime (), elapsed;

    do {
        work (100);
        units += 100;
        elapsed = MPI_Wtime () - start;
    } while (elapsed < 0.2);
    units_per_second = units / elapsed;
}

static unsigned char pattern (size_t size, size_t i)
{
    return (unsigned char) (i * 131 + size * 7 + 1);
}

/* enough iterations for a stable mean, at most about 64 MiB moved */
static int iterations (size_t size)
{
    long n = (64L << 20) / (long) (size + 1);
    return n > 1000 ? 1000 : (n < 16 ? 16 : (int) n);
}

/* microseconds per iteration */
static double origin_loop (const unsigned char *src, size_t size, int iters, MPI_Win win)
{
    double start = MPI_Wtime ();

    for (int i = 0; i < iters; ++i) {
        CHECK(MPI_Put (src, (int) size, MPI_BYTE, 1, 0, (int) size, MPI_BYTE, win));
        CHECK(MPI_Win_flush (1, win));
        CHECK(MPI_Barrier (MPI_COMM_WORLD));
    }
    return (MPI_Wtime () - start) / iters * 1e6;
}

static void target_loop (int iters, double compute_us)
{
    long units = (long) (compute_us * 1e-6 * units_per_second + 0.5);

    for (int i = 0; i < iters; ++i) {
        work (units);
        CHECK(MPI_Barrier (MPI_COMM_WORLD));
    }
}

static void origin (unsigned char *src, size_t size, MPI_Win win)
{
    int iters = iterations (size);
    double t_pure, t_ovrl;

    for (size_t i = 0; i < size; ++i) {
        src[i] = pattern (size, i);
    }
    CHECK(MPI_Win_lock (MPI_LOCK_SHARED, 1, 0, win));
    CHECK(MPI_Put (src, (int) size, MPI_BYTE, 1, 0, (int) size, MPI_BYTE, win));  /* warm-up */
    CHECK(MPI_Win_flush (1, win));
    CHECK(MPI_Barrier (MPI_COMM_WORLD));
    t_pure = origin_loop (src, size, iters, win);
    CHECK(MPI_Send (&t_pure, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD));
    CHECK(MPI_Barrier (MPI_COMM_WORLD));
    t_ovrl = origin_loop (src, size, iters, win);
    CHECK(MPI_Win_unlock (1, win));
    CHECK(MPI_Barrier (MPI_COMM_WORLD));
    printf ("%zu %d %.2f %.2f\n", size, iters, t_pure, t_ovrl);
    fflush (stdout);
}

static void target (const unsigned char *window, size_t size)
{
    int iters = iterations (size);
    double t_pure;

    CHECK(MPI_Barrier (MPI_COMM_WORLD));
    target_loop (iters, 0);
    CHECK(MPI_Recv (&t_pure, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(MPI_Barrier (MPI_COMM_WORLD));
    target_loop (iters, t_pure);
    CHECK(MPI_Barrier (MPI_COMM_WORLD));  /* the origin's unlock is done */
    for (size_t i = 0; i < size; ++i) {
        if (window[i] != pattern (size, i)) {
            fprintf (stderr, "bench_passive_put: size %zu: byte %zu is %u, expected %u\n", size, i,
                     window[i], pattern (size, i));
            MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
}

int main (int argc, char **argv)
{
    unsigned char *window, *src;
    size_t max = 0;
    int rank, nprocs;
    MPI_Win win;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    if (2 != nprocs || argc < 2) {
        if (0 == rank) {
            fprintf (stderr, "usage: mpirun -np 2 bench_passive_put SIZE...\n");
        }
        MPI_Abort (MPI_COMM_WORLD, 1);
    }
    for (int a = 1; a < argc; ++a) {
        size_t s = strtoull (argv[a], NULL, 0);
        max = s > max ? s : max;
    }
    src = malloc (max + 1);
    CHECK(MPI_Win_allocate ((MPI_Aint) max + 1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &window, &win));
    if (NULL == src) {
        MPI_Abort (MPI_COMM_WORLD, 1);
    }
    if (1 == rank) {
        calibrate ();
    }
    if (0 == rank) {
        printf ("# size_bytes iterations t_pure_us t_ovrl_us\n");
    }
    for (int a = 1; a < argc; ++a) {
        size_t size = strtoull (argv[a], NULL, 0);

        if (0 == rank) {
            origin (src, size, win);
        } else {
            target (window, size);
        }
    }
    CHECK(MPI_Win_free (&win));
    free (src);
    MPI_Finalize ();
    return 0;
}
