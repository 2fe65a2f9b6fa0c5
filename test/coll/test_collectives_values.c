/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Every collective gives the right values, in each of its forms: blocking,
 * nonblocking and persistent (started 3 times with new data each time),
 * with MPI_IN_PLACE where the standard allows it, with a commutative sum
 * and with a non-commutative operation (2x2 matrix product, which catches
 * any reduction out of rank order).  Also: nonblocking collectives
 * overlapped with point-to-point traffic that a blocking implementation
 * would deadlock on, and several nonblocking collectives in flight at once
 * completed in reverse order.  On the world, a split with reversed rank
 * order, and a communicator merged from an intercommunicator.
 *
 * Run it with `--mca coll rdmabar' alone to prove rdmabar carries a whole
 * MPI program; in the default set it checks Open MPI's own components.
 *   test_collectives_values [-u] [-q]
 * -u: neighborhood collectives must fail with MPI_ERR_UNSUPPORTED_OPERATION
 *     (rdmabar alone has none) instead of giving the right values.
 * -q: print only failed checks and one summary line.
 */
#include <mpi.h>
#include "test_persistent.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BLOCKING, NONBLOCKING, PERSISTENT };
static const char *mode_name[] = {"blocking", "nonblocking", "persistent"};
#define REPS(mode) (PERSISTENT == (mode) ? 3 : 1)
#define N 5      /* elements per block */
#define MOD 1009

static int rank, size, failures, passed, quiet;
static MPI_Comm comm;
static MPI_Datatype mat_type;
static MPI_Op mat_op;

static int v (int r, int i, int rep)
{
    return r * 1000 + i * 3 + rep * 7 + 1;
}

static void report (const char *what, int mode, int inplace, int bad)
{
    int all_bad = 0;

    MPI_Allreduce (&bad, &all_bad, 1, MPI_INT, MPI_SUM, comm);
    passed += 0 == all_bad;
    if (0 == rank && (all_bad || !quiet)) {
        printf ("%s - %s%s (%s) at %d ranks: %d wrong values\n", all_bad ? "not ok" : "ok", what,
                inplace ? " in place" : "", mode_name[mode], size, all_bad);
    }
    failures += all_bad != 0;
}

/* Run the collective in the given form; a persistent one is created on the
 * first repetition and started on each. */
#define DO(blocking, nonblocking, init) do {                                  \
        if (BLOCKING == mode) {                                               \
            bad += MPI_SUCCESS != (blocking);                                 \
        } else if (NONBLOCKING == mode) {                                     \
            bad += MPI_SUCCESS != (nonblocking);                              \
            MPI_Wait (&req, MPI_STATUS_IGNORE);                               \
        } else {                                                              \
            if (0 == rep) {                                                   \
                bad += MPI_SUCCESS != (init);                                 \
            }                                                                 \
            MPI_Start (&req);                                                 \
            MPI_Wait (&req, MPI_STATUS_IGNORE);                               \
        }                                                                     \
    } while (0)
#define DONE() do { if (PERSISTENT == mode) MPI_Request_free (&req); } while (0)

/* ------------------------------------------------------------ matrices */

static void mat_mul (const int *a, const int *b, int *c)
{
    int t[4] = {(a[0] * b[0] + a[1] * b[2]) % MOD, (a[0] * b[1] + a[1] * b[3]) % MOD,
                (a[2] * b[0] + a[3] * b[2]) % MOD, (a[2] * b[1] + a[3] * b[3]) % MOD};
    memcpy (c, t, sizeof (t));
}

/* MPI's rule: inout = in op inout */
static void mat_op_fn (void *in, void *inout, int *len, MPI_Datatype *type)
{
    for (int k = 0 ; k < *len ; ++k) {
        mat_mul ((int *) in + 4 * k, (int *) inout + 4 * k, (int *) inout + 4 * k);
    }
}

static void mat_of (int r, int i, int rep, int *m)
{
    m[0] = 1 + (r + rep) % 3;
    m[1] = (r * 7 + i + rep) % 11;
    m[2] = (r * 3 + i * 5) % 13;
    m[3] = 1 + i % 2;
}

/* product of ranks [first, last) for element i */
static void mat_expect (int first, int last, int i, int rep, int *m)
{
    int x[4];

    m[0] = m[3] = 1;
    m[1] = m[2] = 0;
    for (int r = first ; r < last ; ++r) {
        mat_of (r, i, rep, x);
        mat_mul (m, x, m);
    }
}

/* ------------------------------------------------------------ checks */

static void check_barrier (int mode)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0;

    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        struct timespec t;
        double in, out, times[2], *all = malloc (2 * size * sizeof (double));

        usleep (1000 * ((rank + rep) % size));
        clock_gettime (CLOCK_MONOTONIC, &t);
        in = t.tv_sec + 1e-9 * t.tv_nsec;
        DO(MPI_Barrier (comm), MPI_Ibarrier (comm, &req), MPI_Barrier_init (comm, MPI_INFO_NULL, &req));
        clock_gettime (CLOCK_MONOTONIC, &t);
        out = t.tv_sec + 1e-9 * t.tv_nsec;
        times[0] = in;
        times[1] = out;
        MPI_Allgather (times, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, comm);
        for (int r = 0 ; r < size ; ++r) {
            for (int q = 0 ; q < size ; ++q) {
                bad += all[2 * q + 1] < all[2 * r];   /* q left before r entered */
            }
        }
        free (all);
    }
    DONE();
    report ("barrier: no rank leaves before the last one entered", mode, 0, bad);
}

static void check_bcast (int mode)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, buf[N], root = size - 1;

    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int i = 0 ; i < N ; ++i) {
            buf[i] = rank == root ? v (root, i, rep) : -1;
        }
        DO(MPI_Bcast (buf, N, MPI_INT, root, comm), MPI_Ibcast (buf, N, MPI_INT, root, comm, &req),
           MPI_Bcast_init (buf, N, MPI_INT, root, comm, MPI_INFO_NULL, &req));
        for (int i = 0 ; i < N ; ++i) {
            bad += buf[i] != v (root, i, rep);
        }
    }
    DONE();
    report ("bcast", mode, 0, bad);
}

static void check_gather (int mode, int inplace)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, root = size > 1 ? 1 : 0, mine[N], *all = malloc (size * N * sizeof (int));
    const void *sbuf = inplace && rank == root ? MPI_IN_PLACE : mine;

    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int i = 0 ; i < size * N ; ++i) {
            all[i] = inplace && i / N == rank ? v (rank, i % N, rep) : -1;
        }
        for (int i = 0 ; i < N ; ++i) {
            mine[i] = v (rank, i, rep);
        }
        DO(MPI_Gather (sbuf, N, MPI_INT, all, N, MPI_INT, root, comm),
           MPI_Igather (sbuf, N, MPI_INT, all, N, MPI_INT, root, comm, &req),
           MPI_Gather_init (sbuf, N, MPI_INT, all, N, MPI_INT, root, comm, MPI_INFO_NULL, &req));
        for (int i = 0 ; rank == root && i < size * N ; ++i) {
            bad += all[i] != v (i / N, i % N, rep);
        }
    }
    DONE();
    free (all);
    report ("gather", mode, inplace, bad);
}

/* rank r contributes r % 3 + 1 elements at displacement r * (N + 2) */
static void vlayout (int *counts, int *displs)
{
    for (int r = 0 ; r < size ; ++r) {
        counts[r] = r % 3 + 1;
        displs[r] = r * (N + 2);
    }
}

static void check_gatherv (int mode, int inplace)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, root = 0, mine[N], counts[size], displs[size], len = size * (N + 2);
    int *all = malloc (len * sizeof (int));
    const void *sbuf = inplace && rank == root ? MPI_IN_PLACE : mine;

    vlayout (counts, displs);
    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int i = 0 ; i < len ; ++i) {
            all[i] = -1;
        }
        for (int i = 0 ; i < counts[rank] ; ++i) {
            mine[i] = v (rank, i, rep);
            if (inplace) {
                all[displs[rank] + i] = mine[i];
            }
        }
        DO(MPI_Gatherv (sbuf, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root, comm),
           MPI_Igatherv (sbuf, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root, comm, &req),
           MPI_Gatherv_init (sbuf, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root, comm,
                              MPI_INFO_NULL, &req));
        for (int r = 0 ; rank == root && r < size ; ++r) {
            for (int i = 0 ; i < N + 2 ; ++i) {
                bad += all[displs[r] + i] != (i < counts[r] ? v (r, i, rep) : -1);
            }
        }
    }
    DONE();
    free (all);
    report ("gatherv (gaps between blocks stay untouched)", mode, inplace, bad);
}

static void check_scatter (int mode, int inplace)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, root = size - 1, mine[N], *all = malloc (size * N * sizeof (int));
    void *rbuf = inplace && rank == root ? MPI_IN_PLACE : mine;

    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int i = 0 ; i < size * N ; ++i) {
            all[i] = rank == root ? v (i / N, i % N, rep) : -1;
        }
        for (int i = 0 ; i < N ; ++i) {
            mine[i] = -1;
        }
        DO(MPI_Scatter (all, N, MPI_INT, rbuf, N, MPI_INT, root, comm),
           MPI_Iscatter (all, N, MPI_INT, rbuf, N, MPI_INT, root, comm, &req),
           MPI_Scatter_init (all, N, MPI_INT, rbuf, N, MPI_INT, root, comm, MPI_INFO_NULL, &req));
        for (int i = 0 ; i < N ; ++i) {
            bad += (inplace && rank == root ? all[rank * N + i] : mine[i]) != v (rank, i, rep);
        }
    }
    DONE();
    free (all);
    report ("scatter", mode, inplace, bad);
}

static void check_scatterv (int mode, int inplace)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, root = 0, mine[N], counts[size], displs[size], len = size * (N + 2);
    int *all = malloc (len * sizeof (int));
    void *rbuf = inplace && rank == root ? MPI_IN_PLACE : mine;

    vlayout (counts, displs);
    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int r = 0 ; r < size ; ++r) {
            for (int i = 0 ; i < N + 2 ; ++i) {
                all[displs[r] + i] = rank == root ? v (r, i, rep) : -1;
            }
        }
        for (int i = 0 ; i < N ; ++i) {
            mine[i] = -1;
        }
        DO(MPI_Scatterv (all, counts, displs, MPI_INT, rbuf, counts[rank], MPI_INT, root, comm),
           MPI_Iscatterv (all, counts, displs, MPI_INT, rbuf, counts[rank], MPI_INT, root, comm, &req),
           MPI_Scatterv_init (all, counts, displs, MPI_INT, rbuf, counts[rank], MPI_INT, root, comm,
                               MPI_INFO_NULL, &req));
        for (int i = 0 ; !(inplace && rank == root) && i < N ; ++i) {
            bad += mine[i] != (i < counts[rank] ? v (rank, i, rep) : -1);
        }
    }
    DONE();
    free (all);
    report ("scatterv", mode, inplace, bad);
}

static void check_allgather (int mode, int inplace)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, mine[N], *all = malloc (size * N * sizeof (int));
    const void *sbuf = inplace ? MPI_IN_PLACE : mine;

    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int i = 0 ; i < size * N ; ++i) {
            all[i] = inplace && i / N == rank ? v (rank, i % N, rep) : -1;
        }
        for (int i = 0 ; i < N ; ++i) {
            mine[i] = v (rank, i, rep);
        }
        DO(MPI_Allgather (sbuf, N, MPI_INT, all, N, MPI_INT, comm),
           MPI_Iallgather (sbuf, N, MPI_INT, all, N, MPI_INT, comm, &req),
           MPI_Allgather_init (sbuf, N, MPI_INT, all, N, MPI_INT, comm, MPI_INFO_NULL, &req));
        for (int i = 0 ; i < size * N ; ++i) {
            bad += all[i] != v (i / N, i % N, rep);
        }
    }
    DONE();
    free (all);
    report ("allgather", mode, inplace, bad);
}

static void check_allgatherv (int mode, int inplace)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, mine[N], counts[size], displs[size], len = size * (N + 2);
    int *all = malloc (len * sizeof (int));
    const void *sbuf = inplace ? MPI_IN_PLACE : mine;

    vlayout (counts, displs);
    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int i = 0 ; i < len ; ++i) {
            all[i] = -1;
        }
        for (int i = 0 ; i < counts[rank] ; ++i) {
            mine[i] = v (rank, i, rep);
            if (inplace) {
                all[displs[rank] + i] = mine[i];
            }
        }
        DO(MPI_Allgatherv (sbuf, counts[rank], MPI_INT, all, counts, displs, MPI_INT, comm),
           MPI_Iallgatherv (sbuf, counts[rank], MPI_INT, all, counts, displs, MPI_INT, comm, &req),
           MPI_Allgatherv_init (sbuf, counts[rank], MPI_INT, all, counts, displs, MPI_INT, comm, MPI_INFO_NULL,
                                 &req));
        for (int r = 0 ; r < size ; ++r) {
            for (int i = 0 ; i < N + 2 ; ++i) {
                bad += all[displs[r] + i] != (i < counts[r] ? v (r, i, rep) : -1);
            }
        }
    }
    DONE();
    free (all);
    report ("allgatherv", mode, inplace, bad);
}

/* what rank `from' sends to rank `to', element i */
static int a2a (int from, int to, int i, int rep)
{
    return v (from, to * 16 + i, rep);
}

