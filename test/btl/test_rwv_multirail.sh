#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves btl/rwv stripes across every rail to a peer and survives a rail
# that dies, with every byte checked:
#  - 2 emulated nodes joined by 2 and by 3 rails: ping-pongs of 0 B to
#    16 MiB and a two-way stream, and every rail carried put/get bytes;
#  - unequal rails (one tbf-limited to half the other's rate);
#  - a rail taken down (ip link set ... down) in the middle of a stream of
#    16 MiB messages (and smaller ones on every other path): a warning names
#    the rail and the job ends with every byte correct; the same with two of
#    three rails going down at once and eager messages on every rail in turn;
#  - every rwv rail to the peer gone: the job ends with a message naming the
#    peer's host, no hang;
#  - a bandwidth list or rail list that does not match the rails found: a
#    message, and the job runs on the rails found.
# Run again with RWV_CLUSTER_FAMILIES set (rails of mixed address families),
# it leaves out what the families do not change: unequal rails, the
# barriers' rail and the lists.
set -u
. "$(dirname "$0")/../cluster/cluster.sh"
. "$(dirname "$0")/../lib.sh"
mpi=$RWV_BUILD/test/mpi
err=$(mktemp)
out=$(mktemp)
trap 'rm -f "$err" "$out"; cluster_down' EXIT
two=(-np 2 --map-by node --mca btl self,rwv)
one_family () { [ -z "${RWV_CLUSTER_FAMILIES:-}" ]; }

# bytes put or got on each rail of rank 0's connection, from its verbose report
rail_bytes () { # file rail-interface
    grep "^\[rwvn1:.*btl/rwv: rail ofi/tcp $2 .* bytes put or got" "$1" | sed 's/.*sent, \([0-9]*\) bytes.*/\1/' | head -1
}

striped_run () { # label rails messages [rate]
    local label=$1 rails=$2 count=$3 rate=${4:-} r bytes used=() rc
    cluster_up 2 "$rails" "$rate" || exit $?
    cluster_mpirun "${two[@]}" --mca btl_base_verbose 100 "$mpi/test_pingpong_verify" -m 16777216 > "$out" 2>&1
    rc=$?
    for ((r = 1; r <= rails; r++)); do
        bytes=$(rail_bytes "$out" "r$r")
        [ "${bytes:-0}" -gt 0 ] && used+=("r$r: $bytes B")
    done
    if job_ended "$rc" && grep -q '^ok - ping-pong' "$out" && [ "${#used[@]}" -eq "$rails" ]; then
        echo "ok - ping-pong of 0 B to 16 MiB over $label: every byte correct, every rail carried data (${used[*]})"
    else
        echo "not ok - ping-pong over $label: exit $rc, rails used: ${used[*]:-none}"
        grep -E '^(ok|not ok)|rail ofi|error' "$out" | head -10
    fi
    cluster_mpirun "${two[@]}" "$mpi/test_stream_verify" -n "$count" -t 0 > "$out" 2>&1
    if [ $? -eq 0 ] && grep -q '^ok - ' "$out"; then
        echo "ok - two-way stream of $count messages up to 16 MiB (split eager, rendezvous) over $label"
    else
        echo "not ok - stream over $label"; tail -5 "$out"
    fi
}

striped_run "2 emulated nodes, 2 rails" 2 120
striped_run "2 emulated nodes, 3 rails" 3 120
one_family && striped_run "2 rails, one tbf-limited to half the other's rate (400mbit, 200mbit)" 2 16 400mbit,200mbit

# Start a stream, take DEVs of node 2 down once 20 messages have passed,
# and let the stream end once rwv has said it lost a rail and 40 more
# messages have passed (or the job has ended).  Sets rc; output in $out,
# errors in $err.
stream_with_failure () { # mpirun-args... -- dev...
    local args=() pid rc stop=$out.stop
    while [ "$1" != "--" ]; do args+=("$1"); shift; done
    shift
    : > "$out" # before the job starts: the wait below must not see the last run's progress
    rm -f "$stop"
    run_job 240 bash -c '. "$1"; shift; cluster_mpirun "$@"' cluster-job "$(dirname "$0")/../cluster/cluster.sh" \
        "${two[@]}" "${args[@]}" "$mpi/test_stream_verify" -n 60 -t 10 -f "$stop" > "$out" 2> "$err" &
    pid=$!
    wait_for_line "$out" '^# progress 20'
    for dev in "$@"; do ip -n "$(cluster_node_name 2)" link set "$dev" down; done
    stream_ride_out $pid "$out" "$err" 'lost a rail' 1 "$stop"
    # the next attempt (run_keeping_help) needs the rails back
    wait $pid
    rc=$?
    for dev in "$@"; do ip -n "$(cluster_node_name 2)" link set "$dev" up; done
    cluster_wait_links 2 "$(cat "$RWV_CLUSTER_STATE/rails")" 2>/dev/null
    return $rc
}

