#!/usr/bin/env bash
# Multi-rail scaling: 2 emulated nodes joined by 1, 2, ... rails, each
# limited to RATE with tbf (RATE "none": no limit), streaming bandwidth of btl/tcp (which uses every
# interface) and btl/rwv (one rail per peer until striping, issue 5, is
# built), in the same run.  Read from 1 MiB up: tbf's burst allowance
# inflates smaller sizes.
#   test/bench/bench_rails.sh OUTDIR RATE "RAIL COUNTS" SIZE...
# writes OUTDIR/rails-<btl>.dat (rails size MB/s) and prints a markdown table.
set -u
. "$(dirname "$0")/bench_lib.sh"
bin=$top/_build/test/bench
out=$1 rate=$2 rail_counts=$3
shift 3
sizes="$*"
mkdir -p "$out"
rm -f "$out"/rails-*.dat

limit="rails limited to $rate each"
[ "$rate" = none ] && rate="" limit="rails not rate-limited (the 2 cores are the limit)"
echo "## Multi-rail scaling: 2 emulated nodes, $limit (streaming bandwidth, MB/s)"
echo
if ! cluster_check_privileges 2>/dev/null; then
    echo "Skipped: network namespaces need root (run ./quickstart.sh as root)."
    exit 0
fi
for rails in $rail_counts; do
    cluster_up 2 "$rails" "$rate" > /dev/null || exit 1
    for btl in tcp rwv; do
        bench_progress "multi-rail: $rails rail(s) at ${rate:-no limit}, btl/$btl"
        if cluster_mpirun -np 2 --map-by node --mca btl self,$btl "$bin/bench_pingpong" -r 3 $sizes \
               > "$out/raw-rails-$rails-$btl.out" 2> "$out/raw-rails-$rails-$btl.err"; then
            awk -v r="$rails" '/^[0-9]/ {print r, $1, $3}' "$out/raw-rails-$rails-$btl.out" >> "$out/rails-$btl.dat"
        else
            echo "$rails failed $(bench_failure "$out/raw-rails-$rails-$btl.err" "$out/raw-rails-$rails-$btl.out")" \
                >> "$out/rails-$btl.failed"
        fi
    done
    cluster_down
done

value () { awk -v r="$2" -v s="$3" '$1 == r && $2 == s {print $3}' "$out/rails-$1.dat" 2>/dev/null; }
printf '| rails |'
for s in $sizes; do printf ' tcp %s | rwv %s |' "$(bench_size "$s")" "$(bench_size "$s")"; done
for s in $sizes; do printf ' tcp scaling %s | rwv scaling %s |' "$(bench_size "$s")" "$(bench_size "$s")"; done
echo
printf '|---:|'; for s in $sizes; do printf -- '---:|---:|---:|---:|'; done; echo
for rails in $rail_counts; do
    printf '| %s |' "$rails"
    for s in $sizes; do printf ' %s | %s |' "$(value tcp "$rails" "$s")" "$(value rwv "$rails" "$s")"; done
    first=$(echo "$rail_counts" | awk '{print $1}')
    for s in $sizes; do
        printf ' %s | %s |' "$(bench_ratio "$(value tcp "$rails" "$s")" "$(value tcp "$first" "$s")")" \
            "$(bench_ratio "$(value rwv "$rails" "$s")" "$(value rwv "$first" "$s")")"
    done
    echo
done
cat "$out"/rails-*.failed 2>/dev/null | sed 's/^/failed: /'
echo
echo "btl/tcp opens one module per interface and ob1 stripes large messages over them (messages up to"
echo "the eager limit go whole over one). btl/rwv uses one rail per peer: striping is issue 5, not built."
