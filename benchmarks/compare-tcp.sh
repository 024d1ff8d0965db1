#!/usr/bin/env bash
# compare-tcp.sh — one loopback run comparing, at 64 B, 4 KiB, 64 KiB and 1 MiB:
#   C      libfabric's fi_pingpong -p tcp -e msg (libfabric-bin; syncs over its own control
#          socket, port 47592, so its data path is the tcp provider's alone)
#   raw    io.jofi.benchmarks.RawNioPingPong server/client: a busy-polling java.nio ping-pong
#          (no framing), one process a side like the others
#   JOFI   ./jofi pingpong -p tcp -e msg -c spin (fabtests' fi_msg_pingpong choreography)
# and prints one-way latency (usec/xfer = half the round trip: fabtests' mean) with the ratios,
# the medians of raw and JOFI (p50 of the timed iterations, each read the clock once: one
# scheduling hiccup of a shared machine moves a mean, not a median) and JOFIp50/rawp50 — a
# median against a median — then streamed bandwidth (MB/s) and the 64 B message
# rate, every contender playing fabtests' fi_msg_bw choreography (-I messages, a window of 64,
# an ack per window) with the same options:
#   C      the project's C peer (provider-tcp/src/test/c/jofi_peer.c, compiled here against
#          Debian's libfabric into benchmarks/target/jofi_peer) in bw mode, C to C
#   raw    io.jofi.benchmarks.RawNioStream: the same windows over raw java.nio, one write a message
#   JOFI   ./jofi bw -p tcp -e msg -c spin
# Within each run the contenders go one after the other (C, raw, JOFI), so load moves all.
# Then the RDM rows (RDM=0: none): libfabric's fi_pingpong -p tcp -e rdm (tcp;ofi_rxm) against
# ./jofi pingpong -p tcp -e rdm -c spin (JOFI's rxm layer over its tcp MSG endpoints,
# wire-compatible with it), one-way latency and ping-pong MB/s of both, run by run right after
# the MSG contenders.
# Then the mixed pairs (MIXED=0: none; needs fabtests 1.17's fi_msg_pingpong and fi_rdm_pingpong in FABTESTS,
# default /opt/fabtests-1.17/bin, which speak ./jofi pingpong's in-band choreography): for MSG and RDM, C<->C
# (fabtests both sides), C server with a JOFI client, JOFI server with a C client, JOFI<->JOFI, all -c spin with the
# same -I and -w, one after the other in each run, and each pairing as a ratio against that run's C<->C: a JOFI peer
# should cost a C peer nothing (1.0).
# Every figure is the median of RUNS runs. The JVM runs (raw, JOFI) are warmed up: raw with
# its own warm-up iterations, JOFI with as many untimed iterations (-w) as timed ones after
# --jit-warmup JIT_WARMUP messages over a private
# loopback pair before the measured connection (C needs none). Server and client are pinned to
# a core each (PIN=0: not pinned), raw's ping-pong too; raw's stream, whose two sides are
# threads of one JVM, is not pinned.
# NETNS=1: the same table across a veth link between two network namespaces
# (provider-tcp/netns/netns-lib.sh; root needed): every server in one namespace, every client in
# the other, at 198.18.200.1 (FI_TCP_IFACE=jofi0 for C and JOFI alike, so that neither picks
# loopback); MTU from NETNS_MTU (default 1500). raw's stream is one JVM with both sides, so it
# stays on loopback there and is left out ("-").
# WAIT=sread: the ping-pong rows (MSG and RDM) with blocking waits on both sides — fabtests'
#   fi_msg_pingpong / fi_rdm_pingpong -c sread (FABTESTS, default /opt/fabtests-1.17/bin) for C,
#   ./jofi pingpong -c sread (an UNSPEC wait object, auto progress) for JOFI; raw and the bw rows
#   stay busy-polling (raw NIO and the C peer have no blocking mode), so read JOFI/C only.
# Benchmarks, not tests: figures depend on the machine and its load; the load is printed.
#
#   benchmarks/compare-tcp.sh            (builds the container and benchmarks.jar if needed)
# Environment: SIZES (default "64 4096 65536 1048576"), ITERS (override fabtests' default
#   iterations), PORT (JOFI's port, default 9228),
#   RUNS (default 3), JIT_WARMUP (default 20000), PIN (1/0, default 1), RDM (1/0, default 1),
#   JOFI_JAVA_OPTS (JVM options of the ./jofi runs, e.g. -XX:+PrintCompilation), NETNS (1/0, default 0),
#   NETNS_MTU (default 1500), MIXED (1/0, default 1 when FABTESTS holds the fabtests programs), FABTESTS
# The bw runs move 1 GiB, at most 400 000 messages and at least 64 windows of 64 (-I counts
# messages, as fi_msg_bw's; benchmarks/stream-length.sh says why, STREAM_BYTES and
# STREAM_MAX_MESSAGES override), after as many untimed ones.
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HOME_DIR"
. benchmarks/stream-length.sh             # stream_messages: how many messages a bw run moves
read -r -a SIZES <<<"${SIZES:-64 4096 65536 1048576}"
PORT="${PORT:-9228}"
JAVA="${JAVA:-java}"
RUNS="${RUNS:-3}"
JIT_WARMUP="${JIT_WARMUP:-20000}"
SRV_PIN=""
CLI_PIN=""
if [[ "${PIN:-1}" == 1 ]] && command -v taskset >/dev/null && (( $(nproc) >= 2 )); then
    SRV_PIN="taskset -c $(( $(nproc) - 1 ))"
    CLI_PIN="taskset -c 0"
