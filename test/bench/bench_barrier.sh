#!/usr/bin/env bash
# MPI_Barrier time: coll/rdmabar against coll/tuned (its default choice and
# its best forced algorithm), coll/han and, on one node, coll/sm, on one
# node and on emulated nodes, over btl/rwv and btl/tcp, all in the same
# run.  Layouts with more ranks than cores use mpi_yield_when_idle for
# every contender alike.  Prints a markdown table of medians (us) and
# ratios; lower is better.
#   test/bench/bench_barrier.sh [BARRIERS]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/_build/test/bench/bench_barrier
n=${1:-3000}
export OMPI_MCA_mca_base_component_path="SYS_DEFAULT:$top/_build/inst/lib/openmpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$top/test/cluster/cluster.sh"

tuned="--mca coll ^rdmabar"
forced="$tuned --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_barrier_algorithm"
algorithms=(ignore linear double_ring recursive_doubling bruck two_proc tree)

# one contender: prints its median time or "failed"
measure () { # launcher np extra-args...
    local launcher=$1 np=$2 t
    shift 2
    t=$($launcher -np "$np" "$@" "$bin" -n "$n" -r 5 2>/dev/null | awk 'NF == 2 {print $2}')
    echo "${t:-failed}"
}
local_mpirun () { mpirun --bind-to none "$@"; }
ratio () { awk -v a="$1" -v b="$2" 'BEGIN {if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else print "-"}'; }

# the best of tuned's forced algorithms: "time (name)"
best_forced () { # launcher np args...
    local launcher=$1 np=$2 best="" name="" t
    shift 2
    for alg in 1 2 3 4 5 6; do
        [ "$alg" -eq 5 ] && [ "$np" -ne 2 ] && continue   # two_proc: 2 ranks only
        t=$(measure "$launcher" "$np" "$@" $forced "$alg")
        [ "$t" = failed ] && continue
        if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN {exit !(a < b)}'; then
            best=$t name=${algorithms[$alg]}
        fi
    done
    echo "${best:-failed} ($name)"
}

echo "## MPI_Barrier time, us per barrier (median of 5 x $n barriers; lower is better)"
echo
echo "| layout | btl | rdmabar | tuned (default) | tuned, best forced | han | sm | rdmabar vs tuned | vs best forced | vs han | vs sm |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"

# one node, 2 ranks: shared memory only
r=$(measure local_mpirun 2)
t=$(measure local_mpirun 2 $tuned)
read -r b bname < <(best_forced local_mpirun 2)
s=$(measure local_mpirun 2 $tuned --mca coll_sm_priority 60)
echo "| 1 node x 2 | vader | $r | $t | $b $bname | - | $s | $(ratio "$r" "$t") | $(ratio "$r" "$b") | - | $(ratio "$r" "$s") |"

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
    echo "# $nodes nodes x $ppn ranks" >&2
    cluster_up "$nodes" 1 >/dev/null || exit 1
    for btl in rwv tcp; do
        common="--map-by node --mca btl self,vader,$btl $yield"
        r=$(measure cluster_mpirun "$np" $common)
        t=$(measure cluster_mpirun "$np" $common $tuned)
        read -r b bname < <(best_forced cluster_mpirun "$np" $common)
        h=$(measure cluster_mpirun "$np" $common $tuned --mca coll_han_priority 100)
        echo "| $nodes nodes x $ppn${yield:+ (yield)} | $btl | $r | $t | $b $bname | $h | - |" \
             "$(ratio "$r" "$t") | $(ratio "$r" "$b") | $(ratio "$r" "$h") | - |"
    done
    cluster_down
done
echo
echo "rdmabar: node leaders exchange RDMA-written flags over the named BTL; tuned, han: messages over it."
echo "'best forced' is the fastest of coll_tuned_barrier_algorithm 1-6 in this run."
