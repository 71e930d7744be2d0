#!/usr/bin/env bash
# The WALs side by side (issue #15, item 3): what a node's acknowledgements cost with its WAL on
# the object store (the default) and with its WAL in Postgres (--wal postgres://...), data objects
# on S3Proxy in both cases, in one run.
#
# For each WAL it starts one `pico serve` on a fresh Postgres database (the metadata log) and a
# fresh S3Proxy bucket (data objects; with the object WAL, the WAL's objects too). The Postgres
# WAL gets a database of its own, so that its transactions can be counted apart from the log's.
# Then, through the node, with 1 KiB records:
#  1. one sequential writer (`pico bench --writers 1 --write-only`): p50 and p99 acknowledgement;
#  2. --writers writers (64) on 8 streams: records/s and p99; for the object WAL the WAL's PUT and
#     LIST requests per million appends (what S3 bills), from the node's /metrics; for the
#     Postgres WAL the transactions per second its database committed meanwhile
#     (pg_stat_database.xact_commit, warm-up included): group commit must bound them below one per
#     append;
#  3. Postgres WAL only: the size of the WAL tables (pg_total_relation_size of pico_wal_*) after
#     appending 1x, 3x and 5x the ring's capacity, with a small ring (--ring, 4 segments of 4 MiB:
#     12 MiB of capacity) so that 5x stays quick. The figure must stay bounded: slot tables are
#     truncated, not deleted from, so no dead rows pile up for vacuum. Written at --ring-rate
#     records/s (2000), 16 writers; the MiB column is what was acknowledged.
#
# Usage: scripts/bench-wal.sh [--duration 20s] [--warmup 10s] [--writers 64] [--only s3,postgres]
#          [--ring 'segmentBytes=4MiB&segments=4&maxUnflushedBytes=8MiB'] [--ring-rate 2000] [--keep]
# Needs a JDK >= 21, Maven (bin/pico builds itself; S3Proxy's classpath is resolved by Maven), a
# Postgres on 127.0.0.1:5432 where user postgres may create databases without a password
# (PICO_BENCH_PG overrides: postgres://user@host:port), psql, curl and jq. Prints a Markdown table
# to stdout, progress to stderr; the node logs are in the temp dir it names (kept with --keep).
# About 5 minutes with the defaults on a quiet 2-core machine. The warm-up is long because the
# node starts cold: its first seconds run interpreted.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
duration=20s
warmup=10s
writers=64
only=s3,postgres
ring='segmentBytes=4MiB&segments=4&maxUnflushedBytes=8MiB'
ring_rate=2000
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --writers) writers="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --ring) ring="$2"; shift 2 ;;
    --ring-rate) ring_rate="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-wal.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for tool in curl jq psql; do
  command -v "$tool" >/dev/null || { echo "bench-wal.sh needs $tool on PATH." >&2; exit 1; }
done
wants() { [[ ",$only," == *",$1,"* ]]; }

pg="${PICO_BENCH_PG:-postgres://postgres@127.0.0.1:5432}"
pg_authority="${pg#postgres://}"
pg_user="${pg_authority%%@*}"
pg_hostport="${pg_authority#*@}"
psql_on() {
  PGOPTIONS='-c client_min_messages=warning' psql -qAt -h "${pg_hostport%%:*}" \
    -p "${pg_hostport##*:}" -U "$pg_user" -d "$1" -v ON_ERROR_STOP=1 -c "$2"
}

