#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# What one message costs rwv's own code on the native verbs rail, counted:
# the figure that travels to InfiniBand and RoCE clusters, where no
# provider library or kernel socket sits in the message's path.  One pair
# streams windows of 16 messages (test/bench/bench_msgrate, as
# bench_msgcost.sh does for the tcp provider) over soft-RoCE (rxe0) in the
# qemu guest (test/verbs/guest.sh); both ranks run under valgrind's
# callgrind, which counts the instructions in mca_btl_rwv.so alone,
# inside bench_msgrate's loop of windows.  Both ranks are on one
# node with no shared rings and no vader (btl_rwv_single_copy none,
# --mca btl self,rwv), so the device is their only path: the job must show
# the connection made on verbs/rxe0 and rxe's packet counter moving.
# Instructions do not depend on the emulated CPU's speed; the guest's
# emulation makes a run of 3 sizes take about 10 minutes.
#   test/bench/bench_msgcost_verbs.sh [SIZE...]
# RWV_MSGCOST_FUNCTIONS=N also prints, under the table, each side's N
# costliest functions of mca_btl_rwv.so (own instructions per message),
# the breakdown the trims in docs/results-message-rate.md were read from.
# Prints a markdown table; where the guest cannot run (not root, no qemu),
# one line says why.
set -u
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" != --in-guest ]; then
    command -v valgrind > /dev/null ||
        { echo "Verbs message costs skipped: valgrind is missing (test/deps.sh installs it)."; exit 0; }
    out=$(mktemp)
    trap 'rm -f "$out"' EXIT
    # the console adds carriage returns and terminal escapes (as test_rwv_verbs.sh reads it)
    RWV_GUEST_DEVICES=rxe RWV_RXE_TIMEOUT=${RWV_RXE_TIMEOUT:-2400} "$here/../verbs/guest.sh" \
        env RWV_MSGCOST_FUNCTIONS="${RWV_MSGCOST_FUNCTIONS:-0}" bash "$here/bench_msgcost_verbs.sh" --in-guest "$@" 2>&1 |
        sed -u 's/\r//g; s/\x1bc/\n/g; s/\x1b\[[0-9;?]*[a-zA-Z]//g' > "$out"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -eq 77 ]; then
        echo "Verbs message costs skipped: $(sed -n 's/^guest: skipped: //p' "$out" | head -1)"
        exit 0
    fi
    # the table's lines and the notes under it, wherever a kernel message put them on the console
    grep -aoE '(\||## |Instructions: |  ).*' "$out" | grep -av '^  *$'
    exit "$rc"
fi

shift
. "$here/bench_lib.sh"
. "$here/callgrind_lib.sh"
bin=$build/test/bench/bench_msgrate
sizes=${*:-1 1024 8192}
windows=20 repeats=2 window=16 pause=250000
in_run=$(((windows / 4 + 1 + repeats * windows) * window))
work=$(mktemp -d)
packets=/sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts

# Both ranks under callgrind, each to its own profile, and the counted
# side pausing after it posts each window (bench_msgrate -S or -R), so
# that what it does in MPI is the work of messages already there: the
# emulated device is far slower than either rank, and a side that waits
# for it polls 26 to 100 times per message, which would be most of its count
# (it carries about 100 messages a second with both ranks under callgrind).
job () { # size pause-option profile
    mpirun --timeout 1200 --oversubscribe --bind-to none --mca btl self,rwv --mca btl_rwv_single_copy none \
        --mca btl_rwv_backend verbs --mca btl_rwv_if_include rxenet --mca btl_base_verbose 100 -np 2 \
        --mca mpi_yield_when_idle 1 \
        valgrind --tool=callgrind --fair-sched=yes --toggle-collect=windows \
        --callgrind-out-file="$3-rank%q{OMPI_COMM_WORLD_RANK}.cg" \
        "$bin" -c -w $window -i $windows -r $repeats "$2" $pause "$1"
}

# rank ROLE's figures per message (0 sends, 1 receives), or "failed"
# when the job failed or its bytes did not cross rxe0
rank_cost () { # size role
    local prof=$work/callgrind-$1-role$2 before after
    before=$(cat $packets)
    job "$1" "$([ "$2" = 0 ] && echo -S || echo -R)" "$prof" > "$prof.out" 2>&1 && after=$(cat $packets) &&
        [ $((after - before)) -ge "$in_run" ] && grep -q "btl/rwv: connected to .* on verbs/rxe0:1" "$prof.out" ||
        { echo "failed - - - -"; tail -5 "$prof.out" >&2; return; }
    callgrind_counts "$prof-rank$2.cg" rwv | callgrind_per_message $in_run
    [ "${RWV_MSGCOST_FUNCTIONS:-0}" -gt 0 ] && callgrind_functions "$prof-rank$2.cg" rwv $in_run \
        "${RWV_MSGCOST_FUNCTIONS}" > "$work/functions-$1-role$2"
}

cells () { echo "$1" | sed 's/ / | /g'; }

echo "## What one message costs rwv on the native verbs rail (soft-RoCE, 1 pair, window $window)"
echo
echo "| size | sender: instructions | in MPI_Isend | in memcpy | progress passes | in the BTL | receiver: instructions | in memcpy | progress passes | in the BTL |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for size in $sizes; do
    bench_progress "verbs message cost, $(bench_size "$size")"
    sender=$(rank_cost "$size" 0) receiver=$(rank_cost "$size" 1 | awk '{print $1, $3, $4, $5}')
    echo "| $(bench_size "$size") | $(cells "$sender") | $(cells "$receiver") |"
done
for f in "$work"/functions-*; do
    [ -s "$f" ] || continue
    role=${f##*-role} size=${f#*functions-}
    echo
    echo "## Own instructions per message, $(bench_size "${size%-role*}"), $([ "$role" = 0 ] && echo sender || echo receiver)"
    echo
    sed 's/^/  /' "$f"
done
rm -rf "$work"
echo
echo "Instructions: user space only, per message, inside bench_msgrate's loop of windows, over its"
echo "$in_run messages, of the side that sleeps $((pause / 1000)) ms after posting each window (both under callgrind);"
echo "in the BTL: in mca_btl_rwv.so itself, not ob1, libibverbs, the provider library or libc."
echo "The receiver sends no MPI_Isend. Progress passes: calls of opal_progress per message."
