#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves the Debian packages (debian/, docs/packaging.md) are what an
# administrator installs:
#  - `make dist` in the suite's build gives the release tarball, which
#    holds no build products;
#  - from that tarball, `dpkg-buildpackage -b` builds the packages on this
#    Debian 12 host (Open MPI 4.1) and in the Debian 13 root (Open MPI 5.0),
#    and lintian finds no error and no warning in either; on the host the
#    same tree then builds every test program (`make check`), so the
#    tarball holds every source the build needs (what `make distcheck`
#    added beyond these, a clean uninstall, test_destdir_install.sh checks
#    in the suite's build);
#  - in a bare root of each release (mmdebstrap --variant=apt, from the
#    host's archive), apt-get install of the packages takes everything else
#    from the archive; with no component path set, ompi_info lists the
#    three components and btl/rwv's parameters, a show_help message is
#    found, and from a login shell a ping-pong over rwv has every byte
#    right and coll/rdmabar alone gives every collective's values right;
#    on Debian 13 the same job outside a login shell misses the components
#    (the cause openmpi-mca-rwv-common's snippet cures); the other release's packages
#    are refused with the pinned dependency named; apt-get purge leaves no
#    file of ours.
# Skips (77) with the reason when not root or when the tools or the
# archive are missing; a release whose root cannot be made is one skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${RWV_BUILD:-$top/_build}
work=$build/packaging
roots=$top/test/roots/root.sh
. "$top/test/lib.sh"
# no debug symbol packages: the bare roots would not install them
export DEB_BUILD_OPTIONS="parallel=2 noautodbgsym"

[ "$(id -u)" -eq 0 ] || { echo "# skip: packaging: needs root (package builds and chroots)"; exit 77; }
for tool in dpkg-buildpackage dh lintian mmdebstrap; do
    command -v $tool > /dev/null || { echo "# skip: packaging: $tool is missing (test/deps.sh installs it)"; exit 77; }
done
case "$work" in "$top"/*) ;; *) echo "# skip: packaging: RWV_BUILD must lie inside the source tree"; exit 77 ;; esac
rm -rf "$work"
mkdir -p "$work/12" "$work/13"
trap 'wait; rm -rf "$work"/root-* "$build"/ompi-rwv-*.tar.gz' EXIT

# the bare roots are made from the archive while the packages build
declare -A bare_maker
for suite in bookworm trixie; do
    "$roots" bare "$suite" "$work/root-$suite" > "$work/bare-$suite.out" 2>&1 &
    bare_maker[$suite]=$!
done

# ------------------------------------------------------------ the tarball
# `make dist` in the suite's configured build gives the tarball the
# packages build from (the tarball does not depend on configure's options)
[ -f "$build/Makefile" ] || { echo "# skip: packaging: no configured build in $build (run-tests.sh makes it)"; exit 77; }
if ! make -C "$build" dist > "$work/dist.log" 2>&1; then
    echo "not ok - make dist (log: $work/dist.log)"; tail -n 15 "$work/dist.log"; exit 1
fi
tarball=$(ls "$build"/ompi-rwv-*.tar.gz)
version=${tarball##*/ompi-rwv-}
version=${version%.tar.gz}
mv "$tarball" "$work/" && tarball=$work/ompi-rwv-$version.tar.gz
# made in a tree that has been built: none of its products may go along
junk=$(tar tzf "$tarball" | grep -E '\.(lo|o|la|so|Plo|Po)$|/\.(libs|deps)/' | head -n 3)
if [ -z "$junk" ]; then
    echo "ok - make dist in a built tree: the release tarball holds no objects or dependency files"
else
    echo "not ok - the release tarball holds build products:" $junk
fi

# ------------------------------------------------------------ the builds
unpack () { # dir
    cp "$tarball" "$1/ompi-rwv_$version.orig.tar.gz" && tar xzf "$tarball" -C "$1"
}

# build in DIR (12: here; 13: in the Debian 13 root, where /work is $top),
# then, in the same tree against the same Open MPI, test programs: on 12
# every one, on 13 the two the bare roots run (the others are built there
# from git by test_in_root.sh)
build_steps () { # source-dir make-targets
    echo "cd $1 && dpkg-buildpackage -us -uc -b && make -j2 $2"
}
build_packages () { # release
    local dir=$work/$1 inner=/work/${work#"$top"/}/$1
    unpack "$dir" || return 1
    if [ "$1" = 12 ]; then
        sh -c "$(build_steps "$dir/ompi-rwv-$version" check)" > "$dir/build.log" 2>&1
    else
        "$roots" make > "$dir/build.log" 2>&1 || return $?
        "$roots" run env DEB_BUILD_OPTIONS="$DEB_BUILD_OPTIONS" sh -c \
            "$(build_steps "$inner/ompi-rwv-$version" "test/mpi/test_pingpong_verify test/coll/test_collectives_values")" \
            > "$dir/build.log" 2>&1
    fi
}

lib_package () { # release
    case $1 in 12) echo libopenmpi3 ;; 13) echo libopenmpi40 ;; esac
}
series () { # release
    case $1 in 12) echo 4.1 ;; 13) echo 5.0 ;; esac
}

