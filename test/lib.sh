# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Helpers shared by the test scripts (source it).

# Open MPI 4.1.4's runtime loses show_help messages on their way to mpirun,
# logging "ORTE_ERROR_LOG: ... in file .../orte/util/show_help.c" instead.
# Measured here with stock components only (btl/tcp's own message for a bad
# btl_tcp_if_include): 6 of 16 runs.  Run the command again, up to 8 times
# in all, only while that happens; a message that never comes still fails.
# (4 were too few: at that rate one check in 50 lost all four, and CI has
# a dozen such checks.)
# Now and then a rank that aborts right after its show_help loses the
# message with no such log line at all.  With RWV_EXPECT set to the
# message's pattern, the command reruns while that message is missing,
# whatever else was lost (two ranks printing at once lose one message or
# another nearly every time).
#   [RWV_EXPECT=PATTERN] run_keeping_help ERRFILE command...   (stdout is the command's)
run_keeping_help () {
    local err=$1 rc attempt
    shift
    for attempt in 1 2 3 4 5 6 7 8; do
        "$@" 2> "$err"
        rc=$?
        if [ -n "${RWV_EXPECT:-}" ]; then
            grep -q -e "$RWV_EXPECT" "$err" && break
        else
            grep -q 'ORTE_ERROR_LOG: .*orte/util/show_help.c' "$err" || break
        fi
    done
    return $rc
}

# Wait up to 120 s for a line matching PATTERN in FILE (a job's output
# written in the background), so a test acts in the middle of the job.
#   wait_for_line FILE PATTERN
wait_for_line () {
    local i
    for ((i = 0; i < 1200; i++)); do
        grep -q -e "$2" "$1" && return 0
        sleep 0.1
    done
    return 1
}

# A test_stream_verify job (PID) run with -t and -f STOP rides out a
# failure: once COUNT lines of its errors (ERR) match PATTERN and 40 more
# messages have passed (its OUT's progress lines), or once it has ended,
# STOP tells it to finish.
#   stream_ride_out PID OUT ERR PATTERN COUNT STOP
stream_ride_out () {
    local since
    while kill -0 "$1" 2> /dev/null && [ "$(grep -c -e "$4" "$3")" -lt "$5" ]; do sleep 0.1; done
    since=$(stream_progress "$2")
    while kill -0 "$1" 2> /dev/null && [ "$(stream_progress "$2")" -lt $((since + 40)) ]; do sleep 0.1; done
    touch "$6"
}

# A stream's last progress line in FILE, 0 before the first.
stream_progress () { sed -n 's/^# progress //p' "$1" | tail -n 1 | grep . || echo 0; }

# True when the Open MPI on PATH is of the 5.0 series.
ompi_is_5 () {
    ompi_info --version 2>/dev/null | grep -q '^Open MPI v5\.'
}

# True when the Open MPI on PATH is 4.1.0 to 4.1.4, whose osc/rdma
# deadlocks itself at its first access to a dynamic window on another
# node, whatever the BTL (ompi_osc_rdma_find_dynamic_region; fixed in
# 4.1.5 by Open MPI pull request 10473, docs/btl-rwv.md).
ompi_dynamic_windows_deadlock () {
    ompi_info --version 2>/dev/null | grep -q '^Open MPI v4\.1\.[0-4]\b'
}

# Every rank of job PID (job_tree) has FUNCTION in its stack, three times
# in a row 2 s apart: stuck there.  Returns at once, false, when the job
# has ended or once LIMIT seconds have passed without that.
#   job_stuck_in PID FUNCTION LIMIT
job_stuck_in () {
    local end=$((SECONDS + $3)) hits=0 ranks inside
    while kill -0 "$1" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do
        sleep 2 < /dev/null > /dev/null 2>&1
        ranks=$(job_ranks "$1" | wc -l)
        inside=$(job_report "$1" 2>/dev/null |
                 awk -v f="$2" '/^# stacks of rank process/ { r++ } index($0, f) { hit[r] = 1 }
                                END { n = 0; for (i in hit) n++; print n }')
        if [ "$ranks" -gt 0 ] && [ "$inside" -eq "$ranks" ]; then
            hits=$((hits + 1))
            [ "$hits" -ge 3 ] && return 0
        else
            hits=0
        fi
    done
    return 1
}

# Run a job under a time limit, as timeout(1) would, but tell apart what
# was left running.  Open MPI 5.0.7's prterun and prted now and then stay
# after every rank has ended (docs/testing.md), and Open MPI 4.1.4's
# mpirun now and then after an abort.  The ranks had done their part, so
# once every rank seen has ended, the launcher gets RWV_LAUNCHER_GRACE
# seconds (default 30) and is then killed: status 125, a "# launcher"
# line on stderr, and the test judges the ranks by what they printed
# (job_ended).  At the limit with ranks still running, their threads'
# stacks (eu-stack) go to stderr before every process of the job is
# killed, and the status is 124.
#   run_job SECONDS command...
run_job () {
    local limit=$1 pid watch mark rc
    shift
    mark=$(mktemp)
    "$@" &
    pid=$!
    job_watch "$pid" "$limit" "$mark" &
    watch=$!
    wait "$pid"
    rc=$?
    kill "$watch" 2>/dev/null
    wait "$watch" 2>/dev/null
    case "$(cat "$mark")" in
        launcher) rc=125 ;;
        hung) rc=124 ;;
    esac
    rm -f "$mark"
    return "$rc"
}

