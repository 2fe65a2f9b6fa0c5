#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves the benchmark scripts report honestly: a contender that fails (the
# stock one-sided paths across nodes) shows up as failed with its error
# while the run goes on, and rwv's one-sided rows are complete; without the privileges for namespaces the
# multi-node rows say why they were skipped and the single-node rows still
# run; a real short point-to-point run gives numbers for every contender
# and the plots come out as PNG files.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bench=$top/test/bench
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
num='[0-9][0-9.]*'

out=$("$bench/bench_onesided.sh" "$work/osc" 2>/dev/null)
cells="$num | $num | $num | $num | $num | $num | $num | $num |"
if echo "$out" | grep -q "^| one node, --mca btl self,rwv | MPI_Win_allocate | $cells" &&
   echo "$out" | grep -q '^| 2 nodes, --mca btl self,tcp (stock) | MPI_Win_allocate | .* | failed: MPI_Win_allocate: MPI_ERR_WIN' &&
   echo "$out" | grep -q '^| 2 nodes, btl/ofi (stock) | MPI_Win_allocate | .* | failed: fi_fetch_atomic failed' &&
   echo "$out" | grep -q "^| 2 nodes, --mca btl self,rwv | MPI_Win_allocate | $cells" &&
   echo "$out" | grep -q "^| 2 nodes, --mca btl self,rwv | MPI_Win_create | $cells"; then
    echo "ok - one-sided benchmark: the failing stock paths are shown with their errors, rwv fills every cell on 1 and 2 nodes"
else
    echo "not ok - one-sided benchmark table:"; echo "$out" | grep '^|' | sed 's/^/#   /'
fi

mkdir -m 777 "$work/nobody"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$work/nobody" \
      "$bench/bench_onesided.sh" "$work/nobody/osc" 2>/dev/null)
if echo "$out" | grep -q "^| one node, --mca btl self,vader (stock) | MPI_Win_allocate | $num | $num |" &&
   echo "$out" | grep -q "^| 2 nodes | | skipped: network namespaces need root"; then
    echo "ok - without root the multi-node rows say why they were skipped and the single-node rows run"
else
    echo "not ok - unprivileged run:"; echo "$out" | tail -8 | sed 's/^/#   /'
fi

out=$("$bench/bench_p2p.sh" 1 "$work/p2p" 1 32768 2>/dev/null)
rows=$(echo "$out" | grep -c "^| \(latency\|bandwidth\|bidirectional\) .* | $num | $num |")
if [ "$rows" -ge 6 ] && ! echo "$out" | grep -q 'failed'; then
    echo "ok - a short point-to-point run gives a number for every contender on one node and on 2 nodes ($rows rows)"
else
    echo "not ok - point-to-point tables ($rows full rows):"; echo "$out" | grep '^|' | sed 's/^/#   /'
fi
(cd "$work/p2p" && "$bench/bench_plots.sh" . > /dev/null)
for png in p2p-throughput p2p-latency; do
    if [ "$(head -c 4 "$work/p2p/$png.png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; then
        echo "ok - $png.png is drawn from the run's data"
    else
        echo "not ok - $png.png missing or not a PNG"
    fi
done
