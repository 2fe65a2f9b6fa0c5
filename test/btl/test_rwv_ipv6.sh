#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves btl/rwv's libfabric rails on IPv6, between 2 emulated nodes whose
# rail 1 (IPv4) carries the runtime, every byte of the data checked:
#  - a rail with IPv6 alone, named by interface and by its IPv6 network:
#    ping-pongs of 0 B to 16 MiB, the connections made to the peer's IPv6
#    address, and the bytes counted on that interface; coll/rdmabar's
#    barriers with the node leaders' flags written over it;
#  - dual-stack rails: one rail per interface (not one per address);
#    btl_rwv_ip_family auto connects over IPv4, prefer_ipv6 and ipv6 over
#    IPv6;
#  - a node with IPv4 alone on a rail next to one with IPv6 alone there:
#    a message naming both hosts' addresses, and the job ends with an
#    error, no hang;
#  - a malformed IPv6 network in btl_rwv_if_include: a message.
# Striping and failover over one IPv4 and one IPv6 rail: test_rwv_multirail.sh
# with RWV_CLUSTER_FAMILIES=4,6 (run-tests.sh).
set -u
. "$(dirname "$0")/../cluster/cluster.sh"
. "$(dirname "$0")/../lib.sh"
mpi=$RWV_BUILD/test/mpi
out=$(mktemp)
trap 'rm -f "$out"; cluster_down' EXIT
two=(-np 2 --map-by node --mca btl self,rwv --mca btl_base_verbose 100)

tx_bytes () { # node interface
    ip netns exec "$(cluster_node_name "$1")" cat "/sys/class/net/$2/statistics/tx_bytes"
}

# A ping-pong on rail r2 alone: every byte right, connected at the peer's
# address of FAMILY (4 or 6), and more bytes sent through r2 than the
# largest message.
#   pingpong_on LABEL FAMILY MPIRUN-ARGS...
pingpong_on () {
    local label=$1 family=$2 before after peer rc
    shift 2
    if [ "$family" = 6 ]; then peer="2001:db8:2::"; else peer="203\.0\.113\."; fi
    before=$(tx_bytes 1 r2)
    run_job 240 cluster_mpirun "${two[@]}" "$@" "$mpi/test_pingpong_verify" -m 16777216 > "$out" 2>&1
    rc=$?
    after=$(tx_bytes 1 r2)
    if job_ended "$rc" && grep -q '^ok - ping-pong' "$out" &&
       grep -q "connected to .* on ofi/tcp r2 .* (at $peer" "$out" &&
       ! grep "connected to .* on ofi/tcp" "$out" | grep -vq "(at $peer" &&
       [ $((after - before)) -gt 16777216 ]; then
        echo "ok - $label: ping-pong of 0 B to 16 MiB, every byte right, connected over IPv$family, $(((after - before) >> 20)) MiB sent through r2"
    else
        echo "not ok - $label: exit $rc, $((after - before)) bytes through r2"
        grep -E '^(ok|not ok)|connected to|listening|rror' "$out" | head -12
        job_diagnosis < "$out"
    fi
}

# rail 2 with IPv6 alone
RWV_CLUSTER_FAMILIES=4,6 cluster_up 2 2 || exit $?
pingpong_on "a rail with IPv6 alone (btl_rwv_if_include r2)" 6 --mca btl_rwv_if_include r2
pingpong_on "a rail with IPv6 alone, named by its network (btl_rwv_if_include 2001:db8:2::/64)" 6 \
    --mca btl_rwv_if_include 2001:db8:2::/64
# coll/rdmabar's node leaders write each other's flags over that rail
run_job 240 cluster_mpirun -np 4 --map-by node --mca mpi_yield_when_idle 1 --mca btl self,vader,rwv \
    --mca btl_rwv_if_include r2 --mca coll_base_verbose 10 --mca btl_base_verbose 100 \
    "$RWV_BUILD/test/coll/test_barrier" -n 15 -c 2 -b 1000 > "$out" 2>&1
