/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Ping-pong between rank pairs (rank i of the first half with rank i of the
 * second half) over every size from 0 to MAX bytes that matters: each power
 * of two, and one byte either side of it.  Every byte of every message is
 * checked against a pattern derived from (size, iteration, direction), so a
 * lost, stale, shifted or truncated message is caught, not just a missing
 * one.  Rank 0 prints which hosts the ranks ran on and one line per check.
 *
 *   test_pingpong_verify [-m MAX_BYTES] [-i ITERATIONS] [-d DELAY_S] [-k]
 *     -d   sleep DELAY_S seconds after MPI_Init, before any communication
 *     -k   the last rank kills itself (SIGKILL) in the middle of the run
 */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char pattern_byte (size_t size, int iter, int dir, size_t i)
{
    uint64_t x = (uint64_t) size * 0x9e3779b97f4a7c15ull ^ (uint64_t) (iter * 2 + dir) * 0xbf58476d1ce4e5b9ull;
    x ^= (uint64_t) i * 0x94d049bb133111ebull;
    return (unsigned char) (x >> 29 ^ x >> 7 ^ i);
}

static void fill (unsigned char *buf, size_t size, int iter, int dir)
{
    for (size_t i = 0 ; i < size ; ++i) {
        buf[i] = pattern_byte (size, iter, dir, i);
    }
}

/* Counts the wrong bytes and names the first on stderr, for the log. */
static long count_bad (const unsigned char *buf, size_t size, int iter, int dir)
{
    long bad = 0;

    for (size_t i = 0 ; i < size ; ++i) {
        if (buf[i] != pattern_byte (size, iter, dir, i) && 0 == bad++) {
            fprintf (stderr, "# corrupted: message of %zu bytes, round trip %d, %s: byte %zu is 0x%02x, "
                     "expected 0x%02x\n", size, iter, dir ? "reply" : "request", i, buf[i],
                     pattern_byte (size, iter, dir, i));
        }
    }
    return bad;
}

static size_t next_size (size_t size)
{
    /* 0 1 2 3 4 5 7 8 9 15 16 17 ... : every power of two and its neighbours */
    size_t p = 1;

    if (size < 3) {
        return size + 1;
    }
    while (p <= size) {
        p <<= 1;
    }
    if (size + 1 == p) {
        return p; /* from 2^k - 1 to 2^k */
    }
    if (size == p / 2) {
        return size + 1; /* from 2^k to 2^k + 1 */
    }
    return p - 1; /* from 2^k + 1 to 2^(k+1) - 1 */
}

static void print_hosts (int rank, int size)
{
    char host[MPI_MAX_PROCESSOR_NAME] = {0}, *all = NULL;
    int len;

    MPI_Get_processor_name (host, &len);
    if (0 == rank) {
        all = calloc ((size_t) size, MPI_MAX_PROCESSOR_NAME);
    }
    MPI_Gather (host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
                MPI_COMM_WORLD);
    if (0 == rank) {
        printf ("# ranks on hosts:");
        for (int r = 0 ; r < size ; ++r) {
            printf (" %d=%s", r, all + (size_t) r * MPI_MAX_PROCESSOR_NAME);
        }
        printf ("\n");
        free (all);
    }
}

int main (int argc, char **argv)
{
    size_t max = 4 << 20, nsizes = 0;
    int iters = 3, rank, size, opt, half, peer, delay = 0, suicide = 0;
    long bad = 0, total_bad = 0; /* only rank 0 receives the sum; the others return 0 */
    unsigned char *buf;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    while (-1 != (opt = getopt (argc, argv, "m:i:d:k"))) {
        switch (opt) {
        case 'm': max = strtoull (optarg, NULL, 0); break;
        case 'i': iters = atoi (optarg); break;
        case 'd': delay = atoi (optarg); break;
        case 'k': suicide = 1; break;
        default:
            if (0 == rank) {
                fprintf (stderr, "usage: %s [-m MAX_BYTES] [-i ITERATIONS] [-d DELAY_S] [-k]\n", argv[0]);
            }
            MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
    if (size < 2 || size % 2) {
        if (0 == rank) {
            fprintf (stderr, "%s needs an even number of ranks (got %d)\n", argv[0], size);
        }
        MPI_Abort (MPI_COMM_WORLD, 2);
    }
    sleep ((unsigned) delay);
    print_hosts (rank, size);

    half = size / 2;
    peer = rank < half ? rank + half : rank - half;
    buf = malloc (max ? max : 1);

    for (size_t len = 0 ; len <= max ; len = next_size (len), ++nsizes) {
        if (suicide && rank == size - 1 && len > max / 4) {
            raise (SIGKILL); /* a peer dying in the middle of a transfer */
        }
        for (int it = 0 ; it < iters ; ++it) {
            if (rank < half) {
                fill (buf, len, it, 0);
                MPI_Send (buf, (int) len, MPI_BYTE, peer, it, MPI_COMM_WORLD);
                memset (buf, 0, len);
                MPI_Recv (buf, (int) len, MPI_BYTE, peer, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad += count_bad (buf, len, it, 1);
            } else {
                memset (buf, 0, len);
                MPI_Recv (buf, (int) len, MPI_BYTE, peer, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad += count_bad (buf, len, it, 0);
                fill (buf, len, it, 1);
                MPI_Send (buf, (int) len, MPI_BYTE, peer, it, MPI_COMM_WORLD);
            }
        }
    }

    MPI_Reduce (&bad, &total_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf ("%s - ping-pong of %zu sizes from 0 to %zu bytes, %d round trips each, %d rank pairs: "
                "%ld corrupted bytes\n", total_bad ? "not ok" : "ok", nsizes, max, iters, half, total_bad);
    }
    free (buf);
    MPI_Finalize ();
    return total_bad ? 1 : 0;
}
