/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Message rate, in the manner of osu_mbw_mr: pairs of ranks (2k sends to
 * 2k+1; with --map-by node on 2 nodes every pair crosses between them)
 * stream windows of nonblocking sends, each window answered by a 1-byte
 * acknowledgement.  -b: both ranks of a pair stream to each other at once.
 * The rate is all pairs' messages over the slowest rank's time; each
 * figure is the median of the repeats.  Every message of every window
 * lands in its own buffer, whose first and last bytes name the window and
 * the message: a transport that drops, repeats or reorders cannot post a
 * number.
 * -i: windows per repeat (default: about 20 ms of traffic at a guessed
 * rate), so that a count taken around the whole job can be divided by a
 * known number of messages.
 * -S / -R USEC: senders (receivers) sleep that long per window after
 * posting it, before they wait: what such a rank does in MPI is then the
 * work of messages already there, not the polls of a rank that waits
 * (bench_msgcost_verbs.sh counts each side so).
 * -c: also read btl/rwv's MPI_T counters around the timed part and print
 * what one eager message cost: the rail writes posted, completions asked
 * for and reaped, credit writes, messages in place and messages from a
 * send ring of every rank, over every rank's eager messages
 * (acknowledgements and collectives included).
 * -P CTL,ACK: perf stat's control and acknowledgement FIFOs (perf stat
 * --control fifo:CTL,ACK -D -1): rank 0 turns the count on for the timed
 * repeats of each size alone and off after them, so that MPI_Init, the
 * warm-up and the wiring of connections stay out of it, and prints the
 * number of messages counted ("# counted N messages", or "# not counted"
 * when perf did not acknowledge both commands).  Run one size per job:
 * perf adds every span it counted.
 *
 *   bench_msgrate [-r repeats] [-w window] [-i windows] [-b] [-c] [-S usec] [-R usec] [-P ctl,ack] SIZE...
 * prints: size_bytes messages_per_s MBps [writes completions_requested completions_reaped credit_writes
 *         in_place send_ring]
 */
#include <mpi.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_stats.h"
#include "../mpi/test_pvar.h"

#define MAX_REPEATS 101

static const char *counter_names[] = {"btl_rwv_eager_messages", "btl_rwv_writes_posted",
                                      "btl_rwv_completions_requested", "btl_rwv_completions_reaped",
                                      "btl_rwv_credit_writes", "btl_rwv_eager_in_place",
                                      "btl_rwv_eager_from_send_ring"};
#define NUM_COUNTERS (int) (sizeof (counter_names) / sizeof (counter_names[0]))

typedef struct {
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle[NUM_COUNTERS];
    int found;
} counters_t;

/* Handles on every counter, if rwv is the path; found says if it is. */
static void counters_open (counters_t *c)
{
    int count;

    c->found = 1;
    MPI_T_pvar_session_create (&c->session);
    for (int k = 0 ; k < NUM_COUNTERS ; ++k) {
        int index = test_pvar_index (counter_names[k]);

        if (index < 0 || MPI_SUCCESS != MPI_T_pvar_handle_alloc (c->session, index, NULL, &c->handle[k], &count)) {
            c->found = 0;
            return;
        }
    }
}

static void counters_read (counters_t *c, unsigned long *values)
{
    for (int k = 0 ; k < NUM_COUNTERS ; ++k) {
        values[k] = 0;
        if (c->found) {
            MPI_T_pvar_read (c->session, c->handle[k], &values[k]);
        }
    }
}

/* Wait, at most 5 s, for perf's acknowledgement on A; true if it came. */
static bool perf_acked (int a)
{
    struct pollfd p = {.fd = a, .events = POLLIN};
    char ack[16];
    int n;

    while ((n = poll (&p, 1, 5000)) < 0 && EINTR == errno) {
    }
    return n > 0 && read (a, ack, sizeof (ack)) > 0;
}

/* Tell perf stat to start or stop counting (COMMAND "enable" or
 * "disable") and wait until it has: a command perf had not yet read when
 * the timed part began would count less than the part.  perf keeps the
 * acknowledgement FIFO open itself, so a late acknowledgement of an
 * earlier command would stay there: it is drained first.  False if perf
 * is not listening (the FIFO does not open) or did not acknowledge. */
