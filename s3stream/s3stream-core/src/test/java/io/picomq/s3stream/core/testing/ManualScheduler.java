package io.picomq.s3stream.core.testing;

import io.picomq.s3stream.time.Scheduler;
import java.util.ArrayDeque;
import java.util.Deque;

/** A clock at 0 whose scheduled tasks run only when told, on the caller's thread, in order. */
public final class ManualScheduler implements Scheduler {
  /** The tasks scheduled and not yet run or cancelled, oldest first. */
  public final Deque<Runnable> tasks = new ArrayDeque<>();

  @Override
  public long nanoTime() {
    return 0;
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    tasks.add(task);
    return () -> tasks.remove(task);
  }

  /** Runs the oldest task. */
  public void fireNext() {
    tasks.remove().run();
  }

  /** Runs every task, including those the tasks schedule. */
  public void runAll() {
    while (!tasks.isEmpty()) {
      fireNext();
    }
  }
}
