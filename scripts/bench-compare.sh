#!/usr/bin/env bash
# Benchmarks PicoMQ against the Node reference Durable Streams server on this machine, with the
# same workload through the same client (pico bench), and prints one table.
#
#   picomq     pico protocol  file://    pico serve, SQLite metadata, objects in a temp dir
#   picomq     ds protocol    file://    the same, serving Durable Streams
#   picomq     pico protocol  s3proxy    objects (and the WAL) in S3Proxy, its blobs in a temp dir
#   picomq     ds protocol    s3proxy
#   reference  ds protocol    file       @durable-streams/server 0.3.7, file-backed (fsync per append)
#
# Every server starts fresh on a free loopback port with its data in one temp dir, which is removed
# on exit (--keep keeps it). Needs a JDK >= 21 and Maven (bin/pico builds itself; S3Proxy's
# classpath is resolved by Maven), Node.js >= 18 and npm, curl and jq.
#
# Usage: scripts/bench-compare.sh [--duration 45s] [--warmup 10s] [--writers 64]
#          [--record-size 1KiB] [--records-per-append 1] [--only LIST] [--keep]
#          [--workloads LIST] [--pg-url URL] [-- MORE_BENCH_FLAGS]
#   --only takes a comma list of: pico-file,ds-file,pico-s3,ds-s3,reference,workloads
#   --workloads (with "workloads" in --only) takes a comma list of: w1 (1 writer), w64s1 (64
#     writers, 1 stream), w64s8 (64 writers, 8 streams), w256s8 (256 writers, 8 streams), the
#     same four driven by wrk instead of pico bench (wrk1, wrk64s1, wrk64s8, wrk256s8: one record
#     per request, each wrk thread on one stream), create64 (stream creation at 64 connections).
#     wrk workloads need wrk. Each runs against picomq (ds,
#     SQLite, file://) and the reference; create64 also against picomq on Postgres with --pg-url
#     (postgres://user@host:port/db: a fresh database is created beside db and dropped after;
#     needs psql). See scripts/bench-compare-workloads.sh.
# The defaults take about 5 minutes, the workloads about 10 more. The tables go to stdout,
# progress to stderr; each run's report and the servers' logs are in the temp dir it names.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

duration=45s
warmup=10s
writers=64
record_size=1KiB
records_per_append=1
only="pico-file,ds-file,pico-s3,ds-s3,reference"
workloads="w1,w64s1,w64s8,w256s8,wrk1,wrk64s1,wrk64s8,wrk256s8,create64"
pg_url=""
keep=0
extra=()
ds_server_version=0.3.7

while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --writers) writers="$2"; shift 2 ;;
    --record-size) record_size="$2"; shift 2 ;;
    --records-per-append) records_per_append="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --workloads) workloads="$2"; shift 2 ;;
    --pg-url) pg_url="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-compare.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

for tool in curl jq node npm; do
  command -v "$tool" >/dev/null || { echo "bench-compare.sh needs $tool on PATH." >&2; exit 1; }
done
wants() { [[ ",$only," == *",$1,"* ]]; }

work="$(mktemp -d -t pico-bench-compare.XXXXXX)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$keep" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "bench-compare: working in $work" >&2

# Build the launcher once, then run that jar throughout, even if sources change meanwhile.
"$root/bin/pico" --version >/dev/null
export PICO_NO_BUILD=1
. "$root/bin/lib/java.sh"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null \
    || node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Waits until something answers HTTP on the port; fails if the process died first.
await_http() {
  local port="$1" pid="$2" log="$3"
  for _ in $(seq 1 600); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/"; then return 0; fi
    kill -0 "$pid" 2>/dev/null || { echo "bench-compare: server exited; its log:" >&2; tail -20 "$log" >&2; exit 1; }
    sleep 0.2
  done
  echo "bench-compare: nothing answers on port $port after 120 s; see $log" >&2
  exit 1
}

