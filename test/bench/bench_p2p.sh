#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Point-to-point comparison: btl/rwv against btl/vader and btl/tcp on one
# node, and against btl/tcp, btl/ofi and the raw libfabric transport on two
# emulated nodes joined by one rail, in the same run.  An untimed round
# first warms every contender up (binaries and libraries read, the
# namespaces' neighbours resolved); then each round runs every contender
# once, in turn.  A cell is the median over rounds with its range; one
# whose rounds spread more than twice the table's typical spread (and
# more than 25%) is flagged noisy, not given as a result.  A contender
# that fails is shown as failed, with the reason.
#   test/bench/bench_p2p.sh ROUNDS OUTDIR SIZE...
# writes OUTDIR/p2p-<where>-<contender>.dat (size latency bw bibw, medians)
# for plots, .range beside it (size, then low and high of each column), and
# prints markdown tables.
set -u
. "$(dirname "$0")/bench_lib.sh"
bin=$build/test/bench
rounds=$1 out=$2
shift 2
sizes="$*"
mkdir -p "$out"

# btl/ofi: with libfabric 1.17 only the net provider matches, and ob1
# crashes unless btl_ofi_mode is 2; libfabric 2 (Debian 13) has no net
# provider, and btl/ofi takes tcp
ofi_provider=$(fi_info -l 2>/dev/null | grep -q '^net:' && echo net || echo tcp)
ofi_args="--mca btl self,ofi --mca btl_ofi_mode 2 --mca btl_ofi_provider_include $ofi_provider"

run_mpi () { # where contender launcher args...
    local where=$1 name=$2 launcher=$3 raw
    shift 3
    raw=$out/raw-p2p-$where-$name
    if $launcher -np 2 "$@" "$bin/bench_pingpong" -r 3 $sizes > "$raw.out" 2> "$raw.err" &&
       grep -q '^[0-9]' "$raw.out"; then
        [ "$round" -gt 0 ] && grep '^[0-9]' "$raw.out" >> "$raw.rounds"
    else
        bench_failure "$raw.err" "$raw.out" > "$raw.failed"
    fi
}

# per size over rounds: medians into .dat, lows and highs into .range
summarize () { # where name
    local raw=$out/raw-p2p-$1-$2 s
    [ -f "$raw.rounds" ] || return
    for s in $sizes; do
        awk -v s="$s" '$1 == s' "$raw.rounds" | bench_median_columns
    done > "$out/p2p-$1-$2.dat"
    for s in $sizes; do
        awk -v s="$s" '$1 == s' "$raw.rounds" | bench_range_columns
    done > "$out/p2p-$1-$2.range"
}

# median, low and high of a cell, or nothing
cell_values () { # where name size column(2 lat, 3 bw, 4 bibw)
    local base=$out/p2p-$1-$2
    [ -s "$base.dat" ] || return
    awk -v s="$3" -v c="$4" 'FNR == 1 {f++} $1 != s {next}
        f == 1 {m = $c} f == 2 {lo = $(2 * c - 2); hi = $(2 * c - 1)}
        END {if (m != "" && m != "-") print m, (lo != "" ? lo : m), (hi != "" ? hi : m)}' "$base.dat" "$base.range" 2>/dev/null
}

# the relative spread (high - low) / median of every cell in the table
table_spreads () { # where "contenders"
    local c size col
    for c in $2; do
        for size in $sizes; do
            for col in 2 3 4; do cell_values "$1" "$c" "$size" "$col"; done
        done
    done | awk '$1 > 0 {print ($3 - $2) / $1}'
}

# the spread above which a cell is noisy: twice the table's median, and at
# least 25%, as a 2-node ping-pong here moves between about 3.5 and 5 us
# with where the kernel places the processes
table_limit () { # where "contenders"
    table_spreads "$1" "$2" | bench_median | awk '{l = 2 * $1; print (l > 0.25 ? l : 0.25)}'
}

# a cell: the median with its range over rounds, "noisy" when the spread
# is above LIMIT, "failed" with the reason
cell () { # where name size column limit
    local raw=$out/raw-p2p-$1-$2 v
    v=$(cell_values "$1" "$2" "$3" "$4")
    if [ -z "$v" ]; then
        [ -f "$raw.failed" ] && echo "failed: $(cat "$raw.failed")" || echo "-"
        return
    fi
    echo "$v" | awk -v limit="$5" -v rounds="$rounds" '
        function f(x) {return sprintf(x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x)}
        {text = f($1); if (rounds > 1) text = text " (" f($2) "-" f($3) ")"
        if ($1 > 0 && ($3 - $2) / $1 > limit) text = "noisy: " text
        print text}'
}