static void check_alltoall (int mode, int inplace)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, *s = malloc (size * N * sizeof (int)), *r = malloc (size * N * sizeof (int));
    const void *sbuf = inplace ? MPI_IN_PLACE : s;

    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int i = 0 ; i < size * N ; ++i) {
            s[i] = a2a (rank, i / N, i % N, rep);
            r[i] = inplace ? s[i] : -1;
        }
        DO(MPI_Alltoall (sbuf, N, MPI_INT, r, N, MPI_INT, comm),
           MPI_Ialltoall (sbuf, N, MPI_INT, r, N, MPI_INT, comm, &req),
           MPI_Alltoall_init (sbuf, N, MPI_INT, r, N, MPI_INT, comm, MPI_INFO_NULL, &req));
        for (int i = 0 ; i < size * N ; ++i) {
            bad += r[i] != a2a (i / N, rank, i % N, rep);
        }
    }
    DONE();
    free (s);
    free (r);
    report ("alltoall", mode, inplace, bad);
}

/* rank a sends (a + b) % 3 + 1 elements to rank b; blocks N + 2 apart */
static void a2av_layout (int *counts, int *displs, int *bdispls)
{
    for (int p = 0 ; p < size ; ++p) {
        counts[p] = (rank + p) % 3 + 1;
        displs[p] = (size - 1 - p) * (N + 2);     /* reversed order, gaps */
        bdispls[p] = displs[p] * (int) sizeof (int);
    }
}

