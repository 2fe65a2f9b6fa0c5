#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Runs a command inside the qemu guest (guest.sh) with a soft-RoCE device,
# rxe0 on the dummy netdev rxenet, and exits with the command's status.
#   test/verbs/rxe_guest.sh COMMAND [ARGS...]
RWV_GUEST_DEVICES=rxe exec "$(dirname "$0")/guest.sh" "$@"
