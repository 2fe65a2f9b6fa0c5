#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves configure refuses, with a message naming what it found and the
# Debian package, an Open MPI whose component interfaces are none of 4.1's,
# 5.0's or 6.0's, missing Open MPI headers and a missing libfabric; and that
# plain ./configure targets Open MPI's own directories.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
say () { echo "$1 - $2"; [ "$1" = ok ] || fail=1; }

# an install whose headers declare the BTL and coll interfaces given
# (X_Y_Z), or no headers at all
fake_ompi () { # dir major minor [btl coll | no]
    mkdir -p "$1/include/opal/mca/btl" "$1/include/opal/mca/rcache" "$1/include/ompi/mca/coll" "$1/bin"
    if [ "${4:-}" != no ]; then
        printf '#define OMPI_MAJOR_VERSION %s\n#define OMPI_MINOR_VERSION %s\n' "$2" "$3" > "$1/include/opal_config.h"
        echo "#define MCA_BTL_BASE_VERSION_$4 x" > "$1/include/opal/mca/btl/btl.h"
        echo "#define MCA_RCACHE_BASE_VERSION_3_0_0 x" > "$1/include/opal/mca/rcache/rcache.h"
        echo "#define MCA_COLL_BASE_VERSION_$5 x" > "$1/include/ompi/mca/coll/coll.h"
    fi
    printf '#!/bin/sh\ncase "$1" in --showme:incdirs) echo %s/include ;; --showme:libdirs) echo %s ;; esac\n' \
        "$1" "$1" > "$1/bin/mpicc"
    printf '#!/bin/sh\necho "ompi:version:full:%s.%s.0"\n' "$2" "$3" > "$1/bin/ompi_info"
    chmod +x "$1/bin/mpicc" "$1/bin/ompi_info"
}

# The five runs of configure go at once (each is mostly one serial
# shell); each then is judged from its status and its output.
start_configure () { # name args...
    local name=$1
    shift
    mkdir -p "$work/$name"
    (cd "$work/$name" && "$top/configure" "$@" > out.log 2>&1; echo $? > status) &
}
configured () { # name: cd to that run's directory (its out.log); configure's status
    cd "$work/$1" && return "$(cat status)"
}

fake_ompi "$work/ompi61" 6 1 3_4_0 3_1_0
fake_ompi "$work/noheaders" 4 1 no
start_configure v61 MPICC="$work/ompi61/bin/mpicc" OMPI_INFO="$work/ompi61/bin/ompi_info"
start_configure nohdr MPICC="$work/noheaders/bin/mpicc" OMPI_INFO="$work/noheaders/bin/ompi_info"
PKG_CONFIG_LIBDIR=$work/empty PKG_CONFIG_PATH= start_configure nofabric
start_configure default
start_configure prefixed --prefix=/opt/rwv
wait

if ! configured v61 &&
   grep -q 'declare the component interfaces BTL 3.4.0, rcache 3.0.0, coll 3.1.0' out.log &&
   grep -q 'coll 2.0.0, 2.4.0$' out.log && grep -q '6.0.x (Debian$' out.log; then
    say ok "configure against headers declaring BTL 3.4.0 and coll 3.1.0 fails, naming them and the interfaces it knows"
else
    say "not ok" "configure against a fake Open MPI with unknown interfaces"; tail -8 out.log
fi

if ! configured nohdr &&
   grep -q 'apt-get install libopenmpi-dev' out.log; then
    say ok "configure without Open MPI's development headers names libopenmpi-dev"
else
    say "not ok" "configure without headers"; tail -5 out.log
fi

if ! configured nofabric &&
   grep -q 'apt-get install libfabric-dev' out.log; then
    say ok "configure without libfabric names libfabric-dev"
else
    say "not ok" "configure without libfabric"; tail -5 out.log
fi

pkglibdir=$(ompi_info --parsable --path pkglibdir | sed 's/^path:pkglibdir://')
if configured default && grep -q "components go to  : $pkglibdir\$" out.log &&
   grep -q 'loads them with no extra options' out.log; then
    say ok "plain ./configure installs into Open MPI's own component directory ($pkglibdir)"
else
    say "not ok" "plain ./configure summary"; tail -12 out.log
fi
if configured prefixed &&
   grep -q 'mpirun --mca opal_mca_base_component_path SYS_DEFAULT:/opt/rwv/lib/openmpi' out.log; then
    say ok "./configure --prefix=DIR prints the exact opal_mca_base_component_path to use"
else
    say "not ok" "--prefix summary"; tail -12 out.log
fi
exit $fail
