#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The connection storm as a user meets it: NODES emulated nodes x
# RANKS_PER_NODE ranks on this machine's cores (mpi_yield_when_idle 1,
# vader on the node, default parameters) run MPI_Alltoall of 16 KiB blocks
# 3 times (bench_storm.c): the first round makes every connection, the
# next two use them.  Every byte is checked.  btl/tcp and btl/rwv in the
# same run, each job's wall time (start to end, MPI_Init and MPI_Finalize
# included) beside the slowest rank's MPI_Init and rounds, and rwv's
# figures over tcp's.  Prints a markdown table.
#   test/bench/bench_storm.sh [NODES [RANKS_PER_NODE]]   (default 4 x 64)
set -u
. "$(dirname "$0")/bench_lib.sh"
bin=$build/test/bench/bench_storm
nodes=${1:-4}
per_node=${2:-64}
np=$((nodes * per_node))

cluster_check_privileges || { echo "Emulated nodes need root: skipped."; exit 0; }

# "wall init r1 r2 r3 bad": the job's figures, or "failed"
run () { # btl
    local out start=$(date +%s.%N)
    out=$(cluster_mpirun -np $np --map-by node --oversubscribe --mca mpi_yield_when_idle 1 \
          --mca btl self,vader,"$1" "$bin" 2>&1 < /dev/null) || { echo "failed"; echo "$out" | tail -3 >&2; return; }
    echo "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')" \
         "$(echo "$out" | awk '$1 == "init" {i = $2} $1 == "round" {r[$2] = $3} $1 == "bad_bytes" {b = $2}
                               END {printf "%.2f %.2f %.2f %.2f %s", i, r[1], r[2], r[3], b}')"
}

bench_progress "== connection storm, $nodes nodes x $per_node ranks"
cluster_up "$nodes" 1 > /dev/null || exit 1
declare -A res
for btl in tcp rwv; do
    bench_progress "   $btl"
    res[$btl]=$(run $btl)
done
cluster_down

echo "## MPI_Alltoall of 16 KiB blocks, 3 rounds, $np ranks ($nodes nodes x $per_node), no connection made before"
echo
echo "| btl | bytes wrong | job wall time (s) | MPI_Init, slowest rank (s) | round 1: connecting (s) | round 2 (s) | round 3 (s) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for btl in tcp rwv; do
    set -- ${res[$btl]}
    if [ "$1" = failed ]; then
        echo "| self,vader,$btl | failed | | | | | |"
    else
        echo "| self,vader,$btl | $6 | $1 | $2 | $3 | $4 | $5 |"
    fi
done
set -- ${res[tcp]}; tcp=("$@")
set -- ${res[rwv]}; rwv=("$@")
if [ "${tcp[0]}" != failed ] && [ "${rwv[0]}" != failed ]; then
    echo "| rwv / tcp | | $(bench_ratio "${rwv[0]}" "${tcp[0]}") | $(bench_ratio "${rwv[1]}" "${tcp[1]}") |" \
         "$(bench_ratio "${rwv[2]}" "${tcp[2]}") | $(bench_ratio "${rwv[3]}" "${tcp[3]}") | $(bench_ratio "${rwv[4]}" "${tcp[4]}") |"
fi
