/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Proves btl/rwv's MPI_T performance variables say what the job uses:
 * before any message no peer is connected and no ring is held; after
 * every rank has exchanged a message with every other one, every peer is
 * connected and the rings held are a whole number of rings of RING_BYTES,
 * at least one per peer.
 *   mpirun -np N --mca btl self,rwv test_rwv_pvars RING_BYTES
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_check.h"

/* The index of performance variable NAME, -1 if there is none. */
static int pvar_index (const char *name)
{
    int num;

    CHECK(MPI_T_pvar_get_num (&num));
    for (int i = 0 ; i < num ; ++i) {
        char vname[256], desc[1024];
        int vlen = sizeof (vname), dlen = sizeof (desc), verbosity, var_class, bind, readonly, continuous, atomic;
        MPI_Datatype type;
        MPI_T_enum enumtype;

        /* a variable of a component that was not selected is invalid */
        if (MPI_SUCCESS == MPI_T_pvar_get_info (i, vname, &vlen, &verbosity, &var_class, &type, &enumtype, desc, &dlen,
                                                &bind, &readonly, &continuous, &atomic) &&
            0 == strcmp (vname, name)) {
            return i;
        }
    }
    return -1;
}

static unsigned long read_pvar (MPI_T_pvar_session session, int index, int is_long)
{
    MPI_T_pvar_handle handle;
    unsigned long wide = 0;
    unsigned narrow = 0;
    int count;

    CHECK(MPI_T_pvar_handle_alloc (session, index, NULL, &handle, &count));
    CHECK(MPI_T_pvar_read (session, handle, is_long ? (void *) &wide : (void *) &narrow));
    CHECK(MPI_T_pvar_handle_free (session, &handle));
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

int main (int argc, char **argv)
{
    unsigned long ring = argc > 1 ? strtoul (argv[1], NULL, 10) : 0, bytes0, bytes1;
    unsigned long peers0, peers1;
    int provided, rank, size, ib, ip, errors = 0;
    MPI_T_pvar_session session;
    char what[256];

    CHECK(MPI_T_init_thread (MPI_THREAD_SINGLE, &provided));
    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    ib = pvar_index ("btl_rwv_eager_ring_bytes");
    ip = pvar_index ("btl_rwv_peers_connected");
    if (ib < 0 || ip < 0 || 0 == ring) {
        test_report ("btl_rwv_eager_ring_bytes and btl_rwv_peers_connected exist (and RING_BYTES given)", 1);
        MPI_T_finalize ();
        MPI_Finalize ();
        return 1;
    }
    CHECK(MPI_T_pvar_session_create (&session));
    bytes0 = read_pvar (session, ib, 1);
    peers0 = read_pvar (session, ip, 0);
    exchange_all (rank, size);
    bytes1 = read_pvar (session, ib, 1);
    peers1 = read_pvar (session, ip, 0);
    errors += 0 != bytes0 || 0 != peers0;
    errors += peers1 != (unsigned long) (size - 1);
    errors += 0 != bytes1 % ring || bytes1 / ring < (unsigned long) (size - 1);
    if (0 != errors) {
        fprintf (stderr, "rank %d: before: %lu bytes, %lu peers; after: %lu bytes, %lu peers (ring %lu)\n", rank,
                 bytes0, peers0, bytes1, peers1, ring);
    }
    snprintf (what, sizeof (what), "MPI_T: btl_rwv_peers_connected 0 -> %d and btl_rwv_eager_ring_bytes 0 -> %lu "
              "(%lu rings of %lu bytes) at rank 0 after every rank exchanged a message with every other (%d ranks)",
              size - 1, bytes1, bytes1 / ring, ring, size);
    errors = test_report (what, errors);
    CHECK(MPI_T_pvar_session_free (&session));
    /* before MPI_Finalize: Open MPI 4.1.4 crashes in MPI_T_finalize after it
     * (stock components alone, any BTL) */
    MPI_T_finalize ();
    MPI_Finalize ();
    return errors;
}
