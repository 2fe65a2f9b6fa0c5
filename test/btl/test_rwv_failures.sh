#!/usr/bin/env bash
# Proves failures end the job with a message instead of hanging:
#  - a peer whose rail went down after start-up: rwv reports the peer's
#    host and the rail after btl_rwv_connect_timeout;
#  - a peer killed in the middle of a transfer: with mpirun told to let the
#    survivors run on (--enable-recovery), rwv itself must notice that the
#    peer closed the connection without the goodbye it writes at finalize.
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
timeout 120 bash -c '. "$0"; cluster_mpirun -np 2 --map-by node --mca btl self,rwv \
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
RWV_EXPECT="could not keep a connection to host rwvn2" run_keeping_help "$err" timeout 120 bash -c '. "$0"; cluster_mpirun -np 2 --map-by node --enable-recovery \
    --mca btl self,rwv "$1" -m 16777216 -k 1>&2' "$(dirname "$0")/../cluster/cluster.sh" "$bin"
rc=$?
if [ "$rc" -ne 124 ] && grep -q 'closed the connection without saying goodbye' "$err" &&
   grep -q 'could not keep a connection to host rwvn2' "$err"; then
    echo "ok - a peer killed in the middle of a 16 MiB ping-pong: rwv reports its host and ends the job, no hang"
else
    echo "not ok - peer death: exit $rc"; tail -15 "$err"
fi