stop() {
  local pid="$1"
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

s3_port=""
. "$root/scripts/lib/s3proxy.sh"

reference_dir=""
install_reference() {
  reference_dir="$work/reference"
  mkdir -p "$reference_dir"
  echo "bench-compare: installing @durable-streams/server@$ds_server_version with npm" >&2
  (cd "$reference_dir" && npm init -y >/dev/null \
    && npm install --no-audit --no-fund "@durable-streams/server@$ds_server_version" >"$reference_dir/npm.log" 2>&1) \
    || { echo "bench-compare: npm install failed; see $reference_dir/npm.log" >&2; exit 1; }
  cat >"$reference_dir/start.mjs" <<'EOF'
// The reference server in its durable mode: stream logs on disk (fsync per append), LMDB metadata.
import { DurableStreamTestServer } from "@durable-streams/server"
const [port, dataDir] = process.argv.slice(2)
const server = new DurableStreamTestServer({ port: Number(port), host: "127.0.0.1", dataDir })
await server.start()
console.error(`reference server on 127.0.0.1:${port}, data in ${dataDir}`)
const stop = async () => { await server.stop(); process.exit(0) }
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
EOF
}

# bench NAME PROTOCOL PORT: runs pico bench against the server on PORT, report in $work/NAME.json
bench() {
  local name="$1" protocol="$2" port="$3"
  echo "bench-compare: $name: pico bench --protocol $protocol for $warmup + $duration" >&2
  "$root/bin/pico" bench --protocol "$protocol" --endpoint "http://127.0.0.1:$port" \
    --duration "$duration" --warmup "$warmup" --writers "$writers" --record-size "$record_size" \
    --records-per-append "$records_per_append" --interval 5s --json ${extra[@]+"${extra[@]}"} \
    >"$work/$name.json" 2> >(tee "$work/$name.progress" >&2) \
    || echo "bench-compare: $name: pico bench exited with $? (the report says why)" >&2
}

# run_picomq NAME PROTOCOL STORAGE_KIND
run_picomq() {
  local name="$1" protocol="$2" kind="$3" dir="$work/$1" port storage
  mkdir -p "$dir"
  port="$(free_port)"
  if [ "$kind" = file ]; then
    storage="-2@file://$dir/objects"
  else
    storage="-2@s3://picomq?region=us-east-1&endpoint=http://127.0.0.1:$s3_port&pathStyle=true"
  fi
  AWS_ACCESS_KEY_ID=picomq-access AWS_SECRET_ACCESS_KEY=picomq-secret AWS_REGION=us-east-1 \
    "$root/bin/pico" --protocol "$protocol" serve --listen "127.0.0.1:$port" --no-admin \
    --meta-url "sqlite:$dir/meta.db" "--storage=$storage" >"$dir/server.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  await_http "$port" "$pid" "$dir/server.log"
  bench "$name" "$protocol" "$port"
  stop "$pid"
}

run_reference() {
  local dir="$work/reference-data" port
  mkdir -p "$dir"
  port="$(free_port)"
  (cd "$reference_dir" && exec node start.mjs "$port" "$dir") >"$work/reference.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  await_http "$port" "$pid" "$work/reference.log"
  bench reference ds "$port"
  stop "$pid"
}

. "$root/scripts/bench-compare-workloads.sh"

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
if wants reference || wants workloads; then install_reference; fi
{ wants pico-s3 || wants ds-s3; } && { mkdir -p "$work/s3proxy/blobs/picomq" && start_s3proxy "$work/s3proxy" bench-compare; }
wants pico-file && run_picomq pico-file pico file
wants ds-file && run_picomq ds-file ds file
wants pico-s3 && run_picomq pico-s3 pico s3
wants ds-s3 && run_picomq ds-s3 ds s3
wants reference && run_reference
if wants workloads; then run_all_workloads; fi
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

has_report() { [ -s "$1" ] && jq -e '.writes.recordsPerSecond' "$1" >/dev/null 2>&1; }

# The table: one row per run, from its JSON report.
row() {
  local name="$1" server="$2" protocol="$3" storage="$4" file="$work/$1.json"
  if ! has_report "$file"; then
    printf '| %-9s | %-4s | %-8s | %10s | %7s | %9s | %9s | %9s |\n' "$server" "$protocol" "$storage" failed - - - -
    return
  fi
  jq -r --arg server "$server" --arg protocol "$protocol" --arg storage "$storage" '
    def ms: if . == null then "-" else (. * 100 | round / 100 | tostring) end;
    [$server, $protocol, $storage,
     (.writes.recordsPerSecond | round | tostring),
     (.writes.mbPerSecond * 100 | round / 100 | tostring),
     (.writes.ackLatencyMs.p50 | ms), (.writes.ackLatencyMs.p99 | ms),
     (.reads.endToEndLatencyMs.p99 | ms)]
    | "| \(.[0]) | \(.[1]) | \(.[2]) | \(.[3]) | \(.[4]) | \(.[5]) | \(.[6]) | \(.[7]) |"' "$file"
}

if wants pico-file || wants ds-file || wants pico-s3 || wants ds-s3 || wants reference; then
echo
echo "pico bench: $writers writers, $record_size records, $records_per_append per append, $warmup warm-up + $duration measured; $(nproc) cores, load average $load_before before, $load_after after"
echo
echo "| server | protocol | storage | records/s | MB/s | p50 ack ms | p99 ack ms | p99 e2e ms |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
wants pico-file && row pico-file picomq pico file://
wants ds-file && row ds-file picomq ds file://
wants pico-s3 && row pico-s3 picomq pico s3proxy
wants ds-s3 && row ds-s3 picomq ds s3proxy
wants reference && row reference reference ds file
if wants reference && wants ds-file && has_report "$work/reference.json" && has_report "$work/ds-file.json"; then
  ours="$(jq .writes.recordsPerSecond "$work/ds-file.json")"
  theirs="$(jq .writes.recordsPerSecond "$work/reference.json")"
  echo
  awk -v o="$ours" -v t="$theirs" 'BEGIN { if (t > 0) printf "picomq (ds, file://) / reference: %.1fx acknowledged records/s\n", o / t }'
fi
for name in pico-file ds-file pico-s3 ds-s3 reference; do
  if wants "$name" && [ -f "$work/$name.json" ]; then
    jq -r --arg name "$name" '.problems[]? | "problem in \($name): \(.)"' "$work/$name.json" 2>/dev/null || true
  fi
done
fi
if wants workloads; then print_workloads; fi