fi

command -v fi_pingpong >/dev/null || { echo "compare-tcp: fi_pingpong missing (apt-get install -y libfabric-bin)" >&2; exit 1; }
[[ -f benchmarks/target/benchmarks.jar ]] || mvn -B -q -pl benchmarks -am package -DskipTests >&2
PEER=benchmarks/target/jofi_peer
PEER_SOURCE=provider-tcp/src/test/c/jofi_peer.c
if [[ ! -x "$PEER" || "$PEER_SOURCE" -nt "$PEER" ]]; then
    gcc -O2 -Wall -o "$PEER" "$PEER_SOURCE" -lfabric \
        || { echo "compare-tcp: cannot build the C peer (apt-get install -y libfabric-dev gcc)" >&2; exit 1; }
fi
SRV_NS=""
CLI_NS=""
HOST=127.0.0.1
LINK="tcp loopback"
if [[ "${NETNS:-0}" == 1 ]]; then
    . provider-tcp/netns/netns-lib.sh
    netns_up bench "${NETNS_MTU:-1500}"
    SRV_NS="ip netns exec $NS_A"
    CLI_NS="ip netns exec $NS_B"
    HOST="$ADDR_A"
    export FI_TCP_IFACE=jofi0
    LINK="tcp across a veth between two namespaces (MTU ${NETNS_MTU:-1500}, $NS_A -> $NS_B)"
fi
SRV_PIN="$SRV_NS $SRV_PIN"
CLI_PIN="$CLI_NS $CLI_PIN"
CPORT=$(( PORT + 1 ))
WAIT="${WAIT:-spin}"
C_MSG_SRV="fi_pingpong -p tcp -e msg"; C_MSG_CLI="$C_MSG_SRV"
C_RDM_SRV="fi_pingpong -p tcp -e rdm"; C_RDM_CLI="$C_RDM_SRV"
if [[ "$WAIT" == sread ]]; then
    FABTESTS="${FABTESTS:-/opt/fabtests-1.17/bin}"
    [[ -x "$FABTESTS/fi_msg_pingpong" ]] || { echo "compare-tcp: WAIT=sread needs fabtests in FABTESTS ($FABTESTS)" >&2; exit 1; }
    # the server bound to HOST (fabtests' default is the first interface's address) on CPORT
    C_MSG_SRV="$FABTESTS/fi_msg_pingpong -p tcp -c sread -B $CPORT -s $HOST"
    C_MSG_CLI="$FABTESTS/fi_msg_pingpong -p tcp -c sread -P $CPORT"
    C_RDM_SRV="$FABTESTS/fi_rdm_pingpong -p tcp -c sread -B $CPORT -s $HOST"
    C_RDM_CLI="$FABTESTS/fi_rdm_pingpong -p tcp -c sread -P $CPORT"
elif [[ "$WAIT" != spin ]]; then
    echo "compare-tcp: WAIT is spin or sread, not '$WAIT'" >&2; exit 2
