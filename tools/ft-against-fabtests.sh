#!/usr/bin/env bash
# ft-against-fabtests.sh — every program of docs/FABTESTS.md's table, each variant, against the installed
# fabtests 1.17 C programs in both roles, and JOFI to JOFI over tcp and shm:
#
#   MSG programs (-e msg):  C server / ./jofi ft client, ./jofi ft server / C client   (libfabric's tcp)
#                           ./jofi ft to ./jofi ft over tcp
#   RDM programs (-e rdm):  the same two C pairs over libfabric's tcp;ofi_rxm (-p tcp -e rdm), JOFI to JOFI
#                           over tcp and over shm
#
# Each pair: the server first; the client once the server listens (its out-of-band port where the program
# uses one, else its fabric port in /proc/net/tcp; over shm the link to its endpoint's region), as runfabtests.sh
# with the client's -s; both processes bounded by PAIR_TIMEOUT (and the JOFI side's --timeout). One line per
# pair (PASS/FAIL, the exit statuses, seconds), a summary; exit status 1 on any FAIL, 0 otherwise.
# The logs of every pair stay in LOG_DIR.
#
# NETNS=1: instead, the perf programs (fi_msg_pingpong, fi_msg_bw, fi_rma_bw -o write|read|writedata,
# fi_rdm_pingpong, fi_rdm_tagged_bw against ./jofi pingpong|bw|rma_bw) in both roles across a veth between
# two network namespaces (provider-tcp/netns/netns-lib.sh: 198.18.200.1 and .2, removed on exit); root needed.
#
# Settings (environment):
#   FABTESTS_BIN   the fabtests programs (default /opt/fabtests-1.17/bin); absent: skip with a message, exit 0
#   JOFI           the jofi command (default: ./jofi of this checkout; JOFI_NO_BUILD=1 as ./jofi reads it)
#   ONLY           an extended regular expression: only the variants it matches (e.g. ONLY='fi_rdm( |$)')
#   ROLES          which pairs (default 'c-server jofi-server jofi-tcp jofi-shm'; NETNS=1: the first two)
#   BASE_PORT      the first port used (default 23400; two per pair, counting up)
#   PAIR_TIMEOUT   seconds a process of a pair may run (default 120); JOFI_TIMEOUT: ./jofi ft's --timeout (60)
#   LOG_DIR        where the pairs' output goes (default: a new /tmp/ft-against-fabtests.XXXXXX)
#   NETNS, NETNS_MTU (default 1500), PERF_ITERS (NETNS=1: -I of the perf programs, default 100)
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
FABTESTS_BIN="${FABTESTS_BIN:-/opt/fabtests-1.17/bin}"
JOFI="${JOFI:-./jofi}"
ONLY="${ONLY:-}"
PORT="${BASE_PORT:-23400}"
PAIR_TIMEOUT="${PAIR_TIMEOUT:-120}"
JOFI_TIMEOUT="${JOFI_TIMEOUT:-60}"
NETNS="${NETNS:-0}"

if [[ ! -x "$FABTESTS_BIN/fi_msg" ]]; then
    echo "ft-against-fabtests: skipped: no fabtests programs in FABTESTS_BIN=$FABTESTS_BIN" \
        "(build fabtests 1.17 there, or point FABTESTS_BIN at them)"
    exit 0
fi
LOG_DIR="${LOG_DIR:-$(mktemp -d /tmp/ft-against-fabtests.XXXXXX)}"
mkdir -p "$LOG_DIR"

