#!/usr/bin/env bash
# PicoMQ inside Postgres, measured (issue 16, item 3), in one run on one throwaway cluster:
#  1. start: pg_ctl start to the node answering /ready, --starts times (a stop in between);
#  2. memory: the worker's RSS (VmRSS, and RssAnon: what the JVM allocated, without the shared
#     memory it maps) idle after start and after the benchmark, beside a plain backend's and
#     `pico serve`'s after the same benchmark;
#  3. appends: `pico bench --write-only` (1 KiB records) with 1 writer and with --writers writers,
#     through the extension's node, then through `pico serve` whose metadata log is in another
#     database of the same cluster (the extension's node stays up, idle); both keep their WAL in
#     their database (the Postgres WAL, the extension's default), file:// storage for both.
# Usage: scripts/bench-extension.sh [--duration 20s] [--warmup 10s] [--writers 64] [--starts 3] [--keep]
# Run as root (it installs the extension; the cluster runs as postgres), after a build
# (picomq/pico-cli/target/pico.jar). Needs Debian's postgresql-15, curl and jq. Prints a
# Markdown report to stdout, progress to stderr. About 3 minutes with the defaults.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
duration=20s
warmup=10s
writers=64
starts=3
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --writers) writers="$2"; shift 2 ;;
    --starts) starts="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-extension.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "bench-extension.sh runs as root." >&2; exit 1; }
command -v jq >/dev/null || { echo "bench-extension.sh needs jq." >&2; exit 1; }
. "$root/bin/lib/java.sh"
pgbin=/usr/lib/postgresql/15/bin
jar="$root/picomq/pico-cli/target/pico.jar"
[ -f "$jar" ] || { echo "bench-extension.sh: build first (no $jar)" >&2; exit 1; }
export PICO_NO_BUILD=1
make -s -C "$root/picomq/pico-extension" PG_CONFIG="$pgbin/pg_config" PICO_JAR="$jar" install >/dev/null

work="$(mktemp -d -t pico-bench-extension.XXXXXX)"
chmod 755 "$work"
chown postgres "$work"
data="$work/data"
serve_pid=""
cleanup() {
  [ -n "$serve_pid" ] && { kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; }
  [ -f "$data/postmaster.pid" ] && runuser -u postgres -- "$pgbin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
  if [ "$keep" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "bench-extension: working in $work" >&2

read -r pg_port node_port admin_port serve_port serve_admin < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(5)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))')
runuser -u postgres -- "$pgbin/initdb" -D "$data" -A trust -U postgres >/dev/null
cat >>"$data/postgresql.conf" <<CONF
port = $pg_port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work'
shared_preload_libraries = 'pico'
pico.storage = '-2@file://$work/objects'
pico.listen = '127.0.0.1:$node_port'
pico.admin_listen = '127.0.0.1:$admin_port'
CONF

wait_ready() {
  for _ in $(seq 1 1200); do
    curl -sf -o /dev/null "http://127.0.0.1:$1/ready" && return 0
    sleep 0.05
  done
  echo "bench-extension: no node ready on port $1" >&2
  exit 1
}
worker_pid() { ps -o pid=,args= --ppid "$(head -n1 "$data/postmaster.pid")" | awk '/picomq node/ {print $1}'; }
rss_mib() { # rss_mib PID FIELD: a /proc/PID/status field in MiB
  awk -v f="$2:" '$1 == f { printf "%d", $2 / 1024 }' "/proc/$1/status"
}

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
started_at="$(date -u +%FT%TZ)"
start_ms=()
for i in $(seq 1 "$starts"); do
  t0=$(date +%s%N)
  runuser -u postgres -- "$pgbin/pg_ctl" -D "$data" -l "$work/pg.log" -w start >/dev/null
  wait_ready "$admin_port"
  start_ms+=($((($(date +%s%N) - t0) / 1000000)))
  echo "bench-extension: start $i: ${start_ms[-1]} ms" >&2
  [ "$i" = "$starts" ] || runuser -u postgres -- "$pgbin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
