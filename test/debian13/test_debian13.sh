#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves the same source tree works on Open MPI 5.0: in a Debian 13 root
# (test/debian13/root.sh, made once and reused), configure finds the 5.0
# series, the components build, install and load with the 5.0 interfaces
# (BTL 3.3.0, coll 2.4.0), and the tests run-tests.sh marks CORE=1 pass
# there.  Exits 77 with the reason when the root cannot be made here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
host_build=${RWV_BUILD:-$top/_build}
mkdir -p "$host_build"
log=$host_build/debian13-build.log
# inside the root the source tree is /work (root.sh binds it there)
inner_build=/work/${host_build#"$top"/}/debian13
case "$host_build" in "$top"/*) ;; *) echo "# skip: RWV_BUILD must lie inside the source tree"; exit 77 ;; esac

"$here/root.sh" make || exit $?
in_root () { "$here/root.sh" run env RWV_BUILD="$inner_build" "$@"; }

if ! in_root /work/test/build-install.sh > "$log" 2>&1; then
    echo "not ok - configure, build and install against Debian 13's Open MPI (log: $log)"
    tail -n 25 "$log"
    exit 1
fi
version=$(in_root ompi_info --version 2>/dev/null | sed -n 's/^Open MPI v//p')
series=$(sed -n "s/^RWV_OMPI_SERIES='\(.*\)'$/\1/p" "$host_build/debian13/config.log")
case "$version/$series" in
    5.0.*/5.0) echo "ok - configure finds the Open MPI 5.0 series ($version) in the Debian 13 root; the components build and install" ;;
    *) echo "not ok - in the Debian 13 root ompi_info says '${version:-nothing}' and configure the series '${series:-nothing}', not 5.0"; exit 1 ;;
esac

listing=$(in_root env OMPI_MCA_opal_mca_base_component_path="SYS_DEFAULT:$inner_build/inst/lib/openmpi" ompi_info 2>&1)
if echo "$listing" | grep -q 'MCA btl: rwv (MCA v2.1.0, API v3.3.0' &&
   echo "$listing" | grep -q 'MCA coll: rdmabar (MCA v2.1.0, API v2.4.0' &&
   echo "$listing" | grep -q 'MCA rcache: regcache'; then
    echo "ok - ompi_info on Open MPI $version lists btl/rwv (API v3.3.0), coll/rdmabar (API v2.4.0) and rcache/regcache"
else
    echo "not ok - ompi_info on Open MPI $version does not list the three components with the 5.0 interfaces"
    echo "$listing" | grep -E 'rwv|rdmabar|regcache|rror' | head
fi

in_root bash /work/test/run-tests.sh --no-build --core