static void check_alltoallv (int mode, int inplace, int w)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, len = size * (N + 2), counts[size], displs[size], bdispls[size];
    int *s = malloc (len * sizeof (int)), *r = malloc (len * sizeof (int));
    MPI_Datatype types[size];
    const void *sbuf = inplace ? MPI_IN_PLACE : s;

    a2av_layout (counts, displs, bdispls);
    for (int p = 0 ; p < size ; ++p) {
        types[p] = MPI_INT;
    }
    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int p = 0 ; p < size ; ++p) {
            for (int i = 0 ; i < N + 2 ; ++i) {
                s[displs[p] + i] = a2a (rank, p, i, rep);
                r[displs[p] + i] = inplace && i < counts[p] ? s[displs[p] + i] : -1;
            }
        }
        if (w) {
            DO(MPI_Alltoallw (sbuf, counts, bdispls, types, r, counts, bdispls, types, comm),
               MPI_Ialltoallw (sbuf, counts, bdispls, types, r, counts, bdispls, types, comm, &req),
               MPI_Alltoallw_init (sbuf, counts, bdispls, types, r, counts, bdispls, types, comm, MPI_INFO_NULL,
                                    &req));
        } else {
            DO(MPI_Alltoallv (sbuf, counts, displs, MPI_INT, r, counts, displs, MPI_INT, comm),
               MPI_Ialltoallv (sbuf, counts, displs, MPI_INT, r, counts, displs, MPI_INT, comm, &req),
               MPI_Alltoallv_init (sbuf, counts, displs, MPI_INT, r, counts, displs, MPI_INT, comm, MPI_INFO_NULL,
                                    &req));
        }
        for (int p = 0 ; p < size ; ++p) {
            for (int i = 0 ; i < N + 2 ; ++i) {
                bad += r[displs[p] + i] != (i < counts[p] ? a2a (p, rank, i, rep) : -1);
            }
        }
    }
    DONE();
    free (s);
    free (r);
    report (w ? "alltoallw" : "alltoallv", mode, inplace, bad);
}

