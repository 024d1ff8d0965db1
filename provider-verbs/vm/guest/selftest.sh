#!/bin/bash
# The VM harness's proof (run inside the guest by ../selftest): soft-RoCE works for verbs
# (ibv_devinfo, ibv_rc_pingpong over an RC QP on rxe0) and for rdma_cm (rping,
# rdma_server/rdma_client on 10.0.2.15), and the JVM starts. Every step is bounded; the
# status is the number of failed steps.
set -u
failed=0
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# step NAME COMMAND...: runs COMMAND (bounded by 120 s), reports PASS/FAIL with its duration.
step() {
    local name="$1" t0 rc
    shift
    echo "== $name"
    t0=$(now)
    # through bash -c so that COMMAND may be one of the functions below (exported)
    timeout -k 5 120 bash -c '"$@"' "$name" "$@"
    rc=$?
    if [[ $rc -eq 0 ]]; then
        echo "PASS $name ($(secs "$t0" "$(now)") s)"
    else
        echo "FAIL $name (status $rc after $(secs "$t0" "$(now)") s)"
        failed=$((failed + 1))
    fi
}

# wait_listen PORT: until something listens on TCP PORT (at most 30 s).
wait_listen() {
    for _ in $(seq 300); do
        ss -ltnH "sport = :$1" | grep -q . && return 0
        sleep 0.1
    done
    echo "nothing listens on tcp port $1" >&2
    return 1
}

server_client() {
    # server_client WAIT SERVER-CMD -- CLIENT-CMD: starts the server in the background, waits
    # per WAIT ("tcp:PORT" or "sleep:S"), runs the client, then waits for the server; both
    # must succeed.
    local wait="$1" server=() client=() spid src crc
    shift
    while [[ "$1" != "--" ]]; do server+=("$1"); shift; done
    shift
    client=("$@")
    "${server[@]}" > >(sed 's/^/  server: /') 2>&1 &
    spid=$!
    case "$wait" in
        tcp:*) wait_listen "${wait#tcp:}" || { kill "$spid"; wait "$spid"; return 1; } ;;
        sleep:*) sleep "${wait#sleep:}" ;;
    esac
    "${client[@]}" 2>&1 | sed 's/^/  client: /'
    crc=${PIPESTATUS[0]}
    wait "$spid"
    src=$?
    echo "  server status $src, client status $crc"
    [[ $src -eq 0 && $crc -eq 0 ]]
}

devinfo() {
    ibv_devinfo -d rxe0
    ibv_devinfo -d rxe0 -v | grep 'GID\['
    ibv_devinfo -d rxe0 | grep -q PORT_ACTIVE
}

export -f wait_listen server_client devinfo

step "ibv_devinfo: rxe0 port 1 PORT_ACTIVE" devinfo
step "ibv_rc_pingpong on rxe0 (RC QP, 1000 x 4 KiB)" \
    server_client tcp:18515 ibv_rc_pingpong -d rxe0 -g 1 -n 1000 -- ibv_rc_pingpong -d rxe0 -g 1 -n 1000 127.0.0.1
step "rping over rdma_cm on 10.0.2.15 (100 pings, data verified)" \
    server_client sleep:2 rping -s -a 10.0.2.15 -C 100 -V -- rping -c -a 10.0.2.15 -C 100 -V
step "rdma_server/rdma_client over rdma_cm on 10.0.2.15" \
    server_client sleep:2 rdma_server -- rdma_client -s 10.0.2.15
step "java -version" java -version

echo "selftest: $failed step(s) failed"
exit "$failed"
