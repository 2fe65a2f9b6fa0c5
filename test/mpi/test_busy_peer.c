/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * A rank busy computing, with no MPI call, while its peers contact it for
 * the first time.  The connection must be answered (btl/rwv's connection
 * thread) and the data must arrive once the rank calls MPI again, every
 * byte right, however long it computed.
 *
 *   test_busy_peer [-b SECONDS] [-r RANK] [-t THREADS] [-o] [-s FILE]
 *     -b  how long the busy rank computes (default 8)
 *     -s  the busy rank stops instead, as a debugger attaching stops it:
 *         it writes its process id to FILE and raises SIGSTOP; something
 *         outside sends SIGCONT
 *     -r  the busy rank (default: the last)
 *     -t  MPI_THREAD_MULTIPLE, and every other rank sends from THREADS
 *         threads at once (default: MPI_THREAD_SINGLE, one thread)
 *     -o  one-sided: the busy rank is the target of MPI_Put and
 *         MPI_Fetch_and_op on a window made first with coll/basic's
 *         linear collectives, which connect every rank to rank 0 only, so
 *         a put between two other ranks is their first contact
 *
 * Point to point sends an 8-byte (eager), a 60,000-byte (eager up to
 * 64 KiB, a cold peer's FETCH) and a 1 MiB (rendezvous) message from every
 * other rank.  Prints "ok - ..." lines from rank 0, and from the busy rank
 * the CPU time its rwv-conn threads used while it computed:
 * "# rwv-conn CPU while busy: TICKS ticks in SECONDS s, THREADS threads".
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_check.h"

static const int sizes[] = {8, 60000, 1 << 20};
#define NSIZES ((int) (sizeof (sizes) / sizeof (sizes[0])))

static unsigned char pattern (int from, int size, size_t i, int thread)
{
    return (unsigned char) (from * 31 + size * 7 + thread * 13 + i * 5 + (i >> 9));
}

static double now (void)
{
    struct timespec t;

    clock_gettime (CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Work the CPU without a single MPI call. */
static double compute (double seconds)
{
    double end = now () + seconds, x = 1.0;

    while (now () < end) {
        for (int i = 0 ; i < 100000 ; ++i) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    return x;
}

/* User plus system ticks of this process's threads named rwv-conn, by
 * thread id (at most MAX_CONN_THREADS); returns how many. */
#define MAX_CONN_THREADS 8
static int conn_thread_ticks (long tids[], long ticks[])
{
    DIR *dir = opendir ("/proc/self/task");
    struct dirent *e;
    int n = 0;

    while (NULL != dir && n < MAX_CONN_THREADS && NULL != (e = readdir (dir))) {
        char path[300], comm[32] = "";
        unsigned long utime, stime;
        FILE *f;

        snprintf (path, sizeof (path), "/proc/self/task/%s/comm", e->d_name);
        if (NULL == (f = fopen (path, "r"))) {
            continue;
        }
        (void) !fgets (comm, sizeof (comm), f);
        fclose (f);
        snprintf (path, sizeof (path), "/proc/self/task/%s/stat", e->d_name);
        if (0 != strcmp (comm, "rwv-conn\n") || NULL == (f = fopen (path, "r"))) {
            continue;
        }
        /* after the command in parentheses: state, then fields 4 to 13, then utime and stime */
        if (2 == fscanf (f, "%*d (%*[^)]) %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime)) {
            tids[n] = atol (e->d_name);
            ticks[n++] = (long) (utime + stime);
        }
        fclose (f);
    }
    if (NULL != dir) {
        closedir (dir);
    }
    return n;
}

/* Compute, and say how much CPU the connection threads took meanwhile:
 * a thread that sleeps until a connection event takes a tick or two. */
static void compute_watching_conn_threads (double seconds)
{
    long tids0[MAX_CONN_THREADS], ticks0[MAX_CONN_THREADS], tids1[MAX_CONN_THREADS], ticks1[MAX_CONN_THREADS];
    int n0 = conn_thread_ticks (tids0, ticks0), n1;
    long used = 0;

    compute (seconds);
    n1 = conn_thread_ticks (tids1, ticks1);
    for (int i = 0 ; i < n1 ; ++i) {
        used += ticks1[i];
        for (int j = 0 ; j < n0 ; ++j) {
            used -= tids0[j] == tids1[i] ? ticks0[j] : 0;
        }
    }
    printf ("# rwv-conn CPU while busy: %ld ticks in %.0f s, %d threads\n", used, seconds, n1);
    fflush (stdout);
}

static const char *stop_file;

/* Away from MPI: computing, or stopped until SIGCONT (-s). */
static void busy_away (double seconds, bool watch)
{
    FILE *f;

    if (NULL == stop_file) {
        if (watch) {
            compute_watching_conn_threads (seconds);
        } else {
            compute (seconds);
        }
        return;
    }
    if (NULL == (f = fopen (stop_file, "w"))) {
        perror (stop_file);
        MPI_Abort (MPI_COMM_WORLD, 2);
    }
    fprintf (f, "%d\n", (int) getpid ());
    fclose (f);
    raise (SIGSTOP);
}

/* how the busy rank was away, for the report */
static const char *away (double seconds, char *text, size_t len)
{
    if (NULL != stop_file) {
        return "stopped (SIGSTOP)";
    }
    snprintf (text, len, "busy %.0f s", seconds);
    return text;
}

typedef struct {
    int busy, thread;
} sender_t;

static void *send_all (void *arg)
{
    const sender_t *s = (const sender_t *) arg;
    int rank;

    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    for (int k = 0 ; k < NSIZES ; ++k) {
        unsigned char *buf = malloc (sizes[k]);

        for (int i = 0 ; i < sizes[k] ; ++i) {
            buf[i] = pattern (rank, sizes[k], i, s->thread);
        }
        CHECK(MPI_Send (buf, sizes[k], MPI_BYTE, s->busy, 100 * s->thread + k, MPI_COMM_WORLD));
        free (buf);
    }
    return NULL;
}

/* Every message from every other rank and thread, checked. */
static int receive_all (int size, int threads)
{
    int errors = 0;

    for (int from = 0 ; from < size - 1 ; ++from) {
        for (int t = 0 ; t < threads ; ++t) {
            for (int k = 0 ; k < NSIZES ; ++k) {
                unsigned char *buf = malloc (sizes[k]);
                MPI_Status status;
                int count, src;

                CHECK(MPI_Recv (buf, sizes[k], MPI_BYTE, MPI_ANY_SOURCE, 100 * t + k, MPI_COMM_WORLD, &status));
                src = status.MPI_SOURCE;
                MPI_Get_count (&status, MPI_BYTE, &count);
                errors += count != sizes[k];
                for (int i = 0 ; i < sizes[k] ; ++i) {
                    errors += buf[i] != pattern (src, sizes[k], i, t);
                }
                free (buf);
            }
        }
    }
    return errors;
}

static int run_p2p (int rank, int size, int busy, double seconds, int threads)
{
    char what[160], text[32];
    int errors = 0;

    if (rank == busy) {
        busy_away (seconds, true);
        errors = receive_all (size, threads);
    } else {
        pthread_t tid[16];
        sender_t s[16];

        for (int t = 0 ; t < threads ; ++t) {
            s[t] = (sender_t) {.busy = busy, .thread = t};
            if (threads > 1) {
                pthread_create (&tid[t], NULL, send_all, &s[t]);
            } else {
                send_all (&s[t]);
            }
        }
        for (int t = 0 ; threads > 1 && t < threads ; ++t) {
            pthread_join (tid[t], NULL);
        }
    }
    snprintf (what, sizeof (what), "rank %d %s at first contact: 8 B, 60000 B and 1 MiB from each of %d "
              "ranks x %d threads, every byte right", busy, away (seconds, text, sizeof (text)), size - 1, threads);
    return test_report (what, errors);
}

/* The window is made and the target busy before anyone else touches it. */
static int run_osc (int rank, int size, int busy, double seconds)
{
    const int n = 1024;
    int64_t *base, one = 1, old = -1;
    int errors = 0, origins = size - 2;
    char what[160], text[32];
    MPI_Win win;

    CHECK(MPI_Win_allocate (n * sizeof (int64_t) * size + sizeof (int64_t), sizeof (int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    memset (base, 0, n * sizeof (int64_t) * size + sizeof (int64_t));
    CHECK(MPI_Win_lock_all (0, win));
    CHECK(MPI_Barrier (MPI_COMM_WORLD));
    if (rank == busy) {
        busy_away (seconds, false);
    } else if (0 != rank) {
        int64_t *src = malloc (n * sizeof (int64_t));

        for (int i = 0 ; i < n ; ++i) {
            src[i] = (int64_t) rank << 32 | i;
        }
        CHECK(MPI_Put (src, n, MPI_INT64_T, busy, (MPI_Aint) rank * n, n, MPI_INT64_T, win));
        CHECK(MPI_Fetch_and_op (&one, &old, MPI_INT64_T, busy, (MPI_Aint) n * size, MPI_SUM, win));
        CHECK(MPI_Win_flush (busy, win));
        errors += old < 0 || old >= origins;
        free (src);
    }
    CHECK(MPI_Win_unlock_all (win));
    CHECK(MPI_Barrier (MPI_COMM_WORLD));
    if (rank == busy) {
        for (int r = 1 ; r < size ; ++r) {
            for (int i = 0 ; r != busy && i < n ; ++i) {
                errors += base[r * n + i] != ((int64_t) r << 32 | i);
            }
        }
        errors += base[n * size] != origins;
    }
    CHECK(MPI_Win_free (&win));
    snprintf (what, sizeof (what), "one-sided to rank %d %s: MPI_Put of 8 KiB and MPI_Fetch_and_op from "
              "%d ranks at first contact, every value right", busy, away (seconds, text, sizeof (text)), origins);
    return test_report (what, errors);
}

int main (int argc, char **argv)
{
    int rank, size, busy = -1, threads = 1, provided, opt, errors;
    double seconds = 8;
    int one_sided = 0;

    while (-1 != (opt = getopt (argc, argv, "b:r:t:os:"))) {
        switch (opt) {
        case 'b': seconds = atof (optarg); break;
        case 'r': busy = atoi (optarg); break;
        case 't': threads = atoi (optarg); break;
        case 'o': one_sided = 1; break;
        case 's': stop_file = optarg; break;
        default: return 2;
        }
    }
    if (threads < 1 || threads > 16) {
        return 2;
    }
    MPI_Init_thread (&argc, &argv, threads > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    if (busy < 0) {
        busy = size - 1;
    }
    if (size < 2 || (one_sided && (size < 3 || 0 == busy)) || (threads > 1 && MPI_THREAD_MULTIPLE != provided)) {
        if (0 == rank) {
            printf ("skip - test_busy_peer: needs 2 ranks (3 for -o, the busy one not rank 0) and the thread level asked\n");
        }
        MPI_Finalize ();
        return 0;
    }
    errors = one_sided ? run_osc (rank, size, busy, seconds) : run_p2p (rank, size, busy, seconds, threads);
    MPI_Finalize ();
    return errors;
}