/* Reductions: sums, and matrix products in rank order.  kind: 0 reduce,
 * 1 allreduce, 2 scan, 3 exscan, 4 reduce_scatter_block, 5 reduce_scatter */
static const char *red_name[] = {"reduce", "allreduce", "scan", "exscan", "reduce_scatter_block", "reduce_scatter"};

static int red_call (int kind, int mode, int rep, MPI_Request *reqp, const void *s, void *r, int count,
                     const int *rcounts, MPI_Datatype t, MPI_Op op, int root)
{
    MPI_Request req = *reqp;
    int bad = 0;

    switch (kind) {
    case 0:
        DO(MPI_Reduce (s, r, count, t, op, root, comm), MPI_Ireduce (s, r, count, t, op, root, comm, &req),
           MPI_Reduce_init (s, r, count, t, op, root, comm, MPI_INFO_NULL, &req));
        break;
    case 1:
        DO(MPI_Allreduce (s, r, count, t, op, comm), MPI_Iallreduce (s, r, count, t, op, comm, &req),
           MPI_Allreduce_init (s, r, count, t, op, comm, MPI_INFO_NULL, &req));
        break;
    case 2:
        DO(MPI_Scan (s, r, count, t, op, comm), MPI_Iscan (s, r, count, t, op, comm, &req),
           MPI_Scan_init (s, r, count, t, op, comm, MPI_INFO_NULL, &req));
        break;
    case 3:
        DO(MPI_Exscan (s, r, count, t, op, comm), MPI_Iexscan (s, r, count, t, op, comm, &req),
           MPI_Exscan_init (s, r, count, t, op, comm, MPI_INFO_NULL, &req));
        break;
    case 4:
        DO(MPI_Reduce_scatter_block (s, r, count, t, op, comm),
           MPI_Ireduce_scatter_block (s, r, count, t, op, comm, &req),
           MPI_Reduce_scatter_block_init (s, r, count, t, op, comm, MPI_INFO_NULL, &req));
        break;
    default:
        DO(MPI_Reduce_scatter (s, r, rcounts, t, op, comm), MPI_Ireduce_scatter (s, r, rcounts, t, op, comm, &req),
           MPI_Reduce_scatter_init (s, r, rcounts, t, op, comm, MPI_INFO_NULL, &req));
        break;
    }
    *reqp = req;
    return bad;
}

