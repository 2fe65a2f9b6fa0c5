/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * A long two-way stream between rank pairs (rank i of the first half with
 * rank i of the second half), for failure tests that break a rail in the
 * middle: every rank sends and receives COUNT messages whose sizes cycle
 * through 16 MiB and smaller sizes that take the other paths (a tiny eager
 * message, a split eager message, a rendezvous one), each filled with a
 * pattern of (size, iteration, sender) and checked byte by byte.  A lost,
 * duplicated (it would match the wrong receive), stale or corrupted
 * message shows as corrupted bytes.  Rank 0 prints one line per check;
 * after every TICK messages, rank 0 prints "# progress N" (for a test to
 * act in the middle).  With -f FILE, the stream goes on after COUNT
 * messages until FILE exists (rank 0 looks, once a message), for a test
 * that acts for as long as it needs while the job works.
 *
 *   test_stream_verify [-n COUNT] [-s MAX_BYTES] [-t TICK] [-f FILE]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char pattern_byte (size_t size, int iter, int sender, size_t i)
{
    uint64_t x = (uint64_t) size * 0x9e3779b97f4a7c15ull ^ (uint64_t) (iter * 1024 + sender) * 0xbf58476d1ce4e5b9ull;
    x ^= (uint64_t) i * 0x94d049bb133111ebull;
    return (unsigned char) (x >> 29 ^ x >> 7 ^ i);
}

static size_t stream_size (int iter, size_t max)
{
    static const size_t cycle[] = {0, 8, 40000, 300000, 0, 0, 60000, 0};
    size_t size = cycle[iter % 8] ? cycle[iter % 8] : max;

    return size > max ? max : size;
}

int main (int argc, char **argv)
{
    int rank, size, peer, count = 200, tick = 20, opt, iter;
    const char *until = NULL;
    size_t max = 16u << 20;
    unsigned char *out, *in;
    long bad = 0, total_bad;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    while (-1 != (opt = getopt (argc, argv, "n:s:t:f:"))) {
        switch (opt) {
        case 'n': count = atoi (optarg); break;
        case 's': max = strtoull (optarg, NULL, 0); break;
        case 't': tick = atoi (optarg); break;
        case 'f': until = optarg; break;
        default:
            if (0 == rank) {
                fprintf (stderr, "usage: %s [-n COUNT] [-s MAX_BYTES] [-t TICK] [-f FILE]\n", argv[0]);
            }
            MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
    if (size % 2) {
        if (0 == rank) {
            fprintf (stderr, "%s needs an even number of ranks (got %d)\n", argv[0], size);
        }
        MPI_Abort (MPI_COMM_WORLD, 2);
    }
    peer = rank < size / 2 ? rank + size / 2 : rank - size / 2;
    out = malloc (max ? max : 1);
    in = malloc (max ? max : 1);

    for (iter = 0 ; ; ++iter) {
        size_t n = stream_size (iter, max);

        if (iter >= count) {
            int stop = NULL == until || (0 == rank && 0 == access (until, F_OK));

            if (NULL != until) {
                MPI_Bcast (&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
            }
            if (stop) {
                break;
            }
        }

        for (size_t i = 0 ; i < n ; ++i) {
            out[i] = pattern_byte (n, iter, rank, i);
        }
        memset (in, 0, n);
        MPI_Sendrecv (out, (int) n, MPI_BYTE, peer, iter, in, (int) n, MPI_BYTE, peer, iter, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
        for (size_t i = 0 ; i < n ; ++i) {
            bad += in[i] != pattern_byte (n, iter, peer, i);
        }
        if (0 == rank && tick > 0 && 0 == (iter + 1) % tick) {
            printf ("# progress %d\n", iter + 1);
            fflush (stdout);
        }
    }
    MPI_Allreduce (&bad, &total_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD); /* every rank exits by it */
    if (0 == rank) {
        printf ("%s - a two-way stream of %d messages of up to %zu bytes per rank, %d ranks: %ld corrupted bytes\n",
                0 == total_bad ? "ok" : "not ok", iter, max, size, total_bad);
    }
    free (out);
    free (in);
    MPI_Finalize ();
    return 0 == total_bad ? 0 : 1;
}
