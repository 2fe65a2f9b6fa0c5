/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Proves MPI one-sided puts and gets to a dynamic window stay right while
 * the target attaches more memory, as a shared linked list does (every
 * rank appends elements it attaches while the others walk the list).
 *
 * Rank 0 attaches one page that the others use (each origin owns a slot
 * there: it puts a value and gets it back, and fetch-and-adds a shared
 * counter), then attaches, one by one, pages BELOW that page while they
 * do, detaching and attaching them again until the others are done.
 * Each new region sorts before the used one, so osc/rdma shifts its
 * region table at every attach.  Open MPI 4.1.4's osc/rdma reads a
 * same-node peer's table in shared memory and uses the entry after
 * dropping its lock: an origin can pair the used address with the key of
 * another region, which a transport that checks keys refuses.  Values and
 * the final counter are checked; a refused access kills the job (the
 * suite then sees the exit status).
 *
 *   test_onesided_attach_race [-n ACCESSES] [-p PAGES]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_check.h"

static int rank, nprocs;
static int accesses = 2000;
static int pages = 64;

/* Rank 0: attach the pages below the used one, highest first, detach
 * them and start again, until every origin says it is done.  Probing
 * between attaches progresses rwv's atomics, which run at the target. */
static void attach_below (MPI_Win win, char *memory, size_t page)
{
    int done = 0, flag;

    while (done < nprocs - 1) {
        for (int p = pages - 2 ; p >= 0 ; --p) {
            CHECK(MPI_Win_attach (win, memory + (size_t) p * page, page));
            MPI_Iprobe (MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            if (flag) {
                MPI_Recv (NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                ++done;
            }
        }
        for (int p = pages - 2 ; p >= 0 ; --p) {
            CHECK(MPI_Win_detach (win, memory + (size_t) p * page));
        }
    }
}

/* An origin: put a fresh value into its slot, get it back, add one to
 * the counter; every value must come back as written. */
static int access_loop (MPI_Win win, MPI_Aint used)
{
    MPI_Aint slot = used + (MPI_Aint) (sizeof (int64_t) * (size_t) (1 + rank));
    int64_t value, back, one = 1, old;
    int errors = 0;

    for (int i = 0 ; i < accesses ; ++i) {
        value = ((int64_t) rank << 32) | i;
        CHECK(MPI_Put (&value, 1, MPI_INT64_T, 0, slot, 1, MPI_INT64_T, win));
        CHECK(MPI_Win_flush (0, win));
        CHECK(MPI_Get (&back, 1, MPI_INT64_T, 0, slot, 1, MPI_INT64_T, win));
        CHECK(MPI_Fetch_and_op (&one, &old, MPI_INT64_T, 0, used, MPI_SUM, win));
        CHECK(MPI_Win_flush (0, win));
        if (back != value && errors++ < 3) {
            fprintf (stderr, "rank %d: access %d got 0x%llx, wrote 0x%llx\n", rank, i,
                     (unsigned long long) back, (unsigned long long) value);
        }
    }
    return errors;
}

int main (int argc, char **argv)
{
    size_t page = (size_t) sysconf (_SC_PAGESIZE);
    char *memory = NULL;
    MPI_Aint used = 0;
    MPI_Win win;
    int opt, errors = 0;

    while (-1 != (opt = getopt (argc, argv, "n:p:"))) {
        if ('n' == opt) {
            accesses = atoi (optarg);
        } else if ('p' == opt) {
            pages = atoi (optarg);
        }
    }
    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    CHECK(MPI_Win_create_dynamic (MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    if (0 == rank) {
        if (0 != posix_memalign ((void **) &memory, page, page * (size_t) pages)) {
            MPI_Abort (MPI_COMM_WORLD, 2);
        }
        memset (memory, 0, page * (size_t) pages);
        CHECK(MPI_Win_attach (win, memory + page * (size_t) (pages - 1), page));
        MPI_Get_address (memory + page * (size_t) (pages - 1), &used);
    }
    MPI_Bcast (&used, 1, MPI_AINT, 0, MPI_COMM_WORLD);

    CHECK(MPI_Win_lock_all (0, win));
    if (0 == rank) {
        attach_below (win, memory, page);
    } else {
        errors = access_loop (win, used);
        MPI_Send (NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD);
    }
    CHECK(MPI_Win_unlock_all (win));
    MPI_Barrier (MPI_COMM_WORLD);
    test_report ("dynamic window: puts and gets read back while the target attaches pages before them", errors);

    if (0 == rank) {
        int64_t expect = (int64_t) (nprocs - 1) * accesses;
        int64_t counter = *(int64_t *) (memory + page * (size_t) (pages - 1));

        errors = counter != expect;
        if (errors) {
            fprintf (stderr, "rank 0: counter %lld, expected %lld\n", (long long) counter, (long long) expect);
        }
    }
    test_report ("dynamic window: every fetch-and-add counted once while the target attaches", errors);

    MPI_Win_free (&win);
    free (memory);
    MPI_Finalize ();
    return 0;
}
