#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# What one message costs, counted rather than timed: btl/rwv against
# btl/tcp, one pair streaming windows of 16 messages (test/bench/bench_msgrate;
# 16 is what rwv's hot ring holds, so no message waits for a credit)
# between 2 emulated nodes on one rail.  Rates on a shared 2-core machine
# move by tens of percent between runs; these counts move far less:
#  - instructions per message in user space, of the sender and of the
#    receiver, counted by valgrind's callgrind, and of those the BTL's
#    own (its shared object alone: not ob1, libfabric or libc), which is
#    what stays on RDMA hardware where the provider's and the kernel's
#    share goes.  One side runs under it
#    at a time, so it is the slower one and mostly finds work waiting; how
#    often it went round opal_progress per message is printed beside its
#    count, since a rank that waits spins there.  The sender's work inside
#    MPI_Isend cannot include waiting.  Instructions in libc's memcpy and
#    memmove are given apart: valgrind counts a `rep movsb' copy byte by
#    byte, so they say that a copy was made, not what it cost;
#  - system calls per message that send and receive, all processes of the
#    job (perf's syscalls tracepoints, system wide).  Polls are left out:
#    a waiting rank polls as often as it spins.
# Instructions are collected only in bench_msgrate's loop of windows; system
# calls are the difference between a job of 4 repeats and one of 1, over
# the messages between them: start-up and teardown stay out of both.
#   test/bench/bench_msgcost.sh OUTDIR [SIZE...]
# Prints a markdown table; needs root (namespaces), valgrind and perf
# (test/deps.sh installs them); says why and stops when one is missing.
set -u
. "$(dirname "$0")/bench_lib.sh"
. "$(dirname "$0")/callgrind_lib.sh"
bin=$build/test/bench/bench_msgrate
out=$1
shift
sizes=${*:-1 1024 8192 32768}
windows=80 repeats=4 window=16
mkdir -p "$out"

for tool in valgrind callgrind_annotate perf; do
    command -v $tool > /dev/null || { echo "Message costs skipped: $tool is missing (test/deps.sh installs it)."; exit 0; }
done
cluster_check_privileges 2> /dev/null ||
    { echo "Message costs skipped: network namespaces need root (run as root)."; exit 0; }
cluster_up 2 1 > /dev/null || exit 1
messages=$(((repeats - 1) * windows * window))
# bench_msgrate's run () sends a warm-up of a quarter of the windows, then the repeats
in_run=$(((windows / 4 + 1 + repeats * windows) * window))

# one rank on each node (each part of the command line names its node: a
# mapping starts again for every part)
job () { # btl size repeats [wrapper for rank 0] [wrapper for rank 1]
    cluster_mpirun --mca btl self,"$1" -np 1 --host "$(cluster_node_name 1)" ${4:-} "$bin" -c -w $window \
        -i $windows -r "$3" "$2" : -np 1 --host "$(cluster_node_name 2)" ${5:-} "$bin" -c -w $window -i $windows -r "$3" "$2"
}

# rwv's counters in the job's output show that it wrote through the rail,
# not into a ring shared on one node
crossed () { # btl job-output
    [ "$1" != rwv ] || awk '/^[0-9]/ && $4 > 0 {found = 1} END {exit !found}' "$2"
}

# per message of rank ROLE (0 sends, 1 receives), as callgrind_counts ()
# counts them, collected only inside bench_msgrate's loop of windows
# (its function windows), so that start-up, teardown and the barrier
# before each run stay out
rank_cost () { # btl size role
    local prof=$out/callgrind-$1-$2-rank$3.cg
    local vg="valgrind --tool=callgrind --fair-sched=yes --toggle-collect=windows --callgrind-out-file=$prof"
    if [ "$3" = 0 ]; then
        job "$1" "$2" $repeats "$vg" > "$prof.out" 2>&1
    else
        job "$1" "$2" $repeats "" "$vg" > "$prof.out" 2>&1
    fi && crossed "$1" "$prof.out" || { echo "failed - - - -"; return; }
    callgrind_counts "$prof" "$1" | callgrind_per_message $in_run
    rm -f "$prof"
}