work="$(mktemp -d -t pico-bench-wal.XXXXXX)"
pids=()
databases=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for db in "${databases[@]}"; do psql_on postgres "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || true; done
  if [ "$keep" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "bench-wal: working in $work" >&2

# Build the launcher once, then run that jar throughout, even if sources change meanwhile.
"$root/bin/pico" --version >/dev/null
export PICO_NO_BUILD=1
. "$root/bin/lib/java.sh"
export AWS_ACCESS_KEY_ID=picomq-access AWS_SECRET_ACCESS_KEY=picomq-secret AWS_REGION=us-east-1

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# new_database TAG: creates a fresh database, names it in $created_db and drops it at exit (not
# in a command substitution: the list of databases to drop must grow in this shell).
new_database() {
  created_db="bench_wal_$1_$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
  psql_on postgres "CREATE DATABASE $created_db" >/dev/null
  databases+=("$created_db")
}
new_bucket() {
  local bucket="bench-wal-$1-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
  mkdir -p "$work/s3proxy/blobs/$bucket"
  echo "$bucket"
}

s3_port=""
. "$root/scripts/lib/s3proxy.sh"
start_s3proxy "$work/s3proxy" bench-wal
s3() { echo "s3://$1?region=us-east-1&endpoint=http://127.0.0.1:$s3_port&pathStyle=true"; }

node_pid=""
node_port=""
node_admin=""
# start_node NAME WAL_ARGS...: one pico serve on a fresh metadata database and data bucket
start_node() {
  local name="$1"; shift
  local meta
  new_database "$name"
  meta="$created_db"
  node_port="$(free_port)"
  node_admin="$(free_port)"
  mkdir -p "$work/$name"
  "$root/bin/pico" serve --node-id 1 --listen "127.0.0.1:$node_port" --admin-listen "127.0.0.1:$node_admin" \
    --meta-url "$pg/$meta" --storage "0@$(s3 "$(new_bucket "$name")")" "$@" >"$work/$name/node.log" 2>&1 &
  node_pid=$!
  pids+=("$node_pid")
  for _ in $(seq 1 600); do
    if curl -sf -o /dev/null "http://127.0.0.1:$node_admin/ready"; then return 0; fi
    kill -0 "$node_pid" 2>/dev/null || { echo "bench-wal: $name: the node exited; its log:" >&2; tail -20 "$work/$name/node.log" >&2; exit 1; }
    sleep 0.2
  done
  echo "bench-wal: $name: the node is not ready after 120 s; see $work/$name/node.log" >&2
  exit 1
}
stop_node() { kill "$node_pid" 2>/dev/null || true; wait "$node_pid" 2>/dev/null || true; }

# bench NAME ARGS...: pico bench against the running node, its JSON report in $work/NAME.json
bench() {
  local name="$1"; shift
  echo "bench-wal: $name: pico bench $*" >&2
  "$root/bin/pico" bench --endpoint "http://127.0.0.1:$node_port" --write-only --record-size 1KiB \
    --interval 5s --json "$@" >"$work/$name.json" 2> >(tee "$work/$name.progress" >&2) \
    || echo "bench-wal: $name: pico bench exited with $? (the report says why)" >&2
}
# WAL object store requests that cost money on S3 (PUT and LIST: fence markers, WAL objects, checks)
wal_requests() {
  curl -s "http://127.0.0.1:$node_admin/metrics" | awk '/^s3stream_objectstore_requests_seconds_count\{/ && /store="wal"/ && (/op="put"/ || /op="list"/) { sum += $NF } END { printf "%d", sum }'
}
xacts() { psql_on "$1" "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"; }
secs() { sed -E 's/s$//' <<<"$1"; }

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
started="$(date -u +%FT%TZ)"
tps_postgres="-"
s3_requests_per_million="-"
if wants s3; then
  start_node s3
  bench s3-seq --writers 1 --duration "$duration" --warmup "$warmup"
  requests_before="$(wal_requests)"
  bench s3-par --writers "$writers" --streams 8 --duration "$duration" --warmup "$warmup"
  requests_after="$(wal_requests)"
  s3_requests_per_million="$(jq --argjson r "$((requests_after - requests_before))" '($r / .writes.records * 1e6) | floor' "$work/s3-par.json" 2>/dev/null || echo -)"
  stop_node
fi
if wants postgres; then
  new_database wal
  wal_db="$created_db"
  start_node postgres --wal "$pg/$wal_db"
  bench postgres-seq --writers 1 --duration "$duration" --warmup "$warmup"
  before="$(xacts "$wal_db")"
  bench postgres-par --writers "$writers" --streams 8 --duration "$duration" --warmup "$warmup"
  after="$(xacts "$wal_db")"
  # pg_stat_database is updated when a backend's transaction ends and reported with a delay of up
  # to PGSTAT_MIN_INTERVAL (1 s): wait for it before the second reading.
  sleep 2
  after="$(xacts "$wal_db")"
  window="$(awk -v d="$(secs "$duration")" -v w="$(secs "$warmup")" 'BEGIN { print d + w }')"
  tps_postgres="$(awk -v a="$after" -v b="$before" -v s="$window" 'BEGIN { printf "%d", (a - b) / s }')"
  stop_node

  # The ring: 5x its capacity through a small one.
  new_database ring
  ring_db="$created_db"
  start_node ring --wal "$pg/$ring_db?$ring"
  capacity_mib="$(awk -v r="$ring" 'BEGIN {
    n = split(r, kv, "&"); seg = 64; count = 8
    for (i = 1; i <= n; i++) { split(kv[i], p, "="); v = p[2]; sub(/MiB$/, "", v)
      if (p[1] == "segmentBytes") seg = v; if (p[1] == "segments") count = v }
    print (count - 1) * seg }')"
  : >"$work/ring.sizes"
  written_kib=0
  for target in 1 3 5; do
    # At a fixed rate for as long as `target` capacities take; what counts is what was acknowledged.
    want_kib=$((target * capacity_mib * 1024))
    secs_needed=$(((want_kib - written_kib) / ring_rate + 1))
    bench "ring-$target" --writers 16 --streams 8 --rate "$ring_rate" --duration "${secs_needed}s" --warmup 0s
    written_kib=$((written_kib + $(jq '.writes.records // 0' "$work/ring-$target.json" 2>/dev/null || echo 0)))
    size="$(psql_on "$ring_db" "SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c WHERE c.relkind = 'r' AND c.relname LIKE 'pico_wal%'")"
    echo "$target $((written_kib / 1024)) $size" >>"$work/ring.sizes"
  done
  stop_node
