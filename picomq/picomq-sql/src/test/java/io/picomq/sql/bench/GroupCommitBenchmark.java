package io.picomq.sql.bench;

import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.backend.MetaUrl;
import io.picomq.sql.backend.Schema;
import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.kv.KvCommand;
import io.picomq.sql.kv.KvMachine;
import io.picomq.sql.kv.KvResult;
import io.picomq.sql.kv.KvState;
import io.picomq.sql.log.LogOptions;
import io.picomq.sql.log.SqlLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Group commit, measured: N "stream creations" (put-if-absent commands) proposed one at a time,
 * each waiting for its result before the next, against the same N proposed concurrently, each from
 * its own virtual thread. Both go through the full path: encode, flusher, INSERT, tailer, apply,
 * result.
 *
 * <p>Run (tables get a random prefix and are dropped afterwards):
 *
 * <pre>
 * mvn -q -pl picomq/picomq-sql test-compile exec:java -Dexec.classpathScope=test \
 *   -Dexec.mainClass=io.picomq.sql.bench.GroupCommitBenchmark \
 *   -Dexec.args="postgres://postgres@127.0.0.1:5432/test 10000"
 * </pre>
 */
public final class GroupCommitBenchmark {
  private GroupCommitBenchmark() {}

  public static void main(String[] args) throws Exception {
    String url = args.length > 0 ? args[0] : System.getenv("PICOMQ_PG_URL");
    int count = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    if (url == null) {
      throw new IllegalArgumentException("usage: GroupCommitBenchmark META_URL [COUNT]");
    }
    String prefix =
        "bench" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()) + "_";
    BackendOptions options = BackendOptions.builder().tablePrefix(prefix).build();
    try (SqlBackend backend = SqlBackend.open(MetaUrl.parse(url), options)) {
      try {
        run(backend, count);
      } finally {
        Schema.drop(backend);
      }
    }
  }

  private static void run(SqlBackend backend, int count) throws Exception {
    LogOptions options = LogOptions.builder().name("bench").build();
    try (SqlLog<KvState, KvCommand, KvResult> log =
        new SqlLog<>(backend, new KvMachine(), options)) {
      log.start().join();
      // Warm-up: JIT, connection pool, statement caches.
      sequential(log, "warm-", 300);
      concurrent(log, "warm-concurrent-", 2_000);

      long rowsBefore = log.view().appliedIndex();
      Duration oneAtATime = sequential(log, "sequential-", count);
      long sequentialRows = log.view().appliedIndex() - rowsBefore;

      rowsBefore = log.view().appliedIndex();
      Duration together = concurrent(log, "concurrent-", count);
      long concurrentRows = log.view().appliedIndex() - rowsBefore;

      System.out.println("backend:    " + backend.describe());
      System.out.println("commands:   " + count);
      report("one at a time", count, oneAtATime, sequentialRows);
      report("concurrent", count, together, concurrentRows);
      System.out.println(
          "speedup:    "
              + String.format(
                  Locale.ROOT, "%.1f", (double) oneAtATime.toNanos() / together.toNanos())
              + "x");
    }
  }

  private static Duration sequential(
      SqlLog<KvState, KvCommand, KvResult> log, String prefix, int count) {
    long started = System.nanoTime();
    for (int i = 0; i < count; i++) {
      log.propose(new KvCommand.PutIfAbsent(prefix + i, "stream")).join();
    }
    return Duration.ofNanos(System.nanoTime() - started);
  }

  private static Duration concurrent(
      SqlLog<KvState, KvCommand, KvResult> log, String prefix, int count) {
    long started = System.nanoTime();
    List<CompletableFuture<KvResult>> created = new ArrayList<>(count);
    try (ExecutorService creators = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < count; i++) {
        String name = prefix + i;
        created.add(
            CompletableFuture.supplyAsync(
                () -> log.propose(new KvCommand.PutIfAbsent(name, "stream")).join(), creators));
      }
      created.forEach(CompletableFuture::join);
    }
    return Duration.ofNanos(System.nanoTime() - started);
  }

  private static void report(String mode, int count, Duration took, long rows) {
    System.out.println(
        String.format(
            Locale.ROOT,
            "%-14s %8.0f ms  %9.0f commands/s  %6d rows  %6.1f commands/row",
            mode + ":",
            took.toNanos() / 1e6,
            count / (took.toNanos() / 1e9),
            rows,
            (double) count / rows));
  }
}
