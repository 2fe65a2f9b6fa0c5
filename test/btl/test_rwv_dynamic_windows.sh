#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves MPI dynamic windows (MPI_Win_create_dynamic, attach, detach) work
# between emulated nodes over btl/rwv, values checked:
#  - test_onesided_verify -O: put and get of 1 B to 1 MiB under fence,
#    lock/unlock, lock_all + flush and post/start/complete/wait,
#    accumulate with every predefined op, fetch-and-op, get-accumulate
#    and compare-and-swap counters contended by every rank, on attached
#    memory that is detached at the end; 2 nodes x 2 ranks over
#    self,vader,rwv, and 3 nodes x 1 rank over self,rwv;
#  - test_onesided_linked_list: MPICH's linked-list pattern (each rank
#    appends elements it attaches while the others append, through
#    fetch-and-op and compare-and-swap on the tail; every rank walks the
#    list with gets), 2 nodes x 2 ranks over self,rwv and 3 nodes over
#    self,vader,rwv.
# Open MPI 4.1.0-4.1.4's osc/rdma deadlocks itself at its first access to
# a dynamic window on another node, whatever the BTL: it takes the
# target's region lock exclusively, then waits for it shared
# (ompi_osc_rdma_find_dynamic_region calling
# ompi_osc_rdma_refresh_dynamic_region; fixed in 4.1.5 by Open MPI pull
# request 10473).  There the reproducer below shows every rank stuck in
# that function, and the jobs run through osc/pt2pt (--mca osc pt2pt,
# what docs/btl-rwv.md tells Debian 12 users), still over rwv.  From 4.1.5
# and in 5.0 and 6.0 they run through the stock osc/rdma.
# The emulated nodes share this host's 2 cores, which mpirun cannot see:
# several ranks per node get mpi_yield_when_idle (docs/testing.md).
set -u
. "$(dirname "$0")/../cluster/cluster.sh"
. "$(dirname "$0")/../lib.sh"
bin=$RWV_BUILD/test/mpi
out=$(mktemp)
trap 'rm -f "$out"; cluster_down' EXIT

# osc/rdma from 4.1.5 to 6.0 keeps a stale region count while a target
# attaches (MPI_ERR_RMA_RANGE, whatever the BTL: docs/btl-rwv.md), so
# through it the linked lists attach their elements first (-a)
osc=()
via="via osc/rdma"
list_args=(-a)
if ompi_dynamic_windows_deadlock; then
    osc=(--mca osc pt2pt)
    via="via osc/pt2pt"
    list_args=()
fi

# The programs print their own ok/not ok lines; prefix them with the setting.
dynamic_run () { # label launcher args...
    local label=$1
    shift
    labelled_job 300 "$out" "$label, $via" "$@"
}

# Open MPI's own deadlock, shown: a linked list of one element a rank,
# through osc/rdma, between 2 nodes.  Every rank must be found spinning in
# osc/rdma's region lookup, never in rwv's own waits.
osc_rdma_deadlock () {
    local pid
    cluster_mpirun -np 2 --map-by node --mca btl self,rwv "$bin/test_onesided_linked_list" -n 1 > "$out" 2>&1 &
    pid=$!
    if job_stuck_in "$pid" ompi_osc_rdma_find_dynamic_region 120; then
        echo "ok - Open MPI $(ompi_info --version | sed -n 's/^Open MPI v//p')'s osc/rdma deadlocks itself on a dynamic window across nodes: every rank spins in ompi_osc_rdma_find_dynamic_region (region lock taken exclusively, then awaited shared; fixed upstream in 4.1.5)"
    elif ! kill -0 "$pid" 2>/dev/null && grep -q '^ok - ' "$out"; then
        echo "ok - this Open MPI 4.1's osc/rdma carries a dynamic window across nodes (it has the upstream fix)"
    else
        echo "not ok - a dynamic window through osc/rdma between 2 nodes neither finished nor stuck in ompi_osc_rdma_find_dynamic_region"
        job_report "$pid" | grep -E '^# stacks|^#[0-9]+ ' | head -40
    fi
    job_kill "$pid"
    wait "$pid" 2>/dev/null
}

cluster_up 2 1 || exit $?
[ ${#osc[@]} -gt 0 ] && osc_rdma_deadlock
dynamic_run "2 emulated nodes x 2 ranks, --mca btl self,vader,rwv" cluster_mpirun -np 4 --map-by node \
    --mca mpi_yield_when_idle 1 --mca btl self,vader,rwv "${osc[@]}" "$bin/test_onesided_verify" -O -m 1048576 -n 50
dynamic_run "2 emulated nodes x 2 ranks, --mca btl self,rwv" cluster_mpirun -np 4 --map-by node \
    --mca mpi_yield_when_idle 1 --mca btl self,rwv "${osc[@]}" "$bin/test_onesided_linked_list" "${list_args[@]}"
cluster_down
cluster_up 3 1 || exit $?
dynamic_run "3 emulated nodes, --mca btl self,rwv" cluster_mpirun -np 3 --map-by node \
    --mca btl self,rwv "${osc[@]}" "$bin/test_onesided_verify" -O -m 65536 -n 20
dynamic_run "3 emulated nodes, --mca btl self,vader,rwv" cluster_mpirun -np 3 --map-by node \
    --mca btl self,vader,rwv "${osc[@]}" "$bin/test_onesided_linked_list" "${list_args[@]}"
