/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * MPI_THREAD_MULTIPLE: several threads per rank at once, each on its own
 * tag, with sizes crossing the eager and rendezvous thresholds; every byte
 * is checked.  Rank 0 prints one "ok - ..." or "not ok - ..." line each:
 *  - pairs: each thread exchanges with the same-numbered thread of the
 *    partner rank (r^1);
 *  - all to all: each thread sends to and receives from every other rank
 *    with MPI_Isend/MPI_Irecv and one MPI_Waitall;
 *  - buffered: each thread MPI_Bsends 4 MiB messages to the partner from
 *    one attached buffer sized for all of them.
 *
 *   test_mpi_threads [-t THREADS] [-n ROUNDS]
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rank, nprocs, partner, rounds = 40;
static const size_t sizes[] = {1, 100, 4000, 30000, 70000, 600000};
#define NSIZES (sizeof (sizes) / sizeof (sizes[0]))

static unsigned char pattern (int src, int thread, int round, size_t i)
{
    uint64_t x = ((uint64_t) src << 48 ^ (uint64_t) thread << 32 ^ (uint64_t) round) * 0x9e3779b97f4a7c15ull;
    x ^= i * 0xbf58476d1ce4e5b9ull;
    return (unsigned char) (x >> 29 ^ i);
}

static long count_bad (const unsigned char *in, size_t len, int src, int thread, int round)
{
    long bad = 0;

    for (size_t i = 0 ; i < len ; ++i) {
        bad += in[i] != pattern (src, thread, round, i);
    }
    return bad;
}

static unsigned char *filled (size_t len, int thread, int round)
{
    unsigned char *out = malloc (len);

    for (size_t i = 0 ; i < len ; ++i) {
        out[i] = pattern (rank, thread, round, i);
    }
    return out;
}

static void *exchange (void *arg)
{
    int thread = (int) (intptr_t) arg;
    long bad = 0;

    for (int r = 0 ; r < rounds ; ++r) {
        size_t len = sizes[(size_t) (r + thread) % NSIZES];
        unsigned char *out = filled (len, thread, r), *in = malloc (len);
        MPI_Request req[2];

        MPI_Irecv (in, (int) len, MPI_BYTE, partner, thread, MPI_COMM_WORLD, &req[0]);
        MPI_Isend (out, (int) len, MPI_BYTE, partner, thread, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall (2, req, MPI_STATUSES_IGNORE);
        bad += count_bad (in, len, partner, thread, r);
        free (out);
        free (in);
    }
    return (void *) (intptr_t) bad;
}

/* Every rank gets one message from each other rank per round; a peer's
 * message is told by its source. */
static void *alltoall (void *arg)
{
    int thread = (int) (intptr_t) arg;
    MPI_Request *req = malloc (sizeof (*req) * 2 * (size_t) nprocs);
    unsigned char **in = malloc (sizeof (*in) * (size_t) nprocs);
    long bad = 0;

    for (int r = 0 ; r < rounds / 4 + 1 ; ++r) {
        size_t len = sizes[(size_t) (r + thread) % NSIZES];
        unsigned char *out = filled (len, thread, r);
        int n = 0;

        for (int p = 0 ; p < nprocs ; ++p) {
            in[p] = malloc (len);
            if (p != rank) {
                MPI_Irecv (in[p], (int) len, MPI_BYTE, p, thread, MPI_COMM_WORLD, &req[n++]);
                MPI_Isend (out, (int) len, MPI_BYTE, p, thread, MPI_COMM_WORLD, &req[n++]);
            }
        }
        MPI_Waitall (n, req, MPI_STATUSES_IGNORE);
        for (int p = 0 ; p < nprocs ; ++p) {
            bad += p == rank ? 0 : count_bad (in[p], len, p, thread, r);
            free (in[p]);
        }
        free (out);
    }
    free (in);
    free (req);
    return (void *) (intptr_t) bad;
}

#define BSEND_BYTES (4u << 20)
#define BSEND_ROUNDS 2

/* The attached buffer holds every message of every thread, so no
 * MPI_Bsend may fail for want of space, however late its sends complete. */
static void *bsend (void *arg)
{
    int thread = (int) (intptr_t) arg;
    long bad = 0;

    for (int r = 0 ; r < BSEND_ROUNDS ; ++r) {
        unsigned char *out = filled (BSEND_BYTES, thread, r), *in = malloc (BSEND_BYTES);
        MPI_Request req;

        MPI_Irecv (in, (int) BSEND_BYTES, MPI_BYTE, partner, thread, MPI_COMM_WORLD, &req);
        if (MPI_SUCCESS != MPI_Bsend (out, (int) BSEND_BYTES, MPI_BYTE, partner, thread, MPI_COMM_WORLD)) {
            bad += BSEND_BYTES;
        }
        MPI_Wait (&req, MPI_STATUS_IGNORE);
        bad += count_bad (in, BSEND_BYTES, partner, thread, r);
        free (out);
        free (in);
    }
    return (void *) (intptr_t) bad;
}

/* Runs FN on NTHREADS threads; rank 0 reports the corrupted bytes of all. */
static int run_threads (void *(*fn) (void *), int nthreads, const char *what)
{
    pthread_t threads[64];
    long bad = 0, total = 0;

    for (int t = 0 ; t < nthreads ; ++t) {
        pthread_create (&threads[t], NULL, fn, (void *) (intptr_t) t);
    }
    for (int t = 0 ; t < nthreads ; ++t) {
        void *ret;
        pthread_join (threads[t], &ret);
        bad += (long) (intptr_t) ret;
    }
    MPI_Reduce (&bad, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf ("%s - MPI_THREAD_MULTIPLE, %s: %d threads per rank, %d ranks: %ld corrupted bytes\n",
                total ? "not ok" : "ok", what, nthreads, nprocs, total);
        fflush (stdout);
    }
    MPI_Bcast (&total, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    return total ? 1 : 0;
}

int main (int argc, char **argv)
{
    int provided, opt, nthreads = 4;

    MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    while (-1 != (opt = getopt (argc, argv, "t:n:"))) {
        if ('t' == opt) nthreads = atoi (optarg);
        if ('n' == opt) rounds = atoi (optarg);
    }
    if (MPI_THREAD_MULTIPLE != provided || nthreads < 1 || nthreads > 64) {
        if (0 == rank) printf ("not ok - MPI_THREAD_MULTIPLE not provided (got %d)\n", provided);
        MPI_Finalize ();
        return 1;
    }
    partner = (rank ^ 1) < nprocs ? rank ^ 1 : rank;

    int failed = run_threads (exchange, nthreads, "pairs, 1 B to 600 KB");
    failed += run_threads (alltoall, nthreads, "all to all with Isend/Irecv/Waitall, 1 B to 600 KB");
    int bytes = nthreads * BSEND_ROUNDS * ((int) BSEND_BYTES + MPI_BSEND_OVERHEAD);
    void *buffer = malloc ((size_t) bytes);

    MPI_Buffer_attach (buffer, bytes);
    failed += run_threads (bsend, nthreads, "MPI_Bsend of 4 MiB");
    MPI_Buffer_detach (&buffer, &bytes);
    free (buffer);
    MPI_Finalize ();
    return failed ? 1 : 0;
}
