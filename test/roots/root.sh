#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The Debian roots the suite builds and runs the project in, against
# another release's Open MPI: trixie (Debian 13, Open MPI 5.0) and forky
# (Debian testing, Open MPI 6.0).  Made with mmdebstrap from the archive
# the host's apt already uses, kept under _build/root-SUITE and reused
# while its package list is the same.
#
#   test/roots/root.sh [--suite S] make        make the root if it is missing (one
#                                              maker at a time: others wait for it)
#   test/roots/root.sh [--suite S] run CMD...  run CMD inside it, as root, with
#                                              /proc /sys /dev /dev/shm /run bound
#   test/roots/root.sh [--suite S] path        print where it is
#   test/roots/root.sh bare SUITE [DIR]        a bare root of SUITE (bookworm, trixie):
#                                              apt only, made once into _build/bare-SUITE
#                                              (remade when 12 hours old, so its package
#                                              lists match the archive); with DIR, a
#                                              fresh copy of it there
#   test/roots/root.sh in DIR CMD...           run CMD inside the root DIR, bound as for run
# S is trixie (the default) or forky.
#
# Exits 77 (the suite's "skipped") with one line saying why when the root
# cannot be made here: not root, no mmdebstrap, no archive in the host's apt
# sources, or the archive not reachable.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${RWV_BUILD:-$top/_build}
suite=trixie
if [ "${1:-}" = --suite ]; then
    suite=$2
    shift 2
fi
# what every command run in the root gets besides a clean environment:
# forky's openmpi-mca-params.conf sets btl_tcp_if_include=lo (to quiet
# Debian's own build tests), which leaves stock btl/tcp no path between
# nodes; restore Open MPI's default (an empty value), as a site running it
# across nodes must, so the comparisons with btl/tcp mean something.
# forky's libmpi also links UCX 1.23, whose memory-event hooks spend
# about 0.4 s of CPU patching code at every process start here
# (ucm_bistro_patch): no test uses UCX, and on the host Open MPI 4.1
# loads UCX's hooks beside regcache's, so the roots' tests skip them
suite_env=()
case "$suite" in
    trixie) ;;
    forky) suite_env=(OMPI_MCA_btl_tcp_if_include= UCX_MEM_EVENTS=no) ;;
    *) echo "$0: no root for suite '$suite' (trixie or forky)" >&2; exit 2 ;;
esac
root=$build/root-$suite
packages=(
    openmpi-bin libopenmpi-dev libpmix-dev libfabric-dev libfabric-bin libhwloc-dev
    libibverbs-dev librdmacm-dev
    gcc libc6-dev make autoconf automake libtool pkg-config
    iproute2 util-linux procps elfutils
    debhelper build-essential
)

skip () { echo "# skip: Debian $suite root: $*"; exit 77; }

# The Debian archive the host's apt uses: the first URI of a source that
# carries the host's main suite (not its security archive).  deb822 files
# first, then one-line sources.
archive_uri () {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        awk 'BEGIN { RS = ""; FS = "\n" }
             { uri = ""; ok = 0
               for (i = 1; i <= NF; i++) {
                   if ($i ~ /^URIs:/) { split ($i, u, /[ \t]+/); uri = u[2] }
                   if ($i ~ /^Suites:/ && $i !~ /-security/) ok = 1
               }
               if (ok && uri != "") { print uri; exit } }' "$f"
    done | head -n 1 | grep . && return 0
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk '$1 == "deb" && $3 !~ /-security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' |
        head -n 1 | grep .
}

stamp () { printf '%s\n' "$suite" "${packages[@]}" | md5sum | cut -c1-16; }

