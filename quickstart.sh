#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# ./quickstart.sh          install what is missing, build, run the short
#                          comparison against Open MPI's built-in components
#                          (about 5 minutes): tables on the screen, plots and a
#                          results file under bench/results/
# ./quickstart.sh --full   the same, long version (more sizes, rounds, rails)
# ./quickstart.sh --debian13 [--forky] [--full]
#                          the same, then point to point, barrier and one-sided
#                          again on Open MPI 5.0 in a Debian 13 root (and with
#                          --forky on 6.0 in a Debian testing root), into the
#                          same results file
# ./quickstart.sh check    install what is missing, build, run every test
#                          (last line: "N passed, N failed, N skipped")
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"

step () { echo "==> $*" >&2; }

case "${1:-}" in
    check|""|--full|--debian13|--forky) ;;
    *)
        sed -n '2,/^set -eu/s/^# \{0,1\}//p' "$0" | sed '$d'
        exit 2
        ;;
esac

step "checking Debian packages"
test/deps.sh

if [ "${1:-}" = check ]; then
    exec test/run-tests.sh
fi
step "building and installing into $top/_build/inst (log: _build/build.log)"
mkdir -p _build
test/build-install.sh > _build/build.log 2>&1 || { tail -30 _build/build.log; exit 1; }
step "comparing with Open MPI's built-in components (progress below; tables on stdout)"
exec test/bench/run.sh "$@"
