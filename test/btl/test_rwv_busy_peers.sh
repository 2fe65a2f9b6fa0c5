#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves a rank busy computing, with no MPI call, is never failed for it:
# its peers contact it for the first time while it computes for longer
# than btl_rwv_connect_timeout (3 s here, busy 5 s), and rwv's connection
# thread answers them, so every message arrives once it calls MPI again:
#  - 2 nodes: an 8-byte, a 60,000-byte and a 1 MiB message (eager, eager
#    read by the receiver from a cold peer, rendezvous), every byte checked;
#    the connection is answered at once, never waited for past the
#    timeout; with btl_rwv_connection_thread 0 it is, the job finishing
#    only because rwv's probe finds the busy rank's host up (the check
#    can tell);
#  - 2 nodes under MPI_THREAD_MULTIPLE, 4 threads sending at once;
#  - one-sided at first contact: MPI_Put and MPI_Fetch_and_op to a busy
#    target (3 ranks on 3 nodes; coll/basic connects each rank to rank 0
#    only, so ranks 1 and 2 first meet in the put), values checked;
#  - 4 nodes x 2 ranks: seven ranks contact one busy rank at once;
#  - a rank stopped (SIGSTOP, as a debugger attaching stops it) past the
#    timeout at first contact, 2 nodes point to point and 3 nodes
#    one-sided: its host still answers at the transport level, so rwv
#    waits on, and every byte arrives once it runs again;
#  - the connection thread sleeps: while the rank computes, its rwv-conn
#    thread uses no CPU time worth a tick or two (a spinning one: hundreds).
# The unreachable and killed peers are test_rwv_failures.sh's.
set -u
. "$(dirname "$0")/../lib.sh"
export RWV_CLUSTER=rwvb
. "$(dirname "$0")/../cluster/cluster.sh"
cluster_up 4 1 || exit $?
bin=$RWV_BUILD/test/mpi/test_busy_peer
out=$(mktemp)
trap 'rm -f "$out"; cluster_down' EXIT
timeout_args=(--mca btl self,rwv --mca btl_rwv_connect_timeout 3 --mca mpi_yield_when_idle 1)
# long enough past the timeout that a job without the connection thread fails
busy=5

job () { # mpirun-args... -- program-args...
    local args=() rc
    while [ "$1" != "--" ]; do args+=("$1"); shift; done
    shift
    run_job 180 bash -c '. "$0"; shift; cluster_mpirun "$@"' "$(dirname "$0")/../cluster/cluster.sh" \
        -- "${args[@]}" "${timeout_args[@]}" "$bin" "$@" > "$out" 2>&1
    rc=$?
    return $rc
}

expect_ok () { # label pattern
    if [ "$rc" = 0 ] && grep -q "^ok - $2" "$out" && ! grep -q 'could not keep a connection' "$out"; then
        echo "ok - $1"
    else
        echo "not ok - $1: exit $rc"; grep -v '^$' "$out" | tail -12 | sed 's/^/#   /'
    fi
}

job -np 2 --map-by node --mca btl_base_verbose 40 -- -b $busy; rc=$?
grep -q 'within btl_rwv_connect_timeout .*: probing its host' "$out" && rc="$rc (the sender waited past the timeout)"
expect_ok "2 nodes, a rank busy $busy s at first contact (timeout 3 s): answered at once, eager, FETCH and rendezvous messages arrive, every byte right" \
    "rank 1 busy $busy s at first contact"

# Without the connection thread nobody answers while the rank computes:
# the sender's attempt outlives the timeout, and only the probe of the
# busy rank's host (which answers) keeps it from failing, so the check
# above can tell the thread answered
job -np 2 --map-by node --mca btl_rwv_connection_thread 0 --mca btl_base_verbose 40 -- -b $busy; rc=$?
if [ "$rc" = 0 ] && grep -q "^ok - rank 1 busy $busy s at first contact" "$out" &&
   grep -q 'within btl_rwv_connect_timeout .*: probing its host' "$out"; then
    echo "ok - the same job with btl_rwv_connection_thread 0 waits past the timeout for the busy rank (its host answers rwv's probe), every byte right: the check above can tell"
else
    echo "not ok - without the connection thread the sender should wait on, past the timeout: exit $rc"; tail -8 "$out" | sed 's/^/#   /'
fi

job -np 2 --map-by node -- -b $busy -t 4; rc=$?
expect_ok "2 nodes, MPI_THREAD_MULTIPLE: 4 threads send to a rank busy $busy s at first contact, every byte right" \
    "rank 1 busy $busy s at first contact: .* x 4 threads"

job -np 3 --map-by node --mca coll basic,self,libnbc --mca btl_base_verbose 100 -- -b $busy -o; rc=$?
# the trace shows rank 1 first meeting rank 2 now, not at window creation
grep -q "rwvb2:.*connecting to \[\[[0-9]*,1\],2\]" "$out" || rc="$rc (rank 1 never connected to rank 2 here)"
expect_ok "3 nodes, one-sided: MPI_Put and MPI_Fetch_and_op to a target busy $busy s at first contact, values right" \
    "one-sided to rank 2 busy $busy s"

# A rank stopped at first contact, as a debugger attaching stops it: its
# threads are all stopped, but its kernel still completes TCP handshakes
# on its listener.  Past the timeout rwv probes the host (btl_rwv_probe.c),
# finds it answering and waits on; SIGCONT comes $stopped s later, more
# than twice the timeout.  (An unreachable host still fails after the
# timeout: test_rwv_failures.sh.)
stopped=8
stopped_job () { # label pattern mpirun-args... -- program-args...
    local label=$1 pattern=$2 stop
    shift 2
    stop=$(mktemp)
    (wait_for_line "$stop" . && sleep $stopped && kill -CONT "$(cat "$stop")") &
    job "$@" -s "$stop"; rc=$?
    wait
    rm -f "$stop"
    expect_ok "$label" "$pattern"
}
stopped_job "2 nodes, a rank stopped (SIGSTOP) $stopped s at first contact (timeout 3 s): eager, FETCH and rendezvous messages arrive, every byte right" \
    "rank 1 stopped (SIGSTOP) at first contact" -np 2 --map-by node --
stopped_job "3 nodes, one-sided: MPI_Put and MPI_Fetch_and_op to a target stopped $stopped s at first contact, values right" \
    "one-sided to rank 2 stopped (SIGSTOP)" -np 3 --map-by node --mca coll basic,self,libnbc -- -o

# 4 nodes x 2 ranks: ranks 0-6 contact rank 7 at once.  The busy rank
# reads its own rwv-conn threads' CPU time over the busy phase, which is
# CPU time, not wall time: a loaded machine does not change it.
job -np 8 --map-by node -- -b $busy; rc=$?
expect_ok "4 nodes x 2 ranks: seven ranks contact a rank busy $busy s at once, every byte right" \
    "rank 7 busy $busy s at first contact: .* 7 ranks"
used=$(sed -n 's/^# rwv-conn CPU while busy: \([0-9]*\) ticks in '"$busy"' s, [1-9][0-9]* threads$/\1/p' "$out" | head -1)
if [ -n "$used" ] && [ "$used" -le 40 ]; then
    echo "ok - the connection thread sleeps while its rank computes: $used ticks in $busy s while answering 7 ranks"
else
    echo "not ok - connection thread CPU time while busy $busy s (a spinning one takes about 100 ticks a second):" \
        "$(grep 'rwv-conn CPU' "$out" || echo 'no rwv-conn thread seen')"
fi
