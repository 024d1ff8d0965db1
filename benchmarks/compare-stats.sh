#!/usr/bin/env bash
# compare-stats.sh — the cost of JOFI's live counters (issue 17): the same JMH data-path
# benchmarks with statistics on (-Djofi.stats=true, the default) and off (-Djofi.stats=false:
# every counter update is a constant-folded no-op), alternated ROUNDS times in one run so that
# the host's load drifts over both alike; prints, per benchmark and size, the median score of
# each setting over the rounds and how far "on" is from "off" (the issue's budget: 2 %).
# Benchmarks, not tests: figures depend on the machine and its load.
#
#   benchmarks/compare-stats.sh                 (needs benchmarks/target/benchmarks.jar:
#                                                mvn -B -o -pl benchmarks -am package -DskipTests)
# Environment: BENCH (JMH regex, default "ShmDataPathBenchmark.sendRecv|TcpDataPathBenchmark.sendRecv64"),
#   SIZES (ShmDataPathBenchmark's size param, default "64,1048576"), ROUNDS (default 3),
#   WI / I (warm-up and measurement iterations of 1 s, default 2 / 3), JAVA.
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
TMP="$(mktemp -d /tmp/compare-stats.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); rounds: $ROUNDS (on, off alternated)"
for ((r = 1; r <= ROUNDS; r++)); do
    for on in true false; do
        "$JAVA" -jar "$JAR" "$BENCH" -f 1 -wi "$WI" -i "$I" -w 1s -r 1s -p "size=$SIZES" \
            -jvmArgsAppend "-Djofi.stats=$on" -rf csv -rff "$TMP/$on-$r.csv" >"$TMP/$on-$r.log" 2>&1 \
            || { echo "compare-stats: the JMH run failed (stats=$on, round $r):" >&2; tail -20 "$TMP/$on-$r.log" >&2; exit 1; }
    done
done

# CSV: "Benchmark","Mode","Threads","Samples","Score","Score Error (99.9%)","Unit"[,"Param: ..."]
awk -F, '
    FNR == 1 { on = (FILENAME ~ /\/true-/); gsub(/"|Param: /, ""); for (i = 1; i <= NF; i++) hdr[i] = $i; next }
    {
        gsub(/"/, "");
        params = ""; for (i = 8; i <= NF; i++) if ($i ~ /[^ \r]/) params = params " " hdr[i] "=" $i;
        key = $1 params " [" $7 "]";
        keys[key] = 1;
        if (on) { nOn[key]++; sOn[key, nOn[key]] = $5 } else { nOff[key]++; sOff[key, nOff[key]] = $5 }
    }
    function median(s, k, n,    i, j, t, a) {
        for (i = 1; i <= n; i++) a[i] = s[k, i] + 0;
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2;
    }
    END {
        printf "%-60s %14s %14s %8s\n", "benchmark", "stats on", "stats off", "on/off";
        for (k in keys) {
            a = median(sOn, k, nOn[k]); b = median(sOff, k, nOff[k]);
            printf "%-60s %14.3f %14.3f %+7.2f%%\n", k, a, b, b == 0 ? 0 : 100 * (a - b) / b;
        }
        print "(ops/s: higher is better, so a negative on/off costs; ns/op or us/op: lower is better, so a positive one costs)";
    }' "$TMP"/true-*.csv "$TMP"/false-*.csv
