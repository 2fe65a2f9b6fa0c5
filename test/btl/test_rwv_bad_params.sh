#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves invalid btl/rwv parameters give a clear message and rwv steps
# aside: the job runs on the other BTLs, or stops with that message (never
# a hang) when rwv was the only network BTL.  Under run-tests.sh --core
# (another Open MPI series) one parameter of each kind is tried (a limit
# set through the BTL's own, an integer, a word from a list, a size, an
# interface list): the checks are rwv's own, the same in every series;
# what the series changes is how a parameter and its message reach a rank.
set -u
. "$(dirname "$0")/../lib.sh"
bin=$RWV_BUILD/test/mpi/test_pingpong_verify
err=$(mktemp)
trap 'rm -f "$err"' EXIT
fail=0

check_param () { # description mca-args... -- expected-message (ALSO_CORE=1: under --core too)
    [ -n "${RWV_CORE:-}" ] && [ -z "${ALSO_CORE:-}" ] && return
    local what=$1
    shift
    local args=()
    while [ "$1" != "--" ]; do args+=("$1"); shift; done
    local expect=$2
    local out rc

    out=$(RWV_EXPECT=$expect run_keeping_help "$err" run_job 60 mpirun -np 2 --mca btl self,vader,tcp,rwv "${args[@]}" "$bin" -m 65536)
    rc=$?
    if job_ended "$rc" && echo "$out" | grep -q '^ok - ping-pong' && grep -q "$expect" "$err"; then
        echo "ok - $what: clear message, and the job runs on the other BTLs"
    else
        echo "not ok - $what with other BTLs: exit $rc"; tail -5 "$err"; fail=1
    fi
    out=$(RWV_EXPECT=$expect run_keeping_help "$err" run_job 60 mpirun -np 2 --mca btl self,rwv "${args[@]}" "$bin" -m 65536)
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q "$expect" "$err"; then
        echo "ok - $what: with rwv the only network BTL the job stops with that message"
    else
        echo "not ok - $what alone: exit $rc"; tail -5 "$err"; fail=1
    fi
}

ALSO_CORE=1 check_param "an eager limit larger than a ring slot" \
    --mca btl_rwv_eager_limit 1000000 -- "an eager message must fit in one ring slot"
ALSO_CORE=1 check_param "zero eager slots" --mca btl_rwv_eager_slots 0 -- "btl_rwv_eager_slots = 0"
check_param "rings of 4 GiB per peer (65536 slots of the default size)" --mca btl_rwv_eager_slots 65536 -- \
    "4106.0 MiB for each large receive ring"
ALSO_CORE=1 check_param "an unknown eager mode" --mca btl_rwv_eager_mode fast -- "use auto, poll or cq"
ALSO_CORE=1 check_param "an interface list matching nothing" --mca btl_rwv_if_include nosuchif0 -- "found no usable network rail"
check_param "an unknown provider" --mca btl_rwv_provider_include nosuchprov -- "btl_rwv_provider_include = nosuchprov"
check_param "an unknown eager rail policy" --mca btl_rwv_eager_rail fastest -- "use first or round_robin"
check_param "a stripe piece too small" --mca btl_rwv_stripe_min_size 100 -- "btl_rwv_stripe_min_size = 100"
check_param "an unknown backend" --mca btl_rwv_backend rdma -- "use auto, ofi or verbs"
check_param "an unknown single-copy mechanism" --mca btl_rwv_single_copy xpmem -- "use cma or none"
check_param "an unknown put completion" --mca btl_rwv_put_completion remote -- "use ordered or delivered"
check_param "a batch copy limit below -1" --mca btl_rwv_batch_copy_max_shared -2 -- "use -1 (always copy) or a number of bytes"
check_param "a batch copy limit below -2 (auto)" --mca btl_rwv_batch_copy_max -3 -- "use -2 (auto), -1 (always copy) or a number of bytes"
check_param "a negative rail-down timeout" --mca btl_rwv_rail_down_timeout -1 -- "use 0 or a positive number of seconds"
check_param "a hot set below -1" --mca btl_rwv_hot_peers -2 -- "use -1 (no limit) or 0 to 65535 peers per rail"
check_param "promotion after no message" --mca btl_rwv_promote_after 0 -- "btl_rwv_promote_after = 0"
check_param "a cold ring of one slot" --mca btl_rwv_cold_slots 1 -- "btl_rwv_cold_slots = 1"
ALSO_CORE=1 check_param "cold slots too small for a header" --mca btl_rwv_cold_slot_size 100 -- "btl_rwv_cold_slot_size = 100"
check_param "warm slots smaller than cold ones" --mca btl_rwv_warm_slot_size 512 -- "btl_rwv_warm_slot_size = 512"
check_param "a warm set below -1" --mca btl_rwv_warm_peers -2 -- "use -1 (no limit) or 0 to 65535 peers per rail"
check_param "send rings below 0" --mca btl_rwv_send_rings -1 -- "use 0 to 65535 send rings per rail"
if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
    check_param "the verbs backend on a machine without RDMA devices" --mca btl_rwv_backend verbs -- \
        "no RDMA device was found"
