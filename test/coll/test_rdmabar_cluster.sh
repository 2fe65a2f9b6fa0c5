#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves coll/rdmabar between emulated nodes: the skew, communicator,
# back-to-back and create/free checks of test_barrier pass with node
# leaders exchanging RDMA-written flags, for 2 to 5 nodes with 1 to 3 ranks
# each (powers of two and not), each of the three algorithms, over btl/rwv and btl/tcp;
# and the log shows the RDMA phase was the one used (under run-tests.sh
# --core, three of those: each algorithm and each btl once).  Then, with
# `--mca coll rdmabar' alone, every collective gives the right values
# across nodes, and a rank killed inside a barrier ends the job instead of
# leaving the others waiting.
set -u
. "$(dirname "$0")/../cluster/cluster.sh"
. "$(dirname "$0")/../lib.sh"
bin=$RWV_BUILD/test/coll

configs=("2 1 rwv dissemination" "2 2 rwv recursive_doubling" "3 2 tcp dissemination" "3 3 rwv recursive_doubling"
         "4 1 tcp linear" "4 2 rwv linear" "5 1 rwv dissemination" "5 2 tcp recursive_doubling")
# another Open MPI series (run-tests.sh --core): each algorithm and btl once
[ -n "${RWV_CORE:-}" ] && configs=("2 2 rwv recursive_doubling" "3 2 tcp dissemination" "4 2 rwv linear")
for config in "${configs[@]}"; do
    set -- $config
    nodes=$1 ppn=$2 btl=$3 alg=$4
    label="($nodes nodes x $ppn ranks, btl/$btl, $alg)"
    cluster_up "$nodes" 1 >/dev/null || exit $?
    job=(cluster_mpirun -np $((nodes * ppn)) --map-by node --mca mpi_yield_when_idle 1
         --mca btl self,vader,$btl --mca coll_rdmabar_algorithm $alg)
    out=$("${job[@]}" "$bin/test_barrier" -n 15 -c 100 -b 1000 2>&1)
    echo "$out" | grep -E '^(ok|not ok) - ' | sed "s|\$| $label|"
    # which phase: the same job, short, at the verbosity that names it (at
    # that level Open MPI 6.0's other collectives print megabytes for the
    # long job's hundred communicators)
    out=$("${job[@]}" --mca coll_base_verbose 10 "$bin/test_barrier" -n 2 -c 1 -b 10 2>&1)
    if echo "$out" | grep -q "node leaders exchange flags with btl/$btl puts"; then
        echo "ok - the node leaders exchanged RDMA-written flags $label"
    else
        echo "not ok - the RDMA phase was not used $label"; echo "$out" | grep -i rdmabar | tail -3
    fi
    cluster_down
done

# rdmabar as the only coll component, across nodes
for config in "2 2 rwv" "3 1 tcp"; do
    set -- $config
    nodes=$1 ppn=$2 btl=$3
    label="(--mca coll rdmabar alone, $nodes nodes x $ppn ranks, btl/$btl)"
    cluster_up "$nodes" 1 >/dev/null || exit $?
    out=$(cluster_mpirun -np $((nodes * ppn)) --map-by node --mca mpi_yield_when_idle 1 \
          --mca btl self,vader,$btl --mca coll rdmabar "$bin/test_collectives_values" -u -q 2>&1)
    rc=$?
    echo "$out" | grep -E '^(ok|not ok) - ' | sed "s|\$| $label|"
    job_ended "$rc" || { echo "not ok - test_collectives_values exited with $rc $label"; echo "$out" | tail -5; }
    cluster_down
done

# a rank killed inside a barrier: the runtime is told to let the others run
# on (--enable-recovery); rwv sees the connection close without a goodbye,
# or a put to it fail first (Open MPI 5.0, where puts complete at the target)
cluster_up 2 1 >/dev/null || exit $?
err=$(mktemp)
RWV_EXPECT='closed the connection without saying goodbye\|connection to rwvn2 failed' run_keeping_help "$err" run_job 120 bash -c '. "$0"; cluster_mpirun -np 2 --map-by node --enable-recovery \
    --mca btl self,vader,rwv "$1" -k 200 1>&2' "$(dirname "$0")/../cluster/cluster.sh" "$bin/test_barrier"
rc=$?
if [ "$rc" -ne 124 ] && grep -q -e 'closed the connection without saying goodbye' -e 'connection to rwvn2 failed' \
                             -e 'barrier .* returned error' "$err"; then
    echo "ok - a rank killed inside a barrier ends the job with a message, no hang (exit $rc)"
else
    echo "not ok - rank killed inside a barrier: exit $rc"; tail -8 "$err"
fi
rm -f "$err"
cluster_down
