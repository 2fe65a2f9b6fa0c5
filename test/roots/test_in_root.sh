#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves the same source tree works on another Open MPI series, in a Debian
# root of its own (test/roots/root.sh, made once and reused):
#   trixie  Debian 13, Open MPI 5.0: BTL 3.3.0, coll 2.4.0
#   forky   Debian testing, Open MPI 6.0: BTL 3.3.0, coll 3.0.0
# configure finds the series by its interfaces, the components build,
# install and load with them, and the tests run-tests.sh marks CORE=1 pass
# there.  Exits 77 with the reason when the root cannot be made here.
#
#   test/roots/test_in_root.sh SUITE
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
suite=${1:?usage: $0 trixie|forky}
case "$suite" in
    trixie) series=5.0 coll=2.4.0 ;;
    forky) series=6.0 coll=3.0.0 ;;
    *) echo "usage: $0 trixie|forky" >&2; exit 2 ;;
esac
host_build=${RWV_BUILD:-$top/_build}
mkdir -p "$host_build"
log=$host_build/$suite-build.log
# inside the root the source tree is /work (root.sh binds it there)
inner_build=/work/${host_build#"$top"/}/$suite
case "$host_build" in "$top"/*) ;; *) echo "# skip: RWV_BUILD must lie inside the source tree"; exit 77 ;; esac

"$here/root.sh" --suite "$suite" make || exit $?
in_root () { "$here/root.sh" --suite "$suite" run env RWV_BUILD="$inner_build" "$@"; }

if ! in_root env RWV_CORE=1 /work/test/build-install.sh > "$log" 2>&1; then
    echo "not ok - configure, build and install against $suite's Open MPI (log: $log)"
    tail -n 25 "$log"
    exit 1
fi
version=$(in_root ompi_info --version 2>/dev/null | sed -n 's/^Open MPI v//p')
found=$(sed -n "s/^RWV_OMPI_SERIES='\(.*\)'$/\1/p" "$host_build/$suite/config.log")
case "$version/$found" in
    $series.*/$series) echo "ok - configure finds the Open MPI $series interfaces ($version) in the $suite root; the components build and install" ;;
    *) echo "not ok - in the $suite root ompi_info says '${version:-nothing}' and configure the series '${found:-nothing}', not $series"; exit 1 ;;
esac

listing=$(in_root env OMPI_MCA_opal_mca_base_component_path="SYS_DEFAULT:$inner_build/inst/lib/openmpi" ompi_info 2>&1)
if echo "$listing" | grep -q 'MCA btl: rwv (MCA v2.1.0, API v3.3.0' &&
   echo "$listing" | grep -q "MCA coll: rdmabar (MCA v2.1.0, API v$coll" &&
   echo "$listing" | grep -q 'MCA rcache: regcache'; then
    echo "ok - ompi_info on Open MPI $version lists btl/rwv (API v3.3.0), coll/rdmabar (API v$coll) and rcache/regcache"
else
    echo "not ok - ompi_info on Open MPI $version does not list the three components with the $series interfaces"
    echo "$listing" | grep -E 'rwv|rdmabar|regcache|rror' | head
fi

in_root bash /work/test/run-tests.sh --no-build --core
