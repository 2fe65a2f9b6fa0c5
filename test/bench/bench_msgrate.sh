#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Message rate (test/bench/bench_msgrate, windows of 64 nonblocking sends):
# btl/rwv against btl/tcp and the raw libfabric transport between 2
# emulated nodes on one rail, 2 and 4 pairs of ranks at once in the manner
# of osu_mbw_mr, and against btl/vader (5.0: btl/sm) on one node in both
# directions.  Each round runs every contender once, in turn; figures are
# medians over rounds.  rwv's own MPI_T counters say what one eager message
# cost it (rail writes, completions asked for, credit writes).
#   test/bench/bench_msgrate.sh ROUNDS OUTDIR
# (RWV_MSGRATE_SIZES replaces the list of sizes one pair streams, on one
# node and between the nodes)
# writes OUTDIR/msgrate-<where>-<contender>.dat (size messages_per_s) for
# plots and prints markdown tables.
set -u
. "$(dirname "$0")/bench_lib.sh"
bin=$build/test/bench
rounds=$1 out=$2
sizes=${RWV_MSGRATE_SIZES:-1 64 1024 8192 32768 49152 65536}
pair_sizes="1 1024 8192 32768"
mkdir -p "$out"
# Open MPI 5.0 renamed vader to sm and keeps the old name as an alias
shm=$(ompi_info --parsable 2>/dev/null | grep -q '^mca:btl:sm:' && echo sm || echo vader)

run_rate () { # where contender launcher np args... (then bench_msgrate's own options)
    local where=$1 name=$2 launcher=$3 np=$4 raw
    shift 4
    raw=$out/raw-msgrate-$where-$name
    if $launcher -np "$np" "$@" > "$raw.out" 2> "$raw.err" && grep -q '^[0-9]' "$raw.out" &&
       ! grep -q ERROR "$raw.out"; then
        grep '^[0-9]' "$raw.out" >> "$raw.rounds"
    else
        bench_failure "$raw.err" "$raw.out" > "$raw.failed"
    fi
}

# Where ranks outnumber cores, what a rank does while it waits decides
# the rate.  With mpi_yield_when_idle every progress call that found
# nothing ends in sched_yield, for any BTL, so perf's count of those calls
# over the timed part of a job (bench_msgrate -P) is the idle passes.  Also
# counted: the calls that look at sockets (poll, ppoll, epoll_wait,
# epoll_pwait, select, pselect6) and every system call, system wide.
# (an architecture without one of these calls, arm64's poll, lacks its tracepoint)
tracing=/sys/kernel/tracing/events/syscalls
[ -d $tracing ] || tracing=/sys/kernel/debug/tracing/events/syscalls
count_events="syscalls:sys_enter_sched_yield"
for e in poll ppoll epoll_wait epoll_pwait select pselect6; do
    [ -d $tracing ] && [ ! -d "$tracing/sys_enter_$e" ] && continue
    count_events="$count_events,syscalls:sys_enter_$e"
done
count_events="$count_events,raw_syscalls:sys_enter"
perf_counts=0
perf stat -a -x, -D -1 --control fifo:/dev/null -e "$count_events" -o /dev/null true > /dev/null 2>&1 && perf_counts=1

# windows per repeat of a 4-pair counted job: about 0.3 s of traffic at
# the rates 4 pairs reach here (250k messages a second at 1 B, 80k at
# 32 KiB), so that the count's first and last microseconds (ranks waiting
# for rank 0 to tell perf) are a small part of it
counted_windows () { awk -v s="$1" 'BEGIN {n = int(1.2e6 / (4000 + 0.26 * s)); print n < 60 ? 60 : (n > 400 ? 400 : n)}'; }

# one size in one job, its rate as run_rate's, its counts per message to
# OUT/raw-count-WHERE-CONTENDER.rounds as "size idle_passes polls syscalls"
run_counted () { # where contender size launcher np args...
    local where=$1 name=$2 size=$3 fifo=$out/perf-control perf_pid="" m
    shift 3
    if [ $perf_counts = 1 ]; then
        rm -f "$fifo.ctl" "$fifo.ack" "$fifo.counts"
        mkfifo "$fifo.ctl" "$fifo.ack"
        # bounded, so that a run killed meanwhile leaves no system-wide count behind
        timeout 600 perf stat -a -x, -D -1 --control "fifo:$fifo.ctl,$fifo.ack" -e "$count_events" \
            -o "$fifo.counts" > /dev/null 2>&1 &
        perf_pid=$!
        sleep 1 # perf takes a moment to open its FIFOs
        run_rate "$where" "$name" "$@" -i "$(counted_windows "$size")" -P "$fifo.ctl,$fifo.ack" "$size"
        kill -INT $perf_pid 2> /dev/null
        wait $perf_pid
        # a job that failed or was not counted adds no row (its rate says why)
        m=$(awk '/^# counted/ {print $3}' "$out/raw-msgrate-$where-$name.out")
        if [ -n "$m" ] && ! grep -q ERROR "$out/raw-msgrate-$where-$name.out"; then
            awk -F, -v m="$m" -v s="$size" '
                $1 !~ /^[0-9]+$/ && $3 ~ /sys_enter/ {bad = 1}
                $3 ~ /sched_yield$/ {y = $1} $3 ~ /^syscalls:/ && $3 !~ /sched_yield$/ {p += $1} $3 ~ /^raw_syscalls/ {a = $1}
                END {if (!bad && a > 0 && m > 0) printf "%s %.2f %.2f %.2f\n", s, y / m, p / m, a / m}' "$fifo.counts" \
                >> "$out/raw-count-$where-$name.rounds"
        fi
        rm -f "$fifo.ctl" "$fifo.ack"
    else
        run_rate "$where" "$name" "$@" "$size"
    fi
}