failover_run () { # label rails dev... -- extra mpirun args
    local label=$1 rails=$2 devs=() args=()
    shift 2
    while [ "$1" != "--" ]; do devs+=("$1"); shift; done
    shift
    args=("$@")
    cluster_up 2 "$rails" || exit $?
    RWV_EXPECT="lost a rail to host rwvn" run_keeping_help "$err" stream_with_failure "${args[@]}" -- "${devs[@]}"
    rc=$?
    if job_ended "$rc" && grep -q '^ok - a two-way stream of [0-9]* messages.*: 0 corrupted' "$out" && grep -q 'lost a rail to host rwvn' "$err" &&
       grep -qE "rail: +ofi/tcp ($(IFS='|'; echo "${devs[*]}")) " "$err"; then
        echo "ok - $label: a warning names the rail, the job goes on and every byte arrives"
    else
        echo "not ok - $label: exit $rc"; grep -E '^(ok|not ok)' "$out"; grep -v '^$' "$err" | tail -12
    fi
}

failover_run "r2 of 2 rails down in the middle of a stream of 16 MiB messages" 2 r2 --
failover_run "r2 and r3 of 3 rails down at once, eager messages on the first live rail" 3 r2 r3 -- \
    --mca btl_rwv_eager_rail first
# a cold peer (no hot set): its larger messages are read by the receiver
# (FETCH), and those outstanding on the rail that goes are replayed on the other
failover_run "r2 of 2 rails down under a cold peer's stream (btl_rwv_hot_peers 0)" 2 r2 -- \
    --mca btl_rwv_hot_peers 0

if one_family; then
    # coll/rdmabar's flags are small puts, injected with a copy kept until
    # confirmed, on the first ready rail: r2 (listed first) goes down during a
    # million back-to-back barriers
    cluster_up 2 2 || exit $?
    barriers () {
        (sleep 3; ip -n "$(cluster_node_name 2)" link set r2 down) &
        run_job 240 bash -c '. "$1"; shift; cluster_mpirun "$@"' cluster-job "$(dirname "$0")/../cluster/cluster.sh" \
            "${two[@]}" "$RWV_BUILD/test/coll/test_barrier" -n 2 -b 1000000 -c 10 > "$out"
        rc=$?
        wait
        ip -n "$(cluster_node_name 2)" link set r2 up
        cluster_wait_links 2 2 2>/dev/null
        return $rc
    }
    RWV_EXPECT="lost a rail to host rwvn" run_keeping_help "$err" barriers
    rc=$?
    if job_ended "$rc" && grep -q '^ok - 1000000 back-to-back barriers' "$out" && ! grep -q '^not ok' "$out" &&
       grep -q 'lost a rail to host rwvn' "$err"; then
        echo "ok - coll/rdmabar's barriers go on, correct, when the rail carrying their flags goes down"
    else
        echo "not ok - barriers over a failing rail: exit $rc"; grep -E '^(ok|not ok)' "$out"; grep -v '^$' "$err" | tail -8
    fi
fi

# the runtime keeps rail 1; rwv has rails 2 and 3 only, and loses both
cluster_up 2 3 || exit $?
RWV_EXPECT="could not keep a connection to host rwvn" run_keeping_help "$err" \
    stream_with_failure --mca btl_rwv_if_include r2,r3 --mca btl_rwv_rail_down_timeout 2 -- r2 r3
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q 'could not keep a connection to host rwvn' "$err" &&
   grep -q 'did not come back within 2 s' "$err"; then
    echo "ok - losing the last rail to a peer for longer than btl_rwv_rail_down_timeout ends the job with a message naming the peer's host, no hang"
else
    echo "not ok - last rail lost: exit $rc"; grep -v '^$' "$err" | tail -12
fi

if one_family; then
    # lists that do not match the rails found
    cluster_up 2 2 || exit $?
    RWV_EXPECT="cannot use btl_rwv_rail_bandwidth" run_keeping_help "$err" cluster_mpirun "${two[@]}" \
        --mca btl_rwv_rail_bandwidth 1000,2000,3000 "$mpi/test_pingpong_verify" -m 1048576 > "$out"
    if [ $? -eq 0 ] && grep -q '^ok - ping-pong' "$out" && grep -q 'it has 3 value(s) for 2 network rail(s)' "$err"; then
        echo "ok - a bandwidth list for 3 rails on 2: a message listing the rails, and the job runs on measured bandwidths"
    else
        echo "not ok - bandwidth list mismatch"; tail -8 "$err"
    fi
    RWV_EXPECT='found no rail for "nosuch0"' run_keeping_help "$err" cluster_mpirun "${two[@]}" \
        --mca btl_rwv_if_include r2,nosuch0 "$mpi/test_pingpong_verify" -m 1048576 > "$out"
    if [ $? -eq 0 ] && grep -q '^ok - ping-pong' "$out" && grep -q 'goes on with the rails it found: r2' "$err"; then
        echo "ok - a rail list naming an interface that does not exist: a message, and the job runs on the rails found"
    else
        echo "not ok - rail list mismatch"; tail -8 "$err"
    fi
fi
