#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves transfers to a rank that computes, with no MPI call, complete
# while it computes with btl_rwv_async_progress 1 (the default: rwv's
# connection thread serves its peers), judged by what happened, never by
# time:
#  - one-sided, 2 nodes: fetch-and-ops, compare-and-swap, put and get of
#    1 MiB and an accumulate on the target's window; the target, when its
#    compute ends and before its next MPI call, finds every value in its
#    window;
#  - the same with btl_rwv_async_progress 0: the target finds nothing
#    yet (the check can tell);
#  - rendezvous, 2 nodes: a sender posts 8 MiB and computes; the receiver
#    has every byte, and says so in a file, before the sender's MPI_Wait;
#  - the same target under MPI_THREAD_MULTIPLE (where rwv's lock is a
#    mutex the connection thread takes too);
#  - rendezvous to a receiver that computes, under MPI_THREAD_MULTIPLE
#    (where the thread delivers to ob1): the receiver, when its compute
#    ends and before MPI_Wait, finds the sender's MPI_Send returned (a
#    file) and every byte in its buffer; with btl_rwv_async_progress 0
#    it finds neither (the check can tell);
#  - atomics aimed outside the window (RWV_TEST_FAULT=atomic_addr in the
#    origin) at a target that computes: its thread applies none of them
#    and leaves the first at the head of its ring, which the target's
#    progress refuses with the message that names the sender's host; the
#    target lives;
#  - a peer that dies while the thread serves it: the origin kills itself
#    after 10 fetch-and-ops, mpirun lets the target run on
#    (--enable-recovery); the target finds the 10 done when its compute
#    ends, and its next MPI call reports the peer's host: no hang;
#  - more ranks on a node than it has processors: by default the thread
#    leaves serving to the ranks and says so; set by hand, obeyed;
#  - the connection thread still sleeps while its rank computes with no
#    traffic (test_rwv_busy_peers.sh counts its ticks).
set -u
. "$(dirname "$0")/../lib.sh"
export RWV_CLUSTER=rwvc
. "$(dirname "$0")/../cluster/cluster.sh"
cluster_up 2 1 || exit $?
bin=$RWV_BUILD/test/mpi/test_computing_peer
out=$(mktemp)
done_file=$(mktemp -u /tmp/rwv-computing.XXXXXX)
trap 'rm -f "$out" "$done_file"; cluster_down' EXIT
busy=3

job () { # mpirun-args... -- program-args...   (PROGRESS: btl_rwv_async_progress, 1 unless given)
    local args=()
    while [ "$1" != "--" ]; do args+=("$1"); shift; done
    shift
    run_job 180 bash -c '. "$0"; shift; cluster_mpirun "$@"' "$(dirname "$0")/../cluster/cluster.sh" \
        -- -np 2 --map-by node --mca btl self,rwv --mca btl_rwv_async_progress "${PROGRESS:-1}" "${args[@]}" "$bin" "$@" > "$out" 2>&1
}

report () { # label rc pattern
    if [ "$2" = 0 ] && grep -q "^ok - $3" "$out"; then
        echo "ok - $1 ($(grep -m1 '^# ' "$out" | sed 's/^# //'))"
    else
        echo "not ok - $1: exit $2"; grep -v '^$' "$out" | tail -12 | sed 's/^/#   /'
    fi
}

job -- -m onesided -t $busy
report "2 nodes, one-sided to a target computing $busy s: every fetch-and-op, compare-and-swap, put, get and accumulate in its window before its next MPI call" \
    $? "one-sided to a target computing"

PROGRESS=0 job -- -m onesided -t $busy
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q "had not completed when the target's compute ended" "$out"; then
    echo "ok - with btl_rwv_async_progress 0 the same target finds nothing done when its compute ends (the check can tell)"
else
    echo "not ok - btl_rwv_async_progress 0: exit $rc"; grep -v '^$' "$out" | tail -8 | sed 's/^/#   /'
fi

job -- -m rendezvous -t $busy -f "$done_file"
report "2 nodes, rendezvous of 8 MiB from a sender computing $busy s: received whole, every byte right, before the sender's MPI_Wait" \
    $? "rendezvous from a sender computing"

