#!/usr/bin/env bash
# Failover time (issue #13): how long the streams of a SIGKILLed node take to accept appends again
# through the live nodes, whether any acknowledged record is lost or duplicated, and how fast the
# taker recovers the dead node's WAL.
#
# For each node TTL (default: 10s, the default, and 2s) it starts 3 `pico serve` nodes on a fresh
# Postgres database and one bucket (S3Proxy, and/or a shared file:// directory), with acknowledged
# records kept in the WAL (--wal-upload-threshold 64MiB --wal-upload-interval-ms 600000: the
# takeover has to upload everything the killed node acknowledged since it started). Each round creates --streams streams round robin over the
# nodes, appends to each from its own client for --warmup seconds, SIGKILLs one node (3, 2, 1, ...)
# and measures, for each stream that node held open, the time from the SIGKILL to the first append
# acknowledged through a live node; then it restarts the killed node. Half of the clients retry
# every 100 ms, half pause like the Java SDK (Retry-After is a floor: 2 s after 503 recovering).
# A last round appends batches of 100 records for --bulk seconds before its kill, for the WAL
# recovery rate, read from the taker's log line `took over node N ... in X ms: ... Y uploaded (Z
# bytes)`. At the end every stream is read back: every acknowledged record must be there once.
#
# Usage: scripts/bench-failover.sh [--ttls 10s,2s] [--storage s3|file|s3,file] [--streams 32]
#          [--rounds 5] [--warmup 5] [--rate 20] [--bulk 15] [--wal-upload-interval-ms 600000] [--keep]
#   --rate  appends per second per stream at most (one in flight); 0: as fast as answered
#   --bulk  seconds of batch appends before the last kill of each run; 0: no bulk round
#   --wal-upload-interval-ms  the nodes' upload interval: the default keeps everything in the WAL
#           until the kill (as the nodes' own defaults do at this volume: no interval, an upload
#           threshold of 80 MiB); a short one keeps the WAL, and with it the takeover, short
# Needs a JDK >= 21, Maven (bin/pico builds itself; S3Proxy's classpath is resolved by Maven), a
# Postgres on 127.0.0.1:5432 where user postgres may create databases without a password
# (PICO_BENCH_PG overrides: postgres://user@host:port), psql and curl. The driver is
# scripts/bench/FailoverBench.java, run by the JDK's source launcher. The table goes to stdout,
# progress to stderr; the nodes' logs are in the temp dir it names. The defaults take about 13 min
# on a busy 2-core machine.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

ttls="10s,2s"
storages="s3"
streams=32
rounds=5
warmup=5
rate=20
bulk=15
wal_interval=600000
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --ttls) ttls="$2"; shift 2 ;;
    --storage) storages="$2"; shift 2 ;;
    --streams) streams="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --bulk) bulk="$2"; shift 2 ;;
    --wal-upload-interval-ms) wal_interval="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-failover.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for tool in curl psql; do
  command -v "$tool" >/dev/null || { echo "bench-failover.sh needs $tool on PATH." >&2; exit 1; }
done
pg="${PICO_BENCH_PG:-postgres://postgres@127.0.0.1:5432}"
pg_authority="${pg#postgres://}"
pg_user="${pg_authority%%@*}"
pg_hostport="${pg_authority#*@}"
psql_admin() { psql -q -h "${pg_hostport%%:*}" -p "${pg_hostport##*:}" -U "$pg_user" -d postgres -v ON_ERROR_STOP=1 -c "$1" >/dev/null; }

work="$(mktemp -d -t pico-bench-failover.XXXXXX)"
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
echo "bench-failover: working in $work" >&2

# Build the launcher once, then run that jar throughout, even if sources change meanwhile.
"$root/bin/pico" --version >/dev/null
export PICO_NO_BUILD=1
. "$root/bin/lib/java.sh"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

s3_port=""
. "$root/scripts/lib/s3proxy.sh"

# run KIND TTL: one cluster, fresh database and bucket; the driver's result line is kept
run() {
  local kind="$1" ttl="$2" name="$1-ttl$2" db storage
  db="bench_failover_$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
  psql_admin "CREATE DATABASE $db"
  databases+=("$db")
  if [ "$kind" = file ]; then
    storage="-2@file://$work/$name/objects"
  else
    local bucket="${db//_/-}" # S3 bucket names take no underscores
    mkdir -p "$work/s3proxy/blobs/$bucket"
    storage="-2@s3://$bucket?region=us-east-1&endpoint=http://127.0.0.1:$s3_port&pathStyle=true"
  fi
  echo "bench-failover: $name: 3 nodes, $rounds kills + $( [ "$bulk" -gt 0 ] && echo 1 || echo 0 ) bulk, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  AWS_ACCESS_KEY_ID=picomq-access AWS_SECRET_ACCESS_KEY=picomq-secret AWS_REGION=us-east-1 \
    java -Xmx1g "$root/scripts/bench/FailoverBench.java" --pico "$root/bin/pico" \
      --work "$work/$name" --meta-url "$pg/$db" --storage "$storage" --ttl "$ttl" \
      --streams "$streams" --rounds "$rounds" --warmup-sec "$warmup" --rate "$rate" \
      --bulk-sec "$bulk" --wal-upload-interval-ms "$wal_interval" --label "$name" | tee "$work/$name.out" >&2 \
    || echo "bench-failover: $name: the driver failed (see above and $work/$name)" >&2
  psql_admin "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true
}

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
started="$(date -u +%FT%TZ)"
[[ ",$storages," == *",s3,"* ]] && { start_s3proxy "$work/s3proxy" bench-failover; }
IFS=, read -r -a ttl_list <<<"$ttls"
IFS=, read -r -a storage_list <<<"$storages"
for kind in "${storage_list[@]}"; do
  for ttl in "${ttl_list[@]}"; do
    run "$kind" "$ttl"
  done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

