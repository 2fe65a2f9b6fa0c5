#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
#
# Follows one 1 MiB MPI_Send through btl/rwv (docs/layout.md, "Following one
# message") and counts the calls from a function in one rwv file to one in
# another: the tree (or COMMIT) is built with gcc -O0 -finstrument-functions
# in a scratch directory, test/walk/walk_send.c sends the message between 2
# ranks over the loopback rail (ob1 takes RGET), and test/walk/walk_hook.c
# records every distinct caller -> callee pair.  The periodic checks the
# progress function makes every 1024 calls (timeouts, links) are left out:
# they are not the message's path and land in the window by chance.
#
#   test/walk/count_walk.sh [COMMIT]      (needs mpicc, mpirun, addr2line)
set -e
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
scratch=$(mktemp -d /tmp/rwv-walk.XXXXXX)
trap 'git -C "$repo" worktree remove --force "$scratch/src" 2>/dev/null || true; rm -rf "$scratch"' EXIT

src=$repo
if [ -n "$1" ]; then
    git -C "$repo" worktree add --detach "$scratch/src" "$1" > /dev/null 2>&1
    src=$scratch/src
    (cd "$src" && ./autogen.sh > "$scratch/autogen.log" 2>&1)
fi
mkdir "$scratch/build"
(cd "$scratch/build" &&
    "$src/configure" --prefix="$scratch/inst" CFLAGS="-O0 -g -finstrument-functions" > configure.log 2>&1 &&
    make -j2 > make.log 2>&1 && make install > install.log 2>&1) ||
    { echo "count_walk: building ${1:-this tree} failed: see $scratch/build" >&2; trap - EXIT; exit 1; }
gcc -O2 -shared -fPIC -o "$scratch/libwalk_hook.so" "$here/walk_hook.c" -ldl
mpicc -O2 -o "$scratch/walk_send" "$here/walk_send.c" -L"$scratch" -lwalk_hook -Wl,-rpath,"$scratch"

so=$scratch/inst/lib/openmpi/mca_btl_rwv.so
# the connection thread serving peers (btl_rwv_async_progress) is no part
# of the message's path, and the hook does not tell threads apart
OMPI_MCA_opal_mca_base_component_path=SYS_DEFAULT:$scratch/inst/lib/openmpi OMPI_MCA_btl_rwv_async_progress=0 \
    mpirun --allow-run-as-root -np 2 --mca btl self,rwv --mca btl_rwv_single_copy none --mca rcache regcache \
    --mca hwloc_base_binding_policy none "$scratch/walk_send" "$scratch/calls" < /dev/null

# name and file of each function, then the cross-file calls among rwv's files
cat "$scratch"/calls.* | while read -r caller callee; do
    echo "$(addr2line -f -e "$so" "0x$caller" | paste -sd' ') $(addr2line -f -e "$so" "0x$callee" | paste -sd' ')"
done | awk '
    function file(loc) { sub(/:.*/, "", loc); sub(/.*\//, "", loc); return loc }
    function stem(f) { sub(/\.[ch]$/, "", f); return f }
    BEGIN { split("mca_btl_rwv_check_connections mca_btl_rwv_conn_check_timeouts mca_btl_rwv_check_links mca_btl_rwv_report_lost_rails", p, " ");
            for (i in p) periodic[p[i]] = 1 }
    {
        from = $1; ffile = file($2); to = $3; tfile = file($4)
        # progress takes the lock only for the periodic checks
        if (from in periodic || to in periodic ||
            (from == "mca_btl_rwv_progress" && (to == "mca_btl_rwv_now" || to ~ /^mca_btl_rwv_(un)?lock$/))) next
        if (ffile !~ /^btl_rwv/ || tfile !~ /^btl_rwv/ || ffile == tfile || seen[from " " to]++) next
        printf "%-22s %-40s -> %-22s %s\n", ffile, from, tfile, to
        calls++; files[ffile]; files[tfile]
        if (stem(ffile) != stem(tfile)) { pair_calls++; pairs[stem(ffile)]; pairs[stem(tfile)] }
    }
    END {
        for (f in files) nfiles++; for (f in pairs) npairs++
        printf "%d calls to another file, among %d files; %d among %d counting a .c and its own .h as one\n",
               calls, nfiles, pair_calls, npairs
    }'