rc=$?
if job_ended "$rc" && grep -q '^ok - ' "$out" && ! grep -q '^not ok' "$out" &&
   grep -q 'node leaders exchange flags with btl/rwv puts' "$out" &&
   grep -q 'connected to .* on ofi/tcp r2 .* (at 2001:db8:2::' "$out"; then
    echo "ok - coll/rdmabar between 2 nodes x 2 ranks over a rail with IPv6 alone: the node leaders' flags written over it, every barrier right"
else
    echo "not ok - coll/rdmabar over an IPv6 rail: exit $rc"; grep -E '^(ok|not ok)|rdmabar|connected to' "$out" | head
    job_diagnosis < "$out"
fi
cluster_down

# dual-stack rails: one rail per interface, the family as asked
RWV_CLUSTER_FAMILIES=46 cluster_up 2 2 || exit $?
pingpong_on "a dual-stack rail, btl_rwv_ip_family auto" 4 --mca btl_rwv_if_include r2
listening=$(grep -c '^\[rwvn1:.*btl/rwv: rail [0-9]*: ofi/tcp r2 .* listening on 203\.0\.113\.1 port [0-9]* and 2001:db8:2::1 port' "$out")
rails=$(grep -c '^\[rwvn1:[0-9]*\] btl/rwv: rail [0-9]*: ofi/tcp r2 ' "$out")
if [ "$listening" -eq 1 ] && [ "$rails" -eq 1 ]; then
    echo "ok - a dual-stack interface is one rail listening on its IPv4 and its IPv6 address"
else
    echo "not ok - dual-stack interfaces: $rails rails on r1/r2, $listening listening on both families"
    grep 'listening on' "$out" | head
fi
pingpong_on "dual-stack rails, btl_rwv_ip_family prefer_ipv6" 6 --mca btl_rwv_if_include r2 --mca btl_rwv_ip_family prefer_ipv6
pingpong_on "dual-stack rails, btl_rwv_ip_family ipv6" 6 --mca btl_rwv_if_include r2 --mca btl_rwv_ip_family ipv6
cluster_down

# rail 2: IPv4 alone on node 1, IPv6 alone on node 2
RWV_CLUSTER_FAMILIES=4,46 cluster_up 2 2 || exit $?
ip -n "$(cluster_node_name 1)" addr del "$(cluster_addr6 1 2)/64" dev r2
ip -n "$(cluster_node_name 2)" addr del "$(cluster_addr 2 2)/24" dev r2
# (rail 2 named by its networks: naming the interface would bring in its
# link-local addresses, a family both have there)
RWV_EXPECT="no rail of" run_keeping_help "$out" run_job 120 cluster_mpirun -np 2 --map-by node --mca btl self,rwv \
    --mca btl_rwv_if_include 203.0.113.0/24,2001:db8:2::/64 "$mpi/test_pingpong_verify" -m 1024 > /dev/null
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q 'cannot reach process .* on host rwvn[12]' "$out" &&
   grep -q "This host's rails: *\(203\.0\.113\.1/24\|2001:db8:2::2/64\)" "$out" &&
   grep -q "That host's rails: *\(2001:db8:2::2/64\|203\.0\.113\.1/24\)" "$out"; then
    echo "ok - IPv4 alone next to IPv6 alone on the only rail: a message names both hosts' addresses, the job ends (exit $rc)"
else
    echo "not ok - no common family: exit $rc"; grep -v '^$' "$out" | head -20
fi

RWV_EXPECT="is not a network" run_keeping_help "$out" run_job 120 cluster_mpirun -np 2 --map-by node \
    --mca btl self,rwv --mca btl_rwv_if_include 2001:db8:2::/129 "$mpi/test_pingpong_verify" -m 1024 > /dev/null
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q "'2001:db8:2::/129' is not a network" "$out"; then
    echo "ok - btl_rwv_if_include 2001:db8:2::/129: a message says what a network looks like"
else
    echo "not ok - a malformed IPv6 network: exit $rc"; grep -v '^$' "$out" | head -10
fi
