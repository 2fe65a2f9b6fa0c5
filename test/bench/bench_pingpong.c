/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Two-rank point-to-point benchmark: ping-pong latency (half the round
 * trip), streaming bandwidth (a window of nonblocking sends, one reply) and
 * bidirectional bandwidth (both ranks stream a window to each other at
 * once; the bytes of both directions count).
 * Each figure is the median of several repeats.  The first bytes of every
 * received message are checked, so a broken transport cannot post a
 * number.
 *
 *   bench_pingpong [-r repeats] [-w window] SIZE...
 * prints: size_bytes latency_us bandwidth_MBps bidirectional_MBps   (MB = 1e6 bytes)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_stats.h"

#define MAX_REPEATS 101

/* enough round trips for about 20 ms of traffic at a guessed rate */
static int iterations (size_t size)
{
    long n = 20000000L / (long) (size + 2000);
    return n < 10 ? 10 : (n > 20000 ? 20000 : (int) n);
}

static int check (const unsigned char *buf, size_t size, unsigned char want)
{
    return size == 0 || (buf[0] == want && buf[size - 1] == want);
}

static double pingpong (int rank, unsigned char *buf, size_t size, int iters, int *bad)
{
    double t0;

    MPI_Barrier (MPI_COMM_WORLD);
    t0 = MPI_Wtime ();
    for (int i = 0 ; i < iters ; ++i) {
        if (0 == rank) {
            memset (buf, (unsigned char) i, size > 8 ? 8 : size);
            if (size) buf[size - 1] = (unsigned char) i;
            MPI_Send (buf, (int) size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv (buf, (int) size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv (buf, (int) size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            *bad += !check (buf, size, (unsigned char) i);
            MPI_Send (buf, (int) size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime () - t0) / iters / 2 * 1e6;
}

static double stream (int rank, unsigned char *buf, size_t size, int window, int iters, int *bad)
{
    MPI_Request req[window];
    double t0;
    char ack;

    MPI_Barrier (MPI_COMM_WORLD);
    t0 = MPI_Wtime ();
    for (int i = 0 ; i < iters ; ++i) {
        for (int w = 0 ; w < window ; ++w) {
            if (0 == rank) {
                MPI_Isend (buf, (int) size, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[w]);
            } else {
                MPI_Irecv (buf, (int) size, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[w]);
            }
        }
        MPI_Waitall (window, req, MPI_STATUSES_IGNORE);
        if (0 == rank) {
            MPI_Recv (&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            *bad += !check (buf, size, 0x5a);
            MPI_Send (&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
        }
    }
    return (double) size * window * iters / (MPI_Wtime () - t0) / 1e6;
}

static double bidirectional (int rank, unsigned char *sbuf, unsigned char *rbuf, size_t size, int window, int iters,
                             int *bad)
{
    MPI_Request req[2 * window];
    int peer = 1 - rank;
    double t0;

    MPI_Barrier (MPI_COMM_WORLD);
    t0 = MPI_Wtime ();
    for (int i = 0 ; i < iters ; ++i) {
        for (int w = 0 ; w < window ; ++w) {
            MPI_Irecv (rbuf, (int) size, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &req[w]);
            MPI_Isend (sbuf, (int) size, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &req[window + w]);
        }
        MPI_Waitall (2 * window, req, MPI_STATUSES_IGNORE);
        *bad += !check (rbuf, size, 0x5a);
    }
    return 2.0 * size * window * iters / (MPI_Wtime () - t0) / 1e6;
}

int main (int argc, char **argv)
{
    int rank, nprocs, opt, repeats = 5, window = 16, bad = 0, total_bad = 0;
    size_t max = 0;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    while (-1 != (opt = getopt (argc, argv, "r:w:"))) {
        switch (opt) {
        case 'r': repeats = atoi (optarg); break;
        case 'w': window = atoi (optarg); break;
        default: MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
    if (2 != nprocs || optind >= argc || repeats < 1 || repeats > MAX_REPEATS || window < 1) {
        if (0 == rank) {
            fprintf (stderr, "usage: mpirun -np 2 %s [-r 1..%d] [-w window] SIZE...\n", argv[0], MAX_REPEATS);
        }
        MPI_Abort (MPI_COMM_WORLD, 2);
    }
    for (int a = optind ; a < argc ; ++a) {
        size_t s = strtoull (argv[a], NULL, 0);
        max = s > max ? s : max;
    }
    unsigned char *buf = malloc (max ? max : 1), *rbuf = malloc (max ? max : 1);
    memset (buf, 0x5a, max);

    if (0 == rank) {
        printf ("# size_bytes latency_us bandwidth_MBps bidirectional_MBps (medians of %d)\n", repeats);
    }
    for (int a = optind ; a < argc ; ++a) {
        size_t size = strtoull (argv[a], NULL, 0);
        int iters = iterations (size);
        double lat[MAX_REPEATS], bw[MAX_REPEATS], bibw[MAX_REPEATS];

        (void) pingpong (rank, buf, size, iters / 10 + 1, &bad); /* warm up: connections, registrations */
        for (int r = 0 ; r < repeats ; ++r) {
            lat[r] = pingpong (rank, buf, size, iters, &bad);
            memset (buf, 0x5a, size);
            bw[r] = stream (rank, buf, size, window, iters / window + 1, &bad);
            bibw[r] = bidirectional (rank, buf, rbuf, size, window, iters / window + 1, &bad);
        }
        if (0 == rank) {
            printf ("%zu %.2f %.1f %.1f\n", size, bench_median (lat, repeats), bench_median (bw, repeats),
                    bench_median (bibw, repeats));
            fflush (stdout);
        }
    }
    MPI_Reduce (&bad, &total_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank && total_bad) {
        printf ("# ERROR: %d messages arrived with wrong contents\n", total_bad);
    }
    free (buf);
    free (rbuf);
    MPI_Finalize ();
    return total_bad ? 1 : 0;
}