# field FILE KEY: a key=value of the driver's result line
field() { grep '^result ' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
goal() {
  local ttl="$1" ms
  case "$ttl" in *ms) ms="${ttl%ms}" ;; *s) ms=$(( ${ttl%s} * 1000 )) ;; *m) ms=$(( ${ttl%m} * 60000 )) ;; *) ms=$(( ttl * 1000 )) ;; esac
  if [ "$ms" -le 2000 ]; then echo 5000; else echo $(( ms + 5000 )); fi
}
secs() { awk -v v="$1" 'BEGIN { if (v == "-" || v == "" || v < 0) print "-"; else printf "%.1f\n", v / 1000 }'; }

echo
echo "scripts/bench-failover.sh --ttls $ttls --storage $storages --streams $streams --rounds $rounds --warmup $warmup --rate $rate --bulk $bulk --wal-upload-interval-ms $wal_interval"
echo "$started, commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'); $(nproc) cores, load average $load_before before, $load_after after"
echo
echo "Time from the SIGKILL to the first append acknowledged through a live node, per stream the killed node held open (s):"
echo
echo "| storage | node TTL | kills | streams | p50 | p99 | max | goal (p99) | SDK-paced p50 / p99 / max | taker began, per kill (s) | taker done, per kill (s) |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
for kind in "${storage_list[@]}"; do
  for ttl in "${ttl_list[@]}"; do
    f="$work/$kind-ttl$ttl.out"
    if ! grep -q '^result ' "$f" 2>/dev/null; then
      echo "| $kind | $ttl | failed | | | | | | | | |"
      continue
    fi
    n=$(( $(field "$f" samples_poll) + $(field "$f" samples_sdk) ))
    began="$(field "$f" takeover_began_ms | tr ',' '\n' | while read -r v; do secs "$v"; done | paste -sd, - | sed 's/,/, /g')"
    done_at="$(field "$f" takeover_ended_ms | tr ',' '\n' | while read -r v; do secs "$v"; done | paste -sd, - | sed 's/,/, /g')"
    echo "| $kind | $ttl | $(field "$f" kills) | $n | $(secs "$(field "$f" poll_p50_ms)") | $(secs "$(field "$f" poll_p99_ms)") | $(secs "$(field "$f" poll_max_ms)") | $(secs "$(goal "$ttl")") | $(secs "$(field "$f" sdk_p50_ms)") / $(secs "$(field "$f" sdk_p99_ms)") / $(secs "$(field "$f" sdk_max_ms)") | $began | $done_at |"
  done
done
echo
echo "Acknowledged records, read back at the end, and the WAL recovery by the taker:"
echo
echo "| storage | node TTL | acknowledged | lost | duplicated | out of order | unknown outcome | live nodes taken over | WAL records uploaded by takeovers | MB | takeover time (s) | records/s | bulk round (100 records per append) |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
for kind in "${storage_list[@]}"; do
  for ttl in "${ttl_list[@]}"; do
    f="$work/$kind-ttl$ttl.out"
    grep -q '^result ' "$f" 2>/dev/null || continue
    up="$(field "$f" takeover_uploaded)"; by="$(field "$f" takeover_bytes)"; ms="$(field "$f" takeover_total_ms)"
    bu="$(field "$f" bulk_uploaded)"; bb="$(field "$f" bulk_bytes)"; bm="$(field "$f" bulk_ms)"
    bulk_cell="$(awk -v r="$bu" -v b="$bb" -v m="$bm" 'BEGIN { if (r == "-" || m <= 0) print "-"; else printf "%d appends = %d records, %.1f MB, %.1f s: %.0f records/s, %.1f MB/s", r, r * 100, b / 1e6, m / 1000, r * 100000 / m, b / 1e3 / m }')"
    echo "| $kind | $ttl | $(field "$f" acked) | $(field "$f" lost) | $(field "$f" duplicated) | $(field "$f" out_of_order) | $(field "$f" unknown) | $(field "$f" spurious_takeovers) | $up | $(awk -v b="$by" 'BEGIN { printf "%.1f", b / 1e6 }') | $(secs "$ms") | $(awk -v r="$up" -v m="$ms" 'BEGIN { printf "%.0f", (m > 0 ? r * 1000 / m : 0) }') | $bulk_cell |"
  done
done
echo
echo "Taker began/done: the taker's log lines 'stopped renewing ... taking over' and 'took over', after the SIGKILL."
echo "A WAL record is one append (the bulk round's appends carry 100 records each). Takeover time is the taker's, from its TakeOverNode proposal to the last stream closed."
