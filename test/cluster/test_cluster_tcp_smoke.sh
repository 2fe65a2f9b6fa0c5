#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves the emulated cluster: NODES namespaces joined by RAILS rails run a
# real MPI job with ranks on distinct nodes, over Open MPI's own btl/tcp,
# with every byte of every message checked.
#   test_cluster_tcp_smoke.sh NODES RAILS
set -u
nodes=$1
rails=$2
. "$(dirname "$0")/cluster.sh"
cluster_up "$nodes" "$rails" || exit $?

ranks=$(( nodes % 2 ? nodes + 1 : nodes ))
out=$(cluster_mpirun -np "$ranks" --map-by node --mca btl self,vader,tcp --mca mpi_yield_when_idle 1 \
      "$RWV_BUILD/test/mpi/test_pingpong_verify" -m 4194304 2>&1)
echo "$out" | grep -E '^(ok|not ok) - ' | sed "s/\$/ ($nodes nodes, $rails rails, btl\/tcp)/"
hosts=$(echo "$out" | sed -n 's/^# ranks on hosts://p' | tr ' ' '\n' | cut -d= -f2 | sort -u | grep -c .)
if [ "$hosts" -eq "$nodes" ]; then
    echo "ok - the $ranks ranks ran on $nodes distinct emulated nodes, each with its own host name"
else
    echo "not ok - ranks ran on $hosts hosts, expected $nodes"; echo "$out" | tail -10
    exit 1
fi
echo "$out" | grep -q '^ok - ping-pong'
