#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves btl/rwv between emulated nodes: every byte of ping-pongs from 0 to
# 16 MiB (RGET and RPUT), of large messages sent as validating benchmarks send them
# (test_large_verify) and of the point-to-point semantics checks arrives
# intact; in
# Open MPI's default BTL set rwv, not tcp, carries traffic between nodes
# while vader keeps the peers on one node.
#   test_rwv_cluster.sh NODES RAILS
set -u
nodes=$1
rails=$2
. "$(dirname "$0")/../cluster/cluster.sh"
. "$(dirname "$0")/../lib.sh"
cluster_up "$nodes" "$rails" || exit $?
bin=$RWV_BUILD/test/mpi
ranks=$(( nodes % 2 ? nodes + 1 : nodes ))
label="($nodes nodes, $rails rails)"
common=(-np "$ranks" --map-by node --mca mpi_yield_when_idle 1)

# One job of the cluster: its checks, labelled with what it ran over.  A
# job that failed without saying so, or hung, is a failure of its own.
#   cluster_job SUFFIX MPIRUN-ARGS...
cluster_job () {
    local suffix=$1 rc arg prog=job
    shift
    for arg; do
        case "$arg" in "$bin"/*) prog=${arg##*/} ;; esac
    done
    out=$(run_job 240 cluster_mpirun "$@" 2>&1)
    rc=$?
    echo "$out" | grep -E '^(ok|not ok|skip) - ' | sed "s/\$/ $suffix/"
    echo "$out" | job_diagnosis
    if job_ended "$rc" && echo "$out" | grep -q '^ok - '; then
        return
    fi
    echo "$out" | grep -q '^not ok - ' || echo "not ok - $prog $suffix: exit $rc"
    echo "$out" | grep -v '^ok - ' | grep -v '^#' | tail -20
}

cluster_job "over rwv $label" "${common[@]}" --mca btl self,vader,rwv "$bin/test_pingpong_verify" -m 16777216

# RPUT: with puts but no gets offered, ob1 sends rendezvous messages by
# RDMA write over the rails (RGET otherwise)
cluster_job "over rwv, RPUT (btl_rwv_flags send,put) $label" "${common[@]}" --mca btl self,vader,rwv \
    --mca btl_rwv_flags send,put "$bin/test_pingpong_verify" -m 16777216

# as validating benchmarks send large messages: separate buffers refilled
# through freed temporaries, and bidirectional windows, 1 to 16 MiB
cluster_job "over rwv $label" "${common[@]}" --mca btl self,vader,rwv "$bin/test_large_verify"
cluster_job "over rwv $label" "${common[@]}" --mca btl self,vader,rwv "$bin/test_mpi_semantics"
cluster_job "over rwv $label" "${common[@]}" --mca btl self,vader,rwv "$bin/test_mpi_threads"

# rails chosen by network: with two rails, the second one named by CIDR
if [ "$rails" -ge 2 ]; then
    cidr=$(cluster_rail_cidr 2)
    out=$(run_job 240 cluster_mpirun "${common[@]}" --mca btl self,vader,rwv --mca btl_rwv_if_include "$cidr" \
          --mca btl_base_verbose 100 "$bin/test_pingpong_verify" -m 1048576 2>&1)
    if echo "$out" | grep -q '^ok - ' && echo "$out" | grep -q 'connecting to .* on ofi/tcp r2 ' &&
       ! echo "$out" | grep -q 'connecting to .* on ofi/tcp r1 '; then
        echo "ok - btl_rwv_if_include $cidr puts the traffic on rail 2 only $label"
    else
        echo "not ok - btl_rwv_if_include $cidr $label"; echo "$out" | grep -E 'connecting|^ok|^not' | head
        echo "$out" | job_diagnosis
    fi
fi

# default BTL set (self, vader, tcp and rwv): who carries what
out=$(run_job 240 cluster_mpirun -np 4 --map-by node --mca mpi_yield_when_idle 1 --mca btl_base_verbose 100 \
      "$bin/test_pingpong_verify" -m 65536 2>&1)
remote_rwv=$(echo "$out" | grep -c 'bml: Using rwv btl for send to')
remote_tcp=$(echo "$out" | grep -c 'bml: Using tcp btl for send to')
local_vader=$(echo "$out" | grep -cE 'bml: Using (vader|sm) btl for send to')   # sm: its Open MPI 5.0 name
if echo "$out" | grep -q '^ok - ' && [ "$remote_rwv" -gt 0 ] && [ "$remote_tcp" -eq 0 ] &&
   { [ "$nodes" -ne 2 ] || [ "$local_vader" -gt 0 ]; }; then
    echo "ok - in the default BTL set rwv wins over tcp between nodes and vader keeps same-node peers $label"
else
    echo "not ok - default BTL set: rwv used $remote_rwv times, tcp $remote_tcp, vader $local_vader $label"
    echo "$out" | grep -E 'bml: Using|^ok|^not ok' | head
    echo "$out" | job_diagnosis
fi
