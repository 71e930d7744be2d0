package io.picomq.sql.backend;

import java.time.Duration;

/**
 * How a backend is opened.
 *
 * @param tables the table names (a prefix per metadata plane)
 * @param poolSize the most connections a pooled backend holds (Postgres and SQLite files); a node
 *     uses about four at once (flusher, tailer, snapshot writer, lease). A Postgres pool holds one
 *     more, which the metadata log keeps to listen for other nodes' rows
 * @param connectTimeout how long to wait for a connection from the pool or the server
 * @param busyTimeout how long a SQLite statement waits for another connection's write lock
 */
public record BackendOptions(
    TableNames tables, int poolSize, Duration connectTimeout, Duration busyTimeout) {

  public BackendOptions {
    if (poolSize < 2) {
      throw new IllegalArgumentException("poolSize " + poolSize + " is below 2");
    }
    requirePositive("connectTimeout", connectTimeout);
    requirePositive("busyTimeout", busyTimeout);
  }

  private static void requirePositive(String name, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " " + value + " is not positive");
    }
  }

  /** The defaults: prefix {@code picomq_}, 8 connections, 10 s to connect, 10 s busy wait. */
  public static BackendOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A copy of these options in a builder; each setting may be changed once more. */
  public Builder newBuilder() {
    Builder builder = new Builder();
    builder.tables = tables;
    builder.poolSize = poolSize;
    builder.connectTimeout = connectTimeout;
    builder.busyTimeout = busyTimeout;
    return builder;
  }

  /** Builds {@link BackendOptions}; setting one option twice is a mistake and is rejected. */
  public static final class Builder {
    private TableNames tables = new TableNames(TableNames.DEFAULT_PREFIX);
    private int poolSize = 8;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration busyTimeout = Duration.ofSeconds(10);
    private final java.util.Set<String> set = new java.util.HashSet<>();

    private Builder() {}

    private void once(String name) {
      if (!set.add(name)) {
        throw new IllegalStateException(name + " was already set");
      }
    }

    public Builder tablePrefix(String prefix) {
      once("tablePrefix");
      this.tables = new TableNames(prefix);
      return this;
    }

    public Builder poolSize(int poolSize) {
      once("poolSize");
      this.poolSize = poolSize;
      return this;
    }

    public Builder connectTimeout(Duration connectTimeout) {
      once("connectTimeout");
      this.connectTimeout = connectTimeout;
      return this;
    }

    public Builder busyTimeout(Duration busyTimeout) {
      once("busyTimeout");
      this.busyTimeout = busyTimeout;
      return this;
    }

    public BackendOptions build() {
      return new BackendOptions(tables, poolSize, connectTimeout, busyTimeout);
    }
  }
}
