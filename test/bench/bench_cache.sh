#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# rcache/regcache against rcache/grdma in the same process and run: the
# cost of a register+deregister pair on a hit and on a miss, and a 4-thread
# stress that counts stale registrations handed out.
#   test/bench/bench_cache.sh [REPEATS]
set -u
. "$(dirname "$0")/bench_lib.sh"
bin=$build/test
repeats=${1:-11}

echo "## rcache/regcache against rcache/grdma: register+deregister cost"
echo
mpirun -np 1 "$bin/bench/bench_regcache" -r "$repeats" grdma regcache 2>&1 ||
    echo "(benchmark failed: see the output above)"
echo

stress_runs=${RWV_STRESS_RUNS:-5}
echo "## Thread stress: 4 threads register, share, unmap and remap ($stress_runs runs each)"
echo
echo "| rcache | runs with bad registrations | stale | already deregistered | short | runs that hung |"
echo "|---|---:|---:|---:|---:|---:|"
for cache in regcache grdma; do
    bad_runs=0 stale=0 dead=0 short=0 hung=0
    for ((i = 0; i < stress_runs; i++)); do
        # a run takes about a second; grdma has been seen spinning for good,
        # and 10 times the usual time tells that apart
        out=$(timeout --kill-after=5 10 mpirun -np 1 "$bin/regcache/test_regcache" "$cache" threads 2>/dev/null)
        [ $? -ge 124 ] && hung=$((hung + 1))
        line=$(echo "$out" | grep 'handed out')
        if [ -n "$line" ]; then
            read -r s d h < <(echo "$line" | sed 's/.*handed out \([0-9]*\) stale, \([0-9]*\) already deregistered and \([0-9]*\) short.*/\1 \2 \3/')
            bad_runs=$((bad_runs + 1)) stale=$((stale + s)) dead=$((dead + d)) short=$((short + h))
        fi
    done
    echo "| $cache | $bad_runs of $stress_runs | $stale | $dead | $short | $hung of $stress_runs |"
done
echo
echo "A stale registration points at memory that was unmapped and mapped again after it"
echo "was made: RDMA through it reads or writes the wrong pages. A run that hung was killed after 10 s"
echo "(grdma has been seen spinning at 100% CPU in this stress)."
echo
