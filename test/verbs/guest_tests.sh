#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Inside the qemu guest (test/verbs/guest.sh): MPI jobs over btl/rwv's
# native verbs rail on the software RDMA device RWV_GUEST_RDMA names (rxe0,
# soft-RoCE, the default; or siw0, soft-iWARP), every byte checked.  Prints
# ok / not ok lines; exits 1 if any failed.  Every job's only path between
# its ranks is that device: btl_rwv_backend verbs, and on one node
# btl_rwv_single_copy none with --mca btl self,rwv (no shared rings, no
# vader); each check sees the connection made on it, and rxe's packet
# counters move.  On either device:
#  - one node: ping-pong of 0 B to 4 MiB (RGET up to 256 KiB, the RPUT
#    pipeline above), the ping-pong with every peer cold (its larger eager
#    messages read by the receiver), and a FETCH naming memory its sender
#    did not register, refused by the device;
#  - 2 nodes as Open MPI sees them (two host names on the one device):
#    windows of small messages written in chains of work requests (fewer
#    posts than messages, from rwv's counters), and a rank busy past
#    btl_rwv_connect_timeout at first contact (rwv's connection thread on
#    rdma_cm), and one-sided to a target that computes 4 s (its atomics
#    done by the connection thread, woken through the CQ's channel);
#  - a second device as a second verbs rail (rxe0 and rxe1; siw0 and a
#    RoCE device of its own, iWARP and RoCE to one peer), a stream going
#    on when a link goes down (rxe1's; siw0's).
# On soft-RoCE also: the unexpected-message flood on one node, the
# connection at the netdev's IPv6 address,
# coll/rdmabar's node leaders writing their flags over verbs, MPI
# one-sided, inline writes asking for a completion one time in 64, a verbs
# and a tcp rail under auto with the verbs port going down, and bad input
# (ulimit -l too small, every port down: a message, then libfabric rails
# under auto, rwv disqualified under verbs).  On soft-iWARP also:
# libfabric's own verbs provider, which carries no remote CQ data.  What
# soft-RoCE alone runs is the same code on either device; each check costs
# 20 to 40 s of emulated CPU, so the guest runs each once.
set -u
top=${RWV_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=$top/_build/test
. "$top/test/lib.sh"
export OMPI_MCA_opal_mca_base_component_path="SYS_DEFAULT:$top/_build/inst/lib/openmpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_btl_rwv_backend=verbs OMPI_MCA_mpi_yield_when_idle=1
# as every test of the suite: free list items only inside rwv's gate (btl_rwv_lock.h)
export RWV_TEST_GATE=1
dev=${RWV_GUEST_RDMA:-rxe0}
case $dev in rxe*) netdev=rxenet ;; *) netdev=siwnet ;; esac
failed=0
out=$(mktemp)

# the device's port follows its netdev a moment later
port_state () { # ACTIVE or DOWN [device]
    for ((i = 0; i < 100; i++)); do
        rdma link show "${2:-$dev}/1" 2>/dev/null | grep -q "state $1" && return 0
        sleep 0.1
    done
}
port_active () { port_state ACTIVE "$@"; }
# a pass over the other device may have just brought the links back up
port_active

# Packets the device sent: rxe counts them, siw has no counters (its
# traffic is the kernel's TCP); -1 where there are none.
dev_packets () {
    cat "/sys/class/infiniband/$dev/ports/1/hw_counters/sent_pkts" 2>/dev/null || echo -1
}

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

# A check passes when the job printed PATTERN and no "not ok", its
# connections were made on the device (traced at btl_base_verbose 100),
# and the device's packet counter moved where it has one.
check () { # label pattern command...
    local label=$1 pattern=$2 before after
    shift 2
    before=$(dev_packets)
    if "$@" > "$out" 2>&1 && grep -q -e "$pattern" "$out" && ! grep -q '^not ok' "$out" &&
       grep -q "btl/rwv: connected to .* on verbs/$dev:1" "$out" &&
       after=$(dev_packets) && { [ "$after" -eq -1 ] || [ "$after" -gt "$before" ]; }; then
        echo "ok - $label"
    else
        echo "not ok - $label (packets sent by $dev: ${before:-?} before, ${after:-?} after)"
        grep -v -e 'mca: base' -e 'btl/rwv: connect' "$out" | tail -12 | sed 's/^/#   /'
        failed=1
    fi
}