fi
RPORT=$(( PORT + 2 ))
MPORT=$(( PORT + 3 ))
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

# (empty lines skipped by awk, not grep: grep fails on no lines, which set -e ended the run with
# when RDM=0 left the RDM lists empty)
median() { printf '%s\n' "$@" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
p50() { awk '$2 == "lat" && $3 == "p50" { print $4 }'; }

declare -A C_LAT C_BW C_RATE RAW_LAT RAW_P50 RAW_BW RAW_RATE J_LAT J_P50 J_BW J_RATE CR_LAT CR_BW JR_LAT JR_BW
RDM="${RDM:-1}"
FABTESTS="${FABTESTS:-/opt/fabtests-1.17/bin}"
if [[ -x "$FABTESTS/fi_msg_pingpong" && -x "$FABTESTS/fi_rdm_pingpong" ]]; then MIXED="${MIXED:-1}"; else MIXED=0; fi
# MX[ep:pairing:size]: median one-way usec of a mixed-pair row (pairing cc, cj = C server/JOFI client, jc, jj)
declare -A MX
PAIRINGS=(cc cj jc jj)
# One fabtests-choreography ping-pong between a server of kind $2 and a client of kind $3 (c: fabtests 1.17,
# j: ./jofi), endpoint type $1, size $4, iterations $5; prints its one-way usec. The C server gets -s: without it
# fabtests' RDM server binds the first interface's address, not the one the client dials.
mixed_pair() {
    local ep=$1 s_kind=$2 c_kind=$3 s=$4 n=$5 prog srv cli
    prog="$FABTESTS/fi_${ep}_pingpong -p tcp -c spin -S $s -I $n -w $n"
    local jofi="./jofi pingpong -p tcp -e $ep -c spin -S $s -I $n -w $n --jit-warmup $JIT_WARMUP"
    if [[ $s_kind == c ]]; then srv="$prog -B $MPORT -s $HOST"; else srv="$jofi -B $MPORT -s $HOST"; fi
    if [[ $c_kind == c ]]; then cli="$prog -P $MPORT $HOST"; else cli="$jofi -P $MPORT $HOST"; fi
    # a failed pairing prints nothing (its row shows "-"); pair has said why on stderr
    { pair "$SRV_PIN $srv" "$CLI_PIN $cli" || true; } | row | awk '{ print $1 }'
}
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
for s in "${SIZES[@]}"; do
    n=$(iters "$s")
    # bw: m messages a stream (benchmarks/stream-length.sh: 1 GiB, at most 400 000 messages)
    m=$(stream_messages "$s" $(( 1 << 30 )) 400000)
    cl=(); cb=(); cr=(); rl=(); rp=(); rb=(); rr=(); jl=(); jp=(); jb=(); jr=(); crl=(); crb=(); jrl=(); jrb=()
    declare -A mx=()
    for run in $(seq 1 "$RUNS"); do
        echo "size $s, $n iterations, run $run/$RUNS (load $(cut -d' ' -f1 /proc/loadavg))..." >&2
        read -r a _ < <(pair "$SRV_PIN $C_MSG_SRV -S $s -I $n" \
            "$CLI_PIN $C_MSG_CLI -S $s -I $n $HOST" | row)
        cl+=("$a")
        raw="$JAVA -cp benchmarks/target/benchmarks.jar io.jofi.benchmarks.RawNioPingPong"
        out="$(pair "$SRV_PIN $raw server $RPORT $s $n $n" "$CLI_PIN $raw client $HOST $RPORT $s $n $n")"
        read -r a _ < <(row <<<"$out")
        rl+=("$a"); rp+=("$(p50 <<<"$out")")
        out="$(pair "$SRV_PIN ./jofi pingpong -p tcp -e msg -c $WAIT -S $s -I $n -w $n --jit-warmup $JIT_WARMUP -B $PORT -s $HOST" \
            "$CLI_PIN ./jofi pingpong -p tcp -e msg -c $WAIT -S $s -I $n -w $n --jit-warmup $JIT_WARMUP --percentiles -P $PORT $HOST")"
        read -r a _ < <(row <<<"$out")
        jl+=("$a"); jp+=("$(p50 <<<"$out")")
        read -r a b < <(pair "$SRV_PIN $PEER bw -p tcp -e msg -S $s -I $m -W 64 -w $m -B $CPORT" \
            "$CLI_PIN $PEER bw -p tcp -e msg -S $s -I $m -W 64 -w $m -P $CPORT $HOST" | row)
        cb+=("$b"); cr+=("$a")
        if [[ -z "$SRV_NS" ]]; then
            read -r a b < <("$JAVA" -cp benchmarks/target/benchmarks.jar io.jofi.benchmarks.RawNioStream "$s" "$m" 64 "$m" | row)
            rb+=("$b"); rr+=("$a")
        fi
        read -r a b < <(pair "$SRV_PIN ./jofi bw -p tcp -e msg -c spin -S $s -I $m -W 64 -w $m --jit-warmup $JIT_WARMUP -B $PORT -s $HOST" \
            "$CLI_PIN ./jofi bw -p tcp -e msg -c spin -S $s -I $m -W 64 -w $m --jit-warmup $JIT_WARMUP -P $PORT $HOST" | row)
        jb+=("$b"); jr+=("$a")
        if [[ "$RDM" == 1 ]]; then
            read -r a b < <(pair "$SRV_PIN $C_RDM_SRV -S $s -I $n" \
                "$CLI_PIN $C_RDM_CLI -S $s -I $n $HOST" | row)
            crl+=("$a"); crb+=("$b")
            read -r a b < <(pair "$SRV_PIN ./jofi pingpong -p tcp -e rdm -c $WAIT -S $s -I $n -w $n --jit-warmup $JIT_WARMUP -B $PORT -s $HOST" \
                "$CLI_PIN ./jofi pingpong -p tcp -e rdm -c $WAIT -S $s -I $n -w $n --jit-warmup $JIT_WARMUP -P $PORT $HOST" | row)
            jrl+=("$a"); jrb+=("$b")
        fi
        if [[ "$MIXED" == 1 ]]; then
            for ep in msg rdm; do
                for pg in "${PAIRINGS[@]}"; do
                    mx[$ep:$pg]+=" $(mixed_pair "$ep" "${pg:0:1}" "${pg:1:1}" "$s" "$n")"
                done
            done
        fi
    done
    for key in "${!mx[@]}"; do
        # shellcheck disable=SC2086 # the runs' figures, split on purpose
        MX[$key:$s]=$(median ${mx[$key]})
    done
    unset mx
    C_LAT[$s]=$(median "${cl[@]}"); C_BW[$s]=$(median "${cb[@]}"); C_RATE[$s]=$(median "${cr[@]}")
    RAW_LAT[$s]=$(median "${rl[@]}"); RAW_P50[$s]=$(median "${rp[@]}"); RAW_BW[$s]=$(median "${rb[@]}"); RAW_RATE[$s]=$(median "${rr[@]}")
    J_LAT[$s]=$(median "${jl[@]}"); J_P50[$s]=$(median "${jp[@]}"); J_BW[$s]=$(median "${jb[@]}"); J_RATE[$s]=$(median "${jr[@]}")
    CR_LAT[$s]=$(median "${crl[@]}"); CR_BW[$s]=$(median "${crb[@]}")
    JR_LAT[$s]=$(median "${jrl[@]}"); JR_BW[$s]=$(median "${jrb[@]}")
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"

echo
if [[ -n "${SRV_PIN// /}" && "$SRV_PIN" == *taskset* ]]; then pinned="pinned (server: cpu ${SRV_PIN##*-c }, client: cpu ${CLI_PIN##*-c })"; else pinned="not pinned"; fi
echo "$LINK, $(date -u '+%F %H:%M') UTC, $(nproc) cores, $pinned, ping-pong wait: $WAIT"
echo "load average before: $LOAD_BEFORE, after: $LOAD_AFTER; median of $RUNS runs; JOFI --jit-warmup $JIT_WARMUP"
echo
echo "latency, one-way usec/xfer (half the round trip; fabtests' mean; rawp50, JOFIp50: the median iteration)"
printf '%-9s %9s %9s %9s %9s %9s %9s %9s %12s\n' bytes C rawNIO JOFI rawp50 JOFIp50 JOFI/C JOFI/raw JOFIp50/raw
for s in "${SIZES[@]}"; do
    printf '%-9s %9s %9s %9s %9s %9s %9s %9s %12s\n' "$s" "${C_LAT[$s]}" "${RAW_LAT[$s]}" "${J_LAT[$s]}" "${RAW_P50[$s]}" "${J_P50[$s]}" \
        "$(ratio "${J_LAT[$s]}" "${C_LAT[$s]}")" "$(ratio "${J_LAT[$s]}" "${RAW_LAT[$s]}")" "$(ratio "${J_P50[$s]}" "${RAW_P50[$s]}")"
done
echo
echo "streamed bandwidth, MB/s (fi_msg_bw's choreography on every side: window 64, an ack per window)"
printf '%-9s %9s %9s %9s %11s %11s\n' bytes C rawNIO JOFI JOFI/C JOFI/raw
for s in "${SIZES[@]}"; do
    printf '%-9s %9s %9s %9s %11s %11s\n' "$s" "${C_BW[$s]}" "${RAW_BW[$s]}" "${J_BW[$s]}" \
        "$(ratio "${J_BW[$s]}" "${C_BW[$s]}")" "$(ratio "${J_BW[$s]}" "${RAW_BW[$s]}")"
done
if [[ "$RDM" == 1 ]]; then
    echo
    echo "RDM: C fi_pingpong -e rdm (tcp;ofi_rxm) and ./jofi pingpong -e rdm (JOFI's rxm layer):"
    echo "one-way usec/xfer and ping-pong MB/s"
    printf '%-9s %9s %9s %9s %11s %11s %9s\n' bytes C JOFI JOFI/C C_MB/s JOFI_MB/s JOFI/C
    for s in "${SIZES[@]}"; do
        printf '%-9s %9s %9s %9s %11s %11s %9s\n' "$s" "${CR_LAT[$s]}" "${JR_LAT[$s]}" "$(ratio "${JR_LAT[$s]}" "${CR_LAT[$s]}")" \
            "${CR_BW[$s]}" "${JR_BW[$s]}" "$(ratio "${JR_BW[$s]}" "${CR_BW[$s]}")"
    done
fi
if [[ "$MIXED" == 1 ]]; then
    echo
    echo "mixed pairs: fabtests 1.17 fi_msg_pingpong/fi_rdm_pingpong (C) against ./jofi pingpong (JOFI), -c spin;"
    echo "one-way usec/xfer; cj = C server with a JOFI client, jc = JOFI server with a C client, jj = JOFI<->JOFI in the"
    echo "same choreography; ratios against C<->C (target: cj/cc and jc/cc at most 1.1)"
    printf '%-4s %-9s %9s %9s %9s %11s %9s %9s %9s\n' ep bytes 'C<->C' Csrv/Jcli Jsrv/Ccli 'JOFI<->JOFI' cj/cc jc/cc jj/cc
    for ep in msg rdm; do
        for s in "${SIZES[@]}"; do
            cc="${MX[$ep:cc:$s]:-}"; cj="${MX[$ep:cj:$s]:-}"; jc="${MX[$ep:jc:$s]:-}"; jj="${MX[$ep:jj:$s]:-}"
            printf '%-4s %-9s %9s %9s %9s %11s %9s %9s %9s\n' "$ep" "$s" "$cc" "$cj" "$jc" "$jj" "$(ratio "$cj" "$cc")" \
                "$(ratio "$jc" "$cc")" "$(ratio "$jj" "$cc")"
        done
    done
fi
echo
echo "streamed message rate, k messages/s (1000 / usec per message of the bw runs)"
printf '%-9s %9s %9s %9s %11s %11s\n' bytes C rawNIO JOFI JOFI/C JOFI/raw
for s in "${SIZES[@]}"; do
    k() { awk -v u="$1" 'BEGIN { if (u > 0) printf "%.0f", 1000 / u; else print "-" }'; }
    c=$(k "${C_RATE[$s]}"); r=$(k "${RAW_RATE[$s]}"); j=$(k "${J_RATE[$s]}")
    printf '%-9s %9s %9s %9s %11s %11s\n' "$s" "$c" "$r" "$j" "$(ratio "$j" "$c")" "$(ratio "$j" "$r")"
done
