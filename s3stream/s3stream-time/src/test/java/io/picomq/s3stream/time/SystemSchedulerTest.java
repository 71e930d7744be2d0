package io.picomq.s3stream.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The real clock's two paths: short delays on the delay queue, long ones on the wheel. */
class SystemSchedulerTest {

  private static final Scheduler SYSTEM = Scheduler.system();
  private static final long SHORT = TimeUnit.MILLISECONDS.toNanos(5);
  private static final long LONG =
      TimeUnit.MILLISECONDS.toNanos(SystemScheduler.COARSE_FROM_MILLIS + 20);

  @Test
  void shortAndLongDelaysRunOnTheCommonPoolAndNeverEarly() throws Exception {
    for (long delay : new long[] {0, SHORT, LONG}) {
      CompletableFuture<Long> ran = new CompletableFuture<>();
      long armed = SYSTEM.nanoTime();
      SYSTEM.schedule(
          () -> {
            if (Thread.currentThread() instanceof ForkJoinWorkerThread worker
                && worker.getPool() == ForkJoinPool.commonPool()) {
              ran.complete(SYSTEM.nanoTime());
            } else {
              ran.completeExceptionally(
                  new AssertionError("ran on " + Thread.currentThread().getName()));
            }
          },
          delay);
      long elapsed = ran.get(10, TimeUnit.SECONDS) - armed;
      assertThat(elapsed).as("delay %d ns", delay).isGreaterThanOrEqualTo(delay);
    }
  }

  @Test
  void aCancelledDelayNeverRunsOnEitherPath() throws Exception {
    AtomicBoolean cancelledRan = new AtomicBoolean();
    SYSTEM.schedule(() -> cancelledRan.set(true), SHORT).cancel();
    SYSTEM.schedule(() -> cancelledRan.set(true), LONG).cancel();
    // A later delay on each path has run: the cancelled ones, due earlier, would have too.
    CompletableFuture<Void> shortAfter = new CompletableFuture<>();
    CompletableFuture<Void> longAfter = new CompletableFuture<>();
    SYSTEM.schedule(() -> shortAfter.complete(null), 2 * SHORT);
    SYSTEM.schedule(() -> longAfter.complete(null), LONG + TimeUnit.MILLISECONDS.toNanos(50));
    CompletableFuture.allOf(shortAfter, longAfter).get(10, TimeUnit.SECONDS);
    assertThat(cancelledRan).isFalse();
  }

  @Test
  void failAfterFailsALateFutureAndLeavesAnAnsweredOneAlone() throws Exception {
    CompletableFuture<String> late = new CompletableFuture<>();
    CompletableFuture<String> answered = new CompletableFuture<>();
    SYSTEM.failAfter(late, SHORT, () -> new IllegalStateException("late"));
    SYSTEM.failAfter(answered, SHORT, () -> new IllegalStateException("late"));
    answered.complete("in time");
    assertThat(late)
        .failsWithin(10, TimeUnit.SECONDS)
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(IllegalStateException.class);
    assertThat(answered.get()).isEqualTo("in time");
  }
}
