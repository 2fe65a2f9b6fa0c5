#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# MPICH's own test suite (its test/mpi: pt2pt, rma and coll by default) as
# a regression check of btl/rwv between emulated nodes, against stock Open
# MPI on one node as the baseline.  Nothing is fetched: give it an MPICH
# source tree (a release tarball unpacked, or a git checkout; how to get
# one: docs/testing.md, "MPICH's test suite").
#
#   test/mpich/mpich_suite.sh MPICH_SRC [DIR...]
#
# It builds the tests with this Open MPI's mpicc into $RWV_BUILD/mpich/build
# (running MPICH's test/mpi/autogen.sh first when the tree has no
# configure script: that writes into the tree), then runs every test each
# DIR's testlist names twice:
#   baseline  one node, --mca btl self,vader, --oversubscribe
#   rwv       2 emulated nodes (--map-by node), --mca btl self,vader,rwv,
#             --mca mpi_yield_when_idle 1: the emulated nodes share this
#             host's cores, which mpirun cannot see (docs/testing.md)
# A test passes when it exits 0 and prints MPICH's "No Errors".
# Results: $RWV_BUILD/mpich/results.tsv (one line a run) and
# $RWV_BUILD/mpich/summary.md (counts, and every test whose result
# differs between the two runs).  The last line is "N passed, N failed"
# over the rwv runs of the tests the baseline passes: each of those must
# pass over rwv too (or with the retry's arguments, below).
#
# A test the baseline passes and rwv does not runs over rwv once more with
# RWV_MPICH_RETRY_ARGS, when set: under Open MPI 4.1.0-4.1.4 they default
# to "--mca osc pt2pt", the way around that osc/rdma's deadlock on
# dynamic windows between nodes (docs/btl-rwv.md).  The summary says
# which tests passed only so.
# Settings: RWV_MPICH_LIMIT (seconds per run, default 120; a testlist's
# larger timeLimit is kept), RWV_MPICH_FILTER (run only tests whose
# "dir/name args" matches this extended regular expression), RWV_MPICH_BTLS (rwv's btl list),
# RWV_MPICH_FROM (skip every test before this "dir/name args"),
# RWV_MPICH_OUT (where the results go).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/test/cluster/cluster.sh"
. "$top/test/lib.sh"

src=${1:?usage: $0 MPICH_SRC [DIR...]}
shift
src=$(cd "$src" && pwd) || exit 2
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(pt2pt rma coll)
build=${RWV_BUILD:-$top/_build}
prefix=$build/inst
tb=$build/mpich/build
out=${RWV_MPICH_OUT:-$build/mpich}
limit=${RWV_MPICH_LIMIT:-120}
filter=${RWV_MPICH_FILTER:-}
from=${RWV_MPICH_FROM:-}
btls=${RWV_MPICH_BTLS:-self,vader,rwv}
tests=$src/test/mpi
if [ -z "${RWV_MPICH_RETRY_ARGS+set}" ] && ompi_dynamic_windows_deadlock; then
    RWV_MPICH_RETRY_ARGS="--mca osc pt2pt"
fi
read -r -a retry_args <<< "${RWV_MPICH_RETRY_ARGS:-}"

[ -d "$tests/rma" ] || { echo "$0: $src is not an MPICH source tree (no test/mpi/rma)" >&2; exit 2; }
[ -f "$prefix/lib/openmpi/mca_btl_rwv.so" ] || { echo "$0: build first (test/build-install.sh)" >&2; exit 2; }
export OMPI_MCA_opal_mca_base_component_path="SYS_DEFAULT:$prefix/lib/openmpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_hwloc_base_binding_policy=none

# MPICH's tests as Open MPI's mpicc builds them; MPI-4 tests that an MPI-3
# library cannot compile are left unbuilt (make -k) and reported so
build_tests () {
    mkdir -p "$tb"
    if [ ! -x "$tests/configure" ]; then
        (cd "$tests" && ./autogen.sh) > "$out/autogen.log" 2>&1 ||
            { echo "$0: MPICH's autogen.sh failed (log: $out/autogen.log)" >&2; return 1; }
    fi
    if [ ! -f "$tb/Makefile" ]; then
        (cd "$tb" && "$tests/configure" CC=mpicc --disable-fortran --disable-cxx --disable-spawn \
            --disable-ft-tests --enable-strictmpi MPIEXEC=mpirun) > "$out/configure.log" 2>&1 ||
            { echo "$0: MPICH's test configure failed (log: $out/configure.log)" >&2; return 1; }
    fi
    make -C "$tb/util" > "$out/make.log" 2>&1 &&
        make -C "$tb/dtpools" >> "$out/make.log" 2>&1 ||
        { echo "$0: MPICH's test utilities did not build (log: $out/make.log)" >&2; return 1; }
    for dir in "${dirs[@]}"; do
        make -k -j"$(nproc)" -C "$tb/$dir" >> "$out/make.log" 2>&1
    done
    return 0
}

# One run: prints "pass SECONDS", "fail SECONDS" or "hang SECONDS"
run_one () { # seconds log launcher args...
    local seconds=$1 log=$2 start=$SECONDS rc
    shift 2
    run_job "$seconds" "$@" > "$log" 2>&1
    rc=$?
    if [ "$rc" -eq 124 ]; then
        echo "hang $((SECONDS - start))"
    elif job_ended "$rc" && grep -q 'No Errors' "$log"; then
        echo "pass $((SECONDS - start))"
    else
        echo "fail $((SECONDS - start))"
    fi
}

