/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Every collective on an intercommunicator gives the right values.
 *
 * MPI_COMM_WORLD is split into two groups in several ways (halves; the
 * first rank against all others; odd against even ranks with the local
 * ranks in reverse order) and joined by MPI_Intercomm_create; a duplicate
 * of the first intercommunicator is checked too.  On each, every blocking
 * collective (and its nonblocking and persistent forms) is checked for the
 * values that arrive: with int, double and a derived datatype (an int
 * followed by a gap, which must stay untouched), at several counts, with
 * the root (MPI_ROOT / MPI_PROC_NULL / a remote rank) in either group,
 * the v-forms with uneven counts at reversed displacements with gaps, and
 * reductions with sums and with a non-commutative operation on a derived
 * datatype (composition of affine maps, which catches any reduction out of
 * rank order; those checks are in test_intercomm_collectives.c).  Then
 * MPI_Intercomm_merge both ways: the merged ranks come in the right order
 * and collectives on the merged communicator work.
 *
 *   test_intercomm_values [-q] [-b] [-l]
 * -q: print only failed checks and one summary line
 * -b: blocking collectives only
 * -l: the nonblocking forms come from coll/libnbc, whose intercommunicator
 *     Ibarrier (Open MPI 4.1.4 up to at least 5.0) lets a rank leave before
 *     every remote rank entered: skip the barrier ordering checks of the
 *     nonblocking and persistent forms, saying so
 * Needs at least 2 ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_intercomm.h"

static const char *mode_name[] = {"blocking", "nonblocking", "persistent"};

MPI_Comm ic;
int grp, lrank, lsize, rsize;
int gsize[2];
static const char *ic_name;
static int world_rank, world_size, quiet, failures, passed, libnbc_ibarrier;

/* ------------------------------------------------------------ reporting */