# in a subshell of its own, so that the lock ends with it
make_root () (
    local uri tmp
    [ "$(id -u)" -eq 0 ] || skip "needs root (mmdebstrap and chroot)"
    command -v mmdebstrap > /dev/null || skip "mmdebstrap is not installed (test/deps.sh installs it)"
    # run-tests.sh starts making the roots early; a second maker waits for
    # the first instead of removing the root under it
    mkdir -p "$build"
    exec 9> "$build/root-$suite.lock"
    flock 9
    if [ -f "$root/.rwv-root" ] && [ "$(cat "$root/.rwv-root")" = "$(stamp)" ]; then
        return 0
    fi
    uri=$(archive_uri) || skip "no Debian archive found in the host's apt sources"
    echo "# making the Debian $suite root in $root from the host's archive (a few minutes, once)"
    rm -rf --one-file-system "$root" "$root.new"
    tmp=$root.new
    # testing's Release files outlive their Valid-Until between the
    # archive's updates of them; the packages are still the archive's own
    if ! mmdebstrap --variant=apt --include="$(IFS=,; echo "${packages[*]}")" \
            --aptopt='Acquire::Check-Valid-Until "false"' \
            --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
            "$suite" "$tmp" "deb $uri $suite main" > "$build/root-$suite.log" 2>&1 9>&-; then
        rm -rf "$tmp"
        skip "mmdebstrap could not make the $suite root (is the archive reachable?); see $build/root-$suite.log"
    fi
    stamp > "$tmp/.rwv-root"
    mv "$tmp" "$root"
)

# mmdebstrap writes no /etc/hosts, which every installed Debian has: without
# it a lookup of localhost or of this host's name goes to the DNS server in
# the copied resolv.conf (Open MPI 4.1's MPI_Init waited 5 s for it).  The
# lines Debian's installer writes.
ensure_hosts () { # root
    [ -f "$1/etc/hosts" ] ||
        printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' \
            "$(hostname)" > "$1/etc/hosts"
}

# Bind what the emulated cluster needs from the host; network namespaces
# and veth come from the host kernel.  Undone when the command ends.
run_in_root () { # root cmd...
    local r=$1
    shift
    ensure_hosts "$r"
    unshare --mount --propagation private -- /bin/sh -c '
        r=$1; shift
        # a mount point of its own, so that ip netns can remount it inside
        mount --bind "$r" "$r" || exit 1
        for d in proc sys dev dev/shm run; do
            mkdir -p "$r/$d" && mount --rbind "/$d" "$r/$d" || exit 1
        done
        mkdir -p "$r/work" && mount --bind "$0" "$r/work" || exit 1
        exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
    ' "$top" "$r" "$@"
}

# A root as a fresh machine of SUITE has it: what apt itself needs, and
# the archive's package lists.  Tests dirty a copy; the one made stays bare.
make_bare () { # suite [dir]
    local uri made=$build/bare-$1
    [ "$(id -u)" -eq 0 ] || skip "needs root (mmdebstrap and chroot)"
    command -v mmdebstrap > /dev/null || skip "mmdebstrap is not installed (test/deps.sh installs it)"
    mkdir -p "$build"
    (
        exec 9> "$made.lock"
        flock 9
        [ -d "$made" ] && [ -n "$(find "$made.stamp" -mmin -720 2> /dev/null)" ] && exit 0
        uri=$(archive_uri) || skip "no Debian archive found in the host's apt sources"
        rm -rf --one-file-system "$made" "$made.new" "$made.stamp"
        mmdebstrap --variant=apt --skip=cleanup/apt/lists "$1" "$made.new" "deb $uri $1 main" \
            > "$made.log" 2>&1 9>&- ||
            { rm -rf "$made.new"; skip "mmdebstrap could not make a $1 root (is the archive reachable?); see $made.log"; }
        mv "$made.new" "$made" && touch "$made.stamp"
    ) || exit $?
    [ -z "${2:-}" ] || { rm -rf --one-file-system "$2" && cp -a "$made" "$2"; }
}

case "${1:-}" in
    make) make_root ;;
    run) shift; { [ -f "$root/.rwv-root" ] || make_root; } && run_in_root "$root" "${suite_env[@]}" "$@" ;;
    path) echo "$root" ;;
    bare) make_bare "$2" "${3:-}" ;;
    in) shift; r=$1; shift; run_in_root "$r" "$@" ;;
    *) echo "usage: $0 make | run CMD... | path | bare SUITE [DIR] | in DIR CMD..." >&2; exit 2 ;;
esac
