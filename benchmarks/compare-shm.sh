#!/usr/bin/env bash
# compare-shm.sh — one run comparing, on this host, at 64 B, 4 KiB, 64 KiB and 1 MiB:
#   C      libfabric's fi_pingpong -p shm -e rdm (libfabric-bin; the two processes exchange
#          their shm names over fi_pingpong's own control socket, port C_PORT)
#   Cbw    the project's C peer (provider-tcp/src/test/c/jofi_peer.c, compiled here against
#          Debian's libfabric) playing fabtests' bw choreography over libfabric's shm RDM, C to C
#          (-I messages, a window of 64, an ack per window: what ./jofi bw plays)
#   raw    io.jofi.benchmarks.RawMappedPingPong ping/pong: two JVMs spinning on sequence words
#          of one mapped file in /dev/shm, copying the payload in and out (the physical limit);
#          rawp50: its median iteration (each iteration reads the clock once, as JOFI's do)
#   rawbw  the same class's stream/sink: a one-way SPSC ring of 64 slots in the mapped file
#          (the streaming limit a bandwidth test with a window is measured against)
#   api    io.jofi.benchmarks.ShmApiPingPong: the shm provider through the public API in two
#          plain JVMs (no container; names exchanged through files), manual progress, spin
#   JOFI   ./jofi pingpong -p shm -e rdm -c spin (fabtests' choreography over shm RDM), after
#          --jit-warmup JIT_WARMUP messages over a private pair in its own JVM and untimed
#          rounds on the measured connection (-w: as many as timed ones, at least JIT_WARMUP;
#          C needs no warm-up); JOFIp50: its median iteration (-v), which one scheduling hiccup of a shared
#          machine does not move as it moves the mean of 100 iterations
# one-way latency (usec/xfer = half the round trip) with the ratios of api and JOFI to C and
# raw, then
# streamed bandwidth (MB/s: Cbw, rawbw and JOFIbw = ./jofi bw -p shm -e rdm, the same -I, a
# window of 64, the same untimed messages) and the message rates (M/s: Mxfers/sec of each;
# ping-pong and streamed apart).
# Every figure is run RUNS times: the median is printed with [min-max]. Two spinning
# processes on a 2-core machine shared with other work are fragile: by default each side is
# pinned to its own core with taskset (PIN=0 turns that off), and the load average is printed.
# Until the container has the shm provider (or when a JOFI run fails) the JOFI cells say
# "n/a" and why; the C and raw rows are printed regardless.
# WAIT=sread: the ping-pong rows with blocking waits on both sides — C is fabtests'
#   fi_rdm_pingpong -p shm -c sread (FABTESTS, default /opt/fabtests-1.17/bin), JOFI
#   ./jofi pingpong -c sread (an UNSPEC wait object, auto progress); raw and api have no blocking
#   mode and are left out, and the bw rows stay busy-polling (the C peer has no sread mode).
#   fabtests 1.17 against Debian's libfabric finds no shm interface (it asks an inject size of
#   4096, that shm offers 0): C then says "no result row"; FABTESTS names a matching build.
# Benchmarks, not tests: figures depend on the machine and its load.
#
#   benchmarks/compare-shm.sh        (builds the container and benchmarks.jar if needed)
# Environment: SIZES (default "64 4096 65536 1048576"), RUNS (default 5), JIT_WARMUP (default 20000), ITERS (override the ping-pong iterations of every size),
#   STREAM_BYTES / STREAM_MAX_MESSAGES (a bw run's length: default 2 GiB, at most 1 M messages;
#   benchmarks/stream-length.sh), PIN (1/0),
#   C_PORT (fi_pingpong's control port, default 47692), PORT (JOFI's -B/-P, default 9238),
#   SHM_DIR (raw baseline's directory, default /dev/shm), JAVA,
#   JOFI_JAVA_OPTS (JVM options of the ./jofi runs, e.g. -Djofi.shm.cmaThreshold=0 or
#   -XX:+PrintCompilation; ./jofi --percentiles says at which JVM uptime the timed iterations start),
#   NICE (e.g. -20: run every measured process at that nice level; root for negative values.
#   With the kernel's autogroup scheduling on — /proc/sys/kernel/sched_autogroup_enabled —
#   nice only ranks processes of this session against each other, so it does not win the
#   cores back from other sessions' builds),
#   JOFI_SHM_SERVER / JOFI_SHM_CLIENT (extra arguments of the JOFI server / client: how the
#   server names its endpoint and the client finds it; default: nothing for the server, whose
#   "-B PORT" names its endpoint fi_shm://svc-PORT, and SERVER "localhost" for the client,
#   whose "-P PORT" addresses that name — shm has no port and no out-of-band exchange, so the
#   endpoint name is the rendezvous (provider-shm/README.md, "Node and service"); an explicit
#   name works too: JOFI_SHM_SERVER="-s fi_shm://NAME" JOFI_SHM_CLIENT="fi_shm://NAME").
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HOME_DIR"
. benchmarks/stream-length.sh             # stream_messages: how many messages a bw run moves
read -r -a SIZES <<<"${SIZES:-64 4096 65536 1048576}"
RUNS="${RUNS:-5}"
PORT="${PORT:-9238}"
C_PORT="${C_PORT:-47692}"
SHM_DIR="${SHM_DIR:-/dev/shm}"
JAVA="${JAVA:-java}"
JOFI_SHM_SERVER="${JOFI_SHM_SERVER-}"
JOFI_SHM_CLIENT="${JOFI_SHM_CLIENT:-localhost}"
JIT_WARMUP="${JIT_WARMUP:-20000}"
TMP="$(mktemp -d /tmp/compare-shm.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT

