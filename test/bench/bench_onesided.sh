#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# MPI one-sided (osc/rdma) over the BTLs: put and get latency and
# bandwidth, MPI_Fetch_and_op and MPI_Compare_and_swap latency,
# MPI_Accumulate bandwidth (SUM of 1 MiB of ints, flushed each time), next to
# two-sided ping-pong, on one node and between 2 emulated nodes, in the
# same run.  Where a stock Open MPI path cannot give a window or crashes,
# the first cell it could not fill says so, with its error.
#   test/bench/bench_onesided.sh OUTDIR
set -u
. "$(dirname "$0")/bench_lib.sh"
bin=$build/test/bench
out=$1
mkdir -p "$out"
# libfabric 1.17's btl/ofi: only the net provider matches, and ob1 needs btl_ofi_mode 2
ofi_args="--mca btl self,ofi --mca btl_ofi_mode 2 --mca btl_ofi_provider_include net"

# Why a run ended early: a crash names its signal and the function it died
# in, a libfabric call its error.
osc_failure () { # errfile outfile
    local sig fn
    sig=$(grep -m1 -o 'Signal: [^(]*' "$1" | sed 's/ *$//')
    if [ -n "$sig" ]; then
        fn=$(grep -m1 -o '(mca_btl_[a-z_0-9]*' "$1" | tr -d '(')
        echo "$sig${fn:+ in $fn}"
    elif grep -q -m1 '\] fi_[a-z_]* failed' "$1"; then
        grep -m1 -o 'fi_[a-z_]* failed with .*)' "$1"
    else
        bench_failure "$1" "$2"
    fi
}

row () { # label window(allocate|create) launcher args...
    local label=$1 flavor=$2 launcher=$3 raw=$out/raw-osc-$(echo "$1 $2" | tr -c 'a-z0-9' '_') pp create=
    shift 3
    [ "$flavor" = create ] && create=-c
    bench_progress "one-sided: $label, $flavor"
    pp=$($launcher -np 2 "$@" "$bin/bench_pingpong" -r 3 8 2>/dev/null | awk '$1 == 8 {print $2}')
    $launcher -np 2 --timeout 120 "$@" "$bin/bench_osc" $create -r 3 8 1048576 > "$raw.out" 2> "$raw.err"
    # the cells the run filled, then its error in the first one it did not
    awk -v l="$label" -v w="MPI_Win_$flavor" -v pp="${pp:--}" -v rc=$? -v why="$(osc_failure "$raw.err" "$raw.out")" '
        $1 == 8 {c[1] = $2; c[2] = $3} $1 == 1048576 {c[3] = $4; c[4] = $5}
        $1 == "fop_us" {c[5] = $2; c[6] = $3} $1 == "cas_us" {c[7] = $2} $1 == "acc_MBps" {c[8] = $3}
        /ERROR/ {bad = 1}
        END {
            line = "| " l " | " w " | " pp
            for (i = 1; i <= 8; ++i) {
                if (i in c && !bad) { line = line " | " c[i]; continue }
                line = line " | failed: " why
                for (i++; i <= 8; ++i) line = line " |"
            }
            print line " |"
        }' "$raw.out"
}

echo "## MPI one-sided (osc/rdma) next to two-sided ping-pong"
echo
echo "| path | window | ping-pong 8 B, us | MPI_Put 8 B + flush, us | MPI_Get 8 B + flush, us | MPI_Put 1 MiB, MB/s | MPI_Get 1 MiB, MB/s | MPI_Fetch_and_op in lock_all, us | MPI_Fetch_and_op in exclusive lock, us | MPI_Compare_and_swap, us | MPI_Accumulate 1 MiB, MB/s |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
row "one node, --mca btl self,vader (stock)" allocate local_mpirun --mca btl self,vader
row "one node, --mca btl self,vader (stock)" create local_mpirun --mca btl self,vader
row "one node, --mca btl self,rwv" allocate local_mpirun --mca btl self,rwv
row "one node, --mca btl self,vader,rwv" create local_mpirun --mca btl self,vader,rwv
if cluster_check_privileges 2>/dev/null; then
    cluster_up 2 1 > /dev/null || exit 1
    row "2 nodes, --mca btl self,tcp (stock)" allocate cluster_mpirun --map-by node --mca btl self,tcp
    row "2 nodes, btl/ofi (stock)" allocate cluster_mpirun --map-by node $ofi_args
    row "2 nodes, --mca btl self,rwv" allocate cluster_mpirun --map-by node --mca btl self,rwv
    row "2 nodes, --mca btl self,rwv" create cluster_mpirun --map-by node --mca btl self,rwv
    cluster_down
else
    echo "| 2 nodes | | skipped: network namespaces need root | | | | | | | | |"
fi
echo
echo "Debian's Open MPI excludes osc/pt2pt, so osc/rdma is the only one-sided path across nodes, and it"
echo "needs one BTL with put, get and fetching atomics reaching every rank: btl/tcp has no atomics, and"
echo "btl/ofi's need the provider's, which libfabric's net and tcp providers lack. btl/rwv emulates"
echo "them at the target. In a lock_all epoch Open MPI 4.1.4's osc/rdma takes the target's accumulate"
echo "lock around every MPI_Fetch_and_op (three network atomics); in an exclusive epoch it is one."
echo "osc/rdma splits an MPI_Accumulate larger than osc_rdma_buffer_size / 8 into get-op-put rounds of"
echo "that size, each a round trip, whatever the BTL: 4 KiB with Open MPI's default, 128 KiB where rwv"
echo "is loaded (btl_rwv_osc_buffer_size sets osc_rdma_buffer_size to 1 MiB; stock rows keep 32 KiB)."
