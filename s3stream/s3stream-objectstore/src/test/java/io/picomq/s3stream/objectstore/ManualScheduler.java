package io.picomq.s3stream.objectstore;

import io.picomq.s3stream.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link Scheduler} whose clock moves only when a test says so. Due tasks run on the test's
 * thread, in due order, inside {@link #advance} or {@link #runNext}.
 */
public final class ManualScheduler implements Scheduler {

  private record Task(long dueNanos, long sequence, Runnable body, boolean[] cancelled)
      implements Comparable<Task> {
    @Override
    public int compareTo(Task other) {
      int byDue = Long.compare(dueNanos, other.dueNanos);
      return byDue != 0 ? byDue : Long.compare(sequence, other.sequence);
    }
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final PriorityQueue<Task> tasks = new PriorityQueue<>();
  private final List<Long> requestedDelaysNanos = new ArrayList<>();
  private long nowNanos;
  private long sequence;

  @Override
  public long nanoTime() {
    lock.lock();
    try {
      return nowNanos;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    boolean[] cancelled = {false};
    lock.lock();
    try {
      requestedDelaysNanos.add(delayNanos);
      tasks.add(new Task(nowNanos + Math.max(0, delayNanos), sequence++, task, cancelled));
    } finally {
      lock.unlock();
    }
    return () -> {
      lock.lock();
      try {
        cancelled[0] = true;
      } finally {
        lock.unlock();
      }
    };
  }

  /** Moves the clock forward by {@code duration}, running every task that falls due. */
  public void advance(Duration duration) {
    long target = nanoTime() + duration.toNanos();
    while (runNextDueBy(target)) {
      // keep going: a task may schedule another that is also due
    }
    lock.lock();
    try {
      nowNanos = Math.max(nowNanos, target);
    } finally {
      lock.unlock();
    }
  }

  /** Jumps to the next live task and runs it; false when none is pending. */
  public boolean runNext() {
    return runNextDueBy(Long.MAX_VALUE);
  }

  /** Runs tasks until none is pending, or fails after {@code limit} tasks. */
  public int runUntilIdle(int limit) {
    int ran = 0;
    while (runNext()) {
      if (++ran > limit) {
        throw new AssertionError("still busy after " + limit + " scheduled tasks");
      }
    }
    return ran;
  }

  /** Every delay asked of {@link #schedule}, in order. */
  public List<Long> requestedDelaysNanos() {
    lock.lock();
    try {
      return List.copyOf(requestedDelaysNanos);
    } finally {
      lock.unlock();
    }
  }

  private boolean runNextDueBy(long limitNanos) {
    Task next;
    lock.lock();
    try {
      while (!tasks.isEmpty() && tasks.peek().cancelled()[0]) {
        tasks.poll();
      }
      if (tasks.isEmpty() || tasks.peek().dueNanos() > limitNanos) {
        return false;
      }
      next = tasks.poll();
      nowNanos = Math.max(nowNanos, next.dueNanos());
    } finally {
      lock.unlock();
    }
    next.body().run();
    return true;
  }
}
