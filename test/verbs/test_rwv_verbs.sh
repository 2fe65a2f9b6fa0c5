#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves btl/rwv's native verbs rail works on a real verbs stack: boots a
# qemu guest with soft-RoCE (test/verbs/rxe_guest.sh) and runs
# test/verbs/guest_tests.sh there, which prints one ok/not ok line per
# check.  Where the machine cannot (not root, no qemu, no kernel package),
# one skip line says why.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT

"$here/rxe_guest.sh" "$here/guest_tests.sh" > "$out" 2>&1
rc=$?
# The guest's console adds terminal escapes, and the first result line
# follows the firmware's text after a reset (ESC c): a reset starts a line.
tr -d '\r' < "$out" | sed 's/\x1bc/\n/g; s/\x1b\[[0-9;?]*[a-zA-Z]//g' > "$out.clean"
mv "$out.clean" "$out"
if [ "$rc" -eq 77 ]; then
    echo "skip - verbs rail on soft-RoCE: $(sed -n 's/^rxe guest: skipped: //p' "$out" | head -1)"
    exit 0
fi
grep -E '^(ok|not ok) - |^#   ' "$out"
if [ "$rc" -ne 0 ] && ! grep -q '^not ok - ' "$out"; then
    echo "not ok - verbs rail on soft-RoCE: the guest ended with status $rc"
    grep -v '^ok - ' "$out" | tail -10 | sed 's/^/#   /'
fi