# median per size over rounds of every column
summarize () { # where name sizes
    local raw=$out/raw-msgrate-$1-$2 s
    [ -f "$raw.rounds" ] || return
    for s in $3; do
        awk -v s="$s" '$1 == s' "$raw.rounds" | bench_median_columns
    done > "$out/msgrate-$1-$2.dat"
}

cell () { # where name size column
    local dat=$out/msgrate-$1-$2.dat v
    if [ -s "$dat" ]; then
        v=$(awk -v s="$3" -v c="$4" '$1 == s {print $c}' "$dat")
        echo "${v:--}"
    else
        echo "failed: $(cat "$out/raw-msgrate-$1-$2.failed" 2>/dev/null)"
    fi
}

krate () { awk -v v="$1" 'BEGIN {if (v + 0 > 0) printf "%.0fk", v / 1000; else print v}'; }

# ------------------------------------------------------------ one node
for ((round = 1; round <= rounds; round++)); do
    bench_progress "message rate, one node, both directions, round $round of $rounds"
    run_rate node "$shm" local_mpirun 2 --mca btl self,"$shm" "$bin/bench_msgrate" -b $sizes
    run_rate node rwv local_mpirun 2 --mca btl self,rwv "$bin/bench_msgrate" -b $sizes
done
for c in "$shm" rwv; do summarize node "$c" "$sizes"; done

echo "## Message rate on one node, both directions at once (2 ranks, window 64; messages per second, higher is better)"
echo
echo "| size | $shm | rwv | rwv vs $shm |"
echo "|---|---:|---:|---:|"
for s in $sizes; do
    a=$(cell node "$shm" "$s" 2); b=$(cell node rwv "$s" 2)
    echo "| $(bench_size "$s") | $(krate "$a") | $(krate "$b") | $(bench_ratio "$b" "$a") |"
done
echo

if ! cluster_check_privileges 2>/dev/null; then
    echo "Two-node message rates skipped: network namespaces need root (run ./quickstart.sh as root)."
    exit 0
fi

# ------------------------------------------------------------ 2 nodes
cluster_up 2 1 > /dev/null || exit 1
server=$(cluster_addr 2 1)
tcp_cc=$(cluster_tcp_cc 1)
for ((round = 1; round <= rounds; round++)); do
    bench_progress "message rate, 2 nodes, round $round of $rounds"
    ip netns exec "$(cluster_node_name 2)" timeout 120 "$bin/bench_fi_rma_bw" -s "$server" > /dev/null 2>&1 &
    sleep 0.5
    ip netns exec "$(cluster_node_name 1)" timeout 120 "$bin/bench_fi_rma_bw" -c "$server" -w 64 -r 3 $sizes |
        awk '/^[0-9]/ {printf "%s %.0f\n", $1, $2 * 1e6 / $1}' >> "$out/raw-msgrate-net-raw.rounds"
    wait
    run_rate net tcp cluster_mpirun 2 --map-by node --mca btl self,tcp "$bin/bench_msgrate" $sizes
    run_rate net rwv cluster_mpirun 2 --map-by node --mca btl self,rwv "$bin/bench_msgrate" -c $sizes
    run_rate net rwv1 cluster_mpirun 2 --map-by node --mca btl self,rwv --mca btl_rwv_write_batch 1 \
        "$bin/bench_msgrate" -c $sizes
    # 4 and 8 ranks on this host's cores: waiting ranks yield, for both contenders alike
    for c in tcp rwv; do
        run_rate pairs2 "$c" cluster_mpirun 4 --map-by node --mca mpi_yield_when_idle 1 \
            --mca btl self,"$c" "$bin/bench_msgrate" $pair_sizes
    done
    for s in $pair_sizes; do
        for c in tcp rwv; do
            run_counted pairs4 "$c" "$s" cluster_mpirun 8 --map-by node --mca mpi_yield_when_idle 1 \
                --mca btl self,"$c" "$bin/bench_msgrate"
        done
    done