done
sleep 2
worker="$(worker_pid)"
idle_rss="$(rss_mib "$worker" VmRSS)"
idle_anon="$(rss_mib "$worker" RssAnon)"

# One idle backend, for scale.
runuser -u postgres -- "$pgbin/psql" -X -h "$work" -p "$pg_port" -d postgres -c 'select pg_sleep(3)' >/dev/null &
sleep 1
backend="$(ps -o pid=,args= --ppid "$(head -n1 "$data/postmaster.pid")" | awk '/postgres postgres/ {print $1; exit}')"
backend_rss="$(rss_mib "$backend" VmRSS)"
backend_anon="$(rss_mib "$backend" RssAnon)"
wait

bench() { # bench NAME PORT ARGS...
  local name="$1" port="$2"; shift 2
  echo "bench-extension: $name: pico bench $*" >&2
  "$root/bin/pico" bench --endpoint "http://127.0.0.1:$port" --write-only --record-size 1KiB \
    --interval 5s --json --duration "$duration" --warmup "$warmup" "$@" >"$work/$name.json" \
    || echo "bench-extension: $name: pico bench exited with $?" >&2
}
bench extension-1 "$node_port" --writers 1
bench extension-n "$node_port" --writers "$writers" --streams 8
busy_rss="$(rss_mib "$worker" VmRSS)"
busy_anon="$(rss_mib "$worker" RssAnon)"

runuser -u postgres -- "$pgbin/psql" -X -q -h "$work" -p "$pg_port" -d postgres -c 'create database serve_bench' >/dev/null
mkdir -p "$work/serve-objects"
"$root/bin/pico" serve --listen "127.0.0.1:$serve_port" --admin-listen "127.0.0.1:$serve_admin" \
  --meta-url "postgres://postgres@127.0.0.1:$pg_port/serve_bench" \
  --wal "postgres://postgres@127.0.0.1:$pg_port/serve_bench" \
  --storage "-2@file://$work/serve-objects" >"$work/serve.log" 2>&1 &
serve_pid=$!
wait_ready "$serve_admin"
bench serve-1 "$serve_port" --writers 1
bench serve-n "$serve_port" --writers "$writers" --streams 8
serve_rss="$(rss_mib "$serve_pid" VmRSS)"
serve_anon="$(rss_mib "$serve_pid" RssAnon)"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

row() { # row LABEL FILE
  jq -r --arg name "$1" '"| \($name) | \(.writes.ackLatencyMs.p50) | \(.writes.ackLatencyMs.p99) | \(.writes.recordsPerSecond | floor) | \(.writes.errors) |"' "$2" 2>/dev/null \
    || echo "| $1 | - | - | - | no report |"
}
echo
echo "PicoMQ inside Postgres at $started_at, commit $(git -C "$root" rev-parse --short HEAD), $(nproc) cores, PostgreSQL $("$pgbin/postgres" -V | awk '{print $3}'), JDK $PICO_JAVA_MAJOR; load average $load_before before, $load_after after"
echo
echo "pg_ctl start to the node answering /ready: ${start_ms[*]} ms"
echo
echo "| process | RSS MiB | of which anonymous MiB |"
echo "| --- | ---: | ---: |"
echo "| picomq worker, idle after start | $idle_rss | $idle_anon |"
echo "| picomq worker, after the benchmark | $busy_rss | $busy_anon |"
echo "| pico serve, after the same benchmark | $serve_rss | $serve_anon |"
echo "| a plain idle backend, for scale | $backend_rss | $backend_anon |"
echo
echo "| node, writers | ack p50 ms | ack p99 ms | records/s | errors |"
echo "| --- | ---: | ---: | ---: | ---: |"
row "inside Postgres, 1" "$work/extension-1.json"
row "inside Postgres, $writers" "$work/extension-n.json"
row "pico serve, 1" "$work/serve-1.json"
row "pico serve, $writers" "$work/serve-n.json"