void report (const char *what, int mode, int bad)
{
    int all_bad = 0;

    MPI_Allreduce (&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    passed += 0 == all_bad;
    failures += 0 != all_bad;
    if (0 == world_rank && (all_bad || !quiet)) {
        printf ("%s - %s: %s (%s) at %d ranks: %d wrong values or errors\n", all_bad ? "not ok" : "ok", ic_name,
                what, mode_name[mode], world_size, all_bad);
        fflush (stdout);
    }
}

/* ------------------------------------------------------------ barrier */

static double now (void)
{
    struct timespec t;

    clock_gettime (CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The barrier ordering is not checked for coll/libnbc's nonblocking forms
 * (-l): say so, once. */
static int skip_order (int mode)
{
    static int said;

    if (BLOCKING == mode || !libnbc_ibarrier) {
        return 0;
    }
    if (0 == world_rank && !said) {
        printf ("skip - barrier ordering of the nonblocking and persistent forms: coll/libnbc's "
                "intercommunicator Ibarrier lets a rank leave before every remote rank entered (Open MPI bug)\n");
    }
    said = 1;
    return 1;
}

/* No rank leaves before every rank of the other group entered (one host:
 * one clock).  The ranks enter with different delays. */
static void check_barrier (int mode)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, skip = skip_order (mode);
    double *all = malloc (3 * world_size * sizeof (double));

    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        double mine[3];

        usleep (2000 * ((world_rank + rep) % world_size));
        mine[0] = grp;
        mine[1] = now ();
        DO(MPI_Barrier (ic), MPI_Ibarrier (ic, &req), MPI_Barrier_init (ic, MPI_INFO_NULL, &req));
        mine[2] = now ();
        MPI_Allgather (mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, MPI_COMM_WORLD);
        for (int q = 0 ; q < world_size && !skip ; ++q) {
            bad += all[3 * q] != grp && mine[2] < all[3 * q + 1];
        }
    }
    DONE();
    free (all);
    report (skip ? "barrier returns" : "barrier: no rank leaves before the other group entered", mode, bad);
}

/* Without clocks: the last rank of group 1 enters MPI_Ibarrier only after
 * the last rank of group 0 polled its own Ibarrier for 200 ms and told it
 * whether that completed, which it must not have. */
static void check_ibarrier_waits (void)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int mine[2] = {grp, lrank}, *all = malloc (2 * world_size * sizeof (int)), poller = 0, late = 0;
    int bad = 0, done = 0, flag = 0;

    if (skip_order (NONBLOCKING)) {
        free (all);
        return;
    }
    MPI_Allgather (mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    for (int w = 0 ; w < world_size ; ++w) {
        poller = all[2 * w] == 0 && all[2 * w + 1] == gsize[0] - 1 ? w : poller;
        late = all[2 * w] == 1 && all[2 * w + 1] == gsize[1] - 1 ? w : late;
    }
    if (world_rank == late) {
        MPI_Recv (&done, 1, MPI_INT, poller, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bad += done;
    }
    bad += MPI_SUCCESS != MPI_Ibarrier (ic, &req);
    if (world_rank == poller) {
        for (double t = now () ; !flag && now () - t < 0.2 ; usleep (1000)) {
            MPI_Test (&req, &flag, MPI_STATUS_IGNORE);
        }
        MPI_Send (&flag, 1, MPI_INT, late, 99, MPI_COMM_WORLD);
    }
    bad += MPI_SUCCESS != MPI_Wait (&req, MPI_STATUS_IGNORE);
    free (all);
    report ("Ibarrier does not complete while a remote rank provably has not entered", NONBLOCKING, bad);
}

static void check_all (int modes)
{
    for (int mode = BLOCKING ; mode < modes ; ++mode) {
        check_barrier (mode);
        check_data_movement (mode);
        check_reductions (mode);
    }
    if (modes > NONBLOCKING) {
        check_ibarrier_waits ();
    }
}

/* ------------------------------------------------------------ intercommunicators */

/* Split the world by color and key, and join the two groups. */
static int make_intercomm (const int *color, const int *key, MPI_Comm *local, MPI_Comm *inter)
{
    int leader[2] = {-1, -1}, rc;

    for (int w = 0 ; w < world_size ; ++w) {     /* local rank 0: least key, then world rank */
        int c = color[w];
        if (leader[c] < 0 || key[w] < key[leader[c]]) {
            leader[c] = w;
        }
    }
    grp = color[world_rank];
    MPI_Comm_split (MPI_COMM_WORLD, grp, key[world_rank], local);
    rc = MPI_Intercomm_create (*local, 0, MPI_COMM_WORLD, leader[1 - grp], 42, inter);
    if (MPI_SUCCESS != rc) {
        return rc;
    }
    MPI_Comm_set_errhandler (*inter, MPI_ERRORS_RETURN);
    return MPI_SUCCESS;
}

static void set_under_test (MPI_Comm comm, const char *name)
{
    int flag = 0, both[2];

    ic = comm;
    ic_name = name;
    MPI_Comm_rank (ic, &lrank);
    MPI_Comm_size (ic, &lsize);
    MPI_Comm_remote_size (ic, &rsize);
    MPI_Comm_test_inter (ic, &flag);
    gsize[grp] = lsize;
    gsize[1 - grp] = rsize;
    MPI_Allreduce (gsize, both, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    report ("an intercommunicator with the group sizes everyone sees", BLOCKING,
            !flag || both[0] != gsize[0] || both[1] != gsize[1] || lsize + rsize != world_size);
}

/* MPI_Intercomm_merge with the given group first (high = 0 on its side):
 * merged ranks are that group's in order, then the other's; a bcast, an
 * allreduce and an allgather on the merged communicator are right. */
static void check_merge (int first)
{
    MPI_Comm merged;
    char what[96];
    int bad = 0, mrank = -1, msize = 0, *ranks = malloc (2 * world_size * sizeof (int));
    int mine[2] = {grp, lrank}, sum = 0, token;
    int rc = MPI_Intercomm_merge (ic, grp != first, &merged);

    if (MPI_SUCCESS == rc) {
        MPI_Comm_set_errhandler (merged, MPI_ERRORS_RETURN);
        MPI_Comm_rank (merged, &mrank);
        MPI_Comm_size (merged, &msize);
        bad += msize != world_size || mrank != (grp == first ? lrank : gsize[first] + lrank);
        bad += MPI_SUCCESS != MPI_Allgather (mine, 2, MPI_INT, ranks, 2, MPI_INT, merged);
        for (int m = 0 ; m < msize ; ++m) {
            int g = m < gsize[first] ? first : 1 - first;
            bad += ranks[2 * m] != g || ranks[2 * m + 1] != (g == first ? m : m - gsize[first]);
        }
        token = mrank == msize - 1 ? 4711 : 0;
        bad += MPI_SUCCESS != MPI_Bcast (&token, 1, MPI_INT, msize - 1, merged) || 4711 != token;
        bad += MPI_SUCCESS != MPI_Allreduce (&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
        bad += sum != msize * (msize - 1) / 2;
        bad += MPI_SUCCESS != MPI_Barrier (merged);
        MPI_Comm_free (&merged);
    } else {
        bad = 1;
    }
    snprintf (what, sizeof (what), "MPI_Intercomm_merge, group %d first: rank order, bcast, allreduce, allgather",
              first);
    report (what, BLOCKING, bad);
    free (ranks);
}

static void run_config (const char *name, const int *color, const int *key, int modes, int with_dup)
{
    MPI_Comm local, inter, dup;

    if (MPI_SUCCESS != make_intercomm (color, key, &local, &inter)) {
        ic_name = name;
        report ("MPI_Intercomm_create", BLOCKING, 1);
        MPI_Comm_free (&local);
        return;
    }
    set_under_test (inter, name);
    check_all (modes);
    check_merge (0);
    check_merge (1);
    if (with_dup) {
        char dup_name[96];
        snprintf (dup_name, sizeof (dup_name), "MPI_Comm_dup of %s", name);
        if (MPI_SUCCESS == MPI_Comm_dup (inter, &dup)) {
            set_under_test (dup, dup_name);
            check_all (modes);
            MPI_Comm_free (&dup);
        } else {
            ic_name = dup_name;
            report ("MPI_Comm_dup", BLOCKING, 1);
        }
    }
    MPI_Comm_free (&inter);
    MPI_Comm_free (&local);
}

int main (int argc, char **argv)
{
    int modes = PERSISTENT + 1;

    for (int i = 1 ; i < argc ; ++i) {
        quiet |= 0 == strcmp (argv[i], "-q");
        modes = 0 == strcmp (argv[i], "-b") ? BLOCKING + 1 : modes;
        libnbc_ibarrier |= 0 == strcmp (argv[i], "-l");
    }
    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size (MPI_COMM_WORLD, &world_size);
    if (world_size < 2) {
        if (0 == world_rank) {
            printf ("skip - intercommunicators need 2 ranks or more\n");
        }
        MPI_Finalize ();
        return 77;
    }
    MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    collectives_setup ();

    {
        int color[world_size], key[world_size];
        char name[64];

        for (int w = 0 ; w < world_size ; ++w) {
            color[w] = w >= world_size / 2;
            key[w] = w;
        }
        snprintf (name, sizeof (name), "halves (%d + %d)", world_size / 2, world_size - world_size / 2);
        run_config (name, color, key, modes, 1);
        for (int w = 0 ; w < world_size ; ++w) {
            color[w] = w > 0;
        }
        snprintf (name, sizeof (name), "first rank against the rest (1 + %d)", world_size - 1);
        run_config (name, color, key, modes, 0);
        for (int w = 0 ; w < world_size ; ++w) {
            color[w] = w % 2;
            key[w] = -w;
        }
        run_config ("odd against even ranks, reversed", color, key, modes, 0);
    }
    if (0 == world_rank && quiet && 0 == failures) {
        printf ("ok - %d checks of every intercommunicator collective (%s; int, double, derived types; "
                "MPI_ROOT/MPI_PROC_NULL; non-commutative op; dup and merge) gave the right values at %d ranks\n",
                passed, modes > 1 ? "blocking, nonblocking, persistent" : "blocking", world_size);
    }
    collectives_teardown ();
    MPI_Finalize ();
    return failures ? 1 : 0;
}
