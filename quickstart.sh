#!/usr/bin/env bash
# ./quickstart.sh          install what is missing, build, run the short
#                          comparison against Open MPI's built-in components
# ./quickstart.sh check    install what is missing, build, run every test
#                          (last line: "N passed, N failed, N skipped")
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"

step () { echo "==> $*" >&2; }

step "checking Debian packages"
test/deps.sh

case "${1:-}" in
    check)
        exec test/run-tests.sh
        ;;
    "")
        step "building and installing into $top/_build/inst (log: _build/build.log)"
        mkdir -p _build
        test/build-install.sh > _build/build.log 2>&1 || { tail -30 _build/build.log; exit 1; }
        step "comparing with Open MPI's built-in components"
        test/bench/compare.sh
        ;;
    *)
        sed -n '2,/^set -eu/s/^# \{0,1\}//p' "$0" | sed '$d'
        exit 2
        ;;
esac
