/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Proves btl/rwv's MPI_T performance variables say what the job uses:
 * before any message no peer is connected and no ring is held; after
 * every rank has exchanged a message with every other one, every peer is
 * connected and each has exactly one ring of OWN_BYTES.
 * With HOT_BYTES (run with btl_rwv_hot_peers 1, btl_rwv_promote_after 4,
 * an even number of ranks): after a ping-pong with rank ^ 1 that peer is
 * hot (one hot ring of HOT_BYTES more, one promotion); after one with
 * rank ^ 2 the first has given its ring up to the second (a demotion,
 * a second promotion, still one hot ring).
 * With WARM_BYTES and WARM_RINGS (HOT_BYTES 0, over a rail): every rank
 * sends a 16 KiB message to every other, too big for a small ring, so
 * each is read from its sender, and the receiver gives that peer a warm
 * ring of WARM_BYTES, WARM_RINGS of them (btl_rwv_warm_peers bounds
 * them); the second such exchange lands in the warm rings.  Every byte
 * of both is checked.
 * With "first" RING_BYTES READS (over a rail): every rank's first message
 * to every other is 16 KiB, which a connection's small ring cannot hold;
 * the connection starts with warm slots instead, the sender's (it said
 * so in its request) and the receiver's own (a peer answers in kind), so
 * nothing is read from its sender: the rings hold RING_BYTES and the
 * counter btl_rwv_eager_messages_read says READS.  Every byte checked.
 * rwv's connection thread answers a peer while this rank computes, so
 * the first reading waits until every rank has taken its own: ranks on
 * one node meet through files, not MPI.
 *   mpirun -np N --mca btl self,rwv test_rwv_pvars OWN_BYTES [HOT_BYTES [WARM_BYTES WARM_RINGS]]   (one node)
 *   mpirun -np N --mca btl self,rwv test_rwv_pvars first RING_BYTES READS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_check.h"
#include "test_pvar.h"

/* A counter counts from its handle's allocation (MPI_T): every handle is
 * allocated once, before the first message. */
static MPI_T_pvar_handle open_pvar (MPI_T_pvar_session session, int index)
{
    MPI_T_pvar_handle handle;
    int count;

    CHECK(MPI_T_pvar_handle_alloc (session, index, NULL, &handle, &count));
    return handle;
}

static unsigned long read_pvar (MPI_T_pvar_session session, MPI_T_pvar_handle handle, int is_long)
{
    unsigned long wide = 0;
    unsigned narrow = 0;

    CHECK(MPI_T_pvar_read (session, handle, is_long ? (void *) &wide : (void *) &narrow));
    return is_long ? wide : narrow;
}

