#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves btl/rwv refuses hosts on the rail network that are not part of the
# job, while the job works, and the job still ends with every byte right.
# Three emulated nodes on one rail: a 2-rank stream (test_stream_verify, every
# byte checked) runs on nodes 1 and 2; from node 3, rwv_outsider attacks the
# listening port of the rank that accepted a captured connection request:
#  - connection data claiming the rank's own name, then the other rank's
#    name (well formed, zero MAC): refused, no proof of membership;
#  - 48 random bytes of connection data: refused, malformed;
#  - 4 KiB of random bytes on a plain TCP connection: the port still answers
#    the next request (refused, malformed);
#  - the captured request replayed from node 3: refused, no proof of
#    membership (the MAC covers the addresses);
#  - the same request replayed from the real connector's own node and
#    address: refused as an old attempt;
#  - 50 plain TCP connections that say nothing, held 5 s: the rank still
#    answers requests meanwhile; its open files before, during and after
#    are reported (informational: libfabric's tcp provider, which owns the
#    listening socket, keeps a silent socket until it sends its header).
# Every refusal must show in the rank's log (btl_base_verbose 20 and up)
# with its reason and source; the ranks must be alive after the attacks
# and the stream must go on (test_stream_verify -f: until the test says
# stop) and end with 0 corrupted bytes.
#   test_rwv_outsiders.sh [6]   6: the same over IPv6 (the rail dual-stack,
#                               rwv told btl_rwv_ip_family ipv6)
set -u
ipfam=${1:-4}
export RWV_CLUSTER=rwvo
cluster_sh=$(cd "$(dirname "$0")/../cluster" && pwd)/cluster.sh
. "$cluster_sh"
mca_family=()
if [ "$ipfam" = 6 ]; then
    export RWV_CLUSTER_FAMILIES=46
    mca_family=(--mca btl_rwv_ip_family ipv6)
fi
cluster_up 3 1 || exit $?
# a node's address on the rail in the family under test
node_addr () { # node-number
    if [ "$ipfam" = 6 ]; then cluster_addr6 "$1" 1; else cluster_addr "$1" 1; fi
}
ip_re='[0-9a-f.:]+'  # an address of either family
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; cluster_down' EXIT
log=$tmp/job.log
stop=$tmp/stop
outsider=$RWV_BUILD/test/btl/rwv_outsider
[ -x "$outsider" ] || { echo "not ok - $outsider is not built (make check)"; exit 1; }
n1=$(cluster_node_name 1)
n2=$(cluster_node_name 2)
n3=$(cluster_node_name 3)
start=$(date +%s)

timeout 120 "$cluster_sh" mpirun -np 2 --host "$n1,$n2" --map-by node --mca btl self,rwv "${mca_family[@]}" \
    --mca btl_base_verbose 100 "$RWV_BUILD/test/mpi/test_stream_verify" -n 40 -t 10 -f "$stop" > "$log" 2>&1 &
job=$!

# lines of the target rank's own log
target_log () {
    grep "^\[$tnode:$tpid\] " "$log"
}

# Wait for: both ranks listening on r1, data flowing, and a captured request
# (line from the connector C to the target T) that T has received.
ready=0
for ((i = 0; i < 600; i++)); do
    kill -0 "$job" 2>/dev/null || break
    if [ "$(grep -c 'btl/rwv: rail [0-9]*: ofi/tcp r1 .* listening on ' "$log")" -ge 2 ] &&
       grep -q '^# progress ' "$log"; then
        while read -r line; do
            # [rwvoC:PID] btl/rwv: connection data to [[F,L],V] on ofi/tcp r1 IP: HEX
            if [[ "$line" =~ ^\[([^:]+):([0-9]+)\]\ btl/rwv:\ connection\ data\ to\ \[\[([0-9]+),([0-9]+)\],([0-9]+)\]\ on\ ofi/tcp\ r1\ ($ip_re):\ ([0-9a-f]{96})$ ]]; then
                cnode=${BASH_REMATCH[1]} cpid=${BASH_REMATCH[2]} family=${BASH_REMATCH[3]} lid=${BASH_REMATCH[4]}
                tvpid=${BASH_REMATCH[5]} caddr=${BASH_REMATCH[6]} hex=${BASH_REMATCH[7]}
                tnode=$([ "$cnode" = "$n1" ] && echo "$n2" || echo "$n1")
                listen=$(grep -m1 "^\[$tnode:[0-9]*\] btl/rwv: rail [0-9]*: ofi/tcp r1 .* listening on " "$log")
                tpid=$(echo "$listen" | sed 's/^\[[^:]*:\([0-9]*\)\].*/\1/')
                taddr=$(echo "$listen" | sed -E "s/.* listening on ($ip_re) port .*/\1/")
                tport=$(echo "$listen" | sed -E "s/.* listening on $ip_re port ([0-9]+) .*/\1/")
                cvpid=$((1 - tvpid))
                if target_log | grep -q "connection request from \[\[$family,$lid\],$cvpid\] on ofi/tcp r1 "; then
                    ready=1
                    break
                fi
            fi
        done < <(grep ' btl/rwv: connection data to .* on ofi/tcp r1 ' "$log")
    fi
    [ "$ready" = 1 ] && break
    sleep 0.1
