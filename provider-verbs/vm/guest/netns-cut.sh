#!/bin/bash
# The link-cut stage, run in the guest by provider-verbs/vm/netns-cut (cwd /jofi/in, staged there:
# run-tests.sh's class path). Two network namespaces ("hosts") joined by a veth pair, 198.18.1.1
# and .2, a soft-iWARP device at each end, and CutCheckChild (provider-verbs test classes) on each
# side running the scenarios one after another while this script cuts the link (the server's end,
# cx0, set down) and brings it back:
#   msg-stream   64 KiB MSG RMA writes, the link cut mid-stream: when each side learns of it
#   rdm-stream   64 KiB sends over RDM, the same; the link back: the client's sends resume on the
#                same endpoint
#   msg-idle     an idle MSG connection across a cut of LIMIT_S s: what each side sees
#   msg-connect  a MSG connect while the peer's end is down: the EQ's error and its time
# Prints each side's marks as they come, the cut-to-error times and each side's log; exit 0 when every bound held:
# the side with data in flight sees an error completion within BOUND_S s of the cut (default 20),
# every operation posted completes (success or error entry: pending=0), RDM traffic resumes on
# the same endpoint once the link is back, the connect fails within BOUND_S s, and a side of an
# idle connection that saw nothing carries a message after the link came back or gets FI_SHUTDOWN.
# TCP_RETRIES2 (default 4): net.ipv4.tcp_retries2 of both namespaces, which bounds how long
# siw's kernel TCP socket retransmits unacknowledged data (4: ~6 s, ended at the retransmission
# timer's next firing; the kernel's default 15 is ~15 minutes: provider-verbs/README.md,
# "Failure model"); `kernel` leaves the default.
# LIMIT_S (default 40): how long a side waits for news of the cut before it says "unseen".
set -uo pipefail
cd "$(dirname "$0")"
A=jofi-cut-a B=jofi-cut-b
BOUND_S="${BOUND_S:-20}" LIMIT_S="${LIMIT_S:-40}" TCP_RETRIES2="${TCP_RETRIES2:-4}"
SCENARIOS=(${SCENARIOS:-msg-stream rdm-stream msg-idle msg-connect})
DIR="${JOFI_VM_OUT:-/tmp}/cut"
say() { echo "netns-cut: $*"; }
now_ms() { date +%s%3N; }
cleanup() {
    for ns in $A $B; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    done
    for d in cuta cutb; do rdma link delete $d 2>/dev/null; done
    ip netns del $A 2>/dev/null
    ip netns del $B 2>/dev/null
}
trap cleanup EXIT
cleanup
rm -rf "$DIR"
mkdir -p "$DIR"
eval "$(grep '^cp=' run-tests.sh)" || { say "FAILED: no class path in run-tests.sh"; exit 1; }
[[ "${JOFI_VM_DEVICE:-}" == siw* ]] || { say "SKIPPED: no soft-iWARP guest (run with --siw; rxe cannot carry traffic between namespaces on $(uname -r))"; exit 0; }
ip netns add $A && ip netns add $B || { say "FAILED: ip netns add"; exit 1; }
ip -n $A link set lo up
ip -n $B link set lo up
ip link add cx0 netns $A type veth peer name cx1 netns $B || { say "FAILED: the veth pair"; exit 1; }
ip -n $A addr add 198.18.1.1/24 dev cx0
ip -n $B addr add 198.18.1.2/24 dev cx1
ip -n $A link set cx0 up
ip -n $B link set cx1 up
if [[ $TCP_RETRIES2 != kernel ]]; then
    ip netns exec $A sysctl -q -w net.ipv4.tcp_retries2="$TCP_RETRIES2" || { say "FAILED: tcp_retries2 in $A"; exit 1; }
    ip netns exec $B sysctl -q -w net.ipv4.tcp_retries2="$TCP_RETRIES2" || { say "FAILED: tcp_retries2 in $B"; exit 1; }
fi
modprobe siw 2>/dev/null && ip netns exec $A rdma link add cuta type siw netdev cx0 \
    && ip netns exec $B rdma link add cutb type siw netdev cx1 || { say "FAILED: no siw device on the veth ends"; exit 1; }
