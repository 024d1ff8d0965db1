#!/usr/bin/env bash
# compare-tcp-large.sh — large MSG ping-pongs (fi_msg_pingpong's choreography) over tcp loopback
# in the four pairings, alternated within each round so that every pairing of a round meets the
# same machine load:
#   C-C    the project's C peer (provider-tcp/src/test/c/jofi_peer.c, libfabric's tcp) both sides
#   C-J    C server, ./jofi client        J-C    ./jofi server, C client        J-J    ./jofi both
# and prints per size the median one-way usec/xfer of each pairing over RUNS rounds, and the
# median over the rounds of each pairing's ratio to C-C of the same round (the figure a loaded
# machine moves least: a shared 2-core host moves single runs 3-10x).
# Benchmarks, not tests: figures depend on the machine and its load; the load is printed.
#
#   benchmarks/compare-tcp-large.sh      (builds the container and the C peer if needed)
# Environment: SIZES (default "1048576 2097152 3145728 4194304 8388608"), JIT_WARMUP (JOFI's
#   --jit-warmup, default 5000 — 20000 outlasted the C peer's watchdog at 8 MiB; 0 measures a cold JVM), ITERS (default 100,
#   fabtests' count from 1 MiB), WARMUP (untimed iterations, default 10), RUNS (rounds,
#   default 5), PORT (first port, default 9340; each run takes the next), PIN (1/0, default 1:
#   server and client on a core each, as compare-tcp.sh)
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HOME_DIR"
read -r -a SIZES <<<"${SIZES:-1048576 2097152 3145728 4194304 8388608}"
ITERS="${ITERS:-100}"
# JOFI's JIT warm-up (messages over a private connection before the timed run, as
# compare-tcp.sh gives it): ./jofi's default warms with as many messages as the timed run sends
# — 110 here — which leaves the large-message path to the interpreter and C1 (a cold JVM, not
# what fi_msg_pingpong -S all meets: it reaches 1 MiB after thousands of smaller messages)
JIT_WARMUP="${JIT_WARMUP:-5000}"
WARMUP="${WARMUP:-10}"
RUNS="${RUNS:-5}"
PORT="${PORT:-9340}"
SRV_PIN=""
CLI_PIN=""
if [[ "${PIN:-1}" == 1 ]] && command -v taskset >/dev/null && (( $(nproc) >= 2 )); then
    SRV_PIN="taskset -c $(( $(nproc) - 1 ))"
    CLI_PIN="taskset -c 0"
fi

PEER=benchmarks/target/jofi_peer
if [[ ! -x "$PEER" || provider-tcp/src/test/c/jofi_peer.c -nt "$PEER" ]]; then
    mkdir -p benchmarks/target
    gcc -O2 -o "$PEER" provider-tcp/src/test/c/jofi_peer.c -lfabric \
        || { echo "compare-tcp-large: cannot build the C peer (apt-get install -y gcc libfabric-dev)" >&2; exit 1; }
fi
./jofi help >/dev/null                      # builds the container when it is out of date
export JOFI_NO_BUILD=1

# The command of one side: who (c or j), role (server or client), size, port.
side() {
    local who=$1 role=$2 s=$3 p=$4 prog
    if [[ "$who" == c ]]; then prog="$PEER pingpong"; else prog="./jofi pingpong -c spin --jit-warmup $JIT_WARMUP"; fi
    if [[ "$role" == server ]]; then
        echo "$SRV_PIN $prog -p tcp -e msg -S $s -I $ITERS -w $WARMUP -B $p"
    else
        echo "$CLI_PIN $prog -p tcp -e msg -S $s -I $ITERS -w $WARMUP -P $p 127.0.0.1"
    fi
}

# One run: server in the background, the client retried while the server boots; prints the
# client's usec/xfer. Fails when either side fails.
run() {
    local srv=$1 cli=$2 s=$3 out status=1 tries
    PORT=$(( PORT + 1 ))
    bash -c "$(side "$srv" server "$s" "$PORT")" >/tmp/compare-tcp-large.$$ 2>&1 &
    local spid=$!
    for tries in $(seq 1 30); do
        sleep 0.5
        if out="$(bash -c "$(side "$cli" client "$s" "$PORT")" 2>&1)"; then status=0; break; fi
        kill -0 "$spid" 2>/dev/null || break
    done
    wait "$spid" || status=1
    if (( status != 0 )); then
        echo "compare-tcp-large: $srv-$cli at $s failed:" >&2
        cat /tmp/compare-tcp-large.$$ >&2
        echo "$out" >&2
        rm -f /tmp/compare-tcp-large.$$
        return 1
    fi
    rm -f /tmp/compare-tcp-large.$$
    awk '$1 ~ /^[0-9]/ && NF == 7 { u = $6 } END { print u }' <<<"$out"
}

median() { printf '%s\n' "$@" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

PAIRS=(cc cj jc jj)
declare -A USEC RATIO
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$RUNS"); do
    for s in "${SIZES[@]}"; do
        echo "round $round/$RUNS, size $s (load $(cut -d' ' -f1 /proc/loadavg))..." >&2
        declare -A now=()
        for p in "${PAIRS[@]}"; do
            now[$p]=$(run "${p:0:1}" "${p:1:1}" "$s")
            USEC[$p,$s]+=" ${now[$p]}"
        done
        for p in cj jc jj; do
            RATIO[$p,$s]+=" $(ratio "${now[$p]}" "${now[cc]}")"
        done
    done
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"

echo
if [[ -n "$SRV_PIN" ]]; then pinned="pinned (server: cpu ${SRV_PIN##*-c }, client: cpu ${CLI_PIN##*-c })"; else pinned="not pinned"; fi
echo "tcp loopback MSG ping-pong, $(date -u '+%F %H:%M') UTC, $(nproc) cores, $pinned"
echo "load average before: $LOAD_BEFORE, after: $LOAD_AFTER; $RUNS rounds of -I $ITERS -w $WARMUP; pairing = server-client"
echo
echo "one-way usec/xfer, median of the rounds          | median of the per-round ratios to C-C"
printf '%-9s %9s %9s %9s %9s | %6s %6s %6s\n' bytes C-C C-J J-C J-J C-J J-C J-J
for s in "${SIZES[@]}"; do
    read -r -a cc <<<"${USEC[cc,$s]}"; read -r -a cj <<<"${USEC[cj,$s]}"
    read -r -a jc <<<"${USEC[jc,$s]}"; read -r -a jj <<<"${USEC[jj,$s]}"
    read -r -a rcj <<<"${RATIO[cj,$s]}"; read -r -a rjc <<<"${RATIO[jc,$s]}"; read -r -a rjj <<<"${RATIO[jj,$s]}"
    printf '%-9s %9s %9s %9s %9s | %6s %6s %6s\n' "$s" "$(median "${cc[@]}")" "$(median "${cj[@]}")" \
        "$(median "${jc[@]}")" "$(median "${jj[@]}")" "$(median "${rcj[@]}")" "$(median "${rjc[@]}")" "$(median "${rjj[@]}")"
done
