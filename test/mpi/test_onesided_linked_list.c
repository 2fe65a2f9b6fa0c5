/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Proves a dynamic window carries distributed linked lists (MPICH's
 * rma/linked_list_fop pattern): every rank appends elements that it
 * allocates and attaches one by one while the others are appending, by
 * swapping a list's tail pointer at rank 0 and then writing the new
 * element's address into the old tail's next field at its owner
 * (MPI_Accumulate REPLACE).  Two lists: one whose tail is swapped with
 * MPI_Fetch_and_op REPLACE, one whose tail moves by an
 * MPI_Compare_and_swap loop (MPI guarantees atomicity only among
 * accumulates of one op and MPI_NO_OP, so each tail sees one op).  Then
 * every rank walks both lists with MPI_Get and checks each holds each
 * rank's elements exactly once, in the order it appended them.  Elements
 * are detached before the window is freed.
 *
 *   test_onesided_linked_list [-n ELEMENTS_PER_RANK] [-a]
 *     -a  attach every element before the first append: osc/rdma (5.0
 *         to 6.0 and Open MPI's main branch) keeps the region count it
 *         read before locking the target's region table, so a target
 *         attaching meanwhile can make a lookup fail with
 *         MPI_ERR_RMA_RANGE, whatever the BTL (docs/btl-rwv.md)
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_check.h"

/* A pointer to an element: owner rank in the top 16 bits, its address in
 * the owner's memory below (user-space addresses fit in 48 bits). */
#define NIL ((int64_t) -1)
#define PTR(rank, addr) (((int64_t) (rank) << 48) | (int64_t) (addr))
#define PTR_RANK(p) ((int) ((uint64_t) (p) >> 48))
#define PTR_ADDR(p) ((MPI_Aint) ((p) & (((int64_t) 1 << 48) - 1)))

typedef struct {
    int64_t value; /* rank * ELEMENTS + sequence */
    int64_t next;
} elem_t;

static int rank, nprocs, elements = 200, attach_first;

/* The tail pointer at TAIL_ADDR (at rank 0) takes MINE; returns the old
 * tail. */
static int64_t swap_tail (MPI_Win win, MPI_Aint tail_addr, int64_t mine, int use_cas)
{
    int64_t old, seen;

    if (!use_cas) {
        CHECK(MPI_Fetch_and_op (&mine, &old, MPI_INT64_T, 0, tail_addr, MPI_REPLACE, win));
        CHECK(MPI_Win_flush (0, win));
        return old;
    }
    CHECK(MPI_Fetch_and_op (NULL, &seen, MPI_INT64_T, 0, tail_addr, MPI_NO_OP, win));
    CHECK(MPI_Win_flush (0, win));
    do {
        old = seen;
        CHECK(MPI_Compare_and_swap (&mine, &old, &seen, MPI_INT64_T, 0, tail_addr, win));
        CHECK(MPI_Win_flush (0, win));
    } while (seen != old);
    return old;
}

/* Element SEQ goes to list SEQ % 2, whose tail is at TAILS + 8 * list at
 * rank 0. */
static elem_t *element (MPI_Win win, int seq)
{
    elem_t *e = malloc (sizeof (*e));

    e->value = (int64_t) rank * elements + seq;
    e->next = NIL;
    CHECK(MPI_Win_attach (win, e, sizeof (*e)));
    return e;
}

static void append (MPI_Win win, MPI_Aint tails, elem_t **mine, int seq)
{
    elem_t *e = attach_first ? mine[seq] : (mine[seq] = element (win, seq));
    int list = seq & 1;
    MPI_Aint addr;
    int64_t ptr, old;

    CHECK(MPI_Get_address (e, &addr));
    ptr = PTR(rank, addr);
    old = swap_tail (win, MPI_Aint_add (tails, list * (MPI_Aint) sizeof (int64_t)), ptr, list);
    CHECK(MPI_Accumulate (&ptr, 1, MPI_INT64_T, PTR_RANK(old), MPI_Aint_add (PTR_ADDR(old), offsetof (elem_t, next)),
                          1, MPI_INT64_T, MPI_REPLACE, win));
    CHECK(MPI_Win_flush (PTR_RANK(old), win));
}

/* Reads list LIST from its head element (rank 0's placeholder) on; the
 * last element's next may still be on its way only before the barrier,
 * so this runs after one. */
static int walk (MPI_Win win, int64_t head, int list)
{
    int *next_seq = malloc (nprocs * sizeof (int)), errors = 0;
    long count = -1, expected = (long) nprocs * ((elements - list + 1) / 2);
    elem_t e;

    for (int r = 0 ; r < nprocs ; ++r) {
        next_seq[r] = list;
    }
    for (int64_t p = head ; NIL != p && count <= expected ; ++count) {
        CHECK(MPI_Get (&e, sizeof (e), MPI_BYTE, PTR_RANK(p), PTR_ADDR(p), sizeof (e), MPI_BYTE, win));
        CHECK(MPI_Win_flush (PTR_RANK(p), win));
        if (p != head) {
            int owner = (int) (e.value / elements), seq = (int) (e.value % elements);
            if (owner != PTR_RANK(p) || seq != next_seq[owner]) {
                if (errors++ < 5) {
                    fprintf (stderr, "rank %d: list %d's element %ld at rank %d holds %ld, expected its #%d\n", rank,
                             list, count, PTR_RANK(p), (long) e.value, next_seq[PTR_RANK(p)]);
                }
            } else {
                next_seq[owner] += 2;
            }
        }
        p = e.next;
    }
    if (count != expected) {
        fprintf (stderr, "rank %d: list %d holds %ld elements, expected %ld\n", rank, list, count, expected);
        errors++;
    }
    free (next_seq);
    return errors;
}

int main (int argc, char **argv)
{
    elem_t **mine, *heads = NULL;
    int64_t *tails = NULL, head_ptr[2] = {NIL, NIL};
    MPI_Aint tails_addr = 0;
    MPI_Win win;
    int opt, errors;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
    while (-1 != (opt = getopt (argc, argv, "n:a"))) {
        if ('n' == opt) {
            elements = atoi (optarg);
        } else if ('a' == opt) {
            attach_first = 1;
        } else {
            MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
    mine = calloc (elements, sizeof (*mine));
    CHECK(MPI_Win_create_dynamic (MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    /* rank 0 owns each list's empty head element and its tail pointer */
    if (0 == rank) {
        heads = calloc (2, sizeof (*heads));
        tails = malloc (2 * sizeof (*tails));
        CHECK(MPI_Win_attach (win, heads, 2 * sizeof (*heads)));
        CHECK(MPI_Win_attach (win, tails, 2 * sizeof (*tails)));
        for (int list = 0 ; list < 2 ; ++list) {
            MPI_Aint addr;
            heads[list] = (elem_t) {.value = -1, .next = NIL};
            CHECK(MPI_Get_address (&heads[list], &addr));
            head_ptr[list] = tails[list] = PTR(0, addr);
        }
        CHECK(MPI_Get_address (tails, &tails_addr));
    }
    CHECK(MPI_Bcast (head_ptr, 2, MPI_INT64_T, 0, MPI_COMM_WORLD));
    CHECK(MPI_Bcast (&tails_addr, 1, MPI_AINT, 0, MPI_COMM_WORLD));
    for (int i = 0 ; attach_first && i < elements ; ++i) {
        mine[i] = element (win, i);
    }
    MPI_Barrier (MPI_COMM_WORLD);

    CHECK(MPI_Win_lock_all (0, win));
    for (int i = 0 ; i < elements ; ++i) {
        append (win, tails_addr, mine, i);
    }
    CHECK(MPI_Win_unlock_all (win));
    MPI_Barrier (MPI_COMM_WORLD);

    CHECK(MPI_Win_lock_all (0, win));
    errors = walk (win, head_ptr[0], 0) + walk (win, head_ptr[1], 1);
    CHECK(MPI_Win_unlock_all (win));
    char what[200];
    snprintf (what, sizeof (what), "dynamic window: linked lists of %d x %d elements, each attached %s "
              "(fetch-and-op on one tail, compare-and-swap on the other), walked whole by every rank", nprocs, elements,
              attach_first ? "before the appends" : "while others append");
    test_report (what, errors);

    MPI_Barrier (MPI_COMM_WORLD);
    for (int i = 0 ; i < elements ; ++i) {
        CHECK(MPI_Win_detach (win, mine[i]));
        free (mine[i]);
    }
    if (0 == rank) {
        CHECK(MPI_Win_detach (win, heads));
        CHECK(MPI_Win_detach (win, tails));
        free (heads);
        free (tails);
    }
    CHECK(MPI_Win_free (&win));
    free (mine);
    MPI_Finalize ();
    return errors ? 1 : 0;
}
