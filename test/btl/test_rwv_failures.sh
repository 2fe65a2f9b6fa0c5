#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves failures end the job with a message instead of hanging:
#  - a peer whose rail went down after start-up: rwv reports the peer's
#    host and the rail after btl_rwv_connect_timeout;
#  - a peer killed in the middle of a transfer: with mpirun told to let the
#    survivors run on (--enable-recovery), rwv itself must notice that the
#    peer closed the connection without the goodbye it writes at finalize,
#    or that a write to it failed, and that its process ended (its host
#    refuses connections to its listener);
#  - a live peer that closes its connection without a goodbye: the job
#    ends, and the message says the peer still runs;
#  - the only rail's link down for 2 s in the middle of a stream: the job
#    rides it out (btl_rwv_rail_down_timeout) with every byte right, as it
#    does over btl/tcp;
#  - one of two rails down for 2 s, with and without hot peers: the peers
#    carry on over the other, and the rail is re-established and used
#    again once its link is back.
set -u
. "$(dirname "$0")/../cluster/cluster.sh"
. "$(dirname "$0")/../lib.sh"
cluster_up 2 2 || exit $?
bin=$RWV_BUILD/test/mpi/test_pingpong_verify
err=$(mktemp)
trap 'rm -f "$err"; cluster_down' EXIT

# rwv may use only rail 2; the runtime keeps rail 1.  Rail 2 of node 2 goes
# down while the ranks sleep after MPI_Init, before their first message.
(sleep 2; ip -n "$(cluster_node_name 2)" link set r2 down) &
start=$(date +%s)
run_job 120 bash -c '. "$0"; cluster_mpirun -np 2 --map-by node --mca btl self,rwv \
    --mca btl_rwv_if_include r2 --mca btl_rwv_connect_timeout 3 "$1" -d 4 -m 1024' \
    "$(dirname "$0")/../cluster/cluster.sh" "$bin" > /dev/null 2> "$err"
rc=$?
wait
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q 'could not keep a connection to host rwvn' "$err" &&
   grep -q 'local rail:   ofi/tcp r2' "$err"; then
    echo "ok - an unreachable peer ends the job after btl_rwv_connect_timeout with a message naming its host and the rail ($(( $(date +%s) - start )) s)"
else
    echo "not ok - unreachable peer: exit $rc"; tail -15 "$err"
fi

ip -n "$(cluster_node_name 2)" link set r2 up
RWV_EXPECT="could not keep a connection to host rwvn2" run_keeping_help "$err" run_job 120 bash -c '. "$0"; cluster_mpirun -np 2 --map-by node --enable-recovery \
    --mca btl self,rwv "$1" -m 16777216 -k 1>&2' "$(dirname "$0")/../cluster/cluster.sh" "$bin"
rc=$?
# Usually rwv reads the close; a write still in flight when the peer died
# fails first instead (the tcp provider cancels it as it shuts the
# connection), and that too must end the job with the report.
# A close without goodbye is judged by the peer's listener: a killed
# process has none left, so its host refuses.
if [ "$rc" -ne 124 ] && grep -q 'could not keep a connection to host rwvn2' "$err" &&
   { grep -Eq 'reason: +.*without saying goodbye.*so its process has ended' "$err" ||
     grep -Eq 'reason: +a write on this rail failed' "$err"; }; then
    echo "ok - a peer killed in the middle of a 16 MiB ping-pong: rwv reports its host, that its process ended, and ends the job, no hang"
else
    echo "not ok - peer death: exit $rc"; tail -15 "$err"
fi

# A live peer that gives the connection up on its side (RWV_TEST_FAULT
# drop_conn: rank 0, the passive side by the crossing rule, closes the
# connection it accepted, unsaid, and waits on): its listener still
# answers, so rwv must not call it dead.  One rail, so it was the last.
RWV_EXPECT="could not keep a connection to host rwvn1" run_keeping_help "$err" run_job 120 bash -c '. "$0"; cluster_mpirun \
    --mca btl self,rwv --mca btl_rwv_if_include r2 -np 1 --host rwvn1 -x RWV_TEST_FAULT=drop_conn "$1" -m 1024 : -np 1 --host rwvn2 "$1" -m 1024 1>&2' \
    "$(dirname "$0")/../cluster/cluster.sh" "$bin"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q 'could not keep a connection to host rwvn1' "$err" &&
   grep -Eq 'reason: +.*without saying goodbye: its listener still answers, so its process runs' "$err" &&
   ! grep -q 'process has ended' "$err"; then
    echo "ok - a live peer that closed the connection unsaid is reported running, not dead, and the job ends"
