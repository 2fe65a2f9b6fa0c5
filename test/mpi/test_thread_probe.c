/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Probe, then receive, from several threads on one tag: the pattern of
 * MPICH's threads/pt2pt/mt_probe_sendrecv, phase 1.  Rank 0's threads
 * each send N messages of one int to rank 1 on tag 0; rank 1's threads
 * each probe for a message from rank 0 on tag 0, read its count, and
 * receive one int.  Rank 1 prints:
 *  - "ok - ..." if every message arrived exactly once with its value
 *    intact (the receive asks for one int, whatever the probe said, so a
 *    bad probe status cannot hide a lost or doubled message);
 *  - how many probe statuses had a count other than one int.  With
 *    -m mprobe that count must be 0 ("not ok" otherwise); with probe and
 *    iprobe it is reported, not judged: ob1 reads an unexpected
 *    fragment's length after dropping its matching lock, while another
 *    thread may receive and free that fragment (docs/testing.md).
 *
 *   test_thread_probe [-m probe|iprobe|mprobe] [-b] [-t THREADS] [-n PER_THREAD]
 *     -b  the senders use MPI_Send (default MPI_Isend, then MPI_Waitall)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum probe_kind { PROBE, IPROBE, MPROBE };

static enum probe_kind kind = PROBE;
static int threads = 4, per_thread = 4096, blocking;
static unsigned char *seen;          /* rank 1: deliveries of each value */
static long wrong_counts, bad_values;
static int first_wrong_bytes = -1;   /* what the first wrong status said, in bytes */
static pthread_mutex_t tally = PTHREAD_MUTEX_INITIALIZER;

static int value_of (int thread, int i)
{
    return thread * per_thread + i;
}

static void *sender (void *arg)
{
    int thread = (int) (intptr_t) arg;
    int *values = malloc (sizeof (int) * per_thread);
    MPI_Request *reqs = malloc (sizeof (MPI_Request) * per_thread);

    for (int i = 0 ; i < per_thread ; ++i) {
        values[i] = value_of (thread, i);
        if (blocking) {
            MPI_Send (values + i, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        } else {
            MPI_Isend (values + i, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, reqs + i);
        }
    }
    if (!blocking) {
        MPI_Waitall (per_thread, reqs, MPI_STATUSES_IGNORE);
    }
    free (reqs);
    free (values);
    return NULL;
}

/* One message: probed the chosen way, then received as one int. */
static int probe_and_receive (int *count)
{
    MPI_Status status;
    MPI_Message msg;
    int value = -1, flag = 0;

    switch (kind) {
    case PROBE:
        MPI_Probe (0, 0, MPI_COMM_WORLD, &status);
        break;
    case IPROBE:
        while (!flag) {
            MPI_Iprobe (0, 0, MPI_COMM_WORLD, &flag, &status);
        }
        break;
    case MPROBE:
        MPI_Mprobe (0, 0, MPI_COMM_WORLD, &msg, &status);
        break;
    }
    MPI_Get_count (&status, MPI_INT, count);
    if (1 != *count && -1 == first_wrong_bytes) {
        MPI_Get_count (&status, MPI_BYTE, &first_wrong_bytes);
    }
    if (MPROBE == kind) {
        MPI_Mrecv (&value, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv (&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return value;
}

static void *receiver (void *arg)
{
    long wrong = 0, bad = 0;

    (void) arg;
    for (int i = 0 ; i < per_thread ; ++i) {
        int count, value = probe_and_receive (&count);

        wrong += 1 != count;
        if (value < 0 || value >= threads * per_thread) {
            ++bad;
            continue;
        }
        pthread_mutex_lock (&tally);
        seen[value]++;
        pthread_mutex_unlock (&tally);
    }
    pthread_mutex_lock (&tally);
    wrong_counts += wrong;
    bad_values += bad;
    pthread_mutex_unlock (&tally);
    return NULL;
}

static int report (void)
{
    long missing = 0, doubled = 0;
    const char *name = PROBE == kind ? "MPI_Probe" : IPROBE == kind ? "MPI_Iprobe" : "MPI_Mprobe";
    int failed;

    for (int v = 0 ; v < threads * per_thread ; ++v) {
        missing += 0 == seen[v];
        doubled += seen[v] > 1;
    }
    failed = missing || doubled || bad_values;
    printf ("%s - %d threads received %d one-int messages with %s then a receive: %ld missing, %ld twice, "
            "%ld out of range\n", failed ? "not ok" : "ok", threads, threads * per_thread, name, missing,
            doubled, bad_values);
    if (MPROBE == kind) {
        printf ("%s - %s statuses with a count other than one int: %ld", wrong_counts ? "not ok" : "ok", name,
                wrong_counts);
        printf (wrong_counts ? " (the first said %d bytes)\n" : "\n", first_wrong_bytes);
        failed |= 0 != wrong_counts;
    } else {
        printf ("# %s statuses with a count other than one int: %ld (ob1's race when nonzero; the first said %d "
                "bytes, MPI_UNDEFINED is %d)\n", name, wrong_counts, first_wrong_bytes, MPI_UNDEFINED);
    }
    return failed;
}

static void parse (int argc, char **argv)
{
    int c;

    while (-1 != (c = getopt (argc, argv, "m:bt:n:"))) {
        switch (c) {
        case 'm':
            kind = 0 == strcmp (optarg, "iprobe") ? IPROBE : 0 == strcmp (optarg, "mprobe") ? MPROBE : PROBE;
            break;
        case 'b':
            blocking = 1;
            break;
        case 't':
            threads = atoi (optarg);
            break;
        case 'n':
            per_thread = atoi (optarg);
            break;
        default:
            fprintf (stderr, "usage: %s [-m probe|iprobe|mprobe] [-b] [-t THREADS] [-n PER_THREAD]\n", argv[0]);
            exit (2);
        }
    }
    if (threads < 1 || threads > 64 || per_thread < 1 || per_thread > (1 << 20)) {
        fprintf (stderr, "%s: 1 to 64 threads, 1 to 1048576 messages each\n", argv[0]);
        exit (2);
    }
}

int main (int argc, char **argv)
{
    pthread_t tid[64];
    int provided, rank, size, failed = 0;

    parse (argc, argv);
    MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    if (MPI_THREAD_MULTIPLE != provided || 2 != size) {
        if (0 == rank) {
            printf ("not ok - needs 2 ranks and MPI_THREAD_MULTIPLE (provided %d)\n", provided);
        }
        MPI_Finalize ();
        return 1;
    }
    seen = calloc ((size_t) threads * per_thread, 1);
    MPI_Barrier (MPI_COMM_WORLD);
    for (int t = 0 ; t < threads ; ++t) {
        pthread_create (tid + t, NULL, 0 == rank ? sender : receiver, (void *) (intptr_t) t);
    }
    for (int t = 0 ; t < threads ; ++t) {
        pthread_join (tid[t], NULL);
    }
    if (1 == rank) {
        failed = report ();
    }
    MPI_Bcast (&failed, 1, MPI_INT, 1, MPI_COMM_WORLD);
    free (seen);
    MPI_Finalize ();
    return failed;
}