job -- -m onesided -t $busy -T
report "the same one-sided target under MPI_THREAD_MULTIPLE" $? "one-sided to a target computing"

job -- -m receiver -t $busy -T -f "$done_file"
report "2 nodes, rendezvous of 8 MiB to a receiver computing $busy s under MPI_THREAD_MULTIPLE: the send complete and every byte in place before the receiver's MPI_Wait" \
    $? "rendezvous to a receiver computing"

PROGRESS=0 job -- -m receiver -t $busy -T -f "$done_file"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q "file was missing" "$out"; then
    echo "ok - with btl_rwv_async_progress 0 the same receiver finds nothing arrived when its compute ends (the check can tell)"
else
    echo "not ok - receiver, btl_rwv_async_progress 0: exit $rc"; grep -v '^$' "$out" | tail -8 | sed 's/^/#   /'
fi

# the fault in rank 0 alone, by a wrapper: Open MPI 5.0's mpirun (PRRTE)
# crashes on an MPMD command line whose parts set different variables
run_job 180 bash -c '. "$0"; shift; cluster_mpirun "$@"' "$(dirname "$0")/../cluster/cluster.sh" -- \
    -np 2 --map-by node --mca btl self,rwv sh -c '[ "$OMPI_COMM_WORLD_RANK" != 0 ] || export RWV_TEST_FAULT=atomic_addr; exec "$@"' \
    sh "$bin" -m onesided -t $busy > "$out" 2>&1
rc=$?
if [ "$rc" -ne 124 ] && grep -q "refused a request from host $(cluster_node_name 1)" "$out" && grep -q 'an atomic at 0x' "$out" &&
   ! grep -q -i -e 'segmentation fault' -e 'signal 11' -e 'core dumped' "$out"; then
    echo "ok - atomics aimed outside the window of a target that computes are applied by no one and refused naming the sender's host; the target lives (exit $rc: the origin's own checks see the errors)"
else
    echo "not ok - malformed atomics to a computing target: exit $rc"; grep -v '^$' "$out" | tail -12 | sed 's/^/#   /'
fi

job --enable-recovery -- -m onesided -t $busy -k
rc=$?
if [ "$rc" -ne 124 ] && grep -q "counter 10 of 100" "$out" &&
   grep -q -e "could not keep a connection to host $(cluster_node_name 1)" \
           -e "btl/rwv: connection to $(cluster_node_name 1) failed" "$out" &&
   ! grep -q -i -e 'segmentation fault' -e 'signal 11' -e 'core dumped' "$out"; then
    echo "ok - a peer that dies while the thread serves it: the target had its 10 fetch-and-ops, and its next MPI call reports the peer's host (exit $rc)"
else
    echo "not ok - a peer dying while served: exit $rc"; grep -v '^$' "$out" | tail -12 | sed 's/^/#   /'
fi

# More ranks on one node than it has processors: by default the thread
# leaves serving to the ranks (it would take a processor from one) and
# says so; set explicitly, btl_rwv_async_progress is obeyed
crowd=$(($(nproc) + 1))
fit () { # mpirun-args...
    run_job 120 mpirun --oversubscribe -np $crowd --mca btl self,vader,rwv --mca btl_base_verbose 100 "$@" \
        "$RWV_BUILD/test/coll/test_barrier" -n 1 > "$out" 2>&1
}
fit
said=$(grep -c "$crowd ranks on this node's $(nproc) processors: the connection thread does not serve" "$out")
fit --mca btl_rwv_async_progress 1
if [ "$said" = "$crowd" ] && grep -q '^ok - 1 skewed barriers' "$out" && ! grep -q 'does not serve' "$out"; then
    echo "ok - $crowd ranks on $(nproc) processors: every rank's thread leaves serving to the ranks and says so; btl_rwv_async_progress 1 set by hand is obeyed"
else
    echo "not ok - ranks outnumbering processors: $said of $crowd ranks said so by default"; tail -6 "$out" | sed 's/^/#   /'
fi
