package io.picomq.sql.log;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * How a {@link SqlLog} behaves.
 *
 * @param name names the log's threads and log lines (for example the node id)
 * @param maxCommandsPerRow the most commands the flusher packs into one row
 * @param maxRowBytes the flusher closes a row before it grows past this many bytes of commands (a
 *     single larger command still gets a row of its own)
 * @param snapshotEveryRows a node writes a snapshot after applying each row whose index is a
 *     multiple of this, unless the state is large (next)
 * @param snapshotBytesPerInterval the snapshot size one interval pays for: after a snapshot n times
 *     this size, the next waits n intervals, so snapshots cost the same per row however large the
 *     state grows
 * @param snapshotChunkBytes a snapshot is stored in rows of at most this many bytes, each written
 *     in a transaction of its own, so that no single write holds the database (SQLite's one write
 *     lock) for as long as the whole snapshot takes
 * @param pollInterval how long an idle tailer waits before reading the table again (a local
 *     proposal wakes it at once, and on Postgres so does another node's row)
 * @param readBatchRows the most rows the tailer reads per query
 * @param maxPendingProposals proposals waiting for the flusher beyond this fail with {@link
 *     LogOverloadedException}
 * @param maxRetryBackoff the longest pause between attempts when the database fails
 * @param threadFactory makes the tailer, flusher, listener and snapshot threads (each blocks in
 *     JDBC)
 * @param completionExecutor completes proposal futures and applied-index waits, so callers'
 *     callbacks never run on the tailer thread
 */
public record LogOptions(
    String name,
    int maxCommandsPerRow,
    int maxRowBytes,
    long snapshotEveryRows,
    long snapshotBytesPerInterval,
    int snapshotChunkBytes,
    Duration pollInterval,
    int readBatchRows,
    int maxPendingProposals,
    Duration maxRetryBackoff,
    ThreadFactory threadFactory,
    Executor completionExecutor) {

  public LogOptions {
    if (name.isBlank()) {
      throw new IllegalArgumentException("name is blank");
    }
    requireRange("maxCommandsPerRow", maxCommandsPerRow, 1, RowCodec.MAX_COMMANDS);
    requireRange("maxRowBytes", maxRowBytes, 1, Integer.MAX_VALUE);
    requireRange("snapshotEveryRows", snapshotEveryRows, 2, Long.MAX_VALUE);
    requireRange("snapshotBytesPerInterval", snapshotBytesPerInterval, 1, Long.MAX_VALUE);
    requireRange("snapshotChunkBytes", snapshotChunkBytes, 1, 1 << 30);
    requireRange("readBatchRows", readBatchRows, 1, 100_000);
    requireRange("maxPendingProposals", maxPendingProposals, 1, Integer.MAX_VALUE);
    requirePositive("pollInterval", pollInterval);
    requirePositive("maxRetryBackoff", maxRetryBackoff);
  }

  private static void requireRange(String option, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(option + " " + value + " is not in " + min + ".." + max);
    }
  }

  private static void requirePositive(String option, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(option + " " + value + " is not positive");
    }
  }

  /**
   * The defaults: 256 commands or 1 MiB per row, a snapshot every 1024 rows for each MiB it holds
   * (at least one), stored in chunks of 1 MiB, a 10 ms poll, 64 rows per read, 65,536 waiting
   * proposals, back off up to 1 s, platform daemon threads, and proposal futures completed on
   * virtual threads.
   */
  public static LogOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A copy of these options in a builder; each setting may be changed once more. */
  public Builder newBuilder() {
    Builder builder = new Builder();
    builder.name = name;
    builder.maxCommandsPerRow = maxCommandsPerRow;
    builder.maxRowBytes = maxRowBytes;
    builder.snapshotEveryRows = snapshotEveryRows;
    builder.snapshotBytesPerInterval = snapshotBytesPerInterval;
    builder.snapshotChunkBytes = snapshotChunkBytes;
    builder.pollInterval = pollInterval;
    builder.readBatchRows = readBatchRows;
    builder.maxPendingProposals = maxPendingProposals;
    builder.maxRetryBackoff = maxRetryBackoff;
    builder.threadFactory = threadFactory;
    builder.completionExecutor = completionExecutor;
    return builder;
  }

  /** Builds {@link LogOptions}; setting one option twice is a mistake and is rejected. */
  public static final class Builder {
    private String name = "meta";
    private int maxCommandsPerRow = 256;
    private int maxRowBytes = 1 << 20;
    private long snapshotEveryRows = 1024;
    private long snapshotBytesPerInterval = 1 << 20;
    private int snapshotChunkBytes = 1 << 20;
    private Duration pollInterval = Duration.ofMillis(10);
    private int readBatchRows = 64;
    private int maxPendingProposals = 65_536;
    private Duration maxRetryBackoff = Duration.ofSeconds(1);
    private ThreadFactory threadFactory = Thread.ofPlatform().daemon().factory();
    private Executor completionExecutor = Thread::startVirtualThread;
    private final Set<String> set = new HashSet<>();

    private Builder() {}

    private void once(String option) {
      if (!set.add(option)) {
        throw new IllegalStateException(option + " was already set");
      }
    }

    public Builder name(String name) {
      once("name");
      this.name = name;
      return this;
    }

    public Builder maxCommandsPerRow(int maxCommandsPerRow) {
      once("maxCommandsPerRow");
      this.maxCommandsPerRow = maxCommandsPerRow;
      return this;
    }

    public Builder maxRowBytes(int maxRowBytes) {
      once("maxRowBytes");
      this.maxRowBytes = maxRowBytes;
      return this;
    }

    public Builder snapshotEveryRows(long snapshotEveryRows) {
      once("snapshotEveryRows");
      this.snapshotEveryRows = snapshotEveryRows;
      return this;
    }

    public Builder snapshotBytesPerInterval(long snapshotBytesPerInterval) {
      once("snapshotBytesPerInterval");
      this.snapshotBytesPerInterval = snapshotBytesPerInterval;
      return this;
    }

    public Builder snapshotChunkBytes(int snapshotChunkBytes) {
      once("snapshotChunkBytes");
      this.snapshotChunkBytes = snapshotChunkBytes;
      return this;
    }

    public Builder pollInterval(Duration pollInterval) {
      once("pollInterval");
      this.pollInterval = pollInterval;
      return this;
    }

    public Builder readBatchRows(int readBatchRows) {
      once("readBatchRows");
      this.readBatchRows = readBatchRows;
      return this;
    }

    public Builder maxPendingProposals(int maxPendingProposals) {
      once("maxPendingProposals");
      this.maxPendingProposals = maxPendingProposals;
      return this;
    }

    public Builder maxRetryBackoff(Duration maxRetryBackoff) {
      once("maxRetryBackoff");
      this.maxRetryBackoff = maxRetryBackoff;
      return this;
    }

    public Builder threadFactory(ThreadFactory threadFactory) {
      once("threadFactory");
      this.threadFactory = threadFactory;
      return this;
    }

    public Builder completionExecutor(Executor completionExecutor) {
      once("completionExecutor");
      this.completionExecutor = completionExecutor;
      return this;
    }

    public LogOptions build() {
      return new LogOptions(
          name,
          maxCommandsPerRow,
          maxRowBytes,
          snapshotEveryRows,
          snapshotBytesPerInterval,
          snapshotChunkBytes,
          pollInterval,
          readBatchRows,
          maxPendingProposals,
          maxRetryBackoff,
          threadFactory,
          completionExecutor);
    }
  }
}
