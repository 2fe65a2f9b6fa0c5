#!/usr/bin/env bash
# Proves invalid coll/rdmabar parameters give a clear message and the
# defaults: a negative priority (rdmabar keeps its default and still
# supplies the barrier), an unknown algorithm name (Open MPI's own message;
# the job runs with the default algorithm).
set -u
. "$(dirname "$0")/../lib.sh"
bin=$RWV_BUILD/test/coll/test_barrier
err=$(mktemp)
trap 'rm -f "$err"' EXIT

out=$(RWV_EXPECT="coll/rdmabar was given a negative priority" run_keeping_help "$err" timeout 60 mpirun -np 2 --mca coll_rdmabar_priority -3 --mca coll_base_verbose 10 \
      "$bin" -n 5 -c 10 -b 10)
rc=$?
if [ "$rc" -eq 0 ] && grep -q 'coll/rdmabar was given a negative priority' "$err" &&
   grep -q 'rdmabar uses its default, 50' "$err" &&
   grep -q 'ranks on this node meet on shared-memory flags' <(echo "$out"; cat "$err"); then
    echo "ok - a negative coll_rdmabar_priority: clear message, the default is used and rdmabar supplies the barrier"
else
    echo "not ok - negative priority: exit $rc"; tail -5 "$err"
fi

out=$(RWV_EXPECT="Value *: fastest" run_keeping_help "$err" timeout 60 mpirun -np 2 --mca coll_rdmabar_algorithm fastest "$bin" -n 5 -c 10 -b 10)
rc=$?
if [ "$rc" -eq 0 ] && grep -q 'Variable *: coll_rdmabar_algorithm' "$err" && grep -q 'Value *: fastest' "$err" &&
   echo "$out" | grep -q '^ok - 5 skewed barriers'; then
    echo "ok - an unknown coll_rdmabar_algorithm: Open MPI names the parameter, the value and the valid ones; the job runs"
else
    echo "not ok - unknown algorithm: exit $rc"; tail -5 "$err"
fi
