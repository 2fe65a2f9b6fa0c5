/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The checks of test_intercomm_values.c for every collective but the
 * barrier: values that arrive with int, double and a derived datatype (an
 * int followed by a gap, which must stay untouched), at several counts,
 * with the root in either group, and reductions with sums and with a
 * non-commutative operation on a derived datatype (composition of affine
 * maps, which catches any reduction out of rank order).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_intercomm.h"

/* element kinds of data movement: int, double, and a derived type (an int
 * followed by an int-sized gap) */
enum { K_INT, K_DOUBLE, K_GAPPED, NKINDS };
static MPI_Datatype ktype[NKINDS];
static const int counts[] = {0, 1, 7, 1100};
#define NCOUNTS ((int) (sizeof (counts) / sizeof (counts[0])))
#define SENTINEL (-1)
#define MOD 1009

static MPI_Datatype pair_type;         /* (a, b): the affine map x -> a x + b */
static MPI_Op affine_op;

/* ------------------------------------------------------------ values and buffers */

static int val (int g, int r, int i, int rep)
{
    return (g + 1) * 100000 + r * 1000 + (i * 7 + rep * 3) % 997;
}

static size_t unit (int k)
{
    return K_DOUBLE == k ? sizeof (double) : sizeof (int);
}

static int spread (int k)
{
    return K_GAPPED == k ? 2 : 1;
}

/* n elements of kind k, every unit (gaps too) set to SENTINEL */
static void *alloc_elems (int k, int n)
{
    int units = n * spread (k) + 1;
    void *p = malloc (units * unit (k));

    for (int u = 0 ; u < units ; ++u) {
        if (K_DOUBLE == k) {
            ((double *) p)[u] = SENTINEL;
        } else {
            ((int *) p)[u] = SENTINEL;
        }
    }
    return p;
}

static void put (int k, void *base, int e, int value)
{
    if (K_DOUBLE == k) {
        ((double *) base)[e] = value;
    } else {
        ((int *) base)[e * spread (k)] = value;
    }
}

static void *elem (int k, void *base, int e)
{
    return (char *) base + (size_t) e * spread (k) * unit (k);
}

/* how many units (values and gaps) of n elements differ */
static int differ (int k, const void *got, const void *want, int n)
{
    int bad = 0, units = n * spread (k) + 1;

    for (int u = 0 ; u < units ; ++u) {
        bad += K_DOUBLE == k ? ((const double *) got)[u] != ((const double *) want)[u]
                             : ((const int *) got)[u] != ((const int *) want)[u];
    }
    return bad;
}

static int rooted_arg (int rg)
{
    if (grp != rg) {
        return gsize[rg] - 1;                 /* the root: the last rank of the other group */
    }
    return lrank == gsize[rg] - 1 ? MPI_ROOT : MPI_PROC_NULL;
}

/* block layout over n peers: uniform, or (v) uneven counts at reversed
 * displacements with gaps between blocks; returns the elements spanned */
static int layout (int v, int c, int n, int *cnt, int *displs)
{
    for (int p = 0 ; p < n ; ++p) {
        cnt[p] = v ? c + p % 3 : c;
        displs[p] = v ? (n - 1 - p) * (c + 3) : p * c;
    }
    return v ? n * (c + 3) : n * c;
}

static int my_count (int v, int c)
{
    return v ? c + lrank % 3 : c;
}

/* ------------------------------------------------------------ rooted data movement */

static int bcast_one (int mode, int k, int c, int rg)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, root = rooted_arg (rg);
    void *buf = alloc_elems (k, c), *want = alloc_elems (k, c);

    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int i = 0 ; i < c ; ++i) {
            put (k, want, i, MPI_PROC_NULL == root ? SENTINEL : val (rg, gsize[rg] - 1, i, rep));
            put (k, buf, i, MPI_ROOT == root ? val (rg, gsize[rg] - 1, i, rep) : SENTINEL);
        }
        DO(MPI_Bcast (buf, c, ktype[k], root, ic), MPI_Ibcast (buf, c, ktype[k], root, ic, &req),
           MPI_Bcast_init (buf, c, ktype[k], root, ic, MPI_INFO_NULL, &req));
        bad += differ (k, buf, want, c);
    }
    DONE();
    free (buf);
    free (want);
    return bad;
}

