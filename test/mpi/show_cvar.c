/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Prints, after MPI_Init, each named MPI_T control variable's value as
 * the library sees it (an MCA parameter's full name, e.g.
 * osc_rdma_buffer_size), and this process's resident memory:
 *   show_cvar NAME...
 *     "NAME VALUE" per name ("NAME unknown" if there is none), then
 *     "# rss KIB"
 * Only rank 0 prints.  Integer variables only.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "test_rss.h"

static void show (const char *name)
{
    MPI_T_cvar_handle handle;
    MPI_Datatype type;
    int index, count, verbosity, bind, scope, desc_len = 0, name_len = 0;
    unsigned long long value = 0;

    if (MPI_SUCCESS != MPI_T_cvar_get_index (name, &index) ||
        MPI_SUCCESS != MPI_T_cvar_get_info (index, NULL, &name_len, &verbosity, &type, NULL, NULL, &desc_len,
                                            &bind, &scope) ||
        MPI_SUCCESS != MPI_T_cvar_handle_alloc (index, NULL, &handle, &count)) {
        printf ("%s unknown\n", name);
        return;
    }
    if (MPI_INT == type || MPI_UNSIGNED == type) {
        unsigned int v;

        MPI_T_cvar_read (handle, &v);
        value = v;
    } else if (MPI_UNSIGNED_LONG == type || MPI_UNSIGNED_LONG_LONG == type || MPI_LONG_LONG == type) {
        MPI_T_cvar_read (handle, &value);
    } else {
        printf ("%s not an integer\n", name);
        MPI_T_cvar_handle_free (&handle);
        return;
    }
    printf ("%s %llu\n", name, value);
    MPI_T_cvar_handle_free (&handle);
}

int main (int argc, char **argv)
{
    int provided, rank;

    MPI_Init (&argc, &argv);
    MPI_T_init_thread (MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    if (0 == rank) {
        for (int i = 1 ; i < argc ; ++i) {
            show (argv[i]);
        }
        printf ("# rss %ld\n", rss_kib ());
    }
    MPI_T_finalize ();
    MPI_Finalize ();
    return 0;
}
