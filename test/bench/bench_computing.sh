#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Computing peers: what a rank that computes, with no MPI call, costs the
# rank working with it, between 2 emulated nodes, in the same run.
#  - one-sided (test_computing_peer -m onesided): the origin's 100
#    fetch-and-ops, compare-and-swap, put and get of 1 MiB and accumulate,
#    each flushed, against a target waiting in MPI and against one
#    computing 2 s; over rwv with btl_rwv_async_progress 1 (the default)
#    and 0 (stock Open MPI 4.1 has no one-sided path between nodes);
#  - rendezvous, both ways (-m rendezvous: the sender computes; -m
#    receiver, under MPI_THREAD_MULTIPLE: the receiver computes): 8 MiB,
#    the computing side posts, computes for 3 times the idle transfer
#    time, then calls MPI_Wait; its availability, 1 - (time left in
#    MPI_Wait) / (idle transfer time), as Sandia's SMB defines it; over
#    rwv on and off, btl/tcp, and btl/tcp with its progress thread;
#  - truly passive put (test/bench/bench_passive_put, IMB-RMA's
#    Truly_passive_put by its definition): per size, put + flush +
#    barrier against a target in the barrier (t_pure) and against one
#    that computes t_pure's worth before it (t_ovrl);
#  - what serving costs the computing rank (-m stream): the same work
#    quiet and while a peer streams fetch-and-ops at it;
#  - what the thread costs a rank that sits in MPI: ping-pong latency and
#    streaming bandwidth (test/bench/bench_pingpong) with it on and off,
#    rounds interleaved.
# Medians of ROUNDS.
#   test/bench/bench_computing.sh ROUNDS OUTDIR
set -u
. "$(dirname "$0")/bench_lib.sh"
bin=$build/test/mpi/test_computing_peer
rounds=$1 out=$2
mkdir -p "$out"

if ! cluster_check_privileges 2>/dev/null; then
    echo "Computing peers skipped: network namespaces need root."
    exit 0
fi
export RWV_CLUSTER=rwvcb
cluster_up 2 1 > /dev/null || exit 1
trap 'cluster_down; rm -f "$out/done"' EXIT

run () { # args... ; prints the program's "#" lines
    cluster_mpirun -np 2 --map-by node "$@" 2>/dev/null | grep '^# '
}

# The command that runs the rest pinned to the core of its rank's number:
# with --map-by node, rank 0 (node 1) on core 0 and rank 1 (node 2) on
# core 1.  One application context: Open MPI 5.0.7's mpirun crashes on
# a command line of several (`-np 1 --host A prog : -np 1 --host B prog`)
# on the emulated cluster.
pin_by_rank=(bash -c 'exec taskset -c "${OMPI_COMM_WORLD_RANK:?}" "$0" "$@"')

# the origin's time, s: idle or busy, then mca args; ONE_CORE_EACH=1 pins
# each emulated node to its own core, as real nodes have their own: else
# the target's serving thread may take the origin's core from it
osc_time () {
    local how=$1 idle= pin=()
    shift
    [ "$how" = idle ] && idle=-i
    [ "${ONE_CORE_EACH:-0}" = 1 ] && pin=("${pin_by_rank[@]}")
    run "$@" "${pin[@]}" "$bin" -m onesided -t 2 $idle | sed -n "s/^# origin's operations took \([0-9.]*\) s.*/\1/p"
}

# the time in MPI_Wait, s, of the side that computed SECONDS
rndv_wait () { # mode seconds [-T] mca-args...
    local mode=$1 seconds=$2 thread=
    shift 2
    [ "$1" = -T ] && { thread=-T; shift; }
    run "$@" "$bin" -m "$mode" $thread -t "$seconds" -f "$out/done" | sed -n 's/.*MPI_Wait, which took \([0-9.]*\) s/\1/p'
}

median_of () { # command... run ROUNDS times
    local r
    for ((r = 0; r < rounds; r++)); do "$@"; done | bench_median
}

