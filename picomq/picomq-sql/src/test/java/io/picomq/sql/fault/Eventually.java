package io.picomq.sql.fault;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/** Waits for a condition with a deadline, checking every millisecond. */
public final class Eventually {
  private Eventually() {}

  /** A condition that may throw (for example a SQL query). */
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  public static void await(Duration timeout, String what, Condition condition) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.holds()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout + " waiting until " + what);
      }
      LockSupport.parkNanos(1_000_000);
    }
  }

  /** Whether {@code condition} holds within {@code timeout}. */
  public static boolean within(Duration timeout, Condition condition) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.holds()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      LockSupport.parkNanos(1_000_000);
    }
    return true;
  }
}
