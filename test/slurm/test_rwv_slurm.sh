#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves btl/rwv and coll/rdmabar work when Slurm launches the job, as most
# clusters do: Debian's Slurm 22.05 over 2 emulated nodes (slurm.sh),
# ranks started by srun --mpi=pmix (Slurm's PMIx server, not PRRTE's or
# ORTE's: the modex, the membership proof and same-node detection all come
# from it), and by mpirun inside salloc.  Bytes checked throughout:
#  - 2 ranks on 2 nodes over self,rwv, 0 B to 16 MiB, and node 2's rail
#    counters show the bytes crossed the rail;
#  - 2 nodes x 2 ranks, pairs across the nodes (block distribution), and
#    pairs on one node (cyclic), whose bytes stay off the rail (shared
#    rings and single copies);
#  - MPI one-sided between the nodes (osc/rdma over rwv);
#  - coll/rdmabar alone carrying every collective, 2 nodes x 2 ranks;
#  - a rank busy 5 s at first contact against a 3 s btl_rwv_connect_timeout;
#  - salloc -N2 mpirun --map-by node: a ping-pong across the nodes.
# Exits 77 (skipped) when Slurm's packages are missing.
set -u
export RWV_CLUSTER=rwvs
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cluster/cluster.sh"
. "$here/../lib.sh"
. "$here/slurm.sh"
slurm_check || exit $?
bin=$RWV_BUILD/test/mpi
out=$(mktemp)
cluster_up 2 1 || exit $?
slurm_up || exit 1
trap 'rm -f "$out"; slurm_down; cluster_down' EXIT
export OMPI_MCA_btl=self,rwv

# bytes node 2 has received on the rail
rail_rx () {
    ip netns exec "$(cluster_node_name 2)" cat /sys/class/net/r1/statistics/rx_bytes
}

# A job and its checks: CHECK names what must also hold of the job's
# output ($out) and rail bytes ($moved).
slurm_job () { # label pattern launcher-args...
    local label=$1 pattern=$2 rc before
    shift 2
    before=$(rail_rx)
    run_job 180 bash -c '. "$0/../cluster/cluster.sh"; . "$0/slurm.sh"; slurm_run "$@"' "$here" "$@" > "$out" 2>&1
    rc=$?
    moved=$(($(rail_rx) - before))
    if job_ended "$rc" && grep -q "^ok - $pattern" "$out" && ! grep -q '^not ok' "$out"; then
        return 0
    fi
    echo "not ok - $label: exit $rc"
    grep -v '^$' "$out" | tail -10 | sed 's/^/#   /'
    return 1
}

mib=$((1024 * 1024))
slurm_job "srun, 2 nodes" "ping-pong .* 1 rank pairs: 0 corrupted" \
    srun --mpi=pmix -N2 -n2 "$bin/test_pingpong_verify" -m 16777216 &&
    if [ "$moved" -gt $((32 * mib)) ]; then
        echo "ok - srun --mpi=pmix, 2 nodes over self,rwv: ping-pong 0 B to 16 MiB, every byte right, $((moved / mib)) MiB crossed the rail"
    else
        echo "not ok - srun, 2 nodes: only $moved bytes crossed the rail"
    fi
# 2 nodes x 2 ranks; test_pingpong_verify pairs rank i with rank i + 2:
# block distribution puts each pair across the nodes, cyclic on one node
pairs_job () { # distribution
    slurm_job "srun, 2 nodes x 2 ranks, -m $1" "ping-pong .* 2 rank pairs: 0 corrupted" \
        srun --mpi=pmix -N2 -n4 --ntasks-per-node=2 -m "$1" --overcommit \
        env OMPI_MCA_mpi_yield_when_idle=1 "$bin/test_pingpong_verify" -m 4194304
}
pairs_job block &&
    if [ "$moved" -gt $((8 * mib)) ]; then
        echo "ok - srun, 2 nodes x 2 ranks, each pair across the nodes: every byte right, $((moved / mib)) MiB over the rail"
    else
        echo "not ok - srun, pairs across the nodes: only $moved bytes crossed the rail"
    fi
pairs_job cyclic &&
    if [ "$moved" -lt $((2 * mib)) ]; then
        echo "ok - srun, 2 nodes x 2 ranks, each pair on one node: every byte right, $((moved / 1024)) KiB over the rail (the runtime's): the pairs took the shared rings"
    else
        echo "not ok - srun, same-node pairs sent $((moved / mib)) MiB over the rail"
    fi
slurm_job "srun, one-sided" "MPI_Win_create: MPI_Put and MPI_Get" \
    srun --mpi=pmix -N2 -n2 "$bin/test_onesided_verify" -D -m 65536 -n 20 &&
    echo "ok - srun, 2 nodes: MPI one-sided (osc/rdma over rwv), every operation's values right"
slurm_job "srun, coll/rdmabar alone" "" \
    srun --mpi=pmix -N2 -n4 --ntasks-per-node=2 --overcommit \
    env OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_coll=rdmabar "$bin/../coll/test_collectives_values" -u -q &&
    echo "ok - srun, 2 nodes x 2 ranks, --mca coll rdmabar alone: every collective's values right"
slurm_job "srun, a busy peer" "rank 1 busy 5 s at first contact" \
    srun --mpi=pmix -N2 -n2 env OMPI_MCA_btl_rwv_connect_timeout=3 "$RWV_BUILD/test/mpi/test_busy_peer" -b 5 &&
    echo "ok - srun, 2 nodes: a rank busy 5 s at first contact (timeout 3 s), every byte right"
slurm_job "salloc mpirun" "ping-pong .* 1 rank pairs: 0 corrupted" \
    salloc -N2 mpirun --map-by node -np 2 --bind-to none --mca oob_tcp_if_include "$(cluster_rail_cidr 1)" \
    "$bin/test_pingpong_verify" -m 4194304 &&
    echo "ok - salloc -N2 mpirun --map-by node: ping-pong 0 B to 4 MiB over rwv, every byte right"
