#!/usr/bin/env bash
# Stream creation, A/B: runs `wrk` PUTting a new name per request at 64 connections against a fresh
# `pico serve` (Durable Streams protocol, file:// objects, fresh metadata) for each jar given, in
# the order given, so builds (or JVM options) can alternate on one machine. Prints one line per
# run: creates/s, p50 and p99, the longest GC pauses and the metadata snapshots written.
#
# Usage: scripts/bench-creates.sh [--meta sqlite|postgres] [--pg-url URL] [--duration 10s]
#          [--warmup 3s] [--java-opts "OPTS"] JAR [JAR...]
#   --meta       sqlite (a file in the run's temp dir) or postgres (a fresh database beside the
#                one --pg-url names, dropped after each run; needs psql)
#   --pg-url     postgres://user@host:port/db (default postgres://postgres@127.0.0.1:5432/test)
#   --java-opts  JVM options for the server, e.g. "-XX:+UseZGC" (also PICO_JAVA_OPTS)
# Needs a JDK >= 21, wrk and curl. Example, before and after a change:
#   cp picomq/pico-cli/target/pico.jar /tmp/before.jar   # then rebuild
#   scripts/bench-creates.sh --meta postgres /tmp/before.jar picomq/pico-cli/target/pico.jar \
#     /tmp/before.jar picomq/pico-cli/target/pico.jar
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/bin/lib/java.sh"

meta=sqlite
pg_url=postgres://postgres@127.0.0.1:5432/test
duration=10s
warmup=3s
java_opts="${PICO_JAVA_OPTS:-}"
jars=()
while [ $# -gt 0 ]; do
  case "$1" in
    --meta) meta="$2"; shift 2 ;;
    --pg-url) pg_url="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --java-opts) java_opts="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench-creates.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) jars+=("$1"); shift ;;
  esac
done
[ "${#jars[@]}" -gt 0 ] || { echo "bench-creates.sh: give at least one jar (see --help)" >&2; exit 2; }
case "$meta" in sqlite|postgres) ;; *) echo "bench-creates.sh: --meta is sqlite or postgres" >&2; exit 2 ;; esac
command -v wrk >/dev/null || { echo "bench-creates.sh needs wrk (apt-get install wrk)" >&2; exit 1; }

work="$(mktemp -d -t pico-bench-creates.XXXXXX)"
server=""
database="bench_creates_$$"
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  [ "$meta" = postgres ] && psql -q "${pg_url%/*}/postgres" -c "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"

run=0
for jar in "${jars[@]}"; do
  run=$((run + 1))
  dir="$work/run-$run"
  mkdir -p "$dir"
  if [ "$meta" = postgres ]; then
    PGOPTIONS=--client-min-messages=warning psql -q "${pg_url%/*}/postgres" \
      -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" >/dev/null
    url="${pg_url%/*}/$database"
  else
    url="sqlite:$dir/meta.db"
  fi
  # shellcheck disable=SC2086 # the options are words
  java $java_opts -Xlog:gc:file="$dir/gc.log" -jar "$jar" --protocol ds serve \
    --listen "127.0.0.1:$port" --no-admin --meta-url "$url" "--storage=-2@file://$dir/objects" \
    >"$dir/server.log" 2>&1 &
  server=$!
  for _ in $(seq 150); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.2; done
  RUN="w$run" wrk -t4 -c64 -d"$warmup" -s "$root/scripts/bench/create.lua" "http://127.0.0.1:$port" >/dev/null
  RUN="m$run" wrk -t4 -c64 -d"$duration" --latency -s "$root/scripts/bench/create.lua" \
    "http://127.0.0.1:$port" >"$dir/wrk.txt"
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
  awk -v jar="$jar" -v meta="$meta" -v opts="$java_opts" -v ld="$(cut -d' ' -f1 /proc/loadavg)" '
    /Requests\/sec/ { rps = $2 } /^ +50%/ { p50 = $2 } /^ +99%/ { p99 = $2 } /Non-2xx/ { bad = $NF }
    END { printf "%s %s%s: %d creates/s, p50 %s, p99 %s, %d non-2xx, load %s\n", jar, meta,
            (opts == "" ? "" : " [" opts "]"), rps, p50, p99, bad, ld }' "$dir/wrk.txt"
  pauses="$(grep -h 'Pause' "$dir/gc.log" | awk '{print $NF}' | sort -n | tail -3 | tr '\n' ' ')"
  echo "  longest GC pauses: ${pauses:-none logged as pauses (ZGC logs none at this level)}"
  grep -h "wrote the snapshot" "$dir/server.log" | sed 's/.*wrote/  wrote/' || true
done
