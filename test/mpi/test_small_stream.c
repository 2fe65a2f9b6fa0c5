/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * A stream of small messages in windows of 64 nonblocking sends, the
 * traffic that makes btl/rwv queue messages behind its credits and write
 * them in batches.  Rank i of the first half streams to rank i of the
 * second half (-b: both ways at once).  Sizes cycle through every
 * threshold below and just above the eager limit: empty, inline, a cold
 * slot, a striped eager message, 64 KiB and the largest eager message
 * under every Open MPI series (ob1's header is 80 bytes in 5.0 and 6.0), a
 * rendezvous.  Every byte of every message depends on its number in the
 * stream, so a lost message hangs the receiver (the test's timeout), and
 * one delivered twice, out of order or damaged shows as wrong bytes.
 * -p SECONDS: half way, every receiver stops calling MPI for that long (a
 * peer that stops consuming), then goes on.  -t TICK: rank 0 prints
 * "# progress N" every TICK windows, for a test to act in the middle; -f
 * FILE: the stream goes on after COUNT windows until FILE exists.  -s
 * SIZE: every message SIZE bytes (at most 1 MiB) instead.  -w WINDOW:
 * windows of WINDOW sends (at most 64), e.g. few enough for the peer's
 * credits, so that every message is written at once.  -r: half way, the
 * pairs turn (rank i of the first half streams to the next rank of the
 * second half), so that a process's busy connection changes: with 4 ranks
 * or more, each then has a new peer; rank 0 prints the share of eager
 * messages written from a send ring after the turn ("# from a send ring
 * after the turn per message X").
 * At the end rank 0 prints "ok - ..." and, when btl/rwv carried it, the
 * rail writes per eager message over every rank ("# writes per message X"),
 * the share of eager messages sent from the application's buffer
 * ("# in place per message X") and the completions asked for per eager
 * message ("# completions per message X"), and the share written from
 * a connection's send ring ("# from a send ring per message X"), and the
 * send rings passed from one connection to another ("# send rings handed
 * over N").
 *
 *   test_small_stream [-n WINDOWS] [-b] [-p SECONDS] [-t TICK] [-f FILE] [-s SIZE] [-w WINDOW] [-r]
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_pvar.h"

#define MAX_WINDOW 64

static const size_t sizes[] = {0, 1, 7, 8, 64, 96, 97, 128, 1000, 1024, 1056, 4096, 16383, 16384, 32768, 65000,
                               65504, 65536, 65584, 70000};
#define NUM_SIZES (sizeof (sizes) / sizeof (sizes[0]))
#define MAX_SIZE 70000
#define MAX_FIXED_SIZE (1 << 20)

static long fixed_size = -1; /* -s: every message this size */

static unsigned char pattern (uint64_t number, size_t i)
{
    uint64_t x = (number + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t) i * 0xbf58476d1ce4e5b9ull;
    return (unsigned char) (x >> 31 ^ x >> 11);
}

static size_t size_of (uint64_t number)
{
    if (fixed_size >= 0) {
        return (size_t) fixed_size;
    }
    return sizes[(number * 7) % NUM_SIZES];
}

static void fill (unsigned char *buf, uint64_t number)
{
    for (size_t i = 0 ; i < size_of (number) ; ++i) {
        buf[i] = pattern (number, i);
    }
}

static long wrong_bytes (const unsigned char *buf, uint64_t number)
{
    long wrong = 0;

    for (size_t i = 0 ; i < size_of (number) ; ++i) {
        wrong += buf[i] != pattern (number, i);
    }
    return wrong;
}

/* Handles on two btl/rwv counters, opened before the stream: a counter
 * counts from its handle's allocation. */
typedef struct {
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle[2];
    int found;
} counters_t;

static void counters_open (counters_t *c, const char *num_name, const char *den_name)
{
    const char *names[2] = {num_name, den_name};

    c->found = 0;
    MPI_T_pvar_session_create (&c->session);
    for (int k = 0 ; k < 2 ; ++k) {
        int index = test_pvar_index (names[k]), n;

        if (index >= 0 && MPI_SUCCESS == MPI_T_pvar_handle_alloc (c->session, index, NULL, &c->handle[k], &n)) {
            c->found |= 1 << k;
        }
    }
}

/* Rank i of the first half and rank half + (i + SHIFT) mod half pair up. */
static int partner (int rank, int half, int shift)
{
    return rank < half ? half + (rank + shift) % half : (rank - half - shift % half + half) % half;
}

/* Both counters, each summed over every rank into ALL; false without rwv. */
static bool counters_sum (counters_t *c, unsigned long all[2])
{
    unsigned long mine[2] = {0, 0};
    int found = c->found;

    for (int k = 0 ; k < 2 ; ++k) {
        if (c->found & (1 << k)) {
            MPI_T_pvar_read (c->session, c->handle[k], &mine[k]);
        }
    }
    MPI_Allreduce (mine, all, 2, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce (MPI_IN_PLACE, &found, 1, MPI_INT, MPI_BAND, MPI_COMM_WORLD);
    MPI_T_pvar_session_free (&c->session);
    return 3 == found;
}

/* The first counter over the second, each summed over every rank; -1 without rwv. */
static double counters_ratio (counters_t *c)
{
    unsigned long all[2];

    return counters_sum (c, all) && all[1] ? (double) all[0] / all[1] : -1.0;
}

int main (int argc, char **argv)
{
    int rank, nprocs, opt, windows = 200, window = MAX_WINDOW, both = 0, pause_s = 0, tick = 0, turn = 0, provided;
    const char *until = NULL;
    long wrong = 0, total_wrong = 0;
    uint64_t messages = 0;

    MPI_Init (&argc, &argv);
    MPI_T_init_thread (MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    while (-1 != (opt = getopt (argc, argv, "n:bp:t:f:s:w:r"))) {
        switch (opt) {
        case 'n': windows = atoi (optarg); break;
        case 'b': both = 1; break;
        case 'p': pause_s = atoi (optarg); break;
        case 't': tick = atoi (optarg); break;
        case 'f': until = optarg; break;
        case 's': fixed_size = atol (optarg); break;
        case 'w': window = atoi (optarg); break;
        case 'r': turn = 1; break;
        default: MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
    if (nprocs % 2 || windows < 2 || fixed_size > MAX_FIXED_SIZE || window < 1 || window > MAX_WINDOW) {
        if (0 == rank) {
            fprintf (stderr, "usage: mpirun -np 2N %s [-n WINDOWS>=2] [-b] [-p SECONDS] [-t TICK] [-f FILE] "
                     "[-s SIZE<=%d] [-w WINDOW<=%d] [-r]\n", argv[0], MAX_FIXED_SIZE, MAX_WINDOW);
        }
        MPI_Abort (MPI_COMM_WORLD, 2);
    }

    int half = nprocs / 2, peer = partner (rank, half, 0);
    int sends = rank < half || both, recvs = rank >= half || both;
    size_t stride = fixed_size > MAX_SIZE ? (size_t) fixed_size : MAX_SIZE;
    unsigned char *sbuf = malloc ((size_t) window * stride), *rbuf = malloc ((size_t) window * stride);
    int go_on = 1;
    counters_t counters, in_place, completions, send_ring, after_turn, handovers;
    unsigned long handed[2] = {0, 0};
    bool rwv_counts;

    counters_open (&counters, "btl_rwv_writes_posted", "btl_rwv_eager_messages");
    counters_open (&in_place, "btl_rwv_eager_in_place", "btl_rwv_eager_messages");
    counters_open (&completions, "btl_rwv_completions_requested", "btl_rwv_eager_messages");
    counters_open (&send_ring, "btl_rwv_eager_from_send_ring", "btl_rwv_eager_messages");
    counters_open (&handovers, "btl_rwv_send_ring_handovers", "btl_rwv_eager_messages");

    for (int w = 0 ; go_on ; ++w) {
        MPI_Request req[2 * MAX_WINDOW];
        int n = 0;

        if (turn && w == windows / 2) {
            peer = partner (rank, half, 1);
            counters_open (&after_turn, "btl_rwv_eager_from_send_ring", "btl_rwv_eager_messages");
        }
        if (recvs && pause_s && w == windows / 2) {
            sleep ((unsigned) pause_s); /* the sender's messages pile up meanwhile */
        }
        for (int k = 0 ; k < window && recvs ; ++k) {
            uint64_t number = messages + k;

            MPI_Irecv (rbuf + (size_t) k * stride, (int) size_of (number), MPI_BYTE, peer, 5, MPI_COMM_WORLD,
                       &req[n++]);
        }
        for (int k = 0 ; k < window && sends ; ++k) {
            uint64_t number = messages + k;

            fill (sbuf + (size_t) k * stride, number);
            MPI_Isend (sbuf + (size_t) k * stride, (int) size_of (number), MPI_BYTE, peer, 5, MPI_COMM_WORLD,
                       &req[n++]);
        }
        MPI_Waitall (n, req, MPI_STATUSES_IGNORE);
        for (int k = 0 ; k < window && recvs ; ++k) {
            wrong += wrong_bytes (rbuf + (size_t) k * stride, messages + k);
        }
        messages += (uint64_t) window;
        if (0 == rank && tick && 0 == (w + 1) % tick) {
            printf ("# progress %d\n", w + 1);
            fflush (stdout);
        }
        go_on = w + 1 < windows || (NULL != until && 0 != access (until, F_OK));
        MPI_Bcast (&go_on, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    MPI_Reduce (&wrong, &total_wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double writes = counters_ratio (&counters), gathered = counters_ratio (&in_place);
    double completed = counters_ratio (&completions), from_ring = counters_ratio (&send_ring);
    double ring_after_turn = turn ? counters_ratio (&after_turn) : -1.0;
    rwv_counts = counters_sum (&handovers, handed);

    if (0 == rank) {
        char what[64];

        if (fixed_size >= 0) {
            snprintf (what, sizeof (what), "%ld B", fixed_size);
        } else {
            snprintf (what, sizeof (what), "0 B to %d B", MAX_SIZE);
        }
        printf ("%s - %llu messages of %s per stream in windows of %d, %s%s: %ld wrong bytes\n",
                total_wrong ? "not ok" : "ok", (unsigned long long) messages, what, window,
                both ? "both ways" : "one way", pause_s ? ", receivers paused half way" : "", total_wrong);
        if (writes >= 0) {
            printf ("# writes per message %.3f\n", writes);
        }
        if (gathered >= 0) {
            printf ("# in place per message %.3f\n", gathered);
        }
        if (completed >= 0) {
            printf ("# completions per message %.3f\n", completed);
        }
        if (from_ring >= 0) {
            printf ("# from a send ring per message %.3f\n", from_ring);
        }
        if (ring_after_turn >= 0) {
            printf ("# from a send ring after the turn per message %.3f\n", ring_after_turn);
        }
        if (rwv_counts) {
            printf ("# send rings handed over %lu\n", handed[0]);
        }
    }
    free (sbuf);
    free (rbuf);
    MPI_T_finalize ();
    MPI_Finalize ();
    return total_wrong ? 1 : 0;
}
