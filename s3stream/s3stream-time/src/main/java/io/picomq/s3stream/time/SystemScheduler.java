package io.picomq.s3stream.time;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * {@link Scheduler#system()}: long delays on a hashed wheel, short ones on a delay queue.
 *
 * <p>Why two: every request and every storage attempt arms a timeout that is almost always
 * cancelled a few milliseconds later. JDK 25's shared delay thread (behind {@code
 * CompletableFuture.orTimeout}) is woken to arm and again to cancel each of those; under load it
 * took about a tenth of a node's CPU. Arming or cancelling a wheel timeout only queues it for the
 * wheel's thread, which looks once per tick, whatever the traffic; its price is up to one tick of
 * lateness, which a timeout of seconds can take. A batch window of a millisecond or a backoff of a
 * tenth of a second cannot, so short delays go to a delay queue, which wakes its thread only for a
 * delay due before every other it holds.
 */
final class SystemScheduler implements Scheduler {

  static final SystemScheduler INSTANCE = new SystemScheduler();

  /** Delays at least this long go to the wheel. */
  static final long COARSE_FROM_MILLIS = 1_000;

  /**
   * The wheel's tick: how late a long delay may fire, at most a tenth of it. The wheel's thread
   * wakes once per tick whether or not anything is due, about 0.1 ms of CPU each on this project's
   * VMs: a 10 ms tick doubled an idle node's CPU.
   */
  static final long TICK_MILLIS = 100;

  private static final long COARSE_FROM_NANOS = TimeUnit.MILLISECONDS.toNanos(COARSE_FROM_MILLIS);

  private final HashedWheelTimer wheel =
      new HashedWheelTimer(daemon("picomq-timer-wheel"), TICK_MILLIS, TimeUnit.MILLISECONDS, 512);
  private final ScheduledThreadPoolExecutor queue = delayQueue();

  private SystemScheduler() {}

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    Runnable handOff = () -> ForkJoinPool.commonPool().execute(task);
    long delay = Math.max(0, delayNanos);
    if (delay >= COARSE_FROM_NANOS) {
      Timeout timeout = wheel.newTimeout(ignored -> handOff.run(), delay, TimeUnit.NANOSECONDS);
      return timeout::cancel;
    }
    ScheduledFuture<?> due = queue.schedule(handOff, delay, TimeUnit.NANOSECONDS);
    return () -> due.cancel(false);
  }

  private static ScheduledThreadPoolExecutor delayQueue() {
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(1, daemon("picomq-timer"));
    executor.setRemoveOnCancelPolicy(true); // a cancelled delay leaves nothing queued behind it
    return executor;
  }

  private static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
