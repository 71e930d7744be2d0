package io.picomq.sql.log;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Whether a log may still take proposals. The first failure is sticky: once the sink stopped (or
 * the log closed), every later proposal fails the same way. Any thread may read and set it.
 */
final class LogHealth {
  private final AtomicReference<MetadataLogException> failure = new AtomicReference<>();
  private final CountDownLatch closing = new CountDownLatch(1);

  /** Why the tailer's latest database call failed, null once one succeeded. */
  private volatile String readFailure;

  /** Why the flusher's latest database call failed, null once one succeeded. */
  private volatile String writeFailure;

  /** The tailer's ({@code write} false) or flusher's latest database call failed with this. */
  void databaseFailed(boolean write, Exception cause) {
    String why = String.valueOf(cause.getMessage());
    if (write) {
      writeFailure = why;
    } else {
      readFailure = why;
    }
  }

  /** The tailer's or flusher's latest database call succeeded. */
  void databaseAnswered(boolean write) {
    if (write) {
      writeFailure = null;
    } else {
      readFailure = null;
    }
  }

  /** Why the database does not answer now, if the latest read or write of it failed. */
  Optional<String> databaseFailure() {
    String write = writeFailure;
    return Optional.ofNullable(write != null ? write : readFailure);
  }

  Optional<MetadataLogException> failure() {
    return Optional.ofNullable(failure.get());
  }

  /**
   * Records {@code cause} unless a failure is already recorded.
   *
   * @return whether {@code cause} is now the recorded failure
   */
  boolean fail(MetadataLogException cause) {
    return failure.compareAndSet(null, cause);
  }

  /** From now on the log's threads wind down; {@link #pause} returns at once. */
  void close() {
    closing.countDown();
  }

  boolean isClosing() {
    return closing.getCount() == 0;
  }

  /**
   * Waits for {@code pause} unless the log is closing.
   *
   * @return {@code true} if the whole pause elapsed, {@code false} if the log is closing
   */
  boolean pause(Duration pause) throws InterruptedException {
    return !closing.await(pause.toNanos(), TimeUnit.NANOSECONDS);
  }
}