/* gather (v = 0) and gatherv: the root gets block p from remote rank p */
static int gather_one (int mode, int k, int c, int rg, int v)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, root = rooted_arg (rg), cnt[rsize], displs[rsize], total = layout (v, c, rsize, cnt, displs);
    int mine = my_count (v, c);
    void *sbuf = alloc_elems (k, mine), *rbuf = alloc_elems (k, total), *want = alloc_elems (k, total);

    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int i = 0 ; i < mine ; ++i) {
            put (k, sbuf, i, val (grp, lrank, i, rep));
        }
        for (int p = 0 ; MPI_ROOT == root && p < rsize ; ++p) {
            for (int i = 0 ; i < cnt[p] ; ++i) {
                put (k, elem (k, want, displs[p]), i, val (1 - grp, p, i, rep));
            }
        }
        if (v) {
            DO(MPI_Gatherv (sbuf, mine, ktype[k], rbuf, cnt, displs, ktype[k], root, ic),
               MPI_Igatherv (sbuf, mine, ktype[k], rbuf, cnt, displs, ktype[k], root, ic, &req),
               MPI_Gatherv_init (sbuf, mine, ktype[k], rbuf, cnt, displs, ktype[k], root, ic, MPI_INFO_NULL, &req));
        } else {
            DO(MPI_Gather (sbuf, c, ktype[k], rbuf, c, ktype[k], root, ic),
               MPI_Igather (sbuf, c, ktype[k], rbuf, c, ktype[k], root, ic, &req),
               MPI_Gather_init (sbuf, c, ktype[k], rbuf, c, ktype[k], root, ic, MPI_INFO_NULL, &req));
        }
        if (grp == rg) {        /* the root's blocks; MPI_PROC_NULL leaves its buffer alone */
            bad += differ (k, rbuf, want, total);
        }
    }
    DONE();
    free (sbuf);
    free (rbuf);
    free (want);
    return bad;
}

/* scatter (v = 0) and scatterv: remote rank p gets the root's block p */
static int scatter_one (int mode, int k, int c, int rg, int v)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, root = rooted_arg (rg), cnt[rsize], displs[rsize], total = layout (v, c, rsize, cnt, displs);
    int mine = my_count (v, c);
    void *sbuf = alloc_elems (k, total), *rbuf = alloc_elems (k, mine), *want = alloc_elems (k, mine);

    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int p = 0 ; MPI_ROOT == root && p < rsize ; ++p) {
            for (int i = 0 ; i < cnt[p] ; ++i) {
                put (k, elem (k, sbuf, displs[p]), i, val (grp, p, i, rep));
            }
        }
        for (int i = 0 ; i < mine ; ++i) {
            put (k, want, i, grp == rg ? SENTINEL : val (rg, lrank, i, rep));
        }
        if (v) {
            DO(MPI_Scatterv (sbuf, cnt, displs, ktype[k], rbuf, mine, ktype[k], root, ic),
               MPI_Iscatterv (sbuf, cnt, displs, ktype[k], rbuf, mine, ktype[k], root, ic, &req),
               MPI_Scatterv_init (sbuf, cnt, displs, ktype[k], rbuf, mine, ktype[k], root, ic, MPI_INFO_NULL,
                                   &req));
        } else {
            DO(MPI_Scatter (sbuf, c, ktype[k], rbuf, c, ktype[k], root, ic),
               MPI_Iscatter (sbuf, c, ktype[k], rbuf, c, ktype[k], root, ic, &req),
               MPI_Scatter_init (sbuf, c, ktype[k], rbuf, c, ktype[k], root, ic, MPI_INFO_NULL, &req));
        }
        bad += differ (k, rbuf, want, mine);
    }
    DONE();
    free (sbuf);
    free (rbuf);
    free (want);
    return bad;
}

