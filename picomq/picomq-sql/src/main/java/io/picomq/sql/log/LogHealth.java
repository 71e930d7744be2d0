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
