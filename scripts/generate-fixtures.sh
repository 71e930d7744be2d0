#!/usr/bin/env bash
# Regenerates s3stream/conformance/fixtures/ from the encoders. Only ever together with a change
# to s3stream/specification/ that explains the new bytes; never to make a failing test pass.
set -euo pipefail
cd "$(dirname "$0")/.."
. bin/lib/java.sh
mvn -B -q install -DskipTests -pl s3stream/conformance -am
mvn -B -q exec:java -pl s3stream/conformance \
  -Dexec.mainClass=io.picomq.s3stream.conformance.GoldenFixtures \
  -Dexec.args="$PWD/s3stream/conformance/fixtures"
git status --short s3stream/conformance/fixtures