done
if [ "$ready" != 1 ]; then
    echo "not ok - the job never listened, connected and streamed (or no request it received was captured)"
    grep -E 'listening|connection data|progress|^(ok|not ok)|rror' "$log" | tail -15
    exit 1
fi
name="[[$family,$lid]"
# the nodes have their own pid namespaces: the host's pid of the target
for p in $(ip netns pids "$tnode" 2>/dev/null); do
    [ "$(awk '/^NSpid/ {print $NF}' "/proc/$p/status" 2>/dev/null)" = "$((10#$tpid))" ] &&
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = test_stream_ver ] && hpid=$p
done
[ -n "${hpid:-}" ] || { echo "not ok - the target rank's process (pid $tpid in $tnode) not found from the host"; exit 1; }
jobid=$(( family << 16 | lid ))
echo "# target: rank $tvpid ($tnode, pid $tpid) listening on $taddr port $tport;" \
     "captured: rank $cvpid's request ($cnode, $caddr): $hex"
progress_before=$(grep '^# progress ' "$log" | tail -1 | cut -d' ' -f3)
requests_before=$(target_log | grep -c 'connection request from ')

last_n=$(target_log | grep -o 'refused a connection from .* (\([0-9]*\) refused in all' | tail -1 |
         sed 's/.*(\([0-9]*\) refused in all/\1/')
last_n=${last_n:-0}

# Sets refusal to the target's first refusal line after refusal number
# last_n that names SRC and contains REASON, and last_n to its number;
# waits up to 20 s for the line to arrive.
refusal_line () { # src reason
    local i line n
    for ((i = 0; i < 200; i++)); do
        while read -r line; do
            n=$(echo "$line" | sed 's/.*(\([0-9]*\) refused in all.*/\1/')
            if [ "$n" -gt "$last_n" ] && [[ "$line" == *"refused a connection from $1: $2"* ]]; then
                last_n=$n
                refusal=$line
                return 0
            fi
        done < <(target_log | grep 'refused a connection from ')
        sleep 0.1
    done
    return 1
}

# attack LABEL NODE REASON MODE ARGS...: run the outsider in NODE against
# the target; ok when it says refused (exit 0) and the target logs a
# refusal from NODE's address with REASON.
attack () {
    local label=$1 node=$2 reason=$3 out rc src
    shift 3
    src=$(node_addr "${node#"$RWV_CLUSTER"}")
    sleep 1.1 # refusals are reported at most once a second
    out=$(ip netns exec "$node" timeout 60 "$outsider" "$1" "$taddr" "$tport" "${@:2}" 2>&1)
    rc=$?
    if [ "$rc" -eq 0 ] && refusal_line "$src" "$reason"; then
        echo "ok - $label: refused (${out#*answered }), rank $tvpid reports: ${refusal#*refused a connection from }"
    else
        echo "not ok - $label: outsider exit $rc ($out), rank $tvpid's refusals:"
        target_log | grep 'refused a connection' | tail -3
        [ "$rc" -eq 1 ] && echo "# ACCEPTED: ip netns exec $node $outsider $1 $taddr $tport ${*:2}"
    fi
}

no_proof="no proof of membership in this job"
attack "from $n3, connection data claiming the target's own name $name,$tvpid] (zero MAC)" \
    "$n3" "$no_proof" name "$jobid" "$tvpid"
attack "from $n3, connection data claiming the other member's name $name,$cvpid] (zero MAC)" \
    "$n3" "$no_proof" name "$jobid" "$cvpid"
attack "from $n3, 48 random bytes of connection data" "$n3" "malformed connection data" garbage

