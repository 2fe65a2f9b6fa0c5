#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Soak run, outside the default suite: minutes of mixed traffic over
# btl/rwv between 2 emulated nodes with 2 ranks each, every byte checked,
# repeating the semantics, threads and 16 MiB ping-pong programs until the
# time is up.  Stops at the first failure.
#   test/btl/soak_rwv.sh [MINUTES]     (default 5; needs root)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
minutes=${1:-5}
export RWV_BUILD=${RWV_BUILD:-$top/_build}
export OMPI_MCA_opal_mca_base_component_path="SYS_DEFAULT:$RWV_BUILD/inst/lib/openmpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$top/test/cluster/cluster.sh"
cluster_up 2 2 || exit $?
bin=$RWV_BUILD/test/mpi
common=(-np 4 --map-by node --mca mpi_yield_when_idle 1 --mca btl self,vader,rwv)
end=$(( $(date +%s) + minutes * 60 ))
runs=0
while [ "$(date +%s)" -lt "$end" ]; do
    for prog in "test_mpi_semantics -f 5000" "test_mpi_threads -n 20" "test_pingpong_verify -m 16777216 -i 2"; do
        out=$(cluster_mpirun "${common[@]}" $bin/$prog 2>&1)
        if echo "$out" | grep -q '^not ok' || ! echo "$out" | grep -q '^ok'; then
            echo "not ok - soak: $prog failed after $runs runs"; echo "$out" | tail -20
            exit 1
        fi
        runs=$((runs + 1))
    done
    echo "# $runs runs, $(( (end - $(date +%s)) / 60 )) min left" >&2
done
echo "ok - soak: $runs runs of mixed traffic in $minutes min over 2 nodes x 2 ranks, every byte correct"