/* Which ranks' contributions element i of my result combines, and where it
 * sits in the input vector; -1 when I get no result. */
static int red_expect (int kind, int i, const int *rcounts, int root, int *first, int *last, int *index)
{
    int offset = 0;

    *first = 0;
    *last = size;
    *index = i;
    switch (kind) {
    case 0: return rank == root ? 0 : -1;
    case 2: *last = rank + 1; return 0;
    case 3: *last = rank; return rank > 0 ? 0 : -1;
    case 4: *index = rank * N + i; return 0;
    case 5:
        for (int p = 0 ; p < rank ; ++p) {
            offset += rcounts[p];
        }
        *index = offset + i;
        return i < rcounts[rank] ? 0 : -1;
    default: return 0;
    }
}

static void check_reduction (int kind, int mode, int inplace, int matrices)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int total = size * N, bad = 0, root = size / 2, rcounts[size];
    int width = matrices ? 4 : 1;
    int *s = malloc (total * width * sizeof (int)), *r = malloc (total * width * sizeof (int));
    MPI_Datatype t = matrices ? mat_type : MPI_INT;
    MPI_Op op = matrices ? mat_op : MPI_SUM;
    int count = kind >= 4 ? N : total;
    /* reduce takes MPI_IN_PLACE at the root only */
    const void *sbuf = inplace && (0 != kind || rank == root) ? MPI_IN_PLACE : s;

    for (int p = 0 ; p < size ; ++p) {
        rcounts[p] = p % 2 + 1;
    }
    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int i = 0 ; i < total ; ++i) {
            if (matrices) {
                mat_of (rank, i, rep, s + 4 * i);
            } else {
                s[i] = v (rank, i, rep);
            }
        }
        memcpy (r, s, total * width * sizeof (int));
        if (MPI_IN_PLACE != sbuf) {
            for (int i = 0 ; i < total * width ; ++i) {
                r[i] = -7;
            }
        }
        bad += red_call (kind, mode, rep, &req, sbuf, r, count, rcounts, t, op, root);
        for (int i = 0 ; i < count ; ++i) {
            int first, last, index, want[4], *got = r + i * width;

            if (red_expect (kind, i, rcounts, root, &first, &last, &index) < 0) {
                continue;
            }
            if (matrices) {
                mat_expect (first, last, index, rep, want);
            } else {
                want[0] = 0;
                for (int p = first ; p < last ; ++p) {
                    want[0] += v (p, index, rep);
                }
            }
            bad += 0 != memcmp (got, want, width * sizeof (int));
        }
    }
    DONE();
    free (s);
    free (r);
    {
        char what[96];
        snprintf (what, sizeof (what), "%s of %s", red_name[kind], matrices ? "matrix products (non-commutative)" : "sums");
        report (what, mode, inplace, bad);
    }
}

