#!/usr/bin/env bash
# End-to-end test of PicoMQ inside Postgres (picomq/pico-extension), on a throwaway cluster:
#   1. builds pico.jar if missing, builds and installs the extension (PGXS; installs
#      postgresql-server-dev-15 first when it is missing and we are root);
#   2. a cluster without pico.storage: the worker logs that it is not starting, exits 0, and is
#      not restarted;
#   3. initdb as the postgres OS user on free ports under a temp dir, shared_preload_libraries =
#      'pico', pico.storage = file:// in the temp dir, the Durable Streams protocol; pg_ctl start,
#      then wait for the node to answer (the time is printed);
#   4. create, append and read over HTTP (curl), then the official Durable Streams conformance
#      suite against the node (scripts/lib/ds-suite.sh, as scripts/ds-conformance-server.sh);
#   5. pg_ctl restart -m fast: every record survives;
#   6. SIGKILL of the worker while a writer appends: the postmaster restarts it, every
#      acknowledged record is there;
#   7. a streaming standby (pg_basebackup -R): no node runs there; then the primary stops and the
#      standby is promoted: the node starts on it and serves every record;
#   8. stops and removes everything; the last line is "e2e-extension: N passed, N failed".
# Run as root (it installs into Postgres's directories; the clusters run as postgres). Needs
# Debian's postgresql-15, a JDK >= 21, Maven (only when pico.jar is missing), curl, python3,
# Node.js and npm. Exits non-zero on any failure, after printing the tail of the server log.
# Takes about 2 minutes. KEEP=1 keeps the temp dir.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/bin/lib/java.sh"
. "$root/scripts/lib/ds-suite.sh"
PGVERSION="${PGVERSION:-15}"
pgbin="/usr/lib/postgresql/$PGVERSION/bin"
passed=0
failed=0
current_log=""

summary() { echo "e2e-extension: $passed passed, $failed failed"; }
fail() {
  failed=$((failed + 1))
  echo "FAIL: $*" >&2
  if [ -n "$current_log" ] && [ -f "$current_log" ]; then
    echo "--- last lines of $current_log ---" >&2
    tail -n 40 "$current_log" >&2
  fi
  summary
  exit 1
}
ok() { passed=$((passed + 1)); echo "ok: $*"; }

[ "$(id -u)" = 0 ] || { echo "e2e-extension.sh runs as root (it installs the extension; clusters run as postgres)." >&2; exit 1; }
[ -x "$pgbin/initdb" ] || { echo "e2e-extension.sh needs Debian's postgresql-$PGVERSION ($pgbin/initdb)." >&2; exit 1; }
id postgres >/dev/null 2>&1 || { echo "e2e-extension.sh needs the postgres OS user." >&2; exit 1; }
as_postgres() { runuser -u postgres -- "$@"; }

# ---- 1. build and install ----
if [ ! -f "/usr/include/postgresql/$PGVERSION/server/postgres.h" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "postgresql-server-dev-$PGVERSION" >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "postgresql-server-dev-$PGVERSION" >/dev/null; } \
    || { echo "e2e-extension.sh: cannot install postgresql-server-dev-$PGVERSION" >&2; exit 1; }
fi
jar="$root/picomq/pico-cli/target/pico.jar"
if [ ! -f "$jar" ]; then
  echo "building pico.jar..." >&2
  (cd "$root" && mvn -B -q -ntp package -DskipTests -Dspotless.check.skip=true -pl picomq/pico-cli -am >&2)
fi
make -s -C "$root/picomq/pico-extension" PG_CONFIG="$pgbin/pg_config" PICO_JAR="$jar" >/dev/null
make -s -C "$root/picomq/pico-extension" PG_CONFIG="$pgbin/pg_config" PICO_JAR="$jar" install >/dev/null
ok "built and installed the extension ($("$pgbin/pg_config" --pkglibdir)/pico.so, $("$pgbin/pg_config" --sharedir)/pico/pico.jar)"