command -v fi_pingpong >/dev/null || { echo "compare-shm: fi_pingpong missing (apt-get install -y libfabric-bin)" >&2; exit 1; }
[[ -f benchmarks/target/benchmarks.jar ]] || mvn -B -q -pl benchmarks -am package -DskipTests >&2
PEER=benchmarks/target/jofi_peer
PEER_SOURCE=provider-tcp/src/test/c/jofi_peer.c
if [[ ! -x "$PEER" || "$PEER_SOURCE" -nt "$PEER" ]]; then
    gcc -O2 -Wall -o "$PEER" "$PEER_SOURCE" -lfabric \
        || { echo "compare-shm: cannot build the C peer (apt-get install -y libfabric-dev gcc)" >&2; exit 1; }
fi
./jofi help >/dev/null                      # builds the container when it is out of date
./jofi info -l >/dev/null                   # (the build happens on the first command)
export JOFI_NO_BUILD=1

# Pinning: the server side on the last core, the client on the first.
SRV_PIN="" CLI_PIN=""
if [[ "${PIN:-1}" != 0 ]] && command -v taskset >/dev/null && (( $(nproc) >= 2 )); then
    SRV_PIN="taskset -c $(( $(nproc) - 1 ))"
    CLI_PIN="taskset -c 0"
fi

if [[ -n "${NICE:-}" ]]; then
    SRV_PIN="nice -n $NICE $SRV_PIN"
    CLI_PIN="nice -n $NICE $CLI_PIN"
fi

# Is the JOFI shm provider there? Else every JOFI cell says why not.
JOFI_NA="" NOTES=()
if ! ./jofi info -p shm -t rdm >"$TMP/info" 2>&1; then
    JOFI_NA="n/a (no shm in ./jofi)"
    NOTES+=("JOFI: './jofi info -p shm -t rdm' fails: $(tail -n 1 "$TMP/info")")
fi

# fabtests' default iterations per size
iters() {
    local s=$1
    if [[ -n "${ITERS:-}" ]]; then echo "$ITERS"
    elif (( s >= 1048576 )); then echo 100
    elif (( s >= 65536 )); then echo 1000
    else echo 10000; fi
}

# "usec MBps Mxfers" of the last data row of a fabtests table (fi_pingpong has 8 columns:
# #sent #ack where the others have iters), or of the last '-m' (YAML) line of ./jofi.
row() {
    awk '$1 ~ /^[0-9]/ && NF == 7 { m = $5; u = $6; x = $7 }
         $1 ~ /^[0-9]/ && NF == 8 { m = $6; u = $7; x = $8 }
         /xfer_size:/ { for (i = 1; i <= NF; i++) { f = $i; v = $(i + 1); sub(/,$/, "", v); sub(/}$/, "", v)
                            if (f == "MB/sec:") m = v; if (f == "usec/xfer:") u = v; if (f == "Mxfers/sec:") x = v } }
         END { if (u == "") exit 1; print u, m, x }'
}