fi

# processes given different slot sizes: rank 1 takes eager messages of at
# most 4096 bytes, rank 0 sends up to 64 KiB; rwv says so at start-up and
# does not reach rank 1 from rank 0 (never a malformed message later)
# (set by rank, not by a second app context: Open MPI 5.0.7's mpirun
# crashes on those here)
differ=(-np 2 bash -c '[ "$OMPI_COMM_WORLD_RANK" = 1 ] && export OMPI_MCA_btl_rwv_eager_slot_size=4128; exec "$0" "$@"'
        "$bin" -m 65536)
out=$(RWV_EXPECT="cannot reach process" run_keeping_help "$err" run_job 60 mpirun --mca btl self,vader,tcp,rwv "${differ[@]}")
rc=$?
if job_ended "$rc" && echo "$out" | grep -q '^ok - ping-pong' && grep -q "cannot reach process" "$err" &&
   ! grep -q "malformed" "$err"; then
    echo "ok - eager slot sizes that differ between processes: clear message at start-up, and the job runs on the other BTLs"
else
    echo "not ok - eager slot sizes that differ, with other BTLs: exit $rc"; tail -5 "$err"; fail=1
fi
# rwv's part ends when a rank stops in MPI_Init with the message (the
# runtime may lose its own abort text with a show_help ORTE error); Open MPI
# 4.1.4's mpirun then now and then hangs or crashes tearing the job down
# (in PMIx_server_finalize), so its own exit status (125 from run_job,
# 139) is not held against rwv
out=$(RWV_EXPECT="cannot reach process" run_keeping_help "$err" run_job 60 mpirun --mca btl self,rwv "${differ[@]}")
rc=$?
if [ "$rc" -ne 0 ] && grep -q "cannot reach process" "$err" && grep -q "btl_rwv_eager_slot_size - 32" "$err" &&
   ! grep -q "malformed" "$err" && ! echo "$out" | grep -q '^ok - '; then
    echo "ok - eager slot sizes that differ between processes: with rwv the only network BTL the job stops with that message"
else
    echo "not ok - eager slot sizes that differ, rwv alone: exit $rc"; tail -5 "$err"; fail=1
fi

# rings of 56 MiB (900 slots) under an address-space limit on the ranks
# that lets MPI_Init through but not the ring: rwv says what it could not
# allocate and how to fix it, no crash.  One malloc arena per process keeps
# the address space a process needs from depending on which thread took
# memory first (each thread's arena reserves 64 MiB); the limit that lands
# in the window still depends a little on the machine and the series, so a
# few are tried, highest first.
ring_message=""
tried=""
for limit in 150000 120000 100000 90000 80000 70000 60000; do
    # the runtime may lose the message on its way (test/lib.sh): rerun then
    run_keeping_help "$err" run_job 60 mpirun -np 2 --mca btl self,rwv --mca btl_rwv_single_copy none \
        --mca btl_rwv_hot_peers -1 --mca btl_rwv_eager_slots 900 \
        env MALLOC_ARENA_MAX=1 bash -c 'ulimit -v "$0" && exec "$1" -m 1024' "$limit" "$bin" > /dev/null
    tried="$tried $limit:exit-$?"
    if grep -q 'could not make the receive ring' "$err"; then
        ring_message=$limit
        break
    fi
done
if [ -n "$ring_message" ] && ! grep -q -i -e 'segmentation fault' -e 'signal 11' "$err" &&
   grep -q 'allocating 56.4 MiB failed' "$err" && grep -q 'Lower' "$err"; then
    echo "ok - a ring that cannot be allocated (ulimit -v $ring_message): rwv's own message says how much and what to lower"
else
    echo "not ok - ring allocation failure: no message from rwv (limits tried:$tried)"; tail -8 "$err" | sed 's/^/# /'
fi
exit $fail
