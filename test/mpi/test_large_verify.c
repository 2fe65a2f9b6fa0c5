/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Large messages the way validating benchmarks send them, between rank
 * pairs (rank i of the first half with rank i of the second half):
 *  - ping-pong from 1 MiB to MAX with separate page-aligned send and
 *    receive buffers, each filled before every round trip through a fresh
 *    temporary buffer that is then freed (the allocator's heap grows and
 *    shrinks under the registration cache, as OSU's -c does);
 *  - a bidirectional window: both ranks post WINDOW receives and WINDOW
 *    sends of the same size at once, each message into its own buffer.
 * Every byte of every message is checked against a pattern of (size,
 * iteration, slot, sender), so a stale, shifted, truncated or misdirected
 * message shows.  Rank 0 prints one line per check.
 *
 *   test_large_verify [-m MAX_BYTES] [-i ITERATIONS] [-w WINDOW]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char pattern_byte (size_t size, int iter, int slot, int sender, size_t i)
{
    uint64_t x = (uint64_t) size * 0x9e3779b97f4a7c15ull ^
                 (uint64_t) ((iter * 64 + slot) * 2 + sender) * 0xbf58476d1ce4e5b9ull;
    x ^= (uint64_t) i * 0x94d049bb133111ebull;
    return (unsigned char) (x >> 29 ^ x >> 7 ^ i);
}

static void fill (unsigned char *buf, size_t size, int iter, int slot, int sender)
{
    for (size_t i = 0 ; i < size ; ++i) {
        buf[i] = pattern_byte (size, iter, slot, sender, i);
    }
}

/* The fill goes through a temporary buffer that is freed again: the heap
 * churns between transfers as it does in a validating benchmark. */
static void fill_through_temporary (unsigned char *buf, size_t size, int iter, int sender)
{
    unsigned char *tmp = malloc (size);

    fill (tmp, size, iter, 0, sender);
    memcpy (buf, tmp, size);
    free (tmp);
}

static long count_bad (const unsigned char *buf, size_t size, int iter, int slot, int sender, const char *what)
{
    long bad = 0;

    for (size_t i = 0 ; i < size ; ++i) {
        if (buf[i] != pattern_byte (size, iter, slot, sender, i) && 0 == bad++) {
            fprintf (stderr, "# corrupted: %s, %zu bytes, iteration %d, slot %d: byte %zu is 0x%02x, expected 0x%02x\n",
                     what, size, iter, slot, i, buf[i], pattern_byte (size, iter, slot, sender, i));
        }
    }
    return bad;
}

static long pingpong (int first, int peer, size_t size, int iters, unsigned char *sbuf, unsigned char *rbuf)
{
    long bad = 0;

    for (int it = 0 ; it < iters ; ++it) {
        fill_through_temporary (sbuf, size, it, first);
        memset (rbuf, 0, size);
        if (first) {
            MPI_Send (sbuf, (int) size, MPI_BYTE, peer, it, MPI_COMM_WORLD);
            MPI_Recv (rbuf, (int) size, MPI_BYTE, peer, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv (rbuf, (int) size, MPI_BYTE, peer, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send (sbuf, (int) size, MPI_BYTE, peer, it, MPI_COMM_WORLD);
        }
        bad += count_bad (rbuf, size, it, 0, !first, "ping-pong");
    }
    return bad;
}

static long bidirectional (int first, int peer, size_t size, int iters, int window, unsigned char **sbufs,
                           unsigned char **rbufs)
{
    MPI_Request reqs[2 * 64];
    long bad = 0;

    for (int it = 0 ; it < iters ; ++it) {
        for (int w = 0 ; w < window ; ++w) {
            fill (sbufs[w], size, it, w + 1, first);
            memset (rbufs[w], 0, size);
            MPI_Irecv (rbufs[w], (int) size, MPI_BYTE, peer, w, MPI_COMM_WORLD, reqs + w);
        }
        for (int w = 0 ; w < window ; ++w) {
            MPI_Isend (sbufs[w], (int) size, MPI_BYTE, peer, w, MPI_COMM_WORLD, reqs + window + w);
        }
        MPI_Waitall (2 * window, reqs, MPI_STATUSES_IGNORE);
        for (int w = 0 ; w < window ; ++w) {
            bad += count_bad (rbufs[w], size, it, w + 1, !first, "bidirectional window");
        }
    }
    return bad;
}

static unsigned char *page_aligned (size_t size)
{
    void *p = NULL;

    if (0 != posix_memalign (&p, (size_t) sysconf (_SC_PAGESIZE), size)) {
        fprintf (stderr, "cannot allocate %zu bytes\n", size);
        MPI_Abort (MPI_COMM_WORLD, 2);
    }
    return p;
}

static void report (int rank, long bad, const char *what)
{
    long total = 0;

    MPI_Reduce (&bad, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf ("%s - %s: %ld corrupted bytes\n", total ? "not ok" : "ok", what, total);
    }
}

int main (int argc, char **argv)
{
    size_t max = 16 << 20;
    int iters = 3, window = 4, rank, size, opt, first, peer;
    unsigned char *sbufs[64], *rbufs[64];
    long bad_pp = 0, bad_bi = 0;
    char what[160];

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    while (-1 != (opt = getopt (argc, argv, "m:i:w:"))) {
        switch (opt) {
        case 'm': max = strtoull (optarg, NULL, 0); break;
        case 'i': iters = atoi (optarg); break;
        case 'w': window = atoi (optarg); break;
        default: MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
    if (size < 2 || size % 2 || window < 1 || window > 64 || max < (1 << 20)) {
        if (0 == rank) {
            fprintf (stderr, "usage: %s [-m MAX_BYTES >= 1 MiB] [-i ITERATIONS] [-w WINDOW 1..64], even rank count\n",
                     argv[0]);
        }
        MPI_Abort (MPI_COMM_WORLD, 2);
    }
    first = rank < size / 2;
    peer = first ? rank + size / 2 : rank - size / 2;
    for (int w = 0 ; w < window ; ++w) {
        sbufs[w] = page_aligned (max);
        rbufs[w] = page_aligned (max);
    }
    for (size_t len = 1 << 20 ; len <= max ; len *= 2) {
        bad_pp += pingpong (first, peer, len, iters, sbufs[0], rbufs[0]);
        bad_bi += bidirectional (first, peer, len, iters, window, sbufs, rbufs);
    }
    snprintf (what, sizeof (what), "ping-pong 1 MiB to %zu MiB, separate buffers refilled through freed temporaries, "
              "%d round trips per size", max >> 20, iters);
    report (rank, bad_pp, what);
    snprintf (what, sizeof (what), "bidirectional windows of %d messages each way, 1 MiB to %zu MiB", window, max >> 20);
    report (rank, bad_bi, what);
    for (int w = 0 ; w < window ; ++w) {
        free (sbufs[w]);
        free (rbufs[w]);
    }
    MPI_Finalize ();
    return bad_pp || bad_bi ? 1 : 0;
}
