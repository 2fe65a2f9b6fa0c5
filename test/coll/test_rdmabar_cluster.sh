#!/usr/bin/env bash
# Proves coll/rdmabar between emulated nodes: the skew, communicator,
# back-to-back and create/free checks of test_barrier pass with node
# leaders exchanging RDMA-written flags, for several node and rank counts
# (powers of two and not), both algorithms, over btl/rwv and btl/tcp; and
# the log shows the RDMA phase was the one used.
set -u
. "$(dirname "$0")/../cluster/cluster.sh"
bin=$RWV_BUILD/test/coll/test_barrier

for config in "2 1 rwv dissemination" "2 2 rwv recursive_doubling" "3 2 tcp dissemination" \
              "3 3 rwv recursive_doubling" "5 1 rwv dissemination" "5 2 tcp recursive_doubling"; do
    set -- $config
    nodes=$1 ppn=$2 btl=$3 alg=$4
    label="($nodes nodes x $ppn ranks, btl/$btl, $alg)"
    cluster_up "$nodes" 1 >/dev/null || exit $?
    out=$(cluster_mpirun -np $((nodes * ppn)) --map-by node --mca mpi_yield_when_idle 1 \
          --mca btl self,vader,$btl --mca coll_rdmabar_algorithm $alg --mca coll_base_verbose 10 \
          "$bin" -n 15 -c 100 -b 1000 2>&1)
    echo "$out" | grep -E '^(ok|not ok) - ' | sed "s|\$| $label|"
    if echo "$out" | grep -q "node leaders exchange flags with btl/$btl puts"; then
        echo "ok - the node leaders exchanged RDMA-written flags $label"
    else
        echo "not ok - the RDMA phase was not used $label"; echo "$out" | grep -i rdmabar | tail -3
    fi
    cluster_down
done
