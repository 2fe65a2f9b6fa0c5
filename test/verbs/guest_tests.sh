#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Inside the rxe guest (test/verbs/rxe_guest.sh): MPI jobs over btl/rwv's
# native verbs rail on soft-RoCE, every byte checked.  Prints ok / not ok
# lines; exits 1 if any failed.
#  - one node (rxe0): ping-pong of 0 B to 4 MiB over RGET (the default) and
#    over RPUT (btl_rwv_flags send,put) at 2 ranks, 4 ranks' ping-pong pairs,
#    the unexpected-message flood, the ping-pong with every peer cold (its
#    larger eager messages read by the receiver), and a FETCH naming memory
#    its sender did not register, refused by the device;
#  - 2 nodes as Open MPI sees them (two host names on the one rxe device):
#    ping-pong between the nodes, and coll/rdmabar's barrier checks with 2
#    ranks per node, its node leaders writing their flags over verbs;
#  - MPI one-sided between the 2 nodes (rwv's emulated atomics over verbs);
#  - windows of small messages between the 2 nodes, written in chains of
#    work requests (fewer posts than messages, from rwv's counters), and
#    inline writes asking for a completion one time in 64;
#  - a rank busy past btl_rwv_connect_timeout at first contact, alone and
#    with seven ranks contacting it (rwv's connection thread on rdma_cm);
#  - across backends (auto): a verbs rail and a tcp rail striped, and a
#    stream going on when either goes down; across ports: two rxe devices
#    as two verbs rails, a stream going on when one goes down;
#  - ulimit -l too small, the port down: a message, then libfabric rails
#    under auto, rwv disqualified under verbs.
set -u
top=${RWV_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=$top/_build/test
export OMPI_MCA_opal_mca_base_component_path="SYS_DEFAULT:$top/_build/inst/lib/openmpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_btl_rwv_backend=verbs OMPI_MCA_mpi_yield_when_idle=1
failed=0
out=$(mktemp)

# rxe0's port follows its netdev a moment later
port_state () { # ACTIVE or DOWN
    for ((i = 0; i < 100; i++)); do
        rdma link show rxe0/1 2>/dev/null | grep -q "state $1" && return 0
        sleep 0.1
    done
}
port_active () { port_state ACTIVE; }

# Open MPI 4.1.4 loses a help message now and then (see docs/testing.md): a run
# whose output lacks the expected one is tried again, up to 5 times.
run_expecting () { # message command...
    local msg=$1 attempt
    shift
    for attempt in 1 2 3 4 5; do
        "$@" > "$out" 2>&1
        grep -q "$msg" "$out" && return 0
    done
    return 1
}

check () { # label pattern command...
    local label=$1 pattern=$2
    shift 2
    if "$@" > "$out" 2>&1 && grep -q -e "$pattern" "$out" && ! grep -q '^not ok' "$out" &&
       grep -q 'btl/rwv: rail 0: verbs/' "$out"; then
        echo "ok - $label"
    else
        echo "not ok - $label"; tail -12 "$out" | sed 's/^/#   /'
        failed=1
    fi
}

# the verbose line names the rail: proof the verbs backend carried the job
one=(mpirun --timeout 400 --oversubscribe --mca btl self,rwv --mca btl_base_verbose 40)
check "verbs, 1 node, 2 ranks: ping-pong 0 B to 4 MiB (RGET up to 256 KiB, RPUT pipeline above)" \
    '^ok - ping-pong' "${one[@]}" -np 2 "$bin/mpi/test_pingpong_verify" -m 4194304
check "verbs, 1 node, 2 ranks: ping-pong 0 B to 4 MiB with RPUT only (btl_rwv_flags send,put)" \
    '^ok - ping-pong' "${one[@]}" --mca btl_rwv_flags send,put -np 2 "$bin/mpi/test_pingpong_verify" -m 4194304
check "verbs, 1 node, 4 ranks: ping-pong pairs 0 B to 1 MiB" \
    '^ok - ping-pong' "${one[@]}" -np 4 "$bin/mpi/test_pingpong_verify" -m 1048576
check "verbs, 1 node, 2 ranks: 20,000 unexpected messages, probes, Ssend, strided types" \
    '^ok - .*unexpected' "${one[@]}" -np 2 "$bin/mpi/test_mpi_semantics"
check "verbs, 1 node, 2 ranks, no hot peers (btl_rwv_hot_peers 0): ping-pong 0 B to 4 MiB, eager messages above a small slot read by the receiver" \
    '^ok - ping-pong' "${one[@]}" --mca btl_rwv_hot_peers 0 -np 2 "$bin/mpi/test_pingpong_verify" -m 4194304

# A FETCH naming memory past the sender's buffer: the sender's device
# refuses the read with a remote access error, which (unlike the tcp
# provider's closed connection) says whose fault it is
label="verbs, a FETCH naming memory outside its buffer: the device refuses the read, the reader names the sender's malformed message, no crash"
run_expecting "does not let us read" "${one[@]}" --mca btl_rwv_hot_peers 0 --mca btl_rwv_single_copy none \
    -np 1 "$bin/mpi/test_pingpong_verify" -m 65536 : \
    -np 1 -x RWV_TEST_FAULT=fetch_addr "$bin/mpi/test_pingpong_verify" -m 65536
if grep -q "received a malformed message from host" "$out" && grep -q "does not let us read" "$out" &&
   ! grep -q -i -e 'segmentation fault' -e 'signal 11' "$out"; then
    echo "ok - $label"
else
    echo "not ok - $label"; grep -v 'mca: base' "$out" | tail -12 | sed 's/^/#   /'; failed=1
fi

# Two "nodes" on the one rxe device: Debian 12's kernel (6.1) runs rxe only
# in the initial network namespace, so the nodes are host names (a UTS
# namespace each, as the emulated cluster's launch agent gives), not
# network namespaces.  For Open MPI they are two nodes: no vader between
# them, and coll/rdmabar's node leaders exchange flags with rwv puts.
agent=$(mktemp)
hosts=$(mktemp)
cat > "$agent" <<'EOA'
#!/bin/sh
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
host=$1
shift
exec unshare --uts sh -c "hostname $host; $*"
EOA
chmod +x "$agent"
printf 'rxnode1 slots=8\nrxnode2 slots=8\n' > "$hosts"
two=(unshare --uts sh -c 'hostname rxnode1; exec "$0" "$@"' mpirun --timeout 400 --hostfile "$hosts"
     --mca plm_rsh_agent "$agent" --map-by node --bind-to none --mca btl self,vader,rwv --mca btl_base_verbose 40)
check "verbs, 2 nodes: ping-pong 0 B to 4 MiB between them" \
    '^ok - ping-pong' "${two[@]}" -np 2 "$bin/mpi/test_pingpong_verify" -m 4194304
# RoCE v2 over IPv6: the rail listens on both of rxenet's addresses; told
# btl_rwv_ip_family ipv6, the connections are made to the IPv6 one
# (the connection lines are traces: btl_base_verbose 100 instead of 40)
two_traced=()
for arg in "${two[@]}"; do
    [ "${two_traced[-1]:-}" = btl_base_verbose ] && arg=100
    two_traced+=("$arg")
done
check "verbs, 2 nodes, RoCE v2 over IPv6 (btl_rwv_ip_family ipv6): ping-pong 0 B to 4 MiB, connected at 2001:db8:9::1" \
    'connected to .* on verbs/rxe0:1 rxenet .* (at 2001:db8:9::1)' "${two_traced[@]}" -np 2 \
    --mca btl_rwv_ip_family ipv6 "$bin/mpi/test_pingpong_verify" -m 4194304
check "verbs, 2 nodes x 2 ranks: coll/rdmabar barriers, the node leaders' flags written over verbs" \
    'node leaders exchange flags with btl/rwv puts' "${two[@]}" -np 4 --mca coll_base_verbose 10 \
    "$bin/coll/test_barrier" -n 15 -c 100 -b 1000
check "verbs, 2 nodes: MPI one-sided (osc/rdma) put, get, accumulate, fetch-and-op, compare-and-swap, values checked" \
    '^ok - MPI_Win_create: MPI_Compare_and_swap' "${two[@]}" -np 2 "$bin/mpi/test_onesided_verify" -D -m 262144 -n 30
# Windows of small messages queue behind their credits and go out as
# chains of work requests, one doorbell each, every write with its own
# immediate data: fewer posts than messages, every byte right
label="verbs, 2 nodes: windows of 64 small messages both ways, written in chains of work requests (one doorbell), every byte right"
"${two[@]}" -np 2 "$bin/mpi/test_small_stream" -n 20 -b > "$out" 2>&1
writes=$(sed -n 's/^# writes per message //p' "$out")
if grep -q '^ok - ' "$out" && grep -q 'btl/rwv: rail 0: verbs/' "$out" && [ -n "$writes" ] &&
   awk -v w="$writes" 'BEGIN {exit !(w < 0.9)}'; then
    echo "ok - $label: $writes posts per message"
else
    echo "not ok - $label (posts per message: ${writes:-none})"; tail -12 "$out" | sed 's/^/#   /'; failed=1
fi
# Inline writes (small messages within the credits) ask for a completion
# one time in 64 only: rwv's counters, per eager message, from a window of
# 8 one-byte messages (timings from this TCG guest are not reported)
label="verbs, 2 nodes: small messages within the credits are inline writes, one in 64 asking for a completion"
"${two[@]}" -np 2 "$bin/bench/bench_msgrate" -c -r 1 -w 8 1 > "$out" 2>&1
asked=$(awk '/^1 / {print $5}' "$out")
if grep -q 'btl/rwv: rail 0: verbs/' "$out" && [ -n "$asked" ] && awk -v c="$asked" 'BEGIN {exit !(c < 0.5)}'; then
    echo "ok - $label: $asked completions asked per message"
else
    echo "not ok - $label (completions asked per message: ${asked:-none})"; tail -12 "$out" | sed 's/^/#   /'; failed=1
fi
# rdma_cm requests answered by rwv's connection thread while the rank
# computes past btl_rwv_connect_timeout; across the two nodes only rwv's
# verbs rail reaches
check "verbs, 2 nodes: a rank busy 8 s at first contact (btl_rwv_connect_timeout 3): eager, FETCH and rendezvous messages arrive, every byte right" \
    '^ok - rank 1 busy 8 s' "${two[@]}" -np 2 --mca btl_rwv_connect_timeout 3 "$bin/mpi/test_busy_peer" -b 8
check "verbs, 2 nodes x 4 ranks: the other node's four ranks (and three on its own, over vader) contact a rank busy 8 s at once, every byte right" \
    '^ok - rank 7 busy 8 s' "${two[@]}" -np 8 --mca btl_rwv_connect_timeout 3 "$bin/mpi/test_busy_peer" -b 8

# Across backends: under btl_rwv_backend auto the nodes have a verbs rail
# (rxenet) and a libfabric tcp rail (tcpnet, a second dummy netdev); a
# two-way stream is striped over both, and goes on when either link goes
# down in the middle.
ip link add tcpnet type dummy && ip addr add 203.0.113.1/24 dev tcpnet && ip link set tcpnet up
stream_losing () { # label netdev [backend [second-rail-pattern]]
    local label=$1 dev=$2 backend=${3:-auto} second=${4:-rail 1: ofi/tcp} pid i
    : > "$out"
    OMPI_MCA_btl_rwv_backend=$backend "${two[@]}" -np 2 --mca btl_rwv_if_exclude lo "$bin/mpi/test_stream_verify" \
        -n 200 -s 1048576 -t 10 > "$out" 2>&1 &
    pid=$!
    for ((i = 0; i < 3000; i++)); do
        grep -q '^# progress 40' "$out" && break
        sleep 0.1
    done
    ip link set "$dev" down
    wait $pid
    rc=$?
    ip link set "$dev" up
    port_active
    if [ "$rc" -eq 0 ] && grep -q '^ok - ' "$out" && grep -q 'lost a rail to host rxnode' "$out" &&
       grep -q 'btl/rwv: rail 0: verbs/' "$out" && grep -q "btl/rwv: $second" "$out"; then
        echo "ok - $label"
    else
        echo "not ok - $label: exit $rc"; grep -v '^# progress' "$out" | tail -10 | sed 's/^/#   /'
        failed=1
    fi
}
# Across ports: a second rxe device (rxe1 on rxenet2) is a second verbs
# rail; the stream is striped over both and goes on when rxe1's link goes
# down.
ip link add rxenet2 type dummy && ip addr add 198.18.0.1/24 dev rxenet2 && ip link set rxenet2 up &&
    rdma link add rxe1 type rxe netdev rxenet2
stream_losing "verbs, 2 nodes, two verbs ports (rxe0, rxe1): two-way stream striped over both goes on when rxe1's link goes down" \
    rxenet2 verbs 'rail 1: verbs/rxe1'
rdma link delete rxe1
ip link del rxenet2

stream_losing "auto, 2 nodes, a verbs rail and a tcp rail: two-way stream of 200 messages up to 1 MiB goes on when the tcp rail goes down" tcpnet
stream_losing "auto, 2 nodes, a verbs rail and a tcp rail: two-way stream goes on when the verbs port goes down" rxenet
ip link del tcpnet

rm -f "$agent" "$hosts"

# Bad input: each gives its message; auto falls back to libfabric, verbs disqualifies
bad_input () { # label expected-message setup-command
    local label=$1 msg=$2 setup=$3
    run_expecting "$msg" bash -c "$setup; OMPI_MCA_btl_rwv_backend=auto \"\$@\"" job "${one[@]}" -np 2 \
        "$bin/mpi/test_pingpong_verify" -m 65536
    if grep -q "$msg" "$out" && grep -q '^ok - ping-pong' "$out" && grep -q 'rail 0: ofi/tcp' "$out"; then
        echo "ok - $label, under auto: the message, then the job runs on libfabric rails"
    else
        echo "not ok - $label under auto"; grep -v 'mca: base' "$out" | tail -8 | sed 's/^/#   /'; failed=1
    fi
    run_expecting "$msg" bash -c "$setup; \"\$@\"" job "${one[@]}" -np 2 "$bin/mpi/test_pingpong_verify" -m 65536
    if grep -q "$msg" "$out" && ! grep -q '^ok - ping-pong' "$out"; then
        echo "ok - $label, under verbs: the message, and rwv disqualifies"
    else
        echo "not ok - $label under verbs"; tail -8 "$out" | sed 's/^/#   /'; failed=1
    fi
}
bad_input "ulimit -l 1024" "locked-memory limit (ulimit -l) is below 64 MiB" "ulimit -l 1024"
ip link set rxenet down
port_state DOWN
bad_input "the RDMA port down" "no active port has an address of a family" ":"
ip link set rxenet up
port_active
rm -f "$out"
exit $failed
