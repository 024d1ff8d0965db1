#!/usr/bin/env bash
# soak.sh — churn and a long stream of the tcp provider across two network namespaces joined
# by a veth (netns-lib.sh), each side a JVM of its own, printing the resident memory, threads and
# file descriptors of both before (after the first 100 connections / 5 s of stream) and after:
#   1. CONNECTIONS short MSG connections one after another (connect, one 64-byte
#      delivery-complete send, close): io.jofi.provider.tcp.netns.ChurnChild;
#   2. a MINUTES-minute 64 KiB stream (as fast as it goes): io.jofi.provider.tcp.netns.MsgStreamChild.
# Not part of mvn verify (NetnsChurnTest is its bounded variant: 2,000 connections). Root needed.
#
#   provider-tcp/netns/soak.sh                  (builds the test classes first)
# Environment: CONNECTIONS (default 100000; 0: no churn), MINUTES (default 30; STREAM_SECONDS overrides),
#   GAP_MICROS (the stream's pace: at most one message every so many us; default 0, as fast as it goes), JAVA,
#   BUILD=0 (do not build; the classes and target/netns-classpath.txt exist)
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$HOME_DIR"
. provider-tcp/netns/netns-lib.sh
CONNECTIONS="${CONNECTIONS:-100000}"
MINUTES="${MINUTES:-30}"
STREAM_SECONDS="${STREAM_SECONDS:-$(( MINUTES * 60 ))}"
JAVA="${JAVA:-java}"
CP_FILE=provider-tcp/target/netns-classpath.txt
if [[ "${BUILD:-1}" != 0 || ! -f "$CP_FILE" ]]; then
    mvn -B -q -pl provider-tcp -am test-compile dependency:build-classpath -Dmdep.includeScope=test \
        -Dmdep.outputFile=target/netns-classpath.txt >&2
fi
CP="provider-tcp/target/test-classes:provider-tcp/target/classes:$(cat "$CP_FILE")"
JVM=("$JAVA" -Xmx256m -XX:+UseSerialGC --add-exports java.base/sun.nio.ch=ALL-UNNAMED -cp "$CP")

netns_up soak 1500
echo "namespaces $NS_A ($ADDR_A) and $NS_B ($ADDR_B), $(date -u '+%F %H:%M') UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"

# starts the server side in NS_A (its lines prefixed "server: "; SPID: its pid) and waits until it listens
start_server() {
    local main=$1 port=$2; shift 2
    ip netns exec "$NS_A" "${JVM[@]}" "$main" server "$ADDR_A" "$port" "$@" > >(sed -u 's/^/server: /' | grep --line-buffered -v ': received ') 2>&1 &
    SPID=$!
    for _ in $(seq 1 300); do
        ip netns exec "$NS_A" ss -Hltn "sport = :$port" | grep -q . && return 0
        sleep 0.1
    done
    echo "soak: the server did not listen on $port" >&2
    return 1
}

if (( CONNECTIONS > 0 )); then
echo "== churn: $CONNECTIONS connections"
start=$(date +%s)
start_server io.jofi.provider.tcp.netns.ChurnChild 7500 "$CONNECTIONS"
ip netns exec "$NS_B" "${JVM[@]}" io.jofi.provider.tcp.netns.ChurnChild client "$ADDR_A" 7500 "$CONNECTIONS" 2>&1 \
    | sed -u 's/^/client: /' || { echo "churn client failed" >&2; exit 1; }
wait "$SPID" || { echo "churn server failed" >&2; exit 1; }
echo "churn: $CONNECTIONS connections in $(( $(date +%s) - start )) s"
fi

echo "== stream: $STREAM_SECONDS s of 64 KiB messages, at most one every ${GAP_MICROS:-0} us"
start_server io.jofi.provider.tcp.netns.MsgStreamChild 7501 statsAfter=5
ip netns exec "$NS_B" "${JVM[@]}" io.jofi.provider.tcp.netns.MsgStreamChild client "$ADDR_A" 7501 gapMicros="${GAP_MICROS:-0}" \
    statsAfter=5 seconds=$STREAM_SECONDS exitAtEnd=true 2>&1 | sed -u 's/^/client: /' | grep -v ': sent ' \
    || { echo "stream client failed" >&2; exit 1; }
wait "$SPID" || { echo "stream server failed" >&2; exit 1; }
