#!/usr/bin/env bash
# Remote services, one echo service `byte[] echo(byte[])` called from a second container on this
# host: Aries aries.tcp, Aries aries.fastbin, JOFI over tcp, JOFI over shm; 1 and 16 callers;
# 64 B, 4 KiB, 1 MiB; contenders rotated each round; calls/s, p50 and the ratios. Then JOFI's own
# shm ping-pong with the channels' wait style (`./jofi pingpong -p shm -e rdm -c sread -S 64`: sread
# on an UNSPEC CQ), and the 64 B one-caller shm call's p50 over the ping-pong's p50 (target: <= 3).
# Not a test: prints a Markdown table (also in rsa-itests/target/rsa-bench.md).
#
#   benchmarks/compare-rsa.sh [MILLIS_PER_CELL [ROUNDS]]     (defaults 2000 and 3)
#
# Builds what it needs in the reactor (no install) and runs rsa-itests' RsaBenchmarkIT, which
# forks the two Felix containers (see rsa-itests/README.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

millis="${1:-2000}"
rounds="${2:-3}"
mvn -B -q -pl rsa-itests -am verify \
    -DskipTests=false -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test=RsaBenchmarkIT -Dfailsafe.failIfNoSpecifiedTests=false \
    -Djofi.test.skipAllocationWithoutEscapeAnalysis=true \
    -Djofi.rsa.bench.millis="$millis" -Djofi.rsa.bench.rounds="$rounds" >&2
echo "benchmarks/compare-rsa.sh $millis $rounds"
cat rsa-itests/target/rsa-bench.md

# the ping-pong right after the table (the load of the moment is in both): server without JIT
# warm-up, so it listens at once; the client warms up, then times 20000 iterations
pp_log="rsa-itests/target/rsa-pingpong"
./jofi --version >/dev/null # builds the container once, if needed: the two runs below must not both build it
JOFI_NO_BUILD=1 ./jofi pingpong -p shm -e rdm -c sread -S 64 -I 20000 --jit-warmup 0 >"$pp_log-server.log" 2>&1 &
server=$!
sleep 2
JOFI_NO_BUILD=1 ./jofi pingpong -p shm -e rdm -c sread -S 64 -I 20000 --percentiles 127.0.0.1 >"$pp_log-client.log" 2>&1 \
    || { cat "$pp_log-client.log" "$pp_log-server.log" >&2; kill "$server" 2>/dev/null; exit 1; }
wait "$server" || true
pp_p50="$(awk '$2 == "lat" { print $4 }' "$pp_log-client.log")"
call_p50="$(awk -F'|' '$2 ~ /^ *1 *$/ && $3 ~ /^ *64 B *$/ { gsub(/.*\(|\).*/, "", $7); print $7 }' \
    rsa-itests/target/rsa-bench.md)"
echo
echo "JOFI's shm ping-pong, same wait style (\`./jofi pingpong -p shm -e rdm -c sread -S 64 -I 20000\`):" \
    "p50 $pp_p50 us (fabtests' usec/xfer: half a round trip). A 64 B shm call, one caller (a round trip):" \
    "p50 $call_p50 us = $(awk -v c="$call_p50" -v p="$pp_p50" 'BEGIN { printf "%.2f", c / p }')x the ping-pong's" \
    "p50 (target: at most 3x)."
