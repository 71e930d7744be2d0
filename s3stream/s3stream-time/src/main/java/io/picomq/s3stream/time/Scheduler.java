package io.picomq.s3stream.time;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Time as the object store decorators see it: a monotonic clock and a way to run something later.
 * Tests substitute a manual one and step through backoffs and timeouts without sleeping.
 */
public interface Scheduler {

  /** A scheduled task that has not necessarily run yet. */
  @FunctionalInterface
  interface Cancellable {
    /** Makes sure the task will not run if it has not started; harmless if it has. */
    void cancel();
  }

  /** Monotonic nanoseconds, comparable only with other readings of this scheduler. */
  long nanoTime();

  /**
   * Runs {@code task} once, {@code delayNanos} from now, on some other thread, unless cancelled
   * first. The task must not block.
   */
  Cancellable schedule(Runnable task, long delayNanos);

  /**
   * Fails {@code future} with {@code failure}'s exception unless it completes within {@code
   * delayNanos}: {@code orTimeout} on this scheduler, whose timer is cancelled when the future
   * completes first.
   *
   * @return {@code future}
   */
  default <T> CompletableFuture<T> failAfter(
      CompletableFuture<T> future, long delayNanos, Supplier<? extends Throwable> failure) {
    Cancellable timer = schedule(() -> future.completeExceptionally(failure.get()), delayNanos);
    future.whenComplete((value, error) -> timer.cancel());
    return future;
  }

  /**
   * The real clock, shared by the whole process; nothing to start or stop. A delay of {@value
   * SystemScheduler#COARSE_FROM_MILLIS} ms or more (timeouts, which are mostly cancelled before
   * they fire, and backoffs) may fire up to {@value SystemScheduler#TICK_MILLIS} ms late; shorter
   * ones are on time. Tasks run on the common pool.
   */
  static Scheduler system() {
    return SystemScheduler.INSTANCE;
  }
}
