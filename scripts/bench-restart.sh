#!/usr/bin/env bash
# Restart cost (issue #12): how long a node just restarted takes to answer the first read of each of
# many streams. Starts a real `pico serve` (SQLite metadata + file:// objects in a temporary
# directory), creates BENCH_STREAMS streams with one record each (BENCH_CLIENTS concurrent
# clients), stops the node cleanly (SIGTERM), starts it again on the same data, and first-reads
# every stream from BENCH_CLIENTS concurrent clients. It prints the time from the first read to the
# last answer: every stream's first touch after a restart loads its registry entry, opens its
# engine stream and reads its last record.
#
# Usage: scripts/bench-restart.sh [--jar PATH] [--streams N] [--clients N] [--dataset DIR] [--keep]
#   --jar      the pico.jar to run (default: the one bin/pico builds; keep a copy of an older build
#              to compare before and after a change on the same machine)
#   --streams  streams to create and read (10000)
#   --clients  concurrent clients, one request in flight each (64)
#   --dataset  keep the created node's data (stopped cleanly) in DIR, or, if DIR holds one already,
#              start from a copy of it instead of creating: runs of two builds read the same data
#   --keep     keep the temporary directory (data, server logs)
# The driver is scripts/bench/RestartBench.java, run by the JDK's source launcher (no build). One
# line per phase goes to stdout (total_ms is the figure); the load average before and after too.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/bin/lib/java.sh"

jar=""
streams=10000
clients=64
keep=0
dataset=""
while [ $# -gt 0 ]; do
  case "$1" in
    --jar) jar="$2"; shift 2 ;;
    --streams) streams="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --dataset) dataset="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-restart.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$jar" ]; then
  "$root/bin/pico" --version >/dev/null # builds the launcher's jar if sources changed
  jar="$root/picomq/pico-cli/target/pico.jar"
fi
[ -f "$jar" ] || { echo "bench-restart.sh: no jar at $jar" >&2; exit 1; }
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

work="$(mktemp -d -t pico-bench-restart.XXXXXX)"
server_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=""
}
cleanup() {
  stop_server
  if [ "$keep" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "bench-restart: working in $work, jar $jar" >&2

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
endpoint="http://127.0.0.1:$port"

start_server() {
  java ${PICO_JAVA_OPTS:-} -jar "$jar" serve --listen "127.0.0.1:$port" --no-admin \
    --meta-url "sqlite:$work/meta.db" "--storage=-2@file://$work/objects" >>"$work/server-$1.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 600); do
    if curl -s -o /dev/null "$endpoint/"; then return 0; fi
    kill -0 "$server_pid" 2>/dev/null || { echo "bench-restart: server exited:" >&2; tail -20 "$work/server-$1.log" >&2; exit 1; }
    sleep 0.2
  done
  echo "bench-restart: nothing answers on $endpoint after 120 s" >&2
  exit 1
}

driver() {
  java -Xmx1g "$root/scripts/bench/RestartBench.java" "$1" "$endpoint" "$streams" "$clients"
}

echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$dataset" ] && [ -f "$dataset/meta.db" ]; then
  echo "bench-restart: starting from a copy of the dataset in $dataset" >&2
  cp -a "$dataset/." "$work/"
else
  start_server first
  driver create
  stop_server
  if [ -n "$dataset" ]; then mkdir -p "$dataset" && cp -a "$work/meta.db" "$work/objects" "$dataset/"; fi
fi
start_server second
echo "load_at_read=$(cut -d' ' -f1-3 /proc/loadavg)"
driver read
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)"
