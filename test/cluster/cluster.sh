#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Emulated multi-node cluster on one host: each node is a network namespace,
# each rail a separate IP network joining every node (a veth pair for 2
# nodes, veths into one bridge per rail for more).  Addresses come from the
# documentation ranges only, so no packet can leave this machine.
#
# Use as a library (source it; cluster_up installs an EXIT trap that tears
# everything down) or from the command line:
#
#   cluster.sh up NODES RAILS [RATE]   build it (RATE: tbf rate per rail, e.g. 1gbit, or one
#                                      per rail, comma separated: 1gbit,500mbit)
#   cluster.sh down                    remove every namespace of this cluster
#   cluster.sh mpirun ARGS...          run mpirun on node 1 for the whole cluster
#   cluster.sh agent HOST CMD...       launch agent given to mpirun (internal)
#   cluster.sh run NODES RAILS [RATE] -- CMD...   up, run CMD, down (even on failure)
#
# Node n is namespace ${RWV_CLUSTER}n (default rwvn1, rwvn2, ...), its host
# name is the same, and its rail r interface is named r<r> with address
# <rail net r>.<n>.  The runtime's own traffic stays on rail 1.
# RWV_CLUSTER_FAMILIES gives each rail its address families, comma
# separated per rail (the last one for the rest): 4 (the default), 6 or
# 46; an IPv6 rail r has 2001:db8:r::n/64 (RFC 3849), added without
# duplicate-address detection so it is usable at once.  Rail 1 always
# keeps IPv4: the runtime speaks it.
# RWV_CLUSTER_CC names the TCP congestion control of every node (cubic,
# reno, bbr); unset, the nodes take this host's default.  The kernel lets a
# namespace choose only one listed in net.ipv4.tcp_allowed_congestion_control.

RWV_CLUSTER=${RWV_CLUSTER:-rwvn}
# one documentation network (RFC 5737) per rail
RWV_RAIL_NETS=(198.51.100 203.0.113 192.0.2)
RWV_CLUSTER_STATE=${RWV_CLUSTER_STATE:-/run/rwv-cluster-$RWV_CLUSTER}
RWV_CLUSTER_SELF=$(readlink -f "${BASH_SOURCE[0]}")

cluster_die () {
    echo "cluster: $*" >&2
    return 1
}

# Exit status 77 means "cannot run here" (the harness reports it as skipped).
cluster_check_privileges () {
    local probe="${RWV_CLUSTER}probe$$"
    if ! command -v ip >/dev/null 2>&1; then
        echo "cluster: the 'ip' command is missing (apt-get install iproute2)" >&2
        return 77
    fi
    if ! ip netns add "$probe" 2>/dev/null; then
        echo "cluster: cannot create network namespaces here (needs root, or CAP_SYS_ADMIN and" \
             "CAP_NET_ADMIN); multi-node tests are skipped, single-node ones still run" >&2
        return 77
    fi
    ip netns del "$probe"
}

cluster_nodes () {
    cat "$RWV_CLUSTER_STATE/nodes" 2>/dev/null
}

cluster_node_name () {
    echo "${RWV_CLUSTER}$1"
}

cluster_rail_cidr () {
    echo "${RWV_RAIL_NETS[$(($1 - 1))]}.0/24"
}

cluster_addr () { # node rail
    echo "${RWV_RAIL_NETS[$(($2 - 1))]}.$1"
}

cluster_addr6 () { # node rail
    echo "2001:db8:$2::$1"
}

cluster_rail_cidr6 () { # rail
    echo "2001:db8:$1::/64"
}

