# Sourced by bench-compare.sh (--only workloads): one row per (workload, server), Durable Streams
# protocol. Appends are measured write-only with pico bench; creates with wrk and a Lua script,
# since pico bench drives appends only. Uses bench-compare.sh's helpers and variables.

wants_workload() { [[ ",$workloads," == *",$1,"* ]]; }

# workload_bench NAME PORT WRITERS STREAMS: pico bench, write-only, report in $work/NAME.json
workload_bench() {
  local name="$1" port="$2" writers="$3" streams="$4"
  echo "bench-compare: $name: $writers writers on $streams streams for $warmup + $duration" >&2
  "$root/bin/pico" bench --protocol ds --endpoint "http://127.0.0.1:$port" --write-only \
    --duration "$duration" --warmup "$warmup" --writers "$writers" --streams "$streams" \
    --connections "$((writers < 8 ? writers : 8))" --record-size "$record_size" \
    --interval 0 --json >"$work/$name.json" 2>"$work/$name.progress" \
    || echo "bench-compare: $name: pico bench exited with $?" >&2
}

# workload_create NAME PORT: wrk PUTs a new stream per request on 64 connections
workload_create() {
  local name="$1" port="$2"
  # Warmed up as the append workloads are (pico bench --warmup), the same for every server: the
  # JVM's first seconds are spent compiling, which a long-running server pays once.
  echo "bench-compare: $name: wrk creates at 64 connections, $warmup warm-up, then $duration" >&2
  RUN="$name-warmup" wrk -t4 -c64 -d"$warmup" -s "$root/scripts/bench/create.lua" "http://127.0.0.1:$port" \
    >/dev/null 2>&1 || true
  RUN="$name" wrk -t4 -c64 -d"$duration" --latency -s "$root/scripts/bench/create.lua" \
    "http://127.0.0.1:$port" >"$work/$name.wrk" 2>&1 \
    || echo "bench-compare: $name: wrk exited with $?" >&2
}

# workload_wrk_append NAME PORT THREADS CONNECTIONS STREAMS: wrk POSTs one record per request, each
# wrk thread to one stream (thread i to stream i mod STREAMS), after a warm-up; report in
# $work/NAME.wrk. The same method as the issue's own figures, with less client cost per request
# than pico bench (a Java client on the same cores).
workload_wrk_append() {
  local name="$1" port="$2" threads="$3" connections="$4" streams="$5" i bytes
  bytes="$(awk -v q="$record_size" 'BEGIN {
    n = q + 0; if (q ~ /KiB$/) n *= 1024; else if (q ~ /MiB$/) n *= 1048576; print n }')"
  for ((i = 0; i < streams; i++)); do
    curl -sf -o /dev/null -X PUT -H 'Content-Type: application/octet-stream' \
      "http://127.0.0.1:$port/v1/stream/wrk-$name-$i" \
      || echo "bench-compare: $name: creating stream $i failed" >&2
  done
  cat >"$work/$name.lua" <<LUA
-- Appends a record of $bytes bytes per request; wrk thread i writes to stream i mod $streams.
local counter = 0
function setup(thread) thread:set("id", counter); counter = counter + 1 end
function init(args)
  body = string.rep("x", $bytes)
  path = "/v1/stream/wrk-$name-" .. (id % $streams)
end
function request()
  return wrk.format("POST", path, {["Content-Type"] = "application/octet-stream"}, body)
end
LUA
  echo "bench-compare: $name: wrk appends, $connections connections on $streams streams, $warmup warm-up, then $duration" >&2
  wrk -t"$threads" -c"$connections" -d"$warmup" -s "$work/$name.lua" "http://127.0.0.1:$port" \
    >/dev/null 2>&1 || true
  wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$work/$name.lua" \
    "http://127.0.0.1:$port" >"$work/$name.wrk" 2>&1 \
    || echo "bench-compare: $name: wrk exited with $?" >&2
}

# run_workloads SERVER PORT [creates-only]
run_workloads() {
  local server="$1" port="$2" only_creates="${3:-}"
  if [ -z "$only_creates" ]; then
    if wants_workload w1; then workload_bench "$server-w1" "$port" 1 1; fi
    if wants_workload w64s1; then workload_bench "$server-w64s1" "$port" 64 1; fi
    if wants_workload w64s8; then workload_bench "$server-w64s8" "$port" 64 8; fi
    if wants_workload w256s8; then workload_bench "$server-w256s8" "$port" 256 8; fi
    if wants_workload wrk1; then workload_wrk_append "$server-wrk1" "$port" 1 1 1; fi
    if wants_workload wrk64s1; then workload_wrk_append "$server-wrk64s1" "$port" 8 64 1; fi
    if wants_workload wrk64s8; then workload_wrk_append "$server-wrk64s8" "$port" 8 64 8; fi
    if wants_workload wrk256s8; then workload_wrk_append "$server-wrk256s8" "$port" 8 256 8; fi
  fi
  if wants_workload create64; then workload_create "$server-create64" "$port"; fi
}

