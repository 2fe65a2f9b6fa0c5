#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# MPI_Barrier as the number of nodes grows: 1 rank on each of 4, 8 and 16
# emulated nodes over btl/rwv, coll/rdmabar with each of its algorithms
# among the node leaders against coll/tuned (its default choice and its
# best forced algorithm), all in one run; the data behind
# coll_rdmabar_algorithm's auto choice (coll_rdmabar_rdma.c).  Every node
# is a process on the same 2 cores, so every contender runs with
# mpi_yield_when_idle.  Prints a markdown table (us per barrier, lower is
# better).
#   test/bench/bench_barrier_nodes.sh [ROUNDS [BARRIERS [NODES...]]]
set -u
. "$(dirname "$0")/bench_lib.sh"
bin=$build/test/bench/bench_barrier
rounds=${1:-1}
n=${2:-1000}
shift 2 2>/dev/null
node_counts=("${@:-4 8 16}")
[ "$#" -eq 0 ] && node_counts=(4 8 16)
rdmabar_algs=(linear recursive_doubling dissemination)
tuned_algs=(ignore linear double_ring recursive_doubling bruck two_proc tree)

cluster_check_privileges || { echo "Emulated nodes need root: skipped."; exit 0; }

# median us per barrier of one run, "failed" if it did not run
one () { # np args...
    local np=$1
    shift
    cluster_mpirun -np "$np" --map-by node --mca btl self,vader,rwv --mca mpi_yield_when_idle 1 "$@" \
        "$bin" -n "$n" -r 5 2>/dev/null < /dev/null | awk 'NF == 2 {print $2}'
}

echo "## MPI_Barrier, 1 rank per emulated node over btl/rwv, us per barrier (median of $rounds round(s), each the median of 5 x $n barriers)"
echo
echo "| nodes | rdmabar auto | rdmabar linear | rdmabar recursive doubling | rdmabar dissemination | tuned (default) | tuned, best forced | auto vs tuned | auto vs best forced |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for nodes in "${node_counts[@]}"; do
    bench_progress "== barrier on $nodes nodes"
    cluster_up "$nodes" 1 > /dev/null || exit 1
    declare -A t=()
    for ((r = 1; r <= rounds; r++)); do
        t[auto]+=" $(one "$nodes")"
        for alg in "${rdmabar_algs[@]}"; do
            t[$alg]+=" $(one "$nodes" --mca coll_rdmabar_algorithm "$alg")"
        done
        t[tuned]+=" $(one "$nodes" --mca coll ^rdmabar)"
        for a in 1 2 3 4 6; do
            t[forced$a]+=" $(one "$nodes" --mca coll ^rdmabar --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_barrier_algorithm "$a")"
        done
    done
    best=$(for a in 1 2 3 4 6; do
               m=$(echo "${t[forced$a]}" | bench_median)
               [ "$m" != failed ] && echo "$m ${tuned_algs[$a]}"
           done | sort -g | head -n1)
    auto=$(echo "${t[auto]}" | bench_median)
    tuned=$(echo "${t[tuned]}" | bench_median)
    echo "| $nodes | $auto | $(echo "${t[linear]}" | bench_median) | $(echo "${t[recursive_doubling]}" | bench_median) |" \
         "$(echo "${t[dissemination]}" | bench_median) | $tuned | ${best:-failed} | $(bench_ratio "$auto" "$tuned") |" \
         "$(bench_ratio "$auto" "${best%% *}") |"
    unset t
    cluster_down
done
