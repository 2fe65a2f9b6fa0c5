#!/usr/bin/env bash
# btl/rwv against btl/tcp and the raw transport on one emulated link
# (2 nodes, 1 rail), everything in the same run, contenders interleaved in
# each round, medians over rounds.  Prints a markdown table with ratios.
#   test/bench/bench_rwv.sh [ROUNDS]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/_build/test/bench
rounds=${1:-3}
export OMPI_MCA_mca_base_component_path="SYS_DEFAULT:$top/_build/inst/lib/openmpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$top/test/cluster/cluster.sh"
cluster_up 2 1 || exit $?
server=$(cluster_addr 2 1)
n1=$(cluster_node_name 1)
n2=$(cluster_node_name 2)
sizes="1 1048576 4194304 16777216"
results=$(mktemp)
trap 'rm -f "$results"; cluster_down' EXIT

median () { sort -g | awk '{v[NR]=$1} END {if (NR) print (NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

for ((r = 1; r <= rounds; r++)); do
    echo "# round $r of $rounds" >&2
    ip netns exec "$n2" fi_pingpong -e msg -p tcp -S 1 -I 20000 >/dev/null 2>&1 &
    sleep 0.5
    ip netns exec "$n1" timeout 60 fi_pingpong -e msg -p tcp -S 1 -I 20000 "$server" 2>/dev/null |
        awk '$1 == 1 {print "raw lat1", $7}' >> "$results"
    wait

    ip netns exec "$n2" timeout 120 "$bin/bench_fi_rma_bw" -s "$server" >/dev/null 2>&1 &
    sleep 0.5
    ip netns exec "$n1" timeout 120 "$bin/bench_fi_rma_bw" -c "$server" -r 3 1048576 4194304 16777216 |
        awk '!/^#/ {print "raw bw" $1, $2}' >> "$results"
    wait

    for btl in tcp rwv; do
        cluster_mpirun -np 2 --map-by node --mca btl self,$btl --mca rcache_regcache_print_stats 1 \
            "$bin/bench_pingpong" -r 3 $sizes > "$results.$btl" 2>&1
        awk -v b=$btl '$1 == 1 {print b, "lat1", $2} $1 > 1 && /^[0-9]/ {print b, "bw" $1, $3}' "$results.$btl" >> "$results"
        grep -h 'rcache/regcache (btl/rwv) stats' "$results.$btl" | tail -1 > "$results.stats.$btl"
    done
done

value () { # contender metric
    awk -v c="$1" -v m="$2" '$1 == c && $2 == m {print $3}' "$results" | median
}
ratio () { awk -v a="$1" -v b="$2" 'BEGIN {if (a > 0 && b > 0) printf "%.2fx", a / b; else print "n/a"}'; }

echo "## btl/rwv on one emulated link (2 nodes, 1 rail, kernel TCP underneath)"
echo
echo "| metric | raw libfabric | btl/tcp | btl/rwv | rwv vs tcp | rwv vs raw |"
echo "|---|---:|---:|---:|---:|---:|"
raw=$(value raw lat1); tcp=$(value tcp lat1); rwv=$(value rwv lat1)
echo "| 1-byte latency, us (lower is better) | $raw (fi_pingpong) | $tcp | $rwv | $(ratio "$rwv" "$tcp") | $(ratio "$rwv" "$raw") |"
for s in 1048576 4194304 16777216; do
    raw=$(value raw "bw$s"); tcp=$(value tcp "bw$s"); rwv=$(value rwv "bw$s")
    echo "| bandwidth at $((s / 1048576)) MiB, MB/s (higher is better) | $raw (fi_write) | $tcp | $rwv | $(ratio "$rwv" "$tcp") | $(ratio "$rwv" "$raw") |"
done
echo
echo "Medians of $rounds rounds; in each round every contender runs once, in turn."
echo "Raw latency is fi_pingpong -e msg over the same rail; raw bandwidth is"
echo "test/bench/bench_fi_rma_bw (fi_write, window 16), both from the same nodes."
echo "MPI figures from test/bench/bench_pingpong (window 16), --bind-to none."
stats=$(cat "$results.stats.rwv" 2>/dev/null | sed 's/.*stats: //')
[ -n "$stats" ] && echo "Registration cache of btl/rwv in the last round (one rank): $stats"
rm -f "$results".*
