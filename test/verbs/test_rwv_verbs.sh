#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves btl/rwv's native verbs rail works on a real verbs stack: boots one
# qemu guest (test/verbs/guest.sh) with soft-RoCE (rxe0) and soft-iWARP
# (siw0), and runs test/verbs/guest_tests.sh there on each (its header
# says which checks run where).  Each result line is passed on as the
# guest prints it, so a run cut short still shows how far it got.
# Where the machine cannot (not root, no qemu, no kernel package), one skip
# line says why.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# The guest's console adds carriage returns and terminal escapes, and the
# first result line follows the firmware's text after a reset (ESC c): a
# reset starts a line.  A kernel message may have been written on the
# console in front of a result on the same line: the result is what
# follows it.
RWV_GUEST_DEVICES="rxe siw" RWV_RXE_TIMEOUT=${RWV_RXE_TIMEOUT:-1800} "$here/guest.sh" \
    bash -c 'RWV_GUEST_RDMA=rxe0 "$0"; a=$?; RWV_GUEST_RDMA=siw0 "$0"; exit $((a | $?))' \
    "$here/guest_tests.sh" 2>&1 |
    sed -u 's/\r//g; s/\x1bc/\n/g; s/\x1b\[[0-9;?]*[a-zA-Z]//g' | tee "$out" |
    grep --line-buffered -aoE '(not )?ok - .*|^#   .*'
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 77 ]; then
    echo "skip - verbs rails on soft-RoCE and soft-iWARP: $(sed -n 's/^guest: skipped: //p' "$out" | head -1)"
    exit 0
fi
if [ "$rc" -ne 0 ] && ! grep -q '^not ok - ' "$out"; then
    echo "not ok - verbs rails on soft-RoCE and soft-iWARP: the guest ended with status $rc"
    grep -v '^ok - ' "$out" | tail -10 | sed 's/^/#   /'
fi