/* Every rank sends a byte to every other one and receives theirs. */
static void exchange_all (int rank, int size)
{
    for (int k = 1 ; k < size ; ++k) {
        char out = (char) rank, in = 0;

        CHECK(MPI_Sendrecv (&out, 1, MPI_CHAR, (rank + k) % size, 0, &in, 1, MPI_CHAR, (rank + size - k) % size, 0,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
}

/* Fifty round trips with PARTNER, then everyone waits for everyone. */
static void ping_pong (int partner)
{
    for (int i = 0 ; i < 50 ; ++i) {
        char out = (char) i, in = 0;

        CHECK(MPI_Sendrecv (&out, 1, MPI_CHAR, partner, 1, &in, 1, MPI_CHAR, partner, 1, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
    }
    CHECK(MPI_Barrier (MPI_COMM_WORLD));
}

typedef struct { MPI_T_pvar_handle bytes, peers, hot, promotions, demotions; } pvars_t;
typedef struct { unsigned long bytes, peers, hot, promotions, demotions; } values_t;

static values_t read_all (MPI_T_pvar_session session, const pvars_t *pv)
{
    values_t v = {read_pvar (session, pv->bytes, 1), read_pvar (session, pv->peers, 0), read_pvar (session, pv->hot, 0),
                  read_pvar (session, pv->promotions, 1), read_pvar (session, pv->demotions, 1)};

    return v;
}

static int expect (int rank, const char *when, values_t got, values_t want)
{
    if (0 == memcmp (&got, &want, sizeof (got))) {
        return 0;
    }
    fprintf (stderr, "rank %d %s: %lu bytes, %lu peers, %lu hot, %lu promotions, %lu demotions; expected %lu, %lu, "
             "%lu, %lu, %lu\n", rank, when, got.bytes, got.peers, got.hot, got.promotions, got.demotions, want.bytes,
             want.peers, want.hot, want.promotions, want.demotions);
    return 1;
}

/* Has every rank promoted COUNT peers?  The same answer on every rank. */
static int every_rank_promoted (MPI_T_pvar_session session, const pvars_t *pv, unsigned long count)
{
    int mine = read_all (session, pv).promotions >= count, all = 0;

    CHECK(MPI_Allreduce (&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    return all;
}

/* Every rank sends 16 KiB to every other and receives theirs; the
 * number of bytes that arrived wrong. */
static int exchange_16k (int rank, int size, int round)
{
    static unsigned char out[16384], in[16384];
    int wrong = 0;

    for (int k = 1 ; k < size ; ++k) {
        int to = (rank + k) % size, from = (rank + size - k) % size;

        for (size_t i = 0 ; i < sizeof (out) ; ++i) {
            out[i] = (unsigned char) (rank * 31 + k * 7 + round + i);
        }
        CHECK(MPI_Sendrecv (out, sizeof (out), MPI_BYTE, to, 1, in, sizeof (in), MPI_BYTE, from, 1, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        for (size_t i = 0 ; i < sizeof (in) ; ++i) {
            wrong += in[i] != (unsigned char) (from * 31 + k * 7 + round + i);
        }
    }
    return wrong;
}

/* Warm rings: given on the first message too big for a small ring, as
 * many as btl_rwv_warm_peers allows; the bytes of both exchanges right. */
static int check_warm (MPI_T_pvar_session session, const pvars_t *pv, int rank, int size, unsigned long own,
                       unsigned long warm, unsigned long rings)
{
    values_t want = {(unsigned long) (size - 1) * own + rings * warm, size - 1, 0, 0, 0};
    int errors = 0, wrong;

    for (int round = 0 ; round < 2 ; ++round) {
        if (0 != (wrong = exchange_16k (rank, size, round))) {
            fprintf (stderr, "rank %d: %d bytes wrong in 16 KiB exchange %d\n", rank, wrong, round);
            ++errors;
        }
        errors += expect (rank, 0 == round ? "after 16 KiB from every peer" : "after 16 KiB again",
                          read_all (session, pv), want);
    }
    return errors;
}

/* The hot set at work: a busy peer promoted, then replaced by another.
 * The second promotion waits for the first peer's ring to come back
 * (once that peer has written into its own ring again) and then for the
 * next arrival from the new peer: on a loaded machine the fifty round
 * trips can end in between, so the new pairs go on talking, a bounded
 * number of rounds, until every rank has promoted its second peer. */
static int check_hot_set (MPI_T_pvar_session session, const pvars_t *pv, int rank, int size, unsigned long own,
                          unsigned long hot)
{
    unsigned long base = (unsigned long) (size - 1) * own;
    int errors = 0;

    ping_pong (rank ^ 1);
    errors += expect (rank, "after a ping-pong with one peer", read_all (session, pv),
                      (values_t) {base + hot, size - 1, 1, 1, 0});
    ping_pong (rank ^ 2);
    for (int round = 0 ; round < 20 && !every_rank_promoted (session, pv, 2) ; ++round) {
        ping_pong (rank ^ 2);
    }
    errors += expect (rank, "after a ping-pong with another", read_all (session, pv),
                      (values_t) {base + hot, size - 1, 1, 2, 1});
    return errors;
}

/* Every rank of the node (they share a parent: mpirun or its daemon) has
 * said it is here; nothing of MPI is used. */
static void meet_without_mpi (int rank, int size, int leave)
{
    char path[128];
    int here = 0;
    FILE *mark;

    snprintf (path, sizeof (path), "/tmp/rwv_pvars_%d_%d", (int) getppid (), rank);
    if (leave) {
        unlink (path);
        return;
    }
    mark = fopen (path, "w");
    if (NULL == mark) {
        perror (path);
        MPI_Abort (MPI_COMM_WORLD, 2);
    }
    fclose (mark);
    while (here < size) {
        here = 0;
        for (int r = 0 ; r < size ; ++r) {
            snprintf (path, sizeof (path), "/tmp/rwv_pvars_%d_%d", (int) getppid (), r);
            here += 0 == access (path, F_OK);
        }
        usleep (1000);
    }
}

/* First contact with 16 KiB: the rings and the reads it took, every
 * byte right. */
static int check_first (MPI_T_pvar_session session, const pvars_t *pv, int rank, int size, unsigned long bytes,
                        unsigned long reads)
{
    int index = test_pvar_index ("btl_rwv_eager_messages_read"), wrong, errors = 0;
    MPI_T_pvar_handle handle;
    unsigned long got;

    if (index < 0) {
        fprintf (stderr, "rank %d: no performance variable btl_rwv_eager_messages_read\n", rank);
        return 1;
    }
    handle = open_pvar (session, index);
    meet_without_mpi (rank, size, 0);
    if (0 != (wrong = exchange_16k (rank, size, 0))) {
        fprintf (stderr, "rank %d: %d bytes wrong in the first 16 KiB exchange\n", rank, wrong);
        ++errors;
    }
    meet_without_mpi (rank, size, 1);
    errors += expect (rank, "after 16 KiB first from every peer", read_all (session, pv),
                      (values_t) {bytes, size - 1, 0, 0, 0});
    if (reads != (got = read_pvar (session, handle, 1))) {
        fprintf (stderr, "rank %d: %lu messages read from their sender, expected %lu\n", rank, got, reads);
        ++errors;
    }
    CHECK(MPI_T_pvar_handle_free (session, &handle));
    return errors;
}

int main (int argc, char **argv)
{
    int first = argc > 3 && 0 == strcmp (argv[1], "first");
    unsigned long own = argc > 1 ? strtoul (argv[1 + first], NULL, 10) : 0;
    unsigned long hot = !first && argc > 2 ? strtoul (argv[2], NULL, 10) : 0;
    unsigned long warm = argc > 4 ? strtoul (argv[3], NULL, 10) : 0, warm_rings = argc > 4 ? strtoul (argv[4], NULL, 10) : 0;
    int provided, rank, size, errors = 0;
    MPI_T_pvar_session session;
    int index[5];
    pvars_t pv;
    char what[400];

    CHECK(MPI_T_init_thread (MPI_THREAD_SINGLE, &provided));
    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    index[0] = test_pvar_index ("btl_rwv_eager_ring_bytes");
    index[1] = test_pvar_index ("btl_rwv_peers_connected");
    index[2] = test_pvar_index ("btl_rwv_hot_peers");
    index[3] = test_pvar_index ("btl_rwv_promotions");
    index[4] = test_pvar_index ("btl_rwv_demotions");
    if (index[0] < 0 || index[1] < 0 || index[2] < 0 || index[3] < 0 || index[4] < 0 || 0 == own ||
        (hot && size % 4)) {
        test_report ("btl_rwv's five performance variables exist (and OWN_BYTES given; HOT_BYTES needs a multiple "
                     "of 4 ranks)", 1);
        MPI_T_finalize ();
        MPI_Finalize ();
        return 1;
    }
    CHECK(MPI_T_pvar_session_create (&session));
    pv = (pvars_t) {open_pvar (session, index[0]), open_pvar (session, index[1]), open_pvar (session, index[2]),
                    open_pvar (session, index[3]), open_pvar (session, index[4])};
    errors += expect (rank, "before any message", read_all (session, &pv), (values_t) {0, 0, 0, 0, 0});
    if (first) {
        errors += check_first (session, &pv, rank, size, own, strtoul (argv[3], NULL, 10));
        errors = test_report ("MPI_T: a first message of 16 KiB to every peer: connections start with rings that "
                              "hold it, btl_rwv_eager_ring_bytes and btl_rwv_eager_messages_read as expected, every "
                              "byte right", errors);
        CHECK(MPI_T_pvar_session_free (&session));
        MPI_T_finalize ();
        MPI_Finalize ();
        return errors;
    }
    meet_without_mpi (rank, size, 0);
    exchange_all (rank, size);
    meet_without_mpi (rank, size, 1);
    errors += expect (rank, "after one message with every peer", read_all (session, &pv),
                      (values_t) {(unsigned long) (size - 1) * own, size - 1, 0, 0, 0});
    if (hot) {
        errors += check_hot_set (session, &pv, rank, size, own, hot);
    }
    if (warm) {
        /* every rank has read its small rings before any sends 16 KiB: a
         * rank still in exchange_all, or its serving thread, would give a
         * warm ring to a peer already on to check_warm */
        CHECK(MPI_Barrier (MPI_COMM_WORLD));
        errors += check_warm (session, &pv, rank, size, own, warm, warm_rings);
    }
    snprintf (what, sizeof (what), "MPI_T: btl_rwv_peers_connected 0 -> %d, btl_rwv_eager_ring_bytes 0 -> %d rings "
              "of %lu bytes%s%s (%d ranks)", size - 1, size - 1, own,
              hot ? ", then one hot ring more, promoted once and handed to another peer (hot_peers, promotions, "
                    "demotions)" : "",
              warm ? ", then warm rings for 16 KiB messages, every byte of two exchanges right" : "", size);
    errors = test_report (what, errors);
    CHECK(MPI_T_pvar_session_free (&session));
    /* before MPI_Finalize: Open MPI 4.1.4 crashes in MPI_T_finalize after it
     * (stock components alone, any BTL) */
    MPI_T_finalize ();
    MPI_Finalize ();
    return errors;
}
