#!/usr/bin/env bash
# MPI one-sided (osc) over the BTLs: put and get latency and bandwidth and
# MPI_Fetch_and_op latency, next to two-sided ping-pong, on one node and
# between 2 emulated nodes, in the same run.  Where the stock Open MPI path
# cannot give a window or crashes, the cell says so, with its error.
#   test/bench/bench_onesided.sh OUTDIR
set -u
. "$(dirname "$0")/bench_lib.sh"
bin=$top/_build/test/bench
out=$1
mkdir -p "$out"

row () { # label launcher args...
    local label=$1 launcher=$2 raw=$out/raw-osc-$(echo "$1" | tr -c 'a-z0-9' '_') pp
    shift 2
    bench_progress "one-sided: $label"
    pp=$($launcher -np 2 "$@" "$bin/bench_pingpong" -r 3 8 2>/dev/null | awk '$1 == 8 {print $2}')
    if $launcher -np 2 --timeout 120 "$@" "$bin/bench_osc" -r 3 8 1048576 > "$raw.out" 2> "$raw.err" &&
       grep -q '^fop_us' "$raw.out"; then
        awk -v l="$label" -v pp="${pp:--}" '$1 == 8 {pl = $2; gl = $3} $1 == 1048576 {pb = $4; gb = $5}
             $1 == "fop_us" {f = $2}
             END {printf "| %s | %s | %s | %s | %s | %s | %s |\n", l, pp, pl, gl, pb, gb, f}' "$raw.out"
    else
        echo "| $label | ${pp:--} | failed: $(bench_failure "$raw.err" "$raw.out") | | | | |"
    fi
}

echo "## MPI one-sided (passive target, lock_all) next to two-sided ping-pong"
echo
echo "| path | ping-pong 8 B, us | MPI_Put 8 B + flush, us | MPI_Get 8 B + flush, us | MPI_Put 1 MiB, MB/s | MPI_Get 1 MiB, MB/s | MPI_Fetch_and_op, us |"
echo "|---|---:|---:|---:|---:|---:|---:|"
row "one node, --mca btl self,vader (stock)" local_mpirun --mca btl self,vader
row "one node, --mca btl self,rwv" local_mpirun --mca btl self,rwv
if cluster_check_privileges 2>/dev/null; then
    cluster_up 2 1 > /dev/null || exit 1
    row "2 nodes, --mca btl self,tcp (stock)" cluster_mpirun --map-by node --mca btl self,tcp
    row "2 nodes, --mca btl self,rwv" cluster_mpirun --map-by node --mca btl self,rwv
    cluster_down
else
    echo "| 2 nodes | skipped: network namespaces need root | | | | | |"
fi
echo
echo "On one node Open MPI puts the window in shared memory (osc/sm) whatever the BTL, hence the same figures."
echo "Debian's Open MPI excludes osc/pt2pt, so across nodes osc/rdma is the only one-sided path and it"
echo "needs a BTL with put, get and atomics. btl/rwv atomics are issue 8, not built yet."
