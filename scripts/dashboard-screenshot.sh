#!/usr/bin/env bash
# Takes a PNG of a node's dashboard in headless Chromium.
#   scripts/dashboard-screenshot.sh [OUT.png] [ADMIN_URL]
# Without ADMIN_URL it starts a throwaway node (bin/pico serve, SQLite + file:// in a temp dir,
# admin on 127.0.0.1:19090) and stops it afterwards. Needs Debian's chromium
# (apt-get install -y chromium), Node.js and npm; the first run installs playwright-core.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
harness="$root/picomq/picomq-node/src/test/dashboard"
out="$(realpath -m "${1:-dashboard.png}")"
url="${2:-}"
command -v npm >/dev/null || { echo "dashboard-screenshot.sh needs Node.js and npm." >&2; exit 1; }
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "needs chromium: apt-get install -y chromium" >&2; exit 1; }
[ -d "$harness/node_modules/playwright-core" ] || (cd "$harness" && npm ci --no-audit --no-fund >&2)

if [ -z "$url" ]; then
  work="$(mktemp -d -t pico-dashboard.XXXXXX)"
  echo "throwaway node's data and log in $work" >&2
  (cd "$work" && exec "$root/bin/pico" serve --listen 127.0.0.1:14438 --admin-listen 127.0.0.1:19090 \
    --meta-url "sqlite:$work/data/meta.db" --storage="0@file://$work/data/objects" \
    >"$work/server.out" 2>"$work/server.log") &
  server=$!
  trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
  url="http://127.0.0.1:19090/"
  for _ in $(seq 1 600); do
    if curl -sf -o /dev/null "${url}ready"; then break; fi
    kill -0 "$server" 2>/dev/null || { echo "the node exited; see $work/server.log" >&2; exit 1; }
    sleep 0.2
  done
fi

(cd "$harness" && node check-dashboard.mjs "$url" "$out") >&2
echo "$out"
