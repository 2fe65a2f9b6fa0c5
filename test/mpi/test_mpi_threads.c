/*
 * MPI_THREAD_MULTIPLE: several threads per rank exchange messages with the
 * same-numbered thread of the partner rank (r^1) at once, on their own
 * tags, with sizes crossing the eager and rendezvous thresholds; every
 * byte is checked.  Rank 0 prints one "ok - ..." or "not ok - ..." line.
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

static void *exchange (void *arg)
{
    int thread = (int) (intptr_t) arg;
    long bad = 0;

    for (int r = 0 ; r < rounds ; ++r) {
        size_t len = sizes[(size_t) (r + thread) % NSIZES];
        unsigned char *out = malloc (len), *in = malloc (len);
        MPI_Request req[2];

        for (size_t i = 0 ; i < len ; ++i) {
            out[i] = pattern (rank, thread, r, i);
        }
        MPI_Irecv (in, (int) len, MPI_BYTE, partner, thread, MPI_COMM_WORLD, &req[0]);
        MPI_Isend (out, (int) len, MPI_BYTE, partner, thread, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall (2, req, MPI_STATUSES_IGNORE);
        for (size_t i = 0 ; i < len ; ++i) {
            bad += in[i] != pattern (partner, thread, r, i);
        }
        free (out);
        free (in);
    }
    return (void *) (intptr_t) bad;
}

int main (int argc, char **argv)
{
    int provided, opt, nthreads = 4;
    long bad = 0, total = 0;

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

    pthread_t threads[64];
    for (int t = 0 ; t < nthreads ; ++t) {
        pthread_create (&threads[t], NULL, exchange, (void *) (intptr_t) t);
    }
    for (int t = 0 ; t < nthreads ; ++t) {
        void *ret;
        pthread_join (threads[t], &ret);
        bad += (long) (intptr_t) ret;
    }
    MPI_Reduce (&bad, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf ("%s - MPI_THREAD_MULTIPLE: %d threads per rank, %d exchanges each of 1 B to 600 KB, "
                "%d ranks: %ld corrupted bytes\n", total ? "not ok" : "ok", nthreads, rounds, nprocs, total);
    }
    MPI_Finalize ();
    return total ? 1 : 0;
}
