# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Helpers shared by the benchmark scripts (source it): the project's top
# folder in $top, its build in $build (_build, or $RWV_BUILD), the private
# install on Open MPI's component path, and the emulated cluster's functions.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${RWV_BUILD:-$top/_build}
export OMPI_MCA_opal_mca_base_component_path="SYS_DEFAULT:$build/inst/lib/openmpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# no binding: emulated nodes share this host's cores, and the thread stress needs real parallelism
export OMPI_MCA_hwloc_base_binding_policy=none
. "$top/test/cluster/cluster.sh"

# mpirun for one node, unbound like the emulated nodes' runs
local_mpirun () { mpirun --bind-to none "$@"; }

# progress on stderr, so the tables on stdout stay clean
bench_progress () { echo "[$(date +%H:%M:%S)] $*" >&2; }

# median of the numbers on stdin (one or more per line); "failed" if none
bench_median () {
    tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -g |
        awk '{v[NR]=$1} END {if (!NR) print "failed"; else print (NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'
}

# rows of numbers on stdin -> one row of per-column medians
bench_median_columns () {
    awk '{for (c = 1; c <= NF; c++) v[c, NR] = $c; if (NF > nf) nf = NF}
         END {for (c = 1; c <= nf; c++) {
                  n = 0; for (r = 1; r <= NR; r++) a[++n] = v[c, r] + 0
                  for (i = 2; i <= n; i++) {x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j+1] = a[j]; a[j+1] = x}
                  printf "%s%s", (c > 1 ? " " : ""), (n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2)}
              print ""}'
}

# rows of numbers on stdin (first column a key) -> the key, then the
# lowest and highest value of each further column
bench_range_columns () {
    awk '{k = $1; for (c = 2; c <= NF; c++) {
              if (NR == 1 || $c + 0 < lo[c]) lo[c] = $c + 0
              if (NR == 1 || $c + 0 > hi[c]) hi[c] = $c + 0}
          if (NF > nf) nf = NF}
         END {if (!NR) exit; printf "%s", k; for (c = 2; c <= nf; c++) printf " %s %s", lo[c], hi[c]; print ""}'
}

bench_ratio () { awk -v a="$1" -v b="$2" 'BEGIN {if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else print "-"}'; }

bench_size () {
    awk -v s="$1" 'BEGIN {if (s >= 1048576) printf "%g MiB", s / 1048576; else if (s >= 1024) printf "%g KiB", s / 1024; else printf "%d B", s}'
}

# why a contender failed, in one line: the first error-looking line of its
# output and error streams, without Open MPI's decoration
bench_failure () { # errfile outfile
    local why
    why=$(cat "$2" "$1" 2>/dev/null | tr -d '\000' | grep -v -e '^-----' -e '^\s*$' -e 'help message' -e 'orte_base_help_aggregate' \
          -e '^#.*size_bytes' | grep -i -m1 -e 'fail' -e 'error' -e 'abort' -e 'not ' -e 'unable' -e 'signal' |
          sed -e 's/^\[[^]]*\] *//' -e 's/^# *//' -e 's/^failed: //' -e 's/|/\//g' | cut -c1-110)
    echo "${why:-no output}"
}
