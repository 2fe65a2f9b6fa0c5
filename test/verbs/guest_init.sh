#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# First process of the qemu guest (test/verbs/guest.sh): mounts what a
# system needs, brings up the software RDMA devices RWV_GUEST_DEVICES names,
# each on a dummy netdev of its own:
#   rxe  soft-RoCE, rxe0 on rxenet (192.0.2.1/24, 2001:db8:9::1/64)
#   siw  soft-iWARP, siw0 on siwnet (198.51.100.1/24, 2001:db8:a::1/64),
#        the module guest.sh built
# runs the command it was given and hands its status to qemu
# (isa-debug-exit).
mount -t proc proc /proc 2> /dev/null
mount -t sysfs sys /sys 2> /dev/null
mount -t devtmpfs dev /dev 2> /dev/null
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts && mount -t tmpfs tmpfs /dev/shm
# /tmp and /run stay the overlay's: writes land in its tmpfs, and a build
# tree under the host's /tmp stays visible
mkdir -p "/lib/modules/$RWV_KVER" && mount --bind "$RWV_KTREE/lib/modules/$RWV_KVER" "/lib/modules/$RWV_KVER"
hostname rdmaguest
ip link set lo up
finish () {
    printf "\\x$(printf %02x "$1")" | dd of=/dev/port bs=1 seek=$((0xf4)) count=1 2> /dev/null
    echo o > /proc/sysrq-trigger
    sleep 10
}
netdev () { # name IPv4/len IPv6/len
    ip link add "$1" type dummy && ip addr add "$2" dev "$1" && ip addr add "$3" dev "$1" nodad &&
        ip link set "$1" up
}
modprobe -a dummy ib_uverbs rdma_ucm || { echo "guest: cannot load ib_uverbs"; finish 99; }
case ",$RWV_GUEST_DEVICES," in *,rxe,*)
    modprobe rdma_rxe || { echo "guest: cannot load rdma_rxe"; finish 99; }
    netdev rxenet 192.0.2.1/24 2001:db8:9::1/64
    rdma link add rxe0 type rxe netdev rxenet || { echo "guest: cannot add rxe0"; finish 98; }
esac
case ",$RWV_GUEST_DEVICES," in *,siw,*)
    modprobe -a ib_core libcrc32c && insmod "$RWV_SIW" || { echo "guest: cannot load $RWV_SIW"; finish 99; }
    netdev siwnet 198.51.100.1/24 2001:db8:a::1/64
    rdma link add siw0 type siw netdev siwnet || { echo "guest: cannot add siw0"; finish 98; }
esac
ulimit -l unlimited
cd "$RWV_TOP"
eval "$(echo "$RWV_CMD" | base64 -d)"
finish $?