/* ------------------------------------------------------------ all-to-all data movement */

/* allgather (v = 0) and allgatherv: block p comes from remote rank p */
static int allgather_one (int mode, int k, int c, int v)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, cnt[rsize], displs[rsize], total = layout (v, c, rsize, cnt, displs), mine = my_count (v, c);
    void *sbuf = alloc_elems (k, mine), *rbuf = alloc_elems (k, total), *want = alloc_elems (k, total);

    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int i = 0 ; i < mine ; ++i) {
            put (k, sbuf, i, val (grp, lrank, i, rep));
        }
        for (int p = 0 ; p < rsize ; ++p) {
            for (int i = 0 ; i < cnt[p] ; ++i) {
                put (k, elem (k, want, displs[p]), i, val (1 - grp, p, i, rep));
            }
        }
        if (v) {
            DO(MPI_Allgatherv (sbuf, mine, ktype[k], rbuf, cnt, displs, ktype[k], ic),
               MPI_Iallgatherv (sbuf, mine, ktype[k], rbuf, cnt, displs, ktype[k], ic, &req),
               MPI_Allgatherv_init (sbuf, mine, ktype[k], rbuf, cnt, displs, ktype[k], ic, MPI_INFO_NULL, &req));
        } else {
            DO(MPI_Allgather (sbuf, c, ktype[k], rbuf, c, ktype[k], ic),
               MPI_Iallgather (sbuf, c, ktype[k], rbuf, c, ktype[k], ic, &req),
               MPI_Allgather_init (sbuf, c, ktype[k], rbuf, c, ktype[k], ic, MPI_INFO_NULL, &req));
        }
        bad += differ (k, rbuf, want, total);
    }
    DONE();
    free (sbuf);
    free (rbuf);
    free (want);
    return bad;
}

/* element i of what rank r of group g sends to remote rank p */
static int a2a (int g, int r, int p, int i, int rep)
{
    return val (g, r, p * 50 + i, rep);
}

/* alltoall (v = 0), alltoallv (v = 1): block p goes to / comes from remote
 * rank p; alltoallv's pair (r, p) exchanges c + (r + p) % 3 elements each way */
static int alltoall_one (int mode, int k, int c, int v)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, cnt[rsize], displs[rsize], total = layout (v, c, rsize, cnt, displs);

    for (int p = 0 ; v && p < rsize ; ++p) {
        cnt[p] = c + (lrank + p) % 3;
    }
    void *sbuf = alloc_elems (k, total), *rbuf = alloc_elems (k, total), *want = alloc_elems (k, total);

    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int p = 0 ; p < rsize ; ++p) {
            for (int i = 0 ; i < cnt[p] ; ++i) {
                put (k, elem (k, sbuf, displs[p]), i, a2a (grp, lrank, p, i, rep));
                put (k, elem (k, want, displs[p]), i, a2a (1 - grp, p, lrank, i, rep));
            }
        }
        if (v) {
            DO(MPI_Alltoallv (sbuf, cnt, displs, ktype[k], rbuf, cnt, displs, ktype[k], ic),
               MPI_Ialltoallv (sbuf, cnt, displs, ktype[k], rbuf, cnt, displs, ktype[k], ic, &req),
               MPI_Alltoallv_init (sbuf, cnt, displs, ktype[k], rbuf, cnt, displs, ktype[k], ic, MPI_INFO_NULL,
                                    &req));
        } else {
            DO(MPI_Alltoall (sbuf, c, ktype[k], rbuf, c, ktype[k], ic),
               MPI_Ialltoall (sbuf, c, ktype[k], rbuf, c, ktype[k], ic, &req),
               MPI_Alltoall_init (sbuf, c, ktype[k], rbuf, c, ktype[k], ic, MPI_INFO_NULL, &req));
        }
        bad += differ (k, rbuf, want, total);
    }
    DONE();
    free (sbuf);
    free (rbuf);
    free (want);
    return bad;
}

