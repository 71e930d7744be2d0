#!/usr/bin/env bash
# Runs the engine's benchmark set (s3stream/s3stream-jmh) and prints a summary: acknowledged
# 1 KiB appends (throughput, p50/p99, CPU per append) on memory, file:// and S3Proxy; WAL group
# commit (PUTs/s against the bound 1000/batchInterval_ms + ingest/maxBytesInBatch + 1, PUTs per
# million records); cold replay of 1 GiB vs raw sequential GETs, after a crash and recovery;
# GETs caused by a reader following the tail.
#
# Usage: scripts/bench-engine.sh [--no-build] [--long]
#   --no-build  reuse s3stream/s3stream-jmh/target/benchmarks.jar
#   --long      longer JMH iterations and bigger read runs (about 25 minutes instead of about 10)
# Needs a JDK >= 21 (found as bin/* do: $JAVA_HOME, then the newest under /usr/lib/jvm).
# Output: the summary on stdout; every raw log under $BENCH_OUT (default target/bench-engine/).
# The machine's load average is printed next to every figure: figures taken while other work
# runs are lower bounds.
set -euo pipefail

cd "$(dirname "$0")/.."
. bin/lib/java.sh

build=1
long=0
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    --long) long=1 ;;
    *) echo "bench-engine.sh: unknown argument '$arg' (use --no-build, --long)" >&2; exit 2 ;;
  esac
done

jar=s3stream/s3stream-jmh/target/benchmarks.jar
out=${BENCH_OUT:-target/bench-engine}
mkdir -p "$out"
summary="$out/summary.txt"
: > "$summary"

if [ "$build" = 1 ]; then
  echo "building $jar ..." >&2
  mvn -B -ntp -q package -DskipTests -Dspotless.check.skip=true -pl s3stream/s3stream-jmh -am >&2
fi
[ -f "$jar" ] || { echo "bench-engine.sh: $jar is missing (run without --no-build)" >&2; exit 1; }

if [ "$long" = 1 ]; then
  jmh_time=(-f 1 -wi 3 -i 5 -w 5s -r 10s)
  replay_mib=1024; replay_passes=9; tail_records=2000000; s3_tail_records=500000
else
  jmh_time=(-f 1 -wi 2 -i 3 -w 3s -r 4s)
  replay_mib=128; replay_passes=5; tail_records=1000000; s3_tail_records=200000
fi

load() { cut -d' ' -f1-3 /proc/loadavg; }
java_=("$JAVA_HOME/bin/java" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn)

# note "title" file: appends the figure lines of a run to the summary, with the load average.
# Of the per-iteration lines ("  [memory, 256 in flight] ...") only each run's last is kept.
note() {
  {
    echo "== $1 (load average before: $2; after: $(load))"
    grep -E "$3" "$4" | awk '
      /^ *\[/ { k = substr($0, index($0, "["), index($0, "]") - index($0, "[") + 1)
                 if (!(k in last)) order[++n] = k
                 last[k] = $0; next }
      { print }
      END { for (i = 1; i <= n; i++) print last[order[i]] }' | grep . || echo "   (no result: see $4)"
    echo
  } >> "$summary"
}

jmh() { # name, grep pattern, jmh args...
  local name=$1 pattern=$2 before log="$out/$1.log"
  shift 2
  before=$(load)
  echo "running $name ..." >&2
  "${java_[@]}" -jar "$jar" "$@" "${jmh_time[@]}" -jvmArgsAppend -Dorg.slf4j.simpleLogger.defaultLogLevel=warn > "$log" 2>&1 || true
  note "$name" "$before" "$pattern" "$log"
}

main_() { # name, grep pattern, class, args...
  local name=$1 pattern=$2 class=$3 before log="$out/$1.log"
  shift 3
  before=$(load)
  echo "running $name ..." >&2
  "${java_[@]}" -Xmx4g -cp "$jar" "io.picomq.s3stream.jmh.$class" "$@" > "$log" 2>&1 || true
  note "$name" "$before" "$pattern" "$log"
}

results='^(Append|Wal)Benchmark\.[A-Za-z0-9]+ |ack latency|process CPU'

jmh append-throughput "$results" 'AppendBenchmark.pipelined' -p backend=memory,file -p inFlight=256,1024
# The same with a 250 us group-commit window: with N appends in flight the rate cannot pass
# N * 1000 / batchInterval_ms (each window acknowledges at most the N records in flight).
jmh append-throughput-250us "$results" 'AppendBenchmark.pipelined' -p backend=memory -p inFlight=256 -p walBatchIntervalMicros=250
jmh append-throughput-s3 "$results" 'AppendBenchmark.pipelined' -p backend=s3 -p inFlight=256,4096
jmh append-sequential '^AppendBenchmark\.sequential(:p0\.50|:p0\.99)? ' 'AppendBenchmark.sequential' -p backend=memory,file,s3 -p inFlight=256
jmh wal-group-commit "$results|PUTs" 'WalBenchmark.append256InFlight' -p store=memory,file,s3
# The directory's raw sequential write rate (1 MiB, then fsync; ops/s = MiB/s): file:// writes
# every byte twice (WAL, then the data object), so half of it is the ceiling.
jmh raw-fsync "$results" 'WalBenchmark.rawFsyncedWrite' -p store=file
main_ read-replay 'replay' ReadBenchmark "$replay_passes" "$replay_mib" memory,file,s3
# The goal is stated for 1 GiB; five passes, each a new engine with a cold block cache, and the
# median ratio, because one pass on 2 shared cores varies by a third.
main_ cold-replay-after-crash 'cold replay' ColdReplayBenchmark 1024 file,memory,s3 5
main_ tail-reader 'tail reader' TailReadBenchmark "$tail_records" memory,file
main_ tail-reader-s3 'tail reader' TailReadBenchmark "$s3_tail_records" s3

echo
echo "Engine benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $("$JAVA_HOME/bin/java" -version 2>&1 | head -1)"
cat "$summary"
echo "raw logs: $out/"