# The same, where Open MPI 4.1.0-4.1.4's osc/rdma deadlocks on dynamic
# windows: a job whose every rank spins in its region lookup is stopped
# there ("osc-deadlock") rather than left to the limit.
run_one_osc () { # seconds log launcher args...
    local seconds=$1 log=$2 start=$SECONDS pid rc
    shift 2
    if [ ${#retry_args[@]} -eq 0 ] || [ "$dir" != rma ]; then
        run_one "$seconds" "$log" "$@"
        return
    fi
    "$@" > "$log" 2>&1 &
    pid=$!
    # most tests end within seconds: no stacks taken from them
    while kill -0 "$pid" 2>/dev/null && [ $((SECONDS - start)) -lt 6 ]; do sleep 0.2; done
    if job_stuck_in "$pid" ompi_osc_rdma_find_dynamic_region "$seconds"; then
        job_kill "$pid"
        wait "$pid" 2>/dev/null
        echo "osc-deadlock $((SECONDS - start))"
    elif kill -0 "$pid" 2>/dev/null; then
        job_report "$pid" >> "$log" 2>&1
        job_kill "$pid"
        wait "$pid" 2>/dev/null
        echo "hang $((SECONDS - start))"
    else
        wait "$pid"
        rc=$?
        if [ "$rc" -eq 0 ] && grep -q 'No Errors' "$log"; then
            echo "pass $((SECONDS - start))"
        else
            echo "fail $((SECONDS - start))"
        fi
    fi
}

# The testlist's lines: NAME NP [arg=A] [env=K=V] [timeLimit=S] ...
run_dir () { # dir
    local dir=$1 name np word args envs seconds label log base over
    grep -v -E '^\s*(#|$)' "$tb/$dir/testlist" | while read -r name np rest; do
        args=() envs=() seconds=$limit
        for word in $rest; do
            case "$word" in
                arg=*) args+=("${word#arg=}") ;;
                env=*) envs+=(-x "${word#env=}") ;;
                timeLimit=*) [ "${word#timeLimit=}" -gt "$seconds" ] && seconds=${word#timeLimit=} ;;
            esac
        done
        label="$dir/$name${args[*]:+ ${args[*]}}"
        [ -z "$filter" ] || [[ "$label" =~ $filter ]] || continue
        [ -z "$from" ] || [[ "$from" != "$dir/"* ]] || [ "$label" = "$from" ] || continue
        from=
        if [ ! -x "$tb/$dir/$name" ]; then
            printf '%s\t%s\tnot-built\t0\tnot-built\t0\t-\t0\n' "$label" "$np" >> "$out/results.tsv"
            continue
        fi
        log=$out/logs/$(echo "$label" | tr -c 'A-Za-z0-9_.-' '_')
        # envs holds -x options of mpirun; < /dev/null: the runs must not eat the list
        base=$(cd "$tb/$dir" && run_one "$seconds" "$log.baseline" \
               mpirun -np "$np" --oversubscribe --mca btl self,vader "${envs[@]}" "./$name" "${args[@]}" < /dev/null)
        over=$(cd "$tb/$dir" && run_one_osc "$seconds" "$log.rwv" \
               cluster_mpirun -np "$np" --map-by node --oversubscribe --mca mpi_yield_when_idle 1 \
               --mca btl "$btls" "${envs[@]}" "./$name" "${args[@]}" < /dev/null)
        retry="-"$'\t'0
        if [ "${base%% *}" = pass ] && [ "${over%% *}" != pass ] && [ ${#retry_args[@]} -gt 0 ]; then
            retry=$(cd "$tb/$dir" && run_one "$seconds" "$log.retry" \
                    cluster_mpirun -np "$np" --map-by node --oversubscribe --mca mpi_yield_when_idle 1 \
                    --mca btl "$btls" "${retry_args[@]}" "${envs[@]}" "./$name" "${args[@]}" < /dev/null)
            retry=${retry/ /$'\t'}
        fi
        printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$np" "${base/ /$'\t'}" "${over/ /$'\t'}" "$retry" |
            tee -a "$out/results.tsv"
    done
}

summarize () {
    local f=$out/results.tsv
    {
        echo "| | tests | both pass | both pass, rwv with ${RWV_MPICH_RETRY_ARGS:-no retry} | baseline only | rwv only | both fail or hang | not built |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|"
        for dir in "${dirs[@]}"; do
            awk -F'\t' -v d="$dir/" 'index($1, d) == 1 { n++
                if ($3 == "not-built") nb++
                else if ($3 == "pass" && $5 == "pass") both++
                else if ($3 == "pass" && $7 == "pass") retried++
                else if ($3 == "pass") bonly++
                else if ($5 == "pass") ronly++
                else none++ }
                END { printf "| %s | %d | %d | %d | %d | %d | %d | %d |\n", substr(d, 1, length(d) - 1), n, both, retried,
                      bonly, ronly, none, nb }' "$f"
        done
        echo
        echo "Every test whose result differs (baseline: one node, vader; rwv: 2 emulated nodes, $btls;"
        echo "retry: rwv again with ${RWV_MPICH_RETRY_ARGS:-nothing}, for tests the baseline passes and rwv does not):"
        echo
        echo "| test | ranks | baseline | s | rwv | s | retry | s |"
        echo "|---|---:|---|---:|---|---:|---|---:|"
        awk -F'\t' '$3 != "not-built" && $3 != $5 { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$f"
    } > "$out/summary.md"
    cat "$out/summary.md"
    awk -F'\t' '$3 == "pass" { if ($5 == "pass" || $7 == "pass") p++; else f++ } END { printf "%d passed, %d failed\n", p, f }' "$f"
}

mkdir -p "$out/logs"
: > "$out/results.tsv"
build_tests || exit 1
cluster_up 2 1 || exit $?
for dir in "${dirs[@]}"; do
    run_dir "$dir"
done
cluster_down
summarize