/* alltoallw: rank r of group g sends c + (r + 2p + g) % 3 ints to remote rank
 * p, with the plain int type to even p and the gapped type to odd p; the
 * receiver uses the other type (same signature, other layout).  Blocks sit
 * in reverse order with gaps, at byte displacements. */
static int alltoallw_one (int mode, int c)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = 0, scnt[rsize], rcnt[rsize], disp[rsize], stride = 2 * (c + 2) + 1;
    MPI_Datatype st[rsize], rt[rsize];
    int total = rsize * stride;
    int *sbuf = alloc_elems (K_INT, total), *rbuf = alloc_elems (K_INT, total), *want = alloc_elems (K_INT, total);

    for (int p = 0 ; p < rsize ; ++p) {
        scnt[p] = c + (lrank + 2 * p + grp) % 3;
        rcnt[p] = c + (p + 2 * lrank + 1 - grp) % 3;
        disp[p] = (rsize - 1 - p) * stride * (int) sizeof (int);
        st[p] = ktype[p % 2 ? K_GAPPED : K_INT];
        rt[p] = ktype[p % 2 ? K_INT : K_GAPPED];
    }
    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        for (int p = 0 ; p < rsize ; ++p) {
            int kind_s = p % 2 ? K_GAPPED : K_INT, kind_r = p % 2 ? K_INT : K_GAPPED;
            for (int i = 0 ; i < scnt[p] ; ++i) {
                put (kind_s, (char *) sbuf + disp[p], i, a2a (grp, lrank, p, i, rep));
            }
            for (int i = 0 ; i < rcnt[p] ; ++i) {
                put (kind_r, (char *) want + disp[p], i, a2a (1 - grp, p, lrank, i, rep));
            }
        }
        DO(MPI_Alltoallw (sbuf, scnt, disp, st, rbuf, rcnt, disp, rt, ic),
           MPI_Ialltoallw (sbuf, scnt, disp, st, rbuf, rcnt, disp, rt, ic, &req),
           MPI_Alltoallw_init (sbuf, scnt, disp, st, rbuf, rcnt, disp, rt, ic, MPI_INFO_NULL, &req));
        bad += differ (K_INT, rbuf, want, total);
    }
    DONE();
    free (sbuf);
    free (rbuf);
    free (want);
    return bad;
}

/* ------------------------------------------------------------ reductions */

/* int sums, double sums, and affine maps (a derived type of 2 ints)
 * composed in rank order: a non-commutative operation */
enum { R_INT_SUM, R_DOUBLE_SUM, R_AFFINE, NREDS };
static const char *red_type_name[] = {"int sum", "double sum", "affine maps (non-commutative, derived type)"};

/* MPI's rule: inout = in op inout, here in o inout (apply inout first) */
static void affine_fn (void *in, void *inout, int *len, MPI_Datatype *type)
{
    for (int e = 0 ; e < *len ; ++e) {
        int *a = (int *) in + 2 * e, *b = (int *) inout + 2 * e;
        int m = a[0] * b[0] % MOD, t = (a[0] * b[1] + a[1]) % MOD;
        b[0] = m;
        b[1] = t;
    }
}

static void contribution (int g, int r, int i, int rep, int *ab)
{
    ab[0] = 1 + (r * 3 + i + rep + g) % 7;
    ab[1] = val (g, r, i, rep) % MOD;
}

/* reduction over every rank of group g of element i */
static void fold (int red, int g, int i, int rep, int *out)
{
    out[0] = red == R_AFFINE ? 1 : 0;
    out[1] = 0;
    for (int r = gsize[g] - 1 ; r >= 0 ; --r) {
        int ab[2];

        if (red != R_AFFINE) {
            out[0] += val (g, r, i, rep);
            continue;
        }
        contribution (g, r, i, rep, ab);
        affine_fn (ab, out, &(int){1}, NULL);
    }
}

