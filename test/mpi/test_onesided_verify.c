/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Proves MPI one-sided communication delivers the right values, on any
 * number of ranks (>= 2), for each window flavor (MPI_Win_allocate,
 * MPI_Win_create, dynamic with MPI_Win_attach):
 *  - MPI_Put and MPI_Get of 1 B to 4 MiB (across the inject size, the
 *    eager limit and the striping sizes) under fence, lock/unlock, lock_all
 *    with flush, and post/start/complete/wait, every byte checked;
 *  - a put flushed and then announced by a message the target receives
 *    (which may travel by another BTL): the target must see the data;
 *    the same with an MPI_Fetch_and_op to the target between the put and
 *    the flush, whose answer alone then completes the flush in rwv;
 *  - MPI_Accumulate from every rank into one place: SUM (int64, int32,
 *    double), BXOR, BOR, BAND, LAND/LOR/LXOR, MIN/MAX on signed and
 *    unsigned values across the sign bit, REPLACE, PROD (no network
 *    atomic: osc falls back) and a derived datatype;
 *  - MPI_Get_accumulate, MPI_Fetch_and_op and MPI_Compare_and_swap: a
 *    counter every rank increments N times (every fetched value unique, the
 *    total exact), 32- and 64-bit, and a compare-and-swap mutex guarding a
 *    get-increment-put counter (exact only if the mutex excludes);
 *  - a user-defined MPI_Op gets an error (MPI_ERRORS_RETURN), not a result.
 * Each check prints "ok - ..." or "not ok - ..." from rank 0; the exit code
 * is 1 if any failed.
 *
 *   test_onesided_verify [-n COUNTER_ITERATIONS] [-m MAX_SIZE] [-D | -O]
 *     -D  no dynamic window: across nodes Open MPI 4.1.0-4.1.4's osc/rdma
 *         deadlocks in its first access to one (it takes the peer's region
 *         lock exclusively, then waits for it shared; fixed in 4.1.5)
 *     -O  only the dynamic window
 *   test_onesided_verify -k   rank 1 dies in the middle of a passive epoch
 *   test_onesided_verify -C   only the atomics (counters and mutex) on an
 *       MPI_Win_create window; rank 0 prints "# progress" a quarter into
 *       the first counter, for a test to break something then
 */
#include <inttypes.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_check.h"

enum { FLAVOR_ALLOCATE, FLAVOR_CREATE, FLAVOR_DYNAMIC };
static const char *flavor_names[] = {"MPI_Win_allocate", "MPI_Win_create", "dynamic window"};

static int rank, nprocs, failures;
static size_t max_size = 4 << 20;
static int counter_iterations = 200;

typedef struct {
    MPI_Win win;
    unsigned char *base;
    size_t bytes;
    int flavor;
    MPI_Aint *bases;      /* dynamic windows: every rank's attached address */
} window_t;

static void report (const char *what, int local_errors)
{
    failures += test_report (what, local_errors);
}

static unsigned char pattern (int origin, size_t size, size_t i)
{
    return (unsigned char) (origin * 31 + size * 7 + i * 13 + (i >> 8));
}

static void fill (unsigned char *buf, int origin, size_t size)
{
    for (size_t i = 0 ; i < size ; ++i) {
        buf[i] = pattern (origin, size, i);
    }
}

static int verify (const unsigned char *buf, int origin, size_t size, const char *what)
{
    for (size_t i = 0 ; i < size ; ++i) {
        if (buf[i] != pattern (origin, size, i)) {
            fprintf (stderr, "rank %d: %s of %zu bytes: byte %zu is %u, expected %u\n", rank, what, size, i,
                     buf[i], pattern (origin, size, i));
            return 1;
        }
    }
    return 0;
}

static MPI_Aint disp (const window_t *w, int target, MPI_Aint offset)
{
    return FLAVOR_DYNAMIC == w->flavor ? w->bases[target] + offset : offset;
}

