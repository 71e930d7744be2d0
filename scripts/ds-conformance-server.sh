#!/usr/bin/env bash
# Runs the official Durable Streams conformance suite (and the official-client end-to-end test)
# against the REAL server, started the way a user starts it:
#   bin/pico serve --protocol ds --listen 127.0.0.1:PORT  (SQLite + file:// in a temp data dir)
# with a short long-poll timeout. The in-memory mode stays in scripts/ds-conformance.sh.
# With --access-control the server runs with access control on (a root token made here) and the
# suite, which sends no credentials, gets a stored anonymous scope: every verb on every stream for
# the durable_streams audience, set through the admin API (website/pages/docs/security.md).
# Needs a JDK >= 21, Maven (first build of bin/pico), Node.js 20 and npm.
# Usage: scripts/ds-conformance-server.sh [--access-control] [PORT]   (default 14437)
# Output: vitest's summary on stdout; the server's log and the JSON report in the temp dir it names.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/lib/ds-suite.sh"
access_control=false
if [ "${1:-}" = --access-control ]; then access_control=true; shift; fi
port="${1:-14437}"
long_poll_sec=2
command -v npm >/dev/null || { echo "ds-conformance-server.sh needs Node.js and npm." >&2; exit 1; }

work="$(mktemp -d -t pico-ds-conformance.XXXXXX)"
echo "data, server log and report in $work" >&2
cd "$work"
admin_args=(--no-admin)
if $access_control; then
  # A token is BASE64URL(9 random bytes).BASE64URL(32 random bytes), without padding.
  b64url() { head -c "$1" /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '='; }
  root_token="$(b64url 9).$(b64url 32)"
  admin_args=(--access-control --admin-listen 127.0.0.1:0)
fi
PICO_ROOT_TOKEN="${root_token:-}" "$root/bin/pico" --protocol ds serve --listen "127.0.0.1:$port" \
  "${admin_args[@]}" --long-poll-timeout-sec "$long_poll_sec" \
  --meta-url "sqlite:$work/data/meta.db" --storage="-2@file://$work/data/objects" \
  >"$work/server.out" 2>"$work/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT

for _ in $(seq 1 600); do
  if curl -s -o /dev/null "http://127.0.0.1:$port/v1/stream/"; then break; fi
  kill -0 "$server" 2>/dev/null || { echo "the server exited; see $work/server.log" >&2; exit 1; }
  sleep 0.2
done

if $access_control; then
  admin="$(sed -n 's/.*, admin on \(http:[^ ]*\).*/\1/p' "$work/server.log" | head -n 1)"
  [ -n "$admin" ] || { echo "no admin address in $work/server.log" >&2; exit 1; }
  status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/stream/probe")"
  [ "$status" = 401 ] || { echo "without a token the server answered $status, not 401" >&2; exit 1; }
  curl -sf -X PUT "$admin/admin/anonymous" -H "Authorization: Bearer $root_token" \
    -H 'Content-Type: application/json' \
    -d '{"scope":{"streams":["*"],"operations":["all"],"audiences":["durable_streams"]}}' >&2
  echo >&2
fi

ds_conformance_suite "http://127.0.0.1:$port" "$long_poll_sec" "$work/conformance-report.json"
