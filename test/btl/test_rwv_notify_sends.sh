#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves libfabric rails work where the provider carries no remote CQ data
# (libfabric's verbs provider on iWARP): with btl_rwv_ofi_cq_data false
# the tcp provider takes that path, a zero-length send after each ring
# write the receiver must notice.  Between 2 emulated nodes, so the rails
# are the only path, and with btl_rwv_hot_peers 0, so every ring is a cold
# one that its receiver looks at only when a send says so: a notification
# lost hangs the job (its limit), one too many is harmless.
#  - each rank's rail says it notifies by sends;
#  - ping-pong of 0 B to 16 MiB, every byte checked, and the same with the
#    default hot set (large rings polled, small ones notified);
#  - windows of 64 small messages both ways, exactly once and in order,
#    with the receivers not consuming for 3 s half way;
#  - two rails, r2 taken down in the middle of such a stream: what it held
#    is replayed once on r1, whose receiver is notified the same way;
#  - one rank with btl_rwv_ofi_cq_data false, the other true: the
#    connection is refused with a message naming the parameter, and the
#    job ends instead of hanging.
set -u
. "$(dirname "$0")/../cluster/cluster.sh"
. "$(dirname "$0")/../lib.sh"
bin=$RWV_BUILD/test/mpi
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"; cluster_down' EXIT
sends=(-np 2 --map-by node --mca btl self,rwv --mca btl_rwv_ofi_cq_data false --mca mpi_yield_when_idle 1)

job () { # mpirun-args...
    run_job 300 bash -c '. "$1"; shift; cluster_mpirun "$@"' job "$(dirname "$0")/../cluster/cluster.sh" "$@" \
        > "$out" 2> "$err"
}

expect_ok () { # status label
    if job_ended "$1" && grep -q '^ok - ' "$out" && ! grep -q '^not ok - ' "$out"; then
        echo "ok - $2: $(sed -n 's/^ok - //p' "$out" | head -1)"
    else
        echo "not ok - $2: exit $1"; grep -v '^$' "$out" | tail -6; grep -v '^$' "$err" | tail -8
    fi
}

cluster_up 2 1 || exit $?
job "${sends[@]}" --mca btl_rwv_hot_peers 0 --mca btl_base_verbose 100 "$bin/test_pingpong_verify" -m 16777216
rc=$?
# one line per rank and rail, prefixed [host:pid]: two processes must say it
said=$(cat "$out" "$err" | grep 'remote CQ data off (btl_rwv_ofi_cq_data): a zero-length send follows each ring write' |
       sed -n 's/^\[\([^]]*\)\].*/\1/p' | sort -u | wc -l)
if [ "$said" -ge 2 ]; then
    echo "ok - both ranks' libfabric rails notify ring writes with sends (btl_rwv_ofi_cq_data false)"
else
    echo "not ok - the ranks' rails do not say they notify by sends ($said processes said so)"
fi
expect_ok "$rc" "ping-pong 0 B to 16 MiB, every ring cold and notified by sends"
job "${sends[@]}" "$bin/test_pingpong_verify" -m 16777216
expect_ok $? "ping-pong 0 B to 16 MiB with the default hot set, small rings notified by sends"
job "${sends[@]}" --mca btl_rwv_hot_peers 0 "$bin/test_small_stream" -n 60 -b -p 3
expect_ok $? "windows of 64 small messages both ways, every ring cold, receivers stopped 3 s"

# the two ranks disagree: rank 0 notifies by sends, rank 1 by CQ data
job -np 1 --map-by node --mca btl self,rwv --mca btl_rwv_connect_timeout 5 \
    env OMPI_MCA_btl_rwv_ofi_cq_data=false "$bin/test_pingpong_verify" -m 65536 : \
    -np 1 "$bin/test_pingpong_verify" -m 65536
rc=$?
if [ "$rc" -ne 124 ] && [ "$rc" -ne 0 ] && ! grep -q '^ok - ' "$out" &&
   grep -q 'learns of messages written into its rings' "$out" "$err" &&
   grep -q 'Give btl_rwv_ofi_cq_data the same value' "$out" "$err"; then
    echo "ok - btl_rwv_ofi_cq_data false on one rank only: the connection is refused with a message naming it, the job ends (exit $rc)"
else
    echo "not ok - ranks that notify differently: exit $rc"; grep -v '^$' "$out" "$err" | tail -10
fi
cluster_down

cluster_up 2 2 || exit $?
cluster_stream_r2_down "a cold two-way stream notified by sends" 10 30 "$out" "$err" \
    "${sends[@]}" --mca btl_rwv_hot_peers 0 "$bin/test_small_stream"