# both releases build at once: each spends a good part of its time in
# serial steps (configure, debhelper) that leave a core idle
declare -A builder
for rel in 12 13; do
    build_packages $rel &
    builder[$rel]=$!
done
built=()
for rel in 12 13; do
    wait "${builder[$rel]}"
    rc=$?
    if [ "$rc" -eq 77 ]; then
        echo "skip - Debian $rel packages: $(grep '^# skip' "$work/$rel/build.log" | head -n 1)"
        continue
    elif [ "$rc" -ne 0 ]; then
        echo "not ok - Debian $rel: dpkg-buildpackage -b from the release tarball, then the test programs (log: $work/$rel/build.log)"
        tail -n 15 "$work/$rel/build.log"
        continue
    fi
    pin="$(lib_package $rel) (<< $(series $rel | awk -F. '{print $1 "." $2 + 1}')~)"
    depends=$(dpkg-deb -f "$work/$rel"/openmpi-mca-btl-rwv_*.deb Depends)
    if [[ "$depends" == *"$pin"* ]]; then
        echo "ok - Debian $rel: the packages build from the release tarball$([ $rel = 12 ] && echo ", and then every test program"); each component depends on $(lib_package $rel) within Open MPI $(series $rel)"
        built+=($rel)
    else
        echo "not ok - Debian $rel: openmpi-mca-btl-rwv does not pin '$pin': Depends: $depends"
    fi
    # a release build carries no fault injection (configure --enable-test-faults)
    faults=$(dpkg-deb --fsys-tarfile "$work/$rel"/openmpi-mca-btl-rwv_*.deb | tar -xO --wildcards '*/mca_btl_rwv.so' |
             strings | grep -c 'RWV_TEST_FAULT\|fetch_addr')
    if [ "$faults" = 0 ]; then
        echo "ok - Debian $rel: the packaged btl/rwv carries no test fault injection (no RWV_TEST_FAULT in it)"
    else
        echo "not ok - Debian $rel: the packaged btl/rwv carries the test suite's fault injection ($faults strings)"
    fi
    if lintian --fail-on error,warning "$work/$rel"/*.changes > "$work/$rel/lintian.log" 2>&1; then
        echo "ok - Debian $rel: lintian reports no error and no warning (overrides in debian/ say why)"
    else
        echo "not ok - Debian $rel: lintian"; grep -E '^(E|W):' "$work/$rel/lintian.log" | head -n 10
    fi
done

# ------------------------------------------------------------ a bare machine
in_root () { # root cmd...
    local r=$1
    shift
    "$roots" in "$r" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        OMPI_MCA_hwloc_base_binding_policy=none "$@"
}

our_files () { # root
    find "$1" \( -path "$1/proc" -o -path "$1/sys" -o -path "$1/dev" -o -path "$1/run" -o -path "$1/work" \
        -o -path "$1/rwv-test" \) -prune -o \( -name '*rwv*' -o -name '*rdmabar*' -o -name '*regcache*' \) -print
}

# A job in the root passes when it exits 0 and prints only ok lines;
# the line says what it checked.  (prterun's help text carries NULs.)
job_checks () { # label root cmd...
    local label=$1 r=$2 rc
    shift 2
    in_root "$r" "$@" 2>&1 | tr -d '\000' > "$r.job.log"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -eq 0 ] && grep -q '^ok - ' "$r.job.log" && ! grep -q '^not ok' "$r.job.log"; then
        echo "ok - $label: $(grep '^ok - ' "$r.job.log" | head -n 1 | sed 's/^ok - //')"
    else
        echo "not ok - $label: exit $rc"; tail -n 5 "$r.job.log"
    fi
}

# Debian 13's mpirun passes the mca_base_component_path of Debian's PMIx
# parameter file to the ranks, hiding Open MPI's directory from them
# (docs/packaging.md): the profile.d snippet of openmpi-mca-rwv-common is
# what lets the login-shell jobs above find the components.  Without it
# (a shell that is not a login shell) they must not: this proves both the
# cause and that the snippet is the cure.
# The ranks' message may be lost on its way (test/lib.sh): the job runs
# again while it is missing, and what it printed is shown if it never came.
hidden_without_snippet () { # root suite
    local log=$1.hidden.log
    RWV_EXPECT='Component: *rwv' run_keeping_help "$log" in_root "$1" \
        bash -c 'mpirun -np 2 --mca btl self,rwv /rwv-test/bin/test_pingpong_verify 1>&2'
    if tr -d '\000' < "$log" | grep -q 'Component: *rwv' &&
       in_root "$1" bash -lc 'env' | grep -qx 'OMPI_MCA_opal_mca_base_component_path=SYS_DEFAULT'; then
        echo "ok - $2: outside a login shell the ranks miss btl/rwv (PMIx's parameter file); the profile.d snippet restores Open MPI's search path"
    else
        echo "not ok - $2: the component path seen without and with the profile.d snippet is not what docs/packaging.md says"
        tr -d '\000' < "$log" | grep -v '^$' | tail -n 8 | sed 's/^/#   /'
    fi
}

try_packages () { # release suite other-release
    local rel=$1 suite=$2 other=$3 r=$work/root-$2 out rc
    if ! wait "${bare_maker[$suite]}"; then
        echo "skip - Debian $rel packages on a bare $suite root: $(sed 's/^# skip: //' "$work/bare-$suite.out")"
        return
    fi
    mkdir -p "$r/rwv-test/debs" "$r/rwv-test/other" "$r/rwv-test/bin"
    cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null
    cp "$work/$rel"/*.deb "$r/rwv-test/debs/"
    cp "$work/$other"/*.deb "$r/rwv-test/other/" 2>/dev/null
    cp "$work/$rel/ompi-rwv-$version/test/mpi/test_pingpong_verify" \
       "$work/$rel/ompi-rwv-$version/test/coll/test_collectives_values" "$r/rwv-test/bin/"

    if in_root "$r" sh -c 'apt-get install -y -q /rwv-test/debs/*.deb' > "$r.install.log" 2>&1 &&
       in_root "$r" dpkg-query -W -f='${Status}\n' openmpi-bin | grep -q 'install ok installed'; then
        echo "ok - Debian $rel packages on a bare $suite root: apt-get install takes Open MPI and the libraries from the archive"
    else
        echo "not ok - apt-get install of the Debian $rel packages on a bare $suite root"; tail -n 10 "$r.install.log"
        return
    fi

    out=$(in_root "$r" ompi_info 2>&1; in_root "$r" ompi_info --param btl rwv --level 9 2>&1)
    if echo "$out" | grep -q 'MCA btl: rwv' && echo "$out" | grep -q 'MCA coll: rdmabar' &&
       echo "$out" | grep -q 'MCA rcache: regcache' && echo "$out" | grep -q 'btl_rwv_connect_timeout'; then
        echo "ok - $suite: with no component path set, ompi_info lists btl/rwv, coll/rdmabar, rcache/regcache and btl/rwv's parameters"
    else
        echo "not ok - $suite: ompi_info does not list the installed components"; echo "$out" | grep -iE 'rwv|rdmabar|regcache|error' | head -n 5
    fi
    RWV_EXPECT='found an invalid MCA parameter value' run_keeping_help "$r.help.log" in_root "$r" \
        bash -lc 'mpirun -np 2 --mca btl self,vader,rwv --mca btl_rwv_connect_timeout -1 /rwv-test/bin/test_pingpong_verify' \
        > /dev/null
    if grep -q 'found an invalid MCA parameter value' "$r.help.log"; then
        echo "ok - $suite: btl/rwv's show_help texts are found where that Open MPI looks for its own"
    else
        echo "not ok - $suite: btl/rwv's help text"; tail -n 5 "$r.help.log"
    fi
    # jobs run from a login shell, as a user's do, with nothing set by hand
    job_checks "$suite: mpirun --mca btl self,rwv from a login shell" "$r" \
        bash -lc 'mpirun -np 2 --mca btl self,rwv /rwv-test/bin/test_pingpong_verify'
    job_checks "$suite: mpirun --mca coll rdmabar, 3 ranks, from a login shell" "$r" \
        bash -lc 'mpirun -np 3 --oversubscribe --mca mpi_yield_when_idle 1 --mca coll rdmabar /rwv-test/bin/test_collectives_values -u -q'
    [ "$rel" = 13 ] && hidden_without_snippet "$r" "$suite"

    if ls "$r"/rwv-test/other/*.deb > /dev/null 2>&1; then
        out=$(in_root "$r" sh -c 'apt-get install -s /rwv-test/other/*.deb' 2>&1)
        if [ $? -ne 0 ] && echo "$out" | grep -q "Depends: $(lib_package $other)"; then
            echo "ok - $suite: apt refuses the Debian $other packages (Open MPI $(series $other)) and names $(lib_package $other)"
        else
            echo "not ok - $suite: apt would install the Debian $other packages next to Open MPI $(series $rel)"
            echo "$out" | tail -n 5
        fi
    fi

    in_root "$r" apt-get purge -y -q ompi-rwv openmpi-mca-btl-rwv openmpi-mca-coll-rdmabar \
        openmpi-mca-rcache-regcache openmpi-mca-rwv-common > "$r.purge.log" 2>&1
    rc=$?
    out=$(our_files "$r")
    if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
        echo "ok - $suite: apt-get purge leaves no file of ours"
    else
        echo "not ok - $suite: files left after apt-get purge"; echo "$out" | head -n 10
    fi
}

for rel in "${built[@]}"; do
    case $rel in
        12) try_packages 12 bookworm 13 ;;
        13) try_packages 13 trixie 12 ;;
    esac
done
