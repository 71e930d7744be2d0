#!/usr/bin/env bash
# Stream transfers (issue #14, item 5): what moving streams between nodes costs the clients that
# write to them, how long a drain of many open streams takes, and what a rolling restart shows the
# clients.
#
# For each storage it starts 3 `pico serve` nodes (their own defaults otherwise) on a fresh
# Postgres database and one bucket (S3Proxy, and/or a shared file:// directory) and runs, on that
# cluster:
#  1. Handoff under load: --streams streams, each with its own client appending one record at a
#     time, at most --rate a second, through one node's endpoint (stream i through node i mod 3 +
#     1), following 307s. Each of --rounds rounds transfers one stream (the streams in turn) to
#     the next node with POST /admin/transfer. The handoff time is what that stream's client
#     sees: from just before the POST is sent to the first acknowledgement of an append to the
#     stream answered by the target node (which answers only once the stream is open there). A
#     client retries 100 ms after anything but a 200, each time with a new, unique record. "Warm"
#     leaves out the first 3 transfers, each node's first as source and target (cold code).
#  2. Rolling restart under the same load: each node in turn is drained (POST /admin/drain, until
#     GET /admin/nodes shows it with 0 streams and GET /admin/cluster no pending transfer), taken
#     out of the clients' endpoints (as a load balancer would), stopped with SIGTERM, started
#     again, given its slot back (POST /admin/nodes/{id}) and its clients back; then a rebalance.
#  Errors: every attempt not answered 200, after following redirects: a non-2xx answer or a
#  transport error (refused or broken connection, timeout), counted before the retry; an append
#  still not acknowledged after 30 s of retries failed for good. At the end every stream is read
#  back: every acknowledged record must be there exactly once, in order, and no refused one.
#  3. Drain: node 1 is emptied, nodes 2 and 3 get 0 slots, --drain-streams streams are created
#     (placed on node 1) with one record each (so they are open there); nodes 2 and 3 get their
#     slot back and node 1 is drained: the time from POST /admin/drain until GET /admin/nodes
#     shows node 1 with 0 streams and GET /admin/cluster no pending transfer. Each of those
#     streams is then read back.
#
# Usage: scripts/bench-transfer.sh [--storage s3,file] [--streams 32] [--rate 20] [--rounds 64]
#          [--warmup 5] [--drain-streams 1000] [--keep]
# Needs a JDK >= 21, Maven (bin/pico builds itself; S3Proxy's classpath is resolved by Maven), a
# Postgres on 127.0.0.1:5432 where user postgres may create databases without a password
# (PICO_BENCH_PG overrides: postgres://user@host:port), psql and curl. The driver is
# scripts/bench/TransferBench.java, run by the JDK's source launcher. The table goes to stdout,
# progress to stderr; the nodes' logs are in the temp dir it names (kept with --keep). The
# defaults take about 5 min on a quiet 2-core machine.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

storages="s3,file"
streams=32
rate=20
rounds=64
warmup=5
drain_streams=1000
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --storage) storages="$2"; shift 2 ;;
    --streams) streams="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --drain-streams) drain_streams="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-transfer.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for tool in curl psql; do
  command -v "$tool" >/dev/null || { echo "bench-transfer.sh needs $tool on PATH." >&2; exit 1; }
done
pg="${PICO_BENCH_PG:-postgres://postgres@127.0.0.1:5432}"
pg_authority="${pg#postgres://}"
pg_user="${pg_authority%%@*}"
pg_hostport="${pg_authority#*@}"
psql_admin() { PGOPTIONS='-c client_min_messages=warning' psql -q -h "${pg_hostport%%:*}" -p "${pg_hostport##*:}" -U "$pg_user" -d postgres -v ON_ERROR_STOP=1 -c "$1" >/dev/null; }

