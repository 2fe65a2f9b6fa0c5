#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves rcache/regcache notices when Open MPI's memory hooks stop reaching
# it after the cache was made (under Open MPI 4.1, UCX's own hooks silence
# them once pml/ucx starts after ob1): test_regcache's "silenced" checks
# (nothing idle stays cached, memory mapped again gets a fresh
# registration), and a message saying so, naming the cause and how to keep
# caching.  Where the hooks are not silenced, test_regcache's skip line.
set -u
out=$(mpirun -np 1 "$RWV_BUILD/test/regcache/test_regcache" regcache silenced 2>&1)
echo "$out" | grep -E '^(ok|not ok|skip) - '
echo "$out" | grep -q '^skip - ' && exit 0
if echo "$out" | grep -q "Open MPI's memory hooks no longer tell rcache/regcache" &&
   echo "$out" | grep -q 'pml ob1,ucx' && echo "$out" | grep -q 'UCX_MEM_EVENTS=no'; then
    echo "ok - regcache: a message says the memory hooks went silent, names UCX's as the cause and how to keep caching"
else
    echo "not ok - regcache: no message about the silenced memory hooks"
    echo "$out" | grep -v '^ok - ' | tail -n 8 | sed 's/^/#   /'
fi
