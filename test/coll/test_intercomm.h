/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What test_intercomm_values.c and test_intercomm_collectives.c share: the
 * intercommunicator under test, the forms a collective is run in, and the
 * reporting.
 */
#ifndef TEST_INTERCOMM_H
#define TEST_INTERCOMM_H

#include <mpi.h>
#include "test_persistent.h"

enum { BLOCKING, NONBLOCKING, PERSISTENT };
#define REPS(mode) (PERSISTENT == (mode) ? 2 : 1)

extern MPI_Comm ic;                    /* the intercommunicator under test */
extern int grp, lrank, lsize, rsize;   /* my group (0 or 1), rank and size in it; remote size */
extern int gsize[2];

/* one ok/not ok line for a check all ranks ran; bad: this rank's count */
void report (const char *what, int mode, int bad);

/* test_intercomm_collectives.c: every collective but the barrier */
void collectives_setup (void);
void collectives_teardown (void);
void check_data_movement (int mode);
void check_reductions (int mode);

/* Run one collective in the given form; a persistent one is created on the
 * first repetition and started on each. */
#define DO(blocking, nonblocking, init) do {                                  \
        if (BLOCKING == mode) {                                               \
            bad += MPI_SUCCESS != (blocking);                                 \
        } else if (NONBLOCKING == mode) {                                     \
            bad += MPI_SUCCESS != (nonblocking);                              \
            bad += MPI_SUCCESS != MPI_Wait (&req, MPI_STATUS_IGNORE);         \
        } else {                                                              \
            if (0 == rep) {                                                   \
                bad += MPI_SUCCESS != (init);                                 \
            }                                                                 \
            bad += MPI_SUCCESS != MPI_Start (&req);                           \
            bad += MPI_SUCCESS != MPI_Wait (&req, MPI_STATUS_IGNORE);         \
        }                                                                     \
    } while (0)
#define DONE() do { if (MPI_REQUEST_NULL != req) MPI_Request_free (&req); } while (0)

#endif
