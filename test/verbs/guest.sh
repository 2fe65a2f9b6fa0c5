#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Runs a command inside a qemu guest that has a soft-RoCE device (rdma_rxe
# on a dummy netdev, rxe0), and exits with the command's exit status.
#   test/verbs/rxe_guest.sh COMMAND [ARGS...]
# The guest boots Debian's own kernel (downloaded once as a package, kept in
# _build/rxe) under software emulation (TCG, 2 vCPUs), shares the host's
# root filesystem read-only under a tmpfs overlay, so it sees this build
# tree and the installed Open MPI, and builds nothing.  Exit status 77 with
# one line on stderr when this machine cannot run it (not root, no qemu).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${RWV_RXE_CACHE:-$top/_build/rxe}

skip () { echo "rxe guest: skipped: $*" >&2; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (qemu's 9p share of / and the kernel package)"
for tool in qemu-system-x86_64 busybox cpio depmod apt-get dpkg; do
    command -v "$tool" > /dev/null || skip "$tool is missing (test/deps.sh installs it)"
done

# Debian's kernel, unpacked once: vmlinuz and its modules.
kernel_tree () {
    local pkg deb
    pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)/\1/p' | head -1)
    [ -n "$pkg" ] || skip "apt knows no linux-image-amd64"
    kver=${pkg#linux-image-}
    [ -f "$cache/root/boot/vmlinuz-$kver" ] && return 0
    mkdir -p "$cache" && rm -rf "$cache/root" "$cache"/*.deb
    (cd "$cache" && apt-get download -qq "$pkg" > /dev/null 2>&1) || skip "cannot download $pkg"
    deb=$(ls "$cache"/linux-image-*.deb | head -1)
    dpkg -x "$deb" "$cache/root" && rm -f "$deb"
    depmod -b "$cache/root" "$kver"
}

# A busybox initramfs that mounts the host's / (9p) under a tmpfs overlay
# and runs guest_init.sh from this tree there.
initramfs () {
    local dir=$cache/initramfs mods m
    [ -f "$cache/initramfs-$kver.cpio" ] && return 0
    rm -rf "$dir" && mkdir -p "$dir"/{bin,dev,proc,sys,host,rw,newroot,lib/modules}
    cp "$(command -v busybox)" "$dir/bin/busybox"
    for m in sh mount mkdir insmod switch_root cat echo sleep; do ln -s busybox "$dir/bin/$m"; done
    mods=$(modprobe -d "$cache/root" -S "$kver" --show-depends -a virtio_pci 9pnet_virtio 9p overlay 2>/dev/null |
           awk '$1 == "insmod" {print $2}')
    : > "$dir/modules"
    for m in $mods; do
        cp "$m" "$dir/lib/modules/"
        echo "/lib/modules/$(basename "$m")" >> "$dir/modules"
    done
    cat > "$dir/init" <<'EOI'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
while read m; do insmod "$m" 2> /dev/null; done < /modules
mount -t 9p -o trans=virtio,version=9p2000.L,ro hostroot /host || { echo "guest: no 9p root"; sleep 1; }
mount -t tmpfs tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work /newroot
exec switch_root /newroot /bin/bash "$RWV_GUEST_INIT"
EOI
    chmod +x "$dir/init"
    (cd "$dir" && find . | cpio -o -H newc --quiet) > "$cache/initramfs-$kver.cpio"
}

kernel_tree
initramfs
args=$(printf '%q ' "$@")
timeout "${RWV_RXE_TIMEOUT:-900}" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 -m 2048 \
    -kernel "$cache/root/boot/vmlinuz-$kver" -initrd "$cache/initramfs-$kver.cpio" \
    -append "console=ttyS0 quiet panic=-1 RWV_GUEST_INIT=$top/test/verbs/guest_init.sh RWV_KVER=$kver RWV_KTREE=$cache/root RWV_TOP=$top RWV_CMD=$(echo "$args" | base64 -w0)" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04 -nic none -nographic -no-reboot -serial mon:stdio < /dev/null
rc=$?
# isa-debug-exit: the guest's status N comes back as (N << 1) | 1
if [ $((rc & 1)) -eq 1 ] && [ "$rc" -lt 256 ]; then
    exit $((rc >> 1))
fi
echo "rxe guest: qemu ended without the guest's status (exit $rc)" >&2
exit 125