fi
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

row() { # row LABEL FILE
  jq -r --arg name "$1" '"| \($name) | \(.writes.ackLatencyMs.p50) | \(.writes.ackLatencyMs.p99) | \(.writes.recordsPerSecond | floor) | \(.writes.errors) |"' "$2" 2>/dev/null \
    || echo "| $1 | - | - | - | no report |"
}
echo
echo "WALs compared at $started, commit $(git -C "$root" rev-parse --short HEAD), 1 KiB records, data objects on S3Proxy; load average $load_before before, $load_after after"
echo
echo "| WAL, writers | ack p50 ms | ack p99 ms | records/s | errors |"
echo "| --- | ---: | ---: | ---: | ---: |"
if wants s3; then row "object WAL (S3Proxy), 1" "$work/s3-seq.json"; row "object WAL (S3Proxy), $writers" "$work/s3-par.json"; fi
if wants postgres; then row "Postgres WAL, 1" "$work/postgres-seq.json"; row "Postgres WAL, $writers" "$work/postgres-par.json"; fi
if wants s3; then
  echo
  echo "Object WAL: $s3_requests_per_million WAL PUT and LIST requests per million appends under $writers writers."
fi
if wants postgres; then
  echo
  echo "Postgres WAL database: $tps_postgres transactions/s committed under $writers writers."
  echo
  echo "| written (x ring capacity) | MiB written | WAL tables' size |"
  echo "| --- | ---: | ---: |"
  while read -r times mib bytes; do
    echo "| ${times}x | $mib | $(awk -v b="$bytes" 'BEGIN { printf "%.1f MiB", b / 1048576 }') |"
  done <"$work/ring.sizes"
fi
