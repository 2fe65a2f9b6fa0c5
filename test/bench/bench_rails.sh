#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Multi-rail scaling: 2 emulated nodes joined by 1, 2, ... rails, each
# limited to RATE with tbf (RATE "none": no limit), and 2 unequal rails
# (RATE and half of it), streaming bandwidth of btl/tcp (one module per
# interface, ob1 stripes messages above the eager limit) and btl/rwv (one
# module striping every message from btl_rwv_stripe_eager_threshold up), in
# the same run.  Read from 1 MiB up: tbf's burst allowance inflates smaller
# sizes.
#   test/bench/bench_rails.sh OUTDIR RATE "RAIL COUNTS" SIZE...
# writes OUTDIR/rails-<btl>.dat (config size MB/s; config is the rail count,
# or "2u" for the unequal pair) and prints a markdown table.
set -u
. "$(dirname "$0")/bench_lib.sh"
bin=$build/test/bench
out=$1 rate=$2 rail_counts=$3
shift 3
sizes="$*"
mkdir -p "$out"
rm -f "$out"/rails-*.dat "$out"/rails-*.failed

limit="rails limited to $rate each"
[ "$rate" = none ] && rate="" limit="rails not rate-limited (the 2 cores are the limit)"
echo "## Multi-rail scaling: 2 emulated nodes, $limit (streaming bandwidth, MB/s)"
echo
if ! cluster_check_privileges 2>/dev/null; then
    echo "Skipped: network namespaces need root (run ./quickstart.sh as root)."
    exit 0
fi

measure () { # config rails rates
    local config=$1 btl
    cluster_up 2 "$2" "$3" > /dev/null || exit 1
    for btl in tcp rwv; do
        bench_progress "multi-rail: $config rail(s) at ${3:-no limit}, btl/$btl"
        if cluster_mpirun -np 2 --map-by node --mca btl self,$btl "$bin/bench_pingpong" -r 3 $sizes \
               > "$out/raw-rails-$config-$btl.out" 2> "$out/raw-rails-$config-$btl.err"; then
            awk -v r="$config" '/^[0-9]/ {print r, $1, $3}' "$out/raw-rails-$config-$btl.out" >> "$out/rails-$btl.dat"
        else
            echo "$config rail(s), btl/$btl: $(bench_failure "$out/raw-rails-$config-$btl.err" "$out/raw-rails-$config-$btl.out")" \
                >> "$out/rails-$btl.failed"
        fi
    done
    cluster_down
}

# half of a tc rate such as 1gbit or 800mbit
half_rate () {
    awk -v r="$1" 'BEGIN {n = r + 0; u = substr(r, length(n "") + 1); if (u == "gbit") {n *= 1000; u = "mbit"}
                          printf "%d%s", n / 2, u}'
}

for rails in $rail_counts; do
    measure "$rails" "$rails" "$rate"
done
configs=$rail_counts
if [ -n "$rate" ]; then
    unequal="$rate,$(half_rate "$rate")"
    measure 2u 2 "$unequal"
    configs="$configs 2u"
fi

value () { awk -v r="$2" -v s="$3" '$1 == r && $2 == s {print $3}' "$out/rails-$1.dat" 2>/dev/null; }
# what the rails of a config add up to, in units of one rail
rails_sum () { case $1 in 2u) echo 1.5 ;; *) echo "$1" ;; esac; }
fraction () { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN {if (a + 0 > 0 && b + 0 > 0) printf "%.0f%%", 100 * a / (b * n); else print "-"}'; }
label () { case $1 in 2u) echo "2 unequal ($unequal)" ;; *) echo "$1" ;; esac; }

first=$(echo "$rail_counts" | awk '{print $1}')
echo "| rails | size | btl/tcp | btl/rwv | tcp vs 1 rail | rwv vs 1 rail | rwv vs tcp | tcp, share of the rails' sum | rwv, share of the rails' sum |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for config in $configs; do
    for s in $sizes; do
        tcp=$(value tcp "$config" "$s") rwv=$(value rwv "$config" "$s")
        tcp1=$(value tcp "$first" "$s") rwv1=$(value rwv "$first" "$s")
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(label "$config")" "$(bench_size "$s")" \
            "${tcp:--}" "${rwv:--}" "$(bench_ratio "$tcp" "$tcp1")" "$(bench_ratio "$rwv" "$rwv1")" \
            "$(bench_ratio "$rwv" "$tcp")" "$(fraction "$tcp" "$tcp1" "$(rails_sum "$config")")" \
            "$(fraction "$rwv" "$rwv1" "$(rails_sum "$config")")"
    done
done
cat "$out"/rails-*.failed 2>/dev/null | sed 's/^/failed: /'
echo
echo "The rails' sum is n times the one-rail figure of the same BTL and size (1.5 times for the unequal"
echo "pair, the second rail having half the rate). btl/tcp opens one module per interface and ob1"
echo "stripes messages above the eager limit over them, in fixed shares; messages up to the eager limit"
echo "go whole over one. btl/rwv splits puts and eager messages of 16 KiB and more over every rail, in"
echo "proportion to each rail's measured bandwidth."