# "NAME|MCA ARGS[|PINNED]" into name, args and pinned (1: each node on its own core)
split_contender () {
    local rest=${1#*|}
    name=${1%%|*}
    pinned=0
    [ "$rest" != "${rest%|*}" ] && pinned=${rest##*|} rest=${rest%|*}
    read -r -a args <<< "$rest"
}

echo "## Computing peers: a rank that computes holds its peers back? (2 nodes, 1 rail)"
echo
contenders=("rwv (default: btl_rwv_async_progress 1)|--mca btl self,rwv" "rwv, btl_rwv_async_progress 0|--mca btl self,rwv --mca btl_rwv_async_progress 0"
            "btl/tcp|--mca btl self,tcp" "btl/tcp, btl_tcp_progress_thread 1|--mca btl self,tcp --mca btl_tcp_progress_thread 1")

echo "| one-sided to a target | waiting in MPI, s | computing 2 s, s | computing vs waiting |"
echo "|---|---:|---:|---:|"
# the last row: the origin yields its core while it waits, as a rank
# sharing cores should (a computing target, its thread and a spinning
# origin are three on this machine's two cores)
for contender in "${contenders[@]}" "rwv, mpi_yield_when_idle 1|--mca btl self,rwv --mca mpi_yield_when_idle 1" \
                  "rwv, each node on its own core|--mca btl self,rwv|1"; do
    split_contender "$contender"
    bench_progress "computing peers: one-sided, $name"
    export ONE_CORE_EACH=$pinned
    idle=$(median_of osc_time idle "${args[@]}")
    if [ "$idle" = failed ]; then
        echo "| $name | no path | no path | - |"
        continue
    fi
    busy=$(median_of osc_time busy "${args[@]}")
    echo "| $name | $idle | $busy | $(bench_ratio "$busy" "$idle") |"
done
unset ONE_CORE_EACH
echo
echo "The origin's 100 MPI_Fetch_and_op, a compare-and-swap, a 1 MiB put and get and a 4096-int accumulate, each"
echo "flushed (test/mpi/test_computing_peer). \"no path\": the job fails (stock Open MPI 4.1 has no one-sided path"
echo "between nodes; 5.0 and later emulate one over btl/tcp with osc/rdma's active messages). mpi_yield_when_idle:"
echo "every rank yields its core while it waits in MPI. Each node on its own core: origin pinned to core 0, target"
echo "and its thread to core 1 (taskset), as on separate machines; unpinned, the target's thread may run on the"
echo "origin's core and take turns with the origin's spinning rank at every message."
echo

# "size t_pure t_ovrl" lines (us) of one job; PINNED 1: each node on its own core
passive_sizes=(0 8 512 4096 32768 262144 1048576 4194304)
passive_job () { # pinned mca-args...
    local pin=()
    [ "$1" = 1 ] && pin=("${pin_by_rank[@]}")
    shift
    cluster_mpirun -np 2 --map-by node "$@" "${pin[@]}" "$build/test/bench/bench_passive_put" "${passive_sizes[@]}" 2>/dev/null |
        awk '/^[0-9]/ {print $1, $3, $4}'
}

passive_table () {
    local contender name cells=() header="| size" rule="|---" size c
    if [ ! -x "$build/test/bench/bench_passive_put" ]; then
        echo "Truly passive put: skipped, this build has no test/bench/bench_passive_put."
        echo
        return
    fi
    for contender in "rwv (default)|--mca btl self,rwv" "rwv, each node on its own core|--mca btl self,rwv|1" \
                     "rwv, btl_rwv_async_progress 0|--mca btl self,rwv --mca btl_rwv_async_progress 0" "btl/tcp|--mca btl self,tcp"; do
        split_contender "$contender"
        bench_progress "computing peers: truly passive put, $name"
        for ((r = 0; r < rounds; r++)); do passive_job "$pinned" "${args[@]}"; done > "$out/passive-$pinned-${#cells[@]}.txt"
        cells+=("$out/passive-$pinned-${#cells[@]}.txt")
        header+=" | $name: t_pure / t_ovrl, us | t_ovrl / t_pure"
        rule+="|---:|---:"
    done
    echo "$header |"
    echo "$rule|"
    for size in "${passive_sizes[@]}"; do
        printf '| %s' "$(bench_size "$size")"
        for c in "${cells[@]}"; do
            local pure ovrl
            pure=$(awk -v s="$size" '$1 == s {print $2}' "$c" | bench_median)
            ovrl=$(awk -v s="$size" '$1 == s {print $3}' "$c" | bench_median)
            if [ -z "$pure" ] || [ "$pure" = failed ]; then
                printf ' | no path | -'
            else
                printf ' | %s / %s | %s' "$pure" "$ovrl" "$(bench_ratio "$ovrl" "$pure")"
            fi
        done
        echo " |"
    done
    echo
    echo "Truly passive put, as IMB-RMA defines it (test/bench/bench_passive_put; IMB is not packaged in Debian): per"
    echo "iteration MPI_Put, MPI_Win_flush and MPI_Barrier, against a target waiting in the barrier (t_pure) and against"
    echo "one that first computes for t_pure (calibrated work) (t_ovrl). IMB's mark of a truly passive path is t_ovrl <="
    echo "1.2 t_pure; a target that progresses nothing while it computes gives about 2. Medians over $rounds job(s)."
    echo
}

availability_table () { # mode side [-T]
    local mode=$1 side=$2 thread=${3:-} contender name idle busy_for left avail
    echo "| rendezvous of 8 MiB, the $side computing | idle transfer, ms | left in MPI_Wait after computing 3x that, ms | the $side's availability |"
    echo "|---|---:|---:|---:|"
    for contender in "${contenders[@]}"; do
        split_contender "$contender"
        bench_progress "computing peers: rendezvous, $side computing, $name"
        idle=$(median_of rndv_wait "$mode" 0 $thread "${args[@]}")
        busy_for=$(awk -v t="$idle" 'BEGIN {t = 3 * t; printf "%.4f", t < 0.05 ? 0.05 : t}')
        left=$(median_of rndv_wait "$mode" "$busy_for" $thread "${args[@]}")
        avail=$(awk -v i="$idle" -v l="$left" 'BEGIN {if (i + 0 <= 0 || l == "" || l == "failed") print "-"; else {a = 1 - l / i; printf "%.2f", a < 0 ? 0 : a}}')
        echo "| $name | $(awk -v t="$idle" 'BEGIN {printf "%.2f", t * 1000}') | $(awk -v t="$left" 'BEGIN {printf "%.2f", t * 1000}') | $avail |"
    done
    echo
}

passive_table
availability_table rendezvous sender
availability_table receiver receiver -T
echo "Availability 1.00: the message moved while that rank computed; 0.00: it waited for MPI_Wait. The receiver's"
echo "table runs under MPI_THREAD_MULTIPLE, where rwv's thread may deliver to ob1; below it, a receiver that"
echo "computes waits for its next MPI call with every BTL but btl/tcp's progress thread."
echo

# "quiet busy served" of -m stream
stream_cost () { # mca-args...
    run "$@" "$bin" -m stream -t 1 |
        sed -n 's/^# stream: the target.s work took \([0-9.]*\) s quiet and \([0-9.]*\) s while \([0-9]*\) .*/\1 \2 \3/p'
}

echo "| a rank computing 1 s while its peer streams fetch-and-ops at it | work quiet, s | work while streamed, s | compute lost | operations served meanwhile |"
echo "|---|---:|---:|---:|---:|"
for contender in "rwv (default)|--mca btl self,rwv" "rwv, btl_rwv_async_progress 0|--mca btl self,rwv --mca btl_rwv_async_progress 0"; do
    split_contender "$contender"
    bench_progress "computing peers: stream, $name"
    for ((r = 0; r < rounds; r++)); do stream_cost "${args[@]}"; done > "$out/stream.txt"
    quiet=$(awk '{print $1}' "$out/stream.txt" | bench_median) busy=$(awk '{print $2}' "$out/stream.txt" | bench_median)
    served=$(awk '{print $3}' "$out/stream.txt" | bench_median)
    echo "| $name | $quiet | $busy | $(awk -v q="$quiet" -v b="$busy" 'BEGIN {if (q + 0 <= 0) print "-"; else printf "%.1f%%", 100 * (b - q) / q}') | $served |"
done
echo
echo "The same work, timed on the computing rank (test_computing_peer -m stream); this machine's 2 cores also run"
echo "the streaming rank, so part of the loss is the cores' sharing, not the thread."
echo

# what the thread costs a rank that sits in MPI: "size latency bandwidth" per line
pingpong () { # mca-args...
    cluster_mpirun -np 2 --map-by node "$@" "$build/test/bench/bench_pingpong" -r 3 1 8192 32768 8388608 2>/dev/null |
        awk '/^[0-9]/ {print $1, $2, $3}'
}

if [ ! -x "$build/test/bench/bench_pingpong" ]; then
    echo "The thread's cost in MPI: skipped, this build has no test/bench/bench_pingpong (a Debian root builds"
    echo "only the core programs)."
    exit 0
fi
# at least 4 rounds: single ping-pong jobs here move by 20-30%
cost_rounds=$((rounds < 4 ? 4 : rounds))
bench_progress "computing peers: the thread's cost in MPI"
for ((r = 0; r < cost_rounds; r++)); do
    pingpong --mca btl self,rwv | sed 's/^/on /'
    pingpong --mca btl self,rwv --mca btl_rwv_async_progress 0 | sed 's/^/off /'
done > "$out/thread-cost.txt"
echo "| a rank in MPI: rwv with the thread serving (default) against without | latency on, us | off | bandwidth on, MB/s | off |"
echo "|---|---:|---:|---:|---:|"
for size in 1 8192 32768 8388608; do
    cell () { awk -v s="$size" -v w="$1" -v c="$2" '$1 == w && $2 == s {print $c}' "$out/thread-cost.txt" | bench_median; }
    echo "| $(bench_size "$size") | $(cell on 3) | $(cell off 3) | $(cell on 4) | $(cell off 4) |"
done
echo
echo "test/bench/bench_pingpong between the 2 nodes, medians of 3 inside each job and of $cost_rounds interleaved jobs."