# junk on a plain TCP connection never becomes a request: the port must
# answer the next one
out=$(ip netns exec "$n3" timeout 60 "$outsider" raw "$taddr" "$tport" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
    sent=$(echo "$out" | sed -n 's/^done: raw, \([0-9]*\) random.*/\1/p')
    attack "from $n3, random bytes on a plain TCP connection (${sent:-?} written), then a request" \
        "$n3" "malformed connection data" garbage
else
    echo "not ok - from $n3, random bytes on a plain TCP connection: outsider exit $rc ($out)"
fi

attack "from $n3, rank $cvpid's captured request replayed (another address)" "$n3" \
    "$no_proof (wrong MAC, or data replayed from another address)" replay "$hex"
attack "from $cnode, rank $cvpid's own node and address, its captured request replayed" "$cnode" \
    "connection data replayed (an old attempt)" replay "$hex"

# 50 silent connections held 5 s; a request meanwhile must still be answered
fds_before=$(ls "/proc/$hpid/fd" 2>/dev/null | wc -l)
ip netns exec "$n3" timeout 60 "$outsider" silent "$taddr" "$tport" 50 5 > "$tmp/silent" 2>&1 &
silent=$!
sleep 2
fds_during=$(ls "/proc/$hpid/fd" 2>/dev/null | wc -l)
attack "from $n3, while 50 silent TCP connections are held, a request" "$n3" "malformed connection data" garbage
wait "$silent"
silent_rc=$?
# the provider notices closed sockets in its own time: up to 10 s
for ((i = 1; i <= 10; i++)); do
    sleep 1
    fds_after=$(ls "/proc/$hpid/fd" 2>/dev/null | wc -l)
    [ "$fds_after" -le "$fds_before" ] && break
done
echo "# open files of rank $tvpid (host pid $hpid): $fds_before before, $fds_during while 50 silent" \
     "connections were held, $fds_after ${i} s after they closed; outsider: $(cat "$tmp/silent") (exit $silent_rc)"

# a thousand refused requests leave nothing behind: open files as before,
# resident memory reported
fds_before=$(ls "/proc/$hpid/fd" 2>/dev/null | wc -l)
rss_before=$(awk '/^VmRSS/ {print $2}' "/proc/$hpid/status" 2>/dev/null)
flood=$(ip netns exec "$n3" timeout 300 "$outsider" flood "$taddr" "$tport" 1000 2>&1)
flood_rc=$?
for ((i = 1; i <= 10; i++)); do
    fds_after=$(ls "/proc/$hpid/fd" 2>/dev/null | wc -l)
    [ "$fds_after" -le "$fds_before" ] && break
    sleep 1
done
rss_after=$(awk '/^VmRSS/ {print $2}' "/proc/$hpid/status" 2>/dev/null)
if [ "$flood_rc" -eq 0 ] && [ "$fds_before" -gt 0 ] && [ "$fds_after" -le "$fds_before" ] && [ -n "$rss_after" ]; then
    echo "ok - 1000 refused requests leave no open file behind ($fds_before before, $fds_after after;" \
         "resident memory ${rss_before} KiB -> ${rss_after} KiB while the stream runs)"
else
    echo "not ok - 1000 refused requests: outsider exit $flood_rc ($flood), open files $fds_before -> $fds_after"
fi

# still alive, still working, and nothing got past the checks
progress_after=$(grep '^# progress ' "$log" | tail -1 | cut -d' ' -f3)
requests_after=$(target_log | grep -c 'connection request from ')
if kill -0 "$job" 2>/dev/null && kill -0 "$tpid" 2>/dev/null && kill -0 "$cpid" 2>/dev/null &&
   [ "$progress_after" -gt "$progress_before" ] && [ "$requests_after" -eq "$requests_before" ]; then
    echo "ok - after the attacks both ranks are alive, the stream went on (message $progress_before to" \
         "$progress_after meanwhile) and no request got past rank $tvpid's checks"
else
    echo "not ok - after the attacks: job $(kill -0 "$job" 2>/dev/null && echo running || echo gone)," \
         "rank $tvpid $(kill -0 "$tpid" 2>/dev/null && echo alive || echo gone)," \
         "rank $cvpid $(kill -0 "$cpid" 2>/dev/null && echo alive || echo gone)," \
         "progress $progress_before -> $progress_after, requests past the checks $requests_before -> $requests_after"
    target_log | grep -E 'connection request from|connected to|rror' | tail -5
fi

touch "$stop"
wait "$job"
rc=$?
result=$(grep -E '^(ok|not ok) - a two-way stream' "$log")
if [ "$rc" -eq 0 ] && [[ "$result" == "ok - "*": 0 corrupted bytes" ]] && ! grep -q '^not ok' "$log"; then
    echo "ok - the attacked job completes: ${result#ok - } ($(( $(date +%s) - start )) s)"
else
    echo "not ok - the attacked job: exit $rc${result:+, $result}"
    grep -v -E 'connection data to|^\[[^]]*\] (mca|select):|progress' "$log" | grep -v '^$' | tail -15
fi