for d in cuta cutb; do
    for _ in $(seq 100); do grep -q ACTIVE "/sys/class/infiniband/$d/ports/1/state" 2>/dev/null && break; sleep 0.1; done
done
for _ in $(seq 50); do ip netns exec $B ping -c 1 -W 1 198.18.1.1 >/dev/null 2>&1 && break; sleep 0.2; done
say "$A cx0 198.18.1.1 cuta <-> $B cx1 198.18.1.2 cutb; tcp_retries2 $(ip netns exec $A sysctl -n net.ipv4.tcp_retries2)" \
    "(tcp_syn_retries $(ip netns exec $A sysctl -n net.ipv4.tcp_syn_retries)); bound ${BOUND_S} s, a side's limit ${LIMIT_S} s"

SLOG="$DIR/server.log" CLOG="$DIR/client.log"
java_side() { # NS DEVICE LOG ROLE: CutCheckChild in NS on DEVICE, output to LOG, in the background
    local ns="$1" device="$2" log="$3" role="$4"
    ip netns exec "$ns" timeout -k 5 1200 java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
        -Dcutcheck.limit="$LIMIT_S" -Djofi.verbs.device="$device" -cp "$cp" \
        io.jofi.provider.verbs.netns.CutCheckChild "$role" 198.18.1.1 7600 "$DIR" "${SCENARIOS[@]}" >"$log" 2>&1 </dev/null &
}
# await SECONDS LOG PATTERN...: until LOG has a line matching each pattern; 1 when time ran out
await() {
    local limit=$1 log=$2 p
    shift 2
    for ((i = 0; i < limit * 5; i++)); do
        for p in "$@"; do grep -qE "$p" "$log" 2>/dev/null || { sleep 0.2; continue 2; }; done
        return 0
    done
    return 1
}
both() { # SECONDS PATTERN: both sides' logs have a line matching it
    await "$1" "$SLOG" "$2" && await "$1" "$CLOG" "$2"
}
cut_link() { local t; t=$(now_ms); ip -n $A link set cx0 down; echo "$t" >"$DIR/$1.cut"; echo "$t"; }
up() {
    ip -n $A link set cx0 up
    for _ in $(seq 50); do ip netns exec $B ping -c 1 -W 1 198.18.1.1 >/dev/null 2>&1 && break; sleep 0.2; done
    now_ms >"$DIR/$1.up"
}
failed=0
fail() { say "FAIL $*"; failed=1; }
# ms LOG SCENARIO EVENT: the epoch ms of that side's first EVENT line, empty if none
ms() { grep -m1 -E "^@ $2 $3 " "$1" | awk '{print $4}'; }
line() { grep -m1 -E "^@ $2 $3 " "$1" | cut -d' ' -f6-; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (a - b) / 1000 }'; }
# report SCENARIO CUT-MS SIDE LOG: prints the side's first news of the cut; news = its whole
# seconds after the cut, -1 when none
report() {
    local s=$1 cut=$2 side=$3 log=$4 e sh un first
    e=$(ms "$log" "$s" error) sh=$(ms "$log" "$s" shutdown) un=$(ms "$log" "$s" unseen)
    first=$e
    [[ -n $sh && ( -z $first || $sh -lt $first ) ]] && first=$sh
    if [[ -n $first ]]; then
        local es="none" shs="none"
        [[ -n $e ]] && es="$(secs "$e" "$cut") s, $(line "$log" "$s" error)"
        [[ -n $sh ]] && shs="$(secs "$sh" "$cut") s"
        say "$s $side: news of the cut after $(secs "$first" "$cut") s (error entry: $es; FI_SHUTDOWN: $shs)"
        news=$(( (first - cut) / 1000 ))
    else
        say "$s $side: no news of the cut${un:+ within ${LIMIT_S} s (unseen)}"
        news=-1
    fi
}
drained() { # SCENARIO: both sides' drained lines show pending=0
    local s=$1 side log d
    for side in server client; do
        log=$SLOG; [[ $side == client ]] && log=$CLOG
        d=$(line "$log" "$s" drained)
        say "$s $side: ${d:-no drained line}"
        [[ $d == *pending=0* ]] || fail "$s $side: operations posted but never completed ($d)"
    done
}

