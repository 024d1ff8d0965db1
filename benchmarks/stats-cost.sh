#!/usr/bin/env bash
# stats-cost.sh — what JOFI's live counters cost the data path (the budget: 2 % at 64 B
# and 1 MiB), measured inside each JVM: io.jofi.benchmarks.StatsCostInOneJvm runs the provider
# stack twice in one JVM, once with statistics on and once off (two class loaders), alternating
# short windows, and gives the median on/off ratio of its window pairs. The two copies of one
# JVM differ by a few per cent even with the same setting (where the JIT and mmap put things),
# so each workload runs in JVMS JVMs, half of them with "on" as the first copy: the figure is
# the median over the JVMs, shown with their min and max. CONTROL=1 adds an on-against-on run
# of each workload: what the method resolves on this host.
# Benchmarks, not tests: figures depend on the machine and its load.
#
#   benchmarks/stats-cost.sh        (needs benchmarks/target/benchmarks.jar:
#                                    mvn -B -o -pl benchmarks -am package -DskipTests)
# Environment: WORKLOADS (default "shm:64 shm:1048576 tcp-msg:64 tcp-msg:1048576 tcp-rdm:64"),
#   JVMS (default 6), PAIRS (window pairs per JVM, default 150), WINDOW_MS (default 20),
#   WARMUP_S (default 8), CONTROL (1: add on-against-on), JAVA.
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$HOME_DIR/benchmarks/target/benchmarks.jar"
JAVA="${JAVA:-java}"
WORKLOADS="${WORKLOADS:-shm:64 shm:1048576 tcp-msg:64 tcp-msg:1048576 tcp-rdm:64}"
JVMS="${JVMS:-6}"
PAIRS="${PAIRS:-150}"
WINDOW_MS="${WINDOW_MS:-20}"
WARMUP_S="${WARMUP_S:-8}"
[[ -f "$JAR" ]] || { echo "stats-cost: $JAR missing (mvn -B -o -pl benchmarks -am package -DskipTests)" >&2; exit 1; }

# One JVM: prints the on/off difference in per cent (negative: statistics on is slower).
one() { # workload size first second
    local out pct
    out="$("$JAVA" -cp "$JAR" io.jofi.benchmarks.StatsCostInOneJvm "$1" "$2" "$3" "$4" "$PAIRS" "$WINDOW_MS" \
        "$WARMUP_S" 2>&1)" || { echo "stats-cost: the run failed ($*):" >&2; echo "$out" | tail -20 >&2; exit 1; }
    pct="$(echo "$out" | sed -n 's/.*median \([-+][0-9.]*\) %.*/\1/p')"
    [[ -n "$pct" ]] || { echo "stats-cost: no median in the output ($*):" >&2; echo "$out" >&2; exit 1; }
    if [[ "$3" == false && "$4" == true ]]; then # off/on: turn into on/off
        awk -v p="$pct" 'BEGIN { printf "%+.2f\n", 100 * (1 / (1 + p / 100) - 1) }'
    else
        echo "$pct"
    fi
}

summary() { # label values...
    local label="$1"
    shift
    printf '%s\n' "$@" | sort -g | awk -v label="$label" '
        { v[NR] = $1; all = all sprintf(" %+.1f", $1) }
        END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
              printf "%-22s %+7.2f %%   [%+.2f %%, %+.2f %%]   JVMs:%s\n", label, m, v[1], v[NR], all }'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $JVMS JVMs per workload, $PAIRS pairs of $WINDOW_MS ms windows each"
printf '%-22s %9s   %-22s\n' "workload" "on/off" "[min, max] over JVMs"
for w in $WORKLOADS; do
    name="${w%%:*}"
    size="${w##*:}"
    values=()
    for ((j = 0; j < JVMS; j++)); do
        if (( j % 2 == 0 )); then values+=("$(one "$name" "$size" true false)"); else values+=("$(one "$name" "$size" false true)"); fi
    done
    summary "$name $size B" "${values[@]}"
    if [[ "${CONTROL:-0}" == 1 ]]; then
        controls=()
        for ((j = 0; j < JVMS; j++)); do controls+=("$(one "$name" "$size" true true)"); done
        summary "  control: on/on" "${controls[@]}"
    fi
done
echo "(negative: statistics on is slower; the budget is 2 %)"
