#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves invalid coll/rdmabar parameters give a clear message and the
# defaults: a negative priority (rdmabar keeps its default and still
# supplies the barrier), an unknown algorithm name (Open MPI's own message;
# the job runs with the default algorithm), priority 0 with rdmabar the only
# coll component (rdmabar's message naming the fix; MPI_Init fails, no crash).
set -u
. "$(dirname "$0")/../lib.sh"
bin=$RWV_BUILD/test/coll/test_barrier
err=$(mktemp)
trap 'rm -f "$err"' EXIT

out=$(RWV_EXPECT="coll/rdmabar was given a negative priority" run_keeping_help "$err" run_job 60 mpirun -np 2 --mca coll_rdmabar_priority -3 --mca coll_base_verbose 10 \
      "$bin" -n 5 -c 10 -b 10)
rc=$?
if job_ended "$rc" && grep -q 'coll/rdmabar was given a negative priority' "$err" &&
   grep -q 'rdmabar uses its default, 50' "$err" &&
   grep -q 'ranks on this node meet on shared-memory flags' <(echo "$out"; cat "$err"); then
    echo "ok - a negative coll_rdmabar_priority: clear message, the default is used and rdmabar supplies the barrier"
else
    echo "not ok - negative priority: exit $rc"; tail -5 "$err"
fi

out=$(RWV_EXPECT="Value *: fastest" run_keeping_help "$err" run_job 60 mpirun -np 2 --mca coll_rdmabar_algorithm fastest "$bin" -n 5 -c 10 -b 10)
rc=$?
if job_ended "$rc" && grep -q 'Variable *: coll_rdmabar_algorithm' "$err" && grep -q 'Value *: fastest' "$err" &&
   echo "$out" | grep -q '^ok - 5 skewed barriers'; then
    echo "ok - an unknown coll_rdmabar_algorithm: Open MPI names the parameter, the value and the valid ones; the job runs"
else
    echo "not ok - unknown algorithm: exit $rc"; tail -5 "$err"
fi

out=$(RWV_EXPECT="cannot supply every collective" run_keeping_help "$err" run_job 60 mpirun -np 2 --mca coll rdmabar \
      --mca coll_rdmabar_priority 0 "$bin" -n 1 -c 1 -b 1)
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'Why: *coll_rdmabar_priority is 0: rdmabar is switched off' "$err" &&
   grep -q -- '--mca coll rdmabar,inter,basic,libnbc,self' "$err" && ! grep -q -e 'Segmentation fault' -e 'signal 11' "$err"; then
    echo "ok - coll_rdmabar_priority 0 with rdmabar the only coll component: a message naming the fix, MPI_Init fails without a crash"
else
    echo "not ok - priority 0 alone: exit $rc"; tail -5 "$err"
fi