t0=$SECONDS
: >"$SLOG"
: >"$CLOG"
# each side's marks as they come, with the script's seconds: the run's timeline on the console
tail -F -n +1 "$SLOG" "$CLOG" 2>/dev/null | grep --line-buffered -E '^(@|FAIL|==>)' &
tailpid=$!
java_side $A cuta "$SLOG" server
spid=$!
java_side $B cutb "$CLOG" client
cpid=$!
for s in "${SCENARIOS[@]}"; do
    ts=$SECONDS
    case $s in
        msg-stream|rdm-stream)
            both 400 "^@ $s streaming " || { fail "$s: the stream did not start"; break; }
            sleep 2
            c=$(cut_link "$s")
            both $((LIMIT_S + 60)) "^@ $s drained " || fail "$s: a side did not drain within $((LIMIT_S + 60)) s of the cut"
            up "$s"
            report "$s" "$c" server "$SLOG"
            report "$s" "$c" client "$CLOG"
            # the client has data in flight: its error is the bound that must hold
            ((news >= 0 && news <= BOUND_S)) || fail "$s: the sending side's news of the cut not within ${BOUND_S} s"
            drained "$s"
            if [[ $s == rdm-stream ]]; then
                if both 200 "^@ $s resumed "; then
                    say "$s: $(line "$CLOG" "$s" resent); $(line "$CLOG" "$s" resumed); $(line "$SLOG" "$s" resumed)"
                else
                    fail "$s: RDM traffic did not resume within 200 s of the link's return"
                fi
            fi
            ;;
        msg-idle)
            both 400 "^@ $s idle " || { fail "$s: the connection was not made"; break; }
            sleep 1
            c=$(cut_link "$s")
            both $((LIMIT_S + 30)) "^@ $s (unseen|error|shutdown) " || fail "$s: a side said nothing within $((LIMIT_S + 30)) s"
            up "$s"
            report "$s" "$c" server "$SLOG"
            report "$s" "$c" client "$CLOG"
            both 200 "^@ $s drained " || fail "$s: a side did not drain"
            # a side that saw nothing while idle either carries a message afterwards or, the
            # other side having ended the connection, gets its FI_SHUTDOWN then: never silence
            for side in "$SLOG" "$CLOG"; do
                if grep -qE "^@ $s unseen " "$side" && ! grep -qE "^@ $s (survived|shutdown) " "$side"; then
                    fail "$s: a side saw nothing, and after the link came back neither carried a message nor got FI_SHUTDOWN"
                fi
            done
            grep -hE "^@ $s (survived|broken) " "$SLOG" "$CLOG" | sed "s/^/netns-cut: /"
            drained "$s"
            ;;
        msg-connect)
            await 400 "$SLOG" "^@ $s listening " || { fail "$s: the server did not listen"; break; }
            c=$(cut_link "$s")
            if await 330 "$CLOG" "^@ $s connect-failed "; then
                f=$(ms "$CLOG" "$s" connect-failed)
                say "$s: $(line "$CLOG" "$s" connect-failed)"
                (( (f - c) / 1000 <= BOUND_S )) || fail "$s: the connect failed only $(( (f - c) / 1000 )) s after the cut (bound ${BOUND_S} s)"
            else
                fail "$s: the connect into the down link did not fail within 330 s"
            fi
            up "$s"
            ;;
        *) fail "unknown scenario $s"; break ;;
    esac
    say "$s: $((SECONDS - ts)) s"
done
for _ in $(seq 30); do kill -0 $spid 2>/dev/null || kill -0 $cpid 2>/dev/null || break; sleep 1; done
kill $spid $cpid 2>/dev/null
wait $spid $cpid 2>/dev/null
kill $tailpid 2>/dev/null
echo "--- server"; cat "$SLOG"
echo "--- client"; cat "$CLOG"
grep -q '^FAIL ' "$SLOG" "$CLOG" && fail "a side failed (its log above)"
say "$( ((failed)) && echo FAILED || echo PASSED ) in $((SECONDS - t0)) s (${SCENARIOS[*]})"
exit $failed
