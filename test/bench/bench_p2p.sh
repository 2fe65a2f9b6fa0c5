#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Point-to-point comparison: btl/rwv against btl/vader and btl/tcp on one
# node, and against btl/tcp, btl/ofi and the raw libfabric transport on two
# emulated nodes joined by one rail, in the same run.  Each round runs every
# contender once, in turn; figures are medians over rounds.  A contender
# that fails is shown as failed, with the reason.
#   test/bench/bench_p2p.sh ROUNDS OUTDIR SIZE...
# writes OUTDIR/p2p-<where>-<contender>.dat (size latency bw bibw) for plots
# and prints markdown tables.
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
        grep '^[0-9]' "$raw.out" >> "$raw.rounds"
    else
        bench_failure "$raw.err" "$raw.out" > "$raw.failed"
    fi
}

# median per size over rounds: size latency bw bibw
summarize () { # where name
    local raw=$out/raw-p2p-$1-$2
    [ -f "$raw.rounds" ] || return
    for s in $sizes; do
        awk -v s="$s" '$1 == s' "$raw.rounds" | bench_median_columns
    done > "$out/p2p-$1-$2.dat"
}

cell () { # where name size column(2 lat, 3 bw, 4 bibw)
    local v dat=$out/p2p-$1-$2.dat raw=$out/raw-p2p-$1-$2
    if [ -s "$dat" ]; then
        v=$(awk -v s="$3" -v c="$4" '$1 == s {print $c}' "$dat")
        echo "${v:--}"
    else
        echo "failed: $(cat "$raw.failed" 2>/dev/null)"
    fi
}


table () { # where "contenders" reference-contender [raw]
    local where=$1 contenders=$2 ref=$3 size v r
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
            for c in $contenders; do printf ' %s |' "$(cell "$where" "$c" "$size" "$col")"; done
            v=$(cell "$where" rwv "$size" "$col"); r=$(cell "$where" "$ref" "$size" "$col")
            printf ' %s |\n' "$(bench_ratio "$v" "$r")"
        done
    done
}

echo "## Point to point on one node (2 ranks; lower latency, higher bandwidth is better)"
echo
for ((round = 1; round <= rounds; round++)); do
    bench_progress "point to point, one node, round $round of $rounds"
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
    local sizes="1 1048576" round c
    for ((round = 1; round <= 5; round++)); do
        bench_progress "do no harm, one node, round $round of 5"
        run_mpi harm stock local_mpirun --mca opal_mca_base_component_path SYS_DEFAULT
        run_mpi harm installed local_mpirun
    done
    for c in stock installed; do summarize harm "$c"; done
    echo "## Do no harm: a one-node job that never uses rwv (default BTL set, 2 ranks, 5 rounds interleaved)"
    echo
    echo "| metric | stock (our components not installed) | installed (rwv, regcache, rdmabar on the component path) | installed vs stock |"
    echo "|---|---:|---:|---:|"
    for row in "1 2 latency at 1 B, us" "1048576 3 bandwidth at 1 MiB, MB/s" "1048576 4 bidirectional at 1 MiB, MB/s"; do
        set -- $row
        local s=$1 col=$2 a b
        shift 2
        a=$(cell harm stock "$s" "$col"); b=$(cell harm installed "$s" "$col")
        echo "| $* | $a | $b | $(bench_ratio "$b" "$a") |"
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
for ((round = 1; round <= rounds; round++)); do
    bench_progress "point to point, 2 nodes, round $round of $rounds"
    # the raw transport on the same rail: libfabric's fi_pingpong and our fi_write window
    ip netns exec "$(cluster_node_name 2)" timeout 60 fi_pingpong -e msg -p tcp -S 1 -I 20000 >/dev/null 2>&1 &
    sleep 0.5
    ip netns exec "$(cluster_node_name 1)" timeout 60 fi_pingpong -e msg -p tcp -S 1 -I 20000 "$server" 2>/dev/null |
        awk '$1 == 1 {print $7}' >> "$out/raw-fi-lat"
    wait
    ip netns exec "$(cluster_node_name 2)" timeout 120 "$bin/bench_fi_rma_bw" -s "$server" >/dev/null 2>&1 &
    sleep 0.5
    ip netns exec "$(cluster_node_name 1)" timeout 120 "$bin/bench_fi_rma_bw" -c "$server" -r 3 \
        $(for s in $sizes; do [ "$s" -ge 32768 ] && echo "$s"; done) | grep -v '^#' >> "$out/raw-fi-bw"
    wait
    run_mpi net tcp cluster_mpirun --map-by node --mca btl self,tcp
    run_mpi net ofi cluster_mpirun --map-by node $ofi_args
    run_mpi net rwv cluster_mpirun --map-by node --mca btl self,rwv
done
cluster_down
for c in tcp ofi rwv; do summarize net "$c"; done
# the raw row as a contender: latency from fi_pingpong (1 byte), bandwidth from fi_write
{
    echo "1 $(bench_median < "$out/raw-fi-lat") - -"
    for s in $sizes; do
        [ "$s" -ge 32768 ] && echo "$s - $(awk -v s="$s" '$1 == s {print $2}' "$out/raw-fi-bw" | bench_median) -"
    done
} > "$out/p2p-net-raw.dat"
table net "raw tcp ofi rwv" tcp
echo
echo "raw: libfabric on the same rail, fi_pingpong -e msg (1 byte) and test/bench/bench_fi_rma_bw (fi_write,"
echo "window 16). ofi: btl/ofi in mode 2 (in mode 0 ob1 crashes) on libfabric's '$ofi_provider' provider: with"
echo "libfabric 1.17 only 'net' matches; libfabric 2 has no 'net', and btl/ofi does not take 'tcp'."
echo "MPI figures: test/bench/bench_pingpong, window 16."