static MPI_Datatype red_type (int red)
{
    return R_INT_SUM == red ? MPI_INT : R_DOUBLE_SUM == red ? MPI_DOUBLE : pair_type;
}

/* a reduction buffer: n elements, units of int (2 per element for affine maps) or double */
typedef struct { int red, n; void *p; } rbuf_t;

static rbuf_t red_alloc (int red, int n)
{
    rbuf_t b = {red, n, alloc_elems (R_DOUBLE_SUM == red ? K_DOUBLE : K_INT, R_AFFINE == red ? 2 * n : n)};
    return b;
}

static void red_set (rbuf_t *b, int e, const int *v)
{
    if (R_DOUBLE_SUM == b->red) {
        ((double *) b->p)[e] = v[0];
    } else if (R_INT_SUM == b->red) {
        ((int *) b->p)[e] = v[0];
    } else {
        memcpy ((int *) b->p + 2 * e, v, 2 * sizeof (int));
    }
}

static void red_fill (rbuf_t *b, int first, int rep)
{
    for (int e = 0 ; e < b->n ; ++e) {
        int v[2] = {val (grp, lrank, first + e, rep), 0};
        if (R_AFFINE == b->red) {
            contribution (grp, lrank, first + e, rep, v);
        }
        red_set (b, e, v);
    }
}

static int red_differ (const rbuf_t *got, const rbuf_t *want)
{
    return differ (R_DOUBLE_SUM == got->red ? K_DOUBLE : K_INT, got->p, want->p,
                   R_AFFINE == got->red ? 2 * got->n : got->n);
}

/* kind 0 reduce, 1 allreduce, 2 reduce_scatter_block, 3 reduce_scatter */
static const char *red_name[] = {"reduce", "allreduce", "reduce_scatter_block", "reduce_scatter"};

/* reduce_scatter's counts over my group: uneven (rank r weighs r + 1),
 * summing to the vector length c * lsize * rsize both groups share */
static int scatter_counts (int c, int *rc)
{
    int total = c * lsize * rsize, w = lsize * (lsize + 1) / 2, at = 0;

    for (int r = 0 ; r < lsize ; ++r) {
        int next = (int) ((long) total * ((r + 1) * (r + 2) / 2) / w);
        rc[r] = next - at;
        at = next;
    }
    return total;
}

static int reduction_one (int kind, int mode, int red, int c, int rg)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Datatype t = red_type (red);
    MPI_Op op = R_AFFINE == red ? affine_op : MPI_SUM;
    int bad = 0, root = rooted_arg (rg), rc[lsize], total = scatter_counts (c, rc), slen = c, rlen = c, first = 0;

    if (2 == kind) {            /* my rank's block of c * rsize elements */
        slen = total;
        rlen = c * rsize;
        first = lrank * rlen;
    } else if (3 == kind) {
        slen = total;
        rlen = rc[lrank];
        for (int r = 0 ; r < lrank ; ++r) {
            first += rc[r];
        }
    }
    rbuf_t s = red_alloc (red, slen), r = red_alloc (red, rlen), want = red_alloc (red, rlen);
    for (int rep = 0 ; rep < REPS(mode) ; ++rep) {
        red_fill (&s, 0, rep);
        for (int e = 0 ; e < rlen && (0 != kind || MPI_ROOT == root) ; ++e) {
            int v[2];
            fold (red, 1 - grp, first + e, rep, v);
            red_set (&want, e, v);
        }
        switch (kind) {
        case 0:
            DO(MPI_Reduce (s.p, r.p, c, t, op, root, ic), MPI_Ireduce (s.p, r.p, c, t, op, root, ic, &req),
               MPI_Reduce_init (s.p, r.p, c, t, op, root, ic, MPI_INFO_NULL, &req));
            break;
        case 1:
            DO(MPI_Allreduce (s.p, r.p, c, t, op, ic), MPI_Iallreduce (s.p, r.p, c, t, op, ic, &req),
               MPI_Allreduce_init (s.p, r.p, c, t, op, ic, MPI_INFO_NULL, &req));
            break;
        case 2:
            DO(MPI_Reduce_scatter_block (s.p, r.p, rlen, t, op, ic),
               MPI_Ireduce_scatter_block (s.p, r.p, rlen, t, op, ic, &req),
               MPI_Reduce_scatter_block_init (s.p, r.p, rlen, t, op, ic, MPI_INFO_NULL, &req));
            break;
        default:
            DO(MPI_Reduce_scatter (s.p, r.p, rc, t, op, ic), MPI_Ireduce_scatter (s.p, r.p, rc, t, op, ic, &req),
               MPI_Reduce_scatter_init (s.p, r.p, rc, t, op, ic, MPI_INFO_NULL, &req));
            break;
        }
        if (0 != kind || grp == rg) {   /* a reduce's senders have no result to check */
            bad += red_differ (&r, &want);
        }
    }
    DONE();
    free (s.p);
    free (r.p);
    free (want.p);
    return bad;
}

