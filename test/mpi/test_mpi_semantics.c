/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * MPI point-to-point semantics a transport must keep, every byte checked.
 * Rank r works with partner r^1 (itself when that rank does not exist), so
 * any rank count works, including 1.  Sizes cross every protocol threshold
 * of the BTLs under test (inline, eager, rendezvous, pipelined).  Rank 0
 * prints one "ok - ..." or "not ok - ..." line per check.
 *
 *   test_mpi_semantics [-f FLOOD_COUNT]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_rss.h"

static int rank, nprocs, partner, failures;

static const size_t sizes[] = {0, 1, 7, 64, 1000, 4096, 8191, 8192, 32700, 32768, 65536, 100000,
                               262144, 1048576, 3 * 1048576 + 5};
#define NSIZES (sizeof (sizes) / sizeof (sizes[0]))

static unsigned char pattern (uint64_t seed, size_t i)
{
    uint64_t x = (seed + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t) i * 0xbf58476d1ce4e5b9ull;
    return (unsigned char) (x >> 32 ^ x >> 11 ^ i);
}

static void fill (unsigned char *buf, size_t len, uint64_t seed)
{
    for (size_t i = 0 ; i < len ; ++i) {
        buf[i] = pattern (seed, i);
    }
}

static long bad_bytes (const unsigned char *buf, size_t len, uint64_t seed)
{
    long bad = 0;
    for (size_t i = 0 ; i < len ; ++i) {
        bad += buf[i] != pattern (seed, i);
    }
    return bad;
}

/* Every rank's count summed; rank 0 prints the verdict.  The barrier keeps
 * checks apart: the next check's messages must not meet this one's
 * wildcard receives. */