work="$(mktemp -d -t pico-bench-transfer.XXXXXX)"
pids=()
databases=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for db in "${databases[@]}"; do psql_admin "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true; done
  if [ "$keep" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "bench-transfer: working in $work" >&2

# Build the launcher once, then run that jar throughout, even if sources change meanwhile.
"$root/bin/pico" --version >/dev/null
export PICO_NO_BUILD=1
. "$root/bin/lib/java.sh"

s3_port=""
. "$root/scripts/lib/s3proxy.sh"

# run KIND: one cluster, fresh database and bucket; the driver's output is kept in $work/KIND.out
run() {
  local kind="$1" db storage
  db="bench_transfer_$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
  psql_admin "CREATE DATABASE $db"
  databases+=("$db")
  if [ "$kind" = file ]; then
    storage="-2@file://$work/$kind/objects"
  else
    local bucket="${db//_/-}" # S3 bucket names take no underscores
    mkdir -p "$work/s3proxy/blobs/$bucket"
    storage="-2@s3://$bucket?region=us-east-1&endpoint=http://127.0.0.1:$s3_port&pathStyle=true"
  fi
  echo "bench-transfer: $kind: 3 nodes, $streams streams at $rate appends/s, $rounds transfers, a rolling restart, a drain of $drain_streams streams; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  AWS_ACCESS_KEY_ID=picomq-access AWS_SECRET_ACCESS_KEY=picomq-secret AWS_REGION=us-east-1 \
    java -Xmx1g "$root/scripts/bench/TransferBench.java" --pico "$root/bin/pico" \
      --work "$work/$kind" --meta-url "$pg/$db" --storage "$storage" --streams "$streams" \
      --rate "$rate" --rounds "$rounds" --warmup-sec "$warmup" --drain-streams "$drain_streams" \
      --label "$kind" | tee "$work/$kind.out" >&2 \
    || echo "bench-transfer: $kind: the driver failed (see above and $work/$kind)" >&2
  psql_admin "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true
}

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
started="$(date -u +%FT%TZ)"
IFS=, read -r -a storage_list <<<"$storages"
[[ ",$storages," == *",s3,"* ]] && { start_s3proxy "$work/s3proxy" bench-transfer; }
for kind in "${storage_list[@]}"; do
  run "$kind"
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

# field FILE KEY: a key=value of the driver's result line
field() { grep '^result ' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
ms() { awk -v v="$1" 'BEGIN { if (v == "-" || v == "" || v < 0) print "-"; else printf "%d\n", v }'; }
secs() { awk -v v="$1" 'BEGIN { if (v == "-" || v == "" || v < 0) print "-"; else printf "%.1f\n", v / 1000 }'; }
list_secs() { tr ',' '\n' <<<"$1" | while read -r v; do secs "$v"; done | paste -sd, - | sed 's/,/, /g'; }
kinds() { [ "$1" = none ] && echo 0 || sed 's/_/ /g; s/:/ /g; s/,/, /g' <<<"$1"; }
ok() { [ -n "$1" ] && [ "$1" != "-" ] && [ "$1" -le "$2" ] 2>/dev/null && echo yes || echo no; }

echo
echo "scripts/bench-transfer.sh --storage $storages --streams $streams --rate $rate --rounds $rounds --warmup $warmup --drain-streams $drain_streams"
echo "$started, commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'); $(nproc) cores, load average $load_before before, $load_after after"
echo
echo "Handoff under load: from POST /admin/transfer to the stream's first append acknowledged by the target (ms):"
echo
echo "| storage | transfers | p50 | p99 | max | warm p50 / p99 / max | goal (p99) | met (all / warm) | ack gap p50 / p99 / max | any append p50 / p99 | requests | errors |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |"
for kind in "${storage_list[@]}"; do
  f="$work/$kind.out"
  if ! grep -q '^result ' "$f" 2>/dev/null; then
    echo "| $kind | failed | | | | | | | | | | |"
    continue
  fi
  goal=1000; [ "$kind" = file ] && goal=250
  p99="$(field "$f" handoff_p99_ms)"
  missing="$(field "$f" handoff_missing)"
  met="$(ok "$p99" "$goal") / $(ok "$(field "$f" warm_p99_ms)" "$goal")"
  [ "$missing" != 0 ] && met="no ($missing without a target acknowledgement)"
  echo "| $kind | $(field "$f" rounds) | $(ms "$(field "$f" handoff_p50_ms)") | $(ms "$p99") | $(ms "$(field "$f" handoff_max_ms)") | $(ms "$(field "$f" warm_p50_ms)") / $(ms "$(field "$f" warm_p99_ms)") / $(ms "$(field "$f" warm_max_ms)") | $goal | $met | $(ms "$(field "$f" gap_p50_ms)") / $(ms "$(field "$f" gap_p99_ms)") / $(ms "$(field "$f" gap_max_ms)") | $(ms "$(field "$f" append_p50_ms)") / $(ms "$(field "$f" append_p99_ms)") | $(field "$f" handoff_requests) | $(field "$f" handoff_errors): $(kinds "$(field "$f" handoff_error_kinds)") |"
done
echo
echo "Where the handoff time went, p50 / max (ms from the POST; by the source's log line 'handed stream N off to node M in X ms', to the millisecond):"
echo
echo "| storage | until the source began | the source's work (appends awaited, stream closed, completion accepted) | from the completion to the target's acknowledgement |"
echo "| --- | ---: | ---: | ---: |"
for kind in "${storage_list[@]}"; do
  f="$work/$kind.out"
  grep -q '^result ' "$f" 2>/dev/null || continue
  echo "| $kind | $(ms "$(field "$f" source_began_p50_ms)") / $(ms "$(field "$f" source_began_max_ms)") | $(ms "$(field "$f" source_took_p50_ms)") / $(ms "$(field "$f" source_took_max_ms)") | $(ms "$(field "$f" after_p50_ms)") / $(ms "$(field "$f" after_max_ms)") |"
done
echo
echo "Rolling restart under load (each node drained, SIGTERM, started, slot back; then a rebalance), and the read-back:"
echo
echo "| storage | drain per node (s) | stopped to back (s) | rebalance | requests | errors (goal 0) | failed for good | acknowledged | lost | duplicated | out of order | refused but written |"
echo "| --- | --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for kind in "${storage_list[@]}"; do
  f="$work/$kind.out"
  grep -q '^result ' "$f" 2>/dev/null || continue
  echo "| $kind | $(list_secs "$(field "$f" rolling_drain_ms)") | $(list_secs "$(field "$f" rolling_down_ms)") | $(field "$f" rebalance_moves) moves, $(secs "$(field "$f" rebalance_ms)") s | $(field "$f" rolling_requests) | $(field "$f" rolling_errors): $(kinds "$(field "$f" rolling_error_kinds)") | $(field "$f" failed_for_good) | $(field "$f" acked) | $(field "$f" lost) | $(field "$f" duplicated) | $(field "$f" out_of_order) | $(field "$f" refused_written) |"
done
echo
echo "Drain of open streams off node 1 (to nodes 2 and 3), from POST /admin/drain to node 1 empty and no transfer pending:"
echo
echo "| storage | streams | open on node 1 before | answered (s) | drained (s) | streams/s | open on 2 and 3 after | read back wrong |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for kind in "${storage_list[@]}"; do
  f="$work/$kind.out"
  grep -q '^result ' "$f" 2>/dev/null || continue
  d="$(field "$f" drain_ms)"
  rate_cell="$(awk -v n="$(field "$f" drain_streams)" -v m="$d" 'BEGIN { if (m <= 0) print "-"; else printf "%.0f", n * 1000 / m }')"
  echo "| $kind | $(field "$f" drain_streams) | $(field "$f" drain_open_before) | $(secs "$(field "$f" drain_answer_ms)") | $(secs "$d") | $rate_cell | $(field "$f" drain_open_after) | $(field "$f" drain_read_wrong) |"
done
echo
echo "Ack gap: from the stream's acknowledgement before the target's first to that one (the client appends at most $rate times a second; 0: as fast as answered)."
echo "Warm: without the first 3 transfers, each node's first as source and as target (code not yet run in that JVM). With 64 transfers or fewer, p99 is the slowest."
echo "Any append: the latency of every acknowledged append during the transfers, the scale of one append (a handoff ends with one)."
echo "Requests: attempts by all clients during the phase; an error is an attempt not answered 200 after following 307s (retried 100 ms later with a new record)."