/* ------------------------------------------------------------ driving */

void check_data_movement (int mode)
{
    static const char *names[] = {"bcast (MPI_ROOT, MPI_PROC_NULL, receivers)", "gather", "gatherv (gaps untouched)",
                                  "scatter", "scatterv", "allgather", "allgatherv", "alltoall",
                                  "alltoallv", "alltoallw (int and derived types mixed)"};

    for (int which = 0 ; which < 10 ; ++which) {
        int bad = 0;

        for (int ci = 0 ; ci < NCOUNTS ; ++ci) {
            int c = counts[ci];
            for (int k = 0 ; k < NKINDS && 9 != which ; ++k) {
                for (int rg = 0 ; rg < 2 ; ++rg) {
                    switch (which) {
                    case 0: bad += bcast_one (mode, k, c, rg); break;
                    case 1: case 2: bad += gather_one (mode, k, c, rg, which - 1); break;
                    case 3: case 4: bad += scatter_one (mode, k, c, rg, which - 3); break;
                    case 5: case 6: bad += 0 == rg ? allgather_one (mode, k, c, which - 5) : 0; break;
                    default: bad += 0 == rg ? alltoall_one (mode, k, c, which - 7) : 0; break;
                    }
                }
            }
            bad += 9 == which ? alltoallw_one (mode, c) : 0;
        }
        report (names[which], mode, bad);
    }
}

void check_reductions (int mode)
{
    for (int kind = 0 ; kind < 4 ; ++kind) {
        for (int red = 0 ; red < NREDS ; ++red) {
            char what[128];
            int bad = 0;

            for (int ci = 0 ; ci < NCOUNTS ; ++ci) {
                for (int rg = 0 ; rg < (0 == kind ? 2 : 1) ; ++rg) {
                    bad += reduction_one (kind, mode, red, counts[ci], rg);
                }
            }
            snprintf (what, sizeof (what), "%s of %s", red_name[kind], red_type_name[red]);
            report (what, mode, bad);
        }
    }
}

void collectives_setup (void)
{
    ktype[K_INT] = MPI_INT;
    ktype[K_DOUBLE] = MPI_DOUBLE;
    MPI_Type_create_resized (MPI_INT, 0, 2 * sizeof (int), &ktype[K_GAPPED]);
    MPI_Type_commit (&ktype[K_GAPPED]);
    MPI_Type_contiguous (2, MPI_INT, &pair_type);
    MPI_Type_commit (&pair_type);
    MPI_Op_create (affine_fn, 0, &affine_op);
}

void collectives_teardown (void)
{
    MPI_Op_free (&affine_op);
    MPI_Type_free (&pair_type);
    MPI_Type_free (&ktype[K_GAPPED]);
}
