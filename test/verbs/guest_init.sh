#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# First process of the rxe guest (test/verbs/rxe_guest.sh): mounts what a
# system needs, loads soft-RoCE on a dummy netdev (rxe0, 192.0.2.1/24 and
# 2001:db8:9::1/64), runs
# the command it was given and hands its status to qemu (isa-debug-exit).
mount -t proc proc /proc 2> /dev/null
mount -t sysfs sys /sys 2> /dev/null
mount -t devtmpfs dev /dev 2> /dev/null
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts && mount -t tmpfs tmpfs /dev/shm
# /tmp and /run stay the overlay's: writes land in its tmpfs, and a build
# tree under the host's /tmp stays visible
mkdir -p "/lib/modules/$RWV_KVER" && mount --bind "$RWV_KTREE/lib/modules/$RWV_KVER" "/lib/modules/$RWV_KVER"
hostname rxeguest
ip link set lo up
finish () {
    printf "\\x$(printf %02x "$1")" | dd of=/dev/port bs=1 seek=$((0xf4)) count=1 2> /dev/null
    echo o > /proc/sysrq-trigger
    sleep 10
}
modprobe -a dummy rdma_rxe ib_uverbs rdma_ucm || { echo "guest: cannot load rdma_rxe"; finish 99; }
ip link add rxenet type dummy && ip addr add 192.0.2.1/24 dev rxenet &&
    ip addr add 2001:db8:9::1/64 dev rxenet nodad && ip link set rxenet up
rdma link add rxe0 type rxe netdev rxenet || { echo "guest: cannot add rxe0"; finish 98; }
ulimit -l unlimited
cd "$RWV_TOP"
eval "$(echo "$RWV_CMD" | base64 -d)"
finish $?
