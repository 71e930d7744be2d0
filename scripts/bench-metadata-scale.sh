#!/usr/bin/env bash
# Runs the metadata scale benchmark (io.picomq.server.metadata.MetadataScaleBenchmark) on the path a
# node runs (the SQL log's rows, its tailer, the node's log options): heap per stream, snapshot size
# and time, a restart of the SQL log from its snapshot plus the longest tail, and apply cost at
# 10k/100k/1M streams.
# Usage: scripts/bench-metadata-scale.sh [streams] [heapRuns] [metaUrl]
#   (defaults: 1000000 3 and a SQLite file in a temporary folder; a postgres:// URL gets tables with
#   a random prefix, dropped afterwards)
# Environment: BENCH_HEAP (default 4g), BENCH_CORES (default 2: the figures in the docs are for 2).
set -euo pipefail
cd "$(dirname "$0")/.."
. bin/lib/java.sh

module=picomq/picomq-server
classpath_file="$module/target/bench-classpath.txt"
# One reactor run, so the sibling modules (picomq-meta, picomq-sql) are this checkout's classes,
# not whatever snapshot jars ~/.m2 holds. Every module writes the classpath file; the last one
# written is $module's, which depends on the others.
mvn -q -B -pl "$module" -am test-compile dependency:build-classpath -Dspotless.check.skip=true \
  -Dforbiddenapis.skip=true -Dmdep.outputFile="$PWD/$classpath_file" -Dmdep.includeScope=test
exec java -Xms"${BENCH_HEAP:-4g}" -Xmx"${BENCH_HEAP:-4g}" -XX:ActiveProcessorCount="${BENCH_CORES:-2}" \
  -cp "$module/target/test-classes:$module/target/classes:$(cat "$classpath_file")" \
  io.picomq.server.metadata.MetadataScaleBenchmark "$@"
