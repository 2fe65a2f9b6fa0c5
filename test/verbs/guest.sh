#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Runs a command inside a qemu guest that has software RDMA devices, and
# exits with the command's exit status.
#   RWV_GUEST_DEVICES="rxe|siw|rxe siw" test/verbs/guest.sh COMMAND [ARGS...]
#   RWV_GUEST_DEVICES=... test/verbs/guest.sh --prepare
# (--prepare: only download and build what the guest needs)
# rxe: soft-RoCE (rdma_rxe) as rxe0 on the dummy netdev rxenet; siw:
# soft-iWARP as siw0 on the dummy netdev siwnet (guest_init.sh has their
# addresses).
# The guest boots Debian's own kernel (downloaded once as a package, kept in
# _build/rxe) under software emulation (TCG, 2 vCPUs), shares the host's
# root filesystem read-only under a tmpfs overlay, so it sees this build
# tree and the installed Open MPI.  Debian's kernels do not ship siw: it
# is built once from Debian's own kernel sources for that kernel and kept
# with it.  Exit status 77 with one line on stderr when this machine
# cannot run it (not root, no qemu, no kernel package).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${RWV_RXE_CACHE:-$top/_build/rxe}
devices=${RWV_GUEST_DEVICES:-rxe}

skip () { echo "guest: skipped: $*" >&2; exit 77; }
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

# soft-iWARP for the guest's kernel: its headers, and the kbuild and
# source packages that go with them, from the machine's own apt sources; only
# drivers/infiniband/sw/siw is unpacked and built (about a minute here).
siw_module () {
    local ko=$cache/siw-$kver/siw.ko work=$cache/siw-build series ver common hdr dir kbuild src
    [ -f "$ko" ] && return 0
    for tool in make gcc-12 xz; do
        command -v "$tool" > /dev/null || skip "$tool is missing (test/deps.sh installs it)"
    done
    series=$(echo "$kver" | cut -d. -f1,2)
    ver=$(apt-cache show "linux-headers-$kver" 2>/dev/null | sed -n 's/^Version: //p' | head -1)
    common=$(apt-cache show "linux-headers-$kver" 2>/dev/null | sed -n 's/^Depends: .*\(linux-headers-[^ ,]*-common\).*/\1/p' | head -1)
    [ -n "$ver" ] && [ -n "$common" ] || skip "apt knows no linux-headers-$kver"
    # Debian's headers need kbuild of their version or later, and a
    # security update may leave only a later one; the source must be of
    # the same upstream release, the headers' own revision if still there
    kbuild=$(apt-cache show "linux-kbuild-$series" 2>/dev/null | sed -n 's/^Version: //p' |
             while read -r v; do dpkg --compare-versions "$v" ge "$ver" && echo "$v"; done | sort -V | tail -1)
    src=$(apt-cache show "linux-source-$series" 2>/dev/null | sed -n 's/^Version: //p' |
          awk -v want="$ver" -v up="${ver%-*}" '$0 == want {exact = $0} index($0, up "-") == 1 && !any {any = $0}
                                                END {print exact ? exact : any}')
    [ -n "$kbuild" ] && [ -n "$src" ] || skip "apt knows no linux-kbuild-$series or linux-source-$series for $ver"
    rm -rf "$work" && mkdir -p "$work/root"
    (cd "$work" && apt-get download -qq "linux-headers-$kver=$ver" "$common=$ver" "linux-kbuild-$series=$kbuild" \
        "linux-source-$series=$src" > /dev/null 2>&1) ||
        skip "cannot download linux-headers-$kver $ver, linux-kbuild-$series $kbuild, linux-source-$series $src"
    for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/root"; done
    dir=linux-source-$series/drivers/infiniband/sw/siw
    hdr=$work/root/usr/src/linux-headers-$kver
    # the headers name their common part by its installed path
    sed -i "s#/usr/src/#$work/root/usr/src/#" "$hdr/Makefile"
    if ! tar -xJf "$work/root/usr/src/linux-source-$series.tar.xz" -C "$work" "$dir" ||
       ! make -C "$hdr" M="$work/$dir" CONFIG_RDMA_SIW=m modules > "$work/build.log" 2>&1; then
        echo "guest: siw did not build for $kver; the end of $work/build.log:" >&2
        tail -n 15 "$work/build.log" >&2
        exit 125
    fi
    mkdir -p "${ko%/*}" && cp "$work/$dir/siw.ko" "$ko" && rm -rf "$work"
}

# A busybox initramfs that mounts the host's / (9p) under a tmpfs overlay
# and runs guest_init.sh from this tree there.
initramfs () {
    local dir=$cache/initramfs mods m
    [ "$cache/initramfs-$kver.cpio" -nt "${BASH_SOURCE[0]}" ] && return 0
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
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=524288 hostroot /host || { echo "guest: no 9p root"; sleep 1; }
mount -t tmpfs tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work /newroot
exec switch_root /newroot /bin/bash "$RWV_GUEST_INIT"
EOI
    chmod +x "$dir/init"
    (cd "$dir" && find . | cpio -o -H newc --quiet) > "$cache/initramfs-$kver.cpio"
}

# One preparer at a time: the suite prepares in the background (--prepare)
# while the host's tests run, and the guest's own test waits for it here.
mkdir -p "$cache"
exec 9> "$cache/prepare.lock"
flock 9
kernel_tree
case " $devices " in *" siw "*) siw_module ;; esac
initramfs
exec 9>&-
[ "$*" = --prepare ] && exit 0
args=$(printf '%q ' "$@")
timeout "${RWV_RXE_TIMEOUT:-900}" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 -m 2048 \
    -kernel "$cache/root/boot/vmlinuz-$kver" -initrd "$cache/initramfs-$kver.cpio" \
    -append "console=ttyS0 quiet panic=-1 RWV_GUEST_INIT=$top/test/verbs/guest_init.sh RWV_KVER=$kver RWV_KTREE=$cache/root RWV_SIW=$cache/siw-$kver/siw.ko RWV_GUEST_DEVICES=${devices// /,} RWV_TOP=$top RWV_CMD=$(echo "$args" | base64 -w0)" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04 -nic none -nographic -no-reboot -serial mon:stdio < /dev/null
rc=$?
# isa-debug-exit: the guest's status N comes back as (N << 1) | 1
if [ $((rc & 1)) -eq 1 ] && [ "$rc" -lt 256 ]; then
    exit $((rc >> 1))
fi
echo "guest: qemu ended without the guest's status (exit $rc)" >&2
exit 125