# ---- a throwaway workspace, owned by postgres; everything started is stopped on exit ----
work="$(mktemp -d -t pico-e2e-extension.XXXXXX)"
chmod 755 "$work"
chown postgres "$work"
clusters=()
writer=""
cleanup() {
  [ -n "$writer" ] && kill "$writer" 2>/dev/null || true
  for data in "${clusters[@]}"; do
    [ -f "$data/postmaster.pid" ] && as_postgres "$pgbin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
  done
  if [ -z "${KEEP:-}" ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
}
trap cleanup EXIT

read -r pg_port node_port admin_port standby_port standby_node_port standby_admin_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(6)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))')
primary="$work/primary"
standby="$work/standby"
long_poll_sec=2

# The postmaster's child running the node (process title "postgres: picomq node"), or nothing.
worker_pid() {
  local postmaster
  postmaster="$(head -n1 "$1/postmaster.pid" 2>/dev/null)" || return 0
  ps -o pid=,args= --ppid "$postmaster" | awk '/picomq node/ {print $1}'
}
# Waits up to $2 seconds for the node's admin API on port $1 to say it is ready.
wait_ready() {
  local deadline=$((SECONDS + $2))
  while [ "$SECONDS" -lt "$deadline" ]; do
    curl -sf -o /dev/null "http://127.0.0.1:$1/ready" && return 0
    sleep 0.1
  done
  return 1
}
psql_at() { as_postgres "$pgbin/psql" -X -At -h "$work" -p "$1" -d postgres -c "$2"; }

# ---- 2. without pico.storage the worker does not start, and is not restarted ----
bare="$work/bare"
clusters+=("$bare")
as_postgres "$pgbin/initdb" -D "$bare" -A trust -U postgres >/dev/null
cat >>"$bare/postgresql.conf" <<CONF
port = $pg_port
listen_addresses = ''
unix_socket_directories = '$work'
shared_preload_libraries = 'pico'
CONF
current_log="$work/bare.log"
as_postgres "$pgbin/pg_ctl" -D "$bare" -l "$current_log" -w start >/dev/null
for _ in $(seq 1 100); do grep -q 'pico.storage is not set' "$current_log" && break; sleep 0.1; done
grep -q 'pico: pico.storage is not set, so the PicoMQ node is not starting' "$current_log" \
  || fail "without pico.storage, the worker should log that it is not starting"
sleep 6 # past the 5 s restart interval: status 0 unregisters the worker (the postmaster logs
# only other statuses), so no worker runs and the line is there once
[ -z "$(worker_pid "$bare")" ] || fail "without pico.storage, a worker still runs"
[ "$(grep -c 'pico.storage is not set' "$current_log")" = 1 ] || fail "the worker without pico.storage was restarted"
grep -q 'background worker "picomq" .* exited with exit code' "$current_log" \
  && fail "the worker without pico.storage should exit with status 0"
as_postgres "$pgbin/pg_ctl" -D "$bare" -m fast -w stop >/dev/null
ok "without pico.storage the worker logs that it is not starting, exits 0 and stays down"

# ---- 3. the cluster with the node ----
clusters+=("$primary")
as_postgres "$pgbin/initdb" -D "$primary" -A trust -U postgres >/dev/null
cat >>"$primary/postgresql.conf" <<CONF
port = $pg_port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work'
shared_preload_libraries = 'pico'
pico.storage = '-2@file://$work/objects'
pico.listen = '127.0.0.1:$node_port'
pico.admin_listen = '127.0.0.1:$admin_port'
pico.protocol = 'ds'
pico.options = '--long-poll-timeout-sec $long_poll_sec'
CONF
current_log="$work/primary.log"
started=$(date +%s%N)
as_postgres "$pgbin/pg_ctl" -D "$primary" -l "$current_log" -w start >/dev/null
wait_ready "$admin_port" 120 || fail "the node did not become ready after pg_ctl start"
start_ms=$((($(date +%s%N) - started) / 1000000))
ok "pg_ctl start to the node answering /ready: ${start_ms} ms (load average $(cut -d' ' -f1-3 /proc/loadavg))"
grep -q 'LOG:  pico: INFO Node - node 1 epoch .* serving ds on' "$current_log" \
  || fail "the node's start-up line should be in the Postgres log with a pico: prefix"
