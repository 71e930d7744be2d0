#!/usr/bin/env bash
# Runs the official Durable Streams conformance suite (@durable-streams/server-conformance-tests,
# 332 tests outside the opt-in subscription group) and the official-client end-to-end test against
# the Durable Streams frontend over the in-memory stream service. Fails on any failure.
# Needs a JDK >= 21, Maven, Node.js 20 and npm (the suite is installed with `npm ci` from the
# pinned lock file in picomq/picomq-frontend/src/test/ds-conformance). Takes about a minute.
# Output: the summary line on stdout; vitest's log and JSON report in picomq/picomq-frontend/target/.
set -euo pipefail
cd "$(dirname "$0")/.."
. bin/lib/java.sh
command -v npm >/dev/null || { echo "ds-conformance.sh needs Node.js and npm." >&2; exit 1; }
mvn -B -ntp test -pl picomq/picomq-frontend -am \
  -Dpicomq.ds.conformance=true -Dtest=OfficialConformanceTest -Dsurefire.failIfNoSpecifiedTests=false \
  "$@"
