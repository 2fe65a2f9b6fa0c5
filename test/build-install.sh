#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Build the components and test programs (with RWV_CORE=1 only those the
# core tests run) and install them into the private prefix _build/inst, or
# $RWV_BUILD/inst (configure and autogen only when their inputs changed).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${RWV_BUILD:-$top/_build}
mkdir -p "$build"
cd "$build"
if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ] ||
   [ "$top/Makefile.am" -nt "$top/configure" ]; then
    (cd "$top" && ./autogen.sh)
fi
# the suite's tests of malformed peers need --enable-test-faults
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ] || ! grep -q -- --enable-test-faults config.status; then
    "$top/configure" --prefix="$build/inst" --enable-test-faults
fi
make -j"$(nproc)"
make install
# RWV_CORE=1 (test/roots): only the programs the core tests run
if [ "${RWV_CORE:-}" = 1 ]; then
    make -j"$(nproc)" core-programs
else
    make -j"$(nproc)" check
fi
