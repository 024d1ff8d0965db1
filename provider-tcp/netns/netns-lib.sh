# netns-lib.sh — sourced by provider-tcp/netns/soak.sh and benchmarks/compare-tcp.sh (NETNS=1):
# two network namespaces joined by a veth pair, as the namespace tests make them
# (provider-tcp/src/test/java/io/jofi/provider/tcp/netns/NetnsPair.java):
#
#   jofi-t-PID-TAG-a: jofi0 198.18.200.1/24 fd6a:6f66:69:200::1/64 ==== jofi-t-PID-TAG-b: jofi0 .2 / ::2
#
# netns_up TAG [MTU] makes them (root and iproute2 needed) and sets NS_A, NS_B, ADDR_A, ADDR_B,
# ADDR6_A, ADDR6_B; an EXIT trap (netns_down) removes them and ends what runs inside. At the
# start, namespaces jofi-t-PID-... of a process that no longer runs (a killed run) are removed.

netns_remove_stale() {
    local name pid p
    for name in $(ip netns list | awk '{ print $1 }' | grep '^jofi-t-' || true); do
        pid="${name#jofi-t-}"
        pid="${pid%%-*}"
        if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
            continue
        fi
        for p in $(ip netns pids "$name" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
        ip netns del "$name" && echo "netns: removed the left-over namespace $name" >&2
    done
}

netns_down() {
    local ns p
    for ns in "${NS_A:-}" "${NS_B:-}"; do
        [[ -n "$ns" ]] || continue
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
        ip netns del "$ns" 2>/dev/null || true
    done
}

netns_up() {
    local tag=$1 mtu=${2:-1500}
    [[ $(id -u) -eq 0 ]] || { echo "netns: root is needed to make network namespaces" >&2; return 1; }
    command -v ip >/dev/null || { echo "netns: iproute2's ip is missing (apt-get install -y iproute2)" >&2; return 1; }
    netns_remove_stale
    NS_A="jofi-t-$$-$tag-a"
    NS_B="jofi-t-$$-$tag-b"
    trap netns_down EXIT
    ip netns add "$NS_A"
    ip netns add "$NS_B"
    ip link add jofi0 netns "$NS_A" type veth peer name jofi0 netns "$NS_B"
    ADDR_A=198.18.200.1; ADDR_B=198.18.200.2
    ADDR6_A=fd6a:6f66:69:200::1; ADDR6_B=fd6a:6f66:69:200::2
    ip -n "$NS_A" addr add "$ADDR_A/24" dev jofi0
    ip -n "$NS_B" addr add "$ADDR_B/24" dev jofi0
    ip -n "$NS_A" addr add "$ADDR6_A/64" dev jofi0 nodad
    ip -n "$NS_B" addr add "$ADDR6_B/64" dev jofi0 nodad
    local ns
    for ns in "$NS_A" "$NS_B"; do
        ip -n "$ns" link set lo up
        ip -n "$ns" link set jofi0 mtu "$mtu" up
    done
    for _ in $(seq 1 500); do
        ip -n "$NS_A" -o link show jofi0 | grep -q 'state UP' && ip -n "$NS_B" -o link show jofi0 | grep -q 'state UP' && return 0
        sleep 0.01
    done
    echo "netns: the veth did not come up" >&2
    return 1
}
