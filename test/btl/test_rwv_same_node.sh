#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves rwv's same-node path (shared eager rings, single copies):
#  - 3 ranks on one node with self,rwv: every pair stores into the other's
#    shared ring, and the semantics checks pass over it;
#  - a rank in its own user namespace may not map or copy from the other
#    (the kernel refuses ptrace access that way): it falls back to the
#    loopback rail, says why, and every byte still arrives;
#  - a rank killed in the middle of a 16 MiB ping-pong while the rings are
#    mapped: the job ends with a message naming the host, no hang;
#  - 2 emulated nodes x 2 ranks with self,rwv: the same-node pairs share
#    rings, the others go over the rail, and the semantics checks pass;
#  - memory handed to rwv for a same-node peer is not registered: over a
#    0 B - 16 MiB ping-pong the registration cache sees no request (and
#    does with single copies off, so the count can fail);
#  - nothing is left in /dev/shm afterwards (the rings are memfds).
set -u
. "$(dirname "$0")/../lib.sh"
bin=$RWV_BUILD/test/mpi
err=$(mktemp)
out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
shm_before=$(ls /dev/shm | wc -l)

run_job 300 mpirun -np 3 --oversubscribe --mca mpi_yield_when_idle 1 --mca btl self,rwv --mca btl_base_verbose 40 \
    "$bin/test_mpi_semantics" > "$out" 2> "$err"
rc=$?
stores=$(grep -c 'are stores into its shared ring' "$err")
if job_ended "$rc" && [ "$stores" -eq 6 ] && grep -q '^ok - ' "$out" && ! grep -q '^not ok' "$out"; then
    echo "ok - 3 ranks on one node: all 6 directions store into shared rings and $(grep -c '^ok - ' "$out") semantics checks pass"
else
    echo "not ok - shared rings at 3 ranks: exit $rc, $stores of 6 directions shared"; grep -E '^not ok' "$out"; tail -5 "$err"
fi

# registrations the cache was asked for (hits + misses, rank 0) over a ping-pong
registrations () {
    run_job 300 mpirun -np 2 --mca btl self,rwv --mca rcache_regcache_print_stats 1 "$@" \
        "$bin/test_pingpong_verify" -m 16777216 > "$out" 2> "$err" < /dev/null || { echo failed; return; }
    grep -q '^ok - ' "$out" || { echo corrupted; return; }
    tr -d '\000' < "$err" | sed -n 's/.*\],0\] rcache\/regcache (btl\/rwv) stats: hits \([0-9]*\) misses \([0-9]*\).*/\1 \2/p' |
        awk '{print $1 + $2}'
}
single=$(registrations)
loopback=$(registrations --mca btl_rwv_single_copy none)
if [ "$single" = 0 ] && [ "${loopback:-0}" -gt 0 ] 2>/dev/null; then
    echo "ok - memory handed over for a same-node peer is not registered: 0 registration requests over a byte-checked 0 B - 16 MiB ping-pong (the loopback rail: $loopback)"
else
    echo "not ok - registrations for a same-node peer: '$single' with single copies, '$loopback' without"; tail -5 "$err"
fi

# rank 1 in a user namespace of its own: rank 0 (in the parent namespace)
# may still copy and map, rank 1 may not
if unshare --user --map-root-user true 2>/dev/null; then
    run_job 300 mpirun --mca btl self,rwv --mca btl_base_verbose 20 \
        -np 1 "$bin/test_pingpong_verify" -m 16777216 : \
        -np 1 unshare --user --map-root-user "$bin/test_pingpong_verify" -m 16777216 > "$out" 2> "$err"
    rc=$?
    if job_ended "$rc" && grep -q '^ok - ping-pong .* 0 corrupted bytes' "$out" &&
       grep -q -e 'cross-memory attach refused' -e 'cannot map the rings of process' "$err"; then
        echo "ok - a rank that may not copy from or map its peer (another user namespace) says why, falls back to the loopback rail, and every byte of 0 B to 16 MiB arrives"
    else
        echo "not ok - single copies refused one way: exit $rc"; grep -E '^(ok|not ok)' "$out"; tail -6 "$err"
    fi
else
    echo "skip - single copies refused: this machine cannot make a user namespace"
fi

RWV_EXPECT="closed the connection without saying goodbye" run_keeping_help "$err" \
    run_job 120 mpirun -np 2 --enable-recovery --mca btl self,rwv "$bin/test_pingpong_verify" -m 16777216 -k > /dev/null
rc=$?
if [ "$rc" -ne 124 ] && grep -q 'closed the connection without saying goodbye' "$err"; then
    echo "ok - a rank killed in the middle of a 16 MiB ping-pong while the rings are shared: a message naming the host, no hang"
else
    echo "not ok - peer death on one node: exit $rc"; tail -8 "$err"
fi

export RWV_CLUSTER=rwvs
. "$(dirname "$0")/../cluster/cluster.sh"
if cluster_up 2 1; then
    run_job 300 bash -c '. "$0"; cluster_mpirun -np 4 --map-by node --mca mpi_yield_when_idle 1 --mca btl self,rwv \
        --mca btl_base_verbose 100 "$1"' "$(dirname "$0")/../cluster/cluster.sh" "$bin/test_mpi_semantics" > "$out" 2> "$err"
    rc=$?
    stores=$(grep -c 'are stores into its shared ring' "$err")
    remote=$(grep -c 'connected to .* on ofi/tcp r1 ' "$err")
    if job_ended "$rc" && [ "$stores" -eq 4 ] && [ "$remote" -gt 0 ] && grep -q '^ok - ' "$out" && ! grep -q '^not ok' "$out"; then
        echo "ok - 2 nodes x 2 ranks over self,rwv: the 2 same-node pairs share rings (4 directions), the others use the rail ($remote connections), and $(grep -c '^ok - ' "$out") semantics checks pass"
    else
        echo "not ok - mixed job: exit $rc, $stores shared directions (4 expected), $remote rail connections"; grep -E '^not ok' "$out"; tail -5 "$err"
    fi
    cluster_down
else
    echo "skip - mixed job over 2 emulated nodes: no network namespaces here"
fi

shm_after=$(ls /dev/shm | wc -l)
if [ "$shm_after" -le "$shm_before" ]; then
    echo "ok - nothing left in /dev/shm ($shm_before entries before, $shm_after after, a killed rank included)"
else
    echo "not ok - /dev/shm grew from $shm_before to $shm_after entries: $(ls /dev/shm | head -5)"
fi
