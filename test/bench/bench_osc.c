/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * MPI one-sided benchmark on 2 ranks, passive target (lock_all): put and
 * get latency (one operation, then MPI_Win_flush), put and get bandwidth (a
 * window of operations, one flush) and MPI_Fetch_and_op latency, in a
 * lock_all epoch (Open MPI 4.1.4's osc/rdma takes the target's accumulate
 * lock around each one there: three network atomics) and in an exclusive
 * lock epoch (one network atomic), and MPI_Compare_and_swap latency in an
 * exclusive lock epoch, and the bandwidth of MPI_Accumulate (MPI_SUM of
 * MPI_INT over the largest SIZE, each followed by a flush, in lock_all).
 * Rank 0 is the origin.  Contents are checked: a broken path cannot post
 * a number.
 * When the MPI library cannot give a window or an operation fails, it
 * prints "# failed: <call>: <MPI error string>" and exits 3, so a runner
 * can put the reason in its table.
 *
 *   bench_osc [-r repeats] [-c] SIZE...
 *     -c  MPI_Win_create on malloc'd memory (default MPI_Win_allocate, which
 *         Open MPI serves from shared memory with osc/sm on one node)
 * prints: size_bytes put_us get_us put_MBps get_MBps
 *   then   fop_us LOCK_ALL EXCLUSIVE   then   cas_us X   then   acc_MBps SIZE X
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_stats.h"

#define MAX_REPEATS 101
#define WINDOW 16

static int rank;

static void fail (const char *call, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    MPI_Error_string (rc, msg, &len);
    if (0 == rank) {
        printf ("# failed: %.*s: %s\n", (int) strcspn (call, " ("), call, msg);
        fflush (stdout);
    }
    MPI_Abort (MPI_COMM_WORLD, 3);
}

/* names the MPI call (the text before its first parenthesis) */
#define CHECK(call) do { int rc_ = (call); if (MPI_SUCCESS != rc_) fail (#call, rc_); } while (0)

static int iterations (size_t size)
{
    long n = 20000000L / (long) (size + 2000);
    return n < 10 ? 10 : (n > 10000 ? 10000 : (int) n);
}

/* one put or get per flush (window 1) or WINDOW per flush; microseconds per
 * operation */
static double rma (int put, unsigned char *local, size_t size, int window, int iters, MPI_Win win)
{
    double t0 = MPI_Wtime ();

    for (int i = 0 ; i < iters ; ++i) {
        for (int w = 0 ; w < window ; ++w) {
            if (put) {
                CHECK(MPI_Put (local, (int) size, MPI_BYTE, 1, 0, (int) size, MPI_BYTE, win));
            } else {
                CHECK(MPI_Get (local, (int) size, MPI_BYTE, 1, 0, (int) size, MPI_BYTE, win));
            }
        }
        CHECK(MPI_Win_flush (1, win));
    }
    return (MPI_Wtime () - t0) / iters / window * 1e6;
}

