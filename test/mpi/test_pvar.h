/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Finding an MPI_T performance variable by name, for the tests and
 * benchmarks that read btl/rwv's (MPI 3.1, as in Open MPI 4.1, has no
 * MPI_T_pvar_get_index). */
#ifndef RWV_TEST_PVAR_H
#define RWV_TEST_PVAR_H

#include <mpi.h>
#include <string.h>

/* The index of performance variable NAME, -1 if there is none (a
 * variable of a component that was not selected is invalid). */
static inline int test_pvar_index (const char *name)
{
    int num = 0;

    MPI_T_pvar_get_num (&num);
    for (int i = 0 ; i < num ; ++i) {
        char vname[256], desc[1024];
        int vlen = sizeof (vname), dlen = sizeof (desc), verbosity, var_class, bind, readonly, continuous, atomic;
        MPI_Datatype type;
        MPI_T_enum enumtype;

        if (MPI_SUCCESS == MPI_T_pvar_get_info (i, vname, &vlen, &verbosity, &var_class, &type, &enumtype, desc, &dlen,
                                                &bind, &readonly, &continuous, &atomic) &&
            0 == strcmp (vname, name)) {
            return i;
        }
    }
    return -1;
}

#endif
