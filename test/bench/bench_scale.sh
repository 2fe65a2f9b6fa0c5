#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# A rank connected to everyone: 4 emulated nodes x 8 ranks (32 ranks,
# mpi_yield_when_idle), an exchange between every pair of ranks (1 byte,
# which makes the connections, then 1 KiB, 48 KiB, 1 MiB, every byte
# checked; bench_scale.c), then a 1-byte
# ping-pong between two ranks on different nodes while the others sleep.
# Per rank: peak RSS and eager ring bytes, for btl/tcp, btl/rwv (hot set,
# the default) and btl/rwv with btl_rwv_hot_peers -1 (a large ring for
# every peer, the layout before the hot set), each with vader on the node,
# all in one run; what an idle progress call costs rank 0, and the hot
# pair's latency, against 2 ranks on 2 nodes.
# Above 64 ranks (the connection storm: 4 x 32, 4 x 64) the old layout is
# left out (a large ring per peer: over 250 MiB a rank at 256) and every
# job's wall time, start to end, is a column of its own.
# Prints a markdown table.
#   test/bench/bench_scale.sh [NODES [RANKS_PER_NODE]]
set -u
. "$(dirname "$0")/bench_lib.sh"
bin=$build/test/bench/bench_scale
nodes=${1:-4}
per_node=${2:-8}
np=$((nodes * per_node))

cluster_check_privileges || { echo "Emulated nodes need root: skipped."; exit 0; }

declare -A btls=([tcp]="self,vader,tcp" [rwv]="self,vader,rwv" [rwv_large]="self,vader,rwv --mca btl_rwv_hot_peers -1")
order=(tcp rwv rwv_large)
[ "$np" -le 64 ] || order=(tcp rwv)

# key -> value lines of one run; "bad_bytes failed" if it did not run
run () { # np contender
    local out start=$(date +%s.%N)
    out=$(cluster_mpirun -np "$1" --map-by node --oversubscribe --mca mpi_yield_when_idle 1 --mca btl ${btls[$2]} \
          "$bin" 2>&1 < /dev/null) || { echo "bad_bytes failed"; echo "$out" | tail -3 >&2; return; }
    echo "$out" | grep -E '^(exchange_us|bad_bytes|rss_kib|ring_bytes|hot_peers|latency_us|progress_ns) '
    echo "wall_s $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')"
}


bench_progress "== $nodes nodes x $per_node ranks"
cluster_up "$nodes" 1 > /dev/null || exit 1
declare -A big small
for c in "${order[@]}"; do
    bench_progress "   $c, $np ranks"
    big[$c]=$(run "$np" "$c")
    bench_progress "   $c, 2 ranks"
    small[$c]=$(run 2 "$c")
done
cluster_down

mib () { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
echo "## $np ranks ($nodes nodes x $per_node), everyone connected to everyone (vader on the node)"
echo
echo "| btl | bytes wrong | job wall time, $np ranks (s) | peak RSS per rank, max / mean (MiB) | eager rings per rank, max (MiB) | hot peers | all pairs: connect (1 B) / 1 KiB / 48 KiB / 1 MiB (ms) | idle progress call, $np / 2 ranks (ns) | hot pair 1 B latency, $np ranks (us) | same, 2 ranks (us) | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for c in "${order[@]}"; do
    b=${big[$c]}
    rss_max=$(echo "$b" | awk '$1 == "rss_kib" {print $2}')
    rss_mean=$(echo "$b" | awk '$1 == "rss_kib" {print $3}')
    ring=$(echo "$b" | awk '$1 == "ring_bytes" {printf "%.2f", $2 / 1048576}')
    hot=$(echo "$b" | awk '$1 == "hot_peers" {print $2}')
    ex=$(echo "$b" | awk '$1 == "exchange_us" {printf "%s%.1f", (n++ ? " / " : ""), $3 / 1000}')
    lat=$(echo "$b" | awk '$1 == "latency_us" {print $2}')
    lat2=$(echo "${small[$c]}" | awk '$1 == "latency_us" {print $2}')
    prog=$(echo "$b" | awk '$1 == "progress_ns" {print $2}')
    prog2=$(echo "${small[$c]}" | awk '$1 == "progress_ns" {print $2}')
    wall=$(echo "$b" | awk '$1 == "wall_s" {printf "%.1f", $2}')
    echo "| ${btls[$c]} | $(echo "$b" | awk '$1 == "bad_bytes" {print $2}') | ${wall:-failed} | $(mib "${rss_max:-0}") / $(mib "${rss_mean:-0}") |" \
         "${ring:-0} | ${hot:-0} | ${ex:-failed} | ${prog:-failed} / ${prog2:-failed} | ${lat:-failed} | ${lat2:-failed} | $(bench_ratio "${lat:-0}" "${lat2:-0}") |"
done