[ -n "$(worker_pid "$primary")" ] || fail "no 'picomq node' process under the postmaster"
ok "the node's log lines reach the Postgres log with a pico: prefix"
grep -q 'pico: INFO PostgresWals - Postgres WAL of cluster .* at postgres://[^ ]*/postgres?' "$current_log" \
  || fail "the node's WAL should be in the metadata database (the Postgres WAL)"
ok "the WAL is in the server's own database (the Postgres WAL, over its socket)"

# ---- 4. create, append, read; the conformance suite ----
base="http://127.0.0.1:$node_port/v1/stream"
stream="$base/e2e/records"
count_records() { # prints how many records the stream holds, and checks they are 1..n in order
  curl -sf "$stream?offset=-1" | python3 -c '
import json, sys
records = json.load(sys.stdin)
assert [r["n"] for r in records] == list(range(1, len(records) + 1)), "records out of order or missing"
print(len(records))'
}
appended=0
append() { # append N more records {"n": k}
  local i code
  for i in $(seq 1 "$1"); do
    appended=$((appended + 1))
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
      -d "{\"n\":$appended}" "$stream")
    case "$code" in 2*) ;; *) fail "append $appended answered HTTP $code" ;; esac
  done
}
code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/json' "$stream")
case "$code" in 2*) ;; *) fail "creating the stream answered HTTP $code" ;; esac
append 50
[ "$(count_records)" = 50 ] || fail "reading back: expected 50 records, got $(count_records)"
ok "create, 50 appends and a read over HTTP"

if ! ds_conformance_suite "http://127.0.0.1:$node_port" "$long_poll_sec" "$work/conformance-report.json" \
  >"$work/conformance.log" 2>&1; then
  tail -n 40 "$work/conformance.log" >&2
  fail "the Durable Streams conformance suite failed against the node inside Postgres"
fi
ok "the official Durable Streams conformance suite: $(grep -E '^ +Tests ' "$work/conformance.log" | tail -n1 | tr -s ' ')"

# ---- 5. fast restart ----
as_postgres "$pgbin/pg_ctl" -D "$primary" -l "$current_log" -m fast -w restart >/dev/null
wait_ready "$admin_port" 120 || fail "the node did not come back after pg_ctl restart -m fast"
grep -q 'pico: stopping the PicoMQ node: closing its listeners' "$current_log" \
  || fail "the worker should log that it stops the node on a fast shutdown"
[ "$(count_records)" = "$appended" ] || fail "after a fast restart: expected $appended records, got $(count_records)"
append 10
[ "$(count_records)" = "$appended" ] || fail "appending after the restart"
ok "pg_ctl restart -m fast: all $appended records survive, and appends go on"