# one node: no shared rings (btl_rwv_single_copy none) and no vader, so
# the device is the ranks' only path
one_any=(mpirun --timeout 400 --oversubscribe --mca btl self,rwv --mca btl_rwv_single_copy none
         --mca btl_base_verbose 100)
one=("${one_any[@]}" --mca btl_rwv_if_include "$netdev")
check "verbs ($dev), 1 node, 2 ranks: ping-pong 0 B to 4 MiB (RGET up to 256 KiB, RPUT pipeline above)" \
    '^ok - ping-pong' "${one[@]}" -np 2 "$bin/mpi/test_pingpong_verify" -m 4194304
if [ "$dev" = rxe0 ]; then
    check "verbs ($dev), 1 node, 2 ranks: 20,000 unexpected messages, probes, Ssend, strided types" \
        '^ok - .*unexpected' "${one[@]}" -np 2 "$bin/mpi/test_mpi_semantics"
    # a connection made for 16 KiB starts with warm slots registered on
    # the device (2 x 3 x 16544 + 64 bytes of ring), nothing read (test_rwv_pvars)
    check "verbs ($dev), 1 node, 3 ranks: a first message of 16 KiB to every peer lands in warm slots the connection started with, none read, every byte right" \
        '^ok - MPI_T: a first message' "${one[@]}" --mca mpi_yield_when_idle 1 -np 3 "$bin/mpi/test_rwv_pvars" first \
        $((2 * (3 * 16544 + 64))) 0
fi
check "verbs ($dev), 1 node, 2 ranks, no hot peers (btl_rwv_hot_peers 0): ping-pong 0 B to 1 MiB, eager messages above a small slot read by the receiver" \
    '^ok - ping-pong' "${one[@]}" --mca btl_rwv_hot_peers 0 -np 2 "$bin/mpi/test_pingpong_verify" -m 1048576
# the device pins what it registers: with Open MPI's memory hooks silenced
# by UCX's (pml/ucx started after ob1), a cached registration of a freed
# buffer gave the next one at its address the old pages (48 MB of bad
# bytes); rcache/regcache sees the hooks are silent and keeps nothing idle
if [ "$dev" = rxe0 ]; then
    check "verbs ($dev), 1 node, 2 ranks, --mca pml ob1,ucx (UCX's memory hooks silence Open MPI's): buffers freed and reallocated between transfers, every byte right" \
        'rcache/regcache keeps no idle registration' "${one[@]}" --mca pml ob1,ucx -np 2 "$bin/mpi/test_mpi_semantics"
fi

# libfabric's own verbs provider on iWARP carries no remote CQ data: rwv's
# libfabric rail there notifies ring writes with sends.  Every ring cold,
# so a lost notification hangs the job; the rail is the only path.
ofi_check () { # label pattern command...
    local label=$1 pattern=$2
    shift 2
    if "$@" > "$out" 2>&1 && grep -q -e "$pattern" "$out" && ! grep -q '^not ok' "$out" &&
       grep -q "btl/rwv: connected to .* on ofi/verbs $dev" "$out" &&
       grep -q "libfabric verbs domain $dev: no remote CQ data: a zero-length send follows each ring write" "$out"; then
        echo "ok - $label"
    else
        echo "not ok - $label"; grep -v -e 'mca: base' -e 'btl/rwv: connect' "$out" | tail -12 | sed 's/^/#   /'
        failed=1
    fi
}
if [ "$dev" = siw0 ]; then
    ofi_check "libfabric's verbs provider on $dev (no remote CQ data, rings notified by sends), 1 node, 2 ranks, no hot peers: ping-pong 0 B to 1 MiB" \
        '^ok - ping-pong' mpirun --timeout 400 --oversubscribe --mca btl self,rwv --mca btl_rwv_single_copy none \
        --mca btl_base_verbose 100 --mca btl_rwv_backend ofi --mca btl_rwv_provider_include verbs \
        --mca btl_rwv_if_include "$netdev" --mca btl_rwv_hot_peers 0 -np 2 "$bin/mpi/test_pingpong_verify" -m 1048576
fi

