#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The main job: measure our components against Open MPI's built-in ones in
# one run, print the markdown tables, draw the plots and keep everything in
# a results folder (machine, versions, date, options, tables, data, PNGs).
#   test/bench/run.sh [--full] [--debian13] [--forky]
# Short (default, about 4 minutes): 1 round (3 of point to point and of
# message rates), a few sizes, 1 and 2 rails.
# --full: 3 rounds, sizes 1 B to 16 MiB, 1 to 3 rails with and without tbf,
# NetPIPE to 16 MiB with perturbations, what one message costs counted
# under callgrind and perf (test/bench/bench_msgcost.sh; on the native
# verbs rail in the soft-RoCE guest, bench_msgcost_verbs.sh), and the
# connection storm of 256 ranks (test/bench/bench_storm.sh, 4 minutes).
# --debian13, --forky: then point to point, barrier and one-sided again on
# Open MPI 5.0 in the Debian 13 root, or on 6.0 in the Debian forky root
# (test/roots/root.sh), against that Open MPI's own paths, into the same
# results file.  Every table's heading names the Open MPI it ran on.
# Needs the build in _build (./quickstart.sh does it); the emulated-cluster
# parts need root and are skipped with a message otherwise.
set -u
. "$(dirname "$0")/bench_lib.sh"
bench=$top/test/bench
full=0 suites="" inner=""
for arg in "$@"; do
    case "$arg" in
        --full) full=1 ;;
        --debian13) suites="$suites trixie" ;;
        --forky) suites="$suites forky" ;;
        --inner=*) inner=${arg#--inner=} ;;   # internal: a root's part, inside the root
    esac
done
suite_label () { # suite
    case $1 in trixie) echo "5.0 in a Debian 13 root" ;; forky) echo "6.0 in a Debian forky root" ;; esac
}
ompi_version=$(ompi_info --parsable 2>/dev/null | sed -n 's/^ompi:version:full://p')

stamp=$(date -u +%Y%m%d-%H%M%S)
out=${inner:-$top/bench/results/$stamp-$(hostname)$([ $full = 1 ] && echo -full)}
mkdir -p "$out/data"
if [ $full = 1 ]; then
    rounds=3 p2p_rounds=3 msgrate_rounds=3 sizes="1 8 64 512 4096 32768 262144 1048576 4194304 16777216"
    rail_sizes="8192 32768 131072 1048576 4194304 16777216" rail_counts="1 2 3" barrier_n=3000 np_upper=16777216 np_options=""
else
    # the point-to-point table is the first a newcomer reads, and message
    # rates move more than a few percent between runs: 3 rounds of each
    # even in the short run
    rounds=1 p2p_rounds=3 msgrate_rounds=3 sizes="1 4096 32768 1048576 4194304"
    rail_sizes="32768 1048576 4194304" rail_counts="1 2" barrier_n=1000 np_upper=1048576 np_options="-p 0"
fi

header () {
    echo "# Benchmark results, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| run | $([ $full = 1 ] && echo "full (--full)" || echo short): $rounds round(s), $p2p_rounds of point to point and $msgrate_rounds of message rates, sizes $sizes |"
    echo "| machine | $(hostname), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB |"
    echo "| kernel | $(uname -sr) |"
    echo "| Open MPI | $ompi_version$(for su in $suites; do echo -n ", $(suite_label $su)"; done)$([ -n "$suites" ] && echo " (a section each)") |"
    echo "| libfabric | $(fi_info --version 2>/dev/null | sed -n 's/^libfabric: //p') |"
    echo "| compiler | $(gcc --version | head -n1) |"
    echo "| project | $(git -C "$top" describe --always --dirty 2>/dev/null) |"
    echo
    echo "Every figure is measured in this run, contenders side by side; ratios compare ours with the"
    echo "built-in path named. This is an emulated cluster on one host: nodes are network namespaces,"
    echo "rails are veth pairs (kernel TCP), all nodes share the host's cores."
    echo
}

section () { # title command...
    local title=$1
    shift
    bench_progress "== $title (Open MPI $ompi_version)"
    "$@" | sed "s/^## .*/& (Open MPI $ompi_version)/"
    echo
}