/* Rank 0 starts an Ibarrier and then sends to rank 1, which receives
 * before it enters the Ibarrier: a blocking Ibarrier deadlocks here. */
static void check_overlap (void)
{
    MPI_Request req;
    int token = 42, bad = 0;

    if (size < 2) {
        return;
    }
    if (0 == rank) {
        MPI_Ibarrier (comm, &req);
        MPI_Send (&token, 1, MPI_INT, 1, 5, comm);
        MPI_Wait (&req, MPI_STATUS_IGNORE);
    } else {
        if (1 == rank) {
            token = 0;
            MPI_Recv (&token, 1, MPI_INT, 0, 5, comm, MPI_STATUS_IGNORE);
        }
        MPI_Ibarrier (comm, &req);
        MPI_Wait (&req, MPI_STATUS_IGNORE);
        bad = token != 42;
    }
    report ("Ibarrier overlapped with point-to-point traffic it must not wait for", NONBLOCKING, 0, bad);
}

/* Three nonblocking collectives in flight, completed in reverse order. */
static void check_in_flight (void)
{
    MPI_Request reqs[3];
    int bad = 0, sum = 0, b = rank == 0 ? 77 : 0;
    int *s = malloc (size * sizeof (int)), *r = malloc (size * sizeof (int)), one = rank + 1;

    for (int p = 0 ; p < size ; ++p) {
        s[p] = rank * 100 + p;
    }
    MPI_Iallreduce (&one, &sum, 1, MPI_INT, MPI_SUM, comm, &reqs[0]);
    MPI_Ibcast (&b, 1, MPI_INT, 0, comm, &reqs[1]);
    MPI_Ialltoall (s, 1, MPI_INT, r, 1, MPI_INT, comm, &reqs[2]);
    for (int k = 2 ; k >= 0 ; --k) {
        MPI_Wait (&reqs[k], MPI_STATUS_IGNORE);
    }
    bad += sum != size * (size + 1) / 2;
    bad += b != 77;
    for (int p = 0 ; p < size ; ++p) {
        bad += r[p] != p * 100 + rank;
    }
    free (s);
    free (r);
    report ("three nonblocking collectives in flight, waited for in reverse order", NONBLOCKING, 0, bad);
}

static void run_all (void)
{
    for (int mode = BLOCKING ; mode <= PERSISTENT ; ++mode) {
        check_barrier (mode);
        check_bcast (mode);
        for (int inplace = 0 ; inplace <= 1 ; ++inplace) {
            check_gather (mode, inplace);
            check_gatherv (mode, inplace);
            check_scatter (mode, inplace);
            check_scatterv (mode, inplace);
            check_allgather (mode, inplace);
            check_allgatherv (mode, inplace);
            check_alltoall (mode, inplace);
            check_alltoallv (mode, inplace, 0);
            check_alltoallv (mode, inplace, 1);
            for (int kind = 0 ; kind < 6 ; ++kind) {
                for (int matrices = 0 ; matrices <= 1 ; ++matrices) {
                    check_reduction (kind, mode, inplace, matrices);
                }
            }
        }
    }
    check_overlap ();
    check_in_flight ();
}