static MPI_Win window (size_t size, int create, unsigned char **base)
{
    MPI_Win win;

    if (create) {
        *base = malloc (size);
        CHECK(MPI_Win_create (*base, (MPI_Aint) size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {
        CHECK(MPI_Win_allocate ((MPI_Aint) size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, base, &win));
    }
    MPI_Win_set_errhandler (win, MPI_ERRORS_RETURN);
    return win;
}

static void close_window (MPI_Win win, int create, unsigned char *base)
{
    MPI_Win_free (&win);
    if (create) {
        free (base);
    }
}

/* microseconds per MPI_Fetch_and_op + flush on rank 1's counter, in a
 * lock_all or an exclusive lock epoch */
static double fetch_and_add (MPI_Win win, int64_t *counter, int exclusive, int *bad)
{
    int64_t one = 1, old = -1;
    int iters = 2000;
    double t = 0;

    *counter = 0;
    MPI_Barrier (MPI_COMM_WORLD);
    if (!exclusive) {
        CHECK(MPI_Win_lock_all (0, win));
    } else if (0 == rank) {
        CHECK(MPI_Win_lock (MPI_LOCK_EXCLUSIVE, 1, 0, win));
    }
    if (0 == rank) {
        double t0 = MPI_Wtime ();

        for (int i = 0 ; i < iters ; ++i) {
            CHECK(MPI_Fetch_and_op (&one, &old, MPI_INT64_T, 1, 0, MPI_SUM, win));
            CHECK(MPI_Win_flush (1, win));
            *bad += old != i;
        }
        t = (MPI_Wtime () - t0) / iters * 1e6;
    }
    if (!exclusive) {
        CHECK(MPI_Win_unlock_all (win));
    } else if (0 == rank) {
        CHECK(MPI_Win_unlock (1, win));
    }
    MPI_Barrier (MPI_COMM_WORLD);
    return t;
}

/* microseconds per MPI_Compare_and_swap + flush on rank 1's word, which
 * counts up: each swap must find the value the last one left */
static double compare_and_swap (MPI_Win win, int64_t *word, int *bad)
{
    int64_t expected, next, old;
    int iters = 2000;
    double t = 0;

    *word = 0;
    MPI_Barrier (MPI_COMM_WORLD);
    if (0 == rank) {
        double t0 = MPI_Wtime ();

        CHECK(MPI_Win_lock (MPI_LOCK_EXCLUSIVE, 1, 0, win));
        for (int i = 0 ; i < iters ; ++i) {
            expected = i;
            next = i + 1;
            CHECK(MPI_Compare_and_swap (&next, &expected, &old, MPI_INT64_T, 1, 0, win));
            CHECK(MPI_Win_flush (1, win));
            *bad += old != i;
        }
        CHECK(MPI_Win_unlock (1, win));
        t = (MPI_Wtime () - t0) / iters * 1e6;
    }
    MPI_Barrier (MPI_COMM_WORLD);
    return t;
}

/* MB/s of MPI_Accumulate (MPI_SUM of ones as MPI_INT) of SIZE bytes into
 * rank 1's window, each followed by a flush: afterwards every int there
 * must equal the number of accumulates. */
static double accumulate (MPI_Win win, int *target, size_t size, int *bad)
{
    int count = (int) (size / sizeof (int)), iters = 20;
    int *ones = malloc (size);
    double t = 0;

    for (int i = 0 ; i < count ; ++i) {
        ones[i] = 1;
    }
    memset (target, 0, size);
    MPI_Barrier (MPI_COMM_WORLD);
    CHECK(MPI_Win_lock_all (0, win));
    if (0 == rank) {
        double t0 = MPI_Wtime ();

        for (int i = 0 ; i < iters ; ++i) {
            CHECK(MPI_Accumulate (ones, count, MPI_INT, 1, 0, count, MPI_INT, MPI_SUM, win));
            CHECK(MPI_Win_flush (1, win));
        }
        t = (double) size * iters / (MPI_Wtime () - t0) / 1e6;
    }
    CHECK(MPI_Win_unlock_all (win));
    MPI_Barrier (MPI_COMM_WORLD);
    for (int i = 0 ; 1 == rank && i < count ; ++i) {
        *bad += target[i] != iters;
    }
    free (ones);
    return t;
}

int main (int argc, char **argv)
{
    int nprocs, opt, repeats = 5, bad = 0, create = 0;
    size_t max = 8;
    unsigned char *base, *local;
    MPI_Win win;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    while (-1 != (opt = getopt (argc, argv, "r:c"))) {
        if ('r' == opt) repeats = atoi (optarg);
        if ('c' == opt) create = 1;
    }
    if (2 != nprocs || optind >= argc || repeats < 1 || repeats > MAX_REPEATS) {
        if (0 == rank) {
            fprintf (stderr, "usage: mpirun -np 2 %s [-r 1..%d] SIZE...\n", argv[0], MAX_REPEATS);
        }
        MPI_Abort (MPI_COMM_WORLD, 2);
    }
    for (int a = optind ; a < argc ; ++a) {
        size_t s = strtoull (argv[a], NULL, 0);
        max = s > max ? s : max;
    }
    win = window (max, create, &base);
    local = malloc (max);

    if (0 == rank) {
        printf ("# size_bytes put_us get_us put_MBps get_MBps (medians of %d)\n", repeats);
    }
    for (int a = optind ; a < argc ; ++a) {
        size_t size = strtoull (argv[a], NULL, 0);
        int iters = iterations (size);
        double put_lat[MAX_REPEATS], get_lat[MAX_REPEATS], put_bw[MAX_REPEATS], get_bw[MAX_REPEATS];

        for (int r = 0 ; r < repeats ; ++r) {
            /* puts carry 0xa0 + r; afterwards the target checks its window */
            memset (local, 0xa0 + r, size);
            memset (base, 0, max);
            MPI_Barrier (MPI_COMM_WORLD);
            CHECK(MPI_Win_lock_all (0, win));
            if (0 == rank) {
                put_lat[r] = rma (1, local, size, 1, iters, win);
                put_bw[r] = size / rma (1, local, size, WINDOW, iters / WINDOW + 1, win);
            }
            CHECK(MPI_Win_unlock_all (win));
            MPI_Barrier (MPI_COMM_WORLD);
            bad += 1 == rank && size && (base[0] != 0xa0 + r || base[size - 1] != 0xa0 + r);

            /* gets read the target's 0x50 + r */
            memset (base, 0x50 + r, max);
            memset (local, 0, size);
            MPI_Barrier (MPI_COMM_WORLD);
            CHECK(MPI_Win_lock_all (0, win));
            if (0 == rank) {
                get_lat[r] = rma (0, local, size, 1, iters, win);
                get_bw[r] = size / rma (0, local, size, WINDOW, iters / WINDOW + 1, win);
                bad += size && (local[0] != 0x50 + r || local[size - 1] != 0x50 + r);
            }
            CHECK(MPI_Win_unlock_all (win));
            MPI_Barrier (MPI_COMM_WORLD);
        }
        if (0 == rank) {
            printf ("%zu %.2f %.2f %.1f %.1f\n", size, bench_median (put_lat, repeats), bench_median (get_lat, repeats),
                    bench_median (put_bw, repeats), bench_median (get_bw, repeats));
            fflush (stdout);
        }
    }

    /* fetch-and-add on rank 1's first 8 bytes: each value fetched must
     * equal the number of adds before it */
    {
        double fop[MAX_REPEATS], fop_exclusive[MAX_REPEATS];

        for (int r = 0 ; r < repeats ; ++r) {
            fop[r] = fetch_and_add (win, (int64_t *) base, 0, &bad);
            fop_exclusive[r] = fetch_and_add (win, (int64_t *) base, 1, &bad);
        }
        if (0 == rank) {
            printf ("fop_us %.2f %.2f\n", bench_median (fop, repeats), bench_median (fop_exclusive, repeats));
            fflush (stdout);
        }
    }
    {
        double cas[MAX_REPEATS];

        for (int r = 0 ; r < repeats ; ++r) {
            cas[r] = compare_and_swap (win, (int64_t *) base, &bad);
        }
        if (0 == rank) {
            printf ("cas_us %.2f\n", bench_median (cas, repeats));
        }
    }
    {
        double acc[MAX_REPEATS];

        for (int r = 0 ; r < repeats ; ++r) {
            acc[r] = accumulate (win, (int *) base, max, &bad);
        }
        if (0 == rank) {
            printf ("acc_MBps %zu %.1f\n", max, bench_median (acc, repeats));
        }
    }
    {
        int total_bad = 0;
        MPI_Reduce (&bad, &total_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        if (0 == rank && total_bad) {
            printf ("# ERROR: %d wrong values arrived\n", total_bad);
        }
        bad = total_bad;
    }
    close_window (win, create, base);
    free (local);
    MPI_Finalize ();
    return bad ? 1 : 0;
}
