#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves `make install DESTDIR=...' stages the three components and the help
# files under DESTDIR, with no libtool archives in the component directory,
# and `make uninstall DESTDIR=...' takes every file it put there away again.
set -u
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
make -C "$RWV_BUILD" install DESTDIR="$stage" > "$stage.log" 2>&1 || { echo "not ok - make install DESTDIR failed"; tail "$stage.log"; exit 1; }
rm -f "$stage.log"
comp=$stage$RWV_PREFIX/lib/openmpi
missing=""
for f in mca_btl_rwv.so mca_rcache_regcache.so mca_coll_rdmabar.so; do
    [ -f "$comp/$f" ] || missing="$missing $f"
done
[ -f "$stage$RWV_PREFIX/share/openmpi/help-rcache-regcache.txt" ] || missing="$missing help-rcache-regcache.txt"
if [ -z "$missing" ] && ! ls "$comp"/*.la >/dev/null 2>&1; then
    echo "ok - make install DESTDIR=... stages the components and help files under DESTDIR"
else
    echo "not ok - staged install is missing:${missing:- nothing, but .la files are there}"
    exit 1
fi
make -C "$RWV_BUILD" uninstall DESTDIR="$stage" > "$stage.log" 2>&1 || { echo "not ok - make uninstall DESTDIR failed"; tail "$stage.log"; exit 1; }
rm -f "$stage.log"
left=$(find "$stage" -type f)
if [ -z "$left" ]; then
    echo "ok - make uninstall DESTDIR=... leaves no file under DESTDIR"
else
    echo "not ok - make uninstall DESTDIR=... leaves files behind:" $left
    exit 1
fi