# Runs a server in the background and a client (retried while the server boots); prints the
# client's output. Fails (with the last line of the failing side on stderr) when either fails.
# The server runs in its own session so that a server left waiting (its client failed) is
# ended with everything it started (./jofi is a script running java).
pair() {
    local server_cmd=$1 client_cmd=$2 status=1 tries
    setsid bash -c "exec $server_cmd" >"$TMP/server" 2>&1 &
    local spid=$!
    for tries in 1 2 3 4 5 6 7 8 9 10; do
        sleep 0.5
        if bash -c "$client_cmd" >"$TMP/client" 2>&1; then status=0; break; fi
        kill -0 "$spid" 2>/dev/null || break
    done
    if (( status != 0 )); then
        kill -- "-$spid" 2>/dev/null || true
        wait "$spid" 2>/dev/null || true
        if grep -q . "$TMP/client"; then tail -n 1 "$TMP/client" >&2; else tail -n 1 "$TMP/server" >&2; fi
        return 1
    fi
    if ! wait "$spid"; then
        tail -n 1 "$TMP/server" >&2
        return 1
    fi
    cat "$TMP/client"
}

# stats V1 V2 ...: "median [min-max]" (empty args: nothing)
stats() {
    (( $# > 0 )) || return 0
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
        med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%s [%s-%s]", fmt(med), fmt(v[1]), fmt(v[NR]) }
        function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : x >= 10 ? sprintf("%.1f", x) : sprintf("%.3g", x) }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b; else print "-" }'; }

# Results: one line "tool size usec MBps Mxfers" per successful run; failures noted once.
RESULTS="$TMP/results"
: >"$RESULTS"
declare -A WHY
record() { # tool size -- reads the run's output on stdin
    local tool=$1 s=$2 r
    if r="$(row)"; then echo "$tool $s $r" >>"$RESULTS"; else WHY[$tool]="${WHY[$tool]:-no result row}"; fi
}
fail() { # TOOL: the first failure of TOOL is its reason; later runs of TOOL are skipped
    WHY[$1]="n/a (failed, note)"
    NOTES+=("$1 failed: $(tail -n 1 "$TMP/err")")
}

WAIT="${WAIT:-spin}"
C_PP="fi_pingpong -p shm -e rdm -B $C_PORT"
C_PP_CLIENT="fi_pingpong -p shm -e rdm -P $C_PORT"
if [[ "$WAIT" == sread ]]; then
    FABTESTS="${FABTESTS:-/opt/fabtests-1.17/bin}"
    [[ -x "$FABTESTS/fi_rdm_pingpong" ]] || { echo "compare-shm: WAIT=sread needs fabtests in FABTESTS ($FABTESTS)" >&2; exit 1; }
    C_PP="$FABTESTS/fi_rdm_pingpong -p shm -c sread -B $C_PORT"
    C_PP_CLIENT="$FABTESTS/fi_rdm_pingpong -p shm -c sread -P $C_PORT"
    WHY[raw]="- (no blocking mode)"; WHY[api]="- (no blocking mode)"
elif [[ "$WAIT" != spin ]]; then
    echo "compare-shm: WAIT is spin or sread, not '$WAIT'" >&2; exit 2
fi

LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
for s in "${SIZES[@]}"; do
    n=$(iters "$s")
    # bw: windows of 64 (./jofi bw's -I counts messages, as fi_msg_bw's), m messages a stream
    # (benchmarks/stream-length.sh: 2 GiB, at most 1 M messages)
    m=$(stream_messages "$s" $(( 2 << 30 )) 1048576)
    for run in $(seq 1 "$RUNS"); do
        echo "size $s, $n iterations, run $run/$RUNS (load $(cut -d' ' -f1 /proc/loadavg))..." >&2
        if out="$(pair "$SRV_PIN $C_PP -S $s -I $n" \
                "$CLI_PIN $C_PP_CLIENT -S $s -I $n 127.0.0.1" 2>"$TMP/err")"; then
            record C "$s" <<<"$out"
        else fail C; fi
        if out="$(pair "$SRV_PIN $PEER bw -p shm -e rdm -S $s -I $m -W 64 -w $m -s jofi-cbw-$$" \
                "$CLI_PIN $PEER bw -p shm -e rdm -S $s -I $m -W 64 -w $m jofi-cbw-$$" 2>"$TMP/err")"; then
            record Cbw "$s" <<<"$out"
        else fail Cbw; fi
        f="$SHM_DIR/jofi-rawpp-$$-$s-$run"
        raw="$JAVA -cp benchmarks/target/benchmarks.jar io.jofi.benchmarks.RawMappedPingPong"
        if [[ -n "${WHY[raw]:-}" ]]; then :
        elif out="$(pair "$SRV_PIN $raw pong $f $s $n $n" "$CLI_PIN $raw ping $f $s $n $n" 2>"$TMP/err")"; then
            record raw "$s" <<<"$out"
            p50="$(awk '$2 == "lat" && $3 == "p50" { print $4 }' <<<"$out")"
            [[ -n "$p50" ]] && echo "rawp50 $s $p50 0 0" >>"$RESULTS"
        else fail raw; fi
        rm -f "$f"
        if out="$(pair "$SRV_PIN $raw sink $f $s $m $m" \
                "$CLI_PIN $raw stream $f $s $m $m" 2>"$TMP/err")"; then
            record rawbw "$s" <<<"$out"
        else fail rawbw; fi
        rm -f "$f"
        # The JVMs' untimed rounds on the measured connection: as many as timed ones, at least
        # JIT_WARMUP (as ./jofi's JIT warm-up): with fewer (2000, or fabtests' 10000 at 64 B) C2
        # compiled the data path (push, claim, finishRecv) during the timed rounds (PrintCompilation);
        # at 64 KiB and 1 MiB (1000 and 100 timed rounds) ./jofi's cross-process path (CMA) was
        # still compiling inside them: its private warm-up pair does not take every branch of it.
        w=$(( n > JIT_WARMUP ? n : JIT_WARMUP ))
        if [[ -z "${WHY[api]:-}" ]]; then   # a failed tool is not retried every run
            f="$TMP/api-$s-$run"
            api="$JAVA -cp benchmarks/target/benchmarks.jar io.jofi.benchmarks.ShmApiPingPong"
            if out="$(pair "$SRV_PIN $api pong $f $s $n $w" "$CLI_PIN $api ping $f $s $n $w" 2>"$TMP/err")"; then
                record api "$s" <<<"$out"
            else fail api; fi
        fi
        if [[ -z "$JOFI_NA" && -z "${WHY[JOFI]:-}" ]]; then
            if out="$(pair "$SRV_PIN ./jofi pingpong -p shm -e rdm -c $WAIT -m -S $s -I $n -w $w --jit-warmup $JIT_WARMUP -B $PORT $JOFI_SHM_SERVER" \
                    "$CLI_PIN ./jofi pingpong -p shm -e rdm -c $WAIT -m --percentiles -S $s -I $n -w $w --jit-warmup $JIT_WARMUP -P $PORT $JOFI_SHM_CLIENT" 2>"$TMP/err")"; then
                record JOFI "$s" <<<"$out"
                p50="$(awk '/p50_usec:/ { for (i = 1; i < NF; i++) if ($i == "p50_usec:") { v = $(i + 1); sub(/,$/, "", v); print v } }' <<<"$out")"
                [[ -n "$p50" ]] && echo "JOFIp50 $s $p50 0 0" >>"$RESULTS"
            else fail JOFI; fi
        fi
        if [[ -z "$JOFI_NA" && -z "${WHY[JOFIbw]:-}" ]]; then
            if out="$(pair "$SRV_PIN ./jofi bw -p shm -e rdm -c spin -m -S $s -I $m -w $m --jit-warmup $JIT_WARMUP -B $PORT $JOFI_SHM_SERVER" \
                    "$CLI_PIN ./jofi bw -p shm -e rdm -c spin -m -S $s -I $m -w $m --jit-warmup $JIT_WARMUP -P $PORT $JOFI_SHM_CLIENT" 2>"$TMP/err")"; then
                record JOFIbw "$s" <<<"$out"
            else fail JOFIbw; fi
        fi
    done
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
[[ -n "$JOFI_NA" ]] && WHY[JOFI]="$JOFI_NA" && WHY[JOFIbw]="$JOFI_NA"

# values TOOL SIZE COLUMN (3 usec, 4 MBps, 5 Mxfers)
values() { awk -v t="$1" -v s="$2" -v c="$3" '$1 == t && $2 == s { print $c }' "$RESULTS"; }
cell() { # TOOL SIZE COLUMN
    local v
    mapfile -t v < <(values "$1" "$2" "$3")
    if (( ${#v[@]} > 0 )); then stats "${v[@]}"; else echo "${WHY[$1]:-n/a (no run)}"; fi
}
med() { local v; mapfile -t v < <(values "$1" "$2" "$3"); (( ${#v[@]} > 0 )) && median "${v[@]}" || true; }

echo
if [[ "$SRV_PIN" == *taskset* ]]; then pinned="pinned (server: cpu ${SRV_PIN##*taskset -c }, client: cpu ${CLI_PIN##*taskset -c })"
else pinned="not pinned"; fi
[[ -n "${NICE:-}" ]] && pinned="$pinned, nice $NICE"
echo "shm on $(hostname), $(date -u '+%F %H:%M') UTC, $(nproc) cores, $pinned, ping-pong wait: $WAIT"
echo "load average before: $LOAD_BEFORE, after: $LOAD_AFTER; $RUNS runs each: median [min-max]"
echo
echo "latency, one-way usec/xfer (half the round trip)"
printf '%-8s %-21s %-21s %-21s %-21s %-21s %-21s %6s %7s %6s %8s %9s %12s\n' bytes C raw api JOFI rawp50 JOFIp50 \
    api/C api/raw JOFI/C JOFI/raw JOFIp50/C JOFIp50/raw
for s in "${SIZES[@]}"; do
    printf '%-8s %-21s %-21s %-21s %-21s %-21s %-21s %6s %7s %6s %8s %9s %12s\n' "$s" "$(cell C "$s" 3)" "$(cell raw "$s" 3)" \
        "$(cell api "$s" 3)" "$(cell JOFI "$s" 3)" "$(cell rawp50 "$s" 3)" "$(cell JOFIp50 "$s" 3)" \
        "$(ratio "$(med api "$s" 3)" "$(med C "$s" 3)")" "$(ratio "$(med api "$s" 3)" "$(med raw "$s" 3)")" \
        "$(ratio "$(med JOFI "$s" 3)" "$(med C "$s" 3)")" "$(ratio "$(med JOFI "$s" 3)" "$(med raw "$s" 3)")" \
        "$(ratio "$(med JOFIp50 "$s" 3)" "$(med C "$s" 3)")" "$(ratio "$(med JOFIp50 "$s" 3)" "$(med rawp50 "$s" 3)")"
done
echo
echo "streamed bandwidth, MB/s (fabtests' bw choreography: Cbw C to C, JOFIbw ./jofi bw, window 64; rawbw: raw stream, 64 slots)"
printf '%-8s %-22s %-22s %-22s %8s %11s\n' bytes Cbw rawbw JOFIbw JOFI/C JOFI/rawbw
for s in "${SIZES[@]}"; do
    printf '%-8s %-22s %-22s %-22s %8s %11s\n' "$s" "$(cell Cbw "$s" 4)" "$(cell rawbw "$s" 4)" "$(cell JOFIbw "$s" 4)" \
        "$(ratio "$(med JOFIbw "$s" 4)" "$(med Cbw "$s" 4)")" "$(ratio "$(med JOFIbw "$s" 4)" "$(med rawbw "$s" 4)")"
done
echo
echo "message rate, M messages/s (Mxfers/sec): streamed (Cbw, rawbw, JOFIbw) and ping-pong (C, raw, api, JOFI)"
printf '%-8s %-22s %-22s %-22s %8s %11s\n' bytes Cbw rawbw JOFIbw JOFI/C JOFI/rawbw
for s in "${SIZES[@]}"; do
    printf '%-8s %-22s %-22s %-22s %8s %11s\n' "$s" "$(cell Cbw "$s" 5)" "$(cell rawbw "$s" 5)" "$(cell JOFIbw "$s" 5)" \
        "$(ratio "$(med JOFIbw "$s" 5)" "$(med Cbw "$s" 5)")" "$(ratio "$(med JOFIbw "$s" 5)" "$(med rawbw "$s" 5)")"
done
for t in C raw api JOFI; do
    printf '  ping-pong 64 B %-5s %s\n' "$t" "$(cell "$t" 64 5)"
done
if (( ${#NOTES[@]} > 0 )); then
    echo
    printf 'note: %s\n' "${NOTES[@]}" | awk '!seen[$0]++'  # each once, in order
fi
