package io.picomq.frontend.http;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** Counts exchanges that have not finished their response, so shutdown can wait for zero. */
final class InFlight {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();

  // Guarded by lock.
  private int count;

  void begin() {
    lock.lock();
    try {
      count++;
    } finally {
      lock.unlock();
    }
  }

  void end() {
    lock.lock();
    try {
      count--;
      if (count == 0) {
        idle.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  int count() {
    lock.lock();
    try {
      return count;
    } finally {
      lock.unlock();
    }
  }

  /** Waits until no exchange is in flight or {@code limit} has passed; true when idle. */
  boolean awaitIdle(Duration limit) throws InterruptedException {
    long remainingNanos = limit.toNanos();
    lock.lock();
    try {
      while (count > 0) {
        if (remainingNanos <= 0) {
          return false;
        }
        remainingNanos = idle.awaitNanos(remainingNanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  static long millis(Duration duration) {
    return TimeUnit.NANOSECONDS.toMillis(duration.toNanos());
  }
}