# start_server KIND DIR: picomq (ds, file://) on SQLite or Postgres, or the reference; sets
# server_pid and server_port
start_server() {
  local kind="$1" dir="$2" meta
  mkdir -p "$dir"
  server_port="$(free_port)"
  case "$kind" in
    reference)
      (cd "$reference_dir" && exec node start.mjs "$server_port" "$dir") >"$dir/server.log" 2>&1 &
      ;;
    *)
      meta="sqlite:$dir/meta.db"
      if [ "$kind" = postgres ]; then meta="$pg_run_url"; fi
      "$root/bin/pico" --protocol ds serve --listen "127.0.0.1:$server_port" --no-admin \
        --meta-url "$meta" "--storage=-2@file://$dir/objects" >"$dir/server.log" 2>&1 &
      ;;
  esac
  server_pid=$!
  pids+=("$server_pid")
  await_http "$server_port" "$server_pid" "$dir/server.log"
}

run_all_workloads() {
  if [[ ",$workloads," =~ ,(create64|wrk[0-9s]+), ]] && ! command -v wrk >/dev/null; then
    echo "bench-compare: the create64 and wrk workloads need wrk (apt-get install wrk)" >&2
    exit 1
  fi
  start_server sqlite "$work/wl-sqlite"
  run_workloads ours-sqlite "$server_port"
  stop "$server_pid"
  if [ -n "$pg_url" ] && wants_workload create64; then
    command -v psql >/dev/null || { echo "bench-compare: --pg-url needs psql" >&2; exit 1; }
    local db="bench_compare_$$" admin="${pg_url%/*}/postgres"
    psql -q "$admin" -c "CREATE DATABASE $db" >/dev/null
    pg_run_url="${pg_url%/*}/$db"
    start_server postgres "$work/wl-postgres"
    run_workloads ours-postgres "$server_port" creates-only
    stop "$server_pid"
    psql -q "$admin" -c "DROP DATABASE $db" >/dev/null || true
  fi
  start_server reference "$work/wl-reference"
  run_workloads reference "$server_port"
  stop "$server_pid"
}

workload_row() {
  local label="$1" server="$2" name="$3" file
  case "$name" in
    *create64|*-wrk*)
      file="$work/$name.wrk"
      [ -s "$file" ] || { printf '| %s | %s | failed | - | - | - |\n' "$label" "$server"; return 0; }
      awk -v label="$label" -v server="$server" '
        function ms(v) {
          if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0
          if (v ~ /s$/) return v * 1000; return v
        }
        /Requests\/sec/ { rps = $2 }
        /^ +50%/ { p50 = $2 }
        /^ +99%/ { p99 = $2 }
        /Non-2xx/ { errors = $NF }
        END {
          printf "| %s | %s | %d | %.2f | %.2f | %s non-2xx |\n", label, server, rps, ms(p50),
            ms(p99), (errors == "" ? 0 : errors)
        }' "$file"
      ;;
    *)
      file="$work/$name.json"
      has_report "$file" || { printf '| %s | %s | failed | - | - | - |\n' "$label" "$server"; return 0; }
      jq -r --arg what "$label" --arg server "$server" '
        def ms: if . == null then "-" else (. * 100 | round / 100 | tostring) end;
        "| \($what) | \($server) | \(.writes.recordsPerSecond | round) | \(.writes.ackLatencyMs.p50 | ms) | \(.writes.ackLatencyMs.p99 | ms) | \(.problems | length) |"' "$file"
      ;;
  esac
}

print_workloads() {
  echo
  echo "workloads: ds protocol, $record_size records; appends write-only with pico bench or wrk ($warmup warm-up + $duration), creates with wrk at 64 connections ($warmup warm-up + $duration); picomq on file:// with SQLite (and Postgres for creates), reference @durable-streams/server $ds_server_version; $(nproc) cores, load average $load_before before, $load_after after"
  echo
  echo "| workload | server | ops/s | p50 ms | p99 ms | problems |"
  echo "| --- | --- | ---: | ---: | ---: | ---: |"
  local w label
  for w in w1 w64s1 w64s8 w256s8 wrk1 wrk64s1 wrk64s8 wrk256s8 create64; do
    wants_workload "$w" || continue
    case "$w" in
      w1) label="1 writer, 1 stream" ;;
      w64s1) label="64 writers, 1 stream" ;;
      w64s8) label="64 writers, 8 streams" ;;
      w256s8) label="256 writers, 8 streams" ;;
      wrk1) label="wrk: 1 connection, 1 stream" ;;
      wrk64s1) label="wrk: 64 connections, 1 stream" ;;
      wrk64s8) label="wrk: 64 connections, 8 streams" ;;
      wrk256s8) label="wrk: 256 connections, 8 streams" ;;
      create64) label="creates, 64 connections" ;;
    esac
    workload_row "$label" "picomq, SQLite" "ours-sqlite-$w"
    if [ "$w" = create64 ] && [ -n "$pg_url" ]; then
      workload_row "$label" "picomq, Postgres" "ours-postgres-$w"
    fi
    workload_row "$label" reference "reference-$w"
  done
}