# ours against theirs, from the unrounded medians; none where either is noisy
ratio () { # where ours theirs size column limit
    local a b
    a=$(cell "$1" "$2" "$4" "$5" "$6"); b=$(cell "$1" "$3" "$4" "$5" "$6")
    case "$a$b" in
        *noisy*) echo "- (noisy)" ;;
        *) bench_ratio "$(cell_values "$1" "$2" "$4" "$5" | cut -d' ' -f1)" \
                       "$(cell_values "$1" "$3" "$4" "$5" | cut -d' ' -f1)" ;;
    esac
}

table () { # where "contenders" reference-contender
    local where=$1 contenders=$2 ref=$3 size limit
    limit=$(table_limit "$where" "$contenders")
    echo "| metric |$(for c in $contenders; do printf ' %s |' "$c"; done) rwv vs $ref |"
    echo "|---|$(for c in $contenders; do printf -- '---:|'; done)---:|"
    for size in $sizes; do
        for col in 2 3 4; do
            case $col in
                2) [ "$size" -le 65536 ] || continue; what="latency at $(bench_size "$size"), us" ;;
                3) [ "$size" -ge 32768 ] || continue; what="bandwidth at $(bench_size "$size"), MB/s" ;;
                4) [ "$size" -ge 32768 ] || continue; what="bidirectional at $(bench_size "$size"), MB/s" ;;
            esac
            printf '| %s |' "$what"
            for c in $contenders; do printf ' %s |' "$(cell "$where" "$c" "$size" "$col" "$limit")"; done
            printf ' %s |\n' "$(ratio "$where" rwv "$ref" "$size" "$col" "$limit")"
        done
    done
    [ "$rounds" -gt 1 ] && echo &&
        echo "Medians of $rounds rounds after an untimed one, with their range; a cell whose rounds spread more than $(awk -v l="$limit" 'BEGIN {printf "%d%%", l * 100}') of it (twice this table's typical spread, at least 25%) is marked noisy and left out of the ratios."
}

echo "## Point to point on one node (2 ranks; lower latency, higher bandwidth is better)"
echo
for ((round = 0; round <= rounds; round++)); do
    bench_progress "point to point, one node, round $round of $rounds$([ $round = 0 ] && echo " (warm-up, untimed)")"
    run_mpi node vader local_mpirun --mca btl self,vader
    run_mpi node tcp local_mpirun --mca btl self,tcp
    run_mpi node rwv-loopback local_mpirun --mca btl self,rwv --mca btl_rwv_single_copy none
    run_mpi node rwv local_mpirun --mca btl self,rwv
done
for c in vader tcp rwv-loopback rwv; do summarize node "$c"; done
table node "vader tcp rwv-loopback rwv" vader
echo
echo "vader is shared memory with single-copy (CMA); tcp goes through the loopback interface. rwv (the"
echo "default) stores eager messages into a ring it shares with the peer and moves rendezvous data with"
echo "one kernel copy (CMA); rwv-loopback (btl_rwv_single_copy none) is the loopback rail, as between nodes."
echo

# Do no harm: a one-node job in Open MPI's default BTL set (vader carries
# it), without our components on the component path and with them, as a
# system-wide install would have them; 5 rounds, interleaved.
do_no_harm () {
    local sizes="1 1048576" rounds=5 round c limit
    for ((round = 1; round <= rounds; round++)); do
        bench_progress "do no harm, one node, round $round of $rounds"
        run_mpi harm stock local_mpirun --mca opal_mca_base_component_path SYS_DEFAULT
        run_mpi harm installed local_mpirun
    done
    for c in stock installed; do summarize harm "$c"; done
    limit=$(table_limit harm "stock installed")
    echo "## Do no harm: a one-node job that never uses rwv (default BTL set, 2 ranks, 5 rounds interleaved)"
    echo
    echo "| metric | stock (our components not installed) | installed (rwv, regcache, rdmabar on the component path) | installed vs stock |"
    echo "|---|---:|---:|---:|"
    for row in "1 2 latency at 1 B, us" "1048576 3 bandwidth at 1 MiB, MB/s" "1048576 4 bidirectional at 1 MiB, MB/s"; do
        set -- $row
        local s=$1 col=$2 a b
        shift 2
        a=$(cell harm stock "$s" "$col" "$limit"); b=$(cell harm installed "$s" "$col" "$limit")
        echo "| $* | $a | $b | $(ratio harm installed stock "$s" "$col" "$limit") |"
    done
    echo
    echo "Both runs take Open MPI's default selection (vader between the two ranks); the second has our"
    echo "components on the component path, so rwv is opened, discovers its rails and sits in the progress loop."
    echo
}
do_no_harm

