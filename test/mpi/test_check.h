/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* What the MPI test programs share: a failed MPI call ends the job with
 * its name, and a check is reported once, by rank 0, for all ranks. */
#ifndef RWV_TEST_CHECK_H
#define RWV_TEST_CHECK_H

#include <mpi.h>
#include <stdio.h>

#define CHECK(call) do { int rc_ = (call); if (MPI_SUCCESS != rc_) { int r_; \
    MPI_Comm_rank (MPI_COMM_WORLD, &r_); \
    fprintf (stderr, "rank %d: %s failed (%d)\n", r_, #call, rc_); MPI_Abort (MPI_COMM_WORLD, 2); } } while (0)

/* "ok - WHAT" or "not ok - WHAT" from rank 0, summing every rank's
 * errors; returns 1 if any rank saw one. */
static inline int test_report (const char *what, int local_errors)
{
    int errors = 0, rank;

    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Allreduce (&local_errors, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        printf ("%s - %s\n", errors ? "not ok" : "ok", what);
        fflush (stdout);
    }
    return errors != 0;
}

#endif /* RWV_TEST_CHECK_H */
