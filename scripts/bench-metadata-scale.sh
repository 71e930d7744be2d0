#!/usr/bin/env bash
# Runs the metadata scale benchmark (io.picomq.meta.bench.MetadataScaleBenchmark): heap per stream,
# snapshot size and time, restore + replay, and apply cost at 10k/100k/1M streams.
# Usage: scripts/bench-metadata-scale.sh [streams] [heapRuns]   (defaults: 1000000 3)
# Environment: BENCH_HEAP (default 4g), BENCH_CORES (default 2: the figures in the docs are for 2).
set -euo pipefail
cd "$(dirname "$0")/.."
. bin/lib/java.sh

module=picomq/picomq-meta
mvn -q -B -pl "$module" -am test-compile -Dspotless.check.skip=true
classpath_file="$module/target/bench-classpath.txt"
mvn -q -B -pl "$module" dependency:build-classpath -Dmdep.outputFile="$PWD/$classpath_file" \
  -Dmdep.includeScope=test
exec java -Xms"${BENCH_HEAP:-4g}" -Xmx"${BENCH_HEAP:-4g}" -XX:ActiveProcessorCount="${BENCH_CORES:-2}" \
  -cp "$module/target/test-classes:$module/target/classes:$(cat "$classpath_file")" \
  io.picomq.meta.bench.MetadataScaleBenchmark "$@"
