#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Computing peers: what a rank that computes, with no MPI call, costs the
# rank working with it, between 2 emulated nodes, in the same run.
#  - one-sided (test_computing_peer -m onesided): the origin's 100
#    fetch-and-ops, compare-and-swap, put and get of 1 MiB and accumulate,
#    each flushed, against a target waiting in MPI and against one
#    computing 2 s; over rwv with btl_rwv_async_progress 1 and 0 (stock
#    Open MPI 4.1 has no one-sided path between nodes);
#  - rendezvous (-m rendezvous): 8 MiB MPI_Isend, then compute for 3
#    times the idle transfer time, then MPI_Wait; the sender's
#    availability, 1 - (time left in MPI_Wait) / (idle transfer time), as
#    Sandia's SMB defines it; over rwv on and off, btl/tcp, and btl/tcp
#    with its progress thread.
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

# the origin's time, s: idle or busy, then mca args
osc_time () {
    local how=$1
    shift
    run "$@" "$bin" -m onesided -t 2 $([ "$how" = idle ] && echo -i) |
        sed -n "s/^# origin's operations took \([0-9.]*\) s.*/\1/p"
}

# the time in MPI_Wait, s, after computing SECONDS
rndv_wait () {
    local seconds=$1
    shift
    run "$@" "$bin" -m rendezvous -t "$seconds" -f "$out/done" | sed -n 's/.*MPI_Wait, which took \([0-9.]*\) s/\1/p'
}

median_of () { # command... run ROUNDS times
    local r
    for ((r = 0; r < rounds; r++)); do "$@"; done | bench_median
}

echo "## Computing peers: a rank that computes holds its peers back? (2 nodes, 1 rail)"
echo
echo "| one-sided to a target | rwv, btl_rwv_async_progress 1 | rwv (default: 0) |"
echo "|---|---:|---:|"
bench_progress "computing peers: one-sided"
idle_on=$(median_of osc_time idle --mca btl self,rwv --mca btl_rwv_async_progress 1)
idle_off=$(median_of osc_time idle --mca btl self,rwv --mca btl_rwv_async_progress 0)
busy_on=$(median_of osc_time busy --mca btl self,rwv --mca btl_rwv_async_progress 1)
busy_off=$(median_of osc_time busy --mca btl self,rwv --mca btl_rwv_async_progress 0)
echo "| waiting in MPI, s | $idle_on | $idle_off |"
echo "| computing 2 s, s | $busy_on | $busy_off |"
echo "| computing vs waiting | $(bench_ratio "$busy_on" "$idle_on") | $(bench_ratio "$busy_off" "$idle_off") |"
echo
echo "The origin's 100 MPI_Fetch_and_op, a compare-and-swap, a 1 MiB put and get and a 4096-int accumulate, each"
echo "flushed (test/mpi/test_computing_peer). Stock Open MPI 4.1.4 has no one-sided path between nodes."
echo
echo "| rendezvous of 8 MiB, sender computing | idle transfer, ms | left in MPI_Wait after computing 3x that, ms | sender's availability |"
echo "|---|---:|---:|---:|"
for contender in "rwv, btl_rwv_async_progress 1|--mca btl self,rwv --mca btl_rwv_async_progress 1" "rwv (default)|--mca btl self,rwv" \
                 "btl/tcp|--mca btl self,tcp" "btl/tcp, btl_tcp_progress_thread 1|--mca btl self,tcp --mca btl_tcp_progress_thread 1"; do
    name=${contender%%|*}
    read -r -a args <<< "${contender#*|}"
    bench_progress "computing peers: rendezvous, $name"
    idle=$(median_of rndv_wait 0 "${args[@]}")
    busy_for=$(awk -v t="$idle" 'BEGIN {t = 3 * t; printf "%.4f", t < 0.05 ? 0.05 : t}')
    left=$(median_of rndv_wait "$busy_for" "${args[@]}")
    avail=$(awk -v i="$idle" -v l="$left" 'BEGIN {if (i + 0 <= 0 || l == "" || l == "failed") print "-"; else {a = 1 - l / i; printf "%.2f", a < 0 ? 0 : a}}')
    echo "| $name | $(awk -v t="$idle" 'BEGIN {printf "%.2f", t * 1000}') | $(awk -v t="$left" 'BEGIN {printf "%.2f", t * 1000}') | $avail |"
done
echo
echo "Availability 1.00: the message left while the sender computed; 0.00: it waited for MPI_Wait. rwv's thread"
echo "serves only what needs no call into the MPI library (a receiver that computes still waits for its next call)."
