#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# MPI_Barrier time: coll/rdmabar against coll/tuned (its default choice and
# its best forced algorithm), coll/han and, on one node, the shared-memory
# barriers of the Open MPI it runs on (coll/sm up to 5.0; coll/xhc and
# coll/acoll from 6.0, where they accept the communicator), on one
# node and on emulated nodes, over btl/rwv and btl/tcp, all in the same
# run.  Each round runs every contender once, in turn; a cell is the median
# over rounds of bench_barrier's own median.  Layouts with more ranks than
# cores use mpi_yield_when_idle for every contender alike.  Prints a
# markdown table (us, lower is better) with ratios.
#   test/bench/bench_barrier.sh [ROUNDS [BARRIERS [OUTDIR]]]
# OUTDIR: also write OUTDIR/barrier.dat (layout btl rdmabar tuned best han sm xhc acoll)
set -u
. "$(dirname "$0")/bench_lib.sh"
bin=$build/test/bench/bench_barrier
rounds=${1:-1}
n=${2:-3000}
outdir=${3:-}

tuned="--mca coll ^rdmabar"
forced="$tuned --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_barrier_algorithm"
algorithms=(ignore linear double_ring recursive_doubling bruck two_proc tree)
declare -A times   # contender -> its values over rounds
# Does coll/NAME, given the top priority, really take MPI_COMM_WORLD's
# barrier on one node?  (acoll runs on AMD processors only, and a component
# that declines leaves the barrier to tuned, whose time is not its own.)
# 6.0 names each collective's component; before, trust the priority.
takes_barrier () { # name
    local out
    out=$(local_mpirun -np 2 --mca coll ^rdmabar --mca coll_"$1"_priority 60 --mca coll_base_verbose 10 \
          "$bin" -n 10 -r 1 2>&1)
    echo "$out" | grep -q 'barrier -> ' || return 0
    echo "$out" | grep -q "MPI_COMM_WORLD rank 0 barrier -> $1\$"
}
# the one-node shared-memory barriers this Open MPI has and runs here
node_colls=$(for c in sm xhc acoll; do
                 ompi_info 2>/dev/null | grep -q "MCA coll: $c " && takes_barrier "$c" && echo "$c"
             done)


# one run of one contender; a failed run adds nothing
measure () { # name launcher np args...
    local name=$1 launcher=$2 np=$3 t
    shift 3
    t=$($launcher -np "$np" "$@" "$bin" -n "$n" -r 5 2>/dev/null | awk 'NF == 2 {print $2}')
    times[$name]="${times[$name]:-} $t"
}

# every contender of one layout, ROUNDS times in turn
measure_layout () { # launcher np sm(0/1) args...
    local launcher=$1 np=$2 sm=$3
    shift 3
    times=()
    for ((r = 1; r <= rounds; r++)); do
        measure rdmabar "$launcher" "$np" "$@"
        measure tuned "$launcher" "$np" "$@" $tuned
        for alg in 1 2 3 4 5 6; do
            [ "$alg" -eq 5 ] && [ "$np" -ne 2 ] && continue   # two_proc: 2 ranks only
            measure "forced $alg" "$launcher" "$np" "$@" $forced "$alg"
        done
        if [ "$sm" = 1 ]; then
            for c in $node_colls; do
                measure "$c" "$launcher" "$np" "$@" $tuned --mca coll_${c}_priority 60
            done
        else
            measure han "$launcher" "$np" "$@" $tuned --mca coll_han_priority 100
        fi
    done
}

# "time name" of the fastest forced algorithm
best_forced () {
    local alg t
    for alg in 1 2 3 4 5 6; do
        t=$(echo "${times[forced $alg]:-}" | bench_median)
        [ "$t" != failed ] && echo "$t ${algorithms[$alg]}"
    done | sort -g | head -n1
}

# a contender's median, or - where it did not run in this layout
cell () { # contender
    if [ -z "${times[$1]:-}" ]; then echo -; else echo "${times[$1]}" | bench_median; fi
}

row () { # layout btl
    local r t h s x a b bname
    r=$(cell rdmabar) t=$(cell tuned) h=$(cell han) s=$(cell sm) x=$(cell xhc) a=$(cell acoll)
    read -r b bname < <(best_forced)
    echo "| $1 | $2 | $r | $t | ${b:-failed} (${bname:-}) | $h | $s | $x | $a | $(bench_ratio "$r" "$t") |" \
         "$(bench_ratio "$r" "${b:-}") | $(bench_ratio "$r" "$h") | $(bench_ratio "$r" "$s") | $(bench_ratio "$r" "$x") |" \
         "$(bench_ratio "$r" "$a") |"
    [ -n "$outdir" ] && echo "$1 $2 $r $t ${b:--} $h $s $x $a" | sed 's/ node[s]* x /x/; s/ (yield)//' >> "$outdir/barrier.dat"
}

echo "## MPI_Barrier time, us per barrier (median of $rounds round(s), each the median of 5 x $n barriers; lower is better)"
echo
echo "| layout | btl | rdmabar | tuned (default) | tuned, best forced | han | sm | xhc | acoll | rdmabar vs tuned | vs best forced | vs han | vs sm | vs xhc | vs acoll |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"

[ -n "$outdir" ] && mkdir -p "$outdir" && rm -f "$outdir/barrier.dat"
echo "# 1 node x 2 ranks" >&2
measure_layout local_mpirun 2 1
row "1 node x 2" vader

if ! cluster_check_privileges 2>/dev/null; then
    echo
    echo "Emulated nodes skipped: network namespaces need root (run as root for the multi-node rows)."
    exit 0
fi
for layout in "2 1" "2 2" "3 2"; do
    set -- $layout
    nodes=$1 ppn=$2 np=$(($1 * $2))
    yield=""
    [ "$np" -gt "$(nproc)" ] && yield="--mca mpi_yield_when_idle 1"
    cluster_up "$nodes" 1 >/dev/null || exit 1
    for btl in rwv tcp; do
        echo "# $nodes nodes x $ppn ranks over btl/$btl" >&2
        measure_layout cluster_mpirun "$np" 0 --map-by node --mca btl self,vader,$btl $yield
        row "$nodes nodes x $ppn${yield:+ (yield)}" "$btl"
    done
    cluster_down
done
echo
echo "rdmabar: node leaders exchange RDMA-written flags over the named BTL; tuned, han: messages over it."
echo "'best forced' is the fastest of coll_tuned_barrier_algorithm 1-6 in this run. sm, xhc, acoll: one"
echo "node only, where this Open MPI has them ($(echo $node_colls)) and they accept the communicator; '-' otherwise."