# The same build and the comparisons that differ between the series, on
# the Open MPI of a Debian root; its data in data/SUITE.
root_part () { # suite
    local su=$1 root="$top/test/roots/root.sh --suite $1" inner_build=/work/_build/$1 rc
    $root make >&2
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "> Open MPI $(suite_label "$su"): the root could not be made here (see above); no tables for it."
        return
    fi
    bench_progress "== building in the $su root (log: _build/$su-build.log)"
    if ! $root run env RWV_BUILD=$inner_build /work/test/build-install.sh > "$top/_build/$su-build.log" 2>&1; then
        echo "> Open MPI $(suite_label "$su"): the build failed (_build/$su-build.log); no tables for it."
        return
    fi
    $root run env RWV_BUILD=$inner_build RWV_ROOT_LABEL="$(suite_label "$su")" \
        bash /work/test/bench/run.sh $([ $full = 1 ] && echo --full) "--inner=/work/${out#"$top"/}/$su"
}

# A root's part: point to point, barrier and one-sided only.
if [ -n "$inner" ]; then
    echo "# Open MPI $ompi_version, ${RWV_ROOT_LABEL:-in a Debian root} on the same machine"
    echo
    libfabric=$(fi_info --version 2>/dev/null | sed -n 's/^libfabric: //p')
    echo "Built from the same tree against that release's packages (libfabric $libfabric, $(gcc --version | head -n1));"
    echo "contenders are Open MPI $ompi_version's own."
    echo
    section "point to point" "$bench/bench_p2p.sh" "$p2p_rounds" "$out/data" $sizes
    section "message rate" "$bench/bench_msgrate.sh" "$msgrate_rounds" "$out/data"
    section "barrier" "$bench/bench_barrier.sh" "$rounds" "$barrier_n" "$out/data"
    section "one-sided" "$bench/bench_onesided.sh" "$out/data"
    exit 0
fi

{
    header
    if ! cluster_check_privileges 2> /dev/null; then
        echo "> Network namespaces are not available (this needs root): the emulated-cluster rows are"
        echo "> skipped below; single-node benchmarks run."
        echo
    fi
    section "registration cache" "$bench/bench_cache.sh"
    section "point to point" "$bench/bench_p2p.sh" "$p2p_rounds" "$out/data" $sizes
    section "message rate" "$bench/bench_msgrate.sh" "$msgrate_rounds" "$out/data"
    if [ $full = 1 ]; then
        section "message cost" "$bench/bench_msgcost.sh" "$out/data/msgcost"
        section "message cost, verbs rail" "$bench/bench_msgcost_verbs.sh"
    fi
    section "multi-rail, tbf 1gbit" "$bench/bench_rails.sh" "$out/data" 1gbit "$rail_counts" $rail_sizes
    if [ $full = 1 ]; then
        mkdir -p "$out/data/unlimited"
        section "multi-rail, no limit" "$bench/bench_rails.sh" "$out/data/unlimited" none "$rail_counts" $rail_sizes
    fi
    section "barrier" "$bench/bench_barrier.sh" "$rounds" "$barrier_n" "$out/data"
    if [ $full = 1 ]; then
        section "barrier, 4 to 16 nodes" "$bench/bench_barrier_nodes.sh" "$rounds" 1000 4 8 16
        section "connection storm, 256 ranks" "$bench/bench_storm.sh" 4 64
    fi
    section "one-sided" "$bench/bench_onesided.sh" "$out/data"
    section "computing peers" "$bench/bench_computing.sh" "$rounds" "$out/data"
    section "NetPIPE" "$bench/bench_netpipe.sh" "$out/data" "$np_upper" $np_options
    for su in $suites; do root_part "$su"; done
    echo "## Plots"
    echo
    bench_progress "== plots"
    (cd "$out/data" && "$bench/bench_plots.sh" . > /dev/null)
    for png in "$out"/data/*.png; do
        [ -f "$png" ] || continue
        mv "$png" "$out/"
        echo "![$(basename "$png" .png)]($(basename "$png"))"
    done
} | tee "$out/results.md"
find "$out" -name 'raw-*' -delete # the raw outputs, summarised in results.md
ln -sfn "$(basename "$out")" "$top/bench/results/latest"
bench_progress "results: $out/results.md (plots and data beside it; bench/results/latest points there)"
