#!/bin/bash
# The lossy-link stage, run in the guest by provider-verbs/vm/netns-lossy (cwd /jofi/in, staged
# there: run-tests.sh's class path, provider-tcp's classes in tcp-classes/). Two network
# namespaces ("hosts") joined by a veth pair, 198.18.0.1 and .2, netem on both ends (1 ms delay,
# 0.1 % loss, 1 % of the packets sent at once, so overtaking the delayed ones: reordering), and
# LinkCheckChild (provider-verbs test classes) on each side, the four runs at once: tcp MSG and
# RDM, verbs MSG and RDM on a device at each veth end (siw with `run --siw`; rxe: see below).
# Each run: a stream of checked messages (each once, whole, in order: CRC-32 and sequence
# numbers) and 256 KiB written by RMA, read back and compared on both sides. Prints each side's
# output; exit 0 when every side said PASS. Skips (status 0, "SKIPPED" and why) where the kernel
# has no netem; the verbs half likewise without a device. COUNT (default 300) messages a run.
set -uo pipefail
cd "$(dirname "$0")"
A=jofi-ll-a B=jofi-ll-b
COUNT="${COUNT:-300}"
NETEM=(delay 1ms loss 0.1% reorder 1% 50%)
say() { echo "netns-lossy: $*"; }
cleanup() {
    for ns in $A $B; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    done
    for d in rxea rxeb siwa siwb; do rdma link delete $d 2>/dev/null; done
    ip netns del $A 2>/dev/null
    ip netns del $B 2>/dev/null
}
trap cleanup EXIT
cleanup
eval "$(grep '^cp=' run-tests.sh)" || { say "FAILED: no class path in run-tests.sh"; exit 1; }
cp="$cp:tcp-classes"
modprobe sch_netem 2>/dev/null || { say "SKIPPED: this kernel has no netem (modprobe sch_netem failed)"; exit 0; }
ip netns add $A && ip netns add $B || { say "FAILED: ip netns add"; exit 1; }
ip -n $A link set lo up
ip -n $B link set lo up
ip link add lx0 netns $A type veth peer name lx1 netns $B || { say "FAILED: the veth pair"; exit 1; }
ip -n $A addr add 198.18.0.1/24 dev lx0
ip -n $B addr add 198.18.0.2/24 dev lx1
ip -n $A link set lx0 up
ip -n $B link set lx1 up
ip netns exec $A tc qdisc add dev lx0 root netem "${NETEM[@]}" || { say "FAILED: tc qdisc netem in $A"; exit 1; }
ip netns exec $B tc qdisc add dev lx1 root netem "${NETEM[@]}" || { say "FAILED: tc qdisc netem in $B"; exit 1; }
say "$A lx0 198.18.0.1 <-> $B lx1 198.18.0.2, netem ${NETEM[*]} on both ends"
for _ in $(seq 50); do ip netns exec $B ping -c 1 -W 1 198.18.0.1 >/dev/null 2>&1 && break; sleep 0.2; done

java_side() { # NS DEVICE LOG ARGS...: LinkCheckChild in NS on DEVICE, output to LOG, in the background
    local ns="$1" device="$2" log="$3"; shift 3
    # every RDMA device is visible in every namespace (rdma's shared mode): each side is told its own
    ip netns exec "$ns" java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dlinkcheck.timeout="${LINKCHECK_TIMEOUT:-400}" \
        -Djofi.verbs.device="$device" -cp "$cp" io.jofi.provider.verbs.netns.LinkCheckChild "$@" >"$log" 2>&1 </dev/null &
}

t0=$SECONDS
# The verbs device on each veth end: soft-iWARP when the guest runs with --siw (siw's TCP sockets
# live in the namespace of the process that connects or listens), else soft-RoCE, whose UDP
# sockets and routes the Debian 6.1 kernel keeps in the initial namespace only: rxe devices on
# the veth ends come up ACTIVE, but a QP's first send fails ("local QP operation error", measured
# with ibv_rc_pingpong), so the verbs runs are skipped there, saying so.
verbs=1
type=rxe
[[ "${JOFI_VM_DEVICE:-}" == siw* ]] && type=siw
if [[ $type == rxe && -z "${JOFI_VM_RXE_NETNS:-}" ]]; then
    say "SKIPPED verbs: soft-RoCE (rxe) cannot carry traffic between namespaces on kernel $(uname -r) (run with --siw for soft-iWARP; JOFI_VM_RXE_NETNS=1 tries rxe anyway)"
    verbs=0
elif ! modprobe "$( [[ $type == siw ]] && echo siw || echo rdma_rxe )" 2>/dev/null \
        || ! ip netns exec $A rdma link add ${type}a type $type netdev lx0 \
        || ! ip netns exec $B rdma link add ${type}b type $type netdev lx1; then
    say "SKIPPED verbs: no $type device on the veth ends"
    verbs=0
fi
runs=(tcp:msg tcp:rdm)
if ((verbs)); then
    for d in ${type}a ${type}b; do
        for _ in $(seq 100); do grep -q ACTIVE "/sys/class/infiniband/$d/ports/1/state" 2>/dev/null && break; sleep 0.1; done
    done
    say "${type}a on lx0 ($A), ${type}b on lx1 ($B): $(cat /sys/class/infiniband/${type}a/ports/1/state) / $(cat /sys/class/infiniband/${type}b/ports/1/state)"
    runs+=(verbs:msg verbs:rdm)
fi
# one JVM a side runs the runs one after another (run i on port 7500 + i): under emulation a JVM's
# start costs more than a run; the client tries each connect again until the server's run listens
java_side $A ${type}a "$JOFI_VM_OUT/server.log" server 198.18.0.1 7500 "$COUNT" "${runs[@]}"
spid=$!
java_side $B ${type}b "$JOFI_VM_OUT/client.log" client 198.18.0.1 7500 "$COUNT" "${runs[@]}"
cpid=$!
wait $cpid; c=$?
wait $spid; s=$?
echo "--- server (status $s)"; cat "$JOFI_VM_OUT/server.log"
echo "--- client (status $c)"; cat "$JOFI_VM_OUT/client.log"
failed=0
((c == 0 && s == 0)) || failed=1
for r in "${runs[@]}"; do
    if grep -q "PASS $r\$" "$JOFI_VM_OUT/server.log" && grep -q "PASS $r\$" "$JOFI_VM_OUT/client.log"; then
        say "PASS $r across the lossy link"
    else
        say "FAIL $r across the lossy link"
        failed=1
    fi
done
say "$( ((failed)) && echo FAILED || echo PASSED ) in $((SECONDS - t0)) s ($COUNT messages a run)"
ip netns exec $A tc -s qdisc show dev lx0 | head -3
exit $failed
