#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves invalid regcache limits are rejected at open with a show_help
# message naming the parameter, and the cache then works with its defaults.
set -u
. "$(dirname "$0")/../lib.sh"
test_bin=$RWV_BUILD/test/regcache/test_regcache
fail=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT
for param in max_pinned_bytes:0 max_entries:-5; do
    name=rcache_regcache_${param%%:*}
    value=${param#*:}
    # stderr apart: mpirun would interleave the help text with the program's lines
    out=$(run_keeping_help "$err" env "OMPI_MCA_$name=$value" mpirun -np 1 "$test_bin" regcache basic)
    rc=$?
    if grep -q "The MCA parameter $name was set to $value, but it must be greater than zero" "$err"; then
        echo "ok - $name=$value is rejected with a message naming the parameter and the fix"
    else
        echo "not ok - $name=$value gave no clear message"; tail -5 "$err"; fail=1
    fi
    if [ "$rc" -eq 0 ] && [ "$(echo "$out" | grep -c '^ok - ')" -ge 9 ]; then
        echo "ok - with $name=$value the cache falls back to its default and passes the shared checks"
    else
        echo "not ok - with $name=$value the cache did not work (exit $rc)"; echo "$out" | grep 'not ok'; fail=1
    fi
done
exit $fail
