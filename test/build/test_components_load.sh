#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves the three components load through Open MPI's normal component
# path, list every parameter with a description, and claim nothing they
# cannot do: rdmabar takes the barrier only where it has built it.
set -u
bin=$RWV_BUILD/test
fail=0
say () { echo "$1 - $2"; [ "$1" = ok ] || fail=1; }

# the suite's own build has btl/rwv's fault injection, which the tests of
# malformed peers need (a release build has none: test_debian_packages.sh)
if strings "$RWV_PREFIX/lib/openmpi/mca_btl_rwv.so" | grep -q RWV_TEST_FAULT; then
    say ok "the suite's build of btl/rwv has its test fault injection (configure --enable-test-faults)"
else
    say "not ok" "the suite's build of btl/rwv lacks the fault injection test_rwv_member_faults.sh needs"
fi

for fc in "btl rwv" "rcache regcache" "coll rdmabar"; do
    set -- $fc
    listing=$(ompi_info --parsable --param "$1" "$2" --level 9 2>&1)
    params=$(echo "$listing" | grep -c ":param:[a-z_]*:value:")
    undocumented=$(echo "$listing" | awk -F: '/:param:[a-z_]*:value:/ {p[$5]=1} /:param:[a-z_]*:help:/ && length($0) > 40 {h[$5]=1} END {for (k in p) if (!(k in h)) print k}')
    if [ "$params" -gt 0 ] && [ -z "$undocumented" ]; then
        say ok "ompi_info lists $1/$2 with $params parameters, each with a description"
    else
        say "not ok" "ompi_info --param $1 $2: $params parameters; undocumented: ${undocumented:-none}"
        echo "$listing" | head -5
    fi
done

pvars=$(ompi_info --parsable --param rcache regcache --level 9 | grep -c ':pvar:')
[ "$pvars" -ge 8 ] && say ok "rcache/regcache publishes its 8 statistics as MPI_T performance variables" ||
    say "not ok" "only $pvars performance variables"

out=$(mpirun -np 2 --mca btl self,rwv --mca btl_base_verbose 100 "$bin/mpi/test_pingpong_verify" -m 1024 2>&1)
if echo "$out" | grep -q '^ok - ping-pong' && echo "$out" | grep -q 'btl/rwv: rail 0: ofi/'; then
    say ok "btl/rwv loads, names its rails at btl_base_verbose 100 and carries a job"
else
    say "not ok" "btl/rwv did not load or carry the job"; echo "$out" | tail -5
fi

out=$(mpirun -np 2 --mca coll_base_verbose 10 "$bin/coll/test_barrier" -n 2 -b 2 -c 2 2>&1)
if ! echo "$out" | grep -q '^not ok' && echo "$out" | grep -q 'coll/rdmabar: MPI_COMM_WORLD: 2 ranks on this node'; then
    say ok "coll/rdmabar is selected in the default set and provides MPI_COMM_WORLD's barrier"
else
    say "not ok" "coll/rdmabar in the default set"; echo "$out" | grep rdmabar | tail -5
fi
exit $fail
