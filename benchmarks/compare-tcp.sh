#!/usr/bin/env bash
# compare-tcp.sh — one loopback run comparing, at 64 B, 4 KiB, 64 KiB and 1 MiB:
#   C      libfabric's fi_pingpong -p tcp -e msg (libfabric-bin; syncs over its own control
#          socket, port 47592, so its data path is the tcp provider's alone)
#   raw    io.jofi.benchmarks.RawNioPingPong: a busy-polling java.nio ping-pong (no framing)
#   JOFI   ./jofi pingpong -p tcp -e msg -c spin (fabtests' fi_msg_pingpong choreography)
# and prints one-way latency (usec/xfer = half the round trip) with the ratios, then
# bandwidth (MB/s): C fi_pingpong, raw NIO and ./jofi bw -p tcp -e msg -c spin.
# Benchmarks, not tests: figures depend on the machine and its load.
#
#   benchmarks/compare-tcp.sh            (builds the container and benchmarks.jar if needed)
# Environment: ITERS (override fabtests' default iterations), PORT (JOFI's port, default 9228)
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HOME_DIR"
SIZES=(64 4096 65536 1048576)
PORT="${PORT:-9228}"
JAVA="${JAVA:-java}"

command -v fi_pingpong >/dev/null || { echo "compare-tcp: fi_pingpong missing (apt-get install -y libfabric-bin)" >&2; exit 1; }
[[ -f benchmarks/target/benchmarks.jar ]] || mvn -B -q -pl benchmarks -am package -DskipTests >&2
./jofi help >/dev/null                      # builds the container when it is out of date
./jofi info -l >/dev/null                   # (the build happens on the first command)
export JOFI_NO_BUILD=1

# fabtests' default iterations per size
iters() {
    local s=$1
    if [[ -n "${ITERS:-}" ]]; then echo "$ITERS"
    elif (( s >= 1048576 )); then echo 100
    elif (( s >= 65536 )); then echo 1000
    else echo 10000; fi
}

# The last data row of a fabtests table: "usec MBps" (fi_pingpong has 8 columns: #sent #ack
# where the others have iters).
row() { awk '$1 ~ /^[0-9]/ && NF == 7 { u = $6; m = $5 } $1 ~ /^[0-9]/ && NF == 8 { u = $7; m = $6 } END { print u, m }'; }

# Runs a server in the background and a client (retried while the server boots); prints the
# client's output. Fails when either side fails.
pair() {
    local server_cmd=$1 client_cmd=$2 out status=1 tries
    bash -c "$server_cmd" >/tmp/compare-tcp-server.$$ 2>&1 &
    local spid=$!
    for tries in 1 2 3 4 5 6 7 8 9 10; do
        sleep 0.5
        if out="$(bash -c "$client_cmd" 2>&1)"; then status=0; break; fi
        kill -0 "$spid" 2>/dev/null || break
    done
    if ! wait "$spid"; then
        echo "compare-tcp: server failed: $server_cmd" >&2
        cat /tmp/compare-tcp-server.$$ >&2
        status=1
    fi
    rm -f /tmp/compare-tcp-server.$$
    if (( status != 0 )); then
        echo "compare-tcp: client failed: $client_cmd" >&2
        echo "$out" >&2
        return 1
    fi
    printf '%s\n' "$out"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

declare -A C_LAT C_BW RAW_LAT RAW_BW J_LAT J_BW
for s in "${SIZES[@]}"; do
    n=$(iters "$s")
    echo "size $s, $n iterations..." >&2
    read -r C_LAT[$s] C_BW[$s] < <(pair "fi_pingpong -p tcp -e msg -S $s -I $n" \
        "fi_pingpong -p tcp -e msg -S $s -I $n 127.0.0.1" | row)
    read -r RAW_LAT[$s] RAW_BW[$s] < <("$JAVA" -cp benchmarks/target/benchmarks.jar \
        io.jofi.benchmarks.RawNioPingPong "$s" "$n" 10 | row)
    read -r J_LAT[$s] _ < <(pair "./jofi pingpong -p tcp -e msg -c spin -S $s -I $n -B $PORT -s 127.0.0.1" \
        "./jofi pingpong -p tcp -e msg -c spin -S $s -I $n -P $PORT 127.0.0.1" | row)
    read -r _ J_BW[$s] < <(pair "./jofi bw -p tcp -e msg -c spin -S $s -I $(( (n + 63) / 64 * 4 )) -B $PORT -s 127.0.0.1" \
        "./jofi bw -p tcp -e msg -c spin -S $s -I $(( (n + 63) / 64 * 4 )) -P $PORT 127.0.0.1" | row)
done

echo
echo "latency, one-way usec/xfer (half the round trip), loopback, $(date -u +%F) on $(nproc) cores"
printf '%-9s %9s %9s %9s %11s %11s\n' bytes C rawNIO JOFI JOFI/C JOFI/raw
for s in "${SIZES[@]}"; do
    printf '%-9s %9s %9s %9s %11s %11s\n' "$s" "${C_LAT[$s]}" "${RAW_LAT[$s]}" "${J_LAT[$s]}" \
        "$(ratio "${J_LAT[$s]}" "${C_LAT[$s]}")" "$(ratio "${J_LAT[$s]}" "${RAW_LAT[$s]}")"
done
echo
echo "bandwidth, MB/s (C and raw NIO: ping-pong MB/sec; JOFI: ./jofi bw, window 64)"
printf '%-9s %9s %9s %9s %11s %11s\n' bytes C rawNIO JOFIbw JOFI/C JOFI/raw
for s in "${SIZES[@]}"; do
    printf '%-9s %9s %9s %9s %11s %11s\n' "$s" "${C_BW[$s]}" "${RAW_BW[$s]}" "${J_BW[$s]}" \
        "$(ratio "${J_BW[$s]}" "${C_BW[$s]}")" "$(ratio "${J_BW[$s]}" "${RAW_BW[$s]}")"
done
echo
echo "64 B message rate, k messages/s (1000 / one-way usec, fabtests' Mxfers/sec x 1000):"
for who in C RAW J; do
    eval "v=\${${who}_LAT[64]}"
    awk -v n="$who" -v u="$v" 'BEGIN { if (u > 0) printf "  %-4s %.0f k/s\n", n, 1000 / u }'
done