done
cluster_down
for c in raw tcp rwv rwv1; do summarize net "$c" "$sizes"; done
for pairs in 2 4; do
    for c in tcp rwv; do summarize "pairs$pairs" "$c" "$pair_sizes"; done
done
for c in tcp rwv; do
    [ -f "$out/raw-count-pairs4-$c.rounds" ] || continue
    for s in $pair_sizes; do
        awk -v s="$s" '$1 == s' "$out/raw-count-pairs4-$c.rounds" | bench_median_columns
    done > "$out/count-pairs4-$c.dat"
done

echo "## Message rate between 2 emulated nodes, 1 rail (window 64, one direction; messages per second)"
echo
echo "| size | raw fi_write | tcp | rwv | rwv vs tcp | rwv vs raw | rwv: rail writes per message | completions asked | credit writes | sent in place | rwv unbatched | its writes per message |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for s in $sizes; do
    r=$(cell net raw "$s" 2); t=$(cell net tcp "$s" 2); v=$(cell net rwv "$s" 2)
    echo "| $(bench_size "$s") | $(krate "$r") | $(krate "$t") | $(krate "$v") | $(bench_ratio "$v" "$t") |" \
         "$(bench_ratio "$v" "$r") | $(cell net rwv "$s" 4) | $(cell net rwv "$s" 5) | $(cell net rwv "$s" 7) |" \
         "$(cell net rwv "$s" 8) |" \
         "$(krate "$(cell net rwv1 "$s" 2)") | $(cell net rwv1 "$s" 4) |"
done
echo
echo "raw: test/bench/bench_fi_rma_bw, fi_write on one libfabric tcp endpoint, the same window of 64, each"
echo "write with its completion. The per-message counts are rwv's MPI_T counters over every rank,"
echo "divided by the eager messages written (acknowledgements and collectives included); sent in place:"
echo "the share whose data went from the application's buffer with no copy (btl_rwv_in_place_min). rwv unbatched:"
echo "btl_rwv_write_batch 1, every eager message its own rail write, as before batches. The nodes' TCP"
echo "congestion control: $tcp_cc (RWV_CLUSTER_CC chooses another; rwv copies waiting messages of 44 KiB"
echo "and more for batches only where it is not bbr, see btl_rwv_batch_copy_max)."
echo
echo "## Pairs of ranks streaming at once between 2 emulated nodes (osu_mbw_mr style; total messages per second)"
echo
echo "| pairs | size | tcp | rwv | rwv vs tcp |"
echo "|---|---|---:|---:|---:|"
for pairs in 2 4; do
    for s in $pair_sizes; do
        t=$(cell "pairs$pairs" tcp "$s" 2); v=$(cell "pairs$pairs" rwv "$s" 2)
        echo "| $pairs | $(bench_size "$s") | $(krate "$t") | $(krate "$v") | $(bench_ratio "$v" "$t") |"
    done
done
echo
if [ $perf_counts = 1 ]; then
    echo "4 pairs: one job per size, counted by perf stat (next table), whose tracepoints slow every system"
    echo "call a little while it counts; 2 pairs: one job for every size, uncounted."
    echo
fi

if [ $perf_counts = 1 ]; then
    echo "## What 4 pairs do while they wait (per message, over the timed part of each job; medians of rounds)"
    echo
    echo "| size | tcp: idle progress passes | rwv | rwv vs tcp | tcp: calls that poll sockets | rwv | tcp: system calls | rwv |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    for s in $pair_sizes; do
        t=$(awk -v s="$s" '$1 == s {print $2, $3, $4}' "$out/count-pairs4-tcp.dat" 2>/dev/null)
        v=$(awk -v s="$s" '$1 == s {print $2, $3, $4}' "$out/count-pairs4-rwv.dat" 2>/dev/null)
        set -- ${t:-- - -} ${v:-- - -}
        echo "| $(bench_size "$s") | $1 | $4 | $(bench_ratio "$4" "$1") | $2 | $5 | $3 | $6 |"
    done
    echo
    echo "8 ranks on this machine's $(nproc) cores with mpi_yield_when_idle 1; perf stat counts system wide, from the start of each"
    echo "job's timed repeats to their end (bench_msgrate -P). Idle progress passes: sched_yield calls, which"
    echo "opal_progress makes after every call that found nothing, whatever the BTL. Calls that poll sockets:"
    echo "poll, ppoll, epoll_wait, epoll_pwait, select, pselect6. Single jobs spread widely (btl/tcp's idle"
    echo "passes fall into two modes from job to job), so a few rounds can put either ahead at small sizes;"
    echo "docs/results-message-rate.md pools 10 to 30 jobs per size."
else
    echo "Idle passes of 4 pairs not counted: perf stat cannot count system calls here (linux-perf, root)."
fi
echo