else
    echo "not ok - live peer closing: exit $rc"; tail -15 "$err"
fi

# rail 2 of node 2 flaps for 2 s after 20 messages of a two-way stream,
# with rwv on the rails RAILS (the runtime keeps r1); the stream ends once
# rwv has logged COUNT lines matching BACK (the rail back in use) and 40
# messages have passed since, or once the job has ended
flap () { # rails out back count [mca-args...]
    local pid rails=$1 out=$2 back=$3 count=$4 stop=$2.stop
    shift 4
    : > "$out"
    rm -f "$stop"
    run_job 240 bash -c '. "$0"; rails=$1 bin=$2 stop=$3; shift 3; cluster_mpirun -np 2 --map-by node \
        --mca mpi_yield_when_idle 1 --mca btl self,rwv --mca btl_rwv_if_include "$rails" --mca btl_base_verbose 40 \
        "$@" "$bin" -n 60 -t 10 -f "$stop"' \
        "$(dirname "$0")/../cluster/cluster.sh" "$rails" "$RWV_BUILD/test/mpi/test_stream_verify" "$stop" "$@" \
        > "$out" 2> "$err" &
    pid=$!
    wait_for_line "$out" '^# progress 20'
    ip -n "$(cluster_node_name 2)" link set r2 down
    sleep 2
    ip -n "$(cluster_node_name 2)" link set r2 up
    stream_ride_out $pid "$out" "$err" "$back" "$count" "$stop"
    wait $pid
}
out=$(mktemp)
flap r2 "$out" 'r2 .*: the link is back after' 1
rc=$?
if job_ended "$rc" && grep -q '^ok - a two-way stream of [0-9]* .* 0 corrupted bytes' "$out" &&
   grep -q 'r2 .*: the link went down; peers with no other rail wait' "$err" && grep -q 'r2 .*: the link is back after' "$err"; then
    echo "ok - the only rail's link down for 2 s in the middle of a stream: the job rides it out with every byte right"
else
    echo "not ok - 2 s link flap on the only rail: exit $rc"; grep -E '^(ok|not ok)' "$out"; grep -v '^$' "$err" | tail -10
fi

# with two rails the peers move to r1 at once, and r2 is re-established
# once its link is back: rank 0's report at finalize shows r2 carrying
# traffic on its new connection.  With no hot peers, messages above a
# small slot are read by the receiver (FETCH): a read the flap breaks is a
# broken connection, not the peer's malformed message, so r2 comes back.
two_rail_flap () { # label [mca-args...]
    local label=$1 rc report traffic
    shift
    flap r1,r2 "$out" 'r2 .*: the rail to rwvn[12] .* is re-established' 2 "$@"
    rc=$?
    report=$(grep -h '^\[rwvn1:.*btl/rwv: rail ofi/tcp r2 .*re-established' "$out" "$err" | head -1)
    traffic=$(echo "$report" | sed -n 's/.* \([0-9]*\) eager messages sent, \([0-9]*\) bytes put or got since connected.*/\1 \2/p')
    if job_ended "$rc" && grep -q '^ok - a two-way stream of [0-9]* .* 0 corrupted bytes' "$out" &&
       grep -q 'lost a rail to host rwvn' "$err" && [ "$(grep -c 'r2 .*: the rail to rwvn[12] .* is re-established' "$err")" -eq 2 ] &&
       echo "$report" | grep -qE 're-established [1-9][0-9]* times' && [ "${traffic% *}${traffic#* }" != "00" ] &&
       [ -n "$traffic" ] && ! grep -q 'malformed message' "$err"; then
        echo "ok - $label: traffic moves to the other, the rail is re-established on both sides and carries traffic again (eager messages, bytes since: $traffic), every byte right"
    else
        echo "not ok - $label: exit $rc, report: ${report:-none}"
        grep -E '^(ok|not ok)' "$out"; grep -v '^$' "$err" | grep -v 'mca: \|select:' | tail -12
    fi
}
two_rail_flap "one of two rails down for 2 s in the middle of a stream"
two_rail_flap "the same with no hot peers (btl_rwv_hot_peers 0: eager messages above 1 KiB read by the receiver)" \
    --mca btl_rwv_hot_peers 0
rm -f "$out" "$out.stop"