if ! cluster_check_privileges 2>/dev/null; then
    echo "Two-node rows skipped: network namespaces need root (run ./quickstart.sh as root)."
    exit 0
fi
echo "## Point to point between 2 emulated nodes, 1 rail (kernel TCP underneath)"
echo
cluster_up 2 1 > /dev/null || exit 1
server=$(cluster_addr 2 1)
for ((round = 0; round <= rounds; round++)); do
    bench_progress "point to point, 2 nodes, round $round of $rounds$([ $round = 0 ] && echo " (warm-up, untimed)")"
    # the raw transport on the same rail: libfabric's fi_pingpong and our fi_write window
    ip netns exec "$(cluster_node_name 2)" timeout 60 fi_pingpong -e msg -p tcp -S 1 -I 20000 >/dev/null 2>&1 &
    sleep 0.5
    ip netns exec "$(cluster_node_name 1)" timeout 60 fi_pingpong -e msg -p tcp -S 1 -I 20000 "$server" 2>/dev/null |
        awk -v r="$round" '$1 == 1 && r > 0 {print $7}' >> "$out/raw-fi-lat"
    wait
    # its bandwidth from 32 KiB up: without such a size the server would wait out its limit
    large=$(for s in $sizes; do [ "$s" -ge 32768 ] && echo "$s"; done)
    if [ -n "$large" ]; then
        ip netns exec "$(cluster_node_name 2)" timeout 120 "$bin/bench_fi_rma_bw" -s "$server" >/dev/null 2>&1 &
        sleep 0.5
        ip netns exec "$(cluster_node_name 1)" timeout 120 "$bin/bench_fi_rma_bw" -c "$server" -r 3 $large |
            grep -v '^#' | awk -v r="$round" 'r > 0' >> "$out/raw-fi-bw"
        wait
    fi
    run_mpi net tcp cluster_mpirun --map-by node --mca btl self,tcp
    run_mpi net ofi cluster_mpirun --map-by node $ofi_args
    run_mpi net rwv cluster_mpirun --map-by node --mca btl self,rwv
done
cluster_down
for c in tcp ofi rwv; do summarize net "$c"; done
# the raw row as a contender: latency from fi_pingpong (1 byte), bandwidth
# from fi_write; "-" where it has no figure
raw_row () { # size latency-file bandwidth-file
    local lat=- bw=- lat_range="- -" bw_range="- -"
    if [ -s "$2" ]; then lat=$(bench_median < "$2"); lat_range=$(sort -g "$2" | sed -n '1p;$p' | tr '\n' ' '); fi
    if [ -s "$3" ]; then bw=$(bench_median < "$3"); bw_range=$(sort -g "$3" | sed -n '1p;$p' | tr '\n' ' '); fi
    echo "$1 $lat $bw -" >> "$out/p2p-net-raw.dat"
    echo "$1 $lat_range $bw_range - -" >> "$out/p2p-net-raw.range"
}
rm -f "$out/p2p-net-raw.dat" "$out/p2p-net-raw.range"
for s in $sizes; do
    awk -v s="$s" '$1 == s {print $2}' "$out/raw-fi-bw" > "$out/raw-fi-bw-$s"
    if [ "$s" = 1 ]; then
        raw_row "$s" "$out/raw-fi-lat" "$out/raw-fi-bw-$s"
    elif [ "$s" -ge 32768 ]; then
        raw_row "$s" /dev/null "$out/raw-fi-bw-$s"
    fi
done
table net "raw tcp ofi rwv" tcp
echo
echo "raw: libfabric on the same rail, fi_pingpong -e msg (1 byte) and test/bench/bench_fi_rma_bw (fi_write,"
echo "window 16). ofi: btl/ofi in mode 2 (in mode 0 ob1 crashes) on libfabric's '$ofi_provider' provider: with"
echo "libfabric 1.17 only 'net' matches; libfabric 2 has no 'net', and btl/ofi does not take 'tcp'."
echo "MPI figures: test/bench/bench_pingpong, window 16."
