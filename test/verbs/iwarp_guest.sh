#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Runs a command inside the qemu guest (guest.sh) with a soft-iWARP device,
# siw0 on the dummy netdev siwnet (198.51.100.1/24, 2001:db8:a::1/64), and
# exits with the command's status.  No rxe unless asked for:
#   test/verbs/iwarp_guest.sh COMMAND [ARGS...]
#   RWV_GUEST_DEVICES="siw rxe" test/verbs/iwarp_guest.sh COMMAND [ARGS...]
RWV_GUEST_DEVICES=${RWV_GUEST_DEVICES:-siw} exec "$(dirname "$0")/guest.sh" "$@"