# The variants: endpoint kind (msg|rdm), how the program names its out-of-band port (- none, E: -E=PORT,
# b: -b=PORT; the programs that always use one get it so that the port is ours, not fabtests' 3000), what
# is left out (- nothing; jofi-only: the C program fails against itself here, see FABTESTS.md), the program
# with its options.
VARIANTS=(
    "msg - - fi_msg"
    "rdm - - fi_rdm"
    "rdm - - fi_rdm -U"
    "msg - - fi_cq_data -e msg"
    "rdm - - fi_cq_data -e rdm"
    "rdm b - fi_unexpected_msg -e rdm -I 10"
    "msg b jofi-only fi_unexpected_msg -e msg -I 10"
    "msg - - fi_cm_data"
    "msg - - fi_msg_epoll"
    "rdm - - fi_poll -t queue"
    "rdm - - fi_poll -t counter"
    "msg - - fi_msg_sockets"
    "rdm - - fi_msg_inject -N -A inject -v"
    "rdm - - fi_msg_inject -A inject -v"
    "rdm - - fi_msg_inject -A inj_complete -v"
    "rdm - - fi_msg_inject -N -A inj_complete -v"
    "rdm - - fi_rdm_tagged_peek"
    "rdm - - fi_recv_cancel -e rdm -V"
    "msg - - fi_bw -e msg -v -T 1"
    "msg - - fi_bw -e msg -v -T 1 -U"
    "rdm - - fi_bw -e rdm -v -T 1"
    "rdm - - fi_bw -e rdm -v -T 1 -U"
    "rdm - - fi_rdm_multi_client -C 10 -I 5"
    "rdm - - fi_rdm_multi_client -C 10 -I 5 -U"
    "rdm - - fi_rdm_multi_client -C 10 -I 5 -R"
    "msg E - fi_multi_ep -e msg -v"
    "rdm E - fi_multi_ep -e rdm -v"
    "rdm E - fi_av_xfer -e rdm"
    "rdm E - fi_multi_recv -e rdm -I 5"
)

# The perf programs of NETNS=1: C program with its options, the ./jofi command with its options.
PERF=(
    "fi_msg_pingpong|pingpong -e msg"
    "fi_msg_bw|bw -e msg"
    "fi_rma_bw -e msg -o write|rma_bw -e msg -o write"
    "fi_rma_bw -e msg -o read|rma_bw -e msg -o read"
    "fi_rma_bw -e msg -o writedata|rma_bw -e msg -o writedata"
    "fi_rdm_pingpong|pingpong -e rdm"
    "fi_rdm_tagged_bw|bw -e rdm --tagged"
)

PASSED=0
FAILED=0
SKIPPED=0
RESULTS=()

# listening NSCMD PORT: whether a socket is in state LISTEN (0A) on PORT, read from /proc/net/tcp{,6}
# (inside the namespace NSCMD runs in, when given).
listening() {
    local nscmd=$1 hex
    hex=$(printf ':%04X' "$2")
    $nscmd cat /proc/net/tcp /proc/net/tcp6 2>/dev/null \
        | awk -v p="$hex" '$2 ~ p"$" && $4 == "0A" { found = 1 } END { exit !found }'
}

# await_server PID KIND NSCMD WHAT: until the server listens (KIND tcp: port WHAT; shm: file WHAT exists),
# the server ended, or PAIR_TIMEOUT ran out. Polls every 20 ms; no fixed sleep.
await_server() {
    local pid=$1 kind=$2 nscmd=$3 what=$4 deadline=$((SECONDS + PAIR_TIMEOUT))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
        if [[ $kind == shm ]]; then
            [[ -e "$what" ]] && return 0
        elif listening "$nscmd" "$what"; then
            return 0
        fi
        sleep 0.02
    done
    return 1
}