static void report (long local_bad, const char *what)
{
    long bad = 0;

    MPI_Reduce (&local_bad, &bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Barrier (MPI_COMM_WORLD);
    if (0 == rank) {
        printf ("%s - %s (%d ranks)%s", bad ? "not ok" : "ok", what, nprocs, bad ? "" : "\n");
        if (bad) {
            printf (": %ld bad bytes or messages\n", bad);
        }
        fflush (stdout);
    }
    failures += bad != 0;
}

static uint64_t seed_of (int src, int dst, size_t k)
{
    return ((uint64_t) src << 40) ^ ((uint64_t) dst << 20) ^ k;
}

/* ---------------------------------------------------------------- checks */

/* Both directions at once: a window of nonblocking sends and receives of
 * mixed sizes, posted before any completes. */
static void check_windows (void)
{
    enum { WINDOW = 2 * NSIZES };
    unsigned char *sbuf[WINDOW], *rbuf[WINDOW];
    MPI_Request req[2 * WINDOW];
    long bad = 0;

    for (size_t k = 0 ; k < WINDOW ; ++k) {
        size_t len = sizes[k % NSIZES];
        sbuf[k] = malloc (len + 1);
        rbuf[k] = calloc (1, len + 1);
        fill (sbuf[k], len, seed_of (rank, partner, k));
        MPI_Irecv (rbuf[k], (int) len, MPI_BYTE, partner, (int) k, MPI_COMM_WORLD, &req[k]);
    }
    for (size_t k = 0 ; k < WINDOW ; ++k) {
        MPI_Isend (sbuf[k], (int) sizes[k % NSIZES], MPI_BYTE, partner, (int) k, MPI_COMM_WORLD,
                   &req[WINDOW + k]);
    }
    MPI_Waitall (2 * WINDOW, req, MPI_STATUSES_IGNORE);
    for (size_t k = 0 ; k < WINDOW ; ++k) {
        bad += bad_bytes (rbuf[k], sizes[k % NSIZES], seed_of (partner, rank, k));
        free (sbuf[k]);
        free (rbuf[k]);
    }
    report (bad, "bidirectional nonblocking windows of 0 B to 3 MiB messages");
}

/* Rank 0 takes every other rank's messages in whatever order they come,
 * learning source, tag and size from MPI_Probe. */
static void check_any_source (void)
{
    enum { PER_RANK = 6 };
    long bad = 0;

    if (0 == rank) {
        for (int n = 0 ; n < (nprocs - 1) * PER_RANK ; ++n) {
            MPI_Status st;
            int count;
            unsigned char *buf;

            MPI_Probe (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count (&st, MPI_BYTE, &count);
            buf = malloc ((size_t) count + 1);
            MPI_Recv (buf, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            bad += (size_t) count != sizes[(st.MPI_TAG * 5) % NSIZES];
            bad += bad_bytes (buf, (size_t) count, seed_of (st.MPI_SOURCE, 0, (size_t) st.MPI_TAG));
            free (buf);
        }
    } else {
        for (int t = 0 ; t < PER_RANK ; ++t) {
            int tag = rank * 100 + t;
            size_t len = sizes[(tag * 5) % NSIZES];
            unsigned char *buf = malloc (len + 1);

            fill (buf, len, seed_of (rank, 0, (size_t) tag));
            MPI_Send (buf, (int) len, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
            free (buf);
        }
    }
    report (bad, "MPI_ANY_SOURCE and MPI_ANY_TAG receives sized by MPI_Probe");
}

/* The partner sends `count' small messages before this rank posts a
 * single receive; all arrive, in order, and the transport's memory does
 * not grow with them. */
static void check_flood (int count)
{
    enum { LEN = 48 };
    unsigned char buf[LEN];
    long bad = 0, rss_before = rss_kib (), growth, max_growth;
    char what[160];

    if (1 == nprocs) {
        printf ("skip - unexpected-message flood: needs 2 ranks\n");
        return;
    }
    if (partner == rank) {
        growth = 0;   /* the odd rank out has no partner but joins the verdict */
    } else if (rank & 1) {
        for (int i = 0 ; i < count ; ++i) {
            fill (buf, LEN, seed_of (rank, partner, (size_t) i));
            MPI_Send (buf, LEN, MPI_BYTE, partner, 7, MPI_COMM_WORLD);
        }
        growth = rss_kib () - rss_before;
        MPI_Send (NULL, 0, MPI_BYTE, partner, 8, MPI_COMM_WORLD);
    } else {
        /* wait until everything was sent: all of it is unexpected, queued here now */
        MPI_Recv (NULL, 0, MPI_BYTE, partner, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        growth = rss_kib () - rss_before;
        for (int i = 0 ; i < count ; ++i) {
            MPI_Recv (buf, LEN, MPI_BYTE, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            bad += bad_bytes (buf, LEN, seed_of (partner, rank, (size_t) i));
        }
    }
    MPI_Allreduce (&growth, &max_growth, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    /* the PML keeps each unexpected message (~100 B with headers); the
     * transport must add no per-message memory of its own */
    bad += max_growth > 64 * 1024 + (long) count / 4;
    snprintf (what, sizeof (what), "%d unexpected %d-byte messages arrive complete and in order "
              "(memory while all were queued: +%ld KiB)", count, LEN, max_growth);
    report (bad, what);
}

/* Buffers freed and allocated again between transfers: a registration
 * cache must never hand out the old memory's registration. */
static void check_realloc (void)
{
    long bad = 0;

    for (int it = 0 ; it < 24 ; ++it) {
        size_t len = sizes[NSIZES - 1 - (size_t) (it % 4)];
        unsigned char *sbuf = malloc (len), *rbuf = malloc (len);
        MPI_Request req;

        fill (sbuf, len, seed_of (rank, partner, (size_t) it + 1000));
        MPI_Irecv (rbuf, (int) len, MPI_BYTE, partner, it, MPI_COMM_WORLD, &req);
        MPI_Send (sbuf, (int) len, MPI_BYTE, partner, it, MPI_COMM_WORLD);
        MPI_Wait (&req, MPI_STATUS_IGNORE);
        bad += bad_bytes (rbuf, len, seed_of (partner, rank, (size_t) it + 1000));
        free (sbuf);
        free (rbuf);
    }
    report (bad, "buffers freed and reallocated between 256 KiB to 3 MiB transfers");
}

/* A strided vector on the send side, contiguous on the receive side and
 * the other way round. */
static void check_noncontig (void)
{
    long bad = 0;

    for (int blocks = 1 ; blocks <= 65536 ; blocks *= 16) {
        const int blocklen = 3, stride = 5;
        size_t n = (size_t) blocks * stride;
        int *strided = calloc (n, sizeof (int)), *packed = calloc ((size_t) blocks * blocklen, sizeof (int));
        MPI_Datatype vec;
        MPI_Request req;

        MPI_Type_vector (blocks, blocklen, stride, MPI_INT, &vec);
        MPI_Type_commit (&vec);
        for (size_t i = 0 ; i < n ; ++i) {
            strided[i] = (int) (i * 31 + (size_t) rank);
        }
        /* vector out, contiguous in */
        MPI_Irecv (packed, blocks * blocklen, MPI_INT, partner, blocks, MPI_COMM_WORLD, &req);
        MPI_Send (strided, 1, vec, partner, blocks, MPI_COMM_WORLD);
        MPI_Wait (&req, MPI_STATUS_IGNORE);
        for (int b = 0 ; b < blocks ; ++b) {
            for (int j = 0 ; j < blocklen ; ++j) {
                bad += packed[b * blocklen + j] != (int) ((size_t) (b * stride + j) * 31 + (size_t) partner);
            }
        }
        /* contiguous out, vector in */
        memset (strided, 0, n * sizeof (int));
        MPI_Irecv (strided, 1, vec, partner, blocks + 1, MPI_COMM_WORLD, &req);
        MPI_Send (packed, blocks * blocklen, MPI_INT, partner, blocks + 1, MPI_COMM_WORLD);
        MPI_Wait (&req, MPI_STATUS_IGNORE);
        for (int b = 0 ; b < blocks ; ++b) {
            for (int j = 0 ; j < blocklen ; ++j) {
                bad += strided[b * stride + j] != (int) ((size_t) (b * stride + j) * 31 + (size_t) rank);
            }
        }
        MPI_Type_free (&vec);
        free (strided);
        free (packed);
    }
    report (bad, "strided vector datatypes of 12 B to 768 KiB, packed on either side");
}

/* Synchronous sends take the rendezvous path even when small. */
static void check_ssend (void)
{
    long bad = 0;

    for (size_t k = 0 ; k < NSIZES ; ++k) {
        size_t len = sizes[k];
        unsigned char *sbuf = malloc (len + 1), *rbuf = calloc (1, len + 1);
        MPI_Request req;

        fill (sbuf, len, seed_of (rank, partner, k + 500));
        MPI_Irecv (rbuf, (int) len, MPI_BYTE, partner, (int) k, MPI_COMM_WORLD, &req);
        MPI_Ssend (sbuf, (int) len, MPI_BYTE, partner, (int) k, MPI_COMM_WORLD);
        MPI_Wait (&req, MPI_STATUS_IGNORE);
        bad += bad_bytes (rbuf, len, seed_of (partner, rank, k + 500));
        free (sbuf);
        free (rbuf);
    }
    report (bad, "MPI_Ssend of every size");
}

int main (int argc, char **argv)
{
    int opt, flood = 20000;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    while (-1 != (opt = getopt (argc, argv, "f:"))) {
        if ('f' == opt) {
            flood = atoi (optarg);
        }
    }
    partner = (rank ^ 1) < nprocs ? rank ^ 1 : rank;

    check_windows ();
    check_any_source ();
    check_ssend ();
    check_noncontig ();
    check_realloc ();
    check_flood (flood);

    MPI_Finalize ();
    return failures ? 1 : 0;
}