static void window_open (window_t *w, int flavor, size_t bytes)
{
    MPI_Aint mine;

    w->flavor = flavor;
    w->bytes = bytes;
    w->bases = NULL;
    switch (flavor) {
    case FLAVOR_ALLOCATE:
        CHECK(MPI_Win_allocate ((MPI_Aint) bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win));
        break;
    case FLAVOR_CREATE:
        w->base = malloc (bytes);
        CHECK(MPI_Win_create (w->base, (MPI_Aint) bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
        break;
    default:
        w->base = malloc (bytes);
        w->bases = malloc (nprocs * sizeof (MPI_Aint));
        CHECK(MPI_Win_create_dynamic (MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
        CHECK(MPI_Win_attach (w->win, w->base, (MPI_Aint) bytes));
        MPI_Get_address (w->base, &mine);
        MPI_Allgather (&mine, 1, MPI_AINT, w->bases, 1, MPI_AINT, MPI_COMM_WORLD);
        break;
    }
    memset (w->base, 0, bytes);
    MPI_Barrier (MPI_COMM_WORLD);
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

static int right (void) { return (rank + 1) % nprocs; }
static int left (void) { return (rank + nprocs - 1) % nprocs; }

/* Sizes from 1 B to max_size: small, inject-sized, eager-sized, striped. */
static size_t next_size (size_t size)
{
    return size < 8 ? size + 7 : (size < 65536 ? size * 4 + 1 : size * 2);
}

/* ------------------------------------------------------------ put and get */

static void put_get_fence (window_t *w, unsigned char *src, unsigned char *dst)
{
    char what[160];
    int errors = 0;

    for (size_t size = 1 ; size <= max_size ; size = next_size (size)) {
        fill (src, rank, size);
        CHECK(MPI_Win_fence (0, w->win));
        CHECK(MPI_Put (src, (int) size, MPI_BYTE, right (), disp (w, right (), 0), (int) size, MPI_BYTE, w->win));
        CHECK(MPI_Win_fence (0, w->win));
        errors += verify (w->base, left (), size, "fence put");
        memset (dst, 0, size);
        CHECK(MPI_Get (dst, (int) size, MPI_BYTE, right (), disp (w, right (), 0), (int) size, MPI_BYTE, w->win));
        CHECK(MPI_Win_fence (0, w->win));
        errors += verify (dst, rank, size, "fence get");
    }
    snprintf (what, sizeof (what), "%s: MPI_Put and MPI_Get of 1 B to %zu B under MPI_Win_fence",
              flavor_names[w->flavor], max_size);
    report (what, errors);
}

static void put_get_lock (window_t *w, unsigned char *src, unsigned char *dst)
{
    char what[160];
    int errors = 0;

    for (size_t size = 1 ; size <= max_size ; size = next_size (size)) {
        fill (src, rank + 100, size);
        CHECK(MPI_Win_lock (MPI_LOCK_EXCLUSIVE, right (), 0, w->win));
        CHECK(MPI_Put (src, (int) size, MPI_BYTE, right (), disp (w, right (), 0), (int) size, MPI_BYTE, w->win));
        CHECK(MPI_Win_unlock (right (), w->win));
        MPI_Barrier (MPI_COMM_WORLD);
        CHECK(MPI_Win_lock (MPI_LOCK_SHARED, rank, 0, w->win));
        errors += verify (w->base, left () + 100, size, "exclusive-lock put");
        CHECK(MPI_Win_unlock (rank, w->win));
        memset (dst, 0, size);
        CHECK(MPI_Win_lock (MPI_LOCK_SHARED, right (), 0, w->win));
        CHECK(MPI_Get (dst, (int) size, MPI_BYTE, right (), disp (w, right (), 0), (int) size, MPI_BYTE, w->win));
        CHECK(MPI_Win_unlock (right (), w->win));
        errors += verify (dst, rank + 100, size, "shared-lock get");
        MPI_Barrier (MPI_COMM_WORLD);
    }
    snprintf (what, sizeof (what), "%s: MPI_Put and MPI_Get of 1 B to %zu B under MPI_Win_lock/unlock",
              flavor_names[w->flavor], max_size);
    report (what, errors);
}

/* The window's last 8 bytes, beyond the largest transfer: a counter. */
static MPI_Aint counter_offset (const window_t *w)
{
    return (MPI_Aint) (w->bytes - sizeof (int64_t));
}

/* Put, then an atomic to the same target, then flush and tell the target:
 * it must find the data in its memory.  Returns the errors. */
static int put_atomic_flush (window_t *w, unsigned char *src, size_t size)
{
    int64_t one = 1, old;
    int token = 0;

    fill (src, rank + 500, size);
    CHECK(MPI_Put (src, (int) size, MPI_BYTE, right (), disp (w, right (), 0), (int) size, MPI_BYTE, w->win));
    CHECK(MPI_Fetch_and_op (&one, &old, MPI_INT64_T, right (), disp (w, right (), counter_offset (w)), MPI_SUM,
                            w->win));
    CHECK(MPI_Win_flush (right (), w->win));
    MPI_Sendrecv (&token, 1, MPI_INT, right (), 8, &token, 1, MPI_INT, left (), 8, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
    CHECK(MPI_Win_sync (w->win));
    return verify (w->base, left () + 500, size, "put, atomic, flush: seen by the target after a message");
}

/* In one lock_all epoch: put, flush, get back the same bytes (the flush
 * made the put complete at the target); then put, flush and tell the
 * target with a message: it must find the data in its memory; the same
 * with an atomic between the put and the flush, each size adding 1 to the
 * target's counter. */
static void put_get_flush (window_t *w, unsigned char *src, unsigned char *dst)
{
    char what[240];
    int errors = 0, token = 0;
    int64_t sizes = 0;

    CHECK(MPI_Win_lock_all (0, w->win));
    for (size_t size = 1 ; size <= max_size ; size = next_size (size)) {
        fill (src, rank + 200, size);
        CHECK(MPI_Put (src, (int) size, MPI_BYTE, right (), disp (w, right (), 0), (int) size, MPI_BYTE, w->win));
        CHECK(MPI_Win_flush (right (), w->win));
        memset (dst, 0, size);
        CHECK(MPI_Get (dst, (int) size, MPI_BYTE, right (), disp (w, right (), 0), (int) size, MPI_BYTE, w->win));
        CHECK(MPI_Win_flush_local (right (), w->win));
        errors += verify (dst, rank + 200, size, "get after flushed put");
        MPI_Barrier (MPI_COMM_WORLD); /* everyone is done reading before the next put */

        fill (src, rank + 300, size);
        CHECK(MPI_Put (src, (int) size, MPI_BYTE, right (), disp (w, right (), 0), (int) size, MPI_BYTE, w->win));
        CHECK(MPI_Win_flush (right (), w->win));
        MPI_Sendrecv (&token, 1, MPI_INT, right (), 7, &token, 1, MPI_INT, left (), 7, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
        CHECK(MPI_Win_sync (w->win));
        errors += verify (w->base, left () + 300, size, "flushed put seen by the target after a message");
        MPI_Barrier (MPI_COMM_WORLD);

        errors += put_atomic_flush (w, src, size);
        ++sizes;
        MPI_Barrier (MPI_COMM_WORLD);
    }
    CHECK(MPI_Win_unlock_all (w->win));
    if (*(int64_t *) (w->base + counter_offset (w)) != sizes) {
        fprintf (stderr, "rank %d: the counter after put, atomic, flush is %" PRId64 ", expected %" PRId64 "\n", rank,
                 *(int64_t *) (w->base + counter_offset (w)), sizes);
        errors++;
    }
    snprintf (what, sizeof (what), "%s: lock_all: a flushed put is complete at the target (read back by "
              "MPI_Get, and by the target after a message, also with an atomic before the flush), 1 B to %zu B",
              flavor_names[w->flavor], max_size);
    report (what, errors);
}

static void put_get_pscw (window_t *w, unsigned char *src, unsigned char *dst)
{
    MPI_Group world, to, from;
    int r = right (), l = left ();
    char what[160];
    int errors = 0;

    MPI_Comm_group (MPI_COMM_WORLD, &world);
    MPI_Group_incl (world, 1, &r, &to);
    MPI_Group_incl (world, 1, &l, &from);
    for (size_t size = 1 ; size <= max_size ; size = next_size (size)) {
        fill (src, rank + 400, size);
        CHECK(MPI_Win_post (from, 0, w->win));
        CHECK(MPI_Win_start (to, 0, w->win));
        CHECK(MPI_Put (src, (int) size, MPI_BYTE, r, disp (w, r, 0), (int) size, MPI_BYTE, w->win));
        CHECK(MPI_Win_complete (w->win));
        CHECK(MPI_Win_wait (w->win));
        errors += verify (w->base, l + 400, size, "PSCW put");
        memset (dst, 0, size);
        CHECK(MPI_Win_post (from, 0, w->win));
        CHECK(MPI_Win_start (to, 0, w->win));
        CHECK(MPI_Get (dst, (int) size, MPI_BYTE, r, disp (w, r, 0), (int) size, MPI_BYTE, w->win));
        CHECK(MPI_Win_complete (w->win));
        CHECK(MPI_Win_wait (w->win));
        errors += verify (dst, rank + 400, size, "PSCW get");
    }
    MPI_Group_free (&to);
    MPI_Group_free (&from);
    MPI_Group_free (&world);
    snprintf (what, sizeof (what), "%s: MPI_Put and MPI_Get of 1 B to %zu B under post/start/complete/wait",
              flavor_names[w->flavor], max_size);
    report (what, errors);
}

/* ------------------------------------------------------------ accumulate */

/* Every rank accumulates `mine' into slot `offset' of rank 0's window. */
static void accumulate_into_0 (window_t *w, MPI_Aint offset, const void *mine, MPI_Datatype type, MPI_Op op)
{
    CHECK(MPI_Win_lock (MPI_LOCK_SHARED, 0, 0, w->win));
    CHECK(MPI_Accumulate (mine, 1, type, 0, disp (w, 0, offset), 1, type, op, w->win));
    CHECK(MPI_Win_unlock (0, w->win));
}

/* Rank 0's slot, read locally after everyone's accumulate. */
static void read_slot (window_t *w, MPI_Aint offset, void *value, size_t size)
{
    MPI_Barrier (MPI_COMM_WORLD);
    CHECK(MPI_Win_lock (MPI_LOCK_EXCLUSIVE, 0, 0, w->win));
    if (0 == rank) {
        memcpy (value, w->base + offset, size);
    }
    CHECK(MPI_Win_unlock (0, w->win));
    MPI_Bcast (value, (int) size, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void set_slot (window_t *w, MPI_Aint offset, const void *value, size_t size)
{
    CHECK(MPI_Win_lock (MPI_LOCK_EXCLUSIVE, 0, 0, w->win));
    if (0 == rank) {
        memcpy (w->base + offset, value, size);
    }
    CHECK(MPI_Win_unlock (0, w->win));
    MPI_Barrier (MPI_COMM_WORLD);
}

#define ACC_CASE(ctype, mpitype, op, initial, mine_expr, expected_expr, label) do { \
    ctype init_ = (initial), mine_ = (mine_expr), got_, expected_ = (initial);    \
    set_slot (w, 0, &init_, sizeof (init_));                                        \
    accumulate_into_0 (w, 0, &mine_, mpitype, op);                                  \
    read_slot (w, 0, &got_, sizeof (got_));                                         \
    for (int r_ = 0 ; r_ < nprocs ; ++r_) { expected_ = (expected_expr); }           \
    if (got_ != expected_) {                                                        \
        if (0 == rank) fprintf (stderr, "%s: got %lld expected %lld\n", label,     \
                                (long long) got_, (long long) expected_);           \
        errors++;                                                                   \
    }                                                                               \
} while (0)

static void accumulate_ops (window_t *w)
{
    char what[300];
    int errors = 0;

    /* r_ is each rank in turn; rank's own value uses `rank' */
    ACC_CASE(int64_t, MPI_INT64_T, MPI_SUM, 5, rank + 1, expected_ + r_ + 1, "SUM int64");
    ACC_CASE(int32_t, MPI_INT32_T, MPI_SUM, -7, 3 * rank - 100, expected_ + 3 * r_ - 100, "SUM int32");
    ACC_CASE(double, MPI_DOUBLE, MPI_SUM, 0.5, rank + 0.25, expected_ + r_ + 0.25, "SUM double");
    ACC_CASE(float, MPI_FLOAT, MPI_SUM, 1.0f, rank * 2.0f, expected_ + r_ * 2.0f, "SUM float");
    ACC_CASE(uint64_t, MPI_UINT64_T, MPI_BXOR, 0xf0f0, 1ull << (rank + 3), expected_ ^ (1ull << (r_ + 3)), "BXOR");
    ACC_CASE(uint64_t, MPI_UINT64_T, MPI_BOR, 1ull << 63, 1ull << (rank + 1), expected_ | (1ull << (r_ + 1)), "BOR");
    ACC_CASE(uint32_t, MPI_UINT32_T, MPI_BAND, 0xffffffffu, ~(1u << rank), expected_ & ~(1u << r_), "BAND uint32");
    ACC_CASE(int64_t, MPI_INT64_T, MPI_LAND, 1, rank != 1, expected_ && (r_ != 1), "LAND");
    ACC_CASE(int64_t, MPI_INT64_T, MPI_LOR, 0, rank == nprocs - 1, expected_ || (r_ == nprocs - 1), "LOR");
    ACC_CASE(int32_t, MPI_INT32_T, MPI_LXOR, 0, 1, !expected_ != !1, "LXOR int32");
    ACC_CASE(int64_t, MPI_INT64_T, MPI_MIN, 0, -(int64_t) rank - 5, (-(int64_t) r_ - 5 < expected_ ? -(int64_t) r_ - 5 : expected_), "MIN int64");
    ACC_CASE(int32_t, MPI_INT32_T, MPI_MAX, -1000, rank - 3, (r_ - 3 > expected_ ? r_ - 3 : expected_), "MAX int32");
    /* across the sign bit: wrong if an unsigned MIN/MAX were done as signed */
    ACC_CASE(uint64_t, MPI_UINT64_T, MPI_MIN, UINT64_MAX, (1ull << 63) + rank, ((1ull << 63) + r_ < expected_ ? (1ull << 63) + r_ : expected_), "MIN uint64");
    ACC_CASE(uint64_t, MPI_UINT64_T, MPI_MAX, 1, (1ull << 63) + rank, ((1ull << 63) + r_ > expected_ ? (1ull << 63) + r_ : expected_), "MAX uint64");
    ACC_CASE(uint32_t, MPI_UINT32_T, MPI_MAX, 5, 0x80000000u + rank, (0x80000000u + r_ > expected_ ? 0x80000000u + r_ : expected_), "MAX uint32");
    ACC_CASE(double, MPI_DOUBLE, MPI_MIN, 1e9, rank - 0.5, (r_ - 0.5 < expected_ ? r_ - 0.5 : expected_), "MIN double");
    ACC_CASE(int64_t, MPI_INT64_T, MPI_PROD, 3, rank + 2, expected_ * (r_ + 2), "PROD int64 (no network atomic)");
    if (nprocs == 1) {
        ACC_CASE(int64_t, MPI_INT64_T, MPI_REPLACE, 9, 42, 42, "REPLACE");
    } else {
        /* concurrent REPLACE: the result is one of the values put */
        int64_t init = -1, mine = 1000 + rank, got;

        set_slot (w, 0, &init, sizeof (init));
        accumulate_into_0 (w, 0, &mine, MPI_INT64_T, MPI_REPLACE);
        read_slot (w, 0, &got, sizeof (got));
        errors += got < 1000 || got >= 1000 + nprocs;
    }
    snprintf (what, sizeof (what), "%s: MPI_Accumulate from every rank: SUM int64/int32/double/float, "
              "BXOR, BOR, BAND, LAND, LOR, LXOR, MIN/MAX signed and unsigned across the sign bit, "
              "MIN double, PROD, REPLACE", flavor_names[w->flavor]);
    report (what, errors);
}

/* Three ints as one element: no network atomic fits it. */
static void accumulate_derived (window_t *w)
{
    MPI_Datatype triple;
    int32_t init[3] = {1, 2, 3}, mine[3] = {rank, 2 * rank, -rank}, got[3];
    int64_t sum = (int64_t) nprocs * (nprocs - 1) / 2;
    char what[160];
    int errors = 0;

    MPI_Type_contiguous (3, MPI_INT32_T, &triple);
    MPI_Type_commit (&triple);
    set_slot (w, 64, init, sizeof (init));
    accumulate_into_0 (w, 64, mine, triple, MPI_SUM);
    read_slot (w, 64, got, sizeof (got));
    errors = got[0] != 1 + sum || got[1] != 2 + 2 * sum || got[2] != 3 - sum;
    MPI_Type_free (&triple);
    snprintf (what, sizeof (what), "%s: MPI_Accumulate SUM of a derived datatype (3 x int32)",
              flavor_names[w->flavor]);
    report (what, errors);
}

static void user_op_fn (void *in, void *inout, int *len, MPI_Datatype *type)
{
    for (int i = 0 ; i < *len ; ++i) {
        ((int *) inout)[i] += ((int *) in)[i];
    }
}

/* MPI allows only predefined operations in accumulate: an error, never a value. */
static void accumulate_user_op (window_t *w)
{
    MPI_Op op;
    int one = 1, rc, errors;
    char what[160];

    MPI_Op_create (user_op_fn, 1, &op);
    MPI_Win_set_errhandler (w->win, MPI_ERRORS_RETURN);
    CHECK(MPI_Win_lock (MPI_LOCK_SHARED, 0, 0, w->win));
    rc = MPI_Accumulate (&one, 1, MPI_INT, 0, disp (w, 0, 128), 1, MPI_INT, op, w->win);
    CHECK(MPI_Win_unlock (0, w->win));
    MPI_Win_set_errhandler (w->win, MPI_ERRORS_ARE_FATAL);
    MPI_Op_free (&op);
    errors = MPI_SUCCESS == rc;
    snprintf (what, sizeof (what), "%s: MPI_Accumulate with a user-defined MPI_Op returns an error",
              flavor_names[w->flavor]);
    report (what, errors);
}

/* ------------------------------------------------------------ counters */

/* Every rank adds 1 to rank 0's counter `iterations' times with
 * MPI_Fetch_and_op (or MPI_Get_accumulate): the values each rank fetched
 * rise, all ranks' values together are 0 .. total-1 (their sum says so
 * with the count), and the counter ends at the total. */
static int contended_counter (window_t *w, MPI_Aint offset, MPI_Datatype type, int use_get_accumulate)
{
    int64_t one64 = 1, got64 = 0, prev = -1, sum = 0, total_sum = 0, final = 0;
    int32_t one32 = 1, got32 = 0;
    int is64 = MPI_INT64_T == type, errors = 0;
    int64_t total = (int64_t) nprocs * counter_iterations;

    set_slot (w, offset, &got64, sizeof (got64));
    CHECK(MPI_Win_lock_all (0, w->win));
    for (int i = 0 ; i < counter_iterations ; ++i) {
        void *one = is64 ? (void *) &one64 : (void *) &one32, *got = is64 ? (void *) &got64 : (void *) &got32;
        int64_t value;

        if (use_get_accumulate) {
            CHECK(MPI_Get_accumulate (one, 1, type, got, 1, type, 0, disp (w, 0, offset), 1, type, MPI_SUM, w->win));
        } else {
            CHECK(MPI_Fetch_and_op (one, got, type, 0, disp (w, 0, offset), MPI_SUM, w->win));
        }
        CHECK(MPI_Win_flush (0, w->win));
        if (0 == rank && i == counter_iterations / 4) {
            printf ("# progress\n");
            fflush (stdout);
        }
        value = is64 ? got64 : got32;
        errors += value <= prev || value < 0 || value >= total;
        prev = value;
        sum += value;
    }
    CHECK(MPI_Win_unlock_all (w->win));
    MPI_Allreduce (&sum, &total_sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    read_slot (w, offset, &final, is64 ? 8 : 4);
    if (!is64) {
        int32_t f32;
        memcpy (&f32, &final, 4);
        final = f32;
    }
    if (final != total || total_sum != total * (total - 1) / 2) {
        if (0 == rank) {
            fprintf (stderr, "counter: final %lld (expected %lld), sum of fetched %lld (expected %lld)\n",
                     (long long) final, (long long) total, (long long) total_sum,
                     (long long) (total * (total - 1) / 2));
        }
        errors++;
    }
    return errors;
}

/* A mutex on rank 0 taken with MPI_Compare_and_swap (0 -> rank+1) guards a
 * plain counter read with MPI_Get and written with MPI_Put: the count is
 * exact only if no two ranks ever held the mutex together. */
static int cas_mutex_counter (window_t *w, MPI_Aint lock_offset, MPI_Aint count_offset, int iterations)
{
    int64_t zero = 0, me = rank + 1, old, count = 0, final = 0;
    int errors = 0;

    set_slot (w, lock_offset, &zero, sizeof (zero));
    set_slot (w, count_offset, &zero, sizeof (zero));
    CHECK(MPI_Win_lock_all (0, w->win));
    for (int i = 0 ; i < iterations ; ++i) {
        do {
            CHECK(MPI_Compare_and_swap (&me, &zero, &old, MPI_INT64_T, 0, disp (w, 0, lock_offset), w->win));
            CHECK(MPI_Win_flush (0, w->win));
        } while (0 != old);
        CHECK(MPI_Get (&count, 1, MPI_INT64_T, 0, disp (w, 0, count_offset), 1, MPI_INT64_T, w->win));
        CHECK(MPI_Win_flush (0, w->win));
        count++;
        CHECK(MPI_Put (&count, 1, MPI_INT64_T, 0, disp (w, 0, count_offset), 1, MPI_INT64_T, w->win));
        CHECK(MPI_Win_flush (0, w->win));
        CHECK(MPI_Compare_and_swap (&zero, &me, &old, MPI_INT64_T, 0, disp (w, 0, lock_offset), w->win));
        CHECK(MPI_Win_flush (0, w->win));
        errors += old != me;
    }
    CHECK(MPI_Win_unlock_all (w->win));
    read_slot (w, count_offset, &final, sizeof (final));
    if (final != (int64_t) nprocs * iterations) {
        if (0 == rank) {
            fprintf (stderr, "mutex counter: %lld, expected %lld\n", (long long) final,
                     (long long) nprocs * iterations);
        }
        errors++;
    }
    return errors;
}

/* 32-bit compare-and-swap: the swap happens only on a match. */
static int cas32 (window_t *w, MPI_Aint offset)
{
    int32_t init = 17, wrong = 3, want = 17, mine = 100 + rank, old = 0, got = 0;
    int errors = 0;

    set_slot (w, offset, &init, sizeof (init));
    CHECK(MPI_Win_lock (MPI_LOCK_EXCLUSIVE, 0, 0, w->win));
    CHECK(MPI_Compare_and_swap (&mine, &wrong, &old, MPI_INT32_T, 0, disp (w, 0, offset), w->win));
    CHECK(MPI_Win_unlock (0, w->win));
    errors += old != 17; /* nobody matched: nothing swapped */
    MPI_Barrier (MPI_COMM_WORLD);
    CHECK(MPI_Win_lock (MPI_LOCK_EXCLUSIVE, 0, 0, w->win));
    CHECK(MPI_Compare_and_swap (&mine, &want, &old, MPI_INT32_T, 0, disp (w, 0, offset), w->win));
    CHECK(MPI_Win_unlock (0, w->win));
    read_slot (w, offset, &got, sizeof (got));
    /* exactly one rank found 17 and swapped in its value */
    {
        int won = old == 17, winners = 0;

        MPI_Allreduce (&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        errors += winners != 1 || got < 100 || got >= 100 + nprocs || (won && got != mine);
    }
    return errors;
}

static void atomics (window_t *w)
{
    char what[300];
    int errors;

    errors = contended_counter (w, 256, MPI_INT64_T, 0);
    errors += contended_counter (w, 264, MPI_INT32_T, 0);
    errors += contended_counter (w, 272, MPI_INT64_T, 1);
    snprintf (what, sizeof (what), "%s: contended counter: %d ranks x %d MPI_Fetch_and_op (int64, int32) and "
              "MPI_Get_accumulate: every fetched value unique, total exact", flavor_names[w->flavor], nprocs,
              counter_iterations);
    report (what, errors);

    errors = cas_mutex_counter (w, 320, 328, counter_iterations / 4 + 1);
    errors += cas32 (w, 336);
    snprintf (what, sizeof (what), "%s: MPI_Compare_and_swap: a mutex guarding a get-increment-put counter "
              "(%d ranks x %d), and a 32-bit swap only on a match", flavor_names[w->flavor], nprocs,
              counter_iterations / 4 + 1);
    report (what, errors);
}

/* ------------------------------------------------------------ a peer dies */

/* Rank 1 dies while rank 0 is in a passive epoch on it: rank 0 must get an
 * error or be ended by the runtime, never hang. */
static void peer_dies (void)
{
    window_t w;
    int64_t one = 1, got;

    window_open (&w, FLAVOR_CREATE, 4096);
    if (1 == rank) {
        usleep (300000);
        kill (getpid (), SIGKILL);
    }
    if (0 == rank) {
        CHECK(MPI_Win_lock_all (0, w.win));
        for (long i = 0 ; ; ++i) {
            CHECK(MPI_Fetch_and_op (&one, &got, MPI_INT64_T, 1, 0, MPI_SUM, w.win));
            CHECK(MPI_Win_flush (1, w.win));
        }
    }
    MPI_Barrier (MPI_COMM_WORLD);
}

int main (int argc, char **argv)
{
    unsigned char *src, *dst;
    int opt, die = 0, atomics_only = 0, first_flavor = FLAVOR_ALLOCATE, last_flavor = FLAVOR_DYNAMIC;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    while (-1 != (opt = getopt (argc, argv, "n:m:kDOC"))) {
        switch (opt) {
        case 'C': atomics_only = 1; break;
        case 'D': last_flavor = FLAVOR_CREATE; break;
        case 'O': first_flavor = FLAVOR_DYNAMIC; break;
        case 'n': counter_iterations = atoi (optarg); break;
        case 'm': max_size = strtoul (optarg, NULL, 0); break;
        case 'k': die = 1; break;
        default: MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
    if (die) {
        peer_dies ();
        MPI_Finalize ();
        return 0;
    }
    if (atomics_only) {
        window_t w;

        window_open (&w, FLAVOR_CREATE, 4096);
        atomics (&w);
        window_close (&w);
        MPI_Finalize ();
        return failures ? 1 : 0;
    }
    src = malloc (max_size);
    dst = malloc (max_size);
    for (int flavor = first_flavor ; flavor <= last_flavor ; ++flavor) {
        window_t w;

        /* the largest transfer, and a counter of its own past it */
        window_open (&w, flavor, ((max_size < 4096 ? 4096 : max_size) + 7) / 8 * 8 + sizeof (int64_t));
        put_get_fence (&w, src, dst);
        put_get_lock (&w, src, dst);
        put_get_flush (&w, src, dst);
        put_get_pscw (&w, src, dst);
        accumulate_ops (&w);
        accumulate_derived (&w);
        accumulate_user_op (&w);
        atomics (&w);
        window_close (&w);
    }
    free (src);
    free (dst);
    MPI_Finalize ();
    return failures ? 1 : 0;
}