# pair LABEL AWAIT_KIND AWAIT_WHAT SERVER_NS CLIENT_NS -- SERVER_CMD... -- CLIENT_CMD...
# Runs one pair, records the line.
pair() {
    local label=$1 kind=$2 what=$3 sns=$4 cns=$5
    shift 5
    local server=() client=()
    [[ $1 == -- ]] && shift
    while [[ $1 != -- ]]; do server+=("$1"); shift; done
    shift
    client=("$@")
    local n=$(( ${#RESULTS[@]} + 1 ))
    local slog="$LOG_DIR/$(printf %03d "$n")-server.log" clog="$LOG_DIR/$(printf %03d "$n")-client.log"
    local start=$SECONDS srv rc_s rc_c line
    { echo "# $label"; echo "# ${server[*]}"; } >"$slog"
    { echo "# $label"; echo "# ${client[*]}"; } >"$clog"
    # shellcheck disable=SC2086
    $sns timeout -k 5 "$PAIR_TIMEOUT" "${server[@]}" >>"$slog" 2>&1 &
    srv=$!
    if await_server "$srv" "$kind" "$sns" "$what"; then
        # shellcheck disable=SC2086
        $cns timeout -k 5 "$PAIR_TIMEOUT" "${client[@]}" >>"$clog" 2>&1
        rc_c=$?
    else
        echo "# the server did not listen on $what (ended or timed out); client not started" >>"$clog"
        rc_c=-
    fi
    wait "$srv"
    rc_s=$?
    if [[ $rc_s == 0 && $rc_c == 0 ]]; then
        PASSED=$((PASSED + 1)); line="PASS"
    else
        FAILED=$((FAILED + 1)); line="FAIL"
    fi
    line=$(printf '%s  %-50s server %3s  client %3s  %4ss  [%03d]' "$line" "$label" "$rc_s" "$rc_c" \
        $((SECONDS - start)) "$n")
    RESULTS+=("$line")
    echo "$line"
}

skip() {
    SKIPPED=$((SKIPPED + 1))
    local line
    line=$(printf 'SKIP  %-50s %s' "$1" "$2")
    RESULTS+=("$line")
    echo "$line"
}

wants_role() {
    [[ " ${ROLES} " == *" $1 "* ]]
}

functional() {
    ROLES="${ROLES:-c-server jofi-server jofi-tcp jofi-shm}"
    local v kind oob excl words program host oobport port cport oobopt prov
    for v in "${VARIANTS[@]}"; do
        read -r kind oob excl words <<<"$v"
        [[ -z "$ONLY" || "$words" =~ $ONLY ]] || continue
        program=${words%% *}
        local args=()
        read -r -a args <<<"${words#"$program"}"
        [[ $kind == msg ]] && prov="tcp" || prov="tcp;ofi_rxm"
        for role in c-server jofi-server jofi-tcp jofi-shm; do
            wants_role "$role" || continue
            port=$PORT; oobport=$((PORT + 1)); PORT=$((PORT + 2))
            oobopt=()
            [[ $oob != - ]] && oobopt=("-$oob=$oobport")
            # the port the client waits for: the out-of-band one where the program uses it
            local await=$port
            [[ $oob != - ]] && await=$oobport
            host=127.0.0.1
            local jofi_ft=("$JOFI" ft "$program" "${args[@]}" --timeout "$JOFI_TIMEOUT")
            local c_prog=("$FABTESTS_BIN/$program" "${args[@]}")
            # fi_msg_sockets' client names its own endpoint's port (its passive endpoint's socket)
            cport=$PORT; PORT=$((PORT + 1))
            local cextra=()
            [[ $program == fi_msg_sockets ]] && cextra=(-B "$cport")
            case $role in
            c-server | jofi-server)
                local label
                if [[ $role == c-server ]]; then label="$words | C server, JOFI client, $prov"
                else label="$words | JOFI server, C client, $prov"; fi
                if [[ $excl == jofi-only ]]; then
                    skip "$label" "the C program fails against itself here (FABTESTS.md)"
                    continue
                fi
                local cs=("${c_prog[@]}" -p tcp "${oobopt[@]}" -s "$host" -B "$port")
                local cc=("${c_prog[@]}" -p tcp "${oobopt[@]}" -s "$host" "${cextra[@]}" -P "$port" "$host")
                local js=("${jofi_ft[@]}" -p tcp "${oobopt[@]}" -s "$host" -B "$port")
                local jc=("${jofi_ft[@]}" -p tcp "${oobopt[@]}" -s "$host" "${cextra[@]}" -P "$port" "$host")
                if [[ $role == c-server ]]; then
                    pair "$label" tcp "$await" "" "" -- "${cs[@]}" -- "${jc[@]}"
                else
                    pair "$label" tcp "$await" "" "" -- "${js[@]}" -- "${cc[@]}"
                fi
                ;;
            jofi-tcp)
                pair "$words | JOFI to JOFI, tcp" tcp "$await" "" "" \
                    -- "${jofi_ft[@]}" -p tcp "${oobopt[@]}" -s "$host" -B "$port" \
                    -- "${jofi_ft[@]}" -p tcp "${oobopt[@]}" -s "$host" "${cextra[@]}" -P "$port" "$host"
                ;;
            jofi-shm)
                [[ $kind == rdm ]] || continue # shm has no MSG endpoint
                # shm's service S names the endpoint svc-S: the link /dev/shm/jofi-svc-S.name to its region file
                local akind=shm awhat="/dev/shm/jofi-svc-$port.name"
                [[ $oob != - ]] && { akind=tcp; awhat=$oobport; }
                pair "$words | JOFI to JOFI, shm" "$akind" "$awhat" "" "" \
                    -- "${jofi_ft[@]}" -p shm "${oobopt[@]}" -s localhost -B "$port" \
                    -- "${jofi_ft[@]}" -p shm "${oobopt[@]}" -s localhost -P "$port" localhost
                ;;
            esac
        done
    done
}

