package io.picomq.s3stream.time;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
   * The real clock. Delays wait on the JDK's shared delay thread (the one behind {@link
   * CompletableFuture#completeOnTimeout}), which also forgets a cancelled delay at once, so a short
   * operation with a long attempt timeout leaves nothing queued behind it; tasks run on the common
   * pool. Nothing to start or stop.
   */
  static Scheduler system() {
    return SystemScheduler.INSTANCE;
  }

  /** The implementation behind {@link #system()}. */
  enum SystemScheduler implements Scheduler {
    INSTANCE;

    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
      CompletableFuture<Boolean> due = new CompletableFuture<>();
      due.completeOnTimeout(true, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
      due.thenAcceptAsync(
          fire -> {
            if (fire) {
              task.run();
            }
          });
      return () -> due.complete(false);
    }
  }
}