# A FETCH naming memory past the sender's buffer: soft-RoCE refuses the
# read with a remote access error, which (unlike the tcp provider's closed
# connection) says whose fault it is; soft-iWARP terminates the
# connection, and the reader says the read failed
if [ "$dev" = rxe0 ]; then
    refused="does not let us read" named="received a malformed message from host"
else
    refused="the read of a message it sent failed" named="could not keep a connection to host"
fi
label="verbs ($dev), a FETCH naming memory outside its buffer: the device refuses the read, the reader says so and names the sender's host, no crash"
run_expecting "$refused" "${one[@]}" --mca btl_rwv_hot_peers 0 \
    -np 1 "$bin/mpi/test_pingpong_verify" -m 65536 : \
    -np 1 -x RWV_TEST_FAULT=fetch_addr "$bin/mpi/test_pingpong_verify" -m 65536
if grep -q "$named" "$out" && grep -q "$refused" "$out" &&
   ! grep -q -i -e 'segmentation fault' -e 'signal 11' "$out"; then
    echo "ok - $label"
else
    echo "not ok - $label"; grep -v 'mca: base' "$out" | tail -12 | sed 's/^/#   /'; failed=1
fi

# Two "nodes" on the one device: Debian 12's kernel (6.1) runs rxe only
# in the initial network namespace (and siw's device is its netdev's), so the nodes are host names (a UTS
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
two_any=(unshare --uts sh -c 'hostname rxnode1; exec "$0" "$@"' mpirun --timeout 400 --hostfile "$hosts"
         --mca plm_rsh_agent "$agent" --map-by node --bind-to none --mca btl self,vader,rwv --mca btl_base_verbose 100)
two=("${two_any[@]}" --mca btl_rwv_if_include "$netdev")
if [ "$dev" = rxe0 ]; then
    # Over IPv6: the rail listens on both of its netdev's addresses; told
    # btl_rwv_ip_family ipv6, the connections are made to the IPv6 one
    ip6=$(ip -6 -o addr show dev "$netdev" scope global | awk '{print $4}' | cut -d/ -f1)
    check "verbs ($dev), 2 nodes, over IPv6 (btl_rwv_ip_family ipv6): ping-pong 0 B to 1 MiB, connected at $ip6" \
        "connected to .* on verbs/$dev:1 $netdev .* (at $ip6)" "${two[@]}" -np 2 \
        --mca btl_rwv_ip_family ipv6 "$bin/mpi/test_pingpong_verify" -m 1048576
    check "verbs ($dev), 2 nodes x 2 ranks: coll/rdmabar barriers, the node leaders' flags written over verbs" \
        'node leaders exchange flags with btl/rwv puts' "${two[@]}" -np 4 --mca coll_base_verbose 10 \
        "$bin/coll/test_barrier" -n 15 -c 2 -b 1000
    check "verbs ($dev), 2 nodes: MPI one-sided (osc/rdma) put, get, accumulate, fetch-and-op, compare-and-swap, values checked" \
        '^ok - MPI_Win_create: MPI_Compare_and_swap' "${two[@]}" -np 2 "$bin/mpi/test_onesided_verify" -D -m 262144 -n 30
fi
# Windows of small messages queue behind their credits and go out as
# chains of work requests, one doorbell each, every write with its own
# immediate data (on iWARP, its own notifying send): fewer posts than
# messages, every byte right
label="verbs ($dev), 2 nodes: windows of 64 small messages both ways, written in chains of work requests (one doorbell), every byte right"
"${two[@]}" -np 2 "$bin/mpi/test_small_stream" -n 20 -b > "$out" 2>&1
writes=$(sed -n 's/^# writes per message //p' "$out")
if grep -q '^ok - ' "$out" && grep -q 'btl/rwv: rail 0: verbs/' "$out" && [ -n "$writes" ] &&
   awk -v w="$writes" 'BEGIN {exit !(w < 0.9)}'; then
    echo "ok - $label: $writes posts per message"
else
    echo "not ok - $label (posts per message: ${writes:-none})"; tail -12 "$out" | sed 's/^/#   /'; failed=1