# ---- 6. SIGKILL of the worker while a writer appends ----
acked="$work/acked"
: >"$acked"
(
  n=$appended
  for _ in $(seq 1 400); do
    n=$((n + 1))
    code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
      -d "{\"n\":$n}" "$stream" || true)
    case "$code" in 2*) echo "$n" >>"$acked" ;; *) exit 0 ;; esac
  done
) &
writer=$!
for _ in $(seq 1 100); do [ "$(wc -l <"$acked")" -ge 20 ] && break; sleep 0.05; done
victim="$(worker_pid "$primary")"
[ -n "$victim" ] || fail "no worker to kill"
kill -9 "$victim"
wait "$writer" || true
writer=""
acknowledged=$(wc -l <"$acked")
wait_ready "$admin_port" 180 || fail "the node did not come back after its worker was SIGKILLed"
[ -n "$(worker_pid "$primary")" ] && [ "$(worker_pid "$primary")" != "$victim" ] || fail "no new worker after SIGKILL"
# The records are {"n": 1..m} in order with no gap, so every acknowledged one is there when m
# reaches the last acknowledged n (an unacknowledged append may have landed too: that is allowed).
last_acked=$(tail -n1 "$acked")
have=$(count_records)
[ "$have" -ge "${last_acked:-0}" ] || fail "after SIGKILL: $have records, but $last_acked was acknowledged"
appended=$have
append 5
[ "$(count_records)" = "$appended" ] || fail "appending after the SIGKILL restart"
ok "SIGKILL of the worker during $acknowledged acknowledged appends: restarted, none lost ($have records)"

# ---- 7. a streaming standby runs no node; promoted, it does ----
clusters+=("$standby")
as_postgres "$pgbin/pg_basebackup" -h "$work" -p "$pg_port" -U postgres -D "$standby" -R -X stream >/dev/null
cat >>"$standby/postgresql.conf" <<CONF
port = $standby_port
pico.listen = '127.0.0.1:$standby_node_port'
pico.admin_listen = '127.0.0.1:$standby_admin_port'
CONF
current_log="$work/standby.log"
as_postgres "$pgbin/pg_ctl" -D "$standby" -l "$current_log" -w start >/dev/null
[ "$(psql_at "$standby_port" 'select pg_is_in_recovery()')" = t ] || fail "the standby is not in recovery"
sleep 3
[ -z "$(worker_pid "$standby")" ] || fail "a picomq worker runs on the standby"
curl -s -o /dev/null "http://127.0.0.1:$standby_admin_port/ready" && fail "something answers on the standby's node port"
grep -q 'pico: starting' "$current_log" && fail "the standby started a node"
ok "a streaming standby runs no node"

as_postgres "$pgbin/pg_ctl" -D "$primary" -m fast -w stop >/dev/null
as_postgres "$pgbin/pg_ctl" -D "$standby" -w promote >/dev/null
# This standby is asynchronous, so the Postgres WAL refuses the new timeline until an operator
# who checked records it, as its error says (an UPDATE of the node's row). The node reads the
# timeline new WAL goes to, which is the new one from the moment of the promotion: it must refuse
# before it serves anything.
promoted_node_up() {
  local deadline=$((SECONDS + 120)) timeline
  while [ "$SECONDS" -lt "$deadline" ]; do
    curl -sf -o /dev/null "http://127.0.0.1:$standby_admin_port/ready" \
      && fail "the node started on a promoted asynchronous standby before its timeline was recorded"
    timeline=$(grep -o 'moved from timeline [0-9]* to [0-9]* (a promoted standby) without a synchronous standby' \
      "$current_log" | head -1 | awk '{print $6}')
    if [ -n "$timeline" ]; then
      psql_at "$standby_port" "UPDATE pico_wal_node SET timeline = $timeline" >/dev/null
      ok "promoted asynchronous standby: the node refuses the new timeline until it is recorded"
      wait_ready "$standby_admin_port" 60
      return
    fi
    sleep 0.2
  done
  return 1
}
promoted_node_up || fail "the node did not start on the promoted standby"
stream="http://127.0.0.1:$standby_node_port/v1/stream/e2e/records"
[ "$(count_records)" = "$appended" ] || fail "on the promoted standby: expected $appended records, got $(count_records)"
append 5
[ "$(count_records)" = "$appended" ] || fail "appending on the promoted standby"
ok "promoted, the standby starts the node, which serves all $appended records and appends"

# ---- 8. stop and remove ----
as_postgres "$pgbin/pg_ctl" -D "$standby" -m fast -w stop >/dev/null
ok "stopped; the temp dir goes"
summary