static bool perf_control (const char *fifos, const char *command)
{
    const char *comma = fifos ? strchr (fifos, ',') : NULL;
    size_t len = strlen (command);
    char *ctl, stale[16];
    bool done = false;
    int c = -1, a = -1;

    if (NULL == comma || NULL == (ctl = strndup (fifos, (size_t) (comma - fifos)))) {
        return false;
    }
    if ((a = open (comma + 1, O_RDONLY | O_NONBLOCK)) >= 0 && (c = open (ctl, O_WRONLY | O_NONBLOCK)) >= 0) {
        while (read (a, stale, sizeof (stale)) > 0) {
        }
        done = write (c, command, len) == (ssize_t) len && perf_acked (a);
    }
    if (c >= 0) {
        close (c);
    }
    if (a >= 0) {
        close (a);
    }
    free (ctl);
    return done;
}

/* Enough windows for about 20 ms of traffic at a guessed rate. */
static int iterations (size_t size, int window)
{
    long n = 20000000L / (long) (size + 2000) / window;
    return n < 4 ? 4 : (n > 2000 ? 2000 : (int) n);
}

static unsigned char mark (int iter, int w)
{
    return (unsigned char) (iter * 31 + w * 7 + 1);
}

static void fill (unsigned char *buf, size_t size, unsigned char value)
{
    if (size) {
        buf[0] = value;
        buf[size - 1] = value;
    }
}

static int wrong (const unsigned char *buf, size_t size, unsigned char value)
{
    return size && (buf[0] != value || buf[size - 1] != value);
}

/* ITERS windows of messages, each acknowledged.  SENDS/RECVS: does this
 * rank send its window, receive one, or both; PAUSE: microseconds it
 * sleeps after posting each.  A function of its own so that
 * bench_msgcost.sh's callgrind counts exactly this loop. */
