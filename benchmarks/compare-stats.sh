#!/usr/bin/env bash
# compare-stats.sh — the cost of JOFI's live counters (issue 17): the same JMH data-path
# benchmarks with statistics on (-Djofi.stats=true, the default) and off (-Djofi.stats=false:
# every counter update is a constant-folded no-op), alternated ROUNDS times in one run so that
# the host's load drifts over both alike; prints, per benchmark and size, the median and the best
# score of each setting over every measured iteration and how far "on" is from "off" (the
# issue's budget: 2 %). StatsCounterBenchmark measures one counter update by itself.
# Benchmarks, not tests: figures depend on the machine and its load.
#
#   benchmarks/compare-stats.sh                 (needs benchmarks/target/benchmarks.jar:
#                                                mvn -B -o -pl benchmarks -am package -DskipTests)
# Environment: BENCH (JMH regex, default "ShmDataPathBenchmark.sendRecv|TcpDataPathBenchmark.sendRecv64"),
#   SIZES (ShmDataPathBenchmark's size param, default "64,1048576"), ROUNDS (default 3),
#   WI / I (warm-up and measurement iterations of 1 s, default 2 / 3), PIN (1: each JVM on one
#   core, default 0), JAVA.
# A smoke run: ROUNDS=1 WI=1 I=1 benchmarks/compare-stats.sh
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$HOME_DIR/benchmarks/target/benchmarks.jar"
JAVA="${JAVA:-java}"
BENCH="${BENCH:-ShmDataPathBenchmark.sendRecv|TcpDataPathBenchmark.sendRecv64}"
SIZES="${SIZES:-64,1048576}"
ROUNDS="${ROUNDS:-3}"
WI="${WI:-2}"
I="${I:-3}"
[[ -f "$JAR" ]] || { echo "compare-stats: $JAR missing (mvn -B -o -pl benchmarks -am package -DskipTests)" >&2; exit 1; }
# PIN=1 runs each JMH JVM on one core (the last; its JIT threads share it while warming up):
# no migration between cores, the other core left to the rest of the host
PIN_CMD=()
if [[ "${PIN:-0}" == 1 ]] && command -v taskset >/dev/null && (( $(nproc) >= 2 )); then
    PIN_CMD=(taskset -c "$(( $(nproc) - 1 ))")
fi
TMP="$(mktemp -d /tmp/compare-stats.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); rounds: $ROUNDS (on, off alternated)"
for ((r = 1; r <= ROUNDS; r++)); do
    for on in true false; do
        "${PIN_CMD[@]}" "$JAVA" -jar "$JAR" "$BENCH" -f 1 -wi "$WI" -i "$I" -w 1s -r 1s -p "size=$SIZES" \
            -jvmArgsAppend "-Djofi.stats=$on" >"$TMP/$on-$r.log" 2>&1 \
            || { echo "compare-stats: the JMH run failed (stats=$on, round $r):" >&2; tail -20 "$TMP/$on-$r.log" >&2; exit 1; }
    done
done

# Every measured iteration of every round counts (the JMH logs: "# Benchmark:", "# Parameters:",
# "Iteration N: score unit"): per benchmark, parameters and setting, the median and the best
# (highest ops/s, lowest time per op) of all of them. This host's noise is one-sided and large
# (iterations of one fork 20 % apart, forks up to 2x): "paired" — the median over the rounds of
# each round's on/off ratio (the two JVMs of a round ran one after the other) — is the figure
# least moved by it; the medians and bests of all iterations are shown beside it.
awk '
    FNR == 1 { on = (FILENAME ~ /\/true-/); round = FILENAME; sub(/.*-/, "", round); sub(/\.log$/, "", round); rounds[round] = 1 }
    /^# Benchmark: / { bench = $3; params = ""; next }
    /^# Parameters: / { params = $0; sub(/^# Parameters: \(/, "", params); sub(/\)$/, "", params); gsub(/ = /, "=", params); gsub(/, /, " ", params); next }
    /^Iteration +[0-9]+: / {
        unit = $NF; score = $(NF - 1) + 0;
        key = bench " " params " [" unit "]"; keys[key] = unit;
        if (on) { nOn[key]++; sOn[key, nOn[key]] = score } else { nOff[key]++; sOff[key, nOff[key]] = score }
        kr = key SUBSEP round;
        if (on) { rnOn[kr]++; rOn[kr, rnOn[kr]] = score } else { rnOff[kr]++; rOff[kr, rnOff[kr]] = score }
    }
    function median(s, k, n,    i, j, t, a) {
        for (i = 1; i <= n; i++) a[i] = s[k, i];
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2;
    }
    function best(s, k, n, higher,    i, b) {
        b = s[k, 1];
        for (i = 2; i <= n; i++) if (higher ? s[k, i] > b : s[k, i] < b) b = s[k, i];
        return b;
    }
    function pct(a, b) { return b == 0 ? 0 : 100 * (a - b) / b }
    END {
        printf "%-62s %5s %13s %13s %8s %13s %13s %8s %8s\n", "benchmark", "n", "median on", "median off", "on/off", "best on", "best off", "on/off", "paired";
        for (k in keys) {
            higher = (keys[k] ~ /ops\//);
            mOn = median(sOn, k, nOn[k]); mOff = median(sOff, k, nOff[k]);
            bOn = best(sOn, k, nOn[k], higher); bOff = best(sOff, k, nOff[k], higher);
            # paired: each round on against the same round off (median of its iterations), the median of those ratios
            np = 0;
            for (r in rounds) {
                kr = k SUBSEP r;
                if (rnOn[kr] && rnOff[kr]) { np++; pr[k, np] = pct(median(rOn, kr, rnOn[kr]), median(rOff, kr, rnOff[kr])) }
            }
            printf "%-62s %5d %13.1f %13.1f %+7.2f%% %13.1f %13.1f %+7.2f%% %+7.2f%%\n", k, nOn[k], mOn, mOff, pct(mOn, mOff), bOn, bOff, pct(bOn, bOff), median(pr, k, np);
        }
        print "(n: measured iterations per setting; ops/s: higher is better, so a negative on/off costs; ns/op or us/op: lower is better, so a positive one costs)";
    }' "$TMP"/true-*.log "$TMP"/false-*.log