fi
# ob1 hands a verbs rail every eager message through btl_sendi: a busy
# connection packs them into its send ring and writes them from there,
# freed by the credits (an entry reused too early shows as wrong bytes)
label="verbs ($dev), 2 nodes: 4 KiB messages in windows of 8 go from the send ring, every byte right"
"${two[@]}" -np 2 "$bin/mpi/test_small_stream" -n 40 -s 4096 -w 8 > "$out" 2>&1
share=$(sed -n 's/^# from a send ring per message //p' "$out")
if grep -q '^ok - ' "$out" && grep -q 'btl/rwv: rail 0: verbs/' "$out" && [ -n "$share" ] &&
   awk -v s="$share" 'BEGIN {exit !(s >= 0.3)}'; then
    echo "ok - $label: a share of $share from the ring"
else
    echo "not ok - $label (share from the ring: ${share:-none})"; tail -12 "$out" | sed 's/^/#   /'; failed=1
fi
if [ "$dev" = rxe0 ]; then
    # Inline writes (small messages within the credits) ask for a completion
    # one time in 64 only: rwv's counters, per eager message, from a window of
    # 8 one-byte messages (timings from this TCG guest are not reported)
    label="verbs ($dev), 2 nodes: small messages within the credits are inline writes, one in 64 asking for a completion"
    "${two[@]}" -np 2 "$bin/bench/bench_msgrate" -c -r 1 -w 8 1 > "$out" 2>&1
    asked=$(awk '/^1 / {print $5}' "$out")
    if grep -q 'btl/rwv: rail 0: verbs/' "$out" && [ -n "$asked" ] && awk -v c="$asked" 'BEGIN {exit !(c < 0.5)}'; then
        echo "ok - $label: $asked completions asked per message"
    else
        echo "not ok - $label (completions asked per message: ${asked:-none})"; tail -12 "$out" | sed 's/^/#   /'; failed=1
    fi
fi
# A target that computes 4 s without an MPI call: rwv's connection thread
# wakes on the CQ's completion channel (every ring write notifies here)
# and does the emulated atomics; the device lands the puts and answers
# the gets.  The target finds every value in its window before its next
# MPI call.
check "verbs ($dev), 2 nodes: one-sided to a target computing 4 s: every fetch-and-op, compare-and-swap, put, get and accumulate in its window before its next MPI call" \
    '^ok - one-sided to a target computing' "${two[@]}" -np 2 "$bin/mpi/test_computing_peer" -m onesided -t 4
# rdma_cm requests answered by rwv's connection thread while the rank
# computes past btl_rwv_connect_timeout; across the two nodes only rwv's
# verbs rail reaches
check "verbs ($dev), 2 nodes: a rank busy 5 s at first contact (btl_rwv_connect_timeout 3): eager, FETCH and rendezvous messages arrive, every byte right" \
    '^ok - rank 1 busy 5 s' "${two[@]}" -np 2 --mca btl_rwv_connect_timeout 3 "$bin/mpi/test_busy_peer" -b 5

