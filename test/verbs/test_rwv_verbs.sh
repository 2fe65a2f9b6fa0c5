#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves btl/rwv's native verbs rail works on a real verbs stack: boots a
# qemu guest (test/verbs/guest.sh) and runs test/verbs/guest_tests.sh
# there, which prints one ok/not ok line per check.
#   test_rwv_verbs.sh [rxe|siw]
# rxe: soft-RoCE (rxe0); siw: soft-iWARP (siw0), with rxe0 next to it for
# the iWARP + RoCE striping checks.  Where the machine cannot (not root, no
# qemu, no kernel package), one skip line says why.
set -u
here=$(cd "$(dirname "$0")" && pwd)
kind=${1:-rxe}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

case $kind in
    rxe) what="soft-RoCE"; "$here/rxe_guest.sh" "$here/guest_tests.sh" > "$out" 2>&1 ;;
    siw) what="soft-iWARP"; RWV_GUEST_DEVICES="siw rxe" "$here/iwarp_guest.sh" \
             env RWV_GUEST_RDMA=siw0 "$here/guest_tests.sh" > "$out" 2>&1 ;;
    *) echo "usage: $0 [rxe|siw]" >&2; exit 2 ;;
esac
rc=$?
# The guest's console adds terminal escapes, and the first result line
# follows the firmware's text after a reset (ESC c): a reset starts a line.
tr -d '\r' < "$out" | sed 's/\x1bc/\n/g; s/\x1b\[[0-9;?]*[a-zA-Z]//g' > "$out.clean"
mv "$out.clean" "$out"
if [ "$rc" -eq 77 ]; then
    echo "skip - verbs rail on $what: $(sed -n 's/^guest: skipped: //p' "$out" | head -1)"
    exit 0
fi
# a kernel message may have been written on the console in front of a
# result on the same line: the result is what follows it
grep -aoE '(not )?ok - .*|^#   .*' "$out"
if [ "$rc" -ne 0 ] && ! grep -q '^not ok - ' "$out"; then
    echo "not ok - verbs rail on $what: the guest ended with status $rc"
    grep -v '^ok - ' "$out" | tail -10 | sed 's/^/#   /'
fi