__attribute__((noinline)) static void windows (int peer, int sends, int recvs, unsigned char *sbuf, unsigned char *rbuf, size_t size, int window,
                     int iters, int pause, int *bad)
{
    MPI_Request req[2 * window];
    char ack = 0;

    for (int i = 0 ; i < iters ; ++i) {
        int n = 0;

        for (int w = 0 ; w < window && recvs ; ++w) {
            memset (rbuf + w * size, 0, size ? 1 : 0);
            MPI_Irecv (rbuf + w * size, (int) size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[n++]);
        }
        for (int w = 0 ; w < window && sends ; ++w) {
            fill (sbuf + w * size, size, mark (i, w));
            MPI_Isend (sbuf + w * size, (int) size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[n++]);
        }
        if (pause) {
            usleep ((useconds_t) pause);
        }
        MPI_Waitall (n, req, MPI_STATUSES_IGNORE);
        for (int w = 0 ; w < window && recvs ; ++w) {
            *bad += wrong (rbuf + w * size, size, mark (i, w));
        }
        if (sends && !recvs) {
            MPI_Recv (&ack, 1, MPI_CHAR, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (recvs && !sends) {
            MPI_Send (&ack, 1, MPI_CHAR, peer, 2, MPI_COMM_WORLD);
        }
    }
}

/* One timed run; returns this rank's seconds. */
static double run (int peer, int sends, int recvs, unsigned char *sbuf, unsigned char *rbuf, size_t size, int window,
                   int iters, int pause, int *bad)
{
    double t0;

    MPI_Barrier (MPI_COMM_WORLD);
    t0 = MPI_Wtime ();
    windows (peer, sends, recvs, sbuf, rbuf, size, window, iters, pause, bad);
    return MPI_Wtime () - t0;
}

int main (int argc, char **argv)
{
    int rank, nprocs, opt, repeats = 3, window = 64, fixed_iters = 0, both = 0, want_counters = 0, bad = 0, total_bad = 0, provided;
    int send_pause = 0, recv_pause = 0;
    size_t max = 1;
    const char *perf_fifos = NULL;
    counters_t counters = {0};

    MPI_Init (&argc, &argv);
    MPI_T_init_thread (MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    while (-1 != (opt = getopt (argc, argv, "r:w:i:bcS:R:P:"))) {
        switch (opt) {
        case 'r': repeats = atoi (optarg); break;
        case 'w': window = atoi (optarg); break;
        case 'i': fixed_iters = atoi (optarg); break;
        case 'b': both = 1; break;
        case 'c': want_counters = 1; break;
        case 'S': send_pause = atoi (optarg); break;
        case 'R': recv_pause = atoi (optarg); break;
        case 'P': perf_fifos = optarg; break;
        default: MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
    if (nprocs % 2 || optind >= argc || repeats < 1 || repeats > MAX_REPEATS || window < 1 || window > 1024 ||
        fixed_iters < 0 || send_pause < 0 || recv_pause < 0) {
        if (0 == rank) {
            fprintf (stderr, "usage: mpirun -np 2N %s [-r 1..%d] [-w 1..1024] [-i windows] [-b] [-c] [-S usec] [-R usec] [-P ctl,ack] SIZE...\n", argv[0],
                     MAX_REPEATS);
        }
        MPI_Abort (MPI_COMM_WORLD, 2);
    }
    for (int a = optind ; a < argc ; ++a) {
        size_t s = strtoull (argv[a], NULL, 0);
        max = s > max ? s : max;
    }
    unsigned char *sbuf = calloc ((size_t) window, max), *rbuf = calloc ((size_t) window, max);
    int sender = 0 == rank % 2, peer = sender ? rank + 1 : rank - 1;
    int sends = sender || both, recvs = !sender || both;
    int pairs = nprocs / 2, directions = both ? 2 : 1, pause = sender ? send_pause : recv_pause;

    if (want_counters) {
        counters_open (&counters);
    }
    if (0 == rank) {
        printf ("# size_bytes messages_per_s MBps%s (%d pairs, window %d, %s, medians of %d)\n",
                want_counters && counters.found ?
                    " writes/msg completions_requested/msg completions_reaped/msg credit_writes/msg in_place/msg"
                    " send_ring/msg" : "",
                pairs, window, both ? "both directions" : "one direction", repeats);
    }
    for (int a = optind ; a < argc ; ++a) {
        size_t size = strtoull (argv[a], NULL, 0);
        int iters = fixed_iters ? fixed_iters : iterations (size, window);
        unsigned long before[NUM_COUNTERS], after[NUM_COUNTERS];
        bool counted = false;
        double rate[MAX_REPEATS];

        (void) run (peer, sends, recvs, sbuf, rbuf, size, window, iters / 4 + 1, pause, &bad); /* warm up */
        counters_read (&counters, before);
        if (0 == rank) {
            counted = perf_control (perf_fifos, "enable\n");
        }
        for (int r = 0 ; r < repeats ; ++r) {
            double mine = run (peer, sends, recvs, sbuf, rbuf, size, window, iters, pause, &bad), slowest;

            MPI_Allreduce (&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            rate[r] = (double) pairs * directions * window * iters / slowest;
        }
        if (0 == rank && perf_fifos) {
            if (perf_control (perf_fifos, "disable\n") && counted) {
                printf ("# counted %ld messages\n", (long) pairs * directions * window * iters * repeats);
            } else {
                printf ("# not counted: perf stat did not take its commands (-P %s)\n", perf_fifos);
            }
        }
        counters_read (&counters, after);
        for (int k = 0 ; k < NUM_COUNTERS ; ++k) {
            after[k] -= before[k];
        }
        MPI_Reduce (0 == rank ? MPI_IN_PLACE : after, after, NUM_COUNTERS, MPI_UNSIGNED_LONG, MPI_SUM, 0,
                    MPI_COMM_WORLD);
        if (0 == rank) {
            double m = bench_median (rate, repeats);

            printf ("%zu %.0f %.1f", size, m, m * size / 1e6);
            if (want_counters && counters.found) {
                for (int k = 1 ; k < NUM_COUNTERS ; ++k) {
                    printf (" %.3f", after[0] > 0 ? (double) after[k] / after[0] : 0.0);
                }
            }
            printf ("\n");
            fflush (stdout);
        }
    }
    MPI_Reduce (&bad, &total_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank && total_bad) {
        printf ("# ERROR: %d messages arrived with wrong contents\n", total_bad);
    }
    free (sbuf);
    free (rbuf);
    MPI_T_finalize ();
    MPI_Finalize ();
    return total_bad ? 1 : 0;
}
