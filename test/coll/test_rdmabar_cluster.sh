#!/usr/bin/env bash
# Proves MPI_Barrier stays a barrier with coll/rdmabar selected on
# communicators that span emulated nodes (rdmabar keeps the barrier below
# there until its RDMA phase between nodes exists) and on the one-node
# halves of a split.
set -u
. "$(dirname "$0")/../cluster/cluster.sh"
cluster_up 2 1 || exit $?
out=$(cluster_mpirun -np 4 --map-by node --mca mpi_yield_when_idle 1 "$RWV_BUILD/test/coll/test_barrier" -c 1000 2>&1)
echo "$out" | grep -E '^(ok|not ok) - ' | sed 's/$/ (2 nodes x 2 ranks)/'
echo "$out" | grep -q '^ok - ' || echo "$out" | tail -5