/* MPI_Neighbor_allgather on a periodic ring: each rank gets its left and
 * right neighbours' ranks, or, with want_error, a clean error. */
static void check_neighborhood (int want_error)
{
    int dims = size, periods = 1, in = rank, out[2] = {-1, -1}, bad = 0, rc, cls = MPI_SUCCESS;
    MPI_Comm ring;

    MPI_Cart_create (comm, 1, &dims, &periods, 0, &ring);
    MPI_Comm_set_errhandler (ring, MPI_ERRORS_RETURN);
    rc = MPI_Neighbor_allgather (&in, 1, MPI_INT, out, 1, MPI_INT, ring);
    MPI_Error_class (rc, &cls);
    if (want_error) {
        bad = MPI_ERR_UNSUPPORTED_OPERATION != cls;
    } else {
        bad = MPI_SUCCESS != rc || out[0] != (rank + size - 1) % size || out[1] != (rank + 1) % size;
    }
    MPI_Comm_free (&ring);
    report (want_error ? "neighborhood collective: MPI_ERR_UNSUPPORTED_OPERATION, no crash"
                       : "neighborhood collective", BLOCKING, 0, bad);
}

/* The world's halves joined by an intercommunicator and merged with the
 * upper half first: everything again on the merged communicator. */
static void run_on_merged (int world_size)
{
    MPI_Comm local, inter;
    int world_rank, upper;

    MPI_Comm_rank (MPI_COMM_WORLD, &world_rank);
    upper = world_rank >= world_size / 2;
    MPI_Comm_split (MPI_COMM_WORLD, upper, world_rank, &local);
    MPI_Intercomm_create (local, 0, MPI_COMM_WORLD, upper ? 0 : world_size / 2, 11, &inter);
    MPI_Intercomm_merge (inter, !upper, &comm);
    MPI_Comm_rank (comm, &rank);
    MPI_Comm_size (comm, &size);
    if (0 == rank && !quiet) {
        printf ("# again on a communicator merged from an intercommunicator (the upper half first)\n");
    }
    report ("MPI_Intercomm_merge: the upper half comes first", BLOCKING, 0,
            rank != (upper ? world_rank - world_size / 2 : world_size - world_size / 2 + world_rank));
    run_all ();
    MPI_Comm_free (&comm);
    MPI_Comm_free (&inter);
    MPI_Comm_free (&local);
}

int main (int argc, char **argv)
{
    int want_error = 0, world_size;

    for (int i = 1 ; i < argc ; ++i) {
        want_error |= 0 == strcmp (argv[i], "-u");
        quiet |= 0 == strcmp (argv[i], "-q");
    }

    MPI_Init (&argc, &argv);
    MPI_Type_contiguous (4, MPI_INT, &mat_type);
    MPI_Type_commit (&mat_type);
    MPI_Op_create (mat_op_fn, 0, &mat_op);

    /* the world, and a split with reversed rank order */
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    comm = MPI_COMM_WORLD;
    MPI_Comm_size (comm, &size);
    run_all ();
    check_neighborhood (want_error);
    MPI_Comm_split (MPI_COMM_WORLD, 0, -rank, &comm);
    MPI_Comm_rank (comm, &rank);
    MPI_Comm_size (comm, &size);
    if (0 == rank && !quiet) {
        printf ("# again on a communicator with reversed rank order\n");
    }
    run_all ();
    MPI_Comm_free (&comm);
    MPI_Comm_size (MPI_COMM_WORLD, &world_size);
    if (world_size > 1) {
        run_on_merged (world_size);
    }
    if (0 == rank && quiet && 0 == failures) {
        printf ("ok - %d checks of every collective (blocking, nonblocking, persistent; in place; non-commutative "
                "op; overlap) gave the right values at %d ranks\n", passed, world_size);
    }

    MPI_Op_free (&mat_op);
    MPI_Type_free (&mat_type);
    MPI_Finalize ();
    return failures ? 1 : 0;
}
