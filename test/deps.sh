#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Install the Debian 12 packages the build, the tests and the benchmarks
# need, if any is missing.  Needs root (or sudo) only when something is missing.
set -eu
packages=(
    gcc libc6-dev make autoconf automake libtool pkg-config
    openmpi-bin libopenmpi-dev
    libfabric-dev libfabric-bin libhwloc-dev
    libibverbs-dev librdmacm-dev
    iproute2 util-linux elfutils universal-ctags
    gnuplot-nox netpipe-openmpi
    qemu-system-x86 busybox-static kmod cpio ibverbs-providers
    mmdebstrap debhelper lintian build-essential
    valgrind linux-perf
    slurmctld slurmd slurm-client munge
)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "# installing Debian packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "Missing Debian packages: ${missing[*]}" >&2
    echo "Install them as root: apt-get install ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
