#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# NetPIPE (Debian's netpipe-openmpi, the seed thesis' own tool) between 2
# emulated nodes over btl/rwv and btl/tcp: throughput for every size, kept
# for the throughput and signature graphs.
#   test/bench/bench_netpipe.sh OUTDIR UPPER_BYTES [NPopenmpi options, e.g. -p 0: no perturbations]
# writes OUTDIR/netpipe-<btl>.dat (bytes Mbps seconds) and prints a table.
set -u
. "$(dirname "$0")/bench_lib.sh"
out=$1 upper=$2
shift 2
np_options="$*"
mkdir -p "$out"

echo "## NetPIPE between 2 emulated nodes, 1 rail"
echo
if ! command -v NPopenmpi > /dev/null; then
    echo "Skipped: NPopenmpi is missing (apt-get install netpipe-openmpi)."
    exit 0
fi
if ! cluster_check_privileges 2>/dev/null; then
    echo "Skipped: network namespaces need root (run ./quickstart.sh as root)."
    exit 0
fi
cluster_up 2 1 > /dev/null || exit 1
for btl in tcp rwv; do
    bench_progress "NetPIPE over btl/$btl, up to $(bench_size "$upper")"
    # the output file is written on the node that runs rank 0, which shares this file system
    rm -f "$out/netpipe-$btl.dat"
    cluster_mpirun -np 2 --map-by node --mca btl self,$btl NPopenmpi $np_options -u "$upper" -o "$out/netpipe-$btl.dat" \
        > "$out/raw-netpipe-$btl.out" 2>&1 || echo "btl/$btl: NetPIPE failed: $(bench_failure /dev/null "$out/raw-netpipe-$btl.out")"
done
cluster_down
peak () { sort -g -k2 "$out/netpipe-$1.dat" 2>/dev/null | tail -n1 | awk '{printf "%.0f Mb/s at %s bytes", $2, $1}'; }
latency () { sort -g -k1 "$out/netpipe-$1.dat" 2>/dev/null | head -n1 | awk '{printf "%.2f us", $3 * 1e6}'; }
echo "| btl | smallest-message time | peak throughput |"
echo "|---|---:|---:|"
for btl in tcp rwv; do
    echo "| $btl | $(latency "$btl") | $(peak "$btl") |"
done
echo
echo "NetPIPE times a ping-pong of each size${np_options:+ (options: $np_options)}; its time column is one way."
