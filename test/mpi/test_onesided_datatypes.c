/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Proves MPI one-sided accumulates give the right VALUES with derived origin,
 * target and result datatypes (osc/rdma 4.1.4 unpacks MPI_Get_accumulate's
 * fetched values wrongly on its network-atomic path for them).  Every rank
 * accesses every rank, each origin its own slot of the target's window, so
 * every fetched value is known in advance:
 *  - MPI_Get_accumulate (fetched and target values), MPI_Accumulate and,
 *    for one element, MPI_Fetch_and_op; every basic type T with every
 *    predefined op valid for it (MPI_CHAR: MPI_REPLACE and MPI_NO_OP);
 *  - through MPI_Type_contiguous(1, T), MPI_Type_contiguous(3, T),
 *    MPI_Type_vector(3, 1, 2, T) (its gaps must stay untouched) and all
 *    three in one call; counts 1, 5 and 1000 (3000 T in contiguous(3, T):
 *    past osc/rdma's 4 KiB accumulate pieces for every T but char);
 *  - under fence, exclusive and shared locks, and lock_all with flush_local
 *    (fetched values checked, buffers overwritten) then flush; and a 1 MiB
 *    accumulate whose origin buffer is overwritten once flush_local returns;
 *  - in MPI_Win_allocate, MPI_Win_create and dynamic windows.
 * Rank 0 prints "ok - ..." or "not ok - ..." per window flavor,
 * synchronisation and datatype shape; each rank prints its first wrong
 * values to stderr.  The exit code is 1 if any check failed.
 *
 *   test_onesided_datatypes [-q] [-D] [-c]
 *     -q  quick: 4 of the 9 types (for oversubscribed runs)
 *     -D  no dynamic window: across nodes osc/rdma 4.1.4 deadlocks on one
 *     -c  MPI_Win_create windows only, where every access takes the BTL
 *         (MPI_Win_allocate maps a node's memory directly)
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_check.h"

enum { FLAVOR_ALLOCATE, FLAVOR_CREATE, FLAVOR_DYNAMIC };
static const char *flavor_names[] = {"MPI_Win_allocate", "MPI_Win_create", "dynamic window"};
enum { SYNC_FENCE, SYNC_EXCLUSIVE, SYNC_SHARED, SYNC_LOCK_ALL, NSYNCS };
static const char *sync_names[] = {"fence", "exclusive MPI_Win_lock", "shared MPI_Win_lock",
                                   "MPI_Win_lock_all + flush_local + flush"};
enum { GACC, ACC, FOP, NFAMILIES };
static const char *family_names[] = {"MPI_Get_accumulate", "MPI_Accumulate", "MPI_Fetch_and_op"};

/* Every value is a small integer: a double holds it exactly, and garbage compares unequal. */
enum { K_CHAR = 1, K_SIGNED = 2, K_UNSIGNED = 4, K_FLOAT = 8 };
typedef struct {
    MPI_Datatype type;
    const char *name;
    size_t size;
    int kind, quick;
    double (*load) (const void *buf, size_t i);
    void (*store) (void *buf, size_t i, double v);
} basic_t;
#define ACCESSORS(ctype, id) \
    static double load_##id (const void *b, size_t i) { return ((const ctype *) b)[i]; } \
    static void store_##id (void *b, size_t i, double v) { ((ctype *) b)[i] = (ctype) v; }
ACCESSORS(char, char) ACCESSORS(short, short) ACCESSORS(int, int) ACCESSORS(long, long)
ACCESSORS(long long, llong) ACCESSORS(unsigned, uint) ACCESSORS(unsigned long, ulong)
ACCESSORS(float, float) ACCESSORS(double, double)
#define BASIC(ctype, id, mpi, kind, quick) {mpi, #mpi, sizeof (ctype), kind, quick, load_##id, store_##id}
static const basic_t basics[] = {
    BASIC(char, char, MPI_CHAR, K_CHAR, 1), BASIC(short, short, MPI_SHORT, K_SIGNED, 0),
    BASIC(int, int, MPI_INT, K_SIGNED, 1), BASIC(long, long, MPI_LONG, K_SIGNED, 0),
    BASIC(long long, llong, MPI_LONG_LONG, K_SIGNED, 0), BASIC(unsigned, uint, MPI_UNSIGNED, K_UNSIGNED, 0),
    BASIC(unsigned long, ulong, MPI_UNSIGNED_LONG, K_UNSIGNED, 1), BASIC(float, float, MPI_FLOAT, K_FLOAT, 0),
    BASIC(double, double, MPI_DOUBLE, K_FLOAT, 1),
};
#define NBASICS (int) (sizeof (basics) / sizeof (basics[0]))

/* The ops, each with the kinds of type MPI defines it for. */
enum { O_SUM, O_PROD, O_MAX, O_MIN, O_BAND, O_BOR, O_BXOR, O_LAND, O_LOR, O_LXOR, O_REPLACE, O_NO_OP, NOPS };
#define NUMERIC (K_SIGNED | K_UNSIGNED | K_FLOAT)
#define INTEGER (K_SIGNED | K_UNSIGNED)
static const struct { MPI_Op op; const char *name; int kinds; } ops[NOPS] = {
    {MPI_SUM, "MPI_SUM", NUMERIC},   {MPI_PROD, "MPI_PROD", NUMERIC}, {MPI_MAX, "MPI_MAX", NUMERIC},
    {MPI_MIN, "MPI_MIN", NUMERIC},   {MPI_BAND, "MPI_BAND", INTEGER}, {MPI_BOR, "MPI_BOR", INTEGER},
    {MPI_BXOR, "MPI_BXOR", INTEGER}, {MPI_LAND, "MPI_LAND", INTEGER}, {MPI_LOR, "MPI_LOR", INTEGER},
    {MPI_LXOR, "MPI_LXOR", INTEGER}, {MPI_REPLACE, "MPI_REPLACE", NUMERIC | K_CHAR},
    {MPI_NO_OP, "MPI_NO_OP", NUMERIC | K_CHAR},
};
#define NSLOTS (NFAMILIES * NOPS)   /* per peer: slot k is family k / NOPS, op k % NOPS */

/* A derived type in units of T: `blocks' elements `stride' apart, `extent' per datatype element. */
typedef struct { int blocks, stride, extent; } layout_t;
static const layout_t contig1 = {1, 1, 1}, contig3 = {3, 1, 3}, vector3 = {3, 2, 5}, contig1024 = {1024, 1, 1024};
typedef struct { const char *name; const layout_t *origin, *target, *result; } shape_t;
static const shape_t shapes[] = {
    {"MPI_Type_contiguous(1, T)", &contig1, &contig1, &contig1},
    {"MPI_Type_contiguous(3, T)", &contig3, &contig3, &contig3},
    {"MPI_Type_vector(3, 1, 2, T)", &vector3, &vector3, &vector3},
    {"origin contiguous(3, T), target vector(3, 1, 2, T), result contiguous(1, T)", &contig3, &vector3, &contig1},
};
#define NSHAPES (int) (sizeof (shapes) / sizeof (shapes[0]))
static const int counts[] = {1, 5, 1000};
#define GAP 77.0          /* in the gaps of windows and result buffers: must stay */
#define ORIGIN_GAP 55.0   /* in the gaps of origin buffers: shows if read */

static int rank, nprocs, failures, printed, last_problem = -1, quick;

typedef struct {
    MPI_Win win;
    unsigned char *base;
    int flavor;
    MPI_Aint *bases;      /* dynamic windows: every rank's attached address */
} window_t;

/* One batch: the accesses of one type, shape and count, every slot used, to every rank. */
typedef struct {
    const basic_t *t;
    const shape_t *shape;
    int count, n;         /* datatype elements at the target; T elements */
    MPI_Datatype otype, ttype, rtype;
    size_t slot_bytes;
    unsigned char *origin, *result;
} batch_t;

/* With MPI_ERRORS_RETURN whatever is unsupported is reported, not an abort. */
#define RMA(call) rma_failed ((call), #call, b, -1)

/* The first problems of a check, each on one line of stderr (ranks print at once). */
static int problem (const char *fmt, ...)
{
    char line[600];
    va_list ap;

    if (printed++ < 6) {
        va_start (ap, fmt);
        vsnprintf (line, sizeof (line), fmt, ap);
        va_end (ap);
        fprintf (stderr, "rank %d: %s\n", rank, line);
    }
    return 1;
}

static void report (const char *what, int local_errors)
{
    failures += test_report (what, local_errors);
    printed = 0;
    last_problem = -1;
}

static int rma_failed (int rc, const char *call, const batch_t *b, int op)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len;

    return MPI_SUCCESS != rc && MPI_SUCCESS == MPI_Error_string (rc, msg, &len) &&
           problem ("%s %s %s count %d (%s): %s", call, b ? b->t->name : "", op >= 0 ? ops[op].name : "",
                    b ? b->count : 0, b ? b->shape->name : "", msg);
}

/* Window (origin 0) or origin (1) value of element e: -6..12 and -5..11 (zeros for the
 * logical ops, negatives for MIN, MAX and bitwise ops), 0..18 and 0..16 for unsigned
 * types and char (unsigned on some machines); with the ranks and the slot in it, data
 * from the wrong place shows.  Every result fits a char, products a short. */
static double value (const basic_t *t, int origin, int src, int dst, int k, size_t e)
{
    int v = origin ? (int) ((e * 5 + src + dst * 3 + k * 2) % 17) - 5
                   : (int) ((e * 7 + src * 3 + dst * 5 + k) % 19) - 6;

    return (t->kind & (K_UNSIGNED | K_CHAR)) ? v + (origin ? 5 : 6) : v;
}

static double apply (int op, double old, double in)
{
    long long a = (long long) old, b = (long long) in;

    switch (op) {
    case O_SUM: return old + in;
    case O_PROD: return old * in;
    case O_MAX: return old > in ? old : in;
    case O_MIN: return old < in ? old : in;
    case O_BAND: return (double) (a & b);
    case O_BOR: return (double) (a | b);
    case O_BXOR: return (double) (a ^ b);
    case O_LAND: return a && b;
    case O_LOR: return a || b;
    case O_LXOR: return !a != !b;
    case O_REPLACE: return in;
    default: return old;   /* MPI_NO_OP */
    }
}

static size_t position (const layout_t *l, size_t e) { return e / l->blocks * l->extent + e % l->blocks * l->stride; }
static size_t span (const layout_t *l, size_t n) { return n / l->blocks * l->extent; }

static MPI_Datatype make_type (const layout_t *l, MPI_Datatype t)
{
    MPI_Datatype type;

    (void) (1 == l->stride ? MPI_Type_contiguous (l->blocks, t, &type)
                           : MPI_Type_vector (l->blocks, 1, l->stride, t, &type));
    MPI_Type_commit (&type);
    return type;
}

/* Slot k's op, valid for the type and the family.  MPI_Fetch_and_op takes one
 * predefined element: only in the batch of one MPI_Type_contiguous(1, T).  1000
 * vectors make ~2000 pieces per call, each a round trip: there only one op per
 * osc/rdma path, SUM (get-op-put), REPLACE (put) and NO_OP (get). */
static int slot_used (const batch_t *b, int k)
{
    int f = k / NOPS, op = k % NOPS;

    if (!(ops[op].kinds & b->t->kind) || (ACC == f && O_NO_OP == op) ||
        (b->count >= 1000 && b->shape->target->stride > 1 && O_SUM != op && O_REPLACE != op && O_NO_OP != op)) {
        return 0;
    }
    return FOP != f || (b->shape == &shapes[0] && 1 == b->count);
}

/* Each origin has slot k in every target's window, and one per target in its
 * origin and result buffers. */
static size_t slot (const batch_t *b, int peer, int k)
{
    return ((size_t) peer * NSLOTS + k) * b->slot_bytes;
}

/* The area of an access: `gap' everywhere, then the n values (which < 0: none). */
static void fill_area (const batch_t *b, void *area, const layout_t *l, double gap, int which, int src, int dst, int k)
{
    for (size_t i = 0 ; i < span (l, b->n) ; ++i) {
        b->t->store (area, i, gap);
    }
    for (size_t e = 0 ; which >= 0 && e < (size_t) b->n ; ++e) {
        b->t->store (area, position (l, e), value (b->t, which, src, dst, k, e));
    }
}

/* Elements hold the old values (fetched 1) or the target's new ones, gaps GAP;
 * one line for the first wrong value of each type, count and slot. */
static int check_area (const batch_t *b, const void *area, const layout_t *l, int k, int fetched, int src, int dst)
{
    int op = k % NOPS, errors = 0, key = (((int) (b->t - basics) * 1001 + b->count) * 2 + fetched) * NSLOTS + k;
    size_t e = 0;

    for (size_t i = 0 ; i < span (l, b->n) ; ++i) {
        double got = b->t->load (area, i), expected = GAP;

        if (e < (size_t) b->n && position (l, e) == i) {
            expected = value (b->t, 0, src, dst, k, e);
            expected = fetched ? expected : apply (op, expected, value (b->t, 1, src, dst, k, e));
            ++e;
        }
        if (got != expected && !errors++ && key != last_problem) {
            last_problem = key;
            problem ("%s %s %s count %d (%s), origin %d target %d, %s index %zu: got %.17g, expected %.17g",
                     family_names[k / NOPS], b->t->name, ops[op].name, b->count, b->shape->name, src, dst,
                     fetched ? "fetched" : "target window", i, got, expected);
        }
    }
    return errors != 0;
}

static MPI_Aint disp (const window_t *w, int target, size_t offset)
{
    return (FLAVOR_DYNAMIC == w->flavor ? w->bases[target] : 0) + (MPI_Aint) offset;
}

static void window_open (window_t *w, int flavor, size_t bytes)
{
    MPI_Aint mine;

    w->flavor = flavor;
    w->bases = NULL;
    if (FLAVOR_ALLOCATE == flavor) {
        CHECK(MPI_Win_allocate ((MPI_Aint) bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win));
    } else if (FLAVOR_CREATE == flavor) {
        w->base = malloc (bytes);
        CHECK(MPI_Win_create (w->base, (MPI_Aint) bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
    } else {
        w->base = malloc (bytes);
        w->bases = malloc (nprocs * sizeof (MPI_Aint));
        CHECK(MPI_Win_create_dynamic (MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
        CHECK(MPI_Win_attach (w->win, w->base, (MPI_Aint) bytes));
        MPI_Get_address (w->base, &mine);
        MPI_Allgather (&mine, 1, MPI_AINT, w->bases, 1, MPI_AINT, MPI_COMM_WORLD);
    }
    MPI_Win_set_errhandler (w->win, MPI_ERRORS_RETURN);
}

static void window_close (window_t *w)
{
    if (FLAVOR_DYNAMIC == w->flavor) {
        CHECK(MPI_Win_detach (w->win, w->base));
    }
    CHECK(MPI_Win_free (&w->win));
    if (FLAVOR_ALLOCATE != w->flavor) {
        free (w->base);
    }
    free (w->bases);
}

/* My window's slots of every origin: set, or checked.  Loads and stores
 * inside a lock on myself, as passive target needs. */
static int window_slots (window_t *w, const batch_t *b, int check)
{
    int errors = RMA(MPI_Win_lock (check ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, rank, 0, w->win));

    for (int src = 0 ; src < nprocs ; ++src) {
        for (int k = 0 ; k < NSLOTS ; ++k) {
            if (slot_used (b, k) && check) {
                errors += check_area (b, w->base + slot (b, src, k), b->shape->target, k, 0, src, rank);
            } else if (slot_used (b, k)) {
                fill_area (b, w->base + slot (b, src, k), b->shape->target, GAP, 0, src, rank, k);
            }
        }
    }
    return errors + RMA(MPI_Win_unlock (rank, w->win));
}

/* My origin and result slots for target dst: set, or the fetched values checked. */
static int origin_slots (const batch_t *b, int dst, int check)
{
    int errors = 0;

    for (int k = 0 ; k < NSLOTS ; ++k) {
        if (slot_used (b, k) && check && ACC != k / NOPS) {
            errors += check_area (b, b->result + slot (b, dst, k), b->shape->result, k, 1, rank, dst);
        } else if (slot_used (b, k) && !check) {
            fill_area (b, b->origin + slot (b, dst, k), b->shape->origin, ORIGIN_GAP, 1, rank, dst, k);
            fill_area (b, b->result + slot (b, dst, k), b->shape->result, GAP, -1, 0, 0, 0);
        }
    }
    return errors;
}

/* Every access of the batch to one target. */
static int issue (window_t *w, const batch_t *b, int dst)
{
    int errors = 0, on = b->n / b->shape->origin->blocks, rn = b->n / b->shape->result->blocks;

    for (int k = 0 ; k < NSLOTS ; ++k) {
        unsigned char *src = b->origin + slot (b, dst, k), *res = b->result + slot (b, dst, k);
        MPI_Aint d = disp (w, dst, slot (b, rank, k));
        MPI_Op op = ops[k % NOPS].op;
        int rc = MPI_SUCCESS;

        if (!slot_used (b, k)) {
            continue;
        } else if (GACC == k / NOPS) {
            rc = MPI_Get_accumulate (src, on, b->otype, res, rn, b->rtype, dst, d, b->count, b->ttype, op, w->win);
        } else if (ACC == k / NOPS) {
            rc = MPI_Accumulate (src, on, b->otype, dst, d, b->count, b->ttype, op, w->win);
        } else {
            rc = MPI_Fetch_and_op (src, res, b->t->type, dst, d, op, w->win);
        }
        errors += rma_failed (rc, family_names[k / NOPS], b, k % NOPS);
    }
    return errors;
}

/* The batch under one synchronisation, targets in an order rotated by rank
 * so that the ranks do not all queue on one. */
static int epoch (window_t *w, batch_t *b, int sync)
{
    int errors = SYNC_FENCE == sync ? RMA(MPI_Win_fence (MPI_MODE_NOPRECEDE, w->win))
               : SYNC_LOCK_ALL == sync ? RMA(MPI_Win_lock_all (0, w->win)) : 0;
    int locks = SYNC_EXCLUSIVE == sync || SYNC_SHARED == sync;

    for (int i = 1 ; i <= nprocs ; ++i) {
        int dst = (rank + i) % nprocs;

        if (locks) {
            errors += RMA(MPI_Win_lock (SYNC_EXCLUSIVE == sync ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, dst, 0, w->win));
        }
        errors += issue (w, b, dst);
        if (locks) {
            errors += RMA(MPI_Win_unlock (dst, w->win));
        } else if (SYNC_LOCK_ALL == sync) {
            /* after flush_local the fetched values are there and the buffers
             * ours again: overwritten before the flush completes remotely */
            errors += RMA(MPI_Win_flush_local (dst, w->win));
            errors += origin_slots (b, dst, 1);
            memset (b->origin + slot (b, dst, 0), 0x5a, slot (b, 1, 0));
            memset (b->result + slot (b, dst, 0), 0xa5, slot (b, 1, 0));
            errors += RMA(MPI_Win_flush (dst, w->win));
        }
    }
    return errors + (SYNC_FENCE == sync ? RMA(MPI_Win_fence (MPI_MODE_NOSUCCEED, w->win))
                     : SYNC_LOCK_ALL == sync ? RMA(MPI_Win_unlock_all (w->win)) : 0);
}

static int run_batch (window_t *w, int sync, const shape_t *shape, const basic_t *t, int count,
                      unsigned char *origin, unsigned char *result)
{
    batch_t b = {t, shape, count, count * shape->target->blocks};
    int errors;

    b.otype = make_type (shape->origin, t->type);
    b.ttype = make_type (shape->target, t->type);
    b.rtype = make_type (shape->result, t->type);
    b.slot_bytes = (span (&vector3, 3 * count) * t->size + 63) & ~(size_t) 63;   /* the widest access */
    b.origin = origin;
    b.result = result;
    errors = window_slots (w, &b, 0);
    for (int dst = 0 ; dst < nprocs ; ++dst) {
        origin_slots (&b, dst, 0);
    }
    MPI_Barrier (MPI_COMM_WORLD);    /* every window is ready */
    errors += epoch (w, &b, sync);
    MPI_Barrier (MPI_COMM_WORLD);    /* every access to my window is complete */
    for (int dst = 0 ; SYNC_LOCK_ALL != sync && dst < nprocs ; ++dst) {
        errors += origin_slots (&b, dst, 1);
    }
    errors += window_slots (w, &b, 1);
    MPI_Type_free (&b.otype);
    MPI_Type_free (&b.ttype);
    MPI_Type_free (&b.rtype);
    return errors;
}

/* MPI_Win_create, fence, MPI_Type_contiguous(1, T) holds the case that found
 * the bug: MPI_SUM of MPI_DOUBLE, count 5, every rank to every rank. */
static void datatypes (window_t *w, int sync, int s, unsigned char *origin, unsigned char *result)
{
    char what[400];
    int errors = 0;

    for (int t = 0 ; t < NBASICS ; ++t) {
        for (int c = 0 ; c < 3 && (!quick || basics[t].quick) ; ++c) {
            errors += run_batch (w, sync, &shapes[s], &basics[t], counts[c], origin, result);
        }
    }
    snprintf (what, sizeof (what), "%s, %s, %s: MPI_Get_accumulate (fetched and target values), MPI_Accumulate%s "
              "of %s, every valid op, counts 1, 5, 1000, every rank to every rank", flavor_names[w->flavor],
              sync_names[sync], shapes[s].name, 0 == s ? ", MPI_Fetch_and_op" : "",
              quick ? "MPI_CHAR, MPI_INT, MPI_UNSIGNED_LONG, MPI_DOUBLE" : "9 basic types");
    report (what, errors);
}

/* In one lock_all epoch, rounds of a 1 MiB MPI_Accumulate of a derived type
 * to the right neighbour, SUM into one area and REPLACE into another, each
 * followed by MPI_Win_flush_local and at once by overwriting the origin
 * buffer (REPLACE puts straight from it): the target must see only the
 * values of each round. */
static void flush_local_reuse (window_t *w)
{
    enum { N = 131072, ROUNDS = 4 };
    MPI_Datatype block = make_type (&contig1024, MPI_DOUBLE), one = make_type (&contig1, MPI_DOUBLE);
    int right = (rank + 1) % nprocs, left = (rank + nprocs - 1) % nprocs, errors = 0;
    double *src = malloc (N * sizeof (double)), *mine = (double *) w->base;
    const batch_t *b = NULL;
    char what[300];

    errors += RMA(MPI_Win_lock (MPI_LOCK_EXCLUSIVE, rank, 0, w->win));
    for (size_t e = 0 ; e < 2 * N ; ++e) {
        mine[e] = e % 5;
    }
    errors += RMA(MPI_Win_unlock (rank, w->win));
    MPI_Barrier (MPI_COMM_WORLD);
    errors += RMA(MPI_Win_lock_all (0, w->win));
    for (int r = 0 ; r < 2 * ROUNDS ; ++r) {   /* odd rounds: REPLACE */
        for (size_t e = 0 ; e < N ; ++e) {
            src[e] = (double) ((e + rank) % 7 + r / 2 + 10 * (r % 2));
        }
        errors += RMA(MPI_Accumulate (src, N / 1024, block, right, disp (w, right, r % 2 * N * sizeof (double)), N, one,
                                      r % 2 ? MPI_REPLACE : MPI_SUM, w->win));
        errors += RMA(MPI_Win_flush_local (right, w->win));
        memset (src, 0xff, N * sizeof (double));   /* NaN: ours again, its values used show */
    }
    errors += RMA(MPI_Win_flush (right, w->win));
    errors += RMA(MPI_Win_unlock_all (w->win));
    MPI_Barrier (MPI_COMM_WORLD);
    errors += RMA(MPI_Win_lock (MPI_LOCK_SHARED, rank, 0, w->win));
    for (size_t e = 0 ; e < N ; ++e) {
        double sum = e % 5 + ROUNDS * ((e + left) % 7) + ROUNDS * (ROUNDS - 1) / 2;
        double replaced = (e + left) % 7 + ROUNDS + 9;   /* the last odd round's */

        if ((mine[e] != sum || mine[N + e] != replaced) && !errors++) {
            problem ("flush_local: index %zu: SUM area %.17g (expected %.17g), REPLACE area %.17g (expected %.17g)",
                     e, mine[e], sum, mine[N + e], replaced);
        }
    }
    errors += RMA(MPI_Win_unlock (rank, w->win));
    MPI_Type_free (&block);
    MPI_Type_free (&one);
    free (src);
    snprintf (what, sizeof (what), "%s: lock_all, %d rounds of 1 MiB MPI_Accumulate (SUM, REPLACE) of "
              "MPI_Type_contiguous(1024, MPI_DOUBLE), the origin buffer overwritten as soon as MPI_Win_flush_local "
              "returns: target values exact", flavor_names[w->flavor], ROUNDS);
    report (what, errors);
}

int main (int argc, char **argv)
{
    int opt, first_flavor = FLAVOR_ALLOCATE, last_flavor = FLAVOR_DYNAMIC;
    size_t bytes;
    unsigned char *origin, *result;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    while (-1 != (opt = getopt (argc, argv, "qDc"))) {
        switch (opt) {
        case 'q': quick = 1; break;
        case 'D': last_flavor = FLAVOR_CREATE; break;
        case 'c': first_flavor = last_flavor = FLAVOR_CREATE; break;
        default: MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
    /* every slot of every peer for the widest batch (1000 vectors of double);
     * 2 MiB for flush_local_reuse */
    bytes = (size_t) nprocs * NSLOTS * ((span (&vector3, 3000) * sizeof (double) + 63) & ~(size_t) 63);
    bytes = bytes < (2u << 20) ? 2u << 20 : bytes;
    origin = malloc (bytes);
    result = malloc (bytes);
    for (int flavor = first_flavor ; flavor <= last_flavor ; ++flavor) {
        window_t w;

        window_open (&w, flavor, bytes);
        for (int sync = 0 ; sync < NSYNCS ; ++sync) {
            for (int s = 0 ; s < NSHAPES ; ++s) {
                datatypes (&w, sync, s, origin, result);
            }
        }
        flush_local_reuse (&w);
        window_close (&w);
    }
    free (origin);
    free (result);
    MPI_Finalize ();
    return failures ? 1 : 0;
}
