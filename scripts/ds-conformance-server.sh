#!/usr/bin/env bash
# Runs the official Durable Streams conformance suite (and the official-client end-to-end test)
# against the REAL server, started the way a user starts it:
#   bin/pico serve --protocol ds --listen 127.0.0.1:PORT  (SQLite + file:// in a temp data dir)
# with a short long-poll timeout. The in-memory mode stays in scripts/ds-conformance.sh.
# Needs a JDK >= 21, Maven (first build of bin/pico), Node.js 20 and npm.
# Usage: scripts/ds-conformance-server.sh [PORT]   (default 14437)
# Output: vitest's summary on stdout; the server's log and the JSON report in the temp dir it names.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/lib/ds-suite.sh"
port="${1:-14437}"
long_poll_sec=2
command -v npm >/dev/null || { echo "ds-conformance-server.sh needs Node.js and npm." >&2; exit 1; }

work="$(mktemp -d -t pico-ds-conformance.XXXXXX)"
echo "data, server log and report in $work" >&2
cd "$work"
"$root/bin/pico" --protocol ds serve --listen "127.0.0.1:$port" --no-admin \
  --long-poll-timeout-sec "$long_poll_sec" \
  --meta-url "sqlite:$work/data/meta.db" --storage="-2@file://$work/data/objects" \
  >"$work/server.out" 2>"$work/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT

for _ in $(seq 1 600); do
  if curl -s -o /dev/null "http://127.0.0.1:$port/v1/stream/"; then break; fi
  kill -0 "$server" 2>/dev/null || { echo "the server exited; see $work/server.log" >&2; exit 1; }
  sleep 0.2
done

ds_conformance_suite "http://127.0.0.1:$port" "$long_poll_sec" "$work/conformance-report.json"
