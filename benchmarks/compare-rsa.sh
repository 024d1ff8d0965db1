#!/usr/bin/env bash
# Remote services, one echo service `byte[] echo(byte[])` called from a second container on this
# host: Aries aries.tcp, Aries aries.fastbin, JOFI over tcp, JOFI over shm; 1 and 16 callers;
# 64 B, 4 KiB, 1 MiB; contenders rotated each round; calls/s, p50 and the ratios.
# Not a test: prints a Markdown table (also in rsa-itests/target/rsa-bench.md).
#
#   benchmarks/compare-rsa.sh [MILLIS_PER_CELL [ROUNDS]]     (defaults 2000 and 3)
#
# Builds what it needs in the reactor (no install) and runs rsa-itests' RsaBenchmarkIT, which
# forks the two Felix containers (see rsa-itests/README.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

millis="${1:-2000}"
rounds="${2:-3}"
mvn -B -q -pl rsa-itests -am verify \
    -DskipTests=false -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test=RsaBenchmarkIT -Dfailsafe.failIfNoSpecifiedTests=false \
    -Djofi.test.skipAllocationWithoutEscapeAnalysis=true \
    -Djofi.rsa.bench.millis="$millis" -Djofi.rsa.bench.rounds="$rounds" >&2
echo "benchmarks/compare-rsa.sh $millis $rounds"
cat rsa-itests/target/rsa-bench.md
