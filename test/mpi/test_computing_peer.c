/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Do transfers to a rank that computes complete while it computes?  Rank 1
 * computes for SECONDS without any MPI call; rank 0 works with it
 * meanwhile.  What happened is judged, not how long it took:
 *
 *   -m onesided    rank 0, in a passive-target epoch on rank 1's window:
 *                  100 MPI_Fetch_and_op (+1, each flushed),
 *                  MPI_Compare_and_swap, MPI_Put of 1 MiB, MPI_Get of it
 *                  back, MPI_Accumulate (SUM) of 4096 ints, each flushed,
 *                  then a put of a done flag.  Rank 1, when its compute
 *                  ends and before its next MPI call, reads its window:
 *                  the flag, the counter, every byte of the put and every
 *                  accumulated int must be there.
 *   -m rendezvous  rank 0 posts MPI_Isend of 8 MiB (ob1's rendezvous) and
 *                  computes; rank 1 receives it, checks every byte and
 *                  creates FILE.  Rank 0, when its compute ends and
 *                  before MPI_Wait, looks for FILE: rank 1 had the whole
 *                  message before rank 0 called MPI again.  With -t 0
 *                  nothing is judged: the time in MPI_Wait is then the
 *                  transfer's own.
 *   -m receiver    the other way round: rank 1 posts MPI_Irecv of 8 MiB
 *                  and computes; rank 0 sends it with MPI_Send and creates
 *                  FILE when that returns.  Rank 1, when its compute ends
 *                  and before MPI_Wait, looks for FILE and checks every
 *                  byte: the message arrived whole while it computed.
 *                  Needs -T (a second thread may then deliver to ob1).
 *   -m stream      what serving costs the computing rank: rank 1 does a
 *                  fixed work of about SECONDS twice, first with rank 0
 *                  waiting in MPI, then while rank 0 sends fetch-and-ops
 *                  (+1, each flushed) to its window until rank 1 stores a
 *                  done flag there.  Prints both times and the operations
 *                  served meanwhile; judges only that the counter holds
 *                  every operation rank 0 made.
 *
 * -T: MPI_Init_thread with MPI_THREAD_MULTIPLE.
 * -k: (onesided) rank 0 kills itself after 10 fetch-and-ops: the target
 *     must learn of it at its next MPI call, not hang.
 * -i: rank 1 waits in MPI (a barrier) instead of computing, for the time
 *     the same work takes against an idle peer (nothing is judged then).
 * Prints the time rank 0's side took (not judged).
 *   test_computing_peer -m onesided|rendezvous|receiver|stream [-t SECONDS] [-f FILE] [-T] [-i] [-k]
 */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call) do { int rc_ = (call); if (MPI_SUCCESS != rc_) { \
    fprintf (stderr, "%s failed: %d\n", #call, rc_); MPI_Abort (MPI_COMM_WORLD, 1); } } while (0)

#define FOPS 100
#define PUT_INTS (256 * 1024)  /* 1 MiB */
#define ACC_INTS 4096
#define RNDV_BYTES (8u << 20)

/* the window: done flag, counter, compare-and-swap word, put area, accumulate area */
typedef struct {
    int64_t done, counter, cas;
    int32_t put[PUT_INTS];
    int32_t acc[ACC_INTS];
} window_t;

static double now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* SECONDS of work with no MPI call at all */
static void compute (double seconds)
{
    volatile double x = 1.0;
    double end = now () + seconds;

    while (now () < end) {
        for (int i = 0 ; i < 100000 ; ++i) {
            x = x * 1.0000001 + 1e-9;
        }
    }
}

/* ROUNDS rounds of compute's loop, with no MPI call; the time it took */
static double work (long rounds)
{
    volatile double x = 1.0;
    double start = now ();

    for (long r = 0 ; r < rounds ; ++r) {
        for (int i = 0 ; i < 100000 ; ++i) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    return now () - start;
}

static int32_t put_value (int i)
{
    return (int32_t) (i * 2654435761u);
}

/* Rank 1 after its compute, before any MPI call: what arrived. */
static int target_check (const volatile window_t *win)
{
    int bad = 0;

    __atomic_thread_fence (__ATOMIC_ACQUIRE);
    if (1 != win->done) {
        printf ("# the origin's operations had not completed when the target's compute ended (done flag %lld, "
                "counter %lld of %d)\n", (long long) win->done, (long long) win->counter, FOPS);
        fflush (stdout);
        return 1;
    }
    bad += FOPS != win->counter || 1 != win->cas;
    for (int i = 0 ; i < PUT_INTS ; ++i) {
        bad += put_value (i) != win->put[i];
    }
    for (int i = 0 ; i < ACC_INTS ; ++i) {
        bad += 100 + i != win->acc[i];
    }
    if (bad) {
        printf ("# the target's window is wrong in %d places\n", bad);
    }
    return bad;
}

/* Rank 0: every operation on rank 1's window, each flushed. */
static int origin_work (MPI_Win win, int die)
{
    const MPI_Aint put_disp = offsetof (window_t, put), acc_disp = offsetof (window_t, acc);
    int64_t one = 1, fetched, zero = 0, cas_old, done = 1;
    int32_t *buf = malloc (PUT_INTS * sizeof (int32_t)), *acc = malloc (ACC_INTS * sizeof (int32_t));
    int bad = 0;

    for (int i = 0 ; i < FOPS ; ++i) {
        CHECK(MPI_Fetch_and_op (&one, &fetched, MPI_INT64_T, 1, offsetof (window_t, counter), MPI_SUM, win));
        CHECK(MPI_Win_flush (1, win));
        bad += fetched != i;
        if (die && 9 == i) {
            fflush (stdout);
            raise (SIGKILL); /* dies in the middle of the epoch, without a goodbye */
        }
    }
    CHECK(MPI_Compare_and_swap (&one, &zero, &cas_old, MPI_INT64_T, 1, offsetof (window_t, cas), win));
    CHECK(MPI_Win_flush (1, win));
    bad += 0 != cas_old;
    for (int i = 0 ; i < PUT_INTS ; ++i) {
        buf[i] = put_value (i);
    }
    CHECK(MPI_Put (buf, PUT_INTS, MPI_INT32_T, 1, put_disp, PUT_INTS, MPI_INT32_T, win));
    CHECK(MPI_Win_flush (1, win));
    memset (buf, 0, PUT_INTS * sizeof (int32_t));
    CHECK(MPI_Get (buf, PUT_INTS, MPI_INT32_T, 1, put_disp, PUT_INTS, MPI_INT32_T, win));
    CHECK(MPI_Win_flush (1, win));
    for (int i = 0 ; i < PUT_INTS ; ++i) {
        bad += put_value (i) != buf[i];
    }
    for (int i = 0 ; i < ACC_INTS ; ++i) {
        acc[i] = 100 + i;
    }
    CHECK(MPI_Accumulate (acc, ACC_INTS, MPI_INT32_T, 1, acc_disp, ACC_INTS, MPI_INT32_T, MPI_SUM, win));
    CHECK(MPI_Win_flush (1, win));
    CHECK(MPI_Put (&done, 1, MPI_INT64_T, 1, offsetof (window_t, done), 1, MPI_INT64_T, win));
    CHECK(MPI_Win_flush (1, win));
    free (buf);
    free (acc);
    return bad;
}

static int onesided (int rank, double seconds, int idle, int die)
{
    window_t *base;
    MPI_Win win;
    double took = 0;
    int bad = 0, total;

    CHECK(MPI_Win_allocate (sizeof (window_t), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset (base, 0, sizeof (*base));
    CHECK(MPI_Win_lock_all (0, win));
    CHECK(MPI_Barrier (MPI_COMM_WORLD));
    if (1 == rank && idle) {
        CHECK(MPI_Barrier (MPI_COMM_WORLD));
    } else if (1 == rank) {
        compute (seconds);
        bad = target_check (base);
    } else if (0 == rank) {
        double start = now ();

        bad = origin_work (win, die);
        took = now () - start;
        if (idle) {
            CHECK(MPI_Barrier (MPI_COMM_WORLD));
        }
    }
    CHECK(MPI_Win_unlock_all (win));
    CHECK(MPI_Allreduce (&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (0 == rank) {
        printf ("# origin's operations took %.3f s while the target %s\n", took,
                idle ? "waited in MPI" : "computed");
        if (idle) {
            printf ("%s - one-sided to a target waiting in MPI: every value read back right (%d wrong)\n",
                    total ? "not ok" : "ok", total);
        } else {
            printf ("%s - one-sided to a target computing %.0f s: %d fetch-and-ops, compare-and-swap, put and get "
                    "of 1 MiB, accumulate, all in its window when its compute ended (%d wrong)\n",
                    total ? "not ok" : "ok", seconds, FOPS, total);
        }
    }
    CHECK(MPI_Win_free (&win));
    return total;
}

/* Rank 0 of -m stream: fetch-and-ops on rank 1's counter until its done
 * flag reads 1; how many */
static int64_t stream_origin (MPI_Win win)
{
    int64_t one = 1, fetched, done = 0, count = 0;

    while (1 != done) {
        CHECK(MPI_Fetch_and_op (&one, &fetched, MPI_INT64_T, 1, offsetof (window_t, counter), MPI_SUM, win));
        CHECK(MPI_Fetch_and_op (NULL, &done, MPI_INT64_T, 1, offsetof (window_t, done), MPI_NO_OP, win));
        CHECK(MPI_Win_flush (1, win));
        ++count;
    }
    return count;
}

static int stream (int rank, double seconds)
{
    window_t *base;
    MPI_Win win;
    int64_t made = 0, served = 0;
    double quiet = 0, busy = 0;
    long rounds = 0;
    int bad;

    CHECK(MPI_Win_allocate (sizeof (window_t), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset (base, 0, sizeof (*base));
    CHECK(MPI_Win_lock_all (0, win));
    if (1 == rank) {
        rounds = (long) (seconds * 20 / work (20)) + 1;
    }
    CHECK(MPI_Barrier (MPI_COMM_WORLD));
    if (1 == rank) {
        quiet = work (rounds);
    }
    CHECK(MPI_Barrier (MPI_COMM_WORLD));
    if (1 == rank) {
        busy = work (rounds);
        served = __atomic_load_n (&base->counter, __ATOMIC_ACQUIRE);
        __atomic_store_n (&base->done, 1, __ATOMIC_SEQ_CST);
    } else if (0 == rank) {
        made = stream_origin (win);
    }
    CHECK(MPI_Barrier (MPI_COMM_WORLD));
    CHECK(MPI_Bcast (&made, 1, MPI_INT64_T, 0, MPI_COMM_WORLD));
    bad = 1 == rank && base->counter != made;
    CHECK(MPI_Win_unlock_all (win));
    if (1 == rank) {
        printf ("# stream: the target's work took %.3f s quiet and %.3f s while %lld fetch-and-ops were served: "
                "%.1f%% of its compute lost\n", quiet, busy, (long long) served, 100 * (busy - quiet) / quiet);
        printf ("%s - stream of fetch-and-ops to a computing target: its counter holds all %lld\n",
                bad ? "not ok" : "ok", (long long) made);
    }
    CHECK(MPI_Win_free (&win));
    return bad;
}

static void rndv_fill (unsigned char *buf)
{
    for (size_t i = 0 ; i < RNDV_BYTES ; ++i) {
        buf[i] = (unsigned char) (i * 131 + 7);
    }
}

static int rndv_bad_bytes (const unsigned char *buf)
{
    int bad = 0;

    for (size_t i = 0 ; i < RNDV_BYTES ; ++i) {
        bad += (unsigned char) (i * 131 + 7) != buf[i];
    }
    return bad;
}

static void touch (const char *file)
{
    FILE *done = fopen (file, "w");

    if (done) {
        fclose (done);
    }
}

static int rendezvous (int rank, double seconds, const char *file)
{
    unsigned char *buf = malloc (RNDV_BYTES);
    int bad = 0, total, seen = 0;

    if (0 == rank) {
        MPI_Request req;
        double start, wait;

        rndv_fill (buf);
        (void) unlink (file);
        CHECK(MPI_Barrier (MPI_COMM_WORLD));
        CHECK(MPI_Isend (buf, RNDV_BYTES, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &req));
        start = now ();
        compute (seconds);
        seen = 0 == access (file, F_OK);
        wait = now ();
        CHECK(MPI_Wait (&req, MPI_STATUS_IGNORE));
        wait = now () - wait;
        printf ("# the sender computed %.3f s; the receiver's file was %s before MPI_Wait, which took %.6f s\n",
                now () - start - wait, seen ? "there" : "missing", wait);
        bad = seconds > 0 && !seen;
    } else if (1 == rank) {
        CHECK(MPI_Barrier (MPI_COMM_WORLD));
        CHECK(MPI_Recv (buf, RNDV_BYTES, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        bad = rndv_bad_bytes (buf);
        if (0 == bad) {
            touch (file);
        }
    } else {
        CHECK(MPI_Barrier (MPI_COMM_WORLD));
    }
    CHECK(MPI_Allreduce (&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (0 == rank) {
        printf ("%s - rendezvous from a sender computing %.0f s: 8 MiB, every byte right, received whole before "
                "the sender's MPI_Wait\n", total ? "not ok" : "ok", seconds);
    }
    free (buf);
    return total;
}

static int receiver (int rank, double seconds, const char *file)
{
    unsigned char *buf = calloc (1, RNDV_BYTES);
    int bad = 0, total;

    if (0 == rank) {
        rndv_fill (buf);
        (void) unlink (file);
        CHECK(MPI_Barrier (MPI_COMM_WORLD));
        CHECK(MPI_Send (buf, RNDV_BYTES, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
        touch (file);
    } else if (1 == rank) {
        MPI_Request req;
        double start, wait;
        int seen, early_bad;

        CHECK(MPI_Barrier (MPI_COMM_WORLD));
        CHECK(MPI_Irecv (buf, RNDV_BYTES, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &req));
        start = now ();
        compute (seconds);
        seen = 0 == access (file, F_OK);
        early_bad = rndv_bad_bytes (buf);
        wait = now ();
        CHECK(MPI_Wait (&req, MPI_STATUS_IGNORE));
        wait = now () - wait;
        printf ("# the receiver computed %.3f s; the sender's file was %s and %d bytes wrong before MPI_Wait, "
                "which took %.6f s\n", now () - start - wait, seen ? "there" : "missing", early_bad, wait);
        bad = rndv_bad_bytes (buf) + (seconds > 0 && (!seen || early_bad));
    } else {
        CHECK(MPI_Barrier (MPI_COMM_WORLD));
    }
    CHECK(MPI_Allreduce (&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (1 == rank) {
        printf ("%s - rendezvous to a receiver computing %.0f s: 8 MiB, every byte right, the send complete and "
                "the message whole before the receiver's MPI_Wait\n", total ? "not ok" : "ok", seconds);
    }
    free (buf);
    return total;
}

int main (int argc, char **argv)
{
    const char *mode = NULL, *file = "/tmp/rwv-computing-peer.done";
    double seconds = 5;
    int rank, size, opt, bad, provided, multiple = 0, idle = 0, die = 0;

    while ((opt = getopt (argc, argv, "m:t:f:Tik")) != -1) {
        switch (opt) {
        case 'm': mode = optarg; break;
        case 't': seconds = atof (optarg); break;
        case 'f': file = optarg; break;
        case 'T': multiple = 1; break;
        case 'i': idle = 1; break;
        case 'k': die = 1; break;
        default: return 2;
        }
    }
    MPI_Init_thread (&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    if (multiple && MPI_THREAD_MULTIPLE != provided) {
        fprintf (stderr, "MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort (MPI_COMM_WORLD, 1);
    }
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    if (size < 2 || NULL == mode || (strcmp (mode, "onesided") && strcmp (mode, "rendezvous") && strcmp (mode, "receiver") &&
                                   strcmp (mode, "stream"))) {
        if (0 == rank) {
            fprintf (stderr, "usage: mpirun -np 2 %s -m onesided|rendezvous|receiver|stream [-t SECONDS] [-f FILE] [-T] [-i] [-k]\n",
                     argv[0]);
        }
        MPI_Finalize ();
        return 2;
    }
    if (0 == strcmp (mode, "onesided")) {
        bad = onesided (rank, seconds, idle, die);
    } else if (0 == strcmp (mode, "rendezvous")) {
        bad = rendezvous (rank, seconds, file);
    } else if (0 == strcmp (mode, "receiver")) {
        bad = receiver (rank, seconds, file);
    } else {
        bad = stream (rank, seconds);
    }
    MPI_Finalize ();
    return bad ? 1 : 0;
}
