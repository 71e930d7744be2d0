#!/usr/bin/env bash
# Live readers on one node (issue #5, Performance): starts a real `bin/pico serve` (SQLite + file://
# in a temporary directory, heap capped with -Xmx) and runs the load driver
# io.picomq.frontend.bench.LiveReadersBench (picomq-frontend test tree) against it:
#   1. long-poll: 10,000 parked long-polls over 10,000 streams: server heap and idle CPU while
#      parked, then one append per stream and each waiter's wake latency;
#   2. fan-out: 1 writer at 20 records/s, 2,000 SSE readers on one stream: every reader gets every
#      record in order; delivery latency from acknowledgement to receipt.
# Each scenario gets a fresh server. The report goes to stdout (and $BENCH_DIR/report.txt).
#
# Usage: scripts/bench-live-readers.sh [longpoll|fanout|both]   (default both)
# Environment: BENCH_STREAMS (10000), BENCH_READERS (2000), BENCH_RATE (20), BENCH_SECONDS (30),
#   BENCH_IDLE_SEC (10), BENCH_SERVER_HEAP (1g: the bound being proven), BENCH_DRIVER_HEAP (2g),
#   BENCH_DIR (a new temporary directory), BENCH_JFR=1 (a JFR profile of the server in the data
#   directory), PICO_NO_BUILD=1 to run the launcher's jar as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
. bin/lib/java.sh
scenario="${1:-both}"
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

dir="${BENCH_DIR:-$(mktemp -d -t pico-live-XXXXXX)}"
mkdir -p "$dir"
report="$dir/report.txt"
: > "$report"

module=picomq/picomq-frontend
echo "building the driver ($module test classes)..." >&2
mvn -q -B -ntp -pl "$module" test-compile dependency:build-classpath -Dspotless.check.skip=true \
  -Dmdep.outputFile="$dir/classpath.txt" -Dmdep.includeScope=test >&2
classpath="$module/target/test-classes:$module/target/classes:$(cat "$dir/classpath.txt")"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

server_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=""
}
trap stop_server EXIT

start_server() {
  local data="$dir/$1"
  mkdir -p "$data"
  port="$(free_port)"
  admin="$(free_port)"
  local jfr=""
  if [ -n "${BENCH_JFR:-}" ]; then
    jfr="-XX:StartFlightRecording=filename=$data/server.jfr,settings=profile,dumponexit=true"
  fi
  PICO_JAVA_OPTS="-Xms${BENCH_SERVER_HEAP:-1g} -Xmx${BENCH_SERVER_HEAP:-1g} $jfr" \
    "$root/bin/pico" serve --listen "127.0.0.1:$port" --admin-listen "127.0.0.1:$admin" \
    --meta-url "sqlite:$data/meta.db" --storage "-2@file://$data/objects" \
    --long-poll-timeout-sec 300 --sse-max-duration-sec 600 \
    > "$data/server.log" 2>&1 &
  server_pid=$!   # bin/pico execs java: this is the JVM
  for _ in $(seq 1 600); do
    if curl -fsS "http://127.0.0.1:$admin/ready" >/dev/null 2>&1; then
      return 0
    fi
    kill -0 "$server_pid" 2>/dev/null || { cat "$data/server.log" >&2; return 1; }
    sleep 0.2
  done
  echo "the server did not become ready" >&2
  return 1
}

run_driver() {
  java -Xmx"${BENCH_DRIVER_HEAP:-2g}" -cp "$classpath" io.picomq.frontend.bench.LiveReadersBench \
    --endpoint "http://127.0.0.1:$port" --server-pid "$server_pid" \
    --jcmd "$JAVA_HOME/bin/jcmd" --clock-ticks "$(getconf CLK_TCK)" "$@" | tee -a "$report"
}

{
  echo "# bench-live-readers $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# server heap -Xmx${BENCH_SERVER_HEAP:-1g}, data on file:// + SQLite under $dir"
} | tee -a "$report"

status=0
if [ "$scenario" = longpoll ] || [ "$scenario" = both ]; then
  start_server longpoll
  run_driver --scenario longpoll --streams "${BENCH_STREAMS:-10000}" \
    --idle-sec "${BENCH_IDLE_SEC:-10}" || status=1
  stop_server
fi
if [ "$scenario" = fanout ] || [ "$scenario" = both ]; then
  start_server fanout
  run_driver --scenario fanout --readers "${BENCH_READERS:-2000}" --rate "${BENCH_RATE:-20}" \
    --seconds "${BENCH_SECONDS:-30}" || status=1
  stop_server
fi
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$report"
echo "report: $report" >&2
exit "$status"