# The address families of rail r: 4, 6 or 46.
cluster_rail_families () { # rail
    local -a list
    IFS=, read -ra list <<< "${RWV_CLUSTER_FAMILIES:-4}"
    if [ "$1" -eq 1 ] || [ ${#list[@]} -eq 0 ]; then
        echo "${list[0]:-4}" | sed 's/^6$/46/'
    elif [ "$1" -le ${#list[@]} ]; then
        echo "${list[$(($1 - 1))]}"
    else
        echo "${list[-1]}"
    fi
}

# Give node n's interface of rail r its addresses.
cluster_add_addrs () { # node rail
    local ns families
    ns=$(cluster_node_name "$1")
    families=$(cluster_rail_families "$2")
    if [[ "$families" == *4* ]]; then
        ip -n "$ns" addr add "$(cluster_addr "$1" "$2")/24" dev "r$2" || return 1
    fi
    if [[ "$families" == *6* ]]; then
        ip -n "$ns" addr add "$(cluster_addr6 "$1" "$2")/64" dev "r$2" nodad || return 1
    fi
}

# Limit a node's egress on one rail.  Every direction of every flow leaves
# some node, so this limits the rail both ways.
cluster_limit () { # ns dev rate
    ip netns exec "$1" tc qdisc replace dev "$2" root tbf rate "$3" burst 256kb latency 50ms
}

# Give node namespace NS the TCP congestion control RWV_CLUSTER_CC names.
cluster_set_cc () { # ns
    [ -z "${RWV_CLUSTER_CC:-}" ] && return 0
    ip netns exec "$1" sh -c 'echo "$1" > /proc/sys/net/ipv4/tcp_congestion_control' sh "$RWV_CLUSTER_CC" \
        2>/dev/null && return 0
    local available allowed
    available=$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)
    allowed=$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control)
    if ! grep -qw -- "$RWV_CLUSTER_CC" <<< "$available"; then
        cluster_die "TCP congestion control '$RWV_CLUSTER_CC' is not in this kernel ($available);" \
            "as root: modprobe tcp_$RWV_CLUSTER_CC"
    else
        cluster_die "the kernel lets network namespaces choose only $allowed, not '$RWV_CLUSTER_CC';" \
            "as root: sysctl -w net.ipv4.tcp_allowed_congestion_control=\"$allowed $RWV_CLUSTER_CC\""
    fi
}

# The TCP congestion control node N's sockets take.
cluster_tcp_cc () { # n
    ip netns exec "$(cluster_node_name "${1:-1}")" cat /proc/sys/net/ipv4/tcp_congestion_control
}

cluster_add_node_link () { # node rail peer_ns peer_dev rate
    local ns dev
    ns=$(cluster_node_name "$1")
    dev="r$2"
    ip link add "$dev" netns "$ns" type veth peer name "$4" netns "$3" || return 1
    cluster_add_addrs "$1" "$2" || return 1
    ip -n "$ns" link set "$dev" up || return 1
    ip -n "$3" link set "$4" up || return 1
    if [ -n "$5" ]; then
        cluster_limit "$ns" "$dev" "$5" || return 1
    fi
}

# The rate of rail r from a RATE list: its own entry, else the last one.
cluster_rail_rate () { # rates r
    local -a list
    IFS=, read -ra list <<< "$1"
    [ ${#list[@]} -eq 0 ] && return 0
    if [ "$2" -le ${#list[@]} ]; then echo "${list[$(($2 - 1))]}"; else echo "${list[-1]}"; fi
}

cluster_up () { # nodes rails [rate]
    local nodes=$1 rails=$2 rates=${3:-} rate n r sw
    [[ "$nodes" =~ ^[0-9]+$ ]] && [ "$nodes" -ge 2 ] && [ "$nodes" -le 64 ] ||
        { cluster_die "NODES must be 2..64 (got '$nodes')"; return 2; }
    [[ "$rails" =~ ^[0-9]+$ ]] && [ "$rails" -ge 1 ] && [ "$rails" -le ${#RWV_RAIL_NETS[@]} ] ||
        { cluster_die "RAILS must be 1..${#RWV_RAIL_NETS[@]} (got '$rails')"; return 2; }
    cluster_check_privileges || return $?
    cluster_down 2>/dev/null
    trap cluster_down EXIT
    mkdir -p "$RWV_CLUSTER_STATE" || return 1

    for ((n = 1; n <= nodes; n++)); do
        ip netns add "$(cluster_node_name $n)" || return 1
        ip -n "$(cluster_node_name $n)" link set lo up || return 1
        cluster_node_name $n >> "$RWV_CLUSTER_STATE/nodes"
        cluster_set_cc "$(cluster_node_name $n)" || return 1
    done
    if [ "$nodes" -eq 2 ]; then
        for ((r = 1; r <= rails; r++)); do
            rate=$(cluster_rail_rate "$rates" $r)
            cluster_add_node_link 1 $r "$(cluster_node_name 2)" "r$r" "$rate" || return 1
            cluster_add_addrs 2 $r || return 1
            if [ -n "$rate" ]; then
                cluster_limit "$(cluster_node_name 2)" "r$r" "$rate" || return 1
            fi
        done
    else
        sw="${RWV_CLUSTER}sw"
        ip netns add "$sw" || return 1
        echo "$sw" >> "$RWV_CLUSTER_STATE/nodes"
        for ((r = 1; r <= rails; r++)); do
            ip -n "$sw" link add "br$r" type bridge || return 1
            ip -n "$sw" link set "br$r" up || return 1
            rate=$(cluster_rail_rate "$rates" $r)
            for ((n = 1; n <= nodes; n++)); do
                cluster_add_node_link $n $r "$sw" "n${n}r$r" "$rate" || return 1
                ip -n "$sw" link set "n${n}r$r" master "br$r" || return 1
            done
        done
    fi

    : > "$RWV_CLUSTER_STATE/hostfile"
    for ((n = 1; n <= nodes; n++)); do
        echo "$(cluster_node_name $n) slots=${RWV_CLUSTER_SLOTS:-4}" >> "$RWV_CLUSTER_STATE/hostfile"
    done
    echo "$rails" > "$RWV_CLUSTER_STATE/rails"
    cluster_wait_links "$nodes" "$rails"
}

# veth links come up asynchronously: wait until every rail interface is up.
cluster_wait_links () { # nodes rails
    local n r tries
    for ((n = 1; n <= $1; n++)); do
        for ((r = 1; r <= $2; r++)); do
            for ((tries = 0; tries < 100; tries++)); do
                ip -n "$(cluster_node_name $n)" -o link show dev "r$r" 2>/dev/null |
                    grep -q 'state UP' && break
                sleep 0.05
            done
            [ "$tries" -lt 100 ] || { cluster_die "rail $r of node $n did not come up"; return 1; }
        done
    done
}

cluster_down () {
    local ns
    for ns in $(cluster_nodes); do
        # anything still running in the node dies with it
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$RWV_CLUSTER_STATE"
}

# Launch agent for mpirun (plm_rsh_agent): like ssh, it gets options, a host
# name and a command line; it runs the command in that node with the node's
# own host name.
cluster_agent () {
    while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
        shift
    done
    local host=$1
    shift
    exec ip netns exec "$host" unshare --uts sh -c "hostname $host; $*"
}

# mpirun on node 1 for the whole cluster.  Always --bind-to none: every
# "node" shares this host's cores, and default binding would stack ranks of
# different nodes on one core.
cluster_mpirun () {
    local first
    first=$(head -n1 "$RWV_CLUSTER_STATE/hostfile" 2>/dev/null | cut -d' ' -f1)
    [ -n "$first" ] || { cluster_die "no cluster is up (run: cluster.sh up NODES RAILS)"; return 1; }
    ip netns exec "$first" unshare --uts sh -c 'hostname "$0"; exec "$@"' "$first" \
        mpirun --hostfile "$RWV_CLUSTER_STATE/hostfile" \
        --mca plm_rsh_agent "$RWV_CLUSTER_SELF agent" \
        --mca oob_tcp_if_include "$(cluster_rail_cidr 1)" \
        --bind-to none "$@"
}

# The job of cluster_stream_r2_down: status of the stream.
#   cluster_r2_down_job BEFORE AFTER OUT mpirun-args... program
cluster_r2_down_job () {
    local before=$1 after=$2 out=$3 pid stop rc
    shift 3
    stop=$(mktemp -u)
    : > "$out"
    run_job 300 bash -c '. "$1"; shift; cluster_mpirun "$@"' job "$RWV_CLUSTER_SELF" \
        "$@" -n 2 -b -t 1 -f "$stop" > "$out" &
    pid=$!
    wait_for_line "$out" "^# progress $before\$"
    ip -n "$(cluster_node_name 2)" link set r2 down
    wait_for_line "$out" "^# progress $after\$"
    touch "$stop"
    wait $pid
    rc=$?
    rm -f "$stop"
    ip -n "$(cluster_node_name 2)" link set r2 up
    cluster_wait_links 2 2 2>/dev/null
    return $rc
}

# A two-way stream of small messages (test_small_stream, given with its
# mpirun arguments; this adds -n 2 -b -t 1 -f) between 2 nodes of 2 rails
# that loses r2 on node 2 once BEFORE windows have passed and is stopped
# once AFTER have: ok when every message arrived and the loss was said.
# Needs lib.sh.  OUT and ERR: files for the job's output.
#   cluster_stream_r2_down LABEL BEFORE AFTER OUT ERR mpirun-args... program
cluster_stream_r2_down () {
    local label=$1 before=$2 after=$3 out=$4 err=$5 rc
    shift 5
    RWV_EXPECT="lost a rail to host $RWV_CLUSTER" run_keeping_help "$err" \
        cluster_r2_down_job "$before" "$after" "$out" "$@"
    rc=$?
    if job_ended "$rc" && grep -q '^ok - ' "$out" && grep -q "lost a rail to host $RWV_CLUSTER" "$err" &&
       grep -q "^# progress $after\$" "$out"; then
        echo "ok - r2 of 2 rails down in the middle of $label: $(sed -n 's/^ok - //p' "$out")"
    else
        echo "not ok - r2 down in the middle of $label: exit $rc"; grep -v '^# progress' "$out" | tail -5
        grep -v '^$' "$err" | tail -10
    fi
}

cluster_main () {
    local cmd=$1
    shift
    case "$cmd" in
        up) cluster_up "$@" && trap - EXIT ;;
        down) cluster_down ;;
        agent) cluster_agent "$@" ;;
        mpirun) cluster_mpirun "$@" ;;
        run)
            local args=()
            while [ $# -gt 0 ] && [ "$1" != "--" ]; do
                args+=("$1")
                shift
            done
            shift
            cluster_up "${args[@]}" || return $?
            "$@"
            ;;
        *) sed -n '2,/^$/s/^# \{0,1\}//p' "$RWV_CLUSTER_SELF"; return 2 ;;
    esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    cluster_main "$@"
fi
