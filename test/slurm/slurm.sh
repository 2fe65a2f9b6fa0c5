#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Slurm over the emulated cluster (test/cluster/cluster.sh): Debian's
# slurmctld in node 1's namespace, one slurmd in each node's namespace
# under the node's host name, and one munged for all (the namespaces share
# this host's file system).  No cgroups: proctrack/linuxproc, task/none.
# Each node has spool and temporary directories of its own (PMIx's
# per-step directories collide in a shared one).  Source it after
# cluster.sh; slurm_up chains its teardown before the cluster's.
#
#   slurm_up            the cluster must be up; waits until every node is idle
#   slurm_run CMD...    CMD in node 1's namespace with SLURM_CONF set (srun, salloc, sinfo)
#   slurm_down

RWV_SLURM_DIR=${RWV_SLURM_DIR:-$RWV_CLUSTER_STATE/slurm}

slurm_check () {
    local tool
    for tool in slurmctld slurmd srun munged; do
        command -v "$tool" > /dev/null 2>&1 ||
            { echo "slurm: $tool is missing (apt-get install slurmctld slurmd slurm-client munge)" >&2; return 77; }
    done
}

slurm_conf () { # nodes
    local n name
    cat <<EOC
ClusterName=rwv
SlurmctldHost=$(cluster_node_name 1)($(cluster_addr 1 1))
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$RWV_SLURM_DIR/state
SlurmdSpoolDir=$RWV_SLURM_DIR/nodes/%n
TmpFS=$RWV_SLURM_DIR/nodes/%n/tmp
SlurmctldPidFile=$RWV_SLURM_DIR/slurmctld.pid
SlurmdPidFile=$RWV_SLURM_DIR/nodes/%n/slurmd.pid
SlurmctldLogFile=$RWV_SLURM_DIR/slurmctld.log
SlurmdLogFile=$RWV_SLURM_DIR/nodes/%n/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SlurmdParameters=config_overrides
MpiDefault=pmix
ReturnToService=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
EOC
    for ((n = 1; n <= $1; n++)); do
        name=$(cluster_node_name "$n")
        echo "NodeName=$name NodeAddr=$(cluster_addr "$n" 1) CPUs=4 State=UNKNOWN"
    done
    echo "PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
}

# in node N's namespace under its host name
slurm_on_node () { # n cmd...
    local name
    name=$(cluster_node_name "$1")
    shift
    ip netns exec "$name" unshare --uts sh -c 'hostname "$0"; exec "$@"' "$name" "$@"
}

# a credential made and read back: munged answers
slurm_munge_works () {
    munge -n < /dev/null 2>/dev/null | unmunge > /dev/null 2>&1
}

slurm_munge_up () {
    local i
    slurm_munge_works && return 0
    mkdir -p /run/munge && chown munge:munge /run/munge
    # --force: a socket file left by a munged that is gone is no obstacle
    runuser -u munge -- munged --force || { echo "slurm: munged did not start" >&2; return 1; }
    touch "$RWV_SLURM_DIR/munged.ours"
    for ((i = 0; i < 50; i++)); do
        slurm_munge_works && return 0
        sleep 0.1
    done
    echo "slurm: munged does not answer" >&2
    return 1
}

slurm_up () {
    local nodes n i
    slurm_check || return $?
    nodes=$(cluster_nodes | wc -l)
    rm -rf "$RWV_SLURM_DIR"
    mkdir -p "$RWV_SLURM_DIR/state"
    for ((n = 1; n <= nodes; n++)); do
        mkdir -p "$RWV_SLURM_DIR/nodes/$(cluster_node_name "$n")/tmp"
    done
    slurm_conf "$nodes" > "$RWV_SLURM_DIR/slurm.conf"
    echo "CgroupPlugin=cgroup/v1" > "$RWV_SLURM_DIR/cgroup.conf"
    slurm_munge_up || return 1
    slurm_on_node 1 slurmctld -D -i -f "$RWV_SLURM_DIR/slurm.conf" > "$RWV_SLURM_DIR/slurmctld.out" 2>&1 &
    for ((n = 1; n <= nodes; n++)); do
        slurm_on_node "$n" slurmd -D -f "$RWV_SLURM_DIR/slurm.conf" -N "$(cluster_node_name "$n")" \
            > "$RWV_SLURM_DIR/nodes/$(cluster_node_name "$n")/slurmd.out" 2>&1 &
    done
    trap 'slurm_down; cluster_down' EXIT
    for ((i = 0; i < 60; i++)); do
        [ "$(slurm_run sinfo -h -o '%T' 2>/dev/null | grep -c '^idle')" -ge 1 ] &&
            [ "$(slurm_run sinfo -h -N -o '%T' 2>/dev/null | grep -c '^idle')" -eq "$nodes" ] && return 0
        sleep 1
    done
    echo "slurm: the nodes did not come up idle:" >&2
    slurm_run sinfo -N >&2
    tail -5 "$RWV_SLURM_DIR/slurmctld.log" >&2
    return 1
}

slurm_run () {
    SLURM_CONF=$RWV_SLURM_DIR/slurm.conf slurm_on_node 1 "$@"
}

slurm_down () {
    local pidfile i
    [ -d "$RWV_SLURM_DIR" ] || return 0
    for pidfile in "$RWV_SLURM_DIR"/nodes/*/slurmd.pid "$RWV_SLURM_DIR/slurmctld.pid"; do
        [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
    done
    pkill -f "slurmd -D -f $RWV_SLURM_DIR/" 2>/dev/null
    pkill -f "slurmctld -D -i -f $RWV_SLURM_DIR/" 2>/dev/null
    if [ -e "$RWV_SLURM_DIR/munged.ours" ]; then
        pkill -x munged
        for ((i = 0; i < 50; i++)); do
            pgrep -x munged > /dev/null || break
            sleep 0.1
        done
    fi
    rm -rf "$RWV_SLURM_DIR"
}