netns_perf() {
    ROLES="${ROLES:-c-server jofi-server}"
    . provider-tcp/netns/netns-lib.sh
    netns_up ft "${NETNS_MTU:-1500}" || exit 1
    local sns="ip netns exec $NS_A" cns="ip netns exec $NS_B" iters="${PERF_ITERS:-100}"
    echo "network namespaces $NS_A ($ADDR_A) and $NS_B ($ADDR_B), veth jofi0, MTU ${NETNS_MTU:-1500}"
    local p c j cargs jargs role label
    for p in "${PERF[@]}"; do
        c=${p%%|*}; j=${p#*|}
        [[ -z "$ONLY" || "$c" =~ $ONLY ]] || continue
        read -r -a cargs <<<"$c"
        read -r -a jargs <<<"$j"
        for role in c-server jofi-server; do
            wants_role "$role" || continue
            local port=$PORT
            PORT=$((PORT + 1))
            local cprog=("$FABTESTS_BIN/${cargs[0]}" "${cargs[@]:1}" -p tcp -I "$iters")
            local jcmd=(env FI_TCP_IFACE=jofi0 "$JOFI" "${jargs[@]}" -p tcp -I "$iters" --jit-warmup 0)
            if [[ $role == c-server ]]; then
                label="$c / ./jofi $j | C server, JOFI client, netns"
                pair "$label" tcp "$port" "$sns" "$cns" \
                    -- env FI_TCP_IFACE=jofi0 "${cprog[@]}" -s "$ADDR_A" -B "$port" \
                    -- "${jcmd[@]}" -P "$port" "$ADDR_A"
            else
                label="$c / ./jofi $j | JOFI server, C client, netns"
                pair "$label" tcp "$port" "$sns" "$cns" \
                    -- "${jcmd[@]}" -s "$ADDR_A" -B "$port" \
                    -- env FI_TCP_IFACE=jofi0 "${cprog[@]}" -P "$port" "$ADDR_A"
            fi
        done
    done
}

echo "ft-against-fabtests: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null)," \
    "fabtests in $FABTESTS_BIN, load average $(cut -d' ' -f1-3 /proc/loadavg), logs in $LOG_DIR"
if [[ $NETNS == 1 ]]; then netns_perf; else functional; fi
echo
echo "summary: $PASSED passed, $FAILED failed, $SKIPPED skipped; load average $(cut -d' ' -f1-3 /proc/loadavg);" \
    "logs in $LOG_DIR"
for line in "${RESULTS[@]}"; do
    [[ $line == FAIL* ]] && echo "$line"
done
((FAILED == 0))
