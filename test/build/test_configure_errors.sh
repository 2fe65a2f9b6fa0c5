#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves configure refuses, with a message naming the Debian package, an
# Open MPI that is neither 4.1 nor 5.0, missing Open MPI headers and a missing
# libfabric; and that plain ./configure targets Open MPI's own directories.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
say () { echo "$1 - $2"; [ "$1" = ok ] || fail=1; }

fake_ompi () { # dir major minor [with_headers]
    mkdir -p "$1/include" "$1/bin"
    if [ "${4:-yes}" = yes ]; then
        printf '#define OMPI_MAJOR_VERSION %s\n#define OMPI_MINOR_VERSION %s\n' "$2" "$3" > "$1/include/opal_config.h"
    fi
    printf '#!/bin/sh\ncase "$1" in --showme:incdirs) echo %s/include ;; --showme:libdirs) echo %s ;; esac\n' \
        "$1" "$1" > "$1/bin/mpicc"
    printf '#!/bin/sh\necho "ompi:version:full:%s.%s.0"\n' "$2" "$3" > "$1/bin/ompi_info"
    chmod +x "$1/bin/mpicc" "$1/bin/ompi_info"
}

try_configure () { # name args...
    local name=$1
    shift
    mkdir -p "$work/$name" && cd "$work/$name" && "$top/configure" "$@" > out.log 2>&1
}

fake_ompi "$work/ompi60" 6 0
if ! try_configure v60 MPICC="$work/ompi60/bin/mpicc" OMPI_INFO="$work/ompi60/bin/ompi_info" &&
   grep -q 'Open MPI 6.0 found' out.log && grep -q 'Open MPI 4.1.x (Debian 12' out.log &&
   grep -q '5.0.x (Debian 13' out.log; then
    say ok "configure against Open MPI 6.0 fails and names the series it supports, 4.1 and 5.0"
else
    say "not ok" "configure against a fake Open MPI 6.0"; tail -5 out.log
fi

fake_ompi "$work/noheaders" 4 1 no
if ! try_configure nohdr MPICC="$work/noheaders/bin/mpicc" OMPI_INFO="$work/noheaders/bin/ompi_info" &&
   grep -q 'apt-get install libopenmpi-dev' out.log; then
    say ok "configure without Open MPI's development headers names libopenmpi-dev"
else
    say "not ok" "configure without headers"; tail -5 out.log
fi

if ! PKG_CONFIG_LIBDIR=$work/empty PKG_CONFIG_PATH= try_configure nofabric &&
   grep -q 'apt-get install libfabric-dev' out.log; then
    say ok "configure without libfabric names libfabric-dev"
else
    say "not ok" "configure without libfabric"; tail -5 out.log
fi

pkglibdir=$(ompi_info --parsable --path pkglibdir | sed 's/^path:pkglibdir://')
if try_configure default && grep -q "components go to  : $pkglibdir\$" out.log &&
   grep -q 'loads them with no extra options' out.log; then
    say ok "plain ./configure installs into Open MPI's own component directory ($pkglibdir)"
else
    say "not ok" "plain ./configure summary"; tail -12 out.log
fi
if try_configure prefixed --prefix=/opt/rwv &&
   grep -q 'mpirun --mca opal_mca_base_component_path SYS_DEFAULT:/opt/rwv/lib/openmpi' out.log; then
    say ok "./configure --prefix=DIR prints the exact opal_mca_base_component_path to use"
else
    say "not ok" "--prefix summary"; tail -12 out.log
fi
exit $fail
