/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Persistent collectives by their MPI-4 names, as Open MPI 5.0 has them (it
 * still says MPI_VERSION 3); Open MPI 4.1
 * has them as the MPIX_ extension. */
#ifndef TEST_PERSISTENT_H
#define TEST_PERSISTENT_H

#include <mpi.h>

#if OMPI_MAJOR_VERSION < 5
#include <mpi-ext.h>
#define MPI_Allgather_init MPIX_Allgather_init
#define MPI_Allgatherv_init MPIX_Allgatherv_init
#define MPI_Allreduce_init MPIX_Allreduce_init
#define MPI_Alltoall_init MPIX_Alltoall_init
#define MPI_Alltoallv_init MPIX_Alltoallv_init
#define MPI_Alltoallw_init MPIX_Alltoallw_init
#define MPI_Barrier_init MPIX_Barrier_init
#define MPI_Bcast_init MPIX_Bcast_init
#define MPI_Exscan_init MPIX_Exscan_init
#define MPI_Gather_init MPIX_Gather_init
#define MPI_Gatherv_init MPIX_Gatherv_init
#define MPI_Reduce_init MPIX_Reduce_init
#define MPI_Reduce_scatter_block_init MPIX_Reduce_scatter_block_init
#define MPI_Reduce_scatter_init MPIX_Reduce_scatter_init
#define MPI_Scan_init MPIX_Scan_init
#define MPI_Scatter_init MPIX_Scatter_init
#define MPI_Scatterv_init MPIX_Scatterv_init
#endif

#endif
