# Sourced by scripts/ds-conformance-server.sh and scripts/e2e-extension.sh.
#
# ds_conformance_suite BASE_URL LONG_POLL_SEC REPORT_JSON: runs the official Durable Streams
# conformance suite and the official-client end-to-end test (vitest, from the pinned lock file in
# picomq/picomq-frontend/src/test/ds-conformance, installed with `npm ci` on first use) against the
# server at BASE_URL, whose long-poll timeout is LONG_POLL_SEC. Prints vitest's summary; returns
# vitest's status. Needs $root (the repository), Node.js 20 and npm.
ds_conformance_suite() {
  local base_url="$1" long_poll_sec="$2" report="$3"
  local harness="$root/picomq/picomq-frontend/src/test/ds-conformance"
  command -v npm >/dev/null || { echo "the Durable Streams conformance suite needs Node.js and npm." >&2; return 1; }
  [ -d "$harness/node_modules" ] || (cd "$harness" && npm ci --no-audit --no-fund >&2)
  (cd "$harness" &&
    DS_BASE_URL="$base_url" \
    DS_LONG_POLL_TIMEOUT_MS="$((long_poll_sec * 1000))" \
    DS_REPORT="$report" \
    NO_COLOR=1 npx vitest run --config vitest.config.mjs)
}
