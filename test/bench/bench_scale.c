/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What a rank costs once it is connected to everyone, and what its
 * busiest peer still gets.  Every rank exchanges SIZE bytes with every
 * other one (in round k rank r sends to r+k and receives from r-k, every
 * byte checked): 1 byte first, which makes the connections, then 1 KiB,
 * 48 KiB and 1 MiB; then ranks 0 and N-1 play ping-pong with 1 byte while
 * the others wait in a barrier, looking every 20 ms (on a real cluster
 * they would have cores of their own; here 32 ranks share 2).
 * Rank 0 prints "key value..." lines:
 *   exchange_us SIZE US     slowest rank's time for one all-pairs exchange
 *                           (SIZE 1: the one that made the connections)
 *   bad_bytes N             bytes that arrived wrong, every rank (must be 0)
 *   rss_kib MAX MEAN        peak resident memory (VmHWM) over the ranks
 *   ring_bytes MAX MEAN     btl_rwv_eager_ring_bytes (0 without rwv)
 *   hot_peers MAX           btl_rwv_hot_peers
 *   latency_us US           half the median round trip of ranks 0 and N-1
 *   progress_ns NS          one MPI_Iprobe that finds nothing at rank 0, all
 *                           of its connections idle (the others asleep)
 *
 *   mpirun -np N bench_scale [-i ROUND_TRIPS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mpi/test_pvar.h"
#include "bench_stats.h"

static int rank, nprocs;

static unsigned char pattern (int from, int to, size_t i)
{
    return (unsigned char) (from * 131 + to * 17 + i * 7 + (i >> 9));
}

/* One all-pairs exchange of SIZE bytes: the microseconds it took. */
static double exchange_all (size_t size, unsigned char *out, unsigned char *in, long *bad)
{
    double start;

    MPI_Barrier (MPI_COMM_WORLD);
    start = MPI_Wtime ();
    for (int k = 1 ; k < nprocs ; ++k) {
        int to = (rank + k) % nprocs, from = (rank + nprocs - k) % nprocs;

        for (size_t i = 0 ; i < size ; ++i) {
            out[i] = pattern (rank, to, i);
        }
        MPI_Sendrecv (out, (int) size, MPI_BYTE, to, k, in, (int) size, MPI_BYTE, from, k, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
        for (size_t i = 0 ; i < size ; ++i) {
            *bad += in[i] != pattern (from, rank, i);
        }
    }
    return (MPI_Wtime () - start) * 1e6;
}

static long peak_rss_kib (void)
{
    char line[256];
    long kib = 0;
    FILE *f = fopen ("/proc/self/status", "r");

    while (NULL != f && NULL != fgets (line, sizeof (line), f)) {
        if (1 == sscanf (line, "VmHWM: %ld", &kib)) {
            break;
        }
    }
    if (NULL != f) {
        fclose (f);
    }
    return kib;
}

/* A btl_rwv variable's value, 0 where rwv is not in use. */
static unsigned long rwv_pvar (const char *name, int is_long)
{
    int index = test_pvar_index (name), count;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    unsigned long wide = 0;
    unsigned narrow = 0;

    if (index >= 0) {
        MPI_T_pvar_session_create (&session);
        MPI_T_pvar_handle_alloc (session, index, NULL, &handle, &count);
        MPI_T_pvar_read (session, handle, is_long ? (void *) &wide : (void *) &narrow);
        MPI_T_pvar_handle_free (session, &handle);
        MPI_T_pvar_session_free (&session);
    }
    return is_long ? wide : narrow;
}

/* Everyone but rank 0 (or, with ONLY_PAIR, but ranks 0 and N-1) waits in
 * a barrier, looking every 20 ms. */
static void sleepy_barrier (void)
{
    MPI_Request barrier;
    int flag = 0;

    MPI_Ibarrier (MPI_COMM_WORLD, &barrier);
    while (!flag) {
        MPI_Test (&barrier, &flag, MPI_STATUS_IGNORE);
        if (!flag && 0 != rank && nprocs - 1 != rank) {
            usleep (20000);
        }
    }
}

/* What one progress pass costs rank 0 with every connection idle: the
 * median of 5 x 100,000 MPI_Iprobe calls that find nothing. */
static double idle_progress_ns (void)
{
    double times[5] = {0};
    int flag;

    if (0 == rank) {
        for (int r = 0 ; r < 5 ; ++r) {
            double start = MPI_Wtime ();

            for (int i = 0 ; i < 100000 ; ++i) {
                MPI_Iprobe (MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            }
            times[r] = (MPI_Wtime () - start) * 1e9 / 100000;
        }
    }
    sleepy_barrier ();
    return bench_median (times, 5);
}

/* Ranks 0 and N-1: 1-byte round trips (after a warm-up that makes each
 * the other's busiest peer); the others sleep in a barrier meanwhile. */
static double hot_pair_latency (int round_trips)
{
    int peer = 0 == rank ? nprocs - 1 : 0;
    double times[5] = {0};
    char byte = 0;

    if (0 == rank || nprocs - 1 == rank) {
        for (int r = -1 ; r < 5 ; ++r) {
            double start = MPI_Wtime ();

            for (int i = 0 ; i < (r < 0 ? 200 : round_trips) ; ++i) {
                if (0 == rank) {
                    MPI_Send (&byte, 1, MPI_BYTE, peer, 99, MPI_COMM_WORLD);
                    MPI_Recv (&byte, 1, MPI_BYTE, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv (&byte, 1, MPI_BYTE, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send (&byte, 1, MPI_BYTE, peer, 99, MPI_COMM_WORLD);
                }
            }
            if (r >= 0) {
                times[r] = (MPI_Wtime () - start) * 1e6 / round_trips / 2;
            }
        }
    }
    sleepy_barrier ();
    return bench_median (times, 5);
}

static void report_max_mean (const char *key, double value)
{
    double max, sum;

    MPI_Reduce (&value, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce (&value, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf ("%s %.0f %.0f\n", key, max, sum / nprocs);
    }
}

int main (int argc, char **argv)
{
    const size_t sizes[] = {1, 1024, 49152, 1048576};
    int provided, opt, round_trips = 2000;
    long bad = 0, total_bad;
    unsigned char *out, *in;
    double latency, progress;

    MPI_T_init_thread (MPI_THREAD_SINGLE, &provided);
    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    while (-1 != (opt = getopt (argc, argv, "i:"))) {
        if ('i' == opt) {
            round_trips = atoi (optarg);
        }
    }
    out = malloc (sizes[3]);
    in = malloc (sizes[3]);
    for (int s = 0 ; s < 4 ; ++s) {
        double us = exchange_all (sizes[s], out, in, &bad), slowest;

        MPI_Reduce (&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (0 == rank) {
            printf ("exchange_us %zu %.0f\n", sizes[s], slowest);
        }
    }
    progress = idle_progress_ns ();
    latency = hot_pair_latency (round_trips);
    MPI_Allreduce (&bad, &total_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    report_max_mean ("rss_kib", (double) peak_rss_kib ());
    report_max_mean ("ring_bytes", (double) rwv_pvar ("btl_rwv_eager_ring_bytes", 1));
    report_max_mean ("hot_peers", (double) rwv_pvar ("btl_rwv_hot_peers", 0));
    if (0 == rank) {
        printf ("bad_bytes %ld\nlatency_us %.2f\nprogress_ns %.0f\n", total_bad, latency, progress);
    }
    free (out);
    free (in);
    MPI_T_finalize ();
    MPI_Finalize ();
    return 0 != total_bad;
}