sends="sendmsg sendto writev write" receives="recvmsg recvfrom readv read"
events=$(for s in $sends $receives; do echo -n "syscalls:sys_enter_$s,"; done)

# system calls per message of the whole job: "sends receives" (perf
# counts system wide while the job runs)
syscall_cost () { # btl size
    local r perf_pid rc
    for r in 1 $repeats; do
        perf stat -a -x, -e "${events%,}" -o "$out/syscalls-$1-$2-r$r" > /dev/null 2>&1 &
        perf_pid=$!
        sleep 1 # perf takes a moment to start counting
        job "$1" "$2" $r > "$out/syscalls-$1-$2-r$r.out" 2>&1
        rc=$?
        kill -INT $perf_pid && wait $perf_pid
        [ $rc = 0 ] && crossed "$1" "$out/syscalls-$1-$2-r$r.out" || { echo "failed -"; return; }
    done
    awk -F, -v n=$messages -v last="$out/syscalls-$1-$2-r$repeats" -v sends="$sends" '
        BEGIN {split(sends, list, " "); for (i in list) is_send[list[i]] = 1}
        $1 ~ /^[0-9]+$/ {name = $3; sub(/.*sys_enter_/, "", name); d = FILENAME == last ? $1 : -$1
                         if (name in is_send) s += d; else r += d}
        END {printf "%.2f %.2f\n", s / n, r / n}' "$out/syscalls-$1-$2-r1" "$out/syscalls-$1-$2-r$repeats"
}

cells () { echo "$1" | sed 's/ / | /g'; }

echo "## What one message costs, counted (1 pair, 2 emulated nodes, 1 rail, window $window)"
echo
echo "| size | contender | sender: instructions | in MPI_Isend | in memcpy | progress passes | in the BTL | receiver: instructions | in memcpy | progress passes | in the BTL | send calls | receive calls |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
# rwv's row over tcp's, cell by cell ("-" where either failed or is 0)
ratios () { # tcp-cells rwv-cells
    awk -v a="$1" -v b="$2" 'BEGIN {n = split(a, x, " "); split(b, y, " ")
        for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? " " : ""), (x[i] + 0 > 0 && y[i] ~ /^[0-9.]+$/ ? sprintf("%.2fx", y[i] / x[i]) : "-")}'
}

for size in $sizes; do
    row=()
    for btl in tcp rwv; do
        bench_progress "message cost, $btl, $(bench_size "$size")"
        sender=$(rank_cost $btl "$size" 0) receiver=$(rank_cost $btl "$size" 1) calls=$(syscall_cost $btl "$size")
        receiver=$(echo "$receiver" | awk '{print $1, $3, $4, $5}') # it sends no MPI_Isend
        row+=("$sender $receiver $calls")
        echo "| $(bench_size "$size") | $btl | $(cells "$sender") | $(cells "$receiver") | $(cells "$calls") |"
    done
    echo "| $(bench_size "$size") | rwv / tcp | $(cells "$(ratios "${row[0]}" "${row[1]}")") |"
done
cluster_down
echo
echo "Instructions: user space only, per message, of the one rank under callgrind (the other runs at"
echo "full speed); MPI_Isend: of the sender's, inside it and what it called, where it never waits;"
echo "memcpy: of those, in libc's copy routines, counted byte by byte for \`rep movsb' (a copy was made,"
echo "not what it cost); progress passes: its calls of opal_progress per message, where a rank that waits"
echo "spins; in the BTL: in its own shared object (mca_btl_rwv.so, mca_btl_tcp.so), not ob1, libfabric or"
echo "libc; counted inside bench_msgrate's loop of windows only, over its $in_run messages. Calls: system calls"
echo "of every process of the job per message, including libfabric's and Open MPI's wake-up descriptors"
echo "(read, write): a job of $repeats repeats of $windows windows less a job of 1, over the $messages messages"
echo "between them. rwv / tcp: rwv's figure over btl/tcp's (below 1.00x: rwv's costs less)."