# Two rails, the stream striped over both (data sent on each), one link
# down after 20 messages: every byte arrives on the other.  The stream ends
# once rwv has reported the lost rail and 40 messages have passed since.
stream_losing () { # label backend interfaces link-to-down rail-pattern...
    local label=$1 backend=$2 ifs=$3 link=$4 pid i rc p missing= stop=$out.stop
    shift 4
    : > "$out"
    rm -f "$stop"
    OMPI_MCA_btl_rwv_backend=$backend "${two_any[@]}" -np 2 --mca btl_rwv_if_include "$ifs" \
        "$bin/mpi/test_stream_verify" -n 60 -s 300000 -t 10 -f "$stop" > "$out" 2>&1 &
    pid=$!
    for ((i = 0; i < 3000; i++)); do
        grep -q '^# progress 20' "$out" && break
        sleep 0.1
    done
    ip link set "$link" down
    stream_ride_out $pid "$out" "$out" 'lost a rail to host rxnode' 1 "$stop"
    wait $pid
    rc=$?
    ip link set "$link" up
    for p in "$@"; do
        case $p in verbs/*) port_active "${p#verbs/}" ;; esac
        grep -q "btl/rwv: rail [01]: $p" "$out" || missing="$missing $p"
    done
    if [ "$rc" -eq 0 ] && grep -q '^ok - ' "$out" && grep -q 'lost a rail to host rxnode' "$out" && [ -z "$missing" ]; then
        echo "ok - $label"
    else
        echo "not ok - $label: exit $rc${missing:+, no rail$missing}"
        grep -v -e '^# progress' -e 'mca: base' -e 'select:' -e 'bml:' -e '^ *$' "$out" | tail -40 | sed 's/^/#   /'
        failed=1
    fi
}
# A second device is a second verbs rail, a new one of this pass's own:
# rxe1 on rxenet2 next to rxe0 (two RoCE ports), or next to siw0 (iWARP
# and RoCE to the same peer), since in this guest rxe0 answers no
# connection request for a while after a link of its came back.
ip link add rxenet2 type dummy && ip addr add 198.18.0.1/24 dev rxenet2 && ip link set rxenet2 up &&
    modprobe rdma_rxe && rdma link add rxe1 type rxe netdev rxenet2
port_active rxe1
if [ "$dev" = rxe0 ]; then
    stream_losing "verbs, 2 nodes, two verbs ports (rxe0, rxe1): two-way stream striped over both goes on when rxe1's link goes down" \
        verbs rxenet,rxenet2 rxenet2 verbs/rxe0 verbs/rxe1
else
    # iWARP's own way of failing (the connection terminated); a RoCE
    # link lost under a stream is the rxe0 pass's
    stream_losing "verbs, 2 nodes, iWARP and RoCE rails ($dev, rxe1): two-way stream striped over both goes on when $dev's link goes down" \
        verbs "$netdev,rxenet2" "$netdev" "verbs/$dev" verbs/rxe1
fi
rdma link delete rxe1
ip link del rxenet2

# Across backends: under btl_rwv_backend auto the nodes have a verbs rail
# and a libfabric tcp rail (tcpnet, a second dummy netdev); a two-way
# stream is striped over both, and goes on when the verbs port goes down
# in the middle.
if [ "$dev" = rxe0 ]; then
    ip link add tcpnet type dummy && ip addr add 203.0.113.1/24 dev tcpnet && ip link set tcpnet up
    stream_losing "auto, 2 nodes, a verbs rail ($dev) and a tcp rail: two-way stream of messages up to 300,000 B goes on when the verbs port goes down" \
        auto "$netdev,tcpnet" "$netdev" "verbs/$dev" ofi/tcp
    ip link del tcpnet
fi
rm -f "$agent" "$hosts"

# Bad input: each gives its message; auto falls back to libfabric, verbs disqualifies
bad_input () { # label expected-message setup-command
    local label=$1 msg=$2 setup=$3
    run_expecting "$msg" bash -c "$setup; OMPI_MCA_btl_rwv_backend=auto \"\$@\"" job "${one_any[@]}" -np 2 \
        "$bin/mpi/test_pingpong_verify" -m 65536
    if grep -q "$msg" "$out" && grep -q '^ok - ping-pong' "$out" && grep -q 'rail 0: ofi/tcp' "$out"; then
        echo "ok - $label, under auto: the message, then the job runs on libfabric rails"
    else
        echo "not ok - $label under auto"; grep -v 'mca: base' "$out" | tail -8 | sed 's/^/#   /'; failed=1
    fi
    run_expecting "$msg" bash -c "$setup; \"\$@\"" job "${one_any[@]}" -np 2 "$bin/mpi/test_pingpong_verify" -m 65536
    if grep -q "$msg" "$out" && ! grep -q '^ok - ping-pong' "$out"; then
        echo "ok - $label, under verbs: the message, and rwv disqualifies"
    else
        echo "not ok - $label under verbs"; tail -8 "$out" | sed 's/^/#   /'; failed=1
    fi
}
if [ "$dev" = rxe0 ]; then
    bad_input "ulimit -l 1024" "locked-memory limit (ulimit -l) is below 64 MiB" "ulimit -l 1024"
    rdma_netdevs=$(rdma link show | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
    for n in $rdma_netdevs; do ip link set "$n" down; done
    port_state DOWN
    bad_input "every RDMA port down" "no active port has an address of a family" ":"
    for n in $rdma_netdevs; do ip link set "$n" up; done
    port_active
fi
rm -f "$out" "$out.stop"
exit $failed