# True for a job that ended well, or whose ranks all ended and whose
# launcher alone stayed (run_job's 125).
job_ended () { # status
    [ "$1" -eq 0 ] || [ "$1" -eq 125 ]
}

# PID and every process below it, parents first; with -r only the ranks:
# the live processes that are neither the launcher nor the shells and
# tools that start it.  The walk starts at every prted and orted too:
# Open MPI 5.0's and 6.0's prted detaches (--daemonize), leaving the
# ranks of the other emulated nodes outside PID's tree, and the suite
# runs one job at a time, so every daemon is this job's.  One ps for the
# whole walk: run_job polls this.
job_tree () { # [-r] pid
    local ranks=0
    [ "$1" = -r ] && { ranks=1; shift; }
    ps -e -o pid=,ppid=,stat=,comm= | awk -v root="$1" -v ranks="$ranks" '
        { kids[$2] = kids[$2] " " $1; stat[$1] = $3; comm[$1] = $4
          if ($4 ~ /^(prted|orted)$/) daemons = daemons " " $1 }
        END { n = split(root daemons, q, " ")
              for (i = 1; i <= n; i++) {
                  p = q[i]
                  if (p in seen) continue
                  seen[p] = 1
                  if (!ranks) print p
                  else if (p in stat && stat[p] !~ /^Z/ &&
                           comm[p] !~ /^(prterun|prted|mpirun|orterun|orted|timeout|bash|sh|ip|unshare|env|sleep)$/)
                      print p
                  m = split(kids[p], k, " ")
                  for (j = 1; j <= m; j++) q[++n] = k[j] } }'
}

job_ranks () { # pid
    job_tree -r "$1"
}

job_kill () { # pid
    local procs p i alive
    procs=$(job_tree "$1")
    kill -TERM $procs 2>/dev/null
    for ((i = 0; i < 10; i++)); do
        alive=0
        for p in $procs; do
            kill -0 "$p" 2>/dev/null && alive=1
        done
        [ "$alive" = 0 ] && return 0
        sleep 1
    done
    kill -KILL $procs 2>/dev/null
}

job_report () { # pid
    local p
    ps -o pid,ppid,stat,etimes,args -p "$(job_tree "$1" | paste -sd,)" | cut -c1-200
    for p in $(job_ranks "$1"); do
        echo "# stacks of rank process $p (network namespace: $(ip netns identify "$p" 2>/dev/null | head -n1)):"
        if command -v eu-stack > /dev/null; then
            # from the rank's own mount namespace and root: there the paths
            # of its mappings name its libraries (a node's namespace is not
            # ours); the innermost frames say where it waits
            nsenter -t "$p" -m -r eu-stack -n 18 -p "$p" 2>&1 | grep -v "shown max number of frames" | head -n 90
        else
            grep -H . /proc/"$p"/task/*/wchan 2>/dev/null
        fi
    done
}

job_watch () { # pid limit mark
    local pid=$1 end=$((SECONDS + $2)) grace=${RWV_LAUNCHER_GRACE:-30} seen=0 ended=
    while kill -0 "$pid" 2>/dev/null; do
        if [ -n "$(job_ranks "$pid")" ]; then
            seen=1
            ended=
        elif [ "$seen" = 1 ] && [ -z "$ended" ]; then
            ended=$SECONDS
        fi
        if [ -n "$ended" ] && [ $((SECONDS - ended)) -ge "$grace" ]; then
            echo "# launcher: every rank had ended, the launcher still ran $grace s later; killed it" >&2
            job_report "$pid" >&2
            echo launcher > "$3"
            job_kill "$pid"
            return
        fi
        if [ "$SECONDS" -ge "$end" ]; then
            echo "# hung: the job still ran after $2 s" >&2
            job_report "$pid" >&2
            echo hung > "$3"
            job_kill "$pid"
            return
        fi
        # no pipe of the job's output held by a sleep that outlives the
        # watch: a caller reading it through $(...) would wait for it
        sleep 2 < /dev/null > /dev/null 2>&1
    done
}

# A job of a test program that prints its own ok/not ok lines: those
# lines again with LABEL after the dash, what run_job said of a hang, and
# a "not ok" of its own when the job did not end well or passed nothing.
# OUT keeps the job's output.
#   labelled_job SECONDS OUT LABEL command...
labelled_job () {
    local limit=$1 out=$2 label=$3 rc
    shift 3
    run_job "$limit" "$@" > "$out" 2>&1
    rc=$?
    sed -n "s#^\(ok\|not ok\) - #\1 - $label: #p" "$out"
    job_diagnosis < "$out"
    if ! job_ended "$rc" || ! grep -q '^ok - ' "$out"; then
        echo "not ok - $label: exit $rc"
        grep -a -v '^ok - ' "$out" | grep -a -v '^#' | tail -8
    fi
}

# What run_job said about a job that hung or left its launcher behind, from
# the job's output on stdin: for the log of a test that judged the job.
job_diagnosis () {
    sed -n '/^# \(hung\|launcher\):/,$p' | head -n 500
}
